/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulated switch ASIC: register arrays, the stateful ALU (SALU) operations that are the only
 * way a pipeline touches them, stage declarations checked against a resource profile, and the
 * strict-mode accounting of register accesses per packet pass.
 *
 * SALU operations run on worker lcores: they never allocate, lock, log or branch on the index
 * (indices are masked). Creating, listing and destroying register arrays, and checking a
 * declaration against a profile, happen on the control thread only.
 */
#ifndef ISW_ASIC_H
#define ISW_ASIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ISW_NAME_MAX      32
#define ISW_REG_MAX       256 /* register arrays alive at once, over all pipelines */
#define ISW_REG_CELLS_MAX (1u << 26)

enum isw_reg_kind {
	ISW_REG_U32 = 1,  /* one 32-bit cell per index */
	ISW_REG_PAIR = 2, /* two 32-bit cells (lo, hi) per index, updated by one SALU */
	ISW_REG_VEC = 3,  /* `lanes` 32-bit arrays indexed alike, one SALU each (see below) */
};

struct isw_pair {
	uint32_t lo;
	uint32_t hi;
};

struct isw_reg {
	uint32_t mask;  /* size - 1; every index is masked with it */
	uint16_t id;    /* slot in the registry, used by strict mode */
	uint8_t kind;   /* enum isw_reg_kind */
	uint8_t stage;  /* first stage (a vector spans several) */
	uint16_t lanes; /* 32-bit words per index: 1, 2 for pairs, the lane count for vectors */
	union {
		uint32_t *u32;
		struct isw_pair *pair;
	} cells;
	uint32_t size;
	char name[2 * ISW_NAME_MAX]; /* "pipeline.array" */
};

/*
 * Strict-mode state of one packet pass on one lcore. A pipeline compiled for strict mode passes a
 * pointer to it to every SALU call; the fast build passes NULL, and the accounting folds away.
 */
struct isw_pass {
	uint64_t touched[ISW_REG_MAX / 64];
	uint32_t recirc;
	uint32_t recirc_limit;
	uint64_t multi_access; /* accesses to an array already used in the same pass */
	uint64_t recirc_over;  /* recirculations refused for passing recirc_limit */
	uint16_t last_reg;     /* id of the array named by the most recent violation */
};

void isw_pass_violation(struct isw_pass *p, const struct isw_reg *r);

static inline void isw_pass_begin(struct isw_pass *p)
{
	if (p == NULL)
		return;
	for (unsigned i = 0; i < ISW_REG_MAX / 64; i++)
		p->touched[i] = 0;
	p->recirc = 0;
}

static inline void isw_pass_note(struct isw_pass *p, const struct isw_reg *r)
{
	if (p == NULL)
		return;
	uint64_t bit = UINT64_C(1) << (r->id & 63);
	uint64_t *w = &p->touched[r->id >> 6];
	if (*w & bit)
		isw_pass_violation(p, r);
	*w |= bit;
}

/* Counts one recirculation of the current packet; returns false once the limit is passed. */
static inline bool isw_pass_recirculate(struct isw_pass *p)
{
	if (p == NULL)
		return true;
	if (++p->recirc > p->recirc_limit) {
		p->recirc_over++;
		return false;
	}
	for (unsigned i = 0; i < ISW_REG_MAX / 64; i++)
		p->touched[i] = 0;
	return true;
}

/* ---- SALU operations on 32-bit cells. Each is one read-modify-write with one output. ---- */

static inline uint32_t *isw_cell(const struct isw_reg *r, uint32_t idx)
{
	return &r->cells.u32[idx & r->mask];
}

/* Map.get: returns the cell. */
static inline uint32_t isw_salu_read(struct isw_pass *p, const struct isw_reg *r, uint32_t idx)
{
	isw_pass_note(p, r);
	return *isw_cell(r, idx);
}

/* Stream.modify: stores v. */
static inline void isw_salu_write(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                  uint32_t v)
{
	isw_pass_note(p, r);
	*isw_cell(r, idx) = v;
}

