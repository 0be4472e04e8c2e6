/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * librdmacm's QPs of ids and its endpoint helpers on librte_roce_cm:
 * rdma_create_qp() with librdmacm's defaults (the device's PD, CQs with
 * completion channels), rdma_getaddrinfo(), rdma_create_ep(),
 * rdma_get_request() (doc/verbs-abi.md, "librdmacm").
 */

#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "roce_verbs_cm.h"

/* rdma_create_ep()'s wait for the address and the route, librdmacm's. */
#define RV_CM_EP_TIMEOUT_MS 2000

static struct ibv_pd *rv_default_pds[RTE_ROCE_CONFIG_PORTS_MAX];
static pthread_mutex_t rv_default_pd_lock = PTHREAD_MUTEX_INITIALIZER;

struct ibv_pd *
rv_cm_default_pd(struct ibv_context *ctx)
{
	struct roce_verbs_dev *dev = roce_verbs_dev_of_ctx(ctx);
	struct ibv_pd *pd;

	if (dev == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&rv_default_pd_lock);
	if (rv_default_pds[dev->index] == NULL)
		rv_default_pds[dev->index] = ibv_alloc_pd(ctx);
	pd = rv_default_pds[dev->index];
	pthread_mutex_unlock(&rv_default_pd_lock);
	return pd;
}

/* librdmacm's CQs for an id: one with a completion channel each way, as the QP asks. */
static int
rv_cm_cq_make(struct rv_cm_id *id, int cqe, struct ibv_comp_channel **channel,
	      struct ibv_cq **cq)
{
	*channel = ibv_create_comp_channel(id->pub.verbs);
	if (*channel == NULL)
		return -1;
	*cq = ibv_create_cq(id->pub.verbs, cqe != 0 ? cqe : 1, &id->pub, *channel, 0);
	if (*cq == NULL) {
		ibv_destroy_comp_channel(*channel);
		*channel = NULL;
		return -1;
	}
	id->own_cqs = true;
	return 0;
}

static void
rv_cm_cqs_free(struct rv_cm_id *id)
{
	struct rdma_cm_id *pub = &id->pub;

	if (!id->own_cqs)
		return;
	if (pub->send_cq != NULL)
		ibv_destroy_cq(pub->send_cq);
	if (pub->send_cq_channel != NULL)
		ibv_destroy_comp_channel(pub->send_cq_channel);
	if (pub->recv_cq != NULL)
		ibv_destroy_cq(pub->recv_cq);
	if (pub->recv_cq_channel != NULL)
		ibv_destroy_comp_channel(pub->recv_cq_channel);
	pub->send_cq = pub->recv_cq = NULL;
	pub->send_cq_channel = pub->recv_cq_channel = NULL;
	id->own_cqs = false;
}

