/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reduceByKey table of ask-receiver and ask-count: open addressing over an array of
 * fixed-size entries, keys kept in one growing byte arena (entries hold offsets, so growing it
 * moves nothing that points into it), and its sorted text output.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ask_host.h"

struct ask_ent {
	uint32_t hash;
	uint32_t off; /* key bytes at arena + off */
	uint32_t value;
	uint16_t len;
	uint8_t used;
};

struct ask_table {
	enum ask_op op;
	struct ask_ent *ents;
	size_t mask, used;
	uint8_t *arena;
	size_t arena_len, arena_cap;
};

static const char *const op_names[] = {
        [ASK_OP_ADD] = "add",
        [ASK_OP_MAX] = "max",
        [ASK_OP_MIN] = "min",
};
static const char *const kfmt_names[] = {
        [ASK_KFMT_TEXT] = "text",
        [ASK_KFMT_U64] = "u64",
        [ASK_KFMT_HEX] = "hex",
};

/* Index of s in names[n], or -EINVAL. */
static int name_index(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -EINVAL;
}

int ask_op_parse(const char *s, enum ask_op *op)
{
	int i = name_index(op_names, 3, s);

	if (i < 0)
		return i;
	*op = (enum ask_op)i;
	return 0;
}

const char *ask_op_name(enum ask_op op)
{
	return (unsigned)op < 3 ? op_names[op] : "?";
}

int ask_kfmt_parse(const char *s, enum ask_kfmt *fmt)
{
	int i = name_index(kfmt_names, 3, s);

	if (i < 0)
		return i;
	*fmt = (enum ask_kfmt)i;
	return 0;
}

unsigned ask_key_canon(uint8_t *out, const uint8_t *key, unsigned len, unsigned key_bytes)
{
	memcpy(out, key, len);
	if (len >= key_bytes)
		return len;
	memset(out + len, 0, key_bytes - len);
	return key_bytes;
}

/* FNV-style mix over 8-byte words: keys are short, this needs to be fast rather than strong. */
static uint32_t key_hash(const uint8_t *key, unsigned len)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ len, w;
	unsigned i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, key + i, 8);
		h = (h ^ w) * 0xFF51AFD7ED558CCDull;
		h ^= h >> 29;
	}
	if (i < len) {
		w = 0;
		memcpy(&w, key + i, len - i);
		h = (h ^ w) * 0xFF51AFD7ED558CCDull;
	}
	h ^= h >> 32;
	h *= 0xC4CEB9FE1A85EC53ull;
	return (uint32_t)(h ^ h >> 29);
}

struct ask_table *ask_table_new(enum ask_op op)
{
	struct ask_table *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->op = op;
	t->mask = 1023;
	t->ents = calloc(t->mask + 1, sizeof(*t->ents));
	if (t->ents == NULL) {
		free(t);
		return NULL;
	}
	return t;
}

void ask_table_free(struct ask_table *t)
{
	if (t == NULL)
		return;
	free(t->ents);
	free(t->arena);
	free(t);
}

/* The entry holding key, or the empty one where it would go. */
static struct ask_ent *find(const struct ask_table *t, const uint8_t *key, unsigned len,
                            uint32_t hash)
{
	for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
		struct ask_ent *e = &t->ents[i];
		if (!e->used)
			return e;
		if (e->hash == hash && e->len == len && memcmp(t->arena + e->off, key, len) == 0)
			return e;
	}
}

/* Doubles the entry array (kept at most half full). */
static int grow(struct ask_table *t)
{
	size_t n = (t->mask + 1) * 2;
	struct ask_ent *old = t->ents, *ents = calloc(n, sizeof(*ents));

	if (ents == NULL)
		return -ENOMEM;
	for (size_t i = 0; i <= t->mask; i++) {
		if (!old[i].used)
			continue;
		size_t j = old[i].hash & (n - 1);
		while (ents[j].used)
			j = (j + 1) & (n - 1);
		ents[j] = old[i];
	}
	t->ents = ents;
	t->mask = n - 1;
	free(old);
	return 0;
}

