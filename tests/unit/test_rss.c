/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the software RSS (dataplane/rss.[ch]) the steering module points redirection
 * table entries with: the Toeplitz hash against the RSS verification suite's published IPv4
 * vectors, and the source-port key, whose table entry must depend on the UDP source port's low
 * bits alone.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rss.h"

/* The verification suite's key (Microsoft's, also the default of many NICs). */
static const uint8_t ms_key[40] = {
        0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
        0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
        0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static uint32_t ip(const char *s)
{
	struct in_addr a;
	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

/* The suite's IPv4 4-tuple vectors (source, destination, ports, hash). */
static void test_hash_vectors(void **state)
{
	(void)state;
	static const struct {
		const char *src, *dst;
		uint16_t sport, dport;
		uint32_t hash;
	} v[] = {
	        {"66.9.149.187", "161.142.100.80", 2794, 1766, 0x51ccc178},
	        {"199.92.111.2", "65.69.140.83", 14230, 4739, 0xc626b0ea},
	        {"24.19.198.95", "12.22.207.184", 12898, 38024, 0x5c2b394a},
	        {"38.27.205.30", "209.142.163.6", 48228, 2217, 0xafc7327f},
	        {"153.39.163.191", "202.188.127.2", 44251, 1303, 0x10e828a2},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(isw_rss_hash_v4_udp(ms_key, ip(v[i].src), ip(v[i].dst), v[i].sport,
		                                     v[i].dport),
		                 v[i].hash);
}

static unsigned bitrev(unsigned x, unsigned n)
{
	unsigned r = 0;
	for (unsigned i = 0; i < n; i++)
		r |= ((x >> i) & 1u) << (n - 1 - i);
	return r;
}

/* With the source-port key, the entry is bitrev(low bits of the source port) XOR a constant
 * of the destination port, for any addresses; consecutive ports take distinct entries. */
static void test_src_port_key(void **state)
{
	(void)state;
	static const uint16_t sizes[] = {64, 128, 512};
	srandom(42);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint16_t size = sizes[s];
		unsigned n = (unsigned)__builtin_ctz(size);
		uint8_t key[40];
		memcpy(key, ms_key, sizeof(key));
		assert_int_equal(isw_rss_key_src_port(key, sizeof(key), size), 0);
		uint32_t dst = ip("10.0.0.254");
		uint16_t c = isw_rss_entry(isw_rss_hash_v4_udp(key, ip("10.0.1.1"), dst, 0, 48864),
		                           size);
		uint8_t seen[512] = {0};
		for (unsigned p = 4000; p < 4000u + size; p++) {
			for (int k = 0; k < 16; k++) {
				uint32_t src = (uint32_t)random();
				uint32_t d = k & 1 ? (uint32_t)random() : dst;
				uint16_t e = isw_rss_entry(
				        isw_rss_hash_v4_udp(key, src, d, (uint16_t)p, 48864), size);
				assert_int_equal(e, c ^ bitrev(p & (size - 1u), n));
			}
			uint16_t e = isw_rss_entry(
			        isw_rss_hash_v4_udp(key, ip("10.0.1.1"), dst, (uint16_t)p, 48864),
			        size);
			assert_int_equal(seen[e], 0);
			seen[e] = 1;
		}
		/* Key bits outside 32-n..110 are the port's own. */
		for (unsigned i = 0; i < 8 * sizeof(key); i++)
			if (i < 32 - n || i > 110)
				assert_int_equal((key[i / 8] ^ ms_key[i / 8]) >> (7 - i % 8) & 1,
				                 0);
	}
	uint8_t key[40] = {0};
	assert_int_equal(isw_rss_key_src_port(key, sizeof(key), 96), -EINVAL);
	assert_int_equal(isw_rss_key_src_port(key, 8, 128), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_hash_vectors),
	        cmocka_unit_test(test_src_port_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
