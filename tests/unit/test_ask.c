/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ASK pipeline on hand-made packets (docs/ask.md): claim, combine, collision; first and
 * repeated seq; the ring wrapping at 2W and the window register's stale and ahead drops; SWAP
 * (idempotent) and FETCH (bounded, read-and-clear, the replay of a lost reply); LONG pass-through;
 * the operators; every malformed case a counted drop; ARP for the ASK address; strict mode; the
 * AVX-512 path against the scalar path on pseudo-random streams (skipped without AVX-512).
 * Runs EAL without hugepages or devices; results are read from the worker's transmit buffers
 * and the register arrays.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ask.h"
#include "cmd.h"
#include "dp.h"
#include "isw_test.h"
#include "unit_switch.h"
#include "pipeline.h"
#include "steer.h"
#include "worker.h"

#define NPORTS 4
#define RX     3 /* receivers' port */

static struct isw_worker *w;
static struct isw_json out;

/* Task 1: 4 slots of 8-byte keys, add, window 4, AA 16. Task 2: 2 slots of 4-byte keys, max,
 * senders on port 1 only, receiver UDP port 7000. Task 3: 16 slots of 16-byte keys, min. */
static const char *const config[] = {
        "pipeline enable ask",
        "ask task add 1 receiver 02:00:00:00:00:09,10.0.0.9,42405,3 channels 2 window 4 slots 4 "
        "key-bytes 8 op add aa-size 16",
        "ask task add 2 receiver 02:00:00:00:00:0a,10.0.0.10,7000,3 channels 1 window 4 slots 2 "
        "key-bytes 4 op max aa-size 16 senders 1",
        "ask task add 3 receiver 02:00:00:00:00:0b,10.0.0.11,42405,3 channels 1 window 8 slots 16 "
        "key-bytes 16 op min aa-size 64",
        "ask config set ip 10.0.0.254",
};

static void run(const char *line, int expect_ok)
{
	isw_unit_run(&out, line, expect_ok);
}

static int setup(void **state)
{
	(void)state;
	w = isw_unit_up(config, RTE_DIM(config), &out);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	isw_unit_down(w, &out);
	return 0;
}

/* ---- Packets ---- */

struct pkt {
	uint8_t type, flags;
	uint16_t task, channel;
	uint8_t nslots, kb; /* 0 = the task's */
	uint32_t seq, bitmap, start, count;
	uint64_t key[ASK_SLOTS_MAX]; /* slot j's key: this number, big-endian in the last 8 bytes */
	uint32_t val[ASK_SLOTS_MAX];
	uint16_t trunc; /* bytes cut from the end */
	uint16_t udp;   /* destination port; 0 = 42405 */
	uint8_t dip;    /* last byte of the destination 10.0.0.x; 0 = the ASK address (254) for
	                 * SWAP, FETCH and BEGIN, 99 for the rest */
};

static const struct ask_task *task(uint16_t id)
{
	const struct ask_conf *c = ask_conf_cur;
	assert_non_null(c);
	assert_int_not_equal(c->index[id], 0);
	return &c->tasks[c->index[id]];
}

static void key_bytes(uint8_t *k, uint64_t v, unsigned kb)
{
	memset(k, 0, kb);
	for (unsigned i = 0; i < 8 && i < kb; i++)
		k[kb - 1 - i] = (uint8_t)(v >> (8 * i));
}

static struct rte_mbuf *mk(const struct pkt *f, uint16_t in_port)
{
	uint8_t b[2048];
	memset(b, 0, sizeof(b));
	const struct ask_task *t = ask_conf_cur->index[f->task] ? task(f->task) : NULL;
	unsigned ns = f->nslots ? f->nslots : t ? t->nslots : 1;
	unsigned kb = f->kb ? f->kb : t ? t->key_bytes : 8;
	unsigned len = f->type == ASK_DATA    ? ask_data_len(ns, kb)
	               : f->type == ASK_BEGIN ? ASK_PAY_OFF + sizeof(struct ask_job_info)
	                                      : ASK_PAY_OFF;
	static const uint8_t dst[6] = {0x02, 0, 0, 0, 0, 0x99}, src[6] = {0x02, 0, 0, 0, 0, 1};
	memcpy(b, dst, 6);
	memcpy(b + 6, src, 6);
	b[12] = 0x08;
	uint8_t *ip = b + 14;
	ip[0] = 0x45;
	ask_put16(ip + 2, (uint16_t)(len - 14));
	ip[8] = 64;
	ip[9] = 17;
	bool ctl = f->type == ASK_SWAP || f->type == ASK_FETCH || f->type == ASK_BEGIN;
	const uint8_t sip[4] = {10, 0, 0, 1}, dip[4] = {10, 0, 0, f->dip ? f->dip : ctl ? 254 : 99};
	memcpy(ip + 12, sip, 4);
	memcpy(ip + 16, dip, 4);
	struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)ip;
	ih->hdr_checksum = rte_ipv4_cksum(ih);
	uint8_t *udp = ip + 20;
	ask_put16(udp, 5555);
	ask_put16(udp + 2, f->udp ? f->udp : ASK_UDP_PORT);
	ask_put16(udp + 4, (uint16_t)(len - 34));
	ask_put16(udp + 6, 0xABCD);
	struct ask_hdr *h = (struct ask_hdr *)(b + ASK_HDR_OFF);
	h->type = f->type;
	h->flags = f->flags;
	ask_put16(h->task, f->task);
	ask_put16(h->channel, f->channel);
	h->nslots = (uint8_t)ns;
	h->key_bytes = (uint8_t)kb;
	ask_put32(h->seq, f->seq);
	ask_put32(h->bitmap, f->bitmap);
	ask_put32(h->start, f->start);
	ask_put32(h->count, f->count);
	if (f->type == ASK_DATA)
		for (unsigned j = 0; j < ns && j < ASK_SLOTS_MAX; j++) {
			if (!((f->bitmap >> j) & 1))
				continue;
			uint8_t *s = b + ASK_PAY_OFF + j * ask_rec_len(kb);
			key_bytes(s, f->key[j], kb);
			ask_put32(s + kb, f->val[j]);
		}
	struct rte_mbuf *m = isw_test_mbuf(b, (uint16_t)(len - f->trunc), in_port);
	assert_non_null(m);
	return m;
}

static int feed(const struct pkt *f, uint16_t in_port)
{
	return ask_process(w, mk(f, in_port));
}

