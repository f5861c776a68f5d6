/* SPDX-License-Identifier: BSD-3-Clause */
/* The end-to-end check of an ATP job, pure parts (atp_check.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "atp_check.h"

static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void atp_ck_add(uint32_t ck[2], const int32_t *v, unsigned n, uint64_t key, uint32_t seq)
{
	uint32_t base = (uint32_t)mix64(key ^ (uint64_t)seq << 40), a = ck[0], b = ck[1];

	for (unsigned i = 0; i < n; i++) {
		uint32_t w = (base + 2 * i) * 0x85ebca6bu;

		a += (uint32_t)v[i];
		b += (uint32_t)v[i] * ((w ^ w >> 15) | 1u);
	}
	ck[0] = a;
	ck[1] = b;
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
