/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * RC end to end: two librte_roce devices in one process over a net_ring
 * pair, both driven from this thread. Every opcode and size, data checked
 * byte for byte and completions field by field; many QPs; PSN wrap; remote
 * access errors; RNR; a vanished peer; and hand-made duplicate and
 * out-of-order requests checked against the responder's answers.
 *
 * net_ring's MTU is 1500, so the largest IB path MTU is 1024.
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include <rte_roce.h>

/* The engine's counters, to tell which recovery path ran. */
#include "roce_dev.h"
#include "roce_qp.h"

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_inject.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#define TIMEOUT_FAST	8		/* 4.096 us << 8 = 1 ms */
#define PSN_NEAR_WRAP	0xfffff0u
#define ATOMIC_OFF	256		/* 8-aligned target of the atomics */

static const enum ibv_wr_opcode data_ops[] = {
	IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_SEND_WITH_INV,
	IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
};

static int
ops_sizes(enum ibv_mtu mtu)
{
	uint32_t m = 1u << (mtu + 7);
	const uint32_t sizes[] = { 0, 1, m - 1, m, m + 1, 64 << 10, ROCE_TEST_MSG_MAX };
	struct roce_test_conf c = roce_test_default_conf;
	struct roce_test_env e;
	unsigned int i, j;
	int ret = 0;

	c.mtu = mtu;
	if (roce_test_env_open(&e, &c, 1) != 0)
		ret = -1;
	for (i = 0; ret == 0 && i < RTE_DIM(sizes); i++) {
		for (j = 0; ret == 0 && j < RTE_DIM(data_ops); j++) {
			ret = roce_test_transfer(&e, 0, 0, data_ops[j], sizes[i], ROCE_TEST_DATA_OFF, i * 16 + j);
			if (ret != 0)
				printf("#   mtu %u, size %u, op %d\n", m, sizes[i], data_ops[j]);
		}
	}
	if (ret == 0)
		ret = roce_test_expect_quiet(&e, e.s[1].rcq);
	return roce_test_env_close(&e) | ret;
}

static int
test_ops_mtu256(void)
{
	return ops_sizes(IBV_MTU_256);
}

static int
test_ops_mtu1024(void)
{
	return ops_sizes(IBV_MTU_1024);
}

/* One atomic and what it must leave: the value returned and the value in memory. */
struct atomic_step {
	enum ibv_wr_opcode op;
	uint64_t compare_add;
	uint64_t swap;
	uint64_t orig;
	uint64_t after;
};

static int
atomics(struct roce_test_env *e)
{
	static const struct atomic_step steps[] = {
		{ IBV_WR_ATOMIC_CMP_AND_SWP, 100, 200, 100, 200 },	/* compare matches */
		{ IBV_WR_ATOMIC_CMP_AND_SWP, 5, 7, 200, 200 },		/* compare differs */
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, 5, 0, 200, 205 },
	};
	struct roce_test_side *a = &e->s[0], *b = &e->s[1];
	uint64_t *target = (uint64_t *)(b->buf + ATOMIC_OFF);
	uint64_t *result = (uint64_t *)(a->buf + ATOMIC_OFF);
	const struct atomic_step *st;
	struct ibv_wc wc;
	unsigned int i;

	*target = steps[0].compare_add;
	for (i = 0; i < RTE_DIM(steps); i++) {
		st = &steps[i];
		if (roce_test_post_atomic(e->qp[0][0], st->op, i, result, a->mr->lkey, (uintptr_t)target,
				b->mr->rkey, st->compare_add, st->swap) != 0)
			return -1;
		ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, a->scq, &wc, 1), 1, "atomic %u", i);
		if (roce_test_check_wc(&wc, i, IBV_WC_SUCCESS,
			     st->op == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD,
			     sizeof(uint64_t), e->qp[0][0]->qp_num) != 0)
			return -1;
		ROCE_TEST_ASSERT_EQ(*result, st->orig, "original value, atomic %u", i);
		ROCE_TEST_ASSERT_EQ(*target, st->after, "memory, atomic %u", i);
	}
	return 0;
}

static int
test_atomics(void)
{
	struct roce_test_env e;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0)
		ret = atomics(&e);
	return roce_test_env_close(&e) | ret;
}

/* 64 QP pairs, each with a SEND and a WRITE in flight at once. */
static int
test_many_qps(void)
{
	const uint32_t send_len = 3000, write_len = 5000, slot = 16 << 10;
	struct ibv_wc wc[2 * ROCE_TEST_MAX_QPS];
	struct roce_test_env e;
	unsigned int i;
	uint32_t off;
	int ret, n;

	ret = roce_test_env_open(&e, &roce_test_default_conf, ROCE_TEST_MAX_QPS);
	for (i = 0; ret == 0 && i < ROCE_TEST_MAX_QPS; i++) {
		off = ROCE_TEST_DATA_OFF + i * slot;
		roce_test_fill(e.s[0].buf + off, send_len + write_len, i);
		ret = roce_test_post_recv(e.qp[1][i], i, e.s[1].buf + off, send_len, e.s[1].mr->lkey);
		ret |= roce_test_post_send(e.qp[0][i], IBV_WR_SEND, i, e.s[0].buf + off, send_len,
				 e.s[0].mr->lkey, 0, 0, IBV_SEND_SIGNALED);
		ret |= roce_test_post_send(e.qp[0][i], IBV_WR_RDMA_WRITE, ROCE_TEST_MAX_QPS + i,
				 e.s[0].buf + off + send_len, write_len, e.s[0].mr->lkey,
				 (uintptr_t)(e.s[1].buf + off + send_len), e.s[1].mr->rkey,
				 IBV_SEND_SIGNALED);
	}
	if (ret == 0) {
		n = roce_test_wait_wc(&e, e.s[0].scq, wc, 2 * ROCE_TEST_MAX_QPS);
		ret = n == 2 * ROCE_TEST_MAX_QPS ? 0 : -1;
		for (i = 0; ret == 0 && i < (unsigned int)n; i++)
			ret = wc[i].status == IBV_WC_SUCCESS ? 0 : -1;
		if (ret == 0) {
			n = roce_test_wait_wc(&e, e.s[1].rcq, wc, ROCE_TEST_MAX_QPS);
			ret = n == ROCE_TEST_MAX_QPS ? 0 : -1;
		}
		for (i = 0; ret == 0 && i < ROCE_TEST_MAX_QPS; i++) {
			off = ROCE_TEST_DATA_OFF + i * slot;
			ret = memcmp(e.s[0].buf + off, e.s[1].buf + off, send_len + write_len) == 0 ?
			      0 : -1;
		}
		if (ret != 0)
			printf("#   many QPs: completions or data wrong (n %d, i %u)\n", n, i);
	}
	return roce_test_env_close(&e) | ret;
}

/*
 * 64 QP pairs each with four WRITEs and a READ of 6.5 KiB posted at once:
 * more packets than the rings hold, so transmission backs off; nothing may
 * be lost to it (no retry at all) and every byte must arrive.
 */
static int
test_many_qps_backpressure(void)
{
	const uint32_t per_qp = 4;
	const uint32_t slot = (ROCE_TEST_BUF_LEN - 2 * ROCE_TEST_DATA_OFF) / ROCE_TEST_MAX_QPS /
			      (per_qp + 1) / 8 * 8;
	struct ibv_wc wc[64];
	unsigned int i, k, done = 0;
	uint64_t end;
	struct roce_test_env e;
	int ret, n;

	ret = roce_test_env_open(&e, &roce_test_default_conf, ROCE_TEST_MAX_QPS);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	for (i = 0; ret == 0 && i < ROCE_TEST_MAX_QPS; i++) {
		uint8_t *src = e.s[0].buf + ROCE_TEST_DATA_OFF + i * slot * (per_qp + 1);
		uint8_t *dst = e.s[1].buf + ROCE_TEST_DATA_OFF + i * slot * (per_qp + 1);
		uint32_t chunk = slot;

		roce_test_fill(src, slot * per_qp, i);
		roce_test_fill(dst + per_qp * slot, slot, i + ROCE_TEST_MAX_QPS);
		for (k = 0; ret == 0 && k < per_qp; k++)
			ret = roce_test_post_send(e.qp[0][i], IBV_WR_RDMA_WRITE, k, src + k * slot, chunk,
					e.s[0].mr->lkey, (uintptr_t)(dst + k * slot),
					e.s[1].mr->rkey, IBV_SEND_SIGNALED);
		if (ret == 0)
			ret = roce_test_post_send(e.qp[0][i], IBV_WR_RDMA_READ, per_qp, src + per_qp * slot,
					chunk, e.s[0].mr->lkey,
					(uintptr_t)(dst + per_qp * slot), e.s[1].mr->rkey,
					IBV_SEND_SIGNALED);
	}
	end = roce_test_ms() + 4 * ROCE_TEST_WAIT_MS;
	while (ret == 0 && done < ROCE_TEST_MAX_QPS * (per_qp + 1) && roce_test_ms() < end) {
		roce_test_pump_env(&e);
		n = rte_roce_poll_cq(e.s[0].scq, RTE_DIM(wc), wc);
		for (k = 0; n > 0 && k < (unsigned int)n; k++) {
			if (wc[k].status != IBV_WC_SUCCESS) {
				printf("#   QP %u WR %llu: status %d\n", wc[k].qp_num,
				       (unsigned long long)wc[k].wr_id, wc[k].status);
				ret = -1;
			}
		}
		done += n > 0 ? n : 0;
	}
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(done, ROCE_TEST_MAX_QPS * (per_qp + 1), "completions");
		for (i = 0; i < ROCE_TEST_MAX_QPS; i++) {
			uint32_t base = ROCE_TEST_DATA_OFF + i * slot * (per_qp + 1);

			/* WRITEs put a's bytes at b; the READ brought b's bytes to a. */
			ROCE_TEST_ASSERT(memcmp(e.s[0].buf + base, e.s[1].buf + base,
						slot * (per_qp + 1)) == 0, "QP %u data", i);
		}
		ROCE_TEST_ASSERT_EQ(roce_test_xstats(&e.s[0])->qp.completer_retry_err, 0, "retries without loss");
	}
	return roce_test_env_close(&e) | ret;
}

