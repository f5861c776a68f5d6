/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SyncAgtr: SwitchML-compatible synchronous aggregation (docs/syncagtr.md), internal interface
 * between the data path (syncagtr_dp.c, worker lcores) and the control side (syncagtr_ctl.c,
 * control thread).
 *
 * The control side owns the configuration: the switch MAC, the sessions (switch IP, worker
 * count, slot region, workers) and the admission table derived from them. It publishes an
 * immutable snapshot (struct sa_conf) by RCU; the data path only reads snapshots and touches
 * state through the SALUs of the register arrays below.
 */
#ifndef ISW_SYNCAGTR_H
#define ISW_SYNCAGTR_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "asic.h"
#include "pre.h"
#include "syncagtr_proto.h"

struct isw_worker;
struct rte_mbuf;

#define SA_SLOTS_DEFAULT 1024
#define SA_TABLE_SIZE    4096            /* admission hash table: at most half full */
#define SA_PORT_AUTO     0xFFFFu         /* worker port learned from its packets */
#define SA_MC_BASE       ISW_MC_RESERVED /* PRE group of session s: SA_MC_BASE + s */
/* A member whose last registration is at most this old counts as live (session show's "live"):
 * workers waiting at the rendezvous register again every few tens of milliseconds. */
#define SA_LIVE_MS 1000u
/* The longest live window session show takes (live-ms): a worker counts the registrations
 * since its own, which a loaded host may have made seconds before it looks. */
#define SA_LIVE_MS_MAX 60000u

/* Register arrays, in declaration order (regs[] of the pipeline). */
enum sa_reg {
	SA_REG_BITMAP, /* pair per slot: lo = set 0, hi = set 1 worker bitmaps */
	/* per (session, rank): ingress port + 1 of its latest packet. The one array more than one
	 * lcore may write (packets of one worker can land in several slot shards); the writes are
	 * aligned 32-bit stores of a port the worker did use, and only the control thread reads. */
	SA_REG_LEARN,
	SA_REG_COUNT,  /* per (slot, set): workers still missing */
	SA_REG_EXP,    /* pair per (slot, set): max e0, max e1 */
	SA_REG_VALUES, /* vector of 64 lanes per (chunk of 64 elements, slot, set) */
	/* pair per (slot, set), sessions with an uplink (docs/fabric.md): lo = the tsi of the
	 * slot's round, hi = SA_UP_OPEN or SA_UP_FINAL | its job number << 8 | the parent's
	 * exponents e0 << 16 | e1 << 24 (once final) */
	SA_REG_UP,
	SA_REG_NB,
};

/* Where a worker's switch port came from (syncagtr worker add ... port PORT|l2|auto). */
enum sa_port_from {
	SA_PORT_GIVEN, /* a port number in the command */
	SA_PORT_L2,    /* the static l2 entry of the worker's MAC, read at registration */
	SA_PORT_LEARN, /* "auto": learned from its packets */
};

struct sa_member {
	uint8_t mac[6];
	uint16_t port; /* switch port, or SA_PORT_AUTO until learned */
	rte_be32_t ip;
	bool valid;
	bool auto_port; /* from == SA_PORT_LEARN: the data path writes its learn cell */
	uint8_t from;   /* enum sa_port_from */
	uint32_t epoch; /* the session's epoch when it (last) registered */
	uint32_t seen;  /* isw_clock_ms() of its last registration (a worker add, again or not) */
};

/* A session's uplink to a parent switch (docs/fabric.md): the slots complete locally, the sum
 * goes up as one contribution of the parent's session, the parent's result comes back down. */
struct sa_uplink {
	bool on;
	uint16_t port;         /* the port towards the parent */
	rte_be32_t ip;         /* this switch's address as the parent's worker */
	rte_be32_t parent_ip;  /* the parent session's switch IP */
	uint8_t parent_mac[6]; /* the parent switch's SwitchML MAC */
};

/* The rank of the admission entry that stands for a session's parent switch. */
#define SA_RANK_PARENT 0xFFu

