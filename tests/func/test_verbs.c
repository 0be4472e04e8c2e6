/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The verbs objects over a net_ring pair: devices, PDs, MRs, CQs, QPs.
 * Every call's misuse returns a clear error and logs why; the QP state
 * table is checked exhaustively against an independent copy of IBA 10.3.1
 * (doc/wire-format.md §8.1); flush to ERR completes every WR exactly once, in order.
 * Linked with the static library: some cases check internal invariants
 * (keys, rings, CQ push) that the public API does not show without the
 * transport engine.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include <rte_roce_verbs.h>

#include "roce_cq.h"
#include "roce_dev.h"
#include "roce_mr.h"
#include "roce_qp.h"

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#define PEER_IP		"10.0.0.2"
#define LOCAL_SGID_INDEX 1	/* 10.0.0.1: index 0 is the link-local default GID */
#define LOCAL_SGID_INDEX_V6 2	/* fd00::1 */
#define NB_QP_STATES	(IBV_QPS_ERR + 1)
#define NB_MASK_BITS	21	/* IBV_QP_STATE .. IBV_QP_DEST_QPN (RC:verbs.h) */
#define SMALL_DEPTH	8

static struct roce_test_pair pair;
static struct rte_roce_port *port_a, *port_b;

/* One device with a PD, a CQ and an RC QP; most cases start from it. */
struct fx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static int
fx_open(struct fx *f, const struct rte_roce_dev_conf *conf)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = SMALL_DEPTH, .max_recv_wr = SMALL_DEPTH,
			 .max_send_sge = 2, .max_recv_sge = 2, .max_inline_data = 64 },
		.qp_type = IBV_QPT_RC,
	};

	memset(f, 0, sizeof(*f));
	f->ctx = rte_roce_open_device(port_a, conf);
	ROCE_TEST_ASSERT(f->ctx != NULL, "open: %s", rte_strerror(rte_errno));
	f->pd = rte_roce_alloc_pd(f->ctx);
	ROCE_TEST_ASSERT(f->pd != NULL, "pd");
	f->cq = rte_roce_create_cq(f->ctx, 64, NULL, NULL, 0);
	ROCE_TEST_ASSERT(f->cq != NULL, "cq");
	init.send_cq = f->cq;
	init.recv_cq = f->cq;
	f->qp = rte_roce_create_qp(f->pd, &init);
	ROCE_TEST_ASSERT(f->qp != NULL, "qp: %s", rte_strerror(rte_errno));
	return 0;
}

static int
fx_close(struct fx *f)
{
	if (f->qp != NULL)
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(f->qp), 0, "destroy qp");
	if (f->cq != NULL)
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(f->cq), 0, "destroy cq");
	if (f->pd != NULL)
		ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(f->pd), 0, "dealloc pd");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(f->ctx), 0, "close");
	return 0;
}

/* Attributes valid for every transition of an RC QP on port_a. */
static void
good_attr(struct ibv_qp_attr *a, enum ibv_qp_state next)
{
	union rte_roce_gid peer;

	memset(a, 0, sizeof(*a));
	rte_roce_gid_parse(PEER_IP, &peer);
	a->qp_state = next;
	a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	a->pkey_index = 0;
	a->port_num = 1;
	a->qkey = 0x11111111;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	a->ah_attr.grh.sgid_index = LOCAL_SGID_INDEX;
	a->ah_attr.grh.hop_limit = 64;
	memcpy(a->ah_attr.grh.dgid.raw, peer.raw, sizeof(peer.raw));
	a->path_mtu = IBV_MTU_1024;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->rq_psn = 0x123456;
	a->sq_psn = 0xabcdef;
	a->max_rd_atomic = 1;
	a->max_dest_rd_atomic = 1;
	a->min_rnr_timer = 12;
	a->dest_qp_num = 0x11;
	a->path_mig_state = IBV_MIG_MIGRATED;
}

static int
modify(struct ibv_qp *qp, enum ibv_qp_state next, int mask)
{
	struct ibv_qp_attr a;

	good_attr(&a, next);
	a.cur_qp_state = qp->state;
	return rte_roce_modify_qp(qp, &a, mask);
}

#define INIT_MASK (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | \
		  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RTS_MASK (IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
		  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)

/*
 * IBA 10.3.1 / K:core/verbs.c qp_state_table, written out independently of
 * the library's table (doc/wire-format.md §8.1), one table per transport. The
 * library creates RC QPs only; UC and UD rows are checked on an RC QP
 * whose type is forced, since they are data the later issues rely on.
 */
struct qpt_row {
	enum ibv_qp_state cur, next;
	int req, opt;
};

#define UC_RTS_OPT (IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | \
		    IBV_QP_PATH_MIG_STATE)
#define RC_RTS_OPT (UC_RTS_OPT | IBV_QP_MIN_RNR_TIMER)
#define UC_INIT (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define UD_INIT (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)
#define UC_RTR_REQ (IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN)
#define UC_RTR_OPT (IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX)
/* Every state but RESET goes to RESET and ERR; ERR goes to itself. */
#define TO_RESET_ERR \
	{ IBV_QPS_INIT, IBV_QPS_RESET, 0, 0 }, { IBV_QPS_INIT, IBV_QPS_ERR, 0, 0 }, \
	{ IBV_QPS_RTR, IBV_QPS_RESET, 0, 0 }, { IBV_QPS_RTR, IBV_QPS_ERR, 0, 0 }, \
	{ IBV_QPS_RTS, IBV_QPS_RESET, 0, 0 }, { IBV_QPS_RTS, IBV_QPS_ERR, 0, 0 }, \
	{ IBV_QPS_SQD, IBV_QPS_RESET, 0, 0 }, { IBV_QPS_SQD, IBV_QPS_ERR, 0, 0 }, \
	{ IBV_QPS_SQE, IBV_QPS_RESET, 0, 0 }, { IBV_QPS_SQE, IBV_QPS_ERR, 0, 0 }, \
	{ IBV_QPS_ERR, IBV_QPS_RESET, 0, 0 }, { IBV_QPS_ERR, IBV_QPS_ERR, 0, 0 }, \
	{ IBV_QPS_RESET, IBV_QPS_RESET, 0, 0 }, \
	{ IBV_QPS_RTS, IBV_QPS_SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY }

static const struct qpt_row rc_rows[] = {
	TO_RESET_ERR,
	{ IBV_QPS_RESET, IBV_QPS_INIT, UC_INIT, 0 },
	{ IBV_QPS_INIT, IBV_QPS_INIT, 0, UC_INIT },
	{ IBV_QPS_INIT, IBV_QPS_RTR, UC_RTR_REQ | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
	  UC_RTR_OPT },
	{ IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC, RC_RTS_OPT },
	{ IBV_QPS_RTS, IBV_QPS_RTS, 0, RC_RTS_OPT },
	{ IBV_QPS_SQD, IBV_QPS_RTS, 0, RC_RTS_OPT },
	{ IBV_QPS_SQD, IBV_QPS_SQD, 0, IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT |
	  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
	  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_PKEY_INDEX | IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE },
};

static const struct qpt_row uc_rows[] = {
	TO_RESET_ERR,
	{ IBV_QPS_RESET, IBV_QPS_INIT, UC_INIT, 0 },
	{ IBV_QPS_INIT, IBV_QPS_INIT, 0, UC_INIT },
	{ IBV_QPS_INIT, IBV_QPS_RTR, UC_RTR_REQ, UC_RTR_OPT },
	{ IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_SQ_PSN, UC_RTS_OPT },
	{ IBV_QPS_RTS, IBV_QPS_RTS, 0, UC_RTS_OPT },
	{ IBV_QPS_SQD, IBV_QPS_RTS, 0, UC_RTS_OPT },
	{ IBV_QPS_SQD, IBV_QPS_SQD, 0, IBV_QP_AV | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_PKEY_INDEX | IBV_QP_PATH_MIG_STATE },
	{ IBV_QPS_SQE, IBV_QPS_RTS, 0, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS },
};

static const struct qpt_row ud_rows[] = {
	TO_RESET_ERR,
	{ IBV_QPS_RESET, IBV_QPS_INIT, UD_INIT, 0 },
	{ IBV_QPS_INIT, IBV_QPS_INIT, 0, UD_INIT },
	{ IBV_QPS_INIT, IBV_QPS_RTR, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY },
	{ IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_SQ_PSN, IBV_QP_CUR_STATE | IBV_QP_QKEY },
	{ IBV_QPS_RTS, IBV_QPS_RTS, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY },
	{ IBV_QPS_SQD, IBV_QPS_RTS, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY },
	{ IBV_QPS_SQD, IBV_QPS_SQD, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY },
	{ IBV_QPS_SQE, IBV_QPS_RTS, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY },
};

static const struct qpt_row *
row_find(enum ibv_qp_type type, enum ibv_qp_state cur, enum ibv_qp_state next)
{
	const struct qpt_row *rows = type == IBV_QPT_UD ? ud_rows :
				     type == IBV_QPT_UC ? uc_rows : rc_rows;
	unsigned int i, n = type == IBV_QPT_UD ? RTE_DIM(ud_rows) :
			    type == IBV_QPT_UC ? RTE_DIM(uc_rows) : RTE_DIM(rc_rows);

	for (i = 0; i < n; i++)
		if (rows[i].cur == cur && rows[i].next == next)
			return &rows[i];
	return NULL;
}

/* One step of drive_to(), with the attributes the expected table requires. */
static int
step(struct ibv_qp *qp, enum ibv_qp_state next)
{
	const struct qpt_row *row = row_find(qp->qp_type, qp->state, next);

	ROCE_TEST_ASSERT(row != NULL, "no row %d -> %d", qp->state, next);
	ROCE_TEST_ASSERT_EQ(modify(qp, next, IBV_QP_STATE | row->req), 0, "%d -> %d",
			    qp->state, next);
	return 0;
}

/* Bring a QP to a state through RESET, as its type's table allows (SQE: forced). */
static int
drive_to(struct ibv_qp *qp, enum ibv_qp_state target)
{
	static const enum ibv_qp_state path[] = { IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS };
	unsigned int i;

	if (step(qp, IBV_QPS_RESET) != 0)
		return -1;
	for (i = 0; i < RTE_DIM(path) && target != IBV_QPS_RESET && qp->state != target; i++) {
		if (step(qp, path[i]) != 0)
			return -1;
		if (target == IBV_QPS_ERR)
			return step(qp, IBV_QPS_ERR);
	}
	if (target == IBV_QPS_SQD && step(qp, IBV_QPS_SQD) != 0)
		return -1;
	if (target == IBV_QPS_SQE)
		__atomic_store_n(&qp->state, IBV_QPS_SQE, __ATOMIC_RELEASE);
	ROCE_TEST_ASSERT_EQ(qp->state, target, "reached");
	return 0;
}

