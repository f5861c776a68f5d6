/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alloc-sim: a trace-driven simulation of jobs sharing a switch's aggregator memory under the
 * three policies of dataplane/alloc_plan.c (docs/memory.md), planned by that very code.
 *
 * Jobs arrive as a Poisson process; each trains one of the networks below for a number of
 * iterations; a share of them carry a deadline, a slack times their time alone on the switch.
 * The planner sees INAlloc's model (throughput = min(units x unit_bytes / rtt, peak)), fitted to
 * the measured curve; the jobs progress at the measured curve's throughput for the units they
 * hold (linear between its points, flat past its end). It re-plans on every arrival and
 * departure and every --period s. A region change is taken as free (it costs a job W packets'
 * wait, microseconds against iterations of tens of milliseconds).
 *
 * Prints, per load level and policy: jobs, average job completion time (JCT), deadline jobs and
 * the share that met their deadline, averaged over --seeds traces (the same traces for every
 * policy). A benchmark: it prints.
 *
 * usage: alloc-sim --curve FILE [--jobs N] [--seeds S] [--pool P] [--deadline-share F]
 *                  [--loads L1,L2,...] [--link-gbps G] [--period S]
 * FILE: lines "units goodput_gbps" (# comments), units ascending: one job's measured goodput
 * with that many units (bench/alloc-curve.sh). --pool: the pool in units of the peak need
 * (default 4: four jobs at full speed). --link-gbps: the goodput the curve's best point stands
 * for (default 90: a 100 GbE worker link); only the curve's shape is taken from this machine.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_plan.h"

#define CURVE_MAX    64
#define SIM_JOBS_MAX 1024

/* Networks of the trace: parameters (fp32 gradients) and an assumed compute time per iteration
 * on one GPU (the figures papers quote for a V100-class GPU at common batch sizes). */
static const struct net {
	const char *name;
	double params;
	double t_comp;
} nets[] = {
        {"ResNet-50", 25.6e6, 0.12}, {"ResNet-152", 60.2e6, 0.30}, {"VGG-16", 138.4e6, 0.20},
        {"AlexNet", 61.1e6, 0.05},   {"BERT-large", 340e6, 0.40},  {"Transformer", 213e6, 0.25},
};
#define NETS (sizeof(nets) / sizeof(nets[0]))

static double curve_u[CURVE_MAX], curve_g[CURVE_MAX];
static unsigned curve_n;

static int curve_load(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];
	if (f == NULL) {
		fprintf(stderr, "alloc-sim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		double u, g;
		if (line[0] == '#' || sscanf(line, "%lf %lf", &u, &g) != 2)
			continue;
		if (curve_n == CURVE_MAX || u <= 0 || g <= 0 ||
		    (curve_n > 0 && u <= curve_u[curve_n - 1])) {
			fprintf(stderr, "alloc-sim: %s: a point '%s' out of order or range\n", path,
			        line);
			fclose(f);
			return -1;
		}
		curve_u[curve_n] = u;
		curve_g[curve_n++] = g;
	}
	fclose(f);
	if (curve_n < 2) {
		fprintf(stderr, "alloc-sim: %s: fewer than two points\n", path);
		return -1;
	}
	return 0;
}

/* The measured curve's share of the best goodput at u units (linear between points, 0 below
 * the first point's units scaled down, flat past the last). */
static double curve_at(double u)
{
	double best = 0;
	for (unsigned i = 0; i < curve_n; i++)
		best = curve_g[i] > best ? curve_g[i] : best;
	if (u <= 0)
		return 0;
	if (u <= curve_u[0])
		return curve_g[0] * u / curve_u[0] / best;
	for (unsigned i = 1; i < curve_n; i++)
		if (u <= curve_u[i])
			return (curve_g[i - 1] + (curve_g[i] - curve_g[i - 1]) *
			                                 (u - curve_u[i - 1]) /
			                                 (curve_u[i] - curve_u[i - 1])) /
			       best;
	return curve_g[curve_n - 1] / best;
}

/* The model's fit: the units past which the curve gains less than 3 %, the peak need. */
static double curve_knee(void)
{
	for (unsigned i = 0; i < curve_n; i++)
		if (curve_at(curve_u[i]) >= 0.97)
			return curve_u[i];
	return curve_u[curve_n - 1];
}

struct sim_job {
	struct isw_alloc_job a;
	double arrival, deadline, done_at;
};

static double rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (double)(*s >> 11) / 9007199254740992.0;
}

