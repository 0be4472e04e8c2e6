/* SPDX-License-Identifier: BSD-3-Clause */

/* Completion queues: create/destroy, the engine's push, the application's poll. */

/* Logs under lib.roce.cq (roce_log.h). */
#define ROCE_LOG_TYPE roce_logtype_cq
#define ROCE_LOG_AREA "ROCE cq"

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_channel.h"
#include "roce_cq.h"
#include "roce_dev.h"
#include "roce_log.h"

struct ibv_cq *
rte_roce_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
		   struct ibv_comp_channel *channel, int comp_vector)
{
	struct roce_dev *dev;
	struct roce_cq *cq;
	int rc;

	if (ctx == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		rte_errno = EINVAL;
		return NULL;
	}
	dev = roce_dev_of(ctx);
	/* As uverbs: a vector the device has (K:uverbs_cmd.c create_cq). */
	if (comp_vector < 0 || comp_vector >= ctx->num_comp_vectors) {
		ROCE_LOG(ERR, "comp_vector %d outside 0..%d (one per worker)", comp_vector,
			 ctx->num_comp_vectors - 1);
		rte_errno = EINVAL;
		return NULL;
	}
	if (cqe < 1 || (uint32_t)cqe > dev->conf.max_cqe) {
		ROCE_LOG(ERR, "cqe %d outside 1..%u", cqe, dev->conf.max_cqe);
		rte_errno = EINVAL;
		return NULL;
	}
	if (dev->nb_cqs >= dev->conf.max_cq) {
		ROCE_LOG(ERR, "device %s: max_cq (%u) reached", dev->ibv_dev.name,
			 dev->conf.max_cq);
		rte_errno = ENOSPC;
		return NULL;
	}
	cq = rte_zmalloc_socket("roce_cq", sizeof(*cq), RTE_CACHE_LINE_SIZE, dev->socket);
	if (cq == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rc = roce_queue_init(&cq->ring, cqe, sizeof(struct ibv_wc), dev->socket);
	if (rc < 0) {
		rte_free(cq);
		rte_errno = -rc;
		return NULL;
	}
	cq->dev = dev;
	cq->lane = (uint16_t)comp_vector;
	if (channel != NULL) {
		rc = roce_channel_cq_attach(cq, channel);
		if (rc < 0) {
			roce_queue_fini(&cq->ring);
			rte_free(cq);
			rte_errno = -rc;
			return NULL;
		}
	}
	cq->ibv.context = ctx;
	cq->ibv.cq_context = cq_context;
	cq->ibv.cqe = roce_queue_size(&cq->ring);
	dev->nb_cqs++;
	return &cq->ibv;
}

int
rte_roce_destroy_cq(struct ibv_cq *ibv_cq)
{
	struct roce_cq *cq;

	if (ibv_cq == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	cq = roce_cq_of(ibv_cq);
	if (cq->nb_qps != 0) {
		ROCE_LOG(ERR, "CQ used by %u QPs", cq->nb_qps);
		return -EBUSY;
	}
	if (ibv_cq->channel != NULL && roce_channel_cq_busy(cq) < 0)
		return -EBUSY;
	if (roce_dev_async_release(cq->dev, ibv_cq) < 0)
		return -EBUSY;
	if (ibv_cq->channel != NULL && roce_channel_cq_detach(cq) < 0)
		return -EBUSY;
	cq->dev->nb_cqs--;
	roce_queue_fini(&cq->ring);
	rte_free(cq);
	return 0;
}

/* IBA 11.4.2.1: CQ overrun; the consumer learns it once the ring is drained. */
static void
roce_cq_overrun(struct roce_cq *cq)
{
	struct ibv_async_event ev = { .event_type = IBV_EVENT_CQ_ERR };

	__atomic_store_n(&cq->overflow, true, __ATOMIC_RELEASE);
	roce_dev_cq_error(&cq->dev->lanes[cq->lane]);
	ROCE_LOG(ERR, "CQ of %d entries overran: IBV_EVENT_CQ_ERR, its QPs go to ERR (a larger cqe, "
		 "or poll it sooner)", cq->ibv.cqe);
	ev.element.cq = &cq->ibv;
	roce_dev_async_event(cq->dev, &ev);
}

int
roce_cq_push_se(struct roce_cq *cq, const struct ibv_wc *wc, bool solicited)
{
	struct roce_queue *q = &cq->ring;

	if (roce_cq_overflowed(cq))
		return -EOVERFLOW;
	if (roce_queue_free(q) == 0) {
		roce_cq_overrun(cq);
		return -EOVERFLOW;
	}
	memcpy(roce_queue_slot(q, q->prod), wc, sizeof(*wc));
	roce_queue_publish(q, q->prod + 1);
	if (cq->ibv.channel != NULL)
		roce_cq_notify(cq, solicited || wc->status != IBV_WC_SUCCESS);
	return 0;
}

int
rte_roce_poll_cq(struct ibv_cq *ibv_cq, int num_entries, struct ibv_wc *wc)
{
	struct roce_queue *q;
	uint32_t avail, n, i;
	bool overflow;

	if (ibv_cq == NULL || wc == NULL || num_entries < 0) {
		ROCE_LOG(ERR, "NULL argument or negative num_entries");
		return -EINVAL;
	}
	q = &roce_cq_of(ibv_cq)->ring;
	/*
	 * Flag first, then the count: the flag is stored (RELEASE) after the
	 * last publish, so once it is seen the count is final and -EOVERFLOW
	 * comes only after every stored completion was returned.
	 */
	overflow = roce_cq_overflowed(roce_cq_of(ibv_cq));
	avail = roce_queue_count(q);
	if (avail == 0)
		return overflow ? -EOVERFLOW : 0;
	n = RTE_MIN(avail, (uint32_t)num_entries);
	for (i = 0; i < n; i++)
		memcpy(&wc[i], roce_queue_slot(q, q->cons + i), sizeof(wc[i]));
	roce_queue_retire(q, q->cons + n);
	return n;
}
