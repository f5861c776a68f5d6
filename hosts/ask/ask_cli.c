/* SPDX-License-Identifier: BSD-3-Clause */
/* The command-line options the ASK tools share (ask_cli.h). */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ask_cli.h"
#include "host_args.h"
#include "hx.h"

void ask_cli_defaults(struct ask_cli *c)
{
	*c = (struct ask_cli){
	        .task = ASK_DEF_TASK,
	        .channels = 1,
	        .window = ASK_DEF_WINDOW,
	        .slots = ASK_DEF_SLOTS,
	        .key_bytes = ASK_DEF_KEY_BYTES,
	        .op = ASK_OP_ADD,
	        .kfmt = ASK_KFMT_TEXT,
	        .transport = HX_AUTO,
	};
}

/* Adds one input to c->src; prints why it cannot. */
static int add_input(struct ask_cli *c, int opt, const char *arg)
{
	struct ask_zipf_spec z;
	int rc;

	if (c->src == NULL && (c->src = ask_src_new()) == NULL)
		return -ENOMEM;
	if (opt == ASK_CLI_ZIPF) {
		if (ask_zipf_parse(arg, &z) < 0)
			return -EINVAL;
		rc = ask_src_add_zipf(c->src, &z);
	} else {
		rc = opt == ASK_CLI_WORDS ? ask_src_add_words(c->src, arg)
		                          : ask_src_add_tuples(c->src, arg);
		if (rc < 0) {
			fprintf(stderr, "%s: %s\n", program_invocation_short_name,
			        ask_src_error(c->src));
			return 1; /* said already */
		}
	}
	if (rc == 0)
		c->ninputs++;
	return rc;
}

int ask_cli_option(struct ask_cli *c, int opt, const char *arg, const struct option *lo)
{
	int bad = 0;

	switch (opt) {
	case ASK_CLI_TASK:
		bad = host_parse_uint(arg, 0, UINT16_MAX, &c->task);
		break;
	case ASK_CLI_JOB: {
		uint64_t v;
		bad = host_parse_count(arg, UINT32_MAX, &v);
		if (bad == 0 && v == 0)
			bad = -EINVAL;
		c->job = (uint32_t)v;
		break;
	}
	case ASK_CLI_INCARNATION:
		bad = host_parse_uint(arg, 1, UINT16_MAX, &c->incarnation);
		break;
	case ASK_CLI_CHANNEL:
		bad = host_parse_uint(arg, 0, UINT16_MAX, &c->channel);
		break;
	case ASK_CLI_CHANNELS:
		bad = host_parse_uint(arg, 1, 65536, &c->channels);
		break;
	case ASK_CLI_WINDOW:
		bad = host_parse_uint(arg, 1, ASK_WINDOW_MAX, &c->window);
		if (bad == 0 && (c->window & (c->window - 1)) != 0)
			bad = -EINVAL;
		break;
	case ASK_CLI_SLOTS:
		bad = host_parse_uint(arg, 1, ASK_SLOTS_MAX, &c->slots);
		break;
	case ASK_CLI_KEY_BYTES:
		bad = host_parse_uint(arg, 4, 16, &c->key_bytes);
		if (bad == 0 && !ask_key_bytes_ok(c->key_bytes))
			bad = -EINVAL;
		break;
	case ASK_CLI_OP:
		bad = ask_op_parse(arg, &c->op);
		break;
	case ASK_CLI_KEY_FORMAT:
		bad = ask_kfmt_parse(arg, &c->kfmt);
		break;
	case ASK_CLI_JSON:
		c->json = 1;
		break;
	case ASK_CLI_TRANSPORT:
		bad = hx_kind_parse(arg, &c->transport);
		break;
	case ASK_CLI_BUSY_POLL:
		c->busy_poll = 1;
		break;
	case ASK_CLI_WORDS:
	case ASK_CLI_TUPLES:
	case ASK_CLI_ZIPF:
		bad = add_input(c, opt, arg);
		if (bad == 1)
			return -1;
		break;
	default:
		return 0;
	}
	if (bad == 0)
		return 1;
	fprintf(stderr, "%s: --%s: bad value '%s'\n", program_invocation_short_name,
	        host_opt_name(lo, opt), arg);
	return -1;
}

int ask_cli_write_table(const struct ask_cli *c, const struct ask_table *t, const char *path)
{
	bool std = strcmp(path, "-") == 0;
	FILE *f = std ? stdout : fopen(path, "w");
	int rc;

	if (f == NULL) {
		fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, path,
		        strerror(errno));
		return -1;
	}
	rc = ask_table_write(t, f, c->kfmt, c->key_bytes);
	if (std ? fflush(f) != 0 : fclose(f) != 0)
		rc = -EIO;
	if (rc < 0) {
		fprintf(stderr, "%s: writing %s: %s\n", program_invocation_short_name, path,
		        strerror(-rc));
		return -1;
	}
	return 0;
}
