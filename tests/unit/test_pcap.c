/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * pcap reader and writer: round trips, files crafted in both byte orders
 * and both timestamp resolutions, every truncation of a small file, corrupt
 * headers and records, and every error path. With "--tshark PATH", also
 * checks that tshark reads what the writer wrote.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include <rte_roce_pcap.h>

#include "roce_test.h"
#include "roce_test_eal.h"

#define PCAP_MAGIC_USEC 0xa1b2c3d4u
#define PCAP_MAGIC_NSEC 0xa1b23c4du
#define PCAPNG_MAGIC 0x0a0d0d0au
#define PCAP_FILE_HDR_LEN 24
#define PCAP_REC_HDR_LEN 16
#define LINKTYPE_ETHERNET 1
#define LINKTYPE_RAW 101
#define LINKTYPE_FCS_FLAG 0x10000000u	/* F bit: frames carry an FCS */
#define SNAPLEN_DEFAULT 65535
#define NSEC_PER_SEC 1000000000ull
#define CRAFT_MAX 1024
#define PATH_LEN 256
#define TSHARK_CMD_LEN 512
#define TSHARK_LINE_LEN 64

static char tmp_dir[] = "/tmp/roce_test_pcap.XXXXXX";
static const char *tshark;

static void
tmp_path(char *path, const char *name)
{
	snprintf(path, PATH_LEN, "%s/%s", tmp_dir, name);
}

/* A pcap file assembled byte by byte in either byte order. */
struct craft {
	uint8_t buf[CRAFT_MAX];
	uint32_t len;
	bool big_endian;
};

static void
put(struct craft *c, uint32_t v, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++) {
		unsigned int shift = 8 * (c->big_endian ? size - 1 - i : i);

		c->buf[c->len++] = (uint8_t)(v >> shift);
	}
}

static void
put_file_hdr(struct craft *c, uint32_t magic, uint16_t major, uint32_t snaplen,
	     uint32_t linktype)
{
	put(c, magic, 4);
	put(c, major, 2);
	put(c, 4, 2);	/* minor */
	put(c, 0, 4);	/* thiszone */
	put(c, 0, 4);	/* sigfigs */
	put(c, snaplen, 4);
	put(c, linktype, 4);
}

static void
put_rec_hdr(struct craft *c, uint32_t sec, uint32_t frac, uint32_t incl, uint32_t orig)
{
	put(c, sec, 4);
	put(c, frac, 4);
	put(c, incl, 4);
	put(c, orig, 4);
}

/* A record whose frame bytes are i + seed, for i in [0, incl). */
static void
put_record(struct craft *c, uint32_t sec, uint32_t frac, uint32_t incl, uint32_t orig,
	   uint8_t seed)
{
	uint32_t i;

	put_rec_hdr(c, sec, frac, incl, orig);
	for (i = 0; i < incl; i++)
		c->buf[c->len++] = (uint8_t)(i + seed);
}

static int
write_file(const char *path, const uint8_t *data, uint32_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	ROCE_TEST_ASSERT(f != NULL, "%s: %s", path, strerror(errno));
	ok = fwrite(data, 1, len, f) == len;
	ok = fclose(f) == 0 && ok;
	ROCE_TEST_ASSERT(ok, "%s: write failed", path);
	return 0;
}

/* The frame of put_record(). */
static int
frame_matches(const uint8_t *frame, uint32_t len, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (frame[i] != (uint8_t)(i + seed))
			return 0;
	return 1;
}

/* Open path and expect NULL with rte_errno = err. */
static int
expect_open_error(const char *path, int err, const char *what)
{
	struct rte_roce_pcap *p;

	rte_errno = 0;
	p = rte_roce_pcap_open(path);
	rte_roce_pcap_close(p);
	ROCE_TEST_ASSERT(p == NULL, "%s: opened", what);
	ROCE_TEST_ASSERT_EQ(rte_errno, err, "%s", what);
	return 0;
}

/* Frames of the round trip: lengths from empty to the largest allowed. */
static const uint32_t roundtrip_lens[] = { 0, 1, 60, 1514, 4154, 9018, RTE_ROCE_PCAP_MAX_FRAME };

