/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * librte_roce_cm between two devices of one process over net_ring: a CM
 * on each, rdma_cm-style ids connecting RC QPs, data through them, and the
 * failure paths: REJ by the application or for want of a listener, a full
 * backlog, MADs lost (drivers/fault) so that REQ or REP are sent again or
 * time out, a duplicate REQ answered with an MRA, malformed MADs sent
 * from a plain UD QP, each dropped and counted by reason, a LAP answered
 * with an APR (checked in a capture of the wire); rdma_cm's
 * synchronous mode (ids without a channel), side 1 then served by a thread.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <rte_common.h>
#include <rte_errno.h>

#include <rte_roce.h>
#include <rte_roce_cm.h>
#include <rte_roce_fault.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_pcap.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#define CM_PORT			7471	/* rping's */
#define CM_OTHER_PORT		7472
#define CM_RESPONSE_TIMEOUT	15	/* 4.096 us * 2^15 = 134 ms */
#define CM_MAX_RETRIES		3
/*
 * Bound of every wait for an event, a counter or a completion, and the
 * timeout of cm_addr_error's resolutions: far beyond any stall of a loaded
 * two-core machine. That case wants the port to give up first (3 requests
 * 1 s apart: about 3 s) and its caller's timeout second; at 5 s a 2 s stall
 * made the caller's -ETIMEDOUT come first.
 */
#define CM_WAIT_MS		30000
#define CM_RD_ATOM		4
#define CM_MSG_LEN		1000
#define CM_BACKLOG		8
#define CM_FAULT_SEED		0xc0ffee
#define CM_ABSENT_HOST		99	/* last byte of an address on the link nobody has */
#define CM_TOS			0x28	/* the active ids' traffic class (DSCP AF11) */
#define CM_LOSS_CONNS		CM_BACKLOG	/* connections at once in test_cm_mad_loss */
#define CM_LOSS_RETRIES		8	/* 9 tries of 10% loss each way: a give-up ~1e-6 */
#define CM_LOSS_WAIT_MS		30000
#define CM_PATIENT_RETRIES	RTE_ROCE_CM_MAX_RETRIES_MAX
#define CM_LOSS_ROUNDS		4
#define CM_FLOOD_MAX_IDS	4	/* max_ids of test_cm_req_flood: the listener and 3 */
#define CM_FLOOD_REQS		64	/* REQs of its flood, each of another comm ID */
#define CM_FLOOD_COMM_ID	0x1000
#define CM_FLOOD_GUID		UINT64_C(0x0002c9fffe001234)
#define CM_FLOOD_QPN		0x99
#define CM_RAW_COMM_ID		0x77	/* the comm ID of side 0's raw messages: no id's */
#define CM_RAW_TID		0x1234
#define CM_SHORT_LEN		100	/* a MAD cut short */
#define CM_CAPTURE_MTU		4096
#define CM_CAPTURE_MADS		4

static const char req_data[] = "hello from A";
static const char rep_data[] = "welcome, A";
static const char rej_data[] = "go away";

/* Two sides, each with a CM and an event channel; id[0] connects to listener on side 1. */
struct cm_env {
	struct roce_test_env e;
	struct rte_roce_cm *cm[2];
	struct rte_roce_cm_channel *ch[2];
	struct rte_roce_cm_id *listener;
	struct rte_roce_cm_id *id[2];	/* active on side 0, passive on side 1 */
	struct rte_roce_fault *fault[2];	/* on each side's RX */
	bool ipv6;
};

static const struct rte_roce_cm_conf cm_conf = {
	.response_timeout = CM_RESPONSE_TIMEOUT,
	.max_cm_retries = CM_MAX_RETRIES,
};

static void
cm_pump(struct cm_env *c)
{
	roce_test_pump_env(&c->e);
	rte_roce_cm_poll(c->cm[0]);
	rte_roce_cm_poll(c->cm[1]);
}

/* Pump until side's channel has an event; it must be of type want. The caller acks it. */
static int
cm_wait_event(struct cm_env *c, unsigned int side, enum rte_roce_cm_event_type want,
	      struct rte_roce_cm_event **ev)
{
	uint64_t end = roce_test_ms() + CM_WAIT_MS;

	while (rte_roce_cm_get_cm_event(c->ch[side], ev) == -EAGAIN) {
		ROCE_TEST_ASSERT(roce_test_ms() < end, "side %u: no event, waiting for %s", side,
				 rte_roce_cm_event_str(want));
		cm_pump(c);
	}
	ROCE_TEST_ASSERT((*ev)->event == want, "side %u: %s (status %d), wanted %s", side,
			 rte_roce_cm_event_str((*ev)->event), (*ev)->status,
			 rte_roce_cm_event_str(want));
	return 0;
}

/* The same, acknowledged at once; the status returned in *status if not NULL. */
static int
cm_expect(struct cm_env *c, unsigned int side, enum rte_roce_cm_event_type want, int *status)
{
	struct rte_roce_cm_event *ev;

	ROCE_TEST_ASSERT_EQ(cm_wait_event(c, side, want, &ev), 0, "");
	if (status != NULL)
		*status = ev->status;
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	return 0;
}

/* No event comes on side's channel while pumping for ms. */
static int
cm_expect_none(struct cm_env *c, unsigned int side, unsigned int ms)
{
	struct rte_roce_cm_event *ev;
	uint64_t end = roce_test_ms() + ms;

	while (roce_test_ms() < end) {
		cm_pump(c);
		ROCE_TEST_ASSERT(rte_roce_cm_get_cm_event(c->ch[side], &ev) == -EAGAIN,
				 "side %u: unexpected %s", side, rte_roce_cm_event_str(ev->event));
	}
	return 0;
}

static uint64_t
cm_stat(struct rte_roce_cm *cm, size_t off)
{
	struct rte_roce_cm_stats s;

	if (rte_roce_cm_stats_get(cm, &s) != 0)
		return UINT64_MAX;
	return *(const uint64_t *)((const uint8_t *)&s + off);
}

#define CM_COUNTER(field) offsetof(struct rte_roce_cm_stats, field)
#define CM_STAT(cm, field) cm_stat((cm), CM_COUNTER(field))

/* Pump until the counter at off of cm reaches want (or the wait ends); its value. */
static uint64_t
cm_wait_stat(struct cm_env *c, struct rte_roce_cm *cm, size_t off, uint64_t want)
{
	uint64_t end = roce_test_ms() + CM_WAIT_MS;

	while (cm_stat(cm, off) < want && roce_test_ms() < end)
		cm_pump(c);
	return cm_stat(cm, off);
}

/* Pump until the counter at off of cm differs from before (or the wait ends); its value. */
static uint64_t
cm_wait_stat_change(struct cm_env *c, struct rte_roce_cm *cm, size_t off, uint64_t before)
{
	uint64_t end = roce_test_ms() + CM_WAIT_MS;

	while (cm_stat(cm, off) == before && roce_test_ms() < end)
		cm_pump(c);
	return cm_stat(cm, off);
}

/* Every case's environment; cm_env_live while it is open, for cm_env_leftover_release(). */
static struct cm_env cm_env_case;
static struct cm_env *cm_env_live;

/*
 * A case that failed returned without closing its environment: release
 * what it left (ids with their events, CMs, devices, ports), so that the
 * next case starts clean and its result is its own.
 */
static void
cm_env_leftover_release(void)
{
	struct cm_env *c = cm_env_live;
	struct rte_roce_cm_event *ev;
	unsigned int i;

	if (c == NULL)
		return;
	cm_env_live = NULL;
	for (i = 0; i < 2; i++)
		rte_roce_fault_detach(c->fault[i]);
	for (i = 0; i < 2; i++)
		while (c->ch[i] != NULL && rte_roce_cm_get_cm_event(c->ch[i], &ev) == 0)
			rte_roce_cm_ack_cm_event(ev);
	for (i = 0; i < 2; i++) {
		if (c->id[i] != NULL && c->id[i]->qp != NULL)
			rte_roce_cm_destroy_qp(c->id[i]);
		if (c->id[i] != NULL)
			rte_roce_cm_destroy_id(c->id[i]);
	}
	if (c->listener != NULL)
		rte_roce_cm_destroy_id(c->listener);
	for (i = 0; i < 2; i++) {
		rte_roce_cm_destroy_event_channel(c->ch[i]);
		rte_roce_cm_close(c->cm[i]);
	}
	roce_test_env_close(&c->e);
}

static int
cm_env_open_conf(struct cm_env *c, bool ipv6, const struct rte_roce_cm_conf *cm_conf_used)
{
	struct roce_test_conf conf = roce_test_default_conf;
	struct sockaddr_storage ss;
	unsigned int i;

	cm_env_leftover_release();
	memset(c, 0, sizeof(*c));
	cm_env_live = c;
	c->ipv6 = ipv6;
	conf.ipv6 = ipv6;
	ROCE_TEST_ASSERT_EQ(roce_test_env_open(&c->e, &conf, 0), 0, "sides");
	for (i = 0; i < 2; i++) {
		c->cm[i] = rte_roce_cm_open(c->e.s[i].ctx, cm_conf_used);
		ROCE_TEST_ASSERT(c->cm[i] != NULL, "cm_open: %s", rte_strerror(rte_errno));
		c->ch[i] = rte_roce_cm_create_event_channel();
		ROCE_TEST_ASSERT(c->ch[i] != NULL, "channel");
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(c->ch[1], &c->listener, c, RTE_ROCE_CM_PS_TCP),
			    0, "");
	roce_test_sockaddr(&ss, ipv6, 1, CM_PORT);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_bind_addr(c->listener, (struct sockaddr *)&ss), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_listen(c->listener, CM_BACKLOG), 0, "");
	return 0;
}

static int
cm_env_open(struct cm_env *c, bool ipv6)
{
	return cm_env_open_conf(c, ipv6, &cm_conf);
}

static int
cm_qp_create(struct cm_env *c, unsigned int side, struct rte_roce_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = c->e.s[side].scq,
		.recv_cq = c->e.s[side].rcq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1, .max_recv_sge = 1 },
	};

	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_qp(id, c->e.s[side].pd, &attr), 0, "create_qp");
	ROCE_TEST_ASSERT(id->qp != NULL, "qp");
	return 0;
}

/* Side 0 creates an id of port space ps and resolves the listener's address and route. */
static int
cm_active_resolve_ps(struct cm_env *c, struct rte_roce_cm_id **id, uint16_t port,
		     enum rte_roce_cm_port_space ps)
{
	struct sockaddr_storage src, dst;

	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(c->ch[0], id, c, ps), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_set_tos(*id, CM_TOS), 0, "");
	roce_test_sockaddr(&src, c->ipv6, 0, 0);
	roce_test_sockaddr(&dst, c->ipv6, 1, port);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_addr(*id, (struct sockaddr *)&src,
						     (struct sockaddr *)&dst, 1000), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_ADDR_RESOLVED, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_route(*id, 1000), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_ROUTE_RESOLVED, NULL), 0, "");
	return 0;
}

static int
cm_active_resolve(struct cm_env *c, struct rte_roce_cm_id **id, uint16_t port)
{
	return cm_active_resolve_ps(c, id, port, RTE_ROCE_CM_PS_TCP);
}

/* The same, and the id's QP. */
static int
cm_active_prepare(struct cm_env *c, struct rte_roce_cm_id **id, uint16_t port)
{
	ROCE_TEST_ASSERT_EQ(cm_active_resolve(c, id, port), 0, "");
	return cm_qp_create(c, 0, *id);
}

/* What side 0 connects with. */
static const struct rte_roce_cm_conn_param connect_param = {
	.private_data = req_data,
	.private_data_len = sizeof(req_data),
	.responder_resources = CM_RD_ATOM,
	.initiator_depth = CM_RD_ATOM - 1,
	.retry_count = ROCE_TEST_RETRY_CNT,
	.rnr_retry_count = ROCE_TEST_RNR_INFINITE,
};

static int
cm_connect(struct rte_roce_cm_id *id)
{
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(id, &connect_param), 0, "connect");
	return 0;
}