/* Stream.modify that stores only a changed value (so lcores that keep writing the same value
 * do not take the cache line from one another); returns the value before. */
static inline uint32_t isw_salu_update(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                       uint32_t v)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	uint32_t old = *c;
	if (old != v)
		*c = v;
	return old;
}

/* Map.addTo: 32-bit wrap-around add; returns the new value. */
static inline uint32_t isw_salu_add(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                    uint32_t v)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	*c += v;
	return *c;
}

/* Signed add clamped to [INT32_MIN, INT32_MAX]; returns the new value. */
static inline int32_t isw_salu_sadd(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                    int32_t v)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	int64_t s = (int64_t)(int32_t)*c + v;
	if (s > INT32_MAX)
		s = INT32_MAX;
	else if (s < INT32_MIN)
		s = INT32_MIN;
	*c = (uint32_t)(int32_t)s;
	return (int32_t)s;
}

/* Signed max; returns the new value. */
static inline int32_t isw_salu_max(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                   int32_t v)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	if (v > (int32_t)*c)
		*c = (uint32_t)v;
	return (int32_t)*c;
}

/* Bit-set-and-test: ORs bits into the cell; returns the value before. */
static inline uint32_t isw_salu_bitset(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                       uint32_t bits)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	uint32_t old = *c;
	*c = old | bits;
	return old;
}

/* Bit-set-if-disjoint: ORs bits into the cell only when none of them is set there yet; returns the
 * value before (for a single bit, the same as isw_salu_bitset). */
static inline uint32_t isw_salu_bitset_disjoint(struct isw_pass *p, const struct isw_reg *r,
                                                uint32_t idx, uint32_t bits)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	uint32_t old = *c;
	if ((old & bits) == 0)
		*c = old | bits;
	return old;
}

/* Compare-and-claim: takes a free cell (0) or keeps one already holding key (key != 0).
 * Returns true when the cell holds key afterwards. */
static inline bool isw_salu_claim(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                  uint32_t key)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	if (*c == 0 || *c == key) {
		*c = key;
		return true;
	}
	return false;
}

/* Map.clear: returns the value and leaves zero. */
static inline uint32_t isw_salu_read_clear(struct isw_pass *p, const struct isw_reg *r,
                                           uint32_t idx)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	uint32_t old = *c;
	*c = 0;
	return old;
}

/* CntFwd: counts up; when the count reaches threshold it resets to zero and returns true. */
static inline bool isw_salu_count_to(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                     uint32_t threshold)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	if (++*c >= threshold) {
		*c = 0;
		return true;
	}
	return false;
}

/* ---- SALU operations on 32-bit pairs. ---- */

static inline struct isw_pair *isw_pair_cell(const struct isw_reg *r, uint32_t idx)
{
	return &r->cells.pair[idx & r->mask];
}

enum isw_claim {
	ISW_CLAIM_BUSY,  /* held by another key */
	ISW_CLAIM_OWN,   /* already held by this key */
	ISW_CLAIM_FRESH, /* taken now: it was free, or its holder's lease had run out */
};

/*
 * Compare-and-claim with a lease and a group epoch, on a pair (lo = holder key, 0 = free; hi = when
 * it was taken, in the caller's clock). A holder has lapsed, and the cell is taken over as if free
 * (*lapsed says so), when
 *  - its claim is older than lease (lease != 0), or
 *  - it is in key's group (lo and key equal on the bits of group) and its claim is not later than
 *    since: the group's current epoch began at since, and what the group claimed before belongs
 *    to an earlier one.
 * A claim taken now is dated now, or since + 1 if that is later (a claim in the epoch's first
 * millisecond must not pass for an earlier epoch's). A claim keeps its time while its holder owns
 * it: the lease bounds how long one aggregation may hold the cell. Times compare as signed
 * differences (wrapping clock; a claim dated a few ms ahead of now never lapses by the lease).
 * One SALU on a 64-bit pair.
 */