/*
 * The port's mbuf pool empty under a burst of eight 16 KiB WRITEs and a
 * READ: nothing leaves and nothing fails while the test holds every mbuf
 * (counted tx_no_mbuf, no frame dropped); once they are given back, every
 * WR completes in success without a retry and every byte arrives.
 */
static int
test_mbuf_pool_empty(void)
{
	const uint32_t len = 16 << 10, nwrites = 8;
	struct rte_mempool *pool = roce_test_mbuf_pool();
	uint8_t *src, *dst;
	struct rte_mbuf **held;
	struct rte_roce_port_stats ps;
	struct ibv_wc wc[16];
	struct roce_test_env e;
	unsigned int i, nheld = 0;
	int ret;

	held = calloc(pool->size, sizeof(*held));
	ROCE_TEST_ASSERT(held != NULL, "calloc");
	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	src = e.s[0].buf + ROCE_TEST_DATA_OFF;
	dst = e.s[1].buf + ROCE_TEST_DATA_OFF;
	if (ret == 0) {
		roce_test_fill(src, len * nwrites, 1);
		roce_test_fill(dst + len * nwrites, len, 2);
		while (nheld < pool->size && (held[nheld] = rte_pktmbuf_alloc(pool)) != NULL)
			nheld++;
	}
	for (i = 0; ret == 0 && i < nwrites; i++)
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_WRITE, i, src + i * len, len,
					  e.s[0].mr->lkey, (uintptr_t)(dst + i * len),
					  e.s[1].mr->rkey, IBV_SEND_SIGNALED);
	if (ret == 0)
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_READ, nwrites, src + nwrites * len,
					  len, e.s[0].mr->lkey, (uintptr_t)(dst + nwrites * len),
					  e.s[1].mr->rkey, IBV_SEND_SIGNALED);
	for (i = 0; ret == 0 && i < 100; i++)
		roce_test_pump_env(&e);
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(e.s[0].scq, RTE_DIM(wc), wc), 0,
				    "nothing completes without mbufs");
		ROCE_TEST_ASSERT(roce_test_xstat(e.s[0].ctx, "tx_no_mbuf") > 0,
				 "the empty pool is counted");
	}
	while (nheld > 0)
		rte_pktmbuf_free(held[--nheld]);
	free(held);
	if (ret == 0 && roce_test_wait_wc(&e, e.s[0].scq, wc, nwrites + 1) != (int)nwrites + 1)
		ret = -1;
	for (i = 0; ret == 0 && i <= nwrites; i++)
		ROCE_TEST_ASSERT(wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id == i,
				 "WR %u: status %d", i, wc[i].status);
	if (ret == 0) {
		ROCE_TEST_ASSERT(memcmp(src, dst, len * (nwrites + 1)) == 0, "data");
		ROCE_TEST_ASSERT_EQ(roce_test_xstats(&e.s[0])->qp.completer_retry_err, 0, "no retry");
		ROCE_TEST_ASSERT_EQ(rte_roce_port_stats_get(e.s[0].port, &ps), 0, "port stats");
		ROCE_TEST_ASSERT_EQ(ps.drops[RTE_ROCE_PORT_DROP_TX_FULL], 0, "no frame dropped");
	}
	return roce_test_env_close(&e) | ret;
}

/*
 * The peer gone and A's TX held (the wire to B full, as a memif whose peer
 * died): a 512 KiB WRITE fills the port's backlog, so after the first
 * timeout the replay cannot leave and the QP is not run again. The retry
 * counter is used up all the same: RETRY_EXC_ERR after timeout x
 * (retry_cnt + 1), never a QP waiting forever.
 */
static int
test_peer_gone_tx_held(void)
{
	const uint32_t len = 512 << 10;
	struct rte_ring *wire = roce_test_verbs_pair.ring[1];
	struct rte_mbuf *dummy, *m;
	struct rte_roce_stats st;
	struct roce_test_env e;
	struct ibv_wc wc;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	/* One mbuf many times over: B never reads them. */
	dummy = rte_pktmbuf_alloc(roce_test_mbuf_pool());
	if (dummy == NULL)
		ret = -1;
	while (ret == 0 && rte_ring_enqueue(wire, dummy) == 0)
		;
	if (ret == 0)
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_WRITE, 1,
					  e.s[0].buf + ROCE_TEST_DATA_OFF, len, e.s[0].mr->lkey,
					  (uintptr_t)(e.s[1].buf + ROCE_TEST_DATA_OFF),
					  e.s[1].mr->rkey, IBV_SEND_SIGNALED);
	/* Only A runs: B is gone. */
	if (ret == 0 && roce_test_wait_wc_ctx(e.s[0].ctx, NULL, e.s[0].scq, &wc, 1,
					      ROCE_TEST_WAIT_MS) != 1)
		ret = -1;
	while (rte_ring_dequeue(wire, (void **)&m) == 0)
		;
	rte_pktmbuf_free(dummy);
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_RETRY_EXC_ERR, "status");
		ROCE_TEST_ASSERT_EQ(rte_roce_qp_stats_get(e.qp[0][0], &st), 0, "stats");
		ROCE_TEST_ASSERT_EQ(st.local_ack_timeout_err, ROCE_TEST_RETRY_CNT + 1u, "timeouts");
		ROCE_TEST_ASSERT_EQ(st.completer_retry_err, ROCE_TEST_RETRY_CNT, "retries");
	}
	return roce_test_env_close(&e) | ret;
}

/* Every opcode, 64 KiB from a to b and 5000 bytes back, then the atomics. */
static int
all_ops_both_ways(const struct roce_test_conf *c)
{
	struct roce_test_env e;
	unsigned int j;
	int ret;

	ret = roce_test_env_open(&e, c, 1);
	for (j = 0; ret == 0 && j < RTE_DIM(data_ops); j++) {
		ret = roce_test_transfer(&e, 0, 0, data_ops[j], 64 << 10, ROCE_TEST_DATA_OFF, j);
		if (ret == 0)
			ret = roce_test_transfer(&e, 1, 0, data_ops[j], 5000, ROCE_TEST_DATA_OFF, j + 100);
	}
	if (ret == 0)
		ret = atomics(&e);
	return roce_test_env_close(&e) | ret;
}

/* PSNs that wrap past 2^24 inside messages, in both directions. */
static int
test_psn_wrap(void)
{
	struct roce_test_conf c = roce_test_default_conf;

	c.mtu = IBV_MTU_256;
	c.psn_ab = PSN_NEAR_WRAP;
	c.psn_ba = RTE_ROCE_PSN_MASK - 2;
	return all_ops_both_ways(&c);
}

static int
check_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(qp, &attr, IBV_QP_STATE, &init), 0, "query");
	ROCE_TEST_ASSERT_EQ(attr.qp_state, state, "QP state");
	return 0;
}

/* A failing WR then a SEND: the first fails with status, the second flushes, once each. */
static int
expect_fail_then_flush(struct roce_test_env *e, enum ibv_wc_status status)
{
	struct ibv_wc wc[2];

	if (roce_test_post_send(e->qp[0][0], IBV_WR_SEND, 99, e->s[0].buf, 16, e->s[0].mr->lkey, 0, 0,
		      IBV_SEND_SIGNALED) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, e->s[0].scq, wc, 2), 2, "two completions");
	ROCE_TEST_ASSERT_EQ(wc[0].status, status, "first status %d", wc[0].status);
	ROCE_TEST_ASSERT_EQ(wc[0].wr_id, 1, "first wr_id");
	ROCE_TEST_ASSERT_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR, "second flushed");
	ROCE_TEST_ASSERT_EQ(wc[1].wr_id, 99, "second wr_id");
	if (roce_test_expect_quiet(e, e->s[0].scq) != 0)
		return -1;
	return check_state(e->qp[0][0], IBV_QPS_ERR);
}

enum access_case {
	ACC_BAD_RKEY,
	ACC_STALE_RKEY,
	ACC_OOB,
	ACC_NO_WRITE,
	ACC_NO_READ,
	ACC_NO_ATOMIC,
	ACC_MAX
};

