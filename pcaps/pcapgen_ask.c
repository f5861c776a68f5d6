/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapgen ask: the ASK golden scenario (pcaps/ask/).
 *
 * The expected outputs come from a model of the pipeline as docs/ask.md specifies it (the points
 * the document leaves open are decided in pcaps/README.md, "The ask scenario"), written without
 * the switch's code. Only the wire format is shared with the switch (ask_proto.h): the header
 * layout and ask_hash(), which decides the subspace and the aggregator entry of a key.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapgen.h"
#include "../pipelines/ask/ask_proto.h"

#define AK_PORTS    4
#define AK_TASKS    2
#define AK_RX_HOST  9     /* the receiver of both tasks: 02:00:00:00:00:09, 10.0.0.9, port 3 */
#define AK_RX_PORT  3     /* the switch port it is behind */
#define AK_ASK      0xfe  /* "host" of the ASK address in the frame table */
#define AK_REQ_PORT 50000 /* the receiver's UDP source port for SWAP and FETCH */
#define AK_SND_PORT 40000 /* sender h sends DATA from UDP port AK_SND_PORT + h */
#define AK_CH_MAX   3
#define AK_RING_MAX 16 /* 2W of the largest window */
#define AK_SLOT_MAX 10
#define AK_AA_MAX   2048
#define AK_SCAN     1024 /* entries one FETCH looks at, at most */

static const uint8_t ak_mac[6] = {0x02, 0, 0, 0, 0xa5, 0xa5}; /* the ASK MAC (default) */
static const uint32_t ak_ip = IP(10, 0, 0, 254);              /* `ask config set ip` */

enum ak_op { OP_ADD, OP_MAX, OP_MIN };
static const char *const ak_op_name[] = {"add", "max", "min"};

struct ak_task_cfg {
	uint16_t id;
	uint16_t udp_port; /* the receiver's */
	unsigned channels, window, nslots, key_bytes, aa_size;
	enum ak_op op;
	uint32_t senders; /* bit p: DATA may come in on port p */
};

/* clang-format off */
static const struct ak_task_cfg ak_tasks[AK_TASKS] = {
	{1, ASK_UDP_PORT, 3, 4, 4, 8, 8, OP_ADD, 0x7},
	{2, 43000, 2, 8, 10, 16, 2048, OP_MAX, 0x5},
};
/* clang-format on */

/* Senders 1..3 behind ports 0..2, the receiver behind port 3; all in the l2 table. */
static const struct scenario_host ak_hosts[] = {
        {{0x02, 0, 0, 0, 0, 1}, 0},
        {{0x02, 0, 0, 0, 0, 2}, 1},
        {{0x02, 0, 0, 0, 0, 3}, 2},
        {{0x02, 0, 0, 0, 0, AK_RX_HOST}, AK_RX_PORT},
};
#define AK_NHOSTS (sizeof(ak_hosts) / sizeof(ak_hosts[0]))

static const struct ak_task_cfg *ak_task(unsigned id)
{
	for (unsigned i = 0; i < AK_TASKS; i++)
		if (ak_tasks[i].id == id)
			return &ak_tasks[i];
	return NULL;
}

static void host_mac(uint8_t *mac, unsigned h)
{
	const uint8_t m[6] = {0x02, 0, 0, 0, 0, (uint8_t)h};

	memcpy(mac, h == AK_ASK ? ak_mac : m, 6);
}

static uint32_t host_ip(unsigned h)
{
	return h == AK_ASK ? ak_ip : IP(10, 0, 0, h);
}

/* Key n of a task: "k<n>" (8 bytes) or "wordcount-<6 digits>" (16), zero-padded to the width. */
static void ak_key(uint8_t *k, unsigned key_bytes, uint32_t n)
{
	char s[32];

	if (key_bytes == 16)
		snprintf(s, sizeof(s), "wordcount-%06u", n);
	else
		snprintf(s, sizeof(s), "k%u", n);
	memset(k, 0, key_bytes);
	memcpy(k, s, strlen(s) < key_bytes ? strlen(s) : key_bytes);
}

/* A key's bytes as text for the manifest (the scenario's keys are ASCII, zero-padded). */
static const char *key_str(char *buf, const uint8_t *k, unsigned key_bytes)
{
	unsigned i;

	for (i = 0; i < key_bytes && k[i] >= 0x20 && k[i] < 0x7f; i++)
		buf[i] = (char)k[i];
	buf[i] = '\0';
	return buf;
}

/* ---- The model of the switch ----------------------------------------------------------- */

struct ak_entry {
	bool used;
	uint8_t key[16];
	uint32_t v;
};

/* A task's state: AA_j copies, active copies, window registers, rings, the kept FETCH_REPLY. */
struct ak_state {
	struct ak_entry aa[AK_SLOT_MAX][2][AK_AA_MAX];
	uint32_t active; /* bit j: the active copy of AA_j */
	uint32_t next[AK_CH_MAX];
	uint32_t seen[AK_CH_MAX][AK_RING_MAX];
	uint32_t aggstate[AK_CH_MAX][AK_RING_MAX];
	bool ctl; /* a SWAP or FETCH was served: ctl_seq holds the newest seq */
	uint32_t ctl_seq;
	bool kept;
	uint32_t kseq, ksel, kstart, kcount; /* the FETCH the kept reply answers */
	uint32_t klen;                       /* bytes from the ASK header on */
	uint8_t kreply[ASK_HDR_LEN + ASK_FETCH_BYTES];
};

struct ak_model {
	struct ak_state t[AK_TASKS];
};

/* A fresh task: empty AAs, copy 0 active, next = 0, ring position i holding i + 1. */
static void ak_model_init(struct ak_model *m)
{
	for (unsigned t = 0; t < AK_TASKS; t++)
		for (unsigned c = 0; c < AK_CH_MAX; c++)
			for (unsigned i = 0; i < AK_RING_MAX; i++)
				m->t[t].seen[c][i] = i + 1;
}

static void ip_csum_set(uint8_t *ip)
{
	put16(ip + 10, 0);
	put16(ip + 10, csum_fold(csum_add(0, ip, (size_t)(ip[0] & 0xf) * 4)));
}

/* r, a DATA (or LONG) packet, readdressed to the task's receiver, whatever the sender wrote. */
static void ak_to_receiver(uint8_t *r, const struct ak_task_cfg *t)
{
	host_mac(r, AK_RX_HOST);
	put32(r + ETH_LEN + 16, host_ip(AK_RX_HOST));
	ip_csum_set(r + ETH_LEN);
	put16(r + ETH_LEN + IP4_LEN + 2, t->udp_port);
	put16(r + ETH_LEN + IP4_LEN + 6, 0);
}

