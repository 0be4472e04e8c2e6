/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Ports with several RX/TX queue pairs (doc/packet-layer.md "Ports with
 * several queues"): the configuration checks, the slow path on queue 0
 * (ARP, ND, ICMP arriving on queue 1 are answered by queue 0), frames sent
 * on queue 1 to an unresolved neighbour resolved through queue 0, the lock-
 * free neighbour reads of queue 1, the per-queue counters, and two threads
 * driving queue 0 and queue 1 at once while the neighbour entries expire.
 * Over a multi-queue net_ring pair whose TX queue i lands in the peer's RX
 * queue (i + shift) % n, so every hand-off is deterministic. Uses the
 * port's per-queue calls (roce_port_queue.h) and its ring sizes
 * (roce_port_priv.h).
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_arp.h>
#include <rte_errno.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "roce_port_priv.h"
#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"

#define NB_QUEUES 2
#define BURST 32
#define QPN 0x11
#define PAYLOAD 64
#define RESOLVE_MS 2000
/* Neighbour timers of the other cases: retries slow enough that a loaded machine sends one request. */
#define NEIGH_RETRY_MS 20
#define NEIGH_TIMEOUT_MS 2000
#define SETTLE_MS 200
#define ECHO_ID 0x4242
#define ECHO_DATA_LEN 16
#define CAP_IB_MTU 4096	/* payload bound when reading the capture back */
/* More frames than a hand-off ring holds. */
#define OVERFLOW_FRAMES (ROCE_PORT_HANDOFF_RING + 88)
/*
 * The two-thread case: how long at least, and at most while waiting for
 * what it must see (a sanitizer on a loaded 2-core machine starves a thread
 * for a while); the neighbour timers that make the entry churn meanwhile.
 */
#define RACE_MS 500
#define RACE_MAX_MS 10000
#define RACE_MIN_SENT 1000
#define RACE_MIN_REMOVED 2
#define RACE_NEIGH_TIMEOUT_MS 30
#define RACE_NEIGH_RETRY_MS 10
#define RACE_DRAIN_MS 300

static const char *const addrs_a[] = { "198.18.0.1/24", "2001:db8::1/64", NULL };
static const char *const addrs_b[] = { "198.18.0.2/24", "2001:db8::2/64", NULL };

static struct roce_test_pair pair;
static struct rte_roce_port *a, *b;
static unsigned int baseline;
static unsigned int pair_seq;
/* RoCE frames each queue of b returned. */
static uint64_t b_rx[NB_QUEUES];

static int
setup(uint16_t shift, const struct rte_roce_port_conf *conf)
{
	struct rte_roce_port_conf c = {
		.nb_queues = NB_QUEUES,
		.neigh_retry_ms = NEIGH_RETRY_MS,
		.neigh_timeout_ms = NEIGH_TIMEOUT_MS,
	};
	char name[16];

	if (conf != NULL)
		c = *conf;
	snprintf(name, sizeof(name), "mq%u", pair_seq++);
	ROCE_TEST_ASSERT_EQ(roce_test_pair_create_mq(&pair, name, NB_QUEUES, shift), 0, "pair");
	baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	a = roce_test_port(pair.a, &c, addrs_a);
	b = roce_test_port(pair.b, &c, addrs_b);
	ROCE_TEST_ASSERT(a != NULL && b != NULL, "ports");
	memset(b_rx, 0, sizeof(b_rx));
	return 0;
}

static int
teardown(void)
{
	rte_roce_port_destroy(a);
	rte_roce_port_destroy(b);
	a = b = NULL;
	roce_test_pair_drain(&pair);
	ROCE_TEST_ASSERT_EQ(rte_mempool_in_use_count(roce_test_mbuf_pool()), baseline,
			    "mbufs leaked");
	return 0;
}

/* Poll queue q of a port; RoCE frames are counted into *got (may be NULL) and freed. */
static void
poll_q(struct rte_roce_port *port, uint16_t q, uint64_t *got)
{
	struct rte_mbuf *pkts[BURST];
	uint16_t n;

	n = roce_port_poll_queue(port, q, pkts, BURST, NULL);
	if (got != NULL)
		*got += n;
	rte_pktmbuf_free_bulk(pkts, n);
}

/* Every queue of both ports once, from this one thread. */
static void
pump(void)
{
	uint16_t q;

	for (q = 0; q < NB_QUEUES; q++) {
		poll_q(a, q, NULL);
		poll_q(b, q, &b_rx[q]);
	}
}

static void
pump_ms(unsigned int ms)
{
	uint64_t end = roce_test_ms() + ms;

	while (roce_test_ms() < end)
		pump();
}

static int
resolve(const char *ip)
{
	uint64_t end = roce_test_ms() + RESOLVE_MS;
	struct rte_ether_addr mac;
	union rte_roce_gid gid;
	int ret;

	rte_roce_gid_parse(ip, &gid);
	do {
		ret = rte_roce_port_resolve(a, &gid, &mac);
		pump();
	} while (ret == -EAGAIN && roce_test_ms() < end);
	return ret;
}

static struct rte_roce_port_stats
qstats(struct rte_roce_port *port, uint16_t q)
{
	struct rte_roce_port_stats s;

	memset(&s, 0xff, sizeof(s));
	rte_roce_port_queue_stats_get(port, q, &s);
	return s;
}

static struct rte_roce_port_stats
pstats(struct rte_roce_port *port)
{
	struct rte_roce_port_stats s;

	memset(&s, 0xff, sizeof(s));
	rte_roce_port_stats_get(port, &s);
	return s;
}

static struct rte_mbuf *
roce_frame(const char *dst, uint32_t psn)
{
	return roce_test_send_only("198.18.0.1", dst, QPN, psn, PAYLOAD);
}

/* ---- configuration ---- */

static int
test_config_errors(void)
{
	struct rte_roce_port_conf conf = { .nb_queues = RTE_ROCE_PORT_QUEUES_MAX + 1 };
	struct rte_mbuf *pkts[BURST];
	struct rte_roce_port_info info;
	struct rte_roce_port_stats s;
	struct rte_roce_port *p;
	union rte_roce_gid nh;

	ROCE_TEST_ASSERT_EQ(roce_test_pair_create_mq(&pair, "mqcfg", NB_QUEUES, 0), 0, "pair");
	baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	ROCE_TEST_ASSERT(roce_test_port(pair.a, &conf, NULL) == NULL, "above the maximum");
	ROCE_TEST_ASSERT_EQ(rte_errno, EINVAL, "EINVAL");
	conf.nb_queues = NB_QUEUES + 1;
	ROCE_TEST_ASSERT(roce_test_port(pair.a, &conf, NULL) == NULL, "above the device's queues");
	ROCE_TEST_ASSERT_EQ(rte_errno, EINVAL, "EINVAL");

	conf.nb_queues = 0;
	p = roce_test_port(pair.a, &conf, NULL);
	ROCE_TEST_ASSERT(p != NULL, "0 queues = 1");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(p, &info), 0, "info");
	ROCE_TEST_ASSERT_EQ(info.nb_queues, 1, "one queue");
	ROCE_TEST_ASSERT_EQ(roce_port_nb_queues(p), 1, "one queue (private)");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_queue_stats_get(p, 1, &s), -EINVAL, "no queue 1");
	rte_roce_port_destroy(p);

	conf.nb_queues = NB_QUEUES;
	p = roce_test_port(pair.a, &conf, addrs_a);
	ROCE_TEST_ASSERT(p != NULL, "two queues");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(p, &info), 0, "info");
	ROCE_TEST_ASSERT_EQ(info.nb_queues, NB_QUEUES, "nb_queues");
	ROCE_TEST_ASSERT(!info.rss, "net_ring has no RSS");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_queue_stats_get(p, 1, &s), 0, "queue 1");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_queue_stats_get(p, NB_QUEUES, &s), -EINVAL, "queue 2");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_queue_stats_get(NULL, 0, &s), -EINVAL, "NULL port");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_queue_stats_get(p, 0, NULL), -EINVAL, "NULL stats");
	ROCE_TEST_ASSERT_EQ(roce_port_poll_queue(p, NB_QUEUES, pkts, BURST, NULL), 0, "poll queue 2");
	rte_roce_gid_parse("198.18.0.2", &nh);
	ROCE_TEST_ASSERT_EQ(roce_port_send_queue(p, NB_QUEUES, roce_frame("198.18.0.2", 1), &nh),
			    -EINVAL, "send on queue 2");
	ROCE_TEST_ASSERT_EQ(roce_port_send_queue(p, 1, NULL, &nh), -EINVAL, "NULL frame");
	ROCE_TEST_ASSERT_EQ(roce_port_send_queue(p, 1, roce_frame("198.18.0.2", 1), NULL),
			    -EINVAL, "NULL next hop");
	ROCE_TEST_ASSERT_EQ(roce_port_send_queue(p, 1, roce_test_frame("x", 1), &nh), -EINVAL,
			    "runt on queue 1");
	rte_roce_port_destroy(p);
	roce_test_pair_drain(&pair);
	ROCE_TEST_ASSERT_EQ(rte_mempool_in_use_count(roce_test_mbuf_pool()), baseline,
			    "mbufs leaked");
	return 0;
}

