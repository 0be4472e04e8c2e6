/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The fast path. verbs.h's inline ibv_post_send(), ibv_post_recv(),
 * ibv_post_srq_recv(), ibv_poll_cq() and ibv_req_notify_cq() call through
 * ibv_context.ops, so a program built against rdma-core's headers reaches
 * these functions with no libibverbs code in between. On an inline device
 * (no workers configured) the thread that polls a CQ, or waits for a CQ
 * event, also drives the device's progress. doc/verbs-abi.md.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>

#include <rte_roce_event.h>
#include <rte_roce_verbs.h>

#include "roce_verbs.h"

static int
rv_ops_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	return roce_verbs_errno(rte_roce_post_send(qp, wr, bad_wr));
}

static int
rv_ops_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return roce_verbs_errno(rte_roce_post_recv(qp, wr, bad_wr));
}

static int
rv_ops_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return roce_verbs_errno(rte_roce_post_srq_recv(srq, wr, bad_wr));
}

/*
 * Negative on error, as verbs (the errno itself: ibv_poll_cq(3) promises
 * only "negative"). A poll that found nothing to do yields the CPU, as the
 * examples' progress loops do: on shared cores the peer process (or our
 * own worker) gets to run; dedicated cores want worker mode.
 */
static int
rv_ops_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	int work = roce_verbs_progress(cq->context);
	int n = rte_roce_poll_cq(cq, num_entries, wc);

	if (n == 0 && work == 0)
		sched_yield();
	return n;
}

static int
rv_ops_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return roce_verbs_errno(rte_roce_req_notify_cq(cq, solicited_only));
}

void
roce_verbs_ops_init(struct ibv_context *ctx)
{
	ctx->ops.post_send = rv_ops_post_send;
	ctx->ops.post_recv = rv_ops_post_recv;
	ctx->ops.post_srq_recv = rv_ops_post_srq_recv;
	ctx->ops.poll_cq = rv_ops_poll_cq;
	ctx->ops.req_notify_cq = rv_ops_req_notify_cq;
	ctx->ops.alloc_mw = rv_alloc_mw;
	ctx->ops.dealloc_mw = rv_dealloc_mw;
	ctx->ops.bind_mw = rv_bind_mw;
}

/*
 * Wait for the channel's fd to be readable, driving the device's progress
 * meanwhile (an inline device has no other thread to complete work) and
 * yielding the CPU when idle. A channel set O_NONBLOCK gets progress until
 * idle and no wait.
 */
static void
rv_wait_channel(struct ibv_comp_channel *channel)
{
	struct pollfd pfd = { .fd = channel->fd, .events = POLLIN };
	bool nonblock = (fcntl(channel->fd, F_GETFL) & O_NONBLOCK) != 0;

	while (poll(&pfd, 1, 0) == 0) {
		if (roce_verbs_progress(channel->context) > 0)
			continue;
		if (nonblock)
			return;
		sched_yield();
	}
}

int rv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
	ROCE_VERBS_EXPORT(ibv_get_cq_event);
int
rv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	struct roce_verbs_dev *dev;
	int rc;

	if (roce_verbs_obj_gone(channel, __func__))
		return -1;
	dev = channel != NULL ? roce_verbs_dev_of_ctx(channel->context) : NULL;
	if (dev == NULL)
		return ROCE_VERBS_REAL(rv_get_cq_event, "ibv_get_cq_event", "IBVERBS_1.1")
			(channel, cq, cq_context);
	if (dev->conf->dev_conf.nb_workers == 0)
		rv_wait_channel(channel);
	/* verbs: -1 with errno set. */
	rc = rte_roce_get_cq_event(channel, cq, cq_context);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}
