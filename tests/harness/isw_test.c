/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared set-up of the tests and fuzz harnesses that run the real dataplane (isw_test.h). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "cmd.h"
#include "dp.h"
#include "eal.h"
#include "isw_test.h"
#include "pipeline.h"
#include "pre.h"
#include "worker.h"

int isw_test_eal(const char *name, uint16_t nb_ports)
{
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "isw-%s", name);
	char *eal[] = {(char *)name,  "--no-huge",           "-m", "256", "--no-pci",
	               "--no-shconf", "--log-level=*:error", "-l", "0",   "--file-prefix",
	               prefix};
	if (rte_eal_init(RTE_DIM(eal), eal) < 0) {
		fprintf(stderr, "%s: EAL init failed\n", name);
		return -1;
	}
	/* EAL's runtime directory goes at exit (after the test's rte_eal_cleanup()), as the
	 * daemon's does. */
	isw_eal_note_runtime_dir();
	atexit(isw_eal_leave);
	isw_dp.pool = rte_pktmbuf_pool_create(
	        "test", 1023, 0, RTE_ALIGN(sizeof(struct isw_meta), RTE_MBUF_PRIV_ALIGN),
	        RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (isw_dp.pool == NULL) {
		fprintf(stderr, "%s: no mbuf pool\n", name);
		return -1;
	}
	isw_dp.nb_ports = nb_ports;
	isw_dp.nb_workers = 1;
	return 0;
}

struct isw_worker *isw_test_worker(void)
{
	struct isw_worker *w = rte_zmalloc(NULL, sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (w == NULL)
		return NULL;
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++)
		w->txq[p] = 0;
	if (isw_dp.pconf == NULL && isw_port_conf_init() < 0) {
		rte_free(w);
		return NULL;
	}
	w->pconf = isw_port_conf_get();
	isw_dp.workers[0] = w;
	return w;
}

int isw_test_switch_up(const char *const *config, size_t n, struct isw_json *out)
{
	char err[256];
	/* Keep a configuration a worker already points to. */
	if ((isw_dp.pconf == NULL && isw_port_conf_init() < 0) || isw_mc_init(isw_dp.nb_ports) < 0)
		return -1;
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++)
		isw_pre_set_port_caps(p, true, true);
	if (isw_pipeline_init(err, sizeof(err)) < 0) {
		fprintf(stderr, "pipelines: %s\n", err);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (isw_cmd_exec(config[i], out) != 0) {
			fprintf(stderr, "'%s': %s\n", config[i], isw_json_str(out));
			return -1;
		}
	}
	return 0;
}

void isw_test_switch_down(void)
{
	isw_pipeline_fini();
	isw_mc_fini();
	free(isw_dp.pconf);
	isw_dp.pconf = NULL;
}

void isw_test_tx_clear(struct isw_worker *w)
{
	isw_shape_run(w, rte_get_tsc_cycles(), true);
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++) {
		for (unsigned i = 0; i < w->tx[p].n; i++)
			rte_pktmbuf_free(w->tx[p].pkts[i]);
		w->tx[p].n = 0;
	}
	isw_dead_flush(w);
}

struct rte_mbuf *isw_test_mbuf(const void *data, uint16_t len, uint16_t in_port)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(isw_dp.pool);
	if (m == NULL)
		return NULL;
	char *p = rte_pktmbuf_append(m, len);
	if (p == NULL && len != 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	if (len != 0)
		memcpy(p, data, len);
	isw_meta(m)->in_port = in_port;
	return m;
}

struct isw_worker *isw_test_fuzz_switch(const char *name, uint16_t nb_ports,
                                        const char *const *config, size_t n, struct isw_json *out)
{
	if (isw_test_eal(name, nb_ports) < 0)
		abort();
	struct isw_worker *w = isw_test_worker();
	if (w == NULL)
		abort();
	isw_json_init(out);
	if (isw_test_switch_up(config, n, out) < 0)
		abort();
	isw_pre_set_port_caps(1, false, true);
	isw_pre_set_port_caps(2, true, false);
	return w;
}

void isw_test_fuzz_packet(struct isw_worker *w, const uint8_t *data, size_t size,
                          isw_test_pkt_fn fast, isw_test_pkt_fn strict, uint32_t min_len)
{
	struct rte_mbuf *m =
	        isw_test_mbuf(data + 1, (uint16_t)(size - 1), data[0] % isw_dp.nb_ports);
	if (m == NULL)
		abort();
	int rc = data[0] & 0x80 ? strict(w, m) : fast(w, m);
	if (rc == ISW_PKT_NEXT) {
		if (rte_pktmbuf_data_len(m) != size - 1)
			abort();
		rte_pktmbuf_free(m);
	}
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++)
		for (unsigned i = 0; i < w->tx[p].n; i++)
			if (rte_pktmbuf_pkt_len(w->tx[p].pkts[i]) < min_len)
				abort();
	isw_test_tx_clear(w);
}

void isw_test_fuzz_seeds(void (*write)(const char *dir))
{
	const char *dir = getenv("FUZZ_SEEDS");
	if (dir == NULL)
		return;
	write(dir);
	exit(0);
}

void isw_test_fuzz_seed_file(const char *dir, const char *name, unsigned k, const void *data,
                             size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/seed-%s-%u", dir, name, k);
	FILE *fp = fopen(path, "wb");
	if (fp == NULL || fwrite(data, 1, len, fp) != len) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(1);
	}
	fclose(fp);
}
