/* SPDX-License-Identifier: BSD-3-Clause */
/* Control commands of the dataplane core: help, version, port, stats, mc, register, pipeline. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_version.h>

#include "cmd.h"
#include "dp.h"
#include "fault.h"
#include "pipeline.h"
#include "port.h"
#include "pre.h"
#include "worker.h"

/* ---- help, version, shutdown ---- */

static int cmd_help(struct isw_cmd_ctx *c, int argc, char **argv)
{
	char prefix[256] = "";
	size_t off = 0;
	for (int i = 0; i < argc && off < sizeof(prefix); i++)
		off += (size_t)snprintf(prefix + off, sizeof(prefix) - off, "%s%s", i ? " " : "",
		                        argv[i]);
	size_t plen = strlen(prefix);
	unsigned n = 0;
	isw_json_arr_open(c->out, "commands");
	for (const struct isw_cmd *cmd = isw_cmd_next(NULL); cmd; cmd = isw_cmd_next(cmd)) {
		if (plen && (strncmp(cmd->path, prefix, plen) != 0 ||
		             (cmd->path[plen] != ' ' && cmd->path[plen] != '\0')))
			continue;
		isw_json_obj_open(c->out, NULL);
		isw_json_strf(c->out, "command", "%s%s%s", cmd->path, cmd->usage[0] ? " " : "",
		              cmd->usage);
		isw_json_str_kv(c->out, "help", cmd->help);
		isw_json_obj_close(c->out);
		n++;
	}
	isw_json_arr_close(c->out);
	if (n == 0)
		return isw_cmd_err(c, ENOENT, "no command starts with '%s'", prefix);
	return 0;
}
ISW_CMD_REGISTER(help, "help", "[WORDS...]", "list commands (those starting with WORDS)", cmd_help)

