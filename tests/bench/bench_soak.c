/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The soak (issue 19; suite bench, never in the default test run): 64 RC
 * QP pairs over net_ring with the fault injector on both ports' RX
 * (RoCEv2 frames dropped, duplicated, reordered and corrupted), each QP
 * running an RDMA WRITE, an RDMA READ and a SEND in turn, of random sizes
 * up to SOAK_SLOT, every byte checked, for ROCE_SOAK_SECONDS (default 60).
 *
 * Every SOAK_SAMPLE_MS it prints the mbufs in use and the heap (the curve).
 * A QP whose WR waits longer than SOAK_STUCK_MS for its completion fails
 * the run. At the end: no WR outstanding, each completed once, in success;
 * the receive completions and the engine's SEND counters match the SENDs;
 * the wires are empty, the mbuf pool and the heap are back at their start;
 * and the loss was real (drops, retries, duplicate requests counted).
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <rte_roce.h>
#include <rte_roce_fault.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_scale.h"
#include "roce_test_verbs.h"

#define SOAK_QPS		ROCE_TEST_MAX_QPS
#define SOAK_SLOT		16384u		/* bytes of each QP, on both sides */
#define SOAK_DEFAULT_S		60
#define SOAK_SAMPLE_MS		10000
#define SOAK_STUCK_MS		10000		/* far beyond timeout x retries (0.54 s) */
#define SOAK_DRAIN_MS		5000
#define SOAK_WC_BURST		64
#define SOAK_SEED		19

enum soak_op { SOAK_WRITE, SOAK_READ, SOAK_SEND, SOAK_NB_OPS };

/* A QP pair's one WR in flight. */
struct soak_qp {
	uint32_t seq;		/* WRs posted */
	uint32_t len;		/* of the one in flight */
	bool busy;
	uint64_t posted_ms;
};

struct soak {
	struct roce_test_env e;
	struct rte_roce_fault *fault[2];
	struct soak_qp qp[SOAK_QPS];
	uint64_t done[SOAK_NB_OPS];
	uint64_t recvs;		/* receive completions at side 1 */
	uint64_t bytes;		/* checked */
	unsigned int busy;
	uint32_t rand;
};

static uint32_t
soak_rand(struct soak *k)
{
	/* Numerical Recipes LCG: the same run on every libc. */
	k->rand = k->rand * 1664525u + 1013904223u;
	return k->rand >> 8;
}

static uint32_t
soak_off(unsigned int i)
{
	return ROCE_TEST_DATA_OFF + i * SOAK_SLOT;
}

static enum soak_op
soak_op_of(uint32_t seq)
{
	return (enum soak_op)(seq % SOAK_NB_OPS);
}

/* QP pair i's next WR: its source filled, its target zeroed. */
static int
soak_post(struct soak *k, unsigned int i)
{
	struct soak_qp *q = &k->qp[i];
	struct roce_test_side *a = &k->e.s[0], *b = &k->e.s[1];
	enum soak_op op = soak_op_of(q->seq);
	uint8_t *la = a->buf + soak_off(i), *lb = b->buf + soak_off(i);
	uint64_t wr_id = (uint64_t)i << 32 | q->seq;
	static const enum ibv_wr_opcode verb[SOAK_NB_OPS] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ, IBV_WR_SEND,
	};

	q->len = 1 + soak_rand(k) % SOAK_SLOT;
	roce_test_fill(op == SOAK_READ ? lb : la, q->len, q->seq);
	memset(op == SOAK_READ ? la : lb, 0, q->len);
	if (op == SOAK_SEND)
		ROCE_TEST_ASSERT_EQ(roce_test_post_recv(k->e.qp[1][i], wr_id, lb, SOAK_SLOT,
							b->mr->lkey), 0, "post_recv QP %u", i);
	ROCE_TEST_ASSERT_EQ(roce_test_post_send(k->e.qp[0][i], verb[op], wr_id, la, q->len,
						a->mr->lkey, (uintptr_t)lb, b->mr->rkey,
						IBV_SEND_SIGNALED), 0, "post QP %u", i);
	q->busy = true;
	q->posted_ms = roce_test_ms();
	q->seq++;
	k->busy++;
	return 0;
}

/* A send completion: its QP's WR, in success, the bytes where they belong. */
static int
soak_complete(struct soak *k, const struct ibv_wc *wc)
{
	unsigned int i = (unsigned int)(wc->wr_id >> 32);
	struct soak_qp *q = &k->qp[i];

	ROCE_TEST_ASSERT(i < SOAK_QPS && q->busy && (uint32_t)wc->wr_id == q->seq - 1,
			 "completion of WR %#" PRIx64 " not in flight", wc->wr_id);
	ROCE_TEST_ASSERT_EQ(wc->status, IBV_WC_SUCCESS, "QP %u WR %u", i, q->seq - 1);
	ROCE_TEST_ASSERT(memcmp(k->e.s[0].buf + soak_off(i), k->e.s[1].buf + soak_off(i),
				q->len) == 0, "QP %u WR %u: %u bytes differ", i, q->seq - 1, q->len);
	k->done[soak_op_of(q->seq - 1)]++;
	k->bytes += q->len;
	q->busy = false;
	k->busy--;
	return 0;
}

