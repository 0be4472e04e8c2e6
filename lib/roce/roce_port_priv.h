/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_PORT_PRIV_H
#define ROCE_PORT_PRIV_H

/*
 * Internals of a port, shared by roce_port.c (bring-up, RX dispatch, TX),
 * roce_neigh.c (neighbour cache) and roce_icmp.c (ARP, ND, ICMP echo).
 * One thread owns a port (see roce_port.c): nothing here is locked.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "rte_roce_port.h"

/* Frames the TX queue refused, kept in order for the next flush (power of 2). */
#define ROCE_PORT_TX_BACKLOG 256
/* Frames of one poll whose parse is kept for the engine (roce_port_rx_parsed()). */
#define ROCE_PORT_RX_PARSED 32
/* In a TX batch, frames gathered before one rte_eth_tx_burst(). */
#define ROCE_PORT_TX_BURST 32

/* IPv6 hop limit of ND messages: receivers require 255 (RFC 4861 7.1). */
#define ROCE_ND_HOP_LIMIT 255
/* Hop limit / TTL of the echo replies we originate. */
#define ROCE_IP_DEFAULT_TTL 64

struct roce_gid_entry {
	union rte_roce_gid gid;
	uint8_t prefix_len;
	bool valid;
};

enum roce_neigh_state {
	ROCE_NEIGH_FREE,
	ROCE_NEIGH_INCOMPLETE,	/* requests out, frames queued */
	ROCE_NEIGH_REACHABLE,	/* MAC known until the deadline */
	ROCE_NEIGH_FAILED,	/* retries exhausted; sends fail until the deadline */
};

struct roce_neigh {
	union rte_roce_gid ip;
	struct rte_ether_addr mac;
	enum roce_neigh_state state;
	uint16_t retries_left;
	uint16_t nb_queued;
	uint64_t deadline;		/* timer cycles; meaning depends on state */
	struct rte_mbuf **queue;	/* neigh_queue_len slots */
};

struct roce_neigh_table {
	struct rte_hash *hash;		/* GID -> index in entries */
	struct roce_neigh *entries;
	struct rte_mbuf **queue_slots;
	uint32_t *free_idx;		/* stack of free entry indices */
	uint32_t nb_free;
	uint32_t nb_entries;
	uint16_t retries;
	uint16_t queue_len;
	uint64_t timeout_cycles;
	uint64_t retry_cycles;
	uint64_t next_timer;		/* earliest deadline of any entry */
};

/* A multicast group the port receives (roce_port_mcast.c). */
struct roce_port_mcast {
	union rte_roce_gid gid;
	uint32_t refs;			/* joins not yet left; 0 = free slot */
};

struct rte_roce_port {
	uint16_t port_id;
	uint16_t mtu;
	uint32_t ib_mtu;
	struct rte_ether_addr mac;
	struct rte_mempool *pool;
	bool own_pool;
	uint64_t now;			/* timer cycles, read once per call */
	struct roce_gid_entry gids[RTE_ROCE_PORT_GID_TBL_LEN];
	struct roce_neigh_table neigh;
	uint16_t tx_head;		/* oldest frame of the TX backlog */
	uint16_t tx_count;
	uint16_t tx_batched;		/* of tx_count: gathered by a batch, not refused */
	bool tx_batch;			/* between roce_port_tx_batch_begin() and _end() */
	struct rte_mbuf *tx_backlog[ROCE_PORT_TX_BACKLOG];
	struct rte_roce_port_stats stats;
	struct roce_capture *capture;	/* rte_roce_port_capture_start(), or NULL */
	struct roce_port_mcast mcast[RTE_ROCE_PORT_MCAST_MAX];
	uint16_t rx_next;		/* index the frame being sorted gets if returned */
	/* The parse of each RoCE frame the last poll returned: the engine needs no second one. */
	struct rte_roce_pkt rx_parsed[ROCE_PORT_RX_PARSED];
};

/* Where a frame was addressed at layer 2. */
enum roce_l2_dst {
	ROCE_L2_UNICAST,	/* the port's MAC */
	ROCE_L2_BROADCAST,
	ROCE_L2_MULTICAST,
};

