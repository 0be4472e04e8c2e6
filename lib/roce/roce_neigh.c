/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The neighbour cache of a port: IP (as a GID) to MAC, learnt from ARP and
 * Neighbour Discovery, with a bounded queue of frames per unresolved entry.
 *
 * States (a reduced RFC 4861 7.3.2 machine, also used for ARP):
 *  INCOMPLETE: a request is out; every retry interval another goes, up to
 *              neigh_retries in all; then FAILED, and the queue is freed.
 *  REACHABLE:  learnt from the wire; removed neigh_timeout_ms after it was
 *              last confirmed (a later send resolves it again).
 *  FAILED:     sends and resolves fail with -EHOSTUNREACH for
 *              neigh_timeout_ms, so a dead peer is not asked for at line rate.
 * Timers run from rte_roce_port_poll() when the earliest deadline is due.
 * Single-threaded, like the port that owns it.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "roce_log.h"
#include "roce_port_priv.h"

#define ROCE_MS_PER_S 1000
/* Hash capacity per entry: cuckoo hashing may refuse keys well before 100 % load. */
#define ROCE_NEIGH_HASH_OVERSIZE 2
#define ROCE_NEIGH_HASH_MIN 8u
/* Ethernet header + the first byte of the IP header (its version). */
#define ROCE_SEND_MIN_LEN (RTE_ETHER_HDR_LEN + 1)

static uint64_t
roce_ms_to_cycles(uint32_t ms)
{
	return rte_get_timer_hz() * ms / ROCE_MS_PER_S;
}

int
roce_neigh_init(struct rte_roce_port *port, const struct rte_roce_port_conf *conf)
{
	struct roce_neigh_table *t = &port->neigh;
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = name,
		.key_len = sizeof(union rte_roce_gid),
		.socket_id = rte_eth_dev_socket_id(port->port_id),
	};
	uint32_t i;

	t->nb_entries = conf->neigh_entries ? conf->neigh_entries :
			RTE_ROCE_PORT_NEIGH_ENTRIES_DEFAULT;
	t->retries = conf->neigh_retries ? conf->neigh_retries : RTE_ROCE_PORT_NEIGH_RETRIES_DEFAULT;
	t->queue_len = conf->neigh_queue_len ? conf->neigh_queue_len :
		       RTE_ROCE_PORT_NEIGH_QUEUE_LEN_DEFAULT;
	t->timeout_cycles = roce_ms_to_cycles(conf->neigh_timeout_ms ? conf->neigh_timeout_ms :
					      RTE_ROCE_PORT_NEIGH_TIMEOUT_MS_DEFAULT);
	t->retry_cycles = roce_ms_to_cycles(conf->neigh_retry_ms ? conf->neigh_retry_ms :
					    RTE_ROCE_PORT_NEIGH_RETRY_MS_DEFAULT);
	t->next_timer = UINT64_MAX;

	snprintf(name, sizeof(name), "roce_neigh%u", port->port_id);
	hp.entries = RTE_MAX(t->nb_entries * ROCE_NEIGH_HASH_OVERSIZE, ROCE_NEIGH_HASH_MIN);
	t->hash = rte_hash_create(&hp);
	t->entries = rte_calloc("roce_neigh", t->nb_entries, sizeof(*t->entries), 0);
	t->queue_slots = rte_calloc("roce_neigh_q", (size_t)t->nb_entries * t->queue_len,
				    sizeof(*t->queue_slots), 0);
	t->free_idx = rte_calloc("roce_neigh_free", t->nb_entries, sizeof(*t->free_idx), 0);
	if (t->hash == NULL || t->entries == NULL || t->queue_slots == NULL ||
	    t->free_idx == NULL) {
		ROCE_PORT_LOG(ERR, "port %u: cannot allocate a neighbour cache of %u entries",
			      port->port_id, t->nb_entries);
		return -ENOMEM;
	}
	for (i = 0; i < t->nb_entries; i++) {
		t->entries[i].queue = &t->queue_slots[(size_t)i * t->queue_len];
		/* Hand out low indices first: the stack pops from the end. */
		t->free_idx[i] = t->nb_entries - 1 - i;
	}
	t->nb_free = t->nb_entries;
	return 0;
}

static void
roce_neigh_queue_free(struct rte_roce_port *port, struct roce_neigh *n)
{
	uint16_t i;

	for (i = 0; i < n->nb_queued; i++)
		rte_pktmbuf_free(n->queue[i]);
	port->stats.neigh_queue_drops += n->nb_queued;
	n->nb_queued = 0;
}

void
roce_neigh_fini(struct rte_roce_port *port)
{
	struct roce_neigh_table *t = &port->neigh;
	uint32_t i;

	if (t->entries != NULL)
		for (i = 0; i < t->nb_entries; i++)
			roce_neigh_queue_free(port, &t->entries[i]);
	rte_hash_free(t->hash);
	rte_free(t->entries);
	rte_free(t->queue_slots);
	rte_free(t->free_idx);
	memset(t, 0, sizeof(*t));
}

