/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Scale: 16,384 RC QP pairs between two devices over net_ring, every one
 * created, taken to RTS, used for one SEND and destroyed, in bounded time;
 * the memory a QP costs measured on the rte_malloc heap and checked against
 * the formula of doc/scale.md; the QP limit of a device enforced; a
 * stalled requester reads its queued ACKs before its timers fire.
 */

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <rte_roce.h>

#include "roce_dev.h"
#include "roce_qp.h"
#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_scale.h"
#include "roce_test_verbs.h"

/* The goal: QPs per port. */
#define SCALE_QPS		16384
/* Wall-clock bound of the whole 16k-pair run (create, connect, send, destroy). */
#define SCALE_TIME_LIMIT_MS	60000
/* A small device for the limit test. */
#define SCALE_SMALL_MAX_QP	8
/*
 * The stalled requester: pairs with one WRITE each (their ACKs are many RX
 * bursts, fewer than the net_ring pair holds), the ACK timeout
 * (doc/wire-format.md §7: 4.096 us x 2^15 = 134 ms, twice the default so
 * that the sending phase stays far shorter even under a sanitizer on a
 * loaded machine), and how long side 0 is left unpolled: several timeouts.
 */
#define STALL_QPS		256
#define STALL_TIMEOUT		15
#define STALL_US		500000
#define STALL_WC_BURST		32

static struct ibv_qp *scale_qp[2][SCALE_QPS];

static const struct scale_caps scale_caps_small = {
	.send_wr = 4, .recv_wr = 4, .send_sge = 1, .recv_sge = 1, .inline_data = 0,
};

static const struct scale_caps scale_caps_large = {
	.send_wr = 256, .recv_wr = 256, .send_sge = 4, .recv_sge = 4, .inline_data = 64,
};

/* Create n QPs of caps on s; the heap grows by what the formula says. */
static int
scale_check_memory(struct roce_test_side *s, const struct scale_caps *caps, unsigned int n)
{
	uint64_t before, after, predicted;
	unsigned int i;

	before = roce_test_scale_heap_bytes();
	for (i = 0; i < n; i++)
		ROCE_TEST_ASSERT_EQ(roce_test_scale_qp_create(s, caps, &scale_qp[0][i]), 0, "qp %u", i);
	after = roce_test_scale_heap_bytes();
	predicted = roce_test_scale_qp_bytes(scale_qp[0][0]);
	printf("# caps wr %u/%u sge %u/%u inline %u: %u QPs, %" PRIu64 " bytes measured per QP, "
	       "%" PRIu64 " predicted\n", caps->send_wr, caps->recv_wr, caps->send_sge,
	       caps->recv_sge, caps->inline_data, n, (after - before) / n, predicted);
	for (i = 0; i < n; i++)
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(scale_qp[0][i]), 0, "destroy %u", i);
	ROCE_TEST_ASSERT_EQ(after - before, predicted * n, "heap growth of %u QPs", n);
	ROCE_TEST_ASSERT_EQ(roce_test_scale_heap_bytes(), before, "heap back after destroy");
	return 0;
}

/* The measured per-QP heap cost matches the formula for small and large caps. */
static int
test_qp_memory(void)
{
	struct rte_roce_dev_conf conf = { .max_qp = SCALE_QPS + RTE_ROCE_QP1_QPN };
	unsigned int baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	struct rte_roce_port *none = NULL;
	struct roce_test_side s;
	int rc;

	memset(&s, 0, sizeof(s));
	rc = roce_test_side_open_conf(&s, roce_test_verbs_pair.a, ROCE_TEST_ADDR_A, false, &conf);
	if (rc == 0)
		rc = scale_check_memory(&s, &scale_caps_small, SCALE_QPS / 16);
	if (rc == 0)
		rc = scale_check_memory(&s, &scale_caps_large, SCALE_QPS / 64);
	rc |= roce_test_side_close(&s, NULL, 0);
	rc |= roce_test_pair_release(&roce_test_verbs_pair, &s.port, &none, baseline);
	return rc;
}

/* Lanes measured: 1, 2 and 4 (the largest test pair). */
static const uint16_t scale_lanes[] = { 1, 2, ROCE_TEST_PAIR_QUEUES_MAX };
/* A net_ring pair of as many queues, made by the first lane_memory run. */
static struct roce_test_pair scale_mq_pair;

