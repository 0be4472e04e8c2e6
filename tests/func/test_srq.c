/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Shared receive queues end to end: two librte_roce devices in one process
 * over a net_ring pair. Device a has ordinary RC QPs; on device b their
 * peers take receive WQEs from one SRQ. Traffic on every QP with the data
 * checked byte for byte and each completion's qp_num; messages of two QPs
 * interleaved packet by packet; the SRQ empty (RNR NAK, then recovery);
 * the limit event (once, re-armed only by modify); a QP on the SRQ moved to
 * ERR (SRQ WQEs untouched, the one it held flushed, last WQE reached); and
 * every API error.
 */

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <rte_roce.h>

/* The engine's counters, the SRQ ring and the asynchronous event queue. */
#include "roce_dev.h"
#include "roce_srq.h"

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#define MAX_QPS		ROCE_TEST_MAX_QPS
#define QUIET_MS	ROCE_TEST_QUIET_MS
#define SQ_DEPTH	64
#define SRQ_DEPTH	1024
#define SRQ_SGE		2
#define SLOT		4096		/* bytes per message in both buffers */
#define HDR_LEN		4		/* message header: QP index << 16 | sequence */
#define RING_A_TO_B	1		/* the pair's ring that carries a's frames to b */
#define BURST		64
#define MTU_BYTES	1024
#define UD_QKEY		0x11111111u	/* ibv_ud_pingpong's */

/* t.qp[0][i] on a is connected to t.qp[1][i] on b, which takes its receives from srq. */
struct env {
	struct roce_test_env t;
	struct ibv_srq *srq;
	struct ibv_ah *ah;	/* a -> b, for UD QPs */
};

static void
pump(struct env *e)
{
	roce_test_pump_env(&e->t);
}

static struct roce_dev *
dev_b(struct env *e)
{
	return roce_dev_of(e->t.s[1].ctx);
}

static int
wait_wc(struct env *e, struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	return roce_test_wait_wc(&e->t, cq, wc, n);
}

static int
qp_create(struct roce_test_side *s, struct ibv_srq *srq, enum ibv_qp_type type,
	  struct ibv_qp **qp)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = s->scq,
		.recv_cq = s->rcq,
		.srq = srq,
		.cap = { .max_send_wr = SQ_DEPTH, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = type,
	};

	*qp = rte_roce_create_qp(s->pd, &ia);
	ROCE_TEST_ASSERT(*qp != NULL, "create_qp");
	if (srq != NULL)
		ROCE_TEST_ASSERT(ia.cap.max_recv_wr == 0 && ia.cap.max_recv_sge == 0,
				 "receive caps on an SRQ: %u WRs, %u SGEs granted",
				 ia.cap.max_recv_wr, ia.cap.max_recv_sge);
	return 0;
}

static struct ibv_srq *
srq_create(struct roce_test_side *s, uint32_t max_wr)
{
	struct ibv_srq_init_attr ia = {
		.attr = { .max_wr = max_wr, .max_sge = SRQ_SGE, .srq_limit = 1 },
	};

	return rte_roce_create_srq(s->pd, &ia);
}

/* Connect QP pair i: RC and UC to each other, UD to RTS with an AH from a to b. */
static int
pair_ready(struct env *e, unsigned int i)
{
	const struct roce_test_conf *c = &roce_test_default_conf;
	struct ibv_qp *qa = e->t.qp[0][i], *qb = e->t.qp[1][i];

	if (qa->qp_type == IBV_QPT_UD) {
		if (e->ah == NULL)
			e->ah = roce_test_ah_create(&e->t.s[0], ROCE_TEST_ADDR_B);
		ROCE_TEST_ASSERT(e->ah != NULL, "AH");
		return roce_test_ud_qp_ready(qa, UD_QKEY) | roce_test_ud_qp_ready(qb, UD_QKEY);
	}
	if (roce_test_qp_connect(qa, &e->t.s[0], &e->t.s[1], qb->qp_num, c->psn_ab, c->psn_ba,
				 c) != 0)
		return -1;
	return roce_test_qp_connect(qb, &e->t.s[1], &e->t.s[0], qa->qp_num, c->psn_ba, c->psn_ab,
				    c);
}

/*
 * Both devices, an SRQ of srq_depth on b and nqps QP pairs ready, of the
 * types types[] (NULL: all RC).
 */
