/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ASK sessions, the switch side of a job (ask_host.h; docs/ask.md, Job lifetime): what makes
 * every job of a task its own and checks its result end to end.
 *
 *  - The receiver BEGINs a new incarnation of the task on the switch (which resets the task's
 *    state) and probes it while the job runs; senders learn the incarnation with HELLO, so no
 *    packet of another job is ever counted in this one.
 *  - Each sender CLOSEs each channel with what it sent (order-independent totals); at the end
 *    the receiver checks its table against the channels' totals and the switch's own counts.
 *
 * Pure: no socket, no clock (time is an argument), like the rest of the library.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask_host.h"

/* ---- totals ---- */

/* Two 32-bit weights of a key (the halves of a 64-bit hash of its bytes and length), odd so that
 * no tuple weighs nothing. */
static uint64_t key_weights(const uint8_t *key, unsigned len)
{
	uint64_t h = 0x6A09E667F3BCC909ull ^ len;
	unsigned i = 0;

	for (; i + 8 <= len; i += 8) {
		h = (h ^ ask_le64(key + i)) * ASK_HASH_M1;
		h ^= h >> 29;
	}
	if (i < len) {
		uint8_t tail[8] = {0};
		memcpy(tail, key + i, len - i);
		h = (h ^ ask_le64(tail)) * ASK_HASH_M2;
		h ^= h >> 29;
	}
	h *= ASK_HASH_M3;
	h ^= h >> 32;
	return h | 0x0000000100000001ull;
}

void ask_totals_init(struct ask_totals *t)
{
	*t = (struct ask_totals){.vmax = INT32_MIN, .vmin = INT32_MAX};
}

void ask_totals_tuple(struct ask_totals *t, const uint8_t *key, unsigned len, uint32_t value,
                      bool is_long)
{
	uint64_t w = key_weights(key, len);

	t->tuples++;
	t->long_tuples += is_long;
	t->sum += value;
	t->ck1 += (uint32_t)w * value;
	t->ck2 += (uint32_t)(w >> 32) * value;
	if ((int32_t)value > t->vmax)
		t->vmax = (int32_t)value;
	if ((int32_t)value < t->vmin)
		t->vmin = (int32_t)value;
}

void ask_totals_add(struct ask_totals *into, const struct ask_totals *t)
{
	into->tuples += t->tuples;
	into->long_tuples += t->long_tuples;
	into->packets += t->packets;
	into->sum += t->sum;
	into->ck1 += t->ck1;
	into->ck2 += t->ck2;
	if (t->vmax > into->vmax)
		into->vmax = t->vmax;
	if (t->vmin < into->vmin)
		into->vmin = t->vmin;
}

static void table_tuple(const uint8_t *key, unsigned len, uint32_t value, void *arg)
{
	ask_totals_tuple(arg, key, len, value, false);
}

void ask_table_totals(const struct ask_table *tab, struct ask_totals *t)
{
	ask_totals_init(t);
	ask_table_foreach(tab, table_tuple, t);
}

/* CLOSE's payload: the totals, big-endian. */
static void totals_put(uint8_t *p, const struct ask_totals *t)
{
	ask_put64(p, t->tuples);
	ask_put64(p + 8, t->long_tuples);
	ask_put32(p + 16, t->packets);
	ask_put32(p + 20, t->sum);
	ask_put32(p + 24, t->ck1);
	ask_put32(p + 28, t->ck2);
	ask_put32(p + 32, (uint32_t)t->vmax);
	ask_put32(p + 36, (uint32_t)t->vmin);
}

static void totals_get(const uint8_t *p, struct ask_totals *t)
{
	t->tuples = ask_be64(p);
	t->long_tuples = ask_be64(p + 8);
	t->packets = ask_be32(p + 16);
	t->sum = ask_be32(p + 20);
	t->ck1 = ask_be32(p + 24);
	t->ck2 = ask_be32(p + 28);
	t->vmax = (int32_t)ask_be32(p + 32);
	t->vmin = (int32_t)ask_be32(p + 36);
}

static bool totals_eq(const struct ask_totals *a, const struct ask_totals *b)
{
	return a->tuples == b->tuples && a->long_tuples == b->long_tuples &&
	       a->packets == b->packets && a->sum == b->sum && a->ck1 == b->ck1 &&
	       a->ck2 == b->ck2 && a->vmax == b->vmax && a->vmin == b->vmin;
}

/* ---- the check ---- */

void ask_switch_name(unsigned k, unsigned edges, char *buf, size_t len)
{
	if (k == 0)
		snprintf(buf, len, edges == 0 ? "the switch" : "the receiver's switch");
	else
		snprintf(buf, len, "edge switch %u", k);
}

/*
 * The switches' counts against the senders' (docs/fabric.md, ASK across two switches): the
 * receiver's switch saw what the edges did not absorb, the edges saw no more than the senders
 * sent, and what reached the receiver is what no switch absorbed.
 */
