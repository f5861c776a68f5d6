/* SPDX-License-Identifier: BSD-3-Clause */
/* The host transport (hx.h): choosing the kind, and its kernel-socket part (AF_PACKET). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <sys/socket.h>

#include "hx_internal.h"

int hx_kind_parse(const char *s, enum hx_kind *kind)
{
	if (strcmp(s, "auto") == 0)
		*kind = HX_AUTO;
	else if (strcmp(s, "xdp") == 0)
		*kind = HX_XDP;
	else if (strcmp(s, "socket") == 0)
		*kind = HX_SOCKET;
	else
		return -EINVAL;
	return 0;
}

/*
 * A classic BPF filter for socket i: the EtherType, then the first mac_len bytes of the
 * destination MAC (with mac_len 5, byte 5 is mac[5] + i). Drops everything else in the kernel,
 * before it is queued to this socket.
 */
static int sock_filter(int fd, const struct hx_cfg *c, unsigned i)
{
	struct sock_filter code[16];
	unsigned n = 0, len = c->mac_len == 5 ? 6 : c->mac_len;

	code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12);
	code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, c->ethertype, 0, 0);
	for (unsigned b = 0; b < len; b++) {
		uint8_t want = b == 5 && c->mac_len == 5 ? (uint8_t)(c->mac[5] + i) : c->mac[b];

		code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, b);
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, want, 0, 0);
	}
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0xffff);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	/* Every test that fails jumps to the last instruction (drop). */
	for (unsigned k = 0; k + 2 < n; k++)
		if (BPF_CLASS(code[k].code) == BPF_JMP)
			code[k].jf = (uint8_t)(n - 2 - k);
	struct sock_fprog prog = {.len = (unsigned short)n, .filter = code};

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