/* ---- devices ---- */

static int
test_device_misuse(void)
{
	struct rte_roce_dev_conf conf = { .max_qp = RTE_ROCE_DEV_MAX_QP_MAX + 1 };
	struct fx f;
	size_t pos;

	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_open_device(NULL, NULL) == NULL && rte_errno == EINVAL, "NULL");
	pos = roce_test_log_pos();
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_open_device(port_a, &conf) == NULL && rte_errno == EINVAL,
			 "max_qp above the limit");
	ROCE_TEST_ASSERT(roce_test_log_pos() > pos, "refusal logged");
	conf = (struct rte_roce_dev_conf){ .max_qp_rd_atom = RTE_ROCE_DEV_MAX_RD_ATOM_MAX + 1 };
	ROCE_TEST_ASSERT(rte_roce_open_device(port_a, &conf) == NULL && rte_errno == EINVAL,
			 "max_qp_rd_atom above the limit");
	conf = (struct rte_roce_dev_conf){ .max_sge = RTE_ROCE_DEV_MAX_SGE_MAX + 1 };
	ROCE_TEST_ASSERT(rte_roce_open_device(port_a, &conf) == NULL && rte_errno == EINVAL,
			 "max_sge above the limit");
	pos = roce_test_log_pos();
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(NULL), -EINVAL, "close NULL");
	ROCE_TEST_ASSERT(roce_test_log_pos() > pos, "NULL refusal logged");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll(NULL), -EINVAL, "poll NULL");
	if (fx_open(&f, NULL) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(f.ctx), -EBUSY, "close with objects");
	ROCE_TEST_ASSERT(rte_roce_poll(f.ctx) >= 0, "poll");
	return fx_close(&f);
}

static int
test_query_device_port_gid(void)
{
	struct rte_roce_dev_conf conf = { .max_qp = 64, .max_qp_wr = 256, .max_sge = 4,
					  .max_cq = 8, .max_cqe = 512, .max_mr = 32,
					  .max_qp_rd_atom = 4 };
	struct rte_roce_port_info info;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	union rte_roce_gid g;
	union ibv_gid gid;
	struct ibv_context *ctx;

	ctx = rte_roce_open_device(port_a, &conf);
	ROCE_TEST_ASSERT(ctx != NULL, "open");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_device(ctx, &da), 0, "query_device");
	ROCE_TEST_ASSERT(da.max_qp == 64 && da.max_qp_wr == 256 && da.max_sge == 4 &&
			 da.max_cq == 8 && da.max_cqe == 512 && da.max_mr == 32, "limits");
	ROCE_TEST_ASSERT(da.max_qp_rd_atom == 4 && da.max_qp_init_rd_atom == 4, "rd_atom");
	ROCE_TEST_ASSERT_EQ(da.atomic_cap, IBV_ATOMIC_HCA, "atomic cap");
	ROCE_TEST_ASSERT_EQ(da.max_mr_size, UINT64_MAX, "max_mr_size");
	ROCE_TEST_ASSERT_EQ(da.phys_port_cnt, 1, "ports");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_device(NULL, &da), -EINVAL, "NULL ctx");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_device(ctx, NULL), -EINVAL, "NULL attr");

	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(port_a, &info), 0, "port info");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_port(ctx, 1, &pa), 0, "query_port");
	ROCE_TEST_ASSERT_EQ(pa.state, info.link_up ? IBV_PORT_ACTIVE : IBV_PORT_DOWN, "state");
	ROCE_TEST_ASSERT_EQ(roce_mtu_bytes(pa.active_mtu), info.ib_mtu, "active mtu");
	ROCE_TEST_ASSERT_EQ(pa.max_mtu, pa.active_mtu, "max mtu");
	ROCE_TEST_ASSERT_EQ(pa.gid_tbl_len, RTE_ROCE_PORT_GID_TBL_LEN, "gid table");
	ROCE_TEST_ASSERT_EQ(pa.link_layer, IBV_LINK_LAYER_ETHERNET, "link layer");
	ROCE_TEST_ASSERT_EQ(pa.max_msg_sz, 1u << 31, "max msg");
	ROCE_TEST_ASSERT(pa.active_width != 0 && pa.active_speed != 0, "width and speed");
	ROCE_TEST_ASSERT(pa.flags & IBV_QPF_GRH_REQUIRED, "GRH required");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_port(ctx, 2, &pa), -EINVAL, "port 2");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_port(ctx, 0, &pa), -EINVAL, "port 0");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_port(ctx, 1, NULL), -EINVAL, "NULL attr");

	ROCE_TEST_ASSERT_EQ(rte_roce_query_gid(ctx, 1, LOCAL_SGID_INDEX, &gid), 0, "gid 1");
	rte_roce_gid_parse("10.0.0.1", &g);
	ROCE_TEST_ASSERT(memcmp(gid.raw, g.raw, sizeof(g.raw)) == 0, "gid 1 is 10.0.0.1");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_gid(ctx, 1, LOCAL_SGID_INDEX_V6, &gid), 0, "gid 2");
	rte_roce_gid_parse("fd00::1", &g);
	ROCE_TEST_ASSERT(memcmp(gid.raw, g.raw, sizeof(g.raw)) == 0, "gid 2 is fd00::1");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_gid(ctx, 1, 0, &gid), 0, "default gid");
	ROCE_TEST_ASSERT(gid.raw[0] == 0xfe && gid.raw[1] == 0x80, "link-local");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_gid(ctx, 1, RTE_ROCE_PORT_GID_TBL_LEN - 1, &gid),
			    -ENOENT, "free entry");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_gid(ctx, 1, RTE_ROCE_PORT_GID_TBL_LEN, &gid),
			    -EINVAL, "index past the table");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_gid(ctx, 1, -1, &gid), -EINVAL, "negative index");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_gid(ctx, 2, 0, &gid), -EINVAL, "port 2");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), 0, "close");
	return 0;
}

/* ---- PDs and MRs ---- */

static int
test_pd_misuse(void)
{
	struct ibv_context *ctx = rte_roce_open_device(port_a, NULL);
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char buf[64];

	ROCE_TEST_ASSERT(ctx != NULL, "open");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_alloc_pd(NULL) == NULL && rte_errno == EINVAL, "NULL ctx");
	ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(NULL), -EINVAL, "dealloc NULL");
	pd = rte_roce_alloc_pd(ctx);
	ROCE_TEST_ASSERT(pd != NULL && pd->context == ctx, "pd");
	mr = rte_roce_reg_mr(pd, buf, sizeof(buf), 0);
	ROCE_TEST_ASSERT(mr != NULL, "mr");
	ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(pd), -EBUSY, "PD with an MR");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), -EBUSY, "device with a PD");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), 0, "dereg");
	ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(pd), 0, "dealloc");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), 0, "close");
	return 0;
}

static int
test_mr_reg_misuse(void)
{
	struct rte_roce_dev_conf conf = { .max_mr = 2 };
	struct ibv_context *ctx = rte_roce_open_device(port_a, &conf);
	struct ibv_mr *mr[3];
	struct ibv_pd *pd;
	char buf[64];
	void *huge;
	uint8_t *hole;
	size_t pos, page;

	ROCE_TEST_ASSERT(ctx != NULL && (pd = rte_roce_alloc_pd(ctx)) != NULL, "open, pd");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_reg_mr(NULL, buf, 1, 0) == NULL && rte_errno == EINVAL, "no pd");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_reg_mr(pd, NULL, 1, 0) == NULL && rte_errno == EINVAL,
			 "NULL addr");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_reg_mr(pd, buf, 1, IBV_ACCESS_ZERO_BASED) == NULL &&
			 rte_errno == EINVAL, "unsupported access");
	pos = roce_test_log_pos();
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_reg_mr(pd, buf, 1, IBV_ACCESS_REMOTE_WRITE) == NULL &&
			 rte_errno == EINVAL, "REMOTE_WRITE without LOCAL_WRITE");
	ROCE_TEST_ASSERT(roce_test_log_pos() > pos, "logged");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_reg_mr(pd, buf, 1, IBV_ACCESS_REMOTE_ATOMIC) == NULL &&
			 rte_errno == EINVAL, "REMOTE_ATOMIC without LOCAL_WRITE");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_reg_mr(pd, (void *)(UINTPTR_MAX - 8), 64, 0) == NULL &&
			 rte_errno == EINVAL, "range wraps");
	/* Memory that is not (all) mapped: the peer's first access would crash the process. */
	page = (size_t)sysconf(_SC_PAGESIZE);
	hole = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ROCE_TEST_ASSERT(hole != MAP_FAILED && munmap(hole + page, page) == 0, "a page and a hole");
	pos = roce_test_log_pos();
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_reg_mr(pd, hole + page - 8, 16, IBV_ACCESS_LOCAL_WRITE) == NULL &&
			 rte_errno == EFAULT, "range running into an unmapped page");
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "is not all mapped memory"), "logged");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_reg_mr(pd, hole + page, 1, 0) == NULL && rte_errno == EFAULT,
			 "unmapped page");
	ROCE_TEST_ASSERT_EQ(munmap(hole, page), 0, "munmap");
	/* Ordinary memory, hugepage-style memory, and a zero-length region. */
	mr[0] = rte_roce_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	huge = rte_malloc(NULL, 4096, 0);
	ROCE_TEST_ASSERT(huge != NULL, "rte_malloc");
	mr[1] = rte_roce_reg_mr(pd, huge, 4096, IBV_ACCESS_REMOTE_READ);
	ROCE_TEST_ASSERT(mr[0] != NULL && mr[1] != NULL, "two MRs");
	ROCE_TEST_ASSERT(mr[0]->lkey == mr[0]->rkey && mr[0]->lkey != mr[1]->lkey, "keys");
	ROCE_TEST_ASSERT(mr[0]->addr == buf && mr[0]->length == sizeof(buf) && mr[0]->pd == pd,
			 "fields");
	rte_errno = 0;
	pos = roce_test_log_pos();
	ROCE_TEST_ASSERT(rte_roce_reg_mr(pd, buf, 1, 0) == NULL && rte_errno == ENOSPC,
			 "max_mr reached");
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "rte_roce_dev_conf.max_mr raises it"),
			 "the log names max_mr");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr[1]), 0, "dereg");
	mr[2] = rte_roce_reg_mr(pd, NULL, 0, IBV_ACCESS_RELAXED_ORDERING);
	ROCE_TEST_ASSERT(mr[2] != NULL, "zero length, optional access bit ignored");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(NULL), -EINVAL, "dereg NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr[2]), 0, "dereg");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr[0]), 0, "dereg");
	rte_free(huge);
	ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(pd), 0, "dealloc");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), 0, "close");
	return 0;
}

