/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapgen: writes the captures the pcap golden tests replay (pcaps/<scenario>/) and the traffic
 * of the fault-injection and benchmark tests. This file: the shared helpers, the l2 scenario, seq,
 * bench and main; pcapgen_syncagtr.c: the SyncAgtr scenarios and its benchmark traffic;
 * pcapgen_atp.c: the same for ATP; pcapgen_ask.c: the ASK scenario; pcapgen_ask_bench.c: the ASK
 * benchmark traffic.
 *
 * The expected outputs of a scenario are computed here from the switch's documented behaviour,
 * never from the switch's code, so a golden test checks the switch against its specification and
 * not against itself. Output is deterministic (fixed timestamps, no randomness): the same command
 * always writes byte-identical files, which is how tests/pcap checks that the checked-in captures
 * are what this generator makes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pcapgen.h"
#include "../pipelines/atp/atp_proto.h"

/* The seq frames' UDP ports; pcapcmp --seq recognises the frames by the destination port. */
#define SEQ_SPORT 40000
#define SEQ_DPORT 9 /* discard */

const char *prog = "pcapgen";

/* ---- Output ---------------------------------------------------------------------------- */

int writer_open(struct writer *w, const char *path)
{
	w->path = path;
	w->n = 0;
	w->p = pcap_open_dead(DLT_EN10MB, SNAPLEN);
	if (w->p == NULL) {
		fprintf(stderr, "%s: pcap_open_dead failed\n", prog);
		return -ENOMEM;
	}
	w->d = pcap_dump_open(w->p, path);
	if (w->d == NULL) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, pcap_geterr(w->p));
		pcap_close(w->p);
		return -EIO;
	}
	return 0;
}

void writer_put_nth(struct writer *w, const uint8_t *b, uint32_t len, uint64_t n)
{
	struct pcap_pkthdr h = {
	        .ts.tv_sec = TS_BASE + (time_t)(n / 100000),
	        .ts.tv_usec = (suseconds_t)(n % 100000) * 10,
	        .caplen = len,
	        .len = len,
	};
	pcap_dump((u_char *)w->d, &h, b);
	w->n++;
}

/* Frame n of a file is stamped TS_BASE + n * 10 us. */
void writer_put(struct writer *w, const uint8_t *b, uint32_t len)
{
	writer_put_nth(w, b, len, w->n);
}

int writer_close(struct writer *w)
{
	int rc = 0;

	if (pcap_dump_flush(w->d) != 0 || ferror(pcap_dump_file(w->d))) {
		fprintf(stderr, "%s: error writing %s\n", prog, w->path);
		rc = -EIO;
	}
	pcap_dump_close(w->d);
	pcap_close(w->p);
	return rc;
}

/* ---- Header builders ------------------------------------------------------------------- */

void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* One's-complement sum of 16-bit big-endian words; only the last chunk may have odd length. */
uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

void eth_put(uint8_t *b, const uint8_t *dst, const uint8_t *src, uint16_t type)
{
	memcpy(b, dst, 6);
	memcpy(b + 6, src, 6);
	put16(b + 12, type);
}

/* Deterministic filler, different per frame so a misplaced payload shows. */
void fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

void ip4_put(uint8_t *ip, uint8_t proto, uint32_t src, uint32_t dst, uint16_t tot_len, uint16_t id)
{
	ip[0] = 0x45;
	ip[1] = 0;
	put16(ip + 2, tot_len);
	put16(ip + 4, id);
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = proto;
	put16(ip + 10, 0);
	put32(ip + 12, src);
	put32(ip + 16, dst);
	put16(ip + 10, csum_fold(csum_add(0, ip, IP4_LEN)));
}

/* Checksum of an L4 segment over the IPv4 or IPv6 pseudo-header; ip points at the IP header. */
static uint16_t l4_csum(const uint8_t *ip, bool v6, uint8_t proto, const uint8_t *l4, size_t len)
{
	uint8_t tail[8] = {0};
	uint32_t sum;

	if (v6) {
		sum = csum_add(0, ip + 8, 32);
		put32(tail, (uint32_t)len);
		tail[7] = proto;
		sum = csum_add(sum, tail, 8);
	} else {
		sum = csum_add(0, ip + 12, 8);
		tail[1] = proto;
		put16(tail + 2, (uint16_t)len);
		sum = csum_add(sum, tail, 4);
	}
	return csum_fold(csum_add(sum, l4, len));
}

/* UDP header and payload at l4 (len bytes in all); payload filled unless prefilled. */
static void udp_put(uint8_t *l4, size_t len, const uint8_t *ip, bool v6, uint16_t sport,
                    uint16_t dport)
{
	uint16_t c;

	put16(l4, sport);
	put16(l4 + 2, dport);
	put16(l4 + 4, (uint16_t)len);
	put16(l4 + 6, 0);
	c = l4_csum(ip, v6, PROTO_UDP, l4, len);
	put16(l4 + 6, c == 0 ? 0xffff : c);
}

/* ---- Frame builders -------------------------------------------------------------------- */

/* An IPv4/UDP frame of exactly size bytes (size >= ETH_LEN + IP4_LEN + UDP_LEN + prefix). */
void build_udp4(struct frame *f, uint32_t size, const struct udp4 *u)
{
	uint8_t *ip = f->b + ETH_LEN, *l4 = ip + IP4_LEN, *pl = l4 + UDP_LEN;
	size_t plen = size - ETH_LEN - IP4_LEN - UDP_LEN;

	eth_put(f->b, u->dst, u->src, ETHERTYPE_IP4);
	ip4_put(ip, PROTO_UDP, u->ip_src, u->ip_dst, (uint16_t)(size - ETH_LEN), u->id);
	fill(pl, plen, u->seed);
	if (u->prefix_len)
		memcpy(pl, u->prefix, u->prefix_len);
	udp_put(l4, size - ETH_LEN - IP4_LEN, ip, false, u->sport, u->dport);
	f->len = size;
}

