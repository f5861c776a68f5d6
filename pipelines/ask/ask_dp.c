/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ASK data path (docs/ask.md): DATA through the window register, the seen/AggState rings and the
 * aggregator arrays, then on to the receiver; SWAP and FETCH answered out of the ingress port;
 * ARP for the ASK address. Runs on worker lcores: no allocation, locks, logs or syscalls; every
 * field is length-checked before it is read. State is sharded by task.
 *
 * Stages (ask_ctl.c declares them): 0 task table; 1 window, seen and active copy; 2..13 the
 * aggregator arrays, two per group of three stages; 14 AggState. A packet of more than
 * ASK_AA_UNITS slots recirculates once per further group of ASK_AA_UNITS slots.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "arp.h"
#include "ask.h"
#include "pipeline.h"
#include "worker.h"

#define ETH_TYPE_IPV4 0x0800
#define ETH_TYPE_ARP  0x0806
#define IP_PROTO_UDP  17
#define IP_FRAG_MASK  0x3FFF

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void drop(struct isw_worker *w, struct rte_mbuf *m, struct ask_counters *cnt,
                        enum isw_drop reason)
{
	if (cnt != NULL)
		cnt->drops++;
	isw_drop(w, m, reason);
}

static inline void ip_csum_set(uint8_t *ip)
{
	struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;
	h->hdr_checksum = 0;
	h->hdr_checksum = rte_ipv4_cksum(h);
}

/* DATA on to the task's receiver, whatever the sender addressed: destination MAC, IP and UDP
 * port from the task. The payload changed, so the UDP checksum goes to zero. Back out of the
 * port it came in on (one-armed: senders and receiver behind one port), it leaves with the
 * switch's MAC as its source, as a router's would: with the sender's, the switch in front of
 * that port would learn the sender behind this one and send the receiver's ACKs here. */
static inline void to_receiver(struct isw_worker *w, struct rte_mbuf *m, uint8_t *p,
                               const struct ask_conf *c, const struct ask_task *t)
{
	uint8_t *ip = p + ASK_ETH_LEN;
	uint8_t *udp = ip + ASK_IP_LEN;
	memcpy(p, t->mac, 6);
	if (unlikely(isw_meta(m)->in_port == t->port))
		memcpy(p + 6, c->mac, 6);
	if (memcmp(ip + 16, &t->ip, 4) != 0) {
		memcpy(ip + 16, &t->ip, 4);
		ip_csum_set(ip);
	}
	memcpy(udp + 2, &t->udp_port, 2);
	udp[6] = udp[7] = 0;
	isw_tx(w, m, t->port);
}

/* A reply back out of the ingress port: Ethernet and IPv4 addresses and UDP ports swapped
 * (which leaves the IPv4 checksum as it is unless the length changed), checksum zero. */
static inline void bounce(struct isw_worker *w, struct rte_mbuf *m, uint8_t *p, uint32_t paylen)
{
	uint8_t tmp[6];
	uint8_t *ip = p + ASK_ETH_LEN;
	uint8_t *udp = ip + ASK_IP_LEN;
	memcpy(tmp, p, 6);
	memcpy(p, p + 6, 6);
	memcpy(p + 6, tmp, 6);
	memcpy(tmp, ip + 12, 4);
	memcpy(ip + 12, ip + 16, 4);
	memcpy(ip + 16, tmp, 4);
	memcpy(tmp, udp, 2);
	memcpy(udp, udp + 2, 2);
	memcpy(udp + 2, tmp, 2);
	uint16_t iplen = (uint16_t)(ASK_IP_LEN + ASK_UDP_LEN + ASK_HDR_LEN + paylen);
	if (rd16(ip + 2) != iplen) {
		ip[2] = (uint8_t)(iplen >> 8);
		ip[3] = (uint8_t)iplen;
		ip_csum_set(ip);
	}
	ask_put16(udp + 4, (uint16_t)(ASK_UDP_LEN + ASK_HDR_LEN + paylen));
	udp[6] = udp[7] = 0;
	uint32_t flen = ASK_PAY_OFF + paylen;
	m->data_len = (uint16_t)flen;
	m->pkt_len = flen;
	isw_tx(w, m, isw_meta(m)->in_port);
}

