/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the strict JSON parser used by inswitch-ctl: every kind of value, escapes, exact
 * numbers, member lookup, and refusal of malformed input with the offset where it goes wrong.
 * Inputs are copied into buffers of exactly their length, so a sanitizer or valgrind catches any
 * read past the end.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jsonparse.h"

/* Parses len bytes from a private copy of exactly that size (no NUL after it). */
static struct isw_jv *parse_n(const char *text, size_t len, struct isw_jv_error *err)
{
	char *copy = malloc(len ? len : 1);
	struct isw_jv *v;

	assert_non_null(copy);
	memcpy(copy, text, len);
	v = isw_jv_parse(copy, len, err);
	free(copy);
	return v;
}

static struct isw_jv *parse_ok(const char *text)
{
	struct isw_jv_error err;
	struct isw_jv *v = parse_n(text, strlen(text), &err);

	if (v == NULL)
		fail_msg("refused %s: %s at %zu", text, err.reason, err.offset);
	return v;
}

/* Expects text (len bytes) to be refused at offset off. */
static void refuse_n(const char *text, size_t len, size_t off)
{
	struct isw_jv_error err = {.offset = (size_t)-1};
	struct isw_jv *v;

	errno = 0;
	v = parse_n(text, len, &err);
	if (v != NULL) {
		isw_jv_free(v);
		fail_msg("accepted \"%.*s\"", (int)len, text);
	}
	assert_int_equal(errno, EINVAL);
	assert_non_null(err.reason);
	if (err.offset != off)
		fail_msg("\"%.*s\": offset %zu (%s), expected %zu", (int)len, text, err.offset,
		         err.reason, off);
}

static void refuse(const char *text, size_t off)
{
	refuse_n(text, strlen(text), off);
}

static void test_literals(void **state)
{
	struct isw_jv *v;

	(void)state;
	v = parse_ok("null");
	assert_int_equal(v->type, ISW_JV_NULL);
	isw_jv_free(v);
	v = parse_ok(" \t\r\ntrue \n");
	assert_int_equal(v->type, ISW_JV_BOOL);
	assert_true(v->boolean);
	isw_jv_free(v);
	v = parse_ok("false");
	assert_int_equal(v->type, ISW_JV_BOOL);
	assert_false(v->boolean);
	isw_jv_free(v);
	isw_jv_free(NULL);
}

static void check_number(const char *text, bool is_int)
{
	struct isw_jv *v = parse_ok(text);

	assert_int_equal(v->type, ISW_JV_NUMBER);
	assert_string_equal(v->str, text);
	assert_int_equal(v->len, strlen(text));
	assert_int_equal(v->is_int, is_int);
	isw_jv_free(v);
}

static void test_numbers(void **state)
{
	(void)state;
	check_number("0", true);
	check_number("-0", true);
	check_number("7", true);
	check_number("-42", true);
	check_number("1234567890", true);
	check_number("3.25", false);
	check_number("-0.5", false);
	check_number("1e10", false);
	check_number("1E+10", false);
	check_number("-1.5e-3", false);
	check_number("0e0", false);
	check_number("18446744073709551615", true);
	check_number("123456789012345678901234567890", true);
}

