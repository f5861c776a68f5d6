/* SPDX-License-Identifier: BSD-3-Clause */
/* inswitch's control socket from the host tools: see host_ctl.h. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "host_ctl.h"

#define REPLY_MAX ((size_t)16 << 20) /* longer is not a reply this code asks for */

static int write_all(int fd, const char *p, size_t n)
{
	ssize_t k;

	while (n) {
		k = write(fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Reads one line from fd into a new buffer *out (without the newline, length *len). */
static int read_line(int fd, char **out, size_t *len)
{
	size_t got = 0, cap = 4096;
	char *buf = malloc(cap), *nl = NULL;
	ssize_t k;

	if (!buf)
		return -ENOMEM;
	while (!nl) {
		if (got == cap) {
			char *b = cap < REPLY_MAX ? realloc(buf, cap * 2) : NULL;
			if (!b) {
				free(buf);
				return cap < REPLY_MAX ? -ENOMEM : -EMSGSIZE;
			}
			buf = b;
			cap *= 2;
		}
		k = read(fd, buf + got, cap - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			free(buf);
			return k < 0 ? -errno : -EPROTO; /* closed before the reply's end */
		}
		nl = memchr(buf + got, '\n', (size_t)k);
		got += (size_t)k;
	}
	*out = buf;
	*len = (size_t)(nl - buf);
	return 0;
}

/* Sends cmd and reads the reply line (into a new buffer). */
static int exchange(const char *path, const char *cmd, char **line, size_t *len)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd, rc;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		rc = -errno;
	else if ((rc = write_all(fd, cmd, strlen(cmd))) == 0 && (rc = write_all(fd, "\n", 1)) == 0)
		rc = read_line(fd, line, len);
	close(fd);
	return rc;
}

int host_ctl_call(const char *path, const char *cmd, struct isw_ctl_reply *r, char *err,
                  size_t errlen)
{
	struct isw_jv_error perr = {0, NULL};
	char *line = NULL;
	size_t len = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	r->msg = "";
	rc = exchange(path, cmd, &line, &len);
	if (rc == 0)
		rc = isw_ctl_reply_parse(line, len, r, &perr);
	free(line);
	if (rc < 0) {
		isw_ctl_reply_free(r);
		r->msg = "";
		if (err)
			snprintf(err, errlen, "control socket %s: %s%s%s", path,
			         rc == -EPROTO ? "not a reply" : strerror(-rc),
			         perr.reason ? ": " : "", perr.reason ? perr.reason : "");
		return rc;
	}
	if (r->ok)
		return 0;
	if (err)
		snprintf(err, errlen, "'%s' refused: %s", cmd, r->msg);
	return -r->err;
}

int host_ctl_run(const char *path, const char *cmd, char *err, size_t errlen)
{
	struct isw_ctl_reply r;
	int rc = host_ctl_call(path, cmd, &r, err, errlen);

	isw_ctl_reply_free(&r);
	return rc;
}

long host_ctl_num(const struct isw_jv *obj, const char *key)
{
	uint64_t v;

	if (isw_jv_to_u64(isw_jv_get(obj, key), &v) < 0 || v > (uint64_t)INT64_MAX)
		return -1;
	return (long)v;
}

const char *host_ctl_str(const struct isw_jv *obj, const char *key)
{
	const struct isw_jv *v = isw_jv_get(obj, key);

	return v && v->type == ISW_JV_STRING ? v->str : NULL;
}

const struct isw_jv *host_ctl_find(const struct isw_jv *obj, const char *array, const char *key,
                                   long val)
{
	const struct isw_jv *a = isw_jv_get(obj, array);

	for (size_t i = 0; a && a->type == ISW_JV_ARRAY && i < a->n; i++)
		if (a->items[i].type == ISW_JV_OBJECT && host_ctl_num(&a->items[i], key) == val)
			return &a->items[i];
	return NULL;
}