/* A packet the pipeline must pass on untouched (the caller's to free). */
static void feed_next(const struct pkt *f, uint16_t in_port)
{
	struct rte_mbuf *m = mk(f, in_port);
	assert_int_equal(ask_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
}

static uint64_t drops(enum isw_drop d)
{
	return isw_unit_drops(w, d);
}

static const uint8_t *tx_frame(int port, unsigned i)
{
	return isw_unit_tx_frame(w, port, i);
}

static const struct ask_hdr *tx_hdr(int port, unsigned i)
{
	return (const struct ask_hdr *)(tx_frame(port, i) + ASK_HDR_OFF);
}

static const struct ask_counters *cnt(uint16_t id)
{
	return &ask_counters[0][ask_conf_cur->index[id]];
}

/* The entry a key has in AA_slot's copy: used, and the value. */
static bool entry(uint16_t id, unsigned slot, unsigned copy, uint64_t k, uint32_t *val)
{
	const struct ask_task *t = task(id);
	uint8_t kbuf[16];
	key_bytes(kbuf, k, t->key_bytes);
	uint32_t row = ask_row(t, slot, copy, ask_key_entry(kbuf, t->key_bytes, t->aa_size));
	const struct isw_reg *r = ask_regs[ASK_REG_AA0 + slot % ASK_AA_UNITS];
	if (isw_reg_get(r, row, 0) == 0)
		return false;
	uint32_t words[ISW_KV_KEY_WORDS] = {0};
	for (unsigned i = 0; i < t->key_bytes / 4; i++)
		words[i] = (uint32_t)isw_reg_get(r, row, 1 + i);
	if (memcmp(words, kbuf, t->key_bytes) != 0)
		return false; /* another key */
	*val = (uint32_t)isw_reg_get(r, row, 5);
	return true;
}

/* A key other than k with the same entry in task id's AAs. */
static uint64_t same_entry(uint16_t id, uint64_t k)
{
	const struct ask_task *t = task(id);
	uint8_t a[16], b[16];
	key_bytes(a, k, t->key_bytes);
	uint32_t e = ask_key_entry(a, t->key_bytes, t->aa_size);
	for (uint64_t x = k + 1;; x++) {
		key_bytes(b, x, t->key_bytes);
		if (ask_key_entry(b, t->key_bytes, t->aa_size) == e)
			return x;
	}
}

static uint64_t slot_key(const uint8_t *frame, unsigned j, unsigned kb)
{
	const uint8_t *s = frame + ASK_PAY_OFF + j * ask_rec_len(kb);
	uint64_t v = 0;
	for (unsigned i = 0; i < 8; i++)
		v = v << 8 | s[kb - 8 + i];
	return v;
}

static bool slot_zero(const uint8_t *frame, unsigned j, unsigned kb)
{
	const uint8_t *s = frame + ASK_PAY_OFF + j * ask_rec_len(kb);
	for (unsigned i = 0; i < ask_rec_len(kb); i++)
		if (s[i] != 0)
			return false;
	return true;
}

/* ---- DATA ---- */

static void test_claim_combine_collision(void **state)
{
	(void)state;
	uint64_t a = 100, b = same_entry(1, a);
	struct pkt f = {.type = ASK_DATA, .task = 1, .seq = 0, .bitmap = 0x3};
	f.key[0] = a, f.val[0] = 5;
	f.key[1] = 200, f.val[1] = 7;
	assert_int_equal(feed(&f, 0), ISW_PKT_TAKEN);
	/* Both claimed, cleared from the packet, which still goes to the receiver at full length.
	 */
	const uint8_t *o = tx_frame(RX, 0);
	assert_int_equal(rte_pktmbuf_data_len(w->tx[RX].pkts[0]), ask_data_len(4, 8));
	assert_int_equal(ask_be32(tx_hdr(RX, 0)->bitmap), 0);
	assert_true(slot_zero(o, 0, 8) && slot_zero(o, 1, 8));
	static const uint8_t rmac[6] = {0x02, 0, 0, 0, 0, 9}, rip[4] = {10, 0, 0, 9};
	assert_memory_equal(o, rmac, 6);
	assert_memory_equal(o + 30, rip, 4);
	assert_int_equal(rte_ipv4_cksum((const struct rte_ipv4_hdr *)(o + 14)), 0);
	assert_int_equal(ask_be16(o + 36), ASK_UDP_PORT);
	assert_int_equal(ask_be16(o + 40), 0); /* UDP checksum */
	uint32_t v;
	assert_true(entry(1, 0, 0, a, &v) && v == 5);
	assert_true(entry(1, 1, 0, 200, &v) && v == 7);

	/* seq 1: a again combines; b collides with a and stays in the packet. */
	struct pkt g = {.type = ASK_DATA, .task = 1, .seq = 1, .bitmap = 0x1};
	g.key[0] = a, g.val[0] = 10;
	feed(&g, 0);
	assert_true(entry(1, 0, 0, a, &v) && v == 15);
	g.seq = 2, g.key[0] = b, g.val[0] = 3;
	feed(&g, 0);
	assert_true(entry(1, 0, 0, a, &v) && v == 15);
	assert_int_equal(ask_be32(tx_hdr(RX, 2)->bitmap), 1);
	assert_int_equal(slot_key(tx_frame(RX, 2), 0, 8), b);
	assert_int_equal(ask_be32(tx_frame(RX, 2) + ASK_PAY_OFF + 8), 3);
	const struct ask_counters *k = cnt(1);
	assert_int_equal(k->tuples, 4);
	assert_int_equal(k->claims, 2);
	assert_int_equal(k->combines, 1);
	assert_int_equal(k->collisions, 1);
	assert_int_equal(k->pkts, 3);
}

/*
 * One-armed: DATA that goes back out of the port it came in on (senders behind the receiver's
 * port) leaves with the switch's MAC as its source, so the switch in front of that port does
 * not learn the sender behind it; through another port the sender's MAC stays.
 */
static void test_one_armed_source_mac(void **state)
{
	(void)state;
	run("ask task add 4 receiver 02:00:00:00:00:09,10.0.0.9,42405,3 channels 1 window 4 slots "
	    "4 "
	    "key-bytes 8 op add aa-size 16 senders 0,3",
	    1);
	static const uint8_t sender[6] = {0x02, 0, 0, 0, 0, 1}, rmac[6] = {0x02, 0, 0, 0, 0, 9};
	const uint8_t *sw = ((const struct ask_conf *)ask_conf_cur)->mac;
	struct pkt f = {.type = ASK_DATA, .task = 4, .seq = 0, .bitmap = 0x1};
	f.key[0] = 5, f.val[0] = 1;
	assert_int_equal(feed(&f, RX), ISW_PKT_TAKEN);
	assert_memory_equal(tx_frame(RX, 0), rmac, 6);
	assert_memory_equal(tx_frame(RX, 0) + 6, sw, 6);
	f.seq = 1;
	assert_int_equal(feed(&f, 0), ISW_PKT_TAKEN);
	assert_memory_equal(tx_frame(RX, 1), rmac, 6);
	assert_memory_equal(tx_frame(RX, 1) + 6, sender, 6);
}

/* Steering: one rule per receiver address, IPv4 UDP to it and the ASK port, to the task's owner. */
static void test_steering(void **state)
{
	(void)state;
	run("ask task add 4 receiver 02:00:00:00:00:09,10.0.0.9,7001,3 channels 1 window 4 slots 4 "
	    "key-bytes 8 op add aa-size 16",
	    1);
	static struct isw_steering s;
	memset(&s, 0, sizeof(s));
	isw_pipeline_steering(&s);
	uint16_t id = isw_pipeline_find("ask")->id;
	static const char *const rcv[] = {"10.0.0.9", "10.0.0.10", "10.0.0.11"};
	unsigned n = 0;
	for (unsigned i = 0; i < s.n; i++) {
		if (s.m[i].pipeline != id)
			continue;
		uint32_t a;
		assert_int_equal(inet_pton(AF_INET, rcv[n], &a), 1);
		assert_int_equal(s.m[i].ip_dst, a); /* tasks 1, 2, 3; task 4 shares task 1's */
		assert_int_equal(s.m[i].udp_dst, ASK_UDP_PORT);
		assert_int_equal(s.m[i].udp_src, 0);
		assert_int_equal(s.m[i].owner, 0);
		n++;
	}
	assert_int_equal(n, 3);
}

/*
 * Job lifetime: a task registered again (del, add) as another incarnation counts no request of
 * the earlier one still in flight: DATA, SWAP and FETCH of another incarnation are dropped
 * (ask-incarnation) before they touch anything, and the right one is taken.
 */
static void test_incarnation(void **state)
{
	(void)state;
	run("ask task del 1", 1);
	run("ask task add 1 receiver 02:00:00:00:00:09,10.0.0.9,42405,3 channels 2 window 4 "
	    "slots 4 key-bytes 8 op add aa-size 16 incarnation 7",
	    1);
	run("ask task show 1", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"task\":1,\"incarnation\":7,"));
	struct pkt f = {.type = ASK_DATA, .task = 1, .seq = 0, .bitmap = 0x1};
	f.key[0] = 100, f.val[0] = 5;
	feed(&f, 0); /* incarnation 0 (count 0): the earlier job's */
	assert_int_equal(drops(ISW_DROP_ASK_INCARNATION), 1);
	assert_int_equal(w->tx[RX].n, 0);
	uint32_t v;
	assert_false(entry(1, 0, 0, 100, &v));
	struct pkt s = {.type = ASK_SWAP, .task = 1, .seq = 1, .bitmap = ASK_SEL(0, 1)};
	feed(&s, RX);
	struct pkt q = {.type = ASK_FETCH, .task = 1, .seq = 2, .bitmap = 0, .count = 4};
	feed(&q, RX);
	assert_int_equal(drops(ISW_DROP_ASK_INCARNATION), 3);
	assert_int_equal(cnt(1)->swaps + cnt(1)->fetches + cnt(1)->tuples, 0);
	/* This incarnation's: taken. A FETCH keeps its record count in the low half. */
	f.count = 7u << 16;
	feed(&f, 0);
	assert_true(entry(1, 0, 0, 100, &v) && v == 5);
	q.count = 7u << 16 | 4;
	feed(&q, RX);
	assert_int_equal(cnt(1)->fetches, 1);
	assert_int_equal(ask_be32(tx_hdr(RX, 1)->count), 1); /* the one record */
	assert_int_equal(drops(ISW_DROP_ASK_INCARNATION), 3);
}

/* BEGIN of task 1 (4 slots, key width 8) from the receiver's port: count = want << 16 | expect. */
static const struct ask_job_info *begin(uint16_t want, uint16_t expect, uint32_t seq)
{
	struct pkt b = {.type = ASK_BEGIN,
	                .task = 1,
	                .seq = seq,
	                .start = 77,
	                .count = (uint32_t)want << 16 | expect};
	unsigned n = w->tx[RX].n;
	feed(&b, RX);
	assert_int_equal(w->tx[RX].n, n + 1);
	const struct ask_hdr *h = tx_hdr(RX, n);
	assert_int_equal(h->type, ASK_BEGIN_DONE);
	assert_int_equal(ask_be32(h->seq), seq); /* echoed, and start too */
	assert_int_equal(ask_be32(h->start), 77);
	assert_int_equal(rte_pktmbuf_data_len(w->tx[RX].pkts[n]),
	                 ASK_PAY_OFF + sizeof(struct ask_job_info));
	return (const struct ask_job_info *)(tx_frame(RX, n) + ASK_PAY_OFF);
}

static uint16_t begin_inc(void)
{
	return (uint16_t)(ask_be32(tx_hdr(RX, w->tx[RX].n - 1)->count) >> 16);
}

static uint8_t begin_flags(void)
{
	return tx_hdr(RX, w->tx[RX].n - 1)->flags;
}

/*
 * Jobs on one registration (docs/ask.md, Job lifetime): a job that sent fewer packets than the
 * window left its seqs in the rings and an entry in the AAs; the next job's BEGIN (N from E) resets
 * the task, so the next job's seq 0 is a first occurrence (before BEGIN existed it was a repeat and
 * its tuples were lost) and the leftover entry is gone. A retried BEGIN or a probe changes
 * nothing; a BEGIN from a stale E, of another shape, from another port or too short is refused.
 * The reply reports this incarnation's counts.
 */
