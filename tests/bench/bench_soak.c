/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The soak (issue 19; suite bench, never in the default test run): 64 QP
 * pairs of every transport over net_ring with the fault injector on both
 * ports' RX (RoCEv2 frames dropped, duplicated, reordered and corrupted),
 * for ROCE_SOAK_SECONDS per case (default SOAK_DEFAULT_S), once with side a
 * inline and once with side a run by a worker lcore (doc/workers.md):
 *
 * - RC pairs: RDMA WRITE, RDMA READ and SEND_WITH_IMM in turn;
 * - churn pairs: the same, and in turn one of them is torn down while its
 *   WRs are in flight (requester to ERR, responder to ERR so the requester
 *   exhausts its retries, or destroyed idle with receives posted), then
 *   created and connected again; spare QPs are created and destroyed too;
 * - UC pairs: SEND_WITH_IMM and RDMA WRITE_WITH_IMM (lost messages stay lost);
 * - UD QPs: SEND_WITH_IMM through one AH (lost or duplicated);
 * - SRQ pairs: RC SEND_WITH_IMM into one shared receive queue on side b.
 *
 * Up to SOAK_WINDOW WRs in flight per pair, sizes random, every byte that
 * arrives checked against its WR's pattern. Each send completion must be
 * the QP's next WR (every WR completed exactly once, in order), and in
 * success unless its QP was being torn down; each receive completion the
 * next receive WR (every SRQ WQE once). A pair without a completion for
 * SOAK_STUCK_MS fails the run. Every SOAK_SAMPLE_MS: mbufs in use and heap.
 *
 * At the end: every QP to ERR and every receive WR flushed; no frame on
 * the wires; the engine's rdma_sends and rdma_recvs equal to the
 * completions seen; the mbuf pool and the heap back at their start; and
 * the loss was real.
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <rte_roce.h>
#include <rte_roce_fault.h>

#include "roce_qp.h"
#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_scale.h"
#include "roce_test_verbs.h"

#define SOAK_PAIRS		ROCE_TEST_MAX_QPS
#define SOAK_WINDOW		4		/* send WRs in flight per pair */
#define SOAK_TX_SLOTS		16		/* WRITE/READ/SEND buffers per pair, by seq */
#define SOAK_RX_SLOTS		8		/* receive WRs per pair, by receive seq */
#define SOAK_SLOT		8192u		/* bytes of a slot: the longest message */
#define SOAK_UD_MAX		1024u		/* UD messages fit the path MTU */
#define SOAK_SRQ_SLOTS		64		/* receive WRs of the shared receive queue */
#define SOAK_SRQ_TAG		(1ull << 63)	/* wr_id of an SRQ receive: tag | slot */
#define SOAK_QKEY		0x11111111u
#define SOAK_DEFAULT_S		15		/* per case; two cases run: about 35 s in all */
#define SOAK_SAMPLE_MS		5000
#define SOAK_STUCK_MS		10000		/* beyond timeout x (retry_cnt + 1): 4.3 s */
/*
 * ACK timeout code of the pairs, both cases: 537 ms, so 4.3 s before
 * RETRY_EXC_ERR. A replay waits behind every frame already queued to b:
 * the ring (ROCE_TEST_RING_SIZE, 1024) and a's TX backlog (256), 1,280
 * frames that b takes 32 a poll, and inline in the same thread as a. At
 * load 40 on the 2 shared cores the soak moved 0.9 to 1.7 MiB/s, about
 * 1,000 frames/s: 1.3 s of queue, beyond 67 ms (code 14) x 8 = 0.54 s.
 * Runs failed that way, b having seen none of the replays in 1.8 s
 * (doc/soak-fuzz.md); the worker case had seen it first (the worker
 * retries on its own clock while b waits for the main thread). 4.3 s is
 * three times the queue at that rate, and below SOAK_STUCK_MS.
 */
#define SOAK_TIMEOUT		17
#define SOAK_DRAIN_MS		10000
#define SOAK_CHURN_WRS		300		/* send completions between two tear-downs */
#define SOAK_WC_BURST		64
#define SOAK_SEED		19
#define SOAK_WORKER_LCORE	1

enum soak_kind { SOAK_RC, SOAK_CHURN, SOAK_UC, SOAK_UD, SOAK_SRQ, SOAK_NB_KINDS };

static const char *const soak_kind_name[SOAK_NB_KINDS] = {
	"RC", "RC churn", "UC", "UD", "RC on SRQ",
};

/* How many pairs of each kind, in this order from pair 0 on (64 in all). */
static const unsigned int soak_mix[SOAK_NB_KINDS] = { 32, 8, 8, 8, 8 };

/* How a churn pair is torn down (in turn). */
enum soak_churn {
	SOAK_CHURN_REQ_ERR,	/* requester to ERR: its WRs flushed */
	SOAK_CHURN_RESP_ERR,	/* responder to ERR: the requester's retries exhausted */
	SOAK_CHURN_DESTROY,	/* destroyed idle, receive WRs posted */
	SOAK_NB_CHURNS,
};

struct soak_pair {
	enum soak_kind kind;
	uint32_t posted;	/* send WRs posted: wr_id pair << 32 | seq */
	uint32_t completed;	/* send completions seen: the next is seq completed */
	uint32_t rposted;	/* receive WRs posted (not SRQ pairs) */
	uint32_t rcompleted;	/* receive completions seen, or discarded with the QP */
	uint32_t rx_next;	/* RC: seq of the next SEND; UC: after the latest received */
	uint64_t progress_ms;	/* last completion, or the first post after one */
	bool dying;		/* being torn down: no new WR */
	enum soak_churn churn;
};

struct soak_totals {
	uint64_t ops[SOAK_NB_KINDS];	/* send completions in success */
	uint64_t sends_ok[SOAK_NB_KINDS];	/* of those, SENDs */
	uint64_t recvs[SOAK_NB_KINDS];	/* receive completions in success */
	uint64_t sends_done;		/* SEND WRs completed, any status */
	uint64_t flushed;		/* send and receive WRs completed with WR_FLUSH_ERR */
	uint64_t retry_exc;		/* send WRs completed with RETRY_EXC_ERR */
	uint64_t discarded;		/* receive WRs destroyed with their QP */
	uint64_t uc_again;		/* UC messages received after a later one */
	uint64_t churns[SOAK_NB_CHURNS];
	uint64_t spares;		/* QPs created and destroyed unconnected */
	uint64_t bytes;			/* checked */
};

