/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * librdmacm's id calls on librte_roce_cm: each wraps the rte_roce_cm_*
 * call of the same name, keeps rdma_cm_id's public fields (device,
 * addresses) true, and makes a synchronous id wait for its event
 * (doc/verbs-abi.md, "librdmacm").
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_roce_gid.h>

#include "roce_verbs_cm.h"

/* How long rdma_destroy_id() waits for acknowledgements before it says so. */
#define RV_CM_ACK_WAIT_LOG_MS 1000

/* What librdmacm's calls return for an id that is not ours, when this process's rdma_cm is. */
#define RV_CM_DISPATCH(id, real_call) \
	do { \
		if (!rv_cm_ours()) \
			return real_call; \
		if ((id) == NULL) { \
			errno = EINVAL; \
			return -1; \
		} \
	} while (0)

struct rv_cm_id *
rv_cm_id_new(struct rdma_event_channel *channel, void *context, enum rdma_port_space ps)
{
	struct rv_cm_id *id = calloc(1, sizeof(*id));

	if (id == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	id->pub.channel = channel;
	id->pub.context = context;
	id->pub.ps = ps;
	id->pub.qp_type = ps == RDMA_PS_UDP || ps == RDMA_PS_IPOIB ? IBV_QPT_UD : IBV_QPT_RC;
	return id;
}

void
rv_cm_id_sync_addr(struct rv_cm_id *id)
{
	struct sockaddr_storage src, dst;

	if (rte_roce_cm_get_addr(id->raw, &src, &dst) < 0)
		return;
	memcpy(&id->pub.route.addr.src_storage, &src, sizeof(src));
	memcpy(&id->pub.route.addr.dst_storage, &dst, sizeof(dst));
	id->pub.verbs = id->raw->verbs;
	id->pub.port_num = id->raw->port_num;
}

int
rv_cm_sync_complete(struct rv_cm_id *id, int rc)
{
	struct rv_cm_event *ev;
	struct rdma_cm_event *e;

	if (rc < 0 || !id->sync)
		return rc;
	if (id->pub.event != NULL)
		rdma_ack_cm_event(id->pub.event);
	id->pub.event = NULL;
	if (rv_cm_channel_get(rv_cm_channel(id->pub.channel), true, &ev) < 0)
		return -1;
	e = id->pub.event = &ev->pub;
	if (e->status == 0)
		return 0;
	errno = e->event == RDMA_CM_EVENT_REJECTED ? ECONNREFUSED :
		e->status < 0 ? -e->status : e->status;
	return -1;
}

/* An address in words, for the logs. */
static const char *
rv_cm_addr_str(const struct sockaddr *sa, char *buf, size_t size)
{
	const void *a = sa->sa_family == AF_INET ?
		(const void *)&((const struct sockaddr_in *)sa)->sin_addr :
		(const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;

	if ((sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
	    inet_ntop(sa->sa_family, a, buf, size) == NULL)
		snprintf(buf, size, "(family %d)", sa->sa_family);
	return buf;
}

/* Explain an address that no configured port has: rdma_cm here is librte_roce's alone. */
static int
rv_cm_addr_ret(const char *call, const struct sockaddr *sa, int rc)
{
	char buf[INET6_ADDRSTRLEN + 16];

	if (rc == -EADDRNOTAVAIL && sa != NULL)
		RV_LOG(ERR, "%s: %s is on no port of %s: with librte_roce devices, every rdma_cm id "
		       "of the process is theirs", call, rv_cm_addr_str(sa, buf, sizeof(buf)),
		       ROCE_VERBS_ENV_CONFIG);
	return rv_cm_ret(rc);
}

int rv_rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **idp, void *context,
		 enum rdma_port_space ps) ROCE_VERBS_EXPORT(rdma_create_id);
int
rv_rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **idp, void *context,
	     enum rdma_port_space ps)
{
	struct rv_cm_channel *ch = rv_cm_channel(channel);
	struct rv_cm_id *id;
	int rc;

	RV_CM_DISPATCH(idp, ROCE_VERBS_CM_REAL(rv_rdma_create_id, "rdma_create_id")
		       (channel, idp, context, ps));
	if (rv_cm_start() < 0)
		return -1;
	/*
	 * RDMA_PS_IPOIB's Q_Key is the IPoIB broadcast group's, from an SA
	 * (the kernel's cma_set_qkey()): RoCE has neither, so Linux fails it
	 * too, only later (rdma_create_qp).
	 */
	if (ps != RDMA_PS_TCP && ps != RDMA_PS_IB && ps != RDMA_PS_UDP) {
		RV_LOG(ERR, "port space 0x%x: only RDMA_PS_TCP, RDMA_PS_IB (RC) and RDMA_PS_UDP "
		       "(UD, SIDR) are served%s", ps, ps == RDMA_PS_IPOIB ?
		       " (RDMA_PS_IPOIB takes its Q_Key from an IPoIB group: no IPoIB on RoCE)" : "");
		errno = EPROTONOSUPPORT;
		return -1;
	}
	id = rv_cm_id_new(channel, context, ps);
	if (id == NULL)
		return -1;
	if (ch == NULL) {	/* synchronous: a channel of its own */
		ch = rv_cm_channel_new();
		if (ch == NULL) {
			free(id);
			return -1;
		}
		id->pub.channel = &ch->pub;
		id->sync = true;
	}
	rc = rte_roce_cm_create_id(rv_cm_hub(), &id->raw, id, (enum rte_roce_cm_port_space)ps);
	if (rc < 0) {
		if (id->sync)
			rv_cm_channel_free(ch);
		free(id);
		return rv_cm_ret(rc);
	}
	rv_cm_channel_attach(ch);
	*idp = &id->pub;
	return 0;
}

/*
 * librdmacm's rdma_destroy_id() waits until the program has acknowledged
 * every event of the id that it took (rping's main thread destroys an id
 * while its CM thread still handles the id's last event); so does this.
 */
static void
rv_cm_id_wait_acks(const struct rv_cm_id *id)
{
	unsigned int waited_ms = 0;

	while (__atomic_load_n(&id->events_got, __ATOMIC_ACQUIRE) != 0) {
		if (++waited_ms == RV_CM_ACK_WAIT_LOG_MS)
			RV_LOG(NOTICE, "rdma_destroy_id(%p) waits for rdma_ack_cm_event() of its "
			       "%u events", (void *)&id->pub, id->events_got);
		usleep(1000);
	}
}

/*
 * Drop the id's events not taken yet once every one taken is acknowledged,
 * and return with the hub locked, so that none comes until its end. An
 * event the program's CM thread takes meanwhile is counted before the
 * channel's lock is let go (rv_cm_channel_get()): then the wait starts
 * again, as librdmacm's waits for what the kernel reported.
 */
static void
rv_cm_id_stop_events(struct rv_cm_id *id)
{
	for (;;) {
		rv_cm_id_wait_acks(id);
		rv_cm_hub_lock();
		rv_cm_events_move(id, NULL);
		if (__atomic_load_n(&id->events_got, __ATOMIC_ACQUIRE) == 0)
			return;
		rv_cm_hub_unlock();
	}
}

int rv_rdma_destroy_id(struct rdma_cm_id *pub) ROCE_VERBS_EXPORT(rdma_destroy_id);
int
rv_rdma_destroy_id(struct rdma_cm_id *pub)
{
	struct rv_cm_id *id = rv_cm_id(pub);
	struct rv_cm_channel *ch;
	int rc;

	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_destroy_id, "rdma_destroy_id")(pub));
	if (id->sync && pub->event != NULL) {
		rdma_ack_cm_event(pub->event);
		pub->event = NULL;
	}
	/*
	 * A QP the id still has (rping destroys its ids first) is the program's
	 * from now on, to destroy with ibv_destroy_qp(): librte_roce_cm forgets
	 * it, as the kernel's rdma_cm does.
	 */
	id->raw->qp = NULL;
	rv_cm_id_stop_events(id);
	rc = rte_roce_cm_destroy_id(id->raw);
	rv_cm_hub_unlock();
	if (rc < 0)
		return rv_cm_ret(rc);
	ch = rv_cm_channel(pub->channel);
	rv_cm_channel_detach(ch);
	if (id->sync)
		rv_cm_channel_free(ch);
	free(id->qp_init_attr);
	free(id);
	return 0;
}

