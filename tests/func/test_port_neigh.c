/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Neighbour resolution between two RoCE ports over a net_ring pair:
 * ARP and ND both ways, frames queued until resolution, failure when the
 * peer is absent, the bounded pending queue, ageing of idle entries, and
 * entries in use kept by unicast probes (or removed when nobody answers).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mempool.h>
#include <rte_udp.h>

#include <rte_roce_port.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"

#define RESOLVE_MS 1000
#define DISCARD_PORT 9		/* UDP discard: a frame the peer counts and drops */
#define PAYLOAD_LEN 16
#define FAIL_RETRIES 3
#define FAIL_RETRY_MS 5
#define QUEUE_LEN 4
#define AGEING_MS 30
#define TX_FLOOD 2048	/* more than the TX ring (1023) and backlog (256) hold */
/*
 * Entries in use: a short lifetime, a stream of one frame per
 * STREAM_GAP_MS for STREAM_LIFETIMES lifetimes; at least MIN_PROBES probe
 * rounds must happen (one per lifetime, a loaded machine may stretch them).
 */
#define PROBE_TIMEOUT_MS 200
#define PROBE_RETRY_MS 20
#define PROBE_RETRIES 3
#define STREAM_GAP_MS 1
#define STREAM_LIFETIMES 5
#define MIN_PROBES 3
/* Unanswered probes: give up after the lifetime, the probes and this margin. */
#define GIVE_UP_MARGIN_MS 2000

static struct roce_test_pair pair;
static unsigned int baseline;	/* mbufs in use before each case */
static struct rte_roce_port *a, *b;	/* the ports of the current case */
static struct roce_test_nd_tap tap;	/* neighbour requests on their way to B */

static const char *const addrs_a[] = { "198.18.0.1/24", "2001:db8::1/64", NULL };
static const char *const addrs_b[] = { "198.18.0.2/24", "2001:db8::2/64", NULL };

/* Destroy the ports, drop what is still in the rings, and check that no mbuf leaked. */
static int
teardown(void)
{
	roce_test_nd_tap_remove(&tap);
	return roce_test_pair_release(&pair, &a, &b, baseline);
}

/* Port A, and port B unless conf_b is NO_PEER; leftovers of a failed case go first. */
#define NO_PEER ((const struct rte_roce_port_conf *)&pair)

static int
setup(const struct rte_roce_port_conf *conf_a, const struct rte_roce_port_conf *conf_b)
{
	teardown();
	memset(&tap, 0, sizeof(tap));
	baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	a = roce_test_port(pair.a, conf_a, addrs_a);
	if (conf_b != NO_PEER)
		b = roce_test_port(pair.b, conf_b, addrs_b);
	ROCE_TEST_ASSERT(a != NULL && (b != NULL || conf_b == NO_PEER), "ports");
	return 0;
}

/* An Ethernet frame (header left for the port to fill) carrying UDP to the discard port. */
static struct rte_mbuf *
udp_frame(const char *src, const char *dst)
{
	uint8_t buf[RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_udp_hdr) +
		    PAYLOAD_LEN];
	union rte_roce_gid s, d;
	struct rte_udp_hdr *udp;
	uint32_t l3_len;

	memset(buf, 0, sizeof(buf));
	if (rte_roce_gid_parse(src, &s) != 0 || rte_roce_gid_parse(dst, &d) != 0)
		return NULL;
	if (rte_roce_gid_is_ipv4(&d)) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)&buf[RTE_ETHER_HDR_LEN];

		l3_len = sizeof(*ip);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16(l3_len + sizeof(*udp) + PAYLOAD_LEN);
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_UDP;
		ip->src_addr = rte_roce_gid_to_ipv4(&s);
		ip->dst_addr = rte_roce_gid_to_ipv4(&d);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)&buf[RTE_ETHER_HDR_LEN];

		l3_len = sizeof(*ip);
		roce_test_ipv6_fill(ip, &s, &d, IPPROTO_UDP, 64, sizeof(*udp) + PAYLOAD_LEN);
	}
	udp = (struct rte_udp_hdr *)&buf[RTE_ETHER_HDR_LEN + l3_len];
	udp->dst_port = RTE_BE16(DISCARD_PORT);
	udp->dgram_len = rte_cpu_to_be_16(sizeof(*udp) + PAYLOAD_LEN);
	return roce_test_frame(buf, RTE_ETHER_HDR_LEN + l3_len + sizeof(*udp) + PAYLOAD_LEN);
}

static int
check_resolves(struct rte_roce_port *from, struct rte_roce_port *to, const char *ip)
{
	struct rte_roce_port_info info;
	struct rte_ether_addr mac;
	int ret;

	ret = roce_test_resolve(from, to, ip, &mac, RESOLVE_MS);
	ROCE_TEST_ASSERT_EQ(ret, 0, "resolving %s", ip);
	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(to, &info), 0, "info");
	ROCE_TEST_ASSERT(rte_is_same_ether_addr(&mac, &info.mac), "%s resolved to a wrong MAC", ip);
	return 0;
}

typedef int (*counters_check)(const struct rte_roce_port_stats *sa,
			      const struct rte_roce_port_stats *sb);

