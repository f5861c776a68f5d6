/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SyncAgtr data path: admission, the per-slot aggregation of SwitchML's Tofino program in one
 * pass (four for 256-element packets), and the result packet (both in docs/syncagtr.md). Also
 * answers ARP and ICMP echo for the sessions' switch IPs, so workers on kernel sockets need no
 * static neighbour entries.
 *
 * Runs on worker lcores: no allocation, locks, logs or syscalls. Every offset read from a packet
 * is checked against its length first; anything malformed is a counted drop.
 *
 * Stages (the ASIC declaration in syncagtr_ctl.c): 0 admission table; 1 bitmap (and learn);
 * 2 count and exponents; 3..18 the 64 value lanes, 4 per stage.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "arp.h"
#include "pipeline.h"
#include "pre.h"
#include "syncagtr.h"
#include "worker.h"

#define ETH_TYPE_IPV4 0x0800
#define ETH_TYPE_ARP  0x0806
#define IP_PROTO_ICMP 1
#define IP_PROTO_UDP  17
#define IP_FRAG_MASK  0x3FFF /* MF flag and fragment offset */
#define REPLY_TTL     64
#define REPLY_HDR_LEN (SA_ETH_LEN + SA_IP_LEN) /* what differs between replicas */

/* The key as two words: a = source MAC (upper 16 bits zero), b = source and destination IP. */
static inline uint32_t sa_hash_words(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9E3779B97F4A7C15ull ^ b * 0xC2B2AE3D27D4EB4Full;
	h ^= h >> 29;
	return (uint32_t)(h ^ h >> 32);
}

uint32_t sa_key_hash(const struct sa_key *k)
{
	uint64_t a, b;
	memcpy(&a, k, 8);
	memcpy(&b, (const uint8_t *)k + 8, 8);
	return sa_hash_words(a, b);
}

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/*
 * The admission table lookup. The key words are loaded straight from the frame (source MAC at
 * 6, with the EtherType masked off; source and destination IP adjacent at 26), not assembled
 * in memory first: that would stall on store forwarding.
 */
static inline const struct sa_entry *sa_lookup(const struct sa_conf *c, const uint8_t *p)
{
	uint64_t a, b;
	memcpy(&a, p + 6, 8);
	memcpy(&b, p + SA_ETH_LEN + 12, 8);
	a &= rte_cpu_to_le_64(0x0000FFFFFFFFFFFFull);
	uint32_t h = sa_hash_words(a, b);
	for (uint32_t i = 0; i < SA_TABLE_SIZE; i++) {
		const struct sa_entry *e = &c->table[(h + i) & (SA_TABLE_SIZE - 1)];
		if (!e->used)
			return NULL;
		uint64_t ka, kb;
		memcpy(&ka, &e->key, 8);
		memcpy(&kb, (const uint8_t *)&e->key + 8, 8);
		if (ka == a && kb == b)
			return e;
	}
	return NULL;
}

static inline const struct sa_session *sa_session_by_ip(const struct sa_conf *c, rte_be32_t ip)
{
	for (unsigned i = 0; i < c->nb_ids; i++)
		if (c->sess[c->ids[i]].ip == ip)
			return &c->sess[c->ids[i]];
	return NULL;
}

static inline void ip_csum_set(uint8_t *ip)
{
	struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;
	h->hdr_checksum = 0;
	h->hdr_checksum = rte_ipv4_cksum(h);
}

/* Ones' complement sum of v's two 16-bit halves added to a folded checksum c. */
static inline uint16_t csum_add32(uint16_t c, rte_be32_t v)
{
	const uint8_t *b = (const uint8_t *)&v;
	uint32_t s = (uint32_t)c + (uint32_t)(b[0] << 8 | b[1]) + (uint32_t)(b[2] << 8 | b[3]);
	s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)((s & 0xFFFF) + (s >> 16));
}

/*
 * Per-replica rewrite: the worker's Ethernet and IPv4 destination. sa_reply_headers() left the
 * checksum of the header with destination 0.0.0.0; adding the destination to it is the whole
 * update (RFC 1624), so no replica sums the header again.
 */
