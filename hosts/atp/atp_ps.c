/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * atp-ps: the parameter server of one ATP app (after ATP's server/ParameterServer.cc) over
 * AF_PACKET. Stores the switch's complete aggregates, merges partial ones (collisions, resend
 * flushes, overflow floats) without double counting, ACKs each complete seq to
 * 77:77:77:77:77:<t'> through the switch (which frees the aggregator and multicasts the ACK to the
 * app's workers), hands a new aggregator to a slot whose seq collided, and answers resends of
 * complete seqs again. PS index 0 also forms the app's jobs (atp_session.h): its thread 0 answers
 * the workers' JOINs with the ANNOUNCE of the job they run, which names it on the switch too.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atp_engine.h"
#include "atp_host.h"
#include "atp_session.h"
#include "host_args.h"
#include "host_clock.h"
#include "host_rand.h"
#include "atp_sock.h"

struct opts {
	struct atp_cli cli; /* what the PS shares with the workers */
	unsigned ps_index, jobs, linger_ms;
};

#define PS_COUNTERS(X)                                                    \
	X(rx, "packets received for the app")                             \
	X(full, "complete aggregates from the switch")                    \
	X(partial, "partial packets the PS aggregated itself (fallback)") \
	X(collisions, "packets with isSWCollision")                       \
	X(overflow, "float (overflow) packets")                           \
	X(resends, "packets with isResend")                               \
	X(dups, "packets with nothing new")                               \
	X(acks, "ACKs sent")                                              \
	X(reacks, "ACKs sent again for resends of complete seqs")         \
	X(reassigned, "collision ACKs carrying a new aggregator")         \
	X(seqs_full, "seqs completed by one full packet")                 \
	X(seqs_merged, "seqs completed by the PS's own merging")          \
	X(tensors, "tensors complete")                                    \
	X(bad, "malformed or out-of-range packets")                       \
	X(other, "frames of other apps or ACKs")                          \
	X(other_job, "packets of another job than the current one")       \
	X(joins, "JOINs received")                                        \
	X(announces, "ANNOUNCEs sent")                                    \
	X(jobs, "jobs formed (or adopted, after a restart)")

struct ps_stats {
#define X(n, d) uint64_t n;
	PS_COUNTERS(X)
#undef X
};

struct ps {
	const struct opts *o;
	struct atp_map map;
	pthread_mutex_t map_lock; /* reassignments only: rare */
	_Atomic unsigned tensors;
	/* PS index 0: the jobs (thread 0's); job, read by every thread, follows former.job */
	struct atp_former former;
	_Atomic uint32_t job;
	/* No job formed here (none yet, or one adopted from the workers): where their slots point
	 * is unknown, so collision ACKs hand out no aggregator. */
	_Atomic int no_reassign;
};

