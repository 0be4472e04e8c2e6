/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The RoCEv2 frame builder: the inverse of the parser. Every length,
 * PadCnt, the IPv4 header checksum and the ICRC are computed here; every
 * other field comes from struct rte_roce_pkt. Conventions of rxe senders
 * (doc/wire-format.md §1.1): DF set, UDP checksum 0, pad bytes 0.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "rte_roce_icrc.h"
#include "rte_roce_pkt.h"
#include "roce_build.h"
#include "roce_icrc.h"
#include "roce_opcode.h"

#define ROCE_IPV6_VERSION 6
#define ROCE_IPV6_VERSION_SHIFT 28

void
rte_roce_pkt_init(struct rte_roce_pkt *pkt, uint8_t opcode)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->opcode = opcode;
	pkt->info = roce_opcode_info(opcode);
	pkt->ip_version = IPVERSION;
	pkt->ttl = RTE_ROCE_DEFAULT_TTL;
	/* rxe sends DF (K:rxe_net.c). */
	pkt->ip_frag_off = RTE_IPV4_HDR_DF_FLAG;
	pkt->dport = RTE_ROCE_UDP_PORT;
	pkt->udp_csum_mode = RTE_ROCE_UDP_CSUM_ZERO;
	pkt->pkey = RTE_ROCE_DEFAULT_PKEY;
}

/* Pad that makes the payload whole 4-byte words. */
static uint8_t
roce_pad(uint32_t payload_len)
{
	return -payload_len & RTE_ROCE_PAD_MAX;
}

/* UDP length (header, transport headers, payload, pad, ICRC), or -EINVAL. */
static int
roce_build_udp_len(const struct rte_roce_pkt *pkt, const struct rte_roce_opcode_info *info)
{
	uint32_t ip_hdr_len = pkt->ip_version == IPVERSION ? RTE_ROCE_IPV4_LEN : 0;

	if (pkt->payload_len != 0 && (info->flags & RTE_ROCE_OPF_PAYLOAD) == 0)
		return -EINVAL;
	if (info->payload_fixed != 0 && pkt->payload_len != info->payload_fixed)
		return -EINVAL;
	/* The 16-bit IPv4 total length and UDP length bound the payload. */
	if (pkt->payload_len > UINT16_MAX - ip_hdr_len - RTE_ROCE_UDP_LEN - info->hdr_len -
			       RTE_ROCE_PAD_MAX - RTE_ROCE_ICRC_LEN)
		return -EINVAL;
	return RTE_ROCE_UDP_LEN + info->hdr_len + pkt->payload_len + roce_pad(pkt->payload_len) +
	       RTE_ROCE_ICRC_LEN;
}

/* Frame length of a packet of a known opcode and IP version, or -EINVAL. */
static int
roce_build_len(const struct rte_roce_pkt *pkt, const struct rte_roce_opcode_info *info)
{
	int udp_len = roce_build_udp_len(pkt, info);
	uint32_t l2_len;

	if (udp_len < 0)
		return udp_len;
	l2_len = RTE_ROCE_ETH_LEN + (pkt->vlan ? RTE_ROCE_VLAN_LEN : 0);
	return l2_len + (pkt->ip_version == IPVERSION ? RTE_ROCE_IPV4_LEN : RTE_ROCE_IPV6_LEN) +
	       udp_len;
}

int
rte_roce_pkt_frame_len(const struct rte_roce_pkt *pkt)
{
	const struct rte_roce_opcode_info *info;

	if (pkt == NULL)
		return -EINVAL;
	info = roce_opcode_info(pkt->opcode);
	if (info == NULL || (pkt->ip_version != IPVERSION && pkt->ip_version != ROCE_IPV6_VERSION))
		return -EINVAL;
	return roce_build_len(pkt, info);
}

/* Frame length if pkt and payload can be built, else -EINVAL. */
static int
roce_build_check(const struct rte_roce_pkt *pkt, const void *payload)
{
	int len = rte_roce_pkt_frame_len(pkt);

	if (len < 0)
		return len;
	if (pkt->payload_len != 0 && payload == NULL)
		return -EINVAL;
	if (pkt->udp_csum_mode > RTE_ROCE_UDP_CSUM_CALC)
		return -EINVAL;
	if (pkt->ip_version == IPVERSION &&
	    (!rte_roce_gid_is_ipv4(&pkt->sgid) || !rte_roce_gid_is_ipv4(&pkt->dgid)))
		return -EINVAL;
	return len;
}

