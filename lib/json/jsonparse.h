/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small, strict JSON parser (RFC 8259) for the control clients (inswitch-ctl and the host
 * tools, through ctl_reply.h): it turns one reply line into a tree of values that the caller
 * walks and then frees with one call. Numbers are kept as the text that was received, so a
 * 64-bit counter is never rounded through a double.
 *
 * It must never read outside the given input (which need not be NUL-terminated), never recurse
 * deeper than ISW_JV_DEPTH_MAX containers, and never accept what RFC 8259 refuses: no trailing
 * commas, comments, leading zeros, raw control characters or invalid UTF-8 in strings, lone
 * surrogates in \u escapes, a byte order mark, or anything after the value. No global state; no
 * DPDK. Duplicate member names are accepted and kept (lookups return the first).
 */
#ifndef ISW_JSONPARSE_H
#define ISW_JSONPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Containers nested deeper than this are refused ("[[1]]" has depth 2). */
#define ISW_JV_DEPTH_MAX 64

enum isw_jv_type {
	ISW_JV_NULL,
	ISW_JV_BOOL,
	ISW_JV_NUMBER,
	ISW_JV_STRING,
	ISW_JV_ARRAY,
	ISW_JV_OBJECT,
};

struct isw_jv_member;

struct isw_jv {
	enum isw_jv_type type;
	bool boolean; /* ISW_JV_BOOL */
	bool is_int;  /* ISW_JV_NUMBER: written without fraction or exponent */
	/*
	 * ISW_JV_STRING: the decoded text, UTF-8. ISW_JV_NUMBER: the number exactly as written.
	 * Always NUL-terminated, but a string may also hold NUL bytes (from \u0000): use len.
	 */
	char *str;
	size_t len;
	size_t n;                      /* ISW_JV_ARRAY, ISW_JV_OBJECT: element count */
	struct isw_jv *items;          /* ISW_JV_ARRAY */
	struct isw_jv_member *members; /* ISW_JV_OBJECT, in document order */
};

struct isw_jv_member {
	char *key; /* decoded, NUL-terminated; key_len counts any embedded NUL */
	size_t key_len;
	struct isw_jv value;
};

struct isw_jv_error {
	size_t offset;      /* byte offset into the input where the problem was found */
	const char *reason; /* static text, e.g. "leading zeros are not allowed" */
};

/*
 * Parses exactly one JSON value, with optional surrounding whitespace, from the len bytes at
 * text. Returns the root of a new tree, to be released with isw_jv_free(). On failure returns
 * NULL and sets errno to EINVAL (malformed input) or ENOMEM; if err is not NULL it receives the
 * offset and reason (for truncated input the offset is len).
 */
struct isw_jv *isw_jv_parse(const char *text, size_t len, struct isw_jv_error *err);

/* Frees a tree returned by isw_jv_parse(), root included. NULL is allowed. */
void isw_jv_free(struct isw_jv *root);

/*
 * Returns the value of the first member of obj called name, or NULL if there is none or obj is
 * NULL or not an object. The _n variant takes a name of name_len bytes that may contain NULs.
 * Linear in the member count.
 */
const struct isw_jv *isw_jv_get(const struct isw_jv *obj, const char *name);
const struct isw_jv *isw_jv_get_n(const struct isw_jv *obj, const char *name, size_t name_len);

/*
 * Converts an integer number value to a native integer without going through a double.
 * Returns 0, -EINVAL if v is NULL, not a number or not an integer, or -ERANGE if it does not fit
 * (a negative number never fits a uint64_t, except "-0").
 */
int isw_jv_to_u64(const struct isw_jv *v, uint64_t *out);
int isw_jv_to_i64(const struct isw_jv *v, int64_t *out);

#endif
