/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the ASK host library: codec round trips and rejects, the table and its output,
 * the tuple sources, the sender's window / retransmission / LAST logic, the receiver's
 * de-duplication, merge, SWAP and FETCH and their control seqs, all driven by hand with a
 * virtual clock. The last tests run sender -> switch model -> receiver in one process with
 * loss, duplication, delay and reordering of every packet, SWAP and FETCH included (the model
 * follows docs/ask.md: AA claim / combine / collision, seen and AggState rings, the window
 * register, SWAP, FETCH with its kept reply, late SWAP / FETCH dropped) and check the
 * receiver's table against a direct reduceByKey.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask_host.h"

#define MS 1000000ull

/* ---- helpers ---- */

static struct ask_src *src_text(const char *text, bool tuples)
{
	struct ask_src *s = ask_src_new();
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(s);
	assert_non_null(f);
	assert_int_equal(
	        tuples ? ask_src_add_tuples_fp(s, f, "mem") : ask_src_add_words_fp(s, f, "mem"), 0);
	return s;
}

/* The table written with fmt for keys of kb bytes, as a string (caller frees). */
static char *table_text_kb(const struct ask_table *t, enum ask_kfmt fmt, unsigned kb)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(ask_table_write(t, f, fmt, kb), 0);
	fclose(f);
	return buf;
}

static char *table_text(const struct ask_table *t, enum ask_kfmt fmt)
{
	return table_text_kb(t, fmt, 4);
}

static uint32_t get(const struct ask_table *t, const char *key, unsigned kb)
{
	uint8_t k[ASK_KEY_MAX];
	unsigned n = ask_key_canon(k, (const uint8_t *)key, (unsigned)strlen(key), kb);
	uint32_t v = 0xDEADBEEF;

	assert_true(ask_table_get(t, k, n, &v));
	return v;
}

/* ---- codec ---- */

static void test_codec_roundtrip(void **state)
{
	uint8_t p[ASK_MSG_MAX], key[8] = "abcdefgh";
	struct ask_msg m = {.type = ASK_DATA,
	                    .flags = ASK_F_LAST,
	                    .task = 0x1234,
	                    .channel = 0xBEEF,
	                    .nslots = 4,
	                    .key_bytes = 8,
	                    .seq = 0xA1B2C3D4,
	                    .bitmap = 0xFF,
	                    .start = 7,
	                    .count = 9},
	               r;
	size_t len;

	(void)state;
	/* Header bytes: big-endian at the documented offsets. */
	ask_msg_put(p, &m);
	assert_int_equal(p[0], ASK_DATA);
	assert_int_equal(p[1], ASK_F_LAST);
	assert_int_equal(p[2], 0x12);
	assert_int_equal(p[5], 0xEF);
	assert_int_equal(p[8], 0xA1);
	assert_int_equal(p[11], 0xD4);
	assert_int_equal(ask_msg_get(p, ASK_HDR_LEN, &r), 0);
	assert_memory_equal(&m, &r, sizeof(m));

	/* DATA: two valid slots, the rest zero. */
	len = ask_data_init(p, &m);
	assert_int_equal(len, ASK_HDR_LEN + 4 * 12);
	ask_data_put(p, 8, 2, key, 0x01020304);
	ask_data_put(p, 8, 0, key, 5);
	assert_int_equal(ask_data_parse(p, len, &r), 0);
	assert_int_equal(r.bitmap, 0x5);
	assert_int_equal(r.flags, ASK_F_LAST);
	assert_memory_equal(p + ASK_HDR_LEN + 24, key, 8);
	assert_int_equal(ask_be32(p + ASK_HDR_LEN + 32), 0x01020304);
	for (unsigned i = 12; i < 24; i++)
		assert_int_equal(p[ASK_HDR_LEN + i], 0); /* slot 1 empty */

	/* LONG records. */
	struct ask_msg lm = {
	        .type = ASK_DATA, .flags = ASK_F_LONG, .nslots = 4, .key_bytes = 8, .count = 2};
	ask_msg_put(p, &lm);
	len = ASK_HDR_LEN;
	len += ask_long_put(p + len, (const uint8_t *)"a-long-key!", 11, 42);
	len += ask_long_put(p + len, (const uint8_t *)"x", 1, 0xFFFFFFFF);
	assert_int_equal(ask_data_parse(p, len, &r), 0);
	struct ask_long_iter it;
	const uint8_t *k;
	unsigned klen;
	uint32_t v;
	ask_long_iter_init(&it, p, len);
	assert_int_equal(ask_long_next(&it, &k, &klen, &v), 1);
	assert_int_equal(klen, 11);
	assert_memory_equal(k, "a-long-key!", 11);
	assert_int_equal(v, 42);
	assert_int_equal(ask_long_next(&it, &k, &klen, &v), 1);
	assert_int_equal(v, 0xFFFFFFFF);
	assert_int_equal(ask_long_next(&it, &k, &klen, &v), 0);

	/* ACK echoes task, channel, seq. */
	assert_int_equal(ask_ack_build(p, &m), ASK_HDR_LEN);
	assert_int_equal(ask_ack_parse(p, ASK_HDR_LEN, &r), 0);
	assert_int_equal(r.type, ASK_DATA_ACK);
	assert_int_equal(r.task, m.task);
	assert_int_equal(r.channel, m.channel);
	assert_int_equal(r.seq, m.seq);

	/* SWAP and FETCH select slot | copy << 8. */
	ask_swap_build(p, 3, 0, 16, 8, 77, 5, 1);
	assert_int_equal(ask_msg_get(p, ASK_HDR_LEN, &r), 0);
	assert_int_equal(r.type, ASK_SWAP);
	assert_int_equal(r.bitmap, 0x105);
	assert_int_equal(r.seq, 77);
	ask_fetch_build(p, 3, 0, 16, 8, 78, 31, 0, 1024, 116);
	assert_int_equal(ask_msg_get(p, ASK_HDR_LEN, &r), 0);
	assert_int_equal(r.type, ASK_FETCH);
	assert_int_equal(r.bitmap, 31);
	assert_int_equal(r.start, 1024);
	assert_int_equal(r.count, 116);
}

static void test_parse_rejects(void **state)
{
	uint8_t p[ASK_MSG_MAX + 64], key[16] = {1};
	struct ask_msg m = {.type = ASK_DATA, .nslots = 3, .key_bytes = 16, .seq = 1}, r;
	size_t len = ask_data_init(p, &m);

	(void)state;
	ask_data_put(p, 16, 2, key, 1);
	assert_int_equal(ask_data_parse(p, len, &r), 0);
	for (size_t n = 0; n < len; n++) /* every truncation */
		assert_int_equal(ask_data_parse(p, n, &r), -EINVAL);
	p[15] |= 0x08; /* bitmap bit 3 with S = 3 */
	assert_int_equal(ask_data_parse(p, len, &r), -EINVAL);
	p[15] &= 0x07;
	p[6] = 0; /* nslots 0 */
	assert_int_equal(ask_data_parse(p, len, &r), -EINVAL);
	p[6] = 33;
	assert_int_equal(ask_data_parse(p, sizeof(p), &r), -EINVAL);
	p[6] = 3;
	p[7] = 5; /* key width */
	assert_int_equal(ask_data_parse(p, len, &r), -EINVAL);
	p[7] = 16;
	p[0] = ASK_DATA_ACK;
	assert_int_equal(ask_data_parse(p, len, &r), -EINVAL);
	assert_int_equal(ask_swap_done_parse(p, len, &r), -EINVAL);
	assert_int_equal(ask_ack_parse(p, ASK_HDR_LEN - 1, &r), -EINVAL);

	/* LONG: a record cut short, a count that disagrees, a bitmap. */
	struct ask_msg lm = {
	        .type = ASK_DATA, .flags = ASK_F_LONG, .nslots = 3, .key_bytes = 8, .count = 1};
	ask_msg_put(p, &lm);
	len = ASK_HDR_LEN + ask_long_put(p + ASK_HDR_LEN, (const uint8_t *)"0123456789", 10, 7);
	assert_int_equal(ask_data_parse(p, len, &r), 0);
	for (size_t n = ASK_HDR_LEN + 1; n < len; n++)
		assert_int_equal(ask_data_parse(p, n, &r), -EINVAL);
	assert_int_equal(ask_data_parse(p, len + 1, &r), -EINVAL); /* a stray byte */
	p[23] = 2;
	assert_int_equal(ask_data_parse(p, len, &r), -EINVAL);
	p[23] = 1;
	p[15] = 1;
	assert_int_equal(ask_data_parse(p, len, &r), -EINVAL);
	p[15] = 0;
	ask_put16(p + ASK_HDR_LEN, 1100); /* key length past ASK_KEY_MAX */
	assert_int_equal(ask_data_parse(p, sizeof(p), &r), -EINVAL);

	/* FETCH_REPLY: more records than fit, or than the length holds. */
	struct ask_msg fm = {.type = ASK_FETCH_REPLY, .count = ask_fetch_max(8) + 1};
	ask_msg_put(p, &fm);
	assert_int_equal(ask_fetch_reply_parse(p, sizeof(p), 8, &r), -EINVAL);
	fm.count = 3;
	ask_msg_put(p, &fm);
	assert_int_equal(ask_fetch_reply_parse(p, ASK_HDR_LEN + 36, 8, &r), 0);
	assert_int_equal(ask_fetch_reply_parse(p, ASK_HDR_LEN + 35, 8, &r), -EINVAL);
	fm.flags = ASK_F_ERROR; /* a refusal carries no records to check */
	ask_msg_put(p, &fm);
	assert_int_equal(ask_fetch_reply_parse(p, ASK_HDR_LEN, 8, &r), 0);

	/* Garbage of every length through every parser: no crash, nothing read past len (the
	 * buffer is copied to a heap block of exactly that size for ASan / valgrind). */
	srand(1);
	for (int i = 0; i < 20000; i++) {
		size_t n = (size_t)rand() % 200;
		uint8_t *g = malloc(n ? n : 1);
		for (size_t j = 0; j < n; j++)
			g[j] = (uint8_t)rand();
		if (n > 0)
			g[0] = (uint8_t)(1 + rand() % 6);
		if (n > 6)
			g[6] = (uint8_t)(rand() % 34);
		if (n > 1 && rand() % 2)
			g[1] = ASK_F_LONG;
		(void)ask_data_parse(g, n, &r);
		(void)ask_fetch_reply_parse(g, n, 8, &r);
		(void)ask_swap_done_parse(g, n, &r);
		free(g);
	}
}

/* ---- table ---- */

static void test_table_ops(void **state)
{
	struct ask_table *t;
	uint8_t k[ASK_KEY_MAX];
	uint32_t v;

	(void)state;
	assert_int_equal(ask_key_canon(k, (const uint8_t *)"ab", 2, 8), 8);
	assert_memory_equal(k, "ab\0\0\0\0\0\0", 8);
	assert_int_equal(ask_key_canon(k, (const uint8_t *)"abcdefghij", 10, 8), 10);

	t = ask_table_new(ASK_OP_ADD);
	assert_int_equal(ask_table_merge(t, (const uint8_t *)"k", 1, 0xFFFFFFFF), 0);
	assert_int_equal(ask_table_merge(t, (const uint8_t *)"k", 1, 2), 0);
	assert_true(ask_table_get(t, (const uint8_t *)"k", 1, &v));
	assert_int_equal(v, 1); /* wraps at 32 bits */
	assert_false(ask_table_get(t, (const uint8_t *)"kk", 2, &v));
	ask_table_free(t);

	t = ask_table_new(ASK_OP_MAX);
	ask_table_merge(t, (const uint8_t *)"k", 1, (uint32_t)-5);
	ask_table_merge(t, (const uint8_t *)"k", 1, (uint32_t)-7);
	ask_table_get(t, (const uint8_t *)"k", 1, &v);
	assert_int_equal((int32_t)v, -5); /* signed */
	ask_table_merge(t, (const uint8_t *)"k", 1, 3);
	ask_table_get(t, (const uint8_t *)"k", 1, &v);
	assert_int_equal(v, 3);
	ask_table_free(t);

	t = ask_table_new(ASK_OP_MIN);
	ask_table_merge(t, (const uint8_t *)"k", 1, 0x7FFFFFFF);
	ask_table_merge(t, (const uint8_t *)"k", 1, 0x80000000);
	ask_table_get(t, (const uint8_t *)"k", 1, &v);
	assert_int_equal(v, 0x80000000);
	ask_table_free(t);

	/* Many keys: growth keeps every one. */
	t = ask_table_new(ASK_OP_ADD);
	for (uint32_t i = 0; i < 100000; i++)
		assert_int_equal(ask_table_merge(t, (const uint8_t *)&i, 4, i), 0);
	for (uint32_t i = 0; i < 100000; i += 997) {
		assert_true(ask_table_get(t, (const uint8_t *)&i, 4, &v));
		assert_int_equal(v, i);
	}
	assert_int_equal(ask_table_size(t), 100000);
	ask_table_free(t);

	/* Output: sorted by key bytes, padding stripped in text, u64 and hex forms. */
	t = ask_table_new(ASK_OP_ADD);
	ask_table_merge(t, (const uint8_t *)"b\0\0\0", 4, 1);
	ask_table_merge(t, (const uint8_t *)"a\0\0\0", 4, (uint32_t)-2);
	ask_table_merge(t, (const uint8_t *)"abcdef", 6, 3);
	char *s = table_text(t, ASK_KFMT_TEXT);
	assert_string_equal(s, "a\t-2\nabcdef\t3\nb\t1\n");
	free(s);
	s = table_text(t, ASK_KFMT_HEX);
	assert_string_equal(s, "61000000\t-2\n616263646566\t3\n62000000\t1\n");
	free(s);
	ask_table_free(t);
	/* Text tells every key apart: a key of the full width from the LONG key that adds a zero,
	 * separators and the escape itself escaped, a key of zeros; other bytes as they are. */
	t = ask_table_new(ASK_OP_ADD);
	ask_table_merge(t, (const uint8_t *)"abcdefgh", 8, 1);
	ask_table_merge(t, (const uint8_t *)"abcdefgh\0", 9, 2);
	ask_table_merge(t, (const uint8_t *)"a\tb\n\0\0\0\0", 8, 3);
	ask_table_merge(t, (const uint8_t *)"a\\b\0\0\0\0\0", 8, 4);
	ask_table_merge(t, (const uint8_t *)"\0\0\0\0\0\0\0\0", 8, 5);
	ask_table_merge(t, (const uint8_t *)"\xc3\xa9t\xc3\xa9\0\0\0", 8, 6);
	s = table_text_kb(t, ASK_KFMT_TEXT, 8);
	assert_string_equal(s, "\\x00\t5\na\\x09b\\x0a\t3\na\\\\b\t4\nabcdefgh\t1\n"
	                       "abcdefgh\\x00\t2\n\xc3\xa9t\xc3\xa9\t6\n");
	free(s);
	ask_table_free(t);
	t = ask_table_new(ASK_OP_ADD);
	ask_table_merge(t, (const uint8_t *)"\0\0\0\0\0\0\1\2\0\0\0\0\0\0\0\0", 16, 9);
	ask_table_merge(t, (const uint8_t *)"\0\0\0\0\0\0\0\7", 8, 1);
	ask_table_merge(t, (const uint8_t *)"\0\0\0\0\0\0\0\7\1", 9, 1);
	s = table_text(t, ASK_KFMT_U64);
	assert_string_equal(s, "7\t1\n000000000000000701\t1\n258\t9\n");
	free(s);
	ask_table_free(t);
	enum ask_op op;
	enum ask_kfmt fmt;
	assert_int_equal(ask_op_parse("min", &op), 0);
	assert_int_equal(op, ASK_OP_MIN);
	assert_int_equal(ask_op_parse("sum", &op), -EINVAL);
	assert_int_equal(ask_kfmt_parse("u64", &fmt), 0);
	assert_int_equal(fmt, ASK_KFMT_U64);
}

