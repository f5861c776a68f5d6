/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * inswitch's control socket, from the host tools: one command line out, one JSON reply line in,
 * one connection per command (so a restarted switch is no concern). Replies are parsed by
 * lib/json (ctl_reply.h), and the one helper here, host_ctl_call(), is how every host stack asks
 * the switch: a caller decides on the reply's error code (r->err, an errno value), never on its
 * message. Blocking; control path only.
 */
#ifndef ISW_HOST_CTL_H
#define ISW_HOST_CTL_H

#include <stddef.h>

#include "ctl_reply.h"

/*
 * Sends cmd on the control socket at path and parses the reply into r, to be freed with
 * isw_ctl_reply_free() whatever the result. Returns 0 when the switch accepted the command;
 * -r->err when it refused it (r->err is the errno its code names, r->msg why; err gets
 * "'CMD' refused: MSG"); or -errno when the socket could not be used or the answer was not a
 * reply (r->err is then 0: a refusal's code and a socket's errno never mix; err gets
 * "control socket PATH: ..."). err may be NULL.
 */
int host_ctl_call(const char *path, const char *cmd, struct isw_ctl_reply *r, char *err,
                  size_t errlen);

/* host_ctl_call() for a caller that needs the outcome only. */
int host_ctl_run(const char *path, const char *cmd, char *err, size_t errlen);

/* The non-negative integer member key of obj (a reply or an element of one), or -1 when there
 * is none or it is not one (a string such as "not seen yet"). */
long host_ctl_num(const struct isw_jv *obj, const char *key);

/* The string member key of obj, or NULL when there is none or it is not a string. */
const char *host_ctl_str(const struct isw_jv *obj, const char *key);

/* The first object in the array member array of obj whose integer member key is val, or NULL. */
const struct isw_jv *host_ctl_find(const struct isw_jv *obj, const char *array, const char *key,
                                   long val);

#endif
