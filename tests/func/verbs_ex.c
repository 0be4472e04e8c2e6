/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The extended verbs through the drop-in layer (doc/verbs-abi.md, "The
 * extended verbs"), as a plain libibverbs program run under roce-run by
 * test_verbs_ex.py with one net_ring device, roce0 (it receives what it
 * sends, so two RC QPs of it talk to each other). TAP output.
 * ibv_query_device_ex; ibv_create_cq_ex polled with ibv_start_poll /
 * next_poll / end_poll and the readers; ibv_create_qp_ex with
 * send_ops_flags and every ibv_wr_* builder and setter librte_roce has, on
 * RC and UD; and the refusals and misuse: send_ops_flags and wc_flags not
 * supported, ibv_wr_complete() without ibv_wr_start(), a setter before a
 * builder, inline data too long, a batch with one bad WR (nothing posted),
 * ibv_wr_abort(), a builder of an operation not supported.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "roce_test_ok.h"

#define QKEY 0x11111111
#define MSG 64
#define MAX_INLINE 64
#define POLL_TRIES 2000000
#define QUIET_TRIES 20000	/* polls that find nothing: long enough for a wrong completion */
#define GID_INDEX 1	/* the configured IPv4 address (0 is the link-local one) */

/* Buffers of one QP: what it sends from, receives into, and the target of the peer's RDMA. */
struct bufs {
	char send[MSG], recv[4][MSG + 40], target[MSG];
	uint64_t atomic __attribute__((aligned(8)));
	uint64_t result __attribute__((aligned(8)));
};

struct end {
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_mr *mr;
	struct bufs *b;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;

static struct ibv_cq_ex *
cq_ex(uint64_t wc_flags)
{
	struct ibv_cq_init_attr_ex attr = { .cqe = 64, .wc_flags = wc_flags };

	return ibv_create_cq_ex(ctx, &attr);
}

static struct ibv_qp *
qp_ex(enum ibv_qp_type type, struct ibv_cq_ex *cq, uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = type, .send_cq = ibv_cq_ex_to_cq(cq), .recv_cq = ibv_cq_ex_to_cq(cq),
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 4,
			 .max_recv_sge = 1, .max_inline_data = MAX_INLINE },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd, .send_ops_flags = send_ops,
	};

	return ibv_create_qp_ex(ctx, &attr);
}

/* RESET -> INIT -> RTR -> RTS, RC to dest_qpn on this device, or UD. */
static int
qp_ready(struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
	bool rc = qp->qp_type == IBV_QPT_RC;

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  (rc ? IBV_QP_ACCESS_FLAGS : IBV_QP_QKEY)))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr = (struct ibv_ah_attr){ .is_global = 1, .port_num = 1,
					  .grh = { .dgid = gid, .sgid_index = GID_INDEX,
						   .hop_limit = 1 } };
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | (rc ? IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER : 0)))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | (rc ? IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC : 0));
}

static int
end_make(struct end *e, enum ibv_qp_type type)
{
	e->b = calloc(1, sizeof(*e->b));
	e->cq = cq_ex(IBV_WC_STANDARD_FLAGS);
	if (e->b == NULL || e->cq == NULL)
		return -1;
	e->qp = qp_ex(type, e->cq, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		      (type == IBV_QPT_RC ? IBV_QP_EX_WITH_RDMA_WRITE |
		       IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		       IBV_QP_EX_WITH_ATOMIC_WRITE : 0));
	e->mr = ibv_reg_mr(pd, e->b, sizeof(*e->b), IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	if (e->qp == NULL || e->mr == NULL)
		return -1;
	e->qpx = ibv_qp_to_qp_ex(e->qp);
	return e->qpx != NULL ? 0 : -1;
}

/* Ready to run (qp_ready()), with four receives posted. */
static int
end_ready(struct end *e, uint32_t dest_qpn)
{
	int i;

	if (qp_ready(e->qp, dest_qpn) != 0)
		return -1;
	for (i = 0; i < 4; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)e->b->recv[i],
				       .length = sizeof(e->b->recv[i]), .lkey = e->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 100 + i, .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_recv(e->qp, &wr, &bad))
			return -1;
	}
	return 0;
}

/* A completion read with the extended interface. */
struct comp {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len, qp_num, src_qp;
	unsigned int wc_flags;
	__be32 imm;
};

