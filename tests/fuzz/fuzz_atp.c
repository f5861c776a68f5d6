/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the ATP packet entry point. Each input is one frame (its first byte
 * picks the ingress port and the fast or strict build) offered to the pipeline on a switch with
 * two apps (app 1: workers behind ports 0 and 1, PS on port 3; app 2: workers behind port 2, PS
 * on port 3) and a pool of 64 aggregators; app 1 is being moved to a region of its own,
 * aggregators 100..107 (docs/memory.md, ATP regions: the change under way for good, as no tick
 * runs). Besides the sanitizers' checks, after every input:
 *   - a frame the pipeline did not take is still there to pass on;
 *   - no aggregator beyond the pool and app 1's region was written, every held aggregator of
 *     the pool belongs to one of the two apps (no frame can make an aggregator belong to an app
 *     that does not exist), and every held one of the region to app 1;
 *   - every frame sent is a whole ATP frame.
 *
 * FUZZ_SEEDS=DIR writes valid frames of every kind to DIR and exits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "atp.h"
#include "cmd.h"
#include "dp.h"
#include "isw_test.h"
#include "pipeline.h"
#include "pre.h"
#include "worker.h"

#define NPORTS    4
#define POOL      64
#define REGION    100 /* app 1's region: REGION .. REGION + RSIZE - 1 */
#define RSIZE     8
#define FRAME_MAX 1600

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static struct isw_worker *w;
static struct isw_json out;

static const char *const config[] = {
        "pipeline enable atp",
        "atp app add 1 workers 3 ports 0,1 ps 3",
        "atp app add 2 workers 2 ports 2 ps 3 ps1 3",
        "atp pool resize 64",
        "atp app region 1 size 8 base 100",
};

static void write_seeds(const char *dir)
{
	static const uint8_t flags[] = {0, ATP_F_RESEND, ATP_F_OVERFLOW, ATP_F_ACK, 0x20};
	uint8_t f[ATP_FRAME_LEN + 1];
	unsigned k = 0;
	for (unsigned app = 1; app <= 2; app++) {
		for (size_t i = 0; i < sizeof(flags); i++) {
			memset(f, 0, sizeof(f));
			f[0] = (uint8_t)(flags[i] & ATP_F_ACK ? 3 : app == 1 ? 0 : 2);
			uint8_t *b = f + 1;
			memcpy(b + 6, atp_src_mac, 6);
			atp_put16(b + 12, ATP_ETHERTYPE);
			memcpy(b + 14, atp_ip_template, 20);
			atp_put32(b + 34, 1u << i);
			b[38] = (uint8_t)(app == 1 ? 3 : 2);
			b[39] = flags[i];
			atp_put16(b + 40, (uint16_t)app);
			atp_put16(b + 42, (uint16_t)(1 + i));
			/* app 1's in its region (the frames of the shared range come from the
			 * fuzzer's mutations) */
			atp_put16(b + 44, (uint16_t)(app == 1 ? REGION + i : i * 3));
			for (unsigned v = 0; v < ATP_VALUES; v++)
				b[48 + 4 * v + 3] = (uint8_t)v;
			isw_test_fuzz_seed_file(dir, "atp", k++, f, sizeof(f));
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	isw_test_fuzz_seeds(write_seeds);
	w = isw_test_fuzz_switch("fuzz-atp", NPORTS, config, RTE_DIM(config), &out);
	return 0;
}

/* Held aggregators of the pool belong to app 1 or 2, those of app 1's region to app 1, and
 * nothing else was written (the values array is left out: 8 MiB per input would starve the
 * fuzzer, and a frame reaching it elsewhere would have to pass the owner check first). */
static void check_pool(void)
{
	const struct isw_pair *owner = atp_regs[ATP_REG_OWNER]->cells.pair; /* (holder, time) */
	for (uint32_t i = 0; i < POOL; i++)
		if (owner[i].lo != 0 && (owner[i].lo >> 16) != 1 && (owner[i].lo >> 16) != 2)
			abort();
	for (uint32_t i = REGION; i < REGION + RSIZE; i++)
		if (owner[i].lo != 0 && (owner[i].lo >> 16) != 1)
			abort();
	for (unsigned r = ATP_REG_OWNER; r < ATP_REG_VALUES; r++) {
		const struct isw_reg *g = atp_regs[r];
		const uint64_t *c = (const uint64_t *)g->cells.u32;
		/* 64-bit words: one pair, or two 32-bit cells */
		size_t per = r == ATP_REG_OWNER ? 1 : 2;
		uint64_t any = 0;
		for (size_t k = POOL / per; k < REGION / per; k++)
			any |= c[k];
		for (size_t k = (REGION + RSIZE) / per; k < g->size / per; k++)
			any |= c[k];
		if (any != 0)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > FRAME_MAX)
		return 0;
	isw_test_fuzz_packet(w, data, size, atp_process, atp_process_strict, ATP_FRAME_LEN);
	check_pool();
	return 0;
}
