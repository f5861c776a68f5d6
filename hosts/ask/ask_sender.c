/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ask-sender: stream the tuples of one ASK task to its receiver (through the switch) over UDP,
 * on channels C..C+K-1, and report tuples/s.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ask_cli.h"
#include "ask_sock.h"
#include "host_args.h"

enum { OPT_RECEIVER = 300, OPT_ACK_FROM, OPT_RTO, OPT_RETRIES, OPT_HELP };

static const struct option longopts[] = {
        ASK_CLI_LONGOPTS_NET,
        ASK_CLI_LONGOPTS_COMMON,
        ASK_CLI_LONGOPTS_INPUT,
        {"channel", required_argument, NULL, ASK_CLI_CHANNEL},
        {"receiver", required_argument, NULL, OPT_RECEIVER},
        {"ack-from", required_argument, NULL, OPT_ACK_FROM},
        {"rto-ms", required_argument, NULL, OPT_RTO},
        {"retries", required_argument, NULL, OPT_RETRIES},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
};

static void usage(FILE *f)
{
	fputs("usage: ask-sender --receiver IP[:PORT] [options] INPUT...\n"
	      "Streams (key, value) tuples of one ASK task to its receiver (docs/ask.md).\n"
	      "  --receiver IP[:PORT] the task's receiver (port default 42405)\n"
	      "  --channel C          first channel (default 0)\n"
	      "  --channels K         channels C..C+K-1, packets round-robin (default 1)\n"
	      "  --ack-from IP[:PORT] take ACKs only from there (port default 42405), others\n"
	      "                       counted as strays (default any: the receiver's source\n"
	      "                       may differ from --receiver)\n",
	      f);
	fputs(ASK_CLI_HELP_TASK, f);
	fputs(ASK_CLI_HELP_TRANSPORT, f);
	fputs("  --rto-ms MS          least retransmission timeout (default 20)\n"
	      "  --retries N          resends of one packet before giving up (default 50)\n"
	      "  --json               one JSON line at the end\n" ASK_CLI_HELP_HELP "inputs:\n",
	      f);
	fputs(ASK_CLI_HELP_INPUT, f);
}

struct opts {
	struct ask_cli cli;
	struct sockaddr_in to, ack_from;
	unsigned rto_ms, retries;
	bool have_to, have_ack_from;
};

static int parse(int argc, char **argv, struct opts *o)
{
	int c, rc;

	ask_cli_defaults(&o->cli);
	o->rto_ms = 20;
	o->retries = 50;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		rc = ask_cli_option(&o->cli, c, optarg, longopts);
		if (rc < 0)
			return -1;
		if (rc > 0)
			continue;
		switch (c) {
		case OPT_RECEIVER:
			rc = ask_addr_parse(optarg, ASK_UDP_PORT, &o->to);
			o->have_to = true;
			break;
		case OPT_ACK_FROM:
			o->have_ack_from = strcmp(optarg, "any") != 0;
			rc = o->have_ack_from ? ask_addr_parse(optarg, ASK_UDP_PORT, &o->ack_from)
			                      : 0;
			break;
		case OPT_RTO:
			rc = host_parse_uint(optarg, 1, 60000, &o->rto_ms);
			break;
		case OPT_RETRIES:
			rc = host_parse_uint(optarg, 0, 1000, &o->retries);
			break;
		case OPT_HELP:
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
		if (rc < 0) {
			fprintf(stderr, "ask-sender: --%s: bad value '%s'\n",
			        host_opt_name(longopts, c), optarg);
			return -1;
		}
	}
	if (optind < argc || !o->have_to || o->cli.ninputs == 0) {
		fprintf(stderr, "ask-sender: needs --receiver and at least one input\n");
		usage(stderr);
		return -1;
	}
	if (o->cli.channel + o->cli.channels - 1 > UINT16_MAX) {
		fprintf(stderr, "ask-sender: channels past 65535\n");
		return -1;
	}
	return 0;
}

/* Sends and takes ACKs until every channel is done; with ack_from, datagrams from anywhere else
 * are counted in *strays and ignored. 0 or -1 after a message. */
