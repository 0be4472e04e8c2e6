/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * roce_ipv4_hdr_sum() (roce_cksum.h), the RX's IPv4 header sum, against
 * rte_raw_cksum() over the same 20 bytes: equal for every header tried,
 * including those whose sum carries the most (all ones) and none (zero).
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ip.h>

#include "roce_cksum.h"
#include "roce_test.h"

#define CKSUM_RANDOM_HDRS 100000

static int
sum_is_raw_cksum(const struct rte_ipv4_hdr *ip)
{
	uint16_t want = rte_raw_cksum(ip, sizeof(*ip)), got = roce_ipv4_hdr_sum(ip);

	if (got != want) {
		printf("# sum 0x%04x, rte_raw_cksum 0x%04x\n", got, want);
		return -1;
	}
	return 0;
}

static int
test_edges(void)
{
	struct rte_ipv4_hdr ip;

	memset(&ip, 0, sizeof(ip));
	ROCE_TEST_ASSERT(sum_is_raw_cksum(&ip) == 0, "all zero");
	memset(&ip, 0xff, sizeof(ip));
	ROCE_TEST_ASSERT(sum_is_raw_cksum(&ip) == 0, "all ones");
	memset(&ip, 0xff, sizeof(ip));
	ip.hdr_checksum = 0;
	ROCE_TEST_ASSERT(sum_is_raw_cksum(&ip) == 0, "ones but the checksum");
	return 0;
}

/* Random headers, and each with its checksum set as a sender sets it: then the sum is 0xffff. */
static int
test_random(void)
{
	struct rte_ipv4_hdr ip;
	unsigned int i, b;

	srand(17);
	for (i = 0; i < CKSUM_RANDOM_HDRS; i++) {
		for (b = 0; b < sizeof(ip); b++)
			((uint8_t *)&ip)[b] = (uint8_t)rand();
		ROCE_TEST_ASSERT(sum_is_raw_cksum(&ip) == 0, "header %u", i);
		/* rte_ipv4_cksum() sums the IHL's length: no options. */
		ip.version_ihl = RTE_IPV4_VHL_DEF;
		ip.hdr_checksum = 0;
		ip.hdr_checksum = rte_ipv4_cksum(&ip);
		ROCE_TEST_ASSERT_EQ(roce_ipv4_hdr_sum(&ip), UINT16_MAX, "header %u, checksum set", i);
	}
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "ipv4_hdr_sum_edges", test_edges },
	{ "ipv4_hdr_sum_is_raw_cksum_random", test_random },
};

int
main(void)
{
	return roce_test_run(cases, RTE_DIM(cases));
}
