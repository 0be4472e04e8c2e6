/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The counters' C API over real packets (net_ring): per-QP and device
 * transport counters move by what crossed the wire and nothing else, the
 * device's are the sums of its QPs', the extended statistics carry the same
 * values under unique names (rxe's and mlx5's), reset zeroes everything,
 * and every misuse is refused.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_log.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_verbs.h"

#define STATS_QPS	2
#define STATS_MSGS	4
#define STATS_MSG_LEN	3000	/* three packets at MTU 1024 */
#define STATS_PKTS_PER_MSG 3
#define STATS_SHORT	100	/* one packet */
#define STATS_UD_QKEY	0x11111111
#define STATS_UD_LEN	16	/* fits a receive of STATS_SHORT after the 40-byte GRH */
#define STATS_LINK_MS	1000	/* the device checks its link every 10 ms */

static struct rte_roce_stats
qp_stats(struct ibv_qp *qp)
{
	struct rte_roce_stats s;

	memset(&s, 0xff, sizeof(s));
	rte_roce_qp_stats_get(qp, &s);
	return s;
}

/* Value of the extended statistic name of ctx; UINT64_MAX if missing. */
static uint64_t
xstat(struct ibv_context *ctx, const char *name)
{
	uint64_t v = UINT64_MAX;

	rte_roce_xstats_get_by_name(ctx, name, &v);
	return v;
}

/* Names unique and non-empty; values by id equal values by name. */
static int
check_xstats(struct ibv_context *ctx)
{
	struct rte_roce_xstat_name *names;
	struct rte_roce_xstat *values;
	int i, j, n, ret = 0;

	n = rte_roce_xstats_names_get(ctx, NULL, 0);
	ROCE_TEST_ASSERT(n > 0, "no extended statistics: %d", n);
	ROCE_TEST_ASSERT_EQ(rte_roce_xstats_get(ctx, NULL, 0), n, "count of values");
	names = calloc(n, sizeof(*names));
	values = calloc(n + 1, sizeof(*values));
	if (names == NULL || values == NULL)
		ret = -1;
	/* Too small an array: only the count, nothing written. */
	if (ret == 0 && rte_roce_xstats_names_get(ctx, names, n - 1) != n)
		ret = -1;
	if (ret == 0 && names[0].name[0] != '\0')
		ret = -1;
	if (ret == 0 && (rte_roce_xstats_names_get(ctx, names, n) != n ||
			 rte_roce_xstats_get(ctx, values, n + 1) != n))
		ret = -1;
	for (i = 0; ret == 0 && i < n; i++) {
		if (names[i].name[0] == '\0' || values[i].id != (uint64_t)i ||
		    xstat(ctx, names[i].name) != values[i].value)
			ret = -1;
		for (j = 0; ret == 0 && j < i; j++)
			if (strcmp(names[i].name, names[j].name) == 0)
				ret = -1;
		if (ret != 0)
			printf("#   extended statistic %d (%s) wrong\n", i, names[i].name);
	}
	free(names);
	free(values);
	return ret;
}