/* Side 1 takes the CONNECT_REQUEST: the new id in c->id[1], private data checked. */
static int
cm_take_request(struct cm_env *c)
{
	struct rte_roce_cm_event *ev;

	ROCE_TEST_ASSERT_EQ(cm_wait_event(c, 1, RTE_ROCE_CM_EVENT_CONNECT_REQUEST, &ev), 0, "");
	ROCE_TEST_ASSERT(ev->listen_id == c->listener, "listener");
	ROCE_TEST_ASSERT(ev->param.private_data_len >= sizeof(req_data) &&
			 memcmp(ev->param.private_data, req_data, sizeof(req_data)) == 0,
			 "REQ private data");
	/* seen from side 1, as rdma_cm reports them */
	ROCE_TEST_ASSERT_EQ(ev->param.responder_resources, CM_RD_ATOM - 1, "");
	ROCE_TEST_ASSERT_EQ(ev->param.initiator_depth, CM_RD_ATOM, "");
	c->id[1] = ev->id;
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	return 0;
}

static int
cm_accept(struct cm_env *c)
{
	struct rte_roce_cm_conn_param p = {
		.private_data = rep_data,
		.private_data_len = sizeof(rep_data),
		.responder_resources = CM_RD_ATOM,
		.initiator_depth = CM_RD_ATOM,
		.rnr_retry_count = ROCE_TEST_RNR_INFINITE,
	};

	ROCE_TEST_ASSERT_EQ(cm_qp_create(c, 1, c->id[1]), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_accept(c->id[1], &p), 0, "accept");
	return 0;
}

/*
 * Both QPs are in RTS, each aimed at the other, PSNs crossed; both GRHs with
 * the active side's traffic class (the passive side's from the REQ).
 */
static int
cm_check_qps(struct cm_env *c)
{
	struct ibv_qp_attr a[2];
	struct ibv_qp_init_attr ia;
	unsigned int i;

	for (i = 0; i < 2; i++)
		ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(c->id[i]->qp, &a[i], 0, &ia), 0, "");
	for (i = 0; i < 2; i++) {
		ROCE_TEST_ASSERT_EQ(a[i].qp_state, IBV_QPS_RTS, "side %u", i);
		ROCE_TEST_ASSERT_EQ(a[i].dest_qp_num, c->id[1 - i]->qp->qp_num, "side %u", i);
		ROCE_TEST_ASSERT_EQ(a[i].rq_psn, a[1 - i].sq_psn, "side %u", i);
		ROCE_TEST_ASSERT_EQ(a[i].max_rd_atomic, a[1 - i].max_dest_rd_atomic, "side %u", i);
		ROCE_TEST_ASSERT_EQ(a[i].ah_attr.grh.traffic_class, CM_TOS, "side %u", i);
	}
	/* side 0 offered an initiator depth one below what both accept */
	ROCE_TEST_ASSERT_EQ(a[0].max_rd_atomic, CM_RD_ATOM - 1, "");
	ROCE_TEST_ASSERT_EQ(a[1].max_rd_atomic, CM_RD_ATOM, "");
	return 0;
}

/* A SEND from side 0 to side 1 on the connected QPs. */
static int
cm_send_data(struct cm_env *c)
{
	struct roce_test_side *a = &c->e.s[0], *b = &c->e.s[1];
	struct ibv_wc wc;

	roce_test_fill(a->buf, CM_MSG_LEN, 7);
	memset(b->buf, 0, CM_MSG_LEN);
	ROCE_TEST_ASSERT_EQ(roce_test_post_recv(c->id[1]->qp, 1, b->buf, CM_MSG_LEN, b->mr->lkey),
			    0, "");
	ROCE_TEST_ASSERT_EQ(roce_test_post_send(c->id[0]->qp, IBV_WR_SEND, 2, a->buf, CM_MSG_LEN,
						a->mr->lkey, 0, 0, IBV_SEND_SIGNALED), 0, "");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc_ctx(a->ctx, b->ctx, b->rcq, &wc, 1, CM_WAIT_MS), 1, "");
	ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_SUCCESS, "");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc_ctx(a->ctx, b->ctx, a->scq, &wc, 1, CM_WAIT_MS), 1, "");
	ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_SUCCESS, "");
	ROCE_TEST_ASSERT(memcmp(a->buf, b->buf, CM_MSG_LEN) == 0, "data");
	return 0;
}

/* Connect id[0] to the listener, accept on side 1, both ESTABLISHED. */
static int
cm_establish(struct cm_env *c)
{
	struct rte_roce_cm_event *ev;

	ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &c->id[0], CM_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_connect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_take_request(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_accept(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_wait_event(c, 0, RTE_ROCE_CM_EVENT_ESTABLISHED, &ev), 0, "");
	/* the REP's private data, as rdma_cm gives it (an NVMe-oF host reads it) */
	ROCE_TEST_ASSERT(ev->param.private_data_len >= sizeof(rep_data) &&
			 memcmp(ev->param.private_data, rep_data, sizeof(rep_data)) == 0,
			 "REP private data in ESTABLISHED");
	/* the REP's offer from side 0: the READs it must answer, and may send */
	ROCE_TEST_ASSERT_EQ(ev->param.responder_resources, CM_RD_ATOM, "");
	ROCE_TEST_ASSERT_EQ(ev->param.initiator_depth, CM_RD_ATOM - 1, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 1, RTE_ROCE_CM_EVENT_ESTABLISHED, NULL), 0, "");
	return 0;
}

static int
cm_id_close(struct rte_roce_cm_id **id)
{
	if (*id == NULL)
		return 0;
	if ((*id)->qp != NULL)
		ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_qp(*id), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(*id), 0, "");
	*id = NULL;
	return 0;
}

static int
cm_env_close(struct cm_env *c)
{
	unsigned int i;

	cm_env_live = NULL;
	for (i = 0; i < 2; i++)
		if (c->fault[i] != NULL)
			rte_roce_fault_detach(c->fault[i]);
	ROCE_TEST_ASSERT_EQ(cm_id_close(&c->id[0]) | cm_id_close(&c->id[1]) |
			    cm_id_close(&c->listener), 0, "ids");
	for (i = 0; i < 2; i++) {
		ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_event_channel(c->ch[i]), 0, "");
		ROCE_TEST_ASSERT_EQ(rte_roce_cm_close(c->cm[i]), 0, "");
	}
	return roce_test_env_close(&c->e);
}

static int
cm_fault_attach(struct cm_env *c, unsigned int side, const struct rte_roce_fault_conf *fc)
{
	uint16_t eth = side == 0 ? c->e.pair->a : c->e.pair->b;

	c->fault[side] = rte_roce_fault_attach(eth, 0, RTE_ROCE_FAULT_RX, fc);
	ROCE_TEST_ASSERT(c->fault[side] != NULL, "fault: %s", rte_strerror(rte_errno));
	return 0;
}

/* Drop every MAD (UD SEND to QP1) side receives, from the nth on, count of them (0: all). */
static int
cm_drop_mads(struct cm_env *c, unsigned int side, uint32_t nth, uint32_t count)
{
	const struct rte_roce_fault_conf fc = { .seed = CM_FAULT_SEED, .roce_only = true };
	const struct rte_roce_fault_rule rule = {
		.dir = RTE_ROCE_FAULT_RX,
		.action = RTE_ROCE_FAULT_DROP,
		.opcode = RTE_ROCE_OP_UD_SEND_ONLY,
		.match_dqpn = true,
		.dqpn = RTE_ROCE_QP1_QPN,
		.nth = nth,
		.count = count,
	};
	ROCE_TEST_ASSERT_EQ(cm_fault_attach(c, side, &fc), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(c->fault[side], &rule), 0, "");
	return 0;
}

static int
cm_connect_disconnect(bool ipv6)
{
	struct cm_env *const c = &cm_env_case;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, ipv6), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_establish(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_check_qps(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_send_data(c), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_disconnect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 1, RTE_ROCE_CM_EVENT_DISCONNECTED, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_DISCONNECTED, NULL), 0, "");
	/* Disconnecting again is no error, as rdma_disconnect(); nothing is sent. */
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_disconnect(c->id[1]), 0, "after the peer's DREQ");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_disconnect(c->id[0]), 0, "a second time");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_TIMEWAIT_EXIT, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 1, RTE_ROCE_CM_EVENT_TIMEWAIT_EXIT, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], established), 1, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], established), 1, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], retransmits) + CM_STAT(c->cm[1], retransmits), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_disconnect(c->id[0]), 0, "after timewait");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_disconnect(c->listener), -EINVAL, "never connected");
	return cm_env_close(c);
}

static int
test_cm_connect_disconnect(void)
{
	return cm_connect_disconnect(false);
}

static int
test_cm_connect_disconnect_ipv6(void)
{
	return cm_connect_disconnect(true);
}

static int
test_cm_reject(void)
{
	struct rte_roce_cm_event *ev;
	struct cm_env *const c = &cm_env_case;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &c->id[0], CM_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_connect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_take_request(c), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_reject(c->id[1], rej_data, sizeof(rej_data)), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_reject(c->id[1], NULL, 0), -EINVAL, "answered already");
	ROCE_TEST_ASSERT_EQ(cm_wait_event(c, 0, RTE_ROCE_CM_EVENT_REJECTED, &ev), 0, "");
	ROCE_TEST_ASSERT_EQ(ev->status, RTE_ROCE_CM_REJ_CONSUMER_DEFINED, "");
	ROCE_TEST_ASSERT(ev->param.private_data_len >= sizeof(rej_data) &&
			 memcmp(ev->param.private_data, rej_data, sizeof(rej_data)) == 0, "data");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], rej_sent), 1, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], rej_rcvd), 1, "");
	return cm_env_close(c);
}

static int
test_cm_no_listener(void)
{
	struct cm_env *const c = &cm_env_case;
	int status;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &c->id[0], CM_OTHER_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_connect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_REJECTED, &status), 0, "");
	ROCE_TEST_ASSERT_EQ(status, RTE_ROCE_CM_REJ_INVALID_SERVICE_ID, "");
	ROCE_TEST_ASSERT_EQ(cm_expect_none(c, 1, ROCE_TEST_QUIET_MS), 0, "");
	return cm_env_close(c);
}

static int
test_cm_backlog_full(void)
{
	struct rte_roce_cm_id *extra[CM_BACKLOG], *passive[CM_BACKLOG];
	struct rte_roce_cm_event *ev;
	struct cm_env *const c = &cm_env_case;
	unsigned int i;
	int status;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	for (i = 0; i < CM_BACKLOG; i++) {
		ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &extra[i], CM_PORT), 0, "");
		ROCE_TEST_ASSERT_EQ(cm_connect(extra[i]), 0, "");
	}
	for (i = 0; i < CM_BACKLOG; i++) {
		ROCE_TEST_ASSERT_EQ(cm_wait_event(c, 1, RTE_ROCE_CM_EVENT_CONNECT_REQUEST, &ev), 0, "");
		passive[i] = ev->id;
		ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	}
	/* One more than the backlog: refused at once, counted. */
	ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &c->id[0], CM_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_connect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_REJECTED, &status), 0, "");
	ROCE_TEST_ASSERT_EQ(status, RTE_ROCE_CM_REJ_NO_RESOURCES, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], backlog_full), 1, "");
	for (i = 0; i < CM_BACKLOG; i++) {
		ROCE_TEST_ASSERT_EQ(cm_id_close(&extra[i]), 0, "");
		ROCE_TEST_ASSERT_EQ(cm_id_close(&passive[i]), 0, "");
	}
	return cm_env_close(c);
}

/* The address of side 1, or one on its link nobody has. */
static void
cm_absent_addr(struct sockaddr_storage *ss, bool ipv6)
{
	roce_test_sockaddr(ss, ipv6, 1, CM_PORT);
	if (ipv6)
		((struct sockaddr_in6 *)ss)->sin6_addr.s6_addr[15] = CM_ABSENT_HOST;
	else
		((uint8_t *)&((struct sockaddr_in *)ss)->sin_addr)[3] = CM_ABSENT_HOST;
}

/* id resolves dst within timeout_ms: the event, and its status in *status. */
static int
cm_resolve_to(struct cm_env *c, struct rte_roce_cm_id *id, const struct sockaddr_storage *dst,
	      int timeout_ms, enum rte_roce_cm_event_type want, int *status)
{
	struct sockaddr_storage src;

	roce_test_sockaddr(&src, c->ipv6, 0, 0);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_addr(id, (struct sockaddr *)&src,
						     (const struct sockaddr *)dst, timeout_ms), 0, "");
	return cm_expect(c, 0, want, status);
}

/*
 * rdma_resolve_addr() through the port's ARP/ND: an address nobody has is
 * an ADDR_ERROR (-ETIMEDOUT when the caller's timeout passes first,
 * -EHOSTUNREACH when the port gives up first, and at once while it
 * remembers that), counted; the peer's address resolves, at once when its
 * MAC is known; a synchronous id gets the error from the call.
 */