/*
 * A resolves B; B then knows A without asking, having learnt A from the
 * request (RFC 826; RFC 4861 7.2.3, the SLLA of the solicitation); and a
 * restarted B, which forgot A, resolves A.
 */
static int
both_ways(const char *ip_a, const char *ip_b, counters_check counters)
{
	struct rte_roce_port_stats sa, sb;
	struct rte_ether_addr mac;

	ROCE_TEST_ASSERT_EQ(setup(NULL, NULL), 0, "setup");
	ROCE_TEST_ASSERT_EQ(check_resolves(a, b, ip_b), 0, "A resolves B");
	ROCE_TEST_ASSERT_EQ(roce_test_resolve(b, a, ip_a, &mac, 0), 0, "B learnt A");
	rte_roce_port_stats_get(a, &sa);
	rte_roce_port_stats_get(b, &sb);
	ROCE_TEST_ASSERT_EQ(counters(&sa, &sb), 0, "counters");
	ROCE_TEST_ASSERT(sa.neigh_resolved >= 1 && sa.neigh_misses >= 1, "A's neighbour counters");
	rte_roce_port_destroy(b);
	b = roce_test_port(pair.b, NULL, addrs_b);
	ROCE_TEST_ASSERT(b != NULL, "port B again");
	ROCE_TEST_ASSERT_EQ(check_resolves(b, a, ip_a), 0, "B resolves A");
	return teardown();
}

static int
arp_counters(const struct rte_roce_port_stats *sa, const struct rte_roce_port_stats *sb)
{
	ROCE_TEST_ASSERT(sa->arp_requests_out >= 1 && sa->arp_replies_in >= 1, "A's ARP counters");
	ROCE_TEST_ASSERT(sb->arp_requests_in >= 1 && sb->arp_replies_out >= 1, "B's ARP counters");
	ROCE_TEST_ASSERT_EQ(sb->arp_requests_out, 0, "B needed no request");
	return 0;
}

static int
nd_counters(const struct rte_roce_port_stats *sa, const struct rte_roce_port_stats *sb)
{
	ROCE_TEST_ASSERT(sa->nd_solicits_out >= 1 && sa->nd_adverts_in >= 1, "A's ND counters");
	ROCE_TEST_ASSERT(sb->nd_solicits_in >= 1 && sb->nd_adverts_out >= 1, "B's ND counters");
	ROCE_TEST_ASSERT_EQ(sb->nd_solicits_out, 0, "B needed no solicitation");
	return 0;
}

static int
test_arp_both_ways(void)
{
	return both_ways("198.18.0.1", "198.18.0.2", arp_counters);
}

static int
test_nd_global_both_ways(void)
{
	return both_ways("2001:db8::1", "2001:db8::2", nd_counters);
}

static int
test_nd_link_local_both_ways(void)
{
	char text[RTE_ROCE_GID_STRLEN];
	union rte_roce_gid gid;

	ROCE_TEST_ASSERT_EQ(setup(NULL, NULL), 0, "setup");
	/* The default GID: fe80::/64 + the EUI-64 of the MAC. */
	ROCE_TEST_ASSERT_EQ(rte_roce_port_gid_query(b, 0, &gid), 0, "B's GID 0");
	rte_roce_gid_format(&gid, text, sizeof(text));
	ROCE_TEST_ASSERT_EQ(check_resolves(a, b, text), 0, "A resolves B's link-local %s", text);
	ROCE_TEST_ASSERT_EQ(rte_roce_port_gid_query(a, 0, &gid), 0, "A's GID 0");
	rte_roce_gid_format(&gid, text, sizeof(text));
	ROCE_TEST_ASSERT_EQ(check_resolves(b, a, text), 0, "B resolves A's link-local %s", text);
	return teardown();
}

/* Frames sent to an unresolved neighbour wait, then leave in order once it answers. */
static int
test_send_queued_until_resolved(void)
{
	static const char *const peers[][2] = {
		{ "198.18.0.1", "198.18.0.2" }, { "2001:db8::1", "2001:db8::2" },
	};
	struct rte_roce_port_stats sa, sb;
	union rte_roce_gid nh;
	unsigned int i, round;

	ROCE_TEST_ASSERT_EQ(setup(NULL, NULL), 0, "setup");
	for (i = 0; i < RTE_DIM(peers); i++) {
		rte_roce_gid_parse(peers[i][1], &nh);
		ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, udp_frame(peers[i][0], peers[i][1]), &nh),
				    0, "first frame to %s queued", peers[i][1]);
		ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, udp_frame(peers[i][0], peers[i][1]), &nh),
				    0, "second frame to %s queued", peers[i][1]);
	}
	for (round = 0; round < 10; round++)
		roce_test_pump(a, b);
	rte_roce_port_stats_get(a, &sa);
	rte_roce_port_stats_get(b, &sb);
	ROCE_TEST_ASSERT_EQ(sb.drops[RTE_ROCE_PORT_DROP_UDP_PORT], 4, "B received the 4 frames");
	ROCE_TEST_ASSERT_EQ(sa.neigh_queue_drops, 0, "nothing dropped");
	ROCE_TEST_ASSERT_EQ(sa.neigh_misses, 4, "4 sends missed the cache");
	/* Now the cache knows B: the next frame goes straight out. */
	rte_roce_gid_parse("198.18.0.2", &nh);
	ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, udp_frame("198.18.0.1", "198.18.0.2"), &nh), 0,
			    "direct send");
	roce_test_pump(a, b);
	rte_roce_port_stats_get(b, &sb);
	ROCE_TEST_ASSERT_EQ(sb.drops[RTE_ROCE_PORT_DROP_UDP_PORT], 5, "B received the 5th frame");
	return teardown();
}

