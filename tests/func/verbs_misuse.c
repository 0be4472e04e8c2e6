/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Bad use of the drop-in verbs layer (doc/verbs-abi.md, "Bad use"), as a
 * plain libibverbs program run under roce-run by test_verbs_misuse.py with
 * two net_ring devices, roce0 and roce1 (a net_ring vdev receives what it
 * sends). TAP output. Every case expects a clear errno and no crash: a
 * destroyed object used again, objects of two devices or two PDs mixed,
 * the calls librte_roce does not have, fork() after registration, a CQ
 * resized with completions to come and a CQ polled by two threads at once.
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "roce_test_ok.h"

#define QKEY 0x11111111
#define MSG 64
#define POLL_TRIES 1000000

static bool
unsupported(int err)
{
	return err == EOPNOTSUPP || err == ENOSYS;
}

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

static int
dev_open(struct ibv_device **list, const char *name, struct dev *d)
{
	for (; *list != NULL; list++)
		if (strcmp(ibv_get_device_name(*list), name) == 0)
			break;
	if (*list == NULL || (d->ctx = ibv_open_device(*list)) == NULL)
		return -1;
	d->pd = ibv_alloc_pd(d->ctx);
	d->cq = ibv_create_cq(d->ctx, 64, NULL, NULL, 0);
	return d->pd != NULL && d->cq != NULL ? 0 : -1;
}

static struct ibv_qp *
ud_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &init);
}

/* RESET -> INIT -> RTR -> RTS, as ibv_ud_pingpong does. */
static int
ud_ready(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* The first completion of cq, or -1 with wc untouched after POLL_TRIES polls. */
static int
poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	long i;

	for (i = 0; i < POLL_TRIES; i++) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n != 0)
			return n;
	}
	return -1;
}

static void
case_destroyed(struct dev *d)
{
	struct ibv_pd *pd = ibv_alloc_pd(d->ctx);
	struct ibv_cq *cq = ibv_create_cq(d->ctx, 8, NULL, NULL, 0);
	struct ibv_comp_channel *ch = ibv_create_comp_channel(d->ctx);
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(d->pd, &sattr);
	struct ibv_qp *qp = ud_qp(d->pd, d->cq);
	struct ibv_qp_init_attr qinit = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
					  .cap = { .max_send_wr = 1, .max_recv_wr = 1,
						   .max_send_sge = 1, .max_recv_sge = 1 } };
	static char buf[MSG];
	struct ibv_mr *mr = ibv_reg_mr(d->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mw *mw = ibv_alloc_mw(d->pd, IBV_MW_TYPE_2);
	struct ibv_qp_attr qattr;
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	ok(pd && cq && ch && srq && qp && mr, "objects to destroy are made");
	ok(ibv_dealloc_pd(pd) == 0 && ibv_dealloc_pd(pd) == EINVAL,
	   "a PD freed twice: EINVAL the second time");
	ok(ibv_reg_mr(pd, buf, sizeof(buf), 0) == NULL && errno == EINVAL,
	   "ibv_reg_mr on a freed PD: NULL, EINVAL");
	ok(ibv_create_qp(pd, &qinit) == NULL && errno == EINVAL,
	   "ibv_create_qp on a freed PD: NULL, EINVAL");
	ok(ibv_destroy_cq(cq) == 0 && ibv_destroy_cq(cq) == EINVAL,
	   "a CQ destroyed twice: EINVAL the second time");
	ok(ibv_resize_cq(cq, 16) == EINVAL, "ibv_resize_cq of a destroyed CQ: EINVAL");
	ok(ibv_create_qp(d->pd, &qinit) == NULL && errno == EINVAL,
	   "ibv_create_qp with a destroyed CQ: NULL, EINVAL");
	ibv_ack_cq_events(cq, 1);
	ok(true, "ibv_ack_cq_events on a destroyed CQ returns");
	ok(ibv_destroy_comp_channel(ch) == 0 && ibv_destroy_comp_channel(ch) == EINVAL,
	   "a completion channel destroyed twice: EINVAL the second time");
	ok(ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == -1 && errno == EINVAL,
	   "ibv_get_cq_event on a destroyed channel: -1, EINVAL");
	ok(ibv_create_cq(d->ctx, 8, NULL, ch, 0) == NULL && errno == EINVAL,
	   "ibv_create_cq with a destroyed channel: NULL, EINVAL");
	ok(ibv_destroy_srq(srq) == 0 && ibv_destroy_srq(srq) == EINVAL,
	   "an SRQ destroyed twice: EINVAL the second time");
	ok(ibv_destroy_qp(qp) == 0 && ibv_destroy_qp(qp) == EINVAL,
	   "a QP destroyed twice: EINVAL the second time");
	qattr.qp_state = IBV_QPS_INIT;
	ok(ibv_modify_qp(qp, &qattr, IBV_QP_STATE) == EINVAL, "ibv_modify_qp on a destroyed QP: EINVAL");
	ok(ibv_query_qp(qp, &qattr, IBV_QP_STATE, &qinit) == EINVAL,
	   "ibv_query_qp on a destroyed QP: EINVAL");
	ok(ibv_dereg_mr(mr) == 0 && ibv_dereg_mr(mr) == EINVAL,
	   "an MR deregistered twice: EINVAL the second time");
	ok(mw != NULL && ibv_dealloc_mw(mw) == 0 && ibv_dealloc_mw(mw) == EINVAL,
	   "a memory window freed twice: EINVAL the second time");
	/* An object made again at a freed address is live again. */
	pd = ibv_alloc_pd(d->ctx);
	ok(pd != NULL && ibv_dealloc_pd(pd) == 0, "a PD made after the freed ones works");
}