static int
cm_addr_error(bool ipv6)
{
	struct sockaddr_storage absent, peer, src;
	struct rte_roce_cm_event *ev;
	struct cm_env *const c = &cm_env_case;
	struct rte_roce_cm_id *id;
	int status;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, ipv6), 0, "");
	cm_absent_addr(&absent, ipv6);
	roce_test_sockaddr(&peer, ipv6, 1, CM_PORT);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(c->ch[0], &c->id[0], c, RTE_ROCE_CM_PS_TCP), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_resolve_to(c, c->id[0], &absent, 0, RTE_ROCE_CM_EVENT_ADDR_ERROR,
					  &status), 0, "no MAC known, no time to wait");
	ROCE_TEST_ASSERT_EQ(status, -ETIMEDOUT, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_route(c->id[0], 0), -EINVAL, "address not resolved");
	ROCE_TEST_ASSERT_EQ(cm_resolve_to(c, c->id[0], &absent, CM_WAIT_MS,
					  RTE_ROCE_CM_EVENT_ADDR_ERROR, &status), 0, "");
	ROCE_TEST_ASSERT_EQ(status, -EHOSTUNREACH, "the port's requests went unanswered");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_addr(c->id[0], NULL, (struct sockaddr *)&absent,
						     CM_WAIT_MS), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_get_cm_event(c->ch[0], &ev), 0, "the port's failure, at once");
	ROCE_TEST_ASSERT(ev->event == RTE_ROCE_CM_EVENT_ADDR_ERROR && ev->status == -EHOSTUNREACH, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], addr_errors), 3, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], mads_sent), 0, "no REQ");
	/* The same id to the peer: resolved from the wire; a second id from the cache, at once. */
	ROCE_TEST_ASSERT_EQ(cm_resolve_to(c, c->id[0], &peer, CM_WAIT_MS,
					  RTE_ROCE_CM_EVENT_ADDR_RESOLVED, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(c->ch[0], &id, c, RTE_ROCE_CM_PS_TCP), 0, "");
	roce_test_sockaddr(&src, ipv6, 0, 0);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_addr(id, (struct sockaddr *)&src,
						     (struct sockaddr *)&peer, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_get_cm_event(c->ch[0], &ev), 0, "the MAC known: at once");
	ROCE_TEST_ASSERT_EQ(ev->event, RTE_ROCE_CM_EVENT_ADDR_RESOLVED, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(id), 0, "");
	/* A synchronous id: the error is the call's. */
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(NULL, &id, c, RTE_ROCE_CM_PS_TCP), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_addr(id, (struct sockaddr *)&src,
						     (struct sockaddr *)&absent, CM_WAIT_MS),
			    -EHOSTUNREACH, "");
	ROCE_TEST_ASSERT_EQ(id->event->event, RTE_ROCE_CM_EVENT_ADDR_ERROR, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(id), 0, "");
	/* And the first id still connects. */
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_route(c->id[0], 0), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_ROUTE_RESOLVED, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_qp_create(c, 0, c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_connect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_take_request(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_accept(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_ESTABLISHED, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 1, RTE_ROCE_CM_EVENT_ESTABLISHED, NULL), 0, "");
	return cm_env_close(c);
}

static int
test_cm_addr_error(void)
{
	return cm_addr_error(false);
}

static int
test_cm_addr_error_ipv6(void)
{
	return cm_addr_error(true);
}

/* Every MAD to side 1 lost: the REQ is sent 1 + max_cm_retries times, then UNREACHABLE. */
static int
test_cm_req_timeout(void)
{
	struct cm_env *const c = &cm_env_case;
	int status;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &c->id[0], CM_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_drop_mads(c, 1, 1, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_connect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_UNREACHABLE, &status), 0, "");
	ROCE_TEST_ASSERT_EQ(status, -ETIMEDOUT, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], retransmits), CM_MAX_RETRIES, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], timeouts), 1, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], mads_rcvd), 0, "");
	return cm_env_close(c);
}

/*
 * Every MAD to side 0 lost after its REQ went out: side 1's REP is sent
 * 1 + max_cm_retries times on its timer (and again for each REQ that comes
 * again), then given up: UNREACHABLE with -ETIMEDOUT, as rdma_cm reports
 * IB_CM_REP_ERROR, the QP in ERR; side 0 gives up its REQ the same way.
 */
static int
test_cm_rep_timeout(void)
{
	struct cm_env *const c = &cm_env_case;
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	int status;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_drop_mads(c, 0, 1, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &c->id[0], CM_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_connect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_take_request(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_accept(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 1, RTE_ROCE_CM_EVENT_UNREACHABLE, &status), 0, "");
	ROCE_TEST_ASSERT_EQ(status, -ETIMEDOUT, "");
	ROCE_TEST_ASSERT(CM_STAT(c->cm[1], retransmits) >= CM_MAX_RETRIES, "REP sent again");
	ROCE_TEST_ASSERT(CM_STAT(c->cm[1], timeouts) >= 1, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], established), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(c->id[1]->qp, &attr, IBV_QP_STATE, &init), 0, "");
	ROCE_TEST_ASSERT_EQ(attr.qp_state, IBV_QPS_ERR, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_UNREACHABLE, &status), 0, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], mads_rcvd), 0, "every REP lost");
	return cm_env_close(c);
}

/* The first REP is lost: side 1 sends it again, the connection is made once. */
static int
test_cm_rep_lost(void)
{
	struct cm_env *const c = &cm_env_case;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_drop_mads(c, 0, 1, 1), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_establish(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_send_data(c), 0, "");
	/* Sent again on B's timer, or as the answer to A's REQ sent again: which first is load's. */
	ROCE_TEST_ASSERT(CM_STAT(c->cm[1], retransmits) + CM_STAT(c->cm[1], duplicates) >= 1,
			 "REP sent again");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], established), 1, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], established), 1, "");
	ROCE_TEST_ASSERT_EQ(cm_expect_none(c, 1, ROCE_TEST_QUIET_MS), 0, "no second request");
	return cm_env_close(c);
}

/* The RTU is lost (side 1's second MAD): the REP is sent again and answered with the RTU again. */
static int
test_cm_rtu_lost(void)
{
	struct cm_env *const c = &cm_env_case;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_drop_mads(c, 1, 2, 1), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_establish(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_send_data(c), 0, "");
	ROCE_TEST_ASSERT(CM_STAT(c->cm[1], retransmits) >= 1, "REP sent again");
	ROCE_TEST_ASSERT(CM_STAT(c->cm[0], duplicates) >= 1, "REP seen again, RTU resent");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], established) + CM_STAT(c->cm[1], established), 2, "");
	return cm_env_close(c);
}

/* The DREP is lost (side 0's second MAD): the DREQ is sent again, side 1 in timewait answers. */
static int
test_cm_drep_lost(void)
{
	struct cm_env *const c = &cm_env_case;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_drop_mads(c, 0, 2, 1), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_establish(c), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_disconnect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 1, RTE_ROCE_CM_EVENT_DISCONNECTED, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_DISCONNECTED, NULL), 0, "");
	ROCE_TEST_ASSERT(CM_STAT(c->cm[0], retransmits) >= 1, "DREQ sent again");
	ROCE_TEST_ASSERT(CM_STAT(c->cm[1], duplicates) >= 1, "DREQ seen again, DREP resent");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 1, RTE_ROCE_CM_EVENT_TIMEWAIT_EXIT, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_TIMEWAIT_EXIT, NULL), 0, "");
	return cm_env_close(c);
}

/* A connected id destroyed without disconnect: the peer gets a DREQ all the same. */
/* Side 1 of test_cm_mad_loss: accept each request; count requests and connections. */
static int
cm_loss_passive(struct cm_env *c, struct rte_roce_cm_id **passive, unsigned int *nb_req,
		unsigned int *nb_est)
{
	struct rte_roce_cm_event *ev;
	struct rte_roce_cm_id *id;

	if (rte_roce_cm_get_cm_event(c->ch[1], &ev) != 0)
		return 0;
	id = ev->id;
	if (ev->event == RTE_ROCE_CM_EVENT_CONNECT_REQUEST) {
		ROCE_TEST_ASSERT(*nb_req < CM_LOSS_CONNS, "a request too many");
		passive[(*nb_req)++] = id;
		ROCE_TEST_ASSERT_EQ(cm_qp_create(c, 1, id), 0, "");
		ROCE_TEST_ASSERT_EQ(rte_roce_cm_accept(id, NULL), 0, "");
	} else {
		ROCE_TEST_ASSERT_EQ(ev->event, RTE_ROCE_CM_EVENT_ESTABLISHED, "side 1: %s (%d)",
				    rte_roce_cm_event_str(ev->event), ev->status);
		(*nb_est)++;
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	return 0;
}

/* Pump until side has got n events of type want, no other. */
static int
cm_expect_n(struct cm_env *c, unsigned int side, enum rte_roce_cm_event_type want, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ROCE_TEST_ASSERT_EQ(cm_expect(c, side, want, NULL), 0, "%u of %u", i, n);
	return 0;
}

/*
 * One round of test_cm_mad_loss (and test_cm_mad_backlog): CM_LOSS_CONNS
 * connections at once (every id resolved first, then every REQ sent without
 * progress in between), then disconnected.
 */
static int
cm_loss_round(struct cm_env *c)
{
	struct rte_roce_cm_id *active[CM_LOSS_CONNS], *passive[CM_LOSS_CONNS];
	unsigned int i, nb_req = 0, nb_est = 0, nb_act = 0;
	struct rte_roce_cm_event *ev;
	uint64_t end;

	for (i = 0; i < CM_LOSS_CONNS; i++)
		ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &active[i], CM_PORT), 0, "");
	for (i = 0; i < CM_LOSS_CONNS; i++)
		ROCE_TEST_ASSERT_EQ(cm_connect(active[i]), 0, "");
	end = roce_test_ms() + CM_LOSS_WAIT_MS;
	while (nb_act < CM_LOSS_CONNS || nb_est < CM_LOSS_CONNS) {
		ROCE_TEST_ASSERT(roce_test_ms() < end, "%u requests, %u and %u established", nb_req,
				 nb_act, nb_est);
		cm_pump(c);
		ROCE_TEST_ASSERT_EQ(cm_loss_passive(c, passive, &nb_req, &nb_est), 0, "");
		if (rte_roce_cm_get_cm_event(c->ch[0], &ev) != 0)
			continue;
		ROCE_TEST_ASSERT_EQ(ev->event, RTE_ROCE_CM_EVENT_ESTABLISHED, "side 0: %s (%d)",
				    rte_roce_cm_event_str(ev->event), ev->status);
		nb_act++;
		ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	}
	ROCE_TEST_ASSERT_EQ(nb_req, CM_LOSS_CONNS, "each requested once");
	for (i = 0; i < CM_LOSS_CONNS; i++)
		ROCE_TEST_ASSERT_EQ(rte_roce_cm_disconnect(active[i]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect_n(c, 0, RTE_ROCE_CM_EVENT_DISCONNECTED, CM_LOSS_CONNS), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect_n(c, 1, RTE_ROCE_CM_EVENT_DISCONNECTED, CM_LOSS_CONNS), 0, "");
	for (i = 0; i < CM_LOSS_CONNS; i++) {
		ROCE_TEST_ASSERT_EQ(cm_id_close(&active[i]), 0, "");
		ROCE_TEST_ASSERT_EQ(cm_id_close(&passive[i]), 0, "");
	}
	return 0;
}

/*
 * 10% of the RoCEv2 frames each side receives are lost (drivers/fault), so
 * REQ, REP, RTU, DREQ and DREP are: CM_LOSS_ROUNDS times, CM_LOSS_CONNS
 * connections at once still establish, each once (one CONNECT_REQUEST,
 * one ESTABLISHED a side), the lost messages sent again after the response
 * timeout or answered again from state, no exchange given up, and all
 * disconnect.
 */
