/* SPDX-License-Identifier: BSD-3-Clause */

/* Completion channels: create/destroy, arming, the engine's notification, get/ack. */

/* Logs under lib.roce.event (roce_log.h). */
#define ROCE_LOG_TYPE roce_logtype_event
#define ROCE_LOG_AREA "ROCE channel"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "roce_channel.h"
#include "roce_dev.h"
#include "roce_event.h"
#include "roce_log.h"
#include "rte_roce_event.h"

struct ibv_comp_channel *
rte_roce_create_comp_channel(struct ibv_context *ctx)
{
	struct roce_channel *ch;
	int fd, rc;

	if (ctx == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		rte_errno = EINVAL;
		return NULL;
	}
	/* Plain memory: the application's threads block on it, no DMA. */
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	fd = roce_efd_open();
	if (fd < 0) {
		ROCE_LOG(ERR, "eventfd: %s", strerror(-fd));
		free(ch);
		rte_errno = -fd;
		return NULL;
	}
	rc = pthread_mutex_init(&ch->lock, NULL);
	if (rc != 0) {
		close(fd);
		free(ch);
		rte_errno = rc;
		return NULL;
	}
	TAILQ_INIT(&ch->pending);
	ch->dev = roce_dev_of(ctx);
	ch->dev->async.nb_channels++;
	ch->ibv.context = ctx;
	ch->ibv.fd = fd;
	ch->ibv.refcnt = 0;
	return &ch->ibv;
}

int
rte_roce_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct roce_channel *ch;

	if (channel == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	ch = roce_channel_of(channel);
	if (ch->nb_cqs != 0) {
		ROCE_LOG(ERR, "channel used by %u CQs", ch->nb_cqs);
		return -EBUSY;
	}
	ch->dev->async.nb_channels--;
	close(channel->fd);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
	return 0;
}

int
roce_channel_cq_attach(struct roce_cq *cq, struct ibv_comp_channel *channel)
{
	struct roce_channel *ch = roce_channel_of(channel);

	if (ch->dev != cq->dev) {
		ROCE_LOG(ERR, "completion channel of another device");
		return -EINVAL;
	}
	ch->nb_cqs++;
	channel->refcnt = ch->nb_cqs;
	cq->ibv.channel = channel;
	return 0;
}

/* Events of cq got and not acknowledged. Channel lock held. */
static uint32_t
roce_channel_cq_unacked(const struct roce_cq *cq)
{
	return cq->events_got - __atomic_load_n(&cq->events_acked, __ATOMIC_ACQUIRE);
}

int
roce_channel_cq_busy(struct roce_cq *cq)
{
	struct roce_channel *ch = roce_channel_of(cq->ibv.channel);
	uint32_t unacked;

	pthread_mutex_lock(&ch->lock);
	unacked = roce_channel_cq_unacked(cq);
	pthread_mutex_unlock(&ch->lock);
	if (unacked != 0) {
		ROCE_LOG(ERR, "CQ has %u events not acknowledged", unacked);
		return -EBUSY;
	}
	return 0;
}

int
roce_channel_cq_detach(struct roce_cq *cq)
{
	struct roce_channel *ch = roce_channel_of(cq->ibv.channel);
	uint32_t unacked;

	pthread_mutex_lock(&ch->lock);
	unacked = roce_channel_cq_unacked(cq);
	if (unacked == 0 && cq->events_queued != 0) {
		/* Queued, never got: forgotten; their tokens are skipped by the reader. */
		TAILQ_REMOVE(&ch->pending, cq, chan_next);
		cq->events_queued = 0;
	}
	pthread_mutex_unlock(&ch->lock);
	if (unacked != 0) {
		ROCE_LOG(ERR, "CQ has %u events not acknowledged", unacked);
		return -EBUSY;
	}
	ch->nb_cqs--;
	cq->ibv.channel->refcnt = ch->nb_cqs;
	return 0;
}

