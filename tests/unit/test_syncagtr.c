/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SyncAgtr pipeline's per-packet algorithm on hand-made packets: every branch of the algorithm
 * in docs/syncagtr.md (first, add, complete, shadow reuse, retransmission to a complete and to an
 * incomplete slot), the result packet, admission (unknown worker, wrong MAC, options, fragments),
 * malformed input (bad size, truncated, out-of-region), two sessions sharing a worker host, port
 * learning, ARP and ICMP. Runs EAL without hugepages or devices; results are read from the worker's
 * transmit buffers.
 *
 * Packets are built here from the documented format, not with the pipeline's own helpers.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "cmd.h"
#include "dp.h"
#include "isw_test.h"
#include "unit_switch.h"
#include "pipeline.h"
#include "pre.h"
#include "syncagtr.h"
#include "worker.h"

#define NPORTS 4

static struct isw_worker *w;
static struct isw_json out;

static const uint8_t SW_MAC[6] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};

/* Session 1: 10.0.0.254, 3 workers on ports 0..2, 8 slots. Session 2: 10.0.0.253, 2 workers;
 * its rank 0 is the host that is rank 2 of session 1. */
static const char *const config[] = {
        "pipeline enable syncagtr",
        "syncagtr session add 1 ip 10.0.0.254 workers 3 slots 8",
        "syncagtr worker add 1 0 mac 02:00:00:00:00:01 ip 10.0.0.1 port 0",
        "syncagtr worker add 1 1 mac 02:00:00:00:00:02 ip 10.0.0.2 port 1",
        "syncagtr worker add 1 2 mac 02:00:00:00:00:03 ip 10.0.0.3 port 2",
        "syncagtr session add 2 ip 10.0.0.253 workers 2 slots 4",
        "syncagtr worker add 2 0 mac 02:00:00:00:00:03 ip 10.0.0.3 port 2",
        "syncagtr worker add 2 1 mac 02:00:00:00:00:04 ip 10.0.0.4 port 3",
};

static void run(const char *line, int expect_ok)
{
	isw_unit_run(&out, line, expect_ok);
}

/* Runs the line; it must be refused with the error code named code. */
static void refused(const char *line, const char *code)
{
	isw_unit_refused(&out, line, code);
}

static void tx_clear(void)
{
	isw_test_tx_clear(w);
}

static int setup(void **state)
{
	(void)state;
	memset(sa_gcounters, 0, sizeof(sa_gcounters[0]));
	w = isw_unit_up(config, RTE_DIM(config), &out);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	isw_unit_down(w, &out);
	return 0;
}

/* ---- Packets, from the documented format (docs/syncagtr.md) ---- */

struct req {
	uint8_t host;  /* 02:00:00:00:00:<host>, 10.0.0.<host> */
	uint8_t sw;    /* switch IP 10.0.0.<sw> */
	unsigned size; /* size code */
	uint16_t pool;
	uint32_t tsi;
	int8_t e0, e1;
	int32_t base; /* element i = base + i */
	uint16_t sport;
	uint16_t len; /* frame length; 0 = what the size code needs */
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint16_t csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	for (size_t i = 0; i + 1 < n; i += 2)
		s += get16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)s;
}

static unsigned elems_of(unsigned size)
{
	return size == 3 ? 256 : 64;
}

static struct rte_mbuf *mk(const struct req *r, uint16_t in_port)
{
	unsigned n = elems_of(r->size);
	uint16_t len = r->len ? r->len : (uint16_t)(52 + 4 * n);
	uint8_t full[52 + 4 * 256 + 64];
	assert_true(len <= sizeof(full));
	memset(full, 0, sizeof(full));
	memcpy(full, SW_MAC, 6);
	uint8_t src[6] = {2, 0, 0, 0, 0, r->host};
	memcpy(full + 6, src, 6);
	put16(full + 12, 0x0800);
	uint8_t *ip = full + 14;
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(38 + 4 * n));
	ip[8] = 128;
	ip[9] = 17;
	put32(ip + 12, 0x0a000000u | r->host);
	put32(ip + 16, 0x0a000000u | r->sw);
	put16(ip + 10, (uint16_t)~csum(ip, 20));
	uint8_t *udp = ip + 20;
	put16(udp, r->sport ? r->sport : 4000);
	put16(udp + 2, 0xBEE0);
	put16(udp + 4, (uint16_t)(18 + 4 * n));
	uint8_t *h = udp + 8;
	h[0] = (uint8_t)(0x10 | r->size);
	h[1] = 7; /* job number */
	memcpy(h + 2, &r->tsi, 4);
	put16(h + 6, r->pool);
	h[8] = (uint8_t)r->e0;
	h[9] = (uint8_t)r->e1;
	for (unsigned i = 0; i < n; i++)
		put32(h + 10 + 4 * i, (uint32_t)(r->base + (int32_t)i));
	struct rte_mbuf *m = isw_test_mbuf(full, len, in_port);
	assert_non_null(m);
	return m;
}

static int feed(const struct req *r, uint16_t in_port)
{
	return sa_process(w, mk(r, in_port));
}

static uint64_t drops(enum isw_drop d)
{
	return isw_unit_drops(w, d);
}

/* Checks a result frame for worker host, of a request like r, with element i = sum(i). */
static void check_result(struct rte_mbuf *m, const struct req *r, uint8_t host, int32_t mul,
                         int32_t add, int8_t e0, int8_t e1, uint16_t dport)
{
	unsigned n = elems_of(r->size);
	uint8_t buf[52 + 4 * 256];
	assert_int_equal(rte_pktmbuf_pkt_len(m), 52 + 4 * n);
	const uint8_t *p = rte_pktmbuf_read(m, 0, 52 + 4 * n, buf);
	uint8_t dst[6] = {2, 0, 0, 0, 0, host};
	assert_memory_equal(p, dst, 6);
	assert_memory_equal(p + 6, SW_MAC, 6);
	const uint8_t *ip = p + 14;
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(ip[1], 0);
	assert_int_equal(get16(ip + 2), 38 + 4 * n);
	assert_int_equal(get32(ip + 4), 0);
	assert_int_equal(ip[8], 64);
	assert_int_equal(ip[9], 17);
	assert_int_equal(csum(ip, 20), 0xFFFF);
	assert_int_equal(get32(ip + 12), 0x0a000000u | r->sw);
	assert_int_equal(get32(ip + 16), 0x0a000000u | host);
	const uint8_t *udp = ip + 20;
	assert_int_equal(get16(udp), 0xBEE0);
	assert_int_equal(get16(udp + 2), dport);
	assert_int_equal(get16(udp + 4), 18 + 4 * n);
	assert_int_equal(get16(udp + 6), 0);
	const uint8_t *h = udp + 8;
	assert_int_equal(h[0], 0x10 | r->size);
	assert_int_equal(h[1], 7);
	assert_memory_equal(h + 2, &r->tsi, 4);
	assert_int_equal(get16(h + 6), r->pool & 0xBFFF);
	assert_int_equal((int8_t)h[8], e0);
	assert_int_equal((int8_t)h[9], e1);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal((int32_t)get32(h + 10 + 4 * i),
		                 (int32_t)((uint32_t)mul * (uint32_t)i + (uint32_t)add));
}

static unsigned tx_total(void)
{
	unsigned n = 0;
	for (int p = 0; p < NPORTS; p++)
		n += w->tx[p].n;
	return n;
}

