/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The aggregator arrays of one DATA packet with the entries found eight slots at a time in
 * AVX-512 registers (docs/ask.md, "Performance"). A pass of a packet meets ASK_AA_UNITS = 8
 * aggregator arrays, and lane u of a vector carries slot pass * 8 + u: its key and value out of
 * the packet, the entry hash (ask_hash, 64-bit multiplies), the row in the slot's active copy
 * (ask_row) and the entry's address in array u. The SALUs then run slot by slot, on those
 * addresses, through isw_kv_update_cell: the scalar path's own code. Entries are not gathered: on
 * the CPU this was measured on, a gather cost more than the scalar loads it replaces
 * (bench/README.md).
 *
 * The result is the scalar path's, entry for entry: test_simd_matches_scalar
 * (tests/unit/test_ask.c) runs the same traffic through both.
 *
 * Compiled for AVX-512 (F, DQ, BW, VL) function by function and entered only when the CPU has it
 * (ask_simd_supported); the rest of the build keeps DPDK's baseline instruction set. Fast build
 * only: strict mode, which counts every array access, runs the scalar path.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ask.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#define ASK_SIMD_TARGET __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))

bool ask_simd_supported(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
	       __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}

/* ask_hash(key, kb, ASK_SEED_ENTRY) of eight keys: a holds each key's first 8 bytes (a 4-byte key
 * zero-extended), b its second 8 (16-byte keys only). */
ASK_SIMD_TARGET static inline __m512i hash_x8(__m512i a, __m512i b, const unsigned kb)
{
	const __m512i seed = _mm512_set1_epi64(ASK_SEED_ENTRY);
	__m512i h = _mm512_mullo_epi64(_mm512_xor_si512(a, seed),
	                               _mm512_set1_epi64((long long)ASK_HASH_M1));
	if (kb == 16)
		h = _mm512_xor_si512(h,
		                     _mm512_mullo_epi64(_mm512_add_epi64(b, seed),
		                                        _mm512_set1_epi64((long long)ASK_HASH_M2)));
	else /* b = 0 */
		h = _mm512_xor_si512(h,
		                     _mm512_set1_epi64((long long)(ASK_SEED_ENTRY * ASK_HASH_M2)));
	h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 32));
	h = _mm512_mullo_epi64(h, _mm512_set1_epi64((long long)ASK_HASH_M3));
	return _mm512_xor_si512(h, _mm512_srli_epi64(h, 32));
}

/* ask_bswap32 of eight lanes: the packet's values are big-endian, the entries' host order. */
ASK_SIMD_TARGET static inline __m256i bswap32_x8(__m256i v)
{
	const __m256i idx = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,
	                                     3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
	return _mm256_shuffle_epi8(v, idx);
}

/* The slots of one pass, lane u for slot pass * 8 + u: key, value and entry address. */
struct lanes {
	__m512i key;  /* the key's first 8 bytes (a 4-byte key zero-extended) */
	__m512i key2; /* a 16-byte key's second 8 */
	__m512i addr; /* the entry: its ISW_KV_LANES cells */
	__m256i val;  /* host order */
};

