/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * A peer that misbehaves (issue 19): side a's requests are taken off the
 * wire before b sees them and hand-made responses come back in b's name
 * (roce_test_inject.h), or hand-made requests go to b. Each bad response
 * or request is dropped and counted, or fails its WR with the status
 * doc/wire-format.md §5.4 gives; the QP goes on (or flushes) as IBTA
 * Vol. 1 §9.7 says:
 *
 * - an ACK of a PSN never sent completes nothing (rx_drop_resp_stale);
 * - an AETH of the reserved kind 10b is dropped (rx_drop_resp_stale);
 * - a NAK with a reserved code fails the WR with IBV_WC_REM_OP_ERR, as rxe,
 *   and flushes the WRs behind it;
 * - a READ response longer, or shorter, than asked fails the READ with
 *   IBV_WC_BAD_RESP_ERR, nothing written past what it asked for;
 * - a duplicate READ request older than every READ the responder holds is
 *   dropped (rx_drop_req_dup), answered by nothing.
 */

#include <string.h>

#include <rte_common.h>

#include <rte_roce.h>
#include <rte_roce_opcode.h>
#include <rte_roce_pkt.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_inject.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#define PEER_MSG	16		/* bytes of a SEND */
#define PEER_READ	100		/* bytes a READ asks for */
#define PEER_GHOST_FAR	1000		/* PSNs beyond the next */
#define PEER_DUP_BACK	100		/* how far behind ePSN the old READ is */
#define PEER_WAIT_MS	2000

/* One RC pair, warmed up, with a's requests and b's answers in the test's hands. */
struct peer {
	struct roce_test_env e;
	struct roce_test_inject in;
};

static int
peer_open(struct peer *p)
{
	/* A long ACK timeout: no retry while the test plays the responder. */
	struct roce_test_conf c = roce_test_default_conf;

	c.timeout = 20;
	if (roce_test_env_open(&p->e, &c, 1) != 0)
		return -1;
	return roce_test_inject_init(&p->in, &p->e);
}

/* a posts a WR; its request is taken off the wire: *psn is its PSN. */
static int
peer_request(struct peer *p, enum ibv_wr_opcode op, uint64_t wr_id, uint32_t len,
	     uint32_t *psn)
{
	struct roce_test_side *a = &p->e.s[0], *b = &p->e.s[1];
	struct rte_roce_pkt req;

	ROCE_TEST_ASSERT_EQ(roce_test_post_send(p->e.qp[0][0], op, wr_id,
						a->buf + ROCE_TEST_DATA_OFF, len, a->mr->lkey,
						(uintptr_t)b->buf + ROCE_TEST_DATA_OFF,
						b->mr->rkey, IBV_SEND_SIGNALED), 0, "post");
	ROCE_TEST_ASSERT_EQ(roce_test_inject_take_request(&p->in, &req), 0, "a's request");
	*psn = req.psn;
	return 0;
}

/* A response from "b" to a: an ACK or NAK of syndrome at psn, or a READ response of len bytes. */
static int
peer_respond(struct peer *p, uint8_t opcode, uint32_t psn, uint8_t syndrome, uint32_t len)
{
	static const uint8_t payload[ROCE_TEST_MSG_MAX / 256];
	struct rte_roce_pkt pkt;

	rte_roce_pkt_init(&pkt, opcode);
	pkt.psn = psn;
	pkt.aeth.syndrome = syndrome;
	pkt.payload_len = len;
	return roce_test_inject_response(&p->in, &pkt, len > 0 ? payload : NULL);
}

/* a alone makes progress: no completion comes. */
static int
peer_a_quiet(struct peer *p)
{
	struct ibv_wc wc;

	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc_ctx(p->e.s[0].ctx, NULL, p->e.s[0].scq, &wc, 1,
						  ROCE_TEST_QUIET_MS), 0,
			    "a completion (wr_id %lu, status %d)", (unsigned long)wc.wr_id, wc.status);
	return 0;
}

/* a's next completion is wr_id's, of status. */
static int
peer_a_wc(struct peer *p, uint64_t wr_id, enum ibv_wc_status status)
{
	struct ibv_wc wc;

	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc_ctx(p->e.s[0].ctx, NULL, p->e.s[0].scq, &wc, 1,
						  PEER_WAIT_MS), 1, "no completion of %lu",
			    (unsigned long)wr_id);
	ROCE_TEST_ASSERT_EQ(wc.wr_id, wr_id, "wr_id");
	ROCE_TEST_ASSERT_EQ(wc.status, status, "status of WR %lu", (unsigned long)wr_id);
	return 0;
}

