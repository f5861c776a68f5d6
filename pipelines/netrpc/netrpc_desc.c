/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NetRPC service descriptions: the parser, the checks and the placement (docs/netrpc.md).
 */
#include "netrpc_desc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define LINE_MAX_LEN 256
#define TOKENS_MAX   (2 + NRPC_CHAIN_MAX + 3)
#define ARGS_MAX     2

static const char *const type_names[] = {
        [NRPC_ARRAY] = "array", [NRPC_MAP] = "map", [NRPC_INTEGER] = "integer"};
static const char *const prim_names[] = {[NRPC_GET] = "get",
                                         [NRPC_ADDTO] = "addTo",
                                         [NRPC_CLEAR] = "clear",
                                         [NRPC_MODIFY] = "modify",
                                         [NRPC_CNTFWD] = "cntfwd"};
static const char *const mod_names[] = {[NRPC_MOD_SET] = "set",
                                        [NRPC_MOD_MAX] = "max",
                                        [NRPC_MOD_MIN] = "min",
                                        [NRPC_MOD_OR] = "or",
                                        [NRPC_MOD_AND] = "and"};
static const char *const target_names[] = {[NRPC_TO_SENDER] = "sender",
                                           [NRPC_TO_SERVER] = "server",
                                           [NRPC_TO_ALL] = "all",
                                           [NRPC_TO_DROP] = "drop"};
static const char *const rel_names[] = {
        [NRPC_REL_NONE] = "none", [NRPC_REL_SEEN] = "seen", [NRPC_REL_SYNC] = "sync"};

#define NAME_OF(tab, i) ((i) < sizeof(tab) / sizeof(tab[0]) && tab[i] ? tab[i] : "?")

const char *nrpc_type_name(unsigned t)
{
	return NAME_OF(type_names, t);
}
const char *nrpc_prim_name(unsigned p)
{
	return NAME_OF(prim_names, p);
}
const char *nrpc_mod_name(unsigned m)
{
	return NAME_OF(mod_names, m);
}
const char *nrpc_target_name(unsigned t)
{
	return NAME_OF(target_names, t);
}
const char *nrpc_rel_name(unsigned r)
{
	return NAME_OF(rel_names, r);
}

/* Index of s in tab[1..n-1], or 0. */
static unsigned lookup(const char *const *tab, unsigned n, const char *s)
{
	for (unsigned i = 1; i < n; i++)
		if (tab[i] != NULL && strcmp(tab[i], s) == 0)
			return i;
	return 0;
}
#define LOOKUP(tab, s) lookup(tab, sizeof(tab) / sizeof(tab[0]), s)

struct parser {
	unsigned line;
	char *err;
	size_t errlen;
};

static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n = p->line ? snprintf(p->err, p->errlen, "line %u: ", p->line) : 0;
	if (n < 0 || (size_t)n >= p->errlen)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A token: a word, and for a primitive with arguments, "word(a, b)" split into its args. */
struct token {
	char word[LINE_MAX_LEN];
	unsigned nargs;
	char arg[ARGS_MAX][LINE_MAX_LEN];
	bool paren;
};

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* Splits a line (comment removed, NUL-terminated) into tokens; -EINVAL on a malformed one. */
static int tokenize(struct parser *p, const char *s, struct token *t, unsigned *n)
{
	*n = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (*s == '\0')
			return 0;
		if (*n == TOKENS_MAX)
			return fail(p, "too many words");
		struct token *k = &t[(*n)++];
		memset(k, 0, sizeof(*k));
		size_t w = 0;
		while (word_char(*s))
			k->word[w++] = *s++;
		if (w == 0)
			return fail(p, "unexpected '%c'", *s);
		if (*s != '(')
			continue;
		s++;
		k->paren = true;
		for (;;) {
			while (*s == ' ' || *s == '\t')
				s++;
			if (k->nargs == ARGS_MAX)
				return fail(p, "%s: too many arguments", k->word);
			char *a = k->arg[k->nargs++];
			size_t l = 0;
			while (word_char(*s))
				a[l++] = *s++;
			while (*s == ' ' || *s == '\t')
				s++;
			if (l == 0)
				return fail(p, "%s: an empty argument", k->word);
			if (*s == ')') {
				s++;
				break;
			}
			if (*s != ',')
				return fail(p, "%s: expected ',' or ')'", k->word);
			s++;
		}
		if (word_char(*s) || *s == '(')
			return fail(p, "%s(...): a space must follow ')'", k->word);
	}
}

