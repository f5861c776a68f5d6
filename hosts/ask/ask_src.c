/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tuple sources of ask-sender and ask-count (ask_host.h): words of a text, "key value" lines,
 * and Zipf-distributed 8-byte keys. Both tools read the same inputs through this one file, so
 * what the sender streams and what ask-count reduces cannot differ.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ask_host.h"
#include "host_args.h"

enum kind { IN_WORDS, IN_TUPLES, IN_ZIPF };

struct input {
	enum kind kind;
	FILE *f;
	char *name;
	uint64_t where; /* words: bytes read; tuples: lines read; zipf: tuples made */
	uint8_t *buf;   /* words: read buffer */
	size_t pos, len;
	char *line; /* tuples: getline() buffer */
	size_t line_cap;
	struct ask_zipf_spec z;
	uint64_t rng;
	double hx0, hn; /* zipf: the ends of the inversion interval */
};

struct ask_src {
	struct input *in;
	unsigned n, cur;
	char err[256];
};

#define WORDS_BUF (64u << 10)

struct ask_src *ask_src_new(void)
{
	return calloc(1, sizeof(struct ask_src));
}

void ask_src_free(struct ask_src *s)
{
	if (s == NULL)
		return;
	for (unsigned i = 0; i < s->n; i++) {
		if (s->in[i].f != NULL)
			fclose(s->in[i].f);
		free(s->in[i].name);
		free(s->in[i].buf);
		free(s->in[i].line);
	}
	free(s->in);
	free(s);
}

const char *ask_src_error(const struct ask_src *s)
{
	return s->err;
}

static struct input *add(struct ask_src *s, enum kind kind)
{
	struct input *in = realloc(s->in, (s->n + 1) * sizeof(*in));

	if (in == NULL)
		return NULL;
	s->in = in;
	in = &s->in[s->n];
	memset(in, 0, sizeof(*in));
	in->kind = kind;
	return in;
}

