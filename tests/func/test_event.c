/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Completion channels and asynchronous events over a net_ring pair: arming
 * (all and solicited-only), events through the fd with poll(2), the
 * get/ack/destroy rules, a two-thread stress of the arm/poll race (no lost
 * wake-up, every completion once), QP fatal, CQ overrun and port down/up
 * on the async fd.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_ethdev.h>

#include <rte_roce.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#define ADDR_A		"10.0.0.1"
#define ADDR_B		"10.0.0.2"
#define WAIT_MS		3000
#define QUIET_MS	30		/* "no event comes" is watched this long */
#define MSG_LEN		64
#define STRESS_MSGS	20000
#define STRESS_WINDOW	64		/* messages in flight in the stress test */
#define STRESS_WAKE_MS	2000		/* a consumer asleep this long lost a wake-up */
#define STRESS_POLL	16
#define LINK_WAIT_MS	500		/* link checks run every 10 ms */
#define SMALL_CQ	4
#define SQ_DEPTH	256
#define UD_QKEY		0x11111111	/* ibv_ud_pingpong's */
#define UD_MSG_LEN	16		/* fits a receive of MSG_LEN after the 40-byte GRH */
#define DEPTH1_MSGS	5000

/* Two devices, one RC QP each, both CQs of each side on a channel of its device. */
struct env {
	struct roce_test_side s[2];
	struct ibv_comp_channel *ch[2];
	struct ibv_qp *qp[2];
	unsigned int baseline;
	int cq_ctx[2];		/* cq_context of the CQs */
};

static struct roce_test_pair pair;

static void
pump(struct env *e)
{
	rte_roce_poll(e->s[0].ctx);
	rte_roce_poll(e->s[1].ctx);
}

/* Replace side i's CQs by CQs on a new channel (rcq_len entries for the receive CQ). */
static int
side_channel(struct env *e, unsigned int i, int rcq_len)
{
	struct roce_test_side *s = &e->s[i];

	e->ch[i] = rte_roce_create_comp_channel(s->ctx);
	ROCE_TEST_ASSERT(e->ch[i] != NULL, "channel");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(s->scq), 0, "destroy scq");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(s->rcq), 0, "destroy rcq");
	s->scq = rte_roce_create_cq(s->ctx, ROCE_TEST_CQ_LEN, &e->cq_ctx[i], e->ch[i], 0);
	s->rcq = rte_roce_create_cq(s->ctx, rcq_len, &e->cq_ctx[i], e->ch[i], 0);
	ROCE_TEST_ASSERT(s->scq != NULL && s->rcq != NULL, "CQs on the channel");
	return 0;
}

static int
env_open(struct env *e, int rcq_len, uint32_t sq_depth)
{
	unsigned int i;

	memset(e, 0, sizeof(*e));
	e->baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	if (roce_test_side_open(&e->s[0], pair.a, ADDR_A, false) != 0 ||
	    roce_test_side_open(&e->s[1], pair.b, ADDR_B, true) != 0)
		return -1;
	for (i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia = {
			.cap = { .max_send_wr = sq_depth, .max_recv_wr = 256, .max_send_sge = 1,
				 .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};

		if (side_channel(e, i, rcq_len) != 0)
			return -1;
		ia.send_cq = e->s[i].scq;
		ia.recv_cq = e->s[i].rcq;
		e->qp[i] = rte_roce_create_qp(e->s[i].pd, &ia);
		ROCE_TEST_ASSERT(e->qp[i] != NULL, "create_qp");
	}
	if (roce_test_qp_connect(e->qp[0], &e->s[0], &e->s[1], e->qp[1]->qp_num, 100, 200,
				 &roce_test_default_conf) != 0 ||
	    roce_test_qp_connect(e->qp[1], &e->s[1], &e->s[0], e->qp[0]->qp_num, 200, 100,
				 &roce_test_default_conf) != 0)
		return -1;
	return 0;
}

static int
env_close(struct env *e)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < 2; i++) {
		struct roce_test_side *s = &e->s[i];

		/* The channel goes after its CQs and before the device. */
		if (e->qp[i] != NULL && rte_roce_destroy_qp(e->qp[i]) != 0)
			ret = -1;
		if (s->scq != NULL && rte_roce_destroy_cq(s->scq) != 0)
			ret = -1;
		if (s->rcq != NULL && rte_roce_destroy_cq(s->rcq) != 0)
			ret = -1;
		s->scq = s->rcq = NULL;
		if (e->ch[i] != NULL && rte_roce_destroy_comp_channel(e->ch[i]) != 0)
			ret = -1;
		ret |= roce_test_side_close(s, NULL, 0);
	}
	ret |= roce_test_pair_release(&pair, &e->s[0].port, &e->s[1].port, e->baseline);
	return ret;
}