/* Ethernet and VLAN; returns the length written. */
static uint32_t
roce_build_l2(const struct rte_roce_pkt *pkt, uint8_t *buf)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;
	struct rte_vlan_hdr *vlan = (struct rte_vlan_hdr *)(eth + 1);
	uint16_t ether_type = pkt->ip_version == IPVERSION ? RTE_ETHER_TYPE_IPV4 :
							    RTE_ETHER_TYPE_IPV6;

	rte_ether_addr_copy(&pkt->dst_mac, &eth->dst_addr);
	rte_ether_addr_copy(&pkt->src_mac, &eth->src_addr);
	if (!pkt->vlan) {
		eth->ether_type = rte_cpu_to_be_16(ether_type);
		return RTE_ROCE_ETH_LEN;
	}
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
	vlan->vlan_tci = rte_cpu_to_be_16(pkt->vlan_tci);
	vlan->eth_proto = rte_cpu_to_be_16(ether_type);
	return RTE_ROCE_ETH_LEN + RTE_ROCE_VLAN_LEN;
}

/* IPv4 or IPv6 header, IPv4 checksum excluded. */
static void
roce_build_ip(const struct rte_roce_pkt *pkt, uint8_t *l3, uint16_t udp_len)
{
	struct rte_ipv4_hdr *ip4 = (struct rte_ipv4_hdr *)l3;
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)l3;

	if (pkt->ip_version == IPVERSION) {
		ip4->version_ihl = RTE_IPV4_VHL_DEF;
		ip4->type_of_service = pkt->tos;
		ip4->total_length = rte_cpu_to_be_16(RTE_ROCE_IPV4_LEN + udp_len);
		ip4->packet_id = rte_cpu_to_be_16(pkt->ip_id);
		ip4->fragment_offset = rte_cpu_to_be_16(pkt->ip_frag_off);
		ip4->time_to_live = pkt->ttl;
		ip4->next_proto_id = IPPROTO_UDP;
		ip4->hdr_checksum = 0;
		ip4->src_addr = rte_roce_gid_to_ipv4(&pkt->sgid);
		ip4->dst_addr = rte_roce_gid_to_ipv4(&pkt->dgid);
		return;
	}
	ip6->vtc_flow = rte_cpu_to_be_32((uint32_t)ROCE_IPV6_VERSION << ROCE_IPV6_VERSION_SHIFT |
					 (uint32_t)pkt->tos << RTE_IPV6_HDR_TC_SHIFT |
					 (pkt->flow_label & RTE_IPV6_HDR_FL_MASK));
	ip6->payload_len = rte_cpu_to_be_16(udp_len);
	ip6->proto = IPPROTO_UDP;
	ip6->hop_limits = pkt->ttl;
	memcpy(ip6->src_addr, pkt->sgid.raw, RTE_ROCE_GID_LEN);
	memcpy(ip6->dst_addr, pkt->dgid.raw, RTE_ROCE_GID_LEN);
}

