/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * RoCEv2 ICRC (IBA A17.3.3; the same rule as Linux rxe_icrc.c).
 *
 * The CRC is chained: a constant seed stands for the eight 0xFF bytes,
 * then a small masked copy of the IP, UDP and BTH headers is folded in,
 * then everything after the BTH is processed in place, segment by segment.
 * Nothing is linearised and the packet itself is never written.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <isa-l/crc.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "rte_roce_icrc.h"

/*
 * crc32_gzip_refl(0, ff, 8) for ff = eight 0xFF bytes (zlib crc32() of
 * them): the finalised CRC of the LRH stand-in, used as the seed of every
 * ICRC. Equal to ~0xDEBB20E3, rxe's unfinalised register for the same bytes
 * (rxe_icrc.c); unit tests recompute it.
 */
#define ROCE_ICRC_LRH_SEED 0x2144DF1Cu

#define ROCE_ICRC_IP_VERSION_SHIFT 4
#define ROCE_ICRC_IPV4 4
#define ROCE_ICRC_IPV6 6
#define ROCE_ICRC_IPV4_MAX_HDR_LEN (RTE_IPV4_HDR_IHL_MASK * RTE_IPV4_IHL_MULTIPLIER)
#define ROCE_ICRC_IPV6_HDR_LEN ((uint32_t)sizeof(struct rte_ipv6_hdr))
#define ROCE_ICRC_UDP_HDR_LEN ((uint32_t)sizeof(struct rte_udp_hdr))

/* BTH: 12 bytes; byte 4 holds FECN, BECN and resv6, all variant. */
#define ROCE_ICRC_BTH_LEN 12u
#define ROCE_ICRC_BTH_VARIANT_OFF 4

/* Longest masked copy: IPv4 with the largest IHL, UDP, BTH. */
#define ROCE_ICRC_HDR_MAX \
	(ROCE_ICRC_IPV4_MAX_HDR_LEN + ROCE_ICRC_UDP_HDR_LEN + ROCE_ICRC_BTH_LEN)

/* What the calc functions return for input they cannot interpret. */
#define ROCE_ICRC_MALFORMED 0u

/*
 * Length of the IP + UDP + BTH headers given the first byte of the IP
 * header, or 0 if it is not a usable IPv4/IPv6 header.
 */
static uint32_t
icrc_hdr_len(uint8_t version_ihl)
{
	uint32_t ihl = version_ihl & RTE_IPV4_HDR_IHL_MASK;
	uint32_t ip_len;

	switch (version_ihl >> ROCE_ICRC_IP_VERSION_SHIFT) {
	case ROCE_ICRC_IPV4:
		if (ihl < RTE_IPV4_MIN_IHL)
			return 0;
		ip_len = ihl * RTE_IPV4_IHL_MULTIPLIER;
		break;
	case ROCE_ICRC_IPV6:
		ip_len = ROCE_ICRC_IPV6_HDR_LEN;
		break;
	default:
		return 0;
	}
	return ip_len + ROCE_ICRC_UDP_HDR_LEN + ROCE_ICRC_BTH_LEN;
}

/*
 * CRC of the LRH stand-in and the headers (hdr_len bytes from icrc_hdr_len),
 * with the variant fields set to all-ones in a copy (IBA A17.3.3).
 */
static uint32_t
icrc_hdr_crc(const uint8_t *hdr, uint32_t hdr_len)
{
	uint8_t copy[ROCE_ICRC_HDR_MAX];
	uint32_t ip_len = hdr_len - ROCE_ICRC_UDP_HDR_LEN - ROCE_ICRC_BTH_LEN;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(copy + ip_len);

	memcpy(copy, hdr, hdr_len);
	if (copy[0] >> ROCE_ICRC_IP_VERSION_SHIFT == ROCE_ICRC_IPV4) {
		struct rte_ipv4_hdr *ip4 = (struct rte_ipv4_hdr *)copy;

		ip4->type_of_service = UINT8_MAX;
		ip4->time_to_live = UINT8_MAX;
		ip4->hdr_checksum = UINT16_MAX;
	} else {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)copy;

		ip6->vtc_flow |= rte_cpu_to_be_32(RTE_IPV6_HDR_TC_MASK |
						  RTE_IPV6_HDR_FL_MASK);
		ip6->hop_limits = UINT8_MAX;
	}
	udp->dgram_cksum = UINT16_MAX;
	copy[ip_len + ROCE_ICRC_UDP_HDR_LEN + ROCE_ICRC_BTH_VARIANT_OFF] = UINT8_MAX;
	return crc32_gzip_refl(ROCE_ICRC_LRH_SEED, copy, hdr_len);
}