static int
post_recv(struct env *e, unsigned int side, uint64_t wr_id)
{
	struct roce_test_side *s = &e->s[side];
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf, .length = MSG_LEN, .lkey = s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(e->qp[side], &wr, &bad), 0, "post_recv");
	return 0;
}

/* A SEND (or a WRITE with rkey when op says so) from side to the other, signaled. */
static int
post_send(struct env *e, unsigned int side, enum ibv_wr_opcode op, uint64_t wr_id, int flags,
	  uint32_t rkey)
{
	struct roce_test_side *s = &e->s[side];
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf, .length = MSG_LEN, .lkey = s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED | flags,
	};
	struct ibv_send_wr *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)e->s[!side].buf;
	wr.wr.rdma.rkey = rkey;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(e->qp[side], &wr, &bad), 0, "post_send");
	return 0;
}

static bool
fd_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* Pump until fd is readable (true) or timeout_ms passed (false). */
static bool
wait_readable(struct env *e, int fd, unsigned int timeout_ms)
{
	uint64_t end = roce_test_ms() + timeout_ms;

	do {
		pump(e);
		if (fd_readable(fd))
			return true;
	} while (roce_test_ms() < end);
	return false;
}

static int
set_nonblock(int fd)
{
	ROCE_TEST_ASSERT_EQ(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0, "O_NONBLOCK");
	return 0;
}

/* Get the one waiting CQ event: it names cq; then none waits. */
static int
expect_cq_event(struct env *e, unsigned int side, struct ibv_cq *cq)
{
	struct ibv_cq *ev_cq = NULL;
	void *ev_ctx = NULL;

	ROCE_TEST_ASSERT(wait_readable(e, e->ch[side]->fd, WAIT_MS), "channel fd readable");
	ROCE_TEST_ASSERT_EQ(rte_roce_get_cq_event(e->ch[side], &ev_cq, &ev_ctx), 0, "get event");
	ROCE_TEST_ASSERT(ev_cq == cq, "event for the expected CQ");
	ROCE_TEST_ASSERT(ev_ctx == &e->cq_ctx[side], "cq_context");
	ROCE_TEST_ASSERT(!fd_readable(e->ch[side]->fd), "one event per arming");
	return 0;
}

/* No event comes on side's channel while both devices run a while. */
static int
expect_no_cq_event(struct env *e, unsigned int side)
{
	ROCE_TEST_ASSERT(!wait_readable(e, e->ch[side]->fd, QUIET_MS), "unexpected event");
	return 0;
}

static int
expect_wc(struct env *e, struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_status status)
{
	struct ibv_wc wc;

	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc_ctx(e->s[0].ctx, e->s[1].ctx, cq, &wc, 1, WAIT_MS), 1,
			    "completion %llu", (unsigned long long)wr_id);
	ROCE_TEST_ASSERT_EQ(wc.wr_id, wr_id, "wr_id");
	ROCE_TEST_ASSERT_EQ(wc.status, status, "status");
	return 0;
}

/* One SEND from a to b with flags; returns after both completions were polled. */
static int
send_one(struct env *e, uint64_t wr_id, int flags)
{
	if (post_recv(e, 1, wr_id) != 0 || post_send(e, 0, IBV_WR_SEND, wr_id, flags, 0) != 0)
		return -1;
	if (expect_wc(e, e->s[0].scq, wr_id, IBV_WC_SUCCESS) != 0)
		return -1;
	return expect_wc(e, e->s[1].rcq, wr_id, IBV_WC_SUCCESS);
}

/* ---- API misuse ---- */

