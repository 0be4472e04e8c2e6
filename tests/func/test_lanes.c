/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Several lanes per device (doc/workers.md): inline lanes and several
 * workers, QPs bound to lanes through their CQs' comp_vector, and the
 * hand-off of frames that arrive on a lane not owning their QP.
 *
 * The wire is a net_ring pair of two queues per port, crossed: what one
 * port sends on queue q arrives on the other's queue 1 - q (as a peer's
 * RSS might choose), so a pair of QPs on the same lane number on both
 * sides sees every frame handed over, and a pair on different lanes none.
 * Runs with `--lcores (0-2)@(0-1)`: lcores 1 and 2 are the workers, even
 * on a machine of two CPUs.
 */

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include <rte_roce.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#define NB_LANES		2
#define NB_PAIRS		(NB_LANES * NB_LANES)	/* every (lane of a, lane of b) */
#define WORKER_LCORE_0		1
#define WORKER_LCORE_1		2
#define THREAD_WRS		2000		/* WRITEs per application thread */
#define THREAD_WINDOW		64		/* in flight per thread */
#define THREAD_MSG		256
#define THREAD_OFF		(ROCE_TEST_MSG_MAX / 2)
#define THREAD_WAIT_MS		60000		/* ThreadSanitizer on 2 shared cores is slow */
#define THREAD_ACK_TIMEOUT	20		/* about 4 s */

static struct roce_test_pair lanes_pair;

static const struct rte_roce_dev_conf inline_conf = { .nb_lanes = NB_LANES };
static const struct rte_roce_dev_conf worker_conf = {
	.nb_workers = NB_LANES,
	.lcores = { WORKER_LCORE_0, WORKER_LCORE_1 },
};

static int
lanes_open(struct roce_test_env *e, const struct rte_roce_dev_conf *conf_a)
{
	struct roce_test_conf c = roce_test_default_conf;

	c.dev_conf[0] = conf_a;
	c.dev_conf[1] = &inline_conf;
	c.pair = &lanes_pair;
	if (roce_test_env_open(e, &c, NB_PAIRS) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(e->s[0].ctx->num_comp_vectors, NB_LANES, "vectors of a");
	ROCE_TEST_ASSERT_EQ(e->s[1].ctx->num_comp_vectors, NB_LANES, "vectors of b");
	return 0;
}

/* The table on every pair: data, completions; then what was handed over. */
static int
run_table(struct roce_test_env *e)
{
	unsigned int p, seed = 1;
	uint64_t out, in;
	int s;

	for (p = 0; p < NB_PAIRS; p++) {
		if (roce_test_lane_table_run(e, p, &seed) != 0) {
			printf("# pair %u: lanes %u/%u\n", p, p % NB_LANES, p / NB_LANES);
			return -1;
		}
	}
	for (s = 0; s < 2; s++) {
		out = roce_test_xstat(e->s[s].ctx, "handoffs_out");
		in = roce_test_xstat(e->s[s].ctx, "handoffs_in");
		/* Pairs 0 and 3 share a lane number: all their frames cross lanes on arrival. */
		ROCE_TEST_ASSERT(out > 0, "side %d handed nothing over", s);
		ROCE_TEST_ASSERT_EQ(in, out, "side %d: handed over vs taken", s);
		ROCE_TEST_ASSERT_EQ(roce_test_xstat(e->s[s].ctx, "handoff_drops"), 0,
				    "side %d drops", s);
		ROCE_TEST_ASSERT_EQ(roce_test_xstat(e->s[s].ctx, "rx_drop_no_qp"), 0,
				    "side %d no QP", s);
		/* Responses handed over waited for their completer: rxe's ack_deferred. */
		ROCE_TEST_ASSERT(roce_test_xstat(e->s[s].ctx, "ack_deferred") > 0 &&
				 roce_test_xstat(e->s[s].ctx, "ack_deferred") < in,
				 "side %d: ack_deferred %" PRIu64 " of %" PRIu64 " handed over", s,
				 roce_test_xstat(e->s[s].ctx, "ack_deferred"), in);
	}
	return 0;
}

/* Both sides inline with two lanes each, polled by this thread. */
static int
test_inline_lanes(void)
{
	struct roce_test_env e;
	int ret;

	ret = lanes_open(&e, &inline_conf);
	if (ret == 0)
		ret = run_table(&e);
	if (roce_test_env_close(&e) != 0)
		ret = -1;
	return ret;
}

/* rte_roce_poll_lane() drives one lane: a QP of another lane does not move until its lane runs. */
static int
test_poll_lane(void)
{
	struct roce_test_env e;
	struct ibv_wc wc;
	uint64_t end;
	int ret, n = 0;

	ret = lanes_open(&e, &inline_conf);
	/* Pair 1: a's QP on lane 1, b's on lane 0; crossed wire: a's frames arrive on b's lane 0. */
	if (ret == 0)
		ret = roce_test_post_send(e.qp[0][1], IBV_WR_RDMA_WRITE, 7, e.s[0].buf, 64,
					  e.s[0].mr->lkey, (uintptr_t)e.s[1].buf, e.s[1].mr->rkey,
					  IBV_SEND_SIGNALED);
	end = roce_test_ms() + ROCE_TEST_QUIET_MS;
	while (ret == 0 && roce_test_ms() < end) {
		ROCE_TEST_ASSERT(rte_roce_poll_lane(e.s[0].ctx, 0) >= 0, "poll lane 0");
		rte_roce_poll(e.s[1].ctx);
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(e.qp[0][1]->send_cq, 1, &wc), 0,
			    "a completion without lane 1 polled");
	/* Lane 0 still runs: it owns the slow path (ARP for lane 1's first frame). */
	end = roce_test_ms() + ROCE_TEST_WAIT_MS;
	while (ret == 0 && n == 0 && roce_test_ms() < end) {
		ROCE_TEST_ASSERT(rte_roce_poll_lane(e.s[0].ctx, 1) >= 0, "poll lane 1");
		ROCE_TEST_ASSERT(rte_roce_poll_lane(e.s[0].ctx, 0) >= 0, "poll lane 0");
		rte_roce_poll(e.s[1].ctx);
		n = rte_roce_poll_cq(e.qp[0][1]->send_cq, 1, &wc);
	}
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(n, 1, "completion once lane 1 runs");
		ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_SUCCESS, "status");
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_lane(e.s[0].ctx, NB_LANES), -EINVAL, "lane out of range");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_lane(NULL, 0), -EINVAL, "NULL ctx");
	if (roce_test_env_close(&e) != 0)
		ret = -1;
	return ret;
}

