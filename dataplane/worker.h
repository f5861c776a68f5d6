/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Worker lcores and the fast-path API pipelines use to dispose of a packet: transmit, drop,
 * consume, replicate (pre.h) or hand off to the lcore that owns the packet's shard.
 *
 * Everything here runs on worker lcores: it never blocks, allocates from the heap, locks, logs
 * or makes a syscall. A pipeline must dispose of every packet it takes exactly once.
 */
#ifndef ISW_WORKER_H
#define ISW_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "asic.h"
#include "dp.h"
#include "fault.h"
#include "isw_limits.h"
#include "pipeline.h"
#include "stats.h"

struct isw_chain;

/* Per-packet metadata in the mbuf private area. */
struct isw_meta {
	uint16_t in_port;
	uint8_t kind;   /* enum isw_handoff_kind, while in an inbox */
	uint8_t resume; /* id of the pipeline to resume at (ISW_HANDOFF_RESUME) */
	uint16_t tx_port;
	uint16_t unused;
};

enum isw_handoff_kind {
	ISW_HANDOFF_RESUME = 1, /* run the chain from meta.resume: the shard is ours */
	ISW_HANDOFF_TX = 2,     /* transmit on meta.tx_port: we own that tx queue */
};

static inline struct isw_meta *isw_meta(struct rte_mbuf *m)
{
	return (struct isw_meta *)rte_mbuf_to_priv(m);
}

struct isw_txbuf {
	uint16_t n;
	struct rte_mbuf *pkts[ISW_BURST_MAX];
};

/* Where a worker's time goes is sampled: one loop iteration in 16 is timed (two TSC reads per
 * driver call and one per iteration), the rest cost a predictable branch. The shares are ratios
 * within the timed iterations. */
#define ISW_TIMED_MASK 15u

struct isw_rxq {
	uint16_t port;
	uint16_t queue;
};

struct isw_worker {
	unsigned lcore;
	uint16_t index; /* 0..nb_workers-1; also the RCU thread id */
	uint16_t nb_rxq;
	struct isw_rxq rxq[ISW_MAX_RXQ];
	int16_t txq[ISW_MAX_PORTS];       /* our tx queue on each port, or -1 */
	uint16_t tx_owner[ISW_MAX_PORTS]; /* worker that transmits for us where txq is -1 */
	struct rte_ring *inbox;
	uint8_t cur;     /* chain position of the pipeline running now */
	uint16_t cur_id; /* and its id, for counters */
	bool handed_off; /* the running pipeline handed its packet to another lcore */
	const struct isw_port_conf *pconf; /* snapshot for this loop iteration */
	uint64_t last_active;              /* TSC of the last packet seen */
	uint32_t now_ms; /* milliseconds (TSC based, wrapping), set once per loop iteration */
	struct isw_pass pass;
	struct isw_stats stats;
	struct isw_fault_state fault[ISW_MAX_PORTS][2];
	struct isw_txbuf tx[ISW_MAX_PORTS];
	struct isw_txbuf dead; /* consumed packets, freed in bulk at the end of a burst */
	struct isw_shaper shape[ISW_MAX_PORTS]; /* egress queues of rate-limited ports */
	uint32_t shape_queued;                  /* packets in all of them */
	bool timed;            /* this iteration's time is accounted (one in ISW_TIMED_MASK + 1) */
	bool moved;            /* this iteration received, took from the inbox or sent packets */
	uint64_t it_rx, it_tx; /* TSC cycles in the driver's rx and tx calls this iteration */
	int tid;               /* the lcore thread's Linux thread id (0 before it runs) */
} __rte_cache_aligned;

/* --replay-ordered (one worker): registers the rx timestamp field the capture ports fill. 0 or
 * -errno. */
int isw_worker_ordered_init(void);

/* Slow paths, out of line. */
void isw_tx_flush(struct isw_worker *w, uint16_t port);
void isw_tx_handoff(struct isw_worker *w, struct rte_mbuf *m, uint16_t port);
/* Hands m to worker owner (an index), which runs the current pipeline on it again. */
int isw_handoff(struct isw_worker *w, struct rte_mbuf *m, uint16_t owner);

/* Counts a drop of m for the running pipeline and its ingress port, and frees m. */
static inline void isw_drop(struct isw_worker *w, struct rte_mbuf *m, enum isw_drop reason)
{
	w->stats.pipeline[w->cur_id].drops[reason]++;
	w->stats.port[isw_meta(m)->in_port].drops++;
	rte_pktmbuf_free(m);
}

/* True when m is a plain buffer of the pool: direct, one reference, one segment (what
 * rte_mbuf_raw_free() takes back, and what can be reused as it is). */
static inline bool isw_mbuf_plain(const struct rte_mbuf *m)
{
	return m->pool == isw_dp.pool && RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1 &&
	       m->nb_segs == 1 && m->next == NULL;
}

/*
 * Frees every packet isw_consume() set aside. The plain ones go back to the pool in one
 * rte_mempool_put_bulk(), inline here (rte_pktmbuf_free_bulk() is a shared library's, and checks
 * and groups them one by one); any other through rte_pktmbuf_free_bulk().
 */