static int
test_write_read_roundtrip(void)
{
	static uint8_t frame[RTE_ROCE_PCAP_MAX_FRAME];
	const uint32_t seg_cut = 100, mbuf_len = 300;
	struct rte_mempool *mp = roce_test_mbuf_pool();
	struct rte_mbuf *m = NULL, *seg = NULL;
	uint32_t i, caplen, origlen, nb = RTE_DIM(roundtrip_lens);
	const uint8_t *got;
	struct rte_roce_pcap *p;
	char path[PATH_LEN];
	uint64_t ts;
	int rc;

	for (i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 7 + 3);
	tmp_path(path, "roundtrip.pcap");
	p = rte_roce_pcap_create(path);
	ROCE_TEST_ASSERT(p != NULL, "create: %s", rte_strerror(rte_errno));
	for (i = 0; i < nb; i++) {
		rc = rte_roce_pcap_write(p, frame, roundtrip_lens[i], i * NSEC_PER_SEC + i);
		ROCE_TEST_ASSERT_EQ(rc, 0, "frame %u", i);
	}
	/* The same bytes again, from a 2-segment mbuf. */
	if (mp != NULL) {
		m = rte_pktmbuf_alloc(mp);
		seg = rte_pktmbuf_alloc(mp);
	}
	rc = m != NULL && seg != NULL &&
		rte_pktmbuf_append(m, seg_cut) != NULL &&
		rte_pktmbuf_append(seg, mbuf_len - seg_cut) != NULL;
	if (rc) {
		memcpy(rte_pktmbuf_mtod(m, void *), frame, seg_cut);
		memcpy(rte_pktmbuf_mtod(seg, void *), frame + seg_cut, mbuf_len - seg_cut);
		rc = rte_pktmbuf_chain(m, seg) == 0;
	}
	if (!rc) {
		rte_pktmbuf_free(seg);
		m = NULL;
	}
	rc = m == NULL ? -ENOMEM : rte_roce_pcap_write_mbuf(p, m, UINT32_MAX * NSEC_PER_SEC);
	rte_pktmbuf_free(m);
	ROCE_TEST_ASSERT_EQ(rc, 0, "write_mbuf");
	ROCE_TEST_ASSERT_EQ(rte_roce_pcap_close(p), 0, "close writer");

	p = rte_roce_pcap_open(path);
	ROCE_TEST_ASSERT(p != NULL, "open: %s", rte_strerror(rte_errno));
	for (i = 0; i <= nb; i++) {
		uint32_t want = i < nb ? roundtrip_lens[i] : mbuf_len;
		uint64_t want_ts = i < nb ? i * NSEC_PER_SEC + i : UINT32_MAX * NSEC_PER_SEC;

		rc = rte_roce_pcap_next(p, &got, &caplen, &origlen, &ts);
		if (rc != 1 || caplen != want || origlen != want || ts != want_ts ||
		    memcmp(got, frame, want) != 0)
			break;
	}
	if (i > nb) {
		rc = rte_roce_pcap_next(p, &got, &caplen, &origlen, &ts);
		rc = rc == 0 ? rte_roce_pcap_next(p, &got, &caplen, &origlen, &ts) : -1;
	}
	rte_roce_pcap_close(p);
	ROCE_TEST_ASSERT_EQ(i, nb + 1, "frame %u differs (rc %d)", i, rc);
	ROCE_TEST_ASSERT_EQ(rc, 0, "clean end, twice");
	return 0;
}

