/* SPDX-License-Identifier: BSD-3-Clause */
/* Number arguments of the host tools (hosts/): one parser for every option that takes one. */
#ifndef ISW_HOST_ARGS_H
#define ISW_HOST_ARGS_H

#include <stdint.h>

/*
 * A decimal number with an optional suffix Ki, Mi, Gi (x 1024) or k, K, M, G (x 1000), or a
 * hexadecimal one written 0x...; at most max. A leading zero does not mean octal. Returns 0,
 * -EINVAL (not such a number) or -ERANGE (above max).
 */
int host_parse_count(const char *s, uint64_t max, uint64_t *out);

/* host_parse_count() for a value between lo and hi. */
int host_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out);

struct option;

/* The long name of the getopt_long() option whose code is c in the table lo, for messages
 * ("?" if none has it). */
const char *host_opt_name(const struct option *lo, int c);

#endif
