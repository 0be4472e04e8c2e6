/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_PKT_H
#define RTE_ROCE_PKT_H

/**
 * @file
 * The strict RoCEv2 frame parser and the frame builder.
 *
 * rte_roce_pkt_parse() decodes a frame into a struct rte_roce_pkt and
 * rejects, with one reason per cause, anything that is not a well-formed
 * RoCEv2 packet this stack handles. rte_roce_pkt_build() does the reverse.
 * The decoded fields are enough to rebuild an accepted frame byte for byte
 * (up to the end of its ICRC, provided the ICRC was correct and the pad
 * bytes were zero: the builder always writes a correct ICRC and zero pad
 * bytes, as rxe and hardware senders do, and never writes Ethernet padding).
 * The parser accepts non-zero pad bytes: the ICRC covers them, and a
 * receiver has no use for their value.
 *
 * The parser does not check the ICRC (use rte_roce_icrc_check*() on
 * [l3_off, icrc_off)), the P_Key, the Q_Key or anything else that depends on
 * a QP; it ignores the MigReq bit.
 *
 * @warning @b EXPERIMENTAL: struct rte_roce_pkt is also what the library's
 * transport engines carry a packet in, so its layout follows them; the
 * functions that take it are experimental (version.map) and may change
 * without notice.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_compat.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include <rte_roce_gid.h>
#include <rte_roce_hdr.h>
#include <rte_roce_opcode.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Why the parser rejected a frame; RTE_ROCE_DROP_NONE if it did not. */
enum rte_roce_drop_reason {
	RTE_ROCE_DROP_NONE = 0,		/**< Accepted. */
	RTE_ROCE_DROP_TRUNC_L2,		/**< Shorter than the Ethernet header (+ VLAN tag). */
	RTE_ROCE_DROP_SRC_MAC,		/**< Source MAC is multicast or broadcast. */
	RTE_ROCE_DROP_ETHERTYPE,	/**< Not IPv4 or IPv6 after at most one 802.1Q tag. */
	RTE_ROCE_DROP_TRUNC_L3,		/**< Shorter than the IP header. */
	RTE_ROCE_DROP_IP_VERSION,	/**< IP version does not match the EtherType. */
	RTE_ROCE_DROP_IPV4_IHL,		/**< IPv4 IHL below 5. */
	RTE_ROCE_DROP_IPV4_OPTIONS,	/**< IPv4 options (IHL above 5): not handled. */
	RTE_ROCE_DROP_IPV4_CSUM,	/**< Wrong IPv4 header checksum. */
	RTE_ROCE_DROP_IP_LEN,		/**< IP length beyond the frame, or below the IPv4 header. */
	RTE_ROCE_DROP_IP_FRAG,		/**< IPv4 fragment (MF set or offset non-zero). */
	RTE_ROCE_DROP_IPV6_EXT,		/**< IPv6 extension header: not handled. */
	RTE_ROCE_DROP_NOT_UDP,		/**< IP protocol / next header is not UDP. */
	RTE_ROCE_DROP_TRUNC_L4,		/**< IP payload shorter than the UDP header. */
	RTE_ROCE_DROP_UDP_PORT,		/**< UDP destination port is not 4791. */
	RTE_ROCE_DROP_UDP_LEN,		/**< UDP length differs from the IP payload length. */
	RTE_ROCE_DROP_UDP_CSUM,		/**< Non-zero and wrong UDP checksum. */
	RTE_ROCE_DROP_TRUNC_BTH,	/**< UDP payload shorter than BTH + ICRC. */
	RTE_ROCE_DROP_TVER,		/**< BTH TVer is not 0. */
	RTE_ROCE_DROP_OPCODE,		/**< Reserved opcode, or RD/XRC/vendor transport. */
	RTE_ROCE_DROP_TRUNC_EXT,	/**< UDP payload shorter than the opcode's headers + ICRC. */
	RTE_ROCE_DROP_PAD,		/**< Pad count larger than what follows the headers. */
	RTE_ROCE_DROP_PAD_ALIGN,	/**< Payload + pad is not whole 4-byte words. */
	RTE_ROCE_DROP_PAYLOAD,		/**< Payload on an opcode that carries none. */
	RTE_ROCE_DROP_ATOMIC_WRITE_LEN,	/**< ATOMIC_WRITE payload is not 8 bytes. */
	RTE_ROCE_DROP_MTU,		/**< Payload larger than the MTU. */
	RTE_ROCE_DROP_ICRC,		/**< Wrong ICRC (checked by the caller, not the parser). */
	RTE_ROCE_DROP_REASON_MAX	/**< Number of reasons. */
};

/** How the builder fills the UDP checksum. */
enum rte_roce_udp_csum {
	RTE_ROCE_UDP_CSUM_ZERO,		/**< Write 0, as rxe does for IPv4 and IPv6 (K:rxe_net.c). */
	RTE_ROCE_UDP_CSUM_KEEP,		/**< Write rte_roce_pkt.udp_csum as it is. */
	RTE_ROCE_UDP_CSUM_CALC,		/**< Compute it. */
};

