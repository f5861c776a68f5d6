/* SPDX-License-Identifier: BSD-3-Clause */
#include "drop.h"

static const char *const names[] = {
#define ISW_DROP_NAME(n, s, d) [ISW_DROP_##n] = s,
        ISW_FOREACH_DROP(ISW_DROP_NAME)
#undef ISW_DROP_NAME
};

static const char *const descrs[] = {
#define ISW_DROP_DESCR(n, s, d) [ISW_DROP_##n] = d,
        ISW_FOREACH_DROP(ISW_DROP_DESCR)
#undef ISW_DROP_DESCR
};

const char *isw_drop_name(unsigned reason)
{
	return reason < ISW_DROP_MAX ? names[reason] : "unknown";
}

const char *isw_drop_descr(unsigned reason)
{
	return reason < ISW_DROP_MAX ? descrs[reason] : "unknown";
}
