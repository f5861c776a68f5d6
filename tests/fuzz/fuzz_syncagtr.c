/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the SyncAgtr packet entry point. Each input is one frame (its first
 * byte picks the ingress port and the fast or strict build) offered to the pipeline on a switch
 * with three sessions: session 1 (10.0.0.254, 3 workers, slots 0..7 of the switch), session 2
 * (10.0.0.253, 2 workers, slots 8..11) and session 3 (10.0.0.252, 2 workers of 2 threads, slots
 * 12..15) in the middle of a region change to slots 16..19 (docs/memory.md: packets for either
 * region by pool index bit 14, the region note on results). Besides the sanitizers' checks,
 * after every input:
 *   - a frame the pipeline did not take is still there to pass on;
 *   - nothing outside the two sessions' slot regions was written (no packet can reach memory
 *     that belongs to nobody, or to a session it is not part of beyond its region);
 *   - every frame sent is at least as long as an Ethernet header.
 *
 * FUZZ_SEEDS=DIR writes valid frames of every kind to DIR and exits (run.sh makes the corpus
 * this way, so the fuzzer starts from admitted packets).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "cmd.h"
#include "dp.h"
#include "isw_test.h"
#include "pipeline.h"
#include "pre.h"
#include "syncagtr.h"
#include "worker.h"

#define NPORTS     4
#define USED_SLOTS 20
#define FRAME_MAX  1600

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static struct isw_worker *w;
static struct isw_json out;

static const char *const config[] = {
        "pipeline enable syncagtr",
        "syncagtr session add 1 ip 10.0.0.254 workers 3 slots 8",
        "syncagtr worker add 1 0 mac 02:00:00:00:00:01 ip 10.0.0.1 port 0",
        "syncagtr worker add 1 1 mac 02:00:00:00:00:02 ip 10.0.0.2 port 1",
        "syncagtr worker add 1 2 mac 02:00:00:00:00:03 ip 10.0.0.3 port auto",
        "syncagtr session add 2 ip 10.0.0.253 workers 2 slots 4",
        "syncagtr worker add 2 0 mac 02:00:00:00:00:03 ip 10.0.0.3 port 2",
        "syncagtr worker add 2 1 mac 02:00:00:00:00:04 ip 10.0.0.4 port 3",
        "syncagtr session add 3 ip 10.0.0.252 workers 2 slots 4 threads 2",
        "syncagtr worker add 3 0 mac 02:00:00:00:00:05 ip 10.0.0.5 port 0",
        "syncagtr worker add 3 1 mac 02:00:00:00:00:06 ip 10.0.0.6 port 1",
        "syncagtr session region 3 slots 4",
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A SwitchML frame of host h to switch IP 10.0.0.sw; returns its length. */
static size_t seed_frame(uint8_t *f, uint8_t h, uint8_t sw, unsigned size, uint16_t pool)
{
	unsigned n = size == 3 ? 256 : 64;
	size_t len = 52 + 4 * n;
	memset(f, 0, len);
	const uint8_t mac[6] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};
	memcpy(f, mac, 6);
	f[6] = 2, f[11] = h;
	put16(f + 12, 0x0800);
	f[14] = 0x45;
	put16(f + 16, (uint16_t)(38 + 4 * n));
	f[22] = 64, f[23] = 17;
	f[26] = 10, f[29] = h;
	f[30] = 10, f[33] = sw;
	put16(f + 34, 4000);
	put16(f + 36, 0xBEE0);
	put16(f + 38, (uint16_t)(18 + 4 * n));
	f[42] = (uint8_t)(0x10 | size);
	put16(f + 48, pool);
	for (unsigned i = 0; i < n; i++)
		f[52 + 4 * i + 3] = (uint8_t)i;
	return len;
}

static void write_seeds(const char *dir)
{
	uint8_t f[FRAME_MAX];
	unsigned k = 0;
	for (uint8_t h = 1; h <= 4; h++) {
		for (unsigned size = 1; size <= 3; size += 2) {
			uint8_t sw = h == 4 ? 253 : 254;
			size_t len = seed_frame(f + 1, h, sw, size, (uint16_t)(h & 1 ? 0x8001 : 1));
			f[0] = (uint8_t)(h - 1);
			isw_test_fuzz_seed_file(dir, "sa", k++, f, len + 1);
		}
	}
	/* session 3's workers, to the old region and to the new one (bit 14), one "holding" */
	for (uint8_t h = 5; h <= 6; h++) {
		for (uint16_t gen = 0; gen <= 0x4000; gen += 0x4000) {
			size_t len = seed_frame(f + 1, h, 252, 1, (uint16_t)(gen | 3));
			f[0] = (uint8_t)(h - 5);
			if (gen)
				f[1 + 42] |= 0x08;
			isw_test_fuzz_seed_file(dir, "sa", k++, f, len + 1);
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	isw_test_fuzz_seeds(write_seeds);
	w = isw_test_fuzz_switch("fuzz-syncagtr", NPORTS, config, RTE_DIM(config), &out);
	w->pass.recirc_limit = 3;
	return 0;
}

/* No cell of a per-slot array outside the sessions' regions may ever be non-zero. */
static void check_regions(void)
{
	static const enum sa_reg regs[] = {SA_REG_BITMAP, SA_REG_COUNT, SA_REG_EXP};
	static const uint32_t per_slot[] = {1, 2, 2};
	for (size_t i = 0; i < RTE_DIM(regs); i++) {
		const struct isw_reg *r = sa_regs[regs[i]];
		const uint64_t *c = (const uint64_t *)r->cells.u32;
		size_t from = (size_t)USED_SLOTS * per_slot[i] * r->lanes / 2;
		size_t to = (size_t)r->size * r->lanes / 2;
		uint64_t any = 0;
		for (size_t k = from; k < to; k++)
			any |= c[k];
		if (any != 0)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > FRAME_MAX)
		return 0;
	isw_test_fuzz_packet(w, data, size, sa_process, sa_process_strict, 14);
	if ((data[0] & 0x0c) == 0x0c)
		isw_tick_run(); /* fold learned ports in now and then */
	check_regions();
	return 0;
}
