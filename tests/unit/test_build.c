/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The builder: build -> parse round trips for every opcode, IP version,
 * VLAN and pad count, byte-for-byte rebuilds, and every error path.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include <rte_roce_icrc.h>
#include <rte_roce_pkt.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "wire_test_util.h"

static uint8_t frame[WIRE_TEST_FRAME_MAX];
static uint8_t again[WIRE_TEST_FRAME_MAX];

/* Build, parse, compare, check ICRC and pad, rebuild byte for byte. */
static int
round_trip(const struct rte_roce_pkt *pkt)
{
	const char *name = rte_roce_opcode_name(pkt->opcode);
	struct rte_roce_pkt got;
	int len, len2;
	uint32_t i;

	len = wire_test_build(pkt, frame, sizeof(frame));
	ROCE_TEST_ASSERT(len > 0, "%s", name);
	ROCE_TEST_ASSERT_EQ(len, rte_roce_pkt_frame_len(pkt), "%s", name);
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_parse(frame, len, WIRE_TEST_MTU, &got),
			    RTE_ROCE_DROP_NONE, "%s v%u vlan %d len %u", name, pkt->ip_version,
			    pkt->vlan, pkt->payload_len);
	ROCE_TEST_ASSERT(wire_test_pkt_cmp(pkt, &got, false) == 0, "%s", name);
	ROCE_TEST_ASSERT_EQ(got.pad, -pkt->payload_len & 3, "%s", name);
	ROCE_TEST_ASSERT_EQ(got.icrc_off + RTE_ROCE_ICRC_LEN, (uint32_t)len, "%s", name);
	ROCE_TEST_ASSERT_EQ(got.payload_off + got.payload_len + got.pad, got.icrc_off, "%s", name);
	ROCE_TEST_ASSERT(memcmp(frame + got.payload_off, wire_test_payload, got.payload_len) == 0,
			 "%s payload", name);
	for (i = 0; i < got.pad; i++)
		ROCE_TEST_ASSERT_EQ(frame[got.payload_off + got.payload_len + i], 0, "%s pad", name);
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check(frame + got.l3_off, got.icrc_off - got.l3_off), 0,
			    "%s ICRC", name);
	len2 = rte_roce_pkt_build(&got, frame + got.payload_off, again, sizeof(again));
	ROCE_TEST_ASSERT_EQ(len2, len, "%s rebuild", name);
	ROCE_TEST_ASSERT(memcmp(frame, again, len) == 0, "%s rebuild differs", name);
	return 0;
}

static int
round_trip_of(const struct rte_roce_pkt *pkt, void *arg)
{
	RTE_SET_USED(arg);
	return round_trip(pkt);
}

static int
test_round_trip_all(void)
{
	int nb = wire_test_each_pkt(round_trip_of, NULL);

	/* 33 payload opcodes x 6 sizes - ATOMIC_WRITE's 5 + 7 others, x 4 variants */
	ROCE_TEST_ASSERT_EQ(nb, ((33 * 6 - 5) + 7) * 4, "round trips");
	printf("# %d round trips\n", nb);
	return 0;
}

static int
test_udp_csum_modes(void)
{
	struct rte_roce_pkt pkt, got;
	unsigned int v6;
	int len;

	for (v6 = 0; v6 < 2; v6++) {
		wire_test_pkt(&pkt, RTE_ROCE_OP_RC_SEND_ONLY, v6, false, 33);
		pkt.udp_csum_mode = RTE_ROCE_UDP_CSUM_CALC;
		if (round_trip(&pkt) != 0)
			return -1;
		len = wire_test_build(&pkt, frame, sizeof(frame));
		ROCE_TEST_ASSERT_EQ(rte_roce_pkt_parse(frame, len, WIRE_TEST_MTU, &got),
				    RTE_ROCE_DROP_NONE, "computed checksum verifies");
		ROCE_TEST_ASSERT(got.udp_csum != 0, "checksum written");
		ROCE_TEST_ASSERT_EQ(got.udp_csum_mode, RTE_ROCE_UDP_CSUM_KEEP, "kept on rebuild");

		pkt.udp_csum_mode = RTE_ROCE_UDP_CSUM_KEEP;
		pkt.udp_csum = 0x1234;
		len = wire_test_build(&pkt, frame, sizeof(frame));
		ROCE_TEST_ASSERT_EQ(frame[got.l4_off + 6] << 8 | frame[got.l4_off + 7], 0x1234,
				    "given value written");

		pkt.udp_csum_mode = RTE_ROCE_UDP_CSUM_ZERO;
		len = wire_test_build(&pkt, frame, sizeof(frame));
		ROCE_TEST_ASSERT_EQ(frame[got.l4_off + 6] | frame[got.l4_off + 7], 0, "rxe's 0");
	}
	return 0;
}

