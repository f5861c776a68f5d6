/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SyncAgtr control side: the pipeline's registration and ASIC declaration, the sessions and
 * workers, the configuration snapshots published to the data path, and the `syncagtr ...`
 * commands (docs/syncagtr.md, docs/ctl.md).
 *
 * Control thread only. Every command validates all of its arguments before it changes
 * anything, so a refused command leaves the configuration as it was.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "budget.h"
#include "cmd.h"
#include "dp.h"
#include "l2/l2.h"
#include "pipeline.h"
#include "pre.h"
#include "steer.h"
#include "syncagtr.h"

#define SA_POOL "syncagtr.slots"
/* Switch memory behind one slot: two bitmaps, two counts, two exponent pairs, two uplink states
 * and the values of both sets (256 elements each, the largest packet). */
#define SA_SLOT_BYTES (8u + 2u * 4u + 2u * 8u + 2u * 8u + 2u * 4u * SA_ELEMS_MAX)

struct sa_conf *sa_conf_cur;
struct isw_reg *sa_regs[SA_REG_NB];
struct sa_counters sa_counters[ISW_MAX_WORKERS][SA_SESSIONS_MAX + 1];
uint64_t sa_bound[SA_SESSIONS_MAX + 1][SA_THREADS_MAX];
uint32_t sa_held[SA_SESSIONS_MAX + 1][SA_THREADS_MAX];
struct sa_global_counters sa_gcounters[ISW_MAX_WORKERS];

static struct sa_conf master; /* what the next snapshot is built from */
static bool enabled;

static const uint8_t default_mac[6] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};

/* ---- Snapshots ---- */

static void table_insert(struct sa_conf *c, const struct sa_key *k, uint8_t sess, uint8_t rank,
                         bool stale)
{
	uint32_t h = sa_key_hash(k);
	for (uint32_t i = 0; i < SA_TABLE_SIZE; i++) {
		struct sa_entry *e = &c->table[(h + i) & (SA_TABLE_SIZE - 1)];
		if (e->used)
			continue;
		e->key = *k;
		e->used = 1;
		e->session = sess;
		e->rank = rank;
		e->stale = stale;
		return;
	}
}

/* Builds a snapshot from master (with its admission table) and publishes it. A member
 * registered in an earlier epoch than its session's keeps its entry, marked stale: its packets
 * are dropped as sa-epoch, not passed on to l2 as an unknown worker's. */
