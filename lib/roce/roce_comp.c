/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Completer: responses -> send completions (IBA chapter 9; K:rxe_comp.c).
 *
 * A state machine run per received response (and, without a packet, from
 * the timers and after local errors): one small handler per state returns
 * the next state. Completions go to the send CQ strictly in posting order;
 * an unsignaled WQE produces none unless it fails.
 *
 * Retries: a sequence NAK, an implied NAK (a response beyond a READ/atomic
 * not answered yet, doc/wire-format.md §6.4) and the local ACK timeout go back to the
 * oldest unacknowledged PSN and use one of retry_cnt. retry_cnt 7 is NOT
 * infinite: the IBTA defines 7 as infinite only for the RNR retry counter
 * (doc/wire-format.md §7; rxe treats both alike; a vanished peer under ibv_rc_pingpong's
 * retry_cnt 7 then hangs forever, here it fails after 7 retries).
 * RNR NAKs wait rte_roce_rnr_timer_usec(code) and use one of rnr_retry;
 * rnr_retry 7 retries forever.
 */

#include <inttypes.h>

#include <rte_common.h>

#include "rte_roce_hdr.h"
#include "rte_roce_opcode.h"
#include "rte_roce_pkt.h"
#include "roce_log.h"
#include "roce_qp.h"
#include "roce_transport.h"
#include "roce_wr.h"

enum comp_state {
	COMP_GET_WQE,		/* oldest outstanding WQE */
	COMP_CHECK_PSN,		/* response against the WQE's and the expected PSNs */
	COMP_CHECK_ACK,		/* what kind of response */
	COMP_READ,		/* place READ response data */
	COMP_ATOMIC,		/* store the original value of an atomic */
	COMP_ACK,		/* ACK: PSNs up to it acknowledged */
	COMP_COMPLETE,		/* the WQE is done: completion, retire */
	COMP_RETRY,		/* go-back-N from the oldest unacknowledged PSN */
	COMP_RNR,		/* RNR NAK: wait, then go back to its PSN */
	COMP_ERROR,		/* the WQE failed: error completion, QP to ERR */
	COMP_DONE,		/* nothing more for this packet */
};

/* State names, for the debug log (as rxe's comp_state_name[]). */
static const char *const comp_state_name[] = {
	[COMP_GET_WQE] = "GET_WQE",
	[COMP_CHECK_PSN] = "CHECK_PSN",
	[COMP_CHECK_ACK] = "CHECK_ACK",
	[COMP_READ] = "READ",
	[COMP_ATOMIC] = "ATOMIC",
	[COMP_ACK] = "ACK",
	[COMP_COMPLETE] = "COMPLETE",
	[COMP_RETRY] = "RETRY",
	[COMP_RNR] = "RNR",
	[COMP_ERROR] = "ERROR",
	[COMP_DONE] = "DONE",
};

/* What a run works on. */
struct comp_ctx {
	enum comp_state from;		/* the state that led to the current one */
	struct roce_qp *qp;
	const struct rte_roce_pkt *pkt;	/* NULL without a packet */
	const struct rte_mbuf *m;
	struct roce_send_wqe *wqe;
	enum ibv_wc_status status;
	bool completed;			/* a WQE completed: the timer and the requester follow */
};

typedef enum comp_state (*comp_handler_t)(struct comp_ctx *ctx);

static void
reset_retry_counters(struct roce_qp *qp)
{
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
	qp->comp.retrying = false;
}

/*
 * The local ACK timer runs while PSNs are outstanding (K:rxe_comp.c,
 * rxe_req.c), and after a retry until its replay makes progress: a replay
 * that cannot leave (the TX queue held by a link or peer that is gone, so
 * the QP is not run) still uses up retry_cnt, and the WR fails with
 * RETRY_EXC_ERR after timeout x (retry_cnt + 1) instead of never.
 */
static bool
retrans_outstanding(const struct roce_qp *qp)
{
	return qp->comp.psn != qp->req.psn || qp->comp.retrying;
}

