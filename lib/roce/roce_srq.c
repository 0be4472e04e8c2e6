/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Shared receive queues: create/modify/query/destroy, post_srq_recv, and
 * the engine's take with the limit event (roce_srq.h).
 */

/* Logs under lib.roce.qp (roce_log.h). */
#define ROCE_LOG_TYPE roce_logtype_qp
#define ROCE_LOG_AREA "ROCE srq"

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_dev.h"
#include "roce_log.h"
#include "roce_mr.h"
#include "roce_qp.h"
#include "roce_srq.h"

/* The attributes modify_srq knows (ibv_modify_srq(3)). */
#define ROCE_SRQ_ATTR_MASK	(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)

void
roce_srq_attach(struct roce_srq *srq, uint16_t lane)
{
	srq->lane = lane;
	srq->users++;
}

void
roce_srq_detach(struct roce_srq *srq)
{
	srq->users--;
}

/*
 * ibv_modify_srq(3), IBA 10.2.9: when the WQEs left drop below the
 * armed limit, raise IBV_EVENT_SRQ_LIMIT_REACHED once and disarm; only
 * modify_srq with IBV_SRQ_LIMIT arms it again (K:rxe_resp.c get_srq_wqe()).
 */
static void
roce_srq_check_limit(struct roce_srq *srq)
{
	struct ibv_async_event ev = {
		.element.srq = &srq->ibv,
		.event_type = IBV_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->limit == 0 || roce_queue_count(&srq->rq) >= srq->limit)
		return;
	srq->limit = 0;
	srq->limit_events++;
	roce_dev_async_event(srq->dev, &ev);
}

struct roce_recv_wqe *
roce_srq_take(struct roce_qp *qp)
{
	struct roce_srq *srq = qp->srq;

	if (qp->srq_held)
		return qp->srq_wqe;
	if (roce_queue_count(&srq->rq) == 0)
		return NULL;
	/* The copy keeps the MR uses; the slot goes back to the poster at once. */
	memcpy(qp->srq_wqe, roce_queue_slot(&srq->rq, srq->rq.cons), srq->rq.stride);
	roce_queue_retire(&srq->rq, srq->rq.cons + 1);
	qp->srq_held = true;
	roce_srq_check_limit(srq);
	return qp->srq_wqe;
}