static int
expect_open_error(struct rte_roce_port *port, const struct rte_roce_dev_conf *conf, int err,
		  const char *what)
{
	struct ibv_context *ctx = rte_roce_open_device(port, conf);

	if (ctx != NULL)
		rte_roce_close_device(ctx);
	ROCE_TEST_ASSERT(ctx == NULL && rte_errno == err, "%s: open gave %s", what,
			 ctx != NULL ? "a device" : rte_strerror(rte_errno));
	return 0;
}

/* Lanes against queues, vectors against lanes, CQs and SRQ of a QP on one lane. */
static int
test_lane_errors(void)
{
	struct rte_roce_port_conf pc = { .nb_queues = NB_LANES };
	struct rte_roce_dev_conf conf = { 0 };
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_cq *cq0 = NULL, *cq1 = NULL;
	struct rte_roce_port *port;
	struct ibv_context *ctx;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_pd *pd;

	port = roce_test_port(lanes_pair.a, &pc, NULL);
	ROCE_TEST_ASSERT(port != NULL, "port");
	if (expect_open_error(port, NULL, EINVAL, "one lane, two queues") != 0)
		return -1;
	conf.nb_lanes = NB_LANES + 1;
	if (expect_open_error(port, &conf, EINVAL, "three lanes, two queues") != 0)
		return -1;
	conf.nb_lanes = RTE_ROCE_DEV_WORKERS_MAX + 1;
	if (expect_open_error(port, &conf, EINVAL, "too many lanes") != 0)
		return -1;
	conf.nb_lanes = NB_LANES;
	conf.nb_workers = 1;
	conf.lcores[0] = WORKER_LCORE_0;
	if (expect_open_error(port, &conf, EINVAL, "lanes differ from workers") != 0)
		return -1;
	ctx = rte_roce_open_device(port, &inline_conf);
	ROCE_TEST_ASSERT(ctx != NULL, "open: %s", rte_strerror(rte_errno));
	pd = rte_roce_alloc_pd(ctx);
	ROCE_TEST_ASSERT(pd != NULL, "pd");
	ROCE_TEST_ASSERT(rte_roce_create_cq(ctx, 4, NULL, NULL, NB_LANES) == NULL &&
			 rte_errno == EINVAL, "vector beyond the lanes");
	ROCE_TEST_ASSERT(rte_roce_create_cq(ctx, 4, NULL, NULL, -1) == NULL && rte_errno == EINVAL,
			 "negative vector");
	cq0 = rte_roce_create_cq(ctx, 4, NULL, NULL, 0);
	cq1 = rte_roce_create_cq(ctx, 4, NULL, NULL, 1);
	ROCE_TEST_ASSERT(cq0 != NULL && cq1 != NULL, "CQs");
	qa.send_cq = cq0;
	qa.recv_cq = cq1;
	ROCE_TEST_ASSERT(rte_roce_create_qp(pd, &qa) == NULL && rte_errno == EINVAL,
			 "CQs on two lanes");
	srq = rte_roce_create_srq(pd, &sattr);
	ROCE_TEST_ASSERT(srq != NULL, "srq");
	qa.recv_cq = cq0;
	qa.srq = srq;
	qp = rte_roce_create_qp(pd, &qa);
	ROCE_TEST_ASSERT(qp != NULL, "QP on lane 0 with the SRQ");
	qa.send_cq = cq1;
	qa.recv_cq = cq1;
	ROCE_TEST_ASSERT(rte_roce_create_qp(pd, &qa) == NULL && rte_errno == EINVAL,
			 "SRQ of lane 0 for a QP of lane 1");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp), 0, "destroy qp");
	/* Free again: the SRQ may serve lane 1 now. */
	qp = rte_roce_create_qp(pd, &qa);
	ROCE_TEST_ASSERT(qp != NULL, "QP on lane 1 with the SRQ");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp), 0, "destroy qp");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_srq(srq), 0, "destroy srq");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(cq0), 0, "destroy cq0");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(cq1), 0, "destroy cq1");
	ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(pd), 0, "dealloc");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), 0, "close");
	rte_roce_port_destroy(port);
	return 0;
}

