/* SPDX-License-Identifier: BSD-3-Clause */
/* The packet replication engine. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "pre.h"
#include "worker.h"

/* One RCU-published pointer per group id, so editing a group copies only that group. */
static struct isw_mc_group *groups[ISW_MC_GROUP_MAX + 1];
static bool multiseg[ISW_MAX_PORTS];
static bool shared[ISW_MAX_PORTS];

void isw_pre_set_port_caps(uint16_t port, bool can_multiseg, bool can_share)
{
	if (port < ISW_MAX_PORTS) {
		multiseg[port] = can_multiseg && can_share;
		shared[port] = can_share;
	}
}

/* Fills c (fresh from the pool) with a copy of single-segment m. */
static inline void copy_into(struct rte_mbuf *c, const struct rte_mbuf *m)
{
	uint16_t len = rte_pktmbuf_data_len(m);
	rte_memcpy(rte_pktmbuf_mtod(c, void *), rte_pktmbuf_mtod(m, const void *), len);
	c->data_len = len;
	c->pkt_len = len;
	c->port = m->port;
	c->ol_flags = m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK;
}

/* True when m can be copied with copy_into(): one segment that fits a pool buffer. */
static inline bool copy_simple(const struct rte_mbuf *m)
{
	return m->nb_segs == 1 &&
	       rte_pktmbuf_data_len(m) <=
	               rte_pktmbuf_data_room_size(isw_dp.pool) - RTE_PKTMBUF_HEADROOM;
}

/* A full copy: one mbuf and one memcpy for a single-segment packet (the common case). */
static struct rte_mbuf *copy(struct rte_mbuf *m, struct rte_mempool *mp)
{
	if (!copy_simple(m))
		return rte_pktmbuf_copy(m, mp, 0, UINT32_MAX);
	struct rte_mbuf *c = rte_pktmbuf_alloc(mp);
	if (c != NULL)
		copy_into(c, m);
	return c;
}

/* A replica whose first hdr_len bytes are private and the rest shared with m where possible.
 * Small frames are copied whole: one allocation and a short memcpy are expected to cost less
 * than a header mbuf, an indirect mbuf and the atomic reference counting of the shared buffer
 * (not measured on a port that sends chains: bench/README.md). */
static struct rte_mbuf *replica(struct rte_mbuf *m, uint16_t port, uint16_t hdr_len)
{
	struct rte_mempool *mp = isw_dp.pool;
	if (!shared[port] || (hdr_len != 0 && rte_pktmbuf_pkt_len(m) <= ISW_PRE_COPY_MAX))
		return copy(m, mp);
	if (hdr_len == 0)
		return rte_pktmbuf_clone(m, mp);
	if (!multiseg[port] || hdr_len >= rte_pktmbuf_data_len(m))
		return copy(m, mp);

	struct rte_mbuf *h = rte_pktmbuf_alloc(mp);
	if (h == NULL)
		return NULL;
	struct rte_mbuf *rest = rte_pktmbuf_clone(m, mp);
	if (rest == NULL) {
		rte_pktmbuf_free(h);
		return NULL;
	}
	rte_pktmbuf_adj(rest, hdr_len);
	memcpy(rte_pktmbuf_append(h, hdr_len), rte_pktmbuf_mtod(m, void *), hdr_len);
	if (rte_pktmbuf_chain(h, rest) != 0) {
		rte_pktmbuf_free(h);
		rte_pktmbuf_free(rest);
		return NULL;
	}
	return h;
}

/*
 * Takes up to n of the frames consumed so far in this burst (isw_consume()) whose buffers are
 * plain ones of the pool, reset as rte_pktmbuf_alloc() returns them. A replica built in a
 * consumed frame's buffer saves a free and an allocation, and the buffer is still in cache.
 */
static unsigned reuse_consumed(struct isw_worker *w, struct rte_mbuf **c, unsigned n)
{
	unsigned k = 0;
	while (k < n && w->dead.n > 0) {
		struct rte_mbuf *m = w->dead.pkts[w->dead.n - 1];
		if (!isw_mbuf_plain(m))
			break;
		w->dead.n--;
		rte_pktmbuf_reset(m);
		c[k++] = m;
	}
	return k;
}

/*
 * Small rewritten frames: every replica is a full copy, so take them from the pool in one
 * call. Returns false (nothing sent) if the pool cannot give them all; the caller then goes
 * replica by replica and counts what is missing.
 */
static bool mcast_copies(struct isw_worker *w, struct rte_mbuf *m, const struct isw_mc_group *g,
                         int exclude_port, int last, isw_rewrite_fn rewrite, void *arg)
{
	struct rte_mbuf *c[ISW_MC_MEMBERS_MAX];
	unsigned n = 0;
	for (int i = 0; i < last; i++)
		n += g->m[i].port != exclude_port;
	unsigned reused = reuse_consumed(w, c, n);
	if (n > reused && rte_pktmbuf_alloc_bulk(isw_dp.pool, c + reused, n - reused) != 0) {
		rte_pktmbuf_free_bulk(c, reused);
		return false;
	}
	const struct isw_meta meta = *isw_meta(m);
	unsigned k = 0;
	for (int i = 0; i < last; i++) {
		const struct isw_mc_member *mb = &g->m[i];
		if (mb->port == exclude_port)
			continue;
		struct rte_mbuf *r = c[k++];
		copy_into(r, m);
		*isw_meta(r) = meta;
		rewrite(r, mb->rid, mb->port, arg);
		isw_tx(w, r, mb->port);
	}
	w->stats.replicas += n;
	rewrite(m, g->m[last].rid, g->m[last].port, arg);
	isw_tx(w, m, g->m[last].port);
	return true;
}

