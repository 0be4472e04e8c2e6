/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Worker mode (doc/workers.md): the device's lanes on pinned lcores
 * launched with rte_eal_remote_launch(), parked around control calls by
 * the lane's handshake (roce_lane.c), and the workers' counters.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "roce_dev.h"
#include "roce_lane.h"
#include "roce_log.h"
#include "roce_port_queue.h"
#include "roce_worker.h"

/* Counters are written by their worker alone and read by any thread: relaxed atomic stores. */
static inline void
roce_worker_count(uint64_t *counter, uint64_t n)
{
	__atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

/* Parked for a control call: nothing of the device is touched until the lane is let go. */
static void
roce_worker_park(struct roce_worker *w)
{
	/* A parked lane reports no quiescent state: let neighbour-cache reclamation go on without it. */
	roce_port_queue_offline(w->dev->port, w->lane->id);
	roce_worker_count(&w->stats.ctrl_pauses, 1);
	roce_lane_park(w->lane);
}

static int
roce_worker_main(void *arg)
{
	struct roce_worker *w = arg;
	int work;

	roce_lane_busy(w->lane);
	__atomic_store_n(&w->running, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE) == 0) {
		if (roce_lane_held(w->lane)) {
			roce_worker_park(w);
			continue;
		}
		work = roce_dev_progress(w->lane);
		roce_worker_count(&w->stats.loops, 1);
		if (work > 0) {
			roce_worker_count(&w->stats.busy_loops, 1);
			roce_worker_count(&w->stats.work, (uint64_t)work);
		}
	}
	roce_lane_idle(w->lane);
	/* Last access to the device: pairs with the ACQUIRE in roce_workers_stop(). */
	__atomic_store_n(&w->running, 0, __ATOMIC_RELEASE);
	return 0;
}

/* An lcore that can be a worker: 0, -EINVAL or -EBUSY (logged). */
static int
roce_worker_lcore_check(const struct rte_roce_dev_conf *conf, unsigned int i)
{
	unsigned int lcore = conf->lcores[i];
	unsigned int j;

	if (lcore >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lcore)) {
		ROCE_LOG(ERR, "worker lcore %u is not an enabled lcore", lcore);
		return -EINVAL;
	}
	if (lcore == rte_get_main_lcore()) {
		ROCE_LOG(ERR, "worker lcore %u is the main lcore", lcore);
		return -EINVAL;
	}
	for (j = 0; j < i; j++) {
		if (conf->lcores[j] == lcore) {
			ROCE_LOG(ERR, "worker lcore %u listed twice", lcore);
			return -EINVAL;
		}
	}
	if (rte_eal_get_lcore_state(lcore) != WAIT) {
		ROCE_LOG(ERR, "worker lcore %u is running something else", lcore);
		return -EBUSY;
	}
	return 0;
}

static int
roce_workers_check(const struct rte_roce_dev_conf *conf)
{
	unsigned int i;
	int rc;

	/* nb_workers is bounded by roce_dev_conf_apply(). */
	for (i = 0; i < conf->nb_workers; i++) {
		rc = roce_worker_lcore_check(conf, i);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
roce_workers_start(struct roce_dev *dev)
{
	unsigned int i;
	int rc;

	rc = roce_workers_check(&dev->conf);
	if (rc < 0 || dev->conf.nb_workers == 0)
		return rc;
	dev->workers = rte_zmalloc_socket("roce_workers",
					  dev->conf.nb_workers * sizeof(*dev->workers),
					  RTE_CACHE_LINE_SIZE, dev->socket);
	if (dev->workers == NULL)
		return -ENOMEM;
	for (i = 0; i < dev->conf.nb_workers; i++) {
		struct roce_worker *w = &dev->workers[i];

		w->dev = dev;
		w->lane = &dev->lanes[i];
		w->lcore = dev->conf.lcores[i];
		/*
		 * What open wrote happens before the worker's first pass: its
		 * first ACQUIRE load of stop reads this RELEASE store (an edge
		 * of our own, not only the EAL's launch).
		 */
		__atomic_store_n(&w->stop, 0, __ATOMIC_RELEASE);
		rc = rte_eal_remote_launch(roce_worker_main, w, w->lcore);
		if (rc < 0) {
			ROCE_LOG(ERR, "worker lcore %u: launch failed (%d)", w->lcore, rc);
			roce_workers_stop(dev);
			return rc;
		}
		/* Counted as launched: roce_workers_stop() joins exactly these. */
		dev->nb_workers++;
		/*
		 * The EAL marks the lcore RUNNING only when its thread takes
		 * the launch: wait for that, so that a second launch on it
		 * (another device) is refused with EBUSY.
		 */
		while (__atomic_load_n(&w->running, __ATOMIC_ACQUIRE) == 0)
			rte_pause();
	}
	return 0;
}

void
roce_workers_stop(struct roce_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->nb_workers; i++)
		__atomic_store_n(&dev->workers[i].stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < dev->nb_workers; i++) {
		/* The worker's last access happens before the device is freed. */
		while (__atomic_load_n(&dev->workers[i].running, __ATOMIC_ACQUIRE) != 0)
			rte_pause();
		(void)rte_eal_wait_lcore(dev->workers[i].lcore);
	}
	dev->nb_workers = 0;
	rte_free(dev->workers);
	dev->workers = NULL;
}

int
rte_roce_dev_nb_workers(struct ibv_context *ctx)
{
	if (ctx == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	return roce_dev_of(ctx)->nb_workers;
}

static void
roce_worker_stats_add(struct rte_roce_worker_stats *sum, const struct roce_worker *w)
{
	sum->loops += __atomic_load_n(&w->stats.loops, __ATOMIC_RELAXED);
	sum->busy_loops += __atomic_load_n(&w->stats.busy_loops, __ATOMIC_RELAXED);
	sum->work += __atomic_load_n(&w->stats.work, __ATOMIC_RELAXED);
	sum->ctrl_pauses += __atomic_load_n(&w->stats.ctrl_pauses, __ATOMIC_RELAXED);
	/* The lane's own counters; its QP count changes only in control calls. */
	sum->qps += __atomic_load_n(&w->lane->nb_qps, __ATOMIC_RELAXED);
	sum->rx_frames += __atomic_load_n(&w->lane->stats.rx_frames, __ATOMIC_RELAXED);
	sum->handoffs_out += __atomic_load_n(&w->lane->stats.handoffs_out, __ATOMIC_RELAXED);
	sum->handoffs_in += __atomic_load_n(&w->lane->stats.handoffs_in, __ATOMIC_RELAXED);
	sum->handoff_drops += __atomic_load_n(&w->lane->stats.handoff_drops, __ATOMIC_RELAXED);
}

int
rte_roce_worker_stats_get(struct ibv_context *ctx, int worker, struct rte_roce_worker_stats *stats)
{
	struct roce_dev *dev;
	int i;

	if (ctx == NULL || stats == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	dev = roce_dev_of(ctx);
	if (dev->nb_workers == 0) {
		ROCE_LOG(ERR, "device %s is in inline mode: no workers", dev->ibv_dev.name);
		return -ENOTSUP;
	}
	if (worker < -1 || worker >= (int)dev->nb_workers) {
		ROCE_LOG(ERR, "worker %d: the device has %u", worker, dev->nb_workers);
		return -EINVAL;
	}
	memset(stats, 0, sizeof(*stats));
	for (i = 0; i < (int)dev->nb_workers; i++) {
		if (worker == -1 || worker == i)
			roce_worker_stats_add(stats, &dev->workers[i]);
	}
	return 0;
}
