/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ATP worker engine (atp_engine.h): one thread and one socket per thread id, each thread
 * sending its share of the tensor in chunks of at most 65535 packets (one key each), with ATP's
 * window (seq s + W reuses s's aggregator, so it waits for s's ACK), resends on gaps and timeouts,
 * collision re-pointing and optional AIMD on ECN (wire behaviour: docs/atp.md). Before its first
 * frame the worker JOINs its app's job and waits for the PS's ANNOUNCE (atp_session.h); its keys
 * carry that job. With verify, each job's checksums (atp_engine_verify).
 */
#include <errno.h>
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
#include "atp_check.h"
#include "atp_session.h"
#include "atp_sock.h"
#include "host_job.h"
#include "host_rand.h"
#include "host_rtt.h"

/* Timeouts grow to 2^4 = 16 times their base at most: a seq's resends back off four times, the
 * stall timeout is at most 16 --timeout-ms. */
#define ATP_BACKOFF_SHIFT_MAX 4u

/* A call's chunk index (chunk * threads + t) takes the low 20 bits of a key's low half, the call
 * number (modulo 4096) the 12 above: keys differ between the calls a PS remembers (two). */
#define ATP_KEY_CHUNK_BITS 20u

struct atp_ethread {
	struct atp_engine *e;
	unsigned t;
	struct hx_sock *s; /* this thread's socket of e->hx */
	uint64_t first, n; /* this thread's share of the tensor */
	struct atp_engine_stats st;
	struct atp_ck ck;
	uint32_t job;        /* the job its sends carry now */
	bool acked;          /* it took an ACK of that job (and so told e->mem) */
	uint64_t taken;      /* packets it took results for (progress) */
	struct host_rtt rt;  /* through the switch: seqs ACKed at their first send, no isResend */
	struct host_rtt rec; /* ... through the PS: resent seqs, from their first resend */
};

struct atp_engine {
	struct atp_engine_cfg cfg;
	struct hx *hx;      /* one socket per thread */
	struct atp_map map; /* the app's table; each thread touches only its own slots */
	/* The region the map is in (docs/memory.md, ATP): gen 0, the shared range (cli.pool);
	 * else the switch's region for the app, taken from a note at the start of a call. win:
	 * the window its threads use (cli.window, or what the region gives each thread). */
	unsigned win;
	uint16_t rgen;
	uint64_t rmoves;
	/* the newest note seen in a result (any thread): gen << 32 | first << 16 | size, the
	 * size modulo 2^16; 0: none */
	_Atomic uint64_t rnote;
	struct atp_ethread *th;
	/* the current job */
	const int32_t *iin;
	int32_t *iout;
	const float *fin;
	float *fout;
	int is_float;
	unsigned call;  /* calls so far: the key's bits above the chunk index */
	int verify;     /* checksums on (atp_engine_set_verify) */
	int all_floats; /* every packet as raw floats (the check's own call) */
	/* the job (atp_session.h): e->mem under jlock; e->job, the job the threads send, follows
	 * it (written by thread 0 only) */
	pthread_mutex_t jlock;
	struct atp_member mem;
	_Atomic uint32_t job;
	_Atomic int acked;          /* e->mem.acked, for the JOINs' state */
	_Atomic uint64_t job_ns;    /* when the worker took it */
	_Atomic uint64_t join_ns;   /* the last JOIN sent (any thread) */
	_Atomic uint64_t joins;     /* JOINs sent */
	_Atomic uint64_t jobs_seen; /* jobs taken (more than one: it moved before any ACK) */
	_Atomic uint64_t done_pkts;
	uint64_t total_pkts;
	_Atomic unsigned finished; /* threads done with the current call */
	atp_progress_fn progress;  /* the current call's, and its argument */
	void *progress_arg;
	struct host_job *runner; /* the threads, for the engine's life */
};

/* One tensor on the wire: at most 65535 packets. */
struct chunk {
	uint64_t key, base;
	uint32_t len, npk, cum, next, inflight;
	unsigned cwnd;
	uint32_t cc_hold; /* --cc: a marked ACK for a seq below this does not halve again */
	uint8_t *acked;
	uint64_t *sent_ns;
	uint8_t *tries;       /* resends so far (at most 5): recovery_rto() doubles with each */
	uint64_t last_ack_ns; /* the last ACK that acknowledged something new */
	/* with verify: each seq's checksums of what this worker sent, taken at its first send
	 * (its input is still there, even when the result goes to the same buffer); floats:
	 * the seq went as raw floats */
	uint32_t (*ck)[2];
	uint8_t *floats;
};

const char *atp_engine_transport(const struct atp_engine *e)
{
	return hx_kind(e->hx) == HX_XDP ? "xdp" : "socket";
}

const char *atp_engine_error(const struct atp_engine *e)
{
	const char *m = host_job_error(e->runner);

	return m ? m : "no error";
}

