/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ATP host library, pure parts: aggregator mapping, frames, float32 scaling, test tensors.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_rand.h"
#include "atp_host.h"

uint32_t atp_crc32(const void *buf, size_t len, uint32_t crc)
{
	const uint8_t *p = buf;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static uint32_t slot_hash(uint16_t app, uint32_t slot)
{
	uint8_t b[6];

	atp_put16(b, app);
	atp_put32(b + 2, slot);
	return atp_crc32(b, sizeof(b), 0);
}

int atp_map_init_region(struct atp_map *m, uint16_t app, uint32_t nslots, uint32_t base,
                        uint32_t size)
{
	memset(m, 0, sizeof(*m));
	if (nslots == 0 || size == 0 || base + (uint64_t)size > 65536)
		return -EINVAL;
	m->app = app;
	m->base = base;
	m->pool = size;
	m->nslots = nslots;
	m->agtr = calloc(nslots, sizeof(*m->agtr));
	m->init = calloc(nslots, sizeof(*m->init));
	m->used = calloc(size, 1);
	m->orig = calloc(size, 1);
	if (!m->agtr || !m->init || !m->used || !m->orig) {
		atp_map_fini(m);
		return -ENOMEM;
	}
	/* Slots in order, each taking its hash position or the next free one: every worker of
	 * the app runs the same loop, so all get the same table, and no two slots share while
	 * there are aggregators left. */
	for (uint32_t s = 0; s < nslots; s++) {
		uint32_t a = slot_hash(app, s) % size;

		while (s < size && m->used[a])
			a = (a + 1) % size;
		m->used[a] = 1;
		m->orig[a] = 1;
		m->agtr[s] = (uint16_t)(base + a);
		m->init[s] = (uint16_t)(base + a);
	}
	return 0;
}

int atp_map_init(struct atp_map *m, uint16_t app, uint32_t nslots, uint32_t pool)
{
	if (nslots > pool || pool > 65536) {
		memset(m, 0, sizeof(*m));
		return -EINVAL;
	}
	return atp_map_init_region(m, app, nslots, 0, pool);
}

void atp_map_fini(struct atp_map *m)
{
	free(m->agtr);
	free(m->init);
	free(m->used);
	free(m->orig);
	free(m->fifo);
	memset(m, 0, sizeof(*m));
}

bool atp_map_repoint(struct atp_map *m, uint32_t slot, uint32_t agtr)
{
	slot %= m->nslots;
	if (agtr - m->base >= m->pool || m->used[agtr - m->base])
		return false;
	m->used[m->agtr[slot] - m->base] = 0;
	m->used[agtr - m->base] = 1;
	m->agtr[slot] = (uint16_t)agtr;
	return true;
}

bool atp_map_set(struct atp_map *m, uint32_t slot, uint32_t agtr)
{
	if (agtr - m->base >= m->pool)
		return false;
	m->agtr[slot % m->nslots] = (uint16_t)agtr;
	return true;
}

int atp_map_free_init(struct atp_map *m, unsigned ps_index, unsigned nps)
{
	uint32_t start;

	if (nps == 0 || ps_index >= nps)
		return -EINVAL;
	free(m->fifo);
	m->fifo = calloc(m->pool, sizeof(*m->fifo));
	if (!m->fifo)
		return -ENOMEM;
	m->fifo_head = 0;
	m->fifo_len = 0;
	/* Rotated by the app's hash, so two apps do not both start handing out aggregator 0. */
	start = slot_hash(m->app, 0xffffffffu) % m->pool;
	for (uint32_t i = 0; i < m->pool; i++) {
		uint32_t a = (start + i) % m->pool;

		if (!m->used[a] && a % nps == ps_index)
			m->fifo[m->fifo_len++] = a;
	}
	return 0;
}

int atp_map_reassign(struct atp_map *m, uint32_t slot)
{
	uint32_t a, old;

	slot %= m->nslots;
	/* Skip entries a worker-side repoint made busy meanwhile (cannot happen with one PS). */
	while (m->fifo_len > 0) {
		a = m->fifo[m->fifo_head];
		m->fifo_head = (m->fifo_head + 1) % m->pool;
		m->fifo_len--;
		if (m->used[a])
			continue;
		old = m->agtr[slot];
		m->used[old] = 0;
		m->used[a] = 1;
		m->agtr[slot] = (uint16_t)a;
		/* FIFO: a released aggregator comes back only after every other free one, so a
		 * late copy still holding it (loss, duplication) has long drained by then. */
		if (!m->orig[old])
			m->fifo[(m->fifo_head + m->fifo_len++) % m->pool] = old;
		return (int)a;
	}
	return -ENOSPC;
}

void atp_frame_build(uint8_t *f, const struct atp_pkt *h, bool to_ps, uint8_t wire_thread,
                     const uint8_t *value_bytes)
{
	memcpy(f, to_ps ? atp_ps_mac_prefix : atp_worker_mac_prefix, 5);
	f[5] = wire_thread;
	memcpy(f + 6, atp_src_mac, 6);
	atp_put16(f + 12, ATP_ETHERTYPE);
	memcpy(f + 14, atp_ip_template, sizeof(atp_ip_template));
	atp_put32(f + ATP_OFF_HDR, h->bitmap);
	f[ATP_OFF_HDR + 4] = h->num_worker;
	f[ATP_OFF_HDR + 5] = h->flag;
	atp_put16(f + ATP_OFF_HDR + 6, h->app);
	atp_put16(f + ATP_OFF_HDR + 8, h->seq);
	atp_put16(f + ATP_OFF_HDR + 10, h->agtr);
	atp_put16(f + ATP_OFF_HDR + 12, h->agtr2);
	if (value_bytes)
		memcpy(f + ATP_OFF_VALUES, value_bytes, ATP_VALUES * 4);
	else
		memset(f + ATP_OFF_VALUES, 0, ATP_VALUES * 4);
	for (unsigned i = 0; i < 8; i++)
		f[ATP_OFF_KEY + i] = (uint8_t)(h->key >> (8 * i)); /* LE */
	atp_put32(f + ATP_OFF_LEN, h->len);
}

int atp_frame_parse(const uint8_t *f, size_t len, struct atp_pkt *h)
{
	if (len < ATP_FRAME_LEN || atp_be16(f + 12) != ATP_ETHERTYPE)
		return -EINVAL;
	h->bitmap = atp_be32(f + ATP_OFF_HDR);
	h->num_worker = f[ATP_OFF_HDR + 4];
	h->flag = f[ATP_OFF_HDR + 5];
	h->app = atp_be16(f + ATP_OFF_HDR + 6);
	h->seq = atp_be16(f + ATP_OFF_HDR + 8);
	h->agtr = atp_be16(f + ATP_OFF_HDR + 10);
	h->agtr2 = atp_be16(f + ATP_OFF_HDR + 12);
	h->key = 0;
	for (unsigned i = 0; i < 8; i++)
		h->key |= (uint64_t)f[ATP_OFF_KEY + i] << (8 * i);
	h->len = atp_be32(f + ATP_OFF_LEN);
	h->ip_ecn = f[ATP_OFF_TOS] & 3u;
	return 0;
}

void atp_values_put(uint8_t *vb, const int32_t *v, unsigned n)
{
	for (unsigned i = 0; i < ATP_VALUES; i++)
		atp_put32(vb + 4 * i, i < n ? (uint32_t)v[i] : 0);
}

void atp_values_get(const uint8_t *vb, int32_t *v, unsigned n)
{
	for (unsigned i = 0; i < n && i < ATP_VALUES; i++)
		v[i] = (int32_t)atp_be32(vb + 4 * i);
}

void atp_floats_put(uint8_t *vb, const float *x, unsigned n)
{
	memset(vb, 0, ATP_VALUES * 4);
	memcpy(vb, x, 4 * (n < ATP_VALUES ? n : ATP_VALUES));
}

void atp_floats_get(const uint8_t *vb, float *x, unsigned n)
{
	memcpy(x, vb, 4 * (n < ATP_VALUES ? n : ATP_VALUES));
}

bool atp_float_scale(const float *x, unsigned n, double scale, unsigned nworkers, int32_t *q)
{
	double lim = (double)INT32_MAX / (nworkers ? nworkers : 1);

	for (unsigned i = 0; i < n; i++) {
		double s = (double)x[i] * scale;

		if (!(fabs(s) <= lim)) /* also catches NaN and inf */
			return true;
		q[i] = (int32_t)lrint(s);
	}
	for (unsigned i = n; i < ATP_VALUES; i++)
		q[i] = 0;
	return false;
}

static uint64_t gen_bits(uint64_t seed, unsigned id, uint64_t idx)
{
	return host_mix64(host_mix64(seed * 0x100000001b3ull + id) ^ idx);
}

/* ±2^24: the sum of 32 workers stays far from the int32 rails, so results are exact. */
int32_t atp_gen_int(uint64_t seed, unsigned id, uint64_t idx)
{
	return (int32_t)(gen_bits(seed, id, idx) & 0x1ffffffu) - (1 << 24);
}

/* Mostly in [-1, 1); one value in 4096 is ±[1e4, 1e5) and takes the overflow path. */
float atp_gen_float(uint64_t seed, unsigned id, uint64_t idx)
{
	uint64_t b = gen_bits(seed, id, idx);
	float u = (float)((double)(b >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;

	if (((b >> 8) & 4095u) == 0)
		return u < 0 ? -1e4f + u * 9e4f : 1e4f + u * 9e4f;
	return u;
}
