/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapcmp: compares two captures frame by frame (count, length, bytes; timestamps are ignored),
 * for the pcap golden tests; or, with --seq, counts what became of the sequence-numbered frames
 * `pcapgen seq` makes, for the fault-injection tests.
 *
 *   pcapcmp EXPECTED.pcap GOT.pcap [--ignore OFF:LEN]...
 *       exit 0: identical (one-line summary); 1: different (where and how); 2: error.
 *       --ignore OFF:LEN masks bytes OFF..OFF+LEN-1 of every frame (a documented don't-care
 *       field); the frame lengths are still compared.
 *
 *   pcapcmp --seq GOT.pcap --count N
 *       prints {"frames":F,"unique":U,"missing":M,"duplicates":D,"reordered":R,"invalid":I}
 *       frames = U + D + I; missing = N - U; reordered counts first copies whose sequence number
 *       is lower than the highest seen before them; invalid counts frames that are not pcapgen
 *       seq frames or carry a number >= N. Exit 0 once the file is read, 2 on error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#define IGNORE_MAX 32
#define COUNT_MAX  100000000UL
#define ROW        16 /* bytes per hex dump row */

/* Must match pcapgen seq: IPv4/UDP to this port, payload starts with a big-endian u32. */
#define SEQ_DPORT 9

static const char *prog = "pcapcmp";

struct range {
	uint32_t off, len;
};

struct pkt {
	uint32_t len;    /* on the wire */
	uint32_t caplen; /* bytes in the file */
	uint8_t *data;
};

struct cap {
	const char *path;
	int linktype;
	size_t n, size;
	struct pkt *v;
};

static pcap_t *cap_open(const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, errbuf);

	if (p == NULL)
		fprintf(stderr, "%s: cannot read %s: %s\n", prog, path, errbuf);
	return p;
}

/* Next frame: 1, 0 at the end, -1 on a read error (reported). */
static int cap_next(pcap_t *p, const char *path, struct pcap_pkthdr **h, const u_char **data)
{
	int rc = pcap_next_ex(p, h, data);

	if (rc == 1)
		return 1;
	if (rc == PCAP_ERROR_BREAK)
		return 0;
	fprintf(stderr, "%s: error reading %s: %s\n", prog, path, pcap_geterr(p));
	return -1;
}

static int cap_push(struct cap *c, const struct pcap_pkthdr *h, const u_char *data)
{
	struct pkt *k;

	if (c->n == c->size) {
		size_t size = c->size ? c->size * 2 : 256;
		struct pkt *v = realloc(c->v, size * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		c->v = v;
		c->size = size;
	}
	k = &c->v[c->n];
	k->data = malloc(h->caplen ? h->caplen : 1);
	if (k->data == NULL)
		return -ENOMEM;
	memcpy(k->data, data, h->caplen);
	k->len = h->len;
	k->caplen = h->caplen;
	c->n++;
	return 0;
}

/* Reads a whole capture; 0 or -1 (reported). */
static int cap_load(struct cap *c, const char *path)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;
	int rc;

	memset(c, 0, sizeof(*c));
	c->path = path;
	p = cap_open(path);
	if (p == NULL)
		return -1;
	c->linktype = pcap_datalink(p);
	while ((rc = cap_next(p, path, &h, &data)) == 1) {
		if (cap_push(c, h, data) != 0) {
			fprintf(stderr, "%s: out of memory reading %s\n", prog, path);
			rc = -1;
			break;
		}
	}
	pcap_close(p);
	return rc;
}

static void cap_free(struct cap *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i].data);
	free(c->v);
}

/* ---- Comparison ------------------------------------------------------------------------ */

struct cmp {
	struct range ign[IGNORE_MAX];
	unsigned nign;
};

static bool ignored(const struct cmp *m, uint32_t off)
{
	unsigned i;

	for (i = 0; i < m->nign; i++)
		if (off >= m->ign[i].off && off - m->ign[i].off < m->ign[i].len)
			return true;
	return false;
}

static bool byte_differs(const struct cmp *m, const struct pkt *a, const struct pkt *b,
                         uint32_t off)
{
	if (off >= a->caplen || off >= b->caplen)
		return off < a->caplen || off < b->caplen;
	return a->data[off] != b->data[off] && !ignored(m, off);
}

