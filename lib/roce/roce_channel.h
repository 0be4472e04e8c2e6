/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_CHANNEL_H
#define ROCE_CHANNEL_H

/*
 * Completion channels (ibv_comp_channel): an eventfd in semaphore mode
 * (roce_event.h) and the list of CQs with events not yet got, under a
 * mutex. The progress thread takes the lock only to queue an event, which
 * happens once per arming of a CQ; the application takes it in
 * rte_roce_get_cq_event(). A CQ is on the list at most once, with a count
 * of its queued events, so the list is bounded by the CQs of the channel.
 */

#include <pthread.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/verbs.h>

#include "roce_cq.h"

struct roce_dev;

struct roce_channel {
	struct ibv_comp_channel ibv;	/* first: roce_channel_of() is a cast */
	struct roce_dev *dev;
	pthread_mutex_t lock;
	TAILQ_HEAD(, roce_cq) pending;	/* CQs with events_queued > 0 */
	uint32_t nb_cqs;		/* CQs created on it (control path) */
};

static inline struct roce_channel *
roce_channel_of(struct ibv_comp_channel *ch)
{
	return (struct roce_channel *)ch;
}

/* rte_roce_create_cq() with a channel: 0, or -EINVAL (another device's channel). */
int roce_channel_cq_attach(struct roce_cq *cq, struct ibv_comp_channel *channel);

/* rte_roce_destroy_cq(), first: -EBUSY if events of cq were got and not acknowledged, else 0. */
int roce_channel_cq_busy(struct roce_cq *cq);

/*
 * rte_roce_destroy_cq(), last: checks again (another thread may have got an
 * event since), then forgets cq's queued events and detaches it: 0 or -EBUSY.
 */
int roce_channel_cq_detach(struct roce_cq *cq);

#endif /* ROCE_CHANNEL_H */
