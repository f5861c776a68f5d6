/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * atp-worker: aggregate a generated tensor through an ATP switch and its parameter server(s)
 * (wire reference B.6) over AF_PACKET, and report goodput; optionally check the result against
 * the sum every worker's seed implies.
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

#include "atp_host.h"
#include "host_args.h"
#include "atp_sock.h"

struct opts {
	struct atp_cli cli; /* what the worker shares with the other workers and the PS */
	unsigned id, timeout_ms, give_up_s;
	uint64_t count, seed, job;
	int is_float, check, cc;
};

/* Per-thread figures, summed at the end. */
struct tstats {
	uint64_t sent, resends, timeouts, acks, dup_acks, stale, coll_acks, repoints, ecn_acks;
	uint64_t ovf_pkts, ovf_acks;
	unsigned min_cwnd;
	uint64_t cwnd_sum; /* window after each ACK, summed: mean_cwnd = cwnd_sum / acks */
};

struct worker {
	const struct opts *o;
	struct atp_map map; /* the app's table; each thread touches only its own slots */
	int32_t *iin, *iout;
	float *fin, *fout;
	_Atomic uint64_t done_pkts;
	uint64_t total_pkts;
	_Atomic int failed;
	_Atomic unsigned finished; /* threads that returned */
};

struct thread {
	struct worker *w;
	unsigned t;
	int fd;
	uint64_t first, n; /* this thread's share of the tensor */
	struct tstats st;
	pthread_t tid;
};

