/* SPDX-License-Identifier: BSD-3-Clause */
/* The clock of every host stack's timers. */
#ifndef ISW_HOST_CLOCK_H
#define ISW_HOST_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds (a vDSO read, no system call). */
static inline uint64_t host_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
