/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the ATP host library: aggregator mapping (collision-free, deterministic,
 * re-pointing, the PS free list), frame build/parse against a byte-exact example frame, float32
 * scaling and the overflow split, and the PS merge (full, partial, duplicates, resends,
 * floats, collisions, ACK format).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atp_check.h"
#include "atp_host.h"
#include "atp_session.h"

static void test_crc32(void **state)
{
	(void)state;
	/* The standard check value of CRC-32/ISO-HDLC. */
	assert_int_equal(atp_crc32("123456789", 9, 0), 0xcbf43926u);
}

static void test_map_collision_free(void **state)
{
	struct atp_map a, b;

	(void)state;
	/* Full pool: every aggregator used exactly once. */
	assert_int_equal(atp_map_init(&a, 1, 256, 256), 0);
	for (uint32_t p = 0; p < 256; p++)
		assert_int_equal(a.used[p], 1);
	atp_map_fini(&a);
	/* Same inputs, same table (every worker of an app agrees); another app differs. */
	assert_int_equal(atp_map_init(&a, 3, 200, 20000), 0);
	assert_int_equal(atp_map_init(&b, 3, 200, 20000), 0);
	assert_memory_equal(a.agtr, b.agtr, 200 * sizeof(uint16_t));
	for (uint32_t i = 0; i < 200; i++) {
		assert_true(a.agtr[i] < 20000);
		for (uint32_t j = i + 1; j < 200; j++)
			assert_int_not_equal(a.agtr[i], a.agtr[j]);
	}
	atp_map_fini(&b);
	assert_int_equal(atp_map_init(&b, 4, 200, 20000), 0);
	assert_memory_not_equal(a.agtr, b.agtr, 200 * sizeof(uint16_t));
	atp_map_fini(&a);
	atp_map_fini(&b);
	assert_int_equal(atp_map_init(&a, 1, 257, 256), -EINVAL);
	assert_int_equal(atp_map_init(&a, 1, 0, 256), -EINVAL);
}

/* A region of the switch's (docs/memory.md, ATP): every slot inside [base, base + size), no two
 * sharing while there are aggregators enough, sharing (not spinning) when there are not; a
 * collision ACK's aggregator outside the region is refused. */
static void test_map_region(void **state)
{
	struct atp_map m;

	(void)state;
	assert_int_equal(atp_map_init_region(&m, 5, 16, 20000, 16), 0);
	for (uint32_t s = 0; s < 16; s++) {
		assert_in_range(atp_map_get(&m, s), 20000, 20015);
		for (uint32_t t = s + 1; t < 16; t++)
			assert_int_not_equal(atp_map_get(&m, s), atp_map_get(&m, t));
	}
	assert_false(atp_map_set(&m, 0, 3));     /* the shared range */
	assert_false(atp_map_set(&m, 0, 20016)); /* past the region */
	assert_true(atp_map_set(&m, 0, 20015));
	assert_false(atp_map_repoint(&m, 1, 19999));
	atp_map_fini(&m);
	/* Three threads of two slots each in a region of four: slots 4 and 5 share. */
	assert_int_equal(atp_map_init_region(&m, 5, 6, 100, 4), 0);
	for (uint32_t s = 0; s < 6; s++)
		assert_in_range(atp_map_get(&m, s), 100, 103);
	atp_map_fini(&m);
	assert_int_equal(atp_map_init_region(&m, 5, 4, 65530, 7), -EINVAL);
	assert_int_equal(atp_map_init_region(&m, 5, 4, 65532, 4), 0);
	atp_map_fini(&m);
}

static void test_map_repoint(void **state)
{
	struct atp_map m;
	uint16_t other;

	(void)state;
	assert_int_equal(atp_map_init(&m, 2, 10, 64), 0);
	other = atp_map_get(&m, 5);
	assert_false(atp_map_repoint(&m, 3, other)); /* in use locally */
	assert_false(atp_map_repoint(&m, 3, 64));    /* out of the pool */
	for (uint32_t a = 0; a < 64; a++) {
		if (!m.used[a]) {
			uint16_t old = atp_map_get(&m, 3);

			assert_true(atp_map_repoint(&m, 3, a));
			assert_int_equal(atp_map_get(&m, 3), a);
			assert_int_equal(m.used[old], 0);
			assert_int_equal(m.used[a], 1);
			break;
		}
	}
	atp_map_fini(&m);
}

