/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ATP control side: the pipeline's registration and ASIC declaration, the apps (appID, worker
 * ports, PS port per PSIndex), the shared aggregator pool, the snapshots published to the data
 * path, and the `atp ...` commands (docs/atp.md, docs/ctl.md).
 *
 * Control thread only. Every command checks all its arguments before it changes anything.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atp.h"
#include "alloc.h"
#include "budget.h"
#include "cmd.h"
#include "dp.h"
#include "pipeline.h"
#include "shaper.h"

#define ATP_POOL_NAME "atp.aggregators"
/* Switch memory behind one aggregator: owner (a pair: holder and claim time), bitmap, count, ECN,
 * tag and 62 values, as the register arrays declare them. */
#define ATP_AGTR_BYTES (2u * 4u + 4u * 4u + 4u * ATP_VALUES)

struct atp_conf *atp_conf_cur;
struct isw_reg *atp_regs[ATP_REG_NB];
struct atp_counters atp_counters[ISW_MAX_WORKERS][ATP_APPS_MAX + 1];
struct atp_job_name atp_jobs[ATP_APPS_MAX + 1];
uint32_t atp_moved[ATP_APPS_MAX + 1];

static struct atp_conf *master; /* what the next snapshot is copied from */

static int publish(void)
{
	struct atp_conf *c = malloc(sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	memcpy(c, master, sizeof(*c));
	isw_rcu_publish((void **)&atp_conf_cur, c, free);
	return 0;
}

/* The app's PRE group: each distinct worker port once, in port order. */
static int group_update(const struct atp_app *a)
{
	struct isw_mc_member mb[ISW_MAX_PORTS];
	uint16_t n = 0;
	for (uint16_t p = 0; p < ISW_MAX_PORTS; p++)
		if ((a->worker_ports >> p) & 1)
			mb[n++] = (struct isw_mc_member){.port = p, .rid = p};
	return isw_mc_set(a->group, mb, n);
}

static void pool_clear(void)
{
	for (unsigned i = 0; i < ATP_REG_NB; i++)
		isw_reg_clear(atp_regs[i]);
}

/* The shared range [0, n): apps without a region of their own do not partition it, they share
 * it first come first served, so the budget shows one holder for all of them. The apps' own
 * regions (atp app region) are taken from the rest of the pool. */
static int pool_take(uint32_t n, char *err, size_t errlen)
{
	isw_budget_give(ATP_POOL_NAME, "atp apps (shared)");
	return isw_budget_take_at(ATP_POOL_NAME, "atp apps (shared)", 0, n, err, errlen);
}

static int atp_enable(struct isw_reg **regs, char *err, size_t errlen)
{
	master = calloc(1, sizeof(*master));
	if (master == NULL) {
		snprintf(err, errlen, "no memory for the atp configuration");
		return -ENOMEM;
	}
	int rc = isw_budget_pool_add(ATP_POOL_NAME, ATP_POOL_MAX, ATP_AGTR_BYTES, "aggregator");
	if (rc < 0 || (rc = pool_take(ATP_POOL_DEFAULT, err, errlen)) < 0) {
		if (rc == -EEXIST || rc == -ENOSPC)
			snprintf(err, errlen, "cannot register memory pool %s", ATP_POOL_NAME);
		isw_budget_pool_del(ATP_POOL_NAME);
		free(master);
		master = NULL;
		return rc;
	}
	for (unsigned i = 0; i < ATP_REG_NB; i++)
		atp_regs[i] = regs[i];
	master->pool = ATP_POOL_DEFAULT;
	master->lease_ms = ATP_LEASE_DEFAULT_MS;
	if ((rc = publish()) < 0) {
		isw_budget_pool_del(ATP_POOL_NAME);
		free(master);
		master = NULL;
		snprintf(err, errlen, "no memory for the atp configuration");
	}
	return rc;
}

static void atp_disable(void)
{
	for (unsigned i = 1; i <= ATP_APPS_MAX; i++)
		if (master->apps[i].valid)
			isw_mc_destroy(master->apps[i].group);
	isw_rcu_publish((void **)&atp_conf_cur, NULL, free);
	isw_budget_pool_del(ATP_POOL_NAME);
	free(master);
	master = NULL;
	memset(atp_regs, 0, sizeof(atp_regs));
}

/* Egress congestion mark of an ATP frame (docs/atp.md, "ECN"): IPv4 ECN = 11 in the template
 * and the ECN flag. */
static void atp_ecn_mark(uint8_t *frame, uint32_t len)
{
	if (len < ATP_OFF_HDR + 6)
		return;
	isw_ipv4_ce(frame + 14);
	frame[ATP_OFF_HDR + 5] |= ATP_F_ECN;
}

RTE_INIT(atp_ecn_init)
{
	isw_ecn_register(ATP_ETHERTYPE, atp_ecn_mark);
}

static const struct isw_reg_decl atp_reg_decls[ATP_REG_NB] = {
        [ATP_REG_OWNER] = {"owner", 1, ISW_REG_PAIR, ATP_POOL_MAX},
        [ATP_REG_BITMAP] = {"bitmap", 2, ISW_REG_U32, ATP_POOL_MAX},
        [ATP_REG_COUNT] = {"count", 3, ISW_REG_U32, ATP_POOL_MAX},
        [ATP_REG_ECN] = {"ecn", 3, ISW_REG_U32, ATP_POOL_MAX},
        /* Compared after the owner's claim (stage 1) and before the bitmap: the model does
         * not check the order within stage 2; a Tofino would fold bitmap and count into one
         * pair to keep the 20 stages (docs/atp.md, The tensor check). */
        [ATP_REG_TAG] = {"tag", 2, ISW_REG_U32, ATP_POOL_MAX},
        [ATP_REG_VALUES] = {"values", 4, ISW_REG_VEC, ATP_POOL_MAX, ATP_VALUES, 4},
};

static const struct isw_table_decl atp_tables[] = {
        /* appID -> app (worker ports, PS ports, group) */
        {"apps", 0, ATP_APPS_MAX, 16},
};

static const struct isw_asic_decl atp_asic = {
        .pipeline = "atp",
        .regs = atp_reg_decls,
        .nb_regs = ATP_REG_NB,
        .tables = atp_tables,
        .nb_tables = RTE_DIM(atp_tables),
};

/* ATP's frames are raw Ethernet of their own EtherType (workers' and the PS's alike). */
static void atp_claims(struct isw_claims *cl)
{
	isw_claims_ethertype(cl, ATP_ETHERTYPE);
}

static struct isw_pipeline atp = {
        .name = "atp",
        .help = "ATP aggregation: shared aggregator pool, collisions and resends to the PS",
        .order = 60,
        .asic = &atp_asic,
        .enable = atp_enable,
        .disable = atp_disable,
        .process = atp_process,
        .process_strict = atp_process_strict,
        .process_burst = atp_process_burst,
        .claims = atp_claims,
};
ISW_PIPELINE_REGISTER(atp)

/* ---- Commands ---- */

static int need_enabled(struct isw_cmd_ctx *c)
{
	if (master != NULL)
		return 0;
	return isw_cmd_err(c, ENOTSUP, "atp is not enabled (pipeline enable atp)");
}

/* Per app slot, control plane only: the jobs 'atp app reset ... job J' named (the data path
 * counts those its ANNOUNCEs named). */
static uint64_t ctl_jobs[ATP_APPS_MAX + 1];

/* A change lets the old region take claims until every worker claimed in the new one, or for
 * this long (workers that do not follow: their frames then go to the PS). */
#define ATP_CHANGE_MAX_MS 2000u

/* Control thread only, per app slot: when its change was asked for, and the changes ended. */
static struct {
	uint32_t asked_ms;
	uint64_t changes, drained;
} regions[ATP_APPS_MAX + 1];

/*
 * Names job as app slot's current job (docs/atp.md, Job lifetime): a new generation if the job
 * changes, so every lcore adopts it at its next frame of the app. The data path may name one at
 * the same time (an ANNOUNCE): both go through a compare-and-swap. Returns true if it changed.
 */
static bool job_name(unsigned slot, uint32_t job, bool fresh)
{
	struct atp_job_name *jn = &atp_jobs[slot];
	uint64_t old = __atomic_load_n(&jn->named, __ATOMIC_ACQUIRE);
	while (fresh || (uint32_t)old != job) {
		uint64_t named = ((old >> 32) + 1) << 32 | job;
		if (__atomic_compare_exchange_n(&jn->named, &old, named, false, __ATOMIC_RELEASE,
		                                __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&jn->at_ms, isw_clock_ms(), __ATOMIC_RELAXED);
			return true;
		}
	}
	return false;
}

static int arg_app(struct isw_cmd_ctx *c, const char *s, bool must_exist, uint32_t *id)
{
	if (isw_arg_u32(c, s, "app", 1, UINT16_MAX, id) < 0)
		return -EINVAL;
	if (must_exist && master->index[*id] == 0)
		return isw_cmd_err(c, ENOENT, "no app %u (see 'atp app show')", *id);
	return 0;
}

static int cmd_app_add(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id, n;
	struct isw_kv kv[] = {{"workers", NULL}, {"ports", NULL}, {"ps", NULL},
	                      {"ps1", NULL},     {"ps2", NULL},   {"ps3", NULL}};
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 7, 13) < 0 ||
	    arg_app(c, argv[0], false, &id) < 0 ||
	    isw_arg_kv(c, argc - 1, argv + 1, kv, RTE_DIM(kv)) < 0)
		return -EINVAL;
	if (kv[0].val == NULL || kv[1].val == NULL || kv[2].val == NULL)
		return isw_cmd_err(c, EINVAL, "usage: atp app add %s", c->cmd->usage);
	struct atp_app a = {.valid = true, .id = (uint16_t)id};
	if (isw_arg_u32(c, kv[0].val, "workers", 1, ATP_WORKERS_MAX, &n) < 0 ||
	    isw_arg_port_list(c, kv[1].val, "ports", &a.worker_ports) < 0)
		return -EINVAL;
	a.nworkers = (uint8_t)n;
	for (unsigned i = 0; i < ATP_PS_MAX; i++) {
		uint16_t port;
		a.ps[i] = ATP_NO_PORT;
		if (kv[2 + i].val == NULL)
			continue;
		if (isw_arg_port(c, kv[2 + i].val, &port) < 0)
			return -EINVAL;
		a.ps[i] = (int16_t)port;
	}
	if (master->index[id] != 0)
		return isw_cmd_err(c, EEXIST, "app %u exists (atp app del %u first)", id, id);
	unsigned slot = 1;
	while (slot <= ATP_APPS_MAX && master->apps[slot].valid)
		slot++;
	if (slot > ATP_APPS_MAX)
		return isw_cmd_err(c, ENOSPC, "%d apps are registered already", ATP_APPS_MAX);
	a.group = (uint16_t)(ATP_MC_BASE + slot);
	if (isw_mc_get(a.group) != NULL)
		return isw_cmd_err(c, EBUSY, "multicast group %u is in use", a.group);
	int rc = group_update(&a);
	if (rc < 0)
		return isw_cmd_err(c, -rc, "could not create multicast group %u", a.group);
	for (unsigned w = 0; w < ISW_MAX_WORKERS; w++)
		memset(&atp_counters[w][slot], 0, sizeof(atp_counters[w][slot]));
	/* Job 0 (ATP's own clients' keys), in a new generation: nothing of an earlier app in
	 * this slot is taken for this one's. */
	job_name(slot, 0, true);
	ctl_jobs[slot] = 0;
	memset(&regions[slot], 0, sizeof(regions[slot]));
	master->apps[slot] = a;
	master->index[id] = (uint8_t)slot;
	if (publish() < 0) {
		memset(&master->apps[slot], 0, sizeof(master->apps[slot]));
		master->index[id] = 0;
		isw_mc_destroy(a.group);
		return isw_cmd_err(c, ENOMEM, "no memory");
	}
	isw_json_u64(c->out, "app", id);
	isw_json_u64(c->out, "group", a.group);
	return 0;
}
ISW_CMD_REGISTER(atp_app_add, "atp app add",
                 "APP workers N ports P[,P...] ps PORT [ps1 PORT] [ps2 PORT] [ps3 PORT]",
                 "register app APP: N workers behind PORTS, parameter server(s) per PSIndex",
                 cmd_app_add)

