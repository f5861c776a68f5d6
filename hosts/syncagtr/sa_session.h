/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Session helper: a worker registers itself with inswitch's control socket so that nobody has
 * to type worker MACs. It finds its own IP and MAC on the interface that routes to the switch
 * IP, then sends (one command per line, one JSON reply line each):
 *
 *   syncagtr session add ID ip SWITCH_IP workers N slots S threads T worker-port P
 *   syncagtr session show ID        (SA_REG_CLEAN: the slots must be clean; rank 0 with
 *                                    SA_REG_RESET: the rank must be free or this host's)
 *   syncagtr session reset ID                                 (rank 0 with SA_REG_RESET)
 *   syncagtr worker add ID RANK mac MAC ip IP port PORT|l2|auto
 *
 * The switch answers an identical repeat of an add with ok. An add refused with EEXIST (the
 * reply's code: docs/ctl.md, Error codes) is still accepted when `syncagtr session show ID`
 * proves what exists compatible: the session has this switch IP and worker count and at least
 * the slots needed; the rank is registered with this host's MAC and IP. Replies are read with
 * host_ctl_call(); any other refusal is returned as its code (-EHOSTUNREACH: `port l2` and no
 * l2 entry for this host's MAC).
 *
 * Blocking, control-path only; never touches the data sockets.
 */
#ifndef ISW_SA_SESSION_H
#define ISW_SA_SESSION_H

#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>

#include "sa_engine.h"

struct sa_local {
	struct in_addr ip;
	uint8_t mac[6];
	char ifname[IF_NAMESIZE];
};

/* Address, MAC and interface this host uses to reach switch_ip (port is only for the route). */
int sa_local_find(struct in_addr switch_ip, uint16_t port, struct sa_local *loc, char *err,
                  size_t errlen);

/* What sa_session_register() does besides registering. */
#define SA_REG_RESET 1u /* rank 0 starts the session's next epoch (session reset) first */
#define SA_REG_CLEAN 2u /* refuse unless the session's slots are clean (epoch_pkts 0) */

/* The registration flags of a run with (or without) the start barrier and the reset:
 * SA_REG_CLEAN for a run that has neither (nothing else shows its slots clean). */
unsigned sa_reg_flags(int barrier, int reset);

/*
 * The rules for the options that trade safety for speed, shared by the tools: skipping the start
 * barrier needs the control socket (ctl), since only the switch can show the slots clean. 0, or
 * -EINVAL with the reason in err.
 */
int sa_options_check(int ctl, int barrier, char *err, size_t errlen);

/*
 * Registers the worker described by cfg in session `session` (1..64): session add (asking for
 * sa_engine_cfg_slots(cfg) slots); with SA_REG_CLEAN, a check that no packet reached the session's
 * slots since its epoch began (-EBUSY and the reason otherwise: another run's state is there,
 * and no rank of this run has sent, since none sends before every rank is registered); with
 * SA_REG_RESET on rank 0, a new job epoch (session reset), once the rank is known to be free or
 * this host's; then worker add with `port ATTACH` (its command line copied to rejoin, when
 * given, for sa_session_wait_ports): the switch port this host is behind, "l2" (the switch
 * reads it from the static l2 entry of this host's MAC) or "auto" (learned from the first
 * packets, which loses their results: only for clients that resend). Progress lines go to log
 * (may be NULL). Returns 0 or -errno with a message in err.
 */
int sa_session_register(const struct sa_engine_cfg *cfg, const char *ctl_path, unsigned session,
                        const char *attach, unsigned flags, char *rejoin, size_t rejoinlen,
                        FILE *log, char *err, size_t errlen);
/* The same for a worker whose address, MAC and interface are loc (sa_local_find's). */
int sa_session_register_as(const struct sa_engine_cfg *cfg, const struct sa_local *loc,
                           const char *ctl_path, unsigned session, const char *attach,
                           unsigned flags, char *rejoin, size_t rejoinlen, FILE *log, char *err,
                           size_t errlen);

/*
 * Waits (at most timeout_ms) until `syncagtr session show` lists every one of the session's
 * workers as registered in its current epoch: the workers' rendezvous before their first packet,
 * so that none waits at the switch for one that has not started, and none starts before a
 * `session reset` of this job (rank 0's --reset starts a new epoch). With rejoin (the `worker add`
 * line sa_session_register wrote), registers again when a reset made this worker's registration
 * one of an earlier epoch, and counts as registered only the workers that registered since
 * since_ns (host_now_ns() just before this worker registered; 0: now): a worker that passes the
 * rendezvous registers once more and stops, which may be before this one arrives here, never
 * before it registered. With learned, also until every one has a port: members registered with
 * "port auto" get one only from their first packet. 0 once so, -ETIMEDOUT, or -errno.
 */
int sa_session_wait_ports(const struct sa_engine_cfg *cfg, const char *ctl_path, unsigned session,
                          int learned, const char *rejoin, uint64_t since_ns, unsigned timeout_ms);

/*
 * The region generation and slots a worker joining session now must start in (docs/memory.md):
 * the session's, or, while a region change drains, the old region's (every worker of the job
 * starts there; the results' notes then move them all at the same job). threads: the session's.
 * 0, or -errno with a message in err.
 */
int sa_session_region(const char *ctl_path, unsigned session, unsigned *gen, unsigned *slots,
                      unsigned *threads, char *err, size_t errlen);

/*
 * Reads that region (sa_session_region) and starts w's threads in it from their next job
 * (sa_engine_set_region): for a worker that has registered and met the others at the
 * rendezvous, before it sends. Returns the generation (0: the session never changed), or -errno
 * with a message in err (the session's region changed and w's threads cannot follow it).
 */
struct sa_engine;
int sa_session_join_region(const char *ctl_path, unsigned session, struct sa_engine *w,
                           const struct sa_engine_cfg *cfg, char *err, size_t errlen);

/*
 * Takes this worker's registration back (syncagtr worker del), so that the next run's
 * rendezvous waits for it again. 0, or -errno (the reply's code when the switch refused).
 */
int sa_session_unregister(const struct sa_engine_cfg *cfg, const char *ctl_path, unsigned session);

/*
 * What the switch says about a session, for an error message after a job gave up: it does not
 * exist, not every worker is registered, or its counters. 0 (or -errno when the switch could not
 * be asked, or -ENOENT for no session) with the text in out.
 */
int sa_session_diagnose(const char *ctl_path, unsigned session, unsigned workers, char *out,
                        size_t len);

#endif