/* Files written by little- and big-endian machines, in us and ns. */
static int
test_read_crafted(void)
{
	static const uint32_t magics[] = { PCAP_MAGIC_USEC, PCAP_MAGIC_NSEC };
	const uint32_t sec = 1700000000, frac = 999999, len = 74, orig = 1500;
	struct rte_roce_pcap *p;
	struct craft c;
	char path[PATH_LEN];
	const uint8_t *frame;
	uint32_t caplen, origlen;
	unsigned int m, big;
	uint64_t ts, want_ts;
	int rc1, rc2, rc3;

	tmp_path(path, "crafted.pcap");
	for (m = 0; m < RTE_DIM(magics); m++) {
		for (big = 0; big < 2; big++) {
			memset(&c, 0, sizeof(c));
			c.big_endian = big;
			put_file_hdr(&c, magics[m], 2, SNAPLEN_DEFAULT, LINKTYPE_ETHERNET);
			put_record(&c, sec, frac, len, orig, 0x40);
			put_record(&c, 0, 0, 1, 1, 0x80);
			if (write_file(path, c.buf, c.len) < 0)
				return -1;
			p = rte_roce_pcap_open(path);
			ROCE_TEST_ASSERT(p != NULL, "magic %#x big %u: %s", magics[m], big,
					 rte_strerror(rte_errno));
			rc1 = rte_roce_pcap_next(p, &frame, &caplen, &origlen, &ts);
			rc1 = rc1 == 1 && caplen == len && origlen == orig &&
				frame_matches(frame, len, 0x40);
			want_ts = sec * NSEC_PER_SEC +
				(uint64_t)frac * (magics[m] == PCAP_MAGIC_USEC ? 1000 : 1);
			rc1 = rc1 && ts == want_ts;
			rc2 = rte_roce_pcap_next(p, &frame, &caplen, &origlen, &ts);
			rc2 = rc2 == 1 && caplen == 1 && frame[0] == 0x80 && ts == 0;
			rc3 = rte_roce_pcap_next(p, &frame, &caplen, &origlen, &ts);
			rte_roce_pcap_close(p);
			ROCE_TEST_ASSERT(rc1 && rc2, "magic %#x big %u: frames differ",
					 magics[m], big);
			ROCE_TEST_ASSERT_EQ(rc3, 0, "magic %#x big %u: end", magics[m], big);
		}
	}
	return 0;
}

/* Read every frame; returns the count and sets *end to the final return. */
static unsigned int
read_all(struct rte_roce_pcap *p, int *end)
{
	const uint8_t *frame;
	uint32_t caplen, origlen;
	unsigned int n = 0;
	uint64_t ts;

	while ((*end = rte_roce_pcap_next(p, &frame, &caplen, &origlen, &ts)) == 1)
		n++;
	return n;
}

/*
 * Cut a 3-record file at every byte: the header cut gives EINVAL at open,
 * a cut at a record boundary a clean end, any other cut -EBADMSG after the
 * complete records, sticky.
 */
static int
test_truncated_everywhere(void)
{
	static const uint32_t rec_lens[] = { 60, 0, 7 };
	uint32_t bounds[RTE_DIM(rec_lens)], cut;
	struct rte_roce_pcap *p;
	unsigned int i, n, complete;
	char path[PATH_LEN];
	struct craft c;
	int end, again;

	memset(&c, 0, sizeof(c));
	put_file_hdr(&c, PCAP_MAGIC_NSEC, 2, SNAPLEN_DEFAULT, LINKTYPE_ETHERNET);
	for (i = 0; i < RTE_DIM(rec_lens); i++) {
		put_record(&c, i, i, rec_lens[i], rec_lens[i], (uint8_t)i);
		bounds[i] = c.len;
	}
	tmp_path(path, "truncated.pcap");
	for (cut = 0; cut <= c.len; cut++) {
		if (write_file(path, c.buf, cut) < 0)
			return -1;
		if (cut < PCAP_FILE_HDR_LEN) {
			if (expect_open_error(path, EINVAL, "short header") < 0)
				return -1;
			continue;
		}
		for (complete = 0; complete < RTE_DIM(rec_lens) && bounds[complete] <= cut;)
			complete++;
		p = rte_roce_pcap_open(path);
		ROCE_TEST_ASSERT(p != NULL, "cut %u: %s", cut, rte_strerror(rte_errno));
		n = read_all(p, &end);
		read_all(p, &again);
		rte_roce_pcap_close(p);
		ROCE_TEST_ASSERT_EQ(n, complete, "cut %u", cut);
		if (cut == PCAP_FILE_HDR_LEN || (complete > 0 && bounds[complete - 1] == cut))
			ROCE_TEST_ASSERT_EQ(end, 0, "cut %u at a boundary", cut);
		else
			ROCE_TEST_ASSERT_EQ(end, -EBADMSG, "cut %u inside a record", cut);
		ROCE_TEST_ASSERT_EQ(again, end, "cut %u: next after the end", cut);
	}
	return 0;
}

