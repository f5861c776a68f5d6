/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering: how the NIC should spread a pipeline's packets over rx queues so that each arrives
 * on a queue polled by the lcore that owns its state, and nothing is handed off. A pipeline
 * says which packets belong together and which worker owns them (its steering() callback, from
 * the same map its fast path claims with); this module turns that into per-port rules: rte_flow
 * rules on drivers that take them, ethtool ntuple commands for AF_XDP ports (whose queues are
 * the kernel NIC's: the operator runs them), and shows them (`steer show`). What the NIC does
 * not steer is still correct: the packet is handed to its owner. Control thread only.
 */
#ifndef ISW_STEER_H
#define ISW_STEER_H

#include <stdbool.h>
#include <stdint.h>

#define ISW_STEER_MAX 256 /* rules all pipelines together may ask for */

/* Packets of one owner: IPv4 UDP to ip_dst (network order) with these ports (host order); 0 is
 * any. */
struct isw_steer_match {
	uint32_t ip_dst;
	uint16_t udp_src;
	uint16_t udp_dst;
	uint16_t owner;    /* worker index */
	uint16_t pipeline; /* pipeline id */
	char what[40];     /* what the packets are, e.g. "session 1 thread 2" */
};

struct isw_steering {
	struct isw_steer_match m[ISW_STEER_MAX];
	unsigned n;
	bool overflow; /* more than fit: the rest is left to hand-off */
};

/* Adds a rule (a pipeline's steering() callback calls this). */
void isw_steering_add(struct isw_steering *s, uint16_t pipeline, uint32_t ip_dst, uint16_t udp_src,
                      uint16_t udp_dst, uint16_t owner, const char *what);

/* The worker that polls rx queue q of port, or -1 when none does. */
int isw_port_queue_worker(uint16_t port, uint16_t q);

/* Recomputes what the enabled pipelines ask for and applies it where it changed. Runs after
 * every successful control command and once at start-up. */
void isw_steer_refresh(void);

/* Removes every rte_flow rule it made (before the ports close). */
void isw_steer_fini(void);

#endif
