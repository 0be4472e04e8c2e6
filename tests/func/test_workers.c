/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Worker mode against inline mode (doc/workers.md): two devices over the
 * net_ring pair, side a's either inline (driven by this thread) or driven
 * by a worker on lcore 1, side b's always inline. The same RC table gives
 * the same results in both models; application threads post and poll
 * their own QPs and CQs at once while the worker runs; control calls from
 * another thread park the worker without losing traffic; the errors of
 * opening a device in worker mode and of reading worker counters.
 *
 * Run with -l 0,1: lcore 1 is the only worker lcore.
 */

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_hash_crc.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include <rte_roce.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#define WORKER_LCORE		1
#define NB_THREADS		3		/* application threads posting at once */
#define THREAD_WRS		3000		/* WRs per thread */
#define THREAD_WINDOW		128		/* WRs in flight per thread */
#define THREAD_MSG		64		/* bytes per WRITE */
#define THREAD_OFF		(ROCE_TEST_MSG_MAX / 2)	/* where the threads write in b's buffer */
#define THREAD_WAIT_MS		60000		/* ThreadSanitizer runs are slow */
/* ACK timeout code of the threads' QPs: 4.096 us << 20, about 4 s (TSan on 2 shared cores is slow). */
#define THREAD_ACK_TIMEOUT	20
#define CTRL_ROUNDS		100		/* control calls made while traffic runs */
#define CTRL_MR_LEN		4096
#define NOT_AN_LCORE		(RTE_MAX_LCORE - 1)
#define BP_CQE			4		/* the tiny receive CQ */
#define BP_MSGS			64		/* SENDs into it */
#define BP_MSG_LEN		16
#define SBP_QPS_MAX		2		/* QPs sharing the tiny send CQ */
#define SBP_FLUSH_WRS		16		/* SENDs posted before the move to ERR */
#define SBP_HOLD_MS		100		/* worker mode: time to fill the CQ and be held */
#define SBP_WRID(q, i)		((uint64_t)(q) << 32 | (i))

/* One transfer of the table; what it gave in each model. */
struct model_case {
	enum ibv_wr_opcode op;
	uint32_t len;
	unsigned int from;	/* side that posts */
};

static const struct model_case model_cases[] = {
	{ IBV_WR_SEND, 0, 0 }, { IBV_WR_SEND, 1, 0 }, { IBV_WR_SEND, 1024, 0 },
	{ IBV_WR_SEND, 5000, 1 }, { IBV_WR_SEND_WITH_IMM, 3000, 0 },
	{ IBV_WR_RDMA_WRITE, 1025, 0 }, { IBV_WR_RDMA_WRITE, 64 << 10, 1 },
	{ IBV_WR_RDMA_WRITE_WITH_IMM, 2048, 1 }, { IBV_WR_RDMA_READ, 1, 0 },
	{ IBV_WR_RDMA_READ, 64 << 10, 0 }, { IBV_WR_RDMA_READ, 4000, 1 },
	{ IBV_WR_SEND_WITH_INV, 100, 0 },
};

struct model_result {
	int rc;			/* roce_test_transfer() */
	uint32_t digest;	/* CRC of the bytes that arrived */
};

static struct rte_roce_dev_conf worker_conf = {
	.nb_workers = 1,
	.lcores = { WORKER_LCORE },
};

/* Open the env with side a in worker mode (or inline) and one connected RC pair, warmed up. */
static int
env_open(struct roce_test_env *e, bool worker, unsigned int nqps)
{
	struct roce_test_conf c = roce_test_default_conf;

	c.dev_conf[0] = worker ? &worker_conf : NULL;
	if (roce_test_env_open(e, &c, nqps) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_dev_nb_workers(e->s[0].ctx), worker ? 1 : 0, "workers");
	return roce_test_warm_up(e);
}

static int
run_model(bool worker, struct model_result *res)
{
	struct rte_roce_worker_stats st;
	struct roce_test_env e;
	unsigned int i;
	int ret = 0;

	if (env_open(&e, worker, 1) != 0)
		ret = -1;
	for (i = 0; ret == 0 && i < RTE_DIM(model_cases); i++) {
		const struct model_case *mc = &model_cases[i];
		bool read = mc->op == IBV_WR_RDMA_READ;
		unsigned int to = read ? mc->from : !mc->from;

		res[i].rc = roce_test_transfer(&e, mc->from, 0, mc->op, mc->len, ROCE_TEST_DATA_OFF,
					       i + 1);
		res[i].digest = rte_hash_crc(e.s[to].buf + ROCE_TEST_DATA_OFF, mc->len, 0);
		if (res[i].rc != 0)
			printf("#   %s mode: case %u (op %d, len %u) failed\n",
			       worker ? "worker" : "inline", i, mc->op, mc->len);
	}
	if (ret == 0 && worker) {
		/* The worker made the progress: polling its device does nothing. */
		ROCE_TEST_ASSERT_EQ(rte_roce_poll(e.s[0].ctx), 0, "poll in worker mode");
		ROCE_TEST_ASSERT_EQ(rte_roce_worker_stats_get(e.s[0].ctx, -1, &st), 0, "stats");
		ROCE_TEST_ASSERT(st.busy_loops > 0 && st.work >= RTE_DIM(model_cases),
				 "worker did %" PRIu64 " work in %" PRIu64 " busy loops",
				 st.work, st.busy_loops);
		ROCE_TEST_ASSERT(st.ctrl_pauses > 0, "control calls did not park the worker");
	}
	if (roce_test_env_close(&e) != 0)
		ret = -1;
	return ret;
}

