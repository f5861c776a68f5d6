/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Egress shaping with ECN: the queue limit and its counted drops, marking at and above the
 * threshold (IPv4 CE with a valid checksum, ATP's flag through the marker atp registers, shared
 * buffers left alone), and the rate: what leaves after a given time is what the rate allows.
 * Time is driven by the test through isw_shape_run()'s clock argument.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "atp_proto.h"
#include "dp.h"
#include "isw_test.h"
#include "shaper.h"
#include "worker.h"

static struct isw_worker *w;
static struct isw_port_conf pconf;

static int setup(void **state)
{
	(void)state;
	w = isw_test_worker();
	assert_non_null(w);
	memset(&pconf, 0, sizeof(pconf));
	w->pconf = &pconf; /* the tests set shaping directly, without RCU */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	isw_test_tx_clear(w);
	rte_free(w);
	return 0;
}

static uint16_t csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)s;
}

/* An IPv4 frame of len bytes with a valid header checksum (or an ATP frame). */
static struct rte_mbuf *frame(uint16_t len, bool atp)
{
	uint8_t b[1500];
	memset(b, 0, sizeof(b));
	b[12] = atp ? 0x07 : 0x08;
	memcpy(b + 14, atp_ip_template, 20);
	if (!atp) {
		b[15] = 0x02; /* ECT(0) */
		b[24] = b[25] = 0;
		uint16_t c = (uint16_t)~csum(b + 14, 20);
		b[24] = (uint8_t)(c >> 8);
		b[25] = (uint8_t)c;
	}
	struct rte_mbuf *m = isw_test_mbuf(b, len, 0);
	assert_non_null(m);
	return m;
}

static void test_queue_limit_and_marks(void **state)
{
	(void)state;
	pconf.shape[1] =
	        (struct isw_shape_cfg){.on = true, .rate_bps = 8000, .queue = 10, .ecn = 4};
	for (int i = 0; i < 12; i++)
		isw_tx_buffer(w, 1, frame(100, false));
	/* 10 queued (the rate let none out yet), 2 dropped, marked from depth 4: 6 packets. */
	assert_int_equal(w->shape[1].n, 10);
	assert_int_equal(w->stats.port[1].queue_drops, 2);
	assert_int_equal(w->stats.pipeline[0].drops[ISW_DROP_QUEUE_FULL], 2);
	assert_int_equal(w->stats.port[1].ecn_marked, 6);
	assert_int_equal(w->tx[1].n, 0);
	for (unsigned i = 0; i < 10; i++) {
		const uint8_t *ip = rte_pktmbuf_mtod(w->shape[1].q[i], const uint8_t *) + 14;
		assert_int_equal(ip[1] & 3, i >= 4 ? 3 : 2);
		assert_int_equal(csum(ip, 20), 0xFFFF);
	}
	/* Forced (shutdown): everything leaves. */
	assert_int_equal(isw_shape_run(w, rte_get_tsc_cycles(), true), 0);
	assert_int_equal(w->tx[1].n, 10);
}

static void test_atp_mark_and_shared(void **state)
{
	(void)state;
	pconf.shape[1] =
	        (struct isw_shape_cfg){.on = true, .rate_bps = 8000, .queue = 10, .ecn = 0};
	struct rte_mbuf *m = frame(ATP_FRAME_LEN, true);
	assert_false(isw_ecn_mark(m) == false); /* the atp pipeline registered its marker */
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_int_equal(b[15] & 3, 3);
	assert_int_equal(csum(b + 14, 20), 0xFFFF); /* the template's checksum stays valid */
	assert_int_equal(b[ATP_OFF_HDR + 5], ATP_F_ECN);
	/* A buffer shared with another mbuf is not written. */
	struct rte_mbuf *c = rte_pktmbuf_clone(m, isw_dp.pool);
	assert_false(isw_ecn_mark(m));
	rte_pktmbuf_free(c);
	rte_pktmbuf_free(m);
	/* No mark for frames that are neither IPv4 nor registered. */
	m = frame(100, false);
	rte_pktmbuf_mtod(m, uint8_t *)[12] = 0x86;
	assert_false(isw_ecn_mark(m));
	rte_pktmbuf_free(m);
}

static void test_rate(void **state)
{
	(void)state;
	/* 1 Mbit/s of 1000-byte frames: 125 per second, one per 8 ms. */
	pconf.shape[1] = (struct isw_shape_cfg){.on = true, .rate_bps = 1000000, .queue = 100};
	uint64_t hz = rte_get_tsc_hz();
	uint64_t t = rte_get_tsc_cycles();
	isw_shape_run(w, t, false); /* nothing queued: no effect */
	for (int i = 0; i < 100; i++)
		isw_tx_buffer(w, 1, frame(1000, false));
	w->shape[1].last = t;
	w->shape[1].tokens = 0;
	unsigned sent = 0;
	/* 400 ms in steps of 1 ms: 50 frames, give or take the one in progress. */
	for (int ms = 1; ms <= 400; ms++) {
		isw_shape_run(w, t + hz / 1000 * (uint64_t)ms, false);
		sent += w->tx[1].n;
		for (unsigned i = 0; i < w->tx[1].n; i++)
			rte_pktmbuf_free(w->tx[1].pkts[i]);
		w->tx[1].n = 0;
	}
	assert_in_range(sent, 49, 50);
	/* A stall longer than the bucket (20 ms) does not release more than 20 ms worth. */
	isw_shape_run(w, t + hz, false);
	assert_in_range(w->tx[1].n, 2, 4);
}

int main(void)
{
	if (isw_test_eal("test-shaper", 2) < 0)
		return 1;
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_queue_limit_and_marks, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_atp_mark_and_shared, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_rate, setup, teardown),
	};
	int rc = cmocka_run_group_tests_name("shaper", tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