/* ---- sources ---- */

static void test_sources(void **state)
{
	struct ask_src *s;
	struct ask_tuple t;
	char big[1100];

	(void)state;
	s = src_text("  the\tcat\r\nThe\v\fcat. \n", false);
	const char *want[] = {"the", "cat", "The", "cat."};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(ask_src_next(s, &t), 1);
		assert_int_equal(t.len, strlen(want[i]));
		assert_memory_equal(t.key, want[i], t.len);
		assert_int_equal(t.value, 1);
	}
	assert_int_equal(ask_src_next(s, &t), 0);
	ask_src_free(s);

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	s = src_text(big, false);
	assert_int_equal(ask_src_next(s, &t), -E2BIG);
	assert_non_null(strstr(ask_src_error(s), "longer than 1024"));
	ask_src_free(s);

	s = src_text("apple 3\n\n  pear -7  \nbig 4294967295\n", true);
	assert_int_equal(ask_src_next(s, &t), 1);
	assert_int_equal(t.value, 3);
	assert_int_equal(ask_src_next(s, &t), 1);
	assert_memory_equal(t.key, "pear", 4);
	assert_int_equal((int32_t)t.value, -7);
	assert_int_equal(ask_src_next(s, &t), 1);
	assert_int_equal(t.value, 0xFFFFFFFF);
	assert_int_equal(ask_src_next(s, &t), 0);
	ask_src_free(s);
	const char *bad[] = {"k\n", "k 1 2\n", "k x\n", "k 4294967296\n", "k -2147483649\n"};
	for (int i = 0; i < 5; i++) {
		s = src_text(bad[i], true);
		assert_int_equal(ask_src_next(s, &t), -EINVAL);
		assert_non_null(strstr(ask_src_error(s), "mem:1"));
		ask_src_free(s);
	}

	/* Zipf: deterministic per seed, id 0 about twice as frequent as id 1 at s = 1. */
	struct ask_zipf_spec z;
	assert_int_equal(ask_zipf_parse("1000,1.0,100k,42", &z), 0);
	assert_int_equal(z.count, 100000);
	assert_int_equal(ask_zipf_parse("1000,1.0,100k", &z), -EINVAL);
	assert_int_equal(ask_zipf_parse("0,1.0,1,1", &z), -EINVAL);
	assert_int_equal(ask_zipf_parse("10,-1,1,1", &z), -EINVAL);
	ask_zipf_parse("1000,1.0,100k,42", &z);
	struct ask_src *a = ask_src_new(), *b = ask_src_new();
	ask_src_add_zipf(a, &z);
	ask_src_add_zipf(b, &z);
	uint64_t n0 = 0, n1 = 0, n = 0, top = 0;
	struct ask_tuple u;
	while (ask_src_next(a, &t) == 1) {
		assert_int_equal(ask_src_next(b, &u), 1);
		assert_memory_equal(t.key, u.key, 8);
		uint64_t id = (uint64_t)ask_be32(t.key) << 32 | ask_be32(t.key + 4);
		assert_true(id < 1000);
		n0 += id == 0;
		n1 += id == 1;
		top = id > top ? id : top;
		n++;
	}
	assert_int_equal(n, 100000);
	assert_true(n0 > 1.8 * n1 && n0 < 2.2 * n1);
	/* H(1000) ~ 7.485: P(0) ~ 0.1336 */
	assert_true(n0 > 12800 && n0 < 13900);
	assert_true(top > 900);
	ask_src_free(a);
	ask_src_free(b);
}

/* ---- sender ---- */

static struct ask_sender *sender(const char *text, unsigned nchan, unsigned window,
                                 unsigned retries)
{
	struct ask_send_cfg cfg = {.task = 7,
	                           .channel0 = 10,
	                           .nchan = nchan,
	                           .window = window,
	                           .nslots = 4,
	                           .key_bytes = 8,
	                           .rto_ns = 10 * MS,
	                           .retries = retries};
	struct ask_sender *s = ask_sender_new(&cfg, src_text(text, true));

	assert_non_null(s);
	return s;
}

static void ack(struct ask_sender *s, const uint8_t *pkt, uint64_t now)
{
	struct ask_msg m;
	uint8_t a[ASK_HDR_LEN];

	assert_int_equal(ask_msg_get(pkt, ASK_HDR_LEN, &m), 0);
	ask_ack_build(a, &m);
	ask_sender_ack(s, a, sizeof(a), now);
}

static void test_sender_window(void **state)
{
	/* 4 subspaces: a queue head each per packet; 40 keys give at least 10 packets. */
	char text[2000] = "";
	struct ask_tx tx[64];
	struct ask_msg m;
	uint8_t saved[ASK_MSG_MAX];
	size_t saved_len;
	int n;

	(void)state;
	for (int i = 0; i < 40; i++)
		sprintf(text + strlen(text), "key%d %d\n", i, i);
	struct ask_sender *s = sender(text, 1, 4, 2);
	n = ask_sender_pump(s, 0, tx, 64);
	assert_int_equal(n, 4); /* the window */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(ask_data_parse(tx[i].buf, tx[i].len, &m), 0);
		assert_int_equal(m.seq, i);
		assert_int_equal(m.channel, 10);
		assert_int_equal(m.task, 7);
		assert_int_equal(m.flags, 0);
		assert_true(m.bitmap != 0);
		/* Each valid slot holds a key of that subspace. */
		for (unsigned j = 0; j < 4; j++)
			if (m.bitmap >> j & 1)
				assert_int_equal(
				        ask_key_slot(tx[i].buf + ASK_HDR_LEN + j * 12, 8, 4), j);
	}
	memcpy(saved, tx[0].buf, tx[0].len);
	saved_len = tx[0].len;
	assert_int_equal(ask_sender_pump(s, 1 * MS, tx, 64), 0); /* window full */
	/* Selective: seq 1 acked, base stays at 0, still no room. */
	ack(s, saved, 2 * MS); /* an ACK of seq 0 ... */
	ack(s, saved, 2 * MS); /* ... twice */
	assert_int_equal(ask_sender_stats(s)->dup_acks, 1);
	n = ask_sender_pump(s, 3 * MS, tx, 64);
	assert_int_equal(n, 1); /* one slot freed */
	assert_int_equal(ask_msg_get(tx[0].buf, tx[0].len, &m), 0);
	assert_int_equal(m.seq, 4);
	/* Timeout (sent at 0; RTT 2 ms sampled, rto floor 10 ms): seqs 1..3 are due at 10 ms,
	 * but only the oldest, seq 1, is resent, with RESEND and otherwise the same bytes; the
	 * timeout backs off, so that a stall (every answer late) costs one resend, not the window:
	 * seqs 2 and 3 are due at 0 + 20 ms, seq 4 (sent at 3 ms) at 23 ms. */
	n = ask_sender_pump(s, 11 * MS, tx, 64);
	assert_int_equal(n, 1);
	assert_int_equal(ask_msg_get(tx[0].buf, tx[0].len, &m), 0);
	assert_int_equal(m.seq, 1);
	assert_true(m.flags & ASK_F_RESEND);
	assert_int_equal(ask_sender_pump(s, 11 * MS, tx, 64), 0);
	assert_int_equal(ask_sender_pump(s, 19 * MS, tx, 64), 0);
	/* At 20 ms the next oldest alone, and the timeout doubles again (40 ms). */
	n = ask_sender_pump(s, 20 * MS, tx, 64);
	assert_int_equal(n, 1);
	assert_int_equal(ask_msg_get(tx[0].buf, tx[0].len, &m), 0);
	assert_int_equal(m.seq, 2);
	assert_int_equal(ask_sender_pump(s, 39 * MS, tx, 64), 0);
	/* Out of retries (2): one resend per expiry, backed off (at most 8 x 10 ms), then
	 * -ETIMEDOUT naming a channel and seq. */
	uint64_t t = 40 * MS;
	while ((n = ask_sender_pump(s, t, tx, 64)) >= 0) {
		assert_true(n <= 1);
		assert_true(t < 2000 * MS);
		t += 10 * MS;
	}
	assert_int_equal(n, -ETIMEDOUT);
	assert_non_null(strstr(ask_sender_error(s), "channel 10 seq "));
	assert_non_null(strstr(ask_sender_error(s), "after 2 resends"));
	ask_sender_free(s);

	/* RESEND bytes are the original but for the flag. */
	s = sender(text, 1, 4, 5);
	ask_sender_pump(s, 0, tx, 64);
	memcpy(saved, tx[0].buf, tx[0].len);
	saved_len = tx[0].len;
	n = ask_sender_pump(s, 20 * MS, tx, 64);
	assert_int_equal(n, 1); /* the oldest of the four timed out */
	assert_int_equal(tx[0].len, saved_len);
	assert_int_equal(tx[0].buf[1], saved[1] | ASK_F_RESEND);
	assert_memory_equal(tx[0].buf + 2, saved + 2, saved_len - 2);
	ask_sender_free(s);

	/* Loss detection: seq 2, sent after 0 and 1, is acknowledged after 1 ms (the RTT); 0
	 * and 1 fall due a quarter RTT + 20 us later, long before the 10 ms floor; 3 does not. */
	s = sender(text, 1, 4, 5);
	assert_int_equal(ask_sender_pump(s, 0, tx, 64), 4);
	uint8_t p2[ASK_MSG_MAX];
	memcpy(p2, tx[2].buf, tx[2].len);
	ack(s, p2, 1 * MS);
	assert_int_equal(ask_sender_wake(s), 1 * MS + MS / 4 + 20000);
	assert_int_equal(ask_sender_pump(s, 1 * MS + MS / 4, tx, 64), 0);
	n = ask_sender_pump(s, 1 * MS + MS / 4 + 20000, tx, 64);
	assert_int_equal(n, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ask_msg_get(tx[i].buf, tx[i].len, &m), 0);
		assert_int_equal(m.seq, i);
		assert_true(m.flags & ASK_F_RESEND);
	}
	ask_sender_free(s);
}

