/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The scale benchmark (issue 5): aggregate message rate with 1, 16, 256,
 * 4,096 and 16,384 active RC QP pairs, as a ratio to the 1-QP rate of the
 * same run. 64-byte signaled RDMA WRITEs from side 0 to side 1 over
 * net_ring, a fixed total of BENCH_INFLIGHT in flight, spread round-robin
 * over the active QPs (with more active QPs than that, each message goes
 * to the next QP of the round, so every message touches a QP that has not
 * run for a while: the cold-state case the goal is about).
 *
 * Progress model: inline, one thread polls both devices (so "per worker"
 * is this thread; the worker sweep waits for the worker mode).
 * Every completion is checked (status, QP, wr_id) and every QP's bytes
 * at the target; the benchmark fails only on a wrong result.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include <rte_roce.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_scale.h"
#include "roce_test_verbs.h"

/* Most QPs, and the steps of active QPs. */
#define BENCH_QPS		16384
static const unsigned int bench_active[] = { 1, 16, 256, 4096, 16384 };
/* WRITEs in flight at any time, over all active QPs. */
#define BENCH_INFLIGHT		256
/* QPs that may hold more than one of them (BENCH_INFLIGHT / 16 each from 16 up). */
#define BENCH_DEEP_QPS		16
/* Measured time of a step (after one warm-up message per active QP). */
#define BENCH_STEP_MS		400
/* Sweeps per progress model; each ratio is the median of the rounds' own ratios. */
#define BENCH_ROUNDS		3
#define BENCH_WC_BURST		32
#define MS_PER_S		1000
/* The goal: the 16,384-QP rate is at least this share of the 1-QP rate. */
#define BENCH_GOAL_RATIO	0.8

static struct ibv_qp *bench_qp[2][BENCH_QPS];
static struct roce_test_scale bench_sc;
static double bench_rate[RTE_DIM(bench_active)];
static double bench_frames[RTE_DIM(bench_active)];	/* frames per message, both ways */
/* Per round: message rate, message-rate ratio and frame-rate ratio to the round's 1-QP step. */
static double bench_msgs[RTE_DIM(bench_active)][BENCH_ROUNDS];
static double bench_ratio[RTE_DIM(bench_active)][BENCH_ROUNDS];
static double bench_fratio[RTE_DIM(bench_active)][BENCH_ROUNDS];

/* Frames both ports sent. */
static uint64_t
bench_tx_frames(void)
{
	struct rte_roce_port_stats st;
	uint64_t sum = 0;
	unsigned int side;

	for (side = 0; side < 2; side++) {
		if (rte_roce_port_stats_get(bench_sc.s[side].port, &st) == 0)
			sum += st.tx_packets;
	}
	return sum;
}

struct bench_step {
	unsigned int active;
	unsigned int next;		/* QP of the next WRITE */
	uint64_t posted;
	uint64_t done;
};

/* One 64-byte WRITE of QP i's slot on side 0 to its slot on side 1. */
static int
bench_post(unsigned int i)
{
	struct roce_test_side *a = &bench_sc.s[0], *b = &bench_sc.s[1];
	uint32_t off = i * ROCE_TEST_SCALE_SLOT;

	return roce_test_post_send(bench_qp[0][i], IBV_WR_RDMA_WRITE, i, a->buf + off,
				   ROCE_TEST_SCALE_MSG, a->mr->lkey,
				   (uintptr_t)b->buf + off, b->mr->rkey, IBV_SEND_SIGNALED);
}

static int
bench_post_next(struct bench_step *st)
{
	if (bench_post(st->next) != 0)
		return -1;
	st->next = (st->next + 1) % st->active;
	st->posted++;
	return 0;
}

