/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * RC under faults: two devices over a net_ring pair, one RC QP each, and
 * librte_roce_fault on both RX queues (drops of requests and of responses
 * and ACKs alike). A fixed workload of SEND, RDMA WRITE, RDMA READ,
 * compare-and-swap, fetch-and-add, ATOMIC_WRITE and FLUSH (IBA A19), 1 B to
 * 256 KiB, runs under 1 % and 5 % loss, reordering, duplication,
 * corruption and all of them at once, with fixed seeds. Every WR must
 * complete exactly once, in posting order, successfully, with the data
 * right byte for byte (atomics return the value that executing each
 * exactly once gives; the ATOMIC_WRITEs, all to one word, leave the last
 * one's value: a retried one executed again after a later one would not),
 * and the guard pages around every MR untouched. Targeted rules then drop the Nth packet of a
 * multi-packet WRITE and the ACK of a SEND, and recovery goes through
 * retransmission.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mempool.h>

#include <rte_roce.h>
#include <rte_roce_fault.h>
#include <rte_roce_verbs.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"

#define PAGE 4096
#define GUARD_BYTE 0xa5
#define AREA_LEN (4u << 20)	/* each data area; guard pages on both sides */
#define ATOMIC_LEN (MAX_WR * 8)	/* the responder's atomic words; the requester's results */
#define MAX_WR 64		/* WRs of one workload */
#define QP_DEPTH 128
#define CQ_DEPTH 256
#define SGE_MAX 1
#define PATH_MTU IBV_MTU_1024
#define START_PSN_A 0xfffff0	/* wraps within the first message */
#define START_PSN_B 0xffffe0
#define QP_TIMEOUT 10		/* 4.096 us * 2^10 = 4 ms */
#define QP_RETRY 7
#define QP_RNR_RETRY 7
#define QP_MIN_RNR 1		/* 0.01 ms */
#define RD_ATOMIC 8
#define RESOLVE_MS 500
#define SCENARIO_MS 10000	/* a scenario that has not finished by then fails */
#define FAA_WORD 0
#define CAS_WORD 1
#define ATOMIC_WRITE_WORD 2
#define FAA_ADD 3
#define SEED_A 0x1111
#define SEED_B 0x2222
#define WC_BURST 16
#define BLACKHOLE_WRS 8

/* Message sizes of the workload, cycled through; 9 entries against 10 opcodes. */
static const uint32_t sizes[] = { 1, 7, 64, 1000, 1024, 1025, 4096, 65536, 262144 };

static const enum ibv_wr_opcode ops[] = {
	IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ, IBV_WR_ATOMIC_FETCH_AND_ADD,
	IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
	IBV_WR_ATOMIC_WRITE, (enum ibv_wr_opcode)RTE_ROCE_WR_FLUSH,
};

/* Memory with an unregistered guard page on each side. */
struct guarded {
	uint8_t *base;		/* guard, data, guard */
	uint8_t *data;
	size_t len;
	struct ibv_mr *mr;
};

/* One side: port, device, objects, memory. */
struct side {
	struct rte_roce_port *port;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct rte_roce_fault *fault;
	union rte_roce_gid gid;
	int gid_index;
	/* A: send source, read destination, atomic results. B: receive, write, read source, atomics. */
	struct guarded src, dst, atom;
};

/* What the workload posted, to check the completions against. */
struct posted {
	enum ibv_wr_opcode op;
	uint32_t len;
	uint64_t a_off;		/* in A's src (SEND, WRITE) or dst (READ) */
	uint64_t b_off;		/* in B's dst (SEND slot, WRITE) or src (READ) */
	uint64_t expect;	/* atomics: the original value; ATOMIC_WRITE: the value */
};

static struct roce_test_pair pair;
static unsigned int baseline;
static struct side sa, sb;
static struct posted posted[MAX_WR];
static unsigned int nb_posted;

/* ---- Memory ---- */

/* Whole pages (aligned_alloc wants a multiple of the alignment); all but data is guard. */
static size_t
guarded_total(size_t len)
{
	return RTE_ALIGN_CEIL(len, PAGE) + 2 * PAGE;
}

static int
guarded_alloc(struct guarded *g, size_t len)
{
	g->len = len;
	g->base = aligned_alloc(PAGE, guarded_total(len));
	if (g->base == NULL)
		return -1;
	memset(g->base, GUARD_BYTE, guarded_total(len));
	g->data = g->base + PAGE;
	return 0;
}

static bool
guards_intact(const struct guarded *g)
{
	size_t i;

	for (i = 0; i < guarded_total(g->len); i++)
		if ((i < PAGE || i >= PAGE + g->len) && g->base[i] != GUARD_BYTE)
			return false;
	return true;
}

static void
guarded_free(struct guarded *g)
{
	if (g->mr != NULL)
		rte_roce_dereg_mr(g->mr);
	free(g->base);
	memset(g, 0, sizeof(*g));
}

static uint8_t
pattern(uint32_t wr, uint64_t i)
{
	return (uint8_t)(wr * 31 + i * 7 + (i >> 8));
}

/* ---- Set-up ---- */

static void
side_destroy(struct side *s)
{
	rte_roce_fault_detach(s->fault);
	if (s->qp != NULL)
		rte_roce_destroy_qp(s->qp);
	guarded_free(&s->src);
	guarded_free(&s->dst);
	guarded_free(&s->atom);
	if (s->cq != NULL)
		rte_roce_destroy_cq(s->cq);
	if (s->pd != NULL)
		rte_roce_dealloc_pd(s->pd);
	if (s->ctx != NULL)
		rte_roce_close_device(s->ctx);
	memset(s, 0, sizeof(*s));
}

static int
teardown(void)
{
	struct rte_roce_port *a = sa.port, *b = sb.port;

	side_destroy(&sa);
	side_destroy(&sb);
	return roce_test_pair_release(&pair, &a, &b, baseline);
}

static int
side_create(struct side *s, uint16_t eth, const char *addr, const char *ip)
{
	const char *const addrs[] = { addr, NULL };
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			   RTE_ROCE_ACCESS_FLUSH_GLOBAL;
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = {
			.max_send_wr = QP_DEPTH, .max_recv_wr = QP_DEPTH,
			.max_send_sge = SGE_MAX, .max_recv_sge = SGE_MAX,
		},
	};

	s->port = roce_test_port(eth, NULL, addrs);
	ROCE_TEST_ASSERT(s->port != NULL, "port");
	ROCE_TEST_ASSERT_EQ(rte_roce_gid_parse(ip, &s->gid), 0, "gid");
	s->gid_index = rte_roce_port_gid_find(s->port, &s->gid);
	ROCE_TEST_ASSERT(s->gid_index >= 0, "gid index");
	s->ctx = rte_roce_open_device(s->port, NULL);
	ROCE_TEST_ASSERT(s->ctx != NULL, "open: %s", rte_strerror(rte_errno));
	s->pd = rte_roce_alloc_pd(s->ctx);
	s->cq = rte_roce_create_cq(s->ctx, CQ_DEPTH, NULL, NULL, 0);
	ROCE_TEST_ASSERT(s->pd != NULL && s->cq != NULL, "pd, cq: %s", rte_strerror(rte_errno));
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = rte_roce_create_qp(s->pd, &init);
	ROCE_TEST_ASSERT(s->qp != NULL, "qp: %s", rte_strerror(rte_errno));
	ROCE_TEST_ASSERT(guarded_alloc(&s->src, AREA_LEN) == 0 &&
			 guarded_alloc(&s->dst, AREA_LEN) == 0 &&
			 guarded_alloc(&s->atom, ATOMIC_LEN) == 0, "memory");
	memset(s->atom.data, 0, s->atom.len);
	s->src.mr = rte_roce_reg_mr(s->pd, s->src.data, s->src.len, access);
	s->dst.mr = rte_roce_reg_mr(s->pd, s->dst.data, s->dst.len, access);
	s->atom.mr = rte_roce_reg_mr(s->pd, s->atom.data, s->atom.len, access);
	ROCE_TEST_ASSERT(s->src.mr != NULL && s->dst.mr != NULL && s->atom.mr != NULL,
			 "mr: %s", rte_strerror(rte_errno));
	return 0;
}