int rv_rdma_bind_addr(struct rdma_cm_id *pub, struct sockaddr *addr) ROCE_VERBS_EXPORT(rdma_bind_addr);
int
rv_rdma_bind_addr(struct rdma_cm_id *pub, struct sockaddr *addr)
{
	struct rv_cm_id *id = rv_cm_id(pub);
	int rc;

	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_bind_addr, "rdma_bind_addr")(pub, addr));
	rc = rte_roce_cm_bind_addr(id->raw, addr);
	if (rc == 0)
		rv_cm_id_sync_addr(id);
	return rv_cm_addr_ret(__func__, addr, rc);
}

/* Whether the first bits of a and b, bytes long, are equal. */
static bool
rv_cm_prefix_eq(const uint8_t *a, const uint8_t *b, unsigned int bytes, unsigned int bits)
{
	unsigned int i;

	for (i = 0; i < bytes && bits != 0; i++, bits -= RTE_MIN(bits, 8u)) {
		uint8_t mask = bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - bits));

		if ((a[i] ^ b[i]) & mask)
			return false;
	}
	return true;
}

/*
 * The source address for dst when the program names none, as the kernel's
 * routing would pick it (librte_roce_cm reads no routing table): the
 * configured address (addr lines) whose subnet holds dst, else the first
 * one of dst's family. False if no port has an address of that family.
 */
