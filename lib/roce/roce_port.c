/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Ports: bring-up over an ethdev, the GID table, RX classification and TX.
 *
 * Threading model. Each RX/TX queue pair q of a port is owned by ONE thread
 * (struct roce_port_queue: backlog, parses, counters), and different
 * queues run at the same time. Queue 0 (rte_roce_port_poll/send) owns the
 * slow path: ARP, ND, ICMP and the neighbour cache's writes and timers.
 * Another queue hands what it receives of those to queue 0, and what it
 * sends to a next hop it cannot read as REACHABLE, through two SPSC
 * rte_rings of its own (q -> 0); queue 0 drains them at each poll. So no
 * queue waits for another, and nothing on the packet path takes a lock.
 * The other calls of a port (addresses, resolve, multicast, capture,
 * stats) run while no queue is driven by another thread. Timers
 * (neighbour ageing, resolution retries) run inside queue 0's poll from
 * rte_get_timer_cycles(): no thread, no signal, no syscall on the packet
 * path.
 *
 * RX: poll() receives a burst; a frame of the known layout (one segment,
 * our MAC, IPv4 without options) goes straight to the strict parser
 * (roce_port_rx_fast()), the others, and any it refuses, are sorted. ARP,
 * Neighbour Discovery and ICMP echo are answered here (roce_icmp.c) and learnt into
 * the neighbour cache (roce_neigh.c); RoCEv2 frames for one of our GIDs go
 * back to the caller once the strict checks pass; the rest is dropped and
 * counted by reason.
 *
 * TX: every frame goes through roce_port_tx(). What the TX queue refuses
 * waits, in order, in a bounded backlog flushed first by the next send and
 * by every poll: a refused frame is retried, and counted if it must be
 * dropped, never lost silently.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal_memconfig.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <rte_udp.h>

#include "roce_log.h"
#include "roce_cksum.h"
#include "roce_icrc.h"
#include "roce_parse.h"
#include "roce_port_priv.h"
#include "rte_roce_icrc.h"

#define ROCE_IB_MTU_MIN 256
#define ROCE_IB_MTU_MAX 4096

/*
 * net_memif's buffer size: its vdev argument and default (DPDK 22.11
 * ETH_MEMIF_DEFAULT_PKT_BUFFER_SIZE), and its zero-copy argument (then
 * frames travel in the mbufs, not in those buffers).
 */
#define ROCE_MEMIF_DRIVER "net_memif"
#define ROCE_MEMIF_BSIZE_ARG "bsize"
#define ROCE_MEMIF_BSIZE_DEFAULT 2048
#define ROCE_MEMIF_ZC_ARG "zero-copy"

/* Mbufs of a pool the port creates: RX and TX rings, the backlog, and slack. */
#define ROCE_PORT_POOL_SLACK 1024
#define ROCE_PORT_POOL_CACHE 64
#define ROCE_PORT_DESC_ASSUMED 1024	/* ring size assumed when the PMD picks it */
/* The UDP hash types RSS is asked for: RoCEv2's UDP source port varies by QP. */
#define ROCE_PORT_RSS_UDP (RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV6_UDP)

#define ROCE_IPV4_VERSION 4
#define ROCE_IPV6_VERSION 6
#define ROCE_IPV4_IHL_MIN 5
#define ROCE_IPV4_FRAG_MASK (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)
#define ROCE_CKSUM_OK 0xffff	/* one's complement sum over data and its checksum */

/* Ports by ethdev, to refuse a second port on the same device. */
static struct rte_roce_port *roce_ports[RTE_MAX_ETHPORTS];

static const char *const roce_port_drop_names[RTE_ROCE_PORT_DROP_MAX] = {
	[RTE_ROCE_PORT_DROP_NOT_FOR_US] = "not_for_us",
	[RTE_ROCE_PORT_DROP_ETHERTYPE] = "ethertype",
	[RTE_ROCE_PORT_DROP_IP_MALFORMED] = "ip_malformed",
	[RTE_ROCE_PORT_DROP_IP_FRAGMENT] = "ip_fragment",
	[RTE_ROCE_PORT_DROP_IP_PROTO] = "ip_proto",
	[RTE_ROCE_PORT_DROP_UDP_PORT] = "udp_port",
	[RTE_ROCE_PORT_DROP_ARP_MALFORMED] = "arp_malformed",
	[RTE_ROCE_PORT_DROP_ARP_NOT_FOR_US] = "arp_not_for_us",
	[RTE_ROCE_PORT_DROP_ND_MALFORMED] = "nd_malformed",
	[RTE_ROCE_PORT_DROP_ND_NOT_FOR_US] = "nd_not_for_us",
	[RTE_ROCE_PORT_DROP_ICMP_MALFORMED] = "icmp_malformed",
	[RTE_ROCE_PORT_DROP_ICMP_TYPE] = "icmp_type",
	[RTE_ROCE_PORT_DROP_ROCE] = "roce",
	[RTE_ROCE_PORT_DROP_NO_MBUF] = "no_mbuf",
	[RTE_ROCE_PORT_DROP_TX_FULL] = "tx_full",
};

const char *
rte_roce_port_drop_name(enum rte_roce_port_drop reason)
{
	if ((unsigned int)reason >= RTE_ROCE_PORT_DROP_MAX)
		return "unknown";
	return roce_port_drop_names[reason];
}

uint32_t
rte_roce_port_ib_mtu(uint32_t mtu)
{
	uint32_t ib_mtu;

	if (mtu < ROCE_IB_MTU_MIN + RTE_ROCE_PORT_IB_MTU_HDR)
		return 0;
	for (ib_mtu = ROCE_IB_MTU_MAX; ib_mtu > mtu - RTE_ROCE_PORT_IB_MTU_HDR; ib_mtu >>= 1)
		;
	return ib_mtu;
}

/* ---- bring-up ---- */

/*
 * The largest frame the port sends or receives at an Ethernet MTU: an
 * Ethernet header and 4 bytes more than the MTU, which are a VLAN tag on a
 * received full-MTU packet, or what an IPv6 packet of a full IB MTU payload
 * behind RETH and ImmDt takes beyond rxe's MTU - 80 rule (doc/wire-format.md
 * 1.3). No FCS: PMDs strip it.
 */
static uint32_t
roce_port_frame_max(uint16_t mtu)
{
	return (uint32_t)mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN;
}

static struct rte_mempool *
roce_port_pool_create(uint16_t port_id, uint16_t mtu, uint32_t nb_desc, uint16_t nb_queues,
		      int socket)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	uint32_t room = RTE_PKTMBUF_HEADROOM + mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN +
			RTE_ETHER_CRC_LEN;
	/* every queue: its rings and its backlog; queues 1..n-1: their two hand-off rings */
	uint32_t nb_mbufs = (nb_desc + ROCE_PORT_TX_BACKLOG) * nb_queues +
			    2 * ROCE_PORT_HANDOFF_RING * (nb_queues - 1) + ROCE_PORT_POOL_SLACK;

	snprintf(name, sizeof(name), "roce_port%u", port_id);
	return rte_pktmbuf_pool_create(name, nb_mbufs,
				       ROCE_PORT_POOL_CACHE, 0,
				       RTE_MAX(room, (uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE), socket);
}

