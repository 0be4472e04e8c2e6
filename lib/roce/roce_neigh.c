/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The neighbour cache of a port: IP (as a GID) to MAC, learnt from ARP and
 * Neighbour Discovery, with a bounded queue of frames per unresolved entry.
 *
 * States (a reduced RFC 4861 7.3.2 machine, also used for ARP):
 *  INCOMPLETE: a request is out; every retry interval another goes, up to
 *              neigh_retries in all; then FAILED, and the queue is freed.
 *  REACHABLE:  learnt from the wire, or confirmed again (ARP request or
 *              reply, NS with SLLA, NA), for neigh_timeout_ms. Then, if no
 *              frame was sent through it since it was last confirmed, it is
 *              removed (neigh_expired; a later send resolves it from scratch,
 *              and a dead idle peer costs no ARP chatter); if frames were,
 *              PROBE.
 *  PROBE:      RFC 4861 7.3.3's STALE -> DELAY -> PROBE reduced to its last
 *              step (as K:neighbour.c does for an entry in use): the MAC
 *              stays in use while a unicast probe goes to it (ARP request
 *              to the known MAC, RFC 1122 2.3.2.1 / K:arp.c arp_solicit; NS
 *              to the neighbour's own address, RFC 4861 7.2.2) every
 *              neigh_retry_ms, neigh_retries in all (neigh_probes). Any
 *              confirmation makes it REACHABLE again (neigh_refreshed); none
 *              -> removed (neigh_probe_failed), and the next send resolves
 *              from scratch. No DELAY state: nothing above us confirms
 *              reachability (RC ACKs could, K:dst_confirm_neigh; not done),
 *              so there is no upper-layer hint to wait for.
 *              Without it, an RDMA connection used for months lost its
 *              entry every neigh_timeout_ms: its frames waited for a
 *              broadcast resolution, or were dropped beyond neigh_queue_len
 *              and retransmitted after the local ACK timeout.
 *  FAILED:     sends and resolves fail with -EHOSTUNREACH for
 *              neigh_timeout_ms, so a dead peer is not asked for at line rate.
 * Timers run from rte_roce_port_poll() when the earliest deadline is due.
 *
 * "Used": every send through a usable entry, on any queue, stores the
 * entry's generation in used_gen with a relaxed store, only if it is not
 * there already: one load per frame, one store per entry and lifetime, no
 * read-modify-write, no cache line bounced per frame. Queue 0 clears it
 * when it confirms the entry or starts probing, and reads it at the
 * deadline. A mark lost to a race with the clear is made again by the next
 * frame; only an entry that then sees no frame before its deadline is
 * taken for idle, which it nearly is. rte_roce_port_resolve() does not mark
 * (a lookup is no proof of traffic).
 *
 * A Linux peer keeps its own entry for us alive the same way: once its
 * entry is STALE and used it probes us by unicast (K:neighbour.c
 * neigh_timer_handler, ucast_solicit), and our answer confirms it. Its
 * probe also confirms our entry (we learn from every ARP request and NS
 * with SLLA) but comes only every reachable_time (15-45 s) + 5 s of DELAY,
 * and only while it sends to us: not in time for our 30 s, so we probe
 * ourselves. A Linux answer to our unicast NS has no TLLA (K:ndisc.c
 * ndisc_recv_ns includes it only for a multicast NS): its Solicited flag
 * alone confirms (roce_neigh_advert(), RFC 4861 7.2.5).
 *
 * Concurrency. Queue 0's owner is the only writer (or a control call while
 * the other queues are parked). With several queues, the owners of the
 * others read the cache lock-free (roce_neigh_lookup_lf()):
 *  - the GID hash is an rte_hash with RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF
 *    (readers never block, one writer);
 *  - an entry publishes {MAC, generation, reachable} in one 64-bit word,
 *    stored and loaded atomically; the hash maps a GID to index |
 *    generation, so a reader that found an entry just removed and reused for
 *    another address sees another generation and treats it as a miss;
 *  - a deleted key's position in the hash is reused only after every reader
 *    queue passed a quiescent state: DPDK's RCU (rte_rcu_qsbr) attached to
 *    the hash with rte_hash_rcu_qsbr_add() in defer-queue mode, one QSBR
 *    "thread" per queue 1..n-1. Chosen over a defer list of our own because
 *    rte_hash then frees the positions itself, at the writer's pace, with no
 *    blocking; the port reports each reader's quiescent state at the start of
 *    roce_port_poll_queue() (nothing read before is used after), so no
 *    application or worker registers anything. The entry indices themselves
 *    need no grace period: the generation catches their reuse.
 * A one-queue port has no concurrent reader: a plain rte_hash, no RCU, as
 * before.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

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

