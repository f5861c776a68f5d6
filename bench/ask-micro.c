/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ask-micro: the ASK pipeline's packet entry point alone, on a capture of DATA frames, without
 * ports (bench/README.md, "Where ASK's time goes"). A benchmark, not a test: it prints figures
 * and asserts nothing.
 *
 *   ask-micro PCAP TASK-COMMAND [--scalar] [--arrays-only] [--frames N] [--rounds R]
 *
 * Brings up the switch in-process (the test harness's EAL and worker, no ports), enables ask,
 * runs TASK-COMMAND (e.g. the line `pcapgen ask-bench --config F` writes), then, R rounds of
 * 200 passes over the first N frames of PCAP (default all, at most 4096), copies each group of
 * 32 frames into mbufs, gives each the next seq (one counter: the captures of `pcapgen ask-bench`
 * have one channel), and
 * times ask_process() over the group with the TSC. Prints ns per frame, per round, for the
 * vector path (the default where the CPU has it) or the scalar one (--scalar). Fewer frames
 * (--frames 32) keep every entry in L1, which separates the misses from the rest.
 *
 * --arrays-only times the aggregator arrays' step alone, on either path: for each frame,
 * ask_aggregate() on its payload (the 16 hashes, entry addresses and SALUs of a frame of the
 * bench capture) and nothing else of ask_process() (no header checks, window, seen, AggState,
 * clear, rewrite or transmit). It bounds from below what any frame of that traffic costs.
 */
#include <errno.h>
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "ask.h"
#include "cmd.h"
#include "isw_test.h"
#include "json.h"
#include "worker.h"

#define MICRO_FRAMES_MAX 4096
#define MICRO_GROUP      32
#define MICRO_PASSES     200

static uint8_t frames[MICRO_FRAMES_MAX][ASK_PAY_OFF + ASK_SLOTS_MAX * 20];
static uint16_t frame_len[MICRO_FRAMES_MAX];

static int load(const char *path, unsigned *n)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	if (pc == NULL) {
		fprintf(stderr, "ask-micro: %s: %s\n", path, err);
		return -1;
	}
	struct pcap_pkthdr *h;
	const u_char *d;
	*n = 0;
	while (*n < MICRO_FRAMES_MAX && pcap_next_ex(pc, &h, &d) == 1) {
		if (h->caplen < ASK_PAY_OFF || h->caplen > sizeof(frames[0])) {
			fprintf(stderr, "ask-micro: frame %u: %u bytes, not an ASK DATA frame\n",
			        *n, h->caplen);
			pcap_close(pc);
			return -1;
		}
		memcpy(frames[*n], d, h->caplen);
		frame_len[(*n)++] = (uint16_t)h->caplen;
	}
	pcap_close(pc);
	if (*n < MICRO_GROUP) {
		fprintf(stderr, "ask-micro: %s: %u frames, at least %u needed\n", path, *n,
		        MICRO_GROUP);
		return -1;
	}
	return 0;
}

/* The task of the first nuse frames for --arrays-only, which skips ask_process()'s checks: every
 * frame must be a DATA frame of one registered task, of its shape and length, not LONG. */
static const struct ask_task *arrays_task(const struct ask_conf *cf, unsigned nuse)
{
	const struct ask_hdr *h0 = (const struct ask_hdr *)(frames[0] + ASK_HDR_OFF);
	unsigned ti = cf->index[ask_be16(h0->task)];
	const struct ask_task *t = &cf->tasks[ti];
	for (unsigned i = 0; i < nuse; i++) {
		const struct ask_hdr *h = (const struct ask_hdr *)(frames[i] + ASK_HDR_OFF);
		if (ti == 0 || h->type != ASK_DATA || (h->flags & ASK_F_LONG) ||
		    ask_be16(h->task) != t->id || !ask_shape_ok(t, h) ||
		    frame_len[i] < ask_data_len(t->nslots, t->key_bytes)) {
			fprintf(stderr,
			        "ask-micro: frame %u is not a DATA frame of a registered task "
			        "of its shape\n",
			        i);
			return NULL;
		}
	}
	return t;
}

