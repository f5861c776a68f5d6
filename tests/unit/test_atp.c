/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ATP pipeline's per-frame algorithm on hand-made frames: every branch of ATP's p4ml.p4
 * flattened to one pass as docs/atp.md specifies (claim, own, new, complete, duplicate complete and
 * incomplete, collision, resend owned and not owned, overflow, ACK that frees or not, ACK from a
 * wrong port), the port and app checks, saturation with sticky rails, and the ECN carry. Runs EAL
 * without hugepages or devices; results are read from the worker's transmit buffers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "atp.h"
#include "cmd.h"
#include "dp.h"
#include "isw_test.h"
#include "unit_switch.h"
#include "pipeline.h"
#include "pre.h"
#include "worker.h"

#define NPORTS 4

static struct isw_worker *w;
static struct isw_json out;

/* App 1: 3 workers behind ports 0 and 1, PS on port 3. App 2: 2 workers behind port 2, PS
 * (PSIndex 1) on port 3; PSIndex 0 unset. */
static const char *const config[] = {
        "pipeline enable atp",
        "atp app add 1 workers 3 ports 0,1 ps 3",
        "atp app add 2 workers 2 ports 2 ps1 3 ps 3",
        "atp pool resize 64",
};

static void run(const char *line, int expect_ok)
{
	isw_unit_run(&out, line, expect_ok);
}

static void tx_clear(void)
{
	isw_test_tx_clear(w);
}

static int setup(void **state)
{
	(void)state;
	w = isw_unit_up(config, RTE_DIM(config), &out);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	isw_unit_down(w, &out);
	return 0;
}

/* ---- Frames, from the documented format (docs/atp.md) ---- */

struct fr {
	uint16_t app, seq, agtr;
	uint8_t id; /* worker id: bitmap 1 << id (or bitmap if set) */
	uint32_t bitmap;
	uint8_t nw, flag, tos;
	int32_t base; /* value i = base + i */
	uint16_t len; /* 0 = 308 */
	uint32_t job; /* the key's high half */
	uint32_t tag; /* the key's low half (0: 0x42) */
};

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static struct rte_mbuf *mk(const struct fr *f, uint16_t in_port)
{
	uint8_t b[ATP_FRAME_LEN];
	memset(b, 0, sizeof(b));
	static const uint8_t dst[6] = {5, 4, 3, 2, 1, 0};
	memcpy(b, dst, 6);
	memcpy(b + 6, atp_src_mac, 6);
	atp_put16(b + 12, ATP_ETHERTYPE);
	memcpy(b + 14, atp_ip_template, 20);
	b[15] = f->tos;
	atp_put32(b + 34, f->bitmap ? f->bitmap : 1u << f->id);
	b[38] = f->nw;
	b[39] = f->flag;
	atp_put16(b + 40, f->app);
	atp_put16(b + 42, f->seq);
	atp_put16(b + 44, f->agtr);
	atp_put16(b + 46, (uint16_t)(f->agtr + ATP_AGTR_MAX));
	for (unsigned i = 0; i < ATP_VALUES; i++)
		atp_put32(b + 48 + 4 * i, (uint32_t)(f->base + (int32_t)i));
	/* key: the low half the tensor, the high half the job (little-endian) */
	uint32_t tag = f->tag ? f->tag : 0x42;
	for (unsigned i = 0; i < 4; i++)
		b[296 + i] = (uint8_t)(tag >> (8 * i));
	for (unsigned i = 0; i < 4; i++)
		b[300 + i] = (uint8_t)(f->job >> (8 * i));
	atp_put32(b + 304, 1000);
	uint16_t len = f->len ? f->len : ATP_FRAME_LEN;
	struct rte_mbuf *m = isw_test_mbuf(b, len, in_port);
	assert_non_null(m);
	return m;
}

static int feed(const struct fr *f, uint16_t in_port)
{
	return atp_process(w, mk(f, in_port));
}

static uint64_t drops(enum isw_drop d)
{
	return isw_unit_drops(w, d);
}

static const uint8_t *tx_frame(int port, unsigned i)
{
	return isw_unit_tx_frame(w, port, i);
}

static void check_values(const uint8_t *b, int32_t mul, int32_t add)
{
	for (unsigned i = 0; i < ATP_VALUES; i++)
		assert_int_equal((int32_t)get32(b + 48 + 4 * i),
		                 (int32_t)((uint32_t)mul * i + (uint32_t)add));
}

/* ---- Tests ---- */

static void test_claim_aggregate_complete(void **state)
{
	(void)state;
	struct fr f = {.app = 1, .seq = 7, .agtr = 5, .nw = 3, .base = 10};
	f.id = 0;
	assert_int_equal(feed(&f, 0), ISW_PKT_TAKEN);
	f.id = 1;
	f.base = -4;
	assert_int_equal(feed(&f, 1), ISW_PKT_TAKEN);
	assert_int_equal(w->tx[3].n, 0); /* consumed until complete */
	f.id = 2;
	f.base = 100;
	feed(&f, 0);
	/* Complete: to the PS, sums, bitmap of all three, dataIndex set, the rest as sent. */
	assert_int_equal(w->tx[3].n, 1);
	const uint8_t *b = tx_frame(3, 0);
	check_values(b, 3, 106);
	assert_int_equal(get32(b + 34), 7);
	assert_int_equal(b[39], ATP_F_DATAINDEX);
	assert_int_equal(b[296], 0x42);
	assert_int_equal(atp_be16(b + 46), 5 + ATP_AGTR_MAX);
	assert_int_equal(atp_counters[0][1].aggregated, 3);
	assert_int_equal(atp_counters[0][1].completions, 1);
	/* A duplicate of the complete aggregator is answered again with the sum. */
	f.id = 1;
	f.base = 0;
	feed(&f, 1);
	assert_int_equal(w->tx[3].n, 2);
	check_values(tx_frame(3, 1), 3, 106);
	assert_int_equal(get32(tx_frame(3, 1) + 34), 7);
	assert_int_equal(atp_counters[0][1].dup_results, 1);
}

static void test_duplicate_incomplete_dropped(void **state)
{
	(void)state;
	struct fr f = {.app = 1, .seq = 1, .agtr = 6, .nw = 3, .id = 0};
	feed(&f, 0);
	assert_int_equal(feed(&f, 0), ISW_PKT_TAKEN);
	assert_int_equal(drops(ISW_DROP_ATP_DUP), 1);
	assert_int_equal(w->tx[3].n, 0);
}

