/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The strict RoCEv2 frame parser.
 *
 * Both entry points first gather the frame's leading bytes (at most
 * ROCE_PARSE_HDR_MAX, enough for every header of the longest accepted
 * layout) into one contiguous run, then decode from it layer by layer.
 * A header is only read once the frame is known to hold all of it, so no
 * input can make the parser read out of bounds. The payload itself is only
 * touched by the UDP checksum, which reads it where it lies.
 * Which frames are rejected, and why: doc/wire-format.md §1-§3.
 */

#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "roce_cksum.h"
#include "roce_opcode.h"
#include "roce_parse.h"
#include "rte_roce_pkt.h"

/* Longest header run: Ethernet, one VLAN tag, IPv6, UDP, BTH + AtomicETH. */
#define ROCE_PARSE_HDR_MAX (RTE_ROCE_ETH_LEN + RTE_ROCE_VLAN_LEN + RTE_ROCE_IPV6_LEN + \
			    RTE_ROCE_UDP_LEN + RTE_ROCE_TRANSPORT_HDR_MAX)

/* The ones' complement sum of data that includes its correct checksum. */
#define ROCE_CKSUM_OK 0xffff

#define ROCE_IP_VERSION_SHIFT 4
#define ROCE_IPV6_VERSION_SHIFT 28
#define ROCE_IPV6_VERSION 6

/* Where the frame is: a flat buffer or an mbuf chain. */
struct roce_frame {
	const uint8_t *flat;
	const struct rte_mbuf *m;
	uint32_t len;
};

struct roce_parse {
	const struct roce_frame *frame;
	const uint8_t *hdr;	/* the first hlen bytes of the frame */
	uint32_t hlen;
	uint32_t mtu;
	uint32_t l4_len;	/* UDP header + UDP payload, from the IP header */
	bool ipv4_summed;	/* the caller verified the IPv4 header checksum */
	struct rte_roce_pkt *pkt;
};

static const char *const roce_drop_names[RTE_ROCE_DROP_REASON_MAX] = {
	[RTE_ROCE_DROP_NONE] = "none",
	[RTE_ROCE_DROP_TRUNC_L2] = "truncated_l2",
	[RTE_ROCE_DROP_SRC_MAC] = "bad_src_mac",
	[RTE_ROCE_DROP_ETHERTYPE] = "bad_ethertype",
	[RTE_ROCE_DROP_TRUNC_L3] = "truncated_l3",
	[RTE_ROCE_DROP_IP_VERSION] = "bad_ip_version",
	[RTE_ROCE_DROP_IPV4_IHL] = "bad_ipv4_ihl",
	[RTE_ROCE_DROP_IPV4_OPTIONS] = "ipv4_options",
	[RTE_ROCE_DROP_IPV4_CSUM] = "bad_ipv4_csum",
	[RTE_ROCE_DROP_IP_LEN] = "bad_ip_len",
	[RTE_ROCE_DROP_IP_FRAG] = "ip_fragment",
	[RTE_ROCE_DROP_IPV6_EXT] = "ipv6_ext_hdr",
	[RTE_ROCE_DROP_NOT_UDP] = "not_udp",
	[RTE_ROCE_DROP_TRUNC_L4] = "truncated_l4",
	[RTE_ROCE_DROP_UDP_PORT] = "bad_udp_port",
	[RTE_ROCE_DROP_UDP_LEN] = "bad_udp_len",
	[RTE_ROCE_DROP_UDP_CSUM] = "bad_udp_csum",
	[RTE_ROCE_DROP_TRUNC_BTH] = "truncated_bth",
	[RTE_ROCE_DROP_TVER] = "bad_tver",
	[RTE_ROCE_DROP_OPCODE] = "bad_opcode",
	[RTE_ROCE_DROP_TRUNC_EXT] = "truncated_ext_hdr",
	[RTE_ROCE_DROP_PAD] = "bad_pad",
	[RTE_ROCE_DROP_PAD_ALIGN] = "unaligned_payload",
	[RTE_ROCE_DROP_PAYLOAD] = "unexpected_payload",
	[RTE_ROCE_DROP_ATOMIC_WRITE_LEN] = "bad_atomic_write_len",
	[RTE_ROCE_DROP_MTU] = "payload_over_mtu",
	[RTE_ROCE_DROP_ICRC] = "bad_icrc",
};