struct bad_hdr {
	const char *what;
	uint32_t magic;
	uint16_t major;
	uint32_t snaplen;
	uint32_t linktype;
	int err;
};

static int
test_bad_file_headers(void)
{
	static const struct bad_hdr cases[] = {
		{ "pcapng", PCAPNG_MAGIC, 2, SNAPLEN_DEFAULT, LINKTYPE_ETHERNET, EINVAL },
		{ "zero magic", 0, 2, SNAPLEN_DEFAULT, LINKTYPE_ETHERNET, EINVAL },
		{ "version 1", PCAP_MAGIC_USEC, 1, SNAPLEN_DEFAULT, LINKTYPE_ETHERNET, EINVAL },
		{ "snaplen 0", PCAP_MAGIC_USEC, 2, 0, LINKTYPE_ETHERNET, EINVAL },
		{ "raw IP", PCAP_MAGIC_USEC, 2, SNAPLEN_DEFAULT, LINKTYPE_RAW, ENOTSUP },
		{ "Ethernet with FCS", PCAP_MAGIC_NSEC, 2, SNAPLEN_DEFAULT,
		  LINKTYPE_ETHERNET | LINKTYPE_FCS_FLAG, ENOTSUP },
	};
	char path[PATH_LEN];
	struct craft c;
	unsigned int i, big;

	tmp_path(path, "bad_hdr.pcap");
	for (i = 0; i < RTE_DIM(cases); i++) {
		for (big = 0; big < 2; big++) {
			memset(&c, 0, sizeof(c));
			c.big_endian = big;
			put_file_hdr(&c, cases[i].magic, cases[i].major, cases[i].snaplen,
				     cases[i].linktype);
			put_record(&c, 0, 0, 1, 1, 0);
			if (write_file(path, c.buf, c.len) < 0 ||
			    expect_open_error(path, cases[i].err, cases[i].what) < 0)
				return -1;
		}
	}
	return 0;
}

struct bad_rec {
	const char *what;
	uint32_t magic;
	uint32_t snaplen;
	uint32_t frac;
	uint32_t incl;
	uint32_t orig;
};

/* Corrupt records: -EBADMSG after the good first record, with no huge allocation. */
static int
test_bad_records(void)
{
	static const struct bad_rec cases[] = {
		{ "incl_len above snaplen", PCAP_MAGIC_NSEC, 100, 0, 101, 101 },
		{ "incl_len above the maximum", PCAP_MAGIC_NSEC, UINT32_MAX, 0,
		  RTE_ROCE_PCAP_MAX_FRAME + 1, RTE_ROCE_PCAP_MAX_FRAME + 1 },
		{ "incl_len 4 GiB", PCAP_MAGIC_NSEC, UINT32_MAX, 0, UINT32_MAX, UINT32_MAX },
		{ "incl_len above orig_len", PCAP_MAGIC_NSEC, SNAPLEN_DEFAULT, 0, 10, 9 },
		{ "nanoseconds >= 1e9", PCAP_MAGIC_NSEC, SNAPLEN_DEFAULT, 1000000000, 1, 1 },
		{ "microseconds >= 1e6", PCAP_MAGIC_USEC, SNAPLEN_DEFAULT, 1000000, 1, 1 },
	};
	struct rte_roce_pcap *p;
	char path[PATH_LEN];
	struct craft c;
	unsigned int i, n;
	int end;

	tmp_path(path, "bad_rec.pcap");
	for (i = 0; i < RTE_DIM(cases); i++) {
		memset(&c, 0, sizeof(c));
		put_file_hdr(&c, cases[i].magic, 2, cases[i].snaplen, LINKTYPE_ETHERNET);
		put_record(&c, 0, 0, 1, 1, 0);
		/* Only the record header: the claimed data is never there. */
		put_rec_hdr(&c, 0, cases[i].frac, cases[i].incl, cases[i].orig);
		put_record(&c, 0, 0, 1, 1, 0);
		if (write_file(path, c.buf, c.len) < 0)
			return -1;
		p = rte_roce_pcap_open(path);
		ROCE_TEST_ASSERT(p != NULL, "%s: %s", cases[i].what, rte_strerror(rte_errno));
		n = read_all(p, &end);
		rte_roce_pcap_close(p);
		ROCE_TEST_ASSERT_EQ(n, 1, "%s", cases[i].what);
		ROCE_TEST_ASSERT_EQ(end, -EBADMSG, "%s", cases[i].what);
	}
	return 0;
}

