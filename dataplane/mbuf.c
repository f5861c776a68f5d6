/* SPDX-License-Identifier: BSD-3-Clause */
/* The packet-buffer pool: default size and a layout net_af_xdp can use. */

#include <string.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_common.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_mempool.h>

#include "mbuf.h"
#include "port.h"

/* Buffers every port may hold at once: its rings, counting net_af_xdp's fill ring (always
 * ISW_AF_XDP_FILL_BUFS) and completion ring (the same size, drained only when half full). */
static unsigned port_reserve(uint16_t port, const struct isw_port_opts *o)
{
	struct rte_eth_dev_info di;
	unsigned rx = o->rx_desc, tx = o->tx_desc;
	if (rte_eth_dev_info_get(port, &di) == 0 && strcmp(di.driver_name, "net_af_xdp") == 0) {
		rx = RTE_MAX(rx, ISW_AF_XDP_FILL_BUFS);
		tx = RTE_MAX(tx, ISW_AF_XDP_FILL_BUFS);
	}
	return o->rxq * (rx + tx);
}

unsigned isw_mbuf_default_count(const struct isw_port_opts *o)
{
	/* Room for packets in flight inside the switch besides what the rings hold. */
	unsigned need = 8192;
	uint16_t port;
	RTE_ETH_FOREACH_DEV(port)
	need += port_reserve(port, o);
	unsigned n = 16384;
	while (n < need && n < (1u << 24))
		n <<= 1;
	return n - 1;
}

/* True if some probed port is on a bus whose devices DMA into the buffers (not "vdev"). */
static bool ports_need_dma(void)
{
	uint16_t port;
	RTE_ETH_FOREACH_DEV(port)
	{
		struct rte_eth_dev_info di;
		if (rte_eth_dev_info_get(port, &di) != 0 || di.device == NULL)
			return true;
		const struct rte_bus *bus = rte_dev_bus(di.device);
		if (bus == NULL || strcmp(rte_bus_name(bus), "vdev") != 0)
			return true;
	}
	return false;
}

struct rte_mempool *isw_mbuf_pool_create(const char *name, unsigned n, uint16_t priv_size,
                                         int socket)
{
	bool packed =
	        !rte_eal_has_hugepages() || rte_eal_iova_mode() == RTE_IOVA_VA || !ports_need_dma();
	unsigned elt = (unsigned)sizeof(struct rte_mbuf) + priv_size + RTE_MBUF_DEFAULT_BUF_SIZE;
	struct rte_mempool *mp =
	        rte_mempool_create_empty(name, n, elt, 256, sizeof(struct rte_pktmbuf_pool_private),
	                                 socket, packed ? RTE_MEMPOOL_F_NO_IOVA_CONTIG : 0);
	if (mp == NULL)
		return NULL;
	int rc = rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL);
	if (rc != 0)
		goto fail;
	struct rte_pktmbuf_pool_private priv = {
	        .mbuf_data_room_size = RTE_MBUF_DEFAULT_BUF_SIZE,
	        .mbuf_priv_size = priv_size,
	};
	rte_pktmbuf_pool_init(mp, &priv);
	rc = rte_mempool_populate_default(mp);
	if (rc < 0)
		goto fail;
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
fail:
	rte_mempool_free(mp);
	rte_errno = rc < 0 ? -rc : rc;
	return NULL;
}

struct umem_span {
	uintptr_t base;
	uintptr_t end;
	bool outside;
};

static void obj_check(struct rte_mempool *mp, void *arg, void *obj, unsigned idx)
{
	RTE_SET_USED(idx);
	struct umem_span *s = arg;
	/* net_af_xdp addresses an object from its header; the object ends total_size later. */
	uintptr_t start = (uintptr_t)obj - mp->header_size;
	if (start < s->base || start + mp->header_size + mp->elt_size + mp->trailer_size > s->end)
		s->outside = true;
}

bool isw_mbuf_pool_umem_safe(const struct rte_mempool *mp)
{
	const struct rte_mempool_memhdr *mh = STAILQ_FIRST(&mp->mem_list);
	if (mh == NULL)
		return false;
	size_t page = (size_t)getpagesize();
	uintptr_t first = (uintptr_t)mh->addr;
	uintptr_t base = first & ~(uintptr_t)(page - 1);
	size_t obj = mp->header_size + mp->elt_size + mp->trailer_size;
	struct umem_span s = {
	        .base = base,
	        .end = base + (first - base) + (uintptr_t)mp->populated_size * obj,
	};
	/* Iteration only reads; the cast is for rte_mempool_obj_iter's prototype. */
	rte_mempool_obj_iter((struct rte_mempool *)(uintptr_t)mp, obj_check, &s);
	return !s.outside;
}
