/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_STATS_H
#define ROCE_STATS_H

/*
 * The registry of open devices, for the readers that start from nothing
 * (telemetry): a device is listed from open to close, under one lock that
 * also covers taking a QP out of a device's table, so that a reader holding
 * it never sees a QP or a device being freed.
 */

#include <stdint.h>

#include "rte_roce_stats.h"
#include "roce_dev.h"

/* Devices listed at once: ids are 0 .. ROCE_STATS_DEV_MAX - 1. */
#define ROCE_STATS_DEV_MAX 64

void roce_stats_lock(void);
void roce_stats_unlock(void);

/* List dev (at open): 0, or -ENOSPC when ROCE_STATS_DEV_MAX are open. */
int roce_stats_dev_add(struct roce_dev *dev);
/* Unlist dev (at close, before it is freed). */
void roce_stats_dev_del(struct roce_dev *dev);
/* The device listed as id, or NULL; the caller holds the lock. */
struct roce_dev *roce_stats_dev(uint32_t id);

/* Where a counter lives. */
enum roce_xstat_src {
	XS_QP,		/* struct rte_roce_stats: lane->xstats.qp, or a QP's */
	XS_ENGINE,	/* struct roce_transport_stats: lane->xstats */
	XS_DEV,		/* struct roce_dev_stats: lane->stats */
	XS_PORT,	/* struct rte_roce_port_stats of the device's port */
};

/* Number of extended statistics (the same for every device). */
unsigned int roce_xstats_count(void);
/* Name and value of extended statistic i < roce_xstats_count(). */
const char *roce_xstat_name(unsigned int i, char *buf, size_t size);
/* The port's counters of dev, read with its lanes parked (they write them unlocked). */
void roce_port_stats_read(struct roce_dev *dev, struct rte_roce_port_stats *port);
uint64_t roce_xstat_value(struct roce_dev *dev, const struct rte_roce_port_stats *port,
			  unsigned int i);
enum roce_xstat_src roce_xstat_src(unsigned int i);
/* Value of extended statistic i, of source XS_QP, in one QP's counters. */
uint64_t roce_xstat_qp_value(const struct rte_roce_stats *stats, unsigned int i);

#endif /* ROCE_STATS_H */
