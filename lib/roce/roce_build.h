/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_BUILD_H
#define ROCE_BUILD_H

#include <rte_mbuf.h>

#include "rte_roce_pkt.h"

/*
 * rte_roce_pkt_build_mbuf() of a packet made by roce_qp_pkt_init(): its
 * info matches its opcode, its IP version and GIDs come from a QP whose
 * addresses were checked when it was modified (roce_ah.c), its UDP checksum
 * mode is rte_roce_pkt_init()'s. Only what the engine sets per packet is
 * checked: the payload against the opcode and its size; the same errors.
 */
int roce_pkt_build_mbuf_qp(const struct rte_roce_pkt *pkt, const void *payload,
			   struct rte_mbuf *m);

#endif /* ROCE_BUILD_H */
