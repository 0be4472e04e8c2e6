/* SPDX-License-Identifier: BSD-3-Clause */

/* Header accessors and constants of rte_roce_hdr.h against doc/wire-format.md. */

#include <stddef.h>
#include <string.h>

#include <rte_common.h>

#include <rte_roce_hdr.h>

#include "roce_test.h"

static int
test_psn_arith(void)
{
	ROCE_TEST_ASSERT_EQ(rte_roce_psn_add(0xffffff, 1), 0, "wrap");
	ROCE_TEST_ASSERT_EQ(rte_roce_psn_add(0xfffffe, 5), 3, "wrap");
	ROCE_TEST_ASSERT_EQ(rte_roce_psn_add(10, 0x1000000), 10, "modulo 2^24");
	ROCE_TEST_ASSERT(rte_roce_psn_cmp(5, 5) == 0, "equal");
	ROCE_TEST_ASSERT(rte_roce_psn_cmp(0, 0xffffff) > 0, "0 follows 0xffffff");
	ROCE_TEST_ASSERT(rte_roce_psn_cmp(0xffffff, 0) < 0, "0xffffff precedes 0");
	ROCE_TEST_ASSERT(rte_roce_psn_cmp(0x7fffff, 0) > 0, "2^23-1 ahead");
	ROCE_TEST_ASSERT(rte_roce_psn_cmp(0x800000, 0) < 0, "2^23 ahead reads as behind");
	ROCE_TEST_ASSERT(rte_roce_psn_cmp(0x123456, 0x123457) < 0, "one behind");
	return 0;
}

/* The CNP BTH of doc/wire-format.md §3: 81 00 ff ff 40 00 00 d2 00 00 00 00. */
static int
test_bth_cnp_sample(void)
{
	static const uint8_t raw[RTE_ROCE_BTH_LEN] = {
		0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x00, 0xd2, 0x00, 0x00, 0x00, 0x00 };
	struct rte_roce_bth bth;

	memcpy(&bth, raw, sizeof(bth));
	ROCE_TEST_ASSERT_EQ(bth.opcode, 0x81, "opcode");
	ROCE_TEST_ASSERT_EQ(rte_roce_bth_pkey(&bth), RTE_ROCE_DEFAULT_PKEY, "pkey");
	ROCE_TEST_ASSERT(rte_roce_bth_becn(&bth), "becn");
	ROCE_TEST_ASSERT(!rte_roce_bth_fecn(&bth), "fecn");
	ROCE_TEST_ASSERT_EQ(rte_roce_bth_resv6(&bth), 0, "resv6");
	ROCE_TEST_ASSERT_EQ(rte_roce_bth_dqpn(&bth), 0xd2, "dqpn");
	ROCE_TEST_ASSERT_EQ(rte_roce_bth_psn(&bth), 0, "psn");
	ROCE_TEST_ASSERT(!rte_roce_bth_ackreq(&bth), "ackreq");
	return 0;
}

/* The UC SEND_ONLY BTH of doc/wire-format.md §4.3: 24 60 ffff 00 0000d3 00 cf1710. */
static int
test_bth_set_get(void)
{
	static const uint8_t raw[RTE_ROCE_BTH_LEN] = {
		0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3, 0x00, 0xcf, 0x17, 0x10 };
	struct rte_roce_bth bth;

	rte_roce_bth_set(&bth, 0x24, rte_roce_bth_flags(false, true, 2, 0), 0xffff, 0, 0xd3, 0,
			 0xcf1710);
	ROCE_TEST_ASSERT(memcmp(&bth, raw, sizeof(raw)) == 0, "encoding");
	ROCE_TEST_ASSERT(rte_roce_bth_mig(&bth), "M");
	ROCE_TEST_ASSERT(!rte_roce_bth_se(&bth), "SE");
	ROCE_TEST_ASSERT_EQ(rte_roce_bth_pad(&bth), 2, "pad");
	ROCE_TEST_ASSERT_EQ(rte_roce_bth_tver(&bth), 0, "tver");
	ROCE_TEST_ASSERT_EQ(rte_roce_bth_psn(&bth), 0xcf1710, "psn");

	rte_roce_bth_set(&bth, 0, rte_roce_bth_flags(true, false, 3, 0xf), 0x1234, 0xff,
			 0xffffffff, 0xff, 0xffffffff);
	ROCE_TEST_ASSERT(rte_roce_bth_se(&bth), "SE");
	ROCE_TEST_ASSERT_EQ(rte_roce_bth_tver(&bth), 0xf, "tver");
	ROCE_TEST_ASSERT(rte_roce_bth_fecn(&bth) && rte_roce_bth_becn(&bth), "fecn/becn");
	ROCE_TEST_ASSERT_EQ(rte_roce_bth_resv6(&bth), 0x3f, "resv6");
	ROCE_TEST_ASSERT_EQ(rte_roce_bth_dqpn(&bth), RTE_ROCE_MULTICAST_QPN, "dqpn masked");
	ROCE_TEST_ASSERT(rte_roce_bth_ackreq(&bth), "ackreq");
	ROCE_TEST_ASSERT_EQ(rte_roce_bth_resv7(&bth), 0x7f, "resv7");
	ROCE_TEST_ASSERT_EQ(rte_roce_bth_psn(&bth), RTE_ROCE_PSN_MASK, "psn masked");
	return 0;
}

