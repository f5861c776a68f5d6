/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SyncAgtr worker engine: one thread of the job runner (host_job.h: they live as long as
 * the worker) and one socket of the host transport (hx.h: AF_XDP, or a connected UDP socket) per
 * worker thread id.
 * Each thread walks its slice of the tensor with a window of W packets: it sends the first
 * min(W, total), and every accepted result for packet k releases packet k + W into the same
 * window position (the other set of the same slot). A packet whose result does not come back
 * within its timeout is resent unchanged (same tsi, same pool index) with a doubled timeout; the
 * switch answers a resend to a completed slot by unicast and drops one to an incomplete slot.
 *
 * The guard: the switch takes a packet for set b of a slot as a new contribution whenever the
 * worker's bit is clear in set b, and the worker's packet for the other set clears it. So a late
 * copy of packet k (a network duplicate, or an earlier transmission overtaken by a resend) that
 * arrives after packet k + W would be summed into the wrong round. Packet k + W is therefore
 * sent no sooner than guard_ms after the last transmission of packet k: longer than any copy
 * can be delayed in the network. The same holds between a job's last packet on a slot and the
 * next job's first one there. When round trips are longer than the guard it costs nothing.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "host_job.h"
#include "host_rtt.h"
#include "hx.h"
#include "sa_engine.h"

#define BATCH 64u /* datagrams per sendmmsg / recvmmsg */
/* How long the first packet may wait for the kernel to resolve the switch's MAC. */
#define NEIGH_WAIT_MS 1000u

struct sa_win {
	uint64_t k;        /* packet in flight (or waiting out the guard) at this position */
	uint64_t deadline; /* ns, CLOCK_MONOTONIC: (held) when to send; sent: see pkt_rto() */
	uint64_t last_tx;  /* ns, last transmission of k */
	uint8_t tries;     /* resends of k (saturating): no RTT sample from it (Karn), back-off */
	uint8_t active;
	uint8_t held; /* k is not sent yet: the guard after the previous packet runs */
	double scale; /* float32: scale of the block whose data the next packet here carries */
};

struct sa_thread {
	struct sa_engine *w;
	unsigned tid;
	struct hx_sock *s; /* this thread's socket of w->hx */
	uint32_t shift;    /* position in the 2W (slot, set) cycle; carries over between jobs */
	/*
	 * The thread's window and region generation (docs/memory.md): W starts as the
	 * configured window and gen at 0; a result with the region note tells of a change (pend),
	 * which the thread takes at its next job: W = the new region's slots / threads, gen the
	 * note's, a fresh cycle (shift 0), and held set on that job's packets (the thread holds
	 * every result of the old region by then, and says so on every packet from then on: every
	 * result of any earlier generation). Every worker's thread learns of the change in
	 * the same job, from the same results, so all of them move at the same job.
	 */
	unsigned W, cap; /* window, and the positions win[] has room for */
	uint8_t gen;
	int moved; /* it has moved (or joined) once: its packets name gen's parity and hold */
	int pend;
	uint8_t pend_gen;
	uint32_t pend_slots;
	/* the current job */
	const uint8_t *in;
	uint8_t *out;
	size_t off, len;
	uint64_t blocks, total, done, next_deadline, last_progress;
	struct host_rtt rtt; /* round trips of packets answered at their first send; back-off */
	/* RACK (rack_resend): the latest send of a packet answered at its first send, and
	 * whether it moved since the window was last looked at */
	uint64_t rack_tx;
	int rack_moved;
	unsigned reo_wider; /* quarter round trips the reordering window grew by: 0..4 */
	int barrier;        /* this job is sa_engine_barrier's */
	uint64_t end;       /* ns, when the thread finished the job */
	int32_t bvals[SA_ELEMS_MAX];
	uint32_t ck_sent[3], ck_got[3]; /* this job's checksums (sa_engine_checksums) */
	/*
	 * The end-to-end check rides in the job (sa_engine_verify): with checksums on, the nreg
	 * packets of data are followed by one more, packet nreg, sent once every packet of data has
	 * gone out once, carrying this thread's checksums of what it sent (check_words); its
	 * result is their sum over the workers (check_sum). No round trip of its own: it goes out
	 * with the last window.
	 */
	uint64_t nreg, nsent;
	int check, check_wait, check_have;
	uint32_t check_words[3], check_sum[3];
	struct sa_win *win;
	struct sa_stats st;
	_Atomic uint64_t pub_results, pub_packets, pub_retransmits;
	int err;
	/* batches */
	unsigned ntx;
	uint16_t txlen[BATCH];
	uint8_t txbuf[BATCH][SA_PAYLOAD_LEN(SA_ELEMS_MAX)];
};

