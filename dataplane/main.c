/* SPDX-License-Identifier: BSD-3-Clause */
/* The inswitch daemon: EAL and option parsing, set-up, the worker launch, and shutdown. */

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "cmd.h"
#include "dp.h"
#include "eal.h"
#include "mbuf.h"
#include "pipeline.h"
#include "port.h"
#include "pre.h"
#include "server.h"
#include "steer.h"
#include "worker.h"
#include "xdp.h"

#define DEFAULT_CTL "/run/inswitch.sock"

struct opts {
	const char *config;
	const char *ctl;
	const char *pipelines[ISW_MAX_PIPELINES];
	unsigned nb_pipelines;
	const char *profile;
	unsigned mbufs;
	unsigned idle_ms;
	unsigned nap_us;
	bool strict;
	bool final_json;
	bool replay_ordered;
	const char *xdp_shared[RTE_MAX_ETHPORTS];
	unsigned nb_xdp_shared;
	struct isw_port_opts port;
};

static void usage(const char *prog)
{
	printf("usage: %s [EAL options] -- [options]\n"
	       "  --config FILE         run the control commands in FILE before starting\n"
	       "  --ctl PATH            control socket (default " DEFAULT_CTL ")\n"
	       "  --pipeline NAME       enable a pipeline (repeatable; l2 is always on)\n"
	       "  --profile NAME        resource profile: tofino1, tofino2 (default), unlimited\n"
	       "  --strict              count register arrays used twice in one packet pass\n"
	       "  --burst N             packets per receive burst, 1..%d (default 32)\n"
	       "  --mbufs N             packet buffers in the pool (default 16383, more with many\n"
	       "                        ports: 8191 plus what every port's rings can hold)\n"
	       "  --rxq N               receive queues per port, spread over workers (default 1)\n"
	       "  --rx-desc N/--tx-desc N  ring sizes (default 1024)\n"
	       "  --no-promisc          leave ports out of promiscuous mode\n"
	       "  --exit-when-idle MS   stop once no packet has moved for MS milliseconds\n"
	       "  --idle-sleep-us US    let an idle worker sleep, up to US microseconds a nap\n"
	       "                        (1..10000; default: poll without pause)\n"
	       "  --replay-ordered      pcap regression: take the frames of every port's rx_pcap\n"
	       "                        one at a time in capture timestamp order (one worker)\n"
	       "  --final-json          print the final counters as one JSON line\n"
	       "  --xdp-shared IFACE    share the AF_XDP port on IFACE with the kernel: the "
	       "switch\n"
	       "                        takes only its pipelines' frames, the kernel the rest\n"
	       "                        (repeatable)\n"
	       "Every EAL lcore (-l) runs a worker; the control thread is not pinned to them.\n"
	       "Example: %s --no-huge -m 1024 --no-pci -l 0 --vdev net_null0 --vdev net_null1 --\n",
	       prog, ISW_BURST_MAX, prog);
}

