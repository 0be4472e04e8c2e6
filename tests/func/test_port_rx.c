/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * What a port does with each kind of frame, over a net_ring pair: frames
 * are written by hand and injected through ethdev A (whose RoCE port is
 * never polled, so the test reads B's answers on A's ethdev directly):
 * ICMP and ICMPv6 echo, malformed ARP and ND, DAD, frames not for us, and
 * RoCEv2 frames sent through rte_roce_port_send(), good and bad.
 */

#include <errno.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_ethdev.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mempool.h>
#include <rte_udp.h>

#include <rte_roce.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"

#define BURST 32
#define ECHO_ID 0x1234
#define ECHO_SEQ 7
#define ECHO_DATA_LEN 56
#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY 129
#define ND_NS 135
#define ND_NA 136
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define NA_FLAG_S 0x40
#define NA_FLAG_O 0x20
#define HOP_ND 255
#define FRAME_MAX 2048
#define ROCE_QPN 0x11
#define ROCE_PSN 0xabcdef
#define ROCE_PAYLOAD 100
#define PUMP_ROUNDS 10

static struct roce_test_pair pair;
static unsigned int baseline;
static struct rte_roce_port *a, *b;
static struct rte_roce_port_info ia, ib;

static const char *const addrs_a[] = { "198.18.0.1/24", "2001:db8::1/64", NULL };
static const char *const addrs_b[] = { "198.18.0.2/24", "2001:db8::2/64", NULL };

/* A frame under construction: Ethernet, then IPv4 or IPv6, then L4. */
struct frame {
	uint8_t buf[FRAME_MAX];
	uint32_t len;
};

static int
teardown(void)
{
	return roce_test_pair_release(&pair, &a, &b, baseline);
}

static int
setup(void)
{
	teardown();
	baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	a = roce_test_port(pair.a, NULL, addrs_a);
	b = roce_test_port(pair.b, NULL, addrs_b);
	ROCE_TEST_ASSERT(a != NULL && b != NULL, "ports");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(a, &ia), 0, "info A");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(b, &ib), 0, "info B");
	return 0;
}

/* Send a frame into B through A's ethdev, and let B poll it. */
static int
inject(const struct frame *f)
{
	struct rte_mbuf *m = roce_test_frame(f->buf, f->len);
	struct rte_mbuf *pkts[BURST];
	uint16_t n;

	ROCE_TEST_ASSERT(m != NULL, "frame");
	ROCE_TEST_ASSERT_EQ(rte_eth_tx_burst(pair.a, 0, &m, 1), 1, "tx");
	n = rte_roce_port_poll(b, pkts, BURST);
	rte_pktmbuf_free_bulk(pkts, n);
	return n;
}

/* The frame in two segments, cut at split bytes. */
static struct rte_mbuf *
chained(const struct frame *f, uint32_t split)
{
	struct rte_mbuf *head = roce_test_frame(f->buf, split);
	struct rte_mbuf *tail = roce_test_frame(f->buf + split, f->len - split);

	if (head == NULL || tail == NULL || rte_pktmbuf_chain(head, tail) != 0) {
		rte_pktmbuf_free(head);
		rte_pktmbuf_free(tail);
		return NULL;
	}
	return head;
}

/* What B sent back, read raw on A's ethdev. */
static uint16_t
collect(struct rte_mbuf **pkts)
{
	return rte_eth_rx_burst(pair.a, 0, pkts, BURST);
}

static struct rte_roce_port_stats
stats_b(void)
{
	struct rte_roce_port_stats s;

	rte_roce_port_stats_get(b, &s);
	return s;
}

static void
eth_hdr(struct frame *f, const struct rte_ether_addr *dst, uint16_t type)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f->buf;

	memset(f, 0, sizeof(*f));
	eth->dst_addr = *dst;
	eth->src_addr = ia.mac;
	eth->ether_type = rte_cpu_to_be_16(type);
	f->len = sizeof(*eth);
}

static struct rte_ipv4_hdr *
ipv4_hdr(struct frame *f, const struct rte_ether_addr *dst_mac, const char *dst, uint8_t proto,
	 uint32_t l4_len)
{
	struct rte_ipv4_hdr *ip;
	union rte_roce_gid s, d;

	eth_hdr(f, dst_mac, RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)&f->buf[f->len];
	rte_roce_gid_parse("198.18.0.1", &s);
	rte_roce_gid_parse(dst, &d);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + l4_len);
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	ip->src_addr = rte_roce_gid_to_ipv4(&s);
	ip->dst_addr = rte_roce_gid_to_ipv4(&d);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	f->len += sizeof(*ip) + l4_len;
	return ip;
}

static struct rte_ipv6_hdr *
ipv6_hdr(struct frame *f, const struct rte_ether_addr *dst_mac, const char *src, const char *dst,
	 uint8_t hops, uint32_t l4_len)
{
	struct rte_ipv6_hdr *ip;
	union rte_roce_gid s, d;

	eth_hdr(f, dst_mac, RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)&f->buf[f->len];
	rte_roce_gid_parse(src, &s);
	rte_roce_gid_parse(dst, &d);
	roce_test_ipv6_fill(ip, &s, &d, IPPROTO_ICMPV6, hops, l4_len);
	f->len += sizeof(*ip) + l4_len;
	return ip;
}

/* ---- ICMP echo ---- */

static void
echo_body(uint8_t *l4, uint8_t type)
{
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)l4;
	unsigned int i;

	icmp->icmp_type = type;
	icmp->icmp_ident = RTE_BE16(ECHO_ID);
	icmp->icmp_seq_nb = RTE_BE16(ECHO_SEQ);
	for (i = 0; i < ECHO_DATA_LEN; i++)
		l4[sizeof(*icmp) + i] = (uint8_t)i;
}

