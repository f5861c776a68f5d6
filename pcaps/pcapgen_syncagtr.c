/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapgen syncagtr: the SyncAgtr golden scenario (pcaps/syncagtr/); pcapgen syncagtr-region: a
 * session's region changing under its running job (pcaps/syncagtr-region/); and pcapgen
 * syncagtr-bench: aggregation traffic that stays correct when replayed in a loop (bench/run.sh).
 *
 * The expected outputs come from a model of the pipeline's documented behaviour (SwitchML's UDP
 * protocol, as specified for inswitch in docs/syncagtr.md and pcaps/README.md), written here
 * without looking at the switch's code. Only the wire format is shared with the switch
 * (syncagtr_proto.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapgen.h"
#include "../pipelines/syncagtr/syncagtr_proto.h"

#define SA_PORTS    4
#define SA_SESSIONS 3
#define SA_RANKS    32
#define SA_SPORT    4000 /* worker UDP port of thread 0 (SwitchML's default) */
#define SA_TTL_IN   128  /* what a client's freshly built packet carries */
#define SA_TTL_OUT  64

/* The switch endpoint. Not SwitchML's default MAC, so that the config command is exercised and
 * a frame to the default MAC can show that it is not the switch's. */
static const uint8_t sa_switch_mac[6] = {0x02, 0, 0, 0, 0, 0xfe};
static const uint8_t sa_default_mac[6] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};
static const uint8_t sa_bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

/* Hosts: MAC 02:00:00:00:00:0N and IPv4 10.0.0.N, behind port `port`. */
enum { HA = 1, HB, HC, HD, HE, SA_NHOSTS };
/* Hosts A..E: MAC 02:..:0N (N = 1..5) and the switch port each is behind, as in the config's l2
 * table. */
static const struct scenario_host sa_hosts[] = {
        {{0x02, 0, 0, 0, 0, HA}, 1}, {{0x02, 0, 0, 0, 0, HB}, 2}, {{0x02, 0, 0, 0, 0, HC}, 3},
        {{0x02, 0, 0, 0, 0, HD}, 3}, {{0x02, 0, 0, 0, 0, HE}, 0},
};

static unsigned sa_host_port(unsigned h)
{
	return sa_hosts[h - HA].port;
}
static const char sa_host_name[SA_NHOSTS] = {
        [HA] = 'A', [HB] = 'B', [HC] = 'C', [HD] = 'D', [HE] = 'E'};

static void host_mac(uint8_t *mac, unsigned h)
{
	const uint8_t m[6] = {0x02, 0, 0, 0, 0, (uint8_t)h};

	memcpy(mac, m, 6);
}

static uint32_t host_ip(unsigned h)
{
	return IP(10, 0, 0, h);
}

#define IP_NOBODY IP(10, 0, 0, 250) /* an address neither a host nor a session has */

/* Sessions, indexed 1..3 in the scenario tables; id is the switch's session id. */
struct sa_sess_cfg {
	unsigned id;
	uint32_t ip;
	unsigned n;       /* workers */
	unsigned slots;   /* 0: the default (1024), not given in the config */
	uint8_t job;      /* job_number the workers send */
	unsigned threads; /* 0: not given */
	/* After the workers are registered: `syncagtr session region ID slots to_slots` (0: no
	 * change), then, with reset, `syncagtr session reset ID keep-workers` (the change ends,
	 * the new region stays). */
	unsigned to_slots;
	bool reset;
};

/* Workers in the order the config registers them. */
struct sa_worker_cfg {
	unsigned sess, rank, host;
};

/* clang-format off */
static const struct sa_sess_cfg sa_sess_golden[SA_SESSIONS + 1] = {
	[1] = {1, IP(10, 0, 0, 254), 3, 0, 0x07},
	[2] = {2, IP(10, 0, 0, 253), 2, 8, 0x42},
	[3] = {64, IP(10, 0, 0, 252), 1, 2, 0xff},
};

/* (not rank order, on purpose) */
static const struct sa_worker_cfg sa_workers_golden[] = {
	{1, 2, HC}, {1, 0, HA}, {1, 1, HB},
	{2, 1, HC}, {2, 0, HD},
	{3, 0, HB},
};

/*
 * syncagtr-region: s1 changes from 4 slots to 8 in the config and stays changing for the whole
 * replay; s2 changed from 2 slots to 4 and its job was reset (generation 1, no change under
 * way); s3 never changed.
 */
static const struct sa_sess_cfg sa_sess_region[SA_SESSIONS + 1] = {
	[1] = {5, IP(10, 0, 0, 240), 3, 4, 0x21, 2, 8, false},
	[2] = {6, IP(10, 0, 0, 241), 2, 2, 0x22, 1, 4, true},
	[3] = {7, IP(10, 0, 0, 242), 1, 4, 0x23, 1, 0, false},
};

static const struct sa_worker_cfg sa_workers_region[] = {
	{1, 0, HA}, {1, 1, HB}, {1, 2, HC},
	{2, 0, HD}, {2, 1, HA},
	{3, 0, HE},
};
/* clang-format on */

#define SA_SLOTS_DEFAULT 1024
#define RTE_DIM_(a)      (sizeof(a) / sizeof((a)[0]))

struct sa_spec;

/* A scenario: its sessions, workers and input frames. */
struct sa_scen {
	const char *name;
	const struct sa_sess_cfg *sess; /* [1..SA_SESSIONS] */
	const struct sa_worker_cfg *workers;
	unsigned nworkers;
	const struct sa_spec *frames;
	unsigned nframes;
};

/* The scenario pcapgen is writing (one per run). */
static const struct sa_scen *sa_sc;

/* ---- The model of the switch ----------------------------------------------------------- */

/* Per (slot, set) state, as the specification describes it. count may go below 0 (a new
 * contribution to a round that is already complete); it is then never 0 again until a new round
 * starts, whatever width a real counter has. */
struct sa_cell {
	uint32_t bitmap;
	int count;
	int8_t emax[2];
	uint32_t values[SA_ELEMS_MAX];
};

#define SA_THREADS 8

/*
 * A session, and what docs/memory.md says a region change keeps: the generation, the old
 * region while the change is under way, each worker thread's boundary (job number and tsi of
 * its first completion in the old region after the request, as the packet carried them) and
 * the ranks whose packets in the new region said they hold every old result.
 */
struct sa_sess {
	const struct sa_sess_cfg *cfg;
	unsigned slots;
	unsigned rank_host[SA_RANKS]; /* 0: no worker of this rank */
	struct sa_cell (*cell)[2];    /* [slot][set] */
	unsigned gen;
	bool changing;
	unsigned old_slots;
	struct sa_cell (*old_cell)[2];
	bool bound[SA_THREADS];
	uint8_t bound_job[SA_THREADS], bound_tsi[SA_THREADS][4];
	uint32_t held[SA_THREADS];
};

struct sa_model {
	struct sa_sess sess[SA_SESSIONS + 1];
};

static int sa_model_init(struct sa_model *m)
{
	unsigned s, i;

	memset(m, 0, sizeof(*m));
	for (s = 1; s <= SA_SESSIONS; s++) {
		struct sa_sess *ss = &m->sess[s];

		ss->cfg = &sa_sc->sess[s];
		ss->slots = ss->cfg->slots ? ss->cfg->slots : SA_SLOTS_DEFAULT;
		ss->cell = calloc(ss->slots, sizeof(*ss->cell));
		if (ss->cell == NULL)
			return -ENOMEM;
		if (ss->cfg->to_slots == 0)
			continue;
		/* The change: the session's region becomes the old one, a new one cleared. */
		ss->old_slots = ss->slots;
		ss->old_cell = ss->cell;
		ss->slots = ss->cfg->to_slots;
		ss->cell = calloc(ss->slots, sizeof(*ss->cell));
		if (ss->cell == NULL)
			return -ENOMEM;
		ss->gen = 1;
		ss->changing = !ss->cfg->reset;
	}
	for (i = 0; i < sa_sc->nworkers; i++)
		m->sess[sa_sc->workers[i].sess].rank_host[sa_sc->workers[i].rank] =
		        sa_sc->workers[i].host;
	return 0;
}

static void sa_model_free(struct sa_model *m)
{
	unsigned s;

	for (s = 1; s <= SA_SESSIONS; s++) {
		free(m->sess[s].cell);
		free(m->sess[s].old_cell);
	}
}

static unsigned sa_session_of_ip(const struct sa_model *m, uint32_t ip)
{
	unsigned s;

	for (s = 1; s <= SA_SESSIONS; s++)
		if (m->sess[s].cfg->ip == ip)
			return s;
	return 0;
}