/* Zeroes the slots in bits of the payload and clears them from the bitmap. Inlined with a
 * constant record length: a variable-length memset is a `rep stos`, which cost a third of the
 * pipeline's time at 16 slots. */
static __rte_always_inline void slots_clear(struct isw_pass *pass, const struct ask_conf *c,
                                            const struct ask_task *t, struct ask_hdr *h,
                                            uint8_t *pay, uint32_t bitmap, uint32_t bits,
                                            const unsigned kb)
{
	const unsigned rec = kb + ASK_VALUE_LEN;
	if (pass == NULL && c->simd)
		ask_clear_x8(pay, t->nslots, kb, bits);
	else
		for (uint32_t b = bits; b != 0; b &= b - 1)
			memset(pay + (unsigned)__builtin_ctz(b) * rec, 0, rec);
	ask_put32(h->bitmap, bitmap & ~bits);
}

/* The cells of row in aggregator array u, from the configuration: its 64-bit words cannot alias
 * the 32-bit cells a SALU writes, so in a loop of SALUs they stay in registers. */
static inline uint32_t *aa_cell(const struct ask_conf *c, unsigned u, uint32_t row)
{
	return (uint32_t *)(uintptr_t)c->aa_cells[u] + (size_t)(row & c->aa_mask[u]) * ISW_KV_LANES;
}

/*
 * The aggregator arrays' SALUs for the valid slots of a first occurrence, in the given active
 * copies; returns the slots absorbed and sets *claimed to those that claimed an empty entry.
 * Inlined once per key width, so the hash and the key compare see a constant length.
 */
static __rte_always_inline uint32_t aa_update(struct isw_pass *pass, const struct ask_conf *c,
                                              const struct ask_task *t, uint32_t active,
                                              const uint8_t *pay, uint32_t bitmap,
                                              const unsigned kb, uint32_t *claimed)
{
	const unsigned rec = kb + ASK_VALUE_LEN;
	if (pass == NULL && c->simd)
		return ask_aggregate_x8(c, t, active, pay, bitmap, claimed);
	/* Every valid slot's row first, its entry prefetched in the fast build, then the SALUs:
	 * the entries' cache misses overlap instead of each slot's waiting for the one before
	 * (bench/README.md). */
	uint32_t row[ASK_SLOTS_MAX];
	for (uint32_t b = bitmap; b != 0; b &= b - 1) {
		unsigned j = (unsigned)__builtin_ctz(b);
		row[j] = ask_row(t, j, (active >> j) & 1u,
		                 ask_key_entry(pay + j * rec, kb, t->aa_size));
		if (pass == NULL)
			rte_prefetch0(aa_cell(c, j % ASK_AA_UNITS, row[j]));
	}
	uint32_t absorbed = 0, empty = 0;
	unsigned q = 0;
	for (uint32_t b = bitmap; b != 0; b &= b - 1) {
		unsigned j = (unsigned)__builtin_ctz(b), u = j % ASK_AA_UNITS;
		/* One recirculation per further group of ASK_AA_UNITS slots, even a group without
		 * valid slots, as a Tofino would have to. Strict mode counts an over-limit one; the
		 * model goes on (like every pipeline here, it does not stop the packet). */
		for (; q < j / ASK_AA_UNITS; q++)
			isw_pass_recirculate(pass);
		const uint8_t *s = pay + j * rec;
		enum isw_kv_op op = (enum isw_kv_op)t->op;
		enum isw_kv_res r =
		        pass == NULL ? isw_kv_update_cell(aa_cell(c, u, row[j]), s, kb / 4,
		                                          ask_be32(s + kb), op)
		                     : isw_salu_kv_update(pass, ask_regs[ASK_REG_AA0 + u], row[j],
		                                          s, kb / 4, ask_be32(s + kb), op);
		absorbed |= (uint32_t)(r != ISW_KV_OTHER) << j;
		empty |= (uint32_t)(r == ISW_KV_CLAIMED) << j;
	}
	*claimed = empty;
	return absorbed;
}