static int
env_open_types(struct env *e, const enum ibv_qp_type *types, unsigned int nqps,
	       uint32_t srq_depth)
{
	enum ibv_qp_type type;
	unsigned int i;
	uint64_t end;

	memset(e, 0, sizeof(*e));
	e->t.baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	e->t.nqps = nqps;
	if (roce_test_side_open(&e->t.s[0], roce_test_verbs_pair.a, ROCE_TEST_ADDR_A, false) != 0 ||
	    roce_test_side_open(&e->t.s[1], roce_test_verbs_pair.b, ROCE_TEST_ADDR_B, true) != 0)
		return -1;
	e->srq = srq_create(&e->t.s[1], srq_depth);
	ROCE_TEST_ASSERT(e->srq != NULL, "create_srq");
	for (i = 0; i < nqps; i++) {
		type = types != NULL ? types[i] : IBV_QPT_RC;
		if (qp_create(&e->t.s[0], NULL, type, &e->t.qp[0][i]) != 0 ||
		    qp_create(&e->t.s[1], e->srq, type, &e->t.qp[1][i]) != 0)
			return -1;
	}
	for (i = 0; i < nqps; i++)
		if (pair_ready(e, i) != 0)
			return -1;
	/* Let ARP settle, so that the rings then carry RoCE frames only. */
	end = roce_test_ms() + QUIET_MS;
	while (roce_test_ms() < end)
		pump(e);
	return 0;
}

static int
env_open(struct env *e, unsigned int nqps, uint32_t srq_depth)
{
	return env_open_types(e, NULL, nqps, srq_depth);
}

static int
env_close(struct env *e)
{
	int ret = 0;

	if (e->ah != NULL)
		ret = rte_roce_destroy_ah(e->ah) == 0 ? 0 : -1;
	return roce_test_env_close(&e->t) | ret;
}

/* Destroy b's QPs and the SRQ so that env_close() can close b. */
static int
env_drop_srq(struct env *e)
{
	unsigned int i;

	for (i = 0; i < e->t.nqps; i++) {
		if (e->t.qp[1][i] != NULL)
			ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(e->t.qp[1][i]), 0, "destroy qp");
		e->t.qp[1][i] = NULL;
	}
	if (e->srq != NULL)
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_srq(e->srq), 0, "destroy srq");
	e->srq = NULL;
	return 0;
}

static int
teardown(struct env *e, int ret)
{
	ret |= env_drop_srq(e);
	return env_close(e) | ret;
}

/* Post count WQEs of len bytes to the SRQ: wr_id first.., slot first.. of b's buffer. */
static int
srq_post(struct env *e, uint64_t first, unsigned int count, uint32_t len)
{
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	unsigned int i;

	for (i = 0; i < count; i++) {
		sge = (struct ibv_sge){
			.addr = (uintptr_t)(e->t.s[1].buf + (first + i) * SLOT),
			.length = len,
			.lkey = e->t.s[1].mr->lkey,
		};
		wr.wr_id = first + i;
		ROCE_TEST_ASSERT_EQ(rte_roce_post_srq_recv(e->srq, &wr, &bad), 0, "post_srq_recv");
	}
	return 0;
}

/* Byte i of message seq of QP qi (after its header). */
static uint8_t
pattern(unsigned int qi, unsigned int seq, uint32_t i)
{
	return (uint8_t)(qi * 31 + seq * 7 + i + (i >> 8));
}

/* Post message seq on a's QP qi from slot slot of a's buffer: header then pattern. */
static int
send_msg(struct env *e, unsigned int qi, unsigned int seq, unsigned int slot, uint32_t len)
{
	uint8_t *p = e->t.s[0].buf + (size_t)slot * SLOT;
	uint32_t hdr = qi << 16 | seq;
	struct ibv_sge sge = { .addr = (uintptr_t)p, .length = len, .lkey = e->t.s[0].mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = seq,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	uint32_t i;

	if (e->t.qp[0][qi]->qp_type == IBV_QPT_UD) {
		wr.wr.ud.ah = e->ah;
		wr.wr.ud.remote_qpn = e->t.qp[1][qi]->qp_num;
		wr.wr.ud.remote_qkey = UD_QKEY;
	}
	memcpy(p, &hdr, HDR_LEN);
	for (i = HDR_LEN; i < len; i++)
		p[i] = pattern(qi, seq, i);
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(e->t.qp[0][qi], &wr, &bad), 0, "post_send");
	return 0;
}

/* A receive completion: from the SRQ slot it names, the message of the QP it names, whole. */
static int
check_recv(struct env *e, const struct ibv_wc *wc, uint32_t len, unsigned int *next_seq)
{
	const uint8_t *p = e->t.s[1].buf + wc->wr_id * SLOT;
	unsigned int qi, seq;
	uint32_t hdr, i, grh = 0;

	ROCE_TEST_ASSERT_EQ(wc->status, IBV_WC_SUCCESS, "status");
	ROCE_TEST_ASSERT_EQ(wc->opcode, IBV_WC_RECV, "opcode");
	for (qi = 0; qi < e->t.nqps && e->t.qp[1][qi]->qp_num != wc->qp_num; qi++)
		;
	ROCE_TEST_ASSERT(qi < e->t.nqps, "qp_num 0x%x is none of b's QPs", wc->qp_num);
	/* UD: the 40-byte GRH comes first (doc/wire-format.md §9.2). */
	if (e->t.qp[1][qi]->qp_type == IBV_QPT_UD) {
		ROCE_TEST_ASSERT(wc->wc_flags & IBV_WC_GRH, "UD without IBV_WC_GRH");
		grh = RTE_ROCE_GRH_LEN;
	}
	ROCE_TEST_ASSERT_EQ(wc->byte_len, grh + len, "byte_len");
	p += grh;
	memcpy(&hdr, p, HDR_LEN);
	seq = hdr & 0xffff;
	ROCE_TEST_ASSERT_EQ(hdr >> 16, qi, "message of QP %u completed on QP %u", hdr >> 16, qi);
	ROCE_TEST_ASSERT_EQ(wc->src_qp, e->t.qp[0][qi]->qp_num, "src_qp");
	/* One QP's messages take SRQ WQEs in its own order. */
	ROCE_TEST_ASSERT_EQ(seq, next_seq[qi], "QP %u: message order", qi);
	next_seq[qi]++;
	for (i = HDR_LEN; i < len; i++)
		ROCE_TEST_ASSERT_EQ(p[i], pattern(qi, seq, i), "QP %u message %u byte %u", qi, seq,
				    i);
	return 0;
}

