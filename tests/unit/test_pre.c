/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet replication engine: group membership, exclusion of the ingress port, per-replica
 * rewrite keyed by replication id, private headers with shared payload, full copies on ports
 * that cannot send chained mbufs, and counted drops. Runs EAL without hugepages or devices;
 * replicas are inspected in the worker's transmit buffers before any port would see them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "dp.h"
#include "isw_test.h"
#include "pre.h"
#include "worker.h"

#define NPORTS 4

static struct isw_worker *w;

static int setup(void **state)
{
	(void)state;
	w = isw_test_worker();
	assert_non_null(w);
	assert_int_equal(isw_mc_init(NPORTS), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	isw_test_tx_clear(w);
	isw_mc_fini();
	rte_free(w);
	return 0;
}

static struct rte_mbuf *packet(uint16_t len, uint16_t in_port)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(isw_dp.pool);
	assert_non_null(m);
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, len);
	for (uint16_t i = 0; i < len; i++)
		d[i] = (uint8_t)i;
	isw_meta(m)->in_port = in_port;
	return m;
}

static void test_flood_excludes_ingress(void **state)
{
	(void)state;
	for (int p = 0; p < NPORTS; p++)
		isw_pre_set_port_caps((uint16_t)p, true, true);
	struct rte_mbuf *m = packet(100, 2);
	isw_mcast(w, m, ISW_MC_FLOOD, 2, NULL, NULL, 0);
	assert_int_equal(w->tx[0].n, 1);
	assert_int_equal(w->tx[1].n, 1);
	assert_int_equal(w->tx[2].n, 0);
	assert_int_equal(w->tx[3].n, 1);
	/* The original is the last replica; the others reference its data. */
	assert_ptr_equal(w->tx[3].pkts[0], m);
	assert_true(RTE_MBUF_CLONED(w->tx[0].pkts[0]));
	assert_int_equal(rte_mbuf_refcnt_read(m), 3);
	assert_memory_equal(rte_pktmbuf_mtod(w->tx[0].pkts[0], void *), rte_pktmbuf_mtod(m, void *),
	                    100);
	assert_int_equal(isw_meta(w->tx[1].pkts[0])->in_port, 2);
}

struct seen {
	int n;
	uint16_t rid[8];
	uint16_t port[8];
};

static void rewrite(struct rte_mbuf *m, uint16_t rid, uint16_t port, void *arg)
{
	struct seen *s = arg;
	s->rid[s->n] = rid;
	s->port[s->n] = port;
	s->n++;
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	d[0] = (uint8_t)(0xa0 + rid); /* a per-replica "destination address" */
}

static void test_rewrite_private_headers(void **state)
{
	(void)state;
	isw_pre_set_port_caps(0, true, true);
	isw_pre_set_port_caps(1, true, true);
	isw_pre_set_port_caps(3, false, true); /* this port needs full copies */
	struct isw_mc_member mb[] = {{0, 10}, {1, 11}, {3, 13}, {1, 12}};
	assert_int_equal(isw_mc_set(9, mb, 4), 0);

	struct rte_mbuf *m = packet(1000, 2);
	struct seen s = {0};
	isw_mcast(w, m, 9, ISW_MC_NO_EXCLUDE, rewrite, &s, 42);

	assert_int_equal(s.n, 4);
	assert_int_equal(s.rid[0], 10);
	assert_int_equal(s.rid[2], 13);
	assert_int_equal(s.rid[3], 12);
	assert_int_equal(w->tx[0].n, 1);
	assert_int_equal(w->tx[1].n, 2);
	assert_int_equal(w->tx[3].n, 1);

	/* Each replica has its own first byte and the same 1000 bytes otherwise. */
	struct rte_mbuf *r[] = {w->tx[0].pkts[0], w->tx[1].pkts[0], w->tx[3].pkts[0],
	                        w->tx[1].pkts[1]};
	uint8_t want[] = {0xa0 + 10, 0xa0 + 11, 0xa0 + 13, 0xa0 + 12};
	for (int i = 0; i < 4; i++) {
		uint8_t flat[1000];
		const uint8_t *d = rte_pktmbuf_read(r[i], 0, 1000, flat);
		assert_non_null(d);
		assert_int_equal(rte_pktmbuf_pkt_len(r[i]), 1000);
		assert_int_equal(d[0], want[i]);
		for (int k = 1; k < 1000; k++)
			assert_int_equal(d[k], (uint8_t)k);
	}
	/* Longer than ISW_PRE_COPY_MAX: chained (header + shared payload) where the port allows,
	 * a copy where it does not. */
	assert_int_equal(r[0]->nb_segs, 2);
	assert_int_equal(rte_pktmbuf_data_len(r[0]), 42);
	assert_int_equal(r[2]->nb_segs, 1);
	assert_false(RTE_MBUF_CLONED(r[2]));
	assert_ptr_equal(r[3], m);

	/* Frames up to ISW_PRE_COPY_MAX are copied whole even where sharing is allowed. */
	isw_test_tx_clear(w);
	m = packet(ISW_PRE_COPY_MAX, 2);
	isw_mcast(w, m, 9, ISW_MC_NO_EXCLUDE, rewrite, &s, 42);
	assert_int_equal(w->tx[0].pkts[0]->nb_segs, 1);
	assert_false(RTE_MBUF_CLONED(w->tx[0].pkts[0]));
	assert_int_equal(rte_pktmbuf_pkt_len(w->tx[0].pkts[0]), ISW_PRE_COPY_MAX);
	assert_int_equal(rte_pktmbuf_mtod(w->tx[0].pkts[0], uint8_t *)[0], 0xa0 + 10);
	assert_int_equal(rte_pktmbuf_mtod(w->tx[0].pkts[0], uint8_t *)[300], (uint8_t)300);
	assert_int_equal(rte_mbuf_refcnt_read(m), 1);
}

