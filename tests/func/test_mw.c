/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Memory windows and invalidation end to end (IBA 10.6.7; lib/roce/roce_mw.h):
 * two devices over a net_ring pair, side a the requester, side b the
 * target. Type 1 bound with rte_roce_bind_mw(), type 2 with IBV_WR_BIND_MW,
 * zero-based windows, rights and bounds checked against the window, type
 * 2's QP association, local and remote invalidation of windows and MRs,
 * and every refusal with its completion status. Each refused remote access
 * is checked on canary pages: the window and the pages around it stay as
 * they were, and the requester gets IBV_WC_REM_ACCESS_ERR. A refusal moves
 * the QPs to ERR, so each negative case has a QP pair of its own.
 */

#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include <rte_roce.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#define PAGE		4096u
#define WIN_OFF		(64u << 10)	/* window page in b's buffer; a canary page each side */
#define WIN_LEN		PAGE
#define SRC_OFF		(256u << 10)	/* a's data */
#define CANARY		0x5a
#define NQPS		12
#define SEED		7

/* Window rights used by the tests. */
#define RW		(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

static uint8_t *
win(struct roce_test_env *e)
{
	return e->s[1].buf + WIN_OFF;
}

/* The canary pages around the window, and a known window. */
static void
pages_set(struct roce_test_env *e)
{
	memset(win(e) - PAGE, CANARY, PAGE);
	memset(win(e), 0, WIN_LEN);
	memset(win(e) + WIN_LEN, CANARY, PAGE);
}

/* Nothing of the three pages changed. */
static int
pages_check(struct roce_test_env *e)
{
	unsigned int i;

	for (i = 0; i < PAGE; i++) {
		ROCE_TEST_ASSERT_EQ(win(e)[(int)i - (int)PAGE], CANARY, "page before, byte %u", i);
		ROCE_TEST_ASSERT_EQ(win(e)[i], 0, "window, byte %u", i);
		ROCE_TEST_ASSERT_EQ(win(e)[WIN_LEN + i], CANARY, "page after, byte %u", i);
	}
	return 0;
}

/* An MR of b over its buffer with access, in pd (NULL: b's). */
static struct ibv_mr *
b_mr(struct roce_test_env *e, struct ibv_pd *pd, int access)
{
	return rte_roce_reg_mr(pd != NULL ? pd : e->s[1].pd, e->s[1].buf, ROCE_TEST_BUF_LEN, access);
}

/* One signaled WR of a on pair i to raddr/rkey: its completion has status want. */
static int
a_access(struct roce_test_env *e, unsigned int i, enum ibv_wr_opcode op, uint32_t len,
	 uint64_t raddr, uint32_t rkey, enum ibv_wc_status want)
{
	struct roce_test_side *a = &e->s[0];
	struct ibv_wc wc;

	if (roce_test_post_send(e->qp[0][i], op, i, a->buf + SRC_OFF, len, a->mr->lkey, raddr,
				rkey, IBV_SEND_SIGNALED) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, a->scq, &wc, 1), 1, "completion, pair %u", i);
	ROCE_TEST_ASSERT_EQ(wc.status, want, "status, pair %u op %d", i, op);
	return 0;
}

/* A refused remote access: the right status, and the pages untouched. */
static int
a_refused(struct roce_test_env *e, unsigned int i, enum ibv_wr_opcode op, uint32_t len,
	  uint64_t raddr, uint32_t rkey)
{
	pages_set(e);
	if (a_access(e, i, op, len, raddr, rkey, IBV_WC_REM_ACCESS_ERR) != 0)
		return -1;
	return pages_check(e);
}

/* A WRITE of len bytes through rkey at raddr lands at b's window + off, nothing around it. */
static int
a_write_lands(struct roce_test_env *e, unsigned int i, uint64_t raddr, uint32_t rkey,
	      uint32_t off, uint32_t len)
{
	pages_set(e);
	roce_test_fill(e->s[0].buf + SRC_OFF, len, SEED + i);
	if (a_access(e, i, IBV_WR_RDMA_WRITE, len, raddr, rkey, IBV_WC_SUCCESS) != 0)
		return -1;
	ROCE_TEST_ASSERT(memcmp(win(e) + off, e->s[0].buf + SRC_OFF, len) == 0, "data, pair %u", i);
	memset(win(e) + off, 0, len);
	return pages_check(e);
}

