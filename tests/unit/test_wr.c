/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The work request table (lib/roce/roce_wr.c) against the opcode table:
 * every wire opcode a work request sends exists, belongs to the QP's
 * transport, sits at the position it is sent at and follows its
 * predecessor; the request's flags agree with the opcode's; and every
 * request opcode of RC, UC and UD is sent by some work request. A new work
 * request that disagrees with the opcode table fails here.
 */

#include <stdio.h>

#include <rte_common.h>

#include <rte_roce_opcode.h>
#include <rte_roce_verbs.h>

#include "roce_test.h"
#include "roce_wr.h"

static const uint8_t wire_transport[ROCE_WR_T_NB] = {
	[ROCE_WR_T_RC] = RTE_ROCE_TRANSPORT_RC,
	[ROCE_WR_T_UC] = RTE_ROCE_TRANSPORT_UC,
	[ROCE_WR_T_UD] = RTE_ROCE_TRANSPORT_UD,
};

/* The transport takes the request and it sends packets (a local operation sends none). */
static bool
wr_takes(const struct roce_wr_info *wr, unsigned int t)
{
	return (wr->transports & (1u << t)) != 0 && (wr->flags & ROCE_WRF_LOCAL) == 0;
}

static bool
wr_single(const struct roce_wr_info *wr)
{
	return (wr->flags & (ROCE_WRF_READ | ROCE_WRF_ATOMIC | ROCE_WRF_EMPTY_RESP)) != 0;
}

/* Each wire opcode exists, in the QP's transport, at its position (READ/atomic, UD: ONLY at all). */
static int
test_opcodes_exist(void)
{
	unsigned int w, t, pos;

	for (w = 0; w < ROCE_WR_NB; w++) {
		const struct roce_wr_info *wr = &roce_wr_info[w];

		for (t = 0; t < ROCE_WR_T_NB; t++) {
			if (!wr_takes(wr, t))
				continue;
			for (pos = RTE_ROCE_POS_FIRST; pos <= RTE_ROCE_POS_ONLY; pos++) {
				const struct rte_roce_opcode_info *info =
					rte_roce_opcode_info(wr->op[t][pos]);
				unsigned int want = wr_single(wr) || t == ROCE_WR_T_UD ?
						    RTE_ROCE_POS_ONLY : pos;

				ROCE_TEST_ASSERT(info != NULL, "WR %u transport %u pos %u: 0x%x", w,
						 t, pos, wr->op[t][pos]);
				ROCE_TEST_ASSERT_EQ(info->transport, wire_transport[t], "WR %u %s", w,
						    info->name);
				ROCE_TEST_ASSERT_EQ(info->pos, want, "WR %u %s", w, info->name);
				ROCE_TEST_ASSERT((info->flags & RTE_ROCE_OPF_REQ) != 0, "WR %u %s", w,
						 info->name);
			}
		}
	}
	return 0;
}

/* A multi-packet message's opcodes follow each other: FIRST MIDDLE* LAST (IBA 9.8.3). */
static int
test_sequences(void)
{
	unsigned int w, t;

	for (w = 0; w < ROCE_WR_NB; w++) {
		const struct roce_wr_info *wr = &roce_wr_info[w];

		for (t = 0; t < ROCE_WR_T_NB; t++) {
			const uint8_t *op = wr->op[t];

			if (!wr_takes(wr, t) || wr_single(wr) || t == ROCE_WR_T_UD)
				continue;
			ROCE_TEST_ASSERT(rte_roce_opcode_may_follow(op[RTE_ROCE_POS_FIRST],
								    op[RTE_ROCE_POS_MIDDLE]), "WR %u", w);
			ROCE_TEST_ASSERT(rte_roce_opcode_may_follow(op[RTE_ROCE_POS_MIDDLE],
								    op[RTE_ROCE_POS_MIDDLE]), "WR %u", w);
			ROCE_TEST_ASSERT(rte_roce_opcode_may_follow(op[RTE_ROCE_POS_MIDDLE],
								    op[RTE_ROCE_POS_LAST]), "WR %u", w);
			ROCE_TEST_ASSERT(rte_roce_opcode_may_follow(op[RTE_ROCE_POS_FIRST],
								    op[RTE_ROCE_POS_LAST]), "WR %u", w);
		}
	}
	return 0;
}

