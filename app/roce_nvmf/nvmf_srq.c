/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The shared receive queue of the I/O queues' command capsules (IBA
 * 10.2.9; doc/nvmf.md, "A shared receive queue"): srq_depth buffers of
 * 64 + in-capsule data bytes that every I/O queue's QP takes its receives
 * from, so that receive memory does not grow with the number of queues.
 * A receive completion names its slot and a QP number, not a queue: the
 * table of queues by QP number finds the queue. And the device's
 * asynchronous events about queues: Last WQE Reached (the QP holds no SRQ
 * WQE any more, its queue may be freed), QP fatal, the SRQ limit.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>

#include <rte_roce.h>

#include "nvmf_priv.h"

/* The limit event fires when fewer than an eighth of the buffers are posted. */
#define NVMF_SRQ_LIMIT_DIV	8
/* How often the loop reads asynchronous events: a queue's teardown waits that long at most. */
#define NVMF_ASYNC_PERIOD_US	1000

static int
qpn_table_init(struct nvmf_tgt *tgt, uint32_t max_qp)
{
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters p = {
		.name = name,
		.entries = RTE_MAX(max_qp, 8u),
		.key_len = sizeof(uint32_t),
		.hash_func = rte_hash_crc,
		.socket_id = SOCKET_ID_ANY,
	};

	snprintf(name, sizeof(name), "nvmf_qpn_%p", (void *)tgt);
	tgt->qpn = rte_hash_create(&p);
	return tgt->qpn == NULL ? -rte_errno : 0;
}

int
nvmf_qpn_add(struct nvmf_queue *q)
{
	uint32_t qpn = q->qp->qp_num;

	return rte_hash_add_key_data(q->tgt->qpn, &qpn, q);
}

void
nvmf_qpn_del(struct nvmf_queue *q)
{
	uint32_t qpn = q->qp->qp_num;

	rte_hash_del_key(q->tgt->qpn, &qpn);
}

static struct nvmf_queue *
qpn_find(struct nvmf_tgt *tgt, uint32_t qpn)
{
	void *q;

	return rte_hash_lookup_data(tgt->qpn, &qpn, &q) >= 0 ? q : NULL;
}

/* Arm the limit event (IBA 10.2.9.2; rte_roce_modify_srq()): it fires once, then disarms. */
static void
srq_arm(struct nvmf_tgt *tgt)
{
	struct ibv_srq_attr a = { .srq_limit = tgt->srq_limit };
	int rc;

	tgt->srq_low = false;
	if (tgt->srq_limit == 0)
		return;
	rc = rte_roce_modify_srq(tgt->srq, &a, IBV_SRQ_LIMIT);
	if (rc != 0)
		NVMF_LOG(WARNING, "SRQ: limit %u not armed: %s", tgt->srq_limit, rte_strerror(-rc));
}

int
nvmf_srq_post(struct nvmf_tgt *tgt, struct nvmf_recv *r)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->buf,
		.length = NVMF_SQE_LEN + tgt->conf.in_capsule_data,
		.lkey = tgt->srq_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = (uintptr_t)r, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int rc;

	rc = rte_roce_post_srq_recv(tgt->srq, &wr, &bad);
	if (rc != 0) {
		NVMF_LOG(ERR, "SRQ: capsule buffer not posted: %s", rte_strerror(-rc));
		return rc;
	}
	tgt->srq_posted++;
	/* armed again once half the buffers are back: one event per shortage, not per capsule */
	if (tgt->srq_low && tgt->srq_posted >= tgt->conf.srq_depth / 2)
		srq_arm(tgt);
	return 0;
}

/* srq_depth against the device: 0, or -EINVAL after naming the knob. */
static int
srq_conf_check(const struct nvmf_tgt *tgt, const struct ibv_device_attr *attr)
{
	uint32_t depth = tgt->conf.srq_depth;

	if (attr->max_srq == 0) {
		NVMF_LOG(ERR, "srq_depth %u: the device has no shared receive queue (max_srq 0)",
			 depth);
		return -EINVAL;
	}
	if (depth > (uint32_t)attr->max_srq_wr) {
		NVMF_LOG(ERR, "srq_depth %u: above the device's max_srq_wr %d", depth,
			 attr->max_srq_wr);
		return -EINVAL;
	}
	return 0;
}