void build_icmp4_echo(struct frame *f, uint32_t size, const uint8_t *dst, const uint8_t *src,
                      uint32_t ip_src, uint32_t ip_dst, bool reply, uint16_t seq)
{
	uint8_t *ip = f->b + ETH_LEN, *icmp = ip + IP4_LEN;
	size_t len = size - ETH_LEN - IP4_LEN;

	eth_put(f->b, dst, src, ETHERTYPE_IP4);
	ip4_put(ip, PROTO_ICMP, ip_src, ip_dst, (uint16_t)(size - ETH_LEN), seq);
	icmp[0] = reply ? 0 : 8;
	icmp[1] = 0;
	put16(icmp + 2, 0);
	put16(icmp + 4, 0x1234); /* identifier */
	put16(icmp + 6, seq);
	fill(icmp + ICMP_LEN, len - ICMP_LEN, seq);
	put16(icmp + 2, csum_fold(csum_add(0, icmp, len)));
	f->len = size;
}

/* ARP request (who-has tpa, to broadcast) or reply (tpa is-at, to dst); padded to 60 bytes. */
void build_arp(struct frame *f, const uint8_t *dst, const uint8_t *src, uint32_t spa, uint32_t tpa,
               bool reply)
{
	static const uint8_t zero[6];
	uint8_t *a = f->b + ETH_LEN;

	memset(f->b, 0, FRAME_MIN);
	eth_put(f->b, dst, src, ETHERTYPE_ARP);
	put16(a, 1);
	put16(a + 2, ETHERTYPE_IP4);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, reply ? 2 : 1);
	memcpy(a + 8, src, 6);
	put32(a + 14, spa);
	memcpy(a + 18, reply ? dst : zero, 6);
	put32(a + 24, tpa);
	f->len = FRAME_MIN;
}

static void ip6_put(uint8_t *ip, uint8_t next, const uint8_t *src, const uint8_t *dst,
                    uint16_t plen)
{
	put32(ip, 0x60000000);
	put16(ip + 4, plen);
	ip[6] = next;
	ip[7] = 255;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
}

/* fe80::ff:fe00:N, the link-local address of host MAC 02:00:00:00:00:N (modified EUI-64). */
static void ip6_link_local(uint8_t *a, const uint8_t *mac)
{
	memset(a, 0, 16);
	a[0] = 0xfe;
	a[1] = 0x80;
	a[8] = mac[0] ^ 0x02;
	a[9] = mac[1];
	a[10] = mac[2];
	a[11] = 0xff;
	a[12] = 0xfe;
	a[13] = mac[3];
	a[14] = mac[4];
	a[15] = mac[5];
}

/* IPv6 multicast group for a 33:33:xx:xx:xx:xx MAC: ff02::xxxx:xxxx (link-local scope). */
static void ip6_group(uint8_t *a, const uint8_t *mac)
{
	memset(a, 0, 16);
	a[0] = 0xff;
	a[1] = 0x02;
	if (mac[2] == 0xff) /* solicited-node: ff02::1:ffxx:xxxx */
		a[11] = 0x01;
	memcpy(a + 12, mac + 2, 4);
}

/*
 * IPv6 frame to a 33:33 group: UDP of size bytes (icmp_type 0), or an ICMPv6 router solicitation
 * (133) or neighbour solicitation (135), whose size is fixed by its content.
 */
static void build_ip6(struct frame *f, uint32_t size, const uint8_t *dst, const uint8_t *src,
                      uint8_t icmp_type, uint32_t seed)
{
	uint8_t *ip = f->b + ETH_LEN, *l4 = ip + IP6_LEN;
	uint8_t s[16], d[16];
	size_t len;

	ip6_link_local(s, src);
	ip6_group(d, dst);
	eth_put(f->b, dst, src, ETHERTYPE_IP6);
	if (icmp_type == 0) {
		len = size - ETH_LEN - IP6_LEN;
		ip6_put(ip, PROTO_UDP, s, d, (uint16_t)len);
		fill(l4 + UDP_LEN, len - UDP_LEN, seed);
		udp_put(l4, len, ip, true, (uint16_t)(10000 + seed), 5000);
		f->len = size;
		return;
	}
	len = icmp_type == 135 ? 32 : 16; /* header, [target,] source link-layer address option */
	memset(l4, 0, len);
	l4[0] = icmp_type;
	if (icmp_type == 135) {
		/* target: fe80::ff:fe00:N, whose solicited-node group is the destination */
		ip6_link_local(l4 + 8, (const uint8_t[]){0x02, 0, 0, dst[3], dst[4], dst[5]});
	}
	l4[len - 8] = 1; /* option: source link-layer address */
	l4[len - 7] = 1;
	memcpy(l4 + len - 6, src, 6);
	ip6_put(ip, PROTO_ICMP6, s, d, (uint16_t)len);
	put16(l4 + 2, l4_csum(ip, true, PROTO_ICMP6, l4, len));
	f->len = (uint32_t)(ETH_LEN + IP6_LEN + len);
}

/* Inserts an 802.1Q tag with the given VLAN id after the MAC addresses. */
void add_vlan(struct frame *f, uint16_t vid)
{
	memmove(f->b + 12 + VLAN_LEN, f->b + 12, f->len - 12);
	put16(f->b + 12, ETHERTYPE_VLAN);
	put16(f->b + 14, vid & 0x0fff);
	f->len += VLAN_LEN;
}

/* ---- Argument parsing ------------------------------------------------------------------ */

int parse_mac(const char *s, uint8_t *mac)
{
	unsigned v[6];
	char tail;
	int i;

	if (strlen(s) != 17 || sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3],
	                              &v[4], &v[5], &tail) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return 0;
}

void mac_str(char *buf, const uint8_t *mac)
{
	sprintf(buf, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
	        mac[5]);
}

void ip_str(char *buf, uint32_t ip)
{
	sprintf(buf, "%u.%u.%u.%u", ip >> 24, ip >> 16 & 0xff, ip >> 8 & 0xff, ip & 0xff);
}

