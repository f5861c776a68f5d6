/* SPDX-License-Identifier: BSD-3-Clause */
/* inswitch's XDP program on AF_XDP ports: hand-over to net_af_xdp, configuration, `port xdp`. */

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <rte_ethdev.h>

#include "cmd.h"
#include "dp.h"
#include "pipeline.h"
#include "xdp.h"
#include "xdp_prog.h"

_Static_assert(ISW_CLAIMS_MAX_IPS == ISW_XDP_MAX_ADDRS,
               "claims must fit the program's address map");
_Static_assert(ISW_CLAIMS_MAX_ETHERTYPES == ISW_XDP_MAX_ETHERTYPES,
               "claims must fit the program's EtherType list");

/* The program's object file, embedded at build time (embed.py). */
extern const unsigned char isw_xdp_obj[];
extern const size_t isw_xdp_obj_len;

/* An AF_XDP device named on the command line. */
struct xdp_dev {
	char vdev[64];           /* device name: the --vdev string up to its first comma */
	char iface[IF_NAMESIZE]; /* its iface= argument */
	bool ours;               /* inswitch's program, not one the user named (xdp_prog=) */
	bool shared;             /* --xdp-shared: the kernel keeps what is not the switch's */
	bool up;                 /* isw_xdp_ports_init() found the port and configured it */
	unsigned start_queue;    /* its start_queue= argument */
	uint16_t port;
	uint32_t prog_id;
	int conf_fd, addrs_fd, counts_fd;
};

static struct {
	struct xdp_dev dev[RTE_MAX_ETHPORTS];
	unsigned nb_devs;
	int memfd;   /* the program, for net_af_xdp to load */
	char **argv; /* the rewritten vector, when one was needed */
	char **strs; /* the strings it owns */
	unsigned nb_strs;
	struct isw_claims applied; /* what the shared ports' programs hold */
	bool refreshed;            /* applied is valid */
} xdp = {.memfd = -1};

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	RTE_SET_USED(level);
	RTE_SET_USED(fmt);
	RTE_SET_USED(ap);
	return 0;
}

/* The value of key= in a device string (after its name), copied to out; false if absent. */
static bool devarg(const char *s, const char *key, char *out, size_t outlen)
{
	size_t klen = strlen(key);
	for (const char *p = strchr(s, ','); p != NULL; p = strchr(p + 1, ',')) {
		if (strncmp(p + 1, key, klen) != 0 || p[1 + klen] != '=')
			continue;
		const char *v = p + 2 + klen;
		size_t n = strcspn(v, ",");
		if (out != NULL)
			snprintf(out, outlen, "%.*s", (int)(n < outlen ? n : outlen - 1), v);
		return true;
	}
	return false;
}

/* The map of a loaded program called name, as a new fd; -errno if it has none. */
static int prog_map_fd(int prog_fd, const char *name)
{
	uint32_t ids[16];
	struct bpf_prog_info pi = {.nr_map_ids = RTE_DIM(ids), .map_ids = (uintptr_t)ids};
	uint32_t len = sizeof(pi);
	if (bpf_obj_get_info_by_fd(prog_fd, &pi, &len) < 0)
		return -errno;
	for (uint32_t i = 0; i < RTE_MIN(pi.nr_map_ids, (uint32_t)RTE_DIM(ids)); i++) {
		int fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		struct bpf_map_info mi = {0};
		uint32_t mlen = sizeof(mi);
		if (bpf_obj_get_info_by_fd(fd, &mi, &mlen) == 0 && strcmp(mi.name, name) == 0)
			return fd;
		close(fd);
	}
	return -ENOENT;
}

