/* SPDX-License-Identifier: BSD-3-Clause */
/* The aggregator-memory planner (dataplane/alloc_plan.c): model, policies, placement. */

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "alloc_plan.h"

/*
 * A job of the tests: 100 us round trip, 128 bytes a unit per round trip, so u units give
 * 1.28 MB/s each; peak 64 MB/s, reached at 50 units; 1 MB a worker per iteration, 10 ms of
 * compute, 100 iterations left.
 */
static struct isw_alloc_job job(uint32_t id, double arrival, double deadline)
{
	struct isw_alloc_job j = {
	        .id = id,
	        .arrival = arrival,
	        .model_bytes = 1e6,
	        .t_comp = 0.01,
	        .iters = 100,
	        .rtt = 100e-6,
	        .peak = 64e6,
	        .unit_bytes = 128,
	        .deadline = deadline,
	        .min_units = 2,
	};
	return j;
}

static void test_model(void **state)
{
	(void)state;
	struct isw_alloc_job j = job(1, 0, 0);
	assert_int_equal(isw_alloc_peak_units(&j), 50);
	assert_true(fabs(isw_alloc_thr(&j, 10) - 12.8e6) < 1);
	assert_true(fabs(isw_alloc_thr(&j, 50) - 64e6) < 1);
	assert_true(fabs(isw_alloc_thr(&j, 500) - 64e6) < 1); /* more buys nothing */
	assert_true(isw_alloc_thr(&j, 1) == 0);               /* below min_units */
	/* 100 x (0.01 + 1e6 / 12.8e6) = 8.8125 s */
	assert_true(fabs(isw_alloc_finish(&j, 10, 5) - 13.8125) < 1e-9);
	assert_true(isinf(isw_alloc_finish(&j, 0, 5)));
	j.iters = 0;
	assert_true(isw_alloc_finish(&j, 0, 5) == 5);
}

static void test_deadline_units(void **state)
{
	(void)state;
	/* at peak the job takes 100 x (0.01 + 1/64) = 2.5625 s */
	for (double d = 2.6; d < 40; d *= 1.3) {
		struct isw_alloc_job j = job(1, 0, d);
		uint32_t u = isw_alloc_deadline_units(&j, 0);
		assert_true(u >= 2 && u <= 50);
		assert_true(isw_alloc_finish(&j, u, 0) <= d);
		if (u > 2)
			assert_true(isw_alloc_finish(&j, u - 1, 0) > d);
	}
	struct isw_alloc_job j = job(1, 0, 2.5);
	assert_int_equal(isw_alloc_deadline_units(&j, 0), 0); /* faster than peak: never */
	j = job(1, 0, 1.0);
	assert_int_equal(isw_alloc_deadline_units(&j, 0), 0); /* compute alone is 1 s */
	j = job(1, 0, 30);
	assert_int_equal(isw_alloc_deadline_units(&j, 31), 0); /* past */
}

static void test_static(void **state)
{
	(void)state;
	struct isw_alloc_job js[3] = {job(1, 2, 0), job(2, 1, 0), job(3, 3, 0)};
	assert_int_equal(isw_alloc_plan(js, 3, 100, ISW_ALLOC_STATIC, 0), 0);
	/* equal, the remainder to the first to arrive, whatever each could use */
	assert_int_equal(js[1].units, 34);
	assert_int_equal(js[0].units, 33);
	assert_int_equal(js[2].units, 33);
	assert_int_equal(js[0].units + js[1].units + js[2].units, 100);
	struct isw_alloc_job one[1] = {job(1, 0, 0)};
	assert_int_equal(isw_alloc_plan(one, 1, 1000, ISW_ALLOC_STATIC, 0), 0);
	assert_int_equal(one[0].units, 1000); /* a static split wastes what a job cannot use */
}

static void test_fcfs(void **state)
{
	(void)state;
	struct isw_alloc_job js[3] = {job(1, 0, 0), job(2, 1, 0), job(3, 2, 5)};
	assert_int_equal(isw_alloc_plan(js, 3, 80, ISW_ALLOC_FCFS, 0), 0);
	assert_int_equal(js[0].units, 50);
	assert_int_equal(js[1].units, 30);
	assert_int_equal(js[2].units, 0); /* the deadline job came last: nothing */
	assert_int_equal(js[2].cls, ISW_ALLOC_LATE);
	assert_true(isinf(js[2].finish));
	assert_int_equal(js[1].cls, ISW_ALLOC_BEST_EFFORT);
}

