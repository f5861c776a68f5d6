/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ASK control side: the pipeline's registration and ASIC declaration, the tasks and their memory
 * (aggregator rows and ring positions from the switch-memory budget), the snapshots published to
 * the data path, and the `ask ...` commands (docs/ask.md, docs/ctl.md).
 *
 * Control thread only. Every command checks all its arguments before it changes anything.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_random.h>

#include "ask.h"
#include "budget.h"
#include "cmd.h"
#include "dp.h"
#include "pipeline.h"
#include "steer.h"

#define ASK_ROWS_POOL "ask.rows"
#define ASK_RING_POOL "ask.ring"
/* Switch memory behind one row (an entry in every aggregator array) and one ring position
 * (seen and AggState; the window cell of a channel rides on its first position). */
#define ASK_ROW_BYTES  (ASK_AA_UNITS * ISW_KV_LANES * 4u)
#define ASK_RING_BYTES 8u

struct ask_conf *ask_conf_cur;
struct isw_reg *ask_regs[ASK_REG_NB];
struct ask_task_state ask_state[ASK_TASKS_MAX + 1];
struct ask_counters ask_counters[ISW_MAX_WORKERS][ASK_TASKS_MAX + 1];
struct ask_global_counters ask_gcounters[ISW_MAX_WORKERS];

static struct ask_conf *master; /* what the next snapshot is copied from */

static const uint8_t default_mac[6] = {0x02, 0x00, 0x00, 0x00, 0xa5, 0xa5};
static const char *const op_names[] = {"add", "max", "min"};

