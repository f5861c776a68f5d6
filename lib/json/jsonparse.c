/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Strict JSON parser; see jsonparse.h. Recursive descent: the recursion is bounded by
 * ISW_JV_DEPTH_MAX, checked before each container is entered. Every function that fails leaves
 * the tree consistent (counts only cover initialised elements), so one cleanup at the top frees
 * whatever was built.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonparse.h"

struct jp {
	const unsigned char *s;
	size_t len;
	size_t pos;
	unsigned depth;
	int err; /* 0, EINVAL or ENOMEM; the first failure wins */
	size_t err_off;
	const char *reason;
};

#define EOI "unexpected end of input"

static int jp_value(struct jp *p, struct isw_jv *v);

static int jp_fail(struct jp *p, size_t off, const char *reason)
{
	if (p->err == 0) {
		p->err = EINVAL;
		p->err_off = off;
		p->reason = reason;
	}
	return -EINVAL;
}

static int jp_nomem(struct jp *p)
{
	if (p->err == 0) {
		p->err = ENOMEM;
		p->err_off = p->pos;
		p->reason = "out of memory";
	}
	return -ENOMEM;
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static void jp_skip_ws(struct jp *p)
{
	while (p->pos < p->len) {
		unsigned char c = p->s[p->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

/* Grows *arr (of *cap elements of size sz) so that it can hold one more than n. */
static int jp_grow(struct jp *p, void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t ncap;
	void *na;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 4;
	if (ncap < *cap || ncap > SIZE_MAX / sz)
		return jp_nomem(p);
	na = realloc(*arr, ncap * sz);
	if (na == NULL)
		return jp_nomem(p);
	*arr = na;
	*cap = ncap;
	return 0;
}

static int jp_literal(struct jp *p, struct isw_jv *v, const char *word, enum isw_jv_type type,
                      bool b)
{
	size_t i, n = strlen(word);

	for (i = 0; i < n; i++) {
		if (p->pos + i >= p->len)
			return jp_fail(p, p->len, EOI);
		if (p->s[p->pos + i] != (unsigned char)word[i])
			return jp_fail(p, p->pos, "invalid literal");
	}
	p->pos += n;
	v->type = type;
	v->boolean = b;
	return 0;
}

/* Skips a run of digits at *i, demanding at least one; what names the missing digit. */
static int jp_digits(struct jp *p, size_t *i, const char *what)
{
	if (*i >= p->len)
		return jp_fail(p, p->len, EOI);
	if (!is_digit(p->s[*i]))
		return jp_fail(p, *i, what);
	while (*i < p->len && is_digit(p->s[*i]))
		(*i)++;
	return 0;
}

static int jp_number(struct jp *p, struct isw_jv *v)
{
	size_t start = p->pos, i = p->pos;
	bool is_int = true;

	if (p->s[i] == '-')
		i++;
	if (i < p->len && p->s[i] == '0') {
		i++;
		if (i < p->len && is_digit(p->s[i]))
			return jp_fail(p, i, "leading zeros are not allowed");
	} else if (jp_digits(p, &i, "expected a digit")) {
		return -EINVAL;
	}
	if (i < p->len && p->s[i] == '.') {
		i++;
		is_int = false;
		if (jp_digits(p, &i, "expected a digit after the decimal point"))
			return -EINVAL;
	}
	if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
		i++;
		is_int = false;
		if (i < p->len && (p->s[i] == '+' || p->s[i] == '-'))
			i++;
		if (jp_digits(p, &i, "expected a digit in the exponent"))
			return -EINVAL;
	}
	v->str = malloc(i - start + 1);
	if (v->str == NULL)
		return jp_nomem(p);
	memcpy(v->str, p->s + start, i - start);
	v->str[i - start] = '\0';
	v->len = i - start;
	v->type = ISW_JV_NUMBER;
	v->is_int = is_int;
	p->pos = i;
	return 0;
}

/*
 * Length of the UTF-8 sequence at s[at] (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF), 0 if it is invalid, or SIZE_MAX if the input ends inside it.
 */
static size_t utf8_seq_len(const unsigned char *s, size_t len, size_t at)
{
	unsigned char c = s[at], lo = 0x80, hi = 0xbf;
	size_t need, k;

	if (c < 0x80)
		return 1;
	if (c < 0xc2)
		return 0;
	if (c < 0xe0) {
		need = 2;
	} else if (c < 0xf0) {
		need = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c < 0xf5) {
		need = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	for (k = 1; k < need; k++) {
		if (at + k >= len)
			return SIZE_MAX;
		if (s[at + k] < (k == 1 ? lo : 0x80) || s[at + k] > (k == 1 ? hi : 0xbf))
			return 0;
	}
	return need;
}

static size_t utf8_put(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Reads the four hex digits of a \u escape whose backslash is at esc. */
static int jp_hex4(struct jp *p, size_t esc, uint32_t *cp)
{
	size_t k;

	*cp = 0;
	for (k = esc + 2; k < esc + 6; k++) {
		unsigned char c;

		if (k >= p->len)
			return jp_fail(p, p->len, "unterminated string");
		c = p->s[k];
		if (is_digit(c))
			*cp = *cp << 4 | (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*cp = *cp << 4 | (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*cp = *cp << 4 | (uint32_t)(c - 'A' + 10);
		else
			return jp_fail(p, esc, "invalid \\u escape: expected four hex digits");
	}
	return 0;
}

/* Decodes the \u escape (or surrogate pair) at *i into out; advances *i. */
static int jp_unicode(struct jp *p, size_t *i, char *out, size_t *n)
{
	size_t esc = *i;
	uint32_t cp, lo;

	if (jp_hex4(p, esc, &cp))
		return -EINVAL;
	*i += 6;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return jp_fail(p, esc, "unpaired surrogate in \\u escape");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (*i >= p->len || (p->s[*i] == '\\' && *i + 1 >= p->len))
			return jp_fail(p, p->len, "unterminated string");
		if (p->s[*i] != '\\' || p->s[*i + 1] != 'u')
			return jp_fail(p, esc, "unpaired surrogate in \\u escape");
		if (jp_hex4(p, *i, &lo))
			return -EINVAL;
		if (lo < 0xdc00 || lo > 0xdfff)
			return jp_fail(p, esc, "unpaired surrogate in \\u escape");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		*i += 6;
	}
	*n += utf8_put(out + *n, cp);
	return 0;
}

/* Decodes the escape whose backslash is at *i into out; advances *i. */
static int jp_escape(struct jp *p, size_t *i, char *out, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *hit;
	unsigned char c;

	if (*i + 1 >= p->len)
		return jp_fail(p, p->len, "unterminated string");
	c = p->s[*i + 1];
	if (c == 'u')
		return jp_unicode(p, i, out, n);
	hit = c ? strchr(from, c) : NULL;
	if (hit == NULL)
		return jp_fail(p, *i, "invalid escape in string");
	out[(*n)++] = to[hit - from];
	*i += 2;
	return 0;
}

/*
 * Parses the string whose opening quote is at p->pos into a new NUL-terminated buffer. Decoding
 * never makes text longer (an escape yields at most as many bytes as it spans), so the buffer is
 * sized from a first scan to the closing quote, or to where the string must fail.
 */
static int jp_string(struct jp *p, char **out, size_t *out_len)
{
	size_t start = p->pos + 1, end = start, i = start, n = 0, k;
	char *buf;

	while (end < p->len && p->s[end] != '"' && p->s[end] >= 0x20)
		end += (p->s[end] == '\\' && end + 1 < p->len) ? 2 : 1;
	buf = malloc(end - start + 1);
	if (buf == NULL)
		return jp_nomem(p);
	while (i < p->len) {
		unsigned char c = p->s[i];

		if (c == '"') {
			buf[n] = '\0';
			*out = buf;
			*out_len = n;
			p->pos = i + 1;
			return 0;
		}
		if (c < 0x20) {
			jp_fail(p, i, "control character in string (must be escaped)");
			goto fail;
		}
		if (c == '\\') {
			if (jp_escape(p, &i, buf, &n))
				goto fail;
			continue;
		}
		k = utf8_seq_len(p->s, p->len, i);
		if (k == 0) {
			jp_fail(p, i, "invalid UTF-8 in string");
			goto fail;
		}
		if (k == SIZE_MAX)
			break;
		memcpy(buf + n, p->s + i, k);
		n += k;
		i += k;
	}
	jp_fail(p, p->len, "unterminated string");
fail:
	free(buf);
	return -EINVAL;
}

/* Expects one of two closing characters after an element; returns the one found. */
static int jp_after_element(struct jp *p, char more, char close, const char *reason)
{
	jp_skip_ws(p);
	if (p->pos >= p->len)
		return jp_fail(p, p->len, EOI);
	if (p->s[p->pos] == more || p->s[p->pos] == close)
		return p->s[p->pos++];
	return jp_fail(p, p->pos, reason);
}

/* Enters the container whose opening bracket is at p->pos; true if it is empty (and closed). */
static int jp_open(struct jp *p, char close, bool *empty)
{
	if (++p->depth > ISW_JV_DEPTH_MAX)
		return jp_fail(p, p->pos, "nesting too deep");
	p->pos++;
	jp_skip_ws(p);
	*empty = p->pos < p->len && p->s[p->pos] == close;
	if (*empty) {
		p->pos++;
		p->depth--;
	}
	return 0;
}

static int jp_array(struct jp *p, struct isw_jv *v)
{
	size_t cap = 0;
	bool empty;
	int c;

	v->type = ISW_JV_ARRAY;
	if (jp_open(p, ']', &empty))
		return -EINVAL;
	if (empty)
		return 0;
	do {
		if (jp_grow(p, (void **)&v->items, &cap, v->n, sizeof(*v->items)))
			return -ENOMEM;
		memset(&v->items[v->n], 0, sizeof(*v->items));
		v->n++;
		if (jp_value(p, &v->items[v->n - 1]))
			return -EINVAL;
		c = jp_after_element(p, ',', ']', "expected ',' or ']' after an array element");
		if (c < 0)
			return c;
	} while (c == ',');
	p->depth--;
	return 0;
}

static int jp_member(struct jp *p, struct isw_jv *obj, size_t *cap)
{
	struct isw_jv_member *m;

	jp_skip_ws(p);
	if (p->pos >= p->len)
		return jp_fail(p, p->len, EOI);
	if (p->s[p->pos] != '"')
		return jp_fail(p, p->pos, "expected a string as member name");
	if (jp_grow(p, (void **)&obj->members, cap, obj->n, sizeof(*obj->members)))
		return -ENOMEM;
	m = &obj->members[obj->n];
	memset(m, 0, sizeof(*m));
	if (jp_string(p, &m->key, &m->key_len))
		return -EINVAL;
	obj->n++;
	jp_skip_ws(p);
	if (p->pos >= p->len)
		return jp_fail(p, p->len, EOI);
	if (p->s[p->pos] != ':')
		return jp_fail(p, p->pos, "expected ':' after member name");
	p->pos++;
	return jp_value(p, &m->value);
}

static int jp_object(struct jp *p, struct isw_jv *v)
{
	size_t cap = 0;
	bool empty;
	int c;

	v->type = ISW_JV_OBJECT;
	if (jp_open(p, '}', &empty))
		return -EINVAL;
	if (empty)
		return 0;
	do {
		if (jp_member(p, v, &cap))
			return -EINVAL;
		c = jp_after_element(p, ',', '}', "expected ',' or '}' after an object member");
		if (c < 0)
			return c;
	} while (c == ',');
	p->depth--;
	return 0;
}

static int jp_value(struct jp *p, struct isw_jv *v)
{
	unsigned char c;

	memset(v, 0, sizeof(*v));
	jp_skip_ws(p);
	if (p->pos >= p->len)
		return jp_fail(p, p->len, EOI);
	c = p->s[p->pos];
	switch (c) {
	case '{':
		return jp_object(p, v);
	case '[':
		return jp_array(p, v);
	case '"':
		v->type = ISW_JV_STRING;
		return jp_string(p, &v->str, &v->len);
	case 't':
		return jp_literal(p, v, "true", ISW_JV_BOOL, true);
	case 'f':
		return jp_literal(p, v, "false", ISW_JV_BOOL, false);
	case 'n':
		return jp_literal(p, v, "null", ISW_JV_NULL, false);
	default:
		if (c == '-' || is_digit(c))
			return jp_number(p, v);
		return jp_fail(p, p->pos, "expected a value");
	}
}

/* Frees what v owns, not v itself. Recursion is bounded by the parser's depth limit. */
static void jv_clear(struct isw_jv *v)
{
	size_t i;

	free(v->str);
	for (i = 0; v->items != NULL && i < v->n; i++)
		jv_clear(&v->items[i]);
	free(v->items);
	for (i = 0; v->members != NULL && i < v->n; i++) {
		free(v->members[i].key);
		jv_clear(&v->members[i].value);
	}
	free(v->members);
}

struct isw_jv *isw_jv_parse(const char *text, size_t len, struct isw_jv_error *err)
{
	struct jp p = {.s = (const unsigned char *)text, .len = len};
	struct isw_jv *root;

	root = calloc(1, sizeof(*root));
	if (root == NULL) {
		jp_nomem(&p);
	} else if (jp_value(&p, root) == 0) {
		jp_skip_ws(&p);
		if (p.pos == p.len) {
			if (err != NULL)
				*err = (struct isw_jv_error){.offset = p.pos, .reason = NULL};
			return root;
		}
		jp_fail(&p, p.pos, "unexpected data after the value");
	}
	if (root != NULL) {
		jv_clear(root);
		free(root);
	}
	if (err != NULL)
		*err = (struct isw_jv_error){.offset = p.err_off, .reason = p.reason};
	errno = p.err;
	return NULL;
}

void isw_jv_free(struct isw_jv *root)
{
	if (root == NULL)
		return;
	jv_clear(root);
	free(root);
}

const struct isw_jv *isw_jv_get_n(const struct isw_jv *obj, const char *name, size_t name_len)
{
	size_t i;

	if (obj == NULL || obj->type != ISW_JV_OBJECT || name == NULL)
		return NULL;
	for (i = 0; i < obj->n; i++) {
		const struct isw_jv_member *m = &obj->members[i];

		if (m->key_len == name_len && memcmp(m->key, name, name_len) == 0)
			return &m->value;
	}
	return NULL;
}

const struct isw_jv *isw_jv_get(const struct isw_jv *obj, const char *name)
{
	return name == NULL ? NULL : isw_jv_get_n(obj, name, strlen(name));
}

/* Magnitude of an integer number's digits; -ERANGE above limit. */
static int jv_magnitude(const char *digits, uint64_t limit, uint64_t *out)
{
	uint64_t m = 0;

	for (; *digits != '\0'; digits++) {
		unsigned d = (unsigned)(*digits - '0');

		if (m > (limit - d) / 10)
			return -ERANGE;
		m = m * 10 + d;
	}
	*out = m;
	return 0;
}

int isw_jv_to_u64(const struct isw_jv *v, uint64_t *out)
{
	uint64_t m;
	int rc;

	if (v == NULL || v->type != ISW_JV_NUMBER || !v->is_int)
		return -EINVAL;
	if (v->str[0] == '-') {
		if (strcmp(v->str, "-0") != 0)
			return -ERANGE;
		*out = 0;
		return 0;
	}
	rc = jv_magnitude(v->str, UINT64_MAX, &m);
	if (rc == 0)
		*out = m;
	return rc;
}

int isw_jv_to_i64(const struct isw_jv *v, int64_t *out)
{
	bool neg;
	uint64_t m;
	int rc;

	if (v == NULL || v->type != ISW_JV_NUMBER || !v->is_int)
		return -EINVAL;
	neg = v->str[0] == '-';
	rc = jv_magnitude(v->str + neg, neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX, &m);
	if (rc != 0)
		return rc;
	/* -2^63 has no positive counterpart, so it cannot be negated as an int64_t. */
	if (neg && m == (uint64_t)INT64_MAX + 1)
		*out = INT64_MIN;
	else
		*out = neg ? -(int64_t)m : (int64_t)m;
	return 0;
}
