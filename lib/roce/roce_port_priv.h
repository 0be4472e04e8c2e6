/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_PORT_PRIV_H
#define ROCE_PORT_PRIV_H

/*
 * Internals of a port, shared by roce_port.c (bring-up, RX dispatch, TX),
 * roce_neigh.c (neighbour cache), roce_icmp.c (ARP, ND, ICMP echo),
 * roce_port_mcast.c and roce_capture.c; the rest of the library sees a
 * port through rte_roce_port.h and roce_port_queue.h.
 * One thread owns each queue of a port (see roce_port.c): a queue's state
 * (struct roce_port_queue) is touched by its owner only; queue 0's owner
 * also owns the slow path (ARP, ND, ICMP, the neighbour cache's writes and
 * timers). What other queues read of the shared state is published with
 * atomics (the neighbour word) or written only while they are parked.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rte_roce_port.h"
#include "roce_port_queue.h"
#include "roce_tsan.h"

/* Frames the TX queue refused, kept in order for the next flush (power of 2). */
#define ROCE_PORT_TX_BACKLOG 256
/* In a TX batch, frames gathered before one rte_eth_tx_burst(). */
#define ROCE_PORT_TX_BURST 32
/* The queue that owns the slow path: ARP, ND, ICMP, neighbour writes and timers. */
#define ROCE_PORT_SLOW_QUEUE 0
/* Frames each hand-off ring (queue q -> queue 0) holds (power of 2). */
#define ROCE_PORT_HANDOFF_RING 512
/* Frames queue 0 takes from each hand-off ring per poll. */
#define ROCE_PORT_HANDOFF_BURST 64

/*
 * Set by rte_roce_pdump_enable(): DPDK's pdump may run its callbacks in this
 * process's bursts from then on, which roce_port.c then makes under the
 * tailq read lock (roce_port_burst_begin() says why). Never cleared: a capture
 * attached before rte_roce_pdump_disable() may still be detaching.
 */
void roce_port_pdump_guard_on(void);

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
	ROCE_NEIGH_PROBE,	/* lifetime over while in use: MAC still used, unicast probes out */
};

/*
 * What the lock-free readers (queues other than 0) see of an entry: one
 * 64-bit word, written by queue 0 with one atomic store and read with one
 * atomic load, so a reader never sees a MAC of one state with the
 * reachability of another. Bits 0-47: the MAC (addr_bytes[i] at bit 8 i);
 * 48-62: the generation of the entry, bumped each time the slot is reused;
 * 63: reachable.
 */
#define ROCE_NEIGH_PUB_MAC_MASK ((UINT64_C(1) << 48) - 1)
#define ROCE_NEIGH_PUB_GEN_SHIFT 48
#define ROCE_NEIGH_PUB_GEN_MASK 0x7fffu
#define ROCE_NEIGH_PUB_REACHABLE (UINT64_C(1) << 63)
/* Hash data of a key: entry index | generation << 32 (a reused entry is seen as such). */
#define ROCE_NEIGH_DATA_GEN_SHIFT 32
/* roce_neigh::used_gen of an entry not used since it was last checked: no generation. */
#define ROCE_NEIGH_UNUSED UINT16_MAX

struct roce_neigh {
	union rte_roce_gid ip;
	struct rte_ether_addr mac;
	uint64_t pub;			/* the published word, atomic (see above) */
	uint16_t gen;			/* generation, of ROCE_NEIGH_PUB_GEN_MASK */
	/*
	 * The generation a sender used the entry under since queue 0 last
	 * confirmed or checked it, else ROCE_NEIGH_UNUSED. Any queue stores it
	 * (relaxed, and only when it changes: no write per frame); queue 0
	 * reads and clears it. A store by a reader racing with the entry's
	 * reuse carries the old generation and so does not mark the new one.
	 */
	uint16_t used_gen;
	enum roce_neigh_state state;
	uint16_t retries_left;
	uint16_t nb_queued;
	uint64_t deadline;		/* timer cycles; meaning depends on state */
	struct rte_mbuf **queue;	/* neigh_queue_len slots */
};