static int
srq_create(struct nvmf_tgt *tgt, const struct ibv_device_attr *attr)
{
	uint32_t depth = tgt->conf.srq_depth, len = NVMF_SQE_LEN + tgt->conf.in_capsule_data, i;
	struct ibv_srq_init_attr init = { .attr = { .max_wr = depth, .max_sge = 1 } };
	size_t size = (size_t)depth * len;
	int rc;

	rc = srq_conf_check(tgt, attr);
	if (rc != 0)
		return rc;
	tgt->srq_recv = rte_zmalloc("nvmf_srq_recv", sizeof(*tgt->srq_recv) * depth, 0);
	tgt->srq_mem = rte_malloc("nvmf_srq_capsules", size, 64);
	if (tgt->srq_recv == NULL || tgt->srq_mem == NULL) {
		NVMF_LOG(ERR, "srq_depth %u: %zu bytes of capsule buffers not available", depth,
			 size);
		return -ENOMEM;
	}
	tgt->srq_mr = rte_roce_reg_mr(tgt->pd, tgt->srq_mem, size, IBV_ACCESS_LOCAL_WRITE);
	if (tgt->srq_mr == NULL)
		return -rte_errno;
	tgt->srq = rte_roce_create_srq(tgt->pd, &init);
	if (tgt->srq == NULL) {
		NVMF_LOG(ERR, "srq_depth %u: create_srq: %s", depth, rte_strerror(rte_errno));
		return -rte_errno;
	}
	for (i = 0; i < depth && rc == 0; i++) {
		tgt->srq_recv[i].buf = tgt->srq_mem + (size_t)i * len;
		rc = nvmf_srq_post(tgt, &tgt->srq_recv[i]);
	}
	tgt->srq_limit = depth / NVMF_SRQ_LIMIT_DIV;
	if (rc != 0)
		return rc;
	srq_arm(tgt);
	NVMF_LOG(INFO, "SRQ: %u capsule buffers of %u bytes for every I/O queue, limit event "
		 "below %u", depth, len, tgt->srq_limit);
	return 0;
}

/* The target reads the device's asynchronous events in its loop: never blocking. */
static int
async_nonblock(struct ibv_context *ctx)
{
	int flags = fcntl(ctx->async_fd, F_GETFL);

	if (flags < 0 || fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

int
nvmf_srq_init(struct nvmf_tgt *tgt, const struct ibv_device_attr *attr)
{
	int rc;

	rc = qpn_table_init(tgt, (uint32_t)attr->max_qp);
	if (rc == 0)
		rc = async_nonblock(tgt->ctx);
	if (rc == 0 && tgt->conf.srq_depth != 0)
		rc = srq_create(tgt, attr);
	return rc;
}

void
nvmf_srq_fini(struct nvmf_tgt *tgt)
{
	if (tgt->srq != NULL)
		rte_roce_destroy_srq(tgt->srq);
	if (tgt->srq_mr != NULL)
		rte_roce_dereg_mr(tgt->srq_mr);
	rte_free(tgt->srq_mem);
	rte_free(tgt->srq_recv);
	rte_hash_free(tgt->qpn);
}

void
nvmf_srq_recv_done(struct nvmf_tgt *tgt, struct nvmf_recv *r, const struct ibv_wc *wc)
{
	struct nvmf_queue *q = qpn_find(tgt, wc->qp_num);

	tgt->srq_posted--;
	if (q == NULL) {
		/* its queue is gone (freed after Last WQE Reached): the buffer is the SRQ's */
		tgt->stats.srq_stale++;
		nvmf_srq_post(tgt, r);
		return;
	}
	nvmf_req_recv_done(q, r, wc);
}

static void
async_event(struct nvmf_tgt *tgt, const struct ibv_async_event *ev)
{
	struct nvmf_queue *q;

	switch (ev->event_type) {
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		tgt->stats.srq_low++;
		tgt->srq_low = true;
		NVMF_LOG(INFO, "SRQ: fewer than %u of %u capsule buffers posted: hosts may meet "
			 "RNR NAKs", tgt->srq_limit, tgt->conf.srq_depth);
		/*
		 * Events are read every millisecond, completions at every poll:
		 * half the buffers may be back already, and nvmf_srq_post(),
		 * which arms again, may not run before the next shortage.
		 */
		if (tgt->srq_posted >= tgt->conf.srq_depth / 2)
			srq_arm(tgt);
		break;
	case IBV_EVENT_QP_FATAL:
		q = qpn_find(tgt, ev->element.qp->qp_num);
		tgt->stats.qp_fatal++;
		if (q != NULL)
			nvmf_queue_close(q, "QP fatal error");
		break;
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		/* IBA 11.6.3: in ERR, it takes no more SRQ WQEs; the one it held has completed */
		q = qpn_find(tgt, ev->element.qp->qp_num);
		if (q != NULL) {
			q->last_wqe = true;
			nvmf_queue_close(q, "QP in error");
		}
		break;
	default:
		break;	/* port events; events of a QP destroyed since come as DEVICE_FATAL */
	}
}

int
nvmf_async_drain(struct nvmf_tgt *tgt)
{
	struct ibv_async_event ev;
	int n = 0;

	while (rte_roce_get_async_event(tgt->ctx, &ev) == 0) {
		async_event(tgt, &ev);
		rte_roce_ack_async_event(&ev);
		n++;
	}
	return n;
}

/* In the loop: every NVMF_ASYNC_PERIOD_US, not a system call per round. */
int
nvmf_async_poll(struct nvmf_tgt *tgt)
{
	uint64_t now = rte_get_timer_cycles();

	if (now < tgt->async_next_check)
		return 0;
	tgt->async_next_check = now + rte_get_timer_hz() * NVMF_ASYNC_PERIOD_US / US_PER_S;
	return nvmf_async_drain(tgt);
}