/* Poll both devices once and take side 0's completions; each one posts the next WRITE if more. */
static int
bench_round(struct bench_step *st, bool more)
{
	struct ibv_wc wc[BENCH_WC_BURST];
	int r, k;

	rte_roce_poll(bench_sc.s[0].ctx);
	rte_roce_poll(bench_sc.s[1].ctx);
	r = rte_roce_poll_cq(bench_sc.s[0].scq, BENCH_WC_BURST, wc);
	ROCE_TEST_ASSERT(r >= 0, "poll_cq %d", r);
	for (k = 0; k < r; k++) {
		unsigned int i = (unsigned int)wc[k].wr_id;

		ROCE_TEST_ASSERT(i < st->active, "wr_id %u of %u active", i, st->active);
		ROCE_TEST_ASSERT_EQ(wc[k].status, IBV_WC_SUCCESS, "status of QP %u", i);
		ROCE_TEST_ASSERT_EQ(wc[k].opcode, IBV_WC_RDMA_WRITE, "opcode of QP %u", i);
		ROCE_TEST_ASSERT_EQ(wc[k].qp_num, bench_qp[0][i]->qp_num, "qp_num of %u", i);
		st->done++;
		if (more && bench_post_next(st) != 0)
			return -1;
	}
	return 0;
}

/* Wait until every posted WRITE completed. */
static int
bench_drain(struct bench_step *st)
{
	uint64_t end = roce_test_ms() + ROCE_TEST_WAIT_MS;

	while (st->done < st->posted && roce_test_ms() < end) {
		if (bench_round(st, false) != 0)
			return -1;
	}
	ROCE_TEST_ASSERT_EQ(st->done, st->posted, "completions");
	return 0;
}

/* One step: warm-up, then BENCH_STEP_MS of WRITEs; the rate into bench_rate[idx]. */
static int
bench_run(unsigned int idx)
{
	struct bench_step st = { .active = bench_active[idx] };
	uint8_t *src = bench_sc.s[0].buf, *dst = bench_sc.s[1].buf;
	unsigned int i, inflight = BENCH_INFLIGHT;
	uint64_t t0, t1, end, done0, frames0;

	memset(dst, 0, ROCE_TEST_BUF_LEN);
	for (i = 0; i < st.active; i++)
		roce_test_fill(src + i * ROCE_TEST_SCALE_SLOT, ROCE_TEST_SCALE_MSG, i + idx);
	/* warm-up: one WRITE on every active QP (first touch of its state) */
	for (i = 0; i < st.active; i++) {
		if (bench_post_next(&st) != 0)
			return -1;
		if (st.posted - st.done >= inflight && bench_drain(&st) != 0)
			return -1;
	}
	if (bench_drain(&st) != 0)
		return -1;
	for (i = 0; i < inflight; i++) {
		if (bench_post_next(&st) != 0)
			return -1;
	}
	done0 = st.done;
	frames0 = bench_tx_frames();
	t0 = rte_rdtsc();
	end = t0 + rte_get_tsc_hz() / MS_PER_S * BENCH_STEP_MS;
	while (rte_rdtsc() < end) {
		if (bench_round(&st, true) != 0)
			return -1;
	}
	t1 = rte_rdtsc();
	bench_rate[idx] = (double)(st.done - done0) * rte_get_tsc_hz() / (double)(t1 - t0);
	bench_frames[idx] = (double)(bench_tx_frames() - frames0) / (double)(st.done - done0);
	if (bench_drain(&st) != 0)
		return -1;
	/* every active QP's last WRITE is at the target */
	for (i = 0; i < st.active; i++)
		ROCE_TEST_ASSERT(memcmp(dst + i * ROCE_TEST_SCALE_SLOT,
					src + i * ROCE_TEST_SCALE_SLOT, ROCE_TEST_SCALE_MSG) == 0,
				 "bytes of QP %u", i);
	return 0;
}

/* QPs 0..BENCH_DEEP_QPS-1 hold up to BENCH_INFLIGHT WRITEs, the others a few. */
static const struct scale_caps bench_caps_deep = {
	.send_wr = BENCH_INFLIGHT, .recv_wr = 1, .send_sge = 1, .recv_sge = 1,
};
static const struct scale_caps bench_caps = {
	.send_wr = 8, .recv_wr = 1, .send_sge = 1, .recv_sge = 1,
};

