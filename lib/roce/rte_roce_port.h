/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_PORT_H
#define RTE_ROCE_PORT_H

/**
 * @file
 * RoCEv2 ports over DPDK ethdevs: bring-up, addresses and the GID table,
 * ARP / IPv6 Neighbour Discovery / ICMP echo, and the neighbour cache.
 *
 * A port wraps one already-probed ethdev (net_ring, net_memif,
 * net_af_packet, net_tap or a NIC) with one RX and one TX queue, or
 * rte_roce_port_conf::nb_queues pairs of them (see "Threading").
 * rte_roce_port_poll() receives a burst, answers ARP, ND and echo requests
 * itself, learns neighbours, runs the neighbour timers, and hands back only
 * the RoCEv2 frames addressed to the port that pass the strict parser and
 * the ICRC check. rte_roce_port_send() fills in the Ethernet header of a
 * frame from the neighbour cache, resolving the next hop first if needed.
 *
 * Threading: each RX/TX queue pair of a port is owned by ONE thread at a
 * time; different queues may be driven by different threads at the same
 * time. rte_roce_port_poll() and rte_roce_port_send() drive queue 0, which
 * also owns the slow path: ARP, ND, ICMP echo, the neighbour cache's writes
 * and its timers. The other queues are driven by the RoCE device's workers
 * (rte_roce_worker.h) through private calls: what they receive that is not
 * RoCE, and what they send to a neighbour not yet resolved, is handed to
 * queue 0 through a per-queue single-producer single-consumer ring and
 * handled at queue 0's next poll (slow_handoffs, tx_handoffs); they read
 * the neighbour cache lock-free. So a port with several queues needs queue
 * 0 polled. Every other rte_roce_port_* call (create, destroy, addresses,
 * resolve, multicast, capture, stats) stays single-threaded: it must not
 * run while any queue of the port is being driven by another thread (the
 * device parks its workers around such calls). No function of this file
 * takes a lock, except the capture's writer lock while capturing. Different
 * ports may be driven by different threads, but rte_roce_port_create() and
 * rte_roce_port_destroy() must not run concurrently (they share the table
 * of ports by ethdev).
 *
 * Limits of this version: untagged Ethernet only (802.1Q frames count as
 * RTE_ROCE_PORT_DROP_ETHERTYPE); RoCEv2 unicast only.
 *
 * Every drop is counted by reason (rte_roce_port_stats_get()); nothing on
 * the packet path logs.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <rte_roce_gid.h>
#include <rte_roce_pkt.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Entries in a port's GID table (index 0 is the link-local default GID). */
#define RTE_ROCE_PORT_GID_TBL_LEN 16

/** Neighbour cache size when rte_roce_port_conf::neigh_entries is 0. */
#define RTE_ROCE_PORT_NEIGH_ENTRIES_DEFAULT 256
/** Reachable lifetime of a neighbour when neigh_timeout_ms is 0 (Linux base_reachable_time). */
#define RTE_ROCE_PORT_NEIGH_TIMEOUT_MS_DEFAULT 30000
/** Requests sent before giving up when neigh_retries is 0 (Linux mcast_solicit). */
#define RTE_ROCE_PORT_NEIGH_RETRIES_DEFAULT 3
/** Interval between two requests when neigh_retry_ms is 0 (Linux retrans_time). */
#define RTE_ROCE_PORT_NEIGH_RETRY_MS_DEFAULT 1000
/** Frames queued per unresolved neighbour when neigh_queue_len is 0. */
#define RTE_ROCE_PORT_NEIGH_QUEUE_LEN_DEFAULT 16
/**
 * Bytes of the Ethernet MTU kept for headers when the IB MTU is derived
 * from it (rte_roce_port_ib_mtu(); K:rxe_param.h RXE_MAX_HDR_LENGTH).
 */
#define RTE_ROCE_PORT_IB_MTU_HDR 80
/** Most RX/TX queue pairs of a port (rte_roce_port_conf::nb_queues). */
#define RTE_ROCE_PORT_QUEUES_MAX 16

