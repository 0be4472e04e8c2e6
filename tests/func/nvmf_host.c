/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The test host of nvmf_host.h. Byte offsets are those of the NVM Express
 * RDMA Transport Specification 1.0 (RDMA §3.1 Figures 5-7) and of the Base
 * Specification's SQE, CQE, SGL descriptors and Fabrics commands.
 */

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include <rte_roce.h>

#include "nvmf_host.h"
#include "roce_test.h"

#define HOST_QUEUE_WR		256
#define HOST_RD_ATOM		16
#define HOST_RNR_RETRY		7
#define HOST_REJ_CONSUMER	28	/* IB CM REJ reason: consumer defined */
#define HOST_STOP_MS		5000

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return rte_le_to_cpu_32(v);
}

static void
put16(uint8_t *p, uint16_t v)
{
	v = rte_cpu_to_le_16(v);
	memcpy(p, &v, 2);
}

static void
put32(uint8_t *p, uint32_t v)
{
	v = rte_cpu_to_le_32(v);
	memcpy(p, &v, 4);
}

static void
put64(uint8_t *p, uint64_t v)
{
	v = rte_cpu_to_le_64(v);
	memcpy(p, &v, 8);
}

uint32_t host_srq_depth;

void
host_tgt_conf(struct nvmf_tgt_conf *conf)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)&conf->listen[0];

	nvmf_tgt_conf_defaults(conf);
	s4->sin_family = AF_INET;
	s4->sin_port = htons(HOST_PORT);
	inet_pton(AF_INET, ROCE_TEST_ADDR_B, &s4->sin_addr);
	conf->nb_listen = 1;
	snprintf(conf->subsys[0].nqn, sizeof(conf->subsys[0].nqn), "%s", HOST_SUBNQN);
	conf->subsys[0].ns[0].size = 4u << 20;
	conf->subsys[0].ns[0].block_size = 512;
	conf->subsys[0].nb_ns = 1;
	conf->nb_subsys = 1;
	conf->data_buffers = 32;
	conf->srq_depth = host_srq_depth;
}