/*
 * Admission: a SwitchML packet of a registered worker. Everything must hold, else the packet is
 * not SyncAgtr's (ARP, ICMP, then l2 get it).
 */
static bool sa_admit(const struct sa_model *m, const uint8_t *b, uint32_t len, unsigned *sess,
                     unsigned *rank)
{
	const uint8_t *ip = b + ETH_LEN;
	unsigned s, r;

	if (len < SA_HDR_OFF || get16(b + 12) != ETHERTYPE_IP4 || ip[0] != 0x45 ||
	    (get16(ip + 6) & 0x3fff) != 0 || ip[9] != PROTO_UDP ||
	    (get16(b + 36) & SA_UDP_PORT_MASK) != SA_UDP_PORT || memcmp(b, sa_switch_mac, 6) != 0)
		return false;
	s = sa_session_of_ip(m, get32(ip + 16));
	if (s == 0)
		return false;
	for (r = 0; r < m->sess[s].cfg->n; r++) {
		unsigned h = m->sess[s].rank_host[r];
		uint8_t mac[6];

		host_mac(mac, h);
		if (h != 0 && memcmp(b + 6, mac, 6) == 0 && get32(ip + 12) == host_ip(h)) {
			*sess = s;
			*rank = r;
			return true;
		}
	}
	return false;
}

/* The result frame, from the request in (len bytes) for worker host h (docs/syncagtr.md). */
static void sa_result(uint8_t *out, const uint8_t *in, uint32_t len, const struct sa_sess *ss,
                      unsigned h, unsigned elems, const struct sa_cell *c)
{
	uint8_t *ip = out + ETH_LEN, *udp = ip + IP4_LEN, *hdr = udp + UDP_LEN;
	uint8_t mac[6];
	unsigned j;

	memcpy(out, in, len); /* bytes past the values stay as they were */
	host_mac(mac, h);
	eth_put(out, mac, sa_switch_mac, ETHERTYPE_IP4);
	ip[0] = 0x45;
	ip[1] = 0;
	put16(ip + 2, (uint16_t)(SA_IP_LEN + SA_UDP_LEN + SA_HDR_LEN + SA_EXP_LEN + 4 * elems));
	put16(ip + 4, 0);
	put16(ip + 6, 0);
	ip[8] = SA_TTL_OUT;
	ip[9] = PROTO_UDP;
	put16(ip + 10, 0);
	put32(ip + 12, ss->cfg->ip);
	put32(ip + 16, host_ip(h));
	put16(ip + 10, csum_fold(csum_add(0, ip, IP4_LEN)));
	put16(udp, get16(in + 36));
	put16(udp + 2, get16(in + 34));
	put16(udp + 4, (uint16_t)(SA_UDP_LEN + SA_HDR_LEN + SA_EXP_LEN + 4 * elems));
	put16(udp + 6, 0);
	hdr[0] = (uint8_t)(SA_MSG_TYPE << 4 | (in[SA_HDR_OFF] & 7));
	/* job_number and tsi (bytes 43..47) are the request's */
	put16(hdr + 6, get16(in + 48) & (uint16_t)~0x4000);
	hdr[8] = (uint8_t)c->emax[0];
	hdr[9] = (uint8_t)c->emax[1];
	for (j = 0; j < elems; j++)
		put32(out + SA_VAL_OFF + 4 * j, c->values[j]);
}

static void sa_drop(struct scenario_out *o, const char *prefix, const char *reason)
{
	snprintf(o->why, sizeof(o->why), "%s: drop (%s)", prefix, reason);
}

/* A new contribution (the worker's bit was clear): returns true when it completes the round. */
static bool sa_contribute(struct sa_cell *c, uint32_t before, unsigned n, const uint8_t *b,
                          unsigned elems)
{
	int8_t e0 = (int8_t)b[50], e1 = (int8_t)b[51];
	unsigned j;

	if (before == 0) {
		for (j = 0; j < elems; j++)
			c->values[j] = get32(b + SA_VAL_OFF + 4 * j);
		c->emax[0] = e0;
		c->emax[1] = e1;
		c->count = (int)n - 1;
	} else {
		for (j = 0; j < elems; j++)
			c->values[j] += get32(b + SA_VAL_OFF + 4 * j); /* wraps: unsigned */
		c->emax[0] = e0 > c->emax[0] ? e0 : c->emax[0];
		c->emax[1] = e1 > c->emax[1] ? e1 : c->emax[1];
		c->count--;
	}
	return c->count == 0;
}

/*
 * A result of a session whose region changed (out, *len bytes, from request in): bit 14 of the
 * pool index as the request had it, and while the change is under way and the worker thread's
 * boundary is known, the region note after the values, the bytes past them dropped (returns
 * true).
 */
static bool sa_note(uint8_t *out, uint32_t *len, const uint8_t *in, const struct sa_sess *ss,
                    unsigned thread, unsigned elems)
{
	uint8_t *ip = out + ETH_LEN, *note = out + sa_frame_len(elems);

	if (ss->gen == 0)
		return false;
	out[48] |= in[48] & 0x40;
	if (!ss->changing || !ss->bound[thread])
		return false;
	note[0] = 'R';
	note[1] = 'G';
	note[2] = (uint8_t)ss->gen;
	note[3] = ss->bound_job[thread];
	memcpy(note + 4, ss->bound_tsi[thread], 4);
	put32(note + 8, ss->slots);
	memset(note + 12, 0, 4);
	put16(ip + 2, (uint16_t)(get16(ip + 2) + SA_NOTE_LEN));
	put16(ip + IP4_LEN + 4, (uint16_t)(get16(ip + IP4_LEN + 4) + SA_NOTE_LEN));
	put16(ip + 10, 0);
	put16(ip + 10, csum_fold(csum_add(0, ip, IP4_LEN)));
	*len = sa_frame_len(elems) + SA_NOTE_LEN;
	return true;
}

/* The ranks registered in session ss. */
static uint32_t sa_live(const struct sa_sess *ss)
{
	uint32_t live = 0;
	unsigned r;

	for (r = 0; r < SA_RANKS; r++)
		if (ss->rank_host[r] != 0)
			live |= 1u << r;
	return live;
}

