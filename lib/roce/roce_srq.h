/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_SRQ_H
#define ROCE_SRQ_H

/*
 * Shared receive queues (IBA 10.2.9; ibv_create_srq(3)).
 *
 * An SRQ is one receive ring (struct roce_recv_wqe slots, as a QP's) that
 * many QPs take receive WQEs from. The posting thread produces
 * (rte_roce_post_srq_recv()); the progress thread consumes, for every QP
 * attached: in inline mode one thread runs all of them, so the ring stays
 * single-consumer. (With several workers, QPs of one SRQ on different
 * workers would need a multi-consumer take: a CAS on cons, or the SRQ
 * pinned to one worker. Not done yet: doc/srq.md.)
 *
 * A QP takes a WQE when a message starts (roce_srq_take(), called through
 * roce_rq_peek()): the WQE is copied into the QP's own slot (qp->srq_wqe)
 * and the SRQ slot freed at once, so that a multi-packet SEND keeps its WQE
 * while other QPs take the next ones (as K:rxe_resp.c get_srq_wqe()). The
 * copy owns the MR uses taken at post time until roce_rq_consume().
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "roce_dev.h"
#include "roce_queue.h"

struct roce_qp;
struct roce_recv_wqe;

struct roce_srq {
	struct ibv_srq ibv;	/* first: roce_srq_of() is a cast */
	struct roce_dev *dev;
	struct roce_queue rq;	/* struct roce_recv_wqe */
	uint32_t max_sge;	/* granted */
	uint32_t limit;		/* srq_limit armed; 0 = disarmed (progress thread) */
	uint32_t users;		/* QPs attached */
	uint16_t lane;		/* of the QPs attached (its one consumer), while users > 0 */
	uint64_t limit_events;	/* IBV_EVENT_SRQ_LIMIT_REACHED raised */
};

static inline struct roce_srq *
roce_srq_of(struct ibv_srq *srq)
{
	return (struct roce_srq *)srq;
}

/*
 * The receive WQE qp holds, taking the oldest of its SRQ if it holds none
 * (and raising the limit event if that leaves fewer than srq_limit). NULL if
 * the SRQ is empty.
 */
struct roce_recv_wqe *roce_srq_take(struct roce_qp *qp);

/* Attach or detach a QP (create, destroy). */
void roce_srq_attach(struct roce_srq *srq, uint16_t lane);
void roce_srq_detach(struct roce_srq *srq);

/* The control calls behind rte_roce_*_srq (roce_verbs.c runs them with the lanes held). */
struct ibv_srq *roce_ctrl_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *init_attr);
int roce_ctrl_modify_srq(struct ibv_srq *ibv_srq, struct ibv_srq_attr *attr, int attr_mask);
int roce_ctrl_query_srq(struct ibv_srq *ibv_srq, struct ibv_srq_attr *attr);
int roce_ctrl_destroy_srq(struct ibv_srq *ibv_srq);

#endif /* ROCE_SRQ_H */
