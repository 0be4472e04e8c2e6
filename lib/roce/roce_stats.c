/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Counters by name. One table maps every exported name to where its value
 * lives (which structure, which offset), as ethdev's xstats tables do; the
 * engines only increment fields, never names. Names follow rxe
 * (K:rxe_hw_counters.c) and, where mlx5 names the same event differently,
 * the mlx5 name is exported as well (K:mlx5/counters.c); the mapping and the
 * meaning of each are in doc/observability.md.
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rte_roce_port.h"
#include "rte_roce_pkt.h"
#include "roce_log.h"
#include "roce_qp.h"
#include "roce_lane.h"
#include "roce_stats.h"
#include "roce_worker.h"

/* One name, or an array of counters named prefix + name_of(i). */
struct roce_xstat_def {
	const char *name;
	enum roce_xstat_src src;
	size_t offset;
	unsigned int count;
	const char *(*name_of)(unsigned int i);
};

static const char *const rx_drop_names[ROCE_RX_DROP_MAX] = {
	[ROCE_RX_DROP_PARSE] = "parse",
	[ROCE_RX_DROP_NO_QP] = "no_qp",
	[ROCE_RX_DROP_TRANSPORT] = "transport",
	[ROCE_RX_DROP_QP_STATE] = "qp_state",
	[ROCE_RX_DROP_ADDR] = "addr",
	[ROCE_RX_DROP_PKEY] = "pkey",
	[ROCE_RX_DROP_RESP_STALE] = "resp_stale",
	[ROCE_RX_DROP_REQ_DUP] = "req_dup",
	[ROCE_RX_DROP_REQ_AHEAD] = "req_ahead",
	[ROCE_RX_DROP_UC_MSG] = "uc_msg",
	[ROCE_RX_DROP_QKEY] = "qkey",
	[ROCE_RX_DROP_NO_RECV_WQE] = "no_recv_wqe",
	[ROCE_RX_DROP_MCAST] = "mcast",
};

static const char *
rx_drop_name(unsigned int i)
{
	return rx_drop_names[i];
}

static const char *
port_drop_name(unsigned int i)
{
	return rte_roce_port_drop_name(i);
}

/* The parser's reasons from 1: RTE_ROCE_DROP_NONE counts nothing. */
static const char *
malformed_name(unsigned int i)
{
	return rte_roce_drop_reason_name(i + 1);
}

#define QP(n, f) { n, XS_QP, offsetof(struct rte_roce_stats, f), 1, NULL }
#define ENGINE(n, f) { n, XS_ENGINE, offsetof(struct roce_transport_stats, f), 1, NULL }
#define DEV(n, f) { n, XS_DEV, offsetof(struct roce_dev_stats, f), 1, NULL }
#define PORT(n, f) { n, XS_PORT, offsetof(struct rte_roce_port_stats, f), 1, NULL }