/* The same RC table in inline and in worker mode: same results, data and completions. */
static int
test_models_same_results(void)
{
	struct model_result inl[RTE_DIM(model_cases)], wrk[RTE_DIM(model_cases)];
	unsigned int i;

	memset(inl, 0xff, sizeof(inl));
	memset(wrk, 0, sizeof(wrk));
	ROCE_TEST_ASSERT_EQ(run_model(false, inl), 0, "inline mode");
	ROCE_TEST_ASSERT_EQ(run_model(true, wrk), 0, "worker mode");
	for (i = 0; i < RTE_DIM(model_cases); i++) {
		ROCE_TEST_ASSERT_EQ(wrk[i].rc, inl[i].rc, "case %u result", i);
		ROCE_TEST_ASSERT_EQ(wrk[i].digest, inl[i].digest, "case %u data", i);
	}
	return 0;
}

/* An application thread with its own QP and CQ on side a, writing to its own QP on b. */
struct app_thread {
	struct roce_test_env *e;
	unsigned int idx;
	struct ibv_cq *cq;
	struct ibv_qp *qp;	/* on a */
	struct ibv_qp *peer;	/* on b */
	struct roce_test_stream st;	/* what its thread posts */
};

static int
app_thread_setup(struct roce_test_env *e, struct app_thread *t, unsigned int idx)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = THREAD_WINDOW, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct roce_test_conf conf = roce_test_default_conf;
	const struct roce_test_conf *c = &conf;

	conf.timeout = THREAD_ACK_TIMEOUT;
	memset(t, 0, sizeof(*t));
	t->e = e;
	t->idx = idx;
	t->cq = rte_roce_create_cq(e->s[0].ctx, THREAD_WINDOW, NULL, NULL, 0);
	ROCE_TEST_ASSERT(t->cq != NULL, "create_cq");
	ia.send_cq = t->cq;
	ia.recv_cq = t->cq;
	t->qp = rte_roce_create_qp(e->s[0].pd, &ia);
	ROCE_TEST_ASSERT(t->qp != NULL, "create_qp a");
	if (roce_test_qp_create(&e->s[1], IBV_QPT_RC, &t->peer) != 0)
		return -1;
	if (roce_test_qp_connect(t->qp, &e->s[0], &e->s[1], t->peer->qp_num, c->psn_ab,
				 c->psn_ba, c) != 0 ||
	    roce_test_qp_connect(t->peer, &e->s[1], &e->s[0], t->qp->qp_num, c->psn_ba,
				 c->psn_ab, c) != 0)
		return -1;
	/* THREAD_WRS WRITEs, THREAD_WINDOW at most in flight; every completion once, in order. */
	roce_test_stream_init(&t->st, e, t->qp, THREAD_OFF + idx * THREAD_MSG, THREAD_MSG,
			      THREAD_WRS, THREAD_WINDOW, THREAD_WAIT_MS);
	return 0;
}

static int
app_thread_teardown(struct app_thread *t)
{
	int ret = 0;

	if (t->qp != NULL && rte_roce_destroy_qp(t->qp) != 0)
		ret = -1;
	if (t->peer != NULL && rte_roce_destroy_qp(t->peer) != 0)
		ret = -1;
	if (t->cq != NULL && rte_roce_destroy_cq(t->cq) != 0)
		ret = -1;
	ROCE_TEST_ASSERT_EQ(ret, 0, "thread %u teardown", t->idx);
	return 0;
}

/* Control calls from another thread while the worker runs: QPs, MRs, AHs. */
struct ctrl_thread {
	struct roce_test_env *e;
	unsigned int rounds;
	int rc;
};

static int
ctrl_round(struct roce_test_env *e)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;

	if (roce_test_qp_create(&e->s[0], IBV_QPT_RC, &qp) != 0)
		return -1;
	attr.qp_state = IBV_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = 1;
	attr.qp_access_flags = 0;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0, "modify");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(qp, &attr, IBV_QP_STATE, &init), 0, "query");
	ROCE_TEST_ASSERT_EQ(attr.qp_state, IBV_QPS_INIT, "state");
	mr = rte_roce_reg_mr(e->s[0].pd, e->s[0].buf, CTRL_MR_LEN, IBV_ACCESS_LOCAL_WRITE);
	ROCE_TEST_ASSERT(mr != NULL, "reg_mr");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), 0, "dereg_mr");
	ah = roce_test_ah_create(&e->s[0], ROCE_TEST_ADDR_B);
	ROCE_TEST_ASSERT(ah != NULL, "create_ah");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_ah(ah), 0, "destroy_ah");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp), 0, "destroy");
	return 0;
}

