/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Bad and edge use of the drop-in librdmacm (doc/verbs-abi.md, "librdmacm"),
 * as a plain librdmacm program run under roce-run by test_verbs_misuse.py
 * with two net_ring devices (roce0 at 198.18.0.1 receives what it sends,
 * so its CM answers its own REQs). TAP output. Checks: the refusals the
 * page lists, each with its errno; a non-blocking channel's EAGAIN and a
 * poll()-able fd; a connect nobody listens for ends in REJECTED (reason 8);
 * rdma_create_qp's default PD and CQs; an id destroyed with its QP leaves
 * the QP to the program; RDMA_PS_UDP ids resolved by SIDR (param.ud, the UD
 * QP, a synchronous connect's status), multicast, an id's SRQ and ECE
 * refused, rdma_notify of an id not connecting refused; a channel
 * destroyed under an id is kept; rdma_migrate_id to no channel makes the id
 * synchronous; a channel destroyed while a thread waits in
 * rdma_get_cm_event() (rping's teardown) stays the waiter's, which a signal
 * then wakes to EBADF.
 */

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "roce_test_ok.h"

#define ADDR "198.18.0.1"
#define NOBODY_PORT 7999
#define UDP_PORT 7998
/* What rdma_cm's UD events carry: a SIDR_REQ's private data after rdma_cm's
 * header, a SIDR_REP's (IBTA Vol. 1 §12.11; Linux's cma.c does the same). */
#define SIDR_REQ_PRIVATE 180
#define SIDR_REP_PRIVATE 136
#define WAIT_MS 10000

/* The next event, after the fd said it is there, for the caller to acknowledge; NULL if none. */
static struct rdma_cm_event *
take_event(struct rdma_event_channel *ch)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, WAIT_MS) != 1 || rdma_get_cm_event(ch, &ev) != 0)
		return NULL;
	return ev;
}

/* The next event's type (-1: none) and status; acknowledged. */
static int
next_event(struct rdma_event_channel *ch, int *status)
{
	struct rdma_cm_event *ev = take_event(ch);
	int type;

	if (ev == NULL)
		return -1;
	type = ev->event;
	*status = ev->status;
	rdma_ack_cm_event(ev);
	return type;
}

static void
case_refusals(struct rdma_event_channel *ch)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_FAMILY | RAI_NUMERICHOST, .ai_family = AF_IB };
	struct rdma_addrinfo *res = NULL;
	struct ibv_qp_init_attr attr = { .qp_type = IBV_QPT_RC };
	struct ibv_srq_init_attr srq_attr = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_ece ece = { 0 };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id, *other;
	struct sockaddr_in bad = ok_sin(ADDR, 0);
	uint8_t timeout = 14;
	int one = 1;

	ok(rdma_create_id(ch, &id, NULL, RDMA_PS_IPOIB) == -1 && errno == EPROTONOSUPPORT,
	   "rdma_create_id(RDMA_PS_IPOIB): EPROTONOSUPPORT (no IPoIB on RoCE)");
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0) {
		ok(false, "rdma_create_id(RDMA_PS_TCP)");
		return;
	}
	ok(rdma_create_qp(id, NULL, &attr) == -1 && errno == EINVAL,
	   "rdma_create_qp on an unbound id: EINVAL");
	ok(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout,
			   sizeof(timeout)) == -1 && errno == ENOSYS,
	   "rdma_set_option(ACK_TIMEOUT): ENOSYS");
	ok(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)) == 0,
	   "rdma_set_option(REUSEADDR): accepted");
	ok(rdma_notify(id, IBV_EVENT_COMM_EST) == -1 && errno == EINVAL,
	   "rdma_notify(COMM_EST) on an id not waiting for its RTU: EINVAL");
	ok(rdma_create_srq(id, NULL, &srq_attr) == -1 && errno == ENOSYS,
	   "rdma_create_srq: ENOSYS (an id's SRQ; ibv_create_srq is there)");
	rdma_destroy_srq(id);	/* refused and logged, nothing of librdmacm's touched */
	ok(rdma_set_local_ece(id, &ece) == -1 && errno == EOPNOTSUPP &&
	   rdma_get_remote_ece(id, &ece) == -1 && errno == EOPNOTSUPP &&
	   rdma_reject_ece(id, NULL, 0) == -1 && errno == EOPNOTSUPP,
	   "rdma_set_local_ece, rdma_get_remote_ece, rdma_reject_ece: EOPNOTSUPP (no ECE)");
	ok(rdma_get_request(id, &other) == -1 && errno == EINVAL,
	   "rdma_get_request on an id with a channel: EINVAL");
	ok(rdma_getaddrinfo(ADDR, NULL, &hints, &res) == -1 && errno == EAFNOSUPPORT,
	   "rdma_getaddrinfo(RAI_FAMILY, AF_IB, RAI_NUMERICHOST): EAFNOSUPPORT (no AF_IB)");
	hints.ai_family = AF_INET;
	ok(rdma_getaddrinfo(ADDR, NULL, &hints, &res) == 0 && res->ai_family == AF_INET,
	   "rdma_getaddrinfo(RAI_FAMILY, AF_INET): the family hint (libfabric's verbs provider)");
	if (res != NULL)
		rdma_freeaddrinfo(res);
	inet_pton(AF_INET, "192.0.2.1", &bad.sin_addr);
	ok(rdma_bind_addr(id, (struct sockaddr *)&bad) == -1 && errno == EADDRNOTAVAIL,
	   "rdma_bind_addr on an address of no port: EADDRNOTAVAIL");
	ok(fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK) == 0 &&
	   rdma_get_cm_event(ch, &ev) == -1 && errno == EAGAIN,
	   "rdma_get_cm_event on an empty non-blocking channel: EAGAIN");
	ok(rdma_destroy_id(id) == 0, "rdma_destroy_id of an unbound id");
}