/* nqps QPs share one SRQ; each sends per_qp messages of len bytes, all in flight at once. */
static int
shared_traffic(unsigned int nqps, unsigned int per_qp, uint32_t len)
{
	unsigned int next_seq[MAX_QPS] = { 0 };
	unsigned int total = nqps * per_qp;
	struct ibv_wc wc[BURST];
	unsigned int qi, seq, got = 0, sent = 0;
	struct env e;
	int ret, n, i;

	ret = env_open(&e, nqps, SRQ_DEPTH);
	if (ret == 0)
		ret = srq_post(&e, 0, total, SLOT);
	for (seq = 0; ret == 0 && seq < per_qp; seq++)
		for (qi = 0; ret == 0 && qi < nqps; qi++)
			ret = send_msg(&e, qi, seq, seq * nqps + qi, len);
	while (ret == 0 && got < total) {
		n = wait_wc(&e, e.t.s[1].rcq, wc, RTE_MIN(total - got, (unsigned int)BURST));
		if (n <= 0) {
			printf("#   %u of %u receive completions\n", got, total);
			ret = -1;
		}
		for (i = 0; ret == 0 && i < n; i++)
			ret = check_recv(&e, &wc[i], len, next_seq);
		got += RTE_MAX(n, 0);
	}
	while (ret == 0 && sent < total) {
		n = wait_wc(&e, e.t.s[0].scq, wc, RTE_MIN(total - sent, (unsigned int)BURST));
		if (n <= 0) {
			printf("#   %u of %u send completions\n", sent, total);
			ret = -1;
		}
		for (i = 0; ret == 0 && i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				ret = -1;
		sent += RTE_MAX(n, 0);
	}
	for (qi = 0; ret == 0 && qi < nqps; qi++)
		if (next_seq[qi] != per_qp)
			ret = -1;
	return teardown(&e, ret);
}

static int
test_shared_by_4(void)
{
	/* Three packets each at MTU 1024. */
	return shared_traffic(4, 32, 3000);
}

static int
test_shared_by_64(void)
{
	return shared_traffic(64, 8, 2000);
}

/*
 * RC, UC and UD QPs (two of each) on one SRQ, all sending at once: each
 * completion on the QP the message came to, UD ones with the GRH first.
 */
static int
test_shared_by_rc_uc_ud(void)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_UD, IBV_QPT_UC, IBV_QPT_RC,
	};
	const unsigned int nqps = RTE_DIM(types), per_qp = 4;
	const uint32_t len = MTU_BYTES - RTE_ROCE_GRH_LEN;	/* one packet, UD included */
	unsigned int next_seq[MAX_QPS] = { 0 };
	struct ibv_wc wc[BURST];
	unsigned int qi, seq;
	struct env e;
	int ret, n, i;

	ret = env_open_types(&e, types, nqps, SRQ_DEPTH);
	if (ret == 0)
		ret = srq_post(&e, 0, nqps * per_qp, SLOT);
	for (seq = 0; ret == 0 && seq < per_qp; seq++)
		for (qi = 0; ret == 0 && qi < nqps; qi++)
			ret = send_msg(&e, qi, seq, seq * nqps + qi, len);
	if (ret == 0) {
		n = wait_wc(&e, e.t.s[1].rcq, wc, nqps * per_qp);
		ROCE_TEST_ASSERT_EQ(n, (int)(nqps * per_qp), "receive completions");
		for (i = 0; ret == 0 && i < n; i++)
			ret = check_recv(&e, &wc[i], len, next_seq);
		n = wait_wc(&e, e.t.s[0].scq, wc, nqps * per_qp);
		ROCE_TEST_ASSERT_EQ(n, (int)(nqps * per_qp), "send completions");
	}
	return teardown(&e, ret);
}

