/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drop reasons: defined once, here. The enum, the counter arrays and the names shown by the ctl
 * tool and telemetry are all generated from this list, so they cannot disagree. Append only:
 * never renumber or reuse a reason, scripts key on the names.
 */
#ifndef ISW_DROP_H
#define ISW_DROP_H

#define ISW_FOREACH_DROP(_)                                                                        \
	_(RUNT, "runt", "frame shorter than an Ethernet header")                                   \
	_(NO_DEST, "no-dest", "unknown destination and flooding disabled")                         \
	_(HAIRPIN, "hairpin", "destination port is the ingress port")                              \
	_(NO_GROUP, "no-group", "multicast group missing or empty")                                \
	_(NO_MBUF, "no-mbuf", "mbuf pool exhausted")                                               \
	_(TX_FULL, "tx-full", "transmit queue full")                                               \
	_(HANDOFF_FULL, "handoff-full", "ring to the owning lcore full")                           \
	_(FAULT, "fault", "dropped by fault injection")                                            \
	_(BAD_PORT, "bad-port", "destination port does not exist")                                 \
	_(NO_PIPELINE, "no-pipeline", "no pipeline took the packet")                               \
	_(MALFORMED, "malformed", "protocol header truncated or malformed")                        \
	_(SA_SIZE, "sa-size", "SwitchML size code not supported (only 1 and 3 are)")               \
	_(SA_REGION, "sa-region", "SwitchML pool index outside the session's slots")               \
	_(SA_RETX_PENDING, "sa-retx-pending", "SwitchML retransmission to an incomplete slot")     \
	_(ATP_APP, "atp-app", "ATP frame of an application that is not registered")                \
	_(ATP_PORT, "atp-port", "ATP frame from a port not registered for its role in the app")    \
	_(ATP_NO_PS, "atp-no-ps", "no parameter-server port for the ATP frame's PSIndex")          \
	_(ATP_AGTR, "atp-agtr", "ATP aggregator index beyond the pool")                            \
	_(ATP_DUP, "atp-dup", "ATP duplicate to an aggregator that is not complete")               \
	_(QUEUE_FULL, "queue-full", "egress queue of a rate-limited port full")                    \
	_(ASK_TASK, "ask-task", "ASK packet of a task that is not registered")                     \
	_(ASK_SHAPE, "ask-shape",                                                                  \
	  "ASK key width or slot count differs from the task, or slot beyond it")                  \
	_(ASK_CHANNEL, "ask-channel", "ASK channel beyond the task's channels")                    \
	_(ASK_PORT, "ask-port", "ASK packet from a port not registered for its role")              \
	_(ASK_STALE, "ask-stale", "ASK late copy: DATA seq a window behind, or an old SWAP/FETCH") \
	_(ASK_WINDOW, "ask-window", "ASK seq a window or more beyond its channel")                 \
	_(ASK_INCARNATION, "ask-incarnation", "ASK packet of another incarnation of its task")     \
	_(ATP_JOB, "atp-job", "ATP frame of another job than its app's current one")               \
	_(SA_EPOCH, "sa-epoch", "SwitchML packet of a worker not registered in the current epoch") \
	_(SA_UP_STALE, "sa-up-stale",                                                              \
	  "SwitchML result from the parent switch for no round its slot waits on")                 \
	_(SA_UP_DUP, "sa-up-dup", "SwitchML result from the parent switch already taken")          \
	_(SA_GEN, "sa-gen", "SwitchML packet for a region generation the session no longer has")

enum isw_drop {
#define ISW_DROP_ENUM(n, s, d) ISW_DROP_##n,
	ISW_FOREACH_DROP(ISW_DROP_ENUM)
#undef ISW_DROP_ENUM
	        ISW_DROP_MAX
};

/* Short name ("tx-full") and one-line description of a reason. */
const char *isw_drop_name(unsigned reason);
const char *isw_drop_descr(unsigned reason);

#endif
