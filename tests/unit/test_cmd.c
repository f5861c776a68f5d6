/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Command parser and registry: word splitting, dispatch and its errors, argument parsers, and
 * the rule that a refused command changes nothing. Runs the real handlers of the core and l2
 * without EAL or ports (the dataplane is set up as if it had three ports and no workers).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd.h"
#include "ctl_reply.h"
#include "dp.h"
#include "fault.h"
#include "pipeline.h"
#include "pre.h"
#include "unit_switch.h"

static struct isw_json out;

static int setup(void **state)
{
	(void)state;
	char err[256];
	isw_dp.nb_ports = 3;
	isw_dp.nb_workers = 0;
	assert_int_equal(isw_port_conf_init(), 0);
	assert_int_equal(isw_mc_init(3), 0);
	assert_int_equal(isw_pipeline_init(err, sizeof(err)), 0);
	isw_json_init(&out);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	isw_pipeline_fini();
	isw_mc_fini();
	free(isw_dp.pconf);
	isw_dp.pconf = NULL;
	isw_json_free(&out);
	return 0;
}

/* Runs a line; returns the reply text. */
/* Runs len bytes of a line as the control socket does; returns the reply text. */
static const char *run_n(const char *line, size_t len, int expect_rc)
{
	int rc = isw_cmd_exec_n(line, len, &out);
	if ((expect_rc == 0) != (rc == 0))
		fail_msg("'%.*s' gave %d: %s", (int)len, line, rc, isw_json_str(&out));
	return isw_json_str(&out);
}

static const char *run(const char *line, int expect_rc)
{
	return run_n(line, strlen(line), expect_rc);
}

/* Writes len bytes of text into a new file in $TMPDIR (default /tmp); its name goes to path. */
static void write_file(char path[PATH_MAX], const char *text, size_t len)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, PATH_MAX, "%s/isw-test-cmd-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static void assert_contains(const char *hay, const char *needle)
{
	if (strstr(hay, needle) == NULL)
		fail_msg("'%s' does not contain '%s'", hay, needle);
}

static void test_split(void **state)
{
	(void)state;
	char *argv[8];
	char l1[] = "  mc\tgroup   add 1 2  ";
	assert_int_equal(isw_cmd_split(l1, argv, 8), 5);
	assert_string_equal(argv[0], "mc");
	assert_string_equal(argv[1], "group");
	assert_string_equal(argv[4], "2");

	char l2[] = "say \"hello world\" \"a\\\"b\" x\"y z\"w";
	assert_int_equal(isw_cmd_split(l2, argv, 8), 4);
	assert_string_equal(argv[1], "hello world");
	assert_string_equal(argv[2], "a\"b");
	assert_string_equal(argv[3], "xy zw");

	char l3[] = "a \"unterminated";
	assert_int_equal(isw_cmd_split(l3, argv, 8), -EINVAL);

	char l4[] = "1 2 3 4 5 6 7 8 9";
	assert_int_equal(isw_cmd_split(l4, argv, 8), -E2BIG);

	char l5[] = "   \n";
	assert_int_equal(isw_cmd_split(l5, argv, 8), 0);

	char l6[] = "\"\"";
	assert_int_equal(isw_cmd_split(l6, argv, 8), 1);
	assert_string_equal(argv[0], "");
}