/*
 * A reply back out of the ingress port: b's Ethernet and IPv4 headers with the addresses, and its
 * UDP header with the ports, swapped; lengths for the reply ask (asklen bytes from the ASK header
 * on); IPv4 checksum recomputed, UDP checksum 0; the frame ends where the reply does.
 */
static void ak_reply(struct scenario_out *o, unsigned in, const uint8_t *b, const uint8_t *ask,
                     uint32_t asklen)
{
	uint8_t r[ASK_HDR_OFF + ASK_HDR_LEN + ASK_FETCH_BYTES];
	uint8_t *ip = r + ETH_LEN, *udp = ip + IP4_LEN;

	eth_put(r, b + 6, b, get16(b + 12));
	memcpy(ip, b + ETH_LEN, IP4_LEN);
	put32(ip + 12, get32(b + ETH_LEN + 16));
	put32(ip + 16, get32(b + ETH_LEN + 12));
	put16(ip + 2, (uint16_t)(IP4_LEN + UDP_LEN + asklen));
	ip_csum_set(ip);
	put16(udp, get16(b + ETH_LEN + IP4_LEN + 2));
	put16(udp + 2, get16(b + ETH_LEN + IP4_LEN));
	put16(udp + 4, (uint16_t)(UDP_LEN + asklen));
	put16(udp + 6, 0);
	memcpy(r + ASK_HDR_OFF, ask, asklen);
	scenario_out_add(o, in, r, ASK_HDR_OFF + asklen);
}

/* Tuple of slot j of a first occurrence into the active copy of AA_j: claimed, combined, or left
 * (collision). Returns true if absorbed; says what it did in why. */
static bool ak_absorb(struct ak_state *st, const struct ak_task_cfg *t, unsigned j,
                      const uint8_t *s, char *why, size_t n)
{
	unsigned kb = t->key_bytes, copy = (st->active >> j) & 1u;
	uint32_t e = ask_key_entry(s, kb, t->aa_size), v = get32(s + kb);
	struct ak_entry *x = &st->aa[j][copy][e];
	char k[20], k2[20];

	key_str(k, s, kb);
	if (x->used && memcmp(x->key, s, kb) != 0) {
		snprintf(why, n, " s%u %s collides c%u e%u (%s)", j, k, copy, e,
		         key_str(k2, x->key, kb));
		return false;
	}
	if (!x->used) {
		x->used = true;
		memcpy(x->key, s, kb);
		x->v = v;
		snprintf(why, n, " s%u %s claims c%u e%u =%d", j, k, copy, e, (int32_t)v);
		return true;
	}
	if (t->op == OP_ADD)
		x->v += v;
	else if (t->op == OP_MAX ? (int32_t)v > (int32_t)x->v : (int32_t)v < (int32_t)x->v)
		x->v = v;
	snprintf(why, n, " s%u %s %s c%u e%u =%d", j, k, ak_op_name[t->op], copy, e, (int32_t)x->v);
	return true;
}

/* The window register of a channel: returns NULL when seq is accepted (and advances next). */
static const char *ak_window(uint32_t *next, uint32_t seq, uint32_t w)
{
	int32_t d = (int32_t)(seq - *next);

	if (d < -(int32_t)w)
		return "stale: drop (ask-stale)";
	if (d >= (int32_t)w)
		return "beyond the window: drop (ask-window)";
	if (d >= 0)
		*next = seq + 1;
	return NULL;
}

/* The checks a DATA packet must pass before the window register; returns why it is dropped. */
static const char *ak_data_bad(const struct ak_task_cfg *t, const uint8_t *h, uint32_t len,
                               unsigned in)
{
	if (!((t->senders >> in) & 1))
		return "not from a sender port: drop";
	if (get16(h + 4) >= t->channels)
		return "no such channel: drop";
	if (h[1] & ASK_F_LONG)
		return NULL;
	if (h[6] != t->nslots || h[7] != t->key_bytes)
		return "slots or key width not the task's: drop";
	if (len < ask_data_len(t->nslots, t->key_bytes))
		return "shorter than its slots: drop (malformed)";
	return NULL;
}

static void ak_data(struct ak_state *st, const struct ak_task_cfg *t, const uint8_t *b,
                    uint32_t len, unsigned in, struct scenario_out *o, int n)
{
	uint8_t r[FRAME_MAX], *h = r + ASK_HDR_OFF, *pay = r + ASK_PAY_OFF;
	unsigned ch = get16(b + ASK_HDR_OFF + 4), rec = ask_rec_len(t->key_bytes);
	uint32_t seq = get32(b + ASK_HDR_OFF + 8), bitmap = get32(b + ASK_HDR_OFF + 12), clear = 0;
	uint32_t pos = seq & (2 * t->window - 1);
	const char *bad = ak_data_bad(t, b + ASK_HDR_OFF, len, in);
	size_t w = (size_t)n;

	if (bad == NULL)
		bad = ak_window(&st->next[ch], seq, t->window);
	if (bad != NULL) {
		snprintf(o->why + w, sizeof(o->why) - w, ": %s", bad);
		return;
	}
	memcpy(r, b, len);
	ak_to_receiver(r, t);
	if (h[1] & ASK_F_LONG) {
		snprintf(o->why + w, sizeof(o->why) - w,
		         ": LONG, payload untouched: to the receiver");
		scenario_out_add(o, AK_RX_PORT, r, len);
		return;
	}
	if (st->seen[ch][pos] == seq) {
		clear = st->aggstate[ch][pos];
		w += (size_t)snprintf(o->why + w, sizeof(o->why) - w,
		                      ": repeat, no AA touched, clears 0x%x", clear);
	} else {
		w += (size_t)snprintf(o->why + w, sizeof(o->why) - w, ": new:");
		for (unsigned j = 0; j < t->nslots; j++) {
			if ((bitmap >> j) & 1 &&
			    ak_absorb(st, t, j, pay + j * rec, o->why + w, sizeof(o->why) - w))
				clear |= 1u << j;
			w = strlen(o->why);
		}
		st->seen[ch][pos] = seq;
		st->aggstate[ch][pos] = clear;
	}
	for (unsigned j = 0; j < t->nslots; j++)
		if ((clear >> j) & 1)
			memset(pay + j * rec, 0, rec);
	put32(h + 12, bitmap & ~clear);
	snprintf(o->why + w, sizeof(o->why) - w, "; bitmap 0x%x to the receiver", bitmap & ~clear);
	scenario_out_add(o, AK_RX_PORT, r, len);
}

/* The reply header: the request's with type, flags, the task's shape and the selector. */
static void ak_reply_hdr(uint8_t *a, const uint8_t *req, const struct ak_task_cfg *t, uint8_t type,
                         uint8_t flags, uint32_t sel)
{
	memcpy(a, req, ASK_HDR_LEN);
	a[0] = type;
	a[1] = flags;
	a[6] = (uint8_t)t->nslots;
	a[7] = (uint8_t)t->key_bytes;
	put32(a + 12, sel);
}

