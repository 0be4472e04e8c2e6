/* SPDX-License-Identifier: BSD-3-Clause */

/* Many RC QP pairs for the scale test and benchmark (roce_test_scale.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <rte_roce.h>

#include "roce_dev.h"
#include "roce_mr.h"
#include "roce_qp.h"
#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_scale.h"

/*
 * DPDK's heap element header: struct malloc_elem is 88 bytes of pointers,
 * sizes and state, cache aligned to 128 (no trailer without
 * RTE_MALLOC_DEBUG; lib/eal/common/malloc_elem.h). What every rte_malloc
 * costs on top of its size rounded to a cache line.
 */
#define SCALE_MALLOC_ELEM_HEADER	(2 * RTE_CACHE_LINE_SIZE)
/* WQE slots are rounded to this (roce_qp.c ROCE_WQE_ALIGN). */
#define SCALE_WQE_ALIGN			16
/* Completions taken per rte_roce_poll_cq(). */
#define SCALE_WC_BURST			32

uint64_t
roce_test_scale_heap_bytes(void)
{
	struct rte_malloc_socket_stats st;
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < rte_socket_count(); i++) {
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			sum += st.heap_allocsz_bytes;
	}
	return sum;
}

/* What one rte_malloc of size bytes takes from the heap. */
static uint64_t
scale_elem_bytes(uint64_t size)
{
	return RTE_ALIGN_CEIL(size, RTE_CACHE_LINE_SIZE) + SCALE_MALLOC_ELEM_HEADER;
}

uint64_t
roce_test_scale_qp_bytes(struct ibv_qp *ibqp)
{
	const struct ibv_qp_cap *cap = &roce_qp_of(ibqp)->cap;
	uint64_t send_room, send_stride, recv_stride;

	send_room = RTE_MAX(cap->max_send_sge * sizeof(struct roce_sge), cap->max_inline_data);
	send_stride = RTE_ALIGN_CEIL(sizeof(struct roce_send_wqe) + send_room, SCALE_WQE_ALIGN);
	recv_stride = RTE_ALIGN_CEIL(sizeof(struct roce_recv_wqe) +
				     cap->max_recv_sge * sizeof(struct roce_sge), SCALE_WQE_ALIGN);
	return scale_elem_bytes(sizeof(struct roce_qp)) +
	       scale_elem_bytes(cap->max_send_wr * send_stride) +
	       scale_elem_bytes(cap->max_recv_wr * recv_stride);
}

uint64_t
roce_test_scale_lanes_bytes(uint16_t nb_lanes, uint32_t slots)
{
	/* roce_dev.c roce_dev_lanes_init(), roce_dev_lane_init() */
	uint64_t sum = scale_elem_bytes(nb_lanes * sizeof(struct roce_lane)) +
		       nb_lanes * scale_elem_bytes((uint64_t)rte_ring_get_memsize(slots));

	if (nb_lanes > 1)
		sum += nb_lanes * (scale_elem_bytes(nb_lanes * sizeof(struct rte_ring *)) +
				   (nb_lanes - 1u) *
				   scale_elem_bytes((uint64_t)rte_ring_get_memsize(ROCE_LANE_HANDOFF_RING)));
	return sum;
}

int
roce_test_scale_qp_create(struct roce_test_side *s, const struct scale_caps *caps,
			  struct ibv_qp **qp)
{
	return roce_test_scale_qp_create_lane(s, caps, 0, qp);
}

int
roce_test_scale_qp_create_lane(struct roce_test_side *s, const struct scale_caps *caps,
			       uint16_t lane, struct ibv_qp **qp)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = lane == 0 ? s->scq : s->lane_cq[lane],
		.recv_cq = lane == 0 ? s->rcq : s->lane_cq[lane],
		.cap = { .max_send_wr = caps->send_wr, .max_recv_wr = caps->recv_wr,
			 .max_send_sge = caps->send_sge, .max_recv_sge = caps->recv_sge,
			 .max_inline_data = caps->inline_data },
		.qp_type = IBV_QPT_RC,
	};

	*qp = rte_roce_create_qp(s->pd, &ia);
	return *qp != NULL ? 0 : -1;
}

/* The side's send CQ and lane CQs again with cqe entries each (they are empty: no QP yet). */
static int
scale_cqs_resize(struct roce_test_side *s, uint32_t cqe)
{
	uint16_t l;

	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(s->scq), 0, "destroy scq");
	s->scq = rte_roce_create_cq(s->ctx, (int)cqe, NULL, NULL, 0);
	ROCE_TEST_ASSERT(s->scq != NULL, "scq of %u: %s", cqe, rte_strerror(rte_errno));
	for (l = 1; l < s->nb_lanes; l++) {
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(s->lane_cq[l]), 0, "destroy lane CQ");
		s->lane_cq[l] = rte_roce_create_cq(s->ctx, (int)cqe, NULL, NULL, l);
		ROCE_TEST_ASSERT(s->lane_cq[l] != NULL, "CQ of lane %u: %s", l,
				 rte_strerror(rte_errno));
	}
	return 0;
}