uint32_t ask_aggregate(const struct ask_conf *c, const struct ask_task *t, uint32_t active,
                       const uint8_t *pay, uint32_t bitmap, uint32_t *claimed)
{
	switch (t->key_bytes) {
	case 4:
		return aa_update(NULL, c, t, active, pay, bitmap, 4, claimed);
	case 8:
		return aa_update(NULL, c, t, active, pay, bitmap, 8, claimed);
	default:
		return aa_update(NULL, c, t, active, pay, bitmap, 16, claimed);
	}
}

/*
 * The aggregator arrays for the valid slots of a first occurrence, in the task's active copies,
 * and the task's counters; returns the slots absorbed. The counters are added once per packet:
 * incremented in the loop, each would be a store-to-load chain the slots wait on one after the
 * other.
 */
static __rte_always_inline uint32_t aggregate(struct isw_pass *pass, const struct ask_conf *c,
                                              const struct ask_task *t, unsigned ti,
                                              const uint8_t *pay, uint32_t bitmap,
                                              const unsigned kb, struct ask_counters *cnt)
{
	uint32_t active = isw_salu_read(pass, ask_regs[ASK_REG_ACTIVE], ti);
	uint32_t claimed;
	uint32_t absorbed = aa_update(pass, c, t, active, pay, bitmap, kb, &claimed);
	unsigned nv = (unsigned)__builtin_popcount(bitmap);
	unsigned na = (unsigned)__builtin_popcount(absorbed);
	unsigned nc = (unsigned)__builtin_popcount(claimed);
	cnt->tuples += nv;
	cnt->claims += nc;
	cnt->combines += na - nc;
	cnt->collisions += nv - na;
	return absorbed;
}

/* A first occurrence (aggregate, record and clear what was absorbed) or a repeat (clear the
 * slots absorbed the first time), for one key width. */
static __rte_always_inline void slots_process(struct isw_pass *pass, const struct ask_conf *c,
                                              const struct ask_task *t, unsigned ti,
                                              struct ask_hdr *h, uint8_t *pay, uint32_t bitmap,
                                              uint32_t pos, bool repeat, const unsigned kb,
                                              struct ask_counters *cnt)
{
	uint32_t absorbed;
	if (repeat) {
		absorbed = isw_salu_read(pass, ask_regs[ASK_REG_AGGSTATE], pos) & bitmap;
		cnt->repeats++;
		cnt->repeat_cleared += (uint64_t)__builtin_popcount(absorbed);
	} else {
		absorbed = aggregate(pass, c, t, ti, pay, bitmap, kb, cnt);
		isw_salu_write(pass, ask_regs[ASK_REG_AGGSTATE], pos, absorbed);
	}
	if (absorbed != 0)
		slots_clear(pass, c, t, h, pay, bitmap, absorbed, kb);
}