static int
test_cm_mad_loss(void)
{
	static const struct rte_roce_cm_conf lossy = {
		.response_timeout = CM_RESPONSE_TIMEOUT,
		.max_cm_retries = CM_LOSS_RETRIES,
	};
	const struct rte_roce_fault_conf fc = { .seed = CM_FAULT_SEED, .drop = 0.1, .roce_only = true };
	struct rte_roce_fault_stats fs[2];
	struct cm_env *const c = &cm_env_case;
	unsigned int i;

	ROCE_TEST_ASSERT_EQ(cm_env_open_conf(c, false, &lossy), 0, "");
	for (i = 0; i < 2; i++)
		ROCE_TEST_ASSERT_EQ(cm_fault_attach(c, i, &fc), 0, "");
	for (i = 0; i < CM_LOSS_ROUNDS; i++)
		ROCE_TEST_ASSERT_EQ(cm_loss_round(c), 0, "round %u", i);
	for (i = 0; i < 2; i++) {
		ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(c->fault[i], &fs[i]), 0, "");
		ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[i], established), CM_LOSS_ROUNDS * CM_LOSS_CONNS,
				    "side %u", i);
		ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[i], timeouts), 0, "side %u: none given up", i);
	}
	ROCE_TEST_ASSERT(fs[0].dropped > 0 && fs[1].dropped > 0, "%" PRIu64 " and %" PRIu64 " lost",
			 fs[0].dropped, fs[1].dropped);
	ROCE_TEST_ASSERT(CM_STAT(c->cm[0], retransmits) > 0 && CM_STAT(c->cm[1], retransmits) > 0,
			 "");
	printf("# %" PRIu64 " of %" PRIu64 " and %" PRIu64 " of %" PRIu64 " MADs lost, %" PRIu64
	       " and %" PRIu64 " sent again\n", fs[0].dropped, fs[0].roce, fs[1].dropped,
	       fs[1].roce, CM_STAT(c->cm[0], retransmits), CM_STAT(c->cm[1], retransmits));
	return cm_env_close(c);
}

/*
 * Two MAD slots each way: the eight REQs sent at once find two slots and
 * wait in the backlog for the others (as Linux's MAD layer queues sends
 * beyond its send queue); every connection establishes once, nothing is
 * lost, and the DREQs queue the same way.
 */
static int
test_cm_mad_backlog(void)
{
	static const struct rte_roce_cm_conf two_slots = { .mad_slots = 2 };
	struct cm_env *const c = &cm_env_case;
	unsigned int i;

	ROCE_TEST_ASSERT_EQ(cm_env_open_conf(c, false, &two_slots), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_loss_round(c), 0, "");
	for (i = 0; i < 2; i++) {
		ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[i], established), CM_LOSS_CONNS, "side %u", i);
		ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[i], send_errors), 0, "side %u", i);
		ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[i], retransmits), 0, "side %u", i);
	}
	ROCE_TEST_ASSERT(CM_STAT(c->cm[0], mads_queued) >= CM_LOSS_CONNS - 2,
			 "%" PRIu64 " REQs waited", CM_STAT(c->cm[0], mads_queued));
	return cm_env_close(c);
}

/* Side 1 takes n CONNECT_REQUESTs, their new ids into ids[] (left unanswered). */
static int
cm_take_requests(struct cm_env *c, struct rte_roce_cm_id **ids, unsigned int n)
{
	struct rte_roce_cm_event *ev;
	unsigned int i;

	for (i = 0; i < n; i++) {
		ROCE_TEST_ASSERT_EQ(cm_wait_event(c, 1, RTE_ROCE_CM_EVENT_CONNECT_REQUEST, &ev), 0,
				    "%u of %u", i, n);
		ids[i] = ev->id;
		ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	}
	return 0;
}

/*
 * One slot and a backlog of one: the first REQ is sent, the second waits,
 * the third has nowhere to go and connect says so (-ENOMEM), counted in
 * send_errors; memory stays bounded.
 */
static int
test_cm_mad_backlog_full(void)
{
	static const struct rte_roce_cm_conf tiny = { .mad_slots = 1, .mad_backlog = 1 };
	struct cm_env *const c = &cm_env_case;
	struct rte_roce_cm_id *id[3], *passive[3];
	unsigned int i;

	ROCE_TEST_ASSERT_EQ(cm_env_open_conf(c, false, &tiny), 0, "");
	for (i = 0; i < RTE_DIM(id); i++)
		ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &id[i], CM_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(id[0], &connect_param), 0, "sent");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(id[1], &connect_param), 0, "queued");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(id[2], &connect_param), -ENOMEM, "backlog full");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], mads_queued), 1, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], send_errors), 1, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], mads_sent), 1, "");
	/* the refused id is as before the call: once the backlog drains, it connects */
	ROCE_TEST_ASSERT_EQ(cm_take_requests(c, passive, 2), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(id[2], &connect_param), 0, "again");
	ROCE_TEST_ASSERT_EQ(cm_take_requests(c, passive + 2, 1), 0, "");
	for (i = 0; i < RTE_DIM(id); i++)
		ROCE_TEST_ASSERT_EQ(cm_id_close(&id[i]), 0, "");
	for (i = 0; i < RTE_DIM(passive); i++)
		ROCE_TEST_ASSERT_EQ(cm_id_close(&passive[i]), 0, "");
	return cm_env_close(c);
}

static int
test_cm_destroy_connected(void)
{
	struct cm_env *const c = &cm_env_case;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_establish(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_id_close(&c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 1, RTE_ROCE_CM_EVENT_DISCONNECTED, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_wait_stat_change(c, c->cm[0], offsetof(struct rte_roce_cm_stats,
							    drop_comm_id), 0), 1, "the DREP finds no id");
	return cm_env_close(c);
}

/* Move an application's QP through INIT, RTR and RTS with the CM's attributes. */
static int
cm_app_qp_ready(struct rte_roce_cm_id *id, struct ibv_qp *qp)
{
	static const enum ibv_qp_state steps[] = { IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS };
	struct ibv_qp_attr attr;
	unsigned int i;
	int mask;

	for (i = 0; i < RTE_DIM(steps); i++) {
		attr.qp_state = steps[i];
		ROCE_TEST_ASSERT_EQ(rte_roce_cm_init_qp_attr(id, &attr, &mask), 0, "state %d", steps[i]);
		ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(qp, &attr, mask), 0, "state %d", steps[i]);
	}
	return 0;
}

/*
 * An active id without a QP (the application's own, announced by qp_num):
 * CONNECT_RESPONSE; the application is slow, the REP comes again and gets
 * an MRA; then the QP is moved with init_qp_attr and establish sends the RTU.
 */
static int
test_cm_connect_response_establish(void)
{
	struct rte_roce_cm_conn_param p = connect_param;
	struct ibv_qp_attr attr;
	struct ibv_qp *qp;
	struct cm_env *const c = &cm_env_case;
	int mask;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_active_resolve(c, &c->id[0], CM_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(roce_test_qp_create(&c->e.s[0], IBV_QPT_RC, &qp), 0, "");
	attr.qp_state = IBV_QPS_RTR;
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_init_qp_attr(c->id[0], &attr, &mask), -EINVAL, "no peer yet");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(c->id[0], &p), -EINVAL, "no QP, no qp_num");
	p.qp_num = qp->qp_num;
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(c->id[0], &p), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_take_request(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_accept(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_CONNECT_RESPONSE, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_wait_stat_change(c, c->cm[1], offsetof(struct rte_roce_cm_stats,
							    mra_rcvd), 0), 1, "MRA for the REP");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], mra_sent), 1, "");
	ROCE_TEST_ASSERT_EQ(cm_app_qp_ready(c->id[0], qp), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_establish(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_establish(c->id[0]), -EINVAL, "established already");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 1, RTE_ROCE_CM_EVENT_ESTABLISHED, NULL), 0, "");
	c->id[0]->qp = qp;	/* cm_send_data() sends on it; destroyed by cm_id_close() */
	ROCE_TEST_ASSERT_EQ(cm_send_data(c), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp), 0, "");
	c->id[0]->qp = NULL;
	return cm_env_close(c);
}

/*
 * rdma_migrate_id(): an id's event not taken yet goes with it to another
 * channel; an event taken and not acknowledged refuses the move (nothing
 * moved); to no channel the id becomes synchronous (resolve_route returns
 * with its event); the channel left can then be destroyed.
 */
static int
test_cm_migrate_id(void)
{
	struct cm_env *const c = &cm_env_case;
	struct rte_roce_cm_channel *other;
	struct rte_roce_cm_event *ev;
	struct rte_roce_cm_id *id;
	struct sockaddr_storage src, own;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	other = rte_roce_cm_create_event_channel();
	ROCE_TEST_ASSERT(other != NULL, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_migrate_id(NULL, other), -EINVAL, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(c->ch[0], &id, c, RTE_ROCE_CM_PS_TCP), 0, "");
	roce_test_sockaddr(&src, c->ipv6, 0, 0);
	roce_test_sockaddr(&own, c->ipv6, 0, CM_PORT);	/* our own address: resolved at once */
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_addr(id, (struct sockaddr *)&src,
						     (struct sockaddr *)&own, 1000), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_migrate_id(id, other), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_get_cm_event(c->ch[0], &ev), -EAGAIN, "moved away");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_get_cm_event(other, &ev), 0, "moved here");
	ROCE_TEST_ASSERT(ev->id == id && ev->event == RTE_ROCE_CM_EVENT_ADDR_RESOLVED, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_migrate_id(id, c->ch[0]), -EBUSY, "taken, not acknowledged");
	ROCE_TEST_ASSERT_EQ(id->channel, other, "nothing moved");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_migrate_id(id, NULL), 0, "synchronous");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_event_channel(other), 0, "left by its only id");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_route(id, 1000), 0, "");
	ROCE_TEST_ASSERT(id->event != NULL && id->event->event == RTE_ROCE_CM_EVENT_ROUTE_RESOLVED,
			 "the synchronous call's event");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(id), 0, "");
	return cm_env_close(c);
}

/*
 * rdma_notify(): side 1 accepts and, before its RTU can have come (nothing
 * is pumped between), tells its CM of the QP's COMM_EST: ESTABLISHED at
 * once, the RTU then only a late copy; a second COMM_EST, PATH_MIG (no
 * alternate path) and an id not waiting for an RTU are refused.
 */
static int
test_cm_notify_comm_est(void)
{
	struct cm_env *const c = &cm_env_case;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &c->id[0], CM_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_notify(NULL, IBV_EVENT_COMM_EST), -EINVAL, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_notify(c->id[0], IBV_EVENT_COMM_EST), -EINVAL,
			    "not connecting");
	ROCE_TEST_ASSERT_EQ(cm_connect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_take_request(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_accept(c), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_notify(c->id[1], IBV_EVENT_PATH_MIG), -EINVAL, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_notify(c->id[1], IBV_EVENT_COMM_EST), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_notify(c->id[1], IBV_EVENT_COMM_EST), -EISCONN, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], established), 1, "before any RTU");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 1, RTE_ROCE_CM_EVENT_ESTABLISHED, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_ESTABLISHED, NULL), 0, "");
	ROCE_TEST_ASSERT(cm_wait_stat_change(c, c->cm[1], offsetof(struct rte_roce_cm_stats,
								    duplicates), 0) >= 1,
			 "the RTU, a late copy");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], established), 1, "one connection");
	ROCE_TEST_ASSERT_EQ(cm_expect_none(c, 1, ROCE_TEST_QUIET_MS), 0, "no second ESTABLISHED");
	ROCE_TEST_ASSERT_EQ(cm_send_data(c), 0, "");
	return cm_env_close(c);
}

/*
 * The application on side 1 is slow: the REQ is sent again, the duplicate
 * is answered with an MRA (no second connection request), the acceptance
 * then makes one connection.
 */
static int
test_cm_duplicate_req_mra(void)
{
	struct cm_env *const c = &cm_env_case;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &c->id[0], CM_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_connect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_take_request(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_wait_stat_change(c, c->cm[0], offsetof(struct rte_roce_cm_stats,
							    mra_rcvd), 0), 1, "MRA");
	/* Under load the REQ may come again more than once before the MRA is out: MRA again. */
	ROCE_TEST_ASSERT(CM_STAT(c->cm[0], retransmits) >= 1, "REQ sent again");
	ROCE_TEST_ASSERT(CM_STAT(c->cm[1], duplicates) >= 1, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], mra_sent), 1, "one MRA made, resent from state");
	ROCE_TEST_ASSERT_EQ(cm_accept(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_ESTABLISHED, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 1, RTE_ROCE_CM_EVENT_ESTABLISHED, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_send_data(c), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect_none(c, 1, ROCE_TEST_QUIET_MS), 0, "no second request");
	return cm_env_close(c);
}

/*
 * A MAD as the test sends it from a plain UD QP, the counter it must bump on
 * side 1, and the status of the GetResp that answers a GET or SET (0: none).
 */
struct cm_bad_mad {
	const char *what;
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;
	uint16_t attr_id;
	uint32_t len;
	size_t counter;
	uint16_t status;
};

/* Dropped and counted under f; dropped, counted and answered with status st. */
#define CM_DROP(f) CM_DROP_ANSWERED(f, 0)
#define CM_DROP_ANSWERED(f, st) offsetof(struct rte_roce_cm_stats, f), st