/* SENDs on pair 0 only: pair 1's counters stay, the device's are the sums. */
static int
test_stats_count(void)
{
	struct rte_roce_stats a0, a1, b0, dev_a, dev_b;
	struct roce_test_env e;
	unsigned int i;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, STATS_QPS);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(rte_roce_stats_reset(e.s[0].ctx), 0, "reset a");
		ROCE_TEST_ASSERT_EQ(rte_roce_stats_reset(e.s[1].ctx), 0, "reset b");
	}
	for (i = 0; ret == 0 && i < STATS_MSGS; i++)
		ret = roce_test_transfer(&e, 0, 0, IBV_WR_SEND, STATS_MSG_LEN, ROCE_TEST_DATA_OFF, i);
	if (ret == 0) {
		a0 = qp_stats(e.qp[0][0]);
		a1 = qp_stats(e.qp[0][1]);
		b0 = qp_stats(e.qp[1][0]);
		ROCE_TEST_ASSERT_EQ(rte_roce_stats_get(e.s[0].ctx, &dev_a), 0, "stats a");
		ROCE_TEST_ASSERT_EQ(rte_roce_stats_get(e.s[1].ctx, &dev_b), 0, "stats b");
		ROCE_TEST_ASSERT_EQ(a0.sent_pkts, STATS_MSGS * STATS_PKTS_PER_MSG, "requester sent");
		ROCE_TEST_ASSERT_EQ(b0.rcvd_pkts, STATS_MSGS * STATS_PKTS_PER_MSG, "responder received");
		ROCE_TEST_ASSERT(b0.sent_pkts >= 1 && b0.sent_pkts == a0.rcvd_pkts,
				 "ACKs: %" PRIu64 " sent, %" PRIu64 " received", b0.sent_pkts, a0.rcvd_pkts);
		ROCE_TEST_ASSERT_EQ(a1.sent_pkts + a1.rcvd_pkts, 0, "idle QP counted");
		ROCE_TEST_ASSERT_EQ(a0.completer_retry_err + a0.local_ack_timeout_err, 0, "retries without loss");
		ROCE_TEST_ASSERT(memcmp(&dev_a, &a0, sizeof(a0)) == 0, "device a is not the sum of its QPs");
		ROCE_TEST_ASSERT(memcmp(&dev_b, &b0, sizeof(b0)) == 0, "device b is not the sum of its QPs");
		/* The same values by name, rxe's and mlx5's. */
		ROCE_TEST_ASSERT_EQ(xstat(e.s[0].ctx, "sent_pkts"), a0.sent_pkts, "sent_pkts by name");
		ROCE_TEST_ASSERT_EQ(xstat(e.s[1].ctx, "rcvd_pkts"), b0.rcvd_pkts, "rcvd_pkts by name");
		ROCE_TEST_ASSERT_EQ(xstat(e.s[1].ctx, "out_of_sequence"),
				    xstat(e.s[1].ctx, "out_of_seq_request"), "mlx5 alias");
		ROCE_TEST_ASSERT(xstat(e.s[0].ctx, "port_tx_packets") >= a0.sent_pkts, "port counters");
		ROCE_TEST_ASSERT_EQ(xstat(e.s[0].ctx, "icrc_err"), 0, "ICRC errors");
		ret = check_xstats(e.s[0].ctx);
	}
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(rte_roce_stats_reset(e.s[0].ctx), 0, "reset");
		a0 = qp_stats(e.qp[0][0]);
		ROCE_TEST_ASSERT_EQ(a0.sent_pkts + a0.rcvd_pkts, 0, "QP counters after reset");
		ROCE_TEST_ASSERT_EQ(xstat(e.s[0].ctx, "sent_pkts"), 0, "device after reset");
		ROCE_TEST_ASSERT_EQ(xstat(e.s[0].ctx, "port_tx_packets"), 0, "port after reset");
	}
	return roce_test_env_close(&e) | ret;
}

/* Pump both devices until side's device counts name >= want; its value. */
static uint64_t
pump_until(struct roce_test_env *e, unsigned int side, const char *name, uint64_t want)
{
	uint64_t end = roce_test_ms() + ROCE_TEST_WAIT_MS;

	while (xstat(e->s[side].ctx, name) < want && roce_test_ms() < end)
		roce_test_pump_env(e);
	return xstat(e->s[side].ctx, name);
}

/* rdma_sends / rdma_recvs: SEND WRs completed at a, receive completions at b. */
static int
rxe_sends_recvs(struct roce_test_env *e)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_SEND_WITH_INV,
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
	};
	struct rte_roce_stats a, b;
	unsigned int i;

	for (i = 0; i < RTE_DIM(ops); i++)
		if (roce_test_transfer(e, 0, 0, ops[i], STATS_SHORT, ROCE_TEST_DATA_OFF, i) != 0)
			return -1;
	a = qp_stats(e->qp[0][0]);
	b = qp_stats(e->qp[1][0]);
	ROCE_TEST_ASSERT_EQ(a.rdma_sends, 4, "SENDs completed at a");
	ROCE_TEST_ASSERT_EQ(b.rdma_recvs, 5, "receive completions at b (4 SENDs, 1 WRITE_WITH_IMM)");
	ROCE_TEST_ASSERT_EQ(a.rdma_recvs + b.rdma_sends, 0, "the other way");
	ROCE_TEST_ASSERT_EQ(xstat(e->s[0].ctx, "rdma_sends"), 4, "rdma_sends by name");
	ROCE_TEST_ASSERT_EQ(xstat(e->s[1].ctx, "rdma_recvs"), 5, "rdma_recvs by name");
	return 0;
}