static bool ak_sel_ok(const struct ak_task_cfg *t, uint32_t sel)
{
	return (sel & ~0x1ffu) == 0 && ASK_SEL_SLOT(sel) < t->nslots;
}

/*
 * One increasing control seq for a task's SWAPs and FETCHes (docs/ask.md, "Control seqs"): a
 * request older than the newest by less than 65536 is a late copy and is dropped; anything
 * further back counts as new. Returns true for a late copy.
 */
static bool ak_ctl_late(struct ak_state *st, uint32_t seq)
{
	int32_t d = (int32_t)(seq - st->ctl_seq);
	if (st->ctl && d < 0 && d > -65536)
		return true;
	if (!st->ctl || d > 0 || d <= -65536) {
		st->ctl = true;
		st->ctl_seq = seq;
	}
	return false;
}

static void ak_swap(struct ak_state *st, const struct ak_task_cfg *t, const uint8_t *b, unsigned in,
                    struct scenario_out *o, int n)
{
	const uint8_t *req = b + ASK_HDR_OFF;
	uint32_t sel = get32(req + 12);
	unsigned slot = ASK_SEL_SLOT(sel), copy = ASK_SEL_COPY(sel);
	uint8_t a[ASK_HDR_LEN];
	size_t w = (size_t)n;

	if (!ak_sel_ok(t, sel)) {
		ak_reply_hdr(a, req, t, ASK_SWAP_DONE, ASK_F_ERROR, sel);
		snprintf(o->why + w, sizeof(o->why) - w, ": bad selector 0x%x: SWAP_DONE ERROR",
		         sel);
	} else if (ak_ctl_late(st, get32(req + 8))) {
		snprintf(o->why + w, sizeof(o->why) - w,
		         ": older than the newest: late copy: drop");
		return;
	} else {
		st->active = (st->active & ~(1u << slot)) | copy << slot;
		ak_reply_hdr(a, req, t, ASK_SWAP_DONE, 0, ASK_SEL(slot, copy));
		memset(a + 16, 0, 8);
		snprintf(o->why + w, sizeof(o->why) - w,
		         ": slot %u copy %u active: SWAP_DONE (active 0x%x)", slot, copy,
		         st->active);
	}
	ak_reply(o, in, b, a, ASK_HDR_LEN);
}

/* Reads and clears up to want used entries of one copy from *start, looking at no more than
 * AK_SCAN; the records go to out, one past the last entry looked at to *start. Returns the
 * records. */
static uint32_t ak_take(struct ak_entry *aa, const struct ak_task_cfg *t, uint32_t *start,
                        uint32_t want, uint8_t *out, char *why, size_t n)
{
	uint32_t i = *start, end = *start + AK_SCAN < t->aa_size ? *start + AK_SCAN : t->aa_size;
	uint32_t got = 0;
	unsigned kb = t->key_bytes;
	char k[20];

	for (; i < end && got < want; i++) {
		if (!aa[i].used)
			continue;
		memcpy(out, aa[i].key, kb);
		put32(out + kb, aa[i].v);
		out += ask_rec_len(kb);
		aa[i].used = false;
		size_t w = strlen(why);
		snprintf(why + w, n - w, " e%u %s=%d", i, key_str(k, aa[i].key, kb),
		         (int32_t)aa[i].v);
		got++;
	}
	*start = i;
	return got;
}

static void ak_fetch(struct ak_state *st, const struct ak_task_cfg *t, const uint8_t *b,
                     unsigned in, struct scenario_out *o, int n)
{
	const uint8_t *req = b + ASK_HDR_OFF;
	uint32_t seq = get32(req + 8), sel = get32(req + 12), start = get32(req + 16), next = start;
	uint32_t count = get32(req + 20), want = ask_fetch_max(t->key_bytes), got;
	uint8_t a[ASK_HDR_LEN + ASK_FETCH_BYTES];
	size_t w = (size_t)n;

	if (!ak_sel_ok(t, sel) || start > t->aa_size) {
		ak_reply_hdr(a, req, t, ASK_FETCH_REPLY, ASK_F_ERROR, sel);
		put32(a + 20, 0);
		snprintf(o->why + w, sizeof(o->why) - w, ": bad request: FETCH_REPLY ERROR");
		ak_reply(o, in, b, a, ASK_HDR_LEN);
		return;
	}
	bool same = st->kept && st->kseq == seq;
	if (ak_ctl_late(st, seq) ||
	    (same && (st->ksel != sel || st->kstart != start || st->kcount != count))) {
		snprintf(o->why + w, sizeof(o->why) - w,
		         ": late copy, or the kept seq for another request: drop");
		return;
	}
	if (same) {
		snprintf(o->why + w, sizeof(o->why) - w, ": retry: the kept reply again");
		ak_reply(o, in, b, st->kreply, st->klen);
		return;
	}
	w += (size_t)snprintf(o->why + w, sizeof(o->why) - w,
	                      ": slot %u copy %u from %u:", ASK_SEL_SLOT(sel), ASK_SEL_COPY(sel),
	                      start);
	if (count < want)
		want = count;
	got = ak_take(st->aa[ASK_SEL_SLOT(sel)][ASK_SEL_COPY(sel)], t, &next, want, a + ASK_HDR_LEN,
	              o->why, sizeof(o->why));
	ak_reply_hdr(a, req, t, ASK_FETCH_REPLY, 0, sel);
	put32(a + 16, next);
	put32(a + 20, got);
	w = strlen(o->why);
	snprintf(o->why + w, sizeof(o->why) - w, "%s; FETCH_REPLY count %u start %u",
	         got ? "" : " none", got, next);
	st->kept = true;
	st->kseq = seq;
	st->ksel = sel;
	st->kstart = start;
	st->kcount = count;
	st->klen = ASK_HDR_LEN + got * ask_rec_len(t->key_bytes);
	memcpy(st->kreply, a, st->klen);
	ak_reply(o, in, b, a, st->klen);
}

/* A UDP packet to the ASK port whose type is DATA, SWAP or FETCH. */
static void ak_ask(struct ak_model *m, const uint8_t *b, uint32_t len, unsigned in,
                   struct scenario_out *o)
{
	const uint8_t *h = b + ASK_HDR_OFF;
	const struct ak_task_cfg *t = ak_task(get16(h + 2));
	static const char *const type_name[] = {"", "DATA", "", "SWAP", "", "FETCH"};
	int n = snprintf(o->why, sizeof(o->why), "%s t%u c%u seq %u", type_name[h[0]], get16(h + 2),
	                 get16(h + 4), get32(h + 8));
	struct ak_state *st;

