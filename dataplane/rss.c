/* SPDX-License-Identifier: BSD-3-Clause */
/* The RSS hash of an IPv4 UDP packet, as the NIC computes it. */

#include <errno.h>
#include <stdbool.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_thash.h>

#include "rss.h"

uint32_t isw_rss_hash_v4_udp(const uint8_t *key, uint32_t ip_src, uint32_t ip_dst, uint16_t udp_src,
                             uint16_t udp_dst)
{
	/* rte_softrss takes the tuple as host-order words: source, destination, then the ports
	 * with the source port in the high half, which is the order the NIC feeds the bytes. */
	union rte_thash_tuple t = {0};
	t.v4.src_addr = rte_be_to_cpu_32(ip_src);
	t.v4.dst_addr = rte_be_to_cpu_32(ip_dst);
	t.v4.sport = udp_src;
	t.v4.dport = udp_dst;
	return rte_softrss((uint32_t *)&t, RTE_THASH_V4_L4_LEN, key);
}

static void key_bit_set(uint8_t *key, unsigned i, bool v)
{
	uint8_t m = (uint8_t)(0x80u >> (i % 8));
	key[i / 8] = v ? key[i / 8] | m : key[i / 8] & (uint8_t)~m;
}

int isw_rss_key_src_port(uint8_t *key, unsigned len, uint16_t reta_size)
{
	if (len < ISW_RSS_KEY_MIN || reta_size < 2 || !rte_is_power_of_2(reta_size))
		return -EINVAL;
	/*
	 * n table bits are result bits 32-n..31. Source address bits 0..31 reach them through key
	 * bits 32-n..62, destination address bits 32..63 through 64-n..94, source port bits
	 * 64..79 through 96-n..110: all cleared, but for bit 111-n, which joins source port bit
	 * 79-k (its k-th lowest bit) to table bit n-1-k for k < n and to nothing else. The
	 * destination port (bits 80..95, key bits 112-n..126) keeps its key bits: a constant.
	 */
	unsigned n = (unsigned)__builtin_ctz(reta_size);
	for (unsigned i = 32 - n; i <= 110; i++)
		key_bit_set(key, i, i == 111 - n);
	return 0;
}
