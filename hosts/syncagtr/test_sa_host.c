/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the SyncAgtr host library: quantisation and exponents, slot/set mapping
 * (across repeated jobs), packet build/parse, test tensors and verification. The last tests run
 * the engine against a small switch model on loopback (the per-packet algorithm of
 * docs/syncagtr.md, with loss and duplication), so no namespaces or root are needed; the session
 * helper's registration against a scripted control socket.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "sa_session.h"
#include "sa_engine.h"

static void test_exponent(void **state)
{
	float zeros[64] = {0}, x[3] = {0.25f, -0.75f, 0.5f}, one = 1.0f, big = -1000.0f;
	float tiny = 1e-40f; /* subnormal: below 2^-126 */

	(void)state;
	assert_int_equal(sa_exponent(zeros, 64), SA_EXP_ZERO);
	assert_int_equal(sa_exponent(zeros, 0), SA_EXP_ZERO);
	assert_int_equal(sa_exponent(x, 3), 0);     /* 2^-1 <= 0.75 < 2^0 */
	assert_int_equal(sa_exponent(&one, 1), 1);  /* 2^0 <= 1 < 2^1 */
	assert_int_equal(sa_exponent(&big, 1), 10); /* 512 <= 1000 < 1024 */
	assert_int_equal(sa_exponent(&tiny, 1), SA_EXP_ZERO);
	for (int e = -120; e < 120; e++) {
		float v = ldexpf(1.0f, e - 1), w = nextafterf(ldexpf(1.0f, e), 0);
		assert_int_equal(sa_exponent(&v, 1), e);
		assert_int_equal(sa_exponent(&w, 1), e);
	}
}

static void test_quantise(void **state)
{
	(void)state;
	/* The largest magnitude below 2^emax, from every worker, must not overflow the sum. */
	for (unsigned n = 1; n <= 32; n++) {
		for (int e = -20; e <= 20; e += 5) {
			double s = sa_scale(e, n);
			float top = nextafterf(ldexpf(1.0f, e), 0);
			int64_t q = sa_quantise(top, s, n), qn = sa_quantise(-top, s, n);
			assert_true(q * n <= INT32_MAX);
			assert_true(qn * n >= INT32_MIN);
			assert_true(fabs((double)q / s - top) * s <= 1.0);
		}
	}
	/* Ordinary values round to nearest: error at most half a unit. */
	double s = sa_scale(3, 4);
	for (float x = -7.9f; x < 7.9f; x += 0.0137f) {
		int32_t q = sa_quantise(x, s, 4);
		assert_true(fabs((double)q - (double)x * s) <= 0.5);
	}
	assert_int_equal(sa_quantise(0.0f, sa_scale(SA_EXP_ZERO, 32), 32), 0);
	assert_int_equal(sa_quantise(NAN, s, 4), 0);
	/* A value above 2^emax (a lying switch) is clamped, not undefined. */
	assert_int_equal(sa_quantise(1e30f, s, 4), INT32_MAX / 4);
	assert_int_equal(sa_quantise(-1e30f, s, 4), -(INT32_MAX / 4));
}

static void test_slot_map_window(void **state)
{
	unsigned slot, set, slot2, set2, W = 8, tid = 3;

	(void)state;
	for (uint32_t shift = 0; shift < 2 * W; shift++) {
		for (uint64_t k = 0; k < 100; k++) {
			sa_slot_map(tid, W, shift, k, &slot, &set);
			assert_in_range(slot, tid * W, tid * W + W - 1);
			/* packet k+W: same slot, other set */
			sa_slot_map(tid, W, shift, k + W, &slot2, &set2);
			assert_int_equal(slot, slot2);
			assert_int_equal(set ^ 1, set2);
		}
	}
	/* Without shift: packet k uses slot k mod W, set (k / W) & 1. */
	sa_slot_map(0, 64, 0, 5, &slot, &set);
	assert_int_equal(slot, 5);
	assert_int_equal(set, 0);
	sa_slot_map(1, 64, 0, 64 + 7, &slot, &set);
	assert_int_equal(slot, 64 + 7);
	assert_int_equal(set, 1);
}

/* Across jobs of any lengths, every slot's uses alternate sets, starting with set 0. */
static void test_slot_map_jobs(void **state)
{
	static const uint64_t totals[] = {1, 7, 8, 9, 64, 100, 3, 17, 0, 1000, 5, 2, 65, 63, 31};
	unsigned W = 8, tid = 1, slot, set, i;
	int last[8];
	uint32_t shift = 0;

	(void)state;
	for (i = 0; i < W; i++)
		last[i] = 1; /* fresh: the first use must be set 0 */
	for (i = 0; i < sizeof(totals) / sizeof(totals[0]); i++) {
		for (uint64_t k = 0; k < totals[i]; k++) {
			sa_slot_map(tid, W, shift, k, &slot, &set);
			assert_int_equal((int)set, last[slot - tid * W] ^ 1);
			last[slot - tid * W] = (int)set;
		}
		shift = sa_next_shift(shift, totals[i], W);
		assert_true(shift < 2 * W);
	}
}

static void test_slice(void **state)
{
	size_t off, len, next = 0;

	(void)state;
	for (unsigned t = 0; t < 7; t++) {
		sa_slice(1000, 7, t, &off, &len);
		assert_int_equal(off, next);
		assert_true(len == 142 || len == 143);
		next = off + len;
	}
	assert_int_equal(next, 1000);
	sa_slice(2, 4, 3, &off, &len);
	assert_int_equal(len, 0);
	assert_int_equal(sa_slice_packets(0, 64, 16, SA_FLOAT32), 0);
	assert_int_equal(sa_slice_packets(1, 64, 16, SA_INT32), 1);
	assert_int_equal(sa_slice_packets(129, 64, 16, SA_INT32), 3);
	assert_int_equal(sa_slice_packets(129, 64, 16, SA_FLOAT32), 3 + 16);
}