static void test_collision_and_ack(void **state)
{
	(void)state;
	/* App 1 seq 1 holds agtr 9; app 2's frame for the same agtr collides. */
	struct fr a = {.app = 1, .seq = 1, .agtr = 9, .nw = 3, .id = 0, .base = 1};
	feed(&a, 0);
	struct fr b = {.app = 2,
	               .seq = 1,
	               .agtr = 9,
	               .nw = 2,
	               .id = 1,
	               .base = 50,
	               .flag = 1 << ATP_PSINDEX_SHIFT};
	assert_int_equal(feed(&b, 2), ISW_PKT_TAKEN);
	assert_int_equal(w->tx[3].n, 1);
	const uint8_t *x = tx_frame(3, 0);
	assert_int_equal(x[39], (1 << ATP_PSINDEX_SHIFT) | ATP_F_COLLISION | ATP_F_DATAINDEX);
	check_values(x, 1, 50); /* raw values */
	assert_int_equal(get32(x + 34), 2);
	assert_int_equal(atp_counters[0][2].collisions, 1);
	tx_clear();
	/* An ACK for app 2 from its PS does not free app 1's aggregator, and reaches app 2's
	 * worker port unchanged. */
	struct fr ack = {.app = 2,
	                 .seq = 1,
	                 .agtr = 9,
	                 .nw = 2,
	                 .bitmap = 1,
	                 .flag = ATP_F_ACK | 1 << ATP_PSINDEX_SHIFT};
	assert_int_equal(feed(&ack, 3), ISW_PKT_TAKEN);
	assert_int_equal(w->tx[2].n, 1);
	assert_int_equal(w->tx[0].n + w->tx[1].n, 0);
	assert_int_equal(tx_frame(2, 0)[39], ATP_F_ACK | 1 << ATP_PSINDEX_SHIFT);
	run("atp agtr show 9", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":true,\"app\":1,\"seq\":1"));
	/* App 1's ACK frees it, multicast to both worker ports of app 1. */
	struct fr ack1 = {.app = 1, .seq = 1, .agtr = 9, .nw = 3, .bitmap = 1, .flag = ATP_F_ACK};
	feed(&ack1, 3);
	assert_int_equal(w->tx[0].n, 1);
	assert_int_equal(w->tx[1].n, 1);
	run("atp agtr show 9", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":false"));
	assert_non_null(strstr(isw_json_str(&out), "\"bitmap\":\"0x00000000\",\"count\":0"));
	/* Now app 2 can claim it. */
	tx_clear();
	b.id = 0;
	feed(&b, 2);
	assert_int_equal(w->tx[3].n, 0);
	assert_int_equal(atp_counters[0][2].aggregated, 1);
}

static void test_ack_from_wrong_port(void **state)
{
	(void)state;
	struct fr a = {.app = 1, .seq = 3, .agtr = 2, .nw = 3, .id = 0};
	feed(&a, 0);
	struct fr ack = {.app = 1, .seq = 3, .agtr = 2, .nw = 3, .bitmap = 1, .flag = ATP_F_ACK};
	assert_int_equal(feed(&ack, 0), ISW_PKT_TAKEN); /* from a worker port */
	assert_int_equal(drops(ISW_DROP_ATP_PORT), 1);
	run("atp agtr show 2", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":true"));
	/* PSIndex 1 of app 1 has no PS: its ACK cannot come from anywhere. */
	ack.flag = ATP_F_ACK | 1 << ATP_PSINDEX_SHIFT;
	feed(&ack, 3);
	assert_int_equal(drops(ISW_DROP_ATP_PORT), 2);
	assert_int_equal(w->tx[0].n + w->tx[1].n + w->tx[2].n + w->tx[3].n, 0);
}

static void test_resend_owned_flushes(void **state)
{
	(void)state;
	struct fr f = {.app = 1, .seq = 4, .agtr = 11, .nw = 3, .base = 5};
	f.id = 0;
	feed(&f, 0);
	f.id = 1;
	feed(&f, 1);
	/* Worker 2 resends: its values join the partial sum, which goes to the PS with the
	 * bitmap of all three, and the aggregator is released. */
	f.id = 2;
	f.flag = ATP_F_RESEND;
	f.base = 1;
	assert_int_equal(feed(&f, 0), ISW_PKT_TAKEN);
	const uint8_t *b = tx_frame(3, 0);
	check_values(b, 3, 11);
	assert_int_equal(get32(b + 34), 7);
	assert_int_equal(b[39], ATP_F_RESEND | ATP_F_DATAINDEX);
	run("atp agtr show 11", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":false"));
	/* A resend from a worker already counted carries the stored partial sum. */
	tx_clear();
	f.flag = 0;
	f.id = 0;
	f.base = 7;
	feed(&f, 0);
	f.flag = ATP_F_RESEND;
	f.base = 1000;
	feed(&f, 0);
	check_values(tx_frame(3, 0), 1, 7);
	assert_int_equal(get32(tx_frame(3, 0) + 34), 1);
	assert_int_equal(atp_counters[0][1].flushes, 2);
}

static void test_resend_not_owned_never_claims(void **state)
{
	(void)state;
	struct fr f = {
	        .app = 1, .seq = 5, .agtr = 12, .nw = 3, .id = 1, .base = 9, .flag = ATP_F_RESEND};
	feed(&f, 1);
	const uint8_t *b = tx_frame(3, 0);
	check_values(b, 1, 9);
	assert_int_equal(b[39], ATP_F_RESEND | ATP_F_DATAINDEX); /* no collision flag */
	run("atp agtr show 12", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":false"));
}

