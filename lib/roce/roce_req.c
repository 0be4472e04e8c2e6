/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Requester: send WQEs -> request packets (IBA chapter 9; K:rxe_req.c).
 *
 * The requester walks the send queue ahead of the completer (req.wqe_idx),
 * numbers packets with 24-bit PSNs, sets AckReq on every last/only packet
 * and at least every ROCE_MAX_PKT_PER_ACK packets, and stops on the window
 * of unacknowledged PSNs, on max_rd_atomic outstanding READ/atomics and on
 * fences. A go-back-N retry (roce_req_rewind()) moves it back to a PSN.
 */

#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

#include "rte_roce_hdr.h"
#include "rte_roce_opcode.h"
#include "rte_roce_pkt.h"
#include "roce_qp.h"
#include "roce_transport.h"
#include "roce_wr.h"

/* Largest payload of one packet: the largest path MTU. */
#define REQ_MTU_MAX 4096

static enum rte_roce_op_pos
pkt_pos(uint32_t idx, uint32_t npkts)
{
	if (npkts == 1)
		return RTE_ROCE_POS_ONLY;
	if (idx == 0)
		return RTE_ROCE_POS_FIRST;
	return idx == npkts - 1 ? RTE_ROCE_POS_LAST : RTE_ROCE_POS_MIDDLE;
}

/* Move a cursor len bytes on in an SGE list (no access check: see payload_of()). */
static void
cursor_skip(const struct roce_send_wqe *wqe, struct roce_sge_cursor *cur, uint32_t len)
{
	uint32_t n;

	while (len > 0 && cur->idx < wqe->num_sge) {
		n = RTE_MIN(len, wqe->sge[cur->idx].length - cur->off);
		cur->off += n;
		len -= n;
		if (cur->off == wqe->sge[cur->idx].length) {
			cur->idx++;
			cur->off = 0;
		}
	}
}

/*
 * Payload of len bytes at the requester's cursor: a pointer into registered
 * memory (or the inline data) when it is contiguous, so that the builder
 * copies it once; otherwise gathered into bounce. NULL with *err on a bad
 * lkey.
 */
static const void *
payload_of(struct roce_qp *qp, struct roce_send_wqe *wqe, uint32_t off, uint32_t len,
	   uint8_t *bounce, int *err)
{
	struct roce_sge_cursor *cur = &qp->req.cur;
	const struct roce_sge *sge;

	*err = 0;
	if (len == 0)
		return NULL;
	if (wqe->send_flags & IBV_SEND_INLINE)
		return roce_send_wqe_inline(wqe) + off;
	while (cur->idx < wqe->num_sge && cur->off == wqe->sge[cur->idx].length) {
		cur->idx++;
		cur->off = 0;
	}
	sge = &wqe->sge[cur->idx];
	if (cur->idx < wqe->num_sge && sge->mr != NULL && sge->length - cur->off >= len) {
		const void *p = (const void *)(uintptr_t)(sge->addr + cur->off);

		cursor_skip(wqe, cur, len);
		return p;
	}
	*err = roce_sge_gather(wqe->sge, wqe->num_sge, cur, bounce, len);
	return *err == 0 ? bounce : NULL;
}

/* Fill the extension headers of the request packet at payload offset off of a WQE. */
static void
req_fill_ext(const struct roce_send_wqe *wqe, struct rte_roce_pkt *pkt, uint32_t off)
{
	uint32_t mask = pkt->info->hdr_mask;

	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_RETH)) {
		/* A retried READ asks for the rest only (K:rxe_req.c req_retry). */
		pkt->reth.va = wqe->wr.rdma.remote_addr + off;
		pkt->reth.rkey = wqe->wr.rdma.rkey;
		pkt->reth.len = wqe->length - off;
	}
	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_IMMDT))
		pkt->imm = wqe->ex.imm_data;
	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_IETH))
		pkt->ieth_rkey = wqe->ex.invalidate_rkey;
	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_FETH))
		pkt->feth = wqe->ex.feth;
	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_ATMETH)) {
		pkt->atmeth.va = wqe->wr.atomic.remote_addr;
		pkt->atmeth.rkey = wqe->wr.atomic.rkey;
		if (wqe->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
			pkt->atmeth.swap_add = wqe->wr.atomic.swap;
			pkt->atmeth.compare = wqe->wr.atomic.compare_add;
		} else {
			pkt->atmeth.swap_add = wqe->wr.atomic.compare_add;
		}
	}
}