static int publish(void)
{
	struct ask_conf *c = malloc(sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	memcpy(c, master, sizeof(*c));
	isw_rcu_publish((void **)&ask_conf_cur, c, free);
	return 0;
}

static int ask_enable(struct isw_reg **regs, char *err, size_t errlen)
{
	/* isw_salu_kv_update() steps by the constant ISW_KV_LANES. */
	for (unsigned u = 0; u < ASK_AA_UNITS; u++)
		if (regs[ASK_REG_AA0 + u]->lanes != ISW_KV_LANES) {
			snprintf(err, errlen, "ask.aa%u: %u lanes, the key-value SALU needs %u", u,
			         regs[ASK_REG_AA0 + u]->lanes, ISW_KV_LANES);
			return -EINVAL;
		}
	master = calloc(1, sizeof(*master));
	if (master == NULL) {
		snprintf(err, errlen, "no memory for the ask configuration");
		return -ENOMEM;
	}
	int rc = isw_budget_pool_add(ASK_ROWS_POOL, ASK_ROWS, ASK_ROW_BYTES, "row");
	if (rc == 0) {
		rc = isw_budget_pool_add(ASK_RING_POOL, ASK_RING, ASK_RING_BYTES, "ring position");
		if (rc < 0)
			isw_budget_pool_del(ASK_ROWS_POOL);
	}
	if (rc < 0) {
		snprintf(err, errlen, "cannot register the ask memory pools");
		free(master);
		master = NULL;
		return rc;
	}
	for (unsigned i = 0; i < ASK_REG_NB; i++)
		ask_regs[i] = regs[i];
	for (unsigned u = 0; u < ASK_AA_UNITS; u++) {
		master->aa_cells[u] = (uint64_t)(uintptr_t)ask_regs[ASK_REG_AA0 + u]->cells.u32;
		master->aa_mask[u] = ask_regs[ASK_REG_AA0 + u]->mask;
	}
	master->simd = ask_simd_supported();
	master->udp_port = ASK_UDP_PORT;
	memcpy(master->mac, default_mac, 6);
	if ((rc = publish()) < 0) {
		isw_budget_pool_del(ASK_ROWS_POOL);
		isw_budget_pool_del(ASK_RING_POOL);
		free(master);
		master = NULL;
		snprintf(err, errlen, "no memory for the ask configuration");
	}
	return rc;
}

static void ask_disable(void)
{
	isw_rcu_publish((void **)&ask_conf_cur, NULL, free);
	isw_budget_pool_del(ASK_ROWS_POOL);
	isw_budget_pool_del(ASK_RING_POOL);
	free(master);
	master = NULL;
	memset(ask_regs, 0, sizeof(ask_regs));
}

/* Aggregator array u: its 6 lanes two per stage, arrays 2k and 2k+1 side by side in stages
 * 2 + 3k .. 4 + 3k, so each stage has 4 stateful ALUs. */
#define AA_DECL(u)                                                                 \
	{                                                                          \
		"aa" #u, 2 + 3 * ((u) / 2), ISW_REG_VEC, ASK_ROWS, ISW_KV_LANES, 2 \
	}

static const struct isw_reg_decl ask_reg_decls[ASK_REG_NB] = {
        [ASK_REG_WINDOW] = {"window", 1, ISW_REG_U32, ASK_RING},
        [ASK_REG_SEEN] = {"seen", 1, ISW_REG_U32, ASK_RING},
        [ASK_REG_ACTIVE] = {"active", 1, ISW_REG_U32, 2 * ASK_TASKS_MAX},
        [ASK_REG_AA0 + 0] = AA_DECL(0),
        [ASK_REG_AA0 + 1] = AA_DECL(1),
        [ASK_REG_AA0 + 2] = AA_DECL(2),
        [ASK_REG_AA0 + 3] = AA_DECL(3),
        [ASK_REG_AA0 + 4] = AA_DECL(4),
        [ASK_REG_AA0 + 5] = AA_DECL(5),
        [ASK_REG_AA0 + 6] = AA_DECL(6),
        [ASK_REG_AA0 + 7] = AA_DECL(7),
        [ASK_REG_AGGSTATE] = {"aggstate", 14, ISW_REG_U32, ASK_RING},
};
_Static_assert(ASK_AA_UNITS == 8, "one AA_DECL per aggregator array");

static const struct isw_table_decl ask_tables[] = {
        /* task id -> task (receiver, shape, memory ranges) */
        {"tasks", 0, ASK_TASKS_MAX, sizeof(struct ask_task)},
};

static const struct isw_asic_decl ask_asic = {
        .pipeline = "ask",
        .regs = ask_reg_decls,
        .nb_regs = ASK_REG_NB,
        .tables = ask_tables,
        .nb_tables = RTE_DIM(ask_tables),
};

/* The ASK address (senders' DATA, the receiver's SWAP and FETCH, ARP for it). */
static void ask_claims(struct isw_claims *cl)
{
	const struct ask_conf *c = ask_conf_cur;
	if (c != NULL && c->ip != 0)
		isw_claims_ip(cl, c->ip);
}

static void ask_steering(struct isw_steering *st);

static struct isw_pipeline ask = {
        .name = "ask",
        .help = "ASK key-value aggregation: seen/AggState rings, double-buffered AAs",
        .order = 70,
        .asic = &ask_asic,
        .enable = ask_enable,
        .disable = ask_disable,
        .process = ask_process,
        .process_strict = ask_process_strict,
        .process_burst = ask_process_burst,
        .claims = ask_claims,
        .steering = ask_steering,
};
ISW_PIPELINE_REGISTER(ask)

/* The lcore that owns task index ti (ask_dp.c claims the shard ti). */
static uint16_t task_owner(unsigned ti)
{
	return isw_dp.shard_owner[ti % ISW_SHARD_SLOTS];
}

/*
 * Senders address DATA to the task's receiver, so "IPv4 UDP to the receiver's address and the
 * ASK port" brings a task's DATA to its owner, where the receiver has no task another lcore owns.
 * Such tasks, SWAP and FETCH (to the ASK address) and one-armed DATA (senders then address the
 * ASK address, ask-wordcount --data-to) are handed off. One rule per receiver address.
 */
static void ask_steering(struct isw_steering *st)
{
	const struct ask_conf *c = ask_conf_cur;
	char what[40];
	for (unsigned ti = 1; c != NULL && ti <= ASK_TASKS_MAX; ti++) {
		const struct ask_task *t = &c->tasks[ti];
		if (!t->valid)
			continue;
		bool first = true, one_owner = true;
		for (unsigned o = 1; o <= ASK_TASKS_MAX; o++) {
			const struct ask_task *u = &c->tasks[o];
			if (o == ti || !u->valid || u->ip != t->ip)
				continue;
			first &= o > ti;
			one_owner &= task_owner(o) == task_owner(ti);
		}
		if (!first || !one_owner)
			continue;
		snprintf(what, sizeof(what), "task %u's DATA", t->id);
		isw_steering_add(st, ask.id, t->ip, 0, c->udp_port, task_owner(ti), what);
	}
}

/* ---- Commands ---- */

static int need_enabled(struct isw_cmd_ctx *c)
{
	if (master != NULL)
		return 0;
	return isw_cmd_err(c, ENOTSUP, "ask is not enabled (pipeline enable ask)");
}

static int arg_task(struct isw_cmd_ctx *c, const char *s, bool must_exist, uint32_t *id)
{
	if (isw_arg_u32(c, s, "task", 1, UINT16_MAX, id) < 0)
		return -EINVAL;
	if (must_exist && master->index[*id] == 0)
		return isw_cmd_err(c, ENOENT, "no task %u (see 'ask task show')", *id);
	return 0;
}

static int arg_pow2(struct isw_cmd_ctx *c, const char *s, const char *what, uint32_t max,
                    uint32_t *out)
{
	if (isw_arg_u32(c, s, what, 1, max, out) < 0)
		return -EINVAL;
	if ((*out & (*out - 1)) != 0)
		return isw_cmd_err(c, EINVAL, "%s must be a power of two, not %u", what, *out);
	return 0;
}

static const char *ip_str(rte_be32_t ip, char *buf)
{
	return inet_ntop(AF_INET, &ip, buf, INET_ADDRSTRLEN);
}

/* "MAC,IP,UDPPORT,PORT": the receiver's addresses and the switch port it sits behind. */
static int arg_receiver(struct isw_cmd_ctx *c, const char *s, struct ask_task *t)
{
	char buf[128];
	char *f[4];
	int n = isw_arg_list(c, s, "receiver", buf, sizeof(buf), f, RTE_DIM(f));
	if (n < 0)
		return n;
	if (n != 4)
		return isw_cmd_err(c, EINVAL, "receiver: give MAC,IP,UDPPORT,PORT, not '%s'", s);
	uint32_t udp;
	if (isw_arg_mac(c, f[0], "receiver mac", t->mac) < 0 ||
	    isw_arg_ipv4(c, f[1], "receiver ip", &t->ip) < 0 ||
	    isw_arg_u32(c, f[2], "receiver udp port", 1, UINT16_MAX, &udp) < 0 ||
	    isw_arg_port(c, f[3], &t->port) < 0)
		return -EINVAL;
	if (t->mac[0] & 1)
		return isw_cmd_err(c, EINVAL, "receiver mac must be a unicast address");
	t->udp_port = rte_cpu_to_be_16((uint16_t)udp);
	return 0;
}

static int arg_op(struct isw_cmd_ctx *c, const char *s, uint8_t *op)
{
	for (unsigned i = 0; i < RTE_DIM(op_names); i++)
		if (strcmp(s, op_names[i]) == 0) {
			*op = (uint8_t)i;
			return 0;
		}
	return isw_cmd_err(c, EINVAL, "op: add, max or min, not '%s'", s);
}

static void holder_name(char *buf, size_t len, uint32_t id)
{
	snprintf(buf, len, "ask task %u", id);
}

/* Fresh state for a task (workers paused): ask_task_state_reset(), zero counters, and a job of
 * the registration's first incarnation under a new registration nonce. */
static void task_state_reset(const struct ask_task *t, unsigned ti)
{
	ask_task_state_reset(t, ti, true);
	for (unsigned w = 0; w < ISW_MAX_WORKERS; w++)
		memset(&ask_counters[w][ti], 0, sizeof(ask_counters[w][ti]));
	struct ask_task_state *st = &ask_state[ti];
	st->incarnation = t->incarnation;
	st->jobs = 0;
	st->base_tuples = st->base_absorbed = st->base_claims = st->base_fetched = 0;
	do
		st->reg = (uint32_t)rte_rand();
	while (st->reg == 0);
}

/* The task's shape from the options of `ask task add` (kv in the command's order), checked
 * against the switch's limits. Returns 0 or -errno with the error set. */
static int task_parse(struct isw_cmd_ctx *c, const struct isw_kv *kv, struct ask_task *t)
{
	uint32_t v;
	if (arg_receiver(c, kv[0].val, t) < 0 ||
	    isw_arg_u32(c, kv[1].val, "channels", 1, 1024, &v) < 0)
		return -EINVAL;
	t->nchannels = (uint16_t)v;
	if (arg_pow2(c, kv[2].val, "window", ASK_WINDOW_MAX, &t->window) < 0 ||
	    isw_arg_u32(c, kv[3].val, "slots", 1, ASK_SLOTS_MAX, &v) < 0)
		return -EINVAL;
	t->nslots = (uint8_t)v;
	if (isw_arg_u32(c, kv[4].val, "key-bytes", 4, 16, &v) < 0)
		return -EINVAL;
	if (!ask_key_bytes_ok(v))
		return isw_cmd_err(c, EINVAL, "key-bytes: 4, 8 or 16, not %u", v);
	t->key_bytes = (uint8_t)v;
	if (arg_op(c, kv[5].val, &t->op) < 0 ||
	    arg_pow2(c, kv[6].val, "aa-size", ASK_AA_MAX, &t->aa_size) < 0 ||
	    (kv[7].val != NULL &&
	     isw_arg_port_list(c, kv[7].val, "senders", &t->sender_ports) < 0) ||
	    (kv[8].val != NULL && isw_arg_u32(c, kv[8].val, "incarnation", 0, UINT16_MAX, &v) < 0))
		return -EINVAL;
	t->incarnation = kv[8].val != NULL ? (uint16_t)v : 0;
	if (ask_task_ring(t) > ASK_RING)
		return isw_cmd_err(c, ENOSPC,
		                   "channels x 2 x window = %u ring positions, the switch has %u",
		                   ask_task_ring(t), ASK_RING);
	if (ask_task_rows(t) > ASK_ROWS)
		return isw_cmd_err(c, ENOSPC,
		                   "%u passes x 2 copies x aa-size = %u rows, the switch has %u",
		                   ask_passes(t->nslots), ask_task_rows(t), ASK_ROWS);
	return 0;
}

/* Takes the task's memory, resets its state with the workers parked, and publishes it at
 * index ti. On error nothing is left taken. */
static int task_install(struct isw_cmd_ctx *c, struct ask_task *t, unsigned ti)
{
	char holder[ISW_BUDGET_NAME_MAX];
	holder_name(holder, sizeof(holder), t->id);
	int rc = isw_budget_take(ASK_ROWS_POOL, holder, ask_task_rows(t), &t->aa_base, c->err,
	                         sizeof(c->err));
	if (rc < 0)
		return rc;
	rc = isw_budget_take(ASK_RING_POOL, holder, ask_task_ring(t), &t->ring_base, c->err,
	                     sizeof(c->err));
	if (rc < 0)
		goto give_rows;
	if (isw_dp_pause() < 0) {
		rc = isw_cmd_err(c, EAGAIN, "workers did not pause; nothing changed");
		goto give_ring;
	}
	task_state_reset(t, ti);
	isw_dp_resume();
	master->tasks[ti] = *t;
	master->index[t->id] = (uint8_t)ti;
	if (publish() == 0)
		return 0;
	memset(&master->tasks[ti], 0, sizeof(master->tasks[ti]));
	master->index[t->id] = 0;
	rc = isw_cmd_err(c, ENOMEM, "no memory");
give_ring:
	isw_budget_give(ASK_RING_POOL, holder);
give_rows:
	isw_budget_give(ASK_ROWS_POOL, holder);
	return rc;
}

static int cmd_task_add(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id;
	struct isw_kv kv[] = {{"receiver", NULL}, {"channels", NULL},  {"window", NULL},
	                      {"slots", NULL},    {"key-bytes", NULL}, {"op", NULL},
	                      {"aa-size", NULL},  {"senders", NULL},   {"incarnation", NULL}};
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 15, 19) < 0 ||
	    arg_task(c, argv[0], false, &id) < 0 ||
	    isw_arg_kv(c, argc - 1, argv + 1, kv, RTE_DIM(kv)) < 0)
		return -EINVAL;
	for (unsigned i = 0; i < 7; i++)
		if (kv[i].val == NULL)
			return isw_cmd_err(c, EINVAL, "usage: ask task add %s", c->cmd->usage);
	struct ask_task t = {.valid = true, .id = (uint16_t)id};
	int rc = task_parse(c, kv, &t);
	if (rc < 0)
		return rc;
	if (master->index[id] != 0)
		return isw_cmd_err(c, EEXIST, "task %u exists (ask task del %u first)", id, id);
	unsigned ti = 1;
	while (ti <= ASK_TASKS_MAX && master->tasks[ti].valid)
		ti++;
	if (ti > ASK_TASKS_MAX)
		return isw_cmd_err(c, ENOSPC, "%d tasks are registered already", ASK_TASKS_MAX);
	if ((rc = task_install(c, &t, ti)) < 0)
		return rc;
	isw_json_u64(c->out, "task", id);
	isw_json_u64(c->out, "rows", ask_task_rows(&t));
	isw_json_u64(c->out, "ring_positions", ask_task_ring(&t));
	isw_json_u64(c->out, "bytes",
	             (uint64_t)ask_task_rows(&t) * ASK_ROW_BYTES +
	                     ask_task_ring(&t) * ASK_RING_BYTES);
	return 0;
}
ISW_CMD_REGISTER(ask_task_add, "ask task add",
                 "ID receiver MAC,IP,UDPPORT,PORT channels N window W slots S key-bytes 4|8|16 "
                 "op add|max|min aa-size A [senders P[,P...]] [incarnation I]",
                 "register task ID (1-65535): its receiver, N channels of window W (a power of "
                 "two), S slots (1-32) per packet, AA size A per slot and copy (a power of two); "
                 "its first incarnation is I (0-65535, default 0); a receiver's BEGIN starts "
                 "the next",
                 cmd_task_add)