/* States of a (slot, set) of a session with an uplink (SA_REG_UP's hi half, low byte). */
#define SA_UP_OPEN  1u /* a round started here: the parent's result not taken yet */
#define SA_UP_FINAL 2u /* the parent's result taken: in the slot's values, its exponents here */

/* A region of a session's slots, and how its threads split it (see sa_session). */
struct sa_region {
	bool valid;
	uint8_t spt_shift; /* log2(spt) when spt is a power of two, else 0xFF */
	uint32_t base;     /* first switch slot */
	uint32_t nslots;   /* pool indices 0..nslots-1 */
	uint32_t spt;      /* slots per thread (threads > 0) */
};

/* How long after a change drained before the session's region may change again: a copy of an
 * old packet delayed in the network must not reach the next change's region (docs/memory.md). */
#define SA_CHANGE_GUARD_MS 50u

struct sa_session {
	bool valid;
	/* Region changes (docs/memory.md): gen counts them; once it is not 0, a packet's pool
	 * index bit 14 names the generation parity it is for. changing: the previous
	 * generation's region (old) still holds results some worker thread may need; its
	 * boundaries and drain are in sa_bound[] and sa_held[]. */
	bool changing;
	uint32_t gen;
	uint32_t drained_ms; /* isw_clock_ms() when the last change drained (control side) */
	/* changes that drained by every worker thread's flag, and that ended otherwise (a reset,
	 * or no worker registered any more to flag) */
	uint32_t changes_drained, changes_ended;
	struct sa_region old;
	uint8_t nworkers;
	uint16_t id;
	uint16_t group;
	rte_be32_t ip;   /* the session's switch endpoint */
	uint32_t base;   /* first switch slot of the region */
	uint32_t nslots; /* slots in the region; pool indices 0..nslots-1 */
	/* Job epoch: 'session reset' starts the next. A member registered in an earlier one is of
	 * an earlier job: its admission entry is marked stale, its packets dropped (sa-epoch). */
	uint32_t epoch;
	uint64_t epoch_base; /* the counters' pkts summed at the epoch's start (control side) */
	/* Steering (threads > 0): the slots split into threads equal ranges of spt slots, one
	 * per worker thread (SwitchML's thread t uses [t·spt, (t+1)·spt) and sends from UDP port
	 * worker_port + t); range t is owned by worker owner[t], so a NIC that steers the port
	 * to that worker's queue brings every packet of the range to its owner. threads 0: slots
	 * are owned round-robin (the dataplane's shard map). */
	uint8_t threads;
	uint8_t spt_shift; /* log2(spt) when spt is a power of two, else 0xFF */
	uint16_t worker_port;
	uint32_t spt;
	uint8_t owner[SA_THREADS_MAX];
	struct sa_uplink up;
	struct sa_member w[SA_WORKERS_MAX];
};

/* Admission key: (Ethernet source, IPv4 source, IPv4 destination). */
struct sa_key {
	uint8_t mac[6];
	uint16_t zero;
	rte_be32_t sip;
	rte_be32_t dip;
};

struct sa_entry {
	struct sa_key key;
	uint8_t used;
	uint8_t session;
	uint8_t rank;
	uint8_t stale; /* the member is not registered in the session's current epoch */
};

/* One immutable configuration snapshot, published by RCU. */
struct sa_conf {
	uint8_t mac[6]; /* the switch MAC, destination of every worker's packets */
	uint8_t nb_ids; /* valid sessions, listed in ids[] for the ARP/ICMP lookup */
	uint8_t ids[SA_SESSIONS_MAX];
	struct sa_session sess[SA_SESSIONS_MAX + 1]; /* indexed by id; 0 unused */
	struct sa_entry table[SA_TABLE_SIZE];
};