static const struct cm_bad_mad bad_mads[] = {
	{ "base version 2", 2, 0x07, 2, 0x03, 0x0010, 256, CM_DROP(drop_base_version) },
	{ "class SA", 1, 0x03, 2, 0x03, 0x0010, 256, CM_DROP(drop_class) },
	{ "class version 1", 1, 0x07, 1, 0x03, 0x0010, 256, CM_DROP(drop_class_version) },
	{ "REQ with GET", 1, 0x07, 2, 0x01, 0x0010, 256,
	  CM_DROP_ANSWERED(drop_method, RTE_ROCE_MAD_STATUS_UNSUPPORTED_ATTR) },
	{ "unknown attribute", 1, 0x07, 2, 0x03, 0x0030, 256, CM_DROP(drop_attr) },
	{ "LAP of no connection", 1, 0x07, 2, 0x03, 0x0019, 256, CM_DROP(drop_comm_id) },
	{ "short LAP", 1, 0x07, 2, 0x03, 0x0019, CM_SHORT_LEN, CM_DROP(drop_length) },
	{ "GET of LAP", 1, 0x07, 2, 0x01, 0x0019, 256,
	  CM_DROP_ANSWERED(drop_method, RTE_ROCE_MAD_STATUS_UNSUPPORTED_ATTR) },
	{ "APR of no connection", 1, 0x07, 2, 0x03, 0x001a, 256, CM_DROP(drop_comm_id) },
	{ "SET of ClassPortInfo", 1, 0x07, 2, 0x02, 0x0001, 256,
	  CM_DROP_ANSWERED(drop_method, RTE_ROCE_MAD_STATUS_UNSUPPORTED_METHOD) },
	{ "GET in class version 1", 1, 0x07, 1, 0x01, 0x0001, 256,
	  CM_DROP_ANSWERED(drop_class_version, RTE_ROCE_MAD_STATUS_BAD_VERSION) },
	{ "GET of class SA", 1, 0x03, 2, 0x01, 0x0001, 256, CM_DROP(drop_class) },
	{ "short MAD", 1, 0x07, 2, 0x03, 0x0010, CM_SHORT_LEN, CM_DROP(drop_length) },
	{ "RTU of no connection", 1, 0x07, 2, 0x03, 0x0014, 256, CM_DROP(drop_comm_id) },
	{ "DREQ of no connection", 1, 0x07, 2, 0x03, 0x0015, 256, CM_DROP(drop_comm_id) },
	{ "REQ without rdma_cm header", 1, 0x07, 2, 0x03, 0x0010, 256, CM_DROP(drop_field) },
	{ "SIDR_REQ with GET", 1, 0x07, 2, 0x01, 0x0017, 256,
	  CM_DROP_ANSWERED(drop_method, RTE_ROCE_MAD_STATUS_UNSUPPORTED_ATTR) },
	{ "short SIDR_REQ", 1, 0x07, 2, 0x03, 0x0017, CM_SHORT_LEN, CM_DROP(drop_length) },
	{ "SIDR_REP of no request", 1, 0x07, 2, 0x03, 0x0018, 256, CM_DROP(drop_comm_id) },
	{ "SIDR_REQ without rdma_cm header", 1, 0x07, 2, 0x03, 0x0017, 256, CM_DROP(drop_field) },
};

/* Send len bytes of side 0's buffer from its UD QP qp to side 1's QP1. */
static int
cm_post_raw(struct cm_env *c, struct ibv_qp *qp, struct ibv_ah *ah, uint32_t len)
{
	struct roce_test_side *a = &c->e.s[0];
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_sge sge = { .addr = (uintptr_t)a->buf, .length = len, .lkey = a->mr->lkey };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = RTE_ROCE_QP1_QPN;
	wr.wr.ud.remote_qkey = RTE_ROCE_QP1_QKEY;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(qp, &wr, &bad), 0, "");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc_ctx(a->ctx, c->e.s[1].ctx, a->scq, &wc, 1, CM_WAIT_MS),
			    1, "");
	ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_SUCCESS, "");
	return 0;
}

/* Side 0's send buffer as a CM message attr with TID tid, from comm ID local to remote. */
static struct rte_roce_mad *
cm_raw_msg(struct cm_env *c, uint16_t attr, uint64_t tid, uint32_t local, uint32_t remote)
{
	struct rte_roce_mad *mad = (struct rte_roce_mad *)c->e.s[0].buf;
	struct rte_roce_cm_rtu ids = {	/* every connection message starts with both comm IDs */
		.local_comm_id = rte_cpu_to_be_32(local),
		.remote_comm_id = rte_cpu_to_be_32(remote),
	};

	memset(mad, 0, sizeof(*mad));
	mad->hdr.base_version = RTE_ROCE_MAD_BASE_VERSION;
	mad->hdr.mgmt_class = RTE_ROCE_MGMT_CLASS_CM;
	mad->hdr.class_version = RTE_ROCE_CM_CLASS_VERSION;
	mad->hdr.method = RTE_ROCE_MAD_METHOD_SEND;
	mad->hdr.tid = rte_cpu_to_be_64(tid);
	mad->hdr.attr_id = rte_cpu_to_be_16(attr);
	memcpy(mad->data, &ids, sizeof(ids));
	return mad;
}

static int
cm_send_raw(struct cm_env *c, struct ibv_qp *qp, struct ibv_ah *ah, const struct cm_bad_mad *m)
{
	/* remote comm ID 0: no connection of side 1 */
	struct rte_roce_mad *mad = cm_raw_msg(c, m->attr_id, CM_RAW_TID, CM_RAW_COMM_ID, 0);

	mad->hdr.base_version = m->base_version;
	mad->hdr.mgmt_class = m->mgmt_class;
	mad->hdr.class_version = m->class_version;
	mad->hdr.method = m->method;
	return cm_post_raw(c, qp, ah, m->len);
}

/* Where side 0's raw UD QP receives the GetResps of side 1: past what it sends. */
#define CM_STATUS_RECV_OFF	4096u

/*
 * The GetResp that answers m, received by side 0's raw UD QP qp (from
 * side 1's QP1, to the QP that asked): same TID and attribute, the
 * status m names; none at all when m names none.
 */
static int
cm_expect_status(struct cm_env *c, const struct cm_bad_mad *m)
{
	struct roce_test_side *a = &c->e.s[0];
	const struct rte_roce_mad *resp =
		(const struct rte_roce_mad *)(a->buf + CM_STATUS_RECV_OFF + RTE_ROCE_GRH_LEN);
	struct ibv_wc wc;

	if (m->status == 0)
		return 0;
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc_ctx(a->ctx, c->e.s[1].ctx, a->rcq, &wc, 1, CM_WAIT_MS),
			    1, "%s: a GetResp", m->what);
	ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_SUCCESS, "");
	ROCE_TEST_ASSERT_EQ(wc.byte_len, RTE_ROCE_GRH_LEN + RTE_ROCE_MAD_LEN, "");
	ROCE_TEST_ASSERT_EQ(wc.src_qp, RTE_ROCE_QP1_QPN, "from side 1's QP1");
	ROCE_TEST_ASSERT_EQ(resp->hdr.method, RTE_ROCE_MAD_METHOD_GET_RESP, "%s", m->what);
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_16(resp->hdr.status), m->status, "%s", m->what);
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_64(resp->hdr.tid), 0x1234, "");
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_16(resp->hdr.attr_id), m->attr_id, "");
	return 0;
}

static int
test_cm_malformed_mads(void)
{
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct cm_env *const c = &cm_env_case;
	unsigned int i;
	uint64_t before;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(roce_test_qp_create(&c->e.s[0], IBV_QPT_UD, &qp), 0, "");
	ROCE_TEST_ASSERT_EQ(roce_test_ud_qp_ready(qp, RTE_ROCE_QP1_QKEY), 0, "");
	ah = roce_test_ah_create(&c->e.s[0], ROCE_TEST_ADDR_B);
	ROCE_TEST_ASSERT(ah != NULL, "ah");
	for (i = 0; i < RTE_DIM(bad_mads); i++) {
		before = cm_stat(c->cm[1], bad_mads[i].counter);
		if (bad_mads[i].status != 0)
			ROCE_TEST_ASSERT_EQ(roce_test_post_recv(qp, i, c->e.s[0].buf + CM_STATUS_RECV_OFF,
								RTE_ROCE_GRH_LEN + RTE_ROCE_MAD_LEN,
								c->e.s[0].mr->lkey), 0, "");
		ROCE_TEST_ASSERT_EQ(cm_send_raw(c, qp, ah, &bad_mads[i]), 0, "%s", bad_mads[i].what);
		ROCE_TEST_ASSERT_EQ(cm_wait_stat_change(c, c->cm[1], bad_mads[i].counter, before),
				    before + 1, "%s", bad_mads[i].what);
		ROCE_TEST_ASSERT_EQ(cm_expect_status(c, &bad_mads[i]), 0, "");
	}
	ROCE_TEST_ASSERT_EQ(cm_expect_none(c, 1, ROCE_TEST_QUIET_MS), 0, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], mads_rcvd), RTE_DIM(bad_mads), "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], status_sent), 5, "each GET and SET answered");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], apr_sent), 1, "the LAP of no connection answered");
	/*
	 * The DREQ of no connection got a DREP, the LAP an APR, the REQ
	 * without rdma_cm's header a REJ and the SIDR_REQ without it a
	 * SIDR_REP (service ID not supported); side 0 has no connection or
	 * request of that ID either.
	 */
	ROCE_TEST_ASSERT_EQ(cm_wait_stat(c, c->cm[0], CM_COUNTER(drop_comm_id), 4), 4, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_ah(ah), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp), 0, "");
	/* The CM still connects after all that. */
	ROCE_TEST_ASSERT_EQ(cm_establish(c), 0, "");
	return cm_env_close(c);
}

/*
 * Up to n MADs of attribute attr in the capture at path (UD SENDs to QP1,
 * in and out), in their order; how many, or -1 when the file is unreadable.
 */
static int
cm_captured_mads(const char *path, uint16_t attr, struct rte_roce_mad *mads, unsigned int n)
{
	pcap_t *p = roce_test_pcap_open(path);
	uint32_t caplen, origlen;
	struct rte_roce_pkt pkt;
	struct rte_roce_mad mad;
	const uint8_t *frame;
	unsigned int nb = 0;
	int rc;

	if (p == NULL)
		return -1;
	while ((rc = roce_test_pcap_next(p, &frame, &caplen, &origlen)) == 1) {
		if (rte_roce_pkt_parse(frame, caplen, CM_CAPTURE_MTU, &pkt) != RTE_ROCE_DROP_NONE ||
		    pkt.dqpn != RTE_ROCE_QP1_QPN || pkt.payload_len != RTE_ROCE_MAD_LEN)
			continue;
		memcpy(&mad, frame + pkt.payload_off, sizeof(mad));
		if (rte_be_to_cpu_16(mad.hdr.attr_id) == attr && nb < n)
			mads[nb++] = mad;
	}
	pcap_close(p);
	return rc == 0 ? (int)nb : -1;
}

/* The APR side 1 sent: a SEND of the CM class, with TID tid, status and comm IDs local, remote. */
static int
cm_check_apr(const struct rte_roce_mad *mad, uint64_t tid, uint8_t status, uint32_t local,
	     uint32_t remote)
{
	struct rte_roce_cm_apr apr;

	memcpy(&apr, mad->data, sizeof(apr));
	ROCE_TEST_ASSERT_EQ(mad->hdr.mgmt_class, RTE_ROCE_MGMT_CLASS_CM, "");
	ROCE_TEST_ASSERT_EQ(mad->hdr.class_version, RTE_ROCE_CM_CLASS_VERSION, "");
	ROCE_TEST_ASSERT_EQ(mad->hdr.method, RTE_ROCE_MAD_METHOD_SEND, "");
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_64(mad->hdr.tid), tid, "the LAP's TID");
	ROCE_TEST_ASSERT_EQ(apr.ap_status, status, "");
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_32(apr.local_comm_id), local, "");
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_32(apr.remote_comm_id), remote, "");
	return 0;
}

/* Side 0's raw message attr (of len bytes) is read by side 1's CM, and counted under off there. */
static int
cm_raw_counted(struct cm_env *c, struct ibv_qp *qp, struct ibv_ah *ah, uint32_t len, size_t off)
{
	uint64_t before = cm_stat(c->cm[1], off);

	ROCE_TEST_ASSERT_EQ(cm_post_raw(c, qp, ah, len), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_wait_stat_change(c, c->cm[1], off, before), before + 1, "");
	return 0;
}

