/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * A queue: one NVMe submission/completion queue pair on one RC QP (RDMA
 * §3.2), its receive slots (one capsule each; an I/O queue on the target's
 * SRQ has none: nvmf_srq.c) and its requests; and the one way it is torn
 * down (doc/nvmf.md): QP to ERR, every posted work request flushed back
 * through the shared CQs (on the SRQ: Last WQE Reached), then freed.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include <rte_roce.h>

#include "nvmf_priv.h"

/* Requests per receive slot: a slot is posted again before its request's response completes. */
#define NVMF_REQ_PER_SLOT	2

static int
queue_post_recv(struct nvmf_queue *q, struct nvmf_recv *r)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->buf,
		.length = q->capsule_len,
		.lkey = q->recv_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = (uintptr_t)r, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int rc;

	if (q->state == NVMF_Q_DRAINING)
		return 0;
	rc = rte_roce_post_recv(q->qp, &wr, &bad);
	if (rc == 0)
		q->posted++;
	return rc;
}

/* A slot whose capsule is consumed goes back where it came from: its queue or the SRQ. */
int
nvmf_recv_repost(struct nvmf_tgt *tgt, struct nvmf_recv *r)
{
	return r->q != NULL ? queue_post_recv(r->q, r) : nvmf_srq_post(tgt, r);
}

static int
queue_alloc(struct nvmf_queue *q)
{
	struct nvmf_tgt *tgt = q->tgt;
	size_t size = (size_t)q->nb_recv * q->capsule_len;
	uint32_t i;

	q->req = rte_zmalloc("nvmf_req", sizeof(*q->req) * q->nb_req, 0);
	if (q->req == NULL)
		return -ENOMEM;
	TAILQ_INIT(&q->free_req);
	for (i = 0; i < q->nb_req; i++) {
		q->req[i].q = q;
		TAILQ_INSERT_TAIL(&q->free_req, &q->req[i], link);
	}
	if (q->on_srq)
		return 0;
	q->recv = rte_zmalloc("nvmf_recv", sizeof(*q->recv) * q->nb_recv, 0);
	q->recv_mem = rte_malloc("nvmf_capsules", size, 64);
	if (q->recv == NULL || q->recv_mem == NULL)
		return -ENOMEM;
	q->recv_mr = rte_roce_reg_mr(tgt->pd, q->recv_mem, size, IBV_ACCESS_LOCAL_WRITE);
	if (q->recv_mr == NULL)
		return -rte_errno;
	for (i = 0; i < q->nb_recv; i++) {
		q->recv[i].q = q;
		q->recv[i].buf = q->recv_mem + (size_t)i * q->capsule_len;
	}
	return 0;
}

static int
queue_qp(struct nvmf_queue *q)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = q->tgt->send_cq,
		.recv_cq = q->tgt->recv_cq,
		.srq = q->on_srq ? q->tgt->srq : NULL,
		.qp_type = IBV_QPT_RC,
		.cap = {
			/* a request has an RDMA READ or WRITE and a SEND in flight at most */
			.max_send_wr = 2 * q->nb_req,
			.max_recv_wr = q->nb_recv,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = NVMF_CQE_LEN,
		},
	};
	uint32_t i;
	int rc;

	rc = rte_roce_cm_create_qp(q->id, q->tgt->pd, &attr);
	if (rc != 0)
		return rc;
	q->qp = q->id->qp;
	rc = nvmf_qpn_add(q);
	for (i = 0; i < q->nb_recv && rc == 0; i++)
		rc = queue_post_recv(q, &q->recv[i]);
	return rc;
}

