/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RSS as a NIC does it, computed in software so the steering module can point redirection
 * table entries at the queue of the lcore that owns a packet's state: the Toeplitz hash of an
 * IPv4 UDP packet's 4-tuple under the port's key, and the table entry it selects. Pure
 * functions, no ethdev calls; any thread.
 */
#ifndef ISW_RSS_H
#define ISW_RSS_H

#include <stdint.h>

#define ISW_RSS_KEY_MIN 16 /* key bytes the 12-byte IPv4 4-tuple needs */
#define ISW_RSS_KEY_MAX 64

/*
 * The Toeplitz hash a NIC computes for RSS over (source IP, destination IP, source port,
 * destination port), in that order. Addresses in network order, ports in host order; key is
 * the port's hash key as the NIC holds it (at least ISW_RSS_KEY_MIN bytes).
 */
uint32_t isw_rss_hash_v4_udp(const uint8_t *key, uint32_t ip_src, uint32_t ip_dst, uint16_t udp_src,
                             uint16_t udp_dst);

/* The redirection table entry a hash selects: its low bits (reta_size a power of two, as on
 * every NIC DPDK drives; otherwise the remainder). */
static inline uint16_t isw_rss_entry(uint32_t hash, uint16_t reta_size)
{
	return (uint16_t)(hash % reta_size);
}

/*
 * Rewrites key (len bytes, a port's RSS key) so that the table entry of an IPv4 UDP packet,
 * under a table of reta_size entries, is the bit-reversed low log2(reta_size) bits of its UDP
 * source port XOR a constant of its destination port, whatever its addresses: every worker's
 * thread t, sending from source port base + t, then lands on one entry, and reta_size
 * consecutive ports on distinct ones. The Toeplitz hash is linear: an input bit at position j
 * (from the first address byte's high bit) flips result bit r (0 is the high bit) iff key bit
 * j + r is set, so zeroing key bits 32 - n .. 110 but one cuts the addresses out of the low n
 * result bits. The other key bits are kept.
 * Returns 0, or -EINVAL when reta_size is not a power of two or the key is shorter than
 * ISW_RSS_KEY_MIN.
 */
int isw_rss_key_src_port(uint8_t *key, unsigned len, uint16_t reta_size);

#endif
