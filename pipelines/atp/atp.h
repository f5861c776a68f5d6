/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ATP: multi-tenant aggregation with hash addressing by the hosts and parameter-server fallback
 * (docs/atp.md). Internal interface between the data path (atp_dp.c, worker lcores) and the
 * control side (atp_ctl.c, control thread): the configuration snapshot published by RCU, the
 * register arrays and the counters.
 */
#ifndef ISW_ATP_H
#define ISW_ATP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "asic.h"
#include "atp_proto.h"
#include "isw_limits.h"
#include "pre.h"

struct isw_worker;
struct rte_mbuf;

#define ATP_APPS_MAX     64    /* registered apps at once; index 1..64 */
#define ATP_POOL_DEFAULT 20000 /* the reference's MAX_AGTR_COUNT */
#define ATP_NO_PORT      (-1)
#define ATP_MC_BASE      (ISW_MC_RESERVED + 0x40) /* PRE group of app index i: base + i */

enum atp_reg {
	ATP_REG_OWNER,  /* pair: appID << 16 | seq of the holder (0 = free), when it claimed (ms) */
	ATP_REG_BITMAP, /* workers aggregated so far */
	ATP_REG_COUNT,  /* distinct contributors */
	ATP_REG_ECN,    /* sticky congestion mark of the aggregation */
	ATP_REG_TAG,    /* the low half of the holder's tensor key: which tensor's seq it is */
	ATP_REG_VALUES, /* 62 lanes */
	ATP_REG_NB,
};

struct atp_app {
	bool valid;
	uint8_t nworkers;
	uint16_t id;            /* appID */
	uint16_t group;         /* PRE group of the worker ports, for ACKs */
	uint32_t worker_ports;  /* bit p: a worker of the app is behind port p */
	int16_t ps[ATP_PS_MAX]; /* PS port per PSIndex, or ATP_NO_PORT */
	/* A level of a fabric (docs/fabric.md, atp app fabric): complete when the aggregator's
	 * bitmap covers these worker bits; 0: a single switch, complete at num_worker
	 * contributions */
	uint32_t mask;
	/* Its aggregators (docs/memory.md, ATP): gen 0, the shared range [0, pool) of every app
	 * that has no region; else its own [rbase, rbase + rsize), and, while the change that gave
	 * it runs, the old one [obase, obase + osize): claims there until claim_old is cleared
	 * (every worker moved, or the change's time ran out), then only releases (ACKs, resends)
	 * until none of the app's claims is left in it. Results carry the region (atp_note_put). */
	uint16_t gen;
	uint16_t rbase, obase;
	uint32_t rsize, osize; /* 0: none */
	bool claim_old;
};

#define ATP_LEASE_DEFAULT_MS 1000u

struct atp_conf {
	uint32_t pool;     /* aggregators in use: agtr < pool */
	uint32_t lease_ms; /* an aggregation older than this lapses (0 = never) */
	struct atp_app apps[ATP_APPS_MAX + 1]; /* index 0 unused */
	uint8_t index[65536];                  /* appID -> app index, 0 = none */
};

/*
 * Per lcore and app: the counters, and first the job this lcore adopted (docs/atp.md, Job
 * lifetime). The lcore compares the app's named job with its adopted copy on each frame it owns;
 * when they differ it adopts the named one, from now on (`since`, its now_ms): whatever the app
 * claimed on this lcore up to then belongs to an earlier job and has lapsed. Shard owners are fixed
 * at start (isw_dp_shard_init), so every claim of an aggregator is made by the one lcore that
 * adopts for it, on its own monotonic clock.
 */