/* Heap bytes of opening a device of nb_lanes inline lanes (over a port of as many queues). */
static int
scale_open_bytes(uint16_t nb_lanes, uint64_t *bytes, uint32_t *slots)
{
	struct rte_roce_port_conf pc = { .nb_queues = nb_lanes };
	struct rte_roce_dev_conf conf = { .nb_lanes = nb_lanes };
	struct rte_roce_port *port;
	struct ibv_context *ctx;
	uint64_t before;

	port = roce_test_port(scale_mq_pair.a, &pc, NULL);
	ROCE_TEST_ASSERT(port != NULL, "port of %u queues", nb_lanes);
	before = roce_test_scale_heap_bytes();
	ctx = rte_roce_open_device(port, &conf);
	ROCE_TEST_ASSERT(ctx != NULL, "open with %u lanes: %s", nb_lanes, rte_strerror(rte_errno));
	*bytes = roce_test_scale_heap_bytes() - before;
	*slots = roce_dev_of(ctx)->qp_mask + 1;
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), 0, "close");
	ROCE_TEST_ASSERT_EQ(roce_test_scale_heap_bytes(), before, "heap back after close");
	rte_roce_port_destroy(port);
	return 0;
}

/*
 * The heap a device's lanes cost (default max_qp, inline lanes): measured
 * at open with 1, 2 and 4 lanes, the growth over 1 lane equal to the
 * formula's. A QP's own cost does not depend on the lanes (qp_memory).
 */
static int
test_lane_memory(void)
{
	uint64_t bytes[RTE_DIM(scale_lanes)], base, predicted;
	uint32_t slots = 0;
	unsigned int i;

	if (scale_mq_pair.nb_queues == 0 &&
	    roce_test_pair_create_mq(&scale_mq_pair, "lanemem", ROCE_TEST_PAIR_QUEUES_MAX, 0) != 0)
		return -1;
	for (i = 0; i < RTE_DIM(scale_lanes); i++) {
		if (scale_open_bytes(scale_lanes[i], &bytes[i], &slots) != 0)
			return -1;
	}
	base = roce_test_scale_lanes_bytes(1, slots);
	printf("# device open, %u QP slots: struct roce_dev %zu B, struct roce_qp %zu B, "
	       "struct roce_lane %zu B, schedule ring %zd B, hand-off ring %zd B\n", slots,
	       sizeof(struct roce_dev), sizeof(struct roce_qp), sizeof(struct roce_lane),
	       rte_ring_get_memsize(slots), rte_ring_get_memsize(ROCE_LANE_HANDOFF_RING));
	for (i = 0; i < RTE_DIM(scale_lanes); i++) {
		predicted = roce_test_scale_lanes_bytes(scale_lanes[i], slots);
		printf("# %u lanes: device %" PRIu64 " B, of which lanes %" PRIu64 " B by the formula;"
		       " over 1 lane: measured %" PRIu64 ", formula %" PRIu64 "\n", scale_lanes[i],
		       bytes[i], predicted, bytes[i] - bytes[0], predicted - base);
		ROCE_TEST_ASSERT_EQ(bytes[i] - bytes[0], predicted - base, "%u lanes", scale_lanes[i]);
	}
	return 0;
}

/* 16,384 pairs: create, RTS, one SEND each, destroy; pool and heap at baseline. */
static int
test_16k_pairs(void)
{
	struct roce_test_scale sc = {
		.nqps = SCALE_QPS,
		.caps = scale_caps_small,
		.qp = { scale_qp[0], scale_qp[1] },
	};
	uint64_t t0, t_open, t_create, t_connect, t_send, t_end;
	unsigned int armed_max = 0;
	uint64_t heap0, timeouts = 0, tx_full = 0;
	int rc;

	heap0 = roce_test_scale_heap_bytes();
	t0 = roce_test_ms();
	rc = roce_test_scale_open(&sc);
	t_open = roce_test_ms();
	if (rc == 0)
		rc = roce_test_scale_create(&sc);
	t_create = roce_test_ms();
	if (rc == 0)
		rc = roce_test_scale_connect(&sc);
	t_connect = roce_test_ms();
	if (rc == 0)
		rc = roce_test_scale_send_each(&sc, &armed_max);
	t_send = roce_test_ms();
	if (sc.s[0].ctx != NULL) {
		struct rte_roce_stats st;

		if (rte_roce_stats_get(sc.s[0].ctx, &st) == 0)
			timeouts = st.local_ack_timeout_err;
		tx_full = roce_test_scale_tx_full(&sc);
	}
	rc |= roce_test_scale_close(&sc);
	t_end = roce_test_ms();
	printf("# %u pairs: open %" PRIu64 " ms, create %" PRIu64 " ms, connect %" PRIu64
	       " ms, send+verify %" PRIu64 " ms, destroy %" PRIu64 " ms, total %" PRIu64 " ms\n",
	       SCALE_QPS, t_open - t0, t_create - t_open, t_connect - t_create,
	       t_send - t_connect, t_end - t_send, t_end - t0);
	printf("# retransmit timers armed at once: %u, timeouts %" PRIu64 ", tx_full drops %" PRIu64
	       "\n", armed_max, timeouts, tx_full);
	ROCE_TEST_ASSERT(rc == 0, "16k pairs");
	/*
	 * Back-pressure: nothing lost at a full TX queue. Local ACK timeouts
	 * are reported, not asserted: on a loaded machine or under a sanitizer
	 * the 67 ms timer can expire before the peer is polled, and the
	 * retransmission is then correct behaviour (every byte is verified).
	 */
	ROCE_TEST_ASSERT_EQ(tx_full, 0, "tx_full drops");
	ROCE_TEST_ASSERT(t_end - t0 < SCALE_TIME_LIMIT_MS, "took %" PRIu64 " ms", t_end - t0);
	ROCE_TEST_ASSERT_EQ(roce_test_scale_heap_bytes(), heap0, "heap at baseline");
	return 0;
}

