/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Queue pairs: create/modify/query/destroy, the IBTA state machine, the
 * roles' state through it (roce_transport.h) and the flush to ERR. Posting,
 * on the application's thread, is roce_post.c.
 */

/* Logs under lib.roce.qp (roce_log.h). */
#define ROCE_LOG_TYPE roce_logtype_qp
#define ROCE_LOG_AREA "ROCE qp"

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_ah.h"
#include "roce_cq.h"
#include "roce_mcast.h"
#include "roce_dev.h"
#include "roce_log.h"
#include "roce_mr.h"
#include "roce_qp.h"
#include "roce_srq.h"
#include "roce_transport.h"
#include "roce_wr.h"

/* Attribute limits (RC:verbs.h field widths, IBA 9.7 and 10.3; 24-bit PSNs and QPNs: rte_roce_hdr.h). */
#define ROCE_TIMEOUT_MAX	31		/* 5 bits: 4.096 us x 2^timeout */
#define ROCE_MIN_RNR_TIMER_MAX	31		/* 5-bit RNR timer code */
#define ROCE_RETRY_MAX		7		/* 3 bits: retry_cnt, rnr_retry */
/* rxe's hash of the QPN into the UDP source port (K:rxe_qp.c, hash_32(): golden ratio). */
#define ROCE_HASH_GOLDEN_RATIO_32 0x61c88647u
#define ROCE_UDP_SPORT_BITS	14
/* Stride alignment of WQE slots. */
#define ROCE_WQE_ALIGN		16
#define NS_PER_US		UINT64_C(1000)

/* QP access flags (the remote rights; IBV_ACCESS_LOCAL_WRITE is accepted and ignored, as rxe). */
#define ROCE_QP_ACCESS	(IBV_ACCESS_LOCAL_WRITE | ROCE_MR_ACCESS_REMOTE)

/*
 * The QP state table (IBA 10.3.1; K:core/verbs.c qp_state_table;
 * doc/wire-format.md §8.1): per transport, current and next state,
 * whether the transition is valid and which attributes it requires and
 * allows.
 */
enum roce_qp_transport { ROCE_QPT_UD, ROCE_QPT_UC, ROCE_QPT_RC, ROCE_QPT_NB };

struct roce_qp_transition {
	bool valid;
	int req;
	int opt;
};

#define ROCE_NB_QP_STATES (IBV_QPS_ERR + 1)

#define UC_RESET_INIT	(IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define UD_RESET_INIT	(IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)
#define UC_INIT_RTR_REQ	(IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN)
#define UC_INIT_RTR_OPT	(IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX)
#define RC_RTR_RTS_REQ	(IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
			 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)
#define UC_RTS_OPT	(IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | \
			 IBV_QP_PATH_MIG_STATE)
#define UD_RTS_OPT	(IBV_QP_CUR_STATE | IBV_QP_QKEY)
#define RC_SQD_SQD_OPT	(IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
			 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC | \
			 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | \
			 IBV_QP_PKEY_INDEX | IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE)
#define UC_SQD_SQD_OPT	(IBV_QP_AV | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | \
			 IBV_QP_PKEY_INDEX | IBV_QP_PATH_MIG_STATE)

/* A transition open to every transport with no attribute. */
#define ROCE_QPT_ANY_NONE { [ROCE_QPT_UD] = { true, 0, 0 }, [ROCE_QPT_UC] = { true, 0, 0 }, \
			    [ROCE_QPT_RC] = { true, 0, 0 } }
/* Transitions every state but RESET has to RESET and ERR (IBA 10.3.1). */
#define ROCE_QPS_TO_RESET_ERR \
	[IBV_QPS_RESET] = ROCE_QPT_ANY_NONE, [IBV_QPS_ERR] = ROCE_QPT_ANY_NONE