static bool
rv_cm_pick_src(const struct sockaddr *dst, struct sockaddr_storage *src)
{
	bool v4 = dst->sa_family == AF_INET;
	const union rte_roce_gid *pick = NULL, *a;
	const struct rte_roce_config_port *conf;
	union rte_roce_gid d;
	unsigned int i, j;

	if (v4)
		rte_roce_gid_from_ipv4(&d, ((const struct sockaddr_in *)dst)->sin_addr.s_addr);
	else
		memcpy(d.raw, &((const struct sockaddr_in6 *)dst)->sin6_addr, sizeof(d.raw));
	for (i = 0; i < roce_verbs_dev_count(); i++) {
		conf = roce_verbs_dev_at(i)->conf;
		for (j = 0; j < conf->nb_addrs; j++) {
			a = &conf->addrs[j];
			if (rte_roce_gid_is_ipv4(a) != v4)
				continue;
			if (pick == NULL)
				pick = a;
			if (v4 ? rv_cm_prefix_eq(a->raw + 12, d.raw + 12, 4, conf->prefix_len[j]) :
				 rv_cm_prefix_eq(a->raw, d.raw, 16, conf->prefix_len[j])) {
				pick = a;
				goto found;
			}
		}
	}
	if (pick == NULL)
		return false;
found:
	memset(src, 0, sizeof(*src));
	src->ss_family = dst->sa_family;
	if (v4)
		((struct sockaddr_in *)src)->sin_addr.s_addr = rte_roce_gid_to_ipv4(pick);
	else
		memcpy(&((struct sockaddr_in6 *)src)->sin6_addr, pick->raw, sizeof(pick->raw));
	return true;
}

int rv_rdma_resolve_addr(struct rdma_cm_id *pub, struct sockaddr *src, struct sockaddr *dst,
		    int timeout_ms) ROCE_VERBS_EXPORT(rdma_resolve_addr);
int
rv_rdma_resolve_addr(struct rdma_cm_id *pub, struct sockaddr *src, struct sockaddr *dst,
		int timeout_ms)
{
	struct rv_cm_id *id = rv_cm_id(pub);
	struct sockaddr_storage picked;
	int rc;

	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_resolve_addr, "rdma_resolve_addr")
		       (pub, src, dst, timeout_ms));
	if (src == NULL && pub->verbs == NULL && dst != NULL &&
	    (dst->sa_family == AF_INET || dst->sa_family == AF_INET6) &&
	    rv_cm_pick_src(dst, &picked))
		src = (struct sockaddr *)&picked;
	rc = rte_roce_cm_resolve_addr(id->raw, src, dst, timeout_ms);
	if (rc == 0)
		rv_cm_id_sync_addr(id);
	return rv_cm_sync_complete(id, rv_cm_addr_ret(__func__, src != NULL ? src : dst, rc));
}

int rv_rdma_resolve_route(struct rdma_cm_id *pub, int timeout_ms)
	ROCE_VERBS_EXPORT(rdma_resolve_route);
int
rv_rdma_resolve_route(struct rdma_cm_id *pub, int timeout_ms)
{
	struct rv_cm_id *id = rv_cm_id(pub);

	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_resolve_route, "rdma_resolve_route")
		       (pub, timeout_ms));
	return rv_cm_sync_complete(id, rv_cm_ret(rte_roce_cm_resolve_route(id->raw, timeout_ms)));
}

