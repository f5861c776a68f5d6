/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the unit tests and fuzz harnesses that run the real dataplane share: EAL without
 * hugepages or devices, the mbuf pool, and a switch of N ports with one worker whose transmit
 * buffers the test reads instead of a NIC. Plain C (no cmocka), so the fuzz harnesses can use it;
 * failures return -1 or NULL with a message on stderr.
 */
#ifndef ISW_TEST_H
#define ISW_TEST_H

#include <stddef.h>
#include <stdint.h>

struct isw_worker;
struct isw_json;
struct rte_mbuf;

/* EAL (--no-huge, one lcore, file prefix isw-<name>), a pool of 1023 mbufs, nb_ports ports and
 * one worker. */
int isw_test_eal(const char *name, uint16_t nb_ports);

/* A zeroed worker 0 with a tx queue on every port and the current port configuration. */
struct isw_worker *isw_test_worker(void);

/*
 * The control plane as the daemon has it (port configuration, replication engine with every
 * port able to share and chain, pipelines), then config[0..n-1] run as commands into out.
 */
int isw_test_switch_up(const char *const *config, size_t n, struct isw_json *out);
void isw_test_switch_down(void);

/* Frees what w holds in its transmit buffers, its consumed packets and its egress queues. */
void isw_test_tx_clear(struct isw_worker *w);

/* A packet of len bytes copied from data, as received on in_port. */
struct rte_mbuf *isw_test_mbuf(const void *data, uint16_t len, uint16_t in_port);

/* ---- For the packet fuzz harnesses; these abort on any failure. ---- */

/* isw_test_eal(), isw_test_worker() and isw_test_switch_up(), with port 1 unable to send chains
 * and port 2 unable to share buffers, so replicas take every path of the replication engine. */
struct isw_worker *isw_test_fuzz_switch(const char *name, uint16_t nb_ports,
                                        const char *const *config, size_t n, struct isw_json *out);

typedef int (*isw_test_pkt_fn)(struct isw_worker *w, struct rte_mbuf *m);

/*
 * One fuzz input as a packet: data[0] picks the ingress port (mod the ports) and, with bit 7,
 * strict instead of fast; the rest is the frame. Checks that a packet the pipeline passes on is
 * untouched in length and that everything sent is at least min_len bytes, then frees it all
 * (a leak shows as an empty pool).
 */
void isw_test_fuzz_packet(struct isw_worker *w, const uint8_t *data, size_t size,
                          isw_test_pkt_fn fast, isw_test_pkt_fn strict, uint32_t min_len);

/*
 * The seeding step of tests/fuzz/run.sh: with FUZZ_SEEDS=DIR in the environment, calls
 * write(DIR) and exits 0; otherwise returns. For LLVMFuzzerInitialize().
 */
void isw_test_fuzz_seeds(void (*write)(const char *dir));

/* Writes one seed input to DIR/seed-NAME-K; exits 1 if it cannot. */
void isw_test_fuzz_seed_file(const char *dir, const char *name, unsigned k, const void *data,
                             size_t len);

#endif