/* First differing captured byte, or UINT32_MAX when the captured bytes agree. */
static uint32_t first_diff(const struct cmp *m, const struct pkt *a, const struct pkt *b)
{
	uint32_t n = a->caplen > b->caplen ? a->caplen : b->caplen, off;

	for (off = 0; off < n; off++)
		if (byte_differs(m, a, b, off))
			return off;
	return UINT32_MAX;
}

static void summary(const char *label, const struct pkt *k)
{
	const uint8_t *d = k->data;

	printf("  %-8s %5" PRIu32 " B", label, k->len);
	if (k->caplen != k->len)
		printf(" (%" PRIu32 " captured)", k->caplen);
	if (k->caplen >= 14)
		printf("  %02x:%02x:%02x:%02x:%02x:%02x <- %02x:%02x:%02x:%02x:%02x:%02x  type "
		       "0x%02x%02x",
		       d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11],
		       d[12], d[13]);
	else
		printf("  (shorter than an Ethernet header)");
	printf("\n");
}

static void hex_row(const char *label, const struct pkt *k, uint32_t row)
{
	uint32_t i;

	printf("    %04" PRIx32 "  %s:", row, label);
	for (i = row; i < row + ROW; i++) {
		if (i < k->caplen)
			printf(" %02x", k->data[i]);
		else
			printf("   ");
	}
	printf("\n");
}

/* Rows around off, expected above got, with ^^ under every differing byte. */
static void hex_context(const struct cmp *m, const struct pkt *e, const struct pkt *g, uint32_t off)
{
	uint32_t first = off / ROW * ROW, last = first + ROW, row, i, end;
	uint32_t n = e->caplen > g->caplen ? e->caplen : g->caplen;
	char marks[3 * ROW + 1];

	first = first >= ROW ? first - ROW : 0;
	for (row = first; row <= last && row < n; row += ROW) {
		hex_row("exp", e, row);
		hex_row("got", g, row);
		end = 0;
		for (i = 0; i < ROW; i++) {
			bool d = byte_differs(m, e, g, row + i);
			memcpy(marks + 3 * i, d ? " ^^" : "   ", 3);
			if (d)
				end = 3 * (i + 1);
		}
		marks[end] = '\0';
		if (end)
			printf("              %s\n", marks);
	}
}

/* The first two rows of a frame. */
static void hex_head(const char *label, const struct pkt *k)
{
	uint32_t row;

	for (row = 0; row < 2 * ROW && row < k->caplen; row += ROW)
		hex_row(label, k, row);
}

/* Index of the first frame of c equal to k (under the mask), or -1. */
static long find_frame(const struct cmp *m, const struct cap *c, const struct pkt *k)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].len == k->len && first_diff(m, &c->v[i], k) == UINT32_MAX)
			return (long)i;
	return -1;
}

/* Says where a mismatched frame went: tells a missing or extra frame from a reordering. */
static void where(const struct cmp *m, const char *what, size_t i, const struct pkt *k,
                  const struct cap *other, const char *other_name)
{
	long j = find_frame(m, other, k);

	if (j < 0)
		printf("  %s frame %zu is nowhere in %s\n", what, i, other_name);
	else
		printf("  %s frame %zu is %s frame %ld\n", what, i, other_name, j);
}

static void report_frame(const struct cmp *m, const struct cap *e, const struct cap *g, size_t i,
                         uint32_t off)
{
	const struct pkt *pe = &e->v[i], *pg = &g->v[i];

	printf("%s: %s and %s differ at frame %zu (0-based; they hold %zu and %zu frames)\n", prog,
	       e->path, g->path, i, e->n, g->n);
	summary("expected", pe);
	summary("got", pg);
	where(m, "expected", i, pe, g, "got");
	where(m, "got", i, pg, e, "expected");
	if (pe->len != pg->len)
		printf("  length differs: expected %" PRIu32 ", got %" PRIu32 "\n", pe->len,
		       pg->len);
	if (off == UINT32_MAX)
		return;
	if (off < pe->caplen && off < pg->caplen)
		printf("  first difference at byte %" PRIu32 " (0x%" PRIx32
		       "): expected 0x%02x, got 0x%02x\n",
		       off, off, pe->data[off], pg->data[off]);
	else
		printf("  first difference at byte %" PRIu32 " (0x%" PRIx32 "): %s ends there\n",
		       off, off, off < pe->caplen ? "got" : "expected");
	hex_context(m, pe, pg, off);
}