/* What is measured before and after the run. */
struct soak_mark {
	struct rte_roce_stats st[2];	/* side a's, side b's */
	unsigned int mbufs;		/* in use */
	uint64_t heap;			/* bytes */
};

struct soak {
	struct roce_test_env e;
	struct rte_roce_fault *fault[2];
	uint8_t *buf[2];
	struct ibv_mr *mr[2];
	struct ibv_srq *srq;		/* side b's */
	struct ibv_ah *ah;		/* a -> b, for the UD pairs */
	struct soak_pair p[SOAK_PAIRS];
	bool srq_busy[SOAK_SRQ_SLOTS];
	struct soak_totals t;
	uint8_t expect[SOAK_SLOT];	/* the pattern of the message being checked */
	unsigned int next_churn;
	uint64_t completions;		/* send completions, any status */
	uint64_t churn_at;		/* the next tear-down starts at so many */
	uint64_t slowest_ms;		/* the longest step of a pass (soak_step_end()) */
	const char *slowest_step;
	bool stopping;
	struct soak_mark start, end;
	struct roce_test_conf conf;	/* of the pairs */
};

static struct rte_roce_dev_conf soak_worker_conf = {
	.nb_workers = 1,
	.lcores = { SOAK_WORKER_LCORE },
};

/* ---- message plan: everything follows from (pair, seq) ---- */

static uint32_t
soak_mix32(uint32_t x)
{
	/* A 32-bit finaliser (MurmurHash3's fmix32): well spread, the same everywhere. */
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	return x ^ (x >> 16);
}

static uint32_t
soak_seed(unsigned int i, uint32_t seq)
{
	return (uint32_t)i << 24 ^ seq;
}

static enum ibv_wr_opcode
soak_op(enum soak_kind kind, uint32_t seq)
{
	static const enum ibv_wr_opcode rc[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ, IBV_WR_SEND_WITH_IMM,
	};
	static const enum ibv_wr_opcode uc[] = {
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM,
	};

	switch (kind) {
	case SOAK_RC:
	case SOAK_CHURN:
		return rc[seq % RTE_DIM(rc)];
	case SOAK_UC:
		return uc[seq % RTE_DIM(uc)];
	default:
		return IBV_WR_SEND_WITH_IMM;
	}
}

static uint32_t
soak_len(const struct soak_pair *p, unsigned int i, uint32_t seq)
{
	uint32_t max = p->kind == SOAK_UD ? SOAK_UD_MAX : SOAK_SLOT;

	return 1 + soak_mix32(soak_seed(i, seq)) % max;
}

/* The first seq from seq on that is a SEND (RC pairs receive those only). */
static uint32_t
soak_next_send(const struct soak_pair *p, uint32_t seq)
{
	while (soak_op(p->kind, seq) != IBV_WR_SEND_WITH_IMM)
		seq++;
	return seq;
}

/* ---- buffers: per pair, SOAK_TX_SLOTS then SOAK_RX_SLOTS; then the SRQ's ---- */

#define SOAK_PAIR_BYTES		((SOAK_TX_SLOTS + SOAK_RX_SLOTS) * SOAK_SLOT)
#define SOAK_BUF_BYTES		(SOAK_PAIRS * SOAK_PAIR_BYTES + SOAK_SRQ_SLOTS * SOAK_SLOT)

static uint8_t *
soak_tx_slot(struct soak *k, unsigned int side, unsigned int i, uint32_t seq)
{
	return k->buf[side] + i * SOAK_PAIR_BYTES + (seq % SOAK_TX_SLOTS) * SOAK_SLOT;
}

static uint8_t *
soak_rx_slot(struct soak *k, unsigned int i, uint32_t rseq)
{
	return k->buf[1] + i * SOAK_PAIR_BYTES + (SOAK_TX_SLOTS + rseq % SOAK_RX_SLOTS) * SOAK_SLOT;
}

static uint8_t *
soak_srq_slot(struct soak *k, unsigned int slot)
{
	return k->buf[1] + SOAK_PAIRS * SOAK_PAIR_BYTES + slot * SOAK_SLOT;
}

/* ---- posting ---- */

static int
soak_post_recv_at(struct soak *k, unsigned int i)
{
	struct soak_pair *p = &k->p[i];
	uint64_t wr_id = (uint64_t)i << 32 | p->rposted;

	ROCE_TEST_ASSERT_EQ(roce_test_post_recv(k->e.qp[1][i], wr_id, soak_rx_slot(k, i, p->rposted),
						SOAK_SLOT, k->mr[1]->lkey), 0, "post_recv pair %u", i);
	p->rposted++;
	return 0;
}

