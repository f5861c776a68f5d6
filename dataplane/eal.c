/* SPDX-License-Identifier: BSD-3-Clause */
/* Devices created one by one after EAL, each failure named; the runtime directory removed.
 * fopencookie needs _GNU_SOURCE, which the build defines. */

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_pdump.h>

#include "dp.h"
#include "eal.h"
#include "isw_limits.h"

#define DEVS_MAX (2 * ISW_MAX_PORTS)

static struct {
	const char *vdev[DEVS_MAX];  /* --vdev arguments, in order */
	const char *allow[DEVS_MAX]; /* -a/--allow arguments */
	unsigned nb_vdev, nb_allow;
	char **argv; /* what rte_eal_init() gets */
	char runtime_dir[256];
	bool capture; /* pdump serving */
} eal;

static int note(const char **list, unsigned *n, const char *arg, char *err, size_t errlen)
{
	if (*n == DEVS_MAX) {
		snprintf(err, errlen, "more than %u devices", DEVS_MAX);
		return -E2BIG;
	}
	list[(*n)++] = arg;
	return 0;
}

int isw_eal_args_split(int argc, char **argv, char ***eal_argv, char *err, size_t errlen)
{
	char **v = calloc((size_t)argc + 1, sizeof(*v));
	if (v == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int n = 0, rc = 0;
	for (int i = 0; i < argc && rc == 0; i++) {
		const char *s = argv[i];
		if (strcmp(s, "--") == 0) {
			while (i < argc)
				v[n++] = argv[i++];
			break;
		}
		if (strcmp(s, "--vdev") == 0 && i + 1 < argc)
			rc = note(eal.vdev, &eal.nb_vdev, argv[++i], err, errlen);
		else if (strncmp(s, "--vdev=", 7) == 0)
			rc = note(eal.vdev, &eal.nb_vdev, s + 7, err, errlen);
		else {
			v[n++] = argv[i];
			/* Still EAL's to probe; checked afterwards. */
			if ((strcmp(s, "-a") == 0 || strcmp(s, "--allow") == 0) && i + 1 < argc)
				rc = note(eal.allow, &eal.nb_allow, v[n++] = argv[++i], err,
				          errlen);
			else if (strncmp(s, "--allow=", 8) == 0)
				rc = note(eal.allow, &eal.nb_allow, s + 8, err, errlen);
			else if (strncmp(s, "-a", 2) == 0 && s[2] != '\0')
				rc = note(eal.allow, &eal.nb_allow, s + 2, err, errlen);
		}
	}
	/* EAL picks the IOVA mode before the vdevs exist (they are created after it): a driver
	 * that needs VA, virtio_user's, would then be refused; ask for VA when one is given and
	 * the user did not choose. */
	bool iova = false, needs_va = false;
	for (int i = 0; i < n && strcmp(v[i], "--") != 0; i++)
		iova |= strncmp(v[i], "--iova-mode", 11) == 0;
	for (unsigned i = 0; i < eal.nb_vdev; i++)
		needs_va |= strncmp(eal.vdev[i], "net_virtio_user", 15) == 0 ||
		            strncmp(eal.vdev[i], "virtio_user", 11) == 0;
	if (rc == 0 && needs_va && !iova) {
		char **w = realloc(v, ((size_t)n + 2) * sizeof(*v));
		if (w == NULL) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		} else {
			v = w;
			int k = 0;
			while (k < n && strcmp(v[k], "--") != 0)
				k++;
			memmove(v + k + 1, v + k, (size_t)(n - k + 1) * sizeof(*v));
			v[k] = (char *)(uintptr_t) "--iova-mode=va";
			n++;
		}
	}
	if (rc < 0) {
		free(v);
		return rc;
	}
	eal.argv = v;
	*eal_argv = v;
	return n;
}

/* A device argument's name: up to its first comma. */
static void dev_name(const char *arg, char *name, size_t len)
{
	size_t k = strcspn(arg, ",");
	snprintf(name, len, "%.*s", (int)(k < len ? k : len - 1), arg);
}

/* Keeps the error messages logged meanwhile (and logs them as usual), one a line. */
struct tee {
	FILE *out;
	char *msg;
	size_t cap, len;
};

static ssize_t tee_write(void *cookie, const char *s, size_t n)
{
	struct tee *t = cookie;
	fwrite(s, 1, n, t->out);
	if (rte_log_cur_msg_loglevel() > (int)RTE_LOG_ERR)
		return (ssize_t)n;
	for (size_t i = 0; i < n && t->len + 1 < t->cap; i++)
		t->msg[t->len++] = s[i];
	t->msg[t->len] = '\0';
	return (ssize_t)n;
}