static void test_map_free_list(void **state)
{
	struct atp_map m;
	uint8_t seen[64] = {0};
	int a, first;

	(void)state;
	assert_int_equal(atp_map_init(&m, 1, 16, 64), 0);
	assert_int_equal(atp_map_free_init(&m, 0, 1), 0);
	assert_int_equal(m.fifo_len, 48);
	/* Each reassignment hands out an aggregator no slot uses; never an original one. */
	first = atp_map_reassign(&m, 0);
	assert_true(first >= 0 && !m.orig[first]);
	for (int i = 0; i < 47; i++) {
		a = atp_map_reassign(&m, (uint32_t)(i % 15) + 1);
		assert_true(a >= 0);
		assert_false(m.orig[a]);
		seen[a]++;
	}
	/* Slot 0 still holds the first one; all of a slot's previous non-original ones went
	 * back to the tail, so the list is not empty and never returns a busy aggregator. */
	for (int i = 0; i < 100; i++) {
		a = atp_map_reassign(&m, (uint32_t)(i % 15) + 1);
		assert_true(a >= 0);
		for (uint32_t s = 0; s < 16; s++)
			if (s != (uint32_t)(i % 15) + 1)
				assert_int_not_equal(atp_map_get(&m, s), a);
	}
	assert_int_equal(atp_map_get(&m, 0), first);
	atp_map_fini(&m);
	/* Two PSes hand out disjoint sets. */
	assert_int_equal(atp_map_init(&m, 1, 16, 64), 0);
	assert_int_equal(atp_map_free_init(&m, 1, 2), 0);
	for (uint32_t i = 0; i < m.fifo_len; i++)
		assert_int_equal(m.fifo[i] % 2, 1);
	atp_map_fini(&m);
}

/* Example frame: worker 0 of 2, app 1, seq 1, agtr 1234, key 0, len 1024000, values 1..62. */
static void test_frame_b9(void **state)
{
	static const uint8_t head[48] = {0x05, 0x04, 0x03, 0x02, 0x01, 0x00, 0xe4, 0x1d, 0x2d, 0xf3,
	                                 0xdd, 0xcc, 0x07, 0x00, 0x45, 0x00, 0x00, 0x54, 0x00, 0x00,
	                                 0x40, 0x00, 0x40, 0x01, 0xaf, 0xb6, 0x0d, 0x07, 0x38, 0x66,
	                                 0x0d, 0x07, 0x38, 0x7f, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00,
	                                 0x00, 0x01, 0x00, 0x01, 0x04, 0xd2, 0x52, 0xf2};
	struct atp_pkt h = {.bitmap = 1,
	                    .num_worker = 2,
	                    .app = 1,
	                    .seq = 1,
	                    .agtr = 1234,
	                    .agtr2 = 21234,
	                    .key = 0,
	                    .len = 1024000},
	               p;
	uint8_t f[ATP_FRAME_LEN], vb[ATP_VALUES * 4];
	int32_t v[ATP_VALUES], back[ATP_VALUES];

	(void)state;
	for (int i = 0; i < 62; i++)
		v[i] = i + 1;
	atp_values_put(vb, v, 62);
	atp_frame_build(f, &h, true, atp_wire_thread(1, 0), vb);
	assert_memory_equal(f, head, sizeof(head));
	assert_int_equal(f[48 + 3], 1);
	assert_int_equal(f[48 + 61 * 4 + 3], 62);
	assert_int_equal(atp_be32(f + 304), 0x000fa000u);
	assert_int_equal(atp_frame_parse(f, sizeof(f), &p), 0);
	assert_int_equal(p.bitmap, 1);
	assert_int_equal(p.num_worker, 2);
	assert_int_equal(p.app, 1);
	assert_int_equal(p.seq, 1);
	assert_int_equal(p.agtr, 1234);
	assert_int_equal(p.agtr2, 21234);
	assert_int_equal(p.len, 1024000);
	atp_values_get(f + ATP_OFF_VALUES, back, 62);
	assert_memory_equal(back, v, sizeof(v));
	/* Key is little-endian; wire thread of app 2 thread 3 is 23; ACKs go to 77:... */
	h.key = 0x0102030405060708ull;
	atp_frame_build(f, &h, false, atp_wire_thread(2, 3), NULL);
	assert_int_equal(f[296], 0x08);
	assert_int_equal(f[303], 0x01);
	assert_int_equal(f[0], 0x77);
	assert_int_equal(f[5], 23);
	assert_int_equal(atp_frame_parse(f, sizeof(f), &p), 0);
	assert_true(p.key == h.key);
	assert_int_equal(atp_frame_parse(f, 200, &p), -EINVAL);
	f[12] = 0x08;
	assert_int_equal(atp_frame_parse(f, sizeof(f), &p), -EINVAL);
}

