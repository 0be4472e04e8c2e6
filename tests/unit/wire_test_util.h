/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef WIRE_TEST_UTIL_H
#define WIRE_TEST_UTIL_H

/*
 * Helpers shared by the wire-format tests (test_parse, test_build):
 * well-filled packets, field-by-field comparison, checksum fix-ups.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_roce_pkt.h>

/* MTU given to the parser: the largest IB MTU. */
#define WIRE_TEST_MTU 4096

/* Room for any frame the tests build. */
#define WIRE_TEST_FRAME_MAX (WIRE_TEST_MTU + 256)

/* A payload pattern of WIRE_TEST_MTU bytes (never all zero). */
extern const uint8_t *wire_test_payload;

/*
 * A packet of that opcode with every header field set to a distinctive
 * value of the right width: IPv4 or IPv6, tagged or not, payload_len bytes.
 */
void wire_test_pkt(struct rte_roce_pkt *pkt, uint8_t opcode, bool ipv6, bool vlan,
		   uint32_t payload_len);

/*
 * Call fn(pkt, arg) with wire_test_pkt() of every opcode, payload size
 * (empty, pad 3/2/1/0, a whole MTU; an opcode's fixed size alone), IP
 * version and VLAN tag. Returns the number of packets, or -1 as soon as fn
 * returns non-zero.
 */
int wire_test_each_pkt(int (*fn)(const struct rte_roce_pkt *pkt, void *arg), void *arg);

/*
 * Compare every header field two packets share, the extension headers their
 * opcode has, and the payload length; with offsets, the parser's offsets
 * too. Prints the first difference; returns 0 if equal.
 */
int wire_test_pkt_cmp(const struct rte_roce_pkt *a, const struct rte_roce_pkt *b, bool offsets);

/* Recompute the IPv4 header checksum of a frame after editing its header. */
void wire_test_fix_ipv4_csum(uint8_t *frame, uint32_t l3_off);

/* Build pkt with the pattern payload into frame; returns the length or -1 after printing. */
int wire_test_build(const struct rte_roce_pkt *pkt, uint8_t *frame, uint32_t size);

#endif /* WIRE_TEST_UTIL_H */