static int cmd_task_del(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 1, 1) < 0 ||
	    arg_task(c, argv[0], true, &id) < 0)
		return -EINVAL;
	unsigned ti = master->index[id];
	struct ask_task old = master->tasks[ti];
	memset(&master->tasks[ti], 0, sizeof(master->tasks[ti]));
	master->index[id] = 0;
	if (publish() < 0) {
		master->tasks[ti] = old;
		master->index[id] = (uint8_t)ti;
		return isw_cmd_err(c, ENOMEM, "no memory");
	}
	char holder[ISW_BUDGET_NAME_MAX];
	holder_name(holder, sizeof(holder), id);
	isw_budget_give(ASK_ROWS_POOL, holder);
	isw_budget_give(ASK_RING_POOL, holder);
	return 0;
}
ISW_CMD_REGISTER(ask_task_del, "ask task del", "ID",
                 "unregister a task and give back its memory (what its AAs hold is lost)",
                 cmd_task_del)

static void task_counters(unsigned ti, struct ask_counters *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned w = 0; w < isw_dp.nb_workers && w < ISW_MAX_WORKERS; w++) {
		const struct ask_counters *x = &ask_counters[w][ti];
		t->pkts += x->pkts;
		t->tuples += x->tuples;
		t->claims += x->claims;
		t->combines += x->combines;
		t->collisions += x->collisions;
		t->repeats += x->repeats;
		t->repeat_cleared += x->repeat_cleared;
		t->long_pkts += x->long_pkts;
		t->last_pkts += x->last_pkts;
		t->swaps += x->swaps;
		t->fetches += x->fetches;
		t->fetch_replays += x->fetch_replays;
		t->fetched += x->fetched;
		t->bad_requests += x->bad_requests;
		t->begins += x->begins;
		t->drops += x->drops;
	}
}