void isw_mcast(struct isw_worker *w, struct rte_mbuf *m, uint16_t group, int exclude_port,
               isw_rewrite_fn rewrite, void *arg, uint16_t hdr_len)
{
	const struct isw_mc_group *g = ISW_RCU_LOAD(groups[group]);
	if (unlikely(g == NULL)) {
		isw_drop(w, m, ISW_DROP_NO_GROUP);
		return;
	}
	/* The original goes to the last eligible member; find it first. */
	int last = -1;
	for (int i = g->n - 1; i >= 0; i--) {
		if (g->m[i].port != exclude_port) {
			last = i;
			break;
		}
	}
	if (unlikely(last < 0)) {
		isw_drop(w, m, ISW_DROP_NO_GROUP);
		return;
	}
	if (rewrite == NULL)
		hdr_len = 0;
	if (hdr_len != 0 && rte_pktmbuf_pkt_len(m) <= ISW_PRE_COPY_MAX && copy_simple(m) &&
	    likely(mcast_copies(w, m, g, exclude_port, last, rewrite, arg)))
		return;
	const struct isw_meta meta = *isw_meta(m);
	for (int i = 0; i < last; i++) {
		const struct isw_mc_member *mb = &g->m[i];
		if (mb->port == exclude_port)
			continue;
		struct rte_mbuf *r = replica(m, mb->port, hdr_len);
		if (unlikely(r == NULL)) {
			w->stats.pipeline[w->cur_id].drops[ISW_DROP_NO_MBUF]++;
			w->stats.port[meta.in_port].drops++;
			continue;
		}
		*isw_meta(r) = meta;
		w->stats.replicas++;
		if (rewrite != NULL)
			rewrite(r, mb->rid, mb->port, arg);
		isw_tx(w, r, mb->port);
	}
	if (rewrite != NULL)
		rewrite(m, g->m[last].rid, g->m[last].port, arg);
	isw_tx(w, m, g->m[last].port);
}

static struct isw_mc_group *group_alloc(uint16_t id, uint16_t n)
{
	struct isw_mc_group *g = calloc(1, sizeof(*g) + (size_t)n * sizeof(g->m[0]));
	if (g != NULL) {
		g->id = id;
		g->n = n;
	}
	return g;
}

static int publish(uint16_t group, struct isw_mc_group *g)
{
	isw_rcu_publish((void **)&groups[group], g, free);
	return 0;
}

int isw_mc_create(uint16_t group)
{
	if (group == ISW_MC_FLOOD)
		return -EINVAL;
	if (groups[group] != NULL)
		return -EEXIST;
	struct isw_mc_group *g = group_alloc(group, 0);
	return g ? publish(group, g) : -ENOMEM;
}

int isw_mc_destroy(uint16_t group)
{
	if (group == ISW_MC_FLOOD)
		return -EINVAL;
	if (groups[group] == NULL)
		return -ENOENT;
	return publish(group, NULL);
}

int isw_mc_set(uint16_t group, const struct isw_mc_member *m, uint16_t n)
{
	if (n > ISW_MC_MEMBERS_MAX)
		return -E2BIG;
	for (unsigned i = 0; i < n; i++)
		if (m[i].port >= isw_dp.nb_ports)
			return -ENODEV;
	struct isw_mc_group *g = group_alloc(group, n);
	if (g == NULL)
		return -ENOMEM;
	memcpy(g->m, m, (size_t)n * sizeof(*m));
	return publish(group, g);
}

int isw_mc_add(uint16_t group, uint16_t port, uint16_t rid)
{
	const struct isw_mc_group *old = groups[group];
	if (old == NULL || group == ISW_MC_FLOOD)
		return -ENOENT;
	for (unsigned i = 0; i < old->n; i++)
		if (old->m[i].port == port && old->m[i].rid == rid)
			return -EEXIST;
	if (old->n >= ISW_MC_MEMBERS_MAX)
		return -E2BIG;
	struct isw_mc_member mb[ISW_MC_MEMBERS_MAX];
	memcpy(mb, old->m, (size_t)old->n * sizeof(mb[0]));
	mb[old->n].port = port;
	mb[old->n].rid = rid;
	return isw_mc_set(group, mb, old->n + 1);
}

int isw_mc_del(uint16_t group, uint16_t port, uint16_t rid)
{
	const struct isw_mc_group *old = groups[group];
	if (old == NULL || group == ISW_MC_FLOOD)
		return -ENOENT;
	struct isw_mc_member mb[ISW_MC_MEMBERS_MAX];
	uint16_t n = 0;
	for (unsigned i = 0; i < old->n; i++)
		if (old->m[i].port != port || old->m[i].rid != rid)
			mb[n++] = old->m[i];
	if (n == old->n)
		return -ENOENT;
	return isw_mc_set(group, mb, n);
}

const struct isw_mc_group *isw_mc_get(uint16_t group)
{
	return groups[group];
}

int isw_mc_init(uint16_t nb_ports)
{
	struct isw_mc_member mb[ISW_MAX_PORTS];
	for (uint16_t p = 0; p < nb_ports; p++) {
		mb[p].port = p;
		mb[p].rid = p;
	}
	return isw_mc_set(ISW_MC_FLOOD, mb, nb_ports);
}

void isw_mc_fini(void)
{
	for (unsigned i = 0; i <= ISW_MC_GROUP_MAX; i++) {
		free(groups[i]);
		groups[i] = NULL;
	}
}