/* Take the frames of a ring, put them back in the order of idx[]; the others are freed. */
static int
reorder_frames(unsigned int r, const unsigned int *idx, unsigned int n_idx, unsigned int expect)
{
	struct rte_mbuf *m[BURST];
	unsigned int n, i;

	n = rte_ring_dequeue_burst(roce_test_verbs_pair.ring[r], (void **)m, RTE_DIM(m), NULL);
	ROCE_TEST_ASSERT_EQ(n, expect, "frames in ring %u", r);
	for (i = 0; i < n_idx; i++)
		ROCE_TEST_ASSERT_EQ(rte_ring_enqueue(roce_test_verbs_pair.ring[r], m[idx[i]]), 0,
				    "requeue");
	for (i = 0; i < n; i++) {
		unsigned int j;
		bool kept = false;

		for (j = 0; j < n_idx; j++)
			kept |= idx[j] == i;
		if (!kept)
			rte_pktmbuf_free(m[i]);
	}
	return 0;
}

/*
 * Two QPs' three-packet SENDs arrive interleaved, FIRST1 FIRST2 MIDDLE1
 * MIDDLE2 LAST1 LAST2: each QP holds the WQE it took at its FIRST, so both
 * messages land whole in their own WQE.
 */
static int
test_interleaved_messages(void)
{
	static const unsigned int order[] = { 0, 3, 1, 4, 2, 5 };
	const uint32_t len = 2 * MTU_BYTES + 500;
	unsigned int next_seq[MAX_QPS] = { 0 };
	struct ibv_wc wc[2];
	struct env e;
	int ret, i;

	ret = env_open(&e, 2, SRQ_DEPTH);
	if (ret == 0)
		ret = srq_post(&e, 0, 2, SLOT) | send_msg(&e, 0, 0, 0, len) |
		      roce_test_frames_to_b(&e.t, 3) |
		      send_msg(&e, 1, 0, 1, len) | roce_test_frames_to_b(&e.t, 6) |
		      reorder_frames(RING_A_TO_B, order, RTE_DIM(order), 6);
	if (ret == 0) {
		ret = wait_wc(&e, e.t.s[1].rcq, wc, 2) == 2 ? 0 : -1;
		for (i = 0; ret == 0 && i < 2; i++)
			ret = check_recv(&e, &wc[i], len, next_seq);
		/* QP 0's FIRST came first: it took WQE 0. */
		ROCE_TEST_ASSERT(ret != 0 || wc[0].wr_id + wc[1].wr_id == 1, "wr_ids");
		ret |= wait_wc(&e, e.t.s[0].scq, wc, 2) == 2 ? 0 : -1;
	}
	return teardown(&e, ret);
}

/* The SRQ is empty: the responder sends RNR NAKs; a WQE posted later gets the message. */
static int
test_empty_rnr_then_recovery(void)
{
	unsigned int next_seq[MAX_QPS] = { 0 };
	uint64_t end, naks;
	struct ibv_wc wc;
	struct env e;
	int ret;

	ret = env_open(&e, 1, SRQ_DEPTH);
	if (ret == 0)
		ret = send_msg(&e, 0, 0, 0, 1500);
	if (ret == 0) {
		end = roce_test_ms() + QUIET_MS;
		while (roce_test_ms() < end)
			pump(&e);
		naks = dev_b(&e)->lanes[0].xstats.qp.send_rnr_err;
		ROCE_TEST_ASSERT(naks > 0, "no RNR NAK from an empty SRQ");
		ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(e.t.s[1].rcq, 1, &wc), 0,
				    "receive completion");
		ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(e.t.s[0].scq, 1, &wc), 0, "send completion");
		ret = srq_post(&e, 0, 1, SLOT);
	}
	if (ret == 0) {
		ret = wait_wc(&e, e.t.s[1].rcq, &wc, 1) == 1 ? 0 : -1;
		ret |= check_recv(&e, &wc, 1500, next_seq);
		ret |= wait_wc(&e, e.t.s[0].scq, &wc, 1) == 1 ? 0 : -1;
		ROCE_TEST_ASSERT(ret != 0 || wc.status == IBV_WC_SUCCESS, "send status %d",
				 wc.status);
	}
	return teardown(&e, ret);
}

/* Events of b queued so far of type t; every event is taken and acknowledged. */
static unsigned int
count_events(struct env *e, enum ibv_event_type t, struct ibv_async_event *last)
{
	struct ibv_context *ctx = e->t.s[1].ctx;
	struct ibv_async_event ev = { 0 };
	unsigned int n = 0;

	/* Non-blocking: the get returns -EAGAIN once the queue is empty. */
	(void)fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	while (rte_roce_get_async_event(ctx, &ev) == 0) {
		if (ev.event_type == t) {
			n++;
			*last = ev;
		}
		(void)rte_roce_ack_async_event(&ev);
	}
	return n;
}