/* Frees the aggregators app id holds in [from, to) (workers paused); returns how many. */
static uint32_t range_release(uint32_t id, uint32_t from, uint32_t to)
{
	uint32_t n = 0;
	for (uint32_t i = from; i < to && i < ATP_POOL_MAX; i++) {
		if (isw_reg_get(atp_regs[ATP_REG_OWNER], i, 0) >> 16 != id)
			continue;
		for (unsigned r = 0; r < ATP_REG_NB; r++)
			isw_reg_clear_range(atp_regs[r], i, 1);
		n++;
	}
	return n;
}

/* Frees the aggregators app id holds, in the shared range and its own regions (workers
 * paused); returns how many. */
static uint32_t app_release(uint32_t id)
{
	const struct atp_app *a = &master->apps[master->index[id]];
	uint32_t n = range_release(id, 0, master->pool);
	if (a->gen != 0)
		n += range_release(id, a->rbase, a->rbase + a->rsize);
	if (a->osize != 0 && a->gen > 1)
		n += range_release(id, a->obase, a->obase + a->osize);
	return n;
}

/* The budget's name for app id's region of generation parity par. */
static void region_holder(char *buf, size_t len, unsigned id, unsigned par)
{
	if (par & 1u)
		snprintf(buf, len, "atp app %u (region 1)", id);
	else
		snprintf(buf, len, "atp app %u", id);
}