static int
channel_api(struct env *e)
{
	struct ibv_comp_channel *ch = rte_roce_create_comp_channel(e->s[0].ctx);
	struct ibv_cq *plain, *cq, *ev_cq;
	void *ev_ctx;
	int fl;

	ROCE_TEST_ASSERT(ch != NULL && ch->context == e->s[0].ctx, "channel");
	fl = fcntl(ch->fd, F_GETFD);
	ROCE_TEST_ASSERT(fl >= 0 && (fl & FD_CLOEXEC), "close-on-exec");
	ROCE_TEST_ASSERT(!(fcntl(ch->fd, F_GETFL) & O_NONBLOCK), "blocking by default");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_create_comp_channel(NULL) == NULL && rte_errno == EINVAL, "NULL");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_create_cq(e->s[1].ctx, 8, NULL, ch, 0) == NULL &&
			 rte_errno == EINVAL, "channel of another device");
	cq = rte_roce_create_cq(e->s[0].ctx, 8, NULL, ch, 0);
	ROCE_TEST_ASSERT(cq != NULL && cq->channel == ch, "CQ on the channel");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_comp_channel(ch), -EBUSY, "channel in use");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(e->s[0].ctx), -EBUSY, "device with a channel");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_comp_channel(NULL), -EINVAL, "destroy NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_req_notify_cq(NULL, 0), -EINVAL, "arm NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_req_notify_cq(cq, 0), 0, "arm");
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_cq_events(NULL, 1), -EINVAL, "ack NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_cq_events(cq, 1), -EINVAL, "ack more than got");
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_cq_events(cq, 0), 0, "ack none");
	ROCE_TEST_ASSERT_EQ(rte_roce_get_cq_event(NULL, &ev_cq, &ev_ctx), -EINVAL, "NULL channel");
	ROCE_TEST_ASSERT_EQ(rte_roce_get_cq_event(ch, NULL, &ev_ctx), -EINVAL, "NULL cq");
	ROCE_TEST_ASSERT_EQ(rte_roce_get_cq_event(ch, &ev_cq, NULL), -EINVAL, "NULL cq_context");
	if (set_nonblock(ch->fd) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_get_cq_event(ch, &ev_cq, &ev_ctx), -EAGAIN, "nothing waits");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(cq), 0, "destroy CQ");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_comp_channel(ch), 0, "destroy channel");
	/* A CQ without a channel cannot be armed nor acknowledged. */
	plain = rte_roce_create_cq(e->s[0].ctx, 8, NULL, NULL, 0);
	ROCE_TEST_ASSERT(plain != NULL, "CQ without channel");
	ROCE_TEST_ASSERT_EQ(rte_roce_req_notify_cq(plain, 0), -EINVAL, "arm without channel");
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_cq_events(plain, 0), -EINVAL, "ack without channel");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(plain), 0, "destroy");
	return 0;
}

/* ---- Arming ---- */

/* Arm for all: one event for the next completion, none without arming, none for older ones. */
static int
notify_all(struct env *e)
{
	struct ibv_cq *rcq = e->s[1].rcq;

	if (send_one(e, 1, 0) != 0)
		return -1;
	if (expect_no_cq_event(e, 1) != 0)
		return -1;
	/* A completion already in the CQ at arming time wakes nobody: poll after arming. */
	if (post_recv(e, 1, 2) != 0 || post_send(e, 0, IBV_WR_SEND, 2, 0, 0) != 0 ||
	    expect_wc(e, e->s[0].scq, 2, IBV_WC_SUCCESS) != 0)
		return -1;
	pump(e);
	ROCE_TEST_ASSERT_EQ(rte_roce_req_notify_cq(rcq, 0), 0, "arm");
	if (expect_no_cq_event(e, 1) != 0 || expect_wc(e, rcq, 2, IBV_WC_SUCCESS) != 0)
		return -1;
	if (send_one(e, 3, 0) != 0 || expect_cq_event(e, 1, rcq) != 0)
		return -1;
	/* Disarmed by the event: the next completion wakes nobody. */
	if (send_one(e, 4, 0) != 0 || expect_no_cq_event(e, 1) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_cq_events(rcq, 2), -EINVAL, "one got");
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_cq_events(rcq, 1), 0, "ack");
	/* Two armings, one completion: one event. Then the send CQ on the same channel. */
	ROCE_TEST_ASSERT_EQ(rte_roce_req_notify_cq(rcq, 0), 0, "arm");
	ROCE_TEST_ASSERT_EQ(rte_roce_req_notify_cq(rcq, 1), 0, "solicited does not narrow");
	if (send_one(e, 5, 0) != 0 || expect_cq_event(e, 1, rcq) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_req_notify_cq(e->s[0].scq, 0), 0, "arm send CQ");
	if (send_one(e, 6, 0) != 0 || expect_cq_event(e, 0, e->s[0].scq) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_cq_events(rcq, 1), 0, "ack");
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_cq_events(e->s[0].scq, 1), 0, "ack");
	return 0;
}

/* Solicited only: a SEND without SE does not wake, one with SE does, an error does. */
static int
notify_solicited(struct env *e)
{
	struct ibv_cq *rcq = e->s[1].rcq, *scq = e->s[0].scq;

	ROCE_TEST_ASSERT_EQ(rte_roce_req_notify_cq(rcq, 1), 0, "arm solicited");
	if (send_one(e, 1, 0) != 0 || expect_no_cq_event(e, 1) != 0)
		return -1;
	/* Still armed: the solicited SEND wakes it. */
	if (send_one(e, 2, IBV_SEND_SOLICITED) != 0 || expect_cq_event(e, 1, rcq) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_cq_events(rcq, 1), 0, "ack");
	/* A successful send completion is never solicited; an error completion is. */
	ROCE_TEST_ASSERT_EQ(rte_roce_req_notify_cq(scq, 1), 0, "arm send CQ solicited");
	if (send_one(e, 3, IBV_SEND_SOLICITED) != 0 || expect_no_cq_event(e, 0) != 0)
		return -1;
	if (post_send(e, 0, IBV_WR_RDMA_WRITE, 4, 0, e->s[1].mr->rkey ^ 0x100) != 0 ||
	    expect_wc(e, scq, 4, IBV_WC_REM_ACCESS_ERR) != 0 || expect_cq_event(e, 0, scq) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_cq_events(scq, 1), 0, "ack");
	return 0;
}

