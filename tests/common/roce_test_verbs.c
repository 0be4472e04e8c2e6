/* SPDX-License-Identifier: BSD-3-Clause */

/* Two librte_roce devices over a net_ring pair: see roce_test_verbs.h. */

#include <arpa/inet.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>

/* The engine's counters, to tell which recovery path ran. */
#include "roce_dev.h"

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_verbs.h"

struct roce_test_pair roce_test_verbs_pair;

const struct roce_test_conf roce_test_default_conf = {
	.mtu = IBV_MTU_1024,
	.psn_ab = 100,
	.psn_ba = 2000,
	.qp_access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	.timeout = 14,
	.retry_cnt = ROCE_TEST_RETRY_CNT,
	.rnr_retry = ROCE_TEST_RNR_INFINITE,
	.min_rnr_timer = ROCE_TEST_RNR_TIMER_10US,
	.max_rd_atomic = ROCE_TEST_RD_ATOM,
};

void
roce_test_pump_env(struct roce_test_env *e)
{
	if (!e->external[0])
		rte_roce_poll(e->s[0].ctx);
	if (!e->external[1])
		rte_roce_poll(e->s[1].ctx);
}

const struct roce_transport_stats *
roce_test_xstats(struct roce_test_side *s)
{
	return &roce_dev_of(s->ctx)->lanes[0].xstats;
}

uint64_t
roce_test_xstat(struct ibv_context *ctx, const char *name)
{
	uint64_t v = UINT64_MAX;

	if (rte_roce_xstats_get_by_name(ctx, name, &v) != 0)
		printf("# no xstat %s\n", name);
	return v;
}

const struct roce_test_xfer roce_test_lane_table[ROCE_TEST_LANE_TABLE_LEN] = {
	{ IBV_WR_SEND, 0, 0 }, { IBV_WR_SEND, 4000, 1 }, { IBV_WR_SEND_WITH_IMM, 100, 0 },
	{ IBV_WR_RDMA_WRITE, 64 << 10, 0 }, { IBV_WR_RDMA_WRITE_WITH_IMM, 2048, 1 },
	{ IBV_WR_RDMA_READ, 64 << 10, 1 }, { IBV_WR_RDMA_READ, 1, 0 },
};

int
roce_test_lane_table_run(struct roce_test_env *e, unsigned int i, unsigned int *seed)
{
	const struct roce_test_xfer *x;
	unsigned int k;

	for (k = 0; k < ROCE_TEST_LANE_TABLE_LEN; k++) {
		x = &roce_test_lane_table[k];
		ROCE_TEST_ASSERT_EQ(roce_test_transfer(e, x->from, i, x->op, x->len,
						       ROCE_TEST_DATA_OFF, (*seed)++), 0,
				    "pair %u, transfer %u", i, k);
	}
	return 0;
}

int
roce_test_side_open(struct roce_test_side *s, uint16_t eth, const char *addr, bool rte_mem)
{
	return roce_test_side_open_conf(s, eth, addr, rte_mem, NULL);
}