static void test_begin(void **state)
{
	(void)state;
	struct pkt f = {.type = ASK_DATA, .task = 1, .seq = 0, .bitmap = 0x1};
	f.key[0] = 100, f.val[0] = 5;
	feed(&f, 0);
	uint32_t v;
	assert_true(entry(1, 0, 0, 100, &v) && v == 5);
	/* E is not the incarnation (0): refused, nothing changes. */
	const struct ask_job_info *ji = begin(5, 3, 10);
	assert_int_equal(ji->error, ASK_BEGIN_INCARNATION);
	assert_int_equal(begin_flags(), ASK_F_ERROR);
	assert_int_equal(begin_inc(), 0);
	assert_true(entry(1, 0, 0, 100, &v));
	/* A probe of an incarnation that is not current fails too. */
	ji = begin(5, 5, 10);
	assert_int_equal(ji->error, ASK_BEGIN_INCARNATION);
	/* The probe of the current one reports this incarnation's counts and the shape. */
	ji = begin(0, 0, 10);
	assert_int_equal(ji->error, ASK_BEGIN_OK);
	assert_int_equal(ask_be64(ji->tuples), 1);
	assert_int_equal(ask_be64(ji->absorbed), 1);
	assert_int_equal(ask_be64(ji->held), 1);
	assert_int_equal(ask_be16(ji->channels), 2);
	assert_int_equal(ask_be32(ji->window), 4);
	assert_int_equal(ask_be32(ji->aa_size), 16);
	assert_int_equal(ji->op, 0);
	assert_int_equal(ji->flags, 0);
	uint32_t reg = ask_be32(ji->reg);
	assert_int_not_equal(reg, 0);
	/* 5 from 0: the task starts afresh. */
	ji = begin(5, 0, 10);
	assert_int_equal(ji->error, ASK_BEGIN_OK);
	assert_int_equal(ji->flags, ASK_JOB_F_RESET);
	assert_int_equal(begin_flags(), 0);
	assert_int_equal(begin_inc(), 5);
	assert_int_equal(ask_be32(ji->jobs), 1);
	assert_int_equal(ask_be32(ji->reg), reg);
	assert_int_equal(ask_be64(ji->tuples) + ask_be64(ji->absorbed) + ask_be64(ji->held), 0);
	assert_false(entry(1, 0, 0, 100, &v)); /* the earlier job's entry is gone */
	/* The earlier incarnation's DATA is dropped; the new one's seq 0 is a first occurrence. */
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_ASK_INCARNATION), 1);
	f.count = 5u << 16, f.val[0] = 7;
	uint64_t repeats = cnt(1)->repeats;
	feed(&f, 0);
	assert_int_equal(cnt(1)->repeats, repeats);
	assert_true(entry(1, 0, 0, 100, &v) && v == 7);
	/* A retry of that BEGIN (its reply lost) and a probe leave the job as it is. */
	ji = begin(5, 0, 10);
	assert_int_equal(ji->error, ASK_BEGIN_OK);
	assert_int_equal(ji->flags, 0);
	ji = begin(5, 5, 11);
	assert_int_equal(ji->flags, 0);
	assert_int_equal(ask_be64(ji->tuples), 1);
	assert_int_equal(ask_be64(ji->held), 1);
	assert_true(entry(1, 0, 0, 100, &v) && v == 7);
	/* BEGIN's seq became the newest control seq: a FETCH older than it is late. */
	struct pkt q = {.type = ASK_FETCH, .task = 1, .seq = 9, .count = 5u << 16 | 8};
	feed(&q, RX);
	assert_int_equal(drops(ISW_DROP_ASK_STALE), 1);
	q.seq = 12;
	feed(&q, RX);
	assert_int_equal(ask_be32(tx_hdr(RX, w->tx[RX].n - 1)->count), 1);
	ji = begin(5, 5, 13);
	assert_int_equal(ask_be64(ji->held), 0); /* fetched */
	assert_int_equal(ask_be64(ji->absorbed), 1);
	/* Refused: another shape; and dropped: another port, too short. */
	struct pkt b = {
	        .type = ASK_BEGIN, .task = 1, .seq = 14, .nslots = 3, .count = 6u << 16 | 5};
	feed(&b, RX);
	ji = (const struct ask_job_info *)(tx_frame(RX, w->tx[RX].n - 1) + ASK_PAY_OFF);
	assert_int_equal(ji->error, ASK_BEGIN_SHAPE);
	b.nslots = 0;
	feed(&b, 0);
	assert_int_equal(drops(ISW_DROP_ASK_PORT), 1);
	b.trunc = 1;
	feed(&b, RX);
	assert_int_equal(drops(ISW_DROP_MALFORMED), 1);
	ji = begin(5, 5, 15);
	assert_int_equal(ask_be32(ji->jobs), 1);
	assert_int_equal(cnt(1)->begins, 9);
	assert_int_equal(cnt(1)->bad_requests, 3);
	/* ask task show has the incarnation BEGIN started. */
	run("ask task show 1", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"incarnation\":5,\"jobs\":1,"));
}

/*
 * ask_aggregate, the aggregator arrays' step alone (what bench/ask-micro --arrays-only times), on
 * each path this CPU has: claim, combine and collision in the copy each slot's bit of active
 * names, and nothing else of the pipeline (the payload and the counters stay as they were).
 */
static void test_aggregate_alone(void **state)
{
	(void)state;
	static const char *const paths[] = {"scalar", "avx512"};
	if (!ask_simd_supported())
		print_message("no AVX-512 (F, DQ, BW, VL) on this CPU: the scalar path only\n");
	for (unsigned p = 0; p < RTE_DIM(paths) && (p == 0 || ask_simd_supported()); p++) {
		char line[64];
		snprintf(line, sizeof(line), "ask config set data-path %s", paths[p]);
		isw_unit_down(w, &out);
		w = isw_unit_up(config, RTE_DIM(config), &out);
		run(line, 1);
		const struct ask_conf *c = ask_conf_cur;
		assert_int_equal(c->simd, p == 1);
		const struct ask_task *t = task(1);
		const unsigned rec = ask_rec_len(8);
		uint64_t a = 100, b = same_entry(1, a);
		uint8_t pay[4 * 12], before[sizeof(pay)];
		memset(pay, 0, sizeof(pay));
		key_bytes(pay, a, 8);
		ask_put32(pay + 8, 5);
		key_bytes(pay + rec, 200, 8);
		ask_put32(pay + rec + 8, 7);
		memcpy(before, pay, sizeof(pay));
		uint32_t claimed = 0xFF, v;
		assert_int_equal(ask_aggregate(c, t, 0, pay, 0x3, &claimed), 0x3);
		assert_int_equal(claimed, 0x3);
		/* Slot 0 combines in copy 0; slot 1, in copy 1, claims there. */
		assert_int_equal(ask_aggregate(c, t, 0x2, pay, 0x3, &claimed), 0x3);
		assert_int_equal(claimed, 0x2);
		assert_true(entry(1, 0, 0, a, &v) && v == 10);
		assert_true(entry(1, 1, 0, 200, &v) && v == 7);
		assert_true(entry(1, 1, 1, 200, &v) && v == 7);
		assert_memory_equal(pay, before, sizeof(pay));
		/* b collides with a: left, the entry unchanged. */
		key_bytes(pay, b, 8);
		assert_int_equal(ask_aggregate(c, t, 0, pay, 0x1, &claimed), 0);
		assert_int_equal(claimed, 0);
		assert_true(entry(1, 0, 0, a, &v) && v == 10);
		assert_int_equal(cnt(1)->tuples, 0);
	}
}

/* A retransmission aggregates nothing and has exactly the slots absorbed the first time
 * cleared, even when the entry that refused a tuple has been emptied since. */
static void test_repeat_never_aggregates(void **state)
{
	(void)state;
	uint64_t a = 7, b = same_entry(1, a);
	struct pkt f = {.type = ASK_DATA, .task = 1, .seq = 0, .bitmap = 0x1};
	f.key[0] = a, f.val[0] = 1;
	feed(&f, 0);
	struct pkt g = {.type = ASK_DATA, .task = 1, .seq = 1, .bitmap = 0x5};
	g.key[0] = b, g.val[0] = 2; /* collides */
	g.key[2] = 300, g.val[2] = 4;
	feed(&g, 0);
	assert_int_equal(ask_be32(tx_hdr(RX, 1)->bitmap), 0x1);
	/* Empty slot 0's entry (as a FETCH would), then retransmit seq 1. */
	struct pkt fe = {
	        .type = ASK_FETCH, .task = 1, .seq = 1, .bitmap = ASK_SEL(0, 0), .count = 100};
	feed(&fe, RX);
	uint32_t v;
	assert_false(entry(1, 0, 0, a, &v));
	g.flags = ASK_F_RESEND;
	feed(&g, 0);
	feed(&g, 0); /* and a network duplicate */
	for (unsigned i = 3; i < 5; i++) {
		assert_int_equal(ask_be32(tx_hdr(RX, i)->bitmap), 0x1);
		assert_int_equal(slot_key(tx_frame(RX, i), 0, 8), b);
		assert_true(slot_zero(tx_frame(RX, i), 2, 8));
	}
	assert_false(entry(1, 0, 0, b, &v)); /* b never claimed the empty entry */
	assert_true(entry(1, 2, 0, 300, &v) && v == 4);
	assert_int_equal(cnt(1)->repeats, 2);
	assert_int_equal(cnt(1)->repeat_cleared, 2);
	assert_int_equal(cnt(1)->tuples, 3);
}