static inline enum isw_claim isw_salu_claim_lease(struct isw_pass *p, const struct isw_reg *r,
                                                  uint32_t idx, uint32_t key, uint32_t now,
                                                  uint32_t lease, uint32_t group, uint32_t since,
                                                  bool *lapsed)
{
	isw_pass_note(p, r);
	struct isw_pair *c = isw_pair_cell(r, idx);
	*lapsed = c->lo != 0 && ((lease != 0 && (int32_t)(now - c->hi) > (int32_t)lease) ||
	                         (((c->lo ^ key) & group) == 0 && (int32_t)(c->hi - since) <= 0));
	if (c->lo == key && !*lapsed)
		return ISW_CLAIM_OWN;
	if (c->lo != 0 && !*lapsed)
		return ISW_CLAIM_BUSY;
	c->lo = key;
	c->hi = (int32_t)(now - since) > 0 ? now : since + 1;
	return ISW_CLAIM_FRESH;
}

/* Compare-and-release on a pair: zeroes both halves if lo holds key; returns true if it did. */
static inline bool isw_salu_pair_release(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                         uint32_t key)
{
	isw_pass_note(p, r);
	struct isw_pair *c = isw_pair_cell(r, idx);
	if (c->lo != key)
		return false;
	c->lo = c->hi = 0;
	return true;
}

/*
 * The same, for a holder of the current epoch only: zeroes both halves if lo holds key and its
 * claim (hi) is later than since (isw_salu_claim_lease's group epoch); a claim of key made in an
 * earlier epoch has lapsed and is neither released nor owned. Returns true if it released.
 */
static inline bool isw_salu_pair_release_since(struct isw_pass *p, const struct isw_reg *r,
                                               uint32_t idx, uint32_t key, uint32_t since)
{
	isw_pass_note(p, r);
	struct isw_pair *c = isw_pair_cell(r, idx);
	if (c->lo != key || (int32_t)(c->hi - since) <= 0)
		return false;
	c->lo = c->hi = 0;
	return true;
}

static inline struct isw_pair isw_salu_pair_read(struct isw_pass *p, const struct isw_reg *r,
                                                 uint32_t idx)
{
	isw_pass_note(p, r);
	return *isw_pair_cell(r, idx);
}

static inline void isw_salu_pair_write(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                       struct isw_pair v)
{
	isw_pass_note(p, r);
	*isw_pair_cell(r, idx) = v;
}

/* Compare-and-set: when the cell holds (lo, hi), stores hi2 in its hi half. Returns the pair as
 * it was (the caller compares it with (lo, hi) to know whether it was set). */
static inline struct isw_pair isw_salu_pair_cas_hi(struct isw_pass *p, const struct isw_reg *r,
                                                   uint32_t idx, uint32_t lo, uint32_t hi,
                                                   uint32_t hi2)
{
	isw_pass_note(p, r);
	struct isw_pair *c = isw_pair_cell(r, idx);
	struct isw_pair old = *c;
	if (old.lo == lo && old.hi == hi)
		c->hi = hi2;
	return old;
}

/* Adds to both halves (wrap-around); returns the new pair. */
static inline struct isw_pair isw_salu_pair_add(struct isw_pass *p, const struct isw_reg *r,
                                                uint32_t idx, uint32_t lo, uint32_t hi)
{
	isw_pass_note(p, r);
	struct isw_pair *c = isw_pair_cell(r, idx);
	c->lo += lo;
	c->hi += hi;
	return *c;
}

/*
 * Shadow-copy bitmap update: ORs bits into the half chosen by sel (0 = lo, 1 = hi), clears them
 * in the other half, and returns the chosen half as it was before. One SALU on a 64-bit pair.
 */
static inline uint32_t isw_salu_pair_set_clear(struct isw_pass *p, const struct isw_reg *r,
                                               uint32_t idx, unsigned sel, uint32_t bits)
{
	isw_pass_note(p, r);
	struct isw_pair *c = isw_pair_cell(r, idx);
	uint32_t old;
	if (sel & 1) {
		old = c->hi;
		c->hi = old | bits;
		c->lo &= ~bits;
	} else {
		old = c->lo;
		c->lo = old | bits;
		c->hi &= ~bits;
	}
	return old;
}

