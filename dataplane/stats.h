/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters. Each worker lcore owns one struct isw_stats and is its only writer (plain
 * increments, no atomics); readers (control thread, telemetry) sum them and may see a value a
 * few packets old. Reset never writes worker memory: it stores a baseline that readers subtract.
 */
#ifndef ISW_STATS_H
#define ISW_STATS_H

#include <stdint.h>

#include <rte_common.h>

#include "drop.h"
#include "isw_limits.h"

struct isw_port_stats {
	uint64_t rx_pkts;
	uint64_t rx_bytes;
	uint64_t tx_pkts;
	uint64_t tx_bytes;
	uint64_t drops;          /* every drop of a packet that entered on this port */
	uint64_t ecn_marked;     /* packets marked by this port's egress queue */
	uint64_t ecn_unmarkable; /* above the threshold but shared or without a mark */
	uint64_t queue_drops;    /* packets that found this port's egress queue full */
};

enum isw_dir { ISW_DIR_RX = 0, ISW_DIR_TX = 1 };

struct isw_fault_stats {
	uint64_t dropped;
	uint64_t duplicated;
	uint64_t reordered;
};

struct isw_pipeline_stats {
	uint64_t pkts;     /* packets the pipeline took (did not pass to the next one) */
	uint64_t consumed; /* absorbed with nothing sent, e.g. an aggregated contribution */
	uint64_t handoffs; /* handed to the lcore that owns their shard (isw_handoff) */
	uint64_t drops[ISW_DROP_MAX];
};

struct isw_stats {
	struct isw_port_stats port[ISW_MAX_PORTS];
	struct isw_fault_stats fault[ISW_MAX_PORTS][2];
	struct isw_pipeline_stats pipeline[ISW_MAX_PIPELINES];
	uint64_t handoff_out;  /* packets sent to another lcore's inbox */
	uint64_t handoff_in;   /* packets taken from this lcore's inbox */
	uint64_t backpressure; /* polls that skipped rx because a peer's inbox was nearly full */
	uint64_t replicas;     /* copies made by the replication engine */
	uint64_t polls;        /* loop iterations */
	uint64_t busy_polls;   /* iterations that received at least one packet */
	/* Where a worker's time goes (TSC cycles, in the sampled iterations: worker.h
	 * ISW_TIMED_MASK): every iteration; the iterations that moved packets; and within those,
	 * the driver's receive calls (empty ones included) and transmit calls. The rest of a busy
	 * iteration is the pipelines' own work. */
	uint64_t tsc_loop;
	uint64_t tsc_busy;
	uint64_t tsc_rx;
	uint64_t tsc_tx;
	uint64_t strict_multi_access;
	uint64_t strict_recirc_over;
	/* --idle-sleep-us: the naps an idle worker took, and their length (TSC cycles, as
	 * measured around the sleep: what the worker gave to other threads) */
	uint64_t naps;
	uint64_t tsc_nap;
} __rte_cache_aligned;

/* Sum of every worker's counters minus the baseline of the last reset. */
void isw_stats_sum(struct isw_stats *out);

/* Makes the current sums the new zero; control thread only. */
void isw_stats_reset(void);

/* Seconds since start-up or the last reset. */
double isw_stats_elapsed(void);

/* A worker thread's time on a CPU and waiting for one (ns since it started), from the kernel's
 * schedstat; -1, both 0, when it cannot be read (no /proc, the thread not started). */
struct isw_worker;
int isw_worker_sched(const struct isw_worker *w, uint64_t *run_ns, uint64_t *wait_ns);

struct isw_json;
/* Writes the counters as members of the open reply object (stats show, final report). */
void isw_stats_json(struct isw_json *j);

#endif