static void
update_retrans_timer(struct roce_qp *qp)
{
	struct roce_timer_wheel *wheel = &qp->lane->timers;

	if (!retrans_outstanding(qp) || qp->comp.timeout_us == 0 || qp->comp.rnr_wait)
		roce_timer_cancel(wheel, &qp->comp.retrans);
	else
		roce_timer_arm(wheel, &qp->comp.retrans, qp->comp.timeout_us);
}

/* Progress: an expected response arrived. */
static void
comp_progress(struct roce_qp *qp, uint32_t psn)
{
	qp->comp.psn = rte_roce_psn_add(psn, 1);
	reset_retry_counters(qp);
	update_retrans_timer(qp);
	/* The window moved: the requester may send again. */
	roce_dev_qp_schedule(qp->dev, qp);
}

/* A response that matches nothing outstanding: counted and dropped. */
static enum comp_state
comp_drop(struct comp_ctx *ctx)
{
	ROCE_COUNT(ctx->qp->lane->xstats.rx_drops[ROCE_RX_DROP_RESP_STALE]);
	return COMP_DONE;
}

/* A response beyond the one expected: the ones between were lost (mlx5 implied_nak_seq_err). */
static enum comp_state
comp_implied_nak(struct roce_qp *qp)
{
	if (qp->comp.retrying)
		return COMP_DONE;
	ROCE_QP_STAT_INC(qp, implied_nak_seq_err);
	return COMP_RETRY;
}

/*
 * A NAK acknowledges the PSNs before its own. Acknowledged PSNs are forward
 * progress: the retry counters start again, so that a long message under
 * loss is not failed by NAKs that each moved it on.
 */
static void
comp_implied_ack(struct roce_qp *qp, uint32_t psn)
{
	if (rte_roce_psn_cmp(psn, qp->comp.psn) <= 0)
		return;
	qp->comp.psn = psn;
	reset_retry_counters(qp);
}

static enum comp_state
comp_get_wqe(struct comp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;
	uint32_t idx = roce_sq_consumer(qp);
	/* A packet that finds nothing outstanding at once answers nothing. */
	bool unexpected = ctx->pkt != NULL && ctx->from == COMP_DONE;

	if (idx == roce_sq_producer(qp))
		return unexpected ? comp_drop(ctx) : COMP_DONE;
	ctx->wqe = roce_sq_wqe(qp, idx);
	switch (ctx->wqe->tx.state) {
	case ROCE_WQE_FAILED:
		ctx->status = ctx->wqe->tx.status;
		return COMP_ERROR;
	case ROCE_WQE_DONE:
		/* A local operation, oldest now: nothing to wait for. */
		return COMP_COMPLETE;
	case ROCE_WQE_NEW:
		return unexpected ? comp_drop(ctx) : COMP_DONE;
	default:
		return ctx->pkt != NULL ? COMP_CHECK_PSN : COMP_DONE;
	}
}

