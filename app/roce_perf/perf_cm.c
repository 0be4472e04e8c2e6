/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * -R: perftest's rdma_cm mode on librte_roce_cm (PT = perftest v4.5-0.17,
 * src/perftest_communication.c), so that `ib_write_bw -R` and the rest
 * connect to us and we to them:
 *
 * - The exchange (versions, MTU, key records, reports, syncs) runs over an
 *   RC QP of its own, connected through rdma_cm on the -p port:
 *   rdma_server_connect() listens, accepts the first request with a
 *   receive posted and drops the listener; rdma_client_connect() resolves
 *   the address and route, posts a receive and connects. Each step of the
 *   exchange is one signalled SEND of the step's size into the peer's one
 *   posted receive (rdma_write_data()/rdma_read_data(), rdma_write_keys()).
 *   No private data besides rdma_cm's header: perftest's conn_param has
 *   none, and rdma_getaddrinfo()'s ai_connect is empty for AF_INET.
 * - The test's QPs are connected by rdma_cm too, between two syncs
 *   (create_rdma_cm_connection()): the server listens on the same port
 *   (rdma_cm_server_connection(), backlog -q) and makes QP k for the k-th
 *   request; the client resolves -q ids and makes QP k for the k-th route
 *   resolved, connecting it at once (rdma_cm_route_handler()). Responder
 *   resources and initiator depth are offered for READ and atomics only,
 *   retry and RNR retry counts 7. A client whose requests are rejected
 *   (the server not listening yet) starts again after 100 ms, as
 *   rdma_cm_client_connection() does, until PERF_CM_CONNECT_S.
 * - No "done" at the end (ctx_close_connection()); the client disconnects
 *   the test's QPs (rdma_cm_disconnect_nodes()).
 *
 * One thread drives the device (rte_roce_poll()) and the CM
 * (rte_roce_cm_poll()) in every wait here; the test loops do not poll the
 * CM.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>

#include <rte_roce_cm.h>
#include <rte_roce_verbs.h>

#include "perf.h"
#include "pp_oob.h"
#include "pp_port.h"

#define PERF_CM_RESOLVE_MS 2000		/* perftest's rdma_resolve_addr/route timeouts */
#define PERF_CM_CONNECT_S 30		/* give up connecting after this long */
#define PERF_CM_RETRY_MS 100		/* between two tries (rdma_cm_client_connection()) */
#define PERF_CM_STEP_S 30		/* one step of the exchange, as PERF_OOB_TIMEOUT_MS */
#define PERF_CM_CLOSE_MS 2000		/* wait for DISCONNECTED at most */
#define PERF_CM_XCHG_DEPTH 2

/* One connection: the exchange's or a test QP's. */
struct perf_cm_conn {
	struct rte_roce_cm_id *id;
	uint32_t q;		/* test QPs: the QP's index (the order of the requests) */
	bool established;
	bool disconnected;
};

enum perf_cm_buf { PERF_CM_TX, PERF_CM_RX, PERF_CM_NB_BUF };

struct perf_cm {
	const struct perf_opts *o;
	struct perf_side *s;
	struct rte_roce_cm *cm;
	struct rte_roce_cm_channel *ch;
	struct rte_roce_cm_id *listen;
	struct sockaddr_storage local, peer;
	/* the exchange */
	struct perf_cm_conn xchg;
	struct ibv_cq *xcq[PERF_CM_NB_BUF];
	struct ibv_mr *xmr;
	uint8_t xbuf[PERF_CM_NB_BUF][PERF_CM_MSG_MAX];
	bool rx_pending;	/* a receive completed, not read yet (perf_cm_readable()) */
	struct ibv_wc rx_wc;
	/* the test's QPs */
	struct perf_cm_conn data[PERF_QPS_MAX];
	uint32_t nb_data;	/* QPs made so far */
	uint32_t nb_established;
	/* the first error event while connecting: its name and status */
	const char *failed_event;
	int failed_status;
};