static void test_float_scale(void **state)
{
	float x[62];
	int32_t q[62];
	double s = ATP_DEF_SCALE;

	(void)state;
	for (int i = 0; i < 62; i++)
		x[i] = (float)(i - 31) / 32.0f;
	assert_false(atp_float_scale(x, 62, s, 4, q));
	for (int i = 0; i < 62; i++)
		assert_true(fabs((double)q[i] - (double)x[i] * s) <= 0.5);
	/* Short packet: the tail is zero. */
	q[61] = 99;
	assert_false(atp_float_scale(x, 10, s, 4, q));
	assert_int_equal(q[61], 0);
	/* Limit: INT32_MAX / N. 511 * 2^20 fits for 4 workers, 513 * 2^20 does not. */
	x[5] = 511.0f;
	assert_false(atp_float_scale(x, 62, s, 4, q));
	x[5] = -513.0f;
	assert_true(atp_float_scale(x, 62, s, 4, q));
	x[5] = NAN;
	assert_true(atp_float_scale(x, 62, s, 4, q));
	/* The generator's outliers take the overflow path, ordinary values do not. */
	unsigned outliers = 0;
	for (uint64_t i = 0; i < 100000; i++) {
		float v = atp_gen_float(1, 0, i);
		outliers += fabsf(v) >= 1e4f;
		assert_true(fabsf(v) < 1e5f);
	}
	assert_true(outliers > 5 && outliers < 60);
	for (uint64_t i = 0; i < 100000; i++) {
		int32_t v = atp_gen_int(1, 3, i);
		assert_true(v >= -(1 << 24) && v < (1 << 24));
	}
}

static struct atp_pkt mk(uint32_t bitmap, uint16_t seq, uint8_t flag)
{
	return (struct atp_pkt){.bitmap = bitmap,
	                        .num_worker = 4,
	                        .flag = flag,
	                        .app = 7,
	                        .seq = seq,
	                        .agtr = 5,
	                        .agtr2 = 20005,
	                        .key = 42,
	                        .len = 130};
}

static void vals(uint8_t *vb, int32_t base)
{
	int32_t v[62];

	for (int i = 0; i < 62; i++)
		v[i] = base + i;
	atp_values_put(vb, v, 62);
}

