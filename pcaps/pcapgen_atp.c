/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapgen atp: the ATP golden scenario (pcaps/atp/), pcapgen atp-ports (one port per host),
 * pcapgen atp-region (app 1 given a region of its own by the config: the change's edge cases,
 * docs/memory.md), and pcapgen atp-bench: ATP traffic that keeps aggregating when replayed in a
 * loop (bench/run.sh).
 *
 * The expected outputs come from a model of the pipeline's documented behaviour (ATP's p4ml.p4,
 * flattened to one pass as specified for inswitch in docs/atp.md and pcaps/README.md), written
 * here without looking at the switch's code. Only the wire format is
 * shared with the switch (atp_proto.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapgen.h"
#include "../pipelines/atp/atp_proto.h"

#define AT_PORTS  4
#define AT_APPS   2
#define AT_POOL   1000 /* `atp pool resize`: agtr 1000 is the first one out of range */
#define AT_TENSOR 1024000u
#define AT_RAIL   2147483647 /* a stored element is updated only strictly inside +-AT_RAIL */
#define AT_TAG                                                                          \
	0x1234u        /* the tensor (the key's low half) of every frame but those that \
	                * say otherwise */
#define AT_CELLS 2048u /* the aggregators the model keeps: the pool and app 1's region */
/* atp-region: app 1's region, asked for by the config after the apps are added. */
#define AR_BASE 1000u
#define AR_SIZE 8u

/* The apps, indexed 1..2 in the scenario tables (= their appID). */
struct at_app_cfg {
	unsigned id;
	unsigned workers;
	unsigned nports;
	unsigned ports[4];  /* as listed in the config */
	int ps[ATP_PS_MAX]; /* the port of PSIndex i, -1: none */
};

/* clang-format off */
static const struct at_app_cfg at_app_cfg[AT_APPS + 1] = {
	[1] = {1, 3, 3, {0, 1, 2}, {3, -1, -1, -1}},
	[2] = {2, 2, 3, {2, 0, 2}, {1, 3, -1, -1}},
};
/* clang-format on */

/* Hosts for non-ATP traffic: MAC 02:00:00:00:00:0N, IPv4 10.0.0.N, behind port at_host_port[N]. */
static const unsigned at_host_port[] = {[1] = 0, [2] = 1, [3] = 2, [4] = 3};
#define AT_NHOSTS 5
/* ATP's PS and worker MACs (05:.., 77:..) have the group bit set: l2 floods them. */
static const uint8_t at_ps0_mac[6] = {0x05, 0x04, 0x03, 0x02, 0x01, 0x00};

static void host_mac(uint8_t *mac, unsigned h)
{
	const uint8_t m[6] = {0x02, 0, 0, 0, 0, (uint8_t)h};

	memcpy(mac, m, 6);
}

/* ---- The model of the switch ----------------------------------------------------------- */

struct at_agtr {
	uint32_t owner; /* appID << 16 | seq; 0: free */
	uint32_t tag;   /* the tensor of the claim (the tensor check, docs/atp.md) */
	uint32_t bitmap;
	unsigned count;
	bool ecn;
	int32_t v[ATP_VALUES];
};

/* An app's region (docs/memory.md, ATP regions): gen 0, the shared range [0, AT_POOL). */
struct at_region {
	unsigned gen, base, size; /* the current region (gen >= 1) */
	unsigned obase, osize;    /* the old one while the change runs (osize 0: none) */
	bool claim_old;           /* "moving": claims in the old one too */
};

struct at_model {
	struct at_agtr agtr[AT_CELLS];
	struct at_region reg[AT_APPS + 1];
};

/* The region note an app with a region puts in its results and ANNOUNCEs. */
static void at_note(const struct at_region *g, uint8_t *r)
{
	r[39] |= ATP_F_DATAINDEX;
	put16(r + ATP_OFF_HDR, (uint16_t)g->base);
	put16(r + ATP_OFF_HDR + 2, (uint16_t)g->size);
	put16(r + 46, (uint16_t)g->gen);
}

static uint32_t at_tag(const uint8_t *b)
{
	return (uint32_t)b[ATP_OFF_KEY] | (uint32_t)b[ATP_OFF_KEY + 1] << 8 |
	       (uint32_t)b[ATP_OFF_KEY + 2] << 16 | (uint32_t)b[ATP_OFF_KEY + 3] << 24;
}

/* The l2 table of the scenario's config: hosts 1..4 behind at_host_port[]. */
static const struct scenario_host at_hosts[] = {
        {{0x02, 0, 0, 0, 0, 1}, 0},
        {{0x02, 0, 0, 0, 0, 2}, 1},
        {{0x02, 0, 0, 0, 0, 3}, 2},
        {{0x02, 0, 0, 0, 0, 4}, 3},
};

static int32_t value(const uint8_t *b, unsigned j)
{
	return (int32_t)get32(b + ATP_OFF_VALUES + 4 * j);
}

static void put_values(uint8_t *b, const int32_t *v)
{
	unsigned j;

	for (j = 0; j < ATP_VALUES; j++)
		put32(b + ATP_OFF_VALUES + 4 * j, (uint32_t)v[j]);
}

/* stored ⊕= the frame's values: saturating, and an element at (or beyond) a rail stays there. */
static void at_add(int32_t *s, const uint8_t *b)
{
	unsigned j;

	for (j = 0; j < ATP_VALUES; j++) {
		int64_t sum = (int64_t)s[j] + value(b, j);

		if (s[j] <= -AT_RAIL || s[j] >= AT_RAIL)
			continue;
		s[j] = sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : (int32_t)sum;
	}
}

static bool at_worker_port(const struct at_app_cfg *a, unsigned in)
{
	unsigned i;

	for (i = 0; i < a->nports; i++)
		if (a->ports[i] == in)
			return true;
	return false;
}

/* An ACK from the PS: frees the aggregator it names, multicast unchanged to the worker ports
 * (an app with a region: with the region note; an ACK outside its regions frees nothing). */
static void at_ack(struct at_model *m, const struct at_app_cfg *a, const uint8_t *b, uint32_t len,
                   unsigned in, struct scenario_out *o, const char *pre)
{
	unsigned flag = b[39], psi = (flag & ATP_F_PSINDEX) >> ATP_PSINDEX_SHIFT, agtr, i, k;
	uint32_t key = get32(b + 40);
	const struct at_region *rg = &m->reg[a->id];
	const char *what = "no state (overflow)";
	uint8_t nb[ATP_FRAME_LEN + 64];

	if (a->ps[psi] != (int)in) {
		snprintf(o->why, sizeof(o->why), "%s: ACK not from PS%u's port: drop (atp-port)",
		         pre, psi);
		return;
	}
	if (rg->gen != 0 && len <= sizeof(nb)) {
		memcpy(nb, b, len);
		at_note(rg, nb);
		b = nb;
	}
	if (get16(b + 42) == 0) {
		what = "ANNOUNCE of the current job";
	} else if (!(flag & ATP_F_OVERFLOW) || (flag & ATP_F_RESEND)) {
		agtr = get16(b + 44);
		if (agtr >= (rg->gen ? AT_CELLS : AT_POOL)) {
			snprintf(o->why, sizeof(o->why), "%s: ACK: drop (atp-agtr)", pre);
			return;
		}
		if (rg->gen != 0 && !(agtr - rg->base < rg->size) &&
		    !(agtr - rg->obase < rg->osize)) {
			what = "outside the app's regions: nothing freed";
		} else if (m->agtr[agtr].owner == key) {
			struct at_agtr *g = &m->agtr[agtr];

			g->owner = g->bitmap = 0;
			g->count = 0;
			g->ecn = false;
			what = "owner: freed";
		} else {
			what = m->agtr[agtr].owner ? "held by another key: kept" : "free already";
		}
	}
	for (i = 0; i < a->nports; i++) {
		for (k = 0; k < i && a->ports[k] != a->ports[i]; k++)
			;
		if (k == i)
			scenario_out_add(o, a->ports[i], b, len);
	}
	snprintf(o->why, sizeof(o->why), "%s: ACK, %s: multicast %s to the workers", pre, what,
	         rg->gen ? "with the region note" : "unchanged");
}

/* Resend: flushes a partial aggregate to the PS, or passes a stranger's resend on. */
static void at_resend(struct at_agtr *g, uint8_t *r, uint32_t key, uint32_t w, bool ecn_in,
                      char *what, size_t n)
{
	uint32_t old = g->bitmap;

	if (g->owner != key) {
		snprintf(what, n, "resend, not the owner: unchanged");
		return;
	}
	if (g->tag != at_tag(r)) {
		g->owner = g->bitmap = 0;
		g->count = 0;
		g->ecn = false;
		snprintf(what, n, "resend, the owner's seq of another tensor: released, unchanged");
		return;
	}
	g->owner = g->bitmap = 0;
	g->count = 0;
	if (g->ecn)
		r[39] |= ATP_F_ECN;
	g->ecn |= ecn_in;
	if (w & ~old)
		at_add(g->v, r);
	put_values(r, g->v);
	put32(r + ATP_OFF_HDR, old | w);
	snprintf(what, n, "resend of the owner, %s: released, stored values out (v0 %d)",
	         w & ~old ? "new: added" : "included already", g->v[0]);
}

/* Normal: claim or join; returns false when the frame is consumed or dropped. */
static bool at_normal(struct at_agtr *g, uint8_t *r, uint32_t key, uint32_t w, bool ecn_in,
                      char *what, size_t n)
{
	uint32_t old = g->bitmap;
	unsigned nw = r[38];
	bool claim = g->owner == 0;

	if (g->owner != 0 && g->owner != key) {
		r[39] |= ATP_F_COLLISION;
		snprintf(what, n, "held by %u:%u: collision, raw values", g->owner >> 16,
		         g->owner & 0xffff);
		return true;
	}
	if (g->owner == key && g->tag != at_tag(r)) {
		/* the tensor check: another tensor's aggregation of this seq, taken over */
		unsigned j;

		g->bitmap = w;
		g->count = 1;
		g->ecn = ecn_in;
		for (j = 0; j < ATP_VALUES; j++)
			g->v[j] = value(r, j);
		g->tag = at_tag(r);
		if (nw != 1) {
			snprintf(what, n,
			         "another tensor's seq held it: taken over, count 1 of %u: "
			         "consumed",
			         nw);
			return false;
		}
		put32(r + ATP_OFF_HDR, w);
		snprintf(what, n, "another tensor's seq held it: taken over, complete");
		return true;
	}
	g->tag = at_tag(r);
	g->owner = key;
	g->bitmap |= w;
	if (g->ecn)
		r[39] |= ATP_F_ECN;
	g->ecn |= ecn_in;
	if (w & ~old) {
		g->count++;
		if (old == 0) {
			unsigned j;

			for (j = 0; j < ATP_VALUES; j++)
				g->v[j] = value(r, j);
		} else {
			at_add(g->v, r);
		}
		if (g->count != nw) {
			snprintf(what, n, "%s, count %u of %u: consumed",
			         claim ? "claimed" : "added", g->count, nw);
			return false;
		}
		put_values(r, g->v);
		put32(r + ATP_OFF_HDR, old | w);
		snprintf(what, n, "%s, count %u: complete (v0 %d v61 %d)",
		         claim ? "claimed" : "added", g->count, g->v[0], g->v[ATP_VALUES - 1]);
		return true;
	}
	if (g->count != nw) {
		snprintf(what, n, "duplicate, count %u of %u: drop (atp-dup)", g->count, nw);
		return false;
	}
	put_values(r, g->v);
	put32(r + ATP_OFF_HDR, g->bitmap);
	snprintf(what, n, "duplicate of a complete aggregate: stored values again (v0 %d)",
	         g->v[0]);
	return true;
}

static void at_atp(struct at_model *m, const uint8_t *b, uint32_t len, unsigned in,
                   struct scenario_out *o)
{
	unsigned app = get16(b + 40), seq = get16(b + 42), agtr = get16(b + 44), flag = b[39];
	unsigned psi = (flag & ATP_F_PSINDEX) >> ATP_PSINDEX_SHIFT;
	uint32_t key = get32(b + 40), w = get32(b + ATP_OFF_HDR);
	bool ecn_in = (b[ATP_OFF_TOS] & 3) == 3 || (flag & ATP_F_ECN);
	const struct at_app_cfg *a;
	uint8_t *r = o->f[0].b;
	char pre[64], what[160];
	bool out;

	if (len < ATP_FRAME_LEN) {
		snprintf(o->why, sizeof(o->why), "ATP, %u B: drop (malformed)", len);
		return;
	}
	snprintf(pre, sizeof(pre), "app %u seq %u agtr %u", app, seq, agtr);
	a = app >= 1 && app <= AT_APPS ? &at_app_cfg[app] : NULL;
	if (a == NULL) {
		snprintf(o->why, sizeof(o->why), "%s: no such app: drop (atp-app)", pre);
		return;
	}
	if (flag & ATP_F_ACK) {
		at_ack(m, a, b, len, in, o, pre);
		return;
	}
	if (!at_worker_port(a, in)) {
		snprintf(o->why, sizeof(o->why), "%s: not from a worker port: drop (atp-port)",
		         pre);
		return;
	}
	if (a->ps[psi] < 0) {
		snprintf(o->why, sizeof(o->why), "%s: no PS%u: drop (atp-no-ps)", pre, psi);
		return;
	}
	memcpy(r, b, len);
	r[39] |= ATP_F_DATAINDEX;
	const struct at_region *g = &m->reg[app];
	bool cur = agtr - g->base < g->size, old = !cur && agtr - g->obase < g->osize;
	if (seq == 0) {
		snprintf(what, sizeof(what), "JOIN: unchanged");
		out = true;
	} else if (flag & ATP_F_OVERFLOW) {
		snprintf(what, sizeof(what), "overflow: unchanged, no state");
		out = true;
	} else if (agtr >= (g->gen ? AT_CELLS : AT_POOL)) {
		snprintf(o->why, sizeof(o->why), "%s: beyond the pool: drop (atp-agtr)", pre);
		return;
	} else if (g->gen != 0 && !cur && !(old && (g->claim_old || (flag & ATP_F_RESEND)))) {
		snprintf(what, sizeof(what), "outside the app's region: unchanged, no state");
		out = true;
	} else if (flag & ATP_F_RESEND) {
		at_resend(&m->agtr[agtr], r, key, w, ecn_in, what, sizeof(what));
		out = true;
	} else {
		out = at_normal(&m->agtr[agtr], r, key, w, ecn_in, what, sizeof(what));
	}
	if (out) {
		o->f[0].len = len;
		o->port[0] = (unsigned)a->ps[psi];
		o->n = 1;
		snprintf(o->why, sizeof(o->why), "%s: %s: to PS%u (flag 0x%02x, bitmap 0x%x)", pre,
		         what, psi, r[39], get32(r + ATP_OFF_HDR));
	} else {
		snprintf(o->why, sizeof(o->why), "%s: %s", pre, what);
	}
}

static void at_expect(struct at_model *m, const struct frame *f, unsigned in,
                      struct scenario_out *o)
{
	o->n = 0;
	o->why[0] = '\0';
	if (f->len >= ETH_LEN && get16(f->b + 12) == ATP_ETHERTYPE)
		at_atp(m, f->b, f->len, in, o);
	else
		scenario_l2(f->b, f->len, in, AT_PORTS, at_hosts, 4, "", o);
}

/* ---- The scenario's input frames ------------------------------------------------------- */

enum at_kind { AK_DATA, AK_ACK, AK_UDP, AK_ARP };

/* Value patterns: element j of the frame. */
enum at_pat { VP_LIN, VP_SAT0, VP_SAT1, VP_SAT2 };

/* clang-format off */
/* Saturation: per element, what three workers send. Elements 8.. are base + j * step. */
static const int32_t at_sat[3][8] = {
	{INT32_MAX - 1, INT32_MIN + 2, INT32_MIN + 1, INT32_MAX - 1, 1000, INT32_MIN, INT32_MAX,
	 -2147483646},
	{5, -5, 1, 1, INT32_MAX, 7, -7, -1},
	{-10, 10, 5, -1, -5, 100, -100, 3},
};
/* clang-format on */

struct at_spec {
	uint8_t port, kind;
	uint16_t app, seq, agtr;
	uint8_t wid;  /* worker id: bitmap 1 << wid (an ACK's bitmap is 1) */
	uint8_t nw;   /* num_worker; 0: the app's */
	uint8_t flag; /* the flag byte (with the PSIndex bits) */
	uint8_t tos;  /* byte 15 (ECN in its two low bits) */
	uint8_t pat;  /* enum at_pat */
	int32_t base; /* VP_LIN: element j = base + j * step, 32-bit wrap-around */
	int32_t step;
	uint16_t len;  /* frame length when nonzero: truncates, or pads with filler */
	uint8_t vlan;  /* 802.1Q tag after the MACs */
	uint32_t lent; /* len_tensor when nonzero */
	uint8_t dst;   /* AK_UDP: destination host */
	uint32_t tag;  /* the tensor, the key's low half (0: AT_TAG) */
	const char *what;
};

/* clang-format off */
#define W(p, a, s, g, id) .port = p, .kind = AK_DATA, .app = a, .seq = s, .agtr = g, .wid = id
#define ACK(p, a, s, g)   .port = p, .kind = AK_ACK, .app = a, .seq = s, .agtr = g
#define PSI(i)            ((i) << 5)

/*
 * In processing order (one worker, --burst 32): port 0's first 32 frames, then ports 1, 2 and 3
 * (fewer than 32 each), then the rest of port 0. pcapgen checks that this order is the one the
 * order model gives. App 1: 3 workers behind ports 0 1 2, PS0 on port 3. App 2: 2 workers behind
 * ports 2 0 (listed 2,0,2), PS0 on port 1, PS1 on port 3. Pool: 1000 aggregators.
 */
static const struct at_spec at_frames[] = {
	/* -- port 0, round 1 -- */
	/* app 1 agtr 10: claim, new, duplicate (incomplete), complete, duplicate (complete) */
	{W(0, 1, 1, 10, 0), .base = 1, .step = 1, .what = "a1 seq 1 agtr 10 from w0: 1+j"},
	{W(0, 1, 1, 10, 1), .base = 0, .step = 100, .what = "a1 seq 1 agtr 10 from w1: 100j"},
	{W(0, 1, 1, 10, 1), .base = 0, .step = 100, .what = "a1 seq 1 agtr 10 from w1 again"},
	{W(0, 1, 1, 10, 2), .base = 0, .step = -1, .what = "a1 seq 1 agtr 10 from w2: -j"},
	{W(0, 1, 1, 10, 0), .base = 7, .what = "a1 seq 1 agtr 10 from w0 again, values 7"},
	/* collisions on agtr 10: another seq of app 1, and app 2 */
	{W(0, 1, 2, 10, 0), .base = 2, .step = 2, .what = "a1 seq 2 agtr 10 from w0: 2+2j"},
	{W(0, 2, 1, 10, 1), .base = 3, .flag = PSI(1), .what = "a2 seq 1 agtr 10 from w1, PS1"},
	/* resend of the owner (new), then a claim that inherits the ECN register */
	{W(0, 1, 3, 11, 0), .tos = 3, .base = 10, .step = 1,
	 .what = "a1 seq 3 agtr 11 from w0, IP ECN 11: 10+j"},
	{W(0, 1, 3, 11, 1), .flag = ATP_F_RESEND, .base = 20, .step = 1,
	 .what = "a1 seq 3 agtr 11 from w1, resend: 20+j"},
	{W(0, 1, 3, 11, 2), .base = 30, .step = -3, .what = "a1 seq 3 agtr 11 from w2: 30-3j"},
	{W(0, 1, 3, 11, 2), .flag = ATP_F_RESEND, .base = 0,
	 .what = "a1 seq 3 agtr 11 from w2, resend, values 0"},
	/* resends that do not own */
	{W(0, 1, 4, 12, 0), .flag = ATP_F_RESEND, .base = 4, .what = "a1 seq 4 agtr 12 (free), resend"},
	{W(0, 1, 5, 10, 0), .flag = ATP_F_RESEND | ATP_F_ECN, .base = 5,
	 .what = "a1 seq 5 agtr 10 (held), resend, ECN flag"},
	/* overflow frames touch nothing */
	{W(0, 1, 6, 20, 0), .base = 5, .step = 5, .what = "a1 seq 6 agtr 20 from w0: 5+5j"},
	{W(0, 1, 6, 20, 1), .flag = ATP_F_OVERFLOW, .base = 0x3f800000,
	 .what = "a1 seq 6 agtr 20 from w1, overflow (float 1.0)"},
	{W(0, 1, 6, 65535, 1), .flag = ATP_F_OVERFLOW, .base = 0x40000000,
	 .what = "a1 seq 6 agtr 65535 from w1, overflow"},
	{W(0, 1, 6, 20, 1), .base = 1, .what = "a1 seq 6 agtr 20 from w1: 1"},
	{W(0, 1, 6, 20, 2), .base = 1000, .step = -1000, .what = "a1 seq 6 agtr 20 from w2"},
	/* num_worker is the frame's, not the app's */
	{W(0, 1, 7, 21, 0), .nw = 2, .base = 1, .what = "a1 seq 7 agtr 21 from w0, num_worker 2"},
	{W(0, 1, 7, 21, 2), .nw = 2, .base = 2, .what = "a1 seq 7 agtr 21 from w2, num_worker 2"},
	{W(0, 1, 7, 21, 1), .nw = 2, .base = 4, .what = "a1 seq 7 agtr 21 from w1, num_worker 2"},
	{W(0, 1, 7, 21, 1), .nw = 3, .base = 4,
	 .what = "a1 seq 7 agtr 21 from w1 again, num_worker 3"},
	/* saturation and sticky rails */
	{W(0, 1, 8, 30, 0), .pat = VP_SAT0, .base = INT32_MAX, .step = -2,
	 .what = "a1 seq 8 agtr 30 from w0: near the rails"},
	{W(0, 1, 8, 30, 1), .pat = VP_SAT1, .base = 1, .step = 1,
	 .what = "a1 seq 8 agtr 30 from w1: over them"},
	{W(0, 1, 8, 30, 2), .pat = VP_SAT2, .base = -1, .step = -1,
	 .what = "a1 seq 8 agtr 30 from w2: back"},
	/* ECN through the register */
	{W(0, 1, 9, 40, 0), .flag = ATP_F_ECN, .base = 1, .what = "a1 seq 9 agtr 40 from w0, ECN flag"},
	{W(0, 1, 9, 40, 1), .base = 1, .what = "a1 seq 9 agtr 40 from w1"},
	{W(0, 1, 9, 40, 2), .tos = 2, .base = 1, .what = "a1 seq 9 agtr 40 from w2, IP ECN 10"},
	{W(0, 1, 10, 41, 0), .tos = 1, .base = 9, .what = "a1 seq 10 agtr 41 from w0, IP ECN 01"},
	{W(0, 1, 10, 41, 1), .base = 9, .what = "a1 seq 10 agtr 41 from w1"},
	{W(0, 1, 10, 41, 2), .tos = 3, .base = 9, .what = "a1 seq 10 agtr 41 from w2, IP ECN 11"},
	{W(0, 1, 10, 41, 0), .base = 9, .what = "a1 seq 10 agtr 41 from w0 again"},
	/* -- port 1, round 1: app 1 workers, app 2's PS0 -- */
	{W(1, 1, 1, 10, 1), .base = 0, .step = 100, .what = "a1 seq 1 agtr 10 from w1, from port 1"},
	{W(1, 2, 2, 50, 0), .base = 1, .what = "a2 seq 2 agtr 50 from w0, from port 1 (its PS0)"},
	{W(1, 1, 11, 60, 0), .flag = PSI(1), .base = 1, .what = "a1 seq 11 agtr 60, PS1 (none)"},
	{W(1, 1, 12, 1000, 0), .base = 1, .what = "a1 seq 12 agtr 1000 (pool 1000)"},
	{W(1, 1, 12, 1000, 0), .flag = ATP_F_RESEND, .base = 1,
	 .what = "a1 seq 12 agtr 1000, resend"},
	{W(1, 1, 13, 999, 0), .nw = 1, .base = -1, .step = -1,
	 .what = "a1 seq 13 agtr 999 from w0, num_worker 1"},
	{W(1, 3, 1, 10, 0), .base = 1, .what = "app 3 (none) seq 1 agtr 10"},
	{W(1, 0, 1, 10, 0), .base = 1, .what = "app 0 (none) seq 1 agtr 10"},
	{ACK(1, 1, 1, 10), .base = 3, .what = "ACK a1 seq 1 agtr 10 on port 1 (a2's PS0)"},
	{ACK(1, 2, 3, 52), .base = 5, .what = "ACK a2 seq 3 agtr 52, PS0 (port 1), before its data"},
	/* -- port 2, round 1: app 2 aggregates; malformed and non-ATP frames -- */
	{W(2, 2, 3, 52, 0), .base = 100, .step = 1, .what = "a2 seq 3 agtr 52 from w0, PS0"},
	{W(2, 2, 3, 52, 1), .base = -50, .step = 1, .what = "a2 seq 3 agtr 52 from w1, PS0"},
	{W(2, 2, 4, 50, 1), .flag = PSI(1), .base = 11, .what = "a2 seq 4 agtr 50 from w1, PS1"},
	{W(2, 2, 4, 50, 0), .flag = PSI(1), .base = 22, .what = "a2 seq 4 agtr 50 from w0, PS1"},
	{W(2, 2, 5, 51, 0), .flag = PSI(2), .base = 1, .what = "a2 seq 5 agtr 51, PS2 (none)"},
	{W(2, 1, 14, 998, 0), .nw = 1, .len = 312, .base = 42,
	 .what = "a1 seq 14 agtr 998 from w0, num_worker 1, 4 bytes more"},
	{W(2, 1, 15, 70, 0), .len = 307, .base = 1, .what = "a1 seq 15 agtr 70, one byte short"},
	{W(2, 1, 15, 70, 0), .len = 60, .what = "a1, 60 B"},
	{W(2, 1, 15, 70, 0), .len = 14, .what = "EtherType 0x0700, 14 B"},
	{W(2, 1, 15, 70, 0), .vlan = 1, .base = 1, .what = "a1 seq 15 agtr 70, 802.1Q tag"},
	{.port = 2, .kind = AK_UDP, .dst = 1, .len = 98, .what = "IPv4 UDP to host 1"},
	{.port = 2, .kind = AK_UDP, .len = 308, .what = "IPv4 UDP to PS MAC 05:04:03:02:01:00"},
	{.port = 2, .kind = AK_ARP, .what = "ARP who-has, broadcast"},
	/* -- port 3, round 1: the PS of app 1 and PS1 of app 2 -- */
	{ACK(3, 1, 1, 10), .base = 3, .what = "ACK a1 seq 1 agtr 10: owner"},
	{ACK(3, 1, 6, 20), .base = 6, .what = "ACK a1 seq 6 agtr 20: owner"},
	{ACK(3, 1, 99, 21), .base = 1, .what = "ACK a1 seq 99 agtr 21: not the owner (seq 7)"},
	{ACK(3, 2, 4, 50), .flag = PSI(1) | ATP_F_RESEND, .base = 33,
	 .what = "ACK a2 seq 4 agtr 50, PS1, resend: owner"},
	{ACK(3, 2, 3, 52), .base = 5, .what = "ACK a2 seq 3 agtr 52, PS0, on port 3"},
	{ACK(3, 1, 8, 30), .flag = ATP_F_OVERFLOW, .base = 8,
	 .what = "ACK a1 seq 8 agtr 30, overflow: owner"},
	{ACK(3, 1, 9, 40), .flag = ATP_F_OVERFLOW | ATP_F_RESEND | ATP_F_ECN, .base = 3,
	 .what = "ACK a1 seq 9 agtr 40, overflow resend ECN: owner"},
	{ACK(3, 1, 10, 41), .flag = ATP_F_ECN | ATP_F_DATAINDEX, .base = 27,
	 .what = "ACK a1 seq 10 agtr 41, ECN, dataIndex: owner"},
	{ACK(3, 1, 2, 10), .flag = ATP_F_COLLISION, .lent = 77, .base = 2,
	 .what = "ACK a1 seq 2 agtr 10, collision, new agtr 77"},
	{ACK(3, 1, 16, 1000), .base = 1, .what = "ACK a1 seq 16 agtr 1000"},
	{ACK(3, 3, 1, 10), .base = 1, .what = "ACK app 3 (none)"},
	{ACK(3, 1, 3, 11), .len = 307, .what = "ACK a1, one byte short"},
	/* -- port 0, round 2: after the ACKs -- */
	{W(0, 1, 2, 10, 2), .base = 1, .step = 1, .what = "a1 seq 2 agtr 10 (freed) from w2: 1+j"},
	{W(0, 1, 2, 10, 0), .base = 2, .step = 2, .what = "a1 seq 2 agtr 10 from w0: 2+2j"},
	{W(0, 1, 2, 10, 1), .base = 3, .step = 3, .what = "a1 seq 2 agtr 10 from w1: 3+3j"},
	{W(0, 1, 1, 10, 0), .base = 1, .step = 1, .what = "a1 seq 1 agtr 10 from w0, late"},
	{W(0, 1, 8, 30, 1), .pat = VP_SAT1, .base = 1, .step = 1,
	 .what = "a1 seq 8 agtr 30 from w1 again (not freed)"},
	{W(0, 1, 8, 30, 2), .flag = ATP_F_RESEND, .tos = 3, .base = 5,
	 .what = "a1 seq 8 agtr 30 from w2, resend, IP ECN 11 (complete)"},
	{W(0, 1, 8, 30, 0), .nw = 1, .pat = VP_SAT0, .base = INT32_MAX, .step = -2,
	 .what = "a1 seq 8 agtr 30 (released) from w0, num_worker 1"},
	{W(0, 1, 17, 40, 0), .nw = 1, .base = 17,
	 .what = "a1 seq 17 agtr 40 (freed) from w0, num_worker 1"},
	{W(0, 1, 18, 41, 1), .nw = 1, .base = 18,
	 .what = "a1 seq 18 agtr 41 (freed) from w1, num_worker 1"},
	{W(0, 1, 19, 11, 2), .nw = 1, .base = 19,
	 .what = "a1 seq 19 agtr 11 (released by a resend) from w2, num_worker 1"},
	{W(0, 1, 20, 21, 0), .base = 20, .what = "a1 seq 20 agtr 21 (kept) from w0"},
	{W(0, 2, 6, 50, 1), .flag = PSI(1), .base = 6, .what = "a2 seq 6 agtr 50 (freed) from w1"},
	{W(0, 2, 6, 50, 0), .flag = PSI(1) | ATP_F_RESEND, .base = 60, .step = 1,
	 .what = "a2 seq 6 agtr 50 from w0, resend"},
	{W(0, 2, 3, 52, 0), .base = 100, .step = 1,
	 .what = "a2 seq 3 agtr 52 (kept) from w0 again"},
};
/* clang-format on */

#define AT_NFRAMES (sizeof(at_frames) / sizeof(at_frames[0]))

/*
 * atp-ports: every worker and PS on its own port, frames in the order they would meet on the
 * wire: `inswitch --replay-ordered` takes them one at a time in this order (their capture
 * timestamps), whatever their ports. The same apps as atp. What depends on that order: a PS
 * ACK on port 3 between a completion and the aggregator's next claim from port 0, an ACK that
 * ends an unfinished aggregation, and the second round of the same aggregator.
 */
/* clang-format off */
static const struct at_spec at_frames_ports[] = {
	{W(0, 1, 1, 10, 0), .base = 1, .step = 1, .what = "a1 seq 1 agtr 10 from w0 (port 0)"},
	{W(1, 1, 1, 10, 1), .base = 0, .step = 100, .what = "a1 seq 1 agtr 10 from w1 (port 1)"},
	{W(2, 1, 1, 10, 2), .base = 0, .step = -1, .what = "a1 seq 1 agtr 10 from w2 (port 2)"},
	{W(0, 1, 2, 10, 0), .base = 2, .what = "a1 seq 2 agtr 10 from w0, before the ACK"},
	{ACK(3, 1, 1, 10), .base = 3, .what = "ACK a1 seq 1 agtr 10 from the PS (port 3)"},
	{W(0, 1, 2, 10, 0), .flag = ATP_F_RESEND, .base = 2,
	 .what = "a1 seq 2 agtr 10 from w0, resent after the ACK"},
	{W(0, 1, 2, 10, 0), .base = 2, .what = "a1 seq 2 agtr 10 from w0 after the ACK"},
	{W(1, 1, 2, 10, 1), .base = 5, .what = "a1 seq 2 agtr 10 from w1"},
	{W(2, 1, 2, 10, 2), .base = 7, .what = "a1 seq 2 agtr 10 from w2"},
	{ACK(3, 1, 2, 10), .base = 14, .what = "ACK a1 seq 2 agtr 10 from the PS"},
	{W(2, 2, 1, 50, 0), .base = 1, .step = 1, .what = "a2 seq 1 agtr 50 from w0 (port 2)"},
	{ACK(1, 2, 1, 50), .base = 9, .what = "ACK a2 seq 1 agtr 50 from its PS0 (port 1), early"},
	{W(0, 2, 1, 50, 1), .base = 10, .what = "a2 seq 1 agtr 50 from w1 (port 0)"},
	{W(2, 2, 1, 50, 0), .base = 1, .step = 1, .what = "a2 seq 1 agtr 50 from w0 again"},
	{ACK(1, 2, 1, 50), .base = 11, .what = "ACK a2 seq 1 agtr 50 from its PS0"},
	{W(3, 1, 3, 11, 0), .base = 1, .what = "a1 seq 3 agtr 11 from the PS port"},
	{ACK(0, 1, 3, 11), .base = 1, .what = "ACK a1 seq 3 agtr 11 on a worker port"},
	{W(1, 1, 2, 10, 1), .flag = ATP_F_RESEND, .base = 5,
	 .what = "a1 seq 2 agtr 10 from w1, resent after its ACK"},
	{.port = 2, .kind = AK_UDP, .dst = 1, .len = 98, .what = "IPv4 UDP to host 1 (port 0)"},
};
/* clang-format on */
#define AT_NFRAMES_PORTS (sizeof(at_frames_ports) / sizeof(at_frames_ports[0]))

#define JOIN(p, a, id) .port = p, .kind = AK_DATA, .app = a, .seq = 0, .agtr = 0, .wid = id

/*
 * atp-region: the apps of atp, one port per host (as atp-ports), frames in wire order
 * (--replay-ordered); the config gives app 1 a region of its own, aggregators 1000..1007, so the
 * frames meet a change under way ("moving": claims in the new region and, as the workers have
 * not all moved, in the shared range the app leaves). Worker 2 never claims in the new region,
 * so the change stays in that phase for the whole replay. The edge cases: a window in flight in
 * the old range completes there; results carry the region; a seq whose workers are in different
 * regions completes through resends (loss); a frame outside both regions and its ACK touch
 * nothing; an ANNOUNCE tells a late worker the region; app 2 (never changed) reaches neither the
 * region nor sees a note; a late frame's claim is kept out of the next tensor (tensor check).
 */
static const struct at_spec ar_frames[] = {
        {W(0, 1, 1, 5, 0), .base = 1, .what = "a1 seq 1 agtr 5 (old range) from w0: 1"},
        {W(1, 1, 1, 5, 1), .base = 10, .what = "a1 seq 1 agtr 5 from w1: 10"},
        {W(2, 1, 1, 5, 2), .base = 100, .what = "a1 seq 1 agtr 5 from w2: 100: complete"},
        {ACK(3, 1, 1, 5), .base = 111, .what = "ACK a1 seq 1 agtr 5: frees, with the note"},
        {W(0, 1, 2, 1001, 0), .base = 2, .what = "a1 seq 2 agtr 1001 (new region) from w0"},
        {W(1, 1, 2, 1001, 1), .base = 3, .what = "a1 seq 2 agtr 1001 from w1"},
        {W(2, 1, 2, 6, 2), .base = 4, .what = "a1 seq 2 agtr 6 (old range) from w2, not moved"},
        {W(2, 1, 2, 6, 2), .flag = ATP_F_RESEND, .base = 4,
         .what = "a1 seq 2 agtr 6 from w2, resent: flushes its part"},
        {W(0, 1, 2, 1001, 0), .flag = ATP_F_RESEND, .base = 2,
         .what = "a1 seq 2 agtr 1001 from w0, resent: flushes w0 + w1"},
        {ACK(3, 1, 2, 1001), .base = 9, .what = "ACK a1 seq 2 agtr 1001 (the PS merged it)"},
        {W(0, 1, 3, 1500, 0), .base = 9, .what = "a1 seq 3 agtr 1500 (outside both) from w0"},
        {ACK(3, 1, 3, 1500), .base = 9, .what = "ACK a1 seq 3 agtr 1500: frees nothing"},
        {JOIN(2, 1, 2), .what = "a1 JOIN from w2 (a worker starting late)"},
        {ACK(3, 1, 0, 0), .what = "a1 ANNOUNCE of its job from the PS: with the note"},
        {W(2, 2, 1, 1002, 0), .what = "a2 seq 1 agtr 1002 (app 1's region) from w0"},
        {W(2, 2, 1, 7, 0), .base = 5, .what = "a2 seq 1 agtr 7 from w0"},
        {W(0, 2, 1, 7, 1), .base = 6, .what = "a2 seq 1 agtr 7 from w1: complete"},
        {ACK(1, 2, 1, 7), .base = 11, .what = "ACK a2 seq 1 agtr 7: app 2 has no region, no note"},
        {W(1, 1, 1, 5, 1), .base = 10, .what = "a1 seq 1 agtr 5 from w1, late (after its ACK)"},
        {W(0, 1, 1, 5, 0), .base = 20, .tag = 0x1235,
         .what = "a1 seq 1 agtr 5 from w0, next tensor: takes the stale claim over"},
        {W(1, 1, 1, 5, 1), .base = 30, .tag = 0x1235,
         .what = "a1 seq 1 agtr 5 from w1, next tensor"},
        {W(2, 1, 1, 5, 2), .base = 40, .tag = 0x1235,
         .what = "a1 seq 1 agtr 5 from w2, next tensor: complete, 90 (not 100)"},
        {W(1, 1, 4, 1002, 1), .base = 50, .tag = 0x1234,
         .what = "a1 seq 4 agtr 1002 from w1, late claim of tensor 0x1234"},
        {W(1, 1, 4, 1002, 1), .flag = ATP_F_RESEND, .base = 60, .tag = 0x1235,
         .what = "a1 seq 4 agtr 1002 from w1, tensor 0x1235, resent: releases, not flushed"},
};
#define AR_NFRAMES (sizeof(ar_frames) / sizeof(ar_frames[0]))

static int32_t at_value(const struct at_spec *s, unsigned j)
{
	if (s->pat != VP_LIN && j < 8)
		return at_sat[s->pat - VP_SAT0][j];
	return (int32_t)((uint32_t)s->base + j * (uint32_t)s->step);
}

/* The key field: 8 opaque bytes in host order (little-endian), the same for a tensor. */
static void put_key(uint8_t *p, uint64_t k)
{
	unsigned i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(k >> (8 * i));
}

/* The job of app's frames: the high half of their tensor key, named the app's current job by the
 * config ('atp app reset APP job J'), as the switch drops the frames of any other job. */
#define AT_JOB(app) (0x5a000000u | (unsigned)(app))

/* A 308-byte ATP frame as ATP's hosts build it: worker -> PS, or an ACK PS -> workers. */
static void at_build_atp(struct frame *f, bool ack, unsigned app, unsigned seq, unsigned agtr,
                         uint32_t bitmap, unsigned nw, unsigned flag)
{
	unsigned t = 20 * (app > 0 ? app - 1 : 0); /* thread 0 of the app */
	uint8_t dst[6];

	memset(f->b, 0, ATP_FRAME_LEN);
	memcpy(dst, ack ? atp_worker_mac_prefix : atp_ps_mac_prefix, 5);
	dst[5] = (uint8_t)t;
	eth_put(f->b, dst, atp_src_mac, ATP_ETHERTYPE);
	memcpy(f->b + ETH_LEN, atp_ip_template, IP4_LEN);
	put32(f->b + ATP_OFF_HDR, bitmap);
	f->b[38] = (uint8_t)nw;
	f->b[39] = (uint8_t)flag;
	put16(f->b + 40, (uint16_t)app);
	put16(f->b + 42, (uint16_t)seq);
	put16(f->b + 44, (uint16_t)agtr);
	put16(f->b + 46, (uint16_t)(agtr + ATP_AGTR_MAX));
	put_key(f->b + ATP_OFF_KEY, (uint64_t)AT_JOB(app) << 32 | AT_TAG);
	put32(f->b + ATP_OFF_LEN, AT_TENSOR);
	f->len = ATP_FRAME_LEN;
}

static void at_build(struct frame *f, const struct at_spec *s, unsigned idx)
{
	unsigned j, nw = s->nw;
	uint8_t dst[6], src[6];

	if (nw == 0 && s->app >= 1 && s->app <= AT_APPS)
		nw = at_app_cfg[s->app].workers;
	if (nw == 0)
		nw = 2;
	switch (s->kind) {
	case AK_DATA:
	case AK_ACK:
		at_build_atp(f, s->kind == AK_ACK, s->app, s->seq, s->agtr,
		             s->kind == AK_ACK ? 1u : 1u << s->wid, nw,
		             s->flag | (s->kind == AK_ACK ? ATP_F_ACK : 0));
		f->b[ATP_OFF_TOS] = s->tos;
		if (s->tag)
			put_key(f->b + ATP_OFF_KEY, (uint64_t)AT_JOB(s->app) << 32 | s->tag);
		for (j = 0; j < ATP_VALUES; j++)
			put32(f->b + ATP_OFF_VALUES + 4 * j, (uint32_t)at_value(s, j));
		if (s->lent)
			put32(f->b + ATP_OFF_LEN, s->lent);
		if (s->len > ATP_FRAME_LEN)
			fill(f->b + ATP_FRAME_LEN, s->len - ATP_FRAME_LEN, idx);
		if (s->len)
			f->len = s->len;
		if (s->vlan)
			add_vlan(f, 10);
		break;
	case AK_UDP: {
		struct udp4 u = {.dst = dst,
		                 .src = src,
		                 .ip_src = IP(10, 0, 0, 3),
		                 .ip_dst = IP(10, 0, 0, s->dst ? s->dst : 9),
		                 .sport = (uint16_t)(10000 + idx),
		                 .dport = 5000,
		                 .id = (uint16_t)idx,
		                 .seed = idx};

		if (s->dst)
			host_mac(dst, s->dst);
		else
			memcpy(dst, at_ps0_mac, 6);
		host_mac(src, 3);
		build_udp4(f, s->len, &u);
		break;
	}
	case AK_ARP:
		memset(dst, 0xff, 6);
		host_mac(src, 3);
		build_arp(f, dst, src, IP(10, 0, 0, 3), IP(10, 0, 0, 1), false);
		break;
	}
}

/* ---- Running the scenario -------------------------------------------------------------- */

/* The scenario's model: the switch state and the outputs of the frame being run. */
struct at_ctx {
	struct at_model m;
	struct scenario_out o;
};

/* The table of the scenario being written (at_frames or at_frames_ports). */
static const struct at_spec *at_table;

static unsigned at_port_of(unsigned idx)
{
	return at_table[idx].port;
}

static void at_build_idx(struct frame *f, unsigned idx)
{
	at_build(f, &at_table[idx], idx);
}

static void at_process(void *model, const struct frame *f, unsigned idx, unsigned port,
                       unsigned round, FILE *manifest)
{
	struct at_ctx *c = model;
	at_expect(&c->m, f, port, &c->o);
	scenario_report(manifest, port, idx, round, f, at_table[idx].what, 58, &c->o);
}

static int at_write_config(const char *dir)
{
	char path[4096], mac[18], text[4096];
	size_t n;
	unsigned a, i, h;

	const char *scen = at_table == ar_frames   ? "atp-region"
	                   : at_table == at_frames ? "atp"
	                                           : "atp-ports";
	n = (size_t)snprintf(text, sizeof(text),
	                     "# %s golden scenario: the switch's start-up commands.\n"
	                     "# Written by `pcapgen %s`; do not edit, regenerate "
	                     "(pcaps/README.md).\n"
	                     "pipeline enable atp\n"
	                     "atp pool resize %u\n",
	                     scen, scen, AT_POOL);
	for (a = 1; a <= AT_APPS; a++) {
		const struct at_app_cfg *c = &at_app_cfg[a];

		n += (size_t)snprintf(text + n, sizeof(text) - n,
		                      "atp app add %u workers %u ports ", c->id, c->workers);
		for (i = 0; i < c->nports; i++)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%u", i ? "," : "",
			                      c->ports[i]);
		for (i = 0; i < ATP_PS_MAX; i++) {
			char name[8] = "ps";

			if (c->ps[i] < 0)
				continue;
			if (i > 0)
				snprintf(name, sizeof(name), "ps%u", i);
			n += (size_t)snprintf(text + n, sizeof(text) - n, " %s %d", name, c->ps[i]);
		}
		n += (size_t)snprintf(text + n, sizeof(text) - n, "\natp app reset %u job %u\n",
		                      c->id, AT_JOB(c->id));
	}
	if (at_table == ar_frames)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
		                      "atp app region 1 size %u base %u\n", AR_SIZE, AR_BASE);
	for (h = 1; h < AT_NHOSTS; h++) {
		uint8_t m[6];

		host_mac(m, h);
		mac_str(mac, m);
		n += (size_t)snprintf(text + n, sizeof(text) - n, "l2 add %s %u\n", mac,
		                      at_host_port[h]);
	}
	snprintf(path, sizeof(path), "%s/config", dir);
	return write_text(path, text);
}