static const struct rte_roce_port_conf fail_conf = {
	.neigh_retries = FAIL_RETRIES,
	.neigh_retry_ms = FAIL_RETRY_MS,
	.neigh_timeout_ms = 60000,
	.neigh_queue_len = QUEUE_LEN,
};

/* Nobody answers on the other end: retries, then -EHOSTUNREACH, queued frames freed. */
static int
test_resolution_failure(void)
{
	struct rte_roce_port_stats sa;
	struct rte_ether_addr mac;
	union rte_roce_gid nh;
	unsigned int i;
	int ret;

	ROCE_TEST_ASSERT_EQ(setup(&fail_conf, NO_PEER), 0, "setup");
	rte_roce_gid_parse("198.18.0.9", &nh);
	for (i = 0; i < 3; i++)
		ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, udp_frame("198.18.0.1", "198.18.0.9"), &nh),
				    0, "frame %u queued", i);
	ret = roce_test_resolve(a, NULL, "198.18.0.9", &mac, 1000);
	ROCE_TEST_ASSERT_EQ(ret, -EHOSTUNREACH, "resolution must fail");
	rte_roce_port_stats_get(a, &sa);
	ROCE_TEST_ASSERT_EQ(sa.arp_requests_out, FAIL_RETRIES, "one request per try");
	ROCE_TEST_ASSERT_EQ(sa.neigh_failed, 1, "one failure");
	ROCE_TEST_ASSERT_EQ(sa.neigh_queue_drops, 3, "the queued frames are counted");
	/* The failure holds: a send fails at once and its frame is counted too. */
	ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, udp_frame("198.18.0.1", "198.18.0.9"), &nh),
			    -EHOSTUNREACH, "send after failure");
	rte_roce_port_stats_get(a, &sa);
	ROCE_TEST_ASSERT_EQ(sa.neigh_queue_drops, 4, "frame dropped");
	ROCE_TEST_ASSERT_EQ(sa.arp_requests_out, FAIL_RETRIES, "no request while failed");
	return teardown();
}

static int
test_pending_queue_bounded(void)
{
	struct rte_roce_port_stats sa;
	union rte_roce_gid nh;
	unsigned int i;

	ROCE_TEST_ASSERT_EQ(setup(&fail_conf, NO_PEER), 0, "setup");
	rte_roce_gid_parse("2001:db8::9", &nh);
	for (i = 0; i < QUEUE_LEN; i++)
		ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, udp_frame("2001:db8::1", "2001:db8::9"), &nh),
				    0, "frame %u queued", i);
	for (i = 0; i < 2; i++)
		ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, udp_frame("2001:db8::1", "2001:db8::9"), &nh),
				    -ENOBUFS, "frame beyond the limit");
	rte_roce_port_stats_get(a, &sa);
	ROCE_TEST_ASSERT_EQ(sa.neigh_queue_drops, 2, "two frames refused and counted");
	ROCE_TEST_ASSERT_EQ(sa.nd_solicits_out, 1, "one solicitation so far");
	/* Destroying the port frees the 4 queued frames: teardown checks the pool. */
	return teardown();
}

static int
test_neigh_ageing(void)
{
	struct rte_roce_port_conf conf = { .neigh_timeout_ms = AGEING_MS, .neigh_retry_ms = 5 };
	struct rte_roce_port_stats sa, sb;
	struct rte_ether_addr mac;
	union rte_roce_gid gid;
	uint64_t end;

	ROCE_TEST_ASSERT_EQ(setup(&conf, &conf), 0, "setup");
	ROCE_TEST_ASSERT_EQ(roce_test_nd_tap_add(&tap, pair.b, 0), 0, "tap");
	ROCE_TEST_ASSERT_EQ(check_resolves(a, b, "198.18.0.2"), 0, "A resolves B");
	end = roce_test_ms() + 3 * AGEING_MS;
	while (roce_test_ms() < end)
		roce_test_pump(a, b);
	rte_roce_port_stats_get(a, &sa);
	rte_roce_port_stats_get(b, &sb);
	ROCE_TEST_ASSERT(sa.neigh_expired >= 1, "B's entry aged out");
	/* Unused since learnt (a resolve is no use): no probe, no chatter for an idle peer. */
	ROCE_TEST_ASSERT_EQ(sa.neigh_probes + sb.neigh_probes, 0, "nobody probed");
	ROCE_TEST_ASSERT_EQ(tap.unicast, 0, "no probe on the wire");
	rte_roce_gid_parse("198.18.0.2", &gid);
	ROCE_TEST_ASSERT_EQ(rte_roce_port_resolve(a, &gid, &mac), -EAGAIN, "resolving again");
	ROCE_TEST_ASSERT_EQ(check_resolves(a, b, "198.18.0.2"), 0, "A resolves B again");
	return teardown();
}

