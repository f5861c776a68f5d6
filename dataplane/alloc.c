/* SPDX-License-Identifier: BSD-3-Clause */
/* The aggregator allocator: jobs, policy, and the plan applied to running regions (alloc.h). */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "alloc.h"
#include "alloc_plan.h"
#include "cmd.h"
#include "dp.h"
#include "json.h"

#define JOBS_MAX     64
#define NAME_MAX_LEN 32
/* Defaults of a job's figures: this machine's measured curve (docs/memory.md): a round trip
 * set by the hosts' guard, and what one job reached with all the memory it could use. */
#define DEF_RTT_US    4000.0
#define DEF_PEAK_GBPS 0.5
#define DEF_ELEMS     256u

/*
 * A reported round trip says the path's delay plus the queues the job's own window built: a job
 * that the CPUs (not its memory) hold back reports a round trip that grows with its region
 * (Little's law), and sized from it, its region would grow with every report. The plan takes the
 * least round trip reported over the last RTT_WINDOW_S, as BBR takes its RTprop: what is left is
 * the path's, and a job slower than that model says is the pace's to correct (pace_sample).
 */
#define RTT_WINDOW_S 10.0
#define RTT_KEEP     16

struct job {
	bool used;
	char name[NAME_MAX_LEN];
	const struct isw_alloc_kind *kind;
	uint32_t id;
	double arrival;  /* s, isw_clock_ms() / 1000 */
	double deadline; /* absolute s; 0 best effort */
	double model_bytes, t_comp, iters, done, rtt, peak;
	uint32_t elems, min_units;
	/* the last plan, and what came of applying it */
	struct isw_alloc_job plan;
	bool planned;
	int last_rc;
	char last_err[128];
	uint64_t resizes;
	/* measured: bytes at the last sample, and the rate over the sample before */
	uint64_t bytes0;
	double t0, measured;
	/* its pace (pace_sample): the progress reported at the start of the window, the region it
	 * had then, and the communication the model predicts over the time it takes, smoothed:
	 * (0, 1], 0 until measured */
	double pace_t, pace_done, eff;
	uint32_t pace_units;
	/* the round trips reported (rtt-us) over the last RTT_WINDOW_S that a later one is not
	 * below, oldest (and least) first: the plan takes the least (rtt_plan) */
	double rtt_v[RTT_KEEP], rtt_t[RTT_KEEP];
	unsigned rtt_n;
};

/* A window of progress shorter than this says too little of a job's pace. */
#define PACE_MIN_S 1.0
/* A job is never planned as slower than this share of its model (a stall is not a pace). */
#define PACE_EFF_MIN 0.5

static const struct isw_alloc_kind *kinds[ISW_ALLOC_KINDS_MAX];
static uint32_t capacity[ISW_ALLOC_KINDS_MAX];
static struct job jobs[JOBS_MAX];
static enum isw_alloc_policy policy = ISW_ALLOC_FCFS;
static uint32_t period_ms = 1000;
/* The share of the time to a deadline the plan keeps in hand: it plans to finish that much
 * before it, for what the model misses and the time a change takes to reach the workers. */
static double margin = 0.1;
static double last_plan;
static bool dirty;

void isw_alloc_kind_register(const struct isw_alloc_kind *k)
{
	for (unsigned i = 0; i < ISW_ALLOC_KINDS_MAX; i++) {
		if (kinds[i] == k)
			return;
		if (kinds[i] == NULL) {
			kinds[i] = k;
			/* a change holds the old region and the new one until it drains: at most
			 * half the pool shared leaves room for any one change */
			capacity[i] = k->pool_units / 2;
			return;
		}
	}
}

static int kind_index(const char *name)
{
	for (unsigned i = 0; i < ISW_ALLOC_KINDS_MAX; i++)
		if (kinds[i] != NULL && strcmp(kinds[i]->name, name) == 0)
			return (int)i;
	return -1;
}

static double now_s(void)
{
	return isw_clock_ms() / 1000.0;
}

static struct job *job_find(const char *name)
{
	for (unsigned i = 0; i < JOBS_MAX; i++)
		if (jobs[i].used && strcmp(jobs[i].name, name) == 0)
			return &jobs[i];
	return NULL;
}