static void sa_aggregate(struct sa_model *m, unsigned s, unsigned rank, const uint8_t *b,
                         uint32_t len, unsigned in, struct scenario_out *o)
{
	struct sa_sess *ss = &m->sess[s];
	unsigned elems, slot, set, r, n = ss->cfg->n, slots = ss->slots, thread = 0;
	uint32_t w = 1u << rank, before, olen;
	struct sa_cell *c, (*cells)[2] = ss->cell;
	bool old = false, noted = false;
	char pre[96];
	uint16_t pool;

	snprintf(pre, sizeof(pre), "s%u rank %u", ss->cfg->id, rank);
	if (len < SA_VAL_OFF) {
		sa_drop(o, pre, "malformed: no room for the SwitchML header");
		return;
	}
	elems = sa_size_elems(b[SA_HDR_OFF] & 7);
	if (elems == 0) {
		sa_drop(o, pre, "sa-size: size code not 1 or 3");
		return;
	}
	if (len < sa_frame_len(elems)) {
		sa_drop(o, pre, "malformed: shorter than its elements");
		return;
	}
	pool = get16(b + 48);
	slot = pool & SA_POOL_SLOT;
	set = pool >> 15;
	snprintf(pre, sizeof(pre), "s%u rank %u slot %u set %u", ss->cfg->id, rank, slot, set);
	if (ss->gen != 0 && ((pool & SA_POOL_GEN) != 0) != (ss->gen & 1)) {
		if (!ss->changing) {
			sa_drop(o, pre, "sa-gen: for the region a change left");
			return;
		}
		old = true;
		slots = ss->old_slots;
		cells = ss->old_cell;
		snprintf(pre, sizeof(pre), "s%u rank %u slot %u set %u (old region)", ss->cfg->id,
		         rank, slot, set);
	}
	if (slot >= slots) {
		sa_drop(o, pre,
		        old ? "sa-region: slot beyond the old region's"
		            : "sa-region: slot beyond the session's");
		return;
	}
	if (ss->cfg->threads != 0)
		thread = slot / (slots / ss->cfg->threads);
	if (ss->changing && !old && (b[SA_HDR_OFF] & SA_FLAG_HELD)) {
		uint32_t live = sa_live(ss);
		unsigned t;

		ss->held[thread] |= w;
		for (t = 0; t < ss->cfg->threads && (ss->held[t] & live) == live; t++)
			;
		if (t == ss->cfg->threads) {
			/* The switch would end the change at its next tick, whenever that is. */
			fprintf(stderr,
			        "%s %s: frame %s: every worker thread of s%u now holds every old "
			        "result; the change's end would not be deterministic\n",
			        prog, sa_sc->name, pre, ss->cfg->id);
			exit(1);
		}
	}
	c = &cells[slot][set];
	before = c->bitmap;
	c->bitmap |= w;
	cells[slot][1 - set].bitmap &= ~w;
	if (before & w) {
		if (c->count != 0) {
			sa_drop(o, pre, "sa-retx-pending: retransmission, round not complete");
			return;
		}
		olen = len;
		sa_result(o->f[0].b, b, len, ss, ss->rank_host[rank], elems, c);
		noted = sa_note(o->f[0].b, &olen, b, ss, thread, elems);
		o->f[0].len = olen;
		o->port[0] = in;
		o->n = 1;
		snprintf(o->why, sizeof(o->why),
		         "%s: retransmission, round complete: unicast result to %c out of "
		         "ingress (v0 %d, e %d/%d)%s",
		         pre, sa_host_name[ss->rank_host[rank]], (int32_t)c->values[0], c->emax[0],
		         c->emax[1],
		         noted          ? ", with the note"
		         : ss->gen != 0 ? ", no note"
		                        : "");
		return;
	}
	if (!sa_contribute(c, before, n, b, elems)) {
		if (c->count < 0)
			snprintf(o->why, sizeof(o->why),
			         "%s: new to a complete round (count below 0): consumed", pre);
		else
			snprintf(o->why, sizeof(o->why), "%s: %s, %d to go: consumed", pre,
			         before == 0 ? "first of the round" : "added", c->count);
		return;
	}
	/* The thread's first completion in the old region after the request: its boundary. */
	bool bound = ss->changing && old && !ss->bound[thread];
	if (bound) {
		ss->bound[thread] = true;
		ss->bound_job[thread] = b[SA_HDR_OFF + 1];
		memcpy(ss->bound_tsi[thread], b + SA_HDR_OFF + 2, 4);
	}
	for (r = 0; r < n; r++) {
		unsigned h = ss->rank_host[r];

		if (h == 0)
			continue;
		olen = len;
		sa_result(o->f[o->n].b, b, len, ss, h, elems, c);
		noted = sa_note(o->f[o->n].b, &olen, b, ss, thread, elems);
		o->f[o->n].len = olen;
		o->port[o->n] = sa_host_port(h);
		o->n++;
	}
	snprintf(o->why, sizeof(o->why),
	         "%s: %s: complete: multicast to all %u (v0 %d v%u %d, e %d/%d)%s%s", pre,
	         before == 0 ? "first" : "added", n, (int32_t)c->values[0], elems - 1,
	         (int32_t)c->values[elems - 1], c->emax[0], c->emax[1],
	         bound ? ", sets thread's boundary" : "",
	         noted          ? ", with the note"
	         : ss->gen != 0 ? ", no note"
	                        : "");
}

/* ARP request for a session's IP: answered in place, out of the ingress port. */
static bool sa_arp(const struct sa_model *m, const uint8_t *b, uint32_t len, unsigned in,
                   struct scenario_out *o)
{
	const uint8_t *a = b + ETH_LEN;
	uint8_t *r = o->f[0].b, *ra = r + ETH_LEN;
	unsigned s;

	if (len < ETH_LEN + ARP_LEN || get16(b + 12) != ETHERTYPE_ARP || get16(a) != 1 ||
	    get16(a + 2) != ETHERTYPE_IP4 || a[4] != 6 || a[5] != 4 || get16(a + 6) != 1)
		return false;
	s = sa_session_of_ip(m, get32(a + 24));
	if (s == 0)
		return false;
	memcpy(r, b, len);
	memcpy(r, a + 8, 6);
	memcpy(r + 6, sa_switch_mac, 6);
	put16(ra + 6, 2);
	memcpy(ra + 8, sa_switch_mac, 6);
	put32(ra + 14, m->sess[s].cfg->ip);
	memcpy(ra + 18, a + 8, 10); /* target = the requester's sender MAC and IP */
	o->f[0].len = len;
	o->port[0] = in;
	o->n = 1;
	snprintf(o->why, sizeof(o->why), "ARP request for s%u's IP: reply out of ingress",
	         m->sess[s].cfg->id);
	return true;
}

/* ICMP echo request to a session's IP and the switch MAC: echo reply in place. */
static bool sa_icmp(const struct sa_model *m, const uint8_t *b, uint32_t len, unsigned in,
                    struct scenario_out *o)
{
	const uint8_t *ip = b + ETH_LEN, *icmp = ip + IP4_LEN;
	uint8_t *r = o->f[0].b, *rip = r + ETH_LEN, *ricmp = rip + IP4_LEN;
	uint16_t incr, full;
	unsigned s;

	if (len < ETH_LEN + IP4_LEN + ICMP_LEN || get16(b + 12) != ETHERTYPE_IP4 || ip[0] != 0x45 ||
	    (get16(ip + 6) & 0x3fff) != 0 || ip[9] != PROTO_ICMP ||
	    memcmp(b, sa_switch_mac, 6) != 0 || icmp[0] != 8 || icmp[1] != 0)
		return false;
	s = sa_session_of_ip(m, get32(ip + 16));
	if (s == 0)
		return false;
	memcpy(r, b, len);
	eth_put(r, b + 6, sa_switch_mac, ETHERTYPE_IP4);
	memcpy(rip + 12, ip + 16, 4);
	memcpy(rip + 16, ip + 12, 4);
	rip[8] = SA_TTL_OUT;
	put16(rip + 10, 0);
	put16(rip + 10, csum_fold(csum_add(0, rip, IP4_LEN)));
	ricmp[0] = 0;
	/* RFC 1624 eqn. 3: the type/code word goes from 0x0800 to 0x0000. */
	incr = csum_fold((uint16_t)~get16(icmp + 2) + (uint32_t)(uint16_t)~0x0800u);
	put16(ricmp + 2, 0);
	full = csum_fold(csum_add(0, ricmp, get16(ip + 2) - IP4_LEN));
	if (incr != full) {
		/* Both are valid; the scenario avoids the one case where they differ. */
		fprintf(stderr, "%s syncagtr: ICMP checksum corner case (%04x vs %04x)\n", prog,
		        incr, full);
		exit(1);
	}
	put16(ricmp + 2, incr);
	o->f[0].len = len;
	o->port[0] = in;
	o->n = 1;
	snprintf(o->why, sizeof(o->why), "ICMP echo request to s%u's IP: reply out of ingress",
	         m->sess[s].cfg->id);
	return true;
}

/* What the switch does with one frame: the outputs in o, in the order they leave. */
static void sa_expect(struct sa_model *m, const struct frame *f, unsigned in,
                      struct scenario_out *o)
{
	unsigned s, rank;

	o->n = 0;
	o->why[0] = '\0';
	if (sa_admit(m, f->b, f->len, &s, &rank))
		sa_aggregate(m, s, rank, f->b, f->len, in, o);
	else if (!sa_arp(m, f->b, f->len, in, o) && !sa_icmp(m, f->b, f->len, in, o))
		scenario_l2(f->b, f->len, in, SA_PORTS, sa_hosts, SA_NHOSTS - HA, "", o);
}

/* ---- The scenario's input frames ------------------------------------------------------- */

enum sa_kind { SK_REQ, SK_ARP, SK_ICMP, SK_UDP };

enum {
	F_IHL6 = 1 << 0,    /* 4 bytes of IP options (NOPs and end of list) */
	F_MF = 1 << 1,      /* more-fragments flag */
	F_FRAG = 1 << 2,    /* fragment offset 8 bytes */
	F_DF = 1 << 3,      /* don't-fragment flag (allowed) */
	F_VLAN = 1 << 4,    /* 802.1Q tag */
	F_TCP = 1 << 5,     /* IP protocol 6 */
	F_BADSUM = 1 << 6,  /* IP checksum 0 and a wrong UDP checksum (a recycled client mbuf) */
	F_TTL64 = 1 << 7,   /* TTL 64 (a recycled client mbuf) */
	F_TYPE0 = 1 << 8,   /* byte 42: msg_type 0, unused bit set */
	F_OP2 = 1 << 9,     /* ARP reply rather than request */
	F_EREPLY = 1 << 10, /* ICMP echo reply rather than request */
	F_CODE1 = 1 << 11,  /* ICMP code 1 */
	F_SHA6 = 1 << 12,   /* ARP sender MAC 02:00:00:00:00:06, not the Ethernet source */
	F_HELD = 1 << 13,   /* byte 42 bit 3: the thread holds every result of the old region */
};

