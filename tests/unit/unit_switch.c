/* SPDX-License-Identifier: BSD-3-Clause */
/* The pipeline unit tests' shared set-up and accessors (unit_switch.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "cmd.h"
#include "ctl_reply.h"
#include "isw_test.h"
#include "json.h"
#include "unit_switch.h"
#include "worker.h"

struct isw_worker *isw_unit_up(const char *const *config, size_t n, struct isw_json *out)
{
	isw_json_init(out);
	struct isw_worker *w = isw_test_worker();
	assert_non_null(w);
	assert_int_equal(isw_test_switch_up(config, n, out), 0);
	return w;
}

void isw_unit_down(struct isw_worker *w, struct isw_json *out)
{
	isw_test_tx_clear(w);
	isw_test_switch_down();
	isw_json_free(out);
	rte_free(w);
}

void isw_unit_run(struct isw_json *out, const char *line, int expect_ok)
{
	int rc = isw_cmd_exec(line, out);
	if ((rc == 0) != expect_ok)
		fail_msg("'%s' gave %d: %s", line, rc, isw_json_str(out));
}

const char *isw_unit_refused(struct isw_json *out, const char *line, const char *code)
{
	int rc = isw_cmd_exec(line, out);
	const char *text = isw_json_str(out);
	struct isw_ctl_reply r;

	assert_int_equal(isw_ctl_reply_parse(text, strlen(text), &r, NULL), 0);
	if (r.ok || r.code == NULL || strcmp(r.code, code) != 0 || r.msg[0] == '\0' ||
	    rc != -isw_errno_from_name(code))
		fail_msg("'%s' gave %d: %s, want code %s", line, rc, text, code);
	isw_ctl_reply_free(&r);
	return text;
}

uint64_t isw_unit_drops(const struct isw_worker *w, enum isw_drop d)
{
	return w->stats.pipeline[w->cur_id].drops[d];
}

const uint8_t *isw_unit_tx_frame(const struct isw_worker *w, int port, unsigned i)
{
	assert_true(w->tx[port].n > i);
	return rte_pktmbuf_mtod(w->tx[port].pkts[i], const uint8_t *);
}
