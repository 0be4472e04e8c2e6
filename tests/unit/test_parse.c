/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The strict parser: the known-good vectors of doc/wire-format.md §4.3, one
 * negative test per drop reason (asserting the exact reason), truncation at
 * every length, random corruption, and frames split across mbuf segments.
 * Frames under test are copied to heap buffers of their exact length, so
 * the sanitizers catch any read past the end.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include <rte_roce_icrc.h>
#include <rte_roce_pkt.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "wire_test_util.h"

#define ETH_HDR_UNICAST 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, \
			0x08, 0x00

/* ConnectX-4 Lx CNP (doc/wire-format.md §4.3, from scapy roce.uts). */
static const uint8_t cnp_vector[] = {
	0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2, 0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32, 0x08, 0x00,
	0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61,
	0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00, 0x12, 0x01,
	0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,
	0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x82, 0xfd, 0x00, 0x2a,
};

/* UC SEND_ONLY, M = 1, PadCnt = 2 (doc/wire-format.md §4.3), behind an Ethernet header. */
static const uint8_t uc_vector[] = {
	ETH_HDR_UNICAST,
	0x45, 0x01, 0x00, 0x40, 0x04, 0x78, 0x40, 0x00, 0x40, 0x11, 0xb4, 0xd5,
	0xc0, 0xa8, 0x00, 0x07, 0xc0, 0xa8, 0x00, 0x07,
	0xc0, 0x00, 0x12, 0xb7, 0x00, 0x2c, 0xac, 0xa2,
	0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3, 0x00, 0xcf, 0x17, 0x10,
	0x46, 0x30, 0x81, 0x8b, 0xe2, 0x89, 0x35, 0xd9, 0x0e, 0x9a, 0x95, 0x50,
	0x54, 0x01, 0xbe, 0x88, 0x5e, 0x50, 0x00, 0x00,
	0x78, 0xf3, 0x53, 0xf3,
};

static uint8_t buf[WIRE_TEST_FRAME_MAX];

/* Parse len bytes of frame from a heap copy of exactly that size. */
static enum rte_roce_drop_reason
parse_exact(const uint8_t *frame, uint32_t len, uint32_t mtu, struct rte_roce_pkt *pkt)
{
	uint8_t *copy = malloc(len == 0 ? 1 : len);
	enum rte_roce_drop_reason r;

	if (copy == NULL)
		return RTE_ROCE_DROP_REASON_MAX;
	memcpy(copy, frame, len);
	r = rte_roce_pkt_parse(copy, len, mtu, pkt);
	free(copy);
	return r;
}

/* Parse a vector, check its ICRC and rebuild it byte for byte. */
static int
vector_round_trip(const uint8_t *v, uint32_t len, struct rte_roce_pkt *pkt)
{
	int n;

	ROCE_TEST_ASSERT_EQ(parse_exact(v, len, WIRE_TEST_MTU, pkt), RTE_ROCE_DROP_NONE, "parse");
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(v + pkt->l3_off, pkt->icrc_off - pkt->l3_off), 0,
			    "ICRC");
	n = rte_roce_pkt_build(pkt, v + pkt->payload_off, buf, sizeof(buf));
	ROCE_TEST_ASSERT_EQ(n, (int)len, "rebuild length");
	ROCE_TEST_ASSERT(memcmp(buf, v, len) == 0, "rebuild differs");
	return 0;
}

