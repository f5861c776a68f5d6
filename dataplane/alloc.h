/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The aggregator allocator (docs/memory.md): jobs registered with their figures, a policy, and a
 * plan (alloc_plan.h) applied to the jobs' regions while they run. The pipelines whose tenants'
 * regions can move (SyncAgtr sessions) register a kind here: how to read a tenant's region and
 * counters, and how to ask for a new size. The commands are `alloc ...` (docs/ctl.md).
 *
 * Control thread only: the plan is applied through the kind's resize, which publishes like any
 * command; nothing here runs on worker lcores.
 */
#ifndef ISW_ALLOC_H
#define ISW_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a kind says of one of its tenants. */
struct isw_alloc_tenant {
	uint32_t units;   /* the region it has now */
	uint32_t base;    /* its first unit */
	bool movable;     /* its region can change under it; else fixed (why: in why) */
	bool changing;    /* a change is under way: no other until it ends */
	uint64_t bytes;   /* bytes aggregated so far (for the measured throughput) */
	uint32_t granule; /* a size must be a multiple of it (SyncAgtr: the session's threads) */
	char why[96];     /* for a fixed tenant: why its region cannot change */
};

struct isw_alloc_kind {
	const char *name;    /* "syncagtr": the word in `alloc job add NAME KIND ID` */
	uint32_t pool_units; /* the units of its budget pool */
	/* tenant id's state; -ENOENT when there is none, with the reason in err */
	int (*info)(uint32_t id, struct isw_alloc_tenant *t, char *err, size_t errlen);
	/* asks for tenant id's region to become units units; -errno with the reason in err
	 * (-EBUSY: not now, again later; -ENOSPC: not enough free memory now) */
	int (*resize)(uint32_t id, uint32_t units, char *err, size_t errlen);
};

/* Registers a kind (a pipeline's constructor or enable); at most ISW_ALLOC_KINDS_MAX. */
#define ISW_ALLOC_KINDS_MAX 4
void isw_alloc_kind_register(const struct isw_alloc_kind *k);

#endif
