/* SPDX-License-Identifier: BSD-3-Clause */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "roce_test.h"
#include "roce_test_port.h"
#include "roce_test_rc.h"

#define ROCE_TEST_PREFIX_V4	24
#define ROCE_TEST_PREFIX_V6	64
#define ROCE_TEST_ADDR_LEN	64
#define ROCE_TEST_BUF_ALIGN	64

const struct roce_test_rc_conf roce_test_rc_conf_default = {
	.mtu = IBV_MTU_1024,
	.psn_ab = 100,
	.psn_ba = 2000,
	.qp_access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	.timeout = 14,
	.retry_cnt = 7,
	.rnr_retry = 7,		/* forever */
	.min_rnr_timer = 1,	/* 10 us */
	.max_rd_atomic = ROCE_TEST_RD_ATOM,
};

int
roce_test_side_open(struct roce_test_side *s, uint16_t eth, const char *addr, bool rte_mem)
{
	const char *addrs[] = { NULL, NULL };
	char with_len[ROCE_TEST_ADDR_LEN];
	union rte_roce_gid gid;

	snprintf(with_len, sizeof(with_len), "%s/%u", addr,
		 strchr(addr, ':') != NULL ? ROCE_TEST_PREFIX_V6 : ROCE_TEST_PREFIX_V4);
	addrs[0] = with_len;
	s->port = roce_test_port(eth, NULL, addrs);
	ROCE_TEST_ASSERT(s->port != NULL, "port");
	s->ctx = rte_roce_open_device(s->port, NULL);
	ROCE_TEST_ASSERT(s->ctx != NULL, "open device");
	s->pd = rte_roce_alloc_pd(s->ctx);
	s->scq = rte_roce_create_cq(s->ctx, ROCE_TEST_CQ_LEN, NULL, NULL, 0);
	s->rcq = rte_roce_create_cq(s->ctx, ROCE_TEST_CQ_LEN, NULL, NULL, 0);
	ROCE_TEST_ASSERT(s->pd != NULL && s->scq != NULL && s->rcq != NULL, "pd/cq");
	s->rte_mem = rte_mem;
	s->buf = rte_mem ? rte_zmalloc("roce_test_buf", ROCE_TEST_BUF_LEN, ROCE_TEST_BUF_ALIGN) :
			   calloc(1, ROCE_TEST_BUF_LEN);
	ROCE_TEST_ASSERT(s->buf != NULL, "buffer");
	s->mr = rte_roce_reg_mr(s->pd, s->buf, ROCE_TEST_BUF_LEN, ROCE_TEST_ALL_ACCESS);
	ROCE_TEST_ASSERT(s->mr != NULL, "reg_mr");
	ROCE_TEST_ASSERT_EQ(rte_roce_gid_parse(addr, &gid), 0, "gid");
	s->gid_index = rte_roce_port_gid_find(s->port, &gid);
	ROCE_TEST_ASSERT(s->gid_index > 0, "gid index");
	memcpy(s->gid.raw, gid.raw, sizeof(s->gid.raw));
	return 0;
}

int
roce_test_side_close(struct roce_test_side *s, struct ibv_qp **qps, unsigned int nqps)
{
	unsigned int i;

	for (i = 0; i < nqps; i++) {
		if (qps[i] != NULL)
			ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qps[i]), 0, "destroy qp");
	}
	if (s->mr != NULL)
		ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(s->mr), 0, "dereg");
	if (s->buf != NULL) {
		if (s->rte_mem)
			rte_free(s->buf);
		else
			free(s->buf);
	}
	if (s->scq != NULL)
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(s->scq), 0, "destroy scq");
	if (s->rcq != NULL)
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(s->rcq), 0, "destroy rcq");
	if (s->pd != NULL)
		ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(s->pd), 0, "dealloc pd");
	if (s->ctx != NULL)
		ROCE_TEST_ASSERT_EQ(rte_roce_close_device(s->ctx), 0, "close");
	return 0;
}

int
roce_test_qp_connect(struct ibv_qp *qp, const struct roce_test_side *self,
		     const struct roce_test_side *peer, uint32_t peer_qpn, uint32_t sq_psn,
		     uint32_t rq_psn, const struct roce_test_rc_conf *c)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = c->qp_access,
	};

	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0, "INIT");
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR,
		.path_mtu = c->mtu,
		.dest_qp_num = peer_qpn,
		.rq_psn = rq_psn,
		.max_dest_rd_atomic = ROCE_TEST_RD_ATOM,
		.min_rnr_timer = c->min_rnr_timer,
		.ah_attr = {
			.is_global = 1,
			.port_num = 1,
			.grh = { .dgid = peer->gid, .sgid_index = self->gid_index,
				 .hop_limit = 64 },
		},
	};
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					       IBV_QP_MAX_DEST_RD_ATOMIC |
					       IBV_QP_MIN_RNR_TIMER), 0, "RTR");
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS,
		.timeout = c->timeout,
		.retry_cnt = c->retry_cnt,
		.rnr_retry = c->rnr_retry,
		.sq_psn = sq_psn,
		.max_rd_atomic = c->max_rd_atomic,
	};
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
					       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC), 0, "RTS");
	return 0;
}

int
roce_test_wait_wc(struct ibv_context *a, struct ibv_context *b, struct ibv_cq *cq,
		  struct ibv_wc *wc, int n, unsigned int timeout_ms)
{
	uint64_t end = roce_test_ms() + timeout_ms;
	int got = 0, r;

	while (got < n && roce_test_ms() < end) {
		rte_roce_poll(a);
		rte_roce_poll(b);
		r = rte_roce_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
	}
	return got;
}

int
roce_test_expect_quiet(struct ibv_context *a, struct ibv_context *b, struct ibv_cq *cq,
		       unsigned int ms)
{
	uint64_t end = roce_test_ms() + ms;
	struct ibv_wc wc;

	while (roce_test_ms() < end) {
		rte_roce_poll(a);
		rte_roce_poll(b);
		ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(cq, 1, &wc), 0,
				    "unexpected completion wr_id %llu status %d",
				    (unsigned long long)wc.wr_id, wc.status);
	}
	return 0;
}

int
roce_test_frames_wait(struct ibv_context *ctx, struct rte_ring *ring, unsigned int n,
		      unsigned int timeout_ms)
{
	uint64_t end = roce_test_ms() + timeout_ms;

	while (rte_ring_count(ring) < n && roce_test_ms() < end)
		rte_roce_poll(ctx);
	ROCE_TEST_ASSERT_EQ(rte_ring_count(ring), n, "frames in the ring");
	return 0;
}
