/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker loop: poll, run the chain on each packet, drain the inbox, transmit. */

#include <sys/prctl.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>

#include "pipeline.h"
#include "worker.h"

void isw_tx_flush(struct isw_worker *w, uint16_t port)
{
	struct isw_txbuf *b = &w->tx[port];
	if (b->n == 0)
		return;
	w->moved = true;
	uint64_t t0 = w->timed ? rte_rdtsc() : 0;
	uint16_t sent = rte_eth_tx_burst(port, (uint16_t)w->txq[port], b->pkts, b->n);
	if (w->timed)
		w->it_tx += rte_rdtsc() - t0;
	struct isw_port_stats *ps = &w->stats.port[port];
	ps->tx_pkts += sent;
	for (uint16_t i = 0; i < sent; i++)
		ps->tx_bytes += rte_pktmbuf_pkt_len(b->pkts[i]);
	for (uint16_t i = sent; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		w->stats.pipeline[0].drops[ISW_DROP_TX_FULL]++;
		w->stats.port[isw_meta(m)->in_port].drops++;
		rte_pktmbuf_free(m);
	}
	b->n = 0;
}

static void deliver_tx(struct isw_worker *w, uint16_t port, struct rte_mbuf *m)
{
	isw_tx_buffer(w, port, m);
}

void isw_tx_fault(struct isw_worker *w, uint16_t port, struct rte_mbuf *m)
{
	isw_fault_apply(w, &w->pconf->fault[port][ISW_DIR_TX], port, ISW_DIR_TX, m, deliver_tx);
}

/* False if the owner's inbox was full (m dropped and counted). */
static bool inbox_put(struct isw_worker *w, struct rte_mbuf *m, uint16_t owner)
{
	if (unlikely(rte_ring_mp_enqueue(isw_dp.workers[owner]->inbox, m) != 0)) {
		uint16_t saved = w->cur_id;
		w->cur_id = 0;
		isw_drop(w, m, ISW_DROP_HANDOFF_FULL);
		w->cur_id = saved;
		return false;
	}
	w->stats.handoff_out++;
	return true;
}

void isw_tx_handoff(struct isw_worker *w, struct rte_mbuf *m, uint16_t port)
{
	struct isw_meta *meta = isw_meta(m);
	meta->kind = ISW_HANDOFF_TX;
	meta->tx_port = port;
	inbox_put(w, m, w->tx_owner[port]);
}

int isw_handoff(struct isw_worker *w, struct rte_mbuf *m, uint16_t owner)
{
	struct isw_meta *meta = isw_meta(m);
	meta->kind = ISW_HANDOFF_RESUME;
	meta->resume = (uint8_t)w->cur_id;
	w->handed_off = true;
	if (inbox_put(w, m, owner))
		w->stats.pipeline[w->cur_id].handoffs++;
	return ISW_PKT_TAKEN;
}

void isw_chain_run(struct isw_worker *w, const struct isw_chain *c, struct rte_mbuf *m,
                   unsigned from)
{
	for (unsigned i = from; i < c->n; i++) {
		w->cur = (uint8_t)i;
		w->cur_id = c->stage[i].id;
		w->handed_off = false;
		if (c->stage[i].fn(w, m) == ISW_PKT_TAKEN) {
			isw_count_taken(w);
			return;
		}
	}
	w->cur_id = 0;
	isw_drop(w, m, ISW_DROP_NO_PIPELINE);
}

/* Context for deliver_rx: the chain of this iteration. */
static __thread const struct isw_chain *rx_chain;

static void deliver_rx(struct isw_worker *w, uint16_t port, struct rte_mbuf *m)
{
	RTE_SET_USED(port);
	isw_chain_run(w, rx_chain, m, 0);
}

/* A received frame's metadata: its ingress port, a plain packet (no hand-off). Returns its
 * length, for the port's rx_bytes. */
static inline uint32_t rx_meta_set(struct rte_mbuf *m, uint16_t port)
{
	struct isw_meta *meta = isw_meta(m);
	meta->in_port = port;
	meta->kind = 0;
	return rte_pktmbuf_pkt_len(m);
}

/* One received frame into the chain (through the port's rx fault injection if on). */
static inline void rx_one(struct isw_worker *w, const struct isw_chain *c, uint16_t port,
                          const struct isw_fault_cfg *f, struct rte_mbuf *m)
{
	w->stats.port[port].rx_bytes += rx_meta_set(m, port);
	if (unlikely(f->on)) {
		rx_chain = c;
		isw_fault_apply(w, f, port, ISW_DIR_RX, m, deliver_rx);
		return;
	}
	isw_chain_run(w, c, m, 0);
}