static void test_dispatch_errors(void **state)
{
	(void)state;
	assert_contains(run("frobnicate", -1), "unknown command 'frobnicate' (try 'help')");
	assert_contains(run("mc group", -1), "incomplete command");
	assert_contains(isw_json_str(&out), "create");
	assert_contains(run("mc group frob 1", -1), "unknown command 'frob' after 'group'");
	assert_contains(run("mc", -1), "expects one of: group");
	assert_contains(run("\"open", -1), "unterminated quote");
	assert_string_equal(run("", 0), "{\"ok\":true}");
	assert_string_equal(run("# a comment", 0), "{\"ok\":true}");

	char *big = malloc(ISW_CMD_LINE_MAX + 10);
	memset(big, 'a', ISW_CMD_LINE_MAX + 9);
	big[ISW_CMD_LINE_MAX + 9] = '\0';
	assert_contains(run(big, -1), "line too long");
	free(big);

	/* Replies are one valid line of JSON even when the message has quotes in it. */
	assert_contains(run("l2 add \"a\\\"b\" 1", -1), "'a\\\"b' is not a MAC address");
	assert_null(strchr(isw_json_str(&out), '\n'));

	/* Invalid UTF-8 echoed back is replaced, valid UTF-8 kept. */
	assert_contains(run("frob\xff\xc3\xa9", -1), "'frob\\ufffd\xc3\xa9'");
}

static void test_usage_errors(void **state)
{
	(void)state;
	assert_contains(run("l2 add 02:00:00:00:00:01", -1),
	                "missing arguments; usage: l2 add MAC PORT");
	assert_contains(run("l2 add 02:00:00:00:00:01 1 2", -1), "too many arguments");
	assert_contains(run("version extra", -1), "too many arguments; usage: version\"");
}

static void test_help(void **state)
{
	(void)state;
	const char *r = run("help l2", 0);
	assert_contains(r, "\"command\":\"l2 add MAC PORT\"");
	assert_null(strstr(r, "mc group"));
	assert_contains(run("help nosuch", -1), "no command starts with 'nosuch'");
	/* A prefix must end on a word boundary: "help l" is not "help l2". */
	run("help l", -1);
}

static void test_arg_parsers(void **state)
{
	(void)state;
	struct isw_cmd_ctx c = {.out = &out};
	uint32_t u;
	uint64_t u64;
	double pct;
	uint8_t mac[6];
	uint32_t ip;
	bool on;

	assert_int_equal(isw_arg_u32(&c, "42", "n", 0, 100, &u), 0);
	assert_int_equal(u, 42);
	assert_int_equal(isw_arg_u32(&c, "0x10", "n", 0, 100, &u), 0);
	assert_int_equal(u, 16);
	assert_true(isw_arg_u32(&c, "101", "n", 0, 100, &u) < 0);
	assert_contains(c.err, "n: 101 is out of range 0..100");
	assert_true(isw_arg_u32(&c, "-1", "n", 0, 100, &u) < 0);
	assert_true(isw_arg_u32(&c, "", "n", 0, 100, &u) < 0);
	assert_true(isw_arg_u32(&c, "12abc", "n", 0, 100, &u) < 0);
	/* A leading zero is decimal, not octal. */
	assert_int_equal(isw_arg_u32(&c, "010", "n", 0, 100, &u), 0);
	assert_int_equal(u, 10);
	assert_int_equal(isw_arg_u32(&c, "08", "n", 0, 100, &u), 0);
	assert_int_equal(u, 8);
	assert_true(isw_arg_u32(&c, "0x", "n", 0, 100, &u) < 0);
	assert_true(isw_arg_u32(&c, "0x-1", "n", 0, 100, &u) < 0);
	assert_true(isw_arg_u64(&c, "99999999999999999999", "n", &u64) < 0);
	assert_int_equal(isw_arg_u64(&c, "18446744073709551615", "n", &u64), 0);
	assert_true(u64 == UINT64_MAX);

	assert_int_equal(isw_arg_pct(&c, "12.5", "p", &pct), 0);
	assert_true(pct == 12.5);
	assert_int_equal(isw_arg_pct(&c, "7%", "p", &pct), 0);
	assert_true(pct == 7);
	assert_true(isw_arg_pct(&c, "100.1", "p", &pct) < 0);
	assert_true(isw_arg_pct(&c, "-1", "p", &pct) < 0);
	assert_true(isw_arg_pct(&c, "nan", "p", &pct) < 0);
	assert_true(isw_arg_pct(&c, "%", "p", &pct) < 0);

	assert_int_equal(isw_arg_mac(&c, "02:aB:00:00:00:ff", "m", mac), 0);
	assert_int_equal(mac[1], 0xab);
	assert_int_equal(mac[5], 0xff);
	assert_true(isw_arg_mac(&c, "02:ab:00:00:00", "m", mac) < 0);
	assert_true(isw_arg_mac(&c, "02:ab:00:00:00:fff", "m", mac) < 0);
	assert_true(isw_arg_mac(&c, "02-ab-00-00-00-ff", "m", mac) < 0);
	assert_true(isw_arg_mac(&c, "02: b:00:00:00:ff", "m", mac) < 0);
	assert_true(isw_arg_mac(&c, "02:+b:00:00:00:ff", "m", mac) < 0);

	assert_int_equal(isw_arg_ipv4(&c, "10.0.0.254", "ip", &ip), 0);
	assert_int_equal(((uint8_t *)&ip)[3], 254);
	assert_true(isw_arg_ipv4(&c, "10.0.0.256", "ip", &ip) < 0);
	assert_true(isw_arg_ipv4(&c, "10.0.0", "ip", &ip) < 0);

	assert_int_equal(isw_arg_onoff(&c, "on", "f", &on), 0);
	assert_true(on);
	assert_int_equal(isw_arg_onoff(&c, "off", "f", &on), 0);
	assert_false(on);
	assert_true(isw_arg_onoff(&c, "maybe", "f", &on) < 0);

	uint16_t port;
	assert_int_equal(isw_arg_port(&c, "2", &port), 0);
	assert_true(isw_arg_port(&c, "3", &port) < 0);
	assert_contains(c.err, "port: 3 is out of range 0..2");
}

