/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapgen's shared parts: capture output, header and frame builders, argument parsing. Used by
 * pcapgen.c (l2 scenario, seq, bench, main), pcapgen_syncagtr.c (the SyncAgtr scenarios and
 * benchmark traffic), pcapgen_atp.c (the same for ATP), pcapgen_ask.c (the ASK scenario) and
 * pcapgen_ask_bench.c (the ASK benchmark traffic).
 * Nothing here knows about the switch: the expected outputs are each scenario's own model of the
 * documented behaviour.
 */
#ifndef ISW_PCAPGEN_H
#define ISW_PCAPGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <pcap/pcap.h>

#define FRAME_MIN 60   /* smallest Ethernet frame, without FCS */
#define FRAME_MAX 9014 /* jumbo frame, without FCS */
#define COUNT_MAX 100000000UL
#define ETH_LEN   14
#define VLAN_LEN  4
#define IP4_LEN   20
#define IP6_LEN   40
#define UDP_LEN   8
#define ICMP_LEN  8
#define ARP_LEN   28
#define SNAPLEN   65535
#define TS_BASE   1700000000 /* capture time of every file: fixed, so output is reproducible */

#define ETHERTYPE_IP4  0x0800
#define ETHERTYPE_ARP  0x0806
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_IP6  0x86dd
#define PROTO_ICMP     1
#define PROTO_TCP      6
#define PROTO_UDP      17
#define PROTO_ICMP6    58

/* The golden tests run the switch with one worker and --burst 32 (tests/pcap/golden.sh). */
#define GOLDEN_BURST 32

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

struct frame {
	uint32_t len;
	uint8_t b[FRAME_MAX];
};

extern const char *prog;

/* ---- Output ---- */

struct writer {
	const char *path;
	pcap_t *p;
	pcap_dumper_t *d;
	uint64_t n;
};

int writer_open(struct writer *w, const char *path);
void writer_put(struct writer *w, const uint8_t *b, uint32_t len);
/* The same, stamped TS_BASE + n * 10 us: a scenario's inputs carry their place n in the
 * processing order, the same on every port, so `inswitch --replay-ordered` replays them in it. */
void writer_put_nth(struct writer *w, const uint8_t *b, uint32_t len, uint64_t n);
int writer_close(struct writer *w);
int write_text(const char *path, const char *text);
int make_dir(const char *cmd, const char *dir);

/*
 * A golden scenario made of a frame table (each frame entering one port) and a model of the
 * switch: scenario_write() writes DIR/in-pN.pcap, runs every frame through the model in the
 * order tests/pcap/golden.sh makes the switch process them (each round, up to GOLDEN_BURST
 * frames of port 0, then port 1, ...; the table must be written in that order, or it says so),
 * collects the outputs the model gives scenario_expect() into DIR/expect-pN.pcap, and writes
 * DIR/frames.txt (header, then one line per frame from the model) and DIR/config.
 */
struct scenario {
	const char *name; /* the pcapgen command, "syncagtr" */
	unsigned nports;
	unsigned nframes;
	unsigned (*port_of)(unsigned idx);
	/* false: frames are processed in the order one worker with --burst GOLDEN_BURST takes
	 * them (port 0's burst, port 1's, ...), which the table must follow; true: in table order
	 * whatever their ports, as `inswitch --replay-ordered` replays them (golden.sh ordered). */
	bool ordered;
	void (*build)(struct frame *f, unsigned idx);
	/* Frame idx, built in f, enters port in this round: report its outputs with
	 * scenario_expect() and describe it in one manifest line. */
	void (*process)(void *model, const struct frame *f, unsigned idx, unsigned port,
	                unsigned round, FILE *manifest);
	int (*write_config)(const char *dir);
};

/* Within process(): f must leave by port. */
void scenario_expect(unsigned port, const struct frame *f);

/* What a scenario's model says one input frame does: the frames it sends out and why. */
#define SCENARIO_OUT_MAX 4 /* e.g. 3 replicas, an ACK to 2 ports, or an l2 flood to 3 */
struct scenario_out {
	unsigned n;
	unsigned port[SCENARIO_OUT_MAX];
	struct frame f[SCENARIO_OUT_MAX];
	char why[320];
};