struct sa_engine {
	struct sa_engine_cfg cfg;
	/* the last job's end-to-end check (sa_engine_verify): -1 none ran, 0 passed, else which
	 * sum disagreed (1 the values', 2 the exponents') */
	int check_result;
	uint32_t check_got[2], check_want[2];
	struct hx *hx; /* one socket per thread */
	unsigned job;
	atomic_int neigh_wait; /* the switch's MAC is not resolved yet: thread 0 sends one first */
	int checksums;         /* sa_engine_set_checksums */
	uint32_t ck_sent[3], ck_got[3];
	uint32_t posw[SA_ELEMS_MAX]; /* the checksums' weights of a packet's positions */
	struct sa_thread *th;
	struct host_job *runner; /* the threads, for the worker's life */
	/* the current job's progress function, its argument and packets */
	sa_progress_fn progress;
	void *progress_arg;
	uint64_t progress_total, progress_start;
};

static void thread_run(void *arg, unsigned tid);

const char *sa_engine_error(const struct sa_engine *w)
{
	const char *m = host_job_error(w->runner);

	return m ? m : "no error";
}

/* 1 if /proc/net/arp (this network namespace's) has a complete entry for ip. */
static int neigh_complete(struct in_addr ip)
{
	char line[256], want[INET_ADDRSTRLEN], addr[64];
	unsigned flags;
	int found = 0;
	FILE *f = fopen("/proc/net/arp", "re");

	if (!f)
		return 1; /* nothing to wait on: let the timeouts deal with it */
	inet_ntop(AF_INET, &ip, want, sizeof(want));
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%63s %*s %x", addr, &flags) == 2 && strcmp(addr, want) == 0 &&
		        (flags & 0x2); /* ATF_COM */
	fclose(f);
	return found;
}

/* The threads' sockets: thread tid's from worker_port + tid, to the switch's address. */
static int transport_open(struct sa_engine *w)
{
	const struct sa_engine_cfg *c = &w->cfg;
	struct hx_cfg hc = {.kind = (enum hx_kind)c->transport,
	                    .proto = HX_UDP,
	                    .peer_ip = c->switch_ip.s_addr,
	                    .peer_port = htons(c->switch_port),
	                    .udp_port = c->worker_port,
	                    .nsock = c->threads,
	                    .busy_poll = c->busy_poll};
	char why[320];
	int rc = hx_open(&w->hx, &hc, why, sizeof(why));

	if (rc < 0) {
		host_job_fail(w->runner, rc, "%s%s", why,
		              rc == -EADDRINUSE
		                      ? " (another worker on this host? see --worker-port)"
		                      : "");
		return rc;
	}
	for (unsigned i = 0; i < c->threads; i++)
		w->th[i].s = hx_sock(w->hx, i);
	/* AF_XDP resolves the switch's MAC at each socket's first send: nothing to wait on */
	if (hx_kind(w->hx) == HX_XDP)
		atomic_store(&w->neigh_wait, 0);
	return 0;
}

const char *sa_engine_transport(const struct sa_engine *w)
{
	return hx_describe(w->hx);
}

void sa_engine_transport_stats(struct sa_engine *w, struct hx_stats *sum)
{
	struct hx_stats st;

	*sum = (struct hx_stats){0};
	for (unsigned i = 0; i < w->cfg.threads; i++) {
		hx_stats_get(w->th[i].s, &st);
		sum->tx += st.tx;
		sum->tx_full += st.tx_full;
		sum->rx += st.rx;
		sum->rx_dropped += st.rx_dropped;
		sum->rx_bad += st.rx_bad;
		sum->wakeups += st.wakeups;
		sum->tx_bad_completions = st.tx_bad_completions; /* the device's */
	}
}

struct sa_engine *sa_engine_create(const struct sa_engine_cfg *cfg, char *err, size_t errlen)
{
	struct sa_engine *w;
	unsigned i;
	int rc;

	if (sa_engine_cfg_check(cfg, err, errlen) < 0) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		goto nomem;
	w->cfg = *cfg;
	w->check_result = -1;
	for (i = 0; i < SA_ELEMS_MAX; i++)
		w->posw[i] = sa_checksum_weight(i);
	atomic_init(&w->neigh_wait, !neigh_complete(cfg->switch_ip));
	w->th = calloc(cfg->threads, sizeof(*w->th));
	if (!w->th)
		goto nomem;
	for (i = 0; i < cfg->threads; i++) {
		w->th[i].w = w;
		w->th[i].tid = i;
		w->th[i].W = w->th[i].cap = cfg->window;
		w->th[i].win = calloc(cfg->window, sizeof(struct sa_win));
		if (!w->th[i].win)
			goto nomem;
	}
	w->runner = host_job_create(cfg->threads, "sa", thread_run, w, err, errlen);
	if (!w->runner) {
		rc = errno;
		sa_engine_destroy(w);
		errno = rc;
		return NULL;
	}
	rc = transport_open(w);
	if (rc < 0) {
		snprintf(err, errlen, "%s", sa_engine_error(w));
		sa_engine_destroy(w);
		errno = -rc;
		return NULL;
	}
	return w;
nomem:
	snprintf(err, errlen, "out of memory");
	sa_engine_destroy(w);
	errno = ENOMEM;
	return NULL;
}

void sa_engine_destroy(struct sa_engine *w)
{
	unsigned i;

	if (!w)
		return;
	host_job_destroy(w->runner);
	hx_close(w->hx);
	for (i = 0; w->th && i < w->cfg.threads; i++)
		free(w->th[i].win);
	free(w->th);
	free(w);
}