/* ---- the slow path on queue 0 ---- */

/* An ICMP echo request from a to b, IPv4. */
static struct rte_mbuf *
echo_request(void)
{
	const uint32_t l4_len = sizeof(struct rte_icmp_hdr) + ECHO_DATA_LEN;
	uint8_t buf[RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) + l4_len];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)&buf[RTE_ETHER_HDR_LEN];
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)(ip + 1);
	union rte_roce_gid s, d;
	unsigned int i;

	memset(buf, 0, sizeof(buf));
	rte_roce_gid_parse("198.18.0.1", &s);
	rte_roce_gid_parse("198.18.0.2", &d);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + l4_len);
	ip->time_to_live = ROCE_IP_DEFAULT_TTL;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = rte_roce_gid_to_ipv4(&s);
	ip->dst_addr = rte_roce_gid_to_ipv4(&d);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
	icmp->icmp_ident = RTE_BE16(ECHO_ID);
	for (i = 0; i < ECHO_DATA_LEN; i++)
		((uint8_t *)(icmp + 1))[i] = (uint8_t)i;
	icmp->icmp_cksum = ~rte_raw_cksum(icmp, l4_len);
	return roce_test_frame(buf, sizeof(buf));
}

/* Shift 1: what either side sends on queue 0 arrives on the other's queue 1. */
static int
test_slow_path_on_queue1(void)
{
	struct rte_roce_port_stats a0, a1, b0, b1;
	union rte_roce_gid nh;

	ROCE_TEST_ASSERT_EQ(setup(1, NULL), 0, "setup");
	ROCE_TEST_ASSERT_EQ(resolve("198.18.0.2"), 0, "ARP through queue 1");
	ROCE_TEST_ASSERT_EQ(resolve("2001:db8::2"), 0, "ND through queue 1");
	rte_roce_gid_parse("198.18.0.2", &nh);
	ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, echo_request(), &nh), 0, "ping");
	pump_ms(SETTLE_MS / 4);

	b0 = qstats(b, 0);
	b1 = qstats(b, 1);
	ROCE_TEST_ASSERT_EQ(b1.slow_handoffs, 3, "request, solicitation, echo handed over");
	ROCE_TEST_ASSERT_EQ(b0.slow_handoffs, 0, "queue 0 hands nothing");
	ROCE_TEST_ASSERT_EQ(b0.arp_requests_in, 1, "queue 0 took the ARP request");
	ROCE_TEST_ASSERT_EQ(b0.arp_replies_out, 1, "and answered");
	ROCE_TEST_ASSERT_EQ(b0.nd_solicits_in, 1, "queue 0 took the solicitation");
	ROCE_TEST_ASSERT_EQ(b0.nd_adverts_out, 1, "and answered");
	ROCE_TEST_ASSERT_EQ(b0.icmp_echo_in, 1, "queue 0 took the echo request");
	ROCE_TEST_ASSERT_EQ(b0.icmp_echo_out, 1, "and answered");
	ROCE_TEST_ASSERT_EQ(b1.arp_requests_in + b1.nd_solicits_in + b1.icmp_echo_in, 0,
			    "queue 1 handled none");
	ROCE_TEST_ASSERT_EQ(b1.rx_packets, 3, "queue 1 received them");

	a0 = qstats(a, 0);
	a1 = qstats(a, 1);
	ROCE_TEST_ASSERT_EQ(a1.slow_handoffs, 3, "reply, advertisement, echo reply handed over");
	ROCE_TEST_ASSERT_EQ(a0.arp_replies_in, 1, "ARP reply on queue 0");
	ROCE_TEST_ASSERT_EQ(a0.nd_adverts_in, 1, "advertisement on queue 0");
	ROCE_TEST_ASSERT_EQ(a0.icmp_echo_replies_in, 1, "echo reply on queue 0");
	ROCE_TEST_ASSERT_EQ(a0.neigh_resolved, 2, "both learnt on queue 0");
	ROCE_TEST_ASSERT_EQ(a1.neigh_resolved + a1.arp_replies_in, 0, "nothing learnt on queue 1");
	ROCE_TEST_ASSERT_EQ(a1.slow_handoff_drops + b1.slow_handoff_drops, 0, "no drop");
	return teardown();
}

