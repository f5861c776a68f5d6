/* SPDX-License-Identifier: BSD-3-Clause */
/* Session helper: see sa_session.h. */
#include <errno.h>
#include <ifaddrs.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "host_clock.h"
#include "host_ctl.h"
#include "sa_session.h"

static int iface_mac(const char *ifname, uint8_t mac[6])
{
	struct ifreq ifr;
	int fd, rc = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		rc = -errno;
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
	return rc;
}

/* Which interface holds ip. */
static int iface_of(struct in_addr ip, char *ifname, size_t len)
{
	struct ifaddrs *ifa, *i;
	int rc = -ENODEV;

	if (getifaddrs(&ifa) < 0)
		return -errno;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		if (((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == ip.s_addr) {
			snprintf(ifname, len, "%s", i->ifa_name);
			rc = 0;
			break;
		}
	}
	freeifaddrs(ifa);
	return rc;
}

int sa_local_find(struct in_addr switch_ip, uint16_t port, struct sa_local *loc, char *err,
                  size_t errlen)
{
	struct sockaddr_in sw = {.sin_family = AF_INET, .sin_port = htons(port)}, me;
	socklen_t mlen = sizeof(me);
	int fd, rc = 0;

	memset(loc, 0, sizeof(*loc));
	sw.sin_addr = switch_ip;
	/* A connected UDP socket makes the kernel pick the route and source address; nothing is
	 * sent. */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sw, sizeof(sw)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&me, &mlen) < 0) {
		rc = -errno;
		snprintf(err, errlen, "no route to %s: %s", inet_ntoa(switch_ip), strerror(-rc));
		close(fd);
		return rc;
	}
	close(fd);
	loc->ip = me.sin_addr;
	rc = iface_of(loc->ip, loc->ifname, sizeof(loc->ifname));
	if (rc < 0) {
		snprintf(err, errlen, "no interface holds %s", inet_ntoa(loc->ip));
		return rc;
	}
	rc = iface_mac(loc->ifname, loc->mac);
	if (rc < 0) {
		snprintf(err, errlen, "MAC of %s: %s", loc->ifname, strerror(-rc));
		return rc;
	}
	if (!(loc->mac[0] | loc->mac[1] | loc->mac[2] | loc->mac[3] | loc->mac[4] | loc->mac[5])) {
		snprintf(err, errlen, "%s has no MAC (is %s reached over loopback?)", loc->ifname,
		         inet_ntoa(switch_ip));
		return -EADDRNOTAVAIL;
	}
	return 0;
}

/*
 * Runs cmd. 0 when ok; 1 when refused because what it adds exists (EEXIST: the caller checks
 * whether what exists is compatible); otherwise -errno (the switch's code, or the socket's
 * errno), with the reason in err.
 */
static int ctl_run(const char *path, const char *cmd, FILE *log, char *err, size_t errlen)
{
	struct isw_ctl_reply r;
	int rc = host_ctl_call(path, cmd, &r, err, errlen);
	const struct isw_jv *exists = isw_jv_get(r.root, "exists");

	if (rc == 0 && log)
		fprintf(log, "ctl: %s: ok%s\n", cmd,
		        exists && exists->type == ISW_JV_BOOL && exists->boolean
		                ? " (already there)"
		                : "");
	if (r.err == EEXIST)
		rc = 1;
	isw_ctl_reply_free(&r);
	return rc;
}

/*
 * 'syncagtr session show ID' (with live-ms when not 0) into r, to be freed by the caller; *sess
 * the session's object in it. 0, -ENOENT (no such session), or -errno with the reason in err
 * (may be NULL).
 */
static int session_show(const char *path, unsigned session, unsigned live_ms,
                        struct isw_ctl_reply *r, const struct isw_jv **sess, char *err,
                        size_t errlen)
{
	char cmd[96];
	int rc;

	if (live_ms)
		snprintf(cmd, sizeof(cmd), "syncagtr session show %u live-ms %u", session, live_ms);
	else
		snprintf(cmd, sizeof(cmd), "syncagtr session show %u", session);
	rc = host_ctl_call(path, cmd, r, err, errlen);
	*sess = rc == 0 ? host_ctl_find(r->root, "sessions", "session", session) : NULL;
	return rc == 0 && *sess == NULL ? -ENOENT : rc;
}

