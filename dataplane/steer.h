/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering: how the NIC should spread a pipeline's packets over rx queues so that each arrives
 * on a queue polled by the lcore that owns its state, and nothing is handed off. A pipeline
 * says which packets belong together and which worker owns them (its steering() callback, from
 * the same map its fast path claims with); this module turns that into per-port rules: rte_flow
 * rules on drivers that take them; otherwise, where the pipeline names its packets' sources,
 * redirection table entries that the port's RSS hash of those sources selects (rss.h);
 * ethtool ntuple commands for AF_XDP ports (whose queues are the kernel NIC's: the operator
 * runs them). `steer show` shows all of it. What the NIC does not steer is still correct: the
 * packet is handed to its owner. Control thread only.
 */
#ifndef ISW_STEER_H
#define ISW_STEER_H

#include <stdbool.h>
#include <stdint.h>

#define ISW_STEER_MAX         256  /* rules all pipelines together may ask for */
#define ISW_STEER_SOURCES_MAX 4096 /* known sources of those rules' packets */

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

/* One sender of a rule's packets: with the rule's destination, a full 4-tuple whose RSS hash
 * can be computed. */
struct isw_steer_source {
	uint32_t ip_src;  /* network order */
	uint16_t udp_src; /* host order */
	uint16_t rule;    /* index in m[] */
};

struct isw_steering {
	struct isw_steer_match m[ISW_STEER_MAX];
	unsigned n;
	struct isw_steer_source src[ISW_STEER_SOURCES_MAX];
	unsigned nsrc;
	bool overflow; /* more than fit: the rest is left to hand-off */
};

/* Adds a rule (a pipeline's steering() callback calls this). Returns its index, or -1 when
 * there is no room (then overflow is set). */
int isw_steering_add(struct isw_steering *s, uint16_t pipeline, uint32_t ip_dst, uint16_t udp_src,
                     uint16_t udp_dst, uint16_t owner, const char *what);

/* Names a sender of rule's packets (IPv4 source in network order, UDP source port in host
 * order), so that RSS can be pointed at the owner where no flow rule steers them. Ignored for
 * rule -1; sets overflow when there is no room. */
void isw_steering_add_source(struct isw_steering *s, int rule, uint32_t ip_src, uint16_t udp_src);

/* The worker that polls rx queue q of port, or -1 when none does. */
int isw_port_queue_worker(uint16_t port, uint16_t q);

/* Recomputes what the enabled pipelines ask for and applies it where it changed. Runs after
 * every successful control command and once at start-up. */
void isw_steer_refresh(void);

/* Removes every rte_flow rule it made (before the ports close). */
void isw_steer_fini(void);

#endif