#define DM_DEFAULT 0xfe /* .dmac: SwitchML's default switch MAC, not this switch's */
#define DM_BCAST   0xff /* .dmac: broadcast */

struct sa_spec {
	uint8_t port, kind;
	uint8_t h;     /* sending host */
	uint8_t s;     /* destination: session s's IP; 0: .dip */
	uint16_t slot; /* with .set and .par: the pool index, unless .pool */
	uint8_t set;
	uint8_t par;   /* bit 14: the region generation's parity */
	uint8_t big;   /* 256 elements rather than 64 */
	uint16_t pool; /* raw pool_index, when nonzero */
	uint8_t code;  /* size code + 1, when nonzero; else that of the element count */
	int32_t base;  /* element j = base + j * step, 32-bit wrap-around */
	int32_t step;
	int8_t e0, e1;
	uint16_t sport; /* 0: 4000 */
	uint16_t dport; /* 0: 0xBEE0 (SK_REQ), 5000 (SK_UDP) */
	uint32_t tsi;   /* 0: the frame's number */
	uint16_t len;   /* frame length, when nonzero: truncates, or pads with filler */
	uint8_t dmac;   /* 0: the switch MAC (broadcast for ARP); a host; DM_DEFAULT; DM_BCAST */
	uint8_t smac;   /* Ethernet source host, when not .h */
	uint8_t sip;    /* IP source host, when not .h */
	uint32_t dip;   /* IP destination when .s is 0 */
	uint32_t flags;
	const char *what;
};

/* clang-format off */
#define REQ(p, host, sess, sl, st) \
	.port = p, .kind = SK_REQ, .h = host, .s = sess, .slot = sl, .set = st
/* a request for the region of generation parity 1 (the new one after one change) */
#define REQ1(p, host, sess, sl, st) REQ(p, host, sess, sl, st), .par = 1
#define ARP(p, host, sess)  .port = p, .kind = SK_ARP, .h = host, .s = sess
#define ICMP(p, host, sess) .port = p, .kind = SK_ICMP, .h = host, .s = sess
#define UDP(p, host, sess)  .port = p, .kind = SK_UDP, .h = host, .s = sess
#define CODE(c) .code = (c) + 1

/*
 * In processing order (one worker, --burst 32): port 0's first 32 frames, then ports 1, 2 and 3
 * (fewer than 32 each), then the rest of port 0. pcapgen checks that this order is the one the
 * order model gives. Sessions: s1 (index 1) = id 1, 10.0.0.254, ranks A B C; s2 (2) = id 2,
 * 10.0.0.253, 8 slots, ranks D C; s64 (3) = id 64, 10.0.0.252, 2 slots, rank B.
 */