#define ELEM_BYTES 4u /* int32 and float32 alike */

/* Elements of block b of the slice (the last one may be partial). */
static size_t block_len(const struct sa_thread *t, uint64_t b)
{
	size_t e = t->w->cfg.elems, first = (size_t)b * e;

	return first >= t->len ? 0 : t->len - first < e ? t->len - first : e;
}

static const void *block_in(const struct sa_thread *t, uint64_t b)
{
	return t->in + (t->off + (size_t)b * t->w->cfg.elems) * ELEM_BYTES;
}

static void *block_out(const struct sa_thread *t, uint64_t b)
{
	return t->out + (t->off + (size_t)b * t->w->cfg.elems) * ELEM_BYTES;
}

static unsigned win_pos(const struct sa_thread *t, uint64_t k)
{
	unsigned W = t->W;

	return (unsigned)((k % (2ull * W) + t->shift) % W);
}

static void tx_flush(struct sa_thread *t)
{
	/* What the path refuses (ICMP errors, a full queue, no ARP answer yet) is lost: the
	 * timeouts resend it. */
	for (unsigned i = 0; i < t->ntx; i++)
		(void)hx_send(t->s, t->txbuf[i], t->txlen[i]);
	(void)hx_flush(t->s);
	t->ntx = 0;
}

/* Builds packet k into the next tx slot; sends the batch when full. */
static void tx_queue(struct sa_thread *t, uint64_t k)
{
	const struct sa_engine_cfg *c = &t->w->cfg;
	struct sa_win *e = &t->win[win_pos(t, k)];
	unsigned slot, set, W = t->W;
	uint8_t *buf;
	int8_t e0 = 0;

	if (t->ntx == BATCH)
		tx_flush(t);
	buf = t->txbuf[t->ntx];
	sa_slot_map(t->tid, W, t->shift, k, &slot, &set);
	if (t->check && k == t->nreg) {
		sa_pkt_put_i32(buf, (const int32_t *)t->check_words, 3, c->elems);
	} else if (t->barrier) {
		sa_pkt_put_i32(buf, t->bvals, c->elems, c->elems);
	} else if (c->type == SA_INT32) {
		sa_pkt_put_i32(buf, block_in(t, k), block_len(t, k), c->elems);
	} else {
		/* Packet k carries block k's exponent and block k-W's data (quantised with the
		 * scale the reply to packet k-W fixed). */
		e0 = k < t->blocks ? sa_exponent(block_in(t, k), block_len(t, k)) : SA_EXP_ZERO;
		if (k >= W)
			sa_pkt_put_f32(buf, block_in(t, k - W), block_len(t, k - W), c->elems,
			               e->scale, c->workers);
		else
			sa_pkt_put_i32(buf, NULL, 0, c->elems);
	}
	sa_pkt_put_hdr(buf, c->elems, (uint8_t)t->w->job, (uint32_t)k, slot, set, e0);
	if (t->moved) /* (gen is 8 bits on the wire: 256 changes bring it back to 0) */
		sa_pkt_put_gen(buf, t->gen, 1);
	t->txlen[t->ntx] = (uint16_t)SA_PAYLOAD_LEN(c->elems);
	t->ntx++;
	t->st.packets++;
}

/* Back-off doublings of the thread's timeout at most: the cap (--timeout-max-ms) bites first. */
#define SA_BACKOFF_MAX 16u

/*
 * The timeout of the packet at e, from its last transmission (host_rtt.h): the thread's
 * srtt + 4 rttvar, never below --timeout-ms nor above the cap, doubled per timeout of the thread
 * since its last sample or per resend of this packet, whichever is more. A round trip here
 * includes waiting for the slowest worker, which on a loaded host can be far longer than the
 * network's. Computed when looked at, not stored: a back-off, or its end, moves the deadline of
 * every packet in flight.
 */
static uint64_t pkt_rto(const struct sa_thread *t, const struct sa_win *e)
{
	const struct sa_engine_cfg *c = &t->w->cfg;
	uint64_t lo = (uint64_t)c->timeout_ms * 1000000ull,
	         hi = (uint64_t)c->timeout_max_ms * 1000000ull;
	unsigned shift = t->rtt.backoff > e->tries ? t->rtt.backoff : e->tries;

	/* A first-window (or barrier) packet's answer waits for the slowest worker to reach the
	 * job, which on a loaded host or without a rendezvous is not a network round trip: a
	 * resend before the others are there is only a drop at the switch. */
	if ((t->barrier || e->k < t->W) && lo < (uint64_t)c->first_timeout_ms * 1000000ull)
		lo = (uint64_t)c->first_timeout_ms * 1000000ull;
	return host_rtt_timeout(&t->rtt, lo, lo, hi, shift);
}

static void set_deadline(struct sa_thread *t, struct sa_win *e, uint64_t when)
{
	e->deadline = when;
	if (when < t->next_deadline)
		t->next_deadline = when;
}

static void send_next(struct sa_thread *t, struct sa_win *e, uint64_t k, uint64_t now);

