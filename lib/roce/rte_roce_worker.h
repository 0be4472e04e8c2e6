/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_WORKER_H
#define RTE_ROCE_WORKER_H

/**
 * @file
 * Worker mode: a device's progress runs on pinned lcores instead of the
 * application's thread (doc/workers.md).
 *
 * A device is in one of two progress models, chosen when it is opened
 * (struct rte_roce_dev_conf, nb_workers and lcores):
 *  - inline (nb_workers 0): the application calls rte_roce_poll();
 *  - worker (nb_workers > 0): worker i runs the progress loop of port
 *    queue i and of the QPs whose CQs have comp_vector i;
 *    rte_roce_poll() returns 0 at once. Application threads post work
 *    requests and poll CQs through the QPs' and CQs' lock-free rings and
 *    never touch a NIC queue. A frame that arrives on a worker that does
 *    not own its QP is handed to the owner through a lock-free
 *    single-producer, single-consumer ring.
 *
 * Control calls (create, modify, query and destroy of QPs and SRQs,
 * registration of MRs, address handles, multicast attach and detach) may
 * be made from any application thread in both models: in worker mode each
 * one parks the workers (a quiescent handshake), runs, and lets them go.
 */

#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Size of the lcore list of struct rte_roce_dev_conf. */
#define RTE_ROCE_DEV_WORKERS_MAX 16

/** Counters of one worker (written by the worker only; read with rte_roce_worker_stats_get()). */
struct rte_roce_worker_stats {
	uint64_t loops;		/**< passes of the progress loop */
	uint64_t busy_loops;	/**< passes that handled a packet or a work request */
	uint64_t work;		/**< packets and work requests handled */
	/** Times the worker parked for control calls (back-to-back calls may share one). */
	uint64_t ctrl_pauses;
	uint64_t qps;		/**< QPs it runs now (their CQs' comp_vector is its index) */
	uint64_t rx_frames;	/**< RoCE frames its port queue received */
	uint64_t handoffs_out;	/**< of those, handed to the worker owning their QP */
	uint64_t handoffs_in;	/**< frames other workers handed to it */
	uint64_t handoff_drops;	/**< hand-offs dropped: the owner's ring was full */
};

/**
 * Read a worker's counters, or their sum.
 *
 * The counters are per worker and written by it alone; the sum is taken
 * when read.
 *
 * @param ctx
 *   The device.
 * @param worker
 *   Index of the worker in the device's lcore list, or -1 for the sum of all.
 * @param stats
 *   Where to write them.
 * @return
 *   0; -EINVAL (ctx or stats NULL, worker neither -1 nor below the device's
 *   nb_workers); -ENOTSUP (the device is in inline mode: it has no worker).
 */
int rte_roce_worker_stats_get(struct ibv_context *ctx, int worker,
			      struct rte_roce_worker_stats *stats);

/**
 * The number of workers of a device.
 *
 * @param ctx
 *   The device.
 * @return
 *   The number of workers (0: inline mode), or -EINVAL (ctx NULL).
 */
int rte_roce_dev_nb_workers(struct ibv_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_WORKER_H */
