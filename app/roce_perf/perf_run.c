/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The tests. The client (requester) keeps up to tx_depth WRs in flight per
 * QP in BW mode, signalling one in cq_mod (and the last), posting lists of
 * post_list WRs; in LAT mode it times one operation at a time: WRITE and
 * SEND are ping-pongs with the server (it writes or sends back what
 * arrived), READ and atomics are round trips of one WR. The server side is
 * passive but for receives (SEND) and the echoes of the ping-pongs.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include <rte_roce_verbs.h>

#ifdef PERF_CALLGRIND
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION do { } while (0)
#define CALLGRIND_STOP_INSTRUMENTATION do { } while (0)
#endif

#include "perf.h"
#include "pp_oob.h"

#define PERF_WC_BURST 32
#define PERF_FLUSH_QUIET_MS 20	/* no flushed completion for this long: all are in */
#define PERF_FLUSH_MAX_MS 300	/* so that a stop takes well under a second */
#define PERF_POST_LIST_MAX 64
#define PERF_STALL_S 5			/* no completion for this long: the peer is gone */
#define PERF_QP_SHIFT 40		/* wr_id = QP index << 40 | sequence */
#define PERF_SEQ_MASK ((1ull << PERF_QP_SHIFT) - 1)
#define PERF_PROGRESS_S 1.0
#define PERF_OOB_CHECK_MASK 1023	/* the server reads the TSC every 1024 loops, */
#define PERF_OOB_CHECKS_PER_S 1000	/* and looks at the TCP socket every millisecond */

struct perf_bw {
	uint64_t posted[PERF_QPS_MAX];
	uint64_t done[PERF_QPS_MAX];
	uint64_t target;
	/* a post list of WRs prepared for QP wr_qp, chained; per message only perf_wr_seq() */
	struct ibv_send_wr wr[PERF_POST_LIST_MAX];
	struct ibv_sge sge[PERF_POST_LIST_MAX];
	uint32_t wr_qp;
};

static uint64_t
perf_wr_id(uint32_t q, uint64_t seq)
{
	return (uint64_t)q << PERF_QP_SHIFT | seq;
}

static enum ibv_wr_opcode
perf_opcode(enum perf_test t)
{
	switch (t) {
	case PERF_TEST_READ: return IBV_WR_RDMA_READ;
	case PERF_TEST_SEND: return IBV_WR_SEND;
	case PERF_TEST_FETCH_ADD: return IBV_WR_ATOMIC_FETCH_AND_ADD;
	case PERF_TEST_CMP_SWAP: return IBV_WR_ATOMIC_CMP_AND_SWP;
	default: return IBV_WR_RDMA_WRITE;
	}
}

static bool
perf_is_atomic(enum perf_test t)
{
	return t == PERF_TEST_FETCH_ADD || t == PERF_TEST_CMP_SWAP;
}

/* What a WR on QP q of the client carries whatever its message (perftest prepares them once too). */
static void
perf_wr_init(struct perf_run *r, uint32_t q, uint32_t size, struct ibv_send_wr *wr,
	     struct ibv_sge *sge)
{
	const struct perf_side *s = r->cli;
	const struct perf_opts *o = r->o;

	sge->addr = (uintptr_t)perf_local(s, q);
	sge->length = perf_is_atomic(o->test) ? PERF_ATOMIC_SIZE : size;
	sge->lkey = s->mr->lkey;
	memset(wr, 0, sizeof(*wr));
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = perf_opcode(o->test);
	if (size <= o->inline_size && o->test != PERF_TEST_READ && !perf_is_atomic(o->test))
		wr->send_flags |= IBV_SEND_INLINE;
	if (perf_is_atomic(o->test)) {
		wr->wr.atomic.remote_addr = s->remote[q].vaddr;
		wr->wr.atomic.rkey = s->remote[q].rkey;
	} else {
		wr->wr.rdma.remote_addr = s->remote[q].vaddr;
		wr->wr.rdma.rkey = s->remote[q].rkey;
	}
}

/* What changes from one message to the next: message seq on QP q. */
static void
perf_wr_seq(const struct perf_opts *o, uint32_t q, uint64_t seq, bool signaled,
	    struct ibv_send_wr *wr)
{
	wr->wr_id = perf_wr_id(q, seq);
	wr->send_flags = (wr->send_flags & ~IBV_SEND_SIGNALED) | (signaled ? IBV_SEND_SIGNALED : 0);
	if (perf_is_atomic(o->test)) {
		/* in order on one QP, so every compare succeeds: the value ends at the count */
		wr->wr.atomic.compare_add = o->test == PERF_TEST_FETCH_ADD ? 1 : seq;
		wr->wr.atomic.swap = seq + 1;
	}
}

/* One WR of message seq on QP q of the client. */
static void
perf_wr_fill(struct perf_run *r, uint32_t q, uint64_t seq, uint32_t size, bool signaled,
	     struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	perf_wr_init(r, q, size, wr, sge);
	perf_wr_seq(r->o, q, seq, signaled, wr);
}

static int
perf_post_recv(struct perf_side *s, uint32_t q, uint32_t slot, uint32_t size)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)perf_rx_slot(s, q, slot),
		.length = size,
		.lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = perf_wr_id(q, slot), .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return rte_roce_post_recv(s->qp[q], &wr, &bad);
}

