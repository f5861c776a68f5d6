/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the ASIC model (dataplane/asic.[ch]): SALU operations, masked indexing, resource
 * profiles and declaration checks, strict-mode accounting and the register registry.
 *
 * The registry is global: every test destroys the arrays it creates, and the teardown checks that
 * none is left behind and that the profile is back to the default.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "asic.h"

#define BLOCK (16u * 1024) /* the model's SRAM block */

/* ---- Helpers ---- */

/* Creates one array "t.<name>" in stage 0. */
static struct isw_reg *reg_new(const char *name, uint8_t kind, uint32_t size)
{
	struct isw_reg_decl rd = {.name = name, .stage = 0, .kind = kind, .size = size};
	struct isw_asic_decl d = {.pipeline = "t", .regs = &rd, .nb_regs = 1};
	struct isw_reg *r = NULL;
	char err[128] = "";

	int rc = isw_reg_create_all(&d, &r, err, sizeof(err));
	if (rc != 0)
		print_error("isw_reg_create_all: %s\n", err);
	assert_int_equal(rc, 0);
	assert_non_null(r);
	return r;
}

static void reg_del(struct isw_reg *r)
{
	isw_reg_destroy_all(&r, 1);
}

static void pass_init(struct isw_pass *p, uint32_t recirc_limit)
{
	memset(p, 0, sizeof(*p));
	p->recirc_limit = recirc_limit;
	p->last_reg = UINT16_MAX; /* so that a violation on array 0 is seen too */
	isw_pass_begin(p);
}

static void assert_has(const char *haystack, const char *needle)
{
	if (strstr(haystack, needle) == NULL)
		fail_msg("\"%s\" does not contain \"%s\"", haystack, needle);
}

static int setup(void **state)
{
	(void)state;
	assert_int_equal(isw_reg_count(), 0);
	return 0;
}

/* Fails a test that leaked arrays, after freeing them so that the next tests still run. */
static int teardown(void **state)
{
	(void)state;
	unsigned leaked = isw_reg_count();
	struct isw_reg *r;
	while ((r = isw_reg_at(0)) != NULL)
		isw_reg_destroy_all(&r, 1);
	assert_int_equal(isw_profile_set("tofino2"), 0);
	assert_int_equal(leaked, 0);
	return 0;
}

/* ---- SALU operations on 32-bit cells ---- */

static void test_salu_read(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("a", ISW_REG_U32, 16);

	isw_reg_set(r, 3, 0, 0xCAFEF00Du);
	assert_int_equal(isw_salu_read(NULL, r, 3), 0xCAFEF00Du);
	assert_int_equal(isw_salu_read(NULL, r, 3), 0xCAFEF00Du); /* reading does not change it */
	assert_int_equal(isw_salu_read(NULL, r, 2), 0);
	assert_int_equal(isw_salu_read(NULL, r, 4), 0);
	reg_del(r);
}

static void test_salu_write(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("a", ISW_REG_U32, 16);

	isw_salu_write(NULL, r, 5, 123456789u);
	assert_int_equal(isw_reg_get(r, 5, 0), 123456789u);
	isw_salu_write(NULL, r, 5, 0xFFFFFFFFu);
	assert_int_equal(isw_reg_get(r, 5, 0), 0xFFFFFFFFu);
	isw_salu_write(NULL, r, 5, 0);
	assert_int_equal(isw_reg_get(r, 5, 0), 0);
	assert_int_equal(isw_reg_get(r, 4, 0), 0);
	assert_int_equal(isw_reg_get(r, 6, 0), 0);
	reg_del(r);
}

static void test_salu_add(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("a", ISW_REG_U32, 16);

	assert_int_equal(isw_salu_add(NULL, r, 1, 5), 5);
	assert_int_equal(isw_salu_add(NULL, r, 1, 7), 12);
	assert_int_equal(isw_reg_get(r, 1, 0), 12);

	isw_reg_set(r, 2, 0, 0xFFFFFFFFu);
	assert_int_equal(isw_salu_add(NULL, r, 2, 2), 1); /* 32-bit wrap-around */
	assert_int_equal(isw_reg_get(r, 2, 0), 1);
	/* Adding 0xFFFFFFFF is subtracting one. */
	assert_int_equal(isw_salu_add(NULL, r, 1, 0xFFFFFFFFu), 11);
	reg_del(r);
}

static void test_salu_sadd(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("a", ISW_REG_U32, 16);

	/* Normal sums, signed. */
	assert_int_equal(isw_salu_sadd(NULL, r, 0, 10), 10);
	assert_int_equal(isw_salu_sadd(NULL, r, 0, -3), 7);
	assert_int_equal(isw_salu_sadd(NULL, r, 0, -17), -10);
	assert_int_equal(isw_reg_get(r, 0, 0), (uint32_t)-10);

	/* Clamp at INT32_MAX. */
	isw_reg_set(r, 1, 0, (uint32_t)(INT32_MAX - 1));
	assert_int_equal(isw_salu_sadd(NULL, r, 1, 5), INT32_MAX);
	assert_int_equal(isw_reg_get(r, 1, 0), 0x7FFFFFFFu);
	assert_int_equal(isw_salu_sadd(NULL, r, 1, INT32_MAX), INT32_MAX);
	assert_int_equal(isw_salu_sadd(NULL, r, 1, -1), INT32_MAX - 1); /* leaves the clamp */

	/* Clamp at INT32_MIN. */
	isw_reg_set(r, 2, 0, (uint32_t)(INT32_MIN + 1));
	assert_int_equal(isw_salu_sadd(NULL, r, 2, -5), INT32_MIN);
	assert_int_equal(isw_reg_get(r, 2, 0), 0x80000000u);
	assert_int_equal(isw_salu_sadd(NULL, r, 2, INT32_MIN), INT32_MIN);
	assert_int_equal(isw_salu_sadd(NULL, r, 2, 1), INT32_MIN + 1);

	/* Exactly reaching a bound is not clamping. */
	isw_reg_set(r, 3, 0, 0);
	assert_int_equal(isw_salu_sadd(NULL, r, 3, INT32_MAX), INT32_MAX);
	assert_int_equal(isw_salu_sadd(NULL, r, 3, INT32_MIN), -1);
	reg_del(r);
}

static void test_salu_max(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("a", ISW_REG_U32, 16);

	/* Signed compare: -5 (0xFFFFFFFB) is below 3. */
	isw_reg_set(r, 0, 0, (uint32_t)-5);
	assert_int_equal(isw_salu_max(NULL, r, 0, 3), 3);
	assert_int_equal(isw_reg_get(r, 0, 0), 3);
	assert_int_equal(isw_salu_max(NULL, r, 0, -5), 3);
	assert_int_equal(isw_reg_get(r, 0, 0), 3);

	/* Negative against a stored negative. */
	isw_reg_set(r, 1, 0, (uint32_t)-10);
	assert_int_equal(isw_salu_max(NULL, r, 1, -5), -5);
	assert_int_equal(isw_reg_get(r, 1, 0), (uint32_t)-5);
	assert_int_equal(isw_salu_max(NULL, r, 1, -20), -5);
	assert_int_equal(isw_reg_get(r, 1, 0), (uint32_t)-5);

	/* From an empty cell. */
	assert_int_equal(isw_salu_max(NULL, r, 2, -1), 0);
	assert_int_equal(isw_salu_max(NULL, r, 2, INT32_MAX), INT32_MAX);
	reg_del(r);
}

static void test_salu_bitset(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("a", ISW_REG_U32, 16);

	assert_int_equal(isw_salu_bitset(NULL, r, 4, 0x1), 0);
	assert_int_equal(isw_reg_get(r, 4, 0), 0x1);
	assert_int_equal(isw_salu_bitset(NULL, r, 4, 0x6), 0x1);
	assert_int_equal(isw_reg_get(r, 4, 0), 0x7);
	assert_int_equal(isw_salu_bitset(NULL, r, 4, 0x2), 0x7); /* already set: cell unchanged */
	assert_int_equal(isw_reg_get(r, 4, 0), 0x7);
	assert_int_equal(isw_salu_bitset(NULL, r, 4, 0x80000000u), 0x7);
	assert_int_equal(isw_reg_get(r, 4, 0), 0x80000007u);
	assert_int_equal(isw_reg_get(r, 5, 0), 0);
	reg_del(r);
}

static void test_salu_claim(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("a", ISW_REG_U32, 16);

	assert_true(isw_salu_claim(NULL, r, 7, 42)); /* free cell */
	assert_int_equal(isw_reg_get(r, 7, 0), 42);
	assert_true(isw_salu_claim(NULL, r, 7, 42)); /* same key: kept */
	assert_int_equal(isw_reg_get(r, 7, 0), 42);
	assert_false(isw_salu_claim(NULL, r, 7, 99)); /* other key: refused */
	assert_int_equal(isw_reg_get(r, 7, 0), 42);

	/* Another cell is independent; a freed cell can be claimed by another key. */
	assert_true(isw_salu_claim(NULL, r, 8, 99));
	assert_int_equal(isw_reg_get(r, 8, 0), 99);
	isw_reg_set(r, 7, 0, 0);
	assert_true(isw_salu_claim(NULL, r, 7, 99));
	assert_int_equal(isw_reg_get(r, 7, 0), 99);
	reg_del(r);
}

static void test_salu_read_clear(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("a", ISW_REG_U32, 16);

	isw_reg_set(r, 9, 0, 0x12345678u);
	isw_reg_set(r, 10, 0, 77);
	assert_int_equal(isw_salu_read_clear(NULL, r, 9), 0x12345678u);
	assert_int_equal(isw_reg_get(r, 9, 0), 0);
	assert_int_equal(isw_salu_read_clear(NULL, r, 9), 0);
	assert_int_equal(isw_reg_get(r, 10, 0), 77); /* neighbour untouched */
	reg_del(r);
}