static int
soak_post_srq(struct soak *k, unsigned int slot)
{
	struct ibv_sge sge = { .addr = (uintptr_t)soak_srq_slot(k, slot), .length = SOAK_SLOT,
			       .lkey = k->mr[1]->lkey };
	struct ibv_recv_wr wr = { .wr_id = SOAK_SRQ_TAG | slot, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;

	ROCE_TEST_ASSERT(!k->srq_busy[slot], "SRQ slot %u posted twice", slot);
	ROCE_TEST_ASSERT_EQ(rte_roce_post_srq_recv(k->srq, &wr, &bad), 0, "post_srq_recv %u", slot);
	k->srq_busy[slot] = true;
	return 0;
}

/* SRQ WQEs the soak has posted and not seen complete. */
static unsigned int
soak_srq_posted(const struct soak *k)
{
	unsigned int j, n = 0;

	for (j = 0; j < SOAK_SRQ_SLOTS; j++)
		n += k->srq_busy[j];
	return n;
}

/* Pair i's receive WRs topped up to SOAK_RX_SLOTS (SRQ pairs: none of their own). */
static int
soak_fill_recvs(struct soak *k, unsigned int i)
{
	struct soak_pair *p = &k->p[i];

	while (p->kind != SOAK_SRQ && p->rposted - p->rcompleted < SOAK_RX_SLOTS)
		if (soak_post_recv_at(k, i) != 0)
			return -1;
	return 0;
}

/* Pair i's next send WR: its source filled, its target zeroed. */
static int
soak_post(struct soak *k, unsigned int i)
{
	struct soak_pair *p = &k->p[i];
	uint32_t seq = p->posted, len = soak_len(p, i, seq);
	enum ibv_wr_opcode op = soak_op(p->kind, seq);
	uint8_t *la = soak_tx_slot(k, 0, i, seq), *lb = soak_tx_slot(k, 1, i, seq);
	struct ibv_sge sge = { .addr = (uintptr_t)la, .length = len, .lkey = k->mr[0]->lkey };
	struct ibv_send_wr wr = {
		.wr_id = (uint64_t)i << 32 | seq, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(seq),
	};
	struct ibv_send_wr *bad = NULL;

	if (op == IBV_WR_RDMA_READ) {
		roce_test_fill(lb, len, soak_seed(i, seq));
		memset(la, 0, len);
	} else {
		roce_test_fill(la, len, soak_seed(i, seq));
		if (op != IBV_WR_SEND_WITH_IMM)
			memset(lb, 0, len);
	}
	if (p->kind == SOAK_UD) {
		wr.wr.ud.ah = k->ah;
		wr.wr.ud.remote_qpn = k->e.qp[1][i]->qp_num;
		wr.wr.ud.remote_qkey = SOAK_QKEY;
	} else {
		wr.wr.rdma.remote_addr = (uintptr_t)lb;
		wr.wr.rdma.rkey = k->mr[1]->rkey;
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(k->e.qp[0][i], &wr, &bad), 0,
			    "post pair %u WR %u", i, seq);
	if (p->posted == p->completed)
		p->progress_ms = roce_test_ms();
	p->posted++;
	return 0;
}

static void soak_dump_pair(const struct soak *k, unsigned int i);

/* ---- completions ---- */

/* The bytes at got are message (i, seq) of len bytes. */
static int
soak_check_bytes(struct soak *k, const uint8_t *got, unsigned int i, uint32_t seq, uint32_t len)
{
	roce_test_fill(k->expect, len, soak_seed(i, seq));
	ROCE_TEST_ASSERT(memcmp(got, k->expect, len) == 0, "pair %u (%s) WR %u: %u bytes differ",
			 i, soak_kind_name[k->p[i].kind], seq, len);
	k->t.bytes += len;
	return 0;
}

static bool
soak_status_ok(const struct soak_pair *p, enum ibv_wc_status st)
{
	return st == IBV_WC_SUCCESS ||
	       (p->dying && (st == IBV_WC_WR_FLUSH_ERR || st == IBV_WC_RETRY_EXC_ERR));
}

static int
soak_send_done(struct soak *k, const struct ibv_wc *wc)
{
	unsigned int i = (unsigned int)(wc->wr_id >> 32);
	uint32_t seq = (uint32_t)wc->wr_id;
	struct soak_pair *p = &k->p[i];
	enum ibv_wr_opcode op;

	ROCE_TEST_ASSERT(i < SOAK_PAIRS && seq == p->completed && seq < p->posted,
			 "send completion %#" PRIx64 " not the next of its QP", wc->wr_id);
	if (!soak_status_ok(p, wc->status)) {
		printf("# pair %u (%s) WR %u: status %d, %" PRIu64 " ms after its last progress\n",
		       i, soak_kind_name[p->kind], seq, wc->status, roce_test_ms() - p->progress_ms);
		soak_dump_pair(k, i);
		return -1;
	}
	op = soak_op(p->kind, seq);
	p->completed++;
	p->progress_ms = roce_test_ms();
	k->completions++;
	k->t.sends_done += op == IBV_WR_SEND_WITH_IMM;
	if (wc->status == IBV_WC_WR_FLUSH_ERR)
		k->t.flushed++;
	if (wc->status == IBV_WC_RETRY_EXC_ERR)
		k->t.retry_exc++;
	if (wc->status != IBV_WC_SUCCESS)
		return 0;
	k->t.ops[p->kind]++;
	k->t.sends_ok[p->kind] += op == IBV_WR_SEND_WITH_IMM;
	/* RC WRITE and READ: the completion says the bytes are in place. */
	if (op == IBV_WR_RDMA_WRITE)
		return soak_check_bytes(k, soak_tx_slot(k, 1, i, seq), i, seq, soak_len(p, i, seq));
	if (op == IBV_WR_RDMA_READ)
		return soak_check_bytes(k, soak_tx_slot(k, 0, i, seq), i, seq, soak_len(p, i, seq));
	return 0;
}

/*
 * Message seq arrived at pair i: in order for RC (every SEND, once), for UC
 * any sent one for UC and UD (lost, duplicated, late).
 */
static int
soak_recv_seq(struct soak *k, unsigned int i, uint32_t seq)
{
	struct soak_pair *p = &k->p[i];

	ROCE_TEST_ASSERT(seq < p->posted, "pair %u: WR %u received, %u posted", i, seq, p->posted);
	switch (p->kind) {
	case SOAK_UD:
		return 0;
	case SOAK_UC:
		/*
		 * A stale duplicate FIRST or ONLY starts a message again: UC
		 * resynchronises on any of them (doc/wire-format.md §6.7;
		 * K:rxe_resp.c check_psn).
		 */
		k->t.uc_again += seq < p->rx_next;
		p->rx_next = RTE_MAX(p->rx_next, seq + 1);
		return 0;
	default:
		ROCE_TEST_ASSERT_EQ(seq, p->rx_next, "RC pair %u: SEND received", i);
		p->rx_next = soak_next_send(p, seq + 1);
		return 0;
	}
}

/* A receive completion in success: which WR, how long, and its bytes. */
static int
soak_recv_check(struct soak *k, unsigned int i, const struct ibv_wc *wc, const uint8_t *rbuf)
{
	struct soak_pair *p = &k->p[i];
	uint32_t seq = ntohl(wc->imm_data), len, grh;

	ROCE_TEST_ASSERT(wc->wc_flags & IBV_WC_WITH_IMM, "pair %u: receive without immediate", i);
	if (soak_recv_seq(k, i, seq) != 0)
		return -1;
	len = soak_len(p, i, seq);
	k->t.recvs[p->kind]++;
	if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
		ROCE_TEST_ASSERT_EQ(wc->byte_len, len, "pair %u WRITE_WITH_IMM %u length", i, seq);
		return soak_check_bytes(k, soak_tx_slot(k, 1, i, seq), i, seq, len);
	}
	grh = p->kind == SOAK_UD ? RTE_ROCE_GRH_LEN : 0;
	ROCE_TEST_ASSERT_EQ(wc->byte_len, grh + len, "pair %u SEND %u length", i, seq);
	return soak_check_bytes(k, rbuf + grh, i, seq, len);
}