/* Poll side's device until its port sent at least want frames more than *since. */
static int
stall_pump_until_sent(struct roce_test_side *s, uint64_t since, uint64_t want)
{
	uint64_t end = roce_test_ms() + ROCE_TEST_WAIT_MS;
	struct rte_roce_port_stats st;

	do {
		rte_roce_poll(s->ctx);
		rte_roce_port_stats_get(s->port, &st);
	} while (st.tx_packets - since < want && roce_test_ms() < end);
	ROCE_TEST_ASSERT(st.tx_packets - since >= want, "%" PRIu64 " of %" PRIu64 " frames sent",
			 st.tx_packets - since, want);
	return 0;
}

/* WRITEs on pairs [0, n), message i from side 0's slot i to side 1's. */
static int
stall_post_writes(struct roce_test_scale *sc, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint32_t off = i * ROCE_TEST_SCALE_SLOT;

		roce_test_fill(sc->s[0].buf + off, ROCE_TEST_SCALE_MSG, i);
		if (roce_test_post_send(sc->qp[0][i], IBV_WR_RDMA_WRITE, i, sc->s[0].buf + off,
					ROCE_TEST_SCALE_MSG, sc->s[0].mr->lkey,
					(uintptr_t)sc->s[1].buf + off, sc->s[1].mr->rkey,
					IBV_SEND_SIGNALED) != 0)
			return -1;
	}
	return 0;
}

/* Side 0's n WRITE completions, both sides polled: all successful, one per QP. */
static int
stall_take_completions(struct roce_test_scale *sc, unsigned int n)
{
	uint64_t end = roce_test_ms() + ROCE_TEST_WAIT_MS;
	struct ibv_wc wc[STALL_WC_BURST];
	unsigned int got = 0;
	int r, k;

	while (got < n && roce_test_ms() < end) {
		rte_roce_poll(sc->s[0].ctx);
		rte_roce_poll(sc->s[1].ctx);
		r = rte_roce_poll_cq(sc->s[0].scq, STALL_WC_BURST, wc);
		ROCE_TEST_ASSERT(r >= 0, "poll_cq: %d", r);
		for (k = 0; k < r; k++) {
			ROCE_TEST_ASSERT_EQ(wc[k].status, IBV_WC_SUCCESS, "status of %" PRIu64,
					    wc[k].wr_id);
			ROCE_TEST_ASSERT_EQ(wc[k].qp_num, sc->qp[0][wc[k].wr_id]->qp_num, "qp_num");
		}
		got += (unsigned int)r;
	}
	ROCE_TEST_ASSERT_EQ(got, n, "completions");
	return 0;
}

/* After the stall: no timer fired, nothing was sent twice, every WRITE's bytes in place. */
static int
stall_check(struct roce_test_scale *sc)
{
	struct rte_roce_stats st0, st1;
	uint64_t defers;
	unsigned int i;

	rte_roce_stats_get(sc->s[0].ctx, &st0);
	rte_roce_stats_get(sc->s[1].ctx, &st1);
	defers = roce_test_xstat(sc->s[0].ctx, "timer_defers");
	printf("# %u ACKs queued over %u us: %" PRIu64 " timeouts, %" PRIu64
	       " polls with the timers put off, %" PRIu64 " duplicates at the peer\n",
	       STALL_QPS, STALL_US, st0.local_ack_timeout_err, defers, st1.duplicate_request);
	ROCE_TEST_ASSERT_EQ(st0.local_ack_timeout_err, 0, "timers fired before the ACKs");
	ROCE_TEST_ASSERT_EQ(st1.duplicate_request, 0, "WRITEs sent again");
	ROCE_TEST_ASSERT(defers > 0 && defers != UINT64_MAX, "timers put off");
	for (i = 0; i < STALL_QPS; i++)
		ROCE_TEST_ASSERT(memcmp(sc->s[1].buf + i * ROCE_TEST_SCALE_SLOT,
					sc->s[0].buf + i * ROCE_TEST_SCALE_SLOT,
					ROCE_TEST_SCALE_MSG) == 0, "bytes of pair %u", i);
	return 0;
}