/* An ARP request for b's address from a's MAC and 198.18.0.<sender>. */
static struct rte_mbuf *
arp_request(uint8_t sender)
{
	struct rte_roce_port_info ia;
	char sip[RTE_ROCE_GID_STRLEN];

	rte_roce_port_info_get(a, &ia);
	snprintf(sip, sizeof(sip), "198.18.0.%u", sender);
	return roce_test_arp_request(&ia.mac, sip, "198.18.0.2");
}

/* Queue 0 does not poll: queue 1's hand-off ring fills, the rest is dropped and counted. */
static int
test_slow_handoff_ring_full(void)
{
	struct rte_roce_port_stats b0, b1;
	struct rte_mbuf *m;
	unsigned int i;

	ROCE_TEST_ASSERT_EQ(setup(0, NULL), 0, "setup");
	for (i = 0; i < OVERFLOW_FRAMES; i++) {
		m = arp_request(1);
		ROCE_TEST_ASSERT(m != NULL && rte_ring_enqueue(pair.ring[3], m) == 0, "inject %u", i);
	}
	for (i = 0; i < OVERFLOW_FRAMES / BURST + 1; i++)
		poll_q(b, 1, NULL);
	b1 = qstats(b, 1);
	ROCE_TEST_ASSERT_EQ(b1.rx_packets, OVERFLOW_FRAMES, "queue 1 received them all");
	ROCE_TEST_ASSERT_EQ(b1.slow_handoffs, ROCE_PORT_HANDOFF_RING - 1,
			    "a ring's worth handed over (rte_ring keeps one slot free)");
	ROCE_TEST_ASSERT_EQ(b1.slow_handoffs + b1.slow_handoff_drops, OVERFLOW_FRAMES,
			    "the rest dropped and counted");
	for (i = 0; i < ROCE_PORT_HANDOFF_RING / ROCE_PORT_HANDOFF_BURST + 1; i++)
		poll_q(b, 0, NULL);
	b0 = qstats(b, 0);
	ROCE_TEST_ASSERT_EQ(b0.arp_requests_in, b1.slow_handoffs, "queue 0 answered each");
	return teardown();
}

