/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * atp-worker: aggregate a generated tensor through an ATP switch and its parameter server(s)
 * (a worker as in ATP's client/p4ml_manager.cc), in the job the app's PS names, and report
 * goodput; the result is checked end to end (checksums, unless --no-verify) and, with --check,
 * against the sum every worker's seed implies.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atp_engine.h"
#include "atp_host.h"
#include "host_args.h"

struct opts {
	struct atp_cli cli; /* what the worker shares with the other workers and the PS */
	unsigned id, timeout_ms, first_timeout_ms, give_up_s;
	uint64_t count, seed;
	unsigned repeat; /* calls, each with its own tensors (seed + call) */
	int is_float, check, no_verify, cc;
	const char *obsolete; /* --job, --ctl or --reset: accepted, no longer used */
};

/* The tensors. */
struct worker {
	const struct opts *o;
	int32_t *iin, *iout;
	float *fin, *fout;
};

static const char usage_text[] =
        "Usage: atp-worker --id I --workers N --app A --dev IFACE [options]\n"
        "Aggregates a generated tensor through an ATP switch and parameter server (raw 0x0700\n"
        "frames over AF_XDP, or AF_PACKET where AF_XDP cannot be set up; needs CAP_NET_RAW,\n"
        "AF_XDP also CAP_NET_ADMIN and CAP_BPF), in the job the app's PS names once all N\n"
        "workers have JOINed (docs/atp.md, Job lifetime), and checks the result end to end.\n"
        "Exit status 0 only if the job completed and every check passed.\n"
        "\n"
        "  -i, --id I               this worker, 0..N-1 (bit I of the bitmap)\n"
        "  -n, --workers N          workers of the app, 1..32\n"
        "  -a, --app A              application id, 1..12 (wire thread ids t + 20 (A-1) < 256)\n"
        "  -p, --ps P               parameter servers of the app, 1..4 (PSIndex = key % P)\n"
        "  -d, --dev IFACE          interface towards the switch\n"
        "  -t, --threads T          threads, 1..20 (default 1); thread t sends to\n"
        "                           05:04:03:02:01:<t'> and receives 77:77:77:77:77:<t'>,\n"
        "                           t' = t + 20 (A-1); every worker and the PS must agree\n"
        "  -w, --window W           aggregators per thread (default 100); must match the PS\n"
        "      --pool N             the switch's aggregator pool (default 20000); must match\n"
        "                           the switch (inswitch-ctl atp pool show) and the PS\n"
        "  -c, --count N            int32 values; suffixes Ki Mi Gi, k M G (default 1Mi)\n"
        "      --type int32|float32 element type (default int32); float32 is scaled to int32\n"
        "                           (--scale, default 2^20); a packet with a value that does\n"
        "                           not fit INT32_MAX/N goes as raw floats (overflow flag)\n"
        "      --scale F            float32 scale; the PS needs the same (default 1048576)\n"
        "      --transport xdp|socket|auto\n"
        "                           AF_XDP or kernel sockets (default auto: AF_XDP where\n"
        "                           it can be set up; one line on stderr says which)\n"
        "      --busy-poll          AF_XDP: spin on the rings instead of sleeping\n"
        "      --seed S             worker I's value i is a hash of (S, I, i) (default 1)\n"
        "      --repeat N           N calls in the same job (default 1), call r with seed\n"
        "                           S + r, each checked; the figures are their sums. The\n"
        "                           app's region (docs/memory.md) is followed between calls\n"
        "      --check              also verify against every worker's tensor: int32\n"
        "                           exact, float32 within N/scale + (N+2) 2^-23 sum|x|\n"
        "      --no-verify          skip the end-to-end check every job makes by default\n"
        "                           (one more round trip: checksums of what every worker\n"
        "                           sent against what this one got; a result that is not\n"
        "                           the sum fails with its cause). Faster, and unsafe: a\n"
        "                           wrong result then goes unnoticed\n"
        "      --timeout-ms MS      least resend timeout (default 20); the timeout follows\n"
        "                           the round trips seen (srtt + 4 rttvar)\n"
        "      --first-timeout-ms MS  least timeout until the first round trip is seen:\n"
        "                           the other workers may not have started (default 250)\n"
        "      --give-up-s S        fail after S seconds without an ACK (default 20)\n"
        "      --job J, --ctl SOCKET, --reset\n"
        "                           accepted and ignored (one line on stderr says so): the\n"
        "                           app's PS names every job, on the switch too\n"
        "      --cc                 AIMD on ECN: halve the window on a marked ACK (at most\n"
        "                           once per window of packets), else +1\n"
        "  -j, --json               one JSON object with the figures at the end\n"
        "  -q, --quiet              no progress lines\n"
        "  -h, --help               this text\n";

enum {
	O_TYPE = 256,
	O_SEED,
	O_JOB,
	O_CHECK,
	O_NO_VERIFY,
	O_TMO,
	O_FIRST_TMO,
	O_GIVEUP,
	O_CC,
	O_CTL,
	O_RESET,
	O_REPEAT
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
	        ATP_CLI_LONGOPTS,
	        {"id", required_argument, NULL, 'i'},
	        {"count", required_argument, NULL, 'c'},
	        {"type", required_argument, NULL, O_TYPE},
	        {"seed", required_argument, NULL, O_SEED},
	        {"job", required_argument, NULL, O_JOB},
	        {"check", no_argument, NULL, O_CHECK},
	        {"no-verify", no_argument, NULL, O_NO_VERIFY},
	        {"timeout-ms", required_argument, NULL, O_TMO},
	        {"first-timeout-ms", required_argument, NULL, O_FIRST_TMO},
	        {"give-up-s", required_argument, NULL, O_GIVEUP},
	        {"cc", no_argument, NULL, O_CC},
	        {"ctl", required_argument, NULL, O_CTL},
	        {"reset", no_argument, NULL, O_RESET},
	        {"repeat", required_argument, NULL, O_REPEAT},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0}};
	int c, have_id = 0;
	uint64_t ignored;

	*o = (struct opts){.timeout_ms = 20,
	                   .first_timeout_ms = 250,
	                   .give_up_s = 20,
	                   .count = 1u << 20,
	                   .seed = 1,
	                   .repeat = 1};
	atp_cli_defaults(&o->cli);
	while ((c = getopt_long(argc, argv, ATP_CLI_SHORTOPTS "i:c:h", lo, NULL)) != -1) {
		int bad = 0;

		switch (c) {
		case 'i':
			bad = host_parse_uint(optarg, 0, ATP_WORKERS_MAX - 1, &o->id);
			have_id = 1;
			break;
		case 'c':
			bad = host_parse_count(optarg, 1ull << 34, &o->count) < 0 || o->count == 0;
			break;
		case O_TYPE:
			o->is_float = strcmp(optarg, "float32") == 0;
			bad = !o->is_float && strcmp(optarg, "int32") != 0;
			break;
		case O_SEED:
			bad = host_parse_count(optarg, UINT64_MAX, &o->seed);
			break;
		case O_JOB:
			bad = host_parse_count(optarg, UINT32_MAX, &ignored);
			o->obsolete = "--job";
			break;
		case O_CHECK:
			o->check = 1;
			break;
		case O_NO_VERIFY:
			o->no_verify = 1;
			break;
		case O_TMO:
			bad = host_parse_uint(optarg, 1, 60000, &o->timeout_ms);
			break;
		case O_FIRST_TMO:
			bad = host_parse_uint(optarg, 1, 60000, &o->first_timeout_ms);
			break;
		case O_GIVEUP:
			bad = host_parse_uint(optarg, 1, 3600, &o->give_up_s);
			break;
		case O_CTL:
			o->obsolete = "--ctl";
			break;
		case O_RESET:
			o->obsolete = "--reset";
			break;
		case O_REPEAT:
			bad = host_parse_uint(optarg, 1, 1000000, &o->repeat);
			break;
		case O_CC:
			o->cc = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		default:
			/* The options shared with the other tool, or an unknown one. */
			bad = atp_cli_option(&o->cli, c, optarg);
			if (bad == 0)
				return -EINVAL;
			bad = bad < 0;
		}
		if (bad) {
			fprintf(stderr, "atp-worker: bad value for --%s: '%s'\n",
			        host_opt_name(lo, c), optarg);
			return -EINVAL;
		}
	}
	if (optind != argc || !have_id || !o->cli.workers || !o->cli.app || !o->cli.dev) {
		fprintf(stderr, "atp-worker: --id, --workers, --app and --dev are required\n");
		return -EINVAL;
	}
	if (o->id >= o->cli.workers) {
		fprintf(stderr, "atp-worker: --id must be below --workers\n");
		return -EINVAL;
	}
	if ((uint64_t)o->cli.threads * o->cli.window > o->cli.pool) {
		fprintf(stderr, "atp-worker: threads * window (%u) exceeds the pool (%u)\n",
		        o->cli.threads * o->cli.window, o->cli.pool);
		return -EINVAL;
	}
	return 0;
}