static const struct sa_spec sa_frames_golden[] = {
	/* -- port 0, round 1 -- */
	/* s1 slot 0 set 0: first, add, retransmission while pending, complete; exponents */
	{REQ(0, HA, 1, 0, 0), .base = 0x7ffffff0, .step = 1, .e0 = -3, .e1 = -128,
	 .what = "s1 slot 0/0 from A: 0x7ffffff0+j, e -3/-128"},
	{REQ(0, HB, 1, 0, 0), .base = 0x10, .e0 = 2, .e1 = -100,
	 .what = "s1 slot 0/0 from B: 0x10, e 2/-100 (sum wraps past INT32_MAX)"},
	{REQ(0, HA, 1, 0, 0), .base = 0x7ffffff0, .step = 1, .e0 = -3, .e1 = -128,
	 .what = "s1 slot 0/0 from A again (retransmission, 1 missing)"},
	{REQ(0, HC, 1, 0, 0), .base = -5, .step = 0x01000000, .e0 = -1, .e1 = -128,
	 .what = "s1 slot 0/0 from C: -5+j*2^24, e -1/-128 (signed max 2/-100)"},
	{REQ(0, HB, 1, 0, 0), .base = 0x10, .e0 = 2, .e1 = -100, .sport = 4002, .tsi = 0xa0b0c0d0,
	 .what = "s1 slot 0/0 from B again, sport 4002, new tsi (complete)"},
	{REQ(0, HA, 1, 0, 0), .pool = 1024, .base = 1,
	 .what = "s1 slot 1024 from A: beyond 1024 slots (masked: slot 0)"},
	{REQ(0, HA, 1, 0, 0), .pool = 0x3fff, .base = 1, .what = "s1 slot 16383 from A"},
	/* s2 slot 0 set 0, with an out-of-region slot that a masked index would alias to it */
	{REQ(0, HD, 2, 0, 0), .base = -1000, .step = -7, .e0 = -7, .e1 = 5,
	 .what = "s2 slot 0/0 from D: -1000-7j, e -7/5"},
	{REQ(0, HC, 2, 8, 0), .base = 1,
	 .what = "s2 slot 8 from C: beyond 8 slots (masked: slot 0)"},
	{REQ(0, HC, 2, 0, 0), .base = 2000, .step = 8, .e0 = -9, .e1 = 4,
	 .what = "s2 slot 0/0 from C: 2000+8j, e -9/4"},
	/* one host in two sessions: same slot, distinguished by the session IP */
	{REQ(0, HC, 1, 3, 1), .base = 100, .step = 100, .e0 = 1,
	 .what = "s1 slot 3/1 from C: 100+100j"},
	{REQ(0, HC, 2, 3, 1), .base = 7, .what = "s2 slot 3/1 from C: 7"},
	{REQ(0, HD, 2, 3, 1), .base = -7, .step = 1, .sport = 4003,
	 .what = "s2 slot 3/1 from D: -7+j, sport 4003"},
	/* pool index bit 14: ignored on input, cleared on output */
	{REQ(0, HA, 1, 0, 0), .pool = 0xc001, .base = 1, .step = 1,
	 .what = "s1 pool 0xc001 (slot 1/1, bit 14) from A"},
	{REQ(0, HB, 1, 1, 1), .base = 2, .step = 1, .what = "s1 slot 1/1 from B"},
	{REQ(0, HC, 1, 0, 0), .pool = 0xc001, .base = 3, .step = 1,
	 .what = "s1 pool 0xc001 from C"},
	/* unsupported size codes and short frames: dropped, the slot waits for B */
	{REQ(0, HA, 1, 2, 0), .base = INT32_MIN, .e0 = 127, .what = "s1 slot 2/0 from A: INT32_MIN"},
	{REQ(0, HC, 1, 2, 0), .base = INT32_MIN, .step = 1, .e0 = -128,
	 .what = "s1 slot 2/0 from C: INT32_MIN+j"},
	{REQ(0, HB, 1, 2, 0), CODE(0), .base = 1, .what = "s1 slot 2/0 from B, size code 0, 308 B"},
	{REQ(0, HB, 1, 2, 0), CODE(2), .len = 564, .base = 1,
	 .what = "s1 slot 2/0 from B, size code 2, 564 B"},
	{REQ(0, HB, 1, 2, 0), .len = 307, .base = 1, .what = "s1 slot 2/0 from B, one byte short"},
	{REQ(0, HB, 1, 2, 0), CODE(3), .base = 1,
	 .what = "s1 slot 2/0 from B, size code 3 in a 308 B frame"},
	{REQ(0, HB, 1, 2, 0), .len = 51, .what = "s1 slot 2/0 from B, 51 B: header cut"},
	{REQ(0, HB, 1, 2, 0), .len = 42, .what = "s1 slot 2/0 from B, 42 B: no SwitchML header"},
	{REQ(0, HB, 1, 2, 0), .base = 5, .step = 2, .e0 = 0,
	 .what = "s1 slot 2/0 from B: 5+2j, e 0 (max 127)"},
	/* not admitted: each from C, to s1 slot 4 set 0 where A and B wait */
	{REQ(0, HA, 1, 4, 0), .base = 10, .step = 1, .e0 = -2, .what = "s1 slot 4/0 from A: 10+j"},
	{REQ(0, HB, 1, 4, 0), .base = 20, .step = 1, .what = "s1 slot 4/0 from B: 20+j"},
	{REQ(0, HC, 1, 4, 0), .flags = F_IHL6, .base = 1,
	 .what = "s1 slot 4/0 from C with IP options (IHL 6)"},
	{REQ(0, HC, 1, 4, 0), .flags = F_MF, .base = 1, .what = "s1 slot 4/0 from C, MF set"},
	{REQ(0, HC, 1, 4, 0), .flags = F_FRAG, .base = 1,
	 .what = "s1 slot 4/0 from C, fragment offset 8"},
	{REQ(0, HC, 1, 4, 0), .flags = F_VLAN, .base = 1, .what = "s1 slot 4/0 from C, 802.1Q tag"},
	{REQ(0, HC, 1, 4, 0), .flags = F_TCP, .base = 1, .what = "s1 slot 4/0 from C, IP proto 6"},
	/* -- port 1 (host A), round 1 -- */
	{ICMP(1, HA, 1), .len = 98, .what = "ICMP echo request from A to s1's IP"},
	{REQ(1, HA, 1, 0, 0), .base = 0x7ffffff0, .step = 1, .e0 = -3, .e1 = -128, .tsi = 77,
	 .what = "s1 slot 0/0 from A again, from A's port"},
	{UDP(1, HA, 0), .dmac = HB, .dip = IP(10, 0, 0, 2), .len = 120, .what = "UDP A -> B"},
	{REQ(1, HA, 1, 3, 1), .base = 1000, .what = "s1 slot 3/1 from A: 1000"},
	/* -- port 2 (host B), round 1 -- */
	{ARP(2, HB, 2), .dmac = DM_BCAST, .what = "ARP who-has 10.0.0.253 (s2) from B"},
	{ARP(2, HB, 0), .dmac = DM_BCAST, .dip = IP(10, 0, 0, 1), .what = "ARP who-has 10.0.0.1 from B"},
	{REQ(2, HB, 1, 3, 1), .step = -1, .what = "s1 slot 3/1 from B: -j"},
	{REQ(2, HB, 3, 0, 0), .base = -1, .step = -1, .e0 = -5, .e1 = -6,
	 .what = "s64 slot 0/0 from B (its only worker): -1-j"},
	/* -- port 3 (hosts C and D), round 1 -- */
	{ARP(3, HD, 1), .what = "ARP who-has 10.0.0.254 (s1) from D, to the switch MAC"},
	{ICMP(3, HC, 2), .len = 142, .what = "ICMP echo request from C to s2's IP"},
	{REQ(3, HD, 2, 5, 1), .big = 1, .base = 0x40000000, .step = 0x00800000, .e0 = 3,
	 .what = "s2 slot 5/1 from D, 256 elements"},
	{REQ(3, HC, 2, 5, 1), .big = 1, .base = 0x40000001, .step = 1, .e0 = 4, .e1 = 1,
	 .what = "s2 slot 5/1 from C, 256 elements"},
	{REQ(3, HD, 2, 5, 1), .big = 1, .base = 0x40000000, .step = 0x00800000, .e0 = 3,
	 .what = "s2 slot 5/1 from D again, 256 elements"},
	/* -- port 0, round 2 -- */
	{REQ(0, HC, 1, 4, 0), .dport = 0xbef0, .base = 1, .what = "s1 slot 4/0 from C, UDP dst 0xbef0"},
	{REQ(0, HC, 1, 4, 0), .dport = 0xbedf, .base = 1, .what = "s1 slot 4/0 from C, UDP dst 0xbedf"},
	{REQ(0, HC, 1, 4, 0), .dmac = HD, .base = 1, .what = "s1 slot 4/0 from C, to D's MAC"},
	{REQ(0, HC, 1, 4, 0), .dmac = DM_DEFAULT, .base = 1,
	 .what = "s1 slot 4/0 from C, to 00:11:22:33:44:55"},
	{REQ(0, HC, 1, 4, 0), .sip = HA, .base = 1, .what = "s1 slot 4/0 from C's MAC and A's IP"},
	{REQ(0, HC, 0, 4, 0), .dip = IP_NOBODY, .base = 1,
	 .what = "slot 4/0 from C to 10.0.0.250 (no session)"},
	{REQ(0, HC, 3, 1, 0), .base = 1, .what = "s64 slot 1/0 from C (not its worker)"},
	{REQ(0, HE, 1, 4, 0), .base = 1, .what = "s1 slot 4/0 from E (not a worker)"},
	{REQ(0, HC, 1, 4, 0), .smac = HE, .base = 1, .what = "s1 slot 4/0 from E's MAC and C's IP"},
	{REQ(0, HC, 1, 4, 0), .len = 40, .what = "s1 from C, 40 B: UDP header cut"},
	{REQ(0, HC, 1, 4, 0), .flags = F_DF | F_BADSUM | F_TTL64, .dport = 0xbeef, .sport = 4001,
	 .base = 30, .step = 1, .e0 = -1,
	 .what = "s1 slot 4/0 from C: DF, bad checksums, dst 0xbeef, sport 4001"},
	/* shadow copies: set 0, set 1, set 0 again on s1 slot 5 */
	{REQ(0, HA, 1, 5, 0), .base = 1, .e0 = -10, .what = "s1 slot 5/0 from A: 1"},
	{REQ(0, HB, 1, 5, 0), .base = 2, .e0 = -11, .what = "s1 slot 5/0 from B: 2"},
	{REQ(0, HC, 1, 5, 0), .base = 4, .e0 = -12, .what = "s1 slot 5/0 from C: 4"},
	{REQ(0, HA, 1, 5, 1), .base = 8, .e0 = -13, .what = "s1 slot 5/1 from A: 8"},
	{REQ(0, HB, 1, 5, 0), .base = 2, .e0 = -11, .what = "s1 slot 5/0 from B again"},
	{REQ(0, HB, 1, 5, 1), .base = 16, .e0 = -14, .what = "s1 slot 5/1 from B: 16"},
	{REQ(0, HC, 1, 5, 1), .base = 32, .e0 = -15, .what = "s1 slot 5/1 from C: 32"},
	{REQ(0, HC, 1, 5, 1), .base = 32, .e0 = -15, .what = "s1 slot 5/1 from C again"},
	{REQ(0, HB, 1, 5, 0), .base = 64, .e0 = -16, .what = "s1 slot 5/0 from B: 64 (new round)"},
	{REQ(0, HA, 1, 5, 0), .base = 128, .e0 = -17, .what = "s1 slot 5/0 from A: 128"},
	{REQ(0, HC, 1, 5, 0), .flags = F_TYPE0, .base = 256, .e0 = -18,
	 .what = "s1 slot 5/0 from C: 256, byte 42 = 0x09"},
	/* a duplicate after its bit was cleared by the worker's next set: counts again */
	{REQ(0, HA, 1, 6, 0), .base = 0x01010101, .what = "s1 slot 6/0 from A"},
	{REQ(0, HB, 1, 6, 0), .base = 0x01010101, .what = "s1 slot 6/0 from B"},
	{REQ(0, HC, 1, 6, 0), .base = 0x01010101, .what = "s1 slot 6/0 from C"},
	{REQ(0, HA, 1, 6, 1), .base = 0x02020202, .what = "s1 slot 6/1 from A"},
	{REQ(0, HA, 1, 6, 0), .base = 0x01010101, .tsi = 66,
	 .what = "s1 slot 6/0 from A again (tsi of its first)"},
	{REQ(0, HB, 1, 6, 0), .base = 0x01010101, .what = "s1 slot 6/0 from B again"},
	{REQ(0, HA, 1, 7, 0), .base = 1000, .step = 1, .what = "s1 slot 7/0 from A: 1000+j"},
	{REQ(0, HB, 1, 7, 0), .base = 2000, .step = 1, .what = "s1 slot 7/0 from B: 2000+j"},
	{REQ(0, HA, 1, 7, 1), .base = 5, .what = "s1 slot 7/1 from A"},
	{REQ(0, HA, 1, 7, 0), .base = 1000, .step = 1, .tsi = 71,
	 .what = "s1 slot 7/0 from A again (tsi of its first)"},
	/* 256 elements on s1 */
	{REQ(0, HA, 1, 8, 0), .big = 1, .base = INT32_MAX, .step = -1, .e0 = -20,
	 .what = "s1 slot 8/0 from A, 256: INT32_MAX-j"},
	{REQ(0, HB, 1, 8, 0), .big = 1, .base = 1, .step = 1, .e0 = -30,
	 .what = "s1 slot 8/0 from B, 256: 1+j"},
	{REQ(0, HC, 1, 8, 0), .big = 1, .len = 1075, .base = 1,
	 .what = "s1 slot 8/0 from C, 256, one byte short"},
	{REQ(0, HC, 1, 8, 0), .big = 1, .step = 0x10001, .e0 = -25,
	 .what = "s1 slot 8/0 from C, 256: j*0x10001"},
	{REQ(0, HA, 1, 8, 0), .big = 1, .base = INT32_MAX, .step = -1, .e0 = -20, .tsi = 0xffffffff,
	 .what = "s1 slot 8/0 from A again, 256"},
	/* bytes past the values: copied into the result */
	{REQ(0, HA, 1, 9, 1), .base = -1, .step = -1, .what = "s1 slot 9/1 from A: -1-j"},
	{REQ(0, HB, 1, 9, 1), .base = 1, .step = 1, .what = "s1 slot 9/1 from B: 1+j"},
	{REQ(0, HC, 1, 9, 1), .len = 320, .base = 0x55,
	 .what = "s1 slot 9/1 from C: 0x55, 12 more bytes"},
	/* a single-worker session */
	{REQ(0, HB, 3, 0, 0), .base = -1, .step = -1, .e0 = -5, .e1 = -6,
	 .what = "s64 slot 0/0 from B again"},
	{REQ(0, HB, 3, 2, 0), .base = 1, .what = "s64 slot 2 from B: beyond 2 slots"},
	{REQ(0, HB, 3, 1, 1), .base = 9, .step = 9, .what = "s64 slot 1/1 from B: 9+9j"},
	/* ARP and ICMP from host E, and plain UDP */
	{ARP(0, HE, 3), .dmac = DM_BCAST, .flags = F_SHA6,
	 .what = "ARP who-has 10.0.0.252 (s64), sender MAC :06"},
	{ARP(0, HE, 1), .flags = F_OP2, .what = "ARP reply from E to the switch, about s1's IP"},
	{ARP(0, HE, 0), .dmac = DM_BCAST, .dip = IP_NOBODY, .what = "ARP who-has 10.0.0.250"},
	{ICMP(0, HE, 3), .len = 60, .what = "ICMP echo request from E to s64's IP"},
	{ICMP(0, HE, 1), .dmac = DM_DEFAULT, .len = 98,
	 .what = "ICMP echo request to s1's IP and 00:11:22:33:44:55"},
	{ICMP(0, HE, 0), .dip = IP_NOBODY, .len = 98, .what = "ICMP echo request to 10.0.0.250"},
	{ICMP(0, HE, 1), .flags = F_EREPLY, .len = 98, .what = "ICMP echo reply to s1's IP"},
	{ICMP(0, HE, 1), .flags = F_CODE1, .len = 98, .what = "ICMP type 8 code 1 to s1's IP"},
	{UDP(0, HE, 1), .len = 308, .what = "UDP to s1's IP and the switch MAC, dst port 5000"},
	{UDP(0, HE, 0), .dmac = HA, .dip = IP(10, 0, 0, 1), .len = 70, .what = "UDP E -> A"},
};
/* clang-format on */