static void
comp_read(struct ibv_cq_ex *cq, struct comp *c)
{
	c->wr_id = cq->wr_id;
	c->status = cq->status;
	c->opcode = ibv_wc_read_opcode(cq);
	c->byte_len = ibv_wc_read_byte_len(cq);
	c->qp_num = ibv_wc_read_qp_num(cq);
	c->src_qp = ibv_wc_read_src_qp(cq);
	c->wc_flags = ibv_wc_read_wc_flags(cq);
	c->imm = ibv_wc_read_imm_data(cq);
}

/* n completions of cq, polled at most max_tries times: how many came. */
static int
poll_ex_tries(struct ibv_cq_ex *cq, struct comp *c, int n, long max_tries)
{
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	long tries;
	int got = 0, rc;

	for (tries = 0; got < n && tries < max_tries; tries++) {
		rc = ibv_start_poll(cq, &attr);
		if (rc == ENOENT)
			continue;
		if (rc != 0)
			return -1;
		do
			comp_read(cq, &c[got++]);
		while (got < n && ibv_next_poll(cq) == 0);
		ibv_end_poll(cq);
	}
	return got;
}

static int
poll_ex(struct ibv_cq_ex *cq, struct comp *c, int n)
{
	return poll_ex_tries(cq, c, n, POLL_TRIES);
}

static const struct comp *
comp_find(const struct comp *c, int n, uint64_t wr_id)
{
	int i;

	for (i = 0; i < n; i++)
		if (c[i].wr_id == wr_id)
			return &c[i];
	return NULL;
}

static void
case_refused(void)
{
	struct ibv_cq_init_attr_ex cattr = { .cqe = 8, .comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
					     .flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN };
	struct ibv_cq_ex *cq = cq_ex(0);
	struct ibv_qp_init_attr_ex qattr = {
		.qp_type = IBV_QPT_RC, .send_cq = ibv_cq_ex_to_cq(cq),
		.recv_cq = ibv_cq_ex_to_cq(cq), .cap = { .max_send_wr = 1, .max_recv_wr = 1,
		.max_send_sge = 1, .max_recv_sge = 1 }, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB,
	};
	struct ibv_qp *qp;
	static const struct { uint64_t flag; const char *what; } ops[] = {
		{ IBV_QP_EX_WITH_BIND_MW, "send_ops_flags BIND_MW" },
		{ IBV_QP_EX_WITH_LOCAL_INV, "send_ops_flags LOCAL_INV" },
		{ IBV_QP_EX_WITH_TSO, "send_ops_flags TSO" },
		{ 1u << 11, "send_ops_flags bit 11 (FLUSH in later rdma-core)" },
	};
	static const struct { uint64_t flag; const char *what; } wcs[] = {
		{ IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, "wc_flags COMPLETION_TIMESTAMP" },
		{ IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, "wc_flags TIMESTAMP_WALLCLOCK" },
		{ IBV_WC_EX_WITH_CVLAN, "wc_flags CVLAN" },
		{ IBV_WC_EX_WITH_FLOW_TAG, "wc_flags FLOW_TAG" },
		{ IBV_WC_EX_WITH_TM_INFO, "wc_flags TM_INFO" },
	};
	char what[128];
	unsigned int i;

	ok(cq != NULL, "ibv_create_cq_ex without wc_flags: a CQ");
	for (i = 0; i < sizeof(wcs) / sizeof(wcs[0]); i++) {
		snprintf(what, sizeof(what), "ibv_create_cq_ex %s: NULL, EOPNOTSUPP", wcs[i].what);
		errno = 0;
		ok(cq_ex(IBV_WC_EX_WITH_BYTE_LEN | wcs[i].flag) == NULL && errno == EOPNOTSUPP,
		   what);
	}
	errno = 0;
	ok(ibv_create_cq_ex(ctx, &cattr) == NULL && errno == EOPNOTSUPP,
	   "ibv_create_cq_ex flags IGNORE_OVERRUN: NULL, EOPNOTSUPP");
	cattr.flags = 0;
	cattr.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	errno = 0;
	ok(ibv_create_cq_ex(ctx, &cattr) == NULL && errno == EOPNOTSUPP,
	   "ibv_create_cq_ex with a parent domain: NULL, EOPNOTSUPP");
	errno = 0;
	ok(ibv_create_qp_ex(ctx, &qattr) == NULL && errno == EOPNOTSUPP,
	   "ibv_create_qp_ex with a create flag: NULL, EOPNOTSUPP");
	qattr.create_flags = 0;
	qp = ibv_create_qp_ex(ctx, &qattr);
	ok(qp != NULL && ibv_qp_to_qp_ex(qp) == NULL && ibv_destroy_qp(qp) == 0,
	   "ibv_create_qp_ex with create flags 0: a QP, without the ibv_wr_* interface");
	qattr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD;
	errno = 0;
	ok(ibv_create_qp_ex(ctx, &qattr) == NULL && errno == EOPNOTSUPP,
	   "ibv_create_qp_ex with an XRC domain: NULL, EOPNOTSUPP");
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		snprintf(what, sizeof(what), "ibv_create_qp_ex %s: NULL, EOPNOTSUPP", ops[i].what);
		errno = 0;
		ok(qp_ex(IBV_QPT_RC, cq, IBV_QP_EX_WITH_SEND | ops[i].flag) == NULL &&
		   errno == EOPNOTSUPP, what);
	}
	ok(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)) == 0, "the extended CQ is destroyed");
}