static void test_number_conversion(void **state)
{
	struct isw_jv *v;
	uint64_t u = 1;
	int64_t i = 1;

	(void)state;
	v = parse_ok("18446744073709551615");
	assert_int_equal(isw_jv_to_u64(v, &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(isw_jv_to_i64(v, &i), -ERANGE);
	isw_jv_free(v);

	v = parse_ok("18446744073709551616");
	assert_int_equal(isw_jv_to_u64(v, &u), -ERANGE);
	isw_jv_free(v);

	v = parse_ok("-9223372036854775808");
	assert_int_equal(isw_jv_to_i64(v, &i), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(isw_jv_to_u64(v, &u), -ERANGE);
	isw_jv_free(v);

	v = parse_ok("-9223372036854775809");
	assert_int_equal(isw_jv_to_i64(v, &i), -ERANGE);
	isw_jv_free(v);

	v = parse_ok("9223372036854775807");
	assert_int_equal(isw_jv_to_i64(v, &i), 0);
	assert_true(i == INT64_MAX);
	isw_jv_free(v);

	v = parse_ok("-17");
	assert_int_equal(isw_jv_to_i64(v, &i), 0);
	assert_true(i == -17);
	isw_jv_free(v);

	v = parse_ok("-0");
	assert_int_equal(isw_jv_to_u64(v, &u), 0);
	assert_true(u == 0);
	isw_jv_free(v);

	v = parse_ok("1.0");
	assert_int_equal(isw_jv_to_u64(v, &u), -EINVAL);
	assert_int_equal(isw_jv_to_i64(v, &i), -EINVAL);
	isw_jv_free(v);

	v = parse_ok("\"1\"");
	assert_int_equal(isw_jv_to_u64(v, &u), -EINVAL);
	isw_jv_free(v);
	assert_int_equal(isw_jv_to_u64(NULL, &u), -EINVAL);
}

static void check_string(const char *text, const char *want, size_t want_len)
{
	struct isw_jv *v = parse_ok(text);

	assert_int_equal(v->type, ISW_JV_STRING);
	assert_int_equal(v->len, want_len);
	assert_memory_equal(v->str, want, want_len);
	assert_int_equal(v->str[want_len], '\0');
	isw_jv_free(v);
}

static void test_strings(void **state)
{
	(void)state;
	check_string("\"\"", "", 0);
	check_string("\"net_af_xdp0\"", "net_af_xdp0", 11);
	check_string("\"a\\\"b\\\\c\\/d\"", "a\"b\\c/d", 7);
	check_string("\"\\b\\f\\n\\r\\t\"", "\b\f\n\r\t", 5);
	check_string("\"\\u0041\\u00e9\\u00E9\"", "A\xc3\xa9\xc3\xa9", 5);
	check_string("\"\\u20ac\"", "\xe2\x82\xac", 3);
	check_string("\"\\uffff\"", "\xef\xbf\xbf", 3);
	check_string("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", 4);
	check_string("\"\\udbff\\udfff\"", "\xf4\x8f\xbf\xbf", 4);
	check_string("\"a\\u0000b\"", "a\0b", 3);
	check_string("\"\\u007f\"", "\x7f", 1);
	/* Raw UTF-8 passes through unchanged: 2, 3 and 4-byte sequences. */
	check_string("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
	             "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14);
}

static void test_arrays(void **state)
{
	struct isw_jv *v;

	(void)state;
	v = parse_ok("[]");
	assert_int_equal(v->type, ISW_JV_ARRAY);
	assert_int_equal(v->n, 0);
	isw_jv_free(v);

	v = parse_ok("[ 1 , \"two\" ,null,true,false, [ ] ,{}, [[3]] ]");
	assert_int_equal(v->type, ISW_JV_ARRAY);
	assert_int_equal(v->n, 8);
	assert_int_equal(v->items[0].type, ISW_JV_NUMBER);
	assert_string_equal(v->items[0].str, "1");
	assert_string_equal(v->items[1].str, "two");
	assert_int_equal(v->items[2].type, ISW_JV_NULL);
	assert_true(v->items[3].boolean);
	assert_false(v->items[4].boolean);
	assert_int_equal(v->items[5].type, ISW_JV_ARRAY);
	assert_int_equal(v->items[5].n, 0);
	assert_int_equal(v->items[6].type, ISW_JV_OBJECT);
	assert_int_equal(v->items[6].n, 0);
	assert_int_equal(v->items[7].items[0].items[0].type, ISW_JV_NUMBER);
	assert_string_equal(v->items[7].items[0].items[0].str, "3");
	isw_jv_free(v);
}

static void test_big_array(void **state)
{
	size_t n = 100000, i, len = 0;
	char *text = malloc(n * 8 + 3);
	struct isw_jv *v;

	(void)state;
	assert_non_null(text);
	text[len++] = '[';
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "%s%zu", i ? "," : "", i);
	text[len++] = ']';
	v = parse_n(text, len, NULL);
	assert_non_null(v);
	assert_int_equal(v->n, n);
	assert_string_equal(v->items[n - 1].str, "99999");
	isw_jv_free(v);
	free(text);
}

static void test_objects(void **state)
{
	struct isw_jv *v;
	const struct isw_jv *m;

	(void)state;
	v = parse_ok("{}");
	assert_int_equal(v->type, ISW_JV_OBJECT);
	assert_int_equal(v->n, 0);
	assert_null(isw_jv_get(v, "ok"));
	isw_jv_free(v);

	v = parse_ok("{\"ok\":true,\"name\":\"sw0\",\"n\":3,\"ok2\":null,\"name\":\"dup\","
	             "\"a\\u0000b\":1,\"\":\"empty\"}");
	assert_int_equal(v->n, 7);
	assert_string_equal(v->members[0].key, "ok");
	assert_string_equal(v->members[1].key, "name");
	m = isw_jv_get(v, "ok");
	assert_non_null(m);
	assert_int_equal(m->type, ISW_JV_BOOL);
	assert_true(m->boolean);
	m = isw_jv_get(v, "name");
	assert_non_null(m);
	assert_string_equal(m->str, "sw0"); /* the first of duplicates */
	assert_int_equal(isw_jv_get(v, "ok2")->type, ISW_JV_NULL);
	assert_null(isw_jv_get(v, "o"));
	assert_null(isw_jv_get(v, "missing"));
	assert_null(isw_jv_get(v, "a"));
	m = isw_jv_get_n(v, "a\0b", 3);
	assert_non_null(m);
	assert_string_equal(m->str, "1");
	assert_string_equal(isw_jv_get(v, "")->str, "empty");
	assert_null(isw_jv_get(NULL, "ok"));
	assert_null(isw_jv_get(v, NULL));
	assert_null(isw_jv_get(&v->members[2].value, "n")); /* not an object */
	isw_jv_free(v);
}

static void test_nested_reply(void **state)
{
	const char *text =
	        "{\"ok\":true,\"ports\":[{\"id\":0,\"name\":\"net_af_xdp0\",\"rx_pkts\":10},"
	        "{\"id\":1,\"name\":\"net_null0\",\"rx_pkts\":0,\"extra\":{\"a\":[1,2]}}],"
	        "\"pipeline\":{\"name\":\"l2\",\"stages\":{\"used\":3,\"max\":12}}}";
	const struct isw_jv *ports, *row, *stages;
	struct isw_jv *v = parse_ok(text);

	(void)state;
	assert_true(isw_jv_get(v, "ok")->boolean);
	ports = isw_jv_get(v, "ports");
	assert_non_null(ports);
	assert_int_equal(ports->type, ISW_JV_ARRAY);
	assert_int_equal(ports->n, 2);
	row = &ports->items[1];
	assert_string_equal(isw_jv_get(row, "name")->str, "net_null0");
	assert_int_equal(isw_jv_get(isw_jv_get(row, "extra"), "a")->n, 2);
	stages = isw_jv_get(isw_jv_get(v, "pipeline"), "stages");
	assert_string_equal(isw_jv_get(stages, "max")->str, "12");
	isw_jv_free(v);
}

/* n nested arrays around a 0. */
static char *nested(size_t n, size_t *len)
{
	char *s = malloc(2 * n + 1);
	size_t i;

	assert_non_null(s);
	for (i = 0; i < n; i++) {
		s[i] = '[';
		s[n + 1 + i] = ']';
	}
	s[n] = '0';
	*len = 2 * n + 1;
	return s;
}

static void test_depth(void **state)
{
	struct isw_jv *v;
	size_t len;
	char *s;

	(void)state;
	s = nested(ISW_JV_DEPTH_MAX, &len);
	v = parse_n(s, len, NULL);
	assert_non_null(v);
	isw_jv_free(v);
	free(s);

	s = nested(ISW_JV_DEPTH_MAX + 1, &len);
	refuse_n(s, len, ISW_JV_DEPTH_MAX);
	free(s);

	/* Far past the limit, and unterminated: refused at the limit, no stack blow-up. */
	s = nested(1000000, &len);
	refuse_n(s, 1000000, ISW_JV_DEPTH_MAX);
	free(s);

	/* Objects count the same: the 65th "{" is refused. */
	s = malloc(5 * (ISW_JV_DEPTH_MAX + 1));
	assert_non_null(s);
	for (len = 0; len < 5 * (ISW_JV_DEPTH_MAX + 1); len += 5)
		memcpy(s + len, "{\"a\":", 5);
	refuse_n(s, len, 5 * ISW_JV_DEPTH_MAX);
	free(s);
}

static void test_truncated(void **state)
{
	(void)state;
	refuse("", 0);
	refuse("   ", 3);
	refuse("{", 1);
	refuse("{\"a\"", 4);
	refuse("{\"a\":", 5);
	refuse("{\"a\":1", 6);
	refuse("{\"a\":1,", 7);
	refuse("[", 1);
	refuse("[1,2", 4);
	refuse("[1,2,", 5);
	refuse("tru", 3);
	refuse("fals", 4);
	refuse("n", 1);
	refuse("-", 1);
	refuse("1.", 2);
	refuse("1e", 2);
	refuse("1e+", 3);
	refuse("\"abc", 4);
	refuse("\"abc\\", 5);
	refuse("\"\\u00", 5);
	refuse("\"\\ud83d", 7);
	refuse("\"\\ud83d\\", 8);
	refuse("\"\xe2\x82", 3);
}

/* Every strict prefix of an object-rooted document is incomplete, so it must be refused. */
static void test_every_prefix(void **state)
{
	const char *doc = "{\"ok\":true,\"a\":[1,-2.5e+3,{\"b\":\"x\\u00e9\\ud83d\\ude00\\n\"}],"
	                  "\"c\":null,\"d\":false,\"e\":\"\xe2\x82\xac\"}";
	size_t len = strlen(doc), i;
	struct isw_jv_error err;
	struct isw_jv *v;

	(void)state;
	for (i = 0; i < len; i++) {
		v = parse_n(doc, i, &err);
		if (v != NULL)
			fail_msg("accepted prefix of %zu bytes", i);
		assert_true(err.offset <= i);
	}
	v = parse_n(doc, len, &err);
	assert_non_null(v);
	isw_jv_free(v);
}

static void test_trailing(void **state)
{
	(void)state;
	refuse("1 2", 2);
	refuse("{} x", 3);
	refuse("[]]", 2);
	refuse("{}{}", 2);
	refuse("truex", 4);
	refuse("null,", 4);
	refuse("\"a\"\"b\"", 3);
	refuse_n("{}\0", 3, 2);
	/* The declared length is what counts, not a NUL: "12" of "123". */
	{
		struct isw_jv *v = parse_n("123", 2, NULL);

		assert_non_null(v);
		assert_string_equal(v->str, "12");
		isw_jv_free(v);
	}
}

static void test_syntax(void **state)
{
	(void)state;
	refuse("[1,]", 3);
	refuse("[,1]", 1);
	refuse("[1 2]", 3);
	refuse("{\"a\":1,}", 7);
	refuse("{,}", 1);
	refuse("{a:1}", 1);
	refuse("{'a':1}", 1);
	refuse("{\"a\" 1}", 5);
	refuse("{\"a\":1 \"b\":2}", 7);
	refuse("{\"a\"::1}", 5);
	refuse("[1}", 2);
	refuse("{\"a\":1]", 6);
	refuse("trux", 0);
	refuse("True", 0);
	refuse("nul1", 0);
	refuse("undefined", 0);
	refuse("NaN", 0);
	refuse("Infinity", 0);
	refuse("-Infinity", 1);
	refuse("'a'", 0);
	refuse("/* c */ 1", 0);
	refuse("\xef\xbb\xbf{}", 0);
	refuse_n("[1,\0]", 5, 3);
}

static void test_bad_numbers(void **state)
{
	(void)state;
	refuse("01", 1);
	refuse("00", 1);
	refuse("-01", 2);
	refuse("[01]", 2);
	refuse("{\"a\":007}", 6);
	refuse("+1", 0);
	refuse(".5", 0);
	refuse("-.5", 1);
	refuse("1.e3", 2);
	refuse("1.5.2", 3);
	refuse("1e5.0", 3);
	refuse("1ee5", 2);
	refuse("-a", 1);
	refuse("0x10", 1);
	refuse("1_000", 1);
}

static void test_bad_strings(void **state)
{
	(void)state;
	/* Escapes. */
	refuse("\"\\x\"", 1);
	refuse("\"ab\\a\"", 3);
	refuse("\"\\'\"", 1);
	refuse("\"\\U0041\"", 1);
	refuse("\"\\u12G4\"", 1);
	refuse("\"\\u12\"", 1);
	refuse("\"a\\ud800\"", 2);
	refuse("\"\\udc00\"", 1);
	refuse("\"\\ud800\\u0041\"", 1);
	refuse("\"\\ud800\\ud800\"", 1);
	refuse("\"\\ud800x\"", 1);
	refuse("\"\\ud800\\n\"", 1);
	refuse_n("\"\\\0\"", 4, 1);
	/* Raw control characters must be escaped. */
	refuse("\"a\tb\"", 2);
	refuse("\"a\nb\"", 2);
	refuse("\"\x01\"", 1);
	refuse("\"\x1f\"", 1);
	refuse_n("\"a\0b\"", 5, 2);
	refuse("{\"k\x1b"
	       "y\":1}",
	       3);
	/* Invalid UTF-8: stray continuation, overlong, surrogate, too large, cut short. */
	refuse("\"\x80\"", 1);
	refuse("\"ab\xff\"", 3);
	refuse("\"\xc0\xaf\"", 1);
	refuse("\"\xc1\xbf\"", 1);
	refuse("\"\xe0\x80\xaf\"", 1);
	refuse("\"\xed\xa0\x80\"", 1);
	refuse("\"\xf0\x80\x80\xaf\"", 1);
	refuse("\"\xf4\x90\x80\x80\"", 1);
	refuse("\"\xf5\x80\x80\x80\"", 1);
	refuse("\"\xe2\x82\"", 1);
	refuse("\"\xc3\"", 1);
}

static void test_error_without_err(void **state)
{
	(void)state;
	errno = 0;
	assert_null(isw_jv_parse("[1,", 3, NULL));
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_literals),
	        cmocka_unit_test(test_numbers),
	        cmocka_unit_test(test_number_conversion),
	        cmocka_unit_test(test_strings),
	        cmocka_unit_test(test_arrays),
	        cmocka_unit_test(test_big_array),
	        cmocka_unit_test(test_objects),
	        cmocka_unit_test(test_nested_reply),
	        cmocka_unit_test(test_depth),
	        cmocka_unit_test(test_truncated),
	        cmocka_unit_test(test_every_prefix),
	        cmocka_unit_test(test_trailing),
	        cmocka_unit_test(test_syntax),
	        cmocka_unit_test(test_bad_numbers),
	        cmocka_unit_test(test_bad_strings),
	        cmocka_unit_test(test_error_without_err),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
