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
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "roce_queue.h"

struct roce_dev;

struct roce_cq {
	struct ibv_cq ibv;	/* first: roce_cq_of() is a cast */
	struct roce_dev *dev;
	struct roce_queue ring;	/* of struct ibv_wc */
	uint32_t nb_qps;	/* QPs using it as send or receive CQ (control path) */
	bool overflow;		/* set by the producer (RELEASE), read by poll (ACQUIRE) */
};

static inline struct roce_cq *
roce_cq_of(struct ibv_cq *cq)
{
	return (struct roce_cq *)cq;
}

/*
 * Post a completion (engine side). Returns 0, or -EOVERFLOW when the ring
 * is full or already overflowed: the caller moves its QP to ERR.
 */
int roce_cq_push(struct roce_cq *cq, const struct ibv_wc *wc);

/* True once the CQ has overrun (read on the producer side). */
static inline bool
roce_cq_overflowed(const struct roce_cq *cq)
{
	return __atomic_load_n(&cq->overflow, __ATOMIC_ACQUIRE);
}

#endif /* ROCE_CQ_H */
