/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncagtr-worker: allreduce a generated tensor through a SyncAgtr switch session and report
 * goodput. Every job is checked end to end (sa_engine_verify) unless --no-verify; --check also
 * checks the result against the sum every worker's seed implies.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "host_args.h"
#include "host_clock.h"
#include "sa_session.h"
#include "hx.h"
#include "sa_engine.h"

struct opts {
	struct sa_engine_cfg cfg;
	size_t count;
	uint64_t seed;
	unsigned repeat, session;
	int check, json, quiet, no_barrier;
	int verify;            /* the end-to-end check after every job (on unless --no-verify) */
	int reset;             /* with --ctl, rank 0 starts a new epoch (on unless --no-reset) */
	const char *transport; /* "xdp" or "socket": what the worker's sockets use */
	const char *ctl;
	const char *attach;     /* --attach: the switch port behind which this host is */
	char rejoin[256];       /* --ctl: this worker's 'worker add' line, to register again */
	uint64_t registered_ns; /* --ctl: host_now_ns() just before it registered */
	double barrier_s;       /* time the start barrier took */
};

static const char usage_text[] =
        "Usage: syncagtr-worker --rank R --workers N --switch-ip IP [options]\n"
        "Allreduces a generated tensor through a SyncAgtr (SwitchML UDP) switch session.\n"
        "\n"
        "  -r, --rank R             this worker's rank, 0..N-1\n"
        "  -n, --workers N          workers in the session, 1..32\n"
        "  -s, --switch-ip IP       the session's switch IP\n"
        "      --switch-port P      switch UDP port (default 48864 = 0xBEE0)\n"
        "      --worker-port P      UDP port of thread 0; thread t binds P+t (default 4000);\n"
        "                           every worker of a session must use the same value\n"
        "  -t, --threads T          worker threads, one socket each (default 4)\n"
        "  -w, --window W           packets in flight per thread (default 128)\n"
        "  -e, --elems 64|256       values per packet: 308- or 1076-byte frames (default 256)\n"
        "  -c, --count N            tensor elements; suffixes Ki Mi Gi (x1024), k M G (x1000)\n"
        "                           (default 1Mi)\n"
        "      --type int32|float32 element type (default int32)\n"
        "      --seed S             worker r's tensor is a function of (S, r, index) (default 1)\n"
        "      --check              also verify against the sum of every rank's tensor: int32\n"
        "                           exact, float32 within N/scale + 2^-23 |sum| per element\n"
        "                           (README)\n"
        "      --no-verify          trades safety for speed: skip the end-to-end check of\n"
        "                           every job (checksums of what every worker sent, carried by\n"
        "                           one more packet per thread, against what each got); a\n"
        "                           wrong result then exits 0\n"
        "      --timeout-ms MS      least retransmission timeout (default 50); a packet's\n"
        "                           timeout is max(MS, srtt + 4 rttvar), doubled per resend of\n"
        "                           it and per timeout of its thread since an answer in time,\n"
        "                           up to --timeout-max-ms (default 1000)\n"
        "      --first-timeout-ms MS  least timeout of a job's first window and of the start\n"
        "                           barrier, whose answers wait for the slowest worker to\n"
        "                           reach the job (default 250)\n"
        "      --transport xdp|socket|auto\n"
        "                           AF_XDP, kernel UDP sockets, or auto (the default: AF_XDP\n"
        "                           where it can be set up, hosts/README.md, The transport);\n"
        "                           one line on stderr says which\n"
        "      --busy-poll          AF_XDP: spin on the rings instead of sleeping\n"
        "      --guard-ms MS        least time between the last send of a packet and the next\n"
        "                           packet of its slot; must exceed the longest delay a copy\n"
        "                           can see in the network (default 3). Less trades safety\n"
        "                           for speed: 0 is SwitchML's behaviour, where a copy the\n"
        "                           network duplicated and delayed is summed into a later round\n"
        "      --give-up-s S        fail if a thread gets no result for S seconds (default 20)\n"
        "      --repeat K           allreduce K times (K jobs) in one run (default 1)\n"
        "      --no-barrier         trades safety for speed: skip the start barrier, an\n"
        "                           untimed job of one window per thread that waits for every\n"
        "                           worker and proves every slot clean (an answer left by an\n"
        "                           earlier run is ignored). Needs --ctl; with --no-reset too,\n"
        "                           refused while the session holds another run's state;\n"
        "                           all workers of a session must agree on this\n"
        "      --ctl SOCKET         register with inswitch's control socket first\n"
        "      --session ID         session id for --ctl, 1..64 (default 1)\n"
        "      --attach PORT|l2|auto  with --ctl, the switch port this host is behind: a\n"
        "                           number, l2 (default: the switch's static l2 entry for\n"
        "                           this host's MAC) or auto (learned from the first packets,\n"
        "                           whose results are then lost and must be resent)\n"
        "      --reset              with --ctl, rank 0 starts a new epoch of the session (a\n"
        "                           'session reset': slots cleared, packets of workers\n"
        "                           registered before it dropped) before anyone sends; the\n"
        "                           default\n"
        "      --no-reset           trades safety: with --ctl, no new epoch; the job shares\n"
        "                           its epoch and slots with the runs before it, and only the\n"
        "                           start barrier and the end-to-end check stand between\n"
        "                           their state and this job's results\n"
        "  -j, --json               print one JSON object with the figures\n"
        "  -q, --quiet              no progress, registration or per-job lines (the check\n"
        "                           verdict and the summary still appear)\n"
        "  -h, --help               this text\n"
        "\n";

