/* SPDX-License-Identifier: BSD-3-Clause */
/* DPDK telemetry endpoints (/inswitch/...), so dpdk-telemetry.py can read the counters.
 * Callbacks run on the telemetry thread and only read. */

#include <stdio.h>

#include <rte_telemetry.h>

#include "dp.h"
#include "pipeline.h"
#include "port.h"
#include "server.h"

static int tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	struct isw_stats s;
	isw_stats_sum(&s);
	rte_tel_data_start_dict(d);
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++) {
		struct rte_tel_data *pd = rte_tel_data_alloc();
		if (pd == NULL)
			return -1;
		rte_tel_data_start_dict(pd);
		rte_tel_data_add_dict_string(pd, "name", isw_port_info(p)->name);
		rte_tel_data_add_dict_u64(pd, "rx_pkts", s.port[p].rx_pkts);
		rte_tel_data_add_dict_u64(pd, "rx_bytes", s.port[p].rx_bytes);
		rte_tel_data_add_dict_u64(pd, "tx_pkts", s.port[p].tx_pkts);
		rte_tel_data_add_dict_u64(pd, "tx_bytes", s.port[p].tx_bytes);
		rte_tel_data_add_dict_u64(pd, "drops", s.port[p].drops);
		char key[16];
		snprintf(key, sizeof(key), "%u", p);
		rte_tel_data_add_dict_container(d, key, pd, 0);
	}
	return 0;
}

/* Telemetry names allow only [A-Za-z0-9_/]: drop reasons are written with '_' for '-'. */
static void tel_name(char *dst, size_t len, const char *src)
{
	size_t i;
	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = src[i] == '-' ? '_' : src[i];
	dst[i] = '\0';
}

static int tel_drops(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	struct isw_stats s;
	isw_stats_sum(&s);
	rte_tel_data_start_dict(d);
	for (uint16_t id = 0; id < ISW_MAX_PIPELINES; id++) {
		struct rte_tel_data *pd = NULL;
		for (unsigned r = 0; r < ISW_DROP_MAX; r++) {
			if (s.pipeline[id].drops[r] == 0)
				continue;
			if (pd == NULL) {
				pd = rte_tel_data_alloc();
				if (pd == NULL)
					return -1;
				rte_tel_data_start_dict(pd);
			}
			char key[32];
			tel_name(key, sizeof(key), isw_drop_name(r));
			rte_tel_data_add_dict_u64(pd, key, s.pipeline[id].drops[r]);
		}
		if (pd != NULL)
			rte_tel_data_add_dict_container(d, isw_pipeline_name(id), pd, 0);
	}
	return 0;
}

static int tel_pipelines(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	struct isw_stats s;
	isw_stats_sum(&s);
	rte_tel_data_start_dict(d);
	for (struct isw_pipeline *p = isw_pipeline_next(NULL); p; p = isw_pipeline_next(p)) {
		if (!p->enabled)
			continue;
		struct rte_tel_data *pd = rte_tel_data_alloc();
		if (pd == NULL)
			return -1;
		rte_tel_data_start_dict(pd);
		rte_tel_data_add_dict_u64(pd, "pkts", s.pipeline[p->id].pkts);
		rte_tel_data_add_dict_u64(pd, "consumed", s.pipeline[p->id].consumed);
		rte_tel_data_add_dict_u64(pd, "handed_off", s.pipeline[p->id].handoffs);
		rte_tel_data_add_dict_container(d, p->name, pd, 0);
	}
	return 0;
}

int isw_telemetry_init(void)
{
	int rc = rte_telemetry_register_cmd("/inswitch/ports", tel_ports,
	                                    "Per-port packet, byte and drop counters");
	rc |= rte_telemetry_register_cmd(
	        "/inswitch/drops", tel_drops,
	        "Drops by pipeline and reason (non-zero only; '-' in reasons reads '_')");
	rc |= rte_telemetry_register_cmd("/inswitch/pipelines", tel_pipelines,
	                                 "Packets taken and consumed per enabled pipeline");
	return rc;
}