/* RESET -> INIT -> RTR -> RTS towards the peer (IBA 10.3.1 required attributes). */
static int
qp_connect(struct side *s, const struct side *peer, uint32_t sq_psn, uint32_t rq_psn)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC | RTE_ROCE_ACCESS_FLUSH_GLOBAL,
	};
	int rc;

	rc = rte_roce_modify_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS);
	ROCE_TEST_ASSERT_EQ(rc, 0, "INIT");
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = PATH_MTU;
	attr.dest_qp_num = peer->qp->qp_num;
	attr.rq_psn = rq_psn;
	attr.max_dest_rd_atomic = RD_ATOMIC;
	attr.min_rnr_timer = QP_MIN_RNR;
	attr.ah_attr.is_global = 1;
	attr.ah_attr.port_num = 1;
	attr.ah_attr.grh.sgid_index = (uint8_t)s->gid_index;
	attr.ah_attr.grh.hop_limit = RTE_ROCE_DEFAULT_TTL;
	memcpy(attr.ah_attr.grh.dgid.raw, peer->gid.raw, sizeof(attr.ah_attr.grh.dgid.raw));
	rc = rte_roce_modify_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER);
	ROCE_TEST_ASSERT_EQ(rc, 0, "RTR");
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = sq_psn;
	attr.timeout = QP_TIMEOUT;
	attr.retry_cnt = QP_RETRY;
	attr.rnr_retry = QP_RNR_RETRY;
	attr.max_rd_atomic = RD_ATOMIC;
	rc = rte_roce_modify_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	ROCE_TEST_ASSERT_EQ(rc, 0, "RTS");
	return 0;
}