/* Sends everything, acking all, until done; returns the packets seen per channel. */
static void test_sender_last(void **state)
{
	struct ask_tx tx[64];
	struct ask_msg m;
	uint64_t now = 0;
	unsigned last[3] = {0}, pkts[3] = {0}, tuples = 0, longs = 0;
	int n;

	(void)state;
	/* 3 channels, 5 short tuples and a long one: LONG packet, DATA packets, LASTs. */
	struct ask_sender *s = sender("a 1\nb 2\nc 3\nd 4\ne 5\nlonger-than-eight 6\n", 3, 2, 3);
	while (!ask_sender_done(s)) {
		n = ask_sender_pump(s, now, tx, 64);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++) {
			assert_int_equal(ask_data_parse(tx[i].buf, tx[i].len, &m), 0);
			unsigned c = m.channel - 10;
			assert_true(c < 3);
			assert_int_equal(m.seq, pkts[c]++);
			assert_int_equal(last[c], 0); /* nothing after LAST */
			if (m.flags & ASK_F_LAST)
				last[c] = 1;
			if (m.flags & ASK_F_LONG)
				longs += m.count;
			else
				tuples += (unsigned)__builtin_popcount(m.bitmap);
			ack(s, tx[i].buf, now);
		}
		now += MS;
		assert_true(now < 100 * MS);
	}
	assert_int_equal(tuples, 5);
	assert_int_equal(longs, 1);
	for (int c = 0; c < 3; c++)
		assert_int_equal(last[c], 1);
	assert_int_equal(ask_sender_stats(s)->tuples, 6);
	assert_int_equal(ask_sender_stats(s)->long_tuples, 1);
	assert_int_equal(ask_sender_stats(s)->resends, 0);
	ask_sender_free(s);

	/* An empty input: an empty LAST (bitmap 0) at seq 0 on each channel. */
	s = sender("", 2, 4, 3);
	n = ask_sender_pump(s, 0, tx, 64);
	assert_int_equal(n, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ask_data_parse(tx[i].buf, tx[i].len, &m), 0);
		assert_int_equal(m.flags, ASK_F_LAST);
		assert_int_equal(m.bitmap, 0);
		assert_int_equal(m.seq, 0);
	}
	assert_false(ask_sender_done(s));
	ack(s, tx[0].buf, 0);
	ack(s, tx[1].buf, 0);
	assert_true(ask_sender_done(s));
	/* Foreign ACKs are counted, not taken. */
	uint8_t a[ASK_HDR_LEN];
	struct ask_msg w = {.type = ASK_DATA_ACK, .task = 8, .channel = 10};
	ask_msg_put(a, &w);
	ask_sender_ack(s, a, sizeof(a), 0);
	w.task = 7;
	w.channel = 12;
	ask_msg_put(a, &w);
	ask_sender_ack(s, a, sizeof(a), 0);
	ask_sender_ack(s, a, 10, 0);
	assert_int_equal(ask_sender_stats(s)->bad_acks, 3);
	ask_sender_free(s);
}

/* ---- receiver ---- */

/* The tests' receiver configuration: task 7, 2 channels, W 4, S 4, kb 8, AA 2048. */
static struct ask_recv_cfg recv_cfg(enum ask_op op, bool ctl, uint64_t threshold)
{
	return (struct ask_recv_cfg){.task = 7,
	                             .nchan = 2,
	                             .window = 4,
	                             .nslots = 4,
	                             .key_bytes = 8,
	                             .aa_size = 2048,
	                             .op = op,
	                             .ctl = ctl,
	                             .swap_threshold = threshold,
	                             .rto_ns = 10 * MS,
	                             .retries = 2,
	                             .seq0 = 1000};
}

static struct ask_receiver *receiver(enum ask_op op, bool ctl, uint64_t threshold)
{
	struct ask_recv_cfg cfg = recv_cfg(op, ctl, threshold);
	struct ask_receiver *r = ask_receiver_new(&cfg);

	assert_non_null(r);
	return r;
}

/* A DATA payload of task 7, S 4, kb 8 with `key` (value) in its subspace's slot, if any. */
static size_t data(uint8_t *p, unsigned channel, uint32_t seq, uint8_t flags, const char *key,
                   uint32_t value)
{
	struct ask_msg m = {.task = 7,
	                    .channel = (uint16_t)channel,
	                    .nslots = 4,
	                    .key_bytes = 8,
	                    .seq = seq,
	                    .flags = flags};
	uint8_t k[8] = {0};
	size_t len = ask_data_init(p, &m);

	if (key != NULL) {
		memcpy(k, key, strlen(key));
		ask_data_put(p, 8, ask_key_slot(k, 8, 4), k, value);
	}
	return len;
}

static int rx(struct ask_receiver *r, const uint8_t *p, size_t len)
{
	uint8_t a[ASK_HDR_LEN];
	return ask_receiver_input(r, p, len, a);
}

static void test_receiver_dedup(void **state)
{
	struct ask_receiver *r = receiver(ASK_OP_ADD, false, 0);
	uint8_t p[ASK_MSG_MAX], a[ASK_HDR_LEN];
	struct ask_msg m;
	size_t len;

	(void)state;
	len = data(p, 1, 0, 0, "w", 5);
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_NEW);
	assert_int_equal(ask_ack_parse(a, sizeof(a), &m), 0);
	assert_int_equal(m.task, 7);
	assert_int_equal(m.channel, 1);
	assert_int_equal(m.seq, 0);
	memset(a, 0, sizeof(a));
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_DUP); /* ACKed again */
	assert_int_equal(a[0], ASK_DATA_ACK);
	assert_int_equal(get(ask_receiver_table(r), "w", 8), 5);
	/* Out of order within 2W: 3, 2 new, then 1 moves the base to 4; 2 again is a dup. */
	assert_int_equal(rx(r, p, data(p, 1, 3, 0, "w", 1)), ASK_RX_NEW);
	assert_int_equal(rx(r, p, data(p, 1, 2, 0, "w", 1)), ASK_RX_NEW);
	assert_int_equal(rx(r, p, data(p, 1, 2, 0, "w", 1)), ASK_RX_DUP);
	assert_int_equal(rx(r, p, data(p, 1, 9, 0, "w", 1)), ASK_RX_BAD); /* base 1 + 2W */
	assert_int_equal(rx(r, p, data(p, 1, 1, 0, "w", 1)), ASK_RX_NEW);
	assert_int_equal(rx(r, p, data(p, 1, 2, 0, "w", 1)), ASK_RX_DUP); /* below the base */
	/* Window wrap: 4..11 now fit; 8 aliases 0 in the ring but is new. */
	assert_int_equal(rx(r, p, data(p, 1, 8, 0, "w", 1)), ASK_RX_NEW);
	assert_int_equal(rx(r, p, data(p, 1, 0, 0, "w", 1)), ASK_RX_DUP);
	assert_int_equal(rx(r, p, data(p, 1, 12, 0, "w", 1)), ASK_RX_BAD);
	assert_int_equal(get(ask_receiver_table(r), "w", 8), 9);
	/* Foreign packets: wrong task, channel, shape; not ACKed. */
	len = data(p, 2, 0, 0, "w", 1);
	assert_int_equal(rx(r, p, len), ASK_RX_BAD);
	len = data(p, 0, 0, 0, "w", 1);
	p[3] = 8;
	assert_int_equal(rx(r, p, len), ASK_RX_BAD);
	p[3] = 7;
	p[6] = 5;
	assert_int_equal(rx(r, p, ask_data_size(5, 8)), ASK_RX_BAD);
	assert_int_equal(ask_receiver_stats(r)->bad_pkts, 5);
	assert_int_equal(ask_receiver_stats(r)->dup_pkts, 4);
	assert_int_equal(ask_receiver_stats(r)->data_pkts, 5);

	/* LAST: channel 1 ends at 9 once 4..9 are in; channel 0 ends at 0 (empty LAST). */
	assert_false(ask_receiver_complete(r));
	assert_int_equal(rx(r, p, data(p, 1, 9, ASK_F_LAST, NULL, 0)), ASK_RX_NEW);
	assert_int_equal(rx(r, p, data(p, 1, 10, 0, "w", 1)), ASK_RX_BAD);         /* past LAST */
	assert_int_equal(rx(r, p, data(p, 1, 7, ASK_F_LAST, "w", 1)), ASK_RX_BAD); /* 2nd LAST */
	for (uint32_t q = 4; q < 8; q++)
		assert_int_equal(rx(r, p, data(p, 1, q, 0, "w", 1)), ASK_RX_NEW);
	assert_false(ask_receiver_complete(r));
	assert_int_equal(rx(r, p, data(p, 0, 1, ASK_F_LAST, NULL, 0)), ASK_RX_NEW);
	assert_false(ask_receiver_complete(r)); /* channel 0 still misses seq 0 */
	assert_int_equal(rx(r, p, data(p, 0, 0, 0, "v", 1)), ASK_RX_NEW);
	assert_true(ask_receiver_complete(r));
	assert_true(ask_receiver_done(r)); /* no switch: nothing to fetch */
	struct ask_tx tx;
	assert_int_equal(ask_receiver_ctl(r, 0, &tx), 0);
	assert_int_equal(get(ask_receiver_table(r), "w", 8), 13);
	ask_receiver_free(r);

	/* A LAST below a seq already seen is refused. */
	r = receiver(ASK_OP_ADD, false, 0);
	assert_int_equal(rx(r, p, data(p, 0, 2, 0, "w", 1)), ASK_RX_NEW);
	assert_int_equal(rx(r, p, data(p, 0, 1, ASK_F_LAST, NULL, 0)), ASK_RX_BAD);
	ask_receiver_free(r);
}

static void test_receiver_merge(void **state)
{
	uint8_t p[ASK_MSG_MAX], q[ASK_MSG_MAX];
	size_t len;

	(void)state;
	for (enum ask_op op = ASK_OP_ADD; op <= ASK_OP_MIN; op++) {
		struct ask_receiver *r = receiver(op, false, 0);
		int32_t vals[] = {4, -3, 10, -20};
		for (uint32_t i = 0; i < 4; i++)
			assert_int_equal(rx(r, p, data(p, 0, i, 0, "key", (uint32_t)vals[i])),
			                 ASK_RX_NEW);
		/* a duplicate changes nothing */
		assert_int_equal(rx(r, p, data(p, 0, 3, 0, "key", 1000)), ASK_RX_DUP);
		int32_t want = op == ASK_OP_ADD ? -9 : op == ASK_OP_MAX ? 10 : -20;
		assert_int_equal((int32_t)get(ask_receiver_table(r), "key", 8), want);
		ask_receiver_free(r);
	}

	/* LONG records: merged under their full key, a short one padded like a slot key. */
	struct ask_receiver *r = receiver(ASK_OP_ADD, false, 0);
	struct ask_msg lm = {.type = ASK_DATA,
	                     .flags = ASK_F_LONG,
	                     .task = 7,
	                     .nslots = 4,
	                     .key_bytes = 8,
	                     .count = 3};
	ask_msg_put(q, &lm);
	len = ASK_HDR_LEN;
	len += ask_long_put(q + len, (const uint8_t *)"extraordinary", 13, 2);
	len += ask_long_put(q + len, (const uint8_t *)"extraordinary", 13, 3);
	len += ask_long_put(q + len, (const uint8_t *)"key", 3, 1);
	assert_int_equal(rx(r, q, len), ASK_RX_NEW);
	assert_int_equal(rx(r, p, data(p, 0, 1, 0, "key", 1)), ASK_RX_NEW);
	assert_int_equal(rx(r, q, len), ASK_RX_DUP);
	assert_int_equal(get(ask_receiver_table(r), "extraordinary", 8), 5);
	assert_int_equal(get(ask_receiver_table(r), "key", 8), 2);
	assert_int_equal(ask_receiver_stats(r)->long_records, 3);
	assert_int_equal(ask_receiver_stats(r)->tuples_unabsorbed, 1);
	ask_receiver_free(r);
}

/* A reply to the request req (header only), with type, copy and start changed. */
static size_t reply(uint8_t *p, const uint8_t *req, uint8_t type, unsigned copy, uint32_t start,
                    uint32_t count)
{
	struct ask_msg m;

	ask_msg_get(req, ASK_HDR_LEN, &m);
	m.type = type;
	m.bitmap = ASK_SEL(ASK_SEL_SLOT(m.bitmap), copy);
	m.start = start;
	m.count = count;
	ask_msg_put(p, &m);
	return ASK_HDR_LEN;
}

