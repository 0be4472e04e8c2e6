/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rte_pdump_init() for a librte_roce program, only where it can work and
 * only once (rte_roce_pdump.h says why; doc/observability.md how to use it).
 *
 * What dpdk-dumpcap needs from the process it captures (DPDK 22.11
 * lib/pdump/rte_pdump.c, app/dumpcap/main.c):
 *  - it is the primary: dumpcap, a secondary, sends its enable request over
 *    the EAL's multi-process channel to the action "mp_pdump" that
 *    rte_pdump_init() registers in the primary;
 *  - that channel exists: with --in-memory or --no-shconf the EAL has none,
 *    rte_mp_action_register() fails with ENOTSUP and rte_pdump_init() still
 *    returns 0 (it ignores ENOTSUP), so a program cannot tell from it;
 *  - the secondary can map the primary's memory, where the ethdevs, its
 *    ring and its mbuf pool live: not with --no-huge (anonymous memory).
 */

#include <errno.h>
#include <stdbool.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_pdump.h>

#include "roce_log.h"
#include "roce_port_priv.h"
#include "rte_roce_pdump.h"

/*
 * The name of rte_pdump_init()'s IPC action (lib/pdump/rte_pdump.c
 * PDUMP_MP): the request name dumpcap and pdump send, unchanged since DPDK
 * 18.05, so part of the protocol between DPDK processes.
 */
#define ROCE_PDUMP_MP_ACTION "mp_pdump"

/* rte_roce_pdump_enable() called rte_pdump_init(): ours to undo. */
static bool roce_pdump_owned;

/* Stands in for pdump's action for the instant of the probe; never called. */
static int
roce_pdump_probe_action(const struct rte_mp_msg *msg __rte_unused, const void *peer __rte_unused)
{
	return -1;
}

/*
 * Does the IPC channel exist, and has someone already registered pdump's
 * action? One registration answers both: ENOTSUP (no channel), EEXIST
 * (registered: pdump is on), success (free: undone at once). The primary's
 * IPC thread could in theory see the probe in between; a pdump request
 * arriving in that instant gets an error reply and dumpcap says so.
 */
static int
roce_pdump_probe(void)
{
	if (rte_mp_action_register(ROCE_PDUMP_MP_ACTION, roce_pdump_probe_action) == 0) {
		rte_mp_action_unregister(ROCE_PDUMP_MP_ACTION);
		return 0;
	}
	return -rte_errno;
}

int
rte_roce_pdump_enable(void)
{
	int ret;

	if (rte_lcore_count() == 0)	/* as rte_roce_eal_init(): the EAL is not up */
		return -EINVAL;
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		ROCE_LOG(INFO, "pdump: not a primary process; dumpcap attaches to the primary");
		return -EPERM;
	}
	ret = roce_pdump_probe();
	if (ret == -EEXIST) {
		roce_port_pdump_guard_on();
		ROCE_LOG(DEBUG, "pdump: already initialised%s",
			 roce_pdump_owned ? "" : " by the application");
		return 0;
	}
	if (ret == -ENOTSUP) {
		ROCE_LOG(INFO, "pdump: off, no multi-process channel (--in-memory or --no-shconf); "
			 "capture with rte_roce_port_capture_start() (--pcap)");
		return -ENOTSUP;
	}
	if (ret != 0) {
		ROCE_LOG(INFO, "pdump: off, multi-process channel probe failed: %s",
			 rte_strerror(-ret));
		return ret;
	}
	if (!rte_eal_has_hugepages()) {
		ROCE_LOG(INFO, "pdump: off, --no-huge memory cannot be mapped by dpdk-dumpcap; "
			 "capture with rte_roce_port_capture_start() (--pcap)");
		return -ENOTSUP;
	}
	roce_port_pdump_guard_on();	/* before dumpcap can attach */
	if (rte_pdump_init() != 0) {
		ret = rte_errno != 0 ? -rte_errno : -ENOMEM;
		ROCE_LOG(INFO, "pdump: rte_pdump_init() failed: %s", rte_strerror(-ret));
		return ret;
	}
	roce_pdump_owned = true;
	ROCE_LOG(INFO, "pdump: on; capture with dpdk-dumpcap --file-prefix <this process's prefix>");
	return 0;
}

int
rte_roce_pdump_disable(void)
{
	if (rte_lcore_count() == 0)
		return -EINVAL;
	if (!roce_pdump_owned)
		return 0;
	rte_pdump_uninit();
	roce_pdump_owned = false;
	return 0;
}
