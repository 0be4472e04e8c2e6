/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * libFuzzer target: any byte string as a received Ethernet frame.
 *
 * The receive path must never crash, leak or read out of bounds, and its
 * two forms must agree: the flat parser and the mbuf parser (on a copy cut
 * in two segments) give the same verdict and fields, the flat and mbuf ICRC
 * checks the same answer, and an accepted frame rebuilds byte for byte
 * (up to its ICRC, and the ICRC too when it was right). A disagreement
 * aborts, which libFuzzer reports as a crash with the input saved.
 *
 * Seeds: with ROCE_FUZZ_VECTORS (a folder of pcaps) and ROCE_FUZZ_SEED_DIR
 * set, LLVMFuzzerInitialize() writes into ROCE_FUZZ_SEED_DIR the first frame
 * of each opcode of each capture, plus its first non-RoCEv2 frame: a small
 * corpus, made at test time, never committed.
 */

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include <rte_roce_icrc.h>
#include <rte_roce_pcap.h>
#include <rte_roce_pkt.h>

#include "roce_test_eal.h"

/* The largest IB MTU. */
#define FUZZ_MTU 4096
/* Each of the two segments holds at most what a test mbuf holds. */
#define FUZZ_SEG_ROOM (ROCE_TEST_MBUF_DATA_SIZE - RTE_PKTMBUF_HEADROOM)
#define FUZZ_PATH_LEN 512
#define FUZZ_OPCODES (UINT8_MAX + 1)
#define FUZZ_FRAME_MAX (2 * FUZZ_SEG_ROOM)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rte_mempool *pool;

/* A failed oracle: abort, so that libFuzzer saves the input. */
#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz_rx: %s:%d: '%s' does not hold\n",	\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

static void
write_seed(const char *dir, const char *pcap, unsigned int n, const uint8_t *frame,
	   uint32_t len)
{
	char path[FUZZ_PATH_LEN];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s_%u", dir, pcap, n);
	f = fopen(path, "wb");
	if (f == NULL)
		return;
	if (fwrite(frame, 1, len, f) != len)
		fprintf(stderr, "fuzz_rx: short write to %s\n", path);
	fclose(f);
}

/* Seeds from one capture; returns how many were written. */
static unsigned int
seed_from_pcap(const char *vectors, const char *name, const char *dir)
{
	bool seen[FUZZ_OPCODES] = { false }, other = false;
	char path[FUZZ_PATH_LEN];
	struct rte_roce_pcap *p;
	struct rte_roce_pkt pkt;
	uint32_t caplen, origlen;
	const uint8_t *frame;
	unsigned int n = 0, nb = 0;
	uint64_t ts;

	snprintf(path, sizeof(path), "%s/%s", vectors, name);
	p = rte_roce_pcap_open(path);
	if (p == NULL)
		return 0;
	while (rte_roce_pcap_next(p, &frame, &caplen, &origlen, &ts) == 1) {
		n++;
		if (rte_roce_pkt_parse(frame, caplen, FUZZ_MTU, &pkt) == RTE_ROCE_DROP_NONE) {
			if (seen[pkt.opcode])
				continue;
			seen[pkt.opcode] = true;
		} else if (other) {
			continue;
		} else {
			other = true;
		}
		write_seed(dir, name, n, frame, caplen);
		nb++;
	}
	rte_roce_pcap_close(p);
	return nb;
}

static void
seed_corpus(const char *vectors, const char *dir)
{
	unsigned int nb = 0;
	struct dirent *e;
	DIR *d;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "fuzz_rx: %s: %s\n", dir, strerror(errno));
		return;
	}
	d = opendir(vectors);
	if (d == NULL) {
		fprintf(stderr, "fuzz_rx: %s: %s\n", vectors, strerror(errno));
		return;
	}
	while ((e = readdir(d)) != NULL)
		if (strstr(e->d_name, ".pcap") != NULL)
			nb += seed_from_pcap(vectors, e->d_name, dir);
	closedir(d);
	fprintf(stderr, "fuzz_rx: %u seeds from %s in %s\n", nb, vectors, dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *vectors = getenv("ROCE_FUZZ_VECTORS");
	const char *seed_dir = getenv("ROCE_FUZZ_SEED_DIR");

	RTE_SET_USED(argc);
	if (roce_test_eal_init((*argv)[0], NULL) < 0)
		abort();
	pool = roce_test_mbuf_pool();
	if (pool == NULL)
		abort();
	if (vectors != NULL && seed_dir != NULL)
		seed_corpus(vectors, seed_dir);
	return 0;
}