/*
 * Learn ARP senders 198.18.0.<first>.. on b's queue 0, polling queue 1 as
 * well if poll_q1; returns how many b learnt.
 */
static uint64_t
learn_senders(uint8_t first, unsigned int n, bool poll_q1)
{
	uint64_t before = qstats(b, 0).neigh_resolved;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (rte_ring_enqueue(pair.ring[1], arp_request((uint8_t)(first + i))) != 0)
			return 0;
		poll_q(b, 0, NULL);
		if (poll_q1)
			poll_q(b, 1, NULL);
	}
	return qstats(b, 0).neigh_resolved - before;
}

/*
 * A cache of 2 entries (hash of 8 positions) churned by 3 x CHURN senders:
 * each learn evicts an entry, whose hash position is reused only once every
 * reader queue passed a quiescent state. A queue never driven, or taken
 * offline, holds nothing back; a queue that read and then stopped polling
 * does, and the cache then stops learning.
 */
#define CHURN 24
static int
test_rcu_idle_queue(void)
{
	struct rte_roce_port_conf conf = {
		.nb_queues = NB_QUEUES,
		.neigh_entries = 2,
		.neigh_retry_ms = NEIGH_RETRY_MS,
		.neigh_timeout_ms = NEIGH_TIMEOUT_MS,
	};
	union rte_roce_gid nh;

	ROCE_TEST_ASSERT_EQ(setup(0, &conf), 0, "setup");
	ROCE_TEST_ASSERT_EQ(learn_senders(10, CHURN, false), CHURN, "queue 1 never driven: all learnt");
	/* queue 1 reads (a send), then stops polling: it is in a read-side section */
	rte_roce_gid_parse("198.18.0.1", &nh);
	ROCE_TEST_ASSERT_EQ(roce_port_send_queue(b, 1, roce_frame("198.18.0.1", 1), &nh), 0,
			    "send on queue 1");
	ROCE_TEST_ASSERT(learn_senders(10 + CHURN, CHURN, false) < CHURN,
			 "a stalled reader holds the deleted positions back");
	roce_port_queue_offline(b, 1);
	poll_q(b, 0, NULL);	/* reclaim at the next delete */
	ROCE_TEST_ASSERT_EQ(learn_senders(10 + 2 * CHURN, CHURN, false), CHURN,
			    "offline: all learnt again");
	ROCE_TEST_ASSERT_EQ(learn_senders(10, CHURN, true), CHURN,
			    "a reader polling meanwhile holds nothing back");
	return teardown();
}