int
rte_roce_req_notify_cq(struct ibv_cq *ibv_cq, int solicited_only)
{
	struct roce_cq *cq;
	uint32_t none = ROCE_CQ_ARM_NONE;

	if (ibv_cq == NULL || ibv_cq->channel == NULL) {
		ROCE_LOG(ERR, "NULL CQ, or a CQ without a completion channel");
		return -EINVAL;
	}
	cq = roce_cq_of(ibv_cq);
	if (solicited_only)
		/* Never narrows an arming for all completions. */
		(void)__atomic_compare_exchange_n(&cq->armed, &none, ROCE_CQ_ARM_SOLICITED, false,
						  __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	else
		__atomic_store_n(&cq->armed, ROCE_CQ_ARM_ALL, __ATOMIC_SEQ_CST);
	/*
	 * Pairs with the fence in roce_cq_notify() (store-load, Dekker): the
	 * application's next poll sees a completion the producer published
	 * before it could see this arming.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}

void
roce_cq_notify(struct roce_cq *cq, bool solicited)
{
	struct roce_channel *ch;
	uint32_t arm;
	int rc;

	/* The completion is published; now look at the arming (see rte_roce_req_notify_cq()). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	arm = __atomic_load_n(&cq->armed, __ATOMIC_RELAXED);
	if (arm == ROCE_CQ_ARM_NONE || (arm == ROCE_CQ_ARM_SOLICITED && !solicited))
		return;
	/* Only this thread disarms: the application can only widen the arming meanwhile. */
	__atomic_store_n(&cq->armed, ROCE_CQ_ARM_NONE, __ATOMIC_RELAXED);
	ch = roce_channel_of(cq->ibv.channel);
	pthread_mutex_lock(&ch->lock);
	if (cq->events_queued++ == 0)
		TAILQ_INSERT_TAIL(&ch->pending, cq, chan_next);
	pthread_mutex_unlock(&ch->lock);
	/* The interrupt: one system call per event, only for an armed CQ. */
	rc = roce_efd_signal(ch->ibv.fd);
	if (rc < 0)
		ROCE_LOG(ERR, "channel fd write: %s", strerror(-rc));
}

int
rte_roce_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	struct roce_channel *ch;
	struct roce_cq *rcq;
	int rc;

	if (channel == NULL || cq == NULL || cq_context == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	ch = roce_channel_of(channel);
	for (;;) {
		rc = roce_efd_wait(channel->fd);
		if (rc < 0)
			return rc;
		pthread_mutex_lock(&ch->lock);
		rcq = TAILQ_FIRST(&ch->pending);
		if (rcq != NULL) {
			if (--rcq->events_queued == 0)
				TAILQ_REMOVE(&ch->pending, rcq, chan_next);
			rcq->events_got++;
			*cq = &rcq->ibv;
			*cq_context = rcq->ibv.cq_context;
		}
		pthread_mutex_unlock(&ch->lock);
		if (rcq != NULL)
			return 0;
		/* The token of a forgotten event (its CQ destroyed): wait for the next. */
	}
}

int
rte_roce_ack_cq_events(struct ibv_cq *ibv_cq, unsigned int nevents)
{
	struct roce_channel *ch;
	struct roce_cq *cq;
	uint32_t unacked;

	if (ibv_cq == NULL || ibv_cq->channel == NULL) {
		ROCE_LOG(ERR, "NULL CQ, or a CQ without a completion channel");
		return -EINVAL;
	}
	cq = roce_cq_of(ibv_cq);
	ch = roce_channel_of(ibv_cq->channel);
	/* events_got only grows, and only this caller's acks are in flight: the check holds. */
	pthread_mutex_lock(&ch->lock);
	unacked = cq->events_got - __atomic_load_n(&cq->events_acked, __ATOMIC_RELAXED);
	if (nevents <= unacked)
		__atomic_fetch_add(&cq->events_acked, nevents, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ch->lock);
	if (nevents > unacked) {
		ROCE_LOG(ERR, "%u events acknowledged, %u got and not acknowledged",
			 nevents, unacked);
		return -EINVAL;
	}
	return 0;
}