static void sa_rewrite(struct rte_mbuf *m, uint16_t rid, uint16_t port, void *arg)
{
	RTE_SET_USED(port);
	const struct sa_session *s = arg;
	const struct sa_member *mb = &s->w[rid & (SA_WORKERS_MAX - 1)];
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *ip = p + SA_ETH_LEN;
	memcpy(p, mb->mac, 6);
	memcpy(ip + 16, &mb->ip, 4);
	uint16_t c = (uint16_t)~rd16(ip + 10);
	wr16(ip + 10, (uint16_t)~csum_add32(c, mb->ip));
}

/*
 * The headers every packet the switch sends has, from the IPv4 header on: a fresh IPv4 header
 * from src to dst (dst 0.0.0.0 for a multicast: sa_rewrite() adds each replica's), the UDP
 * length and checksum 0 (ports as they are), msg_type 1, pool index bit 14 cleared, exponents e.
 */
static inline void sa_headers(uint8_t *p, rte_be32_t src, rte_be32_t dst, unsigned size,
                              unsigned elems, struct isw_pair e)
{
	uint8_t *ip = p + SA_ETH_LEN;
	ip[0] = 0x45;
	ip[1] = 0;
	wr16(ip + 2, (uint16_t)(SA_IP_LEN + SA_UDP_LEN + SA_HDR_LEN + SA_EXP_LEN + 4 * elems));
	/* (sa_note_add() adds the region note's length to both lengths when there is one) */
	memset(ip + 4, 0, 4); /* identification, flags, fragment offset */
	ip[8] = REPLY_TTL;
	ip[9] = IP_PROTO_UDP;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	ip_csum_set(ip);
	uint8_t *udp = ip + SA_IP_LEN;
	wr16(udp + 4, (uint16_t)(SA_UDP_LEN + SA_HDR_LEN + SA_EXP_LEN + 4 * elems));
	wr16(udp + 6, 0);
	struct sa_hdr *h = (struct sa_hdr *)(p + SA_HDR_OFF);
	h->type_size = (uint8_t)(SA_MSG_TYPE << 4 | size);
	h->pool_index[0] &= 0xBF;
	h->e0 = (int8_t)e.lo;
	h->e1 = (int8_t)e.hi;
}

/*
 * Turns a request into the result's headers (docs/syncagtr.md), leaving the destination addresses
 * to sa_rewrite(): switch MAC and session IP as sources, UDP ports swapped (a result from the
 * parent switch already has the workers' port as its destination: swap false).
 */
static inline void sa_reply_headers(uint8_t *p, const struct sa_conf *c, const struct sa_session *s,
                                    unsigned size, unsigned elems, struct isw_pair e, bool swap)
{
	memcpy(p + 6, c->mac, 6);
	sa_headers(p, s->ip, 0, size, elems, e);
	if (swap) {
		uint8_t *udp = p + SA_ETH_LEN + SA_IP_LEN, sport[2];
		memcpy(sport, udp, 2);
		memcpy(udp, udp + 2, 2);
		memcpy(udp + 2, sport, 2);
	}
}

/*
 * Turns a packet into this switch's contribution to the parent's session (docs/fabric.md): from
 * the switch MAC and uplink address to the parent's, the UDP ports as the workers sent them (the
 * parent's result comes back to their port), tsi and pool index unchanged, the exponent maxima.
 */
static inline void sa_up_headers(uint8_t *p, const struct sa_conf *c, const struct sa_session *s,
                                 unsigned size, unsigned elems, struct isw_pair e)
{
	memcpy(p, s->up.parent_mac, 6);
	memcpy(p + 6, c->mac, 6);
	sa_headers(p, s->up.ip, s->up.parent_ip, size, elems, e);
}

/*
 * A result of a session whose region changed: bit 14 of the pool index as the packet had it
 * (pool: the request's), and, while a change is under way and the thread's boundary is known,
 * the region note after the values (docs/memory.md). A frame that cannot take the note (no
 * tailroom) goes without it: the worker learns the boundary from another result.
 */