/* With several queues: the hash readable lock-free, its deleted positions freed by RCU. */
static int
roce_neigh_rcu_init(struct rte_roce_port *port)
{
	struct roce_neigh_table *t = &port->neigh;
	struct rte_hash_rcu_config rcu_cfg = { 0 };
	size_t size = rte_rcu_qsbr_get_memsize(port->nb_queues);
	uint16_t q;
	int ret;

	t->rcu = rte_zmalloc_socket("roce_neigh_rcu", size, RTE_CACHE_LINE_SIZE,
				    rte_eth_dev_socket_id(port->port_id));
	if (t->rcu == NULL)
		return -ENOMEM;
	ret = rte_rcu_qsbr_init(t->rcu, port->nb_queues);
	/*
	 * The readers: queues 1..n-1 (queue 0 writes). Offline until their first
	 * poll or send, so that a queue nobody drives holds nothing back.
	 */
	for (q = 1; ret == 0 && q < port->nb_queues; q++) {
		ret = rte_rcu_qsbr_thread_register(t->rcu, q);
		port->q[q].rcu_offline = true;
	}
	if (ret != 0)
		return -rte_errno;
	rcu_cfg.v = t->rcu;
	rcu_cfg.mode = RTE_HASH_QSBR_MODE_DQ;
	ret = rte_hash_rcu_qsbr_add(t->hash, &rcu_cfg);
	return ret != 0 ? -rte_errno : 0;
}

/* A reader queue about to read the hash: online first if it was not. */
static inline void
roce_neigh_reader_online(struct rte_roce_port *port, struct roce_port_queue *pq)
{
	if (unlikely(pq->rcu_offline)) {
		rte_rcu_qsbr_thread_online(port->neigh.rcu, pq->id);
		pq->rcu_offline = false;
	}
}

void
roce_neigh_quiescent(struct rte_roce_port *port, struct roce_port_queue *pq)
{
	struct rte_rcu_qsbr *v = port->neigh.rcu;

	if (v == NULL || pq->id == ROCE_PORT_SLOW_QUEUE)
		return;
	if (unlikely(pq->rcu_offline)) {
		roce_neigh_reader_online(port, pq);
		return;
	}
	rte_rcu_qsbr_quiescent(v, pq->id);
}