/** Hop limit / TTL that rxe peers typically use (the default route's). */
#define RTE_ROCE_DEFAULT_TTL	64

/**
 * A RoCEv2 packet, decoded: every field in host byte order unless noted.
 *
 * The parser fills all of it. The builder reads the header fields and
 * payload_len, and ignores the offsets, pad, info and the fields of
 * extension headers the opcode does not have.
 */
struct rte_roce_pkt {
	/* Where things are in the frame (parser output). */
	uint32_t l3_off;	/**< IPv4/IPv6 header. */
	uint32_t l4_off;	/**< UDP header. */
	uint32_t bth_off;	/**< BTH. */
	uint32_t payload_off;	/**< Payload (after the extension headers). */
	uint32_t payload_len;	/**< Payload bytes, pad excluded (builder input too). */
	uint32_t icrc_off;	/**< ICRC: the 4 bytes after payload and pad. */
	uint8_t pad;		/**< Pad bytes between payload and ICRC (BTH PadCnt). */
	uint8_t opcode;		/**< BTH opcode (builder input). */
	const struct rte_roce_opcode_info *info;	/**< Table entry of opcode. */

	/* Ethernet and 802.1Q. */
	struct rte_ether_addr dst_mac;	/**< Destination MAC. */
	struct rte_ether_addr src_mac;	/**< Source MAC. */
	bool vlan;			/**< One 802.1Q tag is present. */
	uint16_t vlan_tci;		/**< Its PCP, DEI and VID. */

	/* IP. */
	uint8_t ip_version;	/**< 4 or 6. */
	uint8_t tos;		/**< IPv4 TOS / IPv6 traffic class (DSCP << 2 | ECN). */
	uint8_t ttl;		/**< IPv4 TTL / IPv6 hop limit. */
	uint16_t ip_id;		/**< IPv4 identification. */
	uint16_t ip_frag_off;	/**< IPv4 flags and fragment offset field (DF is 0x4000). */
	uint32_t flow_label;	/**< IPv6 flow label (20 bits). */
	union rte_roce_gid sgid;	/**< Source address; IPv4 as ::ffff:a.b.c.d. */
	union rte_roce_gid dgid;	/**< Destination address; IPv4 as ::ffff:a.b.c.d. */

	/* UDP. */
	uint16_t sport;		/**< Source port (flow entropy; never checked). */
	uint16_t dport;		/**< Destination port, RTE_ROCE_UDP_PORT. */
	uint16_t udp_csum;	/**< Checksum as received (0 = none). */
	uint8_t udp_csum_mode;	/**< enum rte_roce_udp_csum, for the builder. */

	/* BTH. */
	bool se;		/**< Solicited event. */
	bool mig;		/**< MigReq. */
	uint8_t tver;		/**< Transport header version. */
	uint16_t pkey;		/**< Partition key. */
	bool fecn;		/**< Forward explicit congestion notification. */
	bool becn;		/**< Backward explicit congestion notification. */
	uint8_t resv6;		/**< Reserved bits after BECN (6 bits). */
	uint32_t dqpn;		/**< Destination QP (24 bits). */
	bool ackreq;		/**< Acknowledge request. */
	uint8_t resv7;		/**< Reserved bits after AckReq (7 bits). */
	uint32_t psn;		/**< Packet sequence number (24 bits). */

	/* Extension headers: valid when info->hdr_mask has them. */
	struct {
		uint64_t va;	/**< Virtual address. */
		uint32_t rkey;	/**< Remote key. */
		uint32_t len;	/**< DMA length. */
	} reth;			/**< RETH. */
	struct {
		uint8_t syndrome;	/**< Syndrome byte. */
		uint32_t msn;		/**< MSN (24 bits). */
	} aeth;			/**< AETH. */
	struct {
		uint64_t va;		/**< Remote address. */
		uint32_t rkey;		/**< Remote key. */
		uint64_t swap_add;	/**< Swap value or addend. */
		uint64_t compare;	/**< Compare value. */
	} atmeth;		/**< AtomicETH. */
	uint64_t atmack_orig;	/**< AtomicAckETH: original remote value. */
	struct {
		uint32_t qkey;	/**< Queue key. */
		uint8_t resv;	/**< Reserved byte before the source QP. */
		uint32_t sqpn;	/**< Source QP (24 bits). */
	} deth;			/**< DETH. */
	rte_be32_t imm;		/**< ImmDt, network order like ibv_wc.imm_data. */
	uint32_t ieth_rkey;	/**< IETH: R_Key to invalidate. */
	uint32_t feth;		/**< FETH, the whole 32-bit word. */
	uint8_t cnp_rsvd[RTE_ROCE_CNP_LEN];	/**< The reserved bytes of a CNP. */
};