static void test_edf(void **state)
{
	(void)state;
	/* a best-effort job first, then two deadline jobs, the later deadline registered first */
	struct isw_alloc_job js[3] = {job(1, 0, 0), job(2, 1, 9), job(3, 2, 4)};
	uint32_t need3 = isw_alloc_deadline_units(&js[2], 0);
	uint32_t need2 = isw_alloc_deadline_units(&js[1], 0);
	assert_true(need3 > need2);
	assert_int_equal(isw_alloc_plan(js, 3, 80, ISW_ALLOC_EDF, 0), 0);
	assert_int_equal(js[2].cls, ISW_ALLOC_ON_TIME);
	assert_int_equal(js[1].cls, ISW_ALLOC_ON_TIME);
	assert_int_equal(js[2].units, need3);
	assert_int_equal(js[1].units, need2);
	assert_int_equal(js[0].units, 80 - need2 - need3); /* best effort: the rest */
	assert_true(js[1].finish <= 9 && js[2].finish <= 4);

	/* fcfs on the same jobs misses a deadline that edf meets */
	struct isw_alloc_job f[3] = {job(1, 0, 0), job(2, 1, 9), job(3, 2, 4)};
	assert_int_equal(isw_alloc_plan(f, 3, 80, ISW_ALLOC_FCFS, 0), 0);
	assert_true(f[2].cls == ISW_ALLOC_LATE || f[1].cls == ISW_ALLOC_LATE);
}

/* A running deadline job's region moves only when its need leaves a band around it. */
static void test_edf_band(void **state)
{
	(void)state;
	struct isw_alloc_job js[2] = {job(1, 0, 0), job(2, 1, 4)};
	uint32_t need = isw_alloc_deadline_units(&js[1], 0);
	uint32_t peak = isw_alloc_peak_units(&js[0]), cap = need + peak;
	/* (a band of need / 4 and need / 8 of a few units, below the peak need) */
	assert_true(need >= 16 && need + need / 4 + 1 < peak);
	/* a pool where the best-effort job takes its peak need and nothing is left over */
	struct {
		uint32_t had, want;
	} cases[] = {
	        {0, need},                          /* a first region: the need */
	        {need + need / 4, need + need / 4}, /* up to a quarter past it: kept */
	        {need + need / 4 + 1, need},        /* past the band: back to the need */
	        {need, need},                       /* at the need: kept */
	        {need - 1, need + need / 8},        /* short of it: an eighth past it */
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		js[1].units = cases[i].had;
		js[0].units = 0;
		js[0].base = js[1].base = 0;
		assert_int_equal(isw_alloc_plan(js, 2, cap, ISW_ALLOC_EDF, 0), 0);
		if (js[1].units != cases[i].want || js[1].need != need)
			fail_msg("had %u, need %u: %u units (want %u)", cases[i].had, need,
			         js[1].units, cases[i].want);
		assert_int_equal(js[0].units, cap - js[1].units); /* best effort: the rest */
	}
	/* the band only as far as the memory goes: the need is met first */
	js[1].units = need - 1;
	js[0].units = 0;
	js[0].base = js[1].base = 0;
	assert_int_equal(isw_alloc_plan(js, 2, need + 1, ISW_ALLOC_EDF, 0), 0);
	assert_int_equal(js[1].units, need + 1);
}

static void test_edf_late_and_leftover(void **state)
{
	(void)state;
	/* one deadline no memory can meet: it shares with best effort, equally */
	struct isw_alloc_job js[3] = {job(1, 0, 0), job(2, 1, 2.0), job(3, 2, 20)};
	assert_int_equal(isw_alloc_plan(js, 3, 60, ISW_ALLOC_EDF, 0), 0);
	assert_int_equal(js[1].cls, ISW_ALLOC_LATE);
	assert_int_equal(js[2].cls, ISW_ALLOC_ON_TIME);
	uint32_t need = isw_alloc_deadline_units(&js[2], 0);
	assert_int_equal(js[2].units, need);
	assert_int_equal(js[0].units + js[1].units, 60 - need);
	assert_true(js[0].units >= js[1].units && js[0].units - js[1].units <= 1);

	/* memory for all: everyone at its peak need, nothing more */
	struct isw_alloc_job big[3] = {job(1, 0, 0), job(2, 1, 2.0), job(3, 2, 20)};
	assert_int_equal(isw_alloc_plan(big, 3, 1000, ISW_ALLOC_EDF, 0), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(big[i].units, 50);
}

static void test_min_units(void **state)
{
	(void)state;
	/* 5 units for three jobs of 2 at least: two run, the last to arrive waits */
	struct isw_alloc_job js[3] = {job(1, 0, 0), job(2, 1, 0), job(3, 2, 0)};
	assert_int_equal(isw_alloc_plan(js, 3, 5, ISW_ALLOC_STATIC, 0), 0);
	assert_int_equal(js[0].units, 3);
	assert_int_equal(js[1].units, 2);
	assert_int_equal(js[2].units, 0);
}

static bool disjoint(const struct isw_alloc_job *js, int n)
{
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++)
			if (js[a].units && js[b].units && js[a].base < js[b].base + js[b].units &&
			    js[b].base < js[a].base + js[a].units)
				return false;
	return true;
}

