/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SyncAgtr worker library: allreduce a tensor through an inswitch (or Tofino) running SwitchML's
 * UDP protocol (docs/syncagtr.md), over the hosts' transport (hosts/common/hx.h: AF_XDP where it
 * can be set up, kernel UDP sockets otherwise).
 *
 * Two halves:
 *  - pure helpers (slot/set mapping, packet build/parse, float quantisation, the deterministic
 *    test tensors and their expected sums): no I/O, no globals, unit-tested;
 *  - the engine (sa_engine_*): one thread and one UDP socket per worker thread id, a window of W
 *    packets per thread, retransmission with backoff.
 *
 * Never uses DPDK: it must run on any Linux host. Functions returning int give 0 or -errno;
 * constructors return NULL and set errno.
 */
#ifndef ISW_SA_ENGINE_H
#define ISW_SA_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "syncagtr/syncagtr_proto.h"

#define SA_WINDOW_MAX 1024u /* packets in flight per thread */
/* Bytes of a SwitchML UDP payload: header, exponents, values. */
#define SA_PAYLOAD_LEN(elems) (SA_HDR_LEN + SA_EXP_LEN + 4u * (elems))

enum sa_dtype {
	SA_INT32,
	SA_FLOAT32,
};

struct sa_engine_cfg {
	unsigned rank;    /* 0..workers-1 */
	unsigned workers; /* 1..32 */
	struct in_addr switch_ip;
	uint16_t switch_port; /* usually SA_UDP_PORT */
	uint16_t worker_port; /* thread tid binds worker_port + tid */
	unsigned threads;     /* 1..SA_THREADS_MAX */
	unsigned window;      /* packets in flight per thread, 1..SA_WINDOW_MAX */
	unsigned elems;       /* values per packet: 64 or 256 */
	enum sa_dtype type;
	unsigned timeout_ms;     /* least retransmission timeout (srtt + 4 rttvar when larger) */
	unsigned timeout_max_ms; /* back-off cap */
	/* least timeout of a job's first window and of the start barrier: their answers wait for
	 * the slowest worker to reach the job (SwitchML's client gives its first batch W x 10 ms)
	 */
	unsigned first_timeout_ms;
	unsigned give_up_s; /* fail when a thread sees no progress for this long */
	unsigned guard_ms;  /* least time between the last send of a packet and the next on its slot
	                     * (k + W, or the next job's first packet there) */
	int transport; /* enum hx_kind (hosts/common/hx.h): HX_AUTO (0), HX_SOCKET (1), HX_XDP */
	int busy_poll; /* AF_XDP: spin instead of sleeping */
};

/* Fill defaults (4 threads, window 128, 256 values, int32, 50 ms .. 1 s, first window 250 ms,
 * 20 s, port 4000, transport auto). */
void sa_engine_cfg_default(struct sa_engine_cfg *cfg);
/* Check ranges; on error returns -EINVAL and writes a reason to err. */
int sa_engine_cfg_check(const struct sa_engine_cfg *cfg, char *err, size_t errlen);
/* Slots the session must hold on the switch: threads * window. */
unsigned sa_engine_cfg_slots(const struct sa_engine_cfg *cfg);

/* ---- pure helpers ---- */

/* Thread tid's share of a count-element tensor: first `count % threads` threads get one more. */
void sa_slice(size_t count, unsigned threads, unsigned tid, size_t *off, size_t *len);
/* Packets a thread sends for a slice of len elements (float32 adds a leading batch of W). */
uint64_t sa_slice_packets(size_t len, unsigned elems, unsigned window, enum sa_dtype type);

/*
 * Slot and set of packet k. A thread walks a cycle of 2W (slot, set) positions, starting at
 * `shift`: p = (k + shift) mod 2W, slot = tid*W + p mod W, set = p / W. Packet k+W is therefore
 * the other set of packet k's slot, and because the cycle continues from job to job
 * (sa_next_shift), every slot alternates sets across jobs as the switch's shadow copies require.
 */