int rv_rdma_listen(struct rdma_cm_id *pub, int backlog) ROCE_VERBS_EXPORT(rdma_listen);
int
rv_rdma_listen(struct rdma_cm_id *pub, int backlog)
{
	char buf[INET6_ADDRSTRLEN + 16];
	int rc;

	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_listen, "rdma_listen")(pub, backlog));
	rc = rte_roce_cm_listen(rv_cm_id(pub)->raw, backlog);
	rv_cm_id(pub)->listening = rc == 0;
	/* What a launcher waits for before it starts the peer (tests/func/test_rdmacm.py). */
	if (rc == 0)
		RV_LOG(INFO, "id %p listens on %s port %u", (void *)pub,
		       rv_cm_addr_str(&pub->route.addr.src_addr, buf, sizeof(buf)),
		       ntohs(pub->route.addr.src_sin.sin_port));	/* sin6_port is there too */
	return rv_cm_ret(rc);
}

/* rdma_conn_param as librte_roce_cm's (the same fields). */
static void
rv_cm_param(const struct rdma_conn_param *in, struct rte_roce_cm_conn_param *out)
{
	memset(out, 0, sizeof(*out));
	out->private_data = in->private_data;
	out->private_data_len = in->private_data_len;
	out->responder_resources = in->responder_resources;
	out->initiator_depth = in->initiator_depth;
	out->flow_control = in->flow_control;
	out->retry_count = in->retry_count;
	out->rnr_retry_count = in->rnr_retry_count;
	out->srq = in->srq;
	out->qp_num = in->qp_num;
}

int rv_rdma_connect(struct rdma_cm_id *pub, struct rdma_conn_param *conn_param)
	ROCE_VERBS_EXPORT(rdma_connect);
int
rv_rdma_connect(struct rdma_cm_id *pub, struct rdma_conn_param *conn_param)
{
	struct rv_cm_id *id = rv_cm_id(pub);
	struct rte_roce_cm_conn_param param;
	struct ibv_device_attr attr;

	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_connect, "rdma_connect")(pub, conn_param));
	if (conn_param != NULL) {
		rv_cm_param(conn_param, &param);
	} else {
		/* librdmacm's defaults: the device's depths, 7 retries, RNR retry for ever. */
		memset(&param, 0, sizeof(param));
		if (pub->verbs != NULL && ibv_query_device(pub->verbs, &attr) == 0)
			param.responder_resources = param.initiator_depth = attr.max_qp_rd_atom;
		param.retry_count = 7;
		param.rnr_retry_count = 7;
	}
	return rv_cm_sync_complete(id, rv_cm_ret(rte_roce_cm_connect(id->raw, &param)));
}

int rv_rdma_accept(struct rdma_cm_id *pub, struct rdma_conn_param *conn_param)
	ROCE_VERBS_EXPORT(rdma_accept);
int
rv_rdma_accept(struct rdma_cm_id *pub, struct rdma_conn_param *conn_param)
{
	struct rv_cm_id *id = rv_cm_id(pub);
	struct rte_roce_cm_conn_param param;
	int rc;

	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_accept, "rdma_accept")(pub, conn_param));
	if (conn_param != NULL)
		rv_cm_param(conn_param, &param);
	rc = rv_cm_ret(rte_roce_cm_accept(id->raw, conn_param != NULL ? &param : NULL));
	if (pub->qp_type != IBV_QPT_UD)
		return rv_cm_sync_complete(id, rc);
	/*
	 * A UD request is answered by the SIDR_REP alone: no event follows, so
	 * a synchronous id waits for none and lets its request go, as
	 * librdmacm's rdma_accept() (cma.c).
	 */
	if (rc == 0 && id->sync && pub->event != NULL) {
		rdma_ack_cm_event(pub->event);
		pub->event = NULL;
	}
	return rc;
}

int rv_rdma_reject(struct rdma_cm_id *pub, const void *private_data, uint8_t private_data_len)
	ROCE_VERBS_EXPORT(rdma_reject);
int
rv_rdma_reject(struct rdma_cm_id *pub, const void *private_data, uint8_t private_data_len)
{
	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_reject, "rdma_reject")
		       (pub, private_data, private_data_len));
	return rv_cm_ret(rte_roce_cm_reject(rv_cm_id(pub)->raw, private_data, private_data_len));
}