static const struct roce_qp_transition
roce_qp_table[ROCE_NB_QP_STATES][ROCE_NB_QP_STATES][ROCE_QPT_NB] = {
	[IBV_QPS_RESET] = {
		[IBV_QPS_RESET] = ROCE_QPT_ANY_NONE,
		[IBV_QPS_INIT] = {
			[ROCE_QPT_UD] = { true, UD_RESET_INIT, 0 },
			[ROCE_QPT_UC] = { true, UC_RESET_INIT, 0 },
			[ROCE_QPT_RC] = { true, UC_RESET_INIT, 0 },
		},
	},
	[IBV_QPS_INIT] = {
		ROCE_QPS_TO_RESET_ERR,
		[IBV_QPS_INIT] = {
			[ROCE_QPT_UD] = { true, 0, UD_RESET_INIT },
			[ROCE_QPT_UC] = { true, 0, UC_RESET_INIT },
			[ROCE_QPT_RC] = { true, 0, UC_RESET_INIT },
		},
		[IBV_QPS_RTR] = {
			[ROCE_QPT_UD] = { true, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY },
			[ROCE_QPT_UC] = { true, UC_INIT_RTR_REQ, UC_INIT_RTR_OPT },
			[ROCE_QPT_RC] = { true, UC_INIT_RTR_REQ | IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER, UC_INIT_RTR_OPT },
		},
	},
	[IBV_QPS_RTR] = {
		ROCE_QPS_TO_RESET_ERR,
		[IBV_QPS_RTS] = {
			[ROCE_QPT_UD] = { true, IBV_QP_SQ_PSN, UD_RTS_OPT },
			[ROCE_QPT_UC] = { true, IBV_QP_SQ_PSN, UC_RTS_OPT },
			[ROCE_QPT_RC] = { true, RC_RTR_RTS_REQ, UC_RTS_OPT | IBV_QP_MIN_RNR_TIMER },
		},
	},
	[IBV_QPS_RTS] = {
		ROCE_QPS_TO_RESET_ERR,
		[IBV_QPS_RTS] = {
			[ROCE_QPT_UD] = { true, 0, UD_RTS_OPT },
			[ROCE_QPT_UC] = { true, 0, UC_RTS_OPT },
			[ROCE_QPT_RC] = { true, 0, UC_RTS_OPT | IBV_QP_MIN_RNR_TIMER },
		},
		[IBV_QPS_SQD] = {
			[ROCE_QPT_UD] = { true, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
			[ROCE_QPT_UC] = { true, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
			[ROCE_QPT_RC] = { true, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
		},
	},
	[IBV_QPS_SQD] = {
		ROCE_QPS_TO_RESET_ERR,
		[IBV_QPS_RTS] = {
			[ROCE_QPT_UD] = { true, 0, UD_RTS_OPT },
			[ROCE_QPT_UC] = { true, 0, UC_RTS_OPT },
			[ROCE_QPT_RC] = { true, 0, UC_RTS_OPT | IBV_QP_MIN_RNR_TIMER },
		},
		[IBV_QPS_SQD] = {
			[ROCE_QPT_UD] = { true, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY },
			[ROCE_QPT_UC] = { true, 0, UC_SQD_SQD_OPT },
			[ROCE_QPT_RC] = { true, 0, RC_SQD_SQD_OPT },
		},
	},
	[IBV_QPS_SQE] = {
		ROCE_QPS_TO_RESET_ERR,
		[IBV_QPS_RTS] = {
			[ROCE_QPT_UD] = { true, 0, UD_RTS_OPT },
			[ROCE_QPT_UC] = { true, 0, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS },
		},
	},
	[IBV_QPS_ERR] = {
		ROCE_QPS_TO_RESET_ERR,
	},
};

static enum roce_qp_transport
roce_qp_transport(const struct roce_qp *qp)
{
	switch (qp->ibv.qp_type) {
	case IBV_QPT_UD:
		return ROCE_QPT_UD;
	case IBV_QPT_UC:
		return ROCE_QPT_UC;
	default:
		return ROCE_QPT_RC;
	}
}

static const char *const roce_qp_state_names[ROCE_NB_QP_STATES] = {
	"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
};

const char *
roce_qp_state_name(enum ibv_qp_state s)
{
	return (unsigned int)s < ROCE_NB_QP_STATES ? roce_qp_state_names[s] : "unknown";
}

/* ---- Rings ---- */

void
roce_sq_retire(struct roce_qp *qp)
{
	struct roce_send_wqe *wqe = roce_sq_wqe(qp, qp->sq.cons);

	roce_sge_put(wqe->sge, wqe->num_sge);
	if (qp->ibv.qp_type == IBV_QPT_UD)
		roce_ah_put(wqe->wr.ud.ah);
	roce_queue_retire(&qp->sq, qp->sq.cons + 1);
}

struct roce_recv_wqe *
roce_rq_peek(struct roce_qp *qp)
{
	if (qp->srq != NULL)
		return roce_srq_take(qp);
	if (roce_queue_count(&qp->rq) == 0)
		return NULL;
	return roce_queue_slot(&qp->rq, qp->rq.cons);
}

void
roce_rq_consume(struct roce_qp *qp)
{
	struct roce_recv_wqe *wqe;

	if (qp->srq != NULL) {
		roce_sge_put(qp->srq_wqe->sge, qp->srq_wqe->num_sge);
		qp->srq_held = false;
		return;
	}
	wqe = roce_queue_slot(&qp->rq, qp->rq.cons);
	roce_sge_put(wqe->sge, wqe->num_sge);
	roce_queue_retire(&qp->rq, qp->rq.cons + 1);
}

/*
 * The oldest receive WQE that belongs to qp, without taking one from an
 * SRQ: the SRQ's WQEs are not the QP's to flush or drop (IBA 10.2.9; as
 * K:rxe_resp.c flush_recv_queue(), which leaves the SRQ alone).
 */
static struct roce_recv_wqe *
roce_rq_owned(struct roce_qp *qp)
{
	if (qp->srq != NULL)
		return qp->srq_held ? qp->srq_wqe : NULL;
	return roce_rq_peek(qp);
}

/* ---- Engine state (roce_transport.h: the contract) ---- */

/* Local ACK timeout: 4.096 us x 2^timeout, 0 = infinite (doc/wire-format.md §7). */
static uint64_t
roce_qp_ack_timeout_us(uint8_t timeout)
{
	if (timeout == 0)
		return 0;
	return RTE_MAX(((uint64_t)ROCE_ACK_TIMEOUT_NS_UNIT << timeout) / NS_PER_US, UINT64_C(1));
}

/* The roles' state as at creation; the timers, stopped, get the engine's handlers. */
static void
roce_qp_engine_init(struct roce_qp *qp)
{
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->resp, 0, sizeof(qp->resp));
	memset(&qp->comp, 0, sizeof(qp->comp));
	qp->req.max_unacked = ROCE_MAX_UNACKED_PSNS;
	/* Between messages: any FIRST or ONLY of the QP's transport may come. */
	qp->resp.opcode = qp->ibv.qp_type == IBV_QPT_UC ? RTE_ROCE_OP_UC_SEND_ONLY :
							  RTE_ROCE_OP_RC_SEND_ONLY;
	roce_timer_init(&qp->comp.retrans, qp->dev->engine->retrans_expired);
	roce_timer_init(&qp->comp.rnr, qp->dev->engine->rnr_expired);
}

static void
roce_qp_engine_timers_stop(struct roce_qp *qp)
{
	roce_timer_cancel(&qp->lane->timers, &qp->comp.retrans);
	roce_timer_cancel(&qp->lane->timers, &qp->comp.rnr);
}

/* After a successful modify: the attributes the roles read. */
static void
roce_qp_engine_modify(struct roce_qp *qp, const struct ibv_qp_attr *attr, int mask)
{
	if (mask & IBV_QP_RQ_PSN)
		qp->resp.psn = attr->rq_psn & RTE_ROCE_PSN_MASK;
	if (mask & IBV_QP_SQ_PSN) {
		qp->req.psn = attr->sq_psn & RTE_ROCE_PSN_MASK;
		qp->req.psn_end = qp->req.psn;
		qp->comp.psn = qp->req.psn;
	}
	if (mask & IBV_QP_TIMEOUT)
		qp->comp.timeout_us = roce_qp_ack_timeout_us(attr->timeout);
	if (mask & IBV_QP_RETRY_CNT)
		qp->comp.retry_left = attr->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		qp->comp.rnr_left = attr->rnr_retry;
}

/*
 * WQEs dropped without a completion (RESET, destroy) give their send CQ
 * slots back, so that a CQ shared with other QPs does not lose them. A
 * control call: the CQ's producer is parked (or is this thread).
 */
static void
roce_qp_engine_release_slots(struct roce_qp *qp)
{
	uint32_t i;

	for (i = 0; i < roce_queue_size(&qp->sq); i++)
		roce_sq_release_cq_slot(qp, roce_sq_wqe(qp, i));
}

/* To RESET: the roles start afresh. */
static void
roce_qp_engine_reset(struct roce_qp *qp)
{
	uint32_t i;

	roce_qp_engine_timers_stop(qp);
	roce_qp_engine_init(qp);
	roce_qp_engine_release_slots(qp);
	/* Slots retired by a flush keep their last state: every WQE starts afresh. */
	for (i = 0; i < roce_queue_size(&qp->sq); i++)
		roce_sq_wqe(qp, i)->tx.state = ROCE_WQE_NEW;
}

/* To ERR, before the queues are flushed: no timer fires, no response is pending. */
static void
roce_qp_engine_stop(struct roce_qp *qp)
{
	unsigned int i;

	roce_qp_engine_timers_stop(qp);
	qp->comp.rnr_wait = false;
	qp->resp.ack_pending = false;
	qp->resp.nak_pending = false;
	for (i = 0; i < ROCE_RD_ATOM_MAX; i++)
		qp->resp.res[i].pending = false;
	qp->resp.res_pending = 0;
}

/* At destroy. */
static void
roce_qp_engine_fini(struct roce_qp *qp)
{
	roce_qp_engine_timers_stop(qp);
	roce_qp_engine_release_slots(qp);
}

/* ---- Flush ---- */

/*
 * Flush the oldest send WQE (QP in ERR or SQE): IBV_WC_WR_FLUSH_ERR,
 * signaled or not. false, with the QP scheduled again, when the send CQ has
 * no room for it: the flush resumes at a later pass, once the application
 * polled (a flush completion is never dropped, IBA 10.8.3).
 */
static bool
roce_qp_flush_wqe(struct roce_qp *qp)
{
	struct roce_send_wqe *wqe = roce_sq_wqe(qp, roce_sq_consumer(qp));
	struct ibv_wc wc = {
		.wr_id = wqe->wr_id,
		.status = IBV_WC_WR_FLUSH_ERR,
		.opcode = roce_wr_info[wqe->opcode].wc,
		.qp_num = qp->ibv.qp_num,
	};

	/*
	 * A WQE the requester started has its slot; one never started needs
	 * a free one. None: held until the application polls, the QP runs
	 * again at the next pass to look (the same wake-up as the
	 * requester's, roce_req.c req_start_wqe()). An overrun CQ takes
	 * nothing any more: the push below reports it, nothing waits.
	 */
	if (!wqe->tx.cq_slot && roce_cq_room(qp->scq) == 0 && !roce_cq_overflowed(qp->scq)) {
		ROCE_QP_STAT_INC(qp, send_cq_full_stalls);
		roce_dev_qp_schedule(qp->dev, qp);
		return false;
	}
	roce_sq_release_cq_slot(qp, wqe);
	roce_sq_count_send(qp, wqe);
	/*
	 * Every WQE, signaled or not: verbs reports each flushed WR
	 * (K:rxe_comp.c flush_send_wqe() posts one CQE per WQE). Retired
	 * before its completion shows: the slot is free for a poster. A CQ
	 * overrun is the CQ's error, already recorded by the push.
	 */
	roce_sq_retire(qp);
	(void)roce_cq_push(qp->scq, &wc);
	return true;
}

static void
roce_qp_flush_send(struct roce_qp *qp)
{
	uint32_t prod = roce_sq_producer(qp);

	/* Stops while the send CQ is full; resumed at a later pass. */
	while (qp->sq.cons != prod && roce_qp_flush_wqe(qp))
		;
}

static void
roce_qp_flush_recv(struct roce_qp *qp)
{
	struct roce_recv_wqe *wqe;
	struct ibv_wc wc = {
		.status = IBV_WC_WR_FLUSH_ERR,
		.opcode = IBV_WC_RECV,
		.qp_num = qp->ibv.qp_num,
	};

	while ((wqe = roce_rq_owned(qp)) != NULL) {
		/* A full CQ holds the flush until the application polls (never dropped). */
		if (roce_cq_room(qp->rcq) == 0 && !roce_cq_overflowed(qp->rcq)) {
			roce_dev_qp_schedule(qp->dev, qp);
			return;
		}
		wc.wr_id = wqe->wr_id;
		roce_rq_consume(qp);
		roce_cq_push(qp->rcq, &wc);
	}
}

void
roce_qp_flush(struct roce_qp *qp)
{
	enum ibv_qp_state state = roce_qp_state(qp);

	/* IBA 10.8.3: SQE flushes the send queue, ERR both queues. */
	if (state == IBV_QPS_ERR || state == IBV_QPS_SQE)
		roce_qp_flush_send(qp);
	if (state == IBV_QPS_ERR)
		roce_qp_flush_recv(qp);
}

static void
roce_qp_set_state(struct roce_qp *qp, enum ibv_qp_state state)
{
	qp->attr.qp_state = state;
	qp->attr.cur_qp_state = state;
	__atomic_store_n(&qp->ibv.state, state, __ATOMIC_RELEASE);
}

/*
 * A QP on an SRQ in ERR takes no more WQEs from it, and the one it held is
 * flushed: tell the application it may destroy the QP without losing
 * receive WQEs (IBA 11.6.3, affiliated asynchronous event Last WQE
 * Reached; K:rxe_resp.c flush_recv_queue() raises it when the QP's
 * receive side is flushed).
 */
static void
roce_qp_last_wqe_reached(struct roce_qp *qp)
{
	struct ibv_async_event ev = {
		.element.qp = &qp->ibv,
		.event_type = IBV_EVENT_QP_LAST_WQE_REACHED,
	};

	roce_dev_async_event(qp->dev, &ev);
}

/* To ERR: every outstanding WR flushes (IBA 10.3.1). */
static void
roce_qp_enter_err(struct roce_qp *qp)
{
	roce_qp_set_state(qp, IBV_QPS_ERR);
	roce_qp_engine_stop(qp);
	roce_qp_flush(qp);
	if (qp->srq != NULL)
		roce_qp_last_wqe_reached(qp);
}

void
roce_qp_error(struct roce_qp *qp)
{
	struct ibv_async_event ev = { .event_type = IBV_EVENT_QP_FATAL };

	if (roce_qp_state(qp) == IBV_QPS_ERR)
		return;
	/* The engine, not the application, moves it: tell the application (IBA 11.6.3.1). */
	ev.element.qp = &qp->ibv;
	roce_dev_async_event(qp->dev, &ev);
	roce_qp_enter_err(qp);
}

/* Drop every WQE without a completion (RESET, destroy), releasing their MRs. */
static void
roce_qp_drop_wqes(struct roce_qp *qp)
{
	while (qp->sq.cons != roce_sq_producer(qp))
		roce_sq_retire(qp);
	while (roce_rq_owned(qp) != NULL)
		roce_rq_consume(qp);
	roce_queue_reset(&qp->sq);
	roce_queue_reset(&qp->rq);
}

/* ---- Create, query, destroy ---- */

static int
roce_qp_check_init_attr(struct roce_dev *dev, const struct ibv_qp_init_attr *attr)
{
	const struct ibv_qp_cap *cap = &attr->cap;
	const struct rte_roce_dev_conf *lim = &dev->conf;

	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD) {
		ROCE_LOG(ERR, "QP type %d not supported (RC, UC, UD)", attr->qp_type);
		return -EINVAL;
	}
	if (attr->srq != NULL && roce_srq_of(attr->srq)->dev != dev) {
		ROCE_LOG(ERR, "the SRQ must exist on the QP's device");
		return -EINVAL;
	}
	if (attr->send_cq == NULL || attr->recv_cq == NULL ||
	    roce_cq_of(attr->send_cq)->dev != dev || roce_cq_of(attr->recv_cq)->dev != dev) {
		ROCE_LOG(ERR, "send and receive CQs must exist on the QP's device");
		return -EINVAL;
	}
	/* One lane produces into a CQ and consumes an SRQ: the QP's (doc/workers.md). */
	if (roce_cq_of(attr->send_cq)->lane != roce_cq_of(attr->recv_cq)->lane) {
		ROCE_LOG(ERR, "send CQ on worker %u, receive CQ on worker %u: give them one comp_vector",
			 roce_cq_of(attr->send_cq)->lane, roce_cq_of(attr->recv_cq)->lane);
		return -EINVAL;
	}
	if (attr->srq != NULL && roce_srq_of(attr->srq)->users != 0 &&
	    roce_srq_of(attr->srq)->lane != roce_cq_of(attr->send_cq)->lane) {
		ROCE_LOG(ERR, "the SRQ serves QPs of worker %u, the CQs are on worker %u",
			 roce_srq_of(attr->srq)->lane, roce_cq_of(attr->send_cq)->lane);
		return -EINVAL;
	}
	/* The receive caps are ignored on an SRQ (ibv_create_qp(3)). */
	if (cap->max_send_wr > lim->max_qp_wr || cap->max_send_sge > lim->max_sge ||
	    cap->max_inline_data > lim->max_inline_data ||
	    (attr->srq == NULL && (cap->max_recv_wr > lim->max_qp_wr ||
				   cap->max_recv_sge > lim->max_sge))) {
		ROCE_LOG(ERR, "caps %u/%u WRs, %u/%u SGEs, %u inline above the device's %u, %u, %u",
			 cap->max_send_wr, cap->max_recv_wr, cap->max_send_sge, cap->max_recv_sge,
			 cap->max_inline_data, lim->max_qp_wr, lim->max_sge, lim->max_inline_data);
		return -EINVAL;
	}
	return 0;
}

/* Grant at least what was asked: rings of a power of two, at least one SGE and one WR. */
static void
roce_qp_grant_caps(struct roce_qp *qp, const struct ibv_qp_cap *asked)
{
	struct ibv_qp_cap *cap = &qp->cap;
	uint32_t sge_bytes;

	cap->max_send_wr = rte_align32pow2(RTE_MAX(asked->max_send_wr, 1u));
	cap->max_send_sge = RTE_MAX(asked->max_send_sge, 1u);
	/* On an SRQ the QP has no receive queue of its own: 0, as mlx5 and rxe report. */
	if (qp->srq == NULL) {
		cap->max_recv_wr = rte_align32pow2(RTE_MAX(asked->max_recv_wr, 1u));
		cap->max_recv_sge = RTE_MAX(asked->max_recv_sge, 1u);
	}
	/* Inline data shares the WQE's SGE space: grant what it holds, up to the limit. */
	sge_bytes = cap->max_send_sge * sizeof(struct roce_sge);
	cap->max_inline_data = RTE_MAX(asked->max_inline_data,
				       RTE_MIN(sge_bytes, qp->dev->conf.max_inline_data));
}

static int
roce_qp_rings_init(struct roce_qp *qp)
{
	const struct ibv_qp_cap *cap = &qp->cap;
	uint32_t send_room, send_stride, recv_stride;
	int rc;

	send_room = RTE_MAX(cap->max_send_sge * (uint32_t)sizeof(struct roce_sge),
			    cap->max_inline_data);
	send_stride = RTE_ALIGN_CEIL(sizeof(struct roce_send_wqe) + send_room, ROCE_WQE_ALIGN);
	rc = roce_queue_init(&qp->sq, cap->max_send_wr, send_stride, qp->dev->socket);
	if (rc < 0)
		return rc;
	if (qp->srq != NULL) {
		/* Room for the one WQE the QP takes from its SRQ at a time. */
		recv_stride = qp->srq->rq.stride;
		qp->srq_wqe = rte_zmalloc_socket("roce_srq_wqe", recv_stride, 0, qp->dev->socket);
		rc = qp->srq_wqe == NULL ? -ENOMEM : 0;
	} else {
		recv_stride = roce_recv_wqe_stride(cap->max_recv_sge);
		rc = roce_queue_init(&qp->rq, cap->max_recv_wr, recv_stride, qp->dev->socket);
	}
	if (rc < 0)
		roce_queue_fini(&qp->sq);
	return rc;
}

/* Free what roce_qp_rings_init() allocated. */
static void
roce_qp_rings_fini(struct roce_qp *qp)
{
	rte_free(qp->srq_wqe);
	roce_queue_fini(&qp->rq);
	roce_queue_fini(&qp->sq);
}

uint32_t
roce_recv_wqe_stride(uint32_t max_sge)
{
	return RTE_ALIGN_CEIL(sizeof(struct roce_recv_wqe) + max_sge * sizeof(struct roce_sge),
			      ROCE_WQE_ALIGN);
}

/* rxe's UDP source port of a QP: 0xC000 + 14 bits of hash_32(qpn) (K:rxe_qp.c). */
static uint16_t
roce_qp_src_port(uint32_t qpn)
{
	uint32_t hash = (qpn * ROCE_HASH_GOLDEN_RATIO_32) >> (32 - ROCE_UDP_SPORT_BITS);

	return ROCE_UDP_SPORT_BASE | (hash & ROCE_UDP_SPORT_MASK);
}

/* Create a QP numbered from the free slots, or qpn if not 0 (QP1). NULL with rte_errno. */
static struct roce_qp *
roce_qp_create(struct ibv_pd *pd, struct ibv_qp_init_attr *attr, uint32_t qpn)
{
	struct rte_roce_port_info info;
	struct roce_dev *dev;
	struct roce_qp *qp;
	int rc;

	dev = roce_dev_of_pd(pd, attr);
	if (dev == NULL)
		return NULL;
	rc = roce_qp_check_init_attr(dev, attr);
	if (rc == 0)
		rc = rte_roce_port_info_get(dev->port, &info);
	if (rc < 0) {
		rte_errno = -rc;
		return NULL;
	}
	qp = rte_zmalloc_socket("roce_qp", sizeof(*qp), RTE_CACHE_LINE_SIZE, dev->socket);
	if (qp == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	qp->dev = dev;
	qp->srq = attr->srq != NULL ? roce_srq_of(attr->srq) : NULL;
	roce_qp_grant_caps(qp, &attr->cap);
	rc = roce_qp_rings_init(qp);
	if (rc < 0) {
		rte_free(qp);
		rte_errno = -rc;
		return NULL;
	}
	rc = qpn != 0 ? roce_dev_qpn_reserve(dev, qp, qpn) : roce_dev_qpn_alloc(dev, qp, &qpn);
	if (rc < 0) {
		if (rc == -EEXIST)
			ROCE_LOG(ERR, "device %s: QP1 exists already", dev->ibv_dev.name);
		else
			ROCE_LOG(ERR, "device %s: max_qp (%u, QP1 counted) reached: "
				 "rte_roce_dev_conf.max_qp raises it (at most %u)",
				 dev->ibv_dev.name, dev->conf.max_qp, RTE_ROCE_DEV_MAX_QP_MAX);
		roce_qp_rings_fini(qp);
		rte_free(qp);
		rte_errno = -rc;
		return NULL;
	}
	qp->ibv.context = pd->context;
	qp->ibv.qp_context = attr->qp_context;
	qp->ibv.pd = pd;
	qp->ibv.send_cq = attr->send_cq;
	qp->ibv.recv_cq = attr->recv_cq;
	qp->ibv.srq = attr->srq;
	qp->ibv.qp_num = qpn;
	qp->ibv.qp_type = attr->qp_type;
	qp->ibv.handle = qpn;
	qp->scq = roce_cq_of(attr->send_cq);
	qp->rcq = roce_cq_of(attr->recv_cq);
	qp->lane = &dev->lanes[qp->scq->lane];
	qp->sq_sig_all = attr->sq_sig_all != 0;
	qp->src_port = roce_qp_src_port(qpn);
	/* UD has no path MTU: messages are bounded by the port's (doc/wire-format.md §9.4). */
	if (attr->qp_type == IBV_QPT_UD)
		qp->mtu = info.ib_mtu;
	qp->attr.cap = qp->cap;
	qp->attr.port_num = 1;
	roce_qp_set_state(qp, IBV_QPS_RESET);
	qp->scq->nb_qps++;
	qp->rcq->nb_qps++;
	ROCE_COUNT(qp->lane->nb_qps);
	roce_pd_of(pd)->users++;
	if (qp->srq != NULL)
		roce_srq_attach(qp->srq, qp->lane->id);
	attr->cap = qp->cap;
	roce_qp_engine_init(qp);
	return qp;
}

struct ibv_qp *
roce_ctrl_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct roce_qp *qp = roce_qp_create(pd, attr, 0);

	return qp != NULL ? &qp->ibv : NULL;
}

struct ibv_qp *
roce_ctrl_create_qp1(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .qkey = RTE_ROCE_QP1_QKEY, .port_num = 1 };
	struct roce_qp *qp;

	if (attr == NULL || attr->qp_type != IBV_QPT_UD) {
		ROCE_LOG(ERR, "QP1 is a UD QP");
		rte_errno = EINVAL;
		return NULL;
	}
	qp = roce_qp_create(pd, attr, RTE_ROCE_QP1_QPN);
	if (qp == NULL)
		return NULL;
	/* Ready to receive and send, as the GSI QP of a kernel device is. */
	if (roce_ctrl_modify_qp(&qp->ibv, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_QKEY) == 0) {
		a.qp_state = IBV_QPS_RTR;
		(void)roce_ctrl_modify_qp(&qp->ibv, &a, IBV_QP_STATE);
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 0;
		(void)roce_ctrl_modify_qp(&qp->ibv, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	}
	return &qp->ibv;
}

int
roce_ctrl_query_qp(struct ibv_qp *ibv_qp, struct ibv_qp_attr *attr, int attr_mask,
		   struct ibv_qp_init_attr *init_attr)
{
	struct roce_qp *qp;

	RTE_SET_USED(attr_mask);
	if (ibv_qp == NULL || attr == NULL || init_attr == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	qp = roce_qp_of(ibv_qp);
	*attr = qp->attr;
	attr->qp_state = roce_qp_state(qp);
	attr->cur_qp_state = attr->qp_state;
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = ibv_qp->qp_context;
	init_attr->send_cq = ibv_qp->send_cq;
	init_attr->recv_cq = ibv_qp->recv_cq;
	init_attr->srq = ibv_qp->srq;
	init_attr->cap = qp->cap;
	init_attr->qp_type = ibv_qp->qp_type;
	init_attr->sq_sig_all = qp->sq_sig_all;
	return 0;
}

int
roce_ctrl_destroy_qp(struct ibv_qp *ibv_qp)
{
	struct roce_qp *qp;
	struct roce_dev *dev;

	if (ibv_qp == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	qp = roce_qp_of(ibv_qp);
	dev = qp->dev;
	if (roce_dev_async_release(dev, ibv_qp) < 0)
		return -EBUSY;
	roce_mcast_qp_fini(qp);
	roce_qp_engine_fini(qp);
	roce_qp_drop_wqes(qp);
	/* A pending doorbell names the QPN, which now finds nothing. */
	roce_dev_qpn_free(dev, ibv_qp->qp_num);
	qp->scq->nb_qps--;
	qp->rcq->nb_qps--;
	ROCE_COUNT_ADD(qp->lane->nb_qps, -1);
	roce_pd_of(ibv_qp->pd)->users--;
	if (qp->srq != NULL)
		roce_srq_detach(qp->srq);
	roce_qp_rings_fini(qp);
	rte_free(qp);
	return 0;
}

/* ---- Modify ---- */

static int
roce_qp_check_mask(struct roce_qp *qp, enum ibv_qp_state cur, enum ibv_qp_state next, int mask)
{
	const struct roce_qp_transition *t;
	int extra, missing;

	if ((unsigned int)next >= ROCE_NB_QP_STATES) {
		ROCE_LOG(ERR, "QP 0x%x: unknown state %d", qp->ibv.qp_num, next);
		return -EINVAL;
	}
	t = &roce_qp_table[cur][next][roce_qp_transport(qp)];
	if (!t->valid) {
		ROCE_LOG(ERR, "QP 0x%x: no transition %s -> %s", qp->ibv.qp_num,
			 roce_qp_state_name(cur), roce_qp_state_name(next));
		return -EINVAL;
	}
	missing = t->req & ~mask;
	extra = mask & ~(t->req | t->opt | IBV_QP_STATE);
	if (missing != 0 || extra != 0) {
		ROCE_LOG(ERR, "QP 0x%x: %s -> %s: attributes 0x%x missing, 0x%x not allowed",
			 qp->ibv.qp_num, roce_qp_state_name(cur), roce_qp_state_name(next),
			 missing, extra);
		return -EINVAL;
	}
	return 0;
}

/* The AV of a connected QP: a unicast peer (roce_ah.c checks and starts resolving it). */
static int
roce_qp_check_av(struct roce_qp *qp, const struct ibv_ah_attr *ah, union rte_roce_gid *sgid)
{
	union rte_roce_gid dgid;
	int rc = roce_av_check(qp->dev, ah, false, sgid, &dgid);

	if (rc < 0)
		ROCE_LOG(ERR, "QP 0x%x: bad address vector", qp->ibv.qp_num);
	return rc;
}

/*
 * A path MTU the port carries: at most its IB MTU, which its Ethernet MTU
 * gives (rte_roce_port_ib_mtu); the port refused at creation an Ethernet
 * MTU its mbufs or its PMD cannot carry.
 */
static int
roce_qp_check_path_mtu(struct roce_qp *qp, enum ibv_mtu path_mtu)
{
	struct rte_roce_port_info info;

	if (rte_roce_port_info_get(qp->dev->port, &info) < 0)
		return -EINVAL;
	if (roce_mtu_bytes(path_mtu) <= info.ib_mtu)
		return 0;
	ROCE_LOG(ERR, "QP 0x%x: path_mtu %u is above the port's IB MTU %u (Ethernet MTU %u, "
		 "less 80 bytes of headers): lower path_mtu, or raise the port's MTU "
		 "(rte_roce_port_conf::mtu) to at least %u", qp->ibv.qp_num,
		 roce_mtu_bytes(path_mtu), info.ib_mtu, info.mtu,
		 roce_mtu_bytes(path_mtu) + RTE_ROCE_PORT_IB_MTU_HDR);
	return -EINVAL;
}

static int
roce_qp_check_values(struct roce_qp *qp, const struct ibv_qp_attr *a, int mask,
		     union rte_roce_gid *sgid)
{
	const struct rte_roce_dev_conf *lim = &qp->dev->conf;
	const char *bad = NULL;

	if ((mask & IBV_QP_PATH_MTU) != 0) {
		if (a->path_mtu < IBV_MTU_256 || a->path_mtu > IBV_MTU_4096)
			bad = "path_mtu (1..5)";
		else if (roce_qp_check_path_mtu(qp, a->path_mtu) != 0)
			return -EINVAL;
	}
	if ((mask & IBV_QP_ACCESS_FLAGS) != 0 && (a->qp_access_flags & ~ROCE_QP_ACCESS) != 0)
		bad = "qp_access_flags";
	if ((mask & IBV_QP_PKEY_INDEX) != 0 && a->pkey_index != 0)
		bad = "pkey_index (0: one P_Key)";
	if ((mask & IBV_QP_PORT) != 0 && a->port_num != 1)
		bad = "port_num (1)";
	if ((mask & IBV_QP_TIMEOUT) != 0 && a->timeout > ROCE_TIMEOUT_MAX)
		bad = "timeout (0..31)";
	if ((mask & IBV_QP_RETRY_CNT) != 0 && a->retry_cnt > ROCE_RETRY_MAX)
		bad = "retry_cnt (0..7)";
	if ((mask & IBV_QP_RNR_RETRY) != 0 && a->rnr_retry > ROCE_RETRY_MAX)
		bad = "rnr_retry (0..7)";
	if ((mask & IBV_QP_MIN_RNR_TIMER) != 0 && a->min_rnr_timer > ROCE_MIN_RNR_TIMER_MAX)
		bad = "min_rnr_timer (0..31)";
	if ((mask & IBV_QP_RQ_PSN) != 0 && a->rq_psn > RTE_ROCE_PSN_MASK)
		bad = "rq_psn (24 bits)";
	if ((mask & IBV_QP_SQ_PSN) != 0 && a->sq_psn > RTE_ROCE_PSN_MASK)
		bad = "sq_psn (24 bits)";
	if ((mask & IBV_QP_DEST_QPN) != 0 && a->dest_qp_num > RTE_ROCE_QPN_MASK)
		bad = "dest_qp_num (24 bits)";
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) != 0 && a->max_rd_atomic > lim->max_qp_rd_atom)
		bad = "max_rd_atomic (at most max_qp_rd_atom)";
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) != 0 && a->max_dest_rd_atomic > lim->max_qp_rd_atom)
		bad = "max_dest_rd_atomic (at most max_qp_rd_atom)";
	/* RoCE has no alternate path (K:core/verbs.c _ib_modify_qp refuses IB_QP_ALT_PATH). */
	if ((mask & IBV_QP_ALT_PATH) != 0)
		bad = "alt_path (not on RoCE)";
	if (bad != NULL) {
		ROCE_LOG(ERR, "QP 0x%x: bad %s", qp->ibv.qp_num, bad);
		return -EINVAL;
	}
	if ((mask & IBV_QP_AV) != 0)
		return roce_qp_check_av(qp, &a->ah_attr, sgid);
	return 0;
}