static const struct roce_xstat_def xstat_defs[] = {
	/* rxe's names (K:rxe_hw_counters.c). */
	QP("sent_pkts", sent_pkts),
	QP("rcvd_pkts", rcvd_pkts),
	QP("duplicate_request", duplicate_request),
	QP("out_of_seq_request", out_of_seq_request),
	QP("rcvd_rnr_err", rcvd_rnr_err),
	QP("send_rnr_err", send_rnr_err),
	QP("rcvd_seq_err", rcvd_seq_err),
	QP("retry_exceeded_err", retry_exceeded_err),
	QP("retry_rnr_exceeded_err", retry_rnr_exceeded_err),
	QP("completer_retry_err", completer_retry_err),
	QP("ack_deferred", ack_deferred),
	ENGINE("send_err", tx_errors),
	ENGINE("tx_no_mbuf", tx_no_mbuf),
	ENGINE("link_downed", link_downed),
	QP("rdma_sends", rdma_sends),
	QP("rdma_recvs", rdma_recvs),
	/* mlx5's names for the same events (K:mlx5/counters.c). */
	QP("out_of_sequence", out_of_seq_request),
	QP("packet_seq_err", rcvd_seq_err),
	QP("rnr_nak_retry_err", rcvd_rnr_err),
	QP("local_ack_timeout_err", local_ack_timeout_err),
	QP("implied_nak_seq_err", implied_nak_seq_err),
	QP("req_transport_retries_exceeded", retry_exceeded_err),
	QP("req_rnr_retries_exceeded", retry_rnr_exceeded_err),
	QP("out_of_buffer", out_of_buffer),
	/* Our own. */
	ENGINE("seq_naks_sent", seq_naks_out),
	ENGINE("cq_full_rnr_sent", cq_full_rnr),
	QP("send_cq_full_stalls", send_cq_full_stalls),
	DEV("polls", polls),
	DEV("rx_frames", rx_frames),
	DEV("qp_runs", qp_runs),
	DEV("cq_overflows", cq_overflows),
	DEV("handoffs_out", handoffs_out),
	DEV("handoffs_in", handoffs_in),
	DEV("handoff_drops", handoff_drops),
	DEV("timer_defers", timer_defers),
	{ "rx_drop_", XS_ENGINE, offsetof(struct roce_transport_stats, rx_drops), ROCE_RX_DROP_MAX,
	  rx_drop_name },
	PORT("icrc_err", roce_drops[RTE_ROCE_DROP_ICRC]),
	{ "malformed_", XS_PORT, offsetof(struct rte_roce_port_stats, roce_drops[1]),
	  RTE_ROCE_DROP_REASON_MAX - 1, malformed_name },
	PORT("port_rx_packets", rx_packets),
	PORT("port_rx_bytes", rx_bytes),
	PORT("port_rx_roce_packets", rx_roce_packets),
	PORT("port_tx_packets", tx_packets),
	PORT("port_tx_bytes", tx_bytes),
	PORT("port_tx_backlogged", tx_backlogged),
	PORT("port_arp_requests_in", arp_requests_in),
	PORT("port_arp_replies_in", arp_replies_in),
	PORT("port_arp_requests_out", arp_requests_out),
	PORT("port_arp_replies_out", arp_replies_out),
	PORT("port_nd_solicits_in", nd_solicits_in),
	PORT("port_nd_adverts_in", nd_adverts_in),
	PORT("port_nd_solicits_out", nd_solicits_out),
	PORT("port_nd_adverts_out", nd_adverts_out),
	PORT("port_icmp_echo_in", icmp_echo_in),
	PORT("port_icmp_echo_out", icmp_echo_out),
	PORT("port_icmp_echo_replies_in", icmp_echo_replies_in),
	PORT("port_neigh_misses", neigh_misses),
	PORT("port_neigh_resolved", neigh_resolved),
	PORT("port_neigh_failed", neigh_failed),
	PORT("port_neigh_expired", neigh_expired),
	PORT("port_neigh_queue_drops", neigh_queue_drops),
	PORT("port_neigh_probes", neigh_probes),
	PORT("port_neigh_refreshed", neigh_refreshed),
	PORT("port_neigh_probe_failed", neigh_probe_failed),
	PORT("port_slow_handoffs", slow_handoffs),
	PORT("port_slow_handoff_drops", slow_handoff_drops),
	PORT("port_tx_handoffs", tx_handoffs),
	PORT("port_tx_handoff_drops", tx_handoff_drops),
	{ "port_drop_", XS_PORT, offsetof(struct rte_roce_port_stats, drops), RTE_ROCE_PORT_DROP_MAX,
	  port_drop_name },
};

unsigned int
roce_xstats_count(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < RTE_DIM(xstat_defs); i++)
		n += xstat_defs[i].count;
	return n;
}

/* The definition extended statistic i belongs to; *elem is its index in it. */
static const struct roce_xstat_def *
xstat_def(unsigned int i, unsigned int *elem)
{
	unsigned int d;

	for (d = 0; d < RTE_DIM(xstat_defs); d++) {
		if (i < xstat_defs[d].count) {
			*elem = i;
			return &xstat_defs[d];
		}
		i -= xstat_defs[d].count;
	}
	return NULL;
}

const char *
roce_xstat_name(unsigned int i, char *buf, size_t size)
{
	const struct roce_xstat_def *def = xstat_def(i, &i);

	if (def->name_of == NULL)
		return def->name;
	snprintf(buf, size, "%s%s", def->name, def->name_of(i));
	return buf;
}

enum roce_xstat_src
roce_xstat_src(unsigned int i)
{
	return xstat_def(i, &i)->src;
}

/* A relaxed load: the progress thread may be writing it. */
static uint64_t
xstat_load(const void *base, const struct roce_xstat_def *def, unsigned int elem)
{
	return __atomic_load_n((const uint64_t *)((const char *)base + def->offset) + elem,
			       __ATOMIC_RELAXED);
}

uint64_t
roce_xstat_qp_value(const struct rte_roce_stats *stats, unsigned int i)
{
	const struct roce_xstat_def *def = xstat_def(i, &i);

	return xstat_load(stats, def, i);
}

/* Where a lane keeps the counters of src. */
static const void *
xstat_lane_base(const struct roce_lane *lane, enum roce_xstat_src src)
{
	switch (src) {
	case XS_QP:
		return &lane->xstats.qp;
	case XS_ENGINE:
		return &lane->xstats;
	default:
		return &lane->stats;
	}
}

uint64_t
roce_xstat_value(struct roce_dev *dev, const struct rte_roce_port_stats *port, unsigned int i)
{
	const struct roce_xstat_def *def = xstat_def(i, &i);
	uint64_t sum = 0;
	uint16_t l;

	if (def->src == XS_PORT)
		return xstat_load(port, def, i);
	/* Each lane writes its own; the device's value is their sum. */
	for (l = 0; l < dev->nb_lanes; l++)
		sum += xstat_load(xstat_lane_base(&dev->lanes[l], def->src), def, i);
	return sum;
}

