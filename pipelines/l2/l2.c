/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * l2: plain Ethernet forwarding for everything no INC pipeline takes. A static MAC table
 * (MAC -> port) and flooding of broadcast, multicast and unknown unicast to every port but the
 * ingress one, each switchable. Always enabled, always last in the chain.
 *
 * The table is immutable once published: edits build a new one and publish it by RCU.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>

#include "cmd.h"
#include "l2.h"
#include "pipeline.h"
#include "pre.h"
#include "worker.h"

#define L2_ENTRIES_MAX 65536u

struct l2_entry {
	uint64_t mac; /* 48-bit MAC in the low bits; 0 = empty slot (00:..:00 is refused) */
	uint16_t port;
};

struct l2_table {
	bool flood_unknown;
	bool flood_bcast;
	uint32_t n;
	uint32_t mask;
	struct l2_entry *slots; /* open addressing, linear probing, load <= 1/2 */
	struct l2_entry *list;  /* the n entries in insertion order, for show */
	struct l2_entry storage[];
};

static struct l2_table *table;

static inline uint64_t mac_u64(const uint8_t *a)
{
	return (uint64_t)a[0] << 40 | (uint64_t)a[1] << 32 | (uint64_t)a[2] << 24 |
	       (uint64_t)a[3] << 16 | (uint64_t)a[4] << 8 | a[5];
}

static inline uint32_t mac_hash(uint64_t mac)
{
	return (uint32_t)((mac * UINT64_C(0x9e3779b97f4a7c15)) >> 32);
}

static inline int lookup(const struct l2_table *t, uint64_t mac)
{
	/* Empty slots hold MAC 0, which is never stored: test for them first. */
	for (uint32_t i = mac_hash(mac) & t->mask;; i = (i + 1) & t->mask) {
		if (t->slots[i].mac == 0)
			return -1;
		if (t->slots[i].mac == mac)
			return t->slots[i].port;
	}
}

static __rte_always_inline int l2_process(struct isw_worker *w, struct rte_mbuf *m)
{
	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)) {
		isw_drop(w, m, ISW_DROP_RUNT);
		return ISW_PKT_TAKEN;
	}
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct l2_table *t = ISW_RCU_LOAD(table);
	uint16_t in = isw_meta(m)->in_port;

	if (rte_is_multicast_ether_addr(&eh->dst_addr)) {
		if (t->flood_bcast)
			isw_mcast(w, m, ISW_MC_FLOOD, in, NULL, NULL, 0);
		else
			isw_drop(w, m, ISW_DROP_NO_DEST);
		return ISW_PKT_TAKEN;
	}
	int port = lookup(t, mac_u64(eh->dst_addr.addr_bytes));
	if (port < 0) {
		if (t->flood_unknown)
			isw_mcast(w, m, ISW_MC_FLOOD, in, NULL, NULL, 0);
		else
			isw_drop(w, m, ISW_DROP_NO_DEST);
	} else if (port == in) {
		isw_drop(w, m, ISW_DROP_HAIRPIN);
	} else {
		isw_tx(w, m, (uint16_t)port);
	}
	return ISW_PKT_TAKEN;
}

static __rte_always_inline int l2_process_fast(struct isw_worker *w, struct rte_mbuf *m,
                                               const void *ctx, uint16_t i)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(i);
	return l2_process(w, m);
}

static uint16_t l2_process_burst(struct isw_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	return isw_burst_run(w, pkts, n, l2_process_fast, NULL);
}

/* ---- control ---- */

int isw_l2_port_of(const uint8_t mac[6])
{
	int port = table ? lookup(table, mac_u64(mac)) : -1;
	return port < 0 ? -ENOENT : port;
}

static struct l2_table *table_build(const struct l2_table *old, uint32_t n_max)
{
	uint32_t cap = 16;
	while (cap < 2 * n_max)
		cap <<= 1;
	struct l2_table *t = calloc(1, sizeof(*t) + (size_t)(cap + n_max) * sizeof(t->storage[0]));
	if (t == NULL)
		return NULL;
	t->mask = cap - 1;
	t->slots = t->storage;
	t->list = t->storage + cap;
	t->flood_unknown = old ? old->flood_unknown : true;
	t->flood_bcast = old ? old->flood_bcast : true;
	return t;
}

static void table_put(struct l2_table *t, uint64_t mac, uint16_t port)
{
	uint32_t i = mac_hash(mac) & t->mask;
	while (t->slots[i].mac != 0)
		i = (i + 1) & t->mask;
	t->slots[i].mac = mac;
	t->slots[i].port = port;
	t->list[t->n].mac = mac;
	t->list[t->n].port = port;
	t->n++;
}

/* A copy of the current table with mac set to port (port < 0: removed). */
static struct l2_table *table_edit(uint64_t mac, int port)
{
	const struct l2_table *old = table;
	struct l2_table *t = table_build(old, old->n + 1);
	if (t == NULL)
		return NULL;
	bool done = false;
	for (uint32_t i = 0; i < old->n; i++) {
		if (old->list[i].mac != mac) {
			table_put(t, old->list[i].mac, old->list[i].port);
		} else if (port >= 0) {
			table_put(t, mac, (uint16_t)port);
			done = true;
		}
	}
	if (!done && port >= 0)
		table_put(t, mac, (uint16_t)port);
	return t;
}