static int cmd_version(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	isw_json_str_kv(c->out, "version", ISW_VERSION);
	isw_json_str_kv(c->out, "dpdk", rte_version());
	isw_json_u64(c->out, "workers", isw_dp.nb_workers);
	isw_json_u64(c->out, "ports", isw_dp.nb_ports);
	isw_json_dbl(c->out, "startup_s", isw_dp.startup.total_s);
	isw_json_obj_open(c->out, "startup");
	isw_json_dbl(c->out, "exec_s", isw_dp.startup.exec_s);
	isw_json_dbl(c->out, "eal_s", isw_dp.startup.eal_s);
	isw_json_dbl(c->out, "ports_s", isw_dp.startup.ports_s);
	isw_json_dbl(c->out, "config_s", isw_dp.startup.config_s);
	isw_json_obj_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(version, "version", "",
                 "show the inswitch and DPDK versions, and how long start-up took", cmd_version)

static int cmd_shutdown(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	isw_dp.quit = true;
	return 0;
}
ISW_CMD_REGISTER(shutdown, "shutdown", "", "stop the switch (final counters are printed)",
                 cmd_shutdown)

/* ---- port ---- */

static void port_brief(struct isw_json *j, uint16_t p)
{
	const struct isw_port_info *pi = isw_port_info(p);
	char mac[18];
	struct rte_eth_link link;
	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(p, &link);
	isw_json_u64(j, "port", p);
	isw_json_str_kv(j, "name", pi->name);
	isw_json_str_kv(j, "driver", pi->driver);
	isw_json_str_kv(j, "mac", isw_fmt_mac(pi->mac, mac));
	isw_json_str_kv(j, "link", link.link_status ? "up" : "down");
	isw_json_u64(j, "speed_mbps",
	             link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN ? 0 : link.link_speed);
	isw_json_u64(j, "rxq", pi->nb_rxq);
	isw_json_u64(j, "txq", pi->nb_txq);
	isw_json_u64(j, "mtu", pi->mtu);
}

static int cmd_port_list(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	isw_json_arr_open(c->out, "ports");
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++) {
		isw_json_obj_open(c->out, NULL);
		port_brief(c->out, p);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(port_list, "port list", "", "list ports", cmd_port_list)

static void fault_json(struct isw_json *j, const char *key, const struct isw_fault_cfg *f,
                       const struct isw_fault_stats *st)
{
	isw_json_obj_open(j, key);
	isw_json_bool(j, "on", f->on);
	isw_json_dbl(j, "drop_pct", isw_fault_pct(f->drop));
	isw_json_dbl(j, "dup_pct", isw_fault_pct(f->dup));
	isw_json_dbl(j, "reorder_pct", isw_fault_pct(f->reorder));
	isw_json_u64(j, "depth", f->depth);
	isw_json_u64(j, "dropped", st->dropped);
	isw_json_u64(j, "duplicated", st->duplicated);
	isw_json_u64(j, "reordered", st->reordered);
	isw_json_obj_close(j);
}

static int cmd_port_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint16_t p;
	if (isw_arg_count(c, argc, 1, 1) < 0 || isw_arg_port(c, argv[0], &p) < 0)
		return -EINVAL;
	struct isw_stats s;
	isw_stats_sum(&s);
	port_brief(c->out, p);
	const struct isw_port_stats *ps = &s.port[p];
	isw_json_u64(c->out, "rx_pkts", ps->rx_pkts);
	isw_json_u64(c->out, "rx_bytes", ps->rx_bytes);
	isw_json_u64(c->out, "tx_pkts", ps->tx_pkts);
	isw_json_u64(c->out, "tx_bytes", ps->tx_bytes);
	isw_json_u64(c->out, "drops", ps->drops);
	struct rte_eth_stats es;
	if (rte_eth_stats_get(p, &es) == 0) {
		isw_json_u64(c->out, "nic_rx_missed", es.imissed);
		isw_json_u64(c->out, "nic_rx_errors", es.ierrors);
		isw_json_u64(c->out, "nic_rx_nombuf", es.rx_nombuf);
		isw_json_u64(c->out, "nic_tx_errors", es.oerrors);
	}
	const struct isw_port_conf *pc = isw_port_conf_get();
	isw_json_obj_open(c->out, "fault");
	isw_json_u64(c->out, "seed", pc->seed);
	fault_json(c->out, "rx", &pc->fault[p][ISW_DIR_RX], &s.fault[p][ISW_DIR_RX]);
	fault_json(c->out, "tx", &pc->fault[p][ISW_DIR_TX], &s.fault[p][ISW_DIR_TX]);
	isw_json_obj_close(c->out);
	const struct isw_shape_cfg *sc = &pc->shape[p];
	uint64_t depth = 0, max_depth = 0;
	for (unsigned i = 0; i < isw_dp.nb_workers; i++) {
		/* Racy gauges: a worker may be changing them; either value is one it had. */
		const struct isw_shaper *sh = &isw_dp.workers[i]->shape[p];
		depth += __atomic_load_n(&sh->n, __ATOMIC_RELAXED);
		max_depth += __atomic_load_n(&sh->max_n, __ATOMIC_RELAXED);
	}
	isw_json_obj_open(c->out, "egress_queue");
	isw_json_bool(c->out, "on", sc->on);
	isw_json_u64(c->out, "rate_bps", sc->rate_bps);
	isw_json_u64(c->out, "queue", sc->queue);
	isw_json_u64(c->out, "ecn_threshold", sc->ecn);
	isw_json_u64(c->out, "depth", depth);
	isw_json_u64(c->out, "max_depth", max_depth);
	isw_json_u64(c->out, "ecn_marked", ps->ecn_marked);
	isw_json_u64(c->out, "ecn_unmarkable", ps->ecn_unmarkable);
	isw_json_u64(c->out, "queue_drops", ps->queue_drops);
	isw_json_obj_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(port_show, "port show", "PORT", "show a port's settings and counters",
                 cmd_port_show)

struct shape_edit {
	uint16_t port;
	struct isw_shape_cfg cfg;
};

static int shape_apply(struct isw_port_conf *pc, void *arg)
{
	const struct shape_edit *e = arg;
	pc->shape[e->port] = e->cfg;
	return 0;
}

/* "100m", "2.5g", "64000": bits per second. */
static int arg_rate(struct isw_cmd_ctx *c, const char *s, uint64_t *bps)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	double mul = 1;
	if (*end == 'k' || *end == 'K')
		mul = 1e3, end++;
	else if (*end == 'm' || *end == 'M')
		mul = 1e6, end++;
	else if (*end == 'g' || *end == 'G')
		mul = 1e9, end++;
	if (errno != 0 || end == s || *end != '\0' || !(v > 0) || v * mul < 8000 || v * mul > 4e11)
		return isw_cmd_err(c, EINVAL,
		                   "rate: '%s' is not a rate between 8k and 400g bit/s (e.g. 100m)",
		                   s);
	*bps = (uint64_t)(v * mul);
	return 0;
}

static int cmd_port_rate(struct isw_cmd_ctx *c, int argc, char **argv)
{
	struct shape_edit e = {.cfg = {.on = true, .queue = 1024}};
	if (isw_arg_count(c, argc, 2, 6) < 0 || isw_arg_port(c, argv[0], &e.port) < 0)
		return -EINVAL;
	if (argc == 2 && strcmp(argv[1], "off") == 0) {
		memset(&e.cfg, 0, sizeof(e.cfg));
		return isw_port_conf_update(shape_apply, &e);
	}
	struct isw_kv kv[] = {{"queue", NULL}, {"ecn", NULL}};
	if (arg_rate(c, argv[1], &e.cfg.rate_bps) < 0 ||
	    isw_arg_kv(c, argc - 2, argv + 2, kv, RTE_DIM(kv)) < 0 ||
	    (kv[0].val &&
	     isw_arg_u32(c, kv[0].val, "queue", 1, ISW_SHAPE_QMAX, &e.cfg.queue) < 0) ||
	    (kv[1].val && isw_arg_u32(c, kv[1].val, "ecn", 0, ISW_SHAPE_QMAX, &e.cfg.ecn) < 0))
		return -EINVAL;
	return isw_port_conf_update(shape_apply, &e);
}
ISW_CMD_REGISTER(port_rate, "port rate", "PORT off | PORT RATE [queue N] [ecn N]",
                 "limit a port's egress to RATE bit/s through a queue of N packets (default "
                 "1024), marking ECN at depth N",
                 cmd_port_rate)

struct fault_edit {
	uint16_t port;
	unsigned dir;
	struct isw_fault_cfg cfg;
};

static int fault_apply(struct isw_port_conf *pc, void *arg)
{
	const struct fault_edit *e = arg;
	pc->fault[e->port][e->dir] = e->cfg;
	return 0;
}

static int cmd_port_fault(struct isw_cmd_ctx *c, int argc, char **argv)
{
	struct fault_edit e;
	memset(&e, 0, sizeof(e));
	if (isw_arg_count(c, argc, 3, 10) < 0 || isw_arg_port(c, argv[0], &e.port) < 0)
		return -EINVAL;
	if (strcmp(argv[1], "rx") == 0)
		e.dir = ISW_DIR_RX;
	else if (strcmp(argv[1], "tx") == 0)
		e.dir = ISW_DIR_TX;
	else
		return isw_cmd_err(c, EINVAL, "direction: '%s' is not rx or tx", argv[1]);

	if (argc == 3 && strcmp(argv[2], "off") == 0)
		return isw_port_conf_update(fault_apply, &e);

	double drop = 0, dup = 0, reorder = 0;
	uint32_t depth = 1;
	struct isw_kv kv[] = {{"drop", NULL}, {"dup", NULL}, {"reorder", NULL}, {"depth", NULL}};
	if (isw_arg_kv(c, argc - 2, argv + 2, kv, RTE_DIM(kv)) < 0 ||
	    (kv[0].val && isw_arg_pct(c, kv[0].val, "drop", &drop) < 0) ||
	    (kv[1].val && isw_arg_pct(c, kv[1].val, "dup", &dup) < 0) ||
	    (kv[2].val && isw_arg_pct(c, kv[2].val, "reorder", &reorder) < 0) ||
	    (kv[3].val && isw_arg_u32(c, kv[3].val, "depth", 1, 64, &depth) < 0))
		return -EINVAL;
	e.cfg.drop = isw_fault_prob(drop);
	e.cfg.dup = isw_fault_prob(dup);
	e.cfg.reorder = isw_fault_prob(reorder);
	e.cfg.depth = (uint16_t)depth;
	e.cfg.on = e.cfg.drop || e.cfg.dup || e.cfg.reorder;
	return isw_port_conf_update(fault_apply, &e);
}
ISW_CMD_REGISTER(port_fault, "port fault",
                 "PORT rx|tx [drop PCT] [dup PCT] [reorder PCT] "
                 "[depth N] | PORT rx|tx off",
                 "inject loss, duplication and reordering on a port's receive or transmit side",
                 cmd_port_fault)

static int seed_apply(struct isw_port_conf *pc, void *arg)
{
	pc->seed = *(uint64_t *)arg;
	return 0;
}

static int cmd_port_fault_seed(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint64_t seed;
	if (isw_arg_count(c, argc, 1, 1) < 0 || isw_arg_u64(c, argv[0], "seed", &seed) < 0)
		return -EINVAL;
	return isw_port_conf_update(seed_apply, &seed);
}
ISW_CMD_REGISTER(port_fault_seed, "port fault seed", "N",
                 "reseed every fault generator (runs with one worker repeat exactly)",
                 cmd_port_fault_seed)

/* ---- stats ---- */

/* part / whole in per cent, to two decimals (a share, not a measurement to six digits). */
static double pct2(uint64_t part, uint64_t whole)
{
	if (part > whole)
		part = whole;
	return whole ? (double)(uint64_t)(10000.0 * (double)part / (double)whole) / 100 : 0.0;
}

static void stats_json(struct isw_json *j)
{
	struct isw_stats s;
	isw_stats_sum(&s);
	isw_json_dbl(j, "elapsed_s", isw_stats_elapsed());

	isw_json_arr_open(j, "ports");
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++) {
		const struct isw_port_stats *ps = &s.port[p];
		isw_json_obj_open(j, NULL);
		isw_json_u64(j, "port", p);
		isw_json_str_kv(j, "name", isw_port_info(p)->name);
		isw_json_u64(j, "rx_pkts", ps->rx_pkts);
		isw_json_u64(j, "rx_bytes", ps->rx_bytes);
		isw_json_u64(j, "tx_pkts", ps->tx_pkts);
		isw_json_u64(j, "tx_bytes", ps->tx_bytes);
		isw_json_u64(j, "drops", ps->drops);
		isw_json_u64(j, "fault_rx",
		             s.fault[p][0].dropped + s.fault[p][0].duplicated +
		                     s.fault[p][0].reordered);
		isw_json_u64(j, "fault_tx",
		             s.fault[p][1].dropped + s.fault[p][1].duplicated +
		                     s.fault[p][1].reordered);
		isw_json_obj_close(j);
	}
	isw_json_arr_close(j);

	isw_json_arr_open(j, "pipelines");
	for (uint16_t id = 0; id < ISW_MAX_PIPELINES; id++) {
		const struct isw_pipeline *p = isw_pipeline_by_id(id);
		if (id != 0 && (p == NULL || !p->enabled))
			continue;
		const struct isw_pipeline_stats *st = &s.pipeline[id];
		uint64_t drops = 0;
		for (unsigned r = 0; r < ISW_DROP_MAX; r++)
			drops += st->drops[r];
		isw_json_obj_open(j, NULL);
		isw_json_str_kv(j, "pipeline", isw_pipeline_name(id));
		isw_json_u64(j, "pkts", st->pkts);
		isw_json_u64(j, "consumed", st->consumed);
		isw_json_u64(j, "handed_off", st->handoffs);
		isw_json_u64(j, "drops", drops);
		isw_json_obj_close(j);
	}
	isw_json_arr_close(j);

	isw_json_arr_open(j, "drops");
	for (uint16_t id = 0; id < ISW_MAX_PIPELINES; id++) {
		for (unsigned r = 0; r < ISW_DROP_MAX; r++) {
			if (s.pipeline[id].drops[r] == 0)
				continue;
			isw_json_obj_open(j, NULL);
			isw_json_str_kv(j, "pipeline", isw_pipeline_name(id));
			isw_json_str_kv(j, "reason", isw_drop_name(r));
			isw_json_u64(j, "count", s.pipeline[id].drops[r]);
			isw_json_str_kv(j, "meaning", isw_drop_descr(r));
			isw_json_obj_close(j);
		}
	}
	isw_json_arr_close(j);

	isw_json_arr_open(j, "workers");
	for (unsigned i = 0; i < isw_dp.nb_workers; i++) {
		const struct isw_stats *ws = &isw_dp.workers[i]->stats;
		const struct isw_worker_base *b = &isw_dp.worker_base[i];
		uint64_t polls = ws->polls - b->polls, busy = ws->busy_polls - b->busy_polls;
		isw_json_obj_open(j, NULL);
		isw_json_u64(j, "worker", i);
		isw_json_u64(j, "lcore", isw_dp.workers[i]->lcore);
		isw_json_u64(j, "rxqs", isw_dp.workers[i]->nb_rxq);
		isw_json_u64(j, "polls", polls);
		isw_json_dbl(j, "busy_pct", pct2(busy, polls));
		/* Where the time went, in per cent of the loop's: the driver's receive and
		 * transmit calls and the pipelines' work in iterations that moved packets, and
		 * idle polling (VPP's "show runtime" idea, per worker). */
		uint64_t loop = ws->tsc_loop - b->tsc_loop, tbusy = ws->tsc_busy - b->tsc_busy;
		uint64_t trx = ws->tsc_rx - b->tsc_rx, ttx = ws->tsc_tx - b->tsc_tx;
		isw_json_dbl(j, "rx_pct", pct2(trx, loop));
		/* The worker updates these one after another while we read: no share below 0. */
		isw_json_dbl(j, "pipeline_pct",
		             pct2(tbusy > trx + ttx ? tbusy - trx - ttx : 0, loop));
		isw_json_dbl(j, "tx_pct", pct2(ttx, loop));
		isw_json_dbl(j, "idle_pct", pct2(loop > tbusy ? loop - tbusy : 0, loop));
		/* And whether the thread had its CPU: time it ran, and time it was runnable but
		 * waited while the kernel ran something else on that CPU (a shared core). */
		uint64_t run_ns, wait_ns;
		if (isw_worker_sched(isw_dp.workers[i], &run_ns, &wait_ns) == 0) {
			uint64_t el = (uint64_t)(isw_stats_elapsed() * 1e9);
			isw_json_dbl(j, "cpu_pct", pct2(run_ns - b->run_ns, el));
			isw_json_dbl(j, "waited_pct", pct2(wait_ns - b->wait_ns, el));
		}
		isw_json_u64(j, "handoff_out", ws->handoff_out - b->handoff_out);
		isw_json_u64(j, "handoff_in", ws->handoff_in - b->handoff_in);
		isw_json_u64(j, "backpressure", ws->backpressure - b->backpressure);
		/* --idle-sleep-us: naps taken, and the share of the time spent in them */
		isw_json_u64(j, "naps", ws->naps - b->naps);
		isw_json_dbl(j, "napped_pct",
		             pct2(ws->tsc_nap - b->tsc_nap,
		                  (uint64_t)(isw_stats_elapsed() * (double)rte_get_tsc_hz())));
		isw_json_obj_close(j);
	}
	isw_json_arr_close(j);
	isw_json_u64(j, "replicas", s.replicas);
	/* Packet buffers: a pool that runs dry stalls receive on every port (AF_XDP drops in
	 * the kernel then, counted as nic_rx_missed), so its level is worth showing. */
	const struct rte_mempool *mp = isw_dp.pool;
	if (mp != NULL) {
		unsigned avail = rte_mempool_avail_count(mp); /* one read: a racy gauge */
		isw_json_obj_open(j, "mbufs");
		isw_json_u64(j, "total", mp->size);
		isw_json_u64(j, "available", avail);
		isw_json_u64(j, "in_use", mp->size - RTE_MIN(avail, mp->size));
		isw_json_u64(j, "chunks", mp->nb_mem_chunks);
		isw_json_obj_close(j);
	}
	isw_json_u64(j, "strict_multi_access", s.strict_multi_access);
	isw_json_u64(j, "strict_recirc_over", s.strict_recirc_over);
}