static int
access_case(enum access_case k)
{
	struct roce_test_env e;
	struct ibv_mr *mr = NULL;
	uint32_t len = 1500, off = ROCE_TEST_DATA_OFF, rkey;
	uint8_t *target;
	enum ibv_wr_opcode op = IBV_WR_RDMA_WRITE;
	int access = ROCE_TEST_ALL_ACCESS;
	uint32_t span, i;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret != 0)
		return roce_test_env_close(&e) | ret;
	target = e.s[1].buf + off;
	rkey = e.s[1].mr->rkey;
	switch (k) {
	case ACC_BAD_RKEY:
		rkey += 1u << 8;	/* another MR index */
		break;
	case ACC_STALE_RKEY:
		rkey ^= 1;		/* another generation */
		break;
	case ACC_OOB:
		off = ROCE_TEST_BUF_LEN - len / 2;
		target = e.s[1].buf + off;
		break;
	case ACC_NO_WRITE:
		access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
		break;
	case ACC_NO_READ:
		access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
		op = IBV_WR_RDMA_READ;
		break;
	default:
		access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
		op = IBV_WR_ATOMIC_FETCH_AND_ADD;
		len = 8;
		break;
	}
	if (access != ROCE_TEST_ALL_ACCESS) {
		/* A second MR over part of the buffer with fewer rights. */
		mr = rte_roce_reg_mr(e.s[1].pd, e.s[1].buf + ROCE_TEST_BUF_LEN / 2,
				     ROCE_TEST_BUF_LEN / 4, access);
		ROCE_TEST_ASSERT(mr != NULL, "second MR");
		rkey = mr->rkey;
		off = ROCE_TEST_BUF_LEN / 2 + ROCE_TEST_DATA_OFF;
		target = e.s[1].buf + off;
	}
	roce_test_fill(e.s[0].buf + ROCE_TEST_DATA_OFF, len, k);
	/* The target and canaries around it, within the buffer (OOB runs past its end). */
	span = RTE_MIN(len + 2 * ROCE_TEST_CANARY_LEN, ROCE_TEST_BUF_LEN - (off - ROCE_TEST_CANARY_LEN));
	memset(target - ROCE_TEST_CANARY_LEN, ROCE_TEST_CANARY, span);
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD)
		ret = roce_test_post_atomic(e.qp[0][0], op, 1, e.s[0].buf + ROCE_TEST_DATA_OFF, e.s[0].mr->lkey,
				  (uintptr_t)target, rkey, 1, 0);
	else
		ret = roce_test_post_send(e.qp[0][0], op, 1, e.s[0].buf + ROCE_TEST_DATA_OFF, len,
					  e.s[0].mr->lkey, (uintptr_t)target, rkey,
					  IBV_SEND_SIGNALED);
	if (ret == 0)
		ret = expect_fail_then_flush(&e, IBV_WC_REM_ACCESS_ERR);
	/* Nothing written at the responder: the whole target and its canaries. */
	if (ret == 0 && op != IBV_WR_RDMA_READ) {
		for (i = 0; i < span && ret == 0; i++)
			ret = target[(int)i - ROCE_TEST_CANARY_LEN] == ROCE_TEST_CANARY ? 0 : -1;
		if (ret != 0)
			printf("#   responder memory written (case %d)\n", k);
	}
	/* The responder's QP goes to ERR too (K:rxe_resp.c class C error). */
	if (ret == 0)
		ret = check_state(e.qp[1][0], IBV_QPS_ERR);
	if (mr != NULL)
		ret |= rte_roce_dereg_mr(mr);
	return roce_test_env_close(&e) | ret;
}

static int
test_remote_access_errors(void)
{
	int k;

	for (k = 0; k < ACC_MAX; k++) {
		if (access_case(k) != 0) {
			printf("#   access case %d failed\n", k);
			return -1;
		}
	}
	return 0;
}

/* A QP's counters (rte_roce_qp_stats_get() cannot fail on a live QP). */
static struct rte_roce_stats
roce_qp_stats(struct ibv_qp *qp)
{
	struct rte_roce_stats s = { 0 };

	rte_roce_qp_stats_get(qp, &s);
	return s;
}

/* The receiver posts late: RNR NAKs, then the SEND goes through. */
static int
test_rnr_late_receiver(void)
{
	struct roce_test_env e;
	struct ibv_wc wc;
	uint64_t end;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0) {
		roce_test_fill(e.s[0].buf + ROCE_TEST_DATA_OFF, 3000, 7);
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_SEND, 5, e.s[0].buf + ROCE_TEST_DATA_OFF, 3000,
				e.s[0].mr->lkey, 0, 0, IBV_SEND_SIGNALED);
	}
	if (ret == 0) {
		end = roce_test_ms() + ROCE_TEST_QUIET_MS;
		while (roce_test_ms() < end)
			roce_test_pump_env(&e);
		ret = rte_roce_poll_cq(e.s[0].scq, 1, &wc);
		if (ret != 0)
			printf("#   completed before the receive was posted, status %d\n", wc.status);
		if (ret == 0)
			ret = roce_test_post_recv(e.qp[1][0], 6, e.s[1].buf + ROCE_TEST_DATA_OFF, 4096, e.s[1].mr->lkey);
	}
	if (ret == 0) {
		ret = roce_test_wait_wc(&e, e.s[0].scq, &wc, 1) == 1 ? 0 : -1;
		ret |= roce_test_check_wc(&wc, 5, IBV_WC_SUCCESS, IBV_WC_SEND, 3000, e.qp[0][0]->qp_num);
		ret |= roce_test_wait_wc(&e, e.s[1].rcq, &wc, 1) == 1 ? 0 : -1;
		ret |= roce_test_check_recv_wc(&wc, IBV_WR_SEND, 6, 3000, e.qp[1][0], e.qp[0][0]);
		ret |= memcmp(e.s[0].buf + ROCE_TEST_DATA_OFF, e.s[1].buf + ROCE_TEST_DATA_OFF, 3000) != 0;
	}
	return roce_test_env_close(&e) | ret;
}



/* One WR that must fail: how it is made to fail and what must follow. */
struct fail_case {
	enum ibv_wr_opcode op;
	uint32_t lkey_xor;	/* spoil the local key */
	bool peer_gone;		/* destroy the responder's QP first */
	enum ibv_wc_status status;
	enum ibv_qp_state peer_state;	/* of the responder's QP afterwards */
};

/* The counters of the failure, read through the public call (rxe's names). */
static int
check_fail_counters(struct roce_test_env *e, const struct roce_test_conf *c,
		    const struct fail_case *f)
{
	struct rte_roce_stats req, resp;

	ROCE_TEST_ASSERT_EQ(rte_roce_qp_stats_get(e->qp[0][0], &req), 0, "requester stats");
	if (f->status == IBV_WC_RNR_RETRY_EXC_ERR) {
		ROCE_TEST_ASSERT_EQ(rte_roce_qp_stats_get(e->qp[1][0], &resp), 0, "responder stats");
		ROCE_TEST_ASSERT_EQ(req.rcvd_rnr_err, 1, "RNR NAKs received");
		ROCE_TEST_ASSERT_EQ(req.retry_rnr_exceeded_err, 1, "RNR retries exceeded");
		ROCE_TEST_ASSERT_EQ(resp.send_rnr_err, 1, "RNR NAKs sent");
	} else if (f->status == IBV_WC_RETRY_EXC_ERR) {
		ROCE_TEST_ASSERT_EQ(req.local_ack_timeout_err, c->retry_cnt + 1u, "timeouts");
		ROCE_TEST_ASSERT_EQ(req.completer_retry_err, c->retry_cnt, "retries");
		ROCE_TEST_ASSERT_EQ(req.retry_exceeded_err, 1, "retries exceeded");
	} else {
		ROCE_TEST_ASSERT_EQ(req.retry_exceeded_err + req.retry_rnr_exceeded_err, 0,
				    "retries exceeded without retries");
	}
	return 0;
}

/* The WR fails with its status, the SEND after it flushes, states as expected. */
static int
one_failing_wr(const struct roce_test_conf *c, const struct fail_case *f)
{
	struct roce_test_env e;
	int ret;

	ret = roce_test_env_open(&e, c, 1);
	if (ret == 0 && f->peer_gone) {
		ret = rte_roce_destroy_qp(e.qp[1][0]);
		e.qp[1][0] = NULL;
	}
	if (ret == 0)
		ret = roce_test_post_send(e.qp[0][0], f->op, 1, e.s[0].buf, 3000,
				e.s[0].mr->lkey ^ f->lkey_xor, (uintptr_t)e.s[1].buf,
				e.s[1].mr->rkey, IBV_SEND_SIGNALED);
	if (ret == 0)
		ret = expect_fail_then_flush(&e, f->status);
	if (ret == 0 && !f->peer_gone)
		ret = check_state(e.qp[1][0], f->peer_state);
	if (ret == 0)
		ret = check_fail_counters(&e, c, f);
	return roce_test_env_close(&e) | ret;
}

/* rnr_retry 0: the first RNR NAK fails the WQE; RNR is no error at the responder. */
static int
test_rnr_exhausted(void)
{
	static const struct fail_case f = {
		IBV_WR_SEND, 0, false, IBV_WC_RNR_RETRY_EXC_ERR, IBV_QPS_RTS,
	};
	struct roce_test_conf c = roce_test_default_conf;

	c.rnr_retry = 0;
	return one_failing_wr(&c, &f);
}

/* The peer's QP is destroyed: timeouts, retries, RETRY_EXC_ERR, then the flush. */
static int
test_peer_vanishes(void)
{
	static const struct fail_case f = {
		IBV_WR_RDMA_WRITE, 0, true, IBV_WC_RETRY_EXC_ERR, IBV_QPS_ERR,
	};
	struct roce_test_conf c = roce_test_default_conf;

	c.timeout = TIMEOUT_FAST;
	c.retry_cnt = 2;
	return one_failing_wr(&c, &f);
}

/* An lkey that names no MR: LOC_PROT_ERR, nothing sent, the rest flushed. */
static int
test_bad_lkey(void)
{
	static const struct fail_case f = {
		IBV_WR_SEND, 1u << ROCE_MR_KEY_GEN_BITS, false, IBV_WC_LOC_PROT_ERR, IBV_QPS_RTS,
	};

	return one_failing_wr(&roce_test_default_conf, &f);
}

/* The responder's QP does not enable RDMA WRITE: invalid request, both QPs in ERR (rxe). */
static int
test_qp_access_denied(void)
{
	static const struct fail_case f = {
		IBV_WR_RDMA_WRITE, 0, false, IBV_WC_REM_INV_REQ_ERR, IBV_QPS_ERR,
	};
	struct roce_test_conf c = roce_test_default_conf;

	c.qp_access = IBV_ACCESS_REMOTE_READ;
	return one_failing_wr(&c, &f);
}

/* Zero-length RDMA WRITE and READ check no R_Key (IBA C9-88): a bogus one passes. */
static int
test_zero_length_no_rkey(void)
{
	const uint32_t bogus = 0xdead00u;
	struct ibv_wc wc[2];
	struct roce_test_env e;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0)
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_WRITE, 1, NULL, 0, 0, 0, bogus,
				IBV_SEND_SIGNALED) |
		      roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_READ, 2, NULL, 0, 0, 0, bogus,
				IBV_SEND_SIGNALED);
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&e, e.s[0].scq, wc, 2), 2, "completions");
		ret = roce_test_check_wc(&wc[0], 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 0, e.qp[0][0]->qp_num) |
		      roce_test_check_wc(&wc[1], 2, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 0, e.qp[0][0]->qp_num);
	}
	if (ret == 0)
		ret = check_state(e.qp[1][0], IBV_QPS_RTS);
	return roce_test_env_close(&e) | ret;
}