/* A port that cannot send shared buffers (net_af_xdp) gets private copies, never references. */
static void test_unshareable_port_gets_copies(void **state)
{
	(void)state;
	isw_pre_set_port_caps(0, true, false);
	isw_pre_set_port_caps(1, true, true);
	isw_pre_set_port_caps(3, true, true);
	struct rte_mbuf *m = packet(100, 2);
	isw_mcast(w, m, ISW_MC_FLOOD, 2, NULL, NULL, 0);
	struct rte_mbuf *r0 = w->tx[0].pkts[0];
	assert_false(RTE_MBUF_CLONED(r0));
	assert_int_equal(rte_mbuf_refcnt_read(r0), 1);
	assert_memory_equal(rte_pktmbuf_mtod(r0, void *), rte_pktmbuf_mtod(m, void *), 100);
	assert_true(RTE_MBUF_CLONED(w->tx[1].pkts[0]));
	assert_int_equal(rte_mbuf_refcnt_read(m), 2); /* the port-1 reference and itself */
}

static void test_missing_and_empty_groups(void **state)
{
	(void)state;
	uint64_t before = w->stats.pipeline[0].drops[ISW_DROP_NO_GROUP];
	isw_mcast(w, packet(60, 0), 77, ISW_MC_NO_EXCLUDE, NULL, NULL, 0);
	assert_int_equal(w->stats.pipeline[0].drops[ISW_DROP_NO_GROUP], before + 1);

	assert_int_equal(isw_mc_create(78), 0);
	isw_mcast(w, packet(60, 0), 78, ISW_MC_NO_EXCLUDE, NULL, NULL, 0);
	assert_int_equal(w->stats.pipeline[0].drops[ISW_DROP_NO_GROUP], before + 2);

	/* A group whose only member is the ingress port has nobody to send to. */
	assert_int_equal(isw_mc_add(78, 1, 1), 0);
	isw_mcast(w, packet(60, 1), 78, 1, NULL, NULL, 0);
	assert_int_equal(w->stats.pipeline[0].drops[ISW_DROP_NO_GROUP], before + 3);
	assert_int_equal(w->stats.port[1].drops, 1);
	for (int p = 0; p < NPORTS; p++)
		assert_int_equal(w->tx[p].n, 0);
}

static void test_group_edits(void **state)
{
	(void)state;
	assert_int_equal(isw_mc_create(ISW_MC_FLOOD), -EINVAL);
	assert_int_equal(isw_mc_add(5, 0, 0), -ENOENT);
	assert_int_equal(isw_mc_create(5), 0);
	assert_int_equal(isw_mc_create(5), -EEXIST);
	assert_int_equal(isw_mc_add(5, 0, 1), 0);
	assert_int_equal(isw_mc_add(5, 0, 1), -EEXIST);
	assert_int_equal(isw_mc_add(5, 0, 2), 0); /* same port, another rid: two replicas */
	assert_int_equal(isw_mc_get(5)->n, 2);
	assert_int_equal(isw_mc_del(5, 0, 3), -ENOENT);
	assert_int_equal(isw_mc_del(5, 0, 1), 0);
	assert_int_equal(isw_mc_get(5)->n, 1);
	assert_int_equal(isw_mc_get(5)->m[0].rid, 2);
	struct isw_mc_member bad = {NPORTS, 0};
	assert_int_equal(isw_mc_set(6, &bad, 1), -ENODEV);
	assert_null(isw_mc_get(6));
	assert_int_equal(isw_mc_destroy(5), 0);
	assert_int_equal(isw_mc_destroy(5), -ENOENT);
}

int main(void)
{
	if (isw_test_eal("test-pre", NPORTS) < 0)
		return 1;
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_flood_excludes_ingress, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_rewrite_private_headers, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_unshareable_port_gets_copies, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_missing_and_empty_groups, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_group_edits, setup, teardown),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rte_eal_cleanup();
	return rc;
}