static void test_salu_count_to(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("a", ISW_REG_U32, 16);

	assert_false(isw_salu_count_to(NULL, r, 0, 3));
	assert_int_equal(isw_reg_get(r, 0, 0), 1);
	assert_false(isw_salu_count_to(NULL, r, 0, 3));
	assert_int_equal(isw_reg_get(r, 0, 0), 2);
	assert_true(isw_salu_count_to(NULL, r, 0, 3));
	assert_int_equal(isw_reg_get(r, 0, 0), 0); /* reset at the threshold */

	/* Counts again from zero. */
	assert_false(isw_salu_count_to(NULL, r, 0, 3));
	assert_int_equal(isw_reg_get(r, 0, 0), 1);
	assert_false(isw_salu_count_to(NULL, r, 0, 3));
	assert_true(isw_salu_count_to(NULL, r, 0, 3));
	assert_int_equal(isw_reg_get(r, 0, 0), 0);

	/* Threshold 1 fires every time. */
	assert_true(isw_salu_count_to(NULL, r, 1, 1));
	assert_true(isw_salu_count_to(NULL, r, 1, 1));
	assert_int_equal(isw_reg_get(r, 1, 0), 0);
	reg_del(r);
}

/* ---- SALU operations on pairs ---- */

static void test_pair_read_write(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("p", ISW_REG_PAIR, 16);

	struct isw_pair v = isw_salu_pair_read(NULL, r, 3);
	assert_int_equal(v.lo, 0);
	assert_int_equal(v.hi, 0);

	isw_salu_pair_write(NULL, r, 3, (struct isw_pair){.lo = 0x11111111u, .hi = 0xEEEEEEEEu});
	v = isw_salu_pair_read(NULL, r, 3);
	assert_int_equal(v.lo, 0x11111111u);
	assert_int_equal(v.hi, 0xEEEEEEEEu);
	assert_int_equal(isw_reg_get(r, 3, 0), 0x11111111u);
	assert_int_equal(isw_reg_get(r, 3, 1), 0xEEEEEEEEu);

	/* Neighbours untouched. */
	v = isw_salu_pair_read(NULL, r, 2);
	assert_int_equal(v.lo, 0);
	assert_int_equal(v.hi, 0);
	v = isw_salu_pair_read(NULL, r, 4);
	assert_int_equal(v.lo, 0);
	assert_int_equal(v.hi, 0);
	reg_del(r);
}

static void test_pair_add(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("p", ISW_REG_PAIR, 16);

	struct isw_pair v = isw_salu_pair_add(NULL, r, 1, 3, 4);
	assert_int_equal(v.lo, 3);
	assert_int_equal(v.hi, 4);
	v = isw_salu_pair_add(NULL, r, 1, 10, 20);
	assert_int_equal(v.lo, 13);
	assert_int_equal(v.hi, 24);

	/* Each half wraps on its own, no carry from lo into hi. */
	isw_salu_pair_write(NULL, r, 2, (struct isw_pair){.lo = 0xFFFFFFFFu, .hi = 10});
	v = isw_salu_pair_add(NULL, r, 2, 2, 5);
	assert_int_equal(v.lo, 1);
	assert_int_equal(v.hi, 15);
	v = isw_salu_pair_add(NULL, r, 2, 0, 0xFFFFFFF6u); /* -10 */
	assert_int_equal(v.lo, 1);
	assert_int_equal(v.hi, 5);
	assert_int_equal(isw_reg_get(r, 2, 0), 1);
	assert_int_equal(isw_reg_get(r, 2, 1), 5);
	reg_del(r);
}

/* Claim with a lease and a group epoch (the owner pair of ATP), and the releases. */
static void test_pair_claim_lease_epoch(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("o", ISW_REG_PAIR, 16);
	const uint32_t g = 0xFFFF0000u, a7 = 1u << 16 | 7, a8 = 1u << 16 | 8, b7 = 2u << 16 | 7;
	bool lapsed;

	/* Free: taken, dated now; then owned, its date kept. */
	assert_int_equal(isw_salu_claim_lease(NULL, r, 1, a7, 100, 1000, g, 50, &lapsed),
	                 ISW_CLAIM_FRESH);
	assert_false(lapsed);
	assert_int_equal(isw_reg_get(r, 1, 1), 100);
	assert_int_equal(isw_salu_claim_lease(NULL, r, 1, a7, 150, 1000, g, 50, &lapsed),
	                 ISW_CLAIM_OWN);
	assert_int_equal(isw_reg_get(r, 1, 1), 100);
	/* Another key of the group, within the lease and the epoch: busy. */
	assert_int_equal(isw_salu_claim_lease(NULL, r, 1, a8, 150, 1000, g, 50, &lapsed),
	                 ISW_CLAIM_BUSY);
	/* The group's epoch moves past the claim: lapsed, for its own key too (not owned). */
	assert_int_equal(isw_salu_claim_lease(NULL, r, 1, a7, 150, 1000, g, 100, &lapsed),
	                 ISW_CLAIM_FRESH);
	assert_true(lapsed);
	assert_int_equal(isw_reg_get(r, 1, 1), 150);
	/* A key of another group (with its own epoch, since 0) finds it busy until the lease has
	 * run out. */
	assert_int_equal(isw_salu_claim_lease(NULL, r, 1, b7, 1100, 1000, g, 0, &lapsed),
	                 ISW_CLAIM_BUSY);
	assert_int_equal(isw_salu_claim_lease(NULL, r, 1, b7, 1151, 1000, g, 0, &lapsed),
	                 ISW_CLAIM_FRESH);
	assert_true(lapsed);
	/* A claim in the epoch's first ms (now <= since) is dated since + 1, so a later claim in
	 * the same ms does not take it for an earlier epoch's; one ahead of now never lapses by
	 * the lease. */
	assert_int_equal(
	        isw_salu_claim_lease(NULL, r, 2, a7, 0xFFFFFFFFu, 10, g, 0xFFFFFFFFu, &lapsed),
	        ISW_CLAIM_FRESH);
	assert_int_equal(isw_reg_get(r, 2, 1), 0);
	assert_int_equal(
	        isw_salu_claim_lease(NULL, r, 2, a7, 0xFFFFFFFFu, 10, g, 0xFFFFFFFFu, &lapsed),
	        ISW_CLAIM_OWN);
	assert_false(lapsed);
	/* Release in the epoch: not a claim made before since; then one after it. */
	assert_false(isw_salu_pair_release_since(NULL, r, 1, b7, 1151));
	assert_false(isw_salu_pair_release_since(NULL, r, 1, a7, 1000));
	assert_true(isw_salu_pair_release_since(NULL, r, 1, b7, 1150));
	assert_int_equal(isw_reg_get(r, 1, 0), 0);
	assert_int_equal(isw_reg_get(r, 1, 1), 0);
	/* The plain release: any claim of key. */
	assert_false(isw_salu_pair_release(NULL, r, 2, a8));
	assert_true(isw_salu_pair_release(NULL, r, 2, a7));
	assert_int_equal(isw_reg_get(r, 2, 0), 0);
	reg_del(r);
}

static void test_pair_set_clear_sel0(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("p", ISW_REG_PAIR, 16);

	isw_salu_pair_write(NULL, r, 0, (struct isw_pair){.lo = 0x0, .hi = 0xF});
	assert_int_equal(isw_salu_pair_set_clear(NULL, r, 0, 0, 0x3), 0x0);
	assert_int_equal(isw_reg_get(r, 0, 0), 0x3);
	assert_int_equal(isw_reg_get(r, 0, 1), 0xC);
	assert_int_equal(isw_salu_pair_set_clear(NULL, r, 0, 0, 0x4), 0x3);
	assert_int_equal(isw_reg_get(r, 0, 0), 0x7);
	assert_int_equal(isw_reg_get(r, 0, 1), 0x8);
	/* Bits already set: the old value shows them, nothing changes. */
	assert_int_equal(isw_salu_pair_set_clear(NULL, r, 0, 0, 0x1), 0x7);
	assert_int_equal(isw_reg_get(r, 0, 0), 0x7);
	assert_int_equal(isw_reg_get(r, 0, 1), 0x8);
	reg_del(r);
}

static void test_pair_set_clear_sel1(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("p", ISW_REG_PAIR, 16);

	isw_salu_pair_write(NULL, r, 5, (struct isw_pair){.lo = 0xF0, .hi = 0x1});
	assert_int_equal(isw_salu_pair_set_clear(NULL, r, 5, 1, 0x30), 0x1);
	assert_int_equal(isw_reg_get(r, 5, 0), 0xC0);
	assert_int_equal(isw_reg_get(r, 5, 1), 0x31);
	assert_int_equal(isw_salu_pair_set_clear(NULL, r, 5, 1, 0x80000000u), 0x31);
	assert_int_equal(isw_reg_get(r, 5, 0), 0xC0);
	assert_int_equal(isw_reg_get(r, 5, 1), 0x80000031u);
	reg_del(r);
}

/* SwitchML keeps two copies of each slot; a worker's packet for one copy clears its bit in the
 * other, so the other copy can be reused while this one is aggregated. */