static __rte_always_inline int ask_data(struct isw_worker *w, struct rte_mbuf *m, uint8_t *p,
                                        uint32_t len, const struct ask_conf *c,
                                        const struct ask_task *t, unsigned ti,
                                        struct isw_pass *pass)
{
	struct ask_counters *cnt = &ask_counters[w->index][ti];
	struct ask_hdr *h = (struct ask_hdr *)(p + ASK_HDR_OFF);
	uint16_t in_port = isw_meta(m)->in_port;
	if (unlikely(t->sender_ports ? !((t->sender_ports >> (in_port & 31)) & 1)
	                             : in_port == t->port)) {
		drop(w, m, cnt, ISW_DROP_ASK_PORT);
		return ISW_PKT_TAKEN;
	}
	uint32_t ch = ask_be16(h->channel);
	if (unlikely(ch >= t->nchannels)) {
		drop(w, m, cnt, ISW_DROP_ASK_CHANNEL);
		return ISW_PKT_TAKEN;
	}
	bool is_long = h->flags & ASK_F_LONG;
	uint32_t bitmap = ask_be32(h->bitmap);
	if (!is_long) {
		if (unlikely(!ask_shape_ok(t, h))) {
			drop(w, m, cnt, ISW_DROP_ASK_SHAPE);
			return ISW_PKT_TAKEN;
		}
		if (unlikely(len < ask_data_len(t->nslots, t->key_bytes))) {
			drop(w, m, cnt, ISW_DROP_MALFORMED);
			return ISW_PKT_TAKEN;
		}
	}
	if (!isw_shard_claim(w, m, ti))
		return ISW_PKT_TAKEN;
	if (unlikely(ask_incarnation(h) != ask_state[ti].incarnation)) {
		drop(w, m, cnt, ISW_DROP_ASK_INCARNATION);
		return ISW_PKT_TAKEN;
	}
	isw_pass_begin(pass);
	uint32_t seq = ask_be32(h->seq);
	uint32_t ring = t->ring_base + ch * 2u * t->window;
	enum isw_win win = isw_salu_window(pass, ask_regs[ASK_REG_WINDOW], ring, seq, t->window);
	if (unlikely(win != ISW_WIN_OK)) {
		drop(w, m, cnt, win == ISW_WIN_STALE ? ISW_DROP_ASK_STALE : ISW_DROP_ASK_WINDOW);
		return ISW_PKT_TAKEN;
	}
	cnt->last_pkts += (h->flags & ASK_F_LAST) != 0;
	if (is_long) {
		cnt->long_pkts++;
		to_receiver(w, m, p, c, t);
		return ISW_PKT_TAKEN;
	}
	cnt->pkts++;
	uint32_t pos = ring + (seq & (2u * t->window - 1));
	uint8_t *pay = p + ASK_PAY_OFF;
	/* Seen before: nothing is aggregated again, the slots absorbed then go. */
	bool repeat = isw_salu_tag_test_set(pass, ask_regs[ASK_REG_SEEN], pos, seq);
	switch (t->key_bytes) {
	case 4:
		slots_process(pass, c, t, ti, h, pay, bitmap, pos, repeat, 4, cnt);
		break;
	case 8:
		slots_process(pass, c, t, ti, h, pay, bitmap, pos, repeat, 8, cnt);
		break;
	default:
		slots_process(pass, c, t, ti, h, pay, bitmap, pos, repeat, 16, cnt);
		break;
	}
	to_receiver(w, m, p, c, t);
	return ISW_PKT_TAKEN;
}

/*
 * SWAP and FETCH of a task carry one increasing seq (the receiver's control seq). A request
 * older than the newest one seen, by less than ASK_CTL_LATE, is a late copy (a network
 * duplicate, or a retry overtaken by the next request): executing a FETCH afresh would clear
 * entries whose reply the receiver no longer waits for, and a SWAP would undo a newer one.
 * Anything further back counts as new: a restarted receiver starts from an arbitrary seq.
 */
static inline bool ctl_late(struct ask_task_state *fc, uint32_t seq)
{
	int32_t d = (int32_t)(seq - fc->ctl_seq);
	if (fc->ctl_valid && d < 0 && d > -ASK_CTL_LATE)
		return true;
	if (!fc->ctl_valid || d > 0 || d <= -ASK_CTL_LATE) {
		fc->ctl_seq = seq;
		fc->ctl_valid = true;
	}
	return false;
}

/* The selector of a SWAP or FETCH (slot | copy << 8), checked against the task. */
static inline bool sel_ok(const struct ask_task *t, uint32_t sel)
{
	return (sel & ~0x1FFu) == 0 && ASK_SEL_SLOT(sel) < t->nslots;
}

static inline void reply_header(struct ask_hdr *h, const struct ask_task *t, uint8_t type,
                                uint8_t flags, uint32_t sel)
{
	h->type = type;
	h->flags = flags;
	h->nslots = t->nslots;
	h->key_bytes = t->key_bytes;
	ask_put32(h->bitmap, sel);
}