int
roce_test_side_open_conf(struct roce_test_side *s, uint16_t eth, const char *addr, bool rte_mem,
			 const struct rte_roce_dev_conf *conf)
{
	const char *addrs[] = { addr, NULL };
	struct rte_roce_port_conf pc = { 0 };
	char with_len[32];
	union rte_roce_gid gid;
	uint16_t l;

	snprintf(with_len, sizeof(with_len), "%s/%u", addr, strchr(addr, ':') != NULL ? 64 : 24);
	addrs[0] = with_len;
	/* A port queue per lane of the device. */
	s->nb_lanes = conf != NULL ? RTE_MAX(RTE_MAX(conf->nb_workers, conf->nb_lanes), 1) : 1;
	pc.nb_queues = s->nb_lanes;
	s->port = roce_test_port(eth, &pc, addrs);
	ROCE_TEST_ASSERT(s->port != NULL, "port");
	s->ctx = rte_roce_open_device(s->port, conf);
	ROCE_TEST_ASSERT(s->ctx != NULL, "open device");
	s->pd = rte_roce_alloc_pd(s->ctx);
	s->scq = rte_roce_create_cq(s->ctx, ROCE_TEST_CQ_LEN, NULL, NULL, 0);
	s->rcq = rte_roce_create_cq(s->ctx, ROCE_TEST_CQ_LEN, NULL, NULL, 0);
	ROCE_TEST_ASSERT(s->pd != NULL && s->scq != NULL && s->rcq != NULL, "pd/cq");
	for (l = 1; l < s->nb_lanes; l++) {
		s->lane_cq[l] = rte_roce_create_cq(s->ctx, ROCE_TEST_CQ_LEN, NULL, NULL, l);
		ROCE_TEST_ASSERT(s->lane_cq[l] != NULL, "CQ of lane %u", l);
	}
	s->rte_mem = rte_mem;
	s->buf = rte_mem ? rte_zmalloc("rc_test", ROCE_TEST_BUF_LEN, 64) : calloc(1, ROCE_TEST_BUF_LEN);
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
roce_test_qp_create(struct roce_test_side *s, enum ibv_qp_type type, struct ibv_qp **qp)
{
	return roce_test_qp_create_lane(s, type, 0, qp);
}

int
roce_test_qp_create_lane(struct roce_test_side *s, enum ibv_qp_type type, uint16_t lane,
			 struct ibv_qp **qp)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = lane == 0 ? s->scq : s->lane_cq[lane],
		.recv_cq = lane == 0 ? s->rcq : s->lane_cq[lane],
		.cap = { .max_send_wr = 256, .max_recv_wr = 256, .max_send_sge = 4,
			 .max_recv_sge = 4, .max_inline_data = 64 },
		.qp_type = type,
	};

	*qp = rte_roce_create_qp(s->pd, &ia);
	ROCE_TEST_ASSERT(*qp != NULL, "create_qp");
	return 0;
}

void
roce_test_sockaddr(struct sockaddr_storage *ss, bool ipv6, unsigned int side, uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (ipv6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		inet_pton(AF_INET6, side == 0 ? ROCE_TEST_ADDR6_A : ROCE_TEST_ADDR6_B, &s6->sin6_addr);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		inet_pton(AF_INET, side == 0 ? ROCE_TEST_ADDR_A : ROCE_TEST_ADDR_B, &s4->sin_addr);
	}
}

/* RESET -> INIT -> RTR -> RTS, as ibv_rc_pingpong (ibv_uc_pingpong for UC) does. */
int
roce_test_qp_connect(struct ibv_qp *qp, const struct roce_test_side *self,
		     const struct roce_test_side *peer, uint32_t peer_qpn, uint32_t sq_psn,
		     uint32_t rq_psn, const struct roce_test_conf *c)
{
	bool rc = qp->qp_type == IBV_QPT_RC;
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
					       (rc ? IBV_QP_MAX_DEST_RD_ATOMIC |
						IBV_QP_MIN_RNR_TIMER : 0)), 0, "RTR");
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS,
		.timeout = c->timeout,
		.retry_cnt = c->retry_cnt,
		.rnr_retry = c->rnr_retry,
		.sq_psn = sq_psn,
		.max_rd_atomic = c->max_rd_atomic,
	};
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
					       (rc ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
						IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC : 0)),
			    0, "RTS");
	return 0;
}

int
roce_test_ud_qp_ready(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = qkey };

	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT | IBV_QP_QKEY), 0, "UD INIT");
	a.qp_state = IBV_QPS_RTR;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &a, IBV_QP_STATE), 0, "UD RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = ROCE_TEST_UD_PSN;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), 0, "UD RTS");
	return 0;
}

struct ibv_ah *
roce_test_ah_create(struct roce_test_side *s, const char *dgid)
{
	struct ibv_ah_attr attr = { .is_global = 1, .port_num = 1 };
	union rte_roce_gid gid;
	struct ibv_ah *ah;

	if (rte_roce_gid_parse(dgid, &gid) != 0)
		return NULL;
	memcpy(attr.grh.dgid.raw, gid.raw, sizeof(gid.raw));
	attr.grh.sgid_index = s->gid_index;
	attr.grh.hop_limit = 1;
	ah = rte_roce_create_ah(s->pd, &attr);
	if (ah == NULL)
		printf("# create_ah %s: %s\n", dgid, rte_strerror(rte_errno));
	return ah;
}

