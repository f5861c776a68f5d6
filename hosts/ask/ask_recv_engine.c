/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ASK receiver (ask_host.h): ACK every DATA, merge each (channel, seq) once, and drive the
 * switches' aggregator arrays: SWAP a subspace whose un-absorbed count passed the threshold,
 * drain its old copy with FETCH, and at the end drain both copies of every slot, on every switch
 * of the path (the receiver's own and the senders' edges, docs/fabric.md). One SWAP or FETCH is
 * outstanding at a time per switch; a retry repeats its bytes (same seq), so the switch's kept
 * reply answers it and nothing is cleared twice. Each switch's seqs are a block of their own,
 * so a reply's seq says which switch's request it answers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ask_host.h"

/*
 * De-duplication of one channel: every seq before base has arrived; bits holds seqs
 * base .. base + 2W - 1 (bit seq & (2W - 1)). A sender keeps its seqs within W of its oldest
 * unacknowledged one, which is never past base, so nothing it sends falls beyond the bits.
 */
struct rchan {
	uint32_t base, last;
	bool has_last, complete;
	uint64_t longs; /* LONG records merged */
	uint64_t *bits;
};

enum ctl_state { CTL_IDLE, CTL_SWAP, CTL_FETCH };

/*
 * Each switch numbers its SWAPs and FETCHes in a block of its own, from seq0 + k * ASK_SW_SEQS
 * on: consecutive at the switch, as with one switch, so its rule for late requests (less than
 * 65536 behind its newest) keeps its margin; and a reply's seq says which switch's request it
 * answers (a job would need 2^24 requests to one switch for two blocks to meet).
 */
#define ASK_SW_SEQS (1u << 24)

/* One switch's aggregator arrays as the receiver drives them: one SWAP or FETCH in progress. */
struct rsw {
	enum ctl_state state;
	bool need_send;
	unsigned slot, copy, tries;
	uint32_t start, seq;
	uint32_t next_seq; /* this switch's next SWAP / FETCH seq (ASK_SW_SEQS) */
	uint64_t sent_ns;
	uint8_t pkt[ASK_HDR_LEN];
	uint32_t want; /* slots to swap */
	/* final drain: (slot, copy) = (final_idx / 2, final_idx % 2) */
	bool final, drained;
	unsigned final_idx;
	uint8_t active[ASK_SLOTS_MAX];
};

struct ask_receiver {
	struct ask_recv_cfg cfg;
	struct ask_table *table;
	struct rchan *ch;
	unsigned ring; /* 2W */
	unsigned complete;
	struct rsw sw[1 + ASK_EDGES_MAX]; /* the receiver's switch, then the edges */
	unsigned nsw, rr;                 /* switches (0: none); the next to look at */
	uint64_t since[ASK_SLOTS_MAX];    /* un-absorbed tuples since the slot's last swap */
	struct ask_recv_stats st;
	char err[160];
};

static bool pow2(uint64_t x)
{
	return x != 0 && (x & (x - 1)) == 0;
}

struct ask_receiver *ask_receiver_new(const struct ask_recv_cfg *cfg)
{
	struct ask_receiver *r;
	size_t words;

	if (cfg->nchan < 1 || cfg->nchan > 65536 || !pow2(cfg->window) ||
	    cfg->window > ASK_WINDOW_MAX || cfg->nslots < 1 || cfg->nslots > ASK_SLOTS_MAX ||
	    !ask_key_bytes_ok(cfg->key_bytes) || !pow2(cfg->aa_size) || cfg->rto_ns == 0 ||
	    cfg->edges > ASK_EDGES_MAX || (cfg->edges > 0 && !cfg->ctl)) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return NULL;
	r->cfg = *cfg;
	r->ring = 2 * cfg->window;
	r->nsw = cfg->ctl ? 1 + cfg->edges : 0;
	for (unsigned k = 0; k < r->nsw; k++)
		r->sw[k].next_seq = cfg->seq0 + k * ASK_SW_SEQS;
	r->table = ask_table_new(cfg->op);
	r->ch = calloc(cfg->nchan, sizeof(*r->ch));
	if (r->table == NULL || r->ch == NULL)
		goto fail;
	words = (r->ring + 63) / 64;
	for (unsigned c = 0; c < cfg->nchan; c++)
		if ((r->ch[c].bits = calloc(words, sizeof(uint64_t))) == NULL)
			goto fail;
	return r;
fail:
	ask_receiver_free(r);
	errno = ENOMEM;
	return NULL;
}

void ask_receiver_free(struct ask_receiver *r)
{
	if (r == NULL)
		return;
	for (unsigned c = 0; r->ch != NULL && c < r->cfg.nchan; c++)
		free(r->ch[c].bits);
	free(r->ch);
	ask_table_free(r->table);
	free(r);
}