static void
perf_cm_fail(struct perf_cm *cm, const struct rte_roce_cm_event *ev, int status)
{
	if (cm->failed_event != NULL)
		return;
	cm->failed_event = rte_roce_cm_event_str(ev->event);
	cm->failed_status = status;
}

/* The exchange QP: a receive posted before connect or accept, as perftest does. */
static int
perf_cm_xchg_qp(struct perf_cm *cm, struct rte_roce_cm_id *id)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cm->xcq[PERF_CM_TX],
		.recv_cq = cm->xcq[PERF_CM_RX],
		.cap = { .max_send_wr = PERF_CM_XCHG_DEPTH, .max_recv_wr = PERF_CM_XCHG_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_sge sge = { .addr = (uintptr_t)cm->xbuf[PERF_CM_RX], .length = PERF_CM_MSG_MAX,
			       .lkey = cm->xmr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int ret;

	ret = rte_roce_cm_create_qp(id, cm->s->pd, &ia);
	if (ret == 0)
		ret = rte_roce_post_recv(id->qp, &wr, &bad);
	if (ret != 0)
		fprintf(stderr, "roce_perf: -R: the exchange QP: %s\n", strerror(-ret));
	return ret;
}

/* Test QP number cm->nb_data, made by the id that connects it. */
static int
perf_cm_data_qp(struct perf_cm *cm, struct perf_cm_conn *c)
{
	struct perf_side *s = cm->s;
	struct ibv_qp_init_attr ia;
	int ret;

	c->q = cm->nb_data;
	perf_side_qp_init_attr(s, cm->o, c->q, &ia);
	ret = rte_roce_cm_create_qp(c->id, s->pd, &ia);
	if (ret != 0) {
		fprintf(stderr, "roce_perf: -R: QP %u: %s\n", c->q, strerror(-ret));
		return ret;
	}
	s->qp[c->q] = c->id->qp;
	perf_side_set_dest(s, c->q);
	cm->nb_data++;
	return 0;
}

/* perftest's conn_param: depths for READ and atomics only, retries 7. */
static struct rte_roce_cm_conn_param
perf_cm_param(const struct perf_cm *cm, bool data)
{
	bool reads = data && cm->o->test != PERF_TEST_WRITE && cm->o->test != PERF_TEST_SEND;

	return (struct rte_roce_cm_conn_param){
		.responder_resources = reads ? PERF_RD_ATOMIC : 0,
		.initiator_depth = reads ? PERF_RD_ATOMIC : 0,
		.retry_count = PERF_RETRY,
		.rnr_retry_count = PERF_RNR_RETRY,
	};
}

/* ROUTE_RESOLVED (client): the QP, then the REQ. */
static int
perf_cm_route(struct perf_cm *cm, struct perf_cm_conn *c)
{
	bool data = c != &cm->xchg;
	struct rte_roce_cm_conn_param p = perf_cm_param(cm, data);
	int ret;

	ret = data ? perf_cm_data_qp(cm, c) : perf_cm_xchg_qp(cm, c->id);
	return ret != 0 ? ret : rte_roce_cm_connect(c->id, &p);
}

/*
 * CONNECT_REQUEST (server): the exchange's first, then -q test QPs. Any
 * more is rejected and handed back in *extra, to be destroyed once its
 * event is acknowledged.
 */
static int
perf_cm_request(struct perf_cm *cm, struct rte_roce_cm_id *id, struct rte_roce_cm_id **extra)
{
	bool data = cm->xchg.id != NULL;
	struct rte_roce_cm_conn_param p = perf_cm_param(cm, data);
	struct perf_cm_conn *c;
	int ret;

	if (data && cm->nb_data == cm->o->qps) {
		*extra = id;
		return rte_roce_cm_reject(id, NULL, 0);
	}
	c = data ? &cm->data[cm->nb_data] : &cm->xchg;
	c->id = id;
	id->context = c;
	ret = data ? perf_cm_data_qp(cm, c) : perf_cm_xchg_qp(cm, id);
	return ret != 0 ? ret : rte_roce_cm_accept(id, &p);
}

/* One event; an id to destroy once the event is acknowledged in *extra. */
static void
perf_cm_event(struct perf_cm *cm, const struct rte_roce_cm_event *ev,
	      struct rte_roce_cm_id **extra)
{
	struct perf_cm_conn *c = ev->id->context;
	int ret = 0;

	switch (ev->event) {
	case RTE_ROCE_CM_EVENT_ADDR_RESOLVED:
		ret = rte_roce_cm_resolve_route(ev->id, PERF_CM_RESOLVE_MS);
		break;
	case RTE_ROCE_CM_EVENT_ROUTE_RESOLVED:
		ret = perf_cm_route(cm, c);
		break;
	case RTE_ROCE_CM_EVENT_CONNECT_REQUEST:
		ret = perf_cm_request(cm, ev->id, extra);
		break;
	case RTE_ROCE_CM_EVENT_ESTABLISHED:
		c->established = true;
		cm->nb_established += c != &cm->xchg;
		break;
	case RTE_ROCE_CM_EVENT_DISCONNECTED:
		c->disconnected = true;
		break;
	case RTE_ROCE_CM_EVENT_ADDR_ERROR:
	case RTE_ROCE_CM_EVENT_ROUTE_ERROR:
	case RTE_ROCE_CM_EVENT_CONNECT_ERROR:
	case RTE_ROCE_CM_EVENT_UNREACHABLE:
	case RTE_ROCE_CM_EVENT_REJECTED:
		perf_cm_fail(cm, ev, ev->status);
		break;
	default:
		break;
	}
	if (ret != 0)
		perf_cm_fail(cm, ev, ret);
}

static void
perf_cm_progress(struct perf_cm *cm)
{
	struct rte_roce_cm_id *extra;
	struct rte_roce_cm_event *ev;

	rte_roce_poll(cm->s->ctx);
	rte_roce_cm_poll(cm->cm);
	while (rte_roce_cm_get_cm_event(cm->ch, &ev) == 0) {
		extra = NULL;
		perf_cm_event(cm, ev, &extra);
		rte_roce_cm_ack_cm_event(ev);
		if (extra != NULL)
			rte_roce_cm_destroy_id(extra);
	}
}

/* Drive everything until done(cm) or an error event: 0, -ECONNREFUSED, -ETIMEDOUT or -EINTR. */
static int
perf_cm_wait(struct perf_cm *cm, bool (*done)(const struct perf_cm *cm), uint64_t timeout_ms)
{
	uint64_t end = pp_now_ms() + timeout_ms;

	while (!done(cm)) {
		if (cm->failed_event != NULL)
			return -ECONNREFUSED;
		if (pp_stop_requested)
			return -EINTR;
		if (pp_now_ms() > end)
			return -ETIMEDOUT;
		perf_cm_progress(cm);
	}
	return 0;
}

static bool
perf_cm_xchg_requested(const struct perf_cm *cm)
{
	return cm->xchg.id != NULL;
}

static bool
perf_cm_xchg_established(const struct perf_cm *cm)
{
	return cm->xchg.established;
}

static bool
perf_cm_data_established(const struct perf_cm *cm)
{
	return cm->nb_established == cm->o->qps;
}

static bool
perf_cm_never(const struct perf_cm *cm)
{
	RTE_SET_USED(cm);
	return false;
}

/* An id gone, with its QP (a test QP's slot in the side emptied). */
static void
perf_cm_conn_destroy(struct perf_cm *cm, struct perf_cm_conn *c)
{
	if (c->id == NULL)
		return;
	if (c->id->qp != NULL) {
		if (c != &cm->xchg)
			cm->s->qp[c->q] = NULL;
		rte_roce_cm_destroy_qp(c->id);
	}
	rte_roce_cm_destroy_id(c->id);
	*c = (struct perf_cm_conn){ 0 };
}

static int
perf_cm_listen(struct perf_cm *cm, int backlog)
{
	int ret = rte_roce_cm_create_id(cm->ch, &cm->listen, NULL, RTE_ROCE_CM_PS_TCP);

	if (ret == 0)
		ret = rte_roce_cm_bind_addr(cm->listen, (struct sockaddr *)&cm->local);
	if (ret == 0)
		ret = rte_roce_cm_listen(cm->listen, backlog);
	if (ret != 0)
		fprintf(stderr, "roce_perf: -R: listen on port %u: %s\n", cm->o->tcp_port,
			strerror(-ret));
	return ret;
}

static void
perf_cm_unlisten(struct perf_cm *cm)
{
	perf_cm_progress(cm);	/* its events acknowledged */
	if (cm->listen != NULL)
		rte_roce_cm_destroy_id(cm->listen);
	cm->listen = NULL;
}

/*
 * Client: resolve and connect the nb connections conns[] (each made on
 * ADDR_RESOLVED and ROUTE_RESOLVED) until done(cm); a try that fails is
 * undone and made again PERF_CM_RETRY_MS later, until PERF_CM_CONNECT_S.
 */
static int
perf_cm_dial(struct perf_cm *cm, struct perf_cm_conn *conns, uint32_t nb,
	     bool (*done)(const struct perf_cm *cm))
{
	uint64_t end = pp_now_ms() + PERF_CM_CONNECT_S * 1000ull;
	uint32_t i;
	int ret;

	do {
		cm->failed_event = NULL;
		cm->nb_data = 0;
		cm->nb_established = 0;
		for (i = 0, ret = 0; i < nb && ret == 0; i++) {
			ret = rte_roce_cm_create_id(cm->ch, &conns[i].id, &conns[i],
						    RTE_ROCE_CM_PS_TCP);
			if (ret == 0)
				ret = rte_roce_cm_resolve_addr(conns[i].id,
							       (struct sockaddr *)&cm->local,
							       (struct sockaddr *)&cm->peer,
							       PERF_CM_RESOLVE_MS);
		}
		if (ret == 0)
			ret = perf_cm_wait(cm, done, PERF_CM_CONNECT_S * 1000ull);
		if (ret != -ECONNREFUSED)
			break;
		for (i = 0; i < nb; i++)
			perf_cm_conn_destroy(cm, &conns[i]);
		perf_cm_wait(cm, perf_cm_never, PERF_CM_RETRY_MS);
	} while (!pp_stop_requested && pp_now_ms() < end);
	if (ret == -ECONNREFUSED)
		fprintf(stderr, "roce_perf: -R: %s, status %d\n", cm->failed_event,
			cm->failed_status);
	else if (ret != 0)
		fprintf(stderr, "roce_perf: -R: connecting: %s\n", strerror(-ret));
	return ret;
}

static int
perf_cm_addrs(struct perf_cm *cm)
{
	union rte_roce_gid gid;
	const char *why;

	memcpy(gid.raw, cm->s->gid.raw, sizeof(gid.raw));
	pp_gid_sockaddr(&gid, cm->o->tcp_port, &cm->local);
	if (cm->o->server == NULL ||
	    pp_parse_sockaddr(cm->o->server, cm->o->tcp_port, &cm->peer, &why) == 0)
		return 0;
	fprintf(stderr, "roce_perf: -R: server address %s: %s (give its RoCE address)\n",
		cm->o->server, why);
	return -EINVAL;
}

int
perf_cm_open(struct perf_side *s, const struct perf_opts *o, struct perf_cm **cmp)
{
	struct perf_cm *cm = calloc(1, sizeof(*cm));
	enum perf_cm_buf b;
	int ret;

	*cmp = cm;
	if (cm == NULL)
		return -ENOMEM;
	cm->o = o;
	cm->s = s;
	ret = perf_cm_addrs(cm);
	if (ret != 0)
		return ret;
	cm->cm = rte_roce_cm_open(s->ctx, NULL);
	cm->ch = rte_roce_cm_create_event_channel();
	cm->xmr = rte_roce_reg_mr(s->pd, cm->xbuf, sizeof(cm->xbuf), IBV_ACCESS_LOCAL_WRITE);
	for (b = 0; b < PERF_CM_NB_BUF; b++)
		cm->xcq[b] = rte_roce_create_cq(s->ctx, PERF_CM_XCHG_DEPTH, NULL, NULL, 0);
	if (cm->cm == NULL || cm->ch == NULL || cm->xmr == NULL || cm->xcq[PERF_CM_TX] == NULL ||
	    cm->xcq[PERF_CM_RX] == NULL) {
		fprintf(stderr, "roce_perf: -R: %s\n", rte_strerror(rte_errno));
		return -rte_errno;
	}
	if (o->server != NULL)
		return perf_cm_dial(cm, &cm->xchg, 1, perf_cm_xchg_established);
	/* rdma_server_connect(): the first request is the exchange's; no wait for its RTU */
	ret = perf_cm_listen(cm, o->qps);
	if (ret == 0) {
		/* what perftest's "Waiting for client to connect..." says, for scripts */
		fprintf(stderr, "roce_perf: -R: listening on port %u\n", o->tcp_port);
		ret = perf_cm_wait(cm, perf_cm_xchg_requested, UINT64_MAX / 2);
	}
	perf_cm_unlisten(cm);
	if (ret != 0)
		fprintf(stderr, "roce_perf: -R: waiting for the client: %s\n",
			cm->failed_event != NULL ? cm->failed_event : strerror(-ret));
	return ret;
}

/*
 * After the records: QP q's peer must be the QP whose record came q-th, as
 * perftest pairs them by order (its k-th request, its k-th record).
 */
int
perf_cm_check(struct perf_cm *cm)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	uint32_t q;

	for (q = 0; q < cm->o->qps; q++) {
		if (rte_roce_query_qp(cm->s->qp[q], &a, IBV_QP_DEST_QPN, &init) != 0)
			return -EIO;
		if (a.dest_qp_num != cm->s->remote[q].qpn) {
			fprintf(stderr, "roce_perf: -R: QP %u is connected to QPN 0x%x, but the "
				"peer's record %u names 0x%x\n", q, a.dest_qp_num, q,
				cm->s->remote[q].qpn);
			return -EPROTO;
		}
	}
	return 0;
}

