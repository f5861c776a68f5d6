/* SPDX-License-Identifier: BSD-3-Clause */
/* The host stacks' numbers that must differ from run to run, and their generated data. */
#ifndef ISW_HOST_RAND_H
#define ISW_HOST_RAND_H

#include <stdint.h>
#include <unistd.h>
#include <sys/random.h>

#include "host_clock.h"

/* SplitMix64's step and mix of z: a well-spread 64-bit function of z (generated tensors,
 * checksum weights, job numbers). */
static inline uint64_t host_mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* 64 random bits (getrandom(); should it fail, the clock and the pid, mixed). */
static inline uint64_t host_random_u64(void)
{
	uint64_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t)sizeof(v))
		return v;
	return host_mix64(host_now_ns() ^ (uint64_t)getpid() << 40);
}

/* A random non-zero 32-bit number: nonces and job tokens, where 0 means "none". */
static inline uint32_t host_random_nz32(void)
{
	uint32_t v;

	do
		v = (uint32_t)host_random_u64();
	while (!v);
	return v;
}

#endif