/* Strict decimal in [min, max]. */
int parse_num(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* Known options per subcommand: "--count" and so on; NULL-terminated. */
static int opt_allowed(const char *const *allowed, const char *name)
{
	for (; *allowed != NULL; allowed++)
		if (strcmp(*allowed, name) == 0)
			return 1;
	return 0;
}

static int opt_set(struct opts *o, const char *name, const char *val)
{
	const char *what = NULL;

	if (strcmp(name, "--count") == 0) {
		o->has_count = true;
		if (parse_num(val, 1, COUNT_MAX, &o->count) != 0)
			what = "a number of frames from 1 to 100000000";
	} else if (strcmp(name, "--size") == 0) {
		o->has_size = true;
		if (parse_num(val, FRAME_MIN, FRAME_MAX, &o->size) != 0)
			what = "a frame size in bytes without FCS, from 60 to 9014";
	} else if (strcmp(name, "--flows") == 0) {
		o->has_flows = true;
		if (parse_num(val, 1, 1UL << 22, &o->flows) != 0)
			what = "a number of flows from 1 to 4194304";
	} else if (strcmp(name, "--src") == 0) {
		if (parse_mac(val, o->src) != 0)
			what = "a MAC address xx:xx:xx:xx:xx:xx";
	} else if (strcmp(name, "--dst") == 0) {
		o->has_dst = true;
		if (parse_mac(val, o->dst) != 0)
			what = "a MAC address xx:xx:xx:xx:xx:xx";
	} else if (strcmp(name, "--workers") == 0) {
		if (parse_num(val, 1, 32, &o->workers) != 0)
			what = "a number of workers from 1 to 32";
	} else if (strcmp(name, "--slots") == 0) {
		if (parse_num(val, 1, 16384, &o->slots) != 0)
			what = "a number of slots from 1 to 16384";
	} else if (strcmp(name, "--elems") == 0) {
		if (parse_num(val, 64, 256, &o->elems) != 0 || (o->elems != 64 && o->elems != 256))
			what = "64 or 256 elements";
	} else if (strcmp(name, "--agtrs") == 0) {
		if (parse_num(val, 1, ATP_AGTR_MAX, &o->agtrs) != 0)
			what = "a number of aggregators from 1 to 20000";
	} else if (strcmp(name, "--config") == 0) {
		o->config = val;
	}
	if (what != NULL) {
		fprintf(stderr, "%s %s: %s wants %s, got '%s'\n", prog, o->cmd, name, what, val);
		return -EINVAL;
	}
	return 0;
}

/* Parses "OUT [--opt VALUE | --opt=VALUE]..." for the seq and bench subcommands. */
int parse_opts(struct opts *o, int argc, char **argv, const char *const *allowed)
{
	char name[32];
	const char *val, *eq;
	int i;

	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "--", 2) != 0) {
			if (o->out != NULL) {
				fprintf(stderr, "%s %s: unexpected argument '%s'\n", prog, o->cmd,
				        argv[i]);
				return -EINVAL;
			}
			o->out = argv[i];
			continue;
		}
		eq = strchr(argv[i], '=');
		if (eq != NULL) {
			snprintf(name, sizeof(name), "%.*s", (int)(eq - argv[i]), argv[i]);
			val = eq + 1;
		} else {
			snprintf(name, sizeof(name), "%s", argv[i]);
			val = i + 1 < argc ? argv[++i] : NULL;
		}
		if (!opt_allowed(allowed, name)) {
			fprintf(stderr, "%s %s: unknown option '%s'\n", prog, o->cmd, name);
			return -EINVAL;
		}
		if (val == NULL) {
			fprintf(stderr, "%s %s: %s needs a value\n", prog, o->cmd, name);
			return -EINVAL;
		}
		if (opt_set(o, name, val) != 0)
			return -EINVAL;
	}
	if (o->out == NULL) {
		fprintf(stderr, "%s %s: missing output file (OUT.pcap)\n", prog, o->cmd);
		return -EINVAL;
	}
	return 0;
}

int require(const struct opts *o, bool has, const char *name)
{
	if (!has)
		fprintf(stderr, "%s %s: %s is required\n", prog, o->cmd, name);
	return has ? 0 : -EINVAL;
}

/* ---- seq and bench --------------------------------------------------------------------- */

static int cmd_seq(int argc, char **argv)
{
	static const char *const allowed[] = {"--count", "--size", "--src", "--dst", NULL};
	struct opts o = {.cmd = "seq",
	                 .size = 64,
	                 .src = {0x02, 0, 0, 0, 0, 0x01},
	                 .dst = {0x02, 0, 0, 0, 0, 0x02}};
	uint8_t seqbuf[4];
	struct udp4 u = {.dst = o.dst,
	                 .src = o.src,
	                 .ip_src = IP(10, 0, 0, 1),
	                 .ip_dst = IP(10, 0, 0, 2),
	                 .sport = SEQ_SPORT,
	                 .dport = SEQ_DPORT,
	                 .prefix = seqbuf,
	                 .prefix_len = sizeof(seqbuf)};
	struct frame *f;
	struct writer w;
	unsigned long i;
	int rc;

	if (parse_opts(&o, argc, argv, allowed) != 0 || require(&o, o.has_count, "--count") != 0)
		return 2;
	f = malloc(sizeof(*f));
	if (f == NULL || writer_open(&w, o.out) != 0) {
		free(f);
		return 1;
	}
	for (i = 0; i < o.count; i++) {
		put32(seqbuf, (uint32_t)i);
		u.id = (uint16_t)i;
		u.seed = (uint32_t)i;
		build_udp4(f, (uint32_t)o.size, &u);
		writer_put(&w, f->b, f->len);
	}
	rc = writer_close(&w);
	free(f);
	return rc == 0 ? 0 : 1;
}