static void
case_mixed(struct dev *a, struct dev *b)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(b->ctx);
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(b->pd, &sattr);
	struct ibv_qp_init_attr init = { .send_cq = b->cq, .recv_cq = a->cq, .qp_type = IBV_QPT_RC,
					 .cap = { .max_send_wr = 1, .max_recv_wr = 1,
						  .max_send_sge = 1, .max_recv_sge = 1 } };

	ok(ibv_create_qp(a->pd, &init) == NULL && errno == EINVAL,
	   "a QP on roce0's PD with roce1's CQ: NULL, EINVAL");
	init.send_cq = a->cq;
	init.srq = srq;
	ok(ibv_create_qp(a->pd, &init) == NULL && errno == EINVAL,
	   "a QP on roce0's PD with an SRQ of roce1: NULL, EINVAL");
	ok(ibv_create_cq(a->ctx, 8, NULL, ch, 0) == NULL && errno == EINVAL,
	   "a CQ of roce0 on roce1's completion channel: NULL, EINVAL");
	ibv_destroy_srq(srq);
	ibv_destroy_comp_channel(ch);
}

/* A UD send from a QP of one PD with an AH of another PD: refused at post time. */
static void
case_mixed_pd(struct dev *d)
{
	struct ibv_pd *other = ibv_alloc_pd(d->ctx);
	struct ibv_qp *qp = ud_qp(d->pd, d->cq);
	union ibv_gid gid;
	struct ibv_ah_attr ah_attr = { .is_global = 1, .port_num = 1,
				       .grh = { .sgid_index = 1, .hop_limit = 1 } };
	struct ibv_ah *ah;
	static char buf[MSG];
	struct ibv_mr *mr = ibv_reg_mr(other, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = MSG };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	int rc;

	ibv_query_gid(d->ctx, 1, 1, &gid);
	ah_attr.grh.dgid = gid;
	ah = ibv_create_ah(other, &ah_attr);
	ok(other && qp && mr && ah && ud_ready(qp) == 0, "a UD QP and an AH of another PD");
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qp->qp_num;
	wr.wr.ud.remote_qkey = QKEY;
	sge.lkey = mr->lkey;
	rc = ibv_post_send(qp, &wr, &bad);
	ok(rc == EINVAL, "ibv_post_send with an AH of another PD: EINVAL");
	if (rc == 0)	/* else nothing was queued */
		printf("# completion %d\n", poll_one(d->cq, &wc) == 1 ? (int)wc.status : -1);
	ibv_destroy_qp(qp);
	ibv_destroy_ah(ah);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(other);
}

