/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_H
#define RTE_ROCE_H

/**
 * @file
 * librte_roce: a userspace RoCEv2 stack on DPDK poll-mode drivers.
 *
 * This umbrella header includes every public header of the library:
 * - rte_roce_gid.h: GIDs, the 16-byte form of every IP address;
 * - rte_roce_hdr.h: RoCEv2 wire headers and their accessors;
 * - rte_roce_opcode.h: the IBTA opcode table;
 * - rte_roce_pkt.h: the strict frame parser and the frame builder;
 * - rte_roce_icrc.h: the invariant CRC (IBTA Annex A17);
 * - rte_roce_mad.h: management datagrams of the communication manager (layouts);
 * - rte_roce_pcap.h: pcap files, read and written;
 * - rte_roce_pdump.h: DPDK packet capture (dpdk-dumpcap) for this process;
 * - rte_roce_port.h: ports over DPDK ethdevs, addresses, ARP/ND;
 * - rte_roce_verbs.h: the verbs-like API (devices, PDs, MRs, CQs, QPs);
 * - rte_roce_event.h: completion channels and asynchronous events;
 * - rte_roce_config.h: the runtime configuration file;
 * - rte_roce_stats.h: counters (rxe/mlx5 names) and extended statistics;
 * - rte_roce_worker.h: worker mode (pinned lcores drive a device's progress).
 *
 * Conventions, everywhere in the API:
 * - constructors return NULL and set rte_errno;
 * - control calls return 0 or a negative errno;
 * - burst calls return a count.
 */

#include <rte_roce_gid.h>
#include <rte_roce_hdr.h>
#include <rte_roce_icrc.h>
#include <rte_roce_mad.h>
#include <rte_roce_opcode.h>
#include <rte_roce_pcap.h>
#include <rte_roce_pdump.h>
#include <rte_roce_pkt.h>
#include <rte_roce_port.h>
#include <rte_roce_verbs.h>
#include <rte_roce_event.h>
#include <rte_roce_config.h>
#include <rte_roce_stats.h>
#include <rte_roce_worker.h>

#endif /* RTE_ROCE_H */
