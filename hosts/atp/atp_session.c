/* SPDX-License-Identifier: BSD-3-Clause */
/* An ATP job's identity: JOIN and ANNOUNCE frames, the worker's and the PS's sides
 * (atp_session.h; docs/atp.md, Job lifetime). */
#include <errno.h>
#include <string.h>

#include "host_rand.h"
#include "atp_session.h"

void atp_join_build(uint8_t *f, const struct atp_join *j)
{
	struct atp_pkt h = {.bitmap = 1u << j->id,
	                    .num_worker = j->workers,
	                    .app = j->app,
	                    .key = (uint64_t)j->job << 32};
	int32_t v[2] = {(int32_t)j->nonce, j->state};
	uint8_t vb[ATP_VALUES * 4];

	atp_values_put(vb, v, 2);
	atp_frame_build(f, &h, true, atp_wire_thread(j->app, 0), vb);
}

int atp_join_parse(const struct atp_pkt *h, const uint8_t *vb, struct atp_join *j)
{
	int32_t v[2];

	if (h->seq != 0 || (h->flag & ATP_F_ACK) || h->num_worker == 0 ||
	    h->num_worker > ATP_WORKERS_MAX || __builtin_popcount(h->bitmap) != 1)
		return -EINVAL;
	atp_values_get(vb, v, 2);
	j->app = h->app;
	j->id = (uint8_t)__builtin_ctz(h->bitmap);
	j->workers = h->num_worker;
	j->nonce = (uint32_t)v[0];
	j->job = (uint32_t)(h->key >> 32);
	j->state = (uint8_t)v[1];
	if (j->id >= j->workers || j->nonce == 0)
		return -EINVAL;
	return 0;
}

void atp_announce_build(uint8_t *f, uint16_t app, unsigned workers, uint32_t job,
                        const uint32_t *nonces)
{
	struct atp_pkt h = {.bitmap = 1,
	                    .num_worker = (uint8_t)workers,
	                    .flag = ATP_F_ACK,
	                    .app = app,
	                    .key = (uint64_t)job << 32};
	int32_t v[ATP_WORKERS_MAX];
	uint8_t vb[ATP_VALUES * 4];

	for (unsigned i = 0; i < workers && i < ATP_WORKERS_MAX; i++)
		v[i] = (int32_t)nonces[i];
	atp_values_put(vb, v, workers);
	atp_frame_build(f, &h, false, atp_wire_thread(app, 0), vb);
}

int atp_announce_parse(const struct atp_pkt *h, const uint8_t *vb, uint32_t *job,
                       uint32_t nonces[ATP_WORKERS_MAX])
{
	int32_t v[ATP_WORKERS_MAX];

	if (h->seq != 0 || !(h->flag & ATP_F_ACK) || h->num_worker == 0 ||
	    h->num_worker > ATP_WORKERS_MAX || (h->key >> 32) == 0)
		return -EINVAL;
	atp_values_get(vb, v, h->num_worker);
	for (unsigned i = 0; i < h->num_worker; i++)
		nonces[i] = (uint32_t)v[i];
	*job = (uint32_t)(h->key >> 32);
	return 0;
}

enum atp_ann atp_member_announce(struct atp_member *m, uint32_t job, const uint32_t *nonces,
                                 unsigned workers)
{
	bool listed = workers == m->workers && m->id < workers && nonces[m->id] == m->nonce;

	if (job == 0 || job == m->job)
		return ATP_ANN_IGNORE;
	if (m->acked)
		/* The switch now takes only the other job's frames: this one cannot finish. */
		return m->job ? ATP_ANN_SUPERSEDED : ATP_ANN_IGNORE;
	if (!listed)
		return ATP_ANN_IGNORE;
	/* Nothing of the job it ran has come back: nothing is lost in moving (every contribution
	 * it made is of the old job, which the switch and the PS now refuse). */
	m->job = job;
	return ATP_ANN_TAKE;
}

void atp_former_init(struct atp_former *f, unsigned workers, uint64_t seed)
{
	memset(f, 0, sizeof(*f));
	f->workers = workers;
	f->rng = seed;
}

static uint32_t next_job(struct atp_former *f)
{
	uint32_t j;

	do {
		j = (uint32_t)host_mix64(f->rng);
		f->rng += 0x9e3779b97f4a7c15ull;
	} while (j == 0 || j == f->job);
	return j;
}

enum atp_form atp_former_join(struct atp_former *f, const struct atp_join *j, uint64_t now_ms)
{
	uint32_t report;
	bool agree = true;

	if (j->workers != f->workers || j->id >= f->workers || j->nonce == 0)
		return ATP_FORM_BAD;
	f->w[j->id].nonce = j->nonce;
	f->w[j->id].job = j->job;
	f->w[j->id].at_ms = now_ms;
	f->w[j->id].seen = true;
	if (f->job && f->members[j->id] == j->nonce)
		return ATP_FORM_AGAIN; /* a lost ANNOUNCE, a heartbeat, a stalled member */
	for (unsigned i = 0; i < f->workers; i++)
		if (!f->w[i].seen || now_ms - f->w[i].at_ms > ATP_LIVE_MS)
			return ATP_FORM_NONE;
	report = f->w[0].job;
	for (unsigned i = 0; i < f->workers; i++) {
		f->members[i] = f->w[i].nonce;
		agree &= f->w[i].job == report;
	}
	f->formed++;
	if (!f->job && report && agree) {
		/* A PS started while the job runs: the job goes on (a fresh one would supersede
		 * it). */
		f->job = report;
		f->adopted = true;
		return ATP_FORM_ADOPTED;
	}
	f->job = next_job(f);
	f->adopted = false;
	return ATP_FORM_NEW;
}