/* Two connected QPs; faults (may be NULL) on A's and B's queues of direction dir. */
static int
setup(const struct rte_roce_fault_conf *fa, const struct rte_roce_fault_conf *fb,
      enum rte_roce_fault_dir dir)
{
	struct rte_ether_addr mac;

	teardown();
	baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	ROCE_TEST_ASSERT(side_create(&sa, pair.a, "198.18.0.1/24", "198.18.0.1") == 0, "A");
	ROCE_TEST_ASSERT(side_create(&sb, pair.b, "198.18.0.2/24", "198.18.0.2") == 0, "B");
	ROCE_TEST_ASSERT_EQ(roce_test_resolve(sa.port, sb.port, "198.18.0.2", &mac, RESOLVE_MS), 0,
			    "A->B");
	ROCE_TEST_ASSERT_EQ(roce_test_resolve(sb.port, sa.port, "198.18.0.1", &mac, RESOLVE_MS), 0,
			    "B->A");
	ROCE_TEST_ASSERT(qp_connect(&sa, &sb, START_PSN_A, START_PSN_B) == 0, "connect A");
	ROCE_TEST_ASSERT(qp_connect(&sb, &sa, START_PSN_B, START_PSN_A) == 0, "connect B");
	if (fa != NULL) {
		sa.fault = rte_roce_fault_attach(pair.a, 0, dir, fa);
		ROCE_TEST_ASSERT(sa.fault != NULL, "fault A: %s", rte_strerror(rte_errno));
	}
	if (fb != NULL) {
		sb.fault = rte_roce_fault_attach(pair.b, 0, dir, fb);
		ROCE_TEST_ASSERT(sb.fault != NULL, "fault B: %s", rte_strerror(rte_errno));
	}
	nb_posted = 0;
	return 0;
}

/* ---- Workload ---- */

static int
post_recv(uint64_t off, uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(sb.dst.data + off), .length = len, .lkey = sb.dst.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(sb.qp, &wr, &bad), 0, "post_recv");
	return 0;
}