static void test_receiver_ctl(void **state)
{
	struct ask_receiver *r = receiver(ASK_OP_ADD, true, 2);
	uint8_t p[ASK_MSG_MAX], req[ASK_HDR_LEN], a[ASK_HDR_LEN], key[8] = "zz";
	struct ask_tx tx;
	struct ask_msg m;
	unsigned j = ask_key_slot(key, 8, 4);
	size_t len;

	(void)state;
	/* Three un-absorbed tuples in slot j pass the threshold 2: SWAP(j, copy 1). */
	for (uint32_t q = 0; q < 2; q++)
		rx(r, p, data(p, 0, q, 0, "zz", 1));
	assert_int_equal(ask_receiver_ctl(r, 0, &tx), 0);
	rx(r, p, data(p, 0, 2, 0, "zz", 1));
	assert_int_equal(ask_receiver_ctl(r, 0, &tx), 1);
	assert_int_equal(ask_msg_get(tx.buf, tx.len, &m), 0);
	assert_int_equal(m.type, ASK_SWAP);
	assert_int_equal(m.bitmap, ASK_SEL(j, 1));
	assert_int_equal(m.seq, 1000);
	assert_int_equal(m.task, 7);
	memcpy(req, tx.buf, ASK_HDR_LEN);
	/* Retry after the timeout: the same bytes. */
	assert_int_equal(ask_receiver_ctl(r, 5 * MS, &tx), 0);
	assert_int_equal(ask_receiver_ctl(r, 10 * MS, &tx), 1);
	assert_memory_equal(tx.buf, req, ASK_HDR_LEN);
	assert_int_equal(ask_receiver_stats(r)->swap_retries, 1);
	/* A SWAP_DONE naming the other copy, or another seq, does not count. */
	len = reply(p, req, ASK_SWAP_DONE, 0, 0, 0);
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY);
	p[11] ^= 1;
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY);
	assert_int_equal(ask_receiver_stats(r)->swaps, 0);
	assert_int_equal(ask_receiver_stats(r)->stale_replies, 2);
	len = reply(p, req, ASK_SWAP_DONE, 1, 0, 0);
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY);
	assert_int_equal(ask_receiver_stats(r)->swaps, 1);

	/* Then FETCH the old copy 0 from 0, a new seq, fetch_max records. */
	assert_int_equal(ask_receiver_ctl(r, 11 * MS, &tx), 1);
	assert_int_equal(ask_msg_get(tx.buf, tx.len, &m), 0);
	assert_int_equal(m.type, ASK_FETCH);
	assert_int_equal(m.bitmap, ASK_SEL(j, 0));
	assert_int_equal(m.start, 0);
	assert_int_equal(m.count, ask_fetch_max(8));
	assert_int_equal(m.seq, 1001);
	memcpy(req, tx.buf, ASK_HDR_LEN);
	/* The reply is lost: the retry repeats seq, slot, copy and start. */
	assert_int_equal(ask_receiver_ctl(r, 21 * MS, &tx), 1);
	assert_memory_equal(tx.buf, req, ASK_HDR_LEN);
	assert_int_equal(ask_receiver_stats(r)->fetch_retries, 1);
	/* Reply: 2 records, go on at 1024. */
	len = reply(p, req, ASK_FETCH_REPLY, 0, 1024, 2);
	memcpy(p + len, key, 8);
	ask_put32(p + len + 8, 40);
	memcpy(p + len + 12, "other\0\0\0", 8);
	ask_put32(p + len + 20, 7);
	len += 24;
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY);
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY); /* replayed: stale */
	assert_int_equal(ask_receiver_stats(r)->fetched_records, 2);
	assert_int_equal(get(ask_receiver_table(r), "zz", 8), 43);
	assert_int_equal(get(ask_receiver_table(r), "other", 8), 7);
	assert_int_equal(ask_receiver_ctl(r, 22 * MS, &tx), 1);
	assert_int_equal(ask_msg_get(tx.buf, tx.len, &m), 0);
	assert_int_equal(m.start, 1024);
	assert_int_equal(m.seq, 1002);
	memcpy(req, tx.buf, ASK_HDR_LEN);
	/* A reply that does not advance, or goes past aa_size, is a hard error. */
	len = reply(p, req, ASK_FETCH_REPLY, 0, 1024, 0);
	assert_int_equal(ask_receiver_input(r, p, len, a), -EPROTO);
	ask_receiver_free(r);

	/* End of stream: both copies of every slot, in order, then done. ERROR: hard error. */
	r = receiver(ASK_OP_ADD, true, 0);
	rx(r, p, data(p, 0, 0, ASK_F_LAST, NULL, 0));
	rx(r, p, data(p, 1, 0, ASK_F_LAST, NULL, 0));
	assert_true(ask_receiver_complete(r));
	uint64_t now = 0;
	for (unsigned i = 0; i < 8; i++) {
		assert_false(ask_receiver_done(r));
		assert_int_equal(ask_receiver_ctl(r, now, &tx), 1);
		assert_int_equal(ask_msg_get(tx.buf, tx.len, &m), 0);
		assert_int_equal(m.type, ASK_FETCH);
		assert_int_equal(m.bitmap, ASK_SEL(i / 2, i % 2));
		memcpy(req, tx.buf, ASK_HDR_LEN);
		len = reply(p, req, ASK_FETCH_REPLY, i % 2, 2048, 0);
		assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY);
		now += MS;
	}
	assert_int_equal(ask_receiver_ctl(r, now, &tx), 0);
	assert_true(ask_receiver_done(r));
	ask_receiver_free(r);

	r = receiver(ASK_OP_ADD, true, 0);
	rx(r, p, data(p, 0, 0, ASK_F_LAST, NULL, 0));
	rx(r, p, data(p, 1, 0, ASK_F_LAST, NULL, 0));
	assert_int_equal(ask_receiver_ctl(r, 0, &tx), 1);
	memcpy(req, tx.buf, ASK_HDR_LEN);
	len = reply(p, req, ASK_FETCH_REPLY, 0, 0, 0);
	p[1] = ASK_F_ERROR;
	assert_int_equal(ask_receiver_input(r, p, len, a), -EPROTO);
	assert_non_null(strstr(ask_receiver_error(r), "refused FETCH"));
	ask_receiver_free(r);

	/* No answer at all: -ETIMEDOUT after the retries (2, backoff 10, 20 ms). */
	r = receiver(ASK_OP_ADD, true, 0);
	rx(r, p, data(p, 0, 0, ASK_F_LAST, NULL, 0));
	rx(r, p, data(p, 1, 0, ASK_F_LAST, NULL, 0));
	assert_int_equal(ask_receiver_ctl(r, 0, &tx), 1);
	assert_int_equal(ask_receiver_ctl(r, 10 * MS, &tx), 1);
	assert_int_equal(ask_receiver_ctl(r, 30 * MS, &tx), 1);
	assert_int_equal(ask_receiver_ctl(r, 70 * MS, &tx), -ETIMEDOUT);
	ask_receiver_free(r);
}

/*
 * Control seqs (docs/ask.md, "Control seqs: late SWAP and FETCH"): each new SWAP or FETCH takes
 * the next seq (mod 2^32); a reply to another seq (a late copy of an earlier request's, or one
 * not asked yet), slot or type is ignored, ERROR flag or not, and merges nothing.
 */
static void test_receiver_ctl_seqs(void **state)
{
	struct ask_recv_cfg cfg = recv_cfg(ASK_OP_ADD, true, 1);
	cfg.nchan = 1;
	cfg.seq0 = UINT32_MAX; /* the seqs wrap */
	struct ask_receiver *r = ask_receiver_new(&cfg);
	uint8_t p[ASK_MSG_MAX], swap[ASK_HDR_LEN], f0[ASK_HDR_LEN], a[ASK_HDR_LEN], key[8] = "zz";
	unsigned j = ask_key_slot(key, 8, 4);
	struct ask_tx tx;
	struct ask_msg m;
	size_t len;

	(void)state;
	assert_non_null(r);
	rx(r, p, data(p, 0, 0, 0, "zz", 1));
	rx(r, p, data(p, 0, 1, 0, "zz", 1));
	assert_int_equal(ask_receiver_ctl(r, 0, &tx), 1);
	memcpy(swap, tx.buf, ASK_HDR_LEN);
	assert_int_equal(ask_msg_get(swap, ASK_HDR_LEN, &m), 0);
	assert_int_equal(m.type, ASK_SWAP);
	assert_int_equal(m.seq, UINT32_MAX);
	len = reply(p, swap, ASK_SWAP_DONE, 1, 0, 0);
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY);
	assert_int_equal(ask_receiver_stats(r)->swaps, 1);
	assert_int_equal(ask_receiver_ctl(r, 0, &tx), 1);
	memcpy(f0, tx.buf, ASK_HDR_LEN);
	assert_int_equal(ask_msg_get(f0, ASK_HDR_LEN, &m), 0);
	assert_int_equal(m.type, ASK_FETCH);
	assert_int_equal(m.seq, 0); /* the next seq, wrapped */

	/* A duplicate SWAP_DONE: ignored, the FETCH stays the one outstanding. */
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY);
	assert_int_equal(ask_receiver_stats(r)->swaps, 1);
	assert_int_equal(ask_receiver_ctl(r, 1 * MS, &tx), 0);
	/* FETCH_REPLYs of the SWAP's seq (with ERROR), of a seq not sent, of another slot. */
	len = reply(p, f0, ASK_FETCH_REPLY, 0, 2048, 0);
	p[1] = ASK_F_ERROR;
	ask_put32(p + 8, UINT32_MAX);
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY);
	p[1] = 0;
	ask_put32(p + 8, 1);
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY);
	ask_put32(p + 8, 0);
	ask_put32(p + 12, ASK_SEL((j + 1) % 4, 0));
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY);
	/* A SWAP_DONE carrying the FETCH's seq is not its answer either. */
	len = reply(p, f0, ASK_SWAP_DONE, 0, 0, 0);
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY);
	assert_int_equal(ask_receiver_stats(r)->stale_replies, 5);
	assert_int_equal(ask_receiver_stats(r)->fetched_records, 0);

	/* The answer: one record, go on at 1024 with the next seq. */
	len = reply(p, f0, ASK_FETCH_REPLY, 0, 1024, 1);
	memcpy(p + len, key, 8);
	ask_put32(p + len + 8, 40);
	len += 12;
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY);
	assert_int_equal(get(ask_receiver_table(r), "zz", 8), 42);
	assert_int_equal(ask_receiver_ctl(r, 2 * MS, &tx), 1);
	assert_int_equal(ask_msg_get(tx.buf, tx.len, &m), 0);
	assert_int_equal(m.seq, 1);
	assert_int_equal(m.start, 1024);
	/* The same reply again (a duplicate, or the switch's replay to a retry): merged once. */
	assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_REPLY);
	assert_int_equal(get(ask_receiver_table(r), "zz", 8), 42);
	assert_int_equal(ask_receiver_stats(r)->stale_replies, 6);
	assert_int_equal(ask_receiver_stats(r)->fetched_records, 1);
	ask_receiver_free(r);
}

/* ---- sender -> switch model -> receiver ---- */

#define M_AA       64u /* small: collisions and swaps happen */
#define M_SLOTS    8u
#define M_KB       8u
#define M_WINDOW   8u
#define M_CHANS    3u
#define M_SCAN     16u    /* entries one FETCH looks at (the switch: ASK_FETCH_SCAN, 1024) */
#define M_CTL_LATE 65536u /* ASK_CTL_LATE: a SWAP / FETCH this close behind the newest is late */

/* The switch of docs/ask.md for one task, reduced to what the hosts can observe. */
struct model {
	enum ask_op op;
	struct {
		uint8_t used, key[M_KB];
		uint32_t value;
	} aa[M_SLOTS][2][M_AA];
	uint8_t active[M_SLOTS];
	uint32_t seen[M_CHANS][2 * M_WINDOW], agg[M_CHANS][2 * M_WINDOW], next[M_CHANS];
	bool ctl_valid;
	uint32_t ctl_seq; /* the newest SWAP or FETCH seq */
	bool kept_valid;
	uint8_t kept[ASK_MSG_MAX]; /* the last FETCH_REPLY ... */
	size_t kept_len;
	uint32_t kept_seq, kept_sel, kept_start, kept_count; /* ... and the request it answered */
	uint64_t absorbed, stale;
	uint64_t late_swaps, late_fetches, reused_seqs, fetch_replays, bad_ctl; /* ctl outcomes */
	/* the job (docs/ask.md, Job lifetime): incarnation, registration nonce, this incarnation's
	 * counts
	 */
	uint16_t inc;
	uint32_t reg, jobs;
	uint64_t j_tuples, j_absorbed, j_claims, j_fetched, wrong_inc;
};

/* Windows, rings and active copies of a fresh task (and, with aas, empty arrays). */
static void model_fresh(struct model *sw, bool aas)
{
	if (aas)
		memset(sw->aa, 0, sizeof(sw->aa));
	memset(sw->active, 0, sizeof(sw->active));
	memset(sw->next, 0, sizeof(sw->next));
	memset(sw->agg, 0, sizeof(sw->agg));
	for (unsigned c = 0; c < M_CHANS; c++)
		for (unsigned i = 0; i < 2 * M_WINDOW; i++)
			sw->seen[c][i] = i + 1;
	sw->kept_valid = false;
	sw->ctl_valid = false;
	sw->j_tuples = sw->j_absorbed = sw->j_claims = sw->j_fetched = 0;
}

/* A task registered afresh (task add; or a switch restarted and its config replayed). */
static void model_init(struct model *sw, enum ask_op op)
{
	static uint32_t reg = 0x5EED0000;
	memset(sw, 0, sizeof(*sw));
	sw->op = op;
	sw->reg = ++reg;
	model_fresh(sw, true);
}

/* DATA through the switch: false if dropped. */
static bool model_data(struct model *sw, uint8_t *p, size_t len)
{
	struct ask_msg m;
	uint32_t absorbed = 0;

	assert_int_equal(ask_data_parse(p, len, &m), 0);
	assert_true(m.channel < M_CHANS);
	if (m.incarnation != sw->inc) {
		sw->wrong_inc++;
		return false;
	}
	int32_t d = (int32_t)(m.seq - sw->next[m.channel]);
	if (d < -(int32_t)M_WINDOW) {
		sw->stale++;
		return false;
	}
	assert_true(d < (int32_t)M_WINDOW); /* the sender never breaks its window */
	if (d >= 0)
		sw->next[m.channel] = m.seq + 1;
	if (m.flags & ASK_F_LONG)
		return true;
	unsigned i = m.seq % (2 * M_WINDOW);
	if (sw->seen[m.channel][i] == m.seq) {
		absorbed = sw->agg[m.channel][i];
	} else {
		for (unsigned j = 0; j < M_SLOTS; j++) {
			if (!(m.bitmap >> j & 1))
				continue;
			uint8_t *rec = p + ASK_HDR_LEN + j * ask_rec_len(M_KB);
			uint32_t e = ask_key_entry(rec, M_KB, M_AA);
			__typeof__(&sw->aa[0][0][0]) a = &sw->aa[j][sw->active[j]][e];
			sw->j_tuples++;
			if (!a->used) {
				a->used = 1;
				memcpy(a->key, rec, M_KB);
				a->value = ask_be32(rec + M_KB);
				sw->j_claims++;
			} else if (memcmp(a->key, rec, M_KB) == 0) {
				a->value = ask_op_apply(sw->op, a->value, ask_be32(rec + M_KB));
			} else {
				continue;
			}
			absorbed |= 1u << j;
			sw->absorbed++;
			sw->j_absorbed++;
		}
		sw->seen[m.channel][i] = m.seq;
		sw->agg[m.channel][i] = absorbed;
	}
	for (unsigned j = 0; j < M_SLOTS; j++)
		if (absorbed >> j & 1)
			memset(p + ASK_HDR_LEN + j * ask_rec_len(M_KB), 0, ask_rec_len(M_KB));
	ask_put32(p + 12, m.bitmap & ~absorbed);
	return true;
}