static struct roce_neigh *
roce_neigh_lookup(struct rte_roce_port *port, const union rte_roce_gid *ip)
{
	void *data;

	if (rte_hash_lookup_data(port->neigh.hash, ip, &data) < 0)
		return NULL;
	return &port->neigh.entries[(uintptr_t)data];
}

static void
roce_neigh_remove(struct rte_roce_port *port, struct roce_neigh *n)
{
	struct roce_neigh_table *t = &port->neigh;

	roce_neigh_queue_free(port, n);
	rte_hash_del_key(t->hash, &n->ip);
	n->state = ROCE_NEIGH_FREE;
	t->free_idx[t->nb_free++] = n - t->entries;
}

static void
roce_neigh_arm(struct rte_roce_port *port, struct roce_neigh *n, uint64_t delay)
{
	n->deadline = port->now + delay;
	if (n->deadline < port->neigh.next_timer)
		port->neigh.next_timer = n->deadline;
}

/* Make room when the cache is full: evict the entry expiring first, never one being resolved. */
static bool
roce_neigh_evict(struct rte_roce_port *port)
{
	struct roce_neigh_table *t = &port->neigh;
	struct roce_neigh *victim = NULL;
	uint32_t i;

	for (i = 0; i < t->nb_entries; i++) {
		struct roce_neigh *n = &t->entries[i];

		if (n->state == ROCE_NEIGH_INCOMPLETE)
			continue;
		if (victim == NULL || n->deadline < victim->deadline)
			victim = n;
	}
	if (victim == NULL)
		return false;
	roce_neigh_remove(port, victim);
	return true;
}

static struct roce_neigh *
roce_neigh_add(struct rte_roce_port *port, const union rte_roce_gid *ip)
{
	struct roce_neigh_table *t = &port->neigh;
	struct roce_neigh *n;
	uint32_t idx;

	if (t->nb_free == 0 && !roce_neigh_evict(port))
		return NULL;
	idx = t->free_idx[t->nb_free - 1];
	if (rte_hash_add_key_data(t->hash, ip, (void *)(uintptr_t)idx) != 0)
		return NULL;
	t->nb_free--;
	n = &t->entries[idx];
	n->ip = *ip;
	n->nb_queued = 0;
	n->retries_left = 0;
	return n;
}

static uint16_t
roce_ether_type(const union rte_roce_gid *ip)
{
	return rte_roce_gid_is_ipv4(ip) ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6;
}

static void
roce_neigh_flush(struct rte_roce_port *port, struct roce_neigh *n)
{
	uint16_t i, ether_type = roce_ether_type(&n->ip);

	for (i = 0; i < n->nb_queued; i++) {
		roce_port_l2_fill(port, n->queue[i], &n->mac, ether_type);
		roce_port_tx(port, n->queue[i]);
	}
	n->nb_queued = 0;
}

void
roce_neigh_learn(struct rte_roce_port *port, const union rte_roce_gid *ip,
		 const struct rte_ether_addr *mac, bool create)
{
	struct roce_neigh *n = roce_neigh_lookup(port, ip);

	if (n == NULL) {
		if (!create)
			return;
		n = roce_neigh_add(port, ip);
		if (n == NULL)
			return;
	}
	rte_ether_addr_copy(mac, &n->mac);
	n->state = ROCE_NEIGH_REACHABLE;
	roce_neigh_arm(port, n, port->neigh.timeout_cycles);
	port->stats.neigh_resolved++;
	roce_neigh_flush(port, n);
}

static int
roce_neigh_solicit(struct rte_roce_port *port, const union rte_roce_gid *ip)
{
	if (rte_roce_gid_is_ipv4(ip))
		return roce_arp_request(port, ip);
	return roce_nd_solicit(port, ip);
}

static void
roce_neigh_fail(struct rte_roce_port *port, struct roce_neigh *n)
{
	roce_neigh_queue_free(port, n);
	n->state = ROCE_NEIGH_FAILED;
	port->stats.neigh_failed++;
	roce_neigh_arm(port, n, port->neigh.timeout_cycles);
}

void
roce_neigh_timers(struct rte_roce_port *port)
{
	struct roce_neigh_table *t = &port->neigh;
	uint32_t i;

	t->next_timer = UINT64_MAX;
	for (i = 0; i < t->nb_entries; i++) {
		struct roce_neigh *n = &t->entries[i];

		if (n->state == ROCE_NEIGH_FREE)
			continue;
		if (port->now < n->deadline) {
			t->next_timer = RTE_MIN(t->next_timer, n->deadline);
			continue;
		}
		switch (n->state) {
		case ROCE_NEIGH_INCOMPLETE:
			if (n->retries_left == 0) {
				roce_neigh_fail(port, n);
				break;
			}
			n->retries_left--;
			roce_neigh_solicit(port, &n->ip);
			roce_neigh_arm(port, n, t->retry_cycles);
			break;
		case ROCE_NEIGH_REACHABLE:
			port->stats.neigh_expired++;
			roce_neigh_remove(port, n);
			break;
		default:
			roce_neigh_remove(port, n);
			break;
		}
	}
}