/*
 * RC SEND without a receive WQE: exactly one RNR NAK for lack of a WQE
 * (out_of_buffer 1, send_rnr_err 1 at b; rcvd_rnr_err 1 at a), then the
 * WQE is posted before a retries and the SEND is taken.
 */
static int
rc_out_of_buffer(struct roce_test_env *e)
{
	struct roce_test_side *a = &e->s[0], *b = &e->s[1];
	struct ibv_wc wc;

	ROCE_TEST_ASSERT_EQ(roce_test_post_send(e->qp[0][0], IBV_WR_SEND, 1, a->buf, STATS_SHORT,
						a->mr->lkey, 0, 0, IBV_SEND_SIGNALED), 0, "post_send");
	/* Inline mode, one thread: no pump after the NAK, so a cannot retry before the WQE is there. */
	ROCE_TEST_ASSERT_EQ(pump_until(e, 1, "send_rnr_err", 1), 1, "one RNR NAK");
	ROCE_TEST_ASSERT_EQ(roce_test_post_recv(e->qp[1][0], 1, b->buf, STATS_SHORT, b->mr->lkey), 0,
			    "post_recv");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, b->rcq, &wc, 1), 1, "received");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, a->scq, &wc, 1), 1, "sent");
	ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_SUCCESS, "send status");
	ROCE_TEST_ASSERT_EQ(qp_stats(e->qp[1][0]).out_of_buffer, 1, "out_of_buffer at b");
	ROCE_TEST_ASSERT_EQ(xstat(b->ctx, "out_of_buffer"), 1, "out_of_buffer by name");
	ROCE_TEST_ASSERT_EQ(xstat(b->ctx, "send_rnr_err"), 1, "RNR NAKs sent");
	ROCE_TEST_ASSERT_EQ(xstat(b->ctx, "cq_full_rnr_sent"), 0, "none for a full CQ");
	ROCE_TEST_ASSERT_EQ(xstat(a->ctx, "rcvd_rnr_err"), 1, "RNR NAKs received");
	ROCE_TEST_ASSERT_EQ(xstat(a->ctx, "out_of_buffer"), 0, "nothing at a");
	return 0;
}

/* One UD SEND from ud[0] to ud[1]; recv: post a receive WQE first. */
static int
ud_send_one(struct roce_test_env *e, struct ibv_qp *const ud[2], struct ibv_ah *ah, bool recv)
{
	struct roce_test_side *a = &e->s[0], *b = &e->s[1];
	struct ibv_sge sge = { .addr = (uintptr_t)a->buf, .length = STATS_UD_LEN, .lkey = a->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ud[1]->qp_num;
	wr.wr.ud.remote_qkey = STATS_UD_QKEY;
	if (recv)
		ROCE_TEST_ASSERT_EQ(roce_test_post_recv(ud[1], 0, b->buf, STATS_SHORT, b->mr->lkey), 0,
				    "UD post_recv");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(ud[0], &wr, &bad), 0, "UD post_send");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, a->scq, &wc, 1), 1, "UD sent");
	if (recv)
		ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, b->rcq, &wc, 1), 1, "UD received");
	else
		ROCE_TEST_ASSERT_EQ(pump_until(e, 1, "rx_drop_no_recv_wqe", 1), 1, "UD dropped");
	return 0;
}