/* Post one WR of the workload on A; B's memory layout is as disjoint as A's. */
static int
post_one(enum ibv_wr_opcode op, uint32_t len, uint64_t *a_off, uint64_t *b_off,
	 uint64_t *faa_sum, uint64_t *cas_val)
{
	struct posted *p = &posted[nb_posted];
	struct ibv_sge sge = { .lkey = sa.src.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = nb_posted, .sg_list = &sge, .num_sge = 1, .opcode = op,
	};
	struct ibv_send_wr *bad;
	uint64_t i;

	ROCE_TEST_ASSERT(nb_posted < MAX_WR, "workload too long");
	p->op = op;
	p->len = len;
	p->a_off = *a_off;
	p->b_off = *b_off;
	sge.length = len;
	switch ((int)op) {
	case IBV_WR_ATOMIC_WRITE:	/* a value of its own, to the one word of them all */
		p->len = len = sizeof(uint64_t);
		sge.length = len;
		p->expect = UINT64_C(0x0101010101010101) * (nb_posted + 1);
		memcpy(sa.src.data + p->a_off, &p->expect, len);
		sge.addr = (uintptr_t)(sa.src.data + p->a_off);
		wr.wr.rdma.remote_addr = (uintptr_t)sb.atom.data + ATOMIC_WRITE_WORD * len;
		wr.wr.rdma.rkey = sb.atom.mr->rkey;
		break;
	case RTE_ROCE_WR_FLUSH:	/* global visibility of what B received so far */
		p->len = len = 0;
		ROCE_TEST_ASSERT_EQ(rte_roce_wr_flush(&wr, sb.dst.mr->rkey, (uintptr_t)sb.dst.data,
						      (uint32_t)*b_off, RTE_ROCE_FLUSH_GLOBAL,
						      RTE_ROCE_FLUSH_RANGE), 0, "FLUSH");
		break;
	case IBV_WR_SEND:
	case IBV_WR_RDMA_WRITE:
		sge.addr = (uintptr_t)(sa.src.data + p->a_off);
		for (i = 0; i < len; i++)
			sa.src.data[p->a_off + i] = pattern(nb_posted, i);
		if (op == IBV_WR_SEND)
			ROCE_TEST_ASSERT(post_recv(p->b_off, len, nb_posted) == 0, "recv");
		wr.wr.rdma.remote_addr = (uintptr_t)(sb.dst.data + p->b_off);
		wr.wr.rdma.rkey = sb.dst.mr->rkey;
		break;
	case IBV_WR_RDMA_READ:
		sge.addr = (uintptr_t)(sa.dst.data + p->a_off);
		sge.lkey = sa.dst.mr->lkey;
		for (i = 0; i < len; i++)
			sb.src.data[p->b_off + i] = pattern(nb_posted, i);
		wr.wr.rdma.remote_addr = (uintptr_t)(sb.src.data + p->b_off);
		wr.wr.rdma.rkey = sb.src.mr->rkey;
		break;
	default:	/* atomics: 8 bytes into A's result slot of this WR */
		p->len = len = sizeof(uint64_t);
		sge.length = len;
		p->a_off = nb_posted * sizeof(uint64_t);
		sge.addr = (uintptr_t)(sa.atom.data + p->a_off);
		sge.lkey = sa.atom.mr->lkey;
		wr.wr.atomic.rkey = sb.atom.mr->rkey;
		if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr.wr.atomic.remote_addr = (uintptr_t)(sb.atom.data) + FAA_WORD * sizeof(uint64_t);
			wr.wr.atomic.compare_add = FAA_ADD;
			p->expect = *faa_sum;
			*faa_sum += FAA_ADD;
		} else {
			wr.wr.atomic.remote_addr = (uintptr_t)(sb.atom.data) + CAS_WORD * sizeof(uint64_t);
			wr.wr.atomic.compare_add = *cas_val;
			wr.wr.atomic.swap = *cas_val + 1;
			p->expect = (*cas_val)++;
		}
		break;
	}
	if (op != IBV_WR_ATOMIC_FETCH_AND_ADD && op != IBV_WR_ATOMIC_CMP_AND_SWP) {
		*a_off += RTE_ALIGN_CEIL(len, 8);
		*b_off += RTE_ALIGN_CEIL(len, 8);
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(sa.qp, &wr, &bad), 0, "post_send %u", nb_posted);
	nb_posted++;
	return 0;
}

/* Post nb WRs, cycling through ops and sizes from the given starts. */
static int
post_workload(unsigned int nb)
{
	uint64_t a_off = 0, b_off = 0, faa_sum = 0, cas_val = 0;
	unsigned int i;

	for (i = 0; i < nb; i++)
		ROCE_TEST_ASSERT(post_one(ops[i % RTE_DIM(ops)], sizes[i % RTE_DIM(sizes)],
					     &a_off, &b_off, &faa_sum, &cas_val) == 0, "wr %u", i);
	ROCE_TEST_ASSERT(a_off <= AREA_LEN && b_off <= AREA_LEN, "areas too small");
	return 0;
}

static enum ibv_wc_opcode
wc_opcode(enum ibv_wr_opcode op)
{
	switch ((int)op) {
	case IBV_WR_ATOMIC_WRITE:
		return IBV_WC_ATOMIC_WRITE;
	case RTE_ROCE_WR_FLUSH:
		return (enum ibv_wc_opcode)RTE_ROCE_WC_FLUSH;
	case IBV_WR_SEND:
		return IBV_WC_SEND;
	case IBV_WR_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	default:
		return IBV_WC_COMP_SWAP;
	}
}

/* Check one completion of A (send) or B (receive) against what was posted. */
static int
check_wc(const struct ibv_wc *wc, bool recv, uint64_t expected_id)
{
	const struct posted *p;

	ROCE_TEST_ASSERT_EQ(wc->status, IBV_WC_SUCCESS, "wr %" PRIu64 " status", wc->wr_id);
	ROCE_TEST_ASSERT_EQ(wc->wr_id, expected_id, "%s completion out of order",
			    recv ? "receive" : "send");
	p = &posted[wc->wr_id];
	if (recv) {
		ROCE_TEST_ASSERT_EQ(wc->opcode, IBV_WC_RECV, "recv opcode");
		ROCE_TEST_ASSERT_EQ(wc->byte_len, p->len, "recv byte_len");
	} else {
		ROCE_TEST_ASSERT_EQ(wc->opcode, wc_opcode(p->op), "opcode of wr %" PRIu64, wc->wr_id);
	}
	return 0;
}