static int
check_echo_reply(const struct rte_icmp_hdr *icmp, uint8_t type)
{
	const uint8_t *data = (const uint8_t *)(icmp + 1);
	unsigned int i;

	ROCE_TEST_ASSERT_EQ(icmp->icmp_type, type, "reply type");
	ROCE_TEST_ASSERT_EQ(icmp->icmp_code, 0, "reply code");
	ROCE_TEST_ASSERT(icmp->icmp_ident == RTE_BE16(ECHO_ID) &&
			 icmp->icmp_seq_nb == RTE_BE16(ECHO_SEQ), "id and sequence echoed");
	for (i = 0; i < ECHO_DATA_LEN; i++)
		ROCE_TEST_ASSERT_EQ(data[i], (uint8_t)i, "data byte %u", i);
	return 0;
}

static int
test_ping_ipv4(void)
{
	const uint32_t l4_len = sizeof(struct rte_icmp_hdr) + ECHO_DATA_LEN;
	struct rte_mbuf *pkts[BURST];
	const struct rte_ipv4_hdr *rip;
	struct rte_ipv4_hdr *ip;
	struct rte_icmp_hdr *icmp;
	struct frame f;

	ROCE_TEST_ASSERT_EQ(setup(), 0, "setup");
	ip = ipv4_hdr(&f, &ib.mac, "198.18.0.2", IPPROTO_ICMP, l4_len);
	icmp = (struct rte_icmp_hdr *)(ip + 1);
	echo_body((uint8_t *)icmp, RTE_IP_ICMP_ECHO_REQUEST);
	icmp->icmp_cksum = ~rte_raw_cksum(icmp, l4_len);
	inject(&f);
	ROCE_TEST_ASSERT_EQ(collect(pkts), 1, "one echo reply");
	rip = rte_pktmbuf_mtod_offset(pkts[0], const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	ROCE_TEST_ASSERT(rte_is_same_ether_addr(&rte_pktmbuf_mtod(pkts[0], struct rte_ether_hdr *)
						->dst_addr, &ia.mac), "reply to A's MAC");
	ROCE_TEST_ASSERT(rip->src_addr == ip->dst_addr && rip->dst_addr == ip->src_addr,
			 "addresses swapped");
	ROCE_TEST_ASSERT_EQ(rte_ipv4_cksum(rip), 0, "IPv4 header checksum");
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_16(rip->total_length), sizeof(*rip) + l4_len, "length");
	ROCE_TEST_ASSERT_EQ(rte_raw_cksum(rip + 1, l4_len), 0xffff, "ICMP checksum");
	ROCE_TEST_ASSERT_EQ(check_echo_reply((const struct rte_icmp_hdr *)(rip + 1),
					     RTE_IP_ICMP_ECHO_REPLY), 0, "reply body");
	rte_pktmbuf_free(pkts[0]);
	/* The same with a bad checksum is dropped, and a non-echo type too. */
	icmp->icmp_cksum ^= 1;
	inject(&f);
	icmp->icmp_type = 13;	/* timestamp request */
	icmp->icmp_cksum = 0;
	icmp->icmp_cksum = ~rte_raw_cksum(icmp, l4_len);
	inject(&f);
	ROCE_TEST_ASSERT_EQ(collect(pkts), 0, "no reply to either");
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_ICMP_MALFORMED], 1, "bad checksum");
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_ICMP_TYPE], 1, "other type");
	ROCE_TEST_ASSERT_EQ(stats_b().icmp_echo_in, 1, "echo in");
	ROCE_TEST_ASSERT_EQ(stats_b().icmp_echo_out, 1, "echo out");
	return teardown();
}

static int
test_ping_ipv6(void)
{
	const uint32_t l4_len = sizeof(struct rte_icmp_hdr) + ECHO_DATA_LEN;
	struct rte_mbuf *pkts[BURST];
	const struct rte_ipv6_hdr *rip;
	struct rte_ipv6_hdr *ip;
	struct rte_icmp_hdr *icmp;
	struct frame f;

	ROCE_TEST_ASSERT_EQ(setup(), 0, "setup");
	ip = ipv6_hdr(&f, &ib.mac, "2001:db8::1", "2001:db8::2", 64, l4_len);
	icmp = (struct rte_icmp_hdr *)(ip + 1);
	echo_body((uint8_t *)icmp, ICMP6_ECHO_REQUEST);
	icmp->icmp_cksum = rte_ipv6_udptcp_cksum(ip, icmp);
	inject(&f);
	ROCE_TEST_ASSERT_EQ(collect(pkts), 1, "one echo reply");
	rip = rte_pktmbuf_mtod_offset(pkts[0], const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	ROCE_TEST_ASSERT(memcmp(rip->src_addr, ip->dst_addr, 16) == 0 &&
			 memcmp(rip->dst_addr, ip->src_addr, 16) == 0, "addresses swapped");
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_16(rip->payload_len), l4_len, "length");
	ROCE_TEST_ASSERT_EQ(rte_ipv6_udptcp_cksum(rip, rip + 1), 0, "ICMPv6 checksum");
	ROCE_TEST_ASSERT_EQ(check_echo_reply((const struct rte_icmp_hdr *)(rip + 1),
					     ICMP6_ECHO_REPLY), 0, "reply body");
	rte_pktmbuf_free(pkts[0]);
	icmp->icmp_cksum ^= 1;
	inject(&f);
	ROCE_TEST_ASSERT_EQ(collect(pkts), 0, "no reply to a bad checksum");
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_ICMP_MALFORMED], 1, "bad checksum");
	return teardown();
}