/*
 * Path migration asked of a RoCE connection: a LAP naming the established
 * connection is answered with an APR "alternate paths not supported", one
 * naming none with "invalid communication instance", both with the LAP's
 * TID to the LAP's sender's QP1 (side 0's CM, which drops them: it sent
 * no LAP); a short LAP is dropped unanswered; an APR to side 1 is dropped.
 * The connection stays up and carries data. Side 1's wire is captured to
 * learn the comm IDs (from the REP) and to read the APRs.
 */
static int
test_cm_lap(void)
{
	struct rte_roce_mad mads[CM_CAPTURE_MADS];
	char path[] = "/tmp/roce_cm_lap_XXXXXX";
	struct cm_env *const c = &cm_env_case;
	uint32_t active, passive;
	struct rte_roce_cm_rep rep;
	uint64_t drops;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	int fd;

	fd = mkstemp(path);
	ROCE_TEST_ASSERT(fd >= 0, "mkstemp");
	close(fd);
	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_capture_start(c->e.s[1].port, path), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_establish(c), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_capture_stop(c->e.s[1].port), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_captured_mads(path, RTE_ROCE_CM_ATTR_REP, mads, 1), 1, "the REP");
	memcpy(&rep, mads[0].data, sizeof(rep));
	passive = rte_be_to_cpu_32(rep.local_comm_id);
	active = rte_be_to_cpu_32(rep.remote_comm_id);
	ROCE_TEST_ASSERT_EQ(roce_test_qp_create(&c->e.s[0], IBV_QPT_UD, &qp), 0, "");
	ROCE_TEST_ASSERT_EQ(roce_test_ud_qp_ready(qp, RTE_ROCE_QP1_QKEY), 0, "");
	ah = roce_test_ah_create(&c->e.s[0], ROCE_TEST_ADDR_B);
	ROCE_TEST_ASSERT(ah != NULL, "ah");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_capture_start(c->e.s[1].port, path), 0, "");
	drops = CM_STAT(c->cm[0], drop_state);
	cm_raw_msg(c, RTE_ROCE_CM_ATTR_LAP, CM_RAW_TID, active, passive);
	ROCE_TEST_ASSERT_EQ(cm_raw_counted(c, qp, ah, RTE_ROCE_MAD_LEN, CM_COUNTER(apr_sent)), 0,
			    "LAP of the connection");
	ROCE_TEST_ASSERT_EQ(cm_wait_stat(c, c->cm[0], CM_COUNTER(drop_state), drops + 1), drops + 1,
			    "its APR at side 0: no LAP of its own");
	drops = CM_STAT(c->cm[0], drop_comm_id);
	cm_raw_msg(c, RTE_ROCE_CM_ATTR_LAP, CM_RAW_TID + 1, CM_RAW_COMM_ID, 0);
	ROCE_TEST_ASSERT_EQ(cm_raw_counted(c, qp, ah, RTE_ROCE_MAD_LEN, CM_COUNTER(drop_comm_id)),
			    0, "LAP of no connection");
	ROCE_TEST_ASSERT_EQ(cm_wait_stat(c, c->cm[0], CM_COUNTER(drop_comm_id), drops + 1),
			    drops + 1, "its APR at side 0: no such connection");
	cm_raw_msg(c, RTE_ROCE_CM_ATTR_LAP, CM_RAW_TID + 2, active, passive);
	ROCE_TEST_ASSERT_EQ(cm_raw_counted(c, qp, ah, CM_SHORT_LEN, CM_COUNTER(drop_length)), 0,
			    "short LAP");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_capture_stop(c->e.s[1].port), 0, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], apr_sent), 2, "the short LAP unanswered");
	ROCE_TEST_ASSERT_EQ(cm_captured_mads(path, RTE_ROCE_CM_ATTR_APR, mads, CM_CAPTURE_MADS), 2,
			    "two APRs on the wire");
	ROCE_TEST_ASSERT_EQ(cm_check_apr(&mads[0], CM_RAW_TID, RTE_ROCE_CM_APR_UNSUPPORTED,
					 passive, active), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_check_apr(&mads[1], CM_RAW_TID + 1, RTE_ROCE_CM_APR_INVALID_COMM_ID,
					 0, CM_RAW_COMM_ID), 0, "");
	unlink(path);
	/* An APR to side 1, which sent no LAP: dropped by the connection's state. */
	cm_raw_msg(c, RTE_ROCE_CM_ATTR_APR, CM_RAW_TID + 3, active, passive);
	ROCE_TEST_ASSERT_EQ(cm_raw_counted(c, qp, ah, RTE_ROCE_MAD_LEN, CM_COUNTER(drop_state)), 0,
			    "APR");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], apr_sent), 2, "an APR unanswered");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_ah(ah), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect_none(c, 0, ROCE_TEST_QUIET_MS), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect_none(c, 1, ROCE_TEST_QUIET_MS), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_send_data(c), 0, "the connection carries data still");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], established) + CM_STAT(c->cm[1], established), 2, "");
	return cm_env_close(c);
}

/*
 * A REQ for the listener as Linux's rdma_cm makes it (rdma_cm's header,
 * service ID of RDMA_PS_TCP and CM_PORT), from side 0's UD QP, with the
 * sender's comm_id, path MTU and transport.
 */
static int
cm_send_req_raw(struct cm_env *c, struct ibv_qp *qp, struct ibv_ah *ah, uint32_t comm_id,
		uint8_t mtu, uint8_t transport)
{
	struct rte_roce_mad *mad = cm_raw_msg(c, RTE_ROCE_CM_ATTR_REQ, comm_id, 0, 0);
	struct rte_roce_cm_req req;
	struct rte_roce_cma_hdr h;
	union rte_roce_gid gid;

	memset(&req, 0, sizeof(req));
	req.local_comm_id = rte_cpu_to_be_32(comm_id);
	req.service_id = rte_cpu_to_be_64(RTE_ROCE_CMA_SERVICE_ID(RTE_ROCE_CMA_PS_TCP, CM_PORT));
	req.local_ca_guid = rte_cpu_to_be_64(CM_FLOOD_GUID);
	req.qpn_resp_res = rte_cpu_to_be_32(CM_FLOOD_QPN << RTE_ROCE_CM_QPN_SHIFT);
	req.eecn_timeout_type = rte_cpu_to_be_32(CM_RESPONSE_TIMEOUT <<
		RTE_ROCE_CM_REQ_REMOTE_TIMEOUT_SHIFT | transport << RTE_ROCE_CM_REQ_TRANSPORT_SHIFT);
	req.psn_timeout_retry = rte_cpu_to_be_32(CM_RESPONSE_TIMEOUT <<
						 RTE_ROCE_CM_REQ_LOCAL_TIMEOUT_SHIFT);
	req.mtu_rdc_rnr = mtu << RTE_ROCE_CM_REQ_MTU_SHIFT;
	req.max_cm_retries_srq = CM_MAX_RETRIES << RTE_ROCE_CM_REQ_MAX_RETRIES_SHIFT;
	memset(&h, 0, sizeof(h));
	h.version = RTE_ROCE_CMA_VERSION;
	h.ip_version = 4 << RTE_ROCE_CMA_IP_VERSION_SHIFT;
	h.port = RTE_BE16(CM_OTHER_PORT);
	inet_pton(AF_INET, ROCE_TEST_ADDR_A, &h.src.ip4.addr);
	inet_pton(AF_INET, ROCE_TEST_ADDR_B, &h.dst.ip4.addr);
	memcpy(req.private_data, &h, sizeof(h));
	rte_roce_gid_from_ipv4(&gid, h.src.ip4.addr);
	memcpy(req.primary.local_gid, gid.raw, sizeof(gid.raw));
	rte_roce_gid_from_ipv4(&gid, h.dst.ip4.addr);
	memcpy(req.primary.remote_gid, gid.raw, sizeof(gid.raw));
	memcpy(mad->data, &req, sizeof(req));
	return cm_post_raw(c, qp, ah, RTE_ROCE_MAD_LEN);
}

/* The same REQ, and side 1's CM has read it. */
static int
cm_flood_req(struct cm_env *c, struct ibv_qp *qp, struct ibv_ah *ah, uint32_t comm_id,
	     uint8_t mtu, uint8_t transport)
{
	uint64_t before = CM_STAT(c->cm[1], mads_rcvd);

	ROCE_TEST_ASSERT_EQ(cm_send_req_raw(c, qp, ah, comm_id, mtu, transport), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_wait_stat_change(c, c->cm[1], offsetof(struct rte_roce_cm_stats,
				mads_rcvd), before), before + 1, "REQ %#x read", comm_id);
	return 0;
}

/*
 * A peer that sends more REQs than the CM holds ids (max_ids): those
 * beyond are rejected with reason 3, "no resources" (IBTA Vol. 1 §12.6.7,
 * REJ reason codes), counted, with no id made; the ids made are at most
 * max_ids; a REQ sent again is answered from its id (an MRA, then the MRA
 * again), never a second request; REQs with a path MTU or transport we
 * cannot serve are rejected and counted; and once the application answered
 * the requests, the listener connects as before.
 */
static int
test_cm_req_flood(void)
{
	static const struct rte_roce_cm_conf small = {
		.response_timeout = CM_RESPONSE_TIMEOUT,
		.max_cm_retries = CM_MAX_RETRIES,
		.max_ids = CM_FLOOD_MAX_IDS,
	};
	struct rte_roce_cm_id *held[CM_FLOOD_MAX_IDS];
	struct cm_env *const c = &cm_env_case;
	struct rte_roce_cm_event *ev;
	unsigned int i, nb_held = 0;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	int status;

	ROCE_TEST_ASSERT_EQ(cm_env_open_conf(c, false, &small), 0, "");
	ROCE_TEST_ASSERT_EQ(roce_test_qp_create(&c->e.s[0], IBV_QPT_UD, &qp), 0, "");
	ROCE_TEST_ASSERT_EQ(roce_test_ud_qp_ready(qp, RTE_ROCE_QP1_QKEY), 0, "");
	ah = roce_test_ah_create(&c->e.s[0], ROCE_TEST_ADDR_B);
	ROCE_TEST_ASSERT(ah != NULL, "ah");
	ROCE_TEST_ASSERT_EQ(cm_flood_req(c, qp, ah, CM_FLOOD_COMM_ID, 0, RTE_ROCE_CM_TRANSPORT_RC),
			    0, "path MTU 0");
	ROCE_TEST_ASSERT_EQ(cm_flood_req(c, qp, ah, CM_FLOOD_COMM_ID, IBV_MTU_1024,
					 RTE_ROCE_CM_TRANSPORT_RD), 0, "RD");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], drop_field), 2, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], rej_sent), 2, "");
	for (i = 0; i < CM_FLOOD_REQS; i++)
		ROCE_TEST_ASSERT_EQ(cm_flood_req(c, qp, ah, CM_FLOOD_COMM_ID + i, IBV_MTU_1024,
						 RTE_ROCE_CM_TRANSPORT_RC), 0, "REQ %u", i);
	/* The listener is an id too: max_ids - 1 requests held, the rest refused. */
	while (rte_roce_cm_get_cm_event(c->ch[1], &ev) == 0) {
		ROCE_TEST_ASSERT(ev->event == RTE_ROCE_CM_EVENT_CONNECT_REQUEST &&
				 nb_held < CM_FLOOD_MAX_IDS, "%s, %u held",
				 rte_roce_cm_event_str(ev->event), nb_held);
		held[nb_held++] = ev->id;
		ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	}
	ROCE_TEST_ASSERT_EQ(nb_held, CM_FLOOD_MAX_IDS - 1, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], backlog_full), CM_FLOOD_REQS - nb_held, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], rej_sent), 2 + CM_FLOOD_REQS - nb_held, "");
	/* The first REQ again, twice: the MRA, then the MRA again; no new request. */
	for (i = 0; i < 2; i++)
		ROCE_TEST_ASSERT_EQ(cm_flood_req(c, qp, ah, CM_FLOOD_COMM_ID, IBV_MTU_1024,
						 RTE_ROCE_CM_TRANSPORT_RC), 0, "REQ again");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], mra_sent), 1, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], duplicates), 2, "");
	ROCE_TEST_ASSERT_EQ(cm_expect_none(c, 1, ROCE_TEST_QUIET_MS), 0, "");
	/* A real peer meanwhile: refused with the same reason. */
	ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &c->id[0], CM_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_connect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_REJECTED, &status), 0, "");
	ROCE_TEST_ASSERT_EQ(status, RTE_ROCE_CM_REJ_NO_RESOURCES, "");
	ROCE_TEST_ASSERT_EQ(cm_id_close(&c->id[0]), 0, "");
	for (i = 0; i < nb_held; i++) {
		ROCE_TEST_ASSERT_EQ(rte_roce_cm_reject(held[i], NULL, 0), 0, "");
		ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(held[i]), 0, "");
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_ah(ah), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_establish(c), 0, "the listener serves again");
	return cm_env_close(c);
}