int ask_table_merge(struct ask_table *t, const uint8_t *key, unsigned len, uint32_t value)
{
	uint32_t hash = key_hash(key, len);
	struct ask_ent *e = find(t, key, len, hash);

	if (e->used) {
		e->value = ask_op_apply(t->op, e->value, value);
		return 0;
	}
	if (len > ASK_KEY_MAX || t->arena_len + len > UINT32_MAX)
		return -ENOMEM;
	if (t->arena_len + len > t->arena_cap) {
		size_t cap = t->arena_cap ? t->arena_cap * 2 : 1u << 16;
		uint8_t *a = realloc(t->arena, cap);
		if (a == NULL)
			return -ENOMEM;
		t->arena = a;
		t->arena_cap = cap;
	}
	memcpy(t->arena + t->arena_len, key, len);
	*e = (struct ask_ent){.hash = hash,
	                      .off = (uint32_t)t->arena_len,
	                      .value = value,
	                      .len = (uint16_t)len,
	                      .used = 1};
	t->arena_len += len;
	t->used++;
	return t->used * 2 > t->mask ? grow(t) : 0;
}

bool ask_table_get(const struct ask_table *t, const uint8_t *key, unsigned len, uint32_t *value)
{
	const struct ask_ent *e = find(t, key, len, key_hash(key, len));

	if (!e->used)
		return false;
	*value = e->value;
	return true;
}

void ask_table_foreach(const struct ask_table *t,
                       void (*fn)(const uint8_t *key, unsigned len, uint32_t value, void *arg),
                       void *arg)
{
	for (size_t i = 0; i <= t->mask; i++) {
		const struct ask_ent *e = &t->ents[i];
		if (e->used)
			fn(t->arena + e->off, e->len, e->value, arg);
	}
}

size_t ask_table_size(const struct ask_table *t)
{
	return t->used;
}

/* One key for sorting: qsort() has no context argument, so each carries its bytes. */
struct row {
	const uint8_t *key;
	unsigned len;
	uint32_t value;
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = memcmp(x->key, y->key, x->len < y->len ? x->len : y->len);

	if (c != 0)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

static void put_hex(FILE *f, const uint8_t *key, unsigned len)
{
	for (unsigned i = 0; i < len; i++)
		fprintf(f, "%02x", key[i]);
}

/* Bytes as they are, but for those that would make the line ambiguous or unreadable:
 * control bytes, DEL and the backslash, written \xHH (the backslash \\). */
static void put_escaped(FILE *f, const uint8_t *key, unsigned len)
{
	for (unsigned i = 0; i < len; i++) {
		if (key[i] == '\\')
			fputs("\\\\", f);
		else if (key[i] < 0x20 || key[i] == 0x7f)
			fprintf(f, "\\x%02x", key[i]);
		else
			fputc(key[i], f);
	}
}

static void put_key(FILE *f, const uint8_t *key, unsigned len, enum ask_kfmt fmt,
                    unsigned key_bytes)
{
	unsigned n = len;

	switch (fmt) {
	case ASK_KFMT_TEXT:
		/* Zeros pad a key of key_bytes; a longer key (LONG) is all its bytes. */
		while (len <= key_bytes && n > 0 && key[n - 1] == 0)
			n--;
		if (n == 0)
			fputs("\\x00", f);
		else
			put_escaped(f, key, n);
		return;
	case ASK_KFMT_U64:
		while (n > 8 && key[n - 1] == 0)
			n--;
		if (n == 8) {
			uint64_t v = (uint64_t)ask_be32(key) << 32 | ask_be32(key + 4);
			fprintf(f, "%" PRIu64, v);
			return;
		}
		put_hex(f, key, len);
		return;
	case ASK_KFMT_HEX:
		put_hex(f, key, len);
		return;
	}
}

int ask_table_write(const struct ask_table *t, FILE *f, enum ask_kfmt fmt, unsigned key_bytes)
{
	struct row *rows = malloc((t->used ? t->used : 1) * sizeof(*rows));
	size_t n = 0;

	if (rows == NULL)
		return -ENOMEM;
	for (size_t i = 0; i <= t->mask; i++) {
		const struct ask_ent *e = &t->ents[i];
		if (e->used)
			rows[n++] = (struct row){t->arena + e->off, e->len, e->value};
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	for (size_t i = 0; i < n; i++) {
		put_key(f, rows[i].key, rows[i].len, fmt, key_bytes);
		fprintf(f, "\t%" PRId32 "\n", (int32_t)rows[i].value);
	}
	free(rows);
	return ferror(f) ? -EIO : 0;
}