static bool switches_check(const struct ask_recv_stats *st, const struct ask_switch_counts *sw,
                           unsigned nsw, uint64_t slots, char *why, size_t len)
{
	uint64_t edge_seen = 0, edge_absorbed = 0, absorbed = 0;
	char name[32];

	for (unsigned k = 0; k < nsw; k++) {
		absorbed += sw[k].absorbed;
		if (k > 0) {
			edge_seen += sw[k].tuples;
			edge_absorbed += sw[k].absorbed;
		}
	}
	if (nsw == 1 && sw[0].tuples != slots) {
		snprintf(why, len,
		         "the switch saw %" PRIu64
		         " tuples in DATA slots, the senders sent %" PRIu64,
		         sw[0].tuples, slots);
		return false;
	}
	if (nsw > 1 && sw[0].tuples + edge_absorbed != slots) {
		snprintf(why, len,
		         "the receiver's switch saw %" PRIu64
		         " tuples in DATA slots and the edge switches absorbed %" PRIu64
		         ", the senders sent %" PRIu64,
		         sw[0].tuples, edge_absorbed, slots);
		return false;
	}
	if (edge_seen > slots) {
		snprintf(why, len,
		         "the edge switches saw %" PRIu64 " tuples in DATA slots, the senders sent "
		         "%" PRIu64,
		         edge_seen, slots);
		return false;
	}
	if (st->tuples_unabsorbed + absorbed != slots) {
		snprintf(why, len,
		         "%" PRIu64 " tuples reached the receiver and the %s absorbed %" PRIu64
		         ", the senders sent %" PRIu64 " in DATA slots",
		         st->tuples_unabsorbed, nsw > 1 ? "switches" : "switch", absorbed, slots);
		return false;
	}
	for (unsigned k = 0; k < nsw; k++) {
		if (sw[k].held == 0)
			continue;
		ask_switch_name(k, nsw - 1, name, sizeof(name));
		snprintf(why, len, "%s holds %" PRId64 " entries after the final drain", name,
		         sw[k].held);
		return false;
	}
	return true;
}

bool ask_job_check(enum ask_op op, const struct ask_totals *want, const struct ask_table *table,
                   const struct ask_recv_stats *st, const struct ask_switch_counts *sw,
                   unsigned nsw, char *why, size_t len)
{
	struct ask_totals got;
	uint64_t slots = want->tuples - want->long_tuples;

	ask_table_totals(table, &got);
	if (st->long_records != want->long_tuples) {
		snprintf(why, len,
		         "the receiver merged %" PRIu64 " LONG records, the senders sent %" PRIu64,
		         st->long_records, want->long_tuples);
		return false;
	}
	if (nsw > 0 && !switches_check(st, sw, nsw, slots, why, len))
		return false;
	if (nsw == 0 && st->tuples_unabsorbed != slots) {
		snprintf(why, len,
		         "%" PRIu64 " tuples reached the receiver, the senders sent %" PRIu64
		         " in DATA slots",
		         st->tuples_unabsorbed, slots);
		return false;
	}
	if (want->tuples == 0 || got.tuples == 0) {
		if (want->tuples != got.tuples) {
			snprintf(why, len,
			         "the table has %" PRIu64 " keys, the senders sent %" PRIu64
			         " tuples",
			         got.tuples, want->tuples);
			return false;
		}
		return true;
	}
	switch (op) {
	case ASK_OP_ADD:
		if (got.sum != want->sum || got.ck1 != want->ck1 || got.ck2 != want->ck2) {
			snprintf(why, len,
			         "the table's values do not add up to the senders' (sum %" PRIu32
			         ", checksums %08" PRIx32 " %08" PRIx32 "; the senders': %" PRIu32
			         ", %08" PRIx32 " %08" PRIx32 ")",
			         got.sum, got.ck1, got.ck2, want->sum, want->ck1, want->ck2);
			return false;
		}
		break;
	case ASK_OP_MAX:
		if (got.vmax != want->vmax) {
			snprintf(why, len,
			         "the table's largest value is %" PRId32 ", the senders' %" PRId32,
			         got.vmax, want->vmax);
			return false;
		}
		break;
	case ASK_OP_MIN:
		if (got.vmin != want->vmin) {
			snprintf(why, len,
			         "the table's smallest value is %" PRId32 ", the senders' %" PRId32,
			         got.vmin, want->vmin);
			return false;
		}
		break;
	}
	return true;
}

/* ---- ABORT ---- */

size_t ask_abort_build(uint8_t *p, uint16_t task, uint16_t incarnation, uint16_t reason,
                       const char *text)
{
	struct ask_msg m = {
	        .type = ASK_ABORT, .task = task, .incarnation = incarnation, .count = reason};
	size_t n = strnlen(text, ASK_TEXT_MAX - 1);

	ask_msg_put(p, &m);
	memcpy(p + ASK_HDR_LEN, text, n);
	p[ASK_HDR_LEN + n] = 0;
	return ASK_HDR_LEN + n + 1;
}