/* One UD QP per side, in RTS with UD_QKEY, and an AH from a to b. */
static int
ud_pair(struct env *e, struct ibv_qp *ud[2], struct ibv_ah **ah)
{
	if (roce_test_qp_create(&e->s[0], IBV_QPT_UD, &ud[0]) != 0 ||
	    roce_test_qp_create(&e->s[1], IBV_QPT_UD, &ud[1]) != 0 ||
	    roce_test_ud_qp_ready(ud[0], UD_QKEY) != 0 || roce_test_ud_qp_ready(ud[1], UD_QKEY) != 0)
		return -1;
	*ah = roce_test_ah_create(&e->s[0], ADDR_B);
	ROCE_TEST_ASSERT(*ah != NULL, "AH");
	return 0;
}

/* UD: a SEND with SE wakes a solicited-only arming, one without does not. */
static int
ud_send(struct env *e, struct ibv_qp *const ud[2], struct ibv_ah *ah, uint64_t wr_id, int flags)
{
	struct roce_test_side *s = &e->s[0];
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf, .length = UD_MSG_LEN, .lkey = s->mr->lkey };
	struct ibv_sge rsge = { .addr = (uintptr_t)e->s[1].buf, .length = MSG_LEN,
				.lkey = e->s[1].mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | flags,
	};
	struct ibv_recv_wr rwr = { .wr_id = wr_id, .sg_list = &rsge, .num_sge = 1 };
	struct ibv_send_wr *bad;
	struct ibv_recv_wr *rbad;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ud[1]->qp_num;
	wr.wr.ud.remote_qkey = UD_QKEY;
	ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(ud[1], &rwr, &rbad), 0, "UD post_recv");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(ud[0], &wr, &bad), 0, "UD post_send");
	if (expect_wc(e, e->s[0].scq, wr_id, IBV_WC_SUCCESS) != 0)
		return -1;
	return expect_wc(e, e->s[1].rcq, wr_id, IBV_WC_SUCCESS);
}

static int
notify_solicited_ud(struct env *e)
{
	struct ibv_qp *ud[2] = { NULL, NULL };
	struct ibv_ah *ah;
	int ret = 0;

	if (ud_pair(e, ud, &ah) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_req_notify_cq(e->s[1].rcq, 1), 0, "arm solicited");
	ret = ud_send(e, ud, ah, 1, 0);
	if (ret == 0)
		ret = expect_no_cq_event(e, 1);
	if (ret == 0)
		ret = ud_send(e, ud, ah, 2, IBV_SEND_SOLICITED);
	if (ret == 0)
		ret = expect_cq_event(e, 1, e->s[1].rcq);
	if (ret == 0)
		ROCE_TEST_ASSERT_EQ(rte_roce_ack_cq_events(e->s[1].rcq, 1), 0, "ack");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_ah(ah), 0, "destroy AH");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(ud[0]), 0, "destroy UD QP");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(ud[1]), 0, "destroy UD QP");
	return ret;
}

/* An event got and not acknowledged keeps its CQ alive. */
static int
destroy_rules(struct env *e)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	ROCE_TEST_ASSERT_EQ(rte_roce_req_notify_cq(e->s[1].rcq, 0), 0, "arm");
	if (send_one(e, 1, 0) != 0)
		return -1;
	ROCE_TEST_ASSERT(wait_readable(e, e->ch[1]->fd, WAIT_MS), "event");
	ROCE_TEST_ASSERT_EQ(rte_roce_get_cq_event(e->ch[1], &ev_cq, &ev_ctx), 0, "get");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(e->qp[1]), 0, "destroy QP");
	e->qp[1] = NULL;
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(e->s[1].rcq), -EBUSY, "event not acked");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_comp_channel(e->ch[1]), -EBUSY, "channel with CQs");
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_cq_events(ev_cq, 1), 0, "ack");
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_cq_events(ev_cq, 1), -EINVAL, "acked twice");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(e->s[1].rcq), 0, "destroy after ack");
	e->s[1].rcq = NULL;
	return 0;
}