/* The 62 values of seq as this worker sends them: int32 (float32 scaled), or raw floats when
 * one does not fit the int32 sum (true: the overflow flag). n: the valid ones. */
static bool seq_values(struct atp_ethread *th, const struct chunk *c, uint32_t seq, uint8_t *vb,
                       int32_t *q, unsigned *np)
{
	const struct atp_engine_cfg *o = &th->e->cfg;
	uint64_t off = c->base + (uint64_t)(seq - 1) * ATP_VALUES;
	unsigned n = (unsigned)(c->len - (uint64_t)(seq - 1) * ATP_VALUES);

	if (n > ATP_VALUES)
		n = ATP_VALUES;
	*np = n;
	if (th->e->all_floats) {
		/* The check's own call: raw floats, which the switch passes to the PS untouched. */
		if (vb)
			atp_floats_put(vb, th->e->fin + off, n);
		return true;
	}
	if (!th->e->is_float) {
		for (unsigned i = 0; i < n; i++)
			q[i] = th->e->iin[off + i];
		for (unsigned i = n; i < ATP_VALUES; i++)
			q[i] = 0;
	} else if (atp_float_scale(th->e->fin + off, n, o->cli.scale, o->cli.workers, q)) {
		/* Does not fit the int32 sum: raw floats, summed by the PS. */
		if (vb)
			atp_floats_put(vb, th->e->fin + off, n);
		return true;
	}
	if (vb)
		atp_values_put(vb, q, ATP_VALUES);
	return false;
}

static void send_seq(struct atp_ethread *th, struct chunk *c, uint32_t seq, bool resend)
{
	const struct atp_engine_cfg *o = &th->e->cfg;
	uint32_t slot = th->t * th->e->win + (seq - 1) % th->e->win;
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
	unsigned n;

	h.agtr = atp_map_get(&th->e->map, slot);
	h.agtr2 = (uint16_t)(h.agtr + ATP_AGTR_MAX);
	if (resend)
		h.flag |= ATP_F_RESEND;
	bool floats = seq_values(th, c, seq, vb, q, &n);
	if (floats) {
		h.flag |= ATP_F_OVERFLOW;
		th->st.ovf_pkts++;
	}
	if (!resend && th->e->verify) {
		c->floats[seq] = floats;
		c->ck[seq][0] = c->ck[seq][1] = 0;
		if (!floats)
			atp_ck_add(c->ck[seq], q, n, c->key, seq);
	}
	atp_frame_build(f, &h, true, atp_wire_thread((uint16_t)o->cli.app, th->t), vb);
	if (hx_send(th->s, f, sizeof(f)) < 0)
		return; /* counted as lost: the timeout resends it */
	c->sent_ns[seq] = host_now_ns();
	th->st.sent++;
	if (resend) {
		th->st.resends++;
		if (c->tries[seq] <= ATP_BACKOFF_SHIFT_MAX)
			c->tries[seq]++;
	}
}

static void take_result(struct atp_ethread *th, struct chunk *c, const struct atp_pkt *h,
                        const uint8_t *vb)
{
	const struct atp_engine_cfg *o = &th->e->cfg;
	uint64_t off = c->base + (uint64_t)(h->seq - 1) * ATP_VALUES;
	unsigned n = (unsigned)(c->len - (uint64_t)(h->seq - 1) * ATP_VALUES);
	int32_t v[ATP_VALUES];
	float x[ATP_VALUES];

	if (n > ATP_VALUES)
		n = ATP_VALUES;
	if (h->flag & ATP_F_OVERFLOW) {
		/* a float result (some worker's packet of seq went as floats, summed by the PS):
		 * not covered by the check */
		th->ck.uncovered += th->e->verify;
		th->st.ovf_acks++;
		atp_floats_get(vb, x, n);
		for (unsigned i = 0; i < n; i++) {
			if (th->e->is_float)
				th->e->fout[off + i] = x[i];
			else
				th->e->iout[off + i] = (int32_t)lrintf(x[i]);
		}
		return;
	}
	if (!th->e->verify) {
		atp_values_get(vb, v, n);
	} else if (c->floats[h->seq]) {
		/* an int32 result of a seq this worker sent as floats: not covered */
		atp_values_get(vb, v, n);
		th->ck.mixed++;
	} else {
		/* what this worker sent of seq (its first send), and what came back */
		th->ck.sent[0] += c->ck[h->seq][0];
		th->ck.sent[1] += c->ck[h->seq][1];
		th->ck.rails += atp_ck_take(th->ck.got, v, vb, n, c->key, h->seq);
		th->ck.covered++;
	}
	for (unsigned i = 0; i < n; i++) {
		if (th->e->is_float)
			th->e->fout[off + i] = (float)((double)v[i] / o->cli.scale);
		else
			th->e->iout[off + i] = v[i];
	}
}