void sa_slot_map(unsigned tid, unsigned window, uint32_t shift, uint64_t k, unsigned *slot,
                 unsigned *set);
uint32_t sa_next_shift(uint32_t shift, uint64_t total, unsigned window);

/*
 * Starts the worker's threads, from their next job, in region generation gen of slots slots
 * (sa_session_region's): a window of slots / threads each. For a worker that joins a session
 * whose region has changed; gen 0 changes nothing. -EINVAL unless the slots split evenly.
 */
struct sa_engine;
int sa_engine_set_region(struct sa_engine *w, unsigned gen, unsigned slots);

/* Size code for an element count (64 -> 1, 256 -> 3), 0 if unsupported. */
unsigned sa_size_code(unsigned elems);

struct sa_pkt {
	unsigned size; /* size code */
	uint8_t job;   /* job_number */
	uint32_t tsi;  /* read little-endian, as written */
	unsigned slot, set;
	unsigned gen; /* pool index bit 14: the region generation's parity (docs/memory.md) */
	int8_t e0, e1;
	const uint8_t *values; /* elems big-endian int32 */
	/* a result during a region change: the note after the values (syncagtr_proto.h) */
	int note;
	uint8_t note_gen;
	uint32_t note_slots;
};

/* Writes byte 42..51 of a SwitchML frame (header and exponents) at buf. */
void sa_pkt_put_hdr(uint8_t *buf, unsigned elems, uint8_t job, uint32_t tsi, unsigned slot,
                    unsigned set, int8_t e0);
/* Marks a packet built by sa_pkt_put_hdr() for region generation parity gen & 1 (pool index bit
 * 14) and, with held, as from a worker thread that holds every result of the previous
 * generation (byte 42 bit 3; docs/memory.md). */
void sa_pkt_put_gen(uint8_t *buf, unsigned gen, int held);
/* Writes n host-order values big-endian after the header, zero-padding up to elems. */
void sa_pkt_put_i32(uint8_t *buf, const int32_t *src, size_t n, unsigned elems);
/* Quantises n floats with scale (see sa_quantise), zero-padding up to elems. */
void sa_pkt_put_f32(uint8_t *buf, const float *src, size_t n, unsigned elems, double scale,
                    unsigned workers);
/* Parses a UDP payload of a result; -EINVAL unless it is a SwitchML packet of `elems` values,
 * with or without the region note after them. */
int sa_pkt_parse(const uint8_t *buf, size_t len, unsigned elems, struct sa_pkt *out);
void sa_pkt_get_i32(int32_t *dst, const struct sa_pkt *p, size_t n);
void sa_pkt_get_f32(float *dst, const struct sa_pkt *p, size_t n, double scale);

/*
 * Float32 quantisation (SwitchML's cpu_exponent_quantizer). sa_exponent: e with
 * 2^(e-1) <= max|x| < 2^e (SA_EXP_ZERO for an all-zero or empty block), clamped to int8.
 * sa_scale: INT32_MAX / (workers * 2^emax), emax being the max of the workers' exponents.
 * sa_quantise: round-to-nearest of x * scale, clamped to +-INT32_MAX / workers so that no sum of
 * `workers` values overflows int32 (the clamp only bites when |x| is within one unit of 2^emax).
 */
int8_t sa_exponent(const float *x, size_t n);
double sa_scale(int emax, unsigned workers);
int32_t sa_quantise(float x, double scale, unsigned workers);
/* Bound on |result - exact sum| for one element: workers units of 1/scale (0.5 for rounding,
 * up to 0.5 more where clamped) plus the rounding of the float result. */
double sa_f32_bound(double exact, double scale, unsigned workers);

/*
 * Start barrier pattern: element 0 = 1 << rank, the others fixed pseudo-random words, so the
 * sum of all workers' packets is known (2^N - 1, then N * word) and a result left in the switch
 * by some earlier job is recognised. sa_barrier_check: 1 if p carries exactly that sum.
 */
