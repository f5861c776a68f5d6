/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket: a Unix stream socket serving command lines to any number of clients, one
 * JSON reply line per command line. One control thread runs every command, in arrival order, so
 * commands never race one another. It is not pinned to a worker lcore.
 */
#ifndef ISW_SERVER_H
#define ISW_SERVER_H

#include <sys/types.h>

/* Creates the socket at path with the given mode and starts the control thread. Refuses a path
 * another live inswitch is serving. Returns 0 or -errno (message on stderr). */
int isw_server_start(const char *path, mode_t mode);

/* Stops the thread, closes clients and removes the socket. */
void isw_server_stop(void);

/* Registers the /inswitch/... DPDK telemetry endpoints. */
int isw_telemetry_init(void);

#endif
