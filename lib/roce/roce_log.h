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
extern int roce_logtype_qp;	/* lib.roce.qp: QPs and SRQs */
extern int roce_logtype_mr;	/* lib.roce.mr: PDs and MRs */
extern int roce_logtype_cq;	/* lib.roce.cq */
extern int roce_logtype_event;	/* lib.roce.event: completion channels, async events */

/*
 * A source file logs under its area's sub-type by defining, before any
 * include, ROCE_LOG_TYPE (e.g. roce_logtype_qp) and ROCE_LOG_AREA (the
 * prefix of its lines, e.g. "ROCE qp"); the others log under lib.roce.
 */
#ifndef ROCE_LOG_TYPE
#define ROCE_LOG_TYPE roce_logtype
#define ROCE_LOG_AREA "ROCE"
#endif

/* One line per call: the newline is added here, as RTE_LOG_LINE does in later DPDK. */
#define ROCE_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, ROCE_LOG_TYPE, ROCE_LOG_AREA ": %s(): " fmt "\n", \
		__func__, ##__VA_ARGS__)

#define ROCE_PORT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, roce_logtype_port, "ROCE port: %s(): " fmt "\n", \
		__func__, ##__VA_ARGS__)

#endif /* ROCE_LOG_H */