/* A round trip reported at now: kept, with those of the last RTT_WINDOW_S that are no larger
 * (a larger one older than a smaller one can never be the least again). */
static void rtt_report(struct job *j, double rtt, double now)
{
	unsigned n = 0;
	for (unsigned i = 0; i < j->rtt_n; i++)
		if (now - j->rtt_t[i] < RTT_WINDOW_S && j->rtt_v[i] <= rtt) {
			j->rtt_v[n] = j->rtt_v[i];
			j->rtt_t[n++] = j->rtt_t[i];
		}
	if (n == RTT_KEEP) { /* as many rising reports within the window: the oldest goes */
		memmove(j->rtt_v, j->rtt_v + 1, (RTT_KEEP - 1) * sizeof(j->rtt_v[0]));
		memmove(j->rtt_t, j->rtt_t + 1, (RTT_KEEP - 1) * sizeof(j->rtt_t[0]));
		n--;
	}
	j->rtt_v[n] = rtt;
	j->rtt_t[n++] = now;
	j->rtt_n = n;
	j->rtt = rtt;
}

/* The round trip job j is planned with: the least reported over the last RTT_WINDOW_S (kept
 * in increasing order of value by rtt_report), the last reported if all are older. */
static double rtt_plan(const struct job *j, double now)
{
	for (unsigned i = 0; i < j->rtt_n; i++)
		if (now - j->rtt_t[i] < RTT_WINDOW_S)
			return j->rtt_v[i];
	return j->rtt;
}

/* The planner's view of job j, its tenant t. */
static void job_model(const struct job *j, const struct isw_alloc_tenant *t,
                      struct isw_alloc_job *a)
{
	memset(a, 0, sizeof(*a));
	a->id = (uint32_t)(j - jobs);
	a->arrival = j->arrival;
	a->model_bytes = j->model_bytes;
	a->t_comp = j->t_comp;
	/* a job that gave no iteration count runs for ever as far as the model can tell */
	a->iters = j->iters > 0 ? fmax(j->iters - j->done, 0) : 1e12;
	/* a job slower than its model (pace_sample) is planned at the pace it keeps: a unit
	 * buys eff of what the model says; the throughput all the memory buys is the model's
	 * (whether a deadline can be met at all is the model's to say) */
	double rtt = rtt_plan(j, now_s());
	a->rtt = j->eff > 0 ? rtt / j->eff : rtt;
	a->peak = j->peak;
	/* a SyncAgtr slot keeps one packet in flight (its two sets: the round and the last one's
	 * result, kept for resends): a packet's payload a round trip */
	a->unit_bytes = 4.0 * j->elems;
	double now = now_s();
	a->deadline = j->deadline > now ? now + (j->deadline - now) * (1 - margin) : j->deadline;
	a->min_units = j->min_units > t->granule ? j->min_units : t->granule;
	a->units = t->units;
	a->base = t->base;
	a->fixed = t->movable ? 0 : t->units;
}

/*
 * Plans kind k's jobs under the policy and asks for the changes the plan makes: shrinks first,
 * so that the memory they give back (once drained) is there for the grows, which a kind refuses
 * while it is not (-ENOSPC) and the next plan asks again. A job whose change is under way is
 * planned where it is going and not asked again.
 */
