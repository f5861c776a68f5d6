/* SPDX-License-Identifier: BSD-3-Clause */
/* The host transport's state, shared by its kernel-socket part (hx.c) and AF_XDP part (hx_xdp.c).
 */
#ifndef ISW_HX_INTERNAL_H
#define ISW_HX_INTERNAL_H

#include <pthread.h>
#include <time.h>
#include <net/if.h>
#include <xdp/xsk.h>

#include "host_clock.h"
#include "hx.h"

#define HX_RX_STRIDE 2048u /* kernel sockets: receive buffer a frame */
#define HX_XDP_FRAME 2048u /* AF_XDP: UMEM chunk a frame */
#define HX_NEIGH     64u   /* AF_XDP, HX_UDP: MACs a socket remembers */

struct hx_sock {
	struct hx *hx;
	unsigned idx;
	struct hx_stats st;
	unsigned ntx; /* frames queued by hx_send() */
	/* kernel sockets */
	int fd;
	uint8_t *txbuf; /* HX_BATCH frames of HX_FRAME_MAX */
	uint16_t txlen[HX_BATCH];
	uint8_t *rxbuf; /* HX_BATCH frames of HX_RX_STRIDE */
	/* AF_XDP */
	struct xsk_socket *xsk;
	struct xsk_ring_cons rx;
	struct xsk_ring_prod tx;
	uint64_t *free_tx; /* UMEM addresses of this socket's free tx frames (its thread's) */
	unsigned nfree;
	uint64_t *ret_tx; /* ... completed, taken off the completion ring by any socket (lock) */
	unsigned nret;
	uint64_t txq[HX_BATCH]; /* frames queued by hx_send(), and their lengths */
	uint32_t txqlen[HX_BATCH];
	uint64_t held[HX_BATCH]; /* rx frames handed out by the last hx_recv() */
	unsigned nheld;
	uint16_t ip_id; /* HX_UDP on AF_XDP: the next IPv4 id */
	/* HX_UDP with any_source: where each queued payload goes (kernel sockets) */
	uint32_t txip[HX_BATCH];
	uint16_t txport[HX_BATCH];
	/* HX_UDP on AF_XDP: MACs of the addresses sent to (direct-mapped) */
	struct hx_neigh {
		uint32_t ip;
		uint8_t mac[6];
		bool bad;          /* unresolved: sends to ip fail until retry_ns */
		uint64_t retry_ns; /* CLOCK_MONOTONIC */
	} neigh[HX_NEIGH];
};

struct hx {
	struct hx_cfg cfg;
	char dev[IF_NAMESIZE];
	enum hx_kind kind;
	char desc[320];
	struct hx_sock *socks;
	/* AF_XDP */
	int ifindex;
	void *area; /* the UMEM */
	size_t area_len;
	struct xsk_umem *umem;
	struct xsk_ring_prod fq; /* shared by the sockets of the queue: under lock */
	struct xsk_ring_cons cq;
	pthread_mutex_t lock;
	bool lock_ok;          /* lock initialised (hx_xdp_open may fail before) */
	unsigned nrx_frames;   /* frames [0, nrx_frames) feed the fill ring */
	unsigned ntx_per_sock; /* then ntx_per_sock tx frames per socket */
	unsigned ntx_frames;   /* all of them */
	uint8_t *tx_busy;      /* per tx frame: submitted, not completed yet */
	uint64_t bad_completions;
	struct bpf_object *obj;
	struct bpf_link *link;
	/* HX_UDP on AF_XDP: the route's source address and the MACs of the link */
	uint32_t local_ip;
	uint8_t own_mac[6], peer_mac[6];
	bool peer_mac_ok; /* known at open; else each socket resolves it at its first send */
};

/* AF_XDP: sets up hx's sockets (hx->socks allocated, kind unset). 0 or -errno with why. */
int hx_xdp_open(struct hx *hx, char *why, size_t whylen);
void hx_xdp_close(struct hx *hx);
/* Raw: frame; UDP: a payload to ip:port (network order), its MAC found first. */
int hx_xdp_send(struct hx_sock *s, const void *frame, size_t len, uint32_t ip, uint16_t port);
int hx_xdp_flush(struct hx_sock *s);
int hx_xdp_recv(struct hx_sock *s, const uint8_t **frames, uint16_t *lens, uint32_t *ips,
                uint16_t *ports, unsigned n, int timeout_ms);
void hx_xdp_stats(struct hx_sock *s, struct hx_stats *st);
void hx_xdp_wait(struct hx_sock *s, int timeout_ms);

/* HX_UDP: a connected UDP socket for s (kernel sockets). 0 or -errno. */
int hx_udp_sock_open(struct hx_sock *s);
/* HX_UDP on AF_XDP: binds a kernel UDP socket (s->fd) to s's port, so that no one else takes
 * it (and ss shows it); with cfg.udp_port 0, to one the kernel chooses, which becomes
 * cfg.udp_port. 0 or -errno. */
int hx_udp_hold(struct hx_sock *s);
/* HX_UDP on AF_XDP: the route to the peer, its device (hx->dev), the MACs. 0 or -errno, why. */
int hx_udp_resolve(struct hx *hx, char *why, size_t whylen);
/* Writes the frame carrying payload from socket s to ip:port (MAC mac) into f; its length. */
size_t hx_udp_build(struct hx_sock *s, uint8_t *f, const void *payload, size_t len, uint32_t ip,
                    uint16_t port, const uint8_t *mac);
/* The payload of a UDP frame to us (from the peer unless any_source): its length and source
 * (network order), or -1 if it is not one. */
int hx_udp_parse(struct hx_sock *s, const uint8_t *f, size_t len, const uint8_t **payload,
                 uint32_t *ip, uint16_t *port);
/* The MAC for ip: the peer's, or the kernel's neighbour entry (asked for and waited for up to
 * 1 s the first time; a host that sent to us is usually there, from its ARP request), kept in
 * s->neigh. 0 or -EHOSTUNREACH. */
int hx_udp_mac(struct hx_sock *s, uint32_t ip, uint8_t mac[6]);

/* The owner of UMEM tx frame addr: its socket's index (frames laid out as in struct hx). */
static inline unsigned hx_tx_owner(const struct hx *hx, uint64_t addr)
{
	return (unsigned)((addr / HX_XDP_FRAME - hx->nrx_frames) / hx->ntx_per_sock);
}

#endif
