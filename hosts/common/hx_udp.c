/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host transport's UDP part (HX_UDP): on kernel sockets, connected UDP sockets; on
 * AF_XDP, the Ethernet/IPv4/UDP headers the kernel would have written, from a template per
 * socket built at open with the route and the peer's MAC the kernel knows (the transport asks
 * the kernel to resolve it), and their checks on receipt.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "hx_internal.h"

#define NEIGH_WAIT_MS 1000 /* how long the peer's MAC is waited for */

int hx_udp_sock_open(struct hx_sock *s)
{
	const struct hx_cfg *c = &s->hx->cfg;
	struct sockaddr_in me = {.sin_family = AF_INET,
	                         .sin_port = htons((uint16_t)(c->udp_port + s->idx))};
	struct sockaddr_in peer = {
	        .sin_family = AF_INET, .sin_addr.s_addr = c->peer_ip, .sin_port = c->peer_port};
	int buf = 8 << 20;

	s->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return -errno;
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) < 0)
		(void)setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (setsockopt(s->fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) < 0)
		(void)setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (bind(s->fd, (struct sockaddr *)&me, sizeof(me)) < 0 ||
	    (!c->any_source && connect(s->fd, (struct sockaddr *)&peer, sizeof(peer)) < 0))
		return -errno;
	return 0;
}

int hx_udp_hold(struct hx_sock *s)
{
	struct hx *hx = s->hx;
	struct sockaddr_in me = {.sin_family = AF_INET,
	                         .sin_port = htons((uint16_t)(hx->cfg.udp_port + s->idx))};
	socklen_t len = sizeof(me);
	int small = 4096;

	s->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return -errno;
	(void)setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (bind(s->fd, (struct sockaddr *)&me, sizeof(me)) < 0 ||
	    getsockname(s->fd, (struct sockaddr *)&me, &len) < 0)
		return -errno;
	if (!hx->cfg.udp_port)
		hx->cfg.udp_port = ntohs(me.sin_port);
	return 0;
}

/* The local address the route to the peer takes, and its device. */
/* The first IPv4 address of hx->dev. */
static int dev_addr(struct hx *hx, char *why, size_t whylen)
{
	struct ifaddrs *ifa, *i;
	int rc = -EADDRNOTAVAIL;

	if (!hx->dev[0]) {
		snprintf(why, whylen, "no peer and no device: AF_XDP needs one of them");
		return -EINVAL;
	}
	if (getifaddrs(&ifa) < 0)
		return -errno;
	for (i = ifa; i && rc < 0; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    strcmp(i->ifa_name, hx->dev) == 0) {
			hx->local_ip = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
			rc = 0;
		}
	freeifaddrs(ifa);
	if (rc < 0)
		snprintf(why, whylen, "%s has no IPv4 address", hx->dev);
	return rc;
}