static void usage(FILE *f, const struct sa_engine_cfg *c)
{
	fputs(usage_text, f);
	fprintf(f,
	        "The session on the switch needs threads * window slots: %u with these options.\n",
	        sa_engine_cfg_slots(c));
}

enum {
	O_SWPORT = 256,
	O_WKPORT,
	O_TYPE,
	O_SEED,
	O_CHECK,
	O_TIMEOUT,
	O_TIMEOUT_MAX,
	O_GIVEUP,
	O_REPEAT,
	O_CTL,
	O_SESSION,
	O_RESET,
	O_GUARD,
	O_NOBARRIER,
	O_ATTACH,
	O_FIRST_TIMEOUT,
	O_TRANSPORT,
	O_BUSY_POLL,
	O_NOVERIFY,
	O_NORESET,
};

static const struct option longopts[] = {
        {"rank", required_argument, NULL, 'r'},
        {"workers", required_argument, NULL, 'n'},
        {"switch-ip", required_argument, NULL, 's'},
        {"switch-port", required_argument, NULL, O_SWPORT},
        {"worker-port", required_argument, NULL, O_WKPORT},
        {"threads", required_argument, NULL, 't'},
        {"window", required_argument, NULL, 'w'},
        {"elems", required_argument, NULL, 'e'},
        {"count", required_argument, NULL, 'c'},
        {"type", required_argument, NULL, O_TYPE},
        {"seed", required_argument, NULL, O_SEED},
        {"check", no_argument, NULL, O_CHECK},
        {"timeout-ms", required_argument, NULL, O_TIMEOUT},
        {"timeout-max-ms", required_argument, NULL, O_TIMEOUT_MAX},
        {"give-up-s", required_argument, NULL, O_GIVEUP},
        {"repeat", required_argument, NULL, O_REPEAT},
        {"ctl", required_argument, NULL, O_CTL},
        {"session", required_argument, NULL, O_SESSION},
        {"reset", no_argument, NULL, O_RESET},
        {"guard-ms", required_argument, NULL, O_GUARD},
        {"no-barrier", no_argument, NULL, O_NOBARRIER},
        {"attach", required_argument, NULL, O_ATTACH},
        {"first-timeout-ms", required_argument, NULL, O_FIRST_TIMEOUT},
        {"transport", required_argument, NULL, O_TRANSPORT},
        {"busy-poll", no_argument, NULL, O_BUSY_POLL},
        {"no-verify", no_argument, NULL, O_NOVERIFY},
        {"no-reset", no_argument, NULL, O_NORESET},
        {"json", no_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
};

static int bad_value(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "syncagtr-worker: --%s: '%s' is not %s\n", opt, val, want);
	return -1;
}