static enum comp_state
comp_check_psn(struct comp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;
	const struct rte_roce_pkt *pkt = ctx->pkt;
	struct roce_send_wqe *wqe = ctx->wqe;
	int32_t diff;

	/*
	 * A response to a PSN never sent answers nothing (IBTA Vol. 1 §9.7: a
	 * response acknowledges requests that were sent); taken as a coalesced
	 * ACK it would complete WRs the responder never saw.
	 */
	if (rte_roce_psn_cmp(pkt->psn, qp->req.psn_end) >= 0)
		return comp_drop(ctx);
	diff = rte_roce_psn_cmp(pkt->psn, wqe->tx.last_psn);
	if (diff > 0) {
		/* Implied NAK: the READ/atomic was not answered (K:rxe_comp.c check_psn). */
		if (roce_wr_is_rd_atomic(wqe->opcode))
			return wqe->tx.state == ROCE_WQE_PENDING ? comp_implied_nak(qp) : COMP_DONE;
		/*
		 * Implied (coalesced) ACK of a SEND/WRITE (K:rxe_comp.c check_psn;
		 * ACKs are cumulative, doc/wire-format.md §6.4). Below psn_end, so
		 * every packet of this WQE went out and arrived, even when a retry
		 * has gone back into it since and is sending it again (SENDING).
		 * Ignored, it left a QP whose replay a full TX queue held retrying
		 * until RETRY_EXC_ERR while every answer came (doc/soak-fuzz.md).
		 * It is progress: the retry counters start again.
		 */
		comp_implied_ack(qp, rte_roce_psn_add(wqe->tx.last_psn, 1));
		return COMP_COMPLETE;
	}
	diff = rte_roce_psn_cmp(pkt->psn, qp->comp.psn);
	/* A stale response (duplicate, or of a packet retried since). */
	if (diff < 0)
		return comp_drop(ctx);
	/*
	 * A READ response after a lost one: ask again at once for the rest
	 * (rxe drops it and waits for its timer, K:rxe_comp.c check_psn). The
	 * responses still coming from the first request do not start more
	 * retries: comp.retrying holds until the replay makes progress.
	 */
	if (diff > 0 && roce_wr_is_rd_atomic(wqe->opcode)) {
		if (qp->comp.retrying || pkt->opcode == RTE_ROCE_OP_RC_ACKNOWLEDGE)
			return comp_drop(ctx);
		return comp_implied_nak(qp);
	}
	return COMP_CHECK_ACK;
}

/* Status of a NAK code (doc/wire-format.md §5.4; K:rxe_comp.c check_ack). */
static enum ibv_wc_status
nak_status(uint8_t code)
{
	switch (code) {
	case RTE_ROCE_AETH_NAK_INV_REQ:
		return IBV_WC_REM_INV_REQ_ERR;
	case RTE_ROCE_AETH_NAK_REM_ACCESS:
		return IBV_WC_REM_ACCESS_ERR;
	default:
		/* REM_OP and anything unknown, as rxe. */
		return IBV_WC_REM_OP_ERR;
	}
}

static enum comp_state
comp_check_aeth(struct comp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;
	const struct rte_roce_pkt *pkt = ctx->pkt;
	uint8_t syn = pkt->aeth.syndrome;

	switch (syn & RTE_ROCE_AETH_TYPE_MASK) {
	case RTE_ROCE_AETH_TYPE_ACK:
		/* A plain ACK inside a READ/atomic's PSNs means nothing. */
		return roce_wr_is_rd_atomic(ctx->wqe->opcode) ? comp_drop(ctx) : COMP_ACK;
	case RTE_ROCE_AETH_TYPE_RNR:
		return COMP_RNR;
	case RTE_ROCE_AETH_TYPE_NAK:
		if (syn != RTE_ROCE_AETH_NAK_PSN_SEQ) {
			ctx->status = nak_status(syn);
			return COMP_ERROR;
		}
		ROCE_QP_STAT_INC(qp, rcvd_seq_err);
		/* Every PSN before the NAK's is acknowledged (K:rxe_comp.c check_ack). */
		comp_implied_ack(qp, pkt->psn);
		qp->comp.retrying = false;
		return COMP_RETRY;
	default:
		/* AETH kind 10b is reserved (IBTA Vol. 1 §9.3, doc/wire-format.md §5.1): dropped. */
		return comp_drop(ctx);
	}
}

static enum comp_state
comp_check_ack(struct comp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;
	struct roce_send_wqe *wqe = ctx->wqe;
	uint8_t prev = ctx->qp->comp.opcode;

	switch (pkt->opcode) {
	case RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE:
	case RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_LAST:
		if (prev != RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST &&
		    prev != RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE)
			return comp_drop(ctx);
		/* fall through */
	case RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST:
	case RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY:
		/* FLUSH and ATOMIC_WRITE are answered by a READ response too (K:rxe_comp.c check_ack). */
		return (roce_wr_info[wqe->opcode].flags & (ROCE_WRF_READ | ROCE_WRF_EMPTY_RESP)) != 0 ?
		       COMP_READ : comp_drop(ctx);
	case RTE_ROCE_OP_RC_ATOMIC_ACKNOWLEDGE:
		return (roce_wr_info[wqe->opcode].flags & ROCE_WRF_ATOMIC) != 0 ? COMP_ATOMIC :
										   comp_drop(ctx);
	case RTE_ROCE_OP_RC_ACKNOWLEDGE:
		return comp_check_aeth(ctx);
	default:
		return comp_drop(ctx);
	}
}