/* The next wr_id a receive completion must carry: the next SEND posted after prev. */
static uint64_t
next_send(uint64_t prev)
{
	uint64_t i;

	for (i = prev; i < nb_posted; i++)
		if (posted[i].op == IBV_WR_SEND)
			return i;
	return UINT64_MAX;
}

/* Drive both devices until every WR and every receive completed once, or time out. */
static int
run_to_completion(void)
{
	uint64_t end = roce_test_ms() + SCENARIO_MS;
	uint64_t sends_done = 0, recv_next = next_send(0);
	struct ibv_wc wc[WC_BURST];
	int n, i;

	while (sends_done < nb_posted || recv_next != UINT64_MAX) {
		ROCE_TEST_ASSERT(roce_test_ms() < end, "timeout: %" PRIu64 " of %u done",
				 sends_done, nb_posted);
		ROCE_TEST_ASSERT(rte_roce_poll(sa.ctx) >= 0 && rte_roce_poll(sb.ctx) >= 0, "poll");
		n = rte_roce_poll_cq(sa.cq, WC_BURST, wc);
		ROCE_TEST_ASSERT(n >= 0, "poll_cq A: %d", n);
		for (i = 0; i < n; i++) {
			ROCE_TEST_ASSERT(check_wc(&wc[i], false, sends_done) == 0, "A");
			sends_done++;
		}
		n = rte_roce_poll_cq(sb.cq, WC_BURST, wc);
		ROCE_TEST_ASSERT(n >= 0, "poll_cq B: %d", n);
		for (i = 0; i < n; i++) {
			ROCE_TEST_ASSERT(recv_next != UINT64_MAX, "receive completion too many");
			ROCE_TEST_ASSERT(check_wc(&wc[i], true, recv_next) == 0, "B");
			recv_next = next_send(recv_next + 1);
		}
	}
	/* Duplicates still in flight must not add completions. */
	for (i = 0; i < 100; i++) {
		rte_roce_poll(sa.ctx);
		rte_roce_poll(sb.ctx);
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(sa.cq, WC_BURST, wc), 0, "extra send completion");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(sb.cq, WC_BURST, wc), 0, "extra recv completion");
	return 0;
}

/* Every byte where it belongs, every atomic executed once, no guard touched. */
static int
check_memory(void)
{
	uint64_t faa_final = 0, cas_final = 0, aw_final = 0, got;
	unsigned int w;
	uint64_t i;

	for (w = 0; w < nb_posted; w++) {
		const struct posted *p = &posted[w];

		switch (p->op) {
		case IBV_WR_SEND:
		case IBV_WR_RDMA_WRITE:
			for (i = 0; i < p->len; i++)
				ROCE_TEST_ASSERT_EQ(sb.dst.data[p->b_off + i], pattern(w, i),
						    "wr %u byte %" PRIu64, w, i);
			break;
		case IBV_WR_RDMA_READ:
			for (i = 0; i < p->len; i++)
				ROCE_TEST_ASSERT_EQ(sa.dst.data[p->a_off + i], pattern(w, i),
						    "wr %u byte %" PRIu64, w, i);
			break;
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
		case IBV_WR_ATOMIC_CMP_AND_SWP:
			memcpy(&got, sa.atom.data + p->a_off, sizeof(got));
			ROCE_TEST_ASSERT_EQ(got, p->expect, "atomic wr %u result", w);
			break;
		default:
			break;
		}
		if (p->op == IBV_WR_ATOMIC_FETCH_AND_ADD)
			faa_final = p->expect + FAA_ADD;
		if (p->op == IBV_WR_ATOMIC_CMP_AND_SWP)
			cas_final = p->expect + 1;
		if (p->op == IBV_WR_ATOMIC_WRITE)
			aw_final = p->expect;
	}
	memcpy(&got, sb.atom.data + FAA_WORD * sizeof(uint64_t), sizeof(got));
	ROCE_TEST_ASSERT_EQ(got, faa_final, "fetch-and-add executed once each");
	memcpy(&got, sb.atom.data + CAS_WORD * sizeof(uint64_t), sizeof(got));
	ROCE_TEST_ASSERT_EQ(got, cas_final, "compare-and-swap executed once each");
	memcpy(&got, sb.atom.data + ATOMIC_WRITE_WORD * sizeof(uint64_t), sizeof(got));
	ROCE_TEST_ASSERT_EQ(got, aw_final, "the last ATOMIC_WRITE's value");
	ROCE_TEST_ASSERT(guards_intact(&sa.src) && guards_intact(&sa.dst) &&
			 guards_intact(&sa.atom) && guards_intact(&sb.src) &&
			 guards_intact(&sb.dst) && guards_intact(&sb.atom), "guard page written");
	return 0;
}