/* Is pid an inswitch other than this one, alive and not exiting? */
static bool running_inswitch(uint32_t pid)
{
	char path[64], buf[256] = "";
	if (pid == 0 || pid == (uint32_t)getpid())
		return false;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return false;
	bool got = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	/* "PID (COMM) STATE ...": a zombie (Z) or dead (X) process holds nothing. */
	const char *close_paren = strrchr(buf, ')');
	if (!got || strncmp(strchr(buf, '(') ? strchr(buf, '(') + 1 : "", "inswitch", 8) != 0 ||
	    close_paren == NULL || close_paren[1] == '\0')
		return false;
	return close_paren[2] != 'Z' && close_paren[2] != 'X';
}

/*
 * Is pid a live inswitch? One killed a moment ago may still be tearing down its memory: it is
 * given a few seconds to go before the interface counts as taken.
 */
static bool live_inswitch(uint32_t pid)
{
	for (int i = 0; i < 30 && running_inswitch(pid); i++)
		usleep(100 * 1000);
	return running_inswitch(pid);
}

/*
 * Before the device is probed: an interface must carry no XDP program, or one a dead inswitch
 * left (then removed here). Another tool's program, or a running inswitch's, is refused.
 */
static int iface_clear(const char *iface, char *err, size_t errlen)
{
	int ifindex = (int)if_nametoindex(iface);
	if (ifindex == 0)
		return 0; /* net_af_xdp names the missing interface itself */
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	if (bpf_xdp_query(ifindex, 0, &q) < 0 || q.prog_id == 0)
		return 0;
	int fd = bpf_prog_get_fd_by_id(q.prog_id);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: cannot inspect its XDP program (id %u): %s", iface,
		         q.prog_id, strerror(e));
		return -e;
	}
	struct bpf_prog_info pi = {0};
	uint32_t len = sizeof(pi);
	int rc = bpf_obj_get_info_by_fd(fd, &pi, &len) < 0 ? -errno : 0;
	struct isw_xdp_conf conf = {0};
	if (rc == 0 && strcmp(pi.name, ISW_XDP_PROG_NAME) == 0) {
		int conf_fd = prog_map_fd(fd, "isw_conf");
		uint32_t zero = 0;
		if (conf_fd >= 0) {
			bpf_map_lookup_elem(conf_fd, &zero, &conf);
			close(conf_fd);
		}
	}
	close(fd);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot inspect its XDP program (id %u): %s", iface,
		         q.prog_id, strerror(-rc));
		return rc;
	}
	if (strcmp(pi.name, ISW_XDP_PROG_NAME) != 0) {
		snprintf(
		        err, errlen,
		        "%s has XDP program '%s' (id %u) attached: inswitch does not replace "
		        "another "
		        "tool's program (remove it with: ip link set dev %s xdp off; or give yours "
		        "to net_af_xdp with xdp_prog=)",
		        iface, pi.name, q.prog_id, iface);
		return -EBUSY;
	}
	if (live_inswitch(conf.pid)) {
		snprintf(err, errlen, "%s is in use by the inswitch of pid %u", iface, conf.pid);
		return -EBUSY;
	}
	uint32_t mode = q.attach_mode == XDP_ATTACHED_SKB   ? XDP_FLAGS_SKB_MODE
	                : q.attach_mode == XDP_ATTACHED_HW  ? XDP_FLAGS_HW_MODE
	                : q.attach_mode == XDP_ATTACHED_DRV ? XDP_FLAGS_DRV_MODE
	                                                    : 0;
	if (bpf_xdp_detach(ifindex, mode, NULL) < 0) {
		int e = errno;
		snprintf(err, errlen,
		         "%s: removing the XDP program (id %u) an earlier inswitch left: %s", iface,
		         q.prog_id, strerror(e));
		return -e;
	}
	printf("inswitch: %s: removed the XDP program (id %u) an earlier inswitch (pid %u) left "
	       "behind\n",
	       iface, q.prog_id, conf.pid);
	return 0;
}

