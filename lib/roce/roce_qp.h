/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_QP_H
#define ROCE_QP_H

/*
 * Queue pairs: the verbs object (attributes, state machine), its send and
 * receive rings, and the per-role transport state of the engine
 * (roce_transport.h), embedded by value.
 *
 * Rings (roce_queue.h): the posting thread produces WQEs; the engine
 * consumes them. Send queue: the requester walks ahead with req.wqe_idx
 * (roce_sq_producer() tells it how far it may go), the completer retires
 * WQEs in order with roce_sq_retire(). Receive queue: the responder takes
 * the oldest WQE with roce_rq_peek() and retires it with roce_rq_consume().
 * Retiring releases the MR uses taken at post time. A QP created on an SRQ
 * has no receive ring: the same two calls take its WQEs from the SRQ
 * (roce_srq.h), so the responder does not know where they come from.
 *
 * State: qp->ibv.state is written by the control path and by
 * roce_qp_error() (the engine's thread), with RELEASE; the posting thread
 * reads it with roce_qp_state() (ACQUIRE).
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "rte_roce_gid.h"
#include "roce_build.h"
#include "roce_cq.h"
#include "roce_dev.h"
#include "roce_mr.h"
#include "roce_mw.h"
#include "roce_queue.h"
#include "roce_transport.h"
#include "roce_wr.h"

/* Largest message: 2^31 bytes (IBA 9.4.1: RETH DMA length; verbs max_msg_sz). */
#define ROCE_MAX_MSG_SIZE	(1u << 31)
/* Atomic operand size and alignment (IBA 9.4.5, C9-27). */
#define ROCE_ATOMIC_SIZE	8
/* UDP source ports of RoCEv2 QPs: 0xC000 | 14 bits of hash (K:rxe_qp.c, RXE_ROCE_V2_SPORT). */
#define ROCE_UDP_SPORT_BASE	0xc000
#define ROCE_UDP_SPORT_MASK	0x3fff

/* A send WQE as stored in the send ring. */
struct roce_send_wqe {
	uint64_t wr_id;
	uint32_t opcode;	/* enum ibv_wr_opcode */
	uint32_t send_flags;	/* IBV_SEND_*; SIGNALED set here when sq_sig_all */
	uint32_t length;	/* message length: sum of the SGEs or inline bytes */
	uint32_t num_sge;	/* 0 for inline data */
	union {
		uint32_t imm_data;		/* network order, as ibv_send_wr */
		uint32_t invalidate_rkey;	/* SEND_WITH_INV, LOCAL_INV */
		uint32_t feth;			/* FLUSH: the FETH word (IBA A19.4.1.1) */
	} ex;
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct roce_ah *ah;	/* a use taken at post, released at retire */
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
		struct roce_mw_bind_req bind;	/* BIND_MW */
	} wr;
	struct roce_wqe_tx tx;	/* the engine's (roce_transport.h); not written when posting */
	/* num_sge SGEs, or inline data (roce_send_wqe_inline()); the stride covers the larger. */
	struct roce_sge sge[];
};

/* A receive WQE as stored in the receive ring. */
struct roce_recv_wqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t length;	/* sum of the SGE lengths */
	struct roce_sge sge[];
};

struct roce_ah;

struct roce_qp {
	/*
	 * First: roce_qp_of() is a cast; ibv.state is the state. The
	 * extended part of ibv_ex is zeroed and never read by the engine
	 * (for a verbs layer, rte_roce_verbs.h).
	 */
	union {
		struct ibv_qp ibv;
		struct ibv_qp_ex ibv_ex;
	};
	struct roce_dev *dev;
	struct roce_lane *lane;	/* runs its engine, for its life (its CQs' lane) */
	struct roce_cq *scq;
	struct roce_cq *rcq;
	struct ibv_qp_cap cap;	/* granted */
	bool sq_sig_all;
	bool scheduled;		/* in lane->sched (atomic exchange) */

	/* Current attributes, as rte_roce_query_qp() returns them. */
	struct ibv_qp_attr attr;
	/* Derived from them for the engine. */
	uint32_t mtu;		/* path MTU in bytes (256..4096) */
	union rte_roce_gid sgid;	/* the port's GID at ah_attr.grh.sgid_index */
	union rte_roce_gid dgid;	/* the peer's address */
	uint16_t src_port;	/* UDP source port */
	struct roce_hdr_tmpl hdr;	/* RC/UC: headers up to UDP, from the above (IBV_QP_AV) */

	struct roce_queue sq;	/* struct roce_send_wqe */
	struct roce_queue rq;	/* struct roce_recv_wqe; unused on an SRQ */
	struct roce_srq *srq;	/* receive WQEs come from it, or NULL */
	struct roce_recv_wqe *srq_wqe;	/* room for one SRQ WQE, taken by the QP */
	bool srq_held;		/* srq_wqe holds a WQE taken and not yet consumed */

	struct roce_req_state req;
	struct roce_resp_state resp;
	struct roce_comp_state comp;
	struct rte_roce_stats stats;	/* this QP's counters (ROCE_QP_STAT_INC) */
};

