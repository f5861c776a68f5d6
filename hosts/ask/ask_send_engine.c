/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ASK sender (ask_host.h): tuples from a source into one FIFO per subspace, packets of the
 * queue heads (one tuple per slot at most), LONG packets for keys wider than the slots, and the
 * channels: a seq stream each, at most W packets in flight, selective ACKs, retransmission of
 * the same bytes with the RESEND flag, LAST on a channel's final packet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ask_host.h"
#include "host_rtt.h"

/* A packet's timeout doubles at most this often: 8 times its base (ask_backoff()'s rule). */
#define ASK_SEND_BACKOFF_MAX 3u

/* A FIFO of fixed-size records (a padded key and its value). */
struct fifo {
	uint8_t *buf;
	size_t head, tail, cap; /* bytes */
};

/* One packet of a channel's window. */
struct wpkt {
	uint8_t *buf;
	uint16_t len;
	uint8_t acked;
	uint16_t tries; /* resends so far */
	uint64_t sent_ns;
	uint64_t xmit; /* transmission number of its last (re)send */
};

struct chan {
	uint32_t base, next;   /* seqs base..next-1 are in the window; base is the oldest unacked */
	uint64_t rack;         /* the latest transmission number acknowledged */
	bool closed;           /* its LAST packet is built */
	struct wpkt *w;        /* window entries, seq & (W - 1) */
	struct ask_totals tot; /* what it carried (its CLOSE) */
};

struct ask_sender {
	struct ask_send_cfg cfg;
	struct ask_src *src;
	bool eof;
	struct fifo *q; /* per subspace */
	unsigned nonempty;
	size_t queued, queue_limit;
	uint8_t *lbuf; /* LONG records waiting for a packet */
	size_t llen;
	struct chan *ch;
	unsigned rr;
	uint64_t next_scan;  /* when resend_due() next has something to look at */
	struct host_rtt rtt; /* from packets never resent (Karn); the timeouts' back-off */
	uint64_t xmits;      /* transmissions so far */
	struct ask_send_stats st;
	char err[160];
};

/* The LONG buffer holds one packet's worth plus the largest record. */
#define LBUF_CAP (ASK_LONG_BYTES + 2u + ASK_KEY_MAX + ASK_VALUE_LEN)

static int fifo_push(struct fifo *f, const uint8_t *rec, size_t n)
{
	if (f->tail + n > f->cap) {
		if (f->head > 0) {
			memmove(f->buf, f->buf + f->head, f->tail - f->head);
			f->tail -= f->head;
			f->head = 0;
		}
		if (f->tail + n > f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 64 * n;
			uint8_t *b = realloc(f->buf, cap);
			if (b == NULL)
				return -ENOMEM;
			f->buf = b;
			f->cap = cap;
		}
	}
	memcpy(f->buf + f->tail, rec, n);
	f->tail += n;
	return 0;
}

static bool cfg_ok(const struct ask_send_cfg *c)
{
	return c->nchan >= 1 && c->channel0 + c->nchan - 1u <= UINT16_MAX && c->window >= 1 &&
	       c->window <= ASK_WINDOW_MAX && (c->window & (c->window - 1)) == 0 &&
	       c->nslots >= 1 && c->nslots <= ASK_SLOTS_MAX && ask_key_bytes_ok(c->key_bytes) &&
	       c->rto_ns > 0;
}

struct ask_sender *ask_sender_new(const struct ask_send_cfg *cfg, struct ask_src *src)
{
	struct ask_sender *s;

	if (!cfg_ok(cfg)) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->cfg = *cfg;
	s->src = src;
	s->queue_limit = cfg->queue_limit ? cfg->queue_limit : 64u * cfg->nslots;
	s->q = calloc(cfg->nslots, sizeof(*s->q));
	s->ch = calloc(cfg->nchan, sizeof(*s->ch));
	s->lbuf = malloc(LBUF_CAP);
	if (s->q == NULL || s->ch == NULL || s->lbuf == NULL)
		goto fail;
	for (unsigned c = 0; c < cfg->nchan; c++) {
		ask_totals_init(&s->ch[c].tot);
		s->ch[c].w = calloc(cfg->window, sizeof(struct wpkt));
		if (s->ch[c].w == NULL)
			goto fail;
		for (unsigned i = 0; i < cfg->window; i++)
			if ((s->ch[c].w[i].buf = malloc(ASK_MSG_MAX)) == NULL)
				goto fail;
	}
	return s;
fail:
	s->src = NULL; /* on failure the caller keeps the source */
	ask_sender_free(s);
	errno = ENOMEM;
	return NULL;
}