/* The request's flags say what its ONLY opcode says; the completion matches. */
static int
test_flags_agree(void)
{
	unsigned int w, t;

	for (w = 0; w < ROCE_WR_NB; w++) {
		const struct roce_wr_info *wr = &roce_wr_info[w];

		for (t = 0; t < ROCE_WR_T_NB; t++) {
			const struct rte_roce_opcode_info *info;
			uint32_t f;

			if (!wr_takes(wr, t))
				continue;
			info = rte_roce_opcode_info(wr->op[t][RTE_ROCE_POS_ONLY]);
			f = info->flags;
			ROCE_TEST_ASSERT_EQ(!!(wr->flags & ROCE_WRF_READ), !!(f & RTE_ROCE_OPF_READ),
					    "WR %u %s", w, info->name);
			ROCE_TEST_ASSERT_EQ(!!(wr->flags & ROCE_WRF_ATOMIC),
					    !!(f & RTE_ROCE_OPF_ATOMIC), "WR %u %s", w, info->name);
			ROCE_TEST_ASSERT_EQ(!!(wr->flags & ROCE_WRF_SEND), !!(f & RTE_ROCE_OPF_SEND),
					    "WR %u %s", w, info->name);
			ROCE_TEST_ASSERT_EQ(!!(wr->flags & ROCE_WRF_EMPTY_RESP),
					    !!(f & (RTE_ROCE_OPF_FLUSH | RTE_ROCE_OPF_ATOMIC_WRITE)),
					    "WR %u %s", w, info->name);
			/* Data comes back into the SGEs exactly when the request is answered with it. */
			ROCE_TEST_ASSERT_EQ(!!(wr->flags & ROCE_WRF_WRITES_LOCAL),
					    !!(wr->flags & (ROCE_WRF_READ | ROCE_WRF_ATOMIC)), "WR %u", w);
			/* Inline data is a payload: only requests that carry one. */
			ROCE_TEST_ASSERT_EQ(!!(wr->flags & ROCE_WRF_INLINE),
					    !!(f & RTE_ROCE_OPF_PAYLOAD), "WR %u %s", w, info->name);
		}
		if (wr->transports == 0)
			continue;
		if (wr->flags & ROCE_WRF_LOCAL) {
			ROCE_TEST_ASSERT_EQ(wr->flags, ROCE_WRF_LOCAL, "WR %u: nothing else", w);
			ROCE_TEST_ASSERT_EQ(wr->wc, w == IBV_WR_BIND_MW ? IBV_WC_BIND_MW :
					    IBV_WC_LOCAL_INV, "WR %u", w);
			continue;
		}
		ROCE_TEST_ASSERT_EQ(wr->wc, (wr->flags & ROCE_WRF_READ) ? IBV_WC_RDMA_READ :
				    (wr->flags & ROCE_WRF_SEND) ? IBV_WC_SEND :
				    w == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP :
				    w == IBV_WR_ATOMIC_FETCH_AND_ADD ? IBV_WC_FETCH_ADD :
				    w == RTE_ROCE_WR_FLUSH ? RTE_ROCE_WC_FLUSH :
				    w == IBV_WR_ATOMIC_WRITE ? IBV_WC_ATOMIC_WRITE :
				    IBV_WC_RDMA_WRITE, "WR %u", w);
	}
	return 0;
}

/* Every request opcode of RC, UC and UD is sent by some work request (IBA A19's included). */
static int
test_every_request_sent(void)
{
	bool sent[256] = { false };
	unsigned int w, t, pos, op;

	for (w = 0; w < ROCE_WR_NB; w++)
		for (t = 0; t < ROCE_WR_T_NB; t++)
			for (pos = 0; pos <= RTE_ROCE_POS_ONLY && wr_takes(&roce_wr_info[w], t); pos++)
				sent[roce_wr_info[w].op[t][pos]] = true;
	for (op = 0; op < RTE_DIM(sent); op++) {
		const struct rte_roce_opcode_info *info = rte_roce_opcode_info(op);

		if (info == NULL || (info->flags & RTE_ROCE_OPF_REQ) == 0)
			continue;
		ROCE_TEST_ASSERT(sent[op], "%s: no work request sends it", info->name);
	}
	return 0;
}

/* roce_wr_info_get() admits an opcode only on the transports of its row. */
static int
test_lookup(void)
{
	ROCE_TEST_ASSERT(roce_wr_info_get(IBV_WR_SEND, IBV_QPT_UD) != NULL, "SEND on UD");
	ROCE_TEST_ASSERT(roce_wr_info_get(IBV_WR_RDMA_WRITE, IBV_QPT_UD) == NULL, "WRITE on UD");
	ROCE_TEST_ASSERT(roce_wr_info_get(IBV_WR_RDMA_READ, IBV_QPT_UC) == NULL, "READ on UC");
	ROCE_TEST_ASSERT(roce_wr_info_get(IBV_WR_LOCAL_INV, IBV_QPT_RC) != NULL, "LOCAL_INV RC");
	ROCE_TEST_ASSERT(roce_wr_info_get(IBV_WR_BIND_MW, IBV_QPT_UC) != NULL, "BIND_MW UC");
	ROCE_TEST_ASSERT(roce_wr_info_get(IBV_WR_LOCAL_INV, IBV_QPT_UD) == NULL, "LOCAL_INV UD");
	ROCE_TEST_ASSERT(roce_wr_info_get(IBV_WR_BIND_MW, IBV_QPT_UD) == NULL, "BIND_MW UD");
	ROCE_TEST_ASSERT(roce_wr_info_get(RTE_ROCE_WR_FLUSH, IBV_QPT_RC) != NULL, "FLUSH on RC");
	ROCE_TEST_ASSERT(roce_wr_info_get(RTE_ROCE_WR_FLUSH, IBV_QPT_UC) == NULL, "FLUSH on UC");
	ROCE_TEST_ASSERT(roce_wr_info_get(IBV_WR_ATOMIC_WRITE, IBV_QPT_RC) != NULL, "ATOMIC_WRITE");
	ROCE_TEST_ASSERT(roce_wr_info_get(IBV_WR_ATOMIC_WRITE, IBV_QPT_UC) == NULL, "on UC");
	ROCE_TEST_ASSERT(roce_wr_info_get(IBV_WR_DRIVER1, IBV_QPT_RC) == NULL, "a gap");
	ROCE_TEST_ASSERT(roce_wr_info_get(ROCE_WR_NB, IBV_QPT_RC) == NULL, "past the table");
	ROCE_TEST_ASSERT(roce_wr_info_get(IBV_WR_SEND, IBV_QPT_XRC_SEND) == NULL, "XRC");
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "wire_opcodes_exist_at_their_position", test_opcodes_exist },
	{ "multi_packet_sequences_follow", test_sequences },
	{ "flags_agree_with_opcode_table", test_flags_agree },
	{ "every_request_opcode_sent", test_every_request_sent },
	{ "lookup_by_qp_type", test_lookup },
};

int
main(void)
{
	return roce_test_run(cases, RTE_DIM(cases));
}
