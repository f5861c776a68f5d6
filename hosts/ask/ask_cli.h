/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command-line options ask-sender, ask-receiver and ask-count share (task shape, inputs,
 * output format), parsed in one place so the three tools cannot read them differently.
 */
#ifndef ISW_ASK_CLI_H
#define ISW_ASK_CLI_H

#include <getopt.h>

#include "ask_host.h"
#include "hx.h"

#define ASK_DEF_TASK      1u
#define ASK_DEF_WINDOW    64u
#define ASK_DEF_SLOTS     16u
#define ASK_DEF_KEY_BYTES 8u
#define ASK_DEF_AA_SIZE   4096u

struct ask_cli {
	unsigned task, channel, channels, window, slots, key_bytes;
	unsigned incarnation; /* ask-receiver --incarnation: its first choice (0: a random one) */
	uint32_t job;         /* --job: the run's token (0: none) */
	enum ask_op op;
	enum ask_kfmt kfmt;
	int json;
	enum hx_kind transport; /* ask_cli_defaults(): HX_AUTO */
	int busy_poll;
	struct ask_src *src; /* the inputs, in order (NULL until the first) */
	unsigned ninputs;
};

/* getopt_long() codes of the shared options (all long-only); each tool's own start at 300. */
enum {
	ASK_CLI_TASK = 200,
	ASK_CLI_CHANNEL,
	ASK_CLI_CHANNELS,
	ASK_CLI_WINDOW,
	ASK_CLI_SLOTS,
	ASK_CLI_KEY_BYTES,
	ASK_CLI_OP,
	ASK_CLI_KEY_FORMAT,
	ASK_CLI_JSON,
	ASK_CLI_WORDS,
	ASK_CLI_TUPLES,
	ASK_CLI_ZIPF,
	ASK_CLI_INCARNATION,
	ASK_CLI_TRANSPORT,
	ASK_CLI_BUSY_POLL,
	ASK_CLI_JOB,
};

/* The shared entries of a tool's struct option table, by what they are about: every tool's
 * (key width, --json), the inputs (ask-sender, ask-count), the output table (ask-receiver,
 * ask-count) and the network (ask-sender, ask-receiver; --channel, the sender's first channel,
 * is the sender's own). A tool takes only the groups it uses, so it accepts no option it would
 * ignore. */
/* clang-format off */
#define ASK_CLI_LONGOPTS_COMMON \
	{"key-bytes", required_argument, NULL, ASK_CLI_KEY_BYTES}, \
	{"json", no_argument, NULL, ASK_CLI_JSON}
#define ASK_CLI_LONGOPTS_INPUT \
	{"words", required_argument, NULL, ASK_CLI_WORDS}, \
	{"tuples", required_argument, NULL, ASK_CLI_TUPLES}, \
	{"zipf", required_argument, NULL, ASK_CLI_ZIPF}
#define ASK_CLI_LONGOPTS_OUTPUT \
	{"op", required_argument, NULL, ASK_CLI_OP}, \
	{"key-format", required_argument, NULL, ASK_CLI_KEY_FORMAT}
#define ASK_CLI_LONGOPTS_NET \
	{"task", required_argument, NULL, ASK_CLI_TASK}, \
	{"job", required_argument, NULL, ASK_CLI_JOB}, \
	{"channels", required_argument, NULL, ASK_CLI_CHANNELS}, \
	{"window", required_argument, NULL, ASK_CLI_WINDOW}, \
	{"slots", required_argument, NULL, ASK_CLI_SLOTS}, \
	{"transport", required_argument, NULL, ASK_CLI_TRANSPORT}, \
	{"busy-poll", no_argument, NULL, ASK_CLI_BUSY_POLL}
/* clang-format on */

/* Help lines of the shared options. */
#define ASK_CLI_HELP_TASK                                                                        \
	"  --task ID            task id (default 1)\n"                                           \
	"  --job TOKEN          the run's token, 1..4294967295: the receiver takes senders of\n" \
	"                       its token only (default none: any sender of the task)\n"         \
	"  --window W           packets in flight per channel, a power of two (default 64)\n"    \
	"  --slots S            slots per packet, 1..32 (default 16)\n"                          \
	"  --key-bytes KB       key width of a slot: 4, 8 or 16 (default 8)\n"
#define ASK_CLI_HELP_INPUT                                                                       \
	"  --words FILE         every whitespace-separated word of FILE -> (word, 1)\n"          \
	"  --tuples FILE        lines \"key value\" (value -2^31..2^32-1)\n"                     \
	"  --zipf K,S,N,SEED    N tuples of 8-byte keys 0..K-1 (big-endian), Zipf(S), value 1\n" \
	"                       (each input option may repeat: read in order)\n"
#define ASK_CLI_HELP_TRANSPORT                                                           \
	"  --transport T        xdp, socket or auto (the default: AF_XDP where it can\n" \
	"                       be set up; hosts/README.md, The transport); one line\n"  \
	"                       on stderr says which\n"                                  \
	"  --busy-poll          AF_XDP: spin on the rings instead of sleeping\n"
#define ASK_CLI_HELP_OUTPUT                                                                       \
	"  --op add|max|min     operator (default add: wrapping 32-bit; max, min signed)\n"       \
	"  --key-format F       text (padding stripped; control bytes as \\xHH, a backslash as\n" \
	"                       \\\\), u64 or hex (default text)\n"
#define ASK_CLI_HELP_HELP "  --help               this text\n"

/* Defaults: task 1, channel 0, 1 channel, the ASK_DEF_* shape, add, text. */
void ask_cli_defaults(struct ask_cli *c);

/*
 * If opt (a getopt_long() result, table lo) is a shared option, applies arg and returns 1, or
 * prints why arg is bad (naming the option) and returns -1; returns 0 for any other option.
 */
int ask_cli_option(struct ask_cli *c, int opt, const char *arg, const struct option *lo);

/* Writes t to path ("-": stdout) in the --key-format. 0, or -1 after a message. */
int ask_cli_write_table(const struct ask_cli *c, const struct ask_table *t, const char *path);

#endif