static int cmd_bench(int argc, char **argv)
{
	static const char *const allowed[] = {"--count", "--size",  "--src",
	                                      "--dst",   "--flows", NULL};
	struct opts o = {.cmd = "bench", .flows = 1, .src = {0x02, 0, 0, 0, 0, 0xfe}};
	struct udp4 u = {.dst = o.dst, .src = o.src, .ip_dst = IP(10, 0, 0, 2), .dport = 5000};
	struct frame *f;
	struct writer w;
	unsigned long i;
	uint32_t k;
	int rc;

	if (parse_opts(&o, argc, argv, allowed) != 0 || require(&o, o.has_size, "--size") != 0 ||
	    require(&o, o.has_count, "--count") != 0 || require(&o, o.has_dst, "--dst") != 0)
		return 2;
	if (o.flows > o.count) {
		fprintf(stderr,
		        "%s bench: --flows (%lu) exceeds --count (%lu): some flows would "
		        "never be sent\n",
		        prog, o.flows, o.count);
		return 2;
	}
	f = malloc(sizeof(*f));
	if (f == NULL || writer_open(&w, o.out) != 0) {
		free(f);
		return 1;
	}
	for (i = 0; i < o.count; i++) {
		/* Flow k: source 10.128.0.1 + k, source port 1024 + k mod 64512. */
		k = (uint32_t)(i % o.flows);
		u.ip_src = IP(10, 128, 0, 1) + k;
		u.sport = (uint16_t)(1024 + k % 64512);
		u.id = (uint16_t)i;
		u.seed = (uint32_t)i;
		build_udp4(f, (uint32_t)o.size, &u);
		writer_put(&w, f->b, f->len);
	}
	rc = writer_close(&w);
	free(f);
	return rc == 0 ? 0 : 1;
}

/* ---- The l2 golden scenario ------------------------------------------------------------ */

#define L2_PORTS 3

/* The switch's static MAC table in this scenario (written to DIR/config). */
/* clang-format off */
static const struct l2_entry {
	uint8_t mac[6];
	unsigned port;
} l2_table[] = {
	{{0x02, 0, 0, 0, 0, 0x01}, 0},
	{{0x02, 0, 0, 0, 0, 0x02}, 1},
};
/* clang-format on */

/*
 * What the l2 pipeline does with a frame in its default configuration, from its documented
 * semantics: a frame shorter than an Ethernet header is dropped; a group destination (I/G bit
 * set: broadcast or multicast) or an unknown unicast one is flooded to every port but the ingress
 * port; a known unicast destination goes out of its port, unless that is the ingress port
 * (hairpin: dropped). Frames are never modified. Returns the mask of output ports.
 */
static uint32_t l2_expect(const uint8_t *b, uint32_t len, unsigned in, const char **why)
{
	uint32_t others = ((1u << L2_PORTS) - 1) & ~(1u << in);
	size_t i;

	if (len < ETH_LEN) {
		*why = "runt: drop";
		return 0;
	}
	if (b[0] & 1) {
		*why = "group address: flood";
		return others;
	}
	for (i = 0; i < sizeof(l2_table) / sizeof(l2_table[0]); i++) {
		if (memcmp(b, l2_table[i].mac, 6) != 0)
			continue;
		*why = l2_table[i].port == in ? "known, on ingress port: hairpin drop" : "known";
		return l2_table[i].port == in ? 0 : 1u << l2_table[i].port;
	}
	*why = "unknown unicast: flood";
	return others;
}

enum l2_kind {
	UDP4,       /* IPv4/UDP of the given size */
	UDP4_VLAN,  /* the same, with an 802.1Q tag (size includes it) */
	ICMP_REQ,   /* ICMP echo request of the given size */
	ICMP_REPLY, /* ICMP echo reply */
	ARP_REQ,    /* who-has 10.0.0.<arg> */
	ARP_REPLY,  /* 10.0.0.<src> is-at, to dst */
	UDP6,       /* IPv6/UDP to the group of a 33:33 MAC */
	RS6,        /* ICMPv6 router solicitation to ff02::2 */
	NS6,        /* ICMPv6 neighbour solicitation to a solicited-node group */
	RAW,        /* the first size bytes of a UDP4 frame: runts and bare headers */
};

struct l2_spec {
	unsigned port;
	enum l2_kind kind;
	uint16_t size;
	uint8_t dst[6];
	uint8_t src; /* host number: MAC 02:00:00:00:00:src, IPv4 10.0.0.src */
	uint8_t arg;
	const char *what;
};

/* clang-format off */
#define H(n)    {0x02, 0, 0, 0, 0, n}
#define BCAST   {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
#define V4MC    {0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb}
#define V6MC(n) {0x33, 0x33, 0x00, 0x00, 0x00, n}
#define V6SN(n) {0x33, 0x33, 0xff, 0x00, 0x00, n}
#define IGONLY  {0x03, 0x00, 0x00, 0x00, 0x00, 0x01}
/* clang-format on */

/*
 * Hosts: 1 and 2 are in the table (ports 0 and 1); 3 (port 2) and 4 (port 1) are not; 9 does not
 * exist. Port 0 carries more than GOLDEN_BURST frames so the output order depends on the burst
 * rounds; its second round comes after host 3 and 4 have sent, so a switch that learned MAC
 * addresses (it must not, by default) would not flood the late frames to them.
 */