/* Window 4: the rings have 8 positions. Seq 8 reuses seq 0's position as a new packet. */
static void test_ring_wrap_and_window(void **state)
{
	(void)state;
	struct pkt f = {.type = ASK_DATA, .task = 1, .channel = 1, .bitmap = 0x8};
	for (uint32_t s = 0; s <= 8; s++) {
		f.seq = s, f.key[3] = 50, f.val[3] = 1;
		feed(&f, 0);
	}
	uint32_t v;
	assert_true(entry(1, 3, 0, 50, &v) && v == 9);
	assert_int_equal(cnt(1)->repeats, 0);
	f.seq = 8; /* repeat of the newest */
	feed(&f, 0);
	f.seq = 5; /* within the window behind 8: a repeat */
	feed(&f, 0);
	assert_true(entry(1, 3, 0, 50, &v) && v == 9);
	assert_int_equal(cnt(1)->repeats, 2);
	f.seq = 4; /* W or more behind the newest (8): stale, dropped */
	feed(&f, 0);
	f.seq = 0;
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_ASK_STALE), 2);
	f.seq = 13; /* next expected 9: 13 is W beyond */
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_ASK_WINDOW), 1);
	f.seq = 12;
	feed(&f, 0);
	assert_true(entry(1, 3, 0, 50, &v) && v == 10);
	assert_int_equal(cnt(1)->drops, 3);
	/* Channel 0 has a window of its own, untouched by channel 1. */
	struct pkt g = {.type = ASK_DATA, .task = 1, .channel = 0, .seq = 0, .bitmap = 0x8};
	g.key[3] = 50, g.val[3] = 1;
	feed(&g, 0);
	assert_true(entry(1, 3, 0, 50, &v) && v == 11);
}

/* ---- SWAP and FETCH ---- */

static void test_swap_idempotent(void **state)
{
	(void)state;
	struct pkt f = {.type = ASK_DATA, .task = 1, .seq = 0, .bitmap = 0x2};
	f.key[1] = 9, f.val[1] = 1;
	feed(&f, 0);
	struct pkt s = {.type = ASK_SWAP, .task = 1, .seq = 77, .bitmap = ASK_SEL(1, 1)};
	feed(&s, RX);
	const uint8_t *o = tx_frame(RX, 1);
	const struct ask_hdr *h = tx_hdr(RX, 1);
	assert_int_equal(h->type, ASK_SWAP_DONE);
	assert_int_equal(h->flags, 0);
	assert_int_equal(ask_be32(h->seq), 77);
	assert_int_equal(ask_be32(h->bitmap), ASK_SEL(1, 1));
	/* Back to where it came from: addresses and ports swapped. */
	static const uint8_t src[6] = {0x02, 0, 0, 0, 0, 1};
	assert_memory_equal(o, src, 6);
	assert_int_equal(o[26 + 3], 254);
	assert_int_equal(o[30 + 3], 1);
	assert_int_equal(ask_be16(o + 34), ASK_UDP_PORT);
	assert_int_equal(ask_be16(o + 36), 5555);
	assert_int_equal(rte_ipv4_cksum((const struct rte_ipv4_hdr *)(o + 14)), 0);
	feed(&s, RX); /* the retry of a lost SWAP_DONE changes nothing */
	assert_int_equal(ask_be32(tx_hdr(RX, 2)->bitmap), ASK_SEL(1, 1));
	f.seq = 1, f.val[1] = 5;
	feed(&f, 0);
	uint32_t v;
	assert_true(entry(1, 1, 0, 9, &v) && v == 1);
	assert_true(entry(1, 1, 1, 9, &v) && v == 5);
	assert_int_equal(cnt(1)->swaps, 2);
	/* Errors: slot beyond S, a copy bit pattern that is not one; wrong port. */
	s.bitmap = ASK_SEL(4, 0);
	feed(&s, RX);
	assert_int_equal(tx_hdr(RX, 4)->flags, ASK_F_ERROR);
	s.bitmap = 0x400;
	feed(&s, RX);
	assert_int_equal(tx_hdr(RX, 5)->flags, ASK_F_ERROR);
	assert_int_equal(cnt(1)->bad_requests, 2);
	s.bitmap = ASK_SEL(1, 0);
	feed(&s, 0);
	assert_int_equal(drops(ISW_DROP_ASK_PORT), 1);
	run("ask aa show 1", 1);
	assert_non_null(
	        strstr(isw_json_str(&out), "\"slot\":1,\"active\":1,\"used0\":1,\"used1\":1"));
	run("ask swap 1 1", 1);
	run("ask aa show 1 1", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"active\":0"));
}

/* Fills slot 2 of task 1 with n keys (one packet each), returns their sum of values. */
static uint32_t fill(unsigned n, uint32_t seq0)
{
	struct pkt f = {.type = ASK_DATA, .task = 1, .bitmap = 0x4};
	uint32_t sum = 0;
	for (unsigned i = 0; i < n; i++) {
		f.seq = seq0 + i, f.key[2] = 1000 + i, f.val[2] = i + 1;
		feed(&f, 0);
		if (ask_be32(tx_hdr(RX, w->tx[RX].n - 1)->bitmap) == 0)
			sum += i + 1;
	}
	return sum;
}

static void test_fetch_read_clear_and_replay(void **state)
{
	(void)state;
	uint32_t sum = fill(12, 0);
	uint64_t used = cnt(1)->claims;
	assert_true(used > 4);
	isw_test_tx_clear(w);
	/* At most 3 records: the first FETCH stops early and says where to go on. */
	struct pkt fe = {
	        .type = ASK_FETCH, .task = 1, .seq = 1, .bitmap = ASK_SEL(2, 0), .count = 3};
	feed(&fe, RX);
	const struct ask_hdr *h = tx_hdr(RX, 0);
	assert_int_equal(h->type, ASK_FETCH_REPLY);
	assert_int_equal(ask_be32(h->count), 3);
	uint32_t next = ask_be32(h->start);
	assert_true(next > 0 && next < 16);
	uint8_t first[ASK_HDR_LEN + 3 * 12];
	memcpy(first, h, sizeof(first));
	assert_int_equal(rte_pktmbuf_data_len(w->tx[RX].pkts[0]), ASK_PAY_OFF + 3 * 12);
	/* The reply is lost; the retry gets the same bytes, and nothing more is cleared. */
	feed(&fe, RX);
	assert_memory_equal(tx_hdr(RX, 1), first, sizeof(first));
	assert_int_equal(cnt(1)->fetch_replays, 1);
	assert_int_equal(cnt(1)->fetched, 3);
	uint32_t got = 0, n = 0;
	for (unsigned i = 0; i < 3; i++)
		got += ask_be32(first + ASK_HDR_LEN + i * 12 + 8);
	/* Go on from next until the copy is done. */
	fe.seq = 2, fe.start = next, fe.count = 100;
	feed(&fe, RX);
	h = tx_hdr(RX, 2);
	assert_int_equal(ask_be32(h->start), 16);
	n = ask_be32(h->count);
	for (unsigned i = 0; i < n; i++)
		got += ask_be32((const uint8_t *)h + ASK_HDR_LEN + i * 12 + 8);
	assert_int_equal(got, sum);
	assert_int_equal(3 + n, used);
	/* Everything was cleared: a fresh fetch finds nothing. */
	fe.seq = 3, fe.start = 0;
	feed(&fe, RX);
	assert_int_equal(ask_be32(tx_hdr(RX, 3)->count), 0);
	assert_int_equal(ask_be32(tx_hdr(RX, 3)->start), 16);
	/* A late copy of the first FETCH (older seq), or a seq reused for another request: dropped,
	 * nothing read or cleared. */
	fill(2, 12);
	uint64_t fetched = cnt(1)->fetched;
	fe.seq = 1, fe.start = 0, fe.count = 3;
	feed(&fe, RX);
	fe.seq = 3, fe.count = 5;
	feed(&fe, RX);
	assert_int_equal(drops(ISW_DROP_ASK_STALE), 2);
	assert_int_equal(cnt(1)->fetched, fetched);
	struct pkt sw = {.type = ASK_SWAP, .task = 1, .seq = 2, .bitmap = ASK_SEL(2, 1)};
	feed(&sw, RX); /* a late SWAP would undo a newer one */
	assert_int_equal(drops(ISW_DROP_ASK_STALE), 3);
	assert_int_equal(cnt(1)->swaps, 0);
	isw_test_tx_clear(w);
	/* Errors: start beyond the AA, slot beyond S. */
	fe.seq = 4, fe.start = 17;
	feed(&fe, RX);
	assert_int_equal(tx_hdr(RX, 0)->flags, ASK_F_ERROR);
	fe.start = 0, fe.bitmap = ASK_SEL(5, 0);
	feed(&fe, RX);
	assert_int_equal(tx_hdr(RX, 1)->flags, ASK_F_ERROR);
	fe.bitmap = ASK_SEL(2, 0);
	feed(&fe, 1); /* not the receiver's port */
	assert_int_equal(drops(ISW_DROP_ASK_PORT), 1);
}

