/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP answering for pipelines that own IPv4 addresses (SyncAgtr's session IPs, the ASK address):
 * recognise a request, and turn it into its reply in place, so it can go straight back out of
 * the ingress port. Runs on worker lcores; reads only within the length it is given.
 */
#ifndef ISW_ARP_H
#define ISW_ARP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define ISW_ARP_ETH_LEN   14u
#define ISW_ARP_FRAME_LEN (ISW_ARP_ETH_LEN + 28u) /* Ethernet + ARP for IPv4 over Ethernet */

/* True when the frame p of len bytes is an ARP request for an IPv4 address (Ethernet hardware,
 * EtherType already checked by the caller); its target address, as on the wire, goes to *tpa. */
static inline bool isw_arp_request(const uint8_t *p, uint32_t len, uint32_t *tpa)
{
	static const uint8_t req[8] = {0, 1, 8, 0, 6, 4, 0, 1};
	if (len < ISW_ARP_FRAME_LEN || memcmp(p + ISW_ARP_ETH_LEN, req, sizeof(req)) != 0)
		return false;
	memcpy(tpa, p + ISW_ARP_ETH_LEN + 24, 4);
	return true;
}

/* Rewrites the request isw_arp_request() accepted into the reply "its target is at mac". */
static inline void isw_arp_answer(uint8_t *p, const uint8_t mac[6])
{
	uint8_t *a = p + ISW_ARP_ETH_LEN;
	uint8_t sha[6], spa[4], tpa[4];
	memcpy(sha, a + 8, 6);
	memcpy(spa, a + 14, 4);
	memcpy(tpa, a + 24, 4);
	a[7] = 2; /* reply */
	memcpy(a + 8, mac, 6);
	memcpy(a + 14, tpa, 4);
	memcpy(a + 18, sha, 6);
	memcpy(a + 24, spa, 4);
	memcpy(p, sha, 6);
	memcpy(p + 6, mac, 6);
}

#endif