/* SQD holds new WRs back; back in RTS they go (IBA 10.3.1: the send queue drains). */
static int
test_sqd_holds_new_wrs(void)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_SQD };
	struct ibv_wc wc;
	struct roce_test_env e;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(e.qp[0][0], &attr, IBV_QP_STATE), 0, "SQD");
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_WRITE, 1, e.s[0].buf, 3000,
				e.s[0].mr->lkey, (uintptr_t)e.s[1].buf, e.s[1].mr->rkey,
				IBV_SEND_SIGNALED);
	}
	if (ret == 0)
		ret = roce_test_expect_quiet(&e, e.s[0].scq);
	if (ret == 0) {
		attr.qp_state = IBV_QPS_RTS;
		ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(e.qp[0][0], &attr, IBV_QP_STATE), 0, "RTS");
		ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&e, e.s[0].scq, &wc, 1), 1, "completion after SQD");
		ret = roce_test_check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 3000, e.qp[0][0]->qp_num);
	}
	return roce_test_env_close(&e) | ret;
}

/* Unsignaled WRs complete silently; a signaled one after them reports. */
static int
test_unsignaled(void)
{
	struct roce_test_env e;
	struct ibv_wc wc;
	int ret, i;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	for (i = 0; ret == 0 && i < 10; i++)
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_WRITE, i, e.s[0].buf + ROCE_TEST_DATA_OFF, 2000,
				e.s[0].mr->lkey, (uintptr_t)(e.s[1].buf + ROCE_TEST_DATA_OFF),
				e.s[1].mr->rkey, i == 9 ? IBV_SEND_SIGNALED : 0);
	if (ret == 0) {
		ret = roce_test_wait_wc(&e, e.s[0].scq, &wc, 1) == 1 ? 0 : -1;
		ret |= roce_test_check_wc(&wc, 9, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 2000,
				e.qp[0][0]->qp_num);
		ret |= roce_test_expect_quiet(&e, e.s[0].scq);
	}
	return roce_test_env_close(&e) | ret;
}

/* TX bursts of a port: calls and the largest burst (an ethdev TX callback). */
struct tx_bursts {
	unsigned int calls, frames, max;
};

static uint16_t
tx_bursts_count(uint16_t port_id __rte_unused, uint16_t queue __rte_unused,
		struct rte_mbuf **pkts __rte_unused, uint16_t n, void *arg)
{
	struct tx_bursts *b = arg;

	if (n > 0) {
		b->calls++;
		b->frames += n;
		b->max = RTE_MAX(b->max, (unsigned int)n);
	}
	return n;
}

/* WRITEs posted together leave in bursts, not one rte_eth_tx_burst() per frame. */
static int
test_tx_batching(void)
{
	const unsigned int nb = 16, len = 64;
	const struct rte_eth_rxtx_callback *cb;
	struct tx_bursts b = { 0 };
	struct roce_test_env e;
	uint8_t *src, *dst;
	struct ibv_wc wc;
	unsigned int i;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	cb = ret == 0 ? rte_eth_add_tx_callback(roce_test_verbs_pair.a, 0, tx_bursts_count, &b) : NULL;
	if (ret == 0 && cb == NULL)
		ret = -1;
	src = e.s[0].buf + ROCE_TEST_DATA_OFF;
	dst = e.s[1].buf + ROCE_TEST_DATA_OFF;
	roce_test_fill(src, nb * len, 7);
	for (i = 0; ret == 0 && i < nb; i++)
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_WRITE, i, src + i * len, len,
					  e.s[0].mr->lkey, (uintptr_t)(dst + i * len),
					  e.s[1].mr->rkey, i == nb - 1 ? IBV_SEND_SIGNALED : 0);
	if (ret == 0) {
		ret = roce_test_wait_wc(&e, e.s[0].scq, &wc, 1) == 1 ? 0 : -1;
		ret |= roce_test_check_wc(&wc, nb - 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, len,
				e.qp[0][0]->qp_num);
	}
	if (cb != NULL)
		rte_eth_remove_tx_callback(roce_test_verbs_pair.a, 0, cb);
	if (ret == 0) {
		ROCE_TEST_ASSERT(memcmp(src, dst, nb * len) == 0, "data");
		ROCE_TEST_ASSERT_EQ(b.frames, nb, "frames a sent");
		ROCE_TEST_ASSERT_EQ(b.max, nb, "the 16 WRITEs leave in one burst");
		ROCE_TEST_ASSERT_EQ(b.calls, 1, "one TX call");
	}
	return roce_test_env_close(&e) | ret;
}

static int
send_only(struct roce_test_inject *in, uint32_t psn)
{
	static const uint8_t payload[16];
	struct rte_roce_pkt pkt;

	rte_roce_pkt_init(&pkt, RTE_ROCE_OP_RC_SEND_ONLY);
	pkt.psn = psn;
	pkt.ackreq = true;
	pkt.payload_len = sizeof(payload);
	return roce_test_inject_send(in, &pkt, payload);
}

/* Duplicate SEND: re-ACKed with ePSN - 1, nothing consumed. PSN ahead: one NAK only. */
static int
dup_and_ahead(struct roce_test_inject *in)
{
	struct roce_test_env *e = in->e;
	struct ibv_wc wc;
	uint32_t epsn = in->epsn;

	if (roce_test_post_recv(e->qp[1][0], 2, e->s[1].buf, 64, e->s[1].mr->lkey) != 0)
		return -1;
	if (send_only(in, epsn - 1) != 0 ||
	    roce_test_expect_ack(in, RTE_ROCE_OP_RC_ACKNOWLEDGE, RTE_ROCE_AETH_ACK_UNLIMITED, epsn - 1) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(e->s[1].rcq, 1, &wc), 0, "duplicate consumed a WQE");
	if (send_only(in, epsn + 5) != 0 ||
	    roce_test_expect_ack(in, RTE_ROCE_OP_RC_ACKNOWLEDGE, RTE_ROCE_AETH_NAK_PSN_SEQ, epsn) != 0)
		return -1;
	if (send_only(in, epsn + 6) != 0 || roce_test_expect_no_answer(in) != 0)
		return -1;
	/* ePSN itself: accepted, acknowledged, received. */
	if (send_only(in, epsn) != 0 ||
	    roce_test_expect_ack(in, RTE_ROCE_OP_RC_ACKNOWLEDGE, RTE_ROCE_AETH_ACK_UNLIMITED, epsn) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(e->s[1].rcq, 1, &wc), 1, "receive completion");
	ROCE_TEST_ASSERT_EQ(wc.wr_id, 2, "wr_id");
	in->epsn = epsn + 1;
	/* A later gap NAKs again: the first NAK was cleared by ePSN. */
	if (send_only(in, in->epsn + 1) != 0 ||
	    roce_test_expect_ack(in, RTE_ROCE_OP_RC_ACKNOWLEDGE, RTE_ROCE_AETH_NAK_PSN_SEQ, in->epsn) != 0)
		return -1;
	return 0;
}

static int
read_req(struct roce_test_inject *in, uint32_t psn, uint64_t va, uint32_t len)
{
	return roce_test_inject_reth(in, RTE_ROCE_OP_RC_RDMA_READ_REQUEST, psn, va, len, NULL, 0);
}

static int
expect_read_resp(struct roce_test_inject *in, uint8_t opcode, uint32_t psn, const uint8_t *data,
		 uint32_t len)
{
	static uint8_t payload[4096];
	struct rte_roce_pkt pkt;

	ROCE_TEST_ASSERT_EQ(roce_test_inject_answer(in, &pkt, payload), 0, "no READ response");
	ROCE_TEST_ASSERT_EQ(pkt.opcode, opcode, "response opcode");
	ROCE_TEST_ASSERT_EQ(pkt.psn, psn, "response PSN");
	ROCE_TEST_ASSERT_EQ(pkt.payload_len, len, "response length");
	ROCE_TEST_ASSERT(memcmp(payload, data, len) == 0, "response data");
	return 0;
}

/* READ answered; its duplicate replayed whole, then from its second packet. */
static int
read_replay(struct roce_test_inject *in)
{
	const uint32_t mtu = 1024;
	uint8_t *data = in->e->s[1].buf + ROCE_TEST_DATA_OFF;
	uint64_t va = (uintptr_t)data;
	uint32_t psn = in->epsn + 1;	/* the NAKed gap of dup_and_ahead() is skipped */
	int pass;

	/* ePSN is still in->epsn: fill it with a SEND first. */
	if (roce_test_post_recv(in->e->qp[1][0], 3, in->e->s[1].buf + ROCE_TEST_BUF_LEN / 2, 64,
		      in->e->s[1].mr->lkey) != 0 ||
	    send_only(in, in->epsn) != 0 ||
	    roce_test_expect_ack(in, RTE_ROCE_OP_RC_ACKNOWLEDGE, RTE_ROCE_AETH_ACK_UNLIMITED, in->epsn) != 0)
		return -1;
	roce_test_fill(data, 2 * mtu, 42);
	for (pass = 0; pass < 2; pass++) {
		if (read_req(in, psn, va, 2 * mtu) != 0 ||
		    expect_read_resp(in, RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, psn, data,
				     mtu) != 0 ||
		    expect_read_resp(in, RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, psn + 1,
				     data + mtu, mtu) != 0)
			return -1;
	}
	if (read_req(in, psn + 1, va + mtu, mtu) != 0 ||
	    expect_read_resp(in, RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, psn + 1, data + mtu,
			     mtu) != 0)
		return -1;
	/* Not a sub-range of the saved READ: dropped. */
	if (read_req(in, psn + 1, va, mtu) != 0 || roce_test_expect_no_answer(in) != 0)
		return -1;
	in->epsn = psn + 2;
	return 0;
}