int64_t
host_heap_bytes(void)
{
	struct rte_malloc_socket_stats st;
	struct mallinfo2 mi = mallinfo2();
	int64_t total = (int64_t)mi.uordblks + (int64_t)mi.hblkhd;
	unsigned int i;

	for (i = 0; i < rte_socket_count(); i++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			total += (int64_t)st.heap_allocsz_bytes;
	return total;
}

void
host_pump(struct host_env *h)
{
	roce_test_pump_env(&h->e);
	rte_roce_cm_poll(h->cm[0]);
	rte_roce_cm_poll(h->cm[1]);
	if (h->tgt != NULL && h->measure) {
		int64_t before = host_heap_bytes();

		nvmf_tgt_poll(h->tgt);
		h->tgt_heap += host_heap_bytes() - before;
	} else if (h->tgt != NULL) {
		nvmf_tgt_poll(h->tgt);
	}
}

void
host_pump_ms(struct host_env *h, unsigned int ms)
{
	uint64_t end = roce_test_ms() + ms;

	while (roce_test_ms() < end)
		host_pump(h);
}

/* The environment open, for host_env_leftover_release(). */
static struct host_env *host_env_live;

/*
 * A case that failed returned without closing what it opened: release
 * it (queues, target, CMs, sides), so that the next case starts clean.
 */
static void
host_env_leftover_release(void)
{
	struct host_env *h = host_env_live;
	unsigned int i;

	if (h == NULL)
		return;
	for (i = 0; i < HOST_QUEUES_MAX; i++)
		if (h->queues[i] != NULL)
			host_queue_close(h->queues[i]);
	host_env_close(h);
}

int
host_env_open(struct host_env *h, const struct nvmf_tgt_conf *conf)
{
	struct roce_test_conf tc = roce_test_default_conf;
	unsigned int i;

	host_env_leftover_release();
	memset(h, 0, sizeof(*h));
	host_env_live = h;
	if (conf != NULL)
		h->conf = *conf;
	else
		host_tgt_conf(&h->conf);
	/* a target listening on IPv6: both sides take IPv6 addresses (GIDs) */
	h->ipv6 = h->conf.listen[0].ss_family == AF_INET6;
	tc.ipv6 = h->ipv6;
	ROCE_TEST_ASSERT_EQ(roce_test_env_open(&h->e, &tc, 0), 0, "sides");
	for (i = 0; i < 2; i++) {
		h->cm[i] = rte_roce_cm_open(h->e.s[i].ctx, NULL);
		ROCE_TEST_ASSERT(h->cm[i] != NULL, "cm_open: %s", rte_strerror(rte_errno));
	}
	h->tgt = nvmf_tgt_create(h->e.s[1].ctx, h->cm[1], &h->conf);
	ROCE_TEST_ASSERT(h->tgt != NULL, "target: %s", rte_strerror(rte_errno));
	return 0;
}

int
host_env_close(struct host_env *h)
{
	uint64_t end = roce_test_ms() + HOST_STOP_MS;
	unsigned int i;

	host_env_live = NULL;
	/* what host_env_open() made, as far as it got (a failed case releases that) */
	ROCE_TEST_ASSERT(h->cm[0] != NULL && h->cm[1] != NULL, "environment not open");
	if (h->tgt != NULL) {
		nvmf_tgt_stop(h->tgt);
		while (!nvmf_tgt_idle(h->tgt) && roce_test_ms() < end)
			host_pump(h);
		ROCE_TEST_ASSERT_EQ(nvmf_tgt_destroy(h->tgt), 0, "target idle");
		h->tgt = NULL;
	}
	for (i = 0; i < 2; i++)
		ROCE_TEST_ASSERT_EQ(rte_roce_cm_close(h->cm[i]), 0, "cm %u", i);
	return roce_test_env_close(&h->e);
}

uint8_t *
host_buf(struct host_env *h, uint32_t off)
{
	return h->e.s[0].buf + off;
}

struct host_cm_req
host_cm_req_default(uint16_t qid, uint16_t sqsize, uint16_t cntlid)
{
	struct host_cm_req r = {
		.qid = qid,
		.hrqsize = sqsize + 1,
		.hsqsize = sqsize,
		.cntlid = cntlid,
		.len = 32,
		.responder_resources = HOST_RD_ATOM,
	};

	return r;
}

/* Pump until the queue's channel has an event: its type, *ev held (the caller acks). */
static int
host_event(struct host_queue *q, struct rte_roce_cm_event **ev)
{
	uint64_t end = roce_test_ms() + HOST_WAIT_MS;
	struct host_env *h = q->env;

	while (rte_roce_cm_get_cm_event(q->ch, ev) == -EAGAIN) {
		if (roce_test_ms() > end) {
			printf("#   no CM event\n");
			return -1;
		}
		host_pump(h);
	}
	return (int)(*ev)->event;
}

static int
host_expect(struct host_queue *q, enum rte_roce_cm_event_type want)
{
	struct rte_roce_cm_event *ev;
	int type = host_event(q, &ev);

	ROCE_TEST_ASSERT(type == (int)want, "%s, wanted %s",
			 type < 0 ? "none" : rte_roce_cm_event_str(ev->event),
			 rte_roce_cm_event_str(want));
	rte_roce_cm_ack_cm_event(ev);
	return 0;
}

static int
host_post_rsp(struct host_queue *q, uint32_t i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(q->rsp + 16 * i), .length = 16,
		.lkey = q->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

	return rte_roce_post_recv(q->qp, &wr, &bad);
}

static int
host_qp_move(struct host_queue *q, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };
	int mask = 0;

	ROCE_TEST_ASSERT_EQ(rte_roce_cm_init_qp_attr(q->id, &attr, &mask), 0, "state %d", state);
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(q->qp, &attr, mask), 0, "state %d", state);
	return 0;
}

