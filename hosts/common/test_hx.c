/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host transport on a veth pair (test_hx.sh makes it, each end in a namespace of its own):
 * each test runs against both kinds on side A, with kernel sockets on side B as the far end.
 *   test_hx DEV_A DEV_B NETNS_OF_B   (run in A's namespace)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sched.h>

#include "hx.h"

#define ETYPE 0x0700

static const char *dev_a, *dev_b;
static int ns_a = -1, ns_b = -1;      /* network namespaces of A (ours) and B */
static struct hx *opened[4];          /* closed after each test, failed or not */
static int fds[4] = {-1, -1, -1, -1}; /* ... and these sockets */
static const uint8_t pfx[6] = {0x77, 0x77, 0x77, 0x77, 0x77, 0x05};

static struct hx *track(struct hx *hx)
{
	for (unsigned i = 0; i < 4; i++)
		if (!opened[i]) {
			opened[i] = hx;
			break;
		}
	return hx;
}

static int close_all(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		hx_close(opened[i]);
		opened[i] = NULL;
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
	return 0;
}

/* Makes what follows (opening sockets) happen in B's namespace, or back in A's. */
static void in_b(bool b)
{
	assert_int_equal(setns(b ? ns_b : ns_a, CLONE_NEWNET), 0);
}

static struct hx *open_kind(const char *dev, enum hx_kind kind, unsigned nsock, uint8_t mac_len,
                            unsigned ring)
{
	struct hx_cfg c = {.dev = dev,
	                   .kind = kind,
	                   .ethertype = ETYPE,
	                   .mac_len = mac_len,
	                   .nsock = nsock,
	                   .ring = ring};
	char why[256] = "";
	struct hx *hx;
	int rc;

	memcpy(c.mac, pfx, 6);
	in_b(dev == dev_b);
	rc = hx_open(&hx, &c, why, sizeof(why));
	in_b(false);
	if (rc < 0)
		fail_msg("hx_open(%s, kind %d): %s: %s", dev, kind, strerror(-rc), why);
	assert_int_equal(hx_kind(track(hx)), kind);
	return hx;
}

/* A frame to ...:last of EtherType et carrying seq, len bytes long. */
static void frame(uint8_t *f, size_t len, uint8_t last, uint16_t et, uint32_t seq)
{
	memset(f, 0, len);
	memcpy(f, pfx, 5);
	f[5] = last;
	f[6] = 0x02;
	f[12] = (uint8_t)(et >> 8);
	f[13] = (uint8_t)et;
	memcpy(f + 14, &seq, sizeof(seq));
	for (size_t i = 18; i < len; i++)
		f[i] = (uint8_t)(seq + i);
}

static void check_frame(const uint8_t *f, size_t len, uint8_t last, uint32_t seq)
{
	uint32_t got;

	assert_int_equal(f[5], last);
	memcpy(&got, f + 14, sizeof(got));
	assert_int_equal(got, seq);
	for (size_t i = 18; i < len; i++)
		assert_int_equal(f[i], (uint8_t)(seq + i));
}

/* Receives until want frames came or 300 ms passed without one; returns the count, checking
 * each is to last with seq first, first + 1, ... */
static unsigned drain(struct hx_sock *s, unsigned want, uint8_t last, uint32_t first, size_t len)
{
	const uint8_t *fr[HX_BATCH];
	uint16_t lens[HX_BATCH];
	unsigned got = 0;
	int r;

	while (got < want && (r = hx_recv(s, fr, lens, HX_BATCH, 300)) > 0)
		for (int i = 0; i < r; i++) {
			assert_int_equal(lens[i], len);
			check_frame(fr[i], len, last, first + got++);
		}
	return got;
}

static void send_n(struct hx_sock *s, unsigned n, uint8_t last, uint16_t et, uint32_t first,
                   size_t len)
{
	uint8_t f[HX_FRAME_MAX];

	for (unsigned i = 0; i < n; i++) {
		frame(f, len, last, et, first + i);
		assert_int_equal(hx_send(s, f, len), 0);
	}
	assert_int_equal(hx_flush(s), 0);
}

/* Sockets get only their frames, in order; other MACs and EtherTypes are not theirs. */
static void demux(enum hx_kind kind)
{
	struct hx *a = open_kind(dev_a, kind, 2, 5, 0), *b = open_kind(dev_b, HX_SOCKET, 1, 0, 0);
	struct hx_sock *bs = hx_sock(b, 0);

	for (uint32_t k = 0; k < 50; k++) {
		send_n(bs, 1, 0x05, ETYPE, 1000 + k, 100);
		send_n(bs, 1, 0x06, ETYPE, 2000 + k, 100);
		send_n(bs, 1, 0x07, ETYPE, 3000 + k, 100);  /* no socket for it */
		send_n(bs, 1, 0x05, 0x0800, 4000 + k, 100); /* another protocol */
	}
	assert_int_equal(drain(hx_sock(a, 0), 50, 0x05, 1000, 100), 50);
	assert_int_equal(drain(hx_sock(a, 1), 50, 0x06, 2000, 100), 50);
	/* nothing else came */
	assert_int_equal(drain(hx_sock(a, 0), 1, 0x05, 0, 100), 0);
	assert_int_equal(drain(hx_sock(a, 1), 1, 0x06, 0, 100), 0);
}

static void demux_socket(void **state)
{
	(void)state;
	demux(HX_SOCKET);
}

static void demux_xdp(void **state)
{
	(void)state;
	demux(HX_XDP);
}

/* Batches of 1, 63, 64, 65 and 1000 frames, both ways, each frame intact and in order. */
static void batches(enum hx_kind kind)
{
	static const unsigned sizes[] = {1, 63, 64, 65, 1000};
	struct hx *a = open_kind(dev_a, kind, 1, 5, 0), *b = open_kind(dev_b, HX_SOCKET, 1, 0, 0);
	uint32_t seq = 0;
	struct hx_stats st;

	for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		send_n(hx_sock(a, 0), sizes[k], 0x05, ETYPE, seq, 60 + k * 300);
		assert_int_equal(drain(hx_sock(b, 0), sizes[k], 0x05, seq, 60 + k * 300), sizes[k]);
		send_n(hx_sock(b, 0), sizes[k], 0x05, ETYPE, seq, 1514 - k);
		assert_int_equal(drain(hx_sock(a, 0), sizes[k], 0x05, seq, 1514 - k), sizes[k]);
		seq += sizes[k];
	}
	hx_stats_get(hx_sock(a, 0), &st);
	assert_int_equal(st.tx, seq);
	assert_int_equal(st.rx, seq);
	assert_int_equal(st.tx_full, 0);
}