/* ---- sending on queue 1 ---- */

static int
test_tx_handoff_then_direct(void)
{
	struct rte_roce_port_stats a0, a1, sum_a;
	union rte_roce_gid nh;

	ROCE_TEST_ASSERT_EQ(setup(1, NULL), 0, "setup");
	rte_roce_gid_parse("198.18.0.2", &nh);
	ROCE_TEST_ASSERT_EQ(roce_port_send_queue(a, 1, roce_frame("198.18.0.2", 1), &nh), 0,
			    "send on queue 1, unresolved");
	a1 = qstats(a, 1);
	ROCE_TEST_ASSERT_EQ(a1.tx_handoffs, 1, "handed to queue 0");
	ROCE_TEST_ASSERT_EQ(a1.tx_packets, 0, "not sent by queue 1");
	pump_ms(SETTLE_MS / 4);
	ROCE_TEST_ASSERT_EQ(b_rx[0] + b_rx[1], 1, "delivered");
	/* a's TX queue 0 lands in b's RX queue 1 */
	ROCE_TEST_ASSERT_EQ(b_rx[1], 1, "sent by queue 0");
	a0 = qstats(a, 0);
	ROCE_TEST_ASSERT_EQ(a0.arp_requests_out, 1, "queue 0 resolved it");
	ROCE_TEST_ASSERT_EQ(a0.neigh_misses, 1, "one miss, on queue 0");

	ROCE_TEST_ASSERT_EQ(roce_port_send_queue(a, 1, roce_frame("198.18.0.2", 2), &nh), 0,
			    "send on queue 1, resolved");
	a1 = qstats(a, 1);
	ROCE_TEST_ASSERT_EQ(a1.tx_handoffs, 1, "no second hand-off");
	ROCE_TEST_ASSERT_EQ(a1.tx_packets, 1, "queue 1 sent it itself");
	pump_ms(SETTLE_MS / 4);
	ROCE_TEST_ASSERT_EQ(b_rx[0], 1, "arrived through a's TX queue 1");
	ROCE_TEST_ASSERT_EQ(qstats(b, 0).rx_roce_packets, 1, "b's queue 0 counts it");
	ROCE_TEST_ASSERT_EQ(qstats(b, 1).rx_roce_packets, 1, "b's queue 1 the first");

	/* The port's counters are the sum of its queues'. */
	a0 = qstats(a, 0);
	a1 = qstats(a, 1);
	sum_a = pstats(a);
	ROCE_TEST_ASSERT_EQ(sum_a.tx_packets, a0.tx_packets + a1.tx_packets, "tx_packets summed");
	ROCE_TEST_ASSERT_EQ(sum_a.rx_packets, a0.rx_packets + a1.rx_packets, "rx_packets summed");
	ROCE_TEST_ASSERT_EQ(sum_a.slow_handoffs, a1.slow_handoffs, "slow_handoffs summed");
	ROCE_TEST_ASSERT_EQ(sum_a.tx_handoffs, 1, "tx_handoffs summed");
	ROCE_TEST_ASSERT_EQ(sum_a.tx_bytes, a0.tx_bytes + a1.tx_bytes, "tx_bytes summed");
	ROCE_TEST_ASSERT_EQ(sum_a.neigh_resolved, a0.neigh_resolved, "slow-path counters: queue 0");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_stats_reset(a), 0, "reset");
	a0 = qstats(a, 0);
	a1 = qstats(a, 1);
	ROCE_TEST_ASSERT(a0.tx_packets == 0 && a1.tx_packets == 0 && a1.tx_handoffs == 0 &&
			 a1.slow_handoffs == 0, "every queue reset");
	return teardown();
}