static void test_pkt_build(void **state)
{
	/* Example packet: job 0, tsi 5, slot 5 set 1, e0 -3, values 1..64 */
	static const uint8_t hdr[10] = {0x11, 0x00, 0x05, 0x00, 0x00, 0x00, 0x80, 0x05, 0xfd, 0x00};
	uint8_t buf[SA_PAYLOAD_LEN(256)];
	int32_t v[64], back[64];
	struct sa_pkt p;

	(void)state;
	for (int i = 0; i < 64; i++)
		v[i] = i + 1;
	sa_pkt_put_hdr(buf, 64, 0, 5, 5, 1, -3);
	sa_pkt_put_i32(buf, v, 64, 64);
	assert_memory_equal(buf, hdr, 10);
	assert_int_equal(buf[10 + 4 * 63 + 3], 64);
	assert_int_equal(buf[10 + 3], 1);
	assert_int_equal(sa_pkt_parse(buf, SA_PAYLOAD_LEN(64), 64, &p), 0);
	assert_int_equal(p.size, 1);
	assert_int_equal(p.tsi, 5);
	assert_int_equal(p.slot, 5);
	assert_int_equal(p.set, 1);
	assert_int_equal(p.e0, -3);
	sa_pkt_get_i32(back, &p, 64);
	assert_memory_equal(back, v, sizeof(v));

	/* 256 values, partial: tail zero-padded; tsi little-endian; job byte. */
	memset(buf, 0xee, sizeof(buf));
	sa_pkt_put_hdr(buf, 256, 0x7f, 0x01020304, 8191, 0, 12);
	sa_pkt_put_i32(buf, v, 10, 256);
	assert_int_equal(buf[0], 0x13);
	assert_int_equal(buf[1], 0x7f);
	assert_int_equal(buf[2], 0x04);
	assert_int_equal(buf[5], 0x01);
	assert_int_equal(buf[6], 0x1f);
	assert_int_equal(buf[7], 0xff);
	for (size_t i = 10 + 40; i < SA_PAYLOAD_LEN(256); i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(sa_pkt_parse(buf, SA_PAYLOAD_LEN(256), 256, &p), 0);
	assert_int_equal(p.tsi, 0x01020304);
	assert_int_equal(p.job, 0x7f);

	/* Rejects: wrong length, wrong size code for the job, wrong message type. */
	assert_int_equal(sa_pkt_parse(buf, SA_PAYLOAD_LEN(256) - 1, 256, &p), -EINVAL);
	assert_int_equal(sa_pkt_parse(buf, SA_PAYLOAD_LEN(256), 64, &p), -EINVAL);
	buf[0] = 0x23;
	assert_int_equal(sa_pkt_parse(buf, SA_PAYLOAD_LEN(256), 256, &p), -EINVAL);
	/* Bit 14 of the pool index is not the slot's: the region generation's parity. */
	buf[0] = 0x13;
	buf[6] = 0x40;
	buf[7] = 0x02;
	assert_int_equal(sa_pkt_parse(buf, SA_PAYLOAD_LEN(256), 256, &p), 0);
	assert_int_equal(p.slot, 2);
	assert_int_equal(p.set, 0);
	assert_int_equal(p.gen, 1);
	assert_int_equal(p.note, 0);
}

/* The region marks on a packet and the region note after a result's values (docs/memory.md). */
static void test_packet_region(void **state)
{
	uint8_t buf[SA_PAYLOAD_LEN(64) + SA_NOTE_LEN];
	struct sa_pkt p;

	(void)state;
	memset(buf, 0, sizeof(buf));
	sa_pkt_put_hdr(buf, 64, 3, 9, 7, 1, 0);
	sa_pkt_put_gen(buf, 5, 1); /* odd generation, holding */
	assert_int_equal(buf[0], 0x19);
	assert_int_equal(buf[6], 0xc0);
	assert_int_equal(buf[7], 7);
	sa_pkt_put_gen(buf, 2, 0);
	assert_int_equal(buf[0], 0x11);
	assert_int_equal(buf[6], 0x80);
	/* no note: the plain length only */
	assert_int_equal(sa_pkt_parse(buf, SA_PAYLOAD_LEN(64), 64, &p), 0);
	assert_int_equal(p.note, 0);
	assert_int_equal(p.gen, 0);
	/* a note: generation, and the new region's slots, big-endian */
	uint8_t *n = buf + SA_PAYLOAD_LEN(64);
	n[0] = 'R', n[1] = 'G', n[2] = 6, n[3] = 3;
	n[8] = 0, n[9] = 0, n[10] = 0x01, n[11] = 0x00;
	assert_int_equal(sa_pkt_parse(buf, sizeof(buf), 64, &p), 0);
	assert_int_equal(p.note, 1);
	assert_int_equal(p.note_gen, 6);
	assert_int_equal(p.note_slots, 256);
	assert_int_equal(p.slot, 7);
	/* 16 bytes more that are not a note: not a result of ours */
	n[1] = 'X';
	assert_int_equal(sa_pkt_parse(buf, sizeof(buf), 64, &p), -EINVAL);
	assert_int_equal(sa_pkt_parse(buf, sizeof(buf) - 1, 64, &p), -EINVAL);
}

static void test_float_roundtrip(void **state)
{
	float x[64], y[64];
	uint8_t buf[SA_PAYLOAD_LEN(64)];
	struct sa_pkt p;

	(void)state;
	for (int i = 0; i < 64; i++)
		x[i] = (float)sin(i) * 3.0f;
	int e = sa_exponent(x, 64);
	double s = sa_scale(e, 1);
	sa_pkt_put_hdr(buf, 64, 0, 0, 0, 0, (int8_t)e);
	sa_pkt_put_f32(buf, x, 64, 64, s, 1);
	assert_int_equal(sa_pkt_parse(buf, sizeof(buf), 64, &p), 0);
	sa_pkt_get_f32(y, &p, 64, s);
	for (int i = 0; i < 64; i++)
		assert_true(fabs((double)y[i] - x[i]) <= sa_f32_bound(x[i], s, 1));
}

/* What the packet loop writes, value by value, is nearbyint's rounding clamped to the workers'
 * share, NaN as 0, big-endian: ties (both parities), both clamps, infinities, NaNs, denormals
 * and zeros of both signs, at every position of a 256-value packet (the vector loop's body and
 * its tail). */
static void test_put_f32_reference(void **state)
{
	float x[SA_ELEMS_MAX];
	uint8_t buf[SA_PAYLOAD_LEN(SA_ELEMS_MAX)];
	const unsigned workers = 4;
	double s = sa_scale(0, workers), lim = (double)(INT32_MAX / (int32_t)workers);
	const float special[] = {0.0f, -0.0f, NAN,  -NAN,  INFINITY,  -INFINITY, 1e-40f, -1e-40f,
	                         1.0f, -1.0f, 2.0f, -2.0f, 0.999999f, 1e30f,     -1e30f};
	struct sa_pkt p;

	(void)state;
	for (unsigned shift = 0; shift < 8; shift++) {
		for (unsigned i = 0; i < SA_ELEMS_MAX; i++) {
			unsigned k = i + shift;
			if (k % 3 == 0)
				x[i] = special[k % (sizeof(special) / sizeof(special[0]))];
			else /* k + 0.5 units of the scale: a tie, rounded to the even neighbour */
				x[i] = (float)(((double)(k % 41) - 20.5) / s);
		}
		for (unsigned n = SA_ELEMS_MAX - 7; n <= SA_ELEMS_MAX; n += 7) {
			sa_pkt_put_hdr(buf, SA_ELEMS_MAX, 0, 0, 0, 0, 0);
			sa_pkt_put_f32(buf, x, n, SA_ELEMS_MAX, s, workers);
			assert_int_equal(sa_pkt_parse(buf, sizeof(buf), SA_ELEMS_MAX, &p), 0);
			for (unsigned i = 0; i < SA_ELEMS_MAX; i++) {
				double v = i < n ? nearbyint((double)x[i] * s) : 0.0;
				v = v != v ? 0.0 : v > lim ? lim : v < -lim ? -lim : v;
				const uint8_t *w = p.values + 4 * i;
				uint32_t got = (uint32_t)w[0] << 24 | (uint32_t)w[1] << 16 |
				               (uint32_t)w[2] << 8 | w[3];
				assert_int_equal((int32_t)got, (int32_t)v);
				if (i < n)
					assert_int_equal((int32_t)got,
					                 sa_quantise(x[i], s, workers));
			}
		}
	}
}

static void test_gen_deterministic(void **state)
{
	int zeros = 0, negs = 0;

	(void)state;
	assert_int_equal(sa_gen_i32(1, 0, 7), sa_gen_i32(1, 0, 7));
	assert_int_not_equal(sa_gen_i32(1, 0, 7), sa_gen_i32(1, 1, 7));
	assert_int_not_equal(sa_gen_i32(1, 0, 7), sa_gen_i32(2, 0, 7));
	for (uint64_t i = 0; i < 200000; i += 7) {
		float f = sa_gen_f32(3, 1, i);
		zeros += f == 0.0f;
		negs += f < 0;
		assert_true(fabsf(f) < 8192.0f);
	}
	assert_true(zeros > 0);
	assert_true(negs > 1000);
}

/* The switch's arithmetic for one block, done here: expected results the engine would get. */
static void simulate(const struct sa_engine_cfg *c, uint64_t seed, void *out, size_t count)
{
	float x[SA_ELEMS_MAX];
	size_t off, len, b, i;

	if (c->type == SA_INT32) {
		int32_t *o = out;
		for (i = 0; i < count; i++) {
			uint32_t s = 0;
			for (unsigned r = 0; r < c->workers; r++)
				s += (uint32_t)sa_gen_i32(seed, r, i);
			o[i] = (int32_t)s;
		}
		return;
	}
	for (unsigned t = 0; t < c->threads; t++) {
		sa_slice(count, c->threads, t, &off, &len);
		for (b = 0; b < len; b += c->elems) {
			size_t n = len - b < c->elems ? len - b : c->elems;
			int emax = -128;
			uint32_t sum[SA_ELEMS_MAX] = {0};
			for (unsigned r = 0; r < c->workers; r++) {
				sa_gen(seed, r, SA_FLOAT32, x, off + b, n);
				int e = sa_exponent(x, n);
				emax = e > emax ? e : emax;
			}
			double s = sa_scale(emax, c->workers);
			for (unsigned r = 0; r < c->workers; r++) {
				sa_gen(seed, r, SA_FLOAT32, x, off + b, n);
				for (i = 0; i < n; i++)
					sum[i] += (uint32_t)sa_quantise(x[i], s, c->workers);
			}
			for (i = 0; i < n; i++)
				((float *)out)[off + b + i] = (float)((int32_t)sum[i] / s);
		}
	}
}

static void test_verify(void **state)
{
	struct sa_engine_cfg c;
	struct sa_verify_result v;
	size_t count = 10000;
	int32_t *out = calloc(count, 4);

	(void)state;
	sa_engine_cfg_default(&c);
	c.workers = 5;
	c.threads = 3;
	c.elems = 64;
	simulate(&c, 9, out, count);
	sa_verify(&c, 9, out, count, &v);
	assert_true(v.ok);
	out[4321] ^= 1;
	sa_verify(&c, 9, out, count, &v);
	assert_false(v.ok);
	assert_int_equal(v.bad_index, 4321);
	assert_int_equal(v.bad_count, 1);

	c.type = SA_FLOAT32;
	for (unsigned n = 1; n <= 32; n *= 2) {
		c.workers = n;
		simulate(&c, 11, out, count);
		sa_verify(&c, 11, out, count, &v);
		assert_true(v.ok);
		assert_true(v.max_err_ratio <= 1.0);
	}
	((float *)out)[77] *= 1.001f;
	sa_verify(&c, 11, out, count, &v);
	assert_false(v.ok);
	assert_int_equal(v.bad_index, 77);
	free(out);
}

static void test_config(void **state)
{
	struct sa_engine_cfg c;
	char why[128];

	(void)state;
	sa_engine_cfg_default(&c);
	assert_int_equal(sa_engine_cfg_check(&c, why, sizeof(why)), 0);
	assert_int_equal(sa_engine_cfg_slots(&c), 4 * 128); /* 4 threads, window 128 */
	c.elems = 128;
	assert_int_equal(sa_engine_cfg_check(&c, why, sizeof(why)), -EINVAL);
	c.elems = 64;
	c.rank = 1;
	assert_int_equal(sa_engine_cfg_check(&c, why, sizeof(why)), -EINVAL);
	c.workers = 33;
	assert_int_equal(sa_engine_cfg_check(&c, why, sizeof(why)), -EINVAL);
	c.workers = 2;
	c.threads = 64;
	c.window = 1024;
	assert_int_equal(sa_engine_cfg_check(&c, why, sizeof(why)), -EINVAL);
}

/* ---- the engine against a switch model on loopback ---- */

#define MODEL_SLOTS 1024
/* The model's port: the first free one of 0xBEE1..0xBEEF (not the default, so a real switch on
 * this host is never hit), so test runs on one host at once do not collide. */
static uint16_t model_port;

struct model_cell {
	uint32_t bitmap, count;
	int32_t value[SA_ELEMS_MAX];
	int8_t e0;
};

struct model {
	int fd;
	unsigned workers, elems;
	uint16_t rank_port[SA_WORKERS_MAX]; /* worker_port of each rank */
	unsigned threads;
	unsigned drop_pct, dup_pct;
	unsigned late_pct; /* incoming packets also delivered again 1..2 ms later */
	unsigned nlate;
	struct {
		uint64_t due;
		uint16_t sport;
		size_t len;
		uint8_t pkt[SA_PAYLOAD_LEN(SA_ELEMS_MAX)];
	} late[64];
	atomic_int stop;
	atomic_int reset;       /* set: clear every cell (a session reset) */
	atomic_int corrupt;     /* set: flip a bit in the next job result to rank 0, then clear */
	atomic_int corrupt_exp; /* set: raise e0 of the next job result to rank 0, then clear */
	uint64_t rnd;
	struct model_cell cell[MODEL_SLOTS][2];
};

static unsigned model_rand(struct model *m)
{
	m->rnd = m->rnd * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(m->rnd >> 33) % 100;
}

static void model_send(struct model *m, const uint8_t *pkt, size_t len, uint16_t port)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (model_rand(m) < m->drop_pct)
		return;
	sendto(m->fd, pkt, len, 0, (struct sockaddr *)&to, sizeof(to));
	if (model_rand(m) < m->dup_pct)
		sendto(m->fd, pkt, len, 0, (struct sockaddr *)&to, sizeof(to));
}