/* Connect QP pair i of e. */
int
roce_test_pair_connect(struct roce_test_env *e, unsigned int i, const struct roce_test_conf *c)
{
	if (roce_test_qp_connect(e->qp[0][i], &e->s[0], &e->s[1], e->qp[1][i]->qp_num, c->psn_ab,
		       c->psn_ba, c) != 0)
		return -1;
	return roce_test_qp_connect(e->qp[1][i], &e->s[1], &e->s[0], e->qp[0][i]->qp_num, c->psn_ba,
			  c->psn_ab, c);
}

int
roce_test_env_open(struct roce_test_env *e, const struct roce_test_conf *c, unsigned int nqps)
{
	enum ibv_qp_type type = c->qp_type != 0 ? c->qp_type : IBV_QPT_RC;
	uint16_t lanes_a, lanes_b;
	unsigned int i;

	memset(e, 0, sizeof(*e));
	e->baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	e->nqps = nqps;
	e->pair = c->pair != NULL ? c->pair : &roce_test_verbs_pair;
	if (roce_test_side_open_conf(&e->s[0], e->pair->a,
				     c->ipv6 ? ROCE_TEST_ADDR6_A : ROCE_TEST_ADDR_A, false,
				     c->dev_conf[0]) != 0 ||
	    roce_test_side_open_conf(&e->s[1], e->pair->b,
				     c->ipv6 ? ROCE_TEST_ADDR6_B : ROCE_TEST_ADDR_B, true,
				     c->dev_conf[1]) != 0)
		return -1;
	/* With lanes, the pairs go through every (lane of a, lane of b) in turn. */
	lanes_a = e->s[0].nb_lanes;
	lanes_b = e->s[1].nb_lanes;
	for (i = 0; i < nqps; i++) {
		if (roce_test_qp_create_lane(&e->s[0], type, i % lanes_a, &e->qp[0][i]) != 0 ||
		    roce_test_qp_create_lane(&e->s[1], type, (i / lanes_a) % lanes_b,
					     &e->qp[1][i]) != 0)
			return -1;
	}
	for (i = 0; i < nqps; i++) {
		if (roce_test_pair_connect(e, i, c) != 0)
			return -1;
	}
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
	for (i = 1; i < s->nb_lanes; i++) {
		if (s->lane_cq[i] != NULL)
			ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(s->lane_cq[i]), 0, "destroy lane CQ");
	}
	if (s->pd != NULL)
		ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(s->pd), 0, "dealloc pd");
	if (s->ctx != NULL)
		ROCE_TEST_ASSERT_EQ(rte_roce_close_device(s->ctx), 0, "close");
	return 0;
}

int
roce_test_env_close(struct roce_test_env *e)
{
	int ret = 0;

	ret |= roce_test_side_close(&e->s[0], e->qp[0], e->nqps);
	ret |= roce_test_side_close(&e->s[1], e->qp[1], e->nqps);
	ret |= roce_test_pair_release(e->pair != NULL ? e->pair : &roce_test_verbs_pair,
				      &e->s[0].port, &e->s[1].port, e->baseline);
	return ret;
}

/* Poll both devices until cq gave n completions; returns how many it gave. */
int
roce_test_wait_wc(struct roce_test_env *e, struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	return roce_test_wait_wc_ctx(e->external[0] ? NULL : e->s[0].ctx,
				     e->external[1] ? NULL : e->s[1].ctx, cq, wc, n, ROCE_TEST_WAIT_MS);
}

int
roce_test_wait_wc_ctx(struct ibv_context *a, struct ibv_context *b, struct ibv_cq *cq,
		      struct ibv_wc *wc, int n, unsigned int timeout_ms)
{
	uint64_t end = roce_test_ms() + timeout_ms;
	int got = 0, r;

	while (got < n && roce_test_ms() < end) {
		if (a != NULL)
			rte_roce_poll(a);
		if (b != NULL)
			rte_roce_poll(b);
		r = rte_roce_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
	}
	return got;
}

/* Completions a write stream takes per poll. */
#define ROCE_TEST_STREAM_POLL 256u