void ask_sender_free(struct ask_sender *s)
{
	if (s == NULL)
		return;
	for (unsigned j = 0; s->q != NULL && j < s->cfg.nslots; j++)
		free(s->q[j].buf);
	for (unsigned c = 0; s->ch != NULL && c < s->cfg.nchan; c++) {
		for (unsigned i = 0; s->ch[c].w != NULL && i < s->cfg.window; i++)
			free(s->ch[c].w[i].buf);
		free(s->ch[c].w);
	}
	free(s->q);
	free(s->ch);
	free(s->lbuf);
	ask_src_free(s->src);
	free(s);
}

/* ---- packing ---- */

/* Puts one tuple in its subspace queue or, if wider than a slot, in the LONG buffer. */
static int place(struct ask_sender *s, const struct ask_tuple *t)
{
	unsigned kb = s->cfg.key_bytes;
	uint8_t rec[16 + ASK_VALUE_LEN];

	s->st.tuples++;
	if (t->len > kb) {
		s->st.long_tuples++;
		s->llen += ask_long_put(s->lbuf + s->llen, t->key, t->len, t->value);
		return 0;
	}
	ask_key_canon(rec, t->key, t->len, kb);
	ask_put32(rec + kb, t->value);
	struct fifo *f = &s->q[ask_key_slot(rec, kb, s->cfg.nslots)];
	if (f->head == f->tail)
		s->nonempty++;
	s->queued++;
	return fifo_push(f, rec, ask_rec_len(kb));
}

/* Reads tuples until every queue has a head, the queues hold queue_limit tuples, a LONG
 * packet is full or the input ends. */
static int fill(struct ask_sender *s)
{
	struct ask_tuple t;
	int rc;

	while (!s->eof && s->nonempty < s->cfg.nslots && s->queued < s->queue_limit &&
	       s->llen < ASK_LONG_BYTES) {
		rc = ask_src_next(s->src, &t);
		if (rc < 0) {
			snprintf(s->err, sizeof(s->err), "input: %s", ask_src_error(s->src));
			return rc;
		}
		if (rc == 0)
			s->eof = true;
		else if ((rc = place(s, &t)) < 0)
			return rc;
	}
	return 0;
}

/* A DATA packet of the queue heads, added to the channel's totals. */
static size_t pack_data(struct ask_sender *s, uint8_t *p, const struct ask_msg *m,
                        struct ask_totals *tot)
{
	unsigned kb = s->cfg.key_bytes;
	size_t len = ask_data_init(p, m), rl = ask_rec_len(kb);

	for (unsigned j = 0; j < s->cfg.nslots; j++) {
		struct fifo *f = &s->q[j];
		if (f->head == f->tail)
			continue;
		uint32_t v = ask_be32(f->buf + f->head + kb);
		ask_data_put(p, kb, j, f->buf + f->head, v);
		ask_totals_tuple(tot, f->buf + f->head, kb, v, false);
		f->head += rl;
		s->queued--;
		if (f->head == f->tail) {
			f->head = f->tail = 0;
			s->nonempty--;
		}
	}
	return len;
}

/* A LONG packet of the whole records at the front of the LONG buffer, added to the channel's
 * totals. */
static size_t pack_long(struct ask_sender *s, uint8_t *p, struct ask_msg *m, struct ask_totals *tot)
{
	size_t used = 0;

	m->count = 0;
	while (used < s->llen) {
		unsigned klen = ask_be16(s->lbuf + used);
		size_t n = ask_long_rec_len(klen);
		if (used + n > ASK_LONG_BYTES)
			break;
		ask_totals_tuple(tot, s->lbuf + used + 2, klen, ask_be32(s->lbuf + used + 2 + klen),
		                 true);
		used += n;
		m->count++;
	}
	m->flags |= ASK_F_LONG;
	ask_msg_put(p, m);
	memcpy(p + ASK_HDR_LEN, s->lbuf, used);
	memmove(s->lbuf, s->lbuf + used, s->llen - used);
	s->llen -= used;
	s->st.long_packets++;
	return ASK_HDR_LEN + used;
}

/*
 * Builds the next packet of channel c into p: DATA of the queue heads, LONG when its buffer is
 * full (or at the end of the input), else the channel's empty LAST. The packet that empties the
 * input is the LAST of its channel. Returns the length or -errno.
 */
