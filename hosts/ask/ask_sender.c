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
#include <time.h>
#include <unistd.h>

#include "ask_cli.h"
#include "ask_sock.h"
#include "host_args.h"

enum { OPT_RECEIVER = 300, OPT_DATA_TO, OPT_ACK_FROM, OPT_RTO, OPT_RETRIES, OPT_TIMEOUT, OPT_HELP };

static const struct option longopts[] = {
        ASK_CLI_LONGOPTS_NET,
        ASK_CLI_LONGOPTS_COMMON,
        ASK_CLI_LONGOPTS_INPUT,
        {"channel", required_argument, NULL, ASK_CLI_CHANNEL},
        {"receiver", required_argument, NULL, OPT_RECEIVER},
        {"data-to", required_argument, NULL, OPT_DATA_TO},
        {"ack-from", required_argument, NULL, OPT_ACK_FROM},
        {"rto-ms", required_argument, NULL, OPT_RTO},
        {"retries", required_argument, NULL, OPT_RETRIES},
        {"timeout-s", required_argument, NULL, OPT_TIMEOUT},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
};

static void usage(FILE *f)
{
	fputs("usage: ask-sender --receiver IP[:PORT] [options] INPUT...\n"
	      "Streams (key, value) tuples of one ASK task to its receiver (docs/ask.md): asks\n"
	      "the receiver for the job (HELLO), streams, and closes each channel with its\n"
	      "totals, which the receiver checks its result against.\n"
	      "  --receiver IP[:PORT] the task's receiver (port default 42405)\n"
	      "  --data-to IP[:PORT]  send DATA there instead of to the receiver: the switch's\n"
	      "                       ASK address when the switch is not on the path (one-armed);\n"
	      "                       HELLO and CLOSE still go to the receiver\n"
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
	      "  --timeout-s S        give up when the receiver has not answered HELLO for S s\n"
	      "                       (default 60)\n"
	      "  --json               one JSON line at the end\n" ASK_CLI_HELP_HELP "inputs:\n",
	      f);
	fputs(ASK_CLI_HELP_INPUT, f);
}

struct opts {
	struct ask_cli cli;
	struct sockaddr_in to, data_to, ack_from;
	unsigned rto_ms, retries, timeout_s;
	bool have_to, have_data_to, have_ack_from;
};