static void test_place_keep_and_fixed(void **state)
{
	(void)state;
	struct isw_alloc_job js[3] = {job(1, 0, 0), job(2, 1, 0), job(3, 2, 0)};
	js[1].fixed = 10; /* a SwitchML client's session at 90..99 */
	js[1].base = 90;
	js[1].units = 10;
	assert_int_equal(isw_alloc_plan(js, 3, 100, ISW_ALLOC_STATIC, 0), 0);
	assert_int_equal(js[1].base, 90);
	assert_int_equal(js[1].units, 10);
	assert_int_equal(js[0].units, 45);
	assert_int_equal(js[2].units, 45);
	assert_true(disjoint(js, 3));
	/* the third job leaves: the first grows where it is */
	uint32_t b0 = js[0].base;
	struct isw_alloc_job two[2] = {js[0], js[1]};
	assert_int_equal(isw_alloc_plan(two, 2, 100, ISW_ALLOC_STATIC, 0), 0);
	assert_int_equal(two[0].units, 90);
	assert_int_equal(two[0].base, b0);
	/* a fixed region in the middle: 90 units cannot be contiguous around 40..49; the plan
	 * says so and gives the job the largest range there is */
	two[1].base = 40;
	assert_int_equal(isw_alloc_plan(two, 2, 100, ISW_ALLOC_STATIC, 0), -ENOSPC);
	assert_int_equal(two[1].base, 40);
	assert_int_equal(two[0].units, 50);
	assert_int_equal(two[0].base, 50);
}

static void test_place_shrink_in_place(void **state)
{
	(void)state;
	struct isw_alloc_job js[2] = {job(1, 0, 0), job(2, 1, 0)};
	assert_int_equal(isw_alloc_plan(js, 2, 100, ISW_ALLOC_STATIC, 0), 0);
	uint32_t b0 = js[0].base;
	/* a third job: the first shrinks where it is, the second slides down, no repacking */
	struct isw_alloc_job three[3] = {js[0], js[1], job(3, 2, 0)};
	assert_int_equal(isw_alloc_plan(three, 3, 100, ISW_ALLOC_STATIC, 0), 0);
	assert_int_equal(three[0].base, b0);
	assert_int_equal(three[0].units, 34);
	assert_int_equal(three[2].units, 33);
	assert_true(three[1].base < three[2].base);
	assert_true(disjoint(three, 3));
	/* the second leaves: both grow to 50; the first where it is, the third (at 67, where 50
	 * do not fit) slides down */
	struct isw_alloc_job again[2] = {three[0], three[2]};
	assert_int_equal(isw_alloc_plan(again, 2, 100, ISW_ALLOC_FCFS, 0), 0);
	assert_int_equal(again[0].base, b0);
	assert_int_equal(again[0].units, 50);
	assert_int_equal(again[1].units, 50);
	assert_true(disjoint(again, 2));
}

static void test_place_fragmented_repacks(void **state)
{
	(void)state;
	/* 1 at 0..9 and 2 at 50..59 as they were; 3 now needs 60 contiguous of 100 */
	struct isw_alloc_job js[3] = {job(1, 0, 0), job(2, 1, 0), job(3, 2, 0)};
	js[0].units = 10;
	js[0].base = 0;
	js[1].units = 10;
	js[1].base = 45;
	js[0].peak = js[1].peak = 1.28e6 * 10 - 1; /* each needs 10 */
	js[2].peak = 1.28e6 * 80 - 1;              /* 80: more than any gap left in place */
	assert_int_equal(isw_alloc_plan(js, 3, 100, ISW_ALLOC_FCFS, 0), 0);
	assert_int_equal(js[2].units, 80);
	assert_int_equal(js[0].units + js[1].units, 20);
	assert_true(disjoint(js, 3));
}

static void test_bad_input(void **state)
{
	(void)state;
	struct isw_alloc_job js[2] = {job(1, 0, 0), job(2, 1, 0)};
	js[0].rtt = 0;
	assert_int_equal(isw_alloc_plan(js, 2, 100, ISW_ALLOC_EDF, 0), -EINVAL);
	js[0] = job(1, 0, 0);
	js[0].fixed = js[1].fixed = 10; /* two fixed regions on top of each other */
	js[0].base = 0;
	js[1].base = 5;
	assert_int_equal(isw_alloc_plan(js, 2, 100, ISW_ALLOC_EDF, 0), -EINVAL);
	js[1].base = 95; /* past the pool's end */
	assert_int_equal(isw_alloc_plan(js, 2, 100, ISW_ALLOC_EDF, 0), -EINVAL);
	assert_int_equal(isw_alloc_plan(js, 2, 100, (enum isw_alloc_policy)7, 0), -EINVAL);
	assert_int_equal(isw_alloc_policy_parse("edf"), ISW_ALLOC_EDF);
	assert_int_equal(isw_alloc_policy_parse("lifo"), -1);
	assert_string_equal(isw_alloc_policy_name(ISW_ALLOC_FCFS), "fcfs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_model),
	        cmocka_unit_test(test_deadline_units),
	        cmocka_unit_test(test_static),
	        cmocka_unit_test(test_fcfs),
	        cmocka_unit_test(test_edf),
	        cmocka_unit_test(test_edf_band),
	        cmocka_unit_test(test_edf_late_and_leftover),
	        cmocka_unit_test(test_min_units),
	        cmocka_unit_test(test_place_keep_and_fixed),
	        cmocka_unit_test(test_place_shrink_in_place),
	        cmocka_unit_test(test_place_fragmented_repacks),
	        cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
