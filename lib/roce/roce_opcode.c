/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The opcode table: one designated initializer per opcode, indexed by the
 * wire value. An entry names its extension headers in wire order; the
 * ROCE_HDRS*() macros derive the offsets, the presence mask and the total
 * header length from that list, so nothing is summed by hand.
 * Layouts: K:rxe_opcode.c, K:include/rdma/ib_pack.h; FLUSH and ATOMIC_WRITE:
 * IBA A19 (doc/wire-format.md §3).
 */

#include <stddef.h>

#include <rte_common.h>

#include "roce_opcode.h"

#define ROCE_HDR_LEN(h)		RTE_ROCE_ ## h ## _LEN
#define ROCE_HDR_BIT(h)		(UINT32_C(1) << RTE_ROCE_HDR_ ## h)

#define ROCE_HDRS0() \
	.nb_hdrs = 0, \
	.hdr_len = RTE_ROCE_BTH_LEN

#define ROCE_HDRS1(a) \
	.nb_hdrs = 1, \
	.hdr = { RTE_ROCE_HDR_ ## a }, \
	.hdr_mask = ROCE_HDR_BIT(a), \
	.hdr_off[RTE_ROCE_HDR_ ## a] = RTE_ROCE_BTH_LEN, \
	.hdr_len = RTE_ROCE_BTH_LEN + ROCE_HDR_LEN(a)

#define ROCE_HDRS2(a, b) \
	.nb_hdrs = 2, \
	.hdr = { RTE_ROCE_HDR_ ## a, RTE_ROCE_HDR_ ## b }, \
	.hdr_mask = ROCE_HDR_BIT(a) | ROCE_HDR_BIT(b), \
	.hdr_off[RTE_ROCE_HDR_ ## a] = RTE_ROCE_BTH_LEN, \
	.hdr_off[RTE_ROCE_HDR_ ## b] = RTE_ROCE_BTH_LEN + ROCE_HDR_LEN(a), \
	.hdr_len = RTE_ROCE_BTH_LEN + ROCE_HDR_LEN(a) + ROCE_HDR_LEN(b)

/* One entry: the transport comes from the opcode's bits 7:5. */
#define ROCE_OP(op, position, fl, hdrs) \
	[RTE_ROCE_OP_ ## op] = { \
		.name = #op, \
		.opcode = RTE_ROCE_OP_ ## op, \
		.transport = RTE_ROCE_OP_ ## op >> RTE_ROCE_OPCODE_TRANSPORT_SHIFT, \
		.pos = RTE_ROCE_POS_ ## position, \
		.flags = (fl), \
		hdrs, \
	}

#define SEND_REQ	(RTE_ROCE_OPF_REQ | RTE_ROCE_OPF_SEND | RTE_ROCE_OPF_PAYLOAD)
#define WRITE_REQ	(RTE_ROCE_OPF_REQ | RTE_ROCE_OPF_WRITE | RTE_ROCE_OPF_PAYLOAD)
#define READ_RESP	(RTE_ROCE_OPF_RESP | RTE_ROCE_OPF_READ | RTE_ROCE_OPF_PAYLOAD)
#define IMM		RTE_ROCE_OPF_IMM

/* SEND and RDMA WRITE are laid out alike in RC and UC (K:rxe_opcode.c). */
#define ROCE_SEND_WRITE_OPS(t) \
	ROCE_OP(t ## _SEND_FIRST, FIRST, SEND_REQ, ROCE_HDRS0()), \
	ROCE_OP(t ## _SEND_MIDDLE, MIDDLE, SEND_REQ, ROCE_HDRS0()), \
	ROCE_OP(t ## _SEND_LAST, LAST, SEND_REQ, ROCE_HDRS0()), \
	ROCE_OP(t ## _SEND_LAST_WITH_IMMEDIATE, LAST, SEND_REQ | IMM, ROCE_HDRS1(IMMDT)), \
	ROCE_OP(t ## _SEND_ONLY, ONLY, SEND_REQ, ROCE_HDRS0()), \
	ROCE_OP(t ## _SEND_ONLY_WITH_IMMEDIATE, ONLY, SEND_REQ | IMM, ROCE_HDRS1(IMMDT)), \
	ROCE_OP(t ## _RDMA_WRITE_FIRST, FIRST, WRITE_REQ, ROCE_HDRS1(RETH)), \
	ROCE_OP(t ## _RDMA_WRITE_MIDDLE, MIDDLE, WRITE_REQ, ROCE_HDRS0()), \
	ROCE_OP(t ## _RDMA_WRITE_LAST, LAST, WRITE_REQ, ROCE_HDRS0()), \
	ROCE_OP(t ## _RDMA_WRITE_LAST_WITH_IMMEDIATE, LAST, WRITE_REQ | IMM, ROCE_HDRS1(IMMDT)), \
	ROCE_OP(t ## _RDMA_WRITE_ONLY, ONLY, WRITE_REQ, ROCE_HDRS1(RETH)), \
	ROCE_OP(t ## _RDMA_WRITE_ONLY_WITH_IMMEDIATE, ONLY, WRITE_REQ | IMM, ROCE_HDRS2(RETH, IMMDT))

const struct rte_roce_opcode_info roce_opcodes[UINT8_MAX + 1] = {
	ROCE_SEND_WRITE_OPS(RC),
	ROCE_SEND_WRITE_OPS(UC),

	ROCE_OP(RC_RDMA_READ_REQUEST, ONLY, RTE_ROCE_OPF_REQ | RTE_ROCE_OPF_READ,
		ROCE_HDRS1(RETH)),
	/* The middle READ response has no AETH (K:rxe_opcode.c). */
	ROCE_OP(RC_RDMA_READ_RESPONSE_FIRST, FIRST, READ_RESP, ROCE_HDRS1(AETH)),
	ROCE_OP(RC_RDMA_READ_RESPONSE_MIDDLE, MIDDLE, READ_RESP, ROCE_HDRS0()),
	ROCE_OP(RC_RDMA_READ_RESPONSE_LAST, LAST, READ_RESP, ROCE_HDRS1(AETH)),
	ROCE_OP(RC_RDMA_READ_RESPONSE_ONLY, ONLY, READ_RESP, ROCE_HDRS1(AETH)),
	ROCE_OP(RC_ACKNOWLEDGE, ONLY, RTE_ROCE_OPF_RESP | RTE_ROCE_OPF_ACK, ROCE_HDRS1(AETH)),
	ROCE_OP(RC_ATOMIC_ACKNOWLEDGE, ONLY,
		RTE_ROCE_OPF_RESP | RTE_ROCE_OPF_ACK | RTE_ROCE_OPF_ATOMIC,
		ROCE_HDRS2(AETH, ATMACK)),
	ROCE_OP(RC_COMPARE_SWAP, ONLY, RTE_ROCE_OPF_REQ | RTE_ROCE_OPF_ATOMIC, ROCE_HDRS1(ATMETH)),
	ROCE_OP(RC_FETCH_ADD, ONLY, RTE_ROCE_OPF_REQ | RTE_ROCE_OPF_ATOMIC, ROCE_HDRS1(ATMETH)),
	ROCE_OP(RC_SEND_LAST_WITH_INVALIDATE, LAST, SEND_REQ | RTE_ROCE_OPF_INV, ROCE_HDRS1(IETH)),
	ROCE_OP(RC_SEND_ONLY_WITH_INVALIDATE, ONLY, SEND_REQ | RTE_ROCE_OPF_INV, ROCE_HDRS1(IETH)),
	/* FETH precedes the RETH; oA19-2: FLUSH has no payload (K:rxe_opcode.c). */
	ROCE_OP(RC_FLUSH, ONLY, RTE_ROCE_OPF_REQ | RTE_ROCE_OPF_FLUSH, ROCE_HDRS2(FETH, RETH)),
	/* The 8-byte value to write is the payload (K:rxe_opcode.c). */
	[RTE_ROCE_OP_RC_ATOMIC_WRITE] = {
		.name = "RC_ATOMIC_WRITE",
		.opcode = RTE_ROCE_OP_RC_ATOMIC_WRITE,
		.transport = RTE_ROCE_TRANSPORT_RC,
		.pos = RTE_ROCE_POS_ONLY,
		.flags = RTE_ROCE_OPF_REQ | RTE_ROCE_OPF_ATOMIC_WRITE | RTE_ROCE_OPF_PAYLOAD,
		.payload_fixed = RTE_ROCE_ATOMIC_WRITE_LEN,
		ROCE_HDRS1(RETH),
	},

	ROCE_OP(UD_SEND_ONLY, ONLY, SEND_REQ, ROCE_HDRS1(DETH)),
	ROCE_OP(UD_SEND_ONLY_WITH_IMMEDIATE, ONLY, SEND_REQ | IMM, ROCE_HDRS2(DETH, IMMDT)),

	/* IBA A17.9.3: 16 reserved bytes follow the BTH; no payload. */
	ROCE_OP(CNP, ONLY, RTE_ROCE_OPF_CNP, ROCE_HDRS1(CNP)),
};

/* Operations a multi-packet message can be made of. */
#define ROCE_OPF_MESSAGE (RTE_ROCE_OPF_SEND | RTE_ROCE_OPF_WRITE | RTE_ROCE_OPF_READ)
#define ROCE_OPF_DIRECTION (RTE_ROCE_OPF_REQ | RTE_ROCE_OPF_RESP)

const struct rte_roce_opcode_info *
rte_roce_opcode_info(uint8_t opcode)
{
	return roce_opcode_info(opcode);
}

const char *
rte_roce_opcode_name(uint8_t opcode)
{
	return roce_opcodes[opcode].name;
}

/* The rule of rte_roce_opcode_may_follow(), tabulated at load. */
static bool
roce_opcode_follows(uint8_t prev, uint8_t next)
{
	const struct rte_roce_opcode_info *p = rte_roce_opcode_info(prev);
	const struct rte_roce_opcode_info *n = rte_roce_opcode_info(next);

	if (p == NULL || n == NULL || p->transport != n->transport ||
	    p->transport == RTE_ROCE_TRANSPORT_CNP)
		return false;
	/* UD: every packet is a whole message, and UD has no responses. */
	if (p->transport == RTE_ROCE_TRANSPORT_UD)
		return true;
	if ((p->flags & ROCE_OPF_DIRECTION) != (n->flags & ROCE_OPF_DIRECTION))
		return false;
	if (rte_roce_opcode_is_end(p))
		return rte_roce_opcode_is_start(n);
	/* Inside a message: only more of the same operation, until its LAST. */
	return !rte_roce_opcode_is_start(n) &&
	       (p->flags & ROCE_OPF_MESSAGE) == (n->flags & ROCE_OPF_MESSAGE);
}

/*
 * Every pair's answer, one bit each (8 KiB): the responder asks once per
 * request packet, and the rule's two table lookups and five tests cost ~60
 * instructions a packet under callgrind, the bit ~5.
 */
uint64_t roce_follow[UINT8_MAX + 1][(UINT8_MAX + 1) / ROCE_FOLLOW_WORD_BITS];

RTE_INIT(roce_opcode_follow_init)
{
	unsigned int prev, next;

	for (prev = 0; prev <= UINT8_MAX; prev++)
		for (next = 0; next <= UINT8_MAX; next++)
			if (roce_opcode_follows(prev, next))
				roce_follow[prev][next / ROCE_FOLLOW_WORD_BITS] |=
					UINT64_C(1) << (next % ROCE_FOLLOW_WORD_BITS);
}

bool
rte_roce_opcode_may_follow(uint8_t prev, uint8_t next)
{
	return roce_opcode_may_follow(prev, next);
}
