/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The per-QP header template (roce_build.h): a frame built from a template
 * and a packet is byte for byte the frame rte_roce_pkt_build_mbuf() builds
 * from the packet alone, for every opcode, IP version, VLAN tag and pad
 * count; and the template's build refuses what the builder refuses.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include <rte_roce_pkt.h>

#include "roce_build.h"
#include "roce_test.h"
#include "roce_test_eal.h"
#include "wire_test_util.h"

/* Both builds of pkt into fresh mbufs, compared. */
static int
same_frame(const struct rte_roce_pkt *pkt, void *pool)
{
	struct rte_mempool *mp = pool;
	const char *name = rte_roce_opcode_name(pkt->opcode);
	struct rte_mbuf *want = rte_pktmbuf_alloc(mp), *got = rte_pktmbuf_alloc(mp);
	struct roce_hdr_tmpl t;
	int len, ret = -1;

	if (want == NULL || got == NULL)
		goto out;
	roce_build_hdr_init(&t, pkt);
	len = rte_roce_pkt_build_mbuf(pkt, wire_test_payload, want);
	if (len <= 0 || roce_pkt_build_mbuf_hdr(&t, pkt, wire_test_payload, got) != len ||
	    rte_pktmbuf_pkt_len(got) != (uint32_t)len ||
	    memcmp(rte_pktmbuf_mtod(want, void *), rte_pktmbuf_mtod(got, void *), len) != 0) {
		printf("# %s v%u vlan %d len %u: the template's frame differs\n", name,
		       pkt->ip_version, pkt->vlan, pkt->payload_len);
		goto out;
	}
	ret = 0;
out:
	rte_pktmbuf_free(want);
	rte_pktmbuf_free(got);
	return ret;
}

static int
test_same_frame_every_opcode(void)
{
	struct rte_mempool *mp = roce_test_mbuf_pool();
	int nb;

	ROCE_TEST_ASSERT(mp != NULL, "pool");
	nb = wire_test_each_pkt(same_frame, mp);
	ROCE_TEST_ASSERT(nb > 0, "frames");
	printf("# %d frames alike\n", nb);
	return 0;
}

static int
test_rejects(void)
{
	struct rte_mempool *mp = roce_test_mbuf_pool();
	struct roce_hdr_tmpl t;
	struct rte_roce_pkt pkt;
	struct rte_mbuf *m;
	uint16_t room;

	ROCE_TEST_ASSERT(mp != NULL, "pool");
	m = rte_pktmbuf_alloc(mp);
	ROCE_TEST_ASSERT(m != NULL, "mbuf");
	wire_test_pkt(&pkt, RTE_ROCE_OP_RC_SEND_ONLY, false, false, 64);
	roce_build_hdr_init(&t, &pkt);
	ROCE_TEST_ASSERT_EQ(roce_pkt_build_mbuf_hdr(&t, &pkt, NULL, m), -EINVAL, "no payload");
	wire_test_pkt(&pkt, RTE_ROCE_OP_RC_ACKNOWLEDGE, false, false, 4);
	ROCE_TEST_ASSERT_EQ(roce_pkt_build_mbuf_hdr(&t, &pkt, wire_test_payload, m), -EINVAL,
			    "payload on an ACK");
	wire_test_pkt(&pkt, RTE_ROCE_OP_RC_SEND_ONLY, false, false, UINT16_MAX);
	ROCE_TEST_ASSERT_EQ(roce_pkt_build_mbuf_hdr(&t, &pkt, wire_test_payload, m), -EINVAL,
			    "over the IP length");
	ROCE_TEST_ASSERT_EQ(rte_pktmbuf_pkt_len(m), 0, "nothing appended");
	wire_test_pkt(&pkt, RTE_ROCE_OP_RC_SEND_ONLY, false, false, 64);
	room = rte_pktmbuf_tailroom(m);
	ROCE_TEST_ASSERT(rte_pktmbuf_append(m, room - 8) != NULL, "fill");
	ROCE_TEST_ASSERT_EQ(roce_pkt_build_mbuf_hdr(&t, &pkt, wire_test_payload, m), -ENOSPC,
			    "full");
	ROCE_TEST_ASSERT_EQ(rte_pktmbuf_pkt_len(m), (uint32_t)(room - 8), "untouched");
	rte_pktmbuf_free(m);
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "template_frame_is_the_builders_every_opcode_v4_v6_vlan_pad",
	  test_same_frame_every_opcode },
	{ "template_build_rejects", test_rejects },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return roce_test_main_eal(argv[0], cases, RTE_DIM(cases));
}