static inline int ask_swap(struct isw_worker *w, struct rte_mbuf *m, uint8_t *p,
                           const struct ask_task *t, unsigned ti, struct isw_pass *pass)
{
	struct ask_counters *cnt = &ask_counters[w->index][ti];
	struct ask_hdr *h = (struct ask_hdr *)(p + ASK_HDR_OFF);
	uint32_t sel = ask_be32(h->bitmap);
	if (unlikely(!sel_ok(t, sel))) {
		cnt->bad_requests++;
		reply_header(h, t, ASK_SWAP_DONE, ASK_F_ERROR, sel);
		bounce(w, m, p, 0);
		return ISW_PKT_TAKEN;
	}
	if (!isw_shard_claim(w, m, ti))
		return ISW_PKT_TAKEN;
	if (unlikely(ask_incarnation(h) != ask_state[ti].incarnation)) {
		drop(w, m, cnt, ISW_DROP_ASK_INCARNATION);
		return ISW_PKT_TAKEN;
	}
	if (unlikely(ctl_late(&ask_state[ti], ask_be32(h->seq)))) {
		drop(w, m, cnt, ISW_DROP_ASK_STALE);
		return ISW_PKT_TAKEN;
	}
	isw_pass_begin(pass);
	unsigned slot = ASK_SEL_SLOT(sel);
	uint32_t active = isw_salu_bits_assign(pass, ask_regs[ASK_REG_ACTIVE], ti, 1u << slot,
	                                       ASK_SEL_COPY(sel) << slot);
	cnt->swaps++;
	reply_header(h, t, ASK_SWAP_DONE, 0, ASK_SEL(slot, (active >> slot) & 1u));
	memset(h->start, 0, 8);
	bounce(w, m, p, 0);
	return ISW_PKT_TAKEN;
}

/* Reads and clears up to want used entries of the copy sel names, from *next on and looking at
 * no more than ASK_FETCH_SCAN; writes the records to out and one past the last entry looked at
 * to *next. Returns the records. */
static inline uint32_t fetch_take(const struct ask_task *t, uint32_t sel, uint32_t *next,
                                  uint32_t want, uint8_t *out)
{
	unsigned kb = t->key_bytes, rec = ask_rec_len(kb), slot = ASK_SEL_SLOT(sel);
	const struct isw_reg *r = ask_regs[ASK_REG_AA0 + slot % ASK_AA_UNITS];
	uint32_t row0 = ask_row(t, slot, ASK_SEL_COPY(sel), 0);
	uint32_t end = RTE_MIN(t->aa_size, *next + ASK_FETCH_SCAN);
	uint32_t i = *next, n = 0;
	for (; i < end && n < want; i++) {
		uint32_t v;
		if (!isw_salu_kv_take(NULL, r, row0 + i, out, kb / 4, &v))
			continue;
		ask_put32(out + kb, v);
		out += rec;
		n++;
	}
	*next = i;
	return n;
}

/*
 * FETCH: read and clear up to count used entries of one copy, looking at no more than
 * ASK_FETCH_SCAN from start. It is the model's register-read path for the receiver (like the
 * ctl tool's reads, through the owning lcore), not a pipeline pass: strict mode does not count
 * its accesses. The reply is kept for a retry of the same request.
 */
