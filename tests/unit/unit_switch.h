/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the pipeline unit tests (test_syncagtr, test_atp, test_ask) share on top of the harness
 * (tests/harness/isw_test.h): bringing the switch up and down around each cmocka test, running
 * commands that must succeed or fail, and reading worker 0's drops and transmit buffers. cmocka
 * only: failures are test failures.
 */
#ifndef ISW_UNIT_SWITCH_H
#define ISW_UNIT_SWITCH_H

#include <stddef.h>
#include <stdint.h>

#include "drop.h"

struct isw_worker;
struct isw_json;

/* Worker 0, the control plane and config[0..n-1] run as commands; out is initialised and keeps
 * the replies. For a test's setup. */
struct isw_worker *isw_unit_up(const char *const *config, size_t n, struct isw_json *out);

/* Frees what w holds and sent, the control plane, out and w. For a test's teardown. */
void isw_unit_down(struct isw_worker *w, struct isw_json *out);

/* Runs the command line into out; fails the test unless it succeeds (expect_ok) or fails. */
void isw_unit_run(struct isw_json *out, const char *line, int expect_ok);

/*
 * Runs the command line into out; fails the test unless it is refused with the error code named
 * code ("EEXIST"): the reply parses as {"ok":false,"error":"...","code":code} with a message,
 * and the return value is that errno. Returns the reply text.
 */
const char *isw_unit_refused(struct isw_json *out, const char *line, const char *code);

/* Drops of reason d counted by w (for the pipeline that ran last). */
uint64_t isw_unit_drops(const struct isw_worker *w, enum isw_drop d);

/* The i-th frame w has queued for port; fails the test if there is none. */
const uint8_t *isw_unit_tx_frame(const struct isw_worker *w, int port, unsigned i);

#endif