static void test_pair_set_clear_switchml_shadow(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("p", ISW_REG_PAIR, 16);
	const uint32_t w2 = 1u << 2, w5 = 1u << 5;
	const uint32_t slot = 6;

	/* Round 1, set 0: workers 2 and 5 arrive; the first sees an empty bitmap. */
	assert_int_equal(isw_salu_pair_set_clear(NULL, r, slot, 0, w2), 0);
	assert_int_equal(isw_salu_pair_set_clear(NULL, r, slot, 0, w5), w2);
	assert_int_equal(isw_reg_get(r, slot, 0), w2 | w5);
	assert_int_equal(isw_reg_get(r, slot, 1), 0);
	/* A retransmission from worker 2 in set 0 is seen as a duplicate. */
	assert_int_equal(isw_salu_pair_set_clear(NULL, r, slot, 0, w2) & w2, w2);

	/* Round 2, set 1: worker 2 moves on; its bit leaves set 0. */
	assert_int_equal(isw_salu_pair_set_clear(NULL, r, slot, 1, w2), 0);
	assert_int_equal(isw_reg_get(r, slot, 0), w5);
	assert_int_equal(isw_reg_get(r, slot, 1), w2);
	/* Worker 5 follows; set 0 is empty again and set 1 holds both. */
	assert_int_equal(isw_salu_pair_set_clear(NULL, r, slot, 1, w5), w2);
	assert_int_equal(isw_reg_get(r, slot, 0), 0);
	assert_int_equal(isw_reg_get(r, slot, 1), w2 | w5);

	/* Round 3 back in set 0 clears set 1 the same way. */
	assert_int_equal(isw_salu_pair_set_clear(NULL, r, slot, 0, w5), 0);
	assert_int_equal(isw_reg_get(r, slot, 0), w5);
	assert_int_equal(isw_reg_get(r, slot, 1), w2);
	reg_del(r);
}

/* ---- Masked indexing ---- */

static void test_masked_index_u32(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("a", ISW_REG_U32, 8);

	assert_int_equal(r->mask, 7);
	assert_ptr_equal(isw_cell(r, 8), &r->cells.u32[0]);
	assert_ptr_equal(isw_cell(r, 0xFFFFFFFFu), &r->cells.u32[7]);

	isw_salu_write(NULL, r, 9, 0xAB); /* 9 & 7 == 1 */
	assert_int_equal(isw_reg_get(r, 1, 0), 0xAB);
	assert_int_equal(isw_salu_read(NULL, r, 1), 0xAB);
	assert_int_equal(isw_salu_read(NULL, r, 17), 0xAB);
	assert_int_equal(isw_salu_add(NULL, r, 0xFFFFFFFFu, 3), 3); /* cell 7 */
	assert_int_equal(isw_reg_get(r, 7, 0), 3);
	for (uint32_t i = 0; i < 8; i++)
		if (i != 1 && i != 7)
			assert_int_equal(isw_reg_get(r, i, 0), 0);

	/* The control-plane accessors mask too. */
	isw_reg_set(r, 8 + 4, 0, 44);
	assert_int_equal(isw_reg_get(r, 4, 0), 44);
	assert_int_equal(isw_reg_get(r, 4 + 8 * 1000, 0), 44);
	reg_del(r);
}

static void test_masked_index_pair(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("p", ISW_REG_PAIR, 4);

	assert_int_equal(r->mask, 3);
	assert_ptr_equal(isw_pair_cell(r, 6), &r->cells.pair[2]);
	assert_ptr_equal(isw_pair_cell(r, 0xFFFFFFFFu), &r->cells.pair[3]);

	isw_salu_pair_add(NULL, r, 6, 1, 2); /* 6 & 3 == 2 */
	assert_int_equal(isw_reg_get(r, 2, 0), 1);
	assert_int_equal(isw_reg_get(r, 2, 1), 2);
	assert_int_equal(isw_salu_pair_set_clear(NULL, r, 4 + 3, 1, 0x10), 0); /* cell 3 */
	assert_int_equal(isw_reg_get(r, 3, 1), 0x10);
	struct isw_pair v = isw_salu_pair_read(NULL, r, 10);
	assert_int_equal(v.lo, 1);
	assert_int_equal(v.hi, 2);
	assert_int_equal(isw_reg_get(r, 0, 0), 0);
	assert_int_equal(isw_reg_get(r, 0, 1), 0);
	assert_int_equal(isw_reg_get(r, 1, 0), 0);
	assert_int_equal(isw_reg_get(r, 1, 1), 0);

	isw_reg_set(r, 5, 1, 55); /* cell 1, hi */
	assert_int_equal(isw_reg_get(r, 1, 1), 55);
	assert_int_equal(isw_reg_get(r, 1, 0), 0);
	reg_del(r);
}

/* ---- Profiles and declaration checks ---- */

static void test_profile_find(void **state)
{
	(void)state;
	const struct isw_profile *p;

	p = isw_profile_find("tofino1");
	assert_non_null(p);
	assert_string_equal(p->name, "tofino1");
	assert_int_equal(p->stages, 12);
	assert_int_equal(p->salus_per_stage, 4);
	assert_int_equal(p->tables_per_stage, 16);
	assert_int_equal(p->sram_per_stage, 80ull * BLOCK);

	p = isw_profile_find("tofino2");
	assert_non_null(p);
	assert_string_equal(p->name, "tofino2");
	assert_int_equal(p->stages, 20);
	assert_int_equal(p->salus_per_stage, 4);
	assert_int_equal(p->tables_per_stage, 16);
	assert_int_equal(p->sram_per_stage, 80ull * BLOCK);

	p = isw_profile_find("unlimited");
	assert_non_null(p);
	assert_string_equal(p->name, "unlimited");
	assert_int_equal(p->stages, ISW_STAGES_MAX);

	assert_null(isw_profile_find("tofino3"));
	assert_null(isw_profile_find("Tofino1"));
	assert_null(isw_profile_find(""));
}

static void test_profile_set_current(void **state)
{
	(void)state;
	/* The teardown of every earlier test sets tofino2, the documented default. */
	assert_ptr_equal(isw_profile_current(), isw_profile_find("tofino2"));

	assert_int_equal(isw_profile_set("tofino1"), 0);
	assert_ptr_equal(isw_profile_current(), isw_profile_find("tofino1"));
	assert_string_equal(isw_profile_current()->name, "tofino1");

	assert_int_equal(isw_profile_set("nosuch"), -ENOENT);
	assert_ptr_equal(isw_profile_current(), isw_profile_find("tofino1")); /* unchanged */

	assert_int_equal(isw_profile_set("unlimited"), 0);
	assert_string_equal(isw_profile_current()->name, "unlimited");
	assert_int_equal(isw_profile_set("tofino2"), 0);
	assert_string_equal(isw_profile_current()->name, "tofino2");
}

static void test_decl_bytes(void **state)
{
	(void)state;
	/* Whole blocks, plus one spare block per register array. */
	struct isw_reg_decl r1 = {.name = "a", .kind = ISW_REG_U32, .size = 1};
	assert_int_equal(isw_reg_decl_bytes(&r1), 2 * BLOCK);
	struct isw_reg_decl r4k = {.name = "a", .kind = ISW_REG_U32, .size = 4096}; /* 16 KiB */
	assert_int_equal(isw_reg_decl_bytes(&r4k), 2 * BLOCK);
	struct isw_reg_decl r8k = {.name = "a", .kind = ISW_REG_U32, .size = 8192}; /* 32 KiB */
	assert_int_equal(isw_reg_decl_bytes(&r8k), 3 * BLOCK);
	struct isw_reg_decl p4k = {.name = "a", .kind = ISW_REG_PAIR, .size = 4096}; /* 32 KiB */
	assert_int_equal(isw_reg_decl_bytes(&p4k), 3 * BLOCK);
	struct isw_reg_decl p1m = {.name = "a", .kind = ISW_REG_PAIR, .size = 1u << 20}; /* 8 MiB */
	assert_int_equal(isw_reg_decl_bytes(&p1m), 513ull * BLOCK);

	/* Tables: whole blocks, no spare. */
	struct isw_table_decl t0 = {.name = "t", .entries = 0, .entry_bytes = 16};
	assert_int_equal(isw_table_decl_bytes(&t0), 0);
	struct isw_table_decl t1 = {.name = "t", .entries = 1000, .entry_bytes = 16};
	assert_int_equal(isw_table_decl_bytes(&t1), BLOCK);
	struct isw_table_decl t2 = {.name = "t", .entries = 1025, .entry_bytes = 16};
	assert_int_equal(isw_table_decl_bytes(&t2), 2 * BLOCK);
}

static void test_check_salus_per_stage(void **state)
{
	(void)state;
	const struct isw_profile *t1 = isw_profile_find("tofino1");
	struct isw_reg_decl regs[5];
	const char *names[5] = {"r0", "r1", "r2", "r3", "r4"};
	for (unsigned i = 0; i < 5; i++)
		regs[i] = (struct isw_reg_decl){
		        .name = names[i], .stage = 2, .kind = ISW_REG_U32, .size = 1024};
	struct isw_asic_decl d = {.pipeline = "big", .regs = regs, .nb_regs = 5};
	char err[256] = "";

	assert_int_equal(isw_asic_check(&d, t1, err, sizeof(err)), -ENOSPC);
	assert_has(err, "big");
	assert_has(err, "tofino1");
	assert_has(err, "stage 2");
	assert_has(err, "stateful ALUs");
	assert_has(err, "stage 2: 5 stateful ALUs, tofino1 has 4");

	/* Four is the limit and fits. */
	d.nb_regs = 4;
	err[0] = '\0';
	assert_int_equal(isw_asic_check(&d, t1, err, sizeof(err)), 0);

	/* Spread over two stages, five fit too. */
	regs[4].stage = 3;
	d.nb_regs = 5;
	assert_int_equal(isw_asic_check(&d, t1, err, sizeof(err)), 0);
}

static void test_check_stage_count(void **state)
{
	(void)state;
	struct isw_reg_decl reg = {.name = "late", .stage = 12, .kind = ISW_REG_U32, .size = 256};
	struct isw_asic_decl d = {.pipeline = "deep", .regs = &reg, .nb_regs = 1};
	char err[256] = "";

	assert_int_equal(isw_asic_check(&d, isw_profile_find("tofino1"), err, sizeof(err)),
	                 -ENOSPC);
	assert_has(err, "deep");
	assert_has(err, "stages");
	assert_has(err, "13 stages");
	assert_has(err, "tofino1 has 12");

	assert_int_equal(isw_asic_check(&d, isw_profile_find("tofino2"), err, sizeof(err)), 0);

	/* The last stage of tofino1 fits tofino1. */
	reg.stage = 11;
	assert_int_equal(isw_asic_check(&d, isw_profile_find("tofino1"), err, sizeof(err)), 0);
	/* And stage 20 is beyond tofino2. */
	reg.stage = 20;
	assert_int_equal(isw_asic_check(&d, isw_profile_find("tofino2"), err, sizeof(err)),
	                 -ENOSPC);
	assert_has(err, "21 stages");
}

