/* SPDX-License-Identifier: BSD-3-Clause */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include <rte_roce_icrc.h>
#include <rte_roce_pkt.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_pcap.h"
#include "roce_test_port.h"
#include "roce_tsan.h"

#define ROCE_TEST_RING_SIZE 1024
#define ROCE_TEST_DRAIN_BURST 32
#define ROCE_TEST_RETRY_MS 5
#define ROCE_TEST_TIMEOUT_MS 2000
#define ROCE_TEST_MS_PER_S 1000
#define ROCE_TEST_PAYLOAD_MAX 4096
#define ROCE_TEST_UDP_SPORT 0xc000	/* rxe's range starts here (doc/wire-format.md §1.2) */

int
roce_test_pair_create(struct roce_test_pair *pair, const char *name)
{
	return roce_test_pair_create_mq(pair, name, 1, 0);
}

int
roce_test_pair_create_mq(struct roce_test_pair *pair, const char *name, uint16_t nb_queues,
			 uint16_t shift)
{
	struct rte_ring *a_rx[ROCE_TEST_PAIR_QUEUES_MAX], *a_tx[ROCE_TEST_PAIR_QUEUES_MAX];
	struct rte_ring *b_rx[ROCE_TEST_PAIR_QUEUES_MAX], *b_tx[ROCE_TEST_PAIR_QUEUES_MAX];
	char buf[RTE_RING_NAMESIZE];
	unsigned int i, q, to;
	int a, b;

	if (nb_queues == 0 || nb_queues > ROCE_TEST_PAIR_QUEUES_MAX) {
		printf("# %u queues: 1..%u\n", nb_queues, ROCE_TEST_PAIR_QUEUES_MAX);
		return -1;
	}
	pair->nb_queues = nb_queues;
	for (i = 0; i < 2u * nb_queues; i++) {
		snprintf(buf, sizeof(buf), "%s_r%u", name, i);
		pair->ring[i] = rte_ring_create(buf, ROCE_TEST_RING_SIZE, rte_socket_id(),
						RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (pair->ring[i] == NULL) {
			printf("# ring %s: %s\n", buf, rte_strerror(rte_errno));
			return -1;
		}
	}
	for (q = 0; q < nb_queues; q++) {
		to = (q + shift) % nb_queues;
		a_tx[q] = pair->ring[2 * q + 1];
		b_rx[to] = pair->ring[2 * q + 1];
		b_tx[q] = pair->ring[2 * q];
		a_rx[to] = pair->ring[2 * q];
	}
	snprintf(buf, sizeof(buf), "%s_a", name);
	a = rte_eth_from_rings(buf, a_rx, nb_queues, a_tx, nb_queues, rte_socket_id());
	snprintf(buf, sizeof(buf), "%s_b", name);
	b = rte_eth_from_rings(buf, b_rx, nb_queues, b_tx, nb_queues, rte_socket_id());
	if (a < 0 || b < 0) {
		printf("# rte_eth_from_rings %s: %s\n", name, rte_strerror(rte_errno));
		return -1;
	}
	pair->a = a;
	pair->b = b;
	return 0;
}

unsigned int
roce_test_pair_drain(struct roce_test_pair *pair)
{
	struct rte_mbuf *pkts[ROCE_TEST_DRAIN_BURST];
	unsigned int n, total = 0;
	int r;

	for (r = 0; r < 2 * RTE_MAX(pair->nb_queues, 1); r++) {
		/* A pair over another PMD (af_packet on a veth) has no rings. */
		while (pair->ring[r] != NULL &&
		       ((n = rte_ring_dequeue_burst(pair->ring[r], (void **)pkts, RTE_DIM(pkts),
						    NULL)) != 0)) {
			rte_pktmbuf_free_bulk(pkts, n);
			total += n;
		}
	}
	return total;
}

int
roce_test_pair_release(struct roce_test_pair *pair, struct rte_roce_port **a,
		       struct rte_roce_port **b, unsigned int baseline)
{
	rte_roce_port_destroy(*a);
	rte_roce_port_destroy(*b);
	*a = *b = NULL;
	roce_test_pair_drain(pair);
	ROCE_TEST_ASSERT_EQ(rte_mempool_in_use_count(roce_test_mbuf_pool()), baseline,
			    "mbufs leaked");
	return 0;
}

struct rte_roce_port *
roce_test_port(uint16_t eth, const struct rte_roce_port_conf *conf, const char *const *addrs)
{
	struct rte_roce_port_conf c = {
		.neigh_retry_ms = ROCE_TEST_RETRY_MS,
		.neigh_timeout_ms = ROCE_TEST_TIMEOUT_MS,
	};
	struct rte_roce_port *port;
	union rte_roce_gid gid;
	char text[RTE_ROCE_GID_STRLEN];
	unsigned int i, len;

	if (conf != NULL)
		c = *conf;
	c.port_id = eth;
	/* net_ring ports have no MAC: give each a locally administered one. */
	if (rte_is_zero_ether_addr(&c.mac)) {
		c.mac.addr_bytes[0] = RTE_ETHER_LOCAL_ADMIN_ADDR;
		c.mac.addr_bytes[5] = (uint8_t)(eth + 1);
	}
	if (c.pool == NULL)
		c.pool = roce_test_mbuf_pool();
	port = rte_roce_port_create(&c);
	if (port == NULL) {
		printf("# rte_roce_port_create(%u): %s\n", eth, rte_strerror(rte_errno));
		return NULL;
	}
	for (i = 0; addrs != NULL && addrs[i] != NULL; i++) {
		if (sscanf(addrs[i], "%45[^/]/%u", text, &len) != 2 ||
		    rte_roce_gid_parse(text, &gid) != 0 ||
		    rte_roce_port_addr_add(port, &gid, len) != 0) {
			printf("# cannot add address %s\n", addrs[i]);
			rte_roce_port_destroy(port);
			return NULL;
		}
	}
	return port;
}

unsigned int
roce_test_pump(struct rte_roce_port *a, struct rte_roce_port *b)
{
	struct rte_mbuf *pkts[ROCE_TEST_DRAIN_BURST];
	unsigned int n = 0, got;

	if (a != NULL) {
		got = rte_roce_port_poll(a, pkts, RTE_DIM(pkts));
		rte_pktmbuf_free_bulk(pkts, got);
		n += got;
	}
	if (b != NULL) {
		got = rte_roce_port_poll(b, pkts, RTE_DIM(pkts));
		rte_pktmbuf_free_bulk(pkts, got);
		n += got;
	}
	return n;
}

int
roce_test_read_capture(const char *path, uint32_t ib_mtu, unsigned int *frames,
		       unsigned int *roce)
{
	pcap_t *p = roce_test_pcap_open(path);
	const uint8_t *frame;
	struct rte_roce_pkt pkt;
	uint32_t caplen, origlen;
	int ret;

	if (p == NULL)
		return -EINVAL;
	*frames = 0;
	*roce = 0;
	while ((ret = roce_test_pcap_next(p, &frame, &caplen, &origlen)) == 1) {
		(*frames)++;
		if (caplen == origlen &&
		    rte_roce_pkt_parse(frame, caplen, ib_mtu, &pkt) == RTE_ROCE_DROP_NONE &&
		    rte_roce_icrc_check(frame + pkt.l3_off, pkt.icrc_off - pkt.l3_off) == 0)
			(*roce)++;
	}
	pcap_close(p);
	return ret == 0 ? 0 : -EBADMSG;
}

struct rte_mbuf *
roce_test_arp_request(const struct rte_ether_addr *sha, const char *sip, const char *tip)
{
	uint8_t buf[RTE_ETHER_HDR_LEN + sizeof(struct rte_arp_hdr)];
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;
	struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(eth + 1);
	union rte_roce_gid s, t;

	if (rte_roce_gid_parse(sip, &s) != 0 || rte_roce_gid_parse(tip, &t) != 0 ||
	    !rte_roce_gid_is_ipv4(&s) || !rte_roce_gid_is_ipv4(&t)) {
		printf("# ARP request from %s for %s: not two IPv4 addresses\n", sip, tip);
		return NULL;
	}
	memset(buf, 0, sizeof(buf));
	memset(&eth->dst_addr, 0xff, sizeof(eth->dst_addr));
	eth->src_addr = *sha;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	arp->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = sizeof(rte_be32_t);
	arp->arp_opcode = RTE_BE16(RTE_ARP_OP_REQUEST);
	arp->arp_data.arp_sha = *sha;
	arp->arp_data.arp_sip = rte_roce_gid_to_ipv4(&s);
	arp->arp_data.arp_tip = rte_roce_gid_to_ipv4(&t);
	return roce_test_frame(buf, sizeof(buf));
}

void
roce_test_ipv6_fill(struct rte_ipv6_hdr *ip, const union rte_roce_gid *src,
		    const union rte_roce_gid *dst, uint8_t proto, uint8_t hops, uint16_t payload_len)
{
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(payload_len);
	ip->proto = proto;
	ip->hop_limits = hops;
	memcpy(ip->src_addr, src->raw, sizeof(src->raw));
	memcpy(ip->dst_addr, dst->raw, sizeof(dst->raw));
}

uint64_t
roce_test_ms(void)
{
	return rte_get_timer_cycles() * ROCE_TEST_MS_PER_S / rte_get_timer_hz();
}

int
roce_test_resolve(struct rte_roce_port *a, struct rte_roce_port *b, const char *ip,
		  struct rte_ether_addr *mac, unsigned int timeout_ms)
{
	uint64_t end = roce_test_ms() + timeout_ms;
	union rte_roce_gid gid;
	int ret;

	if (rte_roce_gid_parse(ip, &gid) != 0)
		return -EINVAL;
	for (;;) {
		ret = rte_roce_port_resolve(a, &gid, mac);
		if (ret != -EAGAIN || roce_test_ms() > end)
			return ret;
		roce_test_pump(a, b);
	}
}

struct rte_mbuf *
roce_test_frame(const void *bytes, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(roce_test_mbuf_pool());
	void *data;

	if (m == NULL) {
		printf("# no mbuf\n");
		return NULL;
	}
	data = rte_pktmbuf_append(m, len);
	if (data == NULL) {
		printf("# frame of %u bytes does not fit an mbuf\n", len);
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(data, bytes, len);
	return m;
}

struct rte_mbuf *
roce_test_send_only(const char *src, const char *dst, uint32_t qpn, uint32_t psn,
		    uint32_t payload_len)
{
	static uint8_t payload[ROCE_TEST_PAYLOAD_MAX];
	struct rte_roce_pkt pkt;
	struct rte_mbuf *m;
	unsigned int i;
	int ret;

	if (payload_len > sizeof(payload))
		return NULL;
	m = rte_pktmbuf_alloc(roce_test_mbuf_pool());
	if (m == NULL)
		return NULL;
	for (i = 0; i < payload_len; i++)
		payload[i] = (uint8_t)(i * 7);
	rte_roce_pkt_init(&pkt, RTE_ROCE_OP_RC_SEND_ONLY);
	rte_roce_gid_parse(src, &pkt.sgid);
	rte_roce_gid_parse(dst, &pkt.dgid);
	pkt.ip_version = rte_roce_gid_is_ipv4(&pkt.dgid) ? 4 : 6;
	pkt.sport = ROCE_TEST_UDP_SPORT;
	pkt.dqpn = qpn;
	pkt.psn = psn;
	pkt.ackreq = true;
	pkt.payload_len = payload_len;
	ret = rte_roce_pkt_build_mbuf(&pkt, payload, m);
	if (ret < 0) {
		printf("# rte_roce_pkt_build_mbuf: %s\n", strerror(-ret));
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

/*
 * ThreadSanitizer cannot see the hand-off of frames through the net_ring
 * pair (its rte_ring lives in the uninstrumented librte_net_ring.so): model
 * the wire as a release when a frame is sent and an acquire when one is
 * received, so that what a side did before sending happens before what the
 * other does with the frame (devtools/tsan.supp).
 */
#ifdef ROCE_TSAN
static char roce_test_wire;

static uint16_t
roce_test_wire_tx(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n, void *arg)
{
	RTE_SET_USED(port);
	RTE_SET_USED(queue);
	RTE_SET_USED(pkts);
	RTE_SET_USED(arg);
	__tsan_release(&roce_test_wire);
	return n;
}

static uint16_t
roce_test_wire_rx(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n, uint16_t max,
		  void *arg)
{
	RTE_SET_USED(port);
	RTE_SET_USED(queue);
	RTE_SET_USED(pkts);
	RTE_SET_USED(max);
	RTE_SET_USED(arg);
	if (n > 0)
		__tsan_acquire(&roce_test_wire);
	return n;
}

int
roce_test_pair_wire_model(const struct roce_test_pair *pair)
{
	uint16_t ports[] = { pair->a, pair->b };
	unsigned int i;
	uint16_t q;

	for (i = 0; i < RTE_DIM(ports); i++) {
		for (q = 0; q < RTE_MAX(pair->nb_queues, 1); q++) {
			if (rte_eth_add_tx_callback(ports[i], q, roce_test_wire_tx, NULL) == NULL ||
			    rte_eth_add_rx_callback(ports[i], q, roce_test_wire_rx, NULL) == NULL)
				return -1;
		}
	}
	return 0;
}
#else
int
roce_test_pair_wire_model(const struct roce_test_pair *pair)
{
	RTE_SET_USED(pair);
	return 0;
}
#endif

/* ---- watching (and dropping) neighbour requests on their way to a port ---- */

#define ROCE_TEST_ICMPV6 58
#define ROCE_TEST_ND_NS 135	/* Neighbour Solicitation (RFC 4861 4.3) */
#define ROCE_TEST_IPV6_MCAST 0xff

/* Whether m is an ARP request or a Neighbour Solicitation; *unicast: to a unicast MAC and IP. */
static bool
roce_test_nd_request(const struct rte_mbuf *m, bool *unicast)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_arp_hdr *arp;
	const struct rte_ipv6_hdr *ip6;
	const uint8_t *icmp;

	*unicast = rte_is_unicast_ether_addr(&eth->dst_addr);
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP)) {
		if (m->data_len < RTE_ETHER_HDR_LEN + sizeof(*arp))
			return false;
		arp = rte_pktmbuf_mtod_offset(m, const struct rte_arp_hdr *, RTE_ETHER_HDR_LEN);
		return arp->arp_opcode == RTE_BE16(RTE_ARP_OP_REQUEST);
	}
	if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV6) ||
	    m->data_len < RTE_ETHER_HDR_LEN + sizeof(*ip6) + 1)
		return false;
	ip6 = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	icmp = (const uint8_t *)(ip6 + 1);
	*unicast = *unicast && ip6->dst_addr[0] != ROCE_TEST_IPV6_MCAST;
	return ip6->proto == ROCE_TEST_ICMPV6 && icmp[0] == ROCE_TEST_ND_NS;
}