/* Checks the result; returns the number of bad elements and the largest float error. */
static uint64_t verify(const struct worker *w, double *max_err)
{
	const struct opts *o = w->o;
	uint64_t bad = 0;

	*max_err = 0;
	for (uint64_t i = 0; i < o->count; i++) {
		if (!o->is_float) {
			uint32_t e = 0;

			for (unsigned k = 0; k < o->cli.workers; k++)
				e += (uint32_t)atp_gen_int(o->seed, k, i);
			if ((int32_t)e != w->iout[i] && bad++ == 0)
				fprintf(stderr,
				        "atp-worker: element %" PRIu64 ": got %d, want %d\n", i,
				        w->iout[i], (int32_t)e);
		} else {
			double e = 0, mag = 0, err, tol;

			for (unsigned k = 0; k < o->cli.workers; k++) {
				double x = atp_gen_float(o->seed, k, i);

				e += x;
				mag += fabs(x);
			}
			err = fabs((double)w->fout[i] - e);
			tol = o->cli.workers / o->cli.scale +
			      (o->cli.workers + 2) * ldexp(mag, -23);
			if (err > *max_err)
				*max_err = err;
			if (!(err <= tol) && bad++ == 0)
				fprintf(stderr,
				        "atp-worker: element %" PRIu64 ": got %g, want %g\n", i,
				        (double)w->fout[i], e);
		}
	}
	return bad;
}