static void *
ctrl_thread_main(void *arg)
{
	struct ctrl_thread *c = arg;

	for (c->rounds = 0; c->rounds < CTRL_ROUNDS && c->rc == 0; c->rounds++)
		c->rc = ctrl_round(c->e);
	return NULL;
}

static int
run_threads(bool with_ctrl)
{
	struct app_thread t[NB_THREADS];
	struct roce_test_stream *stp[NB_THREADS];
	struct rte_roce_worker_stats before, after;
	struct rte_roce_stats bst;
	struct ctrl_thread ctrl = { 0 };
	pthread_t tid[NB_THREADS], ctid;
	struct roce_test_env e;
	unsigned int i, started = 0;
	bool ctrl_started = false;
	int ret = 0;

	memset(t, 0, sizeof(t));
	if (env_open(&e, true, 1) != 0)
		ret = -1;
	for (i = 0; ret == 0 && i < NB_THREADS; i++)
		ret = app_thread_setup(&e, &t[i], i);
	if (ret == 0)
		ret = rte_roce_worker_stats_get(e.s[0].ctx, 0, &before);
	ctrl.e = &e;
	for (i = 0; ret == 0 && i < NB_THREADS; i++) {
		stp[i] = &t[i].st;
		ret = pthread_create(&tid[i], NULL, roce_test_stream_thread, &t[i].st);
		started += ret == 0;
	}
	if (ret == 0 && with_ctrl) {
		ctrl_started = pthread_create(&ctid, NULL, ctrl_thread_main, &ctrl) == 0;
		ret = ctrl_started ? 0 : -1;
	}
	roce_test_streams_wait(e.s[1].ctx, stp, started);
	for (i = 0; i < started; i++) {
		pthread_join(tid[i], NULL);
		if (t[i].st.rc != 0)
			ret = -1;
	}
	if (ret != 0 && rte_roce_stats_get(e.s[1].ctx, &bst) == 0)
		printf("#   b: %" PRIu64 " out of sequence, %" PRIu64 " duplicates\n",
		       bst.out_of_seq_request, bst.duplicate_request);
	if (ctrl_started)
		pthread_join(ctid, NULL);
	if (with_ctrl && ret == 0) {
		ROCE_TEST_ASSERT_EQ(ctrl.rc, 0, "control thread, round %u", ctrl.rounds);
		ROCE_TEST_ASSERT_EQ(ctrl.rounds, CTRL_ROUNDS, "control rounds");
		ROCE_TEST_ASSERT_EQ(rte_roce_worker_stats_get(e.s[0].ctx, 0, &after), 0, "stats");
		/*
		 * The control calls parked the worker. Back-to-back calls may
		 * find it still parked from the one before, and on a loaded
		 * machine it may not leave its park between the setup's last
		 * call and the thread's 800: count from the device's opening.
		 */
		ROCE_TEST_ASSERT(after.ctrl_pauses > 0 && after.ctrl_pauses >= before.ctrl_pauses,
				 "%" PRIu64 " pauses, %" PRIu64 " before", after.ctrl_pauses,
				 before.ctrl_pauses);
	}
	for (i = 0; i < NB_THREADS; i++)
		if (app_thread_teardown(&t[i]) != 0)
			ret = -1;
	if (roce_test_env_close(&e) != 0)
		ret = -1;
	return ret;
}

/* NB_THREADS application threads, each with its own QP and CQ, post at once. */
static int
test_threads_posting(void)
{
	return run_threads(false);
}

/* The same while another thread makes control calls (ctrl_round()). */
static int
test_ctrl_while_traffic(void)
{
	return run_threads(true);
}

/* a's QP with a tiny receive CQ, connected to a new QP on b. */
static int
bp_setup(struct roce_test_env *e, struct ibv_cq **cq, struct ibv_qp **qp, struct ibv_qp **peer)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = e->s[0].scq,
		.cap = { .max_send_wr = 1, .max_recv_wr = BP_MSGS, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	const struct roce_test_conf *c = &roce_test_default_conf;

	*cq = rte_roce_create_cq(e->s[0].ctx, BP_CQE, NULL, NULL, 0);
	ROCE_TEST_ASSERT(*cq != NULL, "create_cq");
	ia.recv_cq = *cq;
	*qp = rte_roce_create_qp(e->s[0].pd, &ia);
	ROCE_TEST_ASSERT(*qp != NULL, "create_qp");
	if (roce_test_qp_create(&e->s[1], IBV_QPT_RC, peer) != 0 ||
	    roce_test_qp_connect(*qp, &e->s[0], &e->s[1], (*peer)->qp_num, c->psn_ab, c->psn_ba,
				 c) != 0 ||
	    roce_test_qp_connect(*peer, &e->s[1], &e->s[0], (*qp)->qp_num, c->psn_ba, c->psn_ab,
				 c) != 0)
		return -1;
	return 0;
}

/* RNR NAKs b received (b is inline: its counters are read from this thread). */
static uint64_t
b_rnr_naks_in(struct roce_test_env *e)
{
	struct rte_roce_stats st;

	return rte_roce_stats_get(e->s[1].ctx, &st) == 0 ? st.rcvd_rnr_err : 0;
}

