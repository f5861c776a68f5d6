/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the ASK packet entry point. Each input is one frame (its first byte
 * picks the ingress port and the fast or strict build) offered to the pipeline on a switch with
 * two tasks (task 1: 4 slots of 8-byte keys, add, 2 channels of window 4, AA 16, receiver on
 * port 3; task 2: 16 slots of 16-byte keys, max, window 2, AA 8, senders on port 1 only) and an
 * ASK address for ARP. Besides the sanitizers' checks, after every input:
 *   - a frame the pipeline did not take is still there to pass on;
 *   - no aggregator row and no ring position beyond the two tasks' ranges was written, and a
 *     packet of one task (or of none) left the other task's rows, rings and windows as they
 *     were (a packet can reach only its own task's state);
 *   - every frame sent is at least an ARP frame long.
 *
 * FUZZ_SEEDS=DIR writes valid frames of every kind to DIR and exits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "ask.h"
#include "cmd.h"
#include "dp.h"
#include "isw_test.h"
#include "pipeline.h"
#include "worker.h"

#define NPORTS    4
#define FRAME_MAX 1600
#define ROWS_USED 64 /* task 1: 1 pass x 2 copies x 16; task 2: 2 x 2 x 8 */
#define RING_USED 20 /* task 1: 2 x 2 x 4; task 2: 1 x 2 x 2 */
#define CHECK     256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static struct isw_worker *w;
static struct isw_json out;

static const char *const config[] = {
        "pipeline enable ask",
        "ask task add 1 receiver 02:00:00:00:00:09,10.0.0.9,42405,3 channels 2 window 4 slots 4 "
        "key-bytes 8 op add aa-size 16",
        "ask task add 2 receiver 02:00:00:00:00:0a,10.0.0.10,7000,3 channels 1 window 2 slots 16 "
        "key-bytes 16 op max aa-size 8 senders 1",
        "ask config set ip 10.0.0.254",
};

static size_t seed_frame(uint8_t *f, uint8_t port, uint8_t type, uint8_t flags, uint16_t task,
                         unsigned ns, unsigned kb, uint32_t seq, uint32_t bitmap)
{
	uint8_t *b = f + 1;
	size_t len = type == ASK_DATA ? ask_data_len(ns, kb) : ASK_PAY_OFF;
	memset(f, 0, len + 1);
	f[0] = port;
	b[0] = 0x02, b[6] = 0x02, b[11] = 1, b[12] = 0x08;
	b[14] = 0x45, b[22] = 64, b[23] = 17;
	ask_put16(b + 16, (uint16_t)(len - 14));
	b[26] = 10, b[29] = 1, b[30] = 10, b[33] = 9;
	ask_put16(b + 34, 5555);
	ask_put16(b + 36, ASK_UDP_PORT);
	ask_put16(b + 38, (uint16_t)(len - 34));
	struct ask_hdr *h = (struct ask_hdr *)(b + ASK_HDR_OFF);
	h->type = type, h->flags = flags, h->nslots = (uint8_t)ns, h->key_bytes = (uint8_t)kb;
	ask_put16(h->task, task);
	ask_put32(h->seq, seq);
	ask_put32(h->bitmap, bitmap);
	ask_put32(h->count, 20);
	if (type == ASK_DATA)
		for (unsigned j = 0; j < ns; j++) {
			b[ASK_PAY_OFF + j * ask_rec_len(kb)] = (uint8_t)(j * 7 + seq);
			b[ASK_PAY_OFF + j * ask_rec_len(kb) + kb + 3] = 1;
		}
	return len + 1;
}

static void write_seeds(const char *dir)
{
	uint8_t f[FRAME_MAX];
	size_t n[8];
	uint8_t fr[8][FRAME_MAX];
	n[0] = seed_frame(fr[0], 0, ASK_DATA, 0, 1, 4, 8, 0, 0xF);
	n[1] = seed_frame(fr[1], 0, ASK_DATA, ASK_F_RESEND, 1, 4, 8, 0, 0x5);
	n[2] = seed_frame(fr[2], 1, ASK_DATA, ASK_F_LAST, 2, 16, 16, 1, 0x8181);
	n[3] = seed_frame(fr[3], 0, ASK_DATA, ASK_F_LONG, 1, 4, 8, 2, 0);
	n[4] = seed_frame(fr[4], 3, ASK_SWAP, 0, 1, 4, 8, 7, ASK_SEL(2, 1));
	n[5] = seed_frame(fr[5], 3, ASK_FETCH, 0, 1, 4, 8, 8, ASK_SEL(2, 0));
	n[6] = seed_frame(fr[6], 3 | 0x80, ASK_FETCH, 0, 2, 16, 16, 9, ASK_SEL(9, 1));
	/* ARP request for the ASK address. */
	memset(f, 0, 61);
	f[0] = 3;
	memset(f + 1, 0xFF, 6);
	f[13] = 0x08, f[14] = 0x06;
	const uint8_t arp[8] = {0, 1, 8, 0, 6, 4, 0, 1};
	memcpy(f + 15, arp, 8);
	f[39] = 10, f[42] = 254;
	memcpy(fr[7], f, 61);
	n[7] = 61;
	for (unsigned k = 0; k < 8; k++) {
		isw_test_fuzz_seed_file(dir, "ask", k, fr[k], n[k]);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	isw_test_fuzz_seeds(write_seeds);
	w = isw_test_fuzz_switch("fuzz-ask", NPORTS, config, RTE_DIM(config), &out);
	return 0;
}

static void check_zero(const struct isw_reg *r, uint32_t first, uint32_t n)
{
	const uint32_t *c = r->cells.u32 + (size_t)first * r->lanes;
	uint32_t any = 0;
	for (size_t i = 0; i < (size_t)n * r->lanes; i++)
		any |= c[i];
	if (any != 0)
		abort();
}

/* The tasks took the first rows and ring positions: the ones after them stay untouched. */
static void check_ranges(void)
{
	for (unsigned u = 0; u < ASK_AA_UNITS; u++)
		check_zero(ask_regs[ASK_REG_AA0 + u], ROWS_USED, CHECK);
	check_zero(ask_regs[ASK_REG_SEEN], RING_USED, CHECK);
	check_zero(ask_regs[ASK_REG_AGGSTATE], RING_USED, CHECK);
	check_zero(ask_regs[ASK_REG_WINDOW], RING_USED, CHECK);
	check_zero(ask_regs[ASK_REG_ACTIVE], 3, 2 * ASK_TASKS_MAX - 3);
}

/* A task's state: its rows in every aggregator array and its ring positions and windows. */
struct task_state {
	uint32_t rows[ASK_AA_UNITS][32 * ISW_KV_LANES];
	uint32_t seen[16], aggstate[16], window[16];
};

static const uint32_t task_row0[3] = {0, 0, 32}, task_ring0[3] = {0, 0, 16};
static const uint32_t task_ring_n[3] = {0, 16, 4};

static void snap(unsigned task, struct task_state *st)
{
	memset(st, 0, sizeof(*st));
	for (unsigned u = 0; u < ASK_AA_UNITS; u++)
		memcpy(st->rows[u],
		       ask_regs[ASK_REG_AA0 + u]->cells.u32 +
		               (size_t)task_row0[task] * ISW_KV_LANES,
		       sizeof(st->rows[u]));
	size_t n = task_ring_n[task] * 4u;
	memcpy(st->seen, ask_regs[ASK_REG_SEEN]->cells.u32 + task_ring0[task], n);
	memcpy(st->aggstate, ask_regs[ASK_REG_AGGSTATE]->cells.u32 + task_ring0[task], n);
	memcpy(st->window, ask_regs[ASK_REG_WINDOW]->cells.u32 + task_ring0[task], n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct task_state before[3], after;
	if (size < 1 || size > FRAME_MAX)
		return 0;
	snap(1, &before[1]);
	snap(2, &before[2]);
	isw_test_fuzz_packet(w, data, size, ask_process, ask_process_strict, ASK_HDR_OFF);
	check_ranges();
	/* A packet reaches only its own task's state: the other task's is unchanged. */
	unsigned task = size >= 1 + ASK_HDR_OFF + 4 ? ask_be16(data + 1 + ASK_HDR_OFF + 2) : 0;
	for (unsigned t = 1; t <= 2; t++) {
		if (t == task)
			continue;
		snap(t, &after);
		if (memcmp(&after, &before[t], sizeof(after)) != 0)
			abort();
	}
	return 0;
}
