/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kernel UDP transport of the ASK host tools: one IPv4 socket, batches in and out with
 * recvmmsg()/sendmmsg(). Blocking sends (a full socket buffer slows the caller down instead of
 * dropping), receives that wait at most a given time in poll(): nothing spins.
 */
#ifndef ISW_ASK_SOCK_H
#define ISW_ASK_SOCK_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#include "ask_host.h"

#define ASK_RX_STRIDE 2048u /* receive buffer a datagram: anything longer arrives as length 0 */
#define ASK_BATCH     64u   /* datagrams one call moves at most */

/* A UDP socket bound to INADDR_ANY:port (0: any free port), with large buffers. fd or -errno. */
int ask_udp_open(uint16_t port);
/*
 * Sends tx[0..n-1], datagram i to to[i * to_step] (to_step 0: all to to[0]). A datagram the
 * kernel refuses for a reason of the path (unreachable, ICMP error of an earlier one, no
 * buffer after retries) is skipped, as if lost on the wire. Returns the count sent, or -errno
 * on an error of the socket itself.
 */
int ask_udp_send(int fd, const struct ask_tx *tx, unsigned n, const struct sockaddr_in *to,
                 unsigned to_step);
/*
 * Receives up to n (<= ASK_BATCH) datagrams into bufs + i * ASK_RX_STRIDE, their lengths in
 * lens[i] (0 if truncated) and, if from is not NULL, their sources in from[i]; waits at most
 * timeout_ms for the first (0: does not wait). Returns the count, or -errno.
 */
int ask_udp_recv(int fd, uint8_t *bufs, size_t *lens, struct sockaddr_in *from, unsigned n,
                 int timeout_ms);
/* Whether a and b are the same IPv4 address and UDP port. */
bool ask_addr_eq(const struct sockaddr_in *a, const struct sockaddr_in *b);
/* "A.B.C.D" or "A.B.C.D:PORT" (port 1..65535, else def_port) -> addr. 0 or -EINVAL. */
int ask_addr_parse(const char *s, uint16_t def_port, struct sockaddr_in *addr);
/* CLOCK_MONOTONIC in ns. */
uint64_t ask_now_ns(void);
/* Milliseconds from now to wake (ns), rounded up so a poll() does not wake early, at most
 * max_ms; 0 if wake has passed. */
int ask_wait_ms(uint64_t wake, uint64_t now, int max_ms);

#endif