/** Configuration of a port; zero fields take the documented defaults. */
struct rte_roce_port_conf {
	uint16_t port_id;          /**< ethdev port, already probed */
	uint16_t nb_rx_desc;       /**< RX ring size; 0 = the PMD's default */
	uint16_t nb_tx_desc;       /**< TX ring size; 0 = the PMD's default */
	uint16_t mtu;              /**< Ethernet MTU to set; 0 = keep the device's */
	/**
	 * Use mtu without asking the PMD (no rte_eth_dev_set_mtu()): for PMDs
	 * that carry bigger frames than they report, like net_memif and
	 * net_af_packet (both report max_rx_pktlen 1518). Only the PMD's own
	 * limit is bypassed (logged at NOTICE): the mbuf data room and
	 * net_memif's bsize are still checked. Needs mtu.
	 */
	bool mtu_unchecked;
	/**
	 * MAC address to use; all-zero = the device's. A PMD that cannot
	 * change its MAC (net_ring) is put in promiscuous mode instead.
	 */
	struct rte_ether_addr mac;
	/**
	 * RX and TX mbufs; NULL = create one sized for the MTU. Each holds a
	 * whole frame: its data room must be at least RTE_PKTMBUF_HEADROOM +
	 * mtu + 18 (Ethernet header and a VLAN tag).
	 */
	struct rte_mempool *pool;
	uint32_t neigh_entries;    /**< neighbour cache entries */
	/**
	 * reachable lifetime of a learnt or confirmed neighbour; then it is
	 * removed if unused since, else probed by unicast while still in use
	 */
	uint32_t neigh_timeout_ms;
	uint32_t neigh_retry_ms;   /**< interval between ARP requests / solicitations / probes */
	uint16_t neigh_retries;    /**< requests sent before resolution fails; probes likewise */
	uint16_t neigh_queue_len;  /**< frames queued per unresolved neighbour */
	/**
	 * RX/TX queue pairs; 0 = 1; at most RTE_ROCE_PORT_QUEUES_MAX and what
	 * the ethdev offers. With more than one, RX is spread by RSS on the
	 * UDP ports when the PMD hashes UDP (rte_roce_port_info::rss); without
	 * RSS, frames arrive where the peer puts them (net_ring, net_memif: the
	 * peer's TX queue i is RX queue i).
	 */
	uint16_t nb_queues;
};

/** What a port is, as read by rte_roce_port_info_get(). */
struct rte_roce_port_info {
	uint16_t port_id;          /**< the ethdev */
	uint16_t mtu;              /**< Ethernet MTU */
	uint32_t ib_mtu;           /**< IB path MTU in bytes (256..4096), 0 if the MTU is too small */
	struct rte_ether_addr mac; /**< the port's MAC address */
	bool link_up;              /**< link status, read now */
	uint32_t link_speed;       /**< in Mbit/s, as RTE_ETH_SPEED_NUM_* */
	struct rte_mempool *pool;  /**< the pool the port allocates from */
	uint16_t nb_queues;        /**< RX/TX queue pairs */
	bool rss;                  /**< RSS on UDP spreads RX over the queues */
};

/**
 * Reasons for which rte_roce_port_poll() and rte_roce_port_send() drop a
 * frame; each indexes rte_roce_port_stats::drops.
 */
enum rte_roce_port_drop {
	RTE_ROCE_PORT_DROP_NOT_FOR_US,     /**< destination MAC or IP not the port's */
	RTE_ROCE_PORT_DROP_ETHERTYPE,      /**< neither IPv4, IPv6 nor ARP, or a runt */
	RTE_ROCE_PORT_DROP_IP_MALFORMED,   /**< bad IP header, length or checksum */
	RTE_ROCE_PORT_DROP_IP_FRAGMENT,    /**< IPv4 fragment (RoCE never fragments) */
	RTE_ROCE_PORT_DROP_IP_PROTO,       /**< neither UDP nor ICMP, or IPv6 extension header */
	RTE_ROCE_PORT_DROP_UDP_PORT,       /**< UDP, but not to the RoCEv2 port 4791 */
	RTE_ROCE_PORT_DROP_ARP_MALFORMED,  /**< short, not Ethernet/IPv4, or bad opcode */
	RTE_ROCE_PORT_DROP_ARP_NOT_FOR_US, /**< valid ARP request for another address */
	RTE_ROCE_PORT_DROP_ND_MALFORMED,   /**< NS/NA failing RFC 4861 7.1 validation */
	RTE_ROCE_PORT_DROP_ND_NOT_FOR_US,  /**< valid NS for another address */
	RTE_ROCE_PORT_DROP_ICMP_MALFORMED, /**< short ICMP or bad checksum */
	RTE_ROCE_PORT_DROP_ICMP_TYPE,      /**< ICMP type the port does not handle */
	RTE_ROCE_PORT_DROP_ROCE,           /**< rejected by the RoCE parser or ICRC check: see roce_drops */
	RTE_ROCE_PORT_DROP_NO_MBUF,        /**< no mbuf to build a reply in */
	RTE_ROCE_PORT_DROP_TX_FULL,        /**< TX queue and backlog full */
	RTE_ROCE_PORT_DROP_MAX             /**< number of reasons */
};

