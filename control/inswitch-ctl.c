/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * inswitch-ctl: the command-line client of the daemon's control socket. It sends command lines
 * (from its arguments, or one per line from stdin) and prints each one-line JSON reply, either
 * verbatim (--json) or rendered for people. It links no DPDK and keeps no state between commands.
 *
 * Exit status: 0 if every command succeeded, 1 if the daemon refused one (its message and error
 * code on stderr), 2 on a usage, connection or protocol error (which also stops reading further
 * commands).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl_reply.h"
#include "jsonparse.h"

#define CTL_SOCKET_DEFAULT "/run/inswitch.sock"
#define CTL_SOCKET_ENV     "INSWITCH_CTL"
#define CTL_PROMPT         "inswitch> "
#define CTL_REPLY_MAX      ((size_t)1 << 30) /* longer is treated as a malformed reply */
#define CTL_EXCERPT        80                /* bytes of a malformed reply quoted on stderr */

enum ctl_status {
	CTL_OK = 0,     /* the command succeeded */
	CTL_FAILED = 1, /* the daemon answered ok=false */
	CTL_ERROR = 2,  /* usage, connection or protocol error */
};

static const char *prog = "inswitch-ctl";

/* ---- Small helpers ---------------------------------------------------------------------- */

/* A client has nothing sensible to do without memory: say so and leave. */
static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(CTL_ERROR);
	}
	return p;
}