/* ---- Scenarios ---- */

#define WORKLOAD 60	/* 6 WRs of each opcode; sizes (9) cycle against ops (10) */

static int
scenario(const struct rte_roce_fault_conf *conf, enum rte_roce_fault_dir dir)
{
	struct rte_roce_fault_conf fa = *conf, fb = *conf;
	struct rte_roce_fault_stats sta, stb;

	fa.seed = SEED_A;
	fb.seed = SEED_B;
	ROCE_TEST_ASSERT(setup(&fa, &fb, dir) == 0, "setup");
	ROCE_TEST_ASSERT(post_workload(WORKLOAD) == 0, "post");
	ROCE_TEST_ASSERT(run_to_completion() == 0, "run");
	ROCE_TEST_ASSERT(check_memory() == 0, "memory");
	rte_roce_fault_stats_get(sa.fault, &sta);
	rte_roce_fault_stats_get(sb.fault, &stb);
	printf("# faults: seen %" PRIu64 ", dropped %" PRIu64 ", duplicated %" PRIu64
	       ", corrupted %" PRIu64 ", delayed %" PRIu64 ", reordered %" PRIu64 "\n",
	       sta.seen + stb.seen, sta.dropped + stb.dropped, sta.duplicated + stb.duplicated,
	       sta.corrupted + stb.corrupted, sta.delayed + stb.delayed,
	       sta.reordered + stb.reordered);
	/* Each fault asked for happened. */
	ROCE_TEST_ASSERT((conf->drop == 0) == (sta.dropped + stb.dropped == 0), "drops");
	ROCE_TEST_ASSERT((conf->dup == 0) == (sta.duplicated + stb.duplicated == 0), "copies");
	ROCE_TEST_ASSERT((conf->corrupt == 0) == (sta.corrupted + stb.corrupted == 0), "corruption");
	ROCE_TEST_ASSERT((conf->delay == 0) == (sta.delayed + stb.delayed == 0), "delays");
	ROCE_TEST_ASSERT((conf->reorder == 0) == (sta.reordered + stb.reordered == 0), "reordering");
	return teardown();
}

static int
test_no_fault(void)
{
	const struct rte_roce_fault_conf conf = { .roce_only = true };

	return scenario(&conf, RTE_ROCE_FAULT_RX);
}

static int
test_loss_1(void)
{
	const struct rte_roce_fault_conf conf = { .drop = 0.01, .roce_only = true };

	return scenario(&conf, RTE_ROCE_FAULT_RX);
}

static int
test_loss_5(void)
{
	const struct rte_roce_fault_conf conf = { .drop = 0.05, .roce_only = true };

	return scenario(&conf, RTE_ROCE_FAULT_RX);
}

static int
test_reorder(void)
{
	const struct rte_roce_fault_conf conf = {
		.reorder = 0.05, .reorder_depth = 3, .reorder_max_us = 200, .roce_only = true,
	};

	return scenario(&conf, RTE_ROCE_FAULT_RX);
}

static int
test_delay(void)
{
	const struct rte_roce_fault_conf conf = { .delay = 0.05, .delay_us = 300, .roce_only = true };

	return scenario(&conf, RTE_ROCE_FAULT_RX);
}

static int
test_dup(void)
{
	const struct rte_roce_fault_conf conf = { .dup = 0.05, .roce_only = true };

	return scenario(&conf, RTE_ROCE_FAULT_RX);
}

static int
test_corrupt(void)
{
	const struct rte_roce_fault_conf conf = {
		.corrupt = 0.02, .corrupt_region = RTE_ROCE_FAULT_REGION_ROCE, .roce_only = true,
	};

	return scenario(&conf, RTE_ROCE_FAULT_RX);
}

/* Corrupted as sent (TX callbacks): requests from A, responses and ACKs from B. */
static int
test_corrupt_tx(void)
{
	const struct rte_roce_fault_conf conf = {
		.corrupt = 0.02, .corrupt_region = RTE_ROCE_FAULT_REGION_ROCE, .roce_only = true,
	};

	return scenario(&conf, RTE_ROCE_FAULT_TX);
}

