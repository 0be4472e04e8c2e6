/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_OPCODE_H
#define RTE_ROCE_OPCODE_H

/**
 * @file
 * The IBTA opcode table of the RC, UC and UD transports, plus the CNP.
 *
 * One entry per defined opcode (values: K:include/rdma/ib_pack.h; layouts:
 * K:rxe_opcode.c; FLUSH and ATOMIC_WRITE: IBA A19).
 * Each entry lists the extension headers that follow the BTH, in wire order;
 * their offsets and the total transport header length are derived from that
 * list when the table is compiled. RD (0x40-0x5F), XRC (0xA0-0xBF), vendor
 * opcodes and the reserved values of RC/UC/UD have no entry.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_roce_hdr.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opcodes with a table entry (K:include/rdma/ib_pack.h). */
enum rte_roce_opcode {
	RTE_ROCE_OP_RC_SEND_FIRST			= 0x00,
	RTE_ROCE_OP_RC_SEND_MIDDLE			= 0x01,
	RTE_ROCE_OP_RC_SEND_LAST			= 0x02,
	RTE_ROCE_OP_RC_SEND_LAST_WITH_IMMEDIATE		= 0x03,
	RTE_ROCE_OP_RC_SEND_ONLY			= 0x04,
	RTE_ROCE_OP_RC_SEND_ONLY_WITH_IMMEDIATE		= 0x05,
	RTE_ROCE_OP_RC_RDMA_WRITE_FIRST			= 0x06,
	RTE_ROCE_OP_RC_RDMA_WRITE_MIDDLE		= 0x07,
	RTE_ROCE_OP_RC_RDMA_WRITE_LAST			= 0x08,
	RTE_ROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE	= 0x09,
	RTE_ROCE_OP_RC_RDMA_WRITE_ONLY			= 0x0a,
	RTE_ROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE	= 0x0b,
	RTE_ROCE_OP_RC_RDMA_READ_REQUEST		= 0x0c,
	RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST		= 0x0d,
	RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE	= 0x0e,
	RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_LAST		= 0x0f,
	RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY		= 0x10,
	RTE_ROCE_OP_RC_ACKNOWLEDGE			= 0x11,
	RTE_ROCE_OP_RC_ATOMIC_ACKNOWLEDGE		= 0x12,
	RTE_ROCE_OP_RC_COMPARE_SWAP			= 0x13,
	RTE_ROCE_OP_RC_FETCH_ADD			= 0x14,
	RTE_ROCE_OP_RC_SEND_LAST_WITH_INVALIDATE	= 0x16,
	RTE_ROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE	= 0x17,
	RTE_ROCE_OP_RC_FLUSH				= 0x1c,
	RTE_ROCE_OP_RC_ATOMIC_WRITE			= 0x1d,

	RTE_ROCE_OP_UC_SEND_FIRST			= 0x20,
	RTE_ROCE_OP_UC_SEND_MIDDLE			= 0x21,
	RTE_ROCE_OP_UC_SEND_LAST			= 0x22,
	RTE_ROCE_OP_UC_SEND_LAST_WITH_IMMEDIATE		= 0x23,
	RTE_ROCE_OP_UC_SEND_ONLY			= 0x24,
	RTE_ROCE_OP_UC_SEND_ONLY_WITH_IMMEDIATE		= 0x25,
	RTE_ROCE_OP_UC_RDMA_WRITE_FIRST			= 0x26,
	RTE_ROCE_OP_UC_RDMA_WRITE_MIDDLE		= 0x27,
	RTE_ROCE_OP_UC_RDMA_WRITE_LAST			= 0x28,
	RTE_ROCE_OP_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE	= 0x29,
	RTE_ROCE_OP_UC_RDMA_WRITE_ONLY			= 0x2a,
	RTE_ROCE_OP_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE	= 0x2b,

	RTE_ROCE_OP_UD_SEND_ONLY			= 0x64,
	RTE_ROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE		= 0x65,

	/** Congestion Notification Packet (IBA A17.9.3). */
	RTE_ROCE_OP_CNP					= 0x81,
};

/** Bits 7:5 of an opcode select the transport. */
#define RTE_ROCE_OPCODE_TRANSPORT_SHIFT 5