/* Side a on two workers, b inline with two lanes: the table, and both workers worked. */
static int
test_two_workers(void)
{
	struct rte_roce_worker_stats st[NB_LANES];
	struct roce_test_env e;
	unsigned int w;
	int ret;

	ret = lanes_open(&e, &worker_conf);
	if (ret == 0)
		ROCE_TEST_ASSERT_EQ(rte_roce_dev_nb_workers(e.s[0].ctx), NB_LANES, "workers");
	if (ret == 0)
		ret = run_table(&e);
	for (w = 0; ret == 0 && w < NB_LANES; w++) {
		ROCE_TEST_ASSERT_EQ(rte_roce_worker_stats_get(e.s[0].ctx, w, &st[w]), 0, "stats");
		ROCE_TEST_ASSERT(st[w].work > 0, "worker %u did nothing", w);
		/* Two of the four pairs on each; pairs 0 and 3 cross lanes in both directions. */
		ROCE_TEST_ASSERT_EQ(st[w].qps, NB_PAIRS / NB_LANES, "worker %u QPs", w);
		ROCE_TEST_ASSERT(st[w].handoffs_in > 0 && st[w].handoffs_out > 0 &&
				 st[w].handoff_drops == 0 && st[w].rx_frames >= st[w].handoffs_out,
				 "worker %u: %" PRIu64 " in, %" PRIu64 " out, %" PRIu64 " drops, %"
				 PRIu64 " received", w, st[w].handoffs_in, st[w].handoffs_out,
				 st[w].handoff_drops, st[w].rx_frames);
	}
	if (roce_test_env_close(&e) != 0)
		ret = -1;
	return ret;
}

/*
 * One application thread per worker, each posting WRITEs to its QP (pair
 * w: a's QP on worker w) while this thread drives b: every completion
 * once, in order, and both workers handed frames over.
 */
static int
test_threads_per_worker(void)
{
	struct roce_test_conf c = roce_test_default_conf;
	struct roce_test_stream st[NB_LANES], *stp[NB_LANES];
	pthread_t tid[NB_LANES];
	struct roce_test_env e;
	unsigned int i, started = 0;
	int ret;

	c.timeout = THREAD_ACK_TIMEOUT;
	c.dev_conf[0] = &worker_conf;
	c.dev_conf[1] = &inline_conf;
	c.pair = &lanes_pair;
	ret = roce_test_env_open(&e, &c, NB_LANES);
	for (i = 0; ret == 0 && i < NB_LANES; i++) {
		roce_test_stream_init(&st[i], &e, e.qp[0][i], THREAD_OFF + i * THREAD_MSG,
				      THREAD_MSG, THREAD_WRS, THREAD_WINDOW, THREAD_WAIT_MS);
		stp[i] = &st[i];
		if (pthread_create(&tid[i], NULL, roce_test_stream_thread, &st[i]) != 0)
			ret = -1;
		else
			started++;
	}
	roce_test_streams_wait(e.s[1].ctx, stp, started);
	for (i = 0; i < started; i++) {
		pthread_join(tid[i], NULL);
		ROCE_TEST_ASSERT_EQ(st[i].rc, 0, "thread %u", i);
	}
	if (ret == 0)
		ROCE_TEST_ASSERT(roce_test_xstat(e.s[0].ctx, "handoffs_in") > 0,
				 "no hand-off on a");
	if (roce_test_env_close(&e) != 0)
		ret = -1;
	return ret;
}

