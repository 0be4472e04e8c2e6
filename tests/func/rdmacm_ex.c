/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The drop-in librdmacm's calls around a connection (doc/verbs-abi.md,
 * "librdmacm"), each as rdma-core 44's librdmacm answers it
 * (librdmacm/cma.c, librdmacm/addrinfo.c, and the kernel's checks of the
 * options behind rdma_set_option()), and their misuse. A plain librdmacm
 * program run under roce-run by test_verbs_misuse.py with two net_ring
 * devices: roce0 at 198.18.0.1 receives what it sends, so a listener and a
 * client of this one process connect to each other. TAP output. Checks:
 * - a connection whose client set RDMA_OPTION_ID_TOS: both QPs' GRH carry
 *   the traffic class; the client's QP, made by rdma_create_qp_ex() with
 *   send_ops_flags, sends with ibv_wr_*; ports and addresses read back on
 *   both ids; rdma_disconnect() after the peer's DREQ, and a second time,
 *   returns 0; on an id that never connected, EINVAL;
 * - rdma_set_option()'s value sizes and id states; rdma_create_qp() on an
 *   id that has a QP; XRC QPs and TSO refused;
 * - rdma_get_devices(); rdma_getaddrinfo() as rdma_server, rdma_client,
 *   rdma_xserver and rdma_xclient call it; rdma_event_str(); rsocket()
 *   refused.
 */

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "roce_test_ok.h"

#define ADDR "198.18.0.1"
#define PORT 7990
#define TOS 0x28		/* DSCP AF11 */
#define WAIT_MS 10000
#define MSG "sent with ibv_wr_send through rdma_create_qp_ex"

static uint16_t
port_of(const struct sockaddr *sa)
{
	return ((const struct sockaddr_in *)sa)->sin_port;
}

/*
 * The next event of type, TIMEWAIT_EXIT skipped: its id (acknowledged), or
 * NULL when another came or none within WAIT_MS.
 */
static struct rdma_cm_id *
expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	enum rdma_cm_event_type got;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	do {
		if (poll(&pfd, 1, WAIT_MS) != 1 || rdma_get_cm_event(ch, &ev) != 0)
			return NULL;
		got = ev->event;
		id = got == type ? ev->id : NULL;
		if (id == NULL && got != RDMA_CM_EVENT_TIMEWAIT_EXIT)
			printf("# %s, status %d\n", rdma_event_str(got), ev->status);
		rdma_ack_cm_event(ev);
	} while (id == NULL && got == RDMA_CM_EVENT_TIMEWAIT_EXIT);
	return id;
}

/* Two events of type, one for a and one for b, in either order. */
static bool
expect_both(struct rdma_event_channel *ch, enum rdma_cm_event_type type, struct rdma_cm_id *a,
	    struct rdma_cm_id *b)
{
	struct rdma_cm_id *first = expect(ch, type), *second = expect(ch, type);

	return (first == a && second == b) || (first == b && second == a);
}

/* One completion of cq within WAIT_MS (ibv_poll_cq() makes the layer's progress). */
static bool
poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (ibv_poll_cq(cq, 1, wc) == 1)
			return wc->status == IBV_WC_SUCCESS;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < WAIT_MS);
	return false;
}

static uint8_t
grh_tclass(struct ibv_qp *qp)
{
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;

	if (ibv_query_qp(qp, &qa, IBV_QP_AV, &qi) != 0)
		return 0;
	return qa.ah_attr.grh.traffic_class;
}

/* The client's connection: TOS, an extended QP of rdma_create_qp_ex(); NULL on failure. */
static struct rdma_cm_id *
client_connect(struct rdma_event_channel *ch)
{
	struct ibv_qp_init_attr_ex ax = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = sizeof(MSG) },
		.comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct rdma_conn_param param = { .retry_count = 7, .rnr_retry_count = 7 };
	struct sockaddr_in dst = ok_sin(ADDR, PORT);
	uint8_t tos = TOS;
	struct rdma_cm_id *cid;

	if (rdma_create_id(ch, &cid, NULL, RDMA_PS_TCP) != 0)
		return NULL;
	ok(rdma_set_option(cid, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)) == 0,
	   "rdma_set_option(TOS) before the route: accepted");
	ok(rdma_resolve_addr(cid, NULL, (struct sockaddr *)&dst, 2000) == 0 &&
	   expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED) == cid &&
	   rdma_resolve_route(cid, 2000) == 0 && expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED) == cid,
	   "client: address and route resolved");
	ok(rdma_create_qp_ex(cid, &ax) == 0 && cid->qp != NULL && cid->pd != NULL &&
	   ibv_qp_to_qp_ex(cid->qp) != NULL,
	   "rdma_create_qp_ex with send_ops_flags and no PD: the default PD, an extended QP");
	ok(rdma_connect(cid, &param) == 0, "client: rdma_connect");
	return cid;
}

