/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Posting work requests (ibv_post_send(3), ibv_post_recv(3)): run on the
 * application's thread, concurrently with the lane that owns the QP. Each
 * WR is checked, written into its ring slot (SGEs resolved against the MR
 * table, or inline data copied), and the chain published with one release
 * store before the QP's doorbell (roce_dev_qp_schedule()). The SRQ posts
 * through roce_recv_post() too.
 */

/* Logs under lib.roce.qp (roce_log.h). */
#define ROCE_LOG_TYPE roce_logtype_qp
#define ROCE_LOG_AREA "ROCE qp"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "rte_roce_verbs.h"
#include "roce_ah.h"
#include "roce_dev.h"
#include "roce_log.h"
#include "roce_mr.h"
#include "roce_qp.h"
#include "roce_wr.h"

/* Send flags a WR may carry. */
#define ROCE_SEND_FLAGS (IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE)

/* The SGE list of a WR: count within max_sge, total at most 2^31. NULL, or what is wrong. */
static const char *
roce_wr_sge_check(const struct ibv_sge *sg, int num_sge, uint32_t max_sge, uint64_t *len)
{
	int i;

	*len = 0;
	if (num_sge < 0 || (uint32_t)num_sge > max_sge || (num_sge > 0 && sg == NULL))
		return "num_sge";
	for (i = 0; i < num_sge; i++)
		*len += sg[i].length;
	return *len > ROCE_MAX_MSG_SIZE ? "message length (at most 2^31)" : NULL;
}

/* A UD WR: an AH of the QP's PD, one packet of at most the port's MTU (doc/wire-format.md §9.4). */
static const char *
roce_post_send_check_ud(const struct roce_qp *qp, const struct ibv_send_wr *wr, uint64_t len)
{
	if (wr->wr.ud.ah == NULL || wr->wr.ud.ah->pd != qp->ibv.pd)
		return "address handle (NULL, or of another PD)";
	if (wr->wr.ud.remote_qpn > RTE_ROCE_QPN_MASK)
		return "remote_qpn (24 bits)";
	if (len > qp->mtu)
		return "UD message length (above the port's active MTU)";
	return NULL;
}

/* What rte_roce_wr_flush() refuses in its arguments; NULL if nothing. */
static const char *
roce_flush_args_check(uint64_t len, uint64_t type, uint64_t level)
{
	if (type == 0 || (type & ~(uint64_t)(RTE_ROCE_FLUSH_GLOBAL | RTE_ROCE_FLUSH_PERSISTENT)) != 0)
		return "FLUSH placement type (GLOBAL, PERSISTENT or both)";
	if (level != RTE_ROCE_FLUSH_RANGE && level != RTE_ROCE_FLUSH_MR)
		return "FLUSH selectivity (RANGE or MR)";
	if (len > ROCE_MAX_MSG_SIZE)
		return "FLUSH length (at most 2^31)";
	return NULL;
}

/* A FLUSH WR as rte_roce_wr_flush() makes it: no SGE, its parameters in wr.atomic. */
static const char *
roce_post_send_check_flush(const struct ibv_send_wr *wr)
{
	uint64_t feth = wr->wr.atomic.swap;

	if (wr->num_sge != 0)
		return "FLUSH with SGEs (it moves no data)";
	if ((feth & ~(uint64_t)(RTE_ROCE_FETH_PLT_MASK | RTE_ROCE_FETH_SEL_MASK)) != 0)
		return "FLUSH parameters (not made by rte_roce_wr_flush())";
	return roce_flush_args_check(wr->wr.atomic.compare_add, feth & RTE_ROCE_FETH_PLT_MASK,
				     (feth & RTE_ROCE_FETH_SEL_MASK) >> RTE_ROCE_FETH_SEL_SHIFT);
}