/* A growing, always NUL-terminated byte string. */
struct sbuf {
	char *s;
	size_t len;
	size_t cap;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->s = xrealloc(b->s, cap);
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_adds(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static void sb_addc(struct sbuf *b, char c)
{
	sb_add(b, &c, 1);
}

static void sb_clear(struct sbuf *b)
{
	sb_add(b, "", 0); /* makes sure there is a buffer to terminate */
	b->len = 0;
	b->s[0] = '\0';
}

/* Columns a UTF-8 text takes on a terminal, counting one per code point (good enough). */
static size_t text_width(const char *s, size_t n)
{
	size_t i, w = 0;

	for (i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Appends text for a person: control characters become visible escapes so a row stays a row. */
static void sb_add_text(struct sbuf *b, const char *s, size_t n)
{
	size_t i;
	char esc[8];

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n') {
			sb_adds(b, "\\n");
		} else if (c == '\t') {
			sb_adds(b, "\\t");
		} else if (c == '\r') {
			sb_adds(b, "\\r");
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			sb_adds(b, esc);
		} else {
			sb_addc(b, (char)c);
		}
	}
}

/* Appends s as a JSON string literal. */
static void sb_add_json_str(struct sbuf *b, const char *s, size_t n)
{
	size_t i;
	char esc[8];

	sb_addc(b, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			sb_addc(b, '\\');
			sb_addc(b, (char)c);
		} else if (c == '\n') {
			sb_adds(b, "\\n");
		} else if (c == '\t') {
			sb_adds(b, "\\t");
		} else if (c == '\r') {
			sb_adds(b, "\\r");
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			sb_adds(b, esc);
		} else {
			sb_addc(b, (char)c);
		}
	}
	sb_addc(b, '"');
}

/* Appends v as compact JSON (for values nested inside a table cell or a list). */
static void sb_add_json(struct sbuf *b, const struct isw_jv *v)
{
	size_t i;

	switch (v->type) {
	case ISW_JV_NULL:
		sb_adds(b, "null");
		break;
	case ISW_JV_BOOL:
		sb_adds(b, v->boolean ? "true" : "false");
		break;
	case ISW_JV_NUMBER:
		sb_add(b, v->str, v->len);
		break;
	case ISW_JV_STRING:
		sb_add_json_str(b, v->str, v->len);
		break;
	case ISW_JV_ARRAY:
		sb_addc(b, '[');
		for (i = 0; i < v->n; i++) {
			if (i > 0)
				sb_addc(b, ',');
			sb_add_json(b, &v->items[i]);
		}
		sb_addc(b, ']');
		break;
	case ISW_JV_OBJECT:
		sb_addc(b, '{');
		for (i = 0; i < v->n; i++) {
			if (i > 0)
				sb_addc(b, ',');
			sb_add_json_str(b, v->members[i].key, v->members[i].key_len);
			sb_addc(b, ':');
			sb_add_json(b, &v->members[i].value);
		}
		sb_addc(b, '}');
		break;
	}
}

/* Appends one value as a person reads it: scalars plain, containers as compact JSON. */
static void sb_add_value(struct sbuf *b, const struct isw_jv *v)
{
	if (v == NULL || v->type == ISW_JV_NULL)
		sb_addc(b, '-');
	else if (v->type == ISW_JV_STRING && v->len == 0)
		sb_adds(b, "\"\"");
	else if (v->type == ISW_JV_STRING)
		sb_add_text(b, v->str, v->len);
	else
		sb_add_json(b, v);
}

/* ---- Rendering for people ----------------------------------------------------------------- */

struct render {
	size_t term_width;  /* wrap long lists at this column; 0: never */
	bool blank_pending; /* print a blank line before the next line, unless it is the first */
	unsigned long lines;
	struct sbuf tmp;
};

static void put_spaces(size_t n)
{
	while (n-- > 0)
		putchar(' ');
}

/* Starts an output line at the given indentation. */
static void line_begin(struct render *r, size_t indent)
{
	if (r->blank_pending && r->lines > 0)
		putchar('\n');
	r->blank_pending = false;
	r->lines++;
	put_spaces(indent);
}

static bool is_scalar(const struct isw_jv *v)
{
	return v->type != ISW_JV_ARRAY && v->type != ISW_JV_OBJECT;
}

/* An array rendered as a table: non-empty, objects only, at least one member among them. */
static bool is_table(const struct isw_jv *v)
{
	size_t i;
	bool any = false;

	if (v->type != ISW_JV_ARRAY || v->n == 0)
		return false;
	for (i = 0; i < v->n; i++) {
		if (v->items[i].type != ISW_JV_OBJECT)
			return false;
		any |= v->items[i].n > 0;
	}
	return any;
}

/* Rendered on the key's own line: everything but non-empty objects and tables. */
static bool is_inline(const struct isw_jv *v)
{
	return is_scalar(v) || v->n == 0 || (v->type == ISW_JV_ARRAY && !is_table(v));
}

static size_t key_width(struct render *r, const struct isw_jv_member *m)
{
	sb_clear(&r->tmp);
	sb_add_text(&r->tmp, m->key, m->key_len);
	return text_width(r->tmp.s, r->tmp.len);
}

/* Prints an array as a comma-separated list starting at column col, wrapping if asked to. */
static void render_list(struct render *r, const struct isw_jv *arr, size_t col)
{
	size_t i, w, cur = col;

	for (i = 0; i < arr->n; i++) {
		sb_clear(&r->tmp);
		sb_add_value(&r->tmp, &arr->items[i]);
		if (i + 1 < arr->n)
			sb_addc(&r->tmp, ',');
		w = text_width(r->tmp.s, r->tmp.len);
		if (i > 0 && r->term_width > 0 && cur + 1 + w > r->term_width) {
			putchar('\n');
			put_spaces(col);
			cur = col;
		} else if (i > 0) {
			putchar(' ');
			cur++;
		}
		fwrite(r->tmp.s, 1, r->tmp.len, stdout);
		cur += w;
	}
}

/* "key:   value", the key padded to width so that the values of one object line up. */
static void render_inline(struct render *r, const struct isw_jv_member *m, size_t indent,
                          size_t width)
{
	const struct isw_jv *v = &m->value;
	size_t kw = key_width(r, m);

	line_begin(r, indent);
	fwrite(r->tmp.s, 1, r->tmp.len, stdout);
	putchar(':');
	put_spaces(width - kw + 1);
	if (!is_scalar(v) && v->n == 0) {
		fputs("(none)", stdout);
	} else if (v->type == ISW_JV_ARRAY) {
		render_list(r, v, indent + width + 2);
	} else {
		sb_clear(&r->tmp);
		sb_add_value(&r->tmp, v);
		fwrite(r->tmp.s, 1, r->tmp.len, stdout);
	}
	putchar('\n');
}

struct column {
	const char *name;
	size_t name_len;
	size_t width;
	bool numeric; /* every present value is a number: right-align */
};

/* The union of the rows' member names, in first-seen order. */
static struct column *table_columns(const struct isw_jv *arr, size_t *ncols)
{
	struct column *cols = NULL;
	size_t i, j, c, n = 0, cap = 0;