static int pack_next(struct ask_sender *s, struct chan *c, uint8_t *p, uint32_t seq, uint16_t id)
{
	struct ask_msg m = {.type = ASK_DATA,
	                    .task = s->cfg.task,
	                    .incarnation = s->cfg.incarnation,
	                    .channel = id,
	                    .nslots = (uint8_t)s->cfg.nslots,
	                    .key_bytes = (uint8_t)s->cfg.key_bytes,
	                    .seq = seq};
	size_t len;
	int rc = fill(s);

	if (rc < 0)
		return rc;
	if (s->llen >= ASK_LONG_BYTES || (s->eof && s->llen > 0 && s->nonempty == 0)) {
		len = pack_long(s, p, &m, &c->tot);
	} else if (s->nonempty > 0) {
		len = pack_data(s, p, &m, &c->tot);
	} else {
		m.flags = ASK_F_LAST; /* nothing left: this channel's empty LAST */
		len = ask_data_init(p, &m);
		c->closed = true;
		return (int)len;
	}
	if (s->eof && s->nonempty == 0 && s->llen == 0) {
		p[1] |= ASK_F_LAST;
		c->closed = true;
	}
	return (int)len;
}

/* ---- channels ---- */

/* The timeout before any back-off: srtt + 4 rttvar, at least --rto-ms (host_rtt.h). */
static uint64_t rto(const struct ask_sender *s)
{
	return host_rtt_timeout(&s->rtt, s->cfg.rto_ns, s->cfg.rto_ns, UINT64_MAX, 0);
}

/* Presumed lost: a packet transmitted after w's last transmission has been acknowledged. */
static bool rack_lost(const struct ask_sender *s, const struct chan *c, const struct wpkt *w)
{
	return c->rack > w->xmit && s->rtt.srtt > 0;
}

/*
 * When packet w of channel c falls due for a resend. Once presumed lost (rack_lost), a reorder
 * window (a quarter of the RTT) after an RTT (the idea of TCP's RACK): waiting for the --rto-ms
 * floor instead would stall the window at every loss. Otherwise the timeout, doubled with each
 * resend of w or each timeout of the sender since its last ACK (at most 8 times); a receiver
 * that stalls makes no later ACK, so it does not run the retries out early.
 */
static uint64_t due(const struct ask_sender *s, const struct chan *c, const struct wpkt *w)
{
	unsigned shift = s->rtt.backoff > w->tries ? s->rtt.backoff : w->tries;

	if (rack_lost(s, c, w))
		return w->sent_ns + s->rtt.srtt + s->rtt.srtt / 4 + 20000;
	if (shift > ASK_SEND_BACKOFF_MAX)
		shift = ASK_SEND_BACKOFF_MAX;
	return w->sent_ns +
	       host_rtt_timeout(&s->rtt, s->cfg.rto_ns, s->cfg.rto_ns, UINT64_MAX, shift);
}

/* The next channel (round robin) that may send a new packet, or NULL. */
static struct chan *pick(struct ask_sender *s)
{
	for (unsigned i = 0; i < s->cfg.nchan; i++) {
		unsigned k = (s->rr + i) % s->cfg.nchan;
		struct chan *c = &s->ch[k];
		if (!c->closed && c->next - c->base < s->cfg.window) {
			s->rr = k + 1;
			return c;
		}
	}
	return NULL;
}

/* Resends w of channel k (seq q) into tx; -ETIMEDOUT past the retry limit. */
static int resend(struct ask_sender *s, unsigned k, uint32_t q, struct wpkt *w, uint64_t now,
                  struct ask_tx *tx)
{
	if (w->tries >= s->cfg.retries) {
		snprintf(s->err, sizeof(s->err), "channel %u seq %u: no ACK after %u resends",
		         s->cfg.channel0 + k, q, (unsigned)w->tries);
		return -ETIMEDOUT;
	}
	w->buf[1] |= ASK_F_RESEND;
	w->tries++;
	w->sent_ns = now;
	w->xmit = ++s->xmits;
	s->st.resends++;
	*tx = (struct ask_tx){.buf = w->buf, .len = w->len};
	return 0;
}

/*
 * Resends, up to max, every packet presumed lost and due, and of those only timed out the
 * oldest, one per expiry as TCP does, backing the timeouts off (host_rtt_expired): when the
 * ACKs are only late (the receiver or the switch descheduled on a loaded host), the others come
 * back without a resend and their round trips teach the estimator; resending every packet
 * timed out made each such stall cost the window. The next ACK ends the back-off.
 * -ETIMEDOUT past the retry limit. *first: the earliest time another one falls due.
 */