/* The event of a destroyed CQ is forgotten: the reader skips its token. */
static int
forgotten_event(struct env *e)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	ROCE_TEST_ASSERT_EQ(rte_roce_req_notify_cq(e->s[1].rcq, 0), 0, "arm");
	if (send_one(e, 1, 0) != 0)
		return -1;
	ROCE_TEST_ASSERT(wait_readable(e, e->ch[1]->fd, WAIT_MS), "event queued");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(e->qp[1]), 0, "destroy QP");
	e->qp[1] = NULL;
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(e->s[1].rcq), 0, "destroy with an event queued");
	e->s[1].rcq = NULL;
	if (set_nonblock(e->ch[1]->fd) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_get_cq_event(e->ch[1], &ev_cq, &ev_ctx), -EAGAIN,
			    "no event of a destroyed CQ");
	ROCE_TEST_ASSERT(!fd_readable(e->ch[1]->fd), "token consumed");
	return 0;
}

/* ---- Two threads: the progress thread produces, the application arms and polls ---- */

struct stress {
	struct env *e;
	uint32_t seen;		/* completions the consumer polled (atomic) */
	uint32_t done;		/* consumer finished, or failed (atomic) */
	uint32_t events;
	uint32_t empty_wakes;	/* events after which the CQ held nothing new */
	int result;
};

static void *
stress_consumer(void *arg)
{
	struct stress *st = arg;
	struct ibv_comp_channel *ch = st->e->ch[1];
	struct ibv_cq *cq = st->e->s[1].rcq, *ev_cq;
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct ibv_wc wc[STRESS_POLL];
	uint32_t seen = 0;
	void *ev_ctx;
	int n, i;

	st->result = -1;
	if (rte_roce_req_notify_cq(cq, 0) != 0)
		goto out;
	for (;;) {
		bool any = false;

		/* Poll until empty: completions before the arming produce no event. */
		while ((n = rte_roce_poll_cq(cq, STRESS_POLL, wc)) > 0) {
			for (i = 0; i < n; i++) {
				if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id != seen) {
					printf("#   completion %u: wr_id %llu status %d\n", seen,
					       (unsigned long long)wc[i].wr_id, wc[i].status);
					goto out;
				}
				seen++;
			}
			any = true;
			__atomic_store_n(&st->seen, seen, __ATOMIC_RELEASE);
		}
		if (n < 0 || seen == STRESS_MSGS)
			break;
		st->empty_wakes += !any;
		/* Bounded sleep: a lost wake-up fails instead of hanging. */
		if (poll(&p, 1, STRESS_WAKE_MS) != 1) {
			printf("#   lost wake-up: %u of %u completions seen\n", seen, STRESS_MSGS);
			goto out;
		}
		if (rte_roce_get_cq_event(ch, &ev_cq, &ev_ctx) != 0 || ev_cq != cq ||
		    rte_roce_ack_cq_events(ev_cq, 1) != 0 || rte_roce_req_notify_cq(cq, 0) != 0)
			goto out;
		st->events++;
	}
	st->result = seen == STRESS_MSGS ? 0 : -1;
out:
	__atomic_store_n(&st->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The producer: posts receives and sends within a window, and runs both devices. */
static int
stress_produce(struct stress *st)
{
	struct env *e = st->e;
	uint64_t end = roce_test_ms() + 4 * STRESS_WAKE_MS + WAIT_MS;
	uint32_t posted = 0;
	struct ibv_wc wc[STRESS_POLL];
	int n, i;

	while (!__atomic_load_n(&st->done, __ATOMIC_ACQUIRE) && roce_test_ms() < end) {
		uint32_t seen = __atomic_load_n(&st->seen, __ATOMIC_ACQUIRE);
		/* Bursts of varying size, so the consumer finds the CQ empty often. */
		uint32_t burst = 1 + (posted % 7);

		while (burst-- > 0 && posted < STRESS_MSGS && posted - seen < STRESS_WINDOW) {
			if (post_recv(e, 1, posted) != 0 ||
			    post_send(e, 0, IBV_WR_SEND, posted, 0, 0) != 0)
				return -1;
			posted++;
		}
		pump(e);
		n = rte_roce_poll_cq(e->s[0].scq, STRESS_POLL, wc);
		ROCE_TEST_ASSERT(n >= 0, "send CQ");
		for (i = 0; i < n; i++)
			ROCE_TEST_ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS, "send %llu",
					    (unsigned long long)wc[i].wr_id);
	}
	ROCE_TEST_ASSERT(__atomic_load_n(&st->done, __ATOMIC_ACQUIRE), "consumer still waiting");
	return 0;
}

static int
two_threads(struct env *e)
{
	struct stress st = { .e = e };
	uint64_t start = roce_test_ms();
	pthread_t t;
	int ret;

	ROCE_TEST_ASSERT_EQ(pthread_create(&t, NULL, stress_consumer, &st), 0, "thread");
	ret = stress_produce(&st);
	pthread_join(t, NULL);
	printf("# %u completions, %u events (%u found nothing new) in %llu ms\n", STRESS_MSGS,
	       st.events, st.empty_wakes, (unsigned long long)(roce_test_ms() - start));
	ROCE_TEST_ASSERT_EQ(st.result, 0, "consumer");
	ROCE_TEST_ASSERT(st.events > 0, "the consumer slept and was woken");
	return ret;
}