/* A FETCH in an mbuf without room for a full reply (a pool of small buffers, or data placed at
 * the end) is a counted malformed drop that changes nothing: the same request in a normal mbuf
 * then reads the entries as if the first had never come. */
static void test_fetch_without_tailroom(void **state)
{
	(void)state;
	fill(12, 0);
	uint64_t used = cnt(1)->claims;
	assert_true(used > 4);
	isw_test_tx_clear(w);
	struct pkt fe = {
	        .type = ASK_FETCH, .task = 1, .seq = 7, .bitmap = ASK_SEL(2, 0), .count = 64};
	struct rte_mbuf *m = mk(&fe, RX);
	uint16_t len = rte_pktmbuf_data_len(m);
	uint16_t off = (uint16_t)(m->buf_len - len); /* the frame against the end of the buffer */
	memmove((uint8_t *)m->buf_addr + off, rte_pktmbuf_mtod(m, void *), len);
	m->data_off = off;
	assert_true(rte_pktmbuf_tailroom(m) < ASK_FETCH_BYTES);
	assert_int_equal(ask_process(w, m), ISW_PKT_TAKEN);
	assert_int_equal(drops(ISW_DROP_MALFORMED), 1);
	assert_int_equal(w->tx[RX].n, 0);
	assert_int_equal(cnt(1)->fetches, 0);
	assert_int_equal(cnt(1)->fetched, 0);
	assert_int_equal(cnt(1)->drops, 1);
	feed(&fe, RX);
	const struct ask_hdr *h = tx_hdr(RX, 0);
	assert_int_equal(h->type, ASK_FETCH_REPLY);
	assert_int_equal(h->flags & ASK_F_ERROR, 0);
	assert_int_equal(ask_be32(h->count), used);
	assert_int_equal(cnt(1)->fetch_replays, 0);
}

/* One FETCH looks at no more than ASK_FETCH_SCAN entries of a large AA. */
static void test_fetch_scan_bounded(void **state)
{
	(void)state;
	run("ask task add 9 receiver 02:00:00:00:00:09,10.0.0.9,42405,3 channels 1 window 4 slots "
	    "1 "
	    "key-bytes 4 op add aa-size 4096",
	    1);
	struct pkt fe = {
	        .type = ASK_FETCH, .task = 9, .seq = 1, .bitmap = ASK_SEL(0, 1), .count = 50};
	feed(&fe, RX);
	assert_int_equal(ask_be32(tx_hdr(RX, 0)->start), ASK_FETCH_SCAN);
	fe.seq = 2, fe.start = 4096 - 10;
	feed(&fe, RX);
	assert_int_equal(ask_be32(tx_hdr(RX, 1)->start), 4096);
	run("ask task del 9", 1);
}

/* ---- LONG, operators, several passes ---- */

static void test_long_untouched(void **state)
{
	(void)state;
	struct pkt f = {.type = ASK_DATA,
	                .task = 1,
	                .flags = ASK_F_LONG | ASK_F_LAST,
	                .seq = 3,
	                .bitmap = 0xF};
	for (unsigned j = 0; j < 4; j++)
		f.key[j] = 10 + j, f.val[j] = 1;
	struct rte_mbuf *m = mk(&f, 0);
	uint8_t before[128];
	memcpy(before, rte_pktmbuf_mtod(m, uint8_t *) + ASK_HDR_OFF, ask_data_len(4, 8) - 42);
	ask_process(w, m);
	assert_memory_equal(tx_frame(RX, 0) + ASK_HDR_OFF, before, ask_data_len(4, 8) - 42);
	uint32_t v;
	assert_false(entry(1, 0, 0, 10, &v));
	assert_int_equal(cnt(1)->long_pkts, 1);
	assert_int_equal(cnt(1)->last_pkts, 1);
	assert_int_equal(cnt(1)->tuples, 0);
	/* It leaves the rings alone (position 3 still holds its initial 4, AggState 0)... */
	const struct ask_task *t = task(1);
	assert_int_equal(isw_reg_get(ask_regs[ASK_REG_SEEN], t->ring_base + 3, 0), 4);
	assert_int_equal(isw_reg_get(ask_regs[ASK_REG_AGGSTATE], t->ring_base + 3, 0), 0);
	/* ...but moves the window: next is 4, so seq 6 is inside it (from 0 it would be ahead). */
	f.flags = 0, f.seq = 6;
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_ASK_WINDOW), 0);
	assert_true(entry(1, 0, 0, 10, &v));
}

/* Seqs wrap at 2^32 (serial arithmetic): the window and the ring go on across the wrap. */
static void test_seq_wrap(void **state)
{
	(void)state;
	const struct ask_task *t = task(1);
	isw_reg_set(ask_regs[ASK_REG_WINDOW], t->ring_base, 0, 0xFFFFFFFEu); /* next */
	struct pkt f = {.type = ASK_DATA, .task = 1, .bitmap = 0x2};
	const uint32_t seqs[] = {0xFFFFFFFEu, 0xFFFFFFFFu, 0, 1};
	for (unsigned i = 0; i < RTE_DIM(seqs); i++) {
		f.seq = seqs[i], f.key[1] = 77, f.val[1] = 1;
		feed(&f, 0);
	}
	uint32_t v;
	assert_true(entry(1, 1, 0, 77, &v) && v == 4);
	f.seq = 0xFFFFFFFFu; /* a repeat from before the wrap: nothing aggregated */
	feed(&f, 0);
	assert_true(entry(1, 1, 0, 77, &v) && v == 4);
	assert_int_equal(cnt(1)->repeats, 1);
	f.seq = 0xFFFFFFFDu; /* W or more behind the newest (1): stale */
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_ASK_STALE), 1);
	f.seq = 6; /* next is 2: W beyond */
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_ASK_WINDOW), 1);
}

/* A control seq far behind the newest (a restarted receiver) counts as new, not late. */
static void test_control_seq_restart(void **state)
{
	(void)state;
	struct pkt s = {.type = ASK_SWAP, .task = 1, .seq = 200000, .bitmap = ASK_SEL(0, 1)};
	feed(&s, RX);
	s.seq = 199999, s.bitmap = ASK_SEL(0, 0); /* late */
	feed(&s, RX);
	assert_int_equal(drops(ISW_DROP_ASK_STALE), 1);
	s.seq = 7; /* 199993 behind: a new receiver */
	feed(&s, RX);
	assert_int_equal(cnt(1)->swaps, 2);
	assert_int_equal(ask_be32(tx_hdr(RX, 1)->bitmap), ASK_SEL(0, 0));
	s.seq = 8, s.bitmap = ASK_SEL(0, 1); /* and its next request is served too */
	feed(&s, RX);
	assert_int_equal(cnt(1)->swaps, 3);
}

static void test_operators_and_widths(void **state)
{
	(void)state;
	/* Task 2: max over 4-byte keys, senders only on port 1, receiver UDP port 7000. */
	struct pkt f = {.type = ASK_DATA, .task = 2, .bitmap = 0x1};
	int32_t in[] = {5, -3, 9, 2};
	for (unsigned i = 0; i < 4; i++) {
		f.seq = i, f.key[0] = 0x11223344, f.val[0] = (uint32_t)in[i];
		feed(&f, 1);
	}
	uint32_t v;
	assert_true(entry(2, 0, 0, 0x11223344, &v) && (int32_t)v == 9);
	assert_int_equal(ask_be16(tx_frame(RX, 0) + 36), 7000);
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_ASK_PORT), 1);
	/* Task 3: min over 16-byte keys, 16 slots in two passes. */
	struct pkt g = {.type = ASK_DATA, .task = 3, .bitmap = 0x8101};
	int32_t in3[] = {5, -3, 9};
	for (unsigned i = 0; i < 3; i++) {
		g.seq = i;
		g.key[0] = 1, g.val[0] = (uint32_t)in3[i];
		g.key[8] = 1, g.val[8] = (uint32_t)(in3[i] * 2);
		g.key[15] = 2, g.val[15] = (uint32_t)in3[i];
		feed(&g, 2);
	}
	assert_true(entry(3, 0, 0, 1, &v) && (int32_t)v == -3);
	assert_true(entry(3, 8, 0, 1, &v) && (int32_t)v == -6); /* same array, other rows */
	assert_true(entry(3, 15, 0, 2, &v) && (int32_t)v == -3);
	assert_int_equal(cnt(3)->claims, 3);
	assert_int_equal(cnt(3)->combines, 6);
}

static void test_strict_one_access_per_pass(void **state)
{
	(void)state;
	w->pass.recirc_limit = 1;
	struct pkt g = {.type = ASK_DATA, .task = 3, .bitmap = 0xFFFF};
	for (unsigned j = 0; j < 16; j++)
		g.key[j] = 40 + j, g.val[j] = 1;
	ask_process_strict(w, mk(&g, 0));
	ask_process_strict(w, mk(&g, 0)); /* repeat */
	struct pkt s = {.type = ASK_SWAP, .task = 3, .bitmap = ASK_SEL(3, 1)};
	ask_process_strict(w, mk(&s, RX));
	assert_int_equal(w->pass.multi_access, 0);
	assert_int_equal(w->pass.recirc_over, 0);
	assert_int_equal(cnt(3)->claims, 16);
	assert_int_equal(cnt(3)->repeat_cleared, 16);
}

