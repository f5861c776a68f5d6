/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ASK wire format (docs/ask.md): key-value tuples of one task in multi-slot UDP packets. Shared by
 * the switch pipeline, the host tools (hosts/ask/) and the capture generator (pcaps/), so it
 * depends on nothing but the C library.
 *
 * Frame: Ethernet (14) | IPv4 without options (20) | UDP (8) | ASK header (24) | payload.
 * All multi-byte fields are big-endian. The switch takes UDP packets whose destination port is
 * the ASK port (ASK_UDP_PORT unless `ask config set udp-port` changed it) and whose type is
 * DATA, SWAP, FETCH or BEGIN; the replies, and what senders and receiver tell each other (HELLO,
 * CLOSE, ABORT and their answers), travel as plain traffic.
 */
#ifndef ISW_ASK_PROTO_H
#define ISW_ASK_PROTO_H

#include <stdint.h>
#include <string.h>

#define ASK_UDP_PORT 42405u

#define ASK_ETH_LEN 14u
#define ASK_IP_LEN  20u
#define ASK_UDP_LEN 8u
#define ASK_HDR_OFF (ASK_ETH_LEN + ASK_IP_LEN + ASK_UDP_LEN) /* 42 */
#define ASK_HDR_LEN 24u
#define ASK_PAY_OFF (ASK_HDR_OFF + ASK_HDR_LEN) /* 66: slot 0, or the first fetched record */

enum ask_type {
	ASK_DATA = 1,        /* sender -> receiver through the switch: S slots of (key, value) */
	ASK_DATA_ACK = 2,    /* receiver -> sender: seq received */
	ASK_SWAP = 3,        /* receiver -> switch: make copy C of AA_j the active one */
	ASK_SWAP_DONE = 4,   /* switch -> receiver: the copy now active */
	ASK_FETCH = 5,       /* receiver -> switch: read and clear entries of one copy */
	ASK_FETCH_REPLY = 6, /* switch -> receiver: the entries, and where to go on */
	ASK_BEGIN = 7,       /* receiver -> switch: start incarnation N of the task, or probe it */
	ASK_BEGIN_DONE = 8,  /* switch -> receiver: the task's incarnation, shape and job counts */
	ASK_HELLO = 9,       /* sender -> receiver: my channels; which incarnation is the job? */
	ASK_HELLO_ACK = 10,  /* receiver -> sender: the job's incarnation (or ERROR) */
	ASK_CLOSE = 11,      /* sender -> receiver: a channel's totals, once all of it is acked */
	ASK_CLOSE_ACK = 12,  /* receiver -> sender: totals received */
	ASK_ABORT = 13,      /* receiver <-> sender: the job failed (reason and text) */
	ASK_TYPE_MAX = 13,
};

#define ASK_F_RESEND 0x01u /* a retransmission (informational: the switch keys on `seen`) */
#define ASK_F_LONG   0x02u /* opaque records after the header: the switch forwards untouched */
#define ASK_F_LAST   0x04u /* the channel's last packet */
#define ASK_F_ERROR  0x80u /* replies: request refused (bad slot or copy, BEGIN refused) */

/* The limits the switch and the hosts share. */
#define ASK_SLOTS_MAX  32u   /* slots (tuples) a DATA packet carries */
#define ASK_TASKS_MAX  64u   /* registered tasks at once; index 1..64 */
#define ASK_WINDOW_MAX 4096u /* largest W: a task's window, and so a sender's */
#define ASK_VALUE_LEN  4u

/*
 * Largest FETCH_REPLY payload: count records of (key, value) after the header. Keeps a reply
 * within a 1500-byte IP MTU: 20 + 8 + 24 + 1400 = 1452.
 */
#define ASK_FETCH_BYTES 1400u

/* Seeds of the two key hashes: the subspace (slot) a sender puts a key in, and the entry of the
 * slot's aggregator array the switch looks at. Different seeds, so that within one slot the
 * entries are not correlated with the slot. */
#define ASK_SEED_SLOT  0x5bd1e995u
#define ASK_SEED_ENTRY 0x27d4eb2fu

/* The 24-byte header at ASK_HDR_OFF. */
struct ask_hdr {
	uint8_t type;
	uint8_t flags;
	uint8_t task[2];
	uint8_t channel[2];
	uint8_t nslots;
	uint8_t key_bytes;
	uint8_t seq[4];
	uint8_t bitmap[4]; /* DATA: valid slots; SWAP/FETCH and replies: slot | copy << 8 */
	uint8_t start[4];  /* FETCH: first entry to look at; FETCH_REPLY: where to go on */
	/* DATA, SWAP, FETCH: the task's incarnation (high 16 bits) and, FETCH, the most records
	 * (low 16); FETCH_REPLY: records carried */
	uint8_t count[4];
} __attribute__((packed));

_Static_assert(sizeof(struct ask_hdr) == ASK_HDR_LEN, "ASK header is 24 bytes");

/*
 * BEGIN and BEGIN_DONE carry this after the header (the request zeros, which the switch fills
 * in): the task as the switch has it, and what it counted in the current incarnation, for the
 * receiver's end-to-end check (docs/ask.md, Job lifetime). BEGIN's count is N << 16 | E: make N the
 * task's incarnation if E is (resetting the task's state), or just report if N already is.
 */