/* Options taking a plain unsigned number: where it goes and its range. */
static int set_number(struct opts *o, int c, const char *name, const char *arg)
{
	uint64_t v;
	unsigned *dst = NULL;
	unsigned long long lo = 0, hi = UINT32_MAX;

	switch (c) {
	case 'r':
		dst = &o->cfg.rank, hi = SA_WORKERS_MAX - 1;
		break;
	case 'n':
		dst = &o->cfg.workers, lo = 1, hi = SA_WORKERS_MAX;
		break;
	case 't':
		dst = &o->cfg.threads, lo = 1, hi = SA_THREADS_MAX;
		break;
	case 'w':
		dst = &o->cfg.window, lo = 1, hi = SA_WINDOW_MAX;
		break;
	case 'e':
		dst = &o->cfg.elems, lo = 64, hi = 256;
		break;
	case O_TIMEOUT:
		dst = &o->cfg.timeout_ms, lo = 1, hi = 60000;
		break;
	case O_TIMEOUT_MAX:
		dst = &o->cfg.timeout_max_ms, lo = 1, hi = 600000;
		break;
	case O_GIVEUP:
		dst = &o->cfg.give_up_s, lo = 1, hi = 86400;
		break;
	case O_GUARD:
		dst = &o->cfg.guard_ms, lo = 0, hi = 10000;
		break;
	case O_FIRST_TIMEOUT:
		dst = &o->cfg.first_timeout_ms, lo = 0, hi = 60000;
		break;
	case O_REPEAT:
		dst = &o->repeat, lo = 1, hi = 1000000;
		break;
	case O_SESSION:
		dst = &o->session, lo = 1, hi = SA_SESSIONS_MAX;
		break;
	default:
		return -1;
	}
	if (host_parse_count(arg, hi, &v) < 0 || v < lo) {
		char want[64];
		snprintf(want, sizeof(want), "a number in %llu..%llu", lo, hi);
		return bad_value(name, arg, want);
	}
	*dst = (unsigned)v;
	return 0;
}

static int set_option(struct opts *o, int c, const char *name, const char *arg)
{
	uint64_t v;

	switch (c) {
	case 's':
		return inet_pton(AF_INET, arg, &o->cfg.switch_ip) == 1
		               ? 0
		               : bad_value(name, arg, "an IPv4 address");
	case O_SWPORT:
	case O_WKPORT:
		if (host_parse_count(arg, 65535, &v) < 0 || v == 0)
			return bad_value(name, arg, "a UDP port");
		*(c == O_SWPORT ? &o->cfg.switch_port : &o->cfg.worker_port) = (uint16_t)v;
		return 0;
	case 'c':
		if (host_parse_count(arg, SIZE_MAX / 8, &v) < 0)
			return bad_value(name, arg, "a count (e.g. 4096, 64Ki, 16Mi)");
		o->count = (size_t)v;
		return 0;
	case O_TYPE:
		if (strcmp(arg, "int32") && strcmp(arg, "float32"))
			return bad_value(name, arg, "int32 or float32");
		o->cfg.type = strcmp(arg, "int32") ? SA_FLOAT32 : SA_INT32;
		return 0;
	case O_SEED:
		return host_parse_count(arg, UINT64_MAX, &v) == 0
		               ? (o->seed = v, 0)
		               : bad_value(name, arg, "a number");
	case O_CTL:
		o->ctl = arg;
		return 0;
	case O_ATTACH:
		if (strcmp(arg, "l2") && strcmp(arg, "auto") &&
		    (!arg[0] || strspn(arg, "0123456789") != strlen(arg) ||
		     host_parse_count(arg, 65535, &v) < 0))
			return bad_value(name, arg, "a port number, l2 or auto");
		o->attach = arg;
		return 0;
	case O_TRANSPORT: {
		enum hx_kind k;

		if (hx_kind_parse(arg, &k) < 0)
			return bad_value(name, arg, "xdp, socket or auto");
		o->cfg.transport = (int)k;
		return 0;
	}
	case O_BUSY_POLL:
		o->cfg.busy_poll = 1;
		return 0;
	case O_CHECK:
		o->check = 1;
		return 0;
	case O_NOBARRIER:
		o->no_barrier = 1;
		return 0;
	case O_RESET:
		o->reset = 1;
		return 0;
	case O_NORESET:
		o->reset = 0;
		return 0;
	case O_NOVERIFY:
		o->verify = 0;
		return 0;
	case 'j':
		o->json = 1;
		return 0;
	case 'q':
		o->quiet = 1;
		return 0;
	default:
		return set_number(o, c, name, arg);
	}
}