static void test_check_sram(void **state)
{
	(void)state;
	struct isw_reg_decl reg = {
	        .name = "huge", .stage = 3, .kind = ISW_REG_PAIR, .size = 1u << 20};
	struct isw_asic_decl d = {.pipeline = "fat", .regs = &reg, .nb_regs = 1};
	char err[256] = "";

	assert_int_equal(isw_asic_check(&d, isw_profile_find("tofino1"), err, sizeof(err)),
	                 -ENOSPC);
	assert_has(err, "stage 3");
	assert_has(err, "SRAM");
	assert_has(err, "1280 KiB");
	assert_int_equal(isw_asic_check(&d, isw_profile_find("tofino2"), err, sizeof(err)),
	                 -ENOSPC);
	assert_has(err, "stage 3");
	assert_has(err, "SRAM");

	/* Exactly 80 blocks fits; one byte more is a block too many. 2^18 cells = 64 blocks + 1
	 * spare, and the table takes the remaining 15. */
	struct isw_reg_decl r = {.name = "r", .stage = 0, .kind = ISW_REG_U32, .size = 1u << 18};
	struct isw_table_decl t = {
	        .name = "t", .stage = 0, .entries = 15 * BLOCK, .entry_bytes = 1};
	struct isw_asic_decl e = {
	        .pipeline = "edge", .regs = &r, .nb_regs = 1, .tables = &t, .nb_tables = 1};
	assert_int_equal(isw_asic_check(&e, isw_profile_find("tofino1"), err, sizeof(err)), 0);
	t.entries++;
	assert_int_equal(isw_asic_check(&e, isw_profile_find("tofino1"), err, sizeof(err)),
	                 -ENOSPC);
	assert_has(err, "stage 0: 1296 KiB of SRAM, tofino1 has 1280 KiB");
}

static void test_check_tables_per_stage(void **state)
{
	(void)state;
	struct isw_table_decl tables[17];
	for (unsigned i = 0; i < 17; i++)
		tables[i] = (struct isw_table_decl){
		        .name = "t", .stage = 5, .entries = 64, .entry_bytes = 8};
	struct isw_asic_decl d = {.pipeline = "wide", .tables = tables, .nb_tables = 17};
	char err[256] = "";

	assert_int_equal(isw_asic_check(&d, isw_profile_find("tofino1"), err, sizeof(err)),
	                 -ENOSPC);
	assert_has(err, "stage 5");
	assert_has(err, "tables");
	assert_has(err, "17 tables");

	d.nb_tables = 16;
	assert_int_equal(isw_asic_check(&d, isw_profile_find("tofino1"), err, sizeof(err)), 0);
}

static void expect_einval(const struct isw_reg_decl *reg, const struct isw_table_decl *table,
                          const char *what)
{
	struct isw_asic_decl d = {.pipeline = "bad",
	                          .regs = reg,
	                          .nb_regs = reg != NULL,
	                          .tables = table,
	                          .nb_tables = table != NULL};
	struct isw_asic_use use;
	char err[256] = "";

	memset(&use, 0, sizeof(use));
	assert_int_equal(isw_asic_account(&d, &use, err, sizeof(err)), -EINVAL);
	assert_has(err, what);
	err[0] = '\0';
	assert_int_equal(isw_asic_check(&d, isw_profile_find("unlimited"), err, sizeof(err)),
	                 -EINVAL);
	assert_has(err, what);

	/* Creating it fails the same way and allocates nothing. */
	if (reg != NULL) {
		struct isw_reg *out = NULL;
		unsigned before = isw_reg_count();
		assert_int_equal(isw_reg_create_all(&d, &out, err, sizeof(err)), -EINVAL);
		assert_int_equal(isw_reg_count(), before);
		assert_null(isw_reg_find("bad.x"));
	}
}

static void test_decl_einval(void **state)
{
	(void)state;
	struct isw_reg_decl r = {.name = "x", .stage = 0, .kind = ISW_REG_U32};

	r.size = 1000; /* not a power of two */
	expect_einval(&r, NULL, "bad.x: size 1000");
	r.size = 0;
	expect_einval(&r, NULL, "bad.x: size 0");
	r.size = 3;
	expect_einval(&r, NULL, "power of two");
	r.size = ISW_REG_CELLS_MAX << 1; /* a power of two, but too big */
	expect_einval(&r, NULL, "bad.x: size");

	r.size = 64;
	r.kind = 9;
	expect_einval(&r, NULL, "bad.x: unknown register kind 9");
	r.kind = ISW_REG_VEC; /* a vector without lanes */
	expect_einval(&r, NULL, "bad.x: a vector needs lanes and lanes per stage");
	r.kind = 0;
	expect_einval(&r, NULL, "unknown register kind 0");

	r.kind = ISW_REG_PAIR;
	r.stage = ISW_STAGES_MAX;
	expect_einval(&r, NULL, "bad.x: stage 32");
	r.stage = 255;
	expect_einval(&r, NULL, "stage 255");

	struct isw_table_decl t = {.name = "tab", .stage = ISW_STAGES_MAX, .entries = 1};
	expect_einval(NULL, &t, "bad.tab: stage 32");

	/* The limits themselves are accepted. */
	struct isw_asic_use use;
	char err[128];
	r.stage = ISW_STAGES_MAX - 1;
	r.size = ISW_REG_CELLS_MAX;
	struct isw_asic_decl d = {.pipeline = "ok", .regs = &r, .nb_regs = 1};
	memset(&use, 0, sizeof(use));
	assert_int_equal(isw_asic_account(&d, &use, err, sizeof(err)), 0);
	assert_int_equal(use.stages, ISW_STAGES_MAX);
}

static void test_unlimited_accepts_big(void **state)
{
	(void)state;
	const struct isw_profile *u = isw_profile_find("unlimited");
	char err[256] = "";

	/* Everything refused by tofino1/2 above, in one declaration. */
	struct isw_reg_decl regs[8];
	const char *names[5] = {"r0", "r1", "r2", "r3", "r4"};
	for (unsigned i = 0; i < 5; i++)
		regs[i] = (struct isw_reg_decl){
		        .name = names[i], .stage = 2, .kind = ISW_REG_U32, .size = 1024};
	regs[5] = (struct isw_reg_decl){
	        .name = "huge", .stage = 3, .kind = ISW_REG_PAIR, .size = 1u << 20};
	regs[6] = (struct isw_reg_decl){
	        .name = "late", .stage = 12, .kind = ISW_REG_U32, .size = 256};
	regs[7] = (struct isw_reg_decl){
	        .name = "last", .stage = ISW_STAGES_MAX - 1, .kind = ISW_REG_U32, .size = 256};
	struct isw_table_decl tables[17];
	for (unsigned i = 0; i < 17; i++)
		tables[i] = (struct isw_table_decl){
		        .name = "t", .stage = 5, .entries = 1u << 20, .entry_bytes = 64};
	struct isw_asic_decl d = {
	        .pipeline = "big", .regs = regs, .nb_regs = 8, .tables = tables, .nb_tables = 17};

	assert_int_equal(isw_asic_check(&d, u, err, sizeof(err)), 0);
	assert_int_equal(isw_asic_check(&d, isw_profile_find("tofino2"), err, sizeof(err)),
	                 -ENOSPC);
}

static void test_tofino1_accepts_reasonable(void **state)
{
	(void)state;
	/* A SwitchML-like layout: a bitmap pair and a counter in stage 0, four 16 Ki-cell
	 * aggregation arrays in each of stages 1-4, a forwarding table in stage 0. */
	static const char *names[16] = {"a0", "a1", "a2",  "a3",  "a4",  "a5",  "a6",  "a7",
	                                "a8", "a9", "a10", "a11", "a12", "a13", "a14", "a15"};
	struct isw_reg_decl regs[18];
	regs[0] = (struct isw_reg_decl){
	        .name = "bitmap", .stage = 0, .kind = ISW_REG_PAIR, .size = 1024};
	regs[1] = (struct isw_reg_decl){
	        .name = "count", .stage = 0, .kind = ISW_REG_U32, .size = 1024};
	for (unsigned i = 0; i < 16; i++)
		regs[2 + i] = (struct isw_reg_decl){.name = names[i],
		                                    .stage = (uint8_t)(1 + i / 4),
		                                    .kind = ISW_REG_U32,
		                                    .size = 1u << 14};
	struct isw_table_decl fwd = {.name = "fwd", .stage = 0, .entries = 1024, .entry_bytes = 16};
	struct isw_asic_decl d = {
	        .pipeline = "sml", .regs = regs, .nb_regs = 18, .tables = &fwd, .nb_tables = 1};
	char err[256] = "";

	int rc = isw_asic_check(&d, isw_profile_find("tofino1"), err, sizeof(err));
	if (rc != 0)
		print_error("%s\n", err);
	assert_int_equal(rc, 0);

	/* And the use it is charged with, exactly. */
	struct isw_asic_use use;
	memset(&use, 0, sizeof(use));
	assert_int_equal(isw_asic_account(&d, &use, err, sizeof(err)), 0);
	assert_int_equal(use.stages, 5);
	assert_int_equal(use.stage[0].salus, 2);
	assert_int_equal(use.stage[0].tables, 1);
	assert_int_equal(use.stage[0].sram, (2 + 2 + 1) * (uint64_t)BLOCK);
	for (unsigned s = 1; s <= 4; s++) {
		assert_int_equal(use.stage[s].salus, 4);
		assert_int_equal(use.stage[s].tables, 0);
		assert_int_equal(use.stage[s].sram, 4 * 5 * (uint64_t)BLOCK);
	}
	assert_int_equal(use.stage[5].salus, 0);
	assert_int_equal(use.stage[5].sram, 0);

	/* It can be created, too. */
	struct isw_reg *out[18];
	assert_int_equal(isw_reg_create_all(&d, out, err, sizeof(err)), 0);
	assert_int_equal(isw_reg_count(), 18);
	isw_reg_destroy_all(out, 18);
}

