/* SPDX-License-Identifier: BSD-3-Clause */

/* Asynchronous events: the device's async_fd, its queue, get/ack, the link watch. */

/* Logs under lib.roce.event (roce_log.h). */
#define ROCE_LOG_TYPE roce_logtype_event
#define ROCE_LOG_AREA "ROCE event"

#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>


#include "roce_dev.h"
#include "roce_event.h"
#include "roce_log.h"
#include "rte_roce_event.h"

/* Milliseconds between two link reads in rte_roce_poll(). */
#define ROCE_LINK_CHECK_MS	10
#define ROCE_US_PER_MS		1000

/* One token of a semaphore-mode eventfd. */
static const uint64_t roce_efd_token = 1;

int
roce_efd_signal(int fd)
{
	ssize_t n;

	/* A counter below 2^64 - 2 never blocks nor fails: at most one token per queued event. */
	n = write(fd, &roce_efd_token, sizeof(roce_efd_token));
	return n == sizeof(roce_efd_token) ? 0 : -errno;
}

int
roce_efd_wait(int fd)
{
	uint64_t val;
	ssize_t n;

	do {
		n = read(fd, &val, sizeof(val));
	} while (n < 0 && errno == EINTR);
	if (n == sizeof(val))
		return 0;
	return n < 0 ? -errno : -EIO;
}

int
roce_efd_open(void)
{
	/*
	 * Blocking, like verbs' fds; the application may set O_NONBLOCK.
	 * Semaphore mode: a read takes one token, and the fd is readable
	 * exactly while events are queued.
	 */
	int fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);

	return fd < 0 ? -errno : fd;
}

int
roce_async_init(struct roce_dev *dev)
{
	struct roce_async *as = &dev->async;
	int fd, rc;

	fd = roce_efd_open();
	if (fd < 0) {
		ROCE_LOG(ERR, "eventfd: %s", strerror(-fd));
		return fd;
	}
	rc = pthread_mutex_init(&as->lock, NULL);
	if (rc != 0) {
		close(fd);
		return -rc;
	}
	dev->ibv.async_fd = fd;
	as->link_up = -1;
	return 0;
}

void
roce_async_fini(struct roce_dev *dev)
{
	if (dev->ibv.async_fd < 0)
		return;
	close(dev->ibv.async_fd);
	dev->ibv.async_fd = -1;
	pthread_mutex_destroy(&dev->async.lock);
}

void
roce_dev_async_event(struct roce_dev *dev, const struct ibv_async_event *ev)
{
	struct roce_async *as = &dev->async;
	bool queued = false;

	pthread_mutex_lock(&as->lock);
	if (as->count < ROCE_ASYNC_QUEUE_SIZE) {
		as->ring[(as->head + as->count) % ROCE_ASYNC_QUEUE_SIZE] = *ev;
		as->count++;
		queued = true;
	} else {
		as->dropped++;
	}
	pthread_mutex_unlock(&as->lock);
	if (!queued) {
		ROCE_LOG(WARNING, "device %s: async event %d dropped: %u queued and not read",
			 dev->ibv_dev.name, ev->event_type,
			 ROCE_ASYNC_QUEUE_SIZE);
		return;
	}
	if (roce_efd_signal(dev->ibv.async_fd) < 0)
		ROCE_LOG(ERR, "device %s: async_fd write failed", dev->ibv_dev.name);
}

/* The object an event names, or NULL for port and device events. */
static const void *
roce_async_element(const struct ibv_async_event *ev)
{
	switch (ev->event_type) {
	case IBV_EVENT_CQ_ERR:
		return ev->element.cq;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return ev->element.qp;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return ev->element.srq;
	default:
		return NULL;
	}
}

/* The unacked slot of element, or a free one when add; NULL if none. Lock held. */
static struct roce_async_unacked *
roce_async_unacked_find(struct roce_async *as, const void *element, bool add)
{
	struct roce_async_unacked *free_slot = NULL;
	unsigned int i;

	for (i = 0; i < ROCE_ASYNC_UNACKED_MAX; i++) {
		struct roce_async_unacked *u = &as->unacked[i];

		if (u->element == element)
			return u;
		if (u->element == NULL && free_slot == NULL)
			free_slot = u;
	}
	return add ? free_slot : NULL;
}