/* ---- Checks ---- */

static void test_malformed_dropped(void **state)
{
	(void)state;
	struct pkt f = {.type = ASK_DATA, .task = 1, .bitmap = 0x1};
	f.key[0] = 1, f.val[0] = 1;
	f.task = 44;
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_ASK_TASK), 1);
	f.task = 1, f.kb = 4;
	feed(&f, 0);
	f.kb = 0, f.nslots = 5;
	feed(&f, 0);
	f.nslots = 0, f.bitmap = 0x11; /* a slot beyond S */
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_ASK_SHAPE), 3);
	f.bitmap = 0x1, f.trunc = 1;
	feed(&f, 0);
	f.trunc = (uint16_t)(ask_data_len(4, 8) - 50); /* inside the header */
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_MALFORMED), 2);
	f.trunc = 0, f.channel = 2;
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_ASK_CHANNEL), 1);
	f.channel = 0;
	feed(&f, RX); /* DATA from the receiver's port */
	assert_int_equal(drops(ISW_DROP_ASK_PORT), 1);
	f.type = 0;
	feed(&f, 0);
	f.type = ASK_TYPE_MAX + 1;
	feed(&f, 0);
	assert_int_equal(drops(ISW_DROP_MALFORMED), 4);
	/* Not ours: replies and what hosts tell each other, travelling to hosts, and other UDP
	 * ports. */
	static const uint8_t to_hosts[] = {ASK_DATA_ACK,   ASK_SWAP_DONE, ASK_FETCH_REPLY,
	                                   ASK_BEGIN_DONE, ASK_HELLO,     ASK_HELLO_ACK,
	                                   ASK_CLOSE,      ASK_CLOSE_ACK, ASK_ABORT};
	for (unsigned i = 0; i < sizeof(to_hosts); i++) {
		f.type = to_hosts[i];
		feed_next(&f, 0);
	}
	f.type = ASK_DATA_ACK;
	feed_next(&f, 0);
	f.type = ASK_DATA, f.udp = 42406;
	feed_next(&f, 0);
	assert_int_equal(cnt(1)->tuples, 0);
	uint32_t v;
	assert_false(entry(1, 0, 0, 1, &v));
}

static void test_arp_for_ask_address(void **state)
{
	(void)state;
	uint8_t b[60] = {0};
	memset(b, 0xFF, 6);
	const uint8_t smac[6] = {0x02, 0, 0, 0, 0, 9};
	memcpy(b + 6, smac, 6);
	b[12] = 0x08, b[13] = 0x06;
	const uint8_t arp[8] = {0, 1, 8, 0, 6, 4, 0, 1};
	memcpy(b + 14, arp, 8);
	memcpy(b + 22, smac, 6);
	const uint8_t spa[4] = {10, 0, 0, 9}, tpa[4] = {10, 0, 0, 254};
	memcpy(b + 28, spa, 4);
	memcpy(b + 38, tpa, 4);
	assert_int_equal(ask_process(w, isw_test_mbuf(b, 60, RX)), ISW_PKT_TAKEN);
	const uint8_t *o = tx_frame(RX, 0);
	static const uint8_t amac[6] = {0x02, 0, 0, 0, 0xa5, 0xa5};
	assert_memory_equal(o, smac, 6);
	assert_int_equal(o[21], 2);
	assert_memory_equal(o + 22, amac, 6);
	assert_memory_equal(o + 28, tpa, 4);
	b[41] = 253; /* another address: not ours */
	struct rte_mbuf *m = isw_test_mbuf(b, 60, RX);
	assert_int_equal(ask_process(w, m), ISW_PKT_NEXT);
	rte_pktmbuf_free(m);
}

/*
 * In a chain of switches (docs/fabric.md) the receiver's requests to the switch behind this one
 * cross it: SWAP, FETCH and BEGIN to another address pass on untouched and change nothing; DATA
 * to any address is still this switch's to aggregate.
 */
static void test_requests_for_another_switch(void **state)
{
	(void)state;
	struct pkt f = {.type = ASK_DATA, .task = 1, .seq = 0, .bitmap = 0x2, .dip = 7};
	f.key[1] = 9, f.val[1] = 1;
	feed(&f, 0);
	assert_int_equal(cnt(1)->tuples, 1);
	uint32_t v;
	assert_true(entry(1, 1, 0, 9, &v) && v == 1);
	const uint8_t types[] = {ASK_SWAP, ASK_FETCH, ASK_BEGIN};
	for (unsigned i = 0; i < RTE_DIM(types); i++) {
		struct pkt r = {.type = types[i],
		                .task = 1,
		                .seq = 50 + i,
		                .bitmap = ASK_SEL(1, types[i] == ASK_SWAP),
		                .count = 16,
		                .dip = 253};
		feed_next(&r, RX);
	}
	assert_int_equal(cnt(1)->swaps, 0);
	assert_int_equal(cnt(1)->fetches, 0);
	assert_int_equal(cnt(1)->begins, 0);
	assert_int_equal(w->tx[RX].n, 1); /* the DATA only */
	assert_true(entry(1, 1, 0, 9, &v) && v == 1);
	/* The same requests to this switch's address are its own. */
	struct pkt s = {.type = ASK_SWAP, .task = 1, .seq = 60, .bitmap = ASK_SEL(1, 1)};
	feed(&s, RX);
	assert_int_equal(tx_hdr(RX, 1)->type, ASK_SWAP_DONE);
	assert_int_equal(cnt(1)->swaps, 1);
}

static void test_commands_refuse_cleanly(void **state)
{
	(void)state;
	const char *base = "receiver 02:00:00:00:00:09,10.0.0.9,42405,3 channels 1";
	char line[512];
	const char *bad[] = {
	        "window 3 slots 4 key-bytes 8 op add aa-size 16",     /* window not 2^k */
	        "window 4 slots 33 key-bytes 8 op add aa-size 16",    /* slots */
	        "window 4 slots 4 key-bytes 5 op add aa-size 16",     /* key width */
	        "window 4 slots 4 key-bytes 8 op sum aa-size 16",     /* op */
	        "window 4 slots 4 key-bytes 8 op add aa-size 100",    /* AA size not 2^k */
	        "window 4 slots 32 key-bytes 8 op add aa-size 32768", /* rows beyond the switch */
	        "window 4 slots 4 key-bytes 8 op add",                /* missing */
	};
	for (unsigned i = 0; i < RTE_DIM(bad); i++) {
		snprintf(line, sizeof(line), "ask task add 5 %s %s", base, bad[i]);
		run(line, 0);
	}
	run("ask task add 5 receiver 02:00:00:00:00:09,10.0.0.9,3 channels 1 window 4 slots 4 "
	    "key-bytes 8 op add aa-size 16",
	    0);
	run("ask task add 5 receiver 02:00:00:00:00:09,10.0.0.9,42405,9 channels 1 window 4 "
	    "slots 4 key-bytes 8 op add aa-size 16",
	    0);
	isw_unit_refused(&out,
	                 "ask task add 1 receiver 02:00:00:00:00:09,10.0.0.9,42405,3 channels 1 "
	                 "window 4 slots 4 key-bytes 8 op add aa-size 16",
	                 "EEXIST");
	/* Over budget: what is left of the rows cannot hold this, and the refusal says so. */
	isw_unit_refused(&out,
	                 "ask task add 6 receiver 02:00:00:00:00:09,10.0.0.9,42405,3 channels 1 "
	                 "window 4 slots 8 key-bytes 8 op add aa-size 32768",
	                 "ENOSPC");
	assert_non_null(strstr(isw_json_str(&out), "free"));
	run("ask task show", 1);
	assert_null(strstr(isw_json_str(&out), "\"task\":5"));
	assert_null(strstr(isw_json_str(&out), "\"task\":6"));
	run("ask config set udp-port 0", 0);
	run("ask config set mac 01:00:00:00:00:01", 0);
	isw_unit_refused(&out, "ask config set data-path fast", "EINVAL");
	run("ask config set data-path scalar", 1);
	assert_false(ask_conf_cur->simd);
	run("ask config show", 1);
	assert_non_null(strstr(isw_json_str(&out), "\"data_path\":\"scalar\""));
	run("ask config set data-path auto", 1);
	assert_true(ask_conf_cur->simd == ask_simd_supported());
	run("ask config set data-path avx512", ask_simd_supported());
	run("ask swap 1 4", 0);
	run("ask aa show 1 4", 0);
	run("ask task del 2", 1);
	struct pkt f = {.type = ASK_DATA, .task = 2, .bitmap = 0x1};
	feed(&f, 1);
	assert_int_equal(drops(ISW_DROP_ASK_TASK), 1);
	run("budget show", 1);
	assert_null(strstr(isw_json_str(&out), "ask task 2"));
	assert_non_null(strstr(isw_json_str(&out), "ask task 3"));
}

/* ---- The vector path against the scalar path ---- */

/*
 * ask_aggregate_x8 and ask_clear_x8 must do exactly what the scalar path does. One pseudo-random
 * stream per key width, operator and slot count (DATA with repeats, reordering and stale copies;
 * SWAP; FETCH and its retries) goes through a fresh switch on `data-path scalar`, then through
 * another on `data-path avx512`. Every frame sent, the task's registers (`register read`), its
 * counters
 * (`ask task show`), its AAs' fill (`ask aa show`), the drops and a digest of every ask array
 * must be the same. The switch does not check a key's subspace, so any key goes in any slot.
 */

