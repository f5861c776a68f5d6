/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What inswitch's XDP program (xdp_prog.bpf.c) and its loader (xdp.c) share. On every AF_XDP
 * port inswitch attaches this program instead of the driver's default one, so that a NIC can
 * be shared with the kernel: in shared mode only the frames of the enabled pipelines and the
 * switch's own addresses go to inswitch's sockets, everything else (SSH, the host's own TCP,
 * ARP for the host's addresses) to the kernel.
 */
#ifndef ISW_XDP_PROG_H
#define ISW_XDP_PROG_H

#include <linux/types.h>

#define ISW_XDP_PROG_NAME      "isw_xdp" /* the program's name, as the kernel reports it */
#define ISW_XDP_MAX_QUEUES     64        /* entries of xsks_map: one socket per rx queue */
#define ISW_XDP_MAX_ADDRS      256       /* IPv4 addresses the switch answers for */
#define ISW_XDP_MAX_ETHERTYPES 4         /* raw EtherTypes taken whole (ATP's) */

enum isw_xdp_mode {
	ISW_XDP_KERNEL_ALL = 0, /* not configured yet: the kernel keeps everything */
	ISW_XDP_SWITCH_ALL = 1, /* the port is the switch's: every frame to inswitch */
	ISW_XDP_SHARED = 2,     /* the switch's frames to inswitch, the rest to the kernel */
};

/* The one entry of the isw_conf array map. */
struct isw_xdp_conf {
	__u32 mode; /* enum isw_xdp_mode */
	__u32 pid;  /* the inswitch that configured it: a later start tells stale from live */
	__u16 ethertype[ISW_XDP_MAX_ETHERTYPES]; /* network order; 0 = unused */
};

/*
 * The isw_addrs hash map: key an IPv4 address (network order), value unused. In shared mode an
 * IPv4 frame to one of them, and an ARP frame whose target is one, go to inswitch.
 */

/* What the program counts, per CPU (key of the isw_counts array). */
enum isw_xdp_count {
	ISW_XDP_TO_SWITCH, /* redirected to an inswitch socket */
	ISW_XDP_TO_KERNEL, /* not the switch's: passed to the kernel */
	ISW_XDP_NO_SOCKET, /* the switch's, but no socket on its queue: passed to the kernel */
	ISW_XDP_NCOUNTS,
};

#endif
