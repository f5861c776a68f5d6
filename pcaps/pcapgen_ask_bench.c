/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapgen ask-bench: ASK DATA traffic for the benchmark (bench/run.sh, the ask case) and the
 * switch's start-up commands for it.
 *
 * One sender (02:00:00:00:00:01, 10.0.0.1, UDP port 40000) streams task 1, channel 0 to the
 * receiver (the --dst MAC, 10.0.0.2, UDP port 42405) behind switch port 1: N DATA frames of 16
 * slots of 8-byte keys, every slot valid, value 1. The keys are the ones `ask-sender --zipf`
 * makes (the host library's Zipf source: key id as 8 big-endian bytes, P(id) ~ 1/(id+1)^1.1
 * over 100000 ids, a fixed seed), each put in its subspace as a sender must (docs/ask.md): the
 * key of slot j is the next draw whose subspace is j, the draws of other subspaces passed over.
 * Seqs are 0..N-1, but a replay in a loop repeats them: the benchmark's askstamp pipeline
 * (bench/askstamp.c) renumbers each frame as it enters, so that every replayed frame aggregates.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapgen.h"
#include "../hosts/ask/ask_host.h"

#define ABK_TASK     1
#define ABK_SLOTS    16
#define ABK_KEYBYTES 8
#define ABK_KEYS     100000 /* Zipf key ids 0..ABK_KEYS-1 */
#define ABK_SKEW     1.1
#define ABK_SEED     1
#define ABK_WINDOW   4096
#define ABK_AA_SIZE  4096
#define ABK_RX_PORT  1 /* the switch port of the receiver: the benchmark's net_null sink */
#define ABK_SPORT    40000

static const uint32_t abk_src_ip = IP(10, 0, 0, 1);
static const uint32_t abk_rx_ip = IP(10, 0, 0, 2);

/* The task: senders on any port but the receiver's, so the replay enters port 0. */
static int abk_config(const struct opts *o)
{
	char mac[18], ip[16], text[256];

	mac_str(mac, o->dst);
	ip_str(ip, abk_rx_ip);
	snprintf(text, sizeof(text),
	         "ask task add %u receiver %s,%s,%u,%u channels 1 window %u slots %u key-bytes %u "
	         "op add aa-size %u\n",
	         ABK_TASK, mac, ip, ASK_UDP_PORT, ABK_RX_PORT, ABK_WINDOW, ABK_SLOTS, ABK_KEYBYTES,
	         ABK_AA_SIZE);
	if (o->config != NULL)
		return write_text(o->config, text);
	return fputs(text, stdout) < 0 || fflush(stdout) != 0 ? -EIO : 0;
}

/* The next key of the stream whose subspace is slot j. */
static int abk_key(struct ask_src *src, unsigned j, uint8_t *key)
{
	struct ask_tuple t;
	int rc;

	do {
		rc = ask_src_next(src, &t);
		if (rc <= 0)
			return rc < 0 ? rc : -ENODATA;
	} while (ask_key_slot(t.key, ABK_KEYBYTES, ABK_SLOTS) != j);
	memcpy(key, t.key, ABK_KEYBYTES);
	return 0;
}

/* Frame i's UDP payload at pay, its length in *len: the ASK header and 16 valid slots. */
static int abk_payload(struct ask_src *src, uint32_t i, uint8_t *pay, size_t *len)
{
	const struct ask_msg m = {.type = ASK_DATA,
	                          .task = ABK_TASK,
	                          .nslots = ABK_SLOTS,
	                          .key_bytes = ABK_KEYBYTES,
	                          .seq = i};
	uint8_t key[ABK_KEYBYTES];
	int rc;

	*len = ask_data_init(pay, &m);
	for (unsigned j = 0; j < ABK_SLOTS; j++) {
		if ((rc = abk_key(src, j, key)) < 0)
			return rc;
		ask_data_put(pay, ABK_KEYBYTES, j, key, 1);
	}
	return 0;
}

static int abk_write(const struct opts *o, struct ask_src *src)
{
	uint8_t pay[ASK_HDR_LEN + ABK_SLOTS * (ABK_KEYBYTES + ASK_VALUE_LEN)];
	struct udp4 u = {.dst = o->dst,
	                 .src = o->src,
	                 .ip_src = abk_src_ip,
	                 .ip_dst = abk_rx_ip,
	                 .sport = ABK_SPORT,
	                 .dport = ASK_UDP_PORT,
	                 .prefix = pay};
	struct frame *f = malloc(sizeof(*f));
	struct writer w;
	int rc = 0;

	if (f == NULL || writer_open(&w, o->out) != 0) {
		free(f);
		return -EIO;
	}
	for (unsigned long i = 0; i < o->count && rc == 0; i++) {
		rc = abk_payload(src, (uint32_t)i, pay, &u.prefix_len);
		u.id = (uint16_t)i;
		build_udp4(f, (uint32_t)(ASK_HDR_OFF + u.prefix_len), &u);
		writer_put(&w, f->b, f->len);
	}
	if (rc < 0)
		fprintf(stderr, "%s %s: the key source failed: %s\n", prog, o->cmd, strerror(-rc));
	rc |= writer_close(&w);
	free(f);
	return rc;
}

int cmd_ask_bench(int argc, char **argv)
{
	static const char *const allowed[] = {"--count", "--dst", "--src", "--config", NULL};
	struct opts o = {.cmd = "ask-bench",
	                 .count = 4096,
	                 .src = {0x02, 0, 0, 0, 0, 0x01},
	                 .dst = {0x02, 0, 0, 0, 0, 0x02}};
	const struct ask_zipf_spec z = {
	        .keys = ABK_KEYS, .count = UINT64_MAX, .seed = ABK_SEED, .s = ABK_SKEW};
	struct ask_src *src;
	int rc;

	if (parse_opts(&o, argc, argv, allowed) != 0)
		return 2;
	if (abk_config(&o) != 0)
		return 1;
	src = ask_src_new();
	if (src == NULL || ask_src_add_zipf(src, &z) != 0) {
		fprintf(stderr, "%s %s: no memory\n", prog, o.cmd);
		ask_src_free(src);
		return 1;
	}
	rc = abk_write(&o, src);
	ask_src_free(src);
	return rc == 0 ? 0 : 1;
}
