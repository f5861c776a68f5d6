/* SPDX-License-Identifier: BSD-3-Clause */
/* The aggregator-memory planner: sizes by policy, then places (alloc_plan.h, docs/memory.md). */

#include <errno.h>
#include <math.h>
#include <string.h>

#include "alloc_plan.h"

#define JOBS_MAX 1024 /* a bound for the index arrays on the stack */

static uint32_t min_units(const struct isw_alloc_job *j)
{
	return j->min_units ? j->min_units : 1;
}

double isw_alloc_thr(const struct isw_alloc_job *j, uint32_t u)
{
	if (u == 0 || u < min_units(j) || j->rtt <= 0)
		return 0;
	double t = (double)u * j->unit_bytes / j->rtt;
	return t < j->peak ? t : j->peak;
}

uint32_t isw_alloc_peak_units(const struct isw_alloc_job *j)
{
	double u = j->unit_bytes > 0 ? ceil(j->peak * j->rtt / j->unit_bytes) : 0;
	if (u > UINT32_MAX)
		u = UINT32_MAX;
	return u < min_units(j) ? min_units(j) : (uint32_t)u;
}

double isw_alloc_finish(const struct isw_alloc_job *j, uint32_t u, double now)
{
	if (j->iters <= 0)
		return now;
	double thr = isw_alloc_thr(j, u);
	if (thr <= 0)
		return INFINITY;
	return now + j->iters * (j->t_comp + j->model_bytes / thr);
}

uint32_t isw_alloc_deadline_units(const struct isw_alloc_job *j, double now)
{
	if (j->iters <= 0)
		return min_units(j);
	/* iters x (t_comp + model_bytes / thr) <= deadline - now */
	double per_iter = (j->deadline - now) / j->iters - j->t_comp;
	if (per_iter <= 0)
		return 0;
	double thr = j->model_bytes / per_iter;
	if (thr > j->peak)
		return 0;
	double u = ceil(thr * j->rtt / j->unit_bytes);
	uint32_t peak = isw_alloc_peak_units(j);
	if (u > peak)
		return 0;
	if (u < min_units(j))
		u = min_units(j);
	/* the rounding of thr x rtt / unit_bytes must not leave it a hair short (a few units at
	 * most: past the peak units more buys nothing) */
	while (u <= peak && isw_alloc_finish(j, (uint32_t)u, now) > j->deadline)
		u++;
	return u > peak ? 0 : (uint32_t)u;
}

/* Insertion sort of idx[0..k) by key (stable: ties keep the order given). */
static void sort_idx(unsigned *idx, unsigned k, const struct isw_alloc_job *jobs,
                     double (*key)(const struct isw_alloc_job *))
{
	for (unsigned a = 1; a < k; a++) {
		unsigned v = idx[a], b = a;
		while (b > 0 && key(&jobs[idx[b - 1]]) > key(&jobs[v])) {
			idx[b] = idx[b - 1];
			b--;
		}
		idx[b] = v;
	}
}

static double by_arrival(const struct isw_alloc_job *j)
{
	return j->arrival;
}

static double by_deadline(const struct isw_alloc_job *j)
{
	return j->deadline;
}

/*
 * Shares *avail among the jobs idx[0..k) (in arrival order): each admitted job first gets its
 * min_units, in order, while they last (the others get nothing); then equal shares on top,
 * water-filled so that no job passes cap[] (its peak need). Adds to units[].
 */