static int
roce_port_conf_check(const struct rte_roce_port_conf *conf)
{
	if (conf == NULL) {
		ROCE_PORT_LOG(ERR, "no configuration");
		return -EINVAL;
	}
	if (!rte_eth_dev_is_valid_port(conf->port_id)) {
		ROCE_PORT_LOG(ERR, "ethdev port %u does not exist", conf->port_id);
		return -ENODEV;
	}
	if (roce_ports[conf->port_id] != NULL) {
		ROCE_PORT_LOG(ERR, "ethdev port %u already has a RoCE port", conf->port_id);
		return -EBUSY;
	}
	if (conf->mtu_unchecked && conf->mtu < RTE_ETHER_MIN_MTU) {
		ROCE_PORT_LOG(ERR, "mtu_unchecked needs an MTU of at least %u", RTE_ETHER_MIN_MTU);
		return -EINVAL;
	}
	if (conf->nb_queues > RTE_ROCE_PORT_QUEUES_MAX) {
		ROCE_PORT_LOG(ERR, "%u queues asked, at most %u", conf->nb_queues,
			      RTE_ROCE_PORT_QUEUES_MAX);
		return -EINVAL;
	}
	return 0;
}

/* The queue pairs the ethdev can give: -EINVAL (logged) if fewer than nb_queues. */
static int
roce_port_queues_check(uint16_t port_id, uint16_t nb_queues, struct rte_eth_dev_info *info)
{
	int ret;

	ret = rte_eth_dev_info_get(port_id, info);
	if (ret != 0) {
		ROCE_PORT_LOG(ERR, "port %u: no device info: %s", port_id, rte_strerror(-ret));
		return ret;
	}
	if (nb_queues > info->max_rx_queues || nb_queues > info->max_tx_queues) {
		ROCE_PORT_LOG(ERR, "port %u: %u queues asked, the device has %u RX and %u TX",
			      port_id, nb_queues, info->max_rx_queues, info->max_tx_queues);
		return -EINVAL;
	}
	return 0;
}

/*
 * Every frame is built in one mbuf of the port's pool (rte_roce_pkt_build_mbuf)
 * and received in one (no RX scatter is asked for): the data room after the
 * headroom must hold the largest frame.
 */
static int
roce_port_pool_check(const struct rte_roce_port *port, uint16_t mtu, uint32_t frame)
{
	uint32_t room = rte_pktmbuf_data_room_size(port->pool);
	uint32_t usable = room > RTE_PKTMBUF_HEADROOM ? room - RTE_PKTMBUF_HEADROOM : 0;

	if (usable >= frame)
		return 0;
	ROCE_PORT_LOG(ERR, "port %u: the mbufs of pool %s hold %u bytes after the headroom, a "
		      "frame at MTU %u takes %u: give a pool whose data room is at least %u "
		      "(rte_roce_port_conf::pool) or lower rte_roce_port_conf::mtu",
		      port->port_id, port->pool->name, usable, mtu, frame,
		      frame + RTE_PKTMBUF_HEADROOM);
	return -EINVAL;
}

/*
 * What the PMD says it carries. Past it, a checked MTU is refused by
 * rte_eth_dev_set_mtu(); an unchecked one is taken, and the log says which
 * limit was not asked.
 */
static void
roce_port_pmd_limits_note(const struct rte_roce_port *port, const struct rte_roce_port_conf *conf,
			  const struct rte_eth_dev_info *info, uint32_t frame)
{
	if (!conf->mtu_unchecked || (conf->mtu <= info->max_mtu && frame <= info->max_rx_pktlen))
		return;
	ROCE_PORT_LOG(NOTICE, "port %u: mtu_unchecked: MTU %u (frames of %u bytes) taken without "
		      "the PMD, which reports max_mtu %u and max_rx_pktlen %u; the mbuf and "
		      "net_memif bsize checks still apply, what the device itself carries is "
		      "not checked", port->port_id, conf->mtu, frame, info->max_mtu,
		      info->max_rx_pktlen);
}

/* The value of key in a device's arguments; false if absent or unreadable. */
static bool
roce_port_devarg(const struct rte_eth_dev_info *info, const char *key, char *val, size_t len)
{
	const struct rte_devargs *da = info->device != NULL ? rte_dev_devargs(info->device) : NULL;
	struct rte_kvargs *kv;
	const char *v;

	if (da == NULL || da->drv_str == NULL)
		return false;
	kv = rte_kvargs_parse(da->drv_str, NULL);
	if (kv == NULL)
		return false;
	v = rte_kvargs_get(kv, key);
	if (v != NULL)
		strlcpy(val, v, len);
	rte_kvargs_free(kv);
	return v != NULL;
}

/*
 * net_memif (copy mode) must carry every frame in one ring buffer: DPDK
 * 22.11's eth_memif_tx() spreads a bigger frame over chained descriptors,
 * but does not count its first descriptor before taking the next one, so a
 * chained frame offered with one slot free overwrites a descriptor the peer
 * has not read, and a slot reused after a chain keeps its NEXT flag
 * (doc/lessons.md: frames are lost or merged, RC ends in retry exceeded).
 * The ring's buffers are the memif client's bsize; each side checks its own.
 */
static int
roce_port_memif_check(const struct rte_roce_port *port, const struct rte_eth_dev_info *info,
		      uint16_t mtu, uint32_t frame)
{
	char val[16];
	unsigned long bsize = ROCE_MEMIF_BSIZE_DEFAULT;

	if (info->driver_name == NULL || strcmp(info->driver_name, ROCE_MEMIF_DRIVER) != 0)
		return 0;
	if (roce_port_devarg(info, ROCE_MEMIF_ZC_ARG, val, sizeof(val)) && strcmp(val, "yes") == 0)
		return 0;
	if (roce_port_devarg(info, ROCE_MEMIF_BSIZE_ARG, val, sizeof(val)))
		bsize = strtoul(val, NULL, 10);
	if (bsize >= frame)
		return 0;
	ROCE_PORT_LOG(ERR, "port %u: net_memif buffers of %lu bytes (vdev argument bsize) are "
		      "smaller than a frame at MTU %u (%u bytes), which net_memif would chain "
		      "and lose: set bsize=%u or more on both sides, or lower "
		      "rte_roce_port_conf::mtu", port->port_id, bsize, mtu, frame, frame);
	return -EINVAL;
}

/*
 * Refuse, before the device is configured, an MTU whose frames the port
 * could not carry: -EINVAL, logged with the knob to change.
 */
static int
roce_port_frame_check(const struct rte_roce_port *port, const struct rte_roce_port_conf *conf,
		      const struct rte_eth_dev_info *info, uint16_t mtu)
{
	uint32_t frame = roce_port_frame_max(mtu);
	int ret;

	ret = roce_port_pool_check(port, mtu, frame);
	if (ret == 0)
		ret = roce_port_memif_check(port, info, mtu, frame);
	if (ret == 0)
		roce_port_pmd_limits_note(port, conf, info, frame);
	return ret;
}

