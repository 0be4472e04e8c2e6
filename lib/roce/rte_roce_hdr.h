/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_HDR_H
#define RTE_ROCE_HDR_H

/**
 * @file
 * RoCEv2 wire headers: layouts, constants and accessors.
 *
 * A RoCEv2 frame is Ethernet (optionally one 802.1Q tag), IPv4 or IPv6,
 * UDP to port 4791, the 12-byte Base Transport Header (BTH), the extension
 * headers the opcode calls for (rte_roce_opcode.h), the payload, 0-3 pad
 * bytes and the 4-byte invariant CRC (rte_roce_icrc.h) (IBA Annex A17).
 *
 * Ethernet, VLAN, IPv4, IPv6 and UDP reuse DPDK's rte_ether.h, rte_ip.h and
 * rte_udp.h. The InfiniBand transport headers are defined here (DPDK 22.11
 * has no rte_ib.h; it appears in 23.07). Every structure is packed: in a
 * frame the transport headers start at offsets that are only 2-aligned.
 * All multi-byte fields are big-endian; the accessors take and return host
 * byte order and touch only their own bits.
 */

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include <rte_roce_icrc.h>

#ifdef __cplusplus
extern "C" {
#endif

/** UDP destination port of RoCEv2 (IANA; kernel ROCE_V2_UDP_DPORT). */
#define RTE_ROCE_UDP_PORT 4791

/** @name Header sizes, in bytes
 * @{
 */
#define RTE_ROCE_ETH_LEN	RTE_ETHER_HDR_LEN	/**< Ethernet header, untagged. */
#define RTE_ROCE_VLAN_LEN	4	/**< One 802.1Q tag (TPID + TCI). */
#define RTE_ROCE_IPV4_LEN	20	/**< IPv4 header without options. */
#define RTE_ROCE_IPV6_LEN	40	/**< IPv6 header without extension headers. */
#define RTE_ROCE_UDP_LEN	8	/**< UDP header. */
#define RTE_ROCE_BTH_LEN	12	/**< Base Transport Header. */
#define RTE_ROCE_RETH_LEN	16	/**< RDMA Extended Transport Header. */
#define RTE_ROCE_AETH_LEN	4	/**< ACK Extended Transport Header. */
#define RTE_ROCE_ATMETH_LEN	28	/**< Atomic Extended Transport Header. */
#define RTE_ROCE_ATMACK_LEN	8	/**< Atomic ACK Extended Transport Header. */
#define RTE_ROCE_DETH_LEN	8	/**< Datagram Extended Transport Header. */
#define RTE_ROCE_IMMDT_LEN	4	/**< Immediate data. */
#define RTE_ROCE_IETH_LEN	4	/**< Invalidate Extended Transport Header. */
#define RTE_ROCE_FETH_LEN	4	/**< FLUSH Extended Transport Header (IBA A19). */
#define RTE_ROCE_CNP_LEN	16	/**< Reserved bytes after the BTH of a CNP. */
#define RTE_ROCE_GRH_LEN	40	/**< GRH at the start of every UD receive buffer. */
/** @} */

/** Payload of an ATOMIC_WRITE: one 64-bit value (IBA A19). */
#define RTE_ROCE_ATOMIC_WRITE_LEN 8

/** Largest PadCnt: the payload is padded to a multiple of 4 bytes. */
#define RTE_ROCE_PAD_MAX 3

/** Transport packets are whole 4-byte words (IBA: packet lengths count words). */
#define RTE_ROCE_WORD_LEN 4

/** @name 24-bit fields: PSN, QPN, MSN
 * @{
 */
#define RTE_ROCE_PSN_BITS	24
#define RTE_ROCE_PSN_MASK	((UINT32_C(1) << RTE_ROCE_PSN_BITS) - 1)
#define RTE_ROCE_QPN_MASK	UINT32_C(0x00ffffff)
#define RTE_ROCE_MSN_MASK	UINT32_C(0x00ffffff)
/** DestQP of every multicast packet. */
#define RTE_ROCE_MULTICAST_QPN	UINT32_C(0x00ffffff)
/** @} */

/** The default, full-membership P_Key; rxe sends nothing else (IB_DEFAULT_PKEY_FULL). */
#define RTE_ROCE_DEFAULT_PKEY	0xffff
/** P_Key bits compared for membership; bit 15 is the membership type. */
#define RTE_ROCE_PKEY_BASE_MASK	0x7fff
/** Q_Key of QP1, the general services QP (IB_QP1_QKEY). */
#define RTE_ROCE_QP1_QKEY	UINT32_C(0x80010000)

/**
 * Add to a PSN, modulo 2^24.
 *
 * @param psn
 *   A PSN.
 * @param n
 *   How many PSNs to advance (wraps).
 * @return
 *   (psn + n) mod 2^24.
 */
static inline uint32_t
rte_roce_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & RTE_ROCE_PSN_MASK;
}