/** Counters of a port; all count frames unless the name says bytes. */
struct rte_roce_port_stats {
	uint64_t rx_packets;         /**< frames received from the ethdev */
	uint64_t rx_bytes;           /**< their bytes (Ethernet header on, no FCS) */
	uint64_t rx_roce_packets;    /**< RoCEv2 frames returned by poll */
	uint64_t tx_packets;         /**< frames accepted by the ethdev */
	uint64_t tx_bytes;           /**< their bytes */
	uint64_t tx_backlogged;      /**< frames the TX queue refused at first, kept for a retry */
	uint64_t arp_requests_in;    /**< ARP requests for one of our addresses */
	uint64_t arp_replies_in;     /**< ARP replies received */
	uint64_t arp_requests_out;   /**< ARP requests sent */
	uint64_t arp_replies_out;    /**< ARP replies sent */
	uint64_t nd_solicits_in;     /**< Neighbour Solicitations for one of our addresses */
	uint64_t nd_adverts_in;      /**< Neighbour Advertisements received */
	uint64_t nd_solicits_out;    /**< Neighbour Solicitations sent */
	uint64_t nd_adverts_out;     /**< Neighbour Advertisements sent */
	uint64_t icmp_echo_in;       /**< ICMP and ICMPv6 echo requests for us */
	uint64_t icmp_echo_out;      /**< echo replies sent */
	uint64_t icmp_echo_replies_in; /**< echo replies for us (to a ping sent with rte_roce_port_send) */
	uint64_t neigh_misses;       /**< send or resolve found no usable entry */
	uint64_t neigh_resolved;     /**< entries resolved or refreshed from the wire */
	uint64_t neigh_failed;       /**< resolutions that exhausted their retries */
	uint64_t neigh_expired;      /**< reachable entries aged out unused since last confirmed */
	uint64_t neigh_queue_drops;  /**< frames lost for want of a neighbour: queue full, resolution
				      *   failed (queued or sent after), no source address, cache full */
	/**
	 * unicast probes (ARP request to the known MAC, NS to the neighbour's
	 * address) of entries whose lifetime ended while frames were sent to them
	 */
	uint64_t neigh_probes;
	uint64_t neigh_refreshed;    /**< probed entries confirmed again (also in neigh_resolved) */
	uint64_t neigh_probe_failed; /**< probed entries removed: no answer after neigh_retries probes */
	/** ARP / ND / ICMP frames a queue other than 0 received and handed to queue 0 */
	uint64_t slow_handoffs;
	uint64_t slow_handoff_drops; /**< of those: dropped, the hand-off ring was full */
	/** frames sent on a queue other than 0 to an unresolved next hop, handed to queue 0 */
	uint64_t tx_handoffs;
	uint64_t tx_handoff_drops;   /**< of those: dropped, the hand-off ring was full */
	uint64_t drops[RTE_ROCE_PORT_DROP_MAX]; /**< dropped frames, by reason */
	/**
	 * RoCEv2 frames for us that failed rte_roce_pkt_parse_mbuf() or the
	 * ICRC check (RTE_ROCE_DROP_ICRC), by parser reason; they sum to
	 * drops[RTE_ROCE_PORT_DROP_ROCE]. Names: rte_roce_drop_reason_name().
	 */
	uint64_t roce_drops[RTE_ROCE_DROP_REASON_MAX];
};

