/* SPDX-License-Identifier: BSD-3-Clause */
/* Register arrays, profiles and resource checks of the ASIC model. Control thread only, except
 * isw_pass_violation(), which a worker calls in strict mode. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asic.h"

/*
 * Tofino figures from public descriptions: 12 (Tofino 1) or 20 (Tofino 2) match-action stages per
 * pipe, 4 stateful ALUs per stage, 16 logical tables per stage, and 80 SRAM blocks of 128 Kbit
 * (16 KiB) per stage. docs/asic-model.md says what the model leaves out.
 */
#define SRAM_BLOCK  (16u * 1024)
#define TOFINO_SRAM (80ull * SRAM_BLOCK)

static const struct isw_profile profiles[] = {
        {"tofino1", 12, 4, 16, TOFINO_SRAM},
        {"tofino2", 20, 4, 16, TOFINO_SRAM},
        {"unlimited", ISW_STAGES_MAX, UINT32_MAX, UINT32_MAX, UINT64_MAX},
};

static const struct isw_profile *cur_profile = &profiles[1];

static struct isw_reg *registry[ISW_REG_MAX];

const struct isw_profile *isw_profile_find(const char *name)
{
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}

const struct isw_profile *isw_profile_current(void)
{
	return cur_profile;
}

int isw_profile_set(const char *name)
{
	const struct isw_profile *p = isw_profile_find(name);
	if (p == NULL)
		return -ENOENT;
	cur_profile = p;
	return 0;
}

void isw_pass_violation(struct isw_pass *p, const struct isw_reg *r)
{
	p->multi_access++;
	p->last_reg = r->id;
}

/* SRAM is allocated in whole blocks; a register array also needs one spare block per array on
 * Tofino for its stateful ALU's read-modify-write pipeline, which the model charges too. */
static unsigned decl_words(const struct isw_reg_decl *d)
{
	return d->kind == ISW_REG_PAIR ? 2u : d->kind == ISW_REG_VEC ? d->lanes : 1u;
}

/* SRAM of one lane (a vector) or of the whole array (u32, pair). */
static uint64_t lane_bytes(const struct isw_reg_decl *d)
{
	uint64_t bytes = (uint64_t)d->size * 4u * (d->kind == ISW_REG_PAIR ? 2u : 1u);
	return ((bytes + SRAM_BLOCK - 1) / SRAM_BLOCK + 1) * SRAM_BLOCK;
}

uint64_t isw_reg_decl_bytes(const struct isw_reg_decl *d)
{
	return lane_bytes(d) * (d->kind == ISW_REG_VEC ? d->lanes : 1u);
}

uint64_t isw_table_decl_bytes(const struct isw_table_decl *t)
{
	uint64_t bytes = (uint64_t)t->entries * t->entry_bytes;
	return (bytes + SRAM_BLOCK - 1) / SRAM_BLOCK * SRAM_BLOCK;
}