/*
 * Exponent-style update of a pair: when first, stores (lo, hi); otherwise keeps the signed
 * maximum of each half. Returns the pair afterwards.
 */
static inline struct isw_pair isw_salu_pair_max(struct isw_pass *p, const struct isw_reg *r,
                                                uint32_t idx, bool first, int32_t lo, int32_t hi)
{
	isw_pass_note(p, r);
	struct isw_pair *c = isw_pair_cell(r, idx);
	if (first || lo > (int32_t)c->lo)
		c->lo = (uint32_t)lo;
	if (first || hi > (int32_t)c->hi)
		c->hi = (uint32_t)hi;
	return *c;
}

/*
 * Countdown of missing contributors: when first, or when the cell is already zero (a new
 * contribution to a round that completed: a new count starts, as SwitchML's workers_counter
 * does), stores n - 1; otherwise decrements. Returns true when the cell is zero afterwards
 * (the contribution that completes the round).
 */
static inline bool isw_salu_countdown(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                      bool first, uint32_t n)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	if (first || *c == 0)
		*c = n - 1;
	else
		--*c;
	return *c == 0;
}

/* ---- SALU operations on vector registers. ----
 *
 * A vector register stands for `lanes` separate 32-bit register arrays that a Tofino program
 * would declare one per element (SwitchML's value registers), indexed alike, each with its own
 * SALU, spread over consecutive stages. The model stores the lanes of one index contiguously so
 * a pass over them is a few cache lines, and counts one access per pass for the whole vector
 * (every lane's SALU runs once). Packet fields are big-endian, cells hold host-order values.
 */

static inline uint32_t *isw_vec_cell(const struct isw_reg *r, uint32_t idx)
{
	return &r->cells.u32[(size_t)(idx & r->mask) * r->lanes];
}

static inline uint32_t isw_be32_load(const void *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return __builtin_bswap32(v);
}

static inline void isw_be32_store(void *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

/*
 * Map.addTo over lanes 0..n-1 (n <= lanes) from a big-endian packet field: when first, stores
 * the field; otherwise adds it (32-bit wrap-around). When out is not NULL, also writes the new
 * cells to out, big-endian (out may be in). Inline with a constant n, the loops vectorise.
 */
static inline void isw_salu_vec_merge(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                      const void *in, unsigned n, bool first, void *out)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_vec_cell(r, idx);
	const uint8_t *src = in;
	uint8_t *dst = out;
	if (first)
		for (unsigned i = 0; i < n; i++)
			c[i] = isw_be32_load(src + 4 * i);
	else
		for (unsigned i = 0; i < n; i++)
			c[i] += isw_be32_load(src + 4 * i);
	if (dst != NULL)
		for (unsigned i = 0; i < n; i++)
			isw_be32_store(dst + 4 * i, c[i]);
}

/*
 * For the per-packet functions that run vector SALUs over many lanes: built twice, for AVX2 and
 * for the build's baseline ISA, and picked once at load time from the CPU (function
 * multi-versioning through an ifunc), so one binary runs on any x86-64 and uses 8-lane
 * operations where the CPU has them.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ISW_VEC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define ISW_VEC_CLONES
#endif

/* ---- Eight 32-bit lanes at a time (GCC vector extensions: one AVX2 instruction each in the
 * AVX2 clones, two SSE ones in the baseline build). ---- */

/* Always inlined, so each is built for the ISA of the function using it (an AVX2 clone). */
#define ISW_INLINE __attribute__((always_inline))

typedef uint32_t isw_u32x8 __attribute__((vector_size(32)));
typedef int32_t isw_i32x8 __attribute__((vector_size(32)));
typedef uint8_t isw_u8x32 __attribute__((vector_size(32)));

