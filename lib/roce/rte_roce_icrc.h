/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_ICRC_H
#define RTE_ROCE_ICRC_H

/**
 * @file
 * RoCEv2 invariant CRC (ICRC), IBTA Annex A17.3.3.
 *
 * The ICRC is a CRC-32 (the Ethernet polynomial, as zlib crc32()) over
 * eight 0xFF bytes standing in for the LRH, then the IP, UDP and BTH
 * headers with their variant fields set to all-ones, then the rest of the
 * transport headers, the payload and the pad. The variant fields are those
 * routers may rewrite: IPv4 TOS, TTL and header checksum; IPv6 traffic
 * class, flow label and hop limit; the UDP checksum; BTH byte 4
 * (FECN, BECN, resv6). The Ethernet header and the FCS are not covered.
 *
 * The ICRC occupies the last 4 bytes of the UDP payload and is stored
 * least-significant byte first, as Linux rxe does (rxe_icrc.c); these
 * functions return and compare it as a host-order value.
 *
 * Only the first byte of the IP header is interpreted (IP version, IPv4
 * IHL): nothing is validated here, that is the parser's job
 * (rte_roce_pkt_parse()).
 */

#include <stdint.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;

/** Size of the ICRC trailer, in bytes. */
#define RTE_ROCE_ICRC_LEN 4

/**
 * Compute the ICRC of a RoCEv2 packet in a flat buffer.
 *
 * @param l3
 *   Start of the IPv4 or IPv6 header.
 * @param len
 *   Bytes from l3 up to, not including, the ICRC.
 * @return
 *   The ICRC as a host-order value; store it with rte_cpu_to_le_32().
 *   If the first nibble at l3 is neither 4 nor 6, the IPv4 IHL is below 5,
 *   or len is shorter than the IP, UDP and BTH headers, returns 0 without
 *   reading beyond l3 + len; rte_roce_icrc_check() rejects such packets
 *   whatever their stored ICRC.
 */
uint32_t
rte_roce_icrc_calc(const void *l3, uint32_t len);

/**
 * Compute the ICRC of a RoCEv2 packet in an mbuf, of any segmentation.
 *
 * Segments are processed in place; only the headers are copied (masked).
 *
 * @param m
 *   The packet.
 * @param l3_off
 *   Offset of the IP header from the start of the packet data.
 * @param len
 *   Bytes from the IP header up to, not including, the ICRC.
 * @return
 *   The ICRC as a host-order value, or 0 on the malformed input described
 *   for rte_roce_icrc_calc(), and also when l3_off + len exceeds the packet.
 */
uint32_t
rte_roce_icrc_calc_mbuf(const struct rte_mbuf *m, uint32_t l3_off, uint32_t len);

/**
 * Verify the ICRC of a RoCEv2 packet in a flat buffer.
 *
 * @param l3
 *   Start of the IPv4 or IPv6 header; len + RTE_ROCE_ICRC_LEN bytes are read.
 * @param len
 *   Bytes from l3 up to the ICRC, which is at l3 + len.
 * @return
 *   0 if the stored ICRC matches.
 *   -EBADMSG if it does not, or if the input is malformed as described for
 *   rte_roce_icrc_calc().
 */
int
rte_roce_icrc_check(const void *l3, uint32_t len);

/**
 * Verify the ICRC of a RoCEv2 packet in an mbuf, of any segmentation.
 *
 * @param m
 *   The packet.
 * @param l3_off
 *   Offset of the IP header from the start of the packet data.
 * @param len
 *   Bytes from the IP header up to the ICRC, which is at l3_off + len.
 * @return
 *   0 if the stored ICRC matches.
 *   -EBADMSG if it does not, if the packet is shorter than
 *   l3_off + len + RTE_ROCE_ICRC_LEN, or if the input is malformed as
 *   described for rte_roce_icrc_calc().
 */
int
rte_roce_icrc_check_mbuf(const struct rte_mbuf *m, uint32_t l3_off, uint32_t len);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Compute the ICRC that Linux rxe (6.2 and later) gives a FLUSH packet
 * (IBA A19), which is not the ICRC of Annex A17: an interoperability
 * workaround for a peer bug, not a RoCEv2 rule.
 *
 * rxe's opcode table gives IB_OPCODE_RC_FLUSH no payload offset
 * (drivers/infiniband/sw/rxe/rxe_opcode.c), so for rxe a FLUSH's payload
 * starts at its BTH and runs to its ICRC: rxe_icrc.c covers the headers as
 * rte_roce_icrc_calc() does, then the transport headers (BTH, FETH, RETH) a
 * second time, as they are on the wire. Nothing but a FLUSH of rxe's, or
 * one sent to it, has such an ICRC; a conformant receiver drops it.
 *
 * @param l3
 *   Start of the IPv4 or IPv6 header of a packet without payload or pad
 *   (a FLUSH).
 * @param len
 *   Bytes from l3 up to, not including, the ICRC.
 * @return
 *   That ICRC as a host-order value, or 0 on the malformed input described
 *   for rte_roce_icrc_calc().
 */
__rte_experimental
uint32_t
rte_roce_icrc_calc_rxe_flush(const void *l3, uint32_t len);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_ICRC_H */
