/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * l2: plain Ethernet forwarding (static MAC table, flooding). What other modules may ask of it.
 * Control thread only: the table read is the control side's current one, never a worker's.
 */
#ifndef ISW_L2_H
#define ISW_L2_H

#include <stdint.h>

/* The port of mac's static entry ("l2 add MAC PORT"), or -ENOENT when it has none. */
int isw_l2_port_of(const uint8_t mac[6]);

#endif