/* The first transmission of packet k. */
static void send_new(struct sa_thread *t, struct sa_win *e, uint64_t k, uint64_t now)
{
	int data = !t->check || k < t->nreg;

	e->k = k;
	e->active = 1;
	e->held = 0;
	e->tries = 0;
	e->last_tx = now;
	set_deadline(t, e, now + pkt_rto(t, e));
	if (!data) /* every packet of data went out: what it sent is final */
		memcpy(t->check_words, t->ck_sent, sizeof(t->check_words));
	tx_queue(t, k);
	if (!data)
		return;
	if (t->w->checksums && !t->barrier)
		sa_checksum_add(t->ck_sent, t->w->posw,
		                t->txbuf[t->ntx - 1] + SA_HDR_LEN + SA_EXP_LEN, t->tid, k,
		                t->w->cfg.elems);
	if (++t->nsent == t->nreg && t->check_wait) {
		t->check_wait = 0;
		send_next(t, &t->win[win_pos(t, t->nreg)], t->nreg, now);
	}
}

/* Sends packet k at position e now, or once the guard after its predecessor has passed. */
static void send_next(struct sa_thread *t, struct sa_win *e, uint64_t k, uint64_t now)
{
	uint64_t ready = e->last_tx + (uint64_t)t->w->cfg.guard_ms * 1000000ull;

	if (now >= ready) {
		send_new(t, e, k, now);
		return;
	}
	e->k = k;
	e->active = 1; /* already so within a job; a job's first window finds it idle */
	e->held = 1;
	set_deadline(t, e, ready);
	t->st.held++;
}

/*
 * Packet k goes now or after the guard (send_next), but the check packet only once every packet
 * of data has gone out: results may come back out of order, so packet nreg - 1 may still wait
 * for its predecessor when packet nreg's is answered.
 */
static void release(struct sa_thread *t, struct sa_win *e, uint64_t k, uint64_t now)
{
	if (t->check && k == t->nreg && t->nsent < t->nreg) {
		e->active = 0;
		t->check_wait = 1;
		return;
	}
	send_next(t, e, k, now);
}

/* Stores the result carried by reply k; float32 also fixes the scale of block k. */
static void deliver(struct sa_thread *t, struct sa_win *e, const struct sa_pkt *p, uint64_t k)
{
	const struct sa_engine_cfg *c = &t->w->cfg;

	if (c->type == SA_INT32) {
		sa_pkt_get_i32(block_out(t, k), p, block_len(t, k));
		return;
	}
	if (k >= t->W)
		sa_pkt_get_f32(block_out(t, k - t->W), p, block_len(t, k - t->W), e->scale);
	if (k < t->blocks)
		e->scale = sa_scale(p->e0, c->workers);
}

/*
 * A result of this job carried the region note of a change the thread has not made: it makes
 * it at its next job (thread_move). A note whose region the thread cannot split is ignored
 * (counted bad): the change then never drains, the old region stays, nothing goes wrong.
 */
static void take_note(struct sa_thread *t, const struct sa_pkt *p)
{
	unsigned threads = t->w->cfg.threads;

	if (p->note_slots < threads || p->note_slots % threads != 0 || p->note_slots > SA_SLOTS) {
		t->st.bad++;
		return;
	}
	t->pend = 1;
	t->pend_gen = p->note_gen;
	t->pend_slots = p->note_slots;
}

static void on_reply(struct sa_thread *t, const uint8_t *buf, size_t len, uint64_t now)
{
	const struct sa_engine_cfg *c = &t->w->cfg;
	struct sa_pkt p;
	struct sa_win *e;
	unsigned slot, set;
	uint64_t k;

	if (sa_pkt_parse(buf, len, c->elems, &p) < 0) {
		t->st.bad++;
		return;
	}
	k = p.tsi;
	if (p.job != (uint8_t)t->w->job || k >= t->total) {
		t->st.stale++;
		return;
	}
	if (p.note && p.note_gen != t->gen)
		take_note(t, &p);
	e = &t->win[win_pos(t, k)];
	if (!e->active || e->k > k) {
		/* A resend was answered twice: it was not lost, only late or overtaken. */
		t->st.duplicates++;
		if (t->reo_wider < 4)
			t->reo_wider++;
		return;
	}
	sa_slot_map(t->tid, t->W, t->shift, k, &slot, &set);
	if (e->k != k || e->held || p.slot != slot || p.set != set || p.gen != (t->gen & 1u)) {
		t->st.bad++; /* not a packet of ours in flight: another run's, or a switch bug */
		return;
	}
	if (t->barrier && !sa_barrier_check(&p, c->elems, c->workers)) {
		t->st.stale_state++; /* an earlier run's result: wait for a reset */
		return;
	}
	if (!e->tries && e->last_tx > t->rack_tx) {
		t->rack_tx = e->last_tx;
		t->rack_moved = 1;
	}
	if (t->barrier) {
		e->active = 0;
		t->st.results++;
		t->done++;
		t->last_progress = now;
		return;
	}
	/* First-window packets wait for the other workers to start the job: no sample. The end
	 * of a back-off brings every deadline nearer: look at them again. */
	if (k >= t->W) {
		unsigned backoff = t->rtt.backoff;
		host_rtt_answer(&t->rtt, e->last_tx, now, e->tries, t->W);
		if (backoff && !t->rtt.backoff)
			t->next_deadline = now;
	}
	t->st.results++;
	t->done++;
	t->last_progress = now;
	if (t->check && k == t->nreg) {
		/* the sums over the workers of what each sent */
		int32_t sum[3];
		sa_pkt_get_i32(sum, &p, 3);
		memcpy(t->check_sum, sum, sizeof(t->check_sum));
		t->check_have = 1;
		e->active = 0;
		return;
	}
	if (t->w->checksums) {
		sa_checksum_add(t->ck_got, t->w->posw, p.values, t->tid, k, c->elems);
		/* The exponents set float32 scales: every worker must have got the same ones. Those
		 * of the results that came back before the last packet of data went out: the
		 * blocks' (k < nreg - W) of a float32 job, every one of which does. */
		if (k + t->W < t->nreg)
			t->ck_sent[2] += sa_packet_weight(t->tid, k) *
			                 (uint32_t)((uint8_t)p.e0 << 8 | (uint8_t)p.e1);
	}
	deliver(t, e, &p, k);
	if (k + t->W < t->total)
		release(t, e, k + t->W, now);
	else
		e->active = 0;
}