int
roce_test_write_stream(struct roce_test_stream *st)
{
	uint64_t end = roce_test_ms() + st->timeout_ms;
	struct ibv_wc wc[ROCE_TEST_STREAM_POLL];
	uint32_t posted = 0;
	int n, i;

	while (st->done < st->count && roce_test_ms() < end) {
		while (posted < st->count && posted - st->done < st->window) {
			if (roce_test_post_send(st->qp, IBV_WR_RDMA_WRITE, posted, st->laddr, st->len,
						st->lkey, st->raddr, st->rkey, IBV_SEND_SIGNALED) != 0)
				return -1;
			posted++;
		}
		n = rte_roce_poll_cq(st->qp->send_cq, RTE_MIN(st->window, ROCE_TEST_STREAM_POLL), wc);
		ROCE_TEST_ASSERT(n >= 0, "poll_cq: %d", n);
		/* More threads than cores: let the progress threads run. */
		if (n == 0)
			sched_yield();
		for (i = 0; i < n; i++) {
			ROCE_TEST_ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS, "QP 0x%x", st->qp->qp_num);
			ROCE_TEST_ASSERT_EQ(wc[i].wr_id, st->done, "QP 0x%x: order", st->qp->qp_num);
			ROCE_TEST_ASSERT_EQ(wc[i].qp_num, st->qp->qp_num, "QP");
			st->done++;
		}
	}
	ROCE_TEST_ASSERT_EQ(st->done, st->count, "QP 0x%x: completions", st->qp->qp_num);
	/* Nothing more: each WR completed once. */
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(st->qp->send_cq, 1, wc), 0, "QP 0x%x: extra",
			    st->qp->qp_num);
	return 0;
}

void
roce_test_stream_init(struct roce_test_stream *st, struct roce_test_env *e, struct ibv_qp *qp,
		      uint32_t off, uint32_t len, uint32_t count, uint32_t window,
		      uint32_t timeout_ms)
{
	const struct roce_test_side *a = &e->s[0], *b = &e->s[1];

	memset(st, 0, sizeof(*st));
	st->qp = qp;
	st->laddr = a->buf + off;
	st->lkey = a->mr->lkey;
	st->raddr = (uintptr_t)(b->buf + off);
	st->rkey = b->mr->rkey;
	st->len = len;
	st->count = count;
	st->window = window;
	st->timeout_ms = timeout_ms;
}

void *
roce_test_stream_thread(void *arg)
{
	struct roce_test_stream *st = arg;

	st->rc = roce_test_write_stream(st);
	__atomic_store_n(&st->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

void
roce_test_streams_wait(struct ibv_context *ctx, struct roce_test_stream *const *st, unsigned int n)
{
	unsigned int i, left = n;

	while (left > 0) {
		rte_roce_poll(ctx);
		for (i = 0, left = 0; i < n; i++)
			left += __atomic_load_n(&st[i]->finished, __ATOMIC_ACQUIRE) == 0;
	}
}

/* Nothing more arrives on cq for a while. */
int
roce_test_expect_quiet(struct roce_test_env *e, struct ibv_cq *cq)
{
	uint64_t end = roce_test_ms() + ROCE_TEST_QUIET_MS;
	struct ibv_wc wc;

	while (roce_test_ms() < end) {
		roce_test_pump_env(e);
		ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(cq, 1, &wc), 0,
				    "unexpected completion wr_id %llu status %d",
				    (unsigned long long)wc.wr_id, wc.status);
	}
	return 0;
}

int
roce_test_post_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = len > 0 };
	struct ibv_recv_wr *bad;

	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(qp, &wr, &bad), 0, "post_recv");
	return 0;
}

/* One send WR; laddr/len the local buffer, raddr/rkey the remote one. */
int
roce_test_post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t wr_id, void *laddr,
		    uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey, int flags)
{
	struct ibv_sge sge = { .addr = (uintptr_t)laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = len > 0,
		.opcode = op,
		.send_flags = flags,
	};
	struct ibv_send_wr *bad;

	if (op == IBV_WR_SEND_WITH_INV)
		wr.invalidate_rkey = rkey;
	else
		wr.imm_data = htonl(ROCE_TEST_IMM);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(qp, &wr, &bad), 0, "post_send op %d", op);
	return 0;
}

int
roce_test_post_atomic(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t wr_id, void *laddr,
		      uint32_t lkey, uint64_t raddr, uint32_t rkey, uint64_t compare_add,
		      uint64_t swap)
{
	struct ibv_sge sge = { .addr = (uintptr_t)laddr, .length = 8, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(qp, &wr, &bad), 0, "post atomic");
	return 0;
}

void
roce_test_fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

