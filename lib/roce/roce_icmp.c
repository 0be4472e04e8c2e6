/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ARP (RFC 826), IPv6 Neighbour Discovery (RFC 4861) and ICMP / ICMPv6 echo
 * (RFC 792, RFC 4443) for a port: what a host must answer so that peers can
 * resolve and ping it, and the requests it sends to resolve them.
 * Received frames are read through rte_pktmbuf_read(), so any segmentation
 * is fine; replies are built in fresh single-segment mbufs.
 * All of it runs on the port's queue 0 (the slow path: other queues hand
 * these frames over, roce_port.c), so the counters are queue 0's.
 */

#include <errno.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include "roce_cksum.h"
#include "roce_port_priv.h"

/* ICMPv6 types (RFC 4443 4.1-4.2, RFC 4861 4.3-4.4). */
#define ROCE_ICMP6_ECHO_REQUEST 128
#define ROCE_ICMP6_ECHO_REPLY 129
#define ROCE_ND_NEIGHBOR_SOLICIT 135
#define ROCE_ND_NEIGHBOR_ADVERT 136

/* ND options (RFC 4861 4.6): type, length in units of 8 bytes. */
#define ROCE_ND_OPT_SRC_LLADDR 1
#define ROCE_ND_OPT_TGT_LLADDR 2
#define ROCE_ND_OPT_UNIT 8

/* Neighbour Advertisement flags (RFC 4861 4.4), in the first byte after the checksum. */
#define ROCE_NA_FLAG_SOLICITED 0x40
#define ROCE_NA_FLAG_OVERRIDE 0x20

#define ROCE_IPV4_DF RTE_BE16(RTE_IPV4_HDR_DF_FLAG)
#define ROCE_IPV4_VHL_DEF 0x45	/* version 4, 5 words of header */
#define ROCE_IPV6_VTC_DEF RTE_BE32(6u << 28)	/* version 6, class 0, flow 0 */
#define ROCE_CKSUM_OK 0xffff

/* A Neighbour Solicitation or Advertisement with its one link-layer address option. */
struct roce_nd_msg {
	uint8_t type;
	uint8_t code;
	rte_be16_t cksum;
	uint8_t flags;		/* NA flags; reserved in NS */
	uint8_t reserved[3];
	uint8_t target[RTE_ROCE_GID_LEN];
	uint8_t opt_type;
	uint8_t opt_len;
	uint8_t opt_mac[RTE_ETHER_ADDR_LEN];
} __rte_packed;

/* The fixed part of NS / NA, before the options (RFC 4861 4.3: 24 bytes). */
#define ROCE_ND_MIN_LEN offsetof(struct roce_nd_msg, opt_type)

static const union rte_roce_gid roce_unspecified;	/* :: */
static const union rte_roce_gid roce_all_nodes = {
	.raw = { 0xff, 0x02, [15] = 0x01 }	/* ff02::1 */
};

/* ---- frame helpers ---- */

/* The source MAC of a received frame (its Ethernet header was read by the RX path). */
static void
roce_frame_src_mac(const struct rte_mbuf *m, struct rte_ether_addr *mac)
{
	struct rte_ether_hdr eth;

	roce_pktmbuf_copy(m, 0, sizeof(eth), &eth);
	rte_ether_addr_copy(&eth.src_addr, mac);
}

static struct rte_mbuf *
roce_ctl_alloc(struct rte_roce_port *port, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(port->pool);

	if (m == NULL) {
		roce_port_slow(port)->stats.drops[RTE_ROCE_PORT_DROP_NO_MBUF]++;
		return NULL;
	}
	if (rte_pktmbuf_append(m, len) == NULL) {
		rte_pktmbuf_free(m);
		roce_port_slow(port)->stats.drops[RTE_ROCE_PORT_DROP_NO_MBUF]++;
		return NULL;
	}
	return m;
}

/* 33:33 + low 32 bits of an IPv6 multicast address (RFC 2464 7). */
static void
roce_ipv6_mcast_mac(const uint8_t *ip, struct rte_ether_addr *mac)
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], &ip[12], 4);
}

