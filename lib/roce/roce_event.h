/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_EVENT_H
#define ROCE_EVENT_H

/*
 * Asynchronous events (ibv_get_async_event(3)): the device's async_fd is an
 * eventfd in semaphore mode whose counter is the number of queued events;
 * the queue itself is a bounded ring under a mutex. Events are rare (a QP
 * going fatal, a port flap), so a lock and one eventfd write per event cost
 * nothing on the data path, and the consumer may be any thread.
 *
 * Other parts of the library raise events with roce_dev_async_event() from
 * the progress thread, and call roce_dev_async_release() when they destroy
 * an object that events can name (QP, CQ, SRQ): verbs' destroy waits until
 * every event reported for the object was acknowledged; ours refuses with
 * -EBUSY instead, and forgets the object's events still queued.
 */

#include <pthread.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct roce_dev;

/* Events queued per device before new ones are dropped (and counted). */
#define ROCE_ASYNC_QUEUE_SIZE	256
/* Objects with got but not yet acknowledged events, per device. */
#define ROCE_ASYNC_UNACKED_MAX	64

/* One object with events handed to the application and not yet acknowledged. */
struct roce_async_unacked {
	const void *element;	/* the ibv_qp/ibv_cq/ibv_srq, NULL when free */
	uint32_t count;
};

struct roce_async {
	pthread_mutex_t lock;
	struct ibv_async_event ring[ROCE_ASYNC_QUEUE_SIZE];
	uint32_t head;		/* next to hand out */
	uint32_t count;		/* queued */
	struct roce_async_unacked unacked[ROCE_ASYNC_UNACKED_MAX];
	uint64_t dropped;	/* events lost to a full queue */
	uint32_t nb_channels;	/* completion channels of the device (control path) */
	/* Link watch (roce_dev_link_check()). */
	uint64_t link_next;	/* timer wheel time (us) of the next link check */
	int link_up;		/* last state seen: 1 up, 0 down, -1 not read yet */
};

/*
 * Queue an asynchronous event for the application: one eventfd write. The
 * element (qp, cq, srq or port_num) and event_type are copied. Called from
 * the progress thread (or any control call); never fails: when the queue is
 * full the event is dropped, counted and logged.
 */
void roce_dev_async_event(struct roce_dev *dev, const struct ibv_async_event *ev);

/*
 * Before destroying an object events can name (ibv_qp, ibv_cq, ibv_srq
 * pointer): -EBUSY if events for it were got and not acknowledged; else 0,
 * and its events still queued are forgotten (as the kernel's uverbs drops
 * them at destroy).
 */
int roce_dev_async_release(struct roce_dev *dev, const void *element);

/*
 * The eventfds behind async_fd and completion channels: semaphore mode,
 * close-on-exec, blocking until the application sets O_NONBLOCK. open:
 * the fd or -errno; signal: add one token (0 or -errno); wait: take one
 * token, blocking or -EAGAIN as the fd's mode says (0 or -errno).
 */
int roce_efd_open(void);
int roce_efd_signal(int fd);
int roce_efd_wait(int fd);

/* Device open/close: the eventfd and the queue. 0 or -errno. */
int roce_async_init(struct roce_dev *dev);
void roce_async_fini(struct roce_dev *dev);

/*
 * Called by rte_roce_poll() after the timers ran: every ROCE_LINK_CHECK_MS
 * reads the link (rte_eth_link_get_nowait(), no system call with most
 * PMDs) and raises IBV_EVENT_PORT_ACTIVE or IBV_EVENT_PORT_ERR when it
 * changed. Between checks it costs a compare with the timer wheel's clock.
 */
void roce_dev_link_check(struct roce_dev *dev);

#endif /* ROCE_EVENT_H */