static enum comp_state
comp_read(struct comp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;
	const struct rte_roce_pkt *pkt = ctx->pkt;
	struct roce_send_wqe *wqe = ctx->wqe;
	bool last_pkt = pkt->psn == wqe->tx.last_psn;
	uint64_t off = (uint64_t)((pkt->psn - wqe->tx.first_psn) & RTE_ROCE_PSN_MASK) * qp->mtu;
	/* The data a READ asked for; a FLUSH or ATOMIC_WRITE gets a READ response of none. */
	uint64_t len = (roce_wr_info[wqe->opcode].flags & ROCE_WRF_READ) != 0 ? wqe->length : 0;
	int err;

	/* Path MTU bytes per response, the rest in the last: nothing more, nothing less. */
	if (rte_roce_opcode_is_end(pkt->info) != last_pkt ||
	    pkt->payload_len != RTE_MIN((uint64_t)qp->mtu, len - off)) {
		ctx->status = IBV_WC_BAD_RESP_ERR;
		return COMP_ERROR;
	}
	if (pkt->psn == wqe->tx.first_psn)
		qp->comp.cur = (struct roce_sge_cursor){ 0, 0 };
	err = roce_sge_scatter_mbuf(wqe->sge, wqe->num_sge, &qp->comp.cur, ctx->m,
				    pkt->payload_off, pkt->payload_len);
	if (err != 0) {
		ctx->status = roce_copy_status(err);
		return COMP_ERROR;
	}
	qp->comp.opcode = pkt->opcode;
	comp_progress(qp, pkt->psn);
	return last_pkt ? COMP_COMPLETE : COMP_DONE;
}

static enum comp_state
comp_atomic(struct comp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;
	struct roce_send_wqe *wqe = ctx->wqe;
	struct roce_sge_cursor cur = { 0, 0 };
	/* The original value lands in local memory in host order (K:rxe_comp.c do_atomic). */
	uint64_t orig = ctx->pkt->atmack_orig;
	int err;

	err = roce_sge_scatter(wqe->sge, wqe->num_sge, &cur, &orig, sizeof(orig));
	if (err != 0) {
		ctx->status = roce_copy_status(err);
		return COMP_ERROR;
	}
	comp_progress(qp, ctx->pkt->psn);
	return COMP_COMPLETE;
}

static enum comp_state
comp_ack(struct comp_ctx *ctx)
{
	comp_progress(ctx->qp, ctx->pkt->psn);
	return rte_roce_psn_cmp(ctx->pkt->psn, ctx->wqe->tx.last_psn) >= 0 ? COMP_COMPLETE :
									      COMP_DONE;
}

/*
 * Retire the oldest WQE and post its completion (if due). false on CQ
 * overrun (which the reservation made when the WQE started rules out,
 * unless the CQ already overran for another reason). Retired first: an
 * application on another thread that polls the completion may post again
 * at once and must find the slot free.
 */