/* 0 to run, 1 for --help, -1 on a usage error. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	int c, li, have_ip = 0, have_n = 0, have_r = 0;
	char name[32], why[128];

	while ((c = getopt_long(argc, argv, "r:n:s:t:w:e:c:jqh", longopts, &li)) != -1) {
		if (c == '?')
			return -1;
		if (c == 'h') {
			usage(stdout, &o->cfg);
			return 1;
		}
		snprintf(name, sizeof(name), "option");
		for (li = 0; longopts[li].name; li++)
			if (longopts[li].val == c)
				snprintf(name, sizeof(name), "%s", longopts[li].name);
		if (set_option(o, c, name, optarg) < 0)
			return -1;
		have_ip |= c == 's';
		have_n |= c == 'n';
		have_r |= c == 'r';
	}
	if (optind < argc || !have_ip || !have_n || !have_r) {
		fprintf(stderr, "syncagtr-worker: %s\n",
		        optind < argc ? "unexpected argument"
		                      : "--rank, --workers and --switch-ip are required");
		return -1;
	}
	if (sa_engine_cfg_check(&o->cfg, why, sizeof(why)) < 0 ||
	    sa_options_check(o->ctl != NULL, !o->no_barrier, why, sizeof(why)) < 0) {
		fprintf(stderr, "syncagtr-worker: %s%s\n", why,
		        o->no_barrier && !o->ctl ? " (--no-barrier needs --ctl)" : "");
		return -1;
	}
	return 0;
}

static void progress(void *arg, uint64_t results, uint64_t total, const struct sa_stats *s)
{
	const struct opts *o = arg;
	double bytes = (double)o->count * 4 * ((double)results / (double)(total ? total : 1));

	fprintf(stderr,
	        "rank %u: %5.1f%% (%" PRIu64 "/%" PRIu64 " packets) %.1f s, %.3f Gbit/s, "
	        "%" PRIu64 " retransmits\n",
	        o->cfg.rank, 100.0 * (double)results / (double)(total ? total : 1), results, total,
	        s->seconds, bytes * 8 / s->seconds / 1e9, s->retransmits);
}

static void report_check(const struct opts *o, const struct sa_verify_result *v, unsigned job)
{
	FILE *f = o->json ? stderr : stdout; /* with --json, stdout holds only the object */

	if (v->ok) {
		if (o->cfg.type == SA_FLOAT32)
			fprintf(f,
			        "rank %u job %u: result verified (max |error| %.3g, at most %.3f "
			        "of the bound)\n",
			        o->cfg.rank, job, v->max_err, v->max_err_ratio);
		else
			fprintf(f, "rank %u job %u: result verified\n", o->cfg.rank, job);
		return;
	}
	if (o->cfg.type == SA_INT32)
		fprintf(stderr,
		        "rank %u job %u: MISMATCH: %zu of %zu elements wrong; first at index %zu: "
		        "got %d, want %d\n",
		        o->cfg.rank, job, v->bad_count, o->count, v->bad_index, (int32_t)v->got,
		        (int32_t)v->want);
	else
		fprintf(stderr,
		        "rank %u job %u: MISMATCH: %zu of %zu elements out of bounds; first at "
		        "index "
		        "%zu: got %.9g, want %.9g, bound %.3g (max |error| %.3g)\n",
		        o->cfg.rank, job, v->bad_count, o->count, v->bad_index, v->got, v->want,
		        v->bound, v->max_err);
}

