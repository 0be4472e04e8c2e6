/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * EAL bring-up that coexists with a host application. SPDK targets and
 * storage daemons initialise the EAL themselves; a second rte_eal_init()
 * fails ("already called") and logs at FATAL, so it must not be tried.
 */

#include <errno.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "roce_log.h"
#include "rte_roce_port.h"

int
rte_roce_eal_init(int argc, char **argv)
{
	int ret;

	if (argv == NULL || argc < 1)
		return -EINVAL;
	/*
	 * The lcore count lives in the static rte_config, zero until
	 * rte_eal_init() has detected the cores, and at least 1 (the main
	 * lcore) once it succeeded (DPDK 22.11 eal_common_lcore.c
	 * rte_lcore_count). No other cheap, public and side-effect free
	 * witness exists: rte_eal_process_type() is RTE_PROC_PRIMARY (0) from
	 * the start.
	 */
	if (rte_lcore_count() != 0)
		return 0;
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		ROCE_LOG(ERR, "EAL initialisation failed: %s", rte_strerror(rte_errno));
		return rte_errno != 0 ? -rte_errno : -EINVAL;
	}
	return ret;
}