#define SA_NFRAMES_GOLDEN (sizeof(sa_frames_golden) / sizeof(sa_frames_golden[0]))

/* clang-format off */
/*
 * syncagtr-region, in processing order (--replay-ordered). s1 (id 5, ranks A B C, threads 2)
 * changes from 4 slots (2 a thread) to 8 (4 a thread): its window was in flight at the request.
 * Each thread's packets carry tsi 100 + k (thread 0) or 200 + k (thread 1), the same from every
 * worker, as SwitchML's do.
 */
static const struct sa_spec sa_frames_region[] = {
	/* the window in flight at the request: the old region (parity 0) */
	{REQ(1, HA, 1, 0, 0), .tsi = 100, .base = 1, .e0 = -2,
	 .what = "s1 slot 0/0 from A, old region (in flight)"},
	{REQ(2, HB, 1, 0, 0), .tsi = 100, .base = 2, .e0 = -3, .what = "s1 slot 0/0 from B, old"},
	{REQ(1, HA, 1, 2, 0), .tsi = 200, .sport = 4001, .base = 3, .step = 1,
	 .what = "s1 slot 2/0 (thread 1) from A, old"},
	{REQ(3, HC, 1, 0, 0), .tsi = 100, .base = 4, .e0 = -1,
	 .what = "s1 slot 0/0 from C, old: thread 0's first completion"},
	/* a round completed after the boundary; a lost result resent from the old region */
	{REQ(1, HA, 1, 1, 0), .tsi = 101, .base = 10, .what = "s1 slot 1/0 from A, old"},
	{REQ(2, HB, 1, 1, 0), .tsi = 101, .base = 20, .what = "s1 slot 1/0 from B, old"},
	{REQ(3, HC, 1, 1, 0), .tsi = 101, .base = 30, .what = "s1 slot 1/0 from C, old: complete"},
	{REQ(2, HB, 1, 1, 0), .tsi = 101, .base = 20,
	 .what = "s1 slot 1/0 from B again (its result lost)"},
	{REQ(1, HA, 1, 2, 0), .tsi = 200, .sport = 4001, .base = 3, .step = 1,
	 .what = "s1 slot 2/0 from A again, B and C missing"},
	/* a worker that joins late starts in the new region, holding every old result (none) */
	{REQ1(3, HC, 1, 4, 1), .flags = F_HELD, .tsi = 300, .sport = 4001, .base = -1, .step = -1,
	 .what = "s1 slot 4/1 (thread 1) from C, new region, held: a late joiner"},
	{REQ1(1, HA, 1, 4, 1), .tsi = 300, .sport = 4001, .base = 5, .step = 2,
	 .what = "s1 slot 4/1 from A, new region"},
	{REQ1(2, HB, 1, 4, 1), .tsi = 300, .sport = 4001, .base = 7, .e0 = 9,
	 .what = "s1 slot 4/1 from B, new: before thread 1's boundary"},
	{REQ(2, HB, 1, 2, 0), .tsi = 200, .sport = 4001, .base = 300, .step = -1,
	 .what = "s1 slot 2/0 from B, old"},
	{REQ(3, HC, 1, 2, 0), .tsi = 200, .sport = 4001, .len = 320, .base = 1 << 20,
	 .what = "s1 slot 2/0 from C, old, 12 more bytes: thread 1's first completion"},
	{REQ1(1, HA, 1, 4, 1), .tsi = 300, .sport = 4001, .base = 5, .step = 2,
	 .what = "s1 slot 4/1 from A again (its result lost)"},
	/* thread 0 moves: every worker holds every old result of it */
	{REQ1(1, HA, 1, 0, 1), .flags = F_HELD, .tsi = 104, .base = 100,
	 .what = "s1 slot 0/1 from A, new region, held"},
	{REQ1(2, HB, 1, 0, 1), .flags = F_HELD, .tsi = 104, .base = 200,
	 .what = "s1 slot 0/1 from B, new, held"},
	{REQ1(3, HC, 1, 0, 1), .flags = F_HELD, .tsi = 104, .base = 400,
	 .what = "s1 slot 0/1 from C, new, held"},
	{REQ(1, HA, 1, 5, 0), .tsi = 105, .base = 1,
	 .what = "s1 slot 5/0 from A, old: beyond its 4 slots"},
	{REQ1(1, HA, 1, 8, 0), .tsi = 106, .base = 1,
	 .what = "s1 slot 8/0 from A, new: beyond its 8 slots"},
	/* 256 elements in the new region; B still lacks an old result of thread 1 */
	{REQ1(1, HA, 1, 7, 0), .flags = F_HELD, .big = 1, .tsi = 303, .sport = 4001,
	 .base = INT32_MAX, .step = -1, .what = "s1 slot 7/0 from A, new, 256, held"},
	{REQ1(2, HB, 1, 7, 0), .big = 1, .tsi = 303, .sport = 4001, .base = 1, .step = 1,
	 .what = "s1 slot 7/0 from B, new, 256, not held"},
	{REQ1(3, HC, 1, 7, 0), .flags = F_HELD, .big = 1, .tsi = 303, .sport = 4001,
	 .step = 0x10001, .what = "s1 slot 7/0 from C, new, 256, held"},
	{REQ(2, HB, 1, 2, 0), .tsi = 200, .sport = 4001, .base = 300, .step = -1,
	 .what = "s1 slot 2/0 from B again (its result lost)"},
	/* s2: changed from 2 slots to 4 and reset: generation 1, no change under way */
	{REQ(3, HD, 2, 0, 0), .base = 1, .what = "s2 slot 0/0 from D, parity 0: the left region's"},
	{REQ1(3, HD, 2, 0, 0), .base = 11, .step = 1, .what = "s2 slot 0/0 from D, parity 1"},
	{REQ1(1, HA, 2, 0, 0), .base = 22, .e0 = 4, .what = "s2 slot 0/0 from A, parity 1"},
	{REQ1(3, HD, 2, 4, 0), .base = 1, .what = "s2 slot 4/0 from D: beyond its 4 slots"},
	{REQ1(3, HD, 2, 3, 1), .base = 1, .what = "s2 slot 3/1 from D"},
	/* s3 never changed: bit 14 and the held bit mean nothing */
	{REQ1(0, HE, 3, 1, 0), .flags = F_HELD, .base = 5, .step = 5,
	 .what = "s3 slot 1/0 from E (its only worker), bit 14 and held set"},
};
/* clang-format on */

