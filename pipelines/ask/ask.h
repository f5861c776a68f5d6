/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ASK: key-value stream aggregation (docs/ask.md). Internal interface between the data path
 * (ask_dp.c, worker lcores) and the control side (ask_ctl.c, control thread): the configuration
 * snapshot published by RCU, the register arrays, the per-task FETCH replay buffers and the
 * counters.
 *
 * Memory layout. The aggregator arrays are ASK_AA_UNITS physical arrays of ASK_ROWS entries,
 * one per group of stages; slot j of a packet goes to array j % ASK_AA_UNITS in pass
 * j / ASK_AA_UNITS (a packet of more slots recirculates). A task takes a range of rows, the
 * same in every array: in array u, the rows [aa_base + (pass * 2 + copy) * aa_size, + aa_size)
 * are AA_j's copy `copy` for j = pass * ASK_AA_UNITS + u. The rings take a range of positions:
 * channel ch's 2W positions start at ring_base + ch * 2W.
 */
#ifndef ISW_ASK_H
#define ISW_ASK_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "asic.h"
#include "ask_proto.h"
#include "isw_limits.h"

struct isw_worker;
struct rte_mbuf;

#define ASK_AA_UNITS   8     /* physical aggregator arrays (slots per pass) */
#define ASK_ROWS       65536 /* entries per physical aggregator array */
#define ASK_RING       65536 /* seen/AggState positions, all tasks' channels together */
#define ASK_AA_MAX     32768 /* largest AA size (entries per copy of one slot) */
#define ASK_FETCH_SCAN 1024  /* entries one FETCH looks at, at most */
#define ASK_NO_PORT    0     /* sender_ports = 0: any port but the receiver's */
#define ASK_CTL_LATE   65536 /* a SWAP/FETCH up to this many seqs older than the newest is late */

enum ask_reg {
	ASK_REG_WINDOW, /* per channel (at its first ring position): next = 1 + newest seq */
	ASK_REG_SEEN,   /* per ring position: the seq processed there last */
	ASK_REG_ACTIVE, /* per task index: bit j = the active copy of AA_j */
	ASK_REG_AA0,    /* ASK_AA_UNITS key-value arrays follow, one per unit */
	ASK_REG_AGGSTATE = ASK_REG_AA0 + ASK_AA_UNITS, /* per ring position: slots absorbed */
	ASK_REG_NB,
};

struct ask_task {
	bool valid;
	uint8_t nslots;
	uint8_t key_bytes;
	uint8_t op;     /* enum isw_kv_op */
	uint8_t mac[6]; /* receiver */
	uint16_t id;
	uint16_t incarnation; /* the first; BEGIN starts others (struct ask_task_state) */
	uint16_t nchannels;
	uint16_t port;         /* receiver's switch port */
	rte_be16_t udp_port;   /* receiver's UDP port */
	rte_be32_t ip;         /* receiver's IPv4 address */
	uint32_t sender_ports; /* bit p: DATA may come in on port p; 0 = any but the receiver's */
	uint32_t window;       /* W, a power of two */
	uint32_t aa_size;      /* entries per copy, a power of two */
	uint32_t aa_base;      /* first row in every aggregator array */
	uint32_t ring_base;    /* first ring position */
};

struct ask_conf {
	uint16_t udp_port; /* host order */
	uint8_t mac[6];    /* the ASK address: answers ARP for ip, if ip != 0 */
	rte_be32_t ip;
	struct ask_task tasks[ASK_TASKS_MAX + 1]; /* index 0 unused */
	uint8_t index[65536];                     /* task id -> index, 0 = none */
	/* The aggregator arrays' cells and index masks, unit by unit, for the vector path. */
	uint64_t aa_cells[ASK_AA_UNITS];
	uint64_t aa_mask[ASK_AA_UNITS];
	bool simd; /* the fast build's DATA path: vector (ask_simd.c) or scalar */
};

/*
 * What a task's owning lcore keeps outside the register model: the job (its incarnation, and the
 * counters at its start, so that a BEGIN_DONE reports this incarnation's), the newest control
 * seq, and the last FETCH_REPLY, replayed for a FETCH that repeats its key. Written only by the
 * lcore that owns the task's shard; set up by the control thread when the task is (re)created
 * (workers paused). `ask task show` reads incarnation and jobs racily.
 */
struct ask_task_state {
	uint16_t incarnation; /* DATA, SWAP and FETCH of another one are dropped */
	uint32_t reg;         /* the registration's nonce (struct ask_job_info) */
	uint32_t jobs;        /* incarnations BEGIN started */
	/* the task's counters summed over the lcores when the incarnation started */
	uint64_t base_tuples, base_absorbed, base_claims, base_fetched;
	bool valid;
	bool ctl_valid;
	uint32_t ctl_seq;                /* newest SWAP, FETCH or starting BEGIN seq of the task */
	uint32_t seq, sel, start, count; /* the request the kept reply answers */
	uint16_t len;                    /* bytes of reply from the ASK header on */
	uint8_t reply[ASK_HDR_LEN + ASK_FETCH_BYTES];
} __rte_cache_aligned;

