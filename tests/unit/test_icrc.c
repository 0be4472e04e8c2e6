/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ICRC unit tests: known answers, an independent bitwise reference on random
 * packets, every segmentation of an mbuf chain, and the masking rule itself
 * (every covered bit is protected, every variant bit is not).
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include <rte_roce_icrc.h>

#include "roce_test.h"
#include "roce_test_eal.h"

#define ETH_HDR_LEN 14
#define IPV4_HDR_LEN 20
#define IPV4_MAX_HDR_LEN 60
#define IPV6_HDR_LEN 40
#define UDP_HDR_LEN 8
#define BTH_LEN 12
#define MAX_PKT_LEN 4096
#define LONG_PKT_LEN 65536	/* IP packets are shorter */
#define RANDOM_PKTS 500
#define RANDOM_SEED 0x1CC5EEDull
#define CRC32_POLY_REFLECTED 0xEDB88320u
#define OPCODE_RC_FLUSH 0x1c
#define FLUSH_EXT_LEN (4 + 16)	/* FETH, RETH */
/* rxe_icrc.c's register after the LRH stand-in, before it is finalised. */
#define RXE_ICRC_SEED 0xdebb20e3u

/*
 * Known answers (doc/wire-format.md §4.3). Each is the packet from the IP header up
 * to and including the ICRC, as captured.
 */

/* ConnectX-4 Lx CNP (secdev/scapy test/contrib/roce.uts). */
static const uint8_t cnp_vector[] = {
	0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61,
	0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00, 0x12, 0x01,
	0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,
	0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x82, 0xfd, 0x00, 0x2a,
};
#define CNP_ICRC 0x2A00FD82u

/* UC SEND_ONLY, M=1, PadCnt=2 (scapy roce.uts). */
static const uint8_t uc_send_vector[] = {
	0x45, 0x01, 0x00, 0x40, 0x04, 0x78, 0x40, 0x00, 0x40, 0x11, 0xb4, 0xd5,
	0xc0, 0xa8, 0x00, 0x07, 0xc0, 0xa8, 0x00, 0x07,
	0xc0, 0x00, 0x12, 0xb7, 0x00, 0x2c, 0xac, 0xa2,
	0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3, 0x00, 0xcf, 0x17, 0x10,
	0x46, 0x30, 0x81, 0x8b, 0xe2, 0x89, 0x35, 0xd9, 0x0e, 0x9a, 0x95, 0x50,
	0x54, 0x01, 0xbe, 0x88, 0x5e, 0x50, 0x00, 0x00,
	0x78, 0xf3, 0x53, 0xf3,
};
#define UC_SEND_ICRC 0xF353F378u

/*
 * RC SEND_ONLY over IPv6 with non-zero traffic class (0x12) and flow label
 * (0xabcde), so that masking matters; ICRC computed
 * independently: the masking of doc/wire-format.md §4.1 written in Python,
 * and Python's zlib.crc32.
 */
static const uint8_t ipv6_vector[] = {
	0x61, 0x2a, 0xbc, 0xde, 0x00, 0x28, 0x11, 0x40,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
	0xc1, 0x32, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,
	0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x80, 0x00, 0x01, 0x23,
	0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37,
	0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f,
	0x19, 0xbc, 0x16, 0x33,
};
#define IPV6_ICRC 0x3316BC19u

struct icrc_vector {
	const char *name;
	const uint8_t *l3;
	uint32_t len;	/* including the ICRC */
	uint32_t icrc;
};

static const struct icrc_vector vectors[] = {
	{ "cnp", cnp_vector, sizeof(cnp_vector), CNP_ICRC },
	{ "uc_send_only", uc_send_vector, sizeof(uc_send_vector), UC_SEND_ICRC },
	{ "ipv6_rc_send_only", ipv6_vector, sizeof(ipv6_vector), IPV6_ICRC },
};