int
roce_test_scale_open(struct roce_test_scale *sc)
{
	/* max_qp counts QP1 */
	struct rte_roce_dev_conf conf = { .max_qp = sc->nqps + RTE_ROCE_QP1_QPN };
	struct rte_roce_dev_conf conf0 = conf;
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0);
	struct roce_test_pair *pair = sc->pair != NULL ? sc->pair : &roce_test_verbs_pair;
	uint16_t w;

	memset(sc->s, 0, sizeof(sc->s));
	/* The peer runs inline with a lane per queue: the pair gives both ports as many. */
	ROCE_TEST_ASSERT(RTE_MAX(sc->workers0, 1) == RTE_MAX(pair->nb_queues, 1),
			 "%u workers on a pair of %u queues", sc->workers0, pair->nb_queues);
	if (sc->workers0 > 1)
		conf.nb_lanes = sc->workers0;
	sc->baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	ROCE_TEST_ASSERT(sc->workers0 <= RTE_ROCE_DEV_WORKERS_MAX, "workers");
	conf0.nb_workers = sc->workers0;
	/* 0: the default; never below the CQs roce_test_side_open_conf() makes first */
	conf0.max_cqe = sc->cqe0 > ROCE_TEST_CQ_LEN ? sc->cqe0 : 0;
	for (w = 0; w < sc->workers0; w++) {
		ROCE_TEST_ASSERT(lcore < RTE_MAX_LCORE, "worker lcore %u of %u", w, sc->workers0);
		conf0.lcores[w] = (uint16_t)lcore;
		lcore = rte_get_next_lcore(lcore, 1, 0);
	}
	if (roce_test_side_open_conf(&sc->s[0], pair->a, ROCE_TEST_ADDR_A, false, &conf0) != 0 ||
	    roce_test_side_open_conf(&sc->s[1], pair->b, ROCE_TEST_ADDR_B, true,
				     &conf) != 0)
		return -1;
	if (sc->cqe0 != 0 && scale_cqs_resize(&sc->s[0], sc->cqe0) != 0)
		return -1;
	return 0;
}

int
roce_test_scale_create(struct roce_test_scale *sc)
{
	unsigned int i, side;

	for (i = 0; i < sc->nqps; i++) {
		for (side = 0; side < 2; side++)
			ROCE_TEST_ASSERT_EQ(roce_test_scale_qp_create(&sc->s[side], &sc->caps,
								      &sc->qp[side][i]), 0,
					    "create qp %u of side %u: %s", i, side,
					    rte_strerror(rte_errno));
	}
	return 0;
}

int
roce_test_scale_connect(struct roce_test_scale *sc)
{
	struct roce_test_conf conf = roce_test_default_conf;
	const struct roce_test_conf *c = &conf;
	unsigned int i;

	if (sc->timeout != 0)
		conf.timeout = sc->timeout;

	for (i = 0; i < sc->nqps; i++) {
		if (roce_test_qp_connect(sc->qp[0][i], &sc->s[0], &sc->s[1], sc->qp[1][i]->qp_num,
					 c->psn_ab, c->psn_ba, c) != 0 ||
		    roce_test_qp_connect(sc->qp[1][i], &sc->s[1], &sc->s[0], sc->qp[0][i]->qp_num,
					 c->psn_ba, c->psn_ab, c) != 0)
			return -1;
	}
	return 0;
}

/* Take completions of cq; each must be the next of [first, first + n) by wr_id on side's QPs. */
static int
scale_take_wc(struct roce_test_scale *sc, unsigned int side, struct ibv_cq *cq, unsigned int first,
	      unsigned int n, unsigned int *got)
{
	struct ibv_wc wc[SCALE_WC_BURST];
	int r, k;

	r = rte_roce_poll_cq(cq, SCALE_WC_BURST, wc);
	ROCE_TEST_ASSERT(r >= 0, "poll_cq: %d", r);
	for (k = 0; k < r; k++) {
		unsigned int i = (unsigned int)wc[k].wr_id;

		ROCE_TEST_ASSERT(i >= first && i < first + n, "wr_id %u outside [%u, %u)", i,
				 first, first + n);
		ROCE_TEST_ASSERT_EQ(wc[k].status, IBV_WC_SUCCESS, "status of %u", i);
		ROCE_TEST_ASSERT_EQ(wc[k].qp_num, sc->qp[side][i]->qp_num, "qp_num of %u", i);
		ROCE_TEST_ASSERT_EQ(wc[k].opcode, side == 0 ? IBV_WC_SEND : IBV_WC_RECV,
				    "opcode of %u", i);
		if (side == 1)
			ROCE_TEST_ASSERT_EQ(wc[k].byte_len, ROCE_TEST_SCALE_MSG, "byte_len of %u", i);
	}
	*got += (unsigned int)r;
	return 0;
}