	if (t == NULL) {
		snprintf(o->why + n, sizeof(o->why) - (size_t)n, ": no such task: drop");
		return;
	}
	st = &m->t[t - ak_tasks];
	if (h[0] == ASK_DATA) {
		ak_data(st, t, b, len, in, o, n);
	} else if (in != AK_RX_PORT) {
		snprintf(o->why + n, sizeof(o->why) - (size_t)n,
		         ": not from the receiver's port: drop");
	} else if (h[0] == ASK_SWAP) {
		ak_swap(st, t, b, in, o, n);
	} else {
		ak_fetch(st, t, b, in, o, n);
	}
}

/* An ARP request for the ASK address, answered in place out of the ingress port. */
static bool ak_arp(const uint8_t *b, uint32_t len, unsigned in, struct scenario_out *o)
{
	static const uint8_t req[8] = {0, 1, 8, 0, 6, 4, 0, 1};
	const uint8_t *a = b + ETH_LEN;
	uint8_t r[FRAME_MAX], *ra = r + ETH_LEN;

	if (len < ETH_LEN + ARP_LEN || memcmp(a, req, 8) != 0 || get32(a + 24) != ak_ip)
		return false;
	memcpy(r, b, len);
	eth_put(r, a + 8, ak_mac, ETHERTYPE_ARP);
	put16(ra + 6, 2);
	memcpy(ra + 8, ak_mac, 6);
	put32(ra + 14, ak_ip);
	memcpy(ra + 18, a + 8, 6);
	put32(ra + 24, get32(a + 14));
	scenario_out_add(o, in, r, len);
	snprintf(o->why, sizeof(o->why), "ARP for the ASK address: reply from %02x:%02x", ak_mac[4],
	         ak_mac[5]);
	return true;
}

/* Why an IPv4 frame is not the ASK pipeline's, or NULL when it is (a UDP packet to the ASK port
 * of type DATA, SWAP or FETCH). */
static const char *ak_not_ask(const uint8_t *b, uint32_t len)
{
	const uint8_t *ip = b + ETH_LEN;

	if (len < ASK_PAY_OFF || ip[9] != PROTO_UDP)
		return "not ASK: ";
	if (ip[0] != 0x45)
		return "not ASK (IPv4 options): ";
	if (get16(ip + 6) & 0x3fff)
		return "not ASK (fragment): ";
	if (get16(ip + IP4_LEN + 2) != ASK_UDP_PORT)
		return "not ASK (UDP port): ";
	if (b[ASK_HDR_OFF] == ASK_DATA_ACK || b[ASK_HDR_OFF] == ASK_SWAP_DONE ||
	    b[ASK_HDR_OFF] == ASK_FETCH_REPLY)
		return "ASK reply, plain traffic: ";
	if (b[ASK_HDR_OFF] != ASK_DATA && b[ASK_HDR_OFF] != ASK_SWAP && b[ASK_HDR_OFF] != ASK_FETCH)
		return "not an ASK type: ";
	return NULL;
}

static void ak_expect(struct ak_model *m, const struct frame *f, unsigned in,
                      struct scenario_out *o)
{
	const char *pre = "";

	o->n = 0;
	o->why[0] = '\0';
	if (f->len >= ETH_LEN && get16(f->b + 12) == ETHERTYPE_ARP && ak_arp(f->b, f->len, in, o))
		return;
	if (f->len >= ETH_LEN && get16(f->b + 12) == ETHERTYPE_IP4) {
		pre = ak_not_ask(f->b, f->len);
		if (pre == NULL) {
			ak_ask(m, f->b, f->len, in, o);
			return;
		}
	}
	scenario_l2(f->b, f->len, in, AK_PORTS, ak_hosts, AK_NHOSTS, pre, o);
}

/* ---- The scenario's input frames ------------------------------------------------------- */

enum ak_kind {
	AK_DATA,  /* DATA or LONG from a sender */
	AK_SWAP,  /* SWAP from the receiver to the ASK address */
	AK_FETCH, /* FETCH, the same */
	AK_TO,    /* a reply-type ASK packet (.type) from the receiver to a host */
	AK_ARP,   /* ARP who-has .to's address, broadcast */
	AK_UDP,   /* plain UDP to port 5000 */
};

/* Changes to a frame after it is built. */
enum ak_mod {
	MOD_NONE,
	MOD_IPOPT, /* a 4-byte IPv4 option (IHL 6) */
	MOD_FRAG,  /* IPv4 MF set */
	MOD_SHORT, /* the last slot missing (IP and UDP lengths agree) */
	MOD_EXTRA, /* 20 bytes after the ASK header, within the IP and UDP lengths */
};

/* One tuple of a DATA packet: key n of the task in slot `slot`; valid 0 writes it in the slot
 * but leaves its bitmap bit clear. */
struct ak_tuple {
	uint8_t used, valid, slot;
	uint32_t key;
	int32_t val;
};

struct ak_spec {
	uint8_t port, kind, type, flags;
	uint16_t task, ch;
	uint32_t seq;
	uint8_t from, to;   /* hosts: 0 = the one behind the port, resp. the usual peer */
	uint8_t nslots, kb; /* 0: the task's */
	uint8_t mod;        /* enum ak_mod */
	uint16_t dport;     /* 0: the ASK port (AK_TO: the sender's port) */
	uint16_t slot, copy;
	uint32_t start, count;
	struct ak_tuple t[4];
	const char *words; /* LONG: its keys, space-separated */
	const char *what;
};

/* clang-format off */
#define D(p, tk, c, s)   .port = p, .kind = AK_DATA, .task = tk, .ch = c, .seq = s
#define SW(p, tk, s, sl, cp) .port = p, .kind = AK_SWAP, .task = tk, .seq = s, .slot = sl, .copy = cp
#define FE(p, tk, s, sl, cp, st, n) .port = p, .kind = AK_FETCH, .task = tk, .seq = s, .slot = sl, \
	.copy = cp, .start = st, .count = n
#define TO(ty, tk, c, s, h) .port = AK_RX_PORT, .kind = AK_TO, .type = ty, .task = tk, .ch = c, \
	.seq = s, .to = h
#define T(s, k, v) {1, 1, s, k, v}
#define G(s, k, v) {1, 0, s, k, v}

/*
 * In processing order (one worker, --burst 32): port 0's first 32 frames, ports 1 and 2, port 3's
 * first 32, then the rest of port 0 and of port 3. pcapgen checks that this order is the one the
 * order model gives. t1: 4 slots of 8-byte keys "k<n>", add, W 4, AA 8, senders on ports 0 1 2;
 * t2: 10 slots of 16-byte keys "wordcount-<n>", max, W 8, AA 2048, senders on ports 0 2.
 */
