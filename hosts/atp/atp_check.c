/* SPDX-License-Identifier: BSD-3-Clause */
/* The end-to-end check of an ATP job, pure parts (atp_check.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "host_rand.h"
#include "atp_check.h"
#include "atp/atp_proto.h"

/*
 * The weight of word i of a packet is pos_w[i] * the packet's (key, seq) weight, both odd (so
 * nonzero: any one word changed changes the weighted sum): the loop multiplies by a table, eight
 * words an instruction with AVX2, and the packet's weight once at its end.
 */
static uint32_t pos_w[ATP_VALUES];

__attribute__((constructor)) static void pos_w_init(void)
{
	for (unsigned i = 0; i < ATP_VALUES; i++)
		pos_w[i] = (uint32_t)host_mix64(0xA7C0FFEEull + i) | 1u;
}

static inline uint32_t pkt_w(uint64_t key, uint32_t seq)
{
	return (uint32_t)host_mix64(key ^ (uint64_t)seq << 40) | 1u;
}

/* Built for AVX2 and the baseline ISA, picked at load time from the CPU (as SyncAgtr's is): the
 * baseline has no 32-bit vector multiply. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ATP_VEC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define ATP_VEC_CLONES
#endif

ATP_VEC_CLONES void atp_ck_add(uint32_t ck[2], const int32_t *restrict v, unsigned n, uint64_t key,
                               uint32_t seq)
{
	uint32_t a = 0, b = 0;

	for (size_t i = 0; i < n; i++) {
		a += (uint32_t)v[i];
		b += (uint32_t)v[i] * pos_w[i];
	}
	ck[0] += a;
	ck[1] += b * pkt_w(key, seq);
}

ATP_VEC_CLONES uint64_t atp_ck_take(uint32_t ck[2], int32_t *restrict v, const uint8_t *restrict vb,
                                    unsigned n, uint64_t key, uint32_t seq)
{
	uint32_t a = 0, b = 0, rails = 0;

	/* size_t, not unsigned: 4 * i must not wrap, or the loads are not seen as contiguous */
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = vb + 4 * i;
		uint32_t x =
		        (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		v[i] = (int32_t)x;
		a += x;
		b += x * pos_w[i];
		rails += atp_on_rail((int32_t)x);
	}
	ck[0] += a;
	ck[1] += b * pkt_w(key, seq);
	return rails;
}

static void split16(int32_t *v, uint32_t x)
{
	v[0] = (int32_t)(x & 0xffffu);
	v[1] = (int32_t)(x >> 16);
}

static uint32_t join16(const int32_t *v)
{
	return (uint32_t)v[0] + ((uint32_t)v[1] << 16);
}

void atp_ck_words(const struct atp_ck *ck, int32_t w[6])
{
	split16(w, ck->sent[0]);
	split16(w + 2, ck->sent[1]);
	split16(w + 4, (uint32_t)ck->covered);
}

int atp_ck_verdict(const struct atp_ck *ck, const int32_t sum[6], unsigned workers, char *msg,
                   size_t len)
{
	if (ck->mixed) {
		snprintf(msg, len,
		         "result check failed: %" PRIu64 " results came back as int32 for packets "
		         "this worker sent as floats (the workers' float32 scales differ?)",
		         ck->mixed);
		return -EBADMSG;
	}
	if (join16(sum) != ck->got[0] || join16(sum + 2) != ck->got[1]) {
		if (ck->rails)
			snprintf(
			        msg, len,
			        "result check failed: saturated: %" PRIu64
			        " elements of the result "
			        "sit at an int32 rail (the switch's add clamps to the int32 range, "
			        "and an element on a rail stays there): the result is not the sum",
			        ck->rails);
		else
			snprintf(
			        msg, len,
			        "result check failed: wrong: the results this worker received "
			        "(checksums %08x %08x) are not the sum of what the %u workers sent "
			        "(%08x %08x)",
			        ck->got[0], ck->got[1], workers, join16(sum), join16(sum + 2));
		return -EBADMSG;
	}
	if (join16(sum + 4) != (uint32_t)(ck->covered * workers)) {
		snprintf(msg, len,
		         "result check failed: the workers did not all receive int32 results for "
		         "the same packets (this one: %" PRIu64 ")",
		         ck->covered);
		return -EBADMSG;
	}
	return 0;
}
