/* SPDX-License-Identifier: BSD-3-Clause */
/* Steering rules from the pipelines' owner maps: rte_flow, RSS redirection table entries,
 * ethtool commands, `steer show`. */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_flow.h>

#include "cmd.h"
#include "dp.h"
#include "pipeline.h"
#include "port.h"
#include "rss.h"
#include "stats.h"
#include "steer.h"
#include "worker.h"
#include "xdp.h"

/* How one rule stands on one port. */
enum rule_how {
	HOW_FLOW,    /* an rte_flow rule sends it to the queue */
	HOW_ETHTOOL, /* AF_XDP: the kernel NIC's ntuple filter does, once the operator adds it */
	HOW_RSS,     /* the RSS table entries its senders hash to point at the owner's queue */
	HOW_NONE,    /* nothing steers it: handed off when it lands elsewhere */
};

struct rule {
	struct isw_steer_match m;
	uint16_t port;
	int queue; /* -1: no queue of the port is polled by the owner */
	enum rule_how how;
	struct rte_flow *flow;
	unsigned nsrc, placed, shared; /* its senders; RSS brings placed of them to the owner */
	char note[192];                /* the ethtool command, or why nothing steers it */
};

/* A port's RSS, as the driver reported it at the first refresh. */
struct rss_port {
	bool probed;
	bool ok;
	char why[96]; /* why not ok */
	uint64_t hf;
	uint8_t key[ISW_RSS_KEY_MAX]; /* the key the port hashes with now */
	uint8_t own[ISW_RSS_KEY_MAX]; /* the port's own, as probed */
	uint16_t key_len;
	uint16_t reta_size;
	uint16_t *base; /* the table as the port started with it */
	uint16_t *cur;  /* as last written, NULL until the first write */
};

/* Where RSS puts one sender of a rule, on one port. */
enum src_state {
	SRC_OTHER,  /* the rule is steered otherwise, or RSS cannot be used on the port */
	SRC_PLACED, /* its entry points at the owner's queue */
	SRC_SHARED, /* its entry was taken for another worker's sender: handed off */
};

struct src_place {
	uint32_t hash;
	uint16_t entry;
	uint16_t holder; /* SRC_SHARED: the worker the entry points at */
	enum src_state state;
};

static struct {
	struct isw_steering want; /* what the pipelines asked for, as applied */
	bool valid;
	struct rule *rules;      /* [port * want.n + i] */
	struct src_place *place; /* [port * want.nsrc + j] */
	unsigned nb_rules;
	struct rss_port rss[ISW_MAX_PORTS];
	bool src_port_key; /* `steer rss src-port` */
} st;

int isw_steering_add(struct isw_steering *s, uint16_t pipeline, uint32_t ip_dst, uint16_t udp_src,
                     uint16_t udp_dst, uint16_t owner, const char *what)
{
	if (s->n == ISW_STEER_MAX) {
		s->overflow = true;
		return -1;
	}
	struct isw_steer_match *m = &s->m[s->n];
	memset(m, 0, sizeof(*m));
	m->ip_dst = ip_dst;
	m->udp_src = udp_src;
	m->udp_dst = udp_dst;
	m->owner = owner;
	m->pipeline = pipeline;
	snprintf(m->what, sizeof(m->what), "%s", what);
	return (int)s->n++;
}

void isw_steering_add_source(struct isw_steering *s, int rule, uint32_t ip_src, uint16_t udp_src)
{
	if (rule < 0 || (unsigned)rule >= s->n)
		return;
	if (s->nsrc == ISW_STEER_SOURCES_MAX) {
		s->overflow = true;
		return;
	}
	s->src[s->nsrc++] = (struct isw_steer_source){ip_src, udp_src, (uint16_t)rule};
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
	free(st.place);
	st.rules = NULL;
	st.place = NULL;
	st.nb_rules = 0;
}