/* When the packet at e falls due: its send (held), or its resend. */
static uint64_t pkt_due(const struct sa_thread *t, const struct sa_win *e)
{
	return e->held ? e->deadline : e->last_tx + pkt_rto(t, e);
}

/* Resends the packet at e now, unchanged. */
static void resend(struct sa_thread *t, struct sa_win *e, uint64_t now)
{
	e->last_tx = now;
	if (e->tries < UINT8_MAX)
		e->tries++;
	tx_queue(t, e->k);
	t->st.retransmits++;
}

/*
 * Loss detection by the order of answers (RACK, RFC 8985, as TCP has it): every worker sends a
 * thread's packets in the order their slots free, and the switch completes a slot when the last
 * worker's packet for it arrives, so on FIFO paths the answers come back in about the order the
 * packets went out. About: a worker holds a packet back for the guard (guard_ms after the last
 * transmission on its slot) where another does not, and the slot it holds completes after
 * later ones, and a worker's own sends of two slots can be further apart than the round trip
 * when its thread is descheduled between them. So a packet still waiting when one sent more
 * than a round trip plus the guard after it has been answered (at its first send: no ambiguity)
 * was lost, or its answer was: it is resent now, well before its timeout (whose floor is a
 * host's scheduling delay). Each duplicate answer (a resend that was not needed) widens the
 * window by another quarter round trip, up to two, as RFC 8985 widens its own on the evidence
 * of a spurious resend. A resend for a slot that still waits on another worker's lost packet
 * is dropped at the switch (sa-retx-pending), and that worker resends its own. Reordering in
 * the network costs a spurious resend, which the switch answers from its shadow copy or drops.
 * Looked at once per receive burst, not per answer.
 */
static void rack_resend(struct sa_thread *t, uint64_t now)
{
	const struct sa_engine_cfg *c = &t->w->cfg;
	uint64_t reo = t->rtt.srtt * (4 + t->reo_wider) / 4 + (uint64_t)c->guard_ms * 1000000u;

	t->rack_moved = 0;
	for (unsigned i = 0; i < t->W; i++) {
		struct sa_win *e = &t->win[i];

		if (e->active && !e->held && e->last_tx + reo < t->rack_tx) {
			resend(t, e, now);
			t->st.rack_resends++;
		}
	}
}

/*
 * Sends the held packets whose guard has passed and resends the packets past their timeout,
 * the data's one per expiry, as TCP does: the oldest, backing the thread's timeout off
 * (host_rtt_expired), so that the packets sent with it are due later. When their answers are
 * only late (a worker or the switch descheduled on a loaded host), they come back without a
 * resend and their round trips teach the estimator; resending every packet due made each such
 * stall cost the window, and by Karn's rule left no sample of it. A loss costs one expiry, and
 * the next packet sent after it and answered ends the back-off. The start barrier's and a job's
 * first window go on their own timers, each: they wait for every worker to start, and after a
 * session reset (or a rank 0 that starts late) every one of them must go again. Recomputes
 * next_deadline.
 */
static void check_timeouts(struct sa_thread *t, uint64_t now)
{
	struct sa_win *oldest = NULL;
	uint64_t next = UINT64_MAX, due;
	unsigned i;

	/* A first send here may release the check packet at another position, which sets its
	 * deadline through set_deadline(): keep that. */
	t->next_deadline = UINT64_MAX;
	for (i = 0; i < t->W; i++) {
		struct sa_win *e = &t->win[i];
		if (!e->active || pkt_due(t, e) > now)
			continue;
		if (e->held)
			send_new(t, e, e->k, now);
		else if (t->barrier || e->k < t->W)
			resend(t, e, now);
		else if (!oldest || e->last_tx < oldest->last_tx ||
		         (e->last_tx == oldest->last_tx && e->k < oldest->k))
			oldest = e;
	}
	if (oldest) {
		resend(t, oldest, now);
		host_rtt_expired(&t->rtt, now, SA_BACKOFF_MAX);
	}
	for (i = 0; i < t->W; i++) {
		struct sa_win *e = &t->win[i];
		if (e->active && (due = pkt_due(t, e)) < next)
			next = due;
	}
	if (next < t->next_deadline)
		t->next_deadline = next;
}