static int
test_mr_lookup_keys(void)
{
	struct rte_roce_dev_conf conf = { .max_mr = 1 };
	struct ibv_context *ctx = rte_roce_open_device(port_a, &conf);
	uint64_t base, end;
	struct roce_dev *dev;
	struct ibv_pd *pd, *pd2;
	struct roce_mr *out;
	struct ibv_mr *mr;
	uint32_t old_key;
	char buf[256];

	ROCE_TEST_ASSERT(ctx != NULL, "open");
	dev = roce_dev_of(ctx);
	pd = rte_roce_alloc_pd(ctx);
	pd2 = rte_roce_alloc_pd(ctx);
	ROCE_TEST_ASSERT(pd != NULL && pd2 != NULL, "pds");
	mr = rte_roce_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	ROCE_TEST_ASSERT(mr != NULL, "mr");
	base = (uintptr_t)buf;
	end = base + sizeof(buf);
	/* Rights. */
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->lkey, false, pd, base, 16, 0, &out), 0,
			    "local read");
	ROCE_TEST_ASSERT(out == roce_mr_of(mr) && out->users == 1, "found and counted");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), -EBUSY, "dereg while looked up");
	roce_mr_put(out);
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->lkey, false, pd, base, 16,
					   IBV_ACCESS_LOCAL_WRITE, &out), 0, "local write");
	roce_mr_put(out);
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->rkey, true, pd, base, 16,
					   IBV_ACCESS_REMOTE_READ, &out), 0, "remote read");
	roce_mr_put(out);
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->rkey, true, pd, base, 16,
					   IBV_ACCESS_REMOTE_WRITE, &out), -EACCES,
			    "no remote write");
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->rkey, true, pd, base, 16,
					   IBV_ACCESS_REMOTE_ATOMIC, &out), -EACCES, "no atomic");
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->rkey, true, pd, base, 16, 0, &out),
			    -EACCES, "remote access naming no right");
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->lkey, false, pd2, base, 16, 0, &out),
			    -EACCES, "other PD");
	/* Bounds, overflow-safe. */
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->lkey, false, pd, end - 16, 16, 0, &out), 0,
			    "last bytes");
	roce_mr_put(out);
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->lkey, false, pd, end, 0, 0, &out), 0,
			    "empty range at the end");
	roce_mr_put(out);
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->lkey, false, pd, end - 16, 17, 0, &out),
			    -EFAULT, "one past the end");
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->lkey, false, pd, base - 1, 2, 0, &out),
			    -EFAULT, "before the start");
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->lkey, false, pd, base + 8, UINT64_MAX, 0,
					   &out), -EFAULT, "length wraps");
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->lkey, false, pd, UINT64_MAX, 2, 0, &out),
			    -EFAULT, "address wraps");
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, 0, false, pd, base, 1, 0, &out), -ENOENT, "key 0");
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->lkey + (1u << ROCE_MR_KEY_GEN_BITS), false,
					   pd, base, 1, 0, &out), -ENOENT, "index past the table");
	ROCE_TEST_ASSERT_EQ(roce_mr_of(mr)->users, 0, "no use leaked by the failures");
	/* Stale keys: the only slot is reused, the generation differs. */
	old_key = mr->lkey;
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), 0, "dereg");
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, old_key, false, pd, base, 1, 0, &out), -ENOENT,
			    "key of a deregistered MR");
	mr = rte_roce_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ROCE_TEST_ASSERT(mr != NULL, "re-register in the same slot");
	ROCE_TEST_ASSERT(mr->lkey != old_key &&
			 mr->lkey >> ROCE_MR_KEY_GEN_BITS == old_key >> ROCE_MR_KEY_GEN_BITS,
			 "same slot, new key 0x%x vs 0x%x", mr->lkey, old_key);
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, old_key, false, pd, base, 1, 0, &out), -ENOENT,
			    "stale key after reuse");
	ROCE_TEST_ASSERT_EQ(roce_mr_lookup(dev, mr->lkey, false, pd, base, 1, 0, &out), 0,
			    "new key");
	roce_mr_put(out);
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), 0, "dereg");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), -EINVAL, "dereg twice");
	ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(pd), 0, "pd");
	ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(pd2), 0, "pd2");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), 0, "close");
	return 0;
}

/* SGE cursors: gather/scatter across SGEs, partial chunks, an mbuf chain, errors. */
static int
test_sge_copy(void)
{
	uint8_t a[10], b[7], c[5], flat[22], back[22];
	struct roce_mr mr = { .state = ROCE_MR_STATE_VALID };
	struct roce_sge sge[3] = {
		{ (uintptr_t)a, sizeof(a), 1, &mr },
		{ (uintptr_t)b, sizeof(b), 1, &mr },
		{ (uintptr_t)c, sizeof(c), 1, &mr },
	};
	struct roce_sge_cursor cur = { 0, 0 };
	struct rte_mbuf *m1, *m2;
	unsigned int i;

	for (i = 0; i < sizeof(flat); i++)
		flat[i] = (uint8_t)(i * 7 + 1);
	/* Scatter in chunks of 3 that straddle SGEs. */
	for (i = 0; i + 3 <= sizeof(flat); i += 3)
		ROCE_TEST_ASSERT_EQ(roce_sge_scatter(sge, 3, &cur, flat + i, 3), 0, "chunk %u", i);
	ROCE_TEST_ASSERT_EQ(roce_sge_scatter(sge, 3, &cur, flat + i, sizeof(flat) - i), 0, "tail");
	ROCE_TEST_ASSERT(memcmp(a, flat, 10) == 0 && memcmp(b, flat + 10, 7) == 0 &&
			 memcmp(c, flat + 17, 5) == 0, "scattered");
	ROCE_TEST_ASSERT_EQ(roce_sge_scatter(sge, 3, &cur, flat, 1), -EMSGSIZE, "overrun");
	ROCE_TEST_ASSERT_EQ(roce_copy_status(-EMSGSIZE), IBV_WC_LOC_LEN_ERR, "status");
	cur = (struct roce_sge_cursor){ 0, 0 };
	ROCE_TEST_ASSERT_EQ(roce_sge_gather(sge, 3, &cur, back, 11), 0, "gather 11");
	ROCE_TEST_ASSERT_EQ(roce_sge_gather(sge, 3, &cur, back + 11, 11), 0, "gather 11 more");
	ROCE_TEST_ASSERT(memcmp(back, flat, sizeof(flat)) == 0, "gathered");
	/* An SGE whose lkey failed at post time. */
	sge[1].mr = NULL;
	cur = (struct roce_sge_cursor){ 0, 0 };
	ROCE_TEST_ASSERT_EQ(roce_sge_gather(sge, 3, &cur, back, 12), -EACCES, "bad SGE");
	ROCE_TEST_ASSERT_EQ(roce_copy_status(-EACCES), IBV_WC_LOC_PROT_ERR, "status");
	ROCE_TEST_ASSERT_EQ(roce_copy_status(0), IBV_WC_SUCCESS, "status ok");
	sge[1].mr = &mr;
	/* From a two-segment mbuf chain, starting inside the first segment. */
	m1 = rte_pktmbuf_alloc(roce_test_mbuf_pool());
	m2 = rte_pktmbuf_alloc(roce_test_mbuf_pool());
	ROCE_TEST_ASSERT(m1 != NULL && m2 != NULL, "mbufs");
	memcpy(rte_pktmbuf_append(m1, 12), flat, 12);
	memcpy(rte_pktmbuf_append(m2, 10), flat + 12, 10);
	ROCE_TEST_ASSERT_EQ(rte_pktmbuf_chain(m1, m2), 0, "chain");
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	memset(c, 0, sizeof(c));
	cur = (struct roce_sge_cursor){ 0, 0 };
	ROCE_TEST_ASSERT_EQ(roce_sge_scatter_mbuf(sge, 3, &cur, m1, 2, 20), 0, "from mbuf");
	ROCE_TEST_ASSERT(memcmp(a, flat + 2, 10) == 0 && memcmp(b, flat + 12, 7) == 0 &&
			 memcmp(c, flat + 19, 3) == 0, "scattered from the chain");
	cur = (struct roce_sge_cursor){ 0, 0 };
	ROCE_TEST_ASSERT_EQ(roce_sge_scatter_mbuf(sge, 3, &cur, m1, 20, 3), -EMSGSIZE,
			    "past the packet");
	rte_pktmbuf_free(m1);
	return 0;
}

/* ---- CQs ---- */

static int
test_cq_misuse(void)
{
	struct rte_roce_dev_conf conf = { .max_cq = 1, .max_cqe = 128 };
	struct ibv_context *ctx = rte_roce_open_device(port_a, &conf);
	struct ibv_wc wc;
	struct ibv_cq *cq;
	int ctxv;

	ROCE_TEST_ASSERT(ctx != NULL, "open");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_create_cq(NULL, 1, NULL, NULL, 0) == NULL && rte_errno == EINVAL,
			 "NULL ctx");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_create_cq(ctx, 0, NULL, NULL, 0) == NULL && rte_errno == EINVAL,
			 "cqe 0");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_create_cq(ctx, 129, NULL, NULL, 0) == NULL &&
			 rte_errno == EINVAL, "cqe above max_cqe");
	cq = rte_roce_create_cq(ctx, 100, &ctxv, NULL, 0);
	ROCE_TEST_ASSERT(cq != NULL && cq->cqe == 128 && cq->cq_context == &ctxv, "cq of 128");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_create_cq(ctx, 1, NULL, NULL, 0) == NULL && rte_errno == ENOSPC,
			 "max_cq");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(cq, 1, &wc), 0, "empty");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(NULL, 1, &wc), -EINVAL, "NULL cq");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(cq, 1, NULL), -EINVAL, "NULL wc");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(cq, -1, &wc), -EINVAL, "negative count");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(NULL), -EINVAL, "destroy NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(cq), 0, "destroy");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), 0, "close");
	return 0;
}

