/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_PCAP_H
#define RTE_ROCE_PCAP_H

#endif /* RTE_ROCE_PCAP_H */