struct atp_counters {
	uint64_t adopted;     /* the atp_jobs[].named this lcore adopted (0: none yet) */
	uint32_t since;       /* its now_ms when it adopted it */
	uint32_t jobs;        /* ANNOUNCEs that named another job (the app's current job changed) */
	uint64_t pkts;        /* frames of the app that reached the aggregator logic */
	uint64_t aggregated;  /* new contributions absorbed into an aggregator */
	uint64_t completions; /* complete aggregates forwarded to the PS */
	uint64_t dup_results; /* duplicates of a complete aggregator, forwarded again */
	uint64_t collisions;  /* aggregator held by another (app, seq): raw to the PS */
	uint64_t resends;     /* resend frames */
	uint64_t flushes;     /* ... that owned their aggregator and flushed it to the PS */
	uint64_t overflow;    /* float frames passed to the PS */
	uint64_t acks;        /* ACKs multicast to the workers */
	uint64_t freed;       /* ... that freed their aggregator */
	uint64_t lapsed;      /* claims that took over an aggregator whose lease had run out */
	uint64_t drops;       /* frames of the app dropped (any reason) */
	uint64_t joins;       /* JOIN frames (seq 0, worker to PS) passed to the PS */
	uint64_t announces;   /* ANNOUNCE frames (seq 0 ACK, PS to workers) multicast */
	/* apps with a region of their own (a third line, touched only by them) */
	uint64_t outside; /* frames for an aggregator outside the app's region: to the PS as
	                   * they are (or, ACKs, to the workers), no aggregator touched */
	uint64_t notes;   /* results and ANNOUNCEs that carried the region note */
	/* the tensor check (docs/atp.md): an aggregation of another tensor of the same (app, seq),
	 * a late frame's, taken over by a claim; or released by a resend and not flushed */
	uint64_t stale;
} __rte_cache_aligned;

/* The job check's fields share the first line with the hot counters; regions have a third. */
_Static_assert(sizeof(struct atp_counters) == 192, "atp_counters: three cache lines");

/* Per app: the workers (bitmap bits) seen claiming in the new region since the change was
 * asked for; written by the data path (an OR, once per worker), reset by the control thread. */
extern uint32_t atp_moved[ATP_APPS_MAX + 1];

/*
 * Per app: the job it runs now (docs/atp.md, Job lifetime), written by the lcore that passes an
 * ANNOUNCE or by the control thread, read by every lcore on every frame of the app.
 */
struct atp_job_name {
	uint64_t named; /* generation << 32 | job; the generation grows with every change */
	uint32_t at_ms; /* isw_clock_ms() when it was named */
	uint32_t pad;
};

/* The tensor of a frame within its job: the low half of its tensor key. */
static inline uint32_t atp_frame_tag(const uint8_t *p)
{
	const uint8_t *k = p + ATP_OFF_KEY;
	return (uint32_t)k[0] | (uint32_t)k[1] << 8 | (uint32_t)k[2] << 16 | (uint32_t)k[3] << 24;
}

/* The job of a frame: the high half of its tensor key (little-endian u64 at offset 296). */
static inline uint32_t atp_frame_job(const uint8_t *p)
{
	const uint8_t *k = p + ATP_OFF_KEY + 4;
	return (uint32_t)k[0] | (uint32_t)k[1] << 8 | (uint32_t)k[2] << 16 | (uint32_t)k[3] << 24;
}

extern struct atp_conf *atp_conf_cur;
extern struct isw_reg *atp_regs[ATP_REG_NB];
extern struct atp_counters atp_counters[ISW_MAX_WORKERS][ATP_APPS_MAX + 1];
extern struct atp_job_name atp_jobs[ATP_APPS_MAX + 1];

/*
 * Gives app id a region of its own of size aggregators (at base at, or the first free range:
 * UINT32_MAX) under its running job (docs/memory.md, ATP); control thread. 0 or -errno with the
 * reason in err (-EBUSY: the last change still drains; -ENOSPC: no room).
 */
int atp_region_change(uint32_t id, uint32_t size, uint32_t at, char *err, size_t errlen);

int atp_process(struct isw_worker *w, struct rte_mbuf *m);
int atp_process_strict(struct isw_worker *w, struct rte_mbuf *m);
uint16_t atp_process_burst(struct isw_worker *w, struct rte_mbuf **pkts, uint16_t n);

#endif