/* The body of `pcapgen atp` and `pcapgen atp-ports`: one scenario over table (of nframes). */
static int at_main(const char *name, const struct at_spec *table, unsigned nframes, bool ordered,
                   int argc, char **argv, const char *header)
{
	const struct scenario scen = {
	        .name = name,
	        .nports = AT_PORTS,
	        .nframes = nframes,
	        .port_of = at_port_of,
	        .ordered = ordered,
	        .build = at_build_idx,
	        .process = at_process,
	        .write_config = at_write_config,
	};
	if (argc != 1 || strncmp(argv[0], "--", 2) == 0) {
		fprintf(stderr, "usage: %s %s DIR\n", prog, name);
		return 2;
	}
	struct at_ctx *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return 1;
	at_table = table;
	if (table == ar_frames)
		c->m.reg[1] = (struct at_region){.gen = 1,
		                                 .base = AR_BASE,
		                                 .size = AR_SIZE,
		                                 .obase = 0,
		                                 .osize = AT_POOL,
		                                 .claim_old = true};
	int rc = scenario_write(&scen, argv[0], c, header);
	free(c);
	return rc;
}

int cmd_atp(int argc, char **argv)
{
	char header[1024];
	snprintf(
	        header, sizeof(header),
	        "# Input frames of the atp golden scenario in the order the switch processes them "
	        "(one worker, --burst %u),\n# what each must do and where its outputs go. Written "
	        "by `pcapgen atp`; do not edit.\n# a1 = app 1: 3 workers (w0..w2) behind ports 0 1 "
	        "2, PS0 on port 3; a2 = app 2: 2 workers behind\n# ports 2 0, PS0 on port 1, PS1 "
	        "on port 3. Pool of %u aggregators. v0, v61: first and last value out (signed).\n",
	        GOLDEN_BURST, AT_POOL);
	return at_main("atp", at_frames, AT_NFRAMES, false, argc, argv, header);
}