/* The ICRC of a flat packet; -EBADMSG if the headers are unusable. */
static int
icrc_calc(const uint8_t *l3, uint32_t len, uint32_t *icrc)
{
	uint32_t hdr_len;

	hdr_len = len == 0 ? 0 : icrc_hdr_len(l3[0]);
	if (hdr_len == 0 || len < hdr_len)
		return -EBADMSG;
	*icrc = crc32_gzip_refl(icrc_hdr_crc(l3, hdr_len), l3 + hdr_len, len - hdr_len);
	return 0;
}

uint32_t
rte_roce_icrc_calc(const void *l3, uint32_t len)
{
	uint32_t icrc;

	if (icrc_calc(l3, len, &icrc) < 0)
		return ROCE_ICRC_MALFORMED;
	return icrc;
}

/* The ICRC of a packet in an mbuf chain; -EBADMSG if unusable or too short. */
static int
icrc_calc_mbuf(const struct rte_mbuf *m, uint32_t l3_off, uint32_t len,
	       uint32_t *icrc)
{
	uint8_t buf[ROCE_ICRC_HDR_MAX];
	const uint8_t *p;
	uint32_t hdr_len, off, n, crc;

	if (len == 0 || (uint64_t)l3_off + len > m->pkt_len)
		return -EBADMSG;
	p = rte_pktmbuf_read(m, l3_off, 1, buf);
	hdr_len = p == NULL ? 0 : icrc_hdr_len(p[0]);
	if (hdr_len == 0 || len < hdr_len)
		return -EBADMSG;
	p = rte_pktmbuf_read(m, l3_off, hdr_len, buf);
	if (p == NULL)
		return -EBADMSG;
	crc = icrc_hdr_crc(p, hdr_len);

	/* The rest, in place: find the segment after the BTH, then chain. */
	off = l3_off + hdr_len;
	len -= hdr_len;
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	for (; len > 0 && m != NULL; m = m->next, off = 0) {
		n = RTE_MIN((uint32_t)m->data_len - off, len);
		crc = crc32_gzip_refl(crc, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), n);
		len -= n;
	}
	/* A chain whose segments hold fewer bytes than pkt_len claims. */
	if (len > 0)
		return -EBADMSG;
	*icrc = crc;
	return 0;
}

uint32_t
rte_roce_icrc_calc_mbuf(const struct rte_mbuf *m, uint32_t l3_off, uint32_t len)
{
	uint32_t icrc;

	if (icrc_calc_mbuf(m, l3_off, len, &icrc) < 0)
		return ROCE_ICRC_MALFORMED;
	return icrc;
}

int
rte_roce_icrc_check(const void *l3, uint32_t len)
{
	const uint8_t *p = l3;
	uint32_t stored, icrc;

	/* Malformed input fails whatever it stores, even ROCE_ICRC_MALFORMED. */
	if (icrc_calc(p, len, &icrc) < 0)
		return -EBADMSG;
	memcpy(&stored, p + len, sizeof(stored));
	return rte_le_to_cpu_32(stored) == icrc ? 0 : -EBADMSG;
}

int
rte_roce_icrc_check_mbuf(const struct rte_mbuf *m, uint32_t l3_off, uint32_t len)
{
	uint32_t buf, stored, icrc;
	const void *p;

	if ((uint64_t)l3_off + len + RTE_ROCE_ICRC_LEN > m->pkt_len)
		return -EBADMSG;
	if (icrc_calc_mbuf(m, l3_off, len, &icrc) < 0)
		return -EBADMSG;
	p = rte_pktmbuf_read(m, l3_off + len, RTE_ROCE_ICRC_LEN, &buf);
	if (p == NULL)
		return -EBADMSG;
	memcpy(&stored, p, sizeof(stored));
	return rte_le_to_cpu_32(stored) == icrc ? 0 : -EBADMSG;
}
