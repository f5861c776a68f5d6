/* SPDX-License-Identifier: BSD-3-Clause */
/* Command registry, line splitting and dispatch. Control thread only. */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "ctl_reply.h"

static STAILQ_HEAD(, isw_cmd) cmds = STAILQ_HEAD_INITIALIZER(cmds);

void isw_cmd_register(struct isw_cmd *cmd)
{
	/* Sorted by path, so help lists and "did you mean" hints are stable. */
	struct isw_cmd *prev = NULL, *it;
	STAILQ_FOREACH(it, &cmds, next)
	{
		if (strcmp(it->path, cmd->path) > 0)
			break;
		prev = it;
	}
	if (prev == NULL)
		STAILQ_INSERT_HEAD(&cmds, cmd, next);
	else
		STAILQ_INSERT_AFTER(&cmds, prev, cmd, next);
}

const struct isw_cmd *isw_cmd_next(const struct isw_cmd *cmd)
{
	return cmd == NULL ? STAILQ_FIRST(&cmds) : STAILQ_NEXT(cmd, next);
}

int isw_cmd_err(struct isw_cmd_ctx *c, int e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	c->code = e;
	return -e;
}

int isw_cmd_split(char *line, char **argv, int max)
{
	int argc = 0;
	char *r = line, *w = line;
	for (;;) {
		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (*r == '\0')
			return argc;
		if (argc == max)
			return -E2BIG;
		argv[argc++] = w;
		bool quoted = false;
		while (*r != '\0') {
			if (quoted) {
				if (*r == '"') {
					quoted = false;
					r++;
					continue;
				}
				if (*r == '\\' && (r[1] == '"' || r[1] == '\\'))
					r++;
				*w++ = *r++;
			} else if (*r == '"') {
				quoted = true;
				r++;
			} else if (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r') {
				break;
			} else {
				*w++ = *r++;
			}
		}
		if (quoted)
			return -EINVAL;
		/* Terminate the word; r may equal w, so step past the separator first. */
		if (*r != '\0')
			r++;
		*w++ = '\0';
	}
}

/* Number of words of path that match argv, or 0 unless all do. */
static int path_match(const char *path, int argc, char **argv)
{
	int n = 0;
	const char *p = path;
	while (*p) {
		const char *end = strchr(p, ' ');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (n >= argc || strlen(argv[n]) != len || strncmp(argv[n], p, len) != 0)
			return 0;
		n++;
		p += len;
		while (*p == ' ')
			p++;
	}
	return n;
}

/* True when the first k words of argv are the first k words of path. */
static bool path_prefix(const char *path, int k, char **argv, const char **rest)
{
	const char *p = path;
	for (int i = 0; i < k; i++) {
		size_t wl = strlen(argv[i]);
		if (strncmp(p, argv[i], wl) != 0 || (p[wl] != ' ' && p[wl] != '\0'))
			return false;
		p += wl;
		while (*p == ' ')
			p++;
	}
	*rest = p;
	return true;
}

/* Lists, comma-separated, the distinct words that may follow the first k words of argv. */
static bool next_words(int k, char **argv, char *buf, size_t len)
{
	size_t off = 0;
	const char *last = NULL;
	size_t last_len = 0;
	buf[0] = '\0';
	const struct isw_cmd *c;
	STAILQ_FOREACH(c, &cmds, next)
	{
		const char *rest;
		if (!path_prefix(c->path, k, argv, &rest) || *rest == '\0')
			continue;
		size_t wl = strcspn(rest, " ");
		if (last != NULL && wl == last_len && strncmp(last, rest, wl) == 0)
			continue; /* sorted, so duplicates are adjacent */
		last = rest;
		last_len = wl;
		int n = snprintf(buf + off, len - off, "%s%.*s", off ? ", " : "", (int)wl, rest);
		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
	}
	return off > 0;
}

static int dispatch(struct isw_cmd_ctx *c, int argc, char **argv)
{
	const struct isw_cmd *best = NULL, *it;
	int best_n = 0;
	STAILQ_FOREACH(it, &cmds, next)
	{
		int n = path_match(it->path, argc, argv);
		if (n > best_n) {
			best = it;
			best_n = n;
		}
	}
	if (best != NULL) {
		c->cmd = best;
		return best->fn(c, argc - best_n, argv + best_n);
	}

	/* No command: say how far the words got and what could come next. */
	char words[ISW_CMD_ERR_MAX / 2];
	int k = argc;
	while (k > 0 && !next_words(k, argv, words, sizeof(words)))
		k--;
	if (k == 0)
		return isw_cmd_err(c, EINVAL, "unknown command '%s' (try 'help')", argv[0]);
	if (k == argc)
		return isw_cmd_err(c, EINVAL, "incomplete command: '%s' expects one of: %s",
		                   argv[k - 1], words);
	return isw_cmd_err(c, EINVAL, "unknown command '%s' after '%s': expected one of: %s",
	                   argv[k], argv[k - 1], words);
}

