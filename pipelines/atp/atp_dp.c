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

/* A result or ANNOUNCE of an app with a region of its own carries it (atp_note_put). */
static inline void note(const struct atp_app *a, uint8_t *p, struct atp_counters *cnt)
{
	if (likely(a->gen == 0))
		return;
	atp_note_put(p + ATP_OFF_HDR, a->gen, a->rbase, a->rsize);
	cnt->notes++;
}

/*
 * inswitch's job frames (docs/atp.md, Job lifetime), seq 0, which ATP's data never uses: a JOIN
 * (worker to PS) goes to the PS untouched and unchecked; an ANNOUNCE (an ACK from the PS port)
 * names the job in its key's high half as the app's current job, then goes to the workers as ACKs
 * do. Neither touches an aggregator.
 */
static __rte_noinline int atp_job_frame(struct isw_worker *w, struct rte_mbuf *m, uint8_t *p,
                                        unsigned ai, const struct atp_app *a,
                                        struct atp_counters *cnt, bool ack, int16_t ps)
{
	if (!ack) {
		cnt->joins++;
		return to_ps(w, m, p, ps);
	}
	struct atp_job_name *jn = &atp_jobs[ai];
	uint32_t job = atp_frame_job(p);
	uint64_t old = __atomic_load_n(&jn->named, __ATOMIC_ACQUIRE);
	while ((uint32_t)old != job) {
		uint64_t named = ((old >> 32) + 1) << 32 | job;
		if (__atomic_compare_exchange_n(&jn->named, &old, named, false, __ATOMIC_RELEASE,
		                                __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&jn->at_ms, w->now_ms, __ATOMIC_RELAXED);
			cnt->jobs++;
			break;
		}
	}
	cnt->announces++;
	note(a, p, cnt);
	isw_mcast(w, m, a->group, ISW_MC_NO_EXCLUDE, NULL, NULL, 0);
	return ISW_PKT_TAKEN;
}

/*
 * This lcore adopts the app's named job: its claims of the app up to now have lapsed. The epoch
 * starts at since = now, or one ms after the last one's start if that is later (two adoptions in
 * one ms: the claims of the one before are dated since + 1), so every earlier claim is dated no
 * later than since and every later one after it.
 */
static __rte_noinline void atp_adopt(struct isw_worker *w, struct atp_counters *cnt, uint64_t named)
{
	uint32_t since = w->now_ms;
	if (cnt->adopted != 0 && (int32_t)(cnt->since + 1 - since) > 0)
		since = cnt->since + 1;
	cnt->adopted = named;
	cnt->since = since;
}

/*
 * An app with a region of its own (docs/memory.md, ATP), on the lcore that owns the aggregator:
 * whether the frame may touch it. Claims are taken in the current region, and in the old one
 * while the change runs; releases (ACKs, resends) in both while the old one drains. A frame for
 * any other aggregator touches none: a worker's goes to the PS as it is (the PS sums partial
 * frames), an ACK to the workers. Results carry the region. A worker's claim in the current
 * region while the old one still takes claims says it moved. True: the frame is taken.
 */
static __rte_noinline bool atp_region(struct isw_worker *w, struct rte_mbuf *m, uint8_t *p,
                                      const struct atp_app *a, unsigned ai,
                                      struct atp_counters *cnt, uint32_t agtr, bool ack,
                                      bool resend, int16_t ps)
{
	bool cur = agtr - a->rbase < a->rsize;
	bool old = !cur && agtr - a->obase < a->osize;
	if (ack) {
		note(a, p, cnt);
		if (cur || old)
			return false;
		cnt->pkts++;
		cnt->acks++;
		isw_mcast(w, m, a->group, ISW_MC_NO_EXCLUDE, NULL, NULL, 0);
		return true;
	}
	if (cur) {
		if (a->claim_old && !resend) {
			uint32_t bit = atp_be32(p + ATP_OFF_HDR);
			if ((__atomic_load_n(&atp_moved[ai], __ATOMIC_RELAXED) & bit) != bit)
				__atomic_fetch_or(&atp_moved[ai], bit, __ATOMIC_RELAXED);
		}
		return false;
	}
	if (old && (resend || a->claim_old))
		return false;
	cnt->pkts++;
	cnt->outside++;
	to_ps(w, m, p, ps);
	return true;
}