struct ask_counters {
	uint64_t pkts;           /* DATA packets processed (first and repeated) */
	uint64_t tuples;         /* valid slots of first occurrences */
	uint64_t claims;         /* tuples that claimed an empty entry */
	uint64_t combines;       /* tuples combined into an entry holding their key */
	uint64_t collisions;     /* tuples left in the packet: the entry holds another key */
	uint64_t repeats;        /* DATA packets seen before (retransmissions, duplicates) */
	uint64_t repeat_cleared; /* tuples cleared from repeats (absorbed the first time) */
	uint64_t long_pkts;      /* LONG packets passed through */
	uint64_t last_pkts;      /* packets with LAST */
	uint64_t swaps;          /* SWAP requests answered */
	uint64_t fetches;        /* FETCH requests answered */
	uint64_t fetch_replays;  /* ... with the kept reply (a retry) */
	uint64_t fetched;        /* entries read and cleared by FETCH */
	uint64_t bad_requests;   /* SWAP, FETCH or BEGIN answered with ERROR */
	uint64_t begins;         /* BEGIN requests answered (starts and probes) */
	uint64_t drops;          /* packets of the task dropped (any reason) */
} __rte_cache_aligned;

struct ask_global_counters {
	uint64_t arp_replies;
	uint64_t unknown_task;
} __rte_cache_aligned;

extern struct ask_conf *ask_conf_cur;
extern struct isw_reg *ask_regs[ASK_REG_NB];
extern struct ask_task_state ask_state[ASK_TASKS_MAX + 1];
extern struct ask_counters ask_counters[ISW_MAX_WORKERS][ASK_TASKS_MAX + 1];
extern struct ask_global_counters ask_gcounters[ISW_MAX_WORKERS];

/*
 * Fresh state for task t at index ti: copy 0 active in every slot, rings whose position i holds
 * i + 1 (never a seq that maps to i, so every first seq counts as new), windows at 0, no kept
 * reply, and, with aas, empty aggregator arrays. The control thread calls it with the workers
 * paused (task add); the owning lcore for a BEGIN that starts an incarnation. Never allocates.
 */
void ask_task_state_reset(const struct ask_task *t, unsigned ti, bool aas);

/* Passes of a packet of nslots slots through the aggregator arrays. */
static inline unsigned ask_passes(unsigned nslots)
{
	return (nslots + ASK_AA_UNITS - 1) / ASK_AA_UNITS;
}

/* Rows of the aggregator arrays and ring positions task t takes. */
static inline uint32_t ask_task_rows(const struct ask_task *t)
{
	return ask_passes(t->nslots) * 2u * t->aa_size;
}

static inline uint32_t ask_task_ring(const struct ask_task *t)
{
	return t->nchannels * 2u * t->window;
}

/* Is a DATA header (not LONG) of task t's shape: its slot count and key width, and no valid
 * slot beyond them? (Its length is checked apart: ask_data_len.) */
static inline bool ask_shape_ok(const struct ask_task *t, const struct ask_hdr *h)
{
	return h->nslots == t->nslots && h->key_bytes == t->key_bytes &&
	       (ask_be32(h->bitmap) >> (t->nslots - 1) >> 1) == 0;
}

/* Row of entry e of AA_slot's copy in the aggregator array of unit slot % ASK_AA_UNITS. */
static inline uint32_t ask_row(const struct ask_task *t, unsigned slot, unsigned copy, uint32_t e)
{
	return t->aa_base + ((slot / ASK_AA_UNITS) * 2u + copy) * t->aa_size + e;
}

/*
 * The vector path (ask_simd.c): the aggregator arrays for the valid slots of a first occurrence,
 * with the entries found eight slots at a time by AVX-512; the same result as the scalar path.
 * Returns the slots absorbed and sets *claimed to those that claimed an empty entry. Used by the
 * fast build when the configuration's simd is set: at enable when ask_simd_supported() (the CPU
 * has AVX-512 F, DQ, BW and VL), and by `ask config set data-path`.
 */
bool ask_simd_supported(void);
uint32_t ask_aggregate_x8(const struct ask_conf *c, const struct ask_task *t, uint32_t active,
                          const uint8_t *pay, uint32_t bitmap, uint32_t *claimed);
/* Zeroes the records of the slots in bits (below nslots) of a payload of kb-byte keys. */
void ask_clear_x8(uint8_t *pay, unsigned nslots, unsigned kb, uint32_t bits);

/*
 * The fast build's aggregator-array step alone (ask_dp.c), on the path the configuration's simd
 * selects: the SALUs of the valid slots in bitmap of a DATA payload of task t (of its shape,
 * length already checked), each in the copy its bit of active names. Returns the slots absorbed
 * and sets *claimed as ask_aggregate_x8 does. What ask_process does for a first occurrence,
 * without the checks, rings, counters and clearing around it; bench/ask-micro --arrays-only
 * times it.
 */
uint32_t ask_aggregate(const struct ask_conf *c, const struct ask_task *t, uint32_t active,
                       const uint8_t *pay, uint32_t bitmap, uint32_t *claimed);

/* The pipeline's packet entry points (fast and strict builds). */
int ask_process(struct isw_worker *w, struct rte_mbuf *m);
int ask_process_strict(struct isw_worker *w, struct rte_mbuf *m);
uint16_t ask_process_burst(struct isw_worker *w, struct rte_mbuf **pkts, uint16_t n);

#endif