static void test_overflow_untouched(void **state)
{
	(void)state;
	struct fr f = {.app = 1,
	               .seq = 6,
	               .agtr = 13,
	               .nw = 3,
	               .id = 0,
	               .base = 0x41200000,
	               .flag = ATP_F_OVERFLOW};
	feed(&f, 0);
	check_values(tx_frame(3, 0), 1, 0x41200000);
	assert_int_equal(tx_frame(3, 0)[39], ATP_F_OVERFLOW | ATP_F_DATAINDEX);
	run("atp agtr show 13", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":false"));
	assert_int_equal(atp_counters[0][1].overflow, 1);
	/* An overflow ACK (not a resend) touches no aggregator, so any agtr is fine: it goes
	 * straight to the app's worker ports. */
	tx_clear();
	struct fr ack = {.app = 1,
	                 .seq = 6,
	                 .agtr = 1000,
	                 .nw = 3,
	                 .bitmap = 1,
	                 .flag = ATP_F_ACK | ATP_F_OVERFLOW};
	assert_int_equal(feed(&ack, 3), ISW_PKT_TAKEN);
	assert_int_equal(w->tx[0].n, 1);
	assert_int_equal(w->tx[1].n, 1);
	assert_int_equal(drops(ISW_DROP_ATP_AGTR), 0);
}

static void test_checks(void **state)
{
	(void)state;
	struct fr f = {.app = 3, .seq = 1, .agtr = 1, .nw = 3, .id = 0};
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_ATP_APP), 1);
	f.app = 1;
	feed(&f, 2); /* port 2 is app 2's */
	assert_int_equal(drops(ISW_DROP_ATP_PORT), 1);
	f.agtr = 64; /* pool of 64 */
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_ATP_AGTR), 1);
	f.agtr = 1;
	f.len = 307;
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_MALFORMED), 1);
	f.len = 0;
	f.app = 2; /* app 2 has no PS for PSIndex 2 */
	f.flag = 2 << ATP_PSINDEX_SHIFT;
	feed(&f, 2);
	assert_int_equal(drops(ISW_DROP_ATP_NO_PS), 1);
	/* Not ATP: the next pipeline's. */
	struct rte_mbuf *m = mk(&f, 0);
	rte_pktmbuf_mtod(m, uint8_t *)[13] = 0x01;
	assert_int_equal(atp_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
	for (int p = 0; p < NPORTS; p++)
		assert_int_equal(w->tx[p].n, 0);
}

/* The reference's saturating add with sticky rails, for one element. */
static int32_t sadd_model(int32_t cell, int32_t v)
{
	if (cell <= -INT32_MAX || cell >= INT32_MAX)
		return cell;
	int64_t s = (int64_t)cell + v;
	return (int32_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
}

static void test_saturation_sticky_rails(void **state)
{
	(void)state;
	struct fr f = {.app = 1, .seq = 8, .agtr = 20, .nw = 3};
	f.id = 0;
	f.base = INT32_MAX - 100; /* element i: INT32_MAX - 100 + i */
	feed(&f, 0);
	f.id = 1;
	f.base = 5 - 0; /* + 5 + i: elements from i = 48 clamp at INT32_MAX */
	feed(&f, 0);
	f.id = 2;
	f.base = -100; /* - 100 + i: a clamped element must stay on its rail */
	feed(&f, 0);
	const uint8_t *b = tx_frame(3, 0);
	for (int32_t i = 0; i < (int32_t)ATP_VALUES; i++) {
		int32_t want = sadd_model(sadd_model(INT32_MAX - 100 + i, 5 + i), -100 + i);
		assert_int_equal((int32_t)get32(b + 48 + 4 * i), want);
	}
	assert_int_equal((int32_t)get32(b + 48 + 4 * 61), INT32_MAX); /* stuck on the rail */
	assert_int_equal((int32_t)get32(b + 48), INT32_MAX - 195);    /* never clamped */
	/* The lower rail: -INT32_MAX sticks too, and a sum below INT32_MIN clamps. */
	tx_clear();
	struct fr g = {.app = 1, .seq = 12, .agtr = 21, .nw = 2, .id = 0, .base = -INT32_MAX};
	feed(&g, 0);
	g.id = 1;
	g.base = 50;
	feed(&g, 0);
	b = tx_frame(3, 0);
	assert_int_equal((int32_t)get32(b + 48), -INT32_MAX); /* element 0 was on the rail */
	assert_int_equal((int32_t)get32(b + 48 + 4), -INT32_MAX + 1 + 51);
}

static void test_ecn_carry(void **state)
{
	(void)state;
	struct fr f = {.app = 1, .seq = 9, .agtr = 30, .nw = 3};
	f.id = 0;
	f.tos = 3; /* IPv4 ECN = 11 on the first contribution */
	feed(&f, 0);
	f.id = 1;
	f.tos = 0;
	feed(&f, 1);
	f.id = 2;
	feed(&f, 0);
	/* The completing frame was not marked itself, but the register carries the mark. */
	assert_int_equal(tx_frame(3, 0)[39], ATP_F_ECN | ATP_F_DATAINDEX);
	assert_int_equal(tx_frame(3, 0)[15], 0); /* the IP byte is not rewritten */
	/* Without a mark nothing is set. */
	tx_clear();
	struct fr g = {.app = 1, .seq = 10, .agtr = 31, .nw = 1, .id = 0};
	feed(&g, 0);
	assert_int_equal(tx_frame(3, 0)[39], ATP_F_DATAINDEX);
}

static void test_strict_one_access(void **state)
{
	(void)state;
	struct fr f = {.app = 1, .seq = 11, .agtr = 40, .nw = 2};
	f.id = 0;
	atp_process_strict(w, mk(&f, 0));
	f.id = 1;
	atp_process_strict(w, mk(&f, 0));
	atp_process_strict(w, mk(&f, 0)); /* duplicate complete */
	f.flag = ATP_F_RESEND;
	atp_process_strict(w, mk(&f, 0));
	struct fr ack = {.app = 1, .seq = 11, .agtr = 40, .nw = 2, .bitmap = 1, .flag = ATP_F_ACK};
	atp_process_strict(w, mk(&ack, 3));
	assert_int_equal(w->pass.multi_access, 0);
}

/* `atp app del` frees the aggregators the app holds, and only those: after it, the app added
 * again claims its old aggregator afresh instead of colliding with its own stale hold. */
static void test_app_del_frees_aggregators(void **state)
{
	(void)state;
	struct fr a = {.app = 1, .seq = 7, .agtr = 5, .nw = 3, .id = 0, .base = 10};
	struct fr b = {.app = 2, .seq = 1, .agtr = 6, .nw = 2, .id = 0, .base = 20};
	feed(&a, 0);
	feed(&b, 2);
	run("atp pool show", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":2,"));
	run("atp app del 1", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"aggregators_freed\":1}"));
	run("atp pool show", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":1,"));
	run("atp agtr show 5", 1);
	const char *j = isw_json_str(&out);
	assert_non_null(strstr(j, "\"held\":false"));
	assert_non_null(strstr(j, "\"bitmap\":\"0x00000000\""));
	assert_non_null(strstr(j, "\"values\":[0,0,0,"));
	run("atp agtr show 6", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":true,\"app\":2,"));
	/* Added again: seq 8 claims aggregator 5 and aggregates from scratch. */
	run("atp app add 1 workers 3 ports 0,1 ps 3", 1);
	a.seq = 8;
	for (uint8_t id = 0; id < 3; id++) {
		a.id = id;
		feed(&a, 0);
	}
	assert_int_equal(w->tx[3].n, 1);
	check_values(tx_frame(3, 0), 3, 30);
	assert_int_equal(get32(tx_frame(3, 0) + 34), 7);
	assert_int_equal(atp_counters[0][1].collisions, 0);
}

