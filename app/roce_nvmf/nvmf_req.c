/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * A request, from its command capsule to its response (RDMA §3.3, Figure
 * 8): the capsule's SGL read, the host's data fetched by RDMA READ (or
 * taken from the capsule), the command run, the data returned by RDMA
 * WRITE, then the response capsule by SEND (SEND_WITH_INVALIDATE when the
 * host asked). One handler per state of enum nvmf_req_state; a handler
 * returns true when the request moved on to another state at once.
 */

#include <string.h>

#include <rte_common.h>

#include <rte_roce.h>

#include "nvmf_priv.h"

static void
req_status_count(struct nvmf_tgt_stats *st, uint16_t status)
{
	st->errors++;
	switch (status) {
	case NVMF_SC_INVALID_OPCODE:
		st->invalid_opcode++;
		break;
	case NVMF_SC_INVALID_FIELD:
		st->invalid_field++;
		break;
	case NVMF_SC_INVALID_NS:
		st->invalid_ns++;
		break;
	case NVMF_SC_LBA_RANGE:
		st->lba_range++;
		break;
	case NVMF_SC_CMD_SEQ_ERROR:
		st->cmd_seq++;
		break;
	case NVMF_SC_SGL_INVALID_COUNT:
	case NVMF_SC_SGL_INVALID_DATA_LEN:
	case NVMF_SC_SGL_INVALID_TYPE:
	case NVMF_SC_SGL_INVALID_OFFSET:
		st->sgl_invalid++;
		break;
	default:
		break;
	}
}

/* Answer with status now (no data moves). */
void
nvmf_req_fail(struct nvmf_req *req, uint16_t status)
{
	req->status = status;
	req->len = 0;
	req->state = NVMF_REQ_RESPOND;
}

/* The data direction of the command: the opcode's low bits, the fabrics type's for Fabrics. */
static uint8_t
req_dir(const struct nvmf_req *req)
{
	uint8_t opc = req->sqe[NVMF_SQE_OPC];

	if (opc == NVMF_OPC_FABRICS)
		return req->sqe[NVMF_SQE_FCTYPE] & NVMF_OPC_DIR_MASK;
	return opc & NVMF_OPC_DIR_MASK;
}

/* In-capsule data (Data Block, sub type Offset): only on I/O queues, inside what came. */
static uint16_t
req_sgl_in_capsule(struct nvmf_req *req, const uint8_t *sgl, uint32_t icd_len)
{
	uint64_t off = nvmf_get64(sgl, NVMF_SGL_ADDR);
	uint32_t len = nvmf_get32(sgl, NVMF_SGL_DATA_LEN);

	if (req->q->qid == 0)
		return NVMF_SC_SGL_INVALID_TYPE;	/* RDMA §3.3: not on the admin queue */
	if (req->dir != NVMF_DIR_TO_CTRL)
		return NVMF_SC_INVALID_FIELD;
	if (off > icd_len || len > icd_len - off)
		return NVMF_SC_SGL_INVALID_OFFSET;
	req->len = len;
	req->data = req->held->buf + NVMF_SQE_LEN + off;
	req->q->tgt->stats.in_capsule++;
	return NVMF_SC_SUCCESS;
}

static uint16_t
req_sgl_keyed(struct nvmf_req *req, const uint8_t *sgl, uint8_t sub)
{
	uint32_t len = sgl[NVMF_SGL_KEYED_LEN] | sgl[NVMF_SGL_KEYED_LEN + 1] << 8 |
		       (uint32_t)sgl[NVMF_SGL_KEYED_LEN + 2] << 16;

	if (sub != NVMF_SGL_SUB_ADDRESS && sub != NVMF_SGL_SUB_INVALIDATE)
		return NVMF_SC_SGL_INVALID_TYPE;
	if (len > req->q->tgt->conf.max_transfer)
		return NVMF_SC_SGL_INVALID_DATA_LEN;
	req->len = len;
	req->raddr = nvmf_get64(sgl, NVMF_SGL_ADDR);
	req->rkey = nvmf_get32(sgl, NVMF_SGL_KEYED_KEY);
	req->invalidate = sub == NVMF_SGL_SUB_INVALIDATE;
	return NVMF_SC_SUCCESS;
}