static void test_merge(void **state)
{
	struct atp_tensor *t = atp_tensor_new(42, 130, 4); /* 3 packets */
	uint8_t vb[248], ack[ATP_FRAME_LEN];
	struct atp_pkt h, a;
	int32_t out[62];

	(void)state;
	assert_non_null(t);
	assert_int_equal(t->npkts, 3);
	/* seq 1: complete from the switch. */
	h = mk(0xf, 1, ATP_F_DATAINDEX);
	vals(vb, 100);
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_COMPLETE);
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_DONE);
	/* seq 2: a flushed partial {0,1}, a collision from 2, a duplicate of 1, then 3. */
	h = mk(0x3, 2, ATP_F_DATAINDEX | ATP_F_RESEND);
	vals(vb, 10);
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_PARTIAL);
	h = mk(0x4, 2, ATP_F_DATAINDEX | ATP_F_COLLISION);
	vals(vb, 1);
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_PARTIAL);
	h = mk(0x2, 2, ATP_F_DATAINDEX | ATP_F_COLLISION);
	vals(vb, 1000000);
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_DUP);
	h = mk(0x6, 2, ATP_F_DATAINDEX | ATP_F_RESEND); /* overlaps: ignored entirely */
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_DUP);
	h = mk(0x8, 2, ATP_F_DATAINDEX | ATP_F_ECN | (1u << ATP_PSINDEX_SHIFT));
	vals(vb, 2);
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_COMPLETE);
	assert_true(t->st[2] & ATP_ST_COLLIDED);
	t->new_agtr[2] = 77;
	t->st[2] |= ATP_ST_REASSIGN;
	atp_tensor_ack(t, &h, 3, ATP_DEF_SCALE, ack);
	assert_int_equal(atp_frame_parse(ack, sizeof(ack), &a), 0);
	assert_int_equal(ack[0], 0x77);
	assert_int_equal(ack[5], 3);
	assert_int_equal(a.bitmap, 1);
	assert_int_equal(a.flag,
	                 ATP_F_ACK | ATP_F_COLLISION | ATP_F_ECN | (1u << ATP_PSINDEX_SHIFT));
	assert_int_equal(a.len, 77);
	assert_int_equal(a.seq, 2);
	assert_int_equal(a.agtr, 5);
	assert_int_equal(a.agtr2, 20005);
	assert_true(a.key == 42);
	atp_values_get(ack + ATP_OFF_VALUES, out, 62);
	for (int i = 0; i < 62; i++)
		assert_int_equal(out[i], 10 + 1 + 2 + 3 * i); /* 10+i, 1+i, 2+i: no 1000000 */
	/* seq 1's ACK: no collision, len kept, values copied. */
	h = mk(0xf, 1, ATP_F_DATAINDEX | ATP_F_RESEND);
	atp_tensor_ack(t, &h, 0, ATP_DEF_SCALE, ack);
	assert_int_equal(atp_frame_parse(ack, sizeof(ack), &a), 0);
	assert_int_equal(a.flag, ATP_F_ACK | ATP_F_RESEND);
	assert_int_equal(a.len, 130);
	atp_values_get(ack + ATP_OFF_VALUES, out, 62);
	assert_int_equal(out[0], 100);
	/* seq 3: ints from 0,1,2 and raw floats from 3 (overflow): the ACK carries floats. */
	float x[62], y[62];
	int32_t q[62];
	for (int i = 0; i < 62; i++)
		x[i] = 0.5f;
	assert_false(atp_float_scale(x, 62, ATP_DEF_SCALE, 4, q));
	atp_values_put(vb, q, 62);
	h = mk(0x1, 3, ATP_F_DATAINDEX | ATP_F_COLLISION);
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_PARTIAL);
	h = mk(0x6, 3, ATP_F_DATAINDEX | ATP_F_RESEND);
	for (int i = 0; i < 62; i++)
		q[i] *= 2;
	atp_values_put(vb, q, 62);
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_PARTIAL);
	x[0] = 1e6f;
	atp_floats_put(vb, x, 62);
	h = mk(0x8, 3, ATP_F_DATAINDEX | ATP_F_OVERFLOW);
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_COMPLETE);
	assert_int_equal(t->ncomplete, 3);
	atp_tensor_ack(t, &h, 0, ATP_DEF_SCALE, ack);
	assert_int_equal(atp_frame_parse(ack, sizeof(ack), &a), 0);
	assert_int_equal(a.flag, ATP_F_ACK | ATP_F_OVERFLOW);
	atp_floats_get(ack + ATP_OFF_VALUES, y, 62);
	assert_true(fabsf(y[0] - (1e6f + 1.5f)) < 0.1f);
	assert_true(fabsf(y[1] - 2.0f) < 1e-5f);
	/* Malformed: seq 0, seq past the end, bits outside the workers, no bits. */
	h = mk(0x1, 0, 0);
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_BAD);
	h = mk(0x1, 4, 0);
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_BAD);
	h = mk(0x10, 1, 0);
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_BAD);
	h = mk(0, 1, 0);
	assert_int_equal(atp_tensor_merge(t, &h, vb), ATP_MERGE_BAD);
	atp_tensor_free(t);
	assert_null(atp_tensor_new(1, 0, 4));
	assert_null(atp_tensor_new(1, 65536u * 62u, 4));
	assert_null(atp_tensor_new(1, 10, 33));
}

