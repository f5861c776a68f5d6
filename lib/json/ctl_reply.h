/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shape of a control-socket reply, written by the switch and read by its clients
 * (inswitch-ctl, the host tools), so the two sides cannot disagree (docs/ctl.md, Error codes):
 *
 *   {"ok":true, ...the command's members...}
 *   {"ok":false,"error":"message for a person","code":"EEXIST"}
 *
 * "code" is the name of an errno value (the names are the same on every system, the numbers
 * are not). A program decides on the code, never on the message. No DPDK, no global state.
 */
#ifndef ISW_CTL_REPLY_H
#define ISW_CTL_REPLY_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"
#include "jsonparse.h"

/*
 * The name of errno value e ("EEXIST"), or NULL when it is not one of the names this table
 * knows (every code the switch's commands give is in it; docs/ctl.md lists them).
 */
const char *isw_errno_name(int e);

/* The errno value named name (the inverse of isw_errno_name()), or 0 if unknown. */
int isw_errno_from_name(const char *name);

/*
 * Writes the whole error reply {"ok":false,"error":msg,"code":NAME} into out (reset first).
 * e is a positive errno value; one the table does not know is sent as "EIO" (the message still
 * says what happened).
 */
void isw_ctl_reply_error(struct isw_json *out, int e, const char *msg);

/* A parsed reply. */
struct isw_ctl_reply {
	struct isw_jv *root; /* the whole reply object, for the command's members */
	bool ok;
	/*
	 * ok: 0. Refused: the positive errno value named by "code"; EIO when the reply has no
	 * code or one this table does not know (an older or newer switch).
	 */
	int err;
	const char *msg;  /* "error" ("" when ok or absent); points into root */
	const char *code; /* "code" as sent (NULL when absent); points into root */
};

/*
 * Parses one reply line of len bytes (without its newline) into r. 0, or -EPROTO when it is not
 * JSON or not an object with a boolean "ok" (the offset and reason in perr, when not NULL), or
 * -ENOMEM. r is to be freed with isw_ctl_reply_free() whatever the result.
 */
int isw_ctl_reply_parse(const char *line, size_t len, struct isw_ctl_reply *r,
                        struct isw_jv_error *perr);

/* Frees what isw_ctl_reply_parse() built; r is zeroed, so freeing twice is harmless. */
void isw_ctl_reply_free(struct isw_ctl_reply *r);

#endif
