/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ATP data path: ATP's switch algorithm (p4ml.p4, docs/atp.md) flattened to one pass over all
 * 62 values, keyed by agtr (agtr2 is echoed). Runs on worker lcores: no allocation, locks, logs
 * or syscalls; every frame is length-checked before any field is read.
 *
 * Stages (atp_ctl.c declares them): 0 app table; 1 owner; 2 bitmap; 3 count and ECN;
 * 4..19 the 62 value lanes, 4 per stage.
 */
#include <string.h>

#include <rte_mbuf.h>

#include "atp.h"
#include "pipeline.h"
#include "worker.h"

static inline void drop(struct isw_worker *w, struct rte_mbuf *m, struct atp_counters *cnt,
                        enum isw_drop reason)
{
	if (cnt != NULL)
		cnt->drops++;
	isw_drop(w, m, reason);
}

/* To the app's PS for the frame's PSIndex, with the dataIndex mark the Tofino sets. */
static inline int to_ps(struct isw_worker *w, struct rte_mbuf *m, uint8_t *p, int16_t ps)
{
	p[ATP_OFF_HDR + 5] |= ATP_F_DATAINDEX;
	isw_tx(w, m, (uint16_t)ps);
	return ISW_PKT_TAKEN;
}

static __rte_always_inline int atp_process_common(struct isw_worker *w, struct rte_mbuf *m,
                                                  struct isw_pass *pass)
{
	uint32_t len = rte_pktmbuf_data_len(m);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	if (len < 14 || atp_be16(p + 12) != ATP_ETHERTYPE)
		return ISW_PKT_NEXT;
	const struct atp_conf *c = ISW_RCU_LOAD(atp_conf_cur);
	if (unlikely(c == NULL))
		return ISW_PKT_NEXT;
	if (unlikely(len < ATP_FRAME_LEN)) {
		isw_drop(w, m, ISW_DROP_MALFORMED);
		return ISW_PKT_TAKEN;
	}
	struct atp_hdr *h = (struct atp_hdr *)(p + ATP_OFF_HDR);
	uint16_t app_id = atp_be16(h->app);
	unsigned ai = c->index[app_id];
	if (unlikely(ai == 0)) {
		isw_drop(w, m, ISW_DROP_ATP_APP);
		return ISW_PKT_TAKEN;
	}
	const struct atp_app *a = &c->apps[ai];
	struct atp_counters *cnt = &atp_counters[w->index][ai];
	uint32_t flag = h->flag;
	/* An opaque word to the compiler: as a byte, GCC 12 spills it with a byte store and reloads
	 * it as a word, which stalls on store forwarding (a quarter of this function's time). */
	__asm__("" : "+r"(flag));
	uint16_t in_port = isw_meta(m)->in_port;
	int16_t ps = a->ps[(flag & ATP_F_PSINDEX) >> ATP_PSINDEX_SHIFT];
	bool ack = flag & ATP_F_ACK;
	/* The role of the ingress port: the PS port for ACKs, a worker port for the rest. */
	if (unlikely(ack ? in_port != ps : !((a->worker_ports >> (in_port & 31)) & 1))) {
		drop(w, m, cnt, ISW_DROP_ATP_PORT);
		return ISW_PKT_TAKEN;
	}
	if (unlikely(!ack && ps == ATP_NO_PORT)) {
		drop(w, m, cnt, ISW_DROP_ATP_NO_PS);
		return ISW_PKT_TAKEN;
	}
	bool overflow = flag & ATP_F_OVERFLOW;
	bool resend = flag & ATP_F_RESEND;
	if (unlikely(overflow && !ack)) {
		cnt->overflow++;
		return to_ps(w, m, p, ps);
	}
	if (unlikely(ack && overflow && !resend)) {
		/* An overflow ACK touches no aggregator (p4ml.p4): straight to the workers. */
		cnt->pkts++;
		cnt->acks++;
		isw_mcast(w, m, a->group, ISW_MC_NO_EXCLUDE, NULL, NULL, 0);
		return ISW_PKT_TAKEN;
	}
	uint32_t agtr = atp_be16(h->agtr);
	if (unlikely(agtr >= c->pool)) {
		drop(w, m, cnt, ISW_DROP_ATP_AGTR);
		return ISW_PKT_TAKEN;
	}
	if (!isw_shard_claim(w, m, agtr))
		return ISW_PKT_TAKEN;
	isw_pass_begin(pass);
	cnt->pkts++;
	uint32_t key = (uint32_t)app_id << 16 | atp_be16(h->seq);