static void model_reply(struct model *m, uint8_t *pkt, size_t len, const struct model_cell *c,
                        uint16_t port)
{
	pkt[8] = (uint8_t)c->e0;
	for (unsigned i = 0; i < m->elems; i++) {
		uint32_t v = htonl((uint32_t)c->value[i]);
		memcpy(pkt + 10 + 4 * i, &v, 4);
	}
	model_send(m, pkt, len, port);
}

/* SwitchML's per-packet algorithm (docs/syncagtr.md), one pass. Ranks are told apart by source
 * port here (all on loopback), so each gets results at its own port for the thread: more
 * permissive than SwitchML, which sends every replica to the completing worker's port. */
static void model_packet(struct model *m, uint8_t *pkt, size_t len, uint16_t sport)
{
	struct sa_pkt p;
	unsigned rank, r, i, tid;

	if (sa_pkt_parse(pkt, len, m->elems, &p) < 0 || p.slot >= MODEL_SLOTS)
		return;
	for (rank = 0; rank < m->workers; rank++)
		if (sport >= m->rank_port[rank] && sport < m->rank_port[rank] + m->threads)
			break;
	if (rank == m->workers || model_rand(m) < m->drop_pct)
		return;
	tid = sport - m->rank_port[rank];
	struct model_cell *c = &m->cell[p.slot][p.set], *o = &m->cell[p.slot][!p.set];
	uint32_t w = 1u << rank, before = c->bitmap;
	c->bitmap |= w;
	o->bitmap &= ~w;
	if (before & w) { /* retransmission: unicast if complete, else drop */
		if (c->count == 0)
			model_reply(m, pkt, len, c, (uint16_t)(m->rank_port[rank] + tid));
		return;
	}
	for (i = 0; i < m->elems; i++) {
		int32_t v;
		memcpy(&v, p.values + 4 * i, 4);
		v = (int32_t)ntohl((uint32_t)v);
		c->value[i] = before ? (int32_t)((uint32_t)c->value[i] + (uint32_t)v) : v;
	}
	c->e0 = before && c->e0 > p.e0 ? c->e0 : p.e0;
	/* A new contribution to a completed round starts a new count, as the switch's does
	 * (isw_salu_countdown): a late copy that gets past the guard must not wrap it. */
	c->count = before && c->count ? c->count - 1 : m->workers - 1;
	if (c->count)
		return;
	for (r = 0; r < m->workers; r++) {
		/* job 0 is the start barrier */
		if (r == 0 && p.job != 0 && atomic_exchange(&m->corrupt, 0)) {
			c->value[3] ^= 0x100;
			model_reply(m, pkt, len, c, (uint16_t)(m->rank_port[r] + tid));
			c->value[3] ^= 0x100;
			continue;
		}
		if (r == 0 && p.job != 0 && atomic_exchange(&m->corrupt_exp, 0)) {
			c->e0++;
			model_reply(m, pkt, len, c, (uint16_t)(m->rank_port[r] + tid));
			c->e0--;
			continue;
		}
		model_reply(m, pkt, len, c, (uint16_t)(m->rank_port[r] + tid));
	}
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Keeps a copy of an incoming packet to deliver it again 1..2 ms later. */
static void model_delay(struct model *m, const uint8_t *pkt, size_t len, uint16_t sport)
{
	if (m->nlate == 64 || len > sizeof(m->late[0].pkt) || model_rand(m) >= m->late_pct)
		return;
	m->late[m->nlate].due = mono_us() + 1000 + 10 * model_rand(m);
	m->late[m->nlate].sport = sport;
	m->late[m->nlate].len = len;
	memcpy(m->late[m->nlate].pkt, pkt, len);
	m->nlate++;
}

static void model_release(struct model *m)
{
	uint64_t now = mono_us();

	for (unsigned i = 0; i < m->nlate;) {
		if (m->late[i].due > now) {
			i++;
			continue;
		}
		model_packet(m, m->late[i].pkt, m->late[i].len, m->late[i].sport);
		m->late[i] = m->late[--m->nlate];
	}
}

static void *model_main(void *arg)
{
	struct model *m = arg;
	uint8_t buf[2048];
	struct sockaddr_in from;
	socklen_t flen;
	ssize_t n;

	while (!atomic_load(&m->stop)) {
		flen = sizeof(from);
		n = recvfrom(m->fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);
		/* Copies due by now first: a packet just received may have arrived after their due
		 * time while this thread was not running (a loaded machine), and must not pass
		 * them: a copy then 20 ms late instead of 2 got past the guard of
		 * test_engine_late_copies. */
		model_release(m);
		if (n > 0) {
			model_delay(m, buf, (size_t)n, ntohs(from.sin_port));
			model_packet(m, buf, (size_t)n, ntohs(from.sin_port));
		}
		model_release(m);
		if (atomic_exchange(&m->reset, 0))
			memset(m->cell, 0, sizeof(m->cell));
	}
	return NULL;
}

static struct model *model_start(unsigned workers, unsigned elems, unsigned drop, unsigned dup,
                                 unsigned late, pthread_t *mt)
{
	struct model *m = calloc(1, sizeof(*m));
	struct sockaddr_in sw = {.sin_family = AF_INET};
	struct timeval tv = {0, 200};

	assert_non_null(m);
	m->workers = workers;
	m->elems = elems;
	m->threads = 3;
	m->drop_pct = drop;
	m->dup_pct = dup;
	m->late_pct = late;
	m->rnd = 42;
	for (unsigned r = 0; r < workers; r++)
		m->rank_port[r] = (uint16_t)(20000 + (unsigned)getpid() % 1000 * 40 + 10 * r);
	sw.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	m->fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(m->fd >= 0);
	setsockopt(m->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	int rc = -1;
	for (model_port = 0xBEE1; model_port <= 0xBEEF && rc != 0; model_port++) {
		sw.sin_port = htons(model_port);
		rc = bind(m->fd, (struct sockaddr *)&sw, sizeof(sw));
	}
	model_port--;
	assert_int_equal(rc, 0);
	assert_int_equal(pthread_create(mt, NULL, model_main, m), 0);
	return m;
}

static void model_stop(struct model *m, pthread_t mt)
{
	atomic_store(&m->stop, 1);
	pthread_join(mt, NULL);
	close(m->fd);
	free(m);
}

static unsigned job_give_up_s = 10, job_guard_ms = 3;

/* One worker process, simulated: its config, its engine, its tensors, its outcome. */
struct job {
	struct sa_engine_cfg c;
	struct sa_engine *w;
	void *in, *out;
	size_t count;
	unsigned repeat;
	int barrier;
	struct sa_stats st;
	int rc;
	int bad_job; /* first job (1-based) whose result did not verify, 0 if none */
	struct sa_verify_result v;
	int checks;      /* every job with the end-to-end check (on by default, as in the tools) */
	int check_fails; /* jobs whose end-to-end check failed */
	char check_why[320];
};

static void job_init(struct job *j, const struct model *m, unsigned rank, enum sa_dtype type,
                     size_t count, unsigned repeat, int barrier)
{
	char err[256];

	memset(j, 0, sizeof(*j));
	sa_engine_cfg_default(&j->c);
	j->c.rank = rank;
	j->c.workers = m->workers;
	j->c.threads = m->threads;
	j->c.window = 16;
	j->c.elems = m->elems;
	j->c.type = type;
	j->c.timeout_ms = 5;
	j->c.timeout_max_ms = 40;
	j->c.give_up_s = job_give_up_s;
	j->c.guard_ms = job_guard_ms;
	j->c.switch_port = model_port;
	j->c.switch_ip.s_addr = htonl(INADDR_LOOPBACK);
	j->c.worker_port = m->rank_port[rank];
	j->w = sa_engine_create(&j->c, err, sizeof(err));
	if (!j->w)
		fail_msg("sa_engine_create: %s", err);
	assert_non_null(j->w);
	j->count = count;
	j->repeat = repeat;
	j->barrier = barrier;
	j->checks = 1;
	j->in = malloc(count * 4 + 4);
	j->out = malloc(count * 4 + 4);
	sa_gen(5, rank, type, j->in, 0, count);
}

static void job_fini(struct job *j)
{
	sa_engine_destroy(j->w);
	free(j->in);
	free(j->out);
}

/* Runs in its own thread, like a worker process: barrier, then the jobs, each verified. */
static void *job_main(void *arg)
{
	struct job *j = arg;

	if (j->barrier && (j->rc = sa_engine_barrier(j->w, &j->st)) < 0)
		return NULL;
	for (unsigned k = 0; k < j->repeat; k++) {
		memset(j->out, 0x5a, j->count * 4);
		sa_engine_set_checksums(j->w, j->checks);
		j->rc = sa_engine_allreduce(j->w, j->in, j->out, j->count, &j->st, NULL, NULL);
		if (j->rc < 0)
			return NULL;
		sa_verify(&j->c, 5, j->out, j->count, &j->v);
		if (!j->v.ok && !j->bad_job)
			j->bad_job = (int)k + 1;
		if (j->checks &&
		    sa_engine_verify(j->w, NULL, j->check_why, sizeof(j->check_why)) < 0)
			j->check_fails++;
	}
	return NULL;
}

/* What went wrong with j, in why (empty if nothing): checked after the cleanup, so a failed
 * test does not leave its sockets bound for the tests after it. */
static void job_outcome(const struct job *j, char *why, size_t len)
{
	if (why[0] != '\0')
		return;
	if (j->rc < 0)
		snprintf(why, len, "rank %u: %s", j->c.rank, sa_engine_error(j->w));
	else if (j->bad_job)
		snprintf(why, len, "rank %u job %d: wrong result", j->c.rank, j->bad_job);
	else if (j->check_fails)
		snprintf(why, len, "rank %u: a right result failed its end-to-end check: %s",
		         j->c.rank, j->check_why);
}

static void job_check(const struct job *j)
{
	char why[512] = "";
	job_outcome(j, why, sizeof(why));
	if (why[0] != '\0')
		fail_msg("%s", why);
}

/* workers ranks in one process, repeat jobs each, against the model with loss. */
static void run_model(enum sa_dtype type, unsigned workers, unsigned elems, size_t count,
                      unsigned repeat, unsigned drop, unsigned dup, unsigned late)
{
	pthread_t mt, jt[4];
	struct model *m = model_start(workers, elems, drop, dup, late, &mt);
	struct job j[4];

	for (unsigned r = 0; r < workers; r++)
		job_init(&j[r], m, r, type, count, repeat, 1);
	for (unsigned r = 0; r < workers; r++)
		assert_int_equal(pthread_create(&jt[r], NULL, job_main, &j[r]), 0);
	char why[512] = "";
	for (unsigned r = 0; r < workers; r++) {
		pthread_join(jt[r], NULL);
		job_outcome(&j[r], why, sizeof(why));
	}
	/* Big enough runs must have seen the faults (small ones may be lucky). */
	bool retx = j[0].st.retransmits > 0, dups = j[0].st.duplicates > 0;
	for (unsigned r = 0; r < workers; r++)
		job_fini(&j[r]);
	model_stop(m, mt);
	if (why[0] != '\0')
		fail_msg("%s", why);
	if (drop && count >= 10000)
		assert_true(retx);
	if (dup && count >= 10000)
		assert_true(dups);
}

static void test_engine_int32(void **state)
{
	(void)state;
	run_model(SA_INT32, 3, 64, 50000, 3, 0, 0, 0);
}

static void test_engine_float32_lossy(void **state)
{
	(void)state;
	run_model(SA_FLOAT32, 2, 256, 40000, 3, 3, 3, 0);
}

static void test_engine_small_jobs(void **state)
{
	(void)state;
	/* Fewer packets than the window, odd sizes: set alternation must survive the jobs. */
	run_model(SA_INT32, 2, 64, 1000, 5, 2, 2, 0);
	run_model(SA_FLOAT32, 4, 64, 777, 4, 0, 0, 0);
}

static void test_barrier_pattern(void **state)
{
	uint8_t buf[SA_PAYLOAD_LEN(256)];
	int32_t v[256], sum[256];
	struct sa_pkt p;

	(void)state;
	for (unsigned n = 1; n <= 32; n += 31) {
		memset(sum, 0, sizeof(sum));
		for (unsigned r = 0; r < n; r++) {
			sa_barrier_values(v, 256, r);
			for (unsigned i = 0; i < 256; i++)
				sum[i] = (int32_t)((uint32_t)sum[i] + (uint32_t)v[i]);
		}
		sa_pkt_put_hdr(buf, 256, 0, 0, 0, 0, 0);
		sa_pkt_put_i32(buf, sum, 256, 256);
		assert_int_equal(sa_pkt_parse(buf, sizeof(buf), 256, &p), 0);
		assert_true(sa_barrier_check(&p, 256, n));
		if (n > 1)
			assert_false(sa_barrier_check(&p, 256, n - 1));
		buf[10 + 4 * 200] ^= 0x10;
		assert_false(sa_barrier_check(&p, 256, n));
	}
}

enum phase_reset {
	NO_RESET,
	RESET_FIRST, /* the session is reset before any worker starts */
	RESET_RACE,  /* ranks 1.. start first; rank 0 resets the session, then joins */
};

enum phase_outcome {
	MUST_PASS,
	MUST_REFUSE_STALE, /* every rank fails at the barrier, naming the reset */
	MAY_STALL,         /* a rank may give up, but no result may be wrong */
};

static void run_phase(struct model *m, enum sa_dtype type, size_t count, enum phase_reset reset,
                      enum phase_outcome expect)
{
	pthread_t jt[4];
	struct job j[4];
	unsigned n = m->workers, r;
	uint64_t stale = 0;

	for (r = 0; r < n; r++)
		job_init(&j[r], m, r, type, count, 1, 1);
	if (reset == RESET_FIRST)
		atomic_store(&m->reset, 1);
	while (atomic_load(&m->reset))
		usleep(1000);
	for (r = reset == RESET_RACE ? 1 : 0; r < n; r++)
		assert_int_equal(pthread_create(&jt[r], NULL, job_main, &j[r]), 0);
	if (reset == RESET_RACE) {
		usleep(100000);
		atomic_store(&m->reset, 1);
		while (atomic_load(&m->reset))
			usleep(1000);
		assert_int_equal(pthread_create(&jt[0], NULL, job_main, &j[0]), 0);
	}
	for (r = 0; r < n; r++)
		pthread_join(jt[r], NULL);
	for (r = 0; r < n; r++) {
		stale += j[r].st.stale_state;
		assert_int_equal(j[r].bad_job, 0);     /* never a wrong result */
		assert_int_equal(j[r].check_fails, 0); /* nor a false alarm */
		if (expect == MUST_PASS)
			job_check(&j[r]);
		else if (expect == MUST_REFUSE_STALE)
			assert_int_equal(j[r].rc, -ETIMEDOUT);
		else
			assert_true(j[r].rc == 0 || j[r].rc == -ETIMEDOUT);
	}
	if (expect == MUST_REFUSE_STALE) {
		assert_true(stale > 0);
		assert_non_null(strstr(sa_engine_error(j[0].w), "reset the session"));
	}
	for (r = 0; r < n; r++)
		job_fini(&j[r]);
}

/*
 * Runs after runs on one switch (3 threads, W = 16, 64 values). Without resets a run leaves the
 * barrier's values on set 0 of slots its job did not reach (harmless), or job data on set 0
 * (the next barrier must refuse). A reset before the workers start always works; a reset while
 * other ranks already run may stall (they may have taken a barrier answer the reset then wiped)
 * but never gives a wrong result.
 */
static void test_engine_barrier_stale(void **state)
{
	pthread_t mt;
	struct model *m = model_start(3, 64, 0, 0, 0, &mt);
	size_t five = 3 * 5 * 64, twenty = 3 * 20 * 64;

	(void)state;
	run_phase(m, SA_INT32, five, NO_RESET, MUST_PASS);   /* ends at position 21 */
	run_phase(m, SA_INT32, five, NO_RESET, MUST_PASS);   /* slots 5..15: old barrier */
	run_phase(m, SA_INT32, twenty, NO_RESET, MUST_PASS); /* ends at 36 = 4: job data */
	job_give_up_s = 2;
	run_phase(m, SA_INT32, five, NO_RESET, MUST_REFUSE_STALE);
	run_phase(m, SA_INT32, twenty, RESET_RACE, MAY_STALL);
	job_give_up_s = 10;
	run_phase(m, SA_INT32, twenty, RESET_FIRST, MUST_PASS);
	run_phase(m, SA_FLOAT32, five, RESET_FIRST, MUST_PASS);
	model_stop(m, mt);
}

/*
 * Late copies of worker packets, 1..2 ms after the model received them: the guard keeps them
 * harmless. The model's receive queue adds its own delay on a loaded machine, so the guard here
 * is well above 2 ms (with 0, this test fails).
 */
static void test_engine_late_copies(void **state)
{
	(void)state;
	job_guard_ms = 20;
	run_model(SA_INT32, 3, 64, 60000, 3, 1, 0, 3);
	run_model(SA_FLOAT32, 2, 256, 40000, 2, 1, 1, 3);
	job_guard_ms = 3; /* not reached after a failure: knobs_reset() sets it for the next test */
}

/*
 * The guard spans jobs: jobs of one window each (16 packets a thread), back to back, so every
 * packet is the last of its slot in its job and the next job's packet there follows within a
 * round trip, with half of them copied late. A job that started its first window without waiting
 * out the guard had a copy summed into a finished round: the run stalled or summed wrongly.
 */
static void test_engine_late_copies_jobs(void **state)
{
	(void)state;
	job_guard_ms = 20;
	run_model(SA_INT32, 3, 64, 3 * 16 * 64, 10, 0, 0, 50);
	job_guard_ms = 3;
}

/*
 * The result checksums: the sum over workers of what each sent equals what each got, for int32
 * and float32 jobs alike; a result word corrupted on its way to rank 0 breaks rank 0's equality
 * and no one else's; a result exponent corrupted on its way to rank 0 (a float32 scale that
 * differs from the others', so every sum of that block is wrong) breaks everyone's.
 */
static void test_engine_checksums(void **state)
{
	(void)state;
	pthread_t mt, jt[3];
	struct model *m = model_start(3, 64, 0, 0, 0, &mt);
	struct job j[3];
	enum sa_dtype types[] = {SA_INT32, SA_FLOAT32, SA_INT32, SA_FLOAT32};

	for (unsigned r = 0; r < 3; r++) {
		job_init(&j[r], m, r, SA_INT32, 20000, 1, 1);
		sa_engine_set_checksums(j[r].w, 1);
	}
	for (unsigned round = 0; round < 4; round++) {
		uint32_t sent[3][3], got[3][3], sum[3] = {0, 0, 0};
		if (round == 2)
			atomic_store(&m->corrupt, 1);
		if (round == 3)
			atomic_store(&m->corrupt_exp, 1);
		for (unsigned r = 0; r < 3; r++) {
			sa_engine_set_type(j[r].w, types[round]);
			sa_gen(5, r, types[round], j[r].in, 0, j[r].count);
			j[r].c.type = types[round];
			j[r].bad_job = 0;
			j[r].barrier = round == 0;
			assert_int_equal(pthread_create(&jt[r], NULL, job_main, &j[r]), 0);
		}
		for (unsigned r = 0; r < 3; r++) {
			pthread_join(jt[r], NULL);
			assert_int_equal(j[r].rc, 0);
			sa_engine_checksums(j[r].w, sent[r], got[r]);
			for (unsigned i = 0; i < 3; i++)
				sum[i] += sent[r][i];
		}
		assert_int_equal(atomic_load(&m->corrupt), 0);
		assert_int_equal(atomic_load(&m->corrupt_exp), 0);
		for (unsigned r = 0; r < 3; r++) {
			int match =
			        got[r][0] == sum[0] && got[r][1] == sum[1] && got[r][2] == sum[2];
			assert_true(match == (round < 2 || (round == 2 && r != 0)));
			/* what the checksums say is what the full check of the tensor says */
			assert_int_equal(j[r].bad_job, match ? 0 : 1);
		}
		assert_true(sum[0] != 0 && sum[1] != 0);
	}
	for (unsigned r = 0; r < 3; r++)
		job_fini(&j[r]);
	model_stop(m, mt);
}

/*
 * The end-to-end check (sa_engine_verify) the tools run after every job by default: it passes on
 * exact jobs, int32 and float32; a result word corrupted on its way to rank 0 fails rank 0's
 * check, naming the checksums, and no one else's; a result exponent corrupted on its way to rank
 * 0 fails everyone's, naming the exponents. The type is int32 after the check.
 */
struct vjob {
	struct job *j;
	int rc;
	char why[320];
};

static void *vjob_main(void *arg)
{
	struct vjob *v = arg;

	job_main(v->j);
	if (v->j->rc == 0)
		v->rc = sa_engine_verify(v->j->w, NULL, v->why, sizeof(v->why));
	return NULL;
}

static void test_engine_verify(void **state)
{
	(void)state;
	pthread_t mt, jt[3];
	struct model *m = model_start(3, 64, 0, 0, 0, &mt);
	struct job j[3];
	struct vjob v[3];
	enum sa_dtype types[] = {SA_INT32, SA_FLOAT32, SA_INT32, SA_FLOAT32};

	for (unsigned r = 0; r < 3; r++)
		job_init(&j[r], m, r, SA_INT32, 5000, 1, 1);
	for (unsigned round = 0; round < 4; round++) {
		if (round == 2)
			atomic_store(&m->corrupt, 1);
		if (round == 3)
			atomic_store(&m->corrupt_exp, 1);
		for (unsigned r = 0; r < 3; r++) {
			sa_engine_set_type(j[r].w, types[round]);
			sa_engine_set_checksums(j[r].w, 1);
			j[r].c.type = types[round];
			sa_gen(5, r, types[round], j[r].in, 0, j[r].count);
			j[r].barrier = round == 0;
			v[r] = (struct vjob){.j = &j[r], .rc = 1};
			assert_int_equal(pthread_create(&jt[r], NULL, vjob_main, &v[r]), 0);
		}
		for (unsigned r = 0; r < 3; r++)
			pthread_join(jt[r], NULL);
		for (unsigned r = 0; r < 3; r++) {
			assert_int_equal(j[r].rc, 0);
			if (round < 2 || (round == 2 && r != 0)) {
				assert_int_equal(v[r].rc, 0);
				continue;
			}
			assert_int_equal(v[r].rc, -EBADMSG);
			assert_non_null(strstr(v[r].why, "result check failed"));
			assert_non_null(
			        strstr(v[r].why, round == 2 ? "checksums" : "same exponents"));
		}
	}
	for (unsigned r = 0; r < 3; r++)
		job_fini(&j[r]);
	model_stop(m, mt);
}

/*
 * The checksums of one packet (sa_checksum_add, in whichever build the CPU picked): the plain and
 * the weighted sum of the big-endian words, as a word-by-word reference computes them; every
 * position's weight odd, so changing any one bit of any word changes both; swapping two unequal
 * words, or the same words in another packet, changes the weighted one.
 */
static void test_checksum_words(void **state)
{
	uint32_t posw[SA_ELEMS_MAX], ck[2], ref[2] = {0, 0}, again[2];
	uint8_t v[4 * SA_ELEMS_MAX];

	(void)state;
	for (unsigned i = 0; i < SA_ELEMS_MAX; i++) {
		posw[i] = sa_checksum_weight(i);
		assert_int_equal(posw[i] & 1, 1);
	}
	for (unsigned i = 0; i < sizeof(v); i++)
		v[i] = (uint8_t)(i * 131 + 17);
	for (unsigned elems = 1; elems <= SA_ELEMS_MAX; elems += 51) {
		ref[0] = ref[1] = 0;
		for (unsigned i = 0; i < elems; i++) {
			uint32_t w = (uint32_t)v[4 * i] << 24 | (uint32_t)v[4 * i + 1] << 16 |
			             (uint32_t)v[4 * i + 2] << 8 | v[4 * i + 3];
			ref[0] += w;
			ref[1] += w * posw[i] * sa_packet_weight(3, 77);
		}
		ck[0] = ck[1] = 0;
		sa_checksum_add(ck, posw, v, 3, 77, elems);
		assert_int_equal(ck[0], ref[0]);
		assert_int_equal(ck[1], ref[1]);
	}
	memset(ref, 0, sizeof(ref));
	sa_checksum_add(ref, posw, v, 0, 5, SA_ELEMS_MAX);
	for (unsigned i = 0; i < sizeof(v); i += 13)
		for (unsigned bit = 0; bit < 8; bit += 3) {
			v[i] ^= (uint8_t)(1u << bit);
			memset(ck, 0, sizeof(ck));
			sa_checksum_add(ck, posw, v, 0, 5, SA_ELEMS_MAX);
			v[i] ^= (uint8_t)(1u << bit);
			assert_int_not_equal(ck[0], ref[0]);
			assert_int_not_equal(ck[1], ref[1]);
		}
	uint8_t t[4];
	memcpy(t, v + 4 * 10, 4);
	memcpy(v + 4 * 10, v + 4 * 200, 4);
	memcpy(v + 4 * 200, t, 4);
	memset(ck, 0, sizeof(ck));
	sa_checksum_add(ck, posw, v, 0, 5, SA_ELEMS_MAX);
	assert_int_equal(ck[0], ref[0]);
	assert_int_not_equal(ck[1], ref[1]);
	memset(again, 0, sizeof(again));
	sa_checksum_add(again, posw, v, 0, 6, SA_ELEMS_MAX);
	assert_int_not_equal(again[1], ck[1]);
}

/* The options that trade safety: no start barrier needs the control socket; the registration
 * asks for clean slots exactly when there is neither a barrier nor a reset. */
static void test_options(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(sa_options_check(0, 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "control socket"));
	assert_int_equal(sa_options_check(1, 0, err, sizeof(err)), 0);
	assert_int_equal(sa_options_check(0, 1, err, sizeof(err)), 0);
	assert_int_equal(sa_reg_flags(1, 1), SA_REG_RESET);
	assert_int_equal(sa_reg_flags(0, 1), SA_REG_RESET);
	assert_int_equal(sa_reg_flags(1, 0), 0);
	assert_int_equal(sa_reg_flags(0, 0), SA_REG_CLEAN);
}

/* ---- the session helper against a scripted control socket ---- */

struct fake_ctl {
	int fd;
	char path[64];
	pthread_t th;
	atomic_int stop;
	pthread_mutex_t lock;
	char log[4096];   /* the commands received, one per line */
	const char *show; /* the reply to 'syncagtr session show ...' */
};

/* The fake's reply to 'syncagtr worker add' (NULL: ok); a test sets it and puts it back. */
static const char *wadd_reply;

static void fake_reply(struct fake_ctl *f, int c, const char *cmd)
{
	const char *r = "{\"ok\":false,\"error\":\"unknown command\"}";

	if (strncmp(cmd, "syncagtr session add", 20) == 0)
		r = "{\"ok\":true,\"exists\":true}";
	else if (strncmp(cmd, "syncagtr session show", 21) == 0)
		r = f->show;
	else if (strncmp(cmd, "syncagtr session reset", 22) == 0)
		r = "{\"ok\":true,\"epoch\":4}";
	else if (strncmp(cmd, "syncagtr worker add", 19) == 0)
		r = wadd_reply ? wadd_reply : "{\"ok\":true}";
	if (write(c, r, strlen(r)) < 0 || write(c, "\n", 1) < 0)
		return;
}

static void *fake_main(void *arg)
{
	struct fake_ctl *f = arg;
	struct pollfd p = {.fd = f->fd, .events = POLLIN};

	while (!atomic_load(&f->stop)) {
		char cmd[512];
		size_t n = 0;
		int c;

		if (poll(&p, 1, 20) <= 0)
			continue;
		c = accept(f->fd, NULL, NULL);
		if (c < 0)
			continue;
		while (n + 1 < sizeof(cmd) && read(c, cmd + n, 1) == 1 && cmd[n] != '\n')
			n++;
		cmd[n] = '\0';
		pthread_mutex_lock(&f->lock);
		snprintf(f->log + strlen(f->log), sizeof(f->log) - strlen(f->log), "%s\n", cmd);
		pthread_mutex_unlock(&f->lock);
		fake_reply(f, c, cmd);
		close(c);
	}
	return NULL;
}

static void fake_start(struct fake_ctl *f, const char *show)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};

	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->lock, NULL);
	f->show = show;
	snprintf(f->path, sizeof(f->path), "/tmp/test-sa-host.%d.sock", (int)getpid());
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", f->path);
	unlink(f->path);
	f->fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(f->fd >= 0);
	assert_int_equal(bind(f->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(f->fd, 8), 0);
	assert_int_equal(pthread_create(&f->th, NULL, fake_main, f), 0);
}