static int publish(void)
{
	struct sa_conf *c = malloc(sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	memcpy(c, &master, sizeof(*c));
	memset(c->table, 0, sizeof(c->table));
	c->nb_ids = 0;
	for (unsigned id = 1; id <= SA_SESSIONS_MAX; id++) {
		const struct sa_session *s = &c->sess[id];
		if (!s->valid)
			continue;
		c->ids[c->nb_ids++] = (uint8_t)id;
		for (unsigned r = 0; r < SA_WORKERS_MAX; r++) {
			if (!s->w[r].valid)
				continue;
			struct sa_key k = {.sip = s->w[r].ip, .dip = s->ip};
			memcpy(k.mac, s->w[r].mac, 6);
			table_insert(c, &k, (uint8_t)id, (uint8_t)r, s->w[r].epoch != s->epoch);
		}
		/* The parent's results: from its MAC and session IP to this switch's uplink IP. */
		if (s->up.on) {
			struct sa_key k = {.sip = s->up.parent_ip, .dip = s->up.ip};
			memcpy(k.mac, s->up.parent_mac, 6);
			table_insert(c, &k, (uint8_t)id, SA_RANK_PARENT, false);
		}
	}
	isw_rcu_publish((void **)&sa_conf_cur, c, free);
	return 0;
}

/* The session's PRE group: every worker whose port is known, in rank order, rid = rank. */
static int group_update(const struct sa_session *s)
{
	struct isw_mc_member mb[SA_WORKERS_MAX];
	uint16_t n = 0;
	for (unsigned r = 0; r < SA_WORKERS_MAX; r++)
		if (s->w[r].valid && s->w[r].port != SA_PORT_AUTO)
			mb[n++] = (struct isw_mc_member){.port = s->w[r].port, .rid = (uint16_t)r};
	return isw_mc_set(s->group, mb, n);
}

/* Zeroes the session's slots in every array (workers paused by the caller). */
/* Every register of slots base..base+nslots-1 to zero. */
static void range_clear(uint32_t base, uint32_t nslots)
{
	isw_reg_clear_range(sa_regs[SA_REG_BITMAP], base, nslots);
	isw_reg_clear_range(sa_regs[SA_REG_COUNT], 2 * base, 2 * nslots);
	isw_reg_clear_range(sa_regs[SA_REG_EXP], 2 * base, 2 * nslots);
	isw_reg_clear_range(sa_regs[SA_REG_UP], 2 * base, 2 * nslots);
	for (unsigned k = 0; k < SA_ELEMS_MAX / SA_CHUNK; k++)
		isw_reg_clear_range(sa_regs[SA_REG_VALUES], sa_vidx(sa_cidx(base, 0), k),
		                    2 * nslots);
}

static void region_clear(const struct sa_session *s)
{
	range_clear(s->base, s->nslots);
	isw_reg_clear_range(sa_regs[SA_REG_LEARN], (uint32_t)(s->id - 1) * SA_WORKERS_MAX,
	                    SA_WORKERS_MAX);
}

/* The budget holder of session id's region of generation parity par (docs/memory.md). */
static void region_holder(char *buf, size_t len, unsigned id, unsigned par)
{
	if (par & 1u)
		snprintf(buf, len, "syncagtr session %u (region 1)", id);
	else
		snprintf(buf, len, "syncagtr session %u", id);
}

/*
 * Folds the ports the workers of "port auto" members were last seen on into the
 * configuration. The learn cells are written by worker lcores; a 32-bit aligned load sees
 * either the old or the new port, and either is a port the worker used.
 */
static void learn_tick(void)
{
	if (!enabled)
		return;
	for (unsigned id = 1; id <= SA_SESSIONS_MAX; id++) {
		struct sa_session *s = &master.sess[id];
		bool changed = false;
		for (unsigned r = 0; s->valid && r < SA_WORKERS_MAX; r++) {
			struct sa_member *m = &s->w[r];
			if (!m->valid || !m->auto_port)
				continue;
			uint32_t v = __atomic_load_n(
			        isw_cell(sa_regs[SA_REG_LEARN], (id - 1) * SA_WORKERS_MAX + r),
			        __ATOMIC_RELAXED);
			if (v == 0 || v - 1 == m->port || v - 1 >= isw_dp.nb_ports)
				continue;
			m->port = (uint16_t)(v - 1);
			changed = true;
		}
		if (changed) {
			publish();
			group_update(s);
		}
	}
}
ISW_TICK_REGISTER(sa_learn, learn_tick)

/* ---- Pipeline ---- */

static int sa_enable(struct isw_reg **regs, char *err, size_t errlen)
{
	int rc = isw_budget_pool_add(SA_POOL, SA_SLOTS, SA_SLOT_BYTES, "slot");
	if (rc < 0) {
		snprintf(err, errlen, "cannot register memory pool %s: %s", SA_POOL, strerror(-rc));
		return rc;
	}
	for (unsigned i = 0; i < SA_REG_NB; i++)
		sa_regs[i] = regs[i];
	memset(&master, 0, sizeof(master));
	memcpy(master.mac, default_mac, 6);
	rc = publish();
	if (rc < 0) {
		isw_budget_pool_del(SA_POOL);
		snprintf(err, errlen, "no memory for the syncagtr configuration");
		return rc;
	}
	enabled = true;
	return 0;
}

static void sa_disable(void)
{
	enabled = false;
	for (unsigned id = 1; id <= SA_SESSIONS_MAX; id++)
		if (master.sess[id].valid)
			isw_mc_destroy(master.sess[id].group);
	memset(&master, 0, sizeof(master));
	isw_rcu_publish((void **)&sa_conf_cur, NULL, free);
	isw_budget_pool_del(SA_POOL);
	memset(sa_regs, 0, sizeof(sa_regs));
}

static const struct isw_reg_decl sa_reg_decls[SA_REG_NB] = {
        [SA_REG_BITMAP] = {"bitmap", 1, ISW_REG_PAIR, SA_SLOTS},
        [SA_REG_LEARN] = {"learn", 1, ISW_REG_U32, SA_SESSIONS_MAX *SA_WORKERS_MAX},
        [SA_REG_COUNT] = {"count", 2, ISW_REG_U32, 2 * SA_SLOTS},
        [SA_REG_EXP] = {"exp", 2, ISW_REG_PAIR, 2 * SA_SLOTS},
        [SA_REG_VALUES] = {"values", 3, ISW_REG_VEC, 8 * SA_SLOTS, SA_CHUNK, 4},
        [SA_REG_UP] = {"up", 2, ISW_REG_PAIR, 2 * SA_SLOTS},
};

static const struct isw_table_decl sa_tables[] = {
        /* (Ethernet src, IPv4 src, IPv4 dst) -> (session, rank) */
        {"workers", 0, SA_SESSIONS_MAX *SA_WORKERS_MAX, 16},
        /* switch IP -> session, for ARP and ICMP echo */
        {"sessions", 0, SA_SESSIONS_MAX, 8},
        /* (session, rank) -> worker MAC and IP, the replicas' egress rewrite */
        {"dst_addr", 2, SA_SESSIONS_MAX *SA_WORKERS_MAX, 12},
};

static const struct isw_asic_decl sa_asic = {
        .pipeline = "syncagtr",
        .regs = sa_reg_decls,
        .nb_regs = SA_REG_NB,
        .tables = sa_tables,
        .nb_tables = RTE_DIM(sa_tables),
};

/* Every session's switch IP (ARP, ICMP echo and its workers' packets). */
static void sa_claims(struct isw_claims *cl)
{
	const struct sa_conf *c = sa_conf_cur;
	for (unsigned i = 0; c != NULL && i < c->nb_ids; i++) {
		isw_claims_ip(cl, c->sess[c->ids[i]].ip);
		if (c->sess[c->ids[i]].up.on)
			isw_claims_ip(cl, c->sess[c->ids[i]].up.ip);
	}
}

static void sa_steering(struct isw_steering *st);

static struct isw_pipeline syncagtr = {
        .name = "syncagtr",
        .help = "SwitchML-compatible synchronous aggregation (sessions of up to 32 workers)",
        .order = 50,
        .asic = &sa_asic,
        .enable = sa_enable,
        .disable = sa_disable,
        .process = sa_process,
        .process_strict = sa_process_strict,
        .process_burst = sa_process_burst,
        .claims = sa_claims,
        .steering = sa_steering,
};
ISW_PIPELINE_REGISTER(syncagtr)

/* A session split among threads: thread t's packets (UDP source port worker_port + t, to the
 * SwitchML port) to the owner of its slot range. Its senders are the registered workers, so
 * RSS can place them too. */
static void sa_steering(struct isw_steering *st)
{
	const struct sa_conf *c = sa_conf_cur;
	char what[40];
	for (unsigned i = 0; c != NULL && i < c->nb_ids; i++) {
		const struct sa_session *s = &c->sess[c->ids[i]];
		for (unsigned t = 0; t < s->threads; t++) {
			uint16_t sport = (uint16_t)(s->worker_port + t);
			snprintf(what, sizeof(what), "session %u thread %u", s->id, t);
			int r = isw_steering_add(st, syncagtr.id, s->ip, sport, SA_UDP_PORT,
			                         s->owner[t], what);
			for (unsigned k = 0; k < SA_WORKERS_MAX; k++)
				if (s->w[k].valid)
					isw_steering_add_source(st, r, s->w[k].ip, sport);
		}
	}
}

/* ---- Commands ---- */

static int need_enabled(struct isw_cmd_ctx *c)
{
	if (enabled)
		return 0;
	return isw_cmd_err(c, ENOTSUP, "syncagtr is not enabled (pipeline enable syncagtr)");
}

static int arg_session(struct isw_cmd_ctx *c, const char *s, bool must_exist, uint32_t *id)
{
	if (isw_arg_u32(c, s, "session", 1, SA_SESSIONS_MAX, id) < 0)
		return -EINVAL;
	if (must_exist && !master.sess[*id].valid)
		return isw_cmd_err(c, ENOENT, "no session %u (see 'syncagtr session show')", *id);
	return 0;
}

static const char *ip_str(rte_be32_t ip, char *buf)
{
	return inet_ntop(AF_INET, &ip, buf, INET_ADDRSTRLEN);
}

static int cmd_switch(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint8_t mac[6];
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 0, 2) < 0)
		return -EINVAL;
	if (argc == 1 || (argc == 2 && strcmp(argv[0], "mac") != 0))
		return isw_cmd_err(c, EINVAL, "usage: syncagtr switch [mac MAC]");
	if (argc == 2) {
		if (isw_arg_mac(c, argv[1], "switch mac", mac) < 0)
			return -EINVAL;
		if ((mac[0] & 1) || memcmp(mac, (uint8_t[6]){0}, 6) == 0)
			return isw_cmd_err(c, EINVAL, "the switch MAC must be a unicast address");
		memcpy(master.mac, mac, 6);
		if (publish() < 0)
			return isw_cmd_err(c, ENOMEM, "no memory");
	}
	char buf[32];
	isw_json_str_kv(c->out, "mac", isw_fmt_mac(master.mac, buf));
	return 0;
}
ISW_CMD_REGISTER(sa_switch, "syncagtr switch", "[mac MAC]",
                 "show or set the switch MAC that workers send to (default 00:11:22:33:44:55)",
                 cmd_switch)

