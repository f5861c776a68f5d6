/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for NetRPC service descriptions (pipelines/netrpc/netrpc_desc.c): every
 * input is a description file's bytes. A description either is refused with a message, or
 * comes out within every bound docs/netrpc.md gives, and its arrays are well formed and placed
 * on tofino2 or refused with -ENOSPC (the crash this once found: a valid service of more stages
 * than the model has was taken for a malformed one, by this harness).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netrpc_desc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int pow2(uint32_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nrpc_desc d;
	char err[256];
	err[0] = '\0';
	if (nrpc_desc_parse((const char *)data, size, &d, err, sizeof(err)) < 0) {
		if (err[0] == '\0' || memchr(err, '\0', sizeof(err)) == NULL)
			abort(); /* a refusal always says why */
		return 0;
	}
	if (d.name[0] == '\0' || d.id < 1 || d.id > NRPC_ID_MAX || d.type < NRPC_ARRAY ||
	    d.type > NRPC_INTEGER || !pow2(d.cells) || d.cells > NRPC_CELLS_MAX || d.values < 1 ||
	    d.values > NRPC_VALUES_MAX || d.members < 1 || d.members > NRPC_MEMBERS_MAX ||
	    d.nops < 1 || d.nops > NRPC_OPS_MAX || (d.type == NRPC_INTEGER && d.values != 1) ||
	    (d.key_bytes != 4 && d.key_bytes != 8 && d.key_bytes != 16) ||
	    (d.server && d.type != NRPC_MAP))
		abort();
	for (unsigned i = 0; i < d.nops; i++) {
		const struct nrpc_op *o = &d.op[i];
		if (o->n < 1 || o->n > NRPC_CHAIN_MAX || o->name[0] == '\0')
			abort();
		for (unsigned j = 0; j < o->n; j++)
			if (o->step[j].prim == NRPC_CNTFWD &&
			    (j != o->n - 1 || d.type == NRPC_MAP ||
			     (!o->step[j].th_members && o->step[j].th > d.members)))
				abort();
	}
	/* Its arrays: powers of two, within the bounds, whatever their stages (a description may
	 * take more stages than any profile has: placing it then says so, below). */
	struct isw_reg_decl regs[NRPC_REGS_MAX];
	unsigned nregs = nrpc_desc_regs(&d, regs);
	if (nregs < 1 || nregs > NRPC_REGS_MAX)
		abort();
	for (unsigned i = 0; i < nregs; i++)
		if (!pow2(regs[i].size) || regs[i].size > ISW_REG_CELLS_MAX ||
		    (regs[i].kind == ISW_REG_VEC && (regs[i].lanes < 1 || regs[i].lanes > 64)))
			abort();
	struct isw_asic_use use;
	memset(&use, 0, sizeof(use));
	int n = nrpc_desc_place(&d, &use, isw_profile_find("tofino2"), regs, err, sizeof(err));
	if (n < 0 && n != -ENOSPC)
		abort();
	/* placed: in stage order by level, within the profile */
	for (int i = 1; i < n; i++)
		if (regs[i].stage < regs[i - 1].stage)
			abort();
	return 0;
}
