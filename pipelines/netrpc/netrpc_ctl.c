/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NetRPC control side (docs/netrpc.md): the netrpc pipeline, its address, and the services
 * loaded from descriptions at run time, each placed on the stages next to the enabled pipelines
 * and the other services, with register arrays of its own; their members and servers. The
 * whole configuration is one snapshot the data path reads (RCU). Control thread only; every
 * command checks all its arguments before it changes anything.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "dp.h"
#include "netrpc.h"
#include "pipeline.h"
#include "pre.h"

#define NRPC_MC_BASE (ISW_MC_RESERVED + 0xC0) /* PRE group of service slot i: base + i */

struct nrpc_conf *nrpc_conf_cur;

static struct nrpc_conf *master;
static bool enabled;
static const uint8_t default_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x4e, 0x52};

/* The pipeline's declaration: every loaded service's arrays, so that enabling another pipeline
 * checks the profile against them too (rebuilt at each load and del). */
static struct isw_reg_decl decl_regs[NRPC_DECL_MAX];
static struct isw_asic_decl nrpc_asic = {.pipeline = "netrpc", .regs = decl_regs};

static int publish(void)
{
	struct nrpc_conf *c = malloc(sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	memcpy(c, master, sizeof(*c));
	isw_rcu_publish((void **)&nrpc_conf_cur, c, free);
	return 0;
}

static void decl_rebuild(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < NRPC_SERVICES_MAX; i++) {
		const struct nrpc_service *s = &master->svc[i];
		if (!s->valid)
			continue;
		for (unsigned j = 0; j < s->nregs && n < NRPC_DECL_MAX; j++)
			decl_regs[n++] = s->placed[j];
	}
	nrpc_asic.nb_regs = n;
}

static int nrpc_enable(struct isw_reg **regs, char *err, size_t errlen)
{
	(void)regs;
	master = calloc(1, sizeof(*master));
	if (master == NULL) {
		snprintf(err, errlen, "no memory for the netrpc configuration");
		return -ENOMEM;
	}
	memcpy(master->mac, default_mac, 6);
	master->udp_port = NRPC_UDP_PORT;
	if (publish() < 0) {
		free(master);
		master = NULL;
		snprintf(err, errlen, "no memory for the netrpc configuration");
		return -ENOMEM;
	}
	enabled = true;
	return 0;
}

static void service_free(struct nrpc_service *s)
{
	isw_reg_destroy_all(s->regs, s->nregs);
	isw_mc_destroy(s->group);
	memset(s, 0, sizeof(*s));
}

/* After the chain no longer runs the pipeline: the services' arrays and groups go. */
static void nrpc_disable(void)
{
	isw_rcu_publish((void **)&nrpc_conf_cur, NULL, free);
	for (unsigned i = 0; master && i < NRPC_SERVICES_MAX; i++)
		if (master->svc[i].valid)
			service_free(&master->svc[i]);
	nrpc_asic.nb_regs = 0; /* (the core destroys the declaration's arrays: none) */
	free(master);
	master = NULL;
	enabled = false;
}

/* No data path yet (docs/netrpc.md, Status): every packet goes on to the next pipeline. */
static int nrpc_process(struct isw_worker *w, struct rte_mbuf *m)
{
	(void)w;
	(void)m;
	return ISW_PKT_NEXT;
}

static struct isw_pipeline netrpc = {
        .name = "netrpc",
        .help = "NetRPC services loaded from descriptions (docs/netrpc.md); no data path yet",
        .order = 80,
        .asic = &nrpc_asic,
        .enable = nrpc_enable,
        .disable = nrpc_disable,
        .process = nrpc_process,
};
ISW_PIPELINE_REGISTER(netrpc)

static int need_enabled(struct isw_cmd_ctx *c)
{
	if (!enabled)
		return isw_cmd_err(c, ENODEV,
		                   "pipeline netrpc is not enabled ('pipeline enable "
		                   "netrpc')");
	return 0;
}

/* Reads a description file whole: a regular file of at most NRPC_TEXT_MAX bytes (never a FIFO
 * or a device, which could block the control thread), into a malloc'ed buffer. */