/* ---- Tests ---- */

static void test_first_add_complete(void **state)
{
	(void)state;
	struct req r = {.sw = 254, .size = 1, .pool = 5, .tsi = 0x01020304, .sport = 4001};
	r.host = 1, r.base = 100, r.e0 = -3, r.e1 = 1;
	assert_int_equal(feed(&r, 0), ISW_PKT_TAKEN);
	assert_int_equal(tx_total(), 0); /* consumed */
	r.host = 2, r.base = -50, r.e0 = 2, r.e1 = -9;
	assert_int_equal(feed(&r, 1), ISW_PKT_TAKEN);
	assert_int_equal(tx_total(), 0);
	r.host = 3, r.base = 7, r.e0 = -1, r.e1 = 0;
	assert_int_equal(feed(&r, 2), ISW_PKT_TAKEN);
	/* One replica per worker, out of its port, each with its own addresses. */
	for (uint8_t host = 1; host <= 3; host++) {
		assert_int_equal(w->tx[host - 1].n, 1);
		check_result(w->tx[host - 1].pkts[0], &r, host, 3, 100 - 50 + 7, 2, 1, 4001);
	}
	assert_int_equal(w->tx[3].n, 0);
	assert_int_equal(sa_counters[0][1].completions, 1);
	assert_int_equal(sa_counters[0][1].contribs, 3);
}

static void test_first_overwrites_stale(void **state)
{
	(void)state;
	/* Stale values in set 1 of slot 2: the first contribution of a round overwrites. */
	run("register write syncagtr.values 5 0 999", 1); /* (chunk 0, slot 2, set 1) = 5 */
	struct req r = {.sw = 254, .size = 1, .pool = 0x8002, .base = 10};
	for (uint8_t h = 1; h <= 3; h++) {
		r.host = h;
		feed(&r, h - 1);
	}
	check_result(w->tx[0].pkts[0], &r, 1, 3, 30, 0, 0, 4000);
}

static void test_wraparound_add(void **state)
{
	(void)state;
	struct req r = {.sw = 254, .size = 1, .pool = 1, .base = INT32_MAX - 63};
	for (uint8_t h = 1; h <= 3; h++) {
		r.host = h;
		feed(&r, h - 1);
	}
	/* 3 * (INT32_MAX - 63 + i) wraps around: not saturated. */
	check_result(w->tx[0].pkts[0], &r, 1, 3, (int32_t)(3u * (uint32_t)(INT32_MAX - 63)), 0, 0,
	             4000);
}

static void test_retransmit_incomplete_and_complete(void **state)
{
	(void)state;
	struct req r = {.sw = 254, .size = 1, .pool = 3, .base = 1, .tsi = 42};
	r.host = 1;
	feed(&r, 0);
	/* Rank 0 again before the slot completes: dropped, counted. */
	assert_int_equal(feed(&r, 0), ISW_PKT_TAKEN);
	assert_int_equal(tx_total(), 0);
	assert_int_equal(drops(ISW_DROP_SA_RETX_PENDING), 1);
	r.host = 2;
	feed(&r, 1);
	r.host = 3;
	feed(&r, 2);
	assert_int_equal(tx_total(), 3);
	tx_clear();
	/* Rank 1 retransmits to the complete slot, from another port and UDP port: a unicast
	 * result to rank 1's addresses, out of the port it came in on, to its source port. */
	r.host = 2;
	r.sport = 4003;
	r.base = 1000; /* payload of a retransmission is ignored */
	assert_int_equal(feed(&r, 3), ISW_PKT_TAKEN);
	assert_int_equal(tx_total(), 1);
	assert_int_equal(w->tx[3].n, 1);
	check_result(w->tx[3].pkts[0], &r, 2, 3, 3, 0, 0, 4003);
	assert_int_equal(sa_counters[0][1].retx, 2);
	assert_int_equal(sa_counters[0][1].retx_results, 1);
}

static void test_shadow_reuse(void **state)
{
	(void)state;
	struct req r = {.sw = 254, .size = 1, .pool = 4, .base = 1};
	for (uint8_t h = 1; h <= 3; h++) {
		r.host = h;
		feed(&r, h - 1);
	}
	tx_clear();
	/* Round 2 in set 1 clears each worker's bit of set 0 ... */
	r.pool = 0x8004;
	r.base = 5;
	for (uint8_t h = 1; h <= 3; h++) {
		r.host = h;
		feed(&r, h - 1);
	}
	check_result(w->tx[0].pkts[0], &r, 1, 3, 15, 0, 0, 4000);
	tx_clear();
	/* ... so round 3 in set 0 is new, not a retransmission of round 1. */
	r.pool = 4;
	r.base = -2;
	r.host = 1;
	feed(&r, 0);
	assert_int_equal(tx_total(), 0);
	assert_int_equal(drops(ISW_DROP_SA_RETX_PENDING), 0);
	r.host = 2;
	feed(&r, 1);
	r.host = 3;
	feed(&r, 2);
	check_result(w->tx[2].pkts[0], &r, 3, 3, -6, 0, 0, 4000);
}

static void test_late_contribution_to_complete_round(void **state)
{
	(void)state;
	struct req r = {.sw = 254, .size = 1, .pool = 5, .base = 1};
	for (uint8_t h = 1; h <= 3; h++) {
		r.host = h;
		feed(&r, h - 1);
	}
	tx_clear();
	/* Rank 0 moves on to set 1 (clearing its set-0 bit), then its set-0 packet comes again:
	 * a new contribution to a round that completed. It starts a new count ... */
	r.host = 1;
	r.pool = 0x8005;
	feed(&r, 0);
	r.pool = 5;
	feed(&r, 0);
	assert_int_equal(tx_total(), 0);
	/* ... so rank 1's retransmission of that round is not answered with a sum that counted
	 * rank 0 twice: it waits (dropped), as with SwitchML. */
	r.host = 2;
	assert_int_equal(feed(&r, 1), ISW_PKT_TAKEN);
	assert_int_equal(tx_total(), 0);
	assert_int_equal(drops(ISW_DROP_SA_RETX_PENDING), 1);
}

static void test_256_elements(void **state)
{
	(void)state;
	struct req r = {.sw = 254, .size = 3, .pool = 6, .base = -128, .e0 = 5};
	for (uint8_t h = 1; h <= 3; h++) {
		r.host = h;
		feed(&r, h - 1);
	}
	check_result(w->tx[1].pkts[0], &r, 2, 3, -384, 5, 0, 4000);
	/* The slot's values show through slot show, all four chunks. */
	run("syncagtr slot show 1 6 elems 256", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"missing\":0"));
}

static void test_strict_one_access_per_pass(void **state)
{
	(void)state;
	w->pass.recirc_limit = 3;
	struct req r = {.sw = 254, .size = 3, .pool = 7, .base = 1};
	for (uint8_t h = 1; h <= 3; h++) {
		r.host = h;
		sa_process_strict(w, mk(&r, h - 1));
	}
	sa_process_strict(w, mk(&r, 2)); /* retransmission path */
	assert_int_equal(w->pass.multi_access, 0);
	assert_int_equal(w->pass.recirc_over, 0);
	assert_int_equal(tx_total(), 4);
}

