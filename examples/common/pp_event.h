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
 * the QP is connected and stopped before teardown (control calls stay on
 * one thread at a time). The application thread keeps the verbs loop
 * unchanged: get event, check it, re-arm, poll the CQ; it posts to the QP
 * and polls the CQ, which librte_roce allows from a thread other than the
 * progress thread (single producer, single consumer). This is the shape a
 * ported verbs program should copy; the alternative of alternating
 * rte_roce_poll() and a zero-timeout poll(2) of the channel in one thread
 * never sleeps, so the channel would buy nothing.
 */

#include <pthread.h>
#include <stdbool.h>

#include <infiniband/verbs.h>

#include "pp_port.h"

struct pp_progress {
	struct pp_port *pp;
	pthread_t thread;
	bool running;
	bool stop;		/* set by pp_progress_stop() (atomic) */
};

/* Run pp_port_poll() on pp in a new thread until stopped. 0, or -1 after printing why. */
int pp_progress_start(struct pp_progress *p, struct pp_port *pp);

/* Stop and join the progress thread; harmless if it is not running. */
void pp_progress_stop(struct pp_progress *p);

/*
 * The tools' -e step: sleep for the next event of channel, check that it is
 * for cq, count it in *nevents (acknowledged in one batch before the CQ is
 * destroyed, as the tools do) and re-arm cq. 0, or -1 after printing the
 * tools' message.
 */
int pp_event_wait(struct ibv_comp_channel *channel, struct ibv_cq *cq, unsigned int *nevents);

#endif /* PP_EVENT_H */