/*
 * Job lifetimes: an aggregation older than the lease lapses, and the next claim of its
 * aggregator starts afresh, whoever held it. A job that died after worker 0's contribution to
 * seq 7 left aggregator 5 held: the next job, with the same app and seq, must not add onto it.
 */
static void test_lease_lapsed_job(void **state)
{
	(void)state;
	run("atp pool lease 100", 1);
	w->now_ms = 1000;
	struct fr f = {.app = 1, .seq = 7, .agtr = 5, .nw = 2, .id = 0, .base = 1000};
	feed(&f, 0);
	run("atp pool show", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":1,"));
	run("atp agtr show 5", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"seq\":7,\"age_ms\":"));
	w->now_ms = 1200; /* the next job, after the lease */
	f.base = 10;
	feed(&f, 0);
	f.id = 1;
	f.base = 20;
	feed(&f, 1);
	assert_int_equal(w->tx[3].n, 1);
	check_values(tx_frame(3, 0), 2, 30); /* 10 + 20, not 1000 + 20 */
	assert_int_equal(get32(tx_frame(3, 0) + 34), 3);
	assert_int_equal(atp_counters[0][1].lapsed, 1);
	assert_int_equal(drops(ISW_DROP_ATP_DUP), 0);
	tx_clear();

	/* Another key's aggregation collides while it is young, and is taken over once lapsed. */
	w->now_ms = 2000;
	struct fr g = {.app = 1, .seq = 9, .agtr = 6, .nw = 2, .id = 0, .base = 5};
	feed(&g, 0);
	struct fr h = {.app = 1, .seq = 11, .agtr = 6, .nw = 2, .id = 0, .base = 7};
	w->now_ms = 2050;
	feed(&h, 0);
	assert_int_equal(atp_counters[0][1].collisions, 1);
	assert_int_equal(w->tx[3].n, 1); /* the collision went to the PS */
	w->now_ms = 2300;
	feed(&h, 0);
	assert_int_equal(atp_counters[0][1].collisions, 1);
	assert_int_equal(atp_counters[0][1].lapsed, 2);
	run("atp agtr show 6", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"app\":1,\"seq\":11,"));

	/* A lease of 0: an aggregation never lapses (the Tofino's behaviour). */
	run("atp pool lease 0", 1);
	w->now_ms = 900000;
	feed(&g, 0);
	assert_int_equal(atp_counters[0][1].collisions, 2);
	run("atp pool show", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"lease_ms\":0,"));

	/* A job's start frees everything the app holds (seq 7's, unACKed, and seq 11's). */
	run("atp app reset 1", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"aggregators_freed\":2}"));
	run("atp pool show", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":0,"));
	run("atp app reset 5", 0);

	/* ... and names the job: job 0 after 'atp app add', then J. */
	run("atp app show 1", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"job\":0,"));
	run("atp app reset 1 job 4294967295", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"job\":4294967295}"));
	run("atp app show 1", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"job\":4294967295,\"job_started_ms_ago\":"));
	run("atp app reset 1 job 4294967296", 0);
	run("atp app reset 1 job 3 job 4", 0);
	run("atp app reset 1 jobs 3", 0);
	run("atp app reset 1 job", 0);
	run("atp app show 1", 1); /* the refused ones changed nothing */
	assert_non_null(strstr(isw_json_str(&out), "\"job\":4294967295,"));
}

/* The job of an ANNOUNCE or of 'atp app show': the number after "job": in the reply. */
static void expect_job(unsigned app, const char *job, unsigned jobs)
{
	char cmd[32], want[64];
	snprintf(cmd, sizeof(cmd), "atp app show %u", app);
	run(cmd, 1);
	snprintf(want, sizeof(want), "\"job\":%s,\"job_started_ms_ago\":", job);
	assert_non_null(strstr(isw_json_str(&out), want));
	snprintf(want, sizeof(want), "\"jobs\":%u,", jobs);
	assert_non_null(strstr(isw_json_str(&out), want));
}

/*
 * inswitch's job frames, seq 0: a JOIN (worker to PS) goes to the app's PS untouched, whatever
 * its job; an ANNOUNCE (ACK from the PS port) names its key's job the app's current job and is
 * multicast to the app's worker ports; neither touches an aggregator.
 */
static void test_job_join_announce(void **state)
{
	(void)state;
	expect_job(1, "0", 0);
	struct fr join = {.app = 1, .seq = 0, .nw = 3, .id = 2, .base = 77, .job = 99};
	assert_int_equal(feed(&join, 1), ISW_PKT_TAKEN);
	assert_int_equal(w->tx[3].n, 1);
	const uint8_t *x = tx_frame(3, 0);
	assert_int_equal(x[39], ATP_F_DATAINDEX);
	check_values(x, 1, 77);
	assert_int_equal(get32(x + 34), 4);
	assert_int_equal(atp_counters[0][1].joins, 1);
	assert_int_equal(atp_counters[0][1].pkts, 0);
	tx_clear();
	struct fr ann = {
	        .app = 1, .seq = 0, .nw = 3, .bitmap = 1, .flag = ATP_F_ACK, .job = 0xabcd};
	assert_int_equal(feed(&ann, 3), ISW_PKT_TAKEN);
	assert_int_equal(w->tx[0].n, 1);
	assert_int_equal(w->tx[1].n, 1);
	assert_int_equal(w->tx[3].n, 0);
	assert_int_equal(tx_frame(0, 0)[39], ATP_F_ACK);
	expect_job(1, "43981", 1);
	/* The same job again (a lost ANNOUNCE answered): multicast, but no new job. */
	feed(&ann, 3);
	expect_job(1, "43981", 1);
	assert_int_equal(atp_counters[0][1].announces, 2);
	/* An ANNOUNCE from a worker port is refused, and names nothing. */
	ann.job = 5;
	feed(&ann, 0);
	assert_int_equal(drops(ISW_DROP_ATP_PORT), 1);
	expect_job(1, "43981", 1);
	/* App 2's current job is its own. */
	expect_job(2, "0", 0);
	run("atp pool show", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":0,"));
}