#define PERF_WC_STATUS(s) [IBV_WC_##s] = "IBV_WC_" #s

/* The enum's names, what a user greps for (ibv_wc_status_str() gives the words). */
static const char *const perf_wc_status_names[] = {
	PERF_WC_STATUS(SUCCESS), PERF_WC_STATUS(LOC_LEN_ERR), PERF_WC_STATUS(LOC_QP_OP_ERR),
	PERF_WC_STATUS(LOC_EEC_OP_ERR), PERF_WC_STATUS(LOC_PROT_ERR),
	PERF_WC_STATUS(WR_FLUSH_ERR), PERF_WC_STATUS(MW_BIND_ERR), PERF_WC_STATUS(BAD_RESP_ERR),
	PERF_WC_STATUS(LOC_ACCESS_ERR), PERF_WC_STATUS(REM_INV_REQ_ERR),
	PERF_WC_STATUS(REM_ACCESS_ERR), PERF_WC_STATUS(REM_OP_ERR),
	PERF_WC_STATUS(RETRY_EXC_ERR), PERF_WC_STATUS(RNR_RETRY_EXC_ERR),
	PERF_WC_STATUS(LOC_RDD_VIOL_ERR), PERF_WC_STATUS(REM_INV_RD_REQ_ERR),
	PERF_WC_STATUS(REM_ABORT_ERR), PERF_WC_STATUS(INV_EECN_ERR),
	PERF_WC_STATUS(INV_EEC_STATE_ERR), PERF_WC_STATUS(FATAL_ERR),
	PERF_WC_STATUS(RESP_TIMEOUT_ERR), PERF_WC_STATUS(GENERAL_ERR), PERF_WC_STATUS(TM_ERR),
	PERF_WC_STATUS(TM_RNDV_INCOMPLETE),
};

int
perf_wc_check(const struct ibv_wc *wc, const char *who)
{
	const char *name = (unsigned int)wc->status < RTE_DIM(perf_wc_status_names) ?
			   perf_wc_status_names[wc->status] : NULL;

	if (wc->status == IBV_WC_SUCCESS)
		return 0;
	fprintf(stderr, "roce_perf: %s: completion error on QP %u: %s (%s, vendor_err %u)\n",
		who, wc->qp_num, name != NULL ? name : "status unknown",
		ibv_wc_status_str(wc->status), wc->vendor_err);
	return -EIO;
}

/* Check a received message against the pattern; counts the bytes checked. */
static int
perf_verify(const uint8_t *p, uint32_t len, uint64_t *verified)
{
	uint32_t k;

	for (k = 0; k < len; k++) {
		if (p[k] != perf_pattern(k)) {
			fprintf(stderr, "roce_perf: --verify: byte %u is %#x, expected %#x\n", k,
				p[k], perf_pattern(k));
			return -EIO;
		}
	}
	*verified += len;
	return 0;
}

/* Server side of SEND tests: take receive completions, check, post again. */
static int
perf_srv_recv(struct perf_run *r, uint32_t size, uint64_t *verified, uint32_t *echo_q)
{
	struct perf_side *s = r->srv;
	struct ibv_wc wc[PERF_WC_BURST];
	int n, i;

	n = perf_poll_cqs(s->rcq, s->nb_lanes, PERF_WC_BURST, wc);
	for (i = 0; i < n; i++) {
		uint32_t q = wc[i].wr_id >> PERF_QP_SHIFT;
		uint32_t slot = wc[i].wr_id & PERF_SEQ_MASK;

		if (perf_wc_check(&wc[i], s->name) != 0)
			return -EIO;
		if (r->o->verify) {
			if (wc[i].byte_len != size ||
			    perf_verify(perf_rx_slot(s, q, slot), size, verified) != 0)
				return -EIO;
			memset(perf_rx_slot(s, q, slot), 0, size);
		}
		if (perf_post_recv(s, q, slot, s->slot) != 0)
			return -EIO;
		if (echo_q != NULL)
			echo_q[q]++;
	}
	return n;
}

/* Drain a send CQ of completions nobody waits for (the server's echoes). */
static int
perf_drain_scq(struct perf_side *s)
{
	struct ibv_wc wc[PERF_WC_BURST];
	int n, i;

	n = perf_poll_cqs(s->scq, s->nb_lanes, PERF_WC_BURST, wc);
	for (i = 0; i < n; i++) {
		if (perf_wc_check(&wc[i], s->name) != 0)
			return -EIO;
	}
	return n;
}