/*
 * Input before timeouts (roce_dev_progress()): side 0 sends one WRITE on
 * each of STALL_QPS pairs, side 1 writes and acknowledges them all, then
 * side 0 is not polled for several ACK timeouts, as a descheduled worker.
 * Every retransmit timer is then due and every ACK waits in side 0's RX
 * queue, STALL_QPS / 32 bursts of them. Its polls must read the ACKs
 * before the timers fire: no timeout, no retransmission (no duplicate at
 * side 1), every WRITE completed once and its bytes in place.
 */
static int
test_stalled_requester(void)
{
	struct roce_test_scale sc = {
		.nqps = STALL_QPS,
		.caps = scale_caps_small,
		.qp = { scale_qp[0], scale_qp[1] },
		.timeout = STALL_TIMEOUT,
	};
	struct rte_roce_port_stats p0, p1;
	int rc;

	rc = roce_test_scale_open(&sc);
	if (rc == 0)
		rc = roce_test_scale_create(&sc);
	if (rc == 0)
		rc = roce_test_scale_connect(&sc);
	/* One WRITE with both sides polled first: each resolves the other's MAC. */
	if (rc == 0)
		rc = stall_post_writes(&sc, 1);
	if (rc == 0)
		rc = stall_take_completions(&sc, 1);
	if (rc != 0)
		goto out;
	memset(sc.s[1].buf, 0, STALL_QPS * ROCE_TEST_SCALE_SLOT);
	rte_roce_port_stats_get(sc.s[0].port, &p0);
	rte_roce_port_stats_get(sc.s[1].port, &p1);
	rc = stall_post_writes(&sc, STALL_QPS);
	/* The WRITEs out, then the peer's ACKs into side 0's RX queue; side 0 stalls. */
	if (rc == 0)
		rc = stall_pump_until_sent(&sc.s[0], p0.tx_packets, STALL_QPS);
	if (rc == 0)
		rc = stall_pump_until_sent(&sc.s[1], p1.tx_packets, STALL_QPS);
	if (rc == 0) {
		usleep(STALL_US);
		rc = stall_take_completions(&sc, STALL_QPS);
	}
	if (rc == 0)
		rc = stall_check(&sc);
out:
	rc |= roce_test_scale_close(&sc);
	return rc;
}

/* A device refuses the QP after max_qp with ENOSPC, and takes one again after a destroy. */
static int
test_max_qp_limit(void)
{
	struct rte_roce_dev_conf conf = { .max_qp = SCALE_SMALL_MAX_QP };
	unsigned int baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	struct rte_roce_port *none = NULL;
	struct roce_test_side s;
	struct ibv_qp *extra;
	unsigned int i, n = 0;
	bool again = true;
	int rc, err;

	memset(&s, 0, sizeof(s));
	ROCE_TEST_ASSERT_EQ(roce_test_side_open_conf(&s, roce_test_verbs_pair.a, ROCE_TEST_ADDR_A,
						     false, &conf), 0, "open");
	for (i = 0; i < SCALE_SMALL_MAX_QP + 1; i++) {
		if (roce_test_scale_qp_create(&s, &scale_caps_small, &scale_qp[0][n]) != 0)
			break;
		n++;
	}
	err = rte_errno;
	/* a QP is taken again after a destroy */
	if (n > 0 && rte_roce_destroy_qp(scale_qp[0][n - 1]) == 0 &&
	    roce_test_scale_qp_create(&s, &scale_caps_small, &extra) == 0)
		scale_qp[0][n - 1] = extra;
	else
		again = false;
	rc = roce_test_side_close(&s, scale_qp[0], n);
	rc |= roce_test_pair_release(&roce_test_verbs_pair, &s.port, &none, baseline);
	ROCE_TEST_ASSERT_EQ(n, SCALE_SMALL_MAX_QP, "QPs created");
	ROCE_TEST_ASSERT_EQ(err, ENOSPC, "errno of the QP past max_qp");
	ROCE_TEST_ASSERT(again, "a QP again after a destroy");
	return rc;
}

