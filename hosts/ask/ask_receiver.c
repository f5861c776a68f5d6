/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ask-receiver: the receiver of one ASK task. ACKs and merges what the switch did not absorb,
 * swaps and drains the switch's aggregator arrays, fetches them all at the end and writes the
 * exact reduceByKey table.
 */
#include <arpa/inet.h>
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
#include "host_rand.h"

enum {
	OPT_LISTEN = 300,
	OPT_SWITCH,
	OPT_EDGE,
	OPT_AA_SIZE,
	OPT_THRESHOLD,
	OPT_TIMEOUT,
	OPT_OUT,
	OPT_RTO,
	OPT_RETRIES,
	OPT_LINGER,
	OPT_PROBE,
	OPT_SILENCE,
	OPT_HELP,
};

static const struct option longopts[] = {
        ASK_CLI_LONGOPTS_NET,
        ASK_CLI_LONGOPTS_COMMON,
        ASK_CLI_LONGOPTS_OUTPUT,
        {"listen", required_argument, NULL, OPT_LISTEN},
        {"switch", required_argument, NULL, OPT_SWITCH},
        {"edge", required_argument, NULL, OPT_EDGE},
        {"aa-size", required_argument, NULL, OPT_AA_SIZE},
        {"swap-threshold", required_argument, NULL, OPT_THRESHOLD},
        {"timeout-s", required_argument, NULL, OPT_TIMEOUT},
        {"out", required_argument, NULL, OPT_OUT},
        {"rto-ms", required_argument, NULL, OPT_RTO},
        {"retries", required_argument, NULL, OPT_RETRIES},
        {"linger-ms", required_argument, NULL, OPT_LINGER},
        {"incarnation", required_argument, NULL, ASK_CLI_INCARNATION},
        {"probe-ms", required_argument, NULL, OPT_PROBE},
        {"switch-timeout-s", required_argument, NULL, OPT_SILENCE},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
};

static void usage(FILE *f)
{
	fputs("usage: ask-receiver --switch IP[:PORT]|none [options]\n"
	      "The receiver of one ASK job (docs/ask.md); the shape must match the switch's\n"
	      "`ask task add`. It starts a new incarnation of the task on the switch (BEGIN),\n"
	      "gives it to the senders, and checks the result against their totals: exit 0\n"
	      "only when the check holds.\n"
	      "  --listen PORT        UDP port of DATA (default 42405)\n"
	      "  --switch IP[:PORT]   the switch's ASK address for SWAP and FETCH (port default\n"
	      "                       42405); none: no switch, no swaps, no final fetch\n"
	      "  --edge IP[:PORT]     a switch on the senders' side that aggregates too\n"
	      "                       (docs/fabric.md); repeat for each, at most 15: edge\n"
	      "                       switch k is the k-th --edge\n"
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
	      "  --incarnation I      the incarnation to start, 1..65535 (default a random one;\n"
	      "                       another if the switch has it already)\n"
	      "  --probe-ms MS        ask the switch every MS ms whether it still has the job\n"
	      "                       (default 100)\n"
	      "  --switch-timeout-s S fail when the switch has not answered for S s (default 5)\n"
	      "  --json               one JSON line when done\n" ASK_CLI_HELP_HELP,
	      f);
}