/* A full CQ refuses, marks itself in error, returns what it holds, then -EOVERFLOW. */
static int
test_cq_overrun(void)
{
	struct ibv_wc wc[4], in = { .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV };
	struct ibv_qp_init_attr init = { .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						  .max_send_sge = 1, .max_recv_sge = 1 },
					 .qp_type = IBV_QPT_RC };
	struct ibv_qp *qp2;
	struct roce_cq *cq;
	uint64_t overflows;
	struct fx f;
	size_t pos;
	int i;

	if (fx_open(&f, NULL) != 0)
		return -1;
	/* A second QP whose CQ will overrun, next to one whose CQ will not. */
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(f.cq), -EBUSY, "CQ used by a QP");
	init.send_cq = rte_roce_create_cq(f.ctx, 2, NULL, NULL, 0);
	init.recv_cq = init.send_cq;
	ROCE_TEST_ASSERT(init.send_cq != NULL, "small cq");
	qp2 = rte_roce_create_qp(f.pd, &init);
	ROCE_TEST_ASSERT(qp2 != NULL, "qp2");
	if (drive_to(qp2, IBV_QPS_RTS) != 0 || drive_to(f.qp, IBV_QPS_RTS) != 0)
		return -1;
	cq = roce_cq_of(init.send_cq);
	for (i = 0; i < 2; i++) {
		in.wr_id = i;
		ROCE_TEST_ASSERT_EQ(roce_cq_push(cq, &in), 0, "push %d", i);
	}
	in.wr_id = 2;
	pos = roce_test_log_pos();
	overflows = roce_test_xstat(f.ctx, "cq_overflows");
	ROCE_TEST_ASSERT_EQ(roce_cq_push(cq, &in), -EOVERFLOW, "push into a full CQ");
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "CQ of 2 entries overran"), "logged");
	ROCE_TEST_ASSERT_EQ(roce_test_xstat(f.ctx, "cq_overflows"), overflows + 1, "counted");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(init.send_cq, 1, wc), 1, "first stored");
	ROCE_TEST_ASSERT_EQ(wc[0].wr_id, 0, "oldest first");
	ROCE_TEST_ASSERT_EQ(roce_cq_push(cq, &in), -EOVERFLOW, "still in error with room");
	ROCE_TEST_ASSERT_EQ(roce_test_xstat(f.ctx, "cq_overflows"), overflows + 1, "counted once");
	/* The progress loop moves every QP of the overrun CQ to ERR, and only those. */
	ROCE_TEST_ASSERT(rte_roce_poll(f.ctx) >= 0, "poll");
	ROCE_TEST_ASSERT_EQ(qp2->state, IBV_QPS_ERR, "QP of the overrun CQ in ERR");
	ROCE_TEST_ASSERT_EQ(f.qp->state, IBV_QPS_RTS, "other QP untouched");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(init.send_cq, 4, wc), 1, "second stored");
	ROCE_TEST_ASSERT_EQ(wc[0].wr_id, 1, "in order");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(init.send_cq, 4, wc), -EOVERFLOW, "overrun");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(init.send_cq, 4, wc), -EOVERFLOW, "and stays");
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(init.send_cq, 64), -EOVERFLOW, "no resize in error");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp2), 0, "destroy qp2");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(init.send_cq), 0, "destroy cq");
	return fx_close(&f);
}

/* Push completions wr_id first .. first + n - 1 into cq, as the engine does. */
static int
push_n(struct ibv_cq *cq, uint64_t first, unsigned int n)
{
	struct ibv_wc wc = { .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV };
	unsigned int i;

	for (i = 0; i < n; i++) {
		wc.wr_id = first + i;
		ROCE_TEST_ASSERT_EQ(roce_cq_push(roce_cq_of(cq), &wc), 0, "push %" PRIu64,
				    wc.wr_id);
	}
	return 0;
}

/* Poll n completions, wr_id first .. first + n - 1 in order; then none if drain. */
static int
poll_in_order(struct ibv_cq *cq, uint64_t first, unsigned int n, bool drain)
{
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < n; i++) {
		ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(cq, 1, &wc), 1, "completion %u of %u", i, n);
		ROCE_TEST_ASSERT_EQ(wc.wr_id, first + i, "in order");
	}
	if (drain)
		ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(cq, 1, &wc), 0, "no more");
	return 0;
}

/*
 * rte_roce_cq_resize(): refusals (NULL, cqe outside 1..max_cqe, below the
 * completions held), then down and up with completions held across the
 * ring's wrap, kept in order, the size rounded up.
 */
static int
test_cq_resize(void)
{
	struct rte_roce_dev_conf conf = { .max_cqe = 128 };
	struct ibv_context *ctx = rte_roce_open_device(port_a, &conf);
	struct ibv_cq *cq;
	size_t pos;

	ROCE_TEST_ASSERT(ctx != NULL, "open");
	cq = rte_roce_create_cq(ctx, 8, NULL, NULL, 0);
	ROCE_TEST_ASSERT(cq != NULL, "cq");
	pos = roce_test_log_pos();
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(NULL, 8), -EINVAL, "NULL cq");
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(cq, 0), -EINVAL, "cqe 0");
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(cq, -1), -EINVAL, "cqe -1");
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(cq, 129), -EINVAL, "cqe above max_cqe");
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "cqe 129 outside 1..128 (max_cqe)"), "logged");
	ROCE_TEST_ASSERT_EQ(cq->cqe, 8, "unchanged");
	/* 7 held, wrapped: wr_id 4..10 in slots 4..7, 0..2. */
	if (push_n(cq, 0, 6) != 0 || poll_in_order(cq, 0, 4, false) != 0 || push_n(cq, 6, 5) != 0)
		return -1;
	pos = roce_test_log_pos();
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(cq, 6), -EINVAL, "below the 7 held");
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "cqe 6 below the 7 completions"), "logged");
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(cq, 7), 0, "down to the 7 held");
	ROCE_TEST_ASSERT_EQ(cq->cqe, 8, "rounded up");
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(cq, 100), 0, "up");
	ROCE_TEST_ASSERT_EQ(cq->cqe, 128, "rounded up");
	if (push_n(cq, 11, 10) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(cq, 17), 0, "down to the 17 held");
	ROCE_TEST_ASSERT_EQ(cq->cqe, 32, "rounded up");
	if (poll_in_order(cq, 4, 17, true) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(cq, 1), 0, "empty, down to 1");
	ROCE_TEST_ASSERT_EQ(cq->cqe, 1, "one entry");
	if (push_n(cq, 21, 1) != 0 || poll_in_order(cq, 21, 1, true) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(cq), 0, "destroy");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), 0, "close");
	return 0;
}

/*
 * The completions a CQ owes count as held: send WRs posted and not
 * started (nothing drives the device here) refuse a smaller size.
 */
static int
test_cq_resize_owed(void)
{
	uint8_t buf[64];
	struct ibv_mr *mr;
	struct fx f;
	int i;

	if (fx_open(&f, NULL) != 0 || drive_to(f.qp, IBV_QPS_RTS) != 0)
		return -1;
	mr = rte_roce_reg_mr(f.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ROCE_TEST_ASSERT(mr != NULL, "mr");
	/* One signaled, two not: each completes into the CQ, in error at least. */
	for (i = 0; i < 3; i++)
		ROCE_TEST_ASSERT_EQ(roce_test_post_send(f.qp, IBV_WR_SEND, i, buf, 8, mr->lkey, 0, 0,
							i == 0 ? IBV_SEND_SIGNALED : 0),
				    0, "post %d", i);
	if (push_n(f.cq, 100, 2) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(f.cq, 4), -EINVAL, "2 held and 3 owed");
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(f.cq, 5), 0, "5");
	ROCE_TEST_ASSERT_EQ(f.cq->cqe, 8, "rounded up");
	if (poll_in_order(f.cq, 100, 2, true) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(f.cq, 2), -EINVAL, "3 owed");
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(f.cq, 3), 0, "3");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(f.qp), 0, "destroy qp");
	f.qp = NULL;
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), 0, "dereg");
	ROCE_TEST_ASSERT_EQ(rte_roce_cq_resize(f.cq, 1), 0, "nothing owed once its QP is gone");
	return fx_close(&f);
}

/*
 * The consumer guard: a poll that finds another thread polling (or
 * resizing) the CQ gets 0 and takes nothing; the completions stay for the
 * holder.
 */
static int
test_cq_poll_guard(void)
{
	struct ibv_wc wc;
	struct fx f;

	if (fx_open(&f, NULL) != 0 || push_n(f.cq, 7, 1) != 0)
		return -1;
	__atomic_store_n(&roce_cq_of(f.cq)->polling, 1, __ATOMIC_RELEASE);
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(f.cq, 1, &wc), 0, "another thread holds the CQ");
	__atomic_store_n(&roce_cq_of(f.cq)->polling, 0, __ATOMIC_RELEASE);
	if (poll_in_order(f.cq, 7, 1, true) != 0)
		return -1;
	return fx_close(&f);
}

/* ---- QPs: create ---- */

static int
test_qp_create_misuse(void)
{
	struct rte_roce_dev_conf conf = { .max_qp = 2, .max_qp_wr = 64, .max_sge = 4,
					  .max_inline_data = 128 };
	struct ibv_qp_init_attr init, good = { .cap = { .max_send_wr = 3, .max_recv_wr = 5,
							.max_send_sge = 2, .max_recv_sge = 3,
							.max_inline_data = 10 },
					       .qp_type = IBV_QPT_RC, .sq_sig_all = 1 };
	struct ibv_context *ctx = rte_roce_open_device(port_a, &conf);
	struct ibv_context *other = rte_roce_open_device(port_b, NULL);
	struct ibv_cq *cq, *foreign;
	struct ibv_qp *qp, *qp2;
	struct ibv_qp_init_attr qinit;
	struct ibv_qp_attr qattr;
	struct ibv_srq_init_attr sinit = { .attr = { .max_wr = 1 } };
	struct ibv_pd *pd, *opd;
	struct ibv_srq *srq;
	uint32_t qpn;

	ROCE_TEST_ASSERT(ctx != NULL && other != NULL, "open");
	pd = rte_roce_alloc_pd(ctx);
	cq = rte_roce_create_cq(ctx, 16, NULL, NULL, 0);
	foreign = rte_roce_create_cq(other, 16, NULL, NULL, 0);
	opd = rte_roce_alloc_pd(other);
	srq = opd != NULL ? rte_roce_create_srq(opd, &sinit) : NULL;
	ROCE_TEST_ASSERT(pd != NULL && cq != NULL && foreign != NULL && srq != NULL, "objects");
	good.send_cq = cq;
	good.recv_cq = cq;
#define CREATE_FAILS(field_edit, err, why) do {					\
		init = good;							\
		field_edit;							\
		rte_errno = 0;							\
		ROCE_TEST_ASSERT(rte_roce_create_qp(pd, &init) == NULL &&	\
				 rte_errno == (err), why ": %s", rte_strerror(rte_errno)); \
	} while (0)
	CREATE_FAILS(init.send_cq = NULL, EINVAL, "NULL send CQ");
	CREATE_FAILS(init.recv_cq = NULL, EINVAL, "NULL recv CQ");
	CREATE_FAILS(init.recv_cq = foreign, EINVAL, "CQ of another device");
	CREATE_FAILS(init.qp_type = IBV_QPT_RAW_PACKET, EINVAL, "raw packet");
	CREATE_FAILS(init.qp_type = IBV_QPT_XRC_SEND, EINVAL, "XRC");
	CREATE_FAILS(init.srq = srq, EINVAL, "SRQ of another device");
	CREATE_FAILS(init.cap.max_send_wr = 65, EINVAL, "send WRs");
	CREATE_FAILS(init.cap.max_recv_wr = 65, EINVAL, "recv WRs");
	CREATE_FAILS(init.cap.max_send_sge = 5, EINVAL, "send SGEs");
	CREATE_FAILS(init.cap.max_recv_sge = 5, EINVAL, "recv SGEs");
	CREATE_FAILS(init.cap.max_inline_data = 129, EINVAL, "inline");