/* Queue 1 sends to a neighbour that never answers: queue 0 gives up and counts each frame. */
static int
test_tx_handoff_unreachable(void)
{
	struct rte_roce_port_stats a0, a1;
	union rte_roce_gid nh;
	unsigned int i, refused = 0;
	int ret;

	ROCE_TEST_ASSERT_EQ(setup(1, NULL), 0, "setup");
	rte_roce_gid_parse("198.18.0.9", &nh);
	for (i = 0; i < OVERFLOW_FRAMES; i++) {
		ret = roce_port_send_queue(a, 1, roce_frame("198.18.0.9", i), &nh);
		ROCE_TEST_ASSERT(ret == 0 || ret == -ENOBUFS, "send %u: %d", i, ret);
		refused += ret == -ENOBUFS;
	}
	a1 = qstats(a, 1);
	ROCE_TEST_ASSERT_EQ(a1.tx_handoffs, ROCE_PORT_HANDOFF_RING - 1, "a ring's worth");
	ROCE_TEST_ASSERT_EQ(a1.tx_handoff_drops, refused, "the rest refused and counted");
	ROCE_TEST_ASSERT_EQ(a1.tx_handoffs + a1.tx_handoff_drops, OVERFLOW_FRAMES, "all seen");
	pump_ms(SETTLE_MS);
	a0 = qstats(a, 0);
	ROCE_TEST_ASSERT_EQ(a0.neigh_failed, 1, "resolution failed on queue 0");
	ROCE_TEST_ASSERT_EQ(a0.neigh_queue_drops, a1.tx_handoffs,
			    "every handed frame dropped and counted there");
	ROCE_TEST_ASSERT_EQ(b_rx[0] + b_rx[1], 0, "nothing delivered");
	return teardown();
}

/* The capture takes every queue's frames: both directions of ARP, and RoCE sent by queues 0 and 1. */
static int
test_capture_queues(void)
{
	char path[] = "/tmp/roce_port_mq_XXXXXX";
	struct rte_roce_port_stats sa;
	unsigned int frames = 0, roce = 0;
	union rte_roce_gid nh;
	int fd, ret;

	ROCE_TEST_ASSERT_EQ(setup(1, NULL), 0, "setup");
	fd = mkstemp(path);
	ROCE_TEST_ASSERT(fd >= 0, "mkstemp");
	close(fd);
	ret = rte_roce_port_capture_start(a, path);
	rte_roce_gid_parse("198.18.0.2", &nh);
	if (ret == 0)
		ret = roce_port_send_queue(a, 1, roce_frame("198.18.0.2", 1), &nh);
	pump_ms(SETTLE_MS / 4);
	if (ret == 0)
		ret = roce_port_send_queue(a, 1, roce_frame("198.18.0.2", 2), &nh);
	pump_ms(SETTLE_MS / 4);
	if (ret == 0)
		ret = rte_roce_port_capture_stop(a);
	if (ret == 0)
		ret = roce_test_read_capture(path, CAP_IB_MTU, &frames, &roce);
	unlink(path);
	ROCE_TEST_ASSERT_EQ(ret, 0, "capture");
	sa = pstats(a);
	ROCE_TEST_ASSERT_EQ(b_rx[0] + b_rx[1], 2, "both delivered");
	ROCE_TEST_ASSERT_EQ(roce, 2, "both RoCE frames captured (queues 0 and 1)");
	ROCE_TEST_ASSERT_EQ(frames, sa.rx_packets + sa.tx_packets,
			    "every frame of both queues, once");
	return teardown();
}