int rv_rdma_create_qp(struct rdma_cm_id *pub, struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
	ROCE_VERBS_EXPORT(rdma_create_qp);
int
rv_rdma_create_qp(struct rdma_cm_id *pub, struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct rv_cm_id *id = rv_cm_id(pub);
	int rc;

	if (!rv_cm_ours())
		return ROCE_VERBS_CM_REAL(rv_rdma_create_qp, "rdma_create_qp")(pub, pd, attr);
	/* As librdmacm's rdma_create_qp_ex() (librdmacm/cma.c): one QP per id. */
	if (pub == NULL || attr == NULL || pub->verbs == NULL || pub->qp != NULL ||
	    (pd != NULL && pd->context != pub->verbs)) {
		RV_LOG(ERR, "id %p: %s", (void *)pub, pub == NULL || attr == NULL ?
		       "NULL argument" : pub->verbs == NULL ? "not bound to a device yet" :
		       pub->qp != NULL ? "it has a QP already" : "the PD is another device's");
		errno = EINVAL;
		return -1;
	}
	if (attr->qp_type == IBV_QPT_XRC_SEND || attr->qp_type == IBV_QPT_XRC_RECV) {
		RV_LOG(ERR, "id %p: XRC QPs (rdma_xclient, rdma_xserver) are not in librte_roce",
		       (void *)pub);
		errno = EOPNOTSUPP;
		return -1;
	}
	if (pd == NULL)
		pd = rv_cm_default_pd(pub->verbs);
	if (pd == NULL)
		return -1;
	if (attr->send_cq == NULL && pub->send_cq == NULL &&
	    rv_cm_cq_make(id, attr->cap.max_send_wr, &pub->send_cq_channel, &pub->send_cq) < 0)
		return -1;
	if (attr->recv_cq == NULL && pub->recv_cq == NULL &&
	    rv_cm_cq_make(id, attr->cap.max_recv_wr, &pub->recv_cq_channel, &pub->recv_cq) < 0) {
		rv_cm_cqs_free(id);
		return -1;
	}
	if (attr->send_cq == NULL)
		attr->send_cq = pub->send_cq;
	if (attr->recv_cq == NULL)
		attr->recv_cq = pub->recv_cq;
	rc = rte_roce_cm_create_qp(id->raw, pd, attr);
	if (rc < 0) {
		rv_cm_cqs_free(id);
		return rv_cm_ret(rc);
	}
	roce_verbs_obj_created(id->raw->qp);
	pub->qp = id->raw->qp;
	pub->pd = pd;
	return 0;
}

/*
 * rdma_create_qp() with the extended attributes librte_roce has: a PD, and
 * send_ops_flags for a QP with the ibv_wr_* functions (ibv_qp_to_qp_ex()),
 * as librdmacm passes them to ibv_create_qp_ex(); the rest is refused as
 * ibv_create_qp_ex() refuses it (doc/verbs-abi.md).
 */
int rv_rdma_create_qp_ex(struct rdma_cm_id *pub, struct ibv_qp_init_attr_ex *attr)
	ROCE_VERBS_EXPORT(rdma_create_qp_ex);
int
rv_rdma_create_qp_ex(struct rdma_cm_id *pub, struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_init_attr legacy;

	if (!rv_cm_ours())
		return ROCE_VERBS_CM_REAL(rv_rdma_create_qp_ex, "rdma_create_qp_ex")(pub, attr);
	if (attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (roce_verbs_qp_ex_refused(attr, "rdma_create_qp_ex"))
		return -1;
	/* The leading fields of ibv_qp_init_attr_ex are ibv_qp_init_attr's (verbs.h casts it so). */
	memcpy(&legacy, attr, sizeof(legacy));
	if (rv_rdma_create_qp(pub, attr->comp_mask & IBV_QP_INIT_ATTR_PD ? attr->pd : NULL,
			      &legacy) < 0)
		return -1;
	memcpy(attr, &legacy, sizeof(legacy));
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		roce_verbs_qp_ex_init((struct ibv_qp_ex *)pub->qp);
	return 0;
}

void rv_rdma_destroy_qp(struct rdma_cm_id *pub) ROCE_VERBS_EXPORT(rdma_destroy_qp);
void
rv_rdma_destroy_qp(struct rdma_cm_id *pub)
{
	struct rv_cm_id *id = rv_cm_id(pub);
	struct ibv_qp *qp;
	int rc;

	if (!rv_cm_ours()) {
		ROCE_VERBS_CM_REAL(rv_rdma_destroy_qp, "rdma_destroy_qp")(pub);
		return;
	}
	if (pub == NULL || id->raw->qp == NULL)
		return;
	qp = id->raw->qp;
	/* As ibv_destroy_qp() of the layer: remembered as destroyed (roce_verbs_live.c). */
	roce_verbs_obj_lock();
	rc = rte_roce_cm_destroy_qp(id->raw);
	if (rc == 0)
		roce_verbs_obj_destroyed(qp);
	roce_verbs_obj_unlock();
	if (rc < 0) {	/* it returns nothing: the QP stays, the id's CQs with it */
		RV_LOG(ERR, "id %p: QP %u not destroyed: %s", (void *)pub, qp->qp_num,
		       strerror(-rc));
		return;
	}
	pub->qp = NULL;
	rv_cm_cqs_free(id);
}

int rv_rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **idp)
	ROCE_VERBS_EXPORT(rdma_get_request);
int
rv_rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **idp)
{
	struct rv_cm_id *lid = rv_cm_id(listen);
	struct ibv_qp_init_attr attr;
	struct rdma_cm_event *ev;

	if (!rv_cm_ours())
		return ROCE_VERBS_CM_REAL(rv_rdma_get_request, "rdma_get_request")(listen, idp);
	if (listen == NULL || idp == NULL || !lid->sync) {
		RV_LOG(ERR, "id %p: not a synchronous listener (created without a channel)",
		       (void *)listen);
		errno = EINVAL;
		return -1;
	}
	if (rv_cm_sync_complete(lid, 0) < 0 && listen->event == NULL)
		return -1;
	/* The request is the new id's event from now on, as librdmacm hands it out. */
	ev = listen->event;
	listen->event = NULL;
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		errno = ev->event == RDMA_CM_EVENT_REJECTED ? ECONNREFUSED :
			ev->status != 0 ? abs(ev->status) : EINVAL;
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (lid->qp_init_attr != NULL) {
		attr = *lid->qp_init_attr;
		if (rv_rdma_create_qp(ev->id, listen->pd, &attr) < 0) {
			rdma_reject(ev->id, NULL, 0);
			rdma_ack_cm_event(ev);
			return -1;
		}
	}
	ev->id->event = ev;
	*idp = ev->id;
	return 0;
}