static void test_l2_commands(void **state)
{
	(void)state;
	run("l2 add 02:00:00:00:00:01 1", 0);
	assert_contains(isw_json_str(&out), "\"replaced\":false");
	run("l2 add 02:00:00:00:00:01 2", 0);
	assert_contains(isw_json_str(&out), "\"replaced\":true");
	assert_contains(run("l2 show", 0), "{\"mac\":\"02:00:00:00:00:01\",\"port\":2}");

	/* Refused commands leave the table as it was. */
	assert_contains(run("l2 add 02:00:00:00:00:02 3", -1), "out of range");
	assert_contains(run("l2 add 01:00:5e:00:00:01 1", -1), "multicast");
	assert_contains(run("l2 add 00:00:00:00:00:00 1", -1), "not a station address");
	assert_contains(run("l2 del 02:00:00:00:00:09", -1), "not in the MAC table");
	const char *r = run("l2 show", 0);
	assert_null(strstr(r, "02:00:00:00:00:02"));
	assert_contains(r, "{\"mac\":\"02:00:00:00:00:01\",\"port\":2}");

	run("l2 flood unknown off", 0);
	assert_contains(run("l2 show", 0), "\"flood_unknown\":false,\"flood_broadcast\":true");
	assert_contains(run("l2 flood sideways off", -1), "not unknown or broadcast");
	run("l2 flood on", 0);
	assert_contains(run("l2 show", 0), "\"flood_unknown\":true,\"flood_broadcast\":true");

	run("l2 del 02:00:00:00:00:01", 0);
	assert_contains(run("l2 show", 0), "\"entries\":[]");
}

static void test_fault_no_partial_effect(void **state)
{
	(void)state;
	run("port fault 1 rx drop 10 dup 5", 0);
	const struct isw_port_conf *pc = isw_port_conf_get();
	uint32_t gen = pc->gen;
	assert_true(pc->fault[1][ISW_DIR_RX].on);

	/* Every one of these is refused; the published settings must not change at all. */
	run("port fault 1 rx drop 20 dup 200", -1);
	run("port fault 1 rx drop 20 depth 0", -1);
	run("port fault 1 rx drop 20 dup", -1);
	run("port fault 1 sideways drop 20", -1);
	run("port fault 9 rx drop 20", -1);
	run("port fault 1 rx drop 20 jitter 3", -1);
	pc = isw_port_conf_get();
	assert_int_equal(pc->gen, gen);
	assert_true(pc->fault[1][ISW_DIR_RX].drop == isw_fault_prob(10));

	run("port fault 1 rx off", 0);
	assert_false(isw_port_conf_get()->fault[1][ISW_DIR_RX].on);
	run("port fault seed 7", 0);
	assert_true(isw_port_conf_get()->seed == 7);
}