static void test_admission(void **state)
{
	(void)state;
	struct req r = {.sw = 254, .size = 1, .pool = 0, .host = 9}; /* unknown worker */
	struct rte_mbuf *m = mk(&r, 0);
	assert_int_equal(sa_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
	r.host = 1;
	r.sw = 252; /* no such session IP */
	m = mk(&r, 0);
	assert_int_equal(sa_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
	r.sw = 253; /* host 1 is not in session 2 */
	m = mk(&r, 0);
	assert_int_equal(sa_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
	r.sw = 254;
	m = mk(&r, 0);
	rte_pktmbuf_mtod(m, uint8_t *)[5] = 0x56; /* wrong switch MAC */
	assert_int_equal(sa_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
	m = mk(&r, 0);
	rte_pktmbuf_mtod(m, uint8_t *)[14] = 0x46; /* IP options */
	assert_int_equal(sa_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
	m = mk(&r, 0);
	rte_pktmbuf_mtod(m, uint8_t *)[20] = 0x20; /* more fragments */
	assert_int_equal(sa_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
	m = mk(&r, 0);
	put16(rte_pktmbuf_mtod(m, uint8_t *) + 36, 0xBEF0); /* not 0xBEE0/0xFFF0 */
	assert_int_equal(sa_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
	/* 0xBEEF is accepted; the reply comes from it. */
	struct req q = {.sw = 254, .size = 1, .pool = 0, .base = 3};
	for (uint8_t h = 1; h <= 3; h++) {
		q.host = h;
		m = mk(&q, h - 1);
		put16(rte_pktmbuf_mtod(m, uint8_t *) + 36, 0xBEEF);
		assert_int_equal(sa_process(w, m), ISW_PKT_TAKEN);
	}
	uint8_t b2[2];
	assert_int_equal(get16(rte_pktmbuf_read(w->tx[0].pkts[0], 34, 2, b2)), 0xBEEF);
	assert_int_equal(sa_gcounters[0].unknown, 3); /* host 9, and host 1 to .252 and .253 */
	assert_int_equal(tx_total(), 3);
}

static void test_malformed(void **state)
{
	(void)state;
	struct req r = {.sw = 254, .size = 0, .pool = 0, .host = 1};
	assert_int_equal(feed(&r, 0), ISW_PKT_TAKEN); /* size 0 */
	r.size = 2;
	assert_int_equal(feed(&r, 0), ISW_PKT_TAKEN);
	r.size = 7;
	assert_int_equal(feed(&r, 0), ISW_PKT_TAKEN);
	assert_int_equal(drops(ISW_DROP_SA_SIZE), 3);
	r.size = 1;
	r.len = 307; /* one byte short of 64 elements */
	assert_int_equal(feed(&r, 0), ISW_PKT_TAKEN);
	r.size = 3;
	r.len = 308; /* a 256-element size code on a 64-element frame */
	assert_int_equal(feed(&r, 0), ISW_PKT_TAKEN);
	r.len = 51; /* shorter than the SwitchML header and exponents */
	assert_int_equal(feed(&r, 0), ISW_PKT_TAKEN);
	assert_int_equal(drops(ISW_DROP_MALFORMED), 3);
	r.size = 1;
	r.len = 0;
	r.pool = 8; /* session 1 has slots 0..7 */
	assert_int_equal(feed(&r, 0), ISW_PKT_TAKEN);
	r.pool = 0x4000 | 8; /* bit 14 is ignored, not a way past the region */
	assert_int_equal(feed(&r, 0), ISW_PKT_TAKEN);
	assert_int_equal(drops(ISW_DROP_SA_REGION), 2);
	assert_int_equal(tx_total(), 0);
	/* Nothing above touched a slot. */
	run("syncagtr slot show 1 0", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"bitmap\":\"0x00000000\""));
	/* Runts shorter than IPv4 are not SyncAgtr's to judge. */
	r.len = 30;
	struct rte_mbuf *m = mk(&r, 0);
	assert_int_equal(sa_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
}

static void test_two_sessions_isolated(void **state)
{
	(void)state;
	/* Host 3 is rank 2 of session 1 and rank 0 of session 2: same MAC and IP, the switch IP
	 * tells them apart, and the same pool index lands in different switch slots. */
	struct req a = {.sw = 254, .size = 1, .pool = 1, .host = 3, .base = 1000};
	struct req b = {.sw = 253, .size = 1, .pool = 1, .host = 3, .base = 5};
	feed(&a, 2);
	feed(&b, 2);
	b.host = 4;
	b.base = 6;
	feed(&b, 3);
	/* Session 2 completes alone: results to hosts 3 and 4, sums of its own two workers. */
	assert_int_equal(w->tx[2].n, 1);
	assert_int_equal(w->tx[3].n, 1);
	check_result(w->tx[2].pkts[0], &b, 3, 2, 11, 0, 0, 4000);
	check_result(w->tx[3].pkts[0], &b, 4, 2, 11, 0, 0, 4000);
	/* Session 1's slot 1 still holds host 3's lone contribution. */
	run("syncagtr slot show 1 1", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"bitmap\":\"0x00000004\""));
	assert_non_null(strstr(isw_json_str(&out), "\"missing\":2"));
	/* A pool index beyond session 2's 4 slots cannot reach session 1's. */
	b.pool = 5;
	feed(&b, 3);
	assert_int_equal(drops(ISW_DROP_SA_REGION), 1);
	run("budget show", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"holder\":\"syncagtr session 2\""));
}

static void test_learned_port(void **state)
{
	(void)state;
	run("syncagtr session add 3 ip 10.0.0.252 workers 2 slots 2", 1);
	run("syncagtr worker add 3 0 mac 02:00:00:00:00:05 ip 10.0.0.5 port auto", 1);
	run("syncagtr worker add 3 1 mac 02:00:00:00:00:06 ip 10.0.0.6 port 0", 1);
	/* Registering the same worker again is fine; other addresses for its rank are not. */
	run("syncagtr worker add 3 0 mac 02:00:00:00:00:05 ip 10.0.0.5 port auto", 1);
	refused("syncagtr worker add 3 0 mac 02:00:00:00:00:07 ip 10.0.0.5 port auto", "EEXIST");
	struct req r = {.sw = 252, .size = 1, .pool = 0, .host = 5, .base = 1};
	feed(&r, 3);
	r.host = 6;
	feed(&r, 0);
	/* Before the control thread folds the learned port in, only rank 1 gets the result. */
	assert_int_equal(w->tx[0].n, 1);
	assert_int_equal(tx_total(), 1);
	isw_tick_run();
	run("syncagtr session show 3", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"rank\":0,\"mac\":\"02:00:00:00:00:05\","
	                                           "\"ip\":\"10.0.0.5\",\"port\":3"));
	run("syncagtr session show", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"session\":3,\"pkts\":2,\"contributions\":2,"
	                                           "\"completions\":1"));
	tx_clear();
	r.pool = 1;
	feed(&r, 0);
	r.host = 5;
	feed(&r, 3);
	assert_int_equal(w->tx[3].n, 1);
	assert_int_equal(w->tx[0].n, 1);
	/* A new worker of that rank does not inherit the port its predecessor was seen on. */
	run("syncagtr worker del 3 0", 1);
	run("syncagtr worker add 3 0 mac 02:00:00:00:00:08 ip 10.0.0.8 port auto", 1);
	isw_tick_run();
	run("syncagtr session show 3", 1);
	assert_non_null(
	        strstr(isw_json_str(&out), "\"ip\":\"10.0.0.8\",\"port\":\"not seen yet\""));
}

/* ---- Region changes (docs/memory.md) ---- */

/* Session 3: 10.0.0.252, workers hosts 5 and 6 on ports 0 and 1, 8 slots, 2 threads (4 each). */
static void region_session(void)
{
	run("syncagtr session add 3 ip 10.0.0.252 workers 2 slots 8 threads 2", 1);
	run("syncagtr worker add 3 0 mac 02:00:00:00:00:05 ip 10.0.0.5 port 0", 1);
	run("syncagtr worker add 3 1 mac 02:00:00:00:00:06 ip 10.0.0.6 port 1", 1);
}

/* Both workers of session 3 send pool index pool, tsi tsi, elements base + i (and flags). */
static void region_round(uint16_t pool, uint32_t tsi, int32_t base, uint8_t flags)
{
	for (uint8_t h = 5; h <= 6; h++) {
		struct req r = {
		        .sw = 252, .size = 1, .pool = pool, .tsi = tsi, .base = base, .host = h};
		struct rte_mbuf *m = mk(&r, h - 5);
		rte_pktmbuf_mtod_offset(m, uint8_t *, 42)[0] |= flags;
		sa_process(w, m);
	}
}

/*
 * A result of session 3 on port: pool index pool (bit 14 echoed), elements 2 x (base + i), and
 * the region note (generation gen, boundary tsi, new slots) when slots is not 0.
 */
static void region_result(unsigned port, unsigned i, uint16_t pool, int32_t base, uint8_t gen,
                          uint32_t tsi, uint32_t slots)
{
	const uint8_t *p = isw_unit_tx_frame(w, (int)port, i);
	struct rte_mbuf *m = w->tx[port].pkts[i];
	unsigned len = 308 + (slots ? 16 : 0);
	assert_int_equal(rte_pktmbuf_pkt_len(m), len);
	assert_int_equal(get16(p + 16), len - 14); /* IPv4 total length */
	assert_int_equal(csum(p + 14, 20), 0xFFFF);
	assert_int_equal(get16(p + 38), len - 34); /* UDP length */
	assert_int_equal(get16(p + 48), pool);
	for (unsigned k = 0; k < 64; k++)
		assert_int_equal((int32_t)get32(p + 52 + 4 * k), 2 * (base + (int32_t)k));
	if (slots == 0)
		return;
	const uint8_t *n = p + 308;
	assert_int_equal(n[0], 'R');
	assert_int_equal(n[1], 'G');
	assert_int_equal(n[2], gen);
	assert_int_equal(n[3], 7); /* job number */
	assert_memory_equal(n + 4, &tsi, 4);
	assert_int_equal(get32(n + 8), slots);
	assert_int_equal(get32(n + 12), 0);
}

static void test_region_change(void **state)
{
	(void)state;
	region_session();
	/* A round completed before any change: SwitchML's result, bit 14 cleared, no note. */
	region_round(0, 0, 10, 0);
	region_result(0, 0, 0, 10, 0, 0, 0);
	tx_clear();
	/* A round in flight when the change is requested: worker 0's half before, 1's after. */
	struct req r = {.sw = 252, .size = 1, .pool = 1, .tsi = 1, .base = 20, .host = 5};
	feed(&r, 0);
	run("syncagtr session region 3 slots 16", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"gen\":1"));
	assert_non_null(strstr(isw_json_str(&out), "\"old_first_slot\":12,\"old_slots\":8"));
	r.host = 6;
	feed(&r, 1);
	/* The thread's first completion after the request sets its boundary: tsi 1 */
	region_result(0, 0, 1, 20, 1, 1, 16);
	region_result(1, 0, 1, 20, 1, 1, 16);
	tx_clear();
	/* and every later result of thread 0 says the same, whatever its own tsi */
	region_round(2, 2, 30, 0);
	region_result(0, 0, 2, 30, 1, 1, 16);
	tx_clear();
	/* a resend for the round completed before the request too (from the old slot's values) */
	r = (struct req){.sw = 252, .size = 1, .pool = 0, .tsi = 0, .base = 99, .host = 5};
	feed(&r, 0);
	region_result(0, 0, 0, 10, 1, 1, 16);
	tx_clear();
	/* Thread 1 (slots 4..7 of the old region) has a boundary of its own, set by its first
	 * completion in the old region: one in the new region (a worker ahead of itself) sets
	 * nothing and carries no note */
	region_round(SA_POOL_GEN | 8, 3, 45, 0);
	region_result(0, 0, SA_POOL_GEN | 8, 45, 0, 0, 0);
	tx_clear();
	region_round(5, 9, 40, 0);
	region_result(0, 0, 5, 40, 1, 9, 16);
	tx_clear();
	/* The new region (parity 1 in bit 14): its slot 0 is not the old region's slot 0 */
	region_round(SA_POOL_GEN | 0, 5, 50, 0);
	region_result(0, 0, SA_POOL_GEN | 0, 50, 1, 1, 16);
	tx_clear();
	region_round(1, 1, 0, 0); /* resends of the old slot 1 still answered from it */
	region_result(0, 0, 1, 20, 1, 1, 16);
	tx_clear();
	run("syncagtr session show 3", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"gen\":1,\"changing\":true"));
	assert_non_null(strstr(isw_json_str(&out), "\"boundary_job\":7,\"boundary_tsi\":1"));
	/* Another change while this one drains: refused */
	refused("syncagtr session region 3 slots 8", "EBUSY");
	/* Thread 0's workers say they hold every old result; thread 1's not yet: still changing */
	region_round(SA_POOL_GEN | 1, 6, 60, SA_FLAG_HELD);
	isw_tick_run();
	run("syncagtr session show 3", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"changing\":true"));
	/* One worker of thread 1 only: still changing */
	tx_clear();
	r = (struct req){.sw = 252, .size = 1, .pool = SA_POOL_GEN | 8, .tsi = 10, .host = 5};
	struct rte_mbuf *m = mk(&r, 0);
	rte_pktmbuf_mtod_offset(m, uint8_t *, 42)[0] |= SA_FLAG_HELD;
	sa_process(w, m);
	isw_tick_run();
	run("syncagtr session show 3", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"changing\":true"));
	r.host = 6;
	m = mk(&r, 1);
	rte_pktmbuf_mtod_offset(m, uint8_t *, 42)[0] |= SA_FLAG_HELD;
	sa_process(w, m);
	isw_tick_run();
	run("syncagtr session show 3", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"gen\":1,\"changing\":false"));
	/* Drained: the old region is given back; a late old packet meets no region */
	run("budget show", 1);
	assert_null(strstr(isw_json_str(&out), "\"holder\":\"syncagtr session 3\""));
	assert_non_null(strstr(isw_json_str(&out), "\"holder\":\"syncagtr session 3 (region 1)\""));
	tx_clear();
	r = (struct req){.sw = 252, .size = 1, .pool = 1, .tsi = 1, .host = 5};
	assert_int_equal(feed(&r, 0), ISW_PKT_TAKEN);
	assert_int_equal(tx_total(), 0);
	assert_int_equal(drops(ISW_DROP_SA_GEN), 1);
	/* After the change, results echo bit 14 and carry no note */
	region_round(SA_POOL_GEN | 2, 7, 70, SA_FLAG_HELD);
	region_result(0, 0, SA_POOL_GEN | 2, 70, 0, 0, 0);
	run("syncagtr session show", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"drop_gen\":1"));
}