int ask_abort_parse(const uint8_t *p, size_t len, struct ask_msg *m, uint16_t *reason, char *text)
{
	if (ask_msg_get(p, len, m) < 0 || m->type != ASK_ABORT)
		return -EINVAL;
	size_t n = len - ASK_HDR_LEN < ASK_TEXT_MAX - 1 ? len - ASK_HDR_LEN : ASK_TEXT_MAX - 1;
	memcpy(text, p + ASK_HDR_LEN, n);
	text[n] = 0;
	for (size_t i = 0; text[i] != 0; i++)
		if ((unsigned char)text[i] < 0x20 || (unsigned char)text[i] == 0x7F)
			text[i] = '?'; /* untrusted: print nothing that moves the cursor */
	*reason = (uint16_t)m->count;
	return 0;
}

/* ---- receiver ---- */

/* Probes a switch must leave unanswered, besides the silence, to be taken for gone. */
#define RJ_SILENT_TRIES 8

enum rj_state {
	RJ_QUERY, /* asking the switches which incarnation the task is at */
	RJ_WAIT,  /* a switch that answered, while the others have not */
	RJ_START, /* BEGIN N from that one on each */
	RJ_RUN,   /* begun on every switch: probing */
	RJ_FAILED,
};

/* One switch of the job's path: where its task is, and the one BEGIN in flight to it. */
struct rj_sw {
	enum rj_state state; /* RJ_QUERY, RJ_WAIT, RJ_START, RJ_RUN */
	uint16_t cur;        /* the switch's incarnation as it last said */
	uint32_t reg;        /* its registration's nonce when the job began there */
	bool out, need_send;
	uint32_t id; /* the BEGIN's start field: which BEGIN a reply answers (unique over all) */
	unsigned tries;
	uint64_t sent_ns, last_answer_ns, next_probe_ns;
	bool finished;
	struct ask_switch_counts counts;
	uint8_t pkt[ASK_HDR_LEN + sizeof(struct ask_job_info)];
};

struct ask_rjob {
	struct ask_recv_cfg rc; /* the receiver's: the task, its shape, the switches; BEGIN's seq
	                         * is the one before its SWAPs and FETCHes (seq0 - 1) */
	struct ask_rjob_cfg cfg;
	enum rj_state state;
	int failed;   /* -errno once RJ_FAILED */
	uint16_t inc; /* ours: the same on every switch */
	unsigned cas; /* BEGINs refused because the incarnation had moved */
	uint32_t id;  /* the last BEGIN's id */
	struct rj_sw sw[1 + ASK_EDGES_MAX];
	unsigned nsw, rr;
	struct ask_switch_counts counts[1 + ASK_EDGES_MAX]; /* the final ones, once finished */
	/* the end */
	bool finishing, finished;
	uint32_t final_id; /* replies to BEGINs from this id on carry the final counts */
	/* senders */
	uint32_t *owner; /* per channel: the HELLO nonce of its sender, 0 none yet */
	bool *closed;
	struct ask_totals *tot, want;
	unsigned nclosed;
	char err[400];
};

struct ask_rjob *ask_rjob_new(const struct ask_recv_cfg *rc, const struct ask_rjob_cfg *cfg)
{
	struct ask_rjob *j;