/* Reads (write false) or writes the whole redirection table of port. */
static int reta_rw(uint16_t port, uint16_t *tab, uint16_t size, bool write)
{
	unsigned groups = (size + RTE_ETH_RETA_GROUP_SIZE - 1) / RTE_ETH_RETA_GROUP_SIZE;
	struct rte_eth_rss_reta_entry64 *c = calloc(groups, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	for (unsigned e = 0; e < size; e++) {
		c[e / RTE_ETH_RETA_GROUP_SIZE].mask |= 1ULL << (e % RTE_ETH_RETA_GROUP_SIZE);
		if (write)
			c[e / RTE_ETH_RETA_GROUP_SIZE].reta[e % RTE_ETH_RETA_GROUP_SIZE] = tab[e];
	}
	int rc = write ? rte_eth_dev_rss_reta_update(port, c, size)
	               : rte_eth_dev_rss_reta_query(port, c, size);
	for (unsigned e = 0; rc == 0 && !write && e < size; e++)
		tab[e] = c[e / RTE_ETH_RETA_GROUP_SIZE].reta[e % RTE_ETH_RETA_GROUP_SIZE];
	free(c);
	return rc;
}

#define RSS_FIELDS_SUBSET                                                              \
	(RTE_ETH_RSS_L3_SRC_ONLY | RTE_ETH_RSS_L3_DST_ONLY | RTE_ETH_RSS_L4_SRC_ONLY | \
	 RTE_ETH_RSS_L4_DST_ONLY)

/* Can RSS place senders on this port: a table, a key we know, a hash over the whole IPv4 UDP
 * 4-tuple? Sets r->ok or says why not in r->why. */
static void rss_probe(uint16_t port, struct rss_port *r)
{
	r->probed = true;
	struct rte_eth_dev_info di;
	struct rte_eth_rss_conf conf = {.rss_key = r->key, .rss_key_len = sizeof(r->key)};
	int rc;
	if (isw_port_info(port)->nb_rxq < 2) {
		snprintf(r->why, sizeof(r->why), "one rx queue");
		return;
	}
	if ((rc = rte_eth_dev_info_get(port, &di)) < 0 || di.reta_size == 0) {
		snprintf(r->why, sizeof(r->why), "the driver has no RSS redirection table");
		return;
	}
	if ((rc = rte_eth_dev_rss_hash_conf_get(port, &conf)) < 0) {
		snprintf(r->why, sizeof(r->why), "the driver does not give its RSS key: %s",
		         rte_strerror(-rc));
		return;
	}
	/* 40 bytes is the Toeplitz key every NIC without its own size uses (net_null too). */
	r->key_len = di.hash_key_size != 0 ? di.hash_key_size : 40;
	r->hf = conf.rss_hf;
	if (r->key_len < ISW_RSS_KEY_MIN || r->key_len > sizeof(r->key)) {
		snprintf(r->why, sizeof(r->why), "an RSS key of %u bytes", r->key_len);
		return;
	}
	if (!(r->hf & RTE_ETH_RSS_NONFRAG_IPV4_UDP) || (r->hf & RSS_FIELDS_SUBSET)) {
		snprintf(r->why, sizeof(r->why),
		         "RSS does not hash the IPv4 UDP 4-tuple (hash fields %#" PRIx64 ")",
		         r->hf);
		return;
	}
	r->reta_size = di.reta_size;
	memcpy(r->own, r->key, sizeof(r->own));
	if ((r->base = calloc(r->reta_size, sizeof(*r->base))) == NULL ||
	    (rc = reta_rw(port, r->base, r->reta_size, false)) < 0) {
		snprintf(r->why, sizeof(r->why), "cannot read the RSS redirection table: %s",
		         r->base == NULL ? "out of memory" : rte_strerror(-rc));
		return;
	}
	r->ok = true;
}

/* Says what RSS does for a rule with senders that no flow rule steers: fail is why RSS
 * cannot be used on its port, or NULL. */
static void rss_note(struct rule *ru, const char *fail)
{
	size_t n = strlen(ru->note);
	if (ru->queue < 0 || isw_port_info(ru->port)->nb_rxq < 2)
		return; /* the note says why nothing can steer it */
	if (fail != NULL || ru->placed == 0) {
		const char *why = fail != NULL ? fail
		                  : ru->shared ? "every sender shares a table entry with another "
		                                 "worker's: handed off"
		                               : "no destination address and port to hash";
		snprintf(ru->note + n, sizeof(ru->note) - n, "%sRSS: %s", n ? "; " : "", why);
		return;
	}
	ru->how = HOW_RSS;
	int k = snprintf(ru->note, sizeof(ru->note),
	                 "%u of %u senders' RSS table entries point at queue %d", ru->placed,
	                 ru->nsrc, ru->queue);
	if (ru->shared)
		snprintf(ru->note + k, sizeof(ru->note) - (size_t)k,
		         "; %u share an entry with another worker's sender: handed off",
		         ru->shared);
}

/*
 * Points the RSS table entries that the rules' senders hash to at their owners' queues, where
 * no flow rule steers them; the first sender to need an entry keeps it, a later one of another
 * worker is left to hand-off. Every other entry keeps the port's own spread. Written only
 * when it changed. 0, or -1 with why in fail (nothing placed then).
 */
static int rss_fill(uint16_t port, struct rss_port *r, char *fail, size_t len)
{
	const struct isw_steering *w = &st.want;
	uint16_t *tab = malloc(r->reta_size * sizeof(*tab));
	int32_t *holder = malloc(r->reta_size * sizeof(*holder));
	if (tab == NULL || holder == NULL) {
		free(tab);
		free(holder);
		snprintf(fail, len, "out of memory");
		return -1;
	}
	memcpy(tab, r->base, r->reta_size * sizeof(*tab));
	memset(holder, 0xff, r->reta_size * sizeof(*holder));
	for (unsigned j = 0; j < w->nsrc; j++) {
		const struct isw_steer_source *src = &w->src[j];
		struct rule *ru = &st.rules[port * w->n + src->rule];
		struct src_place *pl = &st.place[port * w->nsrc + j];
		if (ru->how != HOW_NONE || ru->queue < 0 || ru->m.ip_dst == 0 || ru->m.udp_dst == 0)
			continue;
		pl->hash = isw_rss_hash_v4_udp(r->key, src->ip_src, ru->m.ip_dst, src->udp_src,
		                               ru->m.udp_dst);
		pl->entry = isw_rss_entry(pl->hash, r->reta_size);
		if (holder[pl->entry] < 0 || holder[pl->entry] == ru->m.owner) {
			holder[pl->entry] = ru->m.owner;
			tab[pl->entry] = (uint16_t)ru->queue;
			pl->state = SRC_PLACED;
			ru->placed++;
		} else {
			pl->holder = (uint16_t)holder[pl->entry];
			pl->state = SRC_SHARED;
			ru->shared++;
		}
	}
	free(holder);
	const uint16_t *was = r->cur != NULL ? r->cur : r->base;
	int rc = 0;
	if (memcmp(tab, was, r->reta_size * sizeof(*tab)) != 0 &&
	    (rc = reta_rw(port, tab, r->reta_size, true)) < 0) {
		free(tab);
		snprintf(fail, len, "the driver refused the redirection table: %s",
		         rte_strerror(-rc));
		return -1;
	}
	free(r->cur);
	r->cur = tab;
	return 0;
}

/* RSS for port's rules that no flow rule steers, and each such rule's note. */
static void rss_place(uint16_t port)
{
	struct rss_port *r = &st.rss[port];
	const struct isw_steering *w = &st.want;
	char refused[96];
	if (!r->probed)
		rss_probe(port, r);
	for (unsigned j = 0; j < w->nsrc; j++)
		st.rules[port * w->n + w->src[j].rule].nsrc++;
	const char *fail = r->ok ? NULL : r->why;
	if (r->ok && rss_fill(port, r, refused, sizeof(refused)) < 0) {
		fail = refused;
		for (unsigned j = 0; j < w->nsrc; j++)
			st.place[port * w->nsrc + j].state = SRC_OTHER;
	}
	for (unsigned i = 0; i < w->n; i++) {
		struct rule *ru = &st.rules[port * w->n + i];
		if (fail != NULL)
			ru->placed = ru->shared = 0;
		if (ru->how == HOW_NONE && ru->nsrc)
			rss_note(ru, fail);
	}
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
	if ((want.n != 0 &&
	     (st.rules = calloc((size_t)want.n * isw_dp.nb_ports, sizeof(*st.rules))) == NULL) ||
	    (want.nsrc != 0 &&
	     (st.place = calloc((size_t)want.nsrc * isw_dp.nb_ports, sizeof(*st.place))) == NULL)) {
		/* Not marked applied: the next command tries again. */
		rules_clear();
		fprintf(stderr, "inswitch: steering: out of memory\n");
		return;
	}
	st.want = want;
	st.valid = true;
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++) {
		for (unsigned i = 0; i < want.n; i++) {
			struct rule *r = &st.rules[st.nb_rules++];
			r->m = want.m[i];
			r->port = p;
			r->queue = owner_queue(p, r->m.owner);
			rule_apply(r);
		}
		rss_place(p);
	}
}

