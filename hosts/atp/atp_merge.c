/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ATP parameter server merge (after ATP's server/ParameterServer.cc): one tensor's per-seq
 * coverage, int and float sums, and the ACK built from them. A packet's data counts only if none
 * of its workers is already counted for its seq, so duplicates, resends and flushed partials never
 * double count.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atp_host.h"

struct atp_tensor *atp_tensor_new(uint64_t key, uint32_t len, uint8_t nworkers)
{
	struct atp_tensor *t;
	uint32_t npkts = (len + ATP_VALUES - 1) / ATP_VALUES;

	if (len == 0 || npkts > ATP_MAX_SEQ || nworkers == 0 || nworkers > ATP_WORKERS_MAX) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->key = key;
	t->len = len;
	t->npkts = npkts;
	t->nworkers = nworkers;
	t->full_mask = nworkers == 32 ? 0xffffffffu : (1u << nworkers) - 1;
	t->covered = calloc(npkts + 1, sizeof(*t->covered));
	t->ival = calloc((size_t)(npkts + 1) * ATP_VALUES, sizeof(*t->ival));
	t->st = calloc(npkts + 1, 1);
	t->new_agtr = calloc(npkts + 1, sizeof(*t->new_agtr));
	if (!t->covered || !t->ival || !t->st || !t->new_agtr) {
		atp_tensor_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void atp_tensor_free(struct atp_tensor *t)
{
	if (!t)
		return;
	free(t->covered);
	free(t->ival);
	free(t->fval);
	free(t->st);
	free(t->new_agtr);
	free(t);
}

static int32_t sat_add(int32_t a, int32_t b)
{
	int64_t s = (int64_t)a + b;

	return s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : (int32_t)s;
}

static int merge_floats(struct atp_tensor *t, uint32_t seq, const uint8_t *vb)
{
	float x[ATP_VALUES], *acc;

	if (!t->fval) {
		t->fval = calloc((size_t)(t->npkts + 1) * ATP_VALUES, sizeof(*t->fval));
		if (!t->fval)
			return -ENOMEM;
	}
	acc = t->fval + (size_t)seq * ATP_VALUES;
	atp_floats_get(vb, x, ATP_VALUES);
	for (unsigned i = 0; i < ATP_VALUES; i++)
		acc[i] += x[i];
	t->st[seq] |= ATP_ST_FLOAT;
	return 0;
}

enum atp_merge atp_tensor_merge(struct atp_tensor *t, const struct atp_pkt *h, const uint8_t *vb)
{
	uint32_t seq = h->seq, bits = h->bitmap;
	int32_t v[ATP_VALUES], *acc;

	if (seq == 0 || seq > t->npkts || bits == 0 || (bits & ~t->full_mask))
		return ATP_MERGE_BAD;
	if (t->st[seq] & ATP_ST_COMPLETE)
		return ATP_MERGE_DONE;
	if ((h->flag & ATP_F_COLLISION) && !(h->flag & ATP_F_ACK))
		t->st[seq] |= ATP_ST_COLLIDED;
	if ((h->flag & ATP_F_ECN) || h->ip_ecn == 3)
		t->st[seq] |= ATP_ST_ECN;
	acc = t->ival + (size_t)seq * ATP_VALUES;
	if (bits == t->full_mask && !(h->flag & ATP_F_OVERFLOW)) {
		/* Aggregated by the switch: it holds every worker's int contribution. */
		atp_values_get(vb, acc, ATP_VALUES);
		if (t->fval)
			memset(t->fval + (size_t)seq * ATP_VALUES, 0, ATP_VALUES * sizeof(float));
		t->st[seq] = (uint8_t)((t->st[seq] & ~ATP_ST_FLOAT) | ATP_ST_FULL);
	} else if (bits & t->covered[seq]) {
		return ATP_MERGE_DUP;
	} else if (h->flag & ATP_F_OVERFLOW) {
		if (merge_floats(t, seq, vb) < 0)
			return ATP_MERGE_BAD;
	} else {
		atp_values_get(vb, v, ATP_VALUES);
		for (unsigned i = 0; i < ATP_VALUES; i++)
			acc[i] = sat_add(acc[i], v[i]);
	}
	t->covered[seq] |= bits;
	if (t->covered[seq] != t->full_mask)
		return ATP_MERGE_PARTIAL;
	t->st[seq] |= ATP_ST_COMPLETE;
	t->ncomplete++;
	return ATP_MERGE_COMPLETE;
}

void atp_tensor_ack(const struct atp_tensor *t, const struct atp_pkt *rx, uint8_t wire_thread,
                    double scale, uint8_t *out)
{
	struct atp_pkt a = *rx;
	uint8_t vb[ATP_VALUES * 4];
	const int32_t *iv = t->ival + (size_t)rx->seq * ATP_VALUES;
	uint8_t st = t->st[rx->seq];

	a.bitmap = 1;
	a.flag = (uint8_t)((rx->flag | ATP_F_ACK) &
	                   ~(ATP_F_DATAINDEX | ATP_F_COLLISION | ATP_F_OVERFLOW));
	a.len = t->len;
	if (st & ATP_ST_ECN)
		a.flag |= ATP_F_ECN;
	if (st & ATP_ST_REASSIGN) {
		a.flag |= ATP_F_COLLISION;
		a.len = t->new_agtr[rx->seq];
	}
	if (st & ATP_ST_FLOAT) {
		const float *fv = t->fval + (size_t)rx->seq * ATP_VALUES;
		float x[ATP_VALUES];

		for (unsigned i = 0; i < ATP_VALUES; i++)
			x[i] = (float)((double)iv[i] / scale + (double)fv[i]);
		atp_floats_put(vb, x, ATP_VALUES);
		a.flag |= ATP_F_OVERFLOW;
	} else {
		atp_values_put(vb, iv, ATP_VALUES);
	}
	atp_frame_build(out, &a, false, wire_thread, vb);
}