/* A UD QP on a UDP id of side: ready at once (RTS), with rdma_cm's Q_Key. */
static int
cm_ud_qp_create(struct cm_env *c, unsigned int side, struct rte_roce_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = c->e.s[side].scq,
		.recv_cq = c->e.s[side].rcq,
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_qp(id, c->e.s[side].pd, &attr), 0, "create_qp");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(id->qp, &a, 0, &ia), 0, "");
	ROCE_TEST_ASSERT(a.qp_state == IBV_QPS_RTS && a.qkey == RTE_ROCE_CM_UDP_QKEY, "state %d qkey %#x",
			 a.qp_state, a.qkey);
	return 0;
}

/* A UD SEND from side 0's id to the peer of its ESTABLISHED event, received by side 1's id. */
static int
cm_ud_send(struct cm_env *c, struct rte_roce_cm_id *from, struct rte_roce_cm_id *to,
	   struct rte_roce_cm_ud_param *ud)
{
	struct roce_test_side *a = &c->e.s[0], *b = &c->e.s[1];
	struct ibv_sge rs = { .addr = (uintptr_t)b->buf, .length = RTE_ROCE_GRH_LEN + CM_MSG_LEN,
			      .lkey = b->mr->lkey };
	struct ibv_sge ss = { .addr = (uintptr_t)a->buf, .length = CM_MSG_LEN, .lkey = a->mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rs, .num_sge = 1 };
	struct ibv_send_wr swr = { .sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED };
	struct ibv_recv_wr *rbad;
	struct ibv_send_wr *sbad;
	struct ibv_ah *ah;
	struct ibv_wc wc;

	ah = rte_roce_create_ah(a->pd, &ud->ah_attr);
	ROCE_TEST_ASSERT(ah != NULL, "ah: %s", rte_strerror(rte_errno));
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = ud->qp_num;
	swr.wr.ud.remote_qkey = ud->qkey;
	memset(a->buf, 0x5a, CM_MSG_LEN);
	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(to->qp, &rwr, &rbad), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(from->qp, &swr, &sbad), 0, "");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc_ctx(a->ctx, b->ctx, a->scq, &wc, 1, CM_WAIT_MS), 1, "");
	ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_SUCCESS, "");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc_ctx(a->ctx, b->ctx, b->rcq, &wc, 1, CM_WAIT_MS), 1, "");
	ROCE_TEST_ASSERT(wc.status == IBV_WC_SUCCESS && wc.byte_len == RTE_ROCE_GRH_LEN + CM_MSG_LEN &&
			 wc.src_qp == from->qp->qp_num, "status %d, %u bytes", wc.status, wc.byte_len);
	ROCE_TEST_ASSERT(b->buf[RTE_ROCE_GRH_LEN] == 0x5a, "payload");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_ah(ah), 0, "");
	return 0;
}

/* Side 0's UDP id sends a SIDR_REQ; side 1 takes the request; its new id in *passive. */
static int
cm_sidr_request(struct cm_env *c, struct rte_roce_cm_id *active, struct rte_roce_cm_id *listener,
		struct rte_roce_cm_id **passive)
{
	struct rte_roce_cm_conn_param p = { .private_data = req_data,
					    .private_data_len = sizeof(req_data) };
	struct rte_roce_cm_event *ev;

	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(active, &p), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_wait_event(c, 1, RTE_ROCE_CM_EVENT_CONNECT_REQUEST, &ev), 0, "");
	ROCE_TEST_ASSERT(ev->listen_id == listener, "the UDP listener's");
	ROCE_TEST_ASSERT(ev->ud.private_data_len >= sizeof(req_data) &&
			 memcmp(ev->ud.private_data, req_data, sizeof(req_data)) == 0, "data");
	ROCE_TEST_ASSERT(ev->ud.ah_attr.is_global, "");
	*passive = ev->id;
	return rte_roce_cm_ack_cm_event(ev);
}

/*
 * SIDR (IBTA Vol. 1 §12.11), rdma_cm's RDMA_PS_UDP as udaddy uses it: a UD
 * id's connect sends a SIDR_REQ, the listener's side accepts with its UD
 * QP, and ESTABLISHED gives the peer's QPN, Q_Key and an address vector
 * that a UD SEND then uses; a rejection, a port nobody serves and a
 * service that never answers are UNREACHABLE with the SIDR_REP's status
 * (2 rejected, 1 not supported) or -ETIMEDOUT.
 */
static int
test_cm_sidr(void)
{
	struct rte_roce_cm_id *udp_listener, *passive, *other;
	struct rte_roce_cm_conn_param p = { .private_data = rep_data,
					    .private_data_len = sizeof(rep_data) };
	struct cm_env *const c = &cm_env_case;
	struct rte_roce_cm_event *ev;
	struct sockaddr_storage ss;
	int status;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(c->ch[1], &udp_listener, c, RTE_ROCE_CM_PS_UDP), 0, "");
	roce_test_sockaddr(&ss, false, 1, CM_PORT);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_bind_addr(udp_listener, (struct sockaddr *)&ss), 0,
			    "the same port in another port space");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_listen(udp_listener, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_active_resolve_ps(c, &c->id[0], CM_PORT, RTE_ROCE_CM_PS_UDP), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_ud_qp_create(c, 0, c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_sidr_request(c, c->id[0], udp_listener, &c->id[1]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_ud_qp_create(c, 1, c->id[1]), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_accept(c->id[1], &p), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_accept(c->id[1], &p), -EINVAL, "answered already");
	ROCE_TEST_ASSERT_EQ(cm_wait_event(c, 0, RTE_ROCE_CM_EVENT_ESTABLISHED, &ev), 0, "");
	ROCE_TEST_ASSERT_EQ(ev->ud.qp_num, c->id[1]->qp->qp_num, "");
	ROCE_TEST_ASSERT_EQ(ev->ud.qkey, RTE_ROCE_CM_UDP_QKEY, "");
	ROCE_TEST_ASSERT(ev->ud.private_data_len >= sizeof(rep_data) &&
			 memcmp(ev->ud.private_data, rep_data, sizeof(rep_data)) == 0, "data");
	ROCE_TEST_ASSERT_EQ(cm_ud_send(c, c->id[0], c->id[1], &ev->ud), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect_none(c, 1, ROCE_TEST_QUIET_MS), 0, "nothing on the passive side");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], established), 1, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(c->id[0], &p), -EINVAL, "a UD id resolves once");
	/* Rejected by the application: UNREACHABLE, status 2, its private data. */
	ROCE_TEST_ASSERT_EQ(cm_active_resolve_ps(c, &other, CM_PORT, RTE_ROCE_CM_PS_UDP), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_sidr_request(c, other, udp_listener, &passive), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_reject(passive, rej_data, sizeof(rej_data)), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_wait_event(c, 0, RTE_ROCE_CM_EVENT_UNREACHABLE, &ev), 0, "");
	ROCE_TEST_ASSERT_EQ(ev->status, RTE_ROCE_CM_SIDR_REJECT, "");
	ROCE_TEST_ASSERT(memcmp(ev->ud.private_data, rej_data, sizeof(rej_data)) == 0, "data");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(passive), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(other), 0, "");
	/* A port nobody serves over UDP: status 1, not supported. */
	ROCE_TEST_ASSERT_EQ(cm_active_resolve_ps(c, &other, CM_OTHER_PORT, RTE_ROCE_CM_PS_UDP), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(other, &p), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_UNREACHABLE, &status), 0, "");
	ROCE_TEST_ASSERT_EQ(status, RTE_ROCE_CM_SIDR_UNSUPPORTED, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(other), 0, "");
	/* Nobody answers: the SIDR_REQ sent 1 + max_cm_retries times, then -ETIMEDOUT. */
	ROCE_TEST_ASSERT_EQ(cm_active_resolve_ps(c, &other, CM_PORT, RTE_ROCE_CM_PS_UDP), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_drop_mads(c, 1, 1, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(other, &p), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_UNREACHABLE, &status), 0, "");
	ROCE_TEST_ASSERT_EQ(status, -ETIMEDOUT, "");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[0], retransmits), CM_MAX_RETRIES, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(other), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(udp_listener), 0, "");
	return cm_env_close(c);
}

/*
 * A SIDR_REQ sent again, met as udaddy's rejecting server meets it against
 * Linux (doc/interop.md, udaddy_rejected_by_host): side 0 sends its
 * SIDR_REQ again after each response timeout without an answer, and loses
 * the first SIDR_REP. While the application holds the request, the request
 * again is dropped and counted: no second CONNECT_REQUEST, no SIDR_REP.
 * Once rejected, it is answered from the id's state, the same SIDR_REP
 * (status 2), also after the listener is gone (udaddy destroys its listener
 * and keeps the rejected id): never status 1 from a listener lookup. Linux's
 * cm.c drops a duplicate while its SIDR_REQ is pending (cm_sidr_req_handler(),
 * remote_sidr_table) and forgets the request once answered; ours answers it
 * again while the id lives.
 */
static int
test_cm_sidr_duplicate(void)
{
	/* Side 0 sends its SIDR_REQ 16 times at most, a timeout apart: time enough here. */
	static const struct rte_roce_cm_conf patient = {
		.response_timeout = CM_RESPONSE_TIMEOUT,
		.max_cm_retries = CM_PATIENT_RETRIES,
	};
	struct cm_env *const c = &cm_env_case;
	struct rte_roce_fault_stats fs;
	struct rte_roce_cm_id *udp_listener;
	struct rte_roce_cm_event *ev;
	struct sockaddr_storage ss;
	uint64_t sent, dups;

	ROCE_TEST_ASSERT_EQ(cm_env_open_conf(c, false, &patient), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(c->ch[1], &udp_listener, c, RTE_ROCE_CM_PS_UDP), 0, "");
	roce_test_sockaddr(&ss, false, 1, CM_PORT);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_bind_addr(udp_listener, (struct sockaddr *)&ss), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_listen(udp_listener, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_active_resolve_ps(c, &c->id[0], CM_PORT, RTE_ROCE_CM_PS_UDP), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_ud_qp_create(c, 0, c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_drop_mads(c, 0, 1, 1), 0, "side 0 loses the first SIDR_REP");
	ROCE_TEST_ASSERT_EQ(cm_sidr_request(c, c->id[0], udp_listener, &c->id[1]), 0, "");
	/* Held: the SIDR_REQ again is counted, nothing sent, no second request. */
	sent = CM_STAT(c->cm[1], mads_sent);
	ROCE_TEST_ASSERT(cm_wait_stat_change(c, c->cm[1], offsetof(struct rte_roce_cm_stats,
				duplicates), 0) > 0, "no SIDR_REQ again");
	ROCE_TEST_ASSERT_EQ(CM_STAT(c->cm[1], mads_sent), sent, "answered while held");
	ROCE_TEST_ASSERT(rte_roce_cm_get_cm_event(c->ch[1], &ev) == -EAGAIN, "a second request");
	/* Rejected, then the listener destroyed before side 0's next SIDR_REQ is read. */
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_reject(c->id[1], NULL, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(udp_listener), 0, "");
	dups = CM_STAT(c->cm[1], duplicates);
	ROCE_TEST_ASSERT_EQ(cm_wait_event(c, 0, RTE_ROCE_CM_EVENT_UNREACHABLE, &ev), 0, "");
	ROCE_TEST_ASSERT_EQ(ev->status, RTE_ROCE_CM_SIDR_REJECT, "the answer again is the same");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	ROCE_TEST_ASSERT(CM_STAT(c->cm[1], duplicates) > dups, "answered again from the id");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(c->fault[0], &fs), 0, "");
	ROCE_TEST_ASSERT_EQ(fs.dropped, 1, "the first SIDR_REP, and only it");
	ROCE_TEST_ASSERT_EQ(cm_expect_none(c, 1, ROCE_TEST_QUIET_MS), 0, "");
	return cm_env_close(c);
}