static void report_count(const struct cap *e, const struct cap *g)
{
	const struct cap *longer = e->n > g->n ? e : g;
	const struct pkt *k = &longer->v[e->n < g->n ? e->n : g->n];

	printf("%s: %s and %s differ in frame count: expected %zu, got %zu\n", prog, e->path,
	       g->path, e->n, g->n);
	if (longer == e)
		printf("  first missing frame is expected frame %zu:\n", g->n);
	else
		printf("  first extra frame is got frame %zu:\n", e->n);
	summary(longer == e ? "expected" : "got", k);
	hex_head(longer == e ? "exp" : "got", k);
}

static int compare(const struct cmp *m, const char *exp_path, const char *got_path)
{
	struct cap e, g;
	size_t i, n;
	uint64_t bytes = 0;
	uint32_t off;
	int rc = 0;

	if (cap_load(&e, exp_path) != 0) {
		cap_free(&e);
		return 2;
	}
	if (cap_load(&g, got_path) != 0) {
		cap_free(&e);
		cap_free(&g);
		return 2;
	}
	if (e.linktype != g.linktype) {
		printf("%s: %s and %s differ in link type: expected %s, got %s\n", prog, exp_path,
		       got_path, pcap_datalink_val_to_name(e.linktype),
		       pcap_datalink_val_to_name(g.linktype));
		rc = 1;
	}
	n = e.n < g.n ? e.n : g.n;
	for (i = 0; rc == 0 && i < n; i++) {
		off = first_diff(m, &e.v[i], &g.v[i]);
		if (off != UINT32_MAX || e.v[i].len != g.v[i].len) {
			report_frame(m, &e, &g, i, off);
			rc = 1;
		}
		bytes += e.v[i].len;
	}
	if (rc == 0 && e.n != g.n) {
		report_count(&e, &g);
		rc = 1;
	}
	if (rc == 0)
		printf("%s: identical: %zu frames, %" PRIu64 " bytes%s\n", prog, e.n, bytes,
		       m->nign ? " (outside the ignored ranges)" : "");
	cap_free(&e);
	cap_free(&g);
	return rc;
}

/* ---- --seq ----------------------------------------------------------------------------- */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The sequence number of a pcapgen seq frame, or -1 if the frame is not one. */
static int64_t seq_of(const uint8_t *d, uint32_t len)
{
	uint32_t l3 = 14, l4;

	if (len >= 18 && get16(d + 12) == 0x8100) /* one 802.1Q tag */
		l3 = 18;
	if (len < l3 + 20 || get16(d + l3 - 2) != 0x0800 || d[l3] >> 4 != 4 || (d[l3] & 0xf) < 5 ||
	    d[l3 + 9] != 17 || (get16(d + l3 + 6) & 0x3fff) != 0)
		return -1;
	l4 = l3 + (uint32_t)(d[l3] & 0xf) * 4;
	if (len < l4 + 8 + 4 || get16(d + l4 + 2) != SEQ_DPORT)
		return -1;
	d += l4 + 8;
	return (int64_t)((uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3]);
}

static int seq_count(const char *path, unsigned long count)
{
	uint64_t frames = 0, unique = 0, dups = 0, reord = 0, invalid = 0;
	struct pcap_pkthdr *h;
	const u_char *data;
	uint8_t *seen;
	int64_t s, max = -1;
	pcap_t *p;
	int rc;

	seen = calloc(count / 8 + 1, 1);
	if (seen == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 2;
	}
	p = cap_open(path);
	if (p == NULL) {
		free(seen);
		return 2;
	}
	while ((rc = cap_next(p, path, &h, &data)) == 1) {
		frames++;
		s = seq_of(data, h->caplen);
		if (s < 0 || (uint64_t)s >= count) {
			invalid++;
		} else if (seen[s / 8] & (1u << (s % 8))) {
			dups++;
		} else {
			seen[s / 8] |= (uint8_t)(1u << (s % 8));
			unique++;
			if (s < max)
				reord++;
			else
				max = s;
		}
	}
	pcap_close(p);
	free(seen);
	if (rc != 0)
		return 2;
	printf("{\"frames\":%" PRIu64 ",\"unique\":%" PRIu64 ",\"missing\":%" PRIu64
	       ",\"duplicates\":%" PRIu64 ",\"reordered\":%" PRIu64 ",\"invalid\":%" PRIu64 "}\n",
	       frames, unique, (uint64_t)count - unique, dups, reord, invalid);
	return 0;
}

