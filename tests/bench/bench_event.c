/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * What events cost.
 *
 * - an idle rte_roce_poll() (link watch included: one TSC read per poll, a
 *   link read every 10 ms), next to one rte_eth_link_get_nowait(), the
 *   price a per-poll link read would add;
 * - a completion pushed to a CQ with a channel but not armed (a fence and a
 *   load) against one without a channel;
 * - one CQ event: arm, push (which writes the eventfd), get (which reads
 *   it), ack, in one thread: the floor of a wake-up without the scheduler.
 *
 * A benchmark, not a timed test: a case fails only if a result is wrong.
 * Numbers are printed as TAP diagnostics; medians of BENCH_REPS runs.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include <rte_roce.h>

/* roce_cq_push(): the engine's side, driven directly. */
#include "roce_cq.h"

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"

#define BENCH_REPS	11
#define BENCH_POLLS	200000
#define BENCH_PUSHES	200000
#define BENCH_EVENTS	20000
#define BENCH_CQ_LEN	1024
#define NSEC_PER_SEC	1e9

static struct roce_test_pair pair;

/* Median of BENCH_REPS runs of fn(arg), in ns per iteration. */
static double
median_ns(void (*fn)(void *), void *arg, unsigned int iters)
{
	double ns[BENCH_REPS];
	unsigned int r;

	for (r = 0; r < BENCH_REPS; r++) {
		uint64_t t = rte_rdtsc_precise();

		fn(arg);
		ns[r] = (double)(rte_rdtsc_precise() - t) * NSEC_PER_SEC / rte_get_tsc_hz() / iters;
	}
	return roce_test_median(ns, BENCH_REPS);
}

static void
idle_polls(void *ctx)
{
	unsigned int i;

	for (i = 0; i < BENCH_POLLS; i++)
		rte_roce_poll(ctx);
}

static void
link_reads(void *arg)
{
	struct rte_eth_link link;
	unsigned int i;

	RTE_SET_USED(arg);
	for (i = 0; i < BENCH_POLLS; i++)
		(void)rte_eth_link_get_nowait(pair.a, &link);
}

/* Push then poll BENCH_PUSHES completions through cq, a CQ at a time. */
static void
pushes(void *arg)
{
	struct ibv_cq *cq = arg;
	struct ibv_wc wc = { .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV };
	unsigned int i;

	for (i = 0; i < BENCH_PUSHES; i++) {
		(void)roce_cq_push(roce_cq_of(cq), &wc);
		(void)rte_roce_poll_cq(cq, 1, &wc);
	}
}

static int bench_failed;

/* One whole CQ event per iteration: arm, push, get, ack, poll. */
static void
events(void *arg)
{
	struct ibv_cq *cq = arg, *ev_cq;
	struct ibv_wc wc = { .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV };
	void *ev_ctx;
	unsigned int i;

	for (i = 0; i < BENCH_EVENTS; i++) {
		if (rte_roce_req_notify_cq(cq, 0) != 0 || roce_cq_push(roce_cq_of(cq), &wc) != 0 ||
		    rte_roce_get_cq_event(cq->channel, &ev_cq, &ev_ctx) != 0 ||
		    rte_roce_ack_cq_events(ev_cq, 1) != 0 || rte_roce_poll_cq(cq, 1, &wc) != 1)
			bench_failed = 1;
	}
}

static int
test_costs(void)
{
	const char *addrs[] = { "10.0.0.1/24", NULL };
	struct rte_roce_port *port = roce_test_port(pair.a, NULL, addrs);
	struct ibv_comp_channel *ch;
	struct ibv_context *ctx;
	struct ibv_cq *plain, *chan_cq;
	double poll_ns, link_ns, plain_ns, chan_ns, event_ns;

	ROCE_TEST_ASSERT(port != NULL, "port");
	ctx = rte_roce_open_device(port, NULL);
	ROCE_TEST_ASSERT(ctx != NULL, "open");
	ch = rte_roce_create_comp_channel(ctx);
	plain = rte_roce_create_cq(ctx, BENCH_CQ_LEN, NULL, NULL, 0);
	chan_cq = rte_roce_create_cq(ctx, BENCH_CQ_LEN, NULL, ch, 0);
	ROCE_TEST_ASSERT(ch != NULL && plain != NULL && chan_cq != NULL, "channel and CQs");
	poll_ns = median_ns(idle_polls, ctx, BENCH_POLLS);
	link_ns = median_ns(link_reads, NULL, BENCH_POLLS);
	plain_ns = median_ns(pushes, plain, BENCH_PUSHES);
	chan_ns = median_ns(pushes, chan_cq, BENCH_PUSHES);
	event_ns = median_ns(events, chan_cq, BENCH_EVENTS);
	printf("# idle rte_roce_poll %.1f ns; rte_eth_link_get_nowait (net_ring) %.1f ns\n",
	       poll_ns, link_ns);
	printf("# push+poll of a completion: CQ without channel %.1f ns, "
	       "with a channel, not armed %.1f ns\n", plain_ns, chan_ns);
	printf("# one CQ event (arm, push + eventfd write, get + eventfd read, ack, poll) "
	       "%.0f ns\n", event_ns);
	ROCE_TEST_ASSERT_EQ(bench_failed, 0, "every event arrived");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(plain), 0, "destroy");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(chan_cq), 0, "destroy");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_comp_channel(ch), 0, "destroy channel");
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), 0, "close");
	rte_roce_port_destroy(port);
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "event_costs", test_costs },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&pair, "bev") != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