/*
 * Once a job is named, every frame of another job is dropped (atp-job) and counted in the app's
 * drops: data, resends, ACKs (an old job's late ACK must not free the new job's aggregator) and
 * overflow frames. 'atp app reset APP job J' names a job the same way.
 */
static void test_job_check_drops(void **state)
{
	(void)state;
	struct fr ann = {.app = 1, .seq = 0, .nw = 3, .bitmap = 1, .flag = ATP_F_ACK, .job = 7};
	feed(&ann, 3);
	tx_clear();
	struct fr f = {.app = 1, .seq = 3, .agtr = 4, .nw = 3, .id = 0, .base = 1, .job = 7};
	feed(&f, 0); /* job 7 claims agtr 4 */
	f.job = 0;
	f.id = 1;
	feed(&f, 1); /* job 0: dropped */
	f.flag = ATP_F_RESEND;
	feed(&f, 1);
	f.flag = ATP_F_OVERFLOW;
	feed(&f, 1);
	struct fr ack = {.app = 1, .seq = 3, .agtr = 4, .nw = 3, .bitmap = 1, .flag = ATP_F_ACK};
	feed(&ack, 3); /* job 0's ACK: does not free job 7's claim */
	ack.flag = ATP_F_ACK | ATP_F_OVERFLOW;
	feed(&ack, 3);
	assert_int_equal(drops(ISW_DROP_ATP_JOB), 5);
	assert_int_equal(atp_counters[0][1].drops, 5);
	assert_int_equal(w->tx[0].n + w->tx[1].n + w->tx[2].n + w->tx[3].n, 0);
	run("atp agtr show 4", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":true,\"app\":1,\"seq\":3"));
	assert_non_null(strstr(isw_json_str(&out), "\"bitmap\":\"0x00000001\",\"count\":1"));
	/* Job 7's own frames go on. */
	f.job = 7;
	f.flag = 0;
	f.base = 2;
	feed(&f, 1);
	f.id = 2;
	f.base = 3;
	feed(&f, 0);
	assert_int_equal(w->tx[3].n, 1);
	check_values(tx_frame(3, 0), 3, 6);
	/* App 2 is not affected: its job is still 0. */
	struct fr g = {
	        .app = 2, .seq = 3, .agtr = 8, .nw = 2, .id = 0, .flag = 1 << ATP_PSINDEX_SHIFT};
	feed(&g, 2);
	assert_int_equal(atp_counters[0][2].aggregated, 1);
	/* The control socket names a job too (and frees what the app holds). */
	run("atp app reset 1 job 8", 1);
	expect_job(1, "8", 2);
	tx_clear();
	f.seq = 4;
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_ATP_JOB), 6);
	f.job = 8;
	feed(&f, 0);
	assert_int_equal(atp_counters[0][1].aggregated, 4);
}

/*
 * What an earlier job claimed has lapsed once the lcore adopts the next job, even within the
 * lease and in the same millisecond: the next job's frames start afresh (never adding onto it),
 * its resends do not flush it and its ACKs do not free it. Claims of the new job made in the ms of
 * the adoption are its own: they are not lapsed by its later frames.
 */
static void test_job_lapses_old_claims(void **state)
{
	(void)state;
	w->now_ms = 5000;
	struct fr old = {.app = 1, .seq = 7, .agtr = 5, .nw = 2, .id = 0, .base = 1000, .job = 1};
	struct fr old2 = {.app = 1, .seq = 8, .agtr = 6, .nw = 2, .id = 0, .base = 1000, .job = 1};
	struct fr ann = {.app = 1, .seq = 0, .nw = 2, .bitmap = 1, .flag = ATP_F_ACK, .job = 1};
	feed(&ann, 3);
	feed(&old, 0);  /* job 1: worker 0's contribution to seq 7, held (its job dies) */
	feed(&old2, 0); /* ... and to seq 8 */
	ann.job = 2;
	feed(&ann, 3); /* job 2 named, in the same ms */
	tx_clear();
	/* Job 2, same app, seq and aggregator, same ms: a fresh aggregation, not 1000 + ... */
	struct fr f = {.app = 1, .seq = 7, .agtr = 5, .nw = 2, .id = 0, .base = 10, .job = 2};
	feed(&f, 0);
	assert_int_equal(atp_counters[0][1].lapsed, 1);
	f.id = 1;
	f.base = 20;
	feed(&f, 1); /* still the same ms: adds to job 2's claim */
	assert_int_equal(atp_counters[0][1].lapsed, 1);
	assert_int_equal(w->tx[3].n, 1);
	check_values(tx_frame(3, 0), 2, 30);
	assert_int_equal(get32(tx_frame(3, 0) + 34), 3);
	tx_clear();
	/* A resend of job 2's seq 8 finds job 1's claim: not flushed, its values go raw. */
	struct fr r = {.app = 1, .seq = 8, .agtr = 6, .nw = 2, .id = 1, .base = 50, .job = 2};
	r.flag = ATP_F_RESEND;
	feed(&r, 1);
	check_values(tx_frame(3, 0), 1, 50);
	assert_int_equal(get32(tx_frame(3, 0) + 34), 2);
	assert_int_equal(atp_counters[0][1].flushes, 0);
	/* ... and job 2's ACK of seq 8 does not free it (nor count it freed). */
	struct fr ack = {.app = 1, .seq = 8, .agtr = 6, .nw = 2, .bitmap = 1, .flag = ATP_F_ACK};
	ack.job = 2;
	feed(&ack, 3);
	assert_int_equal(atp_counters[0][1].freed, 0);
	run("atp agtr show 6", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":true,\"app\":1,\"seq\":8"));
	/* A later ms: job 2's seq 8 takes the lapsed claim over and completes alone. */
	w->now_ms = 5001;
	tx_clear();
	struct fr g = {.app = 1, .seq = 8, .agtr = 6, .nw = 2, .id = 0, .base = 4, .job = 2};
	feed(&g, 0);
	g.id = 1;
	feed(&g, 1);
	assert_int_equal(atp_counters[0][1].lapsed, 2);
	check_values(tx_frame(3, 0), 2, 8);
	/* Job 2's ACK frees its own claims. */
	ack.seq = 7;
	ack.agtr = 5;
	feed(&ack, 3);
	assert_int_equal(atp_counters[0][1].freed, 1);
	/* Another app's claims do not lapse with app 1's job. */
	struct fr h = {
	        .app = 2, .seq = 9, .agtr = 9, .nw = 2, .id = 0, .flag = 1 << ATP_PSINDEX_SHIFT};
	feed(&h, 2);
	ann.job = 3;
	feed(&ann, 3);
	struct fr k = {.app = 1, .seq = 9, .agtr = 9, .nw = 2, .id = 0, .job = 3};
	tx_clear();
	feed(&k, 0);
	assert_int_equal(atp_counters[0][1].collisions, 1);
	assert_int_equal(atp_counters[0][1].lapsed, 2);
}