/* A ping sent by port A itself through rte_roce_port_send(): B answers, A counts the reply. */
static int
test_ping_from_port(void)
{
	const uint32_t l4_len = sizeof(struct rte_icmp_hdr) + ECHO_DATA_LEN;
	struct rte_roce_port_stats sa;
	struct rte_icmp_hdr *icmp;
	struct rte_ipv6_hdr *ip6;
	union rte_roce_gid nh;
	struct frame f;
	unsigned int round;

	ROCE_TEST_ASSERT_EQ(setup(), 0, "setup");
	icmp = (struct rte_icmp_hdr *)(ipv4_hdr(&f, &ib.mac, "198.18.0.2", IPPROTO_ICMP, l4_len) + 1);
	echo_body((uint8_t *)icmp, RTE_IP_ICMP_ECHO_REQUEST);
	icmp->icmp_cksum = ~rte_raw_cksum(icmp, l4_len);
	rte_roce_gid_parse("198.18.0.2", &nh);
	ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, roce_test_frame(f.buf, f.len), &nh), 0, "ping");
	ip6 = ipv6_hdr(&f, &ib.mac, "2001:db8::1", "2001:db8::2", 64, l4_len);
	icmp = (struct rte_icmp_hdr *)(ip6 + 1);
	echo_body((uint8_t *)icmp, ICMP6_ECHO_REQUEST);
	icmp->icmp_cksum = rte_ipv6_udptcp_cksum(ip6, icmp);
	rte_roce_gid_parse("2001:db8::2", &nh);
	ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, roce_test_frame(f.buf, f.len), &nh), 0, "ping6");
	for (round = 0; round < PUMP_ROUNDS; round++)
		roce_test_pump(a, b);
	rte_roce_port_stats_get(a, &sa);
	ROCE_TEST_ASSERT_EQ(sa.icmp_echo_replies_in, 2, "both replies came back");
	ROCE_TEST_ASSERT_EQ(stats_b().icmp_echo_out, 2, "B answered both");
	return teardown();
}

/* ---- ARP ---- */

static struct rte_arp_hdr *
arp_frame(struct frame *f, const char *target)
{
	struct rte_ether_addr bcast;
	struct rte_arp_hdr *arp;
	union rte_roce_gid s, t;

	memset(&bcast, 0xff, sizeof(bcast));
	eth_hdr(f, &bcast, RTE_ETHER_TYPE_ARP);
	arp = (struct rte_arp_hdr *)&f->buf[f->len];
	rte_roce_gid_parse("198.18.0.1", &s);
	rte_roce_gid_parse(target, &t);
	arp->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = RTE_BE16(RTE_ARP_OP_REQUEST);
	arp->arp_data.arp_sha = ia.mac;
	arp->arp_data.arp_sip = rte_roce_gid_to_ipv4(&s);
	arp->arp_data.arp_tip = rte_roce_gid_to_ipv4(&t);
	f->len += sizeof(*arp);
	return arp;
}

static int
test_arp_malformed(void)
{
	struct rte_mbuf *pkts[BURST];
	struct rte_arp_hdr *arp;
	struct frame f;

	ROCE_TEST_ASSERT_EQ(setup(), 0, "setup");
	arp_frame(&f, "198.18.0.2");
	f.len -= 8;			/* short */
	inject(&f);
	arp = arp_frame(&f, "198.18.0.2");
	arp->arp_hlen = 5;
	inject(&f);
	arp = arp_frame(&f, "198.18.0.2");
	arp->arp_plen = 16;
	inject(&f);
	arp = arp_frame(&f, "198.18.0.2");
	arp->arp_opcode = RTE_BE16(3);	/* RARP request */
	inject(&f);
	arp = arp_frame(&f, "198.18.0.2");
	arp->arp_hardware = RTE_BE16(6);	/* IEEE 802 */
	inject(&f);
	arp = arp_frame(&f, "198.18.0.2");
	memset(&arp->arp_data.arp_sha, 0xff, RTE_ETHER_ADDR_LEN);	/* broadcast sender */
	inject(&f);
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_ARP_MALFORMED], 6, "malformed");
	arp_frame(&f, "198.18.0.77");
	inject(&f);
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_ARP_NOT_FOR_US], 1, "other IP");
	ROCE_TEST_ASSERT_EQ(collect(pkts), 0, "no reply to any");
	ROCE_TEST_ASSERT_EQ(stats_b().arp_replies_out, 0, "no reply counted");
	/* The well-formed request is answered. */
	arp_frame(&f, "198.18.0.2");
	inject(&f);
	ROCE_TEST_ASSERT_EQ(collect(pkts), 1, "reply to the valid request");
	arp = rte_pktmbuf_mtod_offset(pkts[0], struct rte_arp_hdr *, RTE_ETHER_HDR_LEN);
	ROCE_TEST_ASSERT(arp->arp_opcode == RTE_BE16(RTE_ARP_OP_REPLY) &&
			 rte_is_same_ether_addr(&arp->arp_data.arp_sha, &ib.mac) &&
			 rte_is_same_ether_addr(&arp->arp_data.arp_tha, &ia.mac), "reply fields");
	rte_pktmbuf_free(pkts[0]);
	return teardown();
}

/* ---- Neighbour Discovery ---- */

struct nd_msg {
	uint8_t type, code;
	rte_be16_t cksum;
	uint8_t flags, reserved[3];
	uint8_t target[16];
	uint8_t opt_type, opt_len;
	uint8_t opt_mac[RTE_ETHER_ADDR_LEN];
} __rte_packed;