static uint64_t
peer_stale(struct peer *p)
{
	return roce_test_xstat(p->e.s[0].ctx, "rx_drop_resp_stale");
}

/* A response that must be dropped: an ACK or NAK at the request's PSN + psn_off. */
struct peer_bad_ack {
	uint32_t psn_off;
	uint8_t syndrome;
};

/*
 * a's SEND gets the bad responses first: nothing completes, each is counted
 * as a stale response; then the real ACK completes the SEND, once.
 */
static int
peer_acks_dropped(const struct peer_bad_ack *bad, unsigned int nb_bad)
{
	struct peer p;
	uint32_t psn;
	uint64_t stale0;
	unsigned int i;
	int ret;

	ret = peer_open(&p);
	if (ret == 0)
		ret = peer_request(&p, IBV_WR_SEND, 1, PEER_MSG, &psn);
	stale0 = peer_stale(&p);
	for (i = 0; ret == 0 && i < nb_bad; i++)
		ret = peer_respond(&p, RTE_ROCE_OP_RC_ACKNOWLEDGE, psn + bad[i].psn_off,
				   bad[i].syndrome, 0);
	if (ret == 0)
		ret = peer_a_quiet(&p);
	if (ret == 0 && peer_stale(&p) - stale0 != nb_bad)
		ret = printf("# %lu responses dropped, not %u\n",
			     (unsigned long)(peer_stale(&p) - stale0), nb_bad) > 0 ? -1 : -1;
	if (ret == 0)
		ret = peer_respond(&p, RTE_ROCE_OP_RC_ACKNOWLEDGE, psn, RTE_ROCE_AETH_ACK_UNLIMITED, 0);
	if (ret == 0)
		ret = peer_a_wc(&p, 1, IBV_WC_SUCCESS);
	if (ret == 0)
		ret = peer_a_quiet(&p);
	return roce_test_env_close(&p.e) | ret;
}

/* ACKs and NAKs of PSNs a never sent (the next one, and far beyond) complete nothing. */
static int
test_ack_never_sent(void)
{
	static const struct peer_bad_ack ghosts[] = {
		{ 1, RTE_ROCE_AETH_ACK_UNLIMITED },
		{ PEER_GHOST_FAR, RTE_ROCE_AETH_ACK_UNLIMITED },
		{ 1, RTE_ROCE_AETH_NAK_REM_OP },
	};

	return peer_acks_dropped(ghosts, RTE_DIM(ghosts));
}

/* An AETH of the reserved kind means nothing: dropped, the WR still waits for its ACK. */
static int
test_aeth_reserved_kind(void)
{
	static const struct peer_bad_ack reserved[] = {
		{ 0, RTE_ROCE_AETH_TYPE_RESERVED | RTE_ROCE_AETH_CODE_MASK },
	};

	return peer_acks_dropped(reserved, RTE_DIM(reserved));
}

/* NAK codes 0x65-0x7f are reserved: the WR fails as for a remote operational error. */
static int
reserved_nak(uint8_t syndrome)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	struct peer p;
	uint32_t psn, psn2;
	int ret;

	ret = peer_open(&p);
	if (ret == 0)
		ret = peer_request(&p, IBV_WR_SEND, 1, PEER_MSG, &psn);
	if (ret == 0)
		ret = peer_request(&p, IBV_WR_SEND, 2, PEER_MSG, &psn2);
	if (ret == 0)
		ret = peer_respond(&p, RTE_ROCE_OP_RC_ACKNOWLEDGE, psn, syndrome, 0);
	if (ret == 0)
		ret = peer_a_wc(&p, 1, IBV_WC_REM_OP_ERR);
	if (ret == 0)
		ret = peer_a_wc(&p, 2, IBV_WC_WR_FLUSH_ERR);
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(p.e.qp[0][0], &attr, IBV_QP_STATE, &init), 0,
				    "query");
		ROCE_TEST_ASSERT_EQ(attr.qp_state, IBV_QPS_ERR, "QP state after NAK %#x", syndrome);
	}
	return roce_test_env_close(&p.e) | ret;
}