/* ---- Fabric levels (docs/fabric.md) ---- */

/* A root: app 1's worker ports 0 and 1 are two leaves' links; the leaves' partial sums carry
 * several worker bits. The aggregation completes when every rank is in, a partial that overlaps
 * it is never added (it would count a worker twice), and a frame that collided below goes on. */
static void test_fabric_root(void **state)
{
	(void)state;
	run("atp app fabric 1 ranks 0,1,2", 1);
	struct fr f = {.app = 1, .seq = 3, .agtr = 9, .nw = 3, .flag = ATP_F_DATAINDEX};
	f.bitmap = 0x3, f.base = 10; /* leaf A: workers 0 and 1, summed */
	feed(&f, 0);
	assert_int_equal(w->tx[3].n, 0);
	f.bitmap = 0x6, f.base = 1000; /* overlaps worker 1: not added, dropped (incomplete) */
	feed(&f, 1);
	assert_int_equal(w->tx[3].n, 0);
	assert_int_equal(drops(ISW_DROP_ATP_DUP), 1);
	f.bitmap = 0x4, f.base = 5; /* leaf B: worker 2 */
	feed(&f, 1);
	assert_int_equal(w->tx[3].n, 1);
	const uint8_t *b = tx_frame(3, 0);
	check_values(b, 2, 15);
	assert_int_equal(get32(b + 34), 7);
	/* A frame that collided at a leaf: to the PS as it is, no aggregator touched. */
	struct fr c = {.app = 1,
	               .seq = 4,
	               .agtr = 10,
	               .nw = 3,
	               .id = 2,
	               .base = 77,
	               .flag = ATP_F_COLLISION | ATP_F_DATAINDEX};
	feed(&c, 1);
	assert_int_equal(w->tx[3].n, 2);
	check_values(tx_frame(3, 1), 1, 77);
	assert_int_equal(get32(tx_frame(3, 1) + 34), 4);
	c.flag = ATP_F_DATAINDEX; /* the aggregator it names is free: the next seq claims it */
	feed(&c, 1);
	assert_int_equal(w->tx[3].n, 2);
	assert_int_equal(atp_counters[0][1].collisions, 1);
	run("atp app show 1", 1);
}

/* A leaf: app 1's workers of ranks 0 and 1 behind it (of a job of 3); its PS port is the
 * uplink. Complete when those two are in, whatever num_worker says. */
static void test_fabric_leaf(void **state)
{
	(void)state;
	run("atp app fabric 1 ranks 0,1", 1);
	struct fr f = {.app = 1, .seq = 2, .agtr = 11, .nw = 3, .id = 0, .base = 1};
	feed(&f, 0);
	assert_int_equal(w->tx[3].n, 0);
	f.id = 1, f.base = 2;
	feed(&f, 1);
	assert_int_equal(w->tx[3].n, 1);
	check_values(tx_frame(3, 0), 2, 3);
	assert_int_equal(get32(tx_frame(3, 0) + 34), 3);
	/* off: a single switch again, complete at num_worker contributions */
	run("atp app fabric 1 off", 1);
	struct fr g = {.app = 1, .seq = 5, .agtr = 12, .nw = 3, .id = 0};
	feed(&g, 0);
	g.id = 1;
	feed(&g, 1);
	assert_int_equal(w->tx[3].n, 1);
	isw_unit_refused(&out, "atp app fabric 1 ranks 3", "ERANGE");
	isw_unit_refused(&out, "atp app fabric 1 mask 3", "EINVAL");
	isw_unit_refused(&out, "atp app fabric 9 off", "ENOENT");
}

/* A single switch never adds a frame whose workers are partly in already (hosts send one bit;
 * a frame of several is a fabric's or a broken host's): the sum stays exact. */
static void test_multi_bit_overlap_single_switch(void **state)
{
	(void)state;
	struct fr f = {.app = 1, .seq = 6, .agtr = 13, .nw = 3, .id = 0, .base = 10};
	feed(&f, 0);
	f.id = 0, f.bitmap = 0x3, f.base = 500; /* worker 0 again, with worker 1 */
	feed(&f, 1);
	f.bitmap = 0;
	f.id = 1, f.base = 20;
	feed(&f, 1);
	f.id = 2, f.base = 30;
	feed(&f, 0);
	assert_int_equal(w->tx[3].n, 1);
	check_values(tx_frame(3, 0), 3, 60);
}

static void test_commands_refuse_cleanly(void **state)
{
	(void)state;
	isw_unit_refused(&out, "atp app add 1 workers 2 ports 0 ps 3", "EEXIST");
	isw_unit_refused(&out, "atp app add 4 workers 2 ports 9 ps 3", "ERANGE"); /* no port 9 */
	run("atp app add 4 workers 2 ports 0 ps 7", 0);
	isw_unit_refused(&out, "atp app add 4 workers 33 ports 0 ps 3", "ERANGE");
	isw_unit_refused(&out, "atp app add 4 workers 2 ps 3", "EINVAL");
	run("atp app add 0 workers 2 ports 0 ps 3", 0);
	run("atp pool resize 40000", 0);
	run("atp agtr show 32768", 0);
	run("atp app show", 1);
	assert_null(strstr(isw_json_str(&out), "\"app\":4"));
	run("atp app del 2", 1);
	assert_null(isw_mc_get(ATP_MC_BASE + 2));
	struct fr f = {.app = 2, .seq = 1, .agtr = 1, .nw = 2, .id = 0};
	feed(&f, 2);
	assert_int_equal(drops(ISW_DROP_ATP_APP), 1);
}