/* Threads' slot ranges and their owners: range t to worker t mod workers (steer.h). */
static void steer_layout(struct sa_session *s, unsigned threads, unsigned wport)
{
	s->threads = (uint8_t)threads;
	s->worker_port = (uint16_t)wport;
	s->spt = s->nslots / threads;
	s->spt_shift = rte_is_power_of_2(s->spt) ? (uint8_t)rte_log2_u32(s->spt) : 0xFF;
	for (unsigned t = 0; t < threads; t++)
		s->owner[t] = (uint8_t)(t % (isw_dp.nb_workers ? isw_dp.nb_workers : 1));
}

static int cmd_session_add(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id, n, slots = SA_SLOTS_DEFAULT, threads = 0, wport = SA_WORKER_PORT;
	rte_be32_t ip;
	struct isw_kv kv[] = {{"ip", NULL},
	                      {"workers", NULL},
	                      {"slots", NULL},
	                      {"threads", NULL},
	                      {"worker-port", NULL}};
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 5, 11) < 0 ||
	    arg_session(c, argv[0], false, &id) < 0 ||
	    isw_arg_kv(c, argc - 1, argv + 1, kv, RTE_DIM(kv)) < 0)
		return -EINVAL;
	if (kv[0].val == NULL || kv[1].val == NULL)
		return isw_cmd_err(c, EINVAL, "usage: syncagtr session add %s", c->cmd->usage);
	if (isw_arg_ipv4(c, kv[0].val, "ip", &ip) < 0 ||
	    isw_arg_u32(c, kv[1].val, "workers", 1, SA_WORKERS_MAX, &n) < 0 ||
	    (kv[2].val && isw_arg_u32(c, kv[2].val, "slots", 1, SA_SLOTS, &slots) < 0) ||
	    (kv[3].val && isw_arg_u32(c, kv[3].val, "threads", 1, SA_THREADS_MAX, &threads) < 0) ||
	    (kv[4].val && isw_arg_u32(c, kv[4].val, "worker-port", 1, 65535, &wport) < 0))
		return -EINVAL;
	if (ip == 0 || (rte_be_to_cpu_32(ip) >> 28) >= 14)
		return isw_cmd_err(c, EINVAL, "%s is not a unicast address", kv[0].val);
	if (kv[4].val != NULL && threads == 0)
		return isw_cmd_err(c, EINVAL, "worker-port goes with threads");
	if (threads != 0 && slots % threads != 0)
		return isw_cmd_err(c, EINVAL,
		                   "slots %u must be a multiple of threads %u (each thread owns "
		                   "slots / threads)",
		                   slots, threads);
	if (wport + threads > 65536)
		return isw_cmd_err(c, ERANGE, "worker-port %u + threads %u is beyond port 65535",
		                   wport, threads);
	struct sa_session *s = &master.sess[id];
	if (s->valid) {
		/* The same request again is not an error (workers may register themselves). */
		if (s->ip == ip && s->nworkers == n && s->nslots == slots &&
		    s->threads == threads && (threads == 0 || s->worker_port == wport)) {
			isw_json_bool(c->out, "exists", true);
			return 0;
		}
		return isw_cmd_err(c, EEXIST, "session %u already exists with other settings", id);
	}
	char buf[INET_ADDRSTRLEN];
	for (unsigned o = 1; o <= SA_SESSIONS_MAX; o++)
		if (master.sess[o].valid && master.sess[o].ip == ip)
			return isw_cmd_err(c, EADDRINUSE, "session %u already uses switch IP %s", o,
			                   ip_str(ip, buf));
	uint16_t group = (uint16_t)(SA_MC_BASE + id);
	if (isw_mc_get(group) != NULL)
		return isw_cmd_err(c, EBUSY, "multicast group %u (session %u's) is in use", group,
		                   id);
	char holder[ISW_BUDGET_NAME_MAX];
	region_holder(holder, sizeof(holder), id, 0);
	uint32_t base;
	int rc = isw_budget_take(SA_POOL, holder, slots, &base, c->err, sizeof(c->err));
	if (rc < 0)
		return rc;
	struct sa_session ns = {.valid = true,
	                        .nworkers = (uint8_t)n,
	                        .id = (uint16_t)id,
	                        .group = group,
	                        .ip = ip,
	                        .base = base,
	                        .nslots = slots};
	for (unsigned r = 0; r < SA_WORKERS_MAX; r++)
		ns.w[r].port = SA_PORT_AUTO;
	if (threads != 0)
		steer_layout(&ns, threads, wport);
	if ((rc = group_update(&ns)) < 0 || isw_dp_pause() < 0) {
		isw_mc_destroy(group);
		isw_budget_give(SA_POOL, holder);
		return isw_cmd_err(c, rc < 0 ? -rc : EAGAIN, "could not set up session %u", id);
	}
	region_clear(&ns);
	for (unsigned w = 0; w < ISW_MAX_WORKERS; w++)
		memset(&sa_counters[w][id], 0, sizeof(sa_counters[w][id]));
	isw_dp_resume();
	*s = ns;
	if (publish() < 0) {
		memset(s, 0, sizeof(*s));
		isw_mc_destroy(group);
		isw_budget_give(SA_POOL, holder);
		return isw_cmd_err(c, ENOMEM, "no memory");
	}
	isw_json_u64(c->out, "session", id);
	isw_json_u64(c->out, "first_slot", base);
	isw_json_u64(c->out, "group", group);
	return 0;
}
ISW_CMD_REGISTER(sa_session_add, "syncagtr session add",
                 "ID ip IP workers N [slots S] [threads T [worker-port P]]",
                 "create session ID (1-64) with switch IP, N workers and S slots (default 1024); "
                 "threads: slot range t of T (thread t, UDP source port P+t, P default 4000) "
                 "owned by one lcore, for steering",
                 cmd_session_add)

static int cmd_session_del(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 1, 1) < 0 ||
	    arg_session(c, argv[0], true, &id) < 0)
		return -EINVAL;
	struct sa_session old = master.sess[id];
	memset(&master.sess[id], 0, sizeof(master.sess[id]));
	if (publish() < 0) {
		master.sess[id] = old;
		return isw_cmd_err(c, ENOMEM, "no memory");
	}
	isw_mc_destroy(old.group);
	char holder[ISW_BUDGET_NAME_MAX];
	for (unsigned par = 0; par < 2; par++) { /* both, while a region change drains */
		region_holder(holder, sizeof(holder), id, par);
		isw_budget_give(SA_POOL, holder);
	}
	return 0;
}
ISW_CMD_REGISTER(sa_session_del, "syncagtr session del", "ID",
                 "delete a session, its workers and its slots", cmd_session_del)

/* The session's admitted packets (pkts) summed over the lcores. */
static uint64_t pkts_sum(unsigned id)
{
	uint64_t n = 0;
	for (unsigned w = 0; w < isw_dp.nb_workers && w < ISW_MAX_WORKERS; w++)
		n += sa_counters[w][id].pkts;
	return n;
}

/* Packets that reached the session's slots since its epoch started: its slots are clean (all
 * zero, as a reset leaves them) if and only if this is 0. */
static uint64_t epoch_pkts(const struct sa_session *s)
{
	return pkts_sum(s->id) - s->epoch_base;
}

