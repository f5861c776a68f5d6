/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet-buffer pool: its default size and how its buffers are laid out in memory.
 *
 * net_af_xdp registers the pool's memory with the kernel as the socket's UMEM and takes the
 * UMEM to be populated_size x object size bytes from the first object. A pool whose objects
 * were spaced out to stay inside pages (what DPDK does by default when IOVA is physical, as
 * with --no-huge, where a 2.5 KiB object then takes a whole 4 KiB page) extends past that:
 * the kernel silently discards every fill-ring entry and every transmission that points
 * beyond it, the buffers are never returned, and a busy port ends up with an empty fill ring
 * and drops everything it is sent. So the pool is built "packed" (objects back to back) where
 * nothing needs physically contiguous buffers, and AF_XDP ports are refused on a pool that is
 * not. Control thread only.
 */
#ifndef ISW_MBUF_H
#define ISW_MBUF_H

#include <stdbool.h>
#include <stdint.h>

struct rte_mempool;
struct isw_port_opts;

/* Buffers net_af_xdp parks in each receive queue's fill ring, whatever the ring size. */
#define ISW_AF_XDP_FILL_BUFS 2048u

/*
 * Default pool size for the probed ports set up as o says: 16383, or more where the ports'
 * rings (counting net_af_xdp's fill and completion rings) would otherwise hold most of it;
 * always a power of two minus one, the best size for the pool's ring.
 */
unsigned isw_mbuf_default_count(const struct isw_port_opts *o);

/*
 * Creates the mbuf pool of n buffers with priv_size bytes of per-packet metadata on socket.
 * The objects are packed when the EAL has no hugepages, IOVA is virtual, or no probed port
 * sits on a bus that does DMA (only virtual devices); otherwise DPDK's usual layout is kept.
 * Returns NULL with rte_errno set on failure.
 */
struct rte_mempool *isw_mbuf_pool_create(const char *name, unsigned n, uint16_t priv_size,
                                         int socket);

/*
 * True if every object of mp lies within populated_size x object size bytes (plus the
 * alignment of the first) from the page holding the first object, i.e. inside the UMEM
 * net_af_xdp registers for it.
 */
bool isw_mbuf_pool_umem_safe(const struct rte_mempool *mp);

#endif
