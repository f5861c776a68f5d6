/* SPDX-License-Identifier: BSD-3-Clause */
/* Port set-up and queue assignment. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mempool.h>

#include "dp.h"
#include "mbuf.h"
#include "port.h"
#include "pre.h"
#include "worker.h"

RTE_LOG_REGISTER(isw_port_logtype, inswitch.port, INFO);
#define LOG(l, ...) rte_log(RTE_LOG_##l, isw_port_logtype, "inswitch: " __VA_ARGS__)

static struct isw_port_info infos[ISW_MAX_PORTS];

const struct isw_port_info *isw_port_info(uint16_t port)
{
	return port < isw_dp.nb_ports ? &infos[port] : NULL;
}

/*
 * net_af_xdp uses the pool's memory as its UMEM (see mbuf.h) and parks ISW_AF_XDP_FILL_BUFS
 * buffers per queue in the fill ring at set-up. Say what is wrong here instead of leaving it
 * to the PMD's "Failed to configure xdp socket" or, worse, to silent kernel-side drops.
 */
static int af_xdp_check(uint16_t port, uint16_t rxq)
{
	if (!isw_mbuf_pool_umem_safe(isw_dp.pool)) {
		LOG(ERR,
		    "port %u (net_af_xdp): the mbuf pool is spread out in memory beyond what "
		    "AF_XDP "
		    "registers, so the kernel would drop buffers; run with --iova-mode=va\n",
		    port);
		return -EINVAL;
	}
	unsigned avail = rte_mempool_avail_count(isw_dp.pool);
	if (avail < (unsigned)rxq * ISW_AF_XDP_FILL_BUFS) {
		LOG(ERR,
		    "port %u (net_af_xdp): needs %u buffers for its fill ring%s, the pool has %u "
		    "left of %u: raise --mbufs\n",
		    port, rxq * ISW_AF_XDP_FILL_BUFS, rxq > 1 ? "s" : "", avail, isw_dp.pool->size);
		return -ENOBUFS;
	}
	return 0;
}

static int port_setup(uint16_t port, const struct isw_port_opts *o, uint16_t *nrxq, uint16_t *ntxq)
{
	struct rte_eth_dev_info di;
	int rc = rte_eth_dev_info_get(port, &di);
	if (rc < 0) {
		LOG(ERR, "port %u: cannot get device info: %s\n", port, rte_strerror(-rc));
		return rc;
	}
	uint16_t rxq = RTE_MIN(o->rxq, di.max_rx_queues);
	uint16_t txq = RTE_MIN(isw_dp.nb_workers, di.max_tx_queues);
	if (rxq == 0 || txq == 0) {
		LOG(ERR, "port %u (%s): device offers no queues\n", port, di.driver_name);
		return -EINVAL;
	}
	if (strcmp(di.driver_name, "net_af_xdp") == 0) {
		rc = af_xdp_check(port, rxq);
		if (rc < 0)
			return rc;
	}
	struct rte_eth_conf conf;
	memset(&conf, 0, sizeof(conf));
	bool multiseg = (di.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) != 0;
	if (multiseg)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (rxq > 1 && di.flow_type_rss_offloads != 0) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
		        di.flow_type_rss_offloads & (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP);
	}
	rc = rte_eth_dev_configure(port, rxq, txq, &conf);
	if (rc < 0) {
		LOG(ERR, "port %u: configure (%u rxq, %u txq): %s\n", port, rxq, txq,
		    rte_strerror(-rc));
		return rc;
	}
	uint16_t nrx = o->rx_desc, ntx = o->tx_desc;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrx, &ntx);
	if (rc < 0)
		return rc;
	int socket = rte_eth_dev_socket_id(port);
	for (uint16_t q = 0; q < rxq; q++) {
		rc = rte_eth_rx_queue_setup(port, q, nrx, socket, NULL, isw_dp.pool);
		if (rc < 0) {
			LOG(ERR, "port %u: rx queue %u: %s\n", port, q, rte_strerror(-rc));
			return rc;
		}
	}
	for (uint16_t q = 0; q < txq; q++) {
		struct rte_eth_txconf txc = di.default_txconf;
		txc.offloads = conf.txmode.offloads;
		rc = rte_eth_tx_queue_setup(port, q, ntx, socket, &txc);
		if (rc < 0) {
			LOG(ERR, "port %u: tx queue %u: %s\n", port, q, rte_strerror(-rc));
			return rc;
		}
	}
	rc = rte_eth_dev_start(port);
	if (rc < 0) {
		LOG(ERR, "port %u: start: %s\n", port, rte_strerror(-rc));
		return rc;
	}
	if (o->promisc)
		rte_eth_promiscuous_enable(port); /* not every driver can; harmless then */

	struct isw_port_info *pi = &infos[port];
	rte_eth_dev_get_name_by_port(port, pi->name);
	snprintf(pi->driver, sizeof(pi->driver), "%s", di.driver_name);
	struct rte_ether_addr mac;
	if (rte_eth_macaddr_get(port, &mac) == 0)
		memcpy(pi->mac, mac.addr_bytes, 6);
	rte_eth_dev_get_mtu(port, &pi->mtu);
	pi->nb_rxq = rxq;
	pi->nb_txq = txq;
	pi->multiseg = multiseg;
	isw_pre_set_port_caps(port, multiseg, strcmp(di.driver_name, "net_af_xdp") != 0);
	*nrxq = rxq;
	*ntxq = txq;
	return 0;
}

int isw_ports_init(const struct isw_port_opts *o)
{
	uint16_t n = rte_eth_dev_count_avail();
	if (n == 0) {
		LOG(ERR, "no ports: give EAL at least one device, e.g. --vdev net_null0\n");
		return -ENODEV;
	}
	if (n > ISW_MAX_PORTS) {
		LOG(ERR, "%u ports, at most %u supported\n", n, ISW_MAX_PORTS);
		return -E2BIG;
	}
	uint16_t port, p = 0, rr = 0;
	RTE_ETH_FOREACH_DEV(port)
	{
		if (port != p) {
			LOG(ERR, "port ids are not contiguous (%u after %u)\n", port, p);
			return -EINVAL;
		}
		uint16_t rxq, txq;
		int rc = port_setup(port, o, &rxq, &txq);
		if (rc < 0)
			return rc;
		for (uint16_t q = 0; q < rxq; q++) {
			struct isw_worker *w = isw_dp.workers[rr++ % isw_dp.nb_workers];
			if (w->nb_rxq >= ISW_MAX_RXQ)
				return -E2BIG;
			w->rxq[w->nb_rxq].port = port;
			w->rxq[w->nb_rxq].queue = q;
			w->nb_rxq++;
		}
		for (uint16_t i = 0; i < isw_dp.nb_workers; i++) {
			struct isw_worker *w = isw_dp.workers[i];
			w->txq[port] = i < txq ? (int16_t)i : -1;
			w->tx_owner[port] = i < txq ? i : i % txq;
		}
		p++;
	}
	isw_dp.nb_ports = n;
	return isw_mc_init(n);
}

void isw_ports_fini(void)
{
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
}