/*
 * A session that exists with other settings is still usable if it has this switch IP, this
 * number of workers and at least threads * window slots (say an operator made it bigger).
 */
static int session_fits(const struct sa_engine_cfg *cfg, const char *path, unsigned session,
                        FILE *log, char *err, size_t errlen)
{
	char want[INET_ADDRSTRLEN];
	const struct isw_jv *s;
	struct isw_ctl_reply r;
	const char *ip;
	long slots, workers, threads;
	int rc = 0;

	if (session_show(path, session, 0, &r, &s, NULL, 0) < 0) {
		isw_ctl_reply_free(&r);
		return -EEXIST; /* err still says why the add was refused */
	}
	inet_ntop(AF_INET, &cfg->switch_ip, want, sizeof(want));
	ip = host_ctl_str(s, "ip");
	slots = host_ctl_num(s, "slots");
	workers = host_ctl_num(s, "workers");
	threads = host_ctl_num(s, "threads");
	if (!ip || strcmp(ip, want) != 0) {
		snprintf(err, errlen, "session %u exists with switch IP %s, not %s", session,
		         ip ? ip : "?", want);
		rc = -EEXIST;
	} else if (workers != (long)cfg->workers) {
		snprintf(err, errlen, "session %u exists with %ld workers, not %u", session,
		         workers, cfg->workers);
		rc = -EEXIST;
	} else if (host_ctl_num(s, "gen") <= 0 && slots < (long)sa_engine_cfg_slots(cfg)) {
		/* (a session whose region has changed sets the window: sa_session_join_region) */
		snprintf(
		        err, errlen,
		        "session %u exists with %ld slots; this worker needs %u (threads * window)",
		        session, slots, sa_engine_cfg_slots(cfg));
		rc = -ENOSPC;
	}
	isw_ctl_reply_free(&r);
	if (rc < 0)
		return rc;
	/* Results stay exact with other threads (or none); only the steering rules would no longer
	 * follow this worker's threads, so the switch hands more packets between its lcores. */
	if (log && threads != (long)cfg->threads)
		fprintf(log,
		        "ctl: session %u is split among %ld threads, this worker has %u: steering "
		        "by source port will not match its owners (docs/deploy.md, Steering)\n",
		        session, threads, cfg->threads);
	if (log)
		fprintf(log, "ctl: session %u exists with %ld slots: using it\n", session, slots);
	return 0;
}

static const char *or_unknown(const char *s)
{
	return s ? s : "?";
}

/* The port_from a registration with `port attach` gets: "l2", "auto" or "given". */
static const char *attach_from(const char *attach)
{
	return strcmp(attach, "l2") == 0 || strcmp(attach, "auto") == 0 ? attach : "given";
}

/*
 * A rank that is already registered is fine if it is registered as us: this host's MAC and IP,
 * and the same kind of port (a number: that number). Anything else would leave results going
 * to another port, or a rendezvous waiting for a port that is never learned. With free_ok, a
 * rank nobody holds is fine too.
 */
static int member_is_us(const struct sa_engine_cfg *cfg, const char *path, unsigned session,
                        const char *mac, const char *ip, const char *attach, int free_ok, char *err,
                        size_t errlen)
{
	char gotmac[32] = "?", gotip[INET_ADDRSTRLEN] = "?", from[16] = "?";
	const struct isw_jv *s, *m;
	struct isw_ctl_reply r;
	long port = -1;

	if (session_show(path, session, 0, &r, &s, NULL, 0) < 0) {
		isw_ctl_reply_free(&r);
		return -EIO;
	}
	m = host_ctl_find(r.root, "members", "rank", cfg->rank);
	if (m) {
		snprintf(gotmac, sizeof(gotmac), "%s", or_unknown(host_ctl_str(m, "mac")));
		snprintf(gotip, sizeof(gotip), "%s", or_unknown(host_ctl_str(m, "ip")));
		snprintf(from, sizeof(from), "%s", or_unknown(host_ctl_str(m, "port_from")));
		port = host_ctl_num(m, "port");
	}
	isw_ctl_reply_free(&r);
	if (!m && free_ok)
		return 0;
	if (m && strcasecmp(gotmac, mac) == 0 && strcmp(gotip, ip) == 0 &&
	    strcmp(from, attach_from(attach)) == 0 &&
	    (strcmp(from, "given") != 0 || port == strtol(attach, NULL, 10)))
		return 0;
	if (m && strcasecmp(gotmac, mac) == 0 && strcmp(gotip, ip) == 0) {
		snprintf(err, errlen,
		         "rank %u of session %u is registered with port %ld (%s), not 'port %s'; "
		         "'syncagtr worker del %u %u' first",
		         cfg->rank, session, port, from, attach, session, cfg->rank);
		return -EEXIST;
	}
	snprintf(err, errlen,
	         "rank %u of session %u is registered as %s %s, not this host (%s %s); "
	         "'syncagtr worker del %u %u' first",
	         cfg->rank, session, gotmac, gotip, mac, ip, session, cfg->rank);
	return -EEXIST;
}