/* Sends the log through t until tee_end(); false if it cannot (nothing is kept then). */
static bool tee_begin(struct tee *t, FILE **f)
{
	t->out = rte_log_get_stream();
	t->len = 0;
	t->msg[0] = '\0';
	*f = fopencookie(t, "w", (cookie_io_functions_t){.write = tee_write});
	if (*f == NULL)
		return false;
	setvbuf(*f, NULL, _IONBF, 0);
	rte_openlog_stream(*f);
	return true;
}

static void tee_end(FILE *f)
{
	/* Back to EAL's own stream (inswitch never sets one): keeping the earlier one as the
	 * log file would leave it pointing at a stream EAL closes at cleanup. */
	rte_openlog_stream(NULL);
	fclose(f);
}

/* The kept lines that contain key (all of them for NULL), joined by "; " into out. */
static size_t tee_lines(const char *msg, const char *key, char *out, size_t len)
{
	size_t n = 0;
	out[0] = '\0';
	for (const char *l = msg; *l != '\0';) {
		size_t k = strcspn(l, "\n");
		bool want = key == NULL;
		for (size_t i = 0; !want && key[0] != '\0' && i + strlen(key) <= k; i++)
			want = strncasecmp(l + i, key, strlen(key)) == 0;
		if (want && k > 0 && n + 3 < len)
			n += (size_t)snprintf(out + n, len - n, "%s%.*s", n ? "; " : "", (int)k, l);
		l += k + (l[k] == '\n');
	}
	return n < len ? n : len - 1;
}

static char init_msg[4096];

int isw_eal_init(int argc, char **argv)
{
	struct tee t = {.msg = init_msg, .cap = sizeof(init_msg)};
	FILE *f;
	bool tee = tee_begin(&t, &f);
	int n = rte_eal_init(argc, argv);
	if (tee)
		tee_end(f);
	return n;
}

static int vdev_create(const char *arg, char *err, size_t errlen)
{
	char name[RTE_DEV_NAME_MAX_LEN], buf[400], why[400];
	dev_name(arg, name, sizeof(name));
	const char *args = arg[strlen(name)] == ',' ? arg + strlen(name) + 1 : "";
	struct tee t = {.msg = buf, .cap = sizeof(buf)};
	FILE *f;
	bool tee = tee_begin(&t, &f);
	int rc = rte_vdev_init(name, args);
	if (tee)
		tee_end(f);
	size_t nwhy = tee ? tee_lines(t.msg, NULL, why, sizeof(why)) : 0;
	uint16_t port;
	if (rc == 0 && rte_eth_dev_get_port_by_name(name, &port) != 0) {
		snprintf(err, errlen, "--vdev %s: the device is not an Ethernet port", arg);
		return -ENODEV;
	}
	if (rc == 0)
		return 0;
	/* DPDK 22.11 returns -1 and logs nothing for a name no driver has. */
	if (nwhy == 0 && rc == -1)
		snprintf(err, errlen,
		         "--vdev %s: no driver named %.*s (dpdk-pmdinfo.py lists the installed "
		         "ones)",
		         arg, (int)strcspn(name, "0123456789"), name);
	else
		snprintf(err, errlen, "--vdev %s: the device could not be created: %s", arg,
		         nwhy ? why : rte_strerror(rc < 0 ? -rc : EINVAL));
	return rc < 0 ? rc : -EINVAL;
}

/* Is some port on the device EAL was allowed to probe (a PCI address with or without its
 * domain, or any other bus's name)? */
static bool allowed_probed(const char *arg)
{
	char name[RTE_DEV_NAME_MAX_LEN], full[RTE_DEV_NAME_MAX_LEN + 8];
	dev_name(arg, name, sizeof(name));
	unsigned b, d, fn;
	char tail;
	if (sscanf(name, "%x:%x.%x%c", &b, &d, &fn, &tail) == 3)
		snprintf(full, sizeof(full), "0000:%s", name);
	else
		snprintf(full, sizeof(full), "%s", name);
	uint16_t p;
	RTE_ETH_FOREACH_DEV(p)
	{
		struct rte_eth_dev_info di;
		if (rte_eth_dev_info_get(p, &di) == 0 && di.device != NULL &&
		    strcasecmp(rte_dev_name(di.device), full) == 0)
			return true;
	}
	return false;
}