static void fill(const struct isw_alloc_job *jobs, const unsigned *idx, unsigned k, uint32_t *units,
                 const uint32_t *cap, uint64_t *avail)
{
	unsigned act[JOBS_MAX], na = 0;
	for (unsigned a = 0; a < k; a++) {
		unsigned i = idx[a];
		if (units[i] >= cap[i])
			continue;
		if (units[i] == 0) {
			if (min_units(&jobs[i]) > *avail)
				continue;
			units[i] = min_units(&jobs[i]) < cap[i] ? min_units(&jobs[i]) : cap[i];
			*avail -= units[i];
		}
		if (units[i] < cap[i])
			act[na++] = i;
	}
	while (na > 0 && *avail > 0) {
		uint64_t share = *avail / na;
		unsigned keep = 0;
		bool capped = false;
		/* those that reach their cap with this share take only the cap: a round again */
		for (unsigned a = 0; a < na; a++) {
			unsigned i = act[a];
			if (cap[i] - units[i] <= share) {
				*avail -= cap[i] - units[i];
				units[i] = cap[i];
				capped = true;
			} else {
				act[keep++] = i;
			}
		}
		na = keep;
		if (capped)
			continue;
		for (unsigned a = 0; a < na; a++)
			units[act[a]] += (uint32_t)share;
		*avail -= share * na;
		/* the remainder, a unit each in order */
		for (unsigned a = 0; a<na && * avail> 0; a++) {
			units[act[a]]++;
			(*avail)--;
		}
		break;
	}
}

static void size_static(struct isw_alloc_job *jobs, const unsigned *idx, unsigned k,
                        uint32_t *units, uint64_t avail)
{
	uint32_t cap[JOBS_MAX] = {0};
	for (unsigned a = 0; a < k; a++)
		cap[idx[a]] = UINT32_MAX;
	fill(jobs, idx, k, units, cap, &avail);
}

static void size_fcfs(struct isw_alloc_job *jobs, const unsigned *idx, unsigned k, uint32_t *units,
                      uint64_t avail)
{
	for (unsigned a = 0; a < k; a++) {
		unsigned i = idx[a];
		uint64_t want = jobs[i].need;
		if (want > avail)
			want = avail;
		if (want >= min_units(&jobs[i])) {
			units[i] = (uint32_t)want;
			avail -= want;
		}
	}
}

/*
 * The units an on-time deadline job is given for its need, from the region it has (had; 0:
 * none yet). Its need moves with every report and every plan (time passing between two
 * reports of progress raises it a little), and each change costs the job a drain: a region
 * up to a quarter past the need stays as it is, and a region that must grow grows an eighth
 * past the need, so that the drift of the next plans is covered. A first region is the need.
 */
static uint32_t edf_band(uint32_t need, uint32_t had)
{
	if (had >= need && had - need <= need / 4)
		return had;
	if (had > 0 && had < need)
		return need + need / 8;
	return need;
}

static void size_edf(struct isw_alloc_job *jobs, const unsigned *idx, unsigned k, uint32_t *units,
                     uint64_t avail, double now)
{
	unsigned dl[JOBS_MAX] = {0}, nd = 0, rest[JOBS_MAX] = {0}, nr = 0, all[JOBS_MAX] = {0};
	uint32_t cap[JOBS_MAX] = {0};
	for (unsigned a = 0; a < k; a++) {
		unsigned i = idx[a];
		cap[i] = isw_alloc_peak_units(&jobs[i]);
		all[a] = i;
		if (jobs[i].deadline > 0)
			dl[nd++] = i;
	}
	sort_idx(dl, nd, jobs, by_deadline);
	for (unsigned a = 0; a < nd; a++) {
		struct isw_alloc_job *j = &jobs[dl[a]];
		uint32_t need = isw_alloc_deadline_units(j, now);
		if (need != 0 && need <= cap[dl[a]] && need <= avail) {
			j->need = need;
			j->cls = ISW_ALLOC_ON_TIME;
			uint32_t u = edf_band(need, j->units);
			if (u > cap[dl[a]])
				u = cap[dl[a]];
			if (u > avail)
				u = (uint32_t)avail;
			units[dl[a]] = u;
			avail -= u;
		} else {
			j->cls = ISW_ALLOC_LATE;
		}
	}
	for (unsigned a = 0; a < k; a++)
		if (jobs[idx[a]].cls != ISW_ALLOC_ON_TIME)
			rest[nr++] = idx[a];
	fill(jobs, rest, nr, units, cap, &avail);
	/* what is still left makes every job faster, up to its peak need */
	fill(jobs, all, k, units, cap, &avail);
}

/* Reserved ranges, kept sorted by base. */
struct ranges {
	unsigned n;
	uint32_t base[JOBS_MAX], len[JOBS_MAX];
};