void sa_barrier_values(int32_t *v, unsigned elems, unsigned rank);
int sa_barrier_check(const struct sa_pkt *p, unsigned elems, unsigned workers);

/* Deterministic test tensors: worker `rank`'s element idx under seed. */
int32_t sa_gen_i32(uint64_t seed, unsigned rank, uint64_t idx);
float sa_gen_f32(uint64_t seed, unsigned rank, uint64_t idx);
void sa_gen(uint64_t seed, unsigned rank, enum sa_dtype type, void *dst, uint64_t first, size_t n);

struct sa_verify_result {
	int ok;
	size_t bad_index;        /* first element out of bounds (when !ok) */
	double got, want, bound; /* at bad_index */
	size_t bad_count;
	double max_err;       /* float32: largest |error| seen */
	double max_err_ratio; /* float32: largest |error| / bound */
};

/*
 * Checks out[0..count) against the sum over ranks 0..workers-1 of sa_gen(seed, rank, ...):
 * int32 exactly (32-bit wrap-around), float32 within sa_f32_bound of the block each element
 * travelled in (recomputing every worker's block exponent as the engine saw them).
 */
void sa_verify(const struct sa_engine_cfg *cfg, uint64_t seed, const void *out, size_t count,
               struct sa_verify_result *res);

/*
 * The end-to-end check's checksums (sa_engine_set_checksums), over the 32-bit words of a packet's
 * values as they travel: their plain sum, and their sum weighted by a pseudo-random odd weight per
 * (thread, packet, position), modulo 2^32. The switch adds positionally and modulo 2^32, so the
 * sums of what every worker sent add up to the sums of what each worker received, if every
 * result is the sum of its round. The weight of position i of packet k of thread tid is
 * sa_checksum_weight(i) * sa_packet_weight(tid, k): both odd, so any change of one word changes
 * the weighted sum, and the loop is one multiply-add per word.
 *
 * sa_checksum_add: ck[0] += the plain sum of the elems big-endian words at values, ck[1] += their
 * weighted sum; posw holds sa_checksum_weight(0..SA_ELEMS_MAX-1).
 */
uint32_t sa_packet_weight(unsigned tid, uint64_t k);
uint32_t sa_checksum_weight(unsigned i);
void sa_checksum_add(uint32_t ck[2], const uint32_t *restrict posw, const uint8_t *restrict values,
                     unsigned tid, uint64_t k, unsigned elems);

/* ---- engine ---- */

struct sa_stats {
	uint64_t packets;      /* sent, retransmissions included */
	uint64_t retransmits;  /* resent: after a timeout, or found lost by rack_resends */
	uint64_t rack_resends; /* ... of them, on a later packet's answer (RACK), not a timeout */
	uint64_t results;      /* accepted results */
	uint64_t duplicates;   /* results for a packet already completed */
	uint64_t stale;        /* results of another job number */
	uint64_t bad;          /* not SwitchML, wrong size, or pool index not matching the tsi */
	uint64_t held;         /* packets that waited for the guard time */
	uint64_t stale_state;  /* barrier results with wrong sums: slots holding an earlier run */
	uint64_t moves;        /* threads that moved to a new region at the job's start */
	uint64_t gen;          /* the highest region generation of the threads at the end */
	double srtt_ms;        /* smoothed round trip at the end (max over threads and jobs) */
	double seconds;
};

/* sum += a, field by field. */
void sa_stats_add(struct sa_stats *sum, const struct sa_stats *a);

struct sa_engine;

/* Opens and connects the threads' sockets. NULL and errno on failure, with a reason in err. */
struct sa_engine *sa_engine_create(const struct sa_engine_cfg *cfg, char *err, size_t errlen);
void sa_engine_destroy(struct sa_engine *w);

