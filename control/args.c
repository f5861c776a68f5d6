/* SPDX-License-Identifier: BSD-3-Clause */
/* Argument parsers shared by command handlers. Each names the argument in its error. */

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "dp.h"

int isw_arg_u64(struct isw_cmd_ctx *c, const char *s, const char *what, uint64_t *out)
{
	char *end;
	if (s[0] == '\0' || s[0] == '-' || s[0] == '+')
		return isw_cmd_err(c, EINVAL, "%s: '%s' is not a non-negative integer", what, s);
	/* Decimal, or hex after 0x; never octal (a leading zero is not a base). */
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	if (hex && s[2] == '\0')
		return isw_cmd_err(c, EINVAL, "%s: '%s' is not a non-negative integer", what, s);
	errno = 0;
	unsigned long long v = strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
	if (*end != '\0')
		return isw_cmd_err(c, EINVAL, "%s: '%s' is not a non-negative integer", what, s);
	if (errno == ERANGE)
		return isw_cmd_err(c, ERANGE, "%s: '%s' is out of range", what, s);
	*out = v;
	return 0;
}

int isw_arg_u32(struct isw_cmd_ctx *c, const char *s, const char *what, uint32_t min, uint32_t max,
                uint32_t *out)
{
	uint64_t v;
	int rc = isw_arg_u64(c, s, what, &v);
	if (rc < 0)
		return rc;
	if (v < min || v > max)
		return isw_cmd_err(c, ERANGE, "%s: %s is out of range %" PRIu32 "..%" PRIu32, what,
		                   s, min, max);
	*out = (uint32_t)v;
	return 0;
}

int isw_arg_pct(struct isw_cmd_ctx *c, const char *s, const char *what, double *out)
{
	char *end;
	size_t len = strlen(s);
	char buf[64];
	if (len == 0 || len >= sizeof(buf))
		return isw_cmd_err(c, EINVAL, "%s: '%s' is not a percentage", what, s);
	memcpy(buf, s, len + 1);
	if (buf[len - 1] == '%')
		buf[len - 1] = '\0';
	errno = 0;
	double v = strtod(buf, &end);
	if (buf[0] == '\0' || *end != '\0' || errno != 0 || !(v >= 0 && v <= 100))
		return isw_cmd_err(c, EINVAL, "%s: '%s' is not a percentage between 0 and 100",
		                   what, s);
	*out = v;
	return 0;
}

int isw_arg_mac(struct isw_cmd_ctx *c, const char *s, const char *what, uint8_t mac[6])
{
	unsigned b[6];
	char tail;
	if (strlen(s) != 17 || sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
	                              &b[4], &b[5], &tail) != 6)
		return isw_cmd_err(c, EINVAL, "%s: '%s' is not a MAC address (aa:bb:cc:dd:ee:ff)",
		                   what, s);
	for (int i = 0; i < 6; i++) {
		/* sscanf's %x accepts signs and spaces; the length check and this catch them. */
		if (s[i * 3] == ' ' || s[i * 3] == '+' || s[i * 3] == '-' ||
		    (i < 5 && s[i * 3 + 2] != ':'))
			return isw_cmd_err(c, EINVAL,
			                   "%s: '%s' is not a MAC address (aa:bb:cc:dd:ee:ff)",
			                   what, s);
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

int isw_arg_ipv4(struct isw_cmd_ctx *c, const char *s, const char *what, uint32_t *out_be)
{
	struct in_addr a;
	if (inet_pton(AF_INET, s, &a) != 1)
		return isw_cmd_err(c, EINVAL, "%s: '%s' is not an IPv4 address", what, s);
	*out_be = a.s_addr;
	return 0;
}

int isw_arg_onoff(struct isw_cmd_ctx *c, const char *s, const char *what, bool *out)
{
	if (strcmp(s, "on") == 0 || strcmp(s, "yes") == 0 || strcmp(s, "1") == 0) {
		*out = true;
		return 0;
	}
	if (strcmp(s, "off") == 0 || strcmp(s, "no") == 0 || strcmp(s, "0") == 0) {
		*out = false;
		return 0;
	}
	return isw_cmd_err(c, EINVAL, "%s: '%s' is not on or off", what, s);
}

int isw_arg_port(struct isw_cmd_ctx *c, const char *s, uint16_t *out)
{
	uint32_t v;
	if (isw_dp.nb_ports == 0)
		return isw_cmd_err(c, ENODEV, "no ports");
	int rc = isw_arg_u32(c, s, "port", 0, isw_dp.nb_ports - 1u, &v);
	if (rc < 0)
		return rc;
	*out = (uint16_t)v;
	return 0;
}

int isw_arg_count(struct isw_cmd_ctx *c, int argc, int lo, int hi)
{
	if (argc >= lo && argc <= hi)
		return 0;
	return isw_cmd_err(c, EINVAL, "%s arguments; usage: %s%s%s",
	                   argc < lo ? "missing" : "too many", c->cmd->path,
	                   c->cmd->usage[0] ? " " : "", c->cmd->usage);
}

int isw_arg_list(struct isw_cmd_ctx *c, const char *s, const char *what, char *buf, size_t len,
                 char **f, unsigned max)
{
	unsigned n = 0;
	if (strlen(s) >= len)
		return isw_cmd_err(c, EINVAL, "%s: '%s' is too long", what, s);
	strcpy(buf, s);
	for (char *p = buf;; p++) {
		char *end = strchr(p, ',');
		if (end != NULL)
			*end = '\0';
		if (*p == '\0')
			return isw_cmd_err(c, EINVAL, "%s: empty element in '%s'", what, s);
		if (n == max)
			return isw_cmd_err(c, EINVAL, "%s: more than %u elements in '%s'", what,
			                   max, s);
		f[n++] = p;
		if (end == NULL)
			return (int)n;
		p = end;
	}
}

int isw_arg_port_list(struct isw_cmd_ctx *c, const char *s, const char *what, uint32_t *mask)
{
	char buf[256];
	char *f[32];
	int n = isw_arg_list(c, s, what, buf, sizeof(buf), f, RTE_DIM(f));
	if (n < 0)
		return n;
	*mask = 0;
	for (int i = 0; i < n; i++) {
		uint16_t port;
		if (isw_arg_port(c, f[i], &port) < 0)
			return -EINVAL;
		*mask |= 1u << port;
	}
	return 0;
}

char *isw_fmt_port_list(uint32_t mask, char *buf, size_t len)
{
	size_t off = 0;
	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (unsigned p = 0; p < 32 && off < len; p++)
		if ((mask >> p) & 1)
			off += (size_t)snprintf(buf + off, len - off, "%s%u", off ? "," : "", p);
	return buf;
}

char *isw_fmt_mac(const uint8_t mac[6], char *buf)
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
	         mac[5]);
	return buf;
}

int isw_arg_kv(struct isw_cmd_ctx *c, int argc, char **argv, struct isw_kv *kv, unsigned n)
{
	if (argc % 2 != 0)
		return isw_cmd_err(c, EINVAL, "'%s' needs a value", argv[argc - 1]);
	for (int i = 0; i < argc; i += 2) {
		unsigned k = 0;
		while (k < n && strcmp(kv[k].key, argv[i]) != 0)
			k++;
		if (k == n)
			return isw_cmd_err(c, EINVAL, "unknown option '%s' (usage: %s %s)", argv[i],
			                   c->cmd->path, c->cmd->usage);
		if (kv[k].val != NULL)
			return isw_cmd_err(c, EINVAL, "'%s' given twice", argv[i]);
		kv[k].val = argv[i + 1];
	}
	return 0;
}
