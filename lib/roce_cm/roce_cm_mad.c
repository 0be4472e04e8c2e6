/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The MAD path on QP1: buffers, address handles to peers, sends and their
 * completions, and the checks every received MAD passes before the state
 * machine sees it (each rejection counted by reason, never logged per MAD).
 */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include "roce_cm.h"

#define CM_IPV6_VERSION		6
#define CM_IP_VERSION_SHIFT	4
#define CM_AH_HOP_LIMIT		64

static uint8_t *
cm_send_buf(struct rte_roce_cm *cm, uint32_t slot)
{
	return cm->bufs + (size_t)slot * ROCE_CM_RECV_LEN;
}

static uint8_t *
cm_recv_buf(struct rte_roce_cm *cm, uint32_t slot)
{
	return cm->bufs + ((size_t)cm->conf.mad_slots + slot) * ROCE_CM_RECV_LEN;
}

void
roce_cm_mad_init(struct rte_roce_mad *mad, uint16_t attr_id, uint64_t tid)
{
	memset(mad, 0, sizeof(*mad));
	mad->hdr.base_version = RTE_ROCE_MAD_BASE_VERSION;
	mad->hdr.mgmt_class = RTE_ROCE_MGMT_CLASS_CM;
	mad->hdr.class_version = RTE_ROCE_CM_CLASS_VERSION;
	mad->hdr.method = RTE_ROCE_MAD_METHOD_SEND;
	mad->hdr.tid = rte_cpu_to_be_64(tid);
	mad->hdr.attr_id = rte_cpu_to_be_16(attr_id);
}

int
roce_cm_mad_recv_post(struct rte_roce_cm *cm, uint32_t slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)cm_recv_buf(cm, slot),
		.length = ROCE_CM_RECV_LEN,
		.lkey = cm->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return rte_roce_post_recv(cm->qp1, &wr, &bad);
}

void
roce_cm_ah_flush(struct rte_roce_cm *cm)
{
	unsigned int i;

	for (i = 0; i < ROCE_CM_AH_MAX; i++) {
		if (cm->ahs[i].ah != NULL)
			rte_roce_destroy_ah(cm->ahs[i].ah);
		cm->ahs[i].ah = NULL;
	}
}

/* A free entry beats an idle one, an idle one used earlier beats one used later. */
static bool
cm_ah_better_victim(const struct roce_cm_ah *e, const struct roce_cm_ah *victim)
{
	if (e->ah != NULL && e->inflight != 0)
		return false;
	if (victim == NULL)
		return true;
	if (victim->ah == NULL)
		return false;
	return e->ah == NULL || e->last_use < victim->last_use;
}

/* The cached AH to dgid, or a new one in a free or idle entry (the least recently used). */
static struct roce_cm_ah *
cm_ah_get(struct rte_roce_cm *cm, const union ibv_gid *dgid, int sgid_index)
{
	struct ibv_ah_attr attr = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = *dgid, .sgid_index = sgid_index, .hop_limit = CM_AH_HOP_LIMIT },
	};
	struct roce_cm_ah *e, *victim = NULL;
	unsigned int i;

	for (i = 0; i < ROCE_CM_AH_MAX; i++) {
		e = &cm->ahs[i];
		if (e->ah != NULL && e->sgid_index == sgid_index &&
		    memcmp(&e->dgid, dgid, sizeof(*dgid)) == 0)
			goto found;
		if (cm_ah_better_victim(e, victim))
			victim = e;
	}
	if (victim == NULL)
		return NULL;
	if (victim->ah != NULL)
		rte_roce_destroy_ah(victim->ah);
	victim->ah = rte_roce_create_ah(cm->pd, &attr);
	if (victim->ah == NULL)
		return NULL;
	victim->dgid = *dgid;
	victim->sgid_index = sgid_index;
	e = victim;
found:
	e->last_use = rte_get_timer_cycles();
	return e;
}

