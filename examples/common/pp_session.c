/* SPDX-License-Identifier: BSD-3-Clause */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_roce_stats.h>
#include <rte_roce_verbs.h>

#include "pp_oob.h"
#include "pp_session.h"

#define PP_STOP_BATCH 32
#define PP_STOP_XSTATS_MAX 256	/* room for the device's counters */

int
pp_session_listen(const struct pp_opts_common *cmn, int *listen_fd)
{
	*listen_fd = -1;
	if (cmn->servername != NULL)
		return 0;
	*listen_fd = pp_oob_listen(cmn->tcp_port, NULL);
	if (*listen_fd < 0) {
		fprintf(stderr, "Couldn't listen to port %u: %s\n", cmn->tcp_port,
			strerror(-*listen_fd));
		return -1;
	}
	return 0;
}

/* fd with the exchange's timeout set, or -1 (fd closed). */
static int
pp_session_timed(int fd)
{
	if (pp_oob_set_timeout(fd, PP_OOB_TIMEOUT_MS) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int
pp_session_connect(const struct pp_opts_common *cmn)
{
	int fd;

	fd = pp_oob_connect(cmn->servername, cmn->tcp_port);
	if (fd < 0) {
		fprintf(stderr, "Couldn't connect to %s:%u: %s\n", cmn->servername, cmn->tcp_port,
			strerror(-fd));
		return -1;
	}
	return pp_session_timed(fd);
}

int
pp_session_accept(int listen_fd)
{
	int fd;

	fd = pp_oob_accept(listen_fd);
	if (fd < 0) {
		/* a stop is no failure: the caller stops cleanly (pp_session_stop()) */
		if (!pp_stop_requested)
			fprintf(stderr, "accept() failed: %s\n", strerror(-fd));
		return -1;
	}
	return pp_session_timed(fd);
}

int
pp_session_poll_cq(struct pp_events *ev, struct pp_port *pp, struct ibv_cq *cq, int n,
		   struct ibv_wc *wc)
{
	int ne;

	if (pp_events_wait(ev, cq) != 0)
		return -1;
	do {
		/* SIGTERM, SIGINT: the caller stops cleanly (pp_session_stop()) */
		if (pp_stop_requested)
			return -1;
		/* With -e the progress thread owns the device. */
		if (ev->channel == NULL)
			pp_port_poll(pp);
		ne = rte_roce_poll_cq(cq, n, wc);
		if (ne < 0) {
			fprintf(stderr, "poll CQ failed %d\n", ne);
			return -1;
		}
		/* A peer that left sends nothing more: do not wait for ever. */
		if (ev->channel == NULL && ne == 0 && pp_port_link_lost(pp))
			return -1;
	} while (ev->channel == NULL && ne < 1);
	return ne;
}

int
pp_session_run(struct pp_events *ev, struct pp_port *pp, struct ibv_cq *cq,
	       const struct pp_opts_common *cmn, int (*run)(void *arg), void *arg)
{
	struct timespec start, end;
	int ret;

	if (pp_events_begin(ev, pp, cq) != 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &start);
	ret = run(arg);
	clock_gettime(CLOCK_MONOTONIC, &end);
	/* Back to one thread before the control calls of the teardown. */
	pp_events_end(ev);
	/*
	 * The peer may close its net_memif port as soon as its own linger is
	 * over: from now on our interrupt thread must not run memif's
	 * disconnect handler while we poll or close the port (pp_intr_park()).
	 */
	pp_intr_park(PP_INTR_PARK_TIMEOUT_MS);
	if (ret != 0)
		return -1;
	pp_report(cmn->size, cmn->iters, &start, &end);
	pp_port_linger(pp, PP_LINGER_QUIET_MS, PP_LINGER_MAX_MS);
	return 0;
}

int
pp_session_count(struct pp_counts *cnt, uint64_t wr_id, uint32_t rx_depth, uint32_t low,
		 pp_post_recv_fn post_recv, void *arg)
{
	switch (wr_id) {
	case PP_SEND_WRID:
		cnt->scnt++;
		break;
	case PP_RECV_WRID:
		/* Refill before the queue runs dry. */
		if (--cnt->routs <= low) {
			cnt->routs += post_recv(arg, rx_depth - cnt->routs);
			if (cnt->routs < rx_depth) {
				fprintf(stderr, "Couldn't post receive (%u)\n", cnt->routs);
				return -1;
			}
		}
		cnt->rcnt++;
		break;
	default:
		fprintf(stderr, "Completion for unknown wr_id %d\n", (int)wr_id);
		return -1;
	}
	return 0;
}

/* Completions polled from cq, the port driven, until quiet (PP_STOP_QUIET_MS) or PP_STOP_MAX_MS. */
static uint64_t
pp_session_flush(struct pp_port *pp, struct ibv_cq *cq)
{
	uint64_t start = pp_now_ms(), last = start, flushed = 0;
	struct ibv_wc wc[PP_STOP_BATCH];
	int k;

	while (pp_now_ms() - last < PP_STOP_QUIET_MS && pp_now_ms() - start < PP_STOP_MAX_MS) {
		pp_port_poll(pp);
		k = rte_roce_poll_cq(cq, PP_STOP_BATCH, wc);
		if (k > 0) {
			flushed += (uint64_t)k;
			last = pp_now_ms();
		}
	}
	return flushed;
}

/* The device's non-zero counters on one line. */
static void
pp_session_counters(struct ibv_context *ctx, const char *prog)
{
	struct rte_roce_xstat_name names[PP_STOP_XSTATS_MAX];
	struct rte_roce_xstat xs[PP_STOP_XSTATS_MAX];
	int n = rte_roce_xstats_names_get(ctx, names, PP_STOP_XSTATS_MAX);
	int i;

	if (n <= 0 || n > PP_STOP_XSTATS_MAX || rte_roce_xstats_get(ctx, xs, (unsigned int)n) != n)
		n = 0;
	printf("counters (%s):", prog);
	for (i = 0; i < n; i++) {
		if (xs[i].value != 0)
			printf(" %s %" PRIu64, names[xs[i].id].name, xs[i].value);
	}
	printf("\n");
}

int
pp_session_stop(struct pp_port *pp, struct ibv_qp *const *qp, unsigned int n,
		struct ibv_cq *cq, const char *prog)
{
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	unsigned int i, moved = 0;
	int ret = 0;

	for (i = 0; i < n; i++) {
		/* in Reset nothing was posted: nothing to flush */
		if (qp[i] == NULL || qp[i]->state == IBV_QPS_RESET)
			continue;
		if (rte_roce_modify_qp(qp[i], &err, IBV_QP_STATE) != 0) {
			fprintf(stderr, "%s: QP %u refused the Error state\n", prog, qp[i]->qp_num);
			ret = -1;
			continue;
		}
		moved++;
	}
	printf("%s: stopped by a signal: %u QPs moved to the Error state, %" PRIu64
	       " work requests flushed\n", prog, moved, cq != NULL ? pp_session_flush(pp, cq) : 0);
	pp_session_counters(pp->ctx, prog);
	fflush(stdout);
	return ret;
}