/* Sends whatever the window, the aggregator sharing (seq s + W reuses s's aggregator, so it
 * waits for s's ACK) and the congestion window allow. */
static void pump(struct atp_ethread *th, struct chunk *c)
{
	unsigned W = th->e->win;

	while (c->next <= c->npk && c->inflight < c->cwnd &&
	       (c->next <= W || c->acked[c->next - W])) {
		send_seq(th, c, c->next, false);
		c->next++;
		c->inflight++;
	}
}

/*
 * The stall timeout: RFC 6298's srtt + 4 rttvar over the round trips of seqs ACKed at their first
 * send and completed without anyone's resend (Karn's rule, for all the workers of a seq: a seq
 * that waited for another worker's recovery measures that recovery, not the path), between
 * --timeout-ms and 16 times it, and before the first round trip is known never below
 * --first-timeout-ms (the other workers may not have started yet: until they have, nothing
 * completes). The ceiling breaks the loop that would otherwise remain: a seq sent while another
 * worker waits out its stall completes after that wait, and its round trip would lengthen this
 * worker's stall timeout, which lengthens the other's. A stall resend costs one seq's flush to
 * the PS; a stall timeout too long idles every worker of the app. It applies to seqs never
 * resent: once resent, a seq follows recovery_rto().
 */
static uint64_t stall_rto(const struct atp_ethread *th)
{
	const struct atp_engine_cfg *o = &th->e->cfg;
	uint64_t lo = (uint64_t)o->timeout_ms * 1000000ull, hi = lo << ATP_BACKOFF_SHIFT_MAX;
	uint64_t first = (o->first_timeout_ms ? o->first_timeout_ms : 250) * 1000000ull;

	return host_rtt_timeout(&th->rt, first, lo, th->rt.srtt ? hi : UINT64_MAX, 0);
}

/*
 * The timeout of a seq already resent: it is on its way through the PS (its resend flushed it
 * from the switch, or went to the PS unchanged), so another resend costs the switch nothing,
 * only the PS a duplicate. srtt + 4 rttvar of the PS round trips seen (first resend to ACK),
 * never below 1 ms (--timeout-ms until the first of them), doubled per further resend (up to
 * 16x).
 */
static uint64_t recovery_rto(const struct atp_ethread *th, const struct chunk *c, uint32_t seq)
{
	return host_rtt_timeout(&th->rec, (uint64_t)th->e->cfg.timeout_ms * 1000000ull, 1000000ull,
	                        UINT64_MAX, c->tries[seq] - 1u);
}

/* This worker's JOIN (any thread may send it), at most one per ivl_ms over all threads. */
static void maybe_join(struct atp_ethread *th, uint64_t now, unsigned ivl_ms)
{
	struct atp_engine *e = th->e;
	uint64_t last = atomic_load(&e->join_ns);
	struct atp_join j = {.app = (uint16_t)e->cfg.cli.app,
	                     .id = (uint8_t)e->cfg.id,
	                     .workers = (uint8_t)e->cfg.cli.workers,
	                     .nonce = e->mem.nonce};
	uint8_t f[ATP_FRAME_LEN];

	if (last && now - last < (uint64_t)ivl_ms * 1000000ull)
		return;
	if (!atomic_compare_exchange_strong(&e->join_ns, &last, now))
		return;
	j.job = atomic_load(&e->job);
	j.state = !j.job                   ? ATP_JOIN_WAITING
	          : atomic_load(&e->acked) ? ATP_JOIN_RUNNING
	                                   : ATP_JOIN_STARTED;
	atp_join_build(f, &j);
	if (hx_send(th->s, f, sizeof(f)) == 0)
		atomic_fetch_add(&e->joins, 1);
}

/* A result's region note (atp_note_put): kept if newer than the one kept (16-bit generations,
 * compared modulo 2^16). */
static void note_take(struct atp_engine *e, const struct atp_pkt *h)
{
	uint64_t note = (uint64_t)h->agtr2 << 32 | h->bitmap;
	uint64_t kept = atomic_load_explicit(&e->rnote, memory_order_relaxed);

	while (h->agtr2 != 0 && (kept == 0 || (int16_t)(h->agtr2 - (uint16_t)(kept >> 32)) > 0))
		if (atomic_compare_exchange_weak(&e->rnote, &kept, note))
			break;
}

/* Moves the map to the kept note's region if it is another generation than the map's; only
 * while no thread sends (a call's start, or the first job's ANNOUNCE). 0 or -errno. */
