/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch-memory budget: every pipeline that gives tenants aggregator memory (SyncAgtr
 * sessions, ATP apps, ASK tasks) registers a pool of units here when it is enabled, and each
 * tenant takes one contiguous range of units from it. Overlapping or over-budget requests are
 * refused with a message saying what is free; `budget show` lists who holds what.
 *
 * Control thread only. The data path never calls into this module: a pipeline copies the range
 * it was given into the configuration it publishes to the workers.
 */
#ifndef ISW_BUDGET_H
#define ISW_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#define ISW_BUDGET_POOLS_MAX 8
#define ISW_BUDGET_HOLDS_MAX 256
#define ISW_BUDGET_NAME_MAX  32

/*
 * Registers pool name with units units of unit_bytes bytes each; unit names the unit in
 * listings ("slot", "aggregator"). Returns 0, -EEXIST or -ENOSPC.
 */
int isw_budget_pool_add(const char *name, uint32_t units, uint32_t unit_bytes, const char *unit);

/* Removes a pool and every range taken from it. */
void isw_budget_pool_del(const char *name);

/*
 * Takes units contiguous units from pool for holder (first fit) and stores the first unit in
 * *base. Returns 0, or -ENOENT (no pool), -EEXIST (holder already holds a range), -EINVAL
 * (zero units) or -ENOSPC (no free range that large), with err saying what is free.
 */
int isw_budget_take(const char *pool, const char *holder, uint32_t units, uint32_t *base, char *err,
                    size_t errlen);

/* As isw_budget_take(), but exactly units units from base; -ENOSPC if any of them is held. */
int isw_budget_take_at(const char *pool, const char *holder, uint32_t base, uint32_t units,
                       char *err, size_t errlen);

/* Returns holder's range to pool. Returns 0 or -ENOENT. */
int isw_budget_give(const char *pool, const char *holder);

/* Largest free contiguous range of pool, in units (0 if the pool does not exist). */
uint32_t isw_budget_largest_free(const char *pool);

#endif
