/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Conformance against Linux kernel Soft-RoCE (rdma_rxe) captures.
 *
 * usage: test_func_vectors VECTORS_DIR
 *
 * Every *.pcap in VECTORS_DIR is read (with libpcap); nothing about their contents is
 * assumed beyond "every RoCEv2 frame is one rxe sent, with a correct ICRC".
 * Two TAP cases per file:
 *
 * - vectors_<file>_parse_rebuild: every IPv4/IPv6 UDP frame to port 4791
 *   must parse, verify its ICRC, and rebuild byte for byte from the parsed
 *   fields and its payload; a sample is also parsed and checked as 2-segment
 *   mbufs cut at many offsets.
 *
 * - vectors_<file>_flip_bytes: on the first frame of each opcode in the file,
 *   every byte from the IP header to the end of the ICRC is flipped (XOR 0xff,
 *   then XOR 0x01), one at a time; each flip must be caught by the parser or
 *   by the ICRC, except in the fields the ICRC leaves out by design AND the
 *   parser does not check (see flip_may_pass()).
 */

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include <rte_roce_hdr.h>
#include <rte_roce_icrc.h>
#include <rte_roce_opcode.h>
#include <rte_roce_pcap.h>
#include <rte_roce_pkt.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_pcap.h"

/* The largest IB MTU: every capture's payloads fit. */
#define VEC_MTU 4096
#define VEC_MAX_FILES 64
#define VEC_PATH_LEN 512
#define VEC_NAME_LEN 128
#define VEC_FRAME_MAX (RTE_ROCE_PCAP_MAX_FRAME)
#define VEC_OPCODES (UINT8_MAX + 1)
/* mbuf cuts: at every offset in the headers, then at this stride. */
#define VEC_CUT_ALL 128
#define VEC_CUT_STRIDE 61
/* Shortest Ethernet frame without FCS: anything beyond the IP packet is padding up to it. */
#define VEC_ETH_MIN_LEN (RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN)
#define IPV6_BYTE_VERSION_TC 0
#define IPV6_BYTE_TC_FLOW 1
#define IPV6_BYTE_FLOW_LAST 3
#define IPV6_BYTE_HOP_LIMIT 7
#define IP_VERSION_SHIFT 4
#define TC_HIGH_NIBBLE_MASK 0x0f
#define BTH_BYTE_FECN_BECN 4

static const uint8_t flips[] = { 0xff, 0x01 };

static const char *vectors_dir;
static char *files[VEC_MAX_FILES];
static unsigned int nb_files;
/* The file the next parse_rebuild / flip_bytes case works on (they alternate). */
static unsigned int cur_file;

/* Whether a frame is UDP to port 4791 over IPv4 or IPv6, after at most one VLAN tag. */
static bool
is_rocev2(const uint8_t *frame, uint32_t len)
{
	uint32_t off = RTE_ETHER_HDR_LEN, l4;
	uint16_t type, dport;
	uint8_t proto;

	if (len < off)
		return false;
	type = (uint16_t)(frame[off - 2] << 8 | frame[off - 1]);
	if (type == RTE_ETHER_TYPE_VLAN) {
		off += sizeof(struct rte_vlan_hdr);
		if (len < off)
			return false;
		type = (uint16_t)(frame[off - 2] << 8 | frame[off - 1]);
	}
	if (type == RTE_ETHER_TYPE_IPV4 && len >= off + sizeof(struct rte_ipv4_hdr)) {
		proto = frame[off + offsetof(struct rte_ipv4_hdr, next_proto_id)];
		l4 = off + (frame[off] & RTE_IPV4_HDR_IHL_MASK) * RTE_IPV4_IHL_MULTIPLIER;
	} else if (type == RTE_ETHER_TYPE_IPV6 && len >= off + sizeof(struct rte_ipv6_hdr)) {
		proto = frame[off + offsetof(struct rte_ipv6_hdr, proto)];
		l4 = off + sizeof(struct rte_ipv6_hdr);
	} else {
		return false;
	}
	if (proto != IPPROTO_UDP || len < l4 + sizeof(struct rte_udp_hdr))
		return false;
	dport = (uint16_t)(frame[l4 + 2] << 8 | frame[l4 + 3]);
	return dport == RTE_ROCE_UDP_PORT;
}

static void
file_path(char *path, unsigned int i)
{
	snprintf(path, VEC_PATH_LEN, "%s/%s", vectors_dir, files[i]);
}