static int parse(int argc, char **argv, struct opts *o)
{
	int c, rc;

	ask_cli_defaults(&o->cli);
	o->rto_ms = 20;
	o->retries = 50;
	o->timeout_s = 60;
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
		case OPT_DATA_TO:
			rc = ask_addr_parse(optarg, ASK_UDP_PORT, &o->data_to);
			o->have_data_to = true;
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
		case OPT_TIMEOUT:
			rc = host_parse_uint(optarg, 1, 86400, &o->timeout_s);
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

struct tx_ctx {
	struct ask_udp *u;
	const struct sockaddr_in *to, *data_to, *ack_from;
	struct ask_sjob *j;
	struct ask_sender *s; /* once the job's incarnation is known */
	uint64_t strays;
};

/* Whatever arrived within wait_ms: job messages to the job, ACKs to the stream; with ack_from,
 * datagrams from anywhere else are counted and ignored. 0, or -1 after a message. */
static int receive(struct tx_ctx *x, int wait_ms)
{
	const uint8_t *bufs[ASK_BATCH];
	size_t lens[ASK_BATCH];
	struct sockaddr_in from[ASK_BATCH];
	int r = ask_udp_recv(x->u, bufs, lens, from, ASK_BATCH, wait_ms);

	if (r < 0) {
		fprintf(stderr, "ask-sender: receive: %s\n", strerror(-r));
		return -1;
	}
	uint64_t now = host_now_ns();
	for (int i = 0; i < r; i++) {
		if (x->ack_from != NULL && !ask_addr_eq(&from[i], x->ack_from)) {
			x->strays++;
			continue;
		}
		int rc = ask_sjob_input(x->j, bufs[i], lens[i]);
		if (rc < 0) {
			fprintf(stderr, "ask-sender: %s\n", ask_sjob_error(x->j));
			return -1;
		}
		if (rc == 0 && x->s != NULL)
			ask_sender_ack(x->s, bufs[i], lens[i], now);
	}
	return 0;
}

/* Sends what the job has due (HELLO, CLOSEs). 0, or -1 after a message. */
static int job_pump(struct tx_ctx *x, uint64_t now)
{
	struct ask_tx tx[ASK_BATCH];
	int n = ask_sjob_pump(x->j, now, tx, ASK_BATCH);

	if (n < 0) {
		fprintf(stderr, "ask-sender: %s\n", ask_sjob_error(x->j));
		return -1;
	}
	if (n > 0 && (n = ask_udp_send(x->u, tx, (unsigned)n, x->to, 0)) < 0) {
		fprintf(stderr, "ask-sender: send: %s\n", strerror(-n));
		return -1;
	}
	return 0;
}

/* The job's messages (HELLO, CLOSEs) until done says it is through: the receiver gave the
 * incarnation, or took every CLOSE. 0, or -1 after a message. */
static int job_until(struct tx_ctx *x, bool (*done)(const struct ask_sjob *))
{
	while (!done(x->j))
		if (job_pump(x, host_now_ns()) < 0 || receive(x, 10) < 0)
			return -1;
	return 0;
}

/* Streams until every channel is done. 0, or -1 after a message. */
static int stream(struct tx_ctx *x)
{
	struct ask_tx tx[ASK_BATCH];

	for (;;) {
		uint64_t now = host_now_ns();
		int n = ask_sender_pump(x->s, now, tx, ASK_BATCH);
		if (n < 0) {
			fprintf(stderr, "ask-sender: %s\n", ask_sender_error(x->s));
			return -1;
		}
		if (n > 0 && (n = ask_udp_send(x->u, tx, (unsigned)n, x->data_to, 0)) < 0) {
			fprintf(stderr, "ask-sender: send: %s\n", strerror(-n));
			return -1;
		}
		if (ask_sender_done(x->s))
			return 0;
		/* A full batch: more may be ready at once, so only look at what arrived. */
		if (receive(x, n == (int)ASK_BATCH
		                       ? 0
		                       : ask_wait_ms(ask_sender_wake(x->s), now, 100)) < 0)
			return -1;
	}
}

/* CLOSE every channel with its totals until the receiver has them. 0, or -1. */
static int close_channels(struct tx_ctx *x, unsigned nchan)
{
	struct ask_totals *tot = calloc(nchan, sizeof(*tot));

	if (tot == NULL) {
		fprintf(stderr, "ask-sender: out of memory\n");
		return -1;
	}
	for (unsigned k = 0; k < nchan; k++)
		tot[k] = *ask_sender_totals(x->s, k);
	ask_sjob_close(x->j, tot, host_now_ns());
	free(tot);
	return job_until(x, ask_sjob_done);
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	struct tx_ctx x = {0};
	struct timespec ts;
	char err[320];
	int rc;

	if (parse(argc, argv, &o) < 0)
		return 2;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint32_t nonce = (uint32_t)((uint64_t)ts.tv_sec * 2654435761u ^ (uint64_t)ts.tv_nsec ^
	                            (uint64_t)getpid() << 12);
	struct ask_sjob_cfg jcfg = {
	        .task = (uint16_t)o.cli.task,
	        .channel0 = (uint16_t)o.cli.channel,
	        .nchan = o.cli.channels,
	        .window = o.cli.window,
	        .nslots = o.cli.slots,
	        .key_bytes = o.cli.key_bytes,
	        .nonce = nonce ? nonce : 1,
	        .job = o.cli.job,
	        .rto_ns = o.rto_ms * 1000000ull,
	        .timeout_ns = o.timeout_s * 1000000000ull,
	        .retries = o.retries,
	};
	struct ask_send_cfg cfg = {
	        .task = (uint16_t)o.cli.task,
	        .channel0 = (uint16_t)o.cli.channel,
	        .nchan = o.cli.channels,
	        .window = o.cli.window,
	        .nslots = o.cli.slots,
	        .key_bytes = o.cli.key_bytes,
	        .rto_ns = o.rto_ms * 1000000ull,
	        .retries = o.retries,
	};
	x.to = &o.to;
	x.data_to = o.have_data_to ? &o.data_to : &o.to;
	x.ack_from = o.have_ack_from ? &o.ack_from : NULL;
	x.j = ask_sjob_new(&jcfg);
	if (x.j == NULL) {
		fprintf(stderr, "ask-sender: %s\n", strerror(errno));
		ask_src_free(o.cli.src);
		return 1;
	}
	rc = ask_udp_open(&x.u, 0, x.data_to, o.cli.transport, o.cli.busy_poll, "ask-sender",
	                  o.cli.json, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "ask-sender: %s\n", err);
		ask_sjob_free(x.j);
		ask_src_free(o.cli.src);
		return 1;
	}
	uint64_t t0 = host_now_ns();
	rc = job_until(&x, ask_sjob_ready);
	if (rc == 0) {
		cfg.incarnation = ask_sjob_incarnation(x.j);
		x.s = ask_sender_new(&cfg, o.cli.src);
		if (x.s == NULL) {
			fprintf(stderr, "ask-sender: %s\n", strerror(errno));
			rc = -1;
		}
	}
	if (x.s == NULL)
		ask_src_free(o.cli.src);
	if (rc == 0)
		rc = stream(&x);
	if (rc == 0)
		rc = close_channels(&x, o.cli.channels);
	double el = (double)(host_now_ns() - t0) / 1e9;
	static const struct ask_send_stats none;
	const struct ask_send_stats *st = x.s != NULL ? ask_sender_stats(x.s) : &none;
	double tps = el > 0 ? (double)st->tuples / el : 0;
	if (o.cli.json)
		printf("{\"ok\":%s,\"task\":%u,\"incarnation\":%u,\"channel\":%u,\"channels\":%u,"
		       "\"tuples\":%" PRIu64 ",\"long_tuples\":%" PRIu64 ",\"packets\":%" PRIu64
		       ",\"long_packets\":%" PRIu64 ",\"resends\":%" PRIu64 ",\"acks\":%" PRIu64
		       ",\"dup_acks\":%" PRIu64 ",\"strays\":%" PRIu64
		       ",\"elapsed_s\":%.6f,\"tuples_per_s\":%.0f,\"transport\":\"%s\"}\n",
		       rc == 0 ? "true" : "false", o.cli.task, ask_sjob_incarnation(x.j),
		       o.cli.channel, o.cli.channels, st->tuples, st->long_tuples, st->packets,
		       st->long_packets, st->resends, st->acks, st->dup_acks, x.strays, el, tps,
		       ask_udp_kind(x.u));
	else
		printf("ask-sender: %s: %" PRIu64 " tuples (%" PRIu64 " long) in %" PRIu64
		       " packets, %" PRIu64 " resends, %" PRIu64
		       " datagrams from elsewhere ignored, %.3f s, %.0f tuples/s\n",
		       rc == 0 ? "done" : "FAILED", st->tuples, st->long_tuples, st->packets,
		       st->resends, x.strays, el, tps);
	ask_udp_close(x.u);
	ask_sender_free(x.s);
	ask_sjob_free(x.j);
	return rc == 0 ? 0 : 1;
}
