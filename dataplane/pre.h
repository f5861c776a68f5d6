/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet replication engine (PRE): multicast groups of (port, replication id), and the
 * replication of a packet to a group with a per-replica egress rewrite keyed by the replication
 * id. This is how a SwitchML result reaches every worker with its own addresses.
 *
 * Replicas share payload where the port allows it: without a rewrite a replica is an indirect
 * mbuf (a reference); with a rewrite it is a private copy of the first hdr_len bytes chained to
 * a reference to the rest, on ports that send chained mbufs, for frames longer than
 * ISW_PRE_COPY_MAX; otherwise a full copy (for small frames one allocation and a short memcpy
 * are cheaper than sharing). The original packet is the last replica.
 *
 * Groups are edited on the control thread and published by RCU; isw_mcast() runs on workers.
 */
#ifndef ISW_PRE_H
#define ISW_PRE_H

#include <stdbool.h>
#include <stdint.h>

struct isw_worker;
struct rte_mbuf;
struct isw_json;

#define ISW_MC_GROUP_MAX   65535 /* user groups are 1..ISW_MC_GROUP_MAX */
#define ISW_MC_MEMBERS_MAX 256
#define ISW_MC_FLOOD       0 /* group 0: every port, rid = port; built at start-up */
#define ISW_MC_NO_EXCLUDE  (-1)
#define ISW_PRE_COPY_MAX   512    /* rewritten replicas up to this length are full copies */
#define ISW_MC_RESERVED    0xFF00 /* groups from here on belong to pipelines */

struct isw_mc_member {
	uint16_t port;
	uint16_t rid;
};

struct isw_mc_group {
	uint16_t id;
	uint16_t n;
	struct isw_mc_member m[];
};

/* Egress rewrite of one replica, before it is queued; the first hdr_len bytes are private. */
typedef void (*isw_rewrite_fn)(struct rte_mbuf *m, uint16_t rid, uint16_t port, void *arg);

/*
 * Sends a replica of m to every member of group except those on exclude_port (pass
 * ISW_MC_NO_EXCLUDE to keep all), calling rewrite on each if not NULL. Consumes m; an empty or
 * missing group counts a no-group drop.
 */
void isw_mcast(struct isw_worker *w, struct rte_mbuf *m, uint16_t group, int exclude_port,
               isw_rewrite_fn rewrite, void *arg, uint16_t hdr_len);

/* Control thread. All return 0 or -errno. */
int isw_mc_create(uint16_t group);
int isw_mc_destroy(uint16_t group);
int isw_mc_add(uint16_t group, uint16_t port, uint16_t rid);
int isw_mc_del(uint16_t group, uint16_t port, uint16_t rid);
/* Replaces a group's whole member list at once (pipelines use it for sessions). */
int isw_mc_set(uint16_t group, const struct isw_mc_member *m, uint16_t n);
const struct isw_mc_group *isw_mc_get(uint16_t group);
/* Builds the flood group from the port count; called at start-up. */
int isw_mc_init(uint16_t nb_ports);
void isw_mc_fini(void);

/*
 * Per-port capabilities, filled at port set-up: can the port send chained mbufs (multiseg), and
 * mbufs that share their buffer with others (shared)? net_af_xdp cannot do the latter: it
 * transmits mbufs of its umem pool without copying and frees them by buffer address when the
 * kernel completes them, which would free the shared buffer instead of the replica.
 */
void isw_pre_set_port_caps(uint16_t port, bool multiseg, bool shared);

#endif
