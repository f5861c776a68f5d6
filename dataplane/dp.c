/* SPDX-License-Identifier: BSD-3-Clause */
/* Global dataplane state, RCU publication and the pause handshake. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "dp.h"
#include "worker.h"

struct isw_dp isw_dp = {
        .burst = 32,
};

void isw_rcu_publish(void **slot, void *obj, void (*free_old)(void *))
{
	void *old = __atomic_exchange_n(slot, obj, __ATOMIC_ACQ_REL);
	if (isw_dp.rcu != NULL && isw_dp.running)
		rte_rcu_qsbr_synchronize(isw_dp.rcu, RTE_QSBR_THRID_INVALID);
	if (old != NULL && free_old != NULL)
		free_old(old);
}

uint32_t isw_clock_ms(void)
{
	uint64_t per_ms = rte_get_tsc_hz() / 1000;
	return (uint32_t)(rte_get_tsc_cycles() / (per_ms ? per_ms : 1));
}

int isw_dp_pause(void)
{
	if (!isw_dp.running)
		return 0;
	/* Only the control thread writes pause_req: odd asks workers to park, even lets them run.
	 */
	uint32_t gen = isw_dp.pause_req;
	if (!(gen & 1u))
		gen++;
	__atomic_store_n(&isw_dp.pause_req, gen, __ATOMIC_RELEASE);
	uint64_t hz = rte_get_timer_hz(), start = rte_get_timer_cycles();
	for (unsigned i = 0; i < isw_dp.nb_workers; i++) {
		while (__atomic_load_n(&isw_dp.paused[i], __ATOMIC_ACQUIRE) != gen) {
			uint64_t waited = rte_get_timer_cycles() - start;
			if (waited > ISW_PAUSE_TIMEOUT_S * hz || isw_dp.quit) {
				isw_dp_resume();
				return -ETIMEDOUT;
			}
			/* A worker normally parks within microseconds. Past that, the control
			 * thread may be sharing the worker's CPU (it runs unpinned, often beside
			 * worker 0): sleep instead of spinning so the worker gets the CPU to reach
			 * its safe point. */
			if (waited > hz / 10000)
				usleep(50);
			else
				rte_pause();
		}
	}
	return 0;
}

void isw_dp_resume(void)
{
	uint32_t gen = isw_dp.pause_req;
	if (gen & 1u)
		__atomic_store_n(&isw_dp.pause_req, gen + 1, __ATOMIC_RELEASE);
}

void isw_dp_park(struct isw_worker *w)
{
	uint32_t gen;
	while (((gen = __atomic_load_n(&isw_dp.pause_req, __ATOMIC_ACQUIRE)) & 1u) &&
	       !isw_dp.quit) {
		__atomic_store_n(&isw_dp.paused[w->index], gen, __ATOMIC_RELEASE);
		rte_pause();
	}
}

void isw_dp_shard_init(void)
{
	for (unsigned i = 0; i < ISW_SHARD_SLOTS; i++)
		isw_dp.shard_owner[i] = isw_dp.nb_workers ? i % isw_dp.nb_workers : 0;
}

static int conf_keep(struct isw_port_conf *c, void *arg)
{
	RTE_SET_USED(c);
	RTE_SET_USED(arg);
	return 0;
}

int isw_port_conf_init(void)
{
	return isw_port_conf_update(conf_keep, NULL);
}

const struct isw_port_conf *isw_port_conf_get(void)
{
	return isw_dp.pconf;
}

int isw_port_conf_update(int (*fn)(struct isw_port_conf *c, void *arg), void *arg)
{
	struct isw_port_conf *c = malloc(sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	if (isw_dp.pconf != NULL)
		memcpy(c, isw_dp.pconf, sizeof(*c));
	else
		memset(c, 0, sizeof(*c));
	int rc = fn(c, arg);
	if (rc < 0) {
		free(c);
		return rc;
	}
	c->gen++;
	isw_rcu_publish((void **)&isw_dp.pconf, c, free);
	return rc;
}
