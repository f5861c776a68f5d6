/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ATP worker engine: allreduce a tensor through an ATP switch and its parameter server(s) in raw
 * 0x0700 frames on the host transport (hx.h: AF_XDP or AF_PACKET, cli.transport; needs
 * CAP_NET_RAW, AF_XDP also CAP_NET_ADMIN and CAP_BPF). One thread and one socket per thread id t
 * (frames to 05:04:03:02:01:<t'>, ACKs at 77:77:77:77:77:<t'>, t' = t + 20 (app - 1)); each
 * thread takes an even share of the tensor. Used by atp-worker and libinswitch-host.
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
	uint64_t cwnd_sum; /* window after each ACK, summed: mean = cwnd_sum / acks */
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
 * Tensor keys are job << 32 | (chunk * threads + thread): every worker passes the same job,
 * and a parameter server answers a key it has seen from memory, so each call of a run needs a
 * new job (job < 2^32). Stats are added to *st (may be NULL); progress (may be NULL) is called
 * about once a second. -ETIMEDOUT after give_up_s without an ACK.
 */
int atp_engine_allreduce(struct atp_engine *e, const void *in, void *out, uint64_t count,
                         int is_float, uint64_t job, struct atp_engine_stats *st,
                         atp_progress_fn progress, void *arg);
const char *atp_engine_error(const struct atp_engine *e);
/* "xdp" or "socket": the transport its sockets use. */
const char *atp_engine_transport(const struct atp_engine *e);

/*
 * A job's start on the switch, through its control socket at path, before any frame of the job
 * (docs/atp.md, Job lifetime). Worker 0 (id 0) frees every aggregator the app holds and names
 * the job ('atp app reset APP job J'; *freed says how many); every other worker waits, polling
 * 'atp app show APP' every 20 ms for up to wait_s, until the switch names job J: then worker 0
 * has reset, and no worker of the job sends before the reset. Each run of an app needs its own
 * job number (as the PS's memory does): a worker that finds J named by an earlier run does not
 * wait. 0, or -errno with err set (-ETIMEDOUT: worker 0 never started the job).
 */
int atp_job_start(const char *path, unsigned app, unsigned id, uint32_t job, unsigned wait_s,
                  uint32_t *freed, char *err, size_t errlen);

#endif