static void test_account_accumulates(void **state)
{
	(void)state;
	const struct isw_profile *t1 = isw_profile_find("tofino1");
	struct isw_reg_decl ra[3] = {
	        {.name = "x", .stage = 1, .kind = ISW_REG_U32, .size = 4096},
	        {.name = "y", .stage = 1, .kind = ISW_REG_U32, .size = 4096},
	        {.name = "z", .stage = 1, .kind = ISW_REG_U32, .size = 4096},
	};
	struct isw_reg_decl rb[3] = {
	        {.name = "u", .stage = 1, .kind = ISW_REG_PAIR, .size = 4096},
	        {.name = "v", .stage = 1, .kind = ISW_REG_U32, .size = 4096},
	        {.name = "w", .stage = 4, .kind = ISW_REG_U32, .size = 4096},
	};
	struct isw_table_decl tb = {.name = "t", .stage = 2, .entries = 10, .entry_bytes = 10};
	struct isw_asic_decl a = {.pipeline = "a", .regs = ra, .nb_regs = 3};
	struct isw_asic_decl b = {
	        .pipeline = "b", .regs = rb, .nb_regs = 3, .tables = &tb, .nb_tables = 1};
	struct isw_asic_use use;
	char err[256] = "";

	/* Each alone fits. */
	assert_int_equal(isw_asic_check(&a, t1, err, sizeof(err)), 0);
	assert_int_equal(isw_asic_check(&b, t1, err, sizeof(err)), 0);

	/* Together they do not. */
	memset(&use, 0, sizeof(use));
	assert_int_equal(isw_asic_account(&a, &use, err, sizeof(err)), 0);
	assert_int_equal(use.stages, 2);
	assert_int_equal(use.stage[1].salus, 3);
	assert_int_equal(isw_asic_fits(&use, t1, err, sizeof(err)), 0);
	assert_int_equal(isw_asic_account(&b, &use, err, sizeof(err)), 0);
	assert_int_equal(use.stages, 5);
	assert_int_equal(use.stage[1].salus, 5);
	assert_int_equal(use.stage[1].sram, (3 * 2 + 3 + 2) * (uint64_t)BLOCK);
	assert_int_equal(use.stage[2].tables, 1);
	assert_int_equal(use.stage[2].sram, BLOCK);
	assert_int_equal(use.stage[4].salus, 1);
	assert_int_equal(use.stage[0].salus, 0);

	err[0] = '\0';
	assert_int_equal(isw_asic_fits(&use, t1, err, sizeof(err)), -ENOSPC);
	assert_string_equal(err, "stage 1: 5 stateful ALUs, tofino1 has 4");
	assert_int_equal(isw_asic_fits(&use, isw_profile_find("unlimited"), err, sizeof(err)), 0);
}

/* ---- Strict mode ---- */

static void test_strict_distinct_arrays(void **state)
{
	(void)state;
	struct isw_reg *a = reg_new("a", ISW_REG_U32, 16);
	struct isw_reg *b = reg_new("b", ISW_REG_U32, 16);
	struct isw_reg *c = reg_new("c", ISW_REG_PAIR, 16);
	struct isw_pass p;

	assert_int_not_equal(a->id, b->id);
	assert_int_not_equal(a->id, c->id);
	pass_init(&p, 4);
	isw_salu_read(&p, a, 0);
	isw_salu_write(&p, b, 0, 1);
	isw_salu_pair_set_clear(&p, c, 0, 1, 1);
	assert_int_equal(p.multi_access, 0);
	assert_int_equal(p.last_reg, UINT16_MAX);
	assert_int_equal(p.recirc_over, 0);
	/* The accesses were still performed. */
	assert_int_equal(isw_reg_get(b, 0, 0), 1);
	assert_int_equal(isw_reg_get(c, 0, 1), 1);

	reg_del(c);
	reg_del(b);
	reg_del(a);
}

static void test_strict_same_array_twice(void **state)
{
	(void)state;
	/* The violating array is the second one, so its id is not 0. */
	struct isw_reg *a = reg_new("a", ISW_REG_U32, 16);
	struct isw_reg *b = reg_new("b", ISW_REG_U32, 16);
	struct isw_reg *c = reg_new("c", ISW_REG_PAIR, 16);
	struct isw_pass p;

	assert_int_not_equal(b->id, 0);
	pass_init(&p, 4);
	isw_salu_read(&p, a, 0);
	isw_salu_read(&p, b, 0);
	assert_int_equal(p.multi_access, 0);
	isw_salu_write(&p, b, 1, 5); /* another op, another index: still the same array */
	assert_int_equal(p.multi_access, 1);
	assert_int_equal(p.last_reg, b->id);
	assert_int_equal(isw_reg_get(b, 1, 0), 5); /* the access still happens */

	/* Other op kinds in a new pass, on the pair array. */
	isw_pass_begin(&p);
	isw_salu_pair_read(&p, c, 3);
	isw_salu_pair_add(&p, c, 3, 1, 1);
	assert_int_equal(p.multi_access, 2);
	assert_int_equal(p.last_reg, c->id);

	/* Bitset then claim on a. */
	isw_pass_begin(&p);
	isw_salu_bitset(&p, a, 0, 1);
	isw_salu_claim(&p, a, 1, 9);
	assert_int_equal(p.multi_access, 3);
	assert_int_equal(p.last_reg, a->id);

	reg_del(c);
	reg_del(b);
	reg_del(a);
}

static void test_strict_every_op_is_noted(void **state)
{
	(void)state;
	struct isw_reg *u = reg_new("u", ISW_REG_U32, 16);
	struct isw_reg *w = reg_new("w", ISW_REG_PAIR, 16);
	struct isw_pass p;

	/* Each op, preceded by a read of the same array in the same pass, is one violation. */
	pass_init(&p, 0);
	uint64_t n = 0;
#define SECOND(op)                                     \
	do {                                           \
		isw_pass_begin(&p);                    \
		isw_salu_read(&p, u, 0);               \
		op;                                    \
		assert_int_equal(p.multi_access, ++n); \
	} while (0)
	SECOND(isw_salu_read(&p, u, 1));
	SECOND(isw_salu_write(&p, u, 1, 1));
	SECOND(isw_salu_add(&p, u, 1, 1));
	SECOND(isw_salu_sadd(&p, u, 1, 1));
	SECOND(isw_salu_max(&p, u, 1, 1));
	SECOND(isw_salu_bitset(&p, u, 1, 1));
	SECOND(isw_salu_claim(&p, u, 1, 1));
	SECOND(isw_salu_read_clear(&p, u, 1));
	SECOND(isw_salu_count_to(&p, u, 1, 5));
#undef SECOND
#define SECOND(op)                                     \
	do {                                           \
		isw_pass_begin(&p);                    \
		isw_salu_pair_read(&p, w, 0);          \
		op;                                    \
		assert_int_equal(p.multi_access, ++n); \
		assert_int_equal(p.last_reg, w->id);   \
	} while (0)
	SECOND(isw_salu_pair_read(&p, w, 1));
	SECOND(isw_salu_pair_write(&p, w, 1, (struct isw_pair){1, 2}));
	SECOND(isw_salu_pair_add(&p, w, 1, 1, 1));
	SECOND(isw_salu_pair_set_clear(&p, w, 1, 0, 1));
#undef SECOND
	assert_int_equal(n, 13);

	reg_del(w);
	reg_del(u);
}

static void test_strict_new_pass_resets(void **state)
{
	(void)state;
	struct isw_reg *a = reg_new("a", ISW_REG_U32, 16);
	struct isw_pass p;

	pass_init(&p, 4);
	isw_salu_read(&p, a, 0);
	isw_pass_begin(&p);
	isw_salu_read(&p, a, 0);
	assert_int_equal(p.multi_access, 0);

	/* The violation count survives a new pass. */
	isw_salu_add(&p, a, 0, 1);
	assert_int_equal(p.multi_access, 1);
	isw_pass_begin(&p);
	assert_int_equal(p.multi_access, 1);
	assert_int_equal(p.recirc, 0);
	isw_salu_add(&p, a, 0, 1);
	assert_int_equal(p.multi_access, 1);

	reg_del(a);
}

static void test_strict_null_pass(void **state)
{
	(void)state;
	struct isw_reg *a = reg_new("a", ISW_REG_U32, 16);

	isw_pass_begin(NULL);
	isw_salu_write(NULL, a, 2, 10);
	assert_int_equal(isw_salu_add(NULL, a, 2, 5), 15);
	assert_int_equal(isw_salu_read(NULL, a, 2), 15);
	assert_int_equal(isw_salu_read_clear(NULL, a, 2), 15);
	for (unsigned i = 0; i < 100; i++)
		assert_true(isw_pass_recirculate(NULL)); /* no limit without a pass */
	assert_int_equal(isw_salu_read(NULL, a, 2), 0);

	reg_del(a);
}

static void test_strict_recirc_limit(void **state)
{
	(void)state;
	struct isw_pass p;

	pass_init(&p, 2);
	assert_true(isw_pass_recirculate(&p));
	assert_true(isw_pass_recirculate(&p));
	assert_int_equal(p.recirc_over, 0);
	assert_false(isw_pass_recirculate(&p)); /* third: past the limit */
	assert_int_equal(p.recirc_over, 1);

	/* A new packet starts from zero again. */
	isw_pass_begin(&p);
	assert_int_equal(p.recirc, 0);
	assert_true(isw_pass_recirculate(&p));
	assert_true(isw_pass_recirculate(&p));
	assert_int_equal(p.recirc_over, 1);
	assert_false(isw_pass_recirculate(&p));
	assert_int_equal(p.recirc_over, 2);

	/* Limit 0: no recirculation at all. */
	pass_init(&p, 0);
	assert_false(isw_pass_recirculate(&p));
	assert_int_equal(p.recirc_over, 1);
	assert_int_equal(p.multi_access, 0);
}