static int
test_cm_api_misuse(void)
{
	struct rte_roce_cm_conn_param big = { .private_data = rep_data, .private_data_len = 57 };
	struct rte_roce_cm_id *id, *other;
	struct sockaddr_storage ss, src;
	struct rte_roce_cm_event *ev;
	struct cm_env *const c = &cm_env_case;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT(rte_roce_cm_open(c->e.s[0].ctx, NULL) == NULL && rte_errno == EEXIST, "");
	ROCE_TEST_ASSERT(rte_roce_cm_open(NULL, NULL) == NULL && rte_errno == EINVAL, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_sends_pending(NULL), -EINVAL, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_sends_pending(c->cm[0]), 0, "nothing sent yet");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(c->ch[0], &id, NULL, RTE_ROCE_CM_PS_IPOIB), -EINVAL,
			    "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(c->ch[0], &id, NULL, RTE_ROCE_CM_PS_TCP), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_set_tos(NULL, CM_TOS), -EINVAL, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_disconnect(id), -EINVAL, "not bound");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_route(id, 0), -EINVAL, "before resolve_addr");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(id, &big), -EINVAL, "before resolve");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_listen(id, 1), -EINVAL, "not bound");
	roce_test_sockaddr(&ss, false, 0, CM_PORT);
	((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(0x0a000009);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_bind_addr(id, (struct sockaddr *)&ss), -EADDRNOTAVAIL, "");
	roce_test_sockaddr(&ss, false, 1, CM_PORT);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(c->ch[1], &other, NULL, RTE_ROCE_CM_PS_TCP), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_bind_addr(other, (struct sockaddr *)&ss), -EADDRINUSE, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(other), 0, "");
	roce_test_sockaddr(&src, false, 0, 0);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_addr(id, (struct sockaddr *)&src,
						     (struct sockaddr *)&ss, -1), -EINVAL, "timeout < 0");
	((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(0xe0000001);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_addr(id, (struct sockaddr *)&src,
						     (struct sockaddr *)&ss, 0), -EINVAL, "multicast");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_get_cm_event(c->ch[0], &ev), -EAGAIN, "no event");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(id), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &c->id[0], CM_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(c->id[0], &big), -EINVAL, "private data 57 > 56");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_accept(c->id[0], NULL), -EINVAL, "not a request");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_disconnect(c->id[0]), -EINVAL, "not connected");
	ROCE_TEST_ASSERT_EQ(cm_connect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_wait_event(c, 1, RTE_ROCE_CM_EVENT_CONNECT_REQUEST, &ev), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(ev->id), -EBUSY, "event not acknowledged");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_close(c->cm[1]), -EBUSY, "ids bound");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_event_channel(c->ch[1]), -EBUSY, "");
	c->id[1] = ev->id;
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_ack_cm_event(ev), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_get_cm_event(c->ch[1], &ev), -EAGAIN, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_get_cm_event(NULL, &ev), -EINVAL, "");
	return cm_env_close(c);
}

static int
test_cm_xstats(void)
{
	char names[64][64];
	uint64_t values[64];
	struct cm_env *const c = &cm_env_case;
	int n, i;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_establish(c), 0, "");
	n = rte_roce_cm_xstats_names_get(c->cm[0], NULL, 0);
	ROCE_TEST_ASSERT(n > 0 && n <= 64, "%d", n);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_xstats_names_get(c->cm[0], names, 64), n, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_xstats_get(c->cm[0], values, 64), n, "");
	for (i = 0; i < n; i++)
		if (strcmp(names[i], "cm_established") == 0)
			break;
	ROCE_TEST_ASSERT(i < n, "cm_established listed");
	ROCE_TEST_ASSERT_EQ(values[i], 1, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_xstats_get(NULL, values, 64), -EINVAL, "");
	return cm_env_close(c);
}

/*
 * Side 1 from a thread of its own, while side 0's synchronous calls block
 * (they drive side 0 only): its device and CM, each request accepted with
 * a QP, every event acknowledged, until stop.
 */
struct cm_side1 {
	struct cm_env *c;
	bool stop;
	int failed;
};

static void *
cm_side1_run(void *arg)
{
	struct cm_side1 *t = arg;
	struct cm_env *c = t->c;
	struct rte_roce_cm_event *ev;

	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE)) {
		rte_roce_poll(c->e.s[1].ctx);
		rte_roce_cm_poll(c->cm[1]);
		if (rte_roce_cm_get_cm_event(c->ch[1], &ev) != 0)
			continue;
		if (ev->event == RTE_ROCE_CM_EVENT_CONNECT_REQUEST) {
			c->id[1] = ev->id;
			t->failed |= cm_qp_create(c, 1, ev->id) != 0 ||
				     rte_roce_cm_accept(ev->id, NULL) != 0;
		}
		rte_roce_cm_ack_cm_event(ev);
	}
	return NULL;
}

/* A synchronous id of side 0 resolved towards port on side 1, with a QP. */
static int
cm_sync_prepare(struct cm_env *c, struct rte_roce_cm_id **id, uint16_t port)
{
	struct sockaddr_storage src, dst;

	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(NULL, id, c, RTE_ROCE_CM_PS_TCP), 0, "");
	ROCE_TEST_ASSERT((*id)->channel != NULL && (*id)->event == NULL, "a channel of its own");
	roce_test_sockaddr(&src, false, 0, 0);
	roce_test_sockaddr(&dst, false, 1, port);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_addr(*id, (struct sockaddr *)&src,
						     (struct sockaddr *)&dst, 1000), 0, "");
	ROCE_TEST_ASSERT_EQ((*id)->event->event, RTE_ROCE_CM_EVENT_ADDR_RESOLVED, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_route(*id, 1000), 0, "");
	ROCE_TEST_ASSERT_EQ((*id)->event->event, RTE_ROCE_CM_EVENT_ROUTE_RESOLVED, "");
	return cm_qp_create(c, 0, *id);
}

/* The synchronous calls of side 0, with side 1 served by its thread. */
static int
cm_sync_calls(struct cm_env *c)
{
	struct rte_roce_cm_id *id;

	ROCE_TEST_ASSERT_EQ(cm_sync_prepare(c, &c->id[0], CM_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(c->id[0], &connect_param), 0, "connected on return");
	ROCE_TEST_ASSERT_EQ(c->id[0]->event->event, RTE_ROCE_CM_EVENT_ESTABLISHED, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_disconnect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(c->id[0]->event->event, RTE_ROCE_CM_EVENT_DISCONNECTED, "");
	/* Nobody listens: the REJ is the call's error, the event its reason. */
	ROCE_TEST_ASSERT_EQ(cm_sync_prepare(c, &id, CM_OTHER_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(id, &connect_param), -ECONNREFUSED, "");
	ROCE_TEST_ASSERT(id->event->event == RTE_ROCE_CM_EVENT_REJECTED &&
			 id->event->status == RTE_ROCE_CM_REJ_INVALID_SERVICE_ID, "");
	ROCE_TEST_ASSERT_EQ(cm_id_close(&id), 0, "its event acknowledged by the destruction");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_get_request(c->listener, &id), -EINVAL,
			    "a listener with a channel");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_get_request(NULL, &id), -EINVAL, "");
	return 0;
}

static int
test_cm_sync_connect(void)
{
	struct cm_env *const c = &cm_env_case;
	struct cm_side1 t = { .c = c };
	struct rte_roce_cm_event *ev;
	pthread_t th;
	int rc;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(pthread_create(&th, NULL, cm_side1_run, &t), 0, "");
	rc = cm_sync_calls(c);
	__atomic_store_n(&t.stop, true, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	ROCE_TEST_ASSERT_EQ(rc, 0, "");
	ROCE_TEST_ASSERT(!t.failed, "side 1 accepted");
	while (rte_roce_cm_get_cm_event(c->ch[1], &ev) == 0)
		rte_roce_cm_ack_cm_event(ev);
	return cm_env_close(c);
}

/*
 * A synchronous listener: rte_roce_cm_get_request() hands out the request
 * of side 0 (asynchronous, pumped from a thread of its own) as a
 * synchronous id, whose accept returns once the RTU came.
 */
struct cm_side0 {
	struct cm_env *c;
	bool stop;
};

static void *
cm_side0_run(void *arg)
{
	struct cm_side0 *t = arg;

	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE)) {
		rte_roce_poll(t->c->e.s[0].ctx);
		rte_roce_cm_poll(t->c->cm[0]);
	}
	return NULL;
}

static int
cm_sync_listen_calls(struct cm_env *c, struct rte_roce_cm_id *listen)
{
	struct sockaddr_storage ss;
	struct rte_roce_cm_id *id;

	roce_test_sockaddr(&ss, false, 1, CM_OTHER_PORT);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_bind_addr(listen, (struct sockaddr *)&ss), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_listen(listen, CM_BACKLOG), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_connect(c->id[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_get_request(listen, &id), 0, "");
	c->id[1] = id;
	ROCE_TEST_ASSERT(id->event != NULL && id->event->event == RTE_ROCE_CM_EVENT_CONNECT_REQUEST &&
			 id->event->listen_id == listen && listen->event == NULL, "");
	ROCE_TEST_ASSERT(id->event->param.private_data_len >= sizeof(req_data) &&
			 memcmp(id->event->param.private_data, req_data, sizeof(req_data)) == 0, "");
	ROCE_TEST_ASSERT_EQ(cm_qp_create(c, 1, id), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_accept(id, NULL), 0, "established on return");
	ROCE_TEST_ASSERT_EQ(id->event->event, RTE_ROCE_CM_EVENT_ESTABLISHED, "");
	return 0;
}

static int
test_cm_sync_listen(void)
{
	struct cm_env *const c = &cm_env_case;
	struct cm_side0 t = { .c = c };
	struct rte_roce_cm_id *listen = NULL;
	pthread_t th;
	int rc;

	ROCE_TEST_ASSERT_EQ(cm_env_open(c, false), 0, "");
	ROCE_TEST_ASSERT_EQ(cm_active_prepare(c, &c->id[0], CM_OTHER_PORT), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(NULL, &listen, c, RTE_ROCE_CM_PS_TCP), 0, "");
	ROCE_TEST_ASSERT_EQ(pthread_create(&th, NULL, cm_side0_run, &t), 0, "");
	rc = cm_sync_listen_calls(c, listen);
	__atomic_store_n(&t.stop, true, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	ROCE_TEST_ASSERT_EQ(rc, 0, "");
	ROCE_TEST_ASSERT_EQ(cm_expect(c, 0, RTE_ROCE_CM_EVENT_ESTABLISHED, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(listen), 0, "");
	return cm_env_close(c);
}

static const struct roce_test_case cases[] = {
	{ "cm_connect_disconnect", test_cm_connect_disconnect },
	{ "cm_connect_disconnect_ipv6", test_cm_connect_disconnect_ipv6 },
	{ "cm_reject", test_cm_reject },
	{ "cm_no_listener", test_cm_no_listener },
	{ "cm_backlog_full", test_cm_backlog_full },
	{ "cm_addr_error", test_cm_addr_error },
	{ "cm_addr_error_ipv6", test_cm_addr_error_ipv6 },
	{ "cm_req_timeout", test_cm_req_timeout },
	{ "cm_rep_lost", test_cm_rep_lost },
	{ "cm_rep_timeout", test_cm_rep_timeout },
	{ "cm_rtu_lost", test_cm_rtu_lost },
	{ "cm_drep_lost", test_cm_drep_lost },
	{ "cm_mad_loss", test_cm_mad_loss },
	{ "cm_mad_backlog", test_cm_mad_backlog },
	{ "cm_mad_backlog_full", test_cm_mad_backlog_full },
	{ "cm_destroy_connected", test_cm_destroy_connected },
	{ "cm_duplicate_req_mra", test_cm_duplicate_req_mra },
	{ "cm_connect_response_establish", test_cm_connect_response_establish },
	{ "cm_notify_comm_est", test_cm_notify_comm_est },
	{ "cm_migrate_id", test_cm_migrate_id },
	{ "cm_malformed_mads", test_cm_malformed_mads },
	{ "cm_lap", test_cm_lap },
	{ "cm_req_flood", test_cm_req_flood },
	{ "cm_sidr", test_cm_sidr },
	{ "cm_sidr_duplicate", test_cm_sidr_duplicate },
	{ "cm_api_misuse", test_cm_api_misuse },
	{ "cm_xstats", test_cm_xstats },
	{ "cm_sync_connect", test_cm_sync_connect },
	{ "cm_sync_listen", test_cm_sync_listen },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&roce_test_verbs_pair, "cm") != 0 ||
	    roce_test_pair_wire_model(&roce_test_verbs_pair) != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