static void batches_socket(void **state)
{
	(void)state;
	batches(HX_SOCKET);
}

static void batches_xdp(void **state)
{
	(void)state;
	batches(HX_XDP);
}

/*
 * A receiver that does not read: its ring (256 entries; sockets: its buffer) fills, the kernel
 * drops and counts the rest; every frame is either received or counted dropped, and the socket
 * works on.
 */
static void full_ring(enum hx_kind kind)
{
	struct hx *a = open_kind(dev_a, kind, 1, 5, 256), *b = open_kind(dev_b, HX_SOCKET, 1, 0, 0);
	const unsigned n = kind == HX_XDP ? 4000 : 30000; /* sockets: 8 MiB of buffer */
	struct hx_stats st;
	unsigned got;

	send_n(hx_sock(b, 0), n, 0x05, ETYPE, 0, 1000);
	usleep(100000);
	got = 0;
	{
		const uint8_t *fr[HX_BATCH];
		uint16_t lens[HX_BATCH];
		int r;

		while ((r = hx_recv(hx_sock(a, 0), fr, lens, HX_BATCH, 200)) > 0)
			got += (unsigned)r;
	}
	hx_stats_get(hx_sock(a, 0), &st);
	print_message("kind %d: %u of %u received, %llu dropped\n", kind, got, n,
	              (unsigned long long)st.rx_dropped);
	assert_true(got < n);
	assert_int_equal(got + st.rx_dropped, n);
	/* and it works on */
	send_n(hx_sock(b, 0), 10, 0x05, ETYPE, 777, 200);
	assert_int_equal(drain(hx_sock(a, 0), 10, 0x05, 777, 200), 10);
}

static void full_ring_socket(void **state)
{
	(void)state;
	full_ring(HX_SOCKET);
}

static void full_ring_xdp(void **state)
{
	(void)state;
	full_ring(HX_XDP);
}