/* Copy the attributes of mask into the QP. */
static void
roce_qp_apply(struct roce_qp *qp, const struct ibv_qp_attr *a, int mask,
	      const union rte_roce_gid *sgid)
{
	struct ibv_qp_attr *cur = &qp->attr;

	if (mask & IBV_QP_ACCESS_FLAGS)
		cur->qp_access_flags = a->qp_access_flags;
	if (mask & IBV_QP_PKEY_INDEX)
		cur->pkey_index = a->pkey_index;
	if (mask & IBV_QP_PORT)
		cur->port_num = a->port_num;
	if (mask & IBV_QP_QKEY)
		cur->qkey = a->qkey;
	if (mask & IBV_QP_AV) {
		cur->ah_attr = a->ah_attr;
		qp->sgid = *sgid;
		memcpy(qp->dgid.raw, a->ah_attr.grh.dgid.raw, sizeof(qp->dgid.raw));
		roce_qp_hdr_init(qp);
	}
	if (mask & IBV_QP_PATH_MTU) {
		cur->path_mtu = a->path_mtu;
		qp->mtu = roce_mtu_bytes(a->path_mtu);
	}
	if (mask & IBV_QP_TIMEOUT)
		cur->timeout = a->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		cur->retry_cnt = a->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		cur->rnr_retry = a->rnr_retry;
	if (mask & IBV_QP_RQ_PSN)
		cur->rq_psn = a->rq_psn;
	if (mask & IBV_QP_SQ_PSN)
		cur->sq_psn = a->sq_psn;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		cur->max_rd_atomic = a->max_rd_atomic;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		cur->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		cur->min_rnr_timer = a->min_rnr_timer;
	if (mask & IBV_QP_DEST_QPN)
		cur->dest_qp_num = a->dest_qp_num;
	if (mask & IBV_QP_PATH_MIG_STATE)
		cur->path_mig_state = a->path_mig_state;
	if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		cur->en_sqd_async_notify = a->en_sqd_async_notify;
}

