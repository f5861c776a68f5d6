/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * askstamp: bench traffic shaping, not switch behaviour. Linked only into bench/inswitch-bench
 * (bench/meson.build), never into the product's inswitch.
 *
 * The benchmark replays one capture for ever (net_pcap infinite_rx=1). ASK keeps per channel a
 * window register and the `seen` ring (docs/ask.md), so a replayed DATA with a seq the switch
 * has already processed is a repeat (it touches no aggregator) or stale (dropped): replaying the
 * same seqs would not measure aggregation. This pipeline runs before ask (a lower order) and
 * gives every ASK DATA frame the next seq of its channel, as a sender streaming for ever would:
 * seqs advance by one per channel from 0 (a fresh task's window starts at 0), so every replayed
 * DATA is a first occurrence within the window and the ask pipeline really aggregates it. Then
 * it lets the frame go on (ISW_PKT_NEXT).
 *
 * A frame is stamped when it is IPv4 without options, not a fragment, UDP to ASK_UDP_PORT (the
 * default; `ask config set udp-port` is not followed), type DATA, not LONG, and long enough for
 * the ASK header. Everything else passes untouched.
 *
 * One counter per worker and channel (channel & ASKSTAMP_CH_MASK, whatever the task): right for
 * the benchmark's one worker lcore and one task. With several workers each would number its own
 * frames and the seqs would repeat; the bench does not do that. Runs on worker lcores: no locks,
 * no allocation, nothing per packet but the header checks and one counter.
 */
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "ask_proto.h"
#include "pipeline.h"
#include "worker.h"

#define ASKSTAMP_CHANNELS 1024u /* ASK's most channels per task */
#define ASKSTAMP_CH_MASK  (ASKSTAMP_CHANNELS - 1)

struct askstamp_worker {
	uint32_t next[ASKSTAMP_CHANNELS]; /* the seq the channel's next DATA gets */
} __rte_cache_aligned;

static struct askstamp_worker askstamp_seq[ISW_MAX_WORKERS];

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline int askstamp_process(struct isw_worker *w, struct rte_mbuf *m)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	const uint8_t *ip = p + ASK_ETH_LEN;
	if (rte_pktmbuf_data_len(m) < ASK_PAY_OFF || rd16(p + 12) != 0x0800 || ip[0] != 0x45 ||
	    ip[9] != 17 || (rd16(ip + 6) & 0x3FFF) != 0 ||
	    rd16(ip + 2) < ASK_PAY_OFF - ASK_ETH_LEN || rd16(ip + ASK_IP_LEN + 2) != ASK_UDP_PORT)
		return ISW_PKT_NEXT;
	struct ask_hdr *h = (struct ask_hdr *)(p + ASK_HDR_OFF);
	if (h->type != ASK_DATA || (h->flags & ASK_F_LONG) != 0)
		return ISW_PKT_NEXT;
	uint32_t *next = &askstamp_seq[w->index].next[ask_be16(h->channel) & ASKSTAMP_CH_MASK];
	ask_put32(h->seq, (*next)++);
	return ISW_PKT_NEXT;
}

/* Every packet of the burst stamped, and none taken. */
static uint16_t askstamp_burst(struct isw_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		askstamp_process(w, pkts[i]);
	return 0;
}

/* Seqs start again from 0 when the pipeline is enabled, as a fresh task's window does. */
static int askstamp_enable(struct isw_reg **regs, char *err, size_t errlen)
{
	RTE_SET_USED(regs);
	RTE_SET_USED(err);
	RTE_SET_USED(errlen);
	memset(askstamp_seq, 0, sizeof(askstamp_seq));
	return 0;
}

/* No registers and no tables: it stands for the senders, not for a part of the ASIC. */
static struct isw_pipeline askstamp = {
        .name = "askstamp",
        .help = "bench only: give each ASK DATA frame the next seq of its channel (so that a "
                "replayed capture aggregates), then pass it on",
        .order = 1,
        .enable = askstamp_enable,
        .process = askstamp_process,
        .process_burst = askstamp_burst,
        .passes_all = true,
};
ISW_PIPELINE_REGISTER(askstamp)