/* ---- two threads ---- */

struct race_q1 {
	uint64_t sent;		/* frames given to roce_port_send_queue() */
	uint64_t refused;	/* of those, -ENOBUFS */
	uint64_t other_errors;
	uint64_t b_rx;		/* RoCE frames b's queue 1 returned */
	bool stop;		/* atomic: the main thread says so */
	bool seen;		/* atomic: RACE_MIN_SENT sent, some of them directly */
};

/* Queue 1 of both ports: send as fast as the pool allows, poll between bursts. */
static void *
race_queue1(void *arg)
{
	struct race_q1 *r = arg;
	union rte_roce_gid nh;
	struct rte_mbuf *m;
	unsigned int i;
	int ret;

	rte_roce_gid_parse("198.18.0.2", &nh);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		/* back-pressure as a device applies it: send what the TX backlog can keep */
		for (i = 0; i < BURST && roce_port_tx_room(a, 1) > BURST; i++) {
			m = roce_frame("198.18.0.2", (uint32_t)r->sent);
			if (m == NULL)
				break;	/* pool empty for a moment: poll first */
			ret = roce_port_send_queue(a, 1, m, &nh);
			r->sent++;
			if (ret == -ENOBUFS)
				r->refused++;
			else if (ret != 0)
				r->other_errors++;
		}
		poll_q(a, 1, NULL);
		poll_q(b, 1, &r->b_rx);
		/* queue 1's own counters: read by their owner */
		if (r->sent >= RACE_MIN_SENT && qstats(a, 1).tx_packets > 0)
			__atomic_store_n(&r->seen, true, __ATOMIC_RELEASE);
	}
	return NULL;
}

/*
 * Queue 0 of both ports on this thread, queue 1 of both on another, for
 * RACE_MS at least (until both were seen, at most RACE_MAX_MS), with neighbour
 * entries that churn: an entry in use is probed by unicast when its
 * RACE_NEIGH_TIMEOUT_MS are over, and b drops those probes (its queue 1 gets
 * a's queue 0), so a's entry for b is removed after the probes and learnt
 * again by broadcast, over and over.
 * Shift 1: a's queue 0 (resolved hand-offs, ARP) reaches b's queue 1, whose
 * ARP goes back to b's queue 0; a's queue 1 (direct sends) reaches b's queue
 * 0. Every frame sent is delivered or counted.
 */
