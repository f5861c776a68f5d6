/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libinswitch-host: see isw_host.h. A thin layer over the SyncAgtr worker library (sa_engine,
 * sa_session) and the ATP engine (atp_engine): parameters with defaults, registration and the
 * start of a run in one call, in-place allreduce with an end-to-end check (verify), errors as
 * -errno and text.
 *
 * verify: the job runs with the engine's result checksums (sa_engine_set_checksums): each
 * thread's last packet carries what it sent, and its result, the sum over the workers, is
 * compared with what this worker received (sa_engine_verify). It costs one packet per thread
 * and no round trip of its own, and catches any result that is not the sum of its round
 * (another round's, a stale slot's, a corrupted word).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "atp_engine.h"
#include "host_clock.h"
#include "hx.h"
#include "isw_host.h"
#include "sa_session.h"
#include "sa_engine.h"

struct isw_sa {
	struct sa_engine_cfg cfg;
	struct sa_engine *w;
	char ctl[256];
	unsigned session;
	int registered;   /* taken back at close, so that the next run's rendezvous waits again */
	char rejoin[256]; /* the 'worker add' line, to register again after a reset */
	int broken;
	char broke[512]; /* why */
	struct isw_host_stats st;
};

unsigned isw_host_api_version(void)
{
	return ISW_HOST_API_VERSION;
}

static uint32_t or_default(uint32_t v, uint32_t def)
{
	return v ? v : def;
}

/* What every allreduce checks first: a communicator still usable, a dtype, a buffer. */
static int call_check(int broken, const char *broke, const void *buf, uint64_t count, int dtype,
                      char *err, size_t errlen)
{
	if (broken) {
		snprintf(err, errlen, "this communicator failed earlier (%s); close it", broke);
		return -EPIPE;
	}
	if (dtype != ISW_INT32 && dtype != ISW_FLOAT32) {
		snprintf(err, errlen, "dtype %d is neither int32 (0) nor float32 (1)", dtype);
		return -EINVAL;
	}
	if (count > SIZE_MAX / 4 || (count && !buf)) {
		snprintf(err, errlen, "no buffer of %llu elements", (unsigned long long)count);
		return -EINVAL;
	}
	return 0;
}

/* The engine's configuration from p; -EINVAL with the reason in err. */
static int sa_params(const struct isw_sa_params *p, struct sa_engine_cfg *c, char *err,
                     size_t errlen)
{
	if (!p || p->size != sizeof(*p)) {
		snprintf(err, errlen,
		         "parameter block of %u bytes, this library takes %zu (version %u)",
		         p ? p->size : 0, sizeof(*p), ISW_HOST_API_VERSION);
		return -EINVAL;
	}
	sa_engine_cfg_default(c);
	c->rank = p->rank;
	c->workers = p->workers;
	c->threads = or_default(p->threads, c->threads);
	c->window = or_default(p->window, c->window);
	c->elems = or_default(p->elems, c->elems);
	c->timeout_ms = or_default(p->timeout_ms, c->timeout_ms);
	if (c->timeout_max_ms < c->timeout_ms)
		c->timeout_max_ms = c->timeout_ms;
	c->give_up_s = or_default(p->give_up_s, c->give_up_s);
	c->first_timeout_ms = p->first_timeout_ms == UINT32_MAX
	                              ? 0
	                              : or_default(p->first_timeout_ms, c->first_timeout_ms);
	c->guard_ms = p->guard_ms == UINT32_MAX ? 0 : or_default(p->guard_ms, c->guard_ms);
	c->worker_port = (uint16_t)or_default(p->worker_port, c->worker_port);
	if (p->worker_port > 65535) {
		snprintf(err, errlen, "worker_port %u is not a UDP port", p->worker_port);
		return -EINVAL;
	}
	if (!p->switch_ip || inet_pton(AF_INET, p->switch_ip, &c->switch_ip) != 1) {
		snprintf(err, errlen, "switch_ip '%s' is not an IPv4 address",
		         p->switch_ip ? p->switch_ip : "");
		return -EINVAL;
	}
	if (p->session < 1 || p->session > 64) {
		snprintf(err, errlen, "session %u is not in 1..64", p->session);
		return -EINVAL;
	}
	if (p->transport) {
		enum hx_kind k;

		if (hx_kind_parse(p->transport, &k) < 0) {
			snprintf(err, errlen, "transport '%s' is not socket, xdp or auto",
			         p->transport);
			return -EINVAL;
		}
		c->transport = (int)k;
	}
	if (p->attach && strcmp(p->attach, "l2") && strcmp(p->attach, "auto") &&
	    (!p->attach[0] || strlen(p->attach) > 5 ||
	     strspn(p->attach, "0123456789") != strlen(p->attach) || atoi(p->attach) > 65535)) {
		snprintf(err, errlen, "attach '%s' is not l2, auto or a port number", p->attach);
		return -EINVAL;
	}
	return sa_engine_cfg_check(c, err, errlen);
}