/*
 * RSS on UDP when several queues share RX and the PMD hashes UDP; else the
 * frames land where the device puts them (net_ring, memif: the peer's TX
 * queue i is our RX queue i). No key: the PMD's default
 * (rte_eth_rss_conf::rss_key NULL).
 */
static void
roce_port_rss_setup(struct rte_roce_port *port, const struct rte_eth_dev_info *info,
		    struct rte_eth_conf *dev_conf)
{
	uint64_t hf = info->flow_type_rss_offloads & ROCE_PORT_RSS_UDP;

	if (port->nb_queues <= 1)
		return;
	if (hf != 0) {
		dev_conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		dev_conf->rx_adv_conf.rss_conf.rss_key = NULL;
		dev_conf->rx_adv_conf.rss_conf.rss_hf = hf;
		port->rss = true;
	}
	ROCE_PORT_LOG(INFO, "port %u: %u queues, %s", port->port_id, port->nb_queues,
		      port->rss ? "RSS on UDP" : "no RSS (frames stay on the queue they arrive on)");
}

static int
roce_port_dev_setup(struct rte_roce_port *port, const struct rte_roce_port_conf *conf,
		    const struct rte_eth_dev_info *info)
{
	struct rte_eth_conf dev_conf;
	uint16_t id = port->port_id;
	int socket = rte_eth_dev_socket_id(id);
	uint16_t q;
	int ret;

	memset(&dev_conf, 0, sizeof(dev_conf));
	/* Keep the device's MTU through configure: 0 would mean 1500 to ethdev. */
	dev_conf.rxmode.mtu = port->mtu;
	roce_port_rss_setup(port, info, &dev_conf);
	ret = rte_eth_dev_configure(id, port->nb_queues, port->nb_queues, &dev_conf);
	if (ret != 0) {
		ROCE_PORT_LOG(ERR, "port %u: configure failed: %s", id, rte_strerror(-ret));
		return ret;
	}
	if (conf->mtu_unchecked) {
		port->mtu = conf->mtu;
	} else if (conf->mtu != 0 && conf->mtu != port->mtu) {
		ret = rte_eth_dev_set_mtu(id, conf->mtu);
		if (ret != 0) {
			ROCE_PORT_LOG(ERR, "port %u: MTU %u refused by the PMD (%s; it reports "
				      "max_mtu %u, max_rx_pktlen %u): lower rte_roce_port_conf::mtu, "
				      "or set mtu_unchecked if the device carries bigger frames "
				      "than it reports", id, conf->mtu, rte_strerror(-ret),
				      info->max_mtu, info->max_rx_pktlen);
			return ret;
		}
		port->mtu = conf->mtu;
	}
	for (q = 0; q < port->nb_queues; q++) {
		ret = rte_eth_rx_queue_setup(id, q, conf->nb_rx_desc, socket, NULL, port->pool);
		if (ret != 0) {
			ROCE_PORT_LOG(ERR, "port %u: RX queue %u setup failed: %s (mbufs of %u "
				      "bytes: a PMD may want bigger ones, rte_roce_port_conf::pool)",
				      id, q, rte_strerror(-ret),
				      rte_pktmbuf_data_room_size(port->pool));
			return ret;
		}
		ret = rte_eth_tx_queue_setup(id, q, conf->nb_tx_desc, socket, NULL);
		if (ret != 0) {
			ROCE_PORT_LOG(ERR, "port %u: TX queue %u setup failed: %s", id, q,
				      rte_strerror(-ret));
			return ret;
		}
	}
	ret = rte_eth_dev_start(id);
	if (ret != 0) {
		ROCE_PORT_LOG(ERR, "port %u: start failed: %s", id, rte_strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * Take the configured MAC, or the device's. Receiving for a MAC the device
 * does not filter on needs promiscuous mode; IPv6 Neighbour Discovery needs
 * the solicited-node groups, so all-multicast is asked for (best effort:
 * virtual PMDs filter nothing anyway).
 */
static int
roce_port_mac_setup(struct rte_roce_port *port, const struct rte_roce_port_conf *conf)
{
	uint16_t id = port->port_id;
	int ret;

	if (!rte_is_zero_ether_addr(&conf->mac)) {
		if (!rte_is_unicast_ether_addr(&conf->mac)) {
			ROCE_PORT_LOG(ERR, "port %u: configured MAC is not unicast", id);
			return -EINVAL;
		}
		ret = rte_eth_dev_default_mac_addr_set(id, (struct rte_ether_addr *)(uintptr_t)&conf->mac);
		if (ret == -ENOTSUP)
			ret = rte_eth_promiscuous_enable(id);
		if (ret != 0) {
			ROCE_PORT_LOG(ERR, "port %u: cannot use the configured MAC: %s", id,
				      rte_strerror(-ret));
			return ret;
		}
		port->mac = conf->mac;
	}
	if (rte_is_zero_ether_addr(&port->mac)) {
		ROCE_PORT_LOG(ERR, "port %u: no MAC address; set rte_roce_port_conf::mac", id);
		return -EINVAL;
	}
	ret = rte_eth_allmulticast_enable(id);
	if (ret != 0)
		ROCE_PORT_LOG(DEBUG, "port %u: no all-multicast mode (%s)", id, rte_strerror(-ret));
	return 0;
}

/* The two hand-off rings of queue q != 0 (to queue 0, one producer, one consumer). */
static int
roce_port_handoff_init(struct rte_roce_port *port, struct roce_port_queue *pq)
{
	char name[RTE_RING_NAMESIZE];
	int socket = rte_eth_dev_socket_id(port->port_id);

	snprintf(name, sizeof(name), "roce_slow%u_%u", port->port_id, pq->id);
	pq->slow_rx = rte_ring_create(name, ROCE_PORT_HANDOFF_RING, socket,
				      RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "roce_slowtx%u_%u", port->port_id, pq->id);
	pq->slow_tx = rte_ring_create_elem(name, sizeof(struct roce_port_handoff),
					   ROCE_PORT_HANDOFF_RING, socket,
					   RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (pq->slow_rx == NULL || pq->slow_tx == NULL) {
		ROCE_PORT_LOG(ERR, "port %u: no hand-off ring for queue %u: %s", port->port_id,
			      pq->id, rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

static int
roce_port_init(struct rte_roce_port *port, const struct rte_roce_port_conf *conf,
	       const struct rte_eth_dev_info *info)
{
	uint32_t nb_desc;
	uint16_t mtu, q;
	int ret;

	ret = rte_eth_dev_get_mtu(port->port_id, &port->mtu);
	if (ret == 0)
		ret = rte_eth_macaddr_get(port->port_id, &port->mac);
	if (ret != 0) {
		ROCE_PORT_LOG(ERR, "port %u: cannot read MTU/MAC: %s", port->port_id,
			      rte_strerror(-ret));
		return ret;
	}
	mtu = conf->mtu != 0 ? conf->mtu : port->mtu;
	port->pool = conf->pool;
	if (port->pool == NULL) {
		nb_desc = (conf->nb_rx_desc != 0 ? conf->nb_rx_desc : ROCE_PORT_DESC_ASSUMED) +
			  (conf->nb_tx_desc != 0 ? conf->nb_tx_desc : ROCE_PORT_DESC_ASSUMED);
		port->pool = roce_port_pool_create(port->port_id, mtu, nb_desc, port->nb_queues,
						   rte_eth_dev_socket_id(port->port_id));
		if (port->pool == NULL) {
			ROCE_PORT_LOG(ERR, "port %u: cannot create mbuf pool: %s", port->port_id,
				      rte_strerror(rte_errno));
			return -rte_errno;
		}
		port->own_pool = true;
	}
	ret = roce_port_frame_check(port, conf, info, mtu);
	if (ret != 0)
		return ret;
	for (q = 1; q < port->nb_queues; q++) {
		ret = roce_port_handoff_init(port, &port->q[q]);
		if (ret != 0)
			return ret;
	}
	ret = roce_neigh_init(port, conf);
	if (ret != 0)
		return ret;
	ret = roce_port_dev_setup(port, conf, info);
	if (ret != 0)
		return ret;
	ret = roce_port_mac_setup(port, conf);
	if (ret != 0) {
		rte_eth_dev_stop(port->port_id);
		return ret;
	}
	port->ib_mtu = rte_roce_port_ib_mtu(port->mtu);
	rte_roce_gid_from_mac(&port->gids[0].gid, &port->mac);
	port->gids[0].prefix_len = 64;	/* fe80::/64 (RFC 4291 2.5.6) */
	port->gids[0].valid = true;
	return 0;
}

static void
roce_port_queue_free(struct roce_port_queue *pq)
{
	struct roce_port_handoff h;
	struct rte_mbuf *m;

	while (pq->tx_count != 0) {
		rte_pktmbuf_free(pq->tx_backlog[pq->tx_head]);
		pq->tx_head = (pq->tx_head + 1) & (ROCE_PORT_TX_BACKLOG - 1);
		pq->tx_count--;
	}
	if (pq->slow_rx != NULL)
		while (rte_ring_sc_dequeue(pq->slow_rx, (void **)&m) == 0)
			rte_pktmbuf_free(m);
	if (pq->slow_tx != NULL)
		while (rte_ring_sc_dequeue_elem(pq->slow_tx, &h, sizeof(h)) == 0)
			rte_pktmbuf_free(h.m);
	rte_ring_free(pq->slow_rx);
	rte_ring_free(pq->slow_tx);
}

static void
roce_port_free(struct rte_roce_port *port)
{
	uint16_t q;

	for (q = 0; q < port->nb_queues; q++)
		roce_port_queue_free(&port->q[q]);
	roce_neigh_fini(port);
	/*
	 * PMDs give back their RX ring's mbufs in dev_stop (or hold none, as the
	 * virtual PMDs), so a pool of our own can go now.
	 */
	if (port->own_pool)
		rte_mempool_free(port->pool);
	rte_free(port);
}

struct rte_roce_port *
rte_roce_port_create(const struct rte_roce_port_conf *conf)
{
	struct rte_eth_dev_info info;
	struct rte_roce_port *port;
	uint16_t nb_queues = 1, q;
	int ret;

	ret = roce_port_conf_check(conf);
	if (ret == 0) {
		nb_queues = RTE_MAX(conf->nb_queues, 1);
		ret = roce_port_queues_check(conf->port_id, nb_queues, &info);
	}
	if (ret != 0) {
		rte_errno = -ret;
		return NULL;
	}
	port = rte_zmalloc_socket("roce_port", sizeof(*port) + nb_queues * sizeof(port->q[0]),
				  RTE_CACHE_LINE_SIZE, rte_eth_dev_socket_id(conf->port_id));
	if (port == NULL) {
		ROCE_PORT_LOG(ERR, "port %u: out of memory", conf->port_id);
		rte_errno = ENOMEM;
		return NULL;
	}
	port->port_id = conf->port_id;
	port->nb_queues = nb_queues;
	for (q = 0; q < nb_queues; q++)
		port->q[q].id = q;
	ret = roce_port_init(port, conf, &info);
	if (ret != 0) {
		roce_port_free(port);
		rte_errno = -ret;
		return NULL;
	}
	roce_ports[port->port_id] = port;
	return port;
}

void
rte_roce_port_destroy(struct rte_roce_port *port)
{
	int ret;

	if (port == NULL)
		return;
	ret = rte_eth_dev_stop(port->port_id);
	if (ret != 0)
		ROCE_PORT_LOG(WARNING, "port %u: stop failed: %s", port->port_id,
			      rte_strerror(-ret));
	roce_ports[port->port_id] = NULL;
	if (port->capture != NULL)
		rte_roce_port_capture_stop(port);
	roce_port_free(port);
}

int
rte_roce_port_info_get(struct rte_roce_port *port, struct rte_roce_port_info *info)
{
	struct rte_eth_link link;
	int ret;

	if (port == NULL || info == NULL)
		return -EINVAL;
	ret = rte_eth_link_get_nowait(port->port_id, &link);
	if (ret != 0)
		return ret;
	memset(info, 0, sizeof(*info));
	info->port_id = port->port_id;
	info->mtu = port->mtu;
	info->ib_mtu = port->ib_mtu;
	info->mac = port->mac;
	info->link_up = link.link_status == RTE_ETH_LINK_UP;
	info->link_speed = link.link_speed;
	info->pool = port->pool;
	info->nb_queues = port->nb_queues;
	info->rss = port->rss;
	return 0;
}

uint16_t
roce_port_nb_queues(const struct rte_roce_port *port)
{
	return port->nb_queues;
}

struct rte_mempool *
roce_port_pool(const struct rte_roce_port *port)
{
	return port->pool;
}

uint32_t
roce_port_ib_mtu(const struct rte_roce_port *port)
{
	return port->ib_mtu;
}

/* ---- addresses and the GID table ---- */

/* The index of gid in the port's table, or -ENOENT. */
static inline int
roce_port_gid_index(const struct rte_roce_port *port, const union rte_roce_gid *gid)
{
	unsigned int i;

	for (i = 0; i < RTE_ROCE_PORT_GID_TBL_LEN; i++)
		if (port->gids[i].valid && rte_roce_gid_equal(&port->gids[i].gid, gid))
			return i;
	return -ENOENT;
}

int
rte_roce_port_gid_find(struct rte_roce_port *port, const union rte_roce_gid *gid)
{
	if (port == NULL || gid == NULL)
		return -EINVAL;
	return roce_port_gid_index(port, gid);
}

/*
 * Every received frame asks: the table walked here, not through the
 * exported function and its argument checks (a PLT call, ~10 instructions
 * a frame).
 */
bool
roce_port_is_local(const struct rte_roce_port *port, const union rte_roce_gid *gid)
{
	return roce_port_gid_index(port, gid) >= 0;
}

int
rte_roce_port_gid_query(struct rte_roce_port *port, uint32_t index, union rte_roce_gid *gid)
{
	if (port == NULL || gid == NULL || index >= RTE_ROCE_PORT_GID_TBL_LEN)
		return -EINVAL;
	if (!port->gids[index].valid)
		return -ENOENT;
	*gid = port->gids[index].gid;
	return 0;
}

static bool
roce_ipv4_unicast(rte_be32_t addr)
{
	uint32_t a = rte_be_to_cpu_32(addr);

	/* Not 0/8 ("this network"), 127/8 (loopback), 224/4 and above (multicast, reserved, broadcast). */
	return (a >> 24) != 0 && (a >> 24) != 127 && (a >> 28) < 0xe;
}

static bool
roce_ipv6_unicast(const union rte_roce_gid *gid)
{
	static const union rte_roce_gid loopback = { .raw = { [15] = 1 } };
	static const union rte_roce_gid unspecified;

	return gid->raw[0] != 0xff && !rte_roce_gid_equal(gid, &loopback) &&
	       !rte_roce_gid_equal(gid, &unspecified);
}

int
rte_roce_port_addr_add(struct rte_roce_port *port, const union rte_roce_gid *addr,
		       uint8_t prefix_len)
{
	bool v4;
	unsigned int i;

	if (port == NULL || addr == NULL)
		return -EINVAL;
	v4 = rte_roce_gid_is_ipv4(addr);
	if (v4 ? !roce_ipv4_unicast(rte_roce_gid_to_ipv4(addr)) : !roce_ipv6_unicast(addr)) {
		ROCE_PORT_LOG(ERR, "port %u: not a unicast address", port->port_id);
		return -EINVAL;
	}
	if (prefix_len == 0 || prefix_len > (v4 ? 32 : 128)) {
		ROCE_PORT_LOG(ERR, "port %u: bad prefix length %u", port->port_id, prefix_len);
		return -EINVAL;
	}
	/* Also catches a link-local equal to the default GID, never listed twice. */
	if (rte_roce_port_gid_find(port, addr) >= 0) {
		ROCE_PORT_LOG(ERR, "port %u: address already in the GID table", port->port_id);
		return -EEXIST;
	}
	for (i = 0; i < RTE_ROCE_PORT_GID_TBL_LEN; i++) {
		if (!port->gids[i].valid) {
			port->gids[i].gid = *addr;
			port->gids[i].prefix_len = prefix_len;
			port->gids[i].valid = true;
			return 0;
		}
	}
	ROCE_PORT_LOG(ERR, "port %u: GID table full", port->port_id);
	return -ENOSPC;
}

int
rte_roce_port_addr_del(struct rte_roce_port *port, const union rte_roce_gid *addr)
{
	int idx;

	if (port == NULL || addr == NULL)
		return -EINVAL;
	idx = rte_roce_port_gid_find(port, addr);
	if (idx < 0) {
		ROCE_PORT_LOG(ERR, "port %u: no such address", port->port_id);
		return -ENOENT;
	}
	if (idx == 0) {
		ROCE_PORT_LOG(ERR, "port %u: the default GID cannot be deleted", port->port_id);
		return -EPERM;
	}
	memset(&port->gids[idx], 0, sizeof(port->gids[idx]));
	return 0;
}

static bool
roce_prefix_match(const union rte_roce_gid *a, const union rte_roce_gid *b, unsigned int bits)
{
	unsigned int bytes = bits / 8, rest = bits % 8;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));

	if (memcmp(a->raw, b->raw, bytes) != 0)
		return false;
	return rest == 0 || ((a->raw[bytes] ^ b->raw[bytes]) & mask) == 0;
}

static bool
roce_ipv6_link_local(const union rte_roce_gid *gid)
{
	/* fe80::/10 (RFC 4291 2.5.6) */
	return gid->raw[0] == 0xfe && (gid->raw[1] & 0xc0) == 0x80;
}

/*
 * Source address for a frame to dst: the same family, longest matching
 * prefix, else the first address of the family; a link-local destination
 * gets the default link-local GID (index 0).
 */
int
roce_port_src_addr(const struct rte_roce_port *port, const union rte_roce_gid *dst,
		   union rte_roce_gid *src)
{
	/* IPv4-mapped GIDs carry their prefix in the last 32 of 128 bits. */
	const unsigned int v4_bias = 96;
	bool v4 = rte_roce_gid_is_ipv4(dst);
	int best = -1, best_len = -1;
	unsigned int i, plen;

	if (!v4 && roce_ipv6_link_local(dst)) {
		*src = port->gids[0].gid;
		return 0;
	}
	for (i = 0; i < RTE_ROCE_PORT_GID_TBL_LEN; i++) {
		const struct roce_gid_entry *e = &port->gids[i];

		if (!e->valid || rte_roce_gid_is_ipv4(&e->gid) != v4)
			continue;
		plen = e->prefix_len + (v4 ? v4_bias : 0);
		if (roce_prefix_match(&e->gid, dst, plen) && (int)plen > best_len) {
			best = i;
			best_len = plen;
		} else if (best < 0) {
			best = i;
		}
	}
	if (best < 0)
		return -EADDRNOTAVAIL;
	*src = port->gids[best].gid;
	return 0;
}

/* ---- TX ---- */

void
roce_port_l2_fill(struct rte_roce_port *port, struct rte_mbuf *m,
		  const struct rte_ether_addr *dst, uint16_t ether_type)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	rte_ether_addr_copy(dst, &eth->dst_addr);
	rte_ether_addr_copy(&port->mac, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(ether_type);
}

/* roce_port_pdump_guard_on() was called: bursts take the tailq read lock. */
static bool roce_port_pdump_guarded;

void
roce_port_pdump_guard_on(void)
{
	__atomic_store_n(&roce_port_pdump_guarded, true, __ATOMIC_RELEASE);
}

/*
 * DPDK 22.11's pdump server (lib/pdump/rte_pdump.c, pdump_register_rx_callbacks())
 * removes a capture's callbacks without waiting for a burst that is running
 * one, and dpdk-dumpcap frees its ring and then its mbuf pool as soon as the
 * removal is answered (app/dumpcap/main.c): a burst preempted inside the
 * callback (a loaded machine) resumed on freed, zeroed memory and crashed
 * in rte_pcapng_copy() (doc/observability.md). rte_ring_free() and
 * rte_mempool_free() both take the tailq write lock before freeing
 * anything, in whichever process frees; a burst made under its read lock is
 * therefore over before dumpcap's memory goes, and a later burst no longer
 * finds the callback. Later DPDK releases wait in pdump itself (a use count
 * per callback).
 */
static inline bool
roce_port_burst_begin(void)
{
	bool guarded = __atomic_load_n(&roce_port_pdump_guarded, __ATOMIC_ACQUIRE);

	if (guarded)
		rte_mcfg_tailq_read_lock();
	return guarded;
}

static inline void
roce_port_burst_end(bool guarded)
{
	if (guarded)
		rte_mcfg_tailq_read_unlock();
}

static uint16_t
roce_port_rx_burst(uint16_t port_id, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	bool guarded = roce_port_burst_begin();
	uint16_t got = rte_eth_rx_burst(port_id, q, pkts, n);

	roce_port_burst_end(guarded);
	return got;
}

static uint16_t
roce_port_tx_burst(uint16_t port_id, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	bool guarded = roce_port_burst_begin();
	uint16_t sent = rte_eth_tx_burst(port_id, q, pkts, n);

	roce_port_burst_end(guarded);
	return sent;
}

static void
roce_port_tx_flush(struct rte_roce_port *port, struct roce_port_queue *pq)
{
	uint32_t bytes[ROCE_PORT_TX_BURST + 1];
	uint16_t burst, sent, i;

	while (pq->tx_count != 0) {
		/* The backlog wraps: send its first contiguous run, a burst at a time. */
		burst = RTE_MIN(pq->tx_count, ROCE_PORT_TX_BACKLOG - pq->tx_head);
		burst = RTE_MIN(burst, ROCE_PORT_TX_BURST);
		/*
		 * Counted before the PMD has them: a sent mbuf is the PMD's, and
		 * one that copies (memif) or passes pointers (ring) may have freed
		 * it, and another thread allocated it again, by the time it returns.
		 */
		bytes[0] = 0;
		for (i = 0; i < burst; i++)
			bytes[i + 1] = bytes[i] + pq->tx_backlog[pq->tx_head + i]->pkt_len;
		sent = roce_port_tx_burst(port->port_id, pq->id, &pq->tx_backlog[pq->tx_head], burst);
		pq->stats.tx_bytes += bytes[sent];
		pq->stats.tx_packets += sent;
		pq->tx_head = (pq->tx_head + sent) & (ROCE_PORT_TX_BACKLOG - 1);
		pq->tx_count -= sent;
		if (sent < burst) {
			/* gathered frames the queue refused are backlogged now */
			pq->stats.tx_backlogged += RTE_MIN(pq->tx_batched, pq->tx_count);
			pq->tx_batched = 0;
			return;
		}
	}
	pq->tx_batched = 0;
}

void
roce_port_tx_batch_begin(struct rte_roce_port *port, uint16_t q)
{
	port->q[q].tx_batch = true;
}

void
roce_port_tx_batch_end(struct rte_roce_port *port, uint16_t q)
{
	port->q[q].tx_batch = false;
	roce_port_tx_flush(port, &port->q[q]);
}

uint16_t
roce_port_tx_room(const struct rte_roce_port *port, uint16_t q)
{
	return ROCE_PORT_TX_BACKLOG - port->q[q].tx_count;
}

/*
 * Transmit a frame whose L2 header is complete on pq's TX queue; the port
 * takes m. Returns 0 (sent or kept in the backlog) or -ENOBUFS (dropped and
 * counted).
 */
int
roce_port_tx(struct rte_roce_port *port, struct roce_port_queue *pq, struct rte_mbuf *m)
{
	uint32_t len = m->pkt_len;

	if (pq->tx_batch && pq->tx_count < ROCE_PORT_TX_BACKLOG) {
		pq->tx_backlog[(pq->tx_head + pq->tx_count) & (ROCE_PORT_TX_BACKLOG - 1)] = m;
		pq->tx_count++;
		pq->tx_batched++;
		if (pq->tx_batched >= ROCE_PORT_TX_BURST)
			roce_port_tx_flush(port, pq);
		return 0;
	}
	roce_port_tx_flush(port, pq);
	if (pq->tx_count == 0 && roce_port_tx_burst(port->port_id, pq->id, &m, 1) == 1) {
		pq->stats.tx_packets++;
		pq->stats.tx_bytes += len;
		return 0;
	}
	if (pq->tx_count == ROCE_PORT_TX_BACKLOG) {
		roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_TX_FULL);
		return -ENOBUFS;
	}
	pq->tx_backlog[(pq->tx_head + pq->tx_count) & (ROCE_PORT_TX_BACKLOG - 1)] = m;
	pq->tx_count++;
	pq->stats.tx_backlogged++;
	return 0;
}

/* ---- hand-offs to queue 0 ---- */

/*
 * Queue pq (not 0) received a frame of the slow path: queue 0 handles it at
 * its next poll. A full ring drops it (counted): ARP, ND and echo are
 * retried by their senders.
 */
static void
roce_port_handoff_rx(struct roce_port_queue *pq, struct rte_mbuf *m)
{
	ROCE_TSAN_RELEASE(pq->slow_rx);
	if (rte_ring_sp_enqueue(pq->slow_rx, m) != 0) {
		pq->stats.slow_handoff_drops++;
		rte_pktmbuf_free(m);
		return;
	}
	pq->stats.slow_handoffs++;
}

/* Queue pq (not 0) cannot read next_hop as REACHABLE: queue 0 resolves and sends m. */
int
roce_port_handoff_tx(struct roce_port_queue *pq, struct rte_mbuf *m,
		     const union rte_roce_gid *next_hop)
{
	struct roce_port_handoff h = { .m = m, .next_hop = *next_hop };

	ROCE_TSAN_RELEASE(pq->slow_tx);
	if (rte_ring_sp_enqueue_elem(pq->slow_tx, &h, sizeof(h)) != 0) {
		pq->stats.tx_handoff_drops++;
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	pq->stats.tx_handoffs++;
	return 0;
}

static bool roce_port_rx_one(struct rte_roce_port *port, struct roce_port_queue *pq,
			     struct rte_mbuf *m, struct rte_roce_pkt *pkt);

/* Queue 0: what the other queues handed over since the last poll, a burst of each. */
static void
roce_port_handoff_drain(struct rte_roce_port *port)
{
	struct roce_port_handoff h[ROCE_PORT_HANDOFF_BURST];
	struct rte_mbuf *m[ROCE_PORT_HANDOFF_BURST];
	struct roce_port_queue *q0 = roce_port_slow(port);
	struct rte_roce_pkt local;
	unsigned int n, i;
	uint16_t q;

	for (q = 1; q < port->nb_queues; q++) {
		struct roce_port_queue *pq = &port->q[q];

		n = rte_ring_sc_dequeue_burst(pq->slow_rx, (void **)m, RTE_DIM(m), NULL);
		if (n != 0)
			ROCE_TSAN_ACQUIRE(pq->slow_rx);
		for (i = 0; i < n; i++) {
			/* Only ARP, ND and ICMP are handed over: they never reach the caller. */
			if (roce_port_rx_one(port, q0, m[i], &local))
				roce_port_drop(q0, m[i], RTE_ROCE_PORT_DROP_NOT_FOR_US);
		}
		n = rte_ring_sc_dequeue_burst_elem(pq->slow_tx, h, sizeof(h[0]), RTE_DIM(h), NULL);
		if (n != 0)
			ROCE_TSAN_ACQUIRE(pq->slow_tx);
		for (i = 0; i < n; i++)
			roce_neigh_send(port, h[i].m, &h[i].next_hop);
	}
}

/* ---- RX ---- */

/*
 * The ICRC of a parsed frame. A frame in one segment that only we hold (the
 * PMD handed it over; no clone, no external buffer) is checked in place
 * with its variant words masked and put back (roce_icrc.h); others through
 * the chain.
 */
static int
roce_port_icrc_check(struct rte_mbuf *m, const struct rte_roce_pkt *pkt)
{
	uint32_t len = pkt->icrc_off - pkt->l3_off;

	if (RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1 &&
	    pkt->icrc_off + RTE_ROCE_ICRC_LEN <= m->data_len)
		return roce_icrc_check_writable(rte_pktmbuf_mtod_offset(m, uint8_t *, pkt->l3_off),
						len);
	return rte_roce_icrc_check_mbuf(m, pkt->l3_off, len);
}

/* The strict RoCEv2 checks into pkt: the wire parser at the port's IB MTU, then the ICRC. */
static bool
roce_port_rx_roce(struct rte_roce_port *port, struct roce_port_queue *pq, struct rte_mbuf *m,
		  struct rte_roce_pkt *pkt)
{
	enum rte_roce_drop_reason reason;

	/* roce_port_rx_ipv4() has checked the IPv4 header checksum. */
	reason = roce_pkt_parse_mbuf_ipv4_summed(m, port->ib_mtu, pkt);
	if (reason == RTE_ROCE_DROP_NONE && roce_port_icrc_check(m, pkt) != 0)
		reason = RTE_ROCE_DROP_ICRC;
	if (reason == RTE_ROCE_DROP_NONE)
		return true;
	pq->stats.roce_drops[reason]++;
	return false;
}

static bool
roce_port_rx_udp(struct rte_roce_port *port, struct roce_port_queue *pq, struct rte_mbuf *m,
		 uint32_t l4_off, struct rte_roce_pkt *pkt)
{
	struct rte_udp_hdr udp_buf;
	const struct rte_udp_hdr *udp;

	udp = rte_pktmbuf_read(m, l4_off, sizeof(*udp), &udp_buf);
	if (udp == NULL)
		return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_IP_MALFORMED);
	if (udp->dst_port != RTE_BE16(RTE_ROCE_UDP_PORT))
		return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_UDP_PORT);
	if (!roce_port_rx_roce(port, pq, m, pkt))
		return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_ROCE);
	pq->stats.rx_roce_packets++;
	return true;
}

/* Unicast to one of our addresses, or multicast to a group joined (roce_port_mcast.c). */
static bool
roce_port_rx_dst_ok(const struct rte_roce_port *port, const union rte_roce_gid *dst,
		    enum roce_l2_dst l2)
{
	if (l2 == ROCE_L2_UNICAST)
		return roce_port_is_local(port, dst);
	return l2 == ROCE_L2_MULTICAST && roce_port_mcast_member(port, dst);
}

/* Cut the Ethernet padding after the IP datagram (it is not covered by the ICRC). */
static void
roce_port_trim(struct rte_mbuf *m, uint32_t frame_len)
{
	if (m->pkt_len > frame_len)
		rte_pktmbuf_trim(m, m->pkt_len - frame_len);
}

/*
 * The IPv4 header checksum. Without options the header is the 20 bytes
 * already read into one run at ip, summed there (a call over the chain cost
 * ~120 instructions per frame; roce_ipv4_hdr_sum() ~45 less than
 * rte_raw_cksum()); with options it may cross segments.
 */
static bool
roce_port_ipv4_cksum_ok(const struct rte_mbuf *m, uint32_t l3_off, const struct rte_ipv4_hdr *ip,
			uint32_t hlen)
{
	uint16_t cksum;

	if (hlen == sizeof(*ip))
		return roce_ipv4_hdr_sum(ip) == ROCE_CKSUM_OK;
	return roce_cksum_mbuf(m, l3_off, hlen, &cksum) == 0 && cksum == ROCE_CKSUM_OK;
}

static bool
roce_port_rx_ipv4(struct rte_roce_port *port, struct roce_port_queue *pq, struct rte_mbuf *m,
		  enum roce_l2_dst l2, struct rte_roce_pkt *pkt)
{
	const uint32_t l3_off = RTE_ETHER_HDR_LEN;
	struct rte_ipv4_hdr ip_buf;
	const struct rte_ipv4_hdr *ip;
	union rte_roce_gid dst;
	uint32_t hlen, tot_len;

	ip = rte_pktmbuf_read(m, l3_off, sizeof(*ip), &ip_buf);
	if (ip == NULL || (ip->version_ihl >> 4) != ROCE_IPV4_VERSION ||
	    (ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) < ROCE_IPV4_IHL_MIN)
		goto malformed;
	hlen = (ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * RTE_IPV4_IHL_MULTIPLIER;
	tot_len = rte_be_to_cpu_16(ip->total_length);
	if (tot_len < hlen || l3_off + tot_len > m->pkt_len ||
	    !roce_port_ipv4_cksum_ok(m, l3_off, ip, hlen))
		goto malformed;
	if ((ip->fragment_offset & RTE_BE16(ROCE_IPV4_FRAG_MASK)) != 0)
		return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_IP_FRAGMENT);
	rte_roce_gid_from_ipv4(&dst, ip->dst_addr);
	if (!roce_port_rx_dst_ok(port, &dst, l2))
		return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_NOT_FOR_US);
	roce_port_trim(m, l3_off + tot_len);
	switch (ip->next_proto_id) {
	case IPPROTO_UDP:
		return roce_port_rx_udp(port, pq, m, l3_off + hlen, pkt);
	case IPPROTO_ICMP:
		if (pq->id != ROCE_PORT_SLOW_QUEUE)
			roce_port_handoff_rx(pq, m);
		else
			roce_icmp4_input(port, m, l3_off + hlen, tot_len - hlen);
		return false;
	default:
		return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_IP_PROTO);
	}
malformed:
	return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_IP_MALFORMED);
}