static void publish(struct sa_thread *t)
{
	atomic_store_explicit(&t->pub_results, t->st.results, memory_order_relaxed);
	atomic_store_explicit(&t->pub_packets, t->st.packets, memory_order_relaxed);
	atomic_store_explicit(&t->pub_retransmits, t->st.retransmits, memory_order_relaxed);
}

static int rx_burst(struct sa_thread *t)
{
	const uint8_t *frames[BATCH];
	uint16_t lens[BATCH];
	int n = hx_recv(t->s, frames, lens, BATCH, 0);

	if (n == -ECONNREFUSED || n == -EINTR)
		return 0;
	uint64_t now = host_now_ns();
	for (int i = 0; i < n; i++)
		on_reply(t, frames[i], lens[i], now);
	return n;
}

static void wait_input(struct sa_thread *t)
{
	uint64_t now = host_now_ns();
	int ms = 100;

	if (t->next_deadline != UINT64_MAX && t->next_deadline > now) {
		uint64_t d = (t->next_deadline - now + 999999) / 1000000;
		ms = d < 100 ? (int)d : 100;
	} else if (t->next_deadline <= now) {
		ms = 0;
	}
	hx_wait(t->s, ms);
}

static int give_up(struct sa_thread *t)
{
	const struct sa_engine_cfg *c = &t->w->cfg;

	if (t->barrier && t->st.stale_state)
		host_job_fail(
		        t->w->runner, -ETIMEDOUT,
		        "start barrier: the switch keeps answering with results an earlier "
		        "run left in the session's slots; reset the session (rank 0 does with "
		        "--ctl unless --no-reset; by hand, 'syncagtr session reset ID "
		        "keep-workers') and start all workers again");
	else if (t->barrier)
		host_job_fail(t->w->runner, -ETIMEDOUT,
		              "start barrier: no answer in %u s; are the switch session and all %u "
		              "workers up, and registered since the session's last reset (it drops "
		              "the packets of workers registered before: sa-epoch)?",
		              c->give_up_s, c->workers);
	else
		host_job_fail(t->w->runner, -ETIMEDOUT,
		              "thread %u: no result for %u s (%llu of %llu packets done); are the "
		              "switch session and all %u workers up?",
		              t->tid, c->give_up_s, (unsigned long long)t->done,
		              (unsigned long long)t->total, c->workers);
	return -ETIMEDOUT;
}

/*
 * The kernel holds at most unres_qlen (101) packets while it resolves a neighbour and drops the
 * rest, so a first window sent before the switch's MAC is known loses most of itself. Thread 0
 * sends its first packet alone (it waits in that queue) and the others wait until the entry is
 * complete, at most NEIGH_WAIT_MS. Once per worker; a route through a gateway just waits it out.
 */
static uint64_t neigh_resolve(struct sa_thread *t, uint64_t first)
{
	struct sa_engine *w = t->w;
	const struct timespec ms = {0, 1000000};
	unsigned i;

	if (!atomic_load(&w->neigh_wait))
		return 0;
	if (t->tid != 0) {
		while (atomic_load(&w->neigh_wait))
			nanosleep(&ms, NULL);
		return 0;
	}
	if (first)
		send_new(t, &t->win[win_pos(t, 0)], 0, host_now_ns());
	tx_flush(t);
	for (i = 0; i < NEIGH_WAIT_MS && !neigh_complete(w->cfg.switch_ip); i++)
		nanosleep(&ms, NULL);
	atomic_store(&w->neigh_wait, 0);
	return first ? 1 : 0;
}

static int thread_loop(struct sa_thread *t)
{
	const struct sa_engine_cfg *c = &t->w->cfg;
	uint64_t now, k, first = t->total < t->W ? t->total : t->W;
	int n;

	t->next_deadline = UINT64_MAX;
	k = neigh_resolve(t, first);
	now = host_now_ns();
	t->last_progress = now;
	/* The guard spans jobs: a late copy of the previous job's (or the barrier's) last packet
	 * on a slot, which may have been sent a moment ago, must not find this job's packet there
	 * first. neigh_resolve's packet needs no guard: it goes only in a worker's first job. */
	for (; k < first; k++)
		release(t, &t->win[win_pos(t, k)], k, now);
	tx_flush(t);
	while (t->done < t->total) {
		if (host_job_stopping(t->w->runner))
			return -ECANCELED;
		n = rx_burst(t);
		if (n < 0) {
			host_job_fail(t->w->runner, n, "thread %u: receiving: %s", t->tid,
			              strerror(-n));
			return n;
		}
		now = host_now_ns();
		/* Only with the receive queue read to the end: an answer waiting in it is late,
		 * not lost (a thread descheduled for a while finds both its answers and its
		 * deadlines past). */
		if (t->rack_moved)
			rack_resend(t, now);
		if (now >= t->next_deadline && n < (int)BATCH)
			check_timeouts(t, now);
		tx_flush(t);
		publish(t);
		if (now - t->last_progress > (uint64_t)c->give_up_s * 1000000000ull)
			return give_up(t);
		if (n == 0)
			wait_input(t);
	}
	return 0;
}