static void plan_kind(unsigned k)
{
	struct isw_alloc_job a[JOBS_MAX];
	struct job *of[JOBS_MAX];
	struct isw_alloc_tenant ten[JOBS_MAX];
	unsigned n = 0;
	double now = now_s();
	for (unsigned i = 0; i < JOBS_MAX; i++) {
		struct job *j = &jobs[i];
		char err[128];
		if (!j->used || j->kind != kinds[k])
			continue;
		if (j->kind->info(j->id, &ten[n], err, sizeof(err)) < 0) {
			j->planned = false;
			j->last_rc = -ENOENT;
			snprintf(j->last_err, sizeof(j->last_err), "%s", err);
			continue;
		}
		if (ten[n].changing) /* planned where it is going: it cannot move before */
			ten[n].movable = false;
		job_model(j, &ten[n], &a[n]);
		of[n++] = j;
	}
	if (n == 0)
		return;
	/* Only the sizes are the kind's to apply (it places a changed region itself, where the
	 * budget has room): the fixed regions go side by side from 0 for the planner. */
	uint32_t at = 0;
	for (unsigned i = 0; i < n; i++)
		if (a[i].fixed) {
			a[i].base = at;
			at += a[i].fixed;
		}
	int rc = isw_alloc_plan(a, n, capacity[k], policy, now);
	if (rc == -EINVAL)
		for (unsigned i = 0; i < n; i++) {
			of[i]->last_rc = -EINVAL;
			snprintf(of[i]->last_err, sizeof(of[i]->last_err),
			         "no plan: the fixed regions (and those changing) hold more than "
			         "the "
			         "capacity of %u",
			         capacity[k]);
		}
	/* Sizes the tenant can take, whole granules: up for a deadline the plan meets (a
	 * granule short would miss it), down for the rest. */
	for (unsigned i = 0; i < n; i++) {
		uint32_t g = ten[i].granule, r = g > 1 ? a[i].units % g : 0;
		if (a[i].fixed || r == 0)
			continue;
		a[i].units += a[i].cls == ISW_ALLOC_ON_TIME ? g - r : 0;
		a[i].units -= a[i].cls == ISW_ALLOC_ON_TIME ? 0 : r;
	}
	for (unsigned i = 0; i < n; i++) {
		of[i]->plan = a[i];
		of[i]->planned = rc != -EINVAL;
	}
	if (rc == -EINVAL)
		return;
	/* shrinks first, then grows, each in the order of their change */
	unsigned order[JOBS_MAX];
	for (unsigned i = 0; i < n; i++)
		order[i] = i;
	for (unsigned x = 1; x < n; x++) {
		unsigned v = order[x], y = x;
		double dv = (double)a[v].units - ten[v].units;
		for (; y > 0 && (double)a[order[y - 1]].units - ten[order[y - 1]].units > dv; y--)
			order[y] = order[y - 1];
		order[y] = v;
	}
	uint64_t held = 0;
	for (unsigned i = 0; i < n; i++)
		held += ten[i].units;
	for (unsigned x = 0; x < n; x++) {
		unsigned i = order[x];
		struct job *j = of[i];
		if (!ten[i].movable || a[i].units == ten[i].units || a[i].units == 0)
			continue;
		/* Each change costs the job a drain: one of less than an eighth waits, unless a
		 * deadline the plan meets needs it, or the jobs hold more than the capacity and
		 * this gives some back. */
		uint32_t d = a[i].units > ten[i].units ? a[i].units - ten[i].units
		                                       : ten[i].units - a[i].units;
		bool grow = a[i].units > ten[i].units;
		bool needed = grow ? a[i].cls == ISW_ALLOC_ON_TIME : held > capacity[k];
		if (!needed && (uint64_t)d * 8 < ten[i].units)
			continue;
		char err[128] = "";
		j->last_rc = j->kind->resize(j->id, a[i].units, err, sizeof(err));
		snprintf(j->last_err, sizeof(j->last_err), "%s", err);
		if (j->last_rc == 0)
			j->resizes++;
	}
}

static void plan_all(void)
{
	for (unsigned k = 0; k < ISW_ALLOC_KINDS_MAX; k++)
		if (kinds[k] != NULL)
			plan_kind(k);
	last_plan = now_s();
	dirty = false;
}

/* Every second, each job's measured throughput; at every event and every period, a plan. */
static void alloc_tick(void)
{
	double now = now_s();
	bool any = false;
	for (unsigned i = 0; i < JOBS_MAX; i++) {
		struct job *j = &jobs[i];
		struct isw_alloc_tenant t;
		char err[128];
		if (!j->used)
			continue;
		any = true;
		if (now - j->t0 < 1.0 || j->kind->info(j->id, &t, err, sizeof(err)) < 0)
			continue;
		j->measured = (double)(t.bytes - j->bytes0) / (now - j->t0);
		j->bytes0 = t.bytes;
		j->t0 = now;
	}
	if (any && (dirty || (period_ms != 0 && (now - last_plan) * 1000 >= period_ms)))
		plan_all();
}
ISW_TICK_REGISTER(alloc, alloc_tick)

/* ---- commands ---- */

static int arg_double(struct isw_cmd_ctx *c, const char *s, const char *what, double lo, double hi,
                      double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || !(v >= lo && v <= hi))
		return isw_cmd_err(c, EINVAL, "%s: '%s' is not a number in %g..%g", what, s, lo,
		                   hi);
	*out = v;
	return 0;
}