/* An NS for target from src to dst, with an SLLA option if slla. */
static struct nd_msg *
ns_frame(struct frame *f, const char *src, const char *dst, const struct rte_ether_addr *dst_mac,
	 bool slla)
{
	uint32_t len = slla ? sizeof(struct nd_msg) : offsetof(struct nd_msg, opt_type);
	struct rte_ipv6_hdr *ip = ipv6_hdr(f, dst_mac, src, dst, HOP_ND, len);
	struct nd_msg *ns = (struct nd_msg *)(ip + 1);
	union rte_roce_gid t;

	rte_roce_gid_parse("2001:db8::2", &t);
	ns->type = ND_NS;
	memcpy(ns->target, t.raw, sizeof(t.raw));
	if (slla) {
		ns->opt_type = ND_OPT_SLLA;
		ns->opt_len = 1;
		memcpy(ns->opt_mac, ia.mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	}
	ns->cksum = rte_ipv6_udptcp_cksum(ip, ns);
	return ns;
}

static void
ns_recksum(struct frame *f)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)&f->buf[RTE_ETHER_HDR_LEN];
	struct nd_msg *ns = (struct nd_msg *)(ip + 1);

	ns->cksum = 0;
	ns->cksum = rte_ipv6_udptcp_cksum(ip, ns);
}

static int
check_na(struct rte_mbuf *m, const struct rte_ether_addr *dst_mac, uint8_t flags)
{
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
								 RTE_ETHER_HDR_LEN);
	const struct nd_msg *na = (const struct nd_msg *)(ip + 1);

	ROCE_TEST_ASSERT(rte_is_same_ether_addr(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)
						->dst_addr, dst_mac), "NA destination MAC");
	ROCE_TEST_ASSERT_EQ(ip->hop_limits, HOP_ND, "hop limit");
	ROCE_TEST_ASSERT_EQ(rte_ipv6_udptcp_cksum(ip, na), 0, "NA checksum");
	ROCE_TEST_ASSERT_EQ(na->type, ND_NA, "NA type");
	ROCE_TEST_ASSERT_EQ(na->flags, flags, "NA flags");
	ROCE_TEST_ASSERT(na->opt_type == ND_OPT_TLLA &&
			 memcmp(na->opt_mac, ib.mac.addr_bytes, RTE_ETHER_ADDR_LEN) == 0, "TLLA");
	return 0;
}

static int
test_nd_malformed(void)
{
	struct rte_ether_addr group_mac = {{ 0x33, 0x33, 0xff, 0x00, 0x00, 0x02 }};
	struct rte_mbuf *pkts[BURST];
	struct rte_ipv6_hdr *ip;
	struct nd_msg *ns;
	struct frame f;

	ROCE_TEST_ASSERT_EQ(setup(), 0, "setup");
	ns = ns_frame(&f, "2001:db8::1", "ff02::1:ff00:2", &group_mac, true);
	ns->cksum ^= 1;				/* bad checksum */
	inject(&f);
	ns = ns_frame(&f, "2001:db8::1", "ff02::1:ff00:2", &group_mac, true);
	ip = (struct rte_ipv6_hdr *)&f.buf[RTE_ETHER_HDR_LEN];
	ip->hop_limits = 64;			/* routed: not on-link (RFC 4861 7.1.1) */
	inject(&f);
	ns = ns_frame(&f, "2001:db8::1", "ff02::1:ff00:2", &group_mac, false);
	ip->payload_len = RTE_BE16(20);		/* truncated below the 24-byte NS */
	f.len -= 4;
	ns_recksum(&f);
	inject(&f);
	ns = ns_frame(&f, "2001:db8::1", "ff02::1:ff00:2", &group_mac, true);
	ns->code = 1;
	ns_recksum(&f);
	inject(&f);
	ns = ns_frame(&f, "2001:db8::1", "ff02::1:ff00:2", &group_mac, true);
	ns->opt_len = 0;			/* option of length 0 */
	ns_recksum(&f);
	inject(&f);
	ns = ns_frame(&f, "::", "ff02::1:ff00:2", &group_mac, true);	/* DAD with an SLLA */
	inject(&f);
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_ND_MALFORMED], 6, "malformed");
	ROCE_TEST_ASSERT_EQ(collect(pkts), 0, "no advert to any");
	ROCE_TEST_ASSERT_EQ(stats_b().nd_solicits_in, 0, "none counted as solicitation");
	/* A valid one to the solicited-node group is answered, solicited, to A's MAC. */
	ns_frame(&f, "2001:db8::1", "ff02::1:ff00:2", &group_mac, true);
	inject(&f);
	ROCE_TEST_ASSERT_EQ(collect(pkts), 1, "one advert");
	ROCE_TEST_ASSERT_EQ(check_na(pkts[0], &ia.mac, NA_FLAG_S | NA_FLAG_O), 0, "advert");
	rte_pktmbuf_free(pkts[0]);
	return teardown();
}