/**
 * Compare two PSNs in the 24-bit circular space: a is "before" b when it is
 * less than 2^23 PSNs behind (K:rxe_verbs.h psn_compare()).
 *
 * @return
 *   Negative if a precedes b, 0 if equal, positive if a follows b.
 */
static inline int32_t
rte_roce_psn_cmp(uint32_t a, uint32_t b)
{
	return (int32_t)((uint32_t)(a - b) << (32 - RTE_ROCE_PSN_BITS));
}

/*
 * Base Transport Header (K:rxe_hdr.h; doc/wire-format.md §2.1).
 */

/** Base Transport Header, 12 bytes. */
struct rte_roce_bth {
	uint8_t opcode;		/**< OpCode: transport (7:5) and operation (4:0). */
	uint8_t flags;		/**< SE (7), M (6), PadCnt (5:4), TVer (3:0). */
	rte_be16_t pkey;	/**< Partition key. */
	rte_be32_t qpn;		/**< FECN (31), BECN (30), resv6 (29:24), DestQP (23:0). */
	rte_be32_t apsn;	/**< AckReq (31), resv7 (30:24), PSN (23:0). */
} __rte_packed;

/** @name BTH bit fields
 * @{
 */
#define RTE_ROCE_BTH_SE		0x80	/**< flags: solicited event. */
#define RTE_ROCE_BTH_MIG	0x40	/**< flags: MigReq; ignored on receive. */
#define RTE_ROCE_BTH_PAD_SHIFT	4
#define RTE_ROCE_BTH_PAD_MASK	0x30	/**< flags: pad count. */
#define RTE_ROCE_BTH_TVER_MASK	0x0f	/**< flags: transport header version, 0. */
#define RTE_ROCE_BTH_FECN	UINT32_C(0x80000000)	/**< qpn: forward congestion. */
#define RTE_ROCE_BTH_BECN	UINT32_C(0x40000000)	/**< qpn: backward congestion. */
#define RTE_ROCE_BTH_RESV6_SHIFT 24
#define RTE_ROCE_BTH_RESV6_MASK	UINT32_C(0x3f000000)	/**< qpn: reserved, ICRC-masked. */
#define RTE_ROCE_BTH_ACKREQ	UINT32_C(0x80000000)	/**< apsn: acknowledge request. */
#define RTE_ROCE_BTH_RESV7_SHIFT 24
#define RTE_ROCE_BTH_RESV7_MASK	UINT32_C(0x7f000000)	/**< apsn: reserved, ICRC-covered. */
/** @} */

/** Transport header version of IBA 1.x; rxe drops any other (K:rxe_recv.c). */
#define RTE_ROCE_TVER		0

/** @return the solicited event bit. */
static inline bool
rte_roce_bth_se(const struct rte_roce_bth *bth)
{
	return (bth->flags & RTE_ROCE_BTH_SE) != 0;
}

/** @return the MigReq bit. */
static inline bool
rte_roce_bth_mig(const struct rte_roce_bth *bth)
{
	return (bth->flags & RTE_ROCE_BTH_MIG) != 0;
}

/** @return the pad count, 0-3. */
static inline uint8_t
rte_roce_bth_pad(const struct rte_roce_bth *bth)
{
	return (bth->flags & RTE_ROCE_BTH_PAD_MASK) >> RTE_ROCE_BTH_PAD_SHIFT;
}