/* The figures of alloc job add and update: set what is given. */
enum fig { F_DEADLINE, F_MODEL, F_COMPUTE, F_ITERS, F_RTT, F_PEAK, F_ELEMS, F_MIN, F_DONE, F_NB };
static const char *const fig_keys[F_NB] = {"deadline-s", "model-mb",  "compute-ms",
                                           "iters",      "rtt-us",    "peak-gbps",
                                           "elems",      "min-units", "done"};

static int job_figures(struct isw_cmd_ctx *c, struct job *j, int argc, char **argv, bool add)
{
	struct isw_kv kv[F_NB];
	double v = 0;
	for (unsigned i = 0; i < F_NB; i++)
		kv[i] = (struct isw_kv){fig_keys[i], NULL};
	if (isw_arg_kv(c, argc, argv, kv, add ? F_DONE : F_NB) < 0)
		return -EINVAL;
	if (kv[F_DEADLINE].val) {
		if (arg_double(c, kv[F_DEADLINE].val, "deadline-s", 0, 1e9, &v) < 0)
			return -EINVAL;
		j->deadline = v > 0 ? now_s() + v : 0;
	}
	if (kv[F_MODEL].val && arg_double(c, kv[F_MODEL].val, "model-mb", 0, 1e6, &v) == 0)
		j->model_bytes = v * 1e6;
	else if (kv[F_MODEL].val)
		return -EINVAL;
	if (kv[F_COMPUTE].val && arg_double(c, kv[F_COMPUTE].val, "compute-ms", 0, 1e7, &v) == 0)
		j->t_comp = v / 1000;
	else if (kv[F_COMPUTE].val)
		return -EINVAL;
	if (kv[F_ITERS].val && arg_double(c, kv[F_ITERS].val, "iters", 0, 1e12, &v) == 0)
		j->iters = v;
	else if (kv[F_ITERS].val)
		return -EINVAL;
	if (kv[F_RTT].val && arg_double(c, kv[F_RTT].val, "rtt-us", 1, 1e7, &v) == 0)
		rtt_report(j, v / 1e6, now_s());
	else if (kv[F_RTT].val)
		return -EINVAL;
	if (kv[F_PEAK].val && arg_double(c, kv[F_PEAK].val, "peak-gbps", 1e-6, 1e4, &v) == 0)
		j->peak = v * 1e9 / 8;
	else if (kv[F_PEAK].val)
		return -EINVAL;
	uint32_t u;
	if (kv[F_ELEMS].val) {
		if (isw_arg_u32(c, kv[F_ELEMS].val, "elems", 64, 256, &u) < 0)
			return -EINVAL;
		if (u != 64 && u != 256)
			return isw_cmd_err(c, EINVAL, "elems: 64 or 256, not %u", u);
		j->elems = u;
	}
	if (kv[F_MIN].val) {
		if (isw_arg_u32(c, kv[F_MIN].val, "min-units", 1, 1u << 20, &u) < 0)
			return -EINVAL;
		j->min_units = u;
	}
	if (kv[F_DONE].val && arg_double(c, kv[F_DONE].val, "done", 0, 1e12, &v) == 0)
		j->done = v;
	else if (kv[F_DONE].val)
		return -EINVAL;
	if (j->deadline > 0 && (j->iters <= 0 || j->model_bytes <= 0))
		return isw_cmd_err(c, EINVAL,
		                   "a job with a deadline needs its iters and model-mb: the model "
		                   "cannot tell what memory meets it otherwise");
	return 0;
}