int rv_rdma_create_ep(struct rdma_cm_id **idp, struct rdma_addrinfo *res, struct ibv_pd *pd,
		 struct ibv_qp_init_attr *qp_init_attr) ROCE_VERBS_EXPORT(rdma_create_ep);
void rv_rdma_destroy_ep(struct rdma_cm_id *pub) ROCE_VERBS_EXPORT(rdma_destroy_ep);

/* A passive endpoint: bound, and the QP its requests will get remembered. */
static int
rv_cm_passive_ep(struct rdma_cm_id *pub, struct rdma_addrinfo *res, struct ibv_pd *pd,
		 struct ibv_qp_init_attr *qp_init_attr)
{
	struct rv_cm_id *id = rv_cm_id(pub);

	if (rdma_bind_addr(pub, res->ai_src_addr) < 0)
		return -1;
	pub->pd = pd;
	if (qp_init_attr == NULL)
		return 0;
	id->qp_init_attr = malloc(sizeof(*qp_init_attr));
	if (id->qp_init_attr == NULL) {
		errno = ENOMEM;
		return -1;
	}
	*id->qp_init_attr = *qp_init_attr;
	id->qp_init_attr->qp_type = res->ai_qp_type;
	return 0;
}

int
rv_rdma_create_ep(struct rdma_cm_id **idp, struct rdma_addrinfo *res, struct ibv_pd *pd,
	     struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *pub;
	int rc;

	if (!rv_cm_ours())
		return ROCE_VERBS_CM_REAL(rv_rdma_create_ep, "rdma_create_ep")
			(idp, res, pd, qp_init_attr);
	if (idp == NULL || res == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (rdma_create_id(NULL, &pub, NULL, res->ai_port_space) < 0)
		return -1;
	if (res->ai_flags & RAI_PASSIVE) {
		rc = rv_cm_passive_ep(pub, res, pd, qp_init_attr);
	} else {
		rc = rdma_resolve_addr(pub, res->ai_src_addr, res->ai_dst_addr,
				       RV_CM_EP_TIMEOUT_MS);
		if (rc == 0)
			rc = rdma_resolve_route(pub, RV_CM_EP_TIMEOUT_MS);
		if (rc == 0 && qp_init_attr != NULL) {
			qp_init_attr->qp_type = res->ai_qp_type;
			rc = rdma_create_qp(pub, pd, qp_init_attr);
		}
	}
	if (rc < 0) {
		int err = errno;

		rv_rdma_destroy_ep(pub);
		errno = err;
		return -1;
	}
	*idp = pub;
	return 0;
}

void
rv_rdma_destroy_ep(struct rdma_cm_id *pub)
{
	if (!rv_cm_ours()) {
		ROCE_VERBS_CM_REAL(rv_rdma_destroy_ep, "rdma_destroy_ep")(pub);
		return;
	}
	if (pub == NULL)
		return;
	if (pub->qp != NULL)
		rdma_destroy_qp(pub);
	if (rdma_destroy_id(pub) < 0)
		RV_LOG(ERR, "id %p not destroyed: %s", (void *)pub, strerror(errno));
}

/*
 * rdma_getaddrinfo() for IP addresses (the real one needs the kernel's
 * rdma_cm), as librdmacm/addrinfo.c converts it: the hints' QP type and port
 * space choose getaddrinfo(3)'s socket type and protocol (RC, UC: stream,
 * TCP; UD: datagram, UDP), its first answer is the source with RAI_PASSIVE,
 * else the destination, and the QP type and port space come from the hints
 * or from that answer; the hints' source address is taken when getaddrinfo
 * gave none. No node and no service: the hints themselves. Returns 0, a
 * getaddrinfo(3) error (EAI_*), or -1 with errno.
 */
struct rv_addrinfo {
	struct rdma_addrinfo ai;
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
};

/*
 * Whether the hints ask for the answer as an AF_IB address: librdmacm converts
 * it so only for RAI_FAMILY with AF_IB and RAI_NUMERICHOST (ucma_convert_to_rai());
 * RAI_FAMILY with another family is only getaddrinfo(3)'s family hint
 * (libfabric's verbs provider always sets it, with AF_INET when unspecified).
 */
static bool
rv_gai_wants_ib(const struct rdma_addrinfo *rh)
{
	return (rh->ai_flags & (RAI_FAMILY | RAI_NUMERICHOST)) == (RAI_FAMILY | RAI_NUMERICHOST) &&
	       rh->ai_family == AF_IB;
}

/* getaddrinfo(3)'s hints for rdma_getaddrinfo()'s (ucma_convert_to_ai()). */
static void
rv_gai_hints(const struct rdma_addrinfo *rh, struct addrinfo *h)
{
	memset(h, 0, sizeof(*h));
	h->ai_flags = ((rh->ai_flags & RAI_PASSIVE) ? AI_PASSIVE : 0) |
		      ((rh->ai_flags & RAI_NUMERICHOST) ? AI_NUMERICHOST : 0);
	if (rh->ai_family != AF_IB)	/* an AF_IB hint resolves names of any family */
		h->ai_family = rh->ai_family;
	if (rh->ai_qp_type == IBV_QPT_UD)
		h->ai_socktype = SOCK_DGRAM;
	else if (rh->ai_qp_type != 0)
		h->ai_socktype = SOCK_STREAM;
	if (rh->ai_port_space == RDMA_PS_TCP ||
	    (rh->ai_port_space == RDMA_PS_IB && h->ai_socktype == SOCK_STREAM))
		h->ai_protocol = IPPROTO_TCP;
	else if (rh->ai_port_space == RDMA_PS_UDP || rh->ai_port_space == RDMA_PS_IPOIB ||
		 (rh->ai_port_space == RDMA_PS_IB && h->ai_socktype == SOCK_DGRAM))
		h->ai_protocol = IPPROTO_UDP;
}

/* An address into the result's storage (left out if longer than any socket address). */
static void
rv_gai_addr(struct sockaddr_storage *to, struct sockaddr **addr, socklen_t *len,
	    const struct sockaddr *from, socklen_t from_len)
{
	if (from_len > sizeof(*to))
		return;
	memcpy(to, from, from_len);
	*addr = (struct sockaddr *)to;
	*len = from_len;
}

/* The result from getaddrinfo(3)'s first answer (ucma_convert_to_rai()). */
static void
rv_gai_result(struct rv_addrinfo *r, const struct rdma_addrinfo *rh, const struct addrinfo *ai)
{
	r->ai.ai_qp_type = rh->ai_qp_type != 0 ? rh->ai_qp_type :
			   ai->ai_socktype == SOCK_DGRAM ? IBV_QPT_UD : IBV_QPT_RC;
	r->ai.ai_port_space = rh->ai_port_space != 0 ? rh->ai_port_space :
			      ai->ai_protocol == IPPROTO_UDP ? RDMA_PS_UDP : RDMA_PS_TCP;
	r->ai.ai_family = ai->ai_family;
	if (ai->ai_flags & AI_PASSIVE) {
		r->ai.ai_flags = RAI_PASSIVE;
		rv_gai_addr(&r->src, &r->ai.ai_src_addr, &r->ai.ai_src_len, ai->ai_addr,
			    ai->ai_addrlen);
	} else {
		rv_gai_addr(&r->dst, &r->ai.ai_dst_addr, &r->ai.ai_dst_len, ai->ai_addr,
			    ai->ai_addrlen);
	}
}

int rv_rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		   struct rdma_addrinfo **res) ROCE_VERBS_EXPORT(rdma_getaddrinfo);
int
rv_rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
	       struct rdma_addrinfo **res)
{
	static const struct rdma_addrinfo no_hints;
	const struct rdma_addrinfo *rh = hints != NULL ? hints : &no_hints;
	struct addrinfo ai_hints, *ai;
	struct rv_addrinfo *r;
	int rc;

