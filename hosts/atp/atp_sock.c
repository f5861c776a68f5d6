/* SPDX-License-Identifier: BSD-3-Clause */
/* ATP's frames on the host transport (atp_sock.h). */
#include <stdio.h>
#include <string.h>

#include "atp_sock.h"

int atp_sock_open(struct hx **out, const struct atp_cli *c, bool ps, const char *tool, char *err,
                  size_t errlen)
{
	struct hx_cfg hc = {.dev = c->dev,
	                    .kind = (enum hx_kind)c->transport,
	                    .ethertype = ATP_ETHERTYPE,
	                    .mac_len = 5,
	                    .nsock = c->threads,
	                    .busy_poll = c->busy_poll};
	int rc;

	memcpy(hc.mac, ps ? atp_ps_mac_prefix : atp_worker_mac_prefix, 5);
	hc.mac[5] = atp_wire_thread((uint16_t)c->app, 0);
	rc = hx_open(out, &hc, err, errlen);
	if (rc == 0 && !c->quiet)
		fprintf(stderr, "%s: transport: %s\n", tool, hx_describe(*out));
	return rc;
}
