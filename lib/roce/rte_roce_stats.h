/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_STATS_H
#define RTE_ROCE_STATS_H

/**
 * @file
 * Counters of a librte_roce device, of its port and of each QP.
 *
 * Names follow the kernel's Soft-RoCE (rdma_rxe, rxe_hw_counters.c) and,
 * where ConnectX (mlx5, counters.c) names the same event differently, the
 * mlx5 name is exported too, so that `rdma statistic` habits carry over.
 * doc/observability.md has the mapping table and says what each counts.
 *
 * Two views, as ethdev has them:
 * - struct rte_roce_stats: the transport counters, per device
 *   (rte_roce_stats_get()) and per QP (rte_roce_qp_stats_get());
 * - extended statistics: every counter of the device and its port by name
 *   (rte_roce_xstats_names_get(), rte_roce_xstats_get()), also served by
 *   DPDK telemetry under /roce/stats.
 *
 * Counters are written only by the thread that drives the device's progress;
 * they are read without stopping it, so a read from another thread may be a
 * few events behind but never torn (each is one aligned 64-bit word).
 */

#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest counter name, NUL included. */
#define RTE_ROCE_XSTATS_NAME_SIZE 64

/**
 * Transport counters, rxe's names. A device's are the sums over its QPs,
 * destroyed QPs included, since the last reset.
 */
struct rte_roce_stats {
	uint64_t sent_pkts;              /**< frames the engine handed to the port */
	uint64_t rcvd_pkts;              /**< frames that passed the QP checks and reached an engine role */
	uint64_t duplicate_request;      /**< duplicate requests answered again (responder) */
	uint64_t out_of_seq_request;     /**< requests ahead of the expected PSN (responder; mlx5 out_of_sequence) */
	uint64_t rcvd_rnr_err;           /**< RNR NAKs received (requester; mlx5 rnr_nak_retry_err) */
	uint64_t send_rnr_err;           /**< RNR NAKs sent (responder) */
	uint64_t rcvd_seq_err;           /**< PSN sequence error NAKs received (mlx5 packet_seq_err) */
	uint64_t completer_retry_err;    /**< go-back-N retries started, for any cause */
	uint64_t retry_exceeded_err;     /**< WQEs completed with IBV_WC_RETRY_EXC_ERR */
	uint64_t retry_rnr_exceeded_err; /**< WQEs completed with IBV_WC_RNR_RETRY_EXC_ERR */
	uint64_t local_ack_timeout_err;  /**< local ACK timer expiries that retried (mlx5 name) */
	uint64_t implied_nak_seq_err;    /**< responses implying a lost READ/atomic response (mlx5 name) */
	/**
	 * Responses (ACK, READ response, atomic ACK) the completer could not
	 * take at once on receipt and found queued, as rxe's ack_deferred
	 * (RXE_CNT_COMPLETER_SCHED: a response queued behind another for the
	 * completer task). Here: responses handed from the lane that
	 * received them to the QP's lane; 0 with one lane.
	 */
	uint64_t ack_deferred;
	/**
	 * Messages that found no receive WQE (mlx5 out_of_buffer): RC, each
	 * RNR NAK sent for lack of a WQE (not those for a full receive CQ);
	 * UC and UD, each message dropped for lack of a WQE.
	 */
	uint64_t out_of_buffer;
	/** SEND WRs (with immediate, with invalidate) completed, any status, flushes included (rxe rdma_sends) */
	uint64_t rdma_sends;
	/** Receive completions in success: SEND and RDMA WRITE with immediate received (rxe rdma_recvs) */
	uint64_t rdma_recvs;
	/**
	 * Progress passes that found the QP held for want of room in its send
	 * CQ: a WQE not started, or a flush completion not pushed (our own
	 * name; back-pressure instead of a CQ overrun).
	 */
	uint64_t send_cq_full_stalls;
};

/** Name of one extended statistic; its index is its id. */
struct rte_roce_xstat_name {
	char name[RTE_ROCE_XSTATS_NAME_SIZE]; /**< snake_case, unique */
};

/** Value of one extended statistic. */
struct rte_roce_xstat {
	uint64_t id;    /**< index into the names of rte_roce_xstats_names_get() */
	uint64_t value; /**< the counter */
};

/**
 * Read a device's transport counters.
 *
 * @param ctx
 *   A device from rte_roce_open_device().
 * @param stats
 *   Filled with the sums over the device's QPs, destroyed ones included.
 * @return
 *   0, or -EINVAL if ctx or stats is NULL.
 */
int rte_roce_stats_get(struct ibv_context *ctx, struct rte_roce_stats *stats);

/**
 * Zero every counter of a device: its transport and engine counters, those
 * of each of its QPs and those of its port. A control call: from any
 * thread; in worker mode the workers are parked meanwhile.
 *
 * @param ctx
 *   A device from rte_roce_open_device().
 * @return
 *   0, or -EINVAL if ctx is NULL.
 */
int rte_roce_stats_reset(struct ibv_context *ctx);

/**
 * Read one QP's transport counters.
 *
 * @param qp
 *   A QP from rte_roce_create_qp() or rte_roce_create_qp1().
 * @param stats
 *   Filled with the QP's counters since its creation or the last reset.
 * @return
 *   0, or -EINVAL if qp or stats is NULL.
 */
int rte_roce_qp_stats_get(struct ibv_qp *qp, struct rte_roce_stats *stats);

/**
 * Names of the extended statistics of a device, as rte_eth_xstats_get_names():
 * call with names NULL (or size too small) to learn how many there are.
 *
 * @param ctx
 *   A device from rte_roce_open_device().
 * @param names
 *   Array of size entries, or NULL.
 * @param size
 *   Entries in names.
 * @return
 *   The number of extended statistics (written only if it is <= size), or
 *   -EINVAL if ctx is NULL.
 */
int rte_roce_xstats_names_get(struct ibv_context *ctx, struct rte_roce_xstat_name *names,
			      unsigned int size);

/**
 * Values of the extended statistics of a device, in the order of their names.
 *
 * @param ctx
 *   A device from rte_roce_open_device().
 * @param xstats
 *   Array of n entries, or NULL.
 * @param n
 *   Entries in xstats.
 * @return
 *   The number of extended statistics (written only if it is <= n), or
 *   -EINVAL if ctx is NULL.
 */
int rte_roce_xstats_get(struct ibv_context *ctx, struct rte_roce_xstat *xstats, unsigned int n);

/**
 * Value of one extended statistic found by name.
 *
 * @param ctx
 *   A device from rte_roce_open_device().
 * @param name
 *   A name rte_roce_xstats_names_get() returns.
 * @param value
 *   Set to the counter.
 * @return
 *   0, -EINVAL if an argument is NULL, -ENOENT if no statistic has that name.
 */
int rte_roce_xstats_get_by_name(struct ibv_context *ctx, const char *name, uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_STATS_H */
