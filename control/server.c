/* SPDX-License-Identifier: BSD-3-Clause */
/* The control socket server. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "cmd.h"
#include "ctl_reply.h"
#include "server.h"

#define MAX_CLIENTS 64

struct client {
	int fd;
	size_t len;
	bool overflow; /* discarding a line that was too long */
	char buf[ISW_CMD_LINE_MAX + 1];
};

static int listen_fd = -1;
static int wake[2] = {-1, -1};
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static pthread_t thread;
static bool started;
static struct client *clients[MAX_CLIENTS];

static void client_close(unsigned i)
{
	close(clients[i]->fd);
	free(clients[i]);
	clients[i] = NULL;
}

static int send_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t k = send(fd, s, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

static int reply(int fd, struct isw_json *out)
{
	const char *s = isw_json_str(out);
	if (send_all(fd, s, strlen(s)) < 0 || send_all(fd, "\n", 1) < 0)
		return -1;
	return 0;
}

/* The answer to a line longer than the buffer, which was dropped as it came. */
static void reply_too_long(struct isw_json *out)
{
	char msg[64];
	snprintf(msg, sizeof(msg), "line too long (at most %d bytes)", ISW_CMD_LINE_MAX - 1);
	isw_ctl_reply_error(out, E2BIG, msg);
}

/* Runs the complete lines in a client's buffer; returns -1 if the client must go. */
static int client_lines(struct client *cl, struct isw_json *out)
{
	char *start = cl->buf;
	char *nl;
	while ((nl = memchr(start, '\n', cl->len - (size_t)(start - cl->buf))) != NULL) {
		*nl = '\0';
		if (cl->overflow) {
			cl->overflow = false;
			reply_too_long(out);
		} else {
			isw_cmd_exec_n(start, (size_t)(nl - start), out);
		}
		if (reply(cl->fd, out) < 0)
			return -1;
		start = nl + 1;
	}
	size_t rest = cl->len - (size_t)(start - cl->buf);
	memmove(cl->buf, start, rest);
	cl->len = rest;
	if (cl->len == ISW_CMD_LINE_MAX) {
		/* No newline in a full buffer: drop it and answer once the line ends. */
		cl->overflow = true;
		cl->len = 0;
	}
	return 0;
}

static void client_read(unsigned i, struct isw_json *out)
{
	struct client *cl = clients[i];
	ssize_t k = read(cl->fd, cl->buf + cl->len, ISW_CMD_LINE_MAX - cl->len);
	if (k < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (k <= 0) {
		/* A last line without newline still counts, and one too long is still answered. */
		if (k == 0 && cl->overflow) {
			reply_too_long(out);
			reply(cl->fd, out);
		} else if (k == 0 && cl->len > 0) {
			isw_cmd_exec_n(cl->buf, cl->len, out);
			reply(cl->fd, out);
		}
		client_close(i);
		return;
	}
	cl->len += (size_t)k;
	if (client_lines(cl, out) < 0)
		client_close(i);
}

static void accept_client(struct isw_json *out)
{
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	/* A client that stops reading must not stall the switch's control plane. */
	struct timeval tv = {.tv_sec = 2};
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	for (unsigned i = 0; i < MAX_CLIENTS; i++) {
		if (clients[i] == NULL) {
			clients[i] = calloc(1, sizeof(*clients[i]));
			if (clients[i] == NULL)
				break;
			clients[i]->fd = fd;
			return;
		}
	}
	isw_ctl_reply_error(out, EBUSY, "too many control clients");
	reply(fd, out);
	close(fd);
}

static void *server_main(void *arg)
{
	RTE_SET_USED(arg);
	struct isw_json out;
	isw_json_init(&out);
	uint64_t tick_cycles = rte_get_timer_hz() * ISW_TICK_MS / 1000;
	uint64_t last_tick = rte_get_timer_cycles();
	for (;;) {
		struct pollfd pfd[MAX_CLIENTS + 2];
		unsigned idx[MAX_CLIENTS];
		unsigned n = 0;
		pfd[n++] = (struct pollfd){.fd = wake[0], .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = listen_fd, .events = POLLIN};
		for (unsigned i = 0; i < MAX_CLIENTS; i++) {
			if (clients[i] == NULL)
				continue;
			idx[n - 2] = i;
			pfd[n++] = (struct pollfd){.fd = clients[i]->fd, .events = POLLIN};
		}
		int rc = poll(pfd, n, ISW_TICK_MS);
		if (rc < 0 && errno != EINTR)
			break;
		uint64_t now = rte_get_timer_cycles();
		if (now - last_tick >= tick_cycles) {
			isw_tick_run();
			last_tick = now;
		}
		if (rc <= 0)
			continue;
		if (pfd[0].revents)
			break;
		for (unsigned k = 2; k < n; k++)
			if (pfd[k].revents)
				client_read(idx[k - 2], &out);
		if (pfd[1].revents & POLLIN)
			accept_client(&out);
	}
	isw_json_free(&out);
	return NULL;
}

/* True when something answers on path: another switch owns it. */
static bool socket_live(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	bool live = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return live;
}

int isw_server_start(const char *path, mode_t mode)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "inswitch: control socket path too long: %s\n", path);
		return -ENAMETOOLONG;
	}
	if (socket_live(path)) {
		fprintf(stderr, "inswitch: %s is in use by another inswitch (use --ctl PATH)\n",
		        path);
		return -EADDRINUSE;
	}
	unlink(path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	snprintf(sock_path, sizeof(sock_path), "%s", path);

	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0)
		goto fail;
	/* Create the socket with the final mode: no window in which others could connect. */
	mode_t old = umask((mode_t)~mode & 0777);
	int rc = bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0 || chmod(path, mode) < 0 || listen(listen_fd, 16) < 0)
		goto fail;
	if (pipe2(wake, O_CLOEXEC) < 0)
		goto fail;
	rc = rte_ctrl_thread_create(&thread, "isw-ctl", NULL, server_main, NULL);
	if (rc != 0) {
		errno = rc;
		goto fail;
	}
	started = true;
	return 0;
fail:
	rc = -errno;
	fprintf(stderr, "inswitch: control socket %s: %s\n", path, strerror(errno));
	if (listen_fd >= 0)
		close(listen_fd);
	listen_fd = -1;
	return rc;
}

void isw_server_stop(void)
{
	if (!started)
		return;
	if (write(wake[1], "x", 1) < 0)
		pthread_cancel(thread);
	pthread_join(thread, NULL);
	for (unsigned i = 0; i < MAX_CLIENTS; i++)
		if (clients[i] != NULL)
			client_close(i);
	close(listen_fd);
	close(wake[0]);
	close(wake[1]);
	unlink(sock_path);
	started = false;
}
