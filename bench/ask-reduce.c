/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ask-reduce: how fast one host core does the reduceByKey that ASK takes off the receiver, over
 * the tuples of the ASK bench (bench/README.md, "ASK against a host core"). A benchmark, not a
 * test: it prints figures and asserts nothing.
 *
 *   ask-reduce [--zipf KEYS,S,N,SEED] [--rounds R] [--json]
 *
 * Makes N tuples (8-byte keys, value 1) of the Zipf source ask-sender and `pcapgen ask-bench`
 * use (default 100000,1.1,4Mi,1: the bench capture's source), keeps them in memory, then R times
 * (default 5) merges all of them, one after the other, into a new table of the receiver's
 * (ask_table_merge(), operator add) on this thread, timed with CLOCK_MONOTONIC. Prints M tuples
 * a second for each round and the best; the tuples are made before the clock starts.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ask_host.h"

#define REDUCE_KEY 8u /* the source's keys: the id as 8 big-endian bytes */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
	fputs("usage: ask-reduce [--zipf KEYS,S,N,SEED] [--rounds R] [--json]\n"
	      "One host core's reduceByKey (the ASK receiver's table, add) over N Zipf tuples\n"
	      "(default 100000,1.1,4Mi,1: the tuples of pcapgen ask-bench); M tuples/s per "
	      "round.\n",
	      f);
}

/* The source's tuples, keys packed one after the other; NULL (and why, printed) on failure. */
static uint8_t *make_keys(const struct ask_zipf_spec *z)
{
	struct ask_src *src = ask_src_new();
	struct ask_tuple t;
	uint8_t *keys = malloc(z->count * REDUCE_KEY);
	uint64_t n = 0;
	int rc = 0;

	if (src == NULL || keys == NULL || ask_src_add_zipf(src, z) != 0) {
		fprintf(stderr, "ask-reduce: no memory for %llu tuples\n",
		        (unsigned long long)z->count);
		goto fail;
	}
	while (n < z->count && (rc = ask_src_next(src, &t)) == 1) {
		if (t.len != REDUCE_KEY || t.value != 1) {
			fprintf(stderr, "ask-reduce: the source made a %u-byte key\n", t.len);
			goto fail;
		}
		memcpy(keys + n++ * REDUCE_KEY, t.key, REDUCE_KEY);
	}
	if (n != z->count) {
		fprintf(stderr, "ask-reduce: the source ended after %llu tuples: %s\n",
		        (unsigned long long)n, rc < 0 ? ask_src_error(src) : "no more");
		goto fail;
	}
	ask_src_free(src);
	return keys;
fail:
	ask_src_free(src);
	free(keys);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	        {"zipf", required_argument, NULL, 'z'},
	        {"rounds", required_argument, NULL, 'r'},
	        {"json", no_argument, NULL, 'j'},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	struct ask_zipf_spec z = {.keys = 100000, .s = 1.1, .count = 4u << 20, .seed = 1};
	unsigned long rounds = 5;
	double best = 0;
	size_t keys_seen = 0;
	int json = 0, opt;
	char *end;
	uint8_t *keys;

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'z':
			if (ask_zipf_parse(optarg, &z) != 0 || z.count == 0 ||
			    z.count > (1ull << 30)) {
				fprintf(stderr,
				        "ask-reduce: --zipf: bad spec '%s' (1..2^30 tuples)\n",
				        optarg);
				return 2;
			}
			break;
		case 'r':
			errno = 0;
			rounds = strtoul(optarg, &end, 10);
			if (errno || *end || rounds < 1 || rounds > 1000) {
				fprintf(stderr, "ask-reduce: --rounds: bad value '%s' (1..1000)\n",
				        optarg);
				return 2;
			}
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	keys = make_keys(&z);
	if (keys == NULL)
		return 1;
	for (unsigned long r = 0; r < rounds; r++) {
		struct ask_table *t = ask_table_new(ASK_OP_ADD);
		double t0, s;

		if (t == NULL) {
			fprintf(stderr, "ask-reduce: no memory for the table\n");
			free(keys);
			return 1;
		}
		t0 = now_s();
		for (uint64_t i = 0; i < z.count; i++)
			if (ask_table_merge(t, keys + i * REDUCE_KEY, REDUCE_KEY, 1) != 0) {
				fprintf(stderr, "ask-reduce: no memory for the table\n");
				ask_table_free(t);
				free(keys);
				return 1;
			}
		s = now_s() - t0;
		keys_seen = ask_table_size(t);
		ask_table_free(t);
		if (!json)
			printf("round %lu: %.1f M tuples/s (%llu tuples in %.3f s, %zu keys)\n",
			       r + 1, (double)z.count / s / 1e6, (unsigned long long)z.count, s,
			       keys_seen);
		if ((double)z.count / s / 1e6 > best)
			best = (double)z.count / s / 1e6;
	}
	if (json)
		printf("{\"tuples\":%llu,\"keys\":%zu,\"rounds\":%lu,\"best_mtuples\":%.2f}\n",
		       (unsigned long long)z.count, keys_seen, rounds, best);
	else
		printf("best: %.1f M tuples/s on one core\n", best);
	free(keys);
	return 0;
}
