/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Finds the addresses and protocols of a captured frame, and whether it is
 * RoCEv2-addressed, without judging it: the strict parser does that. A frame
 * cut short simply stops at the last layer that fits.
 */

#include <arpa/inet.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include <rte_roce_hdr.h>

#include "dump.h"

/*
 * Reads the two ports common to the UDP and TCP headers, or the ICMP type,
 * if they fit.
 */
static void
classify_l4(const uint8_t *frame, uint32_t len, uint32_t off,
	    struct dump_flow *df)
{
	struct rte_udp_hdr udp;

	if (df->l4_proto == IPPROTO_ICMP || df->l4_proto == IPPROTO_ICMPV6) {
		if (len > off) {
			df->has_icmp_type = true;
			df->icmp_type = frame[off];
		}
		return;
	}
	if (df->l4_proto != IPPROTO_UDP && df->l4_proto != IPPROTO_TCP)
		return;
	/* Ports sit at the same offsets in UDP and TCP (RFC 768, RFC 793). */
	if (len < off || len - off < sizeof(udp))
		return;
	memcpy(&udp, frame + off, sizeof(udp));
	df->has_ports = true;
	df->sport = rte_be_to_cpu_16(udp.src_port);
	df->dport = rte_be_to_cpu_16(udp.dst_port);
	if (df->l4_proto == IPPROTO_UDP && df->dport == RTE_ROCE_UDP_PORT)
		df->cls = DUMP_CLASS_ROCE;
}

/* Records the IP layer, then looks at the L4 header at l4_off. */
static void
classify_ip(const uint8_t *frame, uint32_t len, uint32_t l4_off, int af,
	    const void *src, const void *dst, uint8_t proto,
	    struct dump_flow *df)
{
	df->cls = DUMP_CLASS_IP;
	df->ipv6 = af == AF_INET6;
	df->l4_proto = proto;
	inet_ntop(af, src, df->src, sizeof(df->src));
	inet_ntop(af, dst, df->dst, sizeof(df->dst));
	classify_l4(frame, len, l4_off, df);
}

static void
classify_ipv4(const uint8_t *frame, uint32_t len, uint32_t off,
	      struct dump_flow *df)
{
	struct rte_ipv4_hdr ip;
	uint32_t l4_off;

	if (len - off < sizeof(ip))
		return;
	memcpy(&ip, frame + off, sizeof(ip));
	/* A later fragment starts with data, not with the L4 header. */
	if (rte_be_to_cpu_16(ip.fragment_offset) & RTE_IPV4_HDR_OFFSET_MASK)
		l4_off = len;
	else
		l4_off = off + rte_ipv4_hdr_len(&ip);
	classify_ip(frame, len, l4_off, AF_INET, &ip.src_addr, &ip.dst_addr,
		    ip.next_proto_id, df);
}

static void
classify_ipv6(const uint8_t *frame, uint32_t len, uint32_t off,
	      struct dump_flow *df)
{
	struct rte_ipv6_hdr ip;

	if (len - off < sizeof(ip))
		return;
	memcpy(&ip, frame + off, sizeof(ip));
	/* rxe sends no IPv6 extension headers (K:rxe_net.c prepare6). */
	classify_ip(frame, len, off + sizeof(ip), AF_INET6, ip.src_addr,
		    ip.dst_addr, ip.proto, df);
}

void
dump_classify(const uint8_t *frame, uint32_t len, struct dump_flow *df)
{
	struct rte_ether_hdr eth;
	struct rte_vlan_hdr vlan;
	uint32_t off = sizeof(eth);

	memset(df, 0, sizeof(*df));
	df->cls = DUMP_CLASS_L2;
	if (len < sizeof(eth))
		return;
	memcpy(&eth, frame, sizeof(eth));
	df->ether_type = rte_be_to_cpu_16(eth.ether_type);
	while ((df->ether_type == RTE_ETHER_TYPE_VLAN ||
		df->ether_type == RTE_ETHER_TYPE_QINQ) &&
	       len - off >= sizeof(vlan)) {
		memcpy(&vlan, frame + off, sizeof(vlan));
		df->ether_type = rte_be_to_cpu_16(vlan.eth_proto);
		df->vlans++;
		off += sizeof(vlan);
	}
	if (df->ether_type == RTE_ETHER_TYPE_IPV4)
		classify_ipv4(frame, len, off, df);
	else if (df->ether_type == RTE_ETHER_TYPE_IPV6)
		classify_ipv6(frame, len, off, df);
}