/*
 * A new epoch first, then the clear: once the snapshot that marks every member stale is
 * published, none of the session's packets reaches its slots (all are sa-epoch drops), so the
 * cleared slots stay clean until a member registers in the new epoch. (Publishing while the
 * workers are paused would wait for them forever: parked, they report no quiescent state.)
 * keep-workers carries the members into the new epoch, for workers registered by hand.
 */
static int cmd_session_reset(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 1, 2) < 0 ||
	    arg_session(c, argv[0], true, &id) < 0)
		return -EINVAL;
	bool keep = argc == 2;
	if (keep && strcmp(argv[1], "keep-workers") != 0)
		return isw_cmd_err(c, EINVAL, "usage: syncagtr session reset %s", c->cmd->usage);
	struct sa_session *s = &master.sess[id];
	struct sa_session old = *s;
	s->epoch++;
	for (unsigned r = 0; keep && r < SA_WORKERS_MAX; r++)
		if (s->w[r].valid)
			s->w[r].epoch = s->epoch;
	/* A region change under way ends with the job: the new region stays (docs/memory.md). */
	s->changing = false;
	s->old.valid = false;
	if (publish() < 0) {
		*s = old;
		return isw_cmd_err(c, ENOMEM, "no memory; nothing reset");
	}
	if (old.changing) {
		char holder[ISW_BUDGET_NAME_MAX];
		region_holder(holder, sizeof(holder), id, (old.gen - 1) & 1u);
		isw_budget_give(SA_POOL, holder);
		s->drained_ms = isw_clock_ms();
		s->changes_ended++;
	}
	if (isw_dp_pause() < 0)
		return isw_cmd_err(c, EAGAIN,
		                   "workers did not pause: epoch %u started, but the slots are not "
		                   "cleared; reset again",
		                   s->epoch);
	region_clear(s);
	s->epoch_base = pkts_sum(id);
	isw_dp_resume();
	isw_json_u64(c->out, "epoch", s->epoch);
	return 0;
}
ISW_CMD_REGISTER(sa_session_reset, "syncagtr session reset", "ID [keep-workers]",
                 "clear the session's slots and start a new job epoch: workers registered "
                 "before are dropped (sa-epoch) until they register again (keep-workers: they "
                 "stay registered, in the new epoch)",
                 cmd_session_reset)

int sa_region_change(uint32_t id, uint32_t slots, uint32_t at, char *err, size_t errlen)
{
	struct sa_session *s = &master.sess[id];
	if (!enabled || id == 0 || id > SA_SESSIONS_MAX || !s->valid) {
		snprintf(err, errlen, "no session %u", id);
		return -ENOENT;
	}
	if (s->threads == 0) {
		snprintf(err, errlen,
		         "session %u was created without threads: its region can change only when "
		         "the switch knows each worker thread's slots (session add ... threads T)",
		         id);
		return -EINVAL;
	}
	if (s->up.on) {
		snprintf(err, errlen,
		         "session %u has an uplink (docs/fabric.md): its region cannot change", id);
		return -EINVAL;
	}
	if (slots == 0 || slots > SA_SLOTS || slots % s->threads != 0) {
		snprintf(err, errlen, "slots %u must be a multiple of threads %u, at most %u",
		         slots, s->threads, SA_SLOTS);
		return -EINVAL;
	}
	if (s->changing) {
		snprintf(err, errlen,
		         "session %u's region is still changing (to generation %u); 'syncagtr "
		         "session show %u' says when it is done",
		         id, s->gen, id);
		return -EBUSY;
	}
	uint32_t now = isw_clock_ms();
	if (s->gen != 0 && now - s->drained_ms < SA_CHANGE_GUARD_MS) {
		snprintf(
		        err, errlen,
		        "session %u's last region change drained %u ms ago: the next may follow it "
		        "by %u ms",
		        id, now - s->drained_ms, SA_CHANGE_GUARD_MS);
		return -EBUSY;
	}
	char holder[ISW_BUDGET_NAME_MAX];
	region_holder(holder, sizeof(holder), id, (s->gen + 1) & 1u);
	uint32_t base = at;
	int rc = at == UINT32_MAX ? isw_budget_take(SA_POOL, holder, slots, &base, err, errlen)
	                          : isw_budget_take_at(SA_POOL, holder, at, slots, err, errlen);
	if (rc < 0)
		return rc;
	if (isw_dp_pause() < 0) {
		isw_budget_give(SA_POOL, holder);
		snprintf(err, errlen, "workers did not pause: nothing changed");
		return -EAGAIN;
	}
	range_clear(base, slots);
	memset(sa_bound[id], 0, sizeof(sa_bound[id]));
	memset(sa_held[id], 0, sizeof(sa_held[id]));
	isw_dp_resume();
	struct sa_session was = *s;
	s->old = (struct sa_region){.valid = true,
	                            .spt_shift = s->spt_shift,
	                            .base = s->base,
	                            .nslots = s->nslots,
	                            .spt = s->spt};
	s->base = base;
	s->nslots = slots;
	s->spt = slots / s->threads;
	s->spt_shift = rte_is_power_of_2(s->spt) ? (uint8_t)rte_log2_u32(s->spt) : 0xFF;
	s->gen++;
	s->changing = true;
	if (publish() < 0) {
		*s = was;
		isw_budget_give(SA_POOL, holder);
		snprintf(err, errlen, "no memory; nothing changed");
		return -ENOMEM;
	}
	return 0;
}

/*
 * A region change (docs/memory.md): the new region is taken from the budget and cleared, the
 * current one kept as the old generation's while it drains, and the session published with
 * both: packets say by bit 14 which one they are for. The data path sets each worker thread's
 * boundary and collects the threads' "held" flags; change_tick() ends the change once every
 * worker thread has said it holds every old result.
 */
static int cmd_session_region(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id, slots, at = UINT32_MAX;
	struct isw_kv kv[] = {{"slots", NULL}, {"base", NULL}};
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 3, 5) < 0 ||
	    arg_session(c, argv[0], true, &id) < 0 ||
	    isw_arg_kv(c, argc - 1, argv + 1, kv, RTE_DIM(kv)) < 0)
		return -EINVAL;
	if (kv[0].val == NULL)
		return isw_cmd_err(c, EINVAL, "usage: syncagtr session region %s", c->cmd->usage);
	if (isw_arg_u32(c, kv[0].val, "slots", 1, SA_SLOTS, &slots) < 0 ||
	    (kv[1].val && isw_arg_u32(c, kv[1].val, "base", 0, SA_SLOTS - 1, &at) < 0))
		return -EINVAL;
	char msg[ISW_CMD_ERR_MAX];
	int rc = sa_region_change(id, slots, at, msg, sizeof(msg));
	if (rc < 0)
		return isw_cmd_err(c, -rc, "%s", msg);
	const struct sa_session *s = &master.sess[id];
	isw_json_u64(c->out, "session", id);
	isw_json_u64(c->out, "gen", s->gen);
	isw_json_u64(c->out, "first_slot", s->base);
	isw_json_u64(c->out, "slots", s->nslots);
	isw_json_u64(c->out, "old_first_slot", s->old.base);
	isw_json_u64(c->out, "old_slots", s->old.nslots);
	return 0;
}
ISW_CMD_REGISTER(sa_session_region, "syncagtr session region", "ID slots S [base B]",
                 "move session ID's slots to a new region of S slots (at slot B, or the first "
                 "free range) under its running job: the workers move at a packet boundary "
                 "the switch sets per thread, the old region is freed once every worker "
                 "thread holds its results (needs threads T; docs/memory.md)",
                 cmd_session_region)