/* An atomic is executed once; its duplicate gets the saved original value. */
static int
atomic_replay(struct roce_test_inject *in)
{
	uint64_t *target = (uint64_t *)(in->e->s[1].buf + ATOMIC_OFF);
	struct rte_roce_pkt pkt, ans;
	int pass;

	*target = 10;
	for (pass = 0; pass < 2; pass++) {
		rte_roce_pkt_init(&pkt, RTE_ROCE_OP_RC_FETCH_ADD);
		pkt.psn = in->epsn;
		pkt.ackreq = true;
		pkt.atmeth.va = (uintptr_t)target;
		pkt.atmeth.rkey = in->e->s[1].mr->rkey;
		pkt.atmeth.swap_add = 1;
		if (roce_test_inject_send(in, &pkt, NULL) != 0)
			return -1;
		ROCE_TEST_ASSERT_EQ(roce_test_inject_answer(in, &ans, NULL), 0, "no atomic ACK");
		ROCE_TEST_ASSERT_EQ(ans.opcode, RTE_ROCE_OP_RC_ATOMIC_ACKNOWLEDGE, "opcode");
		ROCE_TEST_ASSERT_EQ(ans.psn, in->epsn, "PSN");
		ROCE_TEST_ASSERT_EQ(ans.atmack_orig, 10, "original value");
		ROCE_TEST_ASSERT_EQ(*target, 11, "executed once");
	}
	in->epsn++;
	return 0;
}

/* A WRITE_MIDDLE without FIRST: invalid request NAK, the QP to ERR. */
static int
broken_sequence(struct roce_test_inject *in)
{
	static const uint8_t payload[1024];
	struct rte_roce_pkt pkt;

	rte_roce_pkt_init(&pkt, RTE_ROCE_OP_RC_RDMA_WRITE_MIDDLE);
	pkt.psn = in->epsn;
	pkt.payload_len = sizeof(payload);
	if (roce_test_inject_send(in, &pkt, payload) != 0 ||
	    roce_test_expect_ack(in, RTE_ROCE_OP_RC_ACKNOWLEDGE, RTE_ROCE_AETH_NAK_INV_REQ, in->epsn) != 0)
		return -1;
	return check_state(in->e->qp[1][0], IBV_QPS_ERR);
}

/* Three SENDs with AckReq in one receive burst: one ACK, for the last. */
static int
ack_coalescing(struct roce_test_inject *in)
{
	struct roce_test_env *e = in->e;
	struct ibv_wc wc[3];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (roce_test_post_recv(e->qp[1][0], 10 + i, e->s[1].buf, 64, e->s[1].mr->lkey) != 0 ||
		    send_only(in, in->epsn + i) != 0)
			return -1;
	}
	if (roce_test_expect_ack(in, RTE_ROCE_OP_RC_ACKNOWLEDGE, RTE_ROCE_AETH_ACK_UNLIMITED,
		       in->epsn + 2) != 0 || roce_test_expect_no_answer(in) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(e->s[1].rcq, 3, wc), 3, "three receives");
	for (i = 0; i < 3; i++)
		ROCE_TEST_ASSERT_EQ(wc[i].wr_id, 10u + i, "in order");
	in->epsn += 3;
	return 0;
}

static int
test_injected_requests(void)
{
	struct roce_test_inject in;
	struct roce_test_env e;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0)
		ret = roce_test_inject_init(&in, &e);
	if (ret == 0)
		ret = ack_coalescing(&in);
	if (ret == 0)
		ret = dup_and_ahead(&in);
	if (ret == 0)
		ret = read_replay(&in);
	if (ret == 0)
		ret = atomic_replay(&in);
	if (ret == 0)
		ret = broken_sequence(&in);
	return roce_test_env_close(&e) | ret;
}

/* A SEND whose frames all vanish: the local ACK timeout resends it. */
static int
test_lost_request_timeout(void)
{
	struct roce_test_conf c = roce_test_default_conf;
	struct ibv_wc wc;
	struct roce_test_env e;
	int ret;

	c.timeout = TIMEOUT_FAST;
	ret = roce_test_env_open(&e, &c, 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	if (ret == 0)
		ret = roce_test_post_recv(e.qp[1][0], 2, e.s[1].buf + ROCE_TEST_DATA_OFF, 4096, e.s[1].mr->lkey) |
		      roce_test_post_send(e.qp[0][0], IBV_WR_SEND, 2, e.s[0].buf + ROCE_TEST_DATA_OFF, 3000,
				e.s[0].mr->lkey, 0, 0, IBV_SEND_SIGNALED) |
		      roce_test_frames_to_b(&e, 3) | roce_test_drop_frames(1, 0x7);
	if (ret == 0) {
		ret = roce_test_wait_wc(&e, e.s[0].scq, &wc, 1) == 1 ? 0 : -1;
		ret |= roce_test_check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND, 3000, e.qp[0][0]->qp_num);
		ret |= roce_test_wait_wc(&e, e.s[1].rcq, &wc, 1) == 1 ? 0 : -1;
		ret |= roce_test_check_recv_wc(&wc, IBV_WR_SEND, 2, 3000, e.qp[1][0], e.qp[0][0]);
		ROCE_TEST_ASSERT(roce_test_xstats(&e.s[0])->qp.local_ack_timeout_err > 0, "no timeout counted");
	}
	return roce_test_env_close(&e) | ret;
}

/* The first packet of a SEND is lost: a sequence NAK, then go-back-N, no timeout. */
static int
test_lost_packet_seq_nak(void)
{
	struct ibv_wc wc;
	struct roce_test_env e;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	if (ret == 0) {
		roce_test_fill(e.s[0].buf + ROCE_TEST_DATA_OFF, 3000, 3);
		ret = roce_test_post_recv(e.qp[1][0], 2, e.s[1].buf + ROCE_TEST_DATA_OFF, 4096, e.s[1].mr->lkey) |
		      roce_test_post_send(e.qp[0][0], IBV_WR_SEND, 2, e.s[0].buf + ROCE_TEST_DATA_OFF, 3000,
				e.s[0].mr->lkey, 0, 0, IBV_SEND_SIGNALED) |
		      roce_test_frames_to_b(&e, 3) | roce_test_drop_frames(1, 0x1);
	}
	if (ret == 0) {
		ret = roce_test_wait_wc(&e, e.s[0].scq, &wc, 1) == 1 ? 0 : -1;
		ret |= roce_test_check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND, 3000, e.qp[0][0]->qp_num);
		ret |= roce_test_wait_wc(&e, e.s[1].rcq, &wc, 1) == 1 ? 0 : -1;
		ret |= memcmp(e.s[0].buf + ROCE_TEST_DATA_OFF, e.s[1].buf + ROCE_TEST_DATA_OFF, 3000) != 0;
		ROCE_TEST_ASSERT_EQ(roce_test_xstats(&e.s[1])->seq_naks_out, 1, "sequence NAKs sent");
		ROCE_TEST_ASSERT(roce_test_xstats(&e.s[0])->qp.completer_retry_err > 0, "no retry");
		ROCE_TEST_ASSERT_EQ(roce_test_xstats(&e.s[0])->qp.local_ack_timeout_err, 0, "timeout instead of NAK");
		ROCE_TEST_ASSERT_EQ(roce_qp_stats(e.qp[0][0]).rcvd_seq_err, 1,
				    "sequence NAKs received");
		ROCE_TEST_ASSERT(roce_qp_stats(e.qp[1][0]).out_of_seq_request >= 1, "out of sequence");
	}
	return roce_test_env_close(&e) | ret;
}

/* Polls a until pred(e) holds or ROCE_TEST_WAIT_MS pass; only a runs. */
static bool
poll_a_until(struct roce_test_env *e, bool (*pred)(struct roce_test_env *e))
{
	uint64_t end = roce_test_ms() + ROCE_TEST_WAIT_MS;

	while (!pred(e) && roce_test_ms() < end)
		rte_roce_poll(e->s[0].ctx);
	return pred(e);
}

/*
 * Pairs 1 and 2 put more than ROCE_DEV_QP_TX_MAX frames into a's TX
 * backlog (of twice that): no QP of a runs any more (roce_lane.c).
 */
static bool
a_tx_held(struct roce_test_env *e)
{
	return roce_qp_stats(e->qp[0][1]).sent_pkts + roce_qp_stats(e->qp[0][2]).sent_pkts >
	       ROCE_DEV_QP_TX_MAX;
}

static bool
a_pair0_timed_out(struct roce_test_env *e)
{
	return roce_qp_stats(e->qp[0][0]).local_ack_timeout_err > 0;
}

/* What test_ack_of_wqe_being_resent() saw, once its env is quiet again. */
static int
resent_wqe_outcome(int n, const struct ibv_wc *first, uint32_t qpn, unsigned int retry_left,
		   int rest, const struct ibv_wc *wc)
{
	int j;

	ROCE_TEST_ASSERT_EQ(n, 1, "the held ACK completes the WRITE being sent again");
	ROCE_TEST_ASSERT_EQ(roce_test_check_wc(first, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 4096,
					       qpn), 0, "the WRITE");
	ROCE_TEST_ASSERT_EQ(retry_left, ROCE_TEST_RETRY_CNT, "retry counter after progress");
	ROCE_TEST_ASSERT_EQ(rest, 3, "the SEND and both fills");
	for (j = 0; j < rest; j++)
		ROCE_TEST_ASSERT_EQ(wc[j].status, IBV_WC_SUCCESS, "WR %" PRIu64, wc[j].wr_id);
	return 0;
}

/*
 * The ACK that b sent for a WRITE and the SEND after it (coalesced: the
 * SEND's PSN) reaches a only after a timeout went back into the WRITE,
 * whose replay a full TX queue holds (the WQE is SENDING again). The ACK
 * completes the WRITE at once and its retry counters start again. Before,
 * it was ignored: under load every answer of the first transmission went
 * that way and the soak's WRs failed with RETRY_EXC_ERR (doc/soak-fuzz.md).
 */
