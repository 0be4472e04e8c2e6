/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_STATS_H
#define ROCE_STATS_H

/* The counters by name (xstats) of roce_stats.c, for its telemetry (roce_telemetry.c). */

#include <stdint.h>

#include "rte_roce_stats.h"
#include "roce_dev.h"

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