static void fake_stop(struct fake_ctl *f)
{
	atomic_store(&f->stop, 1);
	pthread_join(f->th, NULL);
	close(f->fd);
	unlink(f->path);
	pthread_mutex_destroy(&f->lock);
}

/* Registers rank `rank` of 2 as 02:00:00:00:00:0<rank+1> / 10.9.9.<rank+1>, against show. */
static int fake_register(const char *show, unsigned rank, unsigned flags, char *log, size_t loglen,
                         char *err, size_t errlen)
{
	struct fake_ctl f;
	struct sa_engine_cfg c;
	struct sa_local loc = {.mac = {2, 0, 0, 0, 0, (uint8_t)(rank + 1)}};
	int rc;

	sa_engine_cfg_default(&c);
	c.rank = rank;
	c.workers = 2;
	inet_pton(AF_INET, "10.9.9.254", &c.switch_ip);
	loc.ip.s_addr = htonl(0x0a090900u + rank + 1);
	snprintf(loc.ifname, sizeof(loc.ifname), "eth9");
	fake_start(&f, show);
	err[0] = '\0';
	rc = sa_session_register_as(&c, &loc, f.path, 1, "l2", flags, NULL, 0, NULL, err, errlen);
	fake_stop(&f);
	snprintf(log, loglen, "%s", f.log);
	return rc;
}