/** Transport of an opcode: the value of its bits 7:5. */
enum rte_roce_transport {
	RTE_ROCE_TRANSPORT_RC	= 0,	/**< Reliable connected. */
	RTE_ROCE_TRANSPORT_UC	= 1,	/**< Unreliable connected. */
	RTE_ROCE_TRANSPORT_RD	= 2,	/**< Reliable datagram: no table entries. */
	RTE_ROCE_TRANSPORT_UD	= 3,	/**< Unreliable datagram. */
	RTE_ROCE_TRANSPORT_CNP	= 4,	/**< Congestion notification. */
	RTE_ROCE_TRANSPORT_XRC	= 5,	/**< Extended RC: no table entries. */
};

/**
 * Send work request opcode of a FLUSH (IBA A19), rdma-core 45's IBV_WR_FLUSH:
 * Debian 12's rdma-core 44 lacks it (rte_roce_verbs.h, rte_roce_wr_flush()).
 */
#define RTE_ROCE_WR_FLUSH		14
/** Completion opcode of a FLUSH, rdma-core 45's IBV_WC_FLUSH. */
#define RTE_ROCE_WC_FLUSH		8

/** Extension headers, the index of rte_roce_opcode_info.hdr_off[]. */
enum rte_roce_hdr_type {
	RTE_ROCE_HDR_RETH,	/**< struct rte_roce_reth */
	RTE_ROCE_HDR_AETH,	/**< struct rte_roce_aeth */
	RTE_ROCE_HDR_ATMETH,	/**< struct rte_roce_atmeth */
	RTE_ROCE_HDR_ATMACK,	/**< struct rte_roce_atmack */
	RTE_ROCE_HDR_DETH,	/**< struct rte_roce_deth */
	RTE_ROCE_HDR_IMMDT,	/**< struct rte_roce_immdt */
	RTE_ROCE_HDR_IETH,	/**< struct rte_roce_ieth */
	RTE_ROCE_HDR_FETH,	/**< struct rte_roce_feth */
	RTE_ROCE_HDR_CNP,	/**< struct rte_roce_cnp */
	RTE_ROCE_HDR_MAX	/**< Number of extension header types. */
};

/** Most extension headers after one BTH (FLUSH: FETH + RETH). */
#define RTE_ROCE_OPCODE_HDRS_MAX 2

/** Longest transport header: BTH + AtomicETH. */
#define RTE_ROCE_TRANSPORT_HDR_MAX (RTE_ROCE_BTH_LEN + RTE_ROCE_ATMETH_LEN)

/** Position of a packet within its message. */
enum rte_roce_op_pos {
	RTE_ROCE_POS_FIRST,	/**< First of several packets. */
	RTE_ROCE_POS_MIDDLE,	/**< Neither first nor last. */
	RTE_ROCE_POS_LAST,	/**< Last of several packets. */
	RTE_ROCE_POS_ONLY,	/**< The whole message. */
};

/** @name Opcode flags (rte_roce_opcode_info.flags)
 * @{
 */
#define RTE_ROCE_OPF_REQ		UINT32_C(0x0001)	/**< Requester to responder. */
#define RTE_ROCE_OPF_RESP		UINT32_C(0x0002)	/**< Responder to requester. */
#define RTE_ROCE_OPF_SEND		UINT32_C(0x0004)	/**< A SEND. */
#define RTE_ROCE_OPF_WRITE		UINT32_C(0x0008)	/**< An RDMA WRITE. */
#define RTE_ROCE_OPF_READ		UINT32_C(0x0010)	/**< READ request or response. */
#define RTE_ROCE_OPF_ATOMIC		UINT32_C(0x0020)	/**< COMPARE_SWAP/FETCH_ADD or their ACK. */
#define RTE_ROCE_OPF_ACK		UINT32_C(0x0040)	/**< ACKNOWLEDGE or ATOMIC_ACKNOWLEDGE. */
#define RTE_ROCE_OPF_FLUSH		UINT32_C(0x0080)	/**< FLUSH (IBA A19). */
#define RTE_ROCE_OPF_ATOMIC_WRITE	UINT32_C(0x0100)	/**< ATOMIC_WRITE (IBA A19). */
#define RTE_ROCE_OPF_CNP		UINT32_C(0x0200)	/**< Congestion notification. */
#define RTE_ROCE_OPF_PAYLOAD		UINT32_C(0x0400)	/**< May carry a payload. */
#define RTE_ROCE_OPF_IMM		UINT32_C(0x0800)	/**< Carries immediate data. */
#define RTE_ROCE_OPF_INV		UINT32_C(0x1000)	/**< Invalidates an R_Key. */
/** @} */