unsigned sa_reg_flags(int barrier, int reset)
{
	return (reset ? SA_REG_RESET : 0) | (!barrier && !reset ? SA_REG_CLEAN : 0);
}

int sa_options_check(int ctl, int barrier, char *err, size_t errlen)
{
	if (barrier || ctl)
		return 0;
	snprintf(err, errlen,
	         "skipping the start barrier needs the switch's control socket (ctl): without it "
	         "nothing shows the session's slots clean, and a run on slots another run left "
	         "takes that run's sums");
	return -EINVAL;
}

/*
 * SA_REG_CLEAN: no packet reached the session's slots since its epoch began (the switch's
 * epoch_pkts), so they hold nothing of another run. Asked before this worker registers: no rank
 * of this run sends before every rank is registered, so whatever is counted is another run's.
 */
static int session_clean(const char *path, unsigned session, char *err, size_t errlen)
{
	const struct isw_jv *s;
	struct isw_ctl_reply r;
	long pkts = -1, epoch = -1;
	int rc = session_show(path, session, 0, &r, &s, NULL, 0);

	if (rc == 0) {
		pkts = host_ctl_num(s, "epoch_pkts");
		epoch = host_ctl_num(s, "epoch");
	}
	isw_ctl_reply_free(&r);
	if (rc < 0) {
		snprintf(err, errlen, "'syncagtr session show %u' failed", session);
		return -EIO;
	}
	if (pkts < 0) {
		snprintf(err, errlen,
		         "the switch does not say whether session %u's slots are clean (no "
		         "epoch_pkts: an older inswitch?); run with the start barrier or a reset",
		         session);
		return -EOPNOTSUPP;
	}
	if (pkts == 0)
		return 0;
	snprintf(err, errlen,
	         "session %u holds another run's state (%ld packets reached its slots in its "
	         "epoch %ld): refused to run without the start barrier and without a reset, whose "
	         "first results would be that run's; let rank 0 reset the session (the default), "
	         "or keep the barrier",
	         session, pkts, epoch);
	return -EBUSY;
}

int sa_session_register(const struct sa_engine_cfg *cfg, const char *ctl_path, unsigned session,
                        const char *attach, unsigned flags, char *rejoin, size_t rejoinlen,
                        FILE *log, char *err, size_t errlen)
{
	struct sa_local loc;
	int rc = sa_local_find(cfg->switch_ip, cfg->switch_port, &loc, err, errlen);

	if (rc < 0)
		return rc;
	return sa_session_register_as(cfg, &loc, ctl_path, session, attach, flags, rejoin,
	                              rejoinlen, log, err, errlen);
}

