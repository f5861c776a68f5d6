/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NetRPC service descriptions (docs/netrpc.md): the text a developer writes instead of a
 * pipeline, parsed and checked into a struct nrpc_desc, and the register arrays a service takes
 * on the emulated ASIC. Plain C with no DPDK: the control thread runs it on untrusted input
 * (a file named in a ctl command), and the unit tests and the fuzzer run it alone.
 */
#ifndef ISW_NETRPC_DESC_H
#define ISW_NETRPC_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "asic.h"

#define NRPC_NAME_MAX    32 /* with the NUL */
#define NRPC_ID_MAX      63
#define NRPC_OPS_MAX     16
#define NRPC_CHAIN_MAX   5 /* each primitive at most once */
#define NRPC_CELLS_MAX   (1u << 20)
#define NRPC_VALUES_MAX  64
#define NRPC_MEMBERS_MAX 32
#define NRPC_WINDOW_DEF  1024
#define NRPC_TEXT_MAX    (64 * 1024) /* a description longer than this is refused */

enum nrpc_type { NRPC_ARRAY = 1, NRPC_MAP, NRPC_INTEGER };

enum nrpc_prim { NRPC_GET = 1, NRPC_ADDTO, NRPC_CLEAR, NRPC_MODIFY, NRPC_CNTFWD };

/* modify(op): cell = op(cell, value) */
enum nrpc_mod { NRPC_MOD_SET = 1, NRPC_MOD_MAX, NRPC_MOD_MIN, NRPC_MOD_OR, NRPC_MOD_AND };

/* Where a packet goes: cntfwd's target, or an operation's `to`. */
enum nrpc_target { NRPC_TO_SENDER = 1, NRPC_TO_SERVER, NRPC_TO_ALL, NRPC_TO_DROP };

/* What an operation needs to be safe to retransmit (docs/netrpc.md, Reliability). */
enum nrpc_rel {
	NRPC_REL_NONE = 0, /* get, clear, modify: idempotent */
	NRPC_REL_SEEN,     /* addTo without cntfwd: a window of sequence numbers per member */
	NRPC_REL_SYNC,     /* cntfwd: two sets per key, a member bitmap, results kept */
};

struct nrpc_step {
	uint8_t prim;   /* enum nrpc_prim */
	uint8_t mod;    /* NRPC_MODIFY: enum nrpc_mod */
	uint8_t target; /* NRPC_CNTFWD: enum nrpc_target */
	bool th_members;
	uint32_t th; /* NRPC_CNTFWD: the count that forwards (members when th_members) */
};

struct nrpc_op {
	char name[NRPC_NAME_MAX];
	unsigned n;
	struct nrpc_step step[NRPC_CHAIN_MAX];
	uint8_t to;  /* enum nrpc_target: where the packet goes when no cntfwd decided */
	uint8_t rel; /* enum nrpc_rel */
};

struct nrpc_desc {
	char name[NRPC_NAME_MAX];
	uint8_t id;
	uint8_t type; /* enum nrpc_type */
	uint32_t cells, values, key_bytes, members, window;
	bool server;
	unsigned nops;
	struct nrpc_op op[NRPC_OPS_MAX];
	/* derived: whether any operation needs the seen window, the sync arrays, the replies kept
	 * for retransmissions (a get after an addTo under the window) */
	bool need_seen, need_sync, need_reply;
};

/*
 * Parses and checks a description (text, len bytes: need not be NUL-terminated). Returns 0 with
 * d filled, or -EINVAL with err naming the line and the reason and d undefined.
 */
int nrpc_desc_parse(const char *text, size_t len, struct nrpc_desc *d, char *err, size_t errlen);

/*
 * The register arrays of a service (docs/netrpc.md, Placement), in the order their accesses
 * depend on one another, each at its stage of the packed layout (the service alone from
 * stage 0). Returns how many (at most NRPC_REGS_MAX).
 */
#define NRPC_REGS_MAX 8
unsigned nrpc_desc_regs(const struct nrpc_desc *d, struct isw_reg_decl *out);

/*
 * Places a service's arrays (out, as nrpc_desc_regs gives them) on the stages of profile p next
 * to what use holds (the enabled pipelines and the other services): each group of arrays that
 * share a stage in the packed layout at the first stage, from the end of the group before, at
 * which they all fit. Returns the number of arrays, or -ENOSPC with err naming the array that
 * finds no stage and what does not fit where it would start.
 */
int nrpc_desc_place(const struct nrpc_desc *d, const struct isw_asic_use *use,
                    const struct isw_profile *p, struct isw_reg_decl *out, char *err,
                    size_t errlen);

/* Names for show output. */
const char *nrpc_type_name(unsigned t);
const char *nrpc_prim_name(unsigned p);
const char *nrpc_mod_name(unsigned m);
const char *nrpc_target_name(unsigned t);
const char *nrpc_rel_name(unsigned r);

#endif