static int read_desc(struct isw_cmd_ctx *c, const char *path, char **text, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		return isw_cmd_err(c, e,
		                   "%s: %s (a path the switch can read: an absolute one, or "
		                   "relative to the switch's working directory)",
		                   path, strerror(e));
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return isw_cmd_err(c, EINVAL, "%s: not a regular file", path);
	}
	if (st.st_size > NRPC_TEXT_MAX) {
		close(fd);
		return isw_cmd_err(c, EFBIG, "%s: longer than %u bytes", path, NRPC_TEXT_MAX);
	}
	char *b = malloc(NRPC_TEXT_MAX + 1);
	if (b == NULL) {
		close(fd);
		return isw_cmd_err(c, ENOMEM, "no memory");
	}
	size_t n = 0;
	for (;;) {
		ssize_t r = read(fd, b + n, NRPC_TEXT_MAX + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			free(b);
			return isw_cmd_err(c, e, "%s: %s", path, strerror(e));
		}
		if (r == 0 || (n += (size_t)r) > NRPC_TEXT_MAX)
			break;
	}
	close(fd);
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

/* An array's own name: after the service's, where a loaded service's names carry it. */
static const char *array_name(const char *name)
{
	const char *dot = strchr(name, '.');
	return dot ? dot + 1 : name;
}

/* Reads and parses FILE into a malloc'ed description. */
static int load_desc(struct isw_cmd_ctx *c, const char *path, struct nrpc_desc **out)
{
	char *text = NULL;
	size_t len = 0;
	int rc = read_desc(c, path, &text, &len);
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
		return isw_cmd_err(c, EINVAL, "%s: %s", path, why);
	}
	*out = d;
	return 0;
}

/* Places d next to what the enabled pipelines (and the services loaded) take: its arrays in
 * regs, their number returned. */
static int place(struct isw_cmd_ctx *c, const struct nrpc_desc *d, const struct isw_profile *prof,
                 struct isw_reg_decl *regs)
{
	char why[320];
	struct isw_asic_use use;
	memset(&use, 0, sizeof(use));
	for (struct isw_pipeline *p = isw_pipeline_next(NULL); p; p = isw_pipeline_next(p))
		if (p->enabled && p->asic != NULL &&
		    isw_asic_account(p->asic, &use, why, sizeof(why)) < 0)
			return isw_cmd_err(c, EINVAL, "%s", why);
	int n = nrpc_desc_place(d, &use, prof, regs, why, sizeof(why));
	if (n < 0)
		return isw_cmd_err(c, ENOSPC, "%s", why);
	return n;
}

/* The first stage a service's arrays take. */
static unsigned first_stage(const struct isw_reg_decl *regs, unsigned n)
{
	unsigned first = n ? ISW_STAGES_MAX : 0;
	for (unsigned i = 0; i < n; i++)
		first = regs[i].stage < first ? regs[i].stage : first;
	return first;
}

/* A service's description and placement, as check, load and show give them. */
static void desc_json(struct isw_json *o, const struct nrpc_desc *d, const struct isw_profile *prof,
                      const struct isw_reg_decl *regs, unsigned n)
{
	isw_json_str_kv(o, "service", d->name);
	isw_json_u64(o, "id", d->id);
	isw_json_str_kv(o, "type", nrpc_type_name(d->type));
	isw_json_u64(o, "cells", d->cells);
	isw_json_u64(o, "values", d->values);
	isw_json_u64(o, "key_bytes", d->key_bytes);
	isw_json_u64(o, "members", d->members);
	isw_json_bool(o, "server", d->server);
	if (d->need_seen)
		isw_json_u64(o, "window", d->window);
	else
		isw_json_null(o, "window");
	isw_json_arr_open(o, "ops");
	for (unsigned i = 0; i < d->nops; i++)
		op_json(o, &d->op[i], i);
	isw_json_arr_close(o);
	isw_json_str_kv(o, "profile", prof->name);
	isw_json_u64(o, "first_stage", first_stage(regs, n));
	isw_json_arr_open(o, "registers");
	for (unsigned i = 0; i < n; i++) {
		const struct isw_reg_decl *r = &regs[i];
		unsigned lanes = r->kind == ISW_REG_VEC ? r->lanes : 1u;
		isw_json_obj_open(o, NULL);
		isw_json_strf(o, "name", "netrpc.%s.%s", d->name, array_name(r->name));
		isw_json_u64(o, "first_stage", r->stage);
		isw_json_u64(o, "last_stage",
		             r->stage + (lanes - 1) /
		                                (r->kind == ISW_REG_VEC ? r->lanes_per_stage : 1u));
		isw_json_u64(o, "cells", r->size);
		isw_json_u64(o, "lanes", lanes);
		isw_json_u64(o, "bytes", isw_reg_decl_bytes(r));
		isw_json_obj_close(o);
	}
	isw_json_arr_close(o);
}