/*
 * A received burst into a chain whose first pipeline takes bursts (and no rx fault injection on
 * the port). Pipelines that take no packet run over the whole burst first. The next one runs
 * on the packets in order until one is not its own, which goes on down the chain before that
 * pipeline takes up the rest: every packet is handled in the order it came, as by rx_one().
 */
static void rx_burst(struct isw_worker *w, const struct isw_chain *c, uint16_t port,
                     struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t bytes = 0;
	for (uint16_t i = 0; i < n; i++)
		bytes += rx_meta_set(pkts[i], port);
	w->stats.port[port].rx_bytes += bytes;
	unsigned s = 0;
	for (; s < c->n && c->stage[s].passes_all && c->stage[s].burst != NULL; s++) {
		w->cur = (uint8_t)s;
		w->cur_id = c->stage[s].id;
		c->stage[s].burst(w, pkts, n);
	}
	uint16_t i = 0;
	while (i < n) {
		if (s < c->n && c->stage[s].burst != NULL) {
			w->cur = (uint8_t)s;
			w->cur_id = c->stage[s].id;
			i += c->stage[s].burst(w, pkts + i, (uint16_t)(n - i));
			if (i < n)
				isw_chain_run(w, c, pkts[i++], s + 1);
		} else {
			if (i + 1 < n)
				rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
			isw_chain_run(w, c, pkts[i++], s);
		}
	}
}

static void rx_queue(struct isw_worker *w, const struct isw_chain *c, uint16_t port, uint16_t queue,
                     uint64_t now)
{
	struct rte_mbuf *pkts[ISW_BURST_MAX];
	uint64_t t0 = w->timed ? rte_rdtsc() : 0;
	uint16_t n = rte_eth_rx_burst(port, queue, pkts, isw_dp.burst);
	if (w->timed)
		w->it_rx += rte_rdtsc() - t0;
	if (n == 0)
		return;
	w->moved = true;
	w->last_active = now;
	w->stats.port[port].rx_pkts += n;
	const struct isw_fault_cfg *f = &w->pconf->fault[port][ISW_DIR_RX];
	if (c->n > 0 && c->stage[0].burst != NULL && !f->on) {
		rx_burst(w, c, port, pkts, n);
	} else {
		for (uint16_t i = 0; i < n; i++) {
			if (i + 1 < n)
				rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
			rx_one(w, c, port, f, pkts[i]);
		}
	}
	isw_dead_flush(w);
}

/*
 * --replay-ordered: a k-way merge of the rx queues by capture timestamp. Each queue keeps its
 * next frame aside; the earliest of them (the lowest queue on a tie) runs, alone, before the
 * next is chosen. A queue that gives no frame has reached the end of its capture (net_pcap
 * rx_pcap, without infinite_rx): it is not asked again.
 */
static struct {
	int ts_off;
	uint64_t ts_flag;
	struct rte_mbuf *next[ISW_MAX_RXQ];
	bool done[ISW_MAX_RXQ];
} ordered = {.ts_off = -1};

int isw_worker_ordered_init(void)
{
	int rc = rte_mbuf_dyn_rx_timestamp_register(&ordered.ts_off, &ordered.ts_flag);
	return rc < 0 ? -rte_errno : 0;
}

/* A frame's capture time; a frame without one (not from a capture) comes first. */
static inline uint64_t frame_ts(const struct rte_mbuf *m)
{
	if (!(m->ol_flags & ordered.ts_flag))
		return 0;
	return *RTE_MBUF_DYNFIELD(m, ordered.ts_off, const rte_mbuf_timestamp_t *);
}

/* The held frames in timestamp order, at a stop: they were received, so they run. */
static void ordered_flush(struct isw_worker *w, const struct isw_chain *c)
{
	for (;;) {
		int best = -1;
		for (uint16_t i = 0; i < w->nb_rxq; i++)
			if (ordered.next[i] != NULL &&
			    (best < 0 || frame_ts(ordered.next[i]) < frame_ts(ordered.next[best])))
				best = i;
		if (best < 0)
			return;
		struct rte_mbuf *m = ordered.next[best];
		ordered.next[best] = NULL;
		uint16_t port = w->rxq[best].port;
		rx_one(w, c, port, &w->pconf->fault[port][ISW_DIR_RX], m);
		isw_dead_flush(w);
	}
}