/* Drain the tiny CQ one completion at a time while b runs: every SEND once, in order. */
static int
bp_drain(struct roce_test_env *e, struct ibv_cq *cq, struct ibv_qp *qp)
{
	uint64_t end = roce_test_ms() + THREAD_WAIT_MS;
	struct ibv_wc wc;
	uint32_t got = 0;
	int n;

	while (got < BP_MSGS && roce_test_ms() < end) {
		roce_test_pump_env(e);
		n = rte_roce_poll_cq(cq, 1, &wc);
		ROCE_TEST_ASSERT(n >= 0, "poll_cq: %d (overrun?)", n);
		if (n == 0)
			continue;
		ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_SUCCESS, "recv %u", got);
		ROCE_TEST_ASSERT_EQ(wc.wr_id, got, "recv order");
		ROCE_TEST_ASSERT_EQ(wc.byte_len, BP_MSG_LEN, "recv length");
		ROCE_TEST_ASSERT_EQ(wc.qp_num, qp->qp_num, "recv QP");
		got++;
	}
	ROCE_TEST_ASSERT_EQ(got, BP_MSGS, "receive completions");
	return 0;
}

/*
 * More SENDs than a's receive CQ holds, nobody draining it: a stops taking
 * them (RNR NAKs: b waits) instead of overrunning the CQ; once drained,
 * every message arrives, once and in order, and b's SENDs all succeed.
 */
static int
run_backpressure(bool worker)
{
	struct ibv_qp *qp = NULL, *peer = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_wc wc[BP_MSGS];
	struct roce_test_env e;
	uint64_t end;
	uint32_t i;
	int ret = 0;

	if (env_open(&e, worker, 1) != 0 || bp_setup(&e, &cq, &qp, &peer) != 0)
		ret = -1;
	for (i = 0; ret == 0 && i < BP_MSGS; i++)
		ret = roce_test_post_recv(qp, i, e.s[0].buf + i * BP_MSG_LEN, BP_MSG_LEN,
					  e.s[0].mr->lkey);
	for (i = 0; ret == 0 && i < BP_MSGS; i++)
		ret = roce_test_post_send(peer, IBV_WR_SEND, i, e.s[1].buf, BP_MSG_LEN,
					  e.s[1].mr->lkey, 0, 0, IBV_SEND_SIGNALED);
	/* Nobody drains a's CQ until b was refused (RNR NAK) at least once. */
	end = roce_test_ms() + THREAD_WAIT_MS;
	while (ret == 0 && b_rnr_naks_in(&e) == 0 && roce_test_ms() < end)
		roce_test_pump_env(&e);
	if (ret == 0) {
		ROCE_TEST_ASSERT(b_rnr_naks_in(&e) > 0, "b was never held");
		ret = bp_drain(&e, cq, qp);
	}
	if (ret == 0)
		ret = roce_test_wait_wc(&e, e.s[1].scq, wc, BP_MSGS) == BP_MSGS ? 0 : -1;
	for (i = 0; ret == 0 && i < BP_MSGS; i++) {
		ROCE_TEST_ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS, "send %u", i);
		ROCE_TEST_ASSERT_EQ(wc[i].wr_id, i, "send order");
	}
	if ((qp != NULL && rte_roce_destroy_qp(qp) != 0) ||
	    (peer != NULL && rte_roce_destroy_qp(peer) != 0) ||
	    (cq != NULL && rte_roce_destroy_cq(cq) != 0))
		ret = -1;
	if (roce_test_env_close(&e) != 0)
		ret = -1;
	return ret;
}

/* Send-side back-pressure: nqps QPs on a sharing a send CQ of BP_CQE entries, peers on b. */
struct sbp {
	struct roce_test_env e;
	struct ibv_cq *scq;
	unsigned int nqps;
	struct ibv_qp *qp[SBP_QPS_MAX];
	struct ibv_qp *peer[SBP_QPS_MAX];
};

static int
sbp_open(struct sbp *b, bool worker, unsigned int nqps)
{
	const struct roce_test_conf *c = &roce_test_default_conf;
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = BP_MSGS, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	unsigned int q, i;

	memset(b, 0, sizeof(*b));
	b->nqps = nqps;
	if (env_open(&b->e, worker, 1) != 0)
		return -1;
	b->scq = rte_roce_create_cq(b->e.s[0].ctx, BP_CQE, NULL, NULL, 0);
	ROCE_TEST_ASSERT(b->scq != NULL, "create_cq");
	ia.send_cq = b->scq;
	ia.recv_cq = b->e.s[0].rcq;
	for (q = 0; q < nqps; q++) {
		b->qp[q] = rte_roce_create_qp(b->e.s[0].pd, &ia);
		ROCE_TEST_ASSERT(b->qp[q] != NULL, "create_qp");
		if (roce_test_qp_create(&b->e.s[1], IBV_QPT_RC, &b->peer[q]) != 0 ||
		    roce_test_qp_connect(b->qp[q], &b->e.s[0], &b->e.s[1], b->peer[q]->qp_num,
					 c->psn_ab, c->psn_ba, c) != 0 ||
		    roce_test_qp_connect(b->peer[q], &b->e.s[1], &b->e.s[0], b->qp[q]->qp_num,
					 c->psn_ba, c->psn_ab, c) != 0)
			return -1;
		for (i = 0; i < BP_MSGS; i++)
			if (roce_test_post_recv(b->peer[q], i, b->e.s[1].buf, BP_MSG_LEN,
						b->e.s[1].mr->lkey) != 0)
				return -1;
	}
	return 0;
}