struct ask_job_info {
	uint8_t reg[4];      /* the registration's nonce: new at every task add and switch start */
	uint8_t error;       /* BEGIN_DONE with ERROR: enum ask_begin_error */
	uint8_t flags;       /* ASK_JOB_F_* */
	uint8_t op;          /* the task's operator (0 add, 1 max, 2 min) */
	uint8_t reserved;    /* 0 */
	uint8_t channels[2]; /* the task's shape */
	uint8_t reserved2[2];
	uint8_t window[4];
	uint8_t aa_size[4];
	uint8_t tuples[8];   /* valid DATA slots of first occurrences in this incarnation */
	uint8_t absorbed[8]; /* ... of which claimed an entry or combined into one */
	uint8_t held[8];     /* entries the AAs hold: claimed minus fetched, in this incarnation */
	uint8_t jobs[4];     /* incarnations BEGIN started on this registration */
} __attribute__((packed));

_Static_assert(sizeof(struct ask_job_info) == 48, "ASK job info is 48 bytes");

#define ASK_JOB_F_RESET 0x01u /* this BEGIN started the incarnation: the task's state was reset */

enum ask_begin_error {
	ASK_BEGIN_OK = 0,
	ASK_BEGIN_INCARNATION =
	        1,           /* the task's incarnation is neither N nor E (count's high half) */
	ASK_BEGIN_SHAPE = 2, /* nslots or key_bytes differ from the task's */
};

/* A request's task incarnation (DATA, SWAP, FETCH; BEGIN's N): the high half of count. */
static inline uint16_t ask_incarnation(const struct ask_hdr *h)
{
	return (uint16_t)(h->count[0] << 8 | h->count[1]);
}

#define ASK_SEL_SLOT(b)     ((b)&0xFFu)
#define ASK_SEL_COPY(b)     (((b) >> 8) & 1u)
#define ASK_SEL(slot, copy) ((uint32_t)(slot) | (uint32_t)(copy) << 8)

static inline int ask_key_bytes_ok(unsigned kb)
{
	return kb == 4 || kb == 8 || kb == 16;
}

/* Bytes of one slot or one fetched record: key then 32-bit value. */
static inline unsigned ask_rec_len(unsigned key_bytes)
{
	return key_bytes + ASK_VALUE_LEN;
}

/* Frame length of a DATA packet of S slots (every slot present, valid or not). */
static inline unsigned ask_data_len(unsigned nslots, unsigned key_bytes)
{
	return ASK_PAY_OFF + nslots * ask_rec_len(key_bytes);
}

/* Records that fit in one FETCH_REPLY. */
static inline unsigned ask_fetch_max(unsigned key_bytes)
{
	return ASK_FETCH_BYTES / ask_rec_len(key_bytes);
}

static inline uint16_t ask_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t ask_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void ask_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void ask_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline uint64_t ask_be64(const uint8_t *p)
{
	return (uint64_t)ask_be32(p) << 32 | ask_be32(p + 4);
}

static inline void ask_put64(uint8_t *p, uint64_t v)
{
	ask_put32(p, (uint32_t)(v >> 32));
	ask_put32(p + 4, (uint32_t)v);
}

/* Little-endian 64-bit load of 8 key bytes, on any host. */
static inline uint64_t ask_le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/*
 * The key hash, the same in the switch and the hosts: the key's bytes as two little-endian
 * 64-bit words (a 4-byte key zero-extended; a 16-byte key's second half as the second word),
 * mixed by multiplication, folded to 32 bits. Keys are fixed-width byte strings: shorter
 * words are zero-padded by the sender.
 */
#define ASK_HASH_M1 0x9E3779B97F4A7C15ull
#define ASK_HASH_M2 0xC2B2AE3D27D4EB4Full
#define ASK_HASH_M3 0xD6E8FEB86659FD93ull

static inline uint32_t ask_hash(const uint8_t *key, unsigned key_bytes, uint32_t seed)
{
	uint64_t a, b = 0;
	if (key_bytes == 4) {
		uint32_t v;
		memcpy(&v, key, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		v = __builtin_bswap32(v);
#endif
		a = v;
	} else {
		a = ask_le64(key);
		if (key_bytes == 16)
			b = ask_le64(key + 8);
	}
	uint64_t h = (a ^ seed) * ASK_HASH_M1;
	h ^= (b + seed) * ASK_HASH_M2;
	h ^= h >> 32;
	h *= ASK_HASH_M3;
	return (uint32_t)(h ^ h >> 32);
}

/* The subspace (slot) of a key in a task of nslots slots: where a sender must put it. */
static inline unsigned ask_key_slot(const uint8_t *key, unsigned key_bytes, unsigned nslots)
{
	return ask_hash(key, key_bytes, ASK_SEED_SLOT) % nslots;
}

/* The aggregator-array entry of a key (aa_size a power of two). */
static inline uint32_t ask_key_entry(const uint8_t *key, unsigned key_bytes, uint32_t aa_size)
{
	return ask_hash(key, key_bytes, ASK_SEED_ENTRY) & (aa_size - 1);
}

#endif