/*
 * Registration and rendezvous on the control socket, once the sockets are open: the others'
 * rendezvous waits for this worker's registration, so it must be ready to send by then.
 */
static int sa_join(struct isw_sa *h, const struct isw_sa_params *p, char *err, size_t errlen)
{
	const char *attach = p->attach ? p->attach : "l2";
	int rc;

	if (strlen(p->ctl) >= sizeof(h->ctl)) {
		snprintf(err, errlen, "control socket path too long");
		return -ENAMETOOLONG;
	}
	snprintf(h->ctl, sizeof(h->ctl), "%s", p->ctl);
	uint64_t since = host_now_ns();
	rc = sa_session_register(&h->cfg, h->ctl, h->session, attach,
	                         sa_reg_flags(!p->no_barrier, !p->no_reset), h->rejoin,
	                         sizeof(h->rejoin), NULL, err, errlen);
	if (rc < 0)
		return rc;
	h->registered = 1;
	rc = sa_session_wait_ports(&h->cfg, h->ctl, h->session, 0, h->rejoin, since,
	                           h->cfg.give_up_s * 1000u);
	if (rc < 0) {
		char why[512];
		sa_session_diagnose(h->ctl, h->session, h->cfg.workers, why, sizeof(why));
		snprintf(err, errlen, "not every worker registered within %u s: %s",
		         h->cfg.give_up_s, why);
		return rc;
	}
	/* the region the session's workers use now (docs/memory.md) */
	rc = sa_session_join_region(h->ctl, h->session, h->w, &h->cfg, err, errlen);
	return rc < 0 ? rc : 0;
}

struct isw_sa *isw_sa_open(const struct isw_sa_params *p, char *err, size_t errlen)
{
	struct isw_sa *h = calloc(1, sizeof(*h));
	struct sa_stats st = {0};
	int rc = -ENOMEM;

	if (!h) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	rc = sa_params(p, &h->cfg, err, errlen);
	if (rc == 0)
		rc = sa_options_check(p->ctl != NULL, !p->no_barrier, err, errlen);
	if (rc < 0)
		goto fail;
	h->session = p->session;
	h->w = sa_engine_create(&h->cfg, err, errlen);
	if (!h->w) {
		rc = -errno;
		goto fail;
	}
	if (p->ctl && (rc = sa_join(h, p, err, errlen)) < 0)
		goto fail;
	if (!p->no_barrier && (rc = sa_engine_barrier(h->w, &st)) < 0) {
		snprintf(err, errlen, "%s", sa_engine_error(h->w));
		goto fail;
	}
	/* "port auto" members have their ports only once everyone has sent: wait for them. */
	if (p->ctl && p->attach && strcmp(p->attach, "auto") == 0 &&
	    sa_session_wait_ports(&h->cfg, h->ctl, h->session, 1, NULL, 0, 2000) < 0) {
		snprintf(err, errlen, "the switch has not learned every worker's port");
		rc = -ETIMEDOUT;
		goto fail;
	}
	return h;
fail:
	isw_sa_close(h);
	errno = rc < 0 ? -rc : EINVAL;
	return NULL;
}

/* Marks h broken with the engine's error and what the switch says; returns rc. */
static int sa_broken(struct isw_sa *h, int rc, char *err, size_t errlen)
{
	char why[512] = "";

	if (h->ctl[0] && rc == -ETIMEDOUT)
		sa_session_diagnose(h->ctl, h->session, h->cfg.workers, why, sizeof(why));
	snprintf(h->broke, sizeof(h->broke), "%s%s%s", sa_engine_error(h->w), why[0] ? "; " : "",
	         why);
	h->broken = 1;
	snprintf(err, errlen, "%s", h->broke);
	return rc;
}

/* A job's engine figures into the communicator's. */
static void sa_count(struct isw_sa *h, const struct sa_stats *st)
{
	h->st.packets += st->packets;
	h->st.retransmits += st->retransmits;
	h->st.results += st->results;
	h->st.duplicates += st->duplicates;
	h->st.seconds += st->seconds;
}

/* The verify check: what the workers sent, summed, against what this worker received. */
static int sa_check(struct isw_sa *h, char *err, size_t errlen)
{
	int rc = sa_engine_verify(h->w, NULL, err, errlen);

	if (rc == 0)
		h->st.verified++;
	else if (rc != -EBADMSG)
		return sa_broken(h, rc, err, errlen);
	return rc;
}