/* SGL1 of the command (Base, SGLs; RDMA §3.3 Figures 9 and 10): one descriptor. */
static uint16_t
req_sgl(struct nvmf_req *req, uint32_t icd_len)
{
	const uint8_t *sgl = req->sqe + NVMF_SQE_SGL1;
	uint8_t type = sgl[NVMF_SGL_ID] >> 4, sub = sgl[NVMF_SGL_ID] & 0xf;

	if (req->sqe[NVMF_SQE_FLAGS] >> NVMF_FLAGS_PSDT_SHIFT != NVMF_PSDT_SGL_MPTR_BUF ||
	    (req->sqe[NVMF_SQE_FLAGS] & NVMF_FLAGS_FUSE_MASK) != 0)
		return NVMF_SC_INVALID_FIELD;	/* Fabrics: SGLs only; no fused commands */
	if (req->dir == NVMF_DIR_NONE)
		return NVMF_SC_SUCCESS;	/* no data: whatever describes none */
	switch (type) {
	case NVMF_SGL_TYPE_KEYED:
		return req_sgl_keyed(req, sgl, sub);
	case NVMF_SGL_TYPE_DATA:
		if (sub == NVMF_SGL_SUB_ADDRESS && nvmf_get32(sgl, NVMF_SGL_DATA_LEN) == 0)
			return NVMF_SC_SUCCESS;	/* a null descriptor: no data */
		if (sub != NVMF_SGL_SUB_OFFSET)
			return NVMF_SC_SGL_INVALID_TYPE;
		return req_sgl_in_capsule(req, sgl, icd_len);
	case NVMF_SGL_TYPE_SEGMENT:
	case NVMF_SGL_TYPE_LAST_SEG:
		/* Identify Controller says MSDBD 1: a list of descriptors is refused */
		req->q->tgt->stats.sgl_multi++;
		return NVMF_SC_SGL_INVALID_COUNT;
	default:
		return NVMF_SC_SGL_INVALID_TYPE;
	}
}

static void
req_repost(struct nvmf_req *req)
{
	struct nvmf_recv *r = req->held;

	req->held = NULL;
	if (r != NULL && nvmf_recv_repost(req->q->tgt, r) != 0)
		nvmf_queue_close(req->q, "receive not posted again");
}

static bool
req_new(struct nvmf_req *req)
{
	req->state = NVMF_REQ_EXECUTE;
	if (req->status != NVMF_SC_SUCCESS) {
		req->len = 0;
		req->state = NVMF_REQ_RESPOND;
	} else if (req->len != 0 && !req->pool_buf && req->data == NULL) {
		req->state = NVMF_REQ_NEED_BUF;
	}
	/* what the command needs of its capsule is copied or in req->data */
	if (req->data == NULL)
		req_repost(req);
	return true;
}

static int
req_post(struct nvmf_req *req, enum ibv_wr_opcode op, void *addr, uint32_t len, uint32_t lkey,
	 unsigned int flags)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = (uintptr_t)req,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED | flags,
	};
	struct ibv_send_wr *bad;
	int rc;

	if (op == IBV_WR_RDMA_READ || op == IBV_WR_RDMA_WRITE) {
		wr.wr.rdma.remote_addr = req->raddr;
		wr.wr.rdma.rkey = req->rkey;
	} else if (op == IBV_WR_SEND_WITH_INV) {
		wr.invalidate_rkey = req->rkey;
	}
	rc = rte_roce_post_send(req->q->qp, &wr, &bad);
	if (rc != 0) {
		nvmf_queue_close(req->q, "send not posted");
		return rc;
	}
	req->wrs++;
	req->q->posted++;
	return 0;
}

static bool
req_need_buf(struct nvmf_req *req)
{
	struct nvmf_tgt *tgt = req->q->tgt;

	req->data = nvmf_buf_get(tgt);
	if (req->data == NULL) {
		tgt->stats.buffer_waits++;
		TAILQ_INSERT_TAIL(&tgt->buf_wait, req, link);
		return false;
	}
	req->pool_buf = true;
	if (req->dir != NVMF_DIR_TO_CTRL) {
		req->state = NVMF_REQ_EXECUTE;
		return true;
	}
	req->state = NVMF_REQ_DATA_IN;
	if (req_post(req, IBV_WR_RDMA_READ, req->data, req->len, tgt->pool_mr->lkey, 0) == 0)
		tgt->stats.rdma_reads++;
	return false;
}

/* Woken by the READ's completion (nvmf_req_send_done()). */
static bool
req_data_in(struct nvmf_req *req)
{
	req->state = NVMF_REQ_EXECUTE;
	return true;
}