static int
test_nak_reserved_code(void)
{
	return reserved_nak(RTE_ROCE_AETH_TYPE_NAK | 0x05) |
	       reserved_nak(RTE_ROCE_AETH_TYPE_NAK | RTE_ROCE_AETH_CODE_MASK);
}

/* A READ answered by len bytes instead of PEER_READ: BAD_RESP_ERR, nothing written past it. */
static int
read_resp_len(uint32_t len)
{
	struct peer p;
	uint32_t psn;
	int ret;

	ret = peer_open(&p);
	if (ret == 0) {
		roce_test_canaries_set(p.e.s[0].buf, ROCE_TEST_DATA_OFF, PEER_READ);
		ret = peer_request(&p, IBV_WR_RDMA_READ, 1, PEER_READ, &psn);
	}
	if (ret == 0)
		ret = peer_respond(&p, RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, psn,
				   RTE_ROCE_AETH_ACK_UNLIMITED, len);
	if (ret == 0)
		ret = peer_a_wc(&p, 1, IBV_WC_BAD_RESP_ERR);
	if (ret == 0)
		ret = roce_test_canaries_check(p.e.s[0].buf, ROCE_TEST_DATA_OFF, PEER_READ);
	return roce_test_env_close(&p.e) | ret;
}

static int
test_read_resp_wrong_length(void)
{
	return read_resp_len(PEER_READ + 100) | read_resp_len(PEER_READ - 1);
}

/* A READ request to b at psn for len bytes of b's buffer. */
static int
peer_read_req(struct peer *p, uint32_t psn, uint32_t len)
{
	return roce_test_inject_reth(&p->in, RTE_ROCE_OP_RC_RDMA_READ_REQUEST, psn,
				     (uintptr_t)p->e.s[1].buf + ROCE_TEST_DATA_OFF, len, NULL, 0);
}

/*
 * A duplicate READ older than every READ b holds: nothing to replay from,
 * dropped and counted (K:rxe_resp.c duplicate_request); the one b holds is
 * still replayed, and the QP goes on.
 */
static int
test_dup_read_outside_window(void)
{
	uint8_t data[PEER_READ];
	struct rte_roce_pkt ans;
	struct peer p;
	uint32_t epsn;
	uint64_t dup0;
	int ret;

	ret = peer_open(&p);
	epsn = p.in.epsn;
	dup0 = roce_test_xstat(p.e.s[1].ctx, "rx_drop_req_dup");
	roce_test_fill(p.e.s[1].buf + ROCE_TEST_DATA_OFF, PEER_READ, 7);
	if (ret == 0)
		ret = peer_read_req(&p, epsn, PEER_READ) |
		      roce_test_expect_ack(&p.in, RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY,
					   RTE_ROCE_AETH_ACK_UNLIMITED, epsn);
	if (ret == 0)
		ret = peer_read_req(&p, epsn - PEER_DUP_BACK, PEER_READ) |
		      roce_test_expect_no_answer(&p.in);
	if (ret == 0 && roce_test_xstat(p.e.s[1].ctx, "rx_drop_req_dup") - dup0 != 1)
		ret = printf("# the old READ not counted as rx_drop_req_dup\n") > 0 ? -1 : -1;
	/* The READ b holds is replayed, bytes and all; the next PSN is served. */
	if (ret == 0)
		ret = peer_read_req(&p, epsn, PEER_READ) |
		      roce_test_inject_answer(&p.in, &ans, data);
	if (ret == 0 && (ans.opcode != RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY || ans.psn != epsn ||
			 memcmp(data, p.e.s[1].buf + ROCE_TEST_DATA_OFF, PEER_READ) != 0))
		ret = printf("# the held READ not replayed\n") > 0 ? -1 : -1;
	if (ret == 0)
		ret = peer_read_req(&p, epsn + 1, PEER_READ) |
		      roce_test_expect_ack(&p.in, RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY,
					   RTE_ROCE_AETH_ACK_UNLIMITED, epsn + 1);
	return roce_test_env_close(&p.e) | ret;
}

static const struct roce_test_case cases[] = {
	{ "peer_ack_never_sent", test_ack_never_sent },
	{ "peer_aeth_reserved_kind", test_aeth_reserved_kind },
	{ "peer_nak_reserved_code", test_nak_reserved_code },
	{ "peer_read_resp_wrong_length", test_read_resp_wrong_length },
	{ "peer_dup_read_outside_window", test_dup_read_outside_window },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&roce_test_verbs_pair, "rc_peer") != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