/* A 2-segment mbuf holding frame, cut at cut; NULL if the pool is empty. */
static struct rte_mbuf *
split_mbuf(const uint8_t *frame, uint32_t len, uint32_t cut)
{
	struct rte_mempool *mp = roce_test_mbuf_pool();
	struct rte_mbuf *m = mp == NULL ? NULL : rte_pktmbuf_alloc(mp);
	struct rte_mbuf *seg = mp == NULL ? NULL : rte_pktmbuf_alloc(mp);
	char *a = m == NULL ? NULL : rte_pktmbuf_append(m, cut);
	char *b = seg == NULL ? NULL : rte_pktmbuf_append(seg, len - cut);

	if (a == NULL || b == NULL || rte_pktmbuf_chain(m, seg) != 0) {
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(seg);
		return NULL;
	}
	memcpy(a, frame, cut);
	memcpy(b, frame + cut, len - cut);
	return m;
}

/* The frame parsed from 2-segment mbufs cut at many offsets: same fields, good ICRC. */
static int
check_mbuf_splits(const uint8_t *frame, uint32_t len, const struct rte_roce_pkt *flat,
		  unsigned int *nb_parsed)
{
	struct rte_roce_pkt pkt;
	enum rte_roce_drop_reason r;
	struct rte_mbuf *m;
	uint32_t cut;
	int icrc;

	for (cut = 1; cut < len; cut += cut < VEC_CUT_ALL ? 1 : VEC_CUT_STRIDE) {
		m = split_mbuf(frame, len, cut);
		ROCE_TEST_ASSERT(m != NULL, "mbuf");
		r = rte_roce_pkt_parse_mbuf(m, VEC_MTU, &pkt);
		icrc = r == RTE_ROCE_DROP_NONE ?
			rte_roce_icrc_check_mbuf(m, pkt.l3_off, pkt.icrc_off - pkt.l3_off) : 0;
		rte_pktmbuf_free(m);
		ROCE_TEST_ASSERT_EQ(r, RTE_ROCE_DROP_NONE, "cut %u: %s", cut,
				    rte_roce_drop_reason_name(r));
		ROCE_TEST_ASSERT(memcmp(&pkt, flat, sizeof(pkt)) == 0,
				 "cut %u: fields differ from the flat parse", cut);
		ROCE_TEST_ASSERT_EQ(icrc, 0, "cut %u: ICRC", cut);
		(*nb_parsed)++;
	}
	return 0;
}

/* Parse, verify the ICRC, rebuild: frame n of the file. */
static int
check_frame(const uint8_t *frame, uint32_t len, unsigned int n, struct rte_roce_pkt *pkt,
	    unsigned int *nb_padded)
{
	static uint8_t rebuilt[VEC_FRAME_MAX];
	enum rte_roce_drop_reason r;
	uint32_t end;
	int blen;

	r = rte_roce_pkt_parse(frame, len, VEC_MTU, pkt);
	ROCE_TEST_ASSERT_EQ(r, RTE_ROCE_DROP_NONE, "frame %u: %s", n,
			    rte_roce_drop_reason_name(r));
	end = pkt->icrc_off + RTE_ROCE_ICRC_LEN;
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(frame + pkt->l3_off, pkt->icrc_off - pkt->l3_off),
			    0, "frame %u: ICRC", n);
	blen = rte_roce_pkt_build(pkt, frame + pkt->payload_off, rebuilt, sizeof(rebuilt));
	ROCE_TEST_ASSERT_EQ(blen, (int)end, "frame %u: rebuilt length", n);
	ROCE_TEST_ASSERT(memcmp(rebuilt, frame, end) == 0, "frame %u: rebuilt bytes differ", n);
	/* The builder writes no Ethernet padding: any tail must be just that. */
	if (len > end) {
		ROCE_TEST_ASSERT_EQ(len, VEC_ETH_MIN_LEN, "frame %u: %u bytes after the ICRC",
				    n, len - end);
		(*nb_padded)++;
	}
	return 0;
}

/*
 * Whether a flip of byte k (from the IP header) by pattern may go unnoticed.
 * Only where the ICRC masks a field (IBA A17.3.3: fields routers may rewrite
 * are variant and left out) AND the parser has nothing to check:
 * - BTH byte 4 (FECN, BECN, resv6): congestion marks, changed in flight;
 * - IPv6 traffic class (the low nibble of byte 0, the high one of byte 1),
 *   flow label (rest of bytes 1-3) and hop limit (byte 7): IPv6 has no
 *   header checksum. A flip of the version nibble is caught (IP_VERSION).
 * Not here, because the parser catches them although the ICRC does not:
 * - IPv4 TOS, TTL and header checksum: the header checksum is verified;
 * - the UDP checksum: rxe sends 0, a flip makes it non-zero, and a non-zero
 *   checksum is verified (the flipped one is right with odds of 2^-16, and
 *   the captures are fixed: such a coincidence would show here, every run).
 */