void
roce_port_queue_offline(struct rte_roce_port *port, uint16_t q)
{
	struct roce_port_queue *pq;

	if (q >= port->nb_queues || q == ROCE_PORT_SLOW_QUEUE || port->neigh.rcu == NULL)
		return;
	pq = &port->q[q];
	if (!pq->rcu_offline) {
		rte_rcu_qsbr_thread_offline(port->neigh.rcu, q);
		pq->rcu_offline = true;
	}
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
	int ret;

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
	if (port->nb_queues > 1)
		hp.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF;
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
	if (port->nb_queues > 1) {
		ret = roce_neigh_rcu_init(port);
		if (ret != 0) {
			ROCE_PORT_LOG(ERR, "port %u: no RCU for the neighbour cache: %s",
				      port->port_id, rte_strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static void
roce_neigh_queue_free(struct rte_roce_port *port, struct roce_neigh *n)
{
	uint16_t i;

	for (i = 0; i < n->nb_queued; i++)
		rte_pktmbuf_free(n->queue[i]);
	roce_port_slow(port)->stats.neigh_queue_drops += n->nb_queued;
	n->nb_queued = 0;
}

void
roce_neigh_fini(struct rte_roce_port *port)
{
	struct roce_neigh_table *t = &port->neigh;
	uint32_t i;
	uint16_t q;

	if (t->entries != NULL)
		for (i = 0; i < t->nb_entries; i++)
			roce_neigh_queue_free(port, &t->entries[i]);
	/*
	 * No queue runs any more: take the readers offline so that freeing the
	 * hash reclaims every deferred position (a reader that never passed a
	 * quiescent state would leave the defer queue behind). The hash first:
	 * it uses the RCU variable until freed.
	 */
	if (t->rcu != NULL)
		for (q = 1; q < port->nb_queues; q++)
			rte_rcu_qsbr_thread_offline(t->rcu, q);
	rte_hash_free(t->hash);
	rte_free(t->rcu);
	rte_free(t->entries);
	rte_free(t->queue_slots);
	rte_free(t->free_idx);
	memset(t, 0, sizeof(*t));
}

/* Whether frames may go to n's MAC: known, fresh or being re-validated. */
static inline bool
roce_neigh_usable(const struct roce_neigh *n)
{
	return n->state == ROCE_NEIGH_REACHABLE || n->state == ROCE_NEIGH_PROBE;
}

/* A frame goes out through n, found under generation gen (any queue). */
static inline void
roce_neigh_mark_used(struct roce_neigh *n, uint16_t gen)
{
	/* Store only on a change: the line is not written per frame. */
	if (__atomic_load_n(&n->used_gen, __ATOMIC_RELAXED) != gen)
		__atomic_store_n(&n->used_gen, gen, __ATOMIC_RELAXED);
}

/* Queue 0: whether n was used since the last clear, and clear it. */
static bool
roce_neigh_take_used(struct roce_neigh *n)
{
	bool used = __atomic_load_n(&n->used_gen, __ATOMIC_RELAXED) == n->gen;

	__atomic_store_n(&n->used_gen, ROCE_NEIGH_UNUSED, __ATOMIC_RELAXED);
	return used;
}

/* Publish what readers may use of n (writer only). */
static void
roce_neigh_publish(struct roce_neigh *n)
{
	uint64_t w = (uint64_t)(n->gen & ROCE_NEIGH_PUB_GEN_MASK) << ROCE_NEIGH_PUB_GEN_SHIFT;
	unsigned int i;

	if (roce_neigh_usable(n)) {
		w |= ROCE_NEIGH_PUB_REACHABLE;
		for (i = 0; i < RTE_ETHER_ADDR_LEN; i++)
			w |= (uint64_t)n->mac.addr_bytes[i] << (CHAR_BIT * i);
	}
	__atomic_store_n(&n->pub, w, __ATOMIC_RELEASE);
}

/*
 * The writer's lookup. The entry found last answers again without the
 * hash while it holds the same address: a stream of frames to one peer
 * (the common case) costs a 16-byte compare, not a hash lookup. An
 * entry's address changes only through FREE (roce_neigh_remove(), then
 * roce_neigh_add()), so a live entry holding ip is the hash's answer.
 */
static struct roce_neigh *
roce_neigh_lookup(struct rte_roce_port *port, const union rte_roce_gid *ip)
{
	struct roce_neigh_table *t = &port->neigh;
	struct roce_neigh *n = t->last;
	void *data;

	if (n != NULL && n->state != ROCE_NEIGH_FREE && rte_roce_gid_equal(&n->ip, ip))
		return n;
	if (rte_hash_lookup_data(t->hash, ip, &data) < 0)
		return NULL;
	n = &t->entries[(uint32_t)(uintptr_t)data];
	t->last = n;
	return n;
}

bool
roce_neigh_lookup_lf(const struct rte_roce_port *port, const union rte_roce_gid *ip,
		     struct rte_ether_addr *mac)
{
	const struct roce_neigh_table *t = &port->neigh;
	uint64_t data, w;
	void *p;
	unsigned int i;

	if (rte_hash_lookup_data(t->hash, ip, &p) < 0)
		return false;
	data = (uintptr_t)p;
	w = __atomic_load_n(&t->entries[(uint32_t)data].pub, __ATOMIC_ACQUIRE);
	if ((w & ROCE_NEIGH_PUB_REACHABLE) == 0 ||
	    ((w >> ROCE_NEIGH_PUB_GEN_SHIFT) & ROCE_NEIGH_PUB_GEN_MASK) !=
	    (data >> ROCE_NEIGH_DATA_GEN_SHIFT))
		return false;	/* not resolved, or the entry was reused for another address */
	roce_neigh_mark_used(&t->entries[(uint32_t)data],
			     (uint16_t)(data >> ROCE_NEIGH_DATA_GEN_SHIFT));
	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		mac->addr_bytes[i] = (uint8_t)(w >> (CHAR_BIT * i));
	return true;
}

static void
roce_neigh_remove(struct rte_roce_port *port, struct roce_neigh *n)
{
	struct roce_neigh_table *t = &port->neigh;

	roce_neigh_queue_free(port, n);
	n->state = ROCE_NEIGH_FREE;
	roce_neigh_publish(n);
	/* With readers, the hash frees the key's position after their grace period (RCU). */
	rte_hash_del_key(t->hash, &n->ip);
	t->free_idx[t->nb_free++] = n - t->entries;
}

static void
roce_neigh_arm(struct rte_roce_port *port, struct roce_neigh *n, uint64_t delay)
{
	n->deadline = roce_port_slow(port)->now + delay;
	if (n->deadline < port->neigh.next_timer)
		port->neigh.next_timer = n->deadline;
}

/*
 * Whether n goes before v when the cache is full: one being probed (in use,
 * its deadline only the next probe's) after any other, then the entry
 * expiring first.
 */
static bool
roce_neigh_evict_before(const struct roce_neigh *n, const struct roce_neigh *v)
{
	bool n_probe = n->state == ROCE_NEIGH_PROBE;
	bool v_probe = v->state == ROCE_NEIGH_PROBE;

	if (n_probe != v_probe)
		return v_probe;
	return n->deadline < v->deadline;
}

/* Make room when the cache is full: never evict an entry being resolved. */
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
		if (victim == NULL || roce_neigh_evict_before(n, victim))
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
	n = &t->entries[idx];
	/* A new generation, unreachable, before the key can be found. */
	n->gen = (n->gen + 1) & ROCE_NEIGH_PUB_GEN_MASK;
	n->state = ROCE_NEIGH_INCOMPLETE;
	roce_neigh_publish(n);
	if (rte_hash_add_key_data(t->hash, ip, (void *)(uintptr_t)(idx |
				  (uint64_t)n->gen << ROCE_NEIGH_DATA_GEN_SHIFT)) != 0) {
		n->state = ROCE_NEIGH_FREE;
		return NULL;
	}
	t->nb_free--;
	n->ip = *ip;
	n->nb_queued = 0;
	n->retries_left = 0;
	__atomic_store_n(&n->used_gen, ROCE_NEIGH_UNUSED, __ATOMIC_RELAXED);
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
		roce_port_tx(port, roce_port_slow(port), n->queue[i]);
	}
	n->nb_queued = 0;
}

/* n's MAC is confirmed (learnt, answered a probe): a new lifetime, unused so far. */
static void
roce_neigh_reachable(struct rte_roce_port *port, struct roce_neigh *n)
{
	struct roce_port_queue *q0 = roce_port_slow(port);

	if (n->state == ROCE_NEIGH_PROBE)
		q0->stats.neigh_refreshed++;
	n->state = ROCE_NEIGH_REACHABLE;
	roce_neigh_publish(n);
	__atomic_store_n(&n->used_gen, ROCE_NEIGH_UNUSED, __ATOMIC_RELAXED);
	roce_neigh_arm(port, n, port->neigh.timeout_cycles);
	q0->stats.neigh_resolved++;
}

/* n's MAC is mac, confirmed: reachable, and the frames it held go out. */
static void
roce_neigh_set_mac(struct rte_roce_port *port, struct roce_neigh *n,
		   const struct rte_ether_addr *mac)
{
	rte_ether_addr_copy(mac, &n->mac);
	roce_neigh_reachable(port, n);
	roce_neigh_flush(port, n);
}

/*
 * The sender of an ARP packet or of a Neighbour Solicitation is at mac. An
 * ARP reply confirms the entry. A request only shows that the neighbour can
 * reach us, not that it hears us: an entry that already has this MAC keeps
 * its state and lifetime (RFC 4861 7.2.3; Linux does the same for ARP), so a
 * neighbour probing us never stands in for an answer to our own probes.
 */
void
roce_neigh_learn(struct rte_roce_port *port, const union rte_roce_gid *ip,
		 const struct rte_ether_addr *mac, bool create, bool confirms)
{
	struct roce_neigh *n = roce_neigh_lookup(port, ip);

	if (n == NULL) {
		if (!create)
			return;
		n = roce_neigh_add(port, ip);
		if (n == NULL)
			return;
	}
	if (!confirms && roce_neigh_usable(n) && rte_is_same_ether_addr(mac, &n->mac))
		return;
	roce_neigh_set_mac(port, n, mac);
}

/*
 * RFC 4861 7.2.5, reduced to our states (no STALE: an entry not confirmed
 * again is probed at the end of its lifetime if in use, roce_neigh_expire()).
 * Only an existing entry is updated. One waiting for its MAC takes the
 * advertised one. For one with a MAC: a different MAC without the Override
 * flag is not taken (the RFC's STALE, reached here by the lifetime), with it
 * replaces ours; the Solicited flag, or a replaced MAC, confirms the entry.
 * An unsolicited advertisement of the MAC we have says nothing of
 * reachability.
 */
void
roce_neigh_advert(struct rte_roce_port *port, const union rte_roce_gid *ip,
		  const struct rte_ether_addr *mac, bool solicited, bool override)
{
	struct roce_neigh *n = roce_neigh_lookup(port, ip);
	bool changed;

	if (n == NULL)
		return;
	if (!roce_neigh_usable(n)) {
		if (mac != NULL)
			roce_neigh_set_mac(port, n, mac);
		return;
	}
	changed = mac != NULL && !rte_is_same_ether_addr(mac, &n->mac);
	if (changed && override)
		roce_neigh_set_mac(port, n, mac);
	else if (!changed && solicited)
		roce_neigh_reachable(port, n);
}

/* Ask for ip's MAC: broadcast / multicast, or a unicast probe to *unicast. */
static int
roce_neigh_solicit(struct rte_roce_port *port, const union rte_roce_gid *ip,
		   const struct rte_ether_addr *unicast)
{
	if (rte_roce_gid_is_ipv4(ip))
		return roce_arp_request(port, ip, unicast);
	return roce_nd_solicit(port, ip, unicast);
}

/* One more request for n (unicast: a probe to that MAC), the next one armed. 0 or -errno. */
static int
roce_neigh_ask(struct rte_roce_port *port, struct roce_neigh *n,
	       const struct rte_ether_addr *unicast)
{
	n->retries_left--;
	roce_neigh_arm(port, n, port->neigh.retry_cycles);
	return roce_neigh_solicit(port, &n->ip, unicast);
}

/* One unicast probe of an entry in use (PROBE). */
static void
roce_neigh_probe(struct rte_roce_port *port, struct roce_neigh *n)
{
	/* Not sent (our source address went): it still counts as a try. */
	if (roce_neigh_ask(port, n, &n->mac) == 0)
		roce_port_slow(port)->stats.neigh_probes++;
}

static void
roce_neigh_fail(struct rte_roce_port *port, struct roce_neigh *n)
{
	roce_neigh_queue_free(port, n);
	n->state = ROCE_NEIGH_FAILED;
	roce_neigh_publish(n);
	roce_port_slow(port)->stats.neigh_failed++;
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
		if (roce_port_slow(port)->now < n->deadline) {
			t->next_timer = RTE_MIN(t->next_timer, n->deadline);
			continue;
		}
		switch (n->state) {
		case ROCE_NEIGH_INCOMPLETE:
			if (n->retries_left == 0) {
				roce_neigh_fail(port, n);
				break;
			}
			roce_neigh_ask(port, n, NULL);
			break;
		case ROCE_NEIGH_REACHABLE:
			if (!roce_neigh_take_used(n)) {
				roce_port_slow(port)->stats.neigh_expired++;
				roce_neigh_remove(port, n);
				break;
			}
			/* In use: keep sending to the MAC while it is re-validated. */
			n->state = ROCE_NEIGH_PROBE;
			n->retries_left = t->retries;
			roce_neigh_probe(port, n);
			break;
		case ROCE_NEIGH_PROBE:
			if (n->retries_left == 0) {
				roce_port_slow(port)->stats.neigh_probe_failed++;
				roce_neigh_remove(port, n);
				break;
			}
			roce_neigh_probe(port, n);
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
	roce_port_slow(port)->now = rte_get_timer_cycles();
	n = roce_neigh_lookup(port, ip);
	if (n != NULL && roce_neigh_usable(n)) {
		*np = n;
		return 0;
	}
	roce_port_slow(port)->stats.neigh_misses++;
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
	roce_neigh_solicit(port, ip, NULL);
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
	if (!roce_neigh_usable(n))
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
roce_neigh_send(struct rte_roce_port *port, struct rte_mbuf *m, const union rte_roce_gid *next_hop)
{
	struct roce_port_queue *q0 = roce_port_slow(port);
	struct roce_neigh *n;
	int ret;

	ret = roce_neigh_get(port, next_hop, &n);
	if (ret != 0) {
		q0->stats.neigh_queue_drops++;
		rte_pktmbuf_free(m);
		return ret;
	}
	if (roce_neigh_usable(n)) {
		roce_neigh_mark_used(n, n->gen);
		roce_port_l2_fill(port, m, &n->mac, roce_ether_type(next_hop));
		return roce_port_tx(port, q0, m);
	}
	if (n->nb_queued == port->neigh.queue_len) {
		q0->stats.neigh_queue_drops++;
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	n->queue[n->nb_queued++] = m;
	return 0;
}

int
roce_port_send_queue(struct rte_roce_port *port, uint16_t q, struct rte_mbuf *m,
		     const union rte_roce_gid *next_hop)
{
	struct rte_ether_addr mac;
	struct roce_port_queue *pq;
	uint16_t ether_type;

	if (port == NULL || m == NULL || next_hop == NULL || q >= port->nb_queues) {
		rte_pktmbuf_free(m);
		return -EINVAL;
	}
	ether_type = m->data_len >= ROCE_SEND_MIN_LEN ? roce_frame_ether_type(m) : 0;
	if (ether_type == 0 || ether_type != roce_ether_type(next_hop)) {
		rte_pktmbuf_free(m);
		return -EINVAL;
	}
	pq = &port->q[q];
	if (rte_roce_gid_is_mcast(next_hop)) {
		/* A group: its MAC is derived, nothing to resolve (RFC 1112 6.4, RFC 2464 7). */
		roce_port_mcast_mac(next_hop, &mac);
		roce_port_l2_fill(port, m, &mac, ether_type);
		return roce_port_tx(port, pq, m);
	}
	if (q == ROCE_PORT_SLOW_QUEUE)
		return roce_neigh_send(port, m, next_hop);
	/* Another queue: the published word, else queue 0 resolves (and counts). */
	roce_neigh_reader_online(port, pq);
	if (!roce_neigh_lookup_lf(port, next_hop, &mac))
		return roce_port_handoff_tx(pq, m, next_hop);
	roce_port_l2_fill(port, m, &mac, ether_type);
	return roce_port_tx(port, pq, m);
}

int
rte_roce_port_send(struct rte_roce_port *port, struct rte_mbuf *m,
		   const union rte_roce_gid *next_hop)
{
	return roce_port_send_queue(port, ROCE_PORT_SLOW_QUEUE, m, next_hop);
}