/* A decimal number in lo..hi. */
static int number(struct parser *p, const char *what, const char *s, uint32_t lo, uint32_t hi,
                  uint32_t *out)
{
	uint64_t v = 0;
	if (*s == '\0')
		return fail(p, "%s: a number is missing", what);
	for (const char *c = s; *c; c++) {
		if (*c < '0' || *c > '9')
			return fail(p, "%s: '%s' is not a number", what, s);
		v = v * 10 + (uint64_t)(*c - '0');
		if (v > hi)
			break;
	}
	if (v < lo || v > hi)
		return fail(p, "%s: '%s' is not in %u..%u", what, s, lo, hi);
	*out = (uint32_t)v;
	return 0;
}

static bool pow2(uint32_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= NRPC_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      *s == '-'))
			return false;
	return true;
}

static int target(struct parser *p, const char *what, const char *s, uint8_t *out)
{
	unsigned t = LOOKUP(target_names, s);
	if (t == 0)
		return fail(p, "%s: '%s' is not sender, server, all or drop", what, s);
	*out = (uint8_t)t;
	return 0;
}

/* An `op NAME PRIM... [to TARGET]` line, tokens t[1..n-1]. */
static int parse_op(struct parser *p, struct nrpc_desc *d, const struct token *t, unsigned n)
{
	if (d->nops == NRPC_OPS_MAX)
		return fail(p, "more than %u operations", NRPC_OPS_MAX);
	if (n < 3)
		return fail(p, "op: usage: op NAME PRIMITIVE... [to TARGET]");
	if (t[1].paren || !valid_name(t[1].word))
		return fail(p, "op: '%s' is not a name (1..%u of a-z, 0-9, _ and -)", t[1].word,
		            NRPC_NAME_MAX - 1);
	for (unsigned i = 0; i < d->nops; i++)
		if (strcmp(d->op[i].name, t[1].word) == 0)
			return fail(p, "op %s: given twice", t[1].word);
	struct nrpc_op *o = &d->op[d->nops];
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", t[1].word);
	o->to = NRPC_TO_SENDER;
	bool to_given = false, cnt = false;
	for (unsigned i = 2; i < n; i++) {
		const struct token *k = &t[i];
		if (strcmp(k->word, "to") == 0 && !k->paren) {
			if (i + 2 != n)
				return fail(p, "op %s: 'to TARGET' ends the line", o->name);
			if (cnt)
				return fail(p,
				            "op %s: cntfwd decides where the packet goes: no 'to' "
				            "after it",
				            o->name);
			if (t[i + 1].paren)
				return fail(p, "op %s: to %s(...): a target takes no arguments",
				            o->name, t[i + 1].word);
			if (target(p, "to", t[i + 1].word, &o->to) < 0)
				return -EINVAL;
			to_given = true;
			break;
		}
		unsigned prim = LOOKUP(prim_names, k->word);
		if (prim == 0)
			return fail(p,
			            "op %s: '%s' is not a primitive (get, addTo, clear, "
			            "modify(OP), cntfwd(TH, TARGET))",
			            o->name, k->word);
		if (cnt)
			return fail(p, "op %s: cntfwd must be the last primitive", o->name);
		for (unsigned j = 0; j < o->n; j++)
			if (o->step[j].prim == prim)
				return fail(p, "op %s: %s twice (one access per array and packet)",
				            o->name, k->word);
		struct nrpc_step *st = &o->step[o->n++];
		st->prim = (uint8_t)prim;
		unsigned want = prim == NRPC_MODIFY ? 1 : prim == NRPC_CNTFWD ? 2 : 0;
		if (k->nargs != want || k->paren != (want > 0))
			return fail(p, "op %s: %s takes %s", o->name, k->word,
			            want == 0   ? "no arguments"
			            : want == 1 ? "one argument: modify(set|max|min|or|and)"
			                        : "two arguments: cntfwd(TH|members, TARGET)");
		if (prim == NRPC_MODIFY) {
			st->mod = (uint8_t)LOOKUP(mod_names, k->arg[0]);
			if (st->mod == 0)
				return fail(p, "op %s: modify(%s): not set, max, min, or, and",
				            o->name, k->arg[0]);
		} else if (prim == NRPC_CNTFWD) {
			if (d->type == NRPC_MAP)
				return fail(p,
				            "op %s: cntfwd on a map (its entries come and go: "
				            "array or integer)",
				            o->name);
			if (strcmp(k->arg[0], "members") == 0)
				st->th_members = true;
			else if (number(p, "cntfwd threshold", k->arg[0], 1, 65535, &st->th) < 0)
				return -EINVAL;
			if (target(p, "cntfwd target", k->arg[1], &st->target) < 0)
				return -EINVAL;
			if (st->target == NRPC_TO_DROP)
				return fail(p, "op %s: cntfwd(.., drop) forwards nothing", o->name);
			cnt = true;
		}
	}
	(void)to_given;
	if (o->n == 0)
		return fail(p, "op %s: no primitive", o->name);
	bool add = false;
	for (unsigned j = 0; j < o->n; j++)
		add |= o->step[j].prim == NRPC_ADDTO;
	o->rel = cnt ? NRPC_REL_SYNC : add ? NRPC_REL_SEEN : NRPC_REL_NONE;
	d->nops++;
	return 0;
}