/** @return the transport header version. */
static inline uint8_t
rte_roce_bth_tver(const struct rte_roce_bth *bth)
{
	return bth->flags & RTE_ROCE_BTH_TVER_MASK;
}

/**
 * Make the BTH flags byte.
 *
 * @param se
 *   Solicited event.
 * @param mig
 *   MigReq.
 * @param pad
 *   Pad count; only its two low bits are used.
 * @param tver
 *   Transport header version; only its four low bits are used.
 * @return
 *   The byte for rte_roce_bth.flags.
 */
static inline uint8_t
rte_roce_bth_flags(bool se, bool mig, uint8_t pad, uint8_t tver)
{
	return (se ? RTE_ROCE_BTH_SE : 0) | (mig ? RTE_ROCE_BTH_MIG : 0) |
	       ((pad << RTE_ROCE_BTH_PAD_SHIFT) & RTE_ROCE_BTH_PAD_MASK) |
	       (tver & RTE_ROCE_BTH_TVER_MASK);
}

/** @return the partition key. */
static inline uint16_t
rte_roce_bth_pkey(const struct rte_roce_bth *bth)
{
	return rte_be_to_cpu_16(bth->pkey);
}

/** @return the FECN bit. */
static inline bool
rte_roce_bth_fecn(const struct rte_roce_bth *bth)
{
	return (rte_be_to_cpu_32(bth->qpn) & RTE_ROCE_BTH_FECN) != 0;
}

/** @return the BECN bit; set in a CNP. */
static inline bool
rte_roce_bth_becn(const struct rte_roce_bth *bth)
{
	return (rte_be_to_cpu_32(bth->qpn) & RTE_ROCE_BTH_BECN) != 0;
}

/** @return the six reserved bits after BECN. */
static inline uint8_t
rte_roce_bth_resv6(const struct rte_roce_bth *bth)
{
	return (rte_be_to_cpu_32(bth->qpn) & RTE_ROCE_BTH_RESV6_MASK) >>
	       RTE_ROCE_BTH_RESV6_SHIFT;
}

/** @return the destination QP number. */
static inline uint32_t
rte_roce_bth_dqpn(const struct rte_roce_bth *bth)
{
	return rte_be_to_cpu_32(bth->qpn) & RTE_ROCE_QPN_MASK;
}

/** @return the AckReq bit. */
static inline bool
rte_roce_bth_ackreq(const struct rte_roce_bth *bth)
{
	return (rte_be_to_cpu_32(bth->apsn) & RTE_ROCE_BTH_ACKREQ) != 0;
}

/** @return the seven reserved bits after AckReq. */
static inline uint8_t
rte_roce_bth_resv7(const struct rte_roce_bth *bth)
{
	return (rte_be_to_cpu_32(bth->apsn) & RTE_ROCE_BTH_RESV7_MASK) >>
	       RTE_ROCE_BTH_RESV7_SHIFT;
}

/** @return the packet sequence number. */
static inline uint32_t
rte_roce_bth_psn(const struct rte_roce_bth *bth)
{
	return rte_be_to_cpu_32(bth->apsn) & RTE_ROCE_PSN_MASK;
}

/**
 * Fill a BTH.
 *
 * @param bth
 *   Header to write.
 * @param opcode
 *   OpCode.
 * @param flags
 *   Flags byte, from rte_roce_bth_flags().
 * @param pkey
 *   Partition key.
 * @param fecn_becn_resv6
 *   Byte 4 of the header: FECN (7), BECN (6), resv6 (5:0).
 * @param dqpn
 *   Destination QP; only its 24 low bits are used.
 * @param ackreq_resv7
 *   Byte 8 of the header: AckReq (7), resv7 (6:0).
 * @param psn
 *   PSN; only its 24 low bits are used.
 */