/*
 * The tensor check (docs/atp.md): a frame that comes after its seq's ACK (a late original whose
 * resend completed the seq) claims the aggregator again; the next tensor's same seq must not sum
 * into it. Its first frame takes the stale aggregation over; a resend that finds one releases it
 * without flushing it into its own tensor's.
 */
static void test_tensor_check(void **state)
{
	(void)state;
	/* Tensor A's seq 1 completed through the PS; worker 1's late original claims agtr 5. */
	struct fr late = {
	        .app = 1, .seq = 1, .agtr = 5, .nw = 3, .id = 1, .base = 1000, .tag = 0xA};
	feed(&late, 1);
	run("atp agtr show 5", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"tensor\":\"0x0000000a\""));
	/* Tensor B's seq 1: worker 0 takes it over, workers 1 and 2 join; the sum is B's alone. */
	struct fr b = {.app = 1, .seq = 1, .agtr = 5, .nw = 3, .id = 0, .base = 10, .tag = 0xB};
	feed(&b, 0);
	assert_int_equal(atp_counters[0][1].stale, 1);
	b.id = 1;
	b.base = 20;
	feed(&b, 1);
	assert_int_equal(w->tx[3].n, 0);
	b.id = 2;
	b.base = 30;
	feed(&b, 0);
	assert_int_equal(w->tx[3].n, 1);
	check_values(tx_frame(3, 0), 3, 60); /* 10 + 20 + 30, not 1000 + ... */
	assert_int_equal(get32(tx_frame(3, 0) + 34), 7);
	tx_clear();
	/* A duplicate of tensor A's seq 1 finds B's complete aggregation: taken over, never
	 * answered with B's sum. */
	late.id = 2;
	feed(&late, 0);
	assert_int_equal(w->tx[3].n, 0);
	assert_int_equal(atp_counters[0][1].stale, 2);
	/* Tensor C's resend finds A's stale claim: released, and goes on with its own values. */
	struct fr r = {.app = 1,
	               .seq = 1,
	               .agtr = 5,
	               .nw = 3,
	               .id = 0,
	               .base = 7,
	               .tag = 0xC,
	               .flag = ATP_F_RESEND};
	feed(&r, 0);
	assert_int_equal(w->tx[3].n, 1);
	check_values(tx_frame(3, 0), 1, 7);
	assert_int_equal(get32(tx_frame(3, 0) + 34), 1);
	assert_int_equal(atp_counters[0][1].stale, 3);
	assert_int_equal(atp_counters[0][1].flushes, 0);
	run("atp agtr show 5", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":false"));
}

/* The app's fields of 'atp app show APP' contain want. */
static void expect_app(unsigned app, const char *want)
{
	char cmd[32];
	snprintf(cmd, sizeof(cmd), "atp app show %u", app);
	run(cmd, 1);
	if (strstr(isw_json_str(&out), want) == NULL)
		fail_msg("'%s' not in %s", want, isw_json_str(&out));
}

/* The region note of a result (docs/memory.md, ATP): dataIndex set, bitmap = first << 16 |
 * size, agtr2 = generation. */
static void expect_note(const uint8_t *x, uint16_t gen, uint16_t first, uint16_t size)
{
	assert_true(x[39] & ATP_F_NOTE);
	assert_int_equal(get32(x + 34), (uint32_t)first << 16 | size);
	assert_int_equal(atp_be16(x + 46), gen);
}

/*
 * A region of its own under a running job (docs/memory.md, ATP): a window in flight in the
 * shared range completes there while the change runs; results carry the new region; claims in
 * the new region say which workers moved; once all have, the old range takes no claim (a frame
 * there goes to the PS as it is) but still releases (ACK, resend); it drains once no claim of
 * the app is left; a second change waits for that. Another app cannot reach the region.
 */
