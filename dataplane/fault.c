/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-port fault injection; runs on worker lcores. */

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "fault.h"
#include "worker.h"

uint64_t isw_fault_prob(double pct)
{
	if (pct <= 0)
		return 0;
	if (pct >= 100)
		return UINT64_C(1) << 32;
	return (uint64_t)(pct / 100.0 * 4294967296.0 + 0.5);
}

double isw_fault_pct(uint64_t prob)
{
	return (double)prob * 100.0 / 4294967296.0;
}

/* splitmix64: seeds well from small integers and is cheap. */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline bool chance(uint64_t *s, uint64_t prob)
{
	return prob != 0 && (rng_next(s) >> 32) < prob;
}

static void seed(struct isw_worker *w, struct isw_fault_state *st, uint16_t port, unsigned dir)
{
	const struct isw_port_conf *c = w->pconf;
	st->rng = c->seed ^ ((uint64_t)w->index << 48) ^ ((uint64_t)port << 8) ^ dir;
	st->gen = c->gen;
}

/* One packet passed: count down held packets and release those whose turn came. */
static void tick(struct isw_worker *w, struct isw_fault_state *st, uint16_t port,
                 isw_deliver_fn deliver)
{
	unsigned k = 0;
	for (unsigned i = 0; i < st->nheld; i++) {
		if (st->held[i].left > 0 && --st->held[i].left > 0) {
			st->held[k++] = st->held[i];
			continue;
		}
		deliver(w, port, st->held[i].m);
	}
	st->nheld = (uint8_t)k;
}

void isw_fault_apply(struct isw_worker *w, const struct isw_fault_cfg *f, uint16_t port,
                     unsigned dir, struct rte_mbuf *m, isw_deliver_fn deliver)
{
	struct isw_fault_state *st = &w->fault[port][dir];
	struct isw_fault_stats *fs = &w->stats.fault[port][dir];
	if (unlikely(st->gen != w->pconf->gen))
		seed(w, st, port, dir);

	if (chance(&st->rng, f->drop)) {
		fs->dropped++;
		uint16_t saved = w->cur_id;
		w->cur_id = 0; /* a fault is the dataplane's drop, not the pipeline's */
		isw_drop(w, m, ISW_DROP_FAULT);
		w->cur_id = saved;
		return;
	}
	struct rte_mbuf *dup = NULL;
	if (chance(&st->rng, f->dup)) {
		dup = rte_pktmbuf_copy(m, isw_dp.pool, 0, UINT32_MAX);
		if (dup != NULL) {
			*isw_meta(dup) = *isw_meta(m);
			fs->duplicated++;
		} else {
			w->stats.pipeline[0].drops[ISW_DROP_NO_MBUF]++;
		}
	}
	if (f->depth > 0 && st->nheld < ISW_FAULT_HELD_MAX && chance(&st->rng, f->reorder)) {
		st->held[st->nheld].m = m;
		st->held[st->nheld].left = f->depth;
		st->held[st->nheld].since = rte_get_tsc_cycles();
		st->nheld++;
		fs->reordered++;
		m = NULL;
	}
	if (m != NULL) {
		deliver(w, port, m);
		tick(w, st, port, deliver);
	}
	if (dup != NULL) {
		deliver(w, port, dup);
		tick(w, st, port, deliver);
	}
}

unsigned isw_fault_flush(struct isw_worker *w, uint16_t port, unsigned dir, isw_deliver_fn deliver,
                         bool force)
{
	struct isw_fault_state *st = &w->fault[port][dir];
	if (st->nheld == 0)
		return 0;
	uint64_t now = rte_get_tsc_cycles();
	uint64_t hold = rte_get_tsc_hz() / 1000000 * ISW_FAULT_HOLD_US;
	unsigned k = 0;
	for (unsigned i = 0; i < st->nheld; i++) {
		if (!force && now - st->held[i].since < hold) {
			st->held[k++] = st->held[i];
			continue;
		}
		deliver(w, port, st->held[i].m);
	}
	st->nheld = (uint8_t)k;
	return k;
}