/* The server's side: the request, a QP, a receive posted, accepted. */
static struct rdma_cm_id *
server_accept(struct rdma_event_channel *ch, char *buf, size_t len, struct ibv_mr **mr)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_conn_param param = { .retry_count = 7, .rnr_retry_count = 7 };
	struct ibv_recv_wr wr = { .wr_id = 2, .num_sge = 1 }, *bad;
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = (uint32_t)len };
	struct rdma_cm_id *sid = expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST);

	if (sid == NULL || rdma_create_qp(sid, NULL, &attr) != 0)
		return NULL;
	*mr = ibv_reg_mr(sid->pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (*mr == NULL)
		return NULL;
	sge.lkey = (*mr)->lkey;
	wr.sg_list = &sge;
	if (ibv_post_recv(sid->qp, &wr, &bad) != 0 || rdma_accept(sid, &param) != 0)
		return NULL;
	return sid;
}

/* ibv_wr_* on the client's QP: one inline SEND, received by the server. */
static void
send_wr(struct rdma_cm_id *cid, struct rdma_cm_id *sid, const char *buf)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(cid->qp);
	struct ibv_wc wc;

	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, MSG, sizeof(MSG));
	ok(ibv_wr_complete(qpx) == 0 && poll_one(cid->send_cq, &wc) && wc.wr_id == 1,
	   "client: ibv_wr_send completes");
	ok(poll_one(sid->recv_cq, &wc) && wc.byte_len == sizeof(MSG) &&
	   memcmp(buf, MSG, sizeof(MSG)) == 0, "server: the message arrived");
}

static void
case_connection(struct rdma_event_channel *ch)
{
	struct ibv_qp_init_attr attr = { .qp_type = IBV_QPT_RC, .cap = { .max_send_wr = 1 } };
	struct sockaddr_in sa = ok_sin(ADDR, PORT);
	struct rdma_cm_id *lid, *cid, *sid;
	struct ibv_mr *mr = NULL;
	char buf[64] = "";
	int one = 1;

	if (rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP) != 0 ||
	    rdma_bind_addr(lid, (struct sockaddr *)&sa) != 0 || rdma_listen(lid, 4) != 0) {
		ok(false, "a listener");
		return;
	}
	ok(rdma_set_option(lid, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)) == -1 &&
	   errno == EINVAL, "REUSEADDR on a listening id: EINVAL");
	ok(rdma_set_option(lid, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one, sizeof(one)) == -1 &&
	   errno == EINVAL, "AFONLY on a listening id: EINVAL");
	cid = client_connect(ch);
	sid = cid != NULL ? server_accept(ch, buf, sizeof(buf), &mr) : NULL;
	if (sid == NULL || !expect_both(ch, RDMA_CM_EVENT_ESTABLISHED, cid, sid)) {
		ok(false, "connected");
		return;
	}
	ok(grh_tclass(cid->qp) == TOS && grh_tclass(sid->qp) == TOS,
	   "the client's TOS is both QPs' GRH traffic class (the server's from the REQ)");
	ok(rdma_get_src_port(cid) == port_of(rdma_get_local_addr(cid)) &&
	   rdma_get_src_port(cid) != 0 && rdma_get_dst_port(cid) == htons(PORT) &&
	   rdma_get_src_port(sid) == htons(PORT) &&
	   rdma_get_dst_port(sid) == rdma_get_src_port(cid) &&
	   port_of(rdma_get_peer_addr(sid)) == rdma_get_src_port(cid),
	   "rdma_get_src_port/dst_port and local/peer addresses on both ids");
	send_wr(cid, sid, buf);
	ok(rdma_create_qp(sid, NULL, &attr) == -1 && errno == EINVAL,
	   "rdma_create_qp on an id that has a QP: EINVAL");
	ok(rdma_disconnect(cid) == 0 && expect_both(ch, RDMA_CM_EVENT_DISCONNECTED, cid, sid),
	   "client disconnects: DISCONNECTED on both ids");
	ok(rdma_disconnect(sid) == 0, "rdma_disconnect after the peer's DREQ: 0, as librdmacm");
	ok(rdma_disconnect(cid) == 0, "rdma_disconnect a second time: 0");
	ok(rdma_disconnect(lid) == -1 && errno == EINVAL,
	   "rdma_disconnect of an id that never connected: EINVAL");
	ibv_dereg_mr(mr);
	rdma_destroy_qp(sid);
	rdma_destroy_qp(cid);
	ok(rdma_destroy_id(sid) == 0 && rdma_destroy_id(cid) == 0 && rdma_destroy_id(lid) == 0,
	   "the three ids destroyed");
}