static void test_strict_recirc_clears_touched(void **state)
{
	(void)state;
	struct isw_reg *a = reg_new("a", ISW_REG_U32, 16);
	struct isw_reg *b = reg_new("b", ISW_REG_PAIR, 16);
	struct isw_pass p;

	pass_init(&p, 3);
	isw_salu_add(&p, a, 0, 1);
	isw_salu_pair_add(&p, b, 0, 1, 1);
	assert_true(isw_pass_recirculate(&p));
	isw_salu_add(&p, a, 0, 1); /* a new pass through the pipeline: allowed */
	isw_salu_pair_add(&p, b, 0, 1, 1);
	assert_int_equal(p.multi_access, 0);
	assert_int_equal(isw_reg_get(a, 0, 0), 2);

	isw_salu_read(&p, a, 0); /* but twice within the recirculated pass is not */
	assert_int_equal(p.multi_access, 1);
	assert_int_equal(p.last_reg, a->id);

	reg_del(b);
	reg_del(a);
}

/* ---- Registry ---- */

static void test_registry_create_find_order(void **state)
{
	(void)state;
	struct isw_reg_decl regs[3] = {
	        {.name = "bitmap", .stage = 0, .kind = ISW_REG_PAIR, .size = 8},
	        {.name = "agg", .stage = 3, .kind = ISW_REG_U32, .size = 16},
	        {.name = "count", .stage = 1, .kind = ISW_REG_U32, .size = 4},
	};
	struct isw_asic_decl d = {.pipeline = "sml", .regs = regs, .nb_regs = 3};
	struct isw_reg_decl reg2 = {.name = "x", .stage = 0, .kind = ISW_REG_U32, .size = 2};
	struct isw_asic_decl d2 = {.pipeline = "aaa", .regs = &reg2, .nb_regs = 1};
	struct isw_reg *out[3] = {NULL, NULL, NULL}, *out2 = NULL;
	char err[128] = "";

	assert_int_equal(isw_reg_count(), 0);
	assert_null(isw_reg_at(0));
	assert_int_equal(isw_reg_create_all(&d, out, err, sizeof(err)), 0);
	assert_int_equal(isw_reg_count(), 3);

	assert_string_equal(out[0]->name, "sml.bitmap");
	assert_string_equal(out[1]->name, "sml.agg");
	assert_string_equal(out[2]->name, "sml.count");
	assert_int_equal(out[0]->kind, ISW_REG_PAIR);
	assert_int_equal(out[0]->size, 8);
	assert_int_equal(out[0]->mask, 7);
	assert_int_equal(out[0]->stage, 0);
	assert_int_equal(out[1]->kind, ISW_REG_U32);
	assert_int_equal(out[1]->size, 16);
	assert_int_equal(out[1]->mask, 15);
	assert_int_equal(out[1]->stage, 3);
	assert_int_equal(out[2]->size, 4);
	assert_int_equal(out[2]->stage, 1);
	assert_int_not_equal(out[0]->id, out[1]->id);
	assert_int_not_equal(out[1]->id, out[2]->id);
	assert_int_not_equal(out[0]->id, out[2]->id);

	/* Zeroed. */
	for (uint32_t i = 0; i < 8; i++) {
		assert_int_equal(isw_reg_get(out[0], i, 0), 0);
		assert_int_equal(isw_reg_get(out[0], i, 1), 0);
	}
	for (uint32_t i = 0; i < 16; i++)
		assert_int_equal(isw_reg_get(out[1], i, 0), 0);

	assert_ptr_equal(isw_reg_find("sml.bitmap"), out[0]);
	assert_ptr_equal(isw_reg_find("sml.agg"), out[1]);
	assert_ptr_equal(isw_reg_find("sml.count"), out[2]);
	assert_null(isw_reg_find("agg"));
	assert_null(isw_reg_find("sml"));
	assert_null(isw_reg_find("sml.nope"));

	/* A later pipeline whose name sorts first comes first, whatever its slot. */
	assert_int_equal(isw_reg_create_all(&d2, &out2, err, sizeof(err)), 0);
	assert_int_equal(isw_reg_count(), 4);
	assert_string_equal(isw_reg_at(0)->name, "aaa.x");
	assert_string_equal(isw_reg_at(1)->name, "sml.agg");
	assert_string_equal(isw_reg_at(2)->name, "sml.bitmap");
	assert_string_equal(isw_reg_at(3)->name, "sml.count");
	assert_ptr_equal(isw_reg_at(0), out2);
	assert_ptr_equal(isw_reg_at(1), out[1]);
	assert_null(isw_reg_at(4));
	assert_null(isw_reg_at(1000));

	/* Dirty the cells; new arrays made after destruction are zeroed again. */
	for (uint32_t i = 0; i < 16; i++)
		isw_reg_set(out[1], i, 0, 0xFFFFFFFFu);
	for (uint32_t i = 0; i < 8; i++) {
		isw_reg_set(out[0], i, 0, 0xFFFFFFFFu);
		isw_reg_set(out[0], i, 1, 0xFFFFFFFFu);
	}
	isw_reg_destroy_all(out, 3);
	assert_int_equal(isw_reg_count(), 1);
	assert_string_equal(isw_reg_at(0)->name, "aaa.x");
	assert_null(isw_reg_at(1));
	assert_int_equal(isw_reg_create_all(&d, out, err, sizeof(err)), 0);
	for (uint32_t i = 0; i < 8; i++) {
		assert_int_equal(isw_reg_get(out[0], i, 0), 0);
		assert_int_equal(isw_reg_get(out[0], i, 1), 0);
	}
	for (uint32_t i = 0; i < 16; i++)
		assert_int_equal(isw_reg_get(out[1], i, 0), 0);

	isw_reg_destroy_all(out, 3);
	isw_reg_destroy_all(&out2, 1);
	assert_int_equal(isw_reg_count(), 0);
}

static void test_registry_eexist(void **state)
{
	(void)state;
	struct isw_reg_decl first = {.name = "b", .stage = 0, .kind = ISW_REG_U32, .size = 16};
	struct isw_asic_decl d1 = {.pipeline = "p", .regs = &first, .nb_regs = 1};
	struct isw_reg_decl regs[2] = {
	        {.name = "a", .stage = 0, .kind = ISW_REG_U32, .size = 16},
	        {.name = "b", .stage = 1, .kind = ISW_REG_PAIR, .size = 16},
	};
	struct isw_asic_decl d2 = {.pipeline = "p", .regs = regs, .nb_regs = 2};
	struct isw_reg *old = NULL, *out[2] = {NULL, NULL};
	char err[128] = "";

	assert_int_equal(isw_reg_create_all(&d1, &old, err, sizeof(err)), 0);
	isw_reg_set(old, 0, 0, 1234);
	assert_int_equal(isw_reg_count(), 1);

	assert_int_equal(isw_reg_create_all(&d2, out, err, sizeof(err)), -EEXIST);
	assert_has(err, "p.b");
	assert_int_equal(isw_reg_count(), 1);
	assert_null(isw_reg_find("p.a"));
	assert_ptr_equal(isw_reg_find("p.b"), old); /* the existing one is intact */
	assert_int_equal(old->kind, ISW_REG_U32);
	assert_int_equal(isw_reg_get(old, 0, 0), 1234);

	/* Two arrays of the same name in one declaration collide the same way. */
	struct isw_reg_decl twice[2] = {
	        {.name = "c", .stage = 0, .kind = ISW_REG_U32, .size = 16},
	        {.name = "c", .stage = 1, .kind = ISW_REG_U32, .size = 16},
	};
	struct isw_asic_decl d3 = {.pipeline = "q", .regs = twice, .nb_regs = 2};
	assert_int_equal(isw_reg_create_all(&d3, out, err, sizeof(err)), -EEXIST);
	assert_has(err, "q.c");
	assert_int_equal(isw_reg_count(), 1);
	assert_null(isw_reg_find("q.c"));

	/* Once the old one is gone, the declaration goes in. */
	isw_reg_destroy_all(&old, 1);
	assert_null(old);
	assert_int_equal(isw_reg_create_all(&d2, out, err, sizeof(err)), 0);
	assert_int_equal(isw_reg_count(), 2);
	assert_ptr_equal(isw_reg_find("p.b"), out[1]);
	assert_int_equal(out[1]->kind, ISW_REG_PAIR);
	isw_reg_destroy_all(out, 2);
}

static void test_registry_name_too_long(void **state)
{
	(void)state;
	/* 31 + 1 + 31 characters fit "pipeline.array" (63 + NUL); one more does not. */
	const char *p31 = "ppppppppppppppppppppppppppppppp";
	const char *a31 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	const char *a32 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	struct isw_reg_decl r = {.name = a31, .stage = 0, .kind = ISW_REG_U32, .size = 16};
	struct isw_asic_decl d = {.pipeline = p31, .regs = &r, .nb_regs = 1};
	struct isw_reg *out = NULL;
	char err[160] = "";

	assert_int_equal(strlen(p31), 31);
	assert_int_equal(strlen(a32), 32);
	assert_int_equal(isw_reg_create_all(&d, &out, err, sizeof(err)), 0);
	assert_int_equal(strlen(out->name), 63);
	assert_ptr_equal(isw_reg_find(out->name), out);
	isw_reg_destroy_all(&out, 1);

	r.name = a32;
	assert_int_equal(isw_reg_create_all(&d, &out, err, sizeof(err)), -ENAMETOOLONG);
	assert_has(err, "too long");
	assert_int_equal(isw_reg_count(), 0);
}