#define SHOW(pkts, members)                                                                     \
	"{\"ok\":true,\"switch_mac\":\"02:00:00:00:00:fe\",\"sessions\":[{\"session\":1,"       \
	"\"ip\":\"10.9.9.254\",\"workers\":2,\"registered\":1,\"epoch\":3,\"current\":1,"       \
	"\"live\":0" pkts ",\"slots\":512,\"first_slot\":0,\"threads\":4,\"worker_port\":4000," \
	"\"group\":65281}],\"members\":[" members "],\"counters\":[]}"
#define MEMBER0(mac)                                                                    \
	"{\"session\":1,\"rank\":0,\"mac\":\"" mac "\",\"ip\":\"10.9.9.1\",\"port\":0," \
	"\"auto\":false,\"port_from\":\"l2\",\"epoch\":3,\"registered_ms_ago\":5000}"

/*
 * A refused registration is decided on the reply's code, never its text: EEXIST sends the helper
 * to check what exists (the rank held by this host: accepted; by another: refused naming it);
 * any other code is returned as it is, whatever the message says ("exists" included).
 */
static void test_session_codes(void **state)
{
	char log[4096], err[512];
	const char *show = SHOW(",\"epoch_pkts\":0", MEMBER0("02:00:00:00:00:01"));

	(void)state;
	wadd_reply = "{\"ok\":false,\"error\":\"port l2: no entry\",\"code\":\"EHOSTUNREACH\"}";
	assert_int_equal(fake_register(show, 0, 0, log, sizeof(log), err, sizeof(err)),
	                 -EHOSTUNREACH);
	assert_non_null(strstr(err, "refused: port l2: no entry"));
	wadd_reply = "{\"ok\":false,\"error\":\"it exists, sort of\",\"code\":\"EBUSY\"}";
	assert_int_equal(fake_register(show, 0, 0, log, sizeof(log), err, sizeof(err)), -EBUSY);
	wadd_reply = "{\"ok\":false,\"error\":\"no code: an older switch\"}";
	assert_int_equal(fake_register(show, 0, 0, log, sizeof(log), err, sizeof(err)), -EIO);
	wadd_reply = "{\"ok\":false,\"error\":\"held\",\"code\":\"EEXIST\"}";
	assert_int_equal(fake_register(show, 0, 0, log, sizeof(log), err, sizeof(err)), 0);
	assert_int_equal(fake_register(show, 1, 0, log, sizeof(log), err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "rank 1 of session 1 is registered as ? ?"));
	wadd_reply = "{\"ok\":false,\"error\":\"held\",\"code\":\"EEXIST\"} trailing";
	assert_int_equal(fake_register(show, 0, 0, log, sizeof(log), err, sizeof(err)), -EPROTO);
	wadd_reply = NULL;
}

