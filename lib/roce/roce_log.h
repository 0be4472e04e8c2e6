/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_LOG_H
#define ROCE_LOG_H

/*
 * Logging of librte_roce: logtype "lib.roce" and per-area sub-types.
 * Logs are for abnormal events only; per-packet events are counted,
 * never logged (a flood of bad frames must not become a flood of lines).
 */

#include <rte_log.h>

extern int roce_logtype;
extern int roce_logtype_port;

/* One line per call: the newline is added here, as RTE_LOG_LINE does in later DPDK. */
#define ROCE_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, roce_logtype, "ROCE: %s(): " fmt "\n", \
		__func__, ##__VA_ARGS__)

#define ROCE_PORT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, roce_logtype_port, "ROCE port: %s(): " fmt "\n", \
		__func__, ##__VA_ARGS__)

#endif /* ROCE_LOG_H */