static int
bench_setup(uint16_t workers)
{
	unsigned int i, side;

	bench_sc = (struct roce_test_scale){
		.nqps = BENCH_QPS,
		.qp = { bench_qp[0], bench_qp[1] },
		.workers0 = workers,
	};
	if (roce_test_scale_open(&bench_sc) != 0)
		return -1;
	for (i = 0; i < BENCH_QPS; i++) {
		for (side = 0; side < 2; side++)
			ROCE_TEST_ASSERT_EQ(roce_test_scale_qp_create(&bench_sc.s[side],
					i < BENCH_DEEP_QPS ? &bench_caps_deep : &bench_caps,
					&bench_qp[side][i]), 0, "create %u: %s", i,
					rte_strerror(rte_errno));
	}
	return roce_test_scale_connect(&bench_sc);
}

static int
bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
bench_median(double *v)
{
	qsort(v, BENCH_ROUNDS, sizeof(*v), bench_cmp);
	return v[BENCH_ROUNDS / 2];
}

/*
 * BENCH_ROUNDS sweeps of active QPs with side 0 driven by workers (0:
 * inline); prints each step's median rate and ratios.
 */
static int
bench_sweep(uint16_t workers)
{
	unsigned int idx, r, last = RTE_DIM(bench_active) - 1;
	const char *mode = workers ? "workers" : "inline";
	uint64_t t0 = roce_test_ms();
	double ratio = 0, fratio = 0;
	int rc;

	rc = bench_setup(workers);
	printf("# %s %u: setup of %u pairs %" PRIu64 " ms\n", mode, workers, BENCH_QPS,
	       roce_test_ms() - t0);
	for (r = 0; rc == 0 && r < BENCH_ROUNDS; r++) {
		for (idx = 0; rc == 0 && idx < RTE_DIM(bench_active); idx++)
			rc = bench_run(idx);
		for (idx = 0; rc == 0 && idx < RTE_DIM(bench_active); idx++) {
			bench_msgs[idx][r] = bench_rate[idx];
			bench_ratio[idx][r] = bench_rate[idx] / bench_rate[0];
			/* the frame rate: the same work per frame whatever the ACK coalescing */
			bench_fratio[idx][r] = bench_rate[idx] * bench_frames[idx] /
					       (bench_rate[0] * bench_frames[0]);
		}
	}
	rc |= roce_test_scale_close(&bench_sc);
	ROCE_TEST_ASSERT(rc == 0, "scale sweep");
	printf("# | mode | workers | active QPs | Mmsg/s | msg-rate ratio | frames/msg | "
	       "frame-rate ratio |\n");
	for (idx = 0; idx < RTE_DIM(bench_active); idx++) {
		ratio = bench_median(bench_ratio[idx]);
		fratio = bench_median(bench_fratio[idx]);
		printf("# | %s | %u | %u | %.3f | %.2f | %.2f | %.2f |\n", mode, workers,
		       bench_active[idx], bench_median(bench_msgs[idx]) / 1e6, ratio,
		       bench_frames[idx], fratio);
	}
	printf("# %s %u: %u QPs at %.2f of the 1-QP message rate (goal %.2f), frame rate %.2f "
	       "(medians of %d rounds)\n", mode, workers, bench_active[last], ratio,
	       BENCH_GOAL_RATIO, fratio, BENCH_ROUNDS);
	return 0;
}

static int
test_scale_inline(void)
{
	return bench_sweep(0);
}

/* Side 0 by 1 .. every worker lcore; side 1 inline on the main lcore. */
static int
test_scale_workers(void)
{
	uint16_t w, nb = (uint16_t)RTE_MIN(rte_lcore_count() - 1, (unsigned int)RTE_ROCE_DEV_WORKERS_MAX);
	int rc = 0;

	if (nb == 0)
		printf("# no worker lcore: inline only\n");
	for (w = 1; rc == 0 && w <= nb; w++)
		rc = bench_sweep(w);
	return rc;
}

static const struct roce_test_case cases[] = {
	{ "scale_inline", test_scale_inline },
	{ "scale_workers", test_scale_workers },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return roce_test_scale_main(argv[0], cases, RTE_DIM(cases));
}