/* ff02::1:ffXX:XXXX, the solicited-node group of an address (RFC 4291 2.7.1). */
static void
roce_solicited_node(const union rte_roce_gid *addr, union rte_roce_gid *group)
{
	memset(group, 0, sizeof(*group));
	group->raw[0] = 0xff;
	group->raw[1] = 0x02;
	group->raw[11] = 0x01;
	group->raw[12] = 0xff;
	memcpy(&group->raw[13], &addr->raw[13], 3);
}

static struct rte_ipv4_hdr *
roce_ipv4_fill(struct rte_mbuf *m, rte_be32_t src, rte_be32_t dst, uint8_t proto, uint16_t len)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
							   RTE_ETHER_HDR_LEN);

	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = ROCE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(len);
	ip->fragment_offset = ROCE_IPV4_DF;
	ip->time_to_live = ROCE_IP_DEFAULT_TTL;
	ip->next_proto_id = proto;
	ip->src_addr = src;
	ip->dst_addr = dst;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return ip;
}

static struct rte_ipv6_hdr *
roce_ipv6_fill(struct rte_mbuf *m, const uint8_t *src, const uint8_t *dst, uint8_t hops,
	       uint16_t payload_len)
{
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *,
							   RTE_ETHER_HDR_LEN);

	ip->vtc_flow = ROCE_IPV6_VTC_DEF;
	ip->payload_len = rte_cpu_to_be_16(payload_len);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = hops;
	memcpy(ip->src_addr, src, RTE_ROCE_GID_LEN);
	memcpy(ip->dst_addr, dst, RTE_ROCE_GID_LEN);
	return ip;
}

/* An ICMPv6 message in a frame sums, with its pseudo-header, to all ones (RFC 4443 2.3). */
static bool
roce_icmp6_cksum_ok(const struct rte_mbuf *m, const struct rte_ipv6_hdr *ip, uint32_t l4_off)
{
	uint16_t sum;

	if (roce_cksum_mbuf(m, l4_off, rte_be_to_cpu_16(ip->payload_len), &sum) != 0)
		return false;
	return __rte_raw_cksum_reduce((uint32_t)sum + rte_ipv6_phdr_cksum(ip, 0)) ==
	       ROCE_CKSUM_OK;
}

/* ICMPv6 checksum over the pseudo-header and the message (RFC 4443 2.3). */
static rte_be16_t
roce_icmp6_cksum(const struct rte_ipv6_hdr *ip, const void *msg)
{
	/* rte_ipv6_udptcp_cksum() takes the protocol from the header: valid for ICMPv6. */
	return rte_ipv6_udptcp_cksum(ip, msg);
}

/* ---- ARP ---- */

static void
roce_arp_send(struct rte_roce_port *port, uint16_t op, const struct rte_ether_addr *dst_mac,
	      rte_be32_t sip, const struct rte_ether_addr *tha, rte_be32_t tip)
{
	struct rte_mbuf *m = roce_ctl_alloc(port, RTE_ETHER_HDR_LEN + sizeof(struct rte_arp_hdr));
	struct rte_arp_hdr *arp;

	if (m == NULL)
		return;
	roce_port_l2_fill(port, m, dst_mac, RTE_ETHER_TYPE_ARP);
	arp = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, RTE_ETHER_HDR_LEN);
	arp->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = sizeof(rte_be32_t);
	arp->arp_opcode = rte_cpu_to_be_16(op);
	rte_ether_addr_copy(&port->mac, &arp->arp_data.arp_sha);
	arp->arp_data.arp_sip = sip;
	rte_ether_addr_copy(tha, &arp->arp_data.arp_tha);
	arp->arp_data.arp_tip = tip;
	roce_port_tx(port, roce_port_slow(port), m);
}

