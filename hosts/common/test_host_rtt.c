/* SPDX-License-Identifier: BSD-3-Clause */
/* The shared retransmission timer (host_rtt.h): gains per round trip, Karn's rule, back-off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "host_rtt.h"

#define MS 1000000ull

/* A window of W answers a round trip, all 5 ms but one round trip in eight at 25 ms: with the
 * gains divided by W, rttvar keeps the slow round trips in view and srtt + 4 rttvar stays
 * above 25 ms; with RFC 6298's gains per sample (per_rtt 1) the fast window after a slow one
 * wipes them out and the timeout falls back near 5 ms. */
static void test_rtt_per_round_trip(void **state)
{
	struct host_rtt scaled = {0}, plain = {0};
	const unsigned W = 64;

	(void)state;
	for (unsigned rt = 0; rt < 199; rt++)
		for (unsigned i = 0; i < W; i++) {
			uint64_t rtt = rt % 8 == 7 ? 25 * MS : 5 * MS;
			host_rtt_sample(&scaled, rtt, W);
			host_rtt_sample(&plain, rtt, 1);
		}
	/* both end six fast round trips after a slow one */
	assert_true(host_rtt_rto(&scaled) > 15 * MS);
	assert_true(host_rtt_rto(&plain) < 6 * MS);
	assert_true(scaled.srtt > 5 * MS && scaled.srtt < 12 * MS);
}

/* The first sample sets srtt and rttvar = rtt / 2; per_rtt 1 is RFC 6298. */
static void test_rtt_first_and_rfc(void **state)
{
	struct host_rtt r = {0};

	(void)state;
	host_rtt_sample(&r, 8 * MS, 16);
	assert_int_equal(r.srtt, 8 * MS);
	assert_int_equal(r.rttvar, 4 * MS);
	host_rtt_sample(&r, 16 * MS, 1);
	assert_int_equal(r.rttvar, (3 * 4 * MS + 8 * MS) / 4);
	assert_int_equal(r.srtt, 9 * MS);
	r = (struct host_rtt){0};
	host_rtt_sample(&r, 0, 1); /* an rtt of 0 still counts as a sample */
	assert_true(r.srtt > 0);
}

/* Timeout: initial before a sample, the floor, the back-off, the cap. */
static void test_rtt_timeout(void **state)
{
	struct host_rtt r = {0};

	(void)state;
	assert_int_equal(host_rtt_timeout(&r, 250 * MS, 20 * MS, 1000 * MS, 0), 250 * MS);
	assert_int_equal(host_rtt_timeout(&r, 5 * MS, 20 * MS, 1000 * MS, 0), 20 * MS);
	host_rtt_sample(&r, 2 * MS, 1); /* srtt + 4 rttvar = 6 ms */
	assert_int_equal(host_rtt_timeout(&r, 250 * MS, 1 * MS, 1000 * MS, 0), 6 * MS);
	assert_int_equal(host_rtt_timeout(&r, 250 * MS, 20 * MS, 1000 * MS, 0), 20 * MS);
	assert_int_equal(host_rtt_timeout(&r, 250 * MS, 20 * MS, 1000 * MS, 2), 80 * MS);
	assert_int_equal(host_rtt_timeout(&r, 250 * MS, 20 * MS, 1000 * MS, 10), 1000 * MS);
	/* no overflow */
	assert_true(host_rtt_timeout(&r, 250 * MS, 20 * MS, UINT64_MAX, 200) >= UINT64_MAX / 4);
}

/* Karn's rule and the back-off: a resent packet's answer is no sample; answers to packets sent
 * before the last expiry are samples but keep the back-off; one sent after it ends it. */
static void test_rtt_karn_backoff(void **state)
{
	struct host_rtt r = {0};

	(void)state;
	assert_int_equal(host_rtt_answer(&r, 0, 5 * MS, 0, 1), 1);
	assert_int_equal(r.srtt, 5 * MS);
	host_rtt_expired(&r, 100 * MS, 3);
	host_rtt_expired(&r, 120 * MS, 3);
	assert_int_equal(r.backoff, 2);
	/* the resent packet's answer: nothing */
	assert_int_equal(host_rtt_answer(&r, 100 * MS, 130 * MS, 1, 1), 0);
	assert_int_equal(r.srtt, 5 * MS);
	assert_int_equal(r.backoff, 2);
	/* a packet sent at 90 ms, before the expiries, answered late: a sample, still backed off */
	assert_int_equal(host_rtt_answer(&r, 90 * MS, 131 * MS, 0, 1), 1);
	assert_true(r.srtt > 5 * MS);
	assert_int_equal(r.backoff, 2);
	/* one sent after the last expiry: the path answers in time again */
	assert_int_equal(host_rtt_answer(&r, 125 * MS, 132 * MS, 0, 1), 1);
	assert_int_equal(r.backoff, 0);
	/* at most max_shift doublings */
	for (int i = 0; i < 10; i++)
		host_rtt_expired(&r, 200 * MS, 3);
	assert_int_equal(r.backoff, 3);
	/* an answer no later than its send is no sample */
	assert_int_equal(host_rtt_answer(&r, 300 * MS, 300 * MS, 0, 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_rtt_per_round_trip),
	        cmocka_unit_test(test_rtt_first_and_rfc),
	        cmocka_unit_test(test_rtt_timeout),
	        cmocka_unit_test(test_rtt_karn_backoff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