/* The ranks registered in a session. */
static uint32_t live_ranks(const struct sa_session *s)
{
	uint32_t live = 0;
	for (unsigned r = 0; r < SA_WORKERS_MAX; r++)
		if (s->w[r].valid)
			live |= 1u << r;
	return live;
}

/* Forgets that rank said it holds every old result: another process of the rank has not. */
static void held_clear(uint32_t id, uint32_t rank)
{
	for (unsigned t = 0; t < SA_THREADS_MAX; t++)
		__atomic_fetch_and(&sa_held[id][t], ~(1u << rank), __ATOMIC_RELAXED);
}

/* Whether every worker thread of a changing session has said it holds every old result (with
 * no worker registered, nobody holds anything of the old region either). */
static bool change_drained(const struct sa_session *s)
{
	uint32_t live = live_ranks(s);
	for (unsigned t = 0; t < s->threads; t++)
		if ((__atomic_load_n(&sa_held[s->id][t], __ATOMIC_RELAXED) & live) != live)
			return false;
	return true;
}

/* Ends the region changes that drained: the old region dropped and given back. */
static void change_tick(void)
{
	if (!enabled)
		return;
	for (unsigned id = 1; id <= SA_SESSIONS_MAX; id++) {
		struct sa_session *s = &master.sess[id];
		if (!s->valid || !s->changing || !change_drained(s))
			continue;
		struct sa_session was = *s;
		s->changing = false;
		s->old.valid = false;
		s->drained_ms = isw_clock_ms();
		if (live_ranks(s) != 0)
			s->changes_drained++;
		else
			s->changes_ended++;
		if (publish() < 0) {
			*s = was; /* again at the next tick */
			continue;
		}
		char holder[ISW_BUDGET_NAME_MAX];
		region_holder(holder, sizeof(holder), id, (s->gen - 1) & 1u);
		isw_budget_give(SA_POOL, holder);
	}
}
ISW_TICK_REGISTER(sa_change, change_tick)

/* ---- The allocator's kind "syncagtr" (dataplane/alloc.h, docs/memory.md) ---- */

static int alloc_info(uint32_t id, struct isw_alloc_tenant *t, char *err, size_t errlen)
{
	if (!enabled || id == 0 || id > SA_SESSIONS_MAX || !master.sess[id].valid) {
		snprintf(err, errlen, "no syncagtr session %u", id);
		return -ENOENT;
	}
	const struct sa_session *s = &master.sess[id];
	memset(t, 0, sizeof(*t));
	t->units = s->nslots;
	t->base = s->base;
	t->changing = s->changing;
	t->movable = s->threads != 0 && !s->up.on;
	t->granule = s->threads ? s->threads : 1;
	if (s->up.on)
		snprintf(t->why, sizeof(t->why), "fixed: a session with an uplink");
	else if (s->threads == 0)
		snprintf(t->why, sizeof(t->why),
		         "fixed: no threads (SwitchML's client cannot follow a change)");
	uint64_t v = 0;
	for (unsigned w = 0; w < isw_dp.nb_workers && w < ISW_MAX_WORKERS; w++)
		v += sa_counters[w][id].values;
	t->bytes = 4 * v;
	return 0;
}

static int alloc_resize(uint32_t id, uint32_t units, char *err, size_t errlen)
{
	return sa_region_change(id, units, UINT32_MAX, err, errlen);
}

static const struct isw_alloc_kind sa_alloc_kind = {
        .name = "syncagtr",
        .pool_units = SA_SLOTS,
        .info = alloc_info,
        .resize = alloc_resize,
};

RTE_INIT(sa_alloc_register)
{
	isw_alloc_kind_register(&sa_alloc_kind);
}

/* Field by field: a struct compare would see padding. */
static bool uplink_eq(const struct sa_uplink *a, const struct sa_uplink *b)
{
	if (!a->on || !b->on)
		return a->on == b->on;
	return a->port == b->port && a->ip == b->ip && a->parent_ip == b->parent_ip &&
	       memcmp(a->parent_mac, b->parent_mac, 6) == 0;
}

/*
 * A session's uplink (docs/fabric.md): its slots complete with its own workers, then go up as
 * one contribution to the parent's session (parent-ip, reached at parent-mac out of port), from
 * this switch's address ip there; the parent's result comes back to ip and goes to the workers.
 * Set or removed only between jobs: a round sent up and answered under the other setting would
 * be lost to the workers.
 */
static int cmd_session_uplink(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id;
	struct sa_uplink up = {.on = true};
	struct isw_kv kv[] = {
	        {"port", NULL}, {"ip", NULL}, {"parent-ip", NULL}, {"parent-mac", NULL}};
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 2, 9) < 0 ||
	    arg_session(c, argv[0], true, &id) < 0)
		return -EINVAL;
	struct sa_session *s = &master.sess[id];
	if (argc == 2 && strcmp(argv[1], "off") == 0) {
		up.on = false;
	} else {
		if (argc != 9 || isw_arg_kv(c, argc - 1, argv + 1, kv, RTE_DIM(kv)) < 0)
			return isw_cmd_err(c, EINVAL, "usage: syncagtr session uplink %s",
			                   c->cmd->usage);
		if (isw_arg_port(c, kv[0].val, &up.port) < 0 ||
		    isw_arg_ipv4(c, kv[1].val, "ip", &up.ip) < 0 ||
		    isw_arg_ipv4(c, kv[2].val, "parent-ip", &up.parent_ip) < 0 ||
		    isw_arg_mac(c, kv[3].val, "parent-mac", up.parent_mac) < 0)
			return -EINVAL;
		if (up.ip == 0 || (rte_be_to_cpu_32(up.ip) >> 28) >= 14 || up.parent_ip == 0 ||
		    (rte_be_to_cpu_32(up.parent_ip) >> 28) >= 14)
			return isw_cmd_err(c, EINVAL, "ip and parent-ip must be unicast addresses");
		if ((up.parent_mac[0] & 1) || memcmp(up.parent_mac, (uint8_t[6]){0}, 6) == 0)
			return isw_cmd_err(c, EINVAL, "parent-mac must be a unicast address");
		if (memcmp(up.parent_mac, master.mac, 6) == 0)
			return isw_cmd_err(c, EINVAL,
			                   "parent-mac is this switch's own MAC: the parent is "
			                   "another switch");
		char buf[INET_ADDRSTRLEN];
		for (unsigned o = 1; o <= SA_SESSIONS_MAX; o++) {
			const struct sa_session *x = &master.sess[o];
			if (x->valid &&
			    (x->ip == up.ip || (o != id && x->up.on && x->up.ip == up.ip)))
				return isw_cmd_err(c, EADDRINUSE, "session %u already uses %s", o,
				                   ip_str(up.ip, buf));
			if (x->valid && x->ip == up.parent_ip)
				return isw_cmd_err(
				        c, EINVAL,
				        "parent-ip %s is session %u's here: the parent is "
				        "another switch",
				        ip_str(up.parent_ip, buf), o);
		}
		for (unsigned r = 0; r < SA_WORKERS_MAX; r++)
			if (s->w[r].valid && s->w[r].ip == up.parent_ip &&
			    memcmp(s->w[r].mac, up.parent_mac, 6) == 0)
				return isw_cmd_err(c, EADDRINUSE,
				                   "parent %s is rank %u of session %u: a worker",
				                   kv[2].val, r, id);
	}
	if (epoch_pkts(s) != 0 && !uplink_eq(&up, &s->up))
		return isw_cmd_err(
		        c, EBUSY,
		        "session %u has had packets in this epoch: 'syncagtr session reset "
		        "%u' first (a round in flight would be lost)",
		        id, id);
	struct sa_uplink old = s->up;
	s->up = up;
	if (publish() < 0) {
		s->up = old;
		return isw_cmd_err(c, ENOMEM, "no memory");
	}
	isw_json_bool(c->out, "uplink", up.on);
	return 0;
}
ISW_CMD_REGISTER(sa_session_uplink, "syncagtr session uplink",
                 "ID port PORT ip IP parent-ip IP parent-mac MAC | ID off",
                 "send the session's completed slots up to a parent switch's session as one "
                 "worker (from ip, to parent-ip at parent-mac out of PORT) and give its results "
                 "to the workers (docs/fabric.md); off: aggregate here alone",
                 cmd_session_uplink)