/* Gives back the regions app a holds (it is deleted). */
static void regions_give(const struct atp_app *a)
{
	char holder[ISW_BUDGET_NAME_MAX];
	if (a->gen == 0)
		return;
	region_holder(holder, sizeof(holder), a->id, a->gen);
	isw_budget_give(ATP_POOL_NAME, holder);
	if (a->osize != 0 && a->gen > 1) {
		region_holder(holder, sizeof(holder), a->id, a->gen - 1u);
		isw_budget_give(ATP_POOL_NAME, holder);
	}
}

/*
 * Unregisters the app first (published: from then on its frames are atp-app drops and none can
 * claim or free an aggregator), then, with the workers paused, frees what it still holds. The
 * order matters: a paused worker reports no quiescent state, so publishing while paused would
 * never return. If the workers do not pause, the app is registered again and the command fails.
 */
static int cmd_app_del(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 1, 1) < 0 ||
	    arg_app(c, argv[0], true, &id) < 0)
		return -EINVAL;
	unsigned slot = master->index[id];
	struct atp_app old = master->apps[slot];
	int rc;
	memset(&master->apps[slot], 0, sizeof(master->apps[slot]));
	master->index[id] = 0;
	if (publish() < 0) {
		rc = isw_cmd_err(c, ENOMEM, "no memory");
		goto restore;
	}
	if (isw_dp_pause() < 0) {
		rc = isw_cmd_err(c, EAGAIN, "workers did not pause; app %u kept", id);
		goto restore;
	}
	master->apps[slot] = old; /* for app_release's regions */
	master->index[id] = (uint8_t)slot;
	uint32_t freed = app_release(id);
	memset(&master->apps[slot], 0, sizeof(master->apps[slot]));
	master->index[id] = 0;
	isw_dp_resume();
	regions_give(&old);
	isw_mc_destroy(old.group);
	isw_json_u64(c->out, "app", id);
	isw_json_u64(c->out, "aggregators_freed", freed);
	return 0;