static int
test_open_errors(void)
{
	char path[PATH_LEN];

	tmp_path(path, "missing.pcap");
	if (expect_open_error(path, ENOENT, "missing file") < 0 ||
	    expect_open_error(tmp_dir, EISDIR, "directory") < 0 ||
	    expect_open_error(NULL, EINVAL, "NULL path") < 0)
		return -1;
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_pcap_create(NULL) == NULL && rte_errno == EINVAL,
			 "create(NULL)");
	tmp_path(path, "no/such/dir.pcap");
	ROCE_TEST_ASSERT(rte_roce_pcap_create(path) == NULL && rte_errno == ENOENT,
			 "create in a missing directory: %d", rte_errno);
	ROCE_TEST_ASSERT_EQ(rte_roce_pcap_close(NULL), 0, "close(NULL)");
	return 0;
}

/* Calls on the wrong kind of handle or with bad arguments. */
static int
test_misuse(void)
{
	static const uint8_t frame[1];
	struct rte_roce_pcap *w, *r;
	char path[PATH_LEN];
	const uint8_t *f;
	uint32_t caplen, origlen;
	uint64_t ts;
	int rc[9];

	tmp_path(path, "misuse.pcap");
	w = rte_roce_pcap_create(path);
	ROCE_TEST_ASSERT(w != NULL, "create: %s", rte_strerror(rte_errno));
	rc[0] = rte_roce_pcap_next(w, &f, &caplen, &origlen, &ts);
	rc[1] = rte_roce_pcap_write(w, NULL, 1, 0);
	rc[2] = rte_roce_pcap_write(w, frame, RTE_ROCE_PCAP_MAX_FRAME + 1, 0);
	rc[3] = rte_roce_pcap_write(w, frame, 1, (UINT32_MAX + 1ull) * NSEC_PER_SEC);
	rc[4] = rte_roce_pcap_write_mbuf(w, NULL, 0);
	rc[5] = rte_roce_pcap_write(NULL, frame, 1, 0);
	ROCE_TEST_ASSERT_EQ(rte_roce_pcap_close(w), 0, "close writer");
	r = rte_roce_pcap_open(path);
	ROCE_TEST_ASSERT(r != NULL, "open: %s", rte_strerror(rte_errno));
	rc[6] = rte_roce_pcap_write(r, frame, 1, 0);
	rc[7] = rte_roce_pcap_next(r, NULL, &caplen, &origlen, &ts);
	rc[8] = rte_roce_pcap_next(r, &f, &caplen, &origlen, &ts);
	rte_roce_pcap_close(r);
	ROCE_TEST_ASSERT_EQ(rc[0], -EINVAL, "next on a writer");
	ROCE_TEST_ASSERT_EQ(rc[1], -EINVAL, "write NULL frame");
	ROCE_TEST_ASSERT_EQ(rc[2], -EINVAL, "write too long");
	ROCE_TEST_ASSERT_EQ(rc[3], -EINVAL, "write time after 2106");
	ROCE_TEST_ASSERT_EQ(rc[4], -EINVAL, "write NULL mbuf");
	ROCE_TEST_ASSERT_EQ(rc[5], -EINVAL, "write on NULL");
	ROCE_TEST_ASSERT_EQ(rc[6], -EINVAL, "write on a reader");
	ROCE_TEST_ASSERT_EQ(rc[7], -EINVAL, "next with NULL frame");
	ROCE_TEST_ASSERT_EQ(rc[8], 0, "nothing was written by failed calls");
	return 0;
}