	if (ack) {
		if (isw_salu_pair_release(pass, atp_regs[ATP_REG_OWNER], agtr, key)) {
			isw_salu_write(pass, atp_regs[ATP_REG_BITMAP], agtr, 0);
			isw_salu_write(pass, atp_regs[ATP_REG_COUNT], agtr, 0);
			isw_salu_write(pass, atp_regs[ATP_REG_ECN], agtr, 0);
			cnt->freed++;
		}
		cnt->acks++;
		isw_mcast(w, m, a->group, ISW_MC_NO_EXCLUDE, NULL, NULL, 0);
		return ISW_PKT_TAKEN;
	}

	uint32_t bit = atp_be32(h->bitmap);
	uint32_t ecn_in = (p[ATP_OFF_TOS] & 3) == 3 || (flag & ATP_F_ECN);
	uint8_t *vals = p + ATP_OFF_VALUES;
	const struct isw_reg *values = atp_regs[ATP_REG_VALUES];

	if (resend) {
		/* Never claims: flushes and releases what it owns, else goes on unchanged. */
		cnt->resends++;
		if (!isw_salu_pair_release(pass, atp_regs[ATP_REG_OWNER], agtr, key))
			return to_ps(w, m, p, ps);
		uint32_t old = isw_salu_read_clear(pass, atp_regs[ATP_REG_BITMAP], agtr);
		isw_salu_write(pass, atp_regs[ATP_REG_COUNT], agtr, 0);
		if (isw_salu_bitset(pass, atp_regs[ATP_REG_ECN], agtr, ecn_in))
			h->flag |= ATP_F_ECN;
		if (bit & ~old)
			isw_salu_vec_sadd(pass, values, agtr, vals, ATP_VALUES, old == 0, vals);
		else
			isw_salu_vec_read(pass, values, agtr, vals, ATP_VALUES);
		atp_put32(h->bitmap, old | bit);
		cnt->flushes++;
		return to_ps(w, m, p, ps);
	}

	bool lapsed;
	enum isw_claim claim = isw_salu_claim_lease(pass, atp_regs[ATP_REG_OWNER], agtr, key,
	                                            w->now_ms, c->lease_ms, &lapsed);
	if (claim == ISW_CLAIM_BUSY) {
		cnt->collisions++;
		h->flag |= ATP_F_COLLISION;
		return to_ps(w, m, p, ps);
	}
	uint32_t old, count;
	if (unlikely(lapsed)) {
		/* A lapsed aggregation (its job gone, or too slow): this one starts afresh. Its own
		 * contributors resend and reach the PS, which never sees the lapsed partial sum. */
		cnt->lapsed++;
		old = 0;
		isw_salu_write(pass, atp_regs[ATP_REG_BITMAP], agtr, bit);
		isw_salu_write(pass, atp_regs[ATP_REG_ECN], agtr, ecn_in);
		count = 1;
		isw_salu_write(pass, atp_regs[ATP_REG_COUNT], agtr, count);
	} else {
		old = isw_salu_bitset(pass, atp_regs[ATP_REG_BITMAP], agtr, bit);
		if (isw_salu_bitset(pass, atp_regs[ATP_REG_ECN], agtr, ecn_in))
			h->flag |= ATP_F_ECN;
		count = (bit & ~old) ? isw_salu_add(pass, atp_regs[ATP_REG_COUNT], agtr, 1)
		                     : isw_salu_read(pass, atp_regs[ATP_REG_COUNT], agtr);
	}
	bool fresh = (bit & ~old) != 0;
	bool complete = count == h->num_worker;
	if (fresh) {
		cnt->aggregated++;
		isw_salu_vec_sadd(pass, values, agtr, vals, ATP_VALUES, old == 0,
		                  complete ? vals : NULL);
		if (!complete) {
			isw_consume(w, m);
			return ISW_PKT_TAKEN;
		}
		atp_put32(h->bitmap, old | bit);
		cnt->completions++;
		return to_ps(w, m, p, ps);
	}
	if (!complete) {
		drop(w, m, cnt, ISW_DROP_ATP_DUP);
		return ISW_PKT_TAKEN;
	}
	isw_salu_vec_read(pass, values, agtr, vals, ATP_VALUES);
	atp_put32(h->bitmap, old);
	cnt->dup_results++;
	return to_ps(w, m, p, ps);
}

ISW_VEC_CLONES int atp_process(struct isw_worker *w, struct rte_mbuf *m)
{
	return atp_process_common(w, m, NULL);
}

static __rte_always_inline int atp_process_fast(struct isw_worker *w, struct rte_mbuf *m,
                                                const void *ctx, uint16_t i)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(i);
	return atp_process_common(w, m, NULL);
}

ISW_VEC_CLONES uint16_t atp_process_burst(struct isw_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	return isw_burst_run(w, pkts, n, atp_process_fast, NULL);
}

ISW_VEC_CLONES int atp_process_strict(struct isw_worker *w, struct rte_mbuf *m)
{
	return atp_process_common(w, m, &w->pass);
}