static int
host_queue_setup(struct host_env *h, struct host_queue *q)
{
	struct roce_test_side *s = &h->e.s[0];
	struct ibv_qp_init_attr attr = {
		.send_cq = rte_roce_create_cq(s->ctx, 2 * HOST_QUEUE_WR, NULL, NULL, 0),
		.recv_cq = rte_roce_create_cq(s->ctx, 2 * HOST_QUEUE_WR, NULL, NULL, 0),
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = HOST_QUEUE_WR, .max_recv_wr = HOST_QUEUE_WR,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	size_t len = HOST_SLOTS * HOST_CAPSULE_MAX + 16 * HOST_QUEUE_WR;

	ROCE_TEST_ASSERT(attr.send_cq != NULL && attr.recv_cq != NULL, "CQs");
	q->qp = rte_roce_create_qp(s->pd, &attr);
	ROCE_TEST_ASSERT(q->qp != NULL, "QP: %s", rte_strerror(rte_errno));
	/* capsules and responses of its own: queues in flight at once never share a buffer */
	q->mem = rte_zmalloc("nvmf_host_queue", len, 64);
	ROCE_TEST_ASSERT(q->mem != NULL, "queue buffers");
	q->mr = rte_roce_reg_mr(s->pd, q->mem, len, IBV_ACCESS_LOCAL_WRITE);
	ROCE_TEST_ASSERT(q->mr != NULL, "queue MR: %s", rte_strerror(rte_errno));
	q->cmd = q->mem;
	q->rsp = q->mem + HOST_SLOTS * HOST_CAPSULE_MAX;
	return 0;
}

/* The RDMA_CM_ACCEPT's CRQSIZE (Figure 6), then the QP to RTS and the RTU. */
static int
host_accepted(struct host_queue *q, const struct rte_roce_cm_event *ev)
{
	const uint8_t *pd = ev->param.private_data;
	uint32_t i;

	ROCE_TEST_ASSERT(ev->param.private_data_len >= 32, "accept private data");
	ROCE_TEST_ASSERT_EQ(pd[0] | pd[1] << 8, 0, "accept RECFMT");
	q->crqsize = (uint16_t)(pd[2] | pd[3] << 8);
	ROCE_TEST_ASSERT_EQ(host_qp_move(q, IBV_QPS_INIT), 0, "");
	for (i = 0; i < HOST_QUEUE_WR; i++)
		ROCE_TEST_ASSERT_EQ(host_post_rsp(q, i), 0, "");
	ROCE_TEST_ASSERT_EQ(host_qp_move(q, IBV_QPS_RTR), 0, "");
	ROCE_TEST_ASSERT_EQ(host_qp_move(q, IBV_QPS_RTS), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_establish(q->id), 0, "");
	return 0;
}

/*
 * Remember (or forget) a queue with an id, for host_env_leftover_release().
 * That runs in the next case, after the failed one returned: the cases keep
 * their queues in static storage (test_nvmf.c), never on their stack.
 */
static void
host_queue_track(struct host_env *h, struct host_queue *q, bool add)
{
	unsigned int i;

	for (i = 0; i < HOST_QUEUES_MAX; i++)
		if (h->queues[i] == (add ? NULL : q)) {
			h->queues[i] = add ? q : NULL;
			return;
		}
}

int
host_queue_connect(struct host_env *h, struct host_queue *q, const struct host_cm_req *req)
{
	struct sockaddr_storage src, dst;
	uint8_t pd[56] = { 0 };
	struct rte_roce_cm_conn_param p = {
		.private_data = pd,
		.private_data_len = req->len,
		.responder_resources = req->responder_resources,
		.retry_count = 7,
		.rnr_retry_count = HOST_RNR_RETRY,
	};
	struct rte_roce_cm_event *ev;
	int type, rc;

	memset(q, 0, sizeof(*q));
	q->env = h;
	q->qid = req->qid;
	q->sqsize = req->hsqsize;
	q->rej_status = -1;
	roce_test_sockaddr(&src, h->ipv6, 0, 0);
	roce_test_sockaddr(&dst, h->ipv6, 1, HOST_PORT);
	q->ch = rte_roce_cm_create_event_channel();
	ROCE_TEST_ASSERT(q->ch != NULL, "channel");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_create_id(q->ch, &q->id, q, RTE_ROCE_CM_PS_TCP), 0, "");
	host_queue_track(h, q, true);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_addr(q->id, (struct sockaddr *)&src,
						     (struct sockaddr *)&dst, 1000), 0, "");
	ROCE_TEST_ASSERT_EQ(host_expect(q, RTE_ROCE_CM_EVENT_ADDR_RESOLVED), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_resolve_route(q->id, 1000), 0, "");
	ROCE_TEST_ASSERT_EQ(host_expect(q, RTE_ROCE_CM_EVENT_ROUTE_RESOLVED), 0, "");
	ROCE_TEST_ASSERT_EQ(host_queue_setup(h, q), 0, "");
	/* RDMA §3.1 Figure 5 */
	put16(pd + 0, req->recfmt);
	put16(pd + 2, req->qid);
	put16(pd + 4, req->hrqsize);
	put16(pd + 6, req->hsqsize);
	put16(pd + 8, req->cntlid);
	p.qp_num = q->qp->qp_num;
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_connect(q->id, &p), 0, "connect");
	type = host_event(q, &ev);
	if (type == RTE_ROCE_CM_EVENT_REJECTED) {
		/* Figure 7: RECFMT, then STS */
		const uint8_t *r = ev->param.private_data;

		ROCE_TEST_ASSERT_EQ(ev->status, HOST_REJ_CONSUMER, "REJ reason");
		q->rej_status = r[2] | r[3] << 8;
		rte_roce_cm_ack_cm_event(ev);
		ROCE_TEST_ASSERT_EQ(host_queue_close(q), 0, "");
		return q->rej_status;
	}
	ROCE_TEST_ASSERT(type == RTE_ROCE_CM_EVENT_CONNECT_RESPONSE, "event %d", type);
	rc = host_accepted(q, ev);
	rte_roce_cm_ack_cm_event(ev);
	return rc;
}

