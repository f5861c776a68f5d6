/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * inswitch's XDP program (xdp_prog.h says what it is for). net_af_xdp loads it (its xdp_prog
 * device argument, which xdp.c adds) and binds one socket per rx queue in xsks_map, the map name
 * that driver looks for; xdp.c then writes isw_conf and isw_addrs. Built by meson with
 * clang -target bpf and embedded in the inswitch binary.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp_prog.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, ISW_XDP_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct isw_xdp_conf);
} isw_conf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ISW_XDP_MAX_ADDRS);
	__type(key, __u32);
	__type(value, __u32);
} isw_addrs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ISW_XDP_NCOUNTS);
	__type(key, __u32);
	__type(value, __u64);
} isw_counts SEC(".maps");

#define ARP_TPA_OFF 24 /* target protocol address in an IPv4-over-Ethernet ARP message */

static __always_inline int count(__u32 what, int verdict)
{
	__u64 *c = bpf_map_lookup_elem(&isw_counts, &what);

	if (c)
		*c += 1;
	return verdict;
}

/* In shared mode: is the frame the switch's? */
static __always_inline int switch_frame(const struct isw_xdp_conf *conf, const __u8 *data,
                                        const __u8 *end)
{
	const struct ethhdr *eth = (const struct ethhdr *)data;
	__u32 addr;

	if ((const __u8 *)(eth + 1) > end)
		return 0;
#pragma unroll
	for (int i = 0; i < ISW_XDP_MAX_ETHERTYPES; i++)
		if (conf->ethertype[i] != 0 && eth->h_proto == conf->ethertype[i])
			return 1;
	if (eth->h_proto == bpf_htons(ETH_P_ARP)) {
		const __u8 *arp = (const __u8 *)(eth + 1);

		if (arp + ARP_TPA_OFF + 4 > end)
			return 0;
		__builtin_memcpy(&addr, arp + ARP_TPA_OFF, 4);
	} else if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		const struct iphdr *ip = (const struct iphdr *)(eth + 1);

		if ((const __u8 *)(ip + 1) > end)
			return 0;
		addr = ip->daddr;
	} else {
		return 0;
	}
	return bpf_map_lookup_elem(&isw_addrs, &addr) != NULL;
}

SEC("xdp")
int isw_xdp(struct xdp_md *ctx)
{
	const __u8 *data = (const __u8 *)(long)ctx->data;
	const __u8 *end = (const __u8 *)(long)ctx->data_end;
	__u32 zero = 0;
	const struct isw_xdp_conf *conf = bpf_map_lookup_elem(&isw_conf, &zero);

	if (!conf || conf->mode == ISW_XDP_KERNEL_ALL)
		return count(ISW_XDP_TO_KERNEL, XDP_PASS);
	if (conf->mode == ISW_XDP_SHARED && !switch_frame(conf, data, end))
		return count(ISW_XDP_TO_KERNEL, XDP_PASS);
	if (bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS) != XDP_REDIRECT)
		return count(ISW_XDP_NO_SOCKET, XDP_PASS);
	return count(ISW_XDP_TO_SWITCH, XDP_REDIRECT);
}

char _license[] SEC("license") = "Dual BSD/GPL";