#undef CREATE_FAILS
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_create_qp(NULL, &good) == NULL && rte_errno == EINVAL, "NULL pd");
	ROCE_TEST_ASSERT(rte_roce_create_qp(pd, NULL) == NULL && rte_errno == EINVAL, "NULL attr");

	init = good;
	qp = rte_roce_create_qp(pd, &init);
	ROCE_TEST_ASSERT(qp != NULL, "create");
	ROCE_TEST_ASSERT(qp->state == IBV_QPS_RESET && qp->qp_num >= ROCE_QPN_FIRST &&
			 qp->qp_num <= ROCE_QPN_MAX, "RESET, QPN 0x%x", qp->qp_num);
	ROCE_TEST_ASSERT(init.cap.max_send_wr == 4 && init.cap.max_recv_wr == 8 &&
			 init.cap.max_send_sge == 2 && init.cap.max_recv_sge == 3 &&
			 init.cap.max_inline_data >= 10, "caps granted upward");
	ROCE_TEST_ASSERT(roce_dev_qp_lookup(roce_dev_of(ctx), qp->qp_num) == roce_qp_of(qp),
			 "lookup by QPN");
	ROCE_TEST_ASSERT(roce_dev_qp_lookup(roce_dev_of(ctx), 1) == NULL, "QP1 not there");
	ROCE_TEST_ASSERT(roce_dev_qp_lookup(roce_dev_of(ctx), 1u << 24) == NULL, "QPN > 24 bits");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(qp, &qattr, 0, &qinit), 0, "query");
	ROCE_TEST_ASSERT(qinit.cap.max_send_wr == 4 && qinit.sq_sig_all == 1 &&
			 qinit.send_cq == cq && qattr.qp_state == IBV_QPS_RESET, "query values");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(NULL, &qattr, 0, &qinit), -EINVAL, "query NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(qp, NULL, 0, &qinit), -EINVAL, "query NULL attr");
	qp2 = rte_roce_create_qp(pd, &init);
	ROCE_TEST_ASSERT(qp2 != NULL, "second");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_create_qp(pd, &init) == NULL && rte_errno == ENOSPC, "max_qp");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(cq), -EBUSY, "CQ in use");
	ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(pd), -EBUSY, "PD in use");
	/* A reused slot gets a new QPN: late packets for the old QP find nothing. */
	qpn = qp->qp_num;
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp), 0, "destroy");
	ROCE_TEST_ASSERT(roce_dev_qp_lookup(roce_dev_of(ctx), qpn) == NULL, "gone");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(NULL), -EINVAL, "destroy NULL");
	qp = rte_roce_create_qp(pd, &init);
	ROCE_TEST_ASSERT(qp != NULL && qp->qp_num != qpn, "new QPN");
	ROCE_TEST_ASSERT(roce_dev_qp_lookup(roce_dev_of(ctx), qpn) == NULL, "old QPN misses");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp), 0, "destroy");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp2), 0, "destroy");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(cq), 0, "cq");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(foreign), 0, "cq");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_srq(srq), 0, "srq");
	ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(opd), 0, "pd of the other device");
	ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(pd), 0, "pd");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), 0, "close");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(other), 0, "close other");
	return 0;
}

/* ---- QPs: the state table, exhaustively ---- */

/* One modify that must be refused: -EINVAL, logged, state unchanged. */
static int
expect_refused(struct ibv_qp *qp, enum ibv_qp_state next, int mask, const char *why)
{
	enum ibv_qp_state cur = qp->state;
	size_t pos = roce_test_log_pos();

	ROCE_TEST_ASSERT_EQ(modify(qp, next, mask), -EINVAL, "%d -> %d mask 0x%x: %s",
			    cur, next, mask, why);
	ROCE_TEST_ASSERT(roce_test_log_pos() > pos, "%d -> %d mask 0x%x refused without a log line",
			 cur, next, mask);
	ROCE_TEST_ASSERT_EQ(qp->state, cur, "state unchanged after refusal");
	return 0;
}

/* Check every (cur, next) pair and, for valid pairs, every mask bit. */
static int
check_transition(struct ibv_qp *qp, enum ibv_qp_state cur, enum ibv_qp_state next,
		 unsigned int *checked)
{
	const struct qpt_row *row = row_find(qp->qp_type, cur, next);
	int bit, mask, base = IBV_QP_STATE;

	if (drive_to(qp, cur) != 0)
		return -1;
	if (row == NULL) {
		(*checked)++;
		return expect_refused(qp, next, IBV_QP_STATE, "no such transition");
	}
	base |= row->req;
	for (bit = 1; bit < NB_MASK_BITS; bit++) {
		mask = 1 << bit;
		if (drive_to(qp, cur) != 0)
			return -1;
		(*checked)++;
		if (row->req & mask) {
			if (expect_refused(qp, next, base & ~mask, "required attribute missing"))
				return -1;
		} else if ((row->opt & mask) == 0) {
			if (expect_refused(qp, next, base | mask, "attribute not allowed"))
				return -1;
		} else if (mask == IBV_QP_ALT_PATH) {
			/* Optional in the table, but RoCE has no alternate path. */
			if (expect_refused(qp, next, base | mask, "alternate path on RoCE"))
				return -1;
		} else {
			ROCE_TEST_ASSERT_EQ(modify(qp, next, base | mask), 0,
					    "%d -> %d optional 0x%x", cur, next, mask);
			ROCE_TEST_ASSERT_EQ(qp->state, next, "moved");
		}
	}
	if (drive_to(qp, cur) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(modify(qp, next, base), 0, "%d -> %d with the required set",
			    cur, next);
	ROCE_TEST_ASSERT_EQ(qp->state, next, "moved");
	return 0;
}

static int
test_qp_state_table(void)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	unsigned int t, cur, next, checked = 0;
	struct fx f;

	if (fx_open(&f, NULL) != 0)
		return -1;
	for (t = 0; t < RTE_DIM(types); t++) {
		f.qp->qp_type = types[t];
		for (cur = 0; cur < NB_QP_STATES; cur++)
			for (next = 0; next < NB_QP_STATES; next++)
				if (check_transition(f.qp, cur, next, &checked) != 0) {
					printf("# QP type %d\n", types[t]);
					return -1;
				}
	}
	f.qp->qp_type = IBV_QPT_RC;
	printf("# %u transition/attribute combinations checked\n", checked);
	/* Without IBV_QP_STATE the transition is cur -> cur. */
	if (drive_to(f.qp, IBV_QPS_RTS) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(modify(f.qp, IBV_QPS_RTS, IBV_QP_TIMEOUT), -EINVAL,
			    "RTS -> RTS: timeout not modifiable");
	ROCE_TEST_ASSERT_EQ(modify(f.qp, IBV_QPS_RTS, IBV_QP_MIN_RNR_TIMER), 0,
			    "RTS -> RTS: min_rnr_timer");
	ROCE_TEST_ASSERT_EQ(modify(f.qp, IBV_QPS_ERR, 0), 0, "empty mask: no change");
	ROCE_TEST_ASSERT_EQ(f.qp->state, IBV_QPS_RTS, "still RTS");
	ROCE_TEST_ASSERT_EQ(modify(f.qp, 99, IBV_QP_STATE), -EINVAL, "unknown state");
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(NULL, NULL, 0), -EINVAL, "NULL");
	return fx_close(&f);
}

/* ---- QPs: values ---- */

static int
bad_value(struct ibv_qp *qp, enum ibv_qp_state next, int mask,
	  void (*edit)(struct ibv_qp_attr *), const char *why)
{
	enum ibv_qp_state cur = qp->state;
	struct ibv_qp_attr a;
	size_t pos = roce_test_log_pos();

	good_attr(&a, next);
	a.cur_qp_state = cur;
	edit(&a);
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &a, mask), -EINVAL, "%s", why);
	ROCE_TEST_ASSERT(roce_test_log_pos() > pos, "%s: not logged", why);
	ROCE_TEST_ASSERT_EQ(qp->state, cur, "state unchanged");
	return 0;
}

static void mtu0(struct ibv_qp_attr *a) { a->path_mtu = 0; }
static void mtu6(struct ibv_qp_attr *a) { a->path_mtu = IBV_MTU_4096 + 1; }
static void mtu4096(struct ibv_qp_attr *a) { a->path_mtu = IBV_MTU_4096; }
static void rq_psn(struct ibv_qp_attr *a) { a->rq_psn = 1u << 24; }
static void dqpn(struct ibv_qp_attr *a) { a->dest_qp_num = 1u << 24; }
static void dest_rd(struct ibv_qp_attr *a) { a->max_dest_rd_atomic = 17; }
static void rnr_timer(struct ibv_qp_attr *a) { a->min_rnr_timer = 32; }
static void not_global(struct ibv_qp_attr *a) { a->ah_attr.is_global = 0; }
static void sgid_free(struct ibv_qp_attr *a) { a->ah_attr.grh.sgid_index = 15; }
static void sgid_big(struct ibv_qp_attr *a) { a->ah_attr.grh.sgid_index = 200; }
static void av_port(struct ibv_qp_attr *a) { a->ah_attr.port_num = 2; }
static void dgid_v6(struct ibv_qp_attr *a) { memset(a->ah_attr.grh.dgid.raw, 0x20, 1); }
static void dgid_mc(struct ibv_qp_attr *a) { a->ah_attr.grh.dgid.raw[12] = 224; }
static void dgid_bc(struct ibv_qp_attr *a) { memset(&a->ah_attr.grh.dgid.raw[12], 0xff, 4); }
static void
dgid_v6_zero(struct ibv_qp_attr *a)
{
	a->ah_attr.grh.sgid_index = LOCAL_SGID_INDEX_V6;
	memset(a->ah_attr.grh.dgid.raw, 0, 16);
}

static void
dgid_v6_mc(struct ibv_qp_attr *a)
{
	a->ah_attr.grh.sgid_index = LOCAL_SGID_INDEX_V6;
	rte_roce_gid_parse("ff02::1", (union rte_roce_gid *)a->ah_attr.grh.dgid.raw);
}
static void access_bad(struct ibv_qp_attr *a) { a->qp_access_flags = IBV_ACCESS_MW_BIND; }
static void pkey1(struct ibv_qp_attr *a) { a->pkey_index = 1; }
static void port2(struct ibv_qp_attr *a) { a->port_num = 2; }
static void sq_psn(struct ibv_qp_attr *a) { a->sq_psn = 1u << 24; }
static void timeout(struct ibv_qp_attr *a) { a->timeout = 32; }
static void retry(struct ibv_qp_attr *a) { a->retry_cnt = 8; }
static void rnr_retry(struct ibv_qp_attr *a) { a->rnr_retry = 8; }
static void rd_atomic(struct ibv_qp_attr *a) { a->max_rd_atomic = 17; }
static void cur_state(struct ibv_qp_attr *a) { a->cur_qp_state = IBV_QPS_SQD; }