static void test_mc_commands(void **state)
{
	(void)state;
	assert_contains(run("mc group add 5 1", -1), "no such group");
	run("mc group create 5", 0);
	assert_contains(run("mc group create 5", -1), "already exists");
	run("mc group add 5 1", 0);
	run("mc group add 5 2 7", 0);
	assert_contains(run("mc group add 5 2 7", -1), "already");
	assert_contains(run("mc group add 5 3", -1), "out of range");
	assert_contains(run("mc group create 0", -1), "out of range 1..65535");
	assert_contains(run("mc group show 5", 0), "\"members\":[\"1/1\",\"2/7\"]");
	run("mc group del 5 1", 0);
	assert_contains(run("mc group show", 0), "\"members\":[\"2/7\"]");
	run("mc group destroy 5", 0);
	assert_contains(run("mc group show 5", -1), "no such group");
}

static void test_register_and_pipeline_commands(void **state)
{
	(void)state;
	assert_contains(run("register read nosuch 0", -1), "no register array 'nosuch'");
	assert_contains(run("pipeline enable nosuch", -1), "unknown pipeline");
	run("pipeline enable flowcount", 0);
	assert_contains(run("pipeline enable flowcount", -1), "already enabled");
	assert_contains(run("register list", 0), "\"name\":\"flowcount.flows\"");
	run("register write flowcount.flows 3 10 20", 0);
	assert_contains(run("register read flowcount.flows 3", 0),
	                "{\"index\":3,\"lo\":10,\"hi\":20}");
	assert_contains(run("register write flowcount.flows 3 10", -1), "give LO and HI");
	assert_contains(run("register read flowcount.flows 4096", -1), "out of range");
	assert_contains(run("register read flowcount.flows 4090 7", -1), "goes past the end");
	run("register reset flowcount.flows", 0);
	assert_contains(run("register read flowcount.flows 3", 0), "{\"index\":3,\"lo\":0");
	assert_contains(run("pipeline show flowcount", 0), "\"fits\":true");
	assert_contains(run("pipeline disable l2", -1), "cannot be disabled");
	run("pipeline disable flowcount", 0);
	assert_contains(run("register list", 0), "\"registers\":[]");
	assert_contains(run("pipeline profile tofino9", -1), "unknown profile");
	run("pipeline profile tofino1", 0);
	run("pipeline profile tofino2", 0);
}

/*
 * Every refusal carries an errno-style code beside its message, the one that fits the case
 * (docs/ctl.md, Error codes); replies that succeed carry none.
 */