int
perf_cm_connect_qps(struct perf_cm *cm, struct perf_oob *oob)
{
	int ret = perf_oob_sync(oob);

	if (ret == 0 && cm->o->server != NULL) {
		ret = perf_cm_dial(cm, cm->data, cm->o->qps, perf_cm_data_established);
	} else if (ret == 0) {
		ret = perf_cm_listen(cm, cm->o->qps);
		if (ret == 0)
			ret = perf_cm_wait(cm, perf_cm_data_established,
					   PERF_CM_CONNECT_S * 1000ull);
		perf_cm_unlisten(cm);
		if (ret != 0)
			fprintf(stderr, "roce_perf: -R: %u of %u QPs connected: %s\n",
				cm->nb_established, cm->o->qps,
				cm->failed_event != NULL ? cm->failed_event : strerror(-ret));
	}
	return ret == 0 ? perf_oob_sync(oob) : ret;
}

static bool
perf_cm_all_disconnected(const struct perf_cm *cm)
{
	uint32_t q;

	for (q = 0; q < PERF_QPS_MAX; q++)
		if (cm->data[q].established && !cm->data[q].disconnected)
			return false;
	return !cm->xchg.established || cm->xchg.disconnected;
}

static void
perf_cm_disconnect(struct perf_cm_conn *c)
{
	/* an id the peer disconnected first is in timewait already: -EINVAL, nothing to do */
	if (c->established && !c->disconnected && rte_roce_cm_disconnect(c->id) != 0)
		c->disconnected = true;
}

