/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The work request table (roce_wr.h): the wire opcode of each (work
 * request, transport, packet position), one table instead of rxe's
 * per-opcode switch ladders (K:rxe_req.c next_opcode_rc()). READ, the
 * atomics, FLUSH and ATOMIC_WRITE are single-packet requests: every
 * position maps to the same opcode. Which transports take which request: IBA 9.2 and 9.8 (the RC,
 * UC and UD rows of the opcode table, doc/wire-format.md §3). The local
 * operations (bind a memory window, invalidate a key) send nothing; RC and
 * UC take them, as rxe (K:rxe_opcode.c rxe_wr_opcode_info).
 */

#include "roce_wr.h"

#define WR_T(t) (1u << ROCE_WR_T_ ## t)

#define WR_OPS(t, first, middle, last, only) \
	[ROCE_WR_T_ ## t] = { \
		[RTE_ROCE_POS_FIRST] = RTE_ROCE_OP_ ## t ## _ ## first, \
		[RTE_ROCE_POS_MIDDLE] = RTE_ROCE_OP_ ## t ## _ ## middle, \
		[RTE_ROCE_POS_LAST] = RTE_ROCE_OP_ ## t ## _ ## last, \
		[RTE_ROCE_POS_ONLY] = RTE_ROCE_OP_ ## t ## _ ## only, \
	}
#define WR_OPS1(t, op) WR_OPS(t, op, op, op, op)
#define WR_SEND_OPS(t) WR_OPS(t, SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_ONLY)
#define WR_SEND_IMM_OPS(t) \
	WR_OPS(t, SEND_FIRST, SEND_MIDDLE, SEND_LAST_WITH_IMMEDIATE, SEND_ONLY_WITH_IMMEDIATE)
#define WR_WRITE_OPS(t) \
	WR_OPS(t, RDMA_WRITE_FIRST, RDMA_WRITE_MIDDLE, RDMA_WRITE_LAST, RDMA_WRITE_ONLY)
#define WR_WRITE_IMM_OPS(t) \
	WR_OPS(t, RDMA_WRITE_FIRST, RDMA_WRITE_MIDDLE, RDMA_WRITE_LAST_WITH_IMMEDIATE, \
	       RDMA_WRITE_ONLY_WITH_IMMEDIATE)

const struct roce_wr_info roce_wr_info[ROCE_WR_NB] = {
	[IBV_WR_SEND] = {
		.transports = WR_T(RC) | WR_T(UC) | WR_T(UD),
		.flags = ROCE_WRF_INLINE | ROCE_WRF_SEND,
		.wc = IBV_WC_SEND,
		.op = { WR_SEND_OPS(RC), WR_SEND_OPS(UC), WR_OPS1(UD, SEND_ONLY) },
	},
	[IBV_WR_SEND_WITH_IMM] = {
		.transports = WR_T(RC) | WR_T(UC) | WR_T(UD),
		.flags = ROCE_WRF_INLINE | ROCE_WRF_SEND,
		.wc = IBV_WC_SEND,
		.op = { WR_SEND_IMM_OPS(RC), WR_SEND_IMM_OPS(UC),
			WR_OPS1(UD, SEND_ONLY_WITH_IMMEDIATE) },
	},
	[IBV_WR_SEND_WITH_INV] = {
		.transports = WR_T(RC),
		.flags = ROCE_WRF_INLINE | ROCE_WRF_SEND,
		.wc = IBV_WC_SEND,
		.op = { WR_OPS(RC, SEND_FIRST, SEND_MIDDLE, SEND_LAST_WITH_INVALIDATE,
			       SEND_ONLY_WITH_INVALIDATE) },
	},
	[IBV_WR_RDMA_WRITE] = {
		.transports = WR_T(RC) | WR_T(UC),
		.flags = ROCE_WRF_INLINE,
		.wc = IBV_WC_RDMA_WRITE,
		.op = { WR_WRITE_OPS(RC), WR_WRITE_OPS(UC) },
	},
	[IBV_WR_RDMA_WRITE_WITH_IMM] = {
		.transports = WR_T(RC) | WR_T(UC),
		.flags = ROCE_WRF_INLINE,
		.wc = IBV_WC_RDMA_WRITE,
		.op = { WR_WRITE_IMM_OPS(RC), WR_WRITE_IMM_OPS(UC) },
	},
	[IBV_WR_RDMA_READ] = {
		.transports = WR_T(RC),
		.flags = ROCE_WRF_WRITES_LOCAL | ROCE_WRF_READ,
		.wc = IBV_WC_RDMA_READ,
		.op = { WR_OPS1(RC, RDMA_READ_REQUEST) },
	},
	[IBV_WR_ATOMIC_CMP_AND_SWP] = {
		.transports = WR_T(RC),
		.flags = ROCE_WRF_WRITES_LOCAL | ROCE_WRF_ATOMIC,
		.wc = IBV_WC_COMP_SWAP,
		.op = { WR_OPS1(RC, COMPARE_SWAP) },
	},
	[IBV_WR_LOCAL_INV] = {
		.transports = WR_T(RC) | WR_T(UC),
		.flags = ROCE_WRF_LOCAL,
		.wc = IBV_WC_LOCAL_INV,
	},
	[IBV_WR_BIND_MW] = {
		.transports = WR_T(RC) | WR_T(UC),
		.flags = ROCE_WRF_LOCAL,
		.wc = IBV_WC_BIND_MW,
	},
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = {
		.transports = WR_T(RC),
		.flags = ROCE_WRF_WRITES_LOCAL | ROCE_WRF_ATOMIC,
		.wc = IBV_WC_FETCH_ADD,
		.op = { WR_OPS1(RC, FETCH_ADD) },
	},
	/* IBA A19.4: FLUSH carries no data; ATOMIC_WRITE carries the 8 bytes it stores. */
	[RTE_ROCE_WR_FLUSH] = {
		.transports = WR_T(RC),
		.flags = ROCE_WRF_EMPTY_RESP,
		.wc = RTE_ROCE_WC_FLUSH,
		.op = { WR_OPS1(RC, FLUSH) },
	},
	[IBV_WR_ATOMIC_WRITE] = {
		.transports = WR_T(RC),
		.flags = ROCE_WRF_INLINE | ROCE_WRF_EMPTY_RESP,
		.wc = IBV_WC_ATOMIC_WRITE,
		.op = { WR_OPS1(RC, ATOMIC_WRITE) },
	},
};
