/* SPDX-License-Identifier: BSD-3-Clause */
/* The job runner (host_job.h): threads that wait on a generation counter for each call. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_job.h"

struct host_job_thread {
	struct host_job *j;
	unsigned t;
	pthread_t tid;
};

struct host_job {
	host_job_fn fn;
	void *arg;
	unsigned n;
	struct host_job_thread *th;
	pthread_mutex_t lock; /* gen, running, quit */
	pthread_cond_t go;    /* gen moved, or quit */
	pthread_cond_t done;  /* running reached 0 (CLOCK_MONOTONIC, for the ticks) */
	uint64_t gen;
	unsigned running;
	int quit;
	atomic_bool stop;
	atomic_int rc; /* this run's first failure */
	pthread_mutex_t errlock;
	char err[256];
};

static void *thread_main(void *arg)
{
	struct host_job_thread *th = arg;
	struct host_job *j = th->j;
	uint64_t seen = 0;

	pthread_mutex_lock(&j->lock);
	for (;;) {
		while (j->gen == seen && !j->quit)
			pthread_cond_wait(&j->go, &j->lock);
		if (j->quit)
			break;
		seen = j->gen;
		pthread_mutex_unlock(&j->lock);
		j->fn(j->arg, th->t);
		pthread_mutex_lock(&j->lock);
		if (--j->running == 0)
			pthread_cond_signal(&j->done);
	}
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

static void stop_threads(struct host_job *j, unsigned started)
{
	pthread_mutex_lock(&j->lock);
	j->quit = 1;
	pthread_cond_broadcast(&j->go);
	pthread_mutex_unlock(&j->lock);
	for (unsigned t = 0; t < started; t++)
		pthread_join(j->th[t].tid, NULL);
}

static void free_job(struct host_job *j)
{
	pthread_cond_destroy(&j->go);
	pthread_cond_destroy(&j->done);
	pthread_mutex_destroy(&j->lock);
	pthread_mutex_destroy(&j->errlock);
	free(j->th);
	free(j);
}

struct host_job *host_job_create(unsigned threads, const char *name, host_job_fn fn, void *arg,
                                 char *err, size_t errlen)
{
	struct host_job *j = calloc(1, sizeof(*j));
	pthread_condattr_t ca;
	unsigned t;
	int rc;

	if (!j || !threads || !(j->th = calloc(threads, sizeof(*j->th)))) {
		rc = threads ? ENOMEM : EINVAL;
		snprintf(err, errlen, "job runner: %s", threads ? strerror(rc) : "no threads");
		free(j);
		errno = rc;
		return NULL;
	}
	j->fn = fn;
	j->arg = arg;
	j->n = threads;
	pthread_mutex_init(&j->lock, NULL);
	pthread_mutex_init(&j->errlock, NULL);
	pthread_cond_init(&j->go, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->done, &ca);
	pthread_condattr_destroy(&ca);
	for (t = 0; t < threads; t++) {
		char tname[32];

		j->th[t] = (struct host_job_thread){.j = j, .t = t};
		rc = pthread_create(&j->th[t].tid, NULL, thread_main, &j->th[t]);
		if (rc) {
			snprintf(err, errlen, "starting thread %u: %s", t, strerror(rc));
			stop_threads(j, t);
			free_job(j);
			errno = rc;
			return NULL;
		}
		/* the kernel keeps 15 bytes of a thread's name */
		snprintf(tname, sizeof(tname), "%.10s/%u", name, t);
		tname[15] = '\0';
		pthread_setname_np(j->th[t].tid, tname); /* a name is a nicety: ignore failure */
	}
	return j;
}

void host_job_destroy(struct host_job *j)
{
	if (!j)
		return;
	stop_threads(j, j->n);
	free_job(j);
}

int host_job_run(struct host_job *j, host_job_tick_fn tick, void *tick_arg, unsigned tick_ms)
{
	uint64_t next = host_now_ns() + (uint64_t)tick_ms * 1000000u;

	pthread_mutex_lock(&j->errlock);
	j->err[0] = '\0';
	atomic_store(&j->rc, 0);
	pthread_mutex_unlock(&j->errlock);
	atomic_store(&j->stop, false);
	pthread_mutex_lock(&j->lock);
	j->running = j->n;
	j->gen++;
	pthread_cond_broadcast(&j->go);
	while (j->running) {
		struct timespec until;
		uint64_t now;

		if (!tick) {
			pthread_cond_wait(&j->done, &j->lock);
			continue;
		}
		until.tv_sec = (time_t)(next / 1000000000u);
		until.tv_nsec = (long)(next % 1000000000u);
		pthread_cond_timedwait(&j->done, &j->lock, &until);
		now = host_now_ns();
		if (!j->running || now < next)
			continue;
		next = now + (uint64_t)tick_ms * 1000000u;
		pthread_mutex_unlock(&j->lock);
		tick(tick_arg);
		pthread_mutex_lock(&j->lock);
	}
	pthread_mutex_unlock(&j->lock);
	return atomic_load(&j->rc);
}

void host_job_fail(struct host_job *j, int rc, const char *fmt, ...)
{
	int none = 0;
	va_list ap;

	pthread_mutex_lock(&j->errlock);
	if (atomic_compare_exchange_strong(&j->rc, &none, rc < 0 ? rc : -EIO)) {
		va_start(ap, fmt);
		vsnprintf(j->err, sizeof(j->err), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&j->errlock);
	atomic_store(&j->stop, true);
}

void host_job_stop(struct host_job *j)
{
	atomic_store(&j->stop, true);
}

bool host_job_stopping(const struct host_job *j)
{
	return atomic_load_explicit(&j->stop, memory_order_relaxed);
}

const char *host_job_error(const struct host_job *j)
{
	return j->err[0] ? j->err : NULL;
}

unsigned host_job_threads(const struct host_job *j)
{
	return j->n;
}