void
perf_cm_close(struct perf_cm *cm)
{
	enum perf_cm_buf b;
	uint32_t q;

	if (cm == NULL)
		return;
	if (cm->cm != NULL && cm->ch != NULL) {
		for (q = 0; q < PERF_QPS_MAX; q++)
			perf_cm_disconnect(&cm->data[q]);
		perf_cm_disconnect(&cm->xchg);
		perf_cm_wait(cm, perf_cm_all_disconnected, PERF_CM_CLOSE_MS);
		perf_cm_unlisten(cm);
	}
	for (q = 0; q < PERF_QPS_MAX; q++)
		perf_cm_conn_destroy(cm, &cm->data[q]);
	perf_cm_conn_destroy(cm, &cm->xchg);
	for (b = 0; b < PERF_CM_NB_BUF; b++)
		if (cm->xcq[b] != NULL)
			rte_roce_destroy_cq(cm->xcq[b]);
	if (cm->xmr != NULL)
		rte_roce_dereg_mr(cm->xmr);
	if (cm->ch != NULL)
		rte_roce_cm_destroy_event_channel(cm->ch);
	if (cm->cm != NULL)
		rte_roce_cm_close(cm->cm);
	free(cm);
}

/* ---- the exchange: one SEND per step ---- */

/* One completion of the exchange's CQ b, driving the device and the CM meanwhile. */
static int
perf_cm_xchg_wc(struct perf_cm *cm, enum perf_cm_buf b, struct ibv_wc *wc)
{
	uint64_t end = pp_now_ms() + PERF_CM_STEP_S * 1000ull;
	int n;

	while ((n = rte_roce_poll_cq(cm->xcq[b], 1, wc)) == 0) {
		if (pp_stop_requested)
			return -EINTR;
		/* as the end of file of the TCP exchange */
		if (cm->xchg.disconnected) {
			fprintf(stderr, "roce_perf: -R: the peer disconnected the exchange\n");
			return -ENOTCONN;
		}
		if (pp_now_ms() > end) {
			fprintf(stderr, "roce_perf: -R: the peer said nothing for %u s\n",
				PERF_CM_STEP_S);
			return -ETIMEDOUT;
		}
		perf_cm_progress(cm);
	}
	return n < 0 ? n : perf_wc_check(wc, "-R: the exchange QP");
}