static inline int ask_fetch_req(struct isw_worker *w, struct rte_mbuf *m, uint8_t *p,
                                const struct ask_task *t, unsigned ti)
{
	struct ask_counters *cnt = &ask_counters[w->index][ti];
	struct ask_hdr *h = (struct ask_hdr *)(p + ASK_HDR_OFF);
	uint32_t seq = ask_be32(h->seq), sel = ask_be32(h->bitmap);
	uint32_t start = ask_be32(h->start), count = ask_be32(h->count) & 0xFFFFu;
	if (unlikely(!sel_ok(t, sel) || start > t->aa_size)) {
		cnt->bad_requests++;
		reply_header(h, t, ASK_FETCH_REPLY, ASK_F_ERROR, sel);
		ask_put32(h->count, 0);
		bounce(w, m, p, 0);
		return ISW_PKT_TAKEN;
	}
	if (unlikely(m->nb_segs != 1 || m->buf_len < m->data_off + ASK_PAY_OFF + ASK_FETCH_BYTES)) {
		drop(w, m, cnt, ISW_DROP_MALFORMED);
		return ISW_PKT_TAKEN;
	}
	if (!isw_shard_claim(w, m, ti))
		return ISW_PKT_TAKEN;
	struct ask_task_state *fc = &ask_state[ti];
	if (unlikely(ask_incarnation(h) != fc->incarnation)) {
		drop(w, m, cnt, ISW_DROP_ASK_INCARNATION);
		return ISW_PKT_TAKEN;
	}
	bool same = fc->valid && fc->seq == seq;
	if (unlikely(ctl_late(fc, seq) ||
	             (same && (fc->sel != sel || fc->start != start || fc->count != count)))) {
		drop(w, m, cnt, ISW_DROP_ASK_STALE); /* late, or a seq reused for another request */
		return ISW_PKT_TAKEN;
	}
	cnt->fetches++;
	if (same) {
		cnt->fetch_replays++;
		memcpy(h, fc->reply, fc->len);
		bounce(w, m, p, fc->len - ASK_HDR_LEN);
		return ISW_PKT_TAKEN;
	}
	uint32_t next = start;
	uint32_t n = fetch_take(t, sel, &next, RTE_MIN(count, ask_fetch_max(t->key_bytes)),
	                        p + ASK_PAY_OFF);
	uint32_t paylen = n * ask_rec_len(t->key_bytes);
	cnt->fetched += n;
	reply_header(h, t, ASK_FETCH_REPLY, 0, sel);
	ask_put32(h->start, next);
	ask_put32(h->count, n);
	fc->valid = true;
	fc->seq = seq;
	fc->sel = sel;
	fc->start = start;
	fc->count = count;
	fc->len = (uint16_t)(ASK_HDR_LEN + paylen);
	memcpy(fc->reply, h, fc->len);
	bounce(w, m, p, paylen);
	return ISW_PKT_TAKEN;
}

void ask_task_state_reset(const struct ask_task *t, unsigned ti, bool aas)
{
	uint32_t ring = ask_task_ring(t), span = 2u * t->window;
	if (aas)
		for (unsigned u = 0; u < ASK_AA_UNITS; u++)
			isw_reg_clear_range(ask_regs[ASK_REG_AA0 + u], t->aa_base,
			                    ask_task_rows(t));
	isw_reg_clear_range(ask_regs[ASK_REG_AGGSTATE], t->ring_base, ring);
	isw_reg_clear_range(ask_regs[ASK_REG_WINDOW], t->ring_base, ring);
	for (uint32_t i = 0; i < ring; i++)
		isw_reg_set(ask_regs[ASK_REG_SEEN], t->ring_base + i, 0, (i % span + 1) % span);
	isw_reg_set(ask_regs[ASK_REG_ACTIVE], ti, 0, 0);
	ask_state[ti].valid = false;
	ask_state[ti].ctl_valid = false;
}

/* The task's counters a job reports, summed over every lcore's (only the owner counts them). */
struct job_sums {
	uint64_t tuples, absorbed, claims, fetched;
};

static void job_sums(unsigned ti, struct job_sums *s)
{
	*s = (struct job_sums){0};
	for (unsigned l = 0; l < ISW_MAX_WORKERS; l++) {
		const struct ask_counters *x = &ask_counters[l][ti];
		s->tuples += x->tuples;
		s->absorbed += x->claims + x->combines;
		s->claims += x->claims;
		s->fetched += x->fetched;
	}
}