void isw_steer_fini(void)
{
	rules_clear();
	for (uint16_t p = 0; p < ISW_MAX_PORTS; p++) {
		free(st.rss[p].base);
		free(st.rss[p].cur);
	}
	memset(&st, 0, sizeof(st));
}

/* ---- steer rss ---- */

/* Sets port's hash key (its own hash fields kept). */
static int rss_key_set(uint16_t port, const uint8_t *key)
{
	struct rss_port *r = &st.rss[port];
	struct rte_eth_rss_conf conf = {.rss_key = (uint8_t *)(uintptr_t)key,
	                                .rss_key_len = (uint8_t)r->key_len,
	                                .rss_hf = r->hf};
	int rc = rte_eth_dev_rss_hash_update(port, &conf);
	if (rc == 0)
		memcpy(r->key, key, r->key_len);
	return rc;
}

static int cmd_steer_rss(struct isw_cmd_ctx *c, int argc, char **argv)
{
	if (isw_arg_count(c, argc, 1, 1) < 0)
		return -EINVAL;
	bool src_port = strcmp(argv[0], "src-port") == 0;
	if (!src_port && strcmp(argv[0], "tuple") != 0)
		return isw_cmd_err(c, EINVAL, "'%s': say src-port or tuple", argv[0]);
	char why[256] = "";
	size_t n = 0;
	unsigned usable = 0;
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++) {
		if (!st.rss[p].probed)
			rss_probe(p, &st.rss[p]);
		usable += st.rss[p].ok;
		if (!st.rss[p].ok && n < sizeof(why))
			n += (size_t)snprintf(why + n, sizeof(why) - n, "%sport %u: %s",
			                      n ? "; " : "", p, st.rss[p].why);
	}
	if (usable == 0)
		return isw_cmd_err(c, ENOTSUP, "no port has RSS inswitch can use (%s)", why);
	/* All ports or none: a refusal puts back the ports already changed. */
	uint8_t key[ISW_MAX_PORTS][ISW_RSS_KEY_MAX], was[ISW_MAX_PORTS][ISW_RSS_KEY_MAX];
	uint16_t p;
	int rc = 0;
	for (p = 0; p < isw_dp.nb_ports; p++) {
		struct rss_port *r = &st.rss[p];
		if (!r->ok)
			continue;
		memcpy(was[p], r->key, sizeof(was[p]));
		memcpy(key[p], r->own, sizeof(key[p]));
		if (src_port && (rc = isw_rss_key_src_port(key[p], r->key_len, r->reta_size)) < 0) {
			isw_cmd_err(c, -rc,
			            "port %u: a redirection table of %u entries is not a power "
			            "of two",
			            p, r->reta_size);
			break;
		}
		if ((rc = rss_key_set(p, key[p])) < 0) {
			isw_cmd_err(c, -rc, "port %u: the driver refused the key: %s", p,
			            rte_strerror(-rc));
			break;
		}
	}
	if (rc < 0) {
		while (p-- > 0)
			if (st.rss[p].ok)
				rss_key_set(p, was[p]);
		return rc;
	}
	st.src_port_key = src_port;
	st.valid = false; /* the senders' entries moved: place them again */
	return 0;
}
ISW_CMD_REGISTER(steer_rss, "steer rss", "src-port|tuple",
                 "src-port: give each multi-queue port an RSS key under which a packet's "
                 "redirection table entry depends only on its UDP source port, so every "
                 "worker's thread t (source port base + t) lands on one entry, pointed at the "
                 "owner; tuple: the ports' own keys (the default)",
                 cmd_steer_rss)

