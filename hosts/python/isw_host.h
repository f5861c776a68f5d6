/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libinswitch-host: the host libraries behind one small C interface, for the Python package
 * (hosts/python/inswitch, through ctypes) and any other language with a C FFI.
 *
 * A communicator is one worker of one SyncAgtr session or ATP app: it is opened once, then
 * allreduces buffers in place, any number of times; every worker of the session must make the
 * same calls (same counts, types and verify flags) in the same order. After a failed call the
 * communicator is broken: every later call fails at once, and it must be closed. The exception
 * is -EBADMSG: the job completed on every worker (the buffer holds what the switch sent), only
 * its check failed, and the communicator can go on.
 *
 * int functions return 0 or -errno and write a message to err: -ETIMEDOUT (no result for
 * give_up_s; the message says what the switch knows of the session), -EBADMSG (verify: the
 * result is not the sum of what the workers sent), -EINVAL (bad parameters), -EPIPE (broken
 * earlier), -ENOENT/-EEXIST/-EIO (the switch refused the registration; its reason is in err),
 * -EBUSY (no_barrier and no_reset, and the session holds another run's state).
 * Blocking; not thread-safe per communicator.
 */
#ifndef ISW_HOST_H
#define ISW_HOST_H

#include <stddef.h>
#include <stdint.h>

/* Bumped on every change of the structures below (the Python side checks it). */
#define ISW_HOST_API_VERSION 8

unsigned isw_host_api_version(void);

enum isw_dtype {
	ISW_INT32 = 0,
	ISW_FLOAT32 = 1,
};

/* SyncAgtr worker parameters; 0 (or NULL) takes the default shown. */
struct isw_sa_params {
	uint32_t size;             /* sizeof(struct isw_sa_params) */
	uint32_t rank;             /* 0..workers-1 */
	uint32_t workers;          /* 1..32 */
	uint32_t session;          /* 1..64 (1) */
	uint32_t threads;          /* (4) */
	uint32_t window;           /* packets in flight per thread (128) */
	uint32_t elems;            /* values per packet, 64 or 256 (256) */
	uint32_t timeout_ms;       /* least retransmission timeout (20) */
	uint32_t give_up_s;        /* fail after this long without a result (20) */
	uint32_t first_timeout_ms; /* least timeout of a first window (250); UINT32_MAX for 0 */
	uint32_t guard_ms;         /* (3); UINT32_MAX for 0 */
	uint32_t worker_port;      /* UDP port of thread 0 (4000) */
	uint32_t no_reset;         /* with ctl, rank 0 does not start a new epoch of the session
	                            * (session reset) at registration; trades safety */
	uint32_t no_barrier;       /* skip the start barrier (all workers must agree; needs ctl,
	                            * and with no_reset clean slots); trades safety */
	const char *switch_ip;
	const char *ctl;       /* inswitch's control socket: register there; NULL: do not */
	const char *attach;    /* with ctl: "l2" (NULL), "auto" or a port number */
	const char *transport; /* "auto" (NULL), "xdp" or "socket": hosts/README.md */
};

struct isw_host_stats {
	uint64_t jobs;        /* allreduce calls that completed */
	uint64_t elements;    /* elements they reduced */
	uint64_t packets;     /* sent, resends included */
	uint64_t retransmits; /* resent after a timeout */
	uint64_t results;     /* results taken */
	uint64_t duplicates;  /* results for packets already done */
	uint64_t verified;    /* jobs whose verify check passed */
	double seconds;       /* time in allreduce jobs */
};

struct isw_sa;

/*
 * Opens the sockets, registers (with ctl) and waits for every worker, runs the start barrier.
 * Closing takes the registration back, so the next run's workers wait for each other again.
 */
struct isw_sa *isw_sa_open(const struct isw_sa_params *p, char *err, size_t errlen);
/* buf[0..count) := the sum over workers of their buf, in place. verify: see isw_host.c. */
int isw_sa_allreduce(struct isw_sa *h, void *buf, uint64_t count, int dtype, int verify, char *err,
                     size_t errlen);
void isw_sa_stats(const struct isw_sa *h, struct isw_host_stats *out);
void isw_sa_close(struct isw_sa *h);

/* ATP worker parameters (atp-worker's options); 0 takes the default shown. */
struct isw_atp_params {
	uint32_t size;         /* sizeof(struct isw_atp_params) */
	uint32_t id;           /* this worker, 0..workers-1 */
	uint32_t workers;      /* 1..32 */
	uint32_t app;          /* 1..12, configured on the switch (atp app add) */
	uint32_t nps;          /* parameter servers of the app (1) */
	uint32_t threads;      /* 1..20 (1) */
	uint32_t window;       /* aggregators per thread (100) */
	uint32_t pool;         /* the switch's aggregator pool (20000) */
	uint32_t timeout_ms;   /* resend timeout (20) */
	uint32_t give_up_s;    /* (20) */
	uint32_t cc;           /* AIMD on ECN */
	double scale;          /* float32 -> int32 scale; the PS needs the same (2^20) */
	const char *dev;       /* the interface towards the switch */
	const char *transport; /* "auto" (NULL: AF_XDP where it can be set up), "xdp", "socket" */
};

struct isw_atp;

/* Opens the threads' sockets (AF_XDP or AF_PACKET: CAP_NET_RAW, and CAP_NET_ADMIN and CAP_BPF
 * for AF_XDP). The PS and the switch's app must exist. The first allreduce JOINs the app's job
 * (the PS names it once every worker has JOINed); every later one runs in the same job. */
struct isw_atp *isw_atp_open(const struct isw_atp_params *p, char *err, size_t errlen);
/* buf[0..count) := the sum over the app's workers, in place. verify: see isw_host.c
 * (-EBADMSG, "saturated" or "wrong", when the result is not the sum). */
int isw_atp_allreduce(struct isw_atp *h, void *buf, uint64_t count, int dtype, int verify,
                      char *err, size_t errlen);
void isw_atp_stats(const struct isw_atp *h, struct isw_host_stats *out);
void isw_atp_close(struct isw_atp *h);

#endif
