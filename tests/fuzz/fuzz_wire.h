/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef FUZZ_WIRE_H
#define FUZZ_WIRE_H

/*
 * The wire of the targets that fuzz device A of a roce_test_env, with
 * device B only answering its ARP and neighbour solicitations: what A
 * sends is taken off B's ring, except those.
 */

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "roce_test_verbs.h"

/* A frame of A's that B does not get: seen (read only) before it is freed. */
typedef void (*fuzz_wire_seen_t)(const struct rte_mbuf *m);

/*
 * One round of the wire of env: A polled, the frames A sent to B taken
 * (ARP and ND go on to B, the rest to seen, which may be NULL, and freed),
 * B polled.
 */
void fuzz_wire_poll(struct roce_test_env *env, fuzz_wire_seen_t seen);

/*
 * The EAL (program name argv0), the mbuf pool, a net_ring pair named name
 * and env on it (conf, nqps QP pairs, at least one), both neighbour caches
 * warmed up; each side's MAC in mac[]. Aborts on failure.
 */
void fuzz_wire_open(const char *argv0, const char *name, struct roce_test_env *env,
		    const struct roce_test_conf *conf, unsigned int nqps,
		    struct rte_ether_addr mac[2]);

#endif /* FUZZ_WIRE_H */