static int
test_aeth(void)
{
	struct rte_roce_aeth aeth;
	const uint8_t *b = (const uint8_t *)&aeth;

	rte_roce_aeth_set(&aeth, RTE_ROCE_AETH_ACK_UNLIMITED, 0x1abcdef);
	ROCE_TEST_ASSERT_EQ(b[0], 0x1f, "rxe ACK syndrome");
	ROCE_TEST_ASSERT_EQ(rte_roce_aeth_msn(&aeth), 0xabcdef, "msn masked");
	ROCE_TEST_ASSERT_EQ(rte_roce_aeth_rnr_syndrome(12), 0x2c, "RNR NAK 640 us");
	ROCE_TEST_ASSERT_EQ(rte_roce_aeth_rnr_syndrome(12) & RTE_ROCE_AETH_TYPE_MASK,
			    RTE_ROCE_AETH_TYPE_RNR, "RNR type");
	ROCE_TEST_ASSERT_EQ(RTE_ROCE_AETH_NAK_PSN_SEQ & RTE_ROCE_AETH_TYPE_MASK,
			    RTE_ROCE_AETH_TYPE_NAK, "NAK type");
	rte_roce_aeth_set(&aeth, RTE_ROCE_AETH_NAK_INV_RD_REQ, 7);
	ROCE_TEST_ASSERT_EQ(rte_roce_aeth_syndrome(&aeth), 0x64, "syndrome");
	return 0;
}

/* doc/wire-format.md §5.3, with rxe's typo for code 25 corrected. */
static int
test_rnr_timer(void)
{
	static const uint32_t usec[RTE_ROCE_RNR_TIMER_CODES] = {
		655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
		2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
		163840, 245760, 327680, 491520,
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(usec); i++)
		ROCE_TEST_ASSERT_EQ(rte_roce_rnr_timer_usec(i), usec[i], "code %u", i);
	ROCE_TEST_ASSERT_EQ(rte_roce_rnr_timer_usec(0x20 | 12), 640, "syndrome bits ignored");
	return 0;
}

static int
test_layouts(void)
{
	ROCE_TEST_ASSERT_EQ(offsetof(struct rte_roce_atmeth, swap_add), 12, "AtomicETH packed");
	ROCE_TEST_ASSERT_EQ(offsetof(struct rte_roce_atmeth, compare), 20, "AtomicETH packed");
	ROCE_TEST_ASSERT_EQ(offsetof(union rte_roce_grh, v4.ipv4), RTE_ROCE_GRH_IPV4_OFF, "GRH v4");
	ROCE_TEST_ASSERT_EQ(RTE_ROCE_GRH_IPV4_OFF, 20, "GRH v4");
	ROCE_TEST_ASSERT_EQ(RTE_ROCE_UDP_PORT, 0x12b7, "port");
	ROCE_TEST_ASSERT_EQ(RTE_ROCE_QP1_QKEY, 0x80010000, "QP1 Q_Key");
	/* Overheads of doc/wire-format.md §1.3: 58 B IPv4, 78 B IPv6. */
	ROCE_TEST_ASSERT_EQ(RTE_ROCE_ETH_LEN + RTE_ROCE_IPV4_LEN + RTE_ROCE_UDP_LEN +
			    RTE_ROCE_BTH_LEN + RTE_ROCE_ICRC_LEN, 58, "IPv4 overhead");
	ROCE_TEST_ASSERT_EQ(RTE_ROCE_ETH_LEN + RTE_ROCE_IPV6_LEN + RTE_ROCE_UDP_LEN +
			    RTE_ROCE_BTH_LEN + RTE_ROCE_ICRC_LEN, 78, "IPv6 overhead");
	return 0;
}

static int
test_deth(void)
{
	struct rte_roce_deth deth = {
		.qkey = RTE_BE32(RTE_ROCE_QP1_QKEY),
		.sqpn = RTE_BE32(0xff000001),
	};

	ROCE_TEST_ASSERT_EQ(rte_roce_deth_sqpn(&deth), 1, "reserved byte masked");
	return 0;
}

static int
test_grh_fill(void)
{
	uint8_t l3[RTE_ROCE_IPV6_LEN];
	union rte_roce_grh grh;
	unsigned int i;

	for (i = 0; i < sizeof(l3); i++)
		l3[i] = 0x60 + i;
	memset(&grh, 0xee, sizeof(grh));
	rte_roce_grh_fill(&grh, l3, true);
	ROCE_TEST_ASSERT(memcmp(grh.raw, l3, RTE_ROCE_IPV6_LEN) == 0, "IPv6 verbatim");
	memset(&grh, 0xee, sizeof(grh));
	l3[0] = 0x45;
	rte_roce_grh_fill(&grh, l3, false);
	for (i = 0; i < RTE_ROCE_GRH_IPV4_OFF; i++)
		ROCE_TEST_ASSERT_EQ(grh.raw[i], 0, "byte %u zero", i);
	ROCE_TEST_ASSERT(memcmp(grh.raw + RTE_ROCE_GRH_IPV4_OFF, l3, RTE_ROCE_IPV4_LEN) == 0,
			 "IPv4 header at 20");
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "grh_fill", test_grh_fill },
	{ "psn_arithmetic", test_psn_arith },
	{ "bth_cnp_sample", test_bth_cnp_sample },
	{ "bth_set_get", test_bth_set_get },
	{ "aeth", test_aeth },
	{ "rnr_timer_table", test_rnr_timer },
	{ "layouts", test_layouts },
	{ "deth", test_deth },
};

int
main(void)
{
	return roce_test_run(cases, RTE_DIM(cases));
}