static void progress(void *arg, uint64_t acked, uint64_t total)
{
	const struct opts *o = arg;

	fprintf(stderr, "atp-worker %u: %" PRIu64 "/%" PRIu64 " packets acked\n", o->id, acked,
	        total);
}

/* "true", "false" or "null": a check that passed, failed, or did not run. */
static const char *verdict(int ran, int failed)
{
	return !ran ? "null" : failed ? "false" : "true";
}

int main(int argc, char **argv)
{
	struct opts o;
	struct worker w = {0};
	struct atp_engine_cfg ec;
	struct atp_engine *e;
	struct atp_engine_stats sum = {0};
	uint64_t bad = 0, joins, jobs;
	double secs, gbps, max_err = 0;
	char err[320], why[512] = "";
	const char *transport;
	int rc = 0, ck_ran = 0, ck_rc = 0, check_ran = 0;
	unsigned calls;
	struct atp_engine_region reg;
	uint32_t job;

	if (parse_args(argc, argv, &o) < 0) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (o.obsolete)
		fprintf(stderr,
		        "atp-worker: %s is ignored: the app's parameter server names every job, "
		        "on the switch too (docs/atp.md, Job lifetime)\n",
		        o.obsolete);
	w.o = &o;
	if (o.is_float) {
		w.fin = malloc(o.count * sizeof(float));
		w.fout = calloc(o.count, sizeof(float));
	} else {
		w.iin = malloc(o.count * sizeof(int32_t));
		w.iout = calloc(o.count, sizeof(int32_t));
	}
	if (!(o.is_float ? w.fin && w.fout : w.iin && w.iout)) {
		fprintf(stderr, "atp-worker: out of memory\n");
		return 1;
	}
	ec = (struct atp_engine_cfg){.cli = o.cli,
	                             .id = o.id,
	                             .timeout_ms = o.timeout_ms,
	                             .first_timeout_ms = o.first_timeout_ms,
	                             .give_up_s = o.give_up_s,
	                             .cc = o.cc};
	e = atp_engine_create(&ec, err, sizeof(err));
	if (!e) {
		fprintf(stderr, "atp-worker: %s\n", err);
		return 1;
	}
	atp_engine_set_verify(e, !o.no_verify);
	transport = atp_engine_transport(e);
	const uint64_t seed0 = o.seed;
	for (calls = 0; calls < o.repeat && rc == 0; calls++) {
		o.seed = seed0 + calls;
		for (uint64_t i = 0; i < o.count; i++) {
			if (o.is_float)
				w.fin[i] = atp_gen_float(o.seed, o.id, i);
			else
				w.iin[i] = atp_gen_int(o.seed, o.id, i);
		}
		rc = atp_engine_allreduce(e, o.is_float ? (void *)w.fin : (void *)w.iin,
		                          o.is_float ? (void *)w.fout : (void *)w.iout, o.count,
		                          o.is_float, &sum, o.cli.quiet ? NULL : progress, &o);
		if (rc < 0)
			snprintf(why, sizeof(why), "call %u: %s", calls, atp_engine_error(e));
		if (rc == 0 && !o.no_verify) {
			struct atp_engine_stats vst = {0};

			ck_ran = 1;
			ck_rc = atp_engine_verify(e, &vst, why, sizeof(why));
			if (ck_rc < 0 && ck_rc != -EBADMSG)
				ck_ran = 0; /* the check's own call failed: no verdict */
			rc = ck_rc;
		}
		/* --check: the result against every worker's tensor, also after a failed
		 * checksum (it says which element is wrong). */
		if ((rc == 0 || rc == -EBADMSG) && o.check) {
			check_ran = 1;
			bad = verify(&w, &max_err);
			if (bad && rc == 0)
				rc = -EBADMSG;
		}
		if (o.repeat > 1 && rc != 0 && ck_ran && ck_rc != 0)
			fprintf(stderr, "atp-worker %u: call %u of %u failed its check\n", o.id,
			        calls, o.repeat);
	}
	secs = sum.seconds;
	atp_engine_region(e, &reg);
	job = atp_engine_job(e);
	atp_engine_job_stats(e, &joins, &jobs);
	atp_engine_destroy(e);
	if (rc < 0)
		fprintf(stderr, "atp-worker %u: %s\n", o.id, why);
	else if (ck_ran)
		fprintf(o.cli.json ? stderr : stdout,
		        "atp-worker %u: result verified end to end (job %u, %" PRIu64
		        " packets checked, %" PRIu64 " float results not covered)\n",
		        o.id, job, sum.checked, sum.unchecked);
	gbps = (double)o.count * calls * 32.0 / secs / 1e9;
	if (check_ran)
		fprintf(o.cli.json ? stderr : stdout, "atp-worker %u: %s\n", o.id,
		        bad ? "result WRONG (--check)" : "result verified (--check)");
	if (o.cli.json)
		printf("{\"id\":%u,\"app\":%u,\"workers\":%u,\"threads\":%u,\"window\":%u,"
		       "\"transport\":\"%s\",\"type\":\"%s\",\"elems\":%" PRIu64
		       ",\"job\":%u,\"joins\":%" PRIu64 ",\"jobs\":%" PRIu64
		       ",\"seconds\":%.3f,\"goodput_gbps\":%.3f,"
		       "\"packets\":%" PRIu64 ",\"sent\":%" PRIu64 ",\"resends\":%" PRIu64
		       ",\"timeouts\":%" PRIu64 ",\"gap_resends\":%" PRIu64
		       ",\"stall_resends\":%" PRIu64 ",\"srtt_ms\":%.3f,\"ps_srtt_ms\":%.3f"
		       ",\"acks\":%" PRIu64 ",\"dup_acks\":%" PRIu64 ",\"stale_acks\":%" PRIu64
		       ",\"collision_acks\":%" PRIu64 ",\"repoints\":%" PRIu64
		       ",\"ecn_acks\":%" PRIu64 ",\"overflow_packets\":%" PRIu64
		       ",\"float_results\":%" PRIu64
		       ",\"min_cwnd\":%u,\"mean_cwnd\":%.1f,\"ok\":%s,\"verified\":%s"
		       ",\"checksum\":%s,\"checked_packets\":%" PRIu64
		       ",\"unchecked_packets\":%" PRIu64 ",\"check\":%s,\"bad\":%" PRIu64
		       ",\"max_err\":%g,\"calls\":%u,\"region_gen\":%u,\"region_first\":%u"
		       ",\"region_size\":%u,\"region_window\":%u,\"region_moves\":%" PRIu64 "}\n",
		       o.id, o.cli.app, o.cli.workers, o.cli.threads, o.cli.window, transport,
		       o.is_float ? "float32" : "int32", o.count, job, joins, jobs, secs, gbps,
		       sum.packets, sum.sent, sum.resends, sum.timeouts, sum.gaps, sum.stalls,
		       (double)sum.srtt_ns / 1e6, (double)sum.rec_srtt_ns / 1e6, sum.acks,
		       sum.dup_acks, sum.stale, sum.coll_acks, sum.repoints, sum.ecn_acks,
		       sum.ovf_pkts, sum.ovf_acks, sum.min_cwnd,
		       sum.acks ? (double)sum.cwnd_sum / (double)sum.acks : 0.0,
		       rc ? "false" : "true",
		       verdict(ck_ran || check_ran, (ck_ran && ck_rc) || (check_ran && bad)),
		       verdict(ck_ran, ck_rc), sum.checked, sum.unchecked,
		       verdict(check_ran, bad != 0), bad, max_err, calls, reg.gen, reg.first,
		       reg.size, reg.window, reg.moves);
	else
		printf("atp-worker %u: %" PRIu64 " %s in %.3f s: goodput %.3f Gbit/s; %" PRIu64
		       " packets sent, %" PRIu64 " resends (%" PRIu64 " on timeout), %" PRIu64
		       " collision ACKs, %" PRIu64 " overflow packets, %" PRIu64 " ECN ACKs\n",
		       o.id, o.count, o.is_float ? "float32" : "int32", secs, gbps, sum.sent,
		       sum.resends, sum.timeouts, sum.coll_acks, sum.ovf_pkts, sum.ecn_acks);
	return rc < 0 ? 1 : 0;
}