static int cmd_check(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (isw_arg_count(c, argc, 1, 1) < 0)
		return -EINVAL;
	struct nrpc_desc *d;
	int rc = load_desc(c, argv[0], &d);
	if (rc < 0)
		return rc;
	const struct isw_profile *prof = isw_profile_current();
	struct isw_reg_decl regs[NRPC_REGS_MAX];
	int n = place(c, d, prof, regs);
	if (n >= 0)
		desc_json(c->out, d, prof, regs, (unsigned)n);
	free(d);
	return n < 0 ? n : 0;
}
ISW_CMD_REGISTER(netrpc_service_check, "netrpc service check", "FILE",
                 "parse and check a NetRPC service description (docs/netrpc.md) and place it "
                 "on the stages of the active profile next to the enabled pipelines; nothing "
                 "is loaded",
                 cmd_check)

static struct nrpc_service *service_by_name(const char *name)
{
	for (unsigned i = 0; master && i < NRPC_SERVICES_MAX; i++)
		if (master->svc[i].valid && strcmp(master->svc[i].d.name, name) == 0)
			return &master->svc[i];
	return NULL;
}

static int arg_service(struct isw_cmd_ctx *c, const char *name, struct nrpc_service **out)
{
	*out = service_by_name(name);
	if (*out == NULL)
		return isw_cmd_err(c, ENOENT, "no service %s ('netrpc service show')", name);
	return 0;
}

static int cmd_load(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 1, 1) < 0)
		return -EINVAL;
	struct nrpc_desc *d;
	int rc = load_desc(c, argv[0], &d);
	if (rc < 0)
		return rc;
	struct nrpc_service *s = NULL;
	struct isw_reg_decl regs[NRPC_REGS_MAX];
	unsigned slot = NRPC_SERVICES_MAX;
	for (unsigned i = 0; i < NRPC_SERVICES_MAX; i++) {
		const struct nrpc_service *o = &master->svc[i];
		if (o->valid && strcmp(o->d.name, d->name) == 0)
			rc = isw_cmd_err(c, EEXIST, "service %s is loaded already", d->name);
		else if (o->valid && o->d.id == d->id)
			rc = isw_cmd_err(c, EEXIST, "service %s has id %u already", o->d.name,
			                 d->id);
		else if (!o->valid && slot == NRPC_SERVICES_MAX)
			slot = i;
		if (rc < 0)
			goto out;
	}
	if (slot == NRPC_SERVICES_MAX) {
		rc = isw_cmd_err(c, ENOSPC, "%u services are loaded: the most there can be",
		                 NRPC_SERVICES_MAX);
		goto out;
	}
	const struct isw_profile *prof = isw_profile_current();
	int placed = place(c, d, prof, regs);
	if (placed < 0) {
		rc = placed;
		goto out;
	}
	unsigned n = (unsigned)placed;
	if (nrpc_asic.nb_regs + n > NRPC_DECL_MAX) {
		rc = isw_cmd_err(c, ENOSPC,
		                 "the services' register arrays: %u with this one, at most %u",
		                 nrpc_asic.nb_regs + n, NRPC_DECL_MAX);
		goto out;
	}
	s = &master->svc[slot];
	struct nrpc_service was = *s;
	memset(s, 0, sizeof(*s));
	s->d = *d;
	s->nregs = n;
	for (unsigned i = 0; i < n; i++) {
		snprintf(s->reg_names[i], sizeof(s->reg_names[i]), "%s.%s", d->name, regs[i].name);
		s->placed[i] = regs[i];
		s->placed[i].name = s->reg_names[i];
	}
	const struct isw_asic_decl one = {.pipeline = "netrpc", .regs = s->placed, .nb_regs = n};
	char why[ISW_CMD_ERR_MAX];
	rc = isw_reg_create_all(&one, s->regs, why, sizeof(why));
	if (rc < 0) {
		*s = was;
		rc = isw_cmd_err(c, -rc, "%s", why);
		goto out;
	}
	s->group = (uint16_t)(NRPC_MC_BASE + slot);
	rc = isw_mc_create(s->group);
	if (rc < 0) {
		isw_reg_destroy_all(s->regs, n);
		*s = was;
		rc = isw_cmd_err(c, -rc, "no PRE group %u for the service's members",
		                 NRPC_MC_BASE + slot);
		goto out;
	}
	s->valid = true;
	master->by_id[d->id] = (uint8_t)(slot + 1);
	decl_rebuild();
	if (publish() < 0) {
		master->by_id[d->id] = 0;
		service_free(s);
		decl_rebuild();
		rc = isw_cmd_err(c, ENOMEM, "no memory; nothing loaded");
		goto out;
	}
	desc_json(c->out, d, prof, s->placed, n);
	rc = 0;
