/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The scale benchmark (issue 5): aggregate message rate with 1, 16, 256,
 * 4,096 and 16,384 active RC QP pairs, as a ratio to the 1-QP rate of the
 * same run. 64-byte signaled RDMA WRITEs from side 0 to side 1 over
 * net_ring, in two workloads:
 *
 * - fixed total: BENCH_INFLIGHT in flight over all active QPs, spread
 *   round-robin (with more active QPs than that, each message goes to the
 *   next QP of the round, so every message touches a QP that has not run
 *   for a while and needs an ACK of its own: the worst case);
 * - depth D per QP: BENCH_DEPTH in flight on every active QP, each
 *   completion reposted on its own QP (perftest's convention, ib_write_bw
 *   -q N -t D), the refills of one QP from one poll of the CQ as one chain.
 *
 * Progress models: inline, one thread polls both devices (so "per worker"
 * is this thread); and workers N = 1 .. the worker lcores there are
 * (at most ROCE_TEST_PAIR_QUEUES_MAX): side 0, the device under test, on N
 * worker lcores and N port queues, QP i on lane i % N (its CQs'
 * comp_vector); side 1, the peer, inline on the main lcore with N lanes,
 * driven by the same thread that posts and polls the CQs. With N > 1 the
 * wire is a net_ring pair of N queues, aligned (queue q to queue q: a
 * frame arrives on the lane of its QP, no hand-off) and, for N = 2, also
 * crossed (queue q to 1 - q: every frame is handed over, on both sides).
 *
 * Every completion is checked (status, opcode, QP, wr_id: the QP's WRITEs
 * complete in the order posted) and every QP's bytes at the target; no
 * hand-off may be dropped; every worker must have worked. The benchmark
 * fails only on a wrong result, never on a rate.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
#define BENCH_STEPS		RTE_DIM(bench_active)
/*
 * The steps swept with more than one worker (the bench suite's run time:
 * those sweeps run on more lcores than CPUs here, and each is slower).
 */
static const bool bench_multi_step[BENCH_STEPS] = { true, false, true, false, true };
/* WRITEs in flight at any time, over all active QPs (and all workers). */
#define BENCH_INFLIGHT		256
/* QPs that may hold more than one of them (BENCH_INFLIGHT / 16 each from 16 up). */
#define BENCH_DEEP_QPS		16
/*
 * The depth workload: WRITEs in flight on each active QP (doc/scale.md
 * "Depth D per QP" says why 16: perftest's default -t is 128, which at
 * 16,384 QPs would need 2 M CQEs and 2 x 237 MB of send rings; 16 fills
 * half an RX burst per QP, where the responder's one ACK per QP and burst
 * applies). Side 0's CQ holds every outstanding completion: D x BENCH_QPS.
 */
#define BENCH_DEPTH		16
/*
 * Local ACK timeout of the depth workload's pairs: 18, 1.07 s (the default
 * 14 is 67 ms). With 262,144 WRITEs in flight, a stall of the worker lcore
 * on this shared machine (47-72 ms measured) fires the timers of QPs whose
 * ACKs are queued behind it, and repeated go-back-N retries ended a QP with
 * IBV_WC_RETRY_EXC_ERR (doc/scale.md "Depth D per QP", point 5).
 */
#define BENCH_DEPTH_TIMEOUT	18
/* A WRITE's wr_id: the QP's index in the low half, its sequence on that QP in the high half. */
#define BENCH_WR_SEQ_SHIFT	32
/* Measured time of a step (after one warm-up message per active QP). */
#define BENCH_STEP_MS		400
/* Sweeps per progress model; each ratio is the median of the rounds' own ratios. */
#define BENCH_ROUNDS		3
#define BENCH_WC_BURST		32
#define MS_PER_S		1000
/* The goal: the 16,384-QP rate per worker is at least this share of the 1-QP rate. */
#define BENCH_GOAL_RATIO	0.8
/* Lcores (main + 2 workers) asked for, floating, on a machine with fewer CPUs. */
#define BENCH_LCORES_MIN	3
/* Room for a worker list ("0.97 0.95 ...") in a table cell. */
#define BENCH_CELL		64