/* One tensor on the wire: at most 65535 packets. */
struct chunk {
	uint64_t key, base;
	uint32_t len, npk, cum, next, inflight;
	unsigned cwnd;
	uint32_t cc_hold; /* --cc: a marked ACK for a seq below this does not halve again */
	uint8_t *acked;
	uint64_t *sent_ns;
	uint8_t *tries; /* resends so far: the timeout doubles with each, up to 32x */
	uint64_t last_ack_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void send_seq(struct thread *th, struct chunk *c, uint32_t seq, bool resend)
{
	const struct opts *o = th->w->o;
	uint64_t off = c->base + (uint64_t)(seq - 1) * ATP_VALUES;
	unsigned n = (unsigned)(c->len - (uint64_t)(seq - 1) * ATP_VALUES);
	uint32_t slot = th->t * o->cli.window + (seq - 1) % o->cli.window;
	struct atp_pkt h = {
	        .bitmap = 1u << o->id,
	        .num_worker = (uint8_t)o->cli.workers,
	        .flag = (uint8_t)((c->key % o->cli.nps) << ATP_PSINDEX_SHIFT),
	        .app = (uint16_t)o->cli.app,
	        .seq = (uint16_t)seq,
	        .key = c->key,
	        .len = c->len,
	};
	uint8_t vb[ATP_VALUES * 4], f[ATP_FRAME_LEN];
	int32_t q[ATP_VALUES];

	if (n > ATP_VALUES)
		n = ATP_VALUES;
	h.agtr = atp_map_get(&th->w->map, slot);
	h.agtr2 = (uint16_t)(h.agtr + ATP_AGTR_MAX);
	if (resend)
		h.flag |= ATP_F_RESEND;
	if (!o->is_float) {
		atp_values_put(vb, th->w->iin + off, n);
	} else if (atp_float_scale(th->w->fin + off, n, o->cli.scale, o->cli.workers, q)) {
		/* Does not fit the int32 sum: raw floats, summed by the PS. */
		atp_floats_put(vb, th->w->fin + off, n);
		h.flag |= ATP_F_OVERFLOW;
		th->st.ovf_pkts++;
	} else {
		atp_values_put(vb, q, ATP_VALUES);
	}
	atp_frame_build(f, &h, true, atp_wire_thread((uint16_t)o->cli.app, th->t), vb);
	if (atp_sock_send(th->fd, f, sizeof(f)) < 0)
		return; /* counted as lost: the timeout resends it */
	c->sent_ns[seq] = now_ns();
	th->st.sent++;
	if (resend) {
		th->st.resends++;
		if (c->tries[seq] < 5)
			c->tries[seq]++;
	}
}

static void take_result(struct thread *th, struct chunk *c, const struct atp_pkt *h,
                        const uint8_t *vb)
{
	const struct opts *o = th->w->o;
	uint64_t off = c->base + (uint64_t)(h->seq - 1) * ATP_VALUES;
	unsigned n = (unsigned)(c->len - (uint64_t)(h->seq - 1) * ATP_VALUES);
	int32_t v[ATP_VALUES];
	float x[ATP_VALUES];

	if (n > ATP_VALUES)
		n = ATP_VALUES;
	if (h->flag & ATP_F_OVERFLOW) {
		th->st.ovf_acks++;
		atp_floats_get(vb, x, n);
		for (unsigned i = 0; i < n; i++) {
			if (o->is_float)
				th->w->fout[off + i] = x[i];
			else
				th->w->iout[off + i] = (int32_t)lrintf(x[i]);
		}
		return;
	}
	atp_values_get(vb, v, n);
	for (unsigned i = 0; i < n; i++) {
		if (o->is_float)
			th->w->fout[off + i] = (float)((double)v[i] / o->cli.scale);
		else
			th->w->iout[off + i] = v[i];
	}
}

/* Sends whatever the window, the aggregator sharing (seq s + W reuses s's aggregator, so it
 * waits for s's ACK) and the congestion window allow. */
static void pump(struct thread *th, struct chunk *c)
{
	unsigned W = th->w->o->cli.window;

	while (c->next <= c->npk && c->inflight < c->cwnd &&
	       (c->next <= W || c->acked[c->next - W])) {
		send_seq(th, c, c->next, false);
		c->next++;
		c->inflight++;
	}
}

static void on_ack(struct thread *th, struct chunk *c, const uint8_t *f, size_t len, uint64_t now)
{
	const struct opts *o = th->w->o;
	struct atp_pkt h;
	uint64_t gap_ns = (uint64_t)o->timeout_ms * 250000ull; /* a quarter of the timeout */
	uint32_t gap_min =
	        o->cli.window / 4 + 1; /* ACKs this far past a seq: not mere reordering */

	if (atp_frame_parse(f, len, &h) < 0 || !(h.flag & ATP_F_ACK) || h.app != o->cli.app)
		return;
	if (h.key != c->key || h.seq == 0 || h.seq > c->npk || h.seq >= c->next) {
		th->st.stale++;
		return;
	}
	if (c->acked[h.seq]) {
		th->st.dup_acks++;
		return;
	}
	take_result(th, c, &h, f + ATP_OFF_VALUES);
	c->acked[h.seq] = 1;
	c->inflight--;
	c->last_ack_ns = now;
	th->st.acks++;
	atomic_fetch_add_explicit(&th->w->done_pkts, 1, memory_order_relaxed);
	if (h.flag & ATP_F_COLLISION) {
		th->st.coll_acks++;
		if (atp_map_set(&th->w->map, th->t * o->cli.window + (h.seq - 1) % o->cli.window,
		                h.len))
			th->st.repoints++;
	}
	if (h.flag & ATP_F_ECN)
		th->st.ecn_acks++;
	if (o->cc) {
		/* Halve at most once per window of seqs (those in flight at a halving carry the
		 * same congestion news), as TCP reacts once per round trip. The hold depends only
		 * on the ACKs, which every worker of the app receives alike, so the workers'
		 * windows stay equal: a worker lagging behind the others would keep their
		 * contributions waiting in the switch. */
		if ((h.flag & ATP_F_ECN) && h.seq >= c->cc_hold) {
			c->cc_hold = h.seq + c->cwnd;
			c->cwnd = c->cwnd > 1 ? c->cwnd / 2 : 1;
		} else if (!(h.flag & ATP_F_ECN) && c->cwnd < o->cli.window) {
			c->cwnd++;
		}
		if (c->cwnd < th->st.min_cwnd)
			th->st.min_cwnd = c->cwnd;
	}
	th->st.cwnd_sum += c->cwnd;
	while (c->cum < c->npk && c->acked[c->cum + 1])
		c->cum++;
	/* An ACK well past a gap: the gap's packets (or their ACKs) are probably lost, or held
	 * as a partial in the switch (a worker's packet went as floats). Resend them, at most
	 * once per quarter timeout each (backing off), so reordering does not cause a storm. */
	for (uint32_t s = c->cum + 1; s + gap_min <= h.seq; s++)
		if (!c->acked[s] && now - c->sent_ns[s] > gap_ns << c->tries[s])
			send_seq(th, c, s, true);
}

static int run_chunk(struct thread *th, struct chunk *c)
{
	const struct opts *o = th->w->o;
	uint8_t *bufs = malloc(64 * ATP_RX_STRIDE);
	size_t lens[64];
	uint64_t tmo = (uint64_t)o->timeout_ms * 1000000ull, t_check = 0, now;
	int rc = 0;

	c->npk = (c->len + ATP_VALUES - 1) / ATP_VALUES;
	c->acked = calloc(c->npk + 1, 1);
	c->sent_ns = calloc(c->npk + 1, sizeof(*c->sent_ns));
	c->tries = calloc(c->npk + 1, 1);
	if (!bufs || !c->acked || !c->sent_ns || !c->tries) {
		rc = -ENOMEM;
		goto out;
	}
	c->cum = 0;
	c->next = 1;
	c->inflight = 0;
	c->cwnd = o->cli.window;
	c->cc_hold = 0;
	c->last_ack_ns = now_ns();
	pump(th, c);
	while (c->cum < c->npk && !atomic_load(&th->w->failed)) {
		int r = atp_sock_recv(th->fd, bufs, lens, 64, 1);

		if (r < 0) {
			rc = r;
			break;
		}
		now = now_ns();
		for (int i = 0; i < r; i++)
			on_ack(th, c, bufs + (size_t)i * ATP_RX_STRIDE, lens[i], now);
		if (now - t_check > tmo / 4) {
			t_check = now;
			/* Timeout: resend every unACKed packet last sent more than a timeout ago.
			 */
			for (uint32_t s = c->cum + 1; s < c->next; s++) {
				if (!c->acked[s] && now - c->sent_ns[s] >= tmo << c->tries[s]) {
					send_seq(th, c, s, true);
					th->st.timeouts++;
				}
			}
			if (now - c->last_ack_ns > (uint64_t)o->give_up_s * 1000000000ull) {
				fprintf(stderr,
				        "atp-worker: thread %u: no ACK for %u s (key %" PRIu64
				        ", %u/%u acked)\n",
				        th->t, o->give_up_s, c->key, c->cum, c->npk);
				rc = -ETIMEDOUT;
				break;
			}
		}
		pump(th, c);
	}
out:
	free(bufs);
	free(c->acked);
	free(c->sent_ns);
	free(c->tries);
	return rc;
}

static void *thread_main(void *arg)
{
	struct thread *th = arg;
	struct worker *w = th->w;
	const struct opts *o = w->o;
	const uint64_t per = (uint64_t)ATP_MAX_SEQ * ATP_VALUES;
	uint64_t k = 0;

	th->st.min_cwnd = o->cli.window;
	for (uint64_t off = 0; off < th->n; off += per, k++) {
		/* Unique per (job, thread, chunk) and the same on every worker of the app. */
		struct chunk c = {
		        .key = o->job << 32 | (k * o->cli.threads + th->t),
		        .base = th->first + off,
		        .len = (uint32_t)(th->n - off < per ? th->n - off : per),
		};
		int rc = run_chunk(th, &c);

		if (rc < 0) {
			if (rc != -ETIMEDOUT)
				fprintf(stderr, "atp-worker: thread %u: %s\n", th->t,
				        strerror(-rc));
			atomic_store(&w->failed, 1);
			break;
		}
	}
	atomic_fetch_add(&w->finished, 1);
	return NULL;
}

static const char usage_text[] =
        "Usage: atp-worker --id I --workers N --app A --dev IFACE [options]\n"
        "Aggregates a generated tensor through an ATP switch and parameter server (raw 0x0700\n"
        "frames over AF_PACKET; needs CAP_NET_RAW).\n"
        "\n"
        "  -i, --id I               this worker, 0..N-1 (bit I of the bitmap)\n"
        "  -n, --workers N          workers of the app, 1..32\n"
        "  -a, --app A              application id, 1..12 (wire thread ids t + 20 (A-1) < 256)\n"
        "  -p, --ps P               parameter servers of the app, 1..4 (PSIndex = key %% P)\n"
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
        "      --seed S             worker I's value i is a hash of (S, I, i) (default 1)\n"
        "      --job J              tensor keys are J<<32 | chunk (default 0); a PS that has\n"
        "                           seen a key answers it from memory, so reuse needs a new J\n"
        "                           or a restarted PS\n"
        "      --check              verify against every worker's tensor: int32 exact,\n"
        "                           float32 within N/scale + (N+2) 2^-23 sum|x|\n"
        "      --timeout-ms MS      resend timeout (default 20)\n"
        "      --give-up-s S        fail after S seconds without an ACK (default 20)\n"
        "      --cc                 AIMD on ECN: halve the window on a marked ACK (at most\n"
        "                           once per window of packets), else +1\n"
        "  -j, --json               one JSON object with the figures at the end\n"
        "  -q, --quiet              no progress lines\n"
        "  -h, --help               this text\n";

enum { O_TYPE = 256, O_SEED, O_JOB, O_CHECK, O_TMO, O_GIVEUP, O_CC };

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {ATP_CLI_LONGOPTS,
	                                   {"id", required_argument, NULL, 'i'},
	                                   {"count", required_argument, NULL, 'c'},
	                                   {"type", required_argument, NULL, O_TYPE},
	                                   {"seed", required_argument, NULL, O_SEED},
	                                   {"job", required_argument, NULL, O_JOB},
	                                   {"check", no_argument, NULL, O_CHECK},
	                                   {"timeout-ms", required_argument, NULL, O_TMO},
	                                   {"give-up-s", required_argument, NULL, O_GIVEUP},
	                                   {"cc", no_argument, NULL, O_CC},
	                                   {"help", no_argument, NULL, 'h'},
	                                   {NULL, 0, NULL, 0}};
	int c, have_id = 0;

