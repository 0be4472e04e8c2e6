/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rdma_cm's synchronous mode: an id created without a channel gets one of
 * its own, and the calls that start something wait for its next event,
 * driving progress meanwhile (the CM; in inline mode the device too: in
 * worker mode rte_roce_poll() returns at once). As librdmacm's
 * ucma_complete(), the event is kept in id->event until the next call, and
 * a failed one is the call's error.
 */

#include <errno.h>
#include <sched.h>

#include <rte_errno.h>

#include "roce_cm.h"

/* Acknowledge the event a synchronous id kept from its last call. */
static void
cm_sync_release(struct roce_cm_id *id)
{
	if (id->pub.event != NULL)
		rte_roce_cm_ack_cm_event(id->pub.event);
	id->pub.event = NULL;
}

/* The errno of a failed event, as librdmacm's ucma_complete() makes it. */
static int
cm_sync_status(const struct rte_roce_cm_event *ev)
{
	if (ev->status == 0)
		return 0;
	if (ev->event == RTE_ROCE_CM_EVENT_REJECTED)
		return -ECONNREFUSED;
	return ev->status < 0 ? ev->status : -ev->status;
}

int
roce_cm_sync_complete(struct roce_cm_id *id)
{
	struct rte_roce_cm_event *ev;

	cm_sync_release(id);
	while (rte_roce_cm_get_cm_event(id->pub.channel, &ev) == -EAGAIN) {
		/* Nothing done: let the peer process (or the workers) run. */
		if (rte_roce_poll(id->cm->ctx) <= 0 && rte_roce_cm_poll(id->cm) <= 0)
			sched_yield();
	}
	id->pub.event = ev;
	return cm_sync_status(ev);
}

int
roce_cm_sync_channel(struct roce_cm_id *id)
{
	struct rte_roce_cm_channel *ch = rte_roce_cm_create_event_channel();

	if (ch == NULL)
		return -rte_errno;
	id->pub.channel = ch;
	id->sync = true;
	roce_cm_channel(ch)->nb_ids = 1;
	return 0;
}

void
roce_cm_sync_drain(struct roce_cm_id *id)
{
	struct rte_roce_cm_event *ev;

	cm_sync_release(id);
	while (rte_roce_cm_get_cm_event(id->pub.channel, &ev) == 0)
		rte_roce_cm_ack_cm_event(ev);
}

int
rte_roce_cm_get_request(struct rte_roce_cm_id *pub, struct rte_roce_cm_id **idp)
{
	struct roce_cm_id *listen = roce_cm_id(pub);
	struct rte_roce_cm_event *ev;
	struct roce_cm_channel *old;
	struct roce_cm_id *id;
	int rc;

	if (listen == NULL || idp == NULL || !listen->sync || listen->state != ROCE_CM_LISTEN) {
		ROCE_CM_LOG(ERR, "get_request needs a synchronous listening id");
		return -EINVAL;
	}
	rc = roce_cm_sync_complete(listen);
	if (rc < 0)
		return rc;
	ev = listen->pub.event;
	if (ev->event != RTE_ROCE_CM_EVENT_CONNECT_REQUEST) {
		ROCE_CM_LOG(ERR, "listener got %s, not a request", rte_roce_cm_event_str(ev->event));
		return -EINVAL;
	}
	/* The new id leaves the listener's channel for one of its own, with its event. */
	id = roce_cm_id(ev->id);
	old = roce_cm_channel(id->pub.channel);
	pthread_mutex_lock(&id->cm->lock);
	rc = roce_cm_sync_channel(id);
	if (rc == 0) {
		pthread_mutex_lock(&old->lock);
		old->nb_ids--;
		pthread_mutex_unlock(&old->lock);
		listen->pub.event = NULL;
		id->pub.event = ev;
	}
	pthread_mutex_unlock(&id->cm->lock);
	if (rc < 0)
		return rc;
	*idp = &id->pub;
	return 0;
}

/*
 * As rdma_migrate_id() (librdmacm/cma.c): a synchronous id's kept event is
 * acknowledged and its own channel destroyed; the id's events not taken yet
 * go to the new channel, NULL making it synchronous. librdmacm waits for
 * the events already taken from the old channel to be acknowledged; this
 * call refuses instead (-EBUSY), never blocking a progress thread.
 */
int
rte_roce_cm_migrate_id(struct rte_roce_cm_id *pub, struct rte_roce_cm_channel *channel)
{
	struct roce_cm_id *id = roce_cm_id(pub);
	struct rte_roce_cm_channel *old;
	struct roce_cm_channel *to;
	bool was_sync;
	int rc;

	if (id == NULL)
		return -EINVAL;
	if (id->cm != NULL)
		pthread_mutex_lock(&id->cm->lock);
	was_sync = id->sync;
	if (was_sync)
		cm_sync_release(id);
	old = id->pub.channel;
	if (channel == NULL) {
		rc = roce_cm_sync_channel(id);	/* the new channel counts the id already */
		if (rc == 0)
			roce_cm_channel(id->pub.channel)->nb_ids = 0;
	} else {
		id->pub.channel = channel;
		id->sync = false;
		rc = 0;
	}
	to = roce_cm_channel(id->pub.channel);
	if (rc == 0)
		rc = roce_cm_events_move(id, roce_cm_channel(old), to);
	if (rc < 0 && id->pub.channel != old) {
		if (channel == NULL)
			rte_roce_cm_destroy_event_channel(id->pub.channel);
		id->pub.channel = old;
		id->sync = was_sync;
	}
	if (id->cm != NULL)
		pthread_mutex_unlock(&id->cm->lock);
	if (rc < 0) {
		ROCE_CM_LOG(ERR, "id %08x: migrate: %u of its events taken and not acknowledged",
			    id->local_comm_id, id->events_unacked);
		return rc;
	}
	if (was_sync)
		rte_roce_cm_destroy_event_channel(old);
	return 0;
}