static int cmd_job_add(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (isw_arg_count(c, argc, 3, 3 + 2 * F_DONE) < 0)
		return -EINVAL;
	if (strlen(argv[0]) >= NAME_MAX_LEN || argv[0][0] == '\0')
		return isw_cmd_err(c, EINVAL, "a job name has 1 to %u characters",
		                   NAME_MAX_LEN - 1);
	if (job_find(argv[0]) != NULL)
		return isw_cmd_err(c, EEXIST, "job %s is registered already", argv[0]);
	int k = kind_index(argv[1]);
	if (k < 0)
		return isw_cmd_err(c, ENOENT,
		                   "no kind %s: its pipeline is not enabled (syncagtr: a session)",
		                   argv[1]);
	uint32_t id;
	if (isw_arg_u32(c, argv[2], "id", 1, UINT32_MAX, &id) < 0)
		return -EINVAL;
	for (unsigned i = 0; i < JOBS_MAX; i++)
		if (jobs[i].used && jobs[i].kind == kinds[k] && jobs[i].id == id)
			return isw_cmd_err(c, EEXIST, "%s %u is job %s's already", argv[1], id,
			                   jobs[i].name);
	struct isw_alloc_tenant t;
	char err[128];
	if (kinds[k]->info(id, &t, err, sizeof(err)) < 0)
		return isw_cmd_err(c, ENOENT, "%s", err);
	struct job *slot = NULL;
	for (unsigned i = 0; i < JOBS_MAX && slot == NULL; i++)
		if (!jobs[i].used)
			slot = &jobs[i];
	if (slot == NULL)
		return isw_cmd_err(c, ENOSPC, "%u jobs are registered: no more", JOBS_MAX);
	struct job j = {.kind = kinds[k],
	                .id = id,
	                .arrival = now_s(),
	                .rtt = DEF_RTT_US / 1e6,
	                .peak = DEF_PEAK_GBPS * 1e9 / 8,
	                .elems = DEF_ELEMS,
	                .min_units = 1,
	                .bytes0 = t.bytes,
	                .t0 = now_s()};
	snprintf(j.name, sizeof(j.name), "%s", argv[0]);
	if (job_figures(c, &j, argc - 3, argv + 3, true) < 0)
		return -EINVAL;
	j.used = true;
	*slot = j;
	plan_all(); /* an arrival re-plans */
	isw_json_str_kv(c->out, "job", slot->name);
	isw_json_bool(c->out, "fixed", !t.movable);
	if (!t.movable)
		isw_json_str_kv(c->out, "why", t.why);
	isw_json_u64(c->out, "planned_units", slot->plan.units);
	return 0;
}
ISW_CMD_REGISTER(alloc_job_add, "alloc job add",
                 "NAME KIND ID [deadline-s S] [model-mb M] [compute-ms C] [iters N] [rtt-us R] "
                 "[peak-gbps G] [elems 64|256] [min-units U]",
                 "register job NAME, KIND ID's tenant (syncagtr: a session), with the figures "
                 "of its model (docs/memory.md); the allocator plans its region from then on",
                 cmd_job_add)

/*
 * A job behind its plan (docs/memory.md, Using it): at each report of progress, over the window
 * since the last one that began it (at least PACE_MIN_S, the region unchanged all along, the job
 * on time at no more than its need), the time an iteration took against the model's: the
 * communication the model predicts for the region the job had, over what the iterations took
 * beyond their compute. eff, smoothed over the windows (the last weighs a quarter), scales what
 * a unit buys in every plan after, so the job's need grows by what it lost: changes that take
 * effect at the next iteration, a slower path than its round trip says. Between PACE_EFF_MIN and
 * 1: a job faster than its model keeps the model's need.
 */
static void pace_sample(struct job *j)
{
	struct isw_alloc_tenant t;
	char err[128];
	double now = now_s();
	if (j->kind->info(j->id, &t, err, sizeof(err)) < 0)
		return;
	/* only where the model's slope applies: a deadline job at its need, or within the band
	 * the plan keeps above it (far past it, a job gains less than the slope says, by
	 * design, and more memory is no remedy) */
	bool same = j->pace_t > 0 && t.units == j->pace_units && !t.changing && j->deadline > 0 &&
	            j->planned && j->plan.cls == ISW_ALLOC_ON_TIME &&
	            t.units <= j->plan.need + j->plan.need / 4;
	if (same && now - j->pace_t < PACE_MIN_S)
		return;
	if (same && j->done > j->pace_done && j->model_bytes > 0 && j->rtt > 0 && t.units > 0) {
		double per_iter = (now - j->pace_t) / (j->done - j->pace_done);
		double thr = fmin((double)t.units * 4.0 * j->elems / rtt_plan(j, now), j->peak);
		double comm = per_iter - j->t_comp;
		double e = comm > 0 ? j->model_bytes / thr / comm : 1;
		e = fmax(PACE_EFF_MIN, fmin(e, 1));
		j->eff = j->eff > 0 ? (3 * j->eff + e) / 4 : e;
	}
	j->pace_t = now;
	j->pace_done = j->done;
	j->pace_units = t.units;
}