int rv_rdma_disconnect(struct rdma_cm_id *pub) ROCE_VERBS_EXPORT(rdma_disconnect);
int
rv_rdma_disconnect(struct rdma_cm_id *pub)
{
	struct rv_cm_id *id = rv_cm_id(pub);

	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_disconnect, "rdma_disconnect")(pub));
	return rv_cm_sync_complete(id, rv_cm_ret(rte_roce_cm_disconnect(id->raw)));
}

int rv_rdma_establish(struct rdma_cm_id *pub) ROCE_VERBS_EXPORT(rdma_establish);
int
rv_rdma_establish(struct rdma_cm_id *pub)
{
	RV_CM_DISPATCH(pub, ROCE_VERBS_REAL(rv_rdma_establish, "rdma_establish", "RDMACM_1.2")(pub));
	return rv_cm_ret(rte_roce_cm_establish(rv_cm_id(pub)->raw));
}

int rv_rdma_init_qp_attr(struct rdma_cm_id *pub, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
	ROCE_VERBS_EXPORT(rdma_init_qp_attr);
int
rv_rdma_init_qp_attr(struct rdma_cm_id *pub, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	RV_CM_DISPATCH(pub, ROCE_VERBS_REAL(rv_rdma_init_qp_attr, "rdma_init_qp_attr", "RDMACM_1.2")
		       (pub, qp_attr, qp_attr_mask));
	return rv_cm_ret(rte_roce_cm_init_qp_attr(rv_cm_id(pub)->raw, qp_attr, qp_attr_mask));
}

int rv_rdma_migrate_id(struct rdma_cm_id *pub, struct rdma_event_channel *channel)
	ROCE_VERBS_EXPORT(rdma_migrate_id);
int
rv_rdma_migrate_id(struct rdma_cm_id *pub, struct rdma_event_channel *channel)
{
	struct rv_cm_id *id = rv_cm_id(pub);
	struct rv_cm_channel *from, *to = rv_cm_channel(channel);

	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_migrate_id, "rdma_migrate_id")(pub, channel));
	if (channel == NULL) {	/* synchronous from now on: a channel of its own */
		to = rv_cm_channel_new();
		if (to == NULL)
			return -1;
	}
	rv_cm_hub_lock();
	from = rv_cm_channel(pub->channel);
	rv_cm_events_move(id, to);
	pub->channel = &to->pub;
	rv_cm_hub_unlock();
	rv_cm_channel_attach(to);
	rv_cm_channel_detach(from);
	if (id->sync)
		rv_cm_channel_free(from);
	id->sync = channel == NULL;
	return 0;
}

/*
 * rdma_set_option(RDMA_OPTION_ID, ...): librdmacm/cma.c passes the option to
 * the kernel, whose checks these are (drivers/infiniband/core/ucma.c,
 * ucma_set_option_id(), and cma.c): the value's size, then the id's state.
 * 0, or -1 with errno.
 */
static int
rv_cm_opt_fail(int err, const char *why, int optname)
{
	RV_LOG(ERR, "rdma_set_option(RDMA_OPTION_ID, %d): %s", optname, why);
	errno = err;
	return -1;
}

/* TOS: a u8, the traffic class of the id's route (rte_roce_cm_set_tos()). */
static int
rv_cm_opt_tos(struct rv_cm_id *id, const void *optval, size_t optlen)
{
	if (optlen != sizeof(uint8_t))
		return rv_cm_opt_fail(EINVAL, "TOS takes a uint8_t", RDMA_OPTION_ID_TOS);
	return rv_cm_ret(rte_roce_cm_set_tos(id->raw, *(const uint8_t *)optval));
}

/*
 * REUSEADDR: an int; on (any state but listening) or off (before the bind),
 * as rdma_set_reuseaddr(). librte_roce_cm has no timewait on ports (a port
 * is free again once its id is gone), so there is nothing to change.
 */
static int
rv_cm_opt_reuseaddr(struct rv_cm_id *id, const void *optval, size_t optlen)
{
	bool on;

	if (optlen != sizeof(int))
		return rv_cm_opt_fail(EINVAL, "REUSEADDR takes an int", RDMA_OPTION_ID_REUSEADDR);
	on = *(const int *)optval != 0;
	if ((on && id->listening) || (!on && id->pub.verbs != NULL))
		return rv_cm_opt_fail(EINVAL, on ? "REUSEADDR on a listening id" :
				      "REUSEADDR off after the bind", RDMA_OPTION_ID_REUSEADDR);
	return 0;
}