static void
case_query(void)
{
	struct ibv_device_attr_ex attr;

	memset(&attr, 0xff, sizeof(attr));
	ok(ibv_query_device_ex(ctx, NULL, &attr) == 0 && attr.orig_attr.max_qp > 0 &&
	   attr.phys_port_cnt_ex == 1 && attr.completion_timestamp_mask == 0,
	   "ibv_query_device_ex: the attributes, phys_port_cnt_ex 1, no timestamp");
}

/* Every builder on RC, data checked, completions read with the extended CQ. */
static void
case_rc(struct end *a, struct end *b)
{
	struct ibv_qp_ex *x = a->qpx;
	struct ibv_sge two[2] = {
		{ .addr = (uintptr_t)a->b->send, .length = MSG / 2, .lkey = a->mr->lkey },
		{ .addr = (uintptr_t)a->b->send + MSG / 2, .length = MSG / 2, .lkey = a->mr->lkey },
	};
	struct ibv_data_buf inl[2] = { { .addr = (void *)"inline ", .length = 7 },
				       { .addr = (void *)"list", .length = 4 } };
	char inl_buf[8] = "inline!";
	struct comp ca[16], cb[16];
	const struct comp *c;
	uint64_t value;
	int na, nb, i;

	for (i = 0; i < MSG; i++)
		a->b->send[i] = (char)i;
	b->b->atomic = 40;
	ibv_wr_start(x);
	x->wr_flags = IBV_SEND_SIGNALED;
	x->wr_id = 1;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->b->send, MSG);
	x->wr_id = 2;
	ibv_wr_send_imm(x, htobe32(0x1234));
	ibv_wr_set_inline_data(x, inl_buf, sizeof(inl_buf));
	memset(inl_buf, 0, sizeof(inl_buf));	/* copied by the setter: reusable at once */
	x->wr_id = 3;
	ibv_wr_send(x);
	ibv_wr_set_inline_data_list(x, 2, inl);
	x->wr_id = 4;
	ibv_wr_rdma_write(x, b->mr->rkey, (uintptr_t)b->b->target);
	ibv_wr_set_sge_list(x, 2, two);
	x->wr_id = 5;
	ibv_wr_rdma_write_imm(x, b->mr->rkey, (uintptr_t)b->b->target, htobe32(0x5678));
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->b->send, 8);
	x->wr_id = 6;
	ibv_wr_rdma_read(x, b->mr->rkey, (uintptr_t)b->b->target);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->b->target, MSG);
	x->wr_id = 7;
	ibv_wr_atomic_fetch_add(x, b->mr->rkey, (uintptr_t)&b->b->atomic, 2);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)&a->b->result, 8);
	x->wr_id = 8;
	ibv_wr_atomic_cmp_swp(x, b->mr->rkey, (uintptr_t)&b->b->atomic, 42, 7);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)&a->b->atomic, 8);
	ok(ibv_wr_complete(x) == 0, "RC: eight WRs built and posted by ibv_wr_complete");
	na = poll_ex(a->cq, ca, 8);
	ok(na == 8, "RC: eight send completions");
	for (i = 0; i < na; i++)
		if (ca[i].status != IBV_WC_SUCCESS || ca[i].wr_id != (uint64_t)i + 1)
			break;
	ok(na == 8 && i == 8, "RC: in order, each IBV_WC_SUCCESS with its wr_id");
	ok(na == 8 && ca[0].opcode == IBV_WC_SEND && ca[3].opcode == IBV_WC_RDMA_WRITE &&
	   ca[5].opcode == IBV_WC_RDMA_READ && ca[5].byte_len == MSG &&
	   ca[6].opcode == IBV_WC_FETCH_ADD && ca[7].opcode == IBV_WC_COMP_SWAP &&
	   ca[0].qp_num == a->qp->qp_num, "RC: send side opcodes, byte_len, qp_num");
	nb = poll_ex(b->cq, cb, 4);
	ok(nb == 4, "RC: four receive completions (three sends, one write with immediate)");
	c = comp_find(cb, nb, 100);
	ok(c != NULL && c->opcode == IBV_WC_RECV && c->byte_len == MSG &&
	   memcmp(b->b->recv[0], a->b->send, MSG) == 0, "RC: ibv_wr_send + set_sge arrived");
	c = comp_find(cb, nb, 101);
	ok(c != NULL && c->byte_len == 8 && (c->wc_flags & IBV_WC_WITH_IMM) &&
	   c->imm == htobe32(0x1234) && strcmp(b->b->recv[1], "inline!") == 0,
	   "RC: ibv_wr_send_imm + set_inline_data: bytes and immediate");
	c = comp_find(cb, nb, 102);
	ok(c != NULL && c->byte_len == 11 && memcmp(b->b->recv[2], "inline list", 11) == 0,
	   "RC: set_inline_data_list concatenated");
	c = comp_find(cb, nb, 103);
	ok(c != NULL && c->opcode == IBV_WC_RECV_RDMA_WITH_IMM && c->imm == htobe32(0x5678) &&
	   c->src_qp == a->qp->qp_num, "RC: rdma_write_imm: RECV_RDMA_WITH_IMM, immediate, src_qp");
	ok(memcmp(b->b->target + 8, a->b->send + 8, MSG - 8) == 0 &&
	   memcmp(a->b->target, b->b->target, MSG) == 0,
	   "RC: set_sge_list write landed, rdma_read read it back");
	ok(a->b->result == 40 && a->b->atomic == 42 && b->b->atomic == 7,
	   "RC: fetch_add then cmp_swp: old values returned, memory swapped");
	value = 0x0102030405060708;
	ibv_wr_start(x);
	x->wr_id = 9;
	ibv_wr_atomic_write(x, b->mr->rkey, (uintptr_t)&b->b->atomic, &value);
	value = 0;	/* copied by the builder: reusable at once */
	ok(ibv_wr_complete(x) == 0 && poll_ex(a->cq, ca, 1) == 1 &&
	   ca[0].status == IBV_WC_SUCCESS && ca[0].opcode == IBV_WC_ATOMIC_WRITE &&
	   ca[0].wr_id == 9 && b->b->atomic == 0x0102030405060708,
	   "RC: ibv_wr_atomic_write: IBV_WC_ATOMIC_WRITE, the 8 bytes stored");
}