int sa_session_register_as(const struct sa_engine_cfg *cfg, const struct sa_local *loc,
                           const char *ctl_path, unsigned session, const char *attach,
                           unsigned flags, char *rejoin, size_t rejoinlen, FILE *log, char *err,
                           size_t errlen)
{
	char cmd[256], swip[INET_ADDRSTRLEN], myip[INET_ADDRSTRLEN], mac[32];
	int rc;

	inet_ntop(AF_INET, &cfg->switch_ip, swip, sizeof(swip));
	inet_ntop(AF_INET, &loc->ip, myip, sizeof(myip));
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", loc->mac[0], loc->mac[1],
	         loc->mac[2], loc->mac[3], loc->mac[4], loc->mac[5]);
	if (log)
		fprintf(log, "ctl: this worker is %s %s on %s\n", myip, mac, loc->ifname);
	/* threads and worker-port: the switch owns each thread's slot range on one lcore, so NIC
	 * steering by source port can bring every packet to its owner (docs/deploy.md). */
	snprintf(cmd, sizeof(cmd),
	         "syncagtr session add %u ip %s workers %u slots %u threads %u worker-port %u",
	         session, swip, cfg->workers, sa_engine_cfg_slots(cfg), cfg->threads,
	         cfg->worker_port);
	rc = ctl_run(ctl_path, cmd, log, err, errlen);
	if (rc == 1)
		rc = session_fits(cfg, ctl_path, session, log, err, errlen);
	if (rc < 0)
		return rc;
	if ((flags & SA_REG_CLEAN) && (rc = session_clean(ctl_path, session, err, errlen)) < 0)
		return rc;
	if ((flags & SA_REG_RESET) && cfg->rank == 0) {
		/* Not another host's rank 0: its job would be the one reset. */
		rc = member_is_us(cfg, ctl_path, session, mac, myip, attach, 1, err, errlen);
		if (rc < 0)
			return rc;
		snprintf(cmd, sizeof(cmd), "syncagtr session reset %u", session);
		rc = ctl_run(ctl_path, cmd, log, err, errlen);
		if (rc != 0)
			return rc < 0 ? rc : -EIO;
	}
	snprintf(cmd, sizeof(cmd), "syncagtr worker add %u %u mac %s ip %s port %s", session,
	         cfg->rank, mac, myip, attach);
	if (rejoin)
		snprintf(rejoin, rejoinlen, "%s", cmd);
	rc = ctl_run(ctl_path, cmd, log, err, errlen);
	if (rc == 1)
		rc = member_is_us(cfg, ctl_path, session, mac, myip, attach, 0, err, errlen);
	return rc;
}

int sa_session_region(const char *ctl_path, unsigned session, unsigned *gen, unsigned *slots,
                      unsigned *threads, char *err, size_t errlen)
{
	const struct isw_jv *s, *chg, *old;
	struct isw_ctl_reply r;
	int rc = session_show(ctl_path, session, 0, &r, &s, err, errlen);

	if (rc == 0 && !s) {
		snprintf(err, errlen, "no session %u on the switch", session);
		rc = -ENOENT;
	}
	if (rc == 0) {
		long g = host_ctl_num(s, "gen"), n = host_ctl_num(s, "slots");
		chg = isw_jv_get(s, "changing");
		old = isw_jv_get(s, "old_region");
		if (chg && chg->type == ISW_JV_BOOL && chg->boolean && old &&
		    old->type == ISW_JV_OBJECT) {
			g--;
			n = host_ctl_num(old, "slots");
		}
		*threads = (unsigned)host_ctl_num(s, "threads");
		if (g < 0 || n <= 0) {
			snprintf(err, errlen, "session %u: no region generation in its description",
			         session);
			rc = -EPROTO;
		} else {
			*gen = (unsigned)g;
			*slots = (unsigned)n;
		}
	}
	isw_ctl_reply_free(&r);
	return rc;
}

int sa_session_join_region(const char *ctl_path, unsigned session, struct sa_engine *w,
                           const struct sa_engine_cfg *cfg, char *err, size_t errlen)
{
	unsigned gen, slots, threads;
	int rc = sa_session_region(ctl_path, session, &gen, &slots, &threads, err, errlen);

	if (rc < 0 || gen == 0)
		return rc;
	if (threads != cfg->threads) {
		snprintf(err, errlen,
		         "session %u's region has changed, and it is split among %u threads: this "
		         "worker has %u and cannot follow it",
		         session, threads, cfg->threads);
		return -EINVAL;
	}
	if (sa_engine_set_region(w, gen, slots) < 0) {
		snprintf(err, errlen,
		         "session %u's region of %u slots does not split among %u threads", session,
		         slots, cfg->threads);
		return -EINVAL;
	}
	return (int)gen;
}

int sa_session_unregister(const struct sa_engine_cfg *cfg, const char *ctl_path, unsigned session)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "syncagtr worker del %u %u", session, cfg->rank);
	return host_ctl_run(ctl_path, cmd, NULL, 0);
}