int
roce_arp_request(struct rte_roce_port *port, const union rte_roce_gid *target,
		 const struct rte_ether_addr *unicast)
{
	static const struct rte_ether_addr unknown;
	struct rte_ether_addr dst;
	union rte_roce_gid src;
	int ret;

	ret = roce_port_src_addr(port, target, &src);
	if (ret != 0)
		return ret;
	/* A probe goes to the known MAC, target hardware address still 0 (K:arp.c arp_solicit). */
	if (unicast != NULL)
		dst = *unicast;
	else
		memset(&dst, 0xff, sizeof(dst));
	roce_arp_send(port, RTE_ARP_OP_REQUEST, &dst, rte_roce_gid_to_ipv4(&src), &unknown,
		      rte_roce_gid_to_ipv4(target));
	roce_port_slow(port)->stats.arp_requests_out++;
	return 0;
}

static bool
roce_arp_valid(const struct rte_arp_hdr *arp)
{
	uint16_t op = rte_be_to_cpu_16(arp->arp_opcode);

	return arp->arp_hardware == RTE_BE16(RTE_ARP_HRD_ETHER) &&
	       arp->arp_protocol == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
	       arp->arp_hlen == RTE_ETHER_ADDR_LEN && arp->arp_plen == sizeof(rte_be32_t) &&
	       (op == RTE_ARP_OP_REQUEST || op == RTE_ARP_OP_REPLY) &&
	       rte_is_unicast_ether_addr(&arp->arp_data.arp_sha) &&
	       !rte_is_zero_ether_addr(&arp->arp_data.arp_sha);
}

/* RFC 826 "Packet Reception", with RFC 5227 probes (sender IP 0) answered but not learnt. */
void
roce_arp_input(struct rte_roce_port *port, struct rte_mbuf *m)
{
	struct rte_arp_hdr arp_buf;
	const struct rte_arp_hdr *arp = &arp_buf;
	union rte_roce_gid sender, target;
	bool for_us;

	if (!roce_pktmbuf_copy(m, RTE_ETHER_HDR_LEN, sizeof(arp_buf), &arp_buf) ||
	    !roce_arp_valid(arp)) {
		roce_port_drop(roce_port_slow(port), m, RTE_ROCE_PORT_DROP_ARP_MALFORMED);
		return;
	}
	rte_roce_gid_from_ipv4(&sender, arp->arp_data.arp_sip);
	rte_roce_gid_from_ipv4(&target, arp->arp_data.arp_tip);
	for_us = roce_port_is_local(port, &target);
	/* Merge: refresh a known sender even if the request is for someone else. */
	if (arp->arp_data.arp_sip != 0)
		roce_neigh_learn(port, &sender, &arp->arp_data.arp_sha, for_us,
				 arp->arp_opcode == RTE_BE16(RTE_ARP_OP_REPLY));
	if (arp->arp_opcode == RTE_BE16(RTE_ARP_OP_REPLY)) {
		roce_port_slow(port)->stats.arp_replies_in++;
		rte_pktmbuf_free(m);
		return;
	}
	if (!for_us) {
		roce_port_drop(roce_port_slow(port), m, RTE_ROCE_PORT_DROP_ARP_NOT_FOR_US);
		return;
	}
	roce_port_slow(port)->stats.arp_requests_in++;
	roce_arp_send(port, RTE_ARP_OP_REPLY, &arp->arp_data.arp_sha, arp->arp_data.arp_tip,
		      &arp->arp_data.arp_sha, arp->arp_data.arp_sip);
	roce_port_slow(port)->stats.arp_replies_out++;
	rte_pktmbuf_free(m);
}

/* ---- Neighbour Discovery ---- */