/* Take a new WQE: number its PSNs. false if it must wait (fence, max_rd_atomic). */
static bool
req_start_wqe(struct roce_qp *qp, struct roce_send_wqe *wqe)
{
	struct roce_req_state *req = &qp->req;
	bool rd_atomic = roce_wr_is_rd_atomic(wqe->opcode);

	/* IBV_SEND_FENCE: wait for every earlier READ/atomic (IBA 10.8.3.3). */
	if ((wqe->send_flags & IBV_SEND_FENCE) && req->rd_atomic > 0)
		return false;
	/*
	 * Local Invalidate Fence (IBA 10.6.5.1): a LOCAL_INV waits until every
	 * earlier WQE completed, made mandatory as rxe does (K:rxe_req.c
	 * rxe_wqe_is_fenced): a READ still placing data into the MR must not
	 * find it invalidated.
	 */
	if (wqe->opcode == IBV_WR_LOCAL_INV && req->wqe_idx != roce_sq_consumer(qp))
		return false;
	/* At most max_rd_atomic READ/atomics outstanding (doc/wire-format.md §6.5). */
	if (rd_atomic && req->rd_atomic >= qp->attr.max_rd_atomic)
		return false;
	/*
	 * Send-side credit: a WQE starts only with a send CQ slot kept for
	 * its completion. Every WQE, signaled or not: an unsignaled one
	 * completes in error (IBA 10.7.3.1) or flushes with a completion.
	 * A WQE moved back by a retry keeps the slot it has. No slot: the QP
	 * is held and runs again at the next progress pass to look, until
	 * the application's poll frees one. Polling (rather than a wake-up
	 * from rte_roce_poll_cq()) cannot lose a wake-up: the only shared
	 * datum is the CQ's consumer index, read with ACQUIRE against the
	 * RELEASE of the poll (roce_cq_room()); the poll path stays one load
	 * and one store, and the CQ needs no list of held QPs, which a CQ
	 * shared by several QPs would need.
	 */
	if (!wqe->tx.cq_slot) {
		if (!roce_cq_reserve(qp->scq)) {
			ROCE_QP_STAT_INC(qp, send_cq_full_stalls);
			roce_dev_qp_schedule(qp->dev, qp);
			return false;
		}
		wqe->tx.cq_slot = 1;
	}
	wqe->tx.first_psn = req->psn;
	/* A READ has a response per MTU; the other single requests one (FLUSH: its length is no data). */
	wqe->tx.npkts = rd_atomic && (roce_wr_info[wqe->opcode].flags & ROCE_WRF_READ) == 0 ? 1 :
			roce_msg_npkts(wqe->length, qp->mtu);
	wqe->tx.last_psn = rte_roce_psn_add(req->psn, wqe->tx.npkts - 1);
	wqe->tx.state = ROCE_WQE_SENDING;
	wqe->tx.status = IBV_WC_SUCCESS;
	req->pkt_idx = 0;
	req->cur = (struct roce_sge_cursor){ 0, 0 };
	if (rd_atomic)
		req->rd_atomic++;
	return true;
}

/* The requester found a local error in the WQE: it completes in order with status. */
static void
req_fail(struct roce_qp *qp, struct roce_send_wqe *wqe, enum ibv_wc_status status)
{
	wqe->tx.state = ROCE_WQE_FAILED;
	wqe->tx.status = status;
	qp->req.failed = true;
	roce_comp_drain(qp);
}

/*
 * Run a local operation (bind a memory window, invalidate a key) as the
 * requester reaches it: it takes effect in posting order and completes in
 * order with the rest (K:rxe_req.c rxe_do_local_ops; the statuses are
 * rxe's). false if it failed: the QP goes to ERR.
 */