static const struct rte_roce_port_conf probe_conf = {
	.neigh_timeout_ms = PROBE_TIMEOUT_MS,
	.neigh_retry_ms = PROBE_RETRY_MS,
	.neigh_retries = PROBE_RETRIES,
};

/*
 * A sends one frame from src to dst every STREAM_GAP_MS for ms while both
 * ports are polled; *sent counts the frames accepted. Every send must be
 * accepted, unless until_unreachable: then a full neighbour queue may
 * refuse one (-ENOBUFS) and the first -EHOSTUNREACH ends the stream.
 * *last is the last send's result.
 */
static int
stream(const char *src, const char *dst, uint64_t ms, bool until_unreachable,
       unsigned int *sent, int *last)
{
	union rte_roce_gid nh;
	uint64_t now, end, next = 0;
	int ret = 0;

	ROCE_TEST_ASSERT_EQ(rte_roce_gid_parse(dst, &nh), 0, "%s", dst);
	*sent = 0;
	end = roce_test_ms() + ms;
	while ((now = roce_test_ms()) < end) {
		if (now >= next) {
			next = now + STREAM_GAP_MS;
			ret = rte_roce_port_send(a, udp_frame(src, dst), &nh);
			if (until_unreachable && ret == -EHOSTUNREACH)
				break;
			ROCE_TEST_ASSERT(ret == 0 || (until_unreachable && ret == -ENOBUFS),
					 "send to %s: %d", dst, ret);
			*sent += ret == 0;
		}
		roce_test_pump(a, b);
	}
	*last = ret;
	return 0;
}

/* What is on the wire arrives: both ports polled, then B alone (A's last frames). */
static void
settle(void)
{
	unsigned int round;

	for (round = 0; round < 10; round++)
		roce_test_pump(a, b);
	for (round = 0; round < 10; round++)
		roce_test_pump(NULL, b);
}

/*
 * A streams to B for several lifetimes of its entry: the entry never goes
 * (no miss, nothing queued or dropped), a unicast probe to B's MAC at each
 * end of lifetime is answered and refreshes it. B, which sends nothing to A,
 * probes nothing.
 */
static int
kept_in_use(const char *src, const char *dst)
{
	struct rte_roce_port_stats before, sa, sb;
	struct rte_roce_port_info info;
	unsigned int sent;
	uint64_t resolution;
	int last;

	ROCE_TEST_ASSERT_EQ(setup(&probe_conf, &probe_conf), 0, "setup");
	ROCE_TEST_ASSERT_EQ(roce_test_nd_tap_add(&tap, pair.b, 0), 0, "tap");
	ROCE_TEST_ASSERT_EQ(check_resolves(a, b, dst), 0, "A resolves B");
	resolution = tap.multicast;
	rte_roce_port_stats_get(a, &before);
	ROCE_TEST_ASSERT_EQ(stream(src, dst, STREAM_LIFETIMES * PROBE_TIMEOUT_MS, false, &sent,
				   &last), 0, "stream");
	settle();
	rte_roce_port_stats_get(a, &sa);
	rte_roce_port_stats_get(b, &sb);
	printf("# %s: %u frames, %" PRIu64 " probes, %" PRIu64 " refreshed\n", dst, sent,
	       sa.neigh_probes, sa.neigh_refreshed);
	ROCE_TEST_ASSERT_EQ(sa.neigh_misses, before.neigh_misses, "every frame found the entry");
	ROCE_TEST_ASSERT_EQ(sa.neigh_expired + sa.neigh_probe_failed, 0, "never removed");
	ROCE_TEST_ASSERT_EQ(sa.neigh_queue_drops, 0, "nothing dropped");
	ROCE_TEST_ASSERT(sa.neigh_probes >= MIN_PROBES, "probed at each end of lifetime (%" PRIu64
			 ")", sa.neigh_probes);
	ROCE_TEST_ASSERT(sa.neigh_refreshed >= MIN_PROBES && sa.neigh_refreshed <= sa.neigh_probes,
			 "the answers refreshed it (%" PRIu64 ")", sa.neigh_refreshed);
	ROCE_TEST_ASSERT_EQ(tap.unicast, sa.neigh_probes, "every probe reached B by unicast");
	ROCE_TEST_ASSERT_EQ(tap.multicast, resolution, "no broadcast / multicast request since");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(b, &info), 0, "B's info");
	ROCE_TEST_ASSERT(rte_is_same_ether_addr(&tap.unicast_dst, &info.mac), "probe to B's MAC");
	ROCE_TEST_ASSERT_EQ(sb.drops[RTE_ROCE_PORT_DROP_UDP_PORT], sent, "B received every frame");
	ROCE_TEST_ASSERT_EQ(sb.neigh_probes, 0, "B probed nothing");
	return teardown();
}

static int
test_arp_kept_in_use(void)
{
	return kept_in_use("198.18.0.1", "198.18.0.2");
}