restore:
	master->apps[slot] = old;
	master->index[id] = (uint8_t)slot;
	if (rc != -EAGAIN || publish() == 0)
		return rc; /* the workers see the app as before */
	/* No memory to register it again: it stays deleted, as the workers see it. */
	memset(&master->apps[slot], 0, sizeof(master->apps[slot]));
	master->index[id] = 0;
	isw_mc_destroy(old.group);
	return isw_cmd_err(c, ENOMEM,
	                   "workers did not pause and no memory to register app %u again: it is "
	                   "deleted, its aggregators still held (atp pool resize frees them)",
	                   id);
}
ISW_CMD_REGISTER(atp_app_del, "atp app del", "APP",
                 "unregister an app and free the aggregators it holds", cmd_app_del)

/*
 * Frees every aggregator the app holds (workers paused), so nothing an earlier job left can
 * combine with a new one. Safe while the app's workers run: an aggregation it cuts short is
 * resent by its workers and completed by the PS. With job J it also names J the app's current job,
 * as a PS's ANNOUNCE does: from then on only frames of job J pass (docs/atp.md, Job lifetime).
 */
static int cmd_app_reset(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id, job = 0;
	struct isw_kv kv[] = {{"job", NULL}};
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 1, 3) < 0 ||
	    arg_app(c, argv[0], true, &id) < 0 ||
	    isw_arg_kv(c, argc - 1, argv + 1, kv, RTE_DIM(kv)) < 0 ||
	    (kv[0].val && isw_arg_u32(c, kv[0].val, "job", 0, UINT32_MAX, &job) < 0))
		return -EINVAL;
	if (isw_dp_pause() < 0)
		return isw_cmd_err(c, EAGAIN, "workers did not pause; nothing changed");
	uint32_t freed = app_release(id);
	if (kv[0].val && job_name(master->index[id], job, false))
		ctl_jobs[master->index[id]]++;
	isw_dp_resume();
	isw_json_u64(c->out, "app", id);
	isw_json_u64(c->out, "aggregators_freed", freed);
	if (kv[0].val)
		isw_json_u64(c->out, "job", job);
	return 0;
}
ISW_CMD_REGISTER(
        atp_app_reset, "atp app reset", "APP [job J]",
        "free the aggregators the app holds; job J names J the app's current job (its PS's "
        "ANNOUNCE does it for inswitch's tools): frames of other jobs are dropped",
        cmd_app_reset)

/*
 * An app as one level of a fabric (docs/fabric.md): on a leaf, the ranks of the workers behind
 * it (its PS port being its uplink); on the root, every rank of the job (its worker ports being
 * the leaves' links). An aggregation completes when its bitmap covers those ranks' bits, and a
 * frame that collided below goes on to the PS as it is. off: a single switch again.
 */
static int cmd_app_fabric(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id, mask = 0;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 2, 3) < 0 ||
	    arg_app(c, argv[0], true, &id) < 0)
		return -EINVAL;
	struct atp_app *a = &master->apps[master->index[id]];
	if (a->gen != 0)
		return isw_cmd_err(c, EBUSY,
		                   "app %u has a region of its own (atp app region): a fabric's "
		                   "levels share the range their hosts hash into",
		                   id);
	if (argc == 2 && strcmp(argv[1], "off") == 0) {
		mask = 0;
	} else if (argc == 3 && strcmp(argv[1], "ranks") == 0) {
		char buf[256];
		char *f[ATP_WORKERS_MAX];
		int n = isw_arg_list(c, argv[2], "ranks", buf, sizeof(buf), f, RTE_DIM(f));
		if (n < 0)
			return -EINVAL;
		for (int i = 0; i < n; i++) {
			uint32_t r;
			if (isw_arg_u32(c, f[i], "rank", 0, a->nworkers - 1u, &r) < 0)
				return -EINVAL;
			mask |= 1u << r;
		}
	} else {
		return isw_cmd_err(c, EINVAL, "usage: atp app fabric %s", c->cmd->usage);
	}
	uint32_t old = a->mask;
	a->mask = mask;
	if (publish() < 0) {
		a->mask = old;
		return isw_cmd_err(c, ENOMEM, "no memory");
	}
	isw_json_u64(c->out, "app", id);
	isw_json_strf(c->out, "ranks_mask", "0x%08x", mask);
	return 0;
}
ISW_CMD_REGISTER(atp_app_fabric, "atp app fabric", "APP ranks R[,R...] | APP off",
                 "make the app one level of a fabric: its aggregations complete when the "
                 "workers of these ranks are in (a leaf's own; the root's: all), and frames "
                 "that collided below go to the PS as they are (docs/fabric.md); off: a single "
                 "switch",
                 cmd_app_fabric)

/* ---- Regions of their own (docs/memory.md, ATP) ---- */

