/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The connection state machine of IBTA Vol. 1 §12.9 (the CM state
 * diagram): one handler per state, each given a received message
 * or a timer expiry, and the builders of the messages it sends. Every
 * transition goes through roce_cm_state_set(), which traces it.
 */

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>

#include "roce_cm.h"

/*
 * Local ACK timeout of the path we offer, 19 (2.1 s): what a Linux rdma_cm
 * peer sent on RoCE in the kernel rxe capture of tests/unit/test_mad.c.
 */
#define CM_LOCAL_ACK_TIMEOUT	19
#define CM_HOP_LIMIT		64
#define CM_PSN_RANDOM_MASK	RTE_ROCE_PSN_MASK

/* A message received (mad != NULL), or the id's timer expired (mad == NULL). */
struct cm_input {
	const struct rte_roce_mad *mad;
	uint16_t attr;
};

typedef void (*cm_state_fn)(struct roce_cm_id *id, const struct cm_input *in);

static const char *const cm_state_names[ROCE_CM_STATE_MAX] = {
	[ROCE_CM_IDLE] = "IDLE",
	[ROCE_CM_LISTEN] = "LISTEN",
	[ROCE_CM_REQ_SENT] = "REQ_SENT",
	[ROCE_CM_REQ_RCVD] = "REQ_RCVD",
	[ROCE_CM_MRA_REQ_SENT] = "MRA_REQ_SENT",
	[ROCE_CM_MRA_REQ_RCVD] = "MRA_REQ_RCVD",
	[ROCE_CM_REP_SENT] = "REP_SENT",
	[ROCE_CM_REP_RCVD] = "REP_RCVD",
	[ROCE_CM_MRA_REP_SENT] = "MRA_REP_SENT",
	[ROCE_CM_MRA_REP_RCVD] = "MRA_REP_RCVD",
	[ROCE_CM_ESTABLISHED] = "ESTABLISHED",
	[ROCE_CM_DREQ_SENT] = "DREQ_SENT",
	[ROCE_CM_DREQ_RCVD] = "DREQ_RCVD",
	[ROCE_CM_TIMEWAIT] = "TIMEWAIT",
	[ROCE_CM_SIDR_REQ_SENT] = "SIDR_REQ_SENT",
	[ROCE_CM_SIDR_REQ_RCVD] = "SIDR_REQ_RCVD",
};

const char *
roce_cm_state_name(enum roce_cm_state state)
{
	return state < ROCE_CM_STATE_MAX ? cm_state_names[state] : "?";
}

void
roce_cm_state_set(struct roce_cm_id *id, enum roce_cm_state state)
{
	ROCE_CM_LOG(DEBUG, "id %08x: %s -> %s", id->local_comm_id,
		    roce_cm_state_name(id->state), roce_cm_state_name(state));
	id->state = state;
}

/* Timers */

void
roce_cm_timer_arm(struct roce_cm_id *id, uint64_t cycles, uint8_t retries)
{
	id->timeout_cycles = cycles;
	id->retries_left = retries;
	id->deadline = rte_get_timer_cycles() + cycles;
}

void
roce_cm_timer_stop(struct roce_cm_id *id)
{
	id->deadline = 0;
}

void
roce_cm_run_timers(struct rte_roce_cm *cm, uint64_t now, int *handled)
{
	struct roce_cm_id *id;

	TAILQ_FOREACH(id, &cm->ids, next) {
		if (id->deadline == 0 || now < id->deadline)
			continue;
		id->deadline = 0;
		roce_cm_state_timeout(id);
		(*handled)++;
	}
}

/* Sending */

static uint64_t
cm_new_tid(struct rte_roce_cm *cm)
{
	return cm->tid_high | cm->tid_next++;
}

/* Send msg as the id's last message (answered again to duplicates, resent on timeouts). */
static int
cm_send(struct roce_cm_id *id, uint16_t attr, const void *msg, size_t len)
{
	roce_cm_mad_init(&id->last, attr, id->tid);
	memcpy(id->last.data, msg, len);
	id->has_last = true;
	return roce_cm_send_last(id);
}

int
roce_cm_send_last(struct roce_cm_id *id)
{
	if (!id->has_last)
		return -EINVAL;
	return roce_cm_mad_send(id->cm, &id->dgid, id->sgid_index, &id->last);
}

uint32_t
roce_cm_random_psn(void)
{
	uint32_t psn = 0;

	if (getrandom(&psn, sizeof(psn), 0) != sizeof(psn))
		psn = (uint32_t)rte_rdtsc();
	return psn & CM_PSN_RANDOM_MASK;
}