/* Count and free a frame; false, so that an RX path can return it ("not for the caller"). */
static inline bool
roce_port_drop(struct rte_roce_port *port, struct rte_mbuf *m, enum rte_roce_port_drop reason)
{
	port->stats.drops[reason]++;
	rte_pktmbuf_free(m);
	return false;
}

/*
 * Copy len bytes at off of a frame into buf, whatever the segmentation;
 * false if the frame is shorter. Unlike rte_pktmbuf_read() alone, the
 * result is always buf: properly aligned for headers that hold MAC
 * addresses, even where the frame put them at an odd address.
 */
static inline bool
roce_pktmbuf_copy(const struct rte_mbuf *m, uint32_t off, uint32_t len, void *buf)
{
	const void *p = rte_pktmbuf_read(m, off, len, buf);

	if (p == NULL)
		return false;
	if (p != buf)
		memcpy(buf, p, len);
	return true;
}

/*
 * The parse (rte_roce_pkt_parse_mbuf() at the port's IB MTU, ICRC checked)
 * of frame i of what the last rte_roce_port_poll() returned, valid until
 * the next poll; NULL for i >= ROCE_PORT_RX_PARSED.
 */
static inline const struct rte_roce_pkt *
roce_port_rx_parsed(const struct rte_roce_port *port, uint16_t i)
{
	return i < ROCE_PORT_RX_PARSED ? &port->rx_parsed[i] : NULL;
}

/* roce_port.c */
int roce_port_tx(struct rte_roce_port *port, struct rte_mbuf *m);
/*
 * Between these two calls roce_port_tx() gathers frames and hands them to
 * the ethdev ROCE_PORT_TX_BURST at a time (and the rest at _end()), instead
 * of one rte_eth_tx_burst() per frame: a burst call costs about as much as
 * a frame on memif (shared ring indexes). rte_roce_poll() brackets its work
 * with them.
 */
void roce_port_tx_batch_begin(struct rte_roce_port *port);
/* Frames roce_port_tx() can still keep in the backlog when the queue refuses them. */
static inline uint16_t
roce_port_tx_room(const struct rte_roce_port *port)
{
	return ROCE_PORT_TX_BACKLOG - port->tx_count;
}

void roce_port_tx_batch_end(struct rte_roce_port *port);
void roce_port_l2_fill(struct rte_roce_port *port, struct rte_mbuf *m,
		       const struct rte_ether_addr *dst, uint16_t ether_type);
bool roce_port_is_local(const struct rte_roce_port *port, const union rte_roce_gid *gid);
int roce_port_src_addr(const struct rte_roce_port *port, const union rte_roce_gid *dst,
		       union rte_roce_gid *src);

/* roce_port_mcast.c */
bool roce_port_mcast_member(const struct rte_roce_port *port, const union rte_roce_gid *group);
void roce_port_mcast_mac(const union rte_roce_gid *group, struct rte_ether_addr *mac);

/* roce_neigh.c */
int roce_neigh_init(struct rte_roce_port *port, const struct rte_roce_port_conf *conf);
void roce_neigh_fini(struct rte_roce_port *port);
void roce_neigh_learn(struct rte_roce_port *port, const union rte_roce_gid *ip,
		      const struct rte_ether_addr *mac, bool create);
void roce_neigh_timers(struct rte_roce_port *port);

/* roce_icmp.c */
void roce_arp_input(struct rte_roce_port *port, struct rte_mbuf *m);
void roce_icmp4_input(struct rte_roce_port *port, struct rte_mbuf *m, uint32_t l4_off,
		      uint32_t l4_len);
void roce_icmp6_input(struct rte_roce_port *port, struct rte_mbuf *m, enum roce_l2_dst l2);
int roce_arp_request(struct rte_roce_port *port, const union rte_roce_gid *target);
int roce_nd_solicit(struct rte_roce_port *port, const union rte_roce_gid *target);

#endif /* ROCE_PORT_PRIV_H */
