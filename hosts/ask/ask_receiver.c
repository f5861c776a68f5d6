/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ask-receiver: the receiver of one ASK task. ACKs and merges what the switch did not absorb,
 * swaps and drains the switch's aggregator arrays, fetches them all at the end and writes the
 * exact reduceByKey table.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ask_cli.h"
#include "ask_sock.h"
#include "host_args.h"

enum {
	OPT_LISTEN = 300,
	OPT_SWITCH,
	OPT_AA_SIZE,
	OPT_THRESHOLD,
	OPT_TIMEOUT,
	OPT_OUT,
	OPT_RTO,
	OPT_RETRIES,
	OPT_LINGER,
	OPT_HELP,
};

static const struct option longopts[] = {
        ASK_CLI_LONGOPTS_NET,
        ASK_CLI_LONGOPTS_COMMON,
        ASK_CLI_LONGOPTS_OUTPUT,
        {"listen", required_argument, NULL, OPT_LISTEN},
        {"switch", required_argument, NULL, OPT_SWITCH},
        {"aa-size", required_argument, NULL, OPT_AA_SIZE},
        {"swap-threshold", required_argument, NULL, OPT_THRESHOLD},
        {"timeout-s", required_argument, NULL, OPT_TIMEOUT},
        {"out", required_argument, NULL, OPT_OUT},
        {"rto-ms", required_argument, NULL, OPT_RTO},
        {"retries", required_argument, NULL, OPT_RETRIES},
        {"linger-ms", required_argument, NULL, OPT_LINGER},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
};

static void usage(FILE *f)
{
	fputs("usage: ask-receiver --switch IP[:PORT]|none [options]\n"
	      "The receiver of one ASK task (docs/ask.md); the shape must match the switch's\n"
	      "`ask task add`.\n"
	      "  --listen PORT        UDP port of DATA (default 42405)\n"
	      "  --switch IP[:PORT]   the switch's ASK address for SWAP and FETCH (port default\n"
	      "                       42405); none: no switch, no swaps, no final fetch\n"
	      "  --channels N         the task's channels 0..N-1 (default 1)\n",
	      f);
	fputs(ASK_CLI_HELP_TASK, f);
	fputs(ASK_CLI_HELP_TRANSPORT, f);
	fputs("  --aa-size A          entries of one AA copy, a power of two (default 4096)\n"
	      "  --swap-threshold T   swap a slot after T un-absorbed tuples (default 0: never)\n",
	      f);
	fputs(ASK_CLI_HELP_OUTPUT, f);
	fputs("  --out FILE           the final table, \"key<TAB>value\" sorted (-: stdout)\n"
	      "  --timeout-s S        give up after S s without progress (default 60)\n"
	      "  --rto-ms MS          SWAP / FETCH retry timeout (default 20)\n"
	      "  --retries N          retries of one SWAP / FETCH (default 50)\n"
	      "  --linger-ms MS       after the end, ACK late retransmissions until MS ms pass\n"
	      "                       without one (default 1000)\n"
	      "  --json               one JSON line when done\n" ASK_CLI_HELP_HELP,
	      f);
}

struct opts {
	struct ask_cli cli;
	unsigned listen, aa_size, timeout_s, rto_ms, retries, linger_ms;
	uint64_t threshold;
	struct sockaddr_in sw;
	bool have_sw, use_sw;
	const char *out;
};

static int parse_own(struct opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_LISTEN:
		return host_parse_uint(arg, 1, 65535, &o->listen);
	case OPT_SWITCH:
		o->have_sw = true;
		o->use_sw = strcmp(arg, "none") != 0;
		return o->use_sw ? ask_addr_parse(arg, ASK_UDP_PORT, &o->sw) : 0;
	case OPT_AA_SIZE:
		if (host_parse_uint(arg, 1, 1u << 31, &o->aa_size) < 0)
			return -EINVAL;
		return (o->aa_size & (o->aa_size - 1)) == 0 ? 0 : -EINVAL;
	case OPT_THRESHOLD:
		return host_parse_count(arg, UINT64_MAX, &o->threshold);
	case OPT_TIMEOUT:
		return host_parse_uint(arg, 1, 86400, &o->timeout_s);
	case OPT_OUT:
		o->out = arg;
		return 0;
	case OPT_RTO:
		return host_parse_uint(arg, 1, 60000, &o->rto_ms);
	case OPT_RETRIES:
		return host_parse_uint(arg, 0, 1000, &o->retries);
	case OPT_LINGER:
		return host_parse_uint(arg, 0, 600000, &o->linger_ms);
	case OPT_HELP:
		usage(stdout);
		exit(0);
	default:
		usage(stderr);
		exit(2);
	}
}