static void test_region_change_refused(void **state)
{
	(void)state;
	/* No threads: the switch cannot tell the worker threads' slots apart */
	refused("syncagtr session region 1 slots 8", "EINVAL");
	region_session();
	refused("syncagtr session region 3 slots 7", "EINVAL");        /* not 2 x spt */
	refused("syncagtr session region 3 slots 8 base 0", "ENOSPC"); /* session 1's slots */
	refused("syncagtr session region 3 slots 9000", "ERANGE");
	refused("syncagtr session region 9 slots 8", "ENOENT");
	/* A refused change changed nothing: packets of the session still work the SwitchML way */
	region_round(0, 0, 1, 0);
	region_result(0, 0, 0, 1, 0, 0, 0);
	run("syncagtr session show 3", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"gen\":0,\"changing\":false"));
	/* A change to a given base; deleting the session gives back both regions */
	run("syncagtr session region 3 slots 4 base 100", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"first_slot\":100"));
	run("syncagtr session del 3", 1);
	run("budget show", 1);
	assert_null(strstr(isw_json_str(&out), "syncagtr session 3"));
}

/* A reset during a change ends it: the new region stays, the old one is given back. */
static void test_region_change_reset(void **state)
{
	(void)state;
	region_session();
	run("syncagtr session region 3 slots 16", 1);
	run("syncagtr session reset 3 keep-workers", 1);
	run("syncagtr session show 3", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"gen\":1,\"changing\":false"));
	assert_non_null(strstr(isw_json_str(&out), "\"slots\":16"));
	run("budget show", 1);
	assert_null(strstr(isw_json_str(&out), "\"holder\":\"syncagtr session 3\""));
	region_round(SA_POOL_GEN | 3, 0, 5, 0);
	region_result(1, 0, SA_POOL_GEN | 3, 5, 0, 0, 0);
}