static void task_json(struct isw_cmd_ctx *c, const struct ask_task *t, unsigned ti)
{
	char buf[INET_ADDRSTRLEN], mac[32], ports[128];
	isw_fmt_port_list(t->sender_ports, ports, sizeof(ports));
	isw_json_obj_open(c->out, NULL);
	const struct ask_task_state *st = &ask_state[ti];
	char reg[16];
	snprintf(reg, sizeof(reg), "%08x", st->reg);
	isw_json_u64(c->out, "task", t->id);
	/* The owning lcore's, read racily: BEGIN changes them (docs/ask.md, Job lifetime). */
	isw_json_u64(c->out, "incarnation", st->incarnation);
	isw_json_u64(c->out, "jobs", st->jobs);
	isw_json_str_kv(c->out, "registration", reg);
	isw_json_str_kv(c->out, "receiver_mac", isw_fmt_mac(t->mac, mac));
	isw_json_str_kv(c->out, "receiver_ip", ip_str(t->ip, buf));
	isw_json_u64(c->out, "receiver_udp", rte_be_to_cpu_16(t->udp_port));
	isw_json_u64(c->out, "receiver_port", t->port);
	isw_json_str_kv(c->out, "senders", t->sender_ports ? ports : "any");
	isw_json_u64(c->out, "channels", t->nchannels);
	isw_json_u64(c->out, "window", t->window);
	isw_json_u64(c->out, "slots", t->nslots);
	isw_json_u64(c->out, "key_bytes", t->key_bytes);
	isw_json_str_kv(c->out, "op", op_names[t->op]);
	isw_json_u64(c->out, "aa_size", t->aa_size);
	isw_json_u64(c->out, "rows", ask_task_rows(t));
	isw_json_u64(c->out, "first_row", t->aa_base);
	isw_json_u64(c->out, "ring_positions", ask_task_ring(t));
	isw_json_u64(c->out, "first_ring", t->ring_base);
	isw_json_u64(c->out, "bytes",
	             (uint64_t)ask_task_rows(t) * ASK_ROW_BYTES +
	                     ask_task_ring(t) * ASK_RING_BYTES);
	isw_json_obj_close(c->out);
}

