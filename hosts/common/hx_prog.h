/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the host transport's XDP program (hx_prog.bpf.c) and its loader (hx_xdp.c) share: the
 * rule that picks this host's frames for AF_XDP sockets. Everything the rule does not match
 * passes to the kernel (ARP, the host's own TCP, SSH).
 */
#ifndef ISW_HX_PROG_H
#define ISW_HX_PROG_H

#include <linux/types.h>

#define HX_PROG_MAX_SOCKS 64 /* entries of the XSKMAP: sockets one program serves */

/*
 * Raw (udp 0): a frame is this host's when its EtherType is ethertype and the first mac_len bytes
 * of its destination MAC are mac's; it goes to the socket mac[5] - key_base (wrapping: a key beyond
 * the sockets passes to the kernel) when mac_len is 5, else to socket 0.
 */
struct hx_rule {
	__u8 mac[6];
	__u8 mac_len; /* 0..6 */
	__u8 key_base;
	__u16 ethertype; /* host order */
	__u16 nsock;
	/* udp: IPv4 (unfragmented) UDP to ip (network order) and a destination port in
	 * [port, port + nsock): socket port - port. mac_len, key_base and ethertype unused. */
	__u32 ip;
	__u16 port; /* host order */
	__u8 udp;
	__u8 pad;
};

/* What the program counts, per CPU (key of the hx_counts array). */
enum hx_prog_count {
	HX_PROG_MATCHED, /* redirected to a socket */
	HX_PROG_PASSED,  /* not this host's frame: to the kernel */
	HX_PROG_NO_SOCK, /* matched, but no socket for its key: to the kernel */
	HX_PROG_NCOUNTS,
};

#endif