static const struct ak_spec ak_frames[] = {
	/* -- port 0, round 1: sender 1 -- */
	{D(0, 1, 0, 0), .t = {T(0, 4, 1), T(1, 0, 10), G(2, 2, 99), T(3, 6, 100)},
	 .what = "t1 c0 seq 0: 3 tuples, slot 2 invalid (not empty)"},
	{D(0, 1, 0, 1), .t = {T(0, 4, 2), T(1, 88, 20), T(2, 2, 5), T(3, 43, 7)},
	 .what = "t1 c0 seq 1: k88, k43 collide"},
	{D(0, 1, 0, 2), .t = {T(0, 12, INT32_MAX), T(1, 0, -1), T(3, 6, INT32_MAX)},
	 .what = "t1 c0 seq 2: sums that wrap"},
	{D(0, 1, 0, 1), .t = {T(0, 4, 2), T(1, 88, 20), T(2, 2, 5), T(3, 43, 7)},
	 .what = "t1 c0 seq 1 again: a network duplicate"},
	{D(0, 1, 0, 2), .flags = ASK_F_RESEND, .t = {T(0, 12, INT32_MAX), T(1, 0, -1),
	 T(3, 6, INT32_MAX)}, .what = "t1 c0 seq 2 RESEND"},
	{D(0, 1, 0, 3), .t = {T(0, 5, 1), T(1, 3, 30)}, .what = "t1 c0 seq 3"},
	{D(0, 1, 0, 4), .to = AK_ASK, .t = {T(2, 8, 8), T(3, 10, -3)},
	 .what = "t1 c0 seq 4, sent to the ASK MAC and IP"},
	{D(0, 1, 0, 6), .t = {T(0, 22, 4)}, .what = "t1 c0 seq 6 (before 5)"},
	{D(0, 1, 0, 5), .t = {T(1, 16, 1), T(2, 2, 1)}, .what = "t1 c0 seq 5, late"},
	{D(0, 1, 0, 7), .t = {T(3, 15, 15)}, .what = "t1 c0 seq 7"},
	{D(0, 1, 0, 8), .t = {T(0, 4, 10), T(1, 0, 1), T(3, 43, 2)},
	 .what = "t1 c0 seq 8: ring position 0 again"},
	{D(0, 1, 0, 9), .t = {T(0, 113, 5), T(2, 36, 2), T(3, 6, 1)},
	 .what = "t1 c0 seq 9: ring position 1 again"},
	{D(0, 1, 0, 8), .flags = ASK_F_RESEND, .t = {T(0, 4, 10), T(1, 0, 1), T(3, 43, 2)},
	 .what = "t1 c0 seq 8 RESEND (seq 0 absorbed s3 there)"},
	{D(0, 1, 0, 0), .t = {T(0, 4, 1), T(1, 0, 10), G(2, 2, 99), T(3, 6, 100)},
	 .what = "t1 c0 seq 0 again, after seq 9 (next 10)"},
	{D(0, 1, 0, 5), .t = {T(1, 16, 1), T(2, 2, 1)}, .what = "t1 c0 seq 5 again (next - W - 1)"},
	{D(0, 1, 0, 6), .t = {T(0, 22, 4)}, .what = "t1 c0 seq 6 again (next - W)"},
	{D(0, 1, 0, 14), .t = {T(0, 4, 1000)}, .what = "t1 c0 seq 14 (next + W)"},
	{D(0, 1, 0, 13), .t = {T(1, 9, 3)}, .what = "t1 c0 seq 13 (next + W - 1)"},
	{D(0, 1, 0, 10), .t = {T(2, 19, 19)}, .what = "t1 c0 seq 10 (next - W, not seen)"},
	{D(0, 1, 0, 9), .t = {T(0, 113, 5), T(2, 36, 2), T(3, 6, 1)},
	 .what = "t1 c0 seq 9 again (next - W - 1)"},
	{D(0, 1, 0, 11), .mod = MOD_IPOPT, .t = {T(0, 31, 31)}, .what = "t1 c0 seq 11, IPv4 option"},
	{D(0, 1, 0, 11), .mod = MOD_FRAG, .t = {T(0, 31, 31)}, .what = "t1 c0 seq 11, IPv4 MF"},
	{D(0, 1, 0, 11), .dport = 42406, .t = {T(0, 31, 31)}, .what = "t1 c0 seq 11, UDP port 42406"},
	{D(0, 1, 0, 11), .t = {T(1, 69, 69)}, .what = "t1 c0 seq 11"},
	{D(0, 1, 3, 0), .t = {T(0, 4, 1)}, .what = "t1 channel 3 (of 3)"},
	{D(0, 7, 0, 0), .nslots = 4, .kb = 8, .t = {T(0, 4, 1)}, .what = "task 7 (none)"},
	{D(0, 2, 0, 0), .t = {T(0, 144, 5), T(3, 1, -5), T(8, 1016, 7)},
	 .what = "t2 c0 seq 0: slots 0 and 8 at the same entry"},
	{D(0, 2, 0, 1), .t = {T(3, 1, -10), T(8, 1610, 9), T(9, 24, INT32_MIN)},
	 .what = "t2 c0 seq 1: 1610 vs 1016, same first 8 bytes"},
	{D(0, 2, 0, 0), .t = {T(0, 144, 5), T(3, 1, -5), T(8, 1016, 7)},
	 .what = "t2 c0 seq 0 again: a network duplicate"},
	{SW(0, 1, 90, 1, 1), .from = 1, .what = "SWAP t1 slot 1 from sender 1's port"},
	{.port = 0, .kind = AK_ARP, .to = AK_ASK, .what = "ARP who-has 10.0.0.254"},
	{.port = 0, .kind = AK_UDP, .to = AK_RX_HOST, .what = "UDP to the receiver, port 5000"},
	/* -- port 1, round 1: sender 2 -- */
	{D(1, 1, 1, 0), .t = {T(0, 4, 100), T(1, 88, 5), T(2, 11, 6), T(3, 15, 5)},
	 .what = "t1 c1 seq 0: same AAs, its own ring"},
	{D(1, 1, 1, 1), .flags = ASK_F_LAST, .t = {T(0, 28, 28), T(3, 26, 26)},
	 .what = "t1 c1 seq 1 LAST"},
	{D(1, 1, 1, 1), .flags = ASK_F_LAST | ASK_F_RESEND, .t = {T(0, 28, 28), T(3, 26, 26)},
	 .what = "t1 c1 seq 1 LAST RESEND"},
	{D(1, 1, 1, 0), .kb = 16, .t = {T(0, 4, 100)}, .what = "t1 c1 seq 0, 16-byte keys"},
	{D(1, 1, 1, 0), .nslots = 3, .t = {T(0, 4, 100)}, .what = "t1 c1 seq 0, 3 slots"},
	{D(1, 1, 1, 0), .mod = MOD_SHORT, .t = {T(0, 4, 100)}, .what = "t1 c1 seq 0, slot 3 cut"},
	{D(1, 2, 0, 2), .t = {T(3, 1, 50)}, .what = "t2 c0 seq 2 from port 1 (senders 0,2)"},
	{FE(1, 1, 91, 0, 0, 0, 116), .from = 2, .what = "FETCH t1 slot 0 from sender 2's port"},
	{.port = 1, .kind = AK_ARP, .to = AK_RX_HOST, .what = "ARP who-has 10.0.0.9"},
	{.port = 1, .kind = AK_UDP, .to = 1, .what = "UDP to sender 1, port 5000"},
	/* -- port 2, round 1: sender 3 -- */
	{D(2, 1, 2, 0), .flags = ASK_F_LONG, .words = "supercalifragilistic antidisestablishment",
	 .what = "t1 c2 seq 0 LONG: two 20-byte keys"},
	{D(2, 1, 2, 1), .flags = ASK_F_LAST, .t = {T(1, 27, 27), T(2, 8, 1)},
	 .what = "t1 c2 seq 1 LAST"},
	{D(2, 2, 1, 0), .t = {T(0, 144, 2), T(3, 1, 3), T(5, 14, 50)}, .what = "t2 c1 seq 0"},
	{D(2, 2, 1, 1), .t = {T(3, 1, -1), T(5, 25, -20), T(9, 24, -7)},
	 .what = "t2 c1 seq 1: max(3, -1) signed"},
	{D(2, 2, 1, 2), .flags = ASK_F_LONG | ASK_F_LAST,
	 .words = "pneumonoultramicroscopicsilicovolcanoconiosis",
	 .what = "t2 c1 seq 2 LONG LAST: a 45-byte key"},
	{D(2, 2, 1, 1), .t = {T(3, 1, -1), T(5, 25, -20), T(9, 24, -7)},
	 .what = "t2 c1 seq 1 again: a network duplicate"},
	{D(2, 2, 1, 11), .t = {T(1, 6, 6)}, .what = "t2 c1 seq 11 (next + W or more)"},
	/* -- port 3, round 1: the receiver -- */
	{.port = 3, .kind = AK_ARP, .to = AK_ASK, .what = "ARP who-has 10.0.0.254"},
	{.port = 3, .kind = AK_ARP, .to = 1, .what = "ARP who-has 10.0.0.1"},
	{TO(ASK_DATA_ACK, 1, 0, 13, 1), .what = "DATA_ACK t1 c0 seq 13 to sender 1"},
	{TO(ASK_DATA_ACK, 1, 1, 1, 2), .dport = ASK_UDP_PORT,
	 .what = "DATA_ACK t1 c1 seq 1 to sender 2's port 42405"},
	{TO(ASK_DATA_ACK, 2, 1, 2, 3), .what = "DATA_ACK t2 c1 seq 2 to sender 3"},
	{D(3, 1, 0, 3), .from = AK_RX_HOST, .t = {T(0, 5, 1)}, .what = "t1 c0 seq 3 from port 3"},
	{SW(3, 1, 1, 0, 1), .what = "SWAP t1 slot 0 to copy 1"},
	{SW(3, 1, 1, 0, 1), .what = "SWAP t1 slot 0 to copy 1 again (retry)"},
	{SW(3, 1, 2, 4, 0), .what = "SWAP t1 slot 4 (of 4)"},
	{SW(3, 1, 3, 2, 0), .what = "SWAP t1 slot 2 to copy 0 (active)"},
	{SW(3, 9, 1, 0, 1), .what = "SWAP task 9 (none)"},
	{FE(3, 1, 4, 0, 0, 0, 2), .what = "FETCH t1 s0 c0 from 0, 2 records"},
	{FE(3, 1, 4, 0, 0, 0, 2), .what = "FETCH t1 s0 c0 from 0, 2 again (retry)"},
	{FE(3, 1, 5, 0, 0, 5, 1), .what = "FETCH t1 s0 c0 from 5, 1 record"},
	{FE(3, 2, 1, 8, 0, 0, 70), .what = "FETCH t2 s8 c0 from 0"},
	{FE(3, 1, 5, 0, 0, 5, 1), .what = "FETCH t1 s0 c0 from 5, 1 again (retry)"},
	{FE(3, 2, 2, 0, 0, 0, 70), .what = "FETCH t2 s0 c0 from 0"},
	{FE(3, 2, 3, 5, 0, 0, 70), .what = "FETCH t2 s5 c0 from 0"},
	{FE(3, 2, 4, 5, 0, 1024, 70), .what = "FETCH t2 s5 c0 from 1024"},
	{FE(3, 2, 5, 5, 0, 2048, 70), .what = "FETCH t2 s5 c0 from 2048 (AA size)"},
	{FE(3, 2, 6, 10, 0, 0, 70), .what = "FETCH t2 slot 10 (of 10)"},
	{FE(3, 1, 6, 1, 1, 0, 116), .what = "FETCH t1 s1 c1 (never active)"},
	{FE(3, 1, 7, 3, 0, 0, 0), .what = "FETCH t1 s3 c0, 0 records"},
	{FE(3, 1, 8, 2, 0, 0, 116), .what = "FETCH t1 s2 c0 (active) from 0"},
	{FE(3, 1, 9, 2, 0, 8, 116), .what = "FETCH t1 s2 c0 from 8 (AA size)"},
	{SW(3, 2, 7, 3, 1), .mod = MOD_EXTRA, .what = "SWAP t2 slot 3 to copy 1, 20 bytes more"},
	{TO(ASK_FETCH_REPLY, 1, 0, 1, 3), .dport = ASK_UDP_PORT,
	 .what = "FETCH_REPLY-type to sender 3's port 42405"},
	{TO(ASK_SWAP_DONE, 1, 0, 1, 1), .dport = ASK_UDP_PORT,
	 .what = "SWAP_DONE-type to sender 1's port 42405"},
	{.port = 3, .kind = AK_UDP, .to = 2, .what = "UDP to sender 2, port 5000"},
	{FE(3, 2, 8, 9, 0, 1024, 70), .what = "FETCH t2 s9 c0 from 1024"},
	{FE(3, 2, 9, 8, 0, 1024, 70), .what = "FETCH t2 s8 c0 from 1024"},
	{TO(ASK_DATA_ACK, 1, 2, 1, 3), .what = "DATA_ACK t1 c2 seq 1 to sender 3"},
	/* -- port 0, round 2: after the SWAPs and FETCHes -- */
	{D(0, 1, 0, 14), .t = {T(0, 66, 66), T(1, 88, 8), T(3, 6, 3)},
	 .what = "t1 c0 seq 14: k66 at e6 (k28 in copy 0)"},
	{D(0, 1, 0, 15), .flags = ASK_F_LAST, .t = {T(0, 4, 7), T(2, 11, 11)},
	 .what = "t1 c0 seq 15 LAST: k11 at e6 (drained)"},
	{D(0, 1, 0, 12), .t = {T(0, 12, 12)}, .what = "t1 c0 seq 12 (next - W)"},
	{D(0, 1, 0, 11), .t = {T(1, 69, 69)}, .what = "t1 c0 seq 11 again (next - W - 1)"},
	{D(0, 2, 0, 2), .t = {T(3, 1, 100), T(8, 1610, 1)},
	 .what = "t2 c0 seq 2: slot 3 swapped, slot 8 drained"},
	{D(0, 2, 0, 2), .flags = ASK_F_RESEND, .t = {T(3, 1, 100), T(8, 1610, 1)},
	 .what = "t2 c0 seq 2 RESEND"},
	/* -- port 3, round 2: the receiver drains -- */
	{FE(3, 1, 10, 0, 1, 0, 116), .what = "FETCH t1 s0 c1 (active) from 0"},
	{FE(3, 1, 4, 0, 0, 0, 2), .what = "FETCH t1 s0 c0 from 0, 2: a late copy of seq 4"},
	{FE(3, 1, 11, 1, 0, 0, 116), .what = "FETCH t1 s1 c0 from 0"},
	{FE(3, 1, 12, 3, 0, 0, 116), .what = "FETCH t1 s3 c0 from 0"},
	{FE(3, 1, 13, 2, 0, 0, 116), .what = "FETCH t1 s2 c0 from 0"},
	{FE(3, 2, 10, 3, 1, 0, 70), .what = "FETCH t2 s3 c1 (active) from 0"},
	{FE(3, 2, 11, 3, 0, 0, 70), .what = "FETCH t2 s3 c0 from 0"},
	{SW(3, 1, 14, 0, 0), .what = "SWAP t1 slot 0 back to copy 0"},
};
/* clang-format on */

