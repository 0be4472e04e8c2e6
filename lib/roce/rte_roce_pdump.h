/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_PDUMP_H
#define RTE_ROCE_PDUMP_H

/**
 * @file
 * DPDK's packet capture framework (librte_pdump) for a librte_roce program:
 * lets `dpdk-dumpcap` and `dpdk-pdump`, run as secondary processes with the
 * same --file-prefix, copy the frames of every ethdev of this process
 * (doc/observability.md, "pdump / dpdk-dumpcap").
 *
 * The library never calls this by itself: a host application that does not
 * want an IPC action and the pdump statistics memzone does not get them.
 * The helper exists because calling rte_pdump_init() well needs checks that
 * rte_pdump_init() does not make: it must be a primary process with
 * multi-process IPC on and memory a secondary can map (hugepages), and it
 * must not be initialised twice (a second rte_pdump_init() fails on its
 * memzone, logs at ERR and says ENOMEM). Where none of that holds, the
 * library's own capture (rte_roce_port_capture_start()) works.
 */

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Make this process's ethdevs capturable by dpdk-dumpcap / dpdk-pdump:
 * call rte_pdump_init() if it is useful and was not done yet. Call after
 * rte_eal_init() (or rte_roce_eal_init()), from the main thread.
 *
 * From the first call that returns 0 on, the library makes its RX and TX
 * bursts under the EAL's tailq read lock: DPDK 22.11's pdump lets dumpcap
 * free a detaching capture's ring and pool while a burst may still run its
 * callback (doc/observability.md). An application that calls
 * rte_pdump_init() itself calls this too, which then returns 0.
 *
 * @return
 *   0 if pdump is on: enabled by this call, by an earlier one, or by the
 *   application itself (then it stays the application's: see
 *   rte_roce_pdump_disable()). Otherwise a negative errno, logged at INFO,
 *   and nothing was changed; a program should carry on without pdump:
 *   - -EINVAL: the EAL is not initialised.
 *   - -EPERM: this is a secondary process (dumpcap asks the primary).
 *   - -ENOTSUP: multi-process is off (--in-memory, --no-shconf) or memory
 *     is not shared (--no-huge): a secondary cannot attach.
 *   - -ENOMEM: rte_pdump_init() failed (its statistics memzone).
 *   - other: -rte_errno of rte_mp_action_register().
 */
int rte_roce_pdump_enable(void);

/**
 * Undo rte_roce_pdump_enable(): rte_pdump_uninit() if, and only if, an
 * rte_roce_pdump_enable() call initialised it; pdump set up by the
 * application is left alone. Call after the ports are stopped (a capture in
 * progress counts into pdump's memzone from the ethdev callbacks) and before
 * rte_eal_cleanup(). Safe to call when nothing was enabled.
 *
 * @return
 *   0; -EINVAL if the EAL is not initialised.
 */
int rte_roce_pdump_disable(void);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_PDUMP_H */