/*
 * Registration: without barrier and reset (SA_REG_CLEAN), a session whose slots hold another
 * run's state (epoch_pkts > 0), or a switch that cannot say, refuses before the worker is
 * registered; clean slots register. With the reset (SA_REG_RESET), rank 0 resets between the
 * session and the worker, and not when the rank is another host's; other ranks never reset.
 */
static void test_session_register(void **state)
{
	char log[4096], err[512];
	const char *wadd0 = "syncagtr worker add 1 0 mac 02:00:00:00:00:01 ip 10.9.9.1 port l2\n",
	           *wadd1 = "syncagtr worker add 1 1 mac 02:00:00:00:00:02 ip 10.9.9.2 port l2\n";

	(void)state;
	assert_int_equal(fake_register(SHOW(",\"epoch_pkts\":512", ""), 1, SA_REG_CLEAN, log,
	                               sizeof(log), err, sizeof(err)),
	                 -EBUSY);
	assert_non_null(strstr(err, "holds another run's state (512 packets"));
	assert_null(strstr(log, "worker add"));
	assert_int_equal(
	        fake_register(SHOW("", ""), 1, SA_REG_CLEAN, log, sizeof(log), err, sizeof(err)),
	        -EOPNOTSUPP);
	assert_null(strstr(log, "worker add"));
	assert_int_equal(fake_register(SHOW(",\"epoch_pkts\":0", ""), 1, SA_REG_CLEAN, log,
	                               sizeof(log), err, sizeof(err)),
	                 0);
	assert_non_null(strstr(log, wadd1));
	assert_null(strstr(log, "reset"));

	/* rank 0 with the reset: session add, the rank checked free, reset, worker add */
	assert_int_equal(fake_register(SHOW(",\"epoch_pkts\":9", ""), 0, SA_REG_RESET, log,
	                               sizeof(log), err, sizeof(err)),
	                 0);
	const char *a = strstr(log, "syncagtr session add 1 ip 10.9.9.254 workers 2 slots 512");
	const char *r = strstr(log, "syncagtr session reset 1\n");
	const char *w = strstr(log, wadd0);
	assert_true(a != NULL && r != NULL && w != NULL && a < r && r < w);
	/* ... also when the rank is held by this host (a registration left by an earlier run) */
	assert_int_equal(fake_register(SHOW(",\"epoch_pkts\":9", MEMBER0("02:00:00:00:00:01")), 0,
	                               SA_REG_RESET, log, sizeof(log), err, sizeof(err)),
	                 0);
	assert_non_null(strstr(log, "syncagtr session reset 1\n"));
	/* ... but not another host's: that host's job would be the one reset */
	assert_int_equal(fake_register(SHOW(",\"epoch_pkts\":9", MEMBER0("02:00:00:00:00:07")), 0,
	                               SA_REG_RESET, log, sizeof(log), err, sizeof(err)),
	                 -EEXIST);
	assert_non_null(strstr(err, "02:00:00:00:00:07"));
	assert_null(strstr(log, "reset"));
	assert_null(strstr(log, "worker add"));
	/* rank 1 never resets */
	assert_int_equal(fake_register(SHOW(",\"epoch_pkts\":9", ""), 1, SA_REG_RESET, log,
	                               sizeof(log), err, sizeof(err)),
	                 0);
	assert_null(strstr(log, "reset"));
	assert_non_null(strstr(log, wadd1));
}