/*
 * The application thread posts to a send queue of depth 1 again as soon as
 * it polls the completion of the previous WR: the engine must have retired
 * the WQE's slot before the completion shows. The main thread runs both
 * devices and keeps the peer's receive queue filled.
 */
struct depth1 {
	struct env *e;
	uint32_t done;		/* atomic */
	int result;
};

/* Sleep for the next event of side 0's send CQ (bounded), ack and re-arm it. */
static int
depth1_wait(struct env *e)
{
	struct pollfd p = { .fd = e->ch[0]->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	if (poll(&p, 1, WAIT_MS) != 1 || rte_roce_get_cq_event(e->ch[0], &ev_cq, &ev_ctx) != 0 ||
	    rte_roce_ack_cq_events(ev_cq, 1) != 0 || rte_roce_req_notify_cq(ev_cq, 0) != 0) {
		printf("#   no event\n");
		return -1;
	}
	return 0;
}

static void *
depth1_app(void *arg)
{
	struct depth1 *d = arg;
	struct env *e = d->e;
	struct ibv_wc wc;
	uint32_t i;
	int n = 0;

	d->result = -1;
	if (rte_roce_req_notify_cq(e->s[0].scq, 0) != 0)
		goto out;
	for (i = 0; i < DEPTH1_MSGS; i++) {
		if (post_send(e, 0, IBV_WR_SEND, i, 0, 0) != 0) {
			printf("#   post %u refused right after the completion of %u\n", i, i - 1);
			goto out;
		}
		/* Woken by the event, as an application would be: the widest window. */
		while ((n = rte_roce_poll_cq(e->s[0].scq, 1, &wc)) == 0) {
			if (depth1_wait(e) != 0)
				goto out;
		}
		if (n != 1 || wc.wr_id != i || wc.status != IBV_WC_SUCCESS) {
			printf("#   completion of %u: n %d wr_id %llu status %d\n", i, n,
			       (unsigned long long)wc.wr_id, wc.status);
			goto out;
		}
	}
	d->result = 0;
out:
	__atomic_store_n(&d->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int
post_on_completion(struct env *e)
{
	struct depth1 d = { .e = e };
	uint32_t posted = 0, got = 0;
	struct ibv_wc wc[STRESS_POLL];
	pthread_t t;
	int n;

	ROCE_TEST_ASSERT_EQ(pthread_create(&t, NULL, depth1_app, &d), 0, "thread");
	while (!__atomic_load_n(&d.done, __ATOMIC_ACQUIRE)) {
		while (posted < DEPTH1_MSGS && posted - got < STRESS_WINDOW) {
			if (post_recv(e, 1, posted) != 0)
				break;
			posted++;
		}
		pump(e);
		n = rte_roce_poll_cq(e->s[1].rcq, STRESS_POLL, wc);
		if (n > 0)
			got += n;
	}
	pthread_join(t, NULL);
	ROCE_TEST_ASSERT_EQ(d.result, 0, "application thread");
	return 0;
}

/* ---- Asynchronous events ---- */

static int
expect_async(struct env *e, unsigned int side, enum ibv_event_type type,
	     struct ibv_async_event *ev)
{
	struct ibv_context *ctx = e->s[side].ctx;

	ROCE_TEST_ASSERT(wait_readable(e, ctx->async_fd, WAIT_MS), "async fd readable");
	ROCE_TEST_ASSERT_EQ(rte_roce_get_async_event(ctx, ev), 0, "get async event");
	ROCE_TEST_ASSERT_EQ(ev->event_type, type, "event type");
	return 0;
}

/* A remote access error moves both QPs to ERR: QP_FATAL on both sides. */
static int
async_qp_fatal(struct env *e)
{
	struct ibv_async_event ev, copy;
	unsigned int side;

	ROCE_TEST_ASSERT(e->s[0].ctx->async_fd >= 0 && !fd_readable(e->s[0].ctx->async_fd),
			 "async fd, quiet");
	if (post_send(e, 0, IBV_WR_RDMA_WRITE, 1, 0, e->s[1].mr->rkey ^ 0x100) != 0 ||
	    expect_wc(e, e->s[0].scq, 1, IBV_WC_REM_ACCESS_ERR) != 0)
		return -1;
	for (side = 0; side < 2; side++) {
		if (expect_async(e, side, IBV_EVENT_QP_FATAL, &ev) != 0)
			return -1;
		ROCE_TEST_ASSERT(ev.element.qp == e->qp[side], "the QP");
		ROCE_TEST_ASSERT(!fd_readable(e->s[side].ctx->async_fd), "one event");
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(e->qp[side]), -EBUSY, "event not acked");
		copy = ev;
		ROCE_TEST_ASSERT_EQ(rte_roce_ack_async_event(&ev), 0, "ack");
		ROCE_TEST_ASSERT_EQ(rte_roce_ack_async_event(&copy), -EINVAL, "acked twice");
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_get_async_event(NULL, &ev), -EINVAL, "NULL ctx");
	ROCE_TEST_ASSERT_EQ(rte_roce_get_async_event(e->s[0].ctx, NULL), -EINVAL, "NULL event");
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_async_event(NULL), -EINVAL, "ack NULL");
	if (set_nonblock(e->s[0].ctx->async_fd) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_get_async_event(e->s[0].ctx, &ev), -EAGAIN, "none waits");
	return 0;
}

/* A QP destroyed with its event queued and not got: the event is dropped. */
static int
async_forgotten(struct env *e)
{
	struct ibv_qp_attr to_err = { .qp_state = IBV_QPS_ERR };
	struct ibv_async_event ev;

	if (post_send(e, 0, IBV_WR_RDMA_WRITE, 1, 0, e->s[1].mr->rkey ^ 0x100) != 0 ||
	    expect_wc(e, e->s[0].scq, 1, IBV_WC_REM_ACCESS_ERR) != 0)
		return -1;
	ROCE_TEST_ASSERT(fd_readable(e->s[0].ctx->async_fd), "QP_FATAL queued");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(e->qp[0]), 0, "destroy, event not got");
	e->qp[0] = NULL;
	if (set_nonblock(e->s[0].ctx->async_fd) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_get_async_event(e->s[0].ctx, &ev), -EAGAIN,
			    "event of a destroyed QP");
	/* The application's own move to ERR raises nothing. */
	if (expect_async(e, 1, IBV_EVENT_QP_FATAL, &ev) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_async_event(&ev), 0, "ack b");
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(e->qp[1], &to_err, IBV_QP_STATE), 0, "ERR");
	pump(e);
	ROCE_TEST_ASSERT(!fd_readable(e->s[1].ctx->async_fd), "no event for modify");
	return 0;
}

