/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host tools' transport: whole Ethernet frames of one protocol in and out of one device,
 * over AF_XDP (libxdp sockets, an XDP program of the project that hands them only this
 * protocol's frames for this host) or over kernel sockets (AF_PACKET, batched with
 * sendmmsg/recvmmsg). One struct hx per device, one struct hx_sock per thread: a socket is
 * used by one thread only. Sends are copied into the transport and go out in batches; received
 * frames are read in place. Nothing here allocates or logs after hx_open().
 *
 * Privileges: CAP_NET_RAW for either; AF_XDP also needs CAP_NET_ADMIN and CAP_BPF (or
 * CAP_SYS_ADMIN) to attach the XDP program, and its UMEM counts against RLIMIT_MEMLOCK
 * (hx_open() says how much when that is the limit).
 */
#ifndef ISW_HX_H
#define ISW_HX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hx_proto {
	HX_RAW, /* whole Ethernet frames of one EtherType */
	HX_UDP, /* UDP payloads to and from one IPv4 peer (the transport adds the headers) */
};

enum hx_kind {
	HX_AUTO,   /* AF_XDP when it can be set up, else sockets (hx_describe() says why) */
	HX_SOCKET, /* kernel sockets */
	HX_XDP,    /* AF_XDP, or hx_open() fails */
};

#define HX_MAX_SOCKS 64u   /* sockets (threads) per device */
#define HX_FRAME_MAX 1514u /* longest frame sent or received (no FCS) */
#define HX_UDP_MAX   1472u /* longest UDP payload (HX_FRAME_MAX less Ethernet, IPv4, UDP) */
#define HX_BATCH     64u   /* frames one flush sends, one receive returns, at most */
#define HX_RING_DEF  2048u /* ring entries per socket by default */

struct hx_cfg {
	const char *dev;   /* interface name (HX_UDP: NULL, the one the route to peer takes) */
	enum hx_kind kind; /* HX_AUTO by default */
	enum hx_proto proto;
	/* HX_UDP: socket i is bound to local port udp_port + i and talks to peer_ip:peer_port
	 * only (network order); on AF_XDP the peer must be on the link (its MAC comes from the
	 * kernel's neighbour table: at open, or resolved at the first send, waiting up to 1 s). */
	uint32_t peer_ip;
	uint16_t peer_port, udp_port;
	/* HX_UDP: receive from any address (hx_recvfrom() says which) and send to any
	 * (hx_sendto()), the peer being only where hx_send() goes; peer_ip 0: none (then
	 * AF_XDP needs dev). AF_XDP takes the MAC of an address from the kernel's neighbour
	 * table, asking the kernel to resolve it and waiting up to 1 s the first time. */
	bool any_source;
	/* HX_RAW: */
	uint16_t ethertype; /* frames of this EtherType (host order) */
	/* Received frames: destination MAC starting with mac[0..mac_len-1]. With mac_len 5,
	 * socket i receives the frames to mac[0..4]:(mac[5] + i); otherwise socket 0 all. */
	uint8_t mac[6];
	uint8_t mac_len;
	unsigned nsock; /* sockets, 1..HX_MAX_SOCKS */
	unsigned ring;  /* ring entries per socket (power of two, 64..16384; 0: HX_RING_DEF) */
	bool busy_poll; /* AF_XDP: spin on the rings instead of sleeping in poll() */
};

/* What a socket counts (all kinds; zero where a kind cannot tell). */
struct hx_stats {
	uint64_t tx;      /* frames handed to the device */
	uint64_t tx_full; /* frames not sent: the device's queue stayed full (lost, as on a wire) */
	uint64_t rx;      /* frames received */
	uint64_t rx_dropped; /* dropped for this socket by the kernel (ring or buffer full) */
	uint64_t rx_bad;     /* HX_UDP on AF_XDP: not from the peer, or bad IPv4/UDP headers */
	uint64_t wakeups;    /* system calls made to send or to wait */
	/* AF_XDP, the whole device: completions of frames not in flight, ignored */
	uint64_t tx_bad_completions;
};

struct hx;
struct hx_sock;

/*
 * Opens cfg->nsock sockets on cfg->dev. Returns 0 or -errno; on failure why (if not NULL) says
 * what failed and what would fix it. With HX_AUTO, a failure to set up AF_XDP falls back to
 * sockets and hx_describe() keeps the reason.
 */
int hx_open(struct hx **out, const struct hx_cfg *cfg, char *why, size_t whylen);
/* Closes the sockets, detaches the XDP program, frees everything. NULL is fine. */
void hx_close(struct hx *hx);
/* Socket i (< cfg->nsock). */
struct hx_sock *hx_sock(struct hx *hx, unsigned i);
/* HX_XDP or HX_SOCKET: what hx_open() set up. */
enum hx_kind hx_kind(const struct hx *hx);
/* One line: which transport, its mode, and with HX_AUTO why it fell back ("socket (AF_PACKET):
 * AF_XDP unavailable: ..."). */
const char *hx_describe(const struct hx *hx);

/*
 * Queues one frame (HX_UDP: one payload) for sending, copied; a full batch goes out at once,
 * the rest at hx_flush(). 0, or -EMSGSIZE (longer than HX_FRAME_MAX or HX_UDP_MAX, or a frame
 * shorter than an Ethernet header); a frame the device cannot take is counted in tx_full, not
 * an error (a loss on the wire).
 */
int hx_send(struct hx_sock *s, const void *frame, size_t len);
/* HX_UDP: hx_send() to ip:port (network order). -EHOSTUNREACH when AF_XDP finds no MAC for ip
 * (counted in tx_full too). */
int hx_sendto(struct hx_sock *s, const void *payload, size_t len, uint32_t ip, uint16_t port);
/* Sends what hx_send() queued. 0 or -errno (an error of the socket itself). */
int hx_flush(struct hx_sock *s);
/*
 * Receives up to n (<= HX_BATCH) frames (HX_UDP: payloads from the peer): frames[i], lens[i],
 * valid until the next hx_recv() on this socket. Waits at most timeout_ms (0: not at all) for
 * the first. Returns the count or -errno. Flushes queued sends first.
 */
int hx_recv(struct hx_sock *s, const uint8_t **frames, uint16_t *lens, unsigned n, int timeout_ms);
/* hx_recv() with each payload's source address (network order) in ips[i], ports[i]. */
int hx_recvfrom(struct hx_sock *s, const uint8_t **frames, uint16_t *lens, uint32_t *ips,
                uint16_t *ports, unsigned n, int timeout_ms);
/* Waits at most timeout_ms until something can be received (without taking it). */
void hx_wait(struct hx_sock *s, int timeout_ms);
/* HX_UDP: the socket's local port (host order), the one the kernel chose if udp_port was 0. */
uint16_t hx_local_port(struct hx_sock *s);
/* The socket's counters so far. */
void hx_stats_get(struct hx_sock *s, struct hx_stats *st);
/* "xdp", "socket" or "auto" -> kind. 0 or -EINVAL. */
int hx_kind_parse(const char *s, enum hx_kind *kind);

#endif