int
rte_roce_wr_flush(struct ibv_send_wr *wr, uint32_t rkey, uint64_t remote_addr, uint32_t len,
		  uint8_t type, uint8_t level)
{
	const char *bad;

	if (wr == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	bad = roce_flush_args_check(len, type, level);
	if (bad != NULL) {
		ROCE_LOG(ERR, "WR 0x%" PRIx64 ": bad %s", wr->wr_id, bad);
		return -EINVAL;
	}
	wr->opcode = (enum ibv_wr_opcode)RTE_ROCE_WR_FLUSH;
	wr->sg_list = NULL;
	wr->num_sge = 0;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.compare_add = len;
	/* The FETH word (IBA A19.4.1.1): placement type, selectivity above it. */
	wr->wr.atomic.swap = type | (uint32_t)level << RTE_ROCE_FETH_SEL_SHIFT;
	return 0;
}

/* Validate one send WR; returns its message length through *len. */
static int
roce_post_send_check(const struct roce_qp *qp, const struct ibv_send_wr *wr,
		     const struct roce_wr_info **info, uint64_t *len)
{
	const char *bad;

	*len = 0;
	*info = roce_wr_info_get(wr->opcode, qp->ibv.qp_type);
	if (*info == NULL)
		bad = "opcode (unknown, or not for this QP type)";
	else if ((wr->send_flags & ~ROCE_SEND_FLAGS) != 0)
		bad = "send flags";
	else
		bad = roce_wr_sge_check(wr->sg_list, wr->num_sge, qp->cap.max_send_sge, len);
	if (bad == NULL) {
		if ((wr->send_flags & IBV_SEND_INLINE) != 0 &&
		    ((*info)->flags & ROCE_WRF_INLINE) == 0)
			bad = "inline flag on a READ, atomic or FLUSH";
		else if ((wr->send_flags & IBV_SEND_INLINE) != 0 &&
			 *len > qp->cap.max_inline_data)
			bad = "inline length (above max_inline_data)";
		else if (((*info)->flags & ROCE_WRF_ATOMIC) != 0 &&
			 (wr->num_sge != 1 || *len != ROCE_ATOMIC_SIZE ||
			  (wr->wr.atomic.remote_addr & (ROCE_ATOMIC_SIZE - 1)) != 0))
			bad = "atomic (one 8-byte SGE, 8-byte aligned remote address)";
		else if (wr->opcode == IBV_WR_ATOMIC_WRITE &&
			 (*len != RTE_ROCE_ATOMIC_WRITE_LEN ||
			  (wr->wr.rdma.remote_addr & (RTE_ROCE_ATOMIC_WRITE_LEN - 1)) != 0))
			bad = "ATOMIC_WRITE (8 bytes of data, 8-byte aligned remote address)";
		else if (wr->opcode == RTE_ROCE_WR_FLUSH)
			bad = roce_post_send_check_flush(wr);
		else if (qp->ibv.qp_type == IBV_QPT_UD)
			bad = roce_post_send_check_ud(qp, wr, *len);
		else if (wr->opcode == IBV_WR_BIND_MW)
			bad = roce_mw_bind_check(qp, wr);
	}
	if (bad != NULL) {
		ROCE_LOG(ERR, "QP 0x%x: WR 0x%" PRIx64 ": bad %s", qp->ibv.qp_num, wr->wr_id, bad);
		return -EINVAL;
	}
	return 0;
}

/* Write one WR into its slot: SGEs resolved (a failure shows at completion), or the inline copy. */
static void
roce_post_send_one(struct roce_qp *qp, struct roce_send_wqe *wqe, const struct ibv_send_wr *wr,
		   const struct roce_wr_info *info, uint32_t len)
{
	int access = (info->flags & ROCE_WRF_WRITES_LOCAL) != 0 ? IBV_ACCESS_LOCAL_WRITE : 0;
	uint32_t off = 0;
	int i;

	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags | (qp->sq_sig_all ? IBV_SEND_SIGNALED : 0);
	wqe->length = len;
	if (wr->opcode == IBV_WR_SEND_WITH_INV || wr->opcode == IBV_WR_LOCAL_INV)
		wqe->ex.invalidate_rkey = wr->invalidate_rkey;
	else
		wqe->ex.imm_data = wr->imm_data;
	if (wr->opcode == RTE_ROCE_WR_FLUSH) {
		/* The range is the RETH's, not data: length is what the completion reports. */
		wqe->length = wr->wr.atomic.compare_add;
		wqe->ex.feth = wr->wr.atomic.swap;
		wqe->wr.rdma.remote_addr = wr->wr.atomic.remote_addr;
		wqe->wr.rdma.rkey = wr->wr.atomic.rkey;
		wqe->num_sge = 0;
		return;
	}
	if ((info->flags & ROCE_WRF_LOCAL) != 0) {
		/* No data: the SGE list, if any, is not used (ibv_post_send(3)). */
		wqe->length = 0;
		wqe->num_sge = 0;
		if (wr->opcode == IBV_WR_BIND_MW)
			roce_mw_bind_req_init(&wqe->wr.bind, wr);
		return;
	}
	if (qp->ibv.qp_type == IBV_QPT_UD) {
		wqe->wr.ud.ah = roce_ah_of(wr->wr.ud.ah);
		wqe->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
		wqe->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		roce_ah_get(wqe->wr.ud.ah);
	} else if ((info->flags & ROCE_WRF_ATOMIC) != 0) {
		wqe->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		wqe->wr.atomic.compare_add = wr->wr.atomic.compare_add;
		wqe->wr.atomic.swap = wr->wr.atomic.swap;
		wqe->wr.atomic.rkey = wr->wr.atomic.rkey;
	} else {
		wqe->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		wqe->wr.rdma.rkey = wr->wr.rdma.rkey;
	}
	if ((wr->send_flags & IBV_SEND_INLINE) != 0) {
		/* Inline: the data is copied now and the lkeys are not used (ibv_post_send(3)). */
		wqe->num_sge = 0;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(roce_send_wqe_inline(wqe) + off,
			       (const void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
			off += wr->sg_list[i].length;
		}
		return;
	}
	wqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++)
		roce_sge_resolve(qp->dev, qp->ibv.pd, &wr->sg_list[i], access, &wqe->sge[i]);
}

/* Whether the whole chain would be posted: 0, or -errno with *bad_wr the first WR refused. */
static int
roce_post_send_check_all(struct roce_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	const struct roce_wr_info *info;
	uint32_t free = roce_queue_free(&qp->sq);
	uint64_t len;
	int rc;

	for (; wr != NULL; wr = wr->next) {
		rc = roce_post_send_check(qp, wr, &info, &len);
		if (rc == 0 && free-- == 0)
			rc = -ENOMEM;
		if (rc < 0) {
			*bad_wr = wr;
			return rc;
		}
	}
	return 0;
}

/* The chain up to the first WR refused, or (all) the whole chain or none of it. */
static int
roce_post_send(struct ibv_qp *ibv_qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr,
	       bool all)
{
	const struct roce_wr_info *info;
	enum ibv_qp_state state;
	struct roce_qp *qp;
	uint32_t prod, free;
	uint64_t len;
	int rc = 0;

	if (ibv_qp == NULL || wr == NULL || bad_wr == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	qp = roce_qp_of(ibv_qp);
	state = roce_qp_state(qp);
	if (state == IBV_QPS_RESET || state == IBV_QPS_INIT || state == IBV_QPS_RTR) {
		ROCE_LOG(ERR, "QP 0x%x: post_send in %s", ibv_qp->qp_num,
			 roce_qp_state_name(state));
		*bad_wr = wr;
		return -EINVAL;
	}
	/* Only the consumer runs meanwhile, and it only frees slots: the check holds. */
	if (all) {
		rc = roce_post_send_check_all(qp, wr, bad_wr);
		if (rc < 0)
			return rc;
	}
	prod = qp->sq.prod;
	free = roce_queue_free(&qp->sq);
	for (; wr != NULL; wr = wr->next) {
		rc = roce_post_send_check(qp, wr, &info, &len);
		if (rc == 0 && free == 0)
			rc = -ENOMEM;
		if (rc < 0) {
			*bad_wr = wr;
			break;
		}
		roce_post_send_one(qp, roce_sq_wqe(qp, prod), wr, info, len);
		prod++;
		free--;
	}
	/* The doorbell: one release store for the whole chain, then wake the engine. */
	if (prod != qp->sq.prod) {
		roce_queue_publish(&qp->sq, prod);
		roce_dev_qp_schedule(qp->dev, qp);
	}
	return rc;
}

int
rte_roce_post_send(struct ibv_qp *ibv_qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	return roce_post_send(ibv_qp, wr, bad_wr, false);
}

int
rte_roce_post_send_all(struct ibv_qp *ibv_qp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad_wr)
{
	return roce_post_send(ibv_qp, wr, bad_wr, true);
}

int
rte_roce_bind_mw(struct ibv_qp *ibv_qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind)
{
	const struct ibv_mw_bind_info *info;
	struct ibv_send_wr wr, *bad_wr;
	int rc;

	if (ibv_qp == NULL || mw == NULL || mw_bind == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	info = &mw_bind->bind_info;
	/* ibv_bind_mw(3)'s own checks, and rxe's refusal of a zero-based type 1 (o10-36.2.2). */
	if (mw->type != IBV_MW_TYPE_1 || (info->mr == NULL && (info->addr | info->length) != 0) ||
	    (info->mw_access_flags & IBV_ACCESS_ZERO_BASED) != 0) {
		ROCE_LOG(ERR, "QP 0x%x: bad bind: a type 2 window (bind it with IBV_WR_BIND_MW), a range without an MR, or zero-based",
			 ibv_qp->qp_num);
		return -EINVAL;
	}
	if (info->mr != NULL && info->mr->pd != mw->pd) {
		ROCE_LOG(ERR, "QP 0x%x: MR and window of different PDs", ibv_qp->qp_num);
		return -EPERM;
	}
	wr = (struct ibv_send_wr){
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
		.bind_mw = {
			.mw = mw,
			/* A new key byte for a new binding, as rdma-core's rxe provider. */
			.rkey = info->mr != NULL && info->length != 0 ? ibv_inc_rkey(mw->rkey) :
									 mw->rkey,
			.bind_info = *info,
		},
	};
	rc = rte_roce_post_send(ibv_qp, &wr, &bad_wr);
	if (rc == 0)
		mw->rkey = wr.bind_mw.rkey;
	return rc;
}

int
roce_recv_post(struct roce_dev *dev, struct ibv_pd *pd, struct roce_queue *q, uint32_t max_sge,
	       const char *what, uint32_t id, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	struct roce_recv_wqe *wqe;
	uint32_t prod, free;
	const char *bad;
	uint64_t len;
	int i, rc = 0;

	prod = q->prod;
	free = roce_queue_free(q);
	for (; wr != NULL; wr = wr->next) {
		bad = roce_wr_sge_check(wr->sg_list, wr->num_sge, max_sge, &len);
		if (bad != NULL) {
			ROCE_LOG(ERR, "%s 0x%x: WR 0x%" PRIx64 ": bad %s", what, id, wr->wr_id,
				 bad);
			rc = -EINVAL;
		} else if (free == 0) {
			rc = -ENOMEM;
		}
		if (rc < 0) {
			*bad_wr = wr;
			break;
		}
		wqe = roce_queue_slot(q, prod);
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		wqe->length = len;
		for (i = 0; i < wr->num_sge; i++)
			roce_sge_resolve(dev, pd, &wr->sg_list[i], IBV_ACCESS_LOCAL_WRITE,
					 &wqe->sge[i]);
		prod++;
		free--;
	}
	if (prod != q->prod)
		roce_queue_publish(q, prod);
	return rc;
}

int
rte_roce_post_recv(struct ibv_qp *ibv_qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	enum ibv_qp_state state;
	struct roce_qp *qp;
	uint32_t prod;
	int rc;

	if (ibv_qp == NULL || wr == NULL || bad_wr == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	qp = roce_qp_of(ibv_qp);
	state = roce_qp_state(qp);
	if (state == IBV_QPS_RESET || qp->srq != NULL) {
		ROCE_LOG(ERR, "QP 0x%x: post_recv %s", ibv_qp->qp_num,
			 qp->srq != NULL ? "on a QP with an SRQ (post to the SRQ)" : "in RESET");
		*bad_wr = wr;
		return -EINVAL;
	}
	prod = qp->rq.prod;
	rc = roce_recv_post(qp->dev, ibv_qp->pd, &qp->rq, qp->cap.max_recv_sge, "QP",
			    ibv_qp->qp_num, wr, bad_wr);
	if (prod != qp->rq.prod)
		/*
		 * Always ring: a QP that goes to ERR between the state check
		 * and the publish still gets its new WQEs flushed by the
		 * progress loop (IBA 10.8.3.2), and a responder waiting for a
		 * receive WQE learns of it.
		 */
		roce_dev_qp_schedule(qp->dev, qp);
	return rc;
}