static int region_apply(struct atp_engine *e)
{
	const struct atp_engine_cfg *o = &e->cfg;
	uint64_t note = atomic_load(&e->rnote);
	uint16_t gen = (uint16_t)(note >> 32);
	uint32_t first = (uint32_t)(note >> 16) & 0xffffu, size = (uint32_t)note & 0xffffu;
	struct atp_map m;
	unsigned win;
	int rc;

	if (note == 0 || gen == e->rgen)
		return 0;
	if (size == 0)
		size = 65536;
	win = size / o->cli.threads;
	win = win == 0 ? 1 : win > o->cli.window ? o->cli.window : win;
	rc = atp_map_init_region(&m, (uint16_t)o->cli.app, o->cli.threads * win, first, size);
	if (rc < 0)
		return rc;
	atp_map_fini(&e->map);
	e->map = m;
	e->win = win;
	e->rgen = gen;
	e->rmoves++;
	return 0;
}

/* An ANNOUNCE (thread 0 receives them): take the job, move to another, or fail. */
static void on_announce(struct atp_ethread *th, const struct atp_pkt *h, const uint8_t *vb,
                        uint64_t now)
{
	struct atp_engine *e = th->e;
	uint32_t job, nonces[ATP_WORKERS_MAX], old;
	enum atp_ann r;

	if (atp_announce_parse(h, vb, &job, nonces) < 0)
		return;
	if (h->flag & ATP_F_NOTE)
		note_take(e, h);
	pthread_mutex_lock(&e->jlock);
	old = e->mem.job;
	r = atp_member_announce(&e->mem, job, nonces, h->num_worker);
	pthread_mutex_unlock(&e->jlock);
	/* A worker's first job starts in the app's region (the other threads wait for it). */
	if (r == ATP_ANN_TAKE && old == 0 && region_apply(e) < 0)
		host_job_fail(e->runner, -ENOMEM, "no memory for the region's aggregator map");
	if (r == ATP_ANN_TAKE) {
		atomic_store(&e->job_ns, now);
		atomic_store(&e->job, job);
		atomic_fetch_add(&e->jobs_seen, 1);
	} else if (r == ATP_ANN_SUPERSEDED) {
		host_job_fail(e->runner, -EIO,
		              "job %u superseded by job %u (another run of app %u started): the "
		              "switch takes only the new job's frames now",
		              old, job, e->cfg.cli.app);
	}
}

/*
 * The first ACK a thread takes in its job tells the member state (under jlock): from then on the
 * job cannot move to another. False if the job is moving (an ANNOUNCE came first): the ACK is
 * of the job being left, and is not taken.
 */
static bool first_ack(struct atp_ethread *th)
{
	struct atp_engine *e = th->e;
	bool ok;

	pthread_mutex_lock(&e->jlock);
	ok = e->mem.job == th->job;
	if (ok) {
		e->mem.acked = true;
		atomic_store(&e->acked, 1);
	}
	pthread_mutex_unlock(&e->jlock);
	th->acked = ok;
	return ok;
}

static void on_ack(struct atp_ethread *th, struct chunk *c, const uint8_t *f, size_t len,
                   uint64_t now)
{
	const struct atp_engine_cfg *o = &th->e->cfg;
	struct atp_pkt h;
	uint32_t gap_min = th->e->win / 4 + 1; /* ACKs this far past a seq: not mere reordering */

	if (atp_frame_parse(f, len, &h) < 0 || !(h.flag & ATP_F_ACK) || h.app != o->cli.app)
		return;
	if (h.flag & ATP_F_NOTE)
		note_take(th->e, &h);
	if (h.seq == 0) {
		if (th->t == 0)
			on_announce(th, &h, f + ATP_OFF_VALUES, now);
		return;
	}
	if (h.key != c->key || h.seq > c->npk || h.seq >= c->next) {
		th->st.stale++;
		return;
	}
	if (c->acked[h.seq]) {
		th->st.dup_acks++;
		return;
	}
	if (!th->acked && !first_ack(th)) {
		th->st.stale++;
		return;
	}
	take_result(th, c, &h, f + ATP_OFF_VALUES);
	th->taken++;
	/* Karn's rule, host_rtt_answer: the PS's round trips from a seq's only resend, the
	 * switch's from seqs never resent by anyone (one of the seqs in flight a round trip). */
	if (!(h.flag & ATP_F_COLLISION) && c->tries[h.seq] >= 1)
		host_rtt_answer(&th->rec, c->sent_ns[h.seq], now, c->tries[h.seq] - 1u, 1);
	else if (!(h.flag & (ATP_F_COLLISION | ATP_F_RESEND)))
		host_rtt_answer(&th->rt, c->sent_ns[h.seq], now, c->tries[h.seq], c->inflight);
	c->acked[h.seq] = 1;
	c->inflight--;
	c->last_ack_ns = now;
	th->st.acks++;
	atomic_fetch_add_explicit(&th->e->done_pkts, 1, memory_order_relaxed);
	if (h.flag & ATP_F_COLLISION) {
		th->st.coll_acks++;
		if (atp_map_set(&th->e->map, th->t * th->e->win + (h.seq - 1) % th->e->win, h.len))
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
		} else if (!(h.flag & ATP_F_ECN) && c->cwnd < th->e->win) {
			c->cwnd++;
		}
		if (c->cwnd < th->st.min_cwnd)
			th->st.min_cwnd = c->cwnd;
	}
	th->st.cwnd_sum += c->cwnd;
	while (c->cum < c->npk && c->acked[c->cum + 1])
		c->cum++;
	/* An ACK well past a gap: every worker sends its seqs in order, on FIFO paths, so the
	 * gap's packets (or their ACKs) are lost, or held as a partial in the switch (a worker's
	 * packet went as floats); reordering moves a packet by a few places, not by a quarter
	 * window. Resend each seq of the gap once: its recovery goes through the PS and takes
	 * longer than a round trip through the switch, so further resends wait for its own
	 * timeout (recovery_rto). */
	for (uint32_t s = c->cum + 1; s + gap_min <= h.seq; s++)
		if (!c->acked[s] && c->tries[s] == 0) {
			send_seq(th, c, s, true);
			th->st.gaps++;
		}
}