struct result {
	double jct_sum;
	unsigned jobs, dl_jobs, dl_met;
};

/*
 * One trace under one policy. lambda: arrivals a second; knee: units of the peak need;
 * peak: bytes/s at the curve's best point.
 */
static void simulate(uint64_t seed, unsigned njobs, double lambda, double dl_share, uint32_t pool,
                     double knee, double peak, double period, enum isw_alloc_policy pol,
                     struct result *res)
{
	static struct sim_job js[SIM_JOBS_MAX];
	static struct isw_alloc_job act[SIM_JOBS_MAX];
	unsigned map[SIM_JOBS_MAX];
	double t = 0;
	/* the trace: the same for every policy, drawn from the seed alone */
	for (unsigned i = 0; i < njobs; i++) {
		const struct net *n = &nets[(unsigned)(rnd(&seed) * NETS) % NETS];
		struct sim_job *j = &js[i];
		memset(j, 0, sizeof(*j));
		t += -log(1 - rnd(&seed)) / lambda;
		j->arrival = t;
		j->a.id = i;
		j->a.arrival = t;
		j->a.model_bytes = n->params * 4;
		j->a.t_comp = n->t_comp;
		j->a.iters = floor(200 + rnd(&seed) * 1800);
		j->a.peak = peak;
		j->a.rtt = 1; /* the model in units of the knee: unit_bytes / rtt = peak / knee */
		j->a.unit_bytes = peak / knee;
		j->a.min_units = 1;
		double alone = j->a.iters * (j->a.t_comp + j->a.model_bytes / peak);
		double slack = 1.2 + rnd(&seed) * 1.3;
		j->deadline = rnd(&seed) < dl_share ? t + slack * alone : 0;
		j->a.deadline = j->deadline;
		j->done_at = -1;
	}
	memset(res, 0, sizeof(*res));
	unsigned next = 0, live = 0;
	double now = 0, next_plan = 0;
	while (next < njobs || live > 0) {
		/* plan the live jobs */
		unsigned k = 0;
		for (unsigned i = 0; i < next; i++)
			if (js[i].done_at < 0) {
				act[k] = js[i].a;
				map[k++] = i;
			}
		if (k > 0 && isw_alloc_plan(act, k, pool, pol, now) < 0 && k > 0)
			fprintf(stderr, "alloc-sim: plan refused at %.1f s\n", now);
		for (unsigned a = 0; a < k; a++) {
			js[map[a]].a.units = act[a].units;
			js[map[a]].a.base = act[a].base;
		}
		next_plan = now + period;
		/* the next event: an arrival, a completion or the periodic re-plan */
		double until = next < njobs ? js[next].arrival : INFINITY;
		until = next_plan < until ? next_plan : until;
		double rate[SIM_JOBS_MAX];
		for (unsigned a = 0; a < k; a++) {
			struct isw_alloc_job *j = &js[map[a]].a;
			double thr = peak * curve_at(j->units * curve_knee() / knee);
			rate[a] = thr > 0 ? 1 / (j->t_comp + j->model_bytes / thr) : 0;
			if (rate[a] > 0 && now + j->iters / rate[a] < until)
				until = now + j->iters / rate[a];
		}
		double dt = until - now;
		for (unsigned a = 0; a < k; a++) {
			struct sim_job *j = &js[map[a]];
			j->a.iters -= rate[a] * dt;
			if (j->a.iters <= 1e-9) {
				j->a.iters = 0;
				j->done_at = until;
				j->a.units = 0;
				live--;
				res->jobs++;
				res->jct_sum += until - j->arrival;
				if (j->deadline > 0) {
					res->dl_jobs++;
					res->dl_met += until <= j->deadline + 1e-9;
				}
			}
		}
		now = until;
		while (next < njobs && js[next].arrival <= now) {
			next++;
			live++;
		}
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: alloc-sim --curve FILE [--jobs N] [--seeds S] [--pool P] "
	                "[--deadline-share F] [--loads L1,L2,...] [--link-gbps G] [--period S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *curve = NULL, *loads = "0.5,1,1.5,2,3,4";
	unsigned njobs = 300, seeds = 5;
	double pool_knees = 4, dl_share = 0.5, gbps = 90, period = 10;
	static const struct option opts[] = {
	        {"curve", required_argument, NULL, 'c'},
	        {"jobs", required_argument, NULL, 'j'},
	        {"seeds", required_argument, NULL, 's'},
	        {"pool", required_argument, NULL, 'p'},
	        {"deadline-share", required_argument, NULL, 'd'},
	        {"loads", required_argument, NULL, 'l'},
	        {"link-gbps", required_argument, NULL, 'g'},
	        {"period", required_argument, NULL, 'P'},
	        {NULL, 0, NULL, 0},
	};
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			curve = optarg;
			break;
		case 'j':
			njobs = (unsigned)atoi(optarg);
			break;
		case 's':
			seeds = (unsigned)atoi(optarg);
			break;
		case 'p':
			pool_knees = atof(optarg);
			break;
		case 'd':
			dl_share = atof(optarg);
			break;
		case 'l':
			loads = optarg;
			break;
		case 'g':
			gbps = atof(optarg);
			break;
		case 'P':
			period = atof(optarg);
			break;
		default:
			usage();
		}
	}
	if (curve == NULL || njobs == 0 || njobs > SIM_JOBS_MAX || seeds == 0 || pool_knees <= 0 ||
	    dl_share < 0 || dl_share > 1 || gbps <= 0 || period <= 0)
		usage();
	if (curve_load(curve) != 0)
		return 1;
	double knee = curve_knee(), peak = gbps * 1e9 / 8;
	uint32_t pool = (uint32_t)(pool_knees * knee);
	/* the mean time alone of a job, for the load: lambda x E[alone] x knee / pool */
	double mean_alone = 0;
	for (unsigned i = 0; i < NETS; i++)
		mean_alone += 1100 * (nets[i].t_comp + nets[i].params * 4 / peak) / NETS;
	printf("# alloc-sim: curve %s (knee %.0f units), pool %u units (%.1f knees), %u jobs x %u "
	       "seeds, %.0f %% with deadlines, %.0f Gbit/s at the knee, re-plan every %.0f s\n",
	       curve, knee, pool, pool_knees, njobs, seeds, dl_share * 100, gbps, period);
	printf("load\tpolicy\tjobs\tavg_jct_s\tdeadline_jobs\tmet\tmet_share\n");
	char *list = strdup(loads);
	for (char *tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ",")) {
		double load = atof(tok);
		if (load <= 0)
			usage();
		double lambda = load * pool / knee / mean_alone;
		for (int pol = ISW_ALLOC_STATIC; pol <= ISW_ALLOC_EDF; pol++) {
			struct result sum = {0};
			for (unsigned s = 0; s < seeds; s++) {
				struct result r;
				simulate(0x9e3779b97f4a7c15ull * (s + 1), njobs, lambda, dl_share,
				         pool, knee, peak, period, (enum isw_alloc_policy)pol, &r);
				sum.jct_sum += r.jct_sum;
				sum.jobs += r.jobs;
				sum.dl_jobs += r.dl_jobs;
				sum.dl_met += r.dl_met;
			}
			printf("%g\t%s\t%u\t%.1f\t%u\t%u\t%.3f\n", load,
			       isw_alloc_policy_name((enum isw_alloc_policy)pol), sum.jobs,
			       sum.jct_sum / sum.jobs, sum.dl_jobs, sum.dl_met,
			       sum.dl_jobs ? (double)sum.dl_met / sum.dl_jobs : 1.0);
		}
	}
	free(list);
	return 0;
}