static int
test_nd_kept_in_use(void)
{
	return kept_in_use("2001:db8::1", "2001:db8::2");
}

/*
 * B stops answering (its requests dropped on the way): A's entry in use is
 * probed neigh_retries times by unicast, then removed and counted; the next
 * send resolves from scratch by broadcast / multicast, which fails as ever.
 */
static int
probes_unanswered(const char *src, const char *dst)
{
	struct rte_roce_port_stats before, sa;
	struct rte_ether_addr mac;
	union rte_roce_gid nh;
	unsigned int sent;
	int last;

	ROCE_TEST_ASSERT_EQ(setup(&probe_conf, &probe_conf), 0, "setup");
	ROCE_TEST_ASSERT_EQ(check_resolves(a, b, dst), 0, "A resolves B");
	tap.drop_all = true;
	ROCE_TEST_ASSERT_EQ(roce_test_nd_tap_add(&tap, pair.b, 0), 0, "tap");
	rte_roce_port_stats_get(a, &before);
	ROCE_TEST_ASSERT_EQ(stream(src, dst, PROBE_TIMEOUT_MS + PROBE_RETRIES * PROBE_RETRY_MS +
				   GIVE_UP_MARGIN_MS, true, &sent, &last), 0, "stream");
	rte_roce_port_stats_get(a, &sa);
	ROCE_TEST_ASSERT_EQ(last, -EHOSTUNREACH, "a send fails in the end");
	ROCE_TEST_ASSERT_EQ(sa.neigh_probes, PROBE_RETRIES, "neigh_retries probes");
	ROCE_TEST_ASSERT_EQ(sa.neigh_refreshed, 0, "none answered");
	ROCE_TEST_ASSERT_EQ(sa.neigh_probe_failed, 1, "the entry was removed after them");
	ROCE_TEST_ASSERT_EQ(sa.neigh_expired, 0, "not counted as idle expiry");
	ROCE_TEST_ASSERT(sa.neigh_misses > before.neigh_misses, "then sends missed");
	ROCE_TEST_ASSERT_EQ(sa.neigh_failed, 1, "the new resolution failed");
	ROCE_TEST_ASSERT_EQ(tap.unicast, PROBE_RETRIES, "the probes were unicast");
	ROCE_TEST_ASSERT_EQ(tap.multicast, PROBE_RETRIES, "then the requests from scratch");
	ROCE_TEST_ASSERT_EQ(rte_roce_gid_parse(dst, &nh), 0, "%s", dst);
	ROCE_TEST_ASSERT_EQ(rte_roce_port_resolve(a, &nh, &mac), -EHOSTUNREACH, "failure holds");
	return teardown();
}

static int
test_arp_probes_unanswered(void)
{
	return probes_unanswered("198.18.0.1", "198.18.0.2");
}

static int
test_nd_probes_unanswered(void)
{
	return probes_unanswered("2001:db8::1", "2001:db8::2");
}

/* A sends from src to dst (B, which does not answer) until the entry's first probe leaves. */
static int
stream_until_probed(const char *src, const char *dst)
{
	struct rte_roce_port_stats sa;
	union rte_roce_gid nh;
	uint64_t end;

	ROCE_TEST_ASSERT_EQ(rte_roce_gid_parse(dst, &nh), 0, "%s", dst);
	end = roce_test_ms() + PROBE_TIMEOUT_MS + GIVE_UP_MARGIN_MS;
	do {
		ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, udp_frame(src, dst), &nh), 0, "send");
		roce_test_pump(a, b);
		rte_roce_port_stats_get(a, &sa);
	} while (sa.neigh_probes == 0 && roce_test_ms() < end);
	ROCE_TEST_ASSERT_EQ(sa.neigh_probes, 1, "the entry is being probed");
	return 0;
}

/* RFC 4861 4.3 and 4.4: Neighbour Solicitation and Advertisement, without options. */
#define NS_TYPE 135
#define NA_TYPE 136
#define ND_LEN 24
#define NA_FLAGS_OFF 4
#define ND_TARGET_OFF 8
#define NA_SOLICITED 0x40
#define NA_OVERRIDE 0x20
/* RFC 4861 4.6.1: the Source / Target Link-Layer Address options, 8 bytes for Ethernet. */
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define ND_OPT_LLA_LEN 8
#define ND_HOP_LIMIT 255
#define NA_PROBE_RETRY_MS 500	/* a wide window while the entry is probed */

/*
 * An ND message from B to A: type, NA flags as given, the target address
 * (B's own for an NA, A's for an NS), and lla as its link-layer address
 * option (TLLA in an NA, SLLA in an NS), or none if NULL (Linux answering a
 * unicast NS).
 */