	if (rc->nchan < 1 || rc->nchan > 65536 || cfg->incarnation == 0 || rc->rto_ns == 0 ||
	    rc->edges > ASK_EDGES_MAX || (rc->edges > 0 && !rc->ctl) ||
	    (rc->ctl && (cfg->probe_ns == 0 || cfg->silence_ns == 0))) {
		errno = EINVAL;
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (j == NULL)
		return NULL;
	j->rc = *rc;
	j->cfg = *cfg;
	j->inc = cfg->incarnation;
	j->nsw = rc->ctl ? 1 + rc->edges : 0;
	j->owner = calloc(rc->nchan, sizeof(*j->owner));
	j->closed = calloc(rc->nchan, sizeof(*j->closed));
	j->tot = calloc(rc->nchan, sizeof(*j->tot));
	if (j->owner == NULL || j->closed == NULL || j->tot == NULL) {
		ask_rjob_free(j);
		errno = ENOMEM;
		return NULL;
	}
	ask_totals_init(&j->want);
	j->state = rc->ctl ? RJ_QUERY : RJ_RUN;
	return j;
}

void ask_rjob_free(struct ask_rjob *j)
{
	if (j == NULL)
		return;
	free(j->owner);
	free(j->closed);
	free(j->tot);
	free(j);
}

static int rj_fail(struct ask_rjob *j, int rc)
{
	j->state = RJ_FAILED;
	j->failed = rc;
	return rc;
}

static void rj_name(const struct ask_rjob *j, const struct rj_sw *w, char *buf, size_t len)
{
	ask_switch_name((unsigned)(w - j->sw), j->rc.edges, buf, len);
}

/* The next BEGIN to switch w: n from e (a probe: n == e). */
static void rj_send(struct ask_rjob *j, struct rj_sw *w, uint16_t n, uint16_t e)
{
	struct ask_msg m = {.type = ASK_BEGIN,
	                    .task = j->rc.task,
	                    .incarnation = n,
	                    .nslots = (uint8_t)j->rc.nslots,
	                    .key_bytes = (uint8_t)j->rc.key_bytes,
	                    .seq = j->rc.seq0 - 1,
	                    .start = w->id = ++j->id,
	                    .count = e};

	ask_msg_put(w->pkt, &m);
	memset(w->pkt + ASK_HDR_LEN, 0, sizeof(struct ask_job_info));
	w->out = w->need_send = true;
	w->tries = 0;
}

/* Switch w's BEGIN or probe due now: 1 and *tx, 0, or fails the job. */
static int rj_sw_ctl(struct ask_rjob *j, struct rj_sw *w, uint64_t now, struct ask_tx *tx)
{
	char name[32];

	if (w->last_answer_ns == 0)
		w->last_answer_ns = now; /* the silence runs from the first call */
	if (w->state == RJ_WAIT)
		return 0;
	if (!w->out) {
		if (w->state == RJ_QUERY)
			rj_send(j, w, j->inc, j->inc);
		else if (w->state == RJ_START)
			rj_send(j, w, j->inc, w->cur);
		else if (now >= w->next_probe_ns && !w->finished)
			rj_send(j, w, j->inc, j->inc);
		else
			return 0;
	}
	if (w->need_send) {
		w->need_send = false;
	} else if (now - w->sent_ns < ask_backoff(j->rc.rto_ns, w->tries)) {
		return 0;
	} else if (w->state == RJ_RUN && now - w->last_answer_ns >= j->cfg.silence_ns &&
	           w->tries >= RJ_SILENT_TRIES) {
		/* Silence counts only with probes sent into it: a receiver that was not scheduled
		 * for a while has not been ignored. */
		rj_name(j, w, name, sizeof(name));
		snprintf(j->err, sizeof(j->err),
		         "%s did not answer for %.1f s (%u probes): it stopped, or the path to it "
		         "did",
		         name, (double)(now - w->last_answer_ns) / 1e9, w->tries);
		return rj_fail(j, -ETIMEDOUT);
	} else {
		w->tries++;
	}
	w->sent_ns = now;
	*tx = (struct ask_tx){.buf = w->pkt, .len = sizeof(w->pkt), .to = (unsigned)(w - j->sw)};
	return 1;
}

int ask_rjob_ctl(struct ask_rjob *j, uint64_t now, struct ask_tx *tx)
{
	if (j->state == RJ_FAILED)
		return j->failed;
	for (unsigned i = 0; i < j->nsw; i++) {
		unsigned k = (j->rr + i) % j->nsw;
		int rc = rj_sw_ctl(j, &j->sw[k], now, tx);
		if (rc != 0) {
			j->rr = k + 1;
			return rc;
		}
	}
	return 0;
}

static const char *const op_names[] = {"add", "max", "min"};

/* The task's shape on switch w against the receiver's. 0, or fails the job. */
static int rj_shape(struct ask_rjob *j, const struct rj_sw *w, const struct ask_job_info *ji)
{
	const struct ask_recv_cfg *c = &j->rc;
	unsigned op = ji->op;
	char name[32];

	if (ask_be16(ji->channels) == c->nchan && ask_be32(ji->window) == c->window &&
	    ask_be32(ji->aa_size) == c->aa_size && op == (unsigned)c->op)
		return 0;
	rj_name(j, w, name, sizeof(name));
	snprintf(j->err, sizeof(j->err),
	         "task %u on %s has channels %u window %u aa-size %u op %s; this receiver "
	         "has --channels %u --window %u --aa-size %u --op %s",
	         c->task, name, ask_be16(ji->channels), ask_be32(ji->window), ask_be32(ji->aa_size),
	         op < 3 ? op_names[op] : "?", c->nchan, c->window, c->aa_size, op_names[c->op]);
	return rj_fail(j, -EPROTO);
}

/* An incarnation that no switch is at, from j->inc on. */
static void rj_pick(struct ask_rjob *j)
{
	for (;;) {
		bool taken = false;
		for (unsigned k = 0; k < j->nsw; k++)
			taken |= j->sw[k].cur == j->inc;
		if (!taken)
			return;
		j->inc = (uint16_t)(j->inc + 1) == 0 ? 1 : (uint16_t)(j->inc + 1);
	}
}

/* Every switch has said where it is: BEGIN an incarnation none is at, from each one's. */
static void rj_start_all(struct ask_rjob *j)
{
	rj_pick(j);
	for (unsigned k = 0; k < j->nsw; k++) {
		j->sw[k].state = RJ_START;
		j->sw[k].out = false;
	}
	j->state = RJ_START;
}

/* The task's incarnation moved under a BEGIN on switch `name`: 0, or fails the job the ninth
 * time. */
static int rj_moved(struct ask_rjob *j, const char *name)
{
	if (++j->cas <= 8)
		return 0;
	snprintf(j->err, sizeof(j->err),
	         "task %u's incarnation on %s changed under 8 BEGINs in a row: is another "
	         "receiver starting jobs on it?",
	         j->rc.task, name);
	return rj_fail(j, -EPROTO);
}

static int begin_done(struct ask_rjob *j, const struct ask_msg *m, const struct ask_job_info *ji,
                      uint64_t now)
{
	struct rj_sw *w = NULL;
	char name[32];

	for (unsigned k = 0; k < j->nsw; k++)
		if (j->sw[k].out && j->sw[k].id == m->start)
			w = &j->sw[k];
	if (w == NULL || m->seq != j->rc.seq0 - 1)
		return ASK_JRX_TAKEN; /* a late or duplicated reply: nothing to learn */
	w->out = false;
	w->last_answer_ns = now;
	uint16_t cur = m->incarnation;
	rj_name(j, w, name, sizeof(name));
	if (ji->error == ASK_BEGIN_SHAPE) {
		snprintf(j->err, sizeof(j->err),
		         "task %u on %s has %u slots of %u-byte keys; this receiver has "
		         "--slots %u --key-bytes %u",
		         j->rc.task, name, m->nslots, m->key_bytes, j->rc.nslots, j->rc.key_bytes);
		return rj_fail(j, -EPROTO);
	}
	switch (w->state) {
	case RJ_QUERY:
		w->cur = cur;
		w->state = RJ_WAIT;
		for (unsigned k = 0; k < j->nsw; k++)
			if (j->sw[k].state == RJ_QUERY)
				return ASK_JRX_TAKEN;
		rj_start_all(j);
		return ASK_JRX_TAKEN;
	case RJ_START:
		if (ji->error != ASK_BEGIN_OK) {
			/* The incarnation moved between the question and the BEGIN: again from it.
			 */
			if (rj_moved(j, name) < 0)
				return j->failed;
			w->cur = cur;
			return ASK_JRX_TAKEN;
		}
		if (!(ji->flags & ASK_JOB_F_RESET) && w->tries == 0) {
			/* Our first BEGIN found the switch at ours already without starting it:
			 * another receiver began our incarnation there after we asked. The job's
			 * incarnation must be ours alone, and the same on every switch, so every
			 * switch moves to another one (those begun already, from ours). */
			if (rj_moved(j, name) < 0)
				return j->failed;
			w->cur = j->inc;
			for (unsigned k = 0; k < j->nsw; k++)
				if (j->sw[k].state == RJ_RUN)
					j->sw[k].cur = j->inc;
			rj_start_all(j);
			return ASK_JRX_TAKEN;
		}
		if (rj_shape(j, w, ji) < 0)
			return j->failed;
		w->reg = ask_be32(ji->reg);
		w->cur = j->inc;
		w->state = RJ_RUN;
		w->next_probe_ns = now + j->cfg.probe_ns;
		for (unsigned k = 0; k < j->nsw; k++)
			if (j->sw[k].state != RJ_RUN)
				return ASK_JRX_TAKEN;
		j->state = RJ_RUN;
		return ASK_JRX_TAKEN;
	case RJ_RUN:
		if (ji->error != ASK_BEGIN_OK || cur != j->inc || ask_be32(ji->reg) != w->reg) {
			snprintf(
			        j->err, sizeof(j->err),
			        "%s lost the job's state: task %u is at incarnation %u of "
			        "registration %08x, this job is %u of %08x (the switch restarted, "
			        "the task was registered again, or another receiver began a job on "
			        "it)",
			        name, j->rc.task, cur, ask_be32(ji->reg), j->inc, w->reg);
			return rj_fail(j, -ESTALE);
		}
		if (j->finishing && m->start >= j->final_id && !w->finished) {
			w->counts.tuples = ask_be64(ji->tuples);
			w->counts.absorbed = ask_be64(ji->absorbed);
			w->counts.held = (int64_t)ask_be64(ji->held);
			w->finished = true;
			bool all = true;
			for (unsigned k = 0; k < j->nsw; k++)
				all &= j->sw[k].finished;
			if (all) {
				for (unsigned k = 0; k < j->nsw; k++)
					j->counts[k] = j->sw[k].counts;
				j->finished = true;
			}
		}
		w->next_probe_ns = now + j->cfg.probe_ns;
		return ASK_JRX_TAKEN;
	default:
		return j->failed;
	}
}

/* HELLO: the job's incarnation once begun, each channel to one sender. */
static int hello(struct ask_rjob *j, const struct ask_msg *m, const uint8_t *p, size_t len,
                 uint8_t *out, size_t *outlen, unsigned *chan)
{
	const struct ask_recv_cfg *c = &j->rc;
	unsigned n = m->count & 0xFFFFu;
	uint16_t error = ASK_HELLO_OK;

	if (j->state != RJ_RUN || len < ASK_HELLO_LEN || m->seq == 0)
		return ASK_JRX_TAKEN; /* not begun yet: the sender asks again */
	if (j->cfg.job != 0 && ask_be32(p + ASK_HDR_LEN + 4) != j->cfg.job)
		error = ASK_HELLO_JOB;
	else if (m->nslots != c->nslots || m->key_bytes != c->key_bytes ||
	         ask_be32(p + ASK_HDR_LEN) != c->window)
		error = ASK_HELLO_SHAPE;
	else if (n == 0 || m->channel + n > c->nchan)
		error = ASK_HELLO_CHANNELS;
	for (unsigned k = 0; error == ASK_HELLO_OK && k < n; k++)
		if (j->owner[m->channel + k] != 0 && j->owner[m->channel + k] != m->seq)
			error = ASK_HELLO_TAKEN;
	for (unsigned k = 0; error == ASK_HELLO_OK && k < n; k++)
		j->owner[m->channel + k] = m->seq;
	struct ask_msg a = {.type = ASK_HELLO_ACK,
	                    .flags = error != ASK_HELLO_OK ? ASK_F_ERROR : 0,
	                    .task = c->task,
	                    .channel = m->channel,
	                    .nslots = (uint8_t)c->nslots,
	                    .key_bytes = (uint8_t)c->key_bytes,
	                    .seq = m->seq,
	                    .start = c->window,
	                    .count = error,
	                    .incarnation = j->inc};
	ask_msg_put(out, &a);
	*outlen = ASK_HDR_LEN;
	*chan = m->channel;
	return ASK_JRX_REPLY;
}

/* CLOSE: a channel's totals, which must match the channel as received. */
static int close_in(struct ask_rjob *j, const struct ask_receiver *r, const struct ask_msg *m,
                    const uint8_t *p, size_t len, uint8_t *out, size_t *outlen, unsigned *chan)
{
	struct ask_totals t;
	uint32_t packets = 0;
	unsigned ch = m->channel;

	if (len < ASK_CLOSE_LEN || m->incarnation != j->inc || ch >= j->rc.nchan ||
	    j->owner[ch] != m->seq)
		return ASK_JRX_TAKEN; /* not of this job's senders: ignored */
	totals_get(p + ASK_HDR_LEN, &t);
	if (j->closed[ch]) {
		if (!totals_eq(&t, &j->tot[ch])) {
			snprintf(j->err, sizeof(j->err),
			         "channel %u closed twice with different totals", ch);
			return rj_fail(j, -EPROTO);
		}
	} else {
		if (r == NULL || !ask_receiver_channel_done(r, ch, &packets) ||
		    packets != t.packets || ask_receiver_channel_long(r, ch) != t.long_tuples) {
			snprintf(j->err, sizeof(j->err),
			         "channel %u closed with %" PRIu32 " packets and %" PRIu64
			         " LONG records; the receiver has %s%" PRIu32
			         " packets and %" PRIu64,
			         ch, t.packets, t.long_tuples,
			         r != NULL && ask_receiver_channel_done(r, ch, &packets)
			                 ? ""
			                 : "not all its ",
			         packets, r != NULL ? ask_receiver_channel_long(r, ch) : 0);
			return rj_fail(j, -EPROTO);
		}
		j->closed[ch] = true;
		j->tot[ch] = t;
		j->nclosed++;
		ask_totals_add(&j->want, &t);
	}
	struct ask_msg a = {.type = ASK_CLOSE_ACK,
	                    .task = j->rc.task,
	                    .channel = (uint16_t)ch,
	                    .nslots = (uint8_t)j->rc.nslots,
	                    .key_bytes = (uint8_t)j->rc.key_bytes,
	                    .seq = m->seq,
	                    .incarnation = j->inc};
	ask_msg_put(out, &a);
	*outlen = ASK_HDR_LEN;
	*chan = ch;
	return ASK_JRX_REPLY;
}

int ask_rjob_input(struct ask_rjob *j, const struct ask_receiver *r, const uint8_t *p, size_t len,
                   uint64_t now, uint8_t *out, size_t *outlen, unsigned *chan)
{
	struct ask_msg m;
	char text[ASK_TEXT_MAX];
	uint16_t reason;

	if (ask_msg_get(p, len, &m) < 0)
		return ASK_JRX_OTHER;
	if (m.type != ASK_BEGIN_DONE && m.type != ASK_HELLO && m.type != ASK_CLOSE &&
	    m.type != ASK_ABORT)
		return ASK_JRX_OTHER;
	if (j->state == RJ_FAILED)
		return j->failed;
	if (m.task != j->rc.task)
		return ASK_JRX_TAKEN;
	switch (m.type) {
	case ASK_BEGIN_DONE:
		if (!j->rc.ctl || len < ASK_HDR_LEN + sizeof(struct ask_job_info))
			return ASK_JRX_TAKEN;
		return begin_done(j, &m, (const struct ask_job_info *)(p + ASK_HDR_LEN), now);
	case ASK_HELLO:
		return hello(j, &m, p, len, out, outlen, chan);
	case ASK_CLOSE:
		return close_in(j, r, &m, p, len, out, outlen, chan);
	default:
		if (j->state != RJ_RUN || m.incarnation != j->inc ||
		    ask_abort_parse(p, len, &m, &reason, text) < 0)
			return ASK_JRX_TAKEN;
		snprintf(j->err, sizeof(j->err), "the sender of channel %u aborted the job: %s",
		         m.channel, text);
		return rj_fail(j, -ECANCELED);
	}
}

bool ask_rjob_begun(const struct ask_rjob *j)
{
	return j->state == RJ_RUN;
}

uint16_t ask_rjob_incarnation(const struct ask_rjob *j)
{
	return j->inc;
}

bool ask_rjob_closed(const struct ask_rjob *j)
{
	return j->nclosed == j->rc.nchan;
}

void ask_rjob_finish(struct ask_rjob *j, uint64_t now)
{
	if (j->finishing)
		return;
	j->finishing = true;
	if (!j->rc.ctl) {
		j->finished = true;
		return;
	}
	/* A new probe of every switch now; the replies to earlier ones are stale. */
	j->final_id = j->id + 1;
	for (unsigned k = 0; k < j->nsw; k++) {
		j->sw[k].out = false;
		j->sw[k].next_probe_ns = now;
	}
}

bool ask_rjob_finished(const struct ask_rjob *j)
{
	return j->finished;
}

bool ask_rjob_check(const struct ask_rjob *j, const struct ask_receiver *r, char *why, size_t len)
{
	return ask_job_check(j->rc.op, &j->want, ask_receiver_table((struct ask_receiver *)r),
	                     ask_receiver_stats(r), j->counts, j->finished ? j->nsw : 0, why, len);
}

const struct ask_switch_counts *ask_rjob_switch_counts(const struct ask_rjob *j)
{
	return j->rc.ctl && j->finished ? j->counts : NULL;
}

const struct ask_totals *ask_rjob_totals(const struct ask_rjob *j)
{
	return &j->want;
}

const char *ask_rjob_error(const struct ask_rjob *j)
{
	return j->err;
}

/* ---- sender ---- */

enum sj_state { SJ_HELLO, SJ_READY, SJ_CLOSING, SJ_DONE, SJ_FAILED };

struct ask_sjob {
	struct ask_sjob_cfg cfg;
	enum sj_state state;
	int failed;
	uint16_t inc;
	uint64_t t0, sent_ns;
	unsigned tries, nacked;
	bool *acked;
	uint8_t (*close)[ASK_CLOSE_LEN];
	uint8_t hello[ASK_HELLO_LEN];
	char err[400];
};

struct ask_sjob *ask_sjob_new(const struct ask_sjob_cfg *c)
{
	struct ask_sjob *j;

