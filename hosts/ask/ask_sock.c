/* SPDX-License-Identifier: BSD-3-Clause */
/* Kernel UDP transport of the ASK host tools (ask_sock.h). */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "ask_sock.h"

int ask_udp_open(uint16_t port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd, buf = 8 << 20, err;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* The FORCE forms need CAP_NET_ADMIN; the plain ones are capped by net.core.*mem_max. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Errors of the socket or the call itself, as opposed to the path of one datagram. */
static bool fatal(int e)
{
	return e == EBADF || e == EFAULT || e == EINVAL || e == ENOTSOCK || e == EMSGSIZE ||
	       e == EDESTADDRREQ || e == EAFNOSUPPORT || e == EOPNOTSUPP;
}

int ask_udp_send(int fd, const struct ask_tx *tx, unsigned n, const struct sockaddr_in *to,
                 unsigned to_step)
{
	struct mmsghdr msgs[ASK_BATCH];
	struct iovec iov[ASK_BATCH];
	unsigned i = 0, sent = 0, busy = 0;

	while (i < n) {
		unsigned k = n - i < ASK_BATCH ? n - i : ASK_BATCH;
		for (unsigned j = 0; j < k; j++) {
			iov[j] = (struct iovec){(void *)tx[i + j].buf, tx[i + j].len};
			memset(&msgs[j], 0, sizeof(msgs[j]));
			msgs[j].msg_hdr.msg_name = (void *)&to[(i + j) * to_step];
			msgs[j].msg_hdr.msg_namelen = sizeof(*to);
			msgs[j].msg_hdr.msg_iov = &iov[j];
			msgs[j].msg_hdr.msg_iovlen = 1;
		}
		int r = sendmmsg(fd, msgs, k, 0);
		if (r > 0) {
			i += (unsigned)r;
			sent += (unsigned)r;
			busy = 0;
			continue;
		}
		if (r < 0) {
			int e = errno;
			if (fatal(e))
				return -e;
			if (e == EINTR)
				continue;
			if ((e == ENOBUFS || e == EAGAIN) && busy++ < 100) {
				usleep(100);
				continue;
			}
		}
		i++; /* this datagram's path refused it: lost */
		busy = 0;
	}
	return (int)sent;
}

int ask_udp_recv(int fd, uint8_t *bufs, size_t *lens, struct sockaddr_in *from, unsigned n,
                 int timeout_ms)
{
	struct mmsghdr msgs[ASK_BATCH];
	struct iovec iov[ASK_BATCH];
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int r;

	if (n > ASK_BATCH)
		n = ASK_BATCH;
	for (unsigned i = 0; i < n; i++) {
		iov[i] = (struct iovec){bufs + (size_t)i * ASK_RX_STRIDE, ASK_RX_STRIDE};
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		if (from != NULL) {
			msgs[i].msg_hdr.msg_name = &from[i];
			msgs[i].msg_hdr.msg_namelen = sizeof(*from);
		}
	}
	r = recvmmsg(fd, msgs, n, MSG_DONTWAIT, NULL);
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && timeout_ms > 0) {
		r = poll(&pfd, 1, timeout_ms);
		if (r <= 0)
			return r < 0 && errno != EINTR ? -errno : 0;
		r = recvmmsg(fd, msgs, n, MSG_DONTWAIT, NULL);
	}
	if (r < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
		                       errno == ECONNREFUSED
		               ? 0
		               : -errno;
	for (int i = 0; i < r; i++)
		lens[i] = msgs[i].msg_hdr.msg_flags & MSG_TRUNC ? 0 : msgs[i].msg_len;
	return r;
}

bool ask_addr_eq(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_addr.s_addr == b->sin_addr.s_addr && a->sin_port == b->sin_port;
}

int ask_addr_parse(const char *s, uint16_t def_port, struct sockaddr_in *addr)
{
	char ip[INET_ADDRSTRLEN], *end;
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);
	unsigned long port = def_port;

	if (n >= sizeof(ip))
		return -EINVAL;
	memcpy(ip, s, n);
	ip[n] = '\0';
	if (colon != NULL) {
		errno = 0;
		port = strtoul(colon + 1, &end, 10);
		if (errno != 0 || *end != '\0' || end == colon + 1 || port < 1 || port > 65535)
			return -EINVAL;
	}
	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, ip, &addr->sin_addr) == 1 ? 0 : -EINVAL;
}

uint64_t ask_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int ask_wait_ms(uint64_t wake, uint64_t now, int max_ms)
{
	if (wake <= now)
		return 0;
	uint64_t ms = (wake - now + 999999) / 1000000;
	return ms > (uint64_t)max_ms ? max_ms : (int)ms;
}