/*
 * More flushed receives than the receive CQ holds: the flush waits for room
 * instead of overrunning (doc/workers.md), every one arrives once, in order.
 */
static int
flush_held(struct env *e)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_cq *rcq = e->s[1].rcq;
	unsigned int i, got = 0, n = (unsigned int)rcq->cqe + 1;
	uint64_t end;
	struct ibv_wc wc;
	int ret;

	for (i = 0; i < n; i++) {
		if (post_recv(e, 1, i) != 0)
			return -1;
	}
	ROCE_TEST_ASSERT_EQ(rte_roce_modify_qp(e->qp[1], &attr, IBV_QP_STATE), 0, "to ERR");
	for (i = 0; i < 10; i++)
		pump(e);
	ROCE_TEST_ASSERT(!fd_readable(e->s[1].ctx->async_fd), "no CQ_ERR for a held flush");
	end = roce_test_ms() + WAIT_MS;
	while (got < n && roce_test_ms() < end) {
		pump(e);
		ret = rte_roce_poll_cq(rcq, 1, &wc);
		ROCE_TEST_ASSERT(ret >= 0, "poll_cq: %d", ret);
		if (ret == 0)
			continue;
		ROCE_TEST_ASSERT_EQ(wc.wr_id, got, "flush order");
		ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_WR_FLUSH_ERR, "flush status");
		got++;
	}
	ROCE_TEST_ASSERT_EQ(got, n, "every flushed receive");
	return 0;
}

/*
 * A receive CQ of SMALL_CQ entries never polled overruns with UD receives
 * (UD has no RNR): CQ_ERR, then its QP is fatal. Before: the RC QP's held
 * flush (flush_held()).
 */