ASK_SIMD_TARGET static __rte_always_inline void
lanes_load(struct lanes *l, const struct ask_conf *c, const struct ask_task *t, uint32_t active,
           const uint8_t *pay, unsigned pass, __mmask8 k, const unsigned kb)
{
	const unsigned rec = kb + ASK_VALUE_LEN;
	const uint8_t *r0 = pay + pass * ASK_AA_UNITS * rec; /* the pass's first record */
	/* Keys and values out of the packet. Plain loads and permutes: a gather is microcoded on
	 * some CPUs and slow. The loads take only the records of slots below nslots (a masked
	 * load does not touch, or fault on, the bytes it leaves out). */
	unsigned nrec = (unsigned)t->nslots - pass * ASK_AA_UNITS;
	nrec = nrec < ASK_AA_UNITS ? nrec : ASK_AA_UNITS;
	__m512i val;
	l->key2 = _mm512_setzero_si512();
	if (kb == 4) {
		/* 8-byte records: key | value, one 64-bit lane each. */
		__m512i r = _mm512_maskz_loadu_epi64((__mmask8)((1u << nrec) - 1), r0);
		l->key = _mm512_and_si512(r, _mm512_set1_epi64(0xFFFFFFFF));
		val = _mm512_srli_epi64(r, 32);
		l->val = _mm512_cvtepi64_epi32(val);
	} else if (kb == 8) {
		/* 12-byte records: lane u's key is 32-bit words 3u and 3u + 1, its value 3u + 2. */
		unsigned words = 3 * nrec;
		__m512i lo =
		        _mm512_maskz_loadu_epi32((__mmask16)((1u << RTE_MIN(words, 16u)) - 1), r0);
		__m512i hi = _mm512_maskz_loadu_epi32(
		        (__mmask16)((1u << (words > 16 ? words - 16 : 0)) - 1), r0 + 64);
		l->key = _mm512_permutex2var_epi32(
		        lo,
		        _mm512_setr_epi32(0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 22),
		        hi);
		val = _mm512_permutex2var_epi32(
		        lo, _mm512_setr_epi32(2, 5, 8, 11, 14, 17, 20, 23, 0, 0, 0, 0, 0, 0, 0, 0),
		        hi);
		l->val = _mm512_castsi512_si256(val);
	} else {
		/* 20-byte records: gathers (the rare width). */
		__m512i off = _mm512_mullo_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
		                                 _mm512_set1_epi64(rec));
		__m512i z = _mm512_setzero_si512();
		l->key = _mm512_mask_i64gather_epi64(z, k, off, r0, 1);
		l->key2 = _mm512_mask_i64gather_epi64(
		        z, k, _mm512_add_epi64(off, _mm512_set1_epi64(8)), r0, 1);
		l->val = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), k,
		                                     _mm512_add_epi64(off, _mm512_set1_epi64(16)),
		                                     r0, 1);
	}
	l->val = bswap32_x8(l->val);
	/* The row in the slot's active copy: ask_row(t, slot, copy, ask_key_entry(key)). */
	__m512i row =
	        _mm512_and_si512(hash_x8(l->key, l->key2, kb), _mm512_set1_epi64(t->aa_size - 1));
	row = _mm512_add_epi64(
	        row, _mm512_set1_epi64((long long)t->aa_base + (long long)pass * 2 * t->aa_size));
	__mmask8 copy1 = (__mmask8)(active >> (pass * ASK_AA_UNITS));
	row = _mm512_mask_add_epi64(row, copy1, row, _mm512_set1_epi64(t->aa_size));
	/* The entry in the lane's array: ISW_KV_LANES (6) cells of 4 bytes, 24 bytes, per row. */
	__m512i cell = _mm512_and_si512(row, _mm512_loadu_si512(c->aa_mask));
	l->addr = _mm512_add_epi64(
	        _mm512_loadu_si512(c->aa_cells),
	        _mm512_slli_epi64(_mm512_add_epi64(cell, _mm512_slli_epi64(cell, 1)), 3));
}

/*
 * One packet, for one key width and operator: every pass's lanes by vector, then each valid
 * slot's SALU on its entry.
 */
ASK_SIMD_TARGET static __rte_always_inline uint32_t aggregate_x8(
        const struct ask_conf *c, const struct ask_task *t, uint32_t active, const uint8_t *pay,
        uint32_t bitmap, const unsigned kb, const enum isw_kv_op op, uint32_t *claimed)
{
	const unsigned rec = kb + ASK_VALUE_LEN;
	uint64_t addr[ASK_SLOTS_MAX];
	uint32_t val[ASK_SLOTS_MAX];
	/* Every pass's lanes first, and the entries of the later passes prefetched: they are on
	 * their way while the first pass's SALUs run. */
	for (unsigned pass = 0, n = ask_passes(t->nslots); pass < n; pass++) {
		unsigned first = pass * ASK_AA_UNITS;
		__mmask8 k = (__mmask8)(bitmap >> first);
		if (k == 0)
			continue;
		struct lanes l;
		lanes_load(&l, c, t, active, pay, pass, k, kb);
		_mm512_storeu_si512(addr + first, l.addr);
		_mm256_storeu_si256((__m256i *)(val + first), l.val);
		if (pass > 0)
			for (unsigned m = k; m != 0; m &= m - 1)
				_mm_prefetch(
				        (const char *)(uintptr_t)addr[first + __builtin_ctz(m)],
				        _MM_HINT_T0);
	}
	uint32_t absorbed = 0, empty = 0;
	for (uint32_t b = bitmap; b != 0; b &= b - 1) {
		unsigned j = (unsigned)__builtin_ctz(b);
		enum isw_kv_res r = isw_kv_update_cell((uint32_t *)(uintptr_t)addr[j],
		                                       pay + j * rec, kb / 4, val[j], op);
		absorbed |= (uint32_t)(r != ISW_KV_OTHER) << j;
		empty |= (uint32_t)(r == ISW_KV_CLAIMED) << j;
	}
	*claimed = empty;
	return absorbed;
}

