/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ATP's raw frames (EtherType 0x0700, no IP/UDP stack involved) on the host transport (hx.h):
 * one socket per host thread, each receiving only its own frames, by destination MAC (the NIC
 * steering of ATP's common/dma_common.cc).
 */
#ifndef ISW_ATP_SOCK_H
#define ISW_ATP_SOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "atp_host.h"
#include "hx.h"

/*
 * Opens c->threads sockets on c->dev with c->transport: socket t receives the frames to
 * (ps ? 05:04:03:02:01 : 77:77:77:77:77):<t'>, t' the wire thread of t. Prints which transport
 * it chose on stderr unless c->quiet (with auto, why it fell back). 0 or -errno, err says.
 */
int atp_sock_open(struct hx **out, const struct atp_cli *c, bool ps, const char *tool, char *err,
                  size_t errlen);

#endif
