/* SPDX-License-Identifier: BSD-3-Clause */
/* inswitch's control socket from the host tools: see host_ctl.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "host_ctl.h"

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

int host_ctl_command(const char *path, const char *cmd, char *reply, size_t replylen)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	size_t got = 0;
	ssize_t k;
	int fd, rc;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		rc = -errno;
		goto out;
	}
	rc = write_all(fd, cmd, strlen(cmd));
	if (rc == 0)
		rc = write_all(fd, "\n", 1);
	if (rc < 0)
		goto out;
	/* One reply line; longer replies are cut to replylen but read to their end. */
	rc = -EPROTO;
	for (;;) {
		char c;
		k = read(fd, &c, 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if (c == '\n') {
			rc = 0;
			break;
		}
		if (got + 1 < replylen)
			reply[got++] = c;
	}
out:
	if (replylen)
		reply[got < replylen ? got : replylen - 1] = '\0';
	close(fd);
	return rc;
}

/* The "error" member of a reply, unescaped just enough for a message. */
void host_ctl_error(const char *reply, char *msg, size_t len)
{
	const char *p = strstr(reply, "\"error\":\"");
	size_t n = 0;

	if (!p) { /* not the usual shape: show the reply itself, cut to fit */
		for (p = reply; *p && n + 1 < len; p++)
			msg[n++] = *p;
		msg[n] = '\0';
		return;
	}
	for (p += 9; *p && *p != '"' && n + 1 < len; p++) {
		if (*p == '\\' && p[1])
			p++;
		msg[n++] = *p;
	}
	msg[n] = '\0';
}

int host_ctl_ok(const char *reply)
{
	return strncmp(reply, "{\"ok\":true", 10) == 0;
}

int host_ctl_run(const char *path, const char *cmd, char *reply, size_t replylen, char *err,
                 size_t errlen)
{
	char msg[512];
	int rc = host_ctl_command(path, cmd, reply, replylen);

	if (rc < 0) {
		snprintf(err, errlen, "control socket %s: %s", path, strerror(-rc));
		return rc;
	}
	if (!host_ctl_ok(reply)) {
		host_ctl_error(reply, msg, sizeof(msg));
		snprintf(err, errlen, "'%s' refused: %s", cmd, msg);
		return -EIO;
	}
	return 0;
}

long host_ctl_number(const char *p, const char *key)
{
	char pat[64];

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(p, pat);
	if (!p)
		return -1;
	p += strlen(pat);
	return *p >= '0' && *p <= '9' ? strtol(p, NULL, 10) : -1;
}