static inline ISW_INLINE isw_u32x8 isw_x8_load(const void *p)
{
	isw_u32x8 v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline ISW_INLINE void isw_x8_store(void *p, isw_u32x8 v)
{
	memcpy(p, &v, sizeof(v));
}

/* Each lane's bytes reversed: big-endian packet words to host order and back. */
static inline ISW_INLINE isw_u32x8 isw_x8_bswap(isw_u32x8 v)
{
	const isw_u8x32 rev = {3,  2,  1,  0,  7,  6,  5,  4,  11, 10, 9,  8,  15, 14, 13, 12,
	                       19, 18, 17, 16, 23, 22, 21, 20, 27, 26, 25, 24, 31, 30, 29, 28};
#if defined(__clang__)
	(void)rev;
	return (isw_u32x8)__builtin_shufflevector((isw_u8x32)v, (isw_u8x32)v, 3, 2, 1, 0, 7, 6, 5,
	                                          4, 11, 10, 9, 8, 15, 14, 13, 12, 19, 18, 17, 16,
	                                          23, 22, 21, 20, 27, 26, 25, 24, 31, 30, 29, 28);
#else
	return (isw_u32x8)__builtin_shuffle((isw_u8x32)v, rev);
#endif
}

/*
 * One lane of Tofino's saturating add with sticky rails (ATP): a cell strictly between
 * -INT32_MAX and INT32_MAX takes the sum, clamped to the int32 range; any other cell (a rail
 * reached before) keeps its value.
 */
static inline ISW_INLINE uint32_t isw_sadd_lane(uint32_t cur, uint32_t x)
{
	uint32_t sum = cur + x;
	/* Signed overflow iff both operands' signs differ from the sum's. */
	uint32_t ovf = 0u - (((cur ^ sum) & (x ^ sum)) >> 31);
	uint32_t rail = (cur >> 31) ? (uint32_t)INT32_MIN : (uint32_t)INT32_MAX;
	sum = (sum & ~ovf) | (rail & ovf);
	/* Live: INT32_MIN + 2 <= cur <= INT32_MAX - 1, shifted to 0..0xfffffffc. */
	uint32_t live = 0u - (uint32_t)(cur + 0x7ffffffeu < 0xfffffffdu);
	return (sum & live) | (cur & ~live);
}

/* isw_sadd_lane() on eight lanes. */
static inline ISW_INLINE isw_u32x8 isw_sadd_x8(isw_u32x8 cur, isw_u32x8 x)
{
	isw_i32x8 c = (isw_i32x8)cur, sum = (isw_i32x8)(cur + x);
	isw_i32x8 ovf = ((c ^ sum) & ((isw_i32x8)x ^ sum)) < 0;
	isw_i32x8 rail = (c >> 31) ^ INT32_MAX; /* INT32_MIN below zero, INT32_MAX from zero */
	sum = (rail & ovf) | (sum & ~ovf);
	/* Live: cur - 2 (wrapping) below INT32_MAX - 2, as a signed compare. */
	isw_i32x8 live = (isw_i32x8)(cur - 2u) < INT32_MAX - 2;
	return (isw_u32x8)((sum & live) | (c & ~live));
}

/*
 * The saturating add with sticky rails over lanes 0..n-1 from a big-endian packet field: when
 * first, stores the field; otherwise isw_sadd_lane() on every lane. When out is not NULL, writes
 * the new cells there, big-endian (out may be in).
 *
 * Eight lanes at a time. When n is not a multiple of 8, the last eight lanes are one more block
 * that overlaps the one before it: worked out first, from the cells and the field as they were,
 * and stored last, so where the blocks overlap both store the same values.
 */
static inline ISW_INLINE void isw_salu_vec_sadd(struct isw_pass *p, const struct isw_reg *r,
                                                uint32_t idx, const void *in, unsigned n,
                                                bool first, void *out)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_vec_cell(r, idx);
	const uint8_t *src = in;
	uint8_t *dst = out;
	if (n < 8) {
		for (unsigned i = 0; i < n; i++) {
			uint32_t x = isw_be32_load(src + 4 * i);
			c[i] = first ? x : isw_sadd_lane(c[i], x);
			if (dst != NULL)
				isw_be32_store(dst + 4 * i, c[i]);
		}
		return;
	}
	unsigned t = n - 8;
	isw_u32x8 tail = isw_x8_bswap(isw_x8_load(src + 4 * t));
	if (!first)
		tail = isw_sadd_x8(isw_x8_load(c + t), tail);
	for (unsigned i = 0; i + 8 <= n; i += 8) {
		isw_u32x8 v = isw_x8_bswap(isw_x8_load(src + 4 * i));
		if (!first)
			v = isw_sadd_x8(isw_x8_load(c + i), v);
		isw_x8_store(c + i, v);
		if (dst != NULL)
			isw_x8_store(dst + 4 * i, isw_x8_bswap(v));
	}
	isw_x8_store(c + t, tail);
	if (dst != NULL)
		isw_x8_store(dst + 4 * t, isw_x8_bswap(tail));
}

