/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command registry. Each module registers its commands from a constructor
 * (ISW_CMD_REGISTER); nothing central lists them. A command line is split into words, the
 * longest registered path that prefixes it is chosen, and its handler gets the remaining words.
 * The reply is one JSON object: {"ok":true,...} with the handler's members, or
 * {"ok":false,"error":"...","code":"ENOENT"} (ctl_reply.h; the codes and what each means are in
 * docs/ctl.md, Error codes).
 *
 * A handler checks all its arguments before it changes anything, so a refused command has no
 * effect. Commands run on the control thread, one at a time.
 */
#ifndef ISW_CMD_H
#define ISW_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_common.h>

#include "json.h"

#define ISW_CMD_LINE_MAX 4096
#define ISW_CMD_ARGS_MAX 64
#define ISW_CMD_ERR_MAX  512

struct isw_cmd;

struct isw_cmd_ctx {
	struct isw_json *out;      /* the handler adds members to the open reply object */
	const struct isw_cmd *cmd; /* the command being run */
	char err[ISW_CMD_ERR_MAX];
	int code; /* the errno of err when isw_cmd_err() set it, else 0 */
};

typedef int (*isw_cmd_fn)(struct isw_cmd_ctx *c, int argc, char **argv);

struct isw_cmd {
	const char *path;  /* words, e.g. "mc group create" */
	const char *usage; /* arguments after the path, e.g. "GROUP" */
	const char *help;  /* one line */
	isw_cmd_fn fn;
	STAILQ_ENTRY(isw_cmd) next;
};

void isw_cmd_register(struct isw_cmd *cmd);

#define ISW_CMD_REGISTER(id, path_, usage_, help_, fn_)                            \
	static struct isw_cmd isw_cmd_##id = {                                     \
	        .path = (path_), .usage = (usage_), .help = (help_), .fn = (fn_)}; \
	RTE_INIT(isw_cmd_register_##id)                                            \
	{                                                                          \
		isw_cmd_register(&isw_cmd_##id);                                   \
	}

/*
 * Runs one command line and writes the whole reply object into out (reset first). Blank lines
 * and lines starting with '#' give {"ok":true}. Returns 0 if the command succeeded, else
 * -errno, the errno the reply's "code" names (the reply carries the message).
 */
int isw_cmd_exec(const char *line, struct isw_json *out);

/*
 * The same for a line of len bytes that may hold any byte (what a socket or a file gave): a NUL
 * or another control byte (below 0x20 but tab, or 0x7f) anywhere in it is an error naming the
 * byte and its offset; one carriage return just before the end (a CRLF line) is dropped.
 */
int isw_cmd_exec_n(const char *line, size_t len, struct isw_json *out);

/*
 * Splits line into words in place: whitespace separates, double quotes group, backslash escapes
 * inside quotes. Returns the word count, or -EINVAL (unterminated quote) / -E2BIG (too many).
 */
int isw_cmd_split(char *line, char **argv, int max);

/* Runs every line of a file; stops at the first error, with "FILE:LINE: message" in err. */
int isw_cmd_exec_file(const char *path, char *err, size_t errlen);

/*
 * Registers fn to run after every command that succeeded (a configuration change may follow
 * from it): for state derived from the whole configuration, such as what a NIC shared with the
 * kernel hands the switch. At most ISW_CMD_HOOKS_MAX; -ENOSPC beyond.
 */
#define ISW_CMD_HOOKS_MAX 4
int isw_cmd_on_success(void (*fn)(void));

/* Iteration over registered commands in path order, for help; NULL starts. */
const struct isw_cmd *isw_cmd_next(const struct isw_cmd *cmd);

/*
 * Sets c->err and the reply's code e (a positive errno value; docs/ctl.md, Error codes, says
 * which fits which case) and returns -e; for handlers. The code goes with the message: a handler
 * that returns another -errno after this still replies with e.
 */
int isw_cmd_err(struct isw_cmd_ctx *c, int e, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Argument parsers for handlers: each fills *out or sets a message naming what and returns <0. */
int isw_arg_u32(struct isw_cmd_ctx *c, const char *s, const char *what, uint32_t min, uint32_t max,
                uint32_t *out);
int isw_arg_u64(struct isw_cmd_ctx *c, const char *s, const char *what, uint64_t *out);
int isw_arg_pct(struct isw_cmd_ctx *c, const char *s, const char *what, double *out);
int isw_arg_mac(struct isw_cmd_ctx *c, const char *s, const char *what, uint8_t mac[6]);
int isw_arg_ipv4(struct isw_cmd_ctx *c, const char *s, const char *what, uint32_t *out_be);
int isw_arg_onoff(struct isw_cmd_ctx *c, const char *s, const char *what, bool *out);
/* A port that exists. */
int isw_arg_port(struct isw_cmd_ctx *c, const char *s, uint16_t *out);
/* Demands between lo and hi arguments, quoting the command's usage on error. */
int isw_arg_count(struct isw_cmd_ctx *c, int argc, int lo, int hi);

/* KEY VALUE options after a command's positional arguments. */
struct isw_kv {
	const char *key;
	const char *val; /* NULL unless given */
};

/* Fills kv[].val from argv (KEY VALUE ...): each key at most once and known, every key with a
 * value. Returns 0 or -EINVAL with the error set. */
int isw_arg_kv(struct isw_cmd_ctx *c, int argc, char **argv, struct isw_kv *kv, unsigned n);

/*
 * A comma-separated list: copies s into buf (len bytes) and points f[0..] at its elements.
 * Refuses an empty element ("0,,1", ",1", "1,") and more than max. Returns the count or -EINVAL
 * with the error set, naming what.
 */
int isw_arg_list(struct isw_cmd_ctx *c, const char *s, const char *what, char *buf, size_t len,
                 char **f, unsigned max);

/* "P[,P...]" (switch ports) into a mask, bit p for port p. A port may be listed more than once
 * (several workers behind one port). what names the list in errors. Returns 0 or -EINVAL with
 * the error set. */
int isw_arg_port_list(struct isw_cmd_ctx *c, const char *s, const char *what, uint32_t *mask);

/* Formats a port mask as "0,2,5" into buf (len bytes; "" for none). */
char *isw_fmt_port_list(uint32_t mask, char *buf, size_t len);

/* Formats a MAC as "02:00:00:00:00:01" into buf (18 bytes). */
char *isw_fmt_mac(const uint8_t mac[6], char *buf);

/*
 * Periodic control-thread work (e.g. a pipeline folding ports its workers learned into its
 * configuration): the control thread calls every registered tick about every
 * ISW_TICK_MS milliseconds, between commands, so a tick never races a command.
 */
#define ISW_TICK_MS 100

struct isw_tick {
	void (*fn)(void);
	STAILQ_ENTRY(isw_tick) next;
};

void isw_tick_register(struct isw_tick *t);
/* Runs every registered tick once. */
void isw_tick_run(void);

#define ISW_TICK_REGISTER(id, fn_)                            \
	static struct isw_tick isw_tick_##id = {.fn = (fn_)}; \
	RTE_INIT(isw_tick_register_##id)                      \
	{                                                     \
		isw_tick_register(&isw_tick_##id);            \
	}

#endif