static bool
roce_port_rx_ipv6(struct rte_roce_port *port, struct roce_port_queue *pq, struct rte_mbuf *m,
		  enum roce_l2_dst l2, struct rte_roce_pkt *pkt)
{
	const uint32_t l3_off = RTE_ETHER_HDR_LEN;
	struct rte_ipv6_hdr ip_buf;
	const struct rte_ipv6_hdr *ip;
	union rte_roce_gid dst;
	uint32_t plen;

	ip = rte_pktmbuf_read(m, l3_off, sizeof(*ip), &ip_buf);
	if (ip == NULL || (rte_be_to_cpu_32(ip->vtc_flow) >> 28) != ROCE_IPV6_VERSION ||
	    l3_off + sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len) > m->pkt_len)
		return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_IP_MALFORMED);
	plen = rte_be_to_cpu_16(ip->payload_len);
	roce_port_trim(m, l3_off + sizeof(*ip) + plen);
	switch (ip->proto) {
	case IPPROTO_UDP:
		/* Copied: the address in the frame is not 4-byte aligned as a GID is. */
		memcpy(dst.raw, ip->dst_addr, sizeof(dst.raw));
		if (!roce_port_rx_dst_ok(port, &dst, l2))
			return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_NOT_FOR_US);
		return roce_port_rx_udp(port, pq, m, l3_off + sizeof(*ip), pkt);
	case IPPROTO_ICMPV6:
		/* ND is addressed to multicast groups too: roce_icmp6_input sorts it out. */
		if (pq->id != ROCE_PORT_SLOW_QUEUE)
			roce_port_handoff_rx(pq, m);
		else
			roce_icmp6_input(port, m, l2);
		return false;
	default:
		return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_IP_PROTO);
	}
}

