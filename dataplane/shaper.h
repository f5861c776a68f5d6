/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Egress shaping with ECN: a port can be given a rate (to emulate a slower link) with a queue in
 * front of it. Packets wait in the queue until the rate lets them go; a packet that finds the
 * queue at or above the ECN threshold is marked (IPv4 ECN = 11, and what a pipeline registers
 * for its own EtherType, e.g. ATP's ECN flag); a packet that finds it full is dropped
 * (`queue-full`). Each worker lcore shapes its own transmissions to rate / workers.
 *
 * The enqueue, run and mark functions run on worker lcores (no allocation, locks or syscalls).
 */
#ifndef ISW_SHAPER_H
#define ISW_SHAPER_H

#include <stdbool.h>
#include <stdint.h>

#define ISW_SHAPE_QMAX 2048 /* packets a queue can hold, per worker and port */

struct rte_mbuf;
struct isw_worker;

/* A port's shaping settings, in struct isw_port_conf (RCU). */
struct isw_shape_cfg {
	bool on;
	uint64_t rate_bps; /* bits per second of Ethernet frames (without FCS) */
	uint32_t queue;    /* packets, 1..ISW_SHAPE_QMAX */
	uint32_t ecn;      /* mark at this depth and above; 0 = never */
};

/* One worker's queue for one port. */
struct isw_shaper {
	uint32_t head;
	uint32_t n;
	uint32_t max_n;  /* deepest seen since start or the last stats reset */
	uint64_t tokens; /* bytes x TSC hz the rate has granted and not used */
	uint64_t last;   /* TSC of the last refill */
	struct rte_mbuf *q[ISW_SHAPE_QMAX];
};

/* Queues m for port (called by isw_tx_buffer() when the port is shaped). */
void isw_shape_enqueue(struct isw_worker *w, uint16_t port, struct rte_mbuf *m);

/* Moves what the rate allows from every shaped queue of w to its transmit buffers; with force,
 * everything (shutdown). Returns the packets still queued. */
uint32_t isw_shape_run(struct isw_worker *w, uint64_t now, bool force);

/* Marks m as having met congestion: IPv4 ECN = 11 (checksum kept valid), plus the marker
 * registered for its EtherType. False when m cannot be written (shared buffer) or has no mark. */
bool isw_ecn_mark(struct rte_mbuf *m);

/* Sets the ECN bits of the IPv4 header at ip to 11, keeping its checksum valid (RFC 1624). */
void isw_ipv4_ce(uint8_t *ip);

/* Registers the marking of a pipeline's own EtherType (e.g. ATP's flag); control thread, at
 * start-up. fn gets the frame's first bytes (at least len 64 of them). */
void isw_ecn_register(uint16_t ethertype, void (*fn)(uint8_t *frame, uint32_t len));

#endif
