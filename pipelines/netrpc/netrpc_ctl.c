/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NetRPC control side (docs/netrpc.md): `netrpc service check FILE`, a service description
 * parsed, checked and placed on the stages of the active profile next to the enabled pipelines,
 * nothing loaded. Control thread only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "netrpc_desc.h"
#include "pipeline.h"

/* Reads a description file whole: at most NRPC_TEXT_MAX bytes, into a malloc'ed buffer. */
static int read_desc(struct isw_cmd_ctx *c, const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		int e = errno;
		return isw_cmd_err(c, e,
		                   "%s: %s (a path the switch can read: an absolute one, or "
		                   "relative to the switch's working directory)",
		                   path, strerror(e));
	}
	char *b = malloc(NRPC_TEXT_MAX + 1);
	if (b == NULL) {
		fclose(f);
		return isw_cmd_err(c, ENOMEM, "no memory");
	}
	size_t n = fread(b, 1, NRPC_TEXT_MAX + 1, f);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(b);
		return isw_cmd_err(c, EIO, "%s: read error", path);
	}
	if (n > NRPC_TEXT_MAX) {
		free(b);
		return isw_cmd_err(c, EFBIG, "%s: longer than %u bytes", path, NRPC_TEXT_MAX);
	}
	*text = b;
	*len = n;
	return 0;
}

static void op_json(struct isw_json *o, const struct nrpc_op *op, unsigned code)
{
	char chain[256];
	size_t n = 0;
	chain[0] = '\0';
	for (unsigned i = 0; i < op->n && n < sizeof(chain); i++) {
		const struct nrpc_step *s = &op->step[i];
		const char *sep = i ? " " : "";
		if (s->prim == NRPC_MODIFY)
			n += (size_t)snprintf(chain + n, sizeof(chain) - n, "%smodify(%s)", sep,
			                      nrpc_mod_name(s->mod));
		else if (s->prim == NRPC_CNTFWD && s->th_members)
			n += (size_t)snprintf(chain + n, sizeof(chain) - n, "%scntfwd(members, %s)",
			                      sep, nrpc_target_name(s->target));
		else if (s->prim == NRPC_CNTFWD)
			n += (size_t)snprintf(chain + n, sizeof(chain) - n, "%scntfwd(%u, %s)", sep,
			                      s->th, nrpc_target_name(s->target));
		else
			n += (size_t)snprintf(chain + n, sizeof(chain) - n, "%s%s", sep,
			                      nrpc_prim_name(s->prim));
	}
	bool cnt = op->step[op->n - 1].prim == NRPC_CNTFWD;
	isw_json_obj_open(o, NULL);
	isw_json_u64(o, "op", code);
	isw_json_str_kv(o, "name", op->name);
	isw_json_str_kv(o, "primitives", chain);
	isw_json_str_kv(o, "to", cnt ? "cntfwd" : nrpc_target_name(op->to));
	isw_json_str_kv(o, "reliability", nrpc_rel_name(op->rel));
	isw_json_obj_close(o);
}

static int cmd_check(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (isw_arg_count(c, argc, 1, 1) < 0)
		return -EINVAL;
	char *text = NULL;
	size_t len = 0;
	int rc = read_desc(c, argv[0], &text, &len);
	if (rc < 0 || text == NULL)
		return rc < 0 ? rc : -EIO;
	struct nrpc_desc *d = malloc(sizeof(*d));
	if (d == NULL) {
		free(text);
		return isw_cmd_err(c, ENOMEM, "no memory");
	}
	char why[256];
	rc = nrpc_desc_parse(text, len, d, why, sizeof(why));
	free(text);
	if (rc < 0) {
		free(d);
		return isw_cmd_err(c, EINVAL, "%s: %s", argv[0], why);
	}
	/* what the enabled pipelines take: the service goes where the stages have room */
	const struct isw_profile *prof = isw_profile_current();
	struct isw_asic_use use;
	memset(&use, 0, sizeof(use));
	for (struct isw_pipeline *p = isw_pipeline_next(NULL); p; p = isw_pipeline_next(p))
		if (p->enabled && p->asic != NULL &&
		    isw_asic_account(p->asic, &use, why, sizeof(why)) < 0) {
			free(d);
			return isw_cmd_err(c, EINVAL, "%s", why);
		}
	int base = nrpc_desc_place(d, &use, prof, why, sizeof(why));
	if (base < 0) {
		free(d);
		return isw_cmd_err(c, ENOSPC, "%s", why);
	}
	isw_json_str_kv(c->out, "service", d->name);
	isw_json_u64(c->out, "id", d->id);
	isw_json_str_kv(c->out, "type", nrpc_type_name(d->type));
	isw_json_u64(c->out, "cells", d->cells);
	isw_json_u64(c->out, "values", d->values);
	isw_json_u64(c->out, "key_bytes", d->key_bytes);
	isw_json_u64(c->out, "members", d->members);
	isw_json_bool(c->out, "server", d->server);
	if (d->need_seen)
		isw_json_u64(c->out, "window", d->window);
	else
		isw_json_null(c->out, "window");
	isw_json_arr_open(c->out, "ops");
	for (unsigned i = 0; i < d->nops; i++)
		op_json(c->out, &d->op[i], i);
	isw_json_arr_close(c->out);
	isw_json_str_kv(c->out, "profile", prof->name);
	isw_json_u64(c->out, "first_stage", (uint64_t)base);
	struct isw_reg_decl regs[NRPC_REGS_MAX];
	unsigned n = nrpc_desc_regs(d, (unsigned)base, regs);
	isw_json_arr_open(c->out, "registers");
	for (unsigned i = 0; i < n; i++) {
		const struct isw_reg_decl *r = &regs[i];
		unsigned lanes = r->kind == ISW_REG_VEC ? r->lanes : 1u;
		isw_json_obj_open(c->out, NULL);
		isw_json_strf(c->out, "name", "netrpc.%s.%s", d->name, r->name);
		isw_json_u64(c->out, "first_stage", r->stage);
		isw_json_u64(c->out, "last_stage",
		             r->stage + (lanes - 1) /
		                                (r->kind == ISW_REG_VEC ? r->lanes_per_stage : 1u));
		isw_json_u64(c->out, "cells", r->size);
		isw_json_u64(c->out, "lanes", lanes);
		isw_json_u64(c->out, "bytes", isw_reg_decl_bytes(r));
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	free(d);
	return 0;
}
ISW_CMD_REGISTER(netrpc_service_check, "netrpc service check", "FILE",
                 "parse and check a NetRPC service description (docs/netrpc.md) and place it "
                 "on the stages of the active profile next to the enabled pipelines; nothing "
                 "is loaded",
                 cmd_check)