/* Independent reference: bitwise CRC-32 as zlib crc32(), chainable alike. */
static uint32_t
ref_crc32(uint32_t crc, const uint8_t *p, uint32_t len)
{
	unsigned int bit;

	crc = ~crc;
	while (len-- > 0) {
		crc ^= *p++;
		for (bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (CRC32_POLY_REFLECTED & -(crc & 1));
	}
	return ~crc;
}

static uint32_t
ref_ip_len(const uint8_t *l3)
{
	return l3[0] >> 4 == 4 ? (l3[0] & 0x0f) * 4u : IPV6_HDR_LEN;
}

/*
 * The variant bits of byte off of a packet, by offset as IBA A17.3.3 lists
 * them, written independently of the library's struct-based masking.
 */
static uint8_t
ref_variant_bits(const uint8_t *l3, uint32_t off)
{
	uint32_t ip_len = ref_ip_len(l3);

	if (off < ip_len) {
		if (l3[0] >> 4 == 4)	/* TOS, TTL, header checksum */
			return off == 1 || off == 8 || off == 10 || off == 11 ? 0xff : 0;
		if (off == 0)		/* traffic class, high nibble */
			return 0x0f;
		/* traffic class low nibble, flow label, hop limit */
		return off <= 3 || off == 7 ? 0xff : 0;
	}
	off -= ip_len;
	if (off == 6 || off == 7)	/* UDP checksum */
		return 0xff;
	return off == UDP_HDR_LEN + 4 ? 0xff : 0;	/* FECN, BECN, resv6 */
}

static uint32_t
ref_icrc(const uint8_t *l3, uint32_t len)
{
	static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static uint8_t copy[LONG_PKT_LEN];
	uint32_t i;

	for (i = 0; i < len; i++)
		copy[i] = l3[i] | ref_variant_bits(l3, i);
	return ref_crc32(ref_crc32(0, lrh, sizeof(lrh)), copy, len);
}

static uint32_t
stored_icrc(const uint8_t *l3, uint32_t len)
{
	uint32_t v;

	memcpy(&v, l3 + len, sizeof(v));
	return rte_le_to_cpu_32(v);
}

static void
store_icrc(uint8_t *l3, uint32_t len, uint32_t icrc)
{
	uint32_t v = rte_cpu_to_le_32(icrc);

	memcpy(l3 + len, &v, sizeof(v));
}

/*
 * A chain holding data, cut before each offset in cuts (ascending; equal
 * cuts make empty segments). NULL after printing why.
 */
static struct rte_mbuf *
make_chain(const uint8_t *data, uint32_t len, const uint32_t *cuts, unsigned int nb_cuts)
{
	struct rte_mempool *mp = roce_test_mbuf_pool();
	struct rte_mbuf *head = NULL, *seg;
	uint32_t start = 0, end;
	unsigned int i;
	char *dst;

	for (i = 0; i <= nb_cuts; i++) {
		end = i < nb_cuts ? cuts[i] : len;
		seg = mp == NULL ? NULL : rte_pktmbuf_alloc(mp);
		dst = seg == NULL ? NULL : rte_pktmbuf_append(seg, end - start);
		if (dst == NULL || (head != NULL && rte_pktmbuf_chain(head, seg) != 0)) {
			printf("# cannot build a %u-segment chain\n", nb_cuts + 1);
			rte_pktmbuf_free(seg);
			rte_pktmbuf_free(head);
			return NULL;
		}
		memcpy(dst, data + start, end - start);
		if (head == NULL)
			head = seg;
		start = end;
	}
	return head;
}

/* A random packet: IPv4 (IHL 5..15) or IPv6, random bytes, correct ICRC. */
static uint32_t
random_packet(uint8_t *l3)
{
	uint32_t ip_len, len, i;

	if (rte_rand() & 1) {
		ip_len = (uint32_t)rte_rand_max(11) + 5;
		l3[0] = (uint8_t)(0x40 | ip_len);
		ip_len *= 4;
	} else {
		ip_len = IPV6_HDR_LEN;
		l3[0] = (uint8_t)(0x60 | rte_rand_max(16));
	}
	len = ip_len + UDP_HDR_LEN + BTH_LEN +
		(uint32_t)rte_rand_max(MAX_PKT_LEN - IPV4_MAX_HDR_LEN - UDP_HDR_LEN -
				       BTH_LEN - RTE_ROCE_ICRC_LEN);
	for (i = 1; i < len; i++)
		l3[i] = (uint8_t)rte_rand();
	store_icrc(l3, len, ref_icrc(l3, len));
	return len;
}

static int
test_known_vectors(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(vectors); i++) {
		const struct icrc_vector *v = &vectors[i];
		uint32_t len = v->len - RTE_ROCE_ICRC_LEN;

		ROCE_TEST_ASSERT_EQ(rte_roce_icrc_calc(v->l3, len), v->icrc, "%s", v->name);
		ROCE_TEST_ASSERT_EQ(stored_icrc(v->l3, len), v->icrc,
				    "%s: stored least-significant byte first", v->name);
		ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(v->l3, len), 0, "%s", v->name);
		ROCE_TEST_ASSERT_EQ(ref_icrc(v->l3, len), v->icrc, "%s: reference", v->name);
	}
	return 0;
}