/*
 * Sort one frame received on pq (or handed to queue 0 by another queue);
 * true if it is a RoCEv2 frame for the caller, parsed into pkt. The slow
 * path's frames go to queue 0 when pq is another queue.
 */
static bool
roce_port_rx_one(struct rte_roce_port *port, struct roce_port_queue *pq, struct rte_mbuf *m,
		 struct rte_roce_pkt *pkt)
{
	struct rte_ether_hdr eth_buf;
	const struct rte_ether_hdr *eth = &eth_buf;
	enum roce_l2_dst l2;

	if (!roce_pktmbuf_copy(m, 0, sizeof(eth_buf), &eth_buf))
		return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_ETHERTYPE);
	if (rte_is_same_ether_addr(&eth->dst_addr, &port->mac))
		l2 = ROCE_L2_UNICAST;
	else if (rte_is_broadcast_ether_addr(&eth->dst_addr))
		l2 = ROCE_L2_BROADCAST;
	else if (rte_is_multicast_ether_addr(&eth->dst_addr))
		l2 = ROCE_L2_MULTICAST;
	else
		return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_NOT_FOR_US);
	switch (rte_be_to_cpu_16(eth->ether_type)) {
	case RTE_ETHER_TYPE_ARP:
		if (l2 == ROCE_L2_MULTICAST)
			break;
		if (pq->id != ROCE_PORT_SLOW_QUEUE)
			roce_port_handoff_rx(pq, m);
		else
			roce_arp_input(port, m);
		return false;
	case RTE_ETHER_TYPE_IPV4:
		return roce_port_rx_ipv4(port, pq, m, l2, pkt);
	case RTE_ETHER_TYPE_IPV6:
		return roce_port_rx_ipv6(port, pq, m, l2, pkt);
	default:
		return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_ETHERTYPE);
	}
	return roce_port_drop(pq, m, RTE_ROCE_PORT_DROP_NOT_FOR_US);
}