static bool
flip_may_pass(const struct rte_roce_pkt *pkt, uint32_t k, uint8_t pattern)
{
	if (k == pkt->bth_off - pkt->l3_off + BTH_BYTE_FECN_BECN)
		return true;
	if (pkt->ip_version != 6)
		return false;
	if (k == IPV6_BYTE_VERSION_TC)
		return (pattern & ~TC_HIGH_NIBBLE_MASK) == 0;
	return (k >= IPV6_BYTE_TC_FLOW && k <= IPV6_BYTE_FLOW_LAST) || k == IPV6_BYTE_HOP_LIMIT;
}

struct flip_counts {
	unsigned int packets;
	unsigned int flips;
	unsigned int by_parser;
	unsigned int by_icrc;
	unsigned int passed;	/* all where flip_may_pass() */
};

/* Flip byte k (from the IP header) of frame n by pattern, check it is caught, restore. */
static int
flip_one(uint8_t *frame, uint32_t len, unsigned int n, const struct rte_roce_pkt *orig,
	 uint32_t k, uint8_t pattern, struct flip_counts *c)
{
	bool may_pass = flip_may_pass(orig, k, pattern);
	enum rte_roce_drop_reason r;
	struct rte_roce_pkt pkt;
	int icrc = 0;

	frame[orig->l3_off + k] ^= pattern;
	r = rte_roce_pkt_parse(frame, len, VEC_MTU, &pkt);
	if (r == RTE_ROCE_DROP_NONE)
		icrc = rte_roce_icrc_check(frame + pkt.l3_off, pkt.icrc_off - pkt.l3_off);
	frame[orig->l3_off + k] ^= pattern;
	c->flips++;
	c->by_parser += r != RTE_ROCE_DROP_NONE;
	c->by_icrc += r == RTE_ROCE_DROP_NONE && icrc != 0;
	c->passed += r == RTE_ROCE_DROP_NONE && icrc == 0;
	ROCE_TEST_ASSERT(r != RTE_ROCE_DROP_NONE || icrc != 0 || may_pass,
			 "frame %u (%s): byte %u of the IP packet ^ 0x%02x undetected",
			 n, orig->info->name, k, pattern);
	/* Masked fields, once the parser lets them through, must not fail the ICRC. */
	ROCE_TEST_ASSERT(r != RTE_ROCE_DROP_NONE || icrc == 0 || !may_pass,
			 "frame %u (%s): masked byte %u ^ 0x%02x fails the ICRC",
			 n, orig->info->name, k, pattern);
	return 0;
}

/* Flip every byte of the RoCE part of a frame, one at a time. */
static int
flip_frame(const uint8_t *frame, uint32_t len, unsigned int n, struct flip_counts *c)
{
	static uint8_t copy[VEC_FRAME_MAX];
	struct rte_roce_pkt orig;
	enum rte_roce_drop_reason r;
	unsigned int f;
	uint32_t k;

	memcpy(copy, frame, len);
	r = rte_roce_pkt_parse(frame, len, VEC_MTU, &orig);
	ROCE_TEST_ASSERT_EQ(r, RTE_ROCE_DROP_NONE, "frame %u", n);
	for (k = 0; k < orig.icrc_off + RTE_ROCE_ICRC_LEN - orig.l3_off; k++)
		for (f = 0; f < RTE_DIM(flips); f++)
			if (flip_one(copy, len, n, &orig, k, flips[f], c) < 0)
				return -1;
	c->packets++;
	return 0;
}

/* Open file i with libpcap; NULL after printing why. */
static pcap_t *
open_file(unsigned int i)
{
	char path[VEC_PATH_LEN];

	file_path(path, i);
	return roce_test_pcap_open(path);
}