static int
set_int(struct rdma_cm_id *id, int optname, int v, size_t len)
{
	return rdma_set_option(id, RDMA_OPTION_ID, optname, &v, len);
}

static void
case_options(struct rdma_event_channel *ch)
{
	struct sockaddr_in sa = ok_sin(ADDR, 0);
	uint8_t tos = TOS, timeout = 14;
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0) {
		ok(false, "an id");
		return;
	}
	ok(set_int(id, RDMA_OPTION_ID_TOS, TOS, sizeof(int)) == -1 && errno == EINVAL,
	   "TOS with an int: EINVAL (a uint8_t)");
	ok(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &tos, sizeof(tos)) == -1 &&
	   errno == EINVAL, "REUSEADDR with a byte: EINVAL (an int)");
	ok(set_int(id, RDMA_OPTION_ID_REUSEADDR, 0, sizeof(int)) == 0,
	   "REUSEADDR off before the bind: accepted");
	ok(set_int(id, RDMA_OPTION_ID_AFONLY, 0, sizeof(int)) == 0, "AFONLY off: accepted");
	ok(set_int(id, RDMA_OPTION_ID_AFONLY, 1, sizeof(int)) == -1 && errno == EOPNOTSUPP,
	   "AFONLY on: EOPNOTSUPP (IPv6 wildcard listeners take IPv4 too)");
	ok(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout,
			   sizeof(timeout)) == -1 && errno == ENOSYS, "ACK_TIMEOUT: ENOSYS");
	ok(rdma_bind_addr(id, (struct sockaddr *)&sa) == 0 &&
	   set_int(id, RDMA_OPTION_ID_REUSEADDR, 0, sizeof(int)) == -1 && errno == EINVAL,
	   "REUSEADDR off after the bind: EINVAL");
	ok(set_int(id, RDMA_OPTION_ID_REUSEADDR, 1, sizeof(int)) == 0,
	   "REUSEADDR on a bound id: accepted");
	ok(rdma_destroy_id(id) == 0, "rdma_destroy_id");
}

static void
case_qp_refusals(struct rdma_event_channel *ch)
{
	struct ibv_qp_init_attr_ex ax = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO,
	};
	struct ibv_qp_init_attr xrc = { .qp_type = IBV_QPT_XRC_SEND, .cap = ax.cap };
	struct sockaddr_in sa = ok_sin(ADDR, 0);
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0 ||
	    rdma_bind_addr(id, (struct sockaddr *)&sa) != 0) {
		ok(false, "a bound id");
		return;
	}
	ok(rdma_create_qp_ex(id, &ax) == -1 && errno == EOPNOTSUPP && id->qp == NULL,
	   "rdma_create_qp_ex with IBV_QP_EX_WITH_TSO: EOPNOTSUPP");
	ax.send_ops_flags = IBV_QP_EX_WITH_SEND;
	ax.comp_mask |= IBV_QP_INIT_ATTR_XRCD;
	ok(rdma_create_qp_ex(id, &ax) == -1 && errno == EOPNOTSUPP,
	   "rdma_create_qp_ex with an XRC domain: EOPNOTSUPP");
	ok(rdma_create_qp(id, NULL, &xrc) == -1 && errno == EOPNOTSUPP,
	   "rdma_create_qp of an XRC QP: EOPNOTSUPP");
	ok(rdma_destroy_id(id) == 0, "rdma_destroy_id");
}