static void rx_ordered(struct isw_worker *w, const struct isw_chain *c, uint64_t now)
{
	int best = -1;
	uint64_t best_ts = 0;
	for (uint16_t i = 0; i < w->nb_rxq; i++) {
		const struct isw_rxq *q = &w->rxq[i];
		if (ordered.next[i] == NULL && !ordered.done[i]) {
			if (rte_eth_rx_burst(q->port, q->queue, &ordered.next[i], 1) == 0) {
				/* The end of its capture, unless the driver had no mbuf to
				 * fill (net_pcap then returns nothing too): then ask again. */
				ordered.done[i] =
				        rte_mempool_avail_count(isw_dp.pool) > ISW_BURST_MAX;
				continue;
			}
			w->stats.port[q->port].rx_pkts++;
		}
		if (ordered.next[i] != NULL && (best < 0 || frame_ts(ordered.next[i]) < best_ts)) {
			best = i;
			best_ts = frame_ts(ordered.next[i]);
		}
	}
	if (best < 0)
		return;
	struct rte_mbuf *m = ordered.next[best];
	ordered.next[best] = NULL;
	w->moved = true;
	w->last_active = now;
	uint16_t port = w->rxq[best].port;
	rx_one(w, c, port, &w->pconf->fault[port][ISW_DIR_RX], m);
	isw_dead_flush(w);
}

/* Position of pipeline id in c; past the end (the packet is dropped) if it left the chain
 * while the packet waited in an inbox. */
static unsigned chain_pos(const struct isw_chain *c, uint8_t id)
{
	unsigned i = 0;
	while (i < c->n && c->stage[i].id != id)
		i++;
	return i;
}

static void drain_inbox(struct isw_worker *w, const struct isw_chain *c, uint64_t now)
{
	struct rte_mbuf *pkts[ISW_BURST_MAX];
	unsigned n = rte_ring_sc_dequeue_burst(w->inbox, (void **)pkts, ISW_BURST_MAX, NULL);
	if (n == 0)
		return;
	w->moved = true;
	w->last_active = now;
	w->stats.handoff_in += n;
	for (unsigned i = 0; i < n; i++) {
		struct isw_meta *meta = isw_meta(pkts[i]);
		uint8_t kind = meta->kind;
		meta->kind = 0;
		if (kind == ISW_HANDOFF_TX) {
			w->cur_id = 0;
			isw_tx(w, pkts[i], meta->tx_port);
		} else {
			isw_chain_run(w, c, pkts[i], chain_pos(c, meta->resume));
		}
	}
	isw_dead_flush(w);
}

/* Returns true when fault injection still holds packets of this worker (to be released later). */
static bool flush_faults(struct isw_worker *w, const struct isw_chain *c, bool force)
{
	unsigned held = 0;
	rx_chain = c;
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++) {
		held += isw_fault_flush(w, p, ISW_DIR_RX, deliver_rx, force);
		if (w->txq[p] >= 0)
			held += isw_fault_flush(w, p, ISW_DIR_TX, deliver_tx, force);
	}
	isw_dead_flush(w);
	return held != 0;
}

/*
 * Backpressure: while another worker's inbox is nearly full, leave our rx queues alone so the
 * excess waits in (or overflows from) the NIC ring, where overload belongs, instead of being
 * dropped between lcores. One burst can hand over at most burst x (1 + flood replicas) packets,
 * which ISW_INBOX_RESERVE covers.
 */
static bool peers_have_room(const struct isw_worker *w)
{
	for (unsigned i = 0; i < isw_dp.nb_workers; i++)
		if (i != w->index &&
		    rte_ring_free_count(isw_dp.workers[i]->inbox) < ISW_INBOX_RESERVE)
			return false;
	return true;
}

/* True when every worker has been idle for idle_exit_tsc; only worker 0 decides. */
static bool all_idle(uint64_t now)
{
	for (unsigned i = 0; i < isw_dp.nb_workers; i++) {
		const struct isw_worker *o = isw_dp.workers[i];
		if (now - __atomic_load_n(&o->last_active, __ATOMIC_RELAXED) < isw_dp.idle_exit_tsc)
			return false;
		if (rte_ring_count(o->inbox) != 0)
			return false;
	}
	return true;
}

/*
 * --idle-sleep-us: a worker that has moved nothing for a while naps, so a switch that shares its
 * server (with the training job it serves, on a small machine) gives the CPU back between bursts,
 * as OVS's pmd-sleep-max does. The nap is a quarter of the time idle so far, from ISW_NAP_MIN_NS
 * up to the configured cap: a worker idle for long sleeps the cap, one idle for a moment does
 * not sleep, and the first packet of a burst waits at most the cap (plus the kernel's wake-up).
 * Never while packets moved, a peer's inbox pushed back or a shaper's queue holds packets
 * (those set last_active), nor while fault injection holds packets to release after
 * ISW_FAULT_HOLD_US (the caller's check). One syscall per nap, none per packet.
 */
#define ISW_NAP_MIN_NS 10000u