static int
test_parse_rebuild(void)
{
	unsigned int n = 0, nb_roce = 0, nb_v6 = 0, nb_padded = 0, nb_split = 0;
	bool split_done[VEC_OPCODES] = { false };
	pcap_t *p = open_file(cur_file);
	uint32_t caplen, origlen;
	struct rte_roce_pkt pkt;
	const uint8_t *frame;
	int rc = 0, more;

	ROCE_TEST_ASSERT(p != NULL, "open");
	while (rc == 0 && (more = roce_test_pcap_next(p, &frame, &caplen, &origlen)) == 1) {
		n++;
		if (!is_rocev2(frame, caplen))
			continue;
		nb_roce++;
		if (caplen != origlen) {
			printf("# frame %u: captured %u of %u bytes\n", n, caplen, origlen);
			rc = -1;
			break;
		}
		rc = check_frame(frame, caplen, n, &pkt, &nb_padded);
		nb_v6 += rc == 0 && pkt.ip_version == 6;
		/* The first frame of each opcode, also as mbufs. */
		if (rc == 0 && !split_done[pkt.opcode]) {
			split_done[pkt.opcode] = true;
			rc = check_mbuf_splits(frame, caplen, &pkt, &nb_split);
		}
	}
	pcap_close(p);
	printf("# %s: %u frames, %u RoCEv2 (%u IPv6, %u with Ethernet padding), "
	       "%u 2-segment mbuf parses\n", files[cur_file], n, nb_roce, nb_v6, nb_padded,
	       nb_split);
	ROCE_TEST_ASSERT_EQ(rc, 0, "frame %u", n);
	ROCE_TEST_ASSERT_EQ(more, 0, "end of file");
	ROCE_TEST_ASSERT(nb_roce > 0, "no RoCEv2 frame");
	return 0;
}

static int
test_flip_bytes(void)
{
	bool done[VEC_OPCODES] = { false };
	unsigned int file = cur_file++;
	pcap_t *p = open_file(file);
	struct flip_counts c = { 0 };
	uint32_t caplen, origlen;
	struct rte_roce_pkt pkt;
	const uint8_t *frame;
	unsigned int n = 0;
	int rc = 0;

	ROCE_TEST_ASSERT(p != NULL, "open");
	while (rc == 0 && roce_test_pcap_next(p, &frame, &caplen, &origlen) == 1) {
		n++;
		if (!is_rocev2(frame, caplen) ||
		    rte_roce_pkt_parse(frame, caplen, VEC_MTU, &pkt) != RTE_ROCE_DROP_NONE ||
		    done[pkt.opcode])
			continue;
		done[pkt.opcode] = true;
		rc = flip_frame(frame, caplen, n, &c);
	}
	pcap_close(p);
	printf("# %s: %u packets, %u flips: %u caught by the parser, %u by the ICRC, "
	       "%u passed (masked and unchecked fields only)\n", files[file],
	       c.packets, c.flips, c.by_parser, c.by_icrc, c.passed);
	ROCE_TEST_ASSERT_EQ(rc, 0, "frame %u", n);
	ROCE_TEST_ASSERT(c.packets > 0, "no packet flipped");
	return 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.pcap of the directory, sorted; -1 after printing why. */
static int
list_files(void)
{
	static const char suffix[] = ".pcap";
	const size_t slen = sizeof(suffix) - 1;
	struct dirent *e;
	DIR *d;
	size_t len;

	d = opendir(vectors_dir);
	if (d == NULL) {
		printf("Bail out! %s: %s\n", vectors_dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) != NULL && nb_files < VEC_MAX_FILES) {
		len = strlen(e->d_name);
		if (len > slen && strcmp(e->d_name + len - slen, suffix) == 0)
			files[nb_files++] = strdup(e->d_name);
	}
	closedir(d);
	if (nb_files == 0) {
		printf("Bail out! no *.pcap in %s\n", vectors_dir);
		return -1;
	}
	qsort(files, nb_files, sizeof(files[0]), cmp_names);
	return 0;
}

int
main(int argc, char **argv)
{
	struct roce_test_case *cases;
	unsigned int i;
	char *name;
	int rc;

	if (argc != 2) {
		printf("Bail out! usage: %s VECTORS_DIR\n", argv[0]);
		return 1;
	}
	vectors_dir = argv[1];
	if (list_files() < 0 || roce_test_eal_init(argv[0], NULL) < 0)
		return 1;
	cases = calloc(2 * nb_files, sizeof(*cases));
	if (cases == NULL)
		return 1;
	for (i = 0; i < 2 * nb_files; i++) {
		name = malloc(VEC_NAME_LEN);
		if (name == NULL || files[i / 2] == NULL)
			return 1;
		/* "rc_pingpong.pcap" -> "vectors_rc_pingpong_parse_rebuild" */
		snprintf(name, VEC_NAME_LEN, "vectors_%.*s_%s",
			 (int)(strlen(files[i / 2]) - strlen(".pcap")), files[i / 2],
			 i % 2 == 0 ? "parse_rebuild" : "flip_bytes");
		cases[i].name = name;
		cases[i].fn = i % 2 == 0 ? test_parse_rebuild : test_flip_bytes;
	}
	rc = roce_test_run(cases, 2 * nb_files);
	for (i = 0; i < 2 * nb_files; i++)
		free((char *)(uintptr_t)cases[i].name);
	free(cases);
	for (i = 0; i < nb_files; i++)
		free(files[i]);
	return rc;
}