/* Post mad in a free send slot to QP qpn of the port at dgid, from our address sgid_index. */
static int
cm_mad_post(struct rte_roce_cm *cm, const union ibv_gid *dgid, int sgid_index, uint32_t qpn,
	    const struct rte_roce_mad *mad)
{
	struct ibv_sge sge = { .length = RTE_ROCE_MAD_LEN, .lkey = cm->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	struct roce_cm_ah *ah;
	uint32_t slot;
	int rc;

	ah = cm_ah_get(cm, dgid, sgid_index);
	if (ah == NULL) {
		cm->stats.send_errors++;
		return -ENOMEM;
	}
	slot = cm->free_slots[--cm->nb_free];
	memcpy(cm_send_buf(cm, slot), mad, sizeof(*mad));
	sge.addr = (uintptr_t)cm_send_buf(cm, slot);
	wr.wr_id = slot;
	wr.wr.ud.ah = ah->ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = RTE_ROCE_QP1_QKEY;
	rc = rte_roce_post_send(cm->qp1, &wr, &bad);
	if (rc < 0) {
		cm->free_slots[cm->nb_free++] = slot;
		cm->stats.send_errors++;
		return rc;
	}
	ah->inflight++;
	cm->slot_ah[slot] = ah;
	cm->stats.mads_sent++;
	return 0;
}

/*
 * Every slot in flight (or MADs already waiting, which go first): into the
 * backlog, -ENOMEM when it is full. Its timers run from now, as Linux's
 * do for a send on the overflow list.
 */
static int
cm_mad_queue(struct rte_roce_cm *cm, const union ibv_gid *dgid, int sgid_index, uint32_t qpn,
	     const struct rte_roce_mad *mad)
{
	struct roce_cm_queued_mad *q;

	if (cm->nb_backlog == cm->conf.mad_backlog) {
		cm->stats.send_errors++;
		return -ENOMEM;
	}
	q = &cm->backlog[(cm->backlog_head + cm->nb_backlog++) % cm->conf.mad_backlog];
	q->dgid = *dgid;
	q->sgid_index = sgid_index;
	q->qpn = qpn;
	q->mad = *mad;
	cm->stats.mads_queued++;
	return 0;
}

/* Post mad, or queue it behind the MADs waiting (every slot in flight). */
static int
cm_mad_send_qp(struct rte_roce_cm *cm, const union ibv_gid *dgid, int sgid_index, uint32_t qpn,
	       const struct rte_roce_mad *mad)
{
	if (cm->nb_free == 0 || cm->nb_backlog > 0)
		return cm_mad_queue(cm, dgid, sgid_index, qpn, mad);
	return cm_mad_post(cm, dgid, sgid_index, qpn, mad);
}

int
roce_cm_mad_send(struct rte_roce_cm *cm, const union ibv_gid *dgid, int sgid_index,
		 const struct rte_roce_mad *mad)
{
	return cm_mad_send_qp(cm, dgid, sgid_index, RTE_ROCE_QP1_QPN, mad);
}

/* The backlog's oldest MADs into the slots that are free (a failed one is counted and dropped). */
static void
cm_mad_backlog_send(struct rte_roce_cm *cm)
{
	struct roce_cm_queued_mad *q;

	while (cm->nb_free > 0 && cm->nb_backlog > 0) {
		q = &cm->backlog[cm->backlog_head];
		cm->backlog_head = (cm->backlog_head + 1) % cm->conf.mad_backlog;
		cm->nb_backlog--;
		cm_mad_post(cm, &q->dgid, q->sgid_index, q->qpn, &q->mad);
	}
}

void
roce_cm_mad_send_done(struct rte_roce_cm *cm, const struct ibv_wc *wc)
{
	uint32_t slot = (uint32_t)wc->wr_id;

	if (wc->status != IBV_WC_SUCCESS)
		cm->stats.send_errors++;
	cm->slot_ah[slot]->inflight--;
	cm->slot_ah[slot] = NULL;
	cm->free_slots[cm->nb_free++] = slot;
	cm_mad_backlog_send(cm);
}

int
rte_roce_cm_sends_pending(struct rte_roce_cm *cm)
{
	int pending;

	if (cm == NULL)
		return -EINVAL;
	pthread_mutex_lock(&cm->lock);
	/* In flight on QP1, and waiting in the backlog for a slot. */
	pending = (int)(cm->conf.mad_slots - cm->nb_free + cm->nb_backlog);
	pthread_mutex_unlock(&cm->lock);
	return pending;
}

/*
 * Who sent a MAD and to which of our addresses, from the GRH before it
 * (IPv4 in its second half): replies without a connection go back from
 * that address.
 */
static void
cm_grh_peer(struct rte_roce_cm *cm, const uint8_t *buf, struct roce_cm_peer_addr *from)
{
	union rte_roce_grh grh;
	union rte_roce_gid src, dst;

	memcpy(&grh, buf, sizeof(grh));
	if (grh.raw[0] >> CM_IP_VERSION_SHIFT == CM_IPV6_VERSION) {
		memcpy(&src, &grh.ipv6.src_addr, sizeof(src));
		memcpy(&dst, &grh.ipv6.dst_addr, sizeof(dst));
	} else {
		rte_roce_gid_from_ipv4(&src, grh.v4.ipv4.src_addr);
		rte_roce_gid_from_ipv4(&dst, grh.v4.ipv4.dst_addr);
	}
	memcpy(&from->gid, &src, sizeof(from->gid));
	from->sgid_index = roce_cm_gid_index(cm, (const union ibv_gid *)&dst);
	if (from->sgid_index < 0)
		from->sgid_index = 0;
}

/* ClassPortInfo GET (IBTA §13.4.8.1): the CM's response time, nothing redirected. */
static void
cm_class_port_info(struct rte_roce_cm *cm, const struct rte_roce_mad *req, const struct roce_cm_peer_addr *from)
{
	struct rte_roce_mad_class_port_info cpi = {
		.base_version = RTE_ROCE_MAD_BASE_VERSION,
		.class_version = RTE_ROCE_CM_CLASS_VERSION,
		.cap_mask2_resp_time = rte_cpu_to_be_32(cm->conf.response_timeout),
	};
	struct rte_roce_mad resp = *req;

	resp.hdr.method = RTE_ROCE_MAD_METHOD_GET_RESP;
	resp.hdr.status = 0;
	memset(resp.data, 0, sizeof(resp.data));
	memcpy(resp.data, &cpi, sizeof(cpi));
	cm_mad_send_qp(cm, &from->gid, from->sgid_index, from->qpn, &resp);
}

/*
 * A GET or SET the CM does not serve is answered all the same, with a
 * GetResp whose status says why (IBTA Vol. 1 §13.4.7: a class version the
 * CM does not speak, a method its class does not have, or a method the
 * attribute does not take), back to the QP that asked (§13.5.1), so that a
 * manager asking is not left to time out. A SEND, every CM message, has no
 * response; a MAD that is not the CM's (base version, class, length) is
 * not ours to answer.
 */
static void
cm_status_reply(struct rte_roce_cm *cm, const struct rte_roce_mad *req, const uint64_t *drop,
		const struct roce_cm_peer_addr *from)
{
	struct rte_roce_mad resp = *req;
	uint16_t status;

	if (req->hdr.method != RTE_ROCE_MAD_METHOD_GET && req->hdr.method != RTE_ROCE_MAD_METHOD_SET)
		return;
	if (drop == &cm->stats.drop_class_version)
		status = RTE_ROCE_MAD_STATUS_BAD_VERSION;
	else if (drop == &cm->stats.drop_method || drop == &cm->stats.drop_attr)
		status = req->hdr.method == RTE_ROCE_MAD_METHOD_SET ?
			 RTE_ROCE_MAD_STATUS_UNSUPPORTED_METHOD : RTE_ROCE_MAD_STATUS_UNSUPPORTED_ATTR;
	else
		return;
	resp.hdr.method = RTE_ROCE_MAD_METHOD_GET_RESP;
	resp.hdr.status = rte_cpu_to_be_16(status);
	if (cm_mad_send_qp(cm, &from->gid, from->sgid_index, from->qpn, &resp) == 0)
		cm->stats.status_sent++;
}

/* Answer req with msg (len bytes of class data) without a connection: same TID. */
static int
cm_reply(struct rte_roce_cm *cm, const struct rte_roce_mad *req, uint16_t attr, const void *msg,
	 size_t len, const struct roce_cm_peer_addr *from)
{
	struct rte_roce_mad resp;

	roce_cm_mad_init(&resp, attr, rte_be_to_cpu_64(req->hdr.tid));
	memcpy(resp.data, msg, len);
	return roce_cm_mad_send(cm, &from->gid, from->sgid_index, &resp);
}

/*
 * The APR that answers a LAP (IBTA Vol. 1 §12.6, Table 116): its TID, its
 * comm IDs seen from our side, the status; to the LAP's sender's QP1. It
 * answers from the LAP alone and is never an id's last message (kept for
 * duplicates of the connection's own exchanges): a LAP sent again gets
 * another one.
 */
void
roce_cm_apr_reply(struct rte_roce_cm *cm, const struct rte_roce_mad *lap, uint8_t status,
		  const struct roce_cm_peer_addr *to)
{
	struct rte_roce_cm_lap in;
	struct rte_roce_cm_apr out;

	memcpy(&in, lap->data, sizeof(in));
	memset(&out, 0, sizeof(out));
	out.local_comm_id = in.remote_comm_id;
	out.remote_comm_id = in.local_comm_id;
	out.ap_status = status;
	if (cm_reply(cm, lap, RTE_ROCE_CM_ATTR_APR, &out, sizeof(out), to) == 0)
		cm->stats.apr_sent++;
}

/* The header checks of IBTA §13.4.2 and the CM's class; 0 or the counter to bump. */
static uint64_t *
cm_mad_check(struct rte_roce_cm *cm, const struct ibv_wc *wc, const struct rte_roce_mad *mad)
{
	uint16_t attr = rte_be_to_cpu_16(mad->hdr.attr_id);

	if (wc->byte_len != ROCE_CM_RECV_LEN)
		return &cm->stats.drop_length;
	if (mad->hdr.base_version != RTE_ROCE_MAD_BASE_VERSION)
		return &cm->stats.drop_base_version;
	if (mad->hdr.mgmt_class != RTE_ROCE_MGMT_CLASS_CM)
		return &cm->stats.drop_class;
	if (mad->hdr.class_version != RTE_ROCE_CM_CLASS_VERSION)
		return &cm->stats.drop_class_version;
	if (attr == RTE_ROCE_CM_ATTR_CLASS_PORT_INFO)
		return mad->hdr.method == RTE_ROCE_MAD_METHOD_GET ? NULL : &cm->stats.drop_method;
	if (attr < RTE_ROCE_CM_ATTR_REQ || attr > RTE_ROCE_CM_ATTR_APR)
		return &cm->stats.drop_attr;
	if (mad->hdr.method != RTE_ROCE_MAD_METHOD_SEND)
		return &cm->stats.drop_method;
	return NULL;
}

/* A DREQ for no connection gets a DREP all the same, so its sender stops (as Linux). */
static void
cm_drep_unknown(struct rte_roce_cm *cm, const struct rte_roce_mad *dreq,
		const struct roce_cm_peer_addr *from)
{
	struct rte_roce_cm_dreq in;
	struct rte_roce_cm_drep out;

	memcpy(&in, dreq->data, sizeof(in));
	memset(&out, 0, sizeof(out));
	out.local_comm_id = in.remote_comm_id;
	out.remote_comm_id = in.local_comm_id;
	cm_reply(cm, dreq, RTE_ROCE_CM_ATTR_DREP, &out, sizeof(out), from);
}

/*
 * A connection message (every CM message but REQ and SIDR) to the id it
 * names. One that names none is still answered when its sender waits for
 * an answer: a DREQ with a DREP, a LAP with an APR whose AP status (IBTA
 * Vol. 1 §12.6, Table 116) is 1, "invalid communication instance".
 */
static void
cm_conn_input(struct rte_roce_cm *cm, const struct rte_roce_mad *mad,
	      const struct roce_cm_peer_addr *from)
{
	struct rte_roce_cm_rtu ids;	/* every connection message starts with both comm IDs */
	struct roce_cm_id *id;
	uint16_t attr = rte_be_to_cpu_16(mad->hdr.attr_id);

	memcpy(&ids, mad->data, sizeof(ids));
	id = roce_cm_id_by_comm_id(cm, rte_be_to_cpu_32(ids.remote_comm_id));
	if (id != NULL && id->remote_comm_id != 0 &&
	    id->remote_comm_id != rte_be_to_cpu_32(ids.local_comm_id))
		id = NULL;	/* another connection's, or a stale one */
	if (id == NULL) {
		cm->stats.drop_comm_id++;
		if (attr == RTE_ROCE_CM_ATTR_DREQ)
			cm_drep_unknown(cm, mad, from);
		else if (attr == RTE_ROCE_CM_ATTR_LAP)
			roce_cm_apr_reply(cm, mad, RTE_ROCE_CM_APR_INVALID_COMM_ID, from);
		return;
	}
	roce_cm_state_input(id, mad);
}

/* A SIDR_REP to the id whose request ID (its local comm ID) it answers. */
static void
cm_sidr_rep_route(struct rte_roce_cm *cm, const struct rte_roce_mad *mad)
{
	struct rte_roce_cm_sidr_rep rep;
	struct roce_cm_id *id;

	memcpy(&rep, mad->data, sizeof(rep));
	id = roce_cm_id_by_comm_id(cm, rte_be_to_cpu_32(rep.request_id));
	if (id == NULL || id->pub.ps != RTE_ROCE_CM_PS_UDP) {
		cm->stats.drop_comm_id++;
		return;
	}
	roce_cm_state_input(id, mad);
}

void
roce_cm_mad_input(struct rte_roce_cm *cm, const struct ibv_wc *wc)
{
	const uint8_t *buf = cm_recv_buf(cm, (uint32_t)wc->wr_id);
	struct rte_roce_mad mad;
	struct roce_cm_peer_addr from;
	size_t got = wc->byte_len > RTE_ROCE_GRH_LEN ? wc->byte_len - RTE_ROCE_GRH_LEN : 0;
	uint64_t *drop;

	cm->stats.mads_rcvd++;
	memset(&mad, 0, sizeof(mad));
	memcpy(&mad, buf + RTE_ROCE_GRH_LEN, RTE_MIN(sizeof(mad), got));
	drop = cm_mad_check(cm, wc, &mad);
	cm_grh_peer(cm, buf, &from);
	from.qpn = wc->src_qp;
	if (drop != NULL) {
		(*drop)++;
		cm_status_reply(cm, &mad, drop, &from);
		return;
	}
	switch (rte_be_to_cpu_16(mad.hdr.attr_id)) {
	case RTE_ROCE_CM_ATTR_CLASS_PORT_INFO:
		cm_class_port_info(cm, &mad, &from);
		break;
	case RTE_ROCE_CM_ATTR_REQ:
		roce_cm_req_input(cm, &mad, &from);
		break;
	case RTE_ROCE_CM_ATTR_SIDR_REQ:
		roce_cm_sidr_req_input(cm, &mad, &from);
		break;
	case RTE_ROCE_CM_ATTR_SIDR_REP:
		cm_sidr_rep_route(cm, &mad);
		break;
	default:
		cm_conn_input(cm, &mad, &from);
		break;
	}
}
