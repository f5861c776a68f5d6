/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The aggregator allocator's commands (dataplane/alloc.c, docs/memory.md) on the real control
 * plane with the SyncAgtr pipeline: jobs registered on sessions, plans applied as region
 * changes (shrinks first, grows when there is room), fixed sessions left alone, the policies,
 * and the refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd.h"
#include "dp.h"
#include "isw_test.h"
#include "unit_switch.h"
#include "syncagtr.h"
#include "worker.h"

static struct isw_worker *w;
static struct isw_json out;

/* Sessions 1 and 2 (2 threads, 16 slots each), session 3 without threads (SwitchML's way). */
static const char *const config[] = {
        "pipeline enable syncagtr",
        "syncagtr session add 1 ip 10.0.0.254 workers 2 slots 16 threads 2",
        "syncagtr session add 2 ip 10.0.0.253 workers 2 slots 16 threads 2",
        "syncagtr session add 3 ip 10.0.0.252 workers 2 slots 8",
        "alloc period 0",
        "alloc margin 0",
};

static int setup(void **state)
{
	(void)state;
	w = isw_unit_up(config, sizeof(config) / sizeof(config[0]), &out);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	/* the allocator's jobs outlive a switch in this process: forget them */
	(void)isw_cmd_exec("alloc job del a", &out);
	(void)isw_cmd_exec("alloc job del b", &out);
	(void)isw_cmd_exec("alloc job del c", &out);
	isw_unit_run(&out, "alloc policy fcfs", 1);
	isw_unit_run(&out, "alloc margin 10", 1);
	isw_unit_down(w, &out);
	return 0;
}

static void run(const char *line)
{
	isw_unit_run(&out, line, 1);
}

static void has(const char *line, const char *want)
{
	run(line);
	if (strstr(isw_json_str(&out), want) == NULL)
		fail_msg("'%s' gave %s, without %s", line, isw_json_str(&out), want);
}

/* The session's slots, and whether it is changing, from syncagtr session show. */
static void session_is(unsigned id, unsigned slots, bool changing)
{
	char line[64], want[96];
	snprintf(line, sizeof(line), "syncagtr session show %u", id);
	snprintf(want, sizeof(want), "\"slots\":%u,", slots);
	has(line, want);
	has(line, changing ? "\"changing\":true" : "\"changing\":false");
}

static void test_static_split(void **state)
{
	(void)state;
	run("alloc capacity syncagtr 100");
	run("alloc policy static");
	/* alone: the whole capacity, asked as a region change of its session */
	has("alloc job add a syncagtr 1", "\"planned_units\":100");
	session_is(1, 100, true);
	/* a second job: the first is changing, so it is planned where it is going and the
	 * second gets what is left, nothing */
	has("alloc job add b syncagtr 2", "\"planned_units\":0");
	session_is(2, 16, false);
	/* the change ends (a reset does it here), the plan shrinks a first and b has no room
	 * until a's old region... a's shrink drains */
	run("syncagtr session reset 1 keep-workers");
	usleep(60 * 1000); /* a session's region changes at most every 50 ms */
	has("alloc plan", "\"job\":\"a\"");
	session_is(1, 50, true);
	/* b's grow asked too: the budget has room (a's two regions are 100 + 50 of 8192) */
	session_is(2, 50, true);
	has("alloc show", "\"planned\":50");
	has("alloc show", "\"class\":\"best-effort\"");
	has("alloc show", "\"resizes\":1");
}

static void test_fixed_session(void **state)
{
	(void)state;
	run("alloc capacity syncagtr 64");
	run("alloc policy static");
	has("alloc job add c syncagtr 3", "\"fixed\":true");
	has("alloc show", "fixed: no threads (SwitchML's client cannot follow a change)");
	/* its 8 slots are out of the others' share: 64 - 8 */
	has("alloc job add a syncagtr 1", "\"planned_units\":56");
	session_is(3, 8, false);
	session_is(1, 56, true);
}

static void test_edf_deadline(void **state)
{
	(void)state;
	run("alloc capacity syncagtr 120");
	run("alloc policy edf");
	/* at the default figures (4 ms, 0.5 Gbit/s, 1 KiB a slot) a job gains nothing past
	 * 62.5 MB/s x 0.004 s / 1024 = 245 slots; 1 MB an iteration, 100 of them */
	has("alloc job add b syncagtr 2 model-mb 1 iters 100", "\"planned_units\":120");
	/* (b's change ends; while it changes, b is planned where it goes, and nothing moves) */
	run("syncagtr session reset 2 keep-workers");
	usleep(60 * 1000);
	/* a deadline of 5 s: 100 x 1 MB in 5 s is 20 MB/s, 79 slots; session 1 has a region
	 * already, which grows an eighth past the need (docs/memory.md): 88 (two threads' worth),
	 * and the best-effort job gets the rest, 32 */
	has("alloc job add a syncagtr 1 deadline-s 5 model-mb 1 iters 100", "\"planned_units\":88");
	has("alloc show", "\"class\":\"on-time\"");
	has("alloc show", "\"need\":79");
	has("alloc show", "\"job\":\"b\",\"kind\":\"syncagtr\",\"id\":2,\"units\":32");
	session_is(1, 88, true);
	session_is(2, 32, true);
	/* the update of its progress re-plans (at the next tick): half done, the need halves */
	run("alloc job update a done 50");
	has("alloc plan", "\"need\":40");
	/* a margin of 50 %: the plan aims at half the time left, the need doubles */
	run("alloc margin 50");
	has("alloc plan", "\"need\":79");
	run("alloc margin 0");
	/* an impossible deadline: late, shares with the best-effort job */
	run("alloc job update a deadline-s 0.05");
	has("alloc plan", "\"class\":\"late\"");
}