static void
roce_nd_send(struct rte_roce_port *port, uint8_t type, uint8_t flags,
	     const struct rte_ether_addr *dst_mac, const uint8_t *src, const uint8_t *dst,
	     const union rte_roce_gid *target)
{
	struct rte_mbuf *m = roce_ctl_alloc(port, RTE_ETHER_HDR_LEN +
					    sizeof(struct rte_ipv6_hdr) + sizeof(struct roce_nd_msg));
	struct rte_ipv6_hdr *ip;
	struct roce_nd_msg *nd;

	if (m == NULL)
		return;
	roce_port_l2_fill(port, m, dst_mac, RTE_ETHER_TYPE_IPV6);
	ip = roce_ipv6_fill(m, src, dst, ROCE_ND_HOP_LIMIT, sizeof(*nd));
	nd = (struct roce_nd_msg *)(ip + 1);
	memset(nd, 0, sizeof(*nd));
	nd->type = type;
	nd->flags = flags;
	memcpy(nd->target, target->raw, RTE_ROCE_GID_LEN);
	nd->opt_type = type == ROCE_ND_NEIGHBOR_SOLICIT ? ROCE_ND_OPT_SRC_LLADDR :
			ROCE_ND_OPT_TGT_LLADDR;
	nd->opt_len = 1;
	memcpy(nd->opt_mac, port->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	nd->cksum = roce_icmp6_cksum(ip, nd);
	roce_port_tx(port, roce_port_slow(port), m);
}

int
roce_nd_solicit(struct rte_roce_port *port, const union rte_roce_gid *target,
		const struct rte_ether_addr *unicast)
{
	union rte_roce_gid src, group;
	struct rte_ether_addr mac;
	int ret;

	ret = roce_port_src_addr(port, target, &src);
	if (ret != 0)
		return ret;
	if (unicast != NULL) {
		/* 7.2.2: re-validating a known entry, the NS goes to the neighbour itself. */
		roce_nd_send(port, ROCE_ND_NEIGHBOR_SOLICIT, 0, unicast, src.raw, target->raw,
			     target);
	} else {
		roce_solicited_node(target, &group);
		roce_ipv6_mcast_mac(group.raw, &mac);
		roce_nd_send(port, ROCE_ND_NEIGHBOR_SOLICIT, 0, &mac, src.raw, group.raw, target);
	}
	roce_port_slow(port)->stats.nd_solicits_out++;
	return 0;
}

/*
 * Walk the options (RFC 4861 4.6): every length must be non-zero and fit.
 * Returns false if malformed; *lladdr is the link-layer address option of
 * the given type, or NULL.
 */
static bool
roce_nd_options(const struct rte_mbuf *m, uint32_t off, uint32_t end, uint8_t type,
		struct rte_ether_addr *lladdr, bool *found)
{
	uint8_t hdr_buf[2 + RTE_ETHER_ADDR_LEN];
	const uint8_t *opt;
	uint32_t len;

	*found = false;
	while (off < end) {
		opt = rte_pktmbuf_read(m, off, 2, hdr_buf);
		if (opt == NULL || opt[1] == 0)
			return false;
		len = opt[1] * ROCE_ND_OPT_UNIT;
		if (off + len > end)
			return false;
		if (opt[0] == type) {
			opt = rte_pktmbuf_read(m, off, sizeof(hdr_buf), hdr_buf);
			if (opt == NULL)
				return false;
			memcpy(lladdr, &opt[2], RTE_ETHER_ADDR_LEN);
			*found = true;
		}
		off += len;
	}
	return true;
}

/* What the ND validation (RFC 4861 7.1.1 / 7.1.2) needs of a message. */
struct roce_nd_rx {
	const struct rte_ipv6_hdr *ip;
	union rte_roce_gid src;		/* ip's addresses, aligned */
	union rte_roce_gid dst;
	uint8_t type;
	uint8_t flags;
	union rte_roce_gid target;
	struct rte_ether_addr lladdr;	/* source (NS) or target (NA) link-layer address */
	bool has_lladdr;
};

static bool
roce_nd_valid(const struct rte_mbuf *m, struct roce_nd_rx *rx)
{
	const uint32_t l4_off = RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr);
	uint32_t len = rte_be_to_cpu_16(rx->ip->payload_len);
	uint8_t opt = rx->type == ROCE_ND_NEIGHBOR_SOLICIT ? ROCE_ND_OPT_SRC_LLADDR :
		      ROCE_ND_OPT_TGT_LLADDR;
	struct roce_nd_msg nd_buf;
	const struct roce_nd_msg *nd;

	if (rx->ip->hop_limits != ROCE_ND_HOP_LIMIT || len < ROCE_ND_MIN_LEN)
		return false;
	nd = rte_pktmbuf_read(m, l4_off, ROCE_ND_MIN_LEN, &nd_buf);
	if (nd == NULL || nd->code != 0 || nd->target[0] == 0xff ||
	    !roce_icmp6_cksum_ok(m, rx->ip, l4_off))
		return false;
	rx->flags = nd->flags;
	memcpy(rx->target.raw, nd->target, RTE_ROCE_GID_LEN);
	if (!roce_nd_options(m, l4_off + ROCE_ND_MIN_LEN, l4_off + len, opt, &rx->lladdr,
			     &rx->has_lladdr))
		return false;
	if (rx->type == ROCE_ND_NEIGHBOR_ADVERT)
		/* 7.1.2: a multicast NA must not claim to be solicited. */
		return !(rx->dst.raw[0] == 0xff && (rx->flags & ROCE_NA_FLAG_SOLICITED));
	/* 7.1.1: a DAD probe (source ::) goes to a solicited-node group and carries no SLLA. */
	if (rte_roce_gid_equal(&rx->src, &roce_unspecified)) {
		union rte_roce_gid group;

		roce_solicited_node(&rx->target, &group);
		return !rx->has_lladdr && rte_roce_gid_equal(&rx->dst, &group);
	}
	return true;
}