	for (i = 0; i < arr->n; i++) {
		for (j = 0; j < arr->items[i].n; j++) {
			const struct isw_jv_member *m = &arr->items[i].members[j];

			for (c = 0; c < n; c++)
				if (cols[c].name_len == m->key_len &&
				    memcmp(cols[c].name, m->key, m->key_len) == 0)
					break;
			if (c < n)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 8;
				cols = xrealloc(cols, cap * sizeof(*cols));
			}
			cols[n++] = (struct column){.name = m->key, .name_len = m->key_len};
		}
	}
	*ncols = n;
	return cols;
}

/* Prints one cell, already rendered in r->tmp, aligned in its column. */
static void put_cell(struct render *r, const struct column *col, bool right, bool last)
{
	size_t w = text_width(r->tmp.s, r->tmp.len);

	if (right)
		put_spaces(col->width - w);
	fwrite(r->tmp.s, 1, r->tmp.len, stdout);
	if (!right && !last)
		put_spaces(col->width - w);
}

/* Numbers go right, text left; a placeholder for a missing value follows its column. */
static bool cell_right_aligned(const struct column *col, const struct isw_jv *v)
{
	if (v == NULL || v->type == ISW_JV_NULL)
		return col->numeric;
	return v->type == ISW_JV_NUMBER;
}

static void render_table(struct render *r, const struct isw_jv_member *m, size_t indent)
{
	const struct isw_jv *arr = &m->value;
	size_t ncols, i, c;
	struct column *cols = table_columns(arr, &ncols);

	/* First pass: column widths and alignment; cells are rendered again when printed. */
	for (c = 0; c < ncols; c++) {
		bool any_number = false, all_numbers = true;

		sb_clear(&r->tmp);
		sb_add_text(&r->tmp, cols[c].name, cols[c].name_len);
		cols[c].width = text_width(r->tmp.s, r->tmp.len);
		for (i = 0; i < arr->n; i++) {
			const struct isw_jv *v =
			        isw_jv_get_n(&arr->items[i], cols[c].name, cols[c].name_len);
			size_t w;

			sb_clear(&r->tmp);
			sb_add_value(&r->tmp, v);
			w = text_width(r->tmp.s, r->tmp.len);
			if (w > cols[c].width)
				cols[c].width = w;
			if (v != NULL && v->type == ISW_JV_NUMBER)
				any_number = true;
			else if (v != NULL && v->type != ISW_JV_NULL)
				all_numbers = false;
		}
		cols[c].numeric = any_number && all_numbers;
	}

	r->blank_pending = true;
	line_begin(r, indent);
	sb_clear(&r->tmp);
	sb_add_text(&r->tmp, m->key, m->key_len);
	fwrite(r->tmp.s, 1, r->tmp.len, stdout);
	fputs(":\n", stdout);

	line_begin(r, indent + 2);
	for (c = 0; c < ncols; c++) {
		sb_clear(&r->tmp);
		sb_add_text(&r->tmp, cols[c].name, cols[c].name_len);
		if (c > 0)
			fputs("  ", stdout);
		put_cell(r, &cols[c], cols[c].numeric, c + 1 == ncols);
	}
	putchar('\n');

	for (i = 0; i < arr->n; i++) {
		line_begin(r, indent + 2);
		for (c = 0; c < ncols; c++) {
			const struct isw_jv *v =
			        isw_jv_get_n(&arr->items[i], cols[c].name, cols[c].name_len);

			sb_clear(&r->tmp);
			sb_add_value(&r->tmp, v);
			if (c > 0)
				fputs("  ", stdout);
			put_cell(r, &cols[c], cell_right_aligned(&cols[c], v), c + 1 == ncols);
		}
		putchar('\n');
	}
	r->blank_pending = true;
	free(cols);
}