static void
case_devices(void)
{
	struct ibv_context **list;
	int n = -1;

	list = rdma_get_devices(&n);
	ok(list != NULL && n == 2 && list[0] != NULL && list[1] != NULL && list[2] == NULL &&
	   strcmp(ibv_get_device_name(list[0]->device), "roce0") == 0,
	   "rdma_get_devices: roce0 and roce1, NULL-ended");
	rdma_free_devices(list);
	list = rdma_get_devices(NULL);
	ok(list != NULL, "rdma_get_devices(NULL)");
	rdma_free_devices(list);
}

/* rdma_getaddrinfo() as rdma-core's examples call it. */
static void
case_getaddrinfo(void)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res = NULL;
	struct sockaddr_in dst = ok_sin(ADDR, PORT);
	struct ibv_qp_init_attr attr = { .cap = { .max_send_wr = 1, .max_recv_wr = 1,
						  .max_send_sge = 1, .max_recv_sge = 1 } };
	struct rdma_cm_id *id;

	ok(rdma_getaddrinfo(NULL, NULL, NULL, &res) == -1 && errno == EINVAL,
	   "rdma_getaddrinfo with nothing: EINVAL");
	ok(rdma_getaddrinfo(ADDR, "7990", &hints, &res) == 0 && res->ai_dst_addr != NULL &&
	   res->ai_src_addr == NULL && port_of(res->ai_dst_addr) == htons(PORT) &&
	   res->ai_family == AF_INET && res->ai_qp_type == IBV_QPT_RC &&
	   res->ai_port_space == RDMA_PS_TCP, "rdma_client's: the destination, RC, TCP");
	rdma_freeaddrinfo(res);
	hints.ai_flags = RAI_PASSIVE;
	ok(rdma_getaddrinfo(NULL, "7990", &hints, &res) == 0 && res->ai_flags == RAI_PASSIVE &&
	   res->ai_src_addr != NULL && res->ai_dst_addr == NULL &&
	   port_of(res->ai_src_addr) == htons(PORT), "rdma_server's: the source, passive");
	rdma_freeaddrinfo(res);
	hints = (struct rdma_addrinfo){ .ai_qp_type = IBV_QPT_UD };
	ok(rdma_getaddrinfo(ADDR, "7990", &hints, &res) == 0 && res->ai_qp_type == IBV_QPT_UD &&
	   res->ai_port_space == RDMA_PS_UDP, "UD hints: port space UDP, as a datagram socket's");
	rdma_freeaddrinfo(res);
	hints = (struct rdma_addrinfo){ .ai_dst_addr = (struct sockaddr *)&dst,
					.ai_dst_len = sizeof(dst), .ai_qp_type = IBV_QPT_RC };
	ok(rdma_getaddrinfo(NULL, NULL, &hints, &res) == 0 && res->ai_dst_addr != NULL &&
	   memcmp(res->ai_dst_addr, &dst, sizeof(dst)) == 0 && res->ai_qp_type == IBV_QPT_RC,
	   "no node and no service: the hints' addresses");
	rdma_freeaddrinfo(res);
	hints = (struct rdma_addrinfo){ .ai_port_space = RDMA_PS_TCP,
					.ai_qp_type = IBV_QPT_XRC_SEND };
	ok(rdma_getaddrinfo(ADDR, "7990", &hints, &res) == 0 &&
	   res->ai_qp_type == IBV_QPT_XRC_SEND &&
	   rdma_create_ep(&id, res, NULL, &attr) == -1 && errno == EOPNOTSUPP,
	   "rdma_xclient's: XRC kept in the result, rdma_create_ep refuses it (EOPNOTSUPP)");
	rdma_freeaddrinfo(res);
}

int
main(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();

	ok(ch != NULL, "an event channel (the program runs under roce-run)");
	if (ch != NULL) {
		case_connection(ch);
		case_options(ch);
		case_qp_refusals(ch);
		rdma_destroy_event_channel(ch);
	}
	case_devices();
	case_getaddrinfo();
	ok(strcmp(rdma_event_str(RDMA_CM_EVENT_DISCONNECTED), "RDMA_CM_EVENT_DISCONNECTED") == 0,
	   "rdma_event_str (the real librdmacm's)");
	ok(rsocket(AF_INET, SOCK_STREAM, 0) == -1 && errno == ENOSYS,
	   "rsocket: ENOSYS (rsockets are not served)");
	printf("1..%d\n", tests);
	return failed != 0;
}