int
host_queue_close(struct host_queue *q)
{
	struct rte_roce_cm_event *ev;
	struct ibv_cq *scq, *rcq;

	if (q->id == NULL)
		return 0;
	rte_roce_cm_disconnect(q->id);
	host_pump_ms(q->env, 20);
	if (q->qp != NULL) {
		scq = q->qp->send_cq;
		rcq = q->qp->recv_cq;
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(q->qp), 0, "");
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(scq), 0, "");
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(rcq), 0, "");
		q->qp = NULL;
	}
	if (q->mr != NULL)
		ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(q->mr), 0, "");
	q->mr = NULL;
	rte_free(q->mem);
	q->mem = NULL;
	while (rte_roce_cm_get_cm_event(q->ch, &ev) == 0)
		rte_roce_cm_ack_cm_event(ev);
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_id(q->id), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_cm_destroy_event_channel(q->ch), 0, "");
	q->id = NULL;
	host_queue_track(q->env, q, false);
	return 0;
}

int
host_queue_wait_disconnected(struct host_queue *q, unsigned int ms)
{
	uint64_t end = roce_test_ms() + ms;
	struct rte_roce_cm_event *ev;

	for (;;) {
		if (rte_roce_cm_get_cm_event(q->ch, &ev) == 0) {
			enum rte_roce_cm_event_type t = ev->event;

			rte_roce_cm_ack_cm_event(ev);
			if (t == RTE_ROCE_CM_EVENT_DISCONNECTED)
				return 0;
		}
		ROCE_TEST_ASSERT(roce_test_ms() < end, "queue %u not disconnected", q->qid);
		host_pump(q->env);
	}
}

void
host_sqe(struct host_queue *q, uint8_t *sqe, uint8_t opc, uint32_t nsid)
{
	memset(sqe, 0, 64);
	sqe[0] = opc;
	sqe[1] = 1 << 6;	/* PSDT 01b */
	put16(sqe + 2, q->cid++);
	put32(sqe + 4, nsid);
}