/* Poll both devices once and take what both CQs hold. */
static int
soak_reap(struct soak *k)
{
	struct ibv_wc wc[SOAK_WC_BURST];
	int n, j;

	roce_test_pump_env(&k->e);
	n = rte_roce_poll_cq(k->e.s[0].scq, RTE_DIM(wc), wc);
	ROCE_TEST_ASSERT(n >= 0, "poll send CQ: %d", n);
	for (j = 0; j < n; j++)
		if (soak_complete(k, &wc[j]) != 0)
			return -1;
	n = rte_roce_poll_cq(k->e.s[1].rcq, RTE_DIM(wc), wc);
	ROCE_TEST_ASSERT(n >= 0, "poll receive CQ: %d", n);
	for (j = 0; j < n; j++)
		ROCE_TEST_ASSERT_EQ(wc[j].status, IBV_WC_SUCCESS, "receive");
	k->recvs += (uint64_t)n;
	return 0;
}

static int
soak_check_stuck(const struct soak *k, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < SOAK_QPS; i++)
		ROCE_TEST_ASSERT(!k->qp[i].busy || now - k->qp[i].posted_ms < SOAK_STUCK_MS,
				 "QP %u: WR %u without a completion for %" PRIu64 " ms", i,
				 k->qp[i].seq - 1, now - k->qp[i].posted_ms);
	return 0;
}

static void
soak_sample(const struct soak *k, uint64_t secs)
{
	printf("# %4" PRIu64 " s: %" PRIu64 " WRs done, %u mbufs in use, heap %" PRIu64 " bytes\n",
	       secs, k->done[SOAK_WRITE] + k->done[SOAK_READ] + k->done[SOAK_SEND],
	       rte_mempool_in_use_count(roce_test_mbuf_pool()), roce_test_scale_heap_bytes());
}

/* Traffic until the end, then until every WR in flight has completed. */
static int
soak_run(struct soak *k, unsigned int seconds)
{
	uint64_t t0 = roce_test_ms(), end = t0 + seconds * 1000ull, next = t0 + SOAK_SAMPLE_MS;
	uint64_t now = t0, drain_end = 0;
	unsigned int i;

	while (now < end || k->busy > 0) {
		for (i = 0; now < end && i < SOAK_QPS; i++)
			if (!k->qp[i].busy && soak_post(k, i) != 0)
				return -1;
		if (soak_reap(k) != 0)
			return -1;
		now = roce_test_ms();
		if (now >= next) {
			soak_sample(k, (now - t0) / 1000);
			next += SOAK_SAMPLE_MS;
			if (soak_check_stuck(k, now) != 0)
				return -1;
		}
		if (now >= end && drain_end == 0)
			drain_end = now + SOAK_DRAIN_MS;
		ROCE_TEST_ASSERT(drain_end == 0 || now < drain_end, "%u WRs still in flight",
				 k->busy);
	}
	return 0;
}

static int
soak_faults_on(struct soak *k)
{
	struct rte_roce_fault_conf fc = {
		.seed = SOAK_SEED, .drop = 0.01, .dup = 0.005, .reorder = 0.005, .corrupt = 0.002,
		.reorder_max_us = 1000, .roce_only = true,
	};
	uint16_t eth[2] = { roce_test_verbs_pair.a, roce_test_verbs_pair.b };
	unsigned int s;

	for (s = 0; s < 2; s++) {
		fc.seed = SOAK_SEED + s;
		k->fault[s] = rte_roce_fault_attach(eth[s], 0, RTE_ROCE_FAULT_RX, &fc);
		ROCE_TEST_ASSERT(k->fault[s] != NULL, "fault injector %u", s);
	}
	return 0;
}

/* The injectors' held frames delivered, their counters summed, then gone. */
static int
soak_faults_off(struct soak *k, struct rte_roce_fault_stats *sum)
{
	struct rte_roce_fault_stats st;
	unsigned int s;

	memset(sum, 0, sizeof(*sum));
	for (s = 0; s < 2; s++) {
		ROCE_TEST_ASSERT_EQ(rte_roce_fault_flush(k->fault[s]), 0, "flush");
		ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(k->fault[s], &st), 0, "fault stats");
		sum->dropped += st.dropped;
		sum->duplicated += st.duplicated;
		sum->reordered += st.reordered;
		sum->corrupted += st.corrupted;
		ROCE_TEST_ASSERT_EQ(rte_roce_fault_detach(k->fault[s]), 0, "detach");
	}
	return 0;
}

