/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pure parts of the SyncAgtr worker: configuration checks, slicing, slot/set mapping, packet
 * build/parse, float quantisation, deterministic test tensors and verification. No I/O.
 */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host_rand.h"
#include "hx.h"
#include "sa_engine.h"

void sa_engine_cfg_default(struct sa_engine_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->workers = 1;
	cfg->switch_port = SA_UDP_PORT;
	cfg->worker_port = 4000;
	cfg->threads = 4;
	cfg->window = 128;
	cfg->elems = 256;
	cfg->type = SA_INT32;
	cfg->timeout_ms = 50;
	cfg->timeout_max_ms = 1000;
	cfg->first_timeout_ms = 250;
	cfg->give_up_s = 20;
	cfg->guard_ms = 3;
	cfg->transport = HX_AUTO;
}

unsigned sa_engine_cfg_slots(const struct sa_engine_cfg *cfg)
{
	return cfg->threads * cfg->window;
}

static int refuse(char *err, size_t errlen, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int sa_engine_cfg_check(const struct sa_engine_cfg *cfg, char *err, size_t errlen)
{
	if (cfg->workers < 1 || cfg->workers > SA_WORKERS_MAX)
		return refuse(err, errlen, "workers must be 1..%u", SA_WORKERS_MAX);
	if (cfg->rank >= cfg->workers)
		return refuse(err, errlen, "rank must be below the number of workers");
	if (cfg->threads < 1 || cfg->threads > SA_THREADS_MAX)
		return refuse(err, errlen, "threads must be 1..%u", SA_THREADS_MAX);
	if (cfg->window < 1 || cfg->window > SA_WINDOW_MAX)
		return refuse(err, errlen, "window must be 1..%u", SA_WINDOW_MAX);
	if (sa_engine_cfg_slots(cfg) > SA_SLOTS)
		return refuse(err, errlen, "threads * window must be at most %u slots", SA_SLOTS);
	if (sa_size_code(cfg->elems) == 0)
		return refuse(err, errlen, "elems must be 64 or 256");
	if ((unsigned)cfg->worker_port + cfg->threads > 65536 || cfg->worker_port == 0)
		return refuse(err, errlen,
		              "worker ports (worker_port + thread) must lie in 1..65535");
	if (cfg->timeout_ms < 1 || cfg->timeout_max_ms < cfg->timeout_ms)
		return refuse(err, errlen, "timeouts must satisfy 1 <= timeout <= timeout cap");
	if (cfg->first_timeout_ms > 60000)
		return refuse(err, errlen, "first-window timeout must be at most 60000 ms");
	if (cfg->give_up_s < 1)
		return refuse(err, errlen, "give-up time must be at least 1 s");
	if (cfg->guard_ms > 10000)
		return refuse(err, errlen, "guard must be at most 10000 ms");
	return 0;
}

void sa_slice(size_t count, unsigned threads, unsigned tid, size_t *off, size_t *len)
{
	size_t base = count / threads, rem = count % threads;

	*len = base + (tid < rem);
	*off = base * tid + (tid < rem ? tid : rem);
}

uint64_t sa_slice_packets(size_t len, unsigned elems, unsigned window, enum sa_dtype type)
{
	uint64_t blocks = (len + elems - 1) / elems;

	if (blocks == 0)
		return 0;
	return type == SA_FLOAT32 ? blocks + window : blocks;
}

void sa_slot_map(unsigned tid, unsigned window, uint32_t shift, uint64_t k, unsigned *slot,
                 unsigned *set)
{
	uint64_t cycle = 2ull * window;
	unsigned p = (unsigned)((k % cycle + shift) % cycle);

	*slot = tid * window + p % window;
	*set = p / window;
}

uint32_t sa_next_shift(uint32_t shift, uint64_t total, unsigned window)
{
	uint64_t cycle = 2ull * window;

	return (uint32_t)((shift + total % cycle) % cycle);
}

unsigned sa_size_code(unsigned elems)
{
	return elems == 64 ? SA_SIZE_64 : elems == 256 ? SA_SIZE_256 : 0;
}

void sa_pkt_put_hdr(uint8_t *buf, unsigned elems, uint8_t job, uint32_t tsi, unsigned slot,
                    unsigned set, int8_t e0)
{
	struct sa_hdr h;

	h.type_size = (uint8_t)(SA_MSG_TYPE << 4 | sa_size_code(elems));
	h.job_number = job;
	/* tsi is opaque to the switch; x86 SwitchML clients write it in host (little) order. */
	h.tsi[0] = (uint8_t)tsi;
	h.tsi[1] = (uint8_t)(tsi >> 8);
	h.tsi[2] = (uint8_t)(tsi >> 16);
	h.tsi[3] = (uint8_t)(tsi >> 24);
	sa_hdr_set_pool(&h, set, slot);
	h.e0 = e0;
	h.e1 = 0;
	memcpy(buf, &h, sizeof(h));
}

/*
 * The loops every packet's values pass (the float codec, the checksums) are built twice, for AVX2
 * and the baseline ISA, picked at load time from the CPU (as the switch's vector SALUs are,
 * dataplane/asic.h): with AVX2 a loop is eight words an instruction.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SA_VEC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SA_VEC_CLONES
#endif

/* Big-endian words on the wire; a byte swap and a plain access, which vectorise (four byte
 * stores do not). */
static void put_be32(uint8_t *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	memcpy(p, &v, sizeof(v));
}

static uint32_t get_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

SA_VEC_CLONES void sa_pkt_put_i32(uint8_t *buf, const int32_t *restrict src, size_t n,
                                  unsigned elems)
{
	uint8_t *v = buf + sizeof(struct sa_hdr);
	size_t i;

	for (i = 0; i < n; i++)
		put_be32(v + 4 * i, (uint32_t)src[i]);
	memset(v + 4 * n, 0, 4 * (elems - n));
}

/*
 * x * scale rounded to the nearest integer (ties to even, nearbyint's rounding) and clamped to
 * +-lim (an integer, so clamping first gives the same result); NaN gives 0. Written so that the
 * packet loop vectorises (bench/README.md, The float codec): NaN is cleared by a mask on its bits
 * (a select would be control flow), the clamps use the quiet comparisons (an ordered one may
 * trap, so it cannot be if-converted), and adding and taking away 1.5 * 2^52 rounds a double
 * below 2^51 in magnitude without a call into libm.
 */
static inline int32_t quantise(float x, double scale, double lim)
{
	const double round = 0x1.8p52;
	uint32_t bits;
	double v;

	memcpy(&bits, &x, sizeof(bits));
	bits &= -(uint32_t)((bits & 0x7fffffffu) <= 0x7f800000u);
	memcpy(&x, &bits, sizeof(x));
	v = (double)x * scale;
	v = __builtin_isgreater(v, lim) ? lim : v;
	v = __builtin_isless(v, -lim) ? -lim : v;
	return (int32_t)((v + round) - round);
}

SA_VEC_CLONES void sa_pkt_put_f32(uint8_t *buf, const float *restrict src, size_t n, unsigned elems,
                                  double scale, unsigned workers)
{
	uint8_t *restrict v = buf + sizeof(struct sa_hdr);
	double lim = (double)(INT32_MAX / (int32_t)workers);
	size_t i;

	for (i = 0; i < n; i++)
		put_be32(v + 4 * i, (uint32_t)quantise(src[i], scale, lim));
	memset(v + 4 * n, 0, 4 * (elems - n));
}

void sa_pkt_put_gen(uint8_t *buf, unsigned gen, int held)
{
	struct sa_hdr *h = (struct sa_hdr *)buf;

	h->pool_index[0] = (uint8_t)((h->pool_index[0] & ~(SA_POOL_GEN >> 8)) |
	                             ((gen & 1u) ? SA_POOL_GEN >> 8 : 0));
	h->type_size = (uint8_t)((h->type_size & ~SA_FLAG_HELD) | (held ? SA_FLAG_HELD : 0));
}

int sa_pkt_parse(const uint8_t *buf, size_t len, unsigned elems, struct sa_pkt *out)
{
	struct sa_hdr h;
	const uint8_t *n = buf + SA_PAYLOAD_LEN(elems);

	out->note = 0;
	if (len == SA_PAYLOAD_LEN(elems) + SA_NOTE_LEN && n[0] == SA_NOTE_MAGIC0 &&
	    n[1] == SA_NOTE_MAGIC1) {
		out->note = 1;
		out->note_gen = n[2];
		out->note_slots = get_be32(n + 8);
	} else if (len != SA_PAYLOAD_LEN(elems)) {
		return -EINVAL;
	}
	memcpy(&h, buf, sizeof(h));
	if (h.type_size >> 4 != SA_MSG_TYPE || sa_hdr_size(&h) != sa_size_code(elems))
		return -EINVAL;
	out->size = sa_hdr_size(&h);
	out->job = h.job_number;
	out->tsi = (uint32_t)h.tsi[0] | (uint32_t)h.tsi[1] << 8 | (uint32_t)h.tsi[2] << 16 |
	           (uint32_t)h.tsi[3] << 24;
	out->slot = sa_hdr_pool(&h) & SA_POOL_SLOT;
	out->set = (sa_hdr_pool(&h) & SA_POOL_SET) != 0;
	out->gen = (sa_hdr_pool(&h) & SA_POOL_GEN) != 0;
	out->e0 = h.e0;
	out->e1 = h.e1;
	out->values = buf + sizeof(h);
	return 0;
}

SA_VEC_CLONES void sa_pkt_get_i32(int32_t *restrict dst, const struct sa_pkt *p, size_t n)
{
	const uint8_t *restrict v = p->values;
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = (int32_t)get_be32(v + 4 * i);
}

SA_VEC_CLONES void sa_pkt_get_f32(float *restrict dst, const struct sa_pkt *p, size_t n,
                                  double scale)
{
	/* A multiplication by 1 / scale (rounded once) in place of a division: the result differs
	 * from the quotient by at most an ulp of a double, far below the float's rounding, and is
	 * the same on every worker (the same integers and scale). */
	const uint8_t *restrict v = p->values;
	double inv = 1.0 / scale;
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = (float)((double)(int32_t)get_be32(v + 4 * i) * inv);
}

SA_VEC_CLONES int8_t sa_exponent(const float *x, size_t n)
{
	uint32_t maxbits = 0, bits;
	int e;
	size_t i;

	/* |x| compares like its bit pattern with the sign cleared (NaN aside). */
	for (i = 0; i < n; i++) {
		memcpy(&bits, &x[i], sizeof(bits));
		bits &= 0x7fffffffu;
		maxbits = bits > maxbits ? bits : maxbits;
	}
	e = (int)((maxbits & 0x7f800000u) >> 23) - 126;
	return (int8_t)(e > 127 ? 127 : e);
}

double sa_scale(int emax, unsigned workers)
{
	return (double)INT32_MAX / ((double)workers * ldexp(1.0, emax));
}

int32_t sa_quantise(float x, double scale, unsigned workers)
{
	return quantise(x, scale, (double)(INT32_MAX / (int32_t)workers));
}

double sa_f32_bound(double exact, double scale, unsigned workers)
{
	/* One unit per worker, a hair more for x*scale being rounded in double, and the float
	 * result's own rounding (half an ulp, taken generously as 2^-23 relative). */
	return (double)workers * 1.001 / scale + fabs(exact) * 0x1p-23;
}

static uint64_t gen_bits(uint64_t seed, unsigned rank, uint64_t idx)
{
	return host_mix64(host_mix64(seed ^ host_mix64(rank + 1ull)) ^ idx);
}

int32_t sa_gen_i32(uint64_t seed, unsigned rank, uint64_t idx)
{
	return (int32_t)(uint32_t)(gen_bits(seed, rank, idx) >> 32);
}

/*
 * Floats in +-[2^(m-1), 2^m) with m varying by 1024-element region (-12..11) and by rank (so
 * workers disagree on block exponents), and every 13th 4096-element region all zero (the
 * SA_EXP_ZERO case).
 */
float sa_gen_f32(uint64_t seed, unsigned rank, uint64_t idx)
{
	uint64_t h = gen_bits(seed, rank, idx);
	int m = (int)((idx >> 10) % 24) - 12 + (int)(rank % 3);
	double frac = (double)(h >> 40) / 16777216.0; /* [0, 1) with 24 bits */

	if ((idx >> 12) % 13 == 7)
		return 0.0f;
	return (float)((h & 1 ? -1.0 : 1.0) * ldexp(0.5 + frac / 2, m));
}

/* Word j of the barrier pattern, the same on every worker. */
static uint32_t barrier_word(unsigned j)
{
	return (uint32_t)host_mix64(0x5341424152524945ull ^ j); /* "SABARRIE" */
}

void sa_barrier_values(int32_t *v, unsigned elems, unsigned rank)
{
	unsigned j;

	v[0] = (int32_t)(1u << rank);
	for (j = 1; j < elems; j++)
		v[j] = (int32_t)barrier_word(j);
}

int sa_barrier_check(const struct sa_pkt *p, unsigned elems, unsigned workers)
{
	int32_t got[SA_ELEMS_MAX];
	uint32_t all = workers == 32 ? UINT32_MAX : (1u << workers) - 1;
	unsigned j;

	sa_pkt_get_i32(got, p, elems);
	if ((uint32_t)got[0] != all)
		return 0;
	for (j = 1; j < elems; j++)
		if ((uint32_t)got[j] != workers * barrier_word(j))
			return 0;
	return 1;
}

void sa_gen(uint64_t seed, unsigned rank, enum sa_dtype type, void *dst, uint64_t first, size_t n)
{
	size_t i;

	if (type == SA_INT32) {
		int32_t *d = dst;
		for (i = 0; i < n; i++)
			d[i] = sa_gen_i32(seed, rank, first + i);
	} else {
		float *d = dst;
		for (i = 0; i < n; i++)
			d[i] = sa_gen_f32(seed, rank, first + i);
	}
}

static void verify_bad(struct sa_verify_result *res, size_t idx, double got, double want,
                       double bound)
{
	if (res->ok) {
		res->ok = 0;
		res->bad_index = idx;
		res->got = got;
		res->want = want;
		res->bound = bound;
	}
	res->bad_count++;
}

static void verify_i32(uint64_t seed, unsigned workers, const int32_t *out, size_t count,
                       struct sa_verify_result *res)
{
	size_t i;
	unsigned r;

	for (i = 0; i < count; i++) {
		uint32_t want = 0;
		for (r = 0; r < workers; r++)
			want += (uint32_t)sa_gen_i32(seed, r, i);
		if ((uint32_t)out[i] != want)
			verify_bad(res, i, out[i], (int32_t)want, 0);
	}
}

/* One block of float results: elements [first, first+n) travelled in one packet. */
static void verify_f32_block(uint64_t seed, unsigned workers, const float *out, size_t first,
                             size_t n, struct sa_verify_result *res)
{
	float x[SA_ELEMS_MAX];
	double want[SA_ELEMS_MAX] = {0};
	int emax = -128, e;
	double scale;
	size_t i;
	unsigned r;

	for (r = 0; r < workers; r++) {
		sa_gen(seed, r, SA_FLOAT32, x, first, n);
		e = sa_exponent(x, n);
		emax = e > emax ? e : emax;
		for (i = 0; i < n; i++)
			want[i] += x[i];
	}
	scale = sa_scale(emax, workers);
	for (i = 0; i < n; i++) {
		double err = fabs((double)out[first + i] - want[i]);
		double bound = sa_f32_bound(want[i], scale, workers);
		if (err > res->max_err)
			res->max_err = err;
		if (err / bound > res->max_err_ratio)
			res->max_err_ratio = err / bound;
		if (!(err <= bound)) /* NaN fails too */
			verify_bad(res, first + i, out[first + i], want[i], bound);
	}
}

void sa_verify(const struct sa_engine_cfg *cfg, uint64_t seed, const void *out, size_t count,
               struct sa_verify_result *res)
{
	size_t off, len, b;
	unsigned tid;

	memset(res, 0, sizeof(*res));
	res->ok = 1;
	if (cfg->type == SA_INT32) {
		verify_i32(seed, cfg->workers, out, count, res);
		return;
	}
	/* Blocks are laid out per thread slice, as the engine cut them. */
	for (tid = 0; tid < cfg->threads; tid++) {
		sa_slice(count, cfg->threads, tid, &off, &len);
		for (b = 0; b < len; b += cfg->elems) {
			size_t n = len - b < cfg->elems ? len - b : cfg->elems;
			verify_f32_block(seed, cfg->workers, out, off + b, n, res);
		}
	}
}

/* ---- the end-to-end check's checksums (sa_engine_set_checksums) ---- */

uint32_t sa_packet_weight(unsigned tid, uint64_t k)
{
	uint64_t x = (uint64_t)tid << 48 ^ k;

	x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ x >> 27) * 0x94d049bb133111ebull;
	return (uint32_t)(x ^ x >> 31) | 1u;
}

uint32_t sa_checksum_weight(unsigned i)
{
	uint32_t w = (uint32_t)i * 0x85ebca6bu + 0x9e3779b9u;

	w ^= w >> 15;
	w *= 0xc2b2ae35u;
	return (w ^ w >> 13) | 1u;
}

SA_VEC_CLONES void sa_checksum_add(uint32_t ck[2], const uint32_t *restrict posw,
                                   const uint8_t *restrict values, unsigned tid, uint64_t k,
                                   unsigned elems)
{
	uint32_t a = 0, b = 0;

	/* size_t, not unsigned: 4 * i must not wrap, or the loads are not seen as contiguous */
	for (size_t i = 0; i < elems; i++) {
		const uint8_t *q = values + 4 * i;
		uint32_t v =
		        (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
		a += v;
		b += v * posw[i];
	}
	ck[0] += a;
	ck[1] += b * sa_packet_weight(tid, k);
}
