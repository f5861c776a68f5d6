/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the control plane: every input is one command line run by the real
 * registry and handlers (core and l2, flowcount), on a dataplane set up as in test_cmd (three
 * ports, no workers). A reply must always be one line of JSON that starts with {"ok":.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "dp.h"
#include "pipeline.h"
#include "pre.h"
#include "steer.h"
#include "xdp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct isw_json out;
	static int ready;
	if (!ready) {
		char err[256];
		isw_dp.nb_ports = 3;
		if (isw_port_conf_init() < 0 || isw_mc_init(3) < 0 ||
		    isw_pipeline_init(err, sizeof(err)) < 0)
			abort();
		/* As the daemon: what follows from the whole configuration after every command
		 * (the steering rules from the pipelines' owner maps; no AF_XDP port here). */
		if (isw_cmd_on_success(isw_steer_refresh) < 0 ||
		    isw_cmd_on_success(isw_xdp_refresh) < 0)
			abort();
		isw_json_init(&out);
		ready = 1;
	}
	char *line = malloc(size + 1);
	if (line == NULL)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	isw_cmd_exec_n(line, size, &out);
	const char *r = isw_json_str(&out);
	if (strncmp(r, "{\"ok\":", 6) != 0 || strchr(r, '\n') != NULL || r[strlen(r) - 1] != '}')
		abort();
	free(line);
	return 0;
}