static inline void
rte_roce_bth_set(struct rte_roce_bth *bth, uint8_t opcode, uint8_t flags, uint16_t pkey,
		 uint8_t fecn_becn_resv6, uint32_t dqpn, uint8_t ackreq_resv7, uint32_t psn)
{
	bth->opcode = opcode;
	bth->flags = flags;
	bth->pkey = rte_cpu_to_be_16(pkey);
	bth->qpn = rte_cpu_to_be_32((uint32_t)fecn_becn_resv6 << RTE_ROCE_BTH_RESV6_SHIFT |
				    (dqpn & RTE_ROCE_QPN_MASK));
	bth->apsn = rte_cpu_to_be_32((uint32_t)ackreq_resv7 << RTE_ROCE_BTH_RESV7_SHIFT |
				     (psn & RTE_ROCE_PSN_MASK));
}

/*
 * Extension headers (K:rxe_hdr.h, include/rdma/ib_pack.h).
 */

/** RDMA Extended Transport Header: the remote buffer of a WRITE, READ or FLUSH. */
struct rte_roce_reth {
	rte_be64_t va;		/**< Remote virtual address. */
	rte_be32_t rkey;	/**< Remote key. */
	rte_be32_t len;		/**< DMA length of the whole message. */
} __rte_packed;

/** ACK Extended Transport Header. */
struct rte_roce_aeth {
	rte_be32_t smsn;	/**< Syndrome (31:24), MSN (23:0). */
} __rte_packed;

/** @name AETH syndrome (K:rxe_hdr.h enum aeth_syndrome)
 * @{
 */
#define RTE_ROCE_AETH_SYN_SHIFT		24
#define RTE_ROCE_AETH_TYPE_MASK		0x60	/**< Bits 6:5, the syndrome type. */
#define RTE_ROCE_AETH_TYPE_ACK		0x00	/**< ACK; low bits = credit code. */
#define RTE_ROCE_AETH_TYPE_RNR		0x20	/**< RNR NAK; low bits = timer code. */
#define RTE_ROCE_AETH_TYPE_RESERVED	0x40	/**< Reserved type. */
#define RTE_ROCE_AETH_TYPE_NAK		0x60	/**< NAK; low bits = NAK code. */
#define RTE_ROCE_AETH_CODE_MASK		0x1f	/**< Bits 4:0: credit, timer or NAK code. */
#define RTE_ROCE_AETH_CREDIT_INVALID	0x1f	/**< "No credit information"; rxe sends it in every ACK. */
#define RTE_ROCE_AETH_ACK_UNLIMITED	(RTE_ROCE_AETH_TYPE_ACK | RTE_ROCE_AETH_CREDIT_INVALID)
#define RTE_ROCE_AETH_NAK_PSN_SEQ	0x60	/**< PSN sequence error. */
#define RTE_ROCE_AETH_NAK_INV_REQ	0x61	/**< Invalid request. */
#define RTE_ROCE_AETH_NAK_REM_ACCESS	0x62	/**< Remote access error. */
#define RTE_ROCE_AETH_NAK_REM_OP	0x63	/**< Remote operational error. */
#define RTE_ROCE_AETH_NAK_INV_RD_REQ	0x64	/**< Invalid RD request (RD only). */
#define RTE_ROCE_RNR_TIMER_CODES	32	/**< RNR timer codes 0-31. */
/** @} */

/** @return the syndrome byte. */
static inline uint8_t
rte_roce_aeth_syndrome(const struct rte_roce_aeth *aeth)
{
	return rte_be_to_cpu_32(aeth->smsn) >> RTE_ROCE_AETH_SYN_SHIFT;
}

/** @return the message sequence number. */
static inline uint32_t
rte_roce_aeth_msn(const struct rte_roce_aeth *aeth)
{
	return rte_be_to_cpu_32(aeth->smsn) & RTE_ROCE_MSN_MASK;
}

/**
 * Fill an AETH.
 *
 * @param aeth
 *   Header to write.
 * @param syndrome
 *   Syndrome byte, e.g. RTE_ROCE_AETH_ACK_UNLIMITED or RTE_ROCE_AETH_NAK_PSN_SEQ.
 * @param msn
 *   MSN; only its 24 low bits are used.
 */
static inline void
rte_roce_aeth_set(struct rte_roce_aeth *aeth, uint8_t syndrome, uint32_t msn)
{
	aeth->smsn = rte_cpu_to_be_32((uint32_t)syndrome << RTE_ROCE_AETH_SYN_SHIFT |
				      (msn & RTE_ROCE_MSN_MASK));
}

