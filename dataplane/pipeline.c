/* SPDX-License-Identifier: BSD-3-Clause */
/* Pipeline registry, enabling and disabling, and the chain published to workers. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp.h"
#include "pipeline.h"

static STAILQ_HEAD(, isw_pipeline) pipelines = STAILQ_HEAD_INITIALIZER(pipelines);
static uint16_t nb_pipelines;
static bool strict;

struct isw_chain *isw_chain_current;

void isw_pipeline_register(struct isw_pipeline *p)
{
	if (nb_pipelines + 1 >= ISW_MAX_PIPELINES) {
		fprintf(stderr, "inswitch: too many pipelines, %s not registered\n", p->name);
		return;
	}
	p->id = ++nb_pipelines;
	/* Keep the list in chain order so iteration and the chain agree. */
	struct isw_pipeline *prev = NULL, *it;
	STAILQ_FOREACH(it, &pipelines, next)
	{
		if (it->order > p->order)
			break;
		prev = it;
	}
	if (prev == NULL)
		STAILQ_INSERT_HEAD(&pipelines, p, next);
	else
		STAILQ_INSERT_AFTER(&pipelines, prev, p, next);
}

struct isw_pipeline *isw_pipeline_find(const char *name)
{
	struct isw_pipeline *p;
	STAILQ_FOREACH(p, &pipelines, next)
	if (strcmp(p->name, name) == 0)
		return p;
	return NULL;
}

struct isw_pipeline *isw_pipeline_by_id(uint16_t id)
{
	struct isw_pipeline *p;
	STAILQ_FOREACH(p, &pipelines, next)
	if (p->id == id)
		return p;
	return NULL;
}

struct isw_pipeline *isw_pipeline_next(struct isw_pipeline *p)
{
	return p == NULL ? STAILQ_FIRST(&pipelines) : STAILQ_NEXT(p, next);
}

void isw_claims_ip(struct isw_claims *c, uint32_t ip)
{
	for (unsigned i = 0; i < c->nb_ips; i++)
		if (c->ip[i] == ip)
			return;
	if (c->nb_ips == ISW_CLAIMS_MAX_IPS)
		c->overflow = true;
	else
		c->ip[c->nb_ips++] = ip;
}

void isw_claims_ethertype(struct isw_claims *c, uint16_t ethertype)
{
	for (unsigned i = 0; i < c->nb_ethertypes; i++)
		if (c->ethertype[i] == ethertype)
			return;
	if (c->nb_ethertypes == ISW_CLAIMS_MAX_ETHERTYPES)
		c->overflow = true;
	else
		c->ethertype[c->nb_ethertypes++] = ethertype;
}

void isw_pipeline_claims(struct isw_claims *c)
{
	memset(c, 0, sizeof(*c));
	struct isw_pipeline *p;
	STAILQ_FOREACH(p, &pipelines, next)
	{
		if (p->enabled && p->claims != NULL)
			p->claims(c);
	}
}

void isw_pipeline_steering(struct isw_steering *s)
{
	struct isw_pipeline *p;
	STAILQ_FOREACH(p, &pipelines, next)
	{
		if (p->enabled && p->steering != NULL)
			p->steering(s);
	}
}

const char *isw_pipeline_name(uint16_t id)
{
	if (id == 0)
		return "dataplane";
	struct isw_pipeline *p = isw_pipeline_by_id(id);
	return p ? p->name : "?";
}

static isw_pipeline_fn pick(const struct isw_pipeline *p)
{
	return strict && p->process_strict != NULL ? p->process_strict : p->process;
}

static int publish_chain(void)
{
	struct isw_chain *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	struct isw_pipeline *p;
	STAILQ_FOREACH(p, &pipelines, next)
	{
		if (!p->enabled)
			continue;
		c->stage[c->n].fn = pick(p);
		c->stage[c->n].burst = strict ? NULL : p->process_burst;
		c->stage[c->n].passes_all = p->passes_all;
		c->stage[c->n].id = p->id;
		c->n++;
	}
	isw_rcu_publish((void **)&isw_chain_current, c, free);
	return 0;
}

