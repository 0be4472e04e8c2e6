/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The CM side of the RDMA transport (RDMA §3.1, "Fabric Dependent
 * Settings"): the listener, the NVMe/RDMA private data of an
 * RDMA_CM_REQUEST (Figure 5) checked, the queue created and accepted with
 * the controller's receive queue size (Figure 6), or the request rejected
 * with the transport's status (Figures 7 and 11). Every event of an id is
 * acknowledged at once.
 */

#include <errno.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_common.h>
#include <rte_errno.h>

#include <rte_roce_mad.h>

#include "nvmf_priv.h"

#define NVMF_LISTEN_BACKLOG	128
#define NVMF_RNR_RETRY_INFINITE	7

/* Listener i on conf.listen[i] (port 0: 4420); -errno after naming it. */
static int
cm_listen_one(struct nvmf_tgt *tgt, unsigned int i)
{
	struct nvmf_listener *l = &tgt->listeners[i];
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&l->addr;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&l->addr;
	int rc;

	l->addr = tgt->conf.listen[i];
	if (l->addr.ss_family != AF_INET && l->addr.ss_family != AF_INET6) {
		NVMF_LOG(ERR, "listen[%u]: not an IPv4 or IPv6 address", i);
		return -EINVAL;
	}
	if (l->addr.ss_family == AF_INET && s4->sin_port == 0)
		s4->sin_port = htons(NVMF_PORT_DEFAULT);
	if (l->addr.ss_family == AF_INET6 && s6->sin6_port == 0)
		s6->sin6_port = htons(NVMF_PORT_DEFAULT);
	l->port = ntohs(l->addr.ss_family == AF_INET ? s4->sin_port : s6->sin6_port);
	rc = rte_roce_cm_create_id(tgt->channel, &l->id, l, RTE_ROCE_CM_PS_TCP);
	if (rc == 0)
		rc = rte_roce_cm_bind_addr(l->id, (struct sockaddr *)&l->addr);
	if (rc == 0)
		rc = rte_roce_cm_listen(l->id, NVMF_LISTEN_BACKLOG);
	if (rc != 0)
		NVMF_LOG(ERR, "listen[%u]: %s", i, rte_strerror(-rc));
	return rc;
}

int
nvmf_cm_listen(struct nvmf_tgt *tgt)
{
	int rc = 0;

	if (tgt->conf.nb_listen == 0 || tgt->conf.nb_listen > NVMF_LISTEN_MAX) {
		NVMF_LOG(ERR, "nb_listen %u: from 1 to %u addresses", tgt->conf.nb_listen,
			 NVMF_LISTEN_MAX);
		return -EINVAL;
	}
	tgt->channel = rte_roce_cm_create_event_channel();
	if (tgt->channel == NULL)
		return -rte_errno;
	while (rc == 0 && tgt->nb_listeners < tgt->conf.nb_listen)
		rc = cm_listen_one(tgt, tgt->nb_listeners++);
	return rc;
}

void
nvmf_cm_unlisten(struct nvmf_tgt *tgt)
{
	unsigned int i;

	for (i = 0; i < tgt->nb_listeners; i++)
		if (tgt->listeners[i].id != NULL)
			rte_roce_cm_destroy_id(tgt->listeners[i].id);
	if (tgt->channel != NULL)
		rte_roce_cm_destroy_event_channel(tgt->channel);
}

/* The RDMA_CM_REQUEST's private data (Figure 5) against what we serve: 0 or a Figure 11 status. */
static enum nvmf_rdma_cm_status
cm_req_check(struct nvmf_tgt *tgt, const struct rte_roce_cm_event *ev, uint16_t *qid,
	     uint16_t *sqsize)
{
	const uint8_t *pd = ev->param.private_data;
	uint16_t hrqsize, cntlid;

	if (ev->param.private_data_len < NVMF_RDMA_CM_PRIV_LEN)
		return NVMF_RDMA_CM_INVALID_LEN;
	if (nvmf_get16(pd, NVMF_RDMA_REQ_RECFMT) != NVMF_RDMA_CM_RECFMT)
		return NVMF_RDMA_CM_INVALID_RECFMT;
	*qid = nvmf_get16(pd, NVMF_RDMA_REQ_QID);
	if (*qid > tgt->conf.max_io_queues)
		return NVMF_RDMA_CM_INVALID_QID;
	/* 0's based: at least two entries (Base), at most CAP.MQES + 1 */
	*sqsize = nvmf_get16(pd, NVMF_RDMA_REQ_HSQSIZE);
	if (*sqsize < 1 || *sqsize >= tgt->conf.max_queue_depth)
		return NVMF_RDMA_CM_INVALID_HSQSIZE;
	/* the host must be able to receive at least one response */
	hrqsize = nvmf_get16(pd, NVMF_RDMA_REQ_HRQSIZE);
	if (hrqsize == 0)
		return NVMF_RDMA_CM_INVALID_HRQSIZE;
	/* an I/O queue may name its controller (admin queues clear the field) */
	cntlid = nvmf_get16(pd, NVMF_RDMA_REQ_CNTLID);
	if (cntlid != 0 && (*qid == 0 || cntlid > tgt->conf.max_controllers ||
			    tgt->ctrl[cntlid - 1] == NULL))
		return NVMF_RDMA_CM_INVALID_CNTLID;
	/* the target moves host data with RDMA READ: the host must accept some */
	if (ev->param.initiator_depth == 0)
		return NVMF_RDMA_CM_INVALID_IRD;
	if (tgt->stopping)
		return NVMF_RDMA_CM_NO_RSC;
	return 0;
}

static void
cm_reject(struct nvmf_tgt *tgt, struct rte_roce_cm_id *id, enum nvmf_rdma_cm_status sts)
{
	uint8_t pd[NVMF_RDMA_CM_PRIV_LEN] = { 0 };

	nvmf_put16(pd, NVMF_RDMA_REJ_RECFMT, NVMF_RDMA_CM_RECFMT);
	nvmf_put16(pd, NVMF_RDMA_REJ_STS, sts);
	tgt->stats.cm_rejects++;
	NVMF_LOG(INFO, "RDMA_CM_REQUEST rejected: status %u", sts);
	if (rte_roce_cm_reject(id, pd, sizeof(pd)) != 0)
		NVMF_LOG(WARNING, "reject failed");
	rte_roce_cm_destroy_id(id);
}

static void
cm_connect_request(struct nvmf_tgt *tgt, const struct rte_roce_cm_event *ev)
{
	struct rte_roce_cm_conn_param param = {
		.responder_resources = 0,	/* RDMA §3.1: the host never reads from us */
		.initiator_depth = (uint8_t)tgt->max_rd_atom,
		.rnr_retry_count = NVMF_RNR_RETRY_INFINITE,
	};
	uint8_t pd[NVMF_RDMA_CM_PRIV_LEN] = { 0 };
	enum nvmf_rdma_cm_status sts;
	struct nvmf_queue *q;
	uint16_t qid = 0, sqsize = 0;

	tgt->stats.connect_requests++;
	sts = cm_req_check(tgt, ev, &qid, &sqsize);
	if (sts != 0) {
		cm_reject(tgt, ev->id, sts);
		return;
	}
	q = nvmf_queue_create(tgt, ev->id, qid, sqsize);
	if (q == NULL) {
		cm_reject(tgt, ev->id, NVMF_RDMA_CM_NO_RSC);
		return;
	}
	q->listener = ev->listen_id->context;
	nvmf_put16(pd, NVMF_RDMA_ACC_RECFMT, NVMF_RDMA_CM_RECFMT);
	/* Figure 6: as many as the host may send; on the SRQ, more meet an RNR NAK and retry */
	nvmf_put16(pd, NVMF_RDMA_ACC_CRQSIZE, (uint16_t)(sqsize + 1));
	param.private_data = pd;
	param.private_data_len = sizeof(pd);
	if (rte_roce_cm_accept(ev->id, &param) != 0) {
		NVMF_LOG(WARNING, "accept failed: queue %u dropped", qid);
		nvmf_queue_close(q, "accept failed");
		return;
	}
	tgt->stats.queues_live++;
}

static void
cm_event(struct nvmf_tgt *tgt, const struct rte_roce_cm_event *ev)
{
	struct nvmf_queue *q = ev->id->context;

	switch (ev->event) {
	case RTE_ROCE_CM_EVENT_CONNECT_REQUEST:
		cm_connect_request(tgt, ev);
		break;
	case RTE_ROCE_CM_EVENT_ESTABLISHED:
		if (q != NULL && q->state == NVMF_Q_CONNECTING)
			q->state = NVMF_Q_LIVE;
		break;
	case RTE_ROCE_CM_EVENT_DISCONNECTED:
	case RTE_ROCE_CM_EVENT_CONNECT_ERROR:
	case RTE_ROCE_CM_EVENT_UNREACHABLE:
	case RTE_ROCE_CM_EVENT_REJECTED:
		if (q != NULL)
			nvmf_queue_close(q, rte_roce_cm_event_str(ev->event));
		break;
	default:
		break;
	}
}

int
nvmf_cm_poll(struct nvmf_tgt *tgt)
{
	struct rte_roce_cm_event *ev;
	int n = 0;

	while (rte_roce_cm_get_cm_event(tgt->channel, &ev) == 0) {
		struct rte_roce_cm_event copy = *ev;
		uint8_t priv[RTE_ROCE_CMA_REQ_PRIVATE_MAX];

		/* acknowledged first (a reject or a teardown destroys the id): keep its data */
		copy.param.private_data_len = RTE_MIN(ev->param.private_data_len, sizeof(priv));
		if (copy.param.private_data_len != 0)
			memcpy(priv, ev->param.private_data, copy.param.private_data_len);
		copy.param.private_data = priv;
		rte_roce_cm_ack_cm_event(ev);
		cm_event(tgt, &copy);
		n++;
	}
	return n;
}