static struct ibv_qp *bench_qp[2][BENCH_QPS];
static struct roce_test_scale bench_sc;
static uint16_t bench_lanes;		/* of each side in the current sweep */
static unsigned int bench_depth;	/* of the current sweep; 0: the fixed total */
/* Side 0's WRITEs of the current step per QP: posted, completed. */
static uint32_t bench_qp_posted[BENCH_QPS], bench_qp_done[BENCH_QPS];
static long bench_cpus;			/* online CPUs */
/* [q]: q queues per port, queue q to queue q (aligned); q = 1 is roce_test_verbs_pair. */
static struct roce_test_pair bench_pair[ROCE_TEST_PAIR_QUEUES_MAX + 1];
/* Two queues, crossed: every frame arrives on the other lane. */
static struct roce_test_pair bench_crossed;

/* What a step measured in one round. */
struct bench_meas {
	double rate;		/* messages per second */
	double frames;		/* frames per message, both ways */
	double handoffs;	/* hand-offs per message, both devices */
	double share[RTE_ROCE_DEV_WORKERS_MAX];	/* each worker's share of the workers' work */
};

static struct bench_meas bench_m[BENCH_STEPS][BENCH_ROUNDS];

/* Counters read before and after a step. */
struct bench_counters {
	uint64_t frames;	/* sent by both ports */
	uint64_t handoffs;	/* handoffs_out of both devices */
	struct rte_roce_worker_stats w[RTE_ROCE_DEV_WORKERS_MAX];
};

static int
bench_counters(struct bench_counters *c)
{
	struct rte_roce_port_stats st;
	unsigned int side;
	uint16_t w;

	memset(c, 0, sizeof(*c));
	for (side = 0; side < 2; side++) {
		ROCE_TEST_ASSERT_EQ(rte_roce_port_stats_get(bench_sc.s[side].port, &st), 0,
				    "port stats");
		c->frames += st.tx_packets;
		c->handoffs += roce_test_xstat(bench_sc.s[side].ctx, "handoffs_out");
	}
	for (w = 0; w < bench_sc.workers0; w++)
		ROCE_TEST_ASSERT_EQ(rte_roce_worker_stats_get(bench_sc.s[0].ctx, w, &c->w[w]), 0,
				    "worker %u stats", w);
	return 0;
}

/* Side 0's CQ of lane l (send and receive CQ of its QPs). */
static struct ibv_cq *
bench_cq(uint16_t l)
{
	return l == 0 ? bench_sc.s[0].scq : bench_sc.s[0].lane_cq[l];
}

struct bench_step {
	unsigned int active;
	unsigned int depth;		/* per active QP; 0: BENCH_INFLIGHT in total */
	unsigned int next;		/* QP of the next WRITE (fixed total) */
	uint64_t posted;
	uint64_t done;
};

/*
 * n 64-byte WRITEs of QP i's slot on side 0 to its slot on side 1, as one
 * chain: one doorbell and one schedule of the QP for all of them.
 */
static int
bench_post(struct bench_step *st, unsigned int i, unsigned int n)
{
	struct roce_test_side *a = &bench_sc.s[0], *b = &bench_sc.s[1];
	uint32_t off = i * ROCE_TEST_SCALE_SLOT;
	struct ibv_sge sge = { .addr = (uintptr_t)(a->buf + off), .length = ROCE_TEST_SCALE_MSG,
			       .lkey = a->mr->lkey };
	struct ibv_send_wr wr[BENCH_DEPTH], *bad = NULL;
	unsigned int k;

	ROCE_TEST_ASSERT(n >= 1 && n <= RTE_DIM(wr), "chain of %u", n);
	for (k = 0; k < n; k++) {
		wr[k] = (struct ibv_send_wr){
			.wr_id = (uint64_t)(bench_qp_posted[i] + k) << BENCH_WR_SEQ_SHIFT | i,
			.next = k + 1 < n ? &wr[k + 1] : NULL,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
		};
		wr[k].wr.rdma.remote_addr = (uintptr_t)(b->buf + off);
		wr[k].wr.rdma.rkey = b->mr->rkey;
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(bench_qp[0][i], wr, &bad), 0,
			    "post %u on QP %u", n, i);
	bench_qp_posted[i] += n;
	st->posted += n;
	return 0;
}