static __rte_always_inline void sa_note_add(struct isw_worker *w, struct rte_mbuf *m, uint8_t *p,
                                            const struct sa_session *s, struct sa_counters *cnt,
                                            uint16_t pool, unsigned elems, uint32_t thread)
{
	struct sa_hdr *h = (struct sa_hdr *)(p + SA_HDR_OFF);
	h->pool_index[0] = (uint8_t)(h->pool_index[0] | (pool & SA_POOL_GEN) >> 8);
	if (!s->changing)
		return;
	uint64_t b = __atomic_load_n(&sa_bound[s->id][thread], __ATOMIC_RELAXED);
	if (!(b & SA_BOUND_SET))
		return;
	uint32_t len = sa_frame_len(elems);
	if (!rte_pktmbuf_is_contiguous(m))
		return; /* (a chained frame goes without: another result brings the note) */
	if (rte_pktmbuf_pkt_len(m) > len &&
	    rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - len)) != 0)
		return;
	struct sa_note *n = (struct sa_note *)rte_pktmbuf_append(m, SA_NOTE_LEN);
	if (n == NULL)
		return;
	n->magic[0] = SA_NOTE_MAGIC0;
	n->magic[1] = SA_NOTE_MAGIC1;
	n->gen = (uint8_t)s->gen;
	n->job = (uint8_t)(b >> 32);
	uint32_t tsi = (uint32_t)b;
	memcpy(n->tsi, &tsi, 4);
	wr16(n->slots, (uint16_t)(s->nslots >> 16));
	wr16(n->slots + 2, (uint16_t)s->nslots);
	memset(n->rsvd, 0, sizeof(n->rsvd));
	uint8_t *ip = p + SA_ETH_LEN;
	wr16(ip + 2, (uint16_t)(rd16(ip + 2) + SA_NOTE_LEN));
	wr16(ip + SA_IP_LEN + 4, (uint16_t)(rd16(ip + SA_IP_LEN + 4) + SA_NOTE_LEN));
	ip_csum_set(ip);
	cnt->notes++;
	RTE_SET_USED(w);
}

/* ARP request for a session's IP: answered in place out of the ingress port. */
static inline int sa_arp(struct isw_worker *w, struct rte_mbuf *m, const struct sa_conf *c,
                         uint8_t *p, uint32_t len)
{
	rte_be32_t tpa;
	if (!isw_arp_request(p, len, &tpa) || sa_session_by_ip(c, tpa) == NULL)
		return ISW_PKT_NEXT;
	isw_arp_answer(p, c->mac);
	sa_gcounters[w->index].arp_replies++;
	isw_tx(w, m, isw_meta(m)->in_port);
	return ISW_PKT_TAKEN;
}

/* ICMP echo request to a session's IP: answered in place out of the ingress port. */
static inline int sa_icmp(struct isw_worker *w, struct rte_mbuf *m, const struct sa_conf *c,
                          uint8_t *p, uint32_t len)
{
	uint8_t *ip = p + SA_ETH_LEN;
	uint8_t *icmp = ip + SA_IP_LEN;
	if (len < SA_ETH_LEN + SA_IP_LEN + 8 || icmp[0] != 8 || icmp[1] != 0 ||
	    memcmp(p, c->mac, 6) != 0)
		return ISW_PKT_NEXT;
	rte_be32_t dst;
	memcpy(&dst, ip + 16, 4);
	if (sa_session_by_ip(c, dst) == NULL)
		return ISW_PKT_NEXT;
	memcpy(p, p + 6, 6);
	memcpy(p + 6, c->mac, 6);
	memcpy(ip + 16, ip + 12, 4);
	memcpy(ip + 12, &dst, 4);
	ip[8] = REPLY_TTL;
	ip_csum_set(ip);
	/* Type 8 -> 0 lowers the first 16-bit word by 0x0800: raise the checksum by as much
	 * (RFC 1624, in ones' complement). */
	icmp[0] = 0;
	uint32_t sum = (uint32_t)rd16(icmp + 2) + 0x0800;
	sum = (sum & 0xFFFF) + (sum >> 16);
	wr16(icmp + 2, (uint16_t)sum);
	sa_gcounters[w->index].icmp_replies++;
	isw_tx(w, m, isw_meta(m)->in_port);
	return ISW_PKT_TAKEN;
}

/* Values of one (slot, set): chunk k of 64 elements is one pass over the 64 lanes. */
static __rte_always_inline void sa_values_merge(struct isw_pass *pass, uint32_t cidx, uint8_t *vals,
                                                unsigned elems, bool first, bool done)
{
	const struct isw_reg *r = sa_regs[SA_REG_VALUES];
	for (unsigned k = 0; k < elems / SA_CHUNK; k++) {
		if (k > 0)
			isw_pass_recirculate(pass);
		uint8_t *chunk = vals + 4 * SA_CHUNK * k;
		isw_salu_vec_merge(pass, r, sa_vidx(cidx, k), chunk, SA_CHUNK, first,
		                   done ? chunk : NULL);
	}
}

