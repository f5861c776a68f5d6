/* SPDX-License-Identifier: BSD-3-Clause */
/* Steering rules from the pipelines' owner maps: rte_flow, ethtool commands, `steer show`. */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_flow.h>

#include "cmd.h"
#include "dp.h"
#include "pipeline.h"
#include "port.h"
#include "stats.h"
#include "steer.h"
#include "worker.h"
#include "xdp.h"

/* How one rule stands on one port. */
enum rule_how {
	HOW_FLOW,    /* an rte_flow rule sends it to the queue */
	HOW_ETHTOOL, /* AF_XDP: the kernel NIC's ntuple filter does, once the operator adds it */
	HOW_NONE,    /* nothing steers it: handed off when it lands elsewhere */
};

struct rule {
	struct isw_steer_match m;
	uint16_t port;
	int queue; /* -1: no queue of the port is polled by the owner */
	enum rule_how how;
	struct rte_flow *flow;
	char note[192]; /* the ethtool command, or why nothing steers it */
};

static struct {
	struct isw_steering want; /* what the pipelines asked for, as applied */
	bool valid;
	struct rule *rules;
	unsigned nb_rules;
} st;

void isw_steering_add(struct isw_steering *s, uint16_t pipeline, uint32_t ip_dst, uint16_t udp_src,
                      uint16_t udp_dst, uint16_t owner, const char *what)
{
	if (s->n == ISW_STEER_MAX) {
		s->overflow = true;
		return;
	}
	struct isw_steer_match *m = &s->m[s->n++];
	memset(m, 0, sizeof(*m));
	m->ip_dst = ip_dst;
	m->udp_src = udp_src;
	m->udp_dst = udp_dst;
	m->owner = owner;
	m->pipeline = pipeline;
	snprintf(m->what, sizeof(m->what), "%s", what);
}

int isw_port_queue_worker(uint16_t port, uint16_t q)
{
	for (unsigned i = 0; i < isw_dp.nb_workers; i++) {
		const struct isw_worker *w = isw_dp.workers[i];
		for (unsigned k = 0; k < w->nb_rxq; k++)
			if (w->rxq[k].port == port && w->rxq[k].queue == q)
				return (int)i;
	}
	return -1;
}

static int owner_queue(uint16_t port, uint16_t owner)
{
	const struct isw_port_info *pi = isw_port_info(port);
	for (uint16_t q = 0; pi != NULL && q < pi->nb_rxq; q++)
		if (isw_port_queue_worker(port, q) == owner)
			return q;
	return -1;
}

static void match_str(const struct isw_steer_match *m, char *buf, size_t len)
{
	int n = snprintf(buf, len, "udp4");
	if (m->ip_dst) {
		char a[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &m->ip_dst, a, sizeof(a));
		n += snprintf(buf + n, len - (size_t)n, " dst-ip %s", a);
	}
	if (m->udp_src)
		n += snprintf(buf + n, len - (size_t)n, " src-port %u", m->udp_src);
	if (m->udp_dst)
		snprintf(buf + n, len - (size_t)n, " dst-port %u", m->udp_dst);
}

/* An rte_flow rule: IPv4 UDP with the match's address and ports to queue r->queue. */
static int flow_create(struct rule *r)
{
	struct rte_flow_item_ipv4 ip_spec = {0}, ip_mask = {0};
	struct rte_flow_item_udp spec = {0}, mask = {0};
	if (r->m.ip_dst) {
		ip_spec.hdr.dst_addr = r->m.ip_dst;
		ip_mask.hdr.dst_addr = RTE_BE32(0xffffffff);
	}
	if (r->m.udp_src) {
		spec.hdr.src_port = rte_cpu_to_be_16(r->m.udp_src);
		mask.hdr.src_port = RTE_BE16(0xffff);
	}
	if (r->m.udp_dst) {
		spec.hdr.dst_port = rte_cpu_to_be_16(r->m.udp_dst);
		mask.hdr.dst_port = RTE_BE16(0xffff);
	}
	const struct rte_flow_attr attr = {.ingress = 1};
	const struct rte_flow_item pattern[] = {
	        {.type = RTE_FLOW_ITEM_TYPE_ETH},
	        {.type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip_spec, .mask = &ip_mask},
	        {.type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &spec, .mask = &mask},
	        {.type = RTE_FLOW_ITEM_TYPE_END},
	};
	const struct rte_flow_action_queue queue = {.index = (uint16_t)r->queue};
	const struct rte_flow_action actions[] = {
	        {.type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue},
	        {.type = RTE_FLOW_ACTION_TYPE_END},
	};
	struct rte_flow_error err = {0};
	r->flow = rte_flow_create(r->port, &attr, pattern, actions, &err);
	if (r->flow != NULL)
		return 0;
	snprintf(r->note, sizeof(r->note), "the driver refused the rte_flow rule: %s",
	         err.message ? err.message : rte_strerror(rte_errno));
	return -EOPNOTSUPP;
}