/*
 * BEGIN (docs/ask.md, Job lifetime): count = N << 16 | E. If N is the task's incarnation already,
 * it only reports (a receiver's probe, or the retry of a BEGIN that worked). If E is, N becomes the
 * incarnation and the task starts afresh: windows, rings, active copies, control seq (BEGIN's
 * own), kept reply, and the aggregator arrays when they hold anything (a job that died before
 * its final drain left entries). Otherwise, or if the shape differs, ERROR. The reply carries
 * the task's shape and what this incarnation counted, for the receiver's end-to-end check. Like
 * FETCH, it is not a pipeline pass: the reset writes the registers directly, on the owning lcore.
 */
static inline int ask_begin(struct isw_worker *w, struct rte_mbuf *m, uint8_t *p, uint32_t len,
                            const struct ask_task *t, unsigned ti)
{
	struct ask_counters *cnt = &ask_counters[w->index][ti];
	struct ask_hdr *h = (struct ask_hdr *)(p + ASK_HDR_OFF);
	if (unlikely(len < ASK_PAY_OFF + sizeof(struct ask_job_info))) {
		drop(w, m, cnt, ISW_DROP_MALFORMED);
		return ISW_PKT_TAKEN;
	}
	if (!isw_shard_claim(w, m, ti))
		return ISW_PKT_TAKEN;
	struct ask_task_state *st = &ask_state[ti];
	uint32_t want = ask_incarnation(h), expect = ask_be32(h->count) & 0xFFFFu;
	uint8_t error = ASK_BEGIN_OK, flags = 0;
	struct job_sums now;
	job_sums(ti, &now);
	if (h->nslots != t->nslots || h->key_bytes != t->key_bytes) {
		error = ASK_BEGIN_SHAPE;
	} else if (st->incarnation != want) {
		if (st->incarnation != expect || want == expect) {
			error = ASK_BEGIN_INCARNATION;
		} else {
			/* Entries held: claimed and not fetched since the last start. */
			bool held = now.claims - st->base_claims != now.fetched - st->base_fetched;
			ask_task_state_reset(t, ti, held);
			st->incarnation = (uint16_t)want;
			st->jobs++;
			st->base_tuples = now.tuples;
			st->base_absorbed = now.absorbed;
			st->base_claims = now.claims;
			st->base_fetched = now.fetched;
			st->ctl_seq = ask_be32(h->seq);
			st->ctl_valid = true;
			flags = ASK_JOB_F_RESET;
		}
	}
	cnt->begins++;
	cnt->bad_requests += error != ASK_BEGIN_OK;
	struct ask_job_info *ji = (struct ask_job_info *)(p + ASK_PAY_OFF);
	memset(ji, 0, sizeof(*ji));
	ask_put32(ji->reg, st->reg);
	ji->error = error;
	ji->flags = flags;
	ji->op = t->op;
	ask_put16(ji->channels, t->nchannels);
	ask_put32(ji->window, t->window);
	ask_put32(ji->aa_size, t->aa_size);
	ask_put64(ji->tuples, now.tuples - st->base_tuples);
	ask_put64(ji->absorbed, now.absorbed - st->base_absorbed);
	ask_put64(ji->held, (now.claims - st->base_claims) - (now.fetched - st->base_fetched));
	ask_put32(ji->jobs, st->jobs);
	reply_header(h, t, ASK_BEGIN_DONE, error != ASK_BEGIN_OK ? ASK_F_ERROR : 0, 0);
	ask_put32(h->count, (uint32_t)st->incarnation << 16);
	bounce(w, m, p, sizeof(*ji));
	return ISW_PKT_TAKEN;
}

static inline int ask_arp(struct isw_worker *w, struct rte_mbuf *m, const struct ask_conf *c,
                          uint8_t *p, uint32_t len)
{
	uint32_t tpa;
	if (c->ip == 0 || !isw_arp_request(p, len, &tpa) || tpa != c->ip)
		return ISW_PKT_NEXT;
	isw_arp_answer(p, c->mac);
	ask_gcounters[w->index].arp_replies++;
	isw_tx(w, m, isw_meta(m)->in_port);
	return ISW_PKT_TAKEN;
}