/* The IPv6 destination of an NS: our address, or the solicited-node group of the target. */
static bool
roce_ns_dst_ok(const struct roce_nd_rx *rx, enum roce_l2_dst l2)
{
	union rte_roce_gid group;

	if (l2 == ROCE_L2_UNICAST)
		return rte_roce_gid_equal(&rx->dst, &rx->target);
	roce_solicited_node(&rx->target, &group);
	return rte_roce_gid_equal(&rx->dst, &group);
}

static void
roce_ns_input(struct rte_roce_port *port, struct rte_mbuf *m, struct roce_nd_rx *rx,
	      enum roce_l2_dst l2)
{
	const union rte_roce_gid *src = &rx->src;
	struct rte_ether_addr dst_mac;
	const uint8_t *dst_ip;
	uint8_t flags;

	if (rte_roce_gid_is_ipv4(&rx->target) || !roce_port_is_local(port, &rx->target) ||
	    !roce_ns_dst_ok(rx, l2)) {
		roce_port_drop(roce_port_slow(port), m, RTE_ROCE_PORT_DROP_ND_NOT_FOR_US);
		return;
	}
	roce_port_slow(port)->stats.nd_solicits_in++;
	if (rte_roce_gid_equal(src, &roce_unspecified)) {
		/* 7.2.4: answer a DAD probe to all-nodes, unsolicited. */
		roce_ipv6_mcast_mac(roce_all_nodes.raw, &dst_mac);
		dst_ip = roce_all_nodes.raw;
		flags = ROCE_NA_FLAG_OVERRIDE;
	} else {
		/* 7.2.3: the solicitation's source becomes a neighbour. */
		if (rx->has_lladdr)
			roce_neigh_learn(port, src, &rx->lladdr, true, false);
		else
			roce_frame_src_mac(m, &rx->lladdr);
		dst_mac = rx->lladdr;
		dst_ip = rx->ip->src_addr;
		flags = ROCE_NA_FLAG_SOLICITED | ROCE_NA_FLAG_OVERRIDE;
	}
	roce_nd_send(port, ROCE_ND_NEIGHBOR_ADVERT, flags, &dst_mac, rx->target.raw, dst_ip,
		     &rx->target);
	roce_port_slow(port)->stats.nd_adverts_out++;
	rte_pktmbuf_free(m);
}

static void
roce_na_input(struct rte_roce_port *port, struct rte_mbuf *m, const struct roce_nd_rx *rx,
	      enum roce_l2_dst l2)
{
	/* To one of our addresses, or to all nodes. */
	if (l2 == ROCE_L2_UNICAST ? !roce_port_is_local(port, &rx->dst) :
	    !rte_roce_gid_equal(&rx->dst, &roce_all_nodes)) {
		roce_port_drop(roce_port_slow(port), m, RTE_ROCE_PORT_DROP_ND_NOT_FOR_US);
		return;
	}
	roce_port_slow(port)->stats.nd_adverts_in++;
	/* Without TLLA: Linux answers a unicast NS so (K:ndisc.c ndisc_recv_ns). */
	roce_neigh_advert(port, &rx->target, rx->has_lladdr ? &rx->lladdr : NULL,
			  rx->flags & ROCE_NA_FLAG_SOLICITED, rx->flags & ROCE_NA_FLAG_OVERRIDE);
	rte_pktmbuf_free(m);
}

