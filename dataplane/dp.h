/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Global dataplane state, configuration publication by RCU, and the pause handshake the control
 * plane uses for the rare operations that must not race with packets (register writes).
 *
 * Configuration objects reachable by workers are immutable once published: the control thread
 * builds a new one, publishes it with isw_rcu_publish(), which waits until no worker can still
 * hold the old one, and then frees the old one.
 */
#ifndef ISW_DP_H
#define ISW_DP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_rcu_qsbr.h>

#include "isw_limits.h"
#include "shaper.h"
#include "stats.h"

struct isw_worker;
struct rte_mempool;

/* Per-port fault injection, per direction. Probabilities are fractions of 2^32. */
struct isw_fault_cfg {
	bool on;
	uint64_t drop;
	uint64_t dup;
	uint64_t reorder;
	uint16_t depth; /* a reordered packet waits behind this many others */
};

/* Per-port settings the workers read; published as a whole by RCU. */
struct isw_port_conf {
	uint64_t seed;
	uint32_t gen; /* bumped on every publication; workers reseed when it changes */
	struct isw_fault_cfg fault[ISW_MAX_PORTS][2];
	struct isw_shape_cfg shape[ISW_MAX_PORTS];
};

struct isw_dp {
	uint16_t nb_ports;
	uint16_t nb_workers;
	uint16_t burst;
	bool running; /* workers launched */
	volatile bool quit;
	uint64_t idle_exit_tsc;  /* 0 = never; else quit after this long without traffic */
	uint64_t idle_sleep_tsc; /* --idle-sleep-us: 0 = poll always; else the longest nap */
	bool replay_ordered;     /* --replay-ordered: one frame at a time, in capture order */
	struct rte_mempool *pool;
	struct rte_rcu_qsbr *rcu;
	struct isw_worker *workers[ISW_MAX_WORKERS];
	uint16_t shard_owner[ISW_SHARD_SLOTS];
	struct isw_port_conf *pconf; /* RCU */
	uint32_t pause_req;          /* generation asked by the control thread */
	uint32_t paused[ISW_MAX_WORKERS];
	struct isw_stats baseline;
	struct isw_worker_base {
		uint64_t polls, busy_polls, handoff_out, handoff_in, backpressure;
		uint64_t naps, tsc_nap;
		uint64_t tsc_loop, tsc_busy, tsc_rx, tsc_tx;
		uint64_t run_ns, wait_ns; /* isw_worker_sched() at the reset */
	} worker_base[ISW_MAX_WORKERS];
	uint64_t baseline_tsc;
	/* How long start-up took (main.c): from the process's start to main, EAL set-up, the
	 * ports, the pipelines and config file, and in all, up to answering on the control socket.
	 */
	struct {
		double exec_s, eal_s, ports_s, config_s, total_s;
	} startup;
};

extern struct isw_dp isw_dp;

/*
 * Replaces *slot with obj, waits until every worker has passed a quiescent state, then calls
 * free_old on the previous value (if any). Control thread only.
 */
void isw_rcu_publish(void **slot, void *obj, void (*free_old)(void *));

/* Acquire-load of an RCU-published pointer, for workers. */
#define ISW_RCU_LOAD(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)

/* Seconds isw_dp_pause() waits for a worker: generous, for a VM whose CPUs are oversubscribed. */
#define ISW_PAUSE_TIMEOUT_S 5

/*
 * Parks every running worker at a safe point between bursts; returns 0 once all are parked, or
 * -ETIMEDOUT (and resumes them) if one does not answer within ISW_PAUSE_TIMEOUT_S. Spins for the
 * first 100 us, then sleeps between checks. No-op before launch.
 */
int isw_dp_pause(void);
void isw_dp_resume(void);

/* Milliseconds on the clock the workers' now_ms follows (TSC based, wrapping at 2^32). */
uint32_t isw_clock_ms(void);

/* Worker side of the handshake: called between bursts. */
void isw_dp_park(struct isw_worker *w);

/* Maps shard slots to workers round-robin; called once the worker count is known. Owners never
 * move while the workers run: ATP's job check relies on it (pipelines/atp/atp.h). */
void isw_dp_shard_init(void);

/* Publishes the initial port settings (no faults, seed 0); once, before ports start. */
int isw_port_conf_init(void);

/* The port settings as last published (control thread). */
const struct isw_port_conf *isw_port_conf_get(void);
/* Publishes a modified copy: fn edits the copy; returns fn's result (<0 = nothing published). */
int isw_port_conf_update(int (*fn)(struct isw_port_conf *c, void *arg), void *arg);

#endif