/* ---- DATA ---- */

static bool bit_get(const struct ask_receiver *r, const struct rchan *c, uint32_t seq)
{
	uint32_t i = seq & (r->ring - 1);
	return c->bits[i / 64] >> (i % 64) & 1;
}

static void bit_flip(const struct ask_receiver *r, struct rchan *c, uint32_t seq)
{
	uint32_t i = seq & (r->ring - 1);
	c->bits[i / 64] ^= 1ull << (i % 64);
}

/* A seq past `seq` has arrived already (then seq cannot be the channel's LAST). */
static bool later_seen(const struct ask_receiver *r, const struct rchan *c, uint32_t seq)
{
	for (uint32_t q = seq + 1; q - c->base < r->ring; q++)
		if (bit_get(r, c, q))
			return true;
	return false;
}

/* A LAST flag or a seq that contradicts what the channel said before. */
static bool last_conflict(const struct ask_receiver *r, const struct rchan *c,
                          const struct ask_msg *m)
{
	if (c->has_last)
		return (int32_t)(m->seq - c->last) > 0 ||
		       ((m->flags & ASK_F_LAST) && m->seq != c->last);
	return (m->flags & ASK_F_LAST) && later_seen(r, c, m->seq);
}

static int merge_slots(struct ask_receiver *r, const uint8_t *p, uint32_t bitmap)
{
	unsigned kb = r->cfg.key_bytes;
	size_t rl = ask_rec_len(kb);

	for (unsigned j = 0; j < r->cfg.nslots; j++) {
		if (!(bitmap >> j & 1))
			continue;
		const uint8_t *rec = p + ASK_HDR_LEN + j * rl;
		if (ask_table_merge(r->table, rec, kb, ask_be32(rec + kb)) < 0)
			return -ENOMEM;
		r->since[j]++;
		r->st.tuples_unabsorbed++;
	}
	return 0;
}

static int merge_long(struct ask_receiver *r, struct rchan *c, const uint8_t *p, size_t len)
{
	struct ask_long_iter it;
	const uint8_t *key;
	uint8_t canon[ASK_KEY_MAX];
	unsigned klen;
	uint32_t value;

	ask_long_iter_init(&it, p, len);
	while (ask_long_next(&it, &key, &klen, &value) > 0) {
		klen = ask_key_canon(canon, key, klen, r->cfg.key_bytes);
		if (ask_table_merge(r->table, canon, klen, value) < 0)
			return -ENOMEM;
		r->st.long_records++;
		c->longs++;
	}
	return 0;
}

static int data_input(struct ask_receiver *r, const uint8_t *p, size_t len, uint8_t *ack)
{
	struct ask_msg m;
	struct rchan *c;
	uint32_t d;
	int rc;

	if (ask_data_parse(p, len, &m) < 0 || m.task != r->cfg.task ||
	    m.incarnation != r->cfg.incarnation || m.nslots != r->cfg.nslots ||
	    m.key_bytes != r->cfg.key_bytes || m.channel >= r->cfg.nchan)
		goto bad;
	c = &r->ch[m.channel];
	d = m.seq - c->base;
	if ((int32_t)d >= 0 && d >= r->ring)
		goto bad; /* beyond any window: no ACK (its bit would alias another seq) */
	if ((int32_t)d < 0 || bit_get(r, c, m.seq)) {
		r->st.dup_pkts++;
		ask_ack_build(ack, &m);
		return ASK_RX_DUP;
	}
	if (last_conflict(r, c, &m))
		goto bad; /* past the channel's end, or a second LAST: no ACK */
	rc = m.flags & ASK_F_LONG ? merge_long(r, c, p, len) : merge_slots(r, p, m.bitmap);
	if (rc < 0) {
		snprintf(r->err, sizeof(r->err), "out of memory for the table");
		return rc;
	}
	r->st.data_pkts++;
	bit_flip(r, c, m.seq);
	while (bit_get(r, c, c->base)) {
		bit_flip(r, c, c->base);
		c->base++;
	}
	if (m.flags & ASK_F_LAST) {
		c->has_last = true;
		c->last = m.seq;
	}
	if (c->has_last && !c->complete && c->base == c->last + 1) {
		c->complete = true;
		r->complete++;
	}
	ask_ack_build(ack, &m);
	return ASK_RX_NEW;
bad:
	r->st.bad_pkts++;
	return ASK_RX_BAD;
}

/* ---- SWAP and FETCH, one request at a time per switch ---- */