/* JOIN and ANNOUNCE: seq 0, the fields docs/atp.md gives, and back. */
static void test_job_frames(void **state)
{
	struct atp_join j = {.app = 2,
	                     .id = 3,
	                     .workers = 4,
	                     .nonce = 0xdeadbeef,
	                     .job = 77,
	                     .state = ATP_JOIN_STARTED},
	                j2;
	uint32_t nonces[4] = {11, 22, 33, 0x80000001u}, got[ATP_WORKERS_MAX], job;
	uint8_t f[ATP_FRAME_LEN];
	struct atp_pkt h;

	(void)state;
	atp_join_build(f, &j);
	assert_int_equal(f[0], 0x05);
	assert_int_equal(f[5], atp_wire_thread(2, 0));
	assert_int_equal(atp_frame_parse(f, sizeof(f), &h), 0);
	assert_int_equal(h.seq, 0);
	assert_int_equal(h.flag, 0);
	assert_int_equal(h.bitmap, 8);
	assert_int_equal(h.num_worker, 4);
	assert_int_equal(h.agtr, 0);
	assert_true(h.key == (uint64_t)77 << 32);
	assert_int_equal(atp_be32(f + ATP_OFF_VALUES), 0xdeadbeefu);
	assert_int_equal(atp_be32(f + ATP_OFF_VALUES + 4), ATP_JOIN_STARTED);
	assert_int_equal(atp_join_parse(&h, f + ATP_OFF_VALUES, &j2), 0);
	assert_int_equal(j2.id, 3);
	assert_int_equal(j2.nonce, 0xdeadbeefu);
	assert_int_equal(j2.job, 77);
	assert_int_equal(j2.state, ATP_JOIN_STARTED);
	assert_int_equal(atp_announce_parse(&h, f + ATP_OFF_VALUES, &job, got), -EINVAL);
	h.seq = 1; /* a data frame is no JOIN */
	assert_int_equal(atp_join_parse(&h, f + ATP_OFF_VALUES, &j2), -EINVAL);

	atp_announce_build(f, 2, 4, 0x12345678u, nonces);
	assert_int_equal(f[0], 0x77);
	assert_int_equal(atp_frame_parse(f, sizeof(f), &h), 0);
	assert_int_equal(h.seq, 0);
	assert_int_equal(h.flag, ATP_F_ACK);
	assert_int_equal(h.bitmap, 1);
	assert_int_equal(f[ATP_OFF_KEY + 4], 0x78); /* the job: the key's high half, LE */
	assert_int_equal(atp_announce_parse(&h, f + ATP_OFF_VALUES, &job, got), 0);
	assert_int_equal(job, 0x12345678u);
	assert_memory_equal(got, nonces, sizeof(nonces));
	assert_int_equal(atp_join_parse(&h, f + ATP_OFF_VALUES, &j2), -EINVAL);
}

/* The worker's side: take the first job that lists it, move before any ACK, fail after. */
static void test_member(void **state)
{
	struct atp_member m = {.id = 1, .workers = 3, .nonce = 42};
	uint32_t with[3] = {7, 42, 9}, without[3] = {7, 43, 9};

	(void)state;
	assert_int_equal(atp_member_announce(&m, 5, without, 3), ATP_ANN_IGNORE);
	assert_int_equal(m.job, 0);
	assert_int_equal(atp_member_announce(&m, 5, with, 2), ATP_ANN_IGNORE); /* other N */
	assert_int_equal(atp_member_announce(&m, 5, with, 3), ATP_ANN_TAKE);
	assert_int_equal(m.job, 5);
	assert_int_equal(atp_member_announce(&m, 5, with, 3), ATP_ANN_IGNORE); /* again */
	assert_int_equal(atp_member_announce(&m, 6, without, 3), ATP_ANN_IGNORE);
	assert_int_equal(atp_member_announce(&m, 6, with, 3), ATP_ANN_TAKE); /* no ACK yet */
	assert_int_equal(m.job, 6);
	m.acked = true;
	assert_int_equal(atp_member_announce(&m, 6, with, 3), ATP_ANN_IGNORE);
	assert_int_equal(atp_member_announce(&m, 8, with, 3), ATP_ANN_SUPERSEDED);
	assert_int_equal(atp_member_announce(&m, 9, without, 3), ATP_ANN_SUPERSEDED);
	assert_int_equal(m.job, 6);
}