/* Compare-and-release: zeroes the cell if it holds key; returns true if it did. */
static inline bool isw_salu_release(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                    uint32_t key)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	if (*c != key)
		return false;
	*c = 0;
	return true;
}

/* Sets the bits of mask in the cell to those of v; returns the cell afterwards. */
static inline uint32_t isw_salu_bits_assign(struct isw_pass *p, const struct isw_reg *r,
                                            uint32_t idx, uint32_t mask, uint32_t v)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	*c = (*c & ~mask) | (v & mask);
	return *c;
}

/* Test-and-set of a tag: returns true when the cell already holds v, else stores v. */
static inline bool isw_salu_tag_test_set(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                         uint32_t v)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	if (*c == v)
		return true;
	*c = v;
	return false;
}

enum isw_win {
	ISW_WIN_OK = 0,    /* within the window; the high-water mark advanced if seq was later */
	ISW_WIN_STALE = 1, /* w or more behind the newest seq (d < -w) */
	ISW_WIN_AHEAD = 2, /* w or more beyond the next expected seq */
};

/*
 * Sliding-window check of a sequence number against a cell holding next = 1 + the newest seq
 * accepted (0 before any), in serial arithmetic so seqs may wrap. With d = seq - next as a signed
 * 32-bit number: d < -w is stale, d >= w is ahead, anything else is accepted and next becomes
 * seq + 1 when that is later. One SALU: a compare pair and a conditional store.
 */
static inline enum isw_win isw_salu_window(struct isw_pass *p, const struct isw_reg *r,
                                           uint32_t idx, uint32_t seq, uint32_t w)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_cell(r, idx);
	int32_t d = (int32_t)(seq - *c);
	if (d < -(int32_t)w)
		return ISW_WIN_STALE;
	if (d >= (int32_t)w)
		return ISW_WIN_AHEAD;
	if (d >= 0)
		*c = seq + 1;
	return ISW_WIN_OK;
}

/* ---- Key-value entries: a vector register of ISW_KV_LANES lanes per index. ----
 *
 * Lane 0 says whether the entry is used, lanes 1..4 hold the key (up to 16 bytes, as the bytes
 * appear in the packet), lane 5 the value in host order. On a Tofino each lane is an array with
 * its own SALU, chained through the stages (a key compare feeding the next lane's condition);
 * the model runs the chain as one operation and counts one access for the vector.
 */
#define ISW_KV_LANES     6u
#define ISW_KV_KEY_WORDS 4u

enum isw_kv_op {
	ISW_KV_ADD = 0, /* 32-bit wrap-around add */
	ISW_KV_MAX = 1, /* signed 32-bit maximum */
	ISW_KV_MIN = 2, /* signed 32-bit minimum */
};

enum isw_kv_res {
	ISW_KV_CLAIMED = 0,  /* the entry was empty: it holds key and value now */
	ISW_KV_COMBINED = 1, /* it held key: the value is combined in */
	ISW_KV_OTHER = 2,    /* it holds another key: nothing changed */
};