/**
 * Make the syndrome of an RNR NAK.
 *
 * @param timer
 *   RNR timer code 0-31 (only its five low bits are used).
 * @return
 *   0x20 | timer.
 */
static inline uint8_t
rte_roce_aeth_rnr_syndrome(uint8_t timer)
{
	return RTE_ROCE_AETH_TYPE_RNR | (timer & RTE_ROCE_AETH_CODE_MASK);
}

/**
 * Wait time of an RNR timer code (K:rxe_comp.c rnrnak_usec[], IB_RNR_TIMER_*;
 * rxe's table has a typo, 61410, for code 25).
 *
 * @param code
 *   RNR timer code; only its five low bits are used.
 * @return
 *   The time in microseconds; code 0 is the longest, 655.36 ms.
 */
static inline uint32_t
rte_roce_rnr_timer_usec(uint8_t code)
{
	static const uint32_t usec[RTE_ROCE_RNR_TIMER_CODES] = {
		655360, 10, 20, 30, 40, 60, 80, 120,
		160, 240, 320, 480, 640, 960, 1280, 1920,
		2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
		40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
	};

	return usec[code & RTE_ROCE_AETH_CODE_MASK];
}

/** Atomic Extended Transport Header of COMPARE_SWAP and FETCH_ADD. */
struct rte_roce_atmeth {
	rte_be64_t va;		/**< Remote address, 8-byte aligned. */
	rte_be32_t rkey;	/**< Remote key. */
	rte_be64_t swap_add;	/**< Swap value, or the addend of FETCH_ADD. */
	rte_be64_t compare;	/**< Compare value (COMPARE_SWAP only). */
} __rte_packed;

/** Atomic ACK Extended Transport Header. */
struct rte_roce_atmack {
	rte_be64_t orig;	/**< Value at the remote address before the atomic. */
} __rte_packed;

/** Datagram Extended Transport Header of UD packets. */
struct rte_roce_deth {
	rte_be32_t qkey;	/**< Queue key. */
	rte_be32_t sqpn;	/**< Reserved (31:24), source QP (23:0). */
} __rte_packed;

/** @return the source QP of a DETH. */
static inline uint32_t
rte_roce_deth_sqpn(const struct rte_roce_deth *deth)
{
	return rte_be_to_cpu_32(deth->sqpn) & RTE_ROCE_QPN_MASK;
}

/** Immediate data; opaque, kept in network order as verbs do (ibv_wc.imm_data). */
struct rte_roce_immdt {
	rte_be32_t imm;		/**< Immediate data. */
} __rte_packed;

/** Invalidate Extended Transport Header. */
struct rte_roce_ieth {
	rte_be32_t rkey;	/**< R_Key to invalidate. */
} __rte_packed;

/** FLUSH Extended Transport Header (IBA A19.4.1.1-2). */
struct rte_roce_feth {
	rte_be32_t bits;	/**< Selectivity (5:4), placement type (3:0); rest reserved. */
} __rte_packed;

/** @name FETH fields (IBA A19.4.1.1-2; K:uapi/rdma/ib_user_verbs.h)
 * @{
 */
#define RTE_ROCE_FETH_PLT_MASK		0x0f	/**< Placement type. */
#define RTE_ROCE_FETH_PLT_GLOBAL	0x01	/**< Global visibility. */
#define RTE_ROCE_FETH_PLT_PERSISTENT	0x02	/**< Persistence. */
#define RTE_ROCE_FETH_SEL_SHIFT		4
#define RTE_ROCE_FETH_SEL_MASK		0x30	/**< Selectivity. */
#define RTE_ROCE_FETH_SEL_RANGE		0x00	/**< Flush the RETH range. */
#define RTE_ROCE_FETH_SEL_MR		0x10	/**< Flush the whole memory region. */
/** @} */

/**
 * What follows the BTH of a Congestion Notification Packet: 16 reserved
 * bytes, then the ICRC. The BTH has opcode 0x81, P_Key 0xFFFF, BECN 1,
 * DestQP = the QP to throttle, PSN 0 (IBA A17.9.3).
 */