#define AK_NFRAMES (sizeof(ak_frames) / sizeof(ak_frames[0]))

static void ak_hdr_put(uint8_t *a, const struct ak_spec *s, uint8_t type, unsigned nslots,
                       unsigned kb)
{
	memset(a, 0, ASK_HDR_LEN);
	a[0] = type;
	a[1] = s->flags;
	put16(a + 2, s->task);
	put16(a + 4, s->ch);
	a[6] = (uint8_t)nslots;
	a[7] = (uint8_t)kb;
	put32(a + 8, s->seq);
}

/* The payload of a DATA or LONG packet from its ASK header on; returns its length. */
static uint32_t ak_data_payload(uint8_t *a, const struct ak_spec *s)
{
	const struct ak_task_cfg *t = ak_task(s->task);
	unsigned nslots = s->nslots ? s->nslots : t->nslots, kb = s->kb ? s->kb : t->key_bytes;
	uint32_t bitmap = 0, len = ASK_HDR_LEN;

	ak_hdr_put(a, s, ASK_DATA, nslots, kb);
	if (s->flags & ASK_F_LONG) {
		char words[128], *save = NULL;
		uint32_t v = 1;

		snprintf(words, sizeof(words), "%s", s->words);
		for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
			put16(a + len, (uint16_t)strlen(w));
			memcpy(a + len + 2, w, strlen(w));
			put32(a + len + 2 + strlen(w), v++);
			len += 2 + (uint32_t)strlen(w) + 4;
		}
		return len;
	}
	memset(a + len, 0, nslots * ask_rec_len(kb));
	for (unsigned i = 0; i < 4 && s->t[i].used; i++) {
		uint8_t *slot = a + len + s->t[i].slot * ask_rec_len(kb);

		ak_key(slot, kb, s->t[i].key);
		put32(slot + kb, (uint32_t)s->t[i].val);
		bitmap |= (uint32_t)s->t[i].valid << s->t[i].slot;
	}
	put32(a + 12, bitmap);
	len += nslots * ask_rec_len(kb);
	return s->mod == MOD_SHORT ? len - ask_rec_len(kb) : len;
}