static bool
comp_post(struct roce_qp *qp, struct roce_send_wqe *wqe, enum ibv_wc_status status)
{
	bool post = status != IBV_WC_SUCCESS || (wqe->send_flags & IBV_SEND_SIGNALED);
	struct ibv_wc wc;

	/*
	 * Read before the slot is retired; written only when it is posted: an
	 * unsignaled WQE (most of them with perftest's --cq-mod) has no
	 * completion to fill (~12 instructions a WQE).
	 */
	if (post)
		wc = (struct ibv_wc){
			.wr_id = wqe->wr_id,
			.status = status,
			.opcode = roce_wr_info[wqe->opcode].wc,
			.byte_len = wqe->length,	/* as rxe make_send_cqe() */
			.qp_num = qp->ibv.qp_num,
		};
	if (roce_wr_is_rd_atomic(wqe->opcode) && qp->req.rd_atomic > 0)
		qp->req.rd_atomic--;
	/*
	 * A retry moved the requester back to this WQE and a response of its
	 * first transmission completed it: the requester goes on after it.
	 */
	if (qp->req.wqe_idx == roce_sq_consumer(qp)) {
		qp->req.wqe_idx++;
		qp->req.pkt_idx = 0;
		if (rte_roce_psn_cmp(qp->req.psn, rte_roce_psn_add(wqe->tx.last_psn, 1)) < 0)
			qp->req.psn = rte_roce_psn_add(wqe->tx.last_psn, 1);
	}
	/* The slot's next WQE starts afresh (the posting path never writes tx). */
	wqe->tx.state = ROCE_WQE_NEW;
	roce_sq_release_cq_slot(qp, wqe);
	roce_sq_count_send(qp, wqe);
	roce_sq_retire(qp);
	return !post || roce_cq_push(qp->scq, &wc) == 0;
}

/* UC/UD have no responses: a WQE completes once its last packet was handed to the port. */
void
roce_comp_unreliable(struct roce_qp *qp)
{
	while (roce_sq_consumer(qp) != qp->req.wqe_idx) {
		if (!comp_post(qp, roce_sq_wqe(qp, roce_sq_consumer(qp)), IBV_WC_SUCCESS)) {
			roce_qp_error(qp);
			return;
		}
	}
}

static enum comp_state
comp_complete(struct comp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;
	uint32_t next = rte_roce_psn_add(ctx->wqe->tx.last_psn, 1);

	/* A local operation (no packet) acknowledges no PSN. */
	if (ctx->wqe->tx.npkts != 0 && rte_roce_psn_cmp(next, qp->comp.psn) > 0)
		qp->comp.psn = next;
	if (!comp_post(qp, ctx->wqe, IBV_WC_SUCCESS)) {
		roce_qp_error(qp);
		return COMP_DONE;
	}
	ctx->completed = true;
	/* A coalesced ACK may complete more WQEs. */
	return COMP_GET_WQE;
}

static enum comp_state
comp_retry(struct comp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;

	if (qp->comp.retry_left == 0) {
		ROCE_QP_STAT_INC(qp, retry_exceeded_err);
		ctx->status = IBV_WC_RETRY_EXC_ERR;
		return COMP_ERROR;
	}
	qp->comp.retry_left--;
	qp->comp.retrying = true;
	ROCE_QP_STAT_INC(qp, completer_retry_err);
	roce_req_rewind(qp, qp->comp.psn);
	update_retrans_timer(qp);
	roce_dev_qp_schedule(qp->dev, qp);
	return COMP_DONE;
}

static enum comp_state
comp_rnr(struct comp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;
	const struct rte_roce_pkt *pkt = ctx->pkt;

	ROCE_QP_STAT_INC(qp, rcvd_rnr_err);
	/* PSNs before the refused one are acknowledged. */
	comp_implied_ack(qp, pkt->psn);
	if (qp->comp.rnr_left == 0) {
		ROCE_QP_STAT_INC(qp, retry_rnr_exceeded_err);
		ctx->status = IBV_WC_RNR_RETRY_EXC_ERR;
		return COMP_ERROR;
	}
	if (qp->attr.rnr_retry != ROCE_RNR_RETRY_INFINITE)
		qp->comp.rnr_left--;
	roce_req_rewind(qp, pkt->psn);
	qp->comp.rnr_wait = true;
	roce_timer_cancel(&qp->lane->timers, &qp->comp.retrans);
	roce_timer_arm(&qp->lane->timers, &qp->comp.rnr,
		       rte_roce_rnr_timer_usec(pkt->aeth.syndrome & RTE_ROCE_AETH_CODE_MASK));
	return COMP_DONE;
}