/** One opcode's entry in the table. */
struct rte_roce_opcode_info {
	const char *name;		/**< e.g. "RC_SEND_FIRST". */
	uint8_t opcode;			/**< The opcode. */
	uint8_t transport;		/**< enum rte_roce_transport. */
	uint8_t pos;			/**< enum rte_roce_op_pos. */
	uint8_t nb_hdrs;		/**< Number of extension headers. */
	uint8_t hdr[RTE_ROCE_OPCODE_HDRS_MAX];	/**< enum rte_roce_hdr_type, wire order. */
	uint8_t hdr_len;		/**< BTH plus every extension header, bytes. */
	uint8_t payload_fixed;		/**< Exact payload size if non-zero (ATOMIC_WRITE: 8). */
	uint32_t flags;			/**< RTE_ROCE_OPF_*. */
	uint32_t hdr_mask;		/**< Bit (1 << type) set for each header present. */
	/** Offset of each present header from the start of the BTH; 0 if absent. */
	uint8_t hdr_off[RTE_ROCE_HDR_MAX];
};

/**
 * Look an opcode up.
 *
 * @param opcode
 *   Any byte.
 * @return
 *   Its entry, or NULL if the opcode is reserved or of an unsupported
 *   transport (RD, XRC, vendor).
 */
const struct rte_roce_opcode_info *
rte_roce_opcode_info(uint8_t opcode);

/**
 * The name of an opcode, such as "RC_SEND_FIRST" or "CNP".
 *
 * @param opcode
 *   Any byte.
 * @return
 *   The name, or NULL if rte_roce_opcode_info() has no entry for it (callers
 *   that print should fall back to the hex value).
 */
const char *
rte_roce_opcode_name(uint8_t opcode);

/**
 * Tell whether a packet may follow another one in the same direction of one
 * QP: requests (requester to responder) and responses (responder to
 * requester) are separate sequences. After a FIRST or MIDDLE packet only a
 * MIDDLE or LAST of the same operation (SEND, WRITE, READ response) of the
 * same transport may follow; after a LAST or ONLY, any FIRST or ONLY of the
 * same transport and direction. Any UD opcode may follow any UD opcode.
 * CNPs belong to no sequence.
 *
 * @param prev
 *   Opcode of the previous packet.
 * @param next
 *   Opcode of the next packet.
 * @return
 *   true if next may follow prev; false otherwise, or if either is unknown.
 */
bool
rte_roce_opcode_may_follow(uint8_t prev, uint8_t next);

/**
 * Offset of an extension header from the start of the BTH.
 *
 * @param info
 *   An opcode entry.
 * @param type
 *   enum rte_roce_hdr_type.
 * @return
 *   The offset, or 0 if the opcode has no such header.
 */
static inline uint32_t
rte_roce_opcode_hdr_off(const struct rte_roce_opcode_info *info, enum rte_roce_hdr_type type)
{
	return (info->hdr_mask & (UINT32_C(1) << type)) != 0 ? info->hdr_off[type] : 0;
}

/** @return true if the packet starts a message (FIRST or ONLY). */
static inline bool
rte_roce_opcode_is_start(const struct rte_roce_opcode_info *info)
{
	return info->pos == RTE_ROCE_POS_FIRST || info->pos == RTE_ROCE_POS_ONLY;
}

/** @return true if the packet ends a message (LAST or ONLY). */
static inline bool
rte_roce_opcode_is_end(const struct rte_roce_opcode_info *info)
{
	return info->pos == RTE_ROCE_POS_LAST || info->pos == RTE_ROCE_POS_ONLY;
}

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_OPCODE_H */