/* rdma_cm's header at the head of a REQ's private data. */
static void
cm_cma_hdr_fill(const struct roce_cm_id *id, struct rte_roce_cma_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->version = RTE_ROCE_CMA_VERSION;
	if (id->src.ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)&id->src;
		const struct sockaddr_in *d = (const struct sockaddr_in *)&id->dst;

		h->ip_version = 4 << RTE_ROCE_CMA_IP_VERSION_SHIFT;
		h->port = s->sin_port;
		h->src.ip4.addr = s->sin_addr.s_addr;
		h->dst.ip4.addr = d->sin_addr.s_addr;
	} else {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)&id->src;
		const struct sockaddr_in6 *d = (const struct sockaddr_in6 *)&id->dst;

		h->ip_version = 6 << RTE_ROCE_CMA_IP_VERSION_SHIFT;
		h->port = s->sin6_port;
		memcpy(h->src.ip6, &s->sin6_addr, sizeof(h->src.ip6));
		memcpy(h->dst.ip6, &d->sin6_addr, sizeof(h->dst.ip6));
	}
}

static uint16_t
cm_dst_port(const struct roce_cm_id *id)
{
	if (id->dst.ss_family == AF_INET)
		return rte_be_to_cpu_16(((const struct sockaddr_in *)&id->dst)->sin_port);
	return rte_be_to_cpu_16(((const struct sockaddr_in6 *)&id->dst)->sin6_port);
}

static void
cm_req_path_fill(const struct roce_cm_id *id, struct rte_roce_cm_path *p)
{
	p->local_lid = RTE_BE16(RTE_ROCE_CM_PERMISSIVE_LID);
	p->remote_lid = RTE_BE16(RTE_ROCE_CM_PERMISSIVE_LID);
	memcpy(p->local_gid, &id->sgid, sizeof(p->local_gid));
	memcpy(p->remote_gid, &id->dgid, sizeof(p->remote_gid));
	p->hop_limit = CM_HOP_LIMIT;
	p->traffic_class = id->route_tos;
	p->ack_timeout = CM_LOCAL_ACK_TIMEOUT << RTE_ROCE_CM_PATH_ACK_TIMEOUT_SHIFT;
}

int
roce_cm_send_req(struct roce_cm_id *id, const struct rte_roce_cm_conn_param *param)
{
	const struct rte_roce_cm_conf *conf = &id->cm->conf;
	struct rte_roce_cm_req req;
	struct rte_roce_cma_hdr cma;

	memset(&req, 0, sizeof(req));
	id->psn = roce_cm_random_psn();
	id->tid = cm_new_tid(id->cm);
	req.local_comm_id = rte_cpu_to_be_32(id->local_comm_id);
	req.service_id = rte_cpu_to_be_64(RTE_ROCE_CMA_SERVICE_ID(id->pub.ps, cm_dst_port(id)));
	req.local_ca_guid = id->cm->ca_guid;
	req.qpn_resp_res = rte_cpu_to_be_32(id->qpn << RTE_ROCE_CM_QPN_SHIFT |
					    id->resp_res);
	req.eecn_init_depth = rte_cpu_to_be_32(id->init_depth);
	req.eecn_timeout_type = rte_cpu_to_be_32(conf->response_timeout <<
		RTE_ROCE_CM_REQ_REMOTE_TIMEOUT_SHIFT |
		RTE_ROCE_CM_TRANSPORT_RC << RTE_ROCE_CM_REQ_TRANSPORT_SHIFT);
	req.psn_timeout_retry = rte_cpu_to_be_32(id->psn << RTE_ROCE_CM_PSN_SHIFT |
		conf->response_timeout << RTE_ROCE_CM_REQ_LOCAL_TIMEOUT_SHIFT | id->retry_cnt);
	req.pkey = RTE_BE16(RTE_ROCE_DEFAULT_PKEY);
	req.mtu_rdc_rnr = id->cm->active_mtu << RTE_ROCE_CM_REQ_MTU_SHIFT | id->rnr_retry;
	req.max_cm_retries_srq = conf->max_cm_retries << RTE_ROCE_CM_REQ_MAX_RETRIES_SHIFT;
	cm_req_path_fill(id, &req.primary);
	cm_cma_hdr_fill(id, &cma);
	memcpy(req.private_data, &cma, sizeof(cma));
	if (param->private_data_len != 0)
		memcpy(req.private_data + sizeof(cma), param->private_data, param->private_data_len);
	roce_cm_timer_arm(id, roce_cm_timeout_cycles(conf->response_timeout), conf->max_cm_retries);
	roce_cm_state_set(id, ROCE_CM_REQ_SENT);
	return cm_send(id, RTE_ROCE_CM_ATTR_REQ, &req, sizeof(req));
}

