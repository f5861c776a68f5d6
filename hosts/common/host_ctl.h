/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * inswitch's control socket, from the host tools: one command line out, one JSON reply line in,
 * one connection per command (so a restarted switch is no concern). Blocking; control path only.
 */
#ifndef ISW_HOST_CTL_H
#define ISW_HOST_CTL_H

#include <stddef.h>

/* Sends one command line on the control socket at path; reply gets the JSON line (cut to
 * replylen). 0, or -errno when the socket cannot be reached or closes before the reply. */
int host_ctl_command(const char *path, const char *cmd, char *reply, size_t replylen);

/* 1 if the reply says {"ok":true...}. */
int host_ctl_ok(const char *reply);

/* The "error" member of a reply, unescaped just enough for a message (the reply itself when it
 * has none). */
void host_ctl_error(const char *reply, char *msg, size_t len);

/*
 * host_ctl_command() that must succeed: 0 with the reply in reply; -errno ("control socket PATH:
 * ...") when the socket cannot be used, -EIO ("'CMD' refused: ...") when the switch refuses;
 * the reason in err.
 */
int host_ctl_run(const char *path, const char *cmd, char *reply, size_t replylen, char *err,
                 size_t errlen);

/* The number after the first "key": from p on, or -1 when absent or not a number (a "-"). */
long host_ctl_number(const char *p, const char *key);

#endif