/* Every test starts with the engine knobs' defaults, even after one that failed midway. */
static int knobs_reset(void **state)
{
	(void)state;
	job_give_up_s = 10;
	job_guard_ms = 3;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup(test_exponent, knobs_reset),
	        cmocka_unit_test_setup(test_quantise, knobs_reset),
	        cmocka_unit_test_setup(test_slot_map_window, knobs_reset),
	        cmocka_unit_test_setup(test_slot_map_jobs, knobs_reset),
	        cmocka_unit_test_setup(test_slice, knobs_reset),
	        cmocka_unit_test_setup(test_pkt_build, knobs_reset),
	        cmocka_unit_test_setup(test_packet_region, knobs_reset),
	        cmocka_unit_test_setup(test_float_roundtrip, knobs_reset),
	        cmocka_unit_test_setup(test_put_f32_reference, knobs_reset),
	        cmocka_unit_test_setup(test_gen_deterministic, knobs_reset),
	        cmocka_unit_test_setup(test_verify, knobs_reset),
	        cmocka_unit_test_setup(test_config, knobs_reset),
	        cmocka_unit_test_setup(test_engine_int32, knobs_reset),
	        cmocka_unit_test_setup(test_engine_float32_lossy, knobs_reset),
	        cmocka_unit_test_setup(test_engine_small_jobs, knobs_reset),
	        cmocka_unit_test_setup(test_engine_late_copies, knobs_reset),
	        cmocka_unit_test_setup(test_engine_late_copies_jobs, knobs_reset),
	        cmocka_unit_test_setup(test_barrier_pattern, knobs_reset),
	        cmocka_unit_test_setup(test_engine_barrier_stale, knobs_reset),
	        cmocka_unit_test_setup(test_engine_checksums, knobs_reset),
	        cmocka_unit_test_setup(test_engine_verify, knobs_reset),
	        cmocka_unit_test_setup(test_checksum_words, knobs_reset),
	        cmocka_unit_test_setup(test_options, knobs_reset),
	        cmocka_unit_test_setup(test_session_register, knobs_reset),
	        cmocka_unit_test_setup(test_session_codes, knobs_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