int
perf_cm_send(struct perf_cm *cm, const void *buf, size_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)cm->xbuf[PERF_CM_TX], .length = (uint32_t)len,
			       .lkey = cm->xmr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	int ret;

	if (len > PERF_CM_MSG_MAX)
		return -EMSGSIZE;
	memcpy(cm->xbuf[PERF_CM_TX], buf, len);
	ret = rte_roce_post_send(cm->xchg.id->qp, &wr, &bad);
	return ret != 0 ? ret : perf_cm_xchg_wc(cm, PERF_CM_TX, &wc);
}

int
perf_cm_recv(struct perf_cm *cm, void *buf, size_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)cm->xbuf[PERF_CM_RX], .length = PERF_CM_MSG_MAX,
			       .lkey = cm->xmr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int ret = 0;

	if (!cm->rx_pending)
		ret = perf_cm_xchg_wc(cm, PERF_CM_RX, &cm->rx_wc);
	cm->rx_pending = false;
	if (ret != 0)
		return ret;
	/* lockstep and fixed-size: any other length means the two sides disagree */
	if (cm->rx_wc.byte_len != len) {
		fprintf(stderr, "roce_perf: -R: the peer sent %u bytes where the exchange has %zu\n",
			cm->rx_wc.byte_len, len);
		return -EPROTO;
	}
	memcpy(buf, cm->xbuf[PERF_CM_RX], len);
	return rte_roce_post_recv(cm->xchg.id->qp, &wr, &bad);
}

/*
 * A message waiting, or the exchange disconnected (the peer is gone: what
 * the end of file says over TCP; a write_lat client sends nothing at the
 * end, so its disconnect is what ends our server). The CM is polled here:
 * the server's loop asks a few times a second.
 */
int
perf_cm_readable(struct perf_cm *cm)
{
	int n;

	if (cm->rx_pending)
		return 1;
	n = rte_roce_poll_cq(cm->xcq[PERF_CM_RX], 1, &cm->rx_wc);
	if (n < 0)
		return n;
	cm->rx_pending = n == 1;
	if (n == 0)
		perf_cm_progress(cm);
	return n == 1 || cm->xchg.disconnected;
}