static bool is_ok_member(const struct isw_jv_member *m)
{
	return m->key_len == 2 && memcmp(m->key, "ok", 2) == 0;
}

/* Prints the members of obj (but "ok" at the top level). Depth is bounded by the parser. */
static void render_members(struct render *r, const struct isw_jv *obj, size_t indent, bool top)
{
	size_t i, w, width = 0;

	for (i = 0; i < obj->n; i++) {
		const struct isw_jv_member *m = &obj->members[i];

		if (top && is_ok_member(m))
			continue;
		if (is_inline(&m->value) && (w = key_width(r, m)) > width)
			width = w;
	}
	for (i = 0; i < obj->n; i++) {
		const struct isw_jv_member *m = &obj->members[i];

		if (top && is_ok_member(m))
			continue;
		if (is_inline(&m->value)) {
			render_inline(r, m, indent, width);
		} else if (m->value.type == ISW_JV_OBJECT) {
			key_width(r, m);
			line_begin(r, indent);
			fwrite(r->tmp.s, 1, r->tmp.len, stdout);
			fputs(":\n", stdout);
			render_members(r, &m->value, indent + 2, false);
		} else {
			render_table(r, m, indent);
		}
	}
}

/* ---- The connection ----------------------------------------------------------------------- */

struct conn {
	int fd;
	const char *path;
	char *buf; /* bytes received and not consumed yet */
	size_t len;
	size_t cap;
};

static int conn_open(struct conn *c, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *hint = "";

	*c = (struct conn){.fd = -1, .path = path};
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "%s: socket path too long (at most %zu bytes): %s\n", prog,
		        sizeof(sa.sun_path) - 1, path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		fprintf(stderr, "%s: socket: %s\n", prog, strerror(errno));
		return -1;
	}
	/*
	 * An AF_UNIX connect() interrupted while waiting for room in the listen backlog has not
	 * connected, so it can simply be retried.
	 */
	while (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno == EINTR)
			continue;
		if (errno == EISCONN)
			break;
		if (errno == ENOENT || errno == ECONNREFUSED)
			hint = " (is inswitch running? see --socket)";
		else if (errno == EACCES || errno == EPERM)
			hint = " (do you have permission to use the socket?)";
		fprintf(stderr, "%s: cannot connect to %s: %s%s\n", prog, path, strerror(errno),
		        hint);
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	return 0;
}

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	c->fd = -1;
	c->buf = NULL;
}

/* Sends line and a newline, all of it. MSG_NOSIGNAL: a closed peer is an error, not a signal. */
static int conn_send(struct conn *c, const char *line, size_t len)
{
	struct sbuf b = {0};
	size_t off = 0;

	sb_add(&b, line, len);
	sb_addc(&b, '\n');
	while (off < b.len) {
		ssize_t n = send(c->fd, b.s + off, b.len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "%s: cannot send to %s: %s\n", prog, c->path,
			        strerror(errno));
			free(b.s);
			return -1;
		}
		off += (size_t)n;
	}
	free(b.s);
	return 0;
}

/* Reads until a newline; *line_len is the reply's length, which starts at c->buf. */
static int conn_read_line(struct conn *c, size_t *line_len)
{
	size_t scanned = 0;

	for (;;) {
		char *nl =
		        c->len > scanned ? memchr(c->buf + scanned, '\n', c->len - scanned) : NULL;
		ssize_t n;

		if (nl != NULL) {
			*line_len = (size_t)(nl - c->buf);
			return 0;
		}
		scanned = c->len;
		if (c->len == c->cap) {
			if (c->cap >= CTL_REPLY_MAX) {
				fprintf(stderr,
				        "%s: malformed reply from %s: longer than %zu bytes\n",
				        prog, c->path, CTL_REPLY_MAX);
				return -1;
			}
			c->cap = c->cap ? c->cap * 2 : 65536;
			c->buf = xrealloc(c->buf, c->cap);
		}
		n = read(c->fd, c->buf + c->len, c->cap - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "%s: cannot read from %s: %s\n", prog, c->path,
			        strerror(errno));
			return -1;
		}
		if (n == 0) {
			fprintf(stderr, "%s: %s closed the connection %s\n", prog, c->path,
			        c->len ? "in the middle of a reply" : "without replying");
			return -1;
		}
		c->len += (size_t)n;
	}
}