static int sock_open(struct hx_sock *s)
{
	const struct hx_cfg *c = &s->hx->cfg;
	size_t tx_stride = c->proto == HX_UDP ? HX_UDP_MAX : HX_FRAME_MAX;
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(c->ethertype)};
	int one = 1, buf = 8 << 20;
	uint8_t junk[64];

	s->txbuf = malloc((size_t)HX_BATCH * tx_stride);
	s->rxbuf = malloc((size_t)HX_BATCH * HX_RX_STRIDE);
	if (!s->txbuf || !s->rxbuf)
		return -ENOMEM;
	if (c->proto == HX_UDP)
		return hx_udp_sock_open(s);
	sll.sll_ifindex = (int)if_nametoindex(c->dev);
	if (sll.sll_ifindex == 0)
		return -ENODEV;
	/* Bound to the EtherType (not ETH_P_ALL): the kernel then does not loop our sends back. */
	s->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(c->ethertype));
	if (s->fd < 0 || sock_filter(s->fd, c, s->idx) < 0)
		return -errno;
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) < 0)
		(void)setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (setsockopt(s->fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) < 0)
		(void)setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	(void)setsockopt(s->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	if (bind(s->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return -errno;
	/* Drop what arrived between socket() and the filter. */
	while (recv(s->fd, junk, sizeof(junk), MSG_DONTWAIT) >= 0)
		;
	return 0;
}

static void sock_close(struct hx_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->txbuf);
	free(s->rxbuf);
}

/* The most one hx_send() takes. */
static size_t send_max(const struct hx *hx)
{
	return hx->cfg.proto == HX_UDP ? HX_UDP_MAX : HX_FRAME_MAX;
}

/* Errors of the socket or the call itself, as opposed to the path of one frame (a full queue,
 * a device down, an ICMP error of an earlier datagram, no route: lost, as on a wire). */
static bool sock_fatal(int e)
{
	return e == EBADF || e == EFAULT || e == EINVAL || e == ENOTSOCK || e == EMSGSIZE ||
	       e == EDESTADDRREQ || e == EAFNOSUPPORT || e == EOPNOTSUPP;
}

static int sock_flush(struct hx_sock *s)
{
	size_t stride = send_max(s->hx);
	bool named = s->hx->cfg.proto == HX_UDP && s->hx->cfg.any_source;
	struct sockaddr_in to[HX_BATCH];
	struct mmsghdr msgs[HX_BATCH];
	struct iovec iov[HX_BATCH];
	unsigned i = 0, busy = 0;

	for (unsigned k = 0; k < s->ntx; k++) {
		iov[k] = (struct iovec){s->txbuf + k * stride, s->txlen[k]};
		memset(&msgs[k], 0, sizeof(msgs[k]));
		msgs[k].msg_hdr.msg_iov = &iov[k];
		msgs[k].msg_hdr.msg_iovlen = 1;
		if (named) {
			to[k] = (struct sockaddr_in){.sin_family = AF_INET,
			                             .sin_addr.s_addr = s->txip[k],
			                             .sin_port = s->txport[k]};
			msgs[k].msg_hdr.msg_name = &to[k];
			msgs[k].msg_hdr.msg_namelen = sizeof(to[k]);
		}
	}
	while (i < s->ntx) {
		int r = sendmmsg(s->fd, msgs + i, s->ntx - i, 0);

		s->st.wakeups++;
		if (r > 0) {
			i += (unsigned)r;
			s->st.tx += (uint64_t)r;
			busy = 0;
			continue;
		}
		if (errno == EINTR)
			continue;
		if ((errno == ENOBUFS || errno == EAGAIN) && busy++ < 1000) {
			usleep(50); /* the device queue is full: let it drain */
			continue;
		}
		if (sock_fatal(errno)) {
			int e = errno;

			s->ntx = 0;
			return -e;
		}
		s->st.tx_full++; /* this frame stays unsent: lost, as on a wire */
		i++;
		busy = 0;
	}
	s->ntx = 0;
	return 0;
}

static int sock_recv(struct hx_sock *s, const uint8_t **frames, uint16_t *lens, uint32_t *ips,
                     uint16_t *ports, unsigned n, int timeout_ms)
{
	struct sockaddr_in from[HX_BATCH];
	struct mmsghdr msgs[HX_BATCH];
	struct iovec iov[HX_BATCH];
	struct pollfd pfd = {.fd = s->fd, .events = POLLIN};
	int r, k = 0;

	for (unsigned i = 0; i < n; i++) {
		iov[i] = (struct iovec){s->rxbuf + (size_t)i * HX_RX_STRIDE, HX_RX_STRIDE};
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		if (ips) {
			msgs[i].msg_hdr.msg_name = &from[i];
			msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);
		}
	}
	r = recvmmsg(s->fd, msgs, n, MSG_DONTWAIT, NULL);
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && timeout_ms > 0) {
		s->st.wakeups++;
		r = poll(&pfd, 1, timeout_ms);
		if (r <= 0)
			return r < 0 && errno != EINTR ? -errno : 0;
		r = recvmmsg(s->fd, msgs, n, MSG_DONTWAIT, NULL);
	}
	if (r < 0)
		/* ECONNREFUSED: an ICMP error of an earlier datagram, taken */
		return sock_fatal(errno) || errno == ENETDOWN ? -errno : 0;
	for (int i = 0; i < r; i++) {
		if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC || msgs[i].msg_len > send_max(s->hx)) {
			s->st.rx_dropped++; /* longer than any frame of ours */
			continue;
		}
		if (ips) {
			ips[k] = from[i].sin_addr.s_addr;
			ports[k] = from[i].sin_port;
		}
		frames[k] = s->rxbuf + (size_t)i * HX_RX_STRIDE;
		lens[k++] = (uint16_t)msgs[i].msg_len;
	}
	s->st.rx += (uint64_t)k;
	return k;
}