/* Add the counters of src (a structure of uint64_t a lane is writing) to sum. */
static void
roce_stats_add(struct rte_roce_stats *sum, const struct rte_roce_stats *src)
{
	const unsigned int n = sizeof(*sum) / sizeof(uint64_t);
	const uint64_t *in = (const uint64_t *)src;
	uint64_t *out = (uint64_t *)sum;
	unsigned int c;

	RTE_BUILD_BUG_ON(sizeof(*sum) % sizeof(uint64_t) != 0);
	for (c = 0; c < n; c++)
		out[c] += __atomic_load_n(&in[c], __ATOMIC_RELAXED);
}

/* Sum the lanes' struct rte_roce_stats. */
static void
roce_stats_lanes_sum(const struct roce_dev *dev, struct rte_roce_stats *sum)
{
	uint16_t l;

	memset(sum, 0, sizeof(*sum));
	for (l = 0; l < dev->nb_lanes; l++)
		roce_stats_add(sum, &dev->lanes[l].xstats.qp);
}

int
rte_roce_stats_get(struct ibv_context *ctx, struct rte_roce_stats *stats)
{
	if (ctx == NULL || stats == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	roce_stats_lanes_sum(roce_dev_of(ctx), stats);
	return 0;
}

int
rte_roce_stats_reset(struct ibv_context *ctx)
{
	struct roce_dev *dev;
	uint32_t slot;
	uint16_t l;
	int ret;

	if (ctx == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	dev = roce_dev_of(ctx);
	/* The counters' writers stand still meanwhile (worker mode: parked). */
	roce_ctrl_begin(dev);
	for (l = 0; l < dev->nb_lanes; l++) {
		memset(&dev->lanes[l].xstats, 0, sizeof(dev->lanes[l].xstats));
		memset(&dev->lanes[l].stats, 0, sizeof(dev->lanes[l].stats));
	}
	for (slot = 0; slot <= dev->qp_mask; slot++)
		if (dev->qp_tbl[slot] != NULL)
			memset(&dev->qp_tbl[slot]->stats, 0, sizeof(dev->qp_tbl[slot]->stats));
	ret = rte_roce_port_stats_reset(dev->port);
	roce_ctrl_end(dev);
	return ret;
}

int
rte_roce_qp_stats_get(struct ibv_qp *qp, struct rte_roce_stats *stats)
{
	if (qp == NULL || stats == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	memset(stats, 0, sizeof(*stats));
	roce_stats_add(stats, &roce_qp_of(qp)->stats);
	return 0;
}

int
rte_roce_xstats_names_get(struct ibv_context *ctx, struct rte_roce_xstat_name *names,
			  unsigned int size)
{
	unsigned int i, n = roce_xstats_count();
	const char *name;

	if (ctx == NULL) {
		ROCE_LOG(ERR, "NULL device");
		return -EINVAL;
	}
	if (names == NULL || size < n)
		return n;
	for (i = 0; i < n; i++) {
		name = roce_xstat_name(i, names[i].name, sizeof(names[i].name));
		if (name != names[i].name)
			snprintf(names[i].name, sizeof(names[i].name), "%s", name);
	}
	return n;
}

/*
 * The port's counters are plain fields of the queues' owners (the lanes), and
 * a port's calls run while no queue is driven by another thread
 * (roce_port.c): the lanes are parked while they are read.
 */
void
roce_port_stats_read(struct roce_dev *dev, struct rte_roce_port_stats *port)
{
	roce_ctrl_begin(dev);
	rte_roce_port_stats_get(dev->port, port);
	roce_ctrl_end(dev);
}

int
rte_roce_xstats_get(struct ibv_context *ctx, struct rte_roce_xstat *xstats, unsigned int n)
{
	unsigned int i, count = roce_xstats_count();
	struct rte_roce_port_stats port;
	struct roce_dev *dev;

	if (ctx == NULL) {
		ROCE_LOG(ERR, "NULL device");
		return -EINVAL;
	}
	if (xstats == NULL || n < count)
		return count;
	dev = roce_dev_of(ctx);
	roce_port_stats_read(dev, &port);
	for (i = 0; i < count; i++) {
		xstats[i].id = i;
		xstats[i].value = roce_xstat_value(dev, &port, i);
	}
	return count;
}

int
rte_roce_xstats_get_by_name(struct ibv_context *ctx, const char *name, uint64_t *value)
{
	char buf[RTE_ROCE_XSTATS_NAME_SIZE];
	struct rte_roce_port_stats port;
	unsigned int i, n = roce_xstats_count();
	struct roce_dev *dev;

	if (ctx == NULL || name == NULL || value == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	dev = roce_dev_of(ctx);
	for (i = 0; i < n; i++) {
		if (strcmp(roce_xstat_name(i, buf, sizeof(buf)), name) == 0) {
			roce_port_stats_read(dev, &port);
			*value = roce_xstat_value(dev, &port, i);
			return 0;
		}
	}
	ROCE_LOG(ERR, "no counter named %s", name);
	return -ENOENT;
}
