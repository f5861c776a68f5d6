/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NetRPC service descriptions (pipelines/netrpc/netrpc_desc.c, docs/netrpc.md): the four example
 * kinds parsed as the page says, every refusal with its line and reason, and the placement on
 * the stages of a profile (next to what other pipelines take, refused naming the stage).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "netrpc_desc.h"

static struct nrpc_desc d;
static char err[256];

static int parse(const char *text)
{
	err[0] = '\0';
	return nrpc_desc_parse(text, strlen(text), &d, err, sizeof(err));
}

static void ok(const char *text)
{
	if (parse(text) != 0)
		fail_msg("refused: %s\n%s", err, text);
}

/* text is refused, with a message that contains want. */
static void refused(const char *text, const char *want)
{
	if (parse(text) == 0)
		fail_msg("taken, should be refused (%s):\n%s", want, text);
	if (strstr(err, want) == NULL)
		fail_msg("refused with '%s', not '%s':\n%s", err, want, text);
}

#define HEAD "service s\nid 1\ntype array\ncells 16\nmembers 4\n"

/* The four kinds of docs/netrpc.md, as their descriptions say. */
static void test_four_kinds(void **state)
{
	(void)state;
	/* cntfwd ends the chain: the get comes before it (the sum read as the count completes) */
	ok("service allreduce\nid 1\ntype array\ncells 4096\nvalues 64\nmembers 4\n"
	   "op reduce addTo get cntfwd(members, all)\n");
	const struct nrpc_op *o = &d.op[0];
	assert_int_equal(o->n, 3);
	assert_int_equal(o->step[0].prim, NRPC_ADDTO);
	assert_int_equal(o->step[1].prim, NRPC_GET);
	assert_int_equal(o->step[2].prim, NRPC_CNTFWD);
	assert_true(o->step[2].th_members);
	assert_int_equal(o->step[2].target, NRPC_TO_ALL);
	assert_int_equal(o->rel, NRPC_REL_SYNC);
	assert_true(d.need_sync);
	assert_false(d.need_seen);

	ok("service wordcount\nid 2\ntype map\ncells 65536\nkey-bytes 16\nmembers 8\nserver\n"
	   "op count addTo to drop\nop read get\nop drain get clear\n");
	assert_int_equal(d.type, NRPC_MAP);
	assert_int_equal(d.key_bytes, 16);
	assert_int_equal(d.values, 1);
	assert_int_equal(d.nops, 3);
	assert_int_equal(d.op[0].to, NRPC_TO_DROP);
	assert_int_equal(d.op[0].rel, NRPC_REL_SEEN);
	assert_int_equal(d.op[1].rel, NRPC_REL_NONE);
	assert_int_equal(d.op[2].to, NRPC_TO_SENDER);
	assert_true(d.need_seen);
	assert_int_equal(d.window, NRPC_WINDOW_DEF);

	ok("service kvcache\nid 3\ntype map\ncells 1024\nvalues 4\nmembers 16\nserver\n"
	   "op read get\nop write clear to server\nop fill modify(set)\n");
	assert_int_equal(d.key_bytes, 8);
	assert_int_equal(d.op[1].to, NRPC_TO_SERVER);
	assert_int_equal(d.op[2].step[0].mod, NRPC_MOD_SET);
	assert_false(d.need_seen);

	ok("service quorum\nid 63\ntype integer\ncells 256\nmembers 5\nwindow 64\n"
	   "op vote cntfwd(3, sender)\nop next addTo get\nop reset clear\n");
	assert_int_equal(d.id, 63);
	assert_int_equal(d.op[0].step[0].th, 3);
	assert_int_equal(d.op[0].step[0].target, NRPC_TO_SENDER);
	assert_int_equal(d.window, 64);
	assert_true(d.need_seen && d.need_sync && d.need_reply); /* next: addTo get */
}

