/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The netrpc pipeline's control side (pipelines/netrpc/netrpc_ctl.c, docs/netrpc.md) on the real
 * control plane: services loaded from the example descriptions, placed next to each other and
 * to the enabled pipelines (and what they take counted when another pipeline is enabled), their
 * arrays created and freed, members and servers, the address, and every refusal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd.h"
#include "dp.h"
#include "isw_test.h"
#include "unit_switch.h"
#include "worker.h"

static const char *examples; /* examples/netrpc */
static struct isw_worker *w;
static struct isw_json out;

static const char *const config[] = {"pipeline enable netrpc"};

static int setup(void **state)
{
	(void)state;
	w = isw_unit_up(config, sizeof(config) / sizeof(config[0]), &out);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	isw_unit_down(w, &out);
	return 0;
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run(const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	isw_unit_run(&out, line, 1);
}

static void has(const char *line, const char *want)
{
	isw_unit_run(&out, line, 1);
	if (strstr(isw_json_str(&out), want) == NULL)
		fail_msg("'%s' gave %s, without %s", line, isw_json_str(&out), want);
}

static void hasnt(const char *line, const char *want)
{
	isw_unit_run(&out, line, 1);
	if (strstr(isw_json_str(&out), want) != NULL)
		fail_msg("'%s' gave %s, with %s", line, isw_json_str(&out), want);
}

static const char *refused(const char *code, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static const char *refused(const char *code, const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return isw_unit_refused(&out, line, code);
}

/* The four examples side by side, each with arrays of its own, shown and freed. */
static void test_load_four(void **state)
{
	(void)state;
	static const char *const names[] = {"allreduce", "wordcount", "kvcache", "ticketlock"};
	/* on tofino2, allreduce's 64 value lanes leave the others few stateful ALUs: one of them
	 * finds no room, and goes in with the profile unlimited */
	unsigned refusals = 0;
	for (unsigned i = 0; i < 4; i++) {
		char line[4096];
		snprintf(line, sizeof(line), "netrpc service load %s/%s.nrpc", examples, names[i]);
		if (isw_cmd_exec(line, &out) == -ENOSPC) {
			if (strstr(isw_json_str(&out), "does not fit tofino2: its array") == NULL)
				fail_msg("%s: %s", line, isw_json_str(&out));
			refusals++;
			run("pipeline profile unlimited");
			run("%s", line);
		}
	}
	assert_int_equal(refusals, 1);
	has("netrpc service show", "\"service\":\"allreduce\",\"id\":1,\"type\":\"array\"");
	has("netrpc service show", "\"service\":\"ticketlock\",\"id\":4,\"type\":\"integer\"");
	has("register list", "\"netrpc.allreduce.values\"");
	has("register list", "\"netrpc.wordcount.seen\"");
	has("register list", "\"netrpc.kvcache.key\"");
	has("register list", "\"netrpc.ticketlock.reply\"");
	/* the pipeline's declaration holds them: the profile counts them */
	has("pipeline show netrpc", "\"name\":\"netrpc.allreduce.values\"");
	/* the same name or id again */
	refused("EEXIST", "netrpc service load %s/allreduce.nrpc", examples);
	const char *r =
	        refused("EEXIST", "netrpc service load %s/../netrpc/kvcache.nrpc", examples);
	assert_non_null(strstr(r, "kvcache is loaded already"));
	/* del frees its arrays; the name and id can come back */
	run("netrpc service del kvcache");
	hasnt("register list", "netrpc.kvcache.");
	hasnt("netrpc service show", "\"service\":\"kvcache\"");
	run("netrpc service load %s/kvcache.nrpc", examples);
	has("register list", "\"netrpc.kvcache.values\"");
	refused("ENOENT", "netrpc service del nosuch");
	/* disabling the pipeline frees every service's arrays */
	run("pipeline disable netrpc");
	hasnt("register list", "netrpc.");
	refused("ENODEV", "netrpc service show");
	run("pipeline enable netrpc");
	has("netrpc service show", "\"services\":[]");
	run("pipeline profile tofino2");
}

/* Placement: next to the enabled pipelines, and counted when one is enabled after. */
static void test_place(void **state)
{
	(void)state;
	/* allreduce's 64 value lanes take every SALU of stages 3..18 on tofino2, as SyncAgtr's */
	run("netrpc service load %s/allreduce.nrpc", examples);
	has("netrpc service show allreduce", "\"first_stage\":0");
	const char *r = refused("ENOSPC", "pipeline enable syncagtr");
	assert_non_null(strstr(r, "stage"));
	run("netrpc service del allreduce");
	run("pipeline enable syncagtr");
	r = refused("ENOSPC", "netrpc service load %s/allreduce.nrpc", examples);
	assert_non_null(strstr(r, "service allreduce does not fit tofino2"));
	hasnt("register list", "netrpc.allreduce");
	/* a small service finds stages with room next to SyncAgtr's */
	run("netrpc service load %s/ticketlock.nrpc", examples);
	has("register list", "\"netrpc.ticketlock.values\"");
	run("pipeline disable syncagtr");
}

/* Members, the server, the address. */
static void test_members(void **state)
{
	(void)state;
	run("netrpc service load %s/kvcache.nrpc", examples);
	run("netrpc service load %s/allreduce.nrpc", examples);
	run("netrpc member add allreduce 3 mac 02:00:00:00:00:04 ip 10.0.0.4 port 0 udp-port 5004");
	run("netrpc member add allreduce 0 mac 02:00:00:00:00:01 ip 10.0.0.1 port 0 udp-port 5001");
	has("netrpc service show", "\"members\":\"2/4\"");
	has("netrpc service show allreduce",
	    "{\"rank\":3,\"mac\":\"02:00:00:00:00:04\",\"ip\":\"10.0.0.4\",\"udp_port\":5004,"
	    "\"port\":0}");
	has("mc group show", "\"0/3\""); /* port 0, replication id 3: the rank */
	refused("ERANGE", "netrpc member add allreduce 4 mac 02:00:00:00:00:05 ip 10.0.0.5 port 0 "
	                  "udp-port 5005");
	refused("ERANGE", "netrpc member add allreduce 1 mac 02:00:00:00:00:05 ip 10.0.0.5 port 0 "
	                  "udp-port 0");
	refused("EINVAL", "netrpc member add allreduce 1 mac 02:00:00:00:00:05 ip 10.0.0.5 port 0 "
	                  "colour red");
	refused("ENOENT", "netrpc member add nosuch 1 mac 02:00:00:00:00:05 ip 10.0.0.5 port 0 "
	                  "udp-port 1");
	run("netrpc member del allreduce 3");
	has("netrpc service show", "\"members\":\"1/4\"");
	refused("ENOENT", "netrpc member del allreduce 3");
	/* a server only where the description has one */
	run("netrpc server set kvcache mac 02:00:00:00:00:09 ip 10.0.0.9 port 0 udp-port 7000");
	has("netrpc service show kvcache", "\"server_at\":{\"mac\":\"02:00:00:00:00:09\"");
	const char *r = refused("EINVAL", "netrpc server set allreduce mac 02:00:00:00:00:09 ip "
	                                  "10.0.0.9 port 0 udp-port 7000");
	assert_non_null(strstr(r, "no server in its description"));
	/* the address: none until set */
	has("netrpc config show", "\"ip\":null");
	run("netrpc config set ip 10.0.0.250 udp-port 20051");
	has("netrpc config show", "\"ip\":\"10.0.0.250\"");
	has("netrpc config show", "\"udp_port\":20051");
	refused("ERANGE", "netrpc config set udp-port 70000");
	has("netrpc config show", "\"udp_port\":20051"); /* nothing changed */
}

/* Files that are no description, and descriptions that are refused. */
static void test_refusals(void **state)
{
	(void)state;
	refused("ENOENT", "netrpc service load /nonexistent/x.nrpc");
	const char *r = refused("EINVAL", "netrpc service load %s/../../README.md", examples);
	assert_non_null(strstr(r, "README.md: line "));
	refused("EINVAL", "netrpc service load");
	r = refused("EINVAL", "netrpc service load /dev/null");
	assert_non_null(strstr(r, "not a regular file"));
	refused("EINVAL", "netrpc service check %s", examples); /* a directory */
	hasnt("register list", "netrpc.");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s EXAMPLES_DIR\n", argv[0]);
		return 2;
	}
	examples = argv[1];
	const struct CMUnitTest tests[] = {
	        T(test_load_four),
	        T(test_place),
	        T(test_members),
	        T(test_refusals),
	};
	if (isw_test_eal("test-netrpc", 4) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
