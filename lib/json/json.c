/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

void isw_json_init(struct isw_json *j)
{
	memset(j, 0, sizeof(*j));
	j->first[0] = true;
}

void isw_json_free(struct isw_json *j)
{
	free(j->buf);
	memset(j, 0, sizeof(*j));
}

void isw_json_reset(struct isw_json *j)
{
	j->len = 0;
	j->depth = 0;
	j->failed = false;
	j->first[0] = true;
	if (j->buf != NULL)
		j->buf[0] = '\0';
}

bool isw_json_failed(const struct isw_json *j)
{
	return j->failed;
}

const char *isw_json_str(const struct isw_json *j)
{
	return j->buf != NULL ? j->buf : "";
}

static bool reserve(struct isw_json *j, size_t more)
{
	if (j->failed)
		return false;
	if (j->len + more + 1 <= j->cap)
		return true;
	size_t cap = j->cap ? j->cap : 256;
	while (cap < j->len + more + 1)
		cap *= 2;
	char *b = realloc(j->buf, cap);
	if (b == NULL) {
		j->failed = true;
		return false;
	}
	j->buf = b;
	j->cap = cap;
	return true;
}

static void put(struct isw_json *j, const char *s, size_t n)
{
	if (!reserve(j, n))
		return;
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void puts_(struct isw_json *j, const char *s)
{
	put(j, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at p, or 0 if it is not one (overlong, surrogate,
 * out of range or truncated). */
static size_t utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	size_t n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
	if (n == 0 || p[0] > 0xf4)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

/* Strings may echo user input: invalid UTF-8 becomes U+FFFD so the reply stays valid JSON. */
static void put_escaped(struct isw_json *j, const char *s)
{
	put(j, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		char esc[8];
		size_t n = utf8_len(p);
		if (n == 0) {
			puts_(j, "\\ufffd");
			p++;
			continue;
		}
		if (n > 1) {
			put(j, (const char *)p, n);
			p += n;
			continue;
		}
		switch (*p) {
		case '"':
			put(j, "\\\"", 2);
			break;
		case '\\':
			put(j, "\\\\", 2);
			break;
		case '\n':
			put(j, "\\n", 2);
			break;
		case '\t':
			put(j, "\\t", 2);
			break;
		case '\r':
			put(j, "\\r", 2);
			break;
		default:
			if (*p < 0x20) {
				snprintf(esc, sizeof(esc), "\\u%04x", *p);
				puts_(j, esc);
			} else {
				put(j, (const char *)p, 1);
			}
		}
		p++;
	}
	put(j, "\"", 1);
}

/* Comma and key before a value at the current depth. */
static void member(struct isw_json *j, const char *key)
{
	if (!j->first[j->depth])
		put(j, ",", 1);
	j->first[j->depth] = false;
	if (key != NULL) {
		put_escaped(j, key);
		put(j, ":", 1);
	}
}

static void open_(struct isw_json *j, const char *key, const char *c)
{
	member(j, key);
	puts_(j, c);
	if (j->depth + 1 >= ISW_JSON_DEPTH) {
		j->failed = true;
		return;
	}
	j->first[++j->depth] = true;
}

static void close_(struct isw_json *j, const char *c)
{
	if (j->depth > 0)
		j->depth--;
	puts_(j, c);
}

void isw_json_obj_open(struct isw_json *j, const char *key)
{
	open_(j, key, "{");
}

void isw_json_obj_close(struct isw_json *j)
{
	close_(j, "}");
}

void isw_json_arr_open(struct isw_json *j, const char *key)
{
	open_(j, key, "[");
}

void isw_json_arr_close(struct isw_json *j)
{
	close_(j, "]");
}

void isw_json_str_kv(struct isw_json *j, const char *key, const char *v)
{
	member(j, key);
	put_escaped(j, v);
}

void isw_json_strf(struct isw_json *j, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	isw_json_str_kv(j, key, buf);
}

void isw_json_u64(struct isw_json *j, const char *key, uint64_t v)
{
	char buf[24];
	member(j, key);
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	puts_(j, buf);
}

void isw_json_i64(struct isw_json *j, const char *key, int64_t v)
{
	char buf[24];
	member(j, key);
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	puts_(j, buf);
}

void isw_json_dbl(struct isw_json *j, const char *key, double v)
{
	char buf[40];
	member(j, key);
	if (!isfinite(v))
		snprintf(buf, sizeof(buf), "null");
	else
		snprintf(buf, sizeof(buf), "%.6g", v);
	puts_(j, buf);
}

void isw_json_bool(struct isw_json *j, const char *key, bool v)
{
	member(j, key);
	puts_(j, v ? "true" : "false");
}

void isw_json_null(struct isw_json *j, const char *key)
{
	member(j, key);
	puts_(j, "null");
}