static struct rte_mbuf *
nd_frame(uint8_t type, uint8_t flags, const char *target, const struct rte_ether_addr *lla)
{
	uint8_t buf[RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) + ND_LEN + ND_OPT_LLA_LEN];
	uint16_t nd_len = lla != NULL ? ND_LEN + ND_OPT_LLA_LEN : ND_LEN;
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
	uint8_t *nd = (uint8_t *)(ip + 1);
	struct rte_roce_port_info ia, ib;
	union rte_roce_gid ga, gb, gt;

	memset(buf, 0, sizeof(buf));
	if (rte_roce_port_info_get(a, &ia) != 0 || rte_roce_port_info_get(b, &ib) != 0 ||
	    rte_roce_gid_parse("2001:db8::1", &ga) != 0 || rte_roce_gid_parse("2001:db8::2", &gb) != 0 ||
	    rte_roce_gid_parse(target, &gt) != 0)
		return NULL;
	eth->dst_addr = ia.mac;
	eth->src_addr = ib.mac;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	roce_test_ipv6_fill(ip, &gb, &ga, IPPROTO_ICMPV6, ND_HOP_LIMIT, nd_len);
	nd[0] = type;
	nd[NA_FLAGS_OFF] = flags;
	memcpy(&nd[ND_TARGET_OFF], gt.raw, sizeof(gt.raw));
	if (lla != NULL) {
		nd[ND_LEN] = type == NS_TYPE ? ND_OPT_SLLA : ND_OPT_TLLA;
		nd[ND_LEN + 1] = ND_OPT_LLA_LEN / 8;
		memcpy(&nd[ND_LEN + 2], lla->addr_bytes, RTE_ETHER_ADDR_LEN);
	}
	*(rte_be16_t *)&nd[2] = rte_ipv6_udptcp_cksum(ip, nd);
	return roce_test_frame(buf, RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) + nd_len);
}

/* A frame on the wire to A, as if B had sent it; A polls it. */
static int
inject(struct rte_mbuf *m)
{
	ROCE_TEST_ASSERT(m != NULL, "frame");
	ROCE_TEST_ASSERT_EQ(rte_ring_enqueue(pair.ring[0], m), 0, "frame on the wire");
	roce_test_pump(a, NULL);
	return 0;
}

/* An NA from B for B's address, with tlla as its TLLA option or none. */
static int
inject_na(uint8_t flags, const struct rte_ether_addr *tlla)
{
	return inject(nd_frame(NA_TYPE, flags, "2001:db8::2", tlla));
}

/*
 * Linux answers our unicast NS with an NA without TLLA (K:ndisc.c
 * ndisc_recv_ns); its Solicited flag alone refreshes the probed entry (RFC
 * 4861 7.2.5), an unsolicited one does not.
 */
static int
test_na_without_tlla_refreshes(void)
{
	struct rte_roce_port_conf conf = probe_conf;
	struct rte_roce_port_stats sa;

	conf.neigh_retry_ms = NA_PROBE_RETRY_MS;
	ROCE_TEST_ASSERT_EQ(setup(&conf, &conf), 0, "setup");
	ROCE_TEST_ASSERT_EQ(check_resolves(a, b, "2001:db8::2"), 0, "A resolves B");
	tap.drop_all = true;	/* B's own answers must not interfere */
	ROCE_TEST_ASSERT_EQ(roce_test_nd_tap_add(&tap, pair.b, 0), 0, "tap");
	ROCE_TEST_ASSERT_EQ(stream_until_probed("2001:db8::1", "2001:db8::2"), 0, "probing");
	ROCE_TEST_ASSERT_EQ(inject_na(NA_OVERRIDE, NULL), 0, "unsolicited NA");
	rte_roce_port_stats_get(a, &sa);
	ROCE_TEST_ASSERT_EQ(sa.neigh_refreshed, 0, "an unsolicited NA without TLLA says nothing");
	ROCE_TEST_ASSERT_EQ(inject_na(NA_SOLICITED, NULL), 0, "solicited NA");
	rte_roce_port_stats_get(a, &sa);
	ROCE_TEST_ASSERT_EQ(sa.neigh_refreshed, 1, "a solicited NA refreshes");
	ROCE_TEST_ASSERT_EQ(sa.neigh_probe_failed + sa.neigh_expired, 0, "never removed");
	return teardown();
}

/*
 * While A probes B (B's answers dropped), B asks for A's MAC, as B does when
 * its own entry for A ends: the request shows B can reach A, not that B
 * hears A, so A's entry stays probed and is removed when its probes go
 * unanswered (RFC 4861 7.2.3; Linux treats ARP alike).
 */
static int
request_confirms_nothing(const char *src, const char *dst)
{
	struct rte_roce_port_stats s0, s1;
	struct rte_roce_port_info ib;
	struct rte_mbuf *request;
	unsigned int sent;
	int last;

	ROCE_TEST_ASSERT_EQ(setup(&probe_conf, &probe_conf), 0, "setup");
	ROCE_TEST_ASSERT_EQ(check_resolves(a, b, dst), 0, "A resolves B");
	tap.drop_all = true;
	ROCE_TEST_ASSERT_EQ(roce_test_nd_tap_add(&tap, pair.b, 0), 0, "tap");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(b, &ib), 0, "info");
	ROCE_TEST_ASSERT_EQ(stream_until_probed(src, dst), 0, "probing");
	rte_roce_port_stats_get(a, &s0);
	request = strchr(src, ':') != NULL ? nd_frame(NS_TYPE, 0, src, &ib.mac) :
		  roce_test_arp_request(&ib.mac, dst, src);
	ROCE_TEST_ASSERT_EQ(inject(request), 0, "B's request");
	rte_roce_port_stats_get(a, &s1);
	ROCE_TEST_ASSERT_EQ(s1.neigh_refreshed, 0, "the request refreshed nothing");
	ROCE_TEST_ASSERT_EQ(s1.neigh_resolved, s0.neigh_resolved, "nor confirmed anything");
	ROCE_TEST_ASSERT_EQ(stream(src, dst, PROBE_RETRIES * PROBE_RETRY_MS + GIVE_UP_MARGIN_MS,
				   true, &sent, &last), 0, "stream");
	rte_roce_port_stats_get(a, &s1);
	ROCE_TEST_ASSERT_EQ(s1.neigh_probe_failed, 1, "the probed entry was removed");
	return teardown();
}