/* ---- ICMP echo ---- */

/*
 * Copy an echo request's identifier, sequence and data (everything after
 * type, code and checksum) into the reply m at off.
 */
static bool
roce_echo_copy(const struct rte_mbuf *req, uint32_t req_off, struct rte_mbuf *m, uint32_t off,
	       uint32_t len)
{
	void *dst = rte_pktmbuf_mtod_offset(m, uint8_t *, off);
	const void *src = rte_pktmbuf_read(req, req_off, len, dst);

	if (src == NULL)
		return false;
	if (src != dst)
		memcpy(dst, src, len);
	return true;
}

void
roce_icmp4_input(struct rte_roce_port *port, struct rte_mbuf *req, uint32_t l4_off,
		 uint32_t l4_len)
{
	const uint32_t l3_off = RTE_ETHER_HDR_LEN;
	const struct rte_ipv4_hdr *rip;
	struct rte_ipv4_hdr ip_buf;
	struct rte_icmp_hdr icmp_buf, *icmp;
	const struct rte_icmp_hdr *ricmp;
	struct rte_ether_addr dst_mac;
	struct rte_mbuf *m;
	uint16_t cksum;

	ricmp = rte_pktmbuf_read(req, l4_off, sizeof(*ricmp), &icmp_buf);
	if (ricmp == NULL || roce_cksum_mbuf(req, l4_off, l4_len, &cksum) != 0 ||
	    cksum != ROCE_CKSUM_OK) {
		roce_port_drop(roce_port_slow(port), req, RTE_ROCE_PORT_DROP_ICMP_MALFORMED);
		return;
	}
	if (ricmp->icmp_type == RTE_IP_ICMP_ECHO_REPLY && ricmp->icmp_code == 0) {
		roce_port_slow(port)->stats.icmp_echo_replies_in++;
		rte_pktmbuf_free(req);
		return;
	}
	if (ricmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST || ricmp->icmp_code != 0) {
		roce_port_drop(roce_port_slow(port), req, RTE_ROCE_PORT_DROP_ICMP_TYPE);
		return;
	}
	roce_port_slow(port)->stats.icmp_echo_in++;
	m = roce_ctl_alloc(port, l3_off + sizeof(*rip) + l4_len);
	if (m == NULL) {
		rte_pktmbuf_free(req);
		return;
	}
	rip = rte_pktmbuf_read(req, l3_off, sizeof(*rip), &ip_buf);
	roce_frame_src_mac(req, &dst_mac);
	roce_port_l2_fill(port, m, &dst_mac, RTE_ETHER_TYPE_IPV4);
	roce_ipv4_fill(m, rip->dst_addr, rip->src_addr, IPPROTO_ICMP, sizeof(*rip) + l4_len);
	icmp = rte_pktmbuf_mtod_offset(m, struct rte_icmp_hdr *, l3_off + sizeof(*rip));
	/* The request's IPv4 options, if any, are not echoed (RFC 1122 3.2.2.6 allows it). */
	roce_echo_copy(req, l4_off, m, l3_off + sizeof(*rip), l4_len);
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	icmp->icmp_cksum = 0;
	icmp->icmp_cksum = ~rte_raw_cksum(icmp, l4_len);
	rte_pktmbuf_free(req);
	roce_port_tx(port, roce_port_slow(port), m);
	roce_port_slow(port)->stats.icmp_echo_out++;
}