static int
async_cq_overrun(struct env *e)
{
	struct ibv_cq *rcq = e->s[1].rcq;
	struct ibv_qp *ud[2] = { NULL, NULL };
	struct ibv_sge sge = { .addr = (uintptr_t)e->s[0].buf, .length = UD_MSG_LEN,
			       .lkey = e->s[0].mr->lkey };
	struct ibv_sge rsge = { .addr = (uintptr_t)e->s[1].buf, .length = MSG_LEN,
				.lkey = e->s[1].mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 };
	struct ibv_async_event ev;
	struct ibv_send_wr *bad;
	struct ibv_recv_wr *rbad;
	struct ibv_ah *ah;
	unsigned int i;

	if (flush_held(e) != 0)
		return -1;
	if (ud_pair(e, ud, &ah) != 0)
		return -1;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ud[1]->qp_num;
	wr.wr.ud.remote_qkey = UD_QKEY;
	for (i = 0; i <= (unsigned int)rcq->cqe; i++) {
		rwr.wr_id = i;
		wr.wr_id = i;
		ROCE_TEST_ASSERT_EQ(rte_roce_post_recv(ud[1], &rwr, &rbad), 0, "UD post_recv");
		ROCE_TEST_ASSERT_EQ(rte_roce_post_send(ud[0], &wr, &bad), 0, "UD post_send");
		if (expect_wc(e, e->s[0].scq, i, IBV_WC_SUCCESS) != 0)
			return -1;
	}
	if (expect_async(e, 1, IBV_EVENT_CQ_ERR, &ev) != 0)
		return -1;
	ROCE_TEST_ASSERT(ev.element.cq == rcq, "CQ_ERR of the CQ");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_ah(ah), 0, "destroy AH");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(ud[0]), 0, "destroy UD QP a");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(ud[1]), 0, "destroy UD QP b, its event not got");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(e->qp[1]), 0, "destroy RC QP b");
	e->qp[1] = NULL;
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(rcq), -EBUSY, "CQ_ERR not acked");
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_async_event(&ev), 0, "ack");
	/* QP_FATAL went with its QP: its token is skipped. */
	if (set_nonblock(e->s[1].ctx->async_fd) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_get_async_event(e->s[1].ctx, &ev), -EAGAIN, "none left");
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(rcq, 1, &(struct ibv_wc){ 0 }), 1, "stored ones first");
	return 0;
}

/* Port down and up: PORT_ERR then PORT_ACTIVE, read by rte_roce_poll(). */
static int
async_port(struct env *e)
{
	struct ibv_async_event ev;

	pump(e);	/* the first link check records the state */
	ROCE_TEST_ASSERT_EQ(rte_eth_dev_set_link_down(pair.a), 0, "link down");
	if (expect_async(e, 0, IBV_EVENT_PORT_ERR, &ev) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(ev.element.port_num, 1, "port 1");
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_async_event(&ev), 0, "ack (nothing to count)");
	ROCE_TEST_ASSERT(!wait_readable(e, e->s[0].ctx->async_fd, 3 * QUIET_MS), "one event");
	ROCE_TEST_ASSERT_EQ(rte_eth_dev_set_link_up(pair.a), 0, "link up");
	if (expect_async(e, 0, IBV_EVENT_PORT_ACTIVE, &ev) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_ack_async_event(&ev), 0, "ack");
	ROCE_TEST_ASSERT(!fd_readable(e->s[1].ctx->async_fd), "the other port saw nothing");
	return 0;
}

/* ---- Cases: each in a fresh environment ---- */

static int
run(int (*body)(struct env *), int rcq_len, uint32_t sq_depth)
{
	struct env e;
	int ret;

	ret = env_open(&e, rcq_len, sq_depth);
	if (ret == 0)
		ret = body(&e);
	return env_close(&e) | ret;
}

#define CASE(name, rcq_len, sq_depth) \
static int test_##name(void) { return run(name, rcq_len, sq_depth); }

CASE(channel_api, ROCE_TEST_CQ_LEN, SQ_DEPTH)
CASE(notify_all, ROCE_TEST_CQ_LEN, SQ_DEPTH)
CASE(notify_solicited, ROCE_TEST_CQ_LEN, SQ_DEPTH)
CASE(notify_solicited_ud, ROCE_TEST_CQ_LEN, SQ_DEPTH)
CASE(destroy_rules, ROCE_TEST_CQ_LEN, SQ_DEPTH)
CASE(forgotten_event, ROCE_TEST_CQ_LEN, SQ_DEPTH)
CASE(two_threads, ROCE_TEST_CQ_LEN, SQ_DEPTH)
CASE(post_on_completion, ROCE_TEST_CQ_LEN, 1)
CASE(async_qp_fatal, ROCE_TEST_CQ_LEN, SQ_DEPTH)
CASE(async_forgotten, ROCE_TEST_CQ_LEN, SQ_DEPTH)
CASE(async_cq_overrun, SMALL_CQ, SQ_DEPTH)
CASE(async_port, ROCE_TEST_CQ_LEN, SQ_DEPTH)

static const struct roce_test_case cases[] = {
	{ "channel_api", test_channel_api },
	{ "notify_all", test_notify_all },
	{ "notify_solicited", test_notify_solicited },
	{ "notify_solicited_ud", test_notify_solicited_ud },
	{ "destroy_rules", test_destroy_rules },
	{ "forgotten_event", test_forgotten_event },
	{ "two_threads_no_lost_wakeup", test_two_threads },
	{ "post_on_completion_other_thread", test_post_on_completion },
	{ "async_qp_fatal", test_async_qp_fatal },
	{ "async_forgotten", test_async_forgotten },
	{ "async_cq_overrun", test_async_cq_overrun },
	{ "async_port_down_up", test_async_port },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&pair, "ev") != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