/* clang-format off */
static const struct l2_spec l2_frames[] = {
	/* port 0: host 1 */
	{0, ARP_REQ, 60, BCAST, 1, 2, "ARP request, broadcast"},
	{0, UDP4, 60, H(2), 1, 0, "UDP to a known host, minimum size"},
	{0, ICMP_REQ, 98, H(2), 1, 0, "ICMP echo request to a known host"},
	{0, UDP4, 1514, H(2), 1, 0, "UDP to a known host, maximum size"},
	{0, UDP4, 128, H(3), 1, 0, "UDP to host 3 (not in the table)"},
	{0, UDP4, 200, H(1), 1, 0, "UDP to host 1 from its own port"},
	{0, RAW, 10, H(2), 1, 0, "10-byte runt to a known host"},
	{0, UDP6, 300, V6MC(0xfb), 1, 0, "IPv6 UDP to ff02::fb"},
	{0, RAW, 13, H(2), 1, 0, "13-byte runt to a known host"},
	{0, RAW, 14, H(2), 1, 0, "bare 14-byte Ethernet header to a known host"},
	{0, UDP4_VLAN, 102, H(2), 1, 0, "802.1Q-tagged UDP to a known host"},
	{0, UDP4, 90, V4MC, 1, 0, "IPv4 UDP to 224.0.0.251"},
	{0, UDP4, 70, IGONLY, 1, 0, "UDP to a group address that is neither IPv4 nor IPv6"},
	{0, ICMP_REQ, 98, H(9), 1, 0, "ICMP echo request to a MAC nobody has"},
	{0, UDP4, 61, H(2), 1, 0, "UDP to a known host"},
	{0, UDP4, 64, H(2), 1, 0, "UDP to a known host"},
	{0, UDP4, 65, H(4), 1, 0, "UDP to host 4 (not in the table)"},
	{0, UDP4, 127, H(2), 1, 0, "UDP to a known host"},
	{0, UDP4, 256, H(2), 1, 0, "UDP to a known host"},
	{0, UDP4, 511, H(1), 1, 0, "UDP to host 1 from its own port"},
	{0, UDP4, 512, H(2), 1, 0, "UDP to a known host"},
	{0, UDP4, 1000, H(3), 1, 0, "UDP to host 3 (not in the table)"},
	{0, UDP4, 1023, H(2), 1, 0, "UDP to a known host"},
	{0, UDP4, 1024, BCAST, 1, 0, "UDP broadcast"},
	{0, UDP4, 1499, H(2), 1, 0, "UDP to a known host"},
	{0, UDP4, 1500, H(2), 1, 0, "UDP to a known host"},
	{0, UDP4, 1513, H(2), 1, 0, "UDP to a known host"},
	{0, ICMP_REQ, 74, H(2), 1, 0, "ICMP echo request to a known host"},
	{0, UDP4, 333, H(2), 1, 0, "UDP to a known host"},
	{0, UDP4, 777, H(9), 1, 0, "UDP to a MAC nobody has"},
	{0, UDP4, 100, H(2), 1, 0, "UDP to a known host"},
	{0, UDP4, 66, H(2), 1, 0, "UDP to a known host, last of the first burst"},
	/* port 0, second burst round: after ports 1 and 2 have sent */
	{0, UDP4, 150, H(3), 1, 0, "UDP to host 3, after host 3 sent (no learning)"},
	{0, UDP4, 151, H(4), 1, 0, "UDP to host 4, after host 4 sent (no learning)"},
	{0, UDP4, 152, H(2), 1, 0, "UDP to a known host"},
	{0, UDP4, 153, H(1), 1, 0, "UDP to host 1 from its own port"},
	{0, RAW, 12, BCAST, 1, 0, "12-byte runt to broadcast"},
	{0, ARP_REQ, 60, BCAST, 1, 3, "ARP request, broadcast"},
	{0, ICMP_REQ, 1514, H(2), 1, 0, "ICMP echo request to a known host, maximum size"},
	{0, UDP4, 60, H(2), 1, 0, "UDP to a known host, last frame"},
	/* port 1: hosts 2 and 4 */
	{1, ARP_REPLY, 60, H(1), 2, 0, "ARP reply to host 1"},
	{1, UDP4, 60, H(1), 2, 0, "UDP to a known host"},
	{1, UDP4, 400, H(2), 2, 0, "UDP to host 2 from its own port"},
	{1, ICMP_REPLY, 98, H(1), 2, 0, "ICMP echo reply to a known host"},
	{1, UDP4, 180, H(3), 4, 0, "UDP from host 4 to host 3 (neither in the table)"},
	{1, UDP4, 342, BCAST, 4, 0, "UDP broadcast"},
	{1, NS6, 0, V6SN(0x01), 2, 0, "ICMPv6 neighbour solicitation"},
	{1, UDP4, 1514, H(1), 2, 0, "UDP to a known host, maximum size"},
	{1, RAW, 10, H(1), 2, 0, "10-byte runt to a known host"},
	{1, UDP4, 75, H(1), 4, 0, "UDP from host 4 to a known host"},
	/* port 2: host 3 */
	{2, ARP_REQ, 60, BCAST, 3, 1, "ARP request, broadcast"},
	{2, UDP4, 60, H(1), 3, 0, "UDP to a known host"},
	{2, UDP4, 222, H(2), 3, 0, "UDP to a known host"},
	{2, ICMP_REQ, 98, H(2), 3, 0, "ICMP echo request to a known host"},
	{2, UDP4, 90, H(3), 3, 0, "UDP to host 3 (unknown) from host 3's own port"},
	{2, RS6, 0, V6MC(0x02), 3, 0, "ICMPv6 router solicitation"},
	{2, UDP4, 600, H(4), 3, 0, "UDP to host 4 (not in the table)"},
	{2, UDP4, 1514, H(1), 3, 0, "UDP to a known host, maximum size"},
};
/* clang-format on */

#define L2_NFRAMES (sizeof(l2_frames) / sizeof(l2_frames[0]))

static uint32_t l2_ip(const uint8_t *mac, bool is_dst)
{
	if (!is_dst || (mac[0] & 1) == 0)
		return IP(10, 0, 0, mac[5]);
	return mac[0] == 0x01 && mac[1] == 0x00 && mac[2] == 0x5e ? IP(224, 0, 0, mac[5])
	                                                          : IP(10, 0, 0, 255);
}

static void l2_build(struct frame *f, const struct l2_spec *s, unsigned idx)
{
	const uint8_t src[6] = H(s->src);
	struct udp4 u = {.dst = s->dst,
	                 .src = src,
	                 .ip_src = l2_ip(src, false),
	                 .ip_dst = l2_ip(s->dst, true),
	                 .sport = (uint16_t)(10000 + idx),
	                 .dport = 5000,
	                 .id = (uint16_t)idx,
	                 .seed = idx};

	switch (s->kind) {
	case UDP4:
		build_udp4(f, s->size, &u);
		break;
	case UDP4_VLAN:
		build_udp4(f, s->size - VLAN_LEN, &u);
		add_vlan(f, 10);
		break;
	case ICMP_REQ:
	case ICMP_REPLY:
		build_icmp4_echo(f, s->size, s->dst, src, u.ip_src, u.ip_dst, s->kind == ICMP_REPLY,
		                 (uint16_t)idx);
		break;
	case ARP_REQ:
		build_arp(f, s->dst, src, u.ip_src, IP(10, 0, 0, s->arg), false);
		break;
	case ARP_REPLY:
		build_arp(f, s->dst, src, u.ip_src, u.ip_dst, true);
		break;
	case UDP6:
		build_ip6(f, s->size, s->dst, src, 0, idx);
		break;
	case RS6:
		build_ip6(f, 0, s->dst, src, 133, idx);
		break;
	case NS6:
		build_ip6(f, 0, s->dst, src, 135, idx);
		break;
	case RAW:
		build_udp4(f, FRAME_MIN, &u);
		f->len = s->size;
		break;
	}
}