static int l2_enable(struct isw_reg **regs, char *err, size_t errlen)
{
	RTE_SET_USED(regs);
	RTE_SET_USED(err);
	RTE_SET_USED(errlen);
	struct l2_table *t = table_build(NULL, 0);
	if (t == NULL)
		return -ENOMEM;
	isw_rcu_publish((void **)&table, t, free);
	return 0;
}

static void l2_disable(void)
{
	isw_rcu_publish((void **)&table, NULL, free);
}

static int arg_mac(struct isw_cmd_ctx *c, const char *s, uint64_t *mac)
{
	uint8_t a[6];
	if (isw_arg_mac(c, s, "mac", a) < 0)
		return -EINVAL;
	if (a[0] & 1)
		return isw_cmd_err(c, EINVAL, "mac: %s is a multicast address", s);
	*mac = mac_u64(a);
	if (*mac == 0)
		return isw_cmd_err(c, EINVAL, "mac: 00:00:00:00:00:00 is not a station address");
	return 0;
}

static int cmd_l2_add(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint64_t mac;
	uint16_t port;
	if (isw_arg_count(c, argc, 2, 2) < 0 || arg_mac(c, argv[0], &mac) < 0 ||
	    isw_arg_port(c, argv[1], &port) < 0)
		return -EINVAL;
	bool replaced = lookup(table, mac) >= 0;
	if (!replaced && table->n >= L2_ENTRIES_MAX)
		return isw_cmd_err(c, ENOSPC, "MAC table full (%u entries)", L2_ENTRIES_MAX);
	struct l2_table *t = table_edit(mac, port);
	if (t == NULL)
		return isw_cmd_err(c, ENOMEM, "no memory for the MAC table");
	isw_rcu_publish((void **)&table, t, free);
	isw_json_bool(c->out, "replaced", replaced);
	return 0;
}
ISW_CMD_REGISTER(l2_add, "l2 add", "MAC PORT", "send frames for MAC out of PORT (replaces)",
                 cmd_l2_add)

static int cmd_l2_del(struct isw_cmd_ctx *c, int argc, char **argv)
{
	uint64_t mac;
	if (isw_arg_count(c, argc, 1, 1) < 0 || arg_mac(c, argv[0], &mac) < 0)
		return -EINVAL;
	if (lookup(table, mac) < 0)
		return isw_cmd_err(c, ENOENT, "%s is not in the MAC table", argv[0]);
	struct l2_table *t = table_edit(mac, -1);
	if (t == NULL)
		return isw_cmd_err(c, ENOMEM, "no memory for the MAC table");
	isw_rcu_publish((void **)&table, t, free);
	return 0;
}
ISW_CMD_REGISTER(l2_del, "l2 del", "MAC", "remove a MAC table entry", cmd_l2_del)

static int cmd_l2_show(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	const struct l2_table *t = table;
	isw_json_bool(c->out, "flood_unknown", t->flood_unknown);
	isw_json_bool(c->out, "flood_broadcast", t->flood_bcast);
	isw_json_arr_open(c->out, "entries");
	for (uint32_t i = 0; i < t->n; i++) {
		uint8_t a[6];
		char buf[18];
		for (int k = 0; k < 6; k++)
			a[k] = (uint8_t)(t->list[i].mac >> (40 - 8 * k));
		isw_json_obj_open(c->out, NULL);
		isw_json_str_kv(c->out, "mac", isw_fmt_mac(a, buf));
		isw_json_u64(c->out, "port", t->list[i].port);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(l2_show, "l2 show", "", "show the MAC table and flooding settings", cmd_l2_show)

static int cmd_l2_flood(struct isw_cmd_ctx *c, int argc, char **argv)
{
	bool on, unknown = true, bcast = true;
	if (isw_arg_count(c, argc, 1, 2) < 0)
		return -EINVAL;
	if (argc == 2) {
		if (strcmp(argv[0], "unknown") == 0)
			bcast = false;
		else if (strcmp(argv[0], "broadcast") == 0)
			unknown = false;
		else
			return isw_cmd_err(c, EINVAL, "'%s' is not unknown or broadcast", argv[0]);
	}
	if (isw_arg_onoff(c, argv[argc - 1], "flood", &on) < 0)
		return -EINVAL;
	struct l2_table *t = table_edit(0, -1); /* a plain copy: MAC 0 is never present */
	if (t == NULL)
		return isw_cmd_err(c, ENOMEM, "no memory for the MAC table");
	if (unknown)
		t->flood_unknown = on;
	if (bcast)
		t->flood_bcast = on;
	isw_rcu_publish((void **)&table, t, free);
	return 0;
}
ISW_CMD_REGISTER(l2_flood, "l2 flood", "[unknown|broadcast] on|off",
                 "flood unknown unicast and/or broadcast+multicast to all other ports",
                 cmd_l2_flood)

static const struct isw_table_decl l2_tables[] = {
        {"mac", 0, L2_ENTRIES_MAX, 8},
};

static const struct isw_asic_decl l2_asic = {
        .pipeline = "l2",
        .tables = l2_tables,
        .nb_tables = RTE_DIM(l2_tables),
};

static struct isw_pipeline l2 = {
        .name = "l2",
        .help = "Ethernet forwarding: static MAC table, flooding (always on, always last)",
        .order = INT32_MAX,
        .always = true,
        .asic = &l2_asic,
        .enable = l2_enable,
        .disable = l2_disable,
        .process = l2_process,
        .process_burst = l2_process_burst,
};
ISW_PIPELINE_REGISTER(l2)