/* A sender much faster than its ring: everything is sent or counted, the frames come back. */
static void tx_ring_wrap(void **state)
{
	struct hx *a = open_kind(dev_a, HX_XDP, 1, 5, 64),
	          *b = open_kind(dev_b, HX_SOCKET, 1, 0, 0);
	struct hx_stats st;
	unsigned got;

	(void)state;
	for (unsigned round = 0; round < 20; round++) {
		send_n(hx_sock(a, 0), 100, 0x05, ETYPE, round * 100, 300);
		got = drain(hx_sock(b, 0), 100, 0x05, round * 100, 300);
		hx_stats_get(hx_sock(a, 0), &st);
		assert_int_equal(got + st.tx_full, 100);
		st.tx_full = 0;
	}
	hx_stats_get(hx_sock(a, 0), &st);
	assert_int_equal(st.tx + st.tx_full, 2000);
}

static void too_large(void **state)
{
	static const enum hx_kind kinds[] = {HX_SOCKET, HX_XDP};
	uint8_t f[HX_FRAME_MAX + 1];

	(void)state;
	for (unsigned k = 0; k < 2; k++) {
		struct hx *a = open_kind(dev_a, kinds[k], 1, 5, 0);
		struct hx *b = open_kind(dev_b, HX_SOCKET, 1, 0, 0);

		frame(f, sizeof(f), 0x05, ETYPE, 1);
		assert_int_equal(hx_send(hx_sock(a, 0), f, HX_FRAME_MAX + 1), -EMSGSIZE);
		assert_int_equal(hx_send(hx_sock(a, 0), f, 13), -EMSGSIZE);
		send_n(hx_sock(a, 0), 1, 0x05, ETYPE, 9, HX_FRAME_MAX);
		assert_int_equal(drain(hx_sock(b, 0), 1, 0x05, 9, HX_FRAME_MAX), 1);
	}
}

/* Frames the rule does not match reach the kernel while AF_XDP sockets are open. */
static void passes_to_kernel(void **state)
{
	struct hx *b = open_kind(dev_b, HX_SOCKET, 1, 0, 0);
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(0x0800)};
	int fd = socket(AF_PACKET, SOCK_RAW, htons(0x0800)), seen = 0;
	uint8_t buf[2048];

	(void)state;
	open_kind(dev_a, HX_XDP, 1, 5, 0);
	assert_true(fd >= 0);
	sll.sll_ifindex = (int)if_nametoindex(dev_a);
	assert_int_equal(bind(fd, (struct sockaddr *)&sll, sizeof(sll)), 0);
	send_n(hx_sock(b, 0), 20, 0x05, 0x0800, 0, 100);
	usleep(100000);
	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		seen++;
	assert_int_equal(seen, 20);
	close(fd);
}

static void bad_config(void **state)
{
	struct hx_cfg c = {.dev = "lo", .ethertype = ETYPE, .nsock = 1, .ring = 100};
	char why[256];
	struct hx *hx;
	enum hx_kind k;

	(void)state;
	assert_int_equal(hx_open(&hx, &c, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "power of two"));
	c.ring = 0;
	c.nsock = 0;
	assert_int_equal(hx_open(&hx, &c, why, sizeof(why)), -EINVAL);
	c.nsock = 2;
	c.mac_len = 5;
	c.mac[5] = 255;
	assert_int_equal(hx_open(&hx, &c, why, sizeof(why)), -EINVAL);
	c = (struct hx_cfg){.dev = "no-such-dev0", .kind = HX_XDP, .ethertype = ETYPE, .nsock = 1};
	assert_int_equal(hx_open(&hx, &c, why, sizeof(why)), -ENODEV);
	assert_non_null(strstr(why, "no-such-dev0"));
	assert_int_equal(hx_kind_parse("xdp", &k), 0);
	assert_int_equal(k, HX_XDP);
	assert_int_equal(hx_kind_parse("XDP", &k), -EINVAL);
}

/* Auto: AF_XDP where it can be had, and one line says so. */
static void auto_kind(void **state)
{
	struct hx_cfg c = {.dev = dev_a, .kind = HX_AUTO, .ethertype = ETYPE, .nsock = 1};
	struct hx *hx, *second;
	char why[256];

	(void)state;
	assert_int_equal(hx_open(&hx, &c, why, sizeof(why)), 0);
	assert_int_equal(hx_kind(track(hx)), HX_XDP);
	assert_non_null(strstr(hx_describe(hx), "xdp (AF_XDP"));
	/* A second transport on the same device cannot have its XDP hook: sockets, and why. */
	assert_int_equal(hx_open(&second, &c, why, sizeof(why)), 0);
	assert_int_equal(hx_kind(track(second)), HX_SOCKET);
	print_message("%s\n", hx_describe(second));
	assert_non_null(strstr(hx_describe(second), "AF_XDP unavailable"));
	c.kind = HX_XDP;
	assert_true(hx_open(&second, &c, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "XDP program"));
}