static int route(struct hx *hx, char *why, size_t whylen)
{
	struct sockaddr_in peer = {.sin_family = AF_INET,
	                           .sin_addr.s_addr = hx->cfg.peer_ip,
	                           .sin_port = hx->cfg.peer_port},
	                   me;
	socklen_t len = sizeof(me);
	struct ifaddrs *ifa, *i;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -ENETUNREACH;

	if (fd < 0 || connect(fd, (struct sockaddr *)&peer, sizeof(peer)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&me, &len) < 0) {
		rc = -errno;
		snprintf(why, whylen, "no route to %s: %s", inet_ntoa(peer.sin_addr),
		         strerror(-rc));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	close(fd);
	hx->local_ip = me.sin_addr.s_addr;
	if (getifaddrs(&ifa) < 0)
		return -errno;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && i->ifa_netmask &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == hx->local_ip &&
		    (!hx->dev[0] || strcmp(hx->dev, i->ifa_name) == 0)) {
			uint32_t mask = ((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr;

			snprintf(hx->dev, sizeof(hx->dev), "%s", i->ifa_name);
			/* the peer on the link: its MAC is the kernel's neighbour entry */
			rc = (hx->cfg.peer_ip & mask) == (hx->local_ip & mask) ? 0 : -EHOSTUNREACH;
			break;
		}
	freeifaddrs(ifa);
	if (rc == -EHOSTUNREACH)
		snprintf(why, whylen, "%s is not on the link of %s (AF_XDP needs its peer there)",
		         inet_ntoa(peer.sin_addr), hx->dev);
	else if (rc < 0)
		snprintf(why, whylen, "the route to %s does not leave through %s",
		         inet_ntoa(peer.sin_addr), hx->dev[0] ? hx->dev : "a local address");
	return rc;
}

/* ip's MAC if the kernel's neighbour table has it complete on our device. */
static bool neigh_lookup(const struct hx *hx, uint32_t ip_be, uint8_t mac[6])
{
	char line[256], ip[64], hw[64], dev[IF_NAMESIZE + 1], want[INET_ADDRSTRLEN];
	FILE *f = fopen("/proc/net/arp", "re");
	unsigned flags, m[6];
	bool found = false;

	if (!f)
		return false;
	inet_ntop(AF_INET, &ip_be, want, sizeof(want));
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%63s %*s %x %63s %*s %16s", ip, &flags, hw, dev) == 4 &&
		        strcmp(ip, want) == 0 && strcmp(dev, hx->dev) == 0 && (flags & 0x2) &&
		        sscanf(hw, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) ==
		                6;
	fclose(f);
	for (unsigned k = 0; found && k < 6; k++)
		mac[k] = (uint8_t)m[k];
	return found;
}

/* Asks the kernel to resolve ip now (ip neigh replace IP dev DEV use). */
static void neigh_use(const struct hx *hx, uint32_t ip_be)
{
	struct {
		struct nlmsghdr nh;
		struct ndmsg nd;
		struct rtattr ra;
		uint32_t ip;
	} req = {
	        .nh = {.nlmsg_len = sizeof(req),
	               .nlmsg_type = RTM_NEWNEIGH,
	               .nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE},
	        .nd = {.ndm_family = AF_INET,
	               .ndm_ifindex = hx->ifindex,
	               .ndm_state = NUD_NONE,
	               .ndm_flags = NTF_USE},
	        .ra = {.rta_len = RTA_LENGTH(sizeof(uint32_t)), .rta_type = NDA_DST},
	        .ip = ip_be,
	};
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return;
	(void)send(fd, &req, sizeof(req), 0);
	close(fd);
}

static int own_mac(const struct hx *hx, uint8_t mac[6])
{
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", hx->dev);
	if (fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		rc = -errno;
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* ip's MAC from the kernel, which is asked to resolve it: waits up to NEIGH_WAIT_MS. */
static int neigh_resolve(const struct hx *hx, uint32_t ip_be, uint8_t mac[6])
{
	const struct timespec ms = {0, 1000000};
	uint64_t end = host_now_ns() + (uint64_t)NEIGH_WAIT_MS * 1000000ull;

	/* by the clock, not by counting sleeps: on a busy machine a 1 ms sleep takes longer */
	for (unsigned i = 0; !neigh_lookup(hx, ip_be, mac); i++) {
		if (host_now_ns() >= end)
			return -EHOSTUNREACH;
		if (i % 200 == 0)
			neigh_use(hx, ip_be);
		nanosleep(&ms, NULL);
	}
	return 0;
}

int hx_udp_resolve(struct hx *hx, char *why, size_t whylen)
{
	int rc = hx->cfg.peer_ip ? route(hx, why, whylen) : dev_addr(hx, why, whylen);

	if (rc < 0)
		return rc;
	hx->ifindex = (int)if_nametoindex(hx->dev);
	if ((rc = own_mac(hx, hx->own_mac)) < 0) {
		snprintf(why, whylen, "MAC of %s: %s", hx->dev, strerror(-rc));
		return rc;
	}
	/* The peer may not answer yet (a switch answers ARP for a session's address once the
	 * session exists, which registration makes after this): the sockets resolve it at their
	 * first send otherwise. */
	hx->peer_mac_ok = hx->cfg.peer_ip && neigh_lookup(hx, hx->cfg.peer_ip, hx->peer_mac);
	/* Not asked for now: an ARP request the peer cannot answer yet leaves the kernel's entry
	 * waiting a whole retransmission time (1 s) before it asks again, which the first send
	 * would wait out (and a SyncAgtr start barrier's other workers time out meanwhile). */
	return 0;
}

static struct hx_neigh *neigh_slot(struct hx_sock *s, uint32_t ip_be)
{
	return &s->neigh[(ip_be * 2654435761u) >> 26 & (HX_NEIGH - 1)];
}

int hx_udp_mac(struct hx_sock *s, uint32_t ip_be, uint8_t mac[6])
{
	struct hx_neigh *n = neigh_slot(s, ip_be);

	uint64_t now;

	if (ip_be == s->hx->cfg.peer_ip && s->hx->peer_mac_ok) {
		memcpy(mac, s->hx->peer_mac, 6);
		return 0;
	}
	if (n->ip != ip_be || n->bad) {
		now = host_now_ns();
		if (n->ip == ip_be && now < n->retry_ns)
			return -EHOSTUNREACH; /* failed a moment ago: do not wait again yet */
		n->ip = ip_be;
		n->bad = neigh_resolve(s->hx, ip_be, n->mac) < 0;
		n->retry_ns = host_now_ns() + (uint64_t)NEIGH_WAIT_MS * 2000000ull;
		if (n->bad)
			return -EHOSTUNREACH;
	}
	memcpy(mac, n->mac, 6);
	return 0;
}

/* RFC 1071 over an IPv4 header of 20 bytes whose checksum field is 0. */
static uint16_t ip_csum(const uint8_t *h)
{
	uint32_t sum = 0;

	for (unsigned i = 0; i < 20; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

size_t hx_udp_build(struct hx_sock *s, uint8_t *f, const void *payload, size_t len, uint32_t ip,
                    uint16_t dport, const uint8_t *mac)
{
	const struct hx *hx = s->hx;
	uint16_t ipl = (uint16_t)(len + 28), udpl = (uint16_t)(len + 8), port;
	uint16_t ck;

	memcpy(f, mac, 6);
	memcpy(f + 6, hx->own_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	f += 14;
	memset(f, 0, 28);
	f[0] = 0x45;
	f[2] = (uint8_t)(ipl >> 8);
	f[3] = (uint8_t)ipl;
	f[4] = (uint8_t)(s->ip_id >> 8);
	f[5] = (uint8_t)s->ip_id++;
	f[6] = 0x40; /* DF */
	f[8] = 64;
	f[9] = IPPROTO_UDP;
	memcpy(f + 12, &hx->local_ip, 4);
	memcpy(f + 16, &ip, 4);
	ck = ip_csum(f);
	f[10] = (uint8_t)(ck >> 8);
	f[11] = (uint8_t)ck;
	port = (uint16_t)(hx->cfg.udp_port + s->idx);
	f[20] = (uint8_t)(port >> 8);
	f[21] = (uint8_t)port;
	memcpy(f + 22, &dport, 2);
	f[24] = (uint8_t)(udpl >> 8);
	f[25] = (uint8_t)udpl;
	/* UDP checksum 0: none, which IPv4 allows */
	memcpy(f + 28, payload, len);
	return len + 42;
}

int hx_udp_parse(struct hx_sock *s, const uint8_t *f, size_t len, const uint8_t **payload,
                 uint32_t *src, uint16_t *sport)
{
	const struct hx *hx = s->hx;
	const uint8_t *ip = f + 14, *udp;
	size_t ihl, ipl, udpl;

	if (len < 42 || f[12] != 0x08 || f[13] != 0x00 || (ip[0] >> 4) != 4)
		return -1;
	ihl = (size_t)(ip[0] & 0xf) * 4;
	ipl = (size_t)ip[2] << 8 | ip[3];
	if (ihl < 20 || ipl < ihl + 8 || 14 + ipl > len || ip[9] != IPPROTO_UDP ||
	    (!hx->cfg.any_source && memcmp(ip + 12, &hx->cfg.peer_ip, 4) != 0))
		return -1;
	udp = ip + ihl;
	udpl = (size_t)udp[4] << 8 | udp[5];
	if ((!hx->cfg.any_source && memcmp(udp, &hx->cfg.peer_port, 2) != 0) || udpl < 8 ||
	    udpl > ipl - ihl)
		return -1;
	memcpy(src, ip + 12, 4);
	memcpy(sport, udp, 2);
	*payload = udp + 8;
	return (int)(udpl - 8);
}