/* Send count messages on QP 0 one by one, each received before the next. */
static int
receive_n(struct env *e, unsigned int first_seq, unsigned int count, unsigned int *next_seq)
{
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < count; i++) {
		ROCE_TEST_ASSERT_EQ(send_msg(e, 0, first_seq + i, first_seq + i, 100), 0, "send");
		ROCE_TEST_ASSERT_EQ(wait_wc(e, e->t.s[1].rcq, &wc, 1), 1, "recv %u", first_seq + i);
		ROCE_TEST_ASSERT_EQ(check_recv(e, &wc, 100, next_seq), 0, "recv");
		ROCE_TEST_ASSERT_EQ(wait_wc(e, e->t.s[0].scq, &wc, 1), 1, "send completion");
	}
	return 0;
}

/*
 * Limit 4 armed with 10 WQEs posted: the take that leaves 3 raises
 * SRQ_LIMIT_REACHED once; draining further raises nothing; query reads 0;
 * modify arms again and the next take below it raises it once more.
 */
static int
test_limit_event(void)
{
	unsigned int next_seq[MAX_QPS] = { 0 };
	struct ibv_srq_attr attr = { .srq_limit = 4 };
	struct ibv_async_event ev = { 0 };
	struct env e;
	int ret;

	ret = env_open(&e, 1, 16);
	if (ret == 0)
		ret = srq_post(&e, 0, 10, SLOT);
	if (ret != 0)
		return teardown(&e, ret);
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(e.srq, &attr, IBV_SRQ_LIMIT), 0, "arm");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_srq(e.srq, &attr), 0, "query");
	ROCE_TEST_ASSERT_EQ(attr.srq_limit, 4, "armed limit");
	/* 10 -> 4 left: not below the limit yet. */
	ret = receive_n(&e, 0, 6, next_seq);
	ROCE_TEST_ASSERT_EQ(count_events(&e, IBV_EVENT_SRQ_LIMIT_REACHED, &ev), 0,
			    "event at 4 left, limit 4");
	ret |= receive_n(&e, 6, 1, next_seq);
	ROCE_TEST_ASSERT_EQ(count_events(&e, IBV_EVENT_SRQ_LIMIT_REACHED, &ev), 1,
			    "event at 3 left");
	ROCE_TEST_ASSERT(ev.element.srq == e.srq, "event names the SRQ");
	ret |= receive_n(&e, 7, 2, next_seq);
	ROCE_TEST_ASSERT_EQ(count_events(&e, IBV_EVENT_SRQ_LIMIT_REACHED, &ev), 0,
			    "fired again without re-arming");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_srq(e.srq, &attr), 0, "query");
	ROCE_TEST_ASSERT_EQ(attr.srq_limit, 0, "limit after the event");
	/* 1 left; refill to 5, arm at 3: fires when 2 are left, once. */
	ret |= srq_post(&e, 10, 4, SLOT);
	attr.srq_limit = 3;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(e.srq, &attr, IBV_SRQ_LIMIT), 0, "re-arm");
	ret |= receive_n(&e, 9, 2, next_seq);
	ROCE_TEST_ASSERT_EQ(count_events(&e, IBV_EVENT_SRQ_LIMIT_REACHED, &ev), 0, "3 left");
	ret |= receive_n(&e, 11, 2, next_seq);
	ROCE_TEST_ASSERT_EQ(count_events(&e, IBV_EVENT_SRQ_LIMIT_REACHED, &ev), 1,
			    "re-armed event");
	ROCE_TEST_ASSERT_EQ(roce_srq_of(e.srq)->limit_events, 2, "events counted");
	return teardown(&e, ret);
}

/*
 * The limit event got and not acknowledged keeps the SRQ: destroy_srq is
 * -EBUSY until the ack (ibv_get_async_event(3): every event got must be
 * acknowledged before its object is destroyed).
 */
static int
test_destroy_with_unacked_event(void)
{
	unsigned int next_seq[MAX_QPS] = { 0 };
	struct ibv_srq_attr attr = { .srq_limit = 2 };
	struct ibv_async_event ev = { 0 };
	struct ibv_context *ctx;
	struct env e;
	int ret;

	ret = env_open(&e, 1, 16);
	if (ret == 0)
		ret = srq_post(&e, 0, 2, SLOT);
	if (ret != 0)
		return teardown(&e, ret);
	ctx = e.t.s[1].ctx;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(e.srq, &attr, IBV_SRQ_LIMIT), 0, "arm");
	ret = receive_n(&e, 0, 1, next_seq);
	ROCE_TEST_ASSERT_EQ(fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) |
				  O_NONBLOCK), 0, "O_NONBLOCK");
	ROCE_TEST_ASSERT_EQ(rte_roce_get_async_event(ctx, &ev), 0, "get the limit event");
	ROCE_TEST_ASSERT(ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED && ev.element.srq == e.srq,
			 "event %d", ev.event_type);
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(e.t.qp[1][0]), 0, "destroy the QP");
	e.t.qp[1][0] = NULL;
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_srq(e.srq), -EBUSY, "event not acknowledged");
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_async_event(&ev), 0, "ack");
	return teardown(&e, ret);
}