	if (!rv_cm_ours())
		return ROCE_VERBS_CM_REAL(rv_rdma_getaddrinfo, "rdma_getaddrinfo")
			(node, service, hints, res);
	if (res == NULL || (node == NULL && service == NULL && hints == NULL)) {
		RV_LOG(ERR, "%s", res == NULL ? "NULL result" : "no node, service or hints");
		errno = EINVAL;
		return -1;
	}
	if (rv_gai_wants_ib(rh)) {
		RV_LOG(ERR, "RAI_FAMILY with AF_IB and RAI_NUMERICHOST asks for an AF_IB "
		       "address: IP addresses only");
		errno = EAFNOSUPPORT;
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (node != NULL || service != NULL) {
		rv_gai_hints(rh, &ai_hints);
		rc = getaddrinfo(node, service, hints != NULL ? &ai_hints : NULL, &ai);
		if (rc != 0) {
			free(r);
			return rc;
		}
		rv_gai_result(r, rh, ai);
		freeaddrinfo(ai);
	} else {
		r->ai.ai_flags = rh->ai_flags;
		r->ai.ai_family = rh->ai_family;
		r->ai.ai_qp_type = rh->ai_qp_type;
		r->ai.ai_port_space = rh->ai_port_space;
		if (rh->ai_dst_len != 0)
			rv_gai_addr(&r->dst, &r->ai.ai_dst_addr, &r->ai.ai_dst_len,
				    rh->ai_dst_addr, rh->ai_dst_len);
	}
	if (r->ai.ai_src_len == 0 && rh->ai_src_len != 0)
		rv_gai_addr(&r->src, &r->ai.ai_src_addr, &r->ai.ai_src_len, rh->ai_src_addr,
			    rh->ai_src_len);
	*res = &r->ai;
	return 0;
}

void rv_rdma_freeaddrinfo(struct rdma_addrinfo *res) ROCE_VERBS_EXPORT(rdma_freeaddrinfo);
void
rv_rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	if (!rv_cm_ours()) {
		ROCE_VERBS_CM_REAL(rv_rdma_freeaddrinfo, "rdma_freeaddrinfo")(res);
		return;
	}
	free(res);	/* one rv_addrinfo, never a list */
}