int cmd_atp_ports(int argc, char **argv)
{
	char header[1024];
	snprintf(
	        header, sizeof(header),
	        "# Input frames of the atp-ports golden scenario in the order the switch takes "
	        "them with\n# --replay-ordered (their capture timestamps), what each must do and "
	        "where its outputs go.\n# Written by `pcapgen atp-ports`; do not edit. a1 = app 1: "
	        "3 workers (w0..w2) behind ports 0 1 2,\n# PS0 on port 3; a2 = app 2: 2 workers "
	        "behind ports 2 0, PS0 on port 1, PS1 on port 3. Pool of %u\n# aggregators. v0, "
	        "v61: first and last value out (signed).\n",
	        AT_POOL);
	return at_main("atp-ports", at_frames_ports, AT_NFRAMES_PORTS, true, argc, argv, header);
}

int cmd_atp_region(int argc, char **argv)
{
	char header[1024];
	snprintf(header, sizeof(header),
	         "# Input frames of the atp-region golden scenario in the order the switch takes "
	         "them with\n# --replay-ordered, what each must do and where its outputs go. "
	         "Written by `pcapgen atp-region`;\n# do not edit. The apps of atp-ports; the "
	         "config gives app 1 aggregators %u..%u while its\n# workers run (docs/memory.md, "
	         "ATP regions): a change \"moving\" for the whole replay. v0, v61:\n# first and "
	         "last value out (signed).\n",
	         AR_BASE, AR_BASE + AR_SIZE - 1);
	return at_main("atp-region", ar_frames, AR_NFRAMES, true, argc, argv, header);
}