static int
test_ack_of_wqe_being_resent(void)
{
	const uint32_t fill_len = 128 << 10;	/* a window of PSNs: two fill the TX backlog */
	struct rte_ring *to_a = roce_test_verbs_pair.ring[0], *to_b = roce_test_verbs_pair.ring[1];
	struct roce_test_conf c = roce_test_default_conf;
	struct rte_mbuf *dummy = NULL, *ack = NULL, *m;
	uint8_t *dst;
	struct ibv_wc first, recv, wc[4];
	struct roce_test_env e;
	unsigned int j, retry_left = 0;
	int ret, n = -1, rest;

	c.timeout = 17;		/* 537 ms: eight of them outlast any stall of this machine */
	ret = roce_test_env_open(&e, &c, 3);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	dst = e.s[1].buf + ROCE_TEST_DATA_OFF;
	if (ret == 0)
		ret = roce_test_post_recv(e.qp[1][0], 2, e.s[1].buf + ROCE_TEST_BUF_LEN / 2, 4096,
					  e.s[1].mr->lkey) |
		      roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_WRITE, 1,
					  e.s[0].buf + ROCE_TEST_DATA_OFF, 4096, e.s[0].mr->lkey,
					  (uintptr_t)dst, e.s[1].mr->rkey, IBV_SEND_SIGNALED) |
		      roce_test_post_send(e.qp[0][0], IBV_WR_SEND, 2, e.s[0].buf, 64,
					  e.s[0].mr->lkey, 0, 0, IBV_SEND_SIGNALED) |
		      roce_test_frames_to_b(&e, 5);
	/* b takes all five; its last answer, the ACK of the SEND's PSN, is held. */
	for (j = 0; ret == 0 && j < 100; j++)
		rte_roce_poll(e.s[1].ctx);
	while (ret == 0 && rte_ring_dequeue(to_a, (void **)&m) == 0) {
		rte_pktmbuf_free(ack);
		ack = m;
	}
	if (ret == 0 && (ack == NULL || rte_ring_count(to_b) != 0)) {
		printf("# b did not answer\n");
		ret = -1;
	}
	/* The wire to b full; pairs 1 and 2 fill a's TX backlog behind it (a window each). */
	if (ret == 0)
		dummy = rte_pktmbuf_alloc(roce_test_mbuf_pool());
	while (dummy != NULL && rte_ring_enqueue(to_b, dummy) == 0)
		;
	for (j = 1; ret == 0 && j < 3; j++)
		ret = roce_test_post_send(e.qp[0][j], IBV_WR_RDMA_WRITE, 10 + j,
					  e.s[0].buf + ROCE_TEST_DATA_OFF, fill_len, e.s[0].mr->lkey,
					  (uintptr_t)(dst + j * fill_len), e.s[1].mr->rkey,
					  IBV_SEND_SIGNALED);
	if (ret == 0 && !poll_a_until(&e, a_tx_held)) {
		printf("# a's TX backlog never full\n");
		ret = -1;
	}
	/* Pair 0's timeout: back to the WRITE's first PSN, and the replay cannot leave. */
	if (ret == 0 && !poll_a_until(&e, a_pair0_timed_out)) {
		printf("# no timeout\n");
		ret = -1;
	}
	/* Checked once the wire is free and everything completed: a failure leaves nothing behind. */
	if (ret == 0 && rte_ring_enqueue(to_a, ack) == 0) {
		ack = NULL;
		rte_roce_poll(e.s[0].ctx);
		n = rte_roce_poll_cq(e.s[0].scq, 1, &first);
		retry_left = roce_qp_of(e.qp[0][0])->comp.retry_left;
	}
	while (rte_ring_dequeue(to_b, (void **)&m) == 0)
		if (m != dummy)
			rte_pktmbuf_free(m);
	rte_pktmbuf_free(dummy);
	rte_pktmbuf_free(ack);
	if (ret == 0) {
		/* The SEND and both fills (and a WRITE the ACK left behind) complete in success. */
		rest = roce_test_wait_wc(&e, e.s[0].scq, wc, 4 - RTE_MAX(n, 0));
		ret = roce_test_wait_wc(&e, e.s[1].rcq, &recv, 1) == 1 ? 0 : -1;
		ret |= resent_wqe_outcome(n, &first, e.qp[0][0]->qp_num, retry_left, rest, wc);
		ret |= roce_test_expect_quiet(&e, e.s[1].rcq);
	}
	return roce_test_env_close(&e) | ret;
}

/*
 * The responses of a READ are lost but the ACK of the SEND after it comes:
 * an implied NAK resends the READ, which the responder replays from its
 * resource; the duplicate SEND is only acknowledged again.
 */
static int
test_lost_read_response_implied_nak(void)
{
	uint64_t end;
	struct ibv_wc wc[2];
	struct roce_test_env e;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	if (ret == 0) {
		roce_test_fill(e.s[1].buf + ROCE_TEST_DATA_OFF, 2000, 9);
		ret = roce_test_post_recv(e.qp[1][0], 3, e.s[1].buf + ROCE_TEST_BUF_LEN / 2, 4096,
					  e.s[1].mr->lkey) |
		      roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_READ, 2, e.s[0].buf + ROCE_TEST_DATA_OFF, 2000,
				e.s[0].mr->lkey, (uintptr_t)(e.s[1].buf + ROCE_TEST_DATA_OFF),
				e.s[1].mr->rkey, IBV_SEND_SIGNALED) |
		      roce_test_post_send(e.qp[0][0], IBV_WR_SEND, 3, e.s[0].buf, 100, e.s[0].mr->lkey, 0,
				0, IBV_SEND_SIGNALED) |
		      roce_test_frames_to_b(&e, 2);
	}
	if (ret == 0) {
		/* b answers: READ_RESPONSE_FIRST, _LAST, then the ACK of the SEND. */
		end = roce_test_ms() + ROCE_TEST_WAIT_MS;
		while (rte_ring_count(roce_test_verbs_pair.ring[0]) < 3 && roce_test_ms() < end)
			rte_roce_poll(e.s[1].ctx);
		ret = roce_test_drop_frames(0, 0x3);
	}
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&e, e.s[0].scq, wc, 2), 2, "completions");
		ret = roce_test_check_wc(&wc[0], 2, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 2000,
			       e.qp[0][0]->qp_num);
		ret |= roce_test_check_wc(&wc[1], 3, IBV_WC_SUCCESS, IBV_WC_SEND, 100, e.qp[0][0]->qp_num);
		ret |= memcmp(e.s[0].buf + ROCE_TEST_DATA_OFF, e.s[1].buf + ROCE_TEST_DATA_OFF, 2000) != 0;
		ROCE_TEST_ASSERT(roce_test_xstats(&e.s[0])->qp.completer_retry_err > 0, "no retry");
		ROCE_TEST_ASSERT_EQ(roce_test_xstats(&e.s[0])->qp.local_ack_timeout_err, 0, "timeout instead of implied NAK");
		ROCE_TEST_ASSERT(roce_test_xstats(&e.s[1])->qp.duplicate_request >= 2, "no replay");
		ROCE_TEST_ASSERT(roce_qp_stats(e.qp[0][0]).implied_nak_seq_err >= 1, "implied NAK");
		ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&e, e.s[1].rcq, wc, 1), 1, "one receive");
		ret |= roce_test_expect_quiet(&e, e.s[1].rcq);
	}
	return roce_test_env_close(&e) | ret;
}


/*
 * A receive WQE that cannot take the SEND: it completes with recv_status,
 * the requester's WR with send_status, both QPs go to ERR.
 */
static int
bad_recv_wqe(uint32_t len, uint32_t lkey_xor, enum ibv_wc_status recv_status,
	     enum ibv_wc_status send_status)
{
	struct ibv_wc wc;
	struct roce_test_env e;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0)
		ret = roce_test_post_recv(e.qp[1][0], 7, e.s[1].buf + ROCE_TEST_DATA_OFF, len,
				e.s[1].mr->lkey ^ lkey_xor) |
		      roce_test_post_send(e.qp[0][0], IBV_WR_SEND, 1, e.s[0].buf, 3000, e.s[0].mr->lkey, 0,
				0, IBV_SEND_SIGNALED);
	if (ret == 0)
		ret = expect_fail_then_flush(&e, send_status);
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&e, e.s[1].rcq, &wc, 1), 1, "receive completion");
		ROCE_TEST_ASSERT_EQ(wc.wr_id, 7, "wr_id");
		ROCE_TEST_ASSERT_EQ(wc.status, recv_status, "receive status");
		ret = check_state(e.qp[1][0], IBV_QPS_ERR);
	}
	return roce_test_env_close(&e) | ret;
}

/* A SEND larger than the receive buffer: invalid request (class C, as rxe). */
static int
test_recv_too_small(void)
{
	return bad_recv_wqe(100, 0, IBV_WC_LOC_LEN_ERR, IBV_WC_REM_INV_REQ_ERR);
}

/* A receive WQE whose lkey names no MR: remote operational error (class D1, as rxe). */
static int
test_recv_bad_lkey(void)
{
	return bad_recv_wqe(4096, 1u << ROCE_MR_KEY_GEN_BITS, IBV_WC_LOC_PROT_ERR,
			    IBV_WC_REM_OP_ERR);
}

/*
 * A READ, then a fenced WRITE over the same remote bytes: the WRITE waits
 * for the READ, which sees the old bytes (IBA 10.8.3.3: without the fence
 * the responder may run the WRITE before it reads).
 */
