/* SPDX-License-Identifier: BSD-3-Clause */
/* The switch-memory budget: pools of aggregator memory and the ranges tenants hold. */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "budget.h"
#include "cmd.h"

struct hold {
	char holder[ISW_BUDGET_NAME_MAX];
	uint32_t base;
	uint32_t units;
};

struct pool {
	char name[ISW_BUDGET_NAME_MAX];
	char unit[ISW_BUDGET_NAME_MAX];
	uint32_t units;
	uint32_t unit_bytes;
	unsigned nb_holds;
	struct hold holds[ISW_BUDGET_HOLDS_MAX]; /* sorted by base */
};

static struct pool pools[ISW_BUDGET_POOLS_MAX];

static struct pool *pool_find(const char *name)
{
	for (unsigned i = 0; i < ISW_BUDGET_POOLS_MAX; i++)
		if (pools[i].name[0] != '\0' && strcmp(pools[i].name, name) == 0)
			return &pools[i];
	return NULL;
}

int isw_budget_pool_add(const char *name, uint32_t units, uint32_t unit_bytes, const char *unit)
{
	if (pool_find(name) != NULL)
		return -EEXIST;
	for (unsigned i = 0; i < ISW_BUDGET_POOLS_MAX; i++) {
		struct pool *p = &pools[i];
		if (p->name[0] != '\0')
			continue;
		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%s", name);
		snprintf(p->unit, sizeof(p->unit), "%s", unit);
		p->units = units;
		p->unit_bytes = unit_bytes;
		return 0;
	}
	return -ENOSPC;
}

void isw_budget_pool_del(const char *name)
{
	struct pool *p = pool_find(name);
	if (p != NULL)
		memset(p, 0, sizeof(*p));
}

/* Calls fn for every free gap of p in order; stops when fn returns true. */
static bool gaps(const struct pool *p, bool (*fn)(uint32_t base, uint32_t len, void *arg),
                 void *arg)
{
	uint32_t at = 0;
	for (unsigned i = 0; i <= p->nb_holds; i++) {
		uint32_t end = i < p->nb_holds ? p->holds[i].base : p->units;
		if (end > at && fn(at, end - at, arg))
			return true;
		if (i < p->nb_holds)
			at = p->holds[i].base + p->holds[i].units;
	}
	return false;
}

struct fit {
	uint32_t want;
	uint32_t base;
	uint32_t largest;
};

static bool first_fit(uint32_t base, uint32_t len, void *arg)
{
	struct fit *f = arg;
	if (len > f->largest)
		f->largest = len;
	if (len >= f->want) {
		f->base = base;
		return true;
	}
	return false;
}

uint32_t isw_budget_largest_free(const char *pool)
{
	const struct pool *p = pool_find(pool);
	struct fit f = {.want = UINT32_MAX};
	if (p != NULL)
		gaps(p, first_fit, &f);
	return f.largest;
}

/* A gap that holds [want_base, want_base + want): found when fit.want_base is not UINT32_MAX. */
static bool fit_at(uint32_t base, uint32_t len, void *arg)
{
	struct fit *f = arg;
	if (len > f->largest)
		f->largest = len;
	if (f->base >= base && (uint64_t)f->base + f->want <= (uint64_t)base + len)
		return true;
	return false;
}