enum dir {
	D_SERVICE,
	D_ID,
	D_TYPE,
	D_CELLS,
	D_VALUES,
	D_KEYB,
	D_MEMBERS,
	D_SERVER,
	D_WINDOW,
	D_NB
};
static const char *const dir_names[D_NB] = {"service",   "id",      "type",   "cells", "values",
                                            "key-bytes", "members", "server", "window"};

static int directive(struct parser *p, struct nrpc_desc *d, const struct token *t, unsigned n,
                     bool *seen)
{
	if (strcmp(t[0].word, "op") == 0)
		return parse_op(p, d, t, n);
	unsigned k;
	for (k = 0; k < D_NB && strcmp(t[0].word, dir_names[k]) != 0; k++)
		;
	if (k == D_NB || t[0].paren)
		return fail(p,
		            "'%s' is not a directive (service, id, type, cells, values, "
		            "key-bytes, members, server, window, op)",
		            t[0].word);
	if (seen[k])
		return fail(p, "%s: given twice", dir_names[k]);
	if (k != D_SERVICE && !seen[D_SERVICE])
		return fail(p, "the first directive is 'service NAME'");
	if (k == D_TYPE && d->nops > 0)
		return fail(p, "type: before the operations");
	seen[k] = true;
	unsigned args = k == D_SERVER ? 0 : 1;
	if (n != 1 + args || (args && t[1].paren))
		return fail(p, "%s: %s", dir_names[k], args ? "one value" : "no value");
	const char *v = args ? t[1].word : "";
	switch (k) {
	case D_SERVICE:
		if (!valid_name(v))
			return fail(p, "service: '%s' is not a name (1..%u of a-z, 0-9, _ and -)",
			            v, NRPC_NAME_MAX - 1);
		snprintf(d->name, sizeof(d->name), "%s", v);
		return 0;
	case D_ID: {
		uint32_t id;
		if (number(p, "id", v, 1, NRPC_ID_MAX, &id) < 0)
			return -EINVAL;
		d->id = (uint8_t)id;
		return 0;
	}
	case D_TYPE:
		d->type = (uint8_t)LOOKUP(type_names, v);
		return d->type ? 0 : fail(p, "type: '%s' is not array, map or integer", v);
	case D_CELLS:
		if (number(p, "cells", v, 1, NRPC_CELLS_MAX, &d->cells) < 0)
			return -EINVAL;
		return pow2(d->cells) ? 0 : fail(p, "cells: %u is not a power of two", d->cells);
	case D_VALUES:
		return number(p, "values", v, 1, NRPC_VALUES_MAX, &d->values);
	case D_KEYB:
		if (number(p, "key-bytes", v, 4, 16, &d->key_bytes) < 0)
			return -EINVAL;
		return d->key_bytes == 4 || d->key_bytes == 8 || d->key_bytes == 16
		               ? 0
		               : fail(p, "key-bytes: 4, 8 or 16, not %u", d->key_bytes);
	case D_MEMBERS:
		return number(p, "members", v, 1, NRPC_MEMBERS_MAX, &d->members);
	case D_SERVER:
		d->server = true;
		return 0;
	case D_WINDOW:
		if (number(p, "window", v, 64, 4096, &d->window) < 0)
			return -EINVAL;
		return pow2(d->window) ? 0 : fail(p, "window: %u is not a power of two", d->window);
	}
	return fail(p, "internal: directive %u", k);
}