static int parse_uint(const char *s, const char *what, unsigned min, unsigned max, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (s[0] == '\0' || s[0] == '-' || *end != '\0' || errno != 0 || v < min || v > max) {
		fprintf(stderr, "inswitch: %s: '%s' is not an integer in %u..%u\n", what, s, min,
		        max);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	enum {
		O_CONFIG = 256,
		O_CTL,
		O_PIPELINE,
		O_PROFILE,
		O_STRICT,
		O_BURST,
		O_MBUFS,
		O_RXQ,
		O_RXD,
		O_TXD,
		O_NOPROMISC,
		O_IDLE,
		O_NAP,
		O_JSON,
		O_XDP_SHARED,
		O_ORDERED,
		O_HELP
	};
	static const struct option lo[] = {
	        {"config", required_argument, NULL, O_CONFIG},
	        {"ctl", required_argument, NULL, O_CTL},
	        {"pipeline", required_argument, NULL, O_PIPELINE},
	        {"profile", required_argument, NULL, O_PROFILE},
	        {"strict", no_argument, NULL, O_STRICT},
	        {"burst", required_argument, NULL, O_BURST},
	        {"mbufs", required_argument, NULL, O_MBUFS},
	        {"rxq", required_argument, NULL, O_RXQ},
	        {"rx-desc", required_argument, NULL, O_RXD},
	        {"tx-desc", required_argument, NULL, O_TXD},
	        {"no-promisc", no_argument, NULL, O_NOPROMISC},
	        {"exit-when-idle", required_argument, NULL, O_IDLE},
	        {"idle-sleep-us", required_argument, NULL, O_NAP},
	        {"final-json", no_argument, NULL, O_JSON},
	        {"xdp-shared", required_argument, NULL, O_XDP_SHARED},
	        {"replay-ordered", no_argument, NULL, O_ORDERED},
	        {"help", no_argument, NULL, O_HELP},
	        {NULL, 0, NULL, 0},
	};
	unsigned v;
	int opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case O_CONFIG:
			o->config = optarg;
			break;
		case O_CTL:
			o->ctl = optarg;
			break;
		case O_PIPELINE:
			if (o->nb_pipelines == ISW_MAX_PIPELINES) {
				fprintf(stderr, "inswitch: too many --pipeline options\n");
				return -EINVAL;
			}
			o->pipelines[o->nb_pipelines++] = optarg;
			break;
		case O_PROFILE:
			o->profile = optarg;
			break;
		case O_STRICT:
			o->strict = true;
			break;
		case O_BURST:
			if (parse_uint(optarg, "--burst", 1, ISW_BURST_MAX, &v) < 0)
				return -EINVAL;
			isw_dp.burst = (uint16_t)v;
			break;
		case O_MBUFS:
			if (parse_uint(optarg, "--mbufs", 1023, 1u << 24, &o->mbufs) < 0)
				return -EINVAL;
			break;
		case O_RXQ:
			if (parse_uint(optarg, "--rxq", 1, 64, &v) < 0)
				return -EINVAL;
			o->port.rxq = (uint16_t)v;
			break;
		case O_RXD:
		case O_TXD:
			if (parse_uint(optarg, opt == O_RXD ? "--rx-desc" : "--tx-desc", 32, 32768,
			               &v) < 0)
				return -EINVAL;
			if (opt == O_RXD)
				o->port.rx_desc = (uint16_t)v;
			else
				o->port.tx_desc = (uint16_t)v;
			break;
		case O_NOPROMISC:
			o->port.promisc = false;
			break;
		case O_IDLE:
			if (parse_uint(optarg, "--exit-when-idle", 1, 3600000, &o->idle_ms) < 0)
				return -EINVAL;
			break;
		case O_NAP:
			if (parse_uint(optarg, "--idle-sleep-us", 1, 10000, &o->nap_us) < 0)
				return -EINVAL;
			break;
		case O_JSON:
			o->final_json = true;
			break;
		case O_XDP_SHARED:
			if (o->nb_xdp_shared == RTE_DIM(o->xdp_shared)) {
				fprintf(stderr, "inswitch: too many --xdp-shared options\n");
				return -EINVAL;
			}
			o->xdp_shared[o->nb_xdp_shared++] = optarg;
			break;
		case O_ORDERED:
			o->replay_ordered = true;
			break;
		case O_HELP:
		case 'h':
			usage(argv[0]);
			exit(0);
		default:
			usage(argv[0]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "inswitch: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

static void on_signal(int sig)
{
	RTE_SET_USED(sig);
	isw_dp.quit = true;
}

static int workers_create(void)
{
	unsigned lcore;
	RTE_LCORE_FOREACH(lcore)
	{
		if (isw_dp.nb_workers == ISW_MAX_WORKERS) {
			fprintf(stderr, "inswitch: at most %d worker lcores\n", ISW_MAX_WORKERS);
			return -E2BIG;
		}
		struct isw_worker *w = rte_zmalloc("isw-worker", sizeof(*w), RTE_CACHE_LINE_SIZE);
		if (w == NULL)
			return -ENOMEM;
		w->lcore = lcore;
		w->index = isw_dp.nb_workers;
		char name[RTE_RING_NAMESIZE];
		snprintf(name, sizeof(name), "isw-inbox-%u", lcore);
		w->inbox = rte_ring_create(name, ISW_INBOX_SIZE, rte_lcore_to_socket_id(lcore),
		                           RING_F_SC_DEQ);
		if (w->inbox == NULL) {
			rte_free(w);
			return -rte_errno;
		}
		isw_dp.workers[isw_dp.nb_workers++] = w;
	}
	isw_dp_shard_init();
	size_t sz = rte_rcu_qsbr_get_memsize(isw_dp.nb_workers);
	isw_dp.rcu = rte_zmalloc("isw-rcu", sz, RTE_CACHE_LINE_SIZE);
	if (isw_dp.rcu == NULL)
		return -ENOMEM;
	return rte_rcu_qsbr_init(isw_dp.rcu, isw_dp.nb_workers);
}

static unsigned inboxes_used(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < isw_dp.nb_workers; i++)
		n += rte_ring_count(isw_dp.workers[i]->inbox);
	return n;
}

static void workers_free(void)
{
	/* Telemetry callbacks may still sum counters: make them see no workers first. */
	unsigned n = isw_dp.nb_workers;
	__atomic_store_n(&isw_dp.nb_workers, 0, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < n; i++) {
		if (isw_dp.workers[i] == NULL)
			continue;
		rte_ring_free(isw_dp.workers[i]->inbox);
		rte_free(isw_dp.workers[i]);
		isw_dp.workers[i] = NULL;
	}
	rte_free(isw_dp.rcu);
	isw_dp.rcu = NULL;
}

static int launch(void *arg)
{
	RTE_SET_USED(arg);
	unsigned lcore = rte_lcore_id();
	for (unsigned i = 0; i < isw_dp.nb_workers; i++)
		if (isw_dp.workers[i]->lcore == lcore)
			return isw_worker_main(isw_dp.workers[i]);
	return 0;
}

static void print_final(bool as_json)
{
	struct isw_json j;
	isw_json_init(&j);
	if (as_json) {
		isw_json_obj_open(&j, NULL);
		isw_stats_json(&j);
		isw_json_obj_close(&j);
		printf("%s\n", isw_json_str(&j));
		isw_json_free(&j);
		return;
	}
	isw_json_free(&j);
	struct isw_stats s;
	isw_stats_sum(&s);
	printf("inswitch: final counters after %.3f s\n", isw_stats_elapsed());
	printf("  %-4s %-24s %12s %12s %10s\n", "port", "name", "rx_pkts", "tx_pkts", "drops");
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++)
		printf("  %-4u %-24s %12llu %12llu %10llu\n", p, isw_port_info(p)->name,
		       (unsigned long long)s.port[p].rx_pkts, (unsigned long long)s.port[p].tx_pkts,
		       (unsigned long long)s.port[p].drops);
	for (uint16_t id = 0; id < ISW_MAX_PIPELINES; id++)
		for (unsigned r = 0; r < ISW_DROP_MAX; r++)
			if (s.pipeline[id].drops[r])
				printf("  drop %s/%s: %llu (%s)\n", isw_pipeline_name(id),
				       isw_drop_name(r),
				       (unsigned long long)s.pipeline[id].drops[r],
				       isw_drop_descr(r));
	fflush(stdout);
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds from this process's start (exec, loading the libraries) to now, from /proc; 0 when
 * it cannot tell. */
static double since_exec(void)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "re");
	struct timespec boot;
	unsigned long long start = 0;
	if (f == NULL)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* Field 22, starttime in clock ticks since boot, counted after the ')' closing comm. */
	char *p = strrchr(buf, ')');
	for (int field = 2; p != NULL && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%llu", &start) != 1 ||
	    clock_gettime(CLOCK_BOOTTIME, &boot) < 0)
		return 0;
	double s = (double)boot.tv_sec + (double)boot.tv_nsec / 1e9 -
	           (double)start / (double)sysconf(_SC_CLK_TCK);
	return s > 0 ? s : 0;
}