/* The program in a memory file, once; its path for xdp_prog=. */
static int prog_file(char *path, size_t len, char *err, size_t errlen)
{
	if (xdp.memfd < 0) {
		int fd = memfd_create("isw_xdp.bpf.o", MFD_CLOEXEC);
		if (fd < 0) {
			int e = errno;
			snprintf(err, errlen, "XDP program: memfd: %s", strerror(e));
			return -e;
		}
		for (size_t done = 0; done < isw_xdp_obj_len;) {
			ssize_t n = write(fd, isw_xdp_obj + done, isw_xdp_obj_len - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				int e = n < 0 ? errno : EIO;
				snprintf(err, errlen, "XDP program: memfd: %s", strerror(e));
				close(fd);
				return -e;
			}
			done += (size_t)n;
		}
		xdp.memfd = fd;
	}
	snprintf(path, len, "/proc/self/fd/%d", xdp.memfd);
	return 0;
}

/* A string formatted here and kept until isw_xdp_fini() (EAL may hold on to it); NULL if out
 * of memory. */
static char *kept_strf(const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(fmt) + strlen(a) + strlen(b);
	char **strs = realloc(xdp.strs, (xdp.nb_strs + 1) * sizeof(*strs));
	if (strs == NULL)
		return NULL;
	xdp.strs = strs;
	char *ns = malloc(n);
	if (ns == NULL)
		return NULL;
	snprintf(ns, n, fmt, a, b);
	xdp.strs[xdp.nb_strs++] = ns;
	return ns;
}

static bool af_xdp_name(const char *s)
{
	return strncmp(s, "net_af_xdp", 10) == 0 || strncmp(s, "eth_af_xdp", 10) == 0;
}

/* One --vdev string: recorded if AF_XDP; *out is the string EAL gets (s, or a new one). */
static int vdev_arg(const char *s, const char **out, char *err, size_t errlen)
{
	*out = s;
	if (!af_xdp_name(s))
		return 0;
	if (xdp.nb_devs == RTE_DIM(xdp.dev)) {
		snprintf(err, errlen, "too many AF_XDP devices");
		return -E2BIG;
	}
	struct xdp_dev *d = &xdp.dev[xdp.nb_devs];
	memset(d, 0, sizeof(*d));
	d->conf_fd = d->addrs_fd = d->counts_fd = -1;
	snprintf(d->vdev, sizeof(d->vdev), "%.*s", (int)strcspn(s, ","), s);
	devarg(s, "iface", d->iface, sizeof(d->iface));
	char sq[16], *end;
	if (devarg(s, "start_queue", sq, sizeof(sq))) {
		unsigned long v = strtoul(sq, &end, 10);
		if (sq[0] < '0' || sq[0] > '9' || *end != '\0' || v >= ISW_XDP_MAX_QUEUES) {
			snprintf(err, errlen, "%s: start_queue=%s: not a queue number below %u",
			         d->vdev, sq, ISW_XDP_MAX_QUEUES);
			return -EINVAL;
		}
		d->start_queue = (unsigned)v;
	}
	xdp.nb_devs++;
	if (devarg(s, "xdp_prog", NULL, 0))
		return 0; /* the user's own program: left alone */
	int rc = iface_clear(d->iface, err, errlen);
	char path[64];
	if (rc < 0 || (rc = prog_file(path, sizeof(path), err, errlen)) < 0)
		return rc;
	char *ns = kept_strf("%s,xdp_prog=%s", s, path);
	if (ns == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	d->ours = true;
	*out = ns;
	return 0;
}

int isw_xdp_eal_args(int argc, char **argv, char ***out, char *err, size_t errlen)
{
	libbpf_set_print(libbpf_quiet);
	*out = argv;
	char **v = calloc((size_t)argc + 1, sizeof(*v));
	if (v == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	bool changed = false;
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i], *o = NULL;
		v[i] = argv[i];
		if (strcmp(s, "--") == 0) {
			for (int k = i + 1; k <= argc; k++)
				v[k] = argv[k];
			break;
		}
		int rc = 0;
		if (strcmp(s, "--vdev") == 0 && i + 1 < argc) {
			v[i] = argv[i];
			i++;
			rc = vdev_arg(argv[i], &o, err, errlen);
			v[i] = (char *)(uintptr_t)o;
		} else if (strncmp(s, "--vdev=", 7) == 0) {
			const char *val;
			rc = vdev_arg(s + 7, &val, err, errlen);
			o = s;
			if (rc == 0 && val != s + 7 &&
			    (o = kept_strf("%s%s", "--vdev=", val)) == NULL) {
				snprintf(err, errlen, "out of memory");
				rc = -ENOMEM;
			}
			v[i] = (char *)(uintptr_t)o;
		}
		if (rc < 0) {
			free(v);
			return rc;
		}
		changed |= v[i] != argv[i];
	}
	if (!changed) {
		free(v);
		return 0;
	}
	xdp.argv = v;
	*out = v;
	return 0;
}