static inline void isw_dead_flush(struct isw_worker *w)
{
	unsigned n = w->dead.n, plain = 0, other = 0;
	if (n == 0)
		return;
	struct rte_mbuf *rest[ISW_BURST_MAX];
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = w->dead.pkts[i];
		if (likely(isw_mbuf_plain(m)))
			w->dead.pkts[plain++] = m;
		else
			rest[other++] = m;
	}
	rte_mempool_put_bulk(isw_dp.pool, (void **)w->dead.pkts, plain);
	if (other != 0)
		rte_pktmbuf_free_bulk(rest, other);
	w->dead.n = 0;
}

/* Frees a packet whose content the pipeline absorbed (nothing is sent, nothing is lost). The
 * mbufs go back to the pool in bulk, at the end of the burst or when ISW_BURST_MAX wait. */
static inline void isw_consume(struct isw_worker *w, struct rte_mbuf *m)
{
	w->stats.pipeline[w->cur_id].consumed++;
	w->dead.pkts[w->dead.n++] = m;
	if (unlikely(w->dead.n == ISW_BURST_MAX))
		isw_dead_flush(w);
}

/* Queues m for port's tx queue on this lcore, as it is. */
static inline void isw_tx_buffer_raw(struct isw_worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct isw_txbuf *b = &w->tx[port];
	b->pkts[b->n++] = m;
	if (unlikely(b->n == ISW_BURST_MAX))
		isw_tx_flush(w, port);
}

/* Queues m for port's tx queue on this lcore, after its tx faults: through the port's egress
 * queue if the port is rate-limited. */
static inline void isw_tx_buffer(struct isw_worker *w, uint16_t port, struct rte_mbuf *m)
{
	if (unlikely(w->pconf->shape[port].on)) {
		isw_shape_enqueue(w, port, m);
		return;
	}
	isw_tx_buffer_raw(w, port, m);
}

void isw_tx_fault(struct isw_worker *w, uint16_t port, struct rte_mbuf *m);

/* Sends m out of port. */
static inline void isw_tx(struct isw_worker *w, struct rte_mbuf *m, uint16_t port)
{
	if (unlikely(port >= isw_dp.nb_ports)) {
		isw_drop(w, m, ISW_DROP_BAD_PORT);
		return;
	}
	if (unlikely(w->txq[port] < 0)) {
		isw_tx_handoff(w, m, port);
		return;
	}
	if (unlikely(w->pconf->fault[port][ISW_DIR_TX].on)) {
		isw_tx_fault(w, port, m);
		return;
	}
	isw_tx_buffer(w, port, m);
}

/* True when shard belongs to this lcore. Shards map to owners modulo ISW_SHARD_SLOTS. */
static inline bool isw_shard_local(const struct isw_worker *w, uint32_t shard)
{
	return isw_dp.shard_owner[shard % ISW_SHARD_SLOTS] == w->index;
}

/*
 * The usual opening of a stateful pipeline: returns true when the caller may go on touching the
 * shard's registers; otherwise m has been handed to the owner (who will run this pipeline on it
 * again from the start) and the caller returns ISW_PKT_TAKEN.
 */
static inline bool isw_shard_claim(struct isw_worker *w, struct rte_mbuf *m, uint32_t shard)
{
	if (likely(isw_shard_local(w, shard)))
		return true;
	isw_handoff(w, m, isw_dp.shard_owner[shard % ISW_SHARD_SLOTS]);
	return false;
}

/* The same for a pipeline that maps its state to owners itself (owner: a worker index), so the
 * map can follow how the NIC steers (steer.h). */
static inline bool isw_owner_claim(struct isw_worker *w, struct rte_mbuf *m, uint16_t owner)
{
	if (likely(owner == w->index))
		return true;
	isw_handoff(w, m, owner);
	return false;
}

/* Runs the chain on m from position from; the worker loop's and the inbox's entry point. */
void isw_chain_run(struct isw_worker *w, const struct isw_chain *c, struct rte_mbuf *m,
                   unsigned from);

/* Counts a packet the running pipeline (w->cur_id) took, unless it handed the packet to the
 * lcore that owns its state: the owner counts it when it takes it. */
static inline void isw_count_taken(struct isw_worker *w)
{
	if (!w->handed_off)
		w->stats.pipeline[w->cur_id].pkts++;
}

/* A pipeline's per-packet function inside isw_burst_run(): m is pkts[i] of the burst, ctx what
 * the pipeline worked out for the burst before. */
typedef int (*isw_burst_pkt_fn)(struct isw_worker *w, struct rte_mbuf *m, const void *ctx,
                                uint16_t i);

/*
 * The body of a pipeline's process_burst() (pipeline.h): fn, an always-inline per-packet
 * function, on each packet with isw_chain_run()'s bookkeeping, until one is not taken. Returns
 * how many were taken. The caller (the worker loop) has set w->cur and w->cur_id.
 */
static __rte_always_inline uint16_t isw_burst_run(struct isw_worker *w, struct rte_mbuf **pkts,
                                                  uint16_t n, isw_burst_pkt_fn fn, const void *ctx)
{
	uint16_t i;
	for (i = 0; i < n; i++) {
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		w->handed_off = false;
		if (fn(w, pkts[i], ctx, i) != ISW_PKT_TAKEN)
			break;
		isw_count_taken(w);
	}
	return i;
}

/* The worker loop; lcore_launch entry point. arg is the struct isw_worker. */
int isw_worker_main(void *arg);

/* Releases held packets, runs what is in the inbox and transmits; for shutdown, when w's
 * lcore has stopped (or from that lcore). */
void isw_worker_drain(struct isw_worker *w);

#endif