/* Creates a scenario's directory (an existing one is fine). */
int make_dir(const char *cmd, const char *dir)
{
	int e;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		e = errno;
		fprintf(stderr, "%s %s: cannot create %s: %s\n", prog, cmd, dir, strerror(e));
		return -e;
	}
	return 0;
}

/* ---- Golden scenarios (pcapgen.h) ------------------------------------------------------ */

struct scen_port {
	unsigned *idx; /* the frames entering this port, in table order */
	unsigned n, next;
	struct writer win, wout;
};

static struct scen_port *scen_ports; /* of the scenario being written */

void scenario_expect(unsigned port, const struct frame *f)
{
	writer_put(&scen_ports[port].wout, f->b, f->len);
}

void scenario_out_add(struct scenario_out *o, unsigned port, const uint8_t *b, uint32_t len)
{
	o->port[o->n] = port;
	memcpy(o->f[o->n].b, b, len);
	o->f[o->n].len = len;
	o->n++;
}

void scenario_report(FILE *manifest, unsigned in_port, unsigned idx, unsigned round,
                     const struct frame *f, const char *what, int width,
                     const struct scenario_out *o)
{
	char ports[64] = "";
	for (unsigned i = 0; i < o->n; i++) {
		sprintf(ports + strlen(ports), " p%u", o->port[i]);
		scenario_expect(o->port[i], &o->f[i]);
	}
	fprintf(manifest, "p%u #%-2u round %u %4u B  %-*s -> %s:%s\n", in_port, idx, round + 1,
	        f->len, width, what, o->why, o->n ? ports : " none");
}

void scenario_l2(const uint8_t *b, uint32_t len, unsigned in, unsigned nports,
                 const struct scenario_host *hosts, unsigned n, const char *pre,
                 struct scenario_out *o)
{
	const struct scenario_host *h = NULL;
	const char *why = "unknown unicast: flood";

	if (len < ETH_LEN) {
		snprintf(o->why, sizeof(o->why), "%sl2: runt: drop", pre);
		return;
	}
	for (unsigned i = 0; i < n && !(b[0] & 1); i++)
		if (memcmp(b, hosts[i].mac, 6) == 0)
			h = &hosts[i];
	if (h != NULL && h->port == in) {
		snprintf(o->why, sizeof(o->why), "%sl2: known, on the ingress port: drop", pre);
		return;
	}
	if (h != NULL) {
		snprintf(o->why, sizeof(o->why), "%sl2: known destination", pre);
		scenario_out_add(o, h->port, b, len);
		return;
	}
	if (b[0] & 1)
		why = "group address: flood";
	snprintf(o->why, sizeof(o->why), "%sl2: %s", pre, why);
	for (unsigned p = 0; p < nports; p++)
		if (p != in)
			scenario_out_add(o, p, b, len);
}

static int scen_run(const struct scenario *s, void *model, FILE *manifest, struct frame *f)
{
	unsigned seen = 0;
	int rc = 0;
	bool more = true;
	if (s->ordered) {
		for (unsigned idx = 0; idx < s->nframes; idx++) {
			s->build(f, idx);
			s->process(model, f, idx, s->port_of(idx), 0, manifest);
		}
		return 0;
	}
	for (unsigned round = 0; more; round++) {
		more = false;
		for (unsigned p = 0; p < s->nports; p++) {
			struct scen_port *sp = &scen_ports[p];
			for (unsigned k = 0; k < GOLDEN_BURST && sp->next < sp->n;
			     k++, sp->next++) {
				unsigned idx = sp->idx[sp->next];
				if (idx != seen++) {
					fprintf(stderr,
					        "%s %s: frame %u is processed in place %u: reorder "
					        "the table\n",
					        prog, s->name, idx, seen - 1);
					rc = -EINVAL;
				}
				s->build(f, idx);
				s->process(model, f, idx, p, round, manifest);
			}
			more |= sp->next < sp->n;
		}
	}
	return rc;
}

int scenario_write(const struct scenario *s, const char *dir, void *model, const char *header)
{
	char path[4096];
	int rc = 0;
	if (make_dir(s->name, dir) != 0)
		return 1;
	scen_ports = calloc(s->nports, sizeof(*scen_ports));
	struct frame *f = malloc(sizeof(*f));
	for (unsigned p = 0; scen_ports != NULL && p < s->nports; p++)
		if ((scen_ports[p].idx = calloc(s->nframes, sizeof(unsigned))) == NULL)
			rc = -ENOMEM;
	if (scen_ports == NULL || f == NULL || rc != 0) {
		fprintf(stderr, "%s %s: out of memory\n", prog, s->name);
		return 1;
	}
	for (unsigned i = 0; i < s->nframes; i++) {
		struct scen_port *sp = &scen_ports[s->port_of(i)];
		sp->idx[sp->n++] = i;
	}
	for (unsigned p = 0; p < s->nports; p++) {
		struct scen_port *sp = &scen_ports[p];
		snprintf(path, sizeof(path), "%s/in-p%u.pcap", dir, p);
		if (writer_open(&sp->win, path) != 0)
			return 1;
		snprintf(path, sizeof(path), "%s/expect-p%u.pcap", dir, p);
		if (writer_open(&sp->wout, path) != 0)
			return 1;
		for (unsigned i = 0; i < sp->n; i++) {
			s->build(f, sp->idx[i]);
			writer_put_nth(&sp->win, f->b, f->len, sp->idx[i]);
		}
	}
	snprintf(path, sizeof(path), "%s/frames.txt", dir);
	FILE *manifest = fopen(path, "w");
	if (manifest == NULL) {
		fprintf(stderr, "%s %s: cannot write %s: %s\n", prog, s->name, path,
		        strerror(errno));
		return 1;
	}
	fputs(header, manifest);
	rc |= scen_run(s, model, manifest, f);
	for (unsigned p = 0; p < s->nports; p++) {
		rc |= writer_close(&scen_ports[p].win);
		rc |= writer_close(&scen_ports[p].wout);
		free(scen_ports[p].idx);
	}
	free(scen_ports);
	scen_ports = NULL;
	free(f);
	if (fclose(manifest) != 0)
		rc = -EIO;
	rc |= s->write_config(dir);
	return rc == 0 ? 0 : 1;
}