static struct xdp_dev *dev_by_iface(const char *iface)
{
	for (unsigned i = 0; i < xdp.nb_devs; i++)
		if (strcmp(xdp.dev[i].iface, iface) == 0)
			return &xdp.dev[i];
	return NULL;
}

static struct xdp_dev *dev_by_port(uint16_t port)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	if (rte_eth_dev_get_name_by_port(port, name) != 0)
		return NULL;
	for (unsigned i = 0; i < xdp.nb_devs; i++)
		if (strcmp(xdp.dev[i].vdev, name) == 0)
			return &xdp.dev[i];
	return NULL;
}

/* Opens the maps of the program net_af_xdp attached to d's interface. */
static int dev_open(struct xdp_dev *d, char *err, size_t errlen)
{
	int ifindex = (int)if_nametoindex(d->iface);
	uint32_t id = 0;
	if (ifindex == 0 || bpf_xdp_query_id(ifindex, 0, &id) < 0 || id == 0) {
		snprintf(err, errlen, "%s: inswitch's XDP program is not attached", d->iface);
		return -ENOENT;
	}
	int fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: XDP program %u: %s", d->iface, id, strerror(e));
		return -e;
	}
	d->prog_id = id;
	d->conf_fd = prog_map_fd(fd, "isw_conf");
	d->addrs_fd = prog_map_fd(fd, "isw_addrs");
	d->counts_fd = prog_map_fd(fd, "isw_counts");
	close(fd);
	if (d->conf_fd < 0 || d->addrs_fd < 0 || d->counts_fd < 0) {
		snprintf(err, errlen, "%s: XDP program %u is not inswitch's (maps missing)",
		         d->iface, id);
		return -ENOENT;
	}
	return 0;
}

/* Writes the program's configuration: mode, this process, the claimed EtherTypes. */
static int dev_conf_write(struct xdp_dev *d, const struct isw_claims *cl)
{
	struct isw_xdp_conf conf = {
	        .mode = d->shared ? ISW_XDP_SHARED : ISW_XDP_SWITCH_ALL,
	        .pid = (uint32_t)getpid(),
	};
	for (unsigned i = 0; cl != NULL && i < cl->nb_ethertypes; i++)
		conf.ethertype[i] = htons(cl->ethertype[i]);
	uint32_t zero = 0;
	return bpf_map_update_elem(d->conf_fd, &zero, &conf, BPF_ANY) < 0 ? -errno : 0;
}

/* Makes d's address set equal to cl's: removes what left, adds what came. */
static int dev_addrs_write(struct xdp_dev *d, const struct isw_claims *cl)
{
	uint32_t key, next, one = 1;
	bool have = bpf_map_get_next_key(d->addrs_fd, NULL, &next) == 0;
	while (have) {
		key = next;
		have = bpf_map_get_next_key(d->addrs_fd, &key, &next) == 0;
		bool keep = false;
		for (unsigned i = 0; i < cl->nb_ips && !keep; i++)
			keep = cl->ip[i] == key;
		if (!keep)
			bpf_map_delete_elem(d->addrs_fd, &key);
	}
	for (unsigned i = 0; i < cl->nb_ips; i++)
		if (bpf_map_update_elem(d->addrs_fd, &cl->ip[i], &one, BPF_ANY) < 0)
			return -errno;
	return 0;
}