/* Does the entry's key (cells c) equal key, of words 32-bit words? Compared 64 bits at a time:
 * one compare for an 8-byte key, where word by word took five instructions. */
static inline bool isw_kv_key_eq(const uint32_t *c, const uint8_t *key, unsigned words)
{
	uint64_t diff = 0;
	unsigned i = 0;
	for (; i + 2 <= words; i += 2) {
		uint64_t a, b;
		memcpy(&a, c + i, 8);
		memcpy(&b, key + 4 * i, 8);
		diff |= a ^ b;
	}
	if (i < words) {
		uint32_t b;
		memcpy(&b, key + 4 * i, 4);
		diff |= c[i] ^ b;
	}
	return diff == 0;
}

/*
 * Compare-and-claim, then combine, on the ISW_KV_LANES cells of one entry: claims an empty
 * entry for key (words 32-bit words of key bytes) with value, combines value into an entry
 * holding key with op, and leaves an entry holding another key as it is. The SALU below, for
 * a caller that has the entry's address already (a pipeline's vector path).
 */
static inline enum isw_kv_res isw_kv_update_cell(uint32_t *c, const uint8_t *key, unsigned words,
                                                 uint32_t value, enum isw_kv_op op)
{
	if (c[0] == 0) {
		c[0] = 1;
		memset(&c[1], 0, 4u * ISW_KV_KEY_WORDS);
		memcpy(&c[1], key, 4u * words);
		c[5] = value;
		return ISW_KV_CLAIMED;
	}
	if (!isw_kv_key_eq(&c[1], key, words))
		return ISW_KV_OTHER;
	int32_t cur = (int32_t)c[5], v = (int32_t)value;
	if (op == ISW_KV_ADD)
		c[5] += value;
	else if (op == ISW_KV_MAX ? v > cur : v < cur)
		c[5] = value;
	return ISW_KV_COMBINED;
}

/* isw_kv_update_cell as a SALU on entry idx of r, which has ISW_KV_LANES lanes (a constant
 * stride: no multiply by r->lanes on the per-tuple path). */
static inline enum isw_kv_res isw_salu_kv_update(struct isw_pass *p, const struct isw_reg *r,
                                                 uint32_t idx, const uint8_t *key, unsigned words,
                                                 uint32_t value, enum isw_kv_op op)
{
	isw_pass_note(p, r);
	return isw_kv_update_cell(&r->cells.u32[(size_t)(idx & r->mask) * ISW_KV_LANES], key, words,
	                          value, op);
}

/* Map.clear of an entry: when it is used, copies key (words words) and value out, empties it
 * and returns true. */
static inline bool isw_salu_kv_take(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                    uint8_t *key, unsigned words, uint32_t *value)
{
	isw_pass_note(p, r);
	uint32_t *c = isw_vec_cell(r, idx);
	if (c[0] == 0)
		return false;
	memcpy(key, &c[1], 4u * words);
	*value = c[5];
	memset(c, 0, 4u * ISW_KV_LANES);
	return true;
}

/* Map.get over lanes 0..n-1, written big-endian to out. */
static inline void isw_salu_vec_read(struct isw_pass *p, const struct isw_reg *r, uint32_t idx,
                                     void *out, unsigned n)
{
	isw_pass_note(p, r);
	const uint32_t *c = isw_vec_cell(r, idx);
	uint8_t *dst = out;
	for (unsigned i = 0; i < n; i++)
		isw_be32_store(dst + 4 * i, c[i]);
}

/* ---- Declarations, profiles and the registry (control thread only). ---- */

struct isw_reg_decl {
	const char *name;
	uint8_t stage;
	uint8_t kind;  /* enum isw_reg_kind */
	uint32_t size; /* cells; a power of two */
	/* Vectors only: lane count, and lanes per stage (lane l sits in stage + l / per_stage). */
	uint16_t lanes;
	uint8_t lanes_per_stage;
};