static int
soak_pair_of_qpn(struct soak *k, uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < SOAK_PAIRS; i++)
		if (k->e.qp[1][i] != NULL && k->e.qp[1][i]->qp_num == qpn)
			return (int)i;
	printf("# a receive of QP %#x, none of the soak's\n", qpn);
	return -1;
}

static int
soak_srq_done(struct soak *k, const struct ibv_wc *wc)
{
	unsigned int slot = (unsigned int)(wc->wr_id & ~SOAK_SRQ_TAG);
	int i;

	ROCE_TEST_ASSERT(slot < SOAK_SRQ_SLOTS && k->srq_busy[slot],
			 "SRQ completion of slot %u not posted", slot);
	k->srq_busy[slot] = false;
	ROCE_TEST_ASSERT_EQ(wc->status, IBV_WC_SUCCESS, "SRQ receive");
	i = soak_pair_of_qpn(k, wc->qp_num);
	if (i < 0 || soak_recv_check(k, (unsigned int)i, wc, soak_srq_slot(k, slot)) != 0)
		return -1;
	return k->stopping ? 0 : soak_post_srq(k, slot);
}

static int
soak_recv_done(struct soak *k, const struct ibv_wc *wc)
{
	unsigned int i = (unsigned int)(wc->wr_id >> 32);
	uint32_t rseq = (uint32_t)wc->wr_id;
	struct soak_pair *p;

	if (wc->wr_id & SOAK_SRQ_TAG)
		return soak_srq_done(k, wc);
	p = &k->p[i];
	ROCE_TEST_ASSERT(i < SOAK_PAIRS && rseq == p->rcompleted && rseq < p->rposted,
			 "receive completion %#" PRIx64 " not the next of its QP", wc->wr_id);
	p->rcompleted++;
	ROCE_TEST_ASSERT(soak_status_ok(p, wc->status) || k->stopping,
			 "pair %u receive %u: status %d", i, rseq, wc->status);
	if (wc->status == IBV_WC_WR_FLUSH_ERR)
		k->t.flushed++;
	if (wc->status != IBV_WC_SUCCESS)
		return 0;
	if (soak_recv_check(k, i, wc, soak_rx_slot(k, i, rseq)) != 0)
		return -1;
	return p->dying || k->stopping ? 0 : soak_fill_recvs(k, i);
}

/*
 * Everything cq holds, through done. Emptied at each pass: a completion
 * left for a later pass would let its pair's slots be reused meanwhile.
 */
static int
soak_drain_cq(struct soak *k, struct ibv_cq *cq, int (*done)(struct soak *, const struct ibv_wc *))
{
	struct ibv_wc wc[SOAK_WC_BURST];
	int n, j;

	do {
		n = rte_roce_poll_cq(cq, RTE_DIM(wc), wc);
		ROCE_TEST_ASSERT(n >= 0, "poll CQ: %d", n);
		for (j = 0; j < n; j++)
			if (done(k, &wc[j]) != 0)
				return -1;
	} while (n == RTE_DIM(wc));
	return 0;
}

/* Poll both devices once and take what the CQs hold. */
static int
soak_reap(struct soak *k)
{
	struct ibv_wc wc[SOAK_WC_BURST];

	roce_test_pump_env(&k->e);
	if (soak_drain_cq(k, k->e.s[0].scq, soak_send_done) != 0 ||
	    soak_drain_cq(k, k->e.s[1].rcq, soak_recv_done) != 0)
		return -1;
	/* Side a receives nothing: its receive CQ stays empty. */
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(k->e.s[0].rcq, RTE_DIM(wc), wc), 0, "a's receive CQ");
	return 0;
}

/* ---- QPs ---- */

static int
soak_qp_create(struct soak *k, unsigned int side, unsigned int i, struct ibv_qp **qp)
{
	struct roce_test_side *s = &k->e.s[side];
	enum soak_kind kind = k->p[i].kind;
	struct ibv_qp_init_attr ia = {
		.send_cq = s->scq, .recv_cq = s->rcq,
		.srq = side == 1 && kind == SOAK_SRQ ? k->srq : NULL,
		.cap = { .max_send_wr = SOAK_WINDOW, .max_recv_wr = SOAK_RX_SLOTS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = kind == SOAK_UC ? IBV_QPT_UC : kind == SOAK_UD ? IBV_QPT_UD : IBV_QPT_RC,
	};

	*qp = rte_roce_create_qp(s->pd, &ia);
	ROCE_TEST_ASSERT(*qp != NULL, "create QP of pair %u side %u: %s", i, side,
			 rte_strerror(rte_errno));
	return 0;
}

/* Pair i created, connected (UD: ready) and its receive WRs posted. */
static int
soak_pair_open(struct soak *k, unsigned int i)
{
	struct soak_pair *p = &k->p[i];

	if (soak_qp_create(k, 0, i, &k->e.qp[0][i]) != 0 ||
	    soak_qp_create(k, 1, i, &k->e.qp[1][i]) != 0)
		return -1;
	if (p->kind == SOAK_UD) {
		if (roce_test_ud_qp_ready(k->e.qp[0][i], SOAK_QKEY) != 0 ||
		    roce_test_ud_qp_ready(k->e.qp[1][i], SOAK_QKEY) != 0)
			return -1;
	} else if (roce_test_pair_connect(&k->e, i, &k->conf) != 0) {
		return -1;
	}
	p->rx_next = p->kind == SOAK_UC ? p->posted : soak_next_send(p, p->posted);
	p->progress_ms = roce_test_ms();
	return soak_fill_recvs(k, i);
}

static int
soak_qp_to_err(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &a, IBV_QP_STATE), 0, "QP %#x to ERR",
			    qp->qp_num);
	return 0;
}