static int
sbp_close(struct sbp *b)
{
	unsigned int q;
	int ret = 0;

	for (q = 0; q < b->nqps; q++) {
		if (b->qp[q] != NULL && rte_roce_destroy_qp(b->qp[q]) != 0)
			ret = -1;
		if (b->peer[q] != NULL && rte_roce_destroy_qp(b->peer[q]) != 0)
			ret = -1;
	}
	if (b->scq != NULL && rte_roce_destroy_cq(b->scq) != 0)
		ret = -1;
	return roce_test_env_close(&b->e) | ret;
}

/* Held passes of a's QPs (relaxed reads of the worker's counters in worker mode). */
static uint64_t
sbp_stalls(struct sbp *b)
{
	struct rte_roce_stats st;
	uint64_t n = 0;
	unsigned int q;

	for (q = 0; q < b->nqps; q++)
		if (rte_roce_qp_stats_get(b->qp[q], &st) == 0)
			n += st.send_cq_full_stalls;
	return n;
}

/*
 * Post n signaled SENDs on each QP and let the CQ fill, nobody polling.
 * Inline: until the requester was held at least once (this thread runs the
 * engine). Worker: SBP_HOLD_MS, without reading the worker's plain
 * counters while it runs (a data race for ThreadSanitizer); they are read
 * once the completions were polled, which orders them (sbp_drain()).
 */
static int
sbp_post_until_held(struct sbp *b, uint32_t n)
{
	bool worker = rte_roce_dev_nb_workers(b->e.s[0].ctx) > 0;
	uint64_t end = roce_test_ms() + (worker ? SBP_HOLD_MS : THREAD_WAIT_MS);
	unsigned int q;
	uint32_t i;

	for (i = 0; i < n; i++)
		for (q = 0; q < b->nqps; q++)
			if (roce_test_post_send(b->qp[q], IBV_WR_SEND, SBP_WRID(q, i), b->e.s[0].buf,
						BP_MSG_LEN, b->e.s[0].mr->lkey, 0, 0,
						IBV_SEND_SIGNALED) != 0)
				return -1;
	while ((worker || sbp_stalls(b) == 0) && roce_test_ms() < end)
		roce_test_pump_env(&b->e);
	return 0;
}

/*
 * Drain the tiny send CQ one completion at a time: n per QP, each QP's in
 * posting order, never -EOVERFLOW. flush: successes (at most BP_CQE: those
 * the CQ held) then flushes; else successes only.
 */
static int
sbp_drain(struct sbp *b, uint32_t n, bool flush)
{
	uint64_t end = roce_test_ms() + THREAD_WAIT_MS;
	uint32_t got[SBP_QPS_MAX] = { 0 };
	uint32_t ok[SBP_QPS_MAX] = { 0 };
	uint32_t total = 0, q, i;
	struct ibv_wc wc;
	int r;

	while (total < n * b->nqps && roce_test_ms() < end) {
		roce_test_pump_env(&b->e);
		r = rte_roce_poll_cq(b->scq, 1, &wc);
		ROCE_TEST_ASSERT(r >= 0, "poll_cq: %d (overrun?)", r);
		if (r == 0)
			continue;
		q = wc.wr_id >> 32;
		ROCE_TEST_ASSERT(q < b->nqps && wc.qp_num == b->qp[q]->qp_num, "completion's QP");
		i = got[q]++;
		ROCE_TEST_ASSERT_EQ(wc.wr_id, SBP_WRID(q, i), "send order");
		if (wc.status == IBV_WC_SUCCESS && ok[q] == i)
			ok[q]++;
		else
			ROCE_TEST_ASSERT(flush && wc.status == IBV_WC_WR_FLUSH_ERR,
					 "send %u status %d", i, wc.status);
		total++;
	}
	ROCE_TEST_ASSERT_EQ(total, n * b->nqps, "send completions");
	ROCE_TEST_ASSERT(sbp_stalls(b) > 0, "the requester was never held");
	for (q = 0; q < b->nqps; q++)
		ROCE_TEST_ASSERT(flush ? ok[q] <= BP_CQE : ok[q] == n, "QP %u: %u successes", q, ok[q]);
	return 0;
}

/*
 * BP_MSGS signaled SENDs (over nqps QPs sharing it) into a send CQ of BP_CQE
 * drained slowly: the requester holds (send_cq_full_stalls) instead of
 * overrunning the CQ, every SEND completes once and in order and arrives.
 */
