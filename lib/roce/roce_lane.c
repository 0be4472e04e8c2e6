/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Lanes: the progress loop of a device. A lane owns port queue i, the QPs
 * bound to it, their timers and its counters (roce_dev.h struct roce_lane).
 * Here: its rings (run queue, hand-off inboxes), one pass of its loop
 * (receive, hand-offs, timers, QPs with work, TX flush), the inline
 * entry points rte_roce_poll()/rte_roce_poll_lane() and the control
 * handshake that holds every lane while a control call runs. A lane calls
 * the engines through roce_transport.h only; the workers that drive lanes
 * in worker mode are in roce_worker.c.
 */

#include <errno.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <rte_ring_peek.h>

#include "roce_cq.h"
#include "roce_dev.h"
#include "roce_lane.h"
#include "roce_log.h"
#include "roce_port_queue.h"
#include "roce_tsan.h"
#include "roce_qp.h"
#include "roce_transport.h"

/* An rte_ring of pointers in the device's memory; NULL with rte_errno. */
static struct rte_ring *
roce_dev_ring(struct roce_dev *dev, const char *name, unsigned int count, unsigned int flags)
{
	ssize_t size = rte_ring_get_memsize(count);
	struct rte_ring *r;

	if (size < 0) {
		rte_errno = (int)-size;
		return NULL;
	}
	r = rte_zmalloc_socket(name, size, RTE_CACHE_LINE_SIZE, dev->socket);
	if (r == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	if (rte_ring_init(r, name, count, flags) < 0) {
		rte_free(r);
		return NULL;
	}
	return r;
}

/*
 * A lane's rings: its schedule ring (a slot per QP: the enqueue of a
 * doorbell cannot fail; posting threads enqueue, the lane dequeues) and
 * one SPSC hand-off ring from every other lane.
 */
static int
roce_dev_lane_init(struct roce_dev *dev, struct roce_lane *lane, uint16_t id)
{
	uint16_t from;

	lane->dev = dev;
	lane->id = id;
	roce_timer_wheel_init(&lane->timers);
	lane->sched = roce_dev_ring(dev, "roce_sched", dev->qp_mask + 1, RING_F_SC_DEQ);
	if (lane->sched == NULL)
		return -rte_errno;
	if (dev->nb_lanes == 1)
		return 0;
	lane->inbox = rte_zmalloc_socket("roce_inbox", dev->nb_lanes * sizeof(*lane->inbox), 0,
					 dev->socket);
	if (lane->inbox == NULL)
		return -ENOMEM;
	for (from = 0; from < dev->nb_lanes; from++) {
		if (from == id)
			continue;
		lane->inbox[from] = roce_dev_ring(dev, "roce_handoff", ROCE_LANE_HANDOFF_RING,
						  RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (lane->inbox[from] == NULL)
			return -rte_errno;
	}
	return 0;
}

/* Free frames still in a hand-off ring, then the ring. */
static void
roce_dev_inbox_free(struct rte_ring *r)
{
	void *m;

	if (r == NULL)
		return;
	while (rte_ring_sc_dequeue(r, &m) == 0)
		rte_pktmbuf_free(m);
	rte_free(r);
}

void
roce_dev_lanes_free(struct roce_dev *dev)
{
	uint16_t i, j;

	if (dev->lanes == NULL)
		return;
	for (i = 0; i < dev->nb_lanes; i++) {
		struct roce_lane *lane = &dev->lanes[i];

		rte_free(lane->sched);
		if (lane->inbox == NULL)
			continue;
		for (j = 0; j < dev->nb_lanes; j++)
			roce_dev_inbox_free(lane->inbox[j]);
		rte_free(lane->inbox);
	}
	rte_free(dev->lanes);
	dev->lanes = NULL;
}

/* One lane per worker, or one for rte_roce_poll(); each owns the port queue of its index. */
int
roce_dev_lanes_init(struct roce_dev *dev)
{
	uint16_t nb_queues = roce_port_nb_queues(dev->port);
	uint16_t i;
	int rc;

	dev->nb_lanes = RTE_MAX(RTE_MAX(dev->conf.nb_workers, dev->conf.nb_lanes), 1);
	if (dev->conf.nb_workers != 0 && dev->conf.nb_lanes != 0 &&
	    dev->conf.nb_lanes != dev->conf.nb_workers) {
		ROCE_LOG(ERR, "nb_lanes %u with %u workers: a lane per worker",
			 dev->conf.nb_lanes, dev->conf.nb_workers);
		return -EINVAL;
	}
	/* A queue nobody polls would lose what RSS sends it. */
	if (dev->nb_lanes != nb_queues) {
		ROCE_LOG(ERR, "%u lanes (workers) for a port of %u queues: one per queue "
			 "(rte_roce_port_conf.nb_queues)", dev->nb_lanes, nb_queues);
		return -EINVAL;
	}
	/* A CQ's comp_vector names the lane (worker) that completes into it. */
	dev->ibv.num_comp_vectors = dev->nb_lanes;
	dev->lanes = rte_zmalloc_socket("roce_lanes", dev->nb_lanes * sizeof(*dev->lanes),
					RTE_CACHE_LINE_SIZE, dev->socket);
	if (dev->lanes == NULL)
		return -ENOMEM;
	for (i = 0; i < dev->nb_lanes; i++) {
		rc = roce_dev_lane_init(dev, &dev->lanes[i], i);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A CQ overran: every QP of the lane using an overflowed CQ goes to ERR (IBA 11.4.2.1). */
static void
roce_dev_cq_errors(struct roce_lane *lane)
{
	struct roce_dev *dev = lane->dev;
	uint32_t slot;

	lane->cq_error = false;
	for (slot = RTE_ROCE_QP1_QPN; slot <= dev->qp_mask; slot++) {
		struct roce_qp *qp = dev->qp_tbl[slot];

		if (qp != NULL && qp->lane == lane &&
		    (roce_cq_overflowed(qp->scq) || roce_cq_overflowed(qp->rcq)))
			roce_qp_error(qp);
	}
}

/*
 * With thousands of QPs each run starts with the misses of a cold QP and
 * of the WQE it sends next (posted long before: doc/scale.md "Depth D per
 * QP"). The QPNs queued behind the running one are known: fetch their
 * state while the one before them runs. Stage 1, the QP's table slot;
 * stage 2, the lines roce_req_run() reads first (state, requester, send
 * ring indexes); stage 3, the WQE at the requester's index.
 */
static void
roce_dev_run_prefetch(struct roce_dev *dev, void *obj, unsigned int stage)
{
	uint32_t qpn = (uint32_t)(uintptr_t)obj;
	struct roce_qp *qp;

	if (stage == 1) {
		rte_prefetch0(&dev->qp_tbl[qpn & dev->qp_mask]);
		return;
	}
	qp = dev->qp_tbl[qpn & dev->qp_mask];
	if (qp == NULL)
		return;
	if (stage == 2) {
		rte_prefetch0(qp);
		rte_prefetch0(&qp->req);
		rte_prefetch0(&qp->sq.prod);
		rte_prefetch0(&qp->sq.slots);
		return;
	}
	/*
	 * Only a QP with a WQE to send: a responder's run (an ACK) or a
	 * completer's wake-up reads no WQE. Any slot of the ring is mapped: a
	 * prediction gone stale only costs the fetch.
	 */
	if (qp->req.wqe_idx != roce_sq_producer(qp))
		rte_prefetch0(roce_sq_wqe(qp, qp->req.wqe_idx));
}

/*
 * Copy the next QPNs of the schedule ring into ahead without taking them
 * (the ring is single-consumer, so the next dequeues return exactly these,
 * in this order); their table slots are fetched. Returns how many.
 */
static unsigned int
roce_dev_run_peek(struct roce_lane *lane, void **ahead, unsigned int max)
{
	unsigned int k, n;

	n = rte_ring_dequeue_burst_start(lane->sched, ahead, max, NULL);
	rte_ring_dequeue_finish(lane->sched, 0);
	for (k = 0; k < n; k++)
		roce_dev_run_prefetch(lane->dev, ahead[k], 1);
	return n;
}

/* Run the lane's QPs that were scheduled before this call; returns the packets they sent. */
static unsigned int
roce_dev_run_qps(struct roce_lane *lane)
{
	struct rte_roce_port *port = lane->dev->port;
	unsigned int n = rte_ring_count(lane->sched);
	unsigned int work = 0, na = 0, ia = 0;
	void *ahead[ROCE_DEV_RUN_AHEAD];
	void *obj;

	/*
	 * Back-pressure: a QP runs only while the port can keep what it may
	 * send; the rest stay scheduled for the next pass instead of being
	 * dropped at a full TX queue and retransmitted after a timeout.
	 */
	while (n-- > 0 && roce_port_tx_room(port, lane->id) >= ROCE_DEV_QP_TX_MAX &&
	       rte_ring_sc_dequeue(lane->sched, &obj) == 0) {
		struct roce_qp *qp = roce_dev_qp_lookup(lane->dev, (uint32_t)(uintptr_t)obj);
		enum ibv_qp_state state;
		int sent, acks;

		/*
		 * ahead[ia] is the QP that runs after this one: fetch its WQE
		 * (its state was fetched during the run before) and the state
		 * of the one after it; with fewer than two known, look again.
		 */
		if (ia < na)
			ia++;
		if (ia + 1 >= na && n > 0) {
			na = roce_dev_run_peek(lane, ahead, RTE_MIN(n, ROCE_DEV_RUN_AHEAD));
			for (ia = 0; ia < RTE_MIN(na, 2u); ia++)
				roce_dev_run_prefetch(lane->dev, ahead[ia], 2);
			ia = 0;
		} else if (ia + 1 < na) {
			roce_dev_run_prefetch(lane->dev, ahead[ia], 3);
			roce_dev_run_prefetch(lane->dev, ahead[ia + 1], 2);
		}
		if (qp == NULL)
			continue;	/* destroyed since it was scheduled */
		(void)__atomic_exchange_n(&qp->scheduled, false, __ATOMIC_ACQ_REL);
		ROCE_COUNT(lane->stats.qp_runs);
		state = roce_qp_state(qp);
		if (state == IBV_QPS_ERR || state == IBV_QPS_SQE)
			roce_qp_flush(qp);
		if (state == IBV_QPS_ERR)
			continue;
		sent = roce_req_run(qp, ROCE_DEV_QP_BUDGET);
		acks = roce_resp_run(qp, ROCE_DEV_QP_BUDGET);
		if (sent > 0)
			work += sent;
		if (acks > 0)
			work += acks;
		/* A role that used its whole budget has more: run it again next time. */
		if (sent >= ROCE_DEV_QP_BUDGET || acks >= ROCE_DEV_QP_BUDGET)
			roce_dev_qp_schedule(lane->dev, qp);
	}
	return work;
}

/* The frames other lanes handed to this one: each to the QP it names. */
static unsigned int
roce_dev_inbox_run(struct roce_lane *lane)
{
	struct rte_mbuf *m[ROCE_DEV_RX_BURST];
	unsigned int n, i, total = 0;
	uint16_t from;

	for (from = 0; from < lane->dev->nb_lanes; from++) {
		if (from == lane->id)
			continue;
		n = rte_ring_sc_dequeue_burst(lane->inbox[from], (void **)m, ROCE_DEV_RX_BURST,
					      NULL);
		if (n > 0)
			ROCE_TSAN_ACQUIRE(lane->inbox[from]);
		for (i = 0; i < n; i++) {
			roce_recv_handed(lane, m[i], m[i]->hash.usr);
			rte_pktmbuf_free(m[i]);
		}
		total += n;
	}
	ROCE_COUNT_ADD(lane->stats.handoffs_in, total);
	return total;
}

/*
 * Input before timeouts. A full RX burst means more frames wait, and after
 * a stall of the lane (a worker descheduled, a long control pause) those
 * are the ACKs of QPs whose retransmit timers are now due: firing them
 * first would resend what the peer already acknowledged (go-back-N of a
 * whole window) and then drop the ACKs as stale. So while the RX queue is
 * backlogged the wheel waits, for ROCE_DEV_TIMER_DEFER_POLLS full bursts at
 * most: a queue that never drains (a flood) cannot starve the timers, it
 * only coarsens them, to a few thousand frames' time.
 */
static void
roce_dev_timers_run(struct roce_lane *lane, bool rx_backlog)
{
	if (rx_backlog && lane->timer_defers < ROCE_DEV_TIMER_DEFER_POLLS) {
		lane->timer_defers++;
		ROCE_COUNT(lane->stats.timer_defers);
		return;
	}
	lane->timer_defers = 0;
	roce_timer_wheel_run(&lane->timers);
}

int
roce_dev_progress(struct roce_lane *lane)
{
	struct roce_dev *dev = lane->dev;
	const struct rte_roce_pkt *parsed;
	bool rx_backlog;
	uint16_t n;
	int work;

	ROCE_COUNT(lane->stats.polls);
	n = roce_port_poll_queue(dev->port, lane->id, lane->rx, ROCE_DEV_RX_BURST, &parsed);
	rx_backlog = n == ROCE_DEV_RX_BURST;
	/* ACKs, responses and requests of this round leave in bursts */
	roce_port_tx_batch_begin(dev->port, lane->id);
	if (n > 0) {
		ROCE_COUNT_ADD(lane->stats.rx_frames, n);
		/* the port parsed and checked them: no second parse */
		RTE_BUILD_BUG_ON(ROCE_DEV_RX_BURST > ROCE_PORT_RX_PARSED);
		roce_recv_burst(lane, lane->rx, parsed, n);
	}
	if (lane->inbox != NULL)
		n += roce_dev_inbox_run(lane);
	roce_dev_timers_run(lane, rx_backlog);
	/* Port-wide events belong to lane 0, the owner of the port's slow path. */
	if (lane->id == 0)
		roce_dev_link_check(dev);
	if (lane->cq_error)
		roce_dev_cq_errors(lane);
	work = n + roce_dev_run_qps(lane);
	roce_port_tx_batch_end(dev->port, lane->id);
	return work;
}

int
rte_roce_poll(struct ibv_context *ctx)
{
	struct roce_dev *dev;
	uint16_t i;
	int work = 0;

	if (ctx == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	dev = roce_dev_of(ctx);
	/* Worker mode: the workers make progress; one program runs in both models. */
	if (dev->nb_workers != 0)
		return 0;
	for (i = 0; i < dev->nb_lanes; i++)
		work += roce_dev_poll_inline(&dev->lanes[i]);
	return work;
}

int
rte_roce_poll_lane(struct ibv_context *ctx, uint16_t lane)
{
	struct roce_dev *dev;

	if (ctx == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	dev = roce_dev_of(ctx);
	if (lane >= dev->nb_lanes) {
		ROCE_LOG(ERR, "lane %u: device %s has %u", lane, dev->ibv_dev.name, dev->nb_lanes);
		return -EINVAL;
	}
	if (dev->nb_workers != 0)
		return 0;
	return roce_dev_poll_inline(&dev->lanes[lane]);
}

/*
 * The control handshake, one for both modes: a controller stores pause,
 * then waits for busy to be 0; a lane's driver stores busy, then loads
 * pause. Each side stores one flag and loads the other (the store-load
 * pattern), so both use sequentially consistent atomics: either the driver
 * sees the pause, or the controller sees it busy and waits. An inline
 * poller is busy for one pass; a worker from its start until it parks
 * (roce_lane_park()), so that its pass costs one load of pause.
 */
void
roce_lane_busy(struct roce_lane *lane)
{
	__atomic_store_n(&lane->busy, 1, __ATOMIC_SEQ_CST);
}

void
roce_lane_idle(struct roce_lane *lane)
{
	/* What the lane did happens before the controller's call. */
	__atomic_store_n(&lane->busy, 0, __ATOMIC_RELEASE);
}

bool
roce_lane_held(struct roce_lane *lane)
{
	return __atomic_load_n(&lane->pause, __ATOMIC_SEQ_CST) != 0;
}

void
roce_lane_park(struct roce_lane *lane)
{
	roce_lane_idle(lane);
	while (roce_lane_held(lane))
		rte_pause();
	roce_lane_busy(lane);
}

/* Inline mode: a poll that finds the lane held returns without running it. */
int
roce_dev_poll_inline(struct roce_lane *lane)
{
	int work = 0;

	roce_lane_busy(lane);
	if (!roce_lane_held(lane))
		work = roce_dev_progress(lane);
	roce_lane_idle(lane);
	return work;
}

/* Hold (pause 1) or release (pause 0) every lane of dev. */
static void
roce_ctrl_pause(struct roce_dev *dev, uint32_t pause)
{
	unsigned int i;

	for (i = 0; i < dev->nb_lanes; i++)
		__atomic_store_n(&dev->lanes[i].pause, pause, __ATOMIC_SEQ_CST);
}

void
roce_ctrl_begin(struct roce_dev *dev)
{
	unsigned int i;

	if (dev == NULL)
		return;
	rte_spinlock_recursive_lock(&dev->ctrl_lock);
	if (dev->ctrl_lock.count > 1)
		return;		/* nested (create_qp1 modifies its QP): already held */
	roce_ctrl_pause(dev, 1);
	/* A worker parks; an inline poller of another thread finishes its pass (the caller's own is not running). */
	for (i = 0; i < dev->nb_lanes; i++)
		while (__atomic_load_n(&dev->lanes[i].busy, __ATOMIC_SEQ_CST) != 0)
			rte_pause();
}

void
roce_ctrl_end(struct roce_dev *dev)
{
	if (dev == NULL)
		return;
	if (dev->ctrl_lock.count == 1)
		roce_ctrl_pause(dev, 0);
	rte_spinlock_recursive_unlock(&dev->ctrl_lock);
}