/* A QP created, taken to INIT and destroyed on each side: QPNs and memory churn too. */
static int
soak_spare(struct soak *k)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp *qp;
	unsigned int side;

	for (side = 0; side < 2; side++) {
		ROCE_TEST_ASSERT_EQ(roce_test_qp_create(&k->e.s[side], IBV_QPT_RC, &qp), 0, "spare");
		ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
						       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0,
				    "spare to INIT");
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp), 0, "destroy spare");
		k->t.spares++;
	}
	return 0;
}

/* The next churn pair starts being torn down, its WRs in flight. */
static int
soak_churn_start(struct soak *k)
{
	unsigned int i = soak_mix[SOAK_RC] + k->next_churn % soak_mix[SOAK_CHURN];
	struct soak_pair *p = &k->p[i];

	if (p->dying)
		return 0;
	p->dying = true;
	p->churn = (enum soak_churn)(k->next_churn++ % SOAK_NB_CHURNS);
	k->t.churns[p->churn]++;
	switch (p->churn) {
	case SOAK_CHURN_REQ_ERR:
		return soak_qp_to_err(k->e.qp[0][i]) | soak_qp_to_err(k->e.qp[1][i]);
	case SOAK_CHURN_RESP_ERR:
		return soak_qp_to_err(k->e.qp[1][i]);
	default:
		return 0;
	}
}

/* A dying pair whose WRs are all accounted for: destroyed, then made again. */
static int
soak_churn_finish(struct soak *k, unsigned int i)
{
	struct soak_pair *p = &k->p[i];
	bool idle = p->churn == SOAK_CHURN_DESTROY;

	if (p->completed != p->posted || (!idle && p->rcompleted != p->rposted))
		return 0;
	if (idle) {
		/* Receive WRs still posted go with their QP, without completions. */
		k->t.discarded += p->rposted - p->rcompleted;
		p->rcompleted = p->rposted;
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(k->e.qp[0][i]), 0, "destroy churn a");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(k->e.qp[1][i]), 0, "destroy churn b");
	k->e.qp[0][i] = k->e.qp[1][i] = NULL;
	p->dying = false;
	if (soak_pair_open(k, i) != 0)
		return -1;
	return soak_spare(k);
}

/* ---- the run ---- */

/*
 * The engine's state of one QP of a stuck pair, for the failure report:
 * requester, completer and its timers (time left against the wheel's last
 * run and the TSC's now), responder, the send WQEs not retired, counters.
 * Read without the lane's handshake: a worker may be changing it meanwhile.
 */
static void
soak_dump_qp(const char *side, struct ibv_qp *ibqp)
{
	struct roce_qp *qp = roce_qp_of(ibqp);
	const struct roce_lane *lane = qp->lane;
	const struct roce_timer_wheel *w = &lane->timers;
	const struct rte_roce_stats *st = &qp->stats;
	uint32_t idx, prod = roce_sq_producer(qp);
	/* The wheel's clock (roce_timer_now_us() is not exported), to the microsecond. */
	uint64_t now_us = (rte_rdtsc() - w->tsc_origin) / (w->tsc_hz / 1000000);

	printf("#  %s QP %#x state %d, lane %u (wheel ran %" PRIu64 " us ago, %u timers armed, "
	       "%" PRIu64 " polls, %" PRIu64 " timer defers), scheduled %d\n", side,
	       ibqp->qp_num, roce_qp_state(qp), lane->id, now_us - w->now_us,
	       w->armed, lane->stats.polls, lane->stats.timer_defers, qp->scheduled);
	printf("#   req: WQE %u psn %u psn_end %u pkt %u rd_atomic %u failed %d; SQ %u..%u\n",
	       qp->req.wqe_idx, qp->req.psn, qp->req.psn_end, qp->req.pkt_idx,
	       qp->req.rd_atomic, qp->req.failed, roce_sq_consumer(qp), prod);
	printf("#   comp: psn %u retry_left %u rnr_left %u retrying %d rnr_wait %d timeout %"
	       PRIu64 " us; retrans %s at %" PRId64 " us from now; rnr %s at %" PRId64 " us\n",
	       qp->comp.psn, qp->comp.retry_left, qp->comp.rnr_left, qp->comp.retrying,
	       qp->comp.rnr_wait, qp->comp.timeout_us,
	       roce_timer_pending(&qp->comp.retrans) ? "armed" : "idle",
	       (int64_t)(qp->comp.retrans.expire_us - now_us),
	       roce_timer_pending(&qp->comp.rnr) ? "armed" : "idle",
	       (int64_t)(qp->comp.rnr.expire_us - now_us));
	printf("#   resp: psn %u msn %u nak_sent %d ack_pending %d nak_pending %d res_pending %u; "
	       "RQ %u..%u\n", qp->resp.psn, qp->resp.msn, qp->resp.nak_sent, qp->resp.ack_pending,
	       qp->resp.nak_pending, qp->resp.res_pending, roce_queue_cons(&qp->rq),
	       roce_queue_prod(&qp->rq));
	for (idx = roce_sq_consumer(qp); idx != prod; idx++) {
		const struct roce_send_wqe *wqe = roce_sq_wqe(qp, idx);

		printf("#   WQE %u: wr_id %#" PRIx64 " opcode %u length %u state %u PSN %u..%u\n",
		       idx, wqe->wr_id, wqe->opcode, wqe->length, wqe->tx.state,
		       wqe->tx.first_psn, wqe->tx.last_psn);
	}
	printf("#   counters: %" PRIu64 " sent, %" PRIu64 " received, %" PRIu64 " retries, %"
	       PRIu64 " timeouts, %" PRIu64 " seq NAKs, %" PRIu64 " RNR NAKs in, %" PRIu64
	       " RNR NAKs out, %" PRIu64 " duplicates, %" PRIu64 " out of sequence, %" PRIu64
	       " implied NAKs\n", st->sent_pkts, st->rcvd_pkts, st->completer_retry_err,
	       st->local_ack_timeout_err, st->rcvd_seq_err, st->rcvd_rnr_err, st->send_rnr_err,
	       st->duplicate_request, st->out_of_seq_request, st->implied_nak_seq_err);
}