struct ps_thread {
	struct ps *ps;
	unsigned t;
	struct hx_sock *s;
	struct atp_tensor *cur, *prev; /* prev answers resends of the tensor before */
	struct ps_stats st;
	pthread_t tid;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static struct atp_tensor *find_tensor(struct ps_thread *th, const struct atp_pkt *h)
{
	unsigned nw = th->ps->o->cli.workers ? th->ps->o->cli.workers : h->num_worker;
	struct atp_tensor *t;

	if (th->cur && th->cur->key == h->key)
		return th->cur;
	if (th->prev && th->prev->key == h->key)
		return th->prev;
	if (nw == 0 || nw > ATP_WORKERS_MAX)
		return NULL;
	/* A new key: the tensor before becomes prev (still answers resends). */
	t = atp_tensor_new(h->key, h->len, (uint8_t)nw);
	if (!t)
		return NULL;
	atp_tensor_free(th->prev);
	th->prev = th->cur;
	th->cur = t;
	return t;
}

static void send_ack(struct ps_thread *th, struct atp_tensor *t, const struct atp_pkt *h)
{
	uint8_t f[ATP_FRAME_LEN];

	atp_tensor_ack(t, h, atp_wire_thread(h->app, th->t), th->ps->o->cli.scale, f);
	if (hx_send(th->s, f, sizeof(f)) == 0)
		th->st.acks++;
}

/*
 * A JOIN (PS index 0, thread 0): a job forms once every worker is live (atp_former_join); its
 * ANNOUNCE, through the switch, names it there and tells the workers. A new job starts from the
 * first mapping of the slots, as its workers do; an adopted one (this PS started while it ran)
 * hands out no aggregator, as it does not know where the workers' slots point.
 */
static void on_join(struct ps_thread *th, const struct atp_pkt *h, const uint8_t *vb)
{
	struct ps *ps = th->ps;
	const struct opts *o = ps->o;
	struct atp_join j;
	uint8_t f[ATP_FRAME_LEN];
	enum atp_form r;

	if (th->t != 0 || o->ps_index != 0 || atp_join_parse(h, vb, &j) < 0) {
		th->st.bad++;
		return;
	}
	th->st.joins++;
	if (ps->former.workers == 0)
		atp_former_init(&ps->former, o->cli.workers ? o->cli.workers : j.workers,
		                host_random_u64());
	r = atp_former_join(&ps->former, &j, host_now_ns() / 1000000u);
	if (r == ATP_FORM_BAD || r == ATP_FORM_NONE) {
		th->st.bad += r == ATP_FORM_BAD;
		return;
	}
	if (r == ATP_FORM_NEW || r == ATP_FORM_ADOPTED) {
		pthread_mutex_lock(&ps->map_lock);
		if (r == ATP_FORM_NEW) {
			atp_map_fini(&ps->map);
			if (atp_map_init(&ps->map, (uint16_t)o->cli.app,
			                 o->cli.threads * o->cli.window, o->cli.pool) < 0 ||
			    atp_map_free_init(&ps->map, o->ps_index, o->cli.nps) < 0)
				atomic_store(&ps->no_reassign, 1);
			else
				atomic_store(&ps->no_reassign, 0);
		} else {
			atomic_store(&ps->no_reassign, 1);
		}
		pthread_mutex_unlock(&ps->map_lock);
		atomic_store(&ps->job, ps->former.job);
		th->st.jobs++;
		if (!o->cli.quiet)
			fprintf(stderr, "atp-ps: app %u: job %u %s\n", o->cli.app, ps->former.job,
			        r == ATP_FORM_NEW ? "formed" : "adopted from its workers");
	}
	atp_announce_build(f, (uint16_t)o->cli.app, ps->former.workers, ps->former.job,
	                   ps->former.members);
	if (hx_send(th->s, f, sizeof(f)) == 0)
		th->st.announces++;
}

static void on_packet(struct ps_thread *th, const uint8_t *f, size_t len)
{
	const struct opts *o = th->ps->o;
	struct atp_tensor *t;
	struct atp_pkt h;
	enum atp_merge r;

	if (atp_frame_parse(f, len, &h) < 0 || h.app != o->cli.app || (h.flag & ATP_F_ACK)) {
		th->st.other++;
		return;
	}
	if (h.seq == 0) {
		on_join(th, &h, f + ATP_OFF_VALUES);
		return;
	}
	/* Once a job is named, another's frames (late ones of a job it superseded) are not
	 * merged: the switch drops them too, but some were on their way. */
	if (atomic_load(&th->ps->job) && (uint32_t)(h.key >> 32) != atomic_load(&th->ps->job)) {
		th->st.other_job++;
		return;
	}
	th->st.rx++;
	th->st.resends += !!(h.flag & ATP_F_RESEND);
	th->st.collisions += !!(h.flag & ATP_F_COLLISION);
	th->st.overflow += !!(h.flag & ATP_F_OVERFLOW);
	t = find_tensor(th, &h);
	if (!t) {
		th->st.bad++;
		return;
	}
	if (h.bitmap == t->full_mask && !(h.flag & ATP_F_OVERFLOW))
		th->st.full++;
	else
		th->st.partial++;
	r = atp_tensor_merge(t, &h, f + ATP_OFF_VALUES);
	switch (r) {
	case ATP_MERGE_COMPLETE:
		if ((t->st[h.seq] & ATP_ST_COLLIDED) && !atomic_load(&th->ps->no_reassign)) {
			uint32_t slot = th->t * o->cli.window + (h.seq - 1u) % o->cli.window;
			int a;

			pthread_mutex_lock(&th->ps->map_lock);
			a = atp_map_reassign(&th->ps->map, slot);
			pthread_mutex_unlock(&th->ps->map_lock);
			if (a >= 0) {
				t->new_agtr[h.seq] = (uint16_t)a;
				t->st[h.seq] |= ATP_ST_REASSIGN;
				th->st.reassigned++;
			}
		}
		if (t->st[h.seq] & ATP_ST_FULL)
			th->st.seqs_full++;
		else
			th->st.seqs_merged++;
		send_ack(th, t, &h);
		if (t->ncomplete == t->npkts) {
			th->st.tensors++;
			atomic_fetch_add(&th->ps->tensors, 1);
		}
		break;
	case ATP_MERGE_DONE:
		/* A resend means a worker lost the ACK: answer again (as ATP's PS does). */
		if (h.flag & ATP_F_RESEND) {
			send_ack(th, t, &h);
			th->st.reacks++;
		} else {
			th->st.dups++;
		}
		break;
	case ATP_MERGE_DUP:
		th->st.dups++;
		break;
	case ATP_MERGE_PARTIAL:
		break;
	case ATP_MERGE_BAD:
		th->st.bad++;
		break;
	}
}

static void *thread_main(void *arg)
{
	struct ps_thread *th = arg;
	const struct opts *o = th->ps->o;
	const uint8_t *frames[HX_BATCH];
	uint16_t lens[HX_BATCH];
	uint64_t done_at = 0;

	while (!stop) {
		int r = hx_recv(th->s, frames, lens, HX_BATCH, 50);

		if (r < 0) {
			fprintf(stderr, "atp-ps: thread %u: %s\n", th->t, strerror(-r));
			break;
		}
		for (int i = 0; i < r; i++)
			on_packet(th, frames[i], lens[i]);
		/* After --jobs tensors, keep answering resends (lost ACKs) for --linger-ms. */
		if (o->jobs && atomic_load(&th->ps->tensors) >= o->jobs) {
			if (!done_at)
				done_at = host_now_ns() / 1000000u;
			else if (host_now_ns() / 1000000u - done_at >= o->linger_ms)
				break;
		}
	}
	hx_flush(th->s);
	return NULL;
}

static const char usage_text[] =
        "Usage: atp-ps --app A --dev IFACE [options]\n"
        "The parameter server of one ATP app (raw 0x0700 frames over AF_XDP, or AF_PACKET\n"
        "where AF_XDP cannot be set up; needs CAP_NET_RAW, AF_XDP also CAP_NET_ADMIN and\n"
        "CAP_BPF). Runs until SIGINT/SIGTERM or --jobs tensors, then prints its counters.\n"
        "PS index 0 names the app's jobs: once all N workers have JOINed within 500 ms, a\n"
        "new job (ANNOUNCEd through the switch, which then drops every other job's frames);\n"
        "started while a job runs, it adopts that job (docs/atp.md, Job lifetime).\n"
        "\n"
        "  -a, --app A           application id, 1..12\n"
        "  -d, --dev IFACE       interface towards the switch\n"
        "  -t, --threads T       threads = the workers' --threads (default 1); thread t\n"
        "                        receives 05:04:03:02:01:<t'>, t' = t + 20 (A-1)\n"
        "  -n, --workers N       workers of the app (default: num_worker of each tensor's\n"
        "                        first packet, and of the first JOIN)\n"
        "  -w, --window W        the workers' --window (default 100)\n"
        "      --pool N          the switch's aggregator pool (default 20000): a seq that\n"
        "                        collided gets an aggregator the app's hash table does not\n"
        "                        use, from a FIFO free list, in its ACK\n"
        "  -p, --ps P            parameter servers of the app (default 1)\n"
        "      --ps-index I      this PS's PSIndex, 0..P-1 (default 0); it hands out only\n"
        "                        aggregators with agtr % P == I\n"
        "      --scale F         the workers' float32 scale (default 1048576)\n"
        "      --transport xdp|socket|auto\n"
        "                        AF_XDP or kernel sockets (default auto: AF_XDP where it\n"
        "                        can be set up; one line on stderr says which)\n"
        "      --busy-poll       AF_XDP: spin on the rings instead of sleeping\n"
        "      --jobs K          exit once K tensors are complete (then answer resends for\n"
        "                        --linger-ms, default 1000)\n"
        "  -j, --json            counters as one JSON object\n"
        "  -q, --quiet           no start line\n"
        "  -h, --help            this text\n";

enum { O_PSI = 256, O_JOBS, O_LINGER };

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {ATP_CLI_LONGOPTS,
	                                   {"ps-index", required_argument, NULL, O_PSI},
	                                   {"jobs", required_argument, NULL, O_JOBS},
	                                   {"linger-ms", required_argument, NULL, O_LINGER},
	                                   {"help", no_argument, NULL, 'h'},
	                                   {NULL, 0, NULL, 0}};
	int c;