/* Canaries around [off, off + len) of buf. */
void
roce_test_canaries_set(uint8_t *buf, uint32_t off, uint32_t len)
{
	memset(buf + off - ROCE_TEST_CANARY_LEN, ROCE_TEST_CANARY, ROCE_TEST_CANARY_LEN);
	memset(buf + off + len, ROCE_TEST_CANARY, ROCE_TEST_CANARY_LEN);
}

int
roce_test_canaries_check(const uint8_t *buf, uint32_t off, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < ROCE_TEST_CANARY_LEN; i++) {
		ROCE_TEST_ASSERT_EQ(buf[off - ROCE_TEST_CANARY_LEN + i], ROCE_TEST_CANARY,
				    "canary before, byte %u", i);
		ROCE_TEST_ASSERT_EQ(buf[off + len + i], ROCE_TEST_CANARY, "canary after, byte %u", i);
	}
	return 0;
}

int
roce_test_check_wc(const struct ibv_wc *wc, uint64_t wr_id, enum ibv_wc_status status,
		   enum ibv_wc_opcode opcode, uint32_t byte_len, uint32_t qp_num)
{
	ROCE_TEST_ASSERT_EQ(wc->status, status, "status %d", wc->status);
	ROCE_TEST_ASSERT_EQ(wc->wr_id, wr_id, "wr_id");
	if (status != IBV_WC_SUCCESS)
		return 0;
	ROCE_TEST_ASSERT_EQ(wc->opcode, opcode, "opcode");
	ROCE_TEST_ASSERT_EQ(wc->byte_len, byte_len, "byte_len");
	ROCE_TEST_ASSERT_EQ(wc->qp_num, qp_num, "qp_num");
	return 0;
}

/* The receiver's view of a SEND or WRITE_WITH_IMM. */
int
roce_test_check_recv_wc(const struct ibv_wc *wc, enum ibv_wr_opcode op, uint64_t wr_id,
			uint32_t len, const struct ibv_qp *qp, const struct ibv_qp *src)
{
	bool write = op == IBV_WR_RDMA_WRITE_WITH_IMM;

	if (roce_test_check_wc(wc, wr_id, IBV_WC_SUCCESS, write ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV,
		     len, qp->qp_num) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(wc->src_qp, src->qp_num, "src_qp");
	if (op == IBV_WR_SEND_WITH_IMM || write) {
		ROCE_TEST_ASSERT_EQ(wc->wc_flags & IBV_WC_WITH_IMM, IBV_WC_WITH_IMM, "WITH_IMM");
		ROCE_TEST_ASSERT_EQ(ntohl(wc->imm_data), ROCE_TEST_IMM, "imm_data");
	} else if (op == IBV_WR_SEND_WITH_INV) {
		/* invalidated_rkey: the caller knows which key it sent. */
		ROCE_TEST_ASSERT_EQ(wc->wc_flags & IBV_WC_WITH_INV, IBV_WC_WITH_INV, "WITH_INV");
	} else {
		ROCE_TEST_ASSERT_EQ(wc->wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV), 0, "flags");
	}
	return 0;
}

enum ibv_wc_opcode
roce_test_send_wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	default:
		return IBV_WC_SEND;
	}
}

/*
 * One message of len bytes with op from e's side `from` on QP pair i,
 * at offset off of both buffers; checks data, canaries and completions.
 */
int
roce_test_transfer(struct roce_test_env *e, unsigned int from, unsigned int i,
		   enum ibv_wr_opcode op, uint32_t len, uint32_t off, uint32_t seed)
{
	struct roce_test_side *src = &e->s[from], *dst = &e->s[!from];
	struct ibv_qp *sqp = e->qp[from][i], *dqp = e->qp[!from][i];
	bool read = op == IBV_WR_RDMA_READ;
	/* Data flows from `data_from` to `data_to`. */
	struct roce_test_side *data_from = read ? dst : src, *data_to = read ? src : dst;
	bool recv = op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
		    op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE_WITH_IMM;
	struct ibv_mr *inv_mr = NULL;
	uint32_t rkey = dst->mr->rkey;
	struct ibv_wc wc;
	uint64_t wr_id = ((uint64_t)seed << 8) | op;