static int
test_random_vs_reference(void)
{
	uint8_t pkt[MAX_PKT_LEN];
	uint32_t len;
	unsigned int i;

	rte_srand(RANDOM_SEED);
	for (i = 0; i < RANDOM_PKTS; i++) {
		len = random_packet(pkt);
		ROCE_TEST_ASSERT_EQ(rte_roce_icrc_calc(pkt, len), stored_icrc(pkt, len),
				    "packet %u, version %u, len %u", i, pkt[0] >> 4, len);
		ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(pkt, len), 0, "packet %u", i);
	}
	return 0;
}

/*
 * Lengths around and far beyond the longest packet of the library's fast
 * path (8 KiB, longer than any RoCEv2 packet), IPv4 and IPv6.
 */
static int
test_long_packets(void)
{
	static const uint32_t lens[] = { 8184, 8188, 8192, 8196, 8200, 12345, 65531 };
	static const uint8_t versions[] = { 0x45, 0x60 };
	static uint8_t pkt[LONG_PKT_LEN];
	unsigned int i, v;
	uint32_t k;

	rte_srand(RANDOM_SEED);
	for (k = 0; k < sizeof(pkt); k++)
		pkt[k] = (uint8_t)rte_rand();
	for (v = 0; v < RTE_DIM(versions); v++) {
		pkt[0] = versions[v];
		for (i = 0; i < RTE_DIM(lens); i++) {
			store_icrc(pkt, lens[i], ref_icrc(pkt, lens[i]));
			ROCE_TEST_ASSERT_EQ(rte_roce_icrc_calc(pkt, lens[i]),
					    ref_icrc(pkt, lens[i]),
					    "version byte %#x, len %u", versions[v], lens[i]);
			ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(pkt, lens[i]), 0,
					    "version byte %#x, len %u", versions[v], lens[i]);
		}
	}
	return 0;
}

/* calc_mbuf and check_mbuf on a chain cut at cuts, behind an Ethernet header. */
static int
check_chain(const uint8_t *frame, uint32_t frame_len, const uint32_t *cuts,
	    unsigned int nb_cuts, uint32_t icrc)
{
	uint32_t len = frame_len - ETH_HDR_LEN - RTE_ROCE_ICRC_LEN;
	struct rte_mbuf *m = make_chain(frame, frame_len, cuts, nb_cuts);
	uint32_t got;
	int rc;

	ROCE_TEST_ASSERT(m != NULL, "chain");
	got = rte_roce_icrc_calc_mbuf(m, ETH_HDR_LEN, len);
	rc = rte_roce_icrc_check_mbuf(m, ETH_HDR_LEN, len);
	rte_pktmbuf_free(m);
	ROCE_TEST_ASSERT_EQ(got, icrc, "cuts at %u, %u", cuts[0], nb_cuts > 1 ? cuts[1] : 0);
	ROCE_TEST_ASSERT_EQ(rc, 0, "cuts at %u, %u", cuts[0], nb_cuts > 1 ? cuts[1] : 0);
	return 0;
}