static __rte_always_inline int ask_process_common(struct isw_worker *w, struct rte_mbuf *m,
                                                  struct isw_pass *pass)
{
	const struct ask_conf *c = ISW_RCU_LOAD(ask_conf_cur);
	uint32_t len = rte_pktmbuf_data_len(m);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	if (unlikely(c == NULL || len < ASK_HDR_OFF)) /* an ARP frame is ASK_HDR_OFF long */
		return ISW_PKT_NEXT;
	uint16_t etype = rd16(p + 12);
	if (unlikely(etype != ETH_TYPE_IPV4))
		return etype == ETH_TYPE_ARP ? ask_arp(w, m, c, p, len) : ISW_PKT_NEXT;
	const uint8_t *ip = p + ASK_ETH_LEN;
	if (ip[0] != 0x45 || ip[9] != IP_PROTO_UDP || (rd16(ip + 6) & IP_FRAG_MASK) != 0 ||
	    rd16(ip + ASK_IP_LEN + 2) != c->udp_port)
		return ISW_PKT_NEXT;
	/* Ours by port from here on: the IP length bounds what follows (not Ethernet padding). */
	uint32_t iplen = rd16(ip + 2);
	if (unlikely(len < ASK_PAY_OFF || iplen < ASK_PAY_OFF - ASK_ETH_LEN ||
	             iplen > len - ASK_ETH_LEN)) {
		isw_drop(w, m, ISW_DROP_MALFORMED);
		return ISW_PKT_TAKEN;
	}
	len = ASK_ETH_LEN + iplen;
	const struct ask_hdr *h = (const struct ask_hdr *)(p + ASK_HDR_OFF);
	uint8_t type = h->type;
	if (unlikely(type != ASK_DATA && type != ASK_SWAP && type != ASK_FETCH &&
	             type != ASK_BEGIN)) {
		if (type >= 1 && type <= ASK_TYPE_MAX)
			return ISW_PKT_NEXT; /* replies and host-to-host messages, to a host */
		isw_drop(w, m, ISW_DROP_MALFORMED);
		return ISW_PKT_TAKEN;
	}
	/* SWAP, FETCH and BEGIN to another switch's ASK address pass on: in a chain of switches
	 * (docs/fabric.md, ASK across two switches) the receiver's own switch carries the
	 * receiver's requests to the switches behind it. */
	if (unlikely(type != ASK_DATA && c->ip != 0 && memcmp(ip + 16, &c->ip, 4) != 0))
		return ISW_PKT_NEXT;
	unsigned ti = c->index[ask_be16(h->task)];
	if (unlikely(ti == 0)) {
		ask_gcounters[w->index].unknown_task++;
		isw_drop(w, m, ISW_DROP_ASK_TASK);
		return ISW_PKT_TAKEN;
	}
	const struct ask_task *t = &c->tasks[ti];
	if (likely(type == ASK_DATA))
		return ask_data(w, m, p, len, c, t, ti, pass);
	if (unlikely(isw_meta(m)->in_port != t->port)) {
		drop(w, m, &ask_counters[w->index][ti], ISW_DROP_ASK_PORT);
		return ISW_PKT_TAKEN;
	}
	if (type == ASK_SWAP)
		return ask_swap(w, m, p, t, ti, pass);
	if (type == ASK_FETCH)
		return ask_fetch_req(w, m, p, t, ti);
	return ask_begin(w, m, p, len, t, ti);
}

int ask_process(struct isw_worker *w, struct rte_mbuf *m)
{
	return ask_process_common(w, m, NULL);
}

static __rte_always_inline int ask_process_fast(struct isw_worker *w, struct rte_mbuf *m,
                                                const void *ctx, uint16_t i)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(i);
	return ask_process_common(w, m, NULL);
}

uint16_t ask_process_burst(struct isw_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	return isw_burst_run(w, pkts, n, ask_process_fast, NULL);
}

int ask_process_strict(struct isw_worker *w, struct rte_mbuf *m)
{
	return ask_process_common(w, m, &w->pass);
}