struct nvmf_queue *
nvmf_queue_create(struct nvmf_tgt *tgt, struct rte_roce_cm_id *id, uint16_t qid, uint16_t sqsize)
{
	struct nvmf_queue *q;
	int rc;

	q = rte_zmalloc("nvmf_queue", sizeof(*q), 0);
	if (q == NULL)
		return NULL;
	q->tgt = tgt;
	q->id = id;
	q->qid = qid;
	q->sqsize = sqsize;
	q->state = NVMF_Q_CONNECTING;
	/* RDMA §3.3: no in-capsule data on the admin queue */
	q->capsule_len = NVMF_SQE_LEN + (qid == 0 ? 0 : tgt->conf.in_capsule_data);
	/* the SRQ's buffers are I/O capsules: the admin queue keeps its own 64-byte slots */
	q->on_srq = tgt->srq != NULL && qid != 0;
	q->nb_recv = q->on_srq ? 0 : (uint32_t)sqsize + 1;
	q->nb_req = NVMF_REQ_PER_SLOT * ((uint32_t)sqsize + 1);
	id->context = q;
	TAILQ_INSERT_TAIL(&tgt->queues, q, link);
	tgt->nb_queues++;
	rc = queue_alloc(q);
	if (rc == 0)
		rc = queue_qp(q);
	if (rc != 0) {
		NVMF_LOG(WARNING, "queue %u (%u entries): %s", qid, q->nb_recv, rte_strerror(-rc));
		/* the id is the caller's to reject and destroy */
		q->id = NULL;
		if (q->qp != NULL) {
			nvmf_qpn_del(q);
			rte_roce_cm_destroy_qp(id);
		}
		q->qp = NULL;
		q->posted = 0;
		nvmf_queue_free(q);
		return NULL;
	}
	return q;
}

/* Held requests (buffer wait, AER) own no work request: they go at once. */
static void
queue_drop_waiting(struct nvmf_queue *q)
{
	uint32_t i;

	for (i = 0; i < q->nb_req; i++) {
		struct nvmf_req *req = &q->req[i];

		if (req->state == NVMF_REQ_NEED_BUF && req->wrs == 0)
			TAILQ_REMOVE(&q->tgt->buf_wait, req, link);
		if ((req->state == NVMF_REQ_NEED_BUF || req->state == NVMF_REQ_AER_WAIT) &&
		    req->wrs == 0)
			nvmf_req_drop(req);
	}
}

void
nvmf_queue_close(struct nvmf_queue *q, const char *why)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	int rc;

	if (q->state == NVMF_Q_DRAINING)
		return;
	NVMF_LOG(INFO, "queue %u%s: closing: %s", q->qid, q->ctrl != NULL ? "" : " (no controller)",
		 why);
	/* the CM moves the QP to ERR and sends a DREQ; if it did not, we move the QP */
	rc = rte_roce_cm_disconnect(q->id);
	if (q->qp != NULL && (rc != 0 || q->qp->state != IBV_QPS_ERR))
		rte_roce_modify_qp(q->qp, &attr, IBV_QP_STATE);
	q->state = NVMF_Q_DRAINING;
	queue_drop_waiting(q);
	if (q->ctrl != NULL && q->ctrl->admin == q)
		nvmf_ctrl_kill(q->ctrl, "admin queue closed");
}

void
nvmf_queue_free(struct nvmf_queue *q)
{
	struct nvmf_tgt *tgt = q->tgt;

	if (q->ctrl != NULL) {
		if (q->ctrl->admin == q)
			q->ctrl->admin = NULL;
		else if (q->qid <= tgt->conf.max_io_queues && q->ctrl->io[q->qid] == q)
			q->ctrl->io[q->qid] = NULL;
		nvmf_ctrl_put(q->ctrl);
	}
	if (q->qp != NULL) {
		nvmf_qpn_del(q);
		rte_roce_cm_destroy_qp(q->id);
	}
	if (q->id != NULL)
		rte_roce_cm_destroy_id(q->id);
	if (q->recv_mr != NULL)
		rte_roce_dereg_mr(q->recv_mr);
	TAILQ_REMOVE(&tgt->queues, q, link);
	tgt->nb_queues--;
	tgt->stats.queues_freed++;
	rte_free(q->recv_mem);
	rte_free(q->req);
	rte_free(q->recv);
	rte_free(q);
}

/*
 * Free the draining queues whose work requests have all come back. A
 * queue on the SRQ waits for Last WQE Reached too, and the receive
 * completions already in the CQ are taken first: none then names a QP
 * number whose queue is gone.
 */
void
nvmf_queue_reap(struct nvmf_tgt *tgt)
{
	struct nvmf_queue *q, *next;
	bool drained = false;

	for (q = TAILQ_FIRST(&tgt->queues); q != NULL; q = next) {
		if (q->state != NVMF_Q_DRAINING || q->posted != 0 || q->io_reqs != 0 ||
		    (q->on_srq && !q->last_wqe)) {
			next = TAILQ_NEXT(q, link);
			continue;
		}
		if (q->on_srq && !drained) {
			nvmf_tgt_recv_drain(tgt);
			drained = true;
		}
		next = TAILQ_NEXT(q, link);
		nvmf_queue_free(q);
	}
}