/* A READ of len bytes through rkey at raddr returns b's window + off. */
static int
a_read_gets(struct roce_test_env *e, unsigned int i, uint64_t raddr, uint32_t rkey, uint32_t off,
	    uint32_t len)
{
	roce_test_fill(win(e), WIN_LEN, SEED);
	memset(e->s[0].buf + SRC_OFF, 0, len);
	if (a_access(e, i, IBV_WR_RDMA_READ, len, raddr, rkey, IBV_WC_SUCCESS) != 0)
		return -1;
	ROCE_TEST_ASSERT(memcmp(win(e) + off, e->s[0].buf + SRC_OFF, len) == 0, "READ data");
	return 0;
}

/* Post one local WR on qp of b; its completion has status want (and opcode wc_op if success). */
static int
b_local(struct roce_test_env *e, struct ibv_qp *qp, struct ibv_send_wr *wr,
	enum ibv_wc_status want)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	wr->send_flags |= IBV_SEND_SIGNALED;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(qp, wr, &bad), 0, "post local op %d", wr->opcode);
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, qp->send_cq, &wc, 1), 1, "local op %d", wr->opcode);
	ROCE_TEST_ASSERT_EQ(wc.status, want, "local op %d", wr->opcode);
	if (want == IBV_WC_SUCCESS)
		ROCE_TEST_ASSERT_EQ(wc.opcode, wr->opcode == IBV_WR_BIND_MW ? IBV_WC_BIND_MW :
				    IBV_WC_LOCAL_INV, "completion opcode");
	return 0;
}

/* Bind type 2 window mw on qp to [addr, addr + len) of mr; *rkey the new key. */
static int
bind2(struct roce_test_env *e, struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mr *mr,
      void *addr, uint64_t len, int access, uint32_t *rkey, enum ibv_wc_status want)
{
	struct ibv_send_wr wr = {
		.wr_id = 2,
		.opcode = IBV_WR_BIND_MW,
		.bind_mw = {
			.mw = mw,
			.rkey = ibv_inc_rkey(mw->rkey),
			.bind_info = { .mr = mr, .addr = (uintptr_t)addr, .length = len,
				       .mw_access_flags = access },
		},
	};

	*rkey = wr.bind_mw.rkey;
	return b_local(e, qp, &wr, want);
}

static int
local_inv(struct roce_test_env *e, struct ibv_qp *qp, uint32_t rkey, enum ibv_wc_status want)
{
	struct ibv_send_wr wr = { .wr_id = 3, .opcode = IBV_WR_LOCAL_INV, .invalidate_rkey = rkey };

	return b_local(e, qp, &wr, want);
}

/* Bind type 1 window mw with rte_roce_bind_mw() on qp; its completion has status want. */
static int
bind1(struct roce_test_env *e, struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mr *mr,
      void *addr, uint64_t len, int access, enum ibv_wc_status want)
{
	struct ibv_mw_bind b = {
		.wr_id = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = mr, .addr = (uintptr_t)addr, .length = len,
			       .mw_access_flags = access },
	};
	struct ibv_wc wc;

	ROCE_TEST_ASSERT_EQ(rte_roce_bind_mw(qp, mw, &b), 0, "rte_roce_bind_mw");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, qp->send_cq, &wc, 1), 1, "bind completion");
	ROCE_TEST_ASSERT_EQ(wc.status, want, "bind status");
	if (want == IBV_WC_SUCCESS)
		ROCE_TEST_ASSERT_EQ(wc.opcode, IBV_WC_BIND_MW, "bind opcode");
	return 0;
}

static int
env_open(struct roce_test_env *e)
{
	if (roce_test_env_open(e, &roce_test_default_conf, NQPS) != 0)
		return -1;
	return roce_test_warm_up(e);
}

/* A QP of b in pd, in RTS (connected to a's pair-0 QP, which never hears from it). */
static int
b_qp_in(struct roce_test_env *e, struct ibv_pd *pd, struct ibv_qp **qp)
{
	struct roce_test_side *b = &e->s[1];
	struct ibv_pd *own = b->pd;
	int rc;

	b->pd = pd;
	rc = roce_test_qp_create(b, IBV_QPT_RC, qp);
	b->pd = own;
	if (rc != 0)
		return -1;
	return roce_test_qp_connect(*qp, b, &e->s[0], e->qp[0][0]->qp_num, 1, 1,
				    &roce_test_default_conf);
}

/*
 * The end of a test: its windows freed first (which unbinds them), then
 * its MRs, its PD (NULLs skipped), and the environment closed. ret, or -1
 * if anything failed.
 */
static int
finish(struct roce_test_env *e, int ret, struct ibv_mw *const *mw, unsigned int nmw,
       struct ibv_mr *const *mr, unsigned int nmr, struct ibv_pd *pd)
{
	unsigned int i;

