/* SPDX-License-Identifier: BSD-3-Clause */
/* A smoothed round trip (RFC 6298) for the host tools' resend timeouts. */
#ifndef ISW_HOST_RTT_H
#define ISW_HOST_RTT_H

#include <stdint.h>

/* Nanoseconds; srtt 0: no sample yet. */
struct host_rtt {
	uint64_t srtt, rttvar;
};

/* Adds one round trip (ns): the first sets srtt and rttvar = rtt / 2, the next ones move
 * srtt by 1/8 and rttvar by 1/4 of their difference, as RFC 6298 does. */
static inline void host_rtt_sample(struct host_rtt *r, uint64_t rtt)
{
	uint64_t d;

	if (!r->srtt) {
		r->srtt = rtt;
		r->rttvar = rtt / 2;
		return;
	}
	d = rtt > r->srtt ? rtt - r->srtt : r->srtt - rtt;
	r->rttvar = (3 * r->rttvar + d) / 4;
	r->srtt = (7 * r->srtt + rtt) / 8;
}

/* srtt + 4 rttvar: the timeout RFC 6298 gives, before any floor or back-off. */
static inline uint64_t host_rtt_rto(const struct host_rtt *r)
{
	return r->srtt + 4 * r->rttvar;
}

#endif