static int run_chunk(struct atp_ethread *th, struct chunk *c)
{
	const struct atp_engine_cfg *o = &th->e->cfg;
	const uint8_t *frames[HX_BATCH];
	uint16_t lens[HX_BATCH];
	uint64_t t_check = 0, now;
	int rc = 0;

	c->npk = (c->len + ATP_VALUES - 1) / ATP_VALUES;
	c->acked = calloc(c->npk + 1, 1);
	c->sent_ns = calloc(c->npk + 1, sizeof(*c->sent_ns));
	c->tries = calloc(c->npk + 1, 1);
	if (th->e->verify) {
		c->ck = calloc(c->npk + 1, sizeof(*c->ck));
		c->floats = calloc(c->npk + 1, 1);
	}
	if (!c->acked || !c->sent_ns || !c->tries || (th->e->verify && (!c->ck || !c->floats))) {
		rc = -ENOMEM;
		goto out;
	}
	c->cum = 0;
	c->next = 1;
	c->inflight = 0;
	c->cwnd = th->e->win;
	c->cc_hold = 0;
	c->last_ack_ns = host_now_ns();
	pump(th, c);
	while (c->cum < c->npk && !host_job_stopping(th->e->runner)) {
		int r;

		if (atomic_load(&th->e->job) != th->job) {
			rc = -EAGAIN; /* the worker moved to another job before any ACK */
			break;
		}
		r = hx_recv(th->s, frames, lens, HX_BATCH, 1);

		if (r < 0) {
			rc = r;
			break;
		}
		now = host_now_ns();
		for (int i = 0; i < r; i++)
			on_ack(th, c, frames[i], lens[i], now);
		if (now - t_check > 500000) { /* the timeouts, every 0.5 ms */
			uint32_t s = c->cum + 1;
			uint64_t since = c->last_ack_ns;

			t_check = now;
			/* A stall: no ACK acknowledged anything for a timeout, and the oldest seq
			 * was sent that long ago. Resend only the oldest, as TCP does. A seq with
			 * no ACK while others are ACKed is the gap rule's (on_ack); nothing ACKed
			 * at all is, far more often than a loss of a whole window, a worker
			 * whose window waits on its own recovery (a lost ACK, resent through the
			 * PS), and every seq resent meanwhile would be flushed to the PS for
			 * nothing: timing out the whole window made each loss cost a window. */
			if (s < c->next && !c->acked[s] && c->tries[s] == 0) {
				if (c->sent_ns[s] > since)
					since = c->sent_ns[s];
				if (since + stall_rto(th) <= now) {
					send_seq(th, c, s, true);
					th->st.timeouts++;
					th->st.stalls++;
				}
			}
			/* Seqs already resent: their own timeout. */
			for (s = c->cum + 1; s < c->next; s++) {
				if (!c->acked[s] && c->tries[s] &&
				    c->sent_ns[s] + recovery_rto(th, c, s) <= now) {
					send_seq(th, c, s, true);
					th->st.timeouts++;
				}
			}
			/* A job with no ACK at all (a member may be dead: a JOIN keeps this worker
			 * counted, so that the job can form again without it), or stalled (the
			 * switch may have restarted: the PS's ANNOUNCE names the job there again).
			 */
			if (!atomic_load(&th->e->acked)
			            ? now - atomic_load(&th->e->job_ns) >= ATP_QUIET_MS * 1000000ull
			            : now - c->last_ack_ns >= stall_rto(th))
				maybe_join(th, now, ATP_HEARTBEAT_MS);
			if (now - c->last_ack_ns > (uint64_t)o->give_up_s * 1000000000ull) {
				host_job_fail(
				        th->e->runner, -ETIMEDOUT,
				        "thread %u: no ACK for %u s (job %u, key %#" PRIx64
				        ", %u of %u packets acknowledged); are the switch's app, "
				        "the parameter server and all %u workers up?",
				        th->t, o->give_up_s, th->job, c->key, c->cum, c->npk,
				        o->cli.workers);
				rc = -ETIMEDOUT;
				break;
			}
		}
		pump(th, c);
	}
out:
	th->st.srtt_ns = th->rt.srtt;
	th->st.rec_srtt_ns = th->rec.srtt;
	free(c->acked);
	free(c->sent_ns);
	free(c->tries);
	free(c->ck);
	free(c->floats);
	return rc;
}