/*
 * Gives app id a region of its own of size aggregators (at base at, or first fit; UINT32_MAX)
 * under its running job: the new region is taken from the budget and cleared, the current one
 * kept as the old while the change runs. -EBUSY while the last change's old region still
 * drains. err says why.
 */
int atp_region_change(uint32_t id, uint32_t size, uint32_t at, char *err, size_t errlen)
{
	if (master == NULL) {
		snprintf(err, errlen, "atp is not enabled (pipeline enable atp)");
		return -ENOTSUP;
	}
	unsigned slot = id <= UINT16_MAX ? master->index[id] : 0;
	if (slot == 0) {
		snprintf(err, errlen, "no atp app %u", id);
		return -ENOENT;
	}
	struct atp_app *a = &master->apps[slot];
	if (a->mask != 0) {
		snprintf(err, errlen,
		         "app %u is a level of a fabric: its hosts hash into the "
		         "shared range",
		         id);
		return -EBUSY;
	}
	if (a->osize != 0) {
		snprintf(err, errlen,
		         a->claim_old ? "app %u's last region change is still under way (not every "
		                        "worker claimed in the new region yet)"
		                      : "app %u's last region change is still under way (its old "
		                        "region drains)",
		         id);
		return -EBUSY;
	}
	if (size == 0 || size > ATP_POOL_MAX) {
		snprintf(err, errlen, "a region has 1 to %u aggregators", ATP_POOL_MAX);
		return -EINVAL;
	}
	char holder[ISW_BUDGET_NAME_MAX];
	region_holder(holder, sizeof(holder), id, a->gen + 1u);
	uint32_t base = at;
	int rc = at == UINT32_MAX
	                 ? isw_budget_take(ATP_POOL_NAME, holder, size, &base, err, errlen)
	                 : isw_budget_take_at(ATP_POOL_NAME, holder, at, size, err, errlen);
	if (rc < 0)
		return rc;
	if (base + size > 65536u) {
		isw_budget_give(ATP_POOL_NAME, holder);
		snprintf(err, errlen, "aggregator indices are 16 bits");
		return -EINVAL;
	}
	if (isw_dp_pause() < 0) {
		isw_budget_give(ATP_POOL_NAME, holder);
		snprintf(err, errlen, "workers did not pause: nothing changed");
		return -EAGAIN;
	}
	for (unsigned r = 0; r < ATP_REG_NB; r++)
		isw_reg_clear_range(atp_regs[r], base, size);
	__atomic_store_n(&atp_moved[slot], 0, __ATOMIC_RELAXED);
	isw_dp_resume();
	struct atp_app was = *a;
	a->obase = a->gen == 0 ? 0 : a->rbase;
	a->osize = a->gen == 0 ? master->pool : a->rsize;
	a->rbase = (uint16_t)base;
	a->rsize = size;
	a->gen = (uint16_t)(a->gen + 1u == 0x10000u ? 2u : a->gen + 1u);
	a->claim_old = true;
	if (publish() < 0) {
		*a = was;
		isw_budget_give(ATP_POOL_NAME, holder);
		snprintf(err, errlen, "no memory; nothing changed");
		return -ENOMEM;
	}
	regions[slot].asked_ms = isw_clock_ms();
	regions[slot].changes++;
	return 0;
}

static int cmd_app_region(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id, size, at = UINT32_MAX;
	struct isw_kv kv[] = {{"size", NULL}, {"base", NULL}};
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 3, 5) < 0 ||
	    arg_app(c, argv[0], true, &id) < 0 ||
	    isw_arg_kv(c, argc - 1, argv + 1, kv, RTE_DIM(kv)) < 0)
		return -EINVAL;
	if (kv[0].val == NULL)
		return isw_cmd_err(c, EINVAL, "usage: atp app region %s", c->cmd->usage);
	if (isw_arg_u32(c, kv[0].val, "size", 1, ATP_POOL_MAX, &size) < 0 ||
	    (kv[1].val && isw_arg_u32(c, kv[1].val, "base", 0, ATP_POOL_MAX - 1, &at) < 0))
		return -EINVAL;
	char msg[ISW_CMD_ERR_MAX];
	int rc = atp_region_change(id, size, at, msg, sizeof(msg));
	if (rc < 0)
		return isw_cmd_err(c, -rc, "%s", msg);
	const struct atp_app *a = &master->apps[master->index[id]];
	isw_json_u64(c->out, "app", id);
	isw_json_u64(c->out, "gen", a->gen);
	isw_json_u64(c->out, "first_agtr", a->rbase);
	isw_json_u64(c->out, "aggregators", a->rsize);
	isw_json_u64(c->out, "old_first_agtr", a->obase);
	isw_json_u64(c->out, "old_aggregators", a->osize);
	return 0;
}
ISW_CMD_REGISTER(atp_app_region, "atp app region", "APP size N [base B]",
                 "give app APP a region of its own of N aggregators (at B, or the first free "
                 "range past the shared one) under its running job: results carry the region, "
                 "inswitch's workers move at their next call, the old region drains before it "
                 "is given back (docs/memory.md)",
                 cmd_app_region)