/* The frame in two segments, cut where its last byte says; NULL if no mbuf. */
static struct rte_mbuf *
split_mbuf(const uint8_t *data, uint32_t size)
{
	uint32_t cut = size == 0 ? 0 : (uint32_t)((uint64_t)size * data[size - 1] / UINT8_MAX);
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_mbuf *seg = rte_pktmbuf_alloc(pool);
	char *a, *b;

	cut = RTE_MIN(cut, FUZZ_SEG_ROOM);
	cut = RTE_MAX(cut, size > FUZZ_SEG_ROOM ? size - FUZZ_SEG_ROOM : 0);
	a = m == NULL ? NULL : rte_pktmbuf_append(m, cut);
	b = seg == NULL ? NULL : rte_pktmbuf_append(seg, size - cut);
	if (a == NULL || b == NULL || rte_pktmbuf_chain(m, seg) != 0) {
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(seg);
		return NULL;
	}
	memcpy(a, data, cut);
	memcpy(b, data + cut, size - cut);
	return m;
}

/*
 * An accepted frame rebuilds to the same bytes, up to the end of its
 * payload. The builder writes zero pad bytes, and the parser accepts any
 * (IBA only says they are sent as 0; rxe does not look at them): the pad,
 * and so the ICRC, can only match when the pad was zero.
 */
static void
check_rebuild(const uint8_t *data, const struct rte_roce_pkt *pkt, int icrc)
{
	static const uint8_t zero_pad[RTE_ROCE_PAD_MAX];
	static uint8_t buf[FUZZ_FRAME_MAX];
	uint32_t payload_end = pkt->payload_off + pkt->payload_len;
	int len;

	len = rte_roce_pkt_build(pkt, data + pkt->payload_off, buf, sizeof(buf));
	FUZZ_CHECK(len == (int)(pkt->icrc_off + RTE_ROCE_ICRC_LEN));
	FUZZ_CHECK(memcmp(buf, data, payload_end) == 0);
	if (icrc == 0 && memcmp(data + payload_end, zero_pad, pkt->pad) == 0)
		FUZZ_CHECK(memcmp(buf + payload_end, data + payload_end,
				  pkt->pad + RTE_ROCE_ICRC_LEN) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_roce_pkt pkt, pkt_m;
	enum rte_roce_drop_reason r, r_m;
	struct rte_mbuf *m;
	int icrc = 0, icrc_m;

	if (size > FUZZ_FRAME_MAX)
		return -1;	/* not added to the corpus */
	r = rte_roce_pkt_parse(data, (uint32_t)size, FUZZ_MTU, &pkt);
	FUZZ_CHECK(r < RTE_ROCE_DROP_REASON_MAX && r != RTE_ROCE_DROP_ICRC);
	if (r == RTE_ROCE_DROP_NONE) {
		FUZZ_CHECK(pkt.icrc_off + RTE_ROCE_ICRC_LEN <= size);
		icrc = rte_roce_icrc_check(data + pkt.l3_off, pkt.icrc_off - pkt.l3_off);
		check_rebuild(data, &pkt, icrc);
	}

	m = split_mbuf(data, (uint32_t)size);
	FUZZ_CHECK(m != NULL);
	r_m = rte_roce_pkt_parse_mbuf(m, FUZZ_MTU, &pkt_m);
	FUZZ_CHECK(r_m == r);
	if (r == RTE_ROCE_DROP_NONE) {
		FUZZ_CHECK(memcmp(&pkt, &pkt_m, sizeof(pkt)) == 0);
		icrc_m = rte_roce_icrc_check_mbuf(m, pkt_m.l3_off, pkt_m.icrc_off - pkt_m.l3_off);
		FUZZ_CHECK(icrc_m == icrc);
	}
	/*
	 * Seam: once the port (helper "port") can take one received frame
	 * into its RX path, hand it m here, before the free.
	 */
	rte_pktmbuf_free(m);
	return 0;
}