/* Encode one extension header from pkt. */
static void
roce_build_ext(const struct rte_roce_pkt *pkt, enum rte_roce_hdr_type type, void *h)
{
	struct rte_roce_reth *reth = h;
	struct rte_roce_aeth *aeth = h;
	struct rte_roce_atmeth *atmeth = h;
	struct rte_roce_atmack *atmack = h;
	struct rte_roce_deth *deth = h;
	struct rte_roce_immdt *immdt = h;
	struct rte_roce_ieth *ieth = h;
	struct rte_roce_feth *feth = h;

	switch (type) {
	case RTE_ROCE_HDR_RETH:
		reth->va = rte_cpu_to_be_64(pkt->reth.va);
		reth->rkey = rte_cpu_to_be_32(pkt->reth.rkey);
		reth->len = rte_cpu_to_be_32(pkt->reth.len);
		break;
	case RTE_ROCE_HDR_AETH:
		rte_roce_aeth_set(aeth, pkt->aeth.syndrome, pkt->aeth.msn);
		break;
	case RTE_ROCE_HDR_ATMETH:
		atmeth->va = rte_cpu_to_be_64(pkt->atmeth.va);
		atmeth->rkey = rte_cpu_to_be_32(pkt->atmeth.rkey);
		atmeth->swap_add = rte_cpu_to_be_64(pkt->atmeth.swap_add);
		atmeth->compare = rte_cpu_to_be_64(pkt->atmeth.compare);
		break;
	case RTE_ROCE_HDR_ATMACK:
		atmack->orig = rte_cpu_to_be_64(pkt->atmack_orig);
		break;
	case RTE_ROCE_HDR_DETH:
		deth->qkey = rte_cpu_to_be_32(pkt->deth.qkey);
		deth->sqpn = rte_cpu_to_be_32((uint32_t)pkt->deth.resv << RTE_ROCE_PSN_BITS |
					      (pkt->deth.sqpn & RTE_ROCE_QPN_MASK));
		break;
	case RTE_ROCE_HDR_IMMDT:
		immdt->imm = pkt->imm;
		break;
	case RTE_ROCE_HDR_IETH:
		ieth->rkey = rte_cpu_to_be_32(pkt->ieth_rkey);
		break;
	case RTE_ROCE_HDR_FETH:
		feth->bits = rte_cpu_to_be_32(pkt->feth);
		break;
	case RTE_ROCE_HDR_CNP:
		memcpy(h, pkt->cnp_rsvd, RTE_ROCE_CNP_LEN);
		break;
	case RTE_ROCE_HDR_MAX:
		break;
	}
}

/* BTH and extension headers; returns the length written. */
static uint32_t
roce_build_transport(const struct rte_roce_pkt *pkt, const struct rte_roce_opcode_info *info,
		     uint8_t *th)
{
	uint32_t qpn_hi = (pkt->fecn ? RTE_ROCE_BTH_FECN : 0) | (pkt->becn ? RTE_ROCE_BTH_BECN : 0) |
			  (((uint32_t)pkt->resv6 << RTE_ROCE_BTH_RESV6_SHIFT) & RTE_ROCE_BTH_RESV6_MASK);
	uint32_t apsn_hi = (pkt->ackreq ? RTE_ROCE_BTH_ACKREQ : 0) |
			   (((uint32_t)pkt->resv7 << RTE_ROCE_BTH_RESV7_SHIFT) & RTE_ROCE_BTH_RESV7_MASK);
	unsigned int i;

	rte_roce_bth_set((struct rte_roce_bth *)th, pkt->opcode,
			 rte_roce_bth_flags(pkt->se, pkt->mig, roce_pad(pkt->payload_len), pkt->tver),
			 pkt->pkey, qpn_hi >> RTE_ROCE_BTH_RESV6_SHIFT, pkt->dqpn,
			 apsn_hi >> RTE_ROCE_BTH_RESV7_SHIFT, pkt->psn);
	for (i = 0; i < info->nb_hdrs; i++)
		roce_build_ext(pkt, info->hdr[i], th + info->hdr_off[info->hdr[i]]);
	return info->hdr_len;
}

/* UDP checksum, network order; written last, as it covers the ICRC. */
static rte_be16_t
roce_build_udp_csum(const struct rte_roce_pkt *pkt, const void *l3, const void *udp)
{
	switch (pkt->udp_csum_mode) {
	case RTE_ROCE_UDP_CSUM_KEEP:
		return rte_cpu_to_be_16(pkt->udp_csum);
	case RTE_ROCE_UDP_CSUM_CALC:
		/* Sums in memory order: already network order. */
		return pkt->ip_version == IPVERSION ? rte_ipv4_udptcp_cksum(l3, udp) :
						      rte_ipv6_udptcp_cksum(l3, udp);
	default:
		return 0;
	}
}

/*
 * What follows the UDP header of a frame of len bytes (BTH, extension
 * headers, payload, pad, ICRC), then the UDP checksum, which covers it.
 * The IP and UDP headers are written, lengths and IPv4 checksum included.
 */