const char *
rte_roce_drop_reason_name(enum rte_roce_drop_reason reason)
{
	if ((unsigned int)reason >= RTE_DIM(roce_drop_names))
		return "unknown";
	return roce_drop_names[reason];
}

/* The header of size bytes at off, or NULL if the frame ends before it. */
static const void *
roce_hdr(const struct roce_parse *p, uint32_t off, uint32_t size)
{
	if (off > p->hlen || size > p->hlen - off)
		return NULL;
	return p->hdr + off;
}

/* Ones' complement sum of the UDP segment, wherever its bytes lie. */
static uint16_t
roce_udp_raw_cksum(const struct roce_parse *p)
{
	const struct roce_frame *f = p->frame;
	uint16_t sum;

	if (f->m == NULL)
		return rte_raw_cksum(f->flat + p->pkt->l4_off, p->l4_len);
	/* The chain holds the whole segment: the IP length fits in pkt_len. */
	if (roce_cksum_mbuf(f->m, p->pkt->l4_off, p->l4_len, &sum) != 0)
		return 0;
	return sum;
}

static enum rte_roce_drop_reason
roce_parse_l2(struct roce_parse *p, uint16_t *ether_type)
{
	struct rte_roce_pkt *pkt = p->pkt;
	const struct rte_ether_hdr *eth = roce_hdr(p, 0, RTE_ROCE_ETH_LEN);
	const struct rte_vlan_hdr *vlan;

	if (eth == NULL)
		return RTE_ROCE_DROP_TRUNC_L2;
	rte_ether_addr_copy(&eth->dst_addr, &pkt->dst_mac);
	rte_ether_addr_copy(&eth->src_addr, &pkt->src_mac);
	/* The group bit covers broadcast too. */
	if (rte_is_multicast_ether_addr(&pkt->src_mac))
		return RTE_ROCE_DROP_SRC_MAC;
	*ether_type = rte_be_to_cpu_16(eth->ether_type);
	pkt->l3_off = RTE_ROCE_ETH_LEN;
	pkt->vlan = *ether_type == RTE_ETHER_TYPE_VLAN;
	if (!pkt->vlan)
		return RTE_ROCE_DROP_NONE;
	vlan = roce_hdr(p, RTE_ROCE_ETH_LEN, RTE_ROCE_VLAN_LEN);
	if (vlan == NULL)
		return RTE_ROCE_DROP_TRUNC_L2;
	pkt->vlan_tci = rte_be_to_cpu_16(vlan->vlan_tci);
	*ether_type = rte_be_to_cpu_16(vlan->eth_proto);
	pkt->l3_off += RTE_ROCE_VLAN_LEN;
	return RTE_ROCE_DROP_NONE;
}