static __rte_always_inline void sa_values_read(struct isw_pass *pass, uint32_t cidx, uint8_t *vals,
                                               unsigned elems)
{
	const struct isw_reg *r = sa_regs[SA_REG_VALUES];
	for (unsigned k = 0; k < elems / SA_CHUNK; k++) {
		if (k > 0)
			isw_pass_recirculate(pass);
		isw_salu_vec_read(pass, r, sa_vidx(cidx, k), vals + 4 * SA_CHUNK * k, SA_CHUNK);
	}
}

static __rte_always_inline int sa_data(struct isw_worker *w, struct rte_mbuf *m,
                                       struct isw_pass *pass, const struct sa_conf *c,
                                       const struct sa_entry *e);

/*
 * A packet of a session whose region is changing: counted when it is for the old region; in
 * the new one, a worker thread that says it holds every old result (SA_FLAG_HELD) is marked
 * drained (a load first: the atomic only once per worker and thread).
 */
static __rte_always_inline void sa_change_seen(const struct sa_session *s, struct sa_counters *cnt,
                                               bool old, const struct sa_hdr *h, uint32_t thread,
                                               uint8_t rank)
{
	if (old) {
		cnt->old_gen++;
		return;
	}
	if (rank >= SA_WORKERS_MAX) /* the parent's entry: sessions with an uplink never change */
		return;
	uint32_t bit = 1u << rank;
	if ((h->type_size & SA_FLAG_HELD) &&
	    !(__atomic_load_n(&sa_held[s->id][thread], __ATOMIC_RELAXED) & bit))
		__atomic_fetch_or(&sa_held[s->id][thread], bit, __ATOMIC_RELAXED);
}

/*
 * The parent switch's result for (slot, set) cidx of a session with an uplink, checked by
 * sa_data() like any packet (size, length, region, the slot's lcore). Taken only if the slot
 * sent up the round it answers, the same tsi and job, and has not taken it yet; then it becomes
 * the slot's values and exponents (what retransmissions are answered with) and goes to the
 * local workers as their result, to their UDP port, which the parent already put as its
 * destination. A duplicate or one for another round is a counted drop (docs/fabric.md).
 */
static __rte_always_inline int sa_parent_result(struct isw_worker *w, struct rte_mbuf *m,
                                                struct isw_pass *pass, const struct sa_conf *c,
                                                const struct sa_session *s, struct sa_counters *cnt,
                                                uint32_t cidx)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	struct sa_hdr *h = (struct sa_hdr *)(p + SA_HDR_OFF);
	unsigned size = sa_hdr_size(h), elems = sa_size_elems(size);
	uint32_t tsi = sa_hdr_tsi(h), open = SA_UP_OPEN | (uint32_t)h->job_number << 8;
	uint32_t final = SA_UP_FINAL | (uint32_t)h->job_number << 8 |
	                 (uint32_t)(uint8_t)h->e0 << 16 | (uint32_t)(uint8_t)h->e1 << 24;
	struct isw_pair was =
	        isw_salu_pair_cas_hi(pass, sa_regs[SA_REG_UP], cidx, tsi, open, final);
	if (unlikely(was.lo != tsi || was.hi != open)) {
		bool dup = was.lo == tsi && (was.hi & 0xFFFFu) == (final & 0xFFFFu);
		if (dup)
			cnt->up_dup++;
		else
			cnt->up_stale++;
		isw_drop(w, m, dup ? ISW_DROP_SA_UP_DUP : ISW_DROP_SA_UP_STALE);
		return ISW_PKT_TAKEN;
	}
	/* Stage 2 decided; the values' stages store the result (the exponents went with the
	 * state: one SALU, no second access to stage 2's exponent array). */
	struct isw_pair ex = {(uint32_t)(int32_t)h->e0, (uint32_t)(int32_t)h->e1};
	sa_values_merge(pass, cidx, p + SA_VAL_OFF, elems, true, false);
	cnt->up_results++;
	sa_reply_headers(p, c, s, size, elems, ex, false);
	isw_mcast(w, m, s->group, ISW_MC_NO_EXCLUDE, sa_rewrite, (void *)(uintptr_t)s,
	          REPLY_HDR_LEN);
	return ISW_PKT_TAKEN;
}