/* verified: 1 when every check that ran passed, 0 when one failed, -1 when none ran. */
static void print_json(const struct opts *o, const struct sa_stats *s, const struct hx_stats *t,
                       int verified, double max_err)
{
	double gbps = s->seconds > 0 ? (double)o->count * 4 * 8 * o->repeat / s->seconds / 1e9 : 0;

	printf("{\"rank\":%u,\"workers\":%u,\"transport\":\"%s\",\"type\":\"%s\",\"elems\":%zu,"
	       "\"elems_per_packet\":%u,"
	       "\"threads\":%u,\"window\":%u,\"repeat\":%u,\"packets\":%" PRIu64
	       ",\"results\":%" PRIu64 ",\"retransmits\":%" PRIu64 ",\"rack_resends\":%" PRIu64
	       ",\"duplicates\":%" PRIu64 ",\"stale\":%" PRIu64 ",\"bad\":%" PRIu64
	       ",\"held\":%" PRIu64 ",\"stale_state\":%" PRIu64 ",\"region_moves\":%" PRIu64
	       ",\"region_gen\":%" PRIu64
	       ",\"srtt_ms\":%.3f,\"seconds\":%.6f,\"goodput_gbps\":%.4f",
	       o->cfg.rank, o->cfg.workers, o->transport,
	       o->cfg.type == SA_INT32 ? "int32" : "float32", o->count, o->cfg.elems,
	       o->cfg.threads, o->cfg.window, o->repeat, s->packets, s->results, s->retransmits,
	       s->rack_resends, s->duplicates, s->stale, s->bad, s->held, s->stale_state, s->moves,
	       s->gen, s->srtt_ms, s->seconds, gbps);
	if (!o->no_barrier)
		printf(",\"barrier_seconds\":%.6f", o->barrier_s);
	printf(",\"verify\":%s", o->verify ? "true" : "false");
	if (o->check && o->cfg.type == SA_FLOAT32)
		printf(",\"max_err\":%.6g", max_err);
	printf(",\"frames\":{\"tx\":%" PRIu64 ",\"tx_full\":%" PRIu64 ",\"rx\":%" PRIu64
	       ",\"rx_dropped\":%" PRIu64 ",\"rx_bad\":%" PRIu64 ",\"wakeups\":%" PRIu64 "}",
	       t->tx, t->tx_full, t->rx, t->rx_dropped, t->rx_bad, t->wakeups);
	printf(",\"verified\":%s}\n", verified < 0 ? "null" : verified ? "true" : "false");
}

/* --ctl: registers this worker (sa_session_register). */
static int register_worker(struct opts *o, char *err, size_t errlen)
{
	o->registered_ns = host_now_ns();
	FILE *log = o->quiet ? NULL : stderr;
	struct sa_local loc;
	int rc;

	/* Found first, so that an errno from the route lookup is never taken for the switch's. */
	rc = sa_local_find(o->cfg.switch_ip, o->cfg.switch_port, &loc, err, errlen);
	if (rc < 0)
		return rc;
	rc = sa_session_register_as(&o->cfg, &loc, o->ctl, o->session, o->attach,
	                            sa_reg_flags(!o->no_barrier, o->reset), o->rejoin,
	                            sizeof(o->rejoin), log, err, errlen);
	/* The switch's code for 'port l2' and a MAC without an l2 entry (docs/ctl.md). */
	if (rc == -EHOSTUNREACH)
		snprintf(err + strlen(err), errlen - strlen(err),
		         "; or tell the switch port with --attach PORT");
	return rc < 0 ? rc : 0;
}

/*
 * --ctl: the rendezvous just before the first packet. Waits until every rank is registered
 * (each registers when it is ready to send, and takes the registration back when it is done),
 * so that no worker's first packets wait at the switch for one that has not started.
 */
static int rendezvous(const struct opts *o)
{
	int rc;

	if (!o->ctl)
		return 0;
	if (!o->quiet)
		fprintf(stderr, "rank %u: waiting for all %u workers to register\n", o->cfg.rank,
		        o->cfg.workers);
	rc = sa_session_wait_ports(&o->cfg, o->ctl, o->session, 0, o->rejoin, o->registered_ns,
	                           o->cfg.give_up_s * 1000u);
	if (rc < 0)
		fprintf(stderr,
		        "syncagtr-worker: rank %u: not all %u workers of session %u registered "
		        "within %u s%s\n",
		        o->cfg.rank, o->cfg.workers, o->session, o->cfg.give_up_s,
		        rc == -ETIMEDOUT ? " (--give-up-s)" : "");
	return rc;
}