	for (i = 0; i < nmw; i++)
		if (mw[i] != NULL && rte_roce_dealloc_mw(mw[i]) != 0)
			ret = -1;
	for (i = 0; i < nmr; i++)
		if (mr[i] != NULL && rte_roce_dereg_mr(mr[i]) != 0)
			ret = -1;
	if (pd != NULL && rte_roce_dealloc_pd(pd) != 0)
		ret = -1;
	return roce_test_env_close(e) | ret;
}

#define MWS(...) (struct ibv_mw *[]){ __VA_ARGS__ }, RTE_DIM(((struct ibv_mw *[]){ __VA_ARGS__ }))
#define MRS(...) (struct ibv_mr *[]){ __VA_ARGS__ }, RTE_DIM(((struct ibv_mr *[]){ __VA_ARGS__ }))

/* Type 1: bound, used, refused outside its range and rights, with an old key, once unbound. */
static int
test_type1(void)
{
	struct roce_test_env e;
	struct ibv_qp *bq;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	uint64_t w;
	uint32_t old;
	int ret = -1;

	if (env_open(&e) != 0)
		return -1;
	bq = e.qp[1][0];
	w = (uintptr_t)win(&e);
	/* The MR grants no remote right: only the window does (IBA 10.6.7). */
	mr = b_mr(&e, NULL, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mw = rte_roce_alloc_mw(e.s[1].pd, IBV_MW_TYPE_1);
	if (mr == NULL || mw == NULL)
		goto out;
	old = mw->rkey;
	if (bind1(&e, bq, mw, mr, win(&e), WIN_LEN, RW, IBV_WC_SUCCESS) != 0)
		goto out;
	if (mw->rkey >> 8 != old >> 8 || mw->rkey == old) {
		printf("#   rkey 0x%x after 0x%x: same index, new key byte\n", mw->rkey, old);
		goto out;
	}
	if (a_write_lands(&e, 0, w, mw->rkey, 0, WIN_LEN) != 0 ||
	    a_write_lands(&e, 0, w + 100, mw->rkey, 100, 1000) != 0 ||
	    a_read_gets(&e, 0, w + 8, mw->rkey, 8, 3000) != 0 ||
	    /* Past the end, before the start, the MR's own key, the old key byte. */
	    a_refused(&e, 1, IBV_WR_RDMA_WRITE, 2048, w + WIN_LEN - 1024, mw->rkey) != 0 ||
	    a_refused(&e, 2, IBV_WR_RDMA_WRITE, 16, w - 8, mw->rkey) != 0 ||
	    a_refused(&e, 3, IBV_WR_RDMA_READ, 16, w - 8, mw->rkey) != 0 ||
	    a_refused(&e, 4, IBV_WR_RDMA_WRITE, 16, w, mr->rkey) != 0 ||
	    a_refused(&e, 5, IBV_WR_RDMA_WRITE, 16, w, old) != 0)
		goto out;
	/* Read-only window: a WRITE is refused. */
	if (bind1(&e, bq, mw, mr, win(&e), WIN_LEN, IBV_ACCESS_REMOTE_READ, IBV_WC_SUCCESS) != 0 ||
	    a_read_gets(&e, 6, w, mw->rkey, 0, 64) != 0 ||
	    a_refused(&e, 6, IBV_WR_RDMA_WRITE, 16, w, mw->rkey) != 0)
		goto out;
	/* Length 0 unbinds (rdma-core's test_invalidate_mw_type1). */
	if (bind1(&e, bq, mw, mr, win(&e), 0, 0, IBV_WC_SUCCESS) != 0 ||
	    a_refused(&e, 7, IBV_WR_RDMA_WRITE, 16, w, mw->rkey) != 0)
		goto out;
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), 0, "MR, window unbound");
	mr = NULL;
	ret = 0;
out:
	return finish(&e, ret, MWS(mw), MRS(mr), NULL);
}

