/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * atp-checksum: what ATP's end-to-end check costs a worker per packet (bench/README.md, "The
 * end-to-end check of ATP"): atp_ck_add() over the 62 words of each packet as sent (its first
 * send), and atp_ck_take() over each result as received, against atp_values_get(), the decode a
 * result needs anyway, over the same packets of one worker's job; timed with CLOCK_MONOTONIC.
 * A benchmark, not a test: it prints figures and asserts nothing.
 *
 *   atp-checksum [PACKETS [ROUNDS]]    (default 270600 packets: a 64 MiB job's; 5 rounds)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "atp_check.h"
#include "host_clock.h"
#include "atp_host.h"

int main(int argc, char **argv)
{
	unsigned long packets = argc > 1 ? strtoul(argv[1], NULL, 0) : 270600;
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 5;
	static uint8_t vb[4 * ATP_VALUES];
	int32_t q[ATP_VALUES], v[ATP_VALUES];
	uint32_t sent[2] = {0, 0}, got[2] = {0, 0}, sink = 0;
	uint64_t rails = 0;

	for (unsigned i = 0; i < sizeof(vb); i++)
		vb[i] = (uint8_t)(i * 7 + 3);
	for (unsigned i = 0; i < ATP_VALUES; i++)
		q[i] = (int32_t)(i * 2654435761u);
	for (unsigned r = 0; r < rounds; r++) {
		double t0 = (double)host_now_ns() / 1e9;
		for (unsigned long k = 0; k < packets; k++) {
			atp_values_get(vb, v, ATP_VALUES);
			sink += (uint32_t)v[k % ATP_VALUES];
		}
		double t1 = (double)host_now_ns() / 1e9;
		for (unsigned long k = 0; k < packets; k++) {
			uint64_t key = k >> 16, seq = (k & 0xFFFF) + 1;
			atp_ck_add(sent, q, ATP_VALUES, key, (uint32_t)seq);
			rails += atp_ck_take(got, v, vb, ATP_VALUES, key, (uint32_t)seq);
			sink += (uint32_t)v[k % ATP_VALUES];
		}
		double t2 = (double)host_now_ns() / 1e9;
		printf("round %u: %lu packets: decode alone %.2f ms (%.1f ns a packet), checked "
		       "(sent and received, decode included) %.2f ms (%.1f ns a packet): the check "
		       "%.1f ns a packet\n",
		       r, packets, (t1 - t0) * 1e3, (t1 - t0) * 1e9 / (double)packets,
		       (t2 - t1) * 1e3, (t2 - t1) * 1e9 / (double)packets,
		       ((t2 - t1) - (t1 - t0)) * 1e9 / (double)packets);
	}
	printf("(checksums %08x %08x %08x %08x, %llu, %u)\n", sent[0], sent[1], got[0], got[1],
	       (unsigned long long)rails, sink);
	return 0;
}