/* Whether none of app a's claims in its old region is left (a lapsed one is not a claim). */
static bool old_drained(const struct atp_app *a)
{
	uint32_t now = isw_clock_ms();
	for (uint32_t i = a->obase; i < a->obase + a->osize; i++) {
		/* No pause: a word load; once claim_old is off no claim of the app lands here,
		 * so what is seen free stays free. */
		uint32_t owner = (uint32_t)isw_reg_get(atp_regs[ATP_REG_OWNER], i, 0);
		if (owner == 0 || owner >> 16 != a->id)
			continue;
		int32_t age = (int32_t)(now - (uint32_t)isw_reg_get(atp_regs[ATP_REG_OWNER], i, 1));
		if (master->lease_ms == 0 || age <= (int32_t)master->lease_ms)
			return false;
	}
	return true;
}

/* Moves the changes on: the old region stops taking claims once every worker claimed in the new
 * one (or the change's time ran out), and is dropped and given back once drained. */
static void region_tick(void)
{
	if (master == NULL)
		return;
	uint32_t now = isw_clock_ms();
	for (unsigned slot = 1; slot <= ATP_APPS_MAX; slot++) {
		struct atp_app *a = &master->apps[slot];
		if (!a->valid || a->osize == 0)
			continue;
		struct atp_app was = *a;
		if (a->claim_old) {
			uint32_t all = a->nworkers >= 32 ? UINT32_MAX : (1u << a->nworkers) - 1u;
			uint32_t moved = __atomic_load_n(&atp_moved[slot], __ATOMIC_RELAXED);
			if ((moved & all) != all &&
			    now - regions[slot].asked_ms < ATP_CHANGE_MAX_MS)
				continue;
			a->claim_old = false;
			if (publish() < 0)
				*a = was; /* again at the next tick */
			continue;
		}
		if (!old_drained(a))
			continue;
		a->osize = 0;
		a->obase = 0;
		if (publish() < 0) {
			*a = was;
			continue;
		}
		regions[slot].drained++;
		if (a->gen > 1) {
			char holder[ISW_BUDGET_NAME_MAX];
			region_holder(holder, sizeof(holder), a->id, a->gen - 1u);
			isw_budget_give(ATP_POOL_NAME, holder);
		}
	}
}
ISW_TICK_REGISTER(atp_region, region_tick)

/* ---- The allocator's kind "atp" (dataplane/alloc.h, docs/memory.md) ---- */

static int alloc_info(uint32_t id, struct isw_alloc_tenant *t, char *err, size_t errlen)
{
	unsigned slot = master != NULL && id <= UINT16_MAX ? master->index[id] : 0;
	if (slot == 0) {
		snprintf(err, errlen, "no atp app %u", id);
		return -ENOENT;
	}
	const struct atp_app *a = &master->apps[slot];
	memset(t, 0, sizeof(*t));
	t->units = a->gen != 0 ? a->rsize : 0;
	t->base = a->gen != 0 ? a->rbase : 0;
	t->changing = a->osize != 0;
	t->movable = a->mask == 0;
	t->granule = 1;
	if (a->mask != 0)
		snprintf(t->why, sizeof(t->why), "fixed: a level of a fabric");
	uint64_t v = 0;
	for (unsigned w = 0; w < isw_dp.nb_workers && w < ISW_MAX_WORKERS; w++)
		v += atp_counters[w][slot].aggregated;
	t->bytes = 4 * ATP_VALUES * v;
	return 0;
}

static int alloc_resize(uint32_t id, uint32_t units, char *err, size_t errlen)
{
	return atp_region_change(id, units, UINT32_MAX, err, errlen);
}

static const struct isw_alloc_kind atp_alloc_kind = {
        .name = "atp",
        .pool_units = ATP_POOL_MAX,
        .info = alloc_info,
        .resize = alloc_resize,
};

RTE_INIT(atp_alloc_register)
{
	isw_alloc_kind_register(&atp_alloc_kind);
}

static void app_counters(unsigned slot, struct atp_counters *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned w = 0; w < isw_dp.nb_workers && w < ISW_MAX_WORKERS; w++) {
		const struct atp_counters *x = &atp_counters[w][slot];
		t->pkts += x->pkts;
		t->aggregated += x->aggregated;
		t->completions += x->completions;
		t->dup_results += x->dup_results;
		t->collisions += x->collisions;
		t->resends += x->resends;
		t->flushes += x->flushes;
		t->overflow += x->overflow;
		t->acks += x->acks;
		t->freed += x->freed;
		t->lapsed += x->lapsed;
		t->drops += x->drops;
		t->joins += x->joins;
		t->announces += x->announces;
		t->jobs += x->jobs;
		t->outside += x->outside;
		t->notes += x->notes;
		t->stale += x->stale;
	}
	t->jobs += ctl_jobs[slot];
}