static void start_op(struct ask_receiver *r, struct rsw *w, enum ctl_state op, unsigned slot,
                     unsigned copy, uint32_t start)
{
	const struct ask_recv_cfg *c = &r->cfg;

	w->state = op;
	w->slot = slot;
	w->copy = copy;
	w->start = start;
	w->seq = w->next_seq++;
	w->tries = 0;
	w->need_send = true;
	if (op == CTL_SWAP)
		ask_swap_build(w->pkt, c->task, c->incarnation, c->nslots, c->key_bytes, w->seq,
		               slot, copy);
	else
		ask_fetch_build(w->pkt, c->task, c->incarnation, c->nslots, c->key_bytes, w->seq,
		                slot, copy, start, ask_fetch_max(c->key_bytes));
}

static void op_done(struct rsw *w)
{
	w->state = CTL_IDLE;
	w->need_send = false;
	if (w->final)
		w->final_idx++;
}

static int refused(struct ask_receiver *r, const struct rsw *w, const char *what)
{
	char name[32];

	ask_switch_name((unsigned)(w - r->sw), r->cfg.edges, name, sizeof(name));
	snprintf(r->err, sizeof(r->err), "%s refused %s of slot %u copy %u (ERROR flag)", name,
	         what, w->slot, w->copy);
	return -EPROTO;
}

/* The switch whose request in progress m answers, if any (seqs are unique across switches). */
static struct rsw *current(struct ask_receiver *r, const struct ask_msg *m, enum ctl_state op)
{
	if (m->task != r->cfg.task)
		return NULL;
	for (unsigned k = 0; k < r->nsw; k++) {
		struct rsw *w = &r->sw[k];
		if (w->state == op && m->seq == w->seq && ASK_SEL_SLOT(m->bitmap) == w->slot)
			return w;
	}
	return NULL;
}

static int swap_done(struct ask_receiver *r, const struct ask_msg *m)
{
	struct rsw *w = current(r, m, CTL_SWAP);

	if (w == NULL || w->need_send) {
		r->st.stale_replies++;
		return ASK_RX_REPLY;
	}
	if (m->flags & ASK_F_ERROR)
		return refused(r, w, "SWAP");
	if (ASK_SEL_COPY(m->bitmap) != w->copy) {
		r->st.stale_replies++; /* not (yet) the copy asked for: the retry asks again */
		return ASK_RX_REPLY;
	}
	r->st.swaps++;
	w->active[w->slot] = (uint8_t)w->copy;
	start_op(r, w, CTL_FETCH, w->slot, w->copy ^ 1u, 0);
	return ASK_RX_REPLY;
}

static int fetch_reply(struct ask_receiver *r, const uint8_t *p, const struct ask_msg *m)
{
	unsigned kb = r->cfg.key_bytes;
	struct rsw *w = current(r, m, CTL_FETCH);
	char name[32];

	if (w == NULL || ASK_SEL_COPY(m->bitmap) != w->copy || w->need_send) {
		r->st.stale_replies++;
		return ASK_RX_REPLY;
	}
	if (m->flags & ASK_F_ERROR)
		return refused(r, w, "FETCH");
	if (m->start <= w->start || m->start > r->cfg.aa_size) {
		ask_switch_name((unsigned)(w - r->sw), r->cfg.edges, name, sizeof(name));
		snprintf(
		        r->err, sizeof(r->err),
		        "FETCH of slot %u copy %u from %u (%s): reply goes on at %u, aa-size is %u "
		        "(does --aa-size match the task?)",
		        w->slot, w->copy, w->start, name, m->start, r->cfg.aa_size);
		return -EPROTO;
	}
	for (uint32_t i = 0; i < m->count; i++) {
		const uint8_t *rec = p + ASK_HDR_LEN + i * ask_rec_len(kb);
		if (ask_table_merge(r->table, rec, kb, ask_be32(rec + kb)) < 0) {
			snprintf(r->err, sizeof(r->err), "out of memory for the table");
			return -ENOMEM;
		}
	}
	r->st.fetched_records += m->count;
	if (m->start == r->cfg.aa_size)
		op_done(w);
	else
		start_op(r, w, CTL_FETCH, w->slot, w->copy, m->start);
	return ASK_RX_REPLY;
}

int ask_receiver_input(struct ask_receiver *r, const uint8_t *p, size_t len, uint8_t *ack)
{
	struct ask_msg m;

	if (ask_msg_get(p, len, &m) < 0)
		goto bad;
	if (m.type == ASK_DATA)
		return data_input(r, p, len, ack);
	if (r->nsw == 0)
		goto bad;
	if (m.type == ASK_SWAP_DONE && ask_swap_done_parse(p, len, &m) == 0)
		return swap_done(r, &m);
	if (m.type == ASK_FETCH_REPLY && ask_fetch_reply_parse(p, len, r->cfg.key_bytes, &m) == 0)
		return fetch_reply(r, p, &m);
bad:
	r->st.bad_pkts++;
	return ASK_RX_BAD;
}

