/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef FUZZ_WIRE_H
#define FUZZ_WIRE_H

/*
 * The wire of the targets that fuzz device A with device B only answering
 * its ARP and neighbour solicitations: what A sends is taken off B's ring,
 * except those.
 */

#include <stdbool.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

/* A frame of A's that B does not get: seen (read only) before it is freed. */
typedef void (*fuzz_wire_seen_t)(const struct rte_mbuf *m);

/* Take the frames on ring r (to B): ARP and ND go back on it, the rest to seen (may be NULL), freed. */
void fuzz_wire_to_b(struct rte_ring *r, fuzz_wire_seen_t seen);

#endif /* FUZZ_WIRE_H */