static int cmd_job_update(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (isw_arg_count(c, argc, 3, 1 + 2 * F_NB) < 0)
		return -EINVAL;
	struct job *j = job_find(argv[0]);
	if (j == NULL)
		return isw_cmd_err(c, ENOENT, "no job %s", argv[0]);
	struct job was = *j;
	if (job_figures(c, j, argc - 1, argv + 1, false) < 0) {
		*j = was;
		return -EINVAL;
	}
	if (j->done != was.done)
		pace_sample(j);
	dirty = true; /* an update re-plans at the next tick */
	isw_json_str_kv(c->out, "job", j->name);
	return 0;
}
ISW_CMD_REGISTER(alloc_job_update, "alloc job update",
                 "NAME [done K] [deadline-s S] [iters N] [model-mb M] [compute-ms C] [rtt-us R] "
                 "[peak-gbps G] [elems 64|256] [min-units U]",
                 "change a job's figures while it runs (done: the iterations it has made)",
                 cmd_job_update)

static int cmd_job_del(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (isw_arg_count(c, argc, 1, 1) < 0)
		return -EINVAL;
	struct job *j = job_find(argv[0]);
	if (j == NULL)
		return isw_cmd_err(c, ENOENT, "no job %s", argv[0]);
	memset(j, 0, sizeof(*j));
	plan_all(); /* a departure re-plans */
	return 0;
}
ISW_CMD_REGISTER(alloc_job_del, "alloc job del", "NAME",
                 "forget a job: its tenant keeps the region it has; the others are planned "
                 "again",
                 cmd_job_del)

static int cmd_policy(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (isw_arg_count(c, argc, 1, 1) < 0)
		return -EINVAL;
	int p = isw_alloc_policy_parse(argv[0]);
	if (p < 0)
		return isw_cmd_err(c, EINVAL, "policy: static, fcfs or edf, not '%s'", argv[0]);
	policy = (enum isw_alloc_policy)p;
	plan_all();
	isw_json_str_kv(c->out, "policy", isw_alloc_policy_name(policy));
	return 0;
}
ISW_CMD_REGISTER(alloc_policy, "alloc policy", "static|fcfs|edf",
                 "how the allocator sizes the jobs' regions (docs/memory.md); plans at once",
                 cmd_policy)

static int cmd_capacity(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (isw_arg_count(c, argc, 2, 2) < 0)
		return -EINVAL;
	int k = kind_index(argv[0]);
	if (k < 0)
		return isw_cmd_err(c, ENOENT, "no kind %s", argv[0]);
	uint32_t u;
	if (isw_arg_u32(c, argv[1], "units", 1, kinds[k]->pool_units, &u) < 0)
		return -EINVAL;
	capacity[k] = u;
	plan_all();
	return 0;
}
ISW_CMD_REGISTER(alloc_capacity, "alloc capacity", "KIND UNITS",
                 "the units of KIND's pool the allocator shares among its jobs (default: half "
                 "the pool, so that any one change finds room for its new region)",
                 cmd_capacity)

static int cmd_period(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t ms;
	if (isw_arg_count(c, argc, 1, 1) < 0 ||
	    isw_arg_u32(c, argv[0], "period", 0, 3600000, &ms) < 0)
		return -EINVAL;
	period_ms = ms;
	return 0;
}
ISW_CMD_REGISTER(alloc_period, "alloc period", "MS",
                 "plan again every MS milliseconds as well as at every arrival, departure and "
                 "update (0: only then; default 1000)",
                 cmd_period)

static int cmd_margin(struct isw_cmd_ctx *c, int argc, char **argv)
{
	double pct = 0;
	if (isw_arg_count(c, argc, 1, 1) < 0 || arg_double(c, argv[0], "margin", 0, 90, &pct) < 0)
		return -EINVAL;
	margin = pct / 100;
	plan_all();
	return 0;
}
ISW_CMD_REGISTER(alloc_margin, "alloc margin", "PCT",
                 "plan each deadline job to finish PCT per cent of its time early (0..90; "
                 "default 10): room for what the model misses and for a change to take effect",
                 cmd_margin)