int isw_xdp_ports_init(const char *const *shared, unsigned nb_shared, char *err, size_t errlen)
{
	for (unsigned i = 0; i < nb_shared; i++) {
		struct xdp_dev *d = dev_by_iface(shared[i]);
		if (d == NULL) {
			snprintf(err, errlen,
			         "--xdp-shared %s: no AF_XDP port on that interface (--vdev "
			         "net_af_xdpN,iface=%s)",
			         shared[i], shared[i]);
			return -ENODEV;
		}
		if (!d->ours) {
			snprintf(err, errlen,
			         "--xdp-shared %s: the port runs its own XDP program (xdp_prog=), "
			         "which decides what the kernel keeps",
			         shared[i]);
			return -EINVAL;
		}
		d->shared = true;
	}
	for (uint16_t p = 0; p < isw_dp.nb_ports; p++) {
		struct xdp_dev *d = dev_by_port(p);
		if (d == NULL)
			continue;
		d->port = p;
		d->up = !d->ours;
		if (!d->ours)
			continue;
		int rc = dev_open(d, err, errlen);
		if (rc < 0)
			return rc;
		rc = dev_conf_write(d, NULL);
		if (rc < 0) {
			snprintf(err, errlen, "%s: configuring the XDP program: %s", d->iface,
			         strerror(-rc));
			return rc;
		}
		d->up = true;
	}
	xdp.refreshed = false;
	isw_xdp_refresh();
	if (isw_cmd_on_success(isw_xdp_refresh) < 0) {
		snprintf(err, errlen, "no room for the XDP refresh hook (ISW_CMD_HOOKS_MAX)");
		return -ENOSPC;
	}
	return 0;
}

void isw_xdp_refresh(void)
{
	struct isw_claims cl;
	bool any = false;
	for (unsigned i = 0; i < xdp.nb_devs; i++)
		any |= xdp.dev[i].up && xdp.dev[i].ours && xdp.dev[i].shared;
	if (!any)
		return;
	isw_pipeline_claims(&cl);
	if (xdp.refreshed && memcmp(&cl, &xdp.applied, sizeof(cl)) == 0)
		return;
	if (cl.overflow)
		fprintf(stderr,
		        "inswitch: the pipelines claim more than %u addresses or %u EtherTypes "
		        "on shared ports: the rest go to the kernel\n",
		        ISW_CLAIMS_MAX_IPS, ISW_CLAIMS_MAX_ETHERTYPES);
	bool all = true;
	for (unsigned i = 0; i < xdp.nb_devs; i++) {
		struct xdp_dev *d = &xdp.dev[i];
		if (!d->up || !d->ours || !d->shared)
			continue;
		int rc = dev_addrs_write(d, &cl);
		if (rc == 0)
			rc = dev_conf_write(d, &cl);
		if (rc < 0) {
			all = false;
			fprintf(stderr, "inswitch: %s: updating the XDP program: %s\n", d->iface,
			        strerror(-rc));
		}
	}
	/* What failed is tried again after the next command. */
	xdp.applied = cl;
	xdp.refreshed = all;
}

const char *isw_xdp_iface(uint16_t port, unsigned *start_queue)
{
	const struct xdp_dev *d = dev_by_port(port);
	if (d == NULL || !d->up)
		return NULL;
	*start_queue = d->start_queue;
	return d->iface;
}

