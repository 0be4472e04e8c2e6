/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_TEST_PORT_H
#define ROCE_TEST_PORT_H

/*
 * Two ethdevs wired back to back over net_ring, in one process:
 * port a receives from ring 0 and sends to ring 1, port b the reverse.
 * Both are polled from the test's one thread; no NIC, no second lcore.
 */

#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_ring.h>

#include <rte_roce_port.h>

/* Queues of a multi-queue pair, at most. */
#define ROCE_TEST_PAIR_QUEUES_MAX 4

struct roce_test_pair {
	/* Queue q: ring[2q] carries b's TX queue q to a, ring[2q + 1] a's TX queue q to b. */
	struct rte_ring *ring[2 * ROCE_TEST_PAIR_QUEUES_MAX];
	uint16_t nb_queues;	/* RX and TX queues of each port */
	uint16_t a;	/* one queue: rx ring 0, tx ring 1 */
	uint16_t b;	/* one queue: rx ring 1, tx ring 0 */
};

/* Create the rings and the two ethdevs; name must be unique. Returns 0 or -1 after printing why. */
int roce_test_pair_create(struct roce_test_pair *pair, const char *name);

/*
 * The same with nb_queues queue pairs per port: what one port sends on TX
 * queue q arrives at the other's RX queue (q + shift) % nb_queues, as if a
 * peer's RSS had chosen it (shift 1: every frame changes queue, so a
 * device's lanes must hand frames over to each other).
 */
int roce_test_pair_create_mq(struct roce_test_pair *pair, const char *name, uint16_t nb_queues,
			     uint16_t shift);

/*
 * Under ThreadSanitizer, tell it that a frame sent on the pair happens
 * before its receipt (ethdev callbacks on every queue); nothing otherwise.
 * 0, or -1 if a callback cannot be added.
 */
int roce_test_pair_wire_model(const struct roce_test_pair *pair);

/* Free every frame still in flight in either ring; returns how many. */
unsigned int roce_test_pair_drain(struct roce_test_pair *pair);

/*
 * End of a case: destroy *a and *b (either may be NULL; both become NULL),
 * free the frames still in flight, and check that the test pool has as many
 * mbufs in use as baseline. Returns 0, or -1 after printing the leak.
 */
int roce_test_pair_release(struct roce_test_pair *pair, struct rte_roce_port **a,
			   struct rte_roce_port **b, unsigned int baseline);

/*
 * A RoCE port over ethdev eth for tests: the test mbuf pool, timers of
 * a few milliseconds unless conf says otherwise (conf may be NULL), and
 * the addresses "a.b.c.d/len" or "x::y/len" of the NULL-terminated list
 * addrs (may be NULL). Returns NULL after printing why.
 */
struct rte_roce_port *roce_test_port(uint16_t eth, const struct rte_roce_port_conf *conf,
				     const char *const *addrs);

/* Poll each port of the pair once; RoCE frames are freed. Returns how many. */
unsigned int roce_test_pump(struct rte_roce_port *a, struct rte_roce_port *b);

/*
 * Resolve ip from a while pumping both ports, up to timeout_ms.
 * Returns rte_roce_port_resolve()'s last answer (0, -EAGAIN on timeout, ...).
 */
int roce_test_resolve(struct rte_roce_port *a, struct rte_roce_port *b, const char *ip,
		      struct rte_ether_addr *mac, unsigned int timeout_ms);

/* An mbuf of the test pool holding a copy of len bytes, or NULL after printing why. */
struct rte_mbuf *roce_test_frame(const void *bytes, uint32_t len);

/*
 * An RC SEND_ONLY frame from src to dst (IPv4 or IPv6 text addresses) built
 * with rte_roce_pkt_build_mbuf(): AckReq set, payload byte i = i * 7, MACs
 * zero (rte_roce_port_send() fills them). NULL after printing why.
 */
struct rte_mbuf *roce_test_send_only(const char *src, const char *dst, uint32_t qpn,
				     uint32_t psn, uint32_t payload_len);

/*
 * Read a capture with libpcap: the frames in it, and how many of them are
 * RoCEv2 frames that rte_roce_pkt_parse() accepts at ib_mtu with a good
 * ICRC. Returns 0, or -EINVAL (cannot be opened, not Ethernet) or -EBADMSG
 * (damaged), after printing why.
 */
int roce_test_read_capture(const char *path, uint32_t ib_mtu, unsigned int *frames,
			   unsigned int *roce);

/*
 * An RX callback on one queue of an ethdev that watches the neighbour
 * requests (ARP requests, Neighbour Solicitations) on their way to the port
 * behind it, and drops them if told, as a peer that stopped answering would.
 * Written by the thread polling that queue; read it after that thread is done.
 */
struct roce_test_nd_tap {
	uint64_t unicast;	/* to a unicast MAC (and for ND a unicast IP): probes */
	uint64_t multicast;	/* broadcast ARP, NS to a solicited-node group */
	uint64_t dropped;	/* of both, dropped as asked */
	struct rte_ether_addr unicast_dst;	/* Ethernet destination of the last probe */
	bool drop_unicast;	/* drop the probes */
	bool drop_all;		/* drop every request */
	const struct rte_eth_rxtx_callback *cb;
	uint16_t port;
	uint16_t queue;
};

/* Install tap (zeroed by the caller, flags set) on RX queue queue of ethdev port. 0 or -1. */
int roce_test_nd_tap_add(struct roce_test_nd_tap *tap, uint16_t port, uint16_t queue);

/* Remove and free the callback (nobody may poll the queue meanwhile); nothing if none. */
void roce_test_nd_tap_remove(struct roce_test_nd_tap *tap);

/*
 * A broadcast ARP request from sha / sip for tip (IPv4 text addresses), as
 * if another host asked; NULL after printing why.
 */
struct rte_mbuf *roce_test_arp_request(const struct rte_ether_addr *sha, const char *sip,
				       const char *tip);

/* Fill an IPv6 header: version 6, traffic class and flow label 0, the rest as given. */
void roce_test_ipv6_fill(struct rte_ipv6_hdr *ip, const union rte_roce_gid *src,
			 const union rte_roce_gid *dst, uint8_t proto, uint8_t hops,
			 uint16_t payload_len);

/* Milliseconds since an arbitrary origin, from the timer cycles. */
uint64_t roce_test_ms(void);

#endif /* ROCE_TEST_PORT_H */