static int
test_vector_cnp(void)
{
	struct rte_roce_pkt pkt;

	if (vector_round_trip(cnp_vector, sizeof(cnp_vector), &pkt) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(pkt.opcode, RTE_ROCE_OP_CNP, "opcode");
	ROCE_TEST_ASSERT(pkt.becn && !pkt.fecn, "BECN");
	ROCE_TEST_ASSERT_EQ(pkt.dqpn, 0x118, "QP to throttle");
	ROCE_TEST_ASSERT_EQ(pkt.sport, 0, "ConnectX sport 0");
	ROCE_TEST_ASSERT_EQ(pkt.tos, 0xc2, "TOS");
	ROCE_TEST_ASSERT_EQ(pkt.payload_len, 0, "no payload");
	ROCE_TEST_ASSERT_EQ(pkt.udp_csum_mode, RTE_ROCE_UDP_CSUM_ZERO, "zero checksum");
	return 0;
}

static int
test_vector_uc_send_only(void)
{
	struct rte_roce_pkt pkt;

	if (vector_round_trip(uc_vector, sizeof(uc_vector), &pkt) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(pkt.opcode, RTE_ROCE_OP_UC_SEND_ONLY, "opcode");
	ROCE_TEST_ASSERT(pkt.mig, "M bit kept, and ignored");
	ROCE_TEST_ASSERT_EQ(pkt.pad, 2, "PadCnt");
	ROCE_TEST_ASSERT_EQ(pkt.payload_len, 18, "payload");
	ROCE_TEST_ASSERT_EQ(pkt.dqpn, 0xd3, "DestQP");
	ROCE_TEST_ASSERT_EQ(pkt.psn, 0xcf1710, "PSN");
	ROCE_TEST_ASSERT_EQ(pkt.udp_csum, 0xaca2, "non-zero UDP checksum verified and kept");
	return 0;
}

/* A good frame in buf; returns its length and its parse in *pkt, or -1. */
static int
good_frame(uint8_t opcode, bool ipv6, uint32_t payload_len, struct rte_roce_pkt *pkt)
{
	struct rte_roce_pkt in;
	int len;

	wire_test_pkt(&in, opcode, ipv6, false, payload_len);
	len = wire_test_build(&in, buf, sizeof(buf));
	if (len < 0 || rte_roce_pkt_parse(buf, len, WIRE_TEST_MTU, pkt) != RTE_ROCE_DROP_NONE) {
		printf("#   cannot make a good %s frame\n", rte_roce_opcode_name(opcode));
		return -1;
	}
	return len;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static uint16_t
get16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

#define EXPECT(len, reason, what) \
	ROCE_TEST_ASSERT_EQ(parse_exact(buf, len, WIRE_TEST_MTU, &got), reason, "%s", what)

/* Shorten the IPv4 packet (IP and UDP lengths) by n bytes; the rest is Ethernet padding. */
static void
shrink_ipv4(const struct rte_roce_pkt *p, uint32_t n)
{
	put16(buf + p->l3_off + 2, get16(buf + p->l3_off + 2) - n);
	put16(buf + p->l4_off + 4, get16(buf + p->l4_off + 4) - n);
	wire_test_fix_ipv4_csum(buf, p->l3_off);
}

static int
test_drop_l2(void)
{
	struct rte_roce_pkt p, got;
	int len = good_frame(RTE_ROCE_OP_RC_SEND_ONLY, false, 4, &p);

	ROCE_TEST_ASSERT(len > 0, "frame");
	EXPECT(RTE_ROCE_ETH_LEN - 1, RTE_ROCE_DROP_TRUNC_L2, "13 bytes");
	buf[6] |= 0x01;
	EXPECT(len, RTE_ROCE_DROP_SRC_MAC, "multicast source");
	memset(buf + 6, 0xff, RTE_ETHER_ADDR_LEN);
	EXPECT(len, RTE_ROCE_DROP_SRC_MAC, "broadcast source");
	buf[6] = 0x02;
	put16(buf + 12, RTE_ETHER_TYPE_ARP);
	EXPECT(len, RTE_ROCE_DROP_ETHERTYPE, "ARP");
	put16(buf + 12, RTE_ETHER_TYPE_QINQ);
	EXPECT(len, RTE_ROCE_DROP_ETHERTYPE, "802.1ad");
	put16(buf + 12, RTE_ETHER_TYPE_VLAN);
	EXPECT(RTE_ROCE_ETH_LEN + 3, RTE_ROCE_DROP_TRUNC_L2, "cut VLAN tag");
	put16(buf + 16, RTE_ETHER_TYPE_VLAN);
	EXPECT(len, RTE_ROCE_DROP_ETHERTYPE, "two VLAN tags");
	return 0;
}

static int
test_drop_ipv4(void)
{
	struct rte_roce_pkt p, got;
	int len = good_frame(RTE_ROCE_OP_RC_SEND_ONLY, false, 4, &p);
	uint8_t *ip = buf + p.l3_off;

	ROCE_TEST_ASSERT(len > 0, "frame");
	EXPECT(p.l3_off + RTE_ROCE_IPV4_LEN - 1, RTE_ROCE_DROP_TRUNC_L3, "cut IPv4 header");
	ip[0] = 0x65;
	EXPECT(len, RTE_ROCE_DROP_IP_VERSION, "version 6 in an IPv4 EtherType");
	ip[0] = 0x44;
	EXPECT(len, RTE_ROCE_DROP_IPV4_IHL, "IHL 4");
	ip[0] = 0x46;
	EXPECT(len, RTE_ROCE_DROP_IPV4_OPTIONS, "IHL 6");
	ip[0] = 0x45;
	ip[11] ^= 1;
	EXPECT(len, RTE_ROCE_DROP_IPV4_CSUM, "checksum");
	ip[11] ^= 1;
	EXPECT(len, RTE_ROCE_DROP_NONE, "restored");
	put16(ip + 2, get16(ip + 2) + 1);
	wire_test_fix_ipv4_csum(buf, p.l3_off);
	EXPECT(len, RTE_ROCE_DROP_IP_LEN, "total length beyond the frame");
	put16(ip + 2, RTE_ROCE_IPV4_LEN - 1);
	wire_test_fix_ipv4_csum(buf, p.l3_off);
	EXPECT(len, RTE_ROCE_DROP_IP_LEN, "total length below the header");
	put16(ip + 2, len - p.l3_off);
	put16(ip + 6, RTE_IPV4_HDR_MF_FLAG);
	wire_test_fix_ipv4_csum(buf, p.l3_off);
	EXPECT(len, RTE_ROCE_DROP_IP_FRAG, "MF");
	put16(ip + 6, RTE_IPV4_HDR_DF_FLAG | 1);
	wire_test_fix_ipv4_csum(buf, p.l3_off);
	EXPECT(len, RTE_ROCE_DROP_IP_FRAG, "offset 1");
	put16(ip + 6, RTE_IPV4_HDR_DF_FLAG);
	ip[9] = IPPROTO_TCP;
	wire_test_fix_ipv4_csum(buf, p.l3_off);
	EXPECT(len, RTE_ROCE_DROP_NOT_UDP, "TCP");
	ip[9] = IPPROTO_UDP;
	put16(ip + 2, RTE_ROCE_IPV4_LEN + RTE_ROCE_UDP_LEN - 1);
	wire_test_fix_ipv4_csum(buf, p.l3_off);
	EXPECT(len, RTE_ROCE_DROP_TRUNC_L4, "IP payload shorter than UDP");
	return 0;
}

static int
test_drop_ipv6(void)
{
	struct rte_roce_pkt p, got;
	int len = good_frame(RTE_ROCE_OP_RC_SEND_ONLY, true, 4, &p);
	uint8_t *ip = buf + p.l3_off;

	ROCE_TEST_ASSERT(len > 0, "frame");
	EXPECT(p.l3_off + RTE_ROCE_IPV6_LEN - 1, RTE_ROCE_DROP_TRUNC_L3, "cut IPv6 header");
	ip[0] = (ip[0] & 0x0f) | 0x40;
	EXPECT(len, RTE_ROCE_DROP_IP_VERSION, "version 4 in an IPv6 EtherType");
	ip[0] = (ip[0] & 0x0f) | 0x60;
	put16(ip + 4, get16(ip + 4) + 1);
	EXPECT(len, RTE_ROCE_DROP_IP_LEN, "payload length beyond the frame");
	put16(ip + 4, get16(ip + 4) - 1);
	ip[6] = IPPROTO_HOPOPTS;
	EXPECT(len, RTE_ROCE_DROP_IPV6_EXT, "hop-by-hop options");
	ip[6] = IPPROTO_FRAGMENT;
	EXPECT(len, RTE_ROCE_DROP_IPV6_EXT, "fragment header");
	ip[6] = IPPROTO_ICMPV6;
	EXPECT(len, RTE_ROCE_DROP_NOT_UDP, "ICMPv6");
	ip[6] = IPPROTO_UDP;
	put16(ip + 4, RTE_ROCE_UDP_LEN - 1);
	EXPECT(len, RTE_ROCE_DROP_TRUNC_L4, "payload shorter than UDP");
	return 0;
}

static int
test_drop_udp(void)
{
	struct rte_roce_pkt p, got;
	struct rte_roce_pkt in;
	int len = good_frame(RTE_ROCE_OP_RC_SEND_ONLY, false, 4, &p);
	uint8_t *udp = buf + p.l4_off;

	ROCE_TEST_ASSERT(len > 0, "frame");
	put16(udp + 2, RTE_ROCE_UDP_PORT - 1);
	EXPECT(len, RTE_ROCE_DROP_UDP_PORT, "port 4790");
	put16(udp + 2, RTE_ROCE_UDP_PORT);
	put16(udp + 4, get16(udp + 4) - 1);
	EXPECT(len, RTE_ROCE_DROP_UDP_LEN, "UDP length one short");
	put16(udp + 4, get16(udp + 4) + 1);
	put16(udp + 6, 0x1234);
	EXPECT(len, RTE_ROCE_DROP_UDP_CSUM, "wrong non-zero checksum");

	/* A right checksum passes; one flipped payload bit then fails it, over IPv6 too. */
	wire_test_pkt(&in, RTE_ROCE_OP_RC_SEND_ONLY, true, true, 101);
	in.udp_csum_mode = RTE_ROCE_UDP_CSUM_CALC;
	len = wire_test_build(&in, buf, sizeof(buf));
	EXPECT(len, RTE_ROCE_DROP_NONE, "right checksum");
	buf[got.payload_off + 50] ^= 0x10;
	EXPECT(len, RTE_ROCE_DROP_UDP_CSUM, "IPv6 payload bit flipped");
	return 0;
}

static int
test_drop_transport(void)
{
	struct rte_roce_pkt p, got;
	int len = good_frame(RTE_ROCE_OP_RC_SEND_ONLY, false, 20, &p);
	uint8_t *bth = buf + p.bth_off;
	unsigned int op;

	ROCE_TEST_ASSERT(len > 0, "frame");
	bth[1] |= 0x01;
	EXPECT(len, RTE_ROCE_DROP_TVER, "TVer 1");
	bth[1] &= 0xf0;
	bth[0] = 0x15;
	EXPECT(len, RTE_ROCE_DROP_OPCODE, "reserved 0x15");
	bth[0] = 0x40;
	EXPECT(len, RTE_ROCE_DROP_OPCODE, "RD");
	bth[0] = 0xa4;
	EXPECT(len, RTE_ROCE_DROP_OPCODE, "XRC");
	for (op = 0; op <= UINT8_MAX; op++) {
		bth[0] = op;
		if (rte_roce_opcode_info(op) == NULL)
			EXPECT(len, RTE_ROCE_DROP_OPCODE, "opcode without an entry");
	}
	/* 20 bytes after the BTH: too short for AtomicETH (28) + ICRC. */
	bth[0] = RTE_ROCE_OP_RC_COMPARE_SWAP;
	EXPECT(len, RTE_ROCE_DROP_TRUNC_EXT, "AtomicETH cut");
	/* READ request: RETH (16) leaves 4 bytes of payload. */
	bth[0] = RTE_ROCE_OP_RC_RDMA_READ_REQUEST;
	EXPECT(len, RTE_ROCE_DROP_PAYLOAD, "payload on a READ request");
	/* RDMA_WRITE_ONLY layout, 4 bytes of payload, as ATOMIC_WRITE. */
	bth[0] = RTE_ROCE_OP_RC_ATOMIC_WRITE;
	EXPECT(len, RTE_ROCE_DROP_ATOMIC_WRITE_LEN, "ATOMIC_WRITE of 4 bytes");
	bth[0] = RTE_ROCE_OP_RC_SEND_ONLY;
	EXPECT(len, RTE_ROCE_DROP_NONE, "restored");
	ROCE_TEST_ASSERT_EQ(parse_exact(buf, len, 19, &got), RTE_ROCE_DROP_MTU, "MTU 19");
	ROCE_TEST_ASSERT_EQ(parse_exact(buf, len, 20, &got), RTE_ROCE_DROP_NONE, "MTU 20");
	shrink_ipv4(&p, 1);
	EXPECT(len, RTE_ROCE_DROP_PAD_ALIGN, "19 bytes after the headers");
	shrink_ipv4(&p, len - p.bth_off - RTE_ROCE_BTH_LEN - RTE_ROCE_ICRC_LEN);
	EXPECT(len, RTE_ROCE_DROP_TRUNC_BTH, "BTH + ICRC do not fit");

	len = good_frame(RTE_ROCE_OP_RC_ACKNOWLEDGE, false, 0, &p);
	ROCE_TEST_ASSERT(len > 0, "ACK");
	buf[p.bth_off + 1] |= 1 << RTE_ROCE_BTH_PAD_SHIFT;
	EXPECT(len, RTE_ROCE_DROP_PAD, "pad 1 on an empty ACK");
	return 0;
}

static int
test_accept_rules(void)
{
	struct rte_roce_pkt p, got;
	int len = good_frame(RTE_ROCE_OP_RC_ACKNOWLEDGE, false, 0, &p);

	ROCE_TEST_ASSERT_EQ(len, 62, "smallest frame");
	/* Minimum-size Ethernet frames pad small packets: the padding is not RoCE. */
	memset(buf + len, 0xee, 4);
	EXPECT(len + 4, RTE_ROCE_DROP_NONE, "Ethernet padding");
	ROCE_TEST_ASSERT_EQ(got.icrc_off, (uint32_t)len - RTE_ROCE_ICRC_LEN, "ICRC before padding");
	/* Checked per QP later, not here: P_Key; ignored: M. */
	put16(buf + p.bth_off + 2, 0x1234);
	buf[p.bth_off + 1] |= RTE_ROCE_BTH_MIG;
	EXPECT(len, RTE_ROCE_DROP_NONE, "any P_Key, M set");
	/* A zero-length READ_RESPONSE_ONLY: rxe's reply to FLUSH and ATOMIC_WRITE. */
	len = good_frame(RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, true, 0, &p);
	ROCE_TEST_ASSERT(len > 0, "empty READ response");
	return 0;
}

/* The ICRC is the caller's check: the parser accepts, rte_roce_icrc_check() refuses. */
static int
test_icrc_left_to_caller(void)
{
	struct rte_roce_pkt p, got;
	int len = good_frame(RTE_ROCE_OP_UD_SEND_ONLY, true, 64, &p);

	ROCE_TEST_ASSERT(len > 0, "frame");
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(buf + p.l3_off, p.icrc_off - p.l3_off), 0, "good");
	buf[p.payload_off + 7] ^= 0x80;
	EXPECT(len, RTE_ROCE_DROP_NONE, "parser ignores the ICRC");
	ROCE_TEST_ASSERT(rte_roce_icrc_check(buf + got.l3_off, got.icrc_off - got.l3_off) != 0,
			 "caller's check fails: count as %s",
			 rte_roce_drop_reason_name(RTE_ROCE_DROP_ICRC));
	return 0;
}

static int
test_drop_reason_names(void)
{
	unsigned int i, j;

	for (i = 0; i < RTE_ROCE_DROP_REASON_MAX; i++) {
		const char *n = rte_roce_drop_reason_name(i);

		ROCE_TEST_ASSERT(n != NULL && strcmp(n, "unknown") != 0, "reason %u", i);
		ROCE_TEST_ASSERT(strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(n),
				 "%s is not snake_case", n);
		for (j = 0; j < i; j++)
			ROCE_TEST_ASSERT(strcmp(n, rte_roce_drop_reason_name(j)) != 0, "%s twice", n);
	}
	ROCE_TEST_ASSERT(strcmp(rte_roce_drop_reason_name(RTE_ROCE_DROP_ICRC), "bad_icrc") == 0,
			 "ICRC");
	ROCE_TEST_ASSERT(strcmp(rte_roce_drop_reason_name(RTE_ROCE_DROP_REASON_MAX), "unknown") == 0,
			 "out of range");
	return 0;
}

/* Every strict prefix of a good frame is rejected; the whole frame is not. */
static int
truncate_all(const uint8_t *frame, uint32_t len)
{
	struct rte_roce_pkt got;
	uint32_t l;

	for (l = 0; l < len; l++)
		ROCE_TEST_ASSERT(parse_exact(frame, l, WIRE_TEST_MTU, &got) != RTE_ROCE_DROP_NONE,
				 "prefix of %u/%u bytes accepted", l, len);
	ROCE_TEST_ASSERT_EQ(parse_exact(frame, len, WIRE_TEST_MTU, &got), RTE_ROCE_DROP_NONE,
			    "whole frame");
	return 0;
}

static int
test_truncation(void)
{
	static const struct { uint8_t op; bool v6; bool vlan; uint32_t size; } frames[] = {
		{ RTE_ROCE_OP_RC_SEND_ONLY, false, true, 5 },
		{ RTE_ROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, true, false, 33 },
		{ RTE_ROCE_OP_RC_COMPARE_SWAP, true, true, 0 },
		{ RTE_ROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE, false, false, 0 },
		{ RTE_ROCE_OP_RC_ACKNOWLEDGE, false, false, 0 },
	};
	struct rte_roce_pkt in;
	unsigned int i;
	int len;

	for (i = 0; i < RTE_DIM(frames); i++) {
		wire_test_pkt(&in, frames[i].op, frames[i].v6, frames[i].vlan, frames[i].size);
		in.udp_csum_mode = RTE_ROCE_UDP_CSUM_CALC;
		len = wire_test_build(&in, buf, sizeof(buf));
		ROCE_TEST_ASSERT(len > 0, "build");
		if (truncate_all(buf, len) != 0)
			return -1;
	}
	if (truncate_all(cnp_vector, sizeof(cnp_vector)) != 0)
		return -1;
	return truncate_all(uc_vector, sizeof(uc_vector));
}

/* Random byte corruption: always a defined verdict, never a crash or an overread. */
static int
test_random_corruption(void)
{
	static const uint8_t ops[] = {
		RTE_ROCE_OP_RC_RDMA_WRITE_FIRST, RTE_ROCE_OP_RC_ATOMIC_ACKNOWLEDGE,
		RTE_ROCE_OP_RC_FLUSH, RTE_ROCE_OP_UD_SEND_ONLY, RTE_ROCE_OP_CNP,
	};
	uint8_t frame[WIRE_TEST_FRAME_MAX];
	struct rte_roce_pkt in, got;
	uint32_t seed = 12345, iter, nb_ok = 0;
	int len;

	for (iter = 0; iter < 20000; iter++) {
		unsigned int flips, f;
		enum rte_roce_drop_reason r;

		wire_test_pkt(&in, ops[iter % RTE_DIM(ops)], iter & 1, iter & 2, 0);
		in.payload_len = (in.info->flags & RTE_ROCE_OPF_PAYLOAD) ? iter % 64 : 0;
		len = wire_test_build(&in, frame, sizeof(frame));
		ROCE_TEST_ASSERT(len > 0, "build");
		seed = seed * 1103515245 + 12345;
		flips = 1 + (seed >> 16) % 3;
		for (f = 0; f < flips; f++) {
			seed = seed * 1103515245 + 12345;
			frame[(seed >> 8) % len] ^= 1 << ((seed >> 4) % 8);
		}
		seed = seed * 1103515245 + 12345;
		r = parse_exact(frame, len - (seed >> 16) % 4, WIRE_TEST_MTU, &got);
		ROCE_TEST_ASSERT(r < RTE_ROCE_DROP_REASON_MAX, "verdict %d", r);
		nb_ok += r == RTE_ROCE_DROP_NONE;
	}
	printf("# %u of 20000 corrupted frames still well-formed (ICRC not checked)\n", nb_ok);
	return 0;
}

/* Chain of mbufs holding frame, cut at the given offsets. */
static struct rte_mbuf *
chain_frame(const uint8_t *frame, uint32_t len, const uint32_t *cuts, unsigned int nb_cuts)
{
	struct rte_mempool *mp = roce_test_mbuf_pool();
	struct rte_mbuf *head = NULL, *m;
	uint32_t start = 0, end;
	unsigned int i;

	for (i = 0; i <= nb_cuts; i++) {
		end = i < nb_cuts ? cuts[i] : len;
		m = mp == NULL ? NULL : rte_pktmbuf_alloc(mp);
		if (m == NULL || rte_pktmbuf_append(m, end - start) == NULL) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), frame + start, end - start);
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0)
			return NULL;
		start = end;
	}
	return head;
}