void
host_sgl_keyed(struct host_queue *q, uint8_t *sqe, uint32_t off, uint32_t len, bool inv)
{
	uint8_t *d = sqe + 24;

	put64(d, (uintptr_t)host_buf(q->env, off));
	d[8] = (uint8_t)len;
	d[9] = (uint8_t)(len >> 8);
	d[10] = (uint8_t)(len >> 16);
	put32(d + 11, q->env->e.s[0].mr->rkey);
	d[15] = 0x40 | (inv ? 0xf : 0x0);
}

void
host_sgl_icd(uint8_t *sqe, uint32_t off, uint32_t len)
{
	uint8_t *d = sqe + 24;

	memset(d, 0, 16);
	put64(d, off);
	put32(d + 8, len);
	d[15] = 0x01;	/* Data Block, sub type Offset */
}

int
host_send(struct host_queue *q, const uint8_t *sqe, const void *icd, uint32_t icd_len,
	  uint32_t len)
{
	uint8_t *buf = q->cmd + (q->slot++ % HOST_SLOTS) * HOST_CAPSULE_MAX;
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len, .lkey = q->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	ROCE_TEST_ASSERT(len <= HOST_CAPSULE_MAX && icd_len <= HOST_CAPSULE_MAX - 64, "capsule");
	memcpy(buf, sqe, 64);
	if (icd_len != 0)
		memcpy(buf + 64, icd, icd_len);
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(q->qp, &wr, &bad), 0, "post capsule");
	return 0;
}

int
host_wait_rsp(struct host_queue *q, uint8_t *cqe, int *wc_flags, uint32_t *inv_rkey)
{
	uint64_t end = roce_test_ms() + HOST_WAIT_MS;
	struct ibv_wc wc;

	for (;;) {
		while (rte_roce_poll_cq(q->qp->send_cq, 1, &wc) == 1)
			ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_SUCCESS, "capsule SEND");
		if (rte_roce_poll_cq(q->qp->recv_cq, 1, &wc) == 1)
			break;
		ROCE_TEST_ASSERT(roce_test_ms() < end, "no response on queue %u", q->qid);
		host_pump(q->env);
	}
	ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_SUCCESS, "response");
	ROCE_TEST_ASSERT_EQ(wc.byte_len, 16, "response capsule size (RDMA §3.3)");
	memcpy(cqe, q->rsp + 16 * wc.wr_id, 16);
	if (wc_flags != NULL)
		*wc_flags = (int)wc.wc_flags;
	if (inv_rkey != NULL)
		*inv_rkey = wc.invalidated_rkey;
	ROCE_TEST_ASSERT_EQ(host_post_rsp(q, (uint32_t)wc.wr_id), 0, "");
	return 0;
}

int
host_cmd(struct host_queue *q, const uint8_t *sqe, const void *icd, uint32_t icd_len,
	 uint8_t *cqe, int *wc_flags, uint32_t *inv_rkey)
{
	ROCE_TEST_ASSERT_EQ(host_send(q, sqe, icd, icd_len, 64 + icd_len), 0, "");
	ROCE_TEST_ASSERT_EQ(host_wait_rsp(q, cqe, wc_flags, inv_rkey), 0, "");
	ROCE_TEST_ASSERT(memcmp(cqe + 12, sqe + 2, 2) == 0, "CID of the response");
	ROCE_TEST_ASSERT_EQ(cqe[10] | cqe[11] << 8, q->qid, "SQID");
	return 0;
}

uint16_t
host_status(const uint8_t *cqe)
{
	return (uint16_t)(((cqe[14] | cqe[15] << 8) >> 1) & 0x7ff);
}

uint32_t
host_dw0(const uint8_t *cqe)
{
	return get32(cqe);
}