static void test_registry_full(void **state)
{
	(void)state;
	static char names[ISW_REG_MAX][8];
	static struct isw_reg_decl regs[ISW_REG_MAX];
	static struct isw_reg *out[ISW_REG_MAX];
	for (unsigned i = 0; i < ISW_REG_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "r%03u", i);
		regs[i] = (struct isw_reg_decl){
		        .name = names[i], .stage = 0, .kind = ISW_REG_U32, .size = 1};
	}
	struct isw_asic_decl d = {.pipeline = "all", .regs = regs, .nb_regs = ISW_REG_MAX};
	char err[128] = "";

	assert_int_equal(isw_reg_create_all(&d, out, err, sizeof(err)), 0);
	assert_int_equal(isw_reg_count(), ISW_REG_MAX);
	assert_string_equal(isw_reg_at(0)->name, "all.r000");
	assert_string_equal(isw_reg_at(ISW_REG_MAX - 1)->name, "all.r255");
	assert_null(isw_reg_at(ISW_REG_MAX));

	/* One more is refused, and nothing is left of it. */
	struct isw_reg_decl more[2] = {
	        {.name = "m", .stage = 0, .kind = ISW_REG_U32, .size = 1},
	        {.name = "n", .stage = 0, .kind = ISW_REG_U32, .size = 1},
	};
	struct isw_asic_decl d2 = {.pipeline = "x", .regs = more, .nb_regs = 2};
	struct isw_reg *out2[2];
	assert_int_equal(isw_reg_create_all(&d2, out2, err, sizeof(err)), -ENOSPC);
	assert_int_equal(isw_reg_count(), ISW_REG_MAX);

	/* Strict mode gives every id its own bit (ids 0, 64, 128 and 192 share a bit position in
	 * different words; 255 is the last bit): in one pass, one access to each of the 256 arrays
	 * is no violation, and a second access to array i is one, naming i. */
	struct isw_pass p;
	struct isw_reg *by_id[ISW_REG_MAX];
	for (unsigned i = 0; i < ISW_REG_MAX; i++)
		by_id[out[i]->id] = out[i];
	pass_init(&p, 0);
	for (unsigned i = 0; i < ISW_REG_MAX; i++) {
		isw_pass_begin(&p);
		for (unsigned k = 0; k < ISW_REG_MAX; k++)
			isw_salu_read(&p, by_id[k], 0);
		assert_int_equal(p.multi_access, i);
		isw_salu_write(&p, by_id[i], 0, i);
		assert_int_equal(p.multi_access, i + 1);
		assert_int_equal(p.last_reg, i);
	}

	/* Freeing one makes room for one. */
	isw_reg_destroy_all(&out[17], 1);
	d2.nb_regs = 1;
	assert_int_equal(isw_reg_create_all(&d2, out2, err, sizeof(err)), 0);
	assert_ptr_equal(isw_reg_find("x.m"), out2[0]);
	isw_reg_destroy_all(out2, 1);
	isw_reg_destroy_all(out, ISW_REG_MAX); /* out[17] is NULL already */
	assert_int_equal(isw_reg_count(), 0);
}

static void test_registry_destroy(void **state)
{
	(void)state;
	struct isw_reg_decl regs[2] = {
	        {.name = "a", .stage = 0, .kind = ISW_REG_U32, .size = 16},
	        {.name = "b", .stage = 0, .kind = ISW_REG_PAIR, .size = 16},
	};
	struct isw_asic_decl d = {.pipeline = "gone", .regs = regs, .nb_regs = 2};
	struct isw_reg *out[2];
	char err[128] = "";

	assert_int_equal(isw_reg_create_all(&d, out, err, sizeof(err)), 0);
	assert_int_equal(isw_reg_count(), 2);
	isw_reg_destroy_all(out, 2);
	assert_int_equal(isw_reg_count(), 0);
	assert_null(out[0]);
	assert_null(out[1]);
	assert_null(isw_reg_find("gone.a"));
	assert_null(isw_reg_find("gone.b"));
	assert_null(isw_reg_at(0));

	/* The names can be used again. */
	assert_int_equal(isw_reg_create_all(&d, out, err, sizeof(err)), 0);
	assert_int_equal(isw_reg_count(), 2);
	isw_reg_destroy_all(out, 2);
	assert_int_equal(isw_reg_count(), 0);
}

static void test_registry_get_set_clear_u32(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("a", ISW_REG_U32, 8);

	isw_reg_set(r, 3, 0, 0xDEADBEEFu);
	isw_reg_set(r, 7, 0, 1);
	assert_int_equal(isw_reg_get(r, 3, 0), 0xDEADBEEFu);
	assert_int_equal(isw_reg_get(r, 3, 1), 0xDEADBEEFu); /* half means nothing for u32 */
	assert_int_equal(isw_salu_read(NULL, r, 3), 0xDEADBEEFu);
	assert_int_equal(isw_reg_get(r, 7, 0), 1);
	isw_reg_set(r, 2, 1, 22); /* half ignored on write too */
	assert_int_equal(isw_reg_get(r, 2, 0), 22);
	assert_int_equal(isw_reg_get(r, 4, 0), 0);

	isw_reg_clear(r);
	for (uint32_t i = 0; i < 8; i++)
		assert_int_equal(isw_reg_get(r, i, 0), 0);
	reg_del(r);
}

static void test_registry_get_set_clear_pair(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("p", ISW_REG_PAIR, 8);

	isw_reg_set(r, 1, 0, 11);
	isw_reg_set(r, 1, 1, 22);
	isw_reg_set(r, 7, 1, 0xFFFFFFFFu);
	assert_int_equal(isw_reg_get(r, 1, 0), 11);
	assert_int_equal(isw_reg_get(r, 1, 1), 22);
	assert_int_equal(isw_reg_get(r, 7, 0), 0);
	assert_int_equal(isw_reg_get(r, 7, 1), 0xFFFFFFFFu);
	struct isw_pair v = isw_salu_pair_read(NULL, r, 1);
	assert_int_equal(v.lo, 11);
	assert_int_equal(v.hi, 22);

	/* Setting one half leaves the other. */
	isw_reg_set(r, 1, 0, 33);
	assert_int_equal(isw_reg_get(r, 1, 0), 33);
	assert_int_equal(isw_reg_get(r, 1, 1), 22);

	isw_reg_clear(r);
	for (uint32_t i = 0; i < 8; i++) {
		assert_int_equal(isw_reg_get(r, i, 0), 0);
		assert_int_equal(isw_reg_get(r, i, 1), 0);
	}
	reg_del(r);
}

/* ---- Vector registers, countdown and exponent max ---- */

static struct isw_reg *vec_new(uint32_t size, uint16_t lanes)
{
	struct isw_reg_decl rd = {.name = "v",
	                          .kind = ISW_REG_VEC,
	                          .size = size,
	                          .lanes = lanes,
	                          .lanes_per_stage = 4};
	struct isw_asic_decl d = {.pipeline = "t", .regs = &rd, .nb_regs = 1};
	struct isw_reg *r = NULL;
	char err[128] = "";
	assert_int_equal(isw_reg_create_all(&d, &r, err, sizeof(err)), 0);
	return r;
}

static void be_fill(uint8_t *p, const int32_t *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		isw_be32_store(p + 4 * i, (uint32_t)v[i]);
}

static void test_vec_merge_first_add_out(void **state)
{
	(void)state;
	struct isw_reg *r = vec_new(4, 8);
	int32_t a[8] = {1, -2, 3, INT32_MAX, 0, 7, -8, 100};
	int32_t b[8] = {10, 20, -30, 1, 0, 0, 8, -100};
	uint8_t pa[32], pb[32], out[32];
	be_fill(pa, a, 8);
	be_fill(pb, b, 8);

	/* First overwrites whatever was there; the next adds with wrap-around. */
	isw_reg_set(r, 2, 3, 12345);
	isw_salu_vec_merge(NULL, r, 2, pa, 8, true, NULL);
	for (unsigned l = 0; l < 8; l++)
		assert_int_equal((int32_t)isw_reg_get(r, 2, l), a[l]);
	isw_salu_vec_merge(NULL, r, 2, pb, 8, false, out);
	for (unsigned l = 0; l < 8; l++) {
		int32_t sum = (int32_t)((uint32_t)a[l] + (uint32_t)b[l]);
		assert_int_equal((int32_t)isw_reg_get(r, 2, l), sum);
		assert_int_equal((int32_t)isw_be32_load(out + 4 * l), sum);
	}
	/* Other indices untouched; the index is masked. */
	assert_int_equal(isw_reg_get(r, 1, 0), 0);
	isw_salu_vec_read(NULL, r, 2 + 4, out, 8);
	assert_int_equal((int32_t)isw_be32_load(out + 12), INT32_MIN); /* INT32_MAX + 1 wraps */
	/* In place: out may be the input. */
	isw_salu_vec_merge(NULL, r, 2, pa, 8, false, pa);
	assert_int_equal((int32_t)isw_be32_load(pa), 1 + 10 + 1);
	assert_int_equal(isw_reg_bytes(r), 4u * 8u * 4u);
	reg_del(r);
}