/* What a packet is to this pipeline (sa_classify()). */
enum sa_kind {
	SA_OTHER,   /* not ours */
	SA_ARP,     /* ARP: maybe a request for a session's IP */
	SA_ICMP,    /* ICMP over IPv4: maybe an echo request to a session's IP */
	SA_UNKNOWN, /* SwitchML to the switch MAC from no registered worker */
	SA_DATA,    /* SwitchML to the switch MAC from a registered worker: *e */
};

/*
 * The admission checks, and the table lookup for a SwitchML packet. Reads the packet and c,
 * writes nothing but *e: sa_process_burst() runs it on a whole burst before any packet's work.
 */
static __rte_always_inline enum sa_kind
sa_classify(const struct sa_conf *c, const struct rte_mbuf *m, const struct sa_entry **e)
{
	uint32_t len = rte_pktmbuf_data_len(m);
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	if (unlikely(len < SA_ETH_LEN + SA_IP_LEN))
		return SA_OTHER;
	uint16_t type = rd16(p + 12);
	if (unlikely(type != ETH_TYPE_IPV4))
		return type == ETH_TYPE_ARP ? SA_ARP : SA_OTHER;
	const uint8_t *ip = p + SA_ETH_LEN;
	if (ip[0] != 0x45 || (rd16(ip + 6) & IP_FRAG_MASK) != 0)
		return SA_OTHER;
	if (unlikely(ip[9] != IP_PROTO_UDP))
		return ip[9] == IP_PROTO_ICMP ? SA_ICMP : SA_OTHER;
	if (len < SA_HDR_OFF)
		return SA_OTHER;
	/* To the SwitchML port: a worker's. From it: a parent switch's result (docs/fabric.md). */
	const uint8_t *udp = ip + SA_IP_LEN;
	bool to_sa = (rd16(udp + 2) & SA_UDP_PORT_MASK) == SA_UDP_PORT;
	bool from_sa = (rd16(udp) & SA_UDP_PORT_MASK) == SA_UDP_PORT;
	if (!to_sa && !from_sa)
		return SA_OTHER;
	if (memcmp(p, c->mac, 6) != 0)
		return SA_OTHER;
	*e = sa_lookup(c, p);
	if (likely(*e != NULL) && ((*e)->rank == SA_RANK_PARENT ? from_sa : to_sa))
		return SA_DATA;
	return to_sa ? SA_UNKNOWN : SA_OTHER;
}

static __rte_always_inline int sa_process_common(struct isw_worker *w, struct rte_mbuf *m,
                                                 struct isw_pass *pass)
{
	const struct sa_conf *c = ISW_RCU_LOAD(sa_conf_cur);
	if (unlikely(c == NULL))
		return ISW_PKT_NEXT;
	const struct sa_entry *e = NULL;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	switch (sa_classify(c, m, &e)) {
	case SA_DATA:
		return sa_data(w, m, pass, c, e);
	case SA_ARP:
		return sa_arp(w, m, c, p, rte_pktmbuf_data_len(m));
	case SA_ICMP:
		return sa_icmp(w, m, c, p, rte_pktmbuf_data_len(m));
	case SA_UNKNOWN:
		sa_gcounters[w->index].unknown++;
		return ISW_PKT_NEXT;
	default:
		return ISW_PKT_NEXT;
	}
}

