/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ATP worker engine: allreduce a tensor through an ATP switch and its parameter server(s) in raw
 * 0x0700 frames on the host transport (hx.h: AF_XDP or AF_PACKET, cli.transport; needs
 * CAP_NET_RAW, AF_XDP also CAP_NET_ADMIN and CAP_BPF). One thread and one socket per thread id t
 * (frames to 05:04:03:02:01:<t'>, ACKs at 77:77:77:77:77:<t'>, t' = t + 20 (app - 1)); each
 * thread takes an even share of the tensor. Used by atp-worker and libinswitch-host.
 *
 * The job (docs/atp.md, Job lifetime): before the first frame of its first call, the engine's
 * thread 0 JOINs the app's job (a random nonce of this process) and waits, up to give_up_s, for
 * the PS's ANNOUNCE listing it; every key then carries the job the PS named (job << 32 | call
 * << 20 | chunk * threads + thread), and every later call of the engine runs in the same job. A
 * job that moves before any ACK (it formed with a worker that is gone) is followed; one that
 * moves after an ACK fails the call ("superseded").
 *
 * int functions return 0 or -errno; the text is in atp_engine_error(). After a failure the
 * engine is not reusable (its workers' sequences have diverged): destroy it.
 */
#ifndef ISW_ATP_ENGINE_H
#define ISW_ATP_ENGINE_H

#include <stdint.h>

#include "atp_host.h"

struct atp_engine_cfg {
	struct atp_cli cli;        /* app, workers, nps, threads, window, pool, scale, dev */
	unsigned id;               /* this worker: bit id of the bitmap, 0..workers-1 */
	unsigned timeout_ms;       /* least stall timeout */
	unsigned first_timeout_ms; /* ... until the first round trip is measured (0: 250) */
	unsigned give_up_s;
	int cc;           /* AIMD on ECN */
	const char *tool; /* names the transport's stderr line (NULL: "atp-worker") */
};

struct atp_engine_stats {
	uint64_t packets; /* the tensor's packets (each sent once at least) */
	uint64_t sent, resends, timeouts, acks, dup_acks, stale, coll_acks, repoints, ecn_acks;
	uint64_t gaps;   /* resends: a gap (ACKs well past the seq) */
	uint64_t stalls; /* resends on timeout (counted in timeouts too): nothing ACKed for long */
	uint64_t srtt_ns, rec_srtt_ns; /* round trips through the switch, the PS (largest thread) */
	uint64_t ovf_pkts, ovf_acks;   /* float32 packets sent as floats, results that came so */
	unsigned min_cwnd;
	uint64_t cwnd_sum;  /* window after each ACK, summed: mean = cwnd_sum / acks */
	uint64_t checked;   /* verify: packets whose int32 results the checksums cover */
	uint64_t unchecked; /* ... whose results came as floats (not covered) */
	double seconds;
};

struct atp_engine;

/* Builds the app's aggregator map and opens the threads' sockets; NULL and errno, err says. */
struct atp_engine *atp_engine_create(const struct atp_engine_cfg *cfg, char *err, size_t errlen);
void atp_engine_destroy(struct atp_engine *e);

typedef void (*atp_progress_fn)(void *arg, uint64_t acked, uint64_t total);

/*
 * out[0..count) := the sum over the app's workers of in (int32, or float32 scaled by
 * cfg.cli.scale, raw floats where a value does not fit). in and out may be the same buffer.
 * Every worker of the app makes the same calls. Stats are added to *st (may be NULL); progress
 * (may be NULL) is called about once a second. -ETIMEDOUT after give_up_s without an ACK (or
 * without a job).
 */
int atp_engine_allreduce(struct atp_engine *e, const void *in, void *out, uint64_t count,
                         int is_float, struct atp_engine_stats *st, atp_progress_fn progress,
                         void *arg);

/*
 * Checksums (on by default): each call sums, modulo 2^32, the int32 words this worker sent and
 * the int32 results it took, plainly and weighted by an odd weight per (key, seq, position), over
 * the packets whose result came back as int32 (a float32 packet sent as raw floats, and so its
 * result, is not covered: stats.unchecked). atp_engine_verify() then allreduces what every
 * worker sent (an int32 call of 6 values, in 16-bit halves, which cannot saturate) and compares
 * the sum with what this worker got: 0, or -EBADMSG with msg saying why: "saturated" where a
 * result element sits at an int32 rail (the switch's add clamps), "wrong" otherwise. A job whose
 * results are the sums always passes; any other fails but by the chance of a 32-bit coincidence
 * (see docs/atp.md). Another error of the check's own call: its -errno.
 */
void atp_engine_set_verify(struct atp_engine *e, int on);
int atp_engine_verify(struct atp_engine *e, struct atp_engine_stats *st, char *msg, size_t len);

/*
 * The region its aggregators are in (docs/memory.md, ATP): generation 0, the shared range
 * [0, cli.pool); else the switch's region for the app, which results carry once it has one.
 * The engine moves to the newest region seen at the start of each call (and of its first job),
 * with window min(cli.window, size / threads) (at least 1).
 */
struct atp_engine_region {
	unsigned gen, first, size, window;
	uint64_t moves; /* times it moved */
};
void atp_engine_region(const struct atp_engine *e, struct atp_engine_region *r);

/* The job the worker runs (0 before its first call); JOINs it sent, jobs it took. */
uint32_t atp_engine_job(const struct atp_engine *e);
void atp_engine_job_stats(const struct atp_engine *e, uint64_t *joins, uint64_t *jobs);
const char *atp_engine_error(const struct atp_engine *e);
/* "xdp" or "socket": the transport its sockets use. */
const char *atp_engine_transport(const struct atp_engine *e);

#endif