/**
 * Initialise the EAL from arguments, unless the host application (an SPDK
 * target, a storage daemon) already did: the EAL is never initialised twice.
 * The test is rte_lcore_count() != 0, which a finished rte_eal_init()
 * guarantees and which does not go through rte_eal_init()'s "already
 * called" failure.
 *
 * @param argc
 *   Number of arguments, as for rte_eal_init().
 * @param argv
 *   Arguments, as for rte_eal_init().
 * @return
 *   The number of arguments consumed (as rte_eal_init()); 0 if the EAL was
 *   already initialised; -EINVAL if argv is NULL or argc < 1; otherwise
 *   -rte_errno of the failed rte_eal_init() (e.g. -EACCES, -EFAULT, -ENOMEM).
 */
int rte_roce_eal_init(int argc, char **argv);

/**
 * Create a port over an ethdev: configure nb_queues RX and TX queues (RSS
 * on UDP when there are several and the PMD has it), set the MTU if asked,
 * start the device, and fill the GID table's index 0 with the link-local
 * GID of the MAC.
 *
 * @param conf
 *   The configuration.
 * @return
 *   The port, or NULL with rte_errno set: EINVAL (conf NULL or a value out of
 *   range, mtu_unchecked with an MTU below 68, an MTU whose frames (mtu + 18)
 *   do not fit in one mbuf of the pool or, on net_memif in copy mode, in one
 *   buffer of its bsize vdev argument (default 2048), no MAC address at all,
 *   nb_queues above RTE_ROCE_PORT_QUEUES_MAX or above the ethdev's
 *   max_rx_queues / max_tx_queues), ENODEV (no such ethdev), EBUSY (a port
 *   already runs on it), ENOTSUP (the PMD refuses to change the MTU, or both
 *   the MAC and promiscuous mode), ENOMEM, or the errno of the
 *   failing ethdev call. Failures are logged.
 */
struct rte_roce_port *rte_roce_port_create(const struct rte_roce_port_conf *conf);

/**
 * Stop the ethdev and free the port: frames queued for unresolved
 * neighbours or for the TX queue are freed, and a pool created by the port
 * is released (so the caller must have freed every mbuf it got from it,
 * e.g. the frames poll returned). The ethdev stays probed and may be given
 * to a new port.
 *
 * @param port
 *   The port; NULL is ignored.
 */
void rte_roce_port_destroy(struct rte_roce_port *port);

/**
 * Read what a port is.
 *
 * @param port
 *   The port.
 * @param info
 *   Where to write it.
 * @return
 *   0; -EINVAL if an argument is NULL; -errno of rte_eth_link_get_nowait().
 */
int rte_roce_port_info_get(struct rte_roce_port *port, struct rte_roce_port_info *info);

/**
 * Largest IB path MTU a given Ethernet MTU carries, as rxe computes it: the
 * largest of 256, 512, 1024, 2048, 4096 that is at most mtu - 80
 * (K:rxe_param.h eth_mtu_int_to_enum, RXE_MAX_HDR_LENGTH).
 *
 * @param mtu
 *   Ethernet MTU.
 * @return
 *   The IB MTU in bytes, or 0 if even 256 does not fit.
 */
uint32_t rte_roce_port_ib_mtu(uint32_t mtu);

/**
 * Give the port an address; it appends a GID (IPv4 as ::ffff:a.b.c.d) to
 * the first free index of the GID table and starts answering ARP / ND and
 * echo requests for it.
 *
 * @param port
 *   The port.
 * @param addr
 *   The address: IPv4-mapped or IPv6 unicast.
 * @param prefix_len
 *   On-link prefix length: 1..32 for IPv4, 1..128 for IPv6.
 * @return
 *   0; -EINVAL (NULL argument, unspecified / multicast / broadcast / loopback
 *   address, bad prefix length); -EEXIST (already in the GID table,
 *   including the default link-local GID); -ENOSPC (GID table full).
 */
int rte_roce_port_addr_add(struct rte_roce_port *port, const union rte_roce_gid *addr,
			   uint8_t prefix_len);