static int cmd_stats_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	stats_json(c->out);
	return 0;
}
ISW_CMD_REGISTER(stats_show, "stats show", "",
                 "show counters: ports, pipelines, drops by reason, workers (totals since reset)",
                 cmd_stats_show)

static int cmd_stats_reset(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	isw_stats_reset();
	return 0;
}
ISW_CMD_REGISTER(stats_reset, "stats reset", "", "zero the counters shown by stats show",
                 cmd_stats_reset)

/* The final report printed at shutdown uses the same JSON. */
void isw_stats_json(struct isw_json *j)
{
	stats_json(j);
}

/* ---- mc ---- */

static int arg_group(struct isw_cmd_ctx *c, const char *s, uint16_t *g)
{
	uint32_t v;
	int rc = isw_arg_u32(c, s, "group", 1, ISW_MC_GROUP_MAX, &v);
	*g = (uint16_t)v;
	return rc;
}

/* A group the user may edit: pipelines own the reserved range. */
static int arg_user_group(struct isw_cmd_ctx *c, const char *s, uint16_t *g)
{
	if (arg_group(c, s, g) < 0)
		return -EINVAL;
	if (*g >= ISW_MC_RESERVED)
		return isw_cmd_err(
		        c, EPERM,
		        "groups %u-%u belong to pipelines (syncagtr sessions and atp apps "
		        "own theirs; mc group show lists them)",
		        ISW_MC_RESERVED, ISW_MC_GROUP_MAX);
	return 0;
}