static int
test_qp_values(void)
{
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	size_t pos;
	struct fx f;

	if (fx_open(&f, NULL) != 0 || drive_to(f.qp, IBV_QPS_RESET) != 0)
		return -1;
	if (bad_value(f.qp, IBV_QPS_INIT, INIT_MASK, access_bad, "unknown access flag") ||
	    bad_value(f.qp, IBV_QPS_INIT, INIT_MASK, pkey1, "pkey_index 1") ||
	    bad_value(f.qp, IBV_QPS_INIT, INIT_MASK, port2, "port 2"))
		return -1;
	if (drive_to(f.qp, IBV_QPS_INIT) != 0)
		return -1;
	pos = roce_test_log_pos();
	if (bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, mtu4096, "path MTU above the port's"))
		return -1;
	/* The port runs at Ethernet MTU 1500: IB MTU 1024, 4096 needs 4176. */
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "path_mtu 4096 is above the port's IB MTU "
						"1024 (Ethernet MTU 1500") &&
			 roce_test_logged_since(pos, "rte_roce_port_conf::mtu) to at least 4176"),
			 "the refusal names the port's MTU and what it needs");
	if (bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, mtu0, "path MTU 0") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, mtu6, "path MTU 6") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, rq_psn, "rq_psn 2^24") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, dqpn, "dest QPN 2^24") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, dest_rd, "max_dest_rd_atomic 17") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, rnr_timer, "min_rnr_timer 32") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, not_global, "AV not global") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, sgid_free, "sgid_index of a free entry") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, sgid_big, "sgid_index past the table") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, av_port, "AV port 2") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, dgid_v6, "IPv6 peer from an IPv4 GID") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, dgid_mc, "IPv4 multicast peer") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, dgid_bc, "IPv4 broadcast peer") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, dgid_v6_zero, "unspecified IPv6 peer") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK, dgid_v6_mc, "IPv6 multicast peer") ||
	    bad_value(f.qp, IBV_QPS_RTR, RTR_MASK | IBV_QP_CUR_STATE, cur_state,
		      "cur_qp_state not the QP's"))
		return -1;
	if (drive_to(f.qp, IBV_QPS_RTR) != 0)
		return -1;
	if (bad_value(f.qp, IBV_QPS_RTS, RTS_MASK, sq_psn, "sq_psn 2^24") ||
	    bad_value(f.qp, IBV_QPS_RTS, RTS_MASK, timeout, "timeout 32") ||
	    bad_value(f.qp, IBV_QPS_RTS, RTS_MASK, retry, "retry_cnt 8") ||
	    bad_value(f.qp, IBV_QPS_RTS, RTS_MASK, rnr_retry, "rnr_retry 8") ||
	    bad_value(f.qp, IBV_QPS_RTS, RTS_MASK, rd_atomic, "max_rd_atomic 17"))
		return -1;
	/* Limits at their edges are accepted, and query returns them. */
	good_attr(&qa, IBV_QPS_RTS);
	qa.sq_psn = 0xffffff;
	qa.timeout = 31;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 16;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(f.qp, &qa, RTS_MASK), 0, "edges");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(f.qp, &qa, 0, &qi), 0, "query");
	ROCE_TEST_ASSERT(qa.qp_state == IBV_QPS_RTS && qa.sq_psn == 0xffffff && qa.timeout == 31 &&
			 qa.max_rd_atomic == 16 && qa.rq_psn == 0x123456 &&
			 qa.path_mtu == IBV_MTU_1024 && qa.dest_qp_num == 0x11 &&
			 qa.ah_attr.grh.sgid_index == LOCAL_SGID_INDEX, "queried attributes");
	ROCE_TEST_ASSERT_EQ(roce_qp_of(f.qp)->mtu, 1024, "derived MTU");
	return fx_close(&f);
}

/* RTR starts resolving the peer: after a few polls of both sides, its MAC is known. */
static int
test_rtr_resolves_peer(void)
{
	struct ibv_context *peer = rte_roce_open_device(port_b, NULL);
	union rte_roce_gid ip;
	struct rte_ether_addr mac;
	uint64_t deadline;
	struct fx f;
	int rc;

	ROCE_TEST_ASSERT(peer != NULL, "peer device");
	if (fx_open(&f, NULL) != 0 || drive_to(f.qp, IBV_QPS_RTR) != 0)
		return -1;
	rte_roce_gid_parse(PEER_IP, &ip);
	deadline = roce_test_ms() + 1000;
	do {
		ROCE_TEST_ASSERT(rte_roce_poll(f.ctx) >= 0 && rte_roce_poll(peer) >= 0, "poll");
		rc = rte_roce_port_resolve(port_a, &ip, &mac);
		/* An earlier case may have left a failed entry: it expires in milliseconds. */
	} while (rc != 0 && roce_test_ms() < deadline);
	ROCE_TEST_ASSERT_EQ(rc, 0, "peer resolved through the devices' polls");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(peer), 0, "close peer");
	return fx_close(&f);
}

/* ---- posting ---- */

static int
test_post_send_misuse(void)
{
	uint8_t buf[256], data[128];
	struct ibv_sge sge[3], big[2];
	struct ibv_send_wr wr, wr2, *bad;
	struct roce_qp *rqp;
	struct ibv_mr *mr;
	uint32_t prod;
	struct fx f;
	size_t pos;

	if (fx_open(&f, NULL) != 0)
		return -1;
	rqp = roce_qp_of(f.qp);
	mr = rte_roce_reg_mr(f.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ROCE_TEST_ASSERT(mr != NULL, "mr");
	sge[0] = (struct ibv_sge){ (uintptr_t)buf, 8, mr->lkey };
	sge[1] = sge[0];
	sge[2] = sge[0];
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = sge;
	wr.num_sge = 1;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(NULL, &wr, &bad), -EINVAL, "NULL qp");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(f.qp, NULL, &bad), -EINVAL, "NULL wr");
	pos = roce_test_log_pos();
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(f.qp, &wr, NULL), -EINVAL, "NULL bad_wr");
	ROCE_TEST_ASSERT(roce_test_log_pos() > pos, "NULL refusal logged");
	/* RESET, INIT, RTR refuse. */
	bad = NULL;
	ROCE_TEST_ASSERT(rte_roce_post_send(f.qp, &wr, &bad) == -EINVAL && bad == &wr, "RESET");
	if (drive_to(f.qp, IBV_QPS_INIT) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(f.qp, &wr, &bad), -EINVAL, "INIT");
	if (drive_to(f.qp, IBV_QPS_RTR) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(f.qp, &wr, &bad), -EINVAL, "RTR");
	if (drive_to(f.qp, IBV_QPS_RTS) != 0)
		return -1;
	prod = rqp->sq.prod;
#define SEND_FAILS(edit, why) do {						\
		struct ibv_send_wr w = wr;					\
		edit;								\
		bad = NULL;							\
		pos = roce_test_log_pos();						\
		ROCE_TEST_ASSERT(rte_roce_post_send(f.qp, &w, &bad) == -EINVAL &&	\
				 bad == &w, why);				\
		ROCE_TEST_ASSERT(roce_test_log_pos() > pos, why ": not logged");		\
		ROCE_TEST_ASSERT_EQ(rqp->sq.prod, prod, why ": nothing posted");	\
	} while (0)
	SEND_FAILS((w.opcode = IBV_WR_BIND_MW, w.bind_mw.mw = NULL), "BIND_MW without a window");
	SEND_FAILS((w.opcode = IBV_WR_ATOMIC_WRITE, w.wr.rdma.remote_addr = 4),
		   "misaligned ATOMIC_WRITE");
	SEND_FAILS(w.opcode = 99, "unknown opcode");
	SEND_FAILS(w.send_flags = IBV_SEND_IP_CSUM, "IP_CSUM flag");
	SEND_FAILS(w.num_sge = 3, "3 SGEs > max_send_sge 2");
	SEND_FAILS(w.num_sge = -1, "negative num_sge");
	SEND_FAILS(w.sg_list = NULL, "NULL sg_list");
	SEND_FAILS((w.send_flags = IBV_SEND_INLINE, w.sg_list = sge, w.num_sge = 1,
		    sge[0].length = 65), "inline above max_inline_data");
	sge[0].length = 8;
	SEND_FAILS((w.opcode = IBV_WR_RDMA_READ, w.send_flags = IBV_SEND_INLINE), "inline READ");
	SEND_FAILS((w.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD, w.wr.atomic.remote_addr = 4),
		   "misaligned atomic");
	SEND_FAILS((w.opcode = IBV_WR_ATOMIC_CMP_AND_SWP, w.num_sge = 2), "atomic with 2 SGEs");
	SEND_FAILS((w.opcode = IBV_WR_ATOMIC_CMP_AND_SWP, sge[2].length = 4, w.sg_list = &sge[2]),
		   "atomic of 4 bytes");
	big[0] = (struct ibv_sge){ (uintptr_t)buf, 1u << 31, mr->lkey };
	big[1] = (struct ibv_sge){ (uintptr_t)buf, 1, mr->lkey };
	SEND_FAILS((w.sg_list = big, w.num_sge = 2), "message above 2^31");