static int
test_mix(void)
{
	const struct rte_roce_fault_conf conf = {
		.drop = 0.01, .dup = 0.01, .corrupt = 0.01, .delay = 0.01, .reorder = 0.01,
		.delay_us = 300, .reorder_depth = 2, .reorder_max_us = 200, .roce_only = true,
	};

	return scenario(&conf, RTE_ROCE_FAULT_RX);
}

/* ---- Targeted rules ---- */

/* A rule that drops the nth received frame of opcode, once. */
static struct rte_roce_fault_rule
drop_nth(uint16_t opcode, uint32_t nth)
{
	return (struct rte_roce_fault_rule){
		.dir = RTE_ROCE_FAULT_RX, .action = RTE_ROCE_FAULT_DROP,
		.opcode = opcode, .nth = nth, .count = 1,
	};
}

/* Drop the 5th WRITE_MIDDLE of a 64 KiB WRITE at B: go-back-N from there. */
static int
test_rule_write_middle(void)
{
	const struct rte_roce_fault_conf none = { .roce_only = true };
	const struct rte_roce_fault_rule rule = drop_nth(RTE_ROCE_OP_RC_RDMA_WRITE_MIDDLE, 5);
	uint64_t a_off = 0, b_off = 0, faa = 0, cas = 0;

	ROCE_TEST_ASSERT(setup(&none, &none, RTE_ROCE_FAULT_RX) == 0, "setup");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(sb.fault, &rule), 0, "rule");
	ROCE_TEST_ASSERT(post_one(IBV_WR_RDMA_WRITE, 65536, &a_off, &b_off, &faa, &cas) == 0, "W");
	ROCE_TEST_ASSERT(run_to_completion() == 0, "run");
	ROCE_TEST_ASSERT(check_memory() == 0, "memory");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_fired(sb.fault, RTE_ROCE_FAULT_RX, 0), 1, "fired");
	return teardown();
}

/*
 * Everything to B lost: the oldest WR fails with IBV_WC_RETRY_EXC_ERR after
 * retry_cnt retransmissions, every later one with IBV_WC_WR_FLUSH_ERR, each
 * exactly once and in order; A's QP is in ERR and B's memory untouched.
 */
static int
test_blackhole(void)
{
	const struct rte_roce_fault_conf all = { .drop = 1.0, .roce_only = true };
	const struct rte_roce_fault_conf none = { .roce_only = true };
	uint64_t end, done = 0;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_wc wc[WC_BURST];
	size_t i;
	int n, k;

	ROCE_TEST_ASSERT(setup(&none, &all, RTE_ROCE_FAULT_RX) == 0, "setup");
	ROCE_TEST_ASSERT(post_workload(BLACKHOLE_WRS) == 0, "post");
	end = roce_test_ms() + SCENARIO_MS;
	while (done < nb_posted) {
		ROCE_TEST_ASSERT(roce_test_ms() < end, "timeout: %" PRIu64 " done", done);
		rte_roce_poll(sa.ctx);
		rte_roce_poll(sb.ctx);
		n = rte_roce_poll_cq(sa.cq, WC_BURST, wc);
		ROCE_TEST_ASSERT(n >= 0, "poll_cq: %d", n);
		for (k = 0; k < n; k++, done++) {
			ROCE_TEST_ASSERT_EQ(wc[k].wr_id, done, "order");
			ROCE_TEST_ASSERT_EQ(wc[k].status, done == 0 ? IBV_WC_RETRY_EXC_ERR :
					    IBV_WC_WR_FLUSH_ERR, "status of wr %" PRIu64, done);
		}
	}
	for (k = 0; k < 100; k++)
		rte_roce_poll(sa.ctx);
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(sa.cq, WC_BURST, wc), 0, "extra completion");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(sa.qp, &attr, 0, &init), 0, "query");
	ROCE_TEST_ASSERT_EQ(attr.qp_state, IBV_QPS_ERR, "A's QP state");
	for (i = 0; i < sb.dst.len; i++)
		ROCE_TEST_ASSERT_EQ(sb.dst.data[i], GUARD_BYTE, "B's memory written at %zu", i);
	ROCE_TEST_ASSERT(guards_intact(&sb.atom) && sb.atom.data[0] == 0, "B's atomics");
	return teardown();
}