/* The number after key in job a's object of the reply to line (-1 when absent or null). */
static double field(const char *line, const char *key)
{
	char want[64];
	run(line);
	snprintf(want, sizeof(want), "\"%s\":", key);
	const char *at = strstr(isw_json_str(&out), "\"job\":\"a\"");
	at = at != NULL ? strstr(at, want) : NULL;
	if (at == NULL || strncmp(at + strlen(want), "null", 4) == 0)
		return -1;
	return strtod(at + strlen(want), NULL);
}

/*
 * A job behind its plan: its reported progress, slower than the model at the region it has,
 * lowers its pace, and the plan raises its need by as much.
 */
static void test_pace(void **state)
{
	(void)state;
	run("alloc capacity syncagtr 200");
	run("alloc policy edf");
	/* a best-effort job takes what the deadline job does not need */
	has("alloc job add b syncagtr 2", "\"planned_units\":200");
	run("syncagtr session reset 2 keep-workers"); /* its change ends */
	usleep(60 * 1000);
	/* 600 x 1 MB in 60 s: 10 MB/s, 40 slots at the default figures (46 planned: session 1's
	 * region grows an eighth past the need, to two threads' worth) */
	has("alloc job add a syncagtr 1 deadline-s 60 model-mb 1 iters 600",
	    "\"planned_units\":46");
	run("syncagtr session reset 1 keep-workers"); /* the changes end */
	run("syncagtr session reset 2 keep-workers");
	usleep(60 * 1000);
	has("alloc plan", "\"need\":40");
	assert_true(field("alloc show", "pace") < 0); /* not measured yet */
	run("alloc job update a done 10");            /* a window starts */
	usleep(1100 * 1000);
	/* 10 iterations in 1.1 s or more: 0.11 s each, where the model's 40 slots (10.24 MB/s)
	 * take 0.098 s: a pace of 0.89 at most */
	run("alloc job update a done 20");
	double pace = field("alloc show", "pace");
	assert_true(pace > 0 && pace <= 0.9);
	/* 580 iterations in 58.9 s or less at that pace: more than 40 slots */
	double need = field("alloc plan", "need");
	if (need <= 40)
		fail_msg("need %g at pace %g", need, pace);
	has("alloc show", "\"class\":\"on-time\"");
}

/*
 * The round trip a job is planned with: the least it reported over the last 10 s, so a report
 * inflated by its own queue (a job the CPUs hold back) does not grow its region.
 */
static void test_rtt_min(void **state)
{
	(void)state;
	run("alloc capacity syncagtr 200");
	run("alloc policy edf");
	/* 600 x 1 MB in 60 s: 10 MB/s, 40 slots at 4 ms */
	run("alloc job add a syncagtr 1 deadline-s 60 model-mb 1 iters 600 rtt-us 4000");
	has("alloc plan", "\"need\":40");
	run("alloc job update a rtt-us 8000"); /* twice the round trip: the least stays */
	has("alloc plan", "\"need\":40");
	assert_true(field("alloc show", "rtt_us") == 8000);
	assert_true(field("alloc show", "rtt_plan_us") == 4000);
	run("alloc job update a rtt-us 6000");
	has("alloc plan", "\"need\":40");
	run("alloc job update a rtt-us 2000"); /* a smaller one is the path's: half the need */
	has("alloc plan", "\"need\":20");
	assert_true(field("alloc show", "rtt_plan_us") == 2000);
	run("alloc job update a rtt-us 3000");
	assert_true(field("alloc show", "rtt_plan_us") == 2000);
}

static void test_refused(void **state)
{
	(void)state;
	isw_unit_refused(&out, "alloc job add a atp 1", "ENOENT");
	isw_unit_refused(&out, "alloc job add a syncagtr 9", "ENOENT");
	run("alloc job add a syncagtr 1");
	isw_unit_refused(&out, "alloc job add a syncagtr 2", "EEXIST");
	isw_unit_refused(&out, "alloc job add b syncagtr 1", "EEXIST");
	isw_unit_refused(&out, "alloc job add b syncagtr 2 deadline-s 10", "EINVAL");
	isw_unit_refused(&out, "alloc job add b syncagtr 2 elems 128", "EINVAL");
	isw_unit_refused(&out, "alloc job add b syncagtr 2 rtt-us 0", "EINVAL");
	isw_unit_refused(&out, "alloc job add b syncagtr 2 color red", "EINVAL");
	isw_unit_refused(&out, "alloc job update z done 1", "ENOENT");
	isw_unit_refused(&out, "alloc job update a done -1", "EINVAL");
	isw_unit_refused(&out, "alloc policy lottery", "EINVAL");
	isw_unit_refused(&out, "alloc capacity syncagtr 0", "ERANGE");
	isw_unit_refused(&out, "alloc capacity syncagtr 9000", "ERANGE");
	isw_unit_refused(&out, "alloc margin 95", "EINVAL");
	isw_unit_refused(&out, "alloc job del z", "ENOENT");
	/* nothing refused left anything behind */
	run("alloc show");
	if (strstr(isw_json_str(&out), "\"job\":\"b\"") != NULL)
		fail_msg("a refused job was registered: %s", isw_json_str(&out));
	/* deleting a job leaves its session's region as it is */
	run("alloc job del a");
	has("alloc show", "\"jobs\":[]");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	        T(test_static_split), T(test_fixed_session), T(test_edf_deadline),
	        T(test_pace),         T(test_rtt_min),       T(test_refused),
	};
	if (isw_test_eal("test-alloc", 4) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