/*
 * The known layout first: a frame in one segment, to the port's MAC, IPv4
 * without options. The strict parser reads it in place and makes every check
 * the sorting above makes of such a frame (IPv4 version and checksum,
 * lengths, fragments, UDP and its port), then the port's own: the address is
 * ours, the ICRC. The same checks in another order, each made once instead
 * of once by the sort and again by the parser (~200 instructions a frame
 * under callgrind). false for anything else, or a frame that fails a check:
 * roce_port_rx_one() sorts it again, and answers or counts it by reason.
 */
static bool
roce_port_rx_fast(struct rte_roce_port *port, struct roce_port_queue *pq, struct rte_mbuf *m,
		  struct rte_roce_pkt *pkt)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);

	if (m->nb_segs != 1 || m->data_len < RTE_ETHER_HDR_LEN + sizeof(*ip) ||
	    eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4) || ip->version_ihl != RTE_IPV4_VHL_DEF ||
	    !rte_is_same_ether_addr(&eth->dst_addr, &port->mac))
		return false;
	if (rte_roce_pkt_parse_mbuf(m, port->ib_mtu, pkt) != RTE_ROCE_DROP_NONE ||
	    !roce_port_is_local(port, &pkt->dgid))
		return false;
	roce_port_trim(m, pkt->icrc_off + RTE_ROCE_ICRC_LEN);
	if (roce_port_icrc_check(m, pkt) != 0)
		return false;
	pq->stats.rx_roce_packets++;
	return true;
}