static int cmd_task_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id = 0;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 0, 1) < 0 ||
	    (argc == 1 && arg_task(c, argv[0], true, &id) < 0))
		return -EINVAL;
	isw_json_arr_open(c->out, "tasks");
	for (unsigned i = 1; i <= ASK_TASKS_MAX; i++)
		if (master->tasks[i].valid && (id == 0 || master->tasks[i].id == id))
			task_json(c, &master->tasks[i], i);
	isw_json_arr_close(c->out);
	isw_json_arr_open(c->out, "counters");
	for (unsigned i = 1; i <= ASK_TASKS_MAX; i++) {
		const struct ask_task *t = &master->tasks[i];
		if (!t->valid || (id != 0 && t->id != id))
			continue;
		struct ask_counters k;
		task_counters(i, &k);
		isw_json_obj_open(c->out, NULL);
		isw_json_u64(c->out, "task", t->id);
		isw_json_u64(c->out, "pkts", k.pkts);
		isw_json_u64(c->out, "tuples", k.tuples);
		isw_json_u64(c->out, "absorbed", k.claims + k.combines);
		isw_json_u64(c->out, "claims", k.claims);
		isw_json_u64(c->out, "combines", k.combines);
		isw_json_u64(c->out, "collisions", k.collisions);
		isw_json_u64(c->out, "repeats", k.repeats);
		isw_json_u64(c->out, "repeat_cleared", k.repeat_cleared);
		isw_json_u64(c->out, "long", k.long_pkts);
		isw_json_u64(c->out, "last", k.last_pkts);
		isw_json_u64(c->out, "swaps", k.swaps);
		isw_json_u64(c->out, "fetches", k.fetches);
		isw_json_u64(c->out, "fetch_replays", k.fetch_replays);
		isw_json_u64(c->out, "fetched", k.fetched);
		isw_json_u64(c->out, "bad_requests", k.bad_requests);
		isw_json_u64(c->out, "begins", k.begins);
		isw_json_u64(c->out, "drops", k.drops);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(ask_task_show, "ask task show", "[ID]",
                 "show tasks (receiver, shape, memory) and their counters", cmd_task_show)

static int cmd_aa_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id, only = UINT32_MAX;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 1, 2) < 0 ||
	    arg_task(c, argv[0], true, &id) < 0)
		return -EINVAL;
	unsigned ti = master->index[id];
	const struct ask_task *t = &master->tasks[ti];
	if (argc == 2 && isw_arg_u32(c, argv[1], "slot", 0, t->nslots - 1u, &only) < 0)
		return -EINVAL;
	uint32_t used[ASK_SLOTS_MAX][2] = {{0}};
	if (isw_dp_pause() < 0)
		return isw_cmd_err(c, EAGAIN, "workers did not pause; try again");
	uint32_t active = (uint32_t)isw_reg_get(ask_regs[ASK_REG_ACTIVE], ti, 0);
	for (unsigned j = 0; j < t->nslots; j++) {
		if (only != UINT32_MAX && j != only)
			continue;
		const struct isw_reg *r = ask_regs[ASK_REG_AA0 + j % ASK_AA_UNITS];
		for (unsigned cp = 0; cp < 2; cp++)
			for (uint32_t e = 0; e < t->aa_size; e++)
				used[j][cp] += isw_reg_get(r, ask_row(t, j, cp, e), 0) != 0;
	}
	isw_dp_resume();
	isw_json_u64(c->out, "task", id);
	isw_json_u64(c->out, "aa_size", t->aa_size);
	isw_json_arr_open(c->out, "slots");
	for (unsigned j = 0; j < t->nslots; j++) {
		if (only != UINT32_MAX && j != only)
			continue;
		isw_json_obj_open(c->out, NULL);
		isw_json_u64(c->out, "slot", j);
		isw_json_u64(c->out, "active", (active >> j) & 1u);
		isw_json_u64(c->out, "used0", used[j][0]);
		isw_json_u64(c->out, "used1", used[j][1]);
		isw_json_dbl(c->out, "fill_active",
		             (double)used[j][(active >> j) & 1u] / (double)t->aa_size);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(ask_aa_show, "ask aa show", "ID [SLOT]",
                 "show a task's aggregator arrays: active copy and entries used per slot and copy",
                 cmd_aa_show)

static int cmd_swap(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id, slot, copy = UINT32_MAX;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 2, 3) < 0 ||
	    arg_task(c, argv[0], true, &id) < 0)
		return -EINVAL;
	unsigned ti = master->index[id];
	const struct ask_task *t = &master->tasks[ti];
	if (isw_arg_u32(c, argv[1], "slot", 0, t->nslots - 1u, &slot) < 0 ||
	    (argc == 3 && isw_arg_u32(c, argv[2], "copy", 0, 1, &copy) < 0))
		return -EINVAL;
	if (isw_dp_pause() < 0)
		return isw_cmd_err(c, EAGAIN, "workers did not pause; nothing changed");
	uint32_t active = (uint32_t)isw_reg_get(ask_regs[ASK_REG_ACTIVE], ti, 0);
	if (copy == UINT32_MAX)
		copy = ((active >> slot) & 1u) ^ 1u;
	active = (active & ~(1u << slot)) | copy << slot;
	isw_reg_set(ask_regs[ASK_REG_ACTIVE], ti, 0, active);
	isw_dp_resume();
	isw_json_u64(c->out, "task", id);
	isw_json_u64(c->out, "slot", slot);
	isw_json_u64(c->out, "active", copy);
	return 0;
}
ISW_CMD_REGISTER(ask_swap, "ask swap", "ID SLOT [COPY]",
                 "make COPY (default: the other one) of the task's AA for SLOT the active copy; "
                 "the receiver drains the old one with FETCH",
                 cmd_swap)