static void
case_rejected(struct rdma_event_channel *ch)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_conn_param param = { .retry_count = 7, .rnr_retry_count = 7 };
	struct sockaddr_in dst = ok_sin(ADDR, NOBODY_PORT);
	struct ibv_cq *send_cq, *recv_cq;
	struct ibv_comp_channel *send_ch, *recv_ch;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct rdma_cm_id *id;
	struct ibv_qp *qp;
	int status = 0;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0) {
		ok(false, "rdma_create_id");
		return;
	}
	ok(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) == 0 &&
	   next_event(ch, &status) == RDMA_CM_EVENT_ADDR_RESOLVED && id->verbs != NULL &&
	   rdma_get_src_port(id) != 0 && rdma_get_dst_port(id) == htons(NOBODY_PORT),
	   "resolve_addr without a source: ADDR_RESOLVED through the poll()-able fd, ports set");
	ok(rdma_resolve_route(id, 2000) == 0 &&
	   next_event(ch, &status) == RDMA_CM_EVENT_ROUTE_RESOLVED, "ROUTE_RESOLVED");
	ok(rdma_create_qp(id, NULL, &attr) == 0 && id->qp != NULL && id->pd != NULL &&
	   id->send_cq != NULL && id->recv_cq != NULL && id->send_cq_channel != NULL,
	   "rdma_create_qp with no PD and no CQs: the default PD, CQs with channels");
	ok(rdma_connect(id, &param) == 0 && next_event(ch, &status) == RDMA_CM_EVENT_REJECTED &&
	   status == 8, "connect to a port nobody listens on: REJECTED, reason 8");
	qp = id->qp;
	send_cq = id->send_cq;
	recv_cq = id->recv_cq;
	send_ch = id->send_cq_channel;
	recv_ch = id->recv_cq_channel;
	ok(rdma_destroy_id(id) == 0 && ibv_query_qp(qp, &qa, IBV_QP_STATE, &qi) == 0 &&
	   ibv_destroy_qp(qp) == 0, "an id destroyed with its QP: the QP is the program's");
	ok(ibv_destroy_cq(send_cq) == 0 && ibv_destroy_cq(recv_cq) == 0 &&
	   ibv_destroy_comp_channel(send_ch) == 0 && ibv_destroy_comp_channel(recv_ch) == 0,
	   "and so are the CQs rdma_create_qp made");
}

/*
 * RDMA_PS_UDP (SIDR) between two ids of roce0, which answers itself: the
 * request's param.ud, the UD QP rdma_create_qp makes, accept's SIDR_REP and
 * the ESTABLISHED that gives its QPN and Q_Key; then what is refused.
 */
