/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * A connected QP moved by the CM's fields, in librdmacm's order: INIT when
 * the QP is created on the id, RTR then RTS when the REP arrives (active
 * side) or before the REP is sent (passive side, rdma_accept()), ERR on
 * disconnect.
 */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>

#include "roce_cm.h"

/* Rights a connected QP gets at INIT: rdma_cm's, remote write, read and atomics. */
#define CM_QP_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
/* RNR NAK timer code 12: 0.64 ms. */
#define CM_MIN_RNR_TIMER	12

/* INIT: rdma_cm's rights, P_Key index 0, port 1. */
static int
cm_init_attr(struct ibv_qp_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = IBV_QPS_INIT;
	attr->pkey_index = 0;
	attr->port_num = 1;
	attr->qp_access_flags = CM_QP_ACCESS;
	return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
}

/*
 * RTR: the peer's QPN, the PSN we put in our own REQ or REP, the path, our
 * responder resources. The Starting PSN of a REQ or REP is the one its sender
 * expects to receive, as Linux's CM reads and writes it (its ib_send_cm_req()
 * and ib_send_cm_rep() keep their own message's PSN as the RQ PSN, and the
 * peer's as the SQ PSN): a kernel rxe peer NAKs (PSN sequence error) anything
 * else (doc/cm.md, "Wire facts").
 */
static int
cm_rtr_attr(const struct roce_cm_id *id, struct ibv_qp_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = IBV_QPS_RTR;
	attr->path_mtu = (enum ibv_mtu)id->peer.mtu;
	attr->dest_qp_num = id->peer.qpn;
	attr->rq_psn = id->psn;
	attr->max_dest_rd_atomic = id->resp_res;
	attr->min_rnr_timer = CM_MIN_RNR_TIMER;
	attr->ah_attr.is_global = 1;
	attr->ah_attr.port_num = 1;
	attr->ah_attr.grh.dgid = id->dgid;
	attr->ah_attr.grh.sgid_index = id->sgid_index;
	attr->ah_attr.grh.hop_limit = id->peer.hop_limit;
	attr->ah_attr.grh.traffic_class = id->peer.traffic_class;
	attr->ah_attr.grh.flow_label = id->peer.flow_label;
	return IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
	       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
}

/* RTS: the peer's PSN (see above), the path's ACK timeout, the retry counts, our initiator depth. */
static int
cm_rts_attr(const struct roce_cm_id *id, struct ibv_qp_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = IBV_QPS_RTS;
	attr->sq_psn = id->peer.psn;
	attr->timeout = id->peer.ack_timeout;
	attr->retry_cnt = id->peer.retry_cnt;
	attr->rnr_retry = id->peer.rnr_retry;
	attr->max_rd_atomic = id->init_depth;
	return IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
}

/* The peer's QPN and PSN are known: from its REQ (passive) or its REP (active). */
static bool
cm_peer_known(const struct roce_cm_id *id)
{
	return id->state != ROCE_CM_IDLE && id->state != ROCE_CM_LISTEN &&
	       id->state != ROCE_CM_REQ_SENT && id->state != ROCE_CM_MRA_REQ_RCVD;
}

int
roce_cm_qp_init(struct roce_cm_id *id)
{
	struct ibv_qp_attr attr;
	int mask = cm_init_attr(&attr);

	return rte_roce_modify_qp(id->pub.qp, &attr, mask);
}

int
roce_cm_qp_rtr_rts(struct roce_cm_id *id)
{
	struct ibv_qp_attr attr;
	int mask, rc;

	mask = cm_rtr_attr(id, &attr);
	rc = rte_roce_modify_qp(id->pub.qp, &attr, mask);
	if (rc == 0) {
		mask = cm_rts_attr(id, &attr);
		rc = rte_roce_modify_qp(id->pub.qp, &attr, mask);
	}
	if (rc < 0)
		ROCE_CM_LOG(ERR, "id %08x: QP %u to RTR/RTS: %d", id->local_comm_id,
			    id->pub.qp->qp_num, rc);
	return rc;
}

/*
 * A UD QP's attributes for each state, as librdmacm moves it (its
 * ucma_init_ud_qp()): INIT with P_Key index 0, port 1 and rdma_cm's Q_Key
 * (the kernel's cma_ib_init_qp_attr(), RDMA_UDP_QKEY), RTR with nothing
 * more, RTS with SQ PSN 0.
 */
static int
cm_ud_attr(enum ibv_qp_state state, struct ibv_qp_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = state;
	if (state == IBV_QPS_INIT) {
		attr->port_num = 1;
		attr->qkey = RTE_ROCE_CM_UDP_QKEY;
		return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
	}
	return state == IBV_QPS_RTS ? IBV_QP_STATE | IBV_QP_SQ_PSN : IBV_QP_STATE;
}

/* A UD QP of an RTE_ROCE_CM_PS_UDP id, ready at once: INIT, RTR, RTS. */
int
roce_cm_qp_ud_ready(struct roce_cm_id *id)
{
	static const enum ibv_qp_state steps[] = { IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS };
	struct ibv_qp_attr attr;
	unsigned int i;
	int rc = 0;

	for (i = 0; i < RTE_DIM(steps) && rc == 0; i++)
		rc = rte_roce_modify_qp(id->pub.qp, &attr, cm_ud_attr(steps[i], &attr));
	return rc;
}

int
rte_roce_cm_init_qp_attr(struct rte_roce_cm_id *pub, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct roce_cm_id *id = roce_cm_id(pub);
	enum ibv_qp_state want;
	int rc = 0;

	if (id == NULL || qp_attr == NULL || qp_attr_mask == NULL || id->cm == NULL)
		return -EINVAL;
	want = qp_attr->qp_state;
	pthread_mutex_lock(&id->cm->lock);
	if (id->pub.ps == RTE_ROCE_CM_PS_UDP &&
	    (want == IBV_QPS_INIT || want == IBV_QPS_RTR || want == IBV_QPS_RTS))
		*qp_attr_mask = cm_ud_attr(want, qp_attr);
	else if (want == IBV_QPS_INIT)
		*qp_attr_mask = cm_init_attr(qp_attr);
	else if (want == IBV_QPS_RTR && cm_peer_known(id))
		*qp_attr_mask = cm_rtr_attr(id, qp_attr);
	else if (want == IBV_QPS_RTS && cm_peer_known(id))
		*qp_attr_mask = cm_rts_attr(id, qp_attr);
	else
		rc = -EINVAL;
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

void
roce_cm_qp_error(struct roce_cm_id *id)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

	if (id->pub.qp != NULL)
		rte_roce_modify_qp(id->pub.qp, &attr, IBV_QP_STATE);
}