/* UD: ibv_wr_set_ud_addr, to the QP itself. */
static void
case_ud(struct end *u)
{
	struct ibv_ah_attr ah_attr = { .is_global = 1, .port_num = 1,
				       .grh = { .dgid = gid, .sgid_index = GID_INDEX,
						.hop_limit = 1 } };
	struct ibv_ah *ah = ibv_create_ah(pd, &ah_attr);
	struct comp c[2];
	int n;

	memset(u->b->send, 'u', MSG);
	ibv_wr_start(u->qpx);
	u->qpx->wr_flags = IBV_SEND_SIGNALED;
	u->qpx->wr_id = 9;
	ibv_wr_send(u->qpx);
	ibv_wr_set_ud_addr(u->qpx, ah, u->qp->qp_num, QKEY);
	ibv_wr_set_sge(u->qpx, u->mr->lkey, (uintptr_t)u->b->send, MSG);
	ok(ah != NULL && ibv_wr_complete(u->qpx) == 0, "UD: send with set_ud_addr posted");
	n = poll_ex(u->cq, c, 2);
	ok(n == 2 && comp_find(c, n, 9) != NULL && comp_find(c, n, 100) != NULL &&
	   comp_find(c, n, 100)->byte_len == MSG + 40 &&
	   memcmp(u->b->recv[0] + 40, u->b->send, MSG) == 0,
	   "UD: send and receive complete (GRH + 64 bytes)");
	ibv_destroy_ah(ah);
}