/*
 * docs/ask.md "Control seqs: late SWAP and FETCH" (ctl_late() in ask_dp.c): a seq older than
 * the newest by less than M_CTL_LATE is late; anything else is kept as the newest if newer, or
 * if further back (a restarted receiver).
 */
static bool model_late(struct model *sw, uint32_t seq)
{
	int32_t d = (int32_t)(seq - sw->ctl_seq);

	if (sw->ctl_valid && d < 0 && d > -(int32_t)M_CTL_LATE)
		return true;
	if (!sw->ctl_valid || d > 0 || d <= -(int32_t)M_CTL_LATE) {
		sw->ctl_seq = seq;
		sw->ctl_valid = true;
	}
	return false;
}

/*
 * SWAP or FETCH: the reply into out and its length, or 0 when the switch drops the request
 * (late, or a FETCH reusing the kept seq for another request). As in ask_dp.c: a bad slot or
 * copy, or a FETCH start past the AA size, is answered with ERROR before the seq is looked at
 * and does not move the newest seq; a FETCH repeating the kept (seq, slot, copy, start, count)
 * gets the kept reply byte for byte and clears nothing.
 */
/* BEGIN (ask_begin() in ask_dp.c): N from E resets, N again reports, anything else is refused. */
static size_t model_begin(struct model *sw, const uint8_t *req, size_t len, uint8_t *out)
{
	struct ask_msg m;

	assert_int_equal(ask_msg_get(req, len, &m), 0);
	assert_int_equal(len, ASK_HDR_LEN + sizeof(struct ask_job_info));
	uint16_t want = m.incarnation, expect = (uint16_t)m.count;
	struct ask_job_info ji = {0};
	if (m.nslots != M_SLOTS || m.key_bytes != M_KB) {
		ji.error = ASK_BEGIN_SHAPE;
	} else if (sw->inc != want) {
		if (sw->inc != expect || want == expect) {
			ji.error = ASK_BEGIN_INCARNATION;
		} else {
			model_fresh(sw, true);
			sw->inc = want;
			sw->jobs++;
			sw->ctl_seq = m.seq;
			sw->ctl_valid = true;
			ji.flags = ASK_JOB_F_RESET;
		}
	}
	ask_put32(ji.reg, sw->reg);
	ji.op = (uint8_t)sw->op;
	ask_put16(ji.channels, M_CHANS);
	ask_put32(ji.window, M_WINDOW);
	ask_put32(ji.aa_size, M_AA);
	ask_put64(ji.tuples, sw->j_tuples);
	ask_put64(ji.absorbed, sw->j_absorbed);
	ask_put64(ji.held, sw->j_claims - sw->j_fetched);
	ask_put32(ji.jobs, sw->jobs);
	m.type = ASK_BEGIN_DONE;
	m.flags = ji.error ? ASK_F_ERROR : 0;
	m.nslots = M_SLOTS;
	m.key_bytes = M_KB;
	m.incarnation = sw->inc;
	m.count = 0;
	ask_msg_put(out, &m);
	memcpy(out + ASK_HDR_LEN, &ji, sizeof(ji));
	return ASK_HDR_LEN + sizeof(ji);
}

static size_t model_ctl(struct model *sw, const uint8_t *req, uint8_t *out)
{
	struct ask_msg m;
	uint32_t sel, e, n = 0;
	unsigned slot, copy;

	assert_int_equal(ask_msg_get(req, ASK_HDR_LEN, &m), 0);
	if (m.type == ASK_BEGIN)
		return model_begin(sw, req, ASK_HDR_LEN + sizeof(struct ask_job_info), out);
	if (m.incarnation != sw->inc) {
		sw->wrong_inc++;
		return 0;
	}
	sel = m.bitmap;
	slot = ASK_SEL_SLOT(sel);
	copy = ASK_SEL_COPY(sel);
	bool sel_ok = (sel & ~0x1FFu) == 0 && slot < M_SLOTS;
	m.flags = 0;
	m.nslots = M_SLOTS;
	m.key_bytes = M_KB;
	if (m.type == ASK_SWAP) {
		m.type = ASK_SWAP_DONE;
		if (!sel_ok) {
			sw->bad_ctl++;
			m.flags = ASK_F_ERROR;
		} else if (model_late(sw, m.seq)) {
			sw->late_swaps++;
			return 0;
		} else {
			sw->active[slot] = (uint8_t)copy;
			m.bitmap = ASK_SEL(slot, sw->active[slot]);
			m.start = 0;
			m.count = 0;
		}
		ask_msg_put(out, &m);
		return ASK_HDR_LEN;
	}
	assert_int_equal(m.type, ASK_FETCH);
	m.type = ASK_FETCH_REPLY;
	if (!sel_ok || m.start > M_AA) {
		sw->bad_ctl++;
		m.flags = ASK_F_ERROR;
		m.count = 0;
		ask_msg_put(out, &m);
		return ASK_HDR_LEN;
	}
	bool same = sw->kept_valid && sw->kept_seq == m.seq;
	if (model_late(sw, m.seq)) {
		sw->late_fetches++;
		return 0;
	}
	if (same &&
	    (sw->kept_sel != sel || sw->kept_start != m.start || sw->kept_count != m.count)) {
		sw->reused_seqs++;
		return 0;
	}
	if (same) {
		sw->fetch_replays++;
		memcpy(out, sw->kept, sw->kept_len); /* a retry: the same reply, nothing cleared */
		return sw->kept_len;
	}
	uint32_t want = m.count < ask_fetch_max(M_KB) ? m.count : ask_fetch_max(M_KB);
	uint32_t end = m.start + M_SCAN < M_AA ? m.start + M_SCAN : M_AA;
	for (e = m.start; e < end && n < want; e++) {
		__typeof__(&sw->aa[0][0][0]) a = &sw->aa[slot][copy][e];
		if (!a->used)
			continue;
		uint8_t *rec = out + ASK_HDR_LEN + n * ask_rec_len(M_KB);
		memcpy(rec, a->key, M_KB);
		ask_put32(rec + M_KB, a->value);
		a->used = 0;
		sw->j_fetched++;
		n++;
	}
	sw->kept_valid = true;
	sw->kept_seq = m.seq;
	sw->kept_sel = sel;
	sw->kept_start = m.start;
	sw->kept_count = m.count;
	m.start = e;
	m.count = n;
	ask_msg_put(out, &m);
	sw->kept_len = ASK_HDR_LEN + n * ask_rec_len(M_KB);
	memcpy(sw->kept, out, sw->kept_len);
	return sw->kept_len;
}

/* The model's SWAP and FETCH against the two rules of docs/ask.md, by hand. */
static void test_model_ctl(void **state)
{
	static struct model m;
	uint8_t q[ASK_HDR_LEN], out[ASK_MSG_MAX], kept[ASK_MSG_MAX];
	const uint32_t cnt = ask_fetch_max(M_KB);
	size_t len;

	(void)state;
	model_init(&m, ASK_OP_ADD);
	m.aa[0][0][3].used = 1;
	/* FETCH 10 takes the entry; its retry gets the same bytes and clears nothing. */
	ask_fetch_build(q, 7, 0, M_SLOTS, M_KB, 10, 0, 0, 0, cnt);
	len = model_ctl(&m, q, out);
	assert_int_equal(len, ASK_HDR_LEN + ask_rec_len(M_KB));
	assert_int_equal(ask_be32(out + 16), M_SCAN);
	memcpy(kept, out, len);
	m.aa[0][0][3].used = 1;
	assert_int_equal(model_ctl(&m, q, out), len);
	assert_memory_equal(out, kept, len);
	assert_true(m.aa[0][0][3].used);
	/* Seq 10 again for another start or count: dropped. */
	ask_fetch_build(q, 7, 0, M_SLOTS, M_KB, 10, 0, 0, M_SCAN, cnt);
	assert_int_equal(model_ctl(&m, q, out), 0);
	ask_fetch_build(q, 7, 0, M_SLOTS, M_KB, 10, 0, 0, 0, cnt - 1);
	assert_int_equal(model_ctl(&m, q, out), 0);
	assert_int_equal(m.reused_seqs, 2);
	/* SWAP 11 makes 10 late: neither the SWAP nor the kept FETCH's retry is served. */
	ask_swap_build(q, 7, 0, M_SLOTS, M_KB, 11, 0, 1);
	assert_int_equal(model_ctl(&m, q, out), ASK_HDR_LEN);
	assert_int_equal(ask_be32(out + 12), ASK_SEL(0, 1));
	ask_swap_build(q, 7, 0, M_SLOTS, M_KB, 10, 0, 0);
	assert_int_equal(model_ctl(&m, q, out), 0);
	ask_fetch_build(q, 7, 0, M_SLOTS, M_KB, 10, 0, 0, 0, cnt);
	assert_int_equal(model_ctl(&m, q, out), 0);
	assert_int_equal(m.active[0], 1);
	assert_int_equal(m.late_swaps + m.late_fetches, 2);
	/* Errors are answered whatever the seq and leave the newest alone. */
	ask_swap_build(q, 7, 0, M_SLOTS, M_KB, 5, M_SLOTS, 0);
	assert_int_equal(model_ctl(&m, q, out), ASK_HDR_LEN);
	assert_int_equal(out[1], ASK_F_ERROR);
	ask_fetch_build(q, 7, 0, M_SLOTS, M_KB, 1000, 0, 0, M_AA + 1, cnt);
	assert_int_equal(model_ctl(&m, q, out), ASK_HDR_LEN);
	assert_int_equal(out[1], ASK_F_ERROR);
	assert_int_equal(m.bad_ctl, 2);
	/* 65535 behind the newest (12) is late; 65536 behind is new, so 11 is then new too. */
	ask_swap_build(q, 7, 0, M_SLOTS, M_KB, 12, 0, 0);
	assert_int_equal(model_ctl(&m, q, out), ASK_HDR_LEN);
	ask_swap_build(q, 7, 0, M_SLOTS, M_KB, 12 - 65535, 0, 1);
	assert_int_equal(model_ctl(&m, q, out), 0);
	ask_swap_build(q, 7, 0, M_SLOTS, M_KB, 12 - 65536, 0, 1);
	assert_int_equal(model_ctl(&m, q, out), ASK_HDR_LEN);
	assert_int_equal(m.active[0], 1);
	ask_swap_build(q, 7, 0, M_SLOTS, M_KB, 11, 0, 0);
	assert_int_equal(model_ctl(&m, q, out), ASK_HDR_LEN);
	assert_int_equal(m.active[0], 0);
	assert_int_equal(m.fetch_replays, 1);
}

/* A packet on the wire, delivered at `at`. */
struct wire {
	uint8_t buf[ASK_MSG_MAX];
	size_t len;
	uint64_t at;
	int to; /* enum dest */
};

enum dest {
	TO_SWITCH_DATA, /* DATA, through the switch to the receiver */
	TO_SENDER,      /* DATA_ACK, HELLO_ACK, CLOSE_ACK, ABORT */
	TO_SWITCH_CTL,  /* SWAP, FETCH, BEGIN */
	TO_RECEIVER,    /* the switch's replies; HELLO, CLOSE from the sender */
	TO_EDGE_DATA,   /* DATA, through the edge switch and on to the switch */
	TO_EDGE_CTL,    /* SWAP, FETCH, BEGIN for the edge switch */
};

struct net {
	struct wire *w;
	size_t n, cap;
	unsigned loss, dup, delay; /* percent */
	uint32_t rng;
};

static unsigned net_rand(struct net *nt)
{
	nt->rng = nt->rng * 1103515245u + 12345u;
	return (nt->rng >> 16) % 100;
}

/*
 * Every packet may be lost, duplicated, delayed and reordered: DATA and ACKs, SWAP, FETCH, BEGIN
 * and their replies, HELLO, CLOSE and theirs. A SWAP or FETCH duplicated, or delayed past its
 * retry, can reach the switch after the receiver's next request; the switch drops it as late
 * (docs/ask.md, "Control seqs: late SWAP and FETCH"): executed afresh, such a FETCH would clear
 * entries whose reply the receiver no longer takes, and such a SWAP would undo a newer one.
 */
static void net_send(struct net *nt, const uint8_t *buf, size_t len, int to, uint64_t now)
{
	for (int copies = net_rand(nt) < nt->dup ? 2 : 1; copies > 0; copies--) {
		if (net_rand(nt) < nt->loss)
			continue;
		if (nt->n == nt->cap) {
			nt->cap = nt->cap ? 2 * nt->cap : 256;
			nt->w = realloc(nt->w, nt->cap * sizeof(*nt->w));
			assert_non_null(nt->w);
		}
		struct wire *x = &nt->w[nt->n++];
		memcpy(x->buf, buf, len);
		x->len = len;
		x->to = to;
		/* most arrive next tick in random order; some much later (after a resend) */
		x->at = now + 1 + (net_rand(nt) < nt->delay ? 5 + net_rand(nt) : 0) * MS;
	}
}

