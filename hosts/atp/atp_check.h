/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The end-to-end check of an ATP job (docs/atp.md, The end-to-end check), pure parts: the
 * checksums each worker keeps of the int32 words it sent and of the int32 results it took, the
 * words its check call allreduces, and the verdict. No socket, clock or thread: the engine
 * (atp_engine.c) feeds them, the unit tests drive them alone.
 */
#ifndef ISW_ATP_CHECK_H
#define ISW_ATP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One worker's (or thread's) checksums of a call. */
struct atp_ck {
	uint32_t sent[2], got[2]; /* plain sum, weighted sum of what this worker sent / got */
	uint64_t covered;         /* packets with an int32 result (the ones summed) */
	uint64_t uncovered;       /* ... with a float result (overflow: summed by the PS) */
	uint64_t rails;           /* result elements at an int32 rail */
	uint64_t mixed;           /* int32 results of packets this worker sent as floats */
};

/* Adds n (at most 62) int32 words to a plain and a weighted sum (modulo 2^32), the weights odd and
 * a function of (key, seq, position) only, so alike on every worker. */
void atp_ck_add(uint32_t ck[2], const int32_t *v, unsigned n, uint64_t key, uint32_t seq);

/* An element on one of the switch's sticky rails (its saturating add stops there). */
static inline bool atp_on_rail(int32_t v)
{
	return v == INT32_MAX || v == INT32_MIN || v == -INT32_MAX;
}

/* A result's n big-endian int32 words vb: decoded into v and added to ck as atp_ck_add() adds
 * them, in one pass; returns how many sit on a rail. */
uint64_t atp_ck_take(uint32_t ck[2], int32_t *v, const uint8_t *vb, unsigned n, uint64_t key,
                     uint32_t seq);

/* What the check call allreduces: both sent sums and the covered count, as 16-bit halves (the
 * sum of 32 workers' halves stays below 2^24: exact as floats, never saturating). */
void atp_ck_words(const struct atp_ck *ck, int32_t w[6]);

/*
 * The verdict, from this worker's checksums and the allreduced words sum[6]: 0 if the results
 * are the sums of what the workers sent, or -EBADMSG with msg saying why ("saturated" when a
 * result element sits at an int32 rail, "wrong" otherwise, or the workers' coverage differs).
 */
int atp_ck_verdict(const struct atp_ck *ck, const int32_t sum[6], unsigned workers, char *msg,
                   size_t len);

#endif