static int check_cfg(const struct hx_cfg *c, char *why, size_t whylen)
{
	unsigned ring = c->ring ? c->ring : HX_RING_DEF;

	if ((c->proto == HX_RAW && (!c->dev || !c->dev[0])) ||
	    (c->dev && strlen(c->dev) >= IF_NAMESIZE)) {
		snprintf(why, whylen, "no interface name, or one too long");
		return -EINVAL;
	}
	if (c->proto == HX_UDP &&
	    ((!c->any_source && (!c->peer_ip || !c->peer_port)) || (!c->udp_port && c->nsock > 1) ||
	     c->udp_port + c->nsock > 65536)) {
		snprintf(why, whylen,
		         "UDP needs a peer address and port (unless from any source), and local "
		         "ports %u..%u (0: one socket, on a port the kernel chooses)",
		         c->udp_port, c->udp_port + c->nsock - 1);
		return -EINVAL;
	}
	if (c->nsock < 1 || c->nsock > HX_MAX_SOCKS || c->mac_len > 6) {
		snprintf(why, whylen, "%u sockets (1..%u), MAC prefix of %u bytes (0..6)", c->nsock,
		         HX_MAX_SOCKS, c->mac_len);
		return -EINVAL;
	}
	if (ring < 64 || ring > 16384 || (ring & (ring - 1))) {
		snprintf(why, whylen, "ring of %u entries: a power of two, 64..16384", ring);
		return -EINVAL;
	}
	if (c->mac_len == 5 && (unsigned)c->mac[5] + c->nsock > 256) {
		snprintf(why, whylen, "sockets %u..%u do not fit the MAC's last byte", c->mac[5],
		         c->mac[5] + c->nsock - 1);
		return -EINVAL;
	}
	return 0;
}

static int sock_open_all(struct hx *hx, char *why, size_t whylen)
{
	for (unsigned i = 0; i < hx->cfg.nsock; i++) {
		int rc = sock_open(&hx->socks[i]);

		if (rc < 0) {
			if (hx->cfg.proto == HX_UDP)
				snprintf(why, whylen, "UDP socket on port %u: %s%s",
				         hx->cfg.udp_port + i, strerror(-rc),
				         rc == -EADDRINUSE ? " (another tool on this host?)" : "");
			else
				snprintf(why, whylen, "AF_PACKET socket on %s: %s%s", hx->dev,
				         strerror(-rc), rc == -EPERM ? " (needs CAP_NET_RAW)" : "");
			return rc;
		}
	}
	return 0;
}

int hx_open(struct hx **out, const struct hx_cfg *cfg, char *why, size_t whylen)
{
	char xwhy[256] = "", dummy[8];
	struct hx *hx;
	int rc;

	if (!why) {
		why = dummy;
		whylen = sizeof(dummy);
	}
	*out = NULL;
	if ((rc = check_cfg(cfg, why, whylen)) < 0)
		return rc;
	hx = calloc(1, sizeof(*hx));
	if (!hx)
		return -ENOMEM;
	hx->cfg = *cfg;
	if (!hx->cfg.ring)
		hx->cfg.ring = HX_RING_DEF;
	snprintf(hx->dev, sizeof(hx->dev), "%s", cfg->dev ? cfg->dev : "");
	hx->cfg.dev = hx->dev;
	hx->socks = calloc(cfg->nsock, sizeof(*hx->socks));
	if (!hx->socks) {
		free(hx);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < cfg->nsock; i++)
		hx->socks[i] = (struct hx_sock){.hx = hx, .idx = i, .fd = -1};
	if (cfg->kind != HX_SOCKET) {
		rc = hx_xdp_open(hx, xwhy, sizeof(xwhy));
		if (rc == 0) {
			hx->kind = HX_XDP;
			*out = hx;
			return 0;
		}
		hx_xdp_close(hx);
		if (cfg->kind == HX_XDP) {
			snprintf(why, whylen, "AF_XDP on %s: %s", hx->dev, xwhy);
			hx_close(hx);
			return rc;
		}
	}
	hx->kind = HX_SOCKET;
	rc = sock_open_all(hx, why, whylen);
	if (rc < 0) {
		hx_close(hx);
		return rc;
	}
	snprintf(hx->desc, sizeof(hx->desc), "socket (%s, batched)%s%s",
	         cfg->proto == HX_UDP ? "UDP" : "AF_PACKET",
	         cfg->kind == HX_AUTO ? ": AF_XDP unavailable: " : "",
	         cfg->kind == HX_AUTO ? xwhy : "");
	*out = hx;
	return 0;
}