/*
 * A QP on the SRQ goes to ERR while holding a WQE (a SEND whose FIRST
 * arrived, the rest lost): that WQE alone completes with FLUSH_ERR, the
 * SRQ's WQEs stay for the other QP, Last WQE Reached is raised for the QP.
 */
static int
test_qp_error_keeps_srq(void)
{
	static const unsigned int first_only[] = { 0 };
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	unsigned int next_seq[MAX_QPS] = { 0 };
	struct ibv_async_event ev = { 0 };
	struct ibv_wc wc;
	struct env e;
	int ret;

	ret = env_open(&e, 2, SRQ_DEPTH);
	if (ret == 0)
		ret = srq_post(&e, 0, 4, SLOT) | send_msg(&e, 0, 0, 0, 3000) |
		      roce_test_frames_to_b(&e.t, 3) |
		      reorder_frames(RING_A_TO_B, first_only, 1, 3);
	if (ret != 0)
		return teardown(&e, ret);
	rte_roce_poll(e.t.s[1].ctx);
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(e.t.qp[1][0], &err, IBV_QP_STATE), 0, "to ERR");
	ROCE_TEST_ASSERT_EQ(count_events(&e, IBV_EVENT_QP_LAST_WQE_REACHED, &ev), 1,
			    "last WQE reached");
	ROCE_TEST_ASSERT(ev.element.qp == e.t.qp[1][0], "event names the QP");
	ROCE_TEST_ASSERT_EQ(wait_wc(&e, e.t.s[1].rcq, &wc, 1), 1, "held WQE flushed");
	ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_WR_FLUSH_ERR, "status");
	ROCE_TEST_ASSERT_EQ(wc.wr_id, 0, "the WQE taken at FIRST");
	ROCE_TEST_ASSERT_EQ(wc.qp_num, e.t.qp[1][0]->qp_num, "qp_num");
	/* The three others are the SRQ's: not flushed, and QP 1 still gets them. */
	ret = roce_test_expect_quiet(&e.t, e.t.s[1].rcq);
	ret |= send_msg(&e, 1, 0, 1, 500) | send_msg(&e, 1, 1, 2, 500) |
	       send_msg(&e, 1, 2, 3, 500);
	ROCE_TEST_ASSERT_EQ(ret, 0, "sends on QP 1");
	while (ret == 0 && next_seq[1] < 3) {
		ROCE_TEST_ASSERT_EQ(wait_wc(&e, e.t.s[1].rcq, &wc, 1), 1, "QP 1 receive");
		ret = check_recv(&e, &wc, 500, next_seq);
	}
	/* Destroying the QP raises nothing more. */
	ROCE_TEST_ASSERT_EQ(count_events(&e, IBV_EVENT_QP_LAST_WQE_REACHED, &ev), 0, "again");
	return teardown(&e, ret);
}

/* A chain of n receive WRs of nsge SGEs each over buf. */
static void
recv_chain(struct ibv_recv_wr *wr, struct ibv_sge *sge, unsigned int n, int nsge,
	   const struct roce_test_side *s)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)s->buf, 64, s->mr->lkey };
		wr[i] = (struct ibv_recv_wr){ .wr_id = i, .sg_list = &sge[0], .num_sge = nsge,
					      .next = i + 1 < n ? &wr[i + 1] : NULL };
	}
}