/*
 * AFONLY: an int, before the listen (rdma_set_afonly(): idle or bound).
 * Off is what librte_roce_cm does: an IPv6 wildcard listener takes IPv4
 * requests too. On is refused: it would not be honoured.
 */
static int
rv_cm_opt_afonly(struct rv_cm_id *id, const void *optval, size_t optlen)
{
	if (optlen != sizeof(int))
		return rv_cm_opt_fail(EINVAL, "AFONLY takes an int", RDMA_OPTION_ID_AFONLY);
	if (id->listening)
		return rv_cm_opt_fail(EINVAL, "AFONLY on a listening id", RDMA_OPTION_ID_AFONLY);
	if (*(const int *)optval != 0)
		return rv_cm_opt_fail(EOPNOTSUPP, "AFONLY on: librte_roce_cm's IPv6 wildcard "
				      "listeners take IPv4 requests too", RDMA_OPTION_ID_AFONLY);
	return 0;
}

/* The others (ACK_TIMEOUT, IB paths) are refused with ENOSYS, as an option the kernel lacks. */
int rv_rdma_set_option(struct rdma_cm_id *pub, int level, int optname, void *optval, size_t optlen)
	ROCE_VERBS_EXPORT(rdma_set_option);
int
rv_rdma_set_option(struct rdma_cm_id *pub, int level, int optname, void *optval, size_t optlen)
{
	struct rv_cm_id *id = rv_cm_id(pub);

	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_set_option, "rdma_set_option")
		       (pub, level, optname, optval, optlen));
	if (optval == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (level == RDMA_OPTION_ID && optname == RDMA_OPTION_ID_TOS)
		return rv_cm_opt_tos(id, optval, optlen);
	if (level == RDMA_OPTION_ID && optname == RDMA_OPTION_ID_REUSEADDR)
		return rv_cm_opt_reuseaddr(id, optval, optlen);
	if (level == RDMA_OPTION_ID && optname == RDMA_OPTION_ID_AFONLY)
		return rv_cm_opt_afonly(id, optval, optlen);
	RV_LOG(ERR, "rdma_set_option(level %d, option %d): not supported by librte_roce_cm "
	       "(only RDMA_OPTION_ID TOS, REUSEADDR and AFONLY)", level, optname);
	errno = ENOSYS;
	return -1;
}

/*
 * What the layer does not do on its ids is refused here, saying why, rather
 * than left to the real librdmacm, which would read our id as its own:
 * multicast (mckey: librte_roce_cm joins no group, no IGMP/MLD joins, no
 * multicast QP attach on the wire), an id's SRQ (rdma_create_srq), ECE
 * (a vendor option in REQ and REP that librte_roce_cm does not carry).
 */
static int
rv_cm_refused(const char *call, struct rdma_cm_id *pub, const char *what, int err)
{
	RV_LOG(ERR, "%s(id %p): %s is not supported by librte_roce_cm", call, (void *)pub, what);
	errno = err;
	return -1;
}

static int
rv_cm_multicast_refused(const char *call, struct rdma_cm_id *pub)
{
	return rv_cm_refused(call, pub, "multicast", ENOSYS);
}

int rv_rdma_notify(struct rdma_cm_id *pub, enum ibv_event_type event)
	ROCE_VERBS_EXPORT(rdma_notify);
int
rv_rdma_notify(struct rdma_cm_id *pub, enum ibv_event_type event)
{
	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_notify, "rdma_notify")(pub, event));
	return rv_cm_ret(rte_roce_cm_notify(rv_cm_id(pub)->raw, event));
}

int rv_rdma_create_srq(struct rdma_cm_id *pub, struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
	ROCE_VERBS_EXPORT(rdma_create_srq);
int
rv_rdma_create_srq(struct rdma_cm_id *pub, struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_create_srq, "rdma_create_srq")
		       (pub, pd, attr));
	return rv_cm_refused("rdma_create_srq", pub, "an id's SRQ (use ibv_create_srq)", ENOSYS);
}

int rv_rdma_create_srq_ex(struct rdma_cm_id *pub, struct ibv_srq_init_attr_ex *attr)
	ROCE_VERBS_EXPORT(rdma_create_srq_ex);