/* True when some member of the reply has no port yet (a string such as "not seen yet"). */
static int port_missing(const struct isw_jv *root)
{
	const struct isw_jv *m = isw_jv_get(root, "members"), *port;

	for (size_t i = 0; m && m->type == ISW_JV_ARRAY && i < m->n; i++)
		if ((port = isw_jv_get(&m->items[i], "port")) && port->type == ISW_JV_STRING)
			return 1;
	return 0;
}

int sa_session_wait_ports(const struct sa_engine_cfg *cfg, const char *ctl_path, unsigned session,
                          int learned, const char *rejoin, uint64_t since_ns, unsigned timeout_ms)
{
	char err[256];
	uint64_t arrived = (since_ns ? since_ns : host_now_ns()) / 1000000u;
	unsigned waited;

	for (waited = 0;; waited += 20) {
		const struct isw_jv *s;
		struct isw_ctl_reply r;
		int done;

		/*
		 * A waiting worker registers again on every round, and counts as live only the
		 * members of the current epoch (since the last 'session reset', rank 0's --reset)
		 * registered since it registered itself (live-ms: the time since, and a ms for the
		 * rounding). A registration a dead worker left, however fresh when it died, or one
		 * from before the reset, does not let anyone start; every member that waits with
		 * it registers again within 20 ms, and one that stops waiting registers once more
		 * first (below), after it saw this one's registration: so it is never waited for in
		 * vain. (Since this one's arrival here was not enough: another could see this one's
		 * registration, register once more and go before this one, slowed by a loaded
		 * host, arrived; it then waited for it in vain, seen in CI.)
		 */
		if (rejoin && ctl_run(ctl_path, rejoin, NULL, err, sizeof(err)) < 0)
			return -EIO;
		uint64_t since = host_now_ns() / 1000000u - arrived + 1;
		if (session_show(ctl_path, session,
		                 rejoin ? (unsigned)(since < 60000 ? since : 60000) : 0, &r, &s,
		                 NULL, 0) < 0) {
			isw_ctl_reply_free(&r);
			return -EIO;
		}
		done = host_ctl_num(s, rejoin ? "live" : "current") >= (long)cfg->workers &&
		       (!learned || !port_missing(r.root));
		isw_ctl_reply_free(&r);
		if (done) {
			if (rejoin && ctl_run(ctl_path, rejoin, NULL, err, sizeof(err)) < 0)
				return -EIO;
			return 0;
		}
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		usleep(20000);
	}
}

int sa_session_diagnose(const char *ctl_path, unsigned session, unsigned workers, char *out,
                        size_t len)
{
	const struct isw_jv *s, *c;
	struct isw_ctl_reply r;
	long reg, cur;
	int rc;

	rc = host_ctl_run(ctl_path, "syncagtr session show", out, len);
	if (rc < 0)
		return rc;
	rc = session_show(ctl_path, session, 0, &r, &s, out, len);
	if (rc < 0) {
		isw_ctl_reply_free(&r);
		if (rc != -ENOENT)
			return rc;
		snprintf(out, len,
		         "the switch has no session %u (deleted, or the switch restarted?)",
		         session);
		return -ENOENT;
	}
	reg = host_ctl_num(s, "registered");
	cur = host_ctl_num(s, "current");
	c = host_ctl_find(r.root, "counters", "session", session);
	if (reg >= 0 && reg < (long)workers)
		snprintf(out, len, "only %ld of the %u workers of session %u are registered", reg,
		         workers, session);
	else if (cur >= 0 && cur < reg)
		snprintf(out, len,
		         "only %ld of the %ld workers of session %u are registered in its current "
		         "epoch %ld (since its last reset): the switch drops the others' packets "
		         "(sa-epoch, %ld so far) until they register again",
		         cur, reg, session, host_ctl_num(s, "epoch"),
		         host_ctl_num(c, "drop_epoch"));
	else
		snprintf(
		        out, len,
		        "session %u has all %u workers; the switch counted %ld packets, %ld "
		        "completions, %ld retransmissions, %ld dropped resends to incomplete slots",
		        session, workers, host_ctl_num(c, "pkts"), host_ctl_num(c, "completions"),
		        host_ctl_num(c, "retransmits"), host_ctl_num(c, "drop_retx_pending"));
	isw_ctl_reply_free(&r);
	return 0;
}
