/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ATP host library: the pure parts shared by atp-worker and atp-ps (ATP's format: docs/atp.md).
 * Aggregator mapping (collision-free per app), frame build/parse, float32 scaling with the
 * overflow split, test tensors, and the parameter server's per-tensor merge state.
 * Nothing here touches a socket, a clock or a thread: everything is unit-tested on its own.
 * int functions return 0 or -errno; constructors return NULL and set errno.
 */
#ifndef ISW_ATP_HOST_H
#define ISW_ATP_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atp/atp_proto.h"
#include "hx.h"

#define ATP_MAX_SEQ         65535u /* seq is u16 and 1-based */
#define ATP_THREADS_PER_APP 20u    /* t' = t + 20 (app - 1), as in ATP's hosts */
#define ATP_DEF_POOL        ATP_AGTR_MAX
#define ATP_DEF_WINDOW      100u
#define ATP_DEF_SCALE       1048576.0 /* float32 -> int32 scaling (2^20) */

/* ---- aggregator mapping ---------------------------------------------------------------- */

/*
 * The app's hash table: slot (thread t, window position i) = t * window + i maps to one
 * aggregator index < pool. Built the same way on every worker and on the PS, so all agree.
 */
struct atp_map {
	uint16_t app;
	uint32_t base; /* the first aggregator: slots map into [base, base + pool) */
	uint32_t pool;
	uint32_t nslots;
	uint16_t *agtr; /* per slot */
	uint16_t *init; /* per slot: as first mapped */
	uint8_t *used;  /* per aggregator: 1 if some slot points at it */
	uint8_t *orig;  /* per aggregator: 1 if the initial mapping used it */
	uint32_t *fifo; /* PS only: free aggregators handed out by collision ACKs, FIFO order */
	uint32_t fifo_head, fifo_len;
};

uint32_t atp_crc32(const void *buf, size_t len, uint32_t crc);
/* CRC32 of (app BE16, slot BE32) mod pool, then linear probing past aggregators already taken. */
int atp_map_init(struct atp_map *m, uint16_t app, uint32_t nslots, uint32_t pool);
/*
 * The same into a region of the switch's (docs/memory.md, ATP): [base, base + size), base + size
 * <= 65536. With more slots than aggregators, the slots past the first size share theirs (hash
 * position, no probing): their seqs collide in the switch, or take each other's aggregations
 * over (the switch's tensor check, docs/atp.md), and go through the PS: slow, never wrong.
 */
int atp_map_init_region(struct atp_map *m, uint16_t app, uint32_t nslots, uint32_t base,
                        uint32_t size);
void atp_map_fini(struct atp_map *m);
static inline uint16_t atp_map_get(const struct atp_map *m, uint32_t slot)
{
	return m->agtr[slot % m->nslots];
}
/* Slot back to its first aggregator (a worker moving to a new job, where the PS starts afresh);
 * touches only the slot. */
static inline void atp_map_restore(struct atp_map *m, uint32_t slot)
{
	m->agtr[slot % m->nslots] = m->init[slot % m->nslots];
}
/* Re-point slot to agtr unless outside [base, base + pool) or in use (ATP's client/p4ml_manager.cc
 * rule). */
bool atp_map_repoint(struct atp_map *m, uint32_t slot, uint32_t agtr);
/*
 * Collision ACK on a worker: re-point slot to agtr unless out of range, whether or not another
 * slot still holds it. The PS keeps the authoritative table and never hands out an aggregator
 * one of its slots holds; a worker whose other thread has not yet seen an earlier ACK moving
 * that aggregator away would otherwise refuse, disagree with the other workers, and leave a
 * claimed aggregator behind in the switch. Touches only the slot (threads own their slots).
 */
bool atp_map_set(struct atp_map *m, uint32_t slot, uint32_t agtr);
/*
 * PS side: the free list is every aggregator the initial mapping does not use (with P parameter
 * servers, only those with agtr % P == ps_index, so two PSes never hand out the same one),
 * in a rotated order; atp_map_reassign() takes the head, re-points slot to it and returns the
 * slot's previous aggregator to the tail if it was not an original one. Returns the new agtr or
 * -ENOSPC.
 */
int atp_map_free_init(struct atp_map *m, unsigned ps_index, unsigned nps);
int atp_map_reassign(struct atp_map *m, uint32_t slot);

/* ---- frames ---------------------------------------------------------------------------- */

struct atp_pkt {
	uint32_t bitmap;
	uint8_t num_worker;
	uint8_t flag;
	uint16_t app;
	uint16_t seq;
	uint16_t agtr;
	uint16_t agtr2;
	uint64_t key;
	uint32_t len;   /* len_tensor, or the new agtr in a collision ACK */
	uint8_t ip_ecn; /* ECN bits of the IPv4 template's TOS byte */
};

/* The thread id on the wire: t' = t + 20 (app - 1). */
static inline uint8_t atp_wire_thread(uint16_t app, unsigned t)
{
	return (uint8_t)(t + ATP_THREADS_PER_APP * (unsigned)(app - 1));
}

/* Writes all 308 bytes: MACs (dst = PS or worker prefix + wire thread), IP template, header,
 * the raw 248 value bytes (NULL: zeros), key and len. */
void atp_frame_build(uint8_t *f, const struct atp_pkt *h, bool to_ps, uint8_t wire_thread,
                     const uint8_t *value_bytes);
/* Parses a received frame: -EINVAL unless it is a 308-byte (or longer) ATP frame. */
int atp_frame_parse(const uint8_t *f, size_t len, struct atp_pkt *h);
/* int32 values <-> wire (BE); n <= 62, the rest zero. */
void atp_values_put(uint8_t *vb, const int32_t *v, unsigned n);
void atp_values_get(const uint8_t *vb, int32_t *v, unsigned n);
/* float values as raw host-order bits (overflow packets, as ATP's hosts send them). */
void atp_floats_put(uint8_t *vb, const float *x, unsigned n);
void atp_floats_get(const uint8_t *vb, float *x, unsigned n);

/* ---- float32 scaling ------------------------------------------------------------------- */

/*
 * A float x is sent as round(x * scale) when |x * scale| <= INT32_MAX / nworkers, so the sum of
 * all workers can never saturate. Returns true (and leaves the packet to be sent as floats with
 * the overflow flag) if any of the n values does not fit; otherwise fills q.
 */
bool atp_float_scale(const float *x, unsigned n, double scale, unsigned nworkers, int32_t *q);

/* ---- test tensors ------------------------------------------------------------------------- */

int32_t atp_gen_int(uint64_t seed, unsigned id, uint64_t idx);
float atp_gen_float(uint64_t seed, unsigned id, uint64_t idx);

/* ---- parameter server merge ------------------------------------------------------------ */

enum atp_merge {
	ATP_MERGE_BAD,      /* malformed: seq out of range, bitmap outside the workers, ... */
	ATP_MERGE_PARTIAL,  /* new contributions merged, seq still incomplete */
	ATP_MERGE_COMPLETE, /* this packet completed the seq: send the ACK */
	ATP_MERGE_DUP,      /* nothing new (some bit already counted), seq still incomplete */
	ATP_MERGE_DONE,     /* seq already complete (send the ACK again if it is a resend) */
};

/* One tensor (key) of one PS thread. */
struct atp_tensor {
	uint64_t key;
	uint32_t len, npkts, ncomplete;
	uint8_t nworkers;
	uint32_t full_mask;
	uint32_t *covered;  /* per seq: workers already counted */
	int32_t *ival;      /* npkts * 62 int sums */
	float *fval;        /* npkts * 62 float sums of overflow packets (NULL until needed) */
	uint8_t *st;        /* per seq: ATP_ST_* bits */
	uint16_t *new_agtr; /* per seq: agtr handed out by the collision ACK */
};

#define ATP_ST_COMPLETE 0x01u
#define ATP_ST_COLLIDED 0x02u
#define ATP_ST_FLOAT    0x04u /* some contribution arrived as floats */
#define ATP_ST_REASSIGN 0x08u /* new_agtr is valid */
#define ATP_ST_FULL     0x10u /* completed by one full packet from the switch */
#define ATP_ST_ECN      0x20u /* some packet of the seq was marked (flag or IPv4 ECN 11) */

struct atp_tensor *atp_tensor_new(uint64_t key, uint32_t len, uint8_t nworkers);
void atp_tensor_free(struct atp_tensor *t);
/* Merges one packet addressed to the PS (header already parsed, vb = its 248 value bytes). */
enum atp_merge atp_tensor_merge(struct atp_tensor *t, const struct atp_pkt *h, const uint8_t *vb);
/*
 * Builds the ACK of a complete seq into out (308 bytes) from the received header rx: bitmap 1,
 * isACK set, dataIndex cleared, isSWCollision (and len = new agtr) iff the seq collided and an
 * aggregator was reassigned, overflow set iff the values are floats (int sum / scale + float sum),
 * other flag bits kept.
 */
void atp_tensor_ack(const struct atp_tensor *t, const struct atp_pkt *rx, uint8_t wire_thread,
                    double scale, uint8_t *out);

/* ---- Command line: the options atp-worker and atp-ps share (atp_cli.c) ---- */

/* What the workers and the PS of an app must agree on, and --dev, --json, --quiet. */
struct atp_cli {
	unsigned app, workers, nps, threads, window, pool;
	double scale;
	const char *dev;
	int json, quiet;
	enum hx_kind transport; /* --transport xdp|socket|auto */
	int busy_poll;          /* --busy-poll (AF_XDP) */
};

/* getopt_long() codes of the shared long-only options; each tool's own start at 256. */
enum { ATP_CLI_POOL = 200, ATP_CLI_SCALE, ATP_CLI_TRANSPORT, ATP_CLI_BUSY_POLL };

/* The shared entries of a tool's struct option table and getopt string (needs <getopt.h>). */
#define ATP_CLI_LONGOPTS                                                                     \
	{"app", required_argument, NULL, 'a'}, {"workers", required_argument, NULL, 'n'},    \
	        {"ps", required_argument, NULL, 'p'}, {"dev", required_argument, NULL, 'd'}, \
	        {"threads", required_argument, NULL, 't'},                                   \
	        {"window", required_argument, NULL, 'w'},                                    \
	        {"pool", required_argument, NULL, ATP_CLI_POOL},                             \
	        {"scale", required_argument, NULL, ATP_CLI_SCALE},                           \
	        {"transport", required_argument, NULL, ATP_CLI_TRANSPORT},                   \
	        {"busy-poll", no_argument, NULL, ATP_CLI_BUSY_POLL},                         \
	        {"json", no_argument, NULL, 'j'},                                            \
	{                                                                                    \
		"quiet", no_argument, NULL, 'q'                                              \
	}
#define ATP_CLI_SHORTOPTS "a:n:p:d:t:w:jq"

/* Defaults: 1 PS, 1 thread, ATP_DEF_WINDOW, ATP_DEF_POOL, ATP_DEF_SCALE, the rest 0/NULL. */
void atp_cli_defaults(struct atp_cli *c);

/*
 * If opt (a getopt_long() result) is a shared option, stores arg in c and returns 1, or -1 if
 * arg is out of range; returns 0 for any other option.
 */
int atp_cli_option(struct atp_cli *c, int opt, const char *arg);

#endif