/* The switch of the last job run_job() ran, and the edge switch on the senders' side of it
 * (docs/fabric.md, ASK across two switches) when the job had one. */
static struct model job_sw, job_edge;

struct job_opts {
	const char *tuples, *zipf;
	enum ask_op op;
	unsigned loss;       /* percent of every packet lost; half as many duplicated, delayed */
	uint64_t threshold;  /* the receiver's swap threshold */
	uint32_t seed;       /* the network's faults */
	uint16_t inc;        /* the receiver's first choice of incarnation */
	bool keep_switch;    /* on job_sw as the last job left it (the same registration) */
	uint64_t restart_ms; /* the switch restarts then, its task registered afresh (0: no) */
	bool corrupt;        /* the switch adds one to an entry it holds, once, mid-job */
	uint64_t silent_ms;  /* from then on the switch passes nothing (0: never) */
	bool edge;           /* an edge switch between the sender and the switch */
	uint64_t edge_restart_ms; /* the edge switch restarts then (0: no) */
	bool edge_corrupt;        /* the edge, not the switch, gets an entry wrong */
};

struct job_result {
	int rc;            /* 0, or the first error of the receiver's side */
	int sender_rc;     /* 0, or the sender's (its ABORT from the receiver) */
	bool verified;     /* the end-to-end check ran and held */
	char why[256];     /* the check's or the error's sentence */
	uint64_t fail_ms;  /* when the receiver's side failed */
	uint64_t absorbed; /* the model's, over every incarnation */
	uint64_t edge_absorbed;
	struct ask_recv_stats st;
};

/* The reduceByKey of o's input, as a table. */
static struct ask_table *want_table(const struct job_opts *o)
{
	struct ask_zipf_spec z;
	struct ask_src *src = src_text(o->tuples, true);
	assert_int_equal(ask_zipf_parse(o->zipf, &z), 0);
	assert_int_equal(ask_src_add_zipf(src, &z), 0);
	struct ask_table *want = ask_table_new(o->op);
	struct ask_tuple t;
	uint8_t k[ASK_KEY_MAX];
	while (ask_src_next(src, &t) == 1)
		ask_table_merge(want, k, ask_key_canon(k, t.key, t.len, M_KB), t.value);
	ask_src_free(src);
	return want;
}

/* One entry the switch holds gets one more (the switch's arithmetic gone wrong). */
static bool model_corrupt(struct model *sw)
{
	for (unsigned j = 0; j < M_SLOTS; j++)
		for (unsigned c = 0; c < 2; c++)
			for (unsigned e = 0; e < M_AA; e++)
				if (sw->aa[j][c][e].used) {
					sw->aa[j][c][e].value++;
					return true;
				}
	return false;
}

/*
 * Runs one job, receiver and sender through the model switch, the network's faults drawn from
 * o->seed: BEGIN, HELLO, the stream with its swaps and fetches, CLOSE, the final counts and the
 * end-to-end check; *res says how it ended. With res->rc == 0 the receiver's table is also
 * compared with a direct reduceByKey here.
 */
static void run_job(const struct job_opts *o, struct job_result *res)
{
	struct net nt = {.loss = o->loss, .dup = o->loss / 2, .delay = o->loss / 2, .rng = o->seed};
	struct ask_zipf_spec z;
	struct ask_src *src = src_text(o->tuples, true);
	assert_int_equal(ask_zipf_parse(o->zipf, &z), 0);
	assert_int_equal(ask_src_add_zipf(src, &z), 0);
	struct ask_send_cfg scfg = {.task = 7,
	                            .nchan = M_CHANS,
	                            .window = M_WINDOW,
	                            .nslots = M_SLOTS,
	                            .key_bytes = M_KB,
	                            .rto_ns = 10 * MS,
	                            .retries = 30};
	struct ask_recv_cfg rcfg = {.task = 7,
	                            .nchan = M_CHANS,
	                            .window = M_WINDOW,
	                            .nslots = M_SLOTS,
	                            .key_bytes = M_KB,
	                            .aa_size = M_AA,
	                            .op = o->op,
	                            .ctl = true,
	                            .edges = o->edge ? 1 : 0,
	                            .swap_threshold = o->threshold,
	                            .rto_ns = 10 * MS,
	                            .retries = 30,
	                            .seq0 = 6};
	struct ask_rjob_cfg jcfg = {
	        .incarnation = o->inc ? o->inc : 77, .probe_ns = 50 * MS, .silence_ns = 2000 * MS};
	struct ask_sjob_cfg sjcfg = {.task = 7,
	                             .nchan = M_CHANS,
	                             .window = M_WINDOW,
	                             .nslots = M_SLOTS,
	                             .key_bytes = M_KB,
	                             .nonce = 0xC0FFEE + o->seed,
	                             .rto_ns = 10 * MS,
	                             .timeout_ns = 10000 * MS,
	                             .retries = 30};
	struct ask_rjob *rj = ask_rjob_new(&rcfg, &jcfg);
	struct ask_sjob *sj = ask_sjob_new(&sjcfg);
	struct ask_sender *s = NULL;
	struct ask_receiver *r = NULL;
	struct ask_tx tx[16];
	uint8_t out[ASK_MSG_MAX], ack[ASK_HDR_LEN], abort_pkt[ASK_MSG_MAX];
	uint64_t now = 0;
	size_t len;
	struct wire *due = NULL;
	size_t due_cap = 0;
	bool corrupted = false, closing = false;
	unsigned chan;
	int rc = 0;

	assert_non_null(rj);
	assert_non_null(sj);
	memset(res, 0, sizeof(*res));
	if (!o->keep_switch) {
		model_init(&job_sw, o->op);
		model_init(&job_edge, o->op);
	}
	while (rc == 0 && !(ask_sjob_done(sj) && ask_rjob_finished(rj))) {
		if (o->restart_ms != 0 && now == o->restart_ms * MS)
			model_init(&job_sw, o->op);
		if (o->edge_restart_ms != 0 && now == o->edge_restart_ms * MS)
			model_init(&job_edge, o->op);
		struct model *bad = o->edge_corrupt ? &job_edge : &job_sw;
		if ((o->corrupt || o->edge_corrupt) && !corrupted && bad->j_absorbed > 20)
			corrupted = model_corrupt(bad);
		/* the sender: HELLO until ready, then the stream, then its CLOSEs */
		int n = ask_sjob_pump(sj, now, tx, 16);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++)
			net_send(&nt, tx[i].buf, tx[i].len, TO_RECEIVER, now);
		if (s == NULL && ask_sjob_ready(sj)) {
			scfg.incarnation = ask_sjob_incarnation(sj);
			s = ask_sender_new(&scfg, src);
			assert_non_null(s);
		}
		if (s != NULL && !closing) {
			n = ask_sender_pump(s, now, tx, 16);
			if (n < 0) {
				rc = n;
				break;
			}
			for (int i = 0; i < n; i++)
				net_send(&nt, tx[i].buf, tx[i].len,
				         o->edge ? TO_EDGE_DATA : TO_SWITCH_DATA, now);
			if (ask_sender_done(s)) {
				struct ask_totals tot[M_CHANS];
				for (unsigned k = 0; k < M_CHANS; k++)
					tot[k] = *ask_sender_totals(s, k);
				ask_sjob_close(sj, tot, now);
				closing = true;
			}
		}
		/* the receiver: BEGIN and probes, then SWAP and FETCH, then the final counts */
		struct ask_tx c;
		while ((rc = ask_rjob_ctl(rj, now, &c)) == 1)
			net_send(&nt, c.buf, c.len, c.to ? TO_EDGE_CTL : TO_SWITCH_CTL, now);
		if (rc < 0)
			break;
		if (r == NULL && ask_rjob_begun(rj)) {
			rcfg.incarnation = ask_rjob_incarnation(rj);
			r = ask_receiver_new(&rcfg);
			assert_non_null(r);
		}
		while (r != NULL && (rc = ask_receiver_ctl(r, now, &c)) == 1)
			net_send(&nt, c.buf, c.len, c.to ? TO_EDGE_CTL : TO_SWITCH_CTL, now);
		if (rc < 0)
			break;
		if (r != NULL && ask_receiver_done(r) && ask_rjob_closed(rj))
			ask_rjob_finish(rj, now);
		now += MS;
		/* deliver what is due, in a random order */
		size_t ndue = 0;
		for (size_t i = 0; i < nt.n;) {
			if (nt.w[i].at > now) {
				i++;
				continue;
			}
			if (ndue == due_cap) {
				due_cap = due_cap ? 2 * due_cap : 256;
				due = realloc(due, due_cap * sizeof(*due));
				assert_non_null(due);
			}
			due[ndue++] = nt.w[i];
			nt.w[i] = nt.w[--nt.n];
		}
		for (size_t i = 0; i < ndue && rc == 0; i++) {
			size_t k = i + net_rand(&nt) % (ndue - i);
			struct wire x = due[k];
			due[k] = due[i];
			if (o->silent_ms != 0 && now >= o->silent_ms * MS &&
			    (x.to == TO_SWITCH_DATA || x.to == TO_SWITCH_CTL))
				continue;
			switch (x.to) {
			case TO_EDGE_DATA: /* on over the link to the switch, which has its faults
			                    */
				if (model_data(&job_edge, x.buf, x.len))
					net_send(&nt, x.buf, x.len, TO_SWITCH_DATA, now);
				break;
			case TO_EDGE_CTL:
				if ((len = model_ctl(&job_edge, x.buf, out)) > 0)
					net_send(&nt, out, len, TO_RECEIVER, now);
				break;
			case TO_SWITCH_DATA:
				if (model_data(&job_sw, x.buf, x.len) && r != NULL &&
				    ask_receiver_input(r, x.buf, x.len, ack) != ASK_RX_BAD)
					net_send(&nt, ack, ASK_HDR_LEN, TO_SENDER, now);
				break;
			case TO_SENDER:
				n = ask_sjob_input(sj, x.buf, x.len);
				assert_true(n >= 0);
				if (n == 0 && s != NULL)
					ask_sender_ack(s, x.buf, x.len, now);
				break;
			case TO_SWITCH_CTL:
				if ((len = model_ctl(&job_sw, x.buf, out)) > 0)
					net_send(&nt, out, len, TO_RECEIVER, now);
				break;
			default:
				rc = ask_rjob_input(rj, r, x.buf, x.len, now, out, &len, &chan);
				if (rc == ASK_JRX_REPLY)
					net_send(&nt, out, len, TO_SENDER, now);
				if (rc == ASK_JRX_OTHER && r != NULL)
					rc = ask_receiver_input(r, x.buf, x.len, ack);
				rc = rc < 0 ? rc : 0;
			}
		}
		assert_true(now < 200000 * MS);
	}
	res->rc = rc;
	res->fail_ms = now / MS;
	if (rc < 0) {
		/* The receiver tells the sender, which stops with the reason. */
		snprintf(res->why, sizeof(res->why), "%s",
		         ask_rjob_error(rj)[0] ? ask_rjob_error(rj) : ask_receiver_error(r));
		len = ask_abort_build(abort_pkt, 7, ask_rjob_incarnation(rj), ASK_ABORT_FAILED,
		                      res->why);
		res->sender_rc = ask_sjob_input(sj, abort_pkt, len);
	} else {
		res->verified = ask_rjob_check(rj, r, res->why, sizeof(res->why));
		if (res->verified) {
			/* The receiver's table is exactly the reduceByKey of the same input. */
			struct ask_table *want = want_table(o);
			char *a = table_text(want, ASK_KFMT_HEX),
			     *b = table_text(ask_receiver_table(r), ASK_KFMT_HEX);
			assert_string_equal(a, b);
			free(a);
			free(b);
			ask_table_free(want);
			/* Nothing left in the switches. */
			for (unsigned j = 0; j < M_SLOTS; j++)
				for (unsigned e = 0; e < M_AA; e++)
					assert_false(job_sw.aa[j][0][e].used ||
					             job_sw.aa[j][1][e].used ||
					             job_edge.aa[j][0][e].used ||
					             job_edge.aa[j][1][e].used);
		}
	}
	if (r != NULL) {
		res->st = *ask_receiver_stats(r);
		assert_int_equal(res->st.bad_pkts, 0);
	}
	res->absorbed = job_sw.absorbed;
	res->edge_absorbed = job_edge.absorbed;
	if (s != NULL)
		ask_sender_free(s);
	else
		ask_src_free(src);
	ask_receiver_free(r);
	ask_rjob_free(rj);
	ask_sjob_free(sj);
	free(nt.w);
	free(due);
}

static const char job_tuples[] = "a-long-key-beyond-8 5\nshort -3\nx 2147483647\nx 1\n"
                                 "another-very-long-key 7\nshort 9\n";

static void test_model_lossless(void **state)
{
	struct job_result res;
	struct job_opts o = {.tuples = job_tuples, .zipf = "3000,1.1,20000,1", .seed = 99};

	(void)state;
	run_job(&o, &res);
	assert_int_equal(res.rc, 0);
	assert_true(res.verified);
	assert_int_equal(res.st.dup_pkts, 0);
	assert_int_equal(res.st.swaps, 0);
	assert_int_equal(res.st.long_records, 2);
	assert_true(res.st.fetched_records > 0);
	uint64_t abs0 = res.absorbed;
	assert_true(abs0 > 0);
	assert_int_equal(job_sw.late_swaps + job_sw.late_fetches + job_sw.reused_seqs +
	                         job_sw.fetch_replays,
	                 0);
	assert_int_equal(job_sw.jobs, 1);
	/* Swaps let hot keys win more of the array: more absorbed. */
	o.threshold = 50;
	run_job(&o, &res);
	assert_true(res.verified);
	assert_true(res.st.swaps > 0);
	assert_true(res.absorbed > abs0);
}