static int
test_arp_request_confirms_nothing(void)
{
	return request_confirms_nothing("198.18.0.1", "198.18.0.2");
}

static int
test_ns_confirms_nothing(void)
{
	return request_confirms_nothing("2001:db8::1", "2001:db8::2");
}

/* A's entry for B has this MAC, or the case fails. */
static int
check_mac_of_b(const struct rte_ether_addr *want, const char *why)
{
	struct rte_ether_addr mac;
	union rte_roce_gid gb;

	ROCE_TEST_ASSERT_EQ(rte_roce_gid_parse("2001:db8::2", &gb), 0, "parse");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_resolve(a, &gb, &mac), 0, "B's entry usable");
	ROCE_TEST_ASSERT(rte_is_same_ether_addr(&mac, want), "%s: B is at " RTE_ETHER_ADDR_PRT_FMT,
			 why, RTE_ETHER_ADDR_BYTES(&mac));
	return 0;
}

/*
 * RFC 4861 7.2.5 on an entry with a MAC: an NA with another MAC replaces it
 * only with the Override flag (a proxy or anycast answer without it must not
 * take the address over); the same MAC with Override and Solicited is
 * taken back and confirmed.
 */
static int
test_na_override_rules(void)
{
	const struct rte_ether_addr moved = {
		.addr_bytes = { RTE_ETHER_LOCAL_ADMIN_ADDR, 0, 0, 0, 0, 0x42 },
	};
	struct rte_roce_port_info ib;
	struct rte_roce_port_stats s0, s1;

	ROCE_TEST_ASSERT_EQ(setup(&probe_conf, &probe_conf), 0, "setup");
	ROCE_TEST_ASSERT_EQ(check_resolves(a, b, "2001:db8::2"), 0, "A resolves B");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(b, &ib), 0, "info");
	rte_roce_port_stats_get(a, &s0);
	ROCE_TEST_ASSERT_EQ(inject_na(NA_SOLICITED, &moved), 0, "NA, no Override");
	ROCE_TEST_ASSERT_EQ(check_mac_of_b(&ib.mac, "without Override"), 0, "MAC kept");
	rte_roce_port_stats_get(a, &s1);
	ROCE_TEST_ASSERT_EQ(s1.neigh_resolved, s0.neigh_resolved, "an NA not taken confirms nothing");
	ROCE_TEST_ASSERT_EQ(inject_na(NA_OVERRIDE, &moved), 0, "unsolicited NA, Override");
	ROCE_TEST_ASSERT_EQ(check_mac_of_b(&moved, "with Override"), 0, "MAC replaced");
	ROCE_TEST_ASSERT_EQ(inject_na(NA_SOLICITED | NA_OVERRIDE, &ib.mac), 0, "NA back");
	ROCE_TEST_ASSERT_EQ(check_mac_of_b(&ib.mac, "back"), 0, "MAC back");
	rte_roce_port_stats_get(a, &s1);
	ROCE_TEST_ASSERT_EQ(s1.neigh_resolved, s0.neigh_resolved + 2, "both replacements confirmed");
	ROCE_TEST_ASSERT_EQ(s1.nd_adverts_in, s0.nd_adverts_in + 3, "three NAs counted");
	return teardown();
}

#define EVICT_ENTRIES 2
#define EVICT_RETRY_MS 100	/* probes slower than a lifetime's end: see below */
#define OTHER_HOST_MAC 0x77

/* Another host on the link asks A for its MAC: A learns it. */
static int
other_host_asks(const char *sip)
{
	struct rte_ether_addr mac = {
		.addr_bytes = { RTE_ETHER_LOCAL_ADMIN_ADDR, 0, 0, 0, 0, OTHER_HOST_MAC },
	};
	struct rte_mbuf *m = roce_test_arp_request(&mac, sip, "198.18.0.1");

	ROCE_TEST_ASSERT(m != NULL, "ARP request");
	ROCE_TEST_ASSERT_EQ(rte_ring_enqueue(pair.ring[0], m), 0, "request on the wire");
	roce_test_pump(a, NULL);
	return 0;
}

/*
 * A full cache evicts the entry expiring first, but one being probed (in
 * use; its deadline only the next probe's, EVICT_RETRY_MS away) goes last:
 * with B's entry probed (B ignores probes) and an idle host's entry newer
 * (its deadline PROBE_TIMEOUT_MS away), a third host evicts the idle one
 * and A keeps sending to B without a miss.
 */
