/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * host-job: what a call costs the host stacks in thread management alone (bench/README.md, "The
 * job runner"): T threads started and joined per call, as the SyncAgtr and ATP engines did up to
 * issue 26, against one wake-up of the job runner's threads (host_job.h), which live as long as
 * the communicator. Each call's work is empty, so the figure is the fixed cost a DDP job pays once
 * per bucket per step. Timed with CLOCK_MONOTONIC; the two ways alternate in rounds so the CPU's
 * speed swings hit both alike. A benchmark, not a test: it prints figures and asserts nothing.
 *
 *   host-job [CALLS [ROUNDS]]    (default 2000 calls a round, 5 rounds; T = 1, 2, 4)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "host_job.h"

static atomic_uint sink;

static void work(void *arg, unsigned t)
{
	(void)arg;
	atomic_fetch_add_explicit(&sink, t + 1, memory_order_relaxed);
}

static void *work_main(void *arg)
{
	work(NULL, (unsigned)(uintptr_t)arg);
	return NULL;
}

/* Nanoseconds a call: start and join n threads. */
static double per_call_create(unsigned n, unsigned calls)
{
	pthread_t tid[8];
	uint64_t t0 = host_now_ns();

	for (unsigned c = 0; c < calls; c++) {
		for (unsigned t = 0; t < n; t++)
			if (pthread_create(&tid[t], NULL, work_main, (void *)(uintptr_t)t)) {
				perror("pthread_create");
				exit(1);
			}
		for (unsigned t = 0; t < n; t++)
			pthread_join(tid[t], NULL);
	}
	return (double)(host_now_ns() - t0) / calls;
}

/* Nanoseconds a call: one run of the runner's n threads. */
static double per_call_runner(struct host_job *j, unsigned calls)
{
	uint64_t t0 = host_now_ns();

	for (unsigned c = 0; c < calls; c++)
		host_job_run(j, NULL, NULL, 0);
	return (double)(host_now_ns() - t0) / calls;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned calls = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 2000;
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 5;
	static const unsigned ns[] = {1, 2, 4};
	char err[128];

	if (!calls || !rounds || rounds > 64) {
		fprintf(stderr, "usage: host-job [CALLS [ROUNDS (1..64)]]\n");
		return 2;
	}
	printf("threads  create+join ns/call (min med max)  runner ns/call (min med max)  ratio\n");
	for (unsigned i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		struct host_job *j = host_job_create(ns[i], "bench", work, NULL, err, sizeof(err));
		double c[64], r[64];

		if (!j) {
			fprintf(stderr, "host-job: %s\n", err);
			return 1;
		}
		for (unsigned k = 0; k < rounds; k++) {
			c[k] = per_call_create(ns[i], calls);
			r[k] = per_call_runner(j, calls);
		}
		host_job_destroy(j);
		qsort(c, rounds, sizeof(c[0]), cmp);
		qsort(r, rounds, sizeof(r[0]), cmp);
		printf("%7u  %9.0f %9.0f %9.0f            %9.0f %9.0f %9.0f    %5.2f\n", ns[i],
		       c[0], c[rounds / 2], c[rounds - 1], r[0], r[rounds / 2], r[rounds - 1],
		       r[rounds / 2] / c[rounds / 2]);
	}
	return 0;
}