/* Every 2- and 3-segment split of each known vector behind an Ethernet header. */
static int
test_mbuf_every_split(void)
{
	uint8_t frame[ETH_HDR_LEN + MAX_PKT_LEN] = { 0 };
	uint32_t cuts[2], frame_len;
	unsigned int i;

	for (i = 0; i < RTE_DIM(vectors); i++) {
		frame_len = ETH_HDR_LEN + vectors[i].len;
		memcpy(frame + ETH_HDR_LEN, vectors[i].l3, vectors[i].len);
		for (cuts[0] = 1; cuts[0] < frame_len; cuts[0]++) {
			if (check_chain(frame, frame_len, cuts, 1, vectors[i].icrc) < 0)
				return -1;
			for (cuts[1] = cuts[0]; cuts[1] < frame_len; cuts[1]++)
				if (check_chain(frame, frame_len, cuts, 2, vectors[i].icrc) < 0)
					return -1;
		}
	}
	return 0;
}

/* Random packets in 3 random segments; the headers may be split too. */
static int
test_mbuf_random_split(void)
{
	uint8_t frame[ETH_HDR_LEN + MAX_PKT_LEN] = { 0 };
	uint32_t cuts[2], len, frame_len;
	unsigned int i;

	rte_srand(RANDOM_SEED);
	for (i = 0; i < RANDOM_PKTS; i++) {
		len = random_packet(frame + ETH_HDR_LEN);
		frame_len = ETH_HDR_LEN + len + RTE_ROCE_ICRC_LEN;
		cuts[0] = 1 + (uint32_t)rte_rand_max(frame_len - 1);
		cuts[1] = cuts[0] + (uint32_t)rte_rand_max(frame_len - cuts[0]);
		if (check_chain(frame, frame_len, cuts, 2,
				stored_icrc(frame + ETH_HDR_LEN, len)) < 0)
			return -1;
	}
	return 0;
}

/*
 * Flip every bit from the IP header to the end of the ICRC: check() must
 * accept exactly the flips of variant bits (IBA A17.3.3) and reject all
 * others (a CRC-32 catches every single-bit error).
 */
static int
test_bit_flips(void)
{
	uint8_t pkt[MAX_PKT_LEN];
	uint32_t len, off;
	unsigned int i, bit;
	int rc, want;

	for (i = 0; i < RTE_DIM(vectors); i++) {
		len = vectors[i].len - RTE_ROCE_ICRC_LEN;
		memcpy(pkt, vectors[i].l3, vectors[i].len);
		for (off = 0; off < vectors[i].len; off++) {
			for (bit = 0; bit < 8; bit++) {
				want = ref_variant_bits(vectors[i].l3, off) & (1u << bit) ?
					0 : -EBADMSG;
				pkt[off] ^= 1u << bit;
				rc = rte_roce_icrc_check(pkt, len);
				pkt[off] ^= 1u << bit;
				ROCE_TEST_ASSERT_EQ(rc, want, "%s: byte %u bit %u",
						    vectors[i].name, off, bit);
			}
		}
	}
	return 0;
}

struct variant_field {
	const char *name;
	uint32_t off;	/* from the IP header */
	uint32_t len;
	uint8_t first_byte_bits;	/* bits of the first byte that are variant */
};

/* Rewrite every variant field with arbitrary values: the ICRC must still verify. */
static int
check_variant_fields(const struct icrc_vector *v, const struct variant_field *fields,
		     unsigned int nb_fields)
{
	static const uint8_t values[] = { 0x00, 0xff, 0x5a, 0xa5 };
	uint8_t pkt[MAX_PKT_LEN];
	uint32_t len = v->len - RTE_ROCE_ICRC_LEN, k;
	unsigned int f, val;
	uint8_t keep;

	for (f = 0; f < nb_fields; f++) {
		for (val = 0; val < RTE_DIM(values); val++) {
			memcpy(pkt, v->l3, v->len);
			for (k = 0; k < fields[f].len; k++) {
				keep = k == 0 ? (uint8_t)~fields[f].first_byte_bits : 0;
				pkt[fields[f].off + k] = (pkt[fields[f].off + k] & keep) |
					(values[val] & ~keep);
			}
			ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(pkt, len), 0,
					    "%s: %s = 0x%02x", v->name, fields[f].name,
					    values[val]);
		}
	}
	return 0;
}

