/* SPDX-License-Identifier: BSD-3-Clause */
/* A job's start on the switch (atp_engine.h, atp_job_start; docs/atp.md, Job lifetime). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atp_engine.h"
#include "host_ctl.h"

/* One command; 0 with the reply in reply, or -errno with err set. */
static int ctl(const char *path, const char *cmd, char *reply, size_t replylen, char *err,
               size_t errlen)
{
	char msg[512];
	int rc = host_ctl_command(path, cmd, reply, replylen);

	if (rc < 0) {
		snprintf(err, errlen, "control socket %s: %s", path, strerror(-rc));
		return rc;
	}
	if (!host_ctl_ok(reply)) {
		host_ctl_error(reply, msg, sizeof(msg));
		snprintf(err, errlen, "'%s' refused: %s", cmd, msg);
		return -EIO;
	}
	return 0;
}

/* The job the switch names for the app ('atp app show APP'): 0 and *job, or -ENOENT if none. */
static int named_job(const char *reply, uint64_t *job)
{
	const char *j = strstr(reply, "\"job\":");
	char *end;

	if (!j || j[6] == '"')
		return -ENOENT;
	*job = strtoull(j + 6, &end, 10);
	return end == j + 6 ? -ENOENT : 0;
}

int atp_job_start(const char *path, unsigned app, unsigned id, uint32_t job, unsigned wait_s,
                  uint32_t *freed, char *err, size_t errlen)
{
	char cmd[96], reply[2048];
	struct timespec ts = {0, 20 * 1000 * 1000};
	uint64_t named = 0;
	int rc;

	*freed = 0;
	if (id == 0) {
		snprintf(cmd, sizeof(cmd), "atp app reset %u job %u", app, job);
		rc = ctl(path, cmd, reply, sizeof(reply), err, errlen);
		if (rc == 0) {
			const char *n = strstr(reply, "\"aggregators_freed\":");
			*freed = n ? (uint32_t)strtoul(n + 20, NULL, 10) : 0;
		}
		return rc;
	}
	snprintf(cmd, sizeof(cmd), "atp app show %u", app);
	for (unsigned k = 0; k < wait_s * 50u; k++) {
		rc = ctl(path, cmd, reply, sizeof(reply), err, errlen);
		if (rc < 0)
			return rc;
		if (named_job(reply, &named) == 0 && named == job)
			return 0;
		nanosleep(&ts, NULL);
	}
	if (named_job(reply, &named) == 0)
		snprintf(err, errlen,
		         "worker 0 did not start job %u on the switch within %u s (app %u's last "
		         "job is %llu): start worker 0 with the control socket and the same job",
		         job, wait_s, app, (unsigned long long)named);
	else
		snprintf(err, errlen,
		         "worker 0 did not start job %u on the switch within %u s (app %u has no "
		         "job yet): start worker 0 with the control socket and the same job",
		         job, wait_s, app);
	return -ETIMEDOUT;
}