int
rv_rdma_create_srq_ex(struct rdma_cm_id *pub, struct ibv_srq_init_attr_ex *attr)
{
	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_create_srq_ex, "rdma_create_srq_ex")
		       (pub, attr));
	return rv_cm_refused("rdma_create_srq_ex", pub, "an id's SRQ (use ibv_create_srq)",
			     ENOSYS);
}

void rv_rdma_destroy_srq(struct rdma_cm_id *pub) ROCE_VERBS_EXPORT(rdma_destroy_srq);
void
rv_rdma_destroy_srq(struct rdma_cm_id *pub)
{
	if (!rv_cm_ours()) {
		ROCE_VERBS_CM_REAL(rv_rdma_destroy_srq, "rdma_destroy_srq")(pub);
		return;
	}
	rv_cm_refused("rdma_destroy_srq", pub, "an id's SRQ", ENOSYS);
}

int rv_rdma_set_local_ece(struct rdma_cm_id *pub, struct ibv_ece *ece)
	ROCE_VERBS_EXPORT(rdma_set_local_ece);
int
rv_rdma_set_local_ece(struct rdma_cm_id *pub, struct ibv_ece *ece)
{
	RV_CM_DISPATCH(pub, ROCE_VERBS_REAL(rv_rdma_set_local_ece, "rdma_set_local_ece",
					    "RDMACM_1.3")(pub, ece));
	return rv_cm_refused("rdma_set_local_ece", pub, "ECE", EOPNOTSUPP);
}

int rv_rdma_get_remote_ece(struct rdma_cm_id *pub, struct ibv_ece *ece)
	ROCE_VERBS_EXPORT(rdma_get_remote_ece);
int
rv_rdma_get_remote_ece(struct rdma_cm_id *pub, struct ibv_ece *ece)
{
	RV_CM_DISPATCH(pub, ROCE_VERBS_REAL(rv_rdma_get_remote_ece, "rdma_get_remote_ece",
					    "RDMACM_1.3")(pub, ece));
	return rv_cm_refused("rdma_get_remote_ece", pub, "ECE", EOPNOTSUPP);
}

int rv_rdma_reject_ece(struct rdma_cm_id *pub, const void *private_data, uint8_t private_data_len)
	ROCE_VERBS_EXPORT(rdma_reject_ece);
int
rv_rdma_reject_ece(struct rdma_cm_id *pub, const void *private_data, uint8_t private_data_len)
{
	RV_CM_DISPATCH(pub, ROCE_VERBS_REAL(rv_rdma_reject_ece, "rdma_reject_ece", "RDMACM_1.3")
		       (pub, private_data, private_data_len));
	return rv_cm_refused("rdma_reject_ece", pub, "ECE", EOPNOTSUPP);
}

int rv_rdma_join_multicast(struct rdma_cm_id *pub, struct sockaddr *addr, void *context)
	ROCE_VERBS_EXPORT(rdma_join_multicast);
int
rv_rdma_join_multicast(struct rdma_cm_id *pub, struct sockaddr *addr, void *context)
{
	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_join_multicast, "rdma_join_multicast")
		       (pub, addr, context));
	return rv_cm_multicast_refused("rdma_join_multicast", pub);
}

int rv_rdma_join_multicast_ex(struct rdma_cm_id *pub, struct rdma_cm_join_mc_attr_ex *attr,
			      void *context) ROCE_VERBS_EXPORT(rdma_join_multicast_ex);
int
rv_rdma_join_multicast_ex(struct rdma_cm_id *pub, struct rdma_cm_join_mc_attr_ex *attr,
			  void *context)
{
	RV_CM_DISPATCH(pub, ROCE_VERBS_REAL(rv_rdma_join_multicast_ex, "rdma_join_multicast_ex",
					    "RDMACM_1.1")(pub, attr, context));
	return rv_cm_multicast_refused("rdma_join_multicast_ex", pub);
}

int rv_rdma_leave_multicast(struct rdma_cm_id *pub, struct sockaddr *addr)
	ROCE_VERBS_EXPORT(rdma_leave_multicast);
int
rv_rdma_leave_multicast(struct rdma_cm_id *pub, struct sockaddr *addr)
{
	RV_CM_DISPATCH(pub, ROCE_VERBS_CM_REAL(rv_rdma_leave_multicast, "rdma_leave_multicast")
		       (pub, addr));
	return rv_cm_multicast_refused("rdma_leave_multicast", pub);
}