/* Fields that rxe always sends the same way (doc/wire-format.md §1.1). */
static int
test_init_defaults(void)
{
	struct rte_roce_pkt pkt, got;
	int len;

	rte_roce_pkt_init(&pkt, RTE_ROCE_OP_RC_ACKNOWLEDGE);
	pkt.src_mac.addr_bytes[0] = 0x02;
	rte_roce_gid_from_ipv4(&pkt.sgid, RTE_BE32(UINT32_C(0x0a000001)));
	rte_roce_gid_from_ipv4(&pkt.dgid, RTE_BE32(UINT32_C(0x0a000002)));
	len = wire_test_build(&pkt, frame, sizeof(frame));
	ROCE_TEST_ASSERT_EQ(len, 62, "smallest frame, an IPv4 ACK");
	ROCE_TEST_ASSERT_EQ(frame[20], 0x40, "DF");
	ROCE_TEST_ASSERT_EQ(frame[22], RTE_ROCE_DEFAULT_TTL, "TTL");
	ROCE_TEST_ASSERT_EQ(frame[36] << 8 | frame[37], RTE_ROCE_UDP_PORT, "dport");
	ROCE_TEST_ASSERT_EQ(frame[44] << 8 | frame[45], RTE_ROCE_DEFAULT_PKEY, "pkey");
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_parse(frame, len, 0, &got), RTE_ROCE_DROP_NONE, "parse");
	return 0;
}

static int
test_build_einval(void)
{
	struct rte_roce_pkt pkt;

	wire_test_pkt(&pkt, 0x15, false, false, 0);
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build(&pkt, NULL, frame, sizeof(frame)), -EINVAL,
			    "reserved opcode");
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_frame_len(&pkt), -EINVAL, "reserved opcode");
	wire_test_pkt(&pkt, RTE_ROCE_OP_RC_ACKNOWLEDGE, false, false, 4);
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build(&pkt, wire_test_payload, frame, sizeof(frame)),
			    -EINVAL, "payload on ACK");
	wire_test_pkt(&pkt, RTE_ROCE_OP_RC_ATOMIC_WRITE, false, false, 7);
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build(&pkt, wire_test_payload, frame, sizeof(frame)),
			    -EINVAL, "ATOMIC_WRITE of 7 bytes");
	wire_test_pkt(&pkt, RTE_ROCE_OP_RC_SEND_ONLY, false, false, (UINT32_C(1) << 31) + 1);
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build(&pkt, wire_test_payload, frame, sizeof(frame)),
			    -EINVAL, "payload above 2^31");
	wire_test_pkt(&pkt, RTE_ROCE_OP_RC_SEND_ONLY, false, false, UINT16_MAX - 20 - 8 - 12 - 4 + 1);
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_frame_len(&pkt), -EINVAL, "IPv4 total length overflow");
	wire_test_pkt(&pkt, RTE_ROCE_OP_RC_SEND_ONLY, false, false, 4);
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build(&pkt, NULL, frame, sizeof(frame)), -EINVAL,
			    "NULL payload");
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build(NULL, NULL, frame, sizeof(frame)), -EINVAL,
			    "NULL pkt");
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build(&pkt, wire_test_payload, NULL, 0), -EINVAL,
			    "NULL buffer");
	pkt.ip_version = 5;
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build(&pkt, wire_test_payload, frame, sizeof(frame)),
			    -EINVAL, "IP version 5");
	wire_test_pkt(&pkt, RTE_ROCE_OP_RC_SEND_ONLY, true, false, 4);
	pkt.ip_version = 4;
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build(&pkt, wire_test_payload, frame, sizeof(frame)),
			    -EINVAL, "IPv4 with IPv6 GIDs");
	wire_test_pkt(&pkt, RTE_ROCE_OP_RC_SEND_ONLY, false, false, 4);
	pkt.udp_csum_mode = RTE_ROCE_UDP_CSUM_CALC + 1;
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build(&pkt, wire_test_payload, frame, sizeof(frame)),
			    -EINVAL, "checksum mode");
	return 0;
}