static int mc_result(struct isw_cmd_ctx *c, int rc, uint16_t g)
{
	switch (rc) {
	case 0:
		return 0;
	case -EEXIST:
		return isw_cmd_err(c, EEXIST, "group %u: already exists (or member already in it)",
		                   g);
	case -ENOENT:
		return isw_cmd_err(c, ENOENT, "group %u: no such group or member", g);
	case -E2BIG:
		return isw_cmd_err(c, E2BIG, "group %u: at most %d members", g, ISW_MC_MEMBERS_MAX);
	default:
		return isw_cmd_err(c, -rc, "group %u: %s", g, strerror(-rc));
	}
}

static int cmd_mc_create(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint16_t g;
	if (isw_arg_count(c, argc, 1, 1) < 0 || arg_user_group(c, argv[0], &g) < 0)
		return -EINVAL;
	return mc_result(c, isw_mc_create(g), g);
}
ISW_CMD_REGISTER(mc_create, "mc group create", "GROUP", "create an empty multicast group",
                 cmd_mc_create)

static int cmd_mc_destroy(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint16_t g;
	if (isw_arg_count(c, argc, 1, 1) < 0 || arg_user_group(c, argv[0], &g) < 0)
		return -EINVAL;
	return mc_result(c, isw_mc_destroy(g), g);
}
ISW_CMD_REGISTER(mc_destroy, "mc group destroy", "GROUP", "delete a multicast group",
                 cmd_mc_destroy)

