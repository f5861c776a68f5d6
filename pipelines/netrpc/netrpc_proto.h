/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NetRPC wire format (docs/netrpc.md, The wire format): a 16-byte header right after the UDP
 * header, all fields big-endian, then the items. Shared by the switch, the host library, pcapgen
 * and the tests; nothing here depends on DPDK.
 */
#ifndef ISW_NETRPC_PROTO_H
#define ISW_NETRPC_PROTO_H

#include <stdint.h>

#define NRPC_UDP_PORT 20050u /* the default; `netrpc config set udp-port` changes it */
#define NRPC_HDR_LEN  16u

/* flags */
#define NRPC_F_RESULT 0x01u /* from the switch or the server */
#define NRPC_F_RESEND 0x02u /* a client's retransmission */
#define NRPC_F_SET    0x04u /* the shadow copy a synchronous round uses */
#define NRPC_F_MISS   0x08u /* the switch could not serve it: to the server */
#define NRPC_F_ERROR  0x80u

struct nrpc_hdr {
	uint8_t service;
	uint8_t op;
	uint8_t flags;
	uint8_t count;     /* items: array 1 */
	uint8_t member[2]; /* the client's rank */
	uint8_t rsvd[2];   /* 0 */
	uint8_t seq[4];    /* the client's sequence number */
	uint8_t key[4];    /* array, integer: the first item's key */
} __attribute__((packed));

_Static_assert(sizeof(struct nrpc_hdr) == NRPC_HDR_LEN, "the NetRPC header is 16 bytes");

static inline uint32_t nrpc_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint16_t nrpc_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Bytes of the items of a packet of `count` items of a service with key_bytes and values per
 * cell: an array's one cell is its values alone (its key is in the header). */
static inline uint32_t nrpc_items_len(int array, unsigned count, unsigned key_bytes,
                                      unsigned values)
{
	return array ? 4u * values : count * (key_bytes + 4u * values);
}

#endif