uint16_t
roce_port_poll_queue(struct rte_roce_port *port, uint16_t q, struct rte_mbuf **pkts,
		     uint16_t nb_pkts, const struct rte_roce_pkt **parsed)
{
	struct roce_port_queue *pq;
	struct rte_roce_pkt local, *pkt;
	uint16_t nb_rx, nb_ret = 0, i;

	if (unlikely(q >= port->nb_queues))
		return 0;
	pq = &port->q[q];
	if (parsed != NULL) {
		*parsed = pq->rx_parsed;
		nb_pkts = RTE_MIN(nb_pkts, ROCE_PORT_RX_PARSED);
	}
	/* Nothing read of the neighbour cache before this poll is still used. */
	roce_neigh_quiescent(port, pq);
	pq->now = rte_get_timer_cycles();
	nb_rx = nb_pkts != 0 ? roce_port_rx_burst(port->port_id, q, pkts, nb_pkts) : 0;
	for (i = 0; i < nb_rx; i++) {
		pq->stats.rx_packets++;
		pq->stats.rx_bytes += pkts[i]->pkt_len;
		/* A frame returned keeps its parse for the caller, at its index. */
		pkt = parsed != NULL ? &pq->rx_parsed[nb_ret] : &local;
		if (roce_port_rx_fast(port, pq, pkts[i], pkt) ||
		    roce_port_rx_one(port, pq, pkts[i], pkt))
			pkts[nb_ret++] = pkts[i];
	}
	if (q == ROCE_PORT_SLOW_QUEUE) {
		if (port->nb_queues > 1)
			roce_port_handoff_drain(port);
		if (pq->now >= port->neigh.next_timer)
			roce_neigh_timers(port);
	}
	roce_port_tx_flush(port, pq);
	return nb_ret;
}