static void rule_apply(struct rule *r)
{
	const struct isw_port_info *pi = isw_port_info(r->port);
	char match[96];
	match_str(&r->m, match, sizeof(match));
	r->how = HOW_NONE;
	if (r->queue < 0) {
		snprintf(r->note, sizeof(r->note),
		         "no rx queue of this port is polled by worker %u", r->m.owner);
		return;
	}
	if (pi->nb_rxq < 2) {
		snprintf(r->note, sizeof(r->note), "one rx queue: nothing to steer between");
		return;
	}
	unsigned start;
	const char *iface = isw_xdp_iface(r->port, &start);
	if (iface != NULL) {
		r->how = HOW_ETHTOOL;
		snprintf(r->note, sizeof(r->note), "ethtool -N %s flow-type %s action %u", iface,
		         match, start + (unsigned)r->queue);
		return;
	}
	if (flow_create(r) == 0)
		r->how = HOW_FLOW;
}

static void rules_clear(void)
{
	for (unsigned i = 0; i < st.nb_rules; i++)
		if (st.rules[i].flow != NULL) {
			struct rte_flow_error err;
			rte_flow_destroy(st.rules[i].port, st.rules[i].flow, &err);
		}
	free(st.rules);
	st.rules = NULL;
	st.nb_rules = 0;
}

void isw_steer_refresh(void)
{
	static struct isw_steering want;
	memset(&want, 0, sizeof(want));
	isw_pipeline_steering(&want);
	if (st.valid && memcmp(&want, &st.want, sizeof(want)) == 0)
		return;
	rules_clear();
	st.valid = false;
	if (want.n != 0 &&
	    (st.rules = calloc((size_t)want.n * isw_dp.nb_ports, sizeof(*st.rules))) == NULL) {
		/* Not marked applied: the next command tries again. */
		fprintf(stderr, "inswitch: steering: out of memory\n");
		return;
	}
	st.want = want;
	st.valid = true;
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++)
		for (unsigned i = 0; i < want.n; i++) {
			struct rule *r = &st.rules[st.nb_rules++];
			r->m = want.m[i];
			r->port = p;
			r->queue = owner_queue(p, r->m.owner);
			rule_apply(r);
		}
}

void isw_steer_fini(void)
{
	rules_clear();
	st.valid = false;
}

/* ---- steer show ---- */

static const char *how_name(enum rule_how h)
{
	return h == HOW_FLOW ? "rte_flow" : h == HOW_ETHTOOL ? "ethtool" : "none";
}

static int cmd_steer_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	struct isw_stats s;
	isw_stats_sum(&s);
	isw_json_arr_open(c->out, "pipelines");
	for (struct isw_pipeline *p = isw_pipeline_next(NULL); p != NULL;
	     p = isw_pipeline_next(p)) {
		if (!p->enabled || p->always)
			continue;
		const struct isw_pipeline_stats *ps = &s.pipeline[p->id];
		isw_json_obj_open(c->out, NULL);
		isw_json_str_kv(c->out, "pipeline", p->name);
		isw_json_u64(c->out, "pkts", ps->pkts);
		isw_json_u64(c->out, "handed_off", ps->handoffs);
		isw_json_dbl(c->out, "handed_off_pct",
		             ps->pkts ? 100.0 * (double)ps->handoffs / (double)ps->pkts : 0);
		isw_json_str_kv(c->out, "steered_by",
		                p->steering != NULL ? "its owner map (rules below)"
		                                    : "nothing: handed to the owner");
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	isw_json_arr_open(c->out, "rules");
	char match[96];
	for (unsigned i = 0; i < st.nb_rules; i++) {
		const struct rule *r = &st.rules[i];
		match_str(&r->m, match, sizeof(match));
		isw_json_obj_open(c->out, NULL);
		isw_json_u64(c->out, "port", r->port);
		isw_json_str_kv(c->out, "pipeline", isw_pipeline_name(r->m.pipeline));
		isw_json_str_kv(c->out, "packets", r->m.what);
		isw_json_str_kv(c->out, "match", match);
		isw_json_u64(c->out, "worker", r->m.owner);
		if (r->queue >= 0)
			isw_json_u64(c->out, "queue", (uint64_t)r->queue);
		else
			isw_json_null(c->out, "queue");
		isw_json_str_kv(c->out, "by", how_name(r->how));
		if (r->how != HOW_FLOW)
			isw_json_str_kv(c->out, "note", r->note);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	if (st.want.overflow)
		isw_json_str_kv(c->out, "warning",
		                "more rules were asked for than fit: the rest is handed off");
	return 0;
}
ISW_CMD_REGISTER(steer_show, "steer show", "",
                 "how each port's rx queues should be steered so packets reach the lcore that "
                 "owns their state, how it is done, and the share handed off per pipeline",
                 cmd_steer_show)