/* All enabled pipelines plus candidate must fit the profile together. */
static int check_fit(const struct isw_pipeline *candidate, char *err, size_t errlen)
{
	struct isw_asic_use use;
	memset(&use, 0, sizeof(use));
	struct isw_pipeline *p;
	STAILQ_FOREACH(p, &pipelines, next)
	{
		if ((p->enabled || p == candidate) && p->asic != NULL) {
			int rc = isw_asic_account(p->asic, &use, err, errlen);
			if (rc < 0)
				return rc;
		}
	}
	char why[200];
	const struct isw_profile *prof = isw_profile_current();
	int rc = isw_asic_fits(&use, prof, why, sizeof(why));
	if (rc < 0)
		snprintf(err, errlen, "enabling %s would exceed profile %s: %s", candidate->name,
		         prof->name, why);
	return rc;
}

static int enable(struct isw_pipeline *p, char *err, size_t errlen)
{
	if (p->enabled) {
		snprintf(err, errlen, "pipeline %s is already enabled", p->name);
		return -EEXIST;
	}
	int rc = check_fit(p, err, errlen);
	if (rc < 0)
		return rc;
	if (p->asic != NULL) {
		if (p->asic->nb_regs > RTE_DIM(p->regs)) {
			snprintf(err, errlen, "pipeline %s declares too many registers", p->name);
			return -E2BIG;
		}
		rc = isw_reg_create_all(p->asic, p->regs, err, errlen);
		if (rc < 0)
			return rc;
	}
	if (p->enable != NULL) {
		rc = p->enable(p->regs, err, errlen);
		if (rc < 0) {
			if (p->asic != NULL)
				isw_reg_destroy_all(p->regs, p->asic->nb_regs);
			return rc;
		}
	}
	p->enabled = true;
	rc = publish_chain();
	if (rc < 0) {
		snprintf(err, errlen, "no memory to publish the pipeline chain");
		p->enabled = false;
		if (p->disable != NULL)
			p->disable();
		if (p->asic != NULL)
			isw_reg_destroy_all(p->regs, p->asic->nb_regs);
	}
	return rc;
}

int isw_pipeline_enable(const char *name, char *err, size_t errlen)
{
	struct isw_pipeline *p = isw_pipeline_find(name);
	if (p == NULL) {
		snprintf(err, errlen, "unknown pipeline '%s' (see 'pipeline list')", name);
		return -ENOENT;
	}
	return enable(p, err, errlen);
}

static void disable(struct isw_pipeline *p)
{
	p->enabled = false;
	publish_chain(); /* synchronises: no worker runs p after this */
	if (p->disable != NULL)
		p->disable();
	if (p->asic != NULL)
		isw_reg_destroy_all(p->regs, p->asic->nb_regs);
}

int isw_pipeline_disable(const char *name, char *err, size_t errlen)
{
	struct isw_pipeline *p = isw_pipeline_find(name);
	if (p == NULL) {
		snprintf(err, errlen, "unknown pipeline '%s' (see 'pipeline list')", name);
		return -ENOENT;
	}
	if (p->always) {
		snprintf(err, errlen, "pipeline %s cannot be disabled", name);
		return -EPERM;
	}
	if (!p->enabled) {
		snprintf(err, errlen, "pipeline %s is not enabled", name);
		return -ENOENT;
	}
	disable(p);
	return 0;
}

int isw_pipeline_init(char *err, size_t errlen)
{
	struct isw_pipeline *p;
	STAILQ_FOREACH(p, &pipelines, next)
	{
		if (p->always && !p->enabled) {
			int rc = enable(p, err, errlen);
			if (rc < 0)
				return rc;
		}
	}
	return publish_chain();
}

void isw_pipeline_fini(void)
{
	struct isw_pipeline *p;
	STAILQ_FOREACH(p, &pipelines, next)
	if (p->enabled)
		disable(p);
	isw_rcu_publish((void **)&isw_chain_current, NULL, free);
}

void isw_pipeline_set_strict(bool on)
{
	strict = on;
	publish_chain();
}

bool isw_pipeline_strict(void)
{
	return strict;
}