static enum comp_state
comp_error(struct comp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;

	ROCE_LOG(DEBUG, "QP %u: WQE %" PRIu64 " fails with status %d after %s", qp->ibv.qp_num,
		 ctx->wqe->wr_id, ctx->status, comp_state_name[ctx->from]);
	(void)comp_post(qp, ctx->wqe, ctx->status);
	/* Every later WQE flushes (roce_qp_error(), as rxe). */
	roce_qp_error(qp);
	return COMP_DONE;
}

static const comp_handler_t comp_handlers[] = {
	[COMP_GET_WQE] = comp_get_wqe,
	[COMP_CHECK_PSN] = comp_check_psn,
	[COMP_CHECK_ACK] = comp_check_ack,
	[COMP_READ] = comp_read,
	[COMP_ATOMIC] = comp_atomic,
	[COMP_ACK] = comp_ack,
	[COMP_COMPLETE] = comp_complete,
	[COMP_RETRY] = comp_retry,
	[COMP_RNR] = comp_rnr,
	[COMP_ERROR] = comp_error,
};

static void
comp_run(struct comp_ctx *ctx, enum comp_state state)
{
	enum comp_state next;

	while (state != COMP_DONE) {
		next = comp_handlers[state](ctx);
		ctx->from = state;
		state = next;
	}
	if (!ctx->completed)
		return;
	/*
	 * Once per run, not per WQE (an ACK coalesced over a burst completes
	 * dozens; re-arming for each cost ~60 instructions a message): the
	 * timer restarts on progress and stops when nothing is outstanding; a
	 * QP that went to ERR keeps its timers stopped.
	 */
	if (roce_qp_state(ctx->qp) != IBV_QPS_ERR)
		update_retrans_timer(ctx->qp);
	/* A fence, max_rd_atomic or the window may have held the requester. */
	roce_dev_qp_schedule(ctx->qp->dev, ctx->qp);
}

void
roce_comp_recv(struct roce_qp *qp, const struct rte_roce_pkt *pkt, const struct rte_mbuf *m)
{
	struct comp_ctx ctx = { .from = COMP_DONE, .qp = qp, .pkt = pkt, .m = m };

	comp_run(&ctx, COMP_GET_WQE);
}

void
roce_comp_drain(struct roce_qp *qp)
{
	struct comp_ctx ctx = { .from = COMP_DONE, .qp = qp };

	comp_run(&ctx, COMP_GET_WQE);
}

/* Local ACK timeout: go back to the oldest unacknowledged PSN. */
static void
comp_retrans_expired(struct roce_timer *t)
{
	struct roce_qp *qp = container_of(t, struct roce_qp, comp.retrans);
	struct comp_ctx ctx = { .from = COMP_DONE, .qp = qp };
	enum ibv_qp_state state = roce_qp_state(qp);
	enum comp_state next;

	if ((state != IBV_QPS_RTS && state != IBV_QPS_SQD) || !retrans_outstanding(qp))
		return;
	next = comp_get_wqe(&ctx);
	if (next == COMP_DONE && ctx.wqe != NULL && ctx.wqe->tx.state != ROCE_WQE_NEW) {
		ROCE_QP_STAT_INC(qp, local_ack_timeout_err);
		next = COMP_RETRY;
	}
	comp_run(&ctx, next);
}

/* The RNR wait is over: the requester resends from the refused PSN. */
static void
comp_rnr_expired(struct roce_timer *t)
{
	struct roce_qp *qp = container_of(t, struct roce_qp, comp.rnr);

	qp->comp.rnr_wait = false;
	roce_dev_qp_schedule(qp->dev, qp);
}

const struct roce_engine roce_engine = {
	.retrans_expired = comp_retrans_expired,
	.rnr_expired = comp_rnr_expired,
};