/* A poller thread of one inline lane of side a. */
struct lane_poller {
	struct ibv_context *ctx;
	uint16_t lane;
	uint32_t stop;
	uint64_t passes;
};

static void *
lane_poller_main(void *arg)
{
	struct lane_poller *p = arg;

	while (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE) == 0) {
		if (rte_roce_poll_lane(p->ctx, p->lane) == 0)
			sched_yield();	/* more threads than cores */
		p->passes++;
	}
	return NULL;
}

/* One control round on side a: a QP created, moved to INIT, destroyed; an MR. */
static int
ctrl_round(struct roce_test_env *e, uint16_t lane)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp *qp;
	struct ibv_mr *mr;

	if (roce_test_qp_create_lane(&e->s[0], IBV_QPT_RC, lane, &qp) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0, "modify");
	mr = rte_roce_reg_mr(e->s[0].pd, e->s[0].buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	ROCE_TEST_ASSERT(mr != NULL, "reg_mr");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), 0, "dereg_mr");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp), 0, "destroy");
	return 0;
}

/*
 * Side a inline with a poller thread per lane, while this thread makes
 * control calls on a between transfers (and drives b): the control calls
 * hold the pollers, the transfers complete (run under ThreadSanitizer).
 */
static int
test_inline_pollers_ctrl(void)
{
	struct lane_poller p[NB_LANES];
	pthread_t tid[NB_LANES];
	struct roce_test_env e;
	unsigned int i, started = 0, round;
	int ret;

	ret = lanes_open(&e, &inline_conf);
	/* a's progress is its pollers': the helpers drive b only. */
	e.external[0] = true;
	memset(p, 0, sizeof(p));
	for (i = 0; ret == 0 && i < NB_LANES; i++) {
		p[i].ctx = e.s[0].ctx;
		p[i].lane = i;
		if (pthread_create(&tid[i], NULL, lane_poller_main, &p[i]) != 0)
			ret = -1;
		else
			started++;
	}
	for (round = 0; ret == 0 && round < NB_PAIRS * 4; round++) {
		ret = ctrl_round(&e, round % NB_LANES);
		if (ret == 0)
			ret = roce_test_transfer(&e, 0, round % NB_PAIRS, IBV_WR_RDMA_WRITE,
						 1024 + round, ROCE_TEST_DATA_OFF, round + 1);
	}
	for (i = 0; i < started; i++) {
		__atomic_store_n(&p[i].stop, 1, __ATOMIC_RELEASE);
		pthread_join(tid[i], NULL);
		ROCE_TEST_ASSERT(p[i].passes > 0, "poller %u never ran", i);
	}
	if (roce_test_env_close(&e) != 0)
		ret = -1;
	return ret;
}

static const struct roce_test_case cases[] = {
	{ "lane_errors", test_lane_errors },
	{ "inline_lanes", test_inline_lanes },
	{ "poll_lane", test_poll_lane },
	{ "two_workers", test_two_workers },
	{ "threads_per_worker", test_threads_per_worker },
	{ "inline_pollers_ctrl", test_inline_pollers_ctrl },
};

int
main(int argc, char **argv)
{
	/* Three lcores floating over the machine's CPUs (two here): main and two workers. */
	static const char *const eal_args[] = { "--lcores", "(0-2)@(0-1)", NULL };

	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], eal_args) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create_mq(&lanes_pair, "lanes", NB_LANES, 1) != 0 ||
	    roce_test_pair_wire_model(&lanes_pair) != 0)
		return 1;
	if (!rte_lcore_is_enabled(WORKER_LCORE_0) || !rte_lcore_is_enabled(WORKER_LCORE_1)) {
		printf("1..0 # SKIP lcores %u and %u are not available\n", WORKER_LCORE_0,
		       WORKER_LCORE_1);
		return 0;
	}
	return roce_test_run(cases, RTE_DIM(cases));
}