/**
 * Name of a drop reason, in snake_case, for counters ("bad_udp_csum").
 *
 * @param reason
 *   A reason.
 * @return
 *   Its name; "unknown" for a value outside the enum.
 */
const char *
rte_roce_drop_reason_name(enum rte_roce_drop_reason reason);

/**
 * Reset a packet to the defaults of a packet that rxe would send with that
 * opcode: IPv4, DF, TTL 64, UDP to port 4791 with checksum 0, P_Key 0xFFFF,
 * TVer 0, everything else zero. The caller then sets addresses, QPs, PSN...
 *
 * @param pkt
 *   Packet to reset.
 * @param opcode
 *   Its opcode; pkt->info is set from the table (NULL if unknown).
 */
__rte_experimental
void
rte_roce_pkt_init(struct rte_roce_pkt *pkt, uint8_t opcode);

/**
 * Parse and validate a frame in a flat buffer.
 *
 * Strict: rejects every frame that is not Ethernet [802.1Q] IPv4-without-
 * options or IPv6-without-extension-headers, UDP to port 4791, with a known
 * opcode, the opcode's extension headers and a payload that fits the opcode
 * and the MTU. Ethernet padding after the IP packet is allowed. Never reads
 * outside [frame, frame + len).
 *
 * @param frame
 *   The frame, from the destination MAC; no FCS.
 * @param len
 *   Its length in bytes.
 * @param mtu
 *   Largest accepted payload (the path or port MTU, e.g. 1024).
 * @param pkt
 *   Where to decode the frame; left partly filled when rejected.
 * @return
 *   RTE_ROCE_DROP_NONE if accepted, else why it was rejected.
 */
__rte_experimental
enum rte_roce_drop_reason
rte_roce_pkt_parse(const void *frame, uint32_t len, uint32_t mtu, struct rte_roce_pkt *pkt);

/**
 * Parse and validate a frame held in an mbuf chain of any segmentation;
 * the frame length is the chain's pkt_len. Same rules as rte_roce_pkt_parse().
 *
 * @param m
 *   The frame.
 * @param mtu
 *   Largest accepted payload.
 * @param pkt
 *   Where to decode the frame.
 * @return
 *   RTE_ROCE_DROP_NONE if accepted, else why it was rejected.
 */
__rte_experimental
enum rte_roce_drop_reason
rte_roce_pkt_parse_mbuf(const struct rte_mbuf *m, uint32_t mtu, struct rte_roce_pkt *pkt);

/**
 * Length of the frame rte_roce_pkt_build() would write for a packet.
 *
 * @param pkt
 *   The packet (opcode, vlan, ip_version and payload_len are used).
 * @return
 *   Frame length in bytes, or -EINVAL: pkt NULL, unknown opcode, IP version
 *   neither 4 nor 6, a payload length the opcode or the 16-bit IP and UDP
 *   lengths do not allow.
 */
__rte_experimental
int
rte_roce_pkt_frame_len(const struct rte_roce_pkt *pkt);

/**
 * Build a whole frame: Ethernet [802.1Q], IP, UDP, BTH, extension headers,
 * payload, zero pad bytes and the ICRC. Computes the IP and UDP lengths, the
 * IPv4 header checksum, the UDP checksum if asked (udp_csum_mode), PadCnt and
 * the ICRC; takes every other field from pkt.
 *
 * @param pkt
 *   The packet.
 * @param payload
 *   pkt->payload_len bytes of payload; may be NULL if payload_len is 0.
 * @param buf
 *   Where to write the frame.
 * @param size
 *   Size of buf.
 * @return
 *   The frame length, or:
 *   - -EINVAL: unknown opcode; IP version not 4 or 6; an IPv4 packet whose
 *     GIDs are not IPv4-mapped; a payload on an opcode without one, or not
 *     8 bytes on ATOMIC_WRITE; payload_len too large for the 16-bit IP and
 *     UDP lengths (so any above 2^31 too); payload NULL with payload_len > 0;
 *     pkt or buf NULL; bad udp_csum_mode.
 *   - -ENOSPC: buf is smaller than the frame.
 */
__rte_experimental
int
rte_roce_pkt_build(const struct rte_roce_pkt *pkt, const void *payload, void *buf, uint32_t size);

/**
 * Build a frame, as rte_roce_pkt_build(), appended to an mbuf's last
 * segment.
 *
 * @param pkt
 *   The packet.
 * @param payload
 *   pkt->payload_len bytes of payload; may be NULL if payload_len is 0.
 * @param m
 *   The mbuf; the frame is appended to its data.
 * @return
 *   The frame length, or -EINVAL (as rte_roce_pkt_build(), or m NULL) or
 *   -ENOSPC (not enough tailroom in the last segment).
 */
__rte_experimental
int
rte_roce_pkt_build_mbuf(const struct rte_roce_pkt *pkt, const void *payload, struct rte_mbuf *m);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_PKT_H */