static void idle_nap(struct isw_worker *w, uint64_t now)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t want = (now - w->last_active) / 4;
	if (want < hz / (1000000000u / ISW_NAP_MIN_NS))
		return;
	if (want > isw_dp.idle_sleep_tsc)
		want = isw_dp.idle_sleep_tsc;
	uint64_t ns = want * 1000000000u / hz;
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ns};
	rte_rcu_qsbr_quiescent(isw_dp.rcu, w->index);
	nanosleep(&ts, NULL);
	w->stats.naps++;
	w->stats.tsc_nap += rte_get_tsc_cycles() - now;
}

int isw_worker_main(void *arg)
{
	struct isw_worker *w = arg;
	__atomic_store_n(&w->tid, rte_gettid(), __ATOMIC_RELEASE);
	/* The thread ran before it became a worker (worker 0 is the main thread, which set
	 * everything up): its CPU time counts from here unless a reset came first. */
	struct isw_worker_base *b = &isw_dp.worker_base[w->index];
	if (b->run_ns == 0 && b->wait_ns == 0)
		(void)isw_worker_sched(w, &b->run_ns, &b->wait_ns);
	rte_rcu_qsbr_thread_register(isw_dp.rcu, w->index);
	rte_rcu_qsbr_thread_online(isw_dp.rcu, w->index);
	w->last_active = rte_get_tsc_cycles();
	/* The kernel rounds a nap up by the thread's timer slack (50 us by default): ask for 1. */
	if (isw_dp.idle_sleep_tsc)
		(void)prctl(PR_SET_TIMERSLACK, 1000ul, 0, 0, 0);
	const uint64_t tsc_per_ms = rte_get_tsc_hz() / 1000 ? rte_get_tsc_hz() / 1000 : 1;

	while (!isw_dp.quit) {
		uint64_t now = rte_get_tsc_cycles();
		w->now_ms = (uint32_t)(now / tsc_per_ms);
		const struct isw_chain *c = ISW_RCU_LOAD(isw_chain_current);
		w->pconf = ISW_RCU_LOAD(isw_dp.pconf);
		uint64_t before = w->last_active;

		drain_inbox(w, c, now);
		if (unlikely(isw_dp.replay_ordered)) {
			rx_ordered(w, c, now);
		} else if (likely(isw_dp.nb_workers == 1 || peers_have_room(w))) {
			for (uint16_t i = 0; i < w->nb_rxq; i++)
				rx_queue(w, c, w->rxq[i].port, w->rxq[i].queue, now);
		} else {
			w->stats.backpressure++;
			w->last_active = now; /* waiting on a peer is not idleness */
		}
		bool holding = flush_faults(w, c, false);
		if (isw_shape_run(w, now, false) != 0)
			w->last_active = now; /* a queue still holding packets is not idle */
		for (uint16_t p = 0; p < isw_dp.nb_ports; p++)
			if (w->tx[p].n)
				isw_tx_flush(w, p);

		if (w->timed) {
			uint64_t len = rte_rdtsc() - now;
			w->stats.tsc_loop += len;
			/* busy: packets moved (not a worker waiting on a peer's inbox or on a
			 * rate-limited port's queue, which count as active for idle-exit) */
			if (w->moved) {
				w->stats.tsc_busy += len;
				w->stats.tsc_rx += w->it_rx;
				w->stats.tsc_tx += w->it_tx;
			}
			w->it_rx = w->it_tx = 0;
		}
		w->moved = false;
		w->stats.polls++;
		w->timed = (w->stats.polls & ISW_TIMED_MASK) == 0;
		if (w->last_active != before)
			w->stats.busy_polls++;
		else if (isw_dp.idle_exit_tsc && w->index == 0 && all_idle(now))
			isw_dp.quit = true;
		else if (isw_dp.idle_sleep_tsc && !holding)
			idle_nap(w, now);

		rte_rcu_qsbr_quiescent(isw_dp.rcu, w->index);
		if (unlikely(__atomic_load_n(&isw_dp.pause_req, __ATOMIC_ACQUIRE) & 1u))
			isw_dp_park(w);
	}

	isw_worker_drain(w);
	rte_rcu_qsbr_thread_offline(isw_dp.rcu, w->index);
	rte_rcu_qsbr_thread_unregister(isw_dp.rcu, w->index);
	return 0;
}

void isw_worker_drain(struct isw_worker *w)
{
	const struct isw_chain *c = ISW_RCU_LOAD(isw_chain_current);
	w->pconf = ISW_RCU_LOAD(isw_dp.pconf);
	if (isw_dp.replay_ordered)
		ordered_flush(w, c);
	flush_faults(w, c, true);
	drain_inbox(w, c, rte_get_tsc_cycles());
	isw_shape_run(w, rte_get_tsc_cycles(), true);
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++)
		if (w->txq[p] >= 0)
			isw_tx_flush(w, p);
	isw_dead_flush(w);
}
