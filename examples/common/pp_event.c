/* SPDX-License-Identifier: BSD-3-Clause */

#include <stdio.h>
#include <string.h>

#include <rte_roce_event.h>

#include "pp_event.h"

static void *
pp_progress_main(void *arg)
{
	struct pp_progress *p = arg;

	/* pp_port_poll() yields the CPU when a round found nothing to do. */
	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
		pp_port_poll(p->pp);
	return NULL;
}

int
pp_progress_start(struct pp_progress *p, struct pp_port *pp)
{
	int rc;

	p->pp = pp;
	p->stop = false;
	rc = pthread_create(&p->thread, NULL, pp_progress_main, p);
	if (rc != 0) {
		fprintf(stderr, "Couldn't start the progress thread: %s\n", strerror(rc));
		return -1;
	}
	p->running = true;
	return 0;
}

void
pp_progress_stop(struct pp_progress *p)
{
	if (!p->running)
		return;
	__atomic_store_n(&p->stop, true, __ATOMIC_RELEASE);
	pthread_join(p->thread, NULL);
	p->running = false;
}

int
pp_event_wait(struct ibv_comp_channel *channel, struct ibv_cq *cq, unsigned int *nevents)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	/* Messages as RC:libibverbs/examples/rc_pingpong.c main prints them. */
	if (rte_roce_get_cq_event(channel, &ev_cq, &ev_ctx) != 0) {
		fprintf(stderr, "Failed to get cq_event\n");
		return -1;
	}
	++*nevents;
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