int
roce_cm_send_rep(struct roce_cm_id *id, const struct rte_roce_cm_conn_param *param)
{
	struct rte_roce_cm_rep rep;

	memset(&rep, 0, sizeof(rep));
	rep.local_comm_id = rte_cpu_to_be_32(id->local_comm_id);
	rep.remote_comm_id = rte_cpu_to_be_32(id->remote_comm_id);
	rep.qpn_vendor_h = rte_cpu_to_be_32(id->qpn << RTE_ROCE_CM_QPN_SHIFT);
	rep.psn_vendor_l = rte_cpu_to_be_32(id->psn << RTE_ROCE_CM_PSN_SHIFT);
	rep.resp_resources = id->resp_res;
	rep.init_depth = id->init_depth;
	rep.rnr_retry_srq = id->rnr_retry << RTE_ROCE_CM_REP_RNR_RETRY_SHIFT;
	rep.local_ca_guid = id->cm->ca_guid;
	if (param->private_data_len != 0)
		memcpy(rep.private_data, param->private_data, param->private_data_len);
	/* The active side answers within the time its REQ announced (IBTA §12.6). */
	roce_cm_timer_arm(id, roce_cm_timeout_cycles(id->peer.resp_timeout), id->peer.max_cm_retries);
	roce_cm_state_set(id, ROCE_CM_REP_SENT);
	return cm_send(id, RTE_ROCE_CM_ATTR_REP, &rep, sizeof(rep));
}

/* RTU, DREP: the two comm IDs only. */
static int
cm_send_ids_only(struct roce_cm_id *id, uint16_t attr)
{
	struct rte_roce_cm_rtu msg;

	memset(&msg, 0, sizeof(msg));
	msg.local_comm_id = rte_cpu_to_be_32(id->local_comm_id);
	msg.remote_comm_id = rte_cpu_to_be_32(id->remote_comm_id);
	return cm_send(id, attr, &msg, sizeof(msg));
}

int
roce_cm_send_rtu(struct roce_cm_id *id)
{
	return cm_send_ids_only(id, RTE_ROCE_CM_ATTR_RTU);
}

/* Which message a REJ sent in state rejects: the REQ or REP we hold, else none (a timeout). */
static uint8_t
cm_rejected_msg(enum roce_cm_state state)
{
	switch (state) {
	case ROCE_CM_REQ_RCVD:
	case ROCE_CM_MRA_REQ_SENT:
		return RTE_ROCE_CM_MSG_REQ;
	case ROCE_CM_REP_RCVD:
	case ROCE_CM_MRA_REP_SENT:
		return RTE_ROCE_CM_MSG_REP;
	default:
		return RTE_ROCE_CM_MSG_OTHER;
	}
}

int
roce_cm_send_rej(struct roce_cm_id *id, uint16_t reason, const void *data, uint8_t len)
{
	struct rte_roce_cm_rej rej;

	memset(&rej, 0, sizeof(rej));
	rej.local_comm_id = rte_cpu_to_be_32(id->local_comm_id);
	rej.remote_comm_id = rte_cpu_to_be_32(id->remote_comm_id);
	rej.message_rejected = cm_rejected_msg(id->state) << RTE_ROCE_CM_MSG_SHIFT;
	rej.reason = rte_cpu_to_be_16(reason);
	if (len != 0)
		memcpy(rej.private_data, data, len);
	id->cm->stats.rej_sent++;
	return cm_send(id, RTE_ROCE_CM_ATTR_REJ, &rej, sizeof(rej));
}

static int
cm_send_mra(struct roce_cm_id *id, uint8_t msg)
{
	struct rte_roce_cm_mra mra;

	memset(&mra, 0, sizeof(mra));
	mra.local_comm_id = rte_cpu_to_be_32(id->local_comm_id);
	mra.remote_comm_id = rte_cpu_to_be_32(id->remote_comm_id);
	mra.message_mraed = msg << RTE_ROCE_CM_MSG_SHIFT;
	mra.service_timeout = id->cm->conf.response_timeout << RTE_ROCE_CM_MRA_TIMEOUT_SHIFT;
	id->cm->stats.mra_sent++;
	return cm_send(id, RTE_ROCE_CM_ATTR_MRA, &mra, sizeof(mra));
}