static int
test_fence(void)
{
	const uint32_t len = 4000;
	uint8_t *remote, *old, *newer, *got;
	struct ibv_wc wc[2];
	struct roce_test_env e;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	remote = e.s[1].buf + ROCE_TEST_DATA_OFF;
	old = e.s[0].buf + ROCE_TEST_BUF_LEN / 2;
	newer = old + len;
	got = e.s[0].buf + ROCE_TEST_DATA_OFF;
	if (ret == 0) {
		roce_test_fill(remote, len, 1);
		memcpy(old, remote, len);
		roce_test_fill(newer, len, 2);
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_READ, 1, got, len, e.s[0].mr->lkey,
				(uintptr_t)remote, e.s[1].mr->rkey, IBV_SEND_SIGNALED) |
		      roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_WRITE, 2, newer, len, e.s[0].mr->lkey,
				(uintptr_t)remote, e.s[1].mr->rkey,
				IBV_SEND_SIGNALED | IBV_SEND_FENCE);
	}
	if (ret == 0) {
		/* Only the READ request leaves before the READ completes. */
		ret = roce_test_frames_to_b(&e, 1);
		rte_roce_poll(e.s[0].ctx);
		ROCE_TEST_ASSERT_EQ(rte_ring_count(roce_test_verbs_pair.ring[1]), 1, "fence not honoured");
	}
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&e, e.s[0].scq, wc, 2), 2, "completions");
		ret = (wc[0].status | wc[1].status) != IBV_WC_SUCCESS;
		ret |= memcmp(got, old, len) != 0;
		ret |= memcmp(remote, newer, len) != 0;
		if (ret != 0)
			printf("#   fence: wrong data or status\n");
	}
	return roce_test_env_close(&e) | ret;
}

/* max_rd_atomic 1: four READs go out one at a time, and all complete. */
static int
test_rd_atomic_limit(void)
{
	struct roce_test_conf c = roce_test_default_conf;
	struct ibv_wc wc[4];
	uint8_t *remote;
	struct roce_test_env e;
	int ret, i;

	c.max_rd_atomic = 1;
	ret = roce_test_env_open(&e, &c, 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	remote = e.s[1].buf + ROCE_TEST_DATA_OFF;
	roce_test_fill(remote, 32, 5);
	for (i = 0; ret == 0 && i < 4; i++)
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_READ, 10 + i,
				e.s[0].buf + ROCE_TEST_DATA_OFF + i * 8, 8, e.s[0].mr->lkey,
				(uintptr_t)(remote + i * 8), e.s[1].mr->rkey,
				IBV_SEND_SIGNALED);
	if (ret == 0) {
		ret = roce_test_frames_to_b(&e, 1);
		rte_roce_poll(e.s[0].ctx);
		ROCE_TEST_ASSERT_EQ(rte_ring_count(roce_test_verbs_pair.ring[1]), 1, "more than one READ out");
	}
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&e, e.s[0].scq, wc, 4), 4, "four READs");
		for (i = 0; i < 4; i++)
			ROCE_TEST_ASSERT_EQ(wc[i].wr_id, 10u + i, "in order");
		ret = memcmp(e.s[0].buf + ROCE_TEST_DATA_OFF, remote, 32) != 0;
	}
	return roce_test_env_close(&e) | ret;
}

/* Messages gathered from and scattered to several SGEs, and inline data. */
static int
test_sge_lists_and_inline(void)
{
	static const uint32_t slen[3] = { 1000, 1, 2500 };
	static const uint32_t rlen[2] = { 3000, 1000 };
	const uint32_t total = 3501;
	struct ibv_sge sge[3], rsge[2];
	struct ibv_send_wr wr, *bad;
	struct ibv_recv_wr rwr, *rbad;
	uint8_t expect[4096];
	struct ibv_wc wc;
	struct roce_test_env e;
	uint32_t off, i;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret != 0)
		return roce_test_env_close(&e) | ret;
	/* Three source pieces, apart from each other. */
	for (i = 0, off = 0; i < 3; i++) {
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)(e.s[0].buf + ROCE_TEST_DATA_OFF + i * 8192),
					   .length = slen[i], .lkey = e.s[0].mr->lkey };
		roce_test_fill((uint8_t *)(uintptr_t)sge[i].addr, slen[i], 20 + i);
		memcpy(expect + off, (void *)(uintptr_t)sge[i].addr, slen[i]);
		off += slen[i];
	}
	for (i = 0; i < 2; i++)
		rsge[i] = (struct ibv_sge){ .addr = (uintptr_t)(e.s[1].buf + ROCE_TEST_DATA_OFF + i * 8192),
					    .length = rlen[i], .lkey = e.s[1].mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 1, .sg_list = rsge, .num_sge = 2 };
	wr = (struct ibv_send_wr){ .wr_id = 1, .sg_list = sge, .num_sge = 3,
				   .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(e.qp[1][0], &rwr, &rbad), 0, "post_recv");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(e.qp[0][0], &wr, &bad), 0, "post_send");
	ret = roce_test_wait_wc(&e, e.s[0].scq, &wc, 1) == 1 && wc.status == IBV_WC_SUCCESS ? 0 : -1;
	ret |= roce_test_wait_wc(&e, e.s[1].rcq, &wc, 1) == 1 && wc.byte_len == total ? 0 : -1;
	ret |= memcmp(e.s[1].buf + ROCE_TEST_DATA_OFF, expect, rlen[0]) != 0;
	ret |= memcmp(e.s[1].buf + ROCE_TEST_DATA_OFF + 8192, expect + rlen[0], total - rlen[0]) != 0;
	if (ret != 0)
		printf("#   multi-SGE SEND wrong\n");
	/* READ the first total remote bytes back into the three pieces. */
	if (ret == 0) {
		memcpy(expect, e.s[1].buf + ROCE_TEST_DATA_OFF, total);
		for (i = 0; i < 3; i++)
			memset((void *)(uintptr_t)sge[i].addr, 0, slen[i]);
		wr = (struct ibv_send_wr){ .wr_id = 2, .sg_list = sge, .num_sge = 3,
					   .opcode = IBV_WR_RDMA_READ,
					   .send_flags = IBV_SEND_SIGNALED };
		wr.wr.rdma.remote_addr = (uintptr_t)(e.s[1].buf + ROCE_TEST_DATA_OFF);
		wr.wr.rdma.rkey = e.s[1].mr->rkey;
		ROCE_TEST_ASSERT_EQ(rte_roce_post_send(e.qp[0][0], &wr, &bad), 0, "post READ");
		ret = roce_test_wait_wc(&e, e.s[0].scq, &wc, 1) == 1 && wc.status == IBV_WC_SUCCESS ? 0 : -1;
		for (i = 0, off = 0; ret == 0 && i < 3; off += slen[i], i++)
			ret = memcmp((void *)(uintptr_t)sge[i].addr, expect + off, slen[i]) != 0;
		if (ret != 0)
			printf("#   multi-SGE READ wrong\n");
	}
	/* Inline SEND: the data is copied at post time, the buffer may change after. */
	if (ret == 0) {
		roce_test_fill(e.s[0].buf, 40, 77);
		memcpy(expect, e.s[0].buf, 40);
		ret = roce_test_post_recv(e.qp[1][0], 3, e.s[1].buf, 64, e.s[1].mr->lkey) |
		      roce_test_post_send(e.qp[0][0], IBV_WR_SEND, 3, e.s[0].buf, 40, 0, 0, 0,
				IBV_SEND_SIGNALED | IBV_SEND_INLINE);
		memset(e.s[0].buf, 0, 40);
		ret |= roce_test_wait_wc(&e, e.s[1].rcq, &wc, 1) == 1 && wc.byte_len == 40 ? 0 : -1;
		ret |= memcmp(e.s[1].buf, expect, 40) != 0;
		ret |= roce_test_wait_wc(&e, e.s[0].scq, &wc, 1) == 1 && wc.status == IBV_WC_SUCCESS ? 0 : -1;
		if (ret != 0)
			printf("#   inline SEND wrong\n");
	}
	return roce_test_env_close(&e) | ret;
}


/*
 * Lossy rings, by hand (the fault injector's rate tests live with it): both
 * rings are taken between polls and frames dropped, duplicated and swapped
 * with fixed odds and seed. Every WR must complete once, in order, with the
 * right data; FETCH_ADD must run exactly once per WR however often its
 * request or answer is repeated.
 */
#define SOAK_ROUNDS	40
#define SOAK_DROP_PCT	10
#define SOAK_DUP_PCT	5
#define SOAK_SWAP_PCT	5
#define SOAK_MAX_LEN	20000
#define SOAK_SLOT	32768
#define SOAK_BURST	64

static uint32_t soak_state;

static uint32_t
soak_rand(void)
{
	/* Numerical Recipes LCG: reproducible on every libc. */
	soak_state = soak_state * 1664525u + 1013904223u;
	return soak_state >> 8;
}

static bool
soak_chance(unsigned int pct)
{
	return soak_rand() % 100 < pct;
}

static void
soak_mangle(unsigned int r)
{
	struct rte_mbuf *in[SOAK_BURST], *out[2 * SOAK_BURST], *t;
	unsigned int n, i, k = 0;

	n = rte_ring_dequeue_burst(roce_test_verbs_pair.ring[r], (void **)in, RTE_DIM(in), NULL);
	for (i = 0; i < n; i++) {
		if (soak_chance(SOAK_DROP_PCT)) {
			rte_pktmbuf_free(in[i]);
			continue;
		}
		out[k++] = in[i];
		if (soak_chance(SOAK_DUP_PCT)) {
			t = rte_pktmbuf_copy(in[i], roce_test_mbuf_pool(), 0, UINT32_MAX);
			if (t != NULL)
				out[k++] = t;
		}
	}
	for (i = 0; i + 1 < k; i++) {
		if (soak_chance(SOAK_SWAP_PCT)) {
			t = out[i];
			out[i] = out[i + 1];
			out[i + 1] = t;
		}
	}
	for (i = 0; i < k; i++) {
		if (rte_ring_enqueue(roce_test_verbs_pair.ring[r], out[i]) != 0)
			rte_pktmbuf_free(out[i]);
	}
}

static const enum ibv_wr_opcode soak_ops[] = {
	IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ, IBV_WR_SEND_WITH_IMM,
	IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_ATOMIC_FETCH_AND_ADD,
};