static bool
roce_neigh_addr_ok(const union rte_roce_gid *ip)
{
	static const union rte_roce_gid unspecified;

	if (rte_roce_gid_is_ipv4(ip))
		return rte_roce_gid_to_ipv4(ip) != 0 &&
		       (rte_be_to_cpu_32(rte_roce_gid_to_ipv4(ip)) >> 28) < 0xe;
	return ip->raw[0] != 0xff && !rte_roce_gid_equal(ip, &unspecified);
}

/*
 * The entry to send to ip, created (and its first request sent) if absent.
 * Returns 0 with *np REACHABLE or INCOMPLETE, or -errno.
 */
static int
roce_neigh_get(struct rte_roce_port *port, const union rte_roce_gid *ip, struct roce_neigh **np)
{
	union rte_roce_gid src;
	struct roce_neigh *n;
	int ret;

	if (!roce_neigh_addr_ok(ip))
		return -EINVAL;
	port->now = rte_get_timer_cycles();
	n = roce_neigh_lookup(port, ip);
	if (n != NULL && n->state == ROCE_NEIGH_REACHABLE) {
		*np = n;
		return 0;
	}
	port->stats.neigh_misses++;
	if (n != NULL) {
		*np = n;
		return n->state == ROCE_NEIGH_FAILED ? -EHOSTUNREACH : 0;
	}
	ret = roce_port_src_addr(port, ip, &src);
	if (ret != 0)
		return ret;
	n = roce_neigh_add(port, ip);
	if (n == NULL)
		return -ENOSPC;
	n->state = ROCE_NEIGH_INCOMPLETE;
	n->retries_left = port->neigh.retries - 1;
	roce_neigh_arm(port, n, port->neigh.retry_cycles);
	roce_neigh_solicit(port, ip);
	*np = n;
	return 0;
}

int
rte_roce_port_resolve(struct rte_roce_port *port, const union rte_roce_gid *ip,
		      struct rte_ether_addr *mac)
{
	struct roce_neigh *n;
	int ret;

	if (port == NULL || ip == NULL || mac == NULL)
		return -EINVAL;
	ret = roce_neigh_get(port, ip, &n);
	if (ret != 0)
		return ret;
	if (n->state != ROCE_NEIGH_REACHABLE)
		return -EAGAIN;
	rte_ether_addr_copy(&n->mac, mac);
	return 0;
}

/* EtherType of the IP datagram after the Ethernet header, 0 if neither family. */
static uint16_t
roce_frame_ether_type(const struct rte_mbuf *m)
{
	uint8_t version = *rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN) >> 4;

	if (version == 4)
		return RTE_ETHER_TYPE_IPV4;
	if (version == 6)
		return RTE_ETHER_TYPE_IPV6;
	return 0;
}

int
rte_roce_port_send(struct rte_roce_port *port, struct rte_mbuf *m,
		   const union rte_roce_gid *next_hop)
{
	struct rte_ether_addr mac;
	struct roce_neigh *n;
	uint16_t ether_type;
	int ret;

	if (port == NULL || m == NULL || next_hop == NULL) {
		rte_pktmbuf_free(m);
		return -EINVAL;
	}
	ether_type = m->data_len >= ROCE_SEND_MIN_LEN ? roce_frame_ether_type(m) : 0;
	if (ether_type == 0 || ether_type != roce_ether_type(next_hop)) {
		rte_pktmbuf_free(m);
		return -EINVAL;
	}
	if (rte_roce_gid_is_mcast(next_hop)) {
		/* A group: its MAC is derived, nothing to resolve (RFC 1112 6.4, RFC 2464 7). */
		roce_port_mcast_mac(next_hop, &mac);
		roce_port_l2_fill(port, m, &mac, ether_type);
		return roce_port_tx(port, m);
	}
	ret = roce_neigh_get(port, next_hop, &n);
	if (ret != 0) {
		port->stats.neigh_queue_drops++;
		rte_pktmbuf_free(m);
		return ret;
	}
	if (n->state == ROCE_NEIGH_REACHABLE) {
		roce_port_l2_fill(port, m, &n->mac, ether_type);
		return roce_port_tx(port, m);
	}
	if (n->nb_queued == port->neigh.queue_len) {
		port->stats.neigh_queue_drops++;
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	n->queue[n->nb_queued++] = m;
	return 0;
}
