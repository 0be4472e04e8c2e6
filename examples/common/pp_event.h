/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef PP_EVENT_H
#define PP_EVENT_H

/*
 * -e (events) mode of the pingpong examples, as the rdma-core tools have it:
 * the application sleeps in rte_roce_get_cq_event() on a completion
 * channel instead of spinning on the CQ.
 *
 * With verbs the NIC makes progress on its own and interrupts the sleeper.
 * With librte_roce the "NIC" is rte_roce_poll(), so something must keep
 * calling it while the application sleeps: a progress thread, started once
 * the QPs are connected and stopped before teardown (control calls stay on
 * one thread at a time). The application thread keeps the verbs loop
 * unchanged: get event, check it, re-arm, poll the CQ; it posts to the QPs
 * and polls the CQ, which librte_roce allows from a thread other than the
 * progress thread (single producer, single consumer). This is the shape a
 * ported verbs program should copy; the alternative of alternating
 * rte_roce_poll() and a zero-timeout poll(2) of the channel in one thread
 * never sleeps, so the channel would buy nothing.
 *
 * Every call is a no-op returning 0 when -e was not given (channel NULL),
 * so the examples call them unconditionally. Failures print the tools'
 * messages (RC:libibverbs/examples/rc_pingpong.c) and return -1.
 */

#include <stdbool.h>
#include <pthread.h>

#include <infiniband/verbs.h>

#include "pp_port.h"

struct pp_events {
	struct ibv_comp_channel *channel;	/* NULL: polling mode */
	unsigned int num_cq_events;	/* got; acknowledged in one batch, as the tools do */
	struct pp_port *pp;		/* driven by the progress thread */
	pthread_t thread;
	bool running;
	bool stop;			/* set by pp_events_end() (atomic) */
};

/* With use_event, create the channel the CQ is then created on. */
int pp_events_open(struct pp_events *ev, struct ibv_context *ctx, bool use_event);

/* Arm cq and start the progress thread on pp (once the QPs are connected). */
int pp_events_begin(struct pp_events *ev, struct pp_port *pp, struct ibv_cq *cq);

/* The loop's step: sleep for the next event, check it is for cq, re-arm cq. */
int pp_events_wait(struct pp_events *ev, struct ibv_cq *cq);

/* Stop and join the progress thread (before the teardown's control calls). */
void pp_events_end(struct pp_events *ev);

/* Acknowledge every event got for cq: before cq is destroyed. */
void pp_events_ack(struct pp_events *ev, struct ibv_cq *cq);

/* Destroy the channel: after its CQ. */
int pp_events_close(struct pp_events *ev);

#endif /* PP_EVENT_H */