/**
 * Take an address from the port; its GID table entry becomes free (the
 * indices of the others do not move, as in the kernel GID cache).
 *
 * @param port
 *   The port.
 * @param addr
 *   The address.
 * @return
 *   0; -EINVAL if an argument is NULL; -EPERM for the default link-local
 *   GID; -ENOENT if the port does not have the address.
 */
int rte_roce_port_addr_del(struct rte_roce_port *port, const union rte_roce_gid *addr);

/**
 * Read one entry of the GID table.
 *
 * @param port
 *   The port.
 * @param index
 *   0 .. RTE_ROCE_PORT_GID_TBL_LEN - 1.
 * @param gid
 *   Where to write the GID.
 * @return
 *   0; -EINVAL (NULL argument or index out of range); -ENOENT (free entry).
 */
int rte_roce_port_gid_query(struct rte_roce_port *port, uint32_t index, union rte_roce_gid *gid);

/**
 * Find a GID in the table.
 *
 * @param port
 *   The port.
 * @param gid
 *   The GID.
 * @return
 *   Its index; -EINVAL if an argument is NULL; -ENOENT if absent.
 */
int rte_roce_port_gid_find(struct rte_roce_port *port, const union rte_roce_gid *gid);

/**
 * Receive on queue 0: one RX burst, ARP / ND / echo handled internally
 * (including what the other queues handed over), frames the other queues
 * could not resolve sent, neighbour timers and queue 0's TX backlog
 * serviced. Returns the RoCEv2 frames addressed
 * to the port (unicast to its MAC and one of its GIDs, UDP port 4791) that
 * passed rte_roce_pkt_parse_mbuf() at the port's IB MTU and
 * rte_roce_icrc_check_mbuf(). Everything else is consumed and counted.
 *
 * @param port
 *   The port.
 * @param pkts
 *   Where to store the RoCEv2 frames; the caller frees them.
 * @param nb_pkts
 *   Size of pkts, and the RX burst size: with 0 only timers run.
 * @return
 *   Number of frames stored in pkts.
 */
uint16_t rte_roce_port_poll(struct rte_roce_port *port, struct rte_mbuf **pkts, uint16_t nb_pkts);

/**
 * Send a frame to a next hop, on queue 0. m holds a whole Ethernet frame whose first
 * RTE_ETHER_HDR_LEN bytes are overwritten here: destination MAC from the
 * neighbour cache (or the group's MAC when next_hop is a multicast group,
 * sent without resolution), the port's MAC, and the EtherType of the IP version found
 * right after. If the neighbour is unknown, an ARP request or Neighbour
 * Solicitation goes out and m waits in the neighbour's bounded queue.
 * The port always takes m: on error it is freed and counted.
 *
 * @param port
 *   The port.
 * @param m
 *   The frame.
 * @param next_hop
 *   The neighbour to send it to (the destination itself on a local link).
 * @return
 *   0 (sent, or queued for the TX queue or the neighbour); -EINVAL (NULL
 *   argument, frame shorter than an Ethernet header plus one byte, not IPv4
 *   or IPv6, next hop family differs); -EADDRNOTAVAIL (no local address of
 *   that family to ask from); -ENOBUFS (the neighbour's queue or the TX
 *   backlog is full); -EHOSTUNREACH (resolution of the next hop failed
 *   recently).
 */
int rte_roce_port_send(struct rte_roce_port *port, struct rte_mbuf *m,
		       const union rte_roce_gid *next_hop);

/**
 * Start capturing every frame through the port's ethdev, on every RX and TX
 * queue, into a classic pcap file (nanosecond timestamps, Ethernet) that
 * tshark and roce_dump read. For processes where DPDK's pdump cannot work
 * (--in-memory, --no-shconf); rte_roce_port_destroy() stops it. Frames are
 * taken in ethdev callbacks, so dropped frames are captured as well.
 *
 * @param port
 *   The port.
 * @param path
 *   The file, created or truncated.
 * @return
 *   0; -EINVAL (NULL argument); -EBUSY (already capturing); -ENOMEM; an
 *   errno of creating the file (-ENOENT, -EACCES, ...); -ENOTSUP (DPDK built
 *   without RX/TX callbacks).
 */
int rte_roce_port_capture_start(struct rte_roce_port *port, const char *path);

