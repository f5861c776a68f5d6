/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AF_PACKET transport of the ATP host tools.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/socket.h>

#include "atp_host.h"
#include "atp_sock.h"

int atp_sock_open(const char *ifname, bool ps, uint8_t wire_thread)
{
	const uint8_t *pfx = ps ? atp_ps_mac_prefix : atp_worker_mac_prefix;
	uint32_t w0 =
	        (uint32_t)pfx[0] << 24 | (uint32_t)pfx[1] << 16 | (uint32_t)pfx[2] << 8 | pfx[3];
	uint32_t w1 = (uint32_t)pfx[4] << 8 | wire_thread;
	struct sock_filter code[] = {
	        BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
	        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ATP_ETHERTYPE, 0, 5),
	        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
	        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, w0, 0, 3),
	        BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 4),
	        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, w1, 0, 1),
	        BPF_STMT(BPF_RET | BPF_K, 0xffff),
	        BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = {.len = sizeof(code) / sizeof(code[0]), .filter = code};
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ATP_ETHERTYPE)};
	int fd, one = 1, buf = 8 << 20, err;
	uint8_t junk[64];

	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (sll.sll_ifindex == 0)
		return -ENODEV;
	/* Bound to 0x0700 (not ETH_P_ALL): the kernel then does not loop our own sends back. */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ATP_ETHERTYPE));
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0)
		goto fail;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf));
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	(void)setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		goto fail;
	/* Drop what arrived between socket() and the filter. */
	while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) >= 0)
		;
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}

int atp_sock_send(int fd, const uint8_t *frame, size_t len)
{
	for (int tries = 0; tries < 1000; tries++) {
		if (send(fd, frame, len, 0) == (ssize_t)len)
			return 0;
		if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			return -errno;
		usleep(50);
	}
	return -ENOBUFS;
}

int atp_sock_recv(int fd, uint8_t *bufs, size_t *lens, unsigned n, int timeout_ms)
{
	struct mmsghdr msgs[64];
	struct iovec iov[64];
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int r;

	if (n > 64)
		n = 64;
	for (unsigned i = 0; i < n; i++) {
		iov[i].iov_base = bufs + (size_t)i * ATP_RX_STRIDE;
		iov[i].iov_len = ATP_RX_STRIDE;
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	r = recvmmsg(fd, msgs, n, MSG_DONTWAIT, NULL);
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		r = poll(&pfd, 1, timeout_ms);
		if (r <= 0)
			return r < 0 && errno != EINTR ? -errno : 0;
		r = recvmmsg(fd, msgs, n, MSG_DONTWAIT, NULL);
	}
	if (r < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	for (int i = 0; i < r; i++)
		lens[i] = msgs[i].msg_len;
	return r;
}