/*
 * A subspace whose un-absorbed count passed the threshold is swapped on every switch: each of
 * them had its chance at those tuples and kept other keys.
 */
static void swaps_due(struct ask_receiver *r)
{
	if (r->cfg.swap_threshold == 0 || ask_receiver_complete(r))
		return;
	for (unsigned j = 0; j < r->cfg.nslots; j++) {
		if (r->since[j] <= r->cfg.swap_threshold)
			continue;
		r->since[j] = 0;
		for (unsigned k = 0; k < r->nsw; k++)
			r->sw[k].want |= 1u << j;
	}
}

/* Starts switch w's next SWAP or final FETCH when nothing is in progress there. */
static void next_op(struct ask_receiver *r, struct rsw *w)
{
	unsigned S = r->cfg.nslots;

	if (ask_receiver_complete(r)) {
		w->final = true;
		if (w->final_idx < 2 * S)
			start_op(r, w, CTL_FETCH, w->final_idx / 2, w->final_idx % 2, 0);
		else
			w->drained = true;
		return;
	}
	if (w->want != 0) {
		unsigned j = (unsigned)__builtin_ctz(w->want);
		w->want &= w->want - 1;
		start_op(r, w, CTL_SWAP, j, w->active[j] ^ 1u, 0);
	}
}

/* Switch w's request due now: 1 and *tx, 0, or -ETIMEDOUT. */
static int sw_ctl(struct ask_receiver *r, struct rsw *w, uint64_t now, struct ask_tx *tx)
{
	bool swap;
	char name[32];

	if (w->drained)
		return 0;
	if (w->state == CTL_IDLE)
		next_op(r, w);
	if (w->state == CTL_IDLE)
		return 0;
	swap = w->state == CTL_SWAP;
	if (w->need_send) {
		w->need_send = false;
		if (!swap)
			r->st.fetches++;
	} else if (now - w->sent_ns < ask_backoff(r->cfg.rto_ns, w->tries)) {
		return 0;
	} else if (w->tries >= r->cfg.retries) {
		ask_switch_name((unsigned)(w - r->sw), r->cfg.edges, name, sizeof(name));
		snprintf(r->err, sizeof(r->err),
		         "no answer from %s to %s of slot %u copy %u after %u retries", name,
		         swap ? "SWAP" : "FETCH", w->slot, w->copy, w->tries);
		return -ETIMEDOUT;
	} else {
		w->tries++;
		if (swap)
			r->st.swap_retries++;
		else
			r->st.fetch_retries++;
	}
	w->sent_ns = now;
	*tx = (struct ask_tx){.buf = w->pkt, .len = ASK_HDR_LEN, .to = (unsigned)(w - r->sw)};
	return 1;
}

int ask_receiver_ctl(struct ask_receiver *r, uint64_t now, struct ask_tx *tx)
{
	swaps_due(r);
	for (unsigned i = 0; i < r->nsw; i++) {
		unsigned k = (r->rr + i) % r->nsw;
		int rc = sw_ctl(r, &r->sw[k], now, tx);
		if (rc != 0) {
			r->rr = k + 1;
			return rc;
		}
	}
	return 0;
}

bool ask_receiver_complete(const struct ask_receiver *r)
{
	return r->complete == r->cfg.nchan;
}

bool ask_receiver_channel_done(const struct ask_receiver *r, unsigned ch, uint32_t *packets)
{
	if (ch >= r->cfg.nchan || !r->ch[ch].complete)
		return false;
	*packets = r->ch[ch].last + 1;
	return true;
}

uint64_t ask_receiver_channel_long(const struct ask_receiver *r, unsigned ch)
{
	return ch < r->cfg.nchan ? r->ch[ch].longs : 0;
}

bool ask_receiver_done(const struct ask_receiver *r)
{
	if (!ask_receiver_complete(r))
		return false;
	for (unsigned k = 0; k < r->nsw; k++)
		if (!r->sw[k].drained)
			return false;
	return true;
}

uint64_t ask_receiver_wake(const struct ask_receiver *r)
{
	uint64_t wake = UINT64_MAX;

	for (unsigned k = 0; k < r->nsw; k++) {
		const struct rsw *w = &r->sw[k];
		uint64_t t = w->state == CTL_IDLE ? UINT64_MAX
		             : w->need_send       ? 0
		                            : w->sent_ns + ask_backoff(r->cfg.rto_ns, w->tries);
		wake = t < wake ? t : wake;
	}
	return wake;
}

const struct ask_recv_stats *ask_receiver_stats(const struct ask_receiver *r)
{
	return &r->st;
}

struct ask_table *ask_receiver_table(struct ask_receiver *r)
{
	return r->table;
}

const char *ask_receiver_error(const struct ask_receiver *r)
{
	return r->err;
}