/* What holds over the whole description once every line is read. */
static int check_whole(struct parser *p, struct nrpc_desc *d, const bool *seen)
{
	static const unsigned required[] = {D_SERVICE, D_ID, D_TYPE, D_CELLS, D_MEMBERS};
	p->line = 0;
	for (unsigned i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (!seen[required[i]])
			return fail(p, "'%s' is missing", dir_names[required[i]]);
	if (d->nops == 0)
		return fail(p, "no operation ('op NAME PRIMITIVE...')");
	if (!seen[D_VALUES])
		d->values = 1;
	if (d->type == NRPC_INTEGER && d->values != 1)
		return fail(p, "values: an integer service has one value a cell, not %u",
		            d->values);
	if (d->type == NRPC_MAP) {
		if (!seen[D_KEYB])
			d->key_bytes = 8;
	} else {
		if (seen[D_KEYB])
			return fail(p, "key-bytes: only a map's keys have a width (array and "
			               "integer keys are 32-bit cell numbers)");
		d->key_bytes = 4;
		if (d->server)
			return fail(p, "server: only a map has misses to send to a server");
	}
	if (!seen[D_WINDOW])
		d->window = NRPC_WINDOW_DEF;
	for (unsigned i = 0; i < d->nops; i++) {
		const struct nrpc_op *o = &d->op[i];
		bool to_server = o->to == NRPC_TO_SERVER;
		for (unsigned j = 0; j < o->n; j++) {
			const struct nrpc_step *s = &o->step[j];
			to_server |= s->prim == NRPC_CNTFWD && s->target == NRPC_TO_SERVER;
			if (s->prim == NRPC_CNTFWD && !s->th_members && s->th > d->members)
				return fail(p,
				            "op %s: cntfwd(%u, ...): more than the %u members can "
				            "ever count",
				            o->name, s->th, d->members);
		}
		if (to_server && !d->server)
			return fail(p,
			            "op %s: sends to the server, and the service has none "
			            "('server')",
			            o->name);
		bool get = false;
		for (unsigned j = 0; j < o->n; j++)
			get |= o->step[j].prim == NRPC_GET;
		d->need_seen |= o->rel == NRPC_REL_SEEN;
		d->need_sync |= o->rel == NRPC_REL_SYNC;
		d->need_reply |= o->rel == NRPC_REL_SEEN && get;
	}
	return 0;
}

int nrpc_desc_parse(const char *text, size_t len, struct nrpc_desc *d, char *err, size_t errlen)
{
	struct parser p = {.line = 0, .err = err, .errlen = errlen};
	struct token t[TOKENS_MAX];
	bool seen[D_NB] = {false};
	char line[LINE_MAX_LEN + 1];

	memset(d, 0, sizeof(*d));
	if (len > NRPC_TEXT_MAX)
		return fail(&p, "the description is %zu bytes, more than %u", len, NRPC_TEXT_MAX);
	size_t at = 0;
	while (at < len) {
		p.line++;
		size_t l = 0;
		bool comment = false;
		for (; at < len && text[at] != '\n'; at++) {
			char c = text[at];
			if (c == '\0')
				return fail(&p, "a NUL byte");
			if (c == '#')
				comment = true;
			if (comment)
				continue;
			if (l == LINE_MAX_LEN)
				return fail(&p, "longer than %u characters", LINE_MAX_LEN);
			if ((unsigned char)c < ' ' && c != '\t' && c != '\r')
				return fail(&p, "a control character (0x%02x)", (unsigned char)c);
			line[l++] = c;
		}
		at++; /* the newline */
		line[l] = '\0';
		unsigned n;
		if (tokenize(&p, line, t, &n) < 0)
			return -EINVAL;
		if (n > 0 && directive(&p, d, t, n, seen) < 0)
			return -EINVAL;
	}
	return check_whole(&p, d, seen);
}

static uint32_t pow2_ceil(uint32_t v)
{
	uint32_t c = 1;
	while (c < v)
		c <<= 1;
	return c;
}

static struct isw_reg_decl reg(const char *name, unsigned stage, uint8_t kind, uint32_t cells,
                               uint32_t lanes)
{
	struct isw_reg_decl r = {
	        .name = name, .stage = (uint8_t)stage, .kind = kind, .size = cells};
	if (kind == ISW_REG_VEC) {
		r.lanes = (uint16_t)lanes;
		r.lanes_per_stage = 4; /* as SyncAgtr's values: 4 SALUs a stage */
	}
	return r;
}

unsigned nrpc_desc_regs(const struct nrpc_desc *d, struct isw_reg_decl *out)
{
	unsigned n = 0;
	uint32_t sets = d->need_sync ? 2 : 1;
	if (d->need_seen) /* a bit per member and sequence number of the window, 32 a cell */
		out[n++] = reg("seen", 0, ISW_REG_U32, pow2_ceil(d->members * d->window / 32), 1);
	if (d->need_sync) {
		out[n++] = reg("bitmap", 1, ISW_REG_U32, 2 * d->cells, 1);
		out[n++] = reg("count", 1, ISW_REG_U32, 2 * d->cells, 1);
	}
	if (d->type == NRPC_MAP)
		out[n++] = reg("key", 2, ISW_REG_VEC, d->cells, d->key_bytes / 4);
	out[n++] = reg("values", 3, ISW_REG_VEC, sets * d->cells, d->values);
	if (d->need_reply) /* what each member's window position was answered, for its resend */
		out[n++] = reg("reply", 4 + (d->values - 1) / 4, ISW_REG_VEC,
		               pow2_ceil(d->members * d->window), d->values);
	return n;
}

/* The last stage array r takes from its first. */
static unsigned last_stage(const struct isw_reg_decl *r)
{
	return r->kind == ISW_REG_VEC ? r->stage + (r->lanes - 1u) / r->lanes_per_stage : r->stage;
}

int nrpc_desc_place(const struct nrpc_desc *d, const struct isw_asic_use *use,
                    const struct isw_profile *prof, struct isw_reg_decl *out, char *err,
                    size_t errlen)
{
	unsigned n = nrpc_desc_regs(d, out);
	struct isw_asic_use placed = *use;
	unsigned next = 0;
	/* level by level (the arrays of one level share a stage of the packed layout), each at
	 * the first stage from the end of the level before at which all its arrays fit */
	for (unsigned i = 0; i < n;) {
		unsigned j = i + 1;
		while (j < n && out[j].stage == out[i].stage)
			j++;
		char why[256] = "", first[256] = "";
		bool fit = false;
		unsigned s;
		for (s = next; s < prof->stages && s < ISW_STAGES_MAX && !fit; s++) {
			struct isw_asic_use u = placed;
			for (unsigned k = i; k < j; k++)
				out[k].stage = (uint8_t)s;
			const struct isw_asic_decl lvl = {
			        .pipeline = "netrpc", .regs = out + i, .nb_regs = j - i};
			fit = isw_asic_account(&lvl, &u, why, sizeof(why)) == 0 &&
			      isw_asic_fits(&u, prof, why, sizeof(why)) == 0;
			if (fit)
				placed = u;
			else if (s == next)
				snprintf(first, sizeof(first), "%s", why);
		}
		if (!fit) {
			snprintf(err, errlen,
			         "service %s does not fit %s: its array %s finds no stage from %u "
			         "on "
			         "with room (at stage %u: %s)",
			         d->name, prof->name, out[i].name, next, next, first);
			return -ENOSPC;
		}
		for (unsigned k = i; k < j; k++)
			if (last_stage(&out[k]) + 1 > next)
				next = last_stage(&out[k]) + 1;
		i = j;
	}
	return (int)n;
}