static volatile uint32_t sink_out;

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"scalar", no_argument, NULL, 's'},
	                                     {"frames", required_argument, NULL, 'f'},
	                                     {"rounds", required_argument, NULL, 'r'},
	                                     {"arrays-only", no_argument, NULL, 'a'},
	                                     {NULL, 0, NULL, 0}};
	bool scalar = false, arrays = false;
	unsigned nuse = MICRO_FRAMES_MAX, rounds = 5, n;
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's')
			scalar = true;
		else if (c == 'f')
			nuse = (unsigned)strtoul(optarg, NULL, 0);
		else if (c == 'r')
			rounds = (unsigned)strtoul(optarg, NULL, 0);
		else if (c == 'a')
			arrays = true;
		else
			return 2;
	}
	if (argc - optind != 2 || rounds == 0) {
		fprintf(stderr, "usage: ask-micro PCAP TASK-COMMAND [--scalar] [--arrays-only] "
		                "[--frames N] [--rounds R]\n");
		return 2;
	}
	if (load(argv[optind], &n) < 0)
		return 1;
	if (nuse < MICRO_GROUP)
		nuse = MICRO_GROUP;
	nuse = RTE_MIN(nuse, n) / MICRO_GROUP * MICRO_GROUP;
	if (isw_test_eal("ask-micro", 2) < 0)
		return 1;
	struct isw_worker *w = isw_test_worker();
	struct isw_json out;
	isw_json_init(&out);
	const char *config[] = {"pipeline enable ask", argv[optind + 1],
	                        scalar ? "ask config set data-path scalar"
	                               : "ask config set data-path auto"};
	if (w == NULL || isw_test_switch_up(config, RTE_DIM(config), &out) < 0)
		return 1;
	struct rte_mbuf *mb[MICRO_GROUP];
	if (rte_pktmbuf_alloc_bulk(isw_dp.pool, mb, MICRO_GROUP) != 0) {
		fprintf(stderr, "ask-micro: no mbufs\n");
		return 1;
	}
	const struct ask_conf *cf = ask_conf_cur;
	const struct ask_task *t = NULL;
	uint32_t active = 0;
	if (arrays) {
		t = arrays_task(cf, nuse);
		if (t == NULL)
			return 1;
		active = isw_salu_read(NULL, ask_regs[ASK_REG_ACTIVE], (uint32_t)(t - cf->tasks));
	}
	printf("ask-micro: %u frames, %s path%s\n", nuse, cf->simd ? "vector (AVX-512)" : "scalar",
	       arrays ? ", aggregator arrays only" : "");
	uint32_t seq = 0, sink = 0;
	for (unsigned r = 0; r < rounds; r++) {
		uint64_t cycles = 0, pkts = 0;
		for (unsigned pass = 0; pass < MICRO_PASSES; pass++) {
			for (unsigned b = 0; b < nuse; b += MICRO_GROUP) {
				for (unsigned i = 0; i < MICRO_GROUP; i++) {
					struct rte_mbuf *m = mb[i];
					m->data_off = RTE_PKTMBUF_HEADROOM;
					m->data_len = m->pkt_len = frame_len[b + i];
					memcpy(rte_pktmbuf_mtod(m, void *), frames[b + i],
					       frame_len[b + i]);
					isw_meta(m)->in_port = 0;
					struct ask_hdr *h = rte_pktmbuf_mtod_offset(
					        m, struct ask_hdr *, ASK_HDR_OFF);
					ask_put32(h->seq, seq++);
				}
				uint64_t t0 = rte_rdtsc();
				if (arrays) {
					for (unsigned i = 0; i < MICRO_GROUP; i++) {
						const uint8_t *f =
						        rte_pktmbuf_mtod(mb[i], uint8_t *);
						const struct ask_hdr *h =
						        (const struct ask_hdr *)(f + ASK_HDR_OFF);
						uint32_t claimed;
						sink += ask_aggregate(
						        cf, t, active, f + ASK_PAY_OFF,
						        ask_be32(h->bitmap), &claimed);
					}
				} else {
					for (unsigned i = 0; i < MICRO_GROUP; i++)
						ask_process(w, mb[i]);
				}
				cycles += rte_rdtsc() - t0;
				pkts += MICRO_GROUP;
				/* The frames stay ours: forget what the pipeline queued or dropped.
				 */
				for (uint16_t p = 0; p < isw_dp.nb_ports; p++)
					w->tx[p].n = 0;
				w->dead.n = 0;
			}
		}
		printf("round %u: %.1f ns per frame in %s\n", r + 1,
		       (double)cycles * 1e9 / (double)rte_get_tsc_hz() / (double)pkts,
		       arrays ? "the aggregator arrays" : "ask_process");
	}
	sink_out = sink; /* the arrays' results are used */
	return 0;
}
