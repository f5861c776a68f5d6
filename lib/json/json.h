/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small JSON writer for one-line replies. Keys are written as given (callers use plain ASCII
 * identifiers); string values are escaped. The buffer grows as needed; on allocation failure the
 * writer stops writing and isw_json_failed() reports it. It allocates, so it belongs on control
 * paths (the switch's control thread, the host tools), never a fast path. No DPDK; no global
 * state (one writer is used by one thread at a time).
 */
#ifndef ISW_JSON_H
#define ISW_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ISW_JSON_DEPTH 16

struct isw_json {
	char *buf;
	size_t len;
	size_t cap;
	unsigned depth;
	bool failed;
	bool first[ISW_JSON_DEPTH]; /* no member written yet at this depth */
};

void isw_json_init(struct isw_json *j);
void isw_json_free(struct isw_json *j);
void isw_json_reset(struct isw_json *j);
bool isw_json_failed(const struct isw_json *j);
/* The text written so far, NUL-terminated. */
const char *isw_json_str(const struct isw_json *j);

/* key is NULL inside arrays and for the outermost value. */
void isw_json_obj_open(struct isw_json *j, const char *key);
void isw_json_obj_close(struct isw_json *j);
void isw_json_arr_open(struct isw_json *j, const char *key);
void isw_json_arr_close(struct isw_json *j);
void isw_json_str_kv(struct isw_json *j, const char *key, const char *v);
void isw_json_strf(struct isw_json *j, const char *key, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
void isw_json_u64(struct isw_json *j, const char *key, uint64_t v);
void isw_json_i64(struct isw_json *j, const char *key, int64_t v);
void isw_json_dbl(struct isw_json *j, const char *key, double v);
void isw_json_bool(struct isw_json *j, const char *key, bool v);
void isw_json_null(struct isw_json *j, const char *key);

#endif