static int
test_variant_fields_ipv4(void)
{
	static const struct variant_field fields[] = {
		{ "ipv4_tos", 1, 1, 0xff },
		{ "ipv4_ttl", 8, 1, 0xff },
		{ "ipv4_checksum", 10, 2, 0xff },
		{ "udp_checksum", IPV4_HDR_LEN + 6, 2, 0xff },
		{ "bth_fecn_becn_resv6", IPV4_HDR_LEN + UDP_HDR_LEN + 4, 1, 0xff },
	};

	if (check_variant_fields(&vectors[0], fields, RTE_DIM(fields)) < 0)
		return -1;
	return check_variant_fields(&vectors[1], fields, RTE_DIM(fields));
}

static int
test_variant_fields_ipv6(void)
{
	static const struct variant_field fields[] = {
		{ "ipv6_traffic_class", 0, 2, 0x0f },
		{ "ipv6_flow_label", 1, 3, 0x0f },
		{ "ipv6_hop_limit", 7, 1, 0xff },
		{ "udp_checksum", IPV6_HDR_LEN + 6, 2, 0xff },
		{ "bth_fecn_becn_resv6", IPV6_HDR_LEN + UDP_HDR_LEN + 4, 1, 0xff },
	};

	return check_variant_fields(&vectors[2], fields, RTE_DIM(fields));
}

/* Input the ICRC cannot interpret: calc returns 0, check rejects, nothing is overread. */
static int
test_malformed(void)
{
	uint8_t pkt[sizeof(uc_send_vector)];
	uint32_t len = sizeof(pkt) - RTE_ROCE_ICRC_LEN, short_len;
	uint32_t cut = ETH_HDR_LEN;
	struct rte_mbuf *m;
	int rc;

	memcpy(pkt, uc_send_vector, sizeof(pkt));
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(pkt, 0), -EBADMSG, "len 0");
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_calc(pkt, 0), 0, "len 0");
	for (short_len = 1; short_len < IPV4_HDR_LEN + UDP_HDR_LEN + BTH_LEN; short_len++) {
		ROCE_TEST_ASSERT_EQ(rte_roce_icrc_calc(pkt, short_len), 0, "len %u", short_len);
		ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(pkt, short_len), -EBADMSG,
				    "len %u", short_len);
	}
	/* Version 4 with IHL 15 needs 80 header bytes; the packet is shorter. */
	pkt[0] = 0x4f;
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(pkt, len), -EBADMSG, "IHL 15");
	pkt[0] = 0x44;
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(pkt, len), -EBADMSG, "IHL 4");
	pkt[0] = 0x55;
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(pkt, len), -EBADMSG, "version 5");
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_calc(pkt, len), 0, "version 5");

	/* mbuf: lengths beyond the packet. */
	m = make_chain(uc_send_vector, sizeof(uc_send_vector), &cut, 1);
	ROCE_TEST_ASSERT(m != NULL, "chain");
	rc = rte_roce_icrc_check_mbuf(m, 0, len) == 0 &&
		rte_roce_icrc_check_mbuf(m, 1, len) == -EBADMSG &&
		rte_roce_icrc_check_mbuf(m, 0, len + 1) == -EBADMSG &&
		rte_roce_icrc_calc_mbuf(m, 0, len + RTE_ROCE_ICRC_LEN + 1) == 0 &&
		rte_roce_icrc_calc_mbuf(m, UINT32_MAX, len) == 0 &&
		rte_roce_icrc_check_mbuf(m, 0, UINT32_MAX) == -EBADMSG &&
		rte_roce_icrc_check_mbuf(m, 0, 0) == -EBADMSG;
	/* A chain whose segments hold less than pkt_len claims. */
	m->pkt_len += 2 * RTE_ROCE_ICRC_LEN;
	rc = rc && rte_roce_icrc_check_mbuf(m, 0, len + 2 * RTE_ROCE_ICRC_LEN) == -EBADMSG &&
		rte_roce_icrc_calc_mbuf(m, 0, len + 2 * RTE_ROCE_ICRC_LEN) == 0;
	m->pkt_len -= 2 * RTE_ROCE_ICRC_LEN;
	rte_pktmbuf_free(m);
	ROCE_TEST_ASSERT(rc, "mbuf length checks");
	return 0;
}

/*
 * Linux rxe's ICRC of a FLUSH, step by step as rxe_icrc.c computes it with
 * rxe_opcode.c's IB_OPCODE_RC_FLUSH entry, which has no RXE_PAYLOAD offset:
 * from rxe's seed, the masked IP, UDP and BTH headers and the rest of the
 * opcode's headers (rxe_icrc_hdr()), then payload_size() bytes from
 * payload_addr(), i.e. the UDP payload from the BTH up to the ICRC, then
 * the complement.
 */