void isw_xdp_fini(void)
{
	for (unsigned i = 0; i < xdp.nb_devs; i++) {
		struct xdp_dev *d = &xdp.dev[i];
		if (d->conf_fd >= 0)
			close(d->conf_fd);
		if (d->addrs_fd >= 0)
			close(d->addrs_fd);
		if (d->counts_fd >= 0)
			close(d->counts_fd);
		d->conf_fd = d->addrs_fd = d->counts_fd = -1;
		d->up = false;
	}
	xdp.nb_devs = 0;
	if (xdp.memfd >= 0)
		close(xdp.memfd);
	xdp.memfd = -1;
	for (unsigned i = 0; i < xdp.nb_strs; i++)
		free(xdp.strs[i]);
	free(xdp.strs);
	free(xdp.argv);
	xdp.strs = NULL;
	xdp.argv = NULL;
	xdp.nb_strs = 0;
}

/* ---- port xdp ---- */

/* The program's counters, summed over CPUs. */
static void counts_read(const struct xdp_dev *d, uint64_t out[ISW_XDP_NCOUNTS])
{
	int ncpu = libbpf_num_possible_cpus();
	memset(out, 0, sizeof(uint64_t) * ISW_XDP_NCOUNTS);
	if (ncpu <= 0)
		return;
	uint64_t *v = calloc((size_t)ncpu, sizeof(*v));
	for (uint32_t k = 0; v != NULL && k < ISW_XDP_NCOUNTS; k++)
		if (bpf_map_lookup_elem(d->counts_fd, &k, v) == 0)
			for (int c = 0; c < ncpu; c++)
				out[k] += v[c];
	free(v);
}

static void dev_json(struct isw_json *j, const struct xdp_dev *d)
{
	isw_json_u64(j, "port", d->port);
	isw_json_str_kv(j, "iface", d->iface);
	if (!d->ours) {
		isw_json_str_kv(j, "program", "the user's (xdp_prog=)");
		return;
	}
	isw_json_str_kv(j, "program", ISW_XDP_PROG_NAME);
	isw_json_u64(j, "prog_id", d->prog_id);
	isw_json_str_kv(j, "mode", d->shared ? "shared" : "switch");
	uint64_t n[ISW_XDP_NCOUNTS];
	counts_read(d, n);
	isw_json_u64(j, "to_switch", n[ISW_XDP_TO_SWITCH]);
	isw_json_u64(j, "to_kernel", n[ISW_XDP_TO_KERNEL]);
	isw_json_u64(j, "no_socket", n[ISW_XDP_NO_SOCKET]);
	if (!d->shared)
		return;
	char a[INET_ADDRSTRLEN];
	isw_json_arr_open(j, "addresses");
	for (unsigned i = 0; i < xdp.applied.nb_ips; i++)
		isw_json_str_kv(j, NULL, inet_ntop(AF_INET, &xdp.applied.ip[i], a, sizeof(a)));
	isw_json_arr_close(j);
	isw_json_arr_open(j, "ethertypes");
	for (unsigned i = 0; i < xdp.applied.nb_ethertypes; i++)
		isw_json_strf(j, NULL, "0x%04x", xdp.applied.ethertype[i]);
	isw_json_arr_close(j);
}

static int cmd_port_xdp(struct isw_cmd_ctx *c, int argc, char **argv)
{
	RTE_SET_USED(argv);
	if (isw_arg_count(c, argc, 0, 0) < 0)
		return -EINVAL;
	isw_json_arr_open(c->out, "ports");
	for (unsigned i = 0; i < xdp.nb_devs; i++) {
		if (!xdp.dev[i].up)
			continue;
		isw_json_obj_open(c->out, NULL);
		dev_json(c->out, &xdp.dev[i]);
		isw_json_obj_close(c->out);
	}
	isw_json_arr_close(c->out);
	return 0;
}
ISW_CMD_REGISTER(port_xdp, "port xdp", "",
                 "AF_XDP ports: XDP program, mode (switch or shared with the kernel), what it "
                 "takes and its counters",
                 cmd_port_xdp)
