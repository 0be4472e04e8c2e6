/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_BUILD_H
#define ROCE_BUILD_H

#include <rte_mbuf.h>

#include "rte_roce_pkt.h"

/*
 * rte_roce_pkt_build_mbuf() of a packet made by roce_qp_pkt_init(): its
 * info matches its opcode, its IP version and GIDs come from a QP whose
 * addresses were checked when it was modified (roce_ah.c), its UDP checksum
 * mode is rte_roce_pkt_init()'s. Only what the engine sets per packet is
 * checked: the payload against the opcode and its size; the same errors.
 */
int roce_pkt_build_mbuf_qp(const struct rte_roce_pkt *pkt, const void *payload,
			   struct rte_mbuf *m);

/* Largest Ethernet + IP + UDP header a template holds: a VLAN tag and IPv6. */
#define ROCE_HDR_TMPL_MAX (RTE_ROCE_ETH_LEN + RTE_ROCE_VLAN_LEN + RTE_ROCE_IPV6_LEN + \
			   RTE_ROCE_UDP_LEN)

/*
 * The headers every packet of a connected QP starts with, built once when
 * its path is set: Ethernet (MACs left to the port), IP and UDP as
 * rte_roce_pkt_build() writes them. A packet copies them and patches the
 * IP and UDP lengths and the IPv4 checksum.
 */
struct roce_hdr_tmpl {
	uint8_t bytes[ROCE_HDR_TMPL_MAX];
	uint8_t l3_off;		/* IP header */
	uint8_t l4_off;		/* UDP header */
	bool ipv4;
	uint16_t ipv4_sum;	/* raw sum of the IPv4 header, length and checksum 0 */
};

/* The template of the packets like pkt (its addresses, TOS, flow label, ports, IP version). */
void roce_build_hdr_init(struct roce_hdr_tmpl *t, const struct rte_roce_pkt *pkt);

/*
 * roce_pkt_build_mbuf_qp() of a packet whose header fields up to UDP are
 * those t was built from: the rest (BTH on) from pkt; the same errors.
 */
int roce_pkt_build_mbuf_hdr(const struct roce_hdr_tmpl *t, const struct rte_roce_pkt *pkt,
			    const void *payload, struct rte_mbuf *m);

/*
 * Replace the ICRC of a FLUSH frame built by roce_pkt_build_mbuf_hdr() from
 * t with the one Linux rxe checks (rte_roce_icrc_calc_rxe_flush(); the
 * device key quirk_rxe_flush_icrc). Its UDP checksum stays 0 (QPs send none).
 */
void roce_build_rxe_flush_icrc(const struct roce_hdr_tmpl *t, struct rte_mbuf *m);

#endif /* ROCE_BUILD_H */
