/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The rdma_cm-style calls on CM ids: addresses, listening and the REQs that
 * reach a listener, connect, accept, reject, disconnect. Each call on a
 * bound id runs under its CM's lock (doc/cm.md "Threading model").
 */

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include "roce_cm.h"

/* Ephemeral ports of ids bound to port 0 (as Linux's ip_local_port_range). */
#define CM_PORT_EPHEMERAL_MIN	32768
#define CM_PORT_EPHEMERAL_SPAN	28232
#define CM_IPV4			4
#define CM_IPV6			6
/* User private data of each message, after rdma_cm's header in a REQ. */
#define CM_REP_PRIVATE_MAX	RTE_SIZEOF_FIELD(struct rte_roce_cm_rep, private_data)
#define CM_REJ_PRIVATE_MAX	RTE_SIZEOF_FIELD(struct rte_roce_cm_rej, private_data)
#define CM_RETRY_MAX		7
#define CM_SIDR_REQ_PRIVATE_MAX	(RTE_SIZEOF_FIELD(struct rte_roce_cm_sidr_req, private_data) - \
				 sizeof(struct rte_roce_cma_hdr))
#define CM_SIDR_REP_PRIVATE_MAX	RTE_SIZEOF_FIELD(struct rte_roce_cm_sidr_rep, private_data)

static socklen_t
cm_addr_len(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (sa->sa_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return 0;
}

static uint16_t
cm_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return rte_be_to_cpu_16(((const struct sockaddr_in *)ss)->sin_port);
	return rte_be_to_cpu_16(((const struct sockaddr_in6 *)ss)->sin6_port);
}

static void
cm_port_set(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = rte_cpu_to_be_16(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = rte_cpu_to_be_16(port);
}

/* The GID of an address: IPv4-mapped for IPv4. */
static void
cm_addr_gid(const struct sockaddr_storage *ss, union ibv_gid *gid)
{
	union rte_roce_gid g;

	if (ss->ss_family == AF_INET)
		rte_roce_gid_from_ipv4(&g, ((const struct sockaddr_in *)ss)->sin_addr.s_addr);
	else
		memcpy(&g, &((const struct sockaddr_in6 *)ss)->sin6_addr, sizeof(g));
	memcpy(gid, &g, sizeof(*gid));
}

static bool
cm_addr_is_any(const struct sockaddr_storage *ss)
{
	static const struct in6_addr any6 = IN6ADDR_ANY_INIT;

	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr == htonl(INADDR_ANY);
	return memcmp(&((const struct sockaddr_in6 *)ss)->sin6_addr, &any6, sizeof(any6)) == 0;
}

/* A listener of cm on ps/port whose address is addr's or the wildcard. */
static struct roce_cm_id *
cm_listener_find(struct rte_roce_cm *cm, enum rte_roce_cm_port_space ps, uint16_t port,
		 const union ibv_gid *addr)
{
	struct roce_cm_id *id;

	TAILQ_FOREACH(id, &cm->ids, next)
		if (id->state == ROCE_CM_LISTEN && id->pub.ps == ps && cm_port(&id->src) == port &&
		    (cm_addr_is_any(&id->src) || memcmp(&id->sgid, addr, sizeof(*addr)) == 0))
			return id;
	return NULL;
}

static uint16_t
cm_ephemeral_port(void)
{
	uint32_t r = 0;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint32_t)rte_rdtsc();
	return CM_PORT_EPHEMERAL_MIN + r % CM_PORT_EPHEMERAL_SPAN;
}

int
rte_roce_cm_create_id(struct rte_roce_cm_channel *channel, struct rte_roce_cm_id **idp,
		      void *context, enum rte_roce_cm_port_space ps)
{
	struct roce_cm_channel *ch = roce_cm_channel(channel);
	struct roce_cm_id *id;

	if (idp == NULL || (ps != RTE_ROCE_CM_PS_TCP && ps != RTE_ROCE_CM_PS_IB &&
			    ps != RTE_ROCE_CM_PS_UDP)) {
		ROCE_CM_LOG(ERR, "port space 0x%x: only TCP, IB (RC) and UDP (UD) are served", ps);
		return -EINVAL;
	}
	id = calloc(1, sizeof(*id));
	if (id == NULL)
		return -ENOMEM;
	id->pub.context = context;
	id->pub.ps = ps;
	id->state = ROCE_CM_IDLE;
	if (ch == NULL) {
		int rc = roce_cm_sync_channel(id);

		if (rc < 0) {
			free(id);
			return rc;
		}
	} else {
		id->pub.channel = channel;
		pthread_mutex_lock(&ch->lock);
		ch->nb_ids++;
		pthread_mutex_unlock(&ch->lock);
	}
	*idp = &id->pub;
	return 0;
}

/*
 * An id goes away: tell the peer once, as Linux's CM does when an id is
 * destroyed (DREQ when connected, REJ to a request not answered or a REP
 * not confirmed), and unlink it from its listener or its requests.
 */
