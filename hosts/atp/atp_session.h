/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An ATP job's identity, agreed by the switch, the parameter server and every worker without an
 * operator step (docs/atp.md, Job lifetime): inswitch's JOIN and ANNOUNCE frames (seq 0), the
 * worker's side of them (atp_member, used by the engine: atp-worker and the Python library) and
 * the parameter server's (atp_former: how jobs form). Pure: no socket, clock or thread; the
 * callers pass the time and the random numbers, so everything is unit-tested on its own.
 */
#ifndef ISW_ATP_SESSION_H
#define ISW_ATP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "atp_host.h"

#define ATP_JOIN_MS      20u  /* a worker without a job JOINs this often */
#define ATP_HEARTBEAT_MS 50u  /* ... one whose job does not move (no ACK, or stalled) */
#define ATP_QUIET_MS     100u /* a job with no ACK yet is given this long before heartbeats */
#define ATP_LIVE_MS      500u /* a worker whose last JOIN is older is not counted by the PS */

/* What a JOIN reports about its worker (value 1 of the frame). */
enum atp_join_state {
	ATP_JOIN_WAITING = 0, /* no job yet */
	ATP_JOIN_STARTED = 1, /* runs `job`, no ACK yet */
	ATP_JOIN_RUNNING = 2, /* runs `job` and has had ACKs: it stalls */
};

struct atp_join {
	uint16_t app;
	uint8_t id, workers;
	uint32_t nonce; /* per worker process, random, non-zero */
	uint32_t job;   /* the job it runs (0: none) */
	uint8_t state;  /* enum atp_join_state */
};

/*
 * JOIN: worker -> PS index 0, not an ACK, seq 0, agtr 0, bitmap 1 << id, num_worker N, key
 * job << 32, value 0 the nonce, value 1 the state; PS thread 0's MAC. 308 bytes into f.
 */
void atp_join_build(uint8_t *f, const struct atp_join *j);
/* A parsed frame h (values vb) as a JOIN: -EINVAL unless it is one. */
int atp_join_parse(const struct atp_pkt *h, const uint8_t *vb, struct atp_join *j);

/*
 * ANNOUNCE: PS -> workers, isACK, seq 0, agtr 0, bitmap 1, num_worker N, key job << 32, value i
 * the nonce of worker i (i < N); worker thread 0's MAC. The switch names the job the app's
 * current job and multicasts the frame to the app's worker ports.
 */
void atp_announce_build(uint8_t *f, uint16_t app, unsigned workers, uint32_t job,
                        const uint32_t *nonces);
/* -EINVAL unless h (values vb) is an ANNOUNCE; else job and nonces[0..num_worker). */
int atp_announce_parse(const struct atp_pkt *h, const uint8_t *vb, uint32_t *job,
                       uint32_t nonces[ATP_WORKERS_MAX]);

/* ---- the worker's side ---- */

struct atp_member {
	unsigned id, workers;
	uint32_t nonce;
	uint32_t job; /* 0 until an ANNOUNCE lists this worker */
	bool acked;   /* an ACK of job came: the job cannot move to another any more */
};

enum atp_ann {
	ATP_ANN_IGNORE,     /* nothing changes (not for this worker, or its job again) */
	ATP_ANN_TAKE,       /* m->job is the job now (the first, or another before any ACK) */
	ATP_ANN_SUPERSEDED, /* another job took over the app while this one had ACKs: fail */
};

/*
 * An ANNOUNCE of job for the app's workers (nonces[0..workers)): a job that lists this worker's
 * nonce is taken if the worker has none yet or has had no ACK of its own; once it has, another job
 * of the app (listing it or not) supersedes it.
 */
enum atp_ann atp_member_announce(struct atp_member *m, uint32_t job, const uint32_t *nonces,
                                 unsigned workers);

/* ---- the parameter server's side (PS index 0, thread 0) ---- */

struct atp_former {
	unsigned workers;
	uint32_t job; /* current job, 0: none */
	uint32_t members[ATP_WORKERS_MAX];
	bool adopted; /* taken from the workers' reports (a restarted PS), not formed here */
	uint64_t rng; /* state of the job-number generator */
	uint64_t formed;
	struct {
		uint32_t nonce, job;
		uint64_t at_ms;
		bool seen;
	} w[ATP_WORKERS_MAX];
};

enum atp_form {
	ATP_FORM_BAD,     /* not a JOIN of this app's workers */
	ATP_FORM_NONE,    /* recorded; no job (not every worker live yet) */
	ATP_FORM_AGAIN,   /* a member of the current job: ANNOUNCE it again */
	ATP_FORM_NEW,     /* a new job formed (f->job, f->members): ANNOUNCE it */
	ATP_FORM_ADOPTED, /* the job the workers report, taken by a PS that had none */
};

/* workers: the app's; seed: any (the job numbers are a function of it). */
void atp_former_init(struct atp_former *f, unsigned workers, uint64_t seed);
/*
 * A JOIN at now_ms. A job forms when every worker id has JOINed within the last ATP_LIVE_MS and
 * their nonces are not the current job's members: a fresh job number (non-zero, not the current
 * one), or, for a PS with no job whose live workers all report the same job, that job.
 */
enum atp_form atp_former_join(struct atp_former *f, const struct atp_join *j, uint64_t now_ms);

#endif