static enum rte_roce_drop_reason
roce_parse_ipv4(struct roce_parse *p)
{
	struct rte_roce_pkt *pkt = p->pkt;
	const struct rte_ipv4_hdr *ip = roce_hdr(p, pkt->l3_off, RTE_ROCE_IPV4_LEN);
	uint16_t total_len, frag;

	if (ip == NULL)
		return RTE_ROCE_DROP_TRUNC_L3;
	if (ip->version_ihl >> ROCE_IP_VERSION_SHIFT != IPVERSION)
		return RTE_ROCE_DROP_IP_VERSION;
	if ((ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) < RTE_IPV4_MIN_IHL)
		return RTE_ROCE_DROP_IPV4_IHL;
	if ((ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) > RTE_IPV4_MIN_IHL)
		return RTE_ROCE_DROP_IPV4_OPTIONS;
	if (!p->ipv4_summed && roce_ipv4_hdr_sum(ip) != ROCE_CKSUM_OK)
		return RTE_ROCE_DROP_IPV4_CSUM;
	/* A longer frame is Ethernet padding: allowed. */
	total_len = rte_be_to_cpu_16(ip->total_length);
	if (total_len < RTE_ROCE_IPV4_LEN || total_len > p->frame->len - pkt->l3_off)
		return RTE_ROCE_DROP_IP_LEN;
	frag = rte_be_to_cpu_16(ip->fragment_offset);
	if ((frag & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0)
		return RTE_ROCE_DROP_IP_FRAG;
	if (ip->next_proto_id != IPPROTO_UDP)
		return RTE_ROCE_DROP_NOT_UDP;
	pkt->ip_version = IPVERSION;
	pkt->tos = ip->type_of_service;
	pkt->ttl = ip->time_to_live;
	pkt->ip_id = rte_be_to_cpu_16(ip->packet_id);
	pkt->ip_frag_off = frag;
	rte_roce_gid_from_ipv4(&pkt->sgid, ip->src_addr);
	rte_roce_gid_from_ipv4(&pkt->dgid, ip->dst_addr);
	pkt->l4_off = pkt->l3_off + RTE_ROCE_IPV4_LEN;
	p->l4_len = total_len - RTE_ROCE_IPV4_LEN;
	return RTE_ROCE_DROP_NONE;
}

static bool
roce_ipv6_is_ext_hdr(uint8_t next_hdr)
{
	switch (next_hdr) {
	case IPPROTO_HOPOPTS:
	case IPPROTO_ROUTING:
	case IPPROTO_FRAGMENT:
	case IPPROTO_ESP:
	case IPPROTO_AH:
	case IPPROTO_DSTOPTS:
	case IPPROTO_MH:
		return true;
	default:
		return false;
	}
}

static enum rte_roce_drop_reason
roce_parse_ipv6(struct roce_parse *p)
{
	struct rte_roce_pkt *pkt = p->pkt;
	const struct rte_ipv6_hdr *ip = roce_hdr(p, pkt->l3_off, RTE_ROCE_IPV6_LEN);
	uint32_t vtc_flow;
	uint16_t payload_len;

	if (ip == NULL)
		return RTE_ROCE_DROP_TRUNC_L3;
	vtc_flow = rte_be_to_cpu_32(ip->vtc_flow);
	if (vtc_flow >> ROCE_IPV6_VERSION_SHIFT != ROCE_IPV6_VERSION)
		return RTE_ROCE_DROP_IP_VERSION;
	payload_len = rte_be_to_cpu_16(ip->payload_len);
	if (payload_len > p->frame->len - pkt->l3_off - RTE_ROCE_IPV6_LEN)
		return RTE_ROCE_DROP_IP_LEN;
	if (roce_ipv6_is_ext_hdr(ip->proto))
		return RTE_ROCE_DROP_IPV6_EXT;
	if (ip->proto != IPPROTO_UDP)
		return RTE_ROCE_DROP_NOT_UDP;
	pkt->ip_version = ROCE_IPV6_VERSION;
	pkt->tos = (vtc_flow & RTE_IPV6_HDR_TC_MASK) >> RTE_IPV6_HDR_TC_SHIFT;
	pkt->flow_label = vtc_flow & RTE_IPV6_HDR_FL_MASK;
	pkt->ttl = ip->hop_limits;
	memcpy(pkt->sgid.raw, ip->src_addr, RTE_ROCE_GID_LEN);
	memcpy(pkt->dgid.raw, ip->dst_addr, RTE_ROCE_GID_LEN);
	pkt->l4_off = pkt->l3_off + RTE_ROCE_IPV6_LEN;
	p->l4_len = payload_len;
	return RTE_ROCE_DROP_NONE;
}

static enum rte_roce_drop_reason
roce_parse_udp(struct roce_parse *p)
{
	struct rte_roce_pkt *pkt = p->pkt;
	const struct rte_udp_hdr *udp;
	const void *ip = p->hdr + pkt->l3_off;
	uint32_t sum;

	if (p->l4_len < RTE_ROCE_UDP_LEN)
		return RTE_ROCE_DROP_TRUNC_L4;
	/* In the header run: the IP length put the whole UDP header in the frame. */
	udp = roce_hdr(p, pkt->l4_off, RTE_ROCE_UDP_LEN);
	pkt->sport = rte_be_to_cpu_16(udp->src_port);
	pkt->dport = rte_be_to_cpu_16(udp->dst_port);
	pkt->udp_csum = rte_be_to_cpu_16(udp->dgram_cksum);
	pkt->udp_csum_mode = pkt->udp_csum == 0 ? RTE_ROCE_UDP_CSUM_ZERO : RTE_ROCE_UDP_CSUM_KEEP;
	if (pkt->dport != RTE_ROCE_UDP_PORT)
		return RTE_ROCE_DROP_UDP_PORT;
	if (rte_be_to_cpu_16(udp->dgram_len) != p->l4_len)
		return RTE_ROCE_DROP_UDP_LEN;
	/* 0 = no checksum; rxe sends 0 and accepts 0 over IPv6 too (K:rxe_net.c). */
	if (pkt->udp_csum == 0)
		return RTE_ROCE_DROP_NONE;
	sum = roce_udp_raw_cksum(p);
	sum += pkt->ip_version == IPVERSION ? rte_ipv4_phdr_cksum(ip, 0) : rte_ipv6_phdr_cksum(ip, 0);
	sum = (sum & UINT16_MAX) + (sum >> 16);
	if (sum != ROCE_CKSUM_OK)
		return RTE_ROCE_DROP_UDP_CSUM;
	return RTE_ROCE_DROP_NONE;
}

/*
 * The BTH's two 32-bit words are byte-swapped once each and their fields
 * taken from the result: DPDK's x86 swap is an asm volatile the compiler
 * cannot merge, so the rte_roce_bth_*() accessors, one swap each, cost
 * five more swaps and loads a packet.
 */
static void
roce_parse_bth(struct rte_roce_pkt *pkt, const struct rte_roce_bth *bth)
{
	uint32_t qpn = rte_be_to_cpu_32(bth->qpn), apsn = rte_be_to_cpu_32(bth->apsn);

	pkt->opcode = bth->opcode;
	pkt->se = rte_roce_bth_se(bth);
	pkt->mig = rte_roce_bth_mig(bth);
	pkt->pad = rte_roce_bth_pad(bth);
	pkt->tver = rte_roce_bth_tver(bth);
	pkt->pkey = rte_roce_bth_pkey(bth);
	pkt->fecn = (qpn & RTE_ROCE_BTH_FECN) != 0;
	pkt->becn = (qpn & RTE_ROCE_BTH_BECN) != 0;
	pkt->resv6 = (qpn & RTE_ROCE_BTH_RESV6_MASK) >> RTE_ROCE_BTH_RESV6_SHIFT;
	pkt->dqpn = qpn & RTE_ROCE_QPN_MASK;
	pkt->ackreq = (apsn & RTE_ROCE_BTH_ACKREQ) != 0;
	pkt->resv7 = (apsn & RTE_ROCE_BTH_RESV7_MASK) >> RTE_ROCE_BTH_RESV7_SHIFT;
	pkt->psn = apsn & RTE_ROCE_PSN_MASK;
}

/* Decode one extension header into pkt. */
static void
roce_parse_ext(struct rte_roce_pkt *pkt, enum rte_roce_hdr_type type, const void *h)
{
	const struct rte_roce_reth *reth = h;
	const struct rte_roce_aeth *aeth = h;
	const struct rte_roce_atmeth *atmeth = h;
	const struct rte_roce_atmack *atmack = h;
	const struct rte_roce_deth *deth = h;
	const struct rte_roce_immdt *immdt = h;
	const struct rte_roce_ieth *ieth = h;
	const struct rte_roce_feth *feth = h;

	switch (type) {
	case RTE_ROCE_HDR_RETH:
		pkt->reth.va = rte_be_to_cpu_64(reth->va);
		pkt->reth.rkey = rte_be_to_cpu_32(reth->rkey);
		pkt->reth.len = rte_be_to_cpu_32(reth->len);
		break;
	case RTE_ROCE_HDR_AETH:
		pkt->aeth.syndrome = rte_roce_aeth_syndrome(aeth);
		pkt->aeth.msn = rte_roce_aeth_msn(aeth);
		break;
	case RTE_ROCE_HDR_ATMETH:
		pkt->atmeth.va = rte_be_to_cpu_64(atmeth->va);
		pkt->atmeth.rkey = rte_be_to_cpu_32(atmeth->rkey);
		pkt->atmeth.swap_add = rte_be_to_cpu_64(atmeth->swap_add);
		pkt->atmeth.compare = rte_be_to_cpu_64(atmeth->compare);
		break;
	case RTE_ROCE_HDR_ATMACK:
		pkt->atmack_orig = rte_be_to_cpu_64(atmack->orig);
		break;
	case RTE_ROCE_HDR_DETH:
		pkt->deth.qkey = rte_be_to_cpu_32(deth->qkey);
		pkt->deth.resv = rte_be_to_cpu_32(deth->sqpn) >> RTE_ROCE_PSN_BITS;
		pkt->deth.sqpn = rte_roce_deth_sqpn(deth);
		break;
	case RTE_ROCE_HDR_IMMDT:
		pkt->imm = immdt->imm;
		break;
	case RTE_ROCE_HDR_IETH:
		pkt->ieth_rkey = rte_be_to_cpu_32(ieth->rkey);
		break;
	case RTE_ROCE_HDR_FETH:
		pkt->feth = rte_be_to_cpu_32(feth->bits);
		break;
	case RTE_ROCE_HDR_CNP:
		memcpy(pkt->cnp_rsvd, h, RTE_ROCE_CNP_LEN);
		break;
	case RTE_ROCE_HDR_MAX:
		break;
	}
}

/* Lengths after the headers: pad, then payload, against the opcode and the MTU. */
static enum rte_roce_drop_reason
roce_parse_payload(struct roce_parse *p, uint32_t data_len)
{
	struct rte_roce_pkt *pkt = p->pkt;
	const struct rte_roce_opcode_info *info = pkt->info;

	if (pkt->pad > data_len)
		return RTE_ROCE_DROP_PAD;
	if (data_len % RTE_ROCE_WORD_LEN != 0)
		return RTE_ROCE_DROP_PAD_ALIGN;
	pkt->payload_len = data_len - pkt->pad;
	/* ACKs, READ requests, atomics and FLUSH (oA19-2) carry no payload. */
	if (pkt->payload_len != 0 && (info->flags & RTE_ROCE_OPF_PAYLOAD) == 0)
		return RTE_ROCE_DROP_PAYLOAD;
	if (info->payload_fixed != 0 && pkt->payload_len != info->payload_fixed)
		return RTE_ROCE_DROP_ATOMIC_WRITE_LEN;
	if (pkt->payload_len > p->mtu)
		return RTE_ROCE_DROP_MTU;
	return RTE_ROCE_DROP_NONE;
}

static enum rte_roce_drop_reason
roce_parse_transport(struct roce_parse *p)
{
	struct rte_roce_pkt *pkt = p->pkt;
	const struct rte_roce_opcode_info *info;
	uint32_t tp_len = p->l4_len - RTE_ROCE_UDP_LEN;
	const uint8_t *th;
	unsigned int i;

	pkt->bth_off = pkt->l4_off + RTE_ROCE_UDP_LEN;
	if (tp_len < RTE_ROCE_BTH_LEN + RTE_ROCE_ICRC_LEN)
		return RTE_ROCE_DROP_TRUNC_BTH;
	roce_parse_bth(pkt, roce_hdr(p, pkt->bth_off, RTE_ROCE_BTH_LEN));
	/* rxe drops TVer != 0 (K:rxe_recv.c). */
	if (pkt->tver != RTE_ROCE_TVER)
		return RTE_ROCE_DROP_TVER;
	info = roce_opcode_info(pkt->opcode);
	pkt->info = info;
	if (info == NULL)
		return RTE_ROCE_DROP_OPCODE;
	if (tp_len < (uint32_t)info->hdr_len + RTE_ROCE_ICRC_LEN)
		return RTE_ROCE_DROP_TRUNC_EXT;
	/* In the header run: the UDP length put every header in the frame. */
	th = roce_hdr(p, pkt->bth_off, info->hdr_len);
	for (i = 0; i < info->nb_hdrs; i++)
		roce_parse_ext(pkt, info->hdr[i], th + info->hdr_off[info->hdr[i]]);
	pkt->payload_off = pkt->bth_off + info->hdr_len;
	pkt->icrc_off = pkt->l4_off + p->l4_len - RTE_ROCE_ICRC_LEN;
	return roce_parse_payload(p, tp_len - info->hdr_len - RTE_ROCE_ICRC_LEN);
}

static enum rte_roce_drop_reason
roce_parse(const struct roce_frame *frame, const uint8_t *hdr, uint32_t mtu, bool ipv4_summed,
	   struct rte_roce_pkt *pkt)
{
	struct roce_parse p = {
		.frame = frame,
		.hdr = hdr,
		.hlen = RTE_MIN(frame->len, (uint32_t)ROCE_PARSE_HDR_MAX),
		.mtu = mtu,
		.ipv4_summed = ipv4_summed,
		.pkt = pkt,
	};
	enum rte_roce_drop_reason reason;
	uint16_t ether_type = 0;

	memset(pkt, 0, sizeof(*pkt));
	reason = roce_parse_l2(&p, &ether_type);
	if (reason != RTE_ROCE_DROP_NONE)
		return reason;
	if (ether_type == RTE_ETHER_TYPE_IPV4)
		reason = roce_parse_ipv4(&p);
	else if (ether_type == RTE_ETHER_TYPE_IPV6)
		reason = roce_parse_ipv6(&p);
	else
		reason = RTE_ROCE_DROP_ETHERTYPE;
	if (reason != RTE_ROCE_DROP_NONE)
		return reason;
	reason = roce_parse_udp(&p);
	if (reason != RTE_ROCE_DROP_NONE)
		return reason;
	return roce_parse_transport(&p);
}

enum rte_roce_drop_reason
rte_roce_pkt_parse(const void *frame, uint32_t len, uint32_t mtu, struct rte_roce_pkt *pkt)
{
	const struct roce_frame f = { .flat = frame, .len = len };

	return roce_parse(&f, frame, mtu, false, pkt);
}

static enum rte_roce_drop_reason
roce_parse_mbuf(const struct rte_mbuf *m, uint32_t mtu, bool ipv4_summed, struct rte_roce_pkt *pkt)
{
	const struct roce_frame f = { .m = m, .len = rte_pktmbuf_pkt_len(m) };
	uint8_t copy[ROCE_PARSE_HDR_MAX];
	const uint8_t *hdr;

	/* Points into the first segment if the run is there, else copies it out. */
	hdr = rte_pktmbuf_read(m, 0, RTE_MIN(f.len, (uint32_t)ROCE_PARSE_HDR_MAX), copy);
	if (hdr == NULL)
		return RTE_ROCE_DROP_TRUNC_L2;	/* not reached: we never ask beyond pkt_len */
	return roce_parse(&f, hdr, mtu, ipv4_summed, pkt);
}

enum rte_roce_drop_reason
rte_roce_pkt_parse_mbuf(const struct rte_mbuf *m, uint32_t mtu, struct rte_roce_pkt *pkt)
{
	return roce_parse_mbuf(m, mtu, false, pkt);
}

enum rte_roce_drop_reason
roce_pkt_parse_mbuf_ipv4_summed(const struct rte_mbuf *m, uint32_t mtu, struct rte_roce_pkt *pkt)
{
	return roce_parse_mbuf(m, mtu, true, pkt);
}