/* A SWAP or FETCH from the receiver, or a reply-type packet the receiver sends to a host. */
static uint32_t ak_req_payload(uint8_t *a, const struct ak_spec *s)
{
	const struct ak_task_cfg *t = ak_task(s->task);
	uint8_t type = s->kind == AK_SWAP ? ASK_SWAP : s->kind == AK_FETCH ? ASK_FETCH : s->type;

	ak_hdr_put(a, s, type, t ? t->nslots : 4, t ? t->key_bytes : 8);
	if (s->kind != AK_TO)
		put32(a + 12, ASK_SEL(s->slot, s->copy));
	put32(a + 16, s->start);
	put32(a + 20, s->count);
	return ASK_HDR_LEN;
}

static void ak_mod(struct frame *f, enum ak_mod mod)
{
	uint8_t *ip = f->b + ETH_LEN;

	if (mod == MOD_IPOPT) {
		memmove(ip + IP4_LEN + 4, ip + IP4_LEN, f->len - ETH_LEN - IP4_LEN);
		put32(ip + IP4_LEN, 0x01010100); /* NOP NOP NOP EOL */
		ip[0] = 0x46;
		put16(ip + 2, (uint16_t)(get16(ip + 2) + 4));
		f->len += 4;
	} else if (mod == MOD_FRAG) {
		put16(ip + 6, 0x2000);
	} else {
		return;
	}
	ip_csum_set(ip);
}

/* Addresses of an ASK packet: who sends it to whom, from and to which UDP ports. */
static void ak_addr(const struct ak_spec *s, struct udp4 *u, unsigned *from, unsigned *to)
{
	const struct ak_task_cfg *t = ak_task(s->task);

	*from = s->from ? s->from : s->port == AK_RX_PORT ? AK_RX_HOST : s->port + 1u;
	switch (s->kind) {
	case AK_DATA:
		*to = s->to ? s->to : AK_RX_HOST;
		u->sport = (uint16_t)(AK_SND_PORT + *from);
		u->dport = s->dport ? s->dport : ASK_UDP_PORT;
		u->id = (uint16_t)(s->task << 12 | s->ch << 8 | (s->seq & 0xff));
		break;
	case AK_SWAP:
	case AK_FETCH:
		*to = AK_ASK;
		u->sport = AK_REQ_PORT;
		u->dport = ASK_UDP_PORT;
		u->id = (uint16_t)(0x8000 | s->kind << 12 | s->task << 8 | (s->seq & 0xff));
		break;
	default:
		*to = s->to;
		u->sport = t->udp_port;
		u->dport = s->dport ? s->dport : (uint16_t)(AK_SND_PORT + *to);
		u->id = (uint16_t)(0x4000 | s->task << 8 | (s->seq & 0xff));
		break;
	}
}