/* Thread tid's part of a job (the runner's function). */
static void thread_run(void *arg, unsigned tid)
{
	struct sa_engine *w = arg;
	struct sa_thread *t = &w->th[tid];

	t->err = thread_loop(t);
	t->end = host_now_ns();
	publish(t);
	/* kept only if no other failure came first (most say why where they happen) */
	if (t->err < 0 && t->err != -ECANCELED)
		host_job_fail(w->runner, t->err, "thread %u: %s", tid, strerror(-t->err));
}

/*
 * The change a result's note told of (take_note), at the start of a job: every worker's thread
 * makes it at the same job, since all of them took every result of the last one. The new
 * region's slots are fresh (the switch cleared them): a new cycle, no guard to wait out.
 */
static int thread_move(struct sa_thread *t)
{
	unsigned W = t->pend_slots / t->w->cfg.threads;

	if (W > t->cap) {
		struct sa_win *nw = realloc(t->win, W * sizeof(*nw));
		if (!nw)
			return -ENOMEM;
		t->win = nw;
		t->cap = W;
	}
	memset(t->win, 0, W * sizeof(*t->win));
	t->W = W;
	t->gen = t->pend_gen;
	t->moved = 1;
	t->shift = 0;
	t->pend = 0;
	return 0;
}

static int thread_prepare(struct sa_thread *t, const void *in, void *out, size_t count, int barrier)
{
	const struct sa_engine_cfg *c = &t->w->cfg;
	unsigned i;
	int moved = t->pend;

	if (t->pend && thread_move(t) < 0) {
		host_job_fail(t->w->runner, -ENOMEM,
		              "thread %u: no memory for the window of its new region (%u slots)",
		              t->tid, t->pend_slots);
		return -ENOMEM;
	}
	sa_slice(count, c->threads, t->tid, &t->off, &t->len);
	t->in = in;
	t->out = out;
	t->blocks = (t->len + c->elems - 1) / c->elems;
	t->nreg = sa_slice_packets(t->len, c->elems, t->W, c->type);
	t->barrier = barrier;
	if (barrier) {
		t->blocks = t->nreg = t->W;
		sa_barrier_values(t->bvals, c->elems, c->rank);
	}
	t->check = !barrier && t->w->checksums && t->nreg > 0;
	t->total = t->nreg + (uint64_t)t->check;
	t->nsent = 0;
	t->check_wait = t->check_have = 0;
	t->done = 0;
	t->err = 0;
	t->ntx = 0;
	memset(t->ck_sent, 0, sizeof(t->ck_sent));
	memset(t->ck_got, 0, sizeof(t->ck_got));
	memset(&t->st, 0, sizeof(t->st));
	t->st.moves = (uint64_t)moved;
	t->st.gen = t->gen;
	publish(t);
	/* last_tx stays: a position is a slot, and the guard spans jobs. */
	for (i = 0; i < t->W; i++)
		t->win[i].active = 0;
	return 0;
}

void sa_stats_add(struct sa_stats *sum, const struct sa_stats *a)
{
	sum->packets += a->packets;
	sum->retransmits += a->retransmits;
	sum->rack_resends += a->rack_resends;
	sum->results += a->results;
	sum->duplicates += a->duplicates;
	sum->stale += a->stale;
	sum->bad += a->bad;
	sum->held += a->held;
	sum->stale_state += a->stale_state;
	sum->moves += a->moves;
	if (a->gen > sum->gen)
		sum->gen = a->gen;
	sum->seconds += a->seconds;
	if (a->srtt_ms > sum->srtt_ms)
		sum->srtt_ms = a->srtt_ms;
}

/* The runner's tick during a job: the threads' published counts to the progress function. */
static void progress_tick(void *arg)
{
	struct sa_engine *w = arg;
	struct sa_stats s = {0};

	for (unsigned i = 0; i < w->cfg.threads; i++) {
		s.results += atomic_load_explicit(&w->th[i].pub_results, memory_order_relaxed);
		s.packets += atomic_load_explicit(&w->th[i].pub_packets, memory_order_relaxed);
		s.retransmits +=
		        atomic_load_explicit(&w->th[i].pub_retransmits, memory_order_relaxed);
	}
	s.seconds = (double)(host_now_ns() - w->progress_start) / 1e9;
	w->progress(w->progress_arg, s.results, w->progress_total, &s);
}

/*
 * The end-to-end check of the job just run, per thread: the sums over the workers of what each
 * sent (the check packet's result) against what this worker got, and the exponent sums against
 * the workers' count times this worker's.
 */