int write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	int bad;

	if (fp == NULL) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
		return -errno;
	}
	bad = fputs(text, fp) < 0;
	bad |= fclose(fp) != 0;
	if (bad) {
		fprintf(stderr, "%s: error writing %s\n", prog, path);
		return -EIO;
	}
	return 0;
}

static int l2_write_config(const char *dir)
{
	char path[4096], line[64], mac[18], text[1024];
	size_t i;

	snprintf(text, sizeof(text),
	         "# l2 golden scenario: the switch's start-up commands.\n"
	         "# Written by `pcapgen l2`; do not edit, regenerate (pcaps/README.md).\n");
	for (i = 0; i < sizeof(l2_table) / sizeof(l2_table[0]); i++) {
		mac_str(mac, l2_table[i].mac);
		snprintf(line, sizeof(line), "l2 add %s %u\n", mac, l2_table[i].port);
		strcat(text, line);
	}
	snprintf(path, sizeof(path), "%s/config", dir);
	return write_text(path, text);
}

/* One line per input frame, for whoever has to read a failing golden test. */
static void l2_describe(FILE *fp, const struct l2_spec *s, unsigned idx, unsigned round,
                        const struct frame *f, uint32_t mask, const char *why)
{
	char dst[18], ports[32] = "";
	unsigned p;

	mac_str(dst, s->dst);
	for (p = 0; p < L2_PORTS; p++)
		if (mask & (1u << p))
			sprintf(ports + strlen(ports), " p%u", p);
	fprintf(fp, "p%u #%-2u round %u %4u B  dst %s  %-58s -> %s:%s\n", s->port, idx, round + 1,
	        f->len, dst, s->what, why, mask ? ports : " none");
}

struct l2_in {
	const struct l2_spec *s;
	struct frame f;
	unsigned order; /* its place in the processing order (l2_run) */
};

struct l2_port {
	struct l2_in *in;
	unsigned n, next;
	struct writer win, wout;
};

/* Runs the order model: each round takes up to GOLDEN_BURST frames from port 0, then port 1 ... */
static void l2_run(struct l2_port *ports, FILE *manifest)
{
	unsigned round, p, k, q, seen = 0;
	const char *why;
	uint32_t mask;
	bool more = true;

	for (round = 0; more; round++) {
		more = false;
		for (p = 0; p < L2_PORTS; p++) {
			struct l2_port *lp = &ports[p];

			for (k = 0; k < GOLDEN_BURST && lp->next < lp->n; k++, lp->next++) {
				struct l2_in *in = &lp->in[lp->next];

				in->order = seen++;
				mask = l2_expect(in->f.b, in->f.len, p, &why);
				l2_describe(manifest, in->s, lp->next, round, &in->f, mask, why);
				for (q = 0; q < L2_PORTS; q++)
					if (mask & (1u << q))
						writer_put(&ports[q].wout, in->f.b, in->f.len);
			}
			more |= lp->next < lp->n;
		}
	}
}

static int l2_open(struct l2_port *ports, const char *dir)
{
	static char paths[L2_PORTS][2][4096];
	unsigned p;

	for (p = 0; p < L2_PORTS; p++) {
		snprintf(paths[p][0], sizeof(paths[p][0]), "%s/in-p%u.pcap", dir, p);
		snprintf(paths[p][1], sizeof(paths[p][1]), "%s/expect-p%u.pcap", dir, p);
		if (writer_open(&ports[p].win, paths[p][0]) != 0 ||
		    writer_open(&ports[p].wout, paths[p][1]) != 0)
			return -EIO;
	}
	return 0;
}

static int cmd_l2(int argc, char **argv)
{
	struct l2_port ports[L2_PORTS] = {{0}};
	char path[4096];
	FILE *manifest;
	unsigned p, i;
	int rc = 0;

	if (argc != 1 || strncmp(argv[0], "--", 2) == 0) {
		fprintf(stderr, "usage: %s l2 DIR\n", prog);
		return 2;
	}
	if (mkdir(argv[0], 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "%s l2: cannot create %s: %s\n", prog, argv[0], strerror(errno));
		return 1;
	}
	for (p = 0; p < L2_PORTS; p++) {
		ports[p].in = calloc(L2_NFRAMES, sizeof(struct l2_in));
		if (ports[p].in == NULL)
			return 1;
	}
	for (i = 0; i < L2_NFRAMES; i++) {
		struct l2_port *lp = &ports[l2_frames[i].port];

		lp->in[lp->n].s = &l2_frames[i];
		l2_build(&lp->in[lp->n].f, &l2_frames[i], i);
		lp->n++;
	}
	snprintf(path, sizeof(path), "%s/frames.txt", argv[0]);
	manifest = fopen(path, "w");
	if (manifest == NULL) {
		fprintf(stderr, "%s l2: cannot write %s: %s\n", prog, path, strerror(errno));
		return 1;
	}
	fprintf(manifest,
	        "# Input frames of the l2 golden scenario in the order the switch processes "
	        "them (one worker, --burst %u),\n# and where each must go. Written by "
	        "`pcapgen l2`; do not edit.\n",
	        GOLDEN_BURST);
	if (l2_open(ports, argv[0]) != 0)
		return 1;
	l2_run(ports, manifest);
	/* Each input stamped with its place in the processing order, as scenario_write() does. */
	for (p = 0; p < L2_PORTS; p++)
		for (i = 0; i < ports[p].n; i++)
			writer_put_nth(&ports[p].win, ports[p].in[i].f.b, ports[p].in[i].f.len,
			               ports[p].in[i].order);
	for (p = 0; p < L2_PORTS; p++) {
		rc |= writer_close(&ports[p].win);
		rc |= writer_close(&ports[p].wout);
		free(ports[p].in);
	}
	if (fclose(manifest) != 0)
		rc = -EIO;
	rc |= l2_write_config(argv[0]);
	return rc == 0 ? 0 : 1;
}