struct opts {
	struct ask_cli cli;
	unsigned listen, aa_size, timeout_s, rto_ms, retries, linger_ms, probe_ms, silence_s;
	uint64_t threshold;
	struct sockaddr_in sw[1 + ASK_EDGES_MAX]; /* the receiver's switch, then the edges */
	unsigned edges;
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
		return o->use_sw ? ask_addr_parse(arg, ASK_UDP_PORT, &o->sw[0]) : 0;
	case OPT_EDGE:
		if (o->edges == ASK_EDGES_MAX) {
			fprintf(stderr, "ask-receiver: at most %u --edge\n", ASK_EDGES_MAX);
			exit(2);
		}
		return ask_addr_parse(arg, ASK_UDP_PORT, &o->sw[1 + o->edges++]);
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
	case OPT_PROBE:
		return host_parse_uint(arg, 1, 60000, &o->probe_ms);
	case OPT_SILENCE:
		return host_parse_uint(arg, 1, 3600, &o->silence_s);
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
	o->probe_ms = 100;
	o->silence_s = 5;
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
	if (o->edges > 0 && !o->use_sw) {
		fprintf(stderr, "ask-receiver: --edge needs the receiver's own --switch IP\n");
		return -1;
	}
	for (unsigned a = 0; o->use_sw && a <= o->edges; a++)
		for (unsigned b = a + 1; b <= o->edges; b++)
			if (ask_addr_eq(&o->sw[a], &o->sw[b])) {
				fprintf(stderr,
				        "ask-receiver: %s:%u is given twice (--switch, --edge)\n",
				        inet_ntoa(o->sw[a].sin_addr), ntohs(o->sw[a].sin_port));
				return -1;
			}
	if (optind < argc || !o->have_sw || o->cli.ninputs > 0) {
		fprintf(stderr, "ask-receiver: needs --switch IP or --switch none, and no input\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

#define MAX_SENDERS 256 /* distinct sender addresses an ABORT goes to */

struct rx {
	const struct opts *o;
	struct ask_rjob *j;
	struct ask_receiver *r; /* once the job has begun */
	struct ask_recv_cfg cfg;
	struct ask_udp *u;
	uint64_t t0, first_data, last_progress, last_data, done_ns;
	uint64_t strays; /* switch replies from anywhere but the switch, ignored */
	struct sockaddr_in senders[MAX_SENDERS];
	unsigned nsenders;
	int verified; /* -1: not checked, 0: the check failed, 1: it held */
	bool reported;
	char why[512];
};

static void sender_seen(struct rx *x, const struct sockaddr_in *a)
{
	for (unsigned i = 0; i < x->nsenders; i++)
		if (ask_addr_eq(&x->senders[i], a))
			return;
	if (x->nsenders < MAX_SENDERS)
		x->senders[x->nsenders++] = *a;
}

/* What only the switches send. */
static bool from_switch_only(uint8_t type)
{
	return type == ASK_SWAP_DONE || type == ASK_FETCH_REPLY || type == ASK_BEGIN_DONE;
}

static bool is_switch(const struct opts *o, const struct sockaddr_in *a)
{
	for (unsigned k = 0; o->use_sw && k <= o->edges; k++)
		if (ask_addr_eq(a, &o->sw[k]))
			return true;
	return false;
}

/* The job failed: why, and an ABORT to every sender that said HELLO (three times: they are
 * not answered). Returns -1. */
static int fail(struct rx *x, uint16_t reason, const char *why)
{
	uint8_t pkt[ASK_MSG_MAX];
	struct ask_tx tx;

	snprintf(x->why, sizeof(x->why), "%s", why);
	fprintf(stderr, "ask-receiver: %s\n", why);
	tx.buf = pkt;
	tx.len = ask_abort_build(pkt, (uint16_t)x->o->cli.task, ask_rjob_incarnation(x->j), reason,
	                         why);
	for (int k = 0; k < 3; k++)
		for (unsigned i = 0; i < x->nsenders; i++)
			ask_udp_send(x->u, &tx, 1, &x->senders[i], 0);
	return -1;
}

static int fail_rc(struct rx *x, int rc, const char *why)
{
	return fail(x, rc == -ESTALE ? ASK_ABORT_STATE_LOST : ASK_ABORT_FAILED, why);
}

/* One batch in: ACKs and job replies out to each datagram's source; the switch's replies only
 * from the switch. 0, or -1 after a message. */
static int take(struct rx *x, const uint8_t *const *bufs, const size_t *lens,
                const struct sockaddr_in *from, int n, uint64_t now)
{
	static uint8_t replies[ASK_BATCH][ASK_HDR_LEN];
	struct ask_tx tx[ASK_BATCH];
	struct sockaddr_in to[ASK_BATCH];
	uint8_t out[ASK_MSG_MAX];
	unsigned na = 0, chan;
	size_t olen;

	for (int i = 0; i < n; i++) {
		const uint8_t *b = bufs[i];
		if (lens[i] > 0 && from_switch_only(b[0]) && !is_switch(x->o, &from[i])) {
			x->strays++;
			continue;
		}
		int rc = ask_rjob_input(x->j, x->r, b, lens[i], now, out, &olen, &chan);
		if (rc < 0)
			return fail_rc(x, rc, ask_rjob_error(x->j));
		if (rc == ASK_JRX_REPLY) {
			if (b[0] == ASK_HELLO)
				sender_seen(x, &from[i]);
			memcpy(replies[na], out, ASK_HDR_LEN);
			tx[na] = (struct ask_tx){.buf = replies[na], .len = olen};
			to[na++] = from[i];
			x->last_progress = now;
			continue;
		}
		if (rc == ASK_JRX_TAKEN || x->r == NULL)
			continue;
		rc = ask_receiver_input(x->r, b, lens[i], replies[na]);
		if (rc < 0)
			return fail(x, ASK_ABORT_FAILED, ask_receiver_error(x->r));
		if (rc == ASK_RX_NEW || rc == ASK_RX_DUP) {
			tx[na] = (struct ask_tx){.buf = replies[na], .len = ASK_HDR_LEN};
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

/* The BEGINs, probes, SWAPs and FETCHes due now, each to its switch. 0, or -1 after a
 * message. */
static int control(struct rx *x, uint64_t now)
{
	struct ask_tx tx;
	int rc;

	while ((rc = ask_rjob_ctl(x->j, now, &tx)) == 1)
		if ((rc = ask_udp_send(x->u, &tx, 1, &x->o->sw[tx.to], 0)) < 0)
			break;
	while (rc >= 0 && x->r != NULL && (rc = ask_receiver_ctl(x->r, now, &tx)) == 1)
		rc = ask_udp_send(x->u, &tx, 1, &x->o->sw[tx.to], 0);
	if (rc >= 0)
		return 0;
	if (rc == -ETIMEDOUT && x->r != NULL && ask_receiver_error(x->r)[0] != 0)
		return fail(x, ASK_ABORT_FAILED, ask_receiver_error(x->r));
	if (ask_rjob_error(x->j)[0] != 0)
		return fail_rc(x, rc, ask_rjob_error(x->j));
	char why[128];
	snprintf(why, sizeof(why), "send to the switch: %s", strerror(-rc));
	return fail(x, ASK_ABORT_FAILED, why);
}

static void report(struct rx *x)
{
	static const char *const verdict[] = {"null", "false", "true"};
	const struct ask_recv_stats *st = x->r != NULL ? ask_receiver_stats(x->r) : NULL;
	static const struct ask_recv_stats none;
	size_t keys = x->r != NULL ? ask_table_size(ask_receiver_table(x->r)) : 0;
	double el =
	        x->first_data
	                ? (double)((x->done_ns ? x->done_ns : host_now_ns()) - x->first_data) / 1e9
	                : 0;
	const struct ask_switch_counts *sw = ask_rjob_switch_counts(x->j);
	const struct ask_totals *want = ask_rjob_totals(x->j);

	x->reported = true;
	if (st == NULL)
		st = &none;
	if (x->o->cli.json) {
		printf("{\"ok\":%s,\"verified\":%s,\"task\":%u,\"incarnation\":%u,\"channels\":%u,"
		       "\"data_pkts\":%" PRIu64 ",\"dup_pkts\":%" PRIu64 ",\"bad_pkts\":%" PRIu64
		       ",\"long_records\":%" PRIu64 ",\"tuples_unabsorbed\":%" PRIu64
		       ",\"swaps\":%" PRIu64 ",\"swap_retries\":%" PRIu64 ",\"fetches\":%" PRIu64
		       ",\"fetch_retries\":%" PRIu64 ",\"fetched_records\":%" PRIu64
		       ",\"keys\":%zu,\"strays\":%" PRIu64 ",\"senders_tuples\":%" PRIu64,
		       x->verified == 1 ? "true" : "false", verdict[x->verified + 1],
		       x->o->cli.task, ask_rjob_incarnation(x->j), x->o->cli.channels,
		       st->data_pkts, st->dup_pkts, st->bad_pkts, st->long_records,
		       st->tuples_unabsorbed, st->swaps, st->swap_retries, st->fetches,
		       st->fetch_retries, st->fetched_records, keys, x->strays, want->tuples);
		if (sw != NULL) {
			printf(",\"switch_tuples\":%" PRIu64 ",\"switch_absorbed\":%" PRIu64,
			       sw[0].tuples, sw[0].absorbed);
			for (unsigned k = 1; k <= x->o->edges; k++)
				printf("%s{\"tuples\":%" PRIu64 ",\"absorbed\":%" PRIu64 "}%s",
				       k == 1 ? ",\"edges\":[" : ",", sw[k].tuples, sw[k].absorbed,
				       k == x->o->edges ? "]" : "");
		}
		printf(",\"elapsed_s\":%.6f,\"transport\":\"%s\"", el, ask_udp_kind(x->u));
		if (x->verified != 1) {
			printf(",\"error\":\"");
			for (const char *c = x->why; *c; c++)
				printf(*c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
			printf("\"");
		}
		printf("}\n");
	} else if (x->verified == 1) {
		printf("ask-receiver: done, result verified: %" PRIu64 " packets (%" PRIu64
		       " duplicates), %" PRIu64 " tuples un-absorbed, %" PRIu64 " long, %" PRIu64
		       " swaps, %" PRIu64 " fetches, %" PRIu64
		       " fetched records, %zu keys, %" PRIu64
		       " replies from elsewhere ignored, %.3f s\n",
		       st->data_pkts, st->dup_pkts, st->tuples_unabsorbed, st->long_records,
		       st->swaps, st->fetches, st->fetched_records, keys, x->strays, el);
	} else {
		printf("ask-receiver: FAILED: %s\n", x->why);
	}
	fflush(stdout);
}

/* The job's end: the check, then the table. 0, or -1 after a message. */
static int finish(struct rx *x, uint64_t now)
{
	char why[320];

	x->done_ns = now;
	x->verified = ask_rjob_check(x->j, x->r, why, sizeof(why));
	if (!x->verified) {
		char msg[400];
		snprintf(msg, sizeof(msg), "the end-to-end check failed: %s", why);
		fail(x, ASK_ABORT_CHECK, msg);
		return -1;
	}
	if (x->o->out != NULL &&
	    ask_cli_write_table(&x->o->cli, ask_receiver_table(x->r), x->o->out) < 0) {
		x->verified = -1;
		snprintf(x->why, sizeof(x->why), "cannot write %s", x->o->out);
		return -1;
	}
	report(x);
	return 0;
}

/* Runs to the end (and the linger after it). 0, or -1 after a message. */
static int run(struct rx *x)
{
	const uint8_t *bufs[ASK_BATCH];
	size_t lens[ASK_BATCH];
	struct sockaddr_in from[ASK_BATCH];
	const struct opts *o = x->o;

	x->t0 = x->last_progress = host_now_ns();
	for (;;) {
		uint64_t now = host_now_ns();
		uint64_t wake = x->r != NULL ? ask_receiver_wake(x->r) : UINT64_MAX;
		/* the probes and BEGIN retries: at most every few ms */
		if (o->use_sw && wake > now + 5000000)
			wake = now + 5000000;
		int n = ask_udp_recv(x->u, bufs, lens, from, ASK_BATCH,
		                     ask_wait_ms(wake, now, 100));
		if (n < 0) {
			fprintf(stderr, "ask-receiver: receive: %s\n", strerror(-n));
			return -1;
		}
		now = host_now_ns();
		if (take(x, bufs, lens, from, n, now) < 0 || control(x, now) < 0)
			return -1;
		if (x->r == NULL && ask_rjob_begun(x->j)) {
			x->cfg.incarnation = ask_rjob_incarnation(x->j);
			x->r = ask_receiver_new(&x->cfg);
			if (x->r == NULL)
				return fail(x, ASK_ABORT_FAILED, strerror(errno));
		}
		if (x->done_ns == 0 && x->r != NULL && ask_receiver_done(x->r) &&
		    ask_rjob_closed(x->j)) {
			ask_rjob_finish(x->j, now);
			if (ask_rjob_finished(x->j) && finish(x, now) < 0)
				return -1;
		}
		if (x->done_ns != 0) {
			uint64_t quiet = x->last_data > x->done_ns ? x->last_data : x->done_ns;
			if (now - quiet >= o->linger_ms * 1000000ull)
				return 0;
		} else if (now - x->last_progress >= o->timeout_s * 1000000000ull) {
			char why[200];
			snprintf(why, sizeof(why), "no progress for %u s (%s)", o->timeout_s,
			         x->r == NULL                   ? "the job has not begun"
			         : !ask_receiver_complete(x->r) ? "stream incomplete"
			         : !ask_rjob_closed(x->j) ? "a sender has not closed its channels"
			                                  : "draining the switch");
			return fail(x, ASK_ABORT_FAILED, why);
		}
	}
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	struct rx x = {.o = &o, .verified = -1};
	char err[320];
	int rc;

	if (parse(argc, argv, &o) < 0)
		return 2;
	/* Control seqs and the first incarnation differ from run to run: the switch replays its
	 * kept FETCH reply to a request that repeats (seq, slot, copy, start), which a restarted
	 * receiver must not do. */
	uint64_t seed = host_random_u64();
	uint32_t seq = (uint32_t)seed;
	uint16_t inc = (uint16_t)(o.cli.incarnation ? o.cli.incarnation : 1 + (seed >> 32) % 65535);
	struct ask_rjob_cfg jcfg = {
	        .incarnation = inc,
	        .job = o.cli.job,
	        .probe_ns = o.probe_ms * 1000000ull,
	        .silence_ns = o.silence_s * 1000000000ull,
	};
	x.cfg = (struct ask_recv_cfg){
	        .task = (uint16_t)o.cli.task,
	        .nchan = o.cli.channels,
	        .window = o.cli.window,
	        .nslots = o.cli.slots,
	        .key_bytes = o.cli.key_bytes,
	        .aa_size = o.aa_size,
	        .op = o.cli.op,
	        .ctl = o.use_sw,
	        .edges = o.edges,
	        .swap_threshold = o.threshold,
	        .rto_ns = o.rto_ms * 1000000ull,
	        .retries = o.retries,
	        .seq0 = seq + 1, /* after BEGIN's (seq0 - 1) */
	};
	x.j = ask_rjob_new(&x.cfg, &jcfg);
	if (x.j == NULL) {
		fprintf(stderr, "ask-receiver: %s\n", strerror(errno));
		return 1;
	}
	rc = ask_udp_open(&x.u, (uint16_t)o.listen, o.use_sw ? &o.sw[0] : NULL, o.cli.transport,
	                  o.cli.busy_poll, "ask-receiver", o.cli.json, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "ask-receiver: port %u: %s\n", o.listen, err);
		ask_rjob_free(x.j);
		return 1;
	}
	rc = run(&x);
	if (!x.reported)
		report(&x);
	ask_udp_close(x.u);
	ask_receiver_free(x.r);
	ask_rjob_free(x.j);
	return rc == 0 && x.verified == 1 ? 0 : 1;
}