/* isw_budget_take() and isw_budget_take_at(): at is the base wanted, or UINT32_MAX for any. */
static int take(const char *pool, const char *holder, uint32_t units, uint32_t at, uint32_t *base,
                char *err, size_t errlen)
{
	struct pool *p = pool_find(pool);
	if (p == NULL) {
		snprintf(err, errlen, "no memory pool %s (is its pipeline enabled?)", pool);
		return -ENOENT;
	}
	if (units == 0) {
		snprintf(err, errlen, "a range of %s needs at least one %s", pool, p->unit);
		return -EINVAL;
	}
	for (unsigned i = 0; i < p->nb_holds; i++) {
		if (strcmp(p->holds[i].holder, holder) == 0) {
			snprintf(err, errlen, "%s already holds %s %u-%u", holder, pool,
			         p->holds[i].base, p->holds[i].base + p->holds[i].units - 1);
			return -EEXIST;
		}
	}
	struct fit f = {.want = units, .base = at};
	bool found = p->nb_holds < ISW_BUDGET_HOLDS_MAX &&
	             gaps(p, at == UINT32_MAX ? first_fit : fit_at, &f);
	if (!found && at != UINT32_MAX) {
		snprintf(err, errlen,
		         "%s: %ss %u-%u are not all free (the largest free range is %u of %u; see "
		         "'budget show')",
		         pool, p->unit, at, (uint32_t)((uint64_t)at + units - 1), f.largest,
		         p->units);
		return -ENOSPC;
	}
	if (!found) {
		snprintf(
		        err, errlen,
		        "%s: %u %ss wanted, the largest free range is %u of %u (see 'budget show')",
		        pool, units, p->unit, f.largest, p->units);
		return -ENOSPC;
	}
	unsigned i = 0;
	while (i < p->nb_holds && p->holds[i].base < f.base)
		i++;
	memmove(&p->holds[i + 1], &p->holds[i], (p->nb_holds - i) * sizeof(p->holds[0]));
	struct hold *h = &p->holds[i];
	snprintf(h->holder, sizeof(h->holder), "%s", holder);
	h->base = f.base;
	h->units = units;
	p->nb_holds++;
	*base = f.base;
	return 0;
}

int isw_budget_take(const char *pool, const char *holder, uint32_t units, uint32_t *base, char *err,
                    size_t errlen)
{
	return take(pool, holder, units, UINT32_MAX, base, err, errlen);
}

int isw_budget_take_at(const char *pool, const char *holder, uint32_t base, uint32_t units,
                       char *err, size_t errlen)
{
	uint32_t got;
	if (base == UINT32_MAX) {
		snprintf(err, errlen, "%s: no range starts at %u", pool, base);
		return -EINVAL;
	}
	return take(pool, holder, units, base, &got, err, errlen);
}

int isw_budget_give(const char *pool, const char *holder)
{
	struct pool *p = pool_find(pool);
	if (p == NULL)
		return -ENOENT;
	for (unsigned i = 0; i < p->nb_holds; i++) {
		if (strcmp(p->holds[i].holder, holder) != 0)
			continue;
		memmove(&p->holds[i], &p->holds[i + 1],
		        (p->nb_holds - i - 1) * sizeof(p->holds[0]));
		p->nb_holds--;
		return 0;
	}
	return -ENOENT;
}

static int cmd_budget_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	isw_json_arr_open(c->out, "pools");
	for (unsigned i = 0; i < ISW_BUDGET_POOLS_MAX; i++) {
		const struct pool *p = &pools[i];
		if (p->name[0] == '\0')
			continue;
		uint32_t used = 0;
		for (unsigned k = 0; k < p->nb_holds; k++)
			used += p->holds[k].units;
		isw_json_obj_open(c->out, NULL);
		isw_json_str_kv(c->out, "pool", p->name);
		isw_json_str_kv(c->out, "unit", p->unit);
		isw_json_u64(c->out, "unit_bytes", p->unit_bytes);
		isw_json_u64(c->out, "units", p->units);
		isw_json_u64(c->out, "used", used);
		isw_json_u64(c->out, "free", p->units - used);
		isw_json_u64(c->out, "largest_free", isw_budget_largest_free(p->name));
		isw_json_arr_open(c->out, "holders");
		for (unsigned k = 0; k < p->nb_holds; k++) {
			const struct hold *h = &p->holds[k];
			isw_json_obj_open(c->out, NULL);
			isw_json_str_kv(c->out, "holder", h->holder);
			isw_json_u64(c->out, "first", h->base);
			isw_json_u64(c->out, "units", h->units);
			isw_json_u64(c->out, "bytes", (uint64_t)h->units * p->unit_bytes);
			isw_json_obj_close(c->out);
		}
		isw_json_arr_close(c->out);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(budget_show, "budget show", "",
                 "show the switch-memory pools and which session, app or task holds what",
                 cmd_budget_show)