/*
 * rdma_get_devices(): the configured devices' contexts, brought up, as
 * librdmacm's list of the devices it opened (librdmacm/cma.c); NULL-ended,
 * *num_devices its length (0 when NULL is returned).
 */
struct ibv_context **rv_rdma_get_devices(int *num_devices) ROCE_VERBS_EXPORT(rdma_get_devices);
struct ibv_context **
rv_rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;
	unsigned int i, n = roce_verbs_dev_count();

	if (!rv_cm_ours())
		return ROCE_VERBS_CM_REAL(rv_rdma_get_devices, "rdma_get_devices")(num_devices);
	if (num_devices != NULL)
		*num_devices = 0;
	if (rv_cm_start() < 0)
		return NULL;
	list = calloc(n + 1, sizeof(*list));
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++)
		list[i] = roce_verbs_dev_context(roce_verbs_dev_at(i));
	if (num_devices != NULL)
		*num_devices = (int)n;
	return list;
}

/* The contexts stay open (librte_roce opens a device once, for the process). */
void rv_rdma_free_devices(struct ibv_context **list) ROCE_VERBS_EXPORT(rdma_free_devices);
void
rv_rdma_free_devices(struct ibv_context **list)
{
	if (!rv_cm_ours()) {
		ROCE_VERBS_CM_REAL(rv_rdma_free_devices, "rdma_free_devices")(list);
		return;
	}
	free(list);
}

/*
 * rsockets are not served: librdmacm's rsocket.c runs on the rdma_* calls,
 * which would be ours, but also reaches into its own id state
 * (ucma_complete(), ucma_shutdown() read its struct cma_id_private around
 * the rdma_cm_id), which an id of the layer does not have. rsocket() is the
 * only way to an rsocket, so refusing it keeps every other rs call away
 * from our ids: they fail on a descriptor that is not an rsocket.
 */
int rv_rsocket(int domain, int type, int protocol) ROCE_VERBS_EXPORT(rsocket);
int
rv_rsocket(int domain, int type, int protocol)
{
	if (!rv_cm_ours())
		return ROCE_VERBS_CM_REAL(rv_rsocket, "rsocket")(domain, type, protocol);
	RV_LOG(ERR, "rsocket(): rsockets (rstream, riostream, librspreload) are not served on "
	       "librte_roce devices (doc/verbs-abi.md)");
	errno = ENOSYS;
	return -1;
}