static bool
req_execute(struct nvmf_req *req)
{
	req->state = NVMF_REQ_RESPOND;
	if (req->q->ctrl != NULL)
		nvmf_ctrl_keep_alive(req->q->ctrl);	/* any command counts (traffic based) */
	if (req->sqe[NVMF_SQE_OPC] == NVMF_OPC_FABRICS)
		nvmf_fabrics_exec(req);
	else if (req->q->ctrl == NULL || !(req->q->ctrl->csts & NVMF_CSTS_RDY))
		nvmf_req_fail(req, NVMF_SC_CMD_SEQ_ERROR);	/* Base: Connect, then CC.EN */
	else if (req->q->qid == 0)
		nvmf_admin_exec(req);
	else
		nvmf_io_exec(req);
	if (req->state == NVMF_REQ_IO_WAIT)
		return false;	/* nvmf_req_io_done() */
	if (req->held != NULL)
		req_repost(req);	/* the in-capsule data is consumed */
	return req->state != NVMF_REQ_AER_WAIT;
}

static void
req_cqe(struct nvmf_req *req)
{
	struct nvmf_queue *q = req->q;
	uint16_t sf = (uint16_t)((req->status & 0x7ff) << 1);

	if (req->status != NVMF_SC_SUCCESS) {
		sf |= NVMF_DNR;
		req_status_count(&q->tgt->stats, req->status);
		if (q->ctrl != NULL)
			nvmf_ctrl_error_record(q->ctrl, req, sf);
	}
	memset(req->cqe, 0, sizeof(req->cqe));
	nvmf_put32(req->cqe, NVMF_CQE_DW0, req->dw0);
	nvmf_put32(req->cqe, NVMF_CQE_DW1, req->dw1);
	nvmf_put16(req->cqe, NVMF_CQE_SQHD, q->sqflow_off ? NVMF_SQHD_FLOW_OFF : q->sqhd);
	nvmf_put16(req->cqe, NVMF_CQE_SQID, q->qid);
	memcpy(req->cqe + NVMF_CQE_CID, req->sqe + NVMF_SQE_CID, 2);
	nvmf_put16(req->cqe, NVMF_CQE_STATUS, sf);
}

/* RDMA §3.3: the data's WRITEs are posted on the QP before the response. */
static bool
req_respond(struct nvmf_req *req)
{
	struct nvmf_tgt *tgt = req->q->tgt;
	enum ibv_wr_opcode op = IBV_WR_SEND;

	req->state = NVMF_REQ_RESPONSE_SENT;
	if (req->q->state == NVMF_Q_DRAINING) {
		if (req->wrs == 0)
			nvmf_req_drop(req);
		return false;
	}
	if (req->status == NVMF_SC_SUCCESS && req->dir == NVMF_DIR_TO_HOST && req->len != 0) {
		if (req_post(req, IBV_WR_RDMA_WRITE, req->data, req->len, tgt->pool_mr->lkey, 0))
			return false;
		tgt->stats.rdma_writes++;
	}
	req_cqe(req);
	if (req->invalidate && req->rkey != 0) {
		op = IBV_WR_SEND_WITH_INV;
		tgt->stats.send_inv++;
	}
	if (req_post(req, op, req->cqe, sizeof(req->cqe), 0, IBV_SEND_INLINE) == 0)
		tgt->stats.responses++;
	return false;
}

static bool
req_wait(struct nvmf_req *req)
{
	RTE_SET_USED(req);
	return false;
}

static bool (*const req_handlers[NVMF_REQ_STATES])(struct nvmf_req *) = {
	[NVMF_REQ_FREE] = req_wait,
	[NVMF_REQ_NEW] = req_new,
	[NVMF_REQ_NEED_BUF] = req_need_buf,
	[NVMF_REQ_DATA_IN] = req_data_in,
	[NVMF_REQ_EXECUTE] = req_execute,
	[NVMF_REQ_IO_WAIT] = req_wait,
	[NVMF_REQ_AER_WAIT] = req_wait,
	[NVMF_REQ_RESPOND] = req_respond,
	[NVMF_REQ_RESPONSE_SENT] = req_wait,
};

void
nvmf_req_run(struct nvmf_req *req)
{
	while (req_handlers[req->state](req))
		;
}

/* The file I/O of a request is done (req->status says how): respond. */
void
nvmf_req_io_done(struct nvmf_req *req)
{
	req->q->io_reqs--;
	req_repost(req);	/* the in-capsule data is written */
	req->state = NVMF_REQ_RESPOND;
	nvmf_req_run(req);	/* a draining queue drops it there */
}

