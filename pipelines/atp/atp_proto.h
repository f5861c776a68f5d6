/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ATP wire format (docs/atp.md): raw 308-byte Ethernet frames of EtherType 0x0700 with a fixed IPv4
 * template (only its ECN bits matter), the 14-byte ATP header, 62 int32 values (big-endian), the
 * tensor key and length. Shared by the switch pipeline, the host tools (hosts/atp/) and the capture
 * generator (pcaps/); depends only on the C library.
 */
#ifndef ISW_ATP_PROTO_H
#define ISW_ATP_PROTO_H

#include <stdint.h>

#define ATP_ETHERTYPE 0x0700u
#define ATP_FRAME_LEN 308u
#define ATP_VALUES    62u
#define ATP_AGTR_MAX  20000u /* agtr2 = agtr + ATP_AGTR_MAX on the wire (echoed, not used) */

/* The limits the switch and the hosts share. */
#define ATP_WORKERS_MAX 32u    /* workers of an app: one bit each in the 32-bit bitmap */
#define ATP_POOL_MAX    32768u /* aggregators in the switch (register size) */

/* Offsets from the first byte of the Ethernet header. */
#define ATP_OFF_TOS    15u /* IPv4 DSCP/ECN byte of the template: ECN = bits 1..0 */
#define ATP_OFF_HDR    34u
#define ATP_OFF_VALUES 48u
#define ATP_OFF_KEY    296u
#define ATP_OFF_LEN    304u

/* Flag byte (offset 39). */
#define ATP_F_OVERFLOW  0x80u /* float payload: forward to the PS without aggregating */
#define ATP_F_PSINDEX   0x60u /* which of the app's parameter servers */
#define ATP_F_DATAINDEX 0x10u /* set by the switch on the way to the PS */
#define ATP_F_ECN       0x08u /* congestion seen */
#define ATP_F_RESEND    0x04u /* retransmission: never claims an aggregator */
#define ATP_F_COLLISION 0x02u /* aggregator busy (to the PS); in an ACK: new agtr in len_tensor */
#define ATP_F_ACK       0x01u /* result from the PS */

/* The region note (docs/memory.md, ATP): in an ACK or ANNOUNCE of an app whose region has
 * changed, the switch sets dataIndex (a PS clears it in ACKs) and writes the app's region over
 * two fields workers do not read in results: bitmap := first aggregator << 16 | aggregators
 * (modulo 2^16: 0 stands for 65536), agtr2 := the region's generation. */
#define ATP_F_NOTE ATP_F_DATAINDEX

#define ATP_PSINDEX_SHIFT 5u
#define ATP_PS_MAX        4u /* PSIndex is two bits */

/* The ATP header at offset 34, as on the wire (multi-byte fields big-endian). */
struct atp_hdr {
	uint8_t bitmap[4];
	uint8_t num_worker;
	uint8_t flag;
	uint8_t app[2];
	uint8_t seq[2];
	uint8_t agtr[2];
	uint8_t agtr2[2];
} __attribute__((packed));

_Static_assert(sizeof(struct atp_hdr) == 14, "ATP header is 14 bytes");

static inline uint16_t atp_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t atp_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void atp_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void atp_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Writes the region note into the ATP header hdr (offset 34 of the frame). */
static inline void atp_note_put(uint8_t *hdr, uint16_t gen, uint16_t base, uint32_t size)
{
	hdr[5] |= ATP_F_NOTE;
	atp_put16(hdr, base);
	atp_put16(hdr + 2, (uint16_t)size);
	atp_put16(hdr + 12, gen);
}

/* The IPv4 template every host puts at bytes 14..33 (ATP's common/packet.h). */
static const uint8_t atp_ip_template[20] = {0x45, 0x00, 0x00, 0x54, 0x00, 0x00, 0x40,
                                            0x00, 0x40, 0x01, 0xaf, 0xb6, 0x0d, 0x07,
                                            0x38, 0x66, 0x0d, 0x07, 0x38, 0x7f};

/* Source MAC of every ATP frame, and the destination MAC prefixes (last byte = thread). */
static const uint8_t atp_src_mac[6] = {0xe4, 0x1d, 0x2d, 0xf3, 0xdd, 0xcc};
static const uint8_t atp_ps_mac_prefix[5] = {0x05, 0x04, 0x03, 0x02, 0x01};
static const uint8_t atp_worker_mac_prefix[5] = {0x77, 0x77, 0x77, 0x77, 0x77};

#endif