int
roce_cm_send_dreq(struct roce_cm_id *id)
{
	const struct rte_roce_cm_conf *conf = &id->cm->conf;
	struct rte_roce_cm_dreq dreq;

	memset(&dreq, 0, sizeof(dreq));
	id->tid = cm_new_tid(id->cm);
	dreq.local_comm_id = rte_cpu_to_be_32(id->local_comm_id);
	dreq.remote_comm_id = rte_cpu_to_be_32(id->remote_comm_id);
	dreq.remote_qpn = rte_cpu_to_be_32(id->peer.qpn << RTE_ROCE_CM_QPN_SHIFT);
	roce_cm_timer_arm(id, roce_cm_timeout_cycles(conf->response_timeout), conf->max_cm_retries);
	roce_cm_state_set(id, ROCE_CM_DREQ_SENT);
	return cm_send(id, RTE_ROCE_CM_ATTR_DREQ, &dreq, sizeof(dreq));
}

/*
 * SIDR (IBTA Vol. 1 §12.11): a UD id asks the service ID of its destination
 * port for a QPN and Q_Key; rdma_cm's header leads the private data as in
 * a REQ. Retransmitted as a REQ is.
 */
int
roce_cm_send_sidr_req(struct roce_cm_id *id, const struct rte_roce_cm_conn_param *param)
{
	const struct rte_roce_cm_conf *conf = &id->cm->conf;
	struct rte_roce_cm_sidr_req req;
	struct rte_roce_cma_hdr cma;

	memset(&req, 0, sizeof(req));
	id->tid = cm_new_tid(id->cm);
	req.request_id = rte_cpu_to_be_32(id->local_comm_id);
	req.pkey = RTE_BE16(RTE_ROCE_DEFAULT_PKEY);
	req.service_id = rte_cpu_to_be_64(RTE_ROCE_CMA_SERVICE_ID(id->pub.ps, cm_dst_port(id)));
	cm_cma_hdr_fill(id, &cma);
	memcpy(req.private_data, &cma, sizeof(cma));
	if (param->private_data_len != 0)
		memcpy(req.private_data + sizeof(cma), param->private_data, param->private_data_len);
	roce_cm_timer_arm(id, roce_cm_timeout_cycles(conf->response_timeout), conf->max_cm_retries);
	roce_cm_state_set(id, ROCE_CM_SIDR_REQ_SENT);
	return cm_send(id, RTE_ROCE_CM_ATTR_SIDR_REQ, &req, sizeof(req));
}

/* The answer to a SIDR_REQ (same TID): kept as the last message, for the request sent again. */
int
roce_cm_send_sidr_rep(struct roce_cm_id *id, uint8_t status, const void *data, uint8_t len)
{
	struct rte_roce_cm_sidr_rep rep;

	memset(&rep, 0, sizeof(rep));
	rep.request_id = rte_cpu_to_be_32(id->remote_comm_id);
	rep.status = status;
	rep.service_id = rte_cpu_to_be_64(id->service_id);
	if (status == RTE_ROCE_CM_SIDR_SUCCESS) {
		rep.qpn_vendor_l = rte_cpu_to_be_32(id->qpn << RTE_ROCE_CM_QPN_SHIFT);
		rep.qkey = RTE_BE32(RTE_ROCE_CM_UDP_QKEY);
	}
	if (len != 0)
		memcpy(rep.private_data, data, len);
	roce_cm_state_set(id, ROCE_CM_IDLE);
	return cm_send(id, RTE_ROCE_CM_ATTR_SIDR_REP, &rep, sizeof(rep));
}

/* Shared steps of the handlers */

/* The last message again after a timeout; false when the retries are spent. */
static bool
cm_retransmit(struct roce_cm_id *id)
{
	if (id->retries_left == 0) {
		id->cm->stats.timeouts++;
		return false;
	}
	id->retries_left--;
	id->deadline = rte_get_timer_cycles() + id->timeout_cycles;
	id->cm->stats.retransmits++;
	roce_cm_send_last(id);
	return true;
}

static void
cm_duplicate_answer(struct roce_cm_id *id)
{
	id->cm->stats.duplicates++;
	roce_cm_send_last(id);
}

static void
cm_drop(struct roce_cm_id *id)
{
	id->cm->stats.drop_state++;
}

/* A passive id's request is answered: its listener may take another. */
void
roce_cm_request_answered(struct roce_cm_id *id)
{
	if (id->listener != NULL)
		id->listener->pending--;
	id->listener = NULL;
}

/* The connection attempt ends without a connection. */
static void
cm_fail(struct roce_cm_id *id, enum rte_roce_cm_event_type ev, int status,
	const void *data, uint8_t len)
{
	roce_cm_timer_stop(id);
	roce_cm_request_answered(id);
	roce_cm_qp_error(id);
	roce_cm_state_set(id, ROCE_CM_IDLE);
	roce_cm_event_queue(id, NULL, ev, status, data, len);
}

