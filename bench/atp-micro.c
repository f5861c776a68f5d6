/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * atp-micro: the ATP pipeline's packet entry point alone, without ports, on the bench's traffic
 * (bench/README.md, "ATP's job check"). A benchmark, not a test: it prints figures and asserts
 * nothing.
 *
 *   atp-micro [--aggregators N] [--rounds R] [--job J]
 *
 * Brings up the switch in-process (the test harness's EAL and worker, no ports) with app 1 of 8
 * workers behind port 0 and its PS on port 1, names job J (`atp app reset 1 job J`, default 5),
 * builds the frames `pcapgen atp-bench` has (per aggregator: the 8 workers' frames of job J, the
 * last one completing it, then the PS's ACK, which frees it; N aggregators, default 100), and, R
 * rounds (default 400), copies them all into mbufs and times atp_process() over them with the
 * TSC, the worker's millisecond clock one ms further each round, the transmit buffers emptied
 * after each ACK (included in the time). Prints the best
 * round's ns per frame and the app's counters (every aggregate must complete and be freed).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "atp.h"
#include "cmd.h"
#include "isw_test.h"
#include "worker.h"

#define WORKERS 8u

int main(int argc, char **argv)
{
	static const struct option lo[] = {{"aggregators", required_argument, NULL, 'n'},
	                                   {"rounds", required_argument, NULL, 'r'},
	                                   {"job", required_argument, NULL, 'j'},
	                                   {NULL, 0, NULL, 0}};
	unsigned na = 100, rounds = 400;
	unsigned long job = 5;
	char reset[64];
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'n')
			na = (unsigned)strtoul(optarg, NULL, 0);
		else if (c == 'r')
			rounds = (unsigned)strtoul(optarg, NULL, 0);
		else if (c == 'j')
			job = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	if (na == 0 || na > 1000 || rounds == 0 || job > UINT32_MAX) {
		fprintf(stderr,
		        "usage: atp-micro [--aggregators 1..1000] [--rounds R] [--job J]\n");
		return 2;
	}
	snprintf(reset, sizeof(reset), "atp app reset 1 job %lu", job);
	const char *const config[] = {"pipeline enable atp", "atp pool resize 1000",
	                              "atp app add 1 workers 8 ports 0 ps 1", reset};
	static struct isw_json out;
	if (isw_test_eal("atp-micro", 2) < 0)
		return 1;
	struct isw_worker *w = isw_test_worker();
	if (w == NULL || isw_test_switch_up(config, RTE_DIM(config), &out) < 0)
		return 1;
	unsigned nf = na * (WORKERS + 1);
	uint8_t(*fr)[ATP_FRAME_LEN] = calloc(nf, ATP_FRAME_LEN);
	uint16_t *port = calloc(nf, sizeof(*port));
	struct rte_mbuf **m = calloc(nf, sizeof(*m));
	if (fr == NULL || port == NULL || m == NULL)
		return 1;
	for (unsigned a = 0, k = 0; a < na; a++)
		for (unsigned r = 0; r <= WORKERS; r++, k++) {
			uint8_t *b = fr[k];
			bool ack = r == WORKERS;
			memcpy(b, ack ? atp_worker_mac_prefix : atp_ps_mac_prefix, 5);
			memcpy(b + 6, atp_src_mac, 6);
			atp_put16(b + 12, ATP_ETHERTYPE);
			memcpy(b + 14, atp_ip_template, 20);
			atp_put32(b + ATP_OFF_HDR, ack ? 1 : 1u << r);
			b[ATP_OFF_HDR + 4] = WORKERS;
			b[ATP_OFF_HDR + 5] = ack ? ATP_F_ACK : 0;
			atp_put16(b + ATP_OFF_HDR + 6, 1);
			atp_put16(b + ATP_OFF_HDR + 8, (uint16_t)(a + 1));
			atp_put16(b + ATP_OFF_HDR + 10, (uint16_t)a);
			for (unsigned j = 0; j < ATP_VALUES; j++)
				atp_put32(b + ATP_OFF_VALUES + 4 * j, (r + 1) * (j + 1));
			for (unsigned i = 0; i < 4; i++) /* the job: the key's high half, LE */
				b[ATP_OFF_KEY + 4 + i] = (uint8_t)(job >> (8 * i));
			port[k] = ack ? 1 : 0;
		}
	double best = 1e9;
	for (unsigned rd = 0; rd < rounds; rd++) {
		for (unsigned i = 0; i < nf; i++)
			if ((m[i] = isw_test_mbuf(fr[i], ATP_FRAME_LEN, port[i])) == NULL)
				return 1;
		w->now_ms = 1000 + rd; /* as the loop sets it: a millisecond clock that moves */
		uint64_t t0 = rte_rdtsc();
		for (unsigned i = 0; i < nf; i++) {
			atp_process(w, m[i]);
			if (i % (WORKERS + 1) == WORKERS)
				isw_test_tx_clear(w);
		}
		double ns = (double)(rte_rdtsc() - t0) * 1e9 / (double)rte_get_tsc_hz() / nf;
		best = ns < best ? ns : best;
	}
	const struct atp_counters *t = &atp_counters[0][1];
	printf("atp-micro: %u aggregators x %u frames, best of %u rounds: %.2f ns/frame "
	       "(completions %lu, freed %lu, drops %lu)\n",
	       na, WORKERS + 1, rounds, best, (unsigned long)t->completions,
	       (unsigned long)t->freed, (unsigned long)t->drops);
	return 0;
}