static void test_error_codes(void **state)
{
	(void)state;
	/* Run in order: the group made by the first line is there for the next ones. The pipeline
	 * lines check that the code goes with the message: those handlers return -EINVAL after
	 * the check that found their pipeline off (ENOTSUP). */
	static const char *const cases[][2] = {
	        {"frobnicate", "EINVAL"},
	        {"mc group", "EINVAL"},
	        {"\"open", "EINVAL"},
	        {"l2 add \x01", "EINVAL"},
	        {"l2 add 02:00:00:00:00:01", "EINVAL"},
	        {"l2 add nomac 1", "EINVAL"},
	        {"l2 add 02:00:00:00:00:01 9", "ERANGE"},
	        {"l2 del 02:00:00:00:00:09", "ENOENT"},
	        {"help nosuch", "ENOENT"},
	        {"mc group create 5", NULL},
	        {"mc group create 5", "EEXIST"},
	        {"mc group add 6 1", "ENOENT"},
	        {"mc group destroy 5", NULL},
	        {"register read nosuch 0", "ENOENT"},
	        {"pipeline enable nosuch", "ENOENT"},
	        {"pipeline enable l2", "EEXIST"},
	        {"pipeline disable l2", "EPERM"},
	        {"flowcount show", "ENOTSUP"},
	        {"syncagtr session show 1", "ENOTSUP"},
	        {"atp app show", "ENOTSUP"},
	        {"ask task show", "ENOTSUP"},
	        {"pipeline enable syncagtr", NULL},
	        {"syncagtr session show 1", "ENOENT"},
	        {"pipeline disable syncagtr", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i][1] == NULL)
			assert_null(strstr(run(cases[i][0], 0), "\"code\""));
		else
			isw_unit_refused(&out, cases[i][0], cases[i][1]);
	}

	/* Too much at once: a line over the limit, more than 64 words. */
	char *big = malloc(ISW_CMD_LINE_MAX + 1);
	memset(big, 'a', ISW_CMD_LINE_MAX);
	big[ISW_CMD_LINE_MAX] = '\0';
	isw_unit_refused(&out, big, "E2BIG");
	size_t n = 0;
	for (unsigned w = 0; w <= ISW_CMD_ARGS_MAX; w++)
		n += (size_t)snprintf(big + n, ISW_CMD_LINE_MAX - n, "%u ", w);
	isw_unit_refused(&out, big, "E2BIG");
	free(big);
	char line[64];
	snprintf(line, sizeof(line), "mc group create %u", ISW_MC_RESERVED);
	isw_unit_refused(&out, line, "EPERM");
}

static void test_exec_file(void **state)
{
	(void)state;
	char path[PATH_MAX];
	const char text[] = "# config\nl2 add 02:00:00:00:00:05 0\n\nl2 add bad 0\nl2 add "
	                    "02:00:00:00:00:06 0\n";
	write_file(path, text, sizeof(text) - 1);
	char err[256];
	assert_true(isw_cmd_exec_file(path, err, sizeof(err)) < 0);
	assert_contains(err, ":4: mac: 'bad' is not a MAC address");
	/* The message is the plain text, not its JSON escaping. */
	char quoted_path[PATH_MAX];
	const char bad[] = "l2 add \"a\\\"b\" 0\n";
	write_file(quoted_path, bad, sizeof(bad) - 1);
	assert_true(isw_cmd_exec_file(quoted_path, err, sizeof(err)) < 0);
	unlink(quoted_path);
	assert_contains(err, ":1: mac: 'a\"b' is not");
	/* Lines before the error took effect, lines after it did not. */
	const char *r = run("l2 show", 0);
	assert_contains(r, "02:00:00:00:00:05");
	assert_null(strstr(r, "02:00:00:00:00:06"));
	unlink(path);
	assert_true(isw_cmd_exec_file("/nonexistent/x", err, sizeof(err)) < 0);
	assert_contains(err, "No such file");
}

/* A line is text: a NUL or another control byte is an error and runs nothing; CRLF is fine. */
static void test_control_bytes(void **state)
{
	(void)state;
	static const char nul[] = "l2 add 02:00:00:00:00:0a 1\0 junk";
	assert_contains(run_n(nul, sizeof(nul) - 1, -1), "control byte 0x00 at offset 26");
	assert_null(strstr(run("l2 show", 0), "02:00:00:00:00:0a"));
	static const char esc[] = "l2 add 02:00:00:00:00:0b\x1b 1";
	assert_contains(run_n(esc, sizeof(esc) - 1, -1), "control byte 0x1b at offset 24");
	static const char del[] = "l2 show\x7f";
	assert_contains(run_n(del, sizeof(del) - 1, -1), "control byte 0x7f");
	static const char cr[] = "l2 add 02:00:00:00:00:0c\t1\r";
	run_n(cr, sizeof(cr) - 1, 0);
	static const char cr2[] = "l2 add 02:00:00:00:00:0d 1\r\r";
	assert_contains(run_n(cr2, sizeof(cr2) - 1, -1), "control byte 0x0d at offset 26");
	assert_contains(run("l2 show", 0), "{\"mac\":\"02:00:00:00:00:0c\",\"port\":1}");
	assert_null(strstr(isw_json_str(&out), "02:00:00:00:00:0d"));
	/* The same in a config file, with its line number. */
	char path[PATH_MAX];
	static const char text[] = "l2 add 02:00:00:00:00:0e 1\nl2 add 02:00:00:00:00:0f\0 1\n";
	write_file(path, text, sizeof(text) - 1);
	char err[256];
	assert_true(isw_cmd_exec_file(path, err, sizeof(err)) < 0);
	assert_contains(err, ":2: control byte 0x00 at offset 24");
	unlink(path);
}