static void
cm_id_leave(struct roce_cm_id *id)
{
	struct roce_cm_id *other;

	switch (id->state) {
	case ROCE_CM_ESTABLISHED:
		roce_cm_send_dreq(id);
		break;
	case ROCE_CM_REQ_RCVD:
	case ROCE_CM_MRA_REQ_SENT:
	case ROCE_CM_REP_SENT:
	case ROCE_CM_MRA_REP_RCVD:
		roce_cm_send_rej(id, RTE_ROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case ROCE_CM_SIDR_REQ_RCVD:
		roce_cm_send_sidr_rep(id, RTE_ROCE_CM_SIDR_REJECT, NULL, 0);
		break;
	default:
		break;
	}
	if (id->listener != NULL)
		id->listener->pending--;
	TAILQ_FOREACH(other, &id->cm->ids, next)
		if (other->listener == id)
			other->listener = NULL;
}

int
rte_roce_cm_destroy_id(struct rte_roce_cm_id *pub)
{
	struct roce_cm_id *id = roce_cm_id(pub);
	struct roce_cm_channel *ch;
	struct rte_roce_cm *cm;

	if (id == NULL)
		return -EINVAL;
	ch = roce_cm_channel(id->pub.channel);
	cm = id->cm;
	if (cm != NULL)
		pthread_mutex_lock(&cm->lock);
	/* Under the CM's lock: nothing more is queued for it meanwhile. */
	if (id->sync)
		roce_cm_sync_drain(id);
	pthread_mutex_lock(&ch->lock);
	if (id->events_unacked != 0 || id->pub.qp != NULL) {
		pthread_mutex_unlock(&ch->lock);
		if (cm != NULL)
			pthread_mutex_unlock(&cm->lock);
		ROCE_CM_LOG(ERR, "id %08x: %u events not acknowledged, QP %s", id->local_comm_id,
			    id->events_unacked, id->pub.qp != NULL ? "not destroyed" : "none");
		return -EBUSY;
	}
	ch->nb_ids--;
	pthread_mutex_unlock(&ch->lock);
	if (cm != NULL) {
		cm_id_leave(id);
		roce_cm_id_detach(id);
		pthread_mutex_unlock(&cm->lock);
	}
	if (id->sync)
		rte_roce_cm_destroy_event_channel(&ch->pub);
	free(id);
	return 0;
}

int
rte_roce_cm_set_tos(struct rte_roce_cm_id *pub, uint8_t tos)
{
	struct roce_cm_id *id = roce_cm_id(pub);
	struct rte_roce_cm *cm;

	if (id == NULL)
		return -EINVAL;
	cm = id->cm;
	if (cm != NULL)
		pthread_mutex_lock(&cm->lock);
	id->tos = tos;
	if (cm != NULL)
		pthread_mutex_unlock(&cm->lock);
	return 0;
}

/* Bind to src under the CM that holds it (id not bound yet). */
static int
cm_bind(struct roce_cm_id *id, const struct sockaddr *src)
{
	socklen_t len = cm_addr_len(src);
	struct rte_roce_cm *cm;
	int rc = 0;

	if (len == 0 || id->cm != NULL)
		return -EINVAL;
	memset(&id->src, 0, sizeof(id->src));
	memcpy(&id->src, src, len);
	cm_addr_gid(&id->src, &id->sgid);
	/* A wildcard address binds to the first instance opened (one device per process, usually). */
	cm = cm_addr_is_any(&id->src) ? roce_cm_first() :
	     roce_cm_find_by_gid(&id->sgid, &id->sgid_index);
	if (cm == NULL) {
		ROCE_CM_LOG(ERR, "no device with a CM holds the address");
		return -EADDRNOTAVAIL;
	}
	pthread_mutex_lock(&cm->lock);
	if (cm_port(&id->src) == 0)
		cm_port_set(&id->src, cm_ephemeral_port());
	else if (cm_listener_find(cm, id->pub.ps, cm_port(&id->src), &id->sgid) != NULL)
		rc = -EADDRINUSE;
	if (rc == 0)
		roce_cm_id_attach(cm, id);
	pthread_mutex_unlock(&cm->lock);
	return rc;
}

int
rte_roce_cm_bind_addr(struct rte_roce_cm_id *pub, const struct sockaddr *addr)
{
	if (pub == NULL || addr == NULL)
		return -EINVAL;
	return cm_bind(roce_cm_id(pub), addr);
}

int
rte_roce_cm_resolve_addr(struct rte_roce_cm_id *pub, const struct sockaddr *src,
			 const struct sockaddr *dst, int timeout_ms)
{
	struct roce_cm_id *id = roce_cm_id(pub);
	socklen_t len;
	int rc;

	if (id == NULL || dst == NULL || (len = cm_addr_len(dst)) == 0 || timeout_ms < 0 ||
	    (src != NULL && src->sa_family != dst->sa_family))
		return -EINVAL;
	if (id->cm == NULL && src == NULL) {
		ROCE_CM_LOG(ERR, "resolve_addr needs a source address (no routing table is read)");
		return -EADDRNOTAVAIL;
	}
	if (id->cm == NULL) {
		rc = cm_bind(id, src);
		if (rc < 0)
			return rc;
	}
	pthread_mutex_lock(&id->cm->lock);
	memset(&id->dst, 0, sizeof(id->dst));
	memcpy(&id->dst, dst, len);
	cm_addr_gid(&id->dst, &id->dgid);
	rc = roce_cm_addr_start(id, timeout_ms);
	pthread_mutex_unlock(&id->cm->lock);
	if (rc < 0)
		ROCE_CM_LOG(ERR, "id %08x: the destination cannot be resolved (%s)",
			    id->local_comm_id, strerror(-rc));
	return rc == 0 && id->sync ? roce_cm_sync_complete(id) : rc;
}

int
rte_roce_cm_resolve_route(struct rte_roce_cm_id *pub, int timeout_ms)
{
	struct roce_cm_id *id = roce_cm_id(pub);

	RTE_SET_USED(timeout_ms);
	if (id == NULL || !id->addr_resolved)
		return -EINVAL;
	pthread_mutex_lock(&id->cm->lock);
	id->route_resolved = true;
	/* The route carries the TOS asked until now, as Linux's cma_resolve_iboe_route(). */
	id->route_tos = id->tos;
	roce_cm_event_queue(id, NULL, RTE_ROCE_CM_EVENT_ROUTE_RESOLVED, 0, NULL, 0);
	pthread_mutex_unlock(&id->cm->lock);
	return id->sync ? roce_cm_sync_complete(id) : 0;
}

int
rte_roce_cm_get_addr(struct rte_roce_cm_id *pub, struct sockaddr_storage *src,
		     struct sockaddr_storage *dst)
{
	struct roce_cm_id *id = roce_cm_id(pub);

	if (id == NULL || src == NULL || dst == NULL)
		return -EINVAL;
	/* Unbound, the id is its creator's alone; bound, its CM's (doc/cm.md). */
	if (id->cm != NULL)
		pthread_mutex_lock(&id->cm->lock);
	*src = id->src;
	*dst = id->dst;
	if (id->cm != NULL)
		pthread_mutex_unlock(&id->cm->lock);
	return 0;
}

int
rte_roce_cm_listen(struct rte_roce_cm_id *pub, int backlog)
{
	struct roce_cm_id *id = roce_cm_id(pub);

	if (id == NULL || id->cm == NULL || backlog < 0 || id->state != ROCE_CM_IDLE)
		return -EINVAL;
	pthread_mutex_lock(&id->cm->lock);
	id->backlog = backlog;
	roce_cm_state_set(id, ROCE_CM_LISTEN);
	pthread_mutex_unlock(&id->cm->lock);
	return 0;
}

static bool
cm_is_ud(const struct roce_cm_id *id)
{
	return id->pub.ps == RTE_ROCE_CM_PS_UDP;
}

/* The QP type of an id's port space: UD for RDMA_PS_UDP (SIDR), RC otherwise. */
static enum ibv_qp_type
cm_qp_type(const struct roce_cm_id *id)
{
	return cm_is_ud(id) ? IBV_QPT_UD : IBV_QPT_RC;
}

int
rte_roce_cm_create_qp(struct rte_roce_cm_id *pub, struct ibv_pd *pd,
		      struct ibv_qp_init_attr *qp_init_attr)
{
	struct roce_cm_id *id = roce_cm_id(pub);
	struct ibv_qp *qp;
	int rc;

	if (id == NULL || pd == NULL || qp_init_attr == NULL || id->cm == NULL ||
	    qp_init_attr->qp_type != cm_qp_type(id) || id->pub.qp != NULL)
		return -EINVAL;
	qp = rte_roce_create_qp(pd, qp_init_attr);
	if (qp == NULL)
		return -rte_errno;
	id->pub.qp = qp;
	rc = cm_is_ud(id) ? roce_cm_qp_ud_ready(id) : roce_cm_qp_init(id);
	if (rc < 0) {
		rte_roce_destroy_qp(qp);
		id->pub.qp = NULL;
	}
	return rc;
}

int
rte_roce_cm_destroy_qp(struct rte_roce_cm_id *pub)
{
	struct roce_cm_id *id = roce_cm_id(pub);
	int rc;

	if (id == NULL || id->pub.qp == NULL)
		return -EINVAL;
	rc = rte_roce_destroy_qp(id->pub.qp);
	if (rc == 0)
		id->pub.qp = NULL;
	return rc;
}

static int
cm_param_check(const struct roce_cm_id *id, const struct rte_roce_cm_conn_param *param,
	       uint8_t private_max)
{
	if (param->private_data_len > private_max ||
	    (param->private_data_len != 0 && param->private_data == NULL) ||
	    param->retry_count > CM_RETRY_MAX || param->rnr_retry_count > CM_RETRY_MAX ||
	    param->responder_resources > id->cm->max_rd_atom ||
	    param->initiator_depth > id->cm->max_rd_atom) {
		ROCE_CM_LOG(ERR, "id %08x: private data %u (max %u), retry %u, rnr_retry %u (max %u),"
			    " responder resources %u, initiator depth %u (max %u)",
			    id->local_comm_id, param->private_data_len, private_max,
			    param->retry_count, param->rnr_retry_count, CM_RETRY_MAX,
			    param->responder_resources, param->initiator_depth,
			    id->cm->max_rd_atom);
		return -EINVAL;
	}
	return 0;
}

int
rte_roce_cm_connect(struct rte_roce_cm_id *pub, const struct rte_roce_cm_conn_param *param)
{
	struct roce_cm_id *id = roce_cm_id(pub);
	int rc;

	if (id == NULL || param == NULL || !id->route_resolved ||
	    (id->pub.qp == NULL && param->qp_num == 0 && !cm_is_ud(id)))
		return -EINVAL;
	pthread_mutex_lock(&id->cm->lock);
	rc = cm_param_check(id, param, cm_is_ud(id) ? CM_SIDR_REQ_PRIVATE_MAX :
					RTE_ROCE_CMA_REQ_PRIVATE_MAX);
	/* A UD id resolves once, as rdma_connect(): its request ID names it at the peer. */
	if (rc == 0 && (id->state != ROCE_CM_IDLE || (cm_is_ud(id) && id->has_last)))
		rc = -EINVAL;
	if (rc == 0 && cm_is_ud(id)) {
		rc = roce_cm_send_sidr_req(id, param);
	} else if (rc == 0) {
		id->resp_res = param->responder_resources;
		id->init_depth = param->initiator_depth;
		id->retry_cnt = param->retry_count;
		id->rnr_retry = param->rnr_retry_count;
		id->qpn = id->pub.qp != NULL ? id->pub.qp->qp_num : param->qp_num;
		rc = roce_cm_send_req(id, param);
	}
	/* not sent (the MAD backlog full): as if never called, the id may connect again */
	if (rc == -ENOMEM) {
		roce_cm_timer_stop(id);
		roce_cm_state_set(id, ROCE_CM_IDLE);
		id->has_last = false;
	}
	pthread_mutex_unlock(&id->cm->lock);
	return rc == 0 && id->sync ? roce_cm_sync_complete(id) : rc;
}

static bool
cm_request_waiting(const struct roce_cm_id *id)
{
	return id->state == ROCE_CM_REQ_RCVD || id->state == ROCE_CM_MRA_REQ_SENT;
}

/*
 * rdma_accept() of a UD id: the SIDR_REP with the QP's number and rdma_cm's
 * Q_Key. Nothing more comes (as in Linux, no ESTABLISHED on this side), so
 * a synchronous id does not wait.
 */
static int
cm_sidr_accept(struct roce_cm_id *id, const struct rte_roce_cm_conn_param *param)
{
	int rc;

	if ((id->pub.qp == NULL && param->qp_num == 0) || param->private_data_len > CM_SIDR_REP_PRIVATE_MAX ||
	    (param->private_data_len != 0 && param->private_data == NULL))
		return -EINVAL;
	pthread_mutex_lock(&id->cm->lock);
	rc = id->state == ROCE_CM_SIDR_REQ_RCVD ? 0 : -EINVAL;
	if (rc == 0) {
		id->qpn = id->pub.qp != NULL ? id->pub.qp->qp_num : param->qp_num;
		roce_cm_request_answered(id);
		rc = roce_cm_send_sidr_rep(id, RTE_ROCE_CM_SIDR_SUCCESS, param->private_data,
					   param->private_data_len);
	}
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

int
rte_roce_cm_accept(struct rte_roce_cm_id *pub, const struct rte_roce_cm_conn_param *param)
{
	static const struct rte_roce_cm_conn_param none;
	struct roce_cm_id *id = roce_cm_id(pub);
	int rc;

	if (id == NULL || id->cm == NULL)
		return -EINVAL;
	if (param == NULL)
		param = &none;
	if (cm_is_ud(id))
		return cm_sidr_accept(id, param);
	if (id->pub.qp == NULL)
		return -EINVAL;
	pthread_mutex_lock(&id->cm->lock);
	rc = cm_param_check(id, param, CM_REP_PRIVATE_MAX);
	if (rc == 0 && !cm_request_waiting(id))
		rc = -EINVAL;
	if (rc == 0) {
		/*
		 * Never more than the REQ offered; without param, what it offered
		 * within the device's limit, as librdmacm's rdma_accept(id, NULL)
		 * (rping's and ucmatose's servers).
		 */
		id->resp_res = RTE_MIN(param == &none ? id->cm->max_rd_atom : param->responder_resources,
				       id->peer.init_depth);
		id->init_depth = RTE_MIN(param == &none ? id->cm->max_rd_atom : param->initiator_depth,
					 id->peer.resp_res);
		id->rnr_retry = param->rnr_retry_count;
		id->psn = roce_cm_random_psn();
		id->qpn = id->pub.qp->qp_num;
		rc = roce_cm_qp_rtr_rts(id);
	}
	if (rc == 0)
		rc = roce_cm_send_rep(id, param);
	pthread_mutex_unlock(&id->cm->lock);
	return rc == 0 && id->sync ? roce_cm_sync_complete(id) : rc;
}

int
rte_roce_cm_reject(struct rte_roce_cm_id *pub, const void *private_data, uint8_t private_data_len)
{
	struct roce_cm_id *id = roce_cm_id(pub);
	int rc = 0;

	if (id == NULL || id->cm == NULL || private_data_len > CM_REJ_PRIVATE_MAX ||
	    (private_data_len != 0 && private_data == NULL))
		return -EINVAL;
	pthread_mutex_lock(&id->cm->lock);
	if (id->state == ROCE_CM_SIDR_REQ_RCVD) {
		/* A UD request: the SIDR_REP says rejected, with the private data. */
		roce_cm_request_answered(id);
		rc = roce_cm_send_sidr_rep(id, RTE_ROCE_CM_SIDR_REJECT, private_data,
					   RTE_MIN(private_data_len, CM_SIDR_REP_PRIVATE_MAX));
	} else if (!cm_request_waiting(id)) {
		rc = -EINVAL;
	} else {
		rc = roce_cm_send_rej(id, RTE_ROCE_CM_REJ_CONSUMER_DEFINED, private_data,
				      private_data_len);
		roce_cm_request_answered(id);
		roce_cm_state_set(id, ROCE_CM_IDLE);
	}
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

int
rte_roce_cm_establish(struct rte_roce_cm_id *pub)
{
	struct roce_cm_id *id = roce_cm_id(pub);
	int rc = 0;

	if (id == NULL || id->cm == NULL)
		return -EINVAL;
	pthread_mutex_lock(&id->cm->lock);
	if (id->state != ROCE_CM_REP_RCVD && id->state != ROCE_CM_MRA_REP_SENT)
		rc = -EINVAL;
	if (rc == 0)
		rc = roce_cm_send_rtu(id);
	if (rc == 0) {
		roce_cm_state_set(id, ROCE_CM_ESTABLISHED);
		id->cm->stats.established++;
	}
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

int
rte_roce_cm_notify(struct rte_roce_cm_id *pub, enum ibv_event_type event)
{
	struct roce_cm_id *id = roce_cm_id(pub);
	int rc;

	if (id == NULL || id->cm == NULL)
		return -EINVAL;
	if (event != IBV_EVENT_COMM_EST) {
		ROCE_CM_LOG(ERR, "id %08x: notify of event %d: only IBV_EVENT_COMM_EST is taken "
			    "(a RoCE connection has no alternate path)", id->local_comm_id,
			    (int)event);
		return -EINVAL;
	}
	pthread_mutex_lock(&id->cm->lock);
	rc = roce_cm_comm_est(id);
	pthread_mutex_unlock(&id->cm->lock);
	return rc;
}

/*
 * A connection that is already going or gone: our DREQ is out, the peer's
 * came, timewait, or its end. Disconnecting it again is not an error:
 * librdmacm's rdma_disconnect() (librdmacm/cma.c) is the kernel's
 * (drivers/infiniband/core/cma.c), which moves the QP to ERR and, when
 * ib_send_cm_dreq() refuses for the state, tries ib_send_cm_drep() and
 * returns 0 either way; it fails only for an id that never connected.
 * SPDK disconnects on DISCONNECTED, after the peer's DREQ.
 */
static bool
cm_disconnect_done(const struct roce_cm_id *id)
{
	return id->state == ROCE_CM_DREQ_SENT || id->state == ROCE_CM_DREQ_RCVD ||
	       id->state == ROCE_CM_TIMEWAIT ||
	       (id->state == ROCE_CM_IDLE && id->remote_comm_id != 0);
}

int
rte_roce_cm_disconnect(struct rte_roce_cm_id *pub)
{
	struct roce_cm_id *id = roce_cm_id(pub);
	int rc = 0;

	if (id == NULL || id->cm == NULL)
		return -EINVAL;
	pthread_mutex_lock(&id->cm->lock);
	if (id->state == ROCE_CM_ESTABLISHED) {
		roce_cm_qp_error(id);
		rc = roce_cm_send_dreq(id);
	} else if (!cm_disconnect_done(id)) {
		rc = -EINVAL;
	}
	pthread_mutex_unlock(&id->cm->lock);
	return rc == 0 && id->sync ? roce_cm_sync_complete(id) : rc;
}

/* A REJ to a REQ that makes no id (no listener, backlog full, bad field). */
static void
cm_req_reject(struct rte_roce_cm *cm, const struct rte_roce_mad *mad,
	      const struct roce_cm_peer_addr *from, uint16_t reason)
{
	struct rte_roce_cm_req req;
	struct roce_cm_id tmp;

	memcpy(&req, mad->data, sizeof(req));
	memset(&tmp, 0, sizeof(tmp));
	tmp.cm = cm;
	tmp.state = ROCE_CM_REQ_RCVD;
	tmp.remote_comm_id = rte_be_to_cpu_32(req.local_comm_id);
	tmp.tid = rte_be_to_cpu_64(mad->hdr.tid);
	tmp.dgid = from->gid;
	tmp.sgid_index = from->sgid_index;
	roce_cm_send_rej(&tmp, reason, NULL, 0);
}

/* The id that already has this REQ (a duplicate), if any. */
static struct roce_cm_id *
cm_req_owner(struct rte_roce_cm *cm, const struct rte_roce_cm_req *req)
{
	struct roce_cm_id *id;

	TAILQ_FOREACH(id, &cm->ids, next)
		if (!cm_is_ud(id) && id->remote_comm_id == rte_be_to_cpu_32(req->local_comm_id) &&
		    id->remote_ca_guid == rte_be_to_cpu_64(req->local_ca_guid))
			return id;
	return NULL;
}

/* rdma_cm's header: the addresses of both sides (Annex A11); false if malformed. */
static bool
cm_cma_hdr_addrs(const uint8_t *private_data, rte_be64_t service_id, struct roce_cm_id *id)
{
	uint16_t port = (uint16_t)rte_be_to_cpu_64(service_id);
	struct rte_roce_cma_hdr h;
	unsigned int ipv = 0;

	memcpy(&h, private_data, sizeof(h));
	if (h.version == RTE_ROCE_CMA_VERSION)
		ipv = h.ip_version >> RTE_ROCE_CMA_IP_VERSION_SHIFT;
	/* Built apart and copied: stores through a sockaddr_in into a sockaddr_storage may not alias. */
	if (ipv == CM_IPV4) {
		struct sockaddr_in s = { .sin_family = AF_INET }, d = { .sin_family = AF_INET };

		s.sin_addr.s_addr = h.dst.ip4.addr;
		d.sin_addr.s_addr = h.src.ip4.addr;
		d.sin_port = h.port;
		s.sin_port = rte_cpu_to_be_16(port);
		memcpy(&id->src, &s, sizeof(s));
		memcpy(&id->dst, &d, sizeof(d));
		return true;
	}
	if (ipv == CM_IPV6) {
		struct sockaddr_in6 s = { .sin6_family = AF_INET6 }, d = { .sin6_family = AF_INET6 };

		memcpy(&s.sin6_addr, h.dst.ip6, sizeof(s.sin6_addr));
		memcpy(&d.sin6_addr, h.src.ip6, sizeof(d.sin6_addr));
		d.sin6_port = h.port;
		s.sin6_port = rte_cpu_to_be_16(port);
		memcpy(&id->src, &s, sizeof(s));
		memcpy(&id->dst, &d, sizeof(d));
		return true;
	}
	return false;
}

/* What the REQ asks of the connection (IBTA §12.6, Table 106). */
static void
cm_req_peer(const struct rte_roce_cm_req *req, struct roce_cm_peer *p, enum ibv_mtu active)
{
	uint32_t w = rte_be_to_cpu_32(req->psn_timeout_retry);
	uint8_t mtu = req->mtu_rdc_rnr >> RTE_ROCE_CM_REQ_MTU_SHIFT;

	p->qpn = rte_be_to_cpu_32(req->qpn_resp_res) >> RTE_ROCE_CM_QPN_SHIFT;
	p->resp_res = rte_be_to_cpu_32(req->qpn_resp_res) & RTE_ROCE_CM_REQ_RESP_RES_MASK;
	p->init_depth = rte_be_to_cpu_32(req->eecn_init_depth) & RTE_ROCE_CM_REQ_INIT_DEPTH_MASK;
	p->psn = w >> RTE_ROCE_CM_PSN_SHIFT;
	p->resp_timeout = (w & RTE_ROCE_CM_REQ_LOCAL_TIMEOUT_MASK) >>
			  RTE_ROCE_CM_REQ_LOCAL_TIMEOUT_SHIFT;
	p->retry_cnt = w & RTE_ROCE_CM_REQ_RETRY_MASK;
	p->mtu = RTE_MIN(mtu, (uint8_t)active);
	p->rnr_retry = req->mtu_rdc_rnr & RTE_ROCE_CM_REQ_RNR_RETRY_MASK;
	p->max_cm_retries = req->max_cm_retries_srq >> RTE_ROCE_CM_REQ_MAX_RETRIES_SHIFT;
	p->ack_timeout = req->primary.ack_timeout >> RTE_ROCE_CM_PATH_ACK_TIMEOUT_SHIFT;
	p->flow_label = (rte_be_to_cpu_32(req->primary.flow_label_rate) >>
			 RTE_ROCE_CM_PATH_FLOW_LABEL_SHIFT) & RTE_ROCE_CM_PATH_FLOW_LABEL_MASK;
	p->traffic_class = req->primary.traffic_class;
	p->hop_limit = req->primary.hop_limit;
}

/* The REQ's fields we cannot serve; 0 if none, else the REJ reason. */
static uint16_t
cm_req_unservable(const struct rte_roce_cm_req *req)
{
	uint32_t w = rte_be_to_cpu_32(req->eecn_timeout_type);
	uint8_t mtu = req->mtu_rdc_rnr >> RTE_ROCE_CM_REQ_MTU_SHIFT;

	if ((w & RTE_ROCE_CM_REQ_TRANSPORT_MASK) >> RTE_ROCE_CM_REQ_TRANSPORT_SHIFT !=
	    RTE_ROCE_CM_TRANSPORT_RC)
		return RTE_ROCE_CM_REJ_INVALID_TRANSPORT_TYPE;
	if (mtu < IBV_MTU_256 || mtu > IBV_MTU_4096)
		return RTE_ROCE_CM_REJ_INVALID_MTU;
	return 0;
}

/* A new id for a request to listener: the listener's channel, context and port space. */
static struct roce_cm_id *
cm_passive_id(struct rte_roce_cm *cm, struct roce_cm_id *listener,
	      const struct rte_roce_mad *mad, const struct roce_cm_peer_addr *from)
{
	struct roce_cm_id *id = calloc(1, sizeof(*id));
	struct roce_cm_channel *ch = roce_cm_channel(listener->pub.channel);

	if (id == NULL)
		return NULL;
	id->pub.channel = listener->pub.channel;
	id->pub.context = listener->pub.context;
	id->pub.ps = listener->pub.ps;
	id->state = ROCE_CM_IDLE;
	id->tid = rte_be_to_cpu_64(mad->hdr.tid);
	id->sgid_index = from->sgid_index;
	id->listener = listener;
	listener->pending++;
	pthread_mutex_lock(&ch->lock);
	ch->nb_ids++;
	pthread_mutex_unlock(&ch->lock);
	roce_cm_id_attach(cm, id);
	return id;
}

/* The listener's limits leave room for one more request: else counted. */
static bool
cm_listener_room(struct rte_roce_cm *cm, const struct roce_cm_id *listener)
{
	if ((listener->backlog > 0 && listener->pending >= listener->backlog) ||
	    cm->nb_ids >= cm->conf.max_ids) {
		cm->stats.backlog_full++;
		return false;
	}
	return true;
}

void
roce_cm_req_input(struct rte_roce_cm *cm, const struct rte_roce_mad *mad,
		  const struct roce_cm_peer_addr *from)
{
	struct roce_cm_id *listener, *id;
	struct rte_roce_cm_req req;
	struct roce_cm_id addrs;
	union ibv_gid to;
	uint64_t sid;
	uint16_t reason;

	memcpy(&req, mad->data, sizeof(req));
	id = cm_req_owner(cm, &req);
	if (id != NULL) {
		roce_cm_state_input(id, mad);
		return;
	}
	memset(&addrs, 0, sizeof(addrs));
	if (!cm_cma_hdr_addrs(req.private_data, req.service_id, &addrs)) {
		cm->stats.drop_field++;	/* not an rdma_cm REQ: no listener of ours takes it */
		cm_req_reject(cm, mad, from, RTE_ROCE_CM_REJ_INVALID_SERVICE_ID);
		return;
	}
	sid = rte_be_to_cpu_64(req.service_id);
	memcpy(&to, req.primary.remote_gid, sizeof(to));
	listener = cm_listener_find(cm, (enum rte_roce_cm_port_space)(sid >> 16), (uint16_t)sid, &to);
	reason = cm_req_unservable(&req);
	if (listener == NULL)
		reason = RTE_ROCE_CM_REJ_INVALID_SERVICE_ID;
	else if (reason == 0 && !cm_listener_room(cm, listener))
		/* No id for it: reason 3, no resources (IBTA Vol. 1 §12.6.7, the REJ reasons). */
		reason = RTE_ROCE_CM_REJ_NO_RESOURCES;
	if (reason == RTE_ROCE_CM_REJ_INVALID_MTU || reason == RTE_ROCE_CM_REJ_INVALID_TRANSPORT_TYPE)
		cm->stats.drop_field++;
	id = reason == 0 ? cm_passive_id(cm, listener, mad, from) : NULL;
	if (id == NULL) {
		cm_req_reject(cm, mad, from, reason != 0 ? reason : RTE_ROCE_CM_REJ_NO_RESOURCES);
		return;
	}
	id->remote_comm_id = rte_be_to_cpu_32(req.local_comm_id);
	id->remote_ca_guid = rte_be_to_cpu_64(req.local_ca_guid);
	memcpy(&id->sgid, req.primary.remote_gid, sizeof(id->sgid));
	memcpy(&id->dgid, req.primary.local_gid, sizeof(id->dgid));
	cm_req_peer(&req, &id->peer, cm->active_mtu);
	roce_cm_state_set(id, ROCE_CM_REQ_RCVD);
	id->src = addrs.src;
	id->dst = addrs.dst;
	roce_cm_event_queue(id, listener, RTE_ROCE_CM_EVENT_CONNECT_REQUEST, 0,
			    req.private_data + sizeof(struct rte_roce_cma_hdr),
			    RTE_ROCE_CMA_REQ_PRIVATE_MAX);
}

/* The UD id that already has this SIDR_REQ (sent again), if any. */
static struct roce_cm_id *
cm_sidr_owner(struct rte_roce_cm *cm, const struct rte_roce_cm_sidr_req *req,
	      const struct roce_cm_peer_addr *from)
{
	struct roce_cm_id *id;

	TAILQ_FOREACH(id, &cm->ids, next)
		if (cm_is_ud(id) && id->state != ROCE_CM_LISTEN &&
		    id->remote_comm_id == rte_be_to_cpu_32(req->request_id) &&
		    memcmp(&id->dgid, &from->gid, sizeof(id->dgid)) == 0)
			return id;
	return NULL;
}

/* A SIDR_REP to a SIDR_REQ that makes no id (no listener, no room, bad header). */
static void
cm_sidr_refuse(struct rte_roce_cm *cm, const struct rte_roce_mad *mad,
	       const struct rte_roce_cm_sidr_req *req, const struct roce_cm_peer_addr *from,
	       uint8_t status)
{
	struct roce_cm_id tmp;

	memset(&tmp, 0, sizeof(tmp));
	tmp.cm = cm;
	tmp.remote_comm_id = rte_be_to_cpu_32(req->request_id);
	tmp.service_id = rte_be_to_cpu_64(req->service_id);
	tmp.tid = rte_be_to_cpu_64(mad->hdr.tid);
	tmp.dgid = from->gid;
	tmp.sgid_index = from->sgid_index;
	roce_cm_send_sidr_rep(&tmp, status, NULL, 0);
}

/*
 * A SIDR_REQ (IBTA Vol. 1 §12.11): to a UD listener of its service ID, a
 * new id and CONNECT_REQUEST; sent again, to the id that has it; else a
 * SIDR_REP saying why not (service ID not supported, no QP).
 */
void
roce_cm_sidr_req_input(struct rte_roce_cm *cm, const struct rte_roce_mad *mad,
		       const struct roce_cm_peer_addr *from)
{
	struct rte_roce_cm_sidr_req req;
	struct roce_cm_id *listener, *id;
	struct roce_cm_id addrs;
	union ibv_gid to;
	uint64_t sid;

	memcpy(&req, mad->data, sizeof(req));
	id = cm_sidr_owner(cm, &req, from);
	if (id != NULL) {
		roce_cm_state_input(id, mad);
		return;
	}
	memset(&addrs, 0, sizeof(addrs));
	if (!cm_cma_hdr_addrs(req.private_data, req.service_id, &addrs)) {
		cm->stats.drop_field++;
		cm_sidr_refuse(cm, mad, &req, from, RTE_ROCE_CM_SIDR_UNSUPPORTED);
		return;
	}
	sid = rte_be_to_cpu_64(req.service_id);
	cm_addr_gid(&addrs.src, &to);
	listener = cm_listener_find(cm, (enum rte_roce_cm_port_space)(sid >> 16), (uint16_t)sid, &to);
	if (listener == NULL || !cm_is_ud(listener)) {
		cm_sidr_refuse(cm, mad, &req, from, RTE_ROCE_CM_SIDR_UNSUPPORTED);
		return;
	}
	id = cm_listener_room(cm, listener) ? cm_passive_id(cm, listener, mad, from) : NULL;
	if (id == NULL) {
		cm_sidr_refuse(cm, mad, &req, from, RTE_ROCE_CM_SIDR_NO_QP);
		return;
	}
	id->remote_comm_id = rte_be_to_cpu_32(req.request_id);
	id->service_id = sid;
	id->sgid = to;
	id->dgid = from->gid;
	id->src = addrs.src;
	id->dst = addrs.dst;
	roce_cm_state_set(id, ROCE_CM_SIDR_REQ_RCVD);
	roce_cm_event_queue(id, listener, RTE_ROCE_CM_EVENT_CONNECT_REQUEST, 0,
			    req.private_data + sizeof(struct rte_roce_cma_hdr), CM_SIDR_REQ_PRIVATE_MAX);
}