#define SA_NFRAMES_REGION (sizeof(sa_frames_region) / sizeof(sa_frames_region[0]))

static void sa_dst_mac(uint8_t *mac, uint8_t dmac)
{
	if (dmac == 0)
		memcpy(mac, sa_switch_mac, 6);
	else if (dmac == DM_DEFAULT)
		memcpy(mac, sa_default_mac, 6);
	else if (dmac == DM_BCAST)
		memcpy(mac, sa_bcast, 6);
	else
		host_mac(mac, dmac);
}

static uint32_t sa_dst_ip(const struct sa_spec *s)
{
	return s->s ? sa_sc->sess[s->s].ip : s->dip;
}

/* The tsi field: 4 opaque bytes, here little-endian like an x86 client's pkt_id. */
static void put_tsi(uint8_t *p, uint32_t tsi)
{
	p[0] = (uint8_t)tsi;
	p[1] = (uint8_t)(tsi >> 8);
	p[2] = (uint8_t)(tsi >> 16);
	p[3] = (uint8_t)(tsi >> 24);
}

/* A SwitchML frame as the spec describes, then the spec's deviations. */
static void sa_build_req(struct frame *f, const struct sa_spec *s, unsigned idx)
{
	unsigned elems = s->big ? 256 : 64, full = sa_frame_len(elems),
	         len = s->len ? s->len : full;
	unsigned code = s->code ? s->code - 1u : s->big ? SA_SIZE_256 : SA_SIZE_64, j;
	uint8_t *ip = f->b + ETH_LEN, *udp = ip + IP4_LEN, *hdr = udp + UDP_LEN;
	uint8_t dst[6], src[6];
	uint16_t frag = (s->flags & F_DF ? 0x4000 : 0) | (s->flags & F_MF ? 0x2000 : 0) |
	                (s->flags & F_FRAG ? 1 : 0);

	memset(f->b, 0, sizeof(f->b));
	sa_dst_mac(dst, s->dmac);
	host_mac(src, s->smac ? s->smac : s->h);
	eth_put(f->b, dst, src, ETHERTYPE_IP4);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)((len > full ? len : full) - ETH_LEN));
	put16(ip + 4, (uint16_t)idx);
	put16(ip + 6, frag);
	ip[8] = s->flags & F_TTL64 ? 64 : SA_TTL_IN;
	ip[9] = s->flags & F_TCP ? PROTO_TCP : PROTO_UDP;
	put32(ip + 12, host_ip(s->sip ? s->sip : s->h));
	put32(ip + 16, sa_dst_ip(s));
	if (!(s->flags & F_BADSUM))
		put16(ip + 10, csum_fold(csum_add(0, ip, IP4_LEN)));
	put16(udp, s->sport ? s->sport : SA_SPORT);
	put16(udp + 2, s->dport ? s->dport : SA_UDP_PORT);
	put16(udp + 4, (uint16_t)((len > full ? len : full) - ETH_LEN - IP4_LEN));
	put16(udp + 6, s->flags & F_BADSUM ? 0xdead : 0);
	hdr[0] = (uint8_t)((s->flags & F_TYPE0 ? 0x08 : SA_MSG_TYPE << 4) | code |
	                   (s->flags & F_HELD ? SA_FLAG_HELD : 0));
	hdr[1] = sa_sc->sess[s->s].job;
	put_tsi(hdr + 2, s->tsi ? s->tsi : idx);
	put16(hdr + 6, s->pool ? s->pool : (uint16_t)(s->set << 15 | s->par << 14 | s->slot));
	hdr[8] = (uint8_t)s->e0;
	hdr[9] = (uint8_t)s->e1;
	for (j = 0; j < elems; j++)
		put32(f->b + SA_VAL_OFF + 4 * j, (uint32_t)s->base + j * (uint32_t)s->step);
	if (len > full)
		fill(f->b + full, len - full, idx);
	f->len = len;
	if (s->flags & F_IHL6) {
		memmove(ip + IP4_LEN + 4, ip + IP4_LEN, f->len - ETH_LEN - IP4_LEN);
		memcpy(ip + IP4_LEN, (const uint8_t[]){1, 1, 1, 0}, 4); /* NOP NOP NOP EOL */
		f->len += 4;
		ip[0] = 0x46;
		put16(ip + 2, (uint16_t)(get16(ip + 2) + 4));
		put16(ip + 10, 0);
		put16(ip + 10, csum_fold(csum_add(0, ip, IP4_LEN + 4)));
	}
	if (s->flags & F_VLAN)
		add_vlan(f, 10);
}

static void sa_build(struct frame *f, const struct sa_spec *s, unsigned idx)
{
	uint8_t dst[6], src[6];
	struct udp4 u = {.dst = dst,
	                 .src = src,
	                 .ip_src = host_ip(s->h),
	                 .ip_dst = sa_dst_ip(s),
	                 .sport = (uint16_t)(10000 + idx),
	                 .dport = s->dport ? s->dport : 5000,
	                 .id = (uint16_t)idx,
	                 .seed = idx};
	uint8_t *icmp = f->b + ETH_LEN + IP4_LEN;

	sa_dst_mac(dst, s->dmac);
	host_mac(src, s->h);
	switch (s->kind) {
	case SK_REQ:
		sa_build_req(f, s, idx);
		break;
	case SK_ARP:
		build_arp(f, dst, src, host_ip(s->h), sa_dst_ip(s), s->flags & F_OP2);
		fill(f->b + ETH_LEN + ARP_LEN, f->len - ETH_LEN - ARP_LEN, idx); /* not zeros */
		if (s->flags & F_SHA6)
			f->b[ETH_LEN + 8 + 5] = 0x06;
		break;
	case SK_ICMP:
		build_icmp4_echo(f, s->len, dst, src, u.ip_src, u.ip_dst, s->flags & F_EREPLY,
		                 (uint16_t)idx);
		if (s->flags & F_CODE1) {
			icmp[1] = 1;
			put16(icmp + 2, 0);
			put16(icmp + 2, csum_fold(csum_add(0, icmp, s->len - ETH_LEN - IP4_LEN)));
		}
		break;
	case SK_UDP:
		build_udp4(f, s->len, &u);
		break;
	}
}

/* ---- Running the scenario -------------------------------------------------------------- */

/* The scenario's model: the switch state and the outputs of the frame being run. */
struct sa_ctx {
	struct sa_model m;
	struct scenario_out o;
};

static unsigned sa_port_of(unsigned idx)
{
	return sa_sc->frames[idx].port;
}

static void sa_build_idx(struct frame *f, unsigned idx)
{
	sa_build(f, &sa_sc->frames[idx], idx);
}

static void sa_process(void *model, const struct frame *f, unsigned idx, unsigned port,
                       unsigned round, FILE *manifest)
{
	struct sa_ctx *c = model;
	sa_expect(&c->m, f, port, &c->o);
	scenario_report(manifest, sa_sc->frames[idx].port, idx, round, f, sa_sc->frames[idx].what,
	                62, &c->o);
}

static int sa_write_config(const char *dir)
{
	char path[4096], mac[18], ip[16], text[4096];
	size_t i, n;

	n = (size_t)snprintf(text, sizeof(text),
	                     "# %s golden scenario: the switch's start-up commands.\n"
	                     "# Written by `pcapgen %s`; do not edit, regenerate "
	                     "(pcaps/README.md).\n"
	                     "pipeline enable syncagtr\n",
	                     sa_sc->name, sa_sc->name);
	mac_str(mac, sa_switch_mac);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "syncagtr switch mac %s\n", mac);
	for (i = 1; i <= SA_SESSIONS; i++) {
		const struct sa_sess_cfg *sc = &sa_sc->sess[i];

		ip_str(ip, sc->ip);
		n += (size_t)snprintf(text + n, sizeof(text) - n,
		                      "syncagtr session add %u ip %s workers %u", sc->id, ip,
		                      sc->n);
		if (sc->slots)
			n += (size_t)snprintf(text + n, sizeof(text) - n, " slots %u", sc->slots);
		if (sc->threads)
			n += (size_t)snprintf(text + n, sizeof(text) - n, " threads %u",
			                      sc->threads);
		n += (size_t)snprintf(text + n, sizeof(text) - n, "\n");
	}
	for (i = 0; i < sa_sc->nworkers; i++) {
		const struct sa_worker_cfg *w = &sa_sc->workers[i];
		uint8_t m[6];

		host_mac(m, w->host);
		mac_str(mac, m);
		ip_str(ip, host_ip(w->host));
		n += (size_t)snprintf(text + n, sizeof(text) - n,
		                      "syncagtr worker add %u %u mac %s ip %s port %u\n",
		                      sa_sc->sess[w->sess].id, w->rank, mac, ip,
		                      sa_host_port(w->host));
	}
	for (i = 1; i <= SA_SESSIONS; i++) {
		const struct sa_sess_cfg *sc = &sa_sc->sess[i];

		if (sc->to_slots)
			n += (size_t)snprintf(text + n, sizeof(text) - n,
			                      "syncagtr session region %u slots %u\n", sc->id,
			                      sc->to_slots);
		if (sc->reset)
			n += (size_t)snprintf(text + n, sizeof(text) - n,
			                      "syncagtr session reset %u keep-workers\n", sc->id);
	}
	for (i = HA; i < SA_NHOSTS; i++) {
		uint8_t m[6];

		host_mac(m, (unsigned)i);
		mac_str(mac, m);
		n += (size_t)snprintf(text + n, sizeof(text) - n, "l2 add %s %u\n", mac,
		                      sa_host_port((unsigned)i));
	}
	snprintf(path, sizeof(path), "%s/config", dir);
	return write_text(path, text);
}

