/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host transport's XDP program: hands a host tool's AF_XDP sockets the frames of its
 * protocol addressed to it (hx_prog.h has the rule) and passes everything else to the kernel.
 * Built by meson with clang -target bpf; embedded in the host tools, which load it.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "hx_prog.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, HX_PROG_MAX_SOCKS);
	__type(key, __u32);
	__type(value, __u32);
} hx_xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hx_rule);
} hx_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HX_PROG_NCOUNTS);
	__type(key, __u32);
	__type(value, __u64);
} hx_counts SEC(".maps");

static __always_inline int count(__u32 what, int verdict)
{
	__u64 *c = bpf_map_lookup_elem(&hx_counts, &what);

	if (c)
		*c += 1;
	return verdict;
}

/* The socket of an IPv4 UDP frame to r->ip:[r->port, r->port + nsock), or -1. */
static __always_inline int udp_key(const struct hx_rule *r, const struct ethhdr *eth,
                                   const __u8 *end)
{
	const struct iphdr *ip = (const struct iphdr *)(eth + 1);
	const struct udphdr *udp;
	__u16 port;

	if (eth->h_proto != bpf_htons(ETH_P_IP) || (const __u8 *)(ip + 1) > end || ip->ihl < 5 ||
	    ip->protocol != IPPROTO_UDP || ip->daddr != r->ip || (ip->frag_off & bpf_htons(0x3fff)))
		return -1;
	udp = (const struct udphdr *)((const __u8 *)ip + ip->ihl * 4);
	if ((const __u8 *)(udp + 1) > end)
		return -1;
	port = bpf_ntohs(udp->dest);
	if (port < r->port || port - r->port >= r->nsock)
		return -1;
	return port - r->port;
}

SEC("xdp")
int hx_xdp(struct xdp_md *ctx)
{
	const __u8 *data = (const __u8 *)(long)ctx->data;
	const __u8 *end = (const __u8 *)(long)ctx->data_end;
	const struct ethhdr *eth = (const struct ethhdr *)data;
	__u32 zero = 0, key = 0;
	const struct hx_rule *r = bpf_map_lookup_elem(&hx_rules, &zero);

	if (!r || (const __u8 *)(eth + 1) > end)
		return count(HX_PROG_PASSED, XDP_PASS);
	if (r->udp) {
		int k = udp_key(r, eth, end);

		if (k < 0)
			return count(HX_PROG_PASSED, XDP_PASS);
		key = (__u32)k;
		goto redirect;
	}
	if (eth->h_proto != bpf_htons(r->ethertype))
		return count(HX_PROG_PASSED, XDP_PASS);
#pragma unroll
	for (int i = 0; i < 6; i++)
		if (i < r->mac_len && eth->h_dest[i] != r->mac[i])
			return count(HX_PROG_PASSED, XDP_PASS);
	if (r->mac_len == 5)
		key = (__u8)(eth->h_dest[5] - r->key_base);
	if (key >= r->nsock)
		return count(HX_PROG_NO_SOCK, XDP_PASS);
redirect:
	if (bpf_redirect_map(&hx_xsks, key, XDP_PASS) != XDP_REDIRECT)
		return count(HX_PROG_NO_SOCK, XDP_PASS);
	return count(HX_PROG_MATCHED, XDP_REDIRECT);
}

char _license[] SEC("license") = "Dual BSD/GPL";
