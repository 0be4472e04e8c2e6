/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The end of an EAL that the program runs itself (SPDK: spdk_env_fini()
 * calls rte_eal_cleanup()), into which our ports were probed and started
 * (roce_verbs_dev.c). DPDK 22.11's rte_eal_cleanup() closes every device
 * of every bus (eal_bus_cleanup(), lib/eal/linux/eal.c: a vdev's remove
 * closes its ethdev), and rte_eth_dev_close() refuses a port still
 * started, logging "Cannot close started device". We started the ports,
 * so we stop them first: the CM progress thread ended (the last thread of
 * ours that polls them), each CM closed, each device taken down. A device
 * whose CM or objects the program still holds is left as it is, logged.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <string.h>

#include <rte_errno.h>

#include "roce_verbs.h"
#include "roce_verbs_cm.h"

/* The symbol version of DPDK 22.11's ABI (objdump -T librte_eal.so.23). */
#define RV_DPDK_ABI "DPDK_23"

int rv_eal_cleanup(void) ROCE_VERBS_EXPORT(rte_eal_cleanup);
int
rv_eal_cleanup(void)
{
	__typeof__(&rv_eal_cleanup) real =
		ROCE_VERBS_REAL(rv_eal_cleanup, "rte_eal_cleanup", RV_DPDK_ABI);
	struct roce_verbs_dev *dev;
	unsigned int i;
	int rc;

	rv_cm_end();
	for (i = 0; i < roce_verbs_dev_count(); i++) {
		dev = roce_verbs_dev_at(i);
		rc = rv_cm_close(i);
		if (rc == 0)
			rc = roce_verbs_dev_down(dev);
		if (rc < 0)
			RV_LOG(NOTICE, "%s: %s: the program still holds its CM ids or verbs "
			       "objects, its port stays started", dev->ibv.name, strerror(-rc));
	}
	if (real == NULL) {
		rte_errno = ENOSYS;
		return -1;
	}
	return real();
}
