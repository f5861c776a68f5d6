/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host stacks' retransmission timer (SyncAgtr, ATP, ASK), in one place: RFC 6298's smoothed
 * round trip and variance, Karn's rule, a floor, a cap and exponential back-off.
 *
 * Pure arithmetic on the caller's state: no clock, no I/O, no allocation, a few integer
 * operations a call, so the engines may call it per packet.
 *
 * Samples per round trip. RFC 6298's gains (1/8 for srtt, 1/4 for rttvar) assume one sample a
 * round trip, as TCP times one segment at a time. The stacks here time every packet answered at
 * its first send: a window of W gives W samples a round trip. With the RFC's gains per sample,
 * rttvar shrinks by (3/4)^W a round trip: a window of answers that come back close together
 * wipes out whatever variation the round trips before them showed, and srtt + 4 rttvar
 * collapses onto srtt (or the floor), which the next slow round trip exceeds. So, as RFC 7323
 * (appendix G) does for timestamps, the gains are divided by the samples a round trip
 * (host_rtt_sample's per_rtt): the estimator then moves per round trip as the RFC's does.
 */
#ifndef ISW_HOST_RTT_H
#define ISW_HOST_RTT_H

#include <stdint.h>

/* Nanoseconds; srtt 0: no sample yet. */
struct host_rtt {
	uint64_t srtt, rttvar;
	/* timeouts since the path was last seen answering: each doubles the timeout (RFC 6298
	 * 5.5); expired_ns, the last of them */
	unsigned backoff;
	uint64_t expired_ns;
};

/*
 * Adds one round trip (ns), one of per_rtt samples a round trip (0 taken as 1): the first sets
 * srtt and rttvar = rtt / 2, the next ones move srtt by 1/(8 per_rtt) and rttvar by
 * 1/(4 per_rtt) of their difference (RFC 6298 with RFC 7323's scaled gains).
 */
static inline void host_rtt_sample(struct host_rtt *r, uint64_t rtt, unsigned per_rtt)
{
	int64_t n = per_rtt ? (int64_t)per_rtt : 1, d;

	if (rtt == 0)
		rtt = 1; /* srtt 0 means "no sample" */
	if (!r->srtt) {
		r->srtt = rtt;
		r->rttvar = rtt / 2;
		return;
	}
	d = rtt > r->srtt ? (int64_t)(rtt - r->srtt) : (int64_t)(r->srtt - rtt);
	r->rttvar = (uint64_t)((int64_t)r->rttvar + (d - (int64_t)r->rttvar) / (4 * n));
	r->srtt = (uint64_t)((int64_t)r->srtt + ((int64_t)rtt - (int64_t)r->srtt) / (8 * n));
	if (!r->srtt)
		r->srtt = 1;
}

/*
 * An answer to a packet last sent at sent_ns, received at now, after `resends` resends of it.
 * Karn's rule: only a packet answered at its first send tells the round trip (an answer to a
 * resent one may answer either copy), so only then is it a sample (host_rtt_sample). The
 * back-off ends with an answer to a packet sent once and after the last timeout: the path
 * answers in time again. Answers to packets sent before it are samples of the delay that made
 * it fire (they teach the estimator how long the path can take) but leave the back-off on, so
 * that the packets still waiting from then are not resent one after the other as their
 * answers straggle in. 1 if it was a sample.
 */
static inline int host_rtt_answer(struct host_rtt *r, uint64_t sent_ns, uint64_t now,
                                  unsigned resends, unsigned per_rtt)
{
	if (resends || now <= sent_ns)
		return 0;
	host_rtt_sample(r, now - sent_ns, per_rtt);
	if (sent_ns >= r->expired_ns)
		r->backoff = 0;
	return 1;
}

/* srtt + 4 rttvar: the timeout RFC 6298 gives, before any floor or back-off (0: no sample). */
static inline uint64_t host_rtt_rto(const struct host_rtt *r)
{
	return r->srtt + 4 * r->rttvar;
}

/*
 * A packet's timeout (ns): srtt + 4 rttvar (`initial` before the first sample), at least
 * `floor`, doubled `shift` times (the back-off: the caller's r->backoff, or a packet's own
 * resends, whichever is larger), at most `cap`.
 */
static inline uint64_t host_rtt_timeout(const struct host_rtt *r, uint64_t initial, uint64_t floor,
                                        uint64_t cap, unsigned shift)
{
	uint64_t t = r->srtt ? host_rtt_rto(r) : initial;

	if (t < floor)
		t = floor;
	for (; shift && t < cap && t < UINT64_MAX / 2; shift--)
		t <<= 1;
	return t < cap ? t : cap;
}

/* A timeout fired at now: the timeouts that follow double, up to max_shift times, until the
 * path answers in time again (host_rtt_answer). Once per expiry, not per packet it resends. */
static inline void host_rtt_expired(struct host_rtt *r, uint64_t now, unsigned max_shift)
{
	if (r->backoff < max_shift)
		r->backoff++;
	r->expired_ns = now;
}

#endif