static int resend_due(struct ask_sender *s, uint64_t now, struct ask_tx *tx, unsigned max,
                      uint64_t *first)
{
	unsigned n = 0, mask = s->cfg.window - 1, ok = 0;
	struct wpkt *old = NULL;
	uint32_t oq = 0;

	*first = UINT64_MAX;
	for (unsigned k = 0; k < s->cfg.nchan; k++) {
		struct chan *c = &s->ch[k];
		for (uint32_t q = c->base; q != c->next && n < max; q++) {
			struct wpkt *w = &c->w[q & mask];
			if (w->acked)
				continue;
			uint64_t t = due(s, c, w);
			if (now < t) {
				*first = t < *first ? t : *first;
			} else if (rack_lost(s, c, w)) {
				if (resend(s, k, q, w, now, &tx[n++]) < 0)
					return -ETIMEDOUT;
			} else if (!old || w->sent_ns < old->sent_ns) {
				old = w, ok = k, oq = q;
			}
		}
	}
	if (old && n < max) {
		if (resend(s, ok, oq, old, now, &tx[n++]) < 0)
			return -ETIMEDOUT;
		host_rtt_expired(&s->rtt, now, ASK_SEND_BACKOFF_MAX);
		*first = now; /* the others timed out with it: due later now, look again */
	}
	return (int)n;
}

int ask_sender_pump(struct ask_sender *s, uint64_t now, struct ask_tx *tx, unsigned max)
{
	int n = 0, len;
	struct chan *c;
	uint64_t first;

	if (now >= s->next_scan) {
		n = resend_due(s, now, tx, max, &first);
		if (n < 0)
			return n;
		/* Look again when the next one falls due (packets sent from now on are due no
		 * sooner than a timeout from now), or at once if tx was too short. */
		s->next_scan = (unsigned)n == max ? now : now + rto(s) / 4;
		if (first < s->next_scan)
			s->next_scan = first;
	}
	while ((unsigned)n < max && (c = pick(s)) != NULL) {
		struct wpkt *w = &c->w[c->next & (s->cfg.window - 1)];
		len = pack_next(s, c, w->buf, c->next, (uint16_t)(s->cfg.channel0 + (c - s->ch)));
		if (len < 0)
			return len;
		w->len = (uint16_t)len;
		w->acked = 0;
		w->tries = 0;
		w->sent_ns = now;
		w->xmit = ++s->xmits;
		c->next++;
		c->tot.packets = c->next;
		s->st.packets++;
		tx[n++] = (struct ask_tx){.buf = w->buf, .len = w->len};
	}
	return n;
}

void ask_sender_ack(struct ask_sender *s, const uint8_t *p, size_t len, uint64_t now)
{
	struct ask_msg m;
	struct chan *c;
	struct wpkt *w;

	if (ask_ack_parse(p, len, &m) < 0 || m.task != s->cfg.task ||
	    m.incarnation != s->cfg.incarnation ||
	    (uint16_t)(m.channel - s->cfg.channel0) >= s->cfg.nchan) {
		s->st.bad_acks++;
		return;
	}
	c = &s->ch[m.channel - s->cfg.channel0];
	if (m.seq - c->base >= c->next - c->base) {
		s->st.dup_acks++; /* acknowledged and slid past already (or never sent) */
		return;
	}
	w = &c->w[m.seq & (s->cfg.window - 1)];
	if (w->acked) {
		s->st.dup_acks++;
		return;
	}
	/* Karn's rule; one sample per packet in flight a round trip. The end of a back-off
	 * brings every packet's deadline nearer: look again now. */
	unsigned backoff = s->rtt.backoff;
	host_rtt_answer(&s->rtt, w->sent_ns, now, w->tries, (unsigned)(s->st.packets - s->st.acks));
	if (backoff && !s->rtt.backoff)
		s->next_scan = now;
	w->acked = 1;
	s->st.acks++;
	while (c->base != c->next && c->w[c->base & (s->cfg.window - 1)].acked)
		c->base++;
	if (w->xmit > c->rack)
		c->rack = w->xmit;
	/* A hole at the base: look at it as soon as it falls due. */
	if (c->base != c->next) {
		uint64_t t = due(s, c, &c->w[c->base & (s->cfg.window - 1)]);
		if (t < s->next_scan)
			s->next_scan = t;
	}
}

bool ask_sender_done(const struct ask_sender *s)
{
	for (unsigned k = 0; k < s->cfg.nchan; k++)
		if (!s->ch[k].closed || s->ch[k].base != s->ch[k].next)
			return false;
	return true;
}

const struct ask_totals *ask_sender_totals(const struct ask_sender *s, unsigned k)
{
	return &s->ch[k].tot;
}

uint64_t ask_sender_wake(const struct ask_sender *s)
{
	for (unsigned k = 0; k < s->cfg.nchan; k++)
		if (s->ch[k].base != s->ch[k].next)
			return s->next_scan;
	return UINT64_MAX;
}

const struct ask_send_stats *ask_sender_stats(const struct ask_sender *s)
{
	return &s->st;
}

const char *ask_sender_error(const struct ask_sender *s)
{
	return s->err;
}