static void
soak_dump_pair(const struct soak *k, unsigned int i)
{
	const struct soak_pair *p = &k->p[i];

	printf("# pair %u (%s): %u send WRs posted, %u completed; %u receive WRs posted, %u "
	       "completed; next receive %u; dying %d (tear-down %d); SRQ %u of %u posted\n", i,
	       soak_kind_name[p->kind], p->posted, p->completed, p->rposted, p->rcompleted,
	       p->rx_next, p->dying, p->churn, k->srq != NULL ? soak_srq_posted(k) : 0,
	       SOAK_SRQ_SLOTS);
	soak_dump_qp("a", k->e.qp[0][i]);
	soak_dump_qp("b", k->e.qp[1][i]);
}

static int
soak_check_stuck(const struct soak *k, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < SOAK_PAIRS; i++) {
		const struct soak_pair *p = &k->p[i];

		if (p->completed == p->posted || now - p->progress_ms < SOAK_STUCK_MS)
			continue;
		printf("# pair %u (%s): WR %u without a completion for %" PRIu64 " ms; the longest "
		       "step of a pass: %s, %" PRIu64 " ms\n", i, soak_kind_name[p->kind],
		       p->completed, now - p->progress_ms, k->slowest_step, k->slowest_ms);
		soak_dump_pair(k, i);
		return -1;
	}
	return 0;
}

static unsigned int
soak_in_flight(const struct soak *k)
{
	unsigned int i, n = 0;

	for (i = 0; i < SOAK_PAIRS; i++)
		n += k->p[i].posted - k->p[i].completed + k->p[i].dying;
	return n;
}

static void
soak_sample(const struct soak *k, uint64_t secs)
{
	uint64_t ops = 0;
	unsigned int j;

	for (j = 0; j < SOAK_NB_KINDS; j++)
		ops += k->t.ops[j];
	printf("# %4" PRIu64 " s: %" PRIu64 " WRs done, %u mbufs in use, heap %" PRIu64 " bytes\n",
	       secs, ops, rte_mempool_in_use_count(roce_test_mbuf_pool()),
	       roce_test_scale_heap_bytes());
}

/*
 * Pair i may post its next WR: not being torn down, a window free, and for
 * UC not so far ahead of what side b has taken (the wire lags the posts)
 * that the WRITE slot of a message still arriving would be reused.
 */
static bool
soak_may_post(const struct soak_pair *p)
{
	return !p->dying && p->posted - p->completed < SOAK_WINDOW &&
	       (p->kind != SOAK_UC || p->posted - p->rx_next < SOAK_TX_SLOTS - SOAK_WINDOW);
}

/*
 * The step of a pass that took longest so far, for the failure report: a
 * stall of the whole process shows in the step that was running.
 */
static uint64_t
soak_step_end(struct soak *k, const char *step, uint64_t since)
{
	uint64_t now = roce_test_ms();

	if (now - since > k->slowest_ms || k->slowest_step == NULL) {
		k->slowest_ms = now - since;
		k->slowest_step = step;
	}
	return now;
}

/* One pass: post what the windows allow, take completions, tear down and rebuild. */
static int
soak_pass(struct soak *k)
{
	uint64_t t = roce_test_ms();
	unsigned int i;
	int ret = 0;

	for (i = 0; !k->stopping && i < SOAK_PAIRS; i++)
		while (soak_may_post(&k->p[i]))
			if (soak_post(k, i) != 0)
				return -1;
	t = soak_step_end(k, "posting", t);
	if (soak_reap(k) != 0)
		return -1;
	t = soak_step_end(k, "polling", t);
	for (i = soak_mix[SOAK_RC]; i < soak_mix[SOAK_RC] + soak_mix[SOAK_CHURN]; i++)
		if (k->p[i].dying && soak_churn_finish(k, i) != 0)
			return -1;
	t = soak_step_end(k, "destroying and making a churn pair", t);
	if (!k->stopping && k->completions >= k->churn_at) {
		k->churn_at = k->completions + SOAK_CHURN_WRS;
		ret = soak_churn_start(k);
		soak_step_end(k, "tearing down a churn pair", t);
	}
	return ret;
}

/* Traffic until the end, then until every WR in flight has completed. */
static int
soak_run(struct soak *k, unsigned int seconds)
{
	uint64_t t0 = roce_test_ms(), end = t0 + seconds * 1000ull, next = t0 + SOAK_SAMPLE_MS;
	uint64_t now = t0;

	while (now < end + SOAK_DRAIN_MS) {
		k->stopping = now >= end;
		if (k->stopping && soak_in_flight(k) == 0)
			return 0;
		if (soak_pass(k) != 0)
			return -1;
		now = roce_test_ms();
		if (now >= next) {
			soak_sample(k, (now - t0) / 1000);
			next += SOAK_SAMPLE_MS;
			if (soak_check_stuck(k, now) != 0)
				return -1;
		}
	}
	printf("# %u WRs still in flight after the drain\n", soak_in_flight(k));
	return -1;
}

/* The injectors' seed: ROCE_SOAK_SEED replays a run (printed at each case's start). */
static uint32_t
soak_seed_of_run(void)
{
	const char *env = getenv("ROCE_SOAK_SEED");

	return env != NULL ? (uint32_t)strtoul(env, NULL, 0) : SOAK_SEED;
}

static int
soak_faults_on(struct soak *k)
{
	uint32_t seed = soak_seed_of_run();
	struct rte_roce_fault_conf fc = { .drop = 0.01, .dup = 0.005, .reorder = 0.005, .corrupt = 0.002,
		.reorder_max_us = 1000, .roce_only = true,
	};
	uint16_t eth[2] = { roce_test_verbs_pair.a, roce_test_verbs_pair.b };
	unsigned int s;

	printf("# fault seed %" PRIu32 " (ROCE_SOAK_SEED)\n", seed);
	for (s = 0; s < 2; s++) {
		fc.seed = seed + s;
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
		if (k->fault[s] == NULL)
			continue;
		ROCE_TEST_ASSERT_EQ(rte_roce_fault_flush(k->fault[s]), 0, "flush");
		ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(k->fault[s], &st), 0, "fault stats");
		sum->dropped += st.dropped;
		sum->duplicated += st.duplicated;
		sum->reordered += st.reordered;
		sum->corrupted += st.corrupted;
		ROCE_TEST_ASSERT_EQ(rte_roce_fault_detach(k->fault[s]), 0, "detach");
		k->fault[s] = NULL;
	}
	return 0;
}