	*o = (struct opts){.linger_ms = 1000};
	atp_cli_defaults(&o->cli);
	while ((c = getopt_long(argc, argv, ATP_CLI_SHORTOPTS "h", lo, NULL)) != -1) {
		int bad = 0;

		switch (c) {
		case O_PSI:
			bad = host_parse_uint(optarg, 0, ATP_PS_MAX - 1, &o->ps_index);
			break;
		case O_JOBS:
			bad = host_parse_uint(optarg, 1, 1u << 30, &o->jobs);
			break;
		case O_LINGER:
			bad = host_parse_uint(optarg, 0, 600000, &o->linger_ms);
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
			fprintf(stderr, "atp-ps: bad value for --%s: '%s'\n", host_opt_name(lo, c),
			        optarg);
			return -EINVAL;
		}
	}
	if (optind != argc || !o->cli.app || !o->cli.dev) {
		fprintf(stderr, "atp-ps: --app and --dev are required\n");
		return -EINVAL;
	}
	if (o->ps_index >= o->cli.nps || (uint64_t)o->cli.threads * o->cli.window > o->cli.pool) {
		fprintf(stderr, "atp-ps: need --ps-index < --ps and threads * window <= pool\n");
		return -EINVAL;
	}
	return 0;
}

static void print_stats(const struct opts *o, const struct ps_stats *s)
{
	uint64_t data = s->full + s->partial;
	double share = data ? (double)s->partial / (double)data : 0.0;

	if (o->cli.json) {
		printf("{\"app\":%u", o->cli.app);
#define X(n, d) printf(",\"" #n "\":%" PRIu64, s->n);
		PS_COUNTERS(X)
#undef X
		printf(",\"fallback_share\":%.4f}\n", share);
		return;
	}
	printf("atp-ps app %u:\n", o->cli.app);
#define X(n, d) printf("  %-12s %12" PRIu64 "  %s\n", #n, s->n, d);
	PS_COUNTERS(X)
#undef X
	printf("  fallback share %.2f%% (partial / (full + partial))\n", 100.0 * share);
}