static void
roce_build_tail(const struct rte_roce_pkt *pkt, const struct rte_roce_opcode_info *info,
		const void *payload, uint8_t *buf, uint32_t l3_off, uint32_t l4_off, uint32_t len)
{
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(buf + l4_off);
	uint32_t off = l4_off + RTE_ROCE_UDP_LEN, icrc_off = len - RTE_ROCE_ICRC_LEN;
	const uint32_t zero = 0;
	rte_le32_t icrc;

	off += roce_build_transport(pkt, info, buf + off);
	if (pkt->payload_len != 0)
		memcpy(buf + off, payload, pkt->payload_len);
	off += pkt->payload_len;
	/*
	 * The pad (0-3 bytes) as one word of zeros, its tail within the ICRC
	 * written below: a fixed-size store, not a memset() call (~20
	 * instructions a frame under callgrind).
	 */
	RTE_BUILD_BUG_ON(RTE_ROCE_PAD_MAX >= sizeof(zero) || RTE_ROCE_ICRC_LEN != sizeof(zero));
	memcpy(buf + off, &zero, sizeof(zero));
	/* Stored least-significant byte first, like the FCS (IBA A17.3.3; K:rxe_icrc.c). */
	icrc = rte_cpu_to_le_32(roce_icrc_calc_writable(buf + l3_off, icrc_off - l3_off));
	memcpy(buf + icrc_off, &icrc, sizeof(icrc));
	udp->dgram_cksum = roce_build_udp_csum(pkt, buf + l3_off, udp);
}

/* Ethernet, IP and UDP headers of a frame of len bytes; returns the UDP header's offset. */
static uint32_t
roce_build_head(const struct rte_roce_pkt *pkt, uint8_t *buf, uint32_t len)
{
	uint32_t ip_hdr_len = pkt->ip_version == IPVERSION ? RTE_ROCE_IPV4_LEN : RTE_ROCE_IPV6_LEN;
	uint32_t l3_off = roce_build_l2(pkt, buf), l4_off = l3_off + ip_hdr_len;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(buf + l4_off);

	roce_build_ip(pkt, buf + l3_off, len - l4_off);
	if (pkt->ip_version == IPVERSION)
		((struct rte_ipv4_hdr *)(buf + l3_off))->hdr_checksum =
			rte_ipv4_cksum((struct rte_ipv4_hdr *)(buf + l3_off));
	udp->src_port = rte_cpu_to_be_16(pkt->sport);
	udp->dst_port = rte_cpu_to_be_16(pkt->dport);
	udp->dgram_len = rte_cpu_to_be_16(len - l4_off);
	udp->dgram_cksum = 0;
	return l4_off;
}

/* Write a frame of len bytes, already checked by roce_build_check(). */
static void
roce_build_frame(const struct rte_roce_pkt *pkt, const void *payload, uint8_t *buf, uint32_t len)
{
	uint32_t l4_off = roce_build_head(pkt, buf, len);
	uint32_t l3_off = l4_off - (pkt->ip_version == IPVERSION ? RTE_ROCE_IPV4_LEN :
								  RTE_ROCE_IPV6_LEN);

	roce_build_tail(pkt, roce_opcode_info(pkt->opcode), payload, buf, l3_off, l4_off, len);
}

int
rte_roce_pkt_build(const struct rte_roce_pkt *pkt, const void *payload, void *buf, uint32_t size)
{
	int len = roce_build_check(pkt, payload);

	if (len < 0)
		return len;
	if (buf == NULL)
		return -EINVAL;
	if ((uint32_t)len > size)
		return -ENOSPC;
	roce_build_frame(pkt, payload, buf, len);
	return len;
}

/* Append a frame of len bytes, already checked, to m. */
static int
roce_build_append(const struct rte_roce_pkt *pkt, const void *payload, struct rte_mbuf *m, int len)
{
	char *buf;

	if (len < 0)
		return len;
	if (m == NULL)
		return -EINVAL;
	buf = rte_pktmbuf_append(m, len);
	if (buf == NULL)
		return -ENOSPC;
	roce_build_frame(pkt, payload, (uint8_t *)buf, len);
	return len;
}

