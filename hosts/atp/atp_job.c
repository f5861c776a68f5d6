/* SPDX-License-Identifier: BSD-3-Clause */
/* A job's start on the switch (atp_engine.h, atp_job_start; docs/atp.md, Job lifetime). */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "atp_engine.h"
#include "host_ctl.h"

int atp_job_start(const char *path, unsigned app, unsigned id, uint32_t job, unsigned wait_s,
                  uint32_t *freed, char *err, size_t errlen)
{
	char cmd[96], reply[2048];
	struct timespec ts = {0, 20 * 1000 * 1000};
	long named = -1;
	int rc;

	*freed = 0;
	if (id == 0) {
		snprintf(cmd, sizeof(cmd), "atp app reset %u job %u", app, job);
		rc = host_ctl_run(path, cmd, reply, sizeof(reply), err, errlen);
		long n = rc == 0 ? host_ctl_number(reply, "aggregators_freed") : -1;
		*freed = n > 0 ? (uint32_t)n : 0;
		return rc;
	}
	snprintf(cmd, sizeof(cmd), "atp app show %u", app);
	for (unsigned k = 0; k < wait_s * 50u; k++) {
		rc = host_ctl_run(path, cmd, reply, sizeof(reply), err, errlen);
		if (rc < 0)
			return rc;
		named = host_ctl_number(reply, "job");
		if (named == (long)job)
			return 0;
		nanosleep(&ts, NULL);
	}
	if (named >= 0)
		snprintf(err, errlen,
		         "worker 0 did not start job %u on the switch within %u s (app %u's last "
		         "job is %ld): start worker 0 with the control socket and the same job",
		         job, wait_s, app, named);
	else
		snprintf(err, errlen,
		         "worker 0 did not start job %u on the switch within %u s (app %u has no "
		         "job yet): start worker 0 with the control socket and the same job",
		         job, wait_s, app);
	return -ETIMEDOUT;
}
