/* SPDX-License-Identifier: BSD-3-Clause */
/* The control reply's shape: see ctl_reply.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_reply.h"

/*
 * The errno names a reply may carry. Those the switch's commands give are documented in
 * docs/ctl.md; the rest are here so that an errno passed through from a driver keeps its name.
 * On Linux EOPNOTSUPP is ENOTSUP and EWOULDBLOCK is EAGAIN: one name each.
 */
#define NAME(e)       \
	{             \
		e, #e \
	}

static const struct {
	int e;
	const char *name;
} names[] = {
        NAME(EPERM),        NAME(ENOENT),       NAME(EINTR),        NAME(EIO),
        NAME(ENXIO),        NAME(E2BIG),        NAME(EBADF),        NAME(EAGAIN),
        NAME(ENOMEM),       NAME(EACCES),       NAME(EFAULT),       NAME(EBUSY),
        NAME(EEXIST),       NAME(ENODEV),       NAME(EINVAL),       NAME(ENFILE),
        NAME(EMFILE),       NAME(ENOSPC),       NAME(EPIPE),        NAME(ERANGE),
        NAME(ENAMETOOLONG), NAME(ENOSYS),       NAME(ENOTSUP),      NAME(EPROTO),
        NAME(EBADMSG),      NAME(EOVERFLOW),    NAME(EADDRINUSE),   NAME(EADDRNOTAVAIL),
        NAME(ENETDOWN),     NAME(ENETUNREACH),  NAME(ECONNREFUSED), NAME(ECONNRESET),
        NAME(ETIMEDOUT),    NAME(EHOSTUNREACH), NAME(EALREADY),     NAME(ECANCELED),
        NAME(ENOTCONN),
};

#undef NAME

const char *isw_errno_name(int e)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	return NULL;
}

int isw_errno_from_name(const char *name)
{
	for (size_t i = 0; name != NULL && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i].name, name) == 0)
			return names[i].e;
	return 0;
}

void isw_ctl_reply_error(struct isw_json *out, int e, const char *msg)
{
	const char *name = isw_errno_name(e);

	isw_json_reset(out);
	isw_json_obj_open(out, NULL);
	isw_json_bool(out, "ok", false);
	isw_json_str_kv(out, "error", msg);
	isw_json_str_kv(out, "code", name != NULL ? name : "EIO");
	isw_json_obj_close(out);
}

void isw_ctl_reply_free(struct isw_ctl_reply *r)
{
	isw_jv_free(r->root);
	memset(r, 0, sizeof(*r));
}

int isw_ctl_reply_parse(const char *line, size_t len, struct isw_ctl_reply *r,
                        struct isw_jv_error *perr)
{
	const struct isw_jv *ok, *msg, *code;

	memset(r, 0, sizeof(*r));
	r->msg = "";
	r->root = isw_jv_parse(line, len, perr);
	if (r->root == NULL)
		return errno == ENOMEM ? -ENOMEM : -EPROTO;
	ok = isw_jv_get(r->root, "ok");
	if (ok == NULL || ok->type != ISW_JV_BOOL) {
		if (perr != NULL)
			*perr = (struct isw_jv_error){0, "not an object with a boolean \"ok\""};
		return -EPROTO;
	}
	r->ok = ok->boolean;
	if (r->ok)
		return 0;
	msg = isw_jv_get(r->root, "error");
	if (msg != NULL && msg->type == ISW_JV_STRING)
		r->msg = msg->str;
	code = isw_jv_get(r->root, "code");
	if (code != NULL && code->type == ISW_JV_STRING)
		r->code = code->str;
	r->err = isw_errno_from_name(r->code);
	if (r->err == 0)
		r->err = EIO;
	return 0;
}