static int cmd_config_set(struct isw_cmd_ctx *c, int argc, char **argv)
{
	struct isw_kv kv[] = {{"ip", NULL}, {"mac", NULL}, {"udp-port", NULL}, {"data-path", NULL}};
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 2, 8) < 0 ||
	    isw_arg_kv(c, argc, argv, kv, RTE_DIM(kv)) < 0)
		return -EINVAL;
	struct ask_conf n = *master;
	uint32_t port;
	if ((kv[0].val != NULL && isw_arg_ipv4(c, kv[0].val, "ip", &n.ip) < 0) ||
	    (kv[1].val != NULL && isw_arg_mac(c, kv[1].val, "mac", n.mac) < 0) ||
	    (kv[2].val != NULL && isw_arg_u32(c, kv[2].val, "udp-port", 1, UINT16_MAX, &port) < 0))
		return -EINVAL;
	if ((n.mac[0] & 1) || memcmp(n.mac, (uint8_t[6]){0}, 6) == 0)
		return isw_cmd_err(c, EINVAL, "mac must be a unicast address");
	if (kv[2].val != NULL)
		n.udp_port = (uint16_t)port;
	if (kv[3].val != NULL) {
		const char *dp = kv[3].val;
		if (strcmp(dp, "scalar") == 0)
			n.simd = false;
		else if (strcmp(dp, "avx512") == 0 || strcmp(dp, "auto") == 0)
			n.simd = ask_simd_supported();
		else
			return isw_cmd_err(c, EINVAL,
			                   "data-path: '%s' is not auto, avx512 or scalar", dp);
		if (strcmp(dp, "avx512") == 0 && !n.simd)
			return isw_cmd_err(c, ENOTSUP,
			                   "data-path: this CPU lacks AVX-512 (F, DQ, BW and VL)");
	}
	struct ask_conf old = *master;
	*master = n;
	if (publish() < 0) {
		*master = old;
		return isw_cmd_err(c, ENOMEM, "no memory");
	}
	return 0;
}
ISW_CMD_REGISTER(ask_config_set, "ask config set",
                 "[ip IP] [mac MAC] [udp-port P] [data-path auto|avx512|scalar]",
                 "set the ASK address receivers send SWAP and FETCH to (the switch answers ARP "
                 "for it), the UDP port of ASK traffic (default 42405) and the DATA path of the "
                 "fast build (default auto: avx512 where the CPU has it)",
                 cmd_config_set)