static void
cm_rej_input(struct roce_cm_id *id, const struct rte_roce_mad *mad)
{
	struct rte_roce_cm_rej rej;

	memcpy(&rej, mad->data, sizeof(rej));
	id->cm->stats.rej_rcvd++;
	cm_fail(id, RTE_ROCE_CM_EVENT_REJECTED, rte_be_to_cpu_16(rej.reason),
		rej.private_data, sizeof(rej.private_data));
}

/*
 * The active side's event carries the REP's private data, as rdma_cm's
 * (an NVMe-oF host reads the target's CRQSIZE there); the passive side's,
 * on the RTU, none.
 */
static void
cm_established(struct roce_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	roce_cm_timer_stop(id);
	roce_cm_state_set(id, ROCE_CM_ESTABLISHED);
	id->cm->stats.established++;
	roce_cm_event_queue(id, NULL, RTE_ROCE_CM_EVENT_ESTABLISHED, 0, private_data,
			    private_data_len);
}

/*
 * The application saw a message on the QP before the RTU (COMM_EST,
 * rte_roce_cm_notify()): the RTU's work without it, as Linux's ib_cm_notify() does.
 * 0, -EISCONN (established already) or -EINVAL (not waiting for an RTU).
 */
int
roce_cm_comm_est(struct roce_cm_id *id)
{
	if (id->state == ROCE_CM_ESTABLISHED)
		return -EISCONN;
	if (id->state != ROCE_CM_REP_SENT && id->state != ROCE_CM_MRA_REP_RCVD)
		return -EINVAL;
	roce_cm_request_answered(id);
	cm_established(id, NULL, 0);
	return 0;
}

/* Give up an exchange that got no answer: REJ with reason TIMEOUT. */
static void
cm_give_up(struct roce_cm_id *id, enum rte_roce_cm_event_type ev)
{
	roce_cm_send_rej(id, RTE_ROCE_CM_REJ_TIMEOUT, NULL, 0);
	cm_fail(id, ev, -ETIMEDOUT, NULL, 0);
}

static void
cm_mra_input(struct roce_cm_id *id, const struct rte_roce_mad *mad, enum roce_cm_state next)
{
	struct rte_roce_cm_mra mra;
	uint8_t service_timeout;

	memcpy(&mra, mad->data, sizeof(mra));
	service_timeout = mra.service_timeout >> RTE_ROCE_CM_MRA_TIMEOUT_SHIFT;
	id->cm->stats.mra_rcvd++;
	/* The peer needs service_timeout more before it answers (IBTA §12.6). */
	id->deadline = rte_get_timer_cycles() + roce_cm_timeout_cycles(service_timeout) +
		       id->timeout_cycles;
	roce_cm_state_set(id, next);
}

