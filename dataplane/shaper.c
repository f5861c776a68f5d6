/* SPDX-License-Identifier: BSD-3-Clause */
/* Egress shaping with ECN marking (shaper.h). */

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "shaper.h"
#include "worker.h"

#define ETH_LEN    14
#define IP_MIN_LEN 20
#define MARKERS    4

static struct {
	uint16_t ethertype;
	void (*fn)(uint8_t *frame, uint32_t len);
} markers[MARKERS];

void isw_ecn_register(uint16_t ethertype, void (*fn)(uint8_t *frame, uint32_t len))
{
	for (unsigned i = 0; i < MARKERS; i++) {
		if (markers[i].fn == NULL || markers[i].ethertype == ethertype) {
			markers[i].ethertype = ethertype;
			markers[i].fn = fn;
			return;
		}
	}
}

void isw_ipv4_ce(uint8_t *ip)
{
	uint16_t old = (uint16_t)(ip[0] << 8 | ip[1]);
	ip[1] |= 3;
	uint16_t new = (uint16_t)(ip[0] << 8 | ip[1]);
	uint32_t sum = (uint16_t) ~(ip[10] << 8 | ip[11]);
	sum += (uint16_t)~old;
	sum += new;
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	uint16_t c = (uint16_t)~sum;
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
}

bool isw_ecn_mark(struct rte_mbuf *m)
{
	if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1)
		return false;
	uint32_t len = rte_pktmbuf_data_len(m);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	if (len < ETH_LEN + IP_MIN_LEN)
		return false;
	uint16_t type = (uint16_t)(p[12] << 8 | p[13]);
	if (type == 0x0800) {
		if ((p[ETH_LEN] >> 4) != 4)
			return false;
		isw_ipv4_ce(p + ETH_LEN);
		return true;
	}
	for (unsigned i = 0; i < MARKERS && markers[i].fn != NULL; i++) {
		if (markers[i].ethertype == type && len >= 64) {
			markers[i].fn(p, len);
			return true;
		}
	}
	return false;
}

void isw_shape_enqueue(struct isw_worker *w, uint16_t port, struct rte_mbuf *m)
{
	const struct isw_shape_cfg *cfg = &w->pconf->shape[port];
	struct isw_shaper *s = &w->shape[port];
	struct isw_port_stats *ps = &w->stats.port[port];
	if (s->n >= cfg->queue || s->n >= ISW_SHAPE_QMAX) {
		ps->queue_drops++;
		w->stats.pipeline[0].drops[ISW_DROP_QUEUE_FULL]++;
		w->stats.port[isw_meta(m)->in_port].drops++;
		rte_pktmbuf_free(m);
		return;
	}
	if (cfg->ecn != 0 && s->n >= cfg->ecn) {
		if (isw_ecn_mark(m))
			ps->ecn_marked++;
		else
			ps->ecn_unmarkable++;
	}
	if (s->n == 0 && s->tokens == 0)
		s->last = rte_get_tsc_cycles();
	s->q[(s->head + s->n) % ISW_SHAPE_QMAX] = m;
	w->shape_queued++;
	if (++s->n > s->max_n)
		s->max_n = s->n;
}

/*
 * Refills the port's tokens for the time since the last refill. The bucket holds up to 20 ms of
 * the rate (plus one frame): enough to catch up after the lcore lost the CPU for a while (a VM's
 * vCPU gets descheduled for milliseconds), small enough to keep the rate over any 100 ms.
 */
#define SHAPE_BURST_DIV 50 /* 1/50 s = 20 ms */

static void refill(struct isw_shaper *s, const struct isw_shape_cfg *cfg, uint64_t now)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t rate = cfg->rate_bps / 8 / (isw_dp.nb_workers ? isw_dp.nb_workers : 1);
	uint64_t dt = now - s->last;
	if (dt > hz / SHAPE_BURST_DIV)
		dt = hz / SHAPE_BURST_DIV; /* keeps dt * rate far from overflowing */
	s->last = now;
	uint64_t burst = (rate / SHAPE_BURST_DIV + 1514) * hz;
	s->tokens += dt * rate;
	if (s->tokens > burst)
		s->tokens = burst;
}

uint32_t isw_shape_run(struct isw_worker *w, uint64_t now, bool force)
{
	if (likely(w->shape_queued == 0))
		return 0; /* the common case: no port is shaped, or nothing waits */
	uint32_t left = 0;
	uint64_t hz = rte_get_tsc_hz();
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++) {
		struct isw_shaper *s = &w->shape[p];
		if (s->n == 0)
			continue;
		const struct isw_shape_cfg *cfg = &w->pconf->shape[p];
		bool free_run = force || !cfg->on;
		if (!free_run)
			refill(s, cfg, now);
		while (s->n > 0) {
			struct rte_mbuf *m = s->q[s->head];
			uint64_t cost = (uint64_t)rte_pktmbuf_pkt_len(m) * hz;
			if (!free_run) {
				if (s->tokens < cost)
					break;
				s->tokens -= cost;
			}
			s->head = (s->head + 1) % ISW_SHAPE_QMAX;
			s->n--;
			w->shape_queued--;
			isw_tx_buffer_raw(w, p, m);
		}
		left += s->n;
	}
	return left;
}