/*
 * A peer on this host (the route goes through lo): AF_XDP cannot reach it, so auto takes the
 * sockets and says why, and xdp refuses with the reason; the sockets work.
 */
static void udp_loopback(void **state)
{
	struct hx_cfg c = {.kind = HX_AUTO,
	                   .proto = HX_UDP,
	                   .peer_port = htons(5000),
	                   .udp_port = 6200,
	                   .nsock = 1};
	struct sockaddr_in me = {.sin_family = AF_INET, .sin_port = htons(5000)};
	uint8_t p[100] = {42}, buf[200];
	char why[256] = "";
	struct hx *hx;
	int peer = socket(AF_INET, SOCK_DGRAM, 0);
	struct timeval tv = {1, 0};

	(void)state;
	assert_true(peer >= 0);
	fds[3] = peer;
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(peer, (struct sockaddr *)&me, sizeof(me)), 0);
	setsockopt(peer, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	c.peer_ip = htonl(INADDR_LOOPBACK);
	assert_int_equal(hx_open(&hx, &c, why, sizeof(why)), 0);
	assert_int_equal(hx_kind(track(hx)), HX_SOCKET);
	print_message("%s\n", hx_describe(hx));
	assert_non_null(strstr(hx_describe(hx), "loopback"));
	assert_int_equal(hx_send(hx_sock(hx, 0), p, sizeof(p)), 0);
	assert_int_equal(hx_flush(hx_sock(hx, 0)), 0);
	assert_int_equal(recv(peer, buf, sizeof(buf), 0), sizeof(p));
	assert_int_equal(buf[0], 42);
	c.kind = HX_XDP;
	c.udp_port = 6201;
	assert_true(hx_open(&hx, &c, why, sizeof(why)) < 0);
	print_message("%s\n", why);
	assert_non_null(strstr(why, "loopback"));
}

/* A kernel UDP socket on B's address, port. */
static int udp_peer(uint16_t port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct timeval tv = {0, 300000};

	int fd;

	in_b(true);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	in_b(false);
	inet_pton(AF_INET, "10.77.0.2", &a.sin_addr);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &(int){4 << 20}, sizeof(int));
	for (unsigned i = 0; i < 4; i++)
		if (fds[i] < 0) {
			fds[i] = fd;
			break;
		}
	return fd;
}

/*
 * UDP payloads to and from a kernel socket of the peer: each socket sends from its own port,
 * receives what is sent to it, and nothing from another source.
 */