/* A frame that touches no aggregator (overflow) against the app's job, on any lcore. */
static inline bool job_current(unsigned ai, const uint8_t *p)
{
	return atp_frame_job(p) == (uint32_t)__atomic_load_n(&atp_jobs[ai].named, __ATOMIC_ACQUIRE);
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
	uint16_t seq = atp_be16(h->seq);
	if (unlikely(seq == 0))
		return atp_job_frame(w, m, p, ai, a, cnt, ack, ps);
	bool overflow = flag & ATP_F_OVERFLOW;
	bool resend = flag & ATP_F_RESEND;
	if (unlikely(overflow && !(ack && resend) && !job_current(ai, p))) {
		/* checked here: the two paths below touch no aggregator, so no lcore owns them */
		drop(w, m, cnt, ISW_DROP_ATP_JOB);
		return ISW_PKT_TAKEN;
	}
	if (unlikely(overflow && !ack)) {
		cnt->overflow++;
		return to_ps(w, m, p, ps);
	}
	if (unlikely(ack && overflow && !resend)) {
		/* An overflow ACK touches no aggregator (p4ml.p4): straight to the workers. */
		cnt->pkts++;
		cnt->acks++;
		note(a, p, cnt);
		isw_mcast(w, m, a->group, ISW_MC_NO_EXCLUDE, NULL, NULL, 0);
		return ISW_PKT_TAKEN;
	}
	uint32_t agtr = atp_be16(h->agtr);
	if (unlikely(agtr >= (a->gen == 0 ? c->pool : ATP_POOL_MAX))) {
		drop(w, m, cnt, ISW_DROP_ATP_AGTR);
		return ISW_PKT_TAKEN;
	}
	if (!isw_shard_claim(w, m, agtr))
		return ISW_PKT_TAKEN;
	/* The job check, on the lcore that owns the aggregator: adopt the app's named job if it
	 * changed (what the app claimed here until then has lapsed), then the frame must be of
	 * that job. Claims are dated after the adoption (the SALU dates a claim in the adoption's
	 * ms one ms later), so no claim of an earlier job can pass for one of the current job's. */
	uint64_t named = __atomic_load_n(&atp_jobs[ai].named, __ATOMIC_ACQUIRE);
	if (unlikely(cnt->adopted != named))
		atp_adopt(w, cnt, named);
	if (unlikely(atp_frame_job(p) != (uint32_t)named)) {
		drop(w, m, cnt, ISW_DROP_ATP_JOB);
		return ISW_PKT_TAKEN;
	}
	uint32_t since = cnt->since;
	if (unlikely(a->gen != 0) && atp_region(w, m, p, a, ai, cnt, agtr, ack, resend, ps))
		return ISW_PKT_TAKEN;
	isw_pass_begin(pass);
	cnt->pkts++;
	uint32_t key = (uint32_t)app_id << 16 | seq;

	if (ack) {
		if (isw_salu_pair_release_since(pass, atp_regs[ATP_REG_OWNER], agtr, key, since)) {
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

	uint32_t tag = atp_frame_tag(p);
	if (resend) {
		/* Never claims: flushes and releases what it owns, else goes on unchanged. What it
		 * owns may be another tensor's aggregation of the same seq (a late frame claimed it
		 * after its ACK): released, not flushed into this one. */
		cnt->resends++;
		if (!isw_salu_pair_release_since(pass, atp_regs[ATP_REG_OWNER], agtr, key, since))
			return to_ps(w, m, p, ps);
		uint32_t old = isw_salu_read_clear(pass, atp_regs[ATP_REG_BITMAP], agtr);
		if (unlikely(isw_salu_read(pass, atp_regs[ATP_REG_TAG], agtr) != tag)) {
			isw_salu_write(pass, atp_regs[ATP_REG_COUNT], agtr, 0);
			isw_salu_write(pass, atp_regs[ATP_REG_ECN], agtr, 0);
			cnt->stale++;
			return to_ps(w, m, p, ps);
		}
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

	if (unlikely(a->mask != 0) && (flag & ATP_F_COLLISION)) {
		/* A level of a fabric: a frame that collided below goes to the PS as it is. */
		cnt->collisions++;
		return to_ps(w, m, p, ps);
	}
	bool lapsed;
	enum isw_claim claim =
	        isw_salu_claim_lease(pass, atp_regs[ATP_REG_OWNER], agtr, key, w->now_ms,
	                             c->lease_ms, 0xFFFF0000u, since, &lapsed);
	if (claim == ISW_CLAIM_BUSY) {
		cnt->collisions++;
		h->flag |= ATP_F_COLLISION;
		return to_ps(w, m, p, ps);
	}
	/* The tensor check: an aggregation this key owns but of another tensor (the same seq of
	 * an earlier call, claimed by a frame that came after its ACK) is stale, and is taken
	 * over as a lapsed one is; summing into it would mix two tensors. */
	bool same = isw_salu_tag_test_set(pass, atp_regs[ATP_REG_TAG], agtr, tag);
	uint32_t old, count;
	if (unlikely(lapsed || (claim == ISW_CLAIM_OWN && !same))) {
		/* A lapsed aggregation (an earlier job's, or too slow) or a stale one: this one
		 * starts afresh. Its own contributors resend and reach the PS, which never sees
		 * the lapsed partial sum. */
		if (lapsed)
			cnt->lapsed++;
		else
			cnt->stale++;
		old = 0;
		isw_salu_write(pass, atp_regs[ATP_REG_BITMAP], agtr, bit);
		isw_salu_write(pass, atp_regs[ATP_REG_ECN], agtr, ecn_in);
		count = 1;
		isw_salu_write(pass, atp_regs[ATP_REG_COUNT], agtr, count);
	} else {
		/* A frame's workers join only if none of them is in yet: a frame of several (a
		 * fabric leaf's partial sum) that overlaps the aggregation would count a worker
		 * twice (docs/fabric.md); for one worker's frame this is a plain bit-set. */
		old = isw_salu_bitset_disjoint(pass, atp_regs[ATP_REG_BITMAP], agtr, bit);
		if (isw_salu_bitset(pass, atp_regs[ATP_REG_ECN], agtr, ecn_in))
			h->flag |= ATP_F_ECN;
		count = bit != 0 && (bit & old) == 0
		                ? isw_salu_add(pass, atp_regs[ATP_REG_COUNT], agtr, 1)
		                : isw_salu_read(pass, atp_regs[ATP_REG_COUNT], agtr);
	}
	bool fresh = bit != 0 && (bit & old) == 0;
	uint32_t now_bits = fresh ? old | bit : old;
	bool complete =
	        likely(a->mask == 0) ? count == h->num_worker : (now_bits & a->mask) == a->mask;
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
