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
 * Runs cmd. 0 when ok; when refused with a message containing "exists", 1 (the caller checks
 * whether what exists is compatible); otherwise -EIO, -errno, with the reason in err.
 */
static int ctl_run(const char *path, const char *cmd, FILE *log, char *err, size_t errlen)
{
	char reply[4096];
	int rc = host_ctl_run(path, cmd, reply, sizeof(reply), err, errlen);

	if (rc == 0 && log)
		fprintf(log, "ctl: %s: ok%s\n", cmd,
		        strstr(reply, "\"exists\":true") ? " (already there)" : "");
	return rc == -EIO && strstr(err, "exists") ? 1 : rc;
}

/* The text of "key":"..." from p on, or NULL. */
static int reply_string(const char *p, const char *key, char *out, size_t len)
{
	char pat[64];
	size_t n = 0;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	p = strstr(p, pat);
	if (!p)
		return -1;
	for (p += strlen(pat); *p && *p != '"' && n + 1 < len; p++)
		out[n++] = *p;
	out[n] = '\0';
	return 0;
}

static int session_show(const char *path, unsigned session, char *reply, size_t len)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "syncagtr session show %u", session);
	return host_ctl_command(path, cmd, reply, len) == 0 && host_ctl_ok(reply) ? 0 : -EIO;
}

/*
 * A session that exists with other settings is still usable if it has this switch IP, this
 * number of workers and at least threads * window slots (say an operator made it bigger).
 */