int
host_fabrics_connect(struct host_queue *q, const char *subnqn, const char *hostnqn,
		     uint16_t cntlid, uint32_t kato, uint8_t *cqe)
{
	uint8_t sqe[64], *data = host_buf(q->env, HOST_DATA_OFF);

	memset(data, 0, 1024);
	memset(data, 0x5a, 16);	/* HOSTID */
	put16(data + 16, cntlid);
	snprintf((char *)data + 256, 256, "%s", subnqn);
	snprintf((char *)data + 512, 256, "%s", hostnqn);
	host_sqe(q, sqe, 0x7f, 0);
	sqe[4] = 0x01;	/* FCTYPE Connect */
	host_sgl_keyed(q, sqe, HOST_DATA_OFF, 1024, false);
	put16(sqe + 42, q->qid);	/* CDW10: RECFMT 0, QID */
	put16(sqe + 44, q->sqsize);	/* CDW11: SQSIZE, CATTR */
	put32(sqe + 48, kato);		/* CDW12 */
	ROCE_TEST_ASSERT_EQ(host_cmd(q, sqe, NULL, 0, cqe, NULL, NULL), 0, "");
	if (host_status(cqe) == 0)
		q->cntlid = (uint16_t)host_dw0(cqe);
	return 0;
}

int
host_prop_get(struct host_queue *q, uint32_t ofst, bool wide, uint64_t *v)
{
	uint8_t sqe[64], cqe[16];

	host_sqe(q, sqe, 0x7f, 0);
	sqe[4] = 0x04;	/* FCTYPE Property Get */
	sqe[40] = wide ? 1 : 0;
	put32(sqe + 44, ofst);
	ROCE_TEST_ASSERT_EQ(host_cmd(q, sqe, NULL, 0, cqe, NULL, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "property 0x%x", ofst);
	*v = get32(cqe) | (uint64_t)get32(cqe + 4) << 32;
	return 0;
}

int
host_prop_set(struct host_queue *q, uint32_t ofst, uint32_t v, uint8_t *cqe)
{
	uint8_t sqe[64];

	host_sqe(q, sqe, 0x7f, 0);
	sqe[4] = 0x00;	/* FCTYPE Property Set */
	put32(sqe + 44, ofst);
	put32(sqe + 48, v);
	return host_cmd(q, sqe, NULL, 0, cqe, NULL, NULL);
}

int
host_ctrl_up(struct host_env *h, struct host_queue *admin, uint32_t kato)
{
	return host_ctrl_up_to(h, admin, HOST_SUBNQN, kato);
}

int
host_ctrl_up_to(struct host_env *h, struct host_queue *admin, const char *subnqn, uint32_t kato)
{
	struct host_cm_req req = host_cm_req_default(0, 31, 0);
	uint8_t cqe[16];
	uint64_t csts;

	ROCE_TEST_ASSERT_EQ(host_queue_connect(h, admin, &req), 0, "admin queue");
	ROCE_TEST_ASSERT_EQ(host_fabrics_connect(admin, subnqn, HOST_NQN, 0xffff, kato, cqe), 0,
			    "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "Connect");
	/* CC: EN, IOSQES 6, IOCQES 4 */
	ROCE_TEST_ASSERT_EQ(host_prop_set(admin, 0x14, 1u | 6u << 16 | 4u << 20, cqe), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "CC");
	ROCE_TEST_ASSERT_EQ(host_prop_get(admin, 0x1c, false, &csts), 0, "");
	ROCE_TEST_ASSERT_EQ(csts & 1, 1, "CSTS.RDY");
	return 0;
}

int
host_io_up(struct host_env *h, struct host_queue *admin, struct host_queue *io, uint16_t qid)
{
	return host_io_up_to(h, admin, io, qid, HOST_SUBNQN);
}

int
host_io_up_to(struct host_env *h, struct host_queue *admin, struct host_queue *io, uint16_t qid,
	      const char *subnqn)
{
	struct host_cm_req req = host_cm_req_default(qid, 63, admin->cntlid);
	uint8_t cqe[16];

	ROCE_TEST_ASSERT_EQ(host_queue_connect(h, io, &req), 0, "I/O queue %u", qid);
	ROCE_TEST_ASSERT_EQ(host_fabrics_connect(io, subnqn, HOST_NQN, admin->cntlid, 0, cqe),
			    0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "I/O Connect");
	ROCE_TEST_ASSERT_EQ(host_dw0(cqe) & 0xffff, admin->cntlid, "");
	return 0;
}
