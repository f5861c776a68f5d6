/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The job runner every host stack shares: a set of threads that lives as long as the
 * communicator that owns it (an engine, a worker), so that an allreduce of a small bucket, which
 * a DDP job makes once per bucket per step, pays a wake-up instead of a thread's start and join.
 *
 * host_job_run() hands one call to every thread (fn(arg, t) on thread t), waits until each has
 * returned, and meanwhile calls a progress function at a steady interval. A thread that fails
 * says why with host_job_fail(), which also tells the others to stop (host_job_stopping()). The
 * first failure since the last run began is the one kept (its rc and message): the others are
 * usually its consequences.
 *
 * Not for the fast path: a run takes a mutex and a condition variable, once per call.
 */
#ifndef ISW_HOST_JOB_H
#define ISW_HOST_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "host_clock.h"

struct host_job;

/* One thread's part of a call: t is the thread, 0..threads-1. */
typedef void (*host_job_fn)(void *arg, unsigned t);
/* Called from host_job_run()'s caller every tick_ms while the threads run. */
typedef void (*host_job_tick_fn)(void *arg);

/*
 * Starts threads that wait for calls; name ("sa", "atp") names them name/0, name/1, ... in ps
 * and gdb. NULL with errno set (and err saying why) if a thread cannot be started; the ones
 * already started are stopped.
 */
struct host_job *host_job_create(unsigned threads, const char *name, host_job_fn fn, void *arg,
                                 char *err, size_t errlen);

/* Stops and joins the threads; j may be NULL. Not while a run is under way. */
void host_job_destroy(struct host_job *j);

/*
 * Runs fn on every thread once and returns when all have returned; tick (may be NULL) is called
 * about every tick_ms meanwhile, on the calling thread. Clears the stop request first. Returns 0
 * when nothing called host_job_fail() during this run, else the first failure's rc (-errno).
 * One run at a time.
 */
int host_job_run(struct host_job *j, host_job_tick_fn tick, void *tick_arg, unsigned tick_ms);

/*
 * A failure (rc: -errno; 0 counts as -EIO): asks every thread to stop, and is kept, rc and
 * message, if it is the first since the last run began. Callable outside a run too (an argument
 * refused before one).
 */
void host_job_fail(struct host_job *j, int rc, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Asks every thread to stop this run, with no message (another thread's failure said why). */
void host_job_stop(struct host_job *j);

/* True once a stop was asked for in this run: the threads' loops look at it. */
bool host_job_stopping(const struct host_job *j);

/* The kept failure's message, or NULL when none. */
const char *host_job_error(const struct host_job *j);

/* The number of threads. */
unsigned host_job_threads(const struct host_job *j);

#endif