/* Back to the free list: buffer and capsule given back. */
void
nvmf_req_drop(struct nvmf_req *req)
{
	struct nvmf_queue *q = req->q;

	if (req->pool_buf)
		nvmf_buf_put(q->tgt, req->data);
	req_repost(req);
	if (req->state == NVMF_REQ_AER_WAIT && q->ctrl != NULL)
		nvmf_ctrl_aer_forget(q->ctrl, req);
	req->state = NVMF_REQ_FREE;
	TAILQ_INSERT_HEAD(&q->free_req, req, link);
}

static void
req_start(struct nvmf_req *req, struct nvmf_recv *r, uint32_t byte_len)
{
	struct nvmf_queue *q = req->q;

	memcpy(req->sqe, r->buf, NVMF_SQE_LEN);
	req->status = NVMF_SC_SUCCESS;
	req->dw0 = 0;
	req->dw1 = 0;
	req->len = 0;
	req->data = NULL;
	req->pool_buf = false;
	req->invalidate = false;
	req->rkey = 0;
	req->wrs = 0;
	req->held = r;
	req->dir = req_dir(req);
	/* Base: the head moves with each command the controller takes */
	q->sqhd = (uint16_t)((q->sqhd + 1) % ((uint32_t)q->sqsize + 1));
	req->status = req_sgl(req, byte_len - NVMF_SQE_LEN);
	req->state = NVMF_REQ_NEW;
}

/*
 * A work request failed: counted unless it was flushed (the QP went to
 * ERR for another reason, counted where it happened); the queue goes.
 */
static void
req_wc_error(struct nvmf_queue *q, const struct ibv_wc *wc, const char *what)
{
	if (wc->status != IBV_WC_WR_FLUSH_ERR) {
		q->tgt->stats.wc_errors++;
		NVMF_LOG(INFO, "queue %u: %s failed: status %d", q->qid, what, wc->status);
	}
	nvmf_queue_close(q, "work request failed");
}

/* A capsule not taken: an SRQ slot goes back to the SRQ, a queue's own one goes with its queue. */
static void
req_recv_unused(struct nvmf_queue *q, struct nvmf_recv *r)
{
	if (r->q == NULL)
		nvmf_srq_post(q->tgt, r);
}

void
nvmf_req_recv_done(struct nvmf_queue *q, struct nvmf_recv *r, const struct ibv_wc *wc)
{
	struct nvmf_req *req;

	if (r->q != NULL)
		q->posted--;
	if (wc->status != IBV_WC_SUCCESS) {
		req_recv_unused(q, r);
		req_wc_error(q, wc, "receive");
		return;
	}
	if (q->state == NVMF_Q_DRAINING) {
		req_recv_unused(q, r);
		return;
	}
	q->tgt->stats.capsules++;
	if (wc->byte_len < NVMF_SQE_LEN) {
		/* no command to answer: a transport error, the queue goes (RDMA §3.5) */
		q->tgt->stats.capsule_short++;
		req_recv_unused(q, r);
		nvmf_queue_close(q, "capsule under 64 bytes");
		return;
	}
	req = TAILQ_FIRST(&q->free_req);
	if (req == NULL) {
		q->tgt->stats.capsule_overflow++;
		req_recv_unused(q, r);
		nvmf_queue_close(q, "more commands than the queue holds");
		return;
	}
	TAILQ_REMOVE(&q->free_req, req, link);
	req_start(req, r, wc->byte_len);
	nvmf_req_run(req);
}

void
nvmf_req_send_done(struct nvmf_req *req, const struct ibv_wc *wc)
{
	struct nvmf_queue *q = req->q;

	q->posted--;
	req->wrs--;
	/* an SGL the host's MR does not cover ends here: NAK, QP in error */
	if (wc->status != IBV_WC_SUCCESS)
		req_wc_error(q, wc, req->state == NVMF_REQ_DATA_IN ? "RDMA READ" :
				    req->wrs != 0 ? "RDMA WRITE" : "SEND");
	if (req->wrs != 0)
		return;
	if (q->state == NVMF_Q_DRAINING || req->state == NVMF_REQ_RESPONSE_SENT) {
		nvmf_req_drop(req);
		return;
	}
	nvmf_req_run(req);	/* DATA_IN: the host's data is here */
}