int main(int argc, char **argv)
{
	struct opts o = {
	        .ctl = DEFAULT_CTL,
	        .mbufs = 0, /* 0: isw_mbuf_default_count() */
	        .port = {.rxq = 1, .rx_desc = 1024, .tx_desc = 1024, .promisc = true},
	};
	char err[ISW_CMD_ERR_MAX];
	int rc;
	double t_main = mono_s(), t_eal, t_ports;

	isw_dp.startup.exec_s = since_exec();
	/* `inswitch --help` is EAL's: it prints inswitch's options too. */
	rte_set_application_usage_hook(usage);
	char **eal_argv;
	if (isw_xdp_eal_args(argc, argv, &eal_argv, err, sizeof(err)) < 0) {
		fprintf(stderr, "inswitch: %s\n", err);
		isw_xdp_fini();
		return 1;
	}
	argc = isw_eal_args_split(argc, eal_argv, &argv, err, sizeof(err));
	if (argc < 0) {
		fprintf(stderr, "inswitch: %s\n", err);
		isw_xdp_fini();
		return 1;
	}
	int n = isw_eal_init(argc, argv);
	t_eal = mono_s();
	if (n < 0) {
		fprintf(stderr, "inswitch: EAL initialisation failed: %s\n",
		        rte_strerror(rte_errno));
		isw_xdp_fini();
		isw_eal_leave();
		return 1;
	}
	isw_eal_note_runtime_dir();
	if (isw_eal_devices_create(err, sizeof(err)) < 0) {
		fprintf(stderr, "inswitch: %s\n", err);
		goto out_eal;
	}
	if ((rc = isw_eal_capture_init()) < 0)
		fprintf(stderr, "inswitch: live capture (pdump) not available: %s\n",
		        rte_strerror(-rc));
	argv[n] = argv[0];
	if (parse_opts(argc - n, argv + n, &o) < 0)
		goto out_eal;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	rc = workers_create();
	if (rc < 0) {
		fprintf(stderr, "inswitch: workers: %s\n", strerror(-rc));
		goto out_workers;
	}
	if (o.replay_ordered && isw_dp.nb_workers != 1) {
		fprintf(stderr,
		        "inswitch: --replay-ordered needs one worker (-l with one lcore), "
		        "not %u\n",
		        isw_dp.nb_workers);
		goto out_workers;
	}
	if (o.replay_ordered && isw_worker_ordered_init() < 0) {
		fprintf(stderr, "inswitch: --replay-ordered: no mbuf timestamp field\n");
		goto out_workers;
	}
	isw_dp.replay_ordered = o.replay_ordered;
	if (o.mbufs == 0)
		o.mbufs = isw_mbuf_default_count(&o.port);
	isw_dp.pool = isw_mbuf_pool_create("isw-mbufs", o.mbufs,
	                                   RTE_ALIGN(sizeof(struct isw_meta), RTE_MBUF_PRIV_ALIGN),
	                                   (int)rte_socket_id());
	if (isw_dp.pool == NULL) {
		fprintf(stderr, "inswitch: mbuf pool of %u: %s (lower --mbufs or raise -m)\n",
		        o.mbufs, rte_strerror(rte_errno));
		goto out_workers;
	}
	if (isw_port_conf_init() < 0 || isw_ports_init(&o.port) < 0)
		goto out_ports;
	if (isw_xdp_ports_init(o.xdp_shared, o.nb_xdp_shared, err, sizeof(err)) < 0) {
		fprintf(stderr, "inswitch: %s\n", err);
		goto out_ports;
	}
	t_ports = mono_s();
	if (o.profile != NULL && isw_profile_set(o.profile) < 0) {
		fprintf(stderr, "inswitch: unknown profile '%s' (tofino1, tofino2, unlimited)\n",
		        o.profile);
		goto out_ports;
	}
	isw_pipeline_set_strict(o.strict);
	if (isw_pipeline_init(err, sizeof(err)) < 0) {
		fprintf(stderr, "inswitch: %s\n", err);
		goto out_pipelines;
	}
	for (unsigned i = 0; i < o.nb_pipelines; i++) {
		if (isw_pipeline_enable(o.pipelines[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "inswitch: --pipeline %s: %s\n", o.pipelines[i], err);
			goto out_pipelines;
		}
	}
	if (o.config != NULL && isw_cmd_exec_file(o.config, err, sizeof(err)) < 0) {
		fprintf(stderr, "inswitch: config %s\n", err);
		goto out_pipelines;
	}
	isw_xdp_refresh();
	isw_steer_refresh();
	if (isw_cmd_on_success(isw_steer_refresh) < 0) {
		fprintf(stderr, "inswitch: no room for the steering hook (ISW_CMD_HOOKS_MAX)\n");
		goto out_pipelines;
	}
	if (isw_server_start(o.ctl, 0600) < 0)
		goto out_pipelines;
	if (isw_telemetry_init() < 0)
		fprintf(stderr, "inswitch: telemetry endpoints not registered\n");

	if (o.idle_ms)
		isw_dp.idle_exit_tsc = rte_get_tsc_hz() / 1000 * o.idle_ms;
	isw_dp.idle_sleep_tsc = rte_get_tsc_hz() / 1000000 * o.nap_us;
	isw_stats_reset();
	isw_dp.startup.eal_s = t_eal - t_main;
	isw_dp.startup.ports_s = t_ports - t_eal;
	isw_dp.startup.config_s = mono_s() - t_ports;
	isw_dp.startup.total_s = isw_dp.startup.exec_s + mono_s() - t_main;
	printf("inswitch %s: %u ports, %u workers, control socket %s\n", ISW_VERSION,
	       isw_dp.nb_ports, isw_dp.nb_workers, o.ctl);
	printf("inswitch: ready %.2f s after start (exec %.2f, EAL %.2f, ports %.2f, pipelines and "
	       "config %.2f)\n",
	       isw_dp.startup.total_s, isw_dp.startup.exec_s, isw_dp.startup.eal_s,
	       isw_dp.startup.ports_s, isw_dp.startup.config_s);
	fflush(stdout);

	isw_dp.running = true;
	rte_eal_mp_remote_launch(launch, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	isw_dp.running = false;
	/* What workers handed each other while stopping is still in their inboxes: drain until
	 * empty (each drain may hand packets on once more, never in a cycle). */
	for (unsigned round = 0; round < 64 && inboxes_used() > 0; round++)
		for (unsigned i = 0; i < isw_dp.nb_workers; i++)
			isw_worker_drain(isw_dp.workers[i]);
	if (inboxes_used() > 0)
		fprintf(stderr, "inswitch: %u packets left between lcores at shutdown\n",
		        inboxes_used());

	isw_server_stop();
	print_final(o.final_json);
	rc = 0;
	goto out;

out_pipelines:
	rc = 1;
out:
	isw_steer_fini();
	isw_pipeline_fini();
	isw_ports_fini();
	isw_mc_fini();
	goto out_free;
out_ports:
	isw_ports_fini();
out_workers:
	rc = 1;
out_free:
	isw_eal_capture_fini(); /* before the workers' RCU goes (callback removal waits on it) */
	rte_mempool_free(isw_dp.pool);
	workers_free();
	free(isw_dp.pconf);
	rte_eal_cleanup();
	isw_xdp_fini();
	isw_eal_leave();
	return rc;
out_eal:
	isw_eal_capture_fini();
	rte_eal_cleanup();
	isw_xdp_fini();
	isw_eal_leave();
	return 1;
}