static void counters_json(struct isw_json *j, unsigned id)
{
	struct sa_counters t = {0};
	for (unsigned w = 0; w < isw_dp.nb_workers && w < ISW_MAX_WORKERS; w++) {
		const struct sa_counters *x = &sa_counters[w][id];
		t.pkts += x->pkts;
		t.contribs += x->contribs;
		t.completions += x->completions;
		t.retx += x->retx;
		t.retx_results += x->retx_results;
		t.retx_pending += x->retx_pending;
		t.bad_region += x->bad_region;
		t.bad_size += x->bad_size;
		t.malformed += x->malformed;
		t.bad_epoch += x->bad_epoch;
		t.up_sent += x->up_sent;
		t.up_resent += x->up_resent;
		t.up_results += x->up_results;
		t.up_stale += x->up_stale;
		t.up_dup += x->up_dup;
		t.bad_gen += x->bad_gen;
		t.notes += x->notes;
		t.old_gen += x->old_gen;
	}
	isw_json_obj_open(j, NULL);
	isw_json_u64(j, "session", id);
	isw_json_u64(j, "pkts", t.pkts);
	isw_json_u64(j, "contributions", t.contribs);
	isw_json_u64(j, "completions", t.completions);
	isw_json_u64(j, "retransmits", t.retx);
	isw_json_u64(j, "retransmit_results", t.retx_results);
	isw_json_u64(j, "drop_retx_pending", t.retx_pending);
	isw_json_u64(j, "drop_region", t.bad_region);
	isw_json_u64(j, "drop_size", t.bad_size);
	isw_json_u64(j, "drop_malformed", t.malformed);
	isw_json_u64(j, "drop_epoch", t.bad_epoch);
	isw_json_u64(j, "up_sent", t.up_sent);
	isw_json_u64(j, "up_resent", t.up_resent);
	isw_json_u64(j, "up_results", t.up_results);
	isw_json_u64(j, "drop_up_stale", t.up_stale);
	isw_json_u64(j, "drop_up_dup", t.up_dup);
	isw_json_u64(j, "drop_gen", t.bad_gen);
	isw_json_u64(j, "region_notes", t.notes);
	isw_json_u64(j, "old_region_pkts", t.old_gen);
	isw_json_obj_close(j);
}

/* Members registered in the session's current epoch (since its last reset); with live_ms, only
 * those registered in the last live_ms (0: any). */
static unsigned current_members(const struct sa_session *s, uint32_t live_ms)
{
	uint32_t now = isw_clock_ms();
	unsigned n = 0;
	for (unsigned r = 0; r < SA_WORKERS_MAX; r++)
		n += s->w[r].valid && s->w[r].epoch == s->epoch &&
		     (live_ms == 0 || now - s->w[r].seen <= live_ms);
	return n;
}

static unsigned members_of(const struct sa_session *s)
{
	unsigned n = 0;
	for (unsigned r = 0; r < SA_WORKERS_MAX; r++)
		n += s->w[r].valid;
	return n;
}

/*
 * The session's region generation and, while a change drains, the old region and each worker
 * thread's boundary (job number and tsi, null until set) and the ranks that hold every old
 * result (docs/memory.md).
 */
static void region_json(struct isw_json *j, const struct sa_session *s)
{
	isw_json_u64(j, "gen", s->gen);
	isw_json_bool(j, "changing", s->changing);
	isw_json_u64(j, "changes_drained", s->changes_drained);
	isw_json_u64(j, "changes_ended", s->changes_ended);
	if (!s->changing) {
		isw_json_null(j, "old_region");
		return;
	}
	isw_json_obj_open(j, "old_region");
	isw_json_u64(j, "first_slot", s->old.base);
	isw_json_u64(j, "slots", s->old.nslots);
	isw_json_arr_open(j, "threads");
	for (unsigned t = 0; t < s->threads; t++) {
		uint64_t b = __atomic_load_n(&sa_bound[s->id][t], __ATOMIC_RELAXED);
		isw_json_obj_open(j, NULL);
		if (b & SA_BOUND_SET) {
			isw_json_u64(j, "boundary_job", (uint8_t)(b >> 32));
			isw_json_u64(j, "boundary_tsi", (uint32_t)b);
		} else {
			isw_json_null(j, "boundary_job");
			isw_json_null(j, "boundary_tsi");
		}
		isw_json_u64(j, "held", __atomic_load_n(&sa_held[s->id][t], __ATOMIC_RELAXED));
		isw_json_obj_close(j);
	}
	isw_json_arr_close(j);
	isw_json_obj_close(j);
}

