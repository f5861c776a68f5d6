/* SPDX-License-Identifier: BSD-3-Clause */
/* Compile-time limits shared by the dataplane and the control plane. */
#ifndef ISW_LIMITS_H
#define ISW_LIMITS_H

#define ISW_MAX_PORTS           32
#define ISW_MAX_WORKERS         16
#define ISW_MAX_PIPELINES       8 /* counter slots; slot 0 is the dataplane itself */
#define ISW_MAX_PIPELINES_CHAIN (ISW_MAX_PIPELINES - 1)
#define ISW_MAX_RXQ             (ISW_MAX_PORTS * 4) /* rx queues one worker may poll */
#define ISW_BURST_MAX           64
#define ISW_SHARD_SLOTS         1024 /* shard ids map to owners modulo this */
#define ISW_INBOX_SIZE          8192 /* per-worker handoff ring */
#define ISW_INBOX_RESERVE       2048 /* free slots below which peers stop receiving */

#endif