static int run(struct ask_sender *s, struct ask_udp *u, const struct sockaddr_in *to,
               const struct sockaddr_in *ack_from, uint64_t *strays)
{
	const uint8_t *bufs[ASK_BATCH];
	size_t lens[ASK_BATCH];
	struct sockaddr_in from[ASK_BATCH];
	struct ask_tx tx[ASK_BATCH];

	for (;;) {
		uint64_t now = ask_now_ns();
		int n = ask_sender_pump(s, now, tx, ASK_BATCH);
		if (n < 0) {
			fprintf(stderr, "ask-sender: %s\n", ask_sender_error(s));
			return -1;
		}
		if (n > 0 && (n = ask_udp_send(u, tx, (unsigned)n, to, 0)) < 0) {
			fprintf(stderr, "ask-sender: send: %s\n", strerror(-n));
			return -1;
		}
		if (ask_sender_done(s))
			return 0;
		/* A full batch: more may be ready at once, so only look at what arrived. */
		int r = ask_udp_recv(
		        u, bufs, lens, from, ASK_BATCH,
		        n == (int)ASK_BATCH ? 0 : ask_wait_ms(ask_sender_wake(s), now, 100));
		if (r < 0) {
			fprintf(stderr, "ask-sender: receive: %s\n", strerror(-r));
			return -1;
		}
		now = ask_now_ns();
		for (int i = 0; i < r; i++) {
			if (ack_from != NULL && !ask_addr_eq(&from[i], ack_from)) {
				(*strays)++;
				continue;
			}
			ask_sender_ack(s, bufs[i], lens[i], now);
		}
	}
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	struct ask_sender *s;
	struct ask_udp *u;
	char err[320];
	int rc;

	if (parse(argc, argv, &o) < 0)
		return 2;
	struct ask_send_cfg cfg = {
	        .task = (uint16_t)o.cli.task,
	        .incarnation = (uint16_t)o.cli.incarnation,
	        .channel0 = (uint16_t)o.cli.channel,
	        .nchan = o.cli.channels,
	        .window = o.cli.window,
	        .nslots = o.cli.slots,
	        .key_bytes = o.cli.key_bytes,
	        .rto_ns = o.rto_ms * 1000000ull,
	        .retries = o.retries,
	};
	s = ask_sender_new(&cfg, o.cli.src);
	if (s == NULL) {
		fprintf(stderr, "ask-sender: %s\n", strerror(errno));
		ask_src_free(o.cli.src);
		return 1;
	}
	rc = ask_udp_open(&u, 0, &o.to, o.cli.transport, o.cli.busy_poll, "ask-sender", o.cli.json,
	                  err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "ask-sender: %s\n", err);
		ask_sender_free(s);
		return 1;
	}
	uint64_t t0 = ask_now_ns(), strays = 0;
	rc = run(s, u, &o.to, o.have_ack_from ? &o.ack_from : NULL, &strays);
	double el = (double)(ask_now_ns() - t0) / 1e9;
	const struct ask_send_stats *st = ask_sender_stats(s);
	double tps = el > 0 ? (double)st->tuples / el : 0;
	if (o.cli.json)
		printf("{\"ok\":%s,\"task\":%u,\"channel\":%u,\"channels\":%u,\"tuples\":%" PRIu64
		       ",\"long_tuples\":%" PRIu64 ",\"packets\":%" PRIu64
		       ",\"long_packets\":%" PRIu64 ",\"resends\":%" PRIu64 ",\"acks\":%" PRIu64
		       ",\"dup_acks\":%" PRIu64 ",\"strays\":%" PRIu64
		       ",\"elapsed_s\":%.6f,\"tuples_per_s\":%.0f,\"transport\":\"%s\"}\n",
		       rc == 0 ? "true" : "false", o.cli.task, o.cli.channel, o.cli.channels,
		       st->tuples, st->long_tuples, st->packets, st->long_packets, st->resends,
		       st->acks, st->dup_acks, strays, el, tps, ask_udp_kind(u));
	else
		printf("ask-sender: %s: %" PRIu64 " tuples (%" PRIu64 " long) in %" PRIu64
		       " packets, %" PRIu64 " resends, %" PRIu64
		       " datagrams from elsewhere ignored, %.3f s, %.0f tuples/s\n",
		       rc == 0 ? "done" : "FAILED", st->tuples, st->long_tuples, st->packets,
		       st->resends, strays, el, tps);
	ask_udp_close(u);
	ask_sender_free(s);
	return rc == 0 ? 0 : 1;
}