static int
test_nd_dad(void)
{
	struct rte_ether_addr group_mac = {{ 0x33, 0x33, 0xff, 0x00, 0x00, 0x02 }};
	struct rte_ether_addr all_nodes = {{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 }};
	struct rte_mbuf *pkts[BURST];
	struct nd_msg *ns;
	struct frame f;

	ROCE_TEST_ASSERT_EQ(setup(), 0, "setup");
	/* RFC 4862 DAD probe: source ::, no SLLA; the owner defends to all-nodes. */
	ns_frame(&f, "::", "ff02::1:ff00:2", &group_mac, false);
	inject(&f);
	ROCE_TEST_ASSERT_EQ(collect(pkts), 1, "one advert");
	ROCE_TEST_ASSERT_EQ(check_na(pkts[0], &all_nodes, NA_FLAG_O), 0, "unsolicited advert");
	rte_pktmbuf_free(pkts[0]);
	/* An NS to another solicited-node group is not for us. */
	ns_frame(&f, "2001:db8::1", "ff02::1:ff00:3", &group_mac, true);
	inject(&f);
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_ND_NOT_FOR_US], 1, "other group");
	ROCE_TEST_ASSERT_EQ(collect(pkts), 0, "no advert");
	/* An advert to someone else's unicast address is not for us either. */
	ns = ns_frame(&f, "2001:db8::1", "2001:db8::77", &ib.mac, true);
	ns->type = ND_NA;
	ns->opt_type = ND_OPT_TLLA;
	ns_recksum(&f);
	inject(&f);
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_ND_NOT_FOR_US], 2, "other address");
	ROCE_TEST_ASSERT_EQ(stats_b().nd_adverts_in, 0, "not counted as an advert");
	return teardown();
}

/* ---- frames not for us ---- */

static int
test_not_for_us(void)
{
	struct rte_ether_addr other = {{ 0x02, 0, 0, 0, 0, 0x99 }};
	struct rte_ipv4_hdr *ip;
	struct frame f;

	ROCE_TEST_ASSERT_EQ(setup(), 0, "setup");
	ipv4_hdr(&f, &other, "198.18.0.2", IPPROTO_UDP, sizeof(struct rte_udp_hdr));
	inject(&f);
	ipv4_hdr(&f, &ib.mac, "198.18.0.99", IPPROTO_UDP, sizeof(struct rte_udp_hdr));
	inject(&f);
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_NOT_FOR_US], 2, "MAC, then IP");
	eth_hdr(&f, &ib.mac, 0x88cc);	/* LLDP */
	f.len = RTE_ETHER_MIN_LEN;
	inject(&f);
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_ETHERTYPE], 1, "EtherType");
	ip = ipv4_hdr(&f, &ib.mac, "198.18.0.2", IPPROTO_UDP, sizeof(struct rte_udp_hdr));
	ip->hdr_checksum ^= 1;
	inject(&f);
	ip = ipv4_hdr(&f, &ib.mac, "198.18.0.2", IPPROTO_UDP, sizeof(struct rte_udp_hdr));
	ip->total_length = RTE_BE16(1000);	/* beyond the frame */
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	inject(&f);
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_IP_MALFORMED], 2, "bad IPv4");
	ip = ipv4_hdr(&f, &ib.mac, "198.18.0.2", IPPROTO_UDP, sizeof(struct rte_udp_hdr));
	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_MF_FLAG);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	inject(&f);
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_IP_FRAGMENT], 1, "fragment");
	ipv4_hdr(&f, &ib.mac, "198.18.0.2", IPPROTO_TCP, sizeof(struct rte_udp_hdr));
	inject(&f);
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_IP_PROTO], 1, "TCP");
	ip = ipv4_hdr(&f, &ib.mac, "198.18.0.2", IPPROTO_UDP, sizeof(struct rte_udp_hdr));
	((struct rte_udp_hdr *)(ip + 1))->dst_port = RTE_BE16(53);
	inject(&f);
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_UDP_PORT], 1, "DNS");
	ROCE_TEST_ASSERT_EQ(stats_b().rx_packets, 8, "every frame counted as received");
	return teardown();
}

/* ---- RoCEv2 ---- */

/* Send m from A to B through rte_roce_port_send() and return what B's poll hands back. */
static uint16_t
roce_a_to_b(struct rte_mbuf *m, const char *next_hop, struct rte_mbuf **pkts)
{
	union rte_roce_gid nh;
	uint16_t n = 0, round;

	rte_roce_gid_parse(next_hop, &nh);
	if (rte_roce_port_send(a, m, &nh) != 0)
		return 0;
	for (round = 0; round < PUMP_ROUNDS && n == 0; round++) {
		rte_roce_port_poll(a, pkts, BURST);
		n = rte_roce_port_poll(b, pkts, BURST);
	}
	return n;
}

static int
test_roce_a_to_b(void)
{
	static const char *const peers[][2] = {
		{ "198.18.0.1", "198.18.0.2" }, { "2001:db8::1", "2001:db8::2" },
	};
	struct rte_mbuf *pkts[BURST];
	struct rte_roce_pkt pkt;
	unsigned int i;

	ROCE_TEST_ASSERT_EQ(setup(), 0, "setup");
	for (i = 0; i < RTE_DIM(peers); i++) {
		ROCE_TEST_ASSERT_EQ(roce_a_to_b(roce_test_send_only(peers[i][0], peers[i][1], ROCE_QPN, ROCE_PSN,
								 ROCE_PAYLOAD),
						peers[i][1], pkts), 1, "B got the %s frame",
				    peers[i][1]);
		ROCE_TEST_ASSERT_EQ(rte_roce_pkt_parse_mbuf(pkts[0], 1024, &pkt), RTE_ROCE_DROP_NONE,
				    "it parses");
		ROCE_TEST_ASSERT(pkt.opcode == RTE_ROCE_OP_RC_SEND_ONLY && pkt.psn == ROCE_PSN &&
				 pkt.dqpn == ROCE_QPN && pkt.payload_len == ROCE_PAYLOAD, "fields");
		/* The ICRC check masks them in place in a frame only the port holds. */
		ROCE_TEST_ASSERT(pkt.tos == 0 && pkt.ttl == RTE_ROCE_DEFAULT_TTL && !pkt.fecn &&
				 !pkt.becn && pkt.udp_csum == 0, "variant fields as sent, put back");
		ROCE_TEST_ASSERT(rte_is_same_ether_addr(&pkt.src_mac, &ia.mac) &&
				 rte_is_same_ether_addr(&pkt.dst_mac, &ib.mac), "MACs filled by send");
		rte_pktmbuf_free(pkts[0]);
	}
	ROCE_TEST_ASSERT_EQ(stats_b().rx_roce_packets, 2, "two RoCE frames");
	return teardown();
}