struct rte_roce_cnp {
	uint8_t rsvd[RTE_ROCE_CNP_LEN];	/**< Reserved, sent as zeros. */
} __rte_packed;

/**
 * The 40 bytes that precede the payload in every UD receive buffer
 * (K:rxe_resp.c, union rdma_network_hdr). For IPv4: 20 zero bytes, then
 * the received IPv4 header; for IPv6: the received IPv6 header.
 * rdma-core's ibv_init_ah_from_wc() tells them apart by byte 0 and the IPv4
 * checksum, so the IPv4 header must be exact (RC:verbs.c get_grh_header_version).
 */
union rte_roce_grh {
	struct {
		uint8_t zero[RTE_ROCE_GRH_LEN - RTE_ROCE_IPV4_LEN];	/**< Zeros. */
		struct rte_ipv4_hdr ipv4;	/**< The IPv4 header. */
	} v4;				/**< IPv4 form. */
	struct rte_ipv6_hdr ipv6;	/**< IPv6 form. */
	uint8_t raw[RTE_ROCE_GRH_LEN];	/**< Bytes. */
};

/** Offset of the IPv4 header within an IPv4 GRH. */
#define RTE_ROCE_GRH_IPV4_OFF	(RTE_ROCE_GRH_LEN - RTE_ROCE_IPV4_LEN)

/**
 * Fill the GRH of a UD receive from the received packet's IP header, as rxe
 * does: IPv4 headers are copied verbatim (checksum included) after 20 zeros,
 * IPv6 headers verbatim.
 *
 * @param grh
 *   The 40 bytes to fill.
 * @param l3
 *   The received IPv4 header (without options) or IPv6 header.
 * @param ipv6
 *   true if l3 is an IPv6 header.
 */
static inline void
rte_roce_grh_fill(union rte_roce_grh *grh, const void *l3, bool ipv6)
{
	if (ipv6) {
		memcpy(grh->raw, l3, RTE_ROCE_IPV6_LEN);
		return;
	}
	memset(grh->v4.zero, 0, sizeof(grh->v4.zero));
	memcpy(&grh->v4.ipv4, l3, RTE_ROCE_IPV4_LEN);
}

static_assert(sizeof(struct rte_vlan_hdr) == RTE_ROCE_VLAN_LEN, "VLAN tag size");
static_assert(sizeof(struct rte_ipv4_hdr) == RTE_ROCE_IPV4_LEN, "IPv4 header size");
static_assert(sizeof(struct rte_ipv6_hdr) == RTE_ROCE_IPV6_LEN, "IPv6 header size");
static_assert(sizeof(struct rte_udp_hdr) == RTE_ROCE_UDP_LEN, "UDP header size");
static_assert(sizeof(struct rte_roce_bth) == RTE_ROCE_BTH_LEN, "BTH size");
static_assert(sizeof(struct rte_roce_reth) == RTE_ROCE_RETH_LEN, "RETH size");
static_assert(sizeof(struct rte_roce_aeth) == RTE_ROCE_AETH_LEN, "AETH size");
static_assert(sizeof(struct rte_roce_atmeth) == RTE_ROCE_ATMETH_LEN, "AtomicETH size");
static_assert(sizeof(struct rte_roce_atmack) == RTE_ROCE_ATMACK_LEN, "AtomicAckETH size");
static_assert(sizeof(struct rte_roce_deth) == RTE_ROCE_DETH_LEN, "DETH size");
static_assert(sizeof(struct rte_roce_immdt) == RTE_ROCE_IMMDT_LEN, "ImmDt size");
static_assert(sizeof(struct rte_roce_ieth) == RTE_ROCE_IETH_LEN, "IETH size");
static_assert(sizeof(struct rte_roce_feth) == RTE_ROCE_FETH_LEN, "FETH size");
static_assert(sizeof(struct rte_roce_cnp) == RTE_ROCE_CNP_LEN, "CNP size");
static_assert(sizeof(union rte_roce_grh) == RTE_ROCE_GRH_LEN, "GRH size");

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_HDR_H */