/* ---- steer show ---- */

static const char *how_name(enum rule_how h)
{
	return h == HOW_FLOW      ? "rte_flow"
	       : h == HOW_ETHTOOL ? "ethtool"
	       : h == HOW_RSS     ? "rss"
	                          : "none";
}

/* Each port's RSS (its table read back from the driver) and where it puts each sender. */
static void rss_show(struct isw_cmd_ctx *c)
{
	isw_json_arr_open(c->out, "rss");
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++) {
		const struct rss_port *r = &st.rss[p];
		isw_json_obj_open(c->out, NULL);
		isw_json_u64(c->out, "port", p);
		isw_json_bool(c->out, "used", r->ok);
		if (!r->ok) {
			isw_json_str_kv(c->out, "why", r->probed ? r->why : "not looked at yet");
			isw_json_obj_close(c->out);
			continue;
		}
		isw_json_str_kv(c->out, "hash", "toeplitz: src-ip dst-ip src-port dst-port");
		char key[2 * ISW_RSS_KEY_MAX + 1];
		for (unsigned i = 0; i < r->key_len; i++)
			snprintf(key + 2 * i, 3, "%02x", r->key[i]);
		isw_json_str_kv(c->out, "key", key);
		isw_json_str_kv(c->out, "key_is",
		                st.src_port_key
		                        ? "the port's own, table bits from the UDP source port"
		                        : "the port's own");
		isw_json_u64(c->out, "reta_size", r->reta_size);
		unsigned changed = 0;
		for (unsigned e = 0; r->cur != NULL && e < r->reta_size; e++)
			changed += r->cur[e] != r->base[e];
		isw_json_u64(c->out, "entries_changed", changed);
		uint16_t *tab = malloc(r->reta_size * sizeof(*tab));
		int rc = tab != NULL ? reta_rw(p, tab, r->reta_size, false) : -ENOMEM;
		if (rc == 0) {
			isw_json_arr_open(c->out, "reta");
			for (unsigned e = 0; e < r->reta_size; e++)
				isw_json_u64(c->out, NULL, tab[e]);
			isw_json_arr_close(c->out);
		} else {
			isw_json_strf(c->out, "reta", "cannot read it back: %s", rte_strerror(-rc));
		}
		free(tab);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);

	isw_json_arr_open(c->out, "rss_senders");
	char a[INET_ADDRSTRLEN];
	for (uint16_t p = 0; st.valid && p < isw_dp.nb_ports; p++)
		for (unsigned j = 0; j < st.want.nsrc; j++) {
			const struct src_place *pl = &st.place[p * st.want.nsrc + j];
			const struct isw_steer_source *src = &st.want.src[j];
			const struct rule *ru = &st.rules[p * st.want.n + src->rule];
			if (pl->state == SRC_OTHER)
				continue;
			isw_json_obj_open(c->out, NULL);
			isw_json_u64(c->out, "port", p);
			isw_json_str_kv(c->out, "packets", ru->m.what);
			isw_json_str_kv(c->out, "src_ip",
			                inet_ntop(AF_INET, &src->ip_src, a, sizeof(a)));
			isw_json_u64(c->out, "src_port", src->udp_src);
			isw_json_strf(c->out, "hash", "0x%08x", pl->hash);
			isw_json_u64(c->out, "entry", pl->entry);
			isw_json_u64(c->out, "worker", ru->m.owner);
			isw_json_u64(c->out, "queue", (uint64_t)ru->queue);
			if (pl->state == SRC_PLACED)
				isw_json_str_kv(c->out, "state", "placed");
			else
				isw_json_strf(c->out, "state",
				              "its entry points at worker %u: handed off",
				              pl->holder);
			isw_json_obj_close(c->out);
		}
	isw_json_arr_close(c->out);
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
	rss_show(c);
	if (st.want.overflow)
		isw_json_str_kv(c->out, "warning",
		                "more rules were asked for than fit: the rest is handed off");
	return 0;
}
ISW_CMD_REGISTER(steer_show, "steer show", "",
                 "how each port's rx queues should be steered so packets reach the lcore that "
                 "owns their state, how it is done, and the share handed off per pipeline",
                 cmd_steer_show)