static void udp(enum hx_kind kind)
{
	struct hx_cfg c = {.kind = kind,
	                   .proto = HX_UDP,
	                   .peer_port = htons(5000),
	                   .udp_port = 6000,
	                   .nsock = 2};
	int peer = udp_peer(5000), other = udp_peer(5001);
	const uint8_t *fr[HX_BATCH];
	uint16_t lens[HX_BATCH];
	struct sockaddr_in from, to = {.sin_family = AF_INET};
	socklen_t fl = sizeof(from);
	uint8_t buf[2048], p[HX_UDP_MAX];
	char why[256] = "";
	struct hx *a;
	int rc;

	inet_pton(AF_INET, "10.77.0.2", &c.peer_ip);
	rc = hx_open(&a, &c, why, sizeof(why));
	if (rc < 0)
		fail_msg("hx_open(UDP, kind %d): %s", kind, why);
	track(a);
	assert_int_equal(hx_kind(a), kind);
	for (unsigned i = 0; i < 2; i++)
		for (unsigned k = 0; k < 100; k++) {
			memset(p, (int)(i * 100 + k), sizeof(p));
			assert_int_equal(hx_send(hx_sock(a, i), p, 1 + k * 14), 0);
		}
	assert_int_equal(hx_send(hx_sock(a, 0), p, HX_UDP_MAX + 1), -EMSGSIZE);
	assert_int_equal(hx_flush(hx_sock(a, 0)), 0);
	assert_int_equal(hx_flush(hx_sock(a, 1)), 0);
	for (unsigned j = 0, next[2] = {0, 0}; j < 200; j++) {
		ssize_t n = recvfrom(peer, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		unsigned i = ntohs(from.sin_port) - 6000u, k;

		if (!(n > 0 && i < 2))
			print_message("j %u n %zd port %u errno %d\n", j, n, ntohs(from.sin_port),
			              errno);
		assert_true(n > 0 && i < 2);
		k = next[i]++; /* each socket's payloads in order */
		assert_int_equal(n, 1 + k * 14);
		assert_int_equal(buf[n - 1], (uint8_t)(i * 100 + k));
	}
	/* back: to each socket's port, from the peer and from another port */
	inet_pton(AF_INET, "10.77.0.1", &to.sin_addr);
	for (unsigned i = 0; i < 2; i++) {
		to.sin_port = htons((uint16_t)(6000 + i));
		memset(p, (int)(7 + i), 300);
		assert_int_equal(sendto(other, p, 300, 0, (struct sockaddr *)&to, sizeof(to)), 300);
		assert_int_equal(sendto(peer, p, 300, 0, (struct sockaddr *)&to, sizeof(to)), 300);
	}
	for (unsigned i = 0; i < 2; i++) {
		unsigned got = 0;

		while ((rc = hx_recv(hx_sock(a, i), fr, lens, HX_BATCH, 300)) > 0)
			for (int k = 0; k < rc; k++, got++) {
				assert_int_equal(lens[k], 300);
				assert_int_equal(fr[k][299], 7 + i);
			}
		assert_int_equal(got, 1);
	}
}

static void udp_socket(void **state)
{
	(void)state;
	udp(HX_SOCKET);
}

static void udp_xdp(void **state)
{
	(void)state;
	udp(HX_XDP);
}

/*
 * A peer with no route: a clear error. A peer on the link that does not answer
 * ARP: AF_XDP opens (a switch answers for a session's address only once the session exists),
 * and sends to it fail, counted, after one wait of at most 1 s, then at once until it is tried
 * again.
 */
static void udp_no_neighbour(void **state)
{
	struct hx_cfg c = {.kind = HX_AUTO,
	                   .proto = HX_UDP,
	                   .peer_port = htons(5000),
	                   .udp_port = 6100,
	                   .nsock = 1};
	struct timespec t0, t1;
	struct hx_stats st;
	char why[256] = "";
	uint8_t p[64] = {0};
	struct hx *a;

	(void)state;
	inet_pton(AF_INET, "10.78.0.1", &c.peer_ip); /* no route: neither kind can have it */
	assert_int_equal(hx_open(&a, &c, why, sizeof(why)), -ENETUNREACH);
	assert_non_null(strstr(why, "unreachable"));
	c.kind = HX_XDP;
	inet_pton(AF_INET, "10.77.0.99", &c.peer_ip); /* on the link, nobody */
	if (hx_open(&a, &c, why, sizeof(why)) < 0)
		fail_msg("hx_open: %s", why);
	track(a);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(hx_send(hx_sock(a, 0), p, sizeof(p)), -EHOSTUNREACH);
	assert_int_equal(hx_send(hx_sock(a, 0), p, sizeof(p)), -EHOSTUNREACH);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* one wait of 1 s, not two */
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < 1900);
	hx_stats_get(hx_sock(a, 0), &st);
	assert_int_equal(st.tx_full, 2);
	assert_int_equal(st.tx, 0);
}

/*
 * Both ends on AF_XDP (a receiver with an XDP program, as inswitch's ports are) and a sender
 * much faster than the receiver: no frame arrives twice.
 */
/*
 * From any source: two peers send to a port the kernel chose; each payload comes with its
 * source, and the answers sent there reach each peer.
 */