static void
case_unsupported(struct dev *d)
{
	struct ibv_qp_init_attr_ex qp_attr = { .qp_type = IBV_QPT_RC, .send_cq = d->cq,
					       .recv_cq = d->cq, .pd = d->pd,
					       .comp_mask = IBV_QP_INIT_ATTR_PD };
	struct ibv_xrcd_init_attr xrcd_attr = { .comp_mask = 0 };
	struct ibv_td_init_attr td_attr = { 0 };
	struct ibv_alloc_dm_attr dm_attr = { .length = 64 };
	struct ibv_wq_init_attr wq_attr = { .wq_type = IBV_WQT_RQ, .max_wr = 1, .max_sge = 1,
					    .pd = d->pd, .cq = d->cq };
	static char buf[MSG];
	struct ibv_mr *mr = ibv_reg_mr(d->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_qp *qp = ud_qp(d->pd, d->cq), *xqp;
	struct ibv_qp_init_attr raw = { .send_cq = d->cq, .recv_cq = d->cq,
					.cap = { .max_send_wr = 1, .max_recv_wr = 1,
						 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_mr *bind_mr;
	struct ibv_ece ece;
	int fd;

	struct ibv_mw *mw = ibv_alloc_mw(d->pd, IBV_MW_TYPE_1);

	ok(mw != NULL && ibv_dealloc_mw(mw) == 0, "ibv_alloc_mw, ibv_dealloc_mw: through ops");
	errno = 0;
	ok(ibv_alloc_mw(d->pd, (enum ibv_mw_type)3) == NULL && errno == EINVAL,
	   "ibv_alloc_mw of type 3: NULL, EINVAL");
	/* verbs.h makes an ibv_create_qp_ex() with a PD alone an ibv_create_qp(). */
	xqp = ibv_create_qp_ex(d->ctx, &qp_attr);
	ok(xqp != NULL && ibv_destroy_qp(xqp) == 0, "ibv_create_qp_ex with a PD alone: a QP");
	raw.qp_type = IBV_QPT_RAW_PACKET;
	ok(ibv_create_qp(d->pd, &raw) == NULL && errno == EOPNOTSUPP,
	   "a raw packet QP: NULL, EOPNOTSUPP");
	bind_mr = ibv_reg_mr(d->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	ok(bind_mr != NULL && ibv_dereg_mr(bind_mr) == 0, "an MR with MW_BIND: made");
	ok(ibv_open_xrcd(d->ctx, &xrcd_attr) == NULL && unsupported(errno),
	   "ibv_open_xrcd: NULL, EOPNOTSUPP or ENOSYS");
	ok(ibv_alloc_td(d->ctx, &td_attr) == NULL && unsupported(errno),
	   "ibv_alloc_td: NULL, EOPNOTSUPP or ENOSYS");
	ok(ibv_alloc_dm(d->ctx, &dm_attr) == NULL && unsupported(errno),
	   "ibv_alloc_dm: NULL, EOPNOTSUPP or ENOSYS");
	ok(ibv_create_wq(d->ctx, &wq_attr) == NULL && unsupported(errno),
	   "ibv_create_wq: NULL, EOPNOTSUPP or ENOSYS");
	fd = dup(d->ctx->cmd_fd);
	ok(fd >= 0 && ibv_import_device(fd) == NULL && errno == EOPNOTSUPP,
	   "ibv_import_device of our command fd: NULL, EOPNOTSUPP");
	close(fd);
	ok(ibv_import_pd(d->ctx, 1) == NULL && unsupported(errno),
	   "ibv_import_pd: NULL, EOPNOTSUPP");
	ok(ibv_import_mr(d->pd, 1) == NULL && unsupported(errno),
	   "ibv_import_mr: NULL, EOPNOTSUPP");
	ok(ibv_import_dm(d->ctx, 1) == NULL && unsupported(errno),
	   "ibv_import_dm: NULL, EOPNOTSUPP");
	ibv_unimport_pd(d->pd);
	ok(true, "ibv_unimport_pd of ours returns");
	ok(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, 0) ==
	   IBV_REREG_MR_ERR_INPUT, "ibv_rereg_mr: IBV_REREG_MR_ERR_INPUT, MR unchanged");
	ok(ibv_query_ece(qp, &ece) == EOPNOTSUPP, "ibv_query_ece: EOPNOTSUPP");
	ok(ibv_qp_to_qp_ex(qp) == NULL, "ibv_qp_to_qp_ex of a QP made without send_ops_flags: NULL");
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
}

/* A UD QP on cq sending to itself: n receives (wr_id i) and n sends (wr_id 100 + i) posted. */
struct ud_self {
	char send_buf[MSG], recv_buf[8][MSG + 40];	/* UD receives start with a GRH */
	struct ibv_mr *smr, *rmr;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
};

static int
ud_self_post(struct dev *d, struct ibv_cq *cq, struct ud_self *u, int n)
{
	struct ibv_ah_attr ah_attr = { .is_global = 1, .port_num = 1,
				       .grh = { .sgid_index = 1, .hop_limit = 1 } };
	struct ibv_sge ssge = { .addr = (uintptr_t)u->send_buf, .length = MSG };
	struct ibv_send_wr swr = { .sg_list = &ssge, .num_sge = 1, .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_recv_wr rwr = { .num_sge = 1 }, *rbad;
	struct ibv_sge rsge;
	int i;

	u->smr = ibv_reg_mr(d->pd, u->send_buf, sizeof(u->send_buf), IBV_ACCESS_LOCAL_WRITE);
	u->rmr = ibv_reg_mr(d->pd, u->recv_buf, sizeof(u->recv_buf), IBV_ACCESS_LOCAL_WRITE);
	u->qp = ud_qp(d->pd, cq);
	ibv_query_gid(d->ctx, 1, 1, &ah_attr.grh.dgid);
	u->ah = ibv_create_ah(d->pd, &ah_attr);
	if (!u->smr || !u->rmr || !u->qp || !u->ah || ud_ready(u->qp) != 0)
		return -1;
	ssge.lkey = u->smr->lkey;
	swr.wr.ud.ah = u->ah;
	swr.wr.ud.remote_qpn = u->qp->qp_num;
	swr.wr.ud.remote_qkey = QKEY;
	rwr.sg_list = &rsge;
	for (i = 0; i < n; i++) {
		rsge = (struct ibv_sge){ (uintptr_t)u->recv_buf[i], sizeof(u->recv_buf[i]),
					 u->rmr->lkey };
		rwr.wr_id = i;
		swr.wr_id = 100 + i;
		if (ibv_post_recv(u->qp, &rwr, &rbad) != 0 || ibv_post_send(u->qp, &swr, &sbad) != 0)
			return -1;
	}
	return 0;
}

static void
ud_self_free(struct ud_self *u)
{
	ibv_destroy_qp(u->qp);
	ibv_destroy_ah(u->ah);
	ibv_dereg_mr(u->smr);
	ibv_dereg_mr(u->rmr);
}

/*
 * ibv_resize_cq: above max_cqe EINVAL; below the completions the CQ holds
 * and owes to posted sends EINVAL (nothing polled yet: the sends wait); up
 * and down with every completion kept.
 */
static void
case_resize(struct dev *d)
{
	static struct ud_self u;
	struct ibv_device_attr attr;
	struct ibv_cq *cq = ibv_create_cq(d->ctx, 8, NULL, NULL, 0);
	struct ibv_wc wc;
	int got = 0, i;

	ok(cq != NULL && ibv_query_device(d->ctx, &attr) == 0 && ud_self_post(d, cq, &u, 3) == 0,
	   "a CQ of 8, a UD QP on it: 3 sends to itself posted");
	ok(ibv_resize_cq(cq, attr.max_cqe + 1) == EINVAL, "ibv_resize_cq above max_cqe: EINVAL");
	ok(ibv_resize_cq(cq, 2) == EINVAL, "ibv_resize_cq below the 3 sends posted: EINVAL");
	ok(ibv_resize_cq(cq, 3) == 0 && cq->cqe >= 3, "ibv_resize_cq down to 3");
	ok(ibv_resize_cq(cq, 100) == 0 && cq->cqe >= 100, "ibv_resize_cq up to 100");
	for (i = 0; i < 6 && poll_one(cq, &wc) == 1; i++)
		got += wc.status == IBV_WC_SUCCESS;
	ok(got == 6, "the 3 sends and 3 receives complete");
	ok(ibv_resize_cq(cq, 1) == 0 && cq->cqe >= 1, "ibv_resize_cq of the empty CQ down to 1");
	ud_self_free(&u);
	ibv_destroy_cq(cq);
}

#define POLLERS 2
#define POLLED_MSGS 8	/* the UD QP's queues hold 8 */

/* One of POLLERS threads polling one CQ: the wr_ids it got, in its order. */
struct poller {
	struct ibv_cq *cq;
	int *total;		/* got by all (atomic) */
	uint64_t wr_id[2 * POLLED_MSGS];
	int n;
	bool bad;		/* a negative poll or a failed completion */
};

static void *
poller_main(void *arg)
{
	struct poller *p = arg;
	struct ibv_wc wc;
	long i;

	for (i = 0; i < POLL_TRIES && __atomic_load_n(p->total, __ATOMIC_ACQUIRE) < 2 * POLLED_MSGS;
	     i++) {
		int n = ibv_poll_cq(p->cq, 1, &wc);

		if (n < 0 || (n == 1 && (wc.status != IBV_WC_SUCCESS || p->n == 2 * POLLED_MSGS))) {
			p->bad = true;
			return NULL;
		}
		if (n == 1) {
			p->wr_id[p->n++] = wc.wr_id;
			__atomic_fetch_add(p->total, 1, __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

/*
 * A CQ polled by two threads at once (each ibv_poll_cq also drives the
 * inline device's progress): one of them gets each completion, once; a
 * poll that finds the other thread polling gets 0.
 */
static void
case_two_pollers(struct dev *d)
{
	static struct ud_self u;
	struct ibv_cq *cq = ibv_create_cq(d->ctx, 64, NULL, NULL, 0);
	struct poller p[POLLERS] = { 0 };
	bool seen[100 + POLLED_MSGS] = { false }, once = true;
	pthread_t tid[POLLERS];
	int total = 0, started = 0, t, i;

	ok(cq != NULL && ud_self_post(d, cq, &u, POLLED_MSGS) == 0,
	   "a UD QP sending to itself: 8 receives, 8 sends posted");
	for (t = 0; t < POLLERS; t++) {
		p[t].cq = cq;
		p[t].total = &total;
		started += pthread_create(&tid[t], NULL, poller_main, &p[t]) == 0;
	}
	for (t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	for (t = 0; t < started; t++)
		for (i = 0; i < p[t].n; i++) {
			uint64_t id = p[t].wr_id[i];

			once = once && id < 100 + POLLED_MSGS && !seen[id];
			if (id < 100 + POLLED_MSGS)
				seen[id] = true;
		}
	printf("# the pollers got %d and %d\n", p[0].n, p[1].n);
	ok(started == POLLERS && !p[0].bad && !p[1].bad && total == 2 * POLLED_MSGS && once,
	   "two threads polling one CQ: every completion once, none failed");
	ud_self_free(&u);
	ibv_destroy_cq(cq);
}

/*
 * fork() after registration: the child writes the registered buffer and
 * exits; the parent's buffer keeps its bytes (copy-on-write, nothing
 * pinned) and its devices go on working: a UD send to itself arrives.
 */
static void
case_fork(struct dev *d)
{
	static char send_buf[MSG], recv_buf[MSG + 40];	/* UD receives start with a GRH */
	struct ibv_mr *smr = ibv_reg_mr(d->pd, send_buf, sizeof(send_buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mr *rmr = ibv_reg_mr(d->pd, recv_buf, sizeof(recv_buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_qp *qp = ud_qp(d->pd, d->cq);
	struct ibv_sge ssge = { .addr = (uintptr_t)send_buf, .length = MSG };
	struct ibv_sge rsge = { .addr = (uintptr_t)recv_buf, .length = sizeof(recv_buf) };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .sg_list = &ssge, .num_sge = 1, .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_ah_attr ah_attr = { .is_global = 1, .port_num = 1,
				       .grh = { .sgid_index = 1, .hop_limit = 1 } };
	struct ibv_ah *ah;
	struct ibv_wc wc;
	int status = -1, got = 0, i;
	pid_t pid;

	memset(send_buf, 'p', sizeof(send_buf));
	ibv_query_gid(d->ctx, 1, 1, &ah_attr.grh.dgid);
	ah = ibv_create_ah(d->pd, &ah_attr);
	ok(smr && rmr && qp && ah && ud_ready(qp) == 0, "registered buffers, a UD QP, then fork()");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		memset(send_buf, 'c', sizeof(send_buf));
		_exit(send_buf[0] == 'c' ? 0 : 1);
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	   WEXITSTATUS(status) == 0, "the child wrote its copy and exited");
	ok(send_buf[0] == 'p' && send_buf[MSG - 1] == 'p', "the parent's registered buffer is its own");
	ssge.lkey = smr->lkey;
	rsge.lkey = rmr->lkey;
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = qp->qp_num;
	swr.wr.ud.remote_qkey = QKEY;
	ok(ibv_post_recv(qp, &rwr, &rbad) == 0 && ibv_post_send(qp, &swr, &sbad) == 0,
	   "the parent posts after the fork");
	for (i = 0; i < 2 && poll_one(d->cq, &wc) == 1; i++)
		got += wc.status == IBV_WC_SUCCESS;
	ok(got == 2 && memcmp(recv_buf + 40, send_buf, MSG) == 0,
	   "the parent's send and receive complete, the bytes arrive");
	ibv_destroy_qp(qp);
	ibv_destroy_ah(ah);
	ibv_dereg_mr(smr);
	ibv_dereg_mr(rmr);
}

int
main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct dev a, b;

	if (list == NULL || dev_open(list, "roce0", &a) < 0 || dev_open(list, "roce1", &b) < 0) {
		printf("1..0 # SKIP roce0 and roce1 not usable (run under roce-run): %s\n",
		       strerror(errno));
		return 1;
	}
	case_destroyed(&a);
	case_mixed(&a, &b);
	case_mixed_pd(&a);
	case_unsupported(&a);
	case_resize(&a);
	case_two_pollers(&a);
	case_fork(&a);
	printf("1..%d\n", tests);
	ibv_free_device_list(list);
	return failed != 0;
}