/* A full disk: the error surfaces, at the latest at close. */
static int
test_write_error(void)
{
	static uint8_t frame[RTE_ROCE_PCAP_MAX_FRAME];
	struct rte_roce_pcap *w = rte_roce_pcap_create("/dev/full");
	int rc, i, first = 0;

	ROCE_TEST_ASSERT(w != NULL, "create /dev/full: %s", rte_strerror(rte_errno));
	for (i = 0; i < 2 && first == 0; i++)
		first = rte_roce_pcap_write(w, frame, sizeof(frame), 0);
	rc = rte_roce_pcap_close(w);
	ROCE_TEST_ASSERT_EQ(first, -ENOSPC, "write error reported by write");
	ROCE_TEST_ASSERT_EQ(rc, -ENOSPC, "write error reported by close");
	return 0;
}

/* tshark must read our file: same frame count and lengths. */
static int
test_tshark_reads(void)
{
	static const uint32_t lens[] = { 60, 1514, 4154 };
	static uint8_t frame[4154];
	char path[PATH_LEN], cmd[TSHARK_CMD_LEN], line[TSHARK_LINE_LEN];
	struct rte_roce_pcap *w;
	unsigned int n = 0, bad = 0;
	FILE *out;
	int rc;

	tmp_path(path, "tshark.pcap");
	w = rte_roce_pcap_create(path);
	ROCE_TEST_ASSERT(w != NULL, "create: %s", rte_strerror(rte_errno));
	for (n = 0; n < RTE_DIM(lens); n++)
		rte_roce_pcap_write(w, frame, lens[n], n * NSEC_PER_SEC + 123456789);
	ROCE_TEST_ASSERT_EQ(rte_roce_pcap_close(w), 0, "close");
	snprintf(cmd, sizeof(cmd),
		 "'%s' -r '%s' -T fields -e frame.len -e frame.time_epoch 2>/dev/null", tshark, path);
	out = popen(cmd, "r");
	ROCE_TEST_ASSERT(out != NULL, "popen: %s", strerror(errno));
	for (n = 0; fgets(line, sizeof(line), out) != NULL; n++) {
		printf("# tshark: %s", line);
		if (n >= RTE_DIM(lens) || strtoul(line, NULL, 10) != lens[n] ||
		    strstr(line, ".123456789") == NULL)
			bad++;
	}
	rc = pclose(out);
	ROCE_TEST_ASSERT_EQ(rc, 0, "tshark exit status");
	ROCE_TEST_ASSERT(n == RTE_DIM(lens) && bad == 0, "%u lines, %u wrong", n, bad);
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "pcap_write_read_roundtrip", test_write_read_roundtrip },
	{ "pcap_read_both_magics_both_byte_orders", test_read_crafted },
	{ "pcap_truncated_at_every_byte", test_truncated_everywhere },
	{ "pcap_bad_file_headers_rejected", test_bad_file_headers },
	{ "pcap_bad_records_rejected", test_bad_records },
	{ "pcap_open_create_errors", test_open_errors },
	{ "pcap_misuse_rejected", test_misuse },
	{ "pcap_write_error_reported", test_write_error },
	/* Last: run only when meson found tshark. */
	{ "pcap_tshark_reads_written_file", test_tshark_reads },
};

int
main(int argc, char **argv)
{
	unsigned int nb = RTE_DIM(cases);
	char cmd[TSHARK_CMD_LEN];
	int rc;

	if (argc == 3 && strcmp(argv[1], "--tshark") == 0)
		tshark = argv[2];
	else
		nb--;
	if (roce_test_eal_init(argv[0], NULL) < 0)
		return 1;
	if (mkdtemp(tmp_dir) == NULL) {
		printf("# mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	rc = roce_test_run(cases, nb);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmp_dir);
	return rc;
}