static int session_fits(const struct sa_config *cfg, const char *path, unsigned session, FILE *log,
                        char *err, size_t errlen)
{
	char reply[8192], ip[INET_ADDRSTRLEN], want[INET_ADDRSTRLEN];
	long slots, workers;

	if (session_show(path, session, reply, sizeof(reply)) < 0)
		return -EIO; /* err still says why the add was refused */
	inet_ntop(AF_INET, &cfg->switch_ip, want, sizeof(want));
	slots = host_ctl_number(reply, "slots");
	workers = host_ctl_number(reply, "workers");
	if (reply_string(reply, "ip", ip, sizeof(ip)) < 0 || strcmp(ip, want) != 0) {
		snprintf(err, errlen, "session %u exists with switch IP %s, not %s", session, ip,
		         want);
		return -EEXIST;
	}
	if (workers != (long)cfg->workers) {
		snprintf(err, errlen, "session %u exists with %ld workers, not %u", session,
		         workers, cfg->workers);
		return -EEXIST;
	}
	if (slots < (long)sa_config_slots(cfg)) {
		snprintf(
		        err, errlen,
		        "session %u exists with %ld slots; this worker needs %u (threads * window)",
		        session, slots, sa_config_slots(cfg));
		return -ENOSPC;
	}
	/* Results stay exact with other threads (or none); only the steering rules would no longer
	 * follow this worker's threads, so the switch hands more packets between its lcores. */
	long threads = host_ctl_number(reply, "threads");
	if (log && threads != (long)cfg->threads)
		fprintf(log,
		        "ctl: session %u is split among %ld threads, this worker has %u: steering "
		        "by source port will not match its owners (docs/deploy.md, Steering)\n",
		        session, threads, cfg->threads);
	if (log)
		fprintf(log, "ctl: session %u exists with %ld slots: using it\n", session, slots);
	return 0;
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
static int member_is_us(const struct sa_config *cfg, const char *path, unsigned session,
                        const char *mac, const char *ip, const char *attach, int free_ok, char *err,
                        size_t errlen)
{
	char reply[8192], pat[32], gotmac[32] = "?", gotip[INET_ADDRSTRLEN] = "?", from[16] = "?";
	const char *p;
	long port = -1;

	if (session_show(path, session, reply, sizeof(reply)) < 0)
		return -EIO;
	snprintf(pat, sizeof(pat), "\"rank\":%u,", cfg->rank);
	p = strstr(reply, pat);
	if (p) {
		reply_string(p, "mac", gotmac, sizeof(gotmac));
		reply_string(p, "ip", gotip, sizeof(gotip));
		reply_string(p, "port_from", from, sizeof(from));
		port = host_ctl_number(p, "port");
	} else if (free_ok) {
		return 0;
	}
	if (p && strcasecmp(gotmac, mac) == 0 && strcmp(gotip, ip) == 0 &&
	    strcmp(from, attach_from(attach)) == 0 &&
	    (strcmp(from, "given") != 0 || port == strtol(attach, NULL, 10)))
		return 0;
	if (p && strcasecmp(gotmac, mac) == 0 && strcmp(gotip, ip) == 0) {
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
	char reply[8192];
	long pkts, epoch;

	if (session_show(path, session, reply, sizeof(reply)) < 0) {
		snprintf(err, errlen, "'syncagtr session show %u' failed", session);
		return -EIO;
	}
	pkts = host_ctl_number(reply, "epoch_pkts");
	epoch = host_ctl_number(reply, "epoch");
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

int sa_session_register(const struct sa_config *cfg, const char *ctl_path, unsigned session,
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

int sa_session_register_as(const struct sa_config *cfg, const struct sa_local *loc,
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
	         session, swip, cfg->workers, sa_config_slots(cfg), cfg->threads, cfg->worker_port);
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

int sa_session_unregister(const struct sa_config *cfg, const char *ctl_path, unsigned session)
{
	char cmd[64], reply[512];
	int rc;

	snprintf(cmd, sizeof(cmd), "syncagtr worker del %u %u", session, cfg->rank);
	rc = host_ctl_command(ctl_path, cmd, reply, sizeof(reply));
	return rc < 0 ? rc : host_ctl_ok(reply) ? 0 : -EIO;
}

int sa_session_wait_ports(const struct sa_config *cfg, const char *ctl_path, unsigned session,
                          int learned, const char *rejoin, unsigned timeout_ms)
{
	char reply[16384], err[256], cmd[96];
	uint64_t arrived = host_now_ns() / 1000000u;
	unsigned waited;

	for (waited = 0;; waited += 20) {
		/*
		 * A waiting worker registers again on every round, and counts as live only the
		 * members of the current epoch (since the last 'session reset', rank 0's --reset)
		 * registered since it arrived here (live-ms: the time since, and a ms for the
		 * rounding). A registration a dead worker left, however fresh when it died, or one
		 * from before the reset, does not let anyone start; every member that waits with
		 * it registers again within 20 ms, and one that stops waiting registers once more
		 * first (below), so it is never waited for in vain.
		 */
		if (rejoin && ctl_run(ctl_path, rejoin, NULL, err, sizeof(err)) < 0)
			return -EIO;
		uint64_t since = host_now_ns() / 1000000u - arrived + 1;
		if (rejoin)
			snprintf(cmd, sizeof(cmd), "syncagtr session show %u live-ms %u", session,
			         (unsigned)(since < 1000 ? since : 1000));
		else
			snprintf(cmd, sizeof(cmd), "syncagtr session show %u", session);
		if (host_ctl_command(ctl_path, cmd, reply, sizeof(reply)) < 0 ||
		    !host_ctl_ok(reply))
			return -EIO;
		if (host_ctl_number(reply, rejoin ? "live" : "current") >= (long)cfg->workers &&
		    (!learned || !strstr(reply, "\"port\":\""))) {
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
	char reply[16384];
	const char *c;
	long reg, cur;
	int rc;

	rc = host_ctl_run(ctl_path, "syncagtr session show", reply, sizeof(reply), out, len);
	if (rc < 0)
		return rc;
	rc = session_show(ctl_path, session, reply, sizeof(reply));
	if (rc < 0) {
		snprintf(out, len,
		         "the switch has no session %u (deleted, or the switch restarted?)",
		         session);
		return -ENOENT;
	}
	reg = host_ctl_number(reply, "registered");
	if (reg >= 0 && reg < (long)workers) {
		snprintf(out, len, "only %ld of the %u workers of session %u are registered", reg,
		         workers, session);
		return 0;
	}
	c = strstr(reply, "\"counters\":");
	cur = host_ctl_number(reply, "current");
	if (cur >= 0 && cur < reg) {
		snprintf(out, len,
		         "only %ld of the %ld workers of session %u are registered in its current "
		         "epoch %ld (since its last reset): the switch drops the others' packets "
		         "(sa-epoch, %ld so far) until they register again",
		         cur, reg, session, host_ctl_number(reply, "epoch"),
		         c ? host_ctl_number(c, "drop_epoch") : -1);
		return 0;
	}
	snprintf(out, len,
	         "session %u has all %u workers; the switch counted %ld packets, %ld completions, "
	         "%ld retransmissions, %ld dropped resends to incomplete slots",
	         session, workers, c ? host_ctl_number(c, "pkts") : -1,
	         c ? host_ctl_number(c, "completions") : -1,
	         c ? host_ctl_number(c, "retransmits") : -1,
	         c ? host_ctl_number(c, "drop_retx_pending") : -1);
	return 0;
}