static int
run_send_backpressure(bool worker, unsigned int nqps)
{
	uint32_t per_qp = BP_MSGS / nqps;
	struct ibv_wc wc[BP_MSGS];
	struct sbp b;
	int ret;

	ret = sbp_open(&b, worker, nqps);
	if (ret == 0)
		ret = sbp_post_until_held(&b, per_qp);
	if (ret == 0)
		ret = sbp_drain(&b, per_qp, false);
	if (ret == 0)
		ret = roce_test_wait_wc(&b.e, b.e.s[1].rcq, wc, BP_MSGS) == BP_MSGS ? 0 : -1;
	if (ret == 0)
		ROCE_TEST_ASSERT_EQ(roce_test_expect_quiet(&b.e, b.scq), 0, "no extra completion");
	return sbp_close(&b) | ret;
}

/*
 * The move to ERR while the send CQ is full and SENDs wait: the flush
 * completions are held too, and arrive as the CQ is drained (never dropped,
 * no overrun): at most BP_CQE successes, then flushes (more than the CQ
 * holds), in posting order.
 */
static int
run_send_flush(bool worker)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct sbp b;
	int ret;

	ret = sbp_open(&b, worker, 1);
	if (ret == 0)
		ret = sbp_post_until_held(&b, SBP_FLUSH_WRS);
	if (ret == 0)
		ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(b.qp[0], &attr, IBV_QP_STATE), 0, "to ERR");
	if (ret == 0)
		ret = sbp_drain(&b, SBP_FLUSH_WRS, true);
	return sbp_close(&b) | ret;
}

/* Back-pressure on a full send CQ, alone or shared, and during a flush, in both models. */
static int
test_send_cq_backpressure(void)
{
	unsigned int w;

	for (w = 0; w < 2; w++) {
		ROCE_TEST_ASSERT_EQ(run_send_backpressure(w, 1), 0, "one QP, %s", w ? "worker" : "inline");
		ROCE_TEST_ASSERT_EQ(run_send_backpressure(w, SBP_QPS_MAX), 0, "shared CQ, %s",
				    w ? "worker" : "inline");
		ROCE_TEST_ASSERT_EQ(run_send_flush(w), 0, "flush, %s", w ? "worker" : "inline");
	}
	return 0;
}

/* Back-pressure on a full receive CQ, in both models. */
static int
test_cq_full_backpressure(void)
{
	ROCE_TEST_ASSERT_EQ(run_backpressure(false), 0, "inline mode");
	ROCE_TEST_ASSERT_EQ(run_backpressure(true), 0, "worker mode");
	return 0;
}

/* Post BP_MSGS signaled SENDs on b's one QP: wr_id 0 .. BP_MSGS - 1. */
static int
sbp_post_all(struct sbp *b)
{
	uint32_t i;

	for (i = 0; i < BP_MSGS; i++)
		ROCE_TEST_ASSERT_EQ(roce_test_post_send(b->qp[0], IBV_WR_SEND, i, b->e.s[0].buf,
							BP_MSG_LEN, b->e.s[0].mr->lkey, 0, 0,
							IBV_SEND_SIGNALED), 0, "post %u", i);
	return 0;
}

/* Every SEND arrived at b, and nothing more completes on a's send CQ. */
static int
sbp_arrived(struct sbp *b)
{
	struct ibv_wc wc[BP_MSGS];

	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&b->e, b->e.s[1].rcq, wc, BP_MSGS), BP_MSGS,
			    "receives at b");
	ROCE_TEST_ASSERT_EQ(roce_test_expect_quiet(&b->e, b->scq), 0, "no extra completion");
	return 0;
}

/*
 * Resize the send CQ before every poll while a's engine (the worker, or
 * this thread) completes SENDs into it: what the CQ holds plus what it
 * owes is what is not polled yet, so one entry less is refused and that
 * many is enough; sizes alternate with a large one, so completions are
 * moved both ways. Every SEND completes once, in order.
 */
static int
run_resize_under_traffic(bool worker)
{
	uint64_t end = roce_test_ms() + THREAD_WAIT_MS;
	uint32_t got = 0, left;
	struct ibv_wc wc;
	struct sbp b;
	int ret, r;

	ret = sbp_open(&b, worker, 1);
	if (ret == 0)
		ret = sbp_post_all(&b);
	while (ret == 0 && got < BP_MSGS && roce_test_ms() < end) {
		left = BP_MSGS - got;
		/* One refusal per eight polls: each one logs. */
		if (left > 1 && got % 8 == 0)
			ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(b.scq, left - 1), -EINVAL,
					    "%u completions to come", left);
		ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(b.scq, got % 2 ? 2 * BP_MSGS : left), 0,
				    "resize with %u to come", left);
		roce_test_pump_env(&b.e);
		r = rte_roce_poll_cq(b.scq, 1, &wc);
		ROCE_TEST_ASSERT(r >= 0, "poll_cq: %d", r);
		if (r == 0)
			continue;
		ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_SUCCESS, "send %u", got);
		ROCE_TEST_ASSERT_EQ(wc.wr_id, got, "send order");
		got++;
	}
	if (ret == 0)
		ROCE_TEST_ASSERT_EQ(got, BP_MSGS, "send completions");
	if (ret == 0)
		ret = sbp_arrived(&b);
	return sbp_close(&b) | ret;
}