/* Type 2: bound by a work request, usable only through its QP; zero-based. */
static int
test_type2(void)
{
	struct roce_test_env e;
	struct ibv_mw *mw = NULL, *zb = NULL;
	struct ibv_mr *mr;
	uint32_t rkey, zkey;
	uint64_t w;
	int ret = -1;

	if (env_open(&e) != 0)
		return -1;
	w = (uintptr_t)win(&e);
	mr = b_mr(&e, NULL, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mw = rte_roce_alloc_mw(e.s[1].pd, IBV_MW_TYPE_2);
	zb = rte_roce_alloc_mw(e.s[1].pd, IBV_MW_TYPE_2);
	if (mr == NULL || mw == NULL || zb == NULL)
		goto out;
	/* FREE until bound: its allocated key reaches nothing. */
	if (a_refused(&e, 3, IBV_WR_RDMA_WRITE, 16, w, mw->rkey) != 0 ||
	    bind2(&e, e.qp[1][0], mw, mr, win(&e), WIN_LEN, RW, &rkey, IBV_WC_SUCCESS) != 0 ||
	    bind2(&e, e.qp[1][0], zb, mr, win(&e) + 512, 1024,
		  RW | IBV_ACCESS_ZERO_BASED, &zkey, IBV_WC_SUCCESS) != 0)
		goto out;
	if (a_write_lands(&e, 0, w + 4000, rkey, 4000, 96) != 0 ||
	    a_read_gets(&e, 0, w, rkey, 0, WIN_LEN) != 0 ||
	    /* Zero-based: addresses are offsets in the window. */
	    a_write_lands(&e, 0, 0, zkey, 512, 1024) != 0 ||
	    a_write_lands(&e, 0, 1000, zkey, 512 + 1000, 24) != 0 ||
	    a_read_gets(&e, 0, 16, zkey, 512 + 16, 100) != 0 ||
	    a_refused(&e, 1, IBV_WR_RDMA_WRITE, 16, 1020, zkey) != 0 ||
	    a_refused(&e, 2, IBV_WR_RDMA_WRITE, 16, w + 512, zkey) != 0 ||
	    /* Another QP of the same PD: type 2B belongs to the QP that bound it. */
	    a_refused(&e, 4, IBV_WR_RDMA_WRITE, 16, w, rkey) != 0)
		goto out;
	ret = 0;
out:
	return finish(&e, ret, MWS(mw, zb), MRS(mr), NULL);
}

/* Local invalidation of a type 2 window and of an MR; a window bound again after it. */
static int
test_invalidate_local(void)
{
	struct roce_test_env e;
	struct ibv_mr *mr, *mr2;
	struct ibv_mw *mw;
	uint32_t rkey, rkey2;
	uint64_t w;
	int ret = -1;

	if (env_open(&e) != 0)
		return -1;
	w = (uintptr_t)win(&e);
	mr = b_mr(&e, NULL, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mr2 = b_mr(&e, NULL, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	mw = rte_roce_alloc_mw(e.s[1].pd, IBV_MW_TYPE_2);
	if (mr == NULL || mr2 == NULL || mw == NULL)
		goto out;
	if (bind2(&e, e.qp[1][0], mw, mr, win(&e), WIN_LEN, RW, &rkey, IBV_WC_SUCCESS) != 0 ||
	    a_write_lands(&e, 0, w, rkey, 0, 64) != 0 ||
	    local_inv(&e, e.qp[1][0], rkey, IBV_WC_SUCCESS) != 0 ||
	    a_refused(&e, 0, IBV_WR_RDMA_WRITE, 64, w, rkey) != 0)
		goto out;
	/* FREE again: bound anew, with a new key byte, on another QP. */
	if (bind2(&e, e.qp[1][1], mw, mr, win(&e), WIN_LEN, RW, &rkey2, IBV_WC_SUCCESS) != 0 ||
	    a_write_lands(&e, 1, w, rkey2, 0, 64) != 0 ||
	    a_refused(&e, 2, IBV_WR_RDMA_WRITE, 64, w, rkey) != 0)
		goto out;
	/* An MR: its keys, local and remote, fail once invalidated; it is still deregistered. */
	if (a_write_lands(&e, 3, w, mr2->rkey, 0, 64) != 0 ||
	    local_inv(&e, e.qp[1][3], mr2->rkey, IBV_WC_SUCCESS) != 0 ||
	    a_refused(&e, 3, IBV_WR_RDMA_WRITE, 64, w, mr2->rkey) != 0)
		goto out;
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr2), 0, "an invalidated MR is deregistered");
	mr2 = NULL;
	ret = 0;
out:
	return finish(&e, ret, MWS(mw), MRS(mr, mr2), NULL);
}

/* SEND with Invalidate of a type 2 window: reported in the receive completion, and applied. */
static int
test_invalidate_remote(void)
{
	struct roce_test_side *a, *b;
	struct roce_test_env e;
	struct ibv_mw *mw;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint32_t rkey;
	uint64_t w;
	int ret = -1;

	if (env_open(&e) != 0)
		return -1;
	a = &e.s[0];
	b = &e.s[1];
	w = (uintptr_t)win(&e);
	mr = b_mr(&e, NULL, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mw = rte_roce_alloc_mw(b->pd, IBV_MW_TYPE_2);
	if (mr == NULL || mw == NULL ||
	    bind2(&e, e.qp[1][0], mw, mr, win(&e), WIN_LEN, RW, &rkey, IBV_WC_SUCCESS) != 0 ||
	    a_write_lands(&e, 0, w, rkey, 0, 64) != 0 ||
	    roce_test_post_recv(e.qp[1][0], 9, b->buf, 64, b->mr->lkey) != 0 ||
	    roce_test_post_send(e.qp[0][0], IBV_WR_SEND_WITH_INV, 9, a->buf, 16, a->mr->lkey, 0,
				rkey, IBV_SEND_SIGNALED) != 0)
		goto out;
	if (roce_test_wait_wc(&e, a->scq, &wc, 1) != 1 || wc.status != IBV_WC_SUCCESS ||
	    roce_test_wait_wc(&e, b->rcq, &wc, 1) != 1 ||
	    roce_test_check_recv_wc(&wc, IBV_WR_SEND_WITH_INV, 9, 16, e.qp[1][0], e.qp[0][0]) != 0) {
		printf("#   SEND_WITH_INV completions\n");
		goto out;
	}
	ROCE_TEST_ASSERT_EQ(wc.invalidated_rkey, rkey, "invalidated_rkey");
	if (a_refused(&e, 0, IBV_WR_RDMA_WRITE, 64, w, rkey) != 0)
		goto out;
	ret = 0;
out:
	return finish(&e, ret, MWS(mw), MRS(mr), NULL);
}

/* A bound window freed: its key fails (rdma-core's test_mw_type2_invalidate_dealloc). */
static int
test_dealloc_invalidates(void)
{
	struct roce_test_env e;
	struct ibv_mw *mw;
	struct ibv_mr *mr;
	uint32_t rkey;
	int ret = -1;

	if (env_open(&e) != 0)
		return -1;
	mr = b_mr(&e, NULL, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mw = rte_roce_alloc_mw(e.s[1].pd, IBV_MW_TYPE_2);
	if (mr != NULL && mw != NULL &&
	    bind2(&e, e.qp[1][0], mw, mr, win(&e), WIN_LEN, RW, &rkey, IBV_WC_SUCCESS) == 0 &&
	    rte_roce_dealloc_mw(mw) == 0 &&
	    a_refused(&e, 0, IBV_WR_RDMA_WRITE, 64, (uintptr_t)win(&e), rkey) == 0)
		ret = 0;
	return finish(&e, ret, MWS(NULL), MRS(mr), NULL);
}

/* Binds the spec refuses: IBV_WC_MW_BIND_ERR, each on a QP of its own. */
static int
test_bind_errors(void)
{
	struct ibv_mr *mr = NULL, *nobind = NULL, *nolocal = NULL, *other = NULL;
	struct ibv_mw *mw = NULL, *mw1 = NULL;
	struct ibv_qp *other_qp = NULL;
	struct ibv_pd *pd2 = NULL;
	struct roce_test_env e;
	uint32_t rkey;
	int ret = -1;

	if (env_open(&e) != 0)
		return -1;
	pd2 = rte_roce_alloc_pd(e.s[1].ctx);
	mr = b_mr(&e, NULL, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	nobind = b_mr(&e, NULL, IBV_ACCESS_LOCAL_WRITE);
	nolocal = b_mr(&e, NULL, IBV_ACCESS_MW_BIND);
	mw = rte_roce_alloc_mw(e.s[1].pd, IBV_MW_TYPE_2);
	mw1 = rte_roce_alloc_mw(e.s[1].pd, IBV_MW_TYPE_1);
	if (pd2 == NULL || mr == NULL || nobind == NULL || nolocal == NULL || mw == NULL ||
	    mw1 == NULL || (other = b_mr(&e, pd2, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND)) == NULL ||
	    b_qp_in(&e, pd2, &other_qp) != 0)
		goto out;
	if (/* Bound already: not FREE (o10-37.2.30). */
	    bind2(&e, e.qp[1][0], mw, mr, win(&e), WIN_LEN, RW, &rkey, IBV_WC_SUCCESS) != 0 ||
	    bind2(&e, e.qp[1][0], mw, mr, win(&e), WIN_LEN, RW, &rkey, IBV_WC_MW_BIND_ERR) != 0 ||
	    local_inv(&e, e.qp[1][1], rkey, IBV_WC_SUCCESS) != 0 ||
	    /* A QP of another PD (C10-72). */
	    bind2(&e, other_qp, mw, mr, win(&e), WIN_LEN, RW, &rkey, IBV_WC_MW_BIND_ERR) != 0 ||
	    /* Length 0 (o10-37.2.40). */
	    bind2(&e, e.qp[1][2], mw, mr, win(&e), 0, RW, &rkey, IBV_WC_MW_BIND_ERR) != 0 ||
	    /* An MR without MW_BIND (C10-73). */
	    bind2(&e, e.qp[1][3], mw, nobind, win(&e), WIN_LEN, RW, &rkey, IBV_WC_MW_BIND_ERR) != 0 ||
	    /* A writable window on an MR without LOCAL_WRITE (C10-74); a read-only one is fine. */
	    bind2(&e, e.qp[1][4], mw, nolocal, win(&e), WIN_LEN, RW, &rkey, IBV_WC_MW_BIND_ERR) != 0 ||
	    bind2(&e, e.qp[1][5], mw, nolocal, win(&e), WIN_LEN, IBV_ACCESS_REMOTE_READ, &rkey,
		  IBV_WC_SUCCESS) != 0 ||
	    local_inv(&e, e.qp[1][5], rkey, IBV_WC_SUCCESS) != 0 ||
	    /* Outside the MR (C10-75). */
	    bind2(&e, e.qp[1][6], mw, mr, e.s[1].buf + ROCE_TEST_BUF_LEN - 16, 32, RW, &rkey,
		  IBV_WC_MW_BIND_ERR) != 0 ||
	    /* The MR of another PD. */
	    bind2(&e, e.qp[1][7], mw, other, win(&e), WIN_LEN, RW, &rkey, IBV_WC_MW_BIND_ERR) != 0 ||
	    /* A type 1 window through a work request, zero-based (o10-36.2.2). */
	    bind2(&e, e.qp[1][8], mw1, mr, win(&e), WIN_LEN, RW | IBV_ACCESS_ZERO_BASED, &rkey,
		  IBV_WC_MW_BIND_ERR) != 0)
		goto out;
	ret = 0;
out:
	if (other_qp != NULL && rte_roce_destroy_qp(other_qp) != 0)
		ret = -1;
	return finish(&e, ret, MWS(mw, mw1), MRS(mr, nobind, nolocal, other), pd2);
}

/* Invalidations the spec refuses: IBV_WC_LOC_QP_OP_ERR locally, REM_INV_REQ_ERR remotely. */
static int
test_invalidate_errors(void)
{
	struct ibv_mr *mr = NULL, *other = NULL, *inv = NULL;
	struct ibv_mw *mw1 = NULL, *mw = NULL;
	struct roce_test_side *a, *b;
	struct ibv_pd *pd2 = NULL;
	struct roce_test_env e;
	struct ibv_wc wc;
	uint32_t rkey;
	int ret = -1;

	if (env_open(&e) != 0)
		return -1;
	a = &e.s[0];
	b = &e.s[1];
	pd2 = rte_roce_alloc_pd(b->ctx);
	mr = b_mr(&e, NULL, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	inv = b_mr(&e, NULL, IBV_ACCESS_LOCAL_WRITE);
	mw1 = rte_roce_alloc_mw(b->pd, IBV_MW_TYPE_1);
	mw = rte_roce_alloc_mw(b->pd, IBV_MW_TYPE_2);
	if (pd2 == NULL || mr == NULL || inv == NULL || mw1 == NULL || mw == NULL ||
	    (other = b_mr(&e, pd2, IBV_ACCESS_LOCAL_WRITE)) == NULL)
		goto out;
	if (/* No such key; a type 1 window (o10-37.2.26); another PD's MR. */
	    local_inv(&e, e.qp[1][0], 0x12345600u, IBV_WC_LOC_QP_OP_ERR) != 0 ||
	    local_inv(&e, e.qp[1][1], mw1->rkey, IBV_WC_LOC_QP_OP_ERR) != 0 ||
	    local_inv(&e, e.qp[1][2], other->rkey, IBV_WC_LOC_QP_OP_ERR) != 0 ||
	    /* Already invalid. */
	    local_inv(&e, e.qp[1][3], inv->rkey, IBV_WC_SUCCESS) != 0 ||
	    local_inv(&e, e.qp[1][3], inv->rkey, IBV_WC_LOC_QP_OP_ERR) != 0 ||
	    /* An MR with a window bound (as rxe); the window's key from before its bind. */
	    bind2(&e, e.qp[1][4], mw, mr, win(&e), WIN_LEN, RW, &rkey, IBV_WC_SUCCESS) != 0 ||
	    local_inv(&e, e.qp[1][4], mr->rkey, IBV_WC_LOC_QP_OP_ERR) != 0 ||
	    local_inv(&e, e.qp[1][5], mw->rkey, IBV_WC_LOC_QP_OP_ERR) != 0)
		goto out;
	/* SEND with Invalidate of a type 1 window: the receive WQE and the sender fail. */
	if (roce_test_post_recv(e.qp[1][6], 6, b->buf, 64, b->mr->lkey) != 0 ||
	    roce_test_post_send(e.qp[0][6], IBV_WR_SEND_WITH_INV, 6, a->buf, 16, a->mr->lkey, 0,
				mw1->rkey, IBV_SEND_SIGNALED) != 0)
		goto out;
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&e, b->rcq, &wc, 1), 1, "receive completion");
	ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_REM_INV_REQ_ERR, "receive status");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&e, a->scq, &wc, 1), 1, "send completion");
	ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_REM_INV_REQ_ERR, "send status");
	ret = 0;
