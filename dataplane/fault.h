/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-port fault injection: drop, duplicate and reorder with given probabilities, per direction,
 * from a seeded generator, so a run with one worker is repeatable. The software counterpart of
 * SwitchML's switch-side drop simulator, and how tests inject loss where the kernel has no netem.
 *
 * Runs on worker lcores. A reordered packet is held until the next `depth` packets of the same
 * port and direction have passed, or for at most ISW_FAULT_HOLD_US when traffic stops.
 */
#ifndef ISW_FAULT_H
#define ISW_FAULT_H

#include <stdint.h>

#include "dp.h"

#define ISW_FAULT_HELD_MAX 16
#define ISW_FAULT_HOLD_US  2000

struct rte_mbuf;
struct isw_worker;

struct isw_fault_state {
	uint64_t rng;
	uint32_t gen; /* isw_port_conf.gen the generator was seeded from */
	uint8_t nheld;
	struct {
		struct rte_mbuf *m;
		uint16_t left; /* packets still to pass before release */
		uint64_t since;
	} held[ISW_FAULT_HELD_MAX];
};

typedef void (*isw_deliver_fn)(struct isw_worker *w, uint16_t port, struct rte_mbuf *m);

/* Applies f to m, then delivers what survives (m, a copy of it, released held packets). */
void isw_fault_apply(struct isw_worker *w, const struct isw_fault_cfg *f, uint16_t port,
                     unsigned dir, struct rte_mbuf *m, isw_deliver_fn deliver);

/* Releases held packets older than ISW_FAULT_HOLD_US (or all, if force); returns how many it
 * still holds. */
unsigned isw_fault_flush(struct isw_worker *w, uint16_t port, unsigned dir, isw_deliver_fn deliver,
                         bool force);

/* Probability in percent (0..100) to a fraction of 2^32, and back. */
uint64_t isw_fault_prob(double pct);
double isw_fault_pct(uint64_t prob);

#endif
