/* SPDX-License-Identifier: BSD-3-Clause */
/* Number arguments of the host tools (host_args.h). */

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "host_args.h"

int host_parse_count(const char *s, uint64_t max, uint64_t *out)
{
	static const struct {
		const char *sfx;
		uint64_t mul;
	} sfx[] = {{"", 1},     {"Ki", 1ull << 10}, {"Mi", 1ull << 20}, {"Gi", 1ull << 30},
	           {"k", 1000}, {"K", 1000},        {"M", 1000000},     {"G", 1000000000}};
	char *end;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	errno = 0;
	uint64_t v = strtoull(s, &end, hex ? 16 : 10);
	if (errno != 0 || (hex && end == s + 2))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]) && !(hex && i > 0); i++) {
		if (strcmp(end, sfx[i].sfx) != 0)
			continue;
		if (v > max / sfx[i].mul)
			return -ERANGE;
		*out = v * sfx[i].mul;
		return 0;
	}
	return -EINVAL;
}

int host_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	uint64_t v;
	int rc = host_parse_count(s, hi, &v);
	if (rc < 0)
		return rc;
	if (v < lo)
		return -ERANGE;
	*out = (unsigned)v;
	return 0;
}

const char *host_opt_name(const struct option *lo, int c)
{
	for (; lo->name != NULL; lo++)
		if (lo->val == c)
			return lo->name;
	return "?";
}