/**
 * Stop the capture and close its file. No thread may be polling or sending
 * on the port meanwhile (the callbacks are freed here): call it from the
 * thread that drives the port.
 *
 * @param port
 *   The port.
 * @return
 *   0; -EINVAL (NULL port); -ENOENT (not capturing); a negative errno of
 *   writing the file (-ENOSPC, -EIO, ...): the capture is stopped anyway.
 */
int rte_roce_port_capture_stop(struct rte_roce_port *port);

/**
 * Look up, or start resolving, the MAC of a neighbour. A lookup does not
 * count as use of the entry: only frames sent through it keep it probed
 * (and so alive) past neigh_timeout_ms.
 *
 * @param port
 *   The port.
 * @param ip
 *   The neighbour's address.
 * @param mac
 *   Where to write its MAC when known.
 * @return
 *   0 and *mac; -EAGAIN (resolution in progress, started if needed);
 *   -EHOSTUNREACH (retries exhausted; the failure holds for neigh_timeout_ms);
 *   -EADDRNOTAVAIL (no local address of that family); -EINVAL (NULL
 *   argument, or a multicast / unspecified address); -ENOSPC (cache full of
 *   unresolved entries).
 */
int rte_roce_port_resolve(struct rte_roce_port *port, const union rte_roce_gid *ip,
			  struct rte_ether_addr *mac);

/** Multicast groups a port can join at once. */
#define RTE_ROCE_PORT_MCAST_MAX 64

/**
 * Receive a multicast group: RoCEv2 frames sent to the group's IP address
 * (and its MAC: 01:00:5e + the low 23 bits for IPv4, RFC 1112 6.4;
 * 33:33 + the low 32 bits for IPv6, RFC 2464 7) are returned by
 * rte_roce_port_poll(). Joins are counted: a group joined twice must be
 * left twice. The group MACs go to the ethdev's multicast filter
 * (rte_eth_dev_set_mc_addr_list()); a PMD without one relies on the
 * all-multicast mode the port asks for at creation. No IGMP/MLD report is
 * sent: a switch that snoops needs a querier-less configuration.
 *
 * @param port
 *   The port.
 * @param group
 *   A multicast address (IPv4-mapped 224.0.0.0/4 or IPv6 ff00::/8).
 * @return
 *   0; -EINVAL (NULL argument, not a multicast address); -ENOSPC
 *   (RTE_ROCE_PORT_MCAST_MAX groups joined already).
 */
int rte_roce_port_mcast_join(struct rte_roce_port *port, const union rte_roce_gid *group);

/**
 * Leave a multicast group joined with rte_roce_port_mcast_join(); the
 * last leave stops its reception.
 *
 * @param port
 *   The port.
 * @param group
 *   The group.
 * @return
 *   0; -EINVAL (NULL argument); -ENOENT (group not joined).
 */
int rte_roce_port_mcast_leave(struct rte_roce_port *port, const union rte_roce_gid *group);

/**
 * Read the port's counters: the sum of its queues' (each queue counts what
 * its owner did; the slow path's counters are queue 0's).
 *
 * @param port
 *   The port.
 * @param stats
 *   Where to write them.
 * @return
 *   0; -EINVAL if an argument is NULL.
 */
int rte_roce_port_stats_get(struct rte_roce_port *port, struct rte_roce_port_stats *stats);

/**
 * Read the counters of one queue of the port.
 *
 * @param port
 *   The port.
 * @param queue
 *   The queue, below rte_roce_port_info::nb_queues.
 * @param stats
 *   Where to write them.
 * @return
 *   0; -EINVAL if an argument is NULL or queue is out of range.
 */
int rte_roce_port_queue_stats_get(struct rte_roce_port *port, uint16_t queue,
				  struct rte_roce_port_stats *stats);

/**
 * Zero the port's counters, of every queue.
 *
 * @param port
 *   The port.
 * @return
 *   0; -EINVAL if port is NULL.
 */
int rte_roce_port_stats_reset(struct rte_roce_port *port);

/**
 * Name of a drop reason, snake_case, for counter names.
 *
 * @param reason
 *   The reason.
 * @return
 *   The name; "unknown" for a value out of range.
 */
const char *rte_roce_port_drop_name(enum rte_roce_port_drop reason);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_PORT_H */
