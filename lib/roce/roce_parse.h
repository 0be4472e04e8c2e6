/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_PARSE_H
#define ROCE_PARSE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "rte_roce_pkt.h"

/*
 * rte_roce_pkt_parse_mbuf() of a frame whose IPv4 header checksum the
 * caller has already verified (the port's RX, roce_port.c): every other
 * check is the same, that one is not made twice (~60 instructions per frame
 * under callgrind).
 */
enum rte_roce_drop_reason roce_pkt_parse_mbuf_ipv4_summed(const struct rte_mbuf *m, uint32_t mtu,
							  struct rte_roce_pkt *pkt);

#endif /* ROCE_PARSE_H */