/* A REP answers our REQ: move the QP, send the RTU (librdmacm's order). */
static void
cm_rep_input(struct roce_cm_id *id, const struct rte_roce_mad *mad)
{
	struct rte_roce_cm_rep rep;

	memcpy(&rep, mad->data, sizeof(rep));
	id->remote_comm_id = rte_be_to_cpu_32(rep.local_comm_id);
	id->remote_ca_guid = rte_be_to_cpu_64(rep.local_ca_guid);
	id->peer.qpn = rte_be_to_cpu_32(rep.qpn_vendor_h) >> RTE_ROCE_CM_QPN_SHIFT;
	id->peer.psn = rte_be_to_cpu_32(rep.psn_vendor_l) >> RTE_ROCE_CM_PSN_SHIFT;
	id->peer.resp_res = rep.resp_resources;
	id->peer.init_depth = rep.init_depth;
	id->peer.rnr_retry = rep.rnr_retry_srq >> RTE_ROCE_CM_REP_RNR_RETRY_SHIFT;
	id->peer.mtu = id->cm->active_mtu;
	id->peer.ack_timeout = CM_LOCAL_ACK_TIMEOUT;
	id->peer.retry_cnt = id->retry_cnt;
	id->peer.hop_limit = CM_HOP_LIMIT;
	id->peer.traffic_class = id->route_tos;	/* the path our REQ named */
	/* What we may have in flight is what the peer accepts. */
	id->init_depth = RTE_MIN(id->init_depth, rep.resp_resources);
	roce_cm_timer_stop(id);
	roce_cm_state_set(id, ROCE_CM_REP_RCVD);
	if (id->pub.qp == NULL) {
		roce_cm_event_queue(id, NULL, RTE_ROCE_CM_EVENT_CONNECT_RESPONSE, 0,
				    rep.private_data, sizeof(rep.private_data));
		return;
	}
	if (roce_cm_qp_rtr_rts(id) < 0) {
		roce_cm_send_rej(id, RTE_ROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		cm_fail(id, RTE_ROCE_CM_EVENT_CONNECT_ERROR, -EINVAL, NULL, 0);
		return;
	}
	roce_cm_send_rtu(id);
	cm_established(id, rep.private_data, sizeof(rep.private_data));
}

/*
 * Timewait: twice the response timeout, so that stray packets of the
 * connection die out before the id is reused; a DREQ sent again after it
 * is still answered (cm_state_idle()).
 */
static void
cm_timewait_arm(struct roce_cm_id *id)
{
	roce_cm_state_set(id, ROCE_CM_TIMEWAIT);
	roce_cm_timer_arm(id, 2 * roce_cm_timeout_cycles(id->cm->conf.response_timeout), 0);
}

/* The peer disconnects: flush the QP, answer, wait out timewait. */
static void
cm_dreq_input(struct roce_cm_id *id, const struct rte_roce_mad *dreq)
{
	bool was_connected = id->state != ROCE_CM_DREQ_SENT;

	id->tid = rte_be_to_cpu_64(dreq->hdr.tid);	/* the DREP answers this DREQ */
	roce_cm_state_set(id, ROCE_CM_DREQ_RCVD);
	roce_cm_qp_error(id);
	cm_send_ids_only(id, RTE_ROCE_CM_ATTR_DREP);
	cm_timewait_arm(id);
	if (was_connected)
		roce_cm_event_queue(id, NULL, RTE_ROCE_CM_EVENT_DISCONNECTED, 0, NULL, 0);
}

static void
cm_timewait_enter(struct roce_cm_id *id)
{
	cm_timewait_arm(id);
	roce_cm_event_queue(id, NULL, RTE_ROCE_CM_EVENT_DISCONNECTED, 0, NULL, 0);
}

/* One handler per state */

/* A DREQ after the connection is gone: our DREP was lost and timewait is over; answer still. */
static void
cm_drep_again(struct roce_cm_id *id, const struct rte_roce_mad *dreq)
{
	id->cm->stats.duplicates++;
	id->tid = rte_be_to_cpu_64(dreq->hdr.tid);
	cm_send_ids_only(id, RTE_ROCE_CM_ATTR_DREP);
}

/* IDLE and LISTEN. */
static void
cm_state_idle(struct roce_cm_id *id, const struct cm_input *in)
{
	if (in->mad == NULL)
		return;
	if (in->attr == RTE_ROCE_CM_ATTR_DREQ && id->remote_comm_id != 0)
		cm_drep_again(id, in->mad);
	else if (in->attr == RTE_ROCE_CM_ATTR_SIDR_REQ && id->has_last)
		cm_duplicate_answer(id);	/* our SIDR_REP was lost */
	else
		cm_drop(id);
}

/* A SIDR exchange ends: the service's QPN and Q_Key, or why not. */
static void
cm_sidr_rep_input(struct roce_cm_id *id, const struct rte_roce_mad *mad)
{
	struct rte_roce_cm_sidr_rep rep;

	memcpy(&rep, mad->data, sizeof(rep));
	roce_cm_timer_stop(id);
	roce_cm_state_set(id, ROCE_CM_IDLE);
	if (rep.status != RTE_ROCE_CM_SIDR_SUCCESS) {
		/* Linux's rdma_cm: UNREACHABLE with the SIDR_REP's status. */
		roce_cm_event_queue(id, NULL, RTE_ROCE_CM_EVENT_UNREACHABLE, rep.status,
				    rep.private_data, sizeof(rep.private_data));
		return;
	}
	id->peer.qpn = rte_be_to_cpu_32(rep.qpn_vendor_l) >> RTE_ROCE_CM_QPN_SHIFT;
	id->peer.qkey = rte_be_to_cpu_32(rep.qkey);
	id->cm->stats.established++;
	roce_cm_event_queue(id, NULL, RTE_ROCE_CM_EVENT_ESTABLISHED, 0, rep.private_data,
			    sizeof(rep.private_data));
}

/* SIDR_REQ_SENT: waiting for the SIDR_REP. */
static void
cm_state_sidr_req_sent(struct roce_cm_id *id, const struct cm_input *in)
{
	if (in->mad == NULL) {
		if (!cm_retransmit(id)) {
			roce_cm_state_set(id, ROCE_CM_IDLE);
			roce_cm_event_queue(id, NULL, RTE_ROCE_CM_EVENT_UNREACHABLE, -ETIMEDOUT,
					    NULL, 0);
		}
		return;
	}
	if (in->attr == RTE_ROCE_CM_ATTR_SIDR_REP)
		cm_sidr_rep_input(id, in->mad);
	else
		cm_drop(id);
}

/* SIDR_REQ_RCVD: the application has not answered; the request again is only counted. */
static void
cm_state_sidr_req_rcvd(struct roce_cm_id *id, const struct cm_input *in)
{
	if (in->mad == NULL)
		return;
	if (in->attr == RTE_ROCE_CM_ATTR_SIDR_REQ)
		id->cm->stats.duplicates++;
	else
		cm_drop(id);
}

/* REQ_SENT and MRA_REQ_RCVD: waiting for the REP. */
static void
cm_state_req_sent(struct roce_cm_id *id, const struct cm_input *in)
{
	if (in->mad == NULL) {
		if (!cm_retransmit(id))
			cm_give_up(id, RTE_ROCE_CM_EVENT_UNREACHABLE);
		return;
	}
	switch (in->attr) {
	case RTE_ROCE_CM_ATTR_REP:
		cm_rep_input(id, in->mad);
		break;
	case RTE_ROCE_CM_ATTR_REJ:
		cm_rej_input(id, in->mad);
		break;
	case RTE_ROCE_CM_ATTR_MRA:
		cm_mra_input(id, in->mad, ROCE_CM_MRA_REQ_RCVD);
		break;
	default:
		cm_drop(id);
	}
}

/*
 * The application has not answered the peer's message (REQ or REP) yet and
 * the peer sent it again: tell it to wait with an MRA (IBTA §12.6), or send
 * that MRA again.
 */
static void
cm_app_slow(struct roce_cm_id *id, const struct cm_input *in, uint16_t msg_attr, uint8_t mra_msg,
	    enum roce_cm_state mra_sent)
{
	if (in->mad == NULL)
		return;
	if (in->attr == RTE_ROCE_CM_ATTR_REJ) {
		cm_rej_input(id, in->mad);
	} else if (in->attr != msg_attr) {
		cm_drop(id);
	} else if (id->state != mra_sent) {
		id->cm->stats.duplicates++;
		cm_send_mra(id, mra_msg);
		roce_cm_state_set(id, mra_sent);
	} else {
		cm_duplicate_answer(id);
	}
}

/* REQ_RCVD and MRA_REQ_SENT: the application has not accepted or rejected yet. */
static void
cm_state_req_rcvd(struct roce_cm_id *id, const struct cm_input *in)
{
	cm_app_slow(id, in, RTE_ROCE_CM_ATTR_REQ, RTE_ROCE_CM_MSG_REQ, ROCE_CM_MRA_REQ_SENT);
}

/* REP_SENT and MRA_REP_RCVD: waiting for the RTU. */
static void
cm_state_rep_sent(struct roce_cm_id *id, const struct cm_input *in)
{
	if (in->mad == NULL) {
		/* UNREACHABLE, as rdma_cm reports IB_CM_REP_ERROR (Linux's cma.c cma_ib_handler()). */
		if (!cm_retransmit(id))
			cm_give_up(id, RTE_ROCE_CM_EVENT_UNREACHABLE);
		return;
	}
	switch (in->attr) {
	case RTE_ROCE_CM_ATTR_REQ:
		cm_duplicate_answer(id);	/* our REP was lost */
		break;
	case RTE_ROCE_CM_ATTR_RTU:
		roce_cm_comm_est(id);
		break;
	case RTE_ROCE_CM_ATTR_REJ:
		cm_rej_input(id, in->mad);
		break;
	case RTE_ROCE_CM_ATTR_MRA:
		cm_mra_input(id, in->mad, ROCE_CM_MRA_REP_RCVD);
		break;
	case RTE_ROCE_CM_ATTR_DREQ:
		/* The RTU was lost and the peer already disconnects. */
		roce_cm_request_answered(id);
		roce_cm_timer_stop(id);
		cm_dreq_input(id, in->mad);
		break;
	default:
		cm_drop(id);
	}
}

/* REP_RCVD and MRA_REP_SENT: the application has not called establish yet. */
static void
cm_state_rep_rcvd(struct roce_cm_id *id, const struct cm_input *in)
{
	cm_app_slow(id, in, RTE_ROCE_CM_ATTR_REP, RTE_ROCE_CM_MSG_REP, ROCE_CM_MRA_REP_SENT);
}

/*
 * A LAP on an established connection: the peer asks to load an alternate
 * path for path migration. Refused with an APR "alternate paths not
 * supported" (IBTA Vol. 1 §12.6, Table 116's AP status 2): a RoCE port has
 * no second, LID-routed path to load (Linux's CM does not serve LAP on
 * RoCE either, cm_lap_handler()). The connection goes on unchanged.
 */
static void
cm_lap_refuse(struct roce_cm_id *id, const struct rte_roce_mad *lap)
{
	const struct roce_cm_peer_addr peer = { .gid = id->dgid, .sgid_index = id->sgid_index };

	roce_cm_apr_reply(id->cm, lap, RTE_ROCE_CM_APR_UNSUPPORTED, &peer);
}

/*
 * ESTABLISHED: late copies of the setup, the peer's DREQ, a LAP (refused).
 * An APR is dropped here as in every state: it answers a LAP, and this CM
 * sends none (Linux's cm_apr_handler() drops one that answers no LAP).
 */
static void
cm_state_established(struct roce_cm_id *id, const struct cm_input *in)
{
	if (in->mad == NULL)
		return;
	switch (in->attr) {
	case RTE_ROCE_CM_ATTR_REP:
		cm_duplicate_answer(id);	/* our RTU was lost: the last message is it */
		break;
	case RTE_ROCE_CM_ATTR_REQ:
	case RTE_ROCE_CM_ATTR_RTU:
		id->cm->stats.duplicates++;	/* late copies: nothing to answer */
		break;
	case RTE_ROCE_CM_ATTR_DREQ:
		cm_dreq_input(id, in->mad);
		break;
	case RTE_ROCE_CM_ATTR_LAP:
		cm_lap_refuse(id, in->mad);
		break;
	default:
		cm_drop(id);
	}
}

static void
cm_state_dreq_sent(struct roce_cm_id *id, const struct cm_input *in)
{
	if (in->mad == NULL) {
		if (!cm_retransmit(id))
			cm_timewait_enter(id);	/* no DREP: disconnected all the same */
		return;
	}
	switch (in->attr) {
	case RTE_ROCE_CM_ATTR_DREP:
		cm_timewait_enter(id);
		break;
	case RTE_ROCE_CM_ATTR_DREQ:
		/* Both sides disconnect at once: answer, and we are done too. */
		cm_dreq_input(id, in->mad);
		roce_cm_event_queue(id, NULL, RTE_ROCE_CM_EVENT_DISCONNECTED, 0, NULL, 0);
		break;
	default:
		cm_drop(id);
	}
}

/* DREQ_RCVD and TIMEWAIT: a DREQ again means our DREP was lost. */
static void
cm_state_timewait(struct roce_cm_id *id, const struct cm_input *in)
{
	if (in->mad == NULL) {
		roce_cm_state_set(id, ROCE_CM_IDLE);
		roce_cm_event_queue(id, NULL, RTE_ROCE_CM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0);
		return;
	}
	if (in->attr == RTE_ROCE_CM_ATTR_DREQ)
		cm_drep_again(id, in->mad);	/* our DREP was lost */
	else
		cm_drop(id);
}

static const cm_state_fn cm_state_handlers[ROCE_CM_STATE_MAX] = {
	[ROCE_CM_IDLE] = cm_state_idle,
	[ROCE_CM_LISTEN] = cm_state_idle,
	[ROCE_CM_REQ_SENT] = cm_state_req_sent,
	[ROCE_CM_MRA_REQ_RCVD] = cm_state_req_sent,
	[ROCE_CM_REQ_RCVD] = cm_state_req_rcvd,
	[ROCE_CM_MRA_REQ_SENT] = cm_state_req_rcvd,
	[ROCE_CM_REP_SENT] = cm_state_rep_sent,
	[ROCE_CM_MRA_REP_RCVD] = cm_state_rep_sent,
	[ROCE_CM_REP_RCVD] = cm_state_rep_rcvd,
	[ROCE_CM_MRA_REP_SENT] = cm_state_rep_rcvd,
	[ROCE_CM_ESTABLISHED] = cm_state_established,
	[ROCE_CM_DREQ_SENT] = cm_state_dreq_sent,
	[ROCE_CM_DREQ_RCVD] = cm_state_timewait,
	[ROCE_CM_TIMEWAIT] = cm_state_timewait,
	[ROCE_CM_SIDR_REQ_SENT] = cm_state_sidr_req_sent,
	[ROCE_CM_SIDR_REQ_RCVD] = cm_state_sidr_req_rcvd,
};

void
roce_cm_state_input(struct roce_cm_id *id, const struct rte_roce_mad *mad)
{
	struct cm_input in = { .mad = mad, .attr = rte_be_to_cpu_16(mad->hdr.attr_id) };

	cm_state_handlers[id->state](id, &in);
}

void
roce_cm_state_timeout(struct roce_cm_id *id)
{
	struct cm_input in = { .mad = NULL };

	cm_state_handlers[id->state](id, &in);
}
