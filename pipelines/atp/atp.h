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
#define ATP_POOL_MAX     32768 /* aggregators in the switch (register size) */
#define ATP_POOL_DEFAULT 20000 /* the reference's MAX_AGTR_COUNT */
#define ATP_NO_PORT      (-1)
#define ATP_MC_BASE      (ISW_MC_RESERVED + 0x40) /* PRE group of app index i: base + i */

enum atp_reg {
	ATP_REG_OWNER,  /* pair: appID << 16 | seq of the holder (0 = free), when it claimed (ms) */
	ATP_REG_BITMAP, /* workers aggregated so far */
	ATP_REG_COUNT,  /* distinct contributors */
	ATP_REG_ECN,    /* sticky congestion mark of the aggregation */
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
};

#define ATP_LEASE_DEFAULT_MS 1000u

struct atp_conf {
	uint32_t pool;     /* aggregators in use: agtr < pool */
	uint32_t lease_ms; /* an aggregation older than this lapses (0 = never) */
	struct atp_app apps[ATP_APPS_MAX + 1]; /* index 0 unused */
	uint8_t index[65536];                  /* appID -> app index, 0 = none */
};

struct atp_counters {
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
} __rte_cache_aligned;

extern struct atp_conf *atp_conf_cur;
extern struct isw_reg *atp_regs[ATP_REG_NB];
extern struct atp_counters atp_counters[ISW_MAX_WORKERS][ATP_APPS_MAX + 1];

int atp_process(struct isw_worker *w, struct rte_mbuf *m);
int atp_process_strict(struct isw_worker *w, struct rte_mbuf *m);
uint16_t atp_process_burst(struct isw_worker *w, struct rte_mbuf **pkts, uint16_t n);

#endif