static bool
req_local_op(struct roce_qp *qp, struct roce_send_wqe *wqe)
{
	int rc;

	if (wqe->opcode == IBV_WR_BIND_MW)
		rc = roce_mw_bind(qp, &wqe->wr.bind);
	else
		rc = roce_rkey_invalidate(qp, wqe->ex.invalidate_rkey);
	if (rc < 0) {
		req_fail(qp, wqe, wqe->opcode == IBV_WR_BIND_MW ? IBV_WC_MW_BIND_ERR :
								   IBV_WC_LOC_QP_OP_ERR);
		return false;
	}
	/* No PSN: the completer only keeps its place in the order. */
	wqe->tx.npkts = 0;
	wqe->tx.first_psn = rte_roce_psn_add(qp->req.psn, RTE_ROCE_PSN_MASK);
	wqe->tx.last_psn = wqe->tx.first_psn;
	wqe->tx.state = ROCE_WQE_DONE;
	qp->req.wqe_idx++;
	roce_comp_drain(qp);
	return true;
}

/* Send the next packet of wqe. 1 if sent, 0 if it must wait, -1 on a local error. */
static int
req_send_pkt(struct roce_qp *qp, struct roce_send_wqe *wqe)
{
	struct roce_req_state *req = &qp->req;
	const struct roce_wr_info *wr = &roce_wr_info[wqe->opcode];
	bool rc = qp->ibv.qp_type == IBV_QPT_RC;
	bool rd_atomic = roce_wr_is_rd_atomic(wqe->opcode);
	uint8_t bounce[REQ_MTU_MAX];
	struct roce_sge_cursor cur;
	struct rte_roce_pkt pkt;
	enum rte_roce_op_pos pos;
	const void *payload;
	uint32_t off, len;
	int err;

	/* Window: at most max_unacked PSNs beyond the oldest unacknowledged (K:rxe_req.c). */
	if (rc && rte_roce_psn_cmp(req->psn, rte_roce_psn_add(qp->comp.psn, req->max_unacked)) > 0)
		return 0;
	pos = rd_atomic ? RTE_ROCE_POS_ONLY : pkt_pos(req->pkt_idx, wqe->tx.npkts);
	off = req->pkt_idx * qp->mtu;
	roce_qp_pkt_init(qp, &pkt, wr->op[roce_wr_transport(qp->ibv.qp_type)][pos], req->psn);
	req_fill_ext(wqe, &pkt, off);
	if (qp->ibv.qp_type == IBV_QPT_UD)
		roce_ud_pkt_fill(qp, wqe, &pkt);
	/* Data only in opcodes that carry it: not READ, the atomics, FLUSH (ATOMIC_WRITE does). */
	len = 0;
	if (pkt.info->flags & RTE_ROCE_OPF_PAYLOAD)
		len = RTE_MIN(qp->mtu, wqe->length - off);
	cur = req->cur;
	payload = payload_of(qp, wqe, off, len, bounce, &err);
	if (err != 0) {
		req_fail(qp, wqe, roce_copy_status(err));
		return -1;
	}
	pkt.payload_len = len;
	/* AckReq on the last packet and every ROCE_MAX_PKT_PER_ACK (K:rxe_req.c); RC only. */
	pkt.ackreq = rc && (rte_roce_opcode_is_end(pkt.info) ||
			    req->noack_pkts >= ROCE_MAX_PKT_PER_ACK);
	/* Solicited event on the last packet of SEND / WRITE_WITH_IMM (K:rxe_req.c). */
	pkt.se = rte_roce_opcode_is_end(pkt.info) && (wqe->send_flags & IBV_SEND_SOLICITED) &&
		 (pkt.info->flags & (RTE_ROCE_OPF_SEND | RTE_ROCE_OPF_IMM)) != 0;
	err = roce_qp_xmit(qp, &pkt, payload);
	if (err == -ENOBUFS) {
		/* No mbuf or no room to transmit: the same packet again at the next poll. */
		req->cur = cur;
		roce_dev_qp_schedule(qp->dev, qp);
		return 0;
	}
	/* Any other loss is recovered by the retransmission timer (RC); UC and UD lose it. */
	if (err != 0)
		ROCE_COUNT(qp->lane->xstats.tx_errors);
	req->noack_pkts = pkt.ackreq ? 0 : req->noack_pkts + 1;

	if (rd_atomic) {
		/* A READ uses one PSN per response packet (K:rxe_req.c update_wqe_psn). */
		req->psn = rte_roce_psn_add(wqe->tx.last_psn, 1);
		req->pkt_idx = wqe->tx.npkts;
	} else {
		req->psn = rte_roce_psn_add(req->psn, 1);
		req->pkt_idx++;
	}
	if (rte_roce_psn_cmp(req->psn, req->psn_end) > 0)
		req->psn_end = req->psn;
	if (req->pkt_idx == wqe->tx.npkts) {
		wqe->tx.state = ROCE_WQE_PENDING;
		req->wqe_idx++;
		req->pkt_idx = 0;
		/* UC/UD: complete when handed to the port; nothing will answer. */
		if (!rc) {
			roce_comp_unreliable(qp);
			return 1;
		}
	}
	if (qp->comp.timeout_us != 0 && !roce_timer_pending(&qp->comp.retrans))
		roce_timer_arm(&qp->lane->timers, &qp->comp.retrans, qp->comp.timeout_us);
	return 1;
}