static bool ranges_free(const struct ranges *r, uint32_t base, uint32_t len, uint32_t pool)
{
	if ((uint64_t)base + len > pool)
		return false;
	for (unsigned a = 0; a < r->n; a++)
		if (base < r->base[a] + r->len[a] && r->base[a] < base + len)
			return false;
	return true;
}

static void ranges_add(struct ranges *r, uint32_t base, uint32_t len)
{
	unsigned a = r->n++;
	while (a > 0 && r->base[a - 1] > base) {
		r->base[a] = r->base[a - 1];
		r->len[a] = r->len[a - 1];
		a--;
	}
	r->base[a] = base;
	r->len[a] = len;
}

/* First free range of len (its base in *base), or the largest free range when none is. */
static uint32_t ranges_first_fit(const struct ranges *r, uint32_t len, uint32_t pool,
                                 uint32_t *base)
{
	uint32_t at = 0, best = 0, best_at = 0;
	for (unsigned a = 0; a <= r->n; a++) {
		uint32_t end = a < r->n ? r->base[a] : pool;
		uint32_t gap = end > at ? end - at : 0;
		if (gap >= len) {
			*base = at;
			return len;
		}
		if (gap > best) {
			best = gap;
			best_at = at;
		}
		if (a < r->n && r->base[a] + r->len[a] > at)
			at = r->base[a] + r->len[a];
	}
	*base = best_at;
	return best;
}

/* How place_once packs the jobs that do not stay where they are. */
enum pack {
	PACK_KEEP,    /* a job keeps its base when its new size fits there; the rest first fit */
	PACK_SLIDE,   /* every movable job first fit in the order of its base, new jobs last */
	PACK_LARGEST, /* every movable job first fit, largest first: the packing that fails least */
};

/* Sorts idx[0..k) by key[] (ascending; stable). */
static void sort_by(unsigned *idx, unsigned k, const uint64_t *key)
{
	for (unsigned a = 1; a < k; a++) {
		unsigned v = idx[a], b = a;
		for (; b > 0 && key[idx[b - 1]] > key[v]; b--)
			idx[b] = idx[b - 1];
		idx[b] = v;
	}
}

/*
 * Places the planned sizes: fixed regions where they are, the others as pack says. Returns
 * -ENOSPC when a size found no range (that job then holds the largest free one, possibly none).
 */
static int place_once(struct isw_alloc_job *jobs, unsigned n, const uint32_t *units, uint32_t pool,
                      enum pack pack)
{
	struct ranges r = {0};
	unsigned moving[JOBS_MAX] = {0}, nm = 0;
	uint64_t key[JOBS_MAX] = {0};
	int rc = 0;
	for (unsigned i = 0; i < n; i++)
		if (jobs[i].fixed)
			ranges_add(&r, jobs[i].base, jobs[i].fixed);
	for (unsigned i = 0; i < n; i++) {
		struct isw_alloc_job *j = &jobs[i];
		if (j->fixed)
			continue;
		if (units[i] == 0) {
			j->units = 0;
			j->base = 0;
		} else if (pack == PACK_KEEP && j->units > 0 &&
		           ranges_free(&r, j->base, units[i], pool)) {
			j->units = units[i];
			ranges_add(&r, j->base, j->units);
		} else {
			key[i] = pack == PACK_LARGEST ? UINT32_MAX - units[i]
			         : j->units > 0       ? j->base
			                              : (uint64_t)UINT32_MAX + i;
			moving[nm++] = i;
		}
	}
	if (pack != PACK_KEEP)
		sort_by(moving, nm, key);
	for (unsigned a = 0; a < nm; a++) {
		struct isw_alloc_job *j = &jobs[moving[a]];
		j->units = ranges_first_fit(&r, units[moving[a]], pool, &j->base);
		if (j->units < units[moving[a]])
			rc = -ENOSPC;
		if (j->units > 0)
			ranges_add(&r, j->base, j->units);
		else
			j->base = 0;
	}
	return rc;
}

/*
 * Places with as few moves as it can (a move costs the job a drain): in place where the new
 * sizes fit, else slid toward the start in their order, else packed anew.
 */