static void
case_udp(struct rdma_event_channel *ch)
{
	static const char hello[] = "SIDR private data";
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_conn_param param = { .private_data = hello, .private_data_len = sizeof(hello) };
	struct sockaddr_in dst = ok_sin(ADDR, UDP_PORT);
	struct rdma_cm_id *listener, *id, *req;
	struct rdma_cm_event *ev;
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr qa;
	int status = 0, mask = 0;

	if (rdma_create_id(ch, &listener, NULL, RDMA_PS_UDP) != 0 ||
	    rdma_create_id(ch, &id, NULL, RDMA_PS_UDP) != 0) {
		ok(false, "rdma_create_id(RDMA_PS_UDP), twice");
		return;
	}
	ok(listener->qp_type == IBV_QPT_UD && rdma_bind_addr(listener, (struct sockaddr *)&dst) == 0 &&
	   rdma_listen(listener, 4) == 0, "a UDP listener: a UD id, bound, listening");
	ok(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) == 0 &&
	   next_event(ch, &status) == RDMA_CM_EVENT_ADDR_RESOLVED &&
	   rdma_resolve_route(id, 2000) == 0 && next_event(ch, &status) == RDMA_CM_EVENT_ROUTE_RESOLVED,
	   "a UD id: address and route resolved");
	ev = rdma_connect(id, &param) == 0 ? take_event(ch) : NULL;
	ok(ev != NULL && ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && ev->listen_id == listener &&
	   ev->param.ud.private_data_len == SIDR_REQ_PRIVATE &&
	   memcmp(ev->param.ud.private_data, hello, sizeof(hello)) == 0,
	   "connect: the SIDR_REQ's CONNECT_REQUEST, param.ud with its 180 bytes of private data");
	if (ev == NULL || ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		return;
	req = ev->id;
	rdma_ack_cm_event(ev);
	ok(req->qp_type == IBV_QPT_UD && rdma_create_qp(req, NULL, &attr) == 0 &&
	   ibv_query_qp(req->qp, &qa, IBV_QP_STATE | IBV_QP_QKEY, &qi) == 0 &&
	   qa.qp_state == IBV_QPS_RTS && qa.qkey == RDMA_UDP_QKEY,
	   "rdma_create_qp on the request: a UD QP in RTS with Q_Key RDMA_UDP_QKEY");
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	ok(rdma_init_qp_attr(req, &qa, &mask) == 0 && (mask & IBV_QP_QKEY) &&
	   !(mask & IBV_QP_ACCESS_FLAGS) && qa.qkey == RDMA_UDP_QKEY,
	   "rdma_init_qp_attr(INIT) of a UD id: the Q_Key, no access rights");
	ev = rdma_accept(req, NULL) == 0 ? take_event(ch) : NULL;
	ok(ev != NULL && ev->event == RDMA_CM_EVENT_ESTABLISHED && ev->id == id &&
	   ev->param.ud.qp_num == req->qp->qp_num && ev->param.ud.qkey == RDMA_UDP_QKEY &&
	   ev->param.ud.ah_attr.is_global && ev->param.ud.private_data_len == SIDR_REP_PRIVATE,
	   "accept: the SIDR_REP's ESTABLISHED, param.ud with the QPN, RDMA_UDP_QKEY, an AV");
	if (ev != NULL)
		rdma_ack_cm_event(ev);
	ok(rdma_accept(req, NULL) == -1 && errno == EINVAL, "accept of a request answered: EINVAL");
	ok(rdma_connect(id, &param) == -1 && errno == EINVAL, "a UD id resolves once: EINVAL");
	ok(rdma_join_multicast(id, (struct sockaddr *)&dst, NULL) == -1 && errno == ENOSYS &&
	   rdma_leave_multicast(id, (struct sockaddr *)&dst) == -1 && errno == ENOSYS,
	   "rdma_join_multicast, rdma_leave_multicast: ENOSYS (no multicast)");
	rdma_destroy_qp(req);
	ok(rdma_destroy_id(req) == 0 && rdma_destroy_id(id) == 0 && rdma_destroy_id(listener) == 0,
	   "the UD ids destroyed");
}

/* A synchronous UD id: connect returns the outcome, here the SIDR_REP's status 1. */
static void
case_udp_sync(void)
{
	struct sockaddr_in dst = ok_sin(ADDR, NOBODY_PORT);
	struct rdma_cm_id *id;

	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_UDP) != 0) {
		ok(false, "rdma_create_id(NULL channel, RDMA_PS_UDP)");
		return;
	}
	ok(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) == 0 &&
	   rdma_resolve_route(id, 2000) == 0 && rdma_connect(id, NULL) == -1 && errno == 1 &&
	   id->event != NULL && id->event->event == RDMA_CM_EVENT_UNREACHABLE &&
	   id->event->status == 1,
	   "synchronous UD connect to a port nobody serves: -1, errno 1 (SIDR status 1), UNREACHABLE");
	ok(rdma_destroy_id(id) == 0, "rdma_destroy_id of the synchronous UD id");
}

