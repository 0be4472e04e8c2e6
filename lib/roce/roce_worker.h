/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_WORKER_H
#define ROCE_WORKER_H

/*
 * Worker mode (doc/workers.md): pinned lcores run a device's progress
 * loop, and control calls park them first (a quiescent handshake).
 *
 * The handshake: a controller takes the device's control lock (a
 * recursive spinlock: control path only; create_qp1 calls modify_qp),
 * stores pause = 1 and waits for parked = 1; the worker, which loads pause
 * before every pass of its loop, stores parked = 1 and spins until pause
 * is 0 again. Both sides store one flag and load the other (the
 * store-load pattern), so both use sequentially consistent atomics: either
 * the worker sees the pause or the controller sees it running.
 */

#include <stdint.h>

#include <rte_common.h>

#include "rte_roce_worker.h"

struct roce_dev;

struct roce_worker {
	struct roce_dev *dev;
	struct roce_lane *lane;	/* what it drives: lane i for worker i */
	unsigned int lcore;
	uint32_t pause;		/* controller -> worker: park */
	uint32_t parked;	/* worker -> controller: parked */
	uint32_t stop;		/* close -> worker: return */
	uint32_t running;	/* worker -> open: it started */
	struct rte_roce_worker_stats stats;	/* written by this worker only */
} __rte_cache_aligned;

/* Validate conf's workers and launch them on dev: 0 or -errno (logged). */
int roce_workers_start(struct roce_dev *dev);

/* Stop and join dev's workers (close_device, or open failing). */
void roce_workers_stop(struct roce_dev *dev);

#endif /* ROCE_WORKER_H */