int
rte_roce_pkt_build_mbuf(const struct rte_roce_pkt *pkt, const void *payload, struct rte_mbuf *m)
{
	return roce_build_append(pkt, payload, m, roce_build_check(pkt, payload));
}

int
roce_pkt_build_mbuf_qp(const struct rte_roce_pkt *pkt, const void *payload, struct rte_mbuf *m)
{
	if (pkt->payload_len != 0 && payload == NULL)
		return -EINVAL;
	return roce_build_append(pkt, payload, m, roce_build_len(pkt, pkt->info));
}

void
roce_build_hdr_init(struct roce_hdr_tmpl *t, const struct rte_roce_pkt *pkt)
{
	struct rte_ipv4_hdr *ip4;

	/* A frame with no transport header, no payload: its lengths are patched per packet. */
	t->l4_off = roce_build_head(pkt, t->bytes, 0);
	t->l3_off = t->l4_off - (pkt->ip_version == IPVERSION ? RTE_ROCE_IPV4_LEN :
								 RTE_ROCE_IPV6_LEN);
	t->ipv4 = pkt->ip_version == IPVERSION;
	if (!t->ipv4)
		return;
	ip4 = (struct rte_ipv4_hdr *)(t->bytes + t->l3_off);
	ip4->total_length = 0;
	ip4->hdr_checksum = 0;
	t->ipv4_sum = rte_raw_cksum(ip4, RTE_ROCE_IPV4_LEN);
}

/* The IP and UDP lengths of a frame of len bytes from t, and the IPv4 checksum they change. */
static void
roce_build_hdr_patch(const struct roce_hdr_tmpl *t, uint8_t *buf, uint32_t len)
{
	struct rte_ipv4_hdr *ip4 = (struct rte_ipv4_hdr *)(buf + t->l3_off);
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(buf + t->l3_off);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(buf + t->l4_off);
	uint16_t udp_len = len - t->l4_off;

	udp->dgram_len = rte_cpu_to_be_16(udp_len);
	if (!t->ipv4) {
		ip6->payload_len = udp->dgram_len;
		return;
	}
	ip4->total_length = rte_cpu_to_be_16(RTE_ROCE_IPV4_LEN + udp_len);
	/* The template's sum plus the one field that changed (RFC 1624: sums are associative). */
	ip4->hdr_checksum = (uint16_t)~__rte_raw_cksum_reduce(t->ipv4_sum + ip4->total_length);
}

int
roce_pkt_build_mbuf_hdr(const struct roce_hdr_tmpl *t, const struct rte_roce_pkt *pkt,
			const void *payload, struct rte_mbuf *m)
{
	int udp_len;
	uint8_t *buf;
	uint32_t len;

	if (pkt->payload_len != 0 && payload == NULL)
		return -EINVAL;
	udp_len = roce_build_udp_len(pkt, pkt->info);
	if (udp_len < 0)
		return udp_len;
	len = t->l4_off + udp_len;
	buf = (uint8_t *)rte_pktmbuf_append(m, len);
	if (buf == NULL)
		return -ENOSPC;
	/* IPv4 without a tag, the common layout: a copy of known size, inlined (no memcpy() call). */
	if (t->l4_off == RTE_ROCE_ETH_LEN + RTE_ROCE_IPV4_LEN)
		memcpy(buf, t->bytes, RTE_ROCE_ETH_LEN + RTE_ROCE_IPV4_LEN + RTE_ROCE_UDP_LEN);
	else
		memcpy(buf, t->bytes, t->l4_off + RTE_ROCE_UDP_LEN);
	roce_build_hdr_patch(t, buf, len);
	roce_build_tail(pkt, pkt->info, payload, buf, t->l3_off, t->l4_off, len);
	return len;
}

void
roce_build_rxe_flush_icrc(const struct roce_hdr_tmpl *t, struct rte_mbuf *m)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, t->l3_off);
	uint32_t len = rte_pktmbuf_data_len(m) - t->l3_off - RTE_ROCE_ICRC_LEN;
	rte_le32_t icrc = rte_cpu_to_le_32(rte_roce_icrc_calc_rxe_flush(l3, len));

	memcpy(l3 + len, &icrc, sizeof(icrc));
}
