/* SPDX-License-Identifier: BSD-3-Clause */
/* The command-line options atp-worker and atp-ps share, parsed in one place. */

#include <stdlib.h>

#include "atp_host.h"
#include "host_args.h"
#include "hx.h"

void atp_cli_defaults(struct atp_cli *c)
{
	*c = (struct atp_cli){
	        .nps = 1,
	        .threads = 1,
	        .window = ATP_DEF_WINDOW,
	        .pool = ATP_DEF_POOL,
	        .scale = ATP_DEF_SCALE,
	};
}

int atp_cli_option(struct atp_cli *c, int opt, const char *arg)
{
	char *end;
	int bad = 0;

	switch (opt) {
	case 'a':
		bad = host_parse_uint(arg, 1, 12, &c->app);
		break;
	case 'n':
		bad = host_parse_uint(arg, 1, ATP_WORKERS_MAX, &c->workers);
		break;
	case 'p':
		bad = host_parse_uint(arg, 1, ATP_PS_MAX, &c->nps);
		break;
	case 'd':
		c->dev = arg;
		break;
	case 't':
		bad = host_parse_uint(arg, 1, ATP_THREADS_PER_APP, &c->threads);
		break;
	case 'w':
		bad = host_parse_uint(arg, 1, ATP_POOL_MAX, &c->window);
		break;
	case ATP_CLI_POOL:
		bad = host_parse_uint(arg, 1, ATP_POOL_MAX, &c->pool);
		break;
	case ATP_CLI_SCALE:
		c->scale = strtod(arg, &end);
		bad = *end != '\0' || !(c->scale > 0);
		break;
	case ATP_CLI_TRANSPORT:
		bad = hx_kind_parse(arg, &c->transport);
		break;
	case ATP_CLI_BUSY_POLL:
		c->busy_poll = 1;
		break;
	case 'j':
		c->json = 1;
		break;
	case 'q':
		c->quiet = 1;
		break;
	default:
		return 0;
	}
	return bad ? -1 : 1;
}