static void ak_build(struct frame *f, const struct ak_spec *s, unsigned idx)
{
	uint8_t dst[6], src[6], pay[ASK_HDR_LEN + ASK_SLOTS_MAX * 20];
	struct udp4 u = {.dst = dst, .src = src, .seed = idx, .prefix = pay};
	unsigned from, to;

	if (s->kind == AK_ARP || s->kind == AK_UDP) {
		from = s->port == AK_RX_PORT ? AK_RX_HOST : s->port + 1u;
		host_mac(src, from);
		host_mac(dst, s->to);
		if (s->kind == AK_ARP) {
			memset(dst, 0xff, 6);
			build_arp(f, dst, src, host_ip(from), host_ip(s->to), false);
			return;
		}
		u.ip_src = host_ip(from);
		u.ip_dst = host_ip(s->to);
		u.sport = (uint16_t)(10000 + idx);
		u.dport = 5000;
		u.id = (uint16_t)idx;
		build_udp4(f, 100, &u);
		return;
	}
	ak_addr(s, &u, &from, &to);
	host_mac(src, from);
	host_mac(dst, to);
	u.ip_src = host_ip(from);
	u.ip_dst = host_ip(to);
	u.prefix_len = s->kind == AK_DATA ? ak_data_payload(pay, s) : ak_req_payload(pay, s);
	/* MOD_EXTRA: filler after the header */
	build_udp4(f, ASK_HDR_OFF + (uint32_t)u.prefix_len + (s->mod == MOD_EXTRA ? 20 : 0), &u);
	ak_mod(f, (enum ak_mod)s->mod);
}

/* Every tuple of the table in its key's subspace, as a sender must put it (docs/ask.md). */
static int ak_check(void)
{
	uint8_t k[16];

	for (unsigned i = 0; i < AK_NFRAMES; i++) {
		const struct ak_spec *s = &ak_frames[i];
		const struct ak_task_cfg *t = ak_task(s->task);

		if (s->kind != AK_DATA || t == NULL || s->nslots || s->kb)
			continue;
		for (unsigned j = 0; j < 4 && s->t[j].used; j++) {
			ak_key(k, t->key_bytes, s->t[j].key);
			if (ask_key_slot(k, t->key_bytes, t->nslots) == s->t[j].slot)
				continue;
			fprintf(stderr, "%s ask: frame %u: key %u is not in slot %u\n", prog, i,
			        s->t[j].key, s->t[j].slot);
			return -1;
		}
	}
	return 0;
}

/* ---- Running the scenario -------------------------------------------------------------- */

struct ak_ctx {
	struct ak_model m;
	struct scenario_out o;
};

static unsigned ak_port_of(unsigned idx)
{
	return ak_frames[idx].port;
}

static void ak_build_idx(struct frame *f, unsigned idx)
{
	ak_build(f, &ak_frames[idx], idx);
}

static void ak_process(void *model, const struct frame *f, unsigned idx, unsigned port,
                       unsigned round, FILE *manifest)
{
	struct ak_ctx *c = model;

	ak_expect(&c->m, f, port, &c->o);
	scenario_report(manifest, ak_frames[idx].port, idx, round, f, ak_frames[idx].what, 48,
	                &c->o);
}

static int ak_write_config(const char *dir)
{
	char path[4096], text[4096], mac[18], ip[16];
	size_t n;

	mac_str(mac, ak_hosts[AK_NHOSTS - 1].mac); /* the receiver */
	ip_str(ip, host_ip(AK_RX_HOST));
	n = (size_t)snprintf(text, sizeof(text),
	                     "# ask golden scenario: the switch's start-up commands.\n"
	                     "# Written by `pcapgen ask`; do not edit, regenerate "
	                     "(pcaps/README.md).\n"
	                     "pipeline enable ask\n"
	                     "ask config set ip 10.0.0.254\n");
	for (unsigned i = 0; i < AK_TASKS; i++) {
		const struct ak_task_cfg *t = &ak_tasks[i];

		n += (size_t)snprintf(text + n, sizeof(text) - n,
		                      "ask task add %u receiver %s,%s,%u,%u channels %u window %u "
		                      "slots %u key-bytes %u op %s aa-size %u senders ",
		                      t->id, mac, ip, t->udp_port, AK_RX_PORT, t->channels,
		                      t->window, t->nslots, t->key_bytes, ak_op_name[t->op],
		                      t->aa_size);
		for (unsigned p = 0, first = 1; p < AK_PORTS; p++)
			if ((t->senders >> p) & 1) {
				n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%u",
				                      first ? "" : ",", p);
				first = 0;
			}
		n += (size_t)snprintf(text + n, sizeof(text) - n, "\n");
	}
	for (unsigned h = 0; h < AK_NHOSTS; h++) {
		mac_str(mac, ak_hosts[h].mac);
		n += (size_t)snprintf(text + n, sizeof(text) - n, "l2 add %s %u\n", mac,
		                      ak_hosts[h].port);
	}
	snprintf(path, sizeof(path), "%s/config", dir);
	return write_text(path, text);
}

int cmd_ask(int argc, char **argv)
{
	static const struct scenario scen = {
	        .name = "ask",
	        .nports = AK_PORTS,
	        .nframes = AK_NFRAMES,
	        .port_of = ak_port_of,
	        .build = ak_build_idx,
	        .process = ak_process,
	        .write_config = ak_write_config,
	};
	char header[1024];

	if (argc != 1 || strncmp(argv[0], "--", 2) == 0) {
		fprintf(stderr, "usage: %s ask DIR\n", prog);
		return 2;
	}
	if (ak_check() != 0)
		return 1;
	struct ak_ctx *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return 1;
	ak_model_init(&c->m);
	snprintf(
	        header, sizeof(header),
	        "# Input frames of the ask golden scenario in the order the switch processes them "
	        "(one worker, --burst %u),\n# what each must do and where its outputs go. Written "
	        "by `pcapgen ask`; do not edit.\n# Senders 1..3 (02:00:00:00:00:0N, 10.0.0.N) "
	        "behind ports 0..2; the receiver (..:09, 10.0.0.9) behind port 3.\n# t1: 4 slots "
	        "of 8-byte keys, add, W 4, AA 8; t2: 10 slots of 16-byte keys, max, W 8, AA 2048.\n"
	        "# sJ: slot J; cC eE: copy C, entry E of AA_J; values signed. ASK address "
	        "10.0.0.254 / 02:00:00:00:a5:a5.\n",
	        GOLDEN_BURST);
	int rc = scenario_write(&scen, argv[0], c, header);
	free(c);
	return rc;
}