/* ---- Commands ----------------------------------------------------------------------------- */

struct ctl {
	struct conn conn;
	bool json;
	bool interactive; /* commands come from a terminal */
	struct render render;
	struct sbuf err;
};

static void malformed(struct ctl *ctl, const char *line, size_t len, const char *why, size_t off)
{
	fflush(stdout);
	sb_clear(&ctl->err);
	sb_add_text(&ctl->err, line, len < CTL_EXCERPT ? len : CTL_EXCERPT);
	fprintf(stderr, "%s: malformed reply from %s (byte %zu: %s): %s%s\n", prog, ctl->conn.path,
	        off, why, ctl->err.s, len > CTL_EXCERPT ? "..." : "");
}

static enum ctl_status handle_reply(struct ctl *ctl, const char *line, size_t len)
{
	struct isw_jv_error err;
	struct isw_ctl_reply r;
	enum ctl_status st = CTL_ERROR;

	if (isw_ctl_reply_parse(line, len, &r, &err) < 0) {
		malformed(ctl, line, len, err.reason, err.offset);
		goto out;
	}
	st = r.ok ? CTL_OK : CTL_FAILED;
	if (ctl->json) {
		fwrite(line, 1, len, stdout);
		putchar('\n');
	} else if (r.ok) {
		render_members(&ctl->render, r.root, 0, true);
	} else {
		sb_clear(&ctl->err);
		if (r.msg[0] != '\0')
			sb_add_text(&ctl->err, r.msg, strlen(r.msg));
		else
			sb_adds(&ctl->err, "(the daemon gave no message)");
		fflush(stdout); /* keep stdout and stderr in order when they share a file */
		/* The code, for a person to look up in docs/ctl.md (a program reads it with
		 * --json). */
		fprintf(stderr, "error: %s (%s)\n", ctl->err.s,
		        r.code != NULL ? r.code : "no code");
	}
out:
	isw_ctl_reply_free(&r);
	return st;
}

static enum ctl_status run_command(struct ctl *ctl, const char *line, size_t len)
{
	struct conn *c = &ctl->conn;
	enum ctl_status st;
	size_t reply_len;

	if (ctl->interactive) {
		ctl->render.lines = 0;
		ctl->render.blank_pending = false;
	} else {
		ctl->render.blank_pending = true; /* separates the output of successive commands */
	}
	if (conn_send(c, line, len) < 0 || conn_read_line(c, &reply_len) < 0)
		return CTL_ERROR;
	/* One line per command: anything more means the two sides no longer agree. */
	if (c->len > reply_len + 1) {
		malformed(ctl, c->buf, reply_len, "more than one line for one command", reply_len);
		return CTL_ERROR;
	}
	st = handle_reply(ctl, c->buf, reply_len);
	c->len = 0;
	if (fflush(stdout) != 0) {
		if (errno != EPIPE)
			fprintf(stderr, "%s: cannot write output: %s\n", prog, strerror(errno));
		return CTL_ERROR;
	}
	return st;
}

/* The daemon splits on whitespace; quotes group; backslash escapes '"' and '\' in quotes. */
static bool needs_quotes(const char *w)
{
	return *w == '\0' || *w == '#' || strpbrk(w, " \t\n\v\f\r\"\\") != NULL;
}

/* Joins words into one command line; NULL (after a message) if a word cannot be sent. */
static char *join_words(int argc, char **argv)
{
	struct sbuf b = {0};
	int i;

	sb_clear(&b);
	for (i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (strchr(w, '\n') != NULL) {
			fprintf(stderr, "%s: a command word cannot contain a newline\n", prog);
			free(b.s);
			return NULL;
		}
		if (i > 0)
			sb_addc(&b, ' ');
		if (!needs_quotes(w)) {
			sb_adds(&b, w);
			continue;
		}
		sb_addc(&b, '"');
		for (; *w != '\0'; w++) {
			if (*w == '"' || *w == '\\')
				sb_addc(&b, '\\');
			sb_addc(&b, *w);
		}
		sb_addc(&b, '"');
	}
	return b.s;
}