static void session_json(struct isw_json *j, const struct sa_session *s, uint32_t live_ms)
{
	char buf[INET_ADDRSTRLEN];
	isw_json_obj_open(j, NULL);
	isw_json_u64(j, "session", s->id);
	isw_json_str_kv(j, "ip", ip_str(s->ip, buf));
	isw_json_u64(j, "workers", s->nworkers);
	isw_json_u64(j, "registered", members_of(s));
	isw_json_u64(j, "epoch", s->epoch);
	isw_json_u64(j, "current", current_members(s, 0));
	isw_json_u64(j, "live", current_members(s, live_ms));
	isw_json_u64(j, "epoch_pkts", epoch_pkts(s));
	isw_json_u64(j, "slots", s->nslots);
	isw_json_u64(j, "first_slot", s->base);
	isw_json_u64(j, "threads", s->threads);
	if (s->threads != 0)
		isw_json_u64(j, "worker_port", s->worker_port);
	else
		isw_json_null(j, "worker_port");
	isw_json_u64(j, "group", s->group);
	region_json(j, s);
	if (s->up.on) {
		char mbuf[32];
		isw_json_obj_open(j, "uplink");
		isw_json_u64(j, "port", s->up.port);
		isw_json_str_kv(j, "ip", ip_str(s->up.ip, buf));
		isw_json_str_kv(j, "parent_ip", ip_str(s->up.parent_ip, buf));
		isw_json_str_kv(j, "parent_mac", isw_fmt_mac(s->up.parent_mac, mbuf));
		isw_json_obj_close(j);
	} else {
		isw_json_null(j, "uplink");
	}
	isw_json_obj_close(j);
}

static const char *const port_from_names[] = {
        [SA_PORT_GIVEN] = "given",
        [SA_PORT_L2] = "l2",
        [SA_PORT_LEARN] = "auto",
};

static void members_json(struct isw_json *j, const struct sa_session *s)
{
	char buf[INET_ADDRSTRLEN], mbuf[32];
	for (unsigned r = 0; r < SA_WORKERS_MAX; r++) {
		const struct sa_member *m = &s->w[r];
		if (!m->valid)
			continue;
		isw_json_obj_open(j, NULL);
		isw_json_u64(j, "session", s->id);
		isw_json_u64(j, "rank", r);
		isw_json_str_kv(j, "mac", isw_fmt_mac(m->mac, mbuf));
		isw_json_str_kv(j, "ip", ip_str(m->ip, buf));
		if (m->port == SA_PORT_AUTO)
			isw_json_str_kv(j, "port", "not seen yet");
		else
			isw_json_u64(j, "port", m->port);
		isw_json_bool(j, "auto", m->auto_port);
		isw_json_str_kv(j, "port_from", port_from_names[m->from]);
		isw_json_u64(j, "epoch", m->epoch);
		isw_json_u64(j, "registered_ms_ago", isw_clock_ms() - m->seen);
		isw_json_obj_close(j);
	}
}

/* Sessions, their members and their counters: three tables. */
static int cmd_session_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id = 0, live_ms = SA_LIVE_MS;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 0, 3) < 0)
		return -EINVAL;
	if (argc >= 1 && argc != 2 && arg_session(c, argv[0], true, &id) < 0)
		return -EINVAL;
	if (argc >= 2) {
		struct isw_kv kv[] = {{"live-ms", NULL}};
		if (isw_arg_kv(c, argc - (argc == 3), argv + (argc == 3), kv, RTE_DIM(kv)) < 0 ||
		    isw_arg_u32(c, kv[0].val, "live-ms", 1, SA_LIVE_MS_MAX, &live_ms) < 0)
			return -EINVAL;
	}
	learn_tick();
	char buf[32];
	isw_json_str_kv(c->out, "switch_mac", isw_fmt_mac(master.mac, buf));
	isw_json_arr_open(c->out, "sessions");
	for (unsigned i = 1; i <= SA_SESSIONS_MAX; i++)
		if (master.sess[i].valid && (id == 0 || id == i))
			session_json(c->out, &master.sess[i], live_ms);
	isw_json_arr_close(c->out);
	isw_json_arr_open(c->out, "members");
	for (unsigned i = 1; i <= SA_SESSIONS_MAX; i++)
		if (master.sess[i].valid && (id == 0 || id == i))
			members_json(c->out, &master.sess[i]);
	isw_json_arr_close(c->out);
	isw_json_arr_open(c->out, "counters");
	for (unsigned i = 1; i <= SA_SESSIONS_MAX; i++)
		if (master.sess[i].valid && (id == 0 || id == i))
			counters_json(c->out, i);
	isw_json_arr_close(c->out);
	if (id == 0) {
		struct sa_global_counters g = {0};
		for (unsigned w = 0; w < isw_dp.nb_workers && w < ISW_MAX_WORKERS; w++) {
			g.arp_replies += sa_gcounters[w].arp_replies;
			g.icmp_replies += sa_gcounters[w].icmp_replies;
			g.unknown += sa_gcounters[w].unknown;
		}
		isw_json_u64(c->out, "arp_replies", g.arp_replies);
		isw_json_u64(c->out, "icmp_replies", g.icmp_replies);
		isw_json_u64(c->out, "unknown_workers", g.unknown);
	}
	return 0;
}
ISW_CMD_REGISTER(sa_session_show, "syncagtr session show", "[ID] [live-ms MS]",
                 "show sessions: switch IP, slot region, workers and their counters; live "
                 "counts the current epoch's members registered in the last MS (default 1000)",
                 cmd_session_show)

/*
 * The port of a worker being registered: a number, "l2" (the static l2 entry of its MAC, so
 * that an operator who wrote the cabling down once need not repeat it per session) or "auto".
 */
static int arg_worker_port(struct isw_cmd_ctx *c, const char *s, const uint8_t mac[6],
                           uint16_t *port, uint8_t *from)
{
	char buf[32];
	*port = SA_PORT_AUTO;
	if (strcmp(s, "auto") == 0) {
		*from = SA_PORT_LEARN;
		return 0;
	}
	if (strcmp(s, "l2") == 0) {
		int p = isw_l2_port_of(mac);
		if (p < 0)
			return isw_cmd_err(
			        c, EHOSTUNREACH,
			        "port l2: %s has no l2 entry ('l2 add %s PORT' first, or "
			        "give the port)",
			        isw_fmt_mac(mac, buf), buf);
		*port = (uint16_t)p;
		*from = SA_PORT_L2;
		return 0;
	}
	*from = SA_PORT_GIVEN;
	return isw_arg_port(c, s, port);
}

