/*
 * UDP transport of the ASK host tools, on the hosts' transport (hx.h): one socket, batches in
 * and out, from and to any address. AF_XDP where it can be set up, kernel UDP sockets otherwise
 * (sendmmsg/recvmmsg; sends block while the socket buffer is full instead of dropping). Receives
 * wait at most a given time: nothing spins unless --busy-poll.
 */
#ifndef ISW_ASK_SOCK_H
#define ISW_ASK_SOCK_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#include "ask_host.h"
#include "host_clock.h"

#define ASK_BATCH 64u /* datagrams one call moves at most */

struct ask_udp;

/*
 * Opens the transport on UDP port (0: one the kernel chooses), with transport (enum hx_kind)
 * and busy_poll. peer (NULL: none) is the address most datagrams go to: AF_XDP takes its
 * device from the route there. Prints "TOOL: transport: ..." on stderr unless quiet. 0 or
 * -errno, err says.
 */
int ask_udp_open(struct ask_udp **u, uint16_t port, const struct sockaddr_in *peer, int transport,
                 int busy_poll, const char *tool, bool quiet, char *err, size_t errlen);
void ask_udp_close(struct ask_udp *u);
/* "xdp" or "socket": what ask_udp_open() set up. */
const char *ask_udp_kind(const struct ask_udp *u);
/*
 * Sends tx[0..n-1], datagram i to to[i * to_step] (to_step 0: all to to[0]). A datagram the
 * path refuses (unreachable, no buffer after retries) is skipped, as if lost on the wire.
 * Returns the count sent, or -errno on an error of the socket itself.
 */
int ask_udp_send(struct ask_udp *u, const struct ask_tx *tx, unsigned n,
                 const struct sockaddr_in *to, unsigned to_step);
/*
 * Receives up to n (<= ASK_BATCH) datagrams: bufs[i], lens[i] (valid until the next call) and,
 * if from is not NULL, their sources from[i]; waits at most timeout_ms for the first (0: does
 * not wait). Returns the count, or -errno.
 */
int ask_udp_recv(struct ask_udp *u, const uint8_t **bufs, size_t *lens, struct sockaddr_in *from,
                 unsigned n, int timeout_ms);
/* Whether a and b are the same IPv4 address and UDP port. */
bool ask_addr_eq(const struct sockaddr_in *a, const struct sockaddr_in *b);
/* "A.B.C.D" or "A.B.C.D:PORT" (port 1..65535, else def_port) -> addr. 0 or -EINVAL. */
int ask_addr_parse(const char *s, uint16_t def_port, struct sockaddr_in *addr);
/* Milliseconds from now to wake (ns), rounded up so a poll() does not wake early, at most
 * max_ms; 0 if wake has passed. */
int ask_wait_ms(uint64_t wake, uint64_t now, int max_ms);

#endif