static bool skip_line(const char *line)
{
	line += strspn(line, " \t\v\f\r");
	return *line == '\0' || *line == '#';
}

/* Runs the commands read from stdin; stops at the first connection or protocol error. */
static enum ctl_status run_stdin(struct ctl *ctl)
{
	enum ctl_status worst = CTL_OK, st;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	for (;;) {
		if (ctl->interactive) {
			fputs(CTL_PROMPT, stdout);
			fflush(stdout);
		}
		errno = 0;
		n = getline(&line, &cap, stdin);
		if (n < 0 && ferror(stdin) && errno == EINTR) {
			clearerr(stdin);
			continue;
		}
		if (n < 0 && ferror(stdin)) {
			fprintf(stderr, "%s: cannot read commands: %s\n", prog, strerror(errno));
			worst = CTL_ERROR;
			break;
		}
		if (n < 0) {
			if (ctl->interactive)
				putchar('\n');
			break;
		}
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (skip_line(line))
			continue;
		st = run_command(ctl, line, (size_t)n);
		if (st > worst)
			worst = st;
		if (st == CTL_ERROR)
			break;
	}
	free(line);
	return worst;
}

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: %s [-s|--socket PATH] [-j|--json] [-h|--help] [COMMAND WORDS...]\n"
	        "\n"
	        "Sends a command to the inswitch daemon and prints its reply. Without command\n"
	        "words, reads commands from standard input, one per line (blank lines and lines\n"
	        "starting with '#' are skipped), with a prompt if it is a terminal.\n"
	        "\n"
	        "Options:\n"
	        "  -s, --socket PATH  control socket (default: $%s if set, else %s)\n"
	        "  -j, --json         print each reply exactly as received, one JSON object a "
	        "line\n"
	        "  -h, --help         show this help\n"
	        "\n"
	        "A refused command prints 'error: MESSAGE (CODE)' on stderr, CODE an errno name\n"
	        "(docs/ctl.md, Error codes).\n"
	        "\n"
	        "Exit status: 0 if every command succeeded, 1 if the daemon refused one,\n"
	        "2 on a usage, connection or protocol error.\n",
	        prog, CTL_SOCKET_ENV, CTL_SOCKET_DEFAULT);
}

static size_t terminal_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0; /* not a terminal: one list, one line, for grep */
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"socket", required_argument, NULL, 's'},
	        {"json", no_argument, NULL, 'j'},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	struct ctl ctl = {0};
	const char *path = getenv(CTL_SOCKET_ENV);
	enum ctl_status st;
	char *line;
	int opt;

	if (path == NULL || *path == '\0')
		path = CTL_SOCKET_DEFAULT;
	/* '+': options end at the first command word, so commands may take "-1" and the like. */
	while ((opt = getopt_long(argc, argv, "+s:jh", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			path = optarg;
			break;
		case 'j':
			ctl.json = true;
			break;
		case 'h':
			usage(stdout);
			return CTL_OK;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return CTL_ERROR;
		}
	}
	if (*path == '\0') {
		fprintf(stderr, "%s: empty socket path\n", prog);
		return CTL_ERROR;
	}
	signal(SIGPIPE, SIG_IGN);
	ctl.render.term_width = terminal_width();

	line = NULL;
	if (optind < argc && (line = join_words(argc - optind, argv + optind)) == NULL)
		return CTL_ERROR;
	if (conn_open(&ctl.conn, path) < 0) {
		free(line);
		return CTL_ERROR;
	}
	if (line != NULL) {
		st = run_command(&ctl, line, strlen(line));
	} else {
		ctl.interactive = isatty(STDIN_FILENO);
		st = run_stdin(&ctl);
	}
	free(line);
	conn_close(&ctl.conn);
	free(ctl.render.tmp.s);
	free(ctl.err.s);
	if (fflush(stdout) != 0 && st != CTL_ERROR) {
		fprintf(stderr, "%s: cannot write output: %s\n", prog, strerror(errno));
		st = CTL_ERROR;
	}
	return st;
}