int
roce_ctrl_modify_qp(struct ibv_qp *ibv_qp, struct ibv_qp_attr *attr, int attr_mask)
{
	enum ibv_qp_state cur, next;
	union rte_roce_gid sgid;
	struct roce_qp *qp;
	int rc;

	if (ibv_qp == NULL || attr == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	qp = roce_qp_of(ibv_qp);
	cur = roce_qp_state(qp);
	if ((attr_mask & IBV_QP_CUR_STATE) != 0 && attr->cur_qp_state != cur) {
		ROCE_LOG(ERR, "QP 0x%x: cur_qp_state %s but the QP is in %s", ibv_qp->qp_num,
			 roce_qp_state_name(attr->cur_qp_state), roce_qp_state_name(cur));
		return -EINVAL;
	}
	next = (attr_mask & IBV_QP_STATE) != 0 ? attr->qp_state : cur;
	rc = roce_qp_check_mask(qp, cur, next, attr_mask);
	if (rc == 0)
		rc = roce_qp_check_values(qp, attr, attr_mask, &sgid);
	if (rc < 0)
		return rc;
	roce_qp_apply(qp, attr, attr_mask, &sgid);
	if (next == cur) {
		roce_qp_engine_modify(qp, attr, attr_mask);
		return 0;
	}
	switch (next) {
	case IBV_QPS_RESET:
		roce_qp_engine_reset(qp);
		roce_qp_drop_wqes(qp);
		roce_qp_set_state(qp, next);
		break;
	case IBV_QPS_ERR:
		roce_qp_enter_err(qp);
		break;
	default:
		roce_qp_set_state(qp, next);
		break;
	}
	roce_qp_engine_modify(qp, attr, attr_mask);
	/* WQEs posted in SQD (or before RTS) may start now. */
	if (next == IBV_QPS_RTS)
		roce_dev_qp_schedule(qp->dev, qp);
	return 0;
}