static unsigned int
soak_wire_frames(void)
{
	return rte_ring_count(roce_test_verbs_pair.ring[0]) +
	       rte_ring_count(roce_test_verbs_pair.ring[1]);
}

/*
 * Poll until nothing moves: every late duplicate taken, then the wires
 * empty. A worker may send at any time (an ARP refresh): the wires must be
 * seen empty once before the drain deadline, not at one given instant.
 */
static int
soak_quiesce(struct soak *k)
{
	uint64_t now = roce_test_ms(), quiet = now + ROCE_TEST_QUIET_MS * 10;
	uint64_t end = now + SOAK_DRAIN_MS;

	do {
		if (soak_reap(k) != 0)
			return -1;
		now = roce_test_ms();
	} while (now < quiet || (soak_wire_frames() != 0 && now < end));
	ROCE_TEST_ASSERT_EQ(soak_wire_frames(), 0, "frames on the wires");
	return 0;
}

/* Every QP to ERR: each receive WR still posted is flushed, once. */
static int
soak_flush_all(struct soak *k)
{
	uint64_t end = roce_test_ms() + SOAK_DRAIN_MS;
	unsigned int i, left;

	for (i = 0; i < SOAK_PAIRS; i++)
		if (soak_qp_to_err(k->e.qp[0][i]) != 0 || soak_qp_to_err(k->e.qp[1][i]) != 0)
			return -1;
	do {
		if (soak_reap(k) != 0)
			return -1;
		for (i = 0, left = 0; i < SOAK_PAIRS; i++)
			left += k->p[i].rposted - k->p[i].rcompleted;
	} while (left > 0 && roce_test_ms() < end);
	ROCE_TEST_ASSERT_EQ(left, 0, "receive WRs not flushed");
	return 0;
}

/* Side b's buffer, SRQ and AH, then every pair. */
static int
soak_open(struct soak *k, const struct rte_roce_dev_conf *conf_a)
{
	struct roce_test_conf *c = &k->conf;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = SOAK_SRQ_SLOTS, .max_sge = 1 } };
	unsigned int i, j, s, kind = 0;

	*c = roce_test_default_conf;
	c->dev_conf[0] = conf_a;
	c->timeout = SOAK_TIMEOUT;
	if (roce_test_env_open(&k->e, c, 0) != 0)
		return -1;
	k->e.nqps = SOAK_PAIRS;
	for (s = 0; s < 2; s++) {
		k->buf[s] = calloc(1, SOAK_BUF_BYTES);
		ROCE_TEST_ASSERT(k->buf[s] != NULL, "buffer");
		k->mr[s] = rte_roce_reg_mr(k->e.s[s].pd, k->buf[s], SOAK_BUF_BYTES,
					   ROCE_TEST_ALL_ACCESS);
		ROCE_TEST_ASSERT(k->mr[s] != NULL, "reg_mr: %s", rte_strerror(rte_errno));
	}
	k->srq = rte_roce_create_srq(k->e.s[1].pd, &sa);
	ROCE_TEST_ASSERT(k->srq != NULL, "create_srq: %s", rte_strerror(rte_errno));
	for (j = 0; j < SOAK_SRQ_SLOTS; j++)
		if (soak_post_srq(k, j) != 0)
			return -1;
	k->ah = roce_test_ah_create(&k->e.s[0], ROCE_TEST_ADDR_B);
	ROCE_TEST_ASSERT(k->ah != NULL, "AH");
	for (i = 0, j = 0; i < SOAK_PAIRS; i++, j++) {
		while (j == soak_mix[kind]) {
			kind++;
			j = 0;
		}
		k->p[i].kind = (enum soak_kind)kind;
		if (soak_pair_open(k, i) != 0)
			return -1;
	}
	return 0;
}

static int
soak_close(struct soak *k)
{
	unsigned int i, s;
	int ret = 0;

	/* The QPs before the SRQ, the AH and the MRs they use; the rest with the env. */
	for (i = 0; i < SOAK_PAIRS; i++) {
		for (s = 0; s < 2; s++) {
			if (k->e.qp[s][i] != NULL)
				ret |= rte_roce_destroy_qp(k->e.qp[s][i]);
			k->e.qp[s][i] = NULL;
		}
	}
	if (k->srq != NULL)
		ret |= rte_roce_destroy_srq(k->srq);
	if (k->ah != NULL)
		ret |= rte_roce_destroy_ah(k->ah);
	for (s = 0; s < 2; s++) {
		if (k->mr[s] != NULL)
			ret |= rte_roce_dereg_mr(k->mr[s]);
		free(k->buf[s]);
	}
	if (ret != 0)
		printf("# soak teardown: %d\n", ret);
	return roce_test_env_close(&k->e) | ret;
}