/* Create and destroy: arguments, device limits, -EBUSY while used. */
static int
test_create_destroy_errors(void)
{
	struct rte_roce_dev_conf conf = { .max_srq = 1, .max_srq_wr = 64, .max_srq_sge = 2 };
	struct ibv_srq_init_attr ia = { .attr = { .max_wr = 64, .max_sge = 2 } };
	struct ibv_srq_attr attr;
	struct ibv_device_attr dattr;
	struct ibv_context *ctx2;
	struct ibv_srq *srq, *srq2;
	struct ibv_qp *qp;
	struct env e;
	int ret;

	ret = env_open(&e, 1, 16);
	if (ret != 0)
		return teardown(&e, ret);
	ROCE_TEST_ASSERT_EQ(rte_roce_query_device(e.t.s[1].ctx, &dattr), 0, "query_device");
	ROCE_TEST_ASSERT(dattr.max_srq == 1024 && dattr.max_srq_wr == 4096 &&
			 dattr.max_srq_sge == 32, "default SRQ limits");
	ROCE_TEST_ASSERT(dattr.device_cap_flags & IBV_DEVICE_SRQ_RESIZE, "resize flag");
	ROCE_TEST_ASSERT(rte_roce_create_srq(NULL, &ia) == NULL && rte_errno == EINVAL, "NULL pd");
	ROCE_TEST_ASSERT(rte_roce_create_srq(e.t.s[1].pd, NULL) == NULL && rte_errno == EINVAL,
			 "NULL attr");
	conf.max_srq_sge = RTE_ROCE_DEV_MAX_SGE_MAX + 1;
	ROCE_TEST_ASSERT(rte_roce_open_device(e.t.s[1].port, &conf) == NULL && rte_errno == EINVAL,
			 "max_srq_sge above the largest");
	conf.max_srq_sge = 2;
	/* A second device on b's port, never polled, with small limits. */
	ctx2 = rte_roce_open_device(e.t.s[1].port, &conf);
	ROCE_TEST_ASSERT(ctx2 != NULL, "second device");
	{
		struct ibv_pd *pd2 = rte_roce_alloc_pd(ctx2);

		ROCE_TEST_ASSERT(pd2 != NULL, "pd");
		ia.attr.max_wr = 0;
		ROCE_TEST_ASSERT(rte_roce_create_srq(pd2, &ia) == NULL && rte_errno == EINVAL,
				 "max_wr 0");
		ia.attr = (struct ibv_srq_attr){ .max_wr = 65, .max_sge = 2 };
		ROCE_TEST_ASSERT(rte_roce_create_srq(pd2, &ia) == NULL && rte_errno == EINVAL,
				 "max_wr above max_srq_wr");
		ia.attr = (struct ibv_srq_attr){ .max_wr = 64, .max_sge = 3 };
		ROCE_TEST_ASSERT(rte_roce_create_srq(pd2, &ia) == NULL && rte_errno == EINVAL,
				 "max_sge above max_srq_sge");
		ia.attr = (struct ibv_srq_attr){ .max_wr = 33, .max_sge = 0, .srq_limit = 5 };
		srq = rte_roce_create_srq(pd2, &ia);
		ROCE_TEST_ASSERT(srq != NULL, "create on the second device");
		ROCE_TEST_ASSERT(ia.attr.max_wr == 64 && ia.attr.max_sge == 1 &&
				 ia.attr.srq_limit == 0, "granted %u WRs, %u SGEs, limit %u",
				 ia.attr.max_wr, ia.attr.max_sge, ia.attr.srq_limit);
		ROCE_TEST_ASSERT_EQ(rte_roce_query_srq(srq, &attr), 0, "query");
		ROCE_TEST_ASSERT(attr.max_wr == 64 && attr.max_sge == 1 && attr.srq_limit == 0,
				 "query after create");
		srq2 = rte_roce_create_srq(pd2, &ia);
		ROCE_TEST_ASSERT(srq2 == NULL && rte_errno == ENOSPC, "max_srq reached");
		/* A QP of device b cannot use device 2's SRQ. */
		{
			struct ibv_qp_init_attr qa = {
				.send_cq = e.t.s[1].scq, .recv_cq = e.t.s[1].rcq, .srq = srq,
				.cap = { .max_send_wr = 1, .max_send_sge = 1 },
				.qp_type = IBV_QPT_RC,
			};

			qp = rte_roce_create_qp(e.t.s[1].pd, &qa);
			ROCE_TEST_ASSERT(qp == NULL && rte_errno == EINVAL, "foreign SRQ");
		}
		ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(pd2), -EBUSY, "PD used by an SRQ");
		ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx2), -EBUSY, "device with an SRQ");
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_srq(srq), 0, "destroy");
		ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(pd2), 0, "dealloc");
		ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx2), 0, "close");
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_srq(NULL), -EINVAL, "NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_srq(e.srq), -EBUSY, "used by a QP");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_srq(NULL, &attr), -EINVAL, "query NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_srq(e.srq, NULL), -EINVAL, "query NULL attr");
	/* WQEs left in an SRQ at destroy release their MR. */
	ret = srq_post(&e, 0, 3, SLOT);
	ret |= env_drop_srq(&e);
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(e.t.s[1].mr), 0, "MR released by destroy");
	e.t.s[1].mr = NULL;
	return env_close(&e) | ret;
}

/* modify_srq: masks, ranges, resize keeping the WQEs in order. */
static int
test_modify_errors_and_resize(void)
{
	unsigned int next_seq[MAX_QPS] = { 0 };
	struct ibv_srq_attr attr;
	struct env e;
	int ret;

	ret = env_open(&e, 1, 16);
	if (ret != 0)
		return teardown(&e, ret);
	attr = (struct ibv_srq_attr){ .max_wr = 32, .srq_limit = 1 };
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(NULL, &attr, IBV_SRQ_LIMIT), -EINVAL, "NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(e.srq, NULL, IBV_SRQ_LIMIT), -EINVAL, "NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(e.srq, &attr, 1 << 2), -EINVAL, "unknown bit");
	attr.srq_limit = 16;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(e.srq, &attr, IBV_SRQ_LIMIT), -EINVAL,
			    "limit = size");
	attr.max_wr = 0;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(e.srq, &attr, IBV_SRQ_MAX_WR), -EINVAL, "max_wr 0");
	attr.max_wr = 4097;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(e.srq, &attr, IBV_SRQ_MAX_WR), -EINVAL,
			    "max_wr above max_srq_wr");
	attr.srq_limit = 10;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(e.srq, &attr, IBV_SRQ_LIMIT), 0, "arm 10");
	attr.max_wr = 8;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(e.srq, &attr, IBV_SRQ_MAX_WR), -EINVAL,
			    "max_wr below the armed limit");
	attr.srq_limit = 0;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(e.srq, &attr, IBV_SRQ_LIMIT), 0, "disarm");
	/* 12 posted: shrinking to 8 would lose some. */
	ret = srq_post(&e, 0, 12, SLOT);
	attr.max_wr = 8;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(e.srq, &attr, IBV_SRQ_MAX_WR), -EINVAL,
			    "max_wr below the WQEs posted");
	/* Two taken, so the ring has wrapped indexes; grow to 64 and both masks at once. */
	ret |= receive_n(&e, 0, 2, next_seq);
	attr = (struct ibv_srq_attr){ .max_wr = 40, .srq_limit = 50 };
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_srq(e.srq, &attr, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT), 0,
			    "resize and arm");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_srq(e.srq, &attr), 0, "query");
	ROCE_TEST_ASSERT(attr.max_wr == 64 && attr.srq_limit == 50,
			 "after resize: %u WRs, limit %u",
			 attr.max_wr, attr.srq_limit);
	/* The 10 left come out in posting order, then 50 more fit. */
	ret |= receive_n(&e, 2, 10, next_seq);
	ret |= srq_post(&e, 12, 50, SLOT);
	ROCE_TEST_ASSERT_EQ(ret, 0, "post after resize");
	return teardown(&e, ret);
}