/* ---- main ------------------------------------------------------------------------------ */

static void usage(FILE *fp)
{
	fprintf(fp,
	        "usage: %s l2 DIR\n"
	        "       %s seq OUT.pcap --count N [--size BYTES] [--src MAC] [--dst MAC]\n"
	        "       %s bench OUT.pcap --size BYTES --count N --dst MAC [--flows K]\n"
	        "                        [--src MAC]\n"
	        "       %s syncagtr DIR\n"
	        "       %s syncagtr-region DIR\n"
	        "       %s syncagtr-bench OUT.pcap [--workers W] [--slots N] [--elems 64|256]\n"
	        "                        [--config FILE]\n"
	        "       %s atp DIR\n"
	        "       %s atp-ports DIR\n"
	        "       %s atp-region DIR\n"
	        "       %s atp-bench OUT.pcap [--workers W] [--agtrs N] [--config FILE]\n"
	        "       %s ask DIR\n"
	        "       %s ask-bench OUT.pcap [--count N] [--dst MAC] [--src MAC] [--config FILE]\n"
	        "\n"
	        "l2     the l2 golden scenario for 3 ports: DIR/in-pN.pcap (input of port N),\n"
	        "       DIR/expect-pN.pcap (what must leave port N), DIR/config (start-up\n"
	        "       commands), DIR/frames.txt (each input frame and where it must go)\n"
	        "seq    N IPv4/UDP frames to UDP port %d whose payload starts with a 32-bit\n"
	        "       big-endian sequence number 0..N-1; BYTES 60..9014 (default 64); MACs\n"
	        "       02:00:00:00:00:01 -> 02:00:00:00:00:02 by default\n"
	        "bench  N IPv4/UDP frames of exactly BYTES bytes (60..9014, without FCS) to\n"
	        "       MAC, cycling through K distinct 5-tuples (default 1): flow k is\n"
	        "       10.128.0.1+k:1024+(k mod 64512) -> 10.0.0.2:5000; src MAC by default\n"
	        "       02:00:00:00:00:fe\n"
	        "syncagtr\n"
	        "       the SyncAgtr golden scenario for 4 ports, files as for l2\n"
	        "syncagtr-region\n"
	        "       SyncAgtr sessions whose region the config changes: the change's edge\n"
	        "       cases (docs/memory.md), for inswitch --replay-ordered, files as for l2\n"
	        "syncagtr-bench\n"
	        "       SwitchML packets from W workers (default 8; MAC 02:00:00:00:01:rr, IP\n"
	        "       10.0.1.r+1) to 00:11:22:33:44:55 / 10.0.0.254, session 1: slots\n"
	        "       0..N-1 (default 256) set 0, then set 1, each from every worker, so\n"
	        "       that a replay in a loop aggregates correctly for ever; W*N*2 frames of\n"
	        "       64 (default) or 256 elements; tsi = frame number. The switch's config\n"
	        "       (workers on port 1) goes to stdout, or to FILE with --config\n"
	        "atp    the ATP golden scenario for 4 ports, files as for l2\n"
	        "atp-ports\n"
	        "       ATP with every worker and PS on its own port, for inswitch\n"
	        "       --replay-ordered (inputs stamped in processing order), files as for l2\n"
	        "atp-region\n"
	        "       as atp-ports, with app 1 given a region of its own by the config: the\n"
	        "       region change's edge cases (docs/memory.md), files as for l2\n"
	        "atp-bench\n"
	        "       ATP frames of app 1 from W workers (default 8) for aggregators\n"
	        "       0..N-1 (default 455), each followed by the PS's ACK that frees it, so\n"
	        "       that a replay in a loop aggregates for ever; N*(W+1) frames of 308\n"
	        "       bytes. Workers and PS are both behind port 0; the config goes to\n"
	        "       stdout, or to FILE with --config\n"
	        "ask    the ASK golden scenario for 4 ports, files as for l2\n"
	        "ask-bench\n"
	        "       N (default 4096) ASK DATA frames of task 1, channel 0, seq 0..N-1: 16\n"
	        "       slots of 8-byte Zipf keys (ask-sender's, s 1.1 over 100000 ids), all\n"
	        "       valid, value 1, from 10.0.0.1 to the receiver MAC (default\n"
	        "       02:00:00:00:00:02) / 10.0.0.2:42405; 258 bytes. The config (the task,\n"
	        "       receiver on port 1) goes to stdout, or to FILE with --config\n"
	        "\n"
	        "Exit status: 0 done, 1 I/O error, 2 bad arguments.\n",
	        prog, prog, prog, prog, prog, prog, prog, prog, prog, prog, prog, prog, SEQ_DPORT);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "l2") == 0)
		return cmd_l2(argc - 2, argv + 2);
	if (strcmp(argv[1], "seq") == 0)
		return cmd_seq(argc - 2, argv + 2);
	if (strcmp(argv[1], "bench") == 0)
		return cmd_bench(argc - 2, argv + 2);
	if (strcmp(argv[1], "syncagtr") == 0)
		return cmd_syncagtr(argc - 2, argv + 2);
	if (strcmp(argv[1], "syncagtr-region") == 0)
		return cmd_syncagtr_region(argc - 2, argv + 2);
	if (strcmp(argv[1], "syncagtr-bench") == 0)
		return cmd_syncagtr_bench(argc - 2, argv + 2);
	if (strcmp(argv[1], "atp") == 0)
		return cmd_atp(argc - 2, argv + 2);
	if (strcmp(argv[1], "atp-bench") == 0)
		return cmd_atp_bench(argc - 2, argv + 2);
	if (strcmp(argv[1], "atp-ports") == 0)
		return cmd_atp_ports(argc - 2, argv + 2);
	if (strcmp(argv[1], "atp-region") == 0)
		return cmd_atp_region(argc - 2, argv + 2);
	if (strcmp(argv[1], "ask") == 0)
		return cmd_ask(argc - 2, argv + 2);
	if (strcmp(argv[1], "ask-bench") == 0)
		return cmd_ask_bench(argc - 2, argv + 2);
	fprintf(stderr, "%s: unknown subcommand '%s'\n", prog, argv[1]);
	usage(stderr);
	return 2;
}