	if (c->nchan < 1 || c->channel0 + c->nchan - 1u > UINT16_MAX || c->nonce == 0 ||
	    c->rto_ns == 0) {
		errno = EINVAL;
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (j == NULL)
		return NULL;
	j->cfg = *c;
	j->acked = calloc(c->nchan, sizeof(*j->acked));
	j->close = calloc(c->nchan, sizeof(*j->close));
	if (j->acked == NULL || j->close == NULL) {
		ask_sjob_free(j);
		errno = ENOMEM;
		return NULL;
	}
	struct ask_msg m = {.type = ASK_HELLO,
	                    .task = c->task,
	                    .channel = c->channel0,
	                    .nslots = (uint8_t)c->nslots,
	                    .key_bytes = (uint8_t)c->key_bytes,
	                    .seq = c->nonce,
	                    .count = c->nchan & 0xFFFFu};
	ask_msg_put(j->hello, &m);
	ask_put32(j->hello + ASK_HDR_LEN, c->window);
	ask_put32(j->hello + ASK_HDR_LEN + 4, c->job);
	return j;
}

void ask_sjob_free(struct ask_sjob *j)
{
	if (j == NULL)
		return;
	free(j->acked);
	free(j->close);
	free(j);
}

static int sj_fail(struct ask_sjob *j, int rc)
{
	j->state = SJ_FAILED;
	j->failed = rc;
	return rc;
}

int ask_sjob_pump(struct ask_sjob *j, uint64_t now, struct ask_tx *tx, unsigned max)
{
	unsigned n = 0;

	if (j->state == SJ_FAILED)
		return j->failed;
	if (j->state != SJ_HELLO && j->state != SJ_CLOSING)
		return 0;
	if (j->t0 == 0) {
		j->t0 = now;
	} else if (now - j->sent_ns < ask_backoff(j->cfg.rto_ns, j->tries)) {
		return 0;
	} else if (j->state == SJ_HELLO && now - j->t0 >= j->cfg.timeout_ns) {
		snprintf(j->err, sizeof(j->err),
		         "the receiver of task %u did not answer HELLO in %.1f s (is it running, "
		         "and is the switch passing its packets?)",
		         j->cfg.task, (double)(now - j->t0) / 1e9);
		return sj_fail(j, -ETIMEDOUT);
	} else if (j->state == SJ_CLOSING && j->tries >= j->cfg.retries) {
		unsigned k = 0;
		while (j->acked[k])
			k++;
		snprintf(j->err, sizeof(j->err), "channel %u: no CLOSE_ACK after %u resends",
		         j->cfg.channel0 + k, j->tries);
		return sj_fail(j, -ETIMEDOUT);
	} else if (j->state == SJ_CLOSING || j->tries < 3) {
		j->tries++; /* HELLO: the backoff stops growing at a few rto, the timeout bounds it
		             */
	}
	j->sent_ns = now;
	if (j->state == SJ_HELLO) {
		tx[n++] = (struct ask_tx){.buf = j->hello, .len = sizeof(j->hello)};
		return (int)n;
	}
	for (unsigned k = 0; k < j->cfg.nchan && n < max; k++)
		if (!j->acked[k])
			tx[n++] = (struct ask_tx){.buf = j->close[k], .len = ASK_CLOSE_LEN};
	return (int)n;
}

static const char *hello_error(uint16_t e)
{
	switch (e) {
	case ASK_HELLO_SHAPE:
		return "its task has another shape";
	case ASK_HELLO_CHANNELS:
		return "a channel is beyond the task's";
	case ASK_HELLO_TAKEN:
		return "another sender of this job has one of these channels";
	case ASK_HELLO_JOB:
		return "it runs another job (--job)";
	default:
		return "refused";
	}
}

int ask_sjob_input(struct ask_sjob *j, const uint8_t *p, size_t len)
{
	struct ask_msg m;
	char text[ASK_TEXT_MAX];
	uint16_t reason;

	if (ask_msg_get(p, len, &m) < 0 ||
	    (m.type != ASK_HELLO_ACK && m.type != ASK_CLOSE_ACK && m.type != ASK_ABORT))
		return 0;
	if (j->state == SJ_FAILED)
		return j->failed;
	if (m.task != j->cfg.task)
		return 1;
	if (m.type == ASK_ABORT) {
		if ((j->state != SJ_HELLO && m.incarnation != j->inc) ||
		    ask_abort_parse(p, len, &m, &reason, text) < 0)
			return 1; /* another job's */
		snprintf(j->err, sizeof(j->err), "the receiver aborted the job: %s", text);
		return sj_fail(j, -ECANCELED);
	}
	if (m.type == ASK_HELLO_ACK) {
		if (j->state != SJ_HELLO || m.seq != j->cfg.nonce || m.channel != j->cfg.channel0)
			return 1;
		if (m.flags & ASK_F_ERROR) {
			snprintf(
			        j->err, sizeof(j->err),
			        "the receiver refused channels %u..%u: %s (its task: window %u, %u "
			        "slots, key width %u; this sender: window %u, %u slots, key width "
			        "%u)",
			        j->cfg.channel0, j->cfg.channel0 + j->cfg.nchan - 1,
			        hello_error((uint16_t)m.count), m.start, m.nslots, m.key_bytes,
			        j->cfg.window, j->cfg.nslots, j->cfg.key_bytes);
			return sj_fail(j, -EPROTO);
		}
		j->inc = m.incarnation;
		j->state = SJ_READY;
		return 1;
	}
	unsigned k = (uint16_t)(m.channel - j->cfg.channel0);
	if (j->state == SJ_CLOSING && m.incarnation == j->inc && m.seq == j->cfg.nonce &&
	    k < j->cfg.nchan && !j->acked[k]) {
		j->acked[k] = true;
		if (++j->nacked == j->cfg.nchan)
			j->state = SJ_DONE;
	}
	return 1;
}

bool ask_sjob_ready(const struct ask_sjob *j)
{
	return j->state != SJ_HELLO && j->state != SJ_FAILED;
}

uint16_t ask_sjob_incarnation(const struct ask_sjob *j)
{
	return j->inc;
}

void ask_sjob_close(struct ask_sjob *j, const struct ask_totals *tot, uint64_t now)
{
	if (j->state != SJ_READY)
		return;
	for (unsigned k = 0; k < j->cfg.nchan; k++) {
		struct ask_msg m = {.type = ASK_CLOSE,
		                    .task = j->cfg.task,
		                    .channel = (uint16_t)(j->cfg.channel0 + k),
		                    .nslots = (uint8_t)j->cfg.nslots,
		                    .key_bytes = (uint8_t)j->cfg.key_bytes,
		                    .seq = j->cfg.nonce,
		                    .incarnation = j->inc};
		ask_msg_put(j->close[k], &m);
		totals_put(j->close[k] + ASK_HDR_LEN, &tot[k]);
	}
	j->state = SJ_CLOSING;
	j->tries = 0;
	j->sent_ns = now;
	j->t0 = 0; /* the first pump sends at once */
}

bool ask_sjob_done(const struct ask_sjob *j)
{
	return j->state == SJ_DONE;
}

const char *ask_sjob_error(const struct ask_sjob *j)
{
	return j->err;
}