static void test_refusals(void **state)
{
	(void)state;
	refused("", "'service' is missing");
	refused("id 1\n", "line 1: the first directive is 'service NAME'");
	refused("service Bad\n", "line 1: service: 'Bad' is not a name");
	refused("service s\nid 64\n", "line 2: id: '64' is not in 1..63");
	refused("service s\nid 1x\n", "id: '1x' is not a number");
	refused("service s\nid\n", "line 2: id: one value");
	refused("service s\nid 1\nid 2\n", "line 3: id: given twice");
	refused("service s\ntype tree\n", "type: 'tree' is not array, map or integer");
	refused(HEAD "cells 8\n", "cells: given twice");
	refused("service s\ncells 12\n", "cells: 12 is not a power of two");
	refused("service s\ncells 2097152\n", "not in 1..1048576");
	refused("service s\ncells 99999999999999999999\n", "not in 1..1048576");
	refused("service s\nvalues 65\n", "values: '65' is not in 1..64");
	refused("service s\nkey-bytes 12\n", "key-bytes: 4, 8 or 16");
	refused("service s\nmembers 33\n", "members: '33' is not in 1..32");
	refused("service s\nwindow 100\n", "window: 100 is not a power of two");
	refused("service s\nserver 10.0.0.1\n", "server: no value");
	refused("service s\ncolour red\n", "'colour' is not a directive");
	refused(HEAD, "no operation");
	refused("service s\nid 1\ncells 16\nmembers 4\nop a get\n", "'type' is missing");
	refused(HEAD "op a\n", "line 6: op: usage");
	refused(HEAD "op A get\n", "op: 'A' is not a name");
	refused(HEAD "op a get\nop a clear\n", "line 7: op a: given twice");
	refused(HEAD "op a fetch\n", "op a: 'fetch' is not a primitive");
	refused(HEAD "op a get get\n", "op a: get twice");
	refused(HEAD "op a get(1)\n", "get takes no arguments");
	refused(HEAD "op a modify\n", "modify takes one argument");
	refused(HEAD "op a modify(xor)\n", "modify(xor): not set, max, min, or, and");
	refused(HEAD "op a cntfwd(4)\n", "cntfwd takes two arguments");
	refused(HEAD "op a cntfwd(4, all, x)\n", "cntfwd: too many arguments");
	refused(HEAD "op a cntfwd(5, all)\n", "more than the 4 members can ever count");
	refused(HEAD "op a cntfwd(0, all)\n", "cntfwd threshold: '0' is not in 1..65535");
	refused(HEAD "op a cntfwd(4, drop)\n", "forwards nothing");
	refused(HEAD "op a cntfwd(4, home)\n", "cntfwd target: 'home' is not sender");
	refused(HEAD "op a cntfwd(4, all) get\n", "cntfwd must be the last primitive");
	refused(HEAD "op a cntfwd(4, all) to all\n", "no 'to' after it");
	refused(HEAD "op a get to\n", "'to TARGET' ends the line");
	refused(HEAD "op a get to sender get\n", "'to TARGET' ends the line");
	refused(HEAD "op a get to nowhere\n", "to: 'nowhere' is not sender");
	refused(HEAD "op a get to sender(1)\n", "a target takes no arguments"); /* (fuzz) */
	refused(HEAD "op a get to server\n", "sends to the server, and the service has none");
	refused(HEAD "op a cntfwd(2, server)\n", "sends to the server, and the service has none");
	refused(HEAD "op a get(\n", "an empty argument");
	refused(HEAD "op a modify(set\n", "expected ',' or ')'");
	refused(HEAD "op a modify(set)get\n", "a space must follow ')'");
	refused(HEAD "op a get;\n", "unexpected ';'");
	refused("service s\nid 1\ntype map\ncells 16\nmembers 4\nop a cntfwd(2, all)\n",
	        "cntfwd on a map");
	refused("service s\nid 1\ntype array\ncells 16\nmembers 4\nkey-bytes 8\nop a get\n",
	        "only a map's keys have a width");
	refused("service s\nid 1\ntype array\ncells 16\nmembers 4\nserver\nop a get\n",
	        "only a map has misses");
	refused("service s\nid 1\ntype integer\ncells 16\nvalues 2\nmembers 4\nop a get\n",
	        "an integer service has one value a cell");
	refused("service s\nop a get\ntype map\n", "type: before the operations");
	/* bytes no description has */
	static const char nul[] = "service s\nid 1\0\n";
	assert_int_equal(nrpc_desc_parse(nul, sizeof(nul) - 1, &d, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 2: a NUL byte"));
	refused("service s\x01\n", "a control character (0x01)");
	char big[400];
	memset(big, 'a', sizeof(big));
	memcpy(big, "service ", 8);
	big[sizeof(big) - 1] = '\0';
	refused(big, "line 1: longer than 256 characters");
	/* a long comment is no line of its own */
	char text[600];
	snprintf(text, sizeof(text), HEAD "op a get # %0400d\n", 0);
	ok(text);
	/* 16 operations at most */
	char many[2048];
	size_t n = (size_t)snprintf(many, sizeof(many), HEAD);
	for (unsigned i = 0; i <= NRPC_OPS_MAX; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "op o%u get\n", i);
	refused(many, "line 22: more than 16 operations");
}

/* The arrays a service takes, and their placement next to what is taken already. */
static void test_place(void **state)
{
	(void)state;
	const struct isw_profile *t2 = isw_profile_find("tofino2");
	const struct isw_profile *t1 = isw_profile_find("tofino1");
	struct isw_asic_use use;
	struct isw_reg_decl regs[NRPC_REGS_MAX];

	ok("service allreduce\nid 1\ntype array\ncells 4096\nvalues 64\nmembers 4\n"
	   "op reduce addTo get cntfwd(members, all)\n");
	unsigned n = nrpc_desc_regs(&d, regs);
	assert_int_equal(n, 3); /* bitmap, count, values */
	assert_string_equal(regs[2].name, "values");
	assert_int_equal(regs[2].size, 2 * 4096); /* two sets */
	assert_int_equal(regs[2].lanes, 64);
	assert_int_equal(regs[2].stage, 3);
	memset(&use, 0, sizeof(use));
	/* alone: bitmap and count in stage 0, the 64 value lanes 4 a stage from stage 1 (1..16):
	 * tofino2's 20 stages hold them, tofino1's 12 not */
	assert_int_equal(nrpc_desc_place(&d, &use, t2, regs, err, sizeof(err)), 3);
	assert_int_equal(regs[0].stage, 0);
	assert_int_equal(regs[1].stage, 0);
	assert_int_equal(regs[2].stage, 1);
	assert_int_equal(nrpc_desc_place(&d, &use, t1, regs, err, sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "service allreduce does not fit tofino1: its array values "
	                            "finds no stage from 1 on"));
	assert_non_null(strstr(err, "needs 17 stages, tofino1 has 12"));

	/* a small service goes where the stages have room */
	ok("service c\nid 2\ntype integer\ncells 256\nmembers 2\nop get get\n");
	assert_int_equal(nrpc_desc_regs(&d, regs), 1);
	use.stage[0].salus = 4;
	use.stage[1].salus = 4;
	use.stages = 2;
	assert_int_equal(nrpc_desc_place(&d, &use, t1, regs, err, sizeof(err)), 1);
	assert_int_equal(regs[0].stage, 2);
	for (unsigned s = 0; s < 12; s++)
		use.stage[s].salus = 4;
	use.stages = 12;
	assert_int_equal(nrpc_desc_place(&d, &use, t1, regs, err, sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "its array values finds no stage from 0 on"));
	assert_non_null(strstr(err, "stage 0: 5 stateful ALUs, tofino1 has 4"));

	/* a map's keys: a lane a 32-bit word, after the seen window (members x window bits),
	 * the values after the keys */
	ok("service w\nid 3\ntype map\ncells 1024\nkey-bytes 16\nmembers 8\nwindow 256\n"
	   "op count addTo to drop\n");
	memset(&use, 0, sizeof(use));
	n = (unsigned)nrpc_desc_place(&d, &use, t2, regs, err, sizeof(err));
	assert_int_equal(n, 3);
	assert_string_equal(regs[0].name, "seen");
	assert_int_equal(regs[0].size, 8 * 256 / 32);
	assert_string_equal(regs[1].name, "key");
	assert_int_equal(regs[1].lanes, 4);
	assert_int_equal(regs[0].stage, 0);
	assert_int_equal(regs[1].stage, 1);
	assert_int_equal(regs[2].stage, 2);
	assert_int_equal(regs[2].size, 1024); /* one set */
	assert_false(d.need_reply);           /* count returns nothing */

	/* a get after an addTo keeps what it answered, a member's window position a cell, after
	 * the values */
	ok("service t\nid 4\ntype integer\ncells 2048\nmembers 8\nop take addTo get\n");
	n = (unsigned)nrpc_desc_place(&d, &use, t2, regs, err, sizeof(err));
	assert_int_equal(n, 3);
	assert_string_equal(regs[2].name, "reply");
	assert_int_equal(regs[2].size, 8 * NRPC_WINDOW_DEF);
	assert_int_equal(regs[1].stage, 1);
	assert_int_equal(regs[2].stage, 2);
}

static const char *examples; /* examples/netrpc */

/* The four example services of examples/netrpc: taken, and placed on tofino2 alone. */
static void test_examples(void **state)
{
	(void)state;
	static const char *const files[] = {"allreduce", "wordcount", "kvcache", "ticketlock"};
	static const uint8_t types[] = {NRPC_ARRAY, NRPC_MAP, NRPC_MAP, NRPC_INTEGER};
	for (unsigned i = 0; i < 4; i++) {
		char path[4096], text[NRPC_TEXT_MAX];
		snprintf(path, sizeof(path), "%s/%s.nrpc", examples, files[i]);
		FILE *f = fopen(path, "r");
		if (f == NULL)
			fail_msg("%s: cannot open", path);
		size_t n = fread(text, 1, sizeof(text), f);
		fclose(f);
		if (nrpc_desc_parse(text, n, &d, err, sizeof(err)) != 0)
			fail_msg("%s: %s", path, err);
		assert_string_equal(d.name, files[i]);
		assert_int_equal(d.id, i + 1);
		assert_int_equal(d.type, types[i]);
		struct isw_asic_use use;
		memset(&use, 0, sizeof(use));
		struct isw_reg_decl regs[NRPC_REGS_MAX];
		if (nrpc_desc_place(&d, &use, isw_profile_find("tofino2"), regs, err, sizeof(err)) <
		    0)
			fail_msg("%s: %s", path, err);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s EXAMPLES_DIR\n", argv[0]);
		return 2;
	}
	examples = argv[1];
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_examples),
	        cmocka_unit_test(test_four_kinds),
	        cmocka_unit_test(test_refusals),
	        cmocka_unit_test(test_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
