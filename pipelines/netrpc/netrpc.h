/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The netrpc pipeline's state (docs/netrpc.md): services loaded from descriptions at run time,
 * each with its own register arrays on the emulated ASIC, its members and its server, published
 * to the data path by RCU as one snapshot.
 */
#ifndef ISW_NETRPC_H
#define ISW_NETRPC_H

#include <stdbool.h>
#include <stdint.h>

#include "asic.h"
#include "netrpc_desc.h"
#include "netrpc_proto.h"

#define NRPC_SERVICES_MAX 16
/* register arrays of every service together: what the pipeline's declaration holds */
#define NRPC_DECL_MAX 64

/* A client of a service, or its server: where its packets come from and its replies go. */
struct nrpc_peer {
	bool valid;
	uint8_t mac[6];
	uint32_t ip;       /* network order */
	uint16_t udp_port; /* host order: its replies' destination port */
	uint16_t port;     /* the switch port it is behind */
};

struct nrpc_service {
	bool valid;
	struct nrpc_desc d;
	unsigned nregs;
	struct isw_reg_decl placed[NRPC_REGS_MAX]; /* nrpc_desc_regs()'s, at their stages */
	struct isw_reg *regs[NRPC_REGS_MAX];       /* the arrays, in the same order */
	char reg_names[NRPC_REGS_MAX][2 * ISW_NAME_MAX];
	uint16_t group; /* PRE group of its members: cntfwd(.., all) and to all */
	struct nrpc_peer member[NRPC_MEMBERS_MAX];
	struct nrpc_peer server;
};

/* What the data path reads (RCU): a copy of the whole configuration a change publishes. */
struct nrpc_conf {
	uint8_t mac[6];
	uint32_t ip; /* network order; 0: none set, nothing is taken */
	uint16_t udp_port;
	uint8_t by_id[NRPC_ID_MAX + 1]; /* service id -> index + 1 into svc[]; 0: none */
	struct nrpc_service svc[NRPC_SERVICES_MAX];
};

extern struct nrpc_conf *nrpc_conf_cur;

#endif
