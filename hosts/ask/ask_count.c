/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ask-count: the local reduceByKey of the same inputs ask-sender reads, written in exactly the
 * format of ask-receiver --out, so that the two files compare with cmp.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask_cli.h"

enum { OPT_OUT = 300, OPT_HELP };

static const struct option longopts[] = {
        ASK_CLI_LONGOPTS_COMMON,
        ASK_CLI_LONGOPTS_INPUT,
        ASK_CLI_LONGOPTS_OUTPUT,
        {"out", required_argument, NULL, OPT_OUT},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
};

static void usage(FILE *f)
{
	fputs("usage: ask-count [options] INPUT...\n"
	      "reduceByKey of the inputs, in ask-receiver's --out format.\n"
	      "  --key-bytes KB       key width the senders use: 4, 8 or 16 (default 8)\n",
	      f);
	fputs(ASK_CLI_HELP_OUTPUT, f);
	fputs("  --out FILE           where the table goes (default -: stdout)\n"
	      "  --json               a JSON line (tuples, keys): on stdout with --out FILE,\n"
	      "                       else on stderr\n" ASK_CLI_HELP_HELP "inputs:\n",
	      f);
	fputs(ASK_CLI_HELP_INPUT, f);
}

int main(int argc, char **argv)
{
	struct ask_cli cli;
	const char *out = "-";
	struct ask_tuple t;
	uint8_t key[ASK_KEY_MAX];
	uint64_t tuples = 0;
	struct ask_table *tab;
	int c, rc;

	ask_cli_defaults(&cli);
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		rc = ask_cli_option(&cli, c, optarg, longopts);
		if (rc < 0)
			return 2;
		if (rc > 0)
			continue;
		if (c == OPT_OUT) {
			out = optarg;
			continue;
		}
		usage(c == OPT_HELP ? stdout : stderr);
		return c == OPT_HELP ? 0 : 2;
	}
	if (optind < argc || cli.ninputs == 0) {
		fprintf(stderr, "ask-count: needs at least one input\n");
		usage(stderr);
		return 2;
	}
	tab = ask_table_new(cli.op);
	if (tab == NULL) {
		fprintf(stderr, "ask-count: out of memory\n");
		return 1;
	}
	while ((rc = ask_src_next(cli.src, &t)) > 0) {
		unsigned len = ask_key_canon(key, t.key, t.len, cli.key_bytes);
		if (ask_table_merge(tab, key, len, t.value) < 0) {
			rc = -ENOMEM;
			break;
		}
		tuples++;
	}
	if (rc == -ENOMEM)
		fprintf(stderr, "ask-count: out of memory\n");
	else if (rc < 0)
		fprintf(stderr, "ask-count: %s\n", ask_src_error(cli.src));
	if (rc == 0)
		rc = ask_cli_write_table(&cli, tab, out);
	if (rc == 0 && cli.json)
		fprintf(strcmp(out, "-") == 0 ? stderr : stdout,
		        "{\"tuples\":%" PRIu64 ",\"keys\":%zu}\n", tuples, ask_table_size(tab));
	ask_table_free(tab);
	ask_src_free(cli.src);
	return rc == 0 ? 0 : 1;
}