out:
	return finish(&e, ret, MWS(mw, mw1), MRS(mr, inv, other), pd2);
}

/*
 * UC takes the local operations too (as rxe). A UC WRITE completes when
 * sent; one the target refuses is dropped silently (no NAK on UC): the
 * window's page stays as it was, the QPs stay usable.
 */
static int
test_uc(void)
{
	struct roce_test_conf c = roce_test_default_conf;
	struct roce_test_env e;
	struct ibv_mw *mw = NULL;
	struct ibv_mr *mr;
	uint64_t w, end, drops;
	uint32_t rkey;
	int ret = -1;

	c.qp_type = IBV_QPT_UC;
	if (roce_test_env_open(&e, &c, 1) != 0)
		return -1;
	w = (uintptr_t)win(&e);
	mr = b_mr(&e, NULL, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mw = rte_roce_alloc_mw(e.s[1].pd, IBV_MW_TYPE_2);
	if (mr == NULL || mw == NULL ||
	    bind2(&e, e.qp[1][0], mw, mr, win(&e), WIN_LEN, RW, &rkey, IBV_WC_SUCCESS) != 0)
		goto out;
	pages_set(&e);
	roce_test_fill(e.s[0].buf + SRC_OFF, 64, SEED);
	if (a_access(&e, 0, IBV_WR_RDMA_WRITE, 64, w, rkey, IBV_WC_SUCCESS) != 0)
		goto out;
	/* Nothing tells when a UC WRITE landed: watch the memory. */
	end = roce_test_ms() + ROCE_TEST_WAIT_MS;
	while (memcmp(win(&e), e.s[0].buf + SRC_OFF, 64) != 0 && roce_test_ms() < end)
		roce_test_pump_env(&e);
	ROCE_TEST_ASSERT(memcmp(win(&e), e.s[0].buf + SRC_OFF, 64) == 0, "UC WRITE placed");
	if (local_inv(&e, e.qp[1][0], rkey, IBV_WC_SUCCESS) != 0)
		goto out;
	pages_set(&e);
	drops = roce_test_xstat(e.s[1].ctx, "rx_drop_uc_msg");
	if (a_access(&e, 0, IBV_WR_RDMA_WRITE, 64, w, rkey, IBV_WC_SUCCESS) != 0)
		goto out;
	end = roce_test_ms() + ROCE_TEST_WAIT_MS;
	while (roce_test_xstat(e.s[1].ctx, "rx_drop_uc_msg") == drops && roce_test_ms() < end)
		roce_test_pump_env(&e);
	ROCE_TEST_ASSERT_EQ(roce_test_xstat(e.s[1].ctx, "rx_drop_uc_msg"), drops + 1,
			    "the refused UC WRITE dropped");
	if (pages_check(&e) != 0)
		goto out;
	ret = 0;
out:
	return finish(&e, ret, MWS(mw), MRS(mr), NULL);
}

#define MISUSE(call, want, what) do {					\
		size_t pos_ = roce_test_log_pos();				\
		ROCE_TEST_ASSERT_EQ((call), (want), what);			\
		ROCE_TEST_ASSERT(roce_test_log_pos() > pos_, what ": not logged"); \
	} while (0)