static void udp_any(enum hx_kind kind)
{
	struct hx_cfg c = {
	        .dev = dev_a, .kind = kind, .proto = HX_UDP, .any_source = true, .nsock = 1};
	int peer[2] = {udp_peer(5000), udp_peer(5001)};
	struct sockaddr_in to = {.sin_family = AF_INET};
	const uint8_t *fr[HX_BATCH];
	uint16_t lens[HX_BATCH], ports[HX_BATCH];
	uint32_t ips[HX_BATCH], b_ip;
	uint8_t p[100], buf[256];
	unsigned got = 0;
	char why[256] = "";
	struct hx *a;
	int rc;

	rc = hx_open(&a, &c, why, sizeof(why));
	if (rc < 0)
		fail_msg("hx_open(UDP any, kind %d): %s", kind, why);
	track(a);
	assert_int_equal(hx_kind(a), kind);
	to.sin_port = htons(hx_local_port(hx_sock(a, 0)));
	assert_true(to.sin_port != 0);
	inet_pton(AF_INET, "10.77.0.1", &to.sin_addr);
	inet_pton(AF_INET, "10.77.0.2", &b_ip);
	assert_int_equal(hx_send(hx_sock(a, 0), p, 10), -EDESTADDRREQ); /* no peer */
	for (unsigned i = 0; i < 2; i++) {
		memset(p, 'a' + (int)i, sizeof(p));
		assert_int_equal(sendto(peer[i], p, 50, 0, (struct sockaddr *)&to, sizeof(to)), 50);
	}
	while (got < 2 &&
	       (rc = hx_recvfrom(hx_sock(a, 0), fr, lens, ips, ports, HX_BATCH, 300)) > 0)
		for (int k = 0; k < rc; k++, got++) {
			unsigned i = ntohs(ports[k]) - 5000u;

			assert_true(i < 2);
			assert_int_equal(ips[k], b_ip);
			assert_int_equal(lens[k], 50);
			assert_int_equal(fr[k][0], 'a' + i);
			memset(p, 'A' + (int)i, sizeof(p));
			assert_int_equal(hx_sendto(hx_sock(a, 0), p, 20 + i, ips[k], ports[k]), 0);
		}
	assert_int_equal(got, 2);
	assert_int_equal(hx_flush(hx_sock(a, 0)), 0);
	for (unsigned i = 0; i < 2; i++) {
		ssize_t n = recv(peer[i], buf, sizeof(buf), 0);

		assert_int_equal(n, 20 + i);
		assert_int_equal(buf[0], 'A' + i);
	}
}

static void udp_any_socket(void **state)
{
	(void)state;
	udp_any(HX_SOCKET);
}

static void udp_any_xdp(void **state)
{
	(void)state;
	udp_any(HX_XDP);
}

enum { DUP_N = 50000 };

/* Receives what s has (waiting at most timeout_ms), marking each seq seen; returns the count
 * and adds the seqs seen before to *dups. */
static unsigned take_seen(struct hx_sock *s, uint8_t *seen, unsigned *dups, int timeout_ms)
{
	const uint8_t *fr[HX_BATCH];
	uint16_t lens[HX_BATCH];
	unsigned got = 0;
	int r;

	while ((r = hx_recv(s, fr, lens, HX_BATCH, timeout_ms)) > 0)
		for (int i = 0; i < r; i++, got++) {
			uint32_t seq;

			memcpy(&seq, fr[i] + 14, 4);
			assert_true(seq < DUP_N);
			*dups += seen[seq]++ > 0;
		}
	return got;
}

static void no_duplicates(void **state)
{
	struct hx *a = open_kind(dev_a, HX_XDP, 1, 5, 0), *b = open_kind(dev_b, HX_XDP, 1, 5, 256);
	static uint8_t seen[DUP_N];
	unsigned got = 0, dups = 0;
	uint8_t f[200];

	(void)state;
	memset(seen, 0, sizeof(seen));
	for (uint32_t k = 0; k < DUP_N; k++) {
		frame(f, sizeof(f), 0x05, ETYPE, k);
		assert_int_equal(hx_send(hx_sock(a, 0), f, sizeof(f)), 0);
		if (k % 512 == 511)
			got += take_seen(hx_sock(b, 0), seen, &dups, 0);
	}
	hx_flush(hx_sock(a, 0));
	got += take_seen(hx_sock(b, 0), seen, &dups, 200);
	print_message("%u of %u received, %u twice\n", got, DUP_N, dups);
	assert_int_equal(dups, 0);
}

#define T(f) cmocka_unit_test_teardown(f, close_all)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        T(bad_config),  T(demux_socket),     T(demux_xdp),     T(batches_socket),
	        T(batches_xdp), T(full_ring_socket), T(full_ring_xdp), T(tx_ring_wrap),
	        T(too_large),   T(passes_to_kernel), T(auto_kind),     T(udp_socket),
	        T(udp_xdp),     T(udp_no_neighbour), T(no_duplicates), T(udp_any_socket),
	        T(udp_any_xdp), T(udp_loopback),
	};

	if (argc != 4) {
		fprintf(stderr, "usage: test_hx DEV_A DEV_B NETNS_OF_B (see test_hx.sh)\n");
		return 2;
	}
	dev_a = argv[1];
	dev_b = argv[2];
	ns_a = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ns_b = open(argv[3], O_RDONLY | O_CLOEXEC);
	if (ns_a < 0 || ns_b < 0) {
		perror("test_hx: network namespaces");
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