static int
test_roce_rejects(void)
{
	struct rte_mbuf *pkts[BURST], *m;
	struct rte_roce_port_stats s;
	uint8_t *bth;

	ROCE_TEST_ASSERT_EQ(setup(), 0, "setup");
	/* A flipped payload bit: the ICRC no longer matches. */
	m = roce_test_send_only("198.18.0.1", "198.18.0.2", ROCE_QPN, ROCE_PSN, ROCE_PAYLOAD);
	ROCE_TEST_ASSERT(m != NULL, "frame");
	*rte_pktmbuf_mtod_offset(m, uint8_t *, m->pkt_len - 10) ^= 0x10;
	ROCE_TEST_ASSERT_EQ(roce_a_to_b(m, "198.18.0.2", pkts), 0, "bad ICRC not delivered");
	/* TVer 1 (rxe drops it, K:rxe_recv.c). */
	m = roce_test_send_only("198.18.0.1", "198.18.0.2", ROCE_QPN, ROCE_PSN, ROCE_PAYLOAD);
	ROCE_TEST_ASSERT(m != NULL, "frame");
	bth = rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN + 20 + 8);
	bth[1] |= 1;
	ROCE_TEST_ASSERT_EQ(roce_a_to_b(m, "198.18.0.2", pkts), 0, "TVer 1 not delivered");
	/* Payload above the port's IB MTU (1024 at Ethernet MTU 1500). */
	m = roce_test_send_only("198.18.0.1", "198.18.0.2", ROCE_QPN, ROCE_PSN, 2 * 1024);
	ROCE_TEST_ASSERT(m != NULL, "frame");
	ROCE_TEST_ASSERT_EQ(roce_a_to_b(m, "198.18.0.2", pkts), 0, "oversized not delivered");
	s = stats_b();
	ROCE_TEST_ASSERT_EQ(s.roce_drops[RTE_ROCE_DROP_ICRC], 1, "counted as %s",
			    rte_roce_drop_reason_name(RTE_ROCE_DROP_ICRC));
	ROCE_TEST_ASSERT_EQ(s.roce_drops[RTE_ROCE_DROP_TVER], 1, "counted as %s",
			    rte_roce_drop_reason_name(RTE_ROCE_DROP_TVER));
	ROCE_TEST_ASSERT_EQ(s.roce_drops[RTE_ROCE_DROP_MTU], 1, "counted as %s",
			    rte_roce_drop_reason_name(RTE_ROCE_DROP_MTU));
	ROCE_TEST_ASSERT_EQ(s.drops[RTE_ROCE_PORT_DROP_ROCE], 3, "sum of the RoCE drops");
	ROCE_TEST_ASSERT_EQ(s.rx_roce_packets, 0, "nothing delivered");
	/* To another of B's IPs it is not: a RoCE frame for 198.18.0.3 via B's MAC. */
	m = roce_test_send_only("198.18.0.1", "198.18.0.3", ROCE_QPN, ROCE_PSN, ROCE_PAYLOAD);
	ROCE_TEST_ASSERT(m != NULL, "frame");
	ROCE_TEST_ASSERT_EQ(roce_a_to_b(m, "198.18.0.2", pkts), 0, "other IP not delivered");
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_NOT_FOR_US], 1, "not for us");
	return teardown();
}

/*
 * A frame of the known layout with Ethernet padding after its ICRC (not
 * covered by it): delivered through the port's fast path, cut to the IP
 * length. Then the same frame with a bad ICRC and one in two segments: the
 * fast path leaves them to the generic sort, which counts the first once.
 */
static int
test_roce_fast_path(void)
{
	struct rte_mbuf *pkts[BURST], *m, *tail;
	uint32_t len;

	ROCE_TEST_ASSERT_EQ(setup(), 0, "setup");
	m = roce_test_send_only("198.18.0.1", "198.18.0.2", ROCE_QPN, ROCE_PSN, ROCE_PAYLOAD);
	ROCE_TEST_ASSERT(m != NULL, "frame");
	len = m->pkt_len;
	ROCE_TEST_ASSERT(rte_pktmbuf_append(m, 8) != NULL, "padding");
	ROCE_TEST_ASSERT_EQ(roce_a_to_b(m, "198.18.0.2", pkts), 1, "padded frame delivered");
	ROCE_TEST_ASSERT_EQ(pkts[0]->pkt_len, len, "padding cut");
	rte_pktmbuf_free(pkts[0]);
	m = roce_test_send_only("198.18.0.1", "198.18.0.2", ROCE_QPN, ROCE_PSN, ROCE_PAYLOAD);
	ROCE_TEST_ASSERT(m != NULL, "frame");
	*rte_pktmbuf_mtod_offset(m, uint8_t *, m->pkt_len - 1) ^= 1;
	ROCE_TEST_ASSERT_EQ(roce_a_to_b(m, "198.18.0.2", pkts), 0, "bad ICRC not delivered");
	ROCE_TEST_ASSERT_EQ(stats_b().roce_drops[RTE_ROCE_DROP_ICRC], 1, "counted once");
	m = roce_test_send_only("198.18.0.1", "198.18.0.2", ROCE_QPN, ROCE_PSN, ROCE_PAYLOAD);
	tail = rte_pktmbuf_alloc(m == NULL ? NULL : m->pool);
	ROCE_TEST_ASSERT(m != NULL && tail != NULL, "frame and segment");
	/* The last 16 bytes (payload end and ICRC) in a second segment. */
	memcpy(rte_pktmbuf_append(tail, 16), rte_pktmbuf_mtod_offset(m, void *, m->pkt_len - 16), 16);
	rte_pktmbuf_trim(m, 16);
	ROCE_TEST_ASSERT_EQ(rte_pktmbuf_chain(m, tail), 0, "chain");
	ROCE_TEST_ASSERT_EQ(roce_a_to_b(m, "198.18.0.2", pkts), 1, "two segments delivered");
	rte_pktmbuf_free(pkts[0]);
	ROCE_TEST_ASSERT_EQ(stats_b().rx_roce_packets, 2, "two RoCE frames");
	return teardown();
}

