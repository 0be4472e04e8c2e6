/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Event channels: a queue of events under the channel's mutex (taken after
 * a CM's lock, never before) and an eventfd readable while it is not empty.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_tailq.h>

#include "roce_cm.h"

#define CM_UD_HOP_LIMIT	64

struct roce_cm_event {
	struct rte_roce_cm_event pub;
	TAILQ_ENTRY(roce_cm_event) next;
	struct roce_cm_channel *channel;
	uint8_t private_data[RTE_ROCE_MAD_DATA_LEN];
};

static const char *const cm_event_names[RTE_ROCE_CM_EVENT_MAX] = {
	[RTE_ROCE_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
	[RTE_ROCE_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
	[RTE_ROCE_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
	[RTE_ROCE_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
	[RTE_ROCE_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
	[RTE_ROCE_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
	[RTE_ROCE_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
	[RTE_ROCE_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
	[RTE_ROCE_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
	[RTE_ROCE_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
	[RTE_ROCE_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
	[RTE_ROCE_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
	[RTE_ROCE_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
	[RTE_ROCE_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
	[RTE_ROCE_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
	[RTE_ROCE_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
};

const char *
rte_roce_cm_event_str(enum rte_roce_cm_event_type event)
{
	if ((unsigned int)event >= RTE_ROCE_CM_EVENT_MAX)
		return "UNKNOWN EVENT";
	return cm_event_names[event];
}

struct rte_roce_cm_channel *
rte_roce_cm_create_event_channel(void)
{
	struct roce_cm_channel *ch = calloc(1, sizeof(*ch));

	if (ch == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ch->pub.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ch->pub.fd < 0) {
		rte_errno = errno;
		free(ch);
		return NULL;
	}
	pthread_mutex_init(&ch->lock, NULL);
	TAILQ_INIT(&ch->events);
	return &ch->pub;
}

int
rte_roce_cm_destroy_event_channel(struct rte_roce_cm_channel *channel)
{
	struct roce_cm_channel *ch = roce_cm_channel(channel);

	if (ch == NULL)
		return -EINVAL;
	pthread_mutex_lock(&ch->lock);
	if (ch->nb_ids != 0 || ch->unacked != 0 || !TAILQ_EMPTY(&ch->events)) {
		pthread_mutex_unlock(&ch->lock);
		ROCE_CM_LOG(ERR, "channel in use: %u ids, %u events not acknowledged",
			    ch->nb_ids, ch->unacked);
		return -EBUSY;
	}
	pthread_mutex_unlock(&ch->lock);
	close(ch->pub.fd);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
	return 0;
}

/* A UD id's event: the peer as an address vector, its QPN and Q_Key (struct rdma_ud_param). */
static void
cm_event_ud_fill(const struct roce_cm_id *id, struct rte_roce_cm_event *ev)
{
	struct rte_roce_cm_ud_param *ud = &ev->ud;

	ud->private_data = ev->param.private_data;
	ud->private_data_len = ev->param.private_data_len;
	ud->ah_attr.is_global = 1;
	ud->ah_attr.port_num = 1;
	ud->ah_attr.grh.dgid = id->dgid;
	ud->ah_attr.grh.sgid_index = id->sgid_index;
	ud->ah_attr.grh.hop_limit = CM_UD_HOP_LIMIT;
	ud->qp_num = id->peer.qpn;
	ud->qkey = id->peer.qkey;
}

int
roce_cm_event_queue(struct roce_cm_id *id, struct roce_cm_id *listen_id,
		    enum rte_roce_cm_event_type type, int status,
		    const void *private_data, uint8_t private_data_len)
{
	struct roce_cm_channel *ch = roce_cm_channel(id->pub.channel);
	struct roce_cm_event *ev = calloc(1, sizeof(*ev));
	uint64_t one = 1;

	if (ev == NULL) {
		ROCE_CM_LOG(ERR, "id %08x: %s lost: no memory", id->local_comm_id,
			    rte_roce_cm_event_str(type));
		return -ENOMEM;
	}
	ev->channel = ch;
	ev->pub.id = &id->pub;
	ev->pub.listen_id = listen_id != NULL ? &listen_id->pub : NULL;
	ev->pub.event = type;
	ev->pub.status = status;
	if (private_data_len != 0) {
		memcpy(ev->private_data, private_data, private_data_len);
		ev->pub.param.private_data = ev->private_data;
		ev->pub.param.private_data_len = private_data_len;
	}
	/*
	 * Seen from our side, as rdma_cm reports them (SPDK's target refuses
	 * a host otherwise): the peer's Initiator Depth is what we must
	 * answer, its Responder Resources what we may have in flight to it
	 * (the REQ and REP fields of IBTA Vol. 1 §12.6).
	 */
	ev->pub.param.responder_resources = id->peer.init_depth;
	ev->pub.param.initiator_depth = id->peer.resp_res;
	ev->pub.param.retry_count = id->peer.retry_cnt;
	ev->pub.param.rnr_retry_count = id->peer.rnr_retry;
	ev->pub.param.qp_num = id->peer.qpn;
	if (id->pub.ps == RTE_ROCE_CM_PS_UDP)
		cm_event_ud_fill(id, &ev->pub);
	pthread_mutex_lock(&ch->lock);
	id->events_unacked++;
	ch->unacked++;
	TAILQ_INSERT_TAIL(&ch->events, ev, next);
	pthread_mutex_unlock(&ch->lock);
	if (write(ch->pub.fd, &one, sizeof(one)) != sizeof(one))
		ROCE_CM_LOG(DEBUG, "eventfd write: %s", strerror(errno));
	return 0;
}

int
rte_roce_cm_get_cm_event(struct rte_roce_cm_channel *channel, struct rte_roce_cm_event **event)
{
	struct roce_cm_channel *ch = roce_cm_channel(channel);
	struct roce_cm_event *ev;
	uint64_t count;

	if (ch == NULL || event == NULL)
		return -EINVAL;
	pthread_mutex_lock(&ch->lock);
	ev = TAILQ_FIRST(&ch->events);
	if (ev != NULL)
		TAILQ_REMOVE(&ch->events, ev, next);
	/* The fd stays readable while events are queued; drained with the last. */
	if (TAILQ_EMPTY(&ch->events) && read(ch->pub.fd, &count, sizeof(count)) < 0 &&
	    errno != EAGAIN)
		ROCE_CM_LOG(DEBUG, "eventfd read: %s", strerror(errno));
	pthread_mutex_unlock(&ch->lock);
	if (ev == NULL)
		return -EAGAIN;
	*event = &ev->pub;
	return 0;
}

int
rte_roce_cm_ack_cm_event(struct rte_roce_cm_event *event)
{
	struct roce_cm_event *ev = (struct roce_cm_event *)event;
	struct roce_cm_id *id;

	if (ev == NULL)
		return -EINVAL;
	id = roce_cm_id(ev->pub.id);
	pthread_mutex_lock(&ev->channel->lock);
	id->events_unacked--;
	ev->channel->unacked--;
	pthread_mutex_unlock(&ev->channel->lock);
	free(ev);
	return 0;
}

int
roce_cm_events_move(struct roce_cm_id *id, struct roce_cm_channel *from,
		    struct roce_cm_channel *to)
{
	TAILQ_HEAD(, roce_cm_event) moving = TAILQ_HEAD_INITIALIZER(moving);
	struct roce_cm_event *ev, *tmp;
	uint32_t queued = 0;
	uint64_t count, one = 1;

	pthread_mutex_lock(&from->lock);
	TAILQ_FOREACH(ev, &from->events, next)
		queued += ev->pub.id == &id->pub;
	if (queued != id->events_unacked) {
		pthread_mutex_unlock(&from->lock);
		return -EBUSY;
	}
	RTE_TAILQ_FOREACH_SAFE(ev, &from->events, next, tmp) {
		if (ev->pub.id != &id->pub)
			continue;
		TAILQ_REMOVE(&from->events, ev, next);
		TAILQ_INSERT_TAIL(&moving, ev, next);
	}
	from->unacked -= queued;
	from->nb_ids--;
	if (TAILQ_EMPTY(&from->events) && read(from->pub.fd, &count, sizeof(count)) < 0 &&
	    errno != EAGAIN)
		ROCE_CM_LOG(DEBUG, "eventfd read: %s", strerror(errno));
	pthread_mutex_unlock(&from->lock);
	/* One channel lock at a time: two ids moving opposite ways cannot deadlock. */
	pthread_mutex_lock(&to->lock);
	to->nb_ids++;
	to->unacked += queued;
	while ((ev = TAILQ_FIRST(&moving)) != NULL) {
		TAILQ_REMOVE(&moving, ev, next);
		ev->channel = to;
		TAILQ_INSERT_TAIL(&to->events, ev, next);
	}
	pthread_mutex_unlock(&to->lock);
	if (queued != 0 && write(to->pub.fd, &one, sizeof(one)) != sizeof(one))
		ROCE_CM_LOG(DEBUG, "eventfd write: %s", strerror(errno));
	return 0;
}