static int place(struct isw_alloc_job *jobs, unsigned n, const uint32_t *units, uint32_t pool)
{
	uint32_t base[JOBS_MAX] = {0}, had[JOBS_MAX] = {0};
	int rc = 0;
	for (unsigned i = 0; i < n; i++) {
		base[i] = jobs[i].base;
		had[i] = jobs[i].units;
	}
	for (enum pack p = PACK_KEEP; p <= PACK_LARGEST; p++) {
		for (unsigned i = 0; i < n; i++) {
			jobs[i].base = base[i];
			jobs[i].units = had[i];
		}
		rc = place_once(jobs, n, units, pool, p);
		if (rc == 0)
			break;
	}
	return rc;
}

static int check_fixed(const struct isw_alloc_job *jobs, unsigned n, uint32_t pool,
                       uint64_t *fixed_sum)
{
	struct ranges r = {0};
	*fixed_sum = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!jobs[i].fixed)
			continue;
		if (!ranges_free(&r, jobs[i].base, jobs[i].fixed, pool))
			return -EINVAL;
		ranges_add(&r, jobs[i].base, jobs[i].fixed);
		*fixed_sum += jobs[i].fixed;
	}
	return 0;
}

int isw_alloc_plan(struct isw_alloc_job *jobs, unsigned n, uint32_t pool_units,
                   enum isw_alloc_policy policy, double now)
{
	unsigned idx[JOBS_MAX] = {0}, k = 0;
	uint32_t units[JOBS_MAX] = {0};
	uint64_t fixed_sum;
	if (n > JOBS_MAX || (n > 0 && jobs == NULL))
		return -EINVAL;
	int rc = check_fixed(jobs, n, pool_units, &fixed_sum);
	if (rc != 0)
		return rc;
	for (unsigned i = 0; i < n; i++) {
		struct isw_alloc_job *j = &jobs[i];
		if (!(j->rtt > 0 && j->unit_bytes > 0 && j->peak > 0 && j->iters >= 0 &&
		      j->model_bytes >= 0 && j->t_comp >= 0))
			return -EINVAL;
		j->cls = j->deadline > 0 ? ISW_ALLOC_ON_TIME : ISW_ALLOC_BEST_EFFORT;
		j->need = isw_alloc_peak_units(j);
		units[i] = j->fixed;
		if (!j->fixed)
			idx[k++] = i;
	}
	sort_idx(idx, k, jobs, by_arrival);
	uint64_t avail = pool_units - fixed_sum;
	switch (policy) {
	case ISW_ALLOC_STATIC:
		size_static(jobs, idx, k, units, avail);
		break;
	case ISW_ALLOC_FCFS:
		size_fcfs(jobs, idx, k, units, avail);
		break;
	case ISW_ALLOC_EDF:
		size_edf(jobs, idx, k, units, avail, now);
		break;
	default:
		return -EINVAL;
	}
	rc = place(jobs, n, units, pool_units);
	for (unsigned i = 0; i < n; i++) {
		struct isw_alloc_job *j = &jobs[i];
		j->thr = isw_alloc_thr(j, j->units);
		j->finish = isw_alloc_finish(j, j->units, now);
		if (j->deadline <= 0)
			continue;
		/* static and fcfs know no deadlines, nor does a fixed region: say what the plan
		 * does for one, and what the deadline needs */
		if (policy != ISW_ALLOC_EDF || j->fixed)
			j->cls = j->finish <= j->deadline ? ISW_ALLOC_ON_TIME : ISW_ALLOC_LATE;
		j->need = isw_alloc_deadline_units(j, now);
	}
	return rc;
}

static const char *const policy_names[] = {
        [ISW_ALLOC_STATIC] = "static",
        [ISW_ALLOC_FCFS] = "fcfs",
        [ISW_ALLOC_EDF] = "edf",
};

const char *isw_alloc_policy_name(enum isw_alloc_policy p)
{
	return (unsigned)p < sizeof(policy_names) / sizeof(policy_names[0]) ? policy_names[p] : "?";
}

int isw_alloc_policy_parse(const char *s)
{
	for (unsigned p = 0; p < sizeof(policy_names) / sizeof(policy_names[0]); p++)
		if (strcmp(s, policy_names[p]) == 0)
			return (int)p;
	return -1;
}
