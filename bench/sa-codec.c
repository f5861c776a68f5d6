/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sa-codec: what SyncAgtr's per-value loops cost a worker per word (bench/README.md, "The float
 * codec" and "SyncAgtr's end-to-end check"): over the packets of one worker's job, each loop a
 * packet's values pass: the float32 block exponent (sa_exponent), quantisation into a packet
 * (sa_pkt_put_f32), the result back to floats (sa_pkt_get_f32), the int32 copies
 * (sa_pkt_put_i32, sa_pkt_get_i32) and the end-to-end checksum (sa_checksum_add, every packet
 * once sent and once received), timed with CLOCK_MONOTONIC. A benchmark, not a test: it prints
 * figures and asserts nothing.
 *
 *   sa-codec [PACKETS [ROUNDS]]     (default 65536 packets of 256 words: a 64 MiB job;
 *                                    5 rounds)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_clock.h"
#include "sa_engine.h"

enum loop { L_EXP, L_PUT_F32, L_GET_F32, L_PUT_I32, L_GET_I32, L_CHECKSUM, L_MAX };

static const char *const names[L_MAX] = {
        "sa_exponent",    "sa_pkt_put_f32", "sa_pkt_get_f32",
        "sa_pkt_put_i32", "sa_pkt_get_i32", "sa_checksum_add (x2)",
};

int main(int argc, char **argv)
{
	unsigned long packets = argc > 1 ? strtoul(argv[1], NULL, 0) : 65536;
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 5;
	const size_t words = (size_t)packets * SA_ELEMS_MAX;
	static uint8_t buf[SA_PAYLOAD_LEN(SA_ELEMS_MAX)];
	uint32_t posw[SA_ELEMS_MAX], ck[2] = {0, 0}, sink = 0;
	float *x = malloc(words * sizeof(*x));
	struct sa_pkt p = {.values = buf + sizeof(struct sa_hdr)};

	if (packets == 0 || x == NULL) {
		fprintf(stderr, "sa-codec: PACKETS must be 1.. and fit in memory\n");
		return 1;
	}
	for (unsigned i = 0; i < SA_ELEMS_MAX; i++)
		posw[i] = sa_checksum_weight(i);
	/* gradient-like values: both signs, magnitudes over a few binades */
	for (size_t i = 0; i < words; i++)
		x[i] = sa_gen_f32(1, 0, i);
	double scale = sa_scale(sa_exponent(x, SA_ELEMS_MAX), 4);
	for (unsigned r = 0; r < rounds; r++) {
		printf("round %u, %lu packets of %u words:", r, packets, SA_ELEMS_MAX);
		for (int l = 0; l < L_MAX; l++) {
			uint64_t t = host_now_ns();
			for (unsigned long k = 0; k < packets; k++) {
				float *v = x + k * SA_ELEMS_MAX;
				switch (l) {
				case L_EXP:
					sink += (uint32_t)sa_exponent(v, SA_ELEMS_MAX);
					break;
				case L_PUT_F32:
					sa_pkt_put_f32(buf, v, SA_ELEMS_MAX, SA_ELEMS_MAX, scale,
					               4);
					sink += buf[sizeof(buf) - 1];
					break;
				case L_GET_F32:
					sa_pkt_get_f32(v, &p, SA_ELEMS_MAX, scale);
					break;
				case L_PUT_I32:
					sa_pkt_put_i32(buf, (const int32_t *)v, SA_ELEMS_MAX,
					               SA_ELEMS_MAX);
					sink += buf[sizeof(buf) - 1];
					break;
				case L_GET_I32:
					sa_pkt_get_i32((int32_t *)v, &p, SA_ELEMS_MAX);
					break;
				default:
					sa_checksum_add(ck, posw, p.values, 0, 2 * k, SA_ELEMS_MAX);
					sa_checksum_add(ck, posw, p.values, 0, 2 * k + 1,
					                SA_ELEMS_MAX);
				}
			}
			t = host_now_ns() - t;
			printf(" %s %.3f", names[l], (double)t / (double)words);
		}
		printf(" ns a word\n");
	}
	printf("(sums %08x %08x %08x)\n", ck[0], ck[1], sink);
	free(x);
	return 0;
}