/* Post one echo (WRITE or SEND of size bytes) from the server's QP q. */
static int
perf_echo(struct perf_side *s, const struct perf_opts *o, uint32_t q, uint32_t size)
{
	struct ibv_sge sge = { .addr = (uintptr_t)perf_local(s, q), .length = size,
			       .lkey = s->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = perf_opcode(o->test),
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;

	if (size <= o->inline_size)
		wr.send_flags |= IBV_SEND_INLINE;
	wr.wr.rdma.remote_addr = s->remote[q].vaddr;
	wr.wr.rdma.rkey = s->remote[q].rkey;
	return rte_roce_post_send(s->qp[q], &wr, &bad);
}

/*
 * The value of the last byte in ping-pong round i (1-based): i modulo 256,
 * as perftest's write_lat stores (char)++scnt there and waits for
 * (char)rcnt. The byte always holds the previous round's mark, so it
 * differs from the one awaited (round 1 waits for 1 in a zeroed buffer).
 */
static uint8_t
perf_mark(uint64_t i)
{
	return (uint8_t)i;
}

/* Server step of the ping-pong tests: echo what arrived. */
static int
perf_srv_echo(struct perf_run *r, uint32_t size, uint64_t *verified)
{
	struct perf_side *s = r->srv;
	uint32_t got[PERF_QPS_MAX] = { 0 };
	uint32_t q;
	int n;

	if (perf_drain_scq(s) < 0)
		return -EIO;
	if (r->o->test == PERF_TEST_SEND) {
		n = perf_srv_recv(r, size, verified, got);
		if (n < 0)
			return n;
		for (q = 0; q < r->o->qps; q++) {
			for (; got[q] > 0; got[q]--) {
				if (perf_echo(s, r->o, q, size) != 0)
					return -EIO;
				s->echo_next[q]++;
			}
		}
		return n;
	}
	/*
	 * WRITE, as perftest's run_iter_lat_write: the server writes first
	 * (mark 1), then answers the client's mark k with mark k + 1; echo_next
	 * counts its writes, and goes one past iters once the client's last
	 * mark has arrived.
	 */
	n = 0;
	for (q = 0; q < r->o->qps; q++) {
		volatile uint8_t *last = perf_target(s, q) + size - 1;
		uint64_t sent = s->echo_next[q];

		if (sent > r->o->iters || (sent > 0 && *last != perf_mark(sent)))
			continue;
		s->echo_next[q]++;
		n++;
		if (sent == r->o->iters)
			continue;
		perf_local(s, q)[size - 1] = perf_mark(sent + 1);
		if (perf_echo(s, r->o, q, size) != 0)
			return -EIO;
	}
	return n;
}

/*
 * One round of progress on every local side; returns the work done. A round
 * that did work counts as busy up to the start of the next one: one TSC read
 * per round (about 11 ns on this VM) instead of two.
 */
unsigned int
perf_progress(struct perf_run *r)
{
	uint64_t now = rte_rdtsc();
	int work = 0;

	if (r->last_work)
		r->busy_cycles += now - r->last_round;
	r->last_round = now;
	if (r->cli != NULL)
		work += RTE_MAX(rte_roce_poll(r->cli->ctx), 0);
	if (r->srv != NULL)
		work += RTE_MAX(rte_roce_poll(r->srv->ctx), 0);
	r->last_work = work > 0;
	return work;
}

/* Server work between client steps, in loopback as in two-process mode. */
static int
perf_srv_step(struct perf_run *r, uint32_t size, uint64_t *verified)
{
	if (r->srv == NULL)
		return 0;
	if (r->o->mode == PERF_MODE_LAT &&
	    (r->o->test == PERF_TEST_WRITE || r->o->test == PERF_TEST_SEND))
		return perf_srv_echo(r, size, verified);
	if (r->o->test == PERF_TEST_SEND)
		return perf_srv_recv(r, size, verified, NULL);
	return 0;
}

/* Names of the devices' counters, the same for every device. */
static struct rte_roce_xstat_name perf_xstat_names[PERF_XSTATS_MAX];

static void
perf_stats_snap(struct perf_side *s)
{
	uint16_t w;

	if (s == NULL)
		return;
	rte_roce_port_stats_get(s->port, &s->stats0);
	rte_roce_xstats_get(s->ctx, s->xstats0, PERF_XSTATS_MAX);
	for (w = 0; w < s->nb_workers; w++)
		rte_roce_worker_stats_get(s->ctx, w, &s->wstats0[w]);
}

/* The counter called name among res's counters of device i (0 if none). */
static uint64_t
perf_counter(const struct perf_result *res, unsigned int i, const char *name)
{
	unsigned int k;

	for (k = 0; k < res->nb_counters; k++) {
		if (strcmp(res->counter_names[k].name, name) == 0)
			return res->counters[i][k];
	}
	return 0;
}

/* The device's lanes, workers' counters and hand-offs since perf_stats_snap(): res->lanes[i]. */
static void
perf_lanes_delta(const struct perf_side *s, struct perf_result *res, unsigned int i)
{
	struct perf_lanes *l = &res->lanes[i];
	struct rte_roce_worker_stats now;
	uint16_t w;

	l->nb_lanes = s->nb_lanes;
	l->nb_workers = s->nb_workers;
	for (w = 0; w < s->nb_workers; w++) {
		l->lcores[w] = s->lcores[w];
		if (rte_roce_worker_stats_get(s->ctx, w, &now) != 0)
			continue;
		l->w[w].loops = now.loops - s->wstats0[w].loops;
		l->w[w].busy_loops = now.busy_loops - s->wstats0[w].busy_loops;
		l->w[w].work = now.work - s->wstats0[w].work;
		l->w[w].ctrl_pauses = now.ctrl_pauses - s->wstats0[w].ctrl_pauses;
		l->w[w].qps = now.qps;
		l->w[w].handoffs_in = now.handoffs_in - s->wstats0[w].handoffs_in;
	}
	l->handoffs_out = perf_counter(res, i, "handoffs_out");
	l->handoffs_in = perf_counter(res, i, "handoffs_in");
	l->handoff_drops = perf_counter(res, i, "handoff_drops");
}

/* The device's counters since perf_stats_snap(), into res->counters[i]. */
static void
perf_counters_delta(const struct perf_side *s, struct perf_result *res, unsigned int i)
{
	struct rte_roce_xstat now[PERF_XSTATS_MAX];
	int k, n;

	n = rte_roce_xstats_get(s->ctx, now, PERF_XSTATS_MAX);
	if (n <= 0 || n > PERF_XSTATS_MAX ||
	    rte_roce_xstats_names_get(s->ctx, perf_xstat_names, PERF_XSTATS_MAX) != n) {
		res->nb_counters = 0;
		return;
	}
	for (k = 0; k < n; k++)
		res->counters[i][k] = now[k].value - s->xstats0[k].value;
	res->counter_names = perf_xstat_names;
	res->nb_counters = n;
}

/* Counters since perf_stats_snap(). */
static void
perf_stats_delta(const struct perf_side *s, struct rte_roce_port_stats *d)
{
	const uint64_t *b = (const uint64_t *)&s->stats0;
	uint64_t *v = (uint64_t *)d;
	size_t i;

	rte_roce_port_stats_get(s->port, d);
	for (i = 0; i < sizeof(*d) / sizeof(uint64_t); i++)
		v[i] -= b[i];
}

/* Prepare both sides' memory and receives for one size. */
static int
perf_prepare(struct perf_run *r, uint32_t size)
{
	const struct perf_opts *o = r->o;
	struct perf_side *sides[2] = { r->cli, r->srv };
	uint32_t q, i, k, j;

	for (j = 0; j < 2; j++) {
		struct perf_side *s = sides[j];

		if (s == NULL)
			continue;
		memset(s->buf, 0, s->buf_len);
		memset(s->echo_next, 0, sizeof(s->echo_next));
		for (q = 0; q < o->qps; q++) {
			for (k = 0; k < size; k++)
				perf_local(s, q)[k] = perf_pattern(k);
			if (o->test == PERF_TEST_READ) {
				for (k = 0; k < size; k++)
					perf_target(s, q)[k] = perf_pattern(k);
			}
			if (perf_is_atomic(o->test))
				memset(perf_local(s, q), 0, PERF_ATOMIC_SIZE);
			for (i = 0; i < s->rx_slots && o->test == PERF_TEST_SEND; i++) {
				if (perf_post_recv(s, q, i, s->slot) != 0)
					return -EIO;
			}
		}
		perf_stats_snap(s);
	}
	return 0;
}

/* ---- BW ---- */

/* The post list of QP q, prepared in bw. */
static void
perf_bw_wrs(struct perf_run *r, struct perf_bw *bw, uint32_t q, uint32_t size)
{
	uint32_t k, n = r->o->post_list;

	for (k = 0; k < n; k++) {
		perf_wr_init(r, q, size, &bw->wr[k], &bw->sge[k]);
		bw->wr[k].next = k + 1 < n ? &bw->wr[k + 1] : NULL;
	}
	bw->wr_qp = q;
}

static int
perf_bw_post(struct perf_run *r, struct perf_bw *bw, uint32_t q, uint32_t size)
{
	const struct perf_opts *o = r->o;
	struct ibv_send_wr *bad;
	uint32_t n, k;
	int ret;

	while (bw->posted[q] < bw->target &&
	       bw->posted[q] - bw->done[q] + o->post_list <= o->tx_depth) {
		if (bw->wr_qp != q)
			perf_bw_wrs(r, bw, q, size);
		n = (uint32_t)RTE_MIN((uint64_t)o->post_list, bw->target - bw->posted[q]);
		for (k = 0; k < n; k++) {
			uint64_t seq = bw->posted[q] + k;

			perf_wr_seq(o, q, seq, (seq + 1) % o->cq_mod == 0 || seq + 1 == bw->target,
				    &bw->wr[k]);
		}
		/* a shorter last list: cut the chain for this post, then mend it */
		bw->wr[n - 1].next = NULL;
		ret = rte_roce_post_send(r->cli->qp[q], bw->wr, &bad);
		bw->wr[n - 1].next = n < o->post_list ? &bw->wr[n] : NULL;
		if (ret != 0) {
			fprintf(stderr, "roce_perf: post_send: %s\n", strerror(-ret));
			return ret;
		}
		bw->posted[q] += n;
	}
	return 0;
}

static int
perf_bw_poll(struct perf_run *r, struct perf_bw *bw)
{
	struct ibv_wc wc[PERF_WC_BURST];
	int n, i;

	n = perf_poll_cqs(r->cli->scq, r->cli->nb_lanes, PERF_WC_BURST, wc);
	for (i = 0; i < n; i++) {
		uint32_t q = wc[i].wr_id >> PERF_QP_SHIFT;

		if (perf_wc_check(&wc[i], r->cli->name) != 0)
			return -EIO;
		bw->done[q] = (wc[i].wr_id & PERF_SEQ_MASK) + 1;
	}
	return n;
}

static uint64_t
perf_sum(const uint64_t *v, uint32_t n)
{
	uint64_t s = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	return s;
}

static void
perf_progress_line(const struct perf_opts *o, double secs, uint64_t msgs, uint32_t size)
{
	if (o->json)
		return;
	fprintf(stderr, "  ... %6.1f s  %12" PRIu64 " msgs  %8.3f Mpps  %8.3f Gb/s\n", secs, msgs,
		msgs / secs / 1e6, msgs * size * 8.0 / secs / 1e9);
}

/* No completion for PERF_STALL_S: a duration run has no target count yet (UINT64_MAX). */
static void
perf_stall_report(const struct perf_bw *bw, uint32_t qps, uint64_t total)
{
	char of[32] = "";

	if (bw->target != UINT64_MAX)
		snprintf(of, sizeof(of), " of %" PRIu64, bw->target * qps);
	fprintf(stderr, "roce_perf: no progress for %d s (%" PRIu64 "%s messages done): is the peer "
		"there?\n", PERF_STALL_S, total, of);
}

static int
perf_bw(struct perf_run *r, uint32_t size, struct perf_result *res)
{
	const struct perf_opts *o = r->o;
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t t0, now, last_work, next_report, win_t, win_msgs, total, loops = 0;
	struct perf_bw bw = { .target = o->duration_s > 0 ? UINT64_MAX : o->iters,
			      .wr_qp = UINT32_MAX };
	uint32_t q;
	int ret;

	t0 = rte_rdtsc();
	last_work = win_t = t0;
	next_report = t0 + (uint64_t)(PERF_PROGRESS_S * hz);
	win_msgs = 0;
	CALLGRIND_START_INSTRUMENTATION;
	for (;;) {
		for (q = 0; q < o->qps; q++) {
			ret = perf_bw_post(r, &bw, q, size);
			if (ret != 0)
				return ret;
		}
		if (perf_progress(r) > 0)
			last_work = rte_rdtsc();
		if (perf_bw_poll(r, &bw) < 0 || perf_srv_step(r, size, &res->verified) < 0)
			return -EIO;
		total = perf_sum(bw.done, o->qps);
		if (bw.target != UINT64_MAX && total == bw.target * o->qps)
			break;
		if ((++loops & PERF_OOB_CHECK_MASK) != 0)
			continue;
		if (pp_stop_requested)
			return -EINTR;
		now = rte_rdtsc();
		if (o->duration_s > 0 && bw.target == UINT64_MAX &&
		    now - t0 >= (uint64_t)(o->duration_s * hz)) {
			/* one more signalled WR per QP closes the run */
			bw.target = 0;
			for (q = 0; q < o->qps; q++)
				bw.target = RTE_MAX(bw.target, bw.posted[q] + 1);
			for (q = 0; q < o->qps; q++)
				bw.posted[q] = RTE_MIN(bw.posted[q], bw.target);
		}
		if (now >= next_report) {
			double w = (double)(now - win_t) / hz;

			res->bw_peak_gbps = RTE_MAX(res->bw_peak_gbps,
						    (total - win_msgs) * size * 8.0 / w / 1e9);
			win_t = now;
			win_msgs = total;
			next_report = now + (uint64_t)(PERF_PROGRESS_S * hz);
			perf_progress_line(o, (double)(now - t0) / hz, total, size);
		}
		if (now - last_work > PERF_STALL_S * hz) {
			perf_stall_report(&bw, o->qps, total);
			return -ETIMEDOUT;
		}
	}
	CALLGRIND_STOP_INSTRUMENTATION;
	r->loop_cycles += rte_rdtsc() - t0;
	res->secs = (double)(rte_rdtsc() - t0) / hz;
	res->msgs = total;
	/* duration runs: QPs may end at different counts */
	if (o->duration_s > 0)
		res->msgs = perf_sum(bw.posted, o->qps);
	return 0;
}

/* ---- LAT ---- */

/* Wait for one completion on cq; the server steps meanwhile. */
static int
perf_wait_wc(struct perf_run *r, struct ibv_cq *cq, struct ibv_wc *wc, uint32_t size,
	     uint64_t *verified)
{
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t t0 = rte_rdtsc();
	int n;

	for (;;) {
		perf_progress(r);
		if (perf_srv_step(r, size, verified) < 0)
			return -EIO;
		n = rte_roce_poll_cq(cq, 1, wc);
		if (n == 1)
			return perf_wc_check(wc, r->cli->name);
		if (pp_stop_requested)
			return -EINTR;
		if (rte_rdtsc() - t0 > PERF_STALL_S * hz) {
			fprintf(stderr, "roce_perf: no completion for %d s\n", PERF_STALL_S);
			return -ETIMEDOUT;
		}
	}
}

/* perf_wait_mark() without a mark: until *completed reaches want. */
#define PERF_MARK_NONE (-1)

/*
 * Wait until the last byte of the client's target holds mark (or, with
 * PERF_MARK_NONE, until *completed reaches want), counting the client's
 * send completions in *completed.
 */
static int
perf_wait_mark(struct perf_run *r, uint32_t size, int mark, uint64_t *verified,
	       uint64_t *completed, uint64_t want)
{
	const uint64_t hz = rte_get_tsc_hz();
	volatile uint8_t *last = perf_target(r->cli, 0) + size - 1;
	uint64_t t0 = rte_rdtsc();
	int n;

	while (mark != PERF_MARK_NONE ? *last != mark : *completed < want) {
		perf_progress(r);
		n = perf_drain_scq(r->cli);
		if (perf_srv_step(r, size, verified) < 0 || n < 0)
			return -EIO;
		*completed += (uint64_t)n;
		if (pp_stop_requested)
			return -EINTR;
		if (rte_rdtsc() - t0 > PERF_STALL_S * hz) {
			fprintf(stderr, "roce_perf: no echo for %d s\n", PERF_STALL_S);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/*
 * WRITE latency, perftest's way (run_iter_lat_write): the server writes
 * first; the client answers each mark with the same mark. A sample is from
 * one of our writes to the server's next one, the last one to its ACK.
 */
static int
perf_lat_write(struct perf_run *r, uint32_t size, struct perf_result *res, uint64_t *samples)
{
	const struct perf_opts *o = r->o;
	uint64_t i, t0 = 0, start = rte_rdtsc(), completed = 0;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	int ret = 0;

	for (i = 0; i < o->iters && ret == 0; i++) {
		ret = perf_wait_mark(r, size, perf_mark(i + 1), &res->verified, &completed, 0);
		if (ret != 0)
			break;
		if (i > 0)
			samples[i - 1] = rte_rdtsc() - t0;
		perf_local(r->cli, 0)[size - 1] = perf_mark(i + 1);
		perf_wr_fill(r, 0, i, size, true, &wr, &sge);
		t0 = rte_rdtsc();
		ret = rte_roce_post_send(r->cli->qp[0], &wr, &bad);
	}
	/* the server is done when our last mark is there: wait for its ACK */
	if (ret == 0)
		ret = perf_wait_mark(r, size, PERF_MARK_NONE, &res->verified, &completed,
				     o->iters);
	if (ret == 0)
		samples[i - 1] = rte_rdtsc() - t0;
	r->loop_cycles += rte_rdtsc() - start;
	res->secs = (double)(rte_rdtsc() - start) / rte_get_tsc_hz();
	res->msgs = i;
	if (ret == 0)
		perf_lat_stats(samples, i, &res->lat);
	return ret;
}

static int
perf_lat(struct perf_run *r, uint32_t size, struct perf_result *res)
{
	const struct perf_opts *o = r->o;
	uint64_t *samples, i, t0, start;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	int ret = 0;

	samples = malloc(sizeof(*samples) * o->iters);
	if (samples == NULL)
		return -ENOMEM;
	if (o->test == PERF_TEST_WRITE) {
		ret = perf_lat_write(r, size, res, samples);
		free(samples);
		return ret;
	}
	start = rte_rdtsc();
	for (i = 0; i < o->iters && ret == 0; i++) {
		perf_wr_fill(r, 0, i, size, true, &wr, &sge);
		t0 = rte_rdtsc();
		ret = rte_roce_post_send(r->cli->qp[0], &wr, &bad);
		if (ret != 0)
			break;
		if (o->test == PERF_TEST_SEND) {
			ret = perf_wait_wc(r, r->cli->rcq[0], &wc, size, &res->verified);
			if (ret == 0)
				ret = perf_post_recv(r->cli, 0, wc.wr_id & PERF_SEQ_MASK,
						     r->cli->slot);
		} else {
			ret = perf_wait_wc(r, r->cli->scq[0], &wc, size, &res->verified);
		}
		samples[i] = rte_rdtsc() - t0;
		if (ret == 0 && o->test == PERF_TEST_SEND)
			ret = perf_wait_wc(r, r->cli->scq[0], &wc, size, &res->verified);
	}
	r->loop_cycles += rte_rdtsc() - start;
	res->secs = (double)(rte_rdtsc() - start) / rte_get_tsc_hz();
	res->msgs = i;
	if (ret == 0)
		perf_lat_stats(samples, i, &res->lat);
	free(samples);
	return ret;
}

/* What --verify checks once the run is over, on the side that holds the data. */
static int
perf_verify_end(struct perf_run *r, uint32_t size, struct perf_result *res)
{
	const struct perf_opts *o = r->o;
	uint64_t expect;
	uint32_t q, len;

	for (q = 0; q < o->qps; q++) {
		switch (o->test) {
		case PERF_TEST_WRITE:
			if (r->srv == NULL)
				break;
			/* the ping-pong's last byte is the mark */
			len = o->mode == PERF_MODE_LAT ? size - 1 : size;
			if (perf_verify(perf_target(r->srv, q), len, &res->verified) != 0)
				return -EIO;
			break;
		case PERF_TEST_READ:
			if (perf_verify(perf_local(r->cli, q), size, &res->verified) != 0)
				return -EIO;
			break;
		case PERF_TEST_FETCH_ADD:
		case PERF_TEST_CMP_SWAP:
			/* the last signalled WR fetched the value before it: count - 1 */
			expect = (o->mode == PERF_MODE_LAT ? res->msgs : res->msgs / o->qps) - 1;
			if (*(uint64_t *)perf_local(r->cli, q) != expect) {
				fprintf(stderr, "roce_perf: --verify: QP %u fetched %" PRIu64
					", expected %" PRIu64 "\n", q,
					*(uint64_t *)perf_local(r->cli, q), expect);
				return -EIO;
			}
			res->verified += PERF_ATOMIC_SIZE;
			if (o->mode == PERF_MODE_LAT)
				return 0;
			break;
		default:
			break;
		}
	}
	return 0;
}

static void
perf_cpu(struct rusage *ru)
{
	getrusage(RUSAGE_SELF, ru);
}

/*
 * The machine's CPU time so far, all CPUs (the "cpu" line of /proc/stat,
 * proc(5)): total and idle (idle + iowait) ticks. guest and guest_nice are
 * already in user and nice, so not added. false if it cannot be read.
 */
static bool
perf_machine_cpu(uint64_t *total, uint64_t *idle)
{
	unsigned long long v[8];
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (f == NULL)
		return false;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n != 8)
		return false;
	*idle = v[3] + v[4];
	*total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	return true;
}

static double
perf_tv(const struct timeval *a, const struct timeval *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_usec - a->tv_usec) / 1e6;
}

/*
 * perftest's record exchanges around a run (v4.5-0.17, as the guest's
 * binaries do them on the wire, doc/interop.md): WRITE, READ and atomic BW
 * sync after the run and then exchange the report; SEND BW and every LAT
 * test sync before the run (the receiver has posted its receives) and not
 * after; all but WRITE LAT end with one more record and "done". Between
 * the sizes of a sweep (ours only) the BW tests that do not sync before a
 * run do so from the second size on, so no sender writes into a buffer the
 * server is still preparing.
 */
bool
perf_sync_before(const struct perf_opts *o, bool first)
{
	return o->mode == PERF_MODE_LAT || o->test == PERF_TEST_SEND || !first;
}

bool
perf_sync_after(const struct perf_opts *o)
{
	return o->mode == PERF_MODE_BW && o->test != PERF_TEST_SEND;
}

bool
perf_sync_close(const struct perf_opts *o)
{
	return o->mode != PERF_MODE_LAT || o->test != PERF_TEST_WRITE;
}

/* Run one size as the client (and, in loopback, the server too). */
int
perf_run_size(struct perf_run *r, uint32_t size, bool first, struct perf_result *res)
{
	const struct perf_opts *o = r->o;
	uint64_t total0 = 0, idle0 = 0, total1 = 0, idle1 = 0, t0;
	struct rusage ru0, ru1;
	bool cpu_ok;
	int ret;

	memset(res, 0, sizeof(*res));
	res->size = size;
	ret = perf_prepare(r, size);
	if (ret == 0 && r->oob != NULL && perf_sync_before(o, first))
		ret = perf_oob_sync(r->oob);	/* the server posted its receives */
	if (ret != 0)
		return ret;
	r->busy_cycles = 0;
	r->loop_cycles = 0;
	r->last_work = false;
	cpu_ok = o->cpu_util && perf_machine_cpu(&total0, &idle0);
	perf_cpu(&ru0);
	t0 = rte_rdtsc();
	ret = o->mode == PERF_MODE_BW ? perf_bw(r, size, res) : perf_lat(r, size, res);
	res->cpu_wall_s = (double)(rte_rdtsc() - t0) / rte_get_tsc_hz();
	perf_cpu(&ru1);
	cpu_ok = cpu_ok && perf_machine_cpu(&total1, &idle1) && total1 > total0;
	if (ret != 0)
		return ret;
	/* -1: not asked for, or /proc/stat unreadable (or no tick went by) */
	res->cpu_machine = cpu_ok ? 1.0 - (double)(idle1 - idle0) / (total1 - total0) : -1;
	res->cpu_user_s = perf_tv(&ru0.ru_utime, &ru1.ru_utime);
	res->cpu_sys_s = perf_tv(&ru0.ru_stime, &ru1.ru_stime);
	res->busy = r->loop_cycles != 0 ? (double)r->busy_cycles / r->loop_cycles : 0;
	res->msg_rate_mpps = res->msgs / res->secs / 1e6;
	res->bw_gbps = res->msgs * (double)(perf_is_atomic(o->test) ? PERF_ATOMIC_SIZE : size) *
		       8 / res->secs / 1e9;
	res->bw_peak_gbps = RTE_MAX(res->bw_peak_gbps, res->bw_gbps);
	/* SEND in BW mode: the server may still hold completions to check */
	if (o->test == PERF_TEST_SEND && o->mode == PERF_MODE_BW && r->srv != NULL) {
		while ((ret = perf_srv_recv(r, size, &res->verified, NULL)) > 0)
			perf_progress(r);
		if (ret < 0)
			return ret;
	}
	if (o->verify && (ret = perf_verify_end(r, size, res)) != 0)
		return ret;
	perf_stats_delta(r->cli, &res->port[0]);
	perf_counters_delta(r->cli, res, 0);
	perf_lanes_delta(r->cli, res, 0);
	res->nb_ports = 1;
	if (r->srv != NULL) {
		perf_counters_delta(r->srv, res, res->nb_ports);
		perf_lanes_delta(r->srv, res, res->nb_ports);
		perf_stats_delta(r->srv, &res->port[res->nb_ports++]);
	}
	if (r->cli->fault != NULL)
		rte_roce_fault_stats_get(r->cli->fault, &res->fault);
	if (r->oob != NULL && perf_sync_after(o))
		ret = perf_oob_sync(r->oob);	/* the run is over */
	return ret;
}

/*
 * The server of a two-process run, for one size: serve until the client
 * says something on the TCP connection (its sync after the run, the next
 * size's or the closing record, or its end of file). A SEND BW server
 * measures what it received itself (perftest sends it no report): res.
 */
int
perf_serve_size(struct perf_run *r, uint32_t size, bool first, struct perf_result *res)
{
	const struct perf_opts *o = r->o;
	const uint64_t every = rte_get_tsc_hz() / PERF_OOB_CHECKS_PER_S;
	/* a ping-pong server knows when it is done: no syscall while timed */
	bool echo = o->mode == PERF_MODE_LAT &&
		    (o->test == PERF_TEST_WRITE || o->test == PERF_TEST_SEND);
	uint64_t verified = 0, loops = 0, next = 0, echoes, t0 = 0, t1 = 0;
	int ret, n;

	memset(res, 0, sizeof(*res));
	res->size = size;
	ret = perf_prepare(r, size);
	if (ret == 0 && perf_sync_before(o, first))
		ret = perf_oob_sync(r->oob);
	while (ret == 0) {
		perf_progress(r);
		n = perf_srv_step(r, size, &verified);
		if (n < 0)
			return -EIO;
		if (n > 0 && o->test == PERF_TEST_SEND && o->mode == PERF_MODE_BW) {
			t1 = rte_rdtsc();
			t0 = res->msgs == 0 ? t1 : t0;
			res->msgs += (uint64_t)n;
		}
		if ((++loops & PERF_OOB_CHECK_MASK) != 0 || rte_rdtsc() < next)
			continue;
		if (pp_stop_requested)
			return -EINTR;
		echoes = o->test == PERF_TEST_WRITE ? r->srv->echo_next[0] - 1 : r->srv->echo_next[0];
		if (echo && echoes < o->iters)
			continue;
		if (perf_oob_readable(r->oob) != 0)
			break;
		next = rte_rdtsc() + every;
	}
	if (ret == 0 && r->o->verify && r->o->test == PERF_TEST_WRITE && r->o->mode == PERF_MODE_BW) {
		uint32_t q;

		for (q = 0; q < r->o->qps && ret == 0; q++)
			ret = perf_verify(perf_target(r->srv, q), size, &verified);
	}
	if (ret == 0 && perf_sync_after(o))
		ret = perf_oob_sync(r->oob);
	if (res->msgs > 1) {
		/* from the first receive to the last: one message less in between */
		res->secs = (double)(t1 - t0) / rte_get_tsc_hz();
		res->msg_rate_mpps = (res->msgs - 1) / res->secs / 1e6;
		res->bw_gbps = res->msg_rate_mpps * size * 8 / 1e3;
		res->bw_peak_gbps = res->bw_gbps;
	}
	return ret;
}

/*
 * Poll side s's CQs until its flushed work requests stop coming
 * (PERF_FLUSH_QUIET_MS without one, PERF_FLUSH_MAX_MS at most); how many
 * came.
 */
static uint64_t
perf_flush(struct perf_run *r, struct perf_side *s)
{
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t t0 = rte_rdtsc(), last = t0, now = t0, flushed = 0;
	struct ibv_wc wc[PERF_WC_BURST];
	int n;

	while ((now - last) * 1000 < PERF_FLUSH_QUIET_MS * hz &&
	       (now - t0) * 1000 < PERF_FLUSH_MAX_MS * hz) {
		perf_progress(r);
		n = RTE_MAX(perf_poll_cqs(s->scq, s->nb_lanes, PERF_WC_BURST, wc), 0);
		n += RTE_MAX(perf_poll_cqs(s->rcq, s->nb_lanes, PERF_WC_BURST, wc), 0);
		now = rte_rdtsc();
		if (n > 0)
			last = now;
		flushed += (uint64_t)n;
	}
	return flushed;
}

int
perf_stop(struct perf_run *r, struct perf_side *side, unsigned int nb_sides)
{
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	const char *names[2];
	struct perf_result res = { 0 };
	struct perf_side *s;
	unsigned int i, nb_qps;
	uint32_t q;
	int ret = 0;

	for (i = 0; i < nb_sides; i++) {
		s = &side[i];
		if (s->ctx == NULL || s->scq[0] == NULL)
			continue;
		nb_qps = 0;
		for (q = 0; q < PERF_QPS_MAX; q++) {
			/* not connected yet: nothing posted, nothing to flush */
			if (s->qp[q] == NULL || s->qp[q]->state == IBV_QPS_RESET)
				continue;
			/* IBA 10.3.1: to Error from any state but Reset; every outstanding WR is flushed */
			if (rte_roce_modify_qp(s->qp[q], &err, IBV_QP_STATE) != 0)
				ret = -EIO;
			nb_qps++;
		}
		printf("roce_perf: %s: stopped by a signal: %u QPs moved to the Error state, "
		       "%" PRIu64 " work requests flushed\n", s->name, nb_qps, perf_flush(r, s));
		names[res.nb_ports] = s->name;
		perf_counters_delta(s, &res, res.nb_ports++);
	}
	perf_print_counters(&res, names);
	fflush(stdout);
	return ret;
}
