/* SPDX-License-Identifier: BSD-3-Clause */

/* Completion queues: create/destroy/resize, the engine's push, the application's poll. */

/* Logs under lib.roce.cq (roce_log.h). */
#define ROCE_LOG_TYPE roce_logtype_cq
#define ROCE_LOG_AREA "ROCE cq"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "roce_channel.h"
#include "roce_cq.h"
#include "roce_dev.h"
#include "roce_lane.h"
#include "roce_log.h"
#include "roce_qp.h"

/* cqe within 1..max_cqe of the device (create and resize): 0 or -EINVAL, logged. */
static int
roce_cq_check_cqe(const struct roce_dev *dev, int cqe)
{
	if (cqe < 1 || (uint32_t)cqe > dev->conf.max_cqe) {
		ROCE_LOG(ERR, "cqe %d outside 1..%u (max_cqe)", cqe, dev->conf.max_cqe);
		return -EINVAL;
	}
	return 0;
}

/* Take the consumer guard (roce_cq.h): false if another thread polls or resizes the CQ. */
static bool
roce_cq_consumer_try(struct roce_cq *cq)
{
	return __atomic_exchange_n(&cq->polling, 1, __ATOMIC_ACQUIRE) == 0;
}

/* Give the guard back: the next holder sees the consumer index this one left. */
static void
roce_cq_consumer_release(struct roce_cq *cq)
{
	__atomic_store_n(&cq->polling, 0, __ATOMIC_RELEASE);
}

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
	if (roce_cq_check_cqe(dev, cqe) < 0) {
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

/*
 * Completions the CQ owes: send WQEs posted to the QPs that use it as send
 * CQ and not completed yet. Each completes into it once, signaled or not
 * (an unsignaled one completes in error or is flushed, IBA 10.7.3.1), and
 * holds or will take a slot of it (the send-side credit, roce_req.c
 * req_start_wqe()), so cq->reserved is part of this count. Receive WQEs
 * are not counted: their completions wait for the peer, whom a full
 * receive CQ holds back (RNR NAK, roce_resp.c).
 */
static uint64_t
roce_cq_sends_owed(const struct roce_cq *cq)
{
	const struct roce_dev *dev = cq->dev;
	uint64_t owed = 0;
	uint32_t slot;

	for (slot = RTE_ROCE_QP1_QPN; slot <= dev->qp_mask; slot++) {
		const struct roce_qp *qp = dev->qp_tbl[slot];

		if (qp != NULL && qp->scq == cq)
			owed += roce_sq_producer(qp) - roce_sq_consumer(qp);
	}
	return owed;
}

/* Move the completions, oldest first, into a new ring of at least cqe slots. */
static int
roce_cq_move(struct roce_cq *cq, uint32_t cqe)
{
	struct roce_queue *old = &cq->ring;
	uint32_t count = roce_queue_count(old);
	struct roce_queue ring;
	uint32_t i;
	int rc;

	rc = roce_queue_init(&ring, cqe, sizeof(struct ibv_wc), cq->dev->socket);
	if (rc < 0)
		return rc;
	for (i = 0; i < count; i++)
		memcpy(roce_queue_slot(&ring, i), roce_queue_slot(old, old->cons + i),
		       sizeof(struct ibv_wc));
	roce_queue_publish(&ring, count);
	roce_queue_fini(old);
	cq->ring = ring;
	cq->ibv.cqe = roce_queue_size(&cq->ring);
	return 0;
}

/* Resize with the producer parked and the consumer guard held: nothing moves meanwhile. */
static int
roce_cq_resize_held(struct roce_cq *cq, uint32_t cqe)
{
	uint64_t needed;

	if (roce_cq_overflowed(cq)) {
		ROCE_LOG(ERR, "the CQ overran: it is in error, destroy it (IBA 11.4.2.1)");
		return -EOVERFLOW;
	}
	needed = roce_queue_count(&cq->ring) + roce_cq_sends_owed(cq);
	if (cqe < needed) {
		ROCE_LOG(ERR, "cqe %u below the %" PRIu64 " completions the CQ holds or owes to "
			 "posted sends", cqe, needed);
		return -EINVAL;
	}
	return roce_cq_move(cq, cqe);
}

/*
 * As rxe_cq_resize_queue() (K:rxe_cq.c): the completions are copied into
 * the new ring in order. Its one producer, the lane of the CQ, is parked
 * (the control handshake, doc/workers.md) and its consumer side is held
 * by the guard, so no completion is pushed, polled or lost meanwhile.
 */
int
rte_roce_cq_resize(struct ibv_cq *ibv_cq, int cqe)
{
	struct roce_cq *cq;
	int rc;

	if (ibv_cq == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	cq = roce_cq_of(ibv_cq);
	rc = roce_cq_check_cqe(cq->dev, cqe);
	if (rc < 0)
		return rc;
	roce_ctrl_begin(cq->dev);
	/* A poll in progress ends without waiting for anything: wait for it. */
	while (!roce_cq_consumer_try(cq))
		rte_pause();
	rc = roce_cq_resize_held(cq, cqe);
	roce_cq_consumer_release(cq);
	roce_ctrl_end(cq->dev);
	return rc;
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

/* The poll itself, with the consumer guard held. */
static int
roce_cq_take(struct roce_cq *cq, uint32_t num_entries, struct ibv_wc *wc)
{
	struct roce_queue *q = &cq->ring;
	uint32_t avail, n, i;
	bool overflow;

	/*
	 * Flag first, then the count: the flag is stored (RELEASE) after the
	 * last publish, so once it is seen the count is final and -EOVERFLOW
	 * comes only after every stored completion was returned.
	 */
	overflow = roce_cq_overflowed(cq);
	avail = roce_queue_count(q);
	if (avail == 0)
		return overflow ? -EOVERFLOW : 0;
	n = RTE_MIN(avail, num_entries);
	for (i = 0; i < n; i++)
		memcpy(&wc[i], roce_queue_slot(q, q->cons + i), sizeof(wc[i]));
	roce_queue_retire(q, q->cons + n);
	return n;
}

int
rte_roce_poll_cq(struct ibv_cq *ibv_cq, int num_entries, struct ibv_wc *wc)
{
	struct roce_cq *cq;
	int n;

	if (ibv_cq == NULL || wc == NULL || num_entries < 0) {
		ROCE_LOG(ERR, "NULL argument or negative num_entries");
		return -EINVAL;
	}
	cq = roce_cq_of(ibv_cq);
	/* Another thread polls or resizes it: nothing for this one now (roce_cq.h). */
	if (!roce_cq_consumer_try(cq))
		return 0;
	n = roce_cq_take(cq, num_entries, wc);
	roce_cq_consumer_release(cq);
	return n;
}