static struct atp_join join_of(unsigned id, uint32_t nonce, uint32_t job)
{
	return (struct atp_join){
	        .app = 1, .id = (uint8_t)id, .workers = 4, .nonce = nonce, .job = job};
}

/*
 * The PS's side, on the sequence: workers 0-2 of a run JOIN and die before worker 3
 * starts; the next run starts at once. Its worker 3 JOINs while the dead ones still count: a job
 * forms with dead members; as the new 0-2 JOIN, jobs form again, until one of the four new
 * workers, which worker 3 (no ACK yet) follows. Every job is new, non-zero.
 */
static void test_former_dead_members(void **state)
{
	struct atp_former f;
	struct atp_member w3 = {.id = 3, .workers = 4, .nonce = 0x33};
	uint32_t jobs[8] = {0};
	unsigned n = 0;
	struct atp_join j;

	(void)state;
	atp_former_init(&f, 4, 1);
	for (unsigned i = 0; i < 3; i++) {
		j = join_of(i, 0x100 + i, 0);
		assert_int_equal(atp_former_join(&f, &j, 100 + i), ATP_FORM_NONE);
	}
	j = join_of(3, 0x33, 0);
	assert_int_equal(atp_former_join(&f, &j, 300), ATP_FORM_NEW);
	assert_int_equal(f.members[0], 0x100);
	jobs[n++] = f.job;
	assert_int_equal(atp_member_announce(&w3, f.job, f.members, 4), ATP_ANN_TAKE);
	/* Worker 3 again (a heartbeat): a member, the same job again. */
	j = join_of(3, 0x33, w3.job);
	assert_int_equal(atp_former_join(&f, &j, 350), ATP_FORM_AGAIN);
	for (unsigned i = 0; i < 3; i++) {
		j = join_of(i, 0x200 + i, 0);
		assert_int_equal(atp_former_join(&f, &j, 400 + i), ATP_FORM_NEW);
		for (unsigned k = 0; k < n; k++)
			assert_int_not_equal(f.job, jobs[k]);
		jobs[n++] = f.job;
		assert_int_equal(atp_member_announce(&w3, f.job, f.members, 4), ATP_ANN_TAKE);
	}
	assert_int_equal(f.members[0], 0x200);
	assert_int_equal(f.members[2], 0x202);
	assert_int_equal(f.members[3], 0x33);
	assert_int_equal(w3.job, f.job);
	for (unsigned k = 0; k < n; k++)
		assert_int_not_equal(jobs[k], 0);
	/* A member whose ANNOUNCE was lost JOINs again (without a job): the same job. */
	uint32_t job = f.job;
	j = join_of(1, 0x201, 0);
	assert_int_equal(atp_former_join(&f, &j, 2000), ATP_FORM_AGAIN);
	assert_int_equal(f.job, job);
	/* A new run while this one runs (its members do not JOIN): nothing until all four of it
	 * are live, then a new job that supersedes the running one. */
	j = join_of(0, 0x300, 0);
	assert_int_equal(atp_former_join(&f, &j, 3000), ATP_FORM_NONE);
	w3.acked = true;
	for (unsigned i = 1; i < 4; i++) {
		j = join_of(i, 0x300 + i, 0);
		assert_int_equal(atp_former_join(&f, &j, 3000 + i),
		                 i < 3 ? ATP_FORM_NONE : ATP_FORM_NEW);
	}
	assert_int_not_equal(f.job, job);
	assert_int_equal(atp_member_announce(&w3, f.job, f.members, 4), ATP_ANN_SUPERSEDED);
	/* Not a JOIN of this app's workers. */
	j = join_of(4, 1, 0);
	assert_int_equal(atp_former_join(&f, &j, 3010), ATP_FORM_BAD);
	j = join_of(1, 0, 0);
	assert_int_equal(atp_former_join(&f, &j, 3010), ATP_FORM_BAD);
}