/* ---- Arguments ------------------------------------------------------------------------- */

static void usage(FILE *fp)
{
	fprintf(fp,
	        "usage: %s EXPECTED.pcap GOT.pcap [--ignore OFF:LEN]...\n"
	        "       %s --seq GOT.pcap --count N\n"
	        "\n"
	        "Compares two captures frame by frame: count, length and bytes (timestamps\n"
	        "are ignored). --ignore OFF:LEN (decimal, or hex after 0x) masks that byte\n"
	        "range of every frame. Exit status: 0 identical, 1 different, 2 error.\n"
	        "\n"
	        "--seq counts the frames of a `pcapgen seq` capture that arrived, and prints\n"
	        "{\"frames\":F,\"unique\":U,\"missing\":M,\"duplicates\":D,"
	        "\"reordered\":R,\"invalid\":I}\n",
	        prog, prog);
}

/* Decimal, or hexadecimal after 0x; returns the number of characters used, or -EINVAL. */
static int parse_u32(const char *s, uint32_t *out)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, hex ? 16 : 10);
	if (errno != 0 || end == s || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return (int)(end - s);
}

static int parse_range(const char *s, struct range *r)
{
	int n = parse_u32(s, &r->off);

	if (n < 0 || s[n] != ':')
		return -EINVAL;
	s += n + 1;
	n = parse_u32(s, &r->len);
	if (n < 0 || s[n] != '\0' || r->len == 0)
		return -EINVAL;
	return 0;
}

/* "--name VALUE" or "--name=VALUE": returns the value and advances *i, or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s: %s needs a value\n", prog, name);
		exit(2);
	}
	return argv[++*i];
}

int main(int argc, char **argv)
{
	const char *files[2] = {NULL, NULL}, *v, *count_arg = NULL;
	struct cmp m = {.nign = 0};
	unsigned nfiles = 0;
	unsigned long count = 0;
	bool seq = false;
	uint32_t c32 = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(argv[i], "--seq") == 0) {
			seq = true;
		} else if ((v = opt_value(argc, argv, &i, "--ignore")) != NULL) {
			if (m.nign == IGNORE_MAX) {
				fprintf(stderr, "%s: at most %d --ignore ranges\n", prog,
				        IGNORE_MAX);
				return 2;
			}
			if (parse_range(v, &m.ign[m.nign++]) != 0) {
				fprintf(stderr,
				        "%s: --ignore wants OFF:LEN with LEN > 0, got '%s'\n", prog,
				        v);
				return 2;
			}
		} else if ((v = opt_value(argc, argv, &i, "--count")) != NULL) {
			count_arg = v;
			if (parse_u32(v, &c32) != (int)strlen(v) || c32 == 0 || c32 > COUNT_MAX) {
				fprintf(stderr,
				        "%s: --count wants a number from 1 to %lu, got '%s'\n",
				        prog, COUNT_MAX, v);
				return 2;
			}
			count = c32;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			fprintf(stderr, "%s: unknown option '%s'\n", prog, argv[i]);
			usage(stderr);
			return 2;
		} else if (nfiles < 2) {
			files[nfiles++] = argv[i];
		} else {
			fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[i]);
			return 2;
		}
	}
	if (seq) {
		if (nfiles != 1 || count_arg == NULL || m.nign != 0) {
			fprintf(stderr,
			        "%s: --seq takes one capture and --count N (and no --ignore)\n",
			        prog);
			return 2;
		}
		return seq_count(files[0], count);
	}
	if (count_arg != NULL) {
		fprintf(stderr, "%s: --count goes with --seq\n", prog);
		return 2;
	}
	if (nfiles != 2) {
		fprintf(stderr, "%s: want two captures, EXPECTED and GOT\n", prog);
		usage(stderr);
		return 2;
	}
	return compare(&m, files[0], files[1]);
}