/* "port l2": the port comes from the MAC's static l2 entry at registration, so the worker is in
 * the group before its first packet and the first completion reaches it. */
static void test_port_from_l2(void **state)
{
	(void)state;
	run("syncagtr session add 3 ip 10.0.0.252 workers 2 slots 2", 1);
	/* No entry: refused with the reason, nothing registered. */
	refused("syncagtr worker add 3 0 mac 02:00:00:00:00:05 ip 10.0.0.5 port l2",
	        "EHOSTUNREACH");
	assert_non_null(strstr(isw_json_str(&out), "02:00:00:00:00:05 has no l2 entry"));
	run("syncagtr session show 3", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"registered\":0"));
	run("l2 add 02:00:00:00:00:05 3", 1);
	run("l2 add 02:00:00:00:00:06 2", 1);
	run("syncagtr worker add 3 0 mac 02:00:00:00:00:05 ip 10.0.0.5 port l2", 1);
	run("syncagtr worker add 3 1 mac 02:00:00:00:00:06 ip 10.0.0.6 port l2", 1);
	/* Again, identical: accepted; the same worker with a port given instead: refused. */
	run("syncagtr worker add 3 0 mac 02:00:00:00:00:05 ip 10.0.0.5 port l2", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"exists\":true"));
	refused("syncagtr worker add 3 0 mac 02:00:00:00:00:05 ip 10.0.0.5 port 3", "EEXIST");
	run("syncagtr session show 3", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"ip\":\"10.0.0.5\",\"port\":3,\"auto\":false,"
	                                           "\"port_from\":\"l2\""));
	/* The very first round reaches both workers, with no control-thread tick in between. */
	struct req r = {.sw = 252, .size = 1, .pool = 0, .host = 5, .base = 1};
	feed(&r, 3);
	r.host = 6;
	feed(&r, 2);
	assert_int_equal(w->tx[3].n, 1);
	assert_int_equal(w->tx[2].n, 1);
	assert_int_equal(drops(ISW_DROP_NO_GROUP), 0);
	/* The port was read once: a later l2 change does not move a registered worker. */
	run("l2 add 02:00:00:00:00:05 1", 1);
	run("syncagtr session show 3", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"ip\":\"10.0.0.5\",\"port\":3,"));
}

static struct rte_mbuf *raw(const uint8_t *f, uint16_t len, uint16_t in_port)
{
	struct rte_mbuf *m = isw_test_mbuf(f, len, in_port);
	assert_non_null(m);
	return m;
}

static void test_arp_and_icmp(void **state)
{
	(void)state;
	uint8_t p[98];
	memset(p, 0, sizeof(p));
	memset(p, 0xff, 6);
	uint8_t src[6] = {2, 0, 0, 0, 0, 1};
	memcpy(p + 6, src, 6);
	put16(p + 12, 0x0806);
	static const uint8_t hdr[8] = {0, 1, 8, 0, 6, 4, 0, 1};
	memcpy(p + 14, hdr, 8);
	memcpy(p + 22, src, 6);
	put32(p + 28, 0x0a000001);
	put32(p + 38, 0x0a0000fd); /* who has 10.0.0.253 */
	assert_int_equal(sa_process(w, raw(p, 60, 1)), ISW_PKT_TAKEN);
	assert_int_equal(w->tx[1].n, 1);
	const uint8_t *q = rte_pktmbuf_mtod(w->tx[1].pkts[0], const uint8_t *);
	assert_memory_equal(q, src, 6);
	assert_memory_equal(q + 6, SW_MAC, 6);
	assert_int_equal(get16(q + 20), 2);
	assert_memory_equal(q + 22, SW_MAC, 6);
	assert_int_equal(get32(q + 28), 0x0a0000fd);
	assert_memory_equal(q + 32, src, 6);
	assert_int_equal(get32(q + 38), 0x0a000001);
	assert_int_equal(rte_pktmbuf_pkt_len(w->tx[1].pkts[0]), 60);

	/* ARP for an address that is no session's: not ours. */
	put32(p + 38, 0x0a000063);
	struct rte_mbuf *m = raw(p, 60, 1);
	assert_int_equal(sa_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);

	/* ICMP echo request to 10.0.0.254, with a valid checksum: a valid echo reply. */
	memset(p, 0, sizeof(p));
	memcpy(p, SW_MAC, 6);
	memcpy(p + 6, src, 6);
	put16(p + 12, 0x0800);
	p[14] = 0x45;
	put16(p + 16, 84);
	p[22] = 64;
	p[23] = 1;
	put32(p + 26, 0x0a000001);
	put32(p + 30, 0x0a0000fe);
	put16(p + 24, (uint16_t)~csum(p + 14, 20));
	p[34] = 8;
	for (int i = 42; i < 98; i++)
		p[i] = (uint8_t)i;
	put16(p + 36, (uint16_t)~csum(p + 34, 64));
	assert_int_equal(sa_process(w, raw(p, 98, 2)), ISW_PKT_TAKEN);
	assert_int_equal(w->tx[2].n, 1);
	q = rte_pktmbuf_mtod(w->tx[2].pkts[0], const uint8_t *);
	assert_memory_equal(q, src, 6);
	assert_memory_equal(q + 6, SW_MAC, 6);
	assert_int_equal(get32(q + 26), 0x0a0000fe);
	assert_int_equal(get32(q + 30), 0x0a000001);
	assert_int_equal(csum(q + 14, 20), 0xFFFF);
	assert_int_equal(q[34], 0);
	assert_int_equal(csum(q + 34, 64), 0xFFFF);
	assert_int_equal(sa_gcounters[0].arp_replies, 1);
	assert_int_equal(sa_gcounters[0].icmp_replies, 1);
}