/* The model of one lane: what ATP's Tofino program does to one value register. */
static uint32_t sadd_model(uint32_t cur, uint32_t x)
{
	int32_t c = (int32_t)cur;
	if (c <= -INT32_MAX || c == INT32_MAX)
		return cur; /* a rail reached before sticks */
	int64_t s = (int64_t)c + (int32_t)x;
	return (uint32_t)(int32_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
}

/*
 * isw_salu_vec_sadd() against the model, lane by lane, for every lane count from 1 to 70 (eight
 * lanes at a time, the last block overlapping the one before when n is not a multiple of 8),
 * first or not, out elsewhere, in place or NULL; cells and values drawn near the rails.
 */
static void test_vec_sadd_model(void **state)
{
	(void)state;
	enum { LANES = 72 };
	static const uint32_t edge[] = {0,           1,           0xFFFFFFFFu, 0x7FFFFFFFu,
	                                0x7FFFFFFEu, 0x80000000u, 0x80000001u, 0x80000002u,
	                                0x40000000u, 0xC0000000u};
	struct isw_reg *r = vec_new(4, LANES);
	uint64_t seed = 42;
	for (unsigned n = 1; n <= 70; n++) {
		for (unsigned mode = 0; mode < 6; mode++) {
			bool first = mode & 1;
			unsigned outmode = mode >> 1; /* 0 NULL, 1 elsewhere, 2 in place */
			uint32_t cells[LANES], x[LANES];
			uint8_t in[4 * LANES], out[4 * LANES];
			for (unsigned l = 0; l < LANES; l++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				uint32_t a = (uint32_t)(seed >> 32), b = (uint32_t)seed;
				cells[l] = (a & 3) == 0 ? edge[(a >> 8) % 10] : a;
				x[l] = (b & 3) == 0 ? edge[(b >> 8) % 10] : b >> (a & 7);
				isw_reg_set(r, 1, l, cells[l]);
				isw_be32_store(in + 4 * l, x[l]);
			}
			memset(out, 0xAB, sizeof(out));
			void *o = outmode == 0 ? NULL : outmode == 1 ? (void *)out : (void *)in;
			isw_salu_vec_sadd(NULL, r, 1, in, n, first, o);
			const uint8_t *got = outmode == 2 ? in : out;
			for (unsigned l = 0; l < LANES; l++) {
				uint32_t want = l >= n  ? cells[l]
				                : first ? x[l]
				                        : sadd_model(cells[l], x[l]);
				if (isw_reg_get(r, 1, l) != want)
					fail_msg("n %u mode %u lane %u: cell %08x + %08x gave "
					         "%08x, want "
					         "%08x",
					         n, mode, l, cells[l], x[l], isw_reg_get(r, 1, l),
					         want);
				if (outmode != 0 && l < n)
					assert_int_equal(isw_be32_load(got + 4 * l), want);
				if (outmode == 1 && l >= n)
					assert_int_equal(out[4 * l],
					                 0xAB); /* nothing past lane n - 1 */
				if (outmode == 2 && l >= n)
					assert_int_equal(isw_be32_load(in + 4 * l), x[l]);
			}
		}
	}
	reg_del(r);
}

/* isw_kv_key_eq, for every key width: equal keys match; a key that differs in any one of its
 * bytes does not; bytes past the width, in the cells or the key, are not looked at. */
static void test_kv_key_eq(void **state)
{
	(void)state;
	for (unsigned words = 1; words <= ISW_KV_KEY_WORDS; words++) {
		uint32_t c[ISW_KV_KEY_WORDS];
		uint8_t key[4 * ISW_KV_KEY_WORDS];
		for (unsigned b = 0; b < sizeof(key); b++)
			key[b] = (uint8_t)(0x11 * (b + 1));
		memcpy(c, key, sizeof(c));
		assert_true(isw_kv_key_eq(c, key, words));
		for (unsigned b = 0; b < sizeof(key); b++) {
			key[b] ^= 0x40;
			if (isw_kv_key_eq(c, key, words) != (b >= 4 * words))
				fail_msg("%u words: byte %u changed, match %d", words, b,
				         isw_kv_key_eq(c, key, words));
			key[b] ^= 0x40;
		}
		if (words < ISW_KV_KEY_WORDS) {
			c[words] ^= 1; /* past the key: not compared */
			assert_true(isw_kv_key_eq(c, key, words));
		}
	}
}

static void test_vec_strict_one_access(void **state)
{
	(void)state;
	struct isw_reg *r = vec_new(4, 4);
	struct isw_pass p;
	uint8_t buf[16] = {0};
	pass_init(&p, 3);
	isw_salu_vec_merge(&p, r, 0, buf, 4, true, NULL);
	assert_int_equal(p.multi_access, 0);
	isw_salu_vec_read(&p, r, 1, buf, 4);
	assert_int_equal(p.multi_access, 1);
	assert_true(isw_pass_recirculate(&p));
	isw_salu_vec_read(&p, r, 1, buf, 4);
	assert_int_equal(p.multi_access, 1);
	reg_del(r);
}

static void test_vec_lanes_spread_over_stages(void **state)
{
	(void)state;
	/* 64 lanes of 16 Ki cells (64 KiB each, + a spare block), 4 per stage: stages 3..18. */
	struct isw_reg_decl rd = {.name = "v",
	                          .stage = 3,
	                          .kind = ISW_REG_VEC,
	                          .size = 16384,
	                          .lanes = 64,
	                          .lanes_per_stage = 4};
	struct isw_asic_decl d = {.pipeline = "t", .regs = &rd, .nb_regs = 1};
	struct isw_asic_use use;
	char err[160] = "";
	memset(&use, 0, sizeof(use));
	assert_int_equal(isw_asic_account(&d, &use, err, sizeof(err)), 0);
	assert_int_equal(use.stages, 19);
	assert_int_equal(use.stage[2].salus, 0);
	assert_int_equal(use.stage[3].salus, 4);
	assert_int_equal(use.stage[18].salus, 4);
	assert_int_equal(use.stage[3].sram, 4u * (4u + 1u) * BLOCK);
	assert_int_equal(isw_reg_decl_bytes(&rd), 64u * 5u * BLOCK);
	assert_int_equal(isw_asic_check(&d, isw_profile_find("tofino2"), err, sizeof(err)), 0);
	assert_int_equal(isw_asic_check(&d, isw_profile_find("tofino1"), err, sizeof(err)),
	                 -ENOSPC);
	assert_has(err, "needs 19 stages, tofino1 has 12");
	/* Five lanes in a stage is one SALU too many. */
	rd.lanes_per_stage = 5;
	assert_int_equal(isw_asic_check(&d, isw_profile_find("tofino2"), err, sizeof(err)),
	                 -ENOSPC);
	assert_has(err, "stage 3: 5 stateful ALUs, tofino2 has 4");
}

static void test_countdown(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("c", ISW_REG_U32, 4);
	assert_false(isw_salu_countdown(NULL, r, 1, true, 3));
	assert_int_equal(isw_reg_get(r, 1, 0), 2);
	assert_false(isw_salu_countdown(NULL, r, 1, false, 3));
	assert_true(isw_salu_countdown(NULL, r, 1, false, 3));
	/* A contribution to a complete round starts a new count; it does not complete again. */
	assert_false(isw_salu_countdown(NULL, r, 1, false, 3));
	assert_int_equal(isw_reg_get(r, 1, 0), 2);
	/* One contributor completes on its first packet. */
	assert_true(isw_salu_countdown(NULL, r, 2, true, 1));
	reg_del(r);
}

static void test_update(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("u", ISW_REG_U32, 4);
	assert_int_equal(isw_salu_update(NULL, r, 1, 7), 0);
	assert_int_equal(isw_salu_update(NULL, r, 1, 7), 7);
	assert_int_equal(isw_salu_update(NULL, r, 5, 9), 7); /* masked: index 1 */
	assert_int_equal(isw_reg_get(r, 1, 0), 9);
	reg_del(r);
}

static void test_pair_max(void **state)
{
	(void)state;
	struct isw_reg *r = reg_new("e", ISW_REG_PAIR, 4);
	isw_reg_set(r, 0, 0, 100);
	struct isw_pair v = isw_salu_pair_max(NULL, r, 0, true, -5, -7);
	assert_int_equal((int32_t)v.lo, -5); /* first overwrites, even a bigger stale value */
	assert_int_equal((int32_t)v.hi, -7);
	v = isw_salu_pair_max(NULL, r, 0, false, -9, 3);
	assert_int_equal((int32_t)v.lo, -5); /* signed max per half */
	assert_int_equal((int32_t)v.hi, 3);
	reg_del(r);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	        T(test_salu_read),
	        T(test_salu_write),
	        T(test_salu_add),
	        T(test_salu_sadd),
	        T(test_salu_max),
	        T(test_salu_bitset),
	        T(test_salu_claim),
	        T(test_salu_read_clear),
	        T(test_salu_count_to),
	        T(test_pair_read_write),
	        T(test_pair_add),
	        T(test_pair_claim_lease_epoch),
	        T(test_pair_set_clear_sel0),
	        T(test_pair_set_clear_sel1),
	        T(test_pair_set_clear_switchml_shadow),
	        T(test_masked_index_u32),
	        T(test_masked_index_pair),
	        T(test_profile_find),
	        T(test_profile_set_current),
	        T(test_decl_bytes),
	        T(test_check_salus_per_stage),
	        T(test_check_stage_count),
	        T(test_check_sram),
	        T(test_check_tables_per_stage),
	        T(test_decl_einval),
	        T(test_unlimited_accepts_big),
	        T(test_tofino1_accepts_reasonable),
	        T(test_account_accumulates),
	        T(test_strict_distinct_arrays),
	        T(test_strict_same_array_twice),
	        T(test_strict_every_op_is_noted),
	        T(test_strict_new_pass_resets),
	        T(test_strict_null_pass),
	        T(test_strict_recirc_limit),
	        T(test_strict_recirc_clears_touched),
	        T(test_registry_create_find_order),
	        T(test_registry_eexist),
	        T(test_registry_name_too_long),
	        T(test_registry_full),
	        T(test_registry_destroy),
	        T(test_registry_get_set_clear_u32),
	        T(test_registry_get_set_clear_pair),
	        T(test_vec_merge_first_add_out),
	        T(test_vec_sadd_model),
	        T(test_kv_key_eq),
	        T(test_vec_strict_one_access),
	        T(test_vec_lanes_spread_over_stages),
	        T(test_countdown),
	        T(test_pair_max),
	        T(test_update),
	};
	return cmocka_run_group_tests_name("asic", tests, NULL, NULL);
}