static int mc_member_args(struct isw_cmd_ctx *c, int argc, char **argv, uint16_t *g, uint16_t *port,
                          uint16_t *rid)
{
	uint32_t v = 0;
	if (isw_arg_count(c, argc, 2, 3) < 0 || arg_user_group(c, argv[0], g) < 0 ||
	    isw_arg_port(c, argv[1], port) < 0)
		return -EINVAL;
	if (argc == 3 && isw_arg_u32(c, argv[2], "rid", 0, UINT16_MAX, &v) < 0)
		return -EINVAL;
	*rid = argc == 3 ? (uint16_t)v : *port;
	return 0;
}

static int cmd_mc_add(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint16_t g, port, rid;
	if (mc_member_args(c, argc, argv, &g, &port, &rid) < 0)
		return -EINVAL;
	return mc_result(c, isw_mc_add(g, port, rid), g);
}
ISW_CMD_REGISTER(mc_add, "mc group add", "GROUP PORT [RID]",
                 "add a replica (port, replication id; RID defaults to PORT)", cmd_mc_add)

static int cmd_mc_del(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint16_t g, port, rid;
	if (mc_member_args(c, argc, argv, &g, &port, &rid) < 0)
		return -EINVAL;
	return mc_result(c, isw_mc_del(g, port, rid), g);
}
ISW_CMD_REGISTER(mc_del, "mc group del", "GROUP PORT [RID]", "remove a replica", cmd_mc_del)

static void group_json(struct isw_json *j, const struct isw_mc_group *g)
{
	isw_json_obj_open(j, NULL);
	isw_json_u64(j, "group", g->id);
	isw_json_arr_open(j, "members");
	for (unsigned i = 0; i < g->n; i++)
		isw_json_strf(j, NULL, "%u/%u", g->m[i].port, g->m[i].rid);
	isw_json_arr_close(j);
	isw_json_obj_close(j);
}