uint16_t
rte_roce_port_poll(struct rte_roce_port *port, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	return roce_port_poll_queue(port, ROCE_PORT_SLOW_QUEUE, pkts, nb_pkts, NULL);
}

/* ---- counters ---- */

/* The counters are all uint64_t: summed as an array. */
static void
roce_port_stats_add(struct rte_roce_port_stats *sum, const struct rte_roce_port_stats *s)
{
	uint64_t *d = (uint64_t *)sum;
	const uint64_t *a = (const uint64_t *)s;
	size_t i;

	RTE_BUILD_BUG_ON(sizeof(*s) % sizeof(uint64_t) != 0);
	for (i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		d[i] += a[i];
}

int
rte_roce_port_stats_get(struct rte_roce_port *port, struct rte_roce_port_stats *stats)
{
	uint16_t q;

	if (port == NULL || stats == NULL)
		return -EINVAL;
	memset(stats, 0, sizeof(*stats));
	for (q = 0; q < port->nb_queues; q++)
		roce_port_stats_add(stats, &port->q[q].stats);
	return 0;
}

int
rte_roce_port_queue_stats_get(struct rte_roce_port *port, uint16_t queue,
			      struct rte_roce_port_stats *stats)
{
	if (port == NULL || stats == NULL || queue >= port->nb_queues)
		return -EINVAL;
	*stats = port->q[queue].stats;
	return 0;
}

int
rte_roce_port_stats_reset(struct rte_roce_port *port)
{
	uint16_t q;

	if (port == NULL)
		return -EINVAL;
	for (q = 0; q < port->nb_queues; q++)
		memset(&port->q[q].stats, 0, sizeof(port->q[q].stats));
	return 0;
}