static uint16_t
roce_test_nd_tap_rx(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
		    uint16_t max, void *arg)
{
	struct roce_test_nd_tap *tap = arg;
	uint16_t i, kept = 0;
	bool unicast;

	RTE_SET_USED(port);
	RTE_SET_USED(queue);
	RTE_SET_USED(max);
	for (i = 0; i < n; i++) {
		if (!roce_test_nd_request(pkts[i], &unicast)) {
			pkts[kept++] = pkts[i];
			continue;
		}
		if (unicast) {
			tap->unicast++;
			rte_ether_addr_copy(&rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *)->dst_addr,
					    &tap->unicast_dst);
		} else {
			tap->multicast++;
		}
		if (tap->drop_all || (unicast && tap->drop_unicast)) {
			tap->dropped++;
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		pkts[kept++] = pkts[i];
	}
	return kept;
}

int
roce_test_nd_tap_add(struct roce_test_nd_tap *tap, uint16_t port, uint16_t queue)
{
	tap->port = port;
	tap->queue = queue;
	tap->cb = rte_eth_add_rx_callback(port, queue, roce_test_nd_tap_rx, tap);
	if (tap->cb == NULL) {
		printf("# rte_eth_add_rx_callback(%u, %u): %s\n", port, queue,
		       rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

void
roce_test_nd_tap_remove(struct roce_test_nd_tap *tap)
{
	if (tap->cb == NULL)
		return;
	/* No thread polls the queue now: the callback can go at once. */
	if (rte_eth_remove_rx_callback(tap->port, tap->queue, tap->cb) == 0)
		rte_free((void *)(uintptr_t)tap->cb);
	tap->cb = NULL;
}