/* Poll until nothing moves: the wires empty, every late duplicate taken. */
static int
soak_quiesce(struct soak *k)
{
	uint64_t end = roce_test_ms() + ROCE_TEST_QUIET_MS * 10;

	while (roce_test_ms() < end)
		if (soak_reap(k) != 0)
			return -1;
	ROCE_TEST_ASSERT_EQ(rte_ring_count(roce_test_verbs_pair.ring[0]) +
			    rte_ring_count(roce_test_verbs_pair.ring[1]), 0, "frames on the wires");
	return 0;
}

static int
test_soak(void)
{
	const char *env_s = getenv("ROCE_SOAK_SECONDS");
	unsigned int seconds = env_s != NULL ? (unsigned int)atoi(env_s) : SOAK_DEFAULT_S;
	static struct soak k;
	struct rte_roce_fault_stats fs;
	struct rte_roce_stats sa0, sb0, sa, sb;
	unsigned int mbufs0, mbufs1;
	uint64_t heap0, heap1, t0, secs, sends;
	int ret;

	memset(&k, 0, sizeof(k));
	k.rand = SOAK_SEED;
	ret = roce_test_env_open(&k.e, &roce_test_default_conf, SOAK_QPS);
	if (ret == 0)
		ret = roce_test_warm_up(&k.e);
	if (ret == 0)
		ret = soak_faults_on(&k);
	/* The warm-up's SEND is counted already. */
	if (ret == 0 && (rte_roce_stats_get(k.e.s[0].ctx, &sa0) != 0 ||
			 rte_roce_stats_get(k.e.s[1].ctx, &sb0) != 0))
		ret = -1;
	mbufs0 = rte_mempool_in_use_count(roce_test_mbuf_pool());
	heap0 = roce_test_scale_heap_bytes();
	t0 = roce_test_ms();
	if (ret == 0)
		ret = soak_run(&k, seconds);
	secs = roce_test_ms() - t0;
	heap1 = roce_test_scale_heap_bytes();
	if (ret == 0)
		ret = soak_faults_off(&k, &fs);
	if (ret == 0)
		ret = soak_quiesce(&k);
	mbufs1 = rte_mempool_in_use_count(roce_test_mbuf_pool());
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(rte_roce_stats_get(k.e.s[0].ctx, &sa), 0, "stats a");
		ROCE_TEST_ASSERT_EQ(rte_roce_stats_get(k.e.s[1].ctx, &sb), 0, "stats b");
		sends = k.done[SOAK_SEND];
		printf("# %u QP pairs, %.1f s: %" PRIu64 " WRITEs, %" PRIu64 " READs, %" PRIu64
		       " SENDs, %" PRIu64 " MiB checked (%.1f MiB/s)\n", SOAK_QPS, secs / 1e3,
		       k.done[SOAK_WRITE], k.done[SOAK_READ], sends, k.bytes >> 20,
		       (double)k.bytes / (1 << 20) / (secs / 1e3));
		printf("# faults: %" PRIu64 " dropped, %" PRIu64 " duplicated, %" PRIu64
		       " reordered, %" PRIu64 " corrupted; requester: %" PRIu64 " retries, %"
		       PRIu64 " timeouts, %" PRIu64 " sequence NAKs; responder: %" PRIu64
		       " duplicate requests\n", fs.dropped, fs.duplicated, fs.reordered, fs.corrupted,
		       sa.completer_retry_err, sa.local_ack_timeout_err, sa.rcvd_seq_err,
		       sb.duplicate_request);
		printf("# mbufs in use %u at the start, %u at the end; heap %" PRIu64 " -> %" PRIu64
		       " bytes\n", mbufs0, mbufs1, heap0, heap1);
		ROCE_TEST_ASSERT_EQ(k.recvs, sends, "a receive completion per SEND");
		ROCE_TEST_ASSERT_EQ(sa.rdma_sends - sa0.rdma_sends, sends, "rdma_sends");
		ROCE_TEST_ASSERT_EQ(sb.rdma_recvs - sb0.rdma_recvs, sends, "rdma_recvs");
		ROCE_TEST_ASSERT_EQ(sa.retry_exceeded_err, 0, "retries exceeded");
		ROCE_TEST_ASSERT_EQ(mbufs1, mbufs0, "mbufs in use back at the start");
		ROCE_TEST_ASSERT_EQ(heap1, heap0, "heap flat");
		ROCE_TEST_ASSERT(fs.dropped > 0 && sa.completer_retry_err > 0 &&
				 sb.duplicate_request > 0, "the loss was real");
	}
	return roce_test_env_close(&k.e) | ret;
}

static const struct roce_test_case cases[] = {
	{ "soak", test_soak },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&roce_test_verbs_pair, "soak") != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