	*o = (struct opts){.timeout_ms = 20, .give_up_s = 20, .count = 1u << 20, .seed = 1};
	atp_cli_defaults(&o->cli);
	while ((c = getopt_long(argc, argv, ATP_CLI_SHORTOPTS "i:c:h", lo, NULL)) != -1) {
		int bad = 0;

		switch (c) {
		case 'i':
			bad = host_parse_uint(optarg, 0, ATP_MAX_WORKERS - 1, &o->id);
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
			bad = host_parse_count(optarg, UINT32_MAX, &o->job);
			break;
		case O_CHECK:
			o->check = 1;
			break;
		case O_TMO:
			bad = host_parse_uint(optarg, 1, 60000, &o->timeout_ms);
			break;
		case O_GIVEUP:
			bad = host_parse_uint(optarg, 1, 3600, &o->give_up_s);
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

int main(int argc, char **argv)
{
	struct opts o;
	struct worker w = {0};
	struct thread *ths;
	struct tstats sum = {0};
	uint64_t t0, t1, bad = 0;
	double secs, gbps, max_err = 0;
	int rc;

	if (parse_args(argc, argv, &o) < 0) {
		fputs(usage_text, stderr);
		return 2;
	}
	w.o = &o;
	rc = atp_map_init(&w.map, (uint16_t)o.cli.app, o.cli.threads * o.cli.window, o.cli.pool);
	if (o.is_float) {
		w.fin = malloc(o.count * sizeof(float));
		w.fout = calloc(o.count, sizeof(float));
	} else {
		w.iin = malloc(o.count * sizeof(int32_t));
		w.iout = calloc(o.count, sizeof(int32_t));
	}
	ths = calloc(o.cli.threads, sizeof(*ths));
	if (rc < 0 || !ths || !(o.is_float ? w.fin && w.fout : w.iin && w.iout)) {
		fprintf(stderr, "atp-worker: out of memory\n");
		return 1;
	}
	for (unsigned t = 0; t < o.cli.threads; t++) {
		ths[t].w = &w;
		ths[t].t = t;
		ths[t].first = o.count * t / o.cli.threads;
		ths[t].n = o.count * (t + 1) / o.cli.threads - ths[t].first;
		w.total_pkts += (ths[t].n + ATP_VALUES - 1) / ATP_VALUES;
		ths[t].fd =
		        atp_sock_open(o.cli.dev, false, atp_wire_thread((uint16_t)o.cli.app, t));
		if (ths[t].fd < 0) {
			fprintf(stderr, "atp-worker: socket on %s: %s\n", o.cli.dev,
			        strerror(-ths[t].fd));
			return 1;
		}
	}
	for (uint64_t i = 0; i < o.count; i++) {
		if (o.is_float)
			w.fin[i] = atp_gen_float(o.seed, o.id, i);
		else
			w.iin[i] = atp_gen_int(o.seed, o.id, i);
	}
	t0 = now_ns();
	for (unsigned t = 0; t < o.cli.threads; t++)
		pthread_create(&ths[t].tid, NULL, thread_main, &ths[t]);
	for (uint64_t next = t0 + 1000000000ull; atomic_load(&w.finished) < o.cli.threads;) {
		usleep(20000);
		if (!o.cli.quiet && now_ns() >= next) {
			next += 1000000000ull;
			fprintf(stderr, "atp-worker %u: %" PRIu64 "/%" PRIu64 " packets acked\n",
			        o.id, atomic_load(&w.done_pkts), w.total_pkts);
		}
	}
	for (unsigned t = 0; t < o.cli.threads; t++)
		pthread_join(ths[t].tid, NULL);
	t1 = now_ns();
	secs = (double)(t1 - t0) / 1e9;
	gbps = (double)o.count * 32.0 / secs / 1e9;
	sum.min_cwnd = o.cli.window;
	for (unsigned t = 0; t < o.cli.threads; t++) {
		struct tstats *s = &ths[t].st;

		sum.sent += s->sent;
		sum.resends += s->resends;
		sum.timeouts += s->timeouts;
		sum.acks += s->acks;
		sum.dup_acks += s->dup_acks;
		sum.stale += s->stale;
		sum.coll_acks += s->coll_acks;
		sum.repoints += s->repoints;
		sum.ecn_acks += s->ecn_acks;
		sum.cwnd_sum += s->cwnd_sum;
		sum.ovf_pkts += s->ovf_pkts;
		sum.ovf_acks += s->ovf_acks;
		if (s->min_cwnd < sum.min_cwnd)
			sum.min_cwnd = s->min_cwnd;
		close(ths[t].fd);
	}
	rc = atomic_load(&w.failed) ? 1 : 0;
	if (!rc && o.check) {
		bad = verify(&w, &max_err);
		if (bad)
			rc = 1;
		fprintf(o.cli.json ? stderr : stdout, "atp-worker %u: %s\n", o.id,
		        bad ? "result WRONG" : "result verified");
	}
	if (o.cli.json)
		printf("{\"id\":%u,\"app\":%u,\"workers\":%u,\"threads\":%u,\"window\":%u,"
		       "\"type\":\"%s\",\"elems\":%" PRIu64
		       ",\"seconds\":%.3f,\"goodput_gbps\":%.3f,"
		       "\"packets\":%" PRIu64 ",\"sent\":%" PRIu64 ",\"resends\":%" PRIu64
		       ",\"timeouts\":%" PRIu64 ",\"acks\":%" PRIu64 ",\"dup_acks\":%" PRIu64
		       ",\"stale_acks\":%" PRIu64 ",\"collision_acks\":%" PRIu64
		       ",\"repoints\":%" PRIu64 ",\"ecn_acks\":%" PRIu64
		       ",\"overflow_packets\":%" PRIu64 ",\"float_results\":%" PRIu64
		       ",\"min_cwnd\":%u,\"mean_cwnd\":%.1f,\"ok\":%s,\"verified\":%s,\"bad\":"
		       "%" PRIu64 ",\"max_err\":%g}\n",
		       o.id, o.cli.app, o.cli.workers, o.cli.threads, o.cli.window,
		       o.is_float ? "float32" : "int32", o.count, secs, gbps, w.total_pkts,
		       sum.sent, sum.resends, sum.timeouts, sum.acks, sum.dup_acks, sum.stale,
		       sum.coll_acks, sum.repoints, sum.ecn_acks, sum.ovf_pkts, sum.ovf_acks,
		       sum.min_cwnd, sum.acks ? (double)sum.cwnd_sum / (double)sum.acks : 0.0,
		       rc ? "false" : "true", o.check && !rc ? "true" : "false", bad, max_err);
	else
		printf("atp-worker %u: %" PRIu64 " %s in %.3f s: goodput %.3f Gbit/s; %" PRIu64
		       " packets sent, %" PRIu64 " resends (%" PRIu64 " on timeout), %" PRIu64
		       " collision ACKs, %" PRIu64 " overflow packets, %" PRIu64 " ECN ACKs\n",
		       o.id, o.count, o.is_float ? "float32" : "int32", secs, gbps, sum.sent,
		       sum.resends, sum.timeouts, sum.coll_acks, sum.ovf_pkts, sum.ecn_acks);
	atp_map_fini(&w.map);
	return rc;
}