static void test_commands_refuse_cleanly(void **state)
{
	(void)state;
	refused("syncagtr session add 4 ip 10.0.0.254 workers 2", "EADDRINUSE"); /* IP in use */
	refused("syncagtr session add 4 ip 10.0.0.9 workers 33", "ERANGE");      /* too many */
	refused("syncagtr session add 4 ip 10.0.0.9 workers 2 slots 9000", "ERANGE");
	refused("syncagtr session add 4 ip 10.0.0.9 workers 2 slots 8181",
	        "ENOSPC"); /* over budget */
	assert_non_null(strstr(isw_json_str(&out), "largest free range"));
	refused("syncagtr session add 4 ip 224.0.0.1 workers 2", "EINVAL");
	refused("syncagtr session add 65 ip 10.0.0.9 workers 2", "ERANGE");
	refused("syncagtr session add 4 ip 10.0.0.9", "EINVAL");
	refused("syncagtr session add 4 ip 10.0.0.9 workers 2 colour red", "EINVAL");
	refused("syncagtr session add 4 ip 10.0.0.9 workers 2 slots 100 threads 3",
	        "EINVAL"); /* 100 % 3 */
	refused("syncagtr session add 4 ip 10.0.0.9 workers 2 threads 65", "ERANGE");
	refused("syncagtr session add 4 ip 10.0.0.9 workers 2 worker-port 4000",
	        "EINVAL"); /* no threads */
	refused("syncagtr session add 4 ip 10.0.0.9 workers 2 threads 4 worker-port 65533",
	        "ERANGE");
	/* A session that exists is not re-created with other threads. */
	refused("syncagtr session add 1 ip 10.0.0.254 workers 3 slots 8 threads 2", "EEXIST");
	refused("syncagtr session show 4", "ENOENT");
	refused("syncagtr worker add 1 3 mac 02:00:00:00:00:09 ip 10.0.0.9 port 0",
	        "ERANGE"); /* rank */
	refused("syncagtr worker add 1 0 mac 02:00:00:00:00:09 ip 10.0.0.9 port 0",
	        "EEXIST"); /* taken */
	refused("syncagtr worker add 2 1 mac 02:00:00:00:00:03 ip 10.0.0.3 port 0",
	        "EADDRINUSE"); /* dup */
	refused("syncagtr worker add 2 1 mac 02:00:00:00:00:09 ip 10.0.0.9 port 9", "ERANGE");
	refused("syncagtr worker add 2 1 mac 00:00:00:00:00:00 ip 10.0.0.9 port 0", "EINVAL");
	assert_non_null(strstr(isw_json_str(&out), "unicast"));
	refused("syncagtr worker add 2 1 mac 01:00:5e:00:00:09 ip 10.0.0.9 port 0", "EINVAL");
	assert_non_null(strstr(isw_json_str(&out), "unicast"));
	refused("syncagtr slot show 1 8", "ERANGE");
	refused("mc group destroy 65281", "EPERM");
	refused("syncagtr switch mac 01:00:00:00:00:01", "EINVAL");
	/* None of it changed anything. */
	run("syncagtr session show", 1);
	const char *s = isw_json_str(&out);
	assert_null(strstr(s, "10.0.0.9"));
	assert_non_null(strstr(s, "\"switch_mac\":\"00:11:22:33:44:55\""));
	run("budget show", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"used\":12"));
	/* Deleting a session gives its slots back and stops its admission. */
	run("syncagtr session del 2", 1);
	run("budget show", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"used\":8"));
	struct req r = {.sw = 253, .size = 1, .pool = 0, .host = 4};
	struct rte_mbuf *m = mk(&r, 3);
	assert_int_equal(sa_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
	assert_null(isw_mc_get(SA_MC_BASE + 2));
}

static void test_reset_clears_region(void **state)
{
	(void)state;
	struct req r = {.sw = 254, .size = 1, .pool = 2, .host = 1, .base = 1};
	feed(&r, 0);
	run("syncagtr session reset 1", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"epoch\":1"));
	run("syncagtr slot show 1 2", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"bitmap\":\"0x00000000\""));
	/* After the reset and rank 0's registration in the new epoch, its packet is a first
	 * contribution again, not a retransmission. */
	run("syncagtr worker add 1 0 mac 02:00:00:00:00:01 ip 10.0.0.1 port 0", 1);
	feed(&r, 0);
	assert_int_equal(drops(ISW_DROP_SA_RETX_PENDING), 0);
	assert_int_equal(drops(ISW_DROP_SA_EPOCH), 0);
	run("syncagtr slot show 1 2", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"bitmap\":\"0x00000001\""));
}

/* The number after "key": in the last reply. */
static long reply_number(const char *key)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	const char *p = strstr(isw_json_str(&out), pat);
	assert_non_null(p);
	return strtol(p + strlen(pat), NULL, 10);
}

/*
 * The job epoch in admission: after a reset, a member registered before it is of an earlier job
 * and every packet of it is dropped (sa-epoch), on the per-packet and the burst path alike,
 * touching no register, until it registers again; another session is not affected. The
 * session's epoch_pkts counts the packets that reached its slots since the reset.
 */
static void test_epoch_admission(void **state)
{
	(void)state;
	struct req r = {.sw = 254, .size = 1, .pool = 3, .base = 1};
	r.host = 1;
	feed(&r, 0);
	run("syncagtr session show 1", 1);
	assert_int_equal(reply_number("epoch_pkts"), 1);
	run("syncagtr session reset 1", 1);
	run("syncagtr session show 1", 1);
	assert_int_equal(reply_number("epoch_pkts"), 0);
	assert_int_equal(reply_number("current"), 0);

	/* Every rank is of the earlier epoch: dropped, counted, no slot touched. */
	w->pass.recirc_limit = 3;
	for (uint8_t h = 1; h <= 3; h++) {
		r.host = h;
		assert_int_equal(sa_process_strict(w, mk(&r, h - 1)), ISW_PKT_TAKEN);
	}
	assert_int_equal(w->pass.multi_access, 0);
	assert_int_equal(tx_total(), 0);
	assert_int_equal(drops(ISW_DROP_SA_EPOCH), 3);
	assert_int_equal(sa_counters[0][1].bad_epoch, 3);
	run("syncagtr slot show 1 3", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"bitmap\":\"0x00000000\""));
	run("syncagtr session show 1", 1);
	assert_int_equal(reply_number("epoch_pkts"), 0);
	assert_int_equal(reply_number("drop_epoch"), 3);

	/* Session 2 was not reset: its workers (host 3 among them) go on. */
	struct req q = {.sw = 253, .size = 1, .pool = 0, .base = 5, .host = 3};
	assert_int_equal(feed(&q, 2), ISW_PKT_TAKEN);
	assert_int_equal(sa_counters[0][2].contribs, 1);
	assert_int_equal(drops(ISW_DROP_SA_EPOCH), 3);

	/* Rank 0 registers again (the same line: exists), and is admitted; ranks 1 and 2, not yet
	 * registered again, are still dropped, through the burst path too. */
	run("syncagtr worker add 1 0 mac 02:00:00:00:00:01 ip 10.0.0.1 port 0", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"exists\":true"));
	struct rte_mbuf *b[3];
	for (uint8_t h = 1; h <= 3; h++) {
		r.host = h;
		b[h - 1] = mk(&r, h - 1);
	}
	assert_int_equal(sa_process_burst(w, b, 3), 3);
	assert_int_equal(drops(ISW_DROP_SA_EPOCH), 5);
	assert_int_equal(tx_total(), 0);
	run("syncagtr slot show 1 3", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"bitmap\":\"0x00000001\""));
	run("syncagtr session show 1", 1);
	assert_int_equal(reply_number("epoch_pkts"), 1);
	assert_int_equal(reply_number("current"), 1);

	/* Registered again, they complete the round with their own values, nothing of the
	 * earlier epoch's packets in it. */
	run("syncagtr worker add 1 1 mac 02:00:00:00:00:02 ip 10.0.0.2 port 1", 1);
	run("syncagtr worker add 1 2 mac 02:00:00:00:00:03 ip 10.0.0.3 port 2", 1);
	for (uint8_t h = 2; h <= 3; h++) {
		r.host = h;
		feed(&r, h - 1);
	}
	assert_int_equal(tx_total(), 3);
	check_result(w->tx[0].pkts[0], &r, 1, 3, 3, 0, 0, 4000);
	assert_int_equal(drops(ISW_DROP_SA_EPOCH), 5);
	run("syncagtr session show 1", 1);
	assert_int_equal(reply_number("epoch_pkts"), 3);
}