static void
roce_echo6_input(struct rte_roce_port *port, struct rte_mbuf *req, const struct rte_ipv6_hdr *rip)
{
	const uint32_t l4_off = RTE_ETHER_HDR_LEN + sizeof(*rip);
	uint32_t len = rte_be_to_cpu_16(rip->payload_len);
	struct rte_ether_addr dst_mac;
	struct rte_ipv6_hdr *ip;
	struct rte_icmp_hdr *icmp;
	struct rte_mbuf *m;

	roce_port_slow(port)->stats.icmp_echo_in++;
	m = roce_ctl_alloc(port, l4_off + len);
	if (m == NULL) {
		rte_pktmbuf_free(req);
		return;
	}
	roce_frame_src_mac(req, &dst_mac);
	roce_port_l2_fill(port, m, &dst_mac, RTE_ETHER_TYPE_IPV6);
	ip = roce_ipv6_fill(m, rip->dst_addr, rip->src_addr, ROCE_IP_DEFAULT_TTL, len);
	icmp = (struct rte_icmp_hdr *)(ip + 1);
	roce_echo_copy(req, l4_off, m, l4_off, len);
	icmp->icmp_type = ROCE_ICMP6_ECHO_REPLY;
	icmp->icmp_cksum = 0;
	icmp->icmp_cksum = roce_icmp6_cksum(ip, icmp);
	rte_pktmbuf_free(req);
	roce_port_tx(port, roce_port_slow(port), m);
	roce_port_slow(port)->stats.icmp_echo_out++;
}

void
roce_icmp6_input(struct rte_roce_port *port, struct rte_mbuf *m, enum roce_l2_dst l2)
{
	const uint32_t l4_off = RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr);
	struct rte_ipv6_hdr ip_buf;
	struct rte_icmp_hdr icmp_buf;
	const struct rte_icmp_hdr *icmp;
	struct roce_nd_rx rx;

	rx.ip = rte_pktmbuf_read(m, RTE_ETHER_HDR_LEN, sizeof(ip_buf), &ip_buf);
	icmp = rte_pktmbuf_read(m, l4_off, sizeof(*icmp), &icmp_buf);
	if (icmp == NULL || rte_be_to_cpu_16(rx.ip->payload_len) < sizeof(*icmp)) {
		roce_port_drop(roce_port_slow(port), m, RTE_ROCE_PORT_DROP_ICMP_MALFORMED);
		return;
	}
	rx.type = icmp->icmp_type;
	memcpy(rx.src.raw, rx.ip->src_addr, RTE_ROCE_GID_LEN);
	memcpy(rx.dst.raw, rx.ip->dst_addr, RTE_ROCE_GID_LEN);
	switch (rx.type) {
	case ROCE_ND_NEIGHBOR_SOLICIT:
	case ROCE_ND_NEIGHBOR_ADVERT:
		if (!roce_nd_valid(m, &rx)) {
			roce_port_drop(roce_port_slow(port), m, RTE_ROCE_PORT_DROP_ND_MALFORMED);
			return;
		}
		if (rx.type == ROCE_ND_NEIGHBOR_SOLICIT)
			roce_ns_input(port, m, &rx, l2);
		else
			roce_na_input(port, m, &rx, l2);
		return;
	case ROCE_ICMP6_ECHO_REQUEST:
	case ROCE_ICMP6_ECHO_REPLY:
		if (icmp->icmp_code != 0 ||
		    !roce_icmp6_cksum_ok(m, rx.ip, l4_off)) {
			roce_port_drop(roce_port_slow(port), m, RTE_ROCE_PORT_DROP_ICMP_MALFORMED);
			return;
		}
		if (l2 != ROCE_L2_UNICAST ||
		    !roce_port_is_local(port, &rx.dst)) {
			roce_port_drop(roce_port_slow(port), m, RTE_ROCE_PORT_DROP_NOT_FOR_US);
			return;
		}
		if (rx.type == ROCE_ICMP6_ECHO_REQUEST) {
			roce_echo6_input(port, m, rx.ip);
			return;
		}
		roce_port_slow(port)->stats.icmp_echo_replies_in++;
		rte_pktmbuf_free(m);
		return;
	default:
		roce_port_drop(roce_port_slow(port), m, RTE_ROCE_PORT_DROP_ICMP_TYPE);
		return;
	}
}
