/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_WORKER_H
#define ROCE_WORKER_H

/*
 * Worker mode (doc/workers.md): pinned lcores run a device's progress
 * loop, and control calls park them first (a quiescent handshake).
 *
 * The handshake is the lane's (roce_lane.c): a worker is busy from its
 * start, loads pause before every pass of its loop, and when a control
 * call holds its lane goes idle and spins until it is let go.
 */

#include <stdint.h>

#include <rte_common.h>

#include "rte_roce_worker.h"

struct roce_dev;

struct roce_worker {
	struct roce_dev *dev;
	struct roce_lane *lane;	/* what it drives: lane i for worker i */
	unsigned int lcore;
	uint32_t stop;		/* close -> worker: return */
	uint32_t running;	/* worker -> open: it started */
	struct rte_roce_worker_stats stats;	/* written by this worker only */
} __rte_cache_aligned;

/* Validate conf's workers and launch them on dev: 0 or -errno (logged). */
int roce_workers_start(struct roce_dev *dev);

/* Stop and join dev's workers (close_device, or open failing). */
void roce_workers_stop(struct roce_dev *dev);

#endif /* ROCE_WORKER_H */
