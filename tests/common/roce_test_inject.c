/* SPDX-License-Identifier: BSD-3-Clause */

/* Hand-made requests to a responder and its answers (roce_test_inject.h). */

#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_inject.h"
#include "roce_test_port.h"

int
roce_test_inject_init(struct roce_test_inject *in, struct roce_test_env *e)
{
	struct rte_roce_port_info info;

	in->e = e;
	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(e->s[0].port, &info), 0, "info");
	in->mac[0] = info.mac;
	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(e->s[1].port, &info), 0, "info");
	in->mac[1] = info.mac;
	if (roce_test_warm_up(e) != 0)
		return -1;
	in->epsn = roce_test_default_conf.psn_ab + 1;
	return 0;
}

/* A frame from side `from`'s address to the other side's QP 0, on the ring to it. */
static int
inject_frame(struct roce_test_inject *in, unsigned int from, struct rte_roce_pkt *pkt,
	     const void *payload)
{
	struct roce_test_env *e = in->e;
	unsigned int to = !from;
	struct rte_mbuf *m = rte_pktmbuf_alloc(roce_test_mbuf_pool());

	ROCE_TEST_ASSERT(m != NULL, "mbuf");
	pkt->src_mac = in->mac[from];
	pkt->dst_mac = in->mac[to];
	pkt->ip_version = 4;
	memcpy(pkt->sgid.raw, e->s[from].gid.raw, sizeof(pkt->sgid.raw));
	memcpy(pkt->dgid.raw, e->s[to].gid.raw, sizeof(pkt->dgid.raw));
	pkt->sport = 0xc001;
	pkt->dqpn = e->qp[to][0]->qp_num;
	ROCE_TEST_ASSERT(rte_roce_pkt_build_mbuf(pkt, payload, m) > 0, "build");
	/* ring[1] carries a's frames to b, ring[0] b's to a. */
	ROCE_TEST_ASSERT_EQ(rte_ring_enqueue(roce_test_verbs_pair.ring[to], m), 0, "enqueue");
	return 0;
}

int
roce_test_inject_send(struct roce_test_inject *in, struct rte_roce_pkt *pkt, const void *payload)
{
	return inject_frame(in, 0, pkt, payload);
}

int
roce_test_inject_response(struct roce_test_inject *in, struct rte_roce_pkt *pkt,
			  const void *payload)
{
	return inject_frame(in, 1, pkt, payload);
}

/* A request with a RETH on b's MR, AckReq set. */
int
roce_test_inject_reth(struct roce_test_inject *in, uint8_t opcode, uint32_t psn, uint64_t va,
		      uint32_t len, const void *payload, uint32_t payload_len)
{
	struct rte_roce_pkt pkt;

	rte_roce_pkt_init(&pkt, opcode);
	pkt.psn = psn;
	pkt.ackreq = true;
	pkt.reth.va = va;
	pkt.reth.rkey = in->e->s[1].mr->rkey;
	pkt.reth.len = len;
	pkt.payload_len = payload_len;
	return roce_test_inject_send(in, &pkt, payload);
}

/* Poll side `from` only, then take its next frame to the other side; -1 if none comes. */
static int
take_frame(struct roce_test_inject *in, unsigned int from, struct rte_roce_pkt *pkt,
	   uint8_t *payload)
{
	uint64_t end = roce_test_ms() + ROCE_TEST_QUIET_MS;
	struct rte_mbuf *m;
	int ret;

	while (roce_test_ms() < end) {
		rte_roce_poll(in->e->s[from].ctx);
		if (rte_ring_dequeue(roce_test_verbs_pair.ring[!from], (void **)&m) != 0)
			continue;
		ret = rte_roce_pkt_parse_mbuf(m, 4096, pkt) == RTE_ROCE_DROP_NONE ? 0 : -1;
		if (ret == 0 && payload != NULL && pkt->payload_len > 0) {
			const void *p = rte_pktmbuf_read(m, pkt->payload_off, pkt->payload_len,
							 payload);

			if (p != payload)
				memcpy(payload, p, pkt->payload_len);
		}
		rte_pktmbuf_free(m);
		return ret;
	}
	return -1;
}

int
roce_test_inject_answer(struct roce_test_inject *in, struct rte_roce_pkt *pkt, uint8_t *payload)
{
	return take_frame(in, 1, pkt, payload);
}

int
roce_test_inject_take_request(struct roce_test_inject *in, struct rte_roce_pkt *pkt)
{
	return take_frame(in, 0, pkt, NULL);
}

int
roce_test_expect_ack(struct roce_test_inject *in, uint8_t opcode, uint8_t syndrome, uint32_t psn)
{
	struct rte_roce_pkt pkt;

	ROCE_TEST_ASSERT_EQ(roce_test_inject_answer(in, &pkt, NULL), 0, "no answer");
	ROCE_TEST_ASSERT_EQ(pkt.opcode, opcode, "answer opcode");
	ROCE_TEST_ASSERT_EQ(pkt.psn, psn, "answer PSN");
	ROCE_TEST_ASSERT_EQ(pkt.aeth.syndrome, syndrome, "syndrome");
	return 0;
}

int
roce_test_expect_no_answer(struct roce_test_inject *in)
{
	struct rte_roce_pkt pkt;

	ROCE_TEST_ASSERT(roce_test_inject_answer(in, &pkt, NULL) != 0, "unexpected answer, opcode 0x%x",
			 pkt.opcode);
	return 0;
}