/* Per-session counters, one set per worker lcore (plain increments by their only writer). */
struct sa_counters {
	uint64_t pkts;        /* admitted SwitchML packets */
	uint64_t contribs;    /* new contributions (first or added) */
	uint64_t completions; /* slots completed: result multicast */
	uint64_t values; /* values of those results (64 or 256 each): the aggregated bytes / 4 */
	uint64_t retx;   /* retransmissions (worker already in the bitmap) */
	uint64_t retx_results; /* ... answered with a unicast result */
	uint64_t retx_pending; /* ... dropped, the slot not yet complete */
	uint64_t bad_region;   /* pool index outside the region */
	uint64_t bad_size;     /* unsupported size code */
	uint64_t malformed;    /* truncated */
	uint64_t bad_epoch;    /* a member not registered in the session's current epoch */
	uint64_t up_sent;      /* partial sums sent to the parent (a slot completed here) */
	uint64_t up_resent;    /* ... again, for a worker's retransmission */
	uint64_t up_results;   /* the parent's results taken and multicast */
	uint64_t up_stale;     /* the parent's results for no round waiting: dropped */
	uint64_t up_dup;       /* the parent's results already taken: dropped */
	uint64_t bad_gen;      /* for a region generation the session no longer has */
	uint64_t notes;        /* results that carried the region note */
	uint64_t old_gen;      /* packets for the previous generation's region while it drains */
} __rte_cache_aligned;

/* Counters not tied to a session. */
struct sa_global_counters {
	uint64_t arp_replies;
	uint64_t icmp_replies;
	uint64_t unknown; /* SwitchML-port UDP to the switch MAC, not from a registered worker */
} __rte_cache_aligned;

/* The thread whose range holds slot, in a region split spt slots a thread (2^shift, or 0xFF). */
static inline uint32_t sa_slot_thread(uint32_t spt, uint8_t shift, uint32_t slot)
{
	return shift != 0xFF ? slot >> shift : slot / spt;
}

/* The worker that owns slot of a session split among threads (threads != 0): its thread's. */
static inline uint16_t sa_slot_owner(const struct sa_session *s, uint32_t slot)
{
	return s->owner[sa_slot_thread(s->spt, s->spt_shift, slot)];
}

/*
 * During a region change, per session and worker thread (written by worker lcores, read and
 * reset by the control thread): the boundary, SA_BOUND_SET | job_number << 32 | tsi of the
 * thread's first completion after the request (set once, by compare-and-swap), and the ranks
 * whose packets in the new region said they hold every old result (SA_FLAG_HELD).
 */
#define SA_BOUND_SET (1ull << 63)
extern uint64_t sa_bound[SA_SESSIONS_MAX + 1][SA_THREADS_MAX];
extern uint32_t sa_held[SA_SESSIONS_MAX + 1][SA_THREADS_MAX];

extern struct sa_conf *sa_conf_cur;
extern struct isw_reg *sa_regs[SA_REG_NB];
extern struct sa_counters sa_counters[][SA_SESSIONS_MAX + 1];
extern struct sa_global_counters sa_gcounters[];

/* The admission table's hash of a key, shared by the builder and the lookup. */
uint32_t sa_key_hash(const struct sa_key *k);

/* Index of a (slot, set) in the count and exponent arrays, and of a chunk in the values. */
static inline uint32_t sa_cidx(uint32_t slot, unsigned set)
{
	return slot << 1 | (set & 1u);
}

/* Chunk-major: the first 64 elements of every (slot, set) are contiguous, so 64-element jobs
 * (the common case) use a quarter of the array's pages. */
static inline uint32_t sa_vidx(uint32_t cidx, unsigned chunk)
{
	return (chunk & 3u) * (2u * SA_SLOTS) + cidx;
}

/*
 * Asks for session id's region to change to slots slots (at switch slot at, or the first free
 * range with UINT32_MAX): syncagtr session region's work (docs/memory.md), also the allocator's.
 * Control thread. 0, or -errno with the reason in err.
 */
int sa_region_change(uint32_t id, uint32_t slots, uint32_t at, char *err, size_t errlen);

/* The pipeline's packet entry points (fast and strict builds). */
int sa_process(struct isw_worker *w, struct rte_mbuf *m);
int sa_process_strict(struct isw_worker *w, struct rte_mbuf *m);
uint16_t sa_process_burst(struct isw_worker *w, struct rte_mbuf **pkts, uint16_t n);

#endif