static bool is_pow2(uint32_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

int isw_asic_account(const struct isw_asic_decl *d, struct isw_asic_use *use, char *err,
                     size_t errlen)
{
	for (unsigned i = 0; i < d->nb_regs; i++) {
		const struct isw_reg_decl *r = &d->regs[i];
		if (!is_pow2(r->size) || r->size > ISW_REG_CELLS_MAX) {
			snprintf(err, errlen,
			         "%s.%s: size %u is not a power of two between 1 and %u",
			         d->pipeline, r->name, r->size, ISW_REG_CELLS_MAX);
			return -EINVAL;
		}
		if (r->kind != ISW_REG_U32 && r->kind != ISW_REG_PAIR && r->kind != ISW_REG_VEC) {
			snprintf(err, errlen, "%s.%s: unknown register kind %u", d->pipeline,
			         r->name, r->kind);
			return -EINVAL;
		}
		if (r->kind == ISW_REG_VEC && (r->lanes == 0 || r->lanes_per_stage == 0)) {
			snprintf(err, errlen, "%s.%s: a vector needs lanes and lanes per stage",
			         d->pipeline, r->name);
			return -EINVAL;
		}
		unsigned lanes = r->kind == ISW_REG_VEC ? r->lanes : 1u;
		unsigned per_stage = r->kind == ISW_REG_VEC ? r->lanes_per_stage : 1u;
		unsigned last = r->stage + (lanes - 1) / per_stage;
		if (last >= ISW_STAGES_MAX) {
			snprintf(err, errlen, "%s.%s: stage %u is beyond the model's %u stages",
			         d->pipeline, r->name, last, ISW_STAGES_MAX);
			return -EINVAL;
		}
		/* Every lane is an array of its own, with its own SALU and SRAM blocks. */
		for (unsigned l = 0; l < lanes; l++) {
			unsigned st = r->stage + l / per_stage;
			use->stage[st].salus++;
			use->stage[st].sram += lane_bytes(r);
		}
		if (last + 1u > use->stages)
			use->stages = last + 1u;
	}
	for (unsigned i = 0; i < d->nb_tables; i++) {
		const struct isw_table_decl *t = &d->tables[i];
		if (t->stage >= ISW_STAGES_MAX) {
			snprintf(err, errlen, "%s.%s: stage %u is beyond the model's %u stages",
			         d->pipeline, t->name, t->stage, ISW_STAGES_MAX);
			return -EINVAL;
		}
		use->stage[t->stage].tables++;
		use->stage[t->stage].sram += isw_table_decl_bytes(t);
		if (t->stage + 1u > use->stages)
			use->stages = t->stage + 1u;
	}
	return 0;
}

int isw_asic_fits(const struct isw_asic_use *use, const struct isw_profile *p, char *err,
                  size_t errlen)
{
	if (use->stages > p->stages) {
		snprintf(err, errlen, "needs %u stages, %s has %u", use->stages, p->name,
		         p->stages);
		return -ENOSPC;
	}
	for (unsigned s = 0; s < use->stages; s++) {
		const struct isw_stage_use *u = &use->stage[s];
		if (u->salus > p->salus_per_stage) {
			snprintf(err, errlen, "stage %u: %u stateful ALUs, %s has %u", s, u->salus,
			         p->name, p->salus_per_stage);
			return -ENOSPC;
		}
		if (u->tables > p->tables_per_stage) {
			snprintf(err, errlen, "stage %u: %u tables, %s has %u", s, u->tables,
			         p->name, p->tables_per_stage);
			return -ENOSPC;
		}
		if (u->sram > p->sram_per_stage) {
			snprintf(err, errlen, "stage %u: %llu KiB of SRAM, %s has %llu KiB", s,
			         (unsigned long long)(u->sram / 1024), p->name,
			         (unsigned long long)(p->sram_per_stage / 1024));
			return -ENOSPC;
		}
	}
	return 0;
}

int isw_asic_check(const struct isw_asic_decl *d, const struct isw_profile *p, char *err,
                   size_t errlen)
{
	struct isw_asic_use use;
	memset(&use, 0, sizeof(use));
	int rc = isw_asic_account(d, &use, err, errlen);
	if (rc < 0)
		return rc;
	char why[160];
	rc = isw_asic_fits(&use, p, why, sizeof(why));
	if (rc < 0)
		snprintf(err, errlen, "pipeline %s does not fit profile %s: %s", d->pipeline,
		         p->name, why);
	return rc;
}

static int registry_slot(void)
{
	for (int i = 0; i < ISW_REG_MAX; i++)
		if (registry[i] == NULL)
			return i;
	return -1;
}

static struct isw_reg *reg_alloc(const char *pipeline, const struct isw_reg_decl *d, char *err,
                                 size_t errlen)
{
	char name[2 * ISW_NAME_MAX];
	if ((size_t)snprintf(name, sizeof(name), "%s.%s", pipeline, d->name) >= sizeof(name)) {
		snprintf(err, errlen, "register name %s.%s is too long", pipeline, d->name);
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (isw_reg_find(name) != NULL) {
		snprintf(err, errlen, "register %s already exists", name);
		errno = EEXIST;
		return NULL;
	}
	int slot = registry_slot();
	if (slot < 0) {
		snprintf(err, errlen, "too many register arrays (at most %d)", ISW_REG_MAX);
		errno = ENOSPC;
		return NULL;
	}
	struct isw_reg *r = calloc(1, sizeof(*r));
	size_t bytes = (size_t)d->size * 4u * decl_words(d);
	void *cells = r ? aligned_alloc(64, bytes < 64 ? 64 : bytes) : NULL;
	if (cells == NULL) {
		free(r);
		snprintf(err, errlen, "no memory for register %s (%zu bytes)", name, bytes);
		errno = ENOMEM;
		return NULL;
	}
	memset(cells, 0, bytes);
	r->cells.u32 = cells;
	r->mask = d->size - 1;
	r->size = d->size;
	r->kind = d->kind;
	r->stage = d->stage;
	r->lanes = (uint16_t)decl_words(d);
	r->id = (uint16_t)slot;
	memcpy(r->name, name, sizeof(r->name));
	registry[slot] = r;
	return r;
}

static void reg_free(struct isw_reg *r)
{
	if (r == NULL)
		return;
	registry[r->id] = NULL;
	free(r->cells.u32);
	free(r);
}

int isw_reg_create_all(const struct isw_asic_decl *d, struct isw_reg **out, char *err,
                       size_t errlen)
{
	struct isw_asic_use use;
	memset(&use, 0, sizeof(use));
	int rc = isw_asic_account(d, &use, err, errlen);
	if (rc < 0)
		return rc;
	for (unsigned i = 0; i < d->nb_regs; i++) {
		out[i] = reg_alloc(d->pipeline, &d->regs[i], err, errlen);
		if (out[i] == NULL) {
			rc = -errno;
			isw_reg_destroy_all(out, i);
			return rc;
		}
	}
	return 0;
}

void isw_reg_destroy_all(struct isw_reg **regs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		reg_free(regs[i]);
		regs[i] = NULL;
	}
}

struct isw_reg *isw_reg_find(const char *name)
{
	for (int i = 0; i < ISW_REG_MAX; i++)
		if (registry[i] != NULL && strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

unsigned isw_reg_count(void)
{
	unsigned n = 0;
	for (int i = 0; i < ISW_REG_MAX; i++)
		n += registry[i] != NULL;
	return n;
}

struct isw_reg *isw_reg_at(unsigned i)
{
	/* Name order keeps listings stable whatever slot an array landed in. */
	struct isw_reg *sorted[ISW_REG_MAX];
	unsigned n = 0;
	for (int k = 0; k < ISW_REG_MAX; k++) {
		struct isw_reg *r = registry[k];
		if (r == NULL)
			continue;
		unsigned j = n++;
		while (j > 0 && strcmp(sorted[j - 1]->name, r->name) > 0) {
			sorted[j] = sorted[j - 1];
			j--;
		}
		sorted[j] = r;
	}
	return i < n ? sorted[i] : NULL;
}

uint64_t isw_reg_bytes(const struct isw_reg *r)
{
	return (uint64_t)r->size * 4u * r->lanes;
}

const char *isw_reg_kind_name(unsigned kind)
{
	return kind == ISW_REG_PAIR ? "pair" : kind == ISW_REG_VEC ? "vector" : "u32";
}

/* Pairs are stored lo, hi: the same layout as two lanes. */
uint64_t isw_reg_get(const struct isw_reg *r, uint32_t idx, unsigned half)
{
	if (r->kind == ISW_REG_U32)
		half = 0;
	return r->cells.u32[(size_t)(idx & r->mask) * r->lanes + half % r->lanes];
}

void isw_reg_set(struct isw_reg *r, uint32_t idx, unsigned half, uint32_t v)
{
	if (r->kind == ISW_REG_U32)
		half = 0;
	r->cells.u32[(size_t)(idx & r->mask) * r->lanes + half % r->lanes] = v;
}

void isw_reg_clear(struct isw_reg *r)
{
	memset(r->cells.u32, 0, isw_reg_bytes(r));
}

void isw_reg_clear_range(struct isw_reg *r, uint32_t first, uint32_t count)
{
	if (first >= r->size || count > r->size - first)
		return;
	memset(&r->cells.u32[(size_t)first * r->lanes], 0, (size_t)count * 4u * r->lanes);
}