/*
 * Count one transport event of qp, in its own counters and in its lane's
 * (summed per device when read). Both are written only by the QP's lane.
 */
#define ROCE_QP_STAT_INC(qp, field) do { \
	ROCE_COUNT((qp)->stats.field); \
	ROCE_COUNT((qp)->lane->xstats.qp.field); \
} while (0)

static inline struct roce_qp *
roce_qp_of(struct ibv_qp *qp)
{
	return (struct roce_qp *)qp;
}

/* The QP's state as the posting thread and the engine read it. */
static inline enum ibv_qp_state
roce_qp_state(const struct roce_qp *qp)
{
	return __atomic_load_n(&qp->ibv.state, __ATOMIC_ACQUIRE);
}

/* Send WQE at free-running index idx (engine). */
static inline struct roce_send_wqe *
roce_sq_wqe(struct roce_qp *qp, uint32_t idx)
{
	return roce_queue_slot(&qp->sq, idx);
}

/* One past the last posted send WQE (ACQUIRE: the WQEs before it are readable). */
static inline uint32_t
roce_sq_producer(const struct roce_qp *qp)
{
	return roce_queue_prod(&qp->sq);
}

/* Index of the oldest send WQE not yet retired. */
static inline uint32_t
roce_sq_consumer(const struct roce_qp *qp)
{
	return qp->sq.cons;
}

/* Completer: retire the oldest send WQE (after its completion, if any, was pushed). */
void roce_sq_retire(struct roce_qp *qp);

/*
 * The send CQ slot a WQE reserved when it started is given back: its
 * completion is pushed now (into the slot kept for it), or there is none.
 */
static inline void
roce_sq_release_cq_slot(struct roce_qp *qp, struct roce_send_wqe *wqe)
{
	if (!wqe->tx.cq_slot)
		return;
	wqe->tx.cq_slot = 0;
	roce_cq_unreserve(qp->scq);
}

/* rxe's rdma_sends: SEND WRs completed, whatever the status (K:rxe_comp.c do_complete). */
static inline void
roce_sq_count_send(struct roce_qp *qp, const struct roce_send_wqe *wqe)
{
	if ((roce_wr_info[wqe->opcode].flags & ROCE_WRF_SEND) != 0)
		ROCE_QP_STAT_INC(qp, rdma_sends);
}

/* Inline data of a WQE posted with IBV_SEND_INLINE. */
static inline uint8_t *
roce_send_wqe_inline(struct roce_send_wqe *wqe)
{
	return (uint8_t *)wqe->sge;
}

/*
 * The receive WQE the next SEND (or WRITE_WITH_IMM) completes: the oldest
 * posted to the receive queue, or on an SRQ the one the QP holds, else one
 * taken from the SRQ now. NULL if there is none (RNR).
 */
struct roce_recv_wqe *roce_rq_peek(struct roce_qp *qp);

/* Retire the receive WQE roce_rq_peek() returned. */
void roce_rq_consume(struct roce_qp *qp);

/*
 * The engine moves qp to ERR and raises IBV_EVENT_QP_FATAL (a move asked by
 * rte_roce_modify_qp() raises none). It flushes: every
 * send WQE not yet retired and every receive WQE completes with
 * IBV_WC_WR_FLUSH_ERR exactly once, in posting order, signaled or not (as
 * rxe's flush_send_queue()). A WQE the engine already completed must be
 * retired before the call. Harmless if qp is already in ERR.
 */
void roce_qp_error(struct roce_qp *qp);

/* "RESET", "INIT" ... for logs. */
const char *roce_qp_state_name(enum ibv_qp_state s);

/* Flush what was posted to a QP in ERR since the last flush (progress loop). */
void roce_qp_flush(struct roce_qp *qp);

/* Slot size of a receive WQE with max_sge SGEs. */
uint32_t roce_recv_wqe_stride(uint32_t max_sge);

/*
 * Post a chain of receive WRs to ring q (a QP's receive queue or an SRQ):
 * each checked against max_sge, its SGEs resolved in pd, published with one
 * release store. 0, -EINVAL (malformed WR) or -ENOMEM (ring full) with
 * *bad_wr the first WR not posted. what/id name the queue in the log.
 */
int roce_recv_post(struct roce_dev *dev, struct ibv_pd *pd, struct roce_queue *q,
		   uint32_t max_sge, const char *what, uint32_t id, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);

/* The control calls behind rte_roce_*_qp* (roce_verbs.c runs them with the lanes held). */
struct ibv_qp *roce_ctrl_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
struct ibv_qp *roce_ctrl_create_qp1(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
int roce_ctrl_query_qp(struct ibv_qp *ibv_qp, struct ibv_qp_attr *attr, int attr_mask,
		       struct ibv_qp_init_attr *init_attr);
int roce_ctrl_modify_qp(struct ibv_qp *ibv_qp, struct ibv_qp_attr *attr, int attr_mask);
int roce_ctrl_destroy_qp(struct ibv_qp *ibv_qp);

#endif /* ROCE_QP_H */