/* Fixed total: one WRITE on the next QP of the round. */
static int
bench_post_next(struct bench_step *st)
{
	if (bench_post(st, st->next, 1) != 0)
		return -1;
	st->next = (st->next + 1) % st->active;
	return 0;
}

/* Depth D: QP i back to D in flight (its completions of one poll: one chain). */
static int
bench_refill(struct bench_step *st, unsigned int i)
{
	unsigned int out = bench_qp_posted[i] - bench_qp_done[i];

	return out < st->depth ? bench_post(st, i, st->depth - out) : 0;
}

/*
 * Poll both devices once (side 0's rte_roce_poll() returns at once in
 * worker mode) and take side 0's completions of every lane; if more, each
 * one posts the next WRITE of the round (fixed total), or each run of
 * completions of one QP refills that QP to the depth.
 */
static int
bench_round(struct bench_step *st, bool more)
{
	struct ibv_wc wc[BENCH_WC_BURST];
	uint16_t l;
	int r, k;

	rte_roce_poll(bench_sc.s[0].ctx);
	rte_roce_poll(bench_sc.s[1].ctx);
	for (l = 0; l < bench_lanes; l++) {
		r = rte_roce_poll_cq(bench_cq(l), BENCH_WC_BURST, wc);
		ROCE_TEST_ASSERT(r >= 0, "poll_cq of lane %u: %d", l, r);
		for (k = 0; k < r; k++) {
			unsigned int i = (unsigned int)wc[k].wr_id;
			uint32_t seq = (uint32_t)(wc[k].wr_id >> BENCH_WR_SEQ_SHIFT);

			ROCE_TEST_ASSERT(i < st->active, "wr_id %u of %u active", i, st->active);
			ROCE_TEST_ASSERT_EQ(i % bench_lanes, l, "QP %u completed on lane %u", i, l);
			ROCE_TEST_ASSERT_EQ(wc[k].status, IBV_WC_SUCCESS, "status of QP %u", i);
			ROCE_TEST_ASSERT_EQ(wc[k].opcode, IBV_WC_RDMA_WRITE, "opcode of QP %u", i);
			ROCE_TEST_ASSERT_EQ(wc[k].qp_num, bench_qp[0][i]->qp_num, "qp_num of %u",
					    i);
			/* a send queue completes in the order posted (from its head, K:rxe_comp.c) */
			ROCE_TEST_ASSERT_EQ(seq, bench_qp_done[i], "WRITE %u of QP %u out of order",
					    seq, i);
			bench_qp_done[i]++;
			st->done++;
			if (!more)
				continue;
			if (st->depth == 0) {
				if (bench_post_next(st) != 0)
					return -1;
			} else if ((k + 1 == r || (unsigned int)wc[k + 1].wr_id != i) &&
				   bench_refill(st, i) != 0) {
				return -1;
			}
		}
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

/* Workers that have active QPs in a step of active QPs. */
static uint16_t
bench_active_workers(unsigned int active)
{
	return (uint16_t)RTE_MIN((unsigned int)bench_sc.workers0, active);
}

/* What changed between two counter readings over msgs messages, into m. */
static int
bench_delta(const struct bench_counters *c0, const struct bench_counters *c1, uint64_t msgs,
	    unsigned int active, struct bench_meas *m)
{
	uint64_t total = 0;
	uint16_t w;

	m->frames = (double)(c1->frames - c0->frames) / (double)msgs;
	m->handoffs = (double)(c1->handoffs - c0->handoffs) / (double)msgs;
	for (w = 0; w < bench_sc.workers0; w++)
		total += c1->w[w].work - c0->w[w].work;
	for (w = 0; w < bench_sc.workers0; w++) {
		m->share[w] = total != 0 ? (double)(c1->w[w].work - c0->w[w].work) / (double)total : 0;
		/* a worker with QPs of the step must have run them */
		if (w < bench_active_workers(active))
			ROCE_TEST_ASSERT(c1->w[w].work > c0->w[w].work,
					 "worker %u did nothing with %u active QPs", w, active);
	}
	return 0;
}

/* One step: warm-up, then BENCH_STEP_MS of WRITEs, measured into *m. */
static int
bench_run(unsigned int idx, struct bench_meas *m)
{
	struct bench_step st = { .active = bench_active[idx], .depth = bench_depth };
	uint8_t *src = bench_sc.s[0].buf, *dst = bench_sc.s[1].buf;
	unsigned int i, inflight = st.depth != 0 ? st.depth * st.active : BENCH_INFLIGHT;
	struct bench_counters c0, c1;
	uint64_t t0, t1, end, done0;

	memset(dst, 0, ROCE_TEST_BUF_LEN);
	memset(bench_qp_posted, 0, sizeof(bench_qp_posted));
	memset(bench_qp_done, 0, sizeof(bench_qp_done));
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
	for (i = 0; st.depth == 0 && i < inflight; i++) {
		if (bench_post_next(&st) != 0)
			return -1;
	}
	for (i = 0; st.depth != 0 && i < st.active; i++) {
		if (bench_refill(&st, i) != 0)
			return -1;
	}
	done0 = st.done;
	if (bench_counters(&c0) != 0)
		return -1;
	t0 = rte_rdtsc();
	end = t0 + rte_get_tsc_hz() / MS_PER_S * BENCH_STEP_MS;
	while (rte_rdtsc() < end) {
		if (bench_round(&st, true) != 0)
			return -1;
	}
	t1 = rte_rdtsc();
	if (bench_counters(&c1) != 0)
		return -1;
	ROCE_TEST_ASSERT(st.done > done0, "no message in %u ms", BENCH_STEP_MS);
	m->rate = (double)(st.done - done0) * rte_get_tsc_hz() / (double)(t1 - t0);
	if (bench_delta(&c0, &c1, st.done - done0, st.active, m) != 0)
		return -1;
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
/* Depth D: every QP holds D (both sides alike, as in the fixed total). */
static const struct scale_caps bench_caps_depth = {
	.send_wr = BENCH_DEPTH, .recv_wr = 1, .send_sge = 1, .recv_sge = 1,
};

/*
 * Both devices, BENCH_QPS pairs, pair i on lane i % lanes of each side, all
 * at RTS, with the caps of the workload (bench_depth).
 */
static int
bench_setup(uint16_t workers, struct roce_test_pair *pair)
{
	unsigned int i, side;

	bench_sc = (struct roce_test_scale){
		.nqps = BENCH_QPS,
		.qp = { bench_qp[0], bench_qp[1] },
		.workers0 = workers,
		.pair = pair,
		/* every outstanding completion of a lane's QPs fits its CQ */
		.cqe0 = bench_depth * BENCH_QPS,
		.timeout = bench_depth != 0 ? BENCH_DEPTH_TIMEOUT : 0,
	};
	bench_lanes = RTE_MAX(workers, 1);
	if (roce_test_scale_open(&bench_sc) != 0)
		return -1;
	for (i = 0; i < BENCH_QPS; i++) {
		const struct scale_caps *caps = bench_depth != 0 ? &bench_caps_depth :
						i < BENCH_DEEP_QPS ? &bench_caps_deep : &bench_caps;

		for (side = 0; side < 2; side++)
			ROCE_TEST_ASSERT_EQ(roce_test_scale_qp_create_lane(&bench_sc.s[side], caps,
					(uint16_t)(i % bench_lanes), &bench_qp[side][i]), 0,
					"create %u: %s", i, rte_strerror(rte_errno));
	}
	return roce_test_scale_connect(&bench_sc);
}

/*
 * What the setup holds: the QPs by doc/scale.md's formula, side 0's CQs
 * (ibv_wc entries), and the heap's growth over the whole setup (devices,
 * lanes, CQs, buffers, QPs) since heap0.
 */
static void
bench_print_memory(const char *mode, uint64_t heap0)
{
	uint64_t qps = 0, cqe = bench_sc.s[0].scq->cqe;
	unsigned int i, side;
	uint16_t l;

	for (side = 0; side < 2; side++) {
		for (i = 0; i < BENCH_QPS; i++)
			qps += roce_test_scale_qp_bytes(bench_qp[side][i]);
	}
	for (l = 1; l < bench_lanes; l++)
		cqe += bench_sc.s[0].lane_cq[l]->cqe;
	printf("# %s %u: memory: 2 x %u QPs %.1f MB by the formula (%" PRIu64 " and %" PRIu64
	       " bytes for the last QP of each side), side 0's CQs %" PRIu64 " entries (%.1f MB of "
	       "ibv_wc), heap growth of the whole setup %.1f MB\n", mode, bench_sc.workers0,
	       BENCH_QPS, (double)qps / 1e6, roce_test_scale_qp_bytes(bench_qp[0][BENCH_QPS - 1]),
	       roce_test_scale_qp_bytes(bench_qp[1][BENCH_QPS - 1]), cqe,
	       (double)(cqe * sizeof(struct ibv_wc)) / 1e6,
	       (double)(roce_test_scale_heap_bytes() - heap0) / 1e6);
}

/* Retransmissions in a sweep: side 0's local ACK timeouts, side 1's duplicate requests. */
static void
bench_print_retries(const char *mode)
{
	printf("# %s %u: local ACK timeouts %" PRIu64 ", duplicate requests %" PRIu64 "\n", mode,
	       bench_sc.workers0, roce_test_xstat(bench_sc.s[0].ctx, "local_ack_timeout_err"),
	       roce_test_xstat(bench_sc.s[1].ctx, "duplicate_request"));
}

/* After a sweep: nothing dropped at a hand-off; on a crossed wire, hand-offs on both sides. */
static int
bench_check_handoffs(bool crossed)
{
	unsigned int side;

	for (side = 0; side < 2; side++) {
		ROCE_TEST_ASSERT_EQ(roce_test_xstat(bench_sc.s[side].ctx, "handoff_drops"), 0,
				    "side %u dropped hand-offs", side);
		if (crossed)
			ROCE_TEST_ASSERT(roce_test_xstat(bench_sc.s[side].ctx, "handoffs_out") > 0,
					 "side %u handed nothing over on a crossed wire", side);
	}
	return 0;
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

/* Field at byte offset off of each round's measurement of step idx, scaled, median. */
static double
bench_med_field(unsigned int idx, size_t off, double scale)
{
	double v[BENCH_ROUNDS];
	unsigned int r;

	for (r = 0; r < BENCH_ROUNDS; r++)
		v[r] = *(const double *)((const char *)&bench_m[idx][r] + off) * scale;
	return bench_median(v);
}

/* Each round's ratio of step idx to its own 1-QP step, per worker with active QPs; the median. */
static double
bench_med_ratio(unsigned int idx, bool per_worker, bool frames)
{
	double v[BENCH_ROUNDS], div = 1;
	unsigned int r;

	if (per_worker && bench_sc.workers0 > 1)
		div = bench_active_workers(bench_active[idx]);
	for (r = 0; r < BENCH_ROUNDS; r++) {
		const struct bench_meas *m = &bench_m[idx][r], *m1 = &bench_m[0][r];

		v[r] = frames ? m->rate * m->frames / (m1->rate * m1->frames) : m->rate / m1->rate;
		v[r] /= div;
	}
	return bench_median(v);
}

/* Medians of the workers' shares of the work of step idx, as text. */
static void
bench_share_text(unsigned int idx, char *buf, size_t len)
{
	size_t n = 0;
	uint16_t w;

	buf[0] = '\0';
	if (bench_sc.workers0 == 0)
		snprintf(buf, len, "-");
	for (w = 0; w < bench_sc.workers0 && n < len; w++)
		n += (size_t)snprintf(buf + n, len - n, "%s%.2f", w ? " " : "",
				      bench_med_field(idx, offsetof(struct bench_meas, share) +
						      w * sizeof(double), 1));
}

static void
bench_print(const char *mode)
{
	unsigned int idx, last = BENCH_STEPS - 1;
	uint16_t workers = bench_sc.workers0;
	char share[BENCH_CELL];
	double rate, ratio;

	printf("# | mode | workers | active QPs | Mmsg/s | msg-rate ratio | per-worker Mmsg/s | "
	       "per-worker ratio | frames/msg | handoffs/msg | frame-rate ratio | work share |\n");
	for (idx = 0; idx < BENCH_STEPS; idx++) {
		rate = bench_med_field(idx, offsetof(struct bench_meas, rate), 1e-6);
		if (workers > 1 && !bench_multi_step[idx])
			continue;
		bench_share_text(idx, share, sizeof(share));
		printf("# | %s | %u | %u | %.3f | %.2f | %.3f | %.2f | %.2f | %.2f | %.2f | %s |\n",
		       mode, workers, bench_active[idx], rate, bench_med_ratio(idx, false, false),
		       workers > 1 ? rate / bench_active_workers(bench_active[idx]) : rate,
		       bench_med_ratio(idx, true, false),
		       bench_med_field(idx, offsetof(struct bench_meas, frames), 1),
		       bench_med_field(idx, offsetof(struct bench_meas, handoffs), 1),
		       bench_med_ratio(idx, false, true), share);
	}
	ratio = bench_med_ratio(last, true, false);
	printf("# %s %u: %u QPs at %.2f of the 1-QP message rate per worker (goal %.2f), "
	       "frame rate %.2f (medians of %d rounds)\n", mode, workers, bench_active[last],
	       ratio, BENCH_GOAL_RATIO, bench_med_ratio(last, false, true), BENCH_ROUNDS);
}

/*
 * Each worker over the whole sweep: how many of its loops found work and
 * how much per such loop (whether it waited for the main lcore or was busy).
 */
static void
bench_print_workers(const char *mode)
{
	struct rte_roce_worker_stats st;
	uint16_t w;

	for (w = 0; w < bench_sc.workers0; w++) {
		if (rte_roce_worker_stats_get(bench_sc.s[0].ctx, w, &st) != 0 || st.loops == 0)
			continue;
		printf("# %s %u: worker %u: %" PRIu64 " loops, %" PRIu64 " with work (%.3f%%), "
		       "%.1f work per such loop\n", mode, bench_sc.workers0, w, st.loops,
		       st.busy_loops, 100.0 * (double)st.busy_loops / (double)st.loops,
		       st.busy_loops != 0 ? (double)st.work / (double)st.busy_loops : 0);
	}
}

/*
 * BENCH_ROUNDS sweeps of active QPs with side 0 driven by workers (0:
 * inline) over pair (NULL: roce_test_verbs_pair), depth WRITEs in flight
 * per active QP (0: the fixed total); prints each step's medians.
 */
static int
bench_sweep(uint16_t workers, struct roce_test_pair *pair, bool crossed, unsigned int depth)
{
	uint64_t t0 = roce_test_ms(), heap0 = roce_test_scale_heap_bytes();
	char mode[BENCH_CELL], load[BENCH_CELL] = "";
	unsigned int idx, r;
	int rc;

	if (depth != 0)
		snprintf(load, sizeof(load), ", depth %u per QP", depth);
	snprintf(mode, sizeof(mode), "%s%s%s%s", workers ? "workers" : "inline", load,
		 crossed ? ", crossed" : "",
		 workers + 1 > bench_cpus ? ", oversubscribed" : "");
	bench_depth = depth;
	rc = bench_setup(workers, pair);
	printf("# %s %u: setup of %u pairs %" PRIu64 " ms\n", mode, workers, BENCH_QPS,
	       roce_test_ms() - t0);
	if (rc == 0)
		bench_print_memory(mode, heap0);
	for (r = 0; rc == 0 && r < BENCH_ROUNDS; r++) {
		for (idx = 0; rc == 0 && idx < BENCH_STEPS; idx++) {
			if (workers <= 1 || bench_multi_step[idx])
				rc = bench_run(idx, &bench_m[idx][r]);
		}
	}
	if (rc == 0)
		rc = bench_check_handoffs(crossed);
	if (rc == 0) {
		bench_print(mode);
		bench_print_workers(mode);
		bench_print_retries(mode);
	}
	rc |= roce_test_scale_close(&bench_sc);
	ROCE_TEST_ASSERT(rc == 0, "scale sweep");
	printf("# %s %u: %" PRIu64 " ms in all\n", mode, workers, roce_test_ms() - t0);
	return 0;
}

/* Worker lcores a sweep may use: every lcore but main, up to the queues of a test pair. */
static uint16_t
bench_max_workers(void)
{
	return (uint16_t)RTE_MIN(RTE_MIN(rte_lcore_count() - 1,
					 (unsigned int)RTE_ROCE_DEV_WORKERS_MAX),
				 (unsigned int)ROCE_TEST_PAIR_QUEUES_MAX);
}

static int
test_scale_inline(void)
{
	return bench_sweep(0, NULL, false, 0);
}

/* Side 0 on 1 .. every worker lcore; side 1 inline on the main lcore with as many lanes. */
static int
test_scale_workers(void)
{
	uint16_t w, nb = bench_max_workers();
	int rc = 0;

	if (nb == 0)
		printf("# no worker lcore: inline only\n");
	for (w = 1; rc == 0 && w <= nb; w++)
		rc = bench_sweep(w, w == 1 ? NULL : &bench_pair[w], false, 0);
	return rc;
}

/* Two workers on a crossed wire: every frame handed over once on each device. */
static int
test_scale_crossed(void)
{
	if (bench_max_workers() < 2) {
		printf("# fewer than 2 worker lcores: no crossed sweep\n");
		return 0;
	}
	return bench_sweep(2, &bench_crossed, true, 0);
}

/* Depth D per QP (perftest's workload), one thread driving both devices. */
static int
test_scale_depth_inline(void)
{
	return bench_sweep(0, NULL, false, BENCH_DEPTH);
}

/* Depth D per QP, side 0 on one worker (the only layout this machine does not oversubscribe). */
static int
test_scale_depth_worker(void)
{
	if (bench_max_workers() < 1) {
		printf("# no worker lcore: no depth sweep on a worker\n");
		return 0;
	}
	return bench_sweep(1, NULL, false, BENCH_DEPTH);
}

static const struct roce_test_case cases[] = {
	{ "scale_inline", test_scale_inline },
	{ "scale_workers", test_scale_workers },
	{ "scale_crossed", test_scale_crossed },
	{ "scale_depth_inline", test_scale_depth_inline },
	{ "scale_depth_worker", test_scale_depth_worker },
};

int
main(int argc, char **argv)
{
	const char *eal_args[] = { "-m", ROCE_TEST_SCALE_MEM_MB, NULL, NULL, NULL };
	/* e.g. "0@0,1@1,2@(0-1)" */
	char lcores[BENCH_CELL], name[RTE_RING_NAMESIZE];
	const char *only;
	uint16_t q;

	RTE_SET_USED(argc);
	/*
	 * Sweep at least 1 and 2 workers: on a machine of fewer than 3 CPUs,
	 * lcore i pinned to CPU i while there are CPUs, the others floating
	 * over all of them (their rows say "oversubscribed"). Pinned first:
	 * two spinning threads left to float may share a CPU and run by turns
	 * of a scheduler slice (measured: 1 worker at a third of its pinned rate).
	 */
	bench_cpus = RTE_MAX(sysconf(_SC_NPROCESSORS_ONLN), 1L);
	if (bench_cpus < BENCH_LCORES_MIN) {
		int n = 0;
		long i;

		for (i = 0; i < BENCH_LCORES_MIN; i++) {
			n += snprintf(lcores + n, sizeof(lcores) - (size_t)n, "%s%ld@", i ? "," : "",
				      i);
			n += i < bench_cpus ?
				snprintf(lcores + n, sizeof(lcores) - (size_t)n, "%ld", i) :
				snprintf(lcores + n, sizeof(lcores) - (size_t)n, "(0-%ld)",
					 bench_cpus - 1);
		}
		eal_args[2] = "--lcores";
		eal_args[3] = lcores;
	}
	if (roce_test_eal_init(argv[0], eal_args) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&roce_test_verbs_pair, "scale") != 0)
		return 1;
	for (q = 2; q <= bench_max_workers(); q++) {
		snprintf(name, sizeof(name), "scale%u", q);
		if (roce_test_pair_create_mq(&bench_pair[q], name, q, 0) != 0)
			return 1;
	}
	if (bench_max_workers() >= 2 && roce_test_pair_create_mq(&bench_crossed, "scalex", 2, 1) != 0)
		return 1;
	/* BENCH_SCALE_CASE=name: that case alone (measuring one model by hand) */
	only = getenv("BENCH_SCALE_CASE");
	for (q = 0; only != NULL && q < RTE_DIM(cases); q++) {
		if (strcmp(cases[q].name, only) == 0)
			return roce_test_run(&cases[q], 1);
	}
	return roce_test_run(cases, RTE_DIM(cases));
}
