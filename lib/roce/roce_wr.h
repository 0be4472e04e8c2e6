/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_WR_H
#define ROCE_WR_H

/*
 * What each send work request opcode is (private): which QP types take it,
 * how post_send checks it, which wire opcode each of its packets carries
 * and which completion it ends with. One table (roce_wr.c), beside the
 * opcode table (roce_opcode.c) and tied to it by tests/unit/test_wr.c: a
 * new work request is a row here, nothing else.
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "rte_roce_opcode.h"

/* The transports a work request can be posted on, as a row index of op[]. */
enum roce_wr_transport {
	ROCE_WR_T_RC,
	ROCE_WR_T_UC,
	ROCE_WR_T_UD,
	ROCE_WR_T_NB
};

/* Flags of a work request opcode. */
#define ROCE_WRF_INLINE		0x01	/* may carry IBV_SEND_INLINE */
#define ROCE_WRF_WRITES_LOCAL	0x02	/* the SGEs receive data: LOCAL_WRITE needed */
#define ROCE_WRF_READ		0x04	/* an RDMA READ: answered by READ responses */
#define ROCE_WRF_ATOMIC		0x08	/* one 8-byte SGE, 8-byte aligned; answered by an atomic ACK */
#define ROCE_WRF_SEND		0x10	/* a SEND: counted as rdma_sends (rxe) */
#define ROCE_WRF_LOCAL		0x20	/* run by the requester itself, no packet (bind, invalidate) */
/* FLUSH, ATOMIC_WRITE (IBA A19): one request, answered by a zero-length READ response */
#define ROCE_WRF_EMPTY_RESP	0x40

/* Work request opcodes the table knows: IBV_WR_RDMA_WRITE .. IBV_WR_ATOMIC_WRITE (gaps empty). */
#define ROCE_WR_NB (IBV_WR_ATOMIC_WRITE + 1)

struct roce_wr_info {
	uint8_t transports;	/* bit (1 << enum roce_wr_transport) per transport that takes it */
	uint8_t flags;		/* ROCE_WRF_* */
	uint8_t wc;		/* enum ibv_wc_opcode of its completion */
	/* Wire opcode by transport and packet position (enum rte_roce_op_pos); none if LOCAL. */
	uint8_t op[ROCE_WR_T_NB][RTE_ROCE_POS_ONLY + 1];
};

extern const struct roce_wr_info roce_wr_info[ROCE_WR_NB];

/* The transport row of a QP type; ROCE_WR_T_NB for one that sends nothing. */
static inline enum roce_wr_transport
roce_wr_transport(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return ROCE_WR_T_RC;
	case IBV_QPT_UC:
		return ROCE_WR_T_UC;
	case IBV_QPT_UD:
		return ROCE_WR_T_UD;
	default:
		return ROCE_WR_T_NB;
	}
}

/* The row of a work request opcode a QP of type may post; NULL if none. */
static inline const struct roce_wr_info *
roce_wr_info_get(uint32_t opcode, enum ibv_qp_type type)
{
	enum roce_wr_transport t = roce_wr_transport(type);

	if (opcode >= ROCE_WR_NB || t == ROCE_WR_T_NB ||
	    (roce_wr_info[opcode].transports & (1u << t)) == 0)
		return NULL;
	return &roce_wr_info[opcode];
}

/*
 * True for READ, the atomics, FLUSH and ATOMIC_WRITE: one request packet,
 * answered by a response that holds a responder resource (max_rd_atomic).
 */
static inline bool
roce_wr_is_rd_atomic(uint32_t opcode)
{
	return (roce_wr_info[opcode].flags &
		(ROCE_WRF_READ | ROCE_WRF_ATOMIC | ROCE_WRF_EMPTY_RESP)) != 0;
}

#endif /* ROCE_WR_H */