/* One of two threads polling one CQ: the wr_ids it got, in its order. */
struct cq_poller {
	struct ibv_cq *cq;
	uint32_t *total;	/* got by both (atomic) */
	uint64_t wr_id[BP_MSGS];
	uint32_t n;
	int rc;
};

static void *
cq_poller_main(void *arg)
{
	struct cq_poller *p = arg;
	uint64_t end = roce_test_ms() + THREAD_WAIT_MS;
	struct ibv_wc wc;
	int r;

	while (__atomic_load_n(p->total, __ATOMIC_ACQUIRE) < BP_MSGS && roce_test_ms() < end) {
		r = rte_roce_poll_cq(p->cq, 1, &wc);
		if (r < 0 || (r == 1 && (wc.status != IBV_WC_SUCCESS || p->n == BP_MSGS))) {
			p->rc = -1;
			return NULL;
		}
		if (r == 1) {
			p->wr_id[p->n++] = wc.wr_id;
			__atomic_fetch_add(p->total, 1, __ATOMIC_RELEASE);
		}
		/* Give the other poller its turn (two shared cores). */
		sched_yield();
	}
	return NULL;
}

/* What two pollers got: each SEND once in all, each poller's in posting order. */
static int
cq_pollers_check(const struct cq_poller *p, unsigned int nb)
{
	bool seen[BP_MSGS] = { false };
	unsigned int t, i;

	for (t = 0; t < nb; t++) {
		ROCE_TEST_ASSERT_EQ(p[t].rc, 0, "poller %u: an error or a bad completion", t);
		for (i = 0; i < p[t].n; i++) {
			ROCE_TEST_ASSERT(p[t].wr_id[i] < BP_MSGS && !seen[p[t].wr_id[i]],
					 "wr_id %" PRIu64 " twice or unknown", p[t].wr_id[i]);
			seen[p[t].wr_id[i]] = true;
			ROCE_TEST_ASSERT(i == 0 || p[t].wr_id[i] > p[t].wr_id[i - 1],
					 "poller %u out of order", t);
		}
	}
	for (i = 0; i < BP_MSGS; i++)
		ROCE_TEST_ASSERT(seen[i], "wr_id %u lost", i);
	return 0;
}

/*
 * A CQ polled by two threads at once while the worker completes into it
 * and this thread resizes it (and drives b): no completion lost or
 * returned twice, and neither poller sees them out of order.
 */