static int parse(int argc, char **argv, struct opts *o)
{
	int c, rc;

	ask_cli_defaults(&o->cli);
	o->listen = ASK_UDP_PORT;
	o->aa_size = ASK_DEF_AA_SIZE;
	o->timeout_s = 60;
	o->rto_ms = 20;
	o->retries = 50;
	o->linger_ms = 1000;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		rc = ask_cli_option(&o->cli, c, optarg, longopts);
		if (rc < 0)
			return -1;
		if (rc == 0 && parse_own(o, c, optarg) < 0) {
			fprintf(stderr, "ask-receiver: --%s: bad value '%s'\n",
			        host_opt_name(longopts, c), optarg);
			return -1;
		}
	}
	if (optind < argc || !o->have_sw || o->cli.ninputs > 0) {
		fprintf(stderr, "ask-receiver: needs --switch IP or --switch none, and no input\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

struct rx {
	const struct opts *o;
	struct ask_receiver *r;
	struct ask_udp *u;
	uint64_t t0, first_data, last_progress, last_data, done_ns;
	uint64_t strays; /* SWAP_DONE / FETCH_REPLY from anywhere but the switch, ignored */
};

/* One batch in: ACKs out to each DATA's source; the switch's replies only from the switch.
 * 0, or -1 after a message. */
static int take(struct rx *x, const uint8_t *const *bufs, const size_t *lens,
                const struct sockaddr_in *from, int n, uint64_t now)
{
	static uint8_t acks[ASK_BATCH][ASK_HDR_LEN];
	struct ask_tx tx[ASK_BATCH];
	struct sockaddr_in to[ASK_BATCH];
	unsigned na = 0;

	for (int i = 0; i < n; i++) {
		const uint8_t *b = bufs[i];
		if (x->o->use_sw && lens[i] > 0 &&
		    (b[0] == ASK_SWAP_DONE || b[0] == ASK_FETCH_REPLY) &&
		    !ask_addr_eq(&from[i], &x->o->sw)) {
			x->strays++;
			continue;
		}
		int rc = ask_receiver_input(x->r, b, lens[i], acks[na]);
		if (rc < 0) {
			fprintf(stderr, "ask-receiver: %s\n", ask_receiver_error(x->r));
			return -1;
		}
		if (rc == ASK_RX_NEW || rc == ASK_RX_DUP) {
			tx[na] = (struct ask_tx){acks[na], ASK_HDR_LEN};
			to[na++] = from[i];
			x->last_data = now;
			if (x->first_data == 0)
				x->first_data = now;
		}
		if (rc == ASK_RX_NEW || rc == ASK_RX_REPLY)
			x->last_progress = now;
	}
	if (na > 0 && (n = ask_udp_send(x->u, tx, na, to, 1)) < 0) {
		fprintf(stderr, "ask-receiver: send: %s\n", strerror(-n));
		return -1;
	}
	return 0;
}

/* The SWAP or FETCH due now, to the switch. 0, or -1 after a message. */
static int control(struct rx *x, uint64_t now)
{
	struct ask_tx tx;
	int rc = ask_receiver_ctl(x->r, now, &tx);

	if (rc < 0) {
		fprintf(stderr, "ask-receiver: %s\n", ask_receiver_error(x->r));
		return -1;
	}
	if (rc > 0 && (rc = ask_udp_send(x->u, &tx, 1, &x->o->sw, 0)) < 0) {
		fprintf(stderr, "ask-receiver: send to the switch: %s\n", strerror(-rc));
		return -1;
	}
	return 0;
}

static void report(const struct rx *x)
{
	const struct ask_recv_stats *st = ask_receiver_stats(x->r);
	size_t keys = ask_table_size(ask_receiver_table(x->r));
	double el = x->first_data ? (double)(x->done_ns - x->first_data) / 1e9 : 0;

	if (x->o->cli.json)
		printf("{\"task\":%u,\"channels\":%u,\"data_pkts\":%" PRIu64
		       ",\"dup_pkts\":%" PRIu64 ",\"bad_pkts\":%" PRIu64
		       ",\"long_records\":%" PRIu64 ",\"tuples_unabsorbed\":%" PRIu64
		       ",\"swaps\":%" PRIu64 ",\"swap_retries\":%" PRIu64 ",\"fetches\":%" PRIu64
		       ",\"fetch_retries\":%" PRIu64 ",\"fetched_records\":%" PRIu64
		       ",\"keys\":%zu,\"strays\":%" PRIu64
		       ",\"elapsed_s\":%.6f,\"transport\":\"%s\"}\n",
		       x->o->cli.task, x->o->cli.channels, st->data_pkts, st->dup_pkts,
		       st->bad_pkts, st->long_records, st->tuples_unabsorbed, st->swaps,
		       st->swap_retries, st->fetches, st->fetch_retries, st->fetched_records, keys,
		       x->strays, el, ask_udp_kind(x->u));
	else
		printf("ask-receiver: done: %" PRIu64 " packets (%" PRIu64 " duplicates), %" PRIu64
		       " tuples un-absorbed, %" PRIu64 " long, %" PRIu64 " swaps, %" PRIu64
		       " fetches, %" PRIu64 " fetched records, %zu keys, %" PRIu64
		       " replies from elsewhere ignored, %.3f s\n",
		       st->data_pkts, st->dup_pkts, st->tuples_unabsorbed, st->long_records,
		       st->swaps, st->fetches, st->fetched_records, keys, x->strays, el);
	fflush(stdout);
}

/* Runs to the end (and the linger after it). 0, or -1 after a message. */
static int run(struct rx *x)
{
	const uint8_t *bufs[ASK_BATCH];
	size_t lens[ASK_BATCH];
	struct sockaddr_in from[ASK_BATCH];
	const struct opts *o = x->o;

	x->t0 = x->last_progress = ask_now_ns();
	for (;;) {
		uint64_t now = ask_now_ns(), wake = ask_receiver_wake(x->r);
		int n = ask_udp_recv(x->u, bufs, lens, from, ASK_BATCH,
		                     ask_wait_ms(wake, now, 100));
		if (n < 0) {
			fprintf(stderr, "ask-receiver: receive: %s\n", strerror(-n));
			return -1;
		}
		now = ask_now_ns();
		if (take(x, bufs, lens, from, n, now) < 0 || control(x, now) < 0)
			return -1;
		if (x->done_ns == 0 && ask_receiver_done(x->r)) {
			x->done_ns = now;
			if (o->out != NULL &&
			    ask_cli_write_table(&o->cli, ask_receiver_table(x->r), o->out) < 0)
				return -1;
			report(x);
		}
		if (x->done_ns != 0) {
			uint64_t quiet = x->last_data > x->done_ns ? x->last_data : x->done_ns;
			if (now - quiet >= o->linger_ms * 1000000ull)
				return 0;
		} else if (now - x->last_progress >= o->timeout_s * 1000000000ull) {
			fprintf(stderr, "ask-receiver: no progress for %u s (stream %s)\n",
			        o->timeout_s,
			        ask_receiver_complete(x->r) ? "complete, draining the switch"
			                                    : "incomplete");
			return -1;
		}
	}
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	struct timespec ts;
	struct rx x = {.o = &o};
	char err[320];
	int rc;

	if (parse(argc, argv, &o) < 0)
		return 2;
	/* Control seqs differ from run to run: the switch replays its kept FETCH reply to a
	 * request that repeats (seq, slot, copy, start), which a restarted receiver must not do. */
	clock_gettime(CLOCK_REALTIME, &ts);
	struct ask_recv_cfg cfg = {
	        .task = (uint16_t)o.cli.task,
	        .incarnation = (uint16_t)o.cli.incarnation,
	        .nchan = o.cli.channels,
	        .window = o.cli.window,
	        .nslots = o.cli.slots,
	        .key_bytes = o.cli.key_bytes,
	        .aa_size = o.aa_size,
	        .op = o.cli.op,
	        .ctl = o.use_sw,
	        .swap_threshold = o.threshold,
	        .rto_ns = o.rto_ms * 1000000ull,
	        .retries = o.retries,
	        .seq0 = (uint32_t)((uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^
	                           (uint64_t)getpid() << 16),
	};
	x.r = ask_receiver_new(&cfg);
	if (x.r == NULL) {
		fprintf(stderr, "ask-receiver: %s\n", strerror(errno));
		return 1;
	}
	rc = ask_udp_open(&x.u, (uint16_t)o.listen, o.use_sw ? &o.sw : NULL, o.cli.transport,
	                  o.cli.busy_poll, "ask-receiver", o.cli.json, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "ask-receiver: port %u: %s\n", o.listen, err);
		ask_receiver_free(x.r);
		return 1;
	}
	rc = run(&x);
	ask_udp_close(x.u);
	ask_receiver_free(x.r);
	return rc == 0 ? 0 : 1;
}