static int
test_build_enospc(void)
{
	struct rte_roce_pkt pkt;
	int len;

	wire_test_pkt(&pkt, RTE_ROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, true, true, 100);
	len = rte_roce_pkt_frame_len(&pkt);
	ROCE_TEST_ASSERT(len > 0, "frame length");
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build(&pkt, wire_test_payload, frame, len - 1), -ENOSPC,
			    "one byte short");
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build(&pkt, wire_test_payload, frame, 0), -ENOSPC, "empty");
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build(&pkt, wire_test_payload, frame, len), len, "exact");
	return 0;
}

static int
test_build_mbuf(void)
{
	struct rte_mempool *mp = roce_test_mbuf_pool();
	struct rte_roce_pkt pkt, got;
	struct rte_mbuf *m;
	uint16_t room;
	int len;

	ROCE_TEST_ASSERT(mp != NULL, "pool");
	m = rte_pktmbuf_alloc(mp);
	ROCE_TEST_ASSERT(m != NULL, "mbuf");
	wire_test_pkt(&pkt, RTE_ROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE, false, true, WIRE_TEST_MTU);
	len = rte_roce_pkt_build_mbuf(&pkt, wire_test_payload, m);
	ROCE_TEST_ASSERT_EQ(len, rte_roce_pkt_frame_len(&pkt), "length");
	ROCE_TEST_ASSERT_EQ(rte_pktmbuf_pkt_len(m), (uint32_t)len, "appended");
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_parse_mbuf(m, WIRE_TEST_MTU, &got), RTE_ROCE_DROP_NONE,
			    "parse");
	ROCE_TEST_ASSERT(wire_test_pkt_cmp(&pkt, &got, false) == 0, "fields");
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check_mbuf(m, got.l3_off, got.icrc_off - got.l3_off), 0,
			    "ICRC");

	rte_pktmbuf_reset(m);
	room = rte_pktmbuf_tailroom(m);
	ROCE_TEST_ASSERT(rte_pktmbuf_append(m, room - len + 1) != NULL, "fill");
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build_mbuf(&pkt, wire_test_payload, m), -ENOSPC, "full");
	ROCE_TEST_ASSERT_EQ(rte_pktmbuf_pkt_len(m), (uint32_t)(room - len + 1), "untouched");
	pkt.opcode = 0x18;
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build_mbuf(&pkt, wire_test_payload, m), -EINVAL, "opcode");
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_build_mbuf(&pkt, wire_test_payload, NULL), -EINVAL, "NULL");
	rte_pktmbuf_free(m);
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "round_trip_every_opcode_v4_v6_vlan_pad", test_round_trip_all },
	{ "udp_checksum_modes", test_udp_csum_modes },
	{ "init_defaults_like_rxe", test_init_defaults },
	{ "build_rejects_einval", test_build_einval },
	{ "build_rejects_enospc", test_build_enospc },
	{ "build_mbuf", test_build_mbuf },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return roce_test_main_eal(argv[0], cases, RTE_DIM(cases));
}