#define DIFF_PKTS     400 /* packets per stream */
#define DIFF_WINDOW   8
#define DIFF_CH       2
#define DIFF_KEYS_MAX 48 /* aa-size * 3 / 2 for aa-size 32 */
#define DIFF_OUT_MAX  (ASK_PAY_OFF + ASK_FETCH_BYTES)
#define DIFF_STATE    20
#define DIFF_NONE     UINT16_MAX

struct diff_case {
	unsigned kb, op, ns, aa;
	char name[64];
};

/* A frame of the stream and the port it comes in on. */
struct diff_in {
	uint16_t len, port;
	uint8_t b[ASK_PAY_OFF + ASK_SLOTS_MAX * (16 + ASK_VALUE_LEN)];
};

/* What the switch did with one frame: the one frame it sent (port -1: none). */
struct diff_out {
	int port;
	uint16_t len;
	uint8_t b[DIFF_OUT_MAX];
};

/* What a run leaves: the replies of the state commands, and the task's counters. */
struct diff_state {
	unsigned n;
	char what[DIFF_STATE][96];
	char *s[DIFF_STATE];
	struct ask_counters k;
};

static struct diff_in diff_in[DIFF_PKTS];
static struct diff_out diff_rec[DIFF_PKTS];
static const char *const diff_ops[] = {"add", "max", "min"};

/* splitmix64: a fixed seed gives the same stream on every machine. */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint32_t rnd_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(rnd(s) % n);
}

/*
 * A key space of 1.5 x aa-size keys, so keys repeat (combines) and share entries (collisions).
 * Key 0 is all zero. Every fourth key is a near twin of an earlier one: one byte changed, in the
 * first half of the key or the second by turns, and the same entry, so only a compare of the
 * whole key tells the two apart.
 */
static unsigned diff_keys(uint64_t *s, const struct diff_case *dc, uint8_t keys[][16])
{
	unsigned kb = dc->kb, n = dc->aa * 3 / 2;
	assert_true(n <= DIFF_KEYS_MAX);
	memset(keys, 0, (size_t)n * 16);
	for (unsigned i = 1; i < n; i++) {
		if (i % 4 != 0) {
			for (unsigned b = 0; b < kb; b++)
				keys[i][b] = (uint8_t)rnd(s);
			continue;
		}
		const uint8_t *base = keys[rnd_below(s, i)];
		uint32_t e = ask_key_entry(base, kb, dc->aa);
		unsigned half = (i / 4) % 2 * (kb / 2);
		do {
			memcpy(keys[i], base, kb);
			keys[i][half + rnd_below(s, kb / 2)] ^= (uint8_t)(1 + rnd_below(s, 255));
		} while (ask_key_entry(keys[i], kb, dc->aa) != e);
	}
	return n;
}

/* Values: full-range (half of them negative), small ones of both signs, and the edges. */
static uint32_t diff_value(uint64_t *s)
{
	static const uint32_t edge[] = {0, 1, UINT32_MAX, INT32_MAX, 0x80000000u};
	uint32_t r = rnd_below(s, 10);
	if (r == 0)
		return edge[rnd_below(s, RTE_DIM(edge))];
	if (r < 5)
		return (uint32_t)((int32_t)rnd_below(s, 201) - 100);
	return (uint32_t)rnd(s);
}

/* Valid slots: none, all, or random ones sparse to dense. */
static uint32_t diff_bitmap(uint64_t *s, unsigned ns)
{
	uint32_t all = ns == 32 ? UINT32_MAX : (1u << ns) - 1;
	switch (rnd_below(s, 8)) {
	case 0:
		return 0;
	case 1:
		return all;
	case 2:
		return (uint32_t)(rnd(s) & rnd(s)) & all;
	case 3:
		return (uint32_t)(rnd(s) | rnd(s)) & all;
	default:
		return (uint32_t)rnd(s) & all;
	}
}

static void diff_frame(const struct pkt *p, uint16_t port, struct diff_in *f)
{
	struct rte_mbuf *m = mk(p, port);
	f->len = rte_pktmbuf_data_len(m);
	f->port = port;
	assert_true(f->len <= sizeof(f->b));
	memcpy(f->b, rte_pktmbuf_mtod(m, const uint8_t *), f->len);
	rte_pktmbuf_free(m);
}

/* A first transmission: keys from the key space in the valid slots; an invalid slot is zero or
 * garbage (the switch ignores it either way). */
static void diff_data(uint64_t *s, const struct diff_case *dc, uint8_t keys[][16], unsigned nkeys,
                      uint16_t ch, uint32_t seq, uint16_t port, struct diff_in *f)
{
	struct pkt p = {.type = ASK_DATA,
	                .task = 1,
	                .channel = ch,
	                .nslots = (uint8_t)dc->ns,
	                .kb = (uint8_t)dc->kb,
	                .seq = seq,
	                .bitmap = diff_bitmap(s, dc->ns)};
	p.flags = rnd_below(s, 50) == 0 ? ASK_F_LAST : 0;
	diff_frame(&p, port, f);
	unsigned rec = ask_rec_len(dc->kb);
	for (unsigned j = 0; j < dc->ns; j++) {
		uint8_t *r = f->b + ASK_PAY_OFF + j * rec;
		if ((p.bitmap >> j) & 1) {
			memcpy(r, keys[rnd_below(s, nkeys)], dc->kb);
			ask_put32(r + dc->kb, diff_value(s));
		} else if (rnd_below(s, 2)) {
			for (unsigned b = 0; b < rec; b++)
				r[b] = (uint8_t)rnd(s);
		}
	}
}

/*
 * The stream: mostly new seqs of two channels from the three sender ports; one in ten new seqs
 * held back and sent a little later (reordering); retransmissions of the last W + 2 seqs (repeats,
 * and stale when W or more behind); SWAP of a random slot to a random copy; FETCH of a few entries
 * of a random slot, copy and start, one in four of them a retry of the previous FETCH.
 */
static unsigned diff_stream(const struct diff_case *dc, uint64_t seed)
{
	uint64_t s = seed;
	uint8_t keys[DIFF_KEYS_MAX][16];
	unsigned nkeys = diff_keys(&s, dc, keys);
	static uint16_t at[DIFF_CH][2 * DIFF_PKTS]; /* seq -> its first frame */
	uint32_t next[DIFF_CH] = {0}, held[DIFF_CH] = {0}, ctl = 1000;
	bool holding[DIFF_CH] = {false};
	int last_fetch = -1;
	memset(at, 0xFF, sizeof(at));
	unsigned n = 0;
	while (n < DIFF_PKTS) {
		struct diff_in *f = &diff_in[n];
		uint16_t ch = (uint16_t)rnd_below(&s, DIFF_CH);
		uint16_t port = (uint16_t)rnd_below(&s, RX); /* senders: any port but RX */
		uint32_t r = rnd_below(&s, 100);
		if (r < 4) {
			struct pkt p = {.type = ASK_SWAP,
			                .task = 1,
			                .nslots = (uint8_t)dc->ns,
			                .kb = (uint8_t)dc->kb,
			                .seq = ctl++,
			                .bitmap = ASK_SEL(rnd_below(&s, dc->ns), rnd_below(&s, 2))};
			diff_frame(&p, RX, f);
		} else if (r < 10) {
			if (last_fetch >= 0 && rnd_below(&s, 4) == 0) {
				*f = diff_in[last_fetch];
			} else {
				struct pkt p = {
				        .type = ASK_FETCH,
				        .task = 1,
				        .nslots = (uint8_t)dc->ns,
				        .kb = (uint8_t)dc->kb,
				        .seq = ctl++,
				        .bitmap = ASK_SEL(rnd_below(&s, dc->ns), rnd_below(&s, 2)),
				        .start = rnd_below(&s, dc->aa),
				        .count = 1 + rnd_below(&s, 8)};
				diff_frame(&p, RX, f);
				last_fetch = (int)n;
			}
		} else if (r < 24) {
			if (next[ch] == 0)
				continue;
			uint32_t back = RTE_MIN(rnd_below(&s, DIFF_WINDOW + 2), next[ch] - 1);
			uint16_t first = at[ch][next[ch] - 1 - back];
			if (first == DIFF_NONE)
				continue; /* held back, not sent yet */
			*f = diff_in[first];
			f->port = port;
			if (rnd_below(&s, 2))
				f->b[ASK_HDR_OFF + 1] |= ASK_F_RESEND;
		} else if (holding[ch] && rnd_below(&s, 2)) {
			diff_data(&s, dc, keys, nkeys, ch, held[ch], port, f);
			at[ch][held[ch]] = (uint16_t)n;
			holding[ch] = false;
		} else {
			if (!holding[ch] && rnd_below(&s, 10) == 0) {
				held[ch] = next[ch]++;
				holding[ch] = true;
			}
			diff_data(&s, dc, keys, nkeys, ch, next[ch], port, f);
			at[ch][next[ch]++] = (uint16_t)n;
		}
		n++;
	}
	return n;
}

static char *diff_dup(const char *s)
{
	size_t len = strlen(s) + 1;
	char *d = malloc(len);
	assert_non_null(d);
	memcpy(d, s, len);
	return d;
}