/* Why an allowed device is not a port: what EAL said of it, or what it could not have. */
static void allowed_why(const char *arg, char *why, size_t len)
{
	char name[RTE_DEV_NAME_MAX_LEN];
	dev_name(arg, name, sizeof(name));
	bool no_pci = false;
	for (char **a = eal.argv; a != NULL && *a != NULL && strcmp(*a, "--") != 0; a++)
		no_pci |= strcmp(*a, "--no-pci") == 0;
	if (tee_lines(init_msg, name, why, len) > 0)
		return;
	if (no_pci)
		snprintf(why, len, "--no-pci is given: EAL probes no PCI device");
	else
		snprintf(why, len,
		         "EAL said nothing of it: is it bound to a DPDK driver "
		         "(dpdk-devbind.py --status)?");
}

int isw_eal_devices_create(char *err, size_t errlen)
{
	for (unsigned i = 0; i < eal.nb_allow; i++)
		if (!allowed_probed(eal.allow[i])) {
			char why[400];
			allowed_why(eal.allow[i], why, sizeof(why));
			snprintf(err, errlen, "-a %s: the device did not become a port: %s",
			         eal.allow[i], why);
			return -ENODEV;
		}
	for (unsigned i = 0; i < eal.nb_vdev; i++) {
		int rc = vdev_create(eal.vdev[i], err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * DPDK 22.11's pdump removes its rx/tx callbacks when dpdk-dumpcap stops and answers at once;
 * dumpcap then frees the ring and the pool the callbacks copy into while a worker may still be
 * inside one: a use after free, which crashed inswitch in tests (the freed pool, zeroed, sends
 * the copy to the first mempool driver registered). Later DPDK releases wait for the callbacks
 * themselves. Here inswitch defines the two removal functions itself: the executable's
 * definitions come first in the dynamic linker's search, so pdump's calls land here (meson.build
 * exports them). After the real removal they wait until every worker has passed a quiescent
 * point (the RCU the workers report once per loop, after their bursts): no worker is then inside
 * the removed callback, and the capture process may free what it used.
 */
static void callbacks_quiesce(void)
{
	if (isw_dp.rcu != NULL && isw_dp.running)
		rte_rcu_qsbr_synchronize(isw_dp.rcu, RTE_QSBR_THRID_INVALID);
}

typedef int (*remove_fn)(uint16_t, uint16_t, const struct rte_eth_rxtx_callback *);

static int remove_quiesced(const char *name, remove_fn *real, uint16_t port, uint16_t queue,
                           const struct rte_eth_rxtx_callback *cb)
{
	if (*real == NULL)
		*real = (remove_fn)dlsym(RTLD_NEXT, name);
	if (*real == NULL)
		return -ENOTSUP;
	int rc = (*real)(port, queue, cb);
	if (rc == 0)
		callbacks_quiesce();
	return rc;
}

int rte_eth_remove_rx_callback(uint16_t port_id, uint16_t queue_id,
                               const struct rte_eth_rxtx_callback *user_cb)
{
	static remove_fn real;
	return remove_quiesced(__func__, &real, port_id, queue_id, user_cb);
}

int rte_eth_remove_tx_callback(uint16_t port_id, uint16_t queue_id,
                               const struct rte_eth_rxtx_callback *user_cb)
{
	static remove_fn real;
	return remove_quiesced(__func__, &real, port_id, queue_id, user_cb);
}

int isw_eal_capture_init(void)
{
	if (rte_pdump_init() == 0) {
		eal.capture = true;
		return 0;
	}
	/* No multi-process channel (--no-shconf, --in-memory): no secondary can ask. */
	return rte_errno == ENOTSUP ? 0 : -rte_errno;
}

void isw_eal_capture_fini(void)
{
	if (eal.capture)
		rte_pdump_uninit();
	eal.capture = false;
}

void isw_eal_note_runtime_dir(void)
{
	const char *d = rte_eal_get_runtime_dir();
	snprintf(eal.runtime_dir, sizeof(eal.runtime_dir), "%s", d != NULL ? d : "");
}

void isw_eal_leave(void)
{
	free(eal.argv);
	eal.argv = NULL;
	/* Only a directory of EAL's own shape: .../dpdk/PREFIX. */
	const char *d = eal.runtime_dir, *slash = strrchr(d, '/');
	if (slash == NULL || slash - d < 5 || strncmp(slash - 5, "/dpdk", 5) != 0 ||
	    slash[1] == '\0')
		return;
	DIR *dir = opendir(d);
	if (dir == NULL)
		return;
	struct dirent *e;
	char path[512];
	while ((e = readdir(dir)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", d, e->d_name);
		unlink(path);
	}
	closedir(dir);
	rmdir(d);
}