/* ---- Benchmark traffic ----------------------------------------------------------------- */

#define AB_APP 1

/*
 * The bench has one input port (0). Workers and PS are both behind it: the config registers the
 * app's workers on port 0 and its PS on port 0, so every worker frame enters on a worker port,
 * every ACK on the PS port, completions leave by port 0 (the PS) and each ACK is multicast to
 * port 0 (the workers' only port). See bench/README.md.
 */
static int ab_config(FILE *fp, const struct opts *o)
{
	fprintf(fp, "atp app add %u workers %lu ports 0 ps 0\natp app reset %u job %u\n", AB_APP,
	        o->workers, AB_APP, AT_JOB(AB_APP));
	return ferror(fp) ? -EIO : 0;
}

int cmd_atp_bench(int argc, char **argv)
{
	static const char *const allowed[] = {"--workers", "--agtrs", "--config", NULL};
	struct opts o = {.cmd = "atp-bench", .workers = 8, .agtrs = 455};
	unsigned a, r, j;
	struct frame *f;
	struct writer w;
	FILE *cfg;
	int rc;

	if (parse_opts(&o, argc, argv, allowed) != 0)
		return 2;
	cfg = o.config ? fopen(o.config, "w") : stdout;
	if (cfg == NULL) {
		fprintf(stderr, "%s %s: cannot write %s: %s\n", prog, o.cmd, o.config,
		        strerror(errno));
		return 1;
	}
	rc = ab_config(cfg, &o);
	if (cfg != stdout && fclose(cfg) != 0)
		rc = -EIO;
	f = malloc(sizeof(*f));
	if (rc != 0 || f == NULL || writer_open(&w, o.out) != 0) {
		free(f);
		return 1;
	}
	/* Per aggregator: every worker's frame (the last completes it and goes to the PS), then
	 * the PS's ACK, which frees it: when the file starts over, the first frame claims again. */
	for (a = 0; a < o.agtrs; a++) {
		for (r = 0; r < o.workers; r++) {
			at_build_atp(f, false, AB_APP, a + 1, a, 1u << r, (unsigned)o.workers, 0);
			for (j = 0; j < ATP_VALUES; j++)
				put32(f->b + ATP_OFF_VALUES + 4 * j, (r + 1) * (j + 1));
			writer_put(&w, f->b, f->len);
		}
		at_build_atp(f, true, AB_APP, a + 1, a, 1, (unsigned)o.workers, ATP_F_ACK);
		for (j = 0; j < ATP_VALUES; j++)
			put32(f->b + ATP_OFF_VALUES + 4 * j,
			      (uint32_t)(o.workers * (o.workers + 1) / 2 * (j + 1)));
		writer_put(&w, f->b, f->len);
	}
	rc = writer_close(&w);
	free(f);
	return rc == 0 ? 0 : 1;
}