/* Called about once a second from the calling thread during an allreduce. */
typedef void (*sa_progress_fn)(void *arg, uint64_t results, uint64_t total,
                               const struct sa_stats *sofar);

/*
 * The start barrier: one job of W packets per thread, one on every slot (set 0 in a first job),
 * carrying
 * sa_barrier_values. It completes only once every worker has sent, and only with the exact
 * barrier sums: an answer with other values (a completed slot left by an earlier run) is ignored
 * and the packet resent, so after a session reset that is still on its way the resends count
 * anew. Once it is done every slot is clean for the jobs that follow: set 0 holds this barrier,
 * set 1 has every worker's bit cleared. All workers of a session must call it the same number
 * of times at the same point. -ETIMEDOUT after give_up_s without completing (the message says
 * whether stale results were seen: then the session needs a reset).
 */
int sa_engine_barrier(struct sa_engine *w, struct sa_stats *st);

/*
 * One allreduce (one job): out[i] = sum over workers of in[i], count elements of cfg->type.
 * in and out may be the same buffer. Blocks until done. Stats are added to *st (may be NULL).
 * Returns 0, -ETIMEDOUT when a thread saw no progress for give_up_s, or another -errno.
 * The error text is in sa_engine_error().
 */
int sa_engine_allreduce(struct sa_engine *w, const void *in, void *out, size_t count,
                        struct sa_stats *st, sa_progress_fn progress, void *arg);
const char *sa_engine_error(const struct sa_engine *w);
/* One line: the transport the threads' sockets use ("xdp (AF_XDP, UDP on eth0 ...)" or
 * "socket (UDP, batched)..."), as hosts/common/hx.h describes it. */
const char *sa_engine_transport(const struct sa_engine *w);
struct hx_stats;
/* The transport's counters (hosts/common/hx.h), summed over the threads' sockets. */
void sa_engine_transport_stats(struct sa_engine *w, struct hx_stats *sum);

/* The element type of the jobs that follow (every worker must change it alike). */
void sa_engine_set_type(struct sa_engine *w, enum sa_dtype type);

/*
 * Result checksums, the end-to-end check. With them on, every job computes, modulo 2^32, over the
 * 32-bit words of the values it sends (first transmission of each packet) and over those of the
 * results it takes, their plain sum and their weighted sum (sa_checksum_add), and a third word
 * that sums the results' exponents (weighted likewise; of the results that fixed float32
 * scales): every worker must have received the same ones. The switch adds positionally modulo
 * 2^32, so when every result is the sum of its round, the sum over all workers of what each sent
 * equals what each got. Each thread's data packets are then followed by one more packet, sent
 * once all of them went out once, carrying what the thread sent: its result is those sums over
 * the workers, with no round trip of its own. sa_engine_checksums gives the last job's totals
 * as sent[3] and got[3] (the sum over the workers of sent must equal got). A single corrupted
 * word always shows in the plain sum; other faults (another round's result, a stale slot, a
 * forged contribution, values landing in the wrong position, a worker with other exponents)
 * escape only by the chance of a 32-bit coincidence. It is a check against faults, not against
 * someone who knows the weights. float32 jobs are checked on their quantised integers. Every
 * worker must run a job with checksums on alike (the extra packet takes a slot).
 */
void sa_engine_set_checksums(struct sa_engine *w, int on);
void sa_engine_checksums(const struct sa_engine *w, uint32_t sent[3], uint32_t got[3]);

/*
 * The end-to-end check of the job just done (run with the checksums on): per thread, what the
 * check packet brought back (the sums over the workers of what each sent) against what this
 * worker got. 0 when they agree; -EBADMSG when they do not (the job's results are not the sums
 * of what the workers sent: another run's, a stale slot's, a forged or corrupted one), the reason
 * in err; -EINVAL when the job ran without checksums. Nothing is sent: st is not touched.
 */
int sa_engine_verify(struct sa_engine *w, struct sa_stats *st, char *err, size_t errlen);

#endif