/* Inject f cut at every position; B must answer each with one frame (checked by check). */
static int
each_split(const struct frame *f, int (*check)(struct rte_mbuf *reply))
{
	struct rte_mbuf *pkts[BURST], *m;
	uint32_t split;
	int ret;

	for (split = 1; split < f->len; split++) {
		m = chained(f, split);
		ROCE_TEST_ASSERT(m != NULL && rte_eth_tx_burst(pair.a, 0, &m, 1) == 1, "tx");
		ROCE_TEST_ASSERT_EQ(rte_roce_port_poll(b, pkts, BURST), 0, "nothing for the caller");
		ROCE_TEST_ASSERT_EQ(collect(pkts), 1, "one answer, split at %u", split);
		ret = check(pkts[0]);
		rte_pktmbuf_free(pkts[0]);
		ROCE_TEST_ASSERT_EQ(ret, 0, "answer, split at %u", split);
	}
	return 0;
}

static int
check_arp_reply(struct rte_mbuf *m)
{
	const struct rte_arp_hdr *arp = rte_pktmbuf_mtod_offset(m, const struct rte_arp_hdr *,
								 RTE_ETHER_HDR_LEN);

	ROCE_TEST_ASSERT(arp->arp_opcode == RTE_BE16(RTE_ARP_OP_REPLY), "ARP reply");
	return 0;
}

static int
check_echo4(struct rte_mbuf *m)
{
	return check_echo_reply(rte_pktmbuf_mtod_offset(m, const struct rte_icmp_hdr *,
				RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr)),
				RTE_IP_ICMP_ECHO_REPLY);
}

static int
check_echo6(struct rte_mbuf *m)
{
	return check_echo_reply(rte_pktmbuf_mtod_offset(m, const struct rte_icmp_hdr *,
				RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr)),
				ICMP6_ECHO_REPLY);
}

/*
 * Every header may straddle two segments, at odd offsets too (where DPDK
 * 22.11's rte_raw_cksum_mbuf() goes wrong): the answers must not change.
 */
static int
test_segmented_frames(void)
{
	const uint32_t l4_len = sizeof(struct rte_icmp_hdr) + ECHO_DATA_LEN;
	struct rte_ipv4_hdr *ip4;
	struct rte_ipv6_hdr *ip6;
	struct rte_icmp_hdr *icmp;
	struct frame f;

	ROCE_TEST_ASSERT_EQ(setup(), 0, "setup");
	arp_frame(&f, "198.18.0.2");
	ROCE_TEST_ASSERT_EQ(each_split(&f, check_arp_reply), 0, "ARP");
	ip4 = ipv4_hdr(&f, &ib.mac, "198.18.0.2", IPPROTO_ICMP, l4_len);
	icmp = (struct rte_icmp_hdr *)(ip4 + 1);
	echo_body((uint8_t *)icmp, RTE_IP_ICMP_ECHO_REQUEST);
	icmp->icmp_cksum = ~rte_raw_cksum(icmp, l4_len);
	ROCE_TEST_ASSERT_EQ(each_split(&f, check_echo4), 0, "ICMP echo");
	ip6 = ipv6_hdr(&f, &ib.mac, "2001:db8::1", "2001:db8::2", 64, l4_len);
	icmp = (struct rte_icmp_hdr *)(ip6 + 1);
	echo_body((uint8_t *)icmp, ICMP6_ECHO_REQUEST);
	icmp->icmp_cksum = rte_ipv6_udptcp_cksum(ip6, icmp);
	ROCE_TEST_ASSERT_EQ(each_split(&f, check_echo6), 0, "ICMPv6 echo");
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_ICMP_MALFORMED] +
			    stats_b().drops[RTE_ROCE_PORT_DROP_IP_MALFORMED] +
			    stats_b().drops[RTE_ROCE_PORT_DROP_ARP_MALFORMED], 0, "no drop");
	return teardown();
}

/* A RoCEv2 frame cut at every position is still parsed, ICRC-checked and delivered. */
static int
test_segmented_roce(void)
{
	struct rte_mbuf *m = roce_test_send_only("198.18.0.1", "198.18.0.2", ROCE_QPN, ROCE_PSN,
						 ROCE_PAYLOAD);
	struct rte_mbuf *pkts[BURST];
	struct rte_ether_hdr *eth;
	struct frame f;
	uint32_t split;
	uint16_t n;

	ROCE_TEST_ASSERT(m != NULL, "frame");
	f.len = m->pkt_len;
	memcpy(f.buf, rte_pktmbuf_mtod(m, void *), f.len);
	rte_pktmbuf_free(m);
	ROCE_TEST_ASSERT_EQ(setup(), 0, "setup");
	eth = (struct rte_ether_hdr *)f.buf;
	eth->dst_addr = ib.mac;
	eth->src_addr = ia.mac;
	for (split = 1; split < f.len; split++) {
		m = chained(&f, split);
		ROCE_TEST_ASSERT(m != NULL && rte_eth_tx_burst(pair.a, 0, &m, 1) == 1, "tx");
		n = rte_roce_port_poll(b, pkts, BURST);
		ROCE_TEST_ASSERT_EQ(n, 1, "delivered, split at %u", split);
		ROCE_TEST_ASSERT_EQ(pkts[0]->nb_segs, 2, "as received");
		rte_pktmbuf_free(pkts[0]);
	}
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_ROCE], 0, "no RoCE drop");
	return teardown();
}