/* Thread 0 before the job: JOIN every ATP_JOIN_MS until an ANNOUNCE lists this worker. */
static int join_job(struct atp_ethread *th)
{
	struct atp_engine *e = th->e;
	const uint8_t *frames[HX_BATCH];
	uint16_t lens[HX_BATCH];
	uint64_t t0 = host_now_ns(), now = t0;

	while (!atomic_load(&e->job) && !host_job_stopping(e->runner)) {
		int r;

		maybe_join(th, now, ATP_JOIN_MS);
		r = hx_recv(th->s, frames, lens, HX_BATCH, 1);
		if (r < 0)
			return r;
		now = host_now_ns();
		for (int i = 0; i < r; i++) {
			struct atp_pkt h;

			if (atp_frame_parse(frames[i], lens[i], &h) == 0 && h.seq == 0 &&
			    (h.flag & ATP_F_ACK) && h.app == e->cfg.cli.app)
				on_announce(th, &h, frames[i] + ATP_OFF_VALUES, now);
		}
		if (now - t0 > (uint64_t)e->cfg.give_up_s * 1000000000ull) {
			host_job_fail(
			        e->runner, -ETIMEDOUT,
			        "no job for app %u within %u s: its parameter server (atp-ps, PS "
			        "index 0) names one once all %u workers have JOINed within %u ms "
			        "of each other; are the switch's app, the PS and all %u workers "
			        "up?",
			        e->cfg.cli.app, e->cfg.give_up_s, e->cfg.cli.workers, ATP_LIVE_MS,
			        e->cfg.cli.workers);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/* Thread 0 once its own chunks are done: ANNOUNCEs while the other threads run. */
static void watch_job(struct atp_ethread *th)
{
	struct atp_engine *e = th->e;
	const uint8_t *frames[HX_BATCH];
	uint16_t lens[HX_BATCH];

	while (atomic_load(&e->finished) + 1 < e->cfg.cli.threads &&
	       !host_job_stopping(e->runner)) {
		int r = hx_recv(th->s, frames, lens, HX_BATCH, 1);
		uint64_t now = host_now_ns();

		for (int i = 0; i < r; i++) {
			struct atp_pkt h;

			if (atp_frame_parse(frames[i], lens[i], &h) == 0 && h.seq == 0 &&
			    (h.flag & ATP_F_ACK) && h.app == e->cfg.cli.app)
				on_announce(th, &h, frames[i] + ATP_OFF_VALUES, now);
		}
	}
}

/* Thread t's part of a call (the runner's function). */
static void thread_run(void *arg, unsigned t)
{
	struct atp_engine *e = arg;
	struct atp_ethread *th = &e->th[t];
	const struct atp_engine_cfg *o = &e->cfg;
	const uint64_t per = (uint64_t)ATP_MAX_SEQ * ATP_VALUES;
	int rc = 0;

	if (th->t == 0 && !atomic_load(&e->job))
		rc = join_job(th);
	while (!rc && !atomic_load(&e->job) && !host_job_stopping(e->runner))
		usleep(1000);
again:
	th->job = atomic_load(&e->job);
	th->acked = false;
	memset(&th->ck, 0, sizeof(th->ck));
	atomic_fetch_sub(&e->done_pkts, th->taken);
	th->taken = 0;
	for (uint64_t off = 0, k = 0; !rc && off < th->n && !host_job_stopping(e->runner);
	     off += per, k++) {
		/* Unique per (job, call, thread, chunk) and the same on every worker of the app. */
		struct chunk c = {
		        .key = (uint64_t)th->job << 32 |
		               (uint64_t)(e->call & 0xfffu) << ATP_KEY_CHUNK_BITS |
		               (k * o->cli.threads + th->t),
		        .base = th->first + off,
		        .len = (uint32_t)(th->n - off < per ? th->n - off : per),
		};

		rc = run_chunk(th, &c);
		if (rc == -EAGAIN) {
			/* Another job before any ACK: start again under it, with the slots as the
			 * PS's new job has them (as first mapped). */
			for (uint32_t s = 0; s < e->win; s++)
				atp_map_restore(&e->map, th->t * e->win + s);
			rc = 0;
			goto again;
		}
	}
	/* A timeout said why where it happened. */
	if (rc < 0 && rc != -ETIMEDOUT)
		host_job_fail(e->runner, rc, "thread %u: %s", th->t, strerror(-rc));
	if (th->t == 0)
		watch_job(th);
	atomic_fetch_add(&e->finished, 1);
}

struct atp_engine *atp_engine_create(const struct atp_engine_cfg *cfg, char *err, size_t errlen)
{
	struct atp_engine *e = calloc(1, sizeof(*e));
	int rc;

	if (!e) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	e->cfg = *cfg;
	e->win = cfg->cli.window;
	pthread_mutex_init(&e->jlock, NULL);
	/* This process's nonce: JOINs and ANNOUNCEs name the worker by it. */
	e->mem.nonce = host_random_nz32();
	e->mem.id = cfg->id;
	e->mem.workers = cfg->cli.workers;
	e->verify = 1;
	if (!cfg->cli.dev || !cfg->cli.workers || cfg->cli.workers > ATP_WORKERS_MAX ||
	    cfg->id >= cfg->cli.workers || !cfg->cli.app || !cfg->cli.threads ||
	    cfg->cli.threads > ATP_THREADS_PER_APP || !cfg->cli.window || !cfg->cli.nps ||
	    (uint64_t)cfg->cli.threads * cfg->cli.window > cfg->cli.pool ||
	    cfg->cli.pool > ATP_POOL_MAX || !cfg->timeout_ms || !cfg->give_up_s ||
	    !(cfg->cli.scale > 0)) {
		snprintf(err, errlen,
		         "bad ATP parameters: need a device, 1 <= id + 1 <= workers <= %u, app >= "
		         "1, "
		         "1..%u threads, threads * window <= pool <= %u, timeouts and a scale",
		         ATP_WORKERS_MAX, ATP_THREADS_PER_APP, ATP_POOL_MAX);
		atp_engine_destroy(e);
		errno = EINVAL;
		return NULL;
	}
	rc = atp_map_init(&e->map, (uint16_t)cfg->cli.app, cfg->cli.threads * cfg->cli.window,
	                  cfg->cli.pool);
	e->th = calloc(cfg->cli.threads, sizeof(*e->th));
	if (rc < 0 || !e->th) {
		rc = rc < 0 ? rc : -ENOMEM;
		snprintf(err, errlen, "aggregator map of app %u: %s", cfg->cli.app, strerror(-rc));
		atp_engine_destroy(e);
		errno = -rc;
		return NULL;
	}
	rc = atp_sock_open(&e->hx, &cfg->cli, false, cfg->tool ? cfg->tool : "atp-worker", err,
	                   errlen);
	if (rc < 0) {
		atp_engine_destroy(e);
		errno = -rc;
		return NULL;
	}
	for (unsigned t = 0; t < cfg->cli.threads; t++) {
		e->th[t].e = e;
		e->th[t].t = t;
		e->th[t].s = hx_sock(e->hx, t);
	}
	e->runner = host_job_create(cfg->cli.threads, "atp", thread_run, e, err, errlen);
	if (!e->runner) {
		rc = errno;
		atp_engine_destroy(e);
		errno = rc;
		return NULL;
	}
	return e;
}

void atp_engine_destroy(struct atp_engine *e)
{
	if (!e)
		return;
	host_job_destroy(e->runner);
	hx_close(e->hx);
	free(e->th);
	atp_map_fini(&e->map);
	pthread_mutex_destroy(&e->jlock);
	free(e);
}

static void stats_add(struct atp_engine_stats *sum, const struct atp_engine_stats *s)
{
	sum->sent += s->sent;
	sum->resends += s->resends;
	sum->timeouts += s->timeouts;
	sum->gaps += s->gaps;
	sum->stalls += s->stalls;
	if (s->srtt_ns > sum->srtt_ns)
		sum->srtt_ns = s->srtt_ns;
	if (s->rec_srtt_ns > sum->rec_srtt_ns)
		sum->rec_srtt_ns = s->rec_srtt_ns;
	sum->acks += s->acks;
	sum->dup_acks += s->dup_acks;
	sum->stale += s->stale;
	sum->coll_acks += s->coll_acks;
	sum->repoints += s->repoints;
	sum->ecn_acks += s->ecn_acks;
	sum->cwnd_sum += s->cwnd_sum;
	sum->ovf_pkts += s->ovf_pkts;
	sum->ovf_acks += s->ovf_acks;
	sum->packets += s->packets;
	sum->checked += s->checked;
	sum->unchecked += s->unchecked;
	sum->seconds += s->seconds;
	if (s->min_cwnd && (!sum->min_cwnd || s->min_cwnd < sum->min_cwnd))
		sum->min_cwnd = s->min_cwnd;
}

/* The runner's tick during a call: its progress. */
static void progress_tick(void *arg)
{
	struct atp_engine *e = arg;

	e->progress(e->progress_arg, atomic_load(&e->done_pkts), e->total_pkts);
}

int atp_engine_allreduce(struct atp_engine *e, const void *in, void *out, uint64_t count,
                         int is_float, struct atp_engine_stats *st, atp_progress_fn progress,
                         void *arg)
{
	const struct atp_engine_cfg *o = &e->cfg;
	const uint64_t per = (uint64_t)ATP_MAX_SEQ * ATP_VALUES;
	struct atp_engine_stats sum = {0};
	unsigned threads = o->cli.threads;
	uint64_t t0 = host_now_ns();
	int rc;

	if ((count / threads / per + 1) * threads >= 1u << ATP_KEY_CHUNK_BITS) {
		host_job_fail(e->runner, -EINVAL,
		              "%" PRIu64 " elements are more than one call's keys can name", count);
		return -EINVAL;
	}
	/* Regions move between calls: every worker starts call k + 1 after every result of call k,
	 * the note they carry included (docs/memory.md, ATP). */
	rc = region_apply(e);
	if (rc < 0) {
		host_job_fail(e->runner, rc, "no memory for the region's aggregator map");
		return rc;
	}
	e->is_float = is_float;
	e->iin = in;
	e->fin = in;
	e->iout = out;
	e->fout = out;
	e->total_pkts = 0;
	e->progress = progress;
	e->progress_arg = arg;
	atomic_store(&e->done_pkts, 0);
	atomic_store(&e->finished, 0);
	for (unsigned t = 0; t < threads; t++) {
		struct atp_ethread *th = &e->th[t];

		th->first = count * t / threads;
		th->n = count * (t + 1) / threads - th->first;
		th->taken = 0;
		memset(&th->st, 0, sizeof(th->st));
		th->st.min_cwnd = e->win;
		e->total_pkts += (th->n + ATP_VALUES - 1) / ATP_VALUES;
	}
	rc = host_job_run(e->runner, progress ? progress_tick : NULL, e, 1000);
	for (unsigned t = 0; t < threads; t++) {
		stats_add(&sum, &e->th[t].st);
		sum.checked += e->th[t].ck.covered;
		sum.unchecked += e->th[t].ck.uncovered;
	}
	e->call++;
	sum.packets = e->total_pkts;
	sum.seconds = (double)(host_now_ns() - t0) / 1e9;
	if (st)
		stats_add(st, &sum);
	return rc;
}

void atp_engine_set_verify(struct atp_engine *e, int on)
{
	e->verify = on;
}

void atp_engine_region(const struct atp_engine *e, struct atp_engine_region *r)
{
	r->gen = e->rgen;
	r->first = e->map.base;
	r->size = e->map.pool;
	r->window = e->win;
	r->moves = e->rmoves;
}

uint32_t atp_engine_job(const struct atp_engine *e)
{
	return atomic_load(&e->job);
}

void atp_engine_job_stats(const struct atp_engine *e, uint64_t *joins, uint64_t *jobs)
{
	*joins = atomic_load(&e->joins);
	*jobs = atomic_load(&e->jobs_seen);
}

int atp_engine_verify(struct atp_engine *e, struct atp_engine_stats *st, char *msg, size_t len)
{
	struct atp_ck ck = {{0}};
	int32_t v[6];
	float x[6];
	int rc, on = e->verify;

	for (unsigned t = 0; t < e->cfg.cli.threads; t++) {
		const struct atp_ck *c = &e->th[t].ck;

		for (unsigned k = 0; k < 2; k++) {
			ck.sent[k] += c->sent[k];
			ck.got[k] += c->got[k];
		}
		ck.covered += c->covered;
		ck.rails += c->rails;
		ck.mixed += c->mixed;
	}
	atp_ck_words(&ck, v);
	for (unsigned i = 0; i < 6; i++)
		x[i] = (float)v[i];
	/* As raw floats (the overflow flag): the switch passes them to the PS untouched, so no
	 * aggregator's state, not even a late duplicate's claim of the same seq, can join the
	 * check; the PS sums them exactly (32 halves of 16 bits stay below 2^24). */
	e->verify = 0;
	e->all_floats = 1;
	rc = atp_engine_allreduce(e, x, x, 6, 1, st, NULL, NULL);
	e->all_floats = 0;
	e->verify = on;
	if (rc < 0) {
		snprintf(msg, len, "result check: %s", atp_engine_error(e));
		return rc;
	}
	for (unsigned i = 0; i < 6; i++)
		v[i] = (int32_t)lrintf(x[i]);
	return atp_ck_verdict(&ck, v, e->cfg.cli.workers, msg, len);
}