/* Appends b (len bytes) leaving by port to o. */
void scenario_out_add(struct scenario_out *o, unsigned port, const uint8_t *b, uint32_t len);

/*
 * Within process(): expects o's frames (scenario_expect()) and writes the manifest line of frame
 * idx (f, described by what, padded to width) entering in_port in this round.
 */
void scenario_report(FILE *manifest, unsigned in_port, unsigned idx, unsigned round,
                     const struct frame *f, const char *what, int width,
                     const struct scenario_out *o);

/* A host in a scenario's static MAC table (its config's `l2 add MAC PORT`). */
struct scenario_host {
	uint8_t mac[6];
	unsigned port;
};

/*
 * The l2 pipeline in its default configuration (pcaps/README.md, the l2 scenario) with the
 * table hosts[0..n-1], on a switch of nports ports: what frame b (len bytes) entering port in
 * does goes to o, its reason "<pre>l2: ..." to o->why.
 */
void scenario_l2(const uint8_t *b, uint32_t len, unsigned in, unsigned nports,
                 const struct scenario_host *hosts, unsigned n, const char *pre,
                 struct scenario_out *o);

/* Returns the exit status of the pcapgen command: 0, or 1 with a message on stderr. */
int scenario_write(const struct scenario *s, const char *dir, void *model, const char *header);

/* ---- Header builders ---- */

void put16(uint8_t *p, uint16_t v);
void put32(uint8_t *p, uint32_t v);
uint16_t get16(const uint8_t *p);
uint32_t get32(const uint8_t *p);
uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n);
uint16_t csum_fold(uint32_t sum);
void eth_put(uint8_t *b, const uint8_t *dst, const uint8_t *src, uint16_t type);
void fill(uint8_t *p, size_t n, uint32_t seed);
void ip4_put(uint8_t *ip, uint8_t proto, uint32_t src, uint32_t dst, uint16_t tot_len, uint16_t id);

struct udp4 {
	const uint8_t *dst, *src;
	uint32_t ip_src, ip_dst;
	uint16_t sport, dport, id;
	uint32_t seed;
	const uint8_t *prefix; /* payload starts with these bytes; the rest is filler */
	size_t prefix_len;
};

void build_udp4(struct frame *f, uint32_t size, const struct udp4 *u);
void build_icmp4_echo(struct frame *f, uint32_t size, const uint8_t *dst, const uint8_t *src,
                      uint32_t ip_src, uint32_t ip_dst, bool reply, uint16_t seq);
void build_arp(struct frame *f, const uint8_t *dst, const uint8_t *src, uint32_t spa, uint32_t tpa,
               bool reply);
void add_vlan(struct frame *f, uint16_t vid);

/* ---- Arguments ---- */

int parse_mac(const char *s, uint8_t *mac);
void mac_str(char *buf, const uint8_t *mac);
void ip_str(char *buf, uint32_t ip);
int parse_num(const char *s, unsigned long min, unsigned long max, unsigned long *out);

struct opts {
	const char *cmd;
	const char *out;
	bool has_count, has_size, has_dst, has_flows;
	unsigned long count, size, flows;
	uint8_t src[6], dst[6];
	/* syncagtr-bench */
	unsigned long workers, slots, elems;
	/* atp-bench */
	unsigned long agtrs;
	const char *config; /* --config FILE: also write the switch's start-up commands */
};

int parse_opts(struct opts *o, int argc, char **argv, const char *const *allowed);
int require(const struct opts *o, bool has, const char *name);

/* ---- Subcommands in other files ---- */

int cmd_syncagtr(int argc, char **argv);
int cmd_syncagtr_region(int argc, char **argv);
int cmd_syncagtr_bench(int argc, char **argv);
int cmd_atp(int argc, char **argv);
int cmd_atp_bench(int argc, char **argv);
int cmd_atp_ports(int argc, char **argv);
int cmd_atp_region(int argc, char **argv);
int cmd_ask(int argc, char **argv);
int cmd_ask_bench(int argc, char **argv);

#endif