struct isw_table_decl {
	const char *name;
	uint8_t stage;
	uint32_t entries;
	uint16_t entry_bytes; /* key + action data, as stored */
};

struct isw_asic_decl {
	const char *pipeline;
	const struct isw_reg_decl *regs;
	unsigned nb_regs;
	const struct isw_table_decl *tables;
	unsigned nb_tables;
};

struct isw_profile {
	const char *name;
	unsigned stages;
	unsigned salus_per_stage;  /* one stateful ALU per register array */
	unsigned tables_per_stage; /* logical match tables */
	uint64_t sram_per_stage;   /* bytes for register arrays and exact-match tables */
};

#define ISW_STAGES_MAX 32

struct isw_stage_use {
	unsigned salus;
	unsigned tables;
	uint64_t sram;
};

struct isw_asic_use {
	unsigned stages; /* highest used stage + 1 */
	struct isw_stage_use stage[ISW_STAGES_MAX];
};

/* Returns the named profile ("tofino1", "tofino2", "unlimited"), or NULL. */
const struct isw_profile *isw_profile_find(const char *name);

/* The profile pipelines are checked against; "tofino2" unless set. */
const struct isw_profile *isw_profile_current(void);
int isw_profile_set(const char *name);

/* Bytes of SRAM a register array or table occupies in the model. */
uint64_t isw_reg_decl_bytes(const struct isw_reg_decl *d);
uint64_t isw_table_decl_bytes(const struct isw_table_decl *t);

/*
 * Sums a declaration's use per stage into use (which may already hold other pipelines' use).
 * Returns 0, or -EINVAL with a message naming the array or table that is malformed.
 */
int isw_asic_account(const struct isw_asic_decl *d, struct isw_asic_use *use, char *err,
                     size_t errlen);

/*
 * Checks use against profile p. Returns 0 when it fits, or -ENOSPC with a message naming the
 * first stage and resource that is over (e.g. "stage 3: 5 stateful ALUs, tofino1 has 4").
 */
int isw_asic_fits(const struct isw_asic_use *use, const struct isw_profile *p, char *err,
                  size_t errlen);

/* isw_asic_account() then isw_asic_fits() for one declaration on its own. */
int isw_asic_check(const struct isw_asic_decl *d, const struct isw_profile *p, char *err,
                   size_t errlen);

/*
 * Allocates every register array of d, zeroed, and registers them as "pipeline.name". out[i]
 * receives the array of d->regs[i]. Returns 0 or -errno (message in err); on error nothing is
 * left allocated.
 */
int isw_reg_create_all(const struct isw_asic_decl *d, struct isw_reg **out, char *err,
                       size_t errlen);

/* Unregisters and frees arrays made by isw_reg_create_all(). */
void isw_reg_destroy_all(struct isw_reg **regs, unsigned n);

/* Registry lookups; the array pointers stay valid until destroyed. */
struct isw_reg *isw_reg_find(const char *name);
unsigned isw_reg_count(void);
struct isw_reg *isw_reg_at(unsigned i); /* i-th registered array in name order, or NULL */

/* Bytes of memory the array's cells take in the model's storage. */
uint64_t isw_reg_bytes(const struct isw_reg *r);
/* "u32", "pair" or "vector". */
const char *isw_reg_kind_name(unsigned kind);

/* Plain accessors for the control plane (callers make sure no worker runs the array meanwhile). */
/* half picks lo (0) or hi (1) of a pair, or the lane of a vector; ignored for u32 arrays. */
uint64_t isw_reg_get(const struct isw_reg *r, uint32_t idx, unsigned half);
void isw_reg_set(struct isw_reg *r, uint32_t idx, unsigned half, uint32_t v);
void isw_reg_clear(struct isw_reg *r);
/* Zeroes count cells from first (not masked: the range must lie inside the array). */
void isw_reg_clear_range(struct isw_reg *r, uint32_t first, uint32_t count);

#endif