static void
case_channels(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in dst = ok_sin(ADDR, NOBODY_PORT);
	struct rdma_cm_id *id;

	if (ch == NULL || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0) {
		ok(false, "a channel and an id");
		return;
	}
	rdma_destroy_event_channel(ch);	/* kept: the id still uses it (logged) */
	ok(rdma_migrate_id(id, NULL) == 0 && id->channel != ch,
	   "a channel destroyed under its id is kept; migrate_id to none");
	ok(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) == 0 && id->event != NULL &&
	   id->event->event == RDMA_CM_EVENT_ADDR_RESOLVED,
	   "the migrated id is synchronous: resolve_addr returns with its event");
	ok(rdma_destroy_id(id) == 0, "rdma_destroy_id of a synchronous id holding its event");
	rdma_destroy_event_channel(ch);
}

static pid_t cm_thread_tid;

/* rping's CM thread: events taken and acknowledged until the call fails; its errno. */
static void *
cm_thread(void *arg)
{
	struct rdma_event_channel *ch = arg;
	struct rdma_cm_event *ev;

	__atomic_store_n(&cm_thread_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (rdma_get_cm_event(ch, &ev) == 0)
		rdma_ack_cm_event(ev);
	return (void *)(intptr_t)errno;
}

static void
on_signal(int sig)
{
	(void)sig;
}

/* Whether thread tid sleeps in poll(2), the wait of rdma_get_cm_event(). */
static bool
in_poll(pid_t tid)
{
#ifdef SYS_poll
	const long nr = SYS_poll;
#else
	const long nr = SYS_ppoll;
#endif
	char path[64];
	long sys = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	if (fscanf(f, "%ld", &sys) != 1)
		sys = -1;
	fclose(f);
	return sys == nr;
}

/*
 * rping's teardown: its CM thread sleeps in rdma_get_cm_event() while the
 * main thread destroys the id and the channel. The waiter keeps the
 * channel: the freed memory is reused (same-sized blocks filled), and a
 * signal then wakes the waiter, which must answer EBADF, not read them.
 */
static void
case_destroyed_under_waiter(void)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART: poll() ends */
	struct sockaddr_in dst = ok_sin(ADDR, NOBODY_PORT);
	struct rdma_event_channel *ch = rdma_create_event_channel();
	void *res, *reuse[64];
	struct rdma_cm_id *id;
	pthread_t t;
	pid_t tid;
	int i;

	sigaction(SIGUSR1, &sa, NULL);
	if (ch == NULL || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0 ||
	    pthread_create(&t, NULL, cm_thread, ch) != 0) {
		ok(false, "a channel, an id and a CM thread");
		return;
	}
	ok(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) == 0 &&
	   rdma_destroy_id(id) == 0,
	   "an id destroyed while its CM thread may hold its ADDR_RESOLVED");
	for (i = 0; i < WAIT_MS; i++) {
		tid = __atomic_load_n(&cm_thread_tid, __ATOMIC_ACQUIRE);
		if (tid != 0 && in_poll(tid))
			break;
		usleep(1000);
	}
	ok(i < WAIT_MS, "the CM thread sleeps in rdma_get_cm_event()'s poll()");
	rdma_destroy_event_channel(ch);
	for (i = 0; i < 64; i++)
		reuse[i] = memset(malloc(16 + 4 * i), 0xa5, 16 + 4 * i);
	pthread_kill(t, SIGUSR1);
	pthread_join(t, &res);
	for (i = 0; i < 64; i++)
		free(reuse[i]);
	ok((intptr_t)res == EBADF,
	   "a channel destroyed under its waiting CM thread: woken, it gets EBADF");
}

int
main(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();

	if (ch == NULL) {
		printf("1..0 # SKIP no event channel (run under roce-run): %s\n", strerror(errno));
		return 1;
	}
	case_rejected(ch);
	case_udp(ch);
	case_udp_sync();
	case_refusals(ch);
	rdma_destroy_event_channel(ch);
	case_channels();
	case_destroyed_under_waiter();
	printf("1..%d\n", tests);
	return failed != 0;
}