static int
parse_split(const uint8_t *frame, uint32_t len, const uint32_t *cuts, unsigned int nb_cuts)
{
	struct rte_roce_pkt flat, seg;
	enum rte_roce_drop_reason want, r;
	struct rte_mbuf *m = chain_frame(frame, len, cuts, nb_cuts);

	ROCE_TEST_ASSERT(m != NULL, "chain");
	ROCE_TEST_ASSERT_EQ(m->nb_segs, nb_cuts + 1, "segments");
	want = rte_roce_pkt_parse(frame, len, WIRE_TEST_MTU, &flat);
	r = rte_roce_pkt_parse_mbuf(m, WIRE_TEST_MTU, &seg);
	rte_pktmbuf_free(m);
	ROCE_TEST_ASSERT_EQ(r, want, "cut at %u", cuts[0]);
	if (want == RTE_ROCE_DROP_NONE)
		ROCE_TEST_ASSERT(wire_test_pkt_cmp(&flat, &seg, true) == 0, "cut at %u", cuts[0]);
	return 0;
}

static int
test_multi_segment(void)
{
	struct rte_roce_pkt in, p;
	uint32_t cuts[3];
	unsigned int v6, vlan, c;
	int len;

	for (v6 = 0; v6 < 2; v6++)
		for (vlan = 0; vlan < 2; vlan++) {
			wire_test_pkt(&in, RTE_ROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, v6, vlan, 1001);
			in.udp_csum_mode = RTE_ROCE_UDP_CSUM_CALC;
			len = wire_test_build(&in, buf, sizeof(buf));
			ROCE_TEST_ASSERT(len > 0 && rte_roce_pkt_parse(buf, len, WIRE_TEST_MTU, &p) ==
					 RTE_ROCE_DROP_NONE, "frame");
			/* Every single cut: inside every header, at odd payload offsets. */
			for (c = 1; c < (uint32_t)len; c++)
				if (parse_split(buf, len, &c, 1) != 0)
					return -1;
			cuts[0] = 13;
			cuts[1] = p.l3_off + 3;
			cuts[2] = p.bth_off + 5;
			if (parse_split(buf, len, cuts, 3) != 0)
				return -1;
			cuts[0] = p.l4_off + 7;
			cuts[1] = p.payload_off + 1;
			cuts[2] = p.icrc_off + 3;
			if (parse_split(buf, len, cuts, 3) != 0)
				return -1;
			cuts[0] = 1;
			cuts[1] = p.bth_off + 13;
			if (parse_split(buf, len, cuts, 2) != 0)
				return -1;
			/* The checksum over segments also rejects. */
			buf[p.payload_off + 500] ^= 0x01;
			cuts[0] = p.payload_off + 499;
			cuts[1] = p.payload_off + 501;
			if (parse_split(buf, len, cuts, 2) != 0)
				return -1;
			ROCE_TEST_ASSERT_EQ(rte_roce_pkt_parse(buf, len, WIRE_TEST_MTU, &p),
					    RTE_ROCE_DROP_UDP_CSUM, "flipped bit");
		}
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "vector_cnp_connectx4", test_vector_cnp },
	{ "vector_uc_send_only", test_vector_uc_send_only },
	{ "drop_l2", test_drop_l2 },
	{ "drop_ipv4", test_drop_ipv4 },
	{ "drop_ipv6", test_drop_ipv6 },
	{ "drop_udp", test_drop_udp },
	{ "drop_transport", test_drop_transport },
	{ "accept_padding_pkey_mig", test_accept_rules },
	{ "icrc_left_to_caller", test_icrc_left_to_caller },
	{ "drop_reason_names", test_drop_reason_names },
	{ "truncation_every_length", test_truncation },
	{ "random_corruption", test_random_corruption },
	{ "multi_segment_mbuf", test_multi_segment },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return roce_test_main_eal(argv[0], cases, RTE_DIM(cases));
}