/*
 * Loss, duplication, delay and reordering of every packet, SWAP and FETCH and their replies
 * included, over several seeds and every operator: the table stays exact and checked, and the
 * switch dropped late SWAPs and FETCHes and replayed kept replies on the way.
 */
static void test_model_lossy(void **state)
{
	static const uint32_t seeds[] = {99, 1, 2, 3, 4, 5, 6, 7};
	struct job_result res;
	uint64_t late_swaps = 0, late_fetches = 0, replays = 0, stale_replies = 0;

	(void)state;
	for (enum ask_op op = ASK_OP_ADD; op <= ASK_OP_MIN; op++) {
		for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
			struct job_opts o = {.tuples = job_tuples,
			                     .zipf = "2000,0.9,8000,3",
			                     .op = op,
			                     .loss = 10,
			                     .threshold = 40,
			                     .seed = seeds[i]};
			run_job(&o, &res);
			assert_int_equal(res.rc, 0);
			assert_true(res.verified);
			assert_true(res.st.dup_pkts > 0);
			assert_true(res.st.swaps > 0);
			assert_true(res.st.fetch_retries > 0);
			/* the receiver never reuses a seq, nor asks for a bad slot */
			assert_int_equal(job_sw.reused_seqs, 0);
			assert_int_equal(job_sw.bad_ctl, 0);
			late_swaps += job_sw.late_swaps;
			late_fetches += job_sw.late_fetches;
			replays += job_sw.fetch_replays;
			stale_replies += res.st.stale_replies;
		}
	}
	assert_true(late_swaps > 0);
	assert_true(late_fetches > 0);
	assert_true(replays > 0);
	assert_true(stale_replies > 0);
}

/*
 * Jobs one after the other on one registration (the same model switch, never registered
 * again), the first sending fewer packets per channel than the window and the later ones
 * choosing, by chance, the incarnation the switch is at: each BEGINs an incarnation of its own
 * (the receiver asks for the current one first), the switch starts afresh, every job is exact
 * and checked. Without BEGIN the second job's first seqs would be repeats (docs/ask.md, Job
 * lifetime).
 */
static void test_model_jobs_one_registration(void **state)
{
	struct job_result res;
	struct job_opts o = {.tuples = "a 1\nb 2\nc 3\n", .zipf = "10,1.0,3,1", .seed = 5};

	(void)state;
	run_job(&o, &res);
	assert_true(res.verified);
	assert_int_equal(job_sw.inc, 77);
	o.keep_switch = true;
	o.tuples = job_tuples;
	o.zipf = "500,1.1,4000,2";
	o.inc = 77; /* the same first choice: the receiver must take another */
	run_job(&o, &res);
	assert_int_equal(res.rc, 0);
	assert_true(res.verified);
	assert_int_equal(res.st.dup_pkts, 0);
	assert_int_not_equal(job_sw.inc, 77);
	assert_int_equal(job_sw.jobs, 2);
	o.loss = 10;
	o.seed = 6;
	run_job(&o, &res);
	assert_true(res.verified);
	assert_int_equal(job_sw.jobs, 3);
}

/*
 * The switch restarts mid-job (its task registered afresh, at incarnation 0, a new registration
 * nonce): what it held is gone. The receiver's next probe finds out and the job fails with the
 * reason, well within a second; the sender stops on the receiver's ABORT. Never a result.
 */
static void test_model_switch_restart(void **state)
{
	struct job_result res;
	struct job_opts o = {
	        .tuples = job_tuples, .zipf = "2000,0.9,20000,3", .seed = 11, .restart_ms = 40};

	(void)state;
	run_job(&o, &res);
	assert_int_equal(res.rc, -ESTALE);
	assert_non_null(strstr(res.why, "the switch lost the job's state"));
	assert_true(res.fail_ms < o.restart_ms + 200);
	assert_int_equal(res.sender_rc, -ECANCELED);
	assert_true(job_sw.wrong_inc > 0); /* the job's DATA after the restart */
}

/* A switch that stops answering fails the job once the silence has lasted (2 s here) with
 * probes sent into it, whatever the senders do meanwhile. */
static void test_model_switch_gone(void **state)
{
	struct job_result res;
	struct job_opts o = {
	        .tuples = job_tuples, .zipf = "2000,0.9,20000,3", .seed = 13, .silent_ms = 40};

	(void)state;
	run_job(&o, &res);
	assert_int_equal(res.rc, -ETIMEDOUT);
	assert_non_null(strstr(res.why, "the switch did not answer"));
	assert_true(res.fail_ms >= o.silent_ms + 2000 && res.fail_ms < o.silent_ms + 3000);
	assert_int_equal(res.sender_rc, -ECANCELED);
}

/*
 * The switch gets one entry wrong: the job completes, but the end-to-end check does not hold
 * and says so, for add. (For max and min a value one higher may still be no larger than the
 * key's true extreme: only add's sums see every value.)
 */
static void test_model_check_catches(void **state)
{
	struct job_result res;
	struct job_opts o = {
	        .tuples = job_tuples, .zipf = "300,1.1,5000,4", .seed = 12, .corrupt = true};

	(void)state;
	run_job(&o, &res);
	assert_int_equal(res.rc, 0);
	assert_false(res.verified);
	assert_non_null(strstr(res.why, "do not add up"));
}

/*
 * ASK across two switches (docs/fabric.md): an edge switch on the senders' side absorbs first,
 * the receiver's switch takes what the edge did not, the receiver drains both. Exact and
 * checked without faults and with loss, duplication, delay and reordering of every packet, the
 * link between the switches included, for every operator; both switches absorb and both swap.
 */
static void test_model_edge(void **state)
{
	static const uint32_t seeds[] = {21, 22, 23, 24};
	struct job_result res;
	struct job_opts o = {
	        .tuples = job_tuples, .zipf = "3000,1.1,20000,1", .seed = 20, .edge = true};

	(void)state;
	run_job(&o, &res);
	assert_int_equal(res.rc, 0);
	assert_true(res.verified);
	assert_int_equal(res.st.dup_pkts, 0);
	assert_true(res.edge_absorbed > 0 && res.absorbed > 0);
	assert_int_equal(job_edge.jobs, 1);
	assert_int_equal(job_sw.jobs, 1);
	assert_int_equal(job_edge.inc, job_sw.inc);
	for (enum ask_op op = ASK_OP_ADD; op <= ASK_OP_MIN; op++) {
		for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
			o = (struct job_opts){.tuples = job_tuples,
			                      .zipf = "2000,0.9,8000,3",
			                      .op = op,
			                      .loss = 10,
			                      .threshold = 40,
			                      .seed = seeds[i],
			                      .edge = true};
			run_job(&o, &res);
			assert_int_equal(res.rc, 0);
			assert_true(res.verified);
			assert_true(res.st.dup_pkts > 0);
			assert_true(res.edge_absorbed > 0 && res.absorbed > 0);
			assert_true(job_edge.late_swaps + job_edge.fetch_replays +
			                    job_sw.late_swaps + job_sw.fetch_replays >
			            0);
			assert_int_equal(job_edge.reused_seqs + job_sw.reused_seqs, 0);
			assert_int_equal(job_edge.bad_ctl + job_sw.bad_ctl, 0);
		}
	}
	/* The switches were at different incarnations and one of them at the receiver's first
	 * choice: the job takes one that neither is at. */
	o = (struct job_opts){.tuples = "a 1\n", .zipf = "10,1.0,3,1", .seed = 25, .edge = true};
	model_init(&job_sw, ASK_OP_ADD);
	model_init(&job_edge, ASK_OP_ADD);
	job_edge.inc = 78;
	job_sw.inc = 77;
	o.keep_switch = true;
	o.inc = 77;
	run_job(&o, &res);
	assert_true(res.verified);
	assert_int_equal(job_edge.inc, job_sw.inc);
	assert_true(job_sw.inc != 77 && job_sw.inc != 78);
}

/* The edge switch restarts mid-job: the job fails naming it; the edge that gets an entry wrong
 * fails the check. */
static void test_model_edge_faults(void **state)
{
	struct job_result res;
	struct job_opts o = {.tuples = job_tuples,
	                     .zipf = "2000,0.9,20000,3",
	                     .seed = 26,
	                     .edge = true,
	                     .edge_restart_ms = 40};

	(void)state;
	run_job(&o, &res);
	assert_int_equal(res.rc, -ESTALE);
	assert_non_null(strstr(res.why, "edge switch 1 lost the job's state"));
	assert_int_equal(res.sender_rc, -ECANCELED);
	o = (struct job_opts){.tuples = job_tuples,
	                      .zipf = "300,1.1,5000,4",
	                      .seed = 27,
	                      .edge = true,
	                      .edge_corrupt = true};
	run_job(&o, &res);
	assert_int_equal(res.rc, 0);
	assert_false(res.verified);
	assert_non_null(strstr(res.why, "do not add up"));
}

/* The BEGIN_DONE of a switch at incarnation cur to the BEGIN req (the shape of run_job's task):
 * error as given, F_RESET when reset. Returns its length. */
static size_t begin_reply(uint8_t *out, const uint8_t *req, uint16_t cur, uint8_t error, bool reset)
{
	struct ask_msg m;
	struct ask_job_info ji = {0};

	assert_int_equal(ask_msg_get(req, ASK_HDR_LEN, &m), 0);
	assert_int_equal(m.type, ASK_BEGIN);
	ji.error = error;
	ji.flags = reset ? ASK_JOB_F_RESET : 0;
	ask_put32(ji.reg, 0xABCD);
	ask_put16(ji.channels, M_CHANS);
	ask_put32(ji.window, M_WINDOW);
	ask_put32(ji.aa_size, M_AA);
	m.type = ASK_BEGIN_DONE;
	m.flags = error ? ASK_F_ERROR : 0;
	m.incarnation = cur;
	m.count = 0;
	ask_msg_put(out, &m);
	memcpy(out + ASK_HDR_LEN, &ji, sizeof(ji));
	return ASK_HDR_LEN + sizeof(ji);
}

/*
 * Beginning a job on two switches: the receiver asks both where the task is, BEGINs one
 * incarnation neither is at on each, from each one's own. When its first BEGIN finds a switch
 * at its incarnation already without starting it (another receiver began it there after the
 * question), it moves both switches to yet another one; HELLO is answered only once both are
 * begun. Each switch's SWAPs and FETCHes are numbered in a block of their own.
 */
static void test_rjob_two_switches(void **state)
{
	struct ask_recv_cfg rc = {.task = 7,
	                          .nchan = M_CHANS,
	                          .window = M_WINDOW,
	                          .nslots = M_SLOTS,
	                          .key_bytes = M_KB,
	                          .aa_size = M_AA,
	                          .ctl = true,
	                          .edges = 1,
	                          .rto_ns = 10 * MS,
	                          .retries = 3,
	                          .seq0 = 100};
	struct ask_rjob_cfg jc = {.incarnation = 5, .probe_ns = 50 * MS, .silence_ns = 1000 * MS};
	struct ask_rjob *j = ask_rjob_new(&rc, &jc);
	uint8_t req[2][ASK_HDR_LEN + sizeof(struct ask_job_info)], rep[ASK_MSG_MAX];
	struct ask_tx tx;
	struct ask_msg m;
	size_t len, olen;
	unsigned chan;

	(void)state;
	assert_non_null(j);
	/* the questions: BEGIN 5 from 5, to each switch */
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(ask_rjob_ctl(j, 0, &tx), 1);
		memcpy(req[tx.to], tx.buf, tx.len);
		assert_int_equal(ask_msg_get(tx.buf, tx.len, &m), 0);
		assert_int_equal(m.incarnation, 5);
		assert_int_equal(m.count, 5);
	}
	assert_int_equal(ask_rjob_ctl(j, 0, &tx), 0);
	/* the receiver's switch is at 5 already, the edge at 6: the job takes 7 */
	len = begin_reply(rep, req[0], 5, 0, false);
	assert_int_equal(ask_rjob_input(j, NULL, rep, len, 1, rep, &olen, &chan), ASK_JRX_TAKEN);
	assert_int_equal(ask_rjob_ctl(j, 1, &tx), 0); /* waits for the edge's answer */
	len = begin_reply(rep, req[1], 6, ASK_BEGIN_INCARNATION, false);
	assert_int_equal(ask_rjob_input(j, NULL, rep, len, 1, rep, &olen, &chan), ASK_JRX_TAKEN);
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(ask_rjob_ctl(j, 2, &tx), 1);
		memcpy(req[tx.to], tx.buf, tx.len);
		assert_int_equal(ask_msg_get(tx.buf, tx.len, &m), 0);
		assert_int_equal(m.incarnation, 7);
		assert_int_equal(m.count, tx.to == 0 ? 5 : 6);
	}
	/* the receiver's switch starts 7; the edge answers at 7 without starting it: another
	 * receiver took 7 there. Both move to 8. */
	len = begin_reply(rep, req[0], 7, 0, true);
	assert_int_equal(ask_rjob_input(j, NULL, rep, len, 3, rep, &olen, &chan), ASK_JRX_TAKEN);
	assert_false(ask_rjob_begun(j));
	len = begin_reply(rep, req[1], 7, 0, false);
	assert_int_equal(ask_rjob_input(j, NULL, rep, len, 3, rep, &olen, &chan), ASK_JRX_TAKEN);
	assert_false(ask_rjob_begun(j));
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(ask_rjob_ctl(j, 4, &tx), 1);
		memcpy(req[tx.to], tx.buf, tx.len);
		assert_int_equal(ask_msg_get(tx.buf, tx.len, &m), 0);
		assert_int_equal(m.incarnation, 8);
		assert_int_equal(m.count, 7);
	}
	for (unsigned k = 0; k < 2; k++) {
		len = begin_reply(rep, req[k], 8, 0, true);
		assert_int_equal(ask_rjob_input(j, NULL, rep, len, 5, rep, &olen, &chan),
		                 ASK_JRX_TAKEN);
		assert_true(ask_rjob_begun(j) == (k == 1));
	}
	assert_int_equal(ask_rjob_incarnation(j), 8);
	ask_rjob_free(j);

	/* SWAP and FETCH seqs: a block per switch */
	rc.incarnation = 8;
	rc.swap_threshold = 1;
	struct ask_receiver *r = ask_receiver_new(&rc);
	uint8_t p[ASK_MSG_MAX], a[ASK_HDR_LEN];
	struct ask_msg d = {.task = 7, .incarnation = 8, .nslots = M_SLOTS, .key_bytes = M_KB};
	uint8_t key[M_KB] = "zz";
	assert_non_null(r);
	for (uint32_t q = 0; q < 2; q++) {
		d.seq = q;
		len = ask_data_init(p, &d);
		ask_data_put(p, M_KB, ask_key_slot(key, M_KB, M_SLOTS), key, 1);
		assert_int_equal(ask_receiver_input(r, p, len, a), ASK_RX_NEW);
	}
	bool seen[2] = {false, false};
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(ask_receiver_ctl(r, 0, &tx), 1);
		assert_int_equal(ask_msg_get(tx.buf, tx.len, &m), 0);
		assert_int_equal(m.type, ASK_SWAP);
		assert_int_equal(m.seq, 100 + tx.to * (1u << 24));
		seen[tx.to] = true;
	}
	assert_true(seen[0] && seen[1]);
	assert_int_equal(ask_receiver_ctl(r, 0, &tx), 0);
	ask_receiver_free(r);
}