/* A packet that sa_classify() found to be SA_DATA: of worker e->rank of session e->session. */
static __rte_always_inline int sa_data(struct isw_worker *w, struct rte_mbuf *m,
                                       struct isw_pass *pass, const struct sa_conf *c,
                                       const struct sa_entry *e)
{
	uint32_t len = rte_pktmbuf_data_len(m);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	const struct sa_session *s = &c->sess[e->session];
	struct sa_counters *cnt = &sa_counters[w->index][e->session];
	/* A member of an earlier job (registered before the session's last reset): whatever it
	 * sends belongs to no round of this one. */
	if (unlikely(e->stale)) {
		cnt->bad_epoch++;
		isw_drop(w, m, ISW_DROP_SA_EPOCH);
		return ISW_PKT_TAKEN;
	}
	if (unlikely(len < SA_VAL_OFF)) {
		cnt->malformed++;
		isw_drop(w, m, ISW_DROP_MALFORMED);
		return ISW_PKT_TAKEN;
	}
	struct sa_hdr *h = (struct sa_hdr *)(p + SA_HDR_OFF);
	unsigned size = sa_hdr_size(h);
	unsigned elems = sa_size_elems(size);
	if (unlikely(elems == 0)) {
		cnt->bad_size++;
		isw_drop(w, m, ISW_DROP_SA_SIZE);
		return ISW_PKT_TAKEN;
	}
	if (unlikely(len < sa_frame_len(elems))) {
		cnt->malformed++;
		isw_drop(w, m, ISW_DROP_MALFORMED);
		return ISW_PKT_TAKEN;
	}
	uint16_t pool = sa_hdr_pool(h);
	uint32_t slot = pool & SA_POOL_SLOT;
	unsigned set = pool >> 15;
	/* The region the packet is for: the session's, or, once its region has changed, the one
	 * of the generation parity in bit 14 (docs/memory.md). */
	const struct sa_region *old = NULL;
	uint32_t base = s->base, nslots = s->nslots;
	if (unlikely(s->gen != 0) && ((pool & SA_POOL_GEN) != 0) != (s->gen & 1u)) {
		if (!s->old.valid) {
			cnt->bad_gen++;
			isw_drop(w, m, ISW_DROP_SA_GEN);
			return ISW_PKT_TAKEN;
		}
		old = &s->old;
		base = old->base;
		nslots = old->nslots;
	}
	if (unlikely(slot >= nslots)) {
		cnt->bad_region++;
		isw_drop(w, m, ISW_DROP_SA_REGION);
		return ISW_PKT_TAKEN;
	}
	uint32_t g = base + slot;
	uint32_t thread = 0;
	if (s->threads != 0) {
		thread = old != NULL ? sa_slot_thread(old->spt, old->spt_shift, slot)
		                     : sa_slot_thread(s->spt, s->spt_shift, slot);
		if (!isw_owner_claim(w, m, s->owner[thread]))
			return ISW_PKT_TAKEN;
	} else if (!isw_shard_claim(w, m, g)) {
		return ISW_PKT_TAKEN;
	}
	if (unlikely(s->changing))
		sa_change_seen(s, cnt, old != NULL, h, thread, e->rank);

	isw_pass_begin(pass);
	cnt->pkts++;
	if (unlikely(e->rank == SA_RANK_PARENT))
		return sa_parent_result(w, m, pass, c, s, cnt, sa_cidx(g, set));
	const struct sa_member *mb = &s->w[e->rank];
	if (unlikely(mb->auto_port))
		isw_salu_update(pass, sa_regs[SA_REG_LEARN],
		                (uint32_t)(e->session - 1) * SA_WORKERS_MAX + e->rank,
		                isw_meta(m)->in_port + 1u);
	uint32_t bit = 1u << e->rank;
	uint32_t before = isw_salu_pair_set_clear(pass, sa_regs[SA_REG_BITMAP], g, set, bit);
	uint32_t cidx = sa_cidx(g, set);
	uint8_t *vals = p + SA_VAL_OFF;

	if (unlikely(before & bit)) {
		/* Retransmission: the result if the slot is complete, else nothing yet. */
		cnt->retx++;
		if (isw_salu_read(pass, sa_regs[SA_REG_COUNT], cidx) != 0) {
			cnt->retx_pending++;
			isw_drop(w, m, ISW_DROP_SA_RETX_PENDING);
			return ISW_PKT_TAKEN;
		}
		struct isw_pair ex = isw_salu_pair_read(pass, sa_regs[SA_REG_EXP], cidx);
		sa_values_read(pass, cidx, vals, elems);
		if (unlikely(s->up.on)) {
			struct isw_pair up = isw_salu_pair_read(pass, sa_regs[SA_REG_UP], cidx);
			if ((up.hi & 0xFFu) != SA_UP_FINAL) {
				/* Complete here, the parent's result not in yet: the partial sum
				 * again (the parent's bitmap answers it or discards it). */
				sa_up_headers(p, c, s, size, elems, ex);
				cnt->up_resent++;
				isw_tx(w, m, s->up.port);
				return ISW_PKT_TAKEN;
			}
			ex = (struct isw_pair){(uint32_t)(int32_t)(int8_t)(up.hi >> 16),
			                       (uint32_t)(int32_t)(int8_t)(up.hi >> 24)};
		}
		sa_reply_headers(p, c, s, size, elems, ex, true);
		if (unlikely(s->gen != 0))
			sa_note_add(w, m, p, s, cnt, pool, elems, thread);
		sa_rewrite(m, e->rank, 0, (void *)(uintptr_t)s);
		cnt->retx_results++;
		isw_tx(w, m, isw_meta(m)->in_port);
		return ISW_PKT_TAKEN;
	}

	bool first = before == 0;
	bool done = isw_salu_countdown(pass, sa_regs[SA_REG_COUNT], cidx, first, s->nworkers);
	struct isw_pair ex =
	        isw_salu_pair_max(pass, sa_regs[SA_REG_EXP], cidx, first, h->e0, h->e1);
	if (unlikely(s->up.on) && first) /* a round starts: its result will come from above */
		isw_salu_pair_write(pass, sa_regs[SA_REG_UP], cidx,
		                    (struct isw_pair){sa_hdr_tsi(h),
		                                      SA_UP_OPEN | (uint32_t)h->job_number << 8});
	sa_values_merge(pass, cidx, vals, elems, first, done);
	cnt->contribs++;
	if (!done) {
		isw_consume(w, m);
		return ISW_PKT_TAKEN;
	}
	cnt->completions++;
	cnt->values += elems;
	if (unlikely(s->up.on)) {
		/* Complete here: the partial sum goes up, one contribution of the parent's. */
		cnt->up_sent++;
		sa_up_headers(p, c, s, size, elems, ex);
		isw_tx(w, m, s->up.port);
		return ISW_PKT_TAKEN;
	}
	sa_reply_headers(p, c, s, size, elems, ex, true);
	if (unlikely(s->gen != 0)) {
		/* The thread's first completion in the old region after the request sets its
		 * boundary (docs/memory.md): every worker learns it from this result or a later
		 * one, before it may send the packet a window after this one. */
		if (s->changing && old != NULL &&
		    !(__atomic_load_n(&sa_bound[e->session][thread], __ATOMIC_RELAXED) &
		      SA_BOUND_SET)) { /* a load first: the locked CAS once per thread */
			uint64_t none = 0;
			uint64_t b = SA_BOUND_SET | (uint64_t)h->job_number << 32 | sa_hdr_tsi(h);
			__atomic_compare_exchange_n(&sa_bound[e->session][thread], &none, b, false,
			                            __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		}
		sa_note_add(w, m, p, s, cnt, pool, elems, thread);
	}
	isw_mcast(w, m, s->group, ISW_MC_NO_EXCLUDE, sa_rewrite, (void *)(uintptr_t)s,
	          REPLY_HDR_LEN);
	return ISW_PKT_TAKEN;
}

ISW_VEC_CLONES int sa_process(struct isw_worker *w, struct rte_mbuf *m)
{
	return sa_process_common(w, m, NULL);
}

/* What sa_process_burst() works out for the whole burst before it runs any packet. */
struct sa_burst {
	const struct sa_conf *c;
	uint16_t n;                              /* the leading packets that are SA_DATA */
	const struct sa_entry *e[ISW_BURST_MAX]; /* their entries */
};

static __rte_always_inline int sa_burst_one(struct isw_worker *w, struct rte_mbuf *m,
                                            const void *ctx, uint16_t i)
{
	const struct sa_burst *b = ctx;
	if (likely(i < b->n))
		return sa_data(w, m, NULL, b->c, b->e[i]);
	return sa_process_common(w, m, NULL);
}

/*
 * The admissions of the leading data packets first: their lookups are independent of one
 * another, so the CPU overlaps them, where one packet at a time each waited on its own chain of
 * loads (packet, hash, table entry). The first other packet, and all after it, take the full
 * path: the burst stops at a packet that is not the pipeline's and resumes with a new call, so
 * classifying past it could classify the same packets again and again in mixed traffic.
 */
ISW_VEC_CLONES uint16_t sa_process_burst(struct isw_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	struct sa_burst b;
	b.c = ISW_RCU_LOAD(sa_conf_cur);
	b.n = 0;
	if (b.c != NULL)
		while (b.n < n && sa_classify(b.c, pkts[b.n], &b.e[b.n]) == SA_DATA)
			b.n++;
	return isw_burst_run(w, pkts, n, sa_burst_one, &b);
}

ISW_VEC_CLONES int sa_process_strict(struct isw_worker *w, struct rte_mbuf *m)
{
	return sa_process_common(w, m, &w->pass);
}
