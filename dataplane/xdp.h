/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * inswitch's own XDP program on AF_XDP ports (xdp_prog.h). Before EAL probes the devices,
 * isw_xdp_eal_args() gives every net_af_xdp device that names no program of its own inswitch's
 * (net_af_xdp's xdp_prog argument, pointing at the program held in memory), after removing one a
 * crashed inswitch left on the interface; the driver attaches it when the port is set up and
 * removes it when the port is closed. Then isw_xdp_ports_init() configures each port's program:
 * every frame to the switch, or, on an interface shared with the kernel (--xdp-shared), only
 * the frames of the enabled pipelines, which isw_xdp_refresh() keeps up to date. Control thread
 * only; nothing here runs per packet.
 */
#ifndef ISW_XDP_H
#define ISW_XDP_H

#include <stddef.h>
#include <stdint.h>

/*
 * Returns the argument vector to hand to rte_eal_init() in *out (argv itself when no device
 * needs the program; otherwise a copy with their --vdev strings extended, owned here). Refuses
 * (-errno, the reason in err) an interface that has another program attached or that a running
 * inswitch uses.
 */
int isw_xdp_eal_args(int argc, char **argv, char ***out, char *err, size_t errlen);

/*
 * After the ports are set up: finds inswitch's program on each AF_XDP port and configures it,
 * shared with the kernel on the interfaces named in shared[] (each must be an AF_XDP port
 * running inswitch's program), the switch's alone on the others. 0 or -errno with err set.
 */
int isw_xdp_ports_init(const char *const *shared, unsigned nb_shared, char *err, size_t errlen);

/* Updates the shared ports' programs to what the enabled pipelines now take (nothing to do
 * when it has not changed). Runs after every successful control command. */
void isw_xdp_refresh(void);

/* The kernel interface of an AF_XDP port and the first of its channels the port uses
 * (start_queue=), or NULL for a port of another driver. */
const char *isw_xdp_iface(uint16_t port, unsigned *start_queue);

/* Closes what isw_xdp_eal_args() and isw_xdp_ports_init() opened (the ports detach the
 * program themselves when they close). */
void isw_xdp_fini(void);

#endif
