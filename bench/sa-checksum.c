/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sa-checksum: what SyncAgtr's end-to-end check costs a worker per word (bench/README.md,
 * "SyncAgtr's end-to-end check"): sa_checksum_add() over the packets of one worker's job, every
 * packet once sent and once received, timed with CLOCK_MONOTONIC. A benchmark, not a test: it
 * prints figures and asserts nothing.
 *
 *   sa-checksum [PACKETS [ROUNDS]]     (default 131072 packets of 256 words: a 64 MiB job's
 *                                       65536 packets, sent and received; 5 rounds)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "host_clock.h"
#include "sa_engine.h"

int main(int argc, char **argv)
{
	unsigned long packets = argc > 1 ? strtoul(argv[1], NULL, 0) : 131072;
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 5;
	static uint8_t values[4 * SA_ELEMS_MAX];
	uint32_t posw[SA_ELEMS_MAX], ck[2] = {0, 0};

	for (unsigned i = 0; i < SA_ELEMS_MAX; i++)
		posw[i] = sa_checksum_weight(i);
	for (unsigned i = 0; i < sizeof(values); i++)
		values[i] = (uint8_t)(i * 7 + 3);
	for (unsigned r = 0; r < rounds; r++) {
		double t = (double)host_now_ns() / 1e9;
		for (unsigned long k = 0; k < packets; k++)
			sa_checksum_add(ck, posw, values, 0, k, SA_ELEMS_MAX);
		t = (double)host_now_ns() / 1e9 - t;
		printf("round %u: %lu packets of %u words in %.2f ms: %.3f ns a word\n", r, packets,
		       SA_ELEMS_MAX, t * 1e3, t * 1e9 / (double)packets / SA_ELEMS_MAX);
	}
	printf("(checksums %08x %08x)\n", ck[0], ck[1]);
	return 0;
}