static int cmd_app_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t id = 0;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 0, 1) < 0 ||
	    (argc == 1 && arg_app(c, argv[0], true, &id) < 0))
		return -EINVAL;
	isw_json_arr_open(c->out, "apps");
	for (unsigned i = 1; i <= ATP_APPS_MAX; i++) {
		const struct atp_app *a = &master->apps[i];
		if (!a->valid || (id != 0 && a->id != id))
			continue;
		char ports[128];
		isw_fmt_port_list(a->worker_ports, ports, sizeof(ports));
		isw_json_obj_open(c->out, NULL);
		isw_json_u64(c->out, "app", a->id);
		isw_json_u64(c->out, "workers", a->nworkers);
		isw_json_str_kv(c->out, "worker_ports", ports);
		for (unsigned k = 0; k < ATP_PS_MAX; k++) {
			char key[8];
			snprintf(key, sizeof(key), k ? "ps%u" : "ps", k);
			if (a->ps[k] == ATP_NO_PORT)
				isw_json_str_kv(c->out, key, "-");
			else
				isw_json_u64(c->out, key, (uint64_t)a->ps[k]);
		}
		isw_json_u64(c->out, "group", a->group);
		if (a->mask != 0) {
			char ranks[128];
			isw_json_str_kv(c->out, "fabric_ranks",
			                isw_fmt_port_list(a->mask, ranks, sizeof(ranks)));
		} else {
			isw_json_null(c->out, "fabric_ranks");
		}
		uint64_t named = __atomic_load_n(&atp_jobs[i].named, __ATOMIC_ACQUIRE);
		uint32_t at = __atomic_load_n(&atp_jobs[i].at_ms, __ATOMIC_RELAXED);
		int32_t ago = (int32_t)(isw_clock_ms() - at);
		isw_json_u64(c->out, "job", (uint32_t)named);
		isw_json_u64(c->out, "job_started_ms_ago", ago > 0 ? (uint32_t)ago : 0);
		isw_json_u64(c->out, "region_gen", a->gen);
		if (a->gen != 0) {
			isw_json_u64(c->out, "first_agtr", a->rbase);
			isw_json_u64(c->out, "aggregators", a->rsize);
		} else {
			isw_json_str_kv(c->out, "first_agtr", "shared");
			isw_json_u64(c->out, "aggregators", master->pool);
		}
		const char *phase = a->osize == 0 ? "-" : a->claim_old ? "moving" : "draining";
		isw_json_str_kv(c->out, "change", phase);
		if (a->osize != 0) {
			isw_json_u64(c->out, "old_first_agtr", a->obase);
			isw_json_u64(c->out, "old_aggregators", a->osize);
			isw_json_strf(c->out, "moved", "0x%08x",
			              __atomic_load_n(&atp_moved[i], __ATOMIC_RELAXED));
		}
		isw_json_u64(c->out, "region_changes", regions[i].changes);
		isw_json_u64(c->out, "regions_drained", regions[i].drained);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	isw_json_arr_open(c->out, "counters");
	for (unsigned i = 1; i <= ATP_APPS_MAX; i++) {
		const struct atp_app *a = &master->apps[i];
		if (!a->valid || (id != 0 && a->id != id))
			continue;
		struct atp_counters t;
		app_counters(i, &t);
		uint64_t to_ps = t.completions + t.dup_results + t.collisions + t.resends +
		                 t.overflow + t.outside;
		isw_json_obj_open(c->out, NULL);
		isw_json_u64(c->out, "app", a->id);
		isw_json_u64(c->out, "pkts", t.pkts + t.overflow);
		isw_json_u64(c->out, "aggregated", t.aggregated);
		isw_json_u64(c->out, "completions", t.completions);
		isw_json_u64(c->out, "dup_results", t.dup_results);
		isw_json_u64(c->out, "collisions", t.collisions);
		isw_json_u64(c->out, "resends", t.resends);
		isw_json_u64(c->out, "flushes", t.flushes);
		isw_json_u64(c->out, "overflow", t.overflow);
		isw_json_u64(c->out, "to_ps", to_ps);
		isw_json_u64(c->out, "acks", t.acks);
		isw_json_u64(c->out, "freed", t.freed);
		isw_json_u64(c->out, "lapsed", t.lapsed);
		isw_json_u64(c->out, "drops", t.drops);
		isw_json_u64(c->out, "joins", t.joins);
		isw_json_u64(c->out, "announces", t.announces);
		isw_json_u64(c->out, "jobs", t.jobs);
		isw_json_u64(c->out, "outside", t.outside);
		isw_json_u64(c->out, "notes", t.notes);
		isw_json_u64(c->out, "stale", t.stale);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(atp_app_show, "atp app show", "[APP]",
                 "show apps (worker ports, PS ports, current job) and their counters", cmd_app_show)

static int cmd_pool_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	uint32_t held = 0, lapsed = 0, oldest = 0;
	if (isw_dp_pause() < 0)
		return isw_cmd_err(c, EAGAIN, "workers did not pause; try again");
	uint32_t now = isw_clock_ms();
	for (uint32_t i = 0; i < master->pool; i++) {
		if (isw_reg_get(atp_regs[ATP_REG_OWNER], i, 0) == 0)
			continue;
		/* A claim made in the ms its lcore adopted a job is dated one ms later. */
		int32_t sage =
		        (int32_t)(now - (uint32_t)isw_reg_get(atp_regs[ATP_REG_OWNER], i, 1));
		uint32_t age = sage > 0 ? (uint32_t)sage : 0;
		held++;
		lapsed += master->lease_ms != 0 && age > master->lease_ms;
		oldest = age > oldest ? age : oldest;
	}
	isw_dp_resume();
	isw_json_u64(c->out, "aggregators", master->pool);
	isw_json_u64(c->out, "max", ATP_POOL_MAX);
	isw_json_u64(c->out, "held", held);
	isw_json_u64(c->out, "free", master->pool - held);
	isw_json_u64(c->out, "lease_ms", master->lease_ms);
	isw_json_u64(c->out, "held_lapsed", lapsed);
	isw_json_u64(c->out, "oldest_held_ms", oldest);
	return 0;
}
ISW_CMD_REGISTER(atp_pool_show, "atp pool show", "",
                 "show the shared aggregator pool: size, aggregators held now and their age",
                 cmd_pool_show)

static int cmd_pool_lease(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t ms;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 1, 1) < 0 ||
	    isw_arg_u32(c, argv[0], "lease", 0, 3600000, &ms) < 0)
		return -EINVAL;
	uint32_t old = master->lease_ms;
	master->lease_ms = ms;
	if (publish() < 0) {
		master->lease_ms = old;
		return isw_cmd_err(c, ENOMEM, "no memory");
	}
	isw_json_u64(c->out, "lease_ms", ms);
	return 0;
}
ISW_CMD_REGISTER(atp_pool_lease, "atp pool lease", "MS",
                 "an aggregation older than MS lapses: the next claim takes its aggregator over "
                 "(default 1000; 0 = never, unsafe for clients that never change job: a dead "
                 "run's claims join their next run)",
                 cmd_pool_lease)