/* API misuse: a clear -errno (rte_errno for a constructor), logged. */
static int
test_misuse(void)
{
	struct ibv_mw_bind bind = { .send_flags = IBV_SEND_SIGNALED };
	struct ibv_device_attr attr;
	struct ibv_send_wr wr, *bad;
	struct roce_test_side *b;
	struct roce_test_env e;
	struct ibv_mw *mw1, *mw2;
	struct ibv_pd *pd2;
	struct ibv_mr *mr, *mr2;
	uint32_t rkey;

	if (env_open(&e) != 0)
		return -1;
	b = &e.s[1];
	ROCE_TEST_ASSERT_EQ(rte_roce_query_device(b->ctx, &attr), 0, "query");
	ROCE_TEST_ASSERT(attr.max_mw > 0 && (attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW) &&
			 (attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B), "max_mw, flags");
	MISUSE(rte_roce_alloc_mw(NULL, IBV_MW_TYPE_1) == NULL && rte_errno == EINVAL, 1, "NULL pd");
	MISUSE(rte_roce_alloc_mw(b->pd, (enum ibv_mw_type)3) == NULL && rte_errno == EINVAL, 1,
	       "type 3");
	MISUSE(rte_roce_dealloc_mw(NULL), -EINVAL, "dealloc NULL");
	mw1 = rte_roce_alloc_mw(b->pd, IBV_MW_TYPE_1);
	mw2 = rte_roce_alloc_mw(b->pd, IBV_MW_TYPE_2);
	pd2 = rte_roce_alloc_pd(b->ctx);
	mr = b_mr(&e, NULL, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mr2 = b_mr(&e, pd2, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	ROCE_TEST_ASSERT(mw1 && mw2 && pd2 && mr && mr2, "objects");
	MISUSE(rte_roce_bind_mw(NULL, mw1, &bind), -EINVAL, "bind on NULL QP");
	MISUSE(rte_roce_bind_mw(e.qp[1][0], mw2, &bind), -EINVAL, "ibv_bind_mw of a type 2");
	bind.bind_info = (struct ibv_mw_bind_info){ .addr = 64, .length = 64 };
	MISUSE(rte_roce_bind_mw(e.qp[1][0], mw1, &bind), -EINVAL, "a range without an MR");
	bind.bind_info = (struct ibv_mw_bind_info){ .mr = mr, .addr = (uintptr_t)b->buf,
						    .length = 64,
						    .mw_access_flags = IBV_ACCESS_ZERO_BASED };
	MISUSE(rte_roce_bind_mw(e.qp[1][0], mw1, &bind), -EINVAL, "a zero-based type 1");
	bind.bind_info.mr = mr2;
	bind.bind_info.mw_access_flags = 0;
	MISUSE(rte_roce_bind_mw(e.qp[1][0], mw1, &bind), -EPERM, "MR of another PD");
	wr = (struct ibv_send_wr){ .opcode = IBV_WR_BIND_MW,
				   .bind_mw = { .mw = mw2, .bind_info = { .mr = mr, .length = 8,
							.mw_access_flags = IBV_ACCESS_MW_BIND } } };
	MISUSE(rte_roce_post_send(e.qp[1][0], &wr, &bad), -EINVAL, "window access MW_BIND");
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	wr.bind_mw.bind_info.mr = NULL;
	MISUSE(rte_roce_post_send(e.qp[1][0], &wr, &bad), -EINVAL, "a length without an MR");
	/* Objects in use: refused, named. */
	if (bind2(&e, e.qp[1][0], mw2, mr, b->buf, 64, RW, &rkey, IBV_WC_SUCCESS) != 0)
		return -1;
	MISUSE(rte_roce_dereg_mr(mr), -EBUSY, "MR with a window bound");
	MISUSE(rte_roce_dealloc_pd(pd2), -EBUSY, "PD with an MR");
	ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_mw(mw2), 0, "dealloc bound type 2");
	MISUSE(rte_roce_dealloc_mw(mw2), -EINVAL, "dealloc twice");
	return finish(&e, 0, MWS(mw1), MRS(mr, mr2), pd2);
}

static const struct roce_test_case cases[] = {
	{ "type1_bind_access_bounds_rights", test_type1 },
	{ "type2_qp_association_zero_based", test_type2 },
	{ "invalidate_local_window_and_mr", test_invalidate_local },
	{ "invalidate_remote_send_with_inv", test_invalidate_remote },
	{ "dealloc_invalidates", test_dealloc_invalidates },
	{ "bind_errors", test_bind_errors },
	{ "invalidate_errors", test_invalidate_errors },
	{ "uc_bind_invalidate", test_uc },
	{ "api_misuse", test_misuse },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_log_capture() != 0 ||
	    roce_test_pair_create(&roce_test_verbs_pair, "mw") != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
