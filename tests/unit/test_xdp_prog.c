/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * inswitch's XDP program (dataplane/xdp_prog.bpf.c), run by the kernel on hand-made frames
 * (BPF_PROG_TEST_RUN): what each mode hands the switch and what it leaves to the kernel. With
 * no socket bound, a frame for the switch counts as no_socket and passes: that is how "the
 * switch's" shows here. Needs CAP_BPF (root); skipped otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "xdp_prog.h"

extern const unsigned char isw_xdp_obj[];
extern const size_t isw_xdp_obj_len;

static struct bpf_object *obj;
static int prog_fd, conf_fd, addrs_fd, counts_fd;

enum verdict { KERNEL, SWITCH };

static uint64_t count(uint32_t what)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t v[ncpu > 0 ? ncpu : 1], sum = 0;
	assert_int_equal(bpf_map_lookup_elem(counts_fd, &what, v), 0);
	for (int i = 0; i < ncpu; i++)
		sum += v[i];
	return sum;
}

/* Runs the program on frame and checks where it went. */
static void check(const uint8_t *frame, size_t len, enum verdict want)
{
	uint64_t k0 = count(ISW_XDP_TO_KERNEL), s0 = count(ISW_XDP_NO_SOCKET);
	uint8_t buf[256];
	memcpy(buf, frame, len);
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = buf, .data_size_in = (uint32_t)len,
	            .repeat = 1);
	assert_int_equal(bpf_prog_test_run_opts(prog_fd, &o), 0);
	assert_int_equal(o.retval, XDP_PASS); /* no socket: passed either way */
	assert_int_equal(count(ISW_XDP_TO_KERNEL) - k0, want == KERNEL);
	assert_int_equal(count(ISW_XDP_NO_SOCKET) - s0, want == SWITCH);
	assert_int_equal(count(ISW_XDP_TO_SWITCH), 0);
}

static void set_mode(uint32_t mode)
{
	struct isw_xdp_conf c = {.mode = mode, .pid = 1, .ethertype = {htons(0x0700)}};
	uint32_t zero = 0;
	assert_int_equal(bpf_map_update_elem(conf_fd, &zero, &c, BPF_ANY), 0);
}

/* Frames: Ethernet + ARP request for tpa; Ethernet + IPv4 (proto) to dst; a raw EtherType. */
static size_t arp(uint8_t *f, const char *tpa)
{
	memset(f, 0, 60);
	memset(f, 0xff, 6);
	f[12] = 0x08, f[13] = 0x06;
	static const uint8_t hdr[8] = {0, 1, 8, 0, 6, 4, 0, 1};
	memcpy(f + 14, hdr, 8);
	inet_pton(AF_INET, tpa, f + 14 + 24);
	return 60;
}

static size_t ipv4(uint8_t *f, const char *dst, uint8_t proto)
{
	memset(f, 0, 80);
	f[12] = 0x08, f[13] = 0x00;
	f[14] = 0x45;
	f[14 + 9] = proto;
	inet_pton(AF_INET, dst, f + 14 + 16);
	return 80;
}

static size_t raw(uint8_t *f, uint16_t ethertype)
{
	memset(f, 0, 64);
	f[12] = (uint8_t)(ethertype >> 8), f[13] = (uint8_t)ethertype;
	return 64;
}

static void test_unconfigured_kernel_keeps_all(void **state)
{
	(void)state;
	uint8_t f[128];
	set_mode(ISW_XDP_KERNEL_ALL);
	check(f, arp(f, "10.0.0.254"), KERNEL);
	check(f, ipv4(f, "10.0.0.254", 17), KERNEL);
	check(f, raw(f, 0x0700), KERNEL);
}

static void test_switch_mode_takes_all(void **state)
{
	(void)state;
	uint8_t f[128];
	set_mode(ISW_XDP_SWITCH_ALL);
	check(f, arp(f, "10.0.0.200"), SWITCH);
	check(f, ipv4(f, "10.0.0.200", 6), SWITCH);
	check(f, raw(f, 0x86dd), SWITCH);
}

static void test_shared_mode_takes_only_claims(void **state)
{
	(void)state;
	uint8_t f[128];
	uint32_t a, one = 1;
	inet_pton(AF_INET, "10.0.0.254", &a);
	assert_int_equal(bpf_map_update_elem(addrs_fd, &a, &one, BPF_ANY), 0);
	set_mode(ISW_XDP_SHARED);
	check(f, arp(f, "10.0.0.254"), SWITCH);      /* ARP for the switch's address */
	check(f, arp(f, "10.0.0.200"), KERNEL);      /* ARP for the host's own */
	check(f, ipv4(f, "10.0.0.254", 17), SWITCH); /* UDP to the switch */
	check(f, ipv4(f, "10.0.0.254", 1), SWITCH);  /* ICMP echo to the switch */
	check(f, ipv4(f, "10.0.0.200", 6), KERNEL);  /* the host's TCP (SSH) */
	check(f, ipv4(f, "10.0.0.253", 17), KERNEL); /* another address */
	check(f, raw(f, 0x0700), SWITCH);            /* ATP's EtherType */
	check(f, raw(f, 0x86dd), KERNEL);            /* IPv6 */
	/* Truncated headers are the kernel's to judge, never read past their end. */
	check(f, arp(f, "10.0.0.254") - 60 + 14 + 20, KERNEL);
	check(f, ipv4(f, "10.0.0.254", 17) - 80 + 14 + 12, KERNEL);
	/* An address taken away is the kernel's again. */
	assert_int_equal(bpf_map_delete_elem(addrs_fd, &a), 0);
	check(f, ipv4(f, "10.0.0.254", 17), KERNEL);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

int main(void)
{
	libbpf_set_print(libbpf_quiet);
	obj = bpf_object__open_mem(isw_xdp_obj, isw_xdp_obj_len, NULL);
	if (obj == NULL)
		return 1;
	int rc = bpf_object__load(obj);
	if (rc == -EPERM) {
		printf("skipped: loading a BPF program needs CAP_BPF (root)\n");
		return 77;
	}
	if (rc < 0) {
		fprintf(stderr, "loading the XDP program: %s\n", strerror(-rc));
		return 1;
	}
	prog_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, ISW_XDP_PROG_NAME));
	conf_fd = bpf_object__find_map_fd_by_name(obj, "isw_conf");
	addrs_fd = bpf_object__find_map_fd_by_name(obj, "isw_addrs");
	counts_fd = bpf_object__find_map_fd_by_name(obj, "isw_counts");
	if (prog_fd < 0 || conf_fd < 0 || addrs_fd < 0 || counts_fd < 0 ||
	    bpf_object__find_map_fd_by_name(obj, "xsks_map") < 0) {
		fprintf(stderr,
		        "the object lacks its program or a map net_af_xdp or xdp.c expects\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_unconfigured_kernel_keeps_all),
	        cmocka_unit_test(test_switch_mode_takes_all),
	        cmocka_unit_test(test_shared_mode_takes_only_claims),
	};
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	bpf_object__close(obj);
	return rc;
}