/* UD SEND without a receive WQE: dropped, out_of_buffer 1; with one: rdma_recvs 1. */
static int
ud_out_of_buffer(struct roce_test_env *e)
{
	struct ibv_qp *ud[2] = { NULL, NULL };
	struct ibv_ah *ah = NULL;
	int ret = -1;

	if (roce_test_qp_create(&e->s[0], IBV_QPT_UD, &ud[0]) == 0 &&
	    roce_test_qp_create(&e->s[1], IBV_QPT_UD, &ud[1]) == 0 &&
	    roce_test_ud_qp_ready(ud[0], STATS_UD_QKEY) == 0 &&
	    roce_test_ud_qp_ready(ud[1], STATS_UD_QKEY) == 0)
		ah = roce_test_ah_create(&e->s[0], ROCE_TEST_ADDR_B);
	if (ah != NULL && ud_send_one(e, ud, ah, false) == 0 && ud_send_one(e, ud, ah, true) == 0)
		ret = 0;
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(qp_stats(ud[1]).out_of_buffer, 1, "UD out_of_buffer");
		ROCE_TEST_ASSERT_EQ(qp_stats(ud[1]).rdma_recvs, 1, "UD rdma_recvs");
		ROCE_TEST_ASSERT_EQ(qp_stats(ud[0]).rdma_sends, 2, "UD rdma_sends");
	}
	if (ah != NULL && rte_roce_destroy_ah(ah) != 0)
		ret = -1;
	if ((ud[0] != NULL && rte_roce_destroy_qp(ud[0]) != 0) ||
	    (ud[1] != NULL && rte_roce_destroy_qp(ud[1]) != 0))
		ret = -1;
	return ret;
}

/* Link down and up on a: link_downed 1 (with the PORT_ERR event), not moved by the way up. */
static int
link_downed(struct roce_test_env *e)
{
	uint64_t end;

	ROCE_TEST_ASSERT_EQ(rte_eth_dev_set_link_down(roce_test_verbs_pair.a), 0, "link down");
	end = roce_test_ms() + STATS_LINK_MS;
	while (xstat(e->s[0].ctx, "link_downed") == 0 && roce_test_ms() < end)
		roce_test_pump_env(e);
	ROCE_TEST_ASSERT_EQ(rte_eth_dev_set_link_up(roce_test_verbs_pair.a), 0, "link up");
	ROCE_TEST_ASSERT_EQ(xstat(e->s[0].ctx, "link_downed"), 1, "link_downed");
	end = roce_test_ms() + 2 * ROCE_TEST_QUIET_MS;
	while (roce_test_ms() < end)
		roce_test_pump_env(e);
	ROCE_TEST_ASSERT_EQ(xstat(e->s[0].ctx, "link_downed"), 1, "link_downed after up");
	ROCE_TEST_ASSERT_EQ(xstat(e->s[1].ctx, "link_downed"), 0, "b's link stayed up");
	return 0;
}

/*
 * The counters rxe and mlx5 users read that need a provoking event, each
 * with its exact count over real traffic; ack_deferred stays 0 with one
 * lane (a response is always taken at once on receipt).
 */
static int
test_stats_rxe_mlx5(void)
{
	struct roce_test_env e;
	int ret;

	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	if (ret == 0 && (rte_roce_stats_reset(e.s[0].ctx) != 0 || rte_roce_stats_reset(e.s[1].ctx) != 0))
		ret = -1;
	if (ret == 0)
		ret = rxe_sends_recvs(&e);
	if (ret == 0)
		ret = rc_out_of_buffer(&e);
	if (ret == 0)
		ret = ud_out_of_buffer(&e);
	if (ret == 0)
		ret = link_downed(&e);
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(xstat(e.s[0].ctx, "ack_deferred") + xstat(e.s[1].ctx, "ack_deferred"),
				    0, "ack_deferred with one lane");
		ROCE_TEST_ASSERT_EQ(xstat(e.s[0].ctx, "send_cq_full_stalls"), 0, "no stall, big CQ");
	}
	return roce_test_env_close(&e) | ret;
}

