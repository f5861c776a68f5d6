/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flowcount: counts packets and bytes of IPv4 flows in a register array of 32-bit pairs indexed
 * by a hash of the 5-tuple, then lets the packet go on to the next pipeline. Off by default.
 *
 * It is the smallest stateful pipeline: one stage, one register array, one SALU per packet, and
 * a shard key (the bucket's cache line) so two lcores never update the same bucket. It doubles
 * as the template for writing a pipeline against the ASIC model.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "cmd.h"
#include "pipeline.h"
#include "worker.h"

#define FC_BUCKETS 4096u

static struct isw_reg *flows; /* lo = packets, hi = bytes */

/* Bucket of an IPv4 frame, or -1 if it is not one (with ports for TCP and UDP). */
static inline int64_t fc_bucket(const struct rte_mbuf *m)
{
	uint32_t len = rte_pktmbuf_data_len(m);
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	if (len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr))
		return -1;
	const struct rte_ether_hdr *eh = (const struct rte_ether_hdr *)p;
	if (eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return -1;
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);
	uint32_t ihl = (ip->version_ihl & 0xf) * 4u;
	if ((ip->version_ihl >> 4) != 4 || ihl < 20)
		return -1;
	uint32_t h = ip->src_addr * 0x9e3779b1u ^ ip->dst_addr * 0x85ebca6bu ^ ip->next_proto_id;
	bool l4 = ip->next_proto_id == IPPROTO_TCP || ip->next_proto_id == IPPROTO_UDP;
	bool first_frag = (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK)) == 0;
	if (l4 && first_frag && len >= RTE_ETHER_HDR_LEN + ihl + 4) {
		uint32_t ports;
		memcpy(&ports, p + RTE_ETHER_HDR_LEN + ihl, 4);
		h ^= ports * 0xc2b2ae35u;
	}
	h ^= h >> 16;
	return h & (FC_BUCKETS - 1);
}

static __rte_always_inline int fc_process_common(struct isw_worker *w, struct rte_mbuf *m,
                                                 struct isw_pass *pass)
{
	int64_t b = fc_bucket(m);
	if (b < 0)
		return ISW_PKT_NEXT;
	/* Eight pairs share a cache line: shard by line so lcores never share one. */
	if (!isw_shard_claim(w, m, (uint32_t)b / 8))
		return ISW_PKT_TAKEN;
	isw_pass_begin(pass);
	isw_salu_pair_add(pass, flows, (uint32_t)b, 1, rte_pktmbuf_pkt_len(m));
	return ISW_PKT_NEXT;
}

static int fc_process(struct isw_worker *w, struct rte_mbuf *m)
{
	return fc_process_common(w, m, NULL);
}

static int fc_process_strict(struct isw_worker *w, struct rte_mbuf *m)
{
	return fc_process_common(w, m, &w->pass);
}

static int fc_enable(struct isw_reg **regs, char *err, size_t errlen)
{
	RTE_SET_USED(err);
	RTE_SET_USED(errlen);
	flows = regs[0];
	return 0;
}

static void fc_disable(void)
{
	flows = NULL;
}

struct fc_row {
	uint32_t bucket;
	uint32_t pkts;
	uint32_t bytes;
};

static int row_cmp(const void *a, const void *b)
{
	const struct fc_row *x = a, *y = b;
	if (x->pkts != y->pkts)
		return x->pkts < y->pkts ? 1 : -1;
	return x->bucket < y->bucket ? -1 : x->bucket > y->bucket;
}

static int cmd_fc_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint32_t top = 10;
	if (isw_arg_count(c, argc, 0, 1) < 0 ||
	    (argc == 1 && isw_arg_u32(c, argv[0], "top", 1, FC_BUCKETS, &top) < 0))
		return -EINVAL;
	if (flows == NULL)
		return isw_cmd_err(c, ENOTSUP,
		                   "flowcount is not enabled (pipeline enable flowcount)");
	struct fc_row *rows = malloc(FC_BUCKETS * sizeof(*rows));
	if (rows == NULL)
		return isw_cmd_err(c, ENOMEM, "no memory");
	if (isw_dp_pause() < 0) {
		free(rows);
		return isw_cmd_err(c, EAGAIN, "workers did not pause; try again");
	}
	uint32_t n = 0;
	uint64_t pkts = 0;
	for (uint32_t b = 0; b < FC_BUCKETS; b++) {
		uint32_t p = (uint32_t)isw_reg_get(flows, b, 0);
		if (p == 0)
			continue;
		rows[n++] = (struct fc_row){b, p, (uint32_t)isw_reg_get(flows, b, 1)};
		pkts += p;
	}
	isw_dp_resume();
	qsort(rows, n, sizeof(*rows), row_cmp);
	isw_json_u64(c->out, "buckets_used", n);
	isw_json_u64(c->out, "pkts", pkts);
	isw_json_arr_open(c->out, "top");
	for (uint32_t i = 0; i < n && i < top; i++) {
		isw_json_obj_open(c->out, NULL);
		isw_json_u64(c->out, "bucket", rows[i].bucket);
		isw_json_u64(c->out, "pkts", rows[i].pkts);
		isw_json_u64(c->out, "bytes", rows[i].bytes);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	free(rows);
	return 0;
}
ISW_CMD_REGISTER(fc_show, "flowcount show", "[TOP]",
                 "show the busiest flow buckets (packets and bytes, 32-bit wrapping counters)",
                 cmd_fc_show)

static const struct isw_reg_decl fc_regs[] = {
        {"flows", 0, ISW_REG_PAIR, FC_BUCKETS},
};

static const struct isw_asic_decl fc_asic = {
        .pipeline = "flowcount",
        .regs = fc_regs,
        .nb_regs = RTE_DIM(fc_regs),
};

static struct isw_pipeline flowcount = {
        .name = "flowcount",
        .help = "count IPv4 flows in a register array, then pass packets on (example pipeline)",
        .order = 100,
        .asic = &fc_asic,
        .enable = fc_enable,
        .disable = fc_disable,
        .process = fc_process,
        .process_strict = fc_process_strict,
};
ISW_PIPELINE_REGISTER(flowcount)
