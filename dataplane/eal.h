/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What inswitch does around EAL so that start-up honours exactly the devices asked for, and a
 * stop leaves nothing behind. EAL, given a --vdev whose driver fails, logs it and starts without
 * that port (the later ones renumbered); so the --vdev arguments are taken out of EAL's and each
 * device is created after EAL, in the order given, and start-up stops at the first that fails,
 * naming it and what its driver said. A device of another bus (-a, --allow) that did not become
 * a port stops start-up too. At exit, EAL's runtime directory (/var/run/dpdk/PREFIX for root) is
 * removed. Control thread only.
 */
#ifndef ISW_EAL_H
#define ISW_EAL_H

#include <stddef.h>

/*
 * Splits argv (the EAL part, up to "--") into the arguments for rte_eal_init(), returned in
 * *eal_argv with their count (the application's part after "--" kept), and the --vdev devices
 * kept here for isw_eal_devices_create(). Also notes the -a/--allow devices. Returns the new
 * argc, or -errno with err set.
 */
int isw_eal_args_split(int argc, char **argv, char ***eal_argv, char *err, size_t errlen);

/* rte_eal_init(), keeping the error messages it logs (they explain an -a device that did
 * not become a port). */
int isw_eal_init(int argc, char **argv);

/*
 * After rte_eal_init(): creates the --vdev devices in order, each becoming the next port, and
 * checks that every -a/--allow device became a port. 0, or -errno with err naming the device
 * and the reason (its driver's error messages, which are also logged as usual).
 */
int isw_eal_devices_create(char *err, size_t errlen);

/*
 * Lets DPDK's packet capture framework (pdump: dpdk-dumpcap, dpdk-pdump) copy any port's rx
 * and tx to a secondary process. Needs EAL's multi-process channel: nothing to do, and 0, under
 * --no-shconf or --in-memory. Returns 0 or -errno.
 */
int isw_eal_capture_init(void);

/* Before rte_eal_cleanup(): stops serving captures. */
void isw_eal_capture_fini(void);

/* Notes EAL's runtime directory (after rte_eal_init) so isw_eal_leave() can remove it. */
void isw_eal_note_runtime_dir(void);

/* After rte_eal_cleanup(): removes the runtime directory and what EAL left in it. */
void isw_eal_leave(void);

#endif
