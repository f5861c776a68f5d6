/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "dp.h"
#include "stats.h"
#include "worker.h"

/* Adds every uint64_t of src to dst: struct isw_stats holds nothing else. */
static void add_all(struct isw_stats *dst, const struct isw_stats *src, int sign)
{
	uint64_t *d = (uint64_t *)dst;
	const volatile uint64_t *s = (const volatile uint64_t *)src;
	for (size_t i = 0; i < sizeof(*dst) / sizeof(uint64_t); i++)
		d[i] += sign > 0 ? s[i] : -s[i];
}

static void sum_raw(struct isw_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < isw_dp.nb_workers; i++) {
		struct isw_worker *w = isw_dp.workers[i];
		if (w == NULL)
			continue;
		add_all(out, &w->stats, 1);
		out->strict_multi_access += w->pass.multi_access;
		out->strict_recirc_over += w->pass.recirc_over;
	}
}

void isw_stats_sum(struct isw_stats *out)
{
	sum_raw(out);
	add_all(out, &isw_dp.baseline, -1);
}

void isw_stats_reset(void)
{
	sum_raw(&isw_dp.baseline);
	for (unsigned i = 0; i < isw_dp.nb_workers; i++) {
		const struct isw_stats *s = &isw_dp.workers[i]->stats;
		struct isw_worker_base *b = &isw_dp.worker_base[i];
		*b = (struct isw_worker_base){.polls = s->polls,
		                              .busy_polls = s->busy_polls,
		                              .handoff_out = s->handoff_out,
		                              .handoff_in = s->handoff_in,
		                              .backpressure = s->backpressure,
		                              .tsc_loop = s->tsc_loop,
		                              .tsc_busy = s->tsc_busy,
		                              .tsc_rx = s->tsc_rx,
		                              .tsc_tx = s->tsc_tx,
		                              .naps = s->naps,
		                              .tsc_nap = s->tsc_nap};
		(void)isw_worker_sched(isw_dp.workers[i], &b->run_ns, &b->wait_ns);
		/* A maximum has no baseline: restart it. The worker may write back a deeper value
		 * it read just before; either is a depth its queue had. */
		for (uint16_t p = 0; p < isw_dp.nb_ports; p++)
			__atomic_store_n(&isw_dp.workers[i]->shape[p].max_n, 0, __ATOMIC_RELAXED);
	}
	isw_dp.baseline_tsc = rte_get_tsc_cycles();
}

int isw_worker_sched(const struct isw_worker *w, uint64_t *run_ns, uint64_t *wait_ns)
{
	int tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE);
	*run_ns = *wait_ns = 0;
	if (tid <= 0)
		return -1;
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	int n = fscanf(f, "%" SCNu64 " %" SCNu64, run_ns, wait_ns);
	fclose(f);
	if (n != 2)
		*run_ns = *wait_ns = 0;
	return n == 2 ? 0 : -1;
}

double isw_stats_elapsed(void)
{
	return (double)(rte_get_tsc_cycles() - isw_dp.baseline_tsc) / (double)rte_get_tsc_hz();
}