out:
	free(d);
	return rc;
}
ISW_CMD_REGISTER(netrpc_service_load, "netrpc service load", "FILE",
                 "load the NetRPC service described in FILE (docs/netrpc.md): checked, placed "
                 "next to the enabled pipelines and the other services, its register arrays "
                 "created and cleared",
                 cmd_load)

static int cmd_del(struct isw_cmd_ctx *c, int argc, char **argv)
{
	struct nrpc_service *s;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 1, 1) < 0 ||
	    arg_service(c, argv[0], &s) < 0)
		return -EINVAL;
	uint8_t id = s->d.id;
	struct nrpc_service was = *s;
	s->valid = false;
	master->by_id[id] = 0;
	if (publish() < 0) { /* (publish waits until no worker reads the old snapshot) */
		*s = was;
		master->by_id[id] = (uint8_t)(s - master->svc + 1);
		return isw_cmd_err(c, ENOMEM, "no memory; nothing deleted");
	}
	service_free(s);
	decl_rebuild();
	return 0;
}
ISW_CMD_REGISTER(netrpc_service_del, "netrpc service del", "NAME",
                 "unload a NetRPC service: its packets are no longer taken, then its register "
                 "arrays and its members' group are freed",
                 cmd_del)

static void peer_fields(struct isw_json *o, const struct nrpc_peer *p)
{
	char ip[INET_ADDRSTRLEN];
	isw_json_strf(o, "mac", "%02x:%02x:%02x:%02x:%02x:%02x", p->mac[0], p->mac[1], p->mac[2],
	              p->mac[3], p->mac[4], p->mac[5]);
	inet_ntop(AF_INET, &p->ip, ip, sizeof(ip));
	isw_json_str_kv(o, "ip", ip);
	isw_json_u64(o, "udp_port", p->udp_port);
	isw_json_u64(o, "port", p->port);
}

static void peer_json(struct isw_json *o, const char *key, const struct nrpc_peer *p)
{
	isw_json_obj_open(o, key);
	peer_fields(o, p);
	isw_json_obj_close(o);
}