/* Writes scenario sc into DIR (argv[0]): pcapgen syncagtr and syncagtr-region. */
static int sa_main(const struct sa_scen *sc, bool ordered, int argc, char **argv,
                   const char *header)
{
	const struct scenario scen = {
	        .name = sc->name,
	        .nports = SA_PORTS,
	        .nframes = sc->nframes,
	        .port_of = sa_port_of,
	        .ordered = ordered,
	        .build = sa_build_idx,
	        .process = sa_process,
	        .write_config = sa_write_config,
	};

	if (argc != 1 || strncmp(argv[0], "--", 2) == 0) {
		fprintf(stderr, "usage: %s %s DIR\n", prog, sc->name);
		return 2;
	}
	sa_sc = sc;
	struct sa_ctx *c = calloc(1, sizeof(*c));
	if (c == NULL || sa_model_init(&c->m) != 0) {
		if (c != NULL)
			sa_model_free(&c->m);
		free(c);
		return 1;
	}
	int rc = scenario_write(&scen, argv[0], c, header);
	sa_model_free(&c->m);
	free(c);
	return rc;
}

int cmd_syncagtr(int argc, char **argv)
{
	static const struct sa_scen sc = {"syncagtr",        sa_sess_golden,
	                                  sa_workers_golden, RTE_DIM_(sa_workers_golden),
	                                  sa_frames_golden,  SA_NFRAMES_GOLDEN};
	char header[1024], mac[18];

	mac_str(mac, sa_switch_mac);
	snprintf(
	        header, sizeof(header),
	        "# Input frames of the syncagtr golden scenario in the order the switch processes "
	        "them (one worker, --burst %u),\n# what each must do and where its outputs go. "
	        "Written by `pcapgen syncagtr`; do not edit.\n# Hosts A..E = 02:00:00:00:00:01..05 "
	        "(10.0.0.1..5) on ports 1 2 3 3 0; switch MAC %s.\n# \"slot 3/1\" = slot 3 "
	        "set 1; v0, vN: first and last value of the result (signed); e: its e0/e1.\n",
	        GOLDEN_BURST, mac);
	return sa_main(&sc, false, argc, argv, header);
}

int cmd_syncagtr_region(int argc, char **argv)
{
	static const struct sa_scen sc = {"syncagtr-region", sa_sess_region,
	                                  sa_workers_region, RTE_DIM_(sa_workers_region),
	                                  sa_frames_region,  SA_NFRAMES_REGION};
	char header[1024];

	snprintf(header, sizeof(header),
	         "# Input frames of the syncagtr-region golden scenario in the order the switch "
	         "takes them with\n# --replay-ordered, what each must do and where its outputs "
	         "go. Written by `pcapgen syncagtr-region`;\n# do not edit. Hosts A..E as in the "
	         "syncagtr scenario. s1 (id 5: A B C, threads 2) changes\n# from 4 slots to 8 "
	         "under its running job, the change under way for the whole replay; s2 (id 6)\n# "
	         "changed from 2 slots to 4 and was reset; s3 (id 7) never changed "
	         "(docs/memory.md).\n# \"(old region)\": a packet with bit 14 of the pool index "
	         "0, for the region s1 is leaving.\n");
	return sa_main(&sc, true, argc, argv, header);
}

/* ---- Benchmark traffic ----------------------------------------------------------------- */

#define SB_SESSION 1
#define SB_IP      IP(10, 0, 0, 254)

/* Worker r: MAC 02:00:00:00:01:rr, IPv4 10.0.1.(r+1). */
static void sb_worker(unsigned r, uint8_t *mac, uint32_t *ip)
{
	const uint8_t m[6] = {0x02, 0, 0, 0, 0x01, (uint8_t)r};

	memcpy(mac, m, 6);
	*ip = IP(10, 0, 1, r + 1);
}

static int sb_config(FILE *fp, const struct opts *o)
{
	char mac[18], ip[16];
	unsigned r;

	mac_str(mac, sa_default_mac);
	ip_str(ip, SB_IP);
	fprintf(fp, "syncagtr switch mac %s\nsyncagtr session add %u ip %s workers %lu slots %lu\n",
	        mac, SB_SESSION, ip, o->workers, o->slots);
	for (r = 0; r < o->workers; r++) {
		uint8_t m[6];
		uint32_t a;

		sb_worker(r, m, &a);
		mac_str(mac, m);
		ip_str(ip, a);
		fprintf(fp, "syncagtr worker add %u %u mac %s ip %s port 1\n", SB_SESSION, r, mac,
		        ip);
	}
	return ferror(fp) ? -EIO : 0;
}

/* One worker's packet for (slot, set), like a recycled mbuf of SwitchML's DPDK client. */
static void sb_packet(struct frame *f, const struct opts *o, unsigned r, unsigned slot,
                      unsigned set, uint32_t tsi)
{
	uint8_t *ip = f->b + ETH_LEN, *udp = ip + IP4_LEN, *hdr = udp + UDP_LEN, mac[6];
	unsigned elems = (unsigned)o->elems, len = sa_frame_len(elems), j;
	uint32_t a;

	memset(f->b, 0, len);
	sb_worker(r, mac, &a);
	eth_put(f->b, sa_default_mac, mac, ETHERTYPE_IP4);
	ip4_put(ip, PROTO_UDP, a, SB_IP, (uint16_t)(len - ETH_LEN), 0);
	put16(ip + 6, 0); /* no DF, as the client sends */
	put16(ip + 10, 0);
	put16(ip + 10, csum_fold(csum_add(0, ip, IP4_LEN)));
	put16(udp, SA_SPORT);
	put16(udp + 2, SA_UDP_PORT);
	put16(udp + 4, (uint16_t)(len - ETH_LEN - IP4_LEN));
	hdr[0] = (uint8_t)(SA_MSG_TYPE << 4 | (elems == 256 ? SA_SIZE_256 : SA_SIZE_64));
	put_tsi(hdr + 2, tsi);
	sa_hdr_set_pool((struct sa_hdr *)hdr, set, slot);
	for (j = 0; j < elems; j++)
		put32(f->b + SA_VAL_OFF + 4 * j, (r + 1) * (j + 1));
	f->len = len;
}

int cmd_syncagtr_bench(int argc, char **argv)
{
	static const char *const allowed[] = {"--workers", "--slots", "--elems", "--config", NULL};
	struct opts o = {.cmd = "syncagtr-bench", .workers = 8, .slots = 256, .elems = 64};
	unsigned round, slot, r;
	struct frame *f;
	struct writer w;
	uint32_t tsi = 0;
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
	rc = sb_config(cfg, &o);
	if (cfg != stdout && fclose(cfg) != 0)
		rc = -EIO;
	f = malloc(sizeof(*f));
	if (rc != 0 || f == NULL || writer_open(&w, o.out) != 0) {
		free(f);
		return 1;
	}
	/* Two rounds per slot, set 0 then set 1, so that the replayed file starts over on
	 * set 0 with every worker's set-0 bit cleared by its set-1 packet. */
	for (round = 0; round < 2; round++)
		for (slot = 0; slot < o.slots; slot++)
			for (r = 0; r < o.workers; r++) {
				sb_packet(f, &o, r, slot, round, tsi++);
				writer_put(&w, f->b, f->len);
			}
	rc = writer_close(&w);
	free(f);
	return rc == 0 ? 0 : 1;
}