struct ibv_srq *
roce_ctrl_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *init_attr)
{
	const struct rte_roce_dev_conf *lim;
	struct ibv_srq_attr *attr;
	struct roce_dev *dev;
	struct roce_srq *srq;
	int rc;

	if (pd == NULL || init_attr == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		rte_errno = EINVAL;
		return NULL;
	}
	dev = roce_dev_of(pd->context);
	lim = &dev->conf;
	attr = &init_attr->attr;
	if (attr->max_wr == 0 || attr->max_wr > lim->max_srq_wr ||
	    attr->max_sge > lim->max_srq_sge) {
		ROCE_LOG(ERR, "SRQ of %u WRs, %u SGEs: outside 1..%u WRs, 0..%u SGEs",
			 attr->max_wr, attr->max_sge, lim->max_srq_wr, lim->max_srq_sge);
		rte_errno = EINVAL;
		return NULL;
	}
	if (dev->nb_srqs >= lim->max_srq) {
		ROCE_LOG(ERR, "device %s: max_srq (%u) reached", dev->ibv_dev.name, lim->max_srq);
		rte_errno = ENOSPC;
		return NULL;
	}
	srq = rte_zmalloc_socket("roce_srq", sizeof(*srq), RTE_CACHE_LINE_SIZE, dev->socket);
	if (srq == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	srq->dev = dev;
	srq->max_sge = RTE_MAX(attr->max_sge, 1u);
	rc = roce_queue_init(&srq->rq, attr->max_wr, roce_recv_wqe_stride(srq->max_sge),
			     dev->socket);
	if (rc < 0) {
		rte_free(srq);
		rte_errno = -rc;
		return NULL;
	}
	srq->ibv.context = pd->context;
	srq->ibv.srq_context = init_attr->srq_context;
	srq->ibv.pd = pd;
	srq->ibv.handle = dev->srq_handles++;
	/* srq_limit is ignored at creation: the limit starts disarmed (ibv_create_srq(3)). */
	attr->max_wr = roce_queue_size(&srq->rq);
	attr->max_sge = srq->max_sge;
	attr->srq_limit = 0;
	roce_pd_of(pd)->users++;
	dev->nb_srqs++;
	return &srq->ibv;
}

/* Resize the ring to hold at least max_wr, keeping the posted WQEs in order. */
static int
roce_srq_resize(struct roce_srq *srq, uint32_t max_wr)
{
	uint32_t n = roce_queue_count(&srq->rq);
	struct roce_queue q;
	uint32_t i;
	int rc;

	if (rte_align32pow2(max_wr) < n) {
		ROCE_LOG(ERR, "SRQ %u: max_wr %u below the %u WQEs posted", srq->ibv.handle,
			 max_wr, n);
		return -EINVAL;
	}
	rc = roce_queue_init(&q, max_wr, srq->rq.stride, srq->dev->socket);
	if (rc < 0)
		return rc;
	for (i = 0; i < n; i++)
		memcpy(roce_queue_slot(&q, i), roce_queue_slot(&srq->rq, srq->rq.cons + i),
		       q.stride);
	roce_queue_fini(&srq->rq);
	srq->rq.slots = q.slots;
	srq->rq.mask = q.mask;
	roce_queue_retire(&srq->rq, 0);
	roce_queue_publish(&srq->rq, n);
	return 0;
}

int
roce_ctrl_modify_srq(struct ibv_srq *ibv_srq, struct ibv_srq_attr *attr, int attr_mask)
{
	const struct rte_roce_dev_conf *lim;
	struct roce_srq *srq;
	uint32_t size;
	int rc;

	if (ibv_srq == NULL || attr == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	srq = roce_srq_of(ibv_srq);
	lim = &srq->dev->conf;
	if ((attr_mask & ~ROCE_SRQ_ATTR_MASK) != 0) {
		ROCE_LOG(ERR, "SRQ %u: unknown attribute bits 0x%x", ibv_srq->handle,
			 attr_mask & ~ROCE_SRQ_ATTR_MASK);
		return -EINVAL;
	}
	size = roce_queue_size(&srq->rq);
	if ((attr_mask & IBV_SRQ_MAX_WR) != 0) {
		/* The armed limit must stay below the new size (K:rxe_srq.c rxe_srq_chk_attr()). */
		if (attr->max_wr == 0 || attr->max_wr > lim->max_srq_wr ||
		    ((attr_mask & IBV_SRQ_LIMIT) == 0 && attr->max_wr < srq->limit)) {
			ROCE_LOG(ERR, "SRQ %u: max_wr %u outside 1..%u or below srq_limit %u",
				 ibv_srq->handle, attr->max_wr, lim->max_srq_wr, srq->limit);
			return -EINVAL;
		}
		size = rte_align32pow2(attr->max_wr);
	}
	/* At most size - 1 (K:rxe_srq.c: index_mask; K:mlx5 srq.c: below max). */
	if ((attr_mask & IBV_SRQ_LIMIT) != 0 && attr->srq_limit >= size) {
		ROCE_LOG(ERR, "SRQ %u: srq_limit %u not below its %u WRs", ibv_srq->handle,
			 attr->srq_limit, size);
		return -EINVAL;
	}
	if ((attr_mask & IBV_SRQ_MAX_WR) != 0 && size != roce_queue_size(&srq->rq)) {
		rc = roce_srq_resize(srq, attr->max_wr);
		if (rc < 0)
			return rc;
	}
	if ((attr_mask & IBV_SRQ_LIMIT) != 0) {
		/* Armed now; fires at the next take that leaves fewer (not at once, as rxe). */
		srq->limit = attr->srq_limit;
	}
	return 0;
}

int
roce_ctrl_query_srq(struct ibv_srq *ibv_srq, struct ibv_srq_attr *attr)
{
	struct roce_srq *srq;

	if (ibv_srq == NULL || attr == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	srq = roce_srq_of(ibv_srq);
	attr->max_wr = roce_queue_size(&srq->rq);
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	return 0;
}

int
roce_ctrl_destroy_srq(struct ibv_srq *ibv_srq)
{
	struct roce_recv_wqe *wqe;
	struct roce_srq *srq;

	if (ibv_srq == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	srq = roce_srq_of(ibv_srq);
	if (srq->users != 0) {
		ROCE_LOG(ERR, "SRQ %u: %u QPs still use it", ibv_srq->handle, srq->users);
		return -EBUSY;
	}
	if (roce_dev_async_release(srq->dev, ibv_srq) < 0)
		return -EBUSY;
	/* WQEs still posted go without completions, their MR uses released. */
	while (roce_queue_count(&srq->rq) != 0) {
		wqe = roce_queue_slot(&srq->rq, srq->rq.cons);
		roce_sge_put(wqe->sge, wqe->num_sge);
		roce_queue_retire(&srq->rq, srq->rq.cons + 1);
	}
	roce_pd_of(ibv_srq->pd)->users--;
	srq->dev->nb_srqs--;
	roce_queue_fini(&srq->rq);
	rte_free(srq);
	return 0;
}

int
rte_roce_post_srq_recv(struct ibv_srq *ibv_srq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct roce_srq *srq;

	if (ibv_srq == NULL || wr == NULL || bad_wr == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	srq = roce_srq_of(ibv_srq);
	/* No doorbell: a QP waiting for a WQE retries after its RNR NAK. */
	return roce_recv_post(srq->dev, ibv_srq->pd, &srq->rq, srq->max_sge, "SRQ",
			      ibv_srq->handle, wr, bad_wr);
}