static int cmd_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	struct nrpc_service *one = NULL;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 0, 1) < 0 ||
	    (argc == 1 && arg_service(c, argv[0], &one) < 0))
		return -EINVAL;
	if (one != NULL) {
		desc_json(c->out, &one->d, isw_profile_current(), one->placed, one->nregs);
		isw_json_u64(c->out, "group", one->group);
		isw_json_arr_open(c->out, "members");
		for (unsigned r = 0; r < one->d.members; r++) {
			if (!one->member[r].valid)
				continue;
			isw_json_obj_open(c->out, NULL);
			isw_json_u64(c->out, "rank", r);
			peer_fields(c->out, &one->member[r]);
			isw_json_obj_close(c->out);
		}
		isw_json_arr_close(c->out);
		if (one->server.valid)
			peer_json(c->out, "server_at", &one->server);
		else
			isw_json_null(c->out, "server_at");
		return 0;
	}
	isw_json_arr_open(c->out, "services");
	for (unsigned i = 0; i < NRPC_SERVICES_MAX; i++) {
		const struct nrpc_service *s = &master->svc[i];
		if (!s->valid)
			continue;
		unsigned members = 0;
		for (unsigned r = 0; r < s->d.members; r++)
			members += s->member[r].valid;
		isw_json_obj_open(c->out, NULL);
		isw_json_str_kv(c->out, "service", s->d.name);
		isw_json_u64(c->out, "id", s->d.id);
		isw_json_str_kv(c->out, "type", nrpc_type_name(s->d.type));
		isw_json_u64(c->out, "cells", s->d.cells);
		isw_json_u64(c->out, "values", s->d.values);
		isw_json_u64(c->out, "ops", s->d.nops);
		isw_json_strf(c->out, "members", "%u/%u", members, s->d.members);
		isw_json_bool(c->out, "server", s->server.valid);
		isw_json_u64(c->out, "first_stage", first_stage(s->placed, s->nregs));
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(netrpc_service_show, "netrpc service show", "[NAME]",
                 "the loaded NetRPC services, or one with its operations, arrays and members",
                 cmd_show)

/* `mac M ip IP port P udp-port U` (from argv) into p. */
static int arg_peer(struct isw_cmd_ctx *c, int argc, char **argv, struct nrpc_peer *p)
{
	struct isw_kv kv[] = {{"mac", NULL}, {"ip", NULL}, {"port", NULL}, {"udp-port", NULL}};
	uint32_t u;
	if (isw_arg_kv(c, argc, argv, kv, RTE_DIM(kv)) < 0)
		return -EINVAL;
	for (unsigned i = 0; i < RTE_DIM(kv); i++)
		if (kv[i].val == NULL)
			return isw_cmd_err(c, EINVAL,
			                   "%s is missing: mac M ip IP port P udp-port U",
			                   kv[i].key);
	memset(p, 0, sizeof(*p));
	if (isw_arg_mac(c, kv[0].val, "mac", p->mac) < 0 ||
	    isw_arg_ipv4(c, kv[1].val, "ip", &p->ip) < 0 ||
	    isw_arg_port(c, kv[2].val, &p->port) < 0 ||
	    isw_arg_u32(c, kv[3].val, "udp-port", 1, 65535, &u) < 0)
		return -EINVAL;
	p->udp_port = (uint16_t)u;
	p->valid = true;
	return 0;
}

/* The members' group: each member's port, with its rank as the replication id. */
static int group_set(const struct nrpc_service *s)
{
	struct isw_mc_member m[NRPC_MEMBERS_MAX];
	uint16_t n = 0;
	for (unsigned r = 0; r < s->d.members; r++)
		if (s->member[r].valid)
			m[n++] = (struct isw_mc_member){.port = s->member[r].port,
			                                .rid = (uint16_t)r};
	return isw_mc_set(s->group, m, n);
}

/* Member rank of s becomes p (invalid: forgotten), in its group and the snapshot, or nothing
 * changes. */
static int member_set(struct isw_cmd_ctx *c, struct nrpc_service *s, uint32_t rank,
                      const struct nrpc_peer *p)
{
	struct nrpc_peer was = s->member[rank];
	s->member[rank] = *p;
	int rc = group_set(s);
	if (rc == 0)
		rc = publish();
	if (rc < 0) {
		s->member[rank] = was;
		(void)group_set(s);
		return isw_cmd_err(c, -rc, "nothing changed");
	}
	return 0;
}

static int cmd_member_add(struct isw_cmd_ctx *c, int argc, char **argv)
{
	struct nrpc_service *s;
	uint32_t rank;
	struct nrpc_peer p;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 10, 10) < 0 ||
	    arg_service(c, argv[0], &s) < 0 ||
	    isw_arg_u32(c, argv[1], "rank", 0, NRPC_MEMBERS_MAX - 1, &rank) < 0 ||
	    arg_peer(c, argc - 2, argv + 2, &p) < 0)
		return -EINVAL;
	if (rank >= s->d.members)
		return isw_cmd_err(c, ERANGE, "rank %u: service %s has %u members (0..%u)", rank,
		                   s->d.name, s->d.members, s->d.members - 1);
	return member_set(c, s, rank, &p);
}
ISW_CMD_REGISTER(netrpc_member_add, "netrpc member add",
                 "SERVICE RANK mac M ip IP port P udp-port U",
                 "register (or replace) member RANK of a service: its addresses, the switch "
                 "port it is behind and the UDP port its replies go to",
                 cmd_member_add)