#undef SEND_FAILS
	/* A bad WR in the middle of a chain: the ones before it are posted. */
	wr2 = wr;
	wr2.opcode = 99;
	wr.next = &wr2;
	ROCE_TEST_ASSERT(rte_roce_post_send(f.qp, &wr, &bad) == -EINVAL && bad == &wr2, "chain");
	ROCE_TEST_ASSERT_EQ(rqp->sq.prod, prod + 1, "first of the chain posted");
	wr.next = NULL;
	/* Exactly 2^31 bytes is allowed (no data is touched at post time). */
	big[0].length = 1u << 31;
	wr2 = wr;
	wr2.sg_list = big;
	wr2.num_sge = 1;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(f.qp, &wr2, &bad), 0, "2^31 bytes");
	ROCE_TEST_ASSERT(roce_sq_wqe(rqp, prod + 1)->sge[0].mr == NULL,
			 "SGE outside its MR: resolved to none, completes LOC_PROT_ERR");
	/* Inline data is copied at post time. */
	memset(data, 0x5a, sizeof(data));
	sge[0] = (struct ibv_sge){ (uintptr_t)data, 40, 0 };
	sge[1] = (struct ibv_sge){ (uintptr_t)(data + 40), 24, 0xdead };
	wr2 = wr;
	wr2.send_flags = IBV_SEND_INLINE;
	wr2.num_sge = 2;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(f.qp, &wr2, &bad), 0, "inline of 64");
	memset(data, 0, sizeof(data));
	{
		struct roce_send_wqe *wqe = roce_sq_wqe(rqp, prod + 2);
		uint8_t posted[64];

		memset(posted, 0x5a, sizeof(posted));
		ROCE_TEST_ASSERT(wqe->length == 64 && wqe->num_sge == 0, "inline WQE");
		ROCE_TEST_ASSERT(memcmp(roce_send_wqe_inline(wqe), posted, sizeof(posted)) == 0,
				 "data as posted, not as the buffer is now");
	}
	/* Queue full: 8 slots, 3 used. */
	{
		struct ibv_send_wr chain[SMALL_DEPTH];
		unsigned int i;

		sge[0] = (struct ibv_sge){ (uintptr_t)buf, 8, mr->lkey };
		for (i = 0; i < SMALL_DEPTH; i++) {
			chain[i] = wr;
			chain[i].wr_id = 100 + i;
			chain[i].next = i + 1 < SMALL_DEPTH ? &chain[i + 1] : NULL;
		}
		ROCE_TEST_ASSERT(rte_roce_post_send(f.qp, chain, &bad) == -ENOMEM &&
				 bad == &chain[SMALL_DEPTH - 3], "full after %d", SMALL_DEPTH - 3);
		ROCE_TEST_ASSERT_EQ(rqp->sq.prod, prod + SMALL_DEPTH, "ring full");
	}
	/* The posted WQEs hold the MR: dereg refuses until they complete (here: flushed). */
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), -EBUSY, "MR used by posted WQEs");
	ROCE_TEST_ASSERT_EQ(modify(f.qp, IBV_QPS_ERR, IBV_QP_STATE), 0, "to ERR");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), 0, "dereg after the flush");
	return fx_close(&f);
}

static int
test_post_recv_misuse(void)
{
	struct ibv_recv_wr wr, chain[SMALL_DEPTH + 1], *bad;
	struct ibv_sge sge[3];
	struct roce_qp *rqp;
	struct ibv_mr *mr;
	uint8_t buf[64];
	unsigned int i;
	struct fx f;

	if (fx_open(&f, NULL) != 0)
		return -1;
	rqp = roce_qp_of(f.qp);
	mr = rte_roce_reg_mr(f.pd, buf, sizeof(buf), 0);
	ROCE_TEST_ASSERT(mr != NULL, "mr without LOCAL_WRITE");
	sge[0] = (struct ibv_sge){ (uintptr_t)buf, 16, mr->lkey };
	sge[1] = sge[0];
	sge[2] = sge[0];
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = sge;
	wr.num_sge = 1;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(NULL, &wr, &bad), -EINVAL, "NULL qp");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(f.qp, NULL, &bad), -EINVAL, "NULL wr");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(f.qp, &wr, NULL), -EINVAL, "NULL bad_wr");
	ROCE_TEST_ASSERT(rte_roce_post_recv(f.qp, &wr, &bad) == -EINVAL && bad == &wr, "RESET");
	if (drive_to(f.qp, IBV_QPS_INIT) != 0)
		return -1;
	wr.num_sge = 3;
	ROCE_TEST_ASSERT(rte_roce_post_recv(f.qp, &wr, &bad) == -EINVAL && bad == &wr, "3 SGEs");
	wr.num_sge = 1;
	sge[0].length = 1u << 31;
	wr.num_sge = 2;
	ROCE_TEST_ASSERT(rte_roce_post_recv(f.qp, &wr, &bad) == -EINVAL && bad == &wr,
			 "above 2^31 in total");
	sge[0].length = 16;
	wr.num_sge = 1;
	ROCE_TEST_ASSERT_EQ(rqp->rq.prod, 0, "nothing posted");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(f.qp, &wr, &bad), 0, "INIT accepts");
	ROCE_TEST_ASSERT(roce_rq_peek(rqp) != NULL && roce_rq_peek(rqp)->sge[0].mr == NULL,
			 "recv SGE without LOCAL_WRITE resolved to none (LOC_PROT_ERR later)");
	for (i = 0; i < RTE_DIM(chain); i++) {
		chain[i] = wr;
		chain[i].next = i + 1 < RTE_DIM(chain) ? &chain[i + 1] : NULL;
	}
	ROCE_TEST_ASSERT(rte_roce_post_recv(f.qp, chain, &bad) == -ENOMEM &&
			 bad == &chain[SMALL_DEPTH - 1], "full");
	ROCE_TEST_ASSERT_EQ(roce_mr_of(mr)->users, 0, "failed resolutions hold nothing");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), 0, "dereg");
	return fx_close(&f);
}

/* Flush to ERR: every WR, signaled or not, completes once with FLUSH_ERR, in posting order. */
static int
test_flush_exactly_once(void)
{
	struct ibv_send_wr swr[5], *sbad;
	struct ibv_recv_wr rwr[3], *rbad;
	struct ibv_wc wc[16];
	struct ibv_sge sge;
	struct ibv_mr *mr;
	uint8_t buf[64];
	unsigned int i;
	struct fx f;
	int n;

	if (fx_open(&f, NULL) != 0 || drive_to(f.qp, IBV_QPS_RTS) != 0)
		return -1;
	mr = rte_roce_reg_mr(f.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ROCE_TEST_ASSERT(mr != NULL, "mr");
	sge = (struct ibv_sge){ (uintptr_t)buf, 8, mr->lkey };
	for (i = 0; i < RTE_DIM(rwr); i++) {
		memset(&rwr[i], 0, sizeof(rwr[i]));
		rwr[i].wr_id = 1000 + i;
		rwr[i].sg_list = &sge;
		rwr[i].num_sge = 1;
		rwr[i].next = i + 1 < RTE_DIM(rwr) ? &rwr[i + 1] : NULL;
	}
	for (i = 0; i < RTE_DIM(swr); i++) {
		memset(&swr[i], 0, sizeof(swr[i]));
		swr[i].wr_id = i;
		swr[i].opcode = i % 2 ? IBV_WR_RDMA_WRITE : IBV_WR_SEND;
		swr[i].send_flags = i % 2 ? 0 : IBV_SEND_SIGNALED;	/* unsignaled too */
		swr[i].sg_list = &sge;
		swr[i].num_sge = 1;
		swr[i].next = i + 1 < RTE_DIM(swr) ? &swr[i + 1] : NULL;
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(f.qp, rwr, &rbad), 0, "recv");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(f.qp, swr, &sbad), 0, "send");
	ROCE_TEST_ASSERT_EQ(roce_mr_of(mr)->users, 8, "8 WQEs hold the MR");
	ROCE_TEST_ASSERT_EQ(modify(f.qp, IBV_QPS_ERR, IBV_QP_STATE), 0, "to ERR");
	n = rte_roce_poll_cq(f.cq, RTE_DIM(wc), wc);
	ROCE_TEST_ASSERT_EQ(n, 8, "one completion per WR");
	for (i = 0; i < 8; i++) {
		ROCE_TEST_ASSERT_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR, "status %u", i);
		ROCE_TEST_ASSERT_EQ(wc[i].qp_num, f.qp->qp_num, "qp_num %u", i);
	}
	/* Send queue first (flushed first), each queue in posting order. */
	for (i = 0; i < RTE_DIM(swr); i++)
		ROCE_TEST_ASSERT_EQ(wc[i].wr_id, i, "send order");
	ROCE_TEST_ASSERT_EQ(wc[1].opcode, IBV_WC_RDMA_WRITE, "opcode kept");
	for (i = 0; i < RTE_DIM(rwr); i++)
		ROCE_TEST_ASSERT_EQ(wc[5 + i].wr_id, 1000 + i, "recv order");
	ROCE_TEST_ASSERT_EQ(roce_mr_of(mr)->users, 0, "MR released");
	/* Nothing more, even after polls and a second move to ERR. */
	ROCE_TEST_ASSERT(rte_roce_poll(f.ctx) >= 0, "poll");
	ROCE_TEST_ASSERT_EQ(modify(f.qp, IBV_QPS_ERR, IBV_QP_STATE), 0, "ERR -> ERR");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(f.cq, RTE_DIM(wc), wc), 0, "exactly once");
	/* Posting in ERR is accepted; the progress loop flushes at once. */
	swr[1].next = NULL;
	rwr[0].next = NULL;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(f.qp, &swr[0], &sbad), 0, "post_send in ERR");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(f.qp, &rwr[0], &rbad), 0, "post_recv in ERR");
	ROCE_TEST_ASSERT(rte_roce_poll(f.ctx) >= 0, "poll");
	n = rte_roce_poll_cq(f.cq, RTE_DIM(wc), wc);
	ROCE_TEST_ASSERT_EQ(n, 3, "3 WRs posted in ERR flushed");
	ROCE_TEST_ASSERT(wc[0].wr_id == 0 && wc[1].wr_id == 1 && wc[2].wr_id == 1000 &&
			 wc[2].opcode == IBV_WC_RECV && wc[2].status == IBV_WC_WR_FLUSH_ERR,
			 "flushed in order");
	ROCE_TEST_ASSERT(rte_roce_poll(f.ctx) >= 0, "poll");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(f.cq, RTE_DIM(wc), wc), 0, "none more");
	/* RESET drops without completions; the QP works again from INIT. */
	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(f.qp, &rwr[0], &rbad), 0, "post in ERR");
	ROCE_TEST_ASSERT_EQ(modify(f.qp, IBV_QPS_RESET, IBV_QP_STATE), 0, "to RESET");
	ROCE_TEST_ASSERT(rte_roce_poll(f.ctx) >= 0, "poll");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(f.cq, RTE_DIM(wc), wc), 0, "RESET completes nothing");
	ROCE_TEST_ASSERT_EQ(roce_mr_of(mr)->users, 0, "RESET released the MR");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), 0, "dereg");
	return fx_close(&f);
}

/* sq_sig_all marks every WQE signaled; SQD holds WQEs; destroy with posted WQEs releases MRs. */
static int
test_sig_all_sqd_destroy(void)
{
	struct ibv_qp_init_attr init = { .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						  .max_send_sge = 1, .max_recv_sge = 1 },
					 .qp_type = IBV_QPT_RC, .sq_sig_all = 1 };
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	uint8_t buf[16];
	struct fx f;

	if (fx_open(&f, NULL) != 0)
		return -1;
	init.send_cq = f.cq;
	init.recv_cq = f.cq;
	qp = rte_roce_create_qp(f.pd, &init);
	ROCE_TEST_ASSERT(qp != NULL, "qp");
	if (drive_to(qp, IBV_QPS_SQD) != 0)
		return -1;
	mr = rte_roce_reg_mr(f.pd, buf, sizeof(buf), 0);
	ROCE_TEST_ASSERT(mr != NULL, "mr");
	sge = (struct ibv_sge){ (uintptr_t)buf, 8, mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(qp, &wr, &bad), 0, "post in SQD");
	ROCE_TEST_ASSERT(roce_sq_wqe(roce_qp_of(qp), 0)->send_flags & IBV_SEND_SIGNALED,
			 "sq_sig_all");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), -EBUSY, "in use");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp), 0, "destroy with a posted WQE");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(f.cq, 1, &(struct ibv_wc){ 0 }), 0,
			    "destroy completes nothing");
	ROCE_TEST_ASSERT(rte_roce_poll(f.ctx) >= 0, "stale doorbell ignored");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), 0, "released by destroy");
	return fx_close(&f);
}