int main(int argc, char **argv)
{
	struct opts o;
	struct ps ps = {0};
	struct ps_thread *ths;
	struct ps_stats sum = {0};
	struct sigaction sa = {.sa_handler = on_signal};
	struct hx *hx;
	char err[320];

	if (parse_args(argc, argv, &o) < 0) {
		fputs(usage_text, stderr);
		return 2;
	}
	ps.o = &o;
	/* A PS started while workers run (a restart) has none of their collision ACKs: one it
	 * handed out could be where another thread's slot points now, and two threads' same seq on
	 * one aggregator share its owner key. Only a job formed here starts the slots afresh. */
	atomic_store(&ps.no_reassign, 1);
	pthread_mutex_init(&ps.map_lock, NULL);
	if (atp_map_init(&ps.map, (uint16_t)o.cli.app, o.cli.threads * o.cli.window, o.cli.pool) <
	            0 ||
	    atp_map_free_init(&ps.map, o.ps_index, o.cli.nps) < 0) {
		fprintf(stderr, "atp-ps: cannot build the aggregator map\n");
		return 1;
	}
	ths = calloc(o.cli.threads, sizeof(*ths));
	if (!ths)
		return 1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (atp_sock_open(&hx, &o.cli, true, "atp-ps", err, sizeof(err)) < 0) {
		fprintf(stderr, "atp-ps: %s\n", err);
		return 1;
	}
	for (unsigned t = 0; t < o.cli.threads; t++) {
		ths[t].ps = &ps;
		ths[t].t = t;
		ths[t].s = hx_sock(hx, t);
	}
	for (unsigned t = 0; t < o.cli.threads; t++)
		pthread_create(&ths[t].tid, NULL, thread_main, &ths[t]);
	if (!o.cli.quiet)
		fprintf(stderr, "atp-ps: app %u on %s, %u thread(s), %u free aggregators\n",
		        o.cli.app, o.cli.dev, o.cli.threads, ps.map.fifo_len);
	for (unsigned t = 0; t < o.cli.threads; t++) {
		pthread_join(ths[t].tid, NULL);
#define X(n, d) sum.n += ths[t].st.n;
		PS_COUNTERS(X)
#undef X
		atp_tensor_free(ths[t].cur);
		atp_tensor_free(ths[t].prev);
	}
	hx_close(hx);
	print_stats(&o, &sum);
	atp_map_fini(&ps.map);
	free(ths);
	return 0;
}