static void
soak_report(const struct soak *k, uint64_t ms, const struct rte_roce_fault_stats *fs)
{
	const struct rte_roce_stats *sa = &k->end.st[0], *sb = &k->end.st[1];
	unsigned int j;

	printf("# %u pairs, %.1f s, %" PRIu64 " MiB checked (%.1f MiB/s)\n", SOAK_PAIRS, ms / 1e3,
	       k->t.bytes >> 20, (double)k->t.bytes / (1 << 20) / (ms / 1e3));
	for (j = 0; j < SOAK_NB_KINDS; j++)
		printf("#   %-9s x%2u: %9" PRIu64 " send WRs in success, %9" PRIu64 " received\n",
		       soak_kind_name[j], soak_mix[j], k->t.ops[j], k->t.recvs[j]);
	printf("# churn: %" PRIu64 " requester ERR, %" PRIu64 " responder ERR, %" PRIu64
	       " destroyed idle, %" PRIu64 " spare QPs; %" PRIu64 " WRs flushed, %" PRIu64
	       " retries exhausted, %" PRIu64 " receive WRs destroyed; %" PRIu64
	       " UC messages again\n",
	       k->t.churns[SOAK_CHURN_REQ_ERR], k->t.churns[SOAK_CHURN_RESP_ERR],
	       k->t.churns[SOAK_CHURN_DESTROY], k->t.spares, k->t.flushed, k->t.retry_exc,
	       k->t.discarded, k->t.uc_again);
	printf("# faults: %" PRIu64 " dropped, %" PRIu64 " duplicated, %" PRIu64 " reordered, %"
	       PRIu64 " corrupted; requester: %" PRIu64 " retries, %" PRIu64 " timeouts, %" PRIu64
	       " sequence NAKs; responder: %" PRIu64 " duplicate requests, %" PRIu64
	       " messages without a receive WR\n", fs->dropped, fs->duplicated, fs->reordered,
	       fs->corrupted, sa->completer_retry_err, sa->local_ack_timeout_err,
	       sa->rcvd_seq_err, sb->duplicate_request, sb->out_of_buffer);
	printf("# mbufs in use %u at the start, %u at the end; heap %" PRIu64 " -> %" PRIu64
	       " bytes; the longest step of a pass: %s, %" PRIu64 " ms\n", k->start.mbufs,
	       k->end.mbufs, k->start.heap, k->end.heap, k->slowest_step, k->slowest_ms);
}

/* Counters against what the soak saw, memory back where it was. */
static int
soak_check_end(const struct soak *k, const struct rte_roce_fault_stats *fs)
{
	const struct rte_roce_stats *sa0 = &k->start.st[0], *sb0 = &k->start.st[1];
	const struct rte_roce_stats *sa = &k->end.st[0], *sb = &k->end.st[1];
	uint64_t recvs = 0;
	unsigned int j;

	for (j = 0; j < SOAK_NB_KINDS; j++) {
		recvs += k->t.recvs[j];
		ROCE_TEST_ASSERT(k->t.ops[j] > 0 && k->t.recvs[j] > 0, "%s pairs idle",
				 soak_kind_name[j]);
	}
	ROCE_TEST_ASSERT_EQ(k->t.recvs[SOAK_RC], k->t.sends_ok[SOAK_RC], "RC: a receive per SEND");
	ROCE_TEST_ASSERT_EQ(k->t.recvs[SOAK_SRQ], k->t.sends_ok[SOAK_SRQ],
			    "SRQ: a receive per SEND");
	ROCE_TEST_ASSERT(k->t.recvs[SOAK_UC] <= k->t.ops[SOAK_UC], "UC: no more than sent");
	ROCE_TEST_ASSERT_EQ(sa->rdma_sends - sa0->rdma_sends, k->t.sends_done, "rdma_sends");
	ROCE_TEST_ASSERT_EQ(sb->rdma_recvs - sb0->rdma_recvs, recvs, "rdma_recvs");
	ROCE_TEST_ASSERT_EQ(sa->retry_exceeded_err - sa0->retry_exceeded_err, k->t.retry_exc,
			    "retry_exceeded_err");
	ROCE_TEST_ASSERT(k->t.churns[SOAK_CHURN_DESTROY] > 0, "every tear-down ran");
	ROCE_TEST_ASSERT_EQ(k->end.mbufs, k->start.mbufs, "mbufs in use back at the start");
	ROCE_TEST_ASSERT_EQ(k->end.heap, k->start.heap, "heap flat");
	ROCE_TEST_ASSERT(fs->dropped > 0 && sa->completer_retry_err > 0 &&
			 sb->duplicate_request > 0, "the loss was real");
	return 0;
}

/* Both devices' counters. */
static int
soak_stats(struct soak *k, struct soak_mark *m)
{
	ROCE_TEST_ASSERT_EQ(rte_roce_stats_get(k->e.s[0].ctx, &m->st[0]), 0, "stats a");
	ROCE_TEST_ASSERT_EQ(rte_roce_stats_get(k->e.s[1].ctx, &m->st[1]), 0, "stats b");
	return 0;
}

static int
soak_case(const struct rte_roce_dev_conf *conf_a)
{
	const char *env_s = getenv("ROCE_SOAK_SECONDS");
	unsigned int seconds = env_s != NULL ? (unsigned int)atoi(env_s) : SOAK_DEFAULT_S;
	static struct soak k;
	struct rte_roce_fault_stats fs;
	uint64_t t0, ms;
	int ret;

	memset(&k, 0, sizeof(k));
	ret = soak_open(&k, conf_a);
	/* ARP answered before the faults (they touch RoCEv2 frames only anyway). */
	if (ret == 0)
		ret = soak_quiesce(&k);
	if (ret == 0)
		ret = soak_faults_on(&k);
	if (ret == 0)
		ret = soak_stats(&k, &k.start);
	k.start.mbufs = rte_mempool_in_use_count(roce_test_mbuf_pool());
	k.start.heap = roce_test_scale_heap_bytes();
	t0 = roce_test_ms();
	if (ret == 0)
		ret = soak_run(&k, seconds);
	ms = roce_test_ms() - t0;
	/* Before the injectors go: they are on the heap too. */
	k.end.heap = roce_test_scale_heap_bytes();
	ret |= soak_faults_off(&k, &fs);
	if (ret == 0)
		ret = soak_quiesce(&k);
	k.end.mbufs = rte_mempool_in_use_count(roce_test_mbuf_pool());
	k.stopping = true;
	if (ret == 0)
		ret = soak_flush_all(&k);
	if (ret == 0)
		ret = soak_stats(&k, &k.end);
	if (ret == 0) {
		soak_report(&k, ms, &fs);
		ret = soak_check_end(&k, &fs);
	}
	return soak_close(&k) | ret;
}

static int
test_soak_inline(void)
{
	return soak_case(NULL);
}

static int
test_soak_worker(void)
{
	return soak_case(&soak_worker_conf);
}

static const struct roce_test_case cases[] = {
	{ "soak_inline", test_soak_inline },
	{ "soak_worker", test_soak_worker },
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