static int
test_cq_two_pollers_resize(void)
{
	static const int sizes[] = { 2 * BP_MSGS, BP_CQE, BP_MSGS, 1 };
	uint64_t end = roce_test_ms() + THREAD_WAIT_MS;
	struct cq_poller p[2];
	uint32_t total = 0;
	unsigned int t, started = 0, resized = 0, round;
	pthread_t tid[2];
	struct sbp b;
	int ret, r;

	memset(p, 0, sizeof(p));
	ret = sbp_open(&b, true, 1);
	if (ret == 0)
		ret = sbp_post_all(&b);
	for (t = 0; ret == 0 && t < RTE_DIM(p); t++) {
		p[t].cq = b.scq;
		p[t].total = &total;
		ret = pthread_create(&tid[t], NULL, cq_poller_main, &p[t]);
		started += ret == 0;
	}
	/* A size below what is still to come is refused (EINVAL), which is fine. */
	for (round = 0; ret == 0 && __atomic_load_n(&total, __ATOMIC_ACQUIRE) < BP_MSGS &&
	     roce_test_ms() < end; round++) {
		r = rte_roce_cq_resize(b.scq, sizes[round % RTE_DIM(sizes)]);
		ROCE_TEST_ASSERT(r == 0 || r == -EINVAL, "resize: %d", r);
		resized += r == 0;
		roce_test_pump_env(&b.e);
		sched_yield();
	}
	for (t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	printf("#   pollers got %u and %u; %u resizes of %u\n", p[0].n, p[1].n, resized, round);
	if (ret == 0)
		ret = cq_pollers_check(p, RTE_DIM(p));
	if (ret == 0)
		ROCE_TEST_ASSERT(resized > 0, "no resize succeeded");
	if (ret == 0)
		ret = sbp_arrived(&b);
	return sbp_close(&b) | ret;
}

/* Resizing the send CQ while completions come, in both models. */
static int
test_cq_resize_under_traffic(void)
{
	ROCE_TEST_ASSERT_EQ(run_resize_under_traffic(false), 0, "inline mode");
	ROCE_TEST_ASSERT_EQ(run_resize_under_traffic(true), 0, "worker mode");
	return 0;
}

static int
expect_open_error(struct rte_roce_port *port, const struct rte_roce_dev_conf *conf, int err,
		  const char *what)
{
	struct ibv_context *ctx = rte_roce_open_device(port, conf);

	if (ctx != NULL)
		rte_roce_close_device(ctx);
	ROCE_TEST_ASSERT(ctx == NULL, "%s: opened", what);
	ROCE_TEST_ASSERT_EQ(rte_errno, err, "%s", what);
	return 0;
}

static int
lcore_busy(void *arg)
{
	while (__atomic_load_n((uint32_t *)arg, __ATOMIC_ACQUIRE) == 0)
		rte_pause();
	return 0;
}

/* Every refused worker configuration, and the counters' errors. */
static int
test_worker_errors(void)
{
	struct rte_roce_dev_conf conf = { .nb_workers = 1 };
	struct rte_roce_worker_stats st;
	struct rte_roce_port *port;
	struct ibv_context *ctx, *ctx2;
	uint32_t release = 0;
	int ret = 0;

	port = roce_test_port(roce_test_verbs_pair.a, NULL, NULL);
	ROCE_TEST_ASSERT(port != NULL, "port");
	conf.lcores[0] = rte_get_main_lcore();
	ret |= expect_open_error(port, &conf, EINVAL, "main lcore");
	conf.lcores[0] = NOT_AN_LCORE;
	ret |= expect_open_error(port, &conf, EINVAL, "lcore not enabled");
	conf.nb_workers = RTE_ROCE_DEV_WORKERS_MAX + 1;
	ret |= expect_open_error(port, &conf, EINVAL, "too many workers");
	conf.nb_workers = 2;
	conf.lcores[0] = WORKER_LCORE;
	conf.lcores[1] = WORKER_LCORE;
	ret |= expect_open_error(port, &conf, EINVAL, "lcore twice");
	conf.lcores[1] = rte_get_next_lcore(WORKER_LCORE, 1, 0);
	if (conf.lcores[1] >= RTE_MAX_LCORE)
		conf.lcores[1] = NOT_AN_LCORE;
	ret |= expect_open_error(port, &conf, conf.lcores[1] == NOT_AN_LCORE ? EINVAL : ENOTSUP,
				 "two workers");
	/* An lcore running something else. */
	conf.nb_workers = 1;
	ROCE_TEST_ASSERT_EQ(rte_eal_remote_launch(lcore_busy, &release, WORKER_LCORE), 0, "launch");
	while (rte_eal_get_lcore_state(WORKER_LCORE) != RUNNING)
		rte_pause();
	ret |= expect_open_error(port, &conf, EBUSY, "busy lcore");
	__atomic_store_n(&release, 1, __ATOMIC_RELEASE);
	ROCE_TEST_ASSERT_EQ(rte_eal_wait_lcore(WORKER_LCORE), 0, "join");
	/* A worker device, then a second one wanting the same lcore. */
	ctx = rte_roce_open_device(port, &conf);
	ROCE_TEST_ASSERT(ctx != NULL, "open in worker mode");
	ctx2 = rte_roce_open_device(port, &conf);
	ret |= ctx2 == NULL && rte_errno == EBUSY ? 0 : -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_worker_stats_get(ctx, 1, &st), -EINVAL, "worker 1");
	ROCE_TEST_ASSERT_EQ(rte_roce_worker_stats_get(ctx, -2, &st), -EINVAL, "worker -2");
	ROCE_TEST_ASSERT_EQ(rte_roce_worker_stats_get(ctx, 0, NULL), -EINVAL, "NULL stats");
	ROCE_TEST_ASSERT_EQ(rte_roce_worker_stats_get(NULL, 0, &st), -EINVAL, "NULL ctx");
	ROCE_TEST_ASSERT_EQ(rte_roce_dev_nb_workers(NULL), -EINVAL, "NULL ctx");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), 0, "close");
	/* The worker returned: its lcore can be launched again. */
	ROCE_TEST_ASSERT_EQ(rte_eal_get_lcore_state(WORKER_LCORE), WAIT, "lcore idle after close");
	ctx = rte_roce_open_device(port, NULL);
	ROCE_TEST_ASSERT(ctx != NULL, "open inline");
	ROCE_TEST_ASSERT_EQ(rte_roce_worker_stats_get(ctx, -1, &st), -ENOTSUP, "inline stats");
	ROCE_TEST_ASSERT_EQ(rte_roce_dev_nb_workers(ctx), 0, "inline workers");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), 0, "close");
	rte_roce_port_destroy(port);
	ROCE_TEST_ASSERT_EQ(ret, 0, "an open error above");
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "worker_errors", test_worker_errors },
	{ "models_same_results", test_models_same_results },
	{ "threads_posting", test_threads_posting },
	{ "ctrl_while_traffic", test_ctrl_while_traffic },
	{ "cq_full_backpressure", test_cq_full_backpressure },
	{ "send_cq_backpressure", test_send_cq_backpressure },
	{ "cq_resize_under_traffic", test_cq_resize_under_traffic },
	{ "cq_two_pollers_resize", test_cq_two_pollers_resize },
};

int
main(int argc, char **argv)
{
	static const char *const eal_args[] = { "-l", "0,1", NULL };

	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], eal_args) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&roce_test_verbs_pair, "workers") != 0 ||
	    roce_test_pair_wire_model(&roce_test_verbs_pair) != 0)
		return 1;
	if (rte_lcore_count() < 2 || !rte_lcore_is_enabled(WORKER_LCORE)) {
		printf("1..0 # SKIP lcore %u is not available\n", WORKER_LCORE);
		return 0;
	}
	return roce_test_run(cases, RTE_DIM(cases));
}