static const char *class_name(enum isw_alloc_class k)
{
	return k == ISW_ALLOC_ON_TIME ? "on-time" : k == ISW_ALLOC_LATE ? "late" : "best-effort";
}

static void job_json(struct isw_json *o, const struct job *j, double now)
{
	struct isw_alloc_tenant t;
	char err[128];
	bool have = j->kind->info(j->id, &t, err, sizeof(err)) == 0;
	isw_json_obj_open(o, NULL);
	isw_json_str_kv(o, "job", j->name);
	isw_json_str_kv(o, "kind", j->kind->name);
	isw_json_u64(o, "id", j->id);
	if (have) {
		isw_json_u64(o, "units", t.units);
		isw_json_u64(o, "first_unit", t.base);
		isw_json_bool(o, "changing", t.changing);
		isw_json_str_kv(o, "region", t.movable ? "moves" : t.why);
	} else {
		isw_json_null(o, "units");
		isw_json_null(o, "first_unit");
		isw_json_null(o, "changing");
		isw_json_str_kv(o, "region", err);
	}
	if (j->planned) {
		isw_json_u64(o, "planned", j->plan.units);
		isw_json_u64(o, "need", j->plan.need);
		isw_json_str_kv(o, "class", class_name(j->plan.cls));
		isw_json_dbl(o, "predicted_gbps", j->plan.thr * 8 / 1e9);
	} else {
		isw_json_null(o, "planned");
		isw_json_null(o, "need");
		isw_json_null(o, "class");
		isw_json_null(o, "predicted_gbps");
	}
	isw_json_dbl(o, "measured_gbps", j->measured * 8 / 1e9);
	isw_json_dbl(o, "rtt_us", j->rtt * 1e6);
	isw_json_dbl(o, "rtt_plan_us", rtt_plan(j, now) * 1e6);
	if (j->eff > 0)
		isw_json_dbl(o, "pace", j->eff);
	else
		isw_json_null(o, "pace");
	/* predicted from the region it has now, not the planned one */
	if (have && j->iters > 0) {
		struct isw_alloc_job a;
		job_model(j, &t, &a);
		double f = isw_alloc_finish(&a, t.units, now);
		if (isinf(f))
			isw_json_null(o, "finish_in_s");
		else
			isw_json_dbl(o, "finish_in_s", f - now);
	} else {
		isw_json_null(o, "finish_in_s");
	}
	if (j->deadline > 0)
		isw_json_dbl(o, "deadline_in_s", j->deadline - now);
	else
		isw_json_null(o, "deadline_in_s");
	isw_json_dbl(o, "done", j->done);
	isw_json_dbl(o, "iters", j->iters);
	isw_json_u64(o, "resizes", j->resizes);
	isw_json_str_kv(o, "last", j->last_rc == 0 ? "" : j->last_err);
	isw_json_obj_close(o);
}

static int cmd_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	double now = now_s();
	isw_json_str_kv(c->out, "policy", isw_alloc_policy_name(policy));
	isw_json_u64(c->out, "period_ms", period_ms);
	isw_json_dbl(c->out, "margin_pct", margin * 100);
	isw_json_arr_open(c->out, "kinds");
	for (unsigned k = 0; k < ISW_ALLOC_KINDS_MAX; k++) {
		if (kinds[k] == NULL)
			continue;
		isw_json_obj_open(c->out, NULL);
		isw_json_str_kv(c->out, "kind", kinds[k]->name);
		isw_json_u64(c->out, "capacity", capacity[k]);
		isw_json_u64(c->out, "pool", kinds[k]->pool_units);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	isw_json_arr_open(c->out, "jobs");
	for (unsigned i = 0; i < JOBS_MAX; i++)
		if (jobs[i].used)
			job_json(c->out, &jobs[i], now);
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(alloc_show, "alloc show", "",
                 "the policy and every job: its region, the plan's size, need and class, its "
                 "predicted and measured throughput, its predicted finish against its deadline",
                 cmd_show)

static int cmd_plan(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	plan_all();
	return cmd_show(c, argc, argv);
}
ISW_CMD_REGISTER(alloc_plan, "alloc plan", "", "plan now and show the plan", cmd_plan)
