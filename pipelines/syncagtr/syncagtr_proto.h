/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SyncAgtr wire format: SwitchML's UDP protocol (docs/syncagtr.md).
 * Shared by the switch pipeline, the host workers (hosts/) and the capture generator (pcaps/),
 * so it depends on nothing but the C library: no DPDK types here.
 *
 * Frame: Ethernet (14) | IPv4 without options (20) | UDP (8) | SwitchML header (8) |
 * exponents (2) | N int32 elements, big-endian. N = 64 (size code 1, 308-byte frame) or
 * 256 (size code 3, 1076-byte frame).
 */
#ifndef ISW_SYNCAGTR_PROTO_H
#define ISW_SYNCAGTR_PROTO_H

#include <stdint.h>
#include <string.h>

/* The limits the switch and the workers share. */
#define SA_SESSIONS_MAX 64u   /* session ids 1..64 */
#define SA_WORKERS_MAX  32u   /* ranks 0..31: one bit each in a 32-bit bitmap */
#define SA_THREADS_MAX  64u   /* worker threads a session's slots may be split among */
#define SA_WORKER_PORT  4000u /* SwitchML's default worker_port: thread t sends from it + t */
#define SA_SLOTS        8192u /* slots in the switch, shared by all sessions (budget pool) */

#define SA_UDP_PORT      0xBEE0u /* the port SwitchML workers send to */
#define SA_UDP_PORT_MASK 0xFFF0u /* the switch accepts 0xBEE0..0xBEEF */
#define SA_MSG_TYPE      1u      /* the only message type on the wire */

#define SA_ETH_LEN 14u
#define SA_IP_LEN  20u
#define SA_UDP_LEN 8u
#define SA_HDR_OFF (SA_ETH_LEN + SA_IP_LEN + SA_UDP_LEN)  /* 42 */
#define SA_HDR_LEN 8u                                     /* SwitchML header */
#define SA_EXP_LEN 2u                                     /* e0, e1 */
#define SA_VAL_OFF (SA_HDR_OFF + SA_HDR_LEN + SA_EXP_LEN) /* 52 */

/* Size codes (byte 42, bits 2..0) and what they mean. Codes 0 and 2 are not supported. */
#define SA_SIZE_64   1u  /* 64 elements, 308-byte frame */
#define SA_SIZE_256  3u  /* 256 elements, 1076-byte frame */
#define SA_CHUNK     64u /* elements per pass; a 256-element packet makes four passes */
#define SA_ELEMS_MAX 256u

/* Elements for a size code, or 0 if the switch does not support it. */
static inline unsigned sa_size_elems(unsigned size)
{
	return size == SA_SIZE_64 ? 64u : size == SA_SIZE_256 ? 256u : 0u;
}

/* Frame length for an element count (64 -> 308, 256 -> 1076). */
static inline unsigned sa_frame_len(unsigned elems)
{
	return SA_VAL_OFF + 4u * elems;
}

/*
 * pool_index (bytes 48..49, big-endian): bit 15 = set, bits 13..0 = slot. Bit 14 is ignored
 * (SwitchML's clients write 0) until a session's region has changed once (docs/memory.md): from
 * then on it names the region generation's parity the packet is for, and results echo it.
 */
#define SA_POOL_SET      0x8000u
#define SA_POOL_GEN      0x4000u
#define SA_POOL_SLOT     0x3FFFu
#define SA_POOL_SLOT_MAX 16384u

/* Byte 42, bit 3 (unused by SwitchML, written 0): set by a worker thread on packets of a new
 * region generation once it holds every result of the previous one (docs/memory.md). */
#define SA_FLAG_HELD 0x08u

/*
 * The region note (docs/memory.md), after the values of every result of a session whose region
 * is changing, once the worker thread's boundary is known: the thread's packets from tsi p0 + W
 * on (W its window in the old region, p0 the packet of the thread's first completion after the
 * change was requested) go to the new region, generation gen, of slots slots (a thread's window
 * there is slots / threads). IPv4 and UDP lengths include it.
 */
#define SA_NOTE_MAGIC0 'R'
#define SA_NOTE_MAGIC1 'G'
#define SA_NOTE_LEN    16u

struct sa_note {
	uint8_t magic[2]; /* SA_NOTE_MAGIC0, SA_NOTE_MAGIC1 */
	uint8_t gen;      /* the generation the change leads to (low 8 bits) */
	uint8_t job;      /* job_number of p0 */
	uint8_t tsi[4];   /* tsi of p0, as its packets carried it */
	uint8_t slots[4]; /* big-endian: the new region's slots */
	uint8_t rsvd[4];  /* 0 */
} __attribute__((packed));

_Static_assert(sizeof(struct sa_note) == SA_NOTE_LEN, "the region note is 16 bytes");

/* The 8-byte SwitchML header plus the exponents, as laid out from byte 42. */
struct sa_hdr {
	uint8_t type_size;     /* msg_type << 4 | size */
	uint8_t job_number;    /* low 8 bits of the client's job id; echoed */
	uint8_t tsi[4];        /* client packet id, opaque (little-endian on x86 clients); echoed */
	uint8_t pool_index[2]; /* big-endian */
	int8_t e0;             /* exponent of the block (float32 jobs) */
	int8_t e1;             /* unused by clients; max-ed like e0 */
} __attribute__((packed));

_Static_assert(sizeof(struct sa_hdr) == SA_HDR_LEN + SA_EXP_LEN, "SwitchML header is 10 bytes");

static inline unsigned sa_hdr_size(const struct sa_hdr *h)
{
	return h->type_size & 7u;
}

static inline uint16_t sa_hdr_pool(const struct sa_hdr *h)
{
	return (uint16_t)(h->pool_index[0] << 8 | h->pool_index[1]);
}

/* The tsi as an opaque 32-bit word (compared, never interpreted). */
static inline uint32_t sa_hdr_tsi(const struct sa_hdr *h)
{
	uint32_t v;
	memcpy(&v, h->tsi, sizeof(v));
	return v;
}

static inline void sa_hdr_set_pool(struct sa_hdr *h, unsigned set, unsigned slot)
{
	uint16_t v = (uint16_t)((set ? SA_POOL_SET : 0u) | (slot & SA_POOL_SLOT));
	h->pool_index[0] = (uint8_t)(v >> 8);
	h->pool_index[1] = (uint8_t)v;
}

/*
 * Float32 quantisation (SwitchML's cpu_exponent_quantizer): the exponent of a block is e with
 * 2^(e-1) <= max|x| < 2^e for normal floats (-126 for an all-zero block), and the block is sent
 * as round(x * INT32_MAX / (num_workers * 2^emax)), emax being the switch's max over workers.
 */
#define SA_EXP_ZERO (-126)

#endif