/* A key given twice and an empty list element are errors, in every command. */
static void test_repeats_and_empty_elements(void **state)
{
	(void)state;
	assert_contains(run("port fault 0 rx drop 10 drop 20", -1), "'drop' given twice");
	assert_contains(run("port show 0", 0), "\"on\":false");
	assert_contains(run("port fault 0 rx loss 10", -1), "unknown option 'loss'");
	run("port fault 0 rx drop 10 depth 4", 0);
	run("port fault 0 rx off", 0);

	struct isw_cmd_ctx c = {.out = &out};
	char buf[64], *f[4];
	static const char *const bad[] = {"0,,1", ",1", "1,", "", ","};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(isw_arg_list(&c, bad[i], "ports", buf, sizeof(buf), f, 4) < 0);
		assert_contains(c.err, "ports: empty element");
	}
	assert_int_equal(isw_arg_list(&c, "a,bb,c", "x", buf, sizeof(buf), f, 4), 3);
	assert_string_equal(f[1], "bb");
	assert_true(isw_arg_list(&c, "1,2,3,4,5", "x", buf, sizeof(buf), f, 4) < 0);
	assert_contains(c.err, "more than 4 elements");
	uint32_t mask;
	assert_int_equal(isw_arg_port_list(&c, "2,0", "ports", &mask), 0);
	assert_int_equal(mask, 5);
	assert_int_equal(isw_arg_port_list(&c, "0,2,0", "ports", &mask), 0); /* 2 workers on 0 */
	assert_int_equal(mask, 5);

	run("pipeline enable atp", 0);
	assert_contains(run("atp app add 1 workers 2 ports 0,,1 ps 2", -1),
	                "ports: empty element in '0,,1'");
	assert_contains(run("atp app add 1 workers 2 ports 0,1 ps 2 ps 2", -1), "'ps' given twice");
	assert_contains(run("atp app show", 0), "\"apps\":[]");
	run("pipeline disable atp", 0);
	run("pipeline enable ask", 0);
	static const char *const task =
	        "ask task add 1 channels 2 window 64 slots 16 key-bytes 8 op add aa-size 1024 ";
	char line[256];
	snprintf(line, sizeof(line), "%sreceiver 02:00:00:00:00:03,10.0.0.3,4000,2 senders 0,,1,",
	         task);
	assert_contains(run(line, -1), "senders: empty element in '0,,1,'");
	snprintf(line, sizeof(line), "%sreceiver ,02:00:00:00:00:03,,10.0.0.3,4000,2", task);
	assert_contains(run(line, -1), "receiver: empty element");
	snprintf(line, sizeof(line), "%sreceiver 02:00:00:00:00:03,10.0.0.3,4000,2", task);
	run(line, 0);
	run("pipeline disable ask", 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_split),
	        cmocka_unit_test_setup_teardown(test_dispatch_errors, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_usage_errors, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_error_codes, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_help, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_arg_parsers, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_l2_commands, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_fault_no_partial_effect, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_mc_commands, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_register_and_pipeline_commands, setup,
	                                        teardown),
	        cmocka_unit_test_setup_teardown(test_exec_file, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_control_bytes, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_repeats_and_empty_elements, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
