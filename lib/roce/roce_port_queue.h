/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_PORT_QUEUE_H
#define ROCE_PORT_QUEUE_H

/*
 * The port as one of its queues' owners sees it (a lane, or a test): poll
 * a queue and get its RoCE frames back with their parse, send, batch and
 * flush TX, take the queue offline for the neighbour cache. Like DPDK's
 * driver SDK headers, the boundary is small: the port's state stays in
 * roce_port_priv.h, which only the port's own files include (roce_port.c,
 * roce_neigh.c, roce_icmp.c, roce_port_mcast.c, roce_capture.c).
 *
 * Every per-queue call is made by the owner thread of queue q only, with
 * q < roce_port_nb_queues(). rte_roce_port_poll() and rte_roce_port_send()
 * are the calls on queue 0.
 */

#include <stdint.h>

#include <rte_mbuf.h>

#include "rte_roce_gid.h"
#include "rte_roce_pkt.h"
#include "rte_roce_port.h"

/* Frames of one poll whose parse a queue keeps for its caller (roce_port_poll_queue()). */
#define ROCE_PORT_RX_PARSED 32

/* Number of RX/TX queue pairs (rte_roce_port_conf::nb_queues, at least 1). */
uint16_t roce_port_nb_queues(const struct rte_roce_port *port);

/* The pool the port's frames come from. */
struct rte_mempool *roce_port_pool(const struct rte_roce_port *port);

/* The IB MTU in bytes the port parses received frames at. */
uint32_t roce_port_ib_mtu(const struct rte_roce_port *port);

/*
 * RX burst of queue q: the RoCEv2 frames for the caller, parsed and
 * ICRC-checked as by rte_roce_port_poll(); the rest is answered (ARP, ND,
 * ICMP), handed to queue 0 or dropped and counted. Reports q's quiescent
 * state to the neighbour cache (roce_neigh.c) first. On q == 0 it also
 * handles what the other queues handed over and runs the neighbour timers.
 * parsed non-NULL: at most ROCE_PORT_RX_PARSED frames, and *parsed is set
 * to their parses ((*parsed)[i] is that of pkts[i], kept by the queue until
 * its next poll). Returns 0 for q out of range.
 */
uint16_t roce_port_poll_queue(struct rte_roce_port *port, uint16_t q, struct rte_mbuf **pkts,
			      uint16_t nb_pkts, const struct rte_roce_pkt **parsed);

/*
 * rte_roce_port_send() on queue q. q != 0 reads the neighbour cache
 * lock-free; a next hop that is not REACHABLE (or absent) makes the frame go
 * to queue 0 (tx_handoffs), which resolves, queues and sends it at its next
 * poll: 0 is returned then, and what queue 0 drops is counted there.
 * -EINVAL as rte_roce_port_send(), and for q out of range; -ENOBUFS when
 * the hand-off ring or the TX backlog is full.
 */
int roce_port_send_queue(struct rte_roce_port *port, uint16_t q, struct rte_mbuf *m,
			 const union rte_roce_gid *next_hop);

/*
 * Between these two calls the sends of queue q are gathered and handed to
 * the ethdev a burst at a time (and the rest at _end()), instead of one
 * rte_eth_tx_burst() per frame: a burst call costs about as much as a frame
 * on memif (shared ring indexes). A lane brackets its pass with them.
 */
void roce_port_tx_batch_begin(struct rte_roce_port *port, uint16_t q);
void roce_port_tx_batch_end(struct rte_roce_port *port, uint16_t q);

/* Frames queue q can still keep in its TX backlog when the PMD refuses them. */
uint16_t roce_port_tx_room(const struct rte_roce_port *port, uint16_t q);

/*
 * Queue q's owner stops polling for a while (a parked or stopping worker):
 * from now on it does not hold back the reuse of deleted neighbour cache
 * positions (an online reader that stops polling does: the cache would stop
 * learning once they are used up). Its next roce_port_poll_queue(q) or
 * roce_port_send_queue(q) takes it back online. A queue is offline until
 * first driven. No-op for queue 0, or q out of range.
 */
void roce_port_queue_offline(struct rte_roce_port *port, uint16_t q);

#endif /* ROCE_PORT_QUEUE_H */
