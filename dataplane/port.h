/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethernet ports: set-up of every ethdev EAL probed (physical NICs and any vdev: net_af_xdp,
 * net_af_packet, net_pcap, net_ring, net_null, net_memif), assignment of their queues to worker
 * lcores, and shutdown. Control thread only.
 */
#ifndef ISW_PORT_H
#define ISW_PORT_H

#include <stdbool.h>
#include <stdint.h>

struct rte_mempool;

struct isw_port_opts {
	uint16_t rxq;     /* rx queues wanted per port (capped by the device) */
	uint16_t rx_desc; /* ring sizes */
	uint16_t tx_desc;
	bool promisc;
};

struct isw_port_info {
	char name[64];
	char driver[32];
	uint8_t mac[6];
	uint16_t nb_rxq;
	uint16_t nb_txq;
	uint16_t mtu;
	bool multiseg;
};

/*
 * Configures and starts every probed port with the workers already created in isw_dp: rx queues
 * are spread over workers round-robin, each worker gets its own tx queue where the device has
 * enough, otherwise it hands packets to the worker that owns one. Returns 0 or -errno (logged).
 */
int isw_ports_init(const struct isw_port_opts *o);

/* Stops and closes every port (flushes pcap output). */
void isw_ports_fini(void);

const struct isw_port_info *isw_port_info(uint16_t port);

#endif