struct roce_neigh_table {
	/* GID -> index | generation; lock-free readers with several queues */
	struct rte_hash *hash;
	/* Quiescent states of the reader queues 1..n-1; NULL with one queue. */
	struct rte_rcu_qsbr *rcu;
	struct roce_neigh *entries;
	struct roce_neigh *last;	/* found last by queue 0's lookup (roce_neigh_lookup()) */
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

/* A frame queue q hands to queue 0 for resolution, with its next hop. */
struct roce_port_handoff {
	struct rte_mbuf *m;
	union rte_roce_gid next_hop;
};

/* The state of one RX/TX queue pair, touched by its owner thread only. */
struct roce_port_queue {
	uint16_t id;
	uint16_t tx_head;		/* oldest frame of the TX backlog */
	uint16_t tx_count;
	uint16_t tx_batched;		/* of tx_count: gathered by a batch, not refused */
	bool tx_batch;			/* between roce_port_tx_batch_begin() and _end() */
	/* q != 0: not an online RCU reader (never driven yet, or roce_port_queue_offline()) */
	bool rcu_offline;
	uint64_t now;			/* timer cycles, read once per call */
	/* q != 0: to queue 0, SPSC. Non-RoCE frames received here (mbufs). */
	struct rte_ring *slow_rx;
	/* q != 0: to queue 0, SPSC. Frames to send to an unresolved next hop (handoff). */
	struct rte_ring *slow_tx;
	struct rte_roce_port_stats stats;
	struct rte_mbuf *tx_backlog[ROCE_PORT_TX_BACKLOG];
	/* The parse of each RoCE frame the last poll returned (roce_port_poll_queue()). */
	struct rte_roce_pkt rx_parsed[ROCE_PORT_RX_PARSED];
} __rte_cache_aligned;

struct rte_roce_port {
	uint16_t port_id;
	uint16_t mtu;
	uint32_t ib_mtu;
	struct rte_ether_addr mac;
	struct rte_mempool *pool;
	bool own_pool;
	bool rss;			/* RX spread by RSS on UDP */
	uint16_t nb_queues;
	struct roce_gid_entry gids[RTE_ROCE_PORT_GID_TBL_LEN];
	struct roce_neigh_table neigh;
	struct roce_capture *capture;	/* rte_roce_port_capture_start(), or NULL */
	struct roce_port_mcast mcast[RTE_ROCE_PORT_MCAST_MAX];
	struct roce_port_queue q[];	/* nb_queues */
};

/* The slow-path queue's state. */
static inline struct roce_port_queue *
roce_port_slow(struct rte_roce_port *port)
{
	return &port->q[ROCE_PORT_SLOW_QUEUE];
}

/* Where a frame was addressed at layer 2. */
enum roce_l2_dst {
	ROCE_L2_UNICAST,	/* the port's MAC */
	ROCE_L2_BROADCAST,
	ROCE_L2_MULTICAST,
};

/* Count and free a frame; false, so that an RX path can return it ("not for the caller"). */
static inline bool
roce_port_drop(struct roce_port_queue *pq, struct rte_mbuf *m, enum rte_roce_port_drop reason)
{
	pq->stats.drops[reason]++;
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

/* roce_port.c */
/* Transmit a frame whose L2 header is complete on pq's TX queue; takes m. */
int roce_port_tx(struct rte_roce_port *port, struct roce_port_queue *pq, struct rte_mbuf *m);
/* Queue pq (not 0) hands m to queue 0, which resolves next_hop and sends it. */
int roce_port_handoff_tx(struct roce_port_queue *pq, struct rte_mbuf *m,
			 const union rte_roce_gid *next_hop);
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
/* The sender of an ARP packet or NS; only an ARP reply (confirms) renews a known entry. */
void roce_neigh_learn(struct rte_roce_port *port, const union rte_roce_gid *ip,
		      const struct rte_ether_addr *mac, bool create, bool confirms);
/* A Neighbour Advertisement (RFC 4861 7.2.5); mac NULL if it has no TLLA. */
void roce_neigh_advert(struct rte_roce_port *port, const union rte_roce_gid *ip,
		       const struct rte_ether_addr *mac, bool solicited, bool override);
void roce_neigh_timers(struct rte_roce_port *port);
/* Queue 0's send of a checked unicast frame: resolve, queue or send it. */
int roce_neigh_send(struct rte_roce_port *port, struct rte_mbuf *m,
		    const union rte_roce_gid *next_hop);
/* The reader side, any queue: true and *mac if next_hop is REACHABLE. */
bool roce_neigh_lookup_lf(const struct rte_roce_port *port, const union rte_roce_gid *ip,
			  struct rte_ether_addr *mac);
void roce_neigh_quiescent(struct rte_roce_port *port, struct roce_port_queue *pq);

/* roce_icmp.c */
void roce_arp_input(struct rte_roce_port *port, struct rte_mbuf *m);
void roce_icmp4_input(struct rte_roce_port *port, struct rte_mbuf *m, uint32_t l4_off,
		      uint32_t l4_len);
void roce_icmp6_input(struct rte_roce_port *port, struct rte_mbuf *m, enum roce_l2_dst l2);
/*
 * Ask for target's MAC: broadcast / to the solicited-node group if unicast
 * is NULL, else a unicast probe to that MAC (the known one of an entry being
 * re-validated; RFC 1122 2.3.2.1, RFC 4861 7.2.2 and 7.3.3). 0 or -errno.
 */
int roce_arp_request(struct rte_roce_port *port, const union rte_roce_gid *target,
		     const struct rte_ether_addr *unicast);
int roce_nd_solicit(struct rte_roce_port *port, const union rte_roce_gid *target,
		    const struct rte_ether_addr *unicast);

#endif /* ROCE_PORT_PRIV_H */