/* A PS started while a job runs adopts the job its live workers all report; one that hears
 * different reports, or none, forms a new job. */
static void test_former_adopts(void **state)
{
	struct atp_former f;
	struct atp_join j;

	(void)state;
	atp_former_init(&f, 4, 2);
	for (unsigned i = 0; i < 4; i++) {
		j = join_of(i, 0x10 + i, 0xabc);
		assert_int_equal(atp_former_join(&f, &j, 10),
		                 i < 3 ? ATP_FORM_NONE : ATP_FORM_ADOPTED);
	}
	assert_int_equal(f.job, 0xabc);
	assert_true(f.adopted);
	j = join_of(2, 0x12, 0xabc);
	assert_int_equal(atp_former_join(&f, &j, 20), ATP_FORM_AGAIN);
	/* Reports that disagree: a new job. */
	atp_former_init(&f, 4, 2);
	for (unsigned i = 0; i < 4; i++) {
		j = join_of(i, 0x10 + i, i == 2 ? 0 : 0xabc);
		atp_former_join(&f, &j, 10);
	}
	assert_int_not_equal(f.job, 0xabc);
	assert_int_not_equal(f.job, 0);
	assert_false(f.adopted);
	/* A JOIN older than ATP_LIVE_MS does not count. */
	atp_former_init(&f, 2, 3);
	j = join_of(0, 5, 0);
	j.workers = 2;
	atp_former_join(&f, &j, 0);
	j = join_of(1, 6, 0);
	j.workers = 2;
	assert_int_equal(atp_former_join(&f, &j, ATP_LIVE_MS + 1), ATP_FORM_NONE);
	assert_int_equal(atp_former_join(&f, &j, ATP_LIVE_MS + 2), ATP_FORM_NONE);
	j = join_of(0, 5, 0);
	j.workers = 2;
	assert_int_equal(atp_former_join(&f, &j, ATP_LIVE_MS + 3), ATP_FORM_NEW);
}

/* A switch's sum of one position: saturating with sticky rails, as the Tofino's (and
 * inswitch's) add (docs/atp.md, Saturating add). */
static int32_t sat_sum(const int32_t *v, unsigned n)
{
	int64_t s = v[0];

	for (unsigned i = 1; i < n; i++) {
		if (s <= -INT32_MAX || s >= INT32_MAX)
			break;
		s += v[i];
		s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
	}
	return (int32_t)s;
}

enum { CK_W = 4, CK_SEQS = 3 };

/*
 * Four workers' checksums over three packets whose results are the switch's sums of in[][][]
 * (result[] replaced where given), and each worker's verdict after the check call; returns how
 * many passed; msg keeps the last failure.
 */
static unsigned ck_run(int32_t in[CK_W][CK_SEQS][ATP_VALUES], const int32_t *bad_word,
                       uint64_t covered_skew, char *msg, size_t len)
{
	struct atp_ck ck[CK_W] = {{{0}}};
	int32_t sum[6] = {0}, w[6];
	unsigned pass = 0;

	for (uint32_t s = 0; s < CK_SEQS; s++) {
		int32_t res[ATP_VALUES], col[CK_W];

		for (unsigned i = 0; i < ATP_VALUES; i++) {
			for (unsigned k = 0; k < CK_W; k++)
				col[k] = in[k][s][i];
			res[i] = sat_sum(col, CK_W);
		}
		if (bad_word && s == 1)
			res[17] = *bad_word;
		for (unsigned k = 0; k < CK_W; k++) {
			atp_ck_add(ck[k].sent, in[k][s], ATP_VALUES, 42ull << 32 | 3, s + 1);
			atp_ck_add(ck[k].got, res, ATP_VALUES, 42ull << 32 | 3, s + 1);
			for (unsigned i = 0; i < ATP_VALUES; i++)
				ck[k].rails += atp_on_rail(res[i]);
			ck[k].covered++;
		}
	}
	ck[0].covered += covered_skew;
	for (unsigned k = 0; k < CK_W; k++) {
		atp_ck_words(&ck[k], w);
		for (unsigned i = 0; i < 6; i++) {
			assert_true(w[i] >= 0 && w[i] <= 0xffff);
			sum[i] += w[i];
		}
	}
	for (unsigned k = 0; k < CK_W; k++) {
		int rc = atp_ck_verdict(&ck[k], sum, CK_W, msg, len);

		assert_true(rc == 0 || rc == -EBADMSG);
		pass += rc == 0;
	}
	return pass;
}

