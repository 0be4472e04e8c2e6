/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_CKSUM_H
#define ROCE_CKSUM_H

#include <stdint.h>

#include <rte_mbuf.h>

/*
 * One's complement sum of len bytes at off in an mbuf chain of any
 * segmentation, folded to 16 bits, not complemented. Writes *cksum and
 * returns 0, or -EINVAL when the chain is shorter than off + len.
 *
 * Not rte_raw_cksum_mbuf(): in DPDK 22.11 it truncates the 32-bit partial
 * sum of a segment that starts at an odd position to 16 bits before
 * byte-swapping it, and so loses carries over chains with odd-length
 * segments. This one folds each segment first (RFC 1071 2.(B): a sum over
 * bytes shifted by one is the byte-swapped sum).
 */
int roce_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint16_t *cksum);

#endif /* ROCE_CKSUM_H */