/* Misuse of the WR interface: errors at ibv_wr_complete(), nothing posted. */
static void
case_misuse(struct end *a)
{
	struct ibv_qp_ex *x = a->qpx;
	static char big[MAX_INLINE * 8];
	struct ibv_poll_cq_attr bad_attr = { .comp_mask = 1 }, attr = { 0 };
	struct comp c[1];

	ok(ibv_wr_complete(x) == EINVAL, "ibv_wr_complete without ibv_wr_start: EINVAL");
	ibv_wr_start(x);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->b->send, MSG);
	ok(ibv_wr_complete(x) == EINVAL, "a setter before any builder: ibv_wr_complete EINVAL");
	ibv_wr_start(x);
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_inline_data(x, big, sizeof(big));
	ok(ibv_wr_complete(x) == EINVAL, "inline data above max_inline_data: EINVAL");
	ibv_wr_start(x);
	x->wr_id = 50;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->b->send, MSG);
	ibv_wr_send(x);
	ibv_wr_set_sge_list(x, 5, (struct ibv_sge[5]){ 0 });	/* above max_send_sge 4 */
	ok(ibv_wr_complete(x) == EINVAL, "a batch whose second WR is bad: EINVAL");
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->b->send, MSG);
	ibv_wr_abort(x);
	ok(ibv_wr_complete(x) == EINVAL, "ibv_wr_abort closes the batch");
	ibv_wr_start(x);
	ibv_wr_bind_mw(x, NULL, 0, NULL);
	ok(ibv_wr_complete(x) == EOPNOTSUPP, "ibv_wr_bind_mw: ibv_wr_complete EOPNOTSUPP");
	ibv_wr_start(x);
	ibv_wr_local_inv(x, 0);
	ok(ibv_wr_complete(x) == EOPNOTSUPP, "ibv_wr_local_inv: ibv_wr_complete EOPNOTSUPP");
	ok(poll_ex_tries(a->cq, c, 1, QUIET_TRIES) == 0, "none of those batches posted anything");
	ok(ibv_start_poll(a->cq, &bad_attr) == EINVAL, "ibv_start_poll with comp_mask: EINVAL");
	ok(ibv_start_poll(a->cq, &attr) == ENOENT, "ibv_start_poll on an empty CQ: ENOENT");
	ok(ibv_next_poll(a->cq) == EINVAL, "ibv_next_poll without ibv_start_poll: EINVAL");
}

int
main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct end a, b, u;
	bool rc, ud;

	if (list == NULL || *list == NULL || strcmp(ibv_get_device_name(*list), "roce0") != 0 ||
	    (ctx = ibv_open_device(*list)) == NULL || (pd = ibv_alloc_pd(ctx)) == NULL ||
	    ibv_query_gid(ctx, 1, GID_INDEX, &gid) != 0) {
		printf("1..0 # SKIP roce0 not usable (run under roce-run): %s\n", strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	case_query();
	case_refused();
	rc = end_make(&a, IBV_QPT_RC) == 0 && end_make(&b, IBV_QPT_RC) == 0 &&
	     end_ready(&a, b.qp->qp_num) == 0 && end_ready(&b, a.qp->qp_num) == 0;
	ok(rc, "two RC QPs with send_ops_flags, extended CQs, connected");
	if (rc) {
		case_rc(&a, &b);
		case_misuse(&a);
	}
	ud = end_make(&u, IBV_QPT_UD) == 0 && end_ready(&u, 0) == 0;
	ok(ud, "a UD QP with send_ops_flags");
	if (ud)
		case_ud(&u);
	printf("1..%d\n", tests);
	ibv_free_device_list(list);
	return failed != 0;
}