static int cmd_member_del(struct isw_cmd_ctx *c, int argc, char **argv)
{
	struct nrpc_service *s;
	uint32_t rank;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 2, 2) < 0 ||
	    arg_service(c, argv[0], &s) < 0 ||
	    isw_arg_u32(c, argv[1], "rank", 0, NRPC_MEMBERS_MAX - 1, &rank) < 0)
		return -EINVAL;
	if (rank >= s->d.members || !s->member[rank].valid)
		return isw_cmd_err(c, ENOENT, "service %s has no member %u", s->d.name, rank);
	const struct nrpc_peer none = {.valid = false};
	return member_set(c, s, rank, &none);
}
ISW_CMD_REGISTER(netrpc_member_del, "netrpc member del", "SERVICE RANK",
                 "forget member RANK of a service", cmd_member_del)

static int cmd_server_set(struct isw_cmd_ctx *c, int argc, char **argv)
{
	struct nrpc_service *s;
	struct nrpc_peer p;
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 9, 9) < 0 ||
	    arg_service(c, argv[0], &s) < 0 || arg_peer(c, argc - 1, argv + 1, &p) < 0)
		return -EINVAL;
	if (!s->d.server)
		return isw_cmd_err(c, EINVAL,
		                   "service %s has no server in its description ('server')",
		                   s->d.name);
	struct nrpc_peer was = s->server;
	s->server = p;
	if (publish() < 0) {
		s->server = was;
		return isw_cmd_err(c, ENOMEM, "no memory; nothing changed");
	}
	return 0;
}
ISW_CMD_REGISTER(netrpc_server_set, "netrpc server set", "SERVICE mac M ip IP port P udp-port U",
                 "where a service's misses and the packets its operations send to the server "
                 "go",
                 cmd_server_set)

static int cmd_config_set(struct isw_cmd_ctx *c, int argc, char **argv)
{
	struct isw_kv kv[] = {{"ip", NULL}, {"mac", NULL}, {"udp-port", NULL}};
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 2, 6) < 0 ||
	    isw_arg_kv(c, argc, argv, kv, RTE_DIM(kv)) < 0)
		return -EINVAL;
	struct nrpc_conf was = *master;
	uint32_t u;
	if ((kv[0].val && isw_arg_ipv4(c, kv[0].val, "ip", &master->ip) < 0) ||
	    (kv[1].val && isw_arg_mac(c, kv[1].val, "mac", master->mac) < 0) ||
	    (kv[2].val && isw_arg_u32(c, kv[2].val, "udp-port", 1, 65535, &u) < 0)) {
		*master = was;
		return -EINVAL;
	}
	if (kv[2].val)
		master->udp_port = (uint16_t)u;
	if (publish() < 0) {
		*master = was;
		return isw_cmd_err(c, ENOMEM, "no memory; nothing changed");
	}
	return 0;
}
ISW_CMD_REGISTER(netrpc_config_set, "netrpc config set", "[ip IP] [mac MAC] [udp-port P]",
                 "the switch's NetRPC address (clients send to it; none by default: no packet "
                 "is taken), MAC and UDP port (default 20050)",
                 cmd_config_set)

static int cmd_config_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (need_enabled(c) < 0 || isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	char ip[INET_ADDRSTRLEN];
	if (master->ip != 0) {
		inet_ntop(AF_INET, &master->ip, ip, sizeof(ip));
		isw_json_str_kv(c->out, "ip", ip);
	} else {
		isw_json_null(c->out, "ip");
	}
	isw_json_strf(c->out, "mac", "%02x:%02x:%02x:%02x:%02x:%02x", master->mac[0],
	              master->mac[1], master->mac[2], master->mac[3], master->mac[4],
	              master->mac[5]);
	isw_json_u64(c->out, "udp_port", master->udp_port);
	return 0;
}
ISW_CMD_REGISTER(netrpc_config_show, "netrpc config show", "",
                 "the switch's NetRPC address, MAC and UDP port", cmd_config_show)