/* post_srq_recv and post_recv: bad WRs, a full SRQ, a QP on an SRQ. */
static int
test_post_errors(void)
{
	struct ibv_recv_wr wr[20], *bad;
	struct ibv_sge sge[20];
	struct ibv_qp_attr qattr;
	struct ibv_qp_init_attr qinit;
	struct env e;
	int ret;

	ret = env_open(&e, 1, 16);
	if (ret != 0)
		return teardown(&e, ret);
	recv_chain(wr, sge, 3, 1, &e.t.s[1]);
	ROCE_TEST_ASSERT_EQ(rte_roce_post_srq_recv(NULL, wr, &bad), -EINVAL, "NULL srq");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_srq_recv(e.srq, NULL, &bad), -EINVAL, "NULL wr");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_srq_recv(e.srq, wr, NULL), -EINVAL, "NULL bad_wr");
	/* The third WR has 3 SGEs, one more than max_sge: the first two are posted. */
	wr[2].num_sge = SRQ_SGE + 1;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_srq_recv(e.srq, wr, &bad), -EINVAL, "too many SGEs");
	ROCE_TEST_ASSERT(bad == &wr[2], "bad_wr names the third");
	wr[0].num_sge = -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_srq_recv(e.srq, wr, &bad), -EINVAL, "negative num_sge");
	ROCE_TEST_ASSERT(bad == &wr[0], "bad_wr names the first");
	/* 2 posted; 14 more fill it; the 15th of a chain of 15 finds it full. */
	recv_chain(wr, sge, 15, 1, &e.t.s[1]);
	ROCE_TEST_ASSERT_EQ(rte_roce_post_srq_recv(e.srq, wr, &bad), -ENOMEM, "full");
	ROCE_TEST_ASSERT(bad == &wr[14], "bad_wr names the one that did not fit");
	ROCE_TEST_ASSERT_EQ(roce_queue_count(&roce_srq_of(e.srq)->rq), 16, "WQEs posted");
	/* A QP on an SRQ has no receive queue of its own (a WR valid for any queue). */
	wr[0].num_sge = 0;
	wr[0].next = NULL;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(e.t.qp[1][0], wr, &bad), -EINVAL, "post_recv");
	ROCE_TEST_ASSERT(bad == &wr[0], "bad_wr");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(e.t.qp[1][0], &qattr, 0, &qinit), 0, "query_qp");
	ROCE_TEST_ASSERT(qinit.srq == e.srq, "query_qp names the SRQ");
	ROCE_TEST_ASSERT(qinit.cap.max_recv_wr == 0 && qinit.cap.max_recv_sge == 0, "recv caps");
	return teardown(&e, ret);
}

static const struct roce_test_case cases[] = {
	{ "srq_shared_by_4_qps", test_shared_by_4 },
	{ "srq_shared_by_64_qps", test_shared_by_64 },
	{ "srq_shared_by_rc_uc_ud_qps", test_shared_by_rc_uc_ud },
	{ "srq_interleaved_messages", test_interleaved_messages },
	{ "srq_empty_rnr_then_recovery", test_empty_rnr_then_recovery },
	{ "srq_limit_event_once_until_rearmed", test_limit_event },
	{ "srq_qp_error_keeps_srq_wqes", test_qp_error_keeps_srq },
	{ "srq_destroy_with_unacked_event", test_destroy_with_unacked_event },
	{ "srq_create_destroy_errors", test_create_destroy_errors },
	{ "srq_modify_errors_and_resize", test_modify_errors_and_resize },
	{ "srq_post_errors", test_post_errors },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&roce_test_verbs_pair, "srq") != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