static int
test_two_threads(void)
{
	struct rte_roce_port_conf conf = {
		.nb_queues = NB_QUEUES,
		.neigh_timeout_ms = RACE_NEIGH_TIMEOUT_MS,
		.neigh_retry_ms = RACE_NEIGH_RETRY_MS,
	};
	struct rte_roce_port_stats sa, sb, a1;
	struct roce_test_nd_tap tap = { .drop_unicast = true };
	struct race_q1 r = { 0 };
	uint64_t start, now, counted;
	pthread_t thread;
	int ret;

	ROCE_TEST_ASSERT_EQ(setup(1, &conf), 0, "setup");
	ROCE_TEST_ASSERT(roce_test_pair_wire_model(&pair) == 0, "wire model");
	ROCE_TEST_ASSERT_EQ(roce_test_nd_tap_add(&tap, pair.b, 1), 0, "probe filter");
	ret = pthread_create(&thread, NULL, race_queue1, &r);
	ROCE_TEST_ASSERT_EQ(ret, 0, "pthread_create");
	start = roce_test_ms();
	do {
		poll_q(a, 0, NULL);
		poll_q(b, 0, &b_rx[0]);
		now = roce_test_ms();
	} while (now < start + RACE_MS ||
		 (now < start + RACE_MAX_MS &&
		  (!__atomic_load_n(&r.seen, __ATOMIC_ACQUIRE) ||
		   qstats(a, 0).neigh_expired + qstats(a, 0).neigh_probe_failed <
		   RACE_MIN_REMOVED)));
	__atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
	pthread_join(thread, NULL);
	b_rx[1] = r.b_rx;
	/* What is still in rings, backlogs and neighbour queues arrives or fails now. */
	pump_ms(RACE_DRAIN_MS);
	roce_test_nd_tap_remove(&tap);

	sa = pstats(a);
	sb = pstats(b);
	a1 = qstats(a, 1);
	counted = sa.tx_handoff_drops + sa.neigh_queue_drops + sa.drops[RTE_ROCE_PORT_DROP_TX_FULL];
	printf("# %" PRIu64 " ms: sent %" PRIu64 " delivered %" PRIu64 " (b q0 %" PRIu64 ", q1 %" PRIu64
	       "), counted drops %" PRIu64 " (hand-off %" PRIu64 ", neighbour %" PRIu64
	       ", tx full %" PRIu64 "); queue 1: %" PRIu64 " direct, %" PRIu64
	       " handed; neighbour expired %" PRIu64 ", probed %" PRIu64 " removed %" PRIu64
	       ", failed %" PRIu64 "\n",
	       now - start, r.sent, b_rx[0] + b_rx[1], b_rx[0], b_rx[1], counted, sa.tx_handoff_drops,
	       sa.neigh_queue_drops, sa.drops[RTE_ROCE_PORT_DROP_TX_FULL], a1.tx_packets,
	       a1.tx_handoffs, sa.neigh_expired, sa.neigh_probes, sa.neigh_probe_failed,
	       sa.neigh_failed);
	ROCE_TEST_ASSERT_EQ(r.other_errors, 0, "no send error but -ENOBUFS");
	ROCE_TEST_ASSERT(r.sent >= RACE_MIN_SENT, "thousands sent (%" PRIu64 ")", r.sent);
	ROCE_TEST_ASSERT(a1.tx_packets > 0, "queue 1 sent directly");
	ROCE_TEST_ASSERT(a1.tx_handoffs > 0, "and handed frames to queue 0");
	ROCE_TEST_ASSERT(sa.neigh_expired + sa.neigh_probe_failed >= RACE_MIN_REMOVED,
			 "the entry was removed and learnt again");
	/*
	 * No probe is answered, but on a loaded machine a late answer to a
	 * repeated broadcast request can find the entry probed again. With
	 * every probe dropped, what confirms the entry answers a broadcast
	 * request: no more confirmations (neigh_resolved counts resolutions
	 * and refreshes) than broadcast requests.
	 */
	ROCE_TEST_ASSERT(sa.neigh_resolved <= sa.arp_requests_out - sa.neigh_probes,
			 "refreshed %" PRIu64 ", resolved %" PRIu64 ": only by answers to the %" PRIu64
			 " broadcast requests", sa.neigh_refreshed, sa.neigh_resolved,
			 sa.arp_requests_out - sa.neigh_probes);
	ROCE_TEST_ASSERT(tap.dropped > 0 && tap.dropped <= sa.neigh_probes,
			 "b dropped probes, and only those (%" PRIu64 ")", tap.dropped);
	ROCE_TEST_ASSERT_EQ(b_rx[0] + b_rx[1] + counted, r.sent, "no frame lost uncounted");
	ROCE_TEST_ASSERT_EQ(sb.rx_roce_packets, b_rx[0] + b_rx[1], "b counts what it returned");
	ROCE_TEST_ASSERT_EQ(sb.drops[RTE_ROCE_PORT_DROP_ROCE], 0, "no RoCE frame rejected");
	return teardown();
}

static const struct roce_test_case cases[] = {
	{ "config_errors", test_config_errors },
	{ "slow_path_on_queue1", test_slow_path_on_queue1 },
	{ "slow_handoff_ring_full", test_slow_handoff_ring_full },
	{ "rcu_idle_queue", test_rcu_idle_queue },
	{ "tx_handoff_then_direct", test_tx_handoff_then_direct },
	{ "tx_handoff_unreachable", test_tx_handoff_unreachable },
	{ "capture_queues", test_capture_queues },
	{ "two_threads", test_two_threads },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return roce_test_main_eal(argv[0], cases, RTE_DIM(cases));
}