/* Drop the first ACK A receives: the SEND is retransmitted, B acks the duplicate. */
static int
test_rule_send_ack(void)
{
	const struct rte_roce_fault_conf none = { .roce_only = true };
	const struct rte_roce_fault_rule rule = drop_nth(RTE_ROCE_OP_RC_ACKNOWLEDGE, 1);
	uint64_t a_off = 0, b_off = 0, faa = 0, cas = 0;
	struct rte_roce_fault_stats s;

	ROCE_TEST_ASSERT(setup(&none, &none, RTE_ROCE_FAULT_RX) == 0, "setup");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(sa.fault, &rule), 0, "rule");
	ROCE_TEST_ASSERT(post_one(IBV_WR_SEND, 100, &a_off, &b_off, &faa, &cas) == 0, "S");
	ROCE_TEST_ASSERT(run_to_completion() == 0, "run");
	ROCE_TEST_ASSERT(check_memory() == 0, "memory");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_fired(sa.fault, RTE_ROCE_FAULT_RX, 0), 1, "fired");
	/* B saw the SEND twice: the original and the retransmission. */
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(sb.fault, &s), 0, "stats");
	ROCE_TEST_ASSERT(s.roce >= 2, "retransmitted: B saw %" PRIu64, s.roce);
	return teardown();
}

/*
 * ATOMIC_WRITE and FLUSH (IBA A19) under targeted loss: B loses the first
 * ATOMIC_WRITE and the second FLUSH it sees, A the second zero-length READ
 * response (how B answers both). A retransmits; B answers what it already
 * executed from its responder resources without executing it again (the
 * ATOMIC_WRITE word keeps the last value), every WR completes once.
 */
static int
test_rule_a19(void)
{
	const struct rte_roce_fault_conf none = { .roce_only = true };
	const struct rte_roce_fault_rule lose_aw = drop_nth(RTE_ROCE_OP_RC_ATOMIC_WRITE, 1);
	const struct rte_roce_fault_rule lose_flush = drop_nth(RTE_ROCE_OP_RC_FLUSH, 2);
	const struct rte_roce_fault_rule lose_answer =
		drop_nth(RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, 2);
	static const enum ibv_wr_opcode wrs[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_ATOMIC_WRITE, IBV_WR_ATOMIC_WRITE,
		(enum ibv_wr_opcode)RTE_ROCE_WR_FLUSH, IBV_WR_ATOMIC_WRITE,
	};
	uint64_t a_off = 0, b_off = 0, faa = 0, cas = 0;
	struct rte_roce_stats st;
	unsigned int i;

	ROCE_TEST_ASSERT(setup(&none, &none, RTE_ROCE_FAULT_RX) == 0, "setup");
	ROCE_TEST_ASSERT(rte_roce_fault_rule_add(sb.fault, &lose_aw) == 0 &&
			 rte_roce_fault_rule_add(sb.fault, &lose_flush) == 0 &&
			 rte_roce_fault_rule_add(sa.fault, &lose_answer) == 0, "rules");
	for (i = 0; i < RTE_DIM(wrs); i++)
		ROCE_TEST_ASSERT(post_one(wrs[i], 64, &a_off, &b_off, &faa, &cas) == 0, "wr %u", i);
	ROCE_TEST_ASSERT(run_to_completion() == 0, "run");
	ROCE_TEST_ASSERT(check_memory() == 0, "memory");
	ROCE_TEST_ASSERT(rte_roce_fault_rule_fired(sb.fault, RTE_ROCE_FAULT_RX, 0) == 1 &&
			 rte_roce_fault_rule_fired(sb.fault, RTE_ROCE_FAULT_RX, 1) == 1 &&
			 rte_roce_fault_rule_fired(sa.fault, RTE_ROCE_FAULT_RX, 0) == 1, "fired");
	ROCE_TEST_ASSERT_EQ(rte_roce_qp_stats_get(sb.qp, &st), 0, "B's stats");
	printf("# B: %" PRIu64 " duplicate requests answered\n", st.duplicate_request);
	ROCE_TEST_ASSERT(st.duplicate_request >= 1, "no duplicate reached B");
	return teardown();
}

static const struct roce_test_case cases[] = {
	{ "no_fault", test_no_fault },
	{ "loss_1pct", test_loss_1 },
	{ "loss_5pct", test_loss_5 },
	{ "reorder", test_reorder },
	{ "delay", test_delay },
	{ "duplicate", test_dup },
	{ "corrupt", test_corrupt },
	{ "corrupt_tx", test_corrupt_tx },
	{ "mix", test_mix },
	{ "rule_drop_write_middle", test_rule_write_middle },
	{ "rule_drop_send_ack", test_rule_send_ack },
	{ "rule_drop_atomic_write_flush_and_answer", test_rule_a19 },
	{ "blackhole_retry_exceeded_then_flush", test_blackhole },
};

int
main(int argc, char **argv)
{
	int rc;

	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&pair, "loss") != 0)
		return 1;
	rc = roce_test_run(cases, RTE_DIM(cases));
	teardown();
	return rc;
}