static int cmd_worker_add(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id, rank;
	uint8_t mac[6];
	rte_be32_t ip;
	uint16_t port = SA_PORT_AUTO;
	struct isw_kv kv[] = {{"mac", NULL}, {"ip", NULL}, {"port", NULL}};
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 8, 8) < 0 ||
	    arg_session(c, argv[0], true, &id) < 0)
		return -EINVAL;
	struct sa_session *s = &master.sess[id];
	if (isw_arg_u32(c, argv[1], "rank", 0, s->nworkers - 1u, &rank) < 0 ||
	    isw_arg_kv(c, argc - 2, argv + 2, kv, RTE_DIM(kv)) < 0 ||
	    isw_arg_mac(c, kv[0].val, "mac", mac) < 0 || isw_arg_ipv4(c, kv[1].val, "ip", &ip) < 0)
		return -EINVAL;
	if ((mac[0] & 1) || memcmp(mac, (uint8_t[6]){0}, 6) == 0)
		return isw_cmd_err(c, EINVAL, "a worker MAC must be a unicast address");
	uint8_t from;
	if (arg_worker_port(c, kv[2].val, mac, &port, &from) < 0)
		return -EINVAL;
	for (unsigned r = 0; r < SA_WORKERS_MAX; r++) {
		const struct sa_member *m = &s->w[r];
		if (!m->valid || r == rank || memcmp(m->mac, mac, 6) != 0 || m->ip != ip)
			continue;
		return isw_cmd_err(c, EADDRINUSE, "%s %s is already rank %u of session %u",
		                   kv[0].val, kv[1].val, r, id);
	}
	if (s->up.on && s->up.parent_ip == ip && memcmp(s->up.parent_mac, mac, 6) == 0)
		return isw_cmd_err(c, EADDRINUSE,
		                   "%s %s is session %u's parent switch (its uplink)", kv[0].val,
		                   kv[1].val, id);
	struct sa_member *m = &s->w[rank];
	if (m->valid) {
		/* A worker registering itself again with the same addresses is not an error. */
		if (memcmp(m->mac, mac, 6) == 0 && m->ip == ip && m->from == from &&
		    (from == SA_PORT_LEARN || m->port == port)) {
			/* registered again: in this epoch (admitted from now on), now */
			uint32_t was = m->epoch;
			m->epoch = s->epoch;
			if (was != s->epoch && publish() < 0) {
				m->epoch = was;
				return isw_cmd_err(c, ENOMEM, "no memory");
			}
			m->seen = isw_clock_ms();
			isw_json_bool(c->out, "exists", true);
			return 0;
		}
		return isw_cmd_err(c, EEXIST, "rank %u of session %u exists (syncagtr worker del)",
		                   rank, id);
	}
	struct sa_member old = *m;
	*m = (struct sa_member){.port = port,
	                        .ip = ip,
	                        .valid = true,
	                        .auto_port = from == SA_PORT_LEARN,
	                        .from = from,
	                        .epoch = s->epoch,
	                        .seen = isw_clock_ms()};
	memcpy(m->mac, mac, 6);
	int rc = group_update(s);
	if (rc < 0 || publish() < 0) {
		*m = old;
		group_update(s);
		return isw_cmd_err(c, rc == -ENODEV ? ENODEV : ENOMEM,
		                   rc == -ENODEV ? "port %u does not exist" : "no memory", port);
	}
	held_clear(id, rank); /* a new member holds nothing of an old region */
	return 0;
}
ISW_CMD_REGISTER(sa_worker_add, "syncagtr worker add", "ID RANK mac MAC ip IP port PORT|l2|auto",
                 "register worker RANK of session ID; port l2 takes its MAC's l2 entry, auto "
                 "learns it from its packets",
                 cmd_worker_add)

static int cmd_worker_del(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id, rank;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 2, 2) < 0 ||
	    arg_session(c, argv[0], true, &id) < 0 ||
	    isw_arg_u32(c, argv[1], "rank", 0, SA_WORKERS_MAX - 1, &rank) < 0)
		return -EINVAL;
	struct sa_session *s = &master.sess[id];
	if (!s->w[rank].valid)
		return isw_cmd_err(c, ENOENT, "session %u has no rank %u", id, rank);
	struct sa_member old = s->w[rank];
	memset(&s->w[rank], 0, sizeof(s->w[rank]));
	s->w[rank].port = SA_PORT_AUTO;
	if (publish() < 0) {
		s->w[rank] = old;
		return isw_cmd_err(c, ENOMEM, "no memory");
	}
	/* No worker admits the rank's packets any more (publish() waited for them), so nobody
	 * writes its learn cell: clear it, or a later "port auto" worker of this rank would
	 * inherit the port. */
	isw_reg_set(sa_regs[SA_REG_LEARN], (id - 1) * SA_WORKERS_MAX + rank, 0, 0);
	held_clear(id, rank);
	group_update(s);
	return 0;
}
ISW_CMD_REGISTER(sa_worker_del, "syncagtr worker del", "ID RANK", "remove a worker of a session",
                 cmd_worker_del)

static int cmd_slot_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id, slot, set = 0, elems = SA_CHUNK;
	struct isw_kv kv[] = {{"set", NULL}, {"elems", NULL}};
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 2, 6) < 0 ||
	    arg_session(c, argv[0], true, &id) < 0)
		return -EINVAL;
	const struct sa_session *s = &master.sess[id];
	if (isw_arg_u32(c, argv[1], "slot", 0, s->nslots - 1, &slot) < 0 ||
	    isw_arg_kv(c, argc - 2, argv + 2, kv, RTE_DIM(kv)) < 0 ||
	    (kv[0].val && isw_arg_u32(c, kv[0].val, "set", 0, 1, &set) < 0) ||
	    (kv[1].val && isw_arg_u32(c, kv[1].val, "elems", SA_CHUNK, SA_ELEMS_MAX, &elems) < 0))
		return -EINVAL;
	if (elems != 64 && elems != 256)
		return isw_cmd_err(c, EINVAL, "elems is 64 or 256");
	uint32_t g = s->base + slot, cidx = sa_cidx(g, set);
	int32_t vals[SA_ELEMS_MAX];
	if (isw_dp_pause() < 0)
		return isw_cmd_err(c, EAGAIN, "workers did not pause; try again");
	uint32_t bitmap = (uint32_t)isw_reg_get(sa_regs[SA_REG_BITMAP], g, set);
	uint32_t other = (uint32_t)isw_reg_get(sa_regs[SA_REG_BITMAP], g, !set);
	uint32_t count = (uint32_t)isw_reg_get(sa_regs[SA_REG_COUNT], cidx, 0);
	int32_t e0 = (int32_t)isw_reg_get(sa_regs[SA_REG_EXP], cidx, 0);
	int32_t e1 = (int32_t)isw_reg_get(sa_regs[SA_REG_EXP], cidx, 1);
	for (uint32_t i = 0; i < elems; i++)
		vals[i] = (int32_t)isw_reg_get(sa_regs[SA_REG_VALUES], sa_vidx(cidx, i / SA_CHUNK),
		                               i % SA_CHUNK);
	isw_dp_resume();
	isw_json_u64(c->out, "session", id);
	isw_json_u64(c->out, "slot", slot);
	isw_json_u64(c->out, "set", set);
	isw_json_u64(c->out, "switch_slot", g);
	isw_json_strf(c->out, "bitmap", "0x%08x", bitmap);
	isw_json_strf(c->out, "other_set_bitmap", "0x%08x", other);
	isw_json_u64(c->out, "missing", count);
	isw_json_bool(c->out, "complete", bitmap != 0 && count == 0);
	isw_json_i64(c->out, "e0", (int8_t)e0);
	isw_json_i64(c->out, "e1", (int8_t)e1);
	isw_json_arr_open(c->out, "values");
	for (uint32_t i = 0; i < elems; i++)
		isw_json_i64(c->out, NULL, vals[i]);
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(sa_slot_show, "syncagtr slot show", "ID SLOT [set 0|1] [elems 64|256]",
                 "show one slot of a session: bitmap, missing workers, exponents, values",
                 cmd_slot_show)
