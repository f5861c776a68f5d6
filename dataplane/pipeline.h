/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pipeline interface. A pipeline is a module that registers itself from a constructor
 * (ISW_PIPELINE_REGISTER) and is enabled at start-up (--pipeline NAME), by the config file or at
 * run time (`pipeline enable NAME`). Enabled pipelines form a chain, published to the workers by
 * RCU; each packet is offered to them in order until one takes it. The l2 pipeline is always
 * enabled and always last, so every packet is taken.
 *
 * process() runs on worker lcores and must never block, allocate, lock or log. enable() and
 * disable() run on the control thread; disable() runs only after every worker has stopped using
 * the pipeline.
 */
#ifndef ISW_PIPELINE_H
#define ISW_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_common.h>

#include "asic.h"
#include "isw_limits.h"

struct isw_steering;
struct isw_worker;
struct rte_mbuf;

enum {
	ISW_PKT_NEXT = 0,  /* not mine: offer the packet to the next pipeline */
	ISW_PKT_TAKEN = 1, /* sent, replicated, consumed, dropped or handed off */
};

typedef int (*isw_pipeline_fn)(struct isw_worker *w, struct rte_mbuf *m);

/*
 * process() over the packets of a burst, in order, with the chain's per-packet bookkeeping
 * (isw_burst_run() in worker.h), stopping at the first packet the pipeline does not take.
 * Returns how many it took: that many from the front of pkts. One call per burst instead of one
 * per packet lets the compiler keep what the packets share in registers. A pipeline that never
 * takes a packet (passes_all) runs over the whole burst and returns 0.
 */
typedef uint16_t (*isw_pipeline_burst_fn)(struct isw_worker *w, struct rte_mbuf **pkts, uint16_t n);

#define ISW_CLAIMS_MAX_IPS        256
#define ISW_CLAIMS_MAX_ETHERTYPES 4

/*
 * What of a NIC shared with the kernel is the switch's (xdp.h): the IPv4 addresses its
 * pipelines answer for (every frame to them and every ARP frame about them) and the raw
 * EtherTypes they take whole.
 */
struct isw_claims {
	uint32_t ip[ISW_CLAIMS_MAX_IPS]; /* network order */
	unsigned nb_ips;
	uint16_t ethertype[ISW_CLAIMS_MAX_ETHERTYPES]; /* host order */
	unsigned nb_ethertypes;
	bool overflow; /* more than fit: the rest stays with the kernel (reported on stderr) */
};

/* Adds an address or EtherType to c once (a duplicate is ignored). */
void isw_claims_ip(struct isw_claims *c, uint32_t ip);
void isw_claims_ethertype(struct isw_claims *c, uint16_t ethertype);

struct isw_pipeline {
	const char *name;
	const char *help;
	int order;   /* position in the chain: lower runs first; l2 uses INT32_MAX */
	bool always; /* enabled from start-up and cannot be disabled */
	const struct isw_asic_decl *asic; /* registers and tables, checked against the profile */
	/* Allocates state; on error fills err and returns -errno with nothing left allocated. */
	int (*enable)(struct isw_reg **regs, char *err, size_t errlen);
	void (*disable)(void);
	isw_pipeline_fn process;             /* fast build: SALU calls with a NULL pass */
	isw_pipeline_fn process_strict;      /* strict build: counts accesses; may be NULL = same */
	isw_pipeline_burst_fn process_burst; /* the fast build a burst at a time; may be NULL */
	bool passes_all;                     /* never takes a packet (it may rewrite it) */
	/* Adds to c what the pipeline takes of a NIC shared with the kernel, as configured now.
	 * Control thread; NULL for a pipeline that takes nothing there (l2). */
	void (*claims)(struct isw_claims *c);
	/* Adds the steering rules that would bring each of its packets to the lcore owning its
	 * state (steer.h), as configured now. Control thread; NULL when its packets cannot be
	 * told apart by what a NIC matches. */
	void (*steering)(struct isw_steering *s);

	/* Owned by the registry. */
	uint16_t id; /* counters index; 0 is the dataplane itself */
	bool enabled;
	struct isw_reg *regs[ISW_REG_MAX / 4];
	STAILQ_ENTRY(isw_pipeline) next;
};

/* Position in the chain, as published to workers. */
struct isw_chain {
	unsigned n;
	struct {
		isw_pipeline_fn fn;
		isw_pipeline_burst_fn burst; /* NULL: fn a packet at a time */
		bool passes_all;
		uint16_t id;
	} stage[ISW_MAX_PIPELINES_CHAIN];
};

void isw_pipeline_register(struct isw_pipeline *p);

#define ISW_PIPELINE_REGISTER(p)             \
	RTE_INIT(isw_pipeline_register_##p)  \
	{                                    \
		isw_pipeline_register(&(p)); \
	}

struct isw_pipeline *isw_pipeline_find(const char *name);
struct isw_pipeline *isw_pipeline_by_id(uint16_t id);
/* Iterates registered pipelines in chain order; pass NULL to start. */
struct isw_pipeline *isw_pipeline_next(struct isw_pipeline *p);
/* What the enabled pipelines take of a NIC shared with the kernel (zeroed first). */
void isw_pipeline_claims(struct isw_claims *c);
/* What the enabled pipelines ask of the NIC's steering (appended to s). */
void isw_pipeline_steering(struct isw_steering *s);
/* Name shown for counters of id 0 and of pipelines. */
const char *isw_pipeline_name(uint16_t id);

/*
 * Enables or disables a pipeline and republishes the chain (RCU). Enabling checks the profile:
 * every enabled pipeline's declaration together must fit. Returns 0 or -errno with err filled.
 */
int isw_pipeline_enable(const char *name, char *err, size_t errlen);
int isw_pipeline_disable(const char *name, char *err, size_t errlen);

/* Enables the always-on pipelines; called once at start-up. */
int isw_pipeline_init(char *err, size_t errlen);
void isw_pipeline_fini(void);

/* Switches every enabled pipeline to its strict (or fast) build and republishes the chain. */
void isw_pipeline_set_strict(bool on);
bool isw_pipeline_strict(void);

/* The chain the workers run now (RCU-protected: workers read it between quiescent states). */
extern struct isw_chain *isw_chain_current;

#endif