ASK_SIMD_TARGET static __rte_always_inline uint32_t
aggregate_kb(const struct ask_conf *c, const struct ask_task *t, uint32_t active,
             const uint8_t *pay, uint32_t bitmap, const unsigned kb, uint32_t *claimed)
{
	switch (t->op) {
	case ISW_KV_ADD:
		return aggregate_x8(c, t, active, pay, bitmap, kb, ISW_KV_ADD, claimed);
	case ISW_KV_MAX:
		return aggregate_x8(c, t, active, pay, bitmap, kb, ISW_KV_MAX, claimed);
	default:
		return aggregate_x8(c, t, active, pay, bitmap, kb, ISW_KV_MIN, claimed);
	}
}

ASK_SIMD_TARGET uint32_t ask_aggregate_x8(const struct ask_conf *c, const struct ask_task *t,
                                          uint32_t active, const uint8_t *pay, uint32_t bitmap,
                                          uint32_t *claimed)
{
	_Static_assert(ISW_KV_LANES == 6, "lanes_load multiplies rows by 24 bytes");
	switch (t->key_bytes) {
	case 4:
		return aggregate_kb(c, t, active, pay, bitmap, 4, claimed);
	case 8:
		return aggregate_kb(c, t, active, pay, bitmap, 8, claimed);
	default:
		return aggregate_kb(c, t, active, pay, bitmap, 16, claimed);
	}
}

ASK_SIMD_TARGET void ask_clear_x8(uint8_t *pay, unsigned nslots, unsigned kb, uint32_t bits)
{
	/* Records are whole 32-bit words (2, 3 or 5 of them): 16 words of payload at a time, each
	 * word zeroed when the slot it belongs to (word / w, by multiply and shift) is in bits. */
	const unsigned w = (kb + ASK_VALUE_LEN) / 4, words = nslots * w;
	const __m512i lane =
	        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	/* x / 3 = x * 0xAAAB >> 17 and x / 5 = x * 0xCCCD >> 18 for x < 2^16. */
	const __m512i mul = _mm512_set1_epi32(w == 2 ? 1 : w == 3 ? 0xAAAB : 0xCCCD);
	const unsigned shift = w == 2 ? 1 : w == 3 ? 17 : 18;
	__m512i lo = _mm512_movm_epi32((__mmask16)bits);
	__m512i hi = _mm512_movm_epi32((__mmask16)(bits >> 16));
	for (unsigned d = 0; d < words; d += 16) {
		__m512i x = _mm512_add_epi32(_mm512_set1_epi32((int)d), lane);
		__m512i slot = _mm512_srli_epi32(_mm512_mullo_epi32(x, mul), shift);
		__mmask16 z = _mm512_movepi32_mask(_mm512_permutex2var_epi32(lo, slot, hi));
		if (words - d < 16)
			z &= (__mmask16)((1u << (words - d)) - 1);
		_mm512_mask_storeu_epi32(pay + 4 * d, z, _mm512_setzero_si512());
	}
}

#else /* no x86-64 vector path */

bool ask_simd_supported(void)
{
	return false;
}

uint32_t ask_aggregate_x8(const struct ask_conf *c, const struct ask_task *t, uint32_t active,
                          const uint8_t *pay, uint32_t bitmap, uint32_t *claimed)
{
	(void)c, (void)t, (void)active, (void)pay, (void)bitmap;
	*claimed = 0;
	return 0; /* never called: simd is never set without AVX-512 */
}

void ask_clear_x8(uint8_t *pay, unsigned nslots, unsigned kb, uint32_t bits)
{
	(void)pay, (void)nslots, (void)kb, (void)bits;
}

#endif