static void diff_state_put(struct diff_state *st, const char *what, const char *s)
{
	assert_true(st->n < DIFF_STATE);
	snprintf(st->what[st->n], sizeof(st->what[0]), "%s", what);
	st->s[st->n++] = diff_dup(s);
}

static void diff_state_cmd(struct diff_state *st, const char *line)
{
	run(line, 1);
	diff_state_put(st, line, isw_json_str(&out));
}

/* A digest of every cell of every ask register array: catches a write outside the task. */
static uint64_t diff_digest(void)
{
	uint64_t h = 0xCBF29CE484222325ull;
	for (unsigned i = 0; i < ASK_REG_NB; i++) {
		const struct isw_reg *r = ask_regs[i];
		size_t words = (size_t)r->size * r->lanes;
		for (size_t x = 0; x + 1 < words; x += 2) {
			uint64_t v;
			memcpy(&v, &r->cells.u32[x], 8);
			h = (h ^ v) * 0x100000001B3ull;
		}
	}
	return h;
}

static void diff_state_take(struct diff_state *st)
{
	const struct ask_task *t = task(1);
	unsigned ti = ask_conf_cur->index[1];
	uint32_t rows = ask_passes(t->nslots) * 2u * t->aa_size;
	uint32_t ring = t->nchannels * 2u * t->window;
	char line[96];
	diff_state_cmd(st, "ask task show 1");
	diff_state_cmd(st, "ask aa show 1");
	for (unsigned u = 0; u < ASK_AA_UNITS; u++) {
		snprintf(line, sizeof(line), "register read ask.aa%u %u %u", u, t->aa_base, rows);
		diff_state_cmd(st, line);
	}
	static const char *const rings[] = {"seen", "aggstate", "window"};
	for (unsigned i = 0; i < RTE_DIM(rings); i++) {
		snprintf(line, sizeof(line), "register read ask.%s %u %u", rings[i], t->ring_base,
		         ring);
		diff_state_cmd(st, line);
	}
	snprintf(line, sizeof(line), "register read ask.active %u", ti);
	diff_state_cmd(st, line);
	char s[1024];
	size_t len = 0;
	const struct isw_pipeline_stats *ps = &w->stats.pipeline[w->cur_id];
	for (unsigned d = 0; d < ISW_DROP_MAX; d++)
		if (ps->drops[d] != 0)
			len += (size_t)snprintf(s + len, sizeof(s) - len, "%s %" PRIu64 " ",
			                        isw_drop_name(d), ps->drops[d]);
	snprintf(s + len, sizeof(s) - len, "digest %016" PRIx64, diff_digest());
	diff_state_put(st, "drops and digest", s);
	st->k = *cnt(1);
}

static void diff_state_free(struct diff_state *st)
{
	for (unsigned i = 0; i < st->n; i++)
		free(st->s[i]);
	st->n = 0;
}

/*
 * The stream through a fresh switch with the path simd selects. The scalar run (check false)
 * records what is sent; the vector run compares each frame with that as it goes.
 */
static void diff_run(const struct diff_case *dc, unsigned n, bool simd, bool check,
                     struct diff_state *st)
{
	char add[256];
	snprintf(
	        add, sizeof(add),
	        "ask task add 1 receiver 02:00:00:00:00:09,10.0.0.9,42405,%d channels %d window %d "
	        "slots %u key-bytes %u op %s aa-size %u",
	        RX, DIFF_CH, DIFF_WINDOW, dc->ns, dc->kb, diff_ops[dc->op], dc->aa);
	const char *const cfg[] = {"pipeline enable ask", add,
	                           simd ? "ask config set data-path avx512"
	                                : "ask config set data-path scalar"};
	isw_unit_down(w, &out);
	w = isw_unit_up(cfg, RTE_DIM(cfg), &out);
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = isw_test_mbuf(diff_in[i].b, diff_in[i].len, diff_in[i].port);
		assert_non_null(m);
		assert_int_equal(ask_process(w, m), ISW_PKT_TAKEN);
		struct diff_out o = {.port = -1};
		for (int p = 0; p < NPORTS; p++) {
			if (w->tx[p].n == 0)
				continue;
			assert_true(w->tx[p].n == 1 && o.port == -1); /* at most one frame */
			o.port = p;
			o.len = rte_pktmbuf_data_len(w->tx[p].pkts[0]);
			assert_true(o.len <= DIFF_OUT_MAX);
			memcpy(o.b, tx_frame(p, 0), o.len);
		}
		isw_test_tx_clear(w);
		struct diff_out *r = &diff_rec[i];
		if (!check) {
			r->port = o.port, r->len = o.len;
			memcpy(r->b, o.b, o.len);
			continue;
		}
		if (o.port != r->port || o.len != r->len)
			fail_msg("%s: packet %u: vector path sent %u bytes on port %d, scalar %u "
			         "on %d",
			         dc->name, i, o.len, o.port, r->len, r->port);
		for (unsigned b = 0; b < o.len; b++)
			if (o.b[b] != r->b[b])
				fail_msg("%s: packet %u: byte %u of the frame sent is %#x with the "
				         "vector path, %#x with the scalar",
				         dc->name, i, b, o.b[b], r->b[b]);
	}
	diff_state_take(st);
}

static void diff_state_cmp(const struct diff_case *dc, const struct diff_state *a,
                           const struct diff_state *b)
{
	assert_int_equal(a->n, b->n);
	for (unsigned i = 0; i < a->n; i++) {
		const char *x = a->s[i], *y = b->s[i];
		size_t d = 0;
		while (x[d] != '\0' && x[d] == y[d])
			d++;
		if (x[d] != y[d])
			fail_msg("%s: '%s' differs at %zu: scalar ...%.60s, vector ...%.60s",
			         dc->name, a->what[i], d, x + (d > 20 ? d - 20 : 0),
			         y + (d > 20 ? d - 20 : 0));
	}
}

/* The run did what the test is about: each counter here is above zero, and copy 1 of some AA
 * holds entries at the end (`ask aa show`, the state's second reply). */
static void diff_exercised(const struct diff_case *dc, const struct diff_state *st)
{
	const struct ask_counters *k = &st->k;
	const struct {
		const char *name;
		uint64_t v;
	} c[] = {
	        {"claims", k->claims},
	        {"combines", k->combines},
	        {"collisions", k->collisions},
	        {"repeats", k->repeats},
	        {"repeat_cleared", k->repeat_cleared},
	        {"swaps", k->swaps},
	        {"fetched", k->fetched},
	};
	for (unsigned i = 0; i < RTE_DIM(c); i++)
		if (c[i].v == 0)
			fail_msg("%s: the stream made no %s", dc->name, c[i].name);
	const char *u = st->s[1];
	while ((u = strstr(u, "\"used1\":")) != NULL && u[8] == '0')
		u++;
	if (u == NULL)
		fail_msg("%s: no entry of copy 1 is used at the end", dc->name);
}

static void test_simd_matches_scalar(void **state)
{
	(void)state;
	if (!ask_simd_supported()) {
		print_message(
		        "no AVX-512 (F, DQ, BW, VL) on this CPU: the vector path cannot run\n");
		skip();
	}
	static const unsigned widths[] = {4, 8, 16}, slots[] = {1, 7, 8, 9, 16, 24, 32};
	unsigned ci = 0;
	for (unsigned a = 0; a < RTE_DIM(widths); a++)
		for (unsigned op = 0; op < RTE_DIM(diff_ops); op++)
			for (unsigned b = 0; b < RTE_DIM(slots); b++, ci++) {
				struct diff_case dc = {.kb = widths[a],
				                       .op = op,
				                       .ns = slots[b],
				                       .aa = ci % 2 ? 32 : 16};
				snprintf(dc.name, sizeof(dc.name),
				         "key-bytes %u op %s slots %u aa-size %u", dc.kb,
				         diff_ops[op], dc.ns, dc.aa);
				unsigned n = diff_stream(&dc, 0xA5C0DE00u + ci);
				struct diff_state sa = {0}, sv = {0};
				diff_run(&dc, n, false, false, &sa);
				diff_run(&dc, n, true, true, &sv);
				diff_state_cmp(&dc, &sa, &sv);
				diff_exercised(&dc, &sa);
				diff_state_free(&sa);
				diff_state_free(&sv);
			}
}

int main(void)
{
	if (isw_test_eal("test-ask", NPORTS) < 0)
		return 1;
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
	        T(test_claim_combine_collision),
	        T(test_incarnation),
	        T(test_begin),
	        T(test_one_armed_source_mac),
	        T(test_steering),
	        T(test_aggregate_alone),
	        T(test_repeat_never_aggregates),
	        T(test_ring_wrap_and_window),
	        T(test_swap_idempotent),
	        T(test_fetch_read_clear_and_replay),
	        T(test_fetch_without_tailroom),
	        T(test_fetch_scan_bounded),
	        T(test_long_untouched),
	        T(test_seq_wrap),
	        T(test_control_seq_restart),
	        T(test_operators_and_widths),
	        T(test_strict_one_access_per_pass),
	        T(test_malformed_dropped),
	        T(test_arp_for_ask_address),
	        T(test_requests_for_another_switch),
	        T(test_commands_refuse_cleanly),
	        T(test_simd_matches_scalar),
	};
	int rc = cmocka_run_group_tests_name("ask", tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