	if (op == IBV_WR_SEND_WITH_INV) {
		/* A key of its own to invalidate: the buffer's MR stays valid. */
		inv_mr = rte_roce_reg_mr(dst->pd, dst->buf, ROCE_TEST_DATA_OFF,
					 IBV_ACCESS_REMOTE_READ);
		ROCE_TEST_ASSERT(inv_mr != NULL, "MR to invalidate");
		rkey = inv_mr->rkey;
	}
	roce_test_fill(data_from->buf + off, len, seed);
	memset(data_to->buf + off, 0, len);
	roce_test_canaries_set(data_to->buf, off, len);
	if (recv) {
		/* SEND lands in a buffer larger than the message; WRITE_WITH_IMM needs no SGE. */
		if (roce_test_post_recv(dqp, wr_id, dst->buf + off,
			      op == IBV_WR_RDMA_WRITE_WITH_IMM ? 0 : len + ROCE_TEST_CANARY_LEN / 2,
			      dst->mr->lkey) != 0)
			return -1;
		/* Bytes after the message inside the receive buffer stay as they were. */
	}
	if (roce_test_post_send(sqp, op, wr_id, src->buf + off, len, src->mr->lkey,
		      (uintptr_t)(dst->buf + off), rkey, IBV_SEND_SIGNALED) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, sqp->send_cq, &wc, 1), 1,
			    "send completion, op %d len %u", op, len);
	if (roce_test_check_wc(&wc, wr_id, IBV_WC_SUCCESS, roce_test_send_wc_opcode(op), len,
			       sqp->qp_num) != 0)
		return -1;
	if (recv) {
		ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, dqp->recv_cq, &wc, 1), 1, "recv completion");
		if (roce_test_check_recv_wc(&wc, op, wr_id, len, dqp, sqp) != 0)
			return -1;
		if (inv_mr != NULL) {
			ROCE_TEST_ASSERT_EQ(wc.invalidated_rkey, rkey, "invalidated_rkey");
			ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(inv_mr), 0, "dereg the invalidated MR");
		}
	} else if (sqp->qp_type == IBV_QPT_UC) {
		/* A UC WRITE completes when sent, and nothing tells when it landed. */
		uint64_t end = roce_test_ms() + ROCE_TEST_WAIT_MS;

		while (memcmp(data_from->buf + off, data_to->buf + off, len) != 0 &&
		       roce_test_ms() < end)
			roce_test_pump_env(e);
	}
	ROCE_TEST_ASSERT(memcmp(data_from->buf + off, data_to->buf + off, len) == 0,
			 "data differs, op %d len %u", op, len);
	return roce_test_canaries_check(data_to->buf, off, len);
}

/* One real SEND first, so that both neighbour caches know the other. */
int
roce_test_warm_up(struct roce_test_env *e)
{
	struct ibv_wc wc;

	if (roce_test_post_recv(e->qp[1][0], 1, e->s[1].buf, 64, e->s[1].mr->lkey) != 0 ||
	    roce_test_post_send(e->qp[0][0], IBV_WR_SEND, 1, e->s[0].buf, 8, e->s[0].mr->lkey, 0, 0,
		      IBV_SEND_SIGNALED) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, e->s[0].scq, &wc, 1), 1, "warm-up send");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, e->s[1].rcq, &wc, 1), 1, "warm-up recv");
	return 0;
}

/* Frames b will receive (ring 1), after polling a until at least n are there. */
int
roce_test_frames_to_b(struct roce_test_env *e, unsigned int n)
{
	uint64_t end = roce_test_ms() + ROCE_TEST_WAIT_MS;

	while (rte_ring_count(roce_test_verbs_pair.ring[1]) < n && roce_test_ms() < end)
		rte_roce_poll(e->s[0].ctx);
	ROCE_TEST_ASSERT_EQ(rte_ring_count(roce_test_verbs_pair.ring[1]), n, "frames from a");
	return 0;
}

/* Take the frames in ring r, drop those whose bit is set in drop_mask, put the rest back. */
int
roce_test_drop_frames(unsigned int r, uint64_t drop_mask)
{
	struct rte_mbuf *m[64];
	unsigned int n, i;

	n = rte_ring_dequeue_burst(roce_test_verbs_pair.ring[r], (void **)m, RTE_DIM(m), NULL);
	for (i = 0; i < n; i++) {
		if (drop_mask & (UINT64_C(1) << i))
			rte_pktmbuf_free(m[i]);
		else
			ROCE_TEST_ASSERT_EQ(rte_ring_enqueue(roce_test_verbs_pair.ring[r], m[i]), 0,
					    "requeue");
	}
	return 0;
}