/*
 * One SEND on every pair, all posted before the first poll: every QP is
 * scheduled and arms its retransmit timer at once, the CQs are shared by
 * all. Returns the most retransmit timers armed at once on side 0.
 */
static int
scale_send_all(struct roce_test_scale *sc, unsigned int *armed_max)
{
	struct roce_test_side *a = &sc->s[0], *b = &sc->s[1];
	const struct roce_timer_wheel *wheel = &roce_dev_of(a->ctx)->lanes[0].timers;
	unsigned int i, n = sc->nqps, sent = 0, recvd = 0;
	uint64_t end;

	for (i = 0; i < n; i++) {
		uint32_t off = i * ROCE_TEST_SCALE_SLOT;

		if (roce_test_post_recv(sc->qp[1][i], i, b->buf + off, ROCE_TEST_SCALE_MSG,
					b->mr->lkey) != 0 ||
		    roce_test_post_send(sc->qp[0][i], IBV_WR_SEND, i, a->buf + off,
					ROCE_TEST_SCALE_MSG, a->mr->lkey, 0, 0,
					IBV_SEND_SIGNALED) != 0)
			return -1;
	}
	*armed_max = 0;
	end = roce_test_ms() + ROCE_TEST_WAIT_MS;
	while ((sent < n || recvd < n) && roce_test_ms() < end) {
		rte_roce_poll(a->ctx);
		*armed_max = RTE_MAX(*armed_max, wheel->armed);
		rte_roce_poll(b->ctx);
		if (scale_take_wc(sc, 0, a->scq, 0, n, &sent) != 0 ||
		    scale_take_wc(sc, 1, b->rcq, 0, n, &recvd) != 0)
			return -1;
	}
	ROCE_TEST_ASSERT(sent == n && recvd == n, "%u sends, %u receives of %u", sent, recvd, n);
	return 0;
}

int
roce_test_scale_send_each(struct roce_test_scale *sc, unsigned int *armed_max)
{
	uint8_t *src = sc->s[0].buf, *dst = sc->s[1].buf;
	unsigned int i;

	ROCE_TEST_ASSERT(sc->nqps * ROCE_TEST_SCALE_SLOT <= ROCE_TEST_BUF_LEN, "buffer room");
	for (i = 0; i < sc->nqps; i++)
		roce_test_fill(src + i * ROCE_TEST_SCALE_SLOT, ROCE_TEST_SCALE_MSG, i);
	memset(dst, 0, ROCE_TEST_BUF_LEN);
	if (scale_send_all(sc, armed_max) != 0)
		return -1;
	/* every message landed in its own QP's slot */
	for (i = 0; i < sc->nqps; i++)
		ROCE_TEST_ASSERT(memcmp(dst + i * ROCE_TEST_SCALE_SLOT,
					src + i * ROCE_TEST_SCALE_SLOT, ROCE_TEST_SCALE_MSG) == 0,
				 "payload of pair %u", i);
	return 0;
}

uint64_t
roce_test_scale_tx_full(struct roce_test_scale *sc)
{
	struct rte_roce_port_stats st;
	uint64_t sum = 0;
	unsigned int side;

	for (side = 0; side < 2; side++) {
		if (rte_roce_port_stats_get(sc->s[side].port, &st) == 0)
			sum += st.drops[RTE_ROCE_PORT_DROP_TX_FULL];
	}
	return sum;
}

int
roce_test_scale_close(struct roce_test_scale *sc)
{
	int ret = 0;

	ret |= roce_test_side_close(&sc->s[0], sc->qp[0], sc->nqps);
	ret |= roce_test_side_close(&sc->s[1], sc->qp[1], sc->nqps);
	ret |= roce_test_pair_release(sc->pair != NULL ? sc->pair : &roce_test_verbs_pair,
				      &sc->s[0].port, &sc->s[1].port, sc->baseline);
	return ret;
}

int
roce_test_scale_main(const char *prog, const struct roce_test_case *cases,
		     unsigned int nb_cases)
{
	static const char *const eal_args[] = { "-m", ROCE_TEST_SCALE_MEM_MB, NULL };

	if (roce_test_eal_init(prog, eal_args) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&roce_test_verbs_pair, "scale") != 0)
		return 1;
	return roce_test_run(cases, nb_cases);
}