/*
 * --ctl: the region the session's workers use now (its region may have changed under earlier
 * runs, docs/memory.md), read once every rank is registered: after rank 0's reset, which ends a
 * change under way, and before anyone sends.
 */
static int join_region(const struct opts *o, struct sa_engine *w)
{
	char err[256];
	int gen;

	if (!o->ctl)
		return 0;
	gen = sa_session_join_region(o->ctl, o->session, w, &o->cfg, err, sizeof(err));
	if (gen < 0)
		fprintf(stderr, "syncagtr-worker: rank %u: %s\n", o->cfg.rank, err);
	else if (gen != 0 && !o->quiet)
		fprintf(stderr, "rank %u: session %u is at region generation %d\n", o->cfg.rank,
		        o->session, gen);
	return gen < 0 ? gen : 0;
}

/* With --ctl, after a job or the barrier gave up: what the switch says of the session (missing
 * workers, registrations of an earlier epoch whose packets it drops, its counters). */
static void diagnose(const struct opts *o, int rc)
{
	char why[512];

	if (!o->ctl || rc != -ETIMEDOUT)
		return;
	rc = sa_session_diagnose(o->ctl, o->session, o->cfg.workers, why, sizeof(why));
	if (rc == 0 || rc == -ENOENT)
		fprintf(stderr, "syncagtr-worker: rank %u: the switch: %s\n", o->cfg.rank, why);
}

/* The untimed start barrier (sa_engine_barrier): every worker is there, every slot is clean. */
static int barrier(struct opts *o, struct sa_engine *w)
{
	struct sa_stats st = {0};
	int rc;

	if (!o->quiet)
		fprintf(stderr, "rank %u: start barrier (waiting for all %u workers)\n",
		        o->cfg.rank, o->cfg.workers);
	rc = sa_engine_barrier(w, &st);
	if (rc < 0) {
		fprintf(stderr, "syncagtr-worker: rank %u: %s\n", o->cfg.rank, sa_engine_error(w));
		diagnose(o, rc);
		return -1;
	}
	if (!o->quiet)
		fprintf(stderr, "rank %u: start barrier passed in %.3f s%s\n", o->cfg.rank,
		        st.seconds, st.stale_state ? " (after ignoring stale results)" : "");
	o->barrier_s = st.seconds;
	/* Every worker has sent now: "port auto" ones have a port within the moment the switch
	 * takes to learn it. */
	if (o->ctl && strcmp(o->attach, "auto") == 0 &&
	    sa_session_wait_ports(&o->cfg, o->ctl, o->session, 1, NULL, 0, 2000) < 0 && !o->quiet)
		fprintf(stderr, "rank %u: the switch has not learned every worker's port yet\n",
		        o->cfg.rank);
	return 0;
}

/* The end-to-end check of job j (sa_engine_verify): 1 passed, 0 failed, -1 could not run. */
static int verify_job(const struct opts *o, struct sa_engine *w, unsigned j)
{
	char why[320];
	int rc = sa_engine_verify(w, NULL, why, sizeof(why));

	if (rc == 0) {
		if (!o->quiet)
			fprintf(stderr, "rank %u job %u: result checked end to end\n", o->cfg.rank,
			        j);
		return 1;
	}
	fprintf(stderr, "syncagtr-worker: rank %u job %u: %s\n", o->cfg.rank, j, why);
	return rc == -EBADMSG ? 0 : -1;
}