/* keep-workers: the members registered before the reset are carried into the new epoch (for
 * workers registered by hand); anything else after the ID is refused and changes nothing. */
static void test_reset_keep_workers(void **state)
{
	(void)state;
	run("syncagtr session reset 1 keep", 0);
	run("syncagtr session reset 1 keep-workers extra", 0);
	run("syncagtr session show 1", 1);
	assert_int_equal(reply_number("epoch"), 0);
	run("syncagtr session reset 1 keep-workers", 1);
	run("syncagtr session show 1", 1);
	assert_int_equal(reply_number("epoch"), 1);
	assert_int_equal(reply_number("current"), 3);
	struct req r = {.sw = 254, .size = 1, .pool = 1, .base = 2};
	for (uint8_t h = 1; h <= 3; h++) {
		r.host = h;
		feed(&r, h - 1);
	}
	assert_int_equal(drops(ISW_DROP_SA_EPOCH), 0);
	check_result(w->tx[1].pkts[0], &r, 2, 3, 6, 0, 0, 4000);
}

/* ---- Two levels (docs/fabric.md): session 2 as a leaf under a parent switch on port 0 ---- */

static const uint8_t PARENT_MAC[6] = {0x02, 0x00, 0x00, 0x00, 0x01, 0xfe};
#define UP_IP     0x0a000102u /* 10.0.1.2: this switch as the parent's worker */
#define PARENT_IP 0x0a0001feu /* 10.0.1.254: the parent session's switch IP */

static void uplink_on(void)
{
	run("syncagtr session uplink 2 port 0 ip 10.0.1.2 parent-ip 10.0.1.254 "
	    "parent-mac 02:00:00:00:01:fe",
	    1);
}

/* The parent's result for a request like r (element i = base + i, exponents e0, e1): from the
 * parent's MAC and session IP to this switch's uplink IP, UDP from the SwitchML port to the
 * workers' port (the parent swapped the ports of what this switch sent up). */
static struct rte_mbuf *mk_parent_result(const struct req *r)
{
	struct rte_mbuf *m = mk(r, 0);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(p + 6, PARENT_MAC, 6);
	uint8_t *ip = p + 14;
	put32(ip + 12, PARENT_IP);
	put32(ip + 16, UP_IP);
	put16(ip + 10, 0);
	put16(ip + 10, (uint16_t)~csum(ip, 20));
	put16(ip + 20, 0xBEE0);
	put16(ip + 22, r->sport ? r->sport : 4000);
	return m;
}

/* Checks what went up: from this switch to the parent, the workers' UDP ports, the request's
 * tsi and pool index, element i = mul * i + add, the exponent maxima. */
static void check_up(struct rte_mbuf *m, const struct req *r, int32_t mul, int32_t add, int8_t e0)
{
	unsigned n = elems_of(r->size);
	uint8_t buf[52 + 4 * 256];
	const uint8_t *p = rte_pktmbuf_read(m, 0, 52 + 4 * n, buf);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 52 + 4 * n);
	assert_memory_equal(p, PARENT_MAC, 6);
	assert_memory_equal(p + 6, SW_MAC, 6);
	const uint8_t *ip = p + 14;
	assert_int_equal(csum(ip, 20), 0xFFFF);
	assert_int_equal(get32(ip + 12), UP_IP);
	assert_int_equal(get32(ip + 16), PARENT_IP);
	assert_int_equal(get16(ip + 20), r->sport ? r->sport : 4000);
	assert_int_equal(get16(ip + 22), 0xBEE0);
	const uint8_t *h = ip + 28;
	assert_int_equal(h[0], 0x10 | r->size);
	assert_memory_equal(h + 2, &r->tsi, 4);
	assert_int_equal(get16(h + 6), r->pool & 0xBFFF);
	assert_int_equal((int8_t)h[8], e0);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal((int32_t)get32(h + 10 + 4 * i),
		                 (int32_t)((uint32_t)mul * (uint32_t)i + (uint32_t)add));
}