int
roce_req_run(struct roce_qp *qp, unsigned int budget)
{
	struct roce_req_state *req = &qp->req;
	enum ibv_qp_state state = roce_qp_state(qp);
	struct roce_send_wqe *wqe;
	unsigned int sent = 0;
	int ret;

	if ((state != IBV_QPS_RTS && state != IBV_QPS_SQD) || req->failed || qp->comp.rnr_wait)
		return 0;
	while (sent < budget && req->wqe_idx != roce_sq_producer(qp)) {
		wqe = roce_sq_wqe(qp, req->wqe_idx);
		/* A local operation run before a retry went back: not again. */
		if (wqe->tx.state == ROCE_WQE_DONE) {
			req->wqe_idx++;
			continue;
		}
		if (wqe->tx.state == ROCE_WQE_NEW) {
			/* SQD: finish the message in progress, start no new one. */
			if (state == IBV_QPS_SQD || !req_start_wqe(qp, wqe))
				break;
			if ((roce_wr_info[wqe->opcode].flags & ROCE_WRF_LOCAL) != 0) {
				if (!req_local_op(qp, wqe))
					break;
				sent++;
				continue;
			}
		}
		ret = req_send_pkt(qp, wqe);
		if (ret <= 0)
			break;
		sent++;
	}
	return sent;
}

void
roce_req_rewind(struct roce_qp *qp, uint32_t psn)
{
	struct roce_req_state *req = &qp->req;
	uint32_t prod = roce_sq_producer(qp);
	struct roce_send_wqe *wqe;
	bool found = false;
	uint32_t idx;

	req->rd_atomic = 0;
	req->noack_pkts = 0;
	for (idx = roce_sq_consumer(qp); idx != prod; idx++) {
		wqe = roce_sq_wqe(qp, idx);
		if (wqe->tx.state == ROCE_WQE_NEW || wqe->tx.state == ROCE_WQE_FAILED)
			break;
		/* A local operation took effect once and for all. */
		if (wqe->tx.state == ROCE_WQE_DONE)
			continue;
		if (found) {
			/* Later WQEs are numbered again, to the same PSNs. */
			wqe->tx.state = ROCE_WQE_NEW;
			continue;
		}
		if (rte_roce_psn_cmp(psn, wqe->tx.last_psn) > 0)
			continue;
		/*
		 * Resume inside this WQE at psn; a READ asks again for the
		 * responses not yet placed (K:rxe_req.c req_retry).
		 */
		found = true;
		if (rte_roce_psn_cmp(psn, wqe->tx.first_psn) < 0)
			psn = wqe->tx.first_psn;
		req->wqe_idx = idx;
		req->pkt_idx = (psn - wqe->tx.first_psn) & RTE_ROCE_PSN_MASK;
		req->psn = psn;
		req->cur = (struct roce_sge_cursor){ 0, 0 };
		cursor_skip(wqe, &req->cur, req->pkt_idx * qp->mtu);
		wqe->tx.state = ROCE_WQE_SENDING;
		if (roce_wr_is_rd_atomic(wqe->opcode))
			req->rd_atomic++;
	}
}