int isw_sa_allreduce(struct isw_sa *h, void *buf, uint64_t count, int dtype, int verify, char *err,
                     size_t errlen)
{
	struct sa_stats st = {0};
	int rc = call_check(h->broken, h->broke, buf, count, dtype, err, errlen);

	if (rc < 0)
		return rc;
	sa_engine_set_type(h->w, dtype == ISW_FLOAT32 ? SA_FLOAT32 : SA_INT32);
	sa_engine_set_checksums(h->w, verify);
	rc = sa_engine_allreduce(h->w, buf, buf, (size_t)count, &st, NULL, NULL);
	sa_count(h, &st);
	if (rc < 0)
		return sa_broken(h, rc, err, errlen);
	h->st.jobs++;
	h->st.elements += count;
	return verify ? sa_check(h, err, errlen) : 0;
}

void isw_sa_stats(const struct isw_sa *h, struct isw_host_stats *out)
{
	*out = h->st;
}

void isw_sa_close(struct isw_sa *h)
{
	if (!h)
		return;
	if (h->registered)
		sa_session_unregister(&h->cfg, h->ctl, h->session);
	sa_engine_destroy(h->w);
	free(h);
}

/* ---- ATP ---- */

struct isw_atp {
	struct atp_engine *e;
	int broken;
	char broke[512];
	struct isw_host_stats st;
};

struct isw_atp *isw_atp_open(const struct isw_atp_params *p, char *err, size_t errlen)
{
	struct atp_engine_cfg c = {0};
	struct isw_atp *h;

	if (!p || p->size != sizeof(*p)) {
		snprintf(err, errlen,
		         "parameter block of %u bytes, this library takes %zu (version %u)",
		         p ? p->size : 0, sizeof(*p), ISW_HOST_API_VERSION);
		errno = EINVAL;
		return NULL;
	}
	atp_cli_defaults(&c.cli);
	c.cli.app = p->app;
	c.cli.workers = p->workers;
	c.cli.nps = or_default(p->nps, c.cli.nps);
	c.cli.threads = or_default(p->threads, c.cli.threads);
	c.cli.window = or_default(p->window, c.cli.window);
	c.cli.pool = or_default(p->pool, c.cli.pool);
	c.cli.scale = p->scale > 0 ? p->scale : c.cli.scale;
	c.cli.dev = p->dev;
	if (p->transport && hx_kind_parse(p->transport, &c.cli.transport) < 0) {
		snprintf(err, errlen, "transport '%s' is not socket, xdp or auto", p->transport);
		errno = EINVAL;
		return NULL;
	}
	c.id = p->id;
	c.timeout_ms = or_default(p->timeout_ms, 20);
	c.give_up_s = or_default(p->give_up_s, 20);
	c.cc = (int)p->cc;
	c.tool = "inswitch.ATP";
	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	h->e = atp_engine_create(&c, err, errlen);
	if (!h->e) {
		int e = errno;
		free(h);
		errno = e;
		return NULL;
	}
	return h;
}

/*
 * verify: the call runs with the engine's checksums, then atp_engine_verify() allreduces what
 * every worker sent (one more round trip) and compares it with what this worker got (-EBADMSG,
 * "saturated" or "wrong", when the result is not the sum; float results, summed by the PS, are
 * not covered: docs/atp.md, Job lifetime).
 */
int isw_atp_allreduce(struct isw_atp *h, void *buf, uint64_t count, int dtype, int verify,
                      char *err, size_t errlen)
{
	struct atp_engine_stats st = {0};
	int rc = call_check(h->broken, h->broke, buf, count, dtype, err, errlen);

	if (rc < 0)
		return rc;
	atp_engine_set_verify(h->e, verify);
	rc = atp_engine_allreduce(h->e, buf, buf, count, dtype == ISW_FLOAT32, &st, NULL, NULL);
	if (rc < 0)
		snprintf(err, errlen, "%s", atp_engine_error(h->e));
	else if (verify)
		rc = atp_engine_verify(h->e, &st, err, errlen);
	h->st.packets += st.sent;
	h->st.retransmits += st.resends;
	h->st.results += st.acks;
	h->st.duplicates += st.dup_acks;
	h->st.seconds += st.seconds;
	if (rc < 0 && rc != -EBADMSG) {
		snprintf(h->broke, sizeof(h->broke), "%s", err);
		h->broken = 1;
		return rc;
	}
	/* -EBADMSG: the job completed, only its check failed: the communicator goes on. */
	h->st.jobs++;
	h->st.elements += count;
	h->st.verified += verify && rc == 0;
	return rc;
}

void isw_atp_stats(const struct isw_atp *h, struct isw_host_stats *out)
{
	*out = h->st;
}

void isw_atp_close(struct isw_atp *h)
{
	if (!h)
		return;
	atp_engine_destroy(h->e);
	free(h);
}