/* Adds a file input owning f (closed here on failure). */
static int add_file(struct ask_src *s, enum kind kind, FILE *f, const char *name)
{
	struct input *in = add(s, kind);

	if (in == NULL || (in->name = strdup(name)) == NULL) {
		fclose(f);
		return -ENOMEM;
	}
	in->f = f;
	if (kind == IN_WORDS && (in->buf = malloc(WORDS_BUF)) == NULL) {
		free(in->name);
		fclose(f);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

static int add_path(struct ask_src *s, enum kind kind, const char *path)
{
	FILE *f = fopen(path, "rb");

	if (f == NULL) {
		int err = -errno;
		snprintf(s->err, sizeof(s->err), "%s: %s", path, strerror(errno));
		return err;
	}
	return add_file(s, kind, f, path);
}

int ask_src_add_words(struct ask_src *s, const char *path)
{
	return add_path(s, IN_WORDS, path);
}

int ask_src_add_words_fp(struct ask_src *s, FILE *f, const char *name)
{
	return add_file(s, IN_WORDS, f, name);
}

int ask_src_add_tuples(struct ask_src *s, const char *path)
{
	return add_path(s, IN_TUPLES, path);
}

int ask_src_add_tuples_fp(struct ask_src *s, FILE *f, const char *name)
{
	return add_file(s, IN_TUPLES, f, name);
}

static bool is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* ---- words ---- */

static int words_next(struct ask_src *s, struct input *in, struct ask_tuple *t)
{
	t->len = 0;
	t->value = 1;
	for (;;) {
		if (in->pos == in->len) {
			in->len = fread(in->buf, 1, WORDS_BUF, in->f);
			in->pos = 0;
			if (in->len == 0) {
				if (ferror(in->f)) {
					snprintf(s->err, sizeof(s->err), "%s: read error",
					         in->name);
					return -EIO;
				}
				return t->len > 0;
			}
		}
		uint8_t c = in->buf[in->pos++];
		in->where++;
		if (is_space(c)) {
			if (t->len > 0)
				return 1;
			continue;
		}
		if (t->len == ASK_KEY_MAX) {
			snprintf(s->err, sizeof(s->err),
			         "%s: a word longer than %u bytes ends after byte %llu", in->name,
			         ASK_KEY_MAX, (unsigned long long)in->where);
			return -E2BIG;
		}
		t->key[t->len++] = c;
	}
}

/* ---- "key value" lines ---- */

/* The value of a tuples line: a decimal in -2^31 .. 2^32-1 (stored as its 32 low bits). */
static bool parse_value(const char *p, size_t n, uint32_t *v)
{
	char tmp[24], *end;
	long long x;

	if (n == 0 || n >= sizeof(tmp))
		return false;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	if (!(tmp[0] == '-' || (tmp[0] >= '0' && tmp[0] <= '9')))
		return false;
	errno = 0;
	x = strtoll(tmp, &end, 10);
	if (errno != 0 || *end != '\0' || x < INT32_MIN || x > (long long)UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static int tuples_next(struct ask_src *s, struct input *in, struct ask_tuple *t)
{
	ssize_t n;

	while ((n = getline(&in->line, &in->line_cap, in->f)) >= 0) {
		const char *p = in->line, *end = in->line + n, *k, *v;
		in->where++;
		while (p < end && is_space(*p))
			p++;
		if (p == end)
			continue; /* blank */
		for (k = p; p < end && !is_space(*p); p++)
			;
		t->len = (unsigned)(p - k);
		while (p < end && is_space(*p))
			p++;
		for (v = p; p < end && !is_space(*p); p++)
			;
		size_t vlen = (size_t)(p - v);
		while (p < end && is_space(*p))
			p++;
		if (t->len > ASK_KEY_MAX || p != end || !parse_value(v, vlen, &t->value)) {
			snprintf(s->err, sizeof(s->err),
			         "%s:%llu: not \"key value\" (key up to %u bytes, value "
			         "-2^31..2^32-1)",
			         in->name, (unsigned long long)in->where, ASK_KEY_MAX);
			return -EINVAL;
		}
		memcpy(t->key, k, t->len);
		return 1;
	}
	if (ferror(in->f)) {
		snprintf(s->err, sizeof(s->err), "%s: read error", in->name);
		return -EIO;
	}
	return 0;
}

/* ---- Zipf ---- */

/*
 * Rejection-inversion sampling (Hoermann and Derflinger, 1996): rank k in 1..n with probability
 * proportional to h(k) = k^-s, in constant memory. H is an antiderivative of h; u uniform over
 * [H(1.5) - h(1), H(n + 0.5)] inverted through H gives x, k = round(x), accepted when u falls in
 * the last h(k) of k's interval [H(k - 0.5), H(k + 0.5)], which makes P(k) ~ h(k).
 */

/* log1p(t) / t and expm1(t) / t, continuous at 0. */
static double log1p_div(double t)
{
	return fabs(t) > 1e-8 ? log1p(t) / t : 1 - t / 2;
}

static double expm1_div(double t)
{
	return fabs(t) > 1e-8 ? expm1(t) / t : 1 + t / 2;
}

static double zipf_h(double s, double x)
{
	return exp(-s * log(x));
}

static double zipf_hint(double s, double x)
{
	double lx = log(x);
	return expm1_div((1 - s) * lx) * lx;
}

static double zipf_hinv(double s, double y)
{
	double t = y * (1 - s);
	if (t < -1)
		t = -1;
	return exp(log1p_div(t) * y);
}

/* splitmix64: a full-period 64-bit generator, enough for test input. */
static uint64_t rng_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t zipf_rank(struct input *in)
{
	double s = in->z.s, n = (double)in->z.keys;

	for (;;) {
		double r = (double)(rng_next(&in->rng) >> 11) * 0x1.0p-53;
		double u = in->hn + r * (in->hx0 - in->hn);
		double x = zipf_hinv(s, u);
		double k = floor(x + 0.5);
		if (k < 1)
			k = 1;
		else if (k > n)
			k = n;
		if (u >= zipf_hint(s, k + 0.5) - zipf_h(s, k))
			return (uint64_t)k;
	}
}

static int zipf_next(struct input *in, struct ask_tuple *t)
{
	uint64_t id;

	if (in->where == in->z.count)
		return 0;
	in->where++;
	id = zipf_rank(in) - 1;
	ask_put32(t->key, (uint32_t)(id >> 32));
	ask_put32(t->key + 4, (uint32_t)id);
	t->len = 8;
	t->value = 1;
	return 1;
}

int ask_zipf_parse(const char *spec, struct ask_zipf_spec *z)
{
	char buf[128], *f[4], *save = NULL, *end;
	int n = 0;

	if (strlen(spec) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, spec);
	for (char *p = strtok_r(buf, ",", &save); p != NULL; p = strtok_r(NULL, ",", &save)) {
		if (n == 4)
			return -EINVAL;
		f[n++] = p;
	}
	if (n != 4 || host_parse_count(f[0], UINT32_MAX * 256ull, &z->keys) < 0 || z->keys == 0 ||
	    host_parse_count(f[2], UINT64_MAX, &z->count) < 0 ||
	    host_parse_count(f[3], UINT64_MAX, &z->seed) < 0)
		return -EINVAL;
	errno = 0;
	z->s = strtod(f[1], &end);
	if (errno != 0 || *end != '\0' || end == f[1] || !(z->s >= 0 && z->s <= 100))
		return -EINVAL;
	return 0;
}

int ask_src_add_zipf(struct ask_src *s, const struct ask_zipf_spec *z)
{
	struct input *in;

	if (z->keys == 0 || !(z->s >= 0))
		return -EINVAL;
	in = add(s, IN_ZIPF);
	if (in == NULL)
		return -ENOMEM;
	in->z = *z;
	in->rng = z->seed;
	in->hx0 = zipf_hint(z->s, 1.5) - 1;
	in->hn = zipf_hint(z->s, (double)z->keys + 0.5);
	s->n++;
	return 0;
}

int ask_src_next(struct ask_src *s, struct ask_tuple *t)
{
	for (; s->cur < s->n; s->cur++) {
		struct input *in = &s->in[s->cur];
		int rc = in->kind == IN_WORDS    ? words_next(s, in, t)
		         : in->kind == IN_TUPLES ? tuples_next(s, in, t)
		                                 : zipf_next(in, t);
		if (rc != 0)
			return rc;
	}
	return 0;
}
