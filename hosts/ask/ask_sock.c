/* SPDX-License-Identifier: BSD-3-Clause */
/* UDP transport of the ASK host tools, on hx (ask_sock.h). */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "ask_sock.h"
#include "hx.h"

struct ask_udp {
	struct hx *hx;
	struct hx_sock *s;
};

int ask_udp_open(struct ask_udp **u, uint16_t port, const struct sockaddr_in *peer, int transport,
                 int busy_poll, const char *tool, bool quiet, char *err, size_t errlen)
{
	struct hx_cfg c = {.kind = (enum hx_kind)transport,
	                   .proto = HX_UDP,
	                   .any_source = true,
	                   .peer_ip = peer ? peer->sin_addr.s_addr : 0,
	                   .peer_port = peer ? peer->sin_port : 0,
	                   .udp_port = port,
	                   .nsock = 1,
	                   .busy_poll = busy_poll};
	int rc;

	*u = calloc(1, sizeof(**u));
	if (!*u)
		return -ENOMEM;
	rc = hx_open(&(*u)->hx, &c, err, errlen);
	if (rc < 0) {
		free(*u);
		*u = NULL;
		return rc;
	}
	(*u)->s = hx_sock((*u)->hx, 0);
	if (!quiet)
		fprintf(stderr, "%s: transport: %s\n", tool, hx_describe((*u)->hx));
	return 0;
}

const char *ask_udp_kind(const struct ask_udp *u)
{
	return hx_kind(u->hx) == HX_XDP ? "xdp" : "socket";
}

void ask_udp_close(struct ask_udp *u)
{
	if (!u)
		return;
	hx_close(u->hx);
	free(u);
}

int ask_udp_send(struct ask_udp *u, const struct ask_tx *tx, unsigned n,
                 const struct sockaddr_in *to, unsigned to_step)
{
	unsigned sent = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct sockaddr_in *d = &to[i * to_step];
		int rc = hx_sendto(u->s, tx[i].buf, tx[i].len, d->sin_addr.s_addr, d->sin_port);

		if (rc == 0)
			sent++;
		else if (rc != -EHOSTUNREACH) /* unreachable: lost, as on a wire */
			return rc;
	}
	return hx_flush(u->s) < 0 ? -EIO : (int)sent;
}

int ask_udp_recv(struct ask_udp *u, const uint8_t **bufs, size_t *lens, struct sockaddr_in *from,
                 unsigned n, int timeout_ms)
{
	uint16_t l[ASK_BATCH], ports[ASK_BATCH];
	uint32_t ips[ASK_BATCH];
	int r;

	if (n > ASK_BATCH)
		n = ASK_BATCH;
	r = hx_recvfrom(u->s, bufs, l, ips, ports, n, timeout_ms);
	if (r == -EINTR || r == -ECONNREFUSED)
		return 0;
	for (int i = 0; i < r; i++) {
		lens[i] = l[i];
		if (from)
			from[i] = (struct sockaddr_in){.sin_family = AF_INET,
			                               .sin_addr.s_addr = ips[i],
			                               .sin_port = ports[i]};
	}
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

int ask_wait_ms(uint64_t wake, uint64_t now, int max_ms)
{
	if (wake <= now)
		return 0;
	uint64_t ms = (wake - now + 999999) / 1000000;
	return ms > (uint64_t)max_ms ? max_ms : (int)ms;
}