static void test_region_change_in_flight(void **state)
{
	(void)state;
	w->now_ms = isw_clock_ms(); /* claims dated now: none has lapsed when the drain looks */
	/* In flight in the shared range: seq 1 (agtr 5) and seq 2 (agtr 6), worker 0's. */
	struct fr a = {.app = 1, .seq = 1, .agtr = 5, .nw = 3, .id = 0, .base = 1};
	feed(&a, 0);
	struct fr b = {.app = 1, .seq = 2, .agtr = 6, .nw = 3, .id = 0, .base = 1};
	feed(&b, 0);
	run("atp app region 1 size 8", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"gen\":1,\"first_agtr\":64,\"aggregators\":8,"
	                                           "\"old_first_agtr\":0,\"old_aggregators\":64"));
	expect_app(1, "\"change\":\"moving\"");
	/* The window in flight completes in the old range. */
	a.id = 1;
	feed(&a, 1);
	a.id = 2;
	feed(&a, 0);
	assert_int_equal(w->tx[3].n, 1);
	assert_int_equal(get32(tx_frame(3, 0) + 34), 7);
	tx_clear();
	/* Its ACK frees the aggregator and tells the workers the new region. */
	struct fr ack = {.app = 1, .seq = 1, .agtr = 5, .nw = 3, .bitmap = 1, .flag = ATP_F_ACK};
	feed(&ack, 3);
	assert_int_equal(w->tx[0].n, 1);
	expect_note(tx_frame(0, 0), 1, 64, 8);
	assert_int_equal(tx_frame(0, 0)[39], ATP_F_ACK | ATP_F_NOTE);
	run("atp agtr show 5", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":false"));
	tx_clear();
	/* Workers 0 and 1 move: claims in the new region. */
	struct fr n = {.app = 1, .seq = 3, .agtr = 66, .nw = 3, .id = 0, .base = 2};
	feed(&n, 0);
	n.id = 1;
	feed(&n, 1);
	expect_app(1, "\"moved\":\"0x00000003\"");
	isw_tick_run();
	expect_app(1, "\"change\":\"moving\""); /* worker 2 has not */
	/* An aggregator in neither region: to the PS as it is, nothing claimed. */
	struct fr o = {.app = 1, .seq = 4, .agtr = 100, .nw = 3, .id = 0, .base = 3};
	feed(&o, 0);
	assert_int_equal(w->tx[3].n, 1);
	check_values(tx_frame(3, 0), 1, 3);
	assert_int_equal(get32(tx_frame(3, 0) + 34), 1);
	assert_int_equal(tx_frame(3, 0)[39], ATP_F_DATAINDEX);
	run("atp agtr show 100", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":false"));
	tx_clear();
	n.id = 2;
	feed(&n, 0);
	assert_int_equal(w->tx[3].n, 1); /* seq 3 complete in the new region */
	check_values(tx_frame(3, 0), 3, 6);
	tx_clear();
	isw_tick_run();
	/* Every worker moved; seq 2 still held in the old range: draining. */
	expect_app(1, "\"change\":\"draining\"");
	struct fr late = {.app = 1, .seq = 9, .agtr = 9, .nw = 3, .id = 1, .base = 4};
	feed(&late, 1); /* a claim in the old range: refused, to the PS */
	assert_int_equal(w->tx[3].n, 1);
	run("atp agtr show 9", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":false"));
	tx_clear();
	/* A second change waits for the drain. */
	isw_unit_refused(&out, "atp app region 1 size 4", "EBUSY");
	isw_tick_run();
	expect_app(1, "\"change\":\"draining\"");
	/* Worker 1's resend of seq 2 releases it (flushes worker 0's part to the PS). */
	b.id = 1;
	b.flag = ATP_F_RESEND;
	feed(&b, 1);
	assert_int_equal(w->tx[3].n, 1);
	assert_int_equal(get32(tx_frame(3, 0) + 34), 3);
	check_values(tx_frame(3, 0), 2, 2);
	isw_tick_run();
	expect_app(1, "\"change\":\"-\"");
	expect_app(1, "\"region_changes\":1,\"regions_drained\":1");
	/* App 2 (shared range [0, 64)) cannot reach app 1's region. */
	struct fr x = {.app = 2, .seq = 1, .agtr = 66, .nw = 2, .id = 0};
	feed(&x, 2);
	assert_int_equal(drops(ISW_DROP_ATP_AGTR), 1);
	/* Back to back: another region; the first one is held until it drains. */
	run("atp app region 1 size 4", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"gen\":2,\"first_agtr\":72,\"aggregators\":4,"
	                                           "\"old_first_agtr\":64,\"old_aggregators\":8"));
	run("budget show", 1);
	assert_non_null(strstr(isw_json_str(&out), "atp app 1 (region 1)"));
	n.agtr = 65; /* worker 0's claim in the old region while moving: taken */
	n.seq = 5;
	n.id = 0;
	feed(&n, 0);
	run("atp agtr show 65", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"held\":true,\"app\":1,\"seq\":5"));
	struct fr ack5 = {.app = 1, .seq = 5, .agtr = 65, .nw = 3, .bitmap = 1, .flag = ATP_F_ACK};
	tx_clear();
	feed(&ack5, 3);
	expect_note(tx_frame(1, 0), 2, 72, 4);
	run("atp app del 1", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"aggregators_freed\":1")); /* seq 3 */
	run("budget show", 1);
	assert_null(strstr(isw_json_str(&out), "atp app 1"));
}

/* An ANNOUNCE of an app with a region carries it (a worker that joins late starts there); an
 * app of a fabric cannot have one, nor an app with one become a fabric's level. */
static void test_region_announce_and_refusals(void **state)
{
	(void)state;
	isw_unit_refused(&out, "atp app region 1 size 0", "ERANGE");
	isw_unit_refused(&out, "atp app region 1 size 40000", "ERANGE");
	isw_unit_refused(&out, "atp app region 9 size 4", "ENOENT");
	isw_unit_refused(&out, "atp app region 1 base 70", "EINVAL");
	isw_unit_refused(&out, "atp app region 1 size 8 base 60", "ENOSPC"); /* the shared range */
	run("atp app region 1 size 8 base 200", 1);
	struct fr ann = {.app = 1, .seq = 0, .nw = 3, .bitmap = 1, .flag = ATP_F_ACK, .job = 7};
	feed(&ann, 3);
	expect_note(tx_frame(0, 0), 1, 200, 8);
	assert_int_equal(atp_counters[0][1].notes, 1);
	isw_unit_refused(&out, "atp app fabric 1 ranks 0", "EBUSY");
	run("atp app fabric 2 ranks 0", 1);
	isw_unit_refused(&out, "atp app region 2 size 8", "EBUSY");
	/* App 2 never changed: its results are as the PS sent them. */
	run("atp app fabric 2 off", 1);
	struct fr ack = {.app = 2, .seq = 1, .agtr = 3, .nw = 2, .bitmap = 1, .flag = ATP_F_ACK};
	tx_clear();
	feed(&ack, 3);
	assert_int_equal(tx_frame(2, 0)[39], ATP_F_ACK);
	assert_int_equal(get32(tx_frame(2, 0) + 34), 1);
	assert_int_equal(atp_be16(tx_frame(2, 0) + 46), 3 + ATP_AGTR_MAX);
}

int main(void)
{
	if (isw_test_eal("test-atp", NPORTS) < 0)
		return 1;
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
	        T(test_claim_aggregate_complete),
	        T(test_duplicate_incomplete_dropped),
	        T(test_collision_and_ack),
	        T(test_ack_from_wrong_port),
	        T(test_resend_owned_flushes),
	        T(test_resend_not_owned_never_claims),
	        T(test_overflow_untouched),
	        T(test_checks),
	        T(test_saturation_sticky_rails),
	        T(test_ecn_carry),
	        T(test_strict_one_access),
	        T(test_commands_refuse_cleanly),
	        T(test_fabric_root),
	        T(test_fabric_leaf),
	        T(test_multi_bit_overlap_single_switch),
	        T(test_app_del_frees_aggregators),
	        T(test_lease_lapsed_job),
	        T(test_job_join_announce),
	        T(test_job_check_drops),
	        T(test_job_lapses_old_claims),
	        T(test_tensor_check),
	        T(test_region_change_in_flight),
	        T(test_region_announce_and_refusals),
	};
	int rc = cmocka_run_group_tests_name("atp", tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
