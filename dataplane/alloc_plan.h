/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The aggregator-memory planner (docs/memory.md): given a pool of units and the jobs that share
 * it, how many units each job gets and where, under one of three policies. INAlloc's model of a
 * job: an iteration takes t_comp of compute and model_bytes / throughput of communication, and a
 * job given u units of u x unit_bytes bytes in flight per round trip reaches
 *
 *     throughput(u) = min(u x unit_bytes / rtt, peak)
 *
 * so u_peak = ceil(peak x rtt / unit_bytes) units buy everything memory can buy.
 *
 *   static  the pool split equally among the jobs (what a fixed partition does)
 *   fcfs    in order of arrival, each job takes its peak need or what is left
 *   edf     deadline jobs by deadline, each given the units its deadline needs (capped at its
 *           peak need) while they last; the rest shared equally by the best-effort jobs and the
 *           deadline jobs that cannot be met, each capped at its peak need; what is still left
 *           goes to every job up to its peak need
 *
 * Pure computation: no I/O, no allocation, no DPDK; the switch's allocator (alloc.c) and the
 * trace-driven simulator (bench/alloc-sim.c) both plan with it, so what is simulated is what runs.
 */
#ifndef ISW_ALLOC_PLAN_H
#define ISW_ALLOC_PLAN_H

#include <stdbool.h>
#include <stdint.h>

enum isw_alloc_policy {
	ISW_ALLOC_STATIC,
	ISW_ALLOC_FCFS,
	ISW_ALLOC_EDF,
};

/* What the plan made of a job. */
enum isw_alloc_class {
	ISW_ALLOC_BEST_EFFORT, /* no deadline */
	ISW_ALLOC_ON_TIME,     /* a deadline the plan meets */
	ISW_ALLOC_LATE,        /* a deadline no plan can meet now: shares with best effort */
};

struct isw_alloc_job {
	/* inputs: the job as registered and updated */
	uint32_t id;
	double arrival;     /* s: the order for fcfs and for ties */
	double model_bytes; /* bytes one worker aggregates per iteration */
	double t_comp;      /* s of compute per iteration */
	double iters;       /* iterations left */
	double rtt;         /* s: a packet's round trip through the switch */
	double peak;        /* bytes/s: the job's throughput with all the memory it can use */
	double unit_bytes;  /* bytes one unit keeps in flight per round trip */
	double deadline;    /* absolute s; 0 for a best-effort job */
	uint32_t min_units; /* fewer than this and the job cannot run (0 taken as 1) */
	uint32_t fixed;     /* a region that cannot move (a client that cannot follow a change):
	                     * its size, at base; 0 for a movable job */
	uint32_t base;      /* in: the job's current base (fixed or movable); out: the new one */
	uint32_t units;     /* in: current size (0: none yet); out: the plan's */

	/* outputs */
	enum isw_alloc_class cls;
	uint32_t need; /* units: the deadline's need (edf, deadline jobs), else the peak need */
	double thr;    /* bytes/s predicted at the plan's units */
	double finish; /* predicted completion, absolute s (INFINITY when the job gets nothing) */
};

/* Predicted throughput of job j with u units, bytes/s. */
double isw_alloc_thr(const struct isw_alloc_job *j, uint32_t u);

/* Units beyond which j gains nothing: ceil(peak x rtt / unit_bytes), at least min_units. */
uint32_t isw_alloc_peak_units(const struct isw_alloc_job *j);

/* Units j needs to finish by its deadline from now, or 0 when no number of units can. */
uint32_t isw_alloc_deadline_units(const struct isw_alloc_job *j, double now);

/* Predicted completion of j with u units from now, absolute s (INFINITY when u gives nothing). */
double isw_alloc_finish(const struct isw_alloc_job *j, uint32_t u, double now);

/*
 * Plans n jobs on a pool of pool_units under policy at time now: sets every job's units, base,
 * cls, need, thr and finish. Fixed jobs keep their region; a movable job keeps its base when its
 * new region fits there, else takes the first free range. Returns 0, -EINVAL (bad arguments, a
 * fixed region outside the pool or overlapping another) or -ENOSPC (free memory too fragmented
 * for a planned size: that job got the largest free range instead).
 */
int isw_alloc_plan(struct isw_alloc_job *jobs, unsigned n, uint32_t pool_units,
                   enum isw_alloc_policy policy, double now);

/* "static", "fcfs", "edf"; and back (-1 for an unknown name). */
const char *isw_alloc_policy_name(enum isw_alloc_policy p);
int isw_alloc_policy_parse(const char *s);

#endif