static void check_job(struct sa_engine *w, unsigned started)
{
	/* with checksums on, a thread without packets has nothing to check */
	w->check_result = w->checksums ? 0 : -1;
	for (unsigned i = 0; i < started; i++) {
		const struct sa_thread *t = &w->th[i];
		if (!t->check || !t->check_have)
			continue;
		if (t->check_sum[0] != t->ck_got[0] || t->check_sum[1] != t->ck_got[1]) {
			w->check_result = 1;
			w->check_got[0] = t->ck_got[0], w->check_got[1] = t->ck_got[1];
			w->check_want[0] = t->check_sum[0], w->check_want[1] = t->check_sum[1];
			return;
		}
		if (t->check_sum[2] != t->ck_sent[2] * w->cfg.workers)
			w->check_result = 2;
	}
}

static int run_job(struct sa_engine *w, const void *in, void *out, size_t count, int barrier,
                   struct sa_stats *st, sa_progress_fn progress, void *arg)
{
	const struct sa_engine_cfg *c = &w->cfg;
	uint64_t start, end, total = 0;
	struct sa_stats sum = {0};
	unsigned i;
	int rc;

	for (i = 0; i < c->threads; i++) {
		rc = thread_prepare(&w->th[i], in, out, count, barrier);
		if (rc < 0)
			return rc;
		total += w->th[i].total;
	}
	start = host_now_ns();
	w->progress = progress;
	w->progress_arg = arg;
	w->progress_total = total;
	w->progress_start = start;
	rc = host_job_run(w->runner, progress ? progress_tick : NULL, w, 1000);
	for (i = 0; i < c->threads; i++) {
		w->th[i].st.srtt_ms = (double)w->th[i].rtt.srtt / 1e6;
		sa_stats_add(&sum, &w->th[i].st);
		w->th[i].shift = sa_next_shift(w->th[i].shift, w->th[i].total, w->th[i].W);
	}
	if (!barrier) {
		memset(w->ck_sent, 0, sizeof(w->ck_sent));
		memset(w->ck_got, 0, sizeof(w->ck_got));
		for (i = 0; i < c->threads; i++)
			for (unsigned j = 0; j < 3; j++) {
				w->ck_sent[j] += w->th[i].ck_sent[j];
				w->ck_got[j] += w->th[i].ck_got[j];
			}
		w->ck_got[2] = w->ck_sent[2] * c->workers;
		check_job(w, c->threads);
	}
	/* The job ends when its last thread does, not when this thread noticed. */
	end = start;
	for (i = 0; i < c->threads; i++)
		end = w->th[i].end > end ? w->th[i].end : end;
	sum.seconds = (double)(end - start) / 1e9;
	w->job++;
	if (st)
		sa_stats_add(st, &sum);
	return rc;
}

int sa_engine_allreduce(struct sa_engine *w, const void *in, void *out, size_t count,
                        struct sa_stats *st, sa_progress_fn progress, void *arg)
{
	return run_job(w, in, out, count, 0, st, progress, arg);
}

void sa_engine_set_type(struct sa_engine *w, enum sa_dtype type)
{
	w->cfg.type = type;
}

void sa_engine_set_checksums(struct sa_engine *w, int on)
{
	w->checksums = on;
}

void sa_engine_checksums(const struct sa_engine *w, uint32_t sent[3], uint32_t got[3])
{
	memcpy(sent, w->ck_sent, sizeof(w->ck_sent));
	memcpy(got, w->ck_got, sizeof(w->ck_got));
}

int sa_engine_verify(struct sa_engine *w, struct sa_stats *st, char *err, size_t errlen)
{
	(void)st; /* the check rode in the job: no job of its own to count */
	switch (w->check_result) {
	case 0:
		return 0;
	case 1:
		snprintf(err, errlen,
		         "result check failed: the results this worker received (checksums %08x "
		         "%08x) are not the sum of what the %u workers sent (%08x %08x)",
		         w->check_got[0], w->check_got[1], w->cfg.workers, w->check_want[0],
		         w->check_want[1]);
		return -EBADMSG;
	case 2:
		snprintf(err, errlen,
		         "result check failed: the workers did not all receive the same exponents "
		         "(float32 scales) with their results");
		return -EBADMSG;
	default:
		snprintf(err, errlen, "result check: the last job ran without checksums");
		return -EINVAL;
	}
}

int sa_engine_set_region(struct sa_engine *w, unsigned gen, unsigned slots)
{
	unsigned threads = w->cfg.threads;

	if (gen == 0)
		return 0;
	if (slots < threads || slots % threads != 0 || slots > SA_SLOTS)
		return -EINVAL;
	for (unsigned i = 0; i < threads; i++) {
		struct sa_thread *t = &w->th[i];
		t->pend = 1;
		t->pend_gen = (uint8_t)gen;
		t->pend_slots = slots;
	}
	return 0;
}

int sa_engine_barrier(struct sa_engine *w, struct sa_stats *st)
{
	return run_job(w, NULL, NULL, 0, 1, st, NULL, NULL);
}