/* Runs the jobs; returns the exit status. */
static int run(struct opts *o, struct sa_engine *w, const void *in, void *out)
{
	struct sa_stats total = {0}, one;
	struct sa_verify_result v;
	int verified = o->check || o->verify ? 1 : -1, rc;
	double max_err = 0;
	unsigned j;

	if (rendezvous(o) < 0 || join_region(o, w) < 0 || (!o->no_barrier && barrier(o, w) < 0))
		return 1;
	for (j = 0; j < o->repeat; j++) {
		memset(&one, 0, sizeof(one));
		sa_engine_set_checksums(w, o->verify);
		rc = sa_engine_allreduce(w, in, out, o->count, &one, o->quiet ? NULL : progress, o);
		sa_stats_add(&total, &one);
		if (rc < 0) {
			fprintf(stderr, "syncagtr-worker: rank %u job %u failed: %s\n", o->cfg.rank,
			        j, sa_engine_error(w));
			diagnose(o, rc);
			return 1;
		}
		if (!o->quiet)
			fprintf(stderr,
			        "rank %u job %u: %zu elements in %.3f s, goodput %.3f Gbit/s, "
			        "%" PRIu64 " packets, %" PRIu64 " retransmits, %" PRIu64
			        " duplicates\n",
			        o->cfg.rank, j, o->count, one.seconds,
			        (double)o->count * 32 / one.seconds / 1e9, one.packets,
			        one.retransmits, one.duplicates);
		if (o->verify) {
			rc = verify_job(o, w, j);
			if (rc < 0)
				return 1;
			verified &= rc;
		}
		if (o->check) {
			sa_verify(&o->cfg, o->seed, out, o->count, &v);
			report_check(o, &v, j);
			verified &= v.ok;
			max_err = v.max_err > max_err ? v.max_err : max_err;
			memset(out, 0xa5, o->count * 4); /* the next job must write every element */
		}
	}
	if (o->json) {
		struct hx_stats t;

		sa_engine_transport_stats(w, &t);
		print_json(o, &total, &t, verified, max_err);
	} else
		printf("rank %u: goodput %.3f Gbit/s over %u job(s)%s\n", o->cfg.rank,
		       (double)o->count * 32 * o->repeat / total.seconds / 1e9, o->repeat,
		       verified == 1   ? ", result verified"
		       : verified == 0 ? ", result WRONG"
		                       : ", result not checked (--no-verify)");
	return verified != 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct opts o = {.count = 1 << 20,
	                 .seed = 1,
	                 .repeat = 1,
	                 .session = 1,
	                 .attach = "l2",
	                 .verify = 1,
	                 .reset = 1};
	struct sa_engine *w;
	void *in, *out;
	char err[512];
	int rc;

	sa_engine_cfg_default(&o.cfg);
	rc = parse_args(argc, argv, &o);
	if (rc) {
		if (rc < 0)
			fprintf(stderr, "Try 'syncagtr-worker --help'.\n");
		return rc < 0 ? 2 : 0;
	}
	in = malloc(o.count * 4 + 1);
	out = malloc(o.count * 4 + 1);
	if (!in || !out) {
		fprintf(stderr, "syncagtr-worker: no memory for %zu elements\n", o.count);
		return 1;
	}
	sa_gen(o.seed, o.cfg.rank, o.cfg.type, in, 0, o.count);
	memset(out, 0, o.count * 4); /* fault the pages in now, not during the timed job */
	w = sa_engine_create(&o.cfg, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "syncagtr-worker: %s\n", err);
		return 1;
	}
	o.transport = strncmp(sa_engine_transport(w), "xdp", 3) == 0 ? "xdp" : "socket";
	if (!o.quiet)
		fprintf(stderr, "syncagtr-worker: transport: %s\n", sa_engine_transport(w));
	/* Registered only once everything is ready to send: the others' rendezvous waits for it. */
	if (o.ctl && register_worker(&o, err, sizeof(err)) < 0) {
		fprintf(stderr, "syncagtr-worker: session helper: %s\n", err);
		sa_engine_destroy(w);
		return 1;
	}
	rc = run(&o, w, in, out);
	/* ...and not after its run, so that the next run's rendezvous waits for it again. */
	if (o.ctl && sa_session_unregister(&o.cfg, o.ctl, o.session) < 0 && !o.quiet)
		fprintf(stderr, "rank %u: could not take the registration back\n", o.cfg.rank);
	sa_engine_destroy(w);
	free(in);
	free(out);
	return rc;
}
