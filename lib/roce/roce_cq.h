/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_CQ_H
#define ROCE_CQ_H

/*
 * Completion queues: an SPSC ring of struct ibv_wc (roce_queue.h). The
 * engine (the device's progress thread) produces with roce_cq_push(); the
 * application consumes with rte_roce_poll_cq().
 *
 * Overrun (IBA 11.4.2.1: a CQ overrun is a CQ error): a push into a full
 * ring is refused with -EOVERFLOW and the CQ is marked overflowed for good;
 * every later push is refused too. The caller moves its QP to ERR
 * (roce_qp_error()); the progress loop moves every other QP using the CQ to
 * ERR as well (roce_dev_cq_errors()). rte_roce_poll_cq() first returns the
 * completions the ring holds, then -EOVERFLOW on every call: nothing is
 * silently dropped, and the application learns the CQ must be destroyed.
 *
 * Consumers: one thread polls a CQ at a time. The consumer guard (polling)
 * makes a second one harmless instead of undefined: rte_roce_poll_cq()
 * takes it with one exchange, and a poll that finds it taken returns 0, as
 * an empty CQ would, so that two threads polling one CQ never see a
 * completion twice or move the consumer index back. rte_roce_cq_resize()
 * takes it too (waiting for it), so that it may be called from any thread.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/verbs.h>

#include "roce_queue.h"

struct roce_dev;

/* Arming of a CQ (rte_roce_req_notify_cq()). */
enum roce_cq_arm {
	ROCE_CQ_ARM_NONE = 0,
	ROCE_CQ_ARM_SOLICITED,	/* solicited or error completions */
	ROCE_CQ_ARM_ALL,	/* any completion */
};

struct roce_cq {
	/*
	 * First: roce_cq_of() is a cast; ibv.channel is its channel. The
	 * extended part of ibv_ex is zeroed and never read by the engine
	 * (for a verbs layer, rte_roce_verbs.h).
	 */
	union {
		struct ibv_cq ibv;
		struct ibv_cq_ex ibv_ex;
	};
	struct roce_dev *dev;
	uint16_t lane;		/* comp_vector: the lane of its QPs, its one producer */
	struct roce_queue ring;	/* of struct ibv_wc */
	uint32_t nb_qps;	/* QPs using it as send or receive CQ (control path) */
	/*
	 * Slots promised to send WQEs started and not yet completed (the
	 * send-side credit, doc/workers.md "Back-pressure instead of loss").
	 * Written by the producer only (the CQ's progress thread), or by a
	 * control call while it is parked.
	 */
	uint32_t reserved;
	bool overflow;		/* set by the producer (RELEASE), read by poll (ACQUIRE) */
	/*
	 * Completion events (roce_channel.c). armed: set by the application,
	 * cleared by the producer; a SEQ_CST fence on both sides (after
	 * arming, after publishing) so that of a completion published while
	 * the CQ is being armed, either the producer sees the arming or the
	 * application's next poll sees the completion.
	 */
	uint32_t armed;			/* enum roce_cq_arm */
	uint32_t events_queued;		/* in the channel, not got (channel lock) */
	uint32_t events_got;		/* got, by rte_roce_get_cq_event() (channel lock) */
	uint32_t events_acked;		/* acknowledged (atomic) */
	TAILQ_ENTRY(roce_cq) chan_next;	/* in the channel's list while events_queued > 0 */
	/*
	 * The consumer guard: 1 while a thread polls or resizes. On a line of
	 * its own, written by the consumer only, as the ring's cons.
	 */
	uint32_t polling __rte_cache_aligned;
};

static inline struct roce_cq *
roce_cq_of(struct ibv_cq *cq)
{
	return (struct roce_cq *)cq;
}

/*
 * Post a completion (engine side). Returns 0, or -EOVERFLOW when the ring
 * is full or already overflowed (raising IBV_EVENT_CQ_ERR the first
 * time): the caller moves its QP to ERR. solicited: a receive completion
 * of a message whose last packet had the SE bit; it wakes a CQ armed for
 * solicited completions, as does any completion in error (IBA 11.4.2.2).
 */
int roce_cq_push_se(struct roce_cq *cq, const struct ibv_wc *wc, bool solicited);

/* roce_cq_push_se() of a completion without the SE bit. */
static inline int
roce_cq_push(struct roce_cq *cq, const struct ibv_wc *wc)
{
	return roce_cq_push_se(cq, wc, false);
}

/*
 * After a push to a CQ with a channel: if the CQ is armed for it, disarm
 * and queue one event on the channel (one eventfd write).
 */
void roce_cq_notify(struct roce_cq *cq, bool solicited);

/*
 * Producer side: slots neither filled nor promised, what a completion that
 * holds no reservation may take. The ACQUIRE load of the consumer's index
 * (roce_queue_free()) pairs with the RELEASE store of rte_roce_poll_cq():
 * a slot seen free here was read by the application before it is reused.
 */
static inline uint32_t
roce_cq_room(const struct roce_cq *cq)
{
	uint32_t free_slots = roce_queue_free(&cq->ring);

	return free_slots > cq->reserved ? free_slots - cq->reserved : 0;
}

/* Producer side: promise one slot to a completion to come; false if none is left. */
static inline bool
roce_cq_reserve(struct roce_cq *cq)
{
	if (roce_cq_room(cq) == 0)
		return false;
	cq->reserved++;
	return true;
}

/* Producer side: give a promised slot back (its completion is pushed now, or will never be). */
static inline void
roce_cq_unreserve(struct roce_cq *cq)
{
	cq->reserved--;
}

/* True once the CQ has overrun (read on the producer side). */
static inline bool
roce_cq_overflowed(const struct roce_cq *cq)
{
	return __atomic_load_n(&cq->overflow, __ATOMIC_ACQUIRE);
}

#endif /* ROCE_CQ_H */