static uint32_t
ref_rxe_flush_icrc(const uint8_t *l3, uint32_t len)
{
	static uint8_t copy[MAX_PKT_LEN];
	uint32_t bth_off = ref_ip_len(l3) + UDP_HDR_LEN, i, crc;

	for (i = 0; i < len; i++)
		copy[i] = l3[i] | ref_variant_bits(l3, i);
	/* ref_crc32() complements in and out: a raw register r is ~r to it. */
	crc = ref_crc32(~RXE_ICRC_SEED, copy, len);
	return ref_crc32(crc, l3 + bth_off, len - bth_off);
}

/* A FLUSH from l3: IPv4 or IPv6 headers, BTH, FETH and RETH of random bytes. */
static uint32_t
random_flush(uint8_t *l3, bool ipv4)
{
	uint32_t ip_len = ipv4 ? IPV4_HDR_LEN : IPV6_HDR_LEN, len, i;

	len = ip_len + UDP_HDR_LEN + BTH_LEN + FLUSH_EXT_LEN;
	for (i = 1; i < len; i++)
		l3[i] = (uint8_t)rte_rand();
	l3[0] = ipv4 ? 0x45 : (uint8_t)(0x60 | rte_rand_max(16));
	l3[ip_len + UDP_HDR_LEN] = OPCODE_RC_FLUSH;
	return len;
}

/*
 * rte_roce_icrc_calc_rxe_flush(): rxe's algorithm step by step, and the
 * same as IBA's ICRC of the packet with its BTH, FETH and RETH written out
 * twice; never IBA's own, which rte_roce_icrc_check() wants.
 */
static int
test_rxe_flush_icrc(void)
{
	uint8_t pkt[MAX_PKT_LEN], twice[MAX_PKT_LEN];
	uint32_t len, th_off, icrc, i;

	rte_srand(RANDOM_SEED);
	for (i = 0; i < RANDOM_PKTS; i++) {
		len = random_flush(pkt, i & 1);
		icrc = rte_roce_icrc_calc_rxe_flush(pkt, len);
		ROCE_TEST_ASSERT_EQ(icrc, ref_rxe_flush_icrc(pkt, len), "packet %u", i);
		th_off = ref_ip_len(pkt) + UDP_HDR_LEN;
		memcpy(twice, pkt, len);
		memcpy(twice + len, pkt + th_off, len - th_off);
		ROCE_TEST_ASSERT_EQ(icrc, rte_roce_icrc_calc(twice, 2 * len - th_off),
				    "packet %u, headers twice", i);
		store_icrc(pkt, len, icrc);
		ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(pkt, len), -EBADMSG, "packet %u", i);
	}
	/* Malformed input: 0, as for rte_roce_icrc_calc(). */
	len = random_flush(pkt, true);
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_calc_rxe_flush(pkt, 0), 0, "len 0");
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_calc_rxe_flush(pkt, IPV4_HDR_LEN + UDP_HDR_LEN), 0,
			    "no BTH");
	pkt[0] = 0x55;
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_calc_rxe_flush(pkt, len), 0, "version 5");
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "icrc_known_vectors", test_known_vectors },
	{ "icrc_random_vs_bitwise_reference", test_random_vs_reference },
	{ "icrc_long_packets", test_long_packets },
	{ "icrc_mbuf_every_2_and_3_segment_split", test_mbuf_every_split },
	{ "icrc_mbuf_random_3_segment_split", test_mbuf_random_split },
	{ "icrc_every_covered_bit_flip_rejected", test_bit_flips },
	{ "icrc_variant_fields_ipv4_accepted", test_variant_fields_ipv4 },
	{ "icrc_variant_fields_ipv6_accepted", test_variant_fields_ipv6 },
	{ "icrc_malformed_rejected", test_malformed },
	{ "icrc_rxe_flush_as_rxe_computes_it", test_rxe_flush_icrc },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return roce_test_main_eal(argv[0], cases, RTE_DIM(cases));
}