void hx_close(struct hx *hx)
{
	if (!hx)
		return;
	if (hx->kind == HX_SOCKET)
		for (unsigned i = 0; i < hx->cfg.nsock; i++)
			sock_close(&hx->socks[i]);
	else
		hx_xdp_close(hx);
	free(hx->socks);
	free(hx);
}

struct hx_sock *hx_sock(struct hx *hx, unsigned i)
{
	return i < hx->cfg.nsock ? &hx->socks[i] : NULL;
}

enum hx_kind hx_kind(const struct hx *hx)
{
	return hx->kind;
}

const char *hx_describe(const struct hx *hx)
{
	return hx->desc;
}

int hx_sendto(struct hx_sock *s, const void *frame, size_t len, uint32_t ip, uint16_t port)
{
	if (len > send_max(s->hx) || (s->hx->cfg.proto == HX_RAW && len < 14))
		return -EMSGSIZE;
	if (s->hx->cfg.proto == HX_UDP && (!ip || !port))
		return -EDESTADDRREQ;
	if (s->hx->kind == HX_XDP)
		return hx_xdp_send(s, frame, len, ip, port);
	memcpy(s->txbuf + s->ntx * send_max(s->hx), frame, len);
	s->txip[s->ntx] = ip;
	s->txport[s->ntx] = port;
	s->txlen[s->ntx++] = (uint16_t)len;
	return s->ntx == HX_BATCH ? sock_flush(s) : 0;
}

int hx_send(struct hx_sock *s, const void *frame, size_t len)
{
	if (s->hx->cfg.proto == HX_RAW)
		return hx_sendto(s, frame, len, 0, 0); /* a raw frame carries its addresses */
	return hx_sendto(s, frame, len, s->hx->cfg.peer_ip, s->hx->cfg.peer_port);
}

int hx_flush(struct hx_sock *s)
{
	if (s->hx->kind == HX_XDP)
		return hx_xdp_flush(s);
	return s->ntx ? sock_flush(s) : 0;
}

int hx_recvfrom(struct hx_sock *s, const uint8_t **frames, uint16_t *lens, uint32_t *ips,
                uint16_t *ports, unsigned n, int timeout_ms)
{
	int rc = hx_flush(s);

	if (rc < 0)
		return rc;
	if (n > HX_BATCH)
		n = HX_BATCH;
	if (s->hx->kind == HX_XDP)
		return hx_xdp_recv(s, frames, lens, ips, ports, n, timeout_ms);
	return sock_recv(s, frames, lens, ips, ports, n, timeout_ms);
}

int hx_recv(struct hx_sock *s, const uint8_t **frames, uint16_t *lens, unsigned n, int timeout_ms)
{
	return hx_recvfrom(s, frames, lens, NULL, NULL, n, timeout_ms);
}

uint16_t hx_local_port(struct hx_sock *s)
{
	struct sockaddr_in me;
	socklen_t len = sizeof(me);

	if (s->hx->kind == HX_XDP)
		return (uint16_t)(s->hx->cfg.udp_port + s->idx);
	if (getsockname(s->fd, (struct sockaddr *)&me, &len) < 0)
		return 0;
	return ntohs(me.sin_port);
}

void hx_wait(struct hx_sock *s, int timeout_ms)
{
	struct pollfd pfd = {.fd = s->fd, .events = POLLIN};

	if (s->hx->kind == HX_XDP) {
		hx_xdp_wait(s, timeout_ms);
		return;
	}
	s->st.wakeups++;
	(void)poll(&pfd, 1, timeout_ms);
}

void hx_stats_get(struct hx_sock *s, struct hx_stats *st)
{
	struct tpacket_stats ps;
	socklen_t len = sizeof(ps);

	if (s->hx->kind == HX_XDP) {
		*st = s->st;
		hx_xdp_stats(s, st);
		return;
	}
	/* The kernel's drops for this socket (a full receive buffer); reading resets them. */
	if (s->hx->cfg.proto == HX_RAW &&
	    getsockopt(s->fd, SOL_PACKET, PACKET_STATISTICS, &ps, &len) == 0)
		s->st.rx_dropped += ps.tp_drops;
	*st = s->st;
}
