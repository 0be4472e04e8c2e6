/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * A connected QP moved by the CM's fields, in librdmacm's order: INIT when
 * the QP is created on the id, RTR then RTS when the REP arrives (active
 * side) or before the REP is sent (passive side, rdma_accept()), ERR on
 * disconnect.
 */

#include <string.h>

#include "roce_cm.h"

/* Rights a connected QP gets at INIT: rdma_cm's, remote write, read and atomics. */
#define CM_QP_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
/* RNR NAK timer code 12: 0.64 ms. */
#define CM_MIN_RNR_TIMER	12

int
roce_cm_qp_init(struct roce_cm_id *id)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags = CM_QP_ACCESS,
	};

	return rte_roce_modify_qp(id->pub.qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

int
roce_cm_qp_rtr_rts(struct roce_cm_id *id)
{
	struct ibv_qp_attr attr;
	int rc;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = (enum ibv_mtu)id->peer.mtu;
	attr.dest_qp_num = id->peer.qpn;
	attr.rq_psn = id->peer.psn;
	attr.max_dest_rd_atomic = id->resp_res;
	attr.min_rnr_timer = CM_MIN_RNR_TIMER;
	attr.ah_attr.is_global = 1;
	attr.ah_attr.port_num = 1;
	attr.ah_attr.grh.dgid = id->dgid;
	attr.ah_attr.grh.sgid_index = id->sgid_index;
	attr.ah_attr.grh.hop_limit = id->peer.hop_limit;
	attr.ah_attr.grh.traffic_class = id->peer.traffic_class;
	attr.ah_attr.grh.flow_label = id->peer.flow_label;
	rc = rte_roce_modify_qp(id->pub.qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER);
	if (rc < 0) {
		ROCE_CM_LOG(ERR, "id %08x: QP %u to RTR: %d", id->local_comm_id,
			    id->pub.qp->qp_num, rc);
		return rc;
	}
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = id->psn;
	attr.timeout = id->peer.ack_timeout;
	attr.retry_cnt = id->peer.retry_cnt;
	attr.rnr_retry = id->peer.rnr_retry;
	attr.max_rd_atomic = id->init_depth;
	rc = rte_roce_modify_qp(id->pub.qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc < 0)
		ROCE_CM_LOG(ERR, "id %08x: QP %u to RTS: %d", id->local_comm_id,
			    id->pub.qp->qp_num, rc);
	return rc;
}

void
roce_cm_qp_error(struct roce_cm_id *id)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

	if (id->pub.qp != NULL)
		rte_roce_modify_qp(id->pub.qp, &attr, IBV_QP_STATE);
}