/*
 * The end-to-end check's arithmetic: results that are the sums pass on every worker; one wrong
 * word fails on every worker as "wrong"; a sum beyond the int32 range (the switch clamps) fails
 * as "saturated"; workers that covered different packets fail; an int32 result for a packet sent
 * as floats fails.
 */
static void test_check(void **state)
{
	static int32_t in[CK_W][CK_SEQS][ATP_VALUES];
	char msg[512] = "";
	int32_t bad;

	(void)state;
	for (unsigned k = 0; k < CK_W; k++)
		for (unsigned s = 0; s < CK_SEQS; s++)
			for (unsigned i = 0; i < ATP_VALUES; i++)
				in[k][s][i] = atp_gen_int(7, k, s * ATP_VALUES + i);
	assert_int_equal(ck_run(in, NULL, 0, msg, sizeof(msg)), CK_W);
	/* One word of one result wrong (another round's, a stale contribution): every worker. */
	bad = in[0][1][17] + in[1][1][17] + in[2][1][17] + in[3][1][17] + 1;
	assert_int_equal(ck_run(in, &bad, 0, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "result check failed: wrong"));
	/* Two values in one position whose sum passes INT32_MAX: the switch clamps. */
	in[1][2][5] = INT32_MAX - 10;
	in[2][2][5] = INT32_MAX - 10;
	assert_int_equal(ck_run(in, NULL, 0, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "result check failed: saturated: 1 elements"));
	in[1][2][5] = in[2][2][5] = 3;
	/* Exactly on the rail is a sum, and passes. */
	in[0][0][0] = INT32_MAX - 3 * (1 << 24);
	in[1][0][0] = in[2][0][0] = in[3][0][0] = 1 << 24;
	assert_int_equal(ck_run(in, NULL, 0, msg, sizeof(msg)), CK_W);
	/* A worker that covered one packet more than the others (got another's float result). */
	assert_int_equal(ck_run(in, NULL, 1, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "did not all receive int32 results"));
	/* The check's words: 16-bit halves, 32 workers' sums stay below 2^24. */
	struct atp_ck c = {.sent = {0xffffffffu, 0x12345678u}, .covered = 0x1ffff};
	int32_t w[6];
	atp_ck_words(&c, w);
	assert_int_equal(w[0], 0xffff);
	assert_int_equal(w[1], 0xffff);
	assert_int_equal(w[2], 0x5678);
	assert_int_equal(w[3], 0x1234);
	assert_int_equal(w[4], 0xffff);
	assert_int_equal(w[5], 1);
	/* Mixed: an int32 result for a packet this worker sent as floats. */
	c.mixed = 1;
	assert_int_equal(atp_ck_verdict(&c, w, 1, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, "sent as floats"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_crc32),
	        cmocka_unit_test(test_map_collision_free),
	        cmocka_unit_test(test_map_repoint),
	        cmocka_unit_test(test_map_region),
	        cmocka_unit_test(test_map_free_list),
	        cmocka_unit_test(test_frame_b9),
	        cmocka_unit_test(test_float_scale),
	        cmocka_unit_test(test_merge),
	        cmocka_unit_test(test_job_frames),
	        cmocka_unit_test(test_member),
	        cmocka_unit_test(test_former_dead_members),
	        cmocka_unit_test(test_former_adopts),
	        cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