static int
test_probed_entry_evicted_last(void)
{
	struct rte_roce_port_conf conf = probe_conf;
	struct rte_roce_port_stats before, sa;
	union rte_roce_gid nh;

	conf.neigh_entries = EVICT_ENTRIES;
	conf.neigh_retry_ms = EVICT_RETRY_MS;
	ROCE_TEST_ASSERT_EQ(setup(&conf, &conf), 0, "setup");
	ROCE_TEST_ASSERT_EQ(check_resolves(a, b, "198.18.0.2"), 0, "A resolves B");
	tap.drop_unicast = true;
	ROCE_TEST_ASSERT_EQ(roce_test_nd_tap_add(&tap, pair.b, 0), 0, "tap");
	ROCE_TEST_ASSERT_EQ(stream_until_probed("198.18.0.1", "198.18.0.2"), 0, "probing");
	rte_roce_port_stats_get(a, &sa);
	rte_roce_gid_parse("198.18.0.2", &nh);
	ROCE_TEST_ASSERT_EQ(other_host_asks("198.18.0.7"), 0, "198.18.0.7 learnt: cache full");
	ROCE_TEST_ASSERT_EQ(other_host_asks("198.18.0.8"), 0, "198.18.0.8 learnt: one evicted");
	rte_roce_port_stats_get(a, &before);
	ROCE_TEST_ASSERT_EQ(before.neigh_resolved, sa.neigh_resolved + 2, "both learnt");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, udp_frame("198.18.0.1", "198.18.0.2"), &nh), 0,
			    "send to B");
	rte_roce_port_stats_get(a, &sa);
	ROCE_TEST_ASSERT_EQ(sa.neigh_misses, before.neigh_misses, "B's entry is still there");
	ROCE_TEST_ASSERT_EQ(sa.neigh_probe_failed, 0, "and still probed");
	return teardown();
}

/* B stops polling: A's TX ring fills, then the backlog, then sends fail; all counted, none lost. */
static int
test_tx_backlog(void)
{
	struct rte_roce_port_stats sa, sb;
	union rte_roce_gid nh;
	unsigned int sent = 0, refused = 0, round;
	int ret;

	ROCE_TEST_ASSERT_EQ(setup(NULL, NULL), 0, "setup");
	ROCE_TEST_ASSERT_EQ(check_resolves(a, b, "198.18.0.2"), 0, "A resolves B");
	rte_roce_gid_parse("198.18.0.2", &nh);
	while (refused == 0 && sent < 2 * TX_FLOOD) {
		ret = rte_roce_port_send(a, udp_frame("198.18.0.1", "198.18.0.2"), &nh);
		ROCE_TEST_ASSERT(ret == 0 || ret == -ENOBUFS, "send: %d", ret);
		sent += ret == 0;
		refused += ret == -ENOBUFS;
	}
	rte_roce_port_stats_get(a, &sa);
	ROCE_TEST_ASSERT_EQ(refused, 1, "a send was refused");
	ROCE_TEST_ASSERT(sa.tx_backlogged > 0, "frames waited in the backlog");
	ROCE_TEST_ASSERT_EQ(sa.drops[RTE_ROCE_PORT_DROP_TX_FULL], 1, "the refused frame is counted");
	/* B drains the ring, A's polls flush the backlog: every accepted frame arrives. */
	for (round = 0; round < TX_FLOOD; round++)
		roce_test_pump(a, b);
	rte_roce_port_stats_get(b, &sb);
	ROCE_TEST_ASSERT_EQ(sb.drops[RTE_ROCE_PORT_DROP_UDP_PORT], sent, "all accepted frames arrived");
	return teardown();
}

static const struct roce_test_case cases[] = {
	{ "arp_resolution_both_ways", test_arp_both_ways },
	{ "nd_resolution_global_both_ways", test_nd_global_both_ways },
	{ "nd_resolution_link_local_both_ways", test_nd_link_local_both_ways },
	{ "send_queued_until_resolved", test_send_queued_until_resolved },
	{ "resolution_failure_frees_queue", test_resolution_failure },
	{ "pending_queue_bounded", test_pending_queue_bounded },
	{ "neighbour_ageing", test_neigh_ageing },
	{ "tx_backlog_bounded_and_flushed", test_tx_backlog },
	{ "arp_entry_in_use_kept_by_probes", test_arp_kept_in_use },
	{ "nd_entry_in_use_kept_by_probes", test_nd_kept_in_use },
	{ "arp_probes_unanswered_entry_removed", test_arp_probes_unanswered },
	{ "nd_probes_unanswered_entry_removed", test_nd_probes_unanswered },
	{ "na_without_tlla_refreshes", test_na_without_tlla_refreshes },
	{ "na_override_rules", test_na_override_rules },
	{ "arp_request_confirms_nothing", test_arp_request_confirms_nothing },
	{ "ns_confirms_nothing", test_ns_confirms_nothing },
	{ "probed_entry_evicted_last", test_probed_entry_evicted_last },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&pair, "neigh") != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