/* SQE (UC/UD only; forced here): sends are flushed, receives stay posted. */
static int
test_post_in_sqe(void)
{
	struct ibv_send_wr swr = { .wr_id = 7, .opcode = IBV_WR_SEND };
	struct ibv_recv_wr rwr = { .wr_id = 8 };
	struct ibv_send_wr *sbad;
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc[4];
	struct fx f;

	if (fx_open(&f, NULL) != 0 || drive_to(f.qp, IBV_QPS_SQE) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(f.qp, &swr, &sbad), 0, "post_send in SQE");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(f.qp, &rwr, &rbad), 0, "post_recv in SQE");
	ROCE_TEST_ASSERT(rte_roce_poll(f.ctx) >= 0, "poll");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(f.cq, RTE_DIM(wc), wc), 1, "the send flushed");
	ROCE_TEST_ASSERT(wc[0].wr_id == 7 && wc[0].status == IBV_WC_WR_FLUSH_ERR, "send");
	ROCE_TEST_ASSERT(roce_rq_peek(roce_qp_of(f.qp)) != NULL, "the receive still posted");
	ROCE_TEST_ASSERT_EQ(modify(f.qp, IBV_QPS_ERR, IBV_QP_STATE), 0, "to ERR");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(f.cq, RTE_DIM(wc), wc), 1, "the receive flushed");
	ROCE_TEST_ASSERT(wc[0].wr_id == 8 && wc[0].opcode == IBV_WC_RECV, "receive");
	return fx_close(&f);
}

/* ---- threads: posting and polling on one thread, progress on another ---- */

#define XT_MSGS		256
#define XT_LEN		64
#define XT_TIMEOUT_MS	10000

struct xt_progress {
	struct ibv_context *ctx[2];
	bool stop;	/* written by the test thread, read here (atomics) */
};

/* The progress thread: the owner of both devices while the test thread posts and polls. */
static void *
xt_progress_loop(void *arg)
{
	struct xt_progress *p = arg;

	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		rte_roce_poll(p->ctx[0]);
		rte_roce_poll(p->ctx[1]);
	}
	return NULL;
}

/* RESET -> RTS towards a peer QP: good_attr() with the peer's address and QPN. */
static int
xt_connect(struct ibv_qp *qp, uint32_t dest_qpn, const char *peer_ip)
{
	union rte_roce_gid peer;
	struct ibv_qp_attr a;

	ROCE_TEST_ASSERT_EQ(modify(qp, IBV_QPS_INIT, INIT_MASK), 0, "INIT");
	good_attr(&a, IBV_QPS_RTR);
	rte_roce_gid_parse(peer_ip, &peer);
	memcpy(a.ah_attr.grh.dgid.raw, peer.raw, sizeof(peer.raw));
	a.dest_qp_num = dest_qpn;
	a.rq_psn = 0x100;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &a, RTR_MASK), 0, "RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x100;
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &a, RTS_MASK), 0, "RTS");
	return 0;
}

/* Poll cq until n completions with status SUCCESS and the given opcode arrived. */
static int
xt_wait(struct ibv_cq *cq, unsigned int n, enum ibv_wc_opcode opcode, uint8_t *dst)
{
	uint64_t deadline = roce_test_ms() + XT_TIMEOUT_MS;
	unsigned int got = 0;
	struct ibv_wc wc[16];
	int i, k;

	while (got < n && roce_test_ms() < deadline) {
		k = rte_roce_poll_cq(cq, RTE_DIM(wc), wc);
		ROCE_TEST_ASSERT(k >= 0, "poll_cq: %d", k);
		for (i = 0; i < k; i++, got++) {
			ROCE_TEST_ASSERT(wc[i].status == IBV_WC_SUCCESS && wc[i].opcode == opcode,
					 "completion %u: status %d opcode %d", got, wc[i].status,
					 wc[i].opcode);
			ROCE_TEST_ASSERT_EQ(wc[i].wr_id, got, "in posting order");
			if (dst != NULL)
				ROCE_TEST_ASSERT(wc[i].byte_len == XT_LEN &&
						 dst[got * XT_LEN] == (uint8_t)got &&
						 dst[got * XT_LEN + XT_LEN - 1] == (uint8_t)got,
						 "message %u data", got);
		}
	}
	ROCE_TEST_ASSERT_EQ(got, n, "completions before the timeout");
	return 0;
}

static int
test_cross_thread(void)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = XT_MSGS, .max_recv_wr = XT_MSGS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC, .sq_sig_all = 1,
	};
	struct xt_progress prog = { .stop = false };
	uint8_t *src = NULL, *dst = NULL;
	struct ibv_cq *cq[2] = { NULL, NULL };
	struct ibv_qp *qp[2] = { NULL, NULL };
	struct ibv_pd *pd[2] = { NULL, NULL };
	struct ibv_mr *mr[2] = { NULL, NULL };
	struct ibv_send_wr swr, *sbad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge sge;
	pthread_t thread;
	unsigned int i;
	int side, rc;

	prog.ctx[0] = rte_roce_open_device(port_a, NULL);
	prog.ctx[1] = rte_roce_open_device(port_b, NULL);
	src = rte_zmalloc(NULL, XT_MSGS * XT_LEN, 0);
	dst = rte_zmalloc(NULL, XT_MSGS * XT_LEN, 0);
	ROCE_TEST_ASSERT(prog.ctx[0] && prog.ctx[1] && src && dst, "devices, buffers");
	for (side = 0; side < 2; side++) {
		pd[side] = rte_roce_alloc_pd(prog.ctx[side]);
		cq[side] = rte_roce_create_cq(prog.ctx[side], 2 * XT_MSGS, NULL, NULL, 0);
		ROCE_TEST_ASSERT(pd[side] != NULL && cq[side] != NULL, "pd, cq");
		init.send_cq = cq[side];
		init.recv_cq = cq[side];
		qp[side] = rte_roce_create_qp(pd[side], &init);
		mr[side] = rte_roce_reg_mr(pd[side], side == 0 ? src : dst, XT_MSGS * XT_LEN,
					   IBV_ACCESS_LOCAL_WRITE);
		ROCE_TEST_ASSERT(qp[side] != NULL && mr[side] != NULL, "qp, mr");
	}
	if (xt_connect(qp[0], qp[1]->qp_num, PEER_IP) != 0 ||
	    xt_connect(qp[1], qp[0]->qp_num, "10.0.0.1") != 0)
		return -1;
	/* From here on, the devices belong to the progress thread; this one posts and polls. */
	ROCE_TEST_ASSERT_EQ(pthread_create(&thread, NULL, xt_progress_loop, &prog), 0, "thread");
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	for (i = 0; i < XT_MSGS; i++) {
		sge = (struct ibv_sge){ (uintptr_t)(dst + i * XT_LEN), XT_LEN, mr[1]->lkey };
		rwr.wr_id = i;
		rc = rte_roce_post_recv(qp[1], &rwr, &rbad);
		if (rc != 0)
			break;
	}
	memset(&swr, 0, sizeof(swr));
	swr.opcode = IBV_WR_SEND;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	for (i = 0; i < XT_MSGS && rc == 0; i++) {
		memset(src + i * XT_LEN, (int)i, XT_LEN);
		sge = (struct ibv_sge){ (uintptr_t)(src + i * XT_LEN), XT_LEN, mr[0]->lkey };
		swr.wr_id = i;
		rc = rte_roce_post_send(qp[0], &swr, &sbad);
	}
	if (rc == 0)
		rc = xt_wait(cq[0], XT_MSGS, IBV_WC_SEND, NULL);
	if (rc == 0)
		rc = xt_wait(cq[1], XT_MSGS, IBV_WC_RECV, dst);
	__atomic_store_n(&prog.stop, true, __ATOMIC_RELEASE);
	pthread_join(thread, NULL);
	ROCE_TEST_ASSERT_EQ(rc, 0, "posted from one thread, progressed by another");
	for (side = 0; side < 2; side++) {
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp[side]), 0, "qp");
		ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr[side]), 0, "mr");
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(cq[side]), 0, "cq");
		ROCE_TEST_ASSERT_EQ(rte_roce_dealloc_pd(pd[side]), 0, "pd");
		ROCE_TEST_ASSERT_EQ(rte_roce_close_device(prog.ctx[side]), 0, "close");
	}
	rte_free(src);
	rte_free(dst);
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "device_misuse", test_device_misuse },
	{ "query_device_port_gid", test_query_device_port_gid },
	{ "pd_misuse", test_pd_misuse },
	{ "mr_reg_misuse", test_mr_reg_misuse },
	{ "mr_lookup_keys", test_mr_lookup_keys },
	{ "sge_copy", test_sge_copy },
	{ "cq_misuse", test_cq_misuse },
	{ "cq_overrun", test_cq_overrun },
	{ "cq_resize", test_cq_resize },
	{ "cq_resize_owed", test_cq_resize_owed },
	{ "cq_poll_guard", test_cq_poll_guard },
	{ "qp_create_misuse", test_qp_create_misuse },
	{ "qp_state_table", test_qp_state_table },
	{ "qp_values", test_qp_values },
	{ "rtr_resolves_peer", test_rtr_resolves_peer },
	{ "post_send_misuse", test_post_send_misuse },
	{ "post_recv_misuse", test_post_recv_misuse },
	{ "flush_exactly_once", test_flush_exactly_once },
	{ "sig_all_sqd_destroy", test_sig_all_sqd_destroy },
	{ "post_in_sqe", test_post_in_sqe },
	{ "cross_thread", test_cross_thread },
};

int
main(int argc, char **argv)
{
	static const char *const addrs_a[] = { "10.0.0.1/24", "fd00::1/64", NULL };
	static const char *const addrs_b[] = { PEER_IP "/24", NULL };
	int rc;

	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&pair, "verbs") != 0)
		return 1;
	port_a = roce_test_port(pair.a, NULL, addrs_a);
	port_b = roce_test_port(pair.b, NULL, addrs_b);
	if (port_a == NULL || port_b == NULL)
		return 1;
	/* Refusals are logged: capture the log to check that each one says why. */
	if (roce_test_log_capture() != 0)
		return 1;
	rc = roce_test_run(cases, RTE_DIM(cases));
	roce_test_pair_drain(&pair);
	roce_test_log_release();
	rte_roce_port_destroy(port_a);
	rte_roce_port_destroy(port_b);
	return rc;
}