static int cmd_mc_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint16_t g = 0;
	if (isw_arg_count(c, argc, 0, 1) < 0 || (argc == 1 && arg_group(c, argv[0], &g) < 0))
		return -EINVAL;
	if (argc == 1 && isw_mc_get(g) == NULL)
		return isw_cmd_err(c, ENOENT, "group %u: no such group", g);
	isw_json_arr_open(c->out, "groups");
	for (uint32_t id = 1; id <= ISW_MC_GROUP_MAX; id++) {
		const struct isw_mc_group *grp = isw_mc_get((uint16_t)id);
		if (grp != NULL && (argc == 0 || id == g))
			group_json(c->out, grp);
	}
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(mc_show, "mc group show", "[GROUP]", "show multicast groups; members as port/rid",
                 cmd_mc_show)

/* ---- register ---- */

static int arg_reg(struct isw_cmd_ctx *c, const char *s, struct isw_reg **r)
{
	*r = isw_reg_find(s);
	if (*r == NULL)
		return isw_cmd_err(c, ENOENT, "no register array '%s' (see 'register list')", s);
	return 0;
}

static int cmd_reg_list(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	isw_json_arr_open(c->out, "registers");
	for (unsigned i = 0; i < isw_reg_count(); i++) {
		const struct isw_reg *r = isw_reg_at(i);
		isw_json_obj_open(c->out, NULL);
		isw_json_str_kv(c->out, "name", r->name);
		isw_json_str_kv(c->out, "kind", isw_reg_kind_name(r->kind));
		isw_json_u64(c->out, "size", r->size);
		if (r->kind == ISW_REG_VEC)
			isw_json_u64(c->out, "lanes", r->lanes);
		isw_json_u64(c->out, "stage", r->stage);
		isw_json_u64(c->out, "bytes", isw_reg_bytes(r));
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(reg_list, "register list", "", "list register arrays", cmd_reg_list)

#define REG_READ_MAX 65536

static int cmd_reg_read(struct isw_cmd_ctx *c, int argc, char **argv)
{
	struct isw_reg *r;
	uint32_t idx, count = 1;
	if (isw_arg_count(c, argc, 2, 3) < 0 || arg_reg(c, argv[0], &r) < 0)
		return -EINVAL;
	if (isw_arg_u32(c, argv[1], "index", 0, r->size - 1, &idx) < 0)
		return -EINVAL;
	if (argc == 3 && isw_arg_u32(c, argv[2], "count", 1, REG_READ_MAX, &count) < 0)
		return -EINVAL;
	if (count > r->size - idx)
		return isw_cmd_err(c, ERANGE, "%s has %u cells; %u from %u goes past the end",
		                   r->name, r->size, count, idx);
	if ((uint64_t)count * r->lanes > 2u * REG_READ_MAX)
		return isw_cmd_err(c, E2BIG,
		                   "%s has %u lanes per cell: read at most %u cells at once",
		                   r->name, r->lanes, 2u * REG_READ_MAX / r->lanes);
	/* Parking the workers makes a range read one consistent snapshot. */
	if (isw_dp_pause() < 0)
		return isw_cmd_err(c, EAGAIN, "workers did not pause; try again");
	isw_json_str_kv(c->out, "name", r->name);
	isw_json_u64(c->out, "index", idx);
	isw_json_arr_open(c->out, "values");
	for (uint32_t i = idx; i < idx + count; i++) {
		if (r->kind == ISW_REG_PAIR) {
			isw_json_obj_open(c->out, NULL);
			isw_json_u64(c->out, "index", i);
			isw_json_u64(c->out, "lo", isw_reg_get(r, i, 0));
			isw_json_u64(c->out, "hi", isw_reg_get(r, i, 1));
			isw_json_obj_close(c->out);
		} else if (r->kind == ISW_REG_VEC) {
			isw_json_obj_open(c->out, NULL);
			isw_json_u64(c->out, "index", i);
			isw_json_arr_open(c->out, "lanes");
			for (unsigned l = 0; l < r->lanes; l++)
				isw_json_u64(c->out, NULL, isw_reg_get(r, i, l));
			isw_json_arr_close(c->out);
			isw_json_obj_close(c->out);
		} else {
			isw_json_u64(c->out, NULL, isw_reg_get(r, i, 0));
		}
	}
	isw_json_arr_close(c->out);
	isw_dp_resume();
	return 0;
}
ISW_CMD_REGISTER(reg_read, "register read", "NAME INDEX [COUNT]",
                 "read COUNT cells from INDEX (a consistent snapshot)", cmd_reg_read)

static int cmd_reg_write(struct isw_cmd_ctx *c, int argc, char **argv)
{
	struct isw_reg *r;
	uint32_t idx, lo, hi = 0;
	if (isw_arg_count(c, argc, 3, 4) < 0 || arg_reg(c, argv[0], &r) < 0)
		return -EINVAL;
	if (isw_arg_u32(c, argv[1], "index", 0, r->size - 1, &idx) < 0 ||
	    isw_arg_u32(c, argv[2], "value", 0, UINT32_MAX, &lo) < 0)
		return -EINVAL;
	if (r->kind == ISW_REG_PAIR && argc != 4)
		return isw_cmd_err(c, EINVAL, "%s holds pairs: give LO and HI", r->name);
	if (r->kind == ISW_REG_VEC && argc != 4)
		return isw_cmd_err(c, EINVAL, "%s is a vector: give LANE and VALUE", r->name);
	if (r->kind == ISW_REG_U32 && argc != 3)
		return isw_cmd_err(c, EINVAL, "%s holds single cells: give one VALUE", r->name);
	if (r->kind == ISW_REG_VEC && lo >= r->lanes)
		return isw_cmd_err(c, ERANGE, "lane %u is out of range: %s has lanes 0..%u", lo,
		                   r->name, r->lanes - 1u);
	if (argc == 4 && isw_arg_u32(c, argv[3], "value", 0, UINT32_MAX, &hi) < 0)
		return -EINVAL;
	if (isw_dp_pause() < 0)
		return isw_cmd_err(c, EAGAIN, "workers did not pause; nothing written");
	if (r->kind == ISW_REG_VEC) {
		isw_reg_set(r, idx, lo, hi);
	} else {
		isw_reg_set(r, idx, 0, lo);
		if (r->kind == ISW_REG_PAIR)
			isw_reg_set(r, idx, 1, hi);
	}
	isw_dp_resume();
	return 0;
}
ISW_CMD_REGISTER(reg_write, "register write",
                 "NAME INDEX VALUE | NAME INDEX LO HI | NAME INDEX LANE VALUE",
                 "write one cell (workers are paused for it)", cmd_reg_write)

static int cmd_reg_reset(struct isw_cmd_ctx *c, int argc, char **argv)
{
	struct isw_reg *r;
	if (isw_arg_count(c, argc, 1, 1) < 0 || arg_reg(c, argv[0], &r) < 0)
		return -EINVAL;
	if (isw_dp_pause() < 0)
		return isw_cmd_err(c, EAGAIN, "workers did not pause; nothing reset");
	isw_reg_clear(r);
	isw_dp_resume();
	return 0;
}
ISW_CMD_REGISTER(reg_reset, "register reset", "NAME", "zero every cell of an array", cmd_reg_reset)

/* ---- pipeline ---- */

static int cmd_pipeline_list(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	isw_json_str_kv(c->out, "profile", isw_profile_current()->name);
	isw_json_bool(c->out, "strict", isw_pipeline_strict());
	isw_json_arr_open(c->out, "pipelines");
	for (struct isw_pipeline *p = isw_pipeline_next(NULL); p; p = isw_pipeline_next(p)) {
		isw_json_obj_open(c->out, NULL);
		isw_json_str_kv(c->out, "name", p->name);
		isw_json_bool(c->out, "enabled", p->enabled);
		isw_json_str_kv(c->out, "help", p->help);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(pipeline_list, "pipeline list", "",
                 "list pipelines in chain order, with the resource profile", cmd_pipeline_list)

static int cmd_pipeline_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (isw_arg_count(c, argc, 1, 1) < 0)
		return -EINVAL;
	const struct isw_pipeline *p = isw_pipeline_find(argv[0]);
	if (p == NULL)
		return isw_cmd_err(c, ENOENT, "unknown pipeline '%s' (see 'pipeline list')",
		                   argv[0]);
	const struct isw_profile *prof = isw_profile_current();
	isw_json_str_kv(c->out, "name", p->name);
	isw_json_bool(c->out, "enabled", p->enabled);
	isw_json_str_kv(c->out, "profile", prof->name);
	/* Fit alone, and together with every other enabled pipeline (what enabling checks). */
	struct isw_asic_use use, all;
	memset(&use, 0, sizeof(use));
	memset(&all, 0, sizeof(all));
	char why[200] = "";
	if (p->asic != NULL && isw_asic_account(p->asic, &use, why, sizeof(why)) < 0)
		return isw_cmd_err(c, EINVAL, "%s", why);
	for (struct isw_pipeline *o = isw_pipeline_next(NULL); o; o = isw_pipeline_next(o))
		if ((o->enabled || o == p) && o->asic != NULL &&
		    isw_asic_account(o->asic, &all, why, sizeof(why)) < 0)
			return isw_cmd_err(c, EINVAL, "%s", why);
	isw_json_bool(c->out, "fits", isw_asic_fits(&use, prof, why, sizeof(why)) == 0);
	if (why[0])
		isw_json_str_kv(c->out, "over", why);
	why[0] = '\0';
	isw_json_bool(c->out, "fits_with_enabled",
	              isw_asic_fits(&all, prof, why, sizeof(why)) == 0);
	if (why[0])
		isw_json_str_kv(c->out, "over_with_enabled", why);
	isw_json_arr_open(c->out, "stages");
	for (unsigned s = 0; s < use.stages; s++) {
		isw_json_obj_open(c->out, NULL);
		isw_json_u64(c->out, "stage", s);
		isw_json_strf(c->out, "salus", "%u/%u", use.stage[s].salus, prof->salus_per_stage);
		isw_json_strf(c->out, "tables", "%u/%u", use.stage[s].tables,
		              prof->tables_per_stage);
		isw_json_strf(c->out, "sram_kib", "%llu/%llu",
		              (unsigned long long)(use.stage[s].sram / 1024),
		              (unsigned long long)(prof->sram_per_stage / 1024));
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	isw_json_arr_open(c->out, "registers");
	for (unsigned i = 0; p->asic && i < p->asic->nb_regs; i++) {
		const struct isw_reg_decl *r = &p->asic->regs[i];
		isw_json_obj_open(c->out, NULL);
		isw_json_strf(c->out, "name", "%s.%s", p->name, r->name);
		isw_json_u64(c->out, "stage", r->stage);
		isw_json_str_kv(c->out, "kind", isw_reg_kind_name(r->kind));
		isw_json_u64(c->out, "size", r->size);
		if (r->kind == ISW_REG_VEC)
			isw_json_strf(c->out, "lanes", "%u (%u per stage)", r->lanes,
			              r->lanes_per_stage);
		isw_json_u64(c->out, "sram_kib", isw_reg_decl_bytes(r) / 1024);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	isw_json_arr_open(c->out, "tables");
	for (unsigned i = 0; p->asic && i < p->asic->nb_tables; i++) {
		const struct isw_table_decl *t = &p->asic->tables[i];
		isw_json_obj_open(c->out, NULL);
		isw_json_strf(c->out, "name", "%s.%s", p->name, t->name);
		isw_json_u64(c->out, "stage", t->stage);
		isw_json_u64(c->out, "entries", t->entries);
		isw_json_u64(c->out, "sram_kib", isw_table_decl_bytes(t) / 1024);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(pipeline_show, "pipeline show", "NAME",
                 "show a pipeline's stages, registers and tables against the profile",
                 cmd_pipeline_show)

static int cmd_pipeline_enable(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (isw_arg_count(c, argc, 1, 1) < 0)
		return -EINVAL;
	return isw_pipeline_enable(argv[0], c->err, sizeof(c->err));
}
ISW_CMD_REGISTER(pipeline_enable, "pipeline enable", "NAME",
                 "enable a pipeline (checked against the resource profile)", cmd_pipeline_enable)

static int cmd_pipeline_disable(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (isw_arg_count(c, argc, 1, 1) < 0)
		return -EINVAL;
	return isw_pipeline_disable(argv[0], c->err, sizeof(c->err));
}
ISW_CMD_REGISTER(pipeline_disable, "pipeline disable", "NAME",
                 "disable a pipeline and free its registers", cmd_pipeline_disable)

static int cmd_pipeline_profile(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (isw_arg_count(c, argc, 0, 1) < 0)
		return -EINVAL;
	if (argc == 1) {
		const struct isw_profile *want = isw_profile_find(argv[0]);
		if (want == NULL)
			return isw_cmd_err(c, ENOENT,
			                   "unknown profile '%s' (tofino1, tofino2, unlimited)",
			                   argv[0]);
		struct isw_asic_use use;
		memset(&use, 0, sizeof(use));
		for (struct isw_pipeline *p = isw_pipeline_next(NULL); p; p = isw_pipeline_next(p))
			if (p->enabled && p->asic != NULL &&
			    isw_asic_account(p->asic, &use, c->err, sizeof(c->err)) < 0)
				return -EINVAL;
		char why[200];
		if (isw_asic_fits(&use, want, why, sizeof(why)) < 0)
			return isw_cmd_err(c, ENOSPC, "enabled pipelines do not fit profile %s: %s",
			                   want->name, why);
		isw_profile_set(want->name);
	}
	isw_json_str_kv(c->out, "profile", isw_profile_current()->name);
	return 0;
}
ISW_CMD_REGISTER(pipeline_profile, "pipeline profile", "[tofino1|tofino2|unlimited]",
                 "show or set the resource profile pipelines are checked against",
                 cmd_pipeline_profile)

static int cmd_pipeline_strict(struct isw_cmd_ctx *c, int argc, char **argv)
{
	bool on;
	uint32_t limit = 0;
	if (isw_arg_count(c, argc, 1, 3) < 0 || isw_arg_onoff(c, argv[0], "strict", &on) < 0)
		return -EINVAL;
	if (argc == 2 || (argc == 3 && strcmp(argv[1], "recirc-limit") != 0))
		return isw_cmd_err(c, EINVAL, "usage: pipeline strict on|off [recirc-limit N]");
	if (argc == 3 && isw_arg_u32(c, argv[2], "recirc-limit", 0, 255, &limit) < 0)
		return -EINVAL;
	if (isw_dp_pause() < 0)
		return isw_cmd_err(c, EAGAIN, "workers did not pause; nothing changed");
	for (unsigned i = 0; i < isw_dp.nb_workers; i++)
		isw_dp.workers[i]->pass.recirc_limit = limit;
	isw_dp_resume();
	isw_pipeline_set_strict(on);
	return 0;
}
ISW_CMD_REGISTER(pipeline_strict, "pipeline strict", "on|off [recirc-limit N]",
                 "count packet passes that use one register array twice or recirculate over N",
                 cmd_pipeline_strict)