/*
 * The default device with QP1 made first: 16,384 QPs, and the next one is
 * refused with ENOSPC and a log naming the knob (QP1 is counted in max_qp,
 * so without it the limit would be one QP later).
 */
static int
test_qp_16k_plus_one(void)
{
	unsigned int baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	struct ibv_qp_init_attr qp1_attr = { .cap = { .max_send_wr = 1, .max_recv_wr = 1,
						      .max_send_sge = 1, .max_recv_sge = 1 },
					     .qp_type = IBV_QPT_UD };
	struct rte_roce_port *none = NULL;
	struct roce_test_side s;
	struct ibv_qp *qp1, *extra = NULL;
	unsigned int n = 0;
	bool logged;
	size_t pos;
	int rc, err;

	memset(&s, 0, sizeof(s));
	ROCE_TEST_ASSERT_EQ(roce_test_log_capture(), 0, "log capture");
	ROCE_TEST_ASSERT_EQ(roce_test_side_open_conf(&s, roce_test_verbs_pair.a, ROCE_TEST_ADDR_A,
						     false, NULL), 0, "open");
	qp1_attr.send_cq = s.scq;
	qp1_attr.recv_cq = s.rcq;
	qp1 = rte_roce_create_qp1(s.pd, &qp1_attr);
	ROCE_TEST_ASSERT(qp1 != NULL, "QP1: %s", rte_strerror(rte_errno));
	while (n < SCALE_QPS && roce_test_scale_qp_create(&s, &scale_caps_small, &scale_qp[0][n]) == 0)
		n++;
	pos = roce_test_log_pos();
	rte_errno = 0;
	if (n == SCALE_QPS)
		(void)roce_test_scale_qp_create(&s, &scale_caps_small, &extra);
	err = rte_errno;
	logged = roce_test_logged_since(pos, "max_qp (16385, QP1 counted) reached: "
					"rte_roce_dev_conf.max_qp raises it");
	roce_test_log_release();
	rc = rte_roce_destroy_qp(qp1);
	if (extra != NULL)
		rc |= rte_roce_destroy_qp(extra);
	rc |= roce_test_side_close(&s, scale_qp[0], n);
	rc |= roce_test_pair_release(&roce_test_verbs_pair, &s.port, &none, baseline);
	ROCE_TEST_ASSERT_EQ(n, SCALE_QPS, "QPs created after QP1: %s", rte_strerror(err));
	ROCE_TEST_ASSERT(extra == NULL && err == ENOSPC, "QP 16,385 refused with ENOSPC (%s)",
			 rte_strerror(err));
	ROCE_TEST_ASSERT(logged, "the log names max_qp");
	return rc;
}

/* Above RTE_ROCE_DEV_MAX_QP_MAX the device is refused (EINVAL); the default admits 16,384. */
static int
test_max_qp_conf(void)
{
	struct rte_roce_dev_conf conf = { .max_qp = RTE_ROCE_DEV_MAX_QP_MAX + 1 };
	unsigned int baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	struct rte_roce_port *none = NULL;
	struct roce_test_side s;
	struct ibv_device_attr attr;
	int rc;

	memset(&s, 0, sizeof(s));
	s.port = roce_test_port(roce_test_verbs_pair.a, NULL, NULL);
	ROCE_TEST_ASSERT(s.port != NULL, "port");
	ROCE_TEST_ASSERT(rte_roce_open_device(s.port, &conf) == NULL, "max_qp above the maximum");
	ROCE_TEST_ASSERT_EQ(rte_errno, EINVAL, "errno");
	s.ctx = rte_roce_open_device(s.port, NULL);
	ROCE_TEST_ASSERT(s.ctx != NULL, "default device");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_device(s.ctx, &attr), 0, "query");
	ROCE_TEST_ASSERT(attr.max_qp >= SCALE_QPS + RTE_ROCE_QP1_QPN, "default max_qp %d",
			 attr.max_qp);
	rc = roce_test_side_close(&s, NULL, 0);
	rc |= roce_test_pair_release(&roce_test_verbs_pair, &s.port, &none, baseline);
	return rc;
}

static const struct roce_test_case cases[] = {
	{ "max_qp_conf", test_max_qp_conf },
	{ "max_qp_limit", test_max_qp_limit },
	{ "qp_16k_plus_one", test_qp_16k_plus_one },
	{ "qp_memory", test_qp_memory },
	{ "lane_memory", test_lane_memory },
	{ "16k_pairs", test_16k_pairs },
	{ "stalled_requester", test_stalled_requester },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return roce_test_scale_main(argv[0], cases, RTE_DIM(cases));
}
