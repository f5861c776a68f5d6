/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AF_PACKET sockets for ATP's raw frames (EtherType 0x0700, no IP/UDP stack involved), one per
 * host thread, with a classic BPF filter on the destination MAC so that each thread receives only
 * its own frames (the NIC steering of ATP's common/dma_common.cc). Needs CAP_NET_RAW.
 */
#ifndef ISW_ATP_SOCK_H
#define ISW_ATP_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Opens a socket on ifname receiving only 0x0700 frames to (ps ? 05:04:03:02:01 :
 * 77:77:77:77:77):<wire_thread>. Returns the fd or -errno. */
int atp_sock_open(const char *ifname, bool ps, uint8_t wire_thread);
/* Sends one frame, retrying briefly while the device queue is full. 0 or -errno. */
int atp_sock_send(int fd, const uint8_t *frame, size_t len);
/* Receives up to n frames of at most 512 bytes into bufs[i*512], lens[i]; waits at most
 * timeout_ms for the first. Returns the count, 0 on timeout, or -errno. */
int atp_sock_recv(int fd, uint8_t *bufs, size_t *lens, unsigned n, int timeout_ms);

#define ATP_RX_STRIDE 512u

#endif