static void test_uplink_round(void **state)
{
	(void)state;
	uplink_on();
	/* Session 2: rank 0 is host 3 (port 2), rank 1 host 4 (port 3). */
	struct req r = {.sw = 253, .size = 1, .pool = 0x8001, .tsi = 77, .sport = 4002};
	r.host = 3, r.base = 10, r.e0 = 1;
	feed(&r, 2);
	assert_int_equal(tx_total(), 0);
	r.host = 4, r.base = 20, r.e0 = 3;
	feed(&r, 3);
	/* Complete here: one packet up, none to the workers. */
	assert_int_equal(tx_total(), 1);
	assert_int_equal(w->tx[0].n, 1);
	check_up(w->tx[0].pkts[0], &r, 2, 30, 3);
	tx_clear();
	/* A worker resends before the parent answers: the partial sum goes up again, from the
	 * slot (not the resend's own values). */
	r.host = 3, r.base = 999, r.e0 = 1;
	feed(&r, 2);
	assert_int_equal(w->tx[0].n, 1);
	check_up(w->tx[0].pkts[0], &r, 2, 30, 3);
	tx_clear();
	/* The parent's answer for another round (tsi): dropped, counted. */
	struct req res = r;
	res.host = 3, res.tsi = 78, res.base = 1000, res.e0 = 5, res.e1 = -2;
	assert_int_equal(sa_process(w, mk_parent_result(&res)), ISW_PKT_TAKEN);
	assert_int_equal(tx_total(), 0);
	assert_int_equal(drops(ISW_DROP_SA_UP_STALE), 1);
	/* Its answer for this round: the result of both workers, from session 2's IP, to the
	 * workers' port, with the parent's sums and exponents. */
	res.tsi = 77;
	assert_int_equal(sa_process(w, mk_parent_result(&res)), ISW_PKT_TAKEN);
	assert_int_equal(tx_total(), 2);
	check_result(w->tx[2].pkts[0], &res, 3, 1, 1000, 5, -2, 4002);
	check_result(w->tx[3].pkts[0], &res, 4, 1, 1000, 5, -2, 4002);
	tx_clear();
	/* Again (a duplicate): dropped, counted, no second result. */
	assert_int_equal(sa_process(w, mk_parent_result(&res)), ISW_PKT_TAKEN);
	assert_int_equal(tx_total(), 0);
	assert_int_equal(drops(ISW_DROP_SA_UP_DUP), 1);
	/* A worker that lost its result resends: answered here with the parent's result. */
	r.host = 4, r.base = 20, r.e0 = 3;
	feed(&r, 3);
	assert_int_equal(w->tx[3].n, 1);
	check_result(w->tx[3].pkts[0], &res, 4, 1, 1000, 5, -2, 4002);
	tx_clear();
	/* The next round of the slot's other set starts clean; this set's state stays final. */
	struct req r2 = {.sw = 253, .size = 1, .pool = 1, .tsi = 79, .sport = 4002, .base = 1};
	r2.host = 3;
	feed(&r2, 2);
	r2.host = 4;
	feed(&r2, 3);
	assert_int_equal(w->tx[0].n, 1);
	check_up(w->tx[0].pkts[0], &r2, 2, 2, 0);
	assert_int_equal(sa_counters[0][2].up_sent, 2);
	assert_int_equal(sa_counters[0][2].up_resent, 1);
	assert_int_equal(sa_counters[0][2].up_results, 1);
	assert_int_equal(sa_counters[0][2].up_stale, 1);
	assert_int_equal(sa_counters[0][2].up_dup, 1);
	/* Session 1 (no uplink) is untouched by any of it. */
	assert_int_equal(sa_counters[0][1].pkts, 0);
}

/* The parent's results are recognised by their addresses and source port only: the same frame
 * from another MAC or to another IP is not the parent's, and a worker's own frame to the
 * SwitchML port of the uplink IP is not a result. */
static void test_uplink_admission(void **state)
{
	(void)state;
	uplink_on();
	struct req r = {.sw = 253, .size = 1, .pool = 2, .tsi = 5, .base = 1};
	r.host = 3;
	feed(&r, 2);
	r.host = 4;
	feed(&r, 3);
	tx_clear();
	struct rte_mbuf *m = mk_parent_result(&r);
	rte_pktmbuf_mtod(m, uint8_t *)[11] = 0x77; /* another source MAC */
	assert_int_equal(sa_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
	m = mk_parent_result(&r);
	put16(rte_pktmbuf_mtod(m, uint8_t *) + 34, 4000); /* not from the SwitchML port */
	assert_int_equal(sa_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
	assert_int_equal(tx_total(), 0);
	assert_int_equal(sa_counters[0][2].up_results, 0);
	assert_int_equal(sa_process(w, mk_parent_result(&r)), ISW_PKT_TAKEN);
	assert_int_equal(sa_counters[0][2].up_results, 1);
}

/* A leaf's paths keep to one access per register array per pass, as a Tofino's stages would
 * (docs/fabric.md, What each switch does): 256-value packets, each chunk a pass. */
static void test_uplink_strict(void **state)
{
	(void)state;
	uplink_on();
	w->pass.recirc_limit = 3;
	struct req r = {.sw = 253, .size = 3, .pool = 3, .tsi = 9, .base = 1};
	r.host = 3;
	sa_process_strict(w, mk(&r, 2)); /* first: the round opens */
	r.host = 4;
	sa_process_strict(w, mk(&r, 3));            /* completes: up */
	sa_process_strict(w, mk(&r, 3));            /* resend, round open: up again */
	sa_process_strict(w, mk_parent_result(&r)); /* the parent's result: final */
	sa_process_strict(w, mk(&r, 3));            /* resend, round final: answered here */
	assert_int_equal(w->pass.multi_access, 0);
	assert_int_equal(w->pass.recirc_over, 0);
	assert_int_equal(sa_counters[0][2].up_sent, 1);
	assert_int_equal(sa_counters[0][2].up_resent, 1);
	assert_int_equal(sa_counters[0][2].up_results, 1);
	assert_int_equal(tx_total(), 2 + 2 + 1);
}

static void test_uplink_commands(void **state)
{
	(void)state;
	refused("syncagtr session uplink 2 port 9 ip 10.0.1.2 parent-ip 10.0.1.254 "
	        "parent-mac 02:00:00:00:01:fe",
	        "ERANGE");
	refused("syncagtr session uplink 2 port 0 ip 10.0.1.2 parent-ip 10.0.1.254 "
	        "parent-mac 00:11:22:33:44:55",
	        "EINVAL");
	refused("syncagtr session uplink 2 port 0 ip 10.0.0.254 parent-ip 10.0.1.254 "
	        "parent-mac 02:00:00:00:01:fe",
	        "EADDRINUSE");
	refused("syncagtr session uplink 2 port 0 ip 10.0.1.2 parent-ip 10.0.0.254 "
	        "parent-mac 02:00:00:00:01:fe",
	        "EINVAL"); /* session 1's IP: the parent is another switch */
	refused("syncagtr session uplink 2 port 0 ip 10.0.1.2", "EINVAL");
	refused("syncagtr session uplink 9 off", "ENOENT");
	uplink_on();
	run("syncagtr session show 2", 1);
	/* the parent is not a worker of the session it serves */
	run("syncagtr worker del 2 1", 1);
	refused("syncagtr worker add 2 1 mac 02:00:00:00:01:fe ip 10.0.1.254 port 3", "EADDRINUSE");
	run("syncagtr worker add 2 1 mac 02:00:00:00:00:04 ip 10.0.0.4 port 3", 1);
	/* Traffic in the epoch: no change until a reset. */
	struct req r = {.sw = 253, .size = 1, .pool = 0, .host = 3};
	feed(&r, 2);
	refused("syncagtr session uplink 2 off", "EBUSY");
	uplink_on(); /* the same setting again is not a change */
	run("syncagtr session reset 2 keep-workers", 1);
	run("syncagtr session uplink 2 off", 1);
}

int main(void)
{
	if (isw_test_eal("test-syncagtr", NPORTS) < 0)
		return 1;
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
	        T(test_first_add_complete),
	        T(test_first_overwrites_stale),
	        T(test_wraparound_add),
	        T(test_retransmit_incomplete_and_complete),
	        T(test_shadow_reuse),
	        T(test_late_contribution_to_complete_round),
	        T(test_256_elements),
	        T(test_strict_one_access_per_pass),
	        T(test_admission),
	        T(test_malformed),
	        T(test_two_sessions_isolated),
	        T(test_learned_port),
	        T(test_port_from_l2),
	        T(test_arp_and_icmp),
	        T(test_commands_refuse_cleanly),
	        T(test_reset_clears_region),
	        T(test_epoch_admission),
	        T(test_reset_keep_workers),
	        T(test_uplink_round),
	        T(test_uplink_admission),
	        T(test_uplink_strict),
	        T(test_uplink_commands),
	        T(test_region_change),
	        T(test_region_change_refused),
	        T(test_region_change_reset),
	};
	int rc = cmocka_run_group_tests_name("syncagtr", tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