/* The totals: order-independent, every tuple counted once, the table's add up to them. */
static void test_totals(void **state)
{
	struct ask_totals a, b, all;
	struct ask_table *t = ask_table_new(ASK_OP_ADD);

	(void)state;
	ask_totals_init(&a);
	ask_totals_init(&b);
	ask_totals_tuple(&a, (const uint8_t *)"k1", 2, 5, false);
	ask_totals_tuple(&a, (const uint8_t *)"k2", 2, (uint32_t)-7, false);
	ask_totals_tuple(&b, (const uint8_t *)"k1", 2, 1, false);
	ask_totals_tuple(&b, (const uint8_t *)"a-long-key", 10, 3, true);
	ask_totals_init(&all);
	ask_totals_add(&all, &b);
	ask_totals_add(&all, &a);
	assert_int_equal(all.tuples, 4);
	assert_int_equal(all.long_tuples, 1);
	assert_int_equal(all.sum, 2);
	assert_int_equal(all.vmax, 5);
	assert_int_equal(all.vmin, -7);
	ask_table_merge(t, (const uint8_t *)"k1", 2, 6);
	ask_table_merge(t, (const uint8_t *)"k2", 2, (uint32_t)-7);
	ask_table_merge(t, (const uint8_t *)"a-long-key", 10, 3);
	struct ask_totals tt;
	ask_table_totals(t, &tt);
	assert_int_equal(tt.tuples, 3);
	assert_int_equal(tt.sum, all.sum);
	assert_int_equal(tt.ck1, all.ck1);
	assert_int_equal(tt.ck2, all.ck2);
	/* A value moved from one key to another keeps the sum but not the checksums. */
	ask_table_merge(t, (const uint8_t *)"k1", 2, 1);
	ask_table_merge(t, (const uint8_t *)"k2", 2, (uint32_t)-1);
	ask_table_totals(t, &tt);
	assert_int_equal(tt.sum, all.sum);
	assert_true(tt.ck1 != all.ck1 || tt.ck2 != all.ck2);
	ask_table_free(t);
	/* The check says which count is off. */
	struct ask_recv_stats st = {.tuples_unabsorbed = 2, .long_records = 1};
	struct ask_switch_counts sw = {.tuples = 3, .absorbed = 1, .held = 0};
	char why[256];
	t = ask_table_new(ASK_OP_ADD);
	ask_table_merge(t, (const uint8_t *)"k1", 2, 6);
	ask_table_merge(t, (const uint8_t *)"k2", 2, (uint32_t)-7);
	ask_table_merge(t, (const uint8_t *)"a-long-key", 10, 3);
	assert_true(ask_job_check(ASK_OP_ADD, &all, t, &st, &sw, 1, why, sizeof(why)));
	sw.absorbed = 0;
	assert_false(ask_job_check(ASK_OP_ADD, &all, t, &st, &sw, 1, why, sizeof(why)));
	assert_non_null(strstr(why, "the switch absorbed 0"));
	sw.absorbed = 1, sw.held = 1;
	assert_false(ask_job_check(ASK_OP_ADD, &all, t, &st, &sw, 1, why, sizeof(why)));
	assert_non_null(strstr(why, "holds 1 entries"));
	sw.held = 0, st.long_records = 0;
	assert_false(ask_job_check(ASK_OP_ADD, &all, t, &st, &sw, 1, why, sizeof(why)));
	st.long_records = 1;
	assert_false(ask_job_check(ASK_OP_MAX, &all, t, &st, &sw, 1, why, sizeof(why)));
	/* Two switches on the path: the edge absorbed one of the three, the receiver's switch saw
	 * the other two and absorbed none. */
	struct ask_switch_counts two[2] = {{.tuples = 2}, {.tuples = 3, .absorbed = 1}};
	assert_true(ask_job_check(ASK_OP_ADD, &all, t, &st, two, 2, why, sizeof(why)));
	two[0].tuples = 3; /* the receiver's switch saw a tuple the edge had absorbed */
	assert_false(ask_job_check(ASK_OP_ADD, &all, t, &st, two, 2, why, sizeof(why)));
	assert_non_null(strstr(why, "the receiver's switch saw 3 tuples"));
	two[0].tuples = 2, two[1].tuples = 4;
	assert_false(ask_job_check(ASK_OP_ADD, &all, t, &st, two, 2, why, sizeof(why)));
	assert_non_null(strstr(why, "the edge switches saw 4"));
	two[1].tuples = 3, two[0].absorbed = 1, two[0].tuples = 2;
	assert_false(ask_job_check(ASK_OP_ADD, &all, t, &st, two, 2, why, sizeof(why)));
	assert_non_null(strstr(why, "the switches absorbed 2"));
	two[0].absorbed = 0, two[1].held = 1;
	assert_false(ask_job_check(ASK_OP_ADD, &all, t, &st, two, 2, why, sizeof(why)));
	assert_non_null(strstr(why, "edge switch 1 holds 1 entries"));
	ask_table_free(t);
}

/*
 * HELLO without a switch (the receiver begun at once): a sender of another run (its job token)
 * is refused and stops; the run's own gets the incarnation; a second sender for a channel
 * already given is refused; a retried HELLO of the same sender is answered again.
 */
static void test_hello(void **state)
{
	struct ask_recv_cfg rc = {.task = 3,
	                          .nchan = 2,
	                          .window = 8,
	                          .nslots = 4,
	                          .key_bytes = 8,
	                          .aa_size = 64,
	                          .rto_ns = MS};
	struct ask_rjob_cfg jc = {.incarnation = 9, .job = 5};
	struct ask_sjob_cfg sc = {.task = 3,
	                          .nchan = 2,
	                          .window = 8,
	                          .nslots = 4,
	                          .key_bytes = 8,
	                          .nonce = 77,
	                          .job = 6,
	                          .rto_ns = MS,
	                          .timeout_ns = 100 * MS};
	struct ask_rjob *r = ask_rjob_new(&rc, &jc);
	struct ask_tx tx[4];
	uint8_t out[ASK_MSG_MAX];
	size_t olen;
	unsigned chan;

	(void)state;
	assert_true(ask_rjob_begun(r));
	/* another run's sender */
	struct ask_sjob *s = ask_sjob_new(&sc);
	assert_int_equal(ask_sjob_pump(s, 1, tx, 4), 1);
	assert_int_equal(tx[0].len, ASK_HELLO_LEN);
	assert_int_equal(ask_rjob_input(r, NULL, tx[0].buf, tx[0].len, 1, out, &olen, &chan),
	                 ASK_JRX_REPLY);
	assert_int_equal(ask_sjob_input(s, out, olen), -EPROTO);
	assert_non_null(strstr(ask_sjob_error(s), "another job"));
	ask_sjob_free(s);
	/* this run's: channels 0 and 1 */
	sc.job = 5;
	s = ask_sjob_new(&sc);
	assert_int_equal(ask_sjob_pump(s, 1, tx, 4), 1);
	assert_int_equal(ask_rjob_input(r, NULL, tx[0].buf, tx[0].len, 1, out, &olen, &chan),
	                 ASK_JRX_REPLY);
	assert_int_equal(ask_sjob_input(s, out, olen), 1);
	assert_true(ask_sjob_ready(s));
	assert_int_equal(ask_sjob_incarnation(s), 9);
	/* its retry (the answer lost) is answered the same */
	assert_int_equal(ask_rjob_input(r, NULL, tx[0].buf, tx[0].len, 1, out, &olen, &chan),
	                 ASK_JRX_REPLY);
	assert_int_equal(out[1] & ASK_F_ERROR, 0);
	/* another sender of the run for channel 1 */
	sc.nonce = 78, sc.channel0 = 1, sc.nchan = 1;
	struct ask_sjob *s2 = ask_sjob_new(&sc);
	assert_int_equal(ask_sjob_pump(s2, 1, tx, 4), 1);
	assert_int_equal(ask_rjob_input(r, NULL, tx[0].buf, tx[0].len, 1, out, &olen, &chan),
	                 ASK_JRX_REPLY);
	assert_int_equal(ask_sjob_input(s2, out, olen), -EPROTO);
	assert_non_null(strstr(ask_sjob_error(s2), "another sender of this job"));
	ask_sjob_free(s2);
	/* a sender of another shape */
	sc.nonce = 79, sc.window = 16;
	s2 = ask_sjob_new(&sc);
	assert_int_equal(ask_sjob_pump(s2, 1, tx, 4), 1);
	assert_int_equal(ask_rjob_input(r, NULL, tx[0].buf, tx[0].len, 1, out, &olen, &chan),
	                 ASK_JRX_REPLY);
	assert_int_equal(ask_sjob_input(s2, out, olen), -EPROTO);
	assert_non_null(strstr(ask_sjob_error(s2), "another shape"));
	ask_sjob_free(s2);
	ask_sjob_free(s);
	ask_rjob_free(r);
}

/* ABORT carries its reason and a text made safe to print. */
static void test_abort_codec(void **state)
{
	uint8_t p[ASK_MSG_MAX];
	char text[ASK_TEXT_MAX];
	struct ask_msg m;
	uint16_t reason;

	(void)state;
	size_t n = ask_abort_build(p, 3, 44, ASK_ABORT_STATE_LOST, "gone\n\x1b[2J");
	assert_int_equal(ask_abort_parse(p, n, &m, &reason, text), 0);
	assert_int_equal(m.task, 3);
	assert_int_equal(m.incarnation, 44);
	assert_int_equal(reason, ASK_ABORT_STATE_LOST);
	assert_string_equal(text, "gone??[2J");
	assert_int_equal(ask_abort_parse(p, ASK_HDR_LEN - 1, &m, &reason, text), -EINVAL);
	/* without a NUL: cut at the packet's end */
	assert_int_equal(ask_abort_parse(p, ASK_HDR_LEN + 2, &m, &reason, text), 0);
	assert_string_equal(text, "go");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_codec_roundtrip),
	        cmocka_unit_test(test_parse_rejects),
	        cmocka_unit_test(test_table_ops),
	        cmocka_unit_test(test_sources),
	        cmocka_unit_test(test_sender_window),
	        cmocka_unit_test(test_sender_last),
	        cmocka_unit_test(test_receiver_dedup),
	        cmocka_unit_test(test_receiver_merge),
	        cmocka_unit_test(test_receiver_ctl),
	        cmocka_unit_test(test_receiver_ctl_seqs),
	        cmocka_unit_test(test_model_ctl),
	        cmocka_unit_test(test_model_lossless),
	        cmocka_unit_test(test_model_lossy),
	        cmocka_unit_test(test_model_jobs_one_registration),
	        cmocka_unit_test(test_model_switch_restart),
	        cmocka_unit_test(test_model_check_catches),
	        cmocka_unit_test(test_model_switch_gone),
	        cmocka_unit_test(test_model_edge),
	        cmocka_unit_test(test_model_edge_faults),
	        cmocka_unit_test(test_rjob_two_switches),
	        cmocka_unit_test(test_totals),
	        cmocka_unit_test(test_abort_codec),
	        cmocka_unit_test(test_hello),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
