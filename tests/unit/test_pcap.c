/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The pcap writer: libpcap reads every frame it writes (lengths from 0 to
 * the maximum, a chained mbuf, nanosecond times up to 2106), and every error
 * path (bad arguments, a full disk). With "--tshark PATH", tshark must read
 * it too.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include <pcap/pcap.h>

#include <rte_roce_pcap.h>

#include "roce_test.h"
#include "roce_test_eal.h"

#define NSEC_PER_SEC 1000000000ull
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

/* Frames of the round trip: lengths from empty to the largest allowed. */
static const uint32_t roundtrip_lens[] = { 0, 1, 60, 1514, 4154, 9018, RTE_ROCE_PCAP_MAX_FRAME };

/* Write the round-trip frames to path: roundtrip_lens, then a 2-segment mbuf of mbuf_len. */
static int
write_roundtrip(const char *path, const uint8_t *frame, uint32_t mbuf_len)
{
	const uint32_t seg_cut = 100;
	struct rte_mempool *mp = roce_test_mbuf_pool();
	struct rte_mbuf *m = NULL, *seg = NULL;
	struct rte_roce_pcap *p;
	uint32_t i;
	int rc;

	p = rte_roce_pcap_create(path);
	ROCE_TEST_ASSERT(p != NULL, "create: %s", rte_strerror(rte_errno));
	for (i = 0; i < RTE_DIM(roundtrip_lens); i++) {
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
	return 0;
}

/* Frame i of write_roundtrip(): its length and time. */
static void
roundtrip_want(uint32_t i, uint32_t mbuf_len, uint32_t *len, uint64_t *ts)
{
	uint32_t nb = RTE_DIM(roundtrip_lens);

	*len = i < nb ? roundtrip_lens[i] : mbuf_len;
	*ts = i < nb ? i * NSEC_PER_SEC + i : UINT32_MAX * NSEC_PER_SEC;
}

static uint8_t roundtrip_frame[RTE_ROCE_PCAP_MAX_FRAME];

static void
roundtrip_fill(void)
{
	uint32_t i;

	for (i = 0; i < sizeof(roundtrip_frame); i++)
		roundtrip_frame[i] = (uint8_t)(i * 7 + 3);
}

/*
 * libpcap (what roce_dump and tcpdump read with) reads every frame the
 * writer wrote: bytes, lengths, nanosecond times, link type. libpcap 1.10
 * reads the 32-bit seconds field as signed: the frame of 2106 comes back
 * with tv_sec -1, hence the cast (roce_dump makes the same correction).
 */
static int
test_libpcap_reads_written_file(void)
{
	const uint32_t mbuf_len = 300;
	uint32_t i, want, nb = RTE_DIM(roundtrip_lens);
	char path[PATH_LEN], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *hdr;
	const u_char *got;
	uint64_t want_ts;
	int rc = 1, dlt, snap;
	pcap_t *p;

	roundtrip_fill();
	tmp_path(path, "libpcap.pcap");
	if (write_roundtrip(path, roundtrip_frame, mbuf_len) < 0)
		return -1;
	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	ROCE_TEST_ASSERT(p != NULL, "libpcap: %s", err);
	dlt = pcap_datalink(p);
	snap = pcap_snapshot(p);
	for (i = 0; i <= nb; i++) {
		roundtrip_want(i, mbuf_len, &want, &want_ts);
		rc = pcap_next_ex(p, &hdr, &got);
		if (rc != 1 || hdr->caplen != want || hdr->len != want ||
		    (uint32_t)hdr->ts.tv_sec * NSEC_PER_SEC + (uint64_t)hdr->ts.tv_usec != want_ts ||
		    memcmp(got, roundtrip_frame, want) != 0)
			break;
	}
	if (i > nb)
		rc = pcap_next_ex(p, &hdr, &got);
	pcap_close(p);
	ROCE_TEST_ASSERT_EQ(dlt, DLT_EN10MB, "link type");
	ROCE_TEST_ASSERT_EQ(snap, RTE_ROCE_PCAP_MAX_FRAME, "snapshot length");
	ROCE_TEST_ASSERT_EQ(i, nb + 1, "frame %u differs (libpcap rc %d)", i, rc);
	ROCE_TEST_ASSERT_EQ(rc, PCAP_ERROR_BREAK, "clean end");
	return 0;
}

static int
test_create_errors(void)
{
	char path[PATH_LEN];

	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_pcap_create(NULL) == NULL && rte_errno == EINVAL,
			 "create(NULL)");
	tmp_path(path, "no/such/dir.pcap");
	ROCE_TEST_ASSERT(rte_roce_pcap_create(path) == NULL && rte_errno == ENOENT,
			 "create in a missing directory: %d", rte_errno);
	ROCE_TEST_ASSERT(rte_roce_pcap_create(tmp_dir) == NULL && rte_errno == EISDIR,
			 "create a directory: %d", rte_errno);
	ROCE_TEST_ASSERT_EQ(rte_roce_pcap_close(NULL), 0, "close(NULL)");
	return 0;
}

/* Bad arguments: refused, and nothing written. */
static int
test_misuse(void)
{
	static const uint8_t frame[1];
	char path[PATH_LEN], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *hdr;
	const u_char *data;
	struct rte_roce_pcap *w;
	pcap_t *r;
	int rc[6];

	tmp_path(path, "misuse.pcap");
	w = rte_roce_pcap_create(path);
	ROCE_TEST_ASSERT(w != NULL, "create: %s", rte_strerror(rte_errno));
	rc[0] = rte_roce_pcap_write(w, NULL, 1, 0);
	rc[1] = rte_roce_pcap_write(w, frame, RTE_ROCE_PCAP_MAX_FRAME + 1, 0);
	rc[2] = rte_roce_pcap_write(w, frame, 1, (UINT32_MAX + 1ull) * NSEC_PER_SEC);
	rc[3] = rte_roce_pcap_write_mbuf(w, NULL, 0);
	rc[4] = rte_roce_pcap_write(NULL, frame, 1, 0);
	ROCE_TEST_ASSERT_EQ(rte_roce_pcap_close(w), 0, "close writer");
	r = pcap_open_offline(path, err);
	ROCE_TEST_ASSERT(r != NULL, "libpcap: %s", err);
	rc[5] = pcap_next_ex(r, &hdr, &data);
	pcap_close(r);
	ROCE_TEST_ASSERT_EQ(rc[0], -EINVAL, "write NULL frame");
	ROCE_TEST_ASSERT_EQ(rc[1], -EINVAL, "write too long");
	ROCE_TEST_ASSERT_EQ(rc[2], -EINVAL, "write time after 2106");
	ROCE_TEST_ASSERT_EQ(rc[3], -EINVAL, "write NULL mbuf");
	ROCE_TEST_ASSERT_EQ(rc[4], -EINVAL, "write on NULL");
	ROCE_TEST_ASSERT_EQ(rc[5], PCAP_ERROR_BREAK, "nothing was written by failed calls");
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
		 "'%s' -r '%s' -T fields -e frame.len -e frame.time_epoch 2>/dev/null",
		 tshark, path);
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
	{ "pcap_libpcap_reads_written_file", test_libpcap_reads_written_file },
	{ "pcap_create_errors", test_create_errors },
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