/* Take the oldest queued event; false if the queue is empty. Lock held. */
static bool
roce_async_take(struct roce_async *as, struct ibv_async_event *ev)
{
	while (as->count > 0) {
		*ev = as->ring[as->head];
		as->head = (as->head + 1) % ROCE_ASYNC_QUEUE_SIZE;
		as->count--;
		/* IBV_EVENT_DEVICE_FATAL is never raised: its value marks a forgotten event. */
		if (ev->event_type != IBV_EVENT_DEVICE_FATAL)
			return true;
	}
	return false;
}

int
rte_roce_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
	struct roce_async *as;
	struct roce_async_unacked *u;
	const void *element;
	bool got;
	int rc;

	if (ctx == NULL || event == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	as = &roce_dev_of(ctx)->async;
	for (;;) {
		rc = roce_efd_wait(ctx->async_fd);
		if (rc < 0)
			return rc;
		pthread_mutex_lock(&as->lock);
		got = roce_async_take(as, event);
		if (got) {
			element = roce_async_element(event);
			u = element == NULL ? NULL : roce_async_unacked_find(as, element, true);
			if (u != NULL) {
				u->element = element;
				u->count++;
			} else if (element != NULL) {
				got = false;
				rc = -ENOSPC;
			}
		}
		pthread_mutex_unlock(&as->lock);
		if (rc < 0) {
			ROCE_LOG(ERR, "%u objects with unacknowledged events: event %d lost",
				 ROCE_ASYNC_UNACKED_MAX, event->event_type);
			return rc;
		}
		if (got)
			return 0;
		/* A token whose event was forgotten (its object destroyed): wait for the next. */
	}
}

/* The device of an event's object, or NULL for port events (nothing to ack). */
static struct roce_dev *
roce_async_dev(const struct ibv_async_event *ev)
{
	switch (ev->event_type) {
	case IBV_EVENT_CQ_ERR:
		return roce_dev_of(ev->element.cq->context);
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return roce_dev_of(ev->element.srq->context);
	default:
		return roce_async_element(ev) == NULL ? NULL :
			roce_dev_of(ev->element.qp->context);
	}
}

int
rte_roce_ack_async_event(struct ibv_async_event *event)
{
	struct roce_async_unacked *u;
	const void *element;
	struct roce_dev *dev;

	if (event == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	element = roce_async_element(event);
	if (element == NULL)
		return 0;
	dev = roce_async_dev(event);
	pthread_mutex_lock(&dev->async.lock);
	u = roce_async_unacked_find(&dev->async, element, false);
	if (u != NULL && --u->count == 0)
		u->element = NULL;
	pthread_mutex_unlock(&dev->async.lock);
	if (u == NULL) {
		ROCE_LOG(ERR, "event %d: nothing to acknowledge for this object",
			 event->event_type);
		return -EINVAL;
	}
	return 0;
}

int
roce_dev_async_release(struct roce_dev *dev, const void *element)
{
	struct roce_async *as = &dev->async;
	uint32_t i;
	int rc = 0;

	pthread_mutex_lock(&as->lock);
	if (roce_async_unacked_find(as, element, false) != NULL) {
		rc = -EBUSY;
	} else {
		for (i = 0; i < as->count; i++) {
			struct ibv_async_event *ev = &as->ring[(as->head + i) % ROCE_ASYNC_QUEUE_SIZE];

			if (roce_async_element(ev) == element)
				ev->event_type = IBV_EVENT_DEVICE_FATAL;
		}
	}
	pthread_mutex_unlock(&as->lock);
	if (rc < 0)
		ROCE_LOG(ERR, "object %p has asynchronous events not acknowledged", element);
	return rc;
}

void
roce_dev_link_check(struct roce_dev *dev)
{
	struct roce_async *as = &dev->async;
	struct ibv_async_event ev;
	struct rte_roce_port_info info;
	/* The timer wheel's clock, read by this poll already: no second TSC read. */
	uint64_t now = dev->lanes[0].timers.now_us;
	int up;

	if (now < as->link_next)
		return;
	as->link_next = now + ROCE_LINK_CHECK_MS * ROCE_US_PER_MS;
	if (rte_roce_port_info_get(dev->port, &info) < 0)
		return;
	up = info.link_up;
	if (up == as->link_up)
		return;
	/* The first read only records the state: the device opened with it. */
	if (as->link_up >= 0) {
		/* rxe counts link_downed with the PORT_ERR it raises (K:rxe_net.c rxe_port_down). */
		if (!up)
			ROCE_COUNT(dev->lanes[0].xstats.link_downed);
		memset(&ev, 0, sizeof(ev));
		ev.event_type = up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR;
		ev.element.port_num = 1;
		roce_dev_async_event(dev, &ev);
	}
	as->link_up = up;
}