static int cmd_config_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	char buf[INET_ADDRSTRLEN], mac[32];
	uint64_t arp = 0, unknown = 0;
	for (unsigned w = 0; w < isw_dp.nb_workers && w < ISW_MAX_WORKERS; w++) {
		arp += ask_gcounters[w].arp_replies;
		unknown += ask_gcounters[w].unknown_task;
	}
	isw_json_str_kv(c->out, "ip", master->ip ? ip_str(master->ip, buf) : "none");
	isw_json_str_kv(c->out, "mac", isw_fmt_mac(master->mac, mac));
	isw_json_u64(c->out, "udp_port", master->udp_port);
	isw_json_u64(c->out, "tasks_max", ASK_TASKS_MAX);
	isw_json_u64(c->out, "rows_free", isw_budget_largest_free(ASK_ROWS_POOL));
	isw_json_u64(c->out, "ring_free", isw_budget_largest_free(ASK_RING_POOL));
	isw_json_u64(c->out, "arp_replies", arp);
	isw_json_u64(c->out, "unknown_task", unknown);
	isw_json_str_kv(c->out, "data_path", master->simd ? "avx512" : "scalar");
	return 0;
}
ISW_CMD_REGISTER(ask_config_show, "ask config show", "",
                 "show the ASK address and UDP port, free memory, global counters and the "
                 "data path in use",
                 cmd_config_show)
