/* SPDX-License-Identifier: BSD-3-Clause */

#include <poll.h>
#include <stdio.h>
#include <string.h>

#include <rte_roce_event.h>

#include "pp_event.h"
#include "pp_oob.h"

#define PP_EVENTS_STOP_CHECK_MS 100	/* a stop is seen this long after at most */

int
pp_events_open(struct pp_events *ev, struct ibv_context *ctx, bool use_event)
{
	memset(ev, 0, sizeof(*ev));
	if (!use_event)
		return 0;
	ev->channel = rte_roce_create_comp_channel(ctx);
	if (ev->channel == NULL) {
		fprintf(stderr, "Couldn't create completion channel\n");
		return -1;
	}
	return 0;
}

static void *
pp_events_progress(void *arg)
{
	struct pp_events *ev = arg;

	/* pp_port_poll() yields the CPU when a round found nothing to do. */
	while (!__atomic_load_n(&ev->stop, __ATOMIC_ACQUIRE))
		pp_port_poll(ev->pp);
	return NULL;
}

int
pp_events_begin(struct pp_events *ev, struct pp_port *pp, struct ibv_cq *cq)
{
	int rc;

	if (ev->channel == NULL)
		return 0;
	if (rte_roce_req_notify_cq(cq, 0) != 0) {
		fprintf(stderr, "Couldn't request CQ notification\n");
		return -1;
	}
	ev->pp = pp;
	ev->stop = false;
	rc = pthread_create(&ev->thread, NULL, pp_events_progress, ev);
	if (rc != 0) {
		fprintf(stderr, "Couldn't start the progress thread: %s\n", strerror(rc));
		return -1;
	}
	ev->running = true;
	return 0;
}

/* Whether the channel's eventfd is readable within PP_EVENTS_STOP_CHECK_MS. */
static bool
pp_events_ready(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, PP_EVENTS_STOP_CHECK_MS) > 0;
}

int
pp_events_wait(struct pp_events *ev, struct ibv_cq *cq)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	if (ev->channel == NULL)
		return 0;
	/* in slices, so that SIGTERM or SIGINT ends the wait (pp_session_stop()) */
	while (!pp_events_ready(ev->channel->fd)) {
		if (pp_stop_requested)
			return -1;
	}
	if (rte_roce_get_cq_event(ev->channel, &ev_cq, &ev_ctx) != 0) {
		fprintf(stderr, "Failed to get cq_event\n");
		return -1;
	}
	++ev->num_cq_events;
	if (ev_cq != cq) {
		fprintf(stderr, "CQ event for unknown CQ %p\n", (void *)ev_cq);
		return -1;
	}
	if (rte_roce_req_notify_cq(cq, 0) != 0) {
		fprintf(stderr, "Couldn't request CQ notification\n");
		return -1;
	}
	return 0;
}

void
pp_events_end(struct pp_events *ev)
{
	if (!ev->running)
		return;
	__atomic_store_n(&ev->stop, true, __ATOMIC_RELEASE);
	pthread_join(ev->thread, NULL);
	ev->running = false;
}

void
pp_events_ack(struct pp_events *ev, struct ibv_cq *cq)
{
	if (ev->channel != NULL && cq != NULL && ev->num_cq_events != 0)
		(void)rte_roce_ack_cq_events(cq, ev->num_cq_events);
	ev->num_cq_events = 0;
}

int
pp_events_close(struct pp_events *ev)
{
	if (ev->channel != NULL && rte_roce_destroy_comp_channel(ev->channel) != 0) {
		fprintf(stderr, "Couldn't destroy completion channel\n");
		return -1;
	}
	ev->channel = NULL;
	return 0;
}