static int cmd_pool_resize(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t n;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 1, 1) < 0 ||
	    isw_arg_u32(c, argv[0], "aggregators", 1, ATP_POOL_MAX, &n) < 0)
		return -EINVAL;
	uint32_t old = master->pool;
	int rc = pool_take(n, c->err, sizeof(c->err));
	if (rc < 0) {
		pool_take(old, c->err, sizeof(c->err));
		return rc;
	}
	if (isw_dp_pause() < 0) {
		pool_take(old, c->err, sizeof(c->err));
		return isw_cmd_err(c, EAGAIN, "workers did not pause; nothing changed");
	}
	pool_clear();
	isw_dp_resume();
	master->pool = n;
	if (publish() < 0) {
		master->pool = old;
		return isw_cmd_err(c, ENOMEM, "no memory");
	}
	isw_json_u64(c->out, "aggregators", n);
	return 0;
}
ISW_CMD_REGISTER(atp_pool_resize, "atp pool resize", "N",
                 "set the pool to N aggregators (1-32768) and free them all; workers must hash "
                 "into the same N",
                 cmd_pool_resize)

static int cmd_agtr_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t i;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 1, 1) < 0 ||
	    isw_arg_u32(c, argv[0], "aggregator", 0, ATP_POOL_MAX - 1, &i) < 0)
		return -EINVAL;
	int32_t vals[ATP_VALUES];
	if (isw_dp_pause() < 0)
		return isw_cmd_err(c, EAGAIN, "workers did not pause; try again");
	uint32_t owner = (uint32_t)isw_reg_get(atp_regs[ATP_REG_OWNER], i, 0);
	int32_t sage =
	        (int32_t)(isw_clock_ms() - (uint32_t)isw_reg_get(atp_regs[ATP_REG_OWNER], i, 1));
	uint32_t age = sage > 0 ? (uint32_t)sage : 0;
	uint32_t bitmap = (uint32_t)isw_reg_get(atp_regs[ATP_REG_BITMAP], i, 0);
	uint32_t count = (uint32_t)isw_reg_get(atp_regs[ATP_REG_COUNT], i, 0);
	uint32_t ecn = (uint32_t)isw_reg_get(atp_regs[ATP_REG_ECN], i, 0);
	uint32_t tag = (uint32_t)isw_reg_get(atp_regs[ATP_REG_TAG], i, 0);
	for (unsigned k = 0; k < ATP_VALUES; k++)
		vals[k] = (int32_t)isw_reg_get(atp_regs[ATP_REG_VALUES], i, k);
	isw_dp_resume();
	isw_json_u64(c->out, "agtr", i);
	isw_json_bool(c->out, "held", owner != 0);
	isw_json_u64(c->out, "app", owner >> 16);
	isw_json_u64(c->out, "seq", owner & 0xFFFF);
	if (owner != 0)
		isw_json_u64(c->out, "age_ms", age);
	isw_json_strf(c->out, "bitmap", "0x%08x", bitmap);
	isw_json_u64(c->out, "count", count);
	isw_json_strf(c->out, "tensor", "0x%08x", tag);
	isw_json_bool(c->out, "ecn", ecn != 0);
	isw_json_arr_open(c->out, "values");
	for (unsigned k = 0; k < ATP_VALUES; k++)
		isw_json_i64(c->out, NULL, vals[k]);
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(atp_agtr_show, "atp agtr show", "AGTR",
                 "show one aggregator: owner (app, seq), bitmap, count, ECN, values", cmd_agtr_show)