static void (*hooks[ISW_CMD_HOOKS_MAX])(void);
static unsigned nb_hooks;

int isw_cmd_on_success(void (*fn)(void))
{
	for (unsigned i = 0; i < nb_hooks; i++)
		if (hooks[i] == fn)
			return 0;
	if (nb_hooks == ISW_CMD_HOOKS_MAX)
		return -ENOSPC;
	hooks[nb_hooks++] = fn;
	return 0;
}

/* isw_cmd_exec_n() with the context (and so the plain error message) kept by the caller. */
static int exec_ctx(const char *line, size_t len, struct isw_json *out, struct isw_cmd_ctx *cp)
{
	struct isw_cmd_ctx c = {.out = out};
	char buf[ISW_CMD_LINE_MAX];
	char *argv[ISW_CMD_ARGS_MAX];
	int rc;

	isw_json_reset(out);
	isw_json_obj_open(out, NULL);
	isw_json_bool(out, "ok", true);

	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len >= sizeof(buf)) {
		rc = isw_cmd_err(&c, E2BIG, "line too long (%zu bytes, at most %d)", len,
		                 ISW_CMD_LINE_MAX - 1);
		goto reply;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char b = (unsigned char)line[i];
		if ((b < 0x20 && b != '\t') || b == 0x7f) {
			rc = isw_cmd_err(
			        &c, EINVAL,
			        "control byte 0x%02x at offset %zu: a command line is text", b, i);
			goto reply;
		}
	}
	memcpy(buf, line, len);
	buf[len] = '\0';
	rc = isw_cmd_split(buf, argv, ISW_CMD_ARGS_MAX);
	if (rc == -EINVAL) {
		isw_cmd_err(&c, EINVAL, "unterminated quote");
		goto reply;
	}
	if (rc == -E2BIG) {
		isw_cmd_err(&c, E2BIG, "too many words (at most %d)", ISW_CMD_ARGS_MAX);
		goto reply;
	}
	if (rc == 0 || argv[0][0] == '#') {
		rc = 0;
		goto reply;
	}
	rc = dispatch(&c, rc, argv);
	if (rc > 0)
		rc = 0;
	/* Before the reply's own check: a command whose reply is too large has still run. */
	for (unsigned i = 0; rc == 0 && i < nb_hooks; i++)
		hooks[i]();
	if (rc == 0 && isw_json_failed(out))
		rc = isw_cmd_err(&c, ENOMEM, "reply too large");

reply:
	if (rc < 0) {
		/* The code of the message: a handler may return another errno than the helper that
		 * refused its argument did ("no session 3" is ENOENT however the caller returns).
		 */
		int e = c.code != 0 ? c.code : -rc;
		if (c.err[0] == '\0')
			snprintf(c.err, sizeof(c.err), "%s", strerror(e));
		isw_ctl_reply_error(out, e, c.err);
		rc = -e;
	} else {
		isw_json_obj_close(out);
	}
	if (cp != NULL)
		*cp = c;
	return rc;
}

int isw_cmd_exec(const char *line, struct isw_json *out)
{
	return exec_ctx(line, strlen(line), out, NULL);
}

int isw_cmd_exec_n(const char *line, size_t len, struct isw_json *out)
{
	return exec_ctx(line, len, out, NULL);
}

int isw_cmd_exec_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	struct isw_json out;
	isw_json_init(&out);
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	ssize_t n;
	int rc = 0;
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		struct isw_cmd_ctx c;
		if (n > 0 && line[n - 1] == '\n')
			n--;
		rc = exec_ctx(line, (size_t)n, &out, &c);
		if (rc < 0) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, c.err);
			break;
		}
	}
	free(line);
	isw_json_free(&out);
	fclose(f);
	return rc;
}

static STAILQ_HEAD(, isw_tick) ticks = STAILQ_HEAD_INITIALIZER(ticks);

void isw_tick_register(struct isw_tick *t)
{
	STAILQ_INSERT_TAIL(&ticks, t, next);
}

void isw_tick_run(void)
{
	struct isw_tick *t;
	STAILQ_FOREACH(t, &ticks, next)
	t->fn();
}