/* Every NULL refused with -EINVAL; an unknown name with -ENOENT. */
static int
test_stats_misuse(void)
{
	struct rte_roce_stats s;
	struct roce_test_env e;
	uint64_t v;
	int ret;

	ROCE_TEST_ASSERT_EQ(rte_roce_stats_get(NULL, &s), -EINVAL, "stats_get(NULL)");
	ROCE_TEST_ASSERT_EQ(rte_roce_stats_reset(NULL), -EINVAL, "stats_reset(NULL)");
	ROCE_TEST_ASSERT_EQ(rte_roce_qp_stats_get(NULL, &s), -EINVAL, "qp_stats_get(NULL)");
	ROCE_TEST_ASSERT_EQ(rte_roce_xstats_names_get(NULL, NULL, 0), -EINVAL, "names_get(NULL)");
	ROCE_TEST_ASSERT_EQ(rte_roce_xstats_get(NULL, NULL, 0), -EINVAL, "xstats_get(NULL)");
	ROCE_TEST_ASSERT_EQ(rte_roce_xstats_get_by_name(NULL, "sent_pkts", &v), -EINVAL, "by_name(NULL)");
	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(rte_roce_stats_get(e.s[0].ctx, NULL), -EINVAL, "stats_get(, NULL)");
		ROCE_TEST_ASSERT_EQ(rte_roce_qp_stats_get(e.qp[0][0], NULL), -EINVAL, "qp_stats_get(, NULL)");
		ROCE_TEST_ASSERT_EQ(rte_roce_xstats_get_by_name(e.s[0].ctx, NULL, &v), -EINVAL, "NULL name");
		ROCE_TEST_ASSERT_EQ(rte_roce_xstats_get_by_name(e.s[0].ctx, "sent_pkts", NULL), -EINVAL,
				    "NULL value");
		ROCE_TEST_ASSERT_EQ(rte_roce_xstats_get_by_name(e.s[0].ctx, "no_such_counter", &v), -ENOENT,
				    "unknown name");
		ROCE_TEST_ASSERT_EQ(rte_roce_xstats_get_by_name(e.s[0].ctx, "rx_drop_", &v), -ENOENT,
				    "a prefix is no name");
	}
	return roce_test_env_close(&e) | ret;
}

/* Lines of a failing call, captured from rte_log. */
static int
log_of_create_cq(char *out, size_t size)
{
	FILE *saved = rte_log_get_stream();
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	mem = open_memstream(&text, &len);
	if (mem == NULL)
		return -1;
	rte_openlog_stream(mem);
	rte_roce_create_cq(NULL, 1, NULL, NULL, 0);
	rte_openlog_stream(saved);
	fclose(mem);
	snprintf(out, size, "%s", text != NULL ? text : "");
	free(text);
	return 0;
}

/* The CQ calls log under lib.roce.cq, with their prefix, and obey its level. */
static int
test_log_subtypes(void)
{
	char line[256];
	int type = rte_log_register("lib.roce.cq");

	ROCE_TEST_ASSERT(type >= 0, "lib.roce.cq not registered");
	ROCE_TEST_ASSERT(rte_log_register("lib.roce.qp") >= 0 && rte_log_register("lib.roce.mr") >= 0 &&
			 rte_log_register("lib.roce.event") >= 0, "sub-types missing");
	ROCE_TEST_ASSERT_EQ(log_of_create_cq(line, sizeof(line)), 0, "capture");
	ROCE_TEST_ASSERT(strstr(line, "ROCE cq: rte_roce_create_cq(): ") != NULL, "line: %s", line);
	ROCE_TEST_ASSERT_EQ(rte_log_set_level_pattern("lib.roce.cq", RTE_LOG_CRIT), 0, "level");
	ROCE_TEST_ASSERT_EQ(log_of_create_cq(line, sizeof(line)), 0, "capture");
	rte_log_set_level_pattern("lib.roce.cq", RTE_LOG_INFO);
	ROCE_TEST_ASSERT(line[0] == '\0', "logged above its sub-type's level: %s", line);
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "log_subtypes", test_log_subtypes },
	{ "stats_count", test_stats_count },
	{ "stats_misuse", test_stats_misuse },
	{ "stats_rxe_mlx5", test_stats_rxe_mlx5 },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&roce_test_verbs_pair, "stats") != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