/* Frames B handled rather than dropped: with the drops, they account for every frame received. */
static uint64_t
handled(const struct rte_roce_port_stats *st)
{
	return st->arp_requests_in + st->arp_replies_in + st->nd_solicits_in + st->nd_adverts_in +
	       st->icmp_echo_in + st->icmp_echo_replies_in + st->rx_roce_packets;
}

/* Inject f with byte i XORed by mask, for every byte and a few masks; free what comes back. */
static int
corrupt_each_byte(const struct frame *f)
{
	static const uint8_t masks[] = { 0x01, 0x80, 0xff };
	struct rte_mbuf *pkts[BURST];
	struct frame bad;
	unsigned int i, k;
	uint16_t n;

	for (i = 0; i < f->len; i++) {
		for (k = 0; k < RTE_DIM(masks); k++) {
			bad = *f;
			bad.buf[i] ^= masks[k];
			inject(&bad);
			n = collect(pkts);
			rte_pktmbuf_free_bulk(pkts, n);
		}
	}
	return 0;
}

/*
 * Every byte of a valid ARP request, NS, echo request (v4 and v6) and RoCE
 * frame corrupted in turn: nothing crashes or leaks, and each frame is
 * either handled or dropped and counted, exactly once.
 */
static int
test_corrupted_frames(void)
{
	struct rte_ether_addr group_mac = {{ 0x33, 0x33, 0xff, 0x00, 0x00, 0x02 }};
	const uint32_t l4_len = sizeof(struct rte_icmp_hdr) + ECHO_DATA_LEN;
	struct rte_roce_port_stats st;
	struct rte_ipv6_hdr *ip6;
	struct rte_icmp_hdr *icmp;
	struct rte_ether_hdr *eth;
	struct rte_mbuf *m;
	struct frame f;
	uint64_t drops = 0;
	unsigned int r;

	ROCE_TEST_ASSERT_EQ(setup(), 0, "setup");
	arp_frame(&f, "198.18.0.2");
	corrupt_each_byte(&f);
	ns_frame(&f, "2001:db8::1", "ff02::1:ff00:2", &group_mac, true);
	corrupt_each_byte(&f);
	icmp = (struct rte_icmp_hdr *)(ipv4_hdr(&f, &ib.mac, "198.18.0.2", IPPROTO_ICMP, l4_len) + 1);
	echo_body((uint8_t *)icmp, RTE_IP_ICMP_ECHO_REQUEST);
	icmp->icmp_cksum = ~rte_raw_cksum(icmp, l4_len);
	corrupt_each_byte(&f);
	ip6 = ipv6_hdr(&f, &ib.mac, "2001:db8::1", "2001:db8::2", 64, l4_len);
	icmp = (struct rte_icmp_hdr *)(ip6 + 1);
	echo_body((uint8_t *)icmp, ICMP6_ECHO_REQUEST);
	icmp->icmp_cksum = rte_ipv6_udptcp_cksum(ip6, icmp);
	corrupt_each_byte(&f);
	m = roce_test_send_only("198.18.0.1", "198.18.0.2", ROCE_QPN, ROCE_PSN, ROCE_PAYLOAD);
	ROCE_TEST_ASSERT(m != NULL, "RoCE frame");
	f.len = m->pkt_len;
	memcpy(f.buf, rte_pktmbuf_mtod(m, void *), f.len);
	rte_pktmbuf_free(m);
	eth = (struct rte_ether_hdr *)f.buf;
	eth->dst_addr = ib.mac;
	eth->src_addr = ia.mac;
	corrupt_each_byte(&f);
	st = stats_b();
	for (r = 0; r < RTE_ROCE_PORT_DROP_MAX; r++)
		drops += st.drops[r];
	ROCE_TEST_ASSERT(st.rx_packets > 0, "frames received");
	ROCE_TEST_ASSERT_EQ(st.rx_packets, drops + handled(&st), "every frame accounted for once");
	ROCE_TEST_ASSERT(st.drops[RTE_ROCE_PORT_DROP_ROCE] > 0 && st.roce_drops[RTE_ROCE_DROP_ICRC] > 0,
			 "corrupted RoCE frames fail the ICRC");
	return teardown();
}

static const struct roce_test_case cases[] = {
	{ "ping_ipv4", test_ping_ipv4 },
	{ "ping_ipv6", test_ping_ipv6 },
	{ "ping_from_port_counts_replies", test_ping_from_port },
	{ "arp_malformed_ignored", test_arp_malformed },
	{ "nd_malformed_ignored", test_nd_malformed },
	{ "nd_dad_answered_other_groups_ignored", test_nd_dad },
	{ "frames_not_for_us_counted", test_not_for_us },
	{ "segmented_frames", test_segmented_frames },
	{ "segmented_roce_frames", test_segmented_roce },
	{ "roce_send_a_to_b", test_roce_a_to_b },
	{ "roce_bad_icrc_tver_mtu_dropped", test_roce_rejects },
	{ "roce_fast_path_padding_bad_icrc_two_segments", test_roce_fast_path },
	{ "corrupted_frames_counted_once", test_corrupted_frames },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&pair, "rx") != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