/* Post one round: every op of soak_ops with len bytes; returns the receives expected. */
static int
soak_post(struct roce_test_env *e, uint32_t len, uint32_t round, unsigned int *nrecv)
{
	uint64_t *counter = (uint64_t *)(e->s[1].buf + ATOMIC_OFF);
	enum ibv_wr_opcode op;
	uint32_t off;
	unsigned int i;
	int ret = 0;

	*nrecv = 0;
	for (i = 0; ret == 0 && i < RTE_DIM(soak_ops); i++) {
		op = soak_ops[i];
		off = ROCE_TEST_DATA_OFF + SOAK_SLOT * (i + 1);
		if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			ret = roce_test_post_atomic(e->qp[0][0], op, i, e->s[0].buf + ATOMIC_OFF,
					  e->s[0].mr->lkey, (uintptr_t)counter, e->s[1].mr->rkey,
					  1, 0);
			continue;
		}
		roce_test_fill((op == IBV_WR_RDMA_READ ? e->s[1].buf : e->s[0].buf) + off, len,
		     round * RTE_DIM(soak_ops) + i);
		memset((op == IBV_WR_RDMA_READ ? e->s[0].buf : e->s[1].buf) + off, 0, len);
		if (op != IBV_WR_RDMA_WRITE && op != IBV_WR_RDMA_READ) {
			ret = roce_test_post_recv(e->qp[1][0], i, e->s[1].buf + off,
					op == IBV_WR_RDMA_WRITE_WITH_IMM ? 0 : SOAK_SLOT,
					e->s[1].mr->lkey);
			(*nrecv)++;
		}
		if (ret == 0)
			ret = roce_test_post_send(e->qp[0][0], op, i, e->s[0].buf + off, len,
					e->s[0].mr->lkey, (uintptr_t)(e->s[1].buf + off),
					e->s[1].mr->rkey, IBV_SEND_SIGNALED);
	}
	return ret;
}

/* Drive both sides through the lossy rings until the round's completions came. */
static int
soak_wait(struct roce_test_env *e, uint32_t round, unsigned int nrecv)
{
	uint64_t end = roce_test_ms() + 4 * ROCE_TEST_WAIT_MS;
	unsigned int got_s = 0, got_r = 0, i;
	struct ibv_wc wc[SOAK_BURST];
	int n;

	while ((got_s < RTE_DIM(soak_ops) || got_r < nrecv) && roce_test_ms() < end) {
		rte_roce_poll(e->s[0].ctx);
		soak_mangle(1);
		rte_roce_poll(e->s[1].ctx);
		soak_mangle(0);
		n = rte_roce_poll_cq(e->s[0].scq, RTE_DIM(wc), wc);
		for (i = 0; n > 0 && i < (unsigned int)n; i++, got_s++)
			ROCE_TEST_ASSERT(wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id == got_s,
					 "round %u: send WR %llu status %d, expected WR %u", round,
					 (unsigned long long)wc[i].wr_id, wc[i].status, got_s);
		n = rte_roce_poll_cq(e->s[1].rcq, RTE_DIM(wc), wc);
		for (i = 0; n > 0 && i < (unsigned int)n; i++, got_r++)
			ROCE_TEST_ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS, "round %u: receive", round);
	}
	ROCE_TEST_ASSERT_EQ(got_s, RTE_DIM(soak_ops), "round %u: send completions", round);
	ROCE_TEST_ASSERT_EQ(got_r, nrecv, "round %u: receive completions", round);
	return 0;
}

static int
test_lossy_rings(void)
{
	uint64_t *counter, *result;
	struct roce_test_conf c = roce_test_default_conf;
	unsigned int nrecv, i;
	uint32_t round, len;
	struct roce_test_env e;
	int ret;

	soak_state = 1;
	c.timeout = TIMEOUT_FAST;
	ret = roce_test_env_open(&e, &c, 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	counter = (uint64_t *)(e.s[1].buf + ATOMIC_OFF);
	result = (uint64_t *)(e.s[0].buf + ATOMIC_OFF);
	*counter = 0;
	for (round = 0; ret == 0 && round < SOAK_ROUNDS; round++) {
		len = soak_rand() % SOAK_MAX_LEN;
		ret = soak_post(&e, len, round, &nrecv);
		if (ret == 0)
			ret = soak_wait(&e, round, nrecv);
		for (i = 0; ret == 0 && i < RTE_DIM(soak_ops); i++) {
			uint32_t off = ROCE_TEST_DATA_OFF + SOAK_SLOT * (i + 1);

			ROCE_TEST_ASSERT(memcmp(e.s[0].buf + off, e.s[1].buf + off, len) == 0,
					 "round %u, op %d, %u bytes: data differs", round,
					 soak_ops[i], len);
		}
		if (ret == 0) {
			ROCE_TEST_ASSERT_EQ(*result, round, "FETCH_ADD returned");
			ROCE_TEST_ASSERT_EQ(*counter, round + 1, "FETCH_ADD ran once");
		}
	}
	if (ret == 0) {
		/* The loss was real: recovery ran. */
		ROCE_TEST_ASSERT(roce_test_xstats(&e.s[0])->qp.completer_retry_err > 0 &&
				 roce_test_xstats(&e.s[1])->qp.duplicate_request > 0,
				 "no recovery exercised");
	}
	return roce_test_env_close(&e) | ret;
}

/* Every opcode over IPv6 addresses (ND instead of ARP, IPv6 frames). */
static int
test_ipv6(void)
{
	struct roce_test_conf c = roce_test_default_conf;

	c.ipv6 = true;
	return all_ops_both_ways(&c);
}

/*
 * More WRs than the send queue holds, so its slots are reused; then an error
 * takes both QPs to ERR, they go through RESET and connect again with new
 * PSNs, and traffic runs as before.
 */
static int
test_sq_wrap_and_reuse(void)
{
	const unsigned int rounds = 12, per_round = 100;
	struct roce_test_conf c = roce_test_default_conf;
	struct ibv_wc wc[per_round];
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RESET };
	unsigned int r, i;
	struct roce_test_env e;
	int ret;

	ret = roce_test_env_open(&e, &c, 1);
	for (r = 0; ret == 0 && r < rounds; r++) {
		for (i = 0; ret == 0 && i < per_round; i++)
			ret = roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_WRITE, r * per_round + i,
					e.s[0].buf + ROCE_TEST_DATA_OFF, 1500, e.s[0].mr->lkey,
					(uintptr_t)(e.s[1].buf + ROCE_TEST_DATA_OFF), e.s[1].mr->rkey,
					IBV_SEND_SIGNALED);
		if (ret == 0)
			ret = roce_test_wait_wc(&e, e.s[0].scq, wc, per_round) == (int)per_round ? 0 : -1;
		for (i = 0; ret == 0 && i < per_round; i++)
			ret = wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id == r * per_round + i ?
			      0 : -1;
	}
	/* A bad rkey: both QPs to ERR. */
	if (ret == 0)
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_WRITE, 1, e.s[0].buf, 8, e.s[0].mr->lkey,
				(uintptr_t)e.s[1].buf, e.s[1].mr->rkey ^ 1, IBV_SEND_SIGNALED);
	if (ret == 0)
		ret = expect_fail_then_flush(&e, IBV_WC_REM_ACCESS_ERR);
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(e.qp[0][0], &attr, IBV_QP_STATE), 0, "reset");
		ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(e.qp[1][0], &attr, IBV_QP_STATE), 0, "reset");
		c.psn_ab = 77777;
		c.psn_ba = 88888;
		ret = roce_test_pair_connect(&e, 0, &c);
	}
	for (i = 0; ret == 0 && i < RTE_DIM(data_ops); i++)
		ret = roce_test_transfer(&e, 0, 0, data_ops[i], 3000, ROCE_TEST_DATA_OFF, i);
	if (ret == 0)
		ret = atomics(&e);
	if (ret != 0)
		printf("#   failed in round %u, WR %u\n", r, i);
	return roce_test_env_close(&e) | ret;
}

static const struct roce_test_case cases[] = {
	{ "rc_ops_sizes_mtu256", test_ops_mtu256 },
	{ "rc_ops_sizes_mtu1024", test_ops_mtu1024 },
	{ "rc_atomics", test_atomics },
	{ "rc_many_qps", test_many_qps },
	{ "rc_many_qps_backpressure", test_many_qps_backpressure },
	{ "rc_mbuf_pool_empty", test_mbuf_pool_empty },
	{ "rc_psn_wrap", test_psn_wrap },
	{ "rc_unsignaled", test_unsignaled },
	{ "rc_tx_batching", test_tx_batching },
	{ "rc_sqd_holds_new_wrs", test_sqd_holds_new_wrs },
	{ "rc_zero_length_no_rkey", test_zero_length_no_rkey },
	{ "rc_remote_access_errors", test_remote_access_errors },
	{ "rc_rnr_late_receiver", test_rnr_late_receiver },
	{ "rc_rnr_exhausted", test_rnr_exhausted },
	{ "rc_peer_vanishes", test_peer_vanishes },
	{ "rc_peer_gone_tx_held", test_peer_gone_tx_held },
	{ "rc_injected_requests", test_injected_requests },
	{ "rc_lost_request_timeout", test_lost_request_timeout },
	{ "rc_lost_packet_seq_nak", test_lost_packet_seq_nak },
	{ "rc_lost_read_response_implied_nak", test_lost_read_response_implied_nak },
	{ "rc_ack_of_wqe_being_resent", test_ack_of_wqe_being_resent },
	{ "rc_bad_lkey", test_bad_lkey },
	{ "rc_recv_too_small", test_recv_too_small },
	{ "rc_recv_bad_lkey", test_recv_bad_lkey },
	{ "rc_qp_access_denied", test_qp_access_denied },
	{ "rc_fence", test_fence },
	{ "rc_rd_atomic_limit", test_rd_atomic_limit },
	{ "rc_sge_lists_and_inline", test_sge_lists_and_inline },
	{ "rc_lossy_rings", test_lossy_rings },
	{ "rc_ipv6", test_ipv6 },
	{ "rc_sq_wrap_and_reuse", test_sq_wrap_and_reuse },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&roce_test_verbs_pair, "rc") != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
