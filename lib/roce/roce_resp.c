/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Responder: request packets -> memory, receive completions, ACK/NAK,
 * READ responses, atomics, FLUSH and ATOMIC_WRITE (IBA chapter 9 and
 * annex A19; K:rxe_resp.c).
 *
 * A state machine run per received request: one small handler per check,
 * each returning the next state. Responses that may be many (READ) or must
 * keep their order behind them (ACKs, sequence and RNR NAKs) are sent by
 * roce_resp_run() from the progress loop: READ responses and atomic ACKs
 * (and the zero-length READ responses of FLUSH and ATOMIC_WRITE) first, in
 * request order, then one coalesced ACK for the highest AckReq
 * PSN of the burst, then a pending NAK. NAKs that move the QP to ERR
 * (invalid request, remote access) go out at once.
 */

#include <rte_atomic.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "rte_roce_hdr.h"
#include "rte_roce_opcode.h"
#include "rte_roce_pkt.h"
#include "roce_log.h"
#include "roce_opcode.h"
#include "roce_qp.h"
#include "roce_transport.h"

enum resp_state {
	RESP_CHECK_PSN,		/* expected, duplicate or ahead */
	RESP_CHECK_OP_SEQ,	/* may this opcode follow the previous one */
	RESP_CHECK_OP_VALID,	/* does the QP allow the operation */
	RESP_CHECK_RESOURCE,	/* receive WQE, responder resource */
	RESP_CHECK_LENGTH,	/* payload and RETH lengths */
	RESP_CHECK_RKEY,	/* R_Key, bounds, rights, alignment */
	RESP_EXECUTE,		/* place data, run the atomic, take a resource */
	RESP_INVALIDATE,	/* SEND with Invalidate: invalidate its R_Key */
	RESP_COMPLETE,		/* end of message: MSN, receive completion, ePSN */
	RESP_ACKNOWLEDGE,	/* schedule the ACK or responses */
	RESP_DUPLICATE,		/* answer a duplicate without executing it again */
	RESP_NAK_PSN,		/* request ahead of ePSN */
	RESP_RNR,		/* no receive WQE */
	RESP_ERR_INV_REQ,	/* invalid request: NAK, QP to ERR */
	RESP_ERR_ACCESS,	/* remote access error: NAK, QP to ERR */
	RESP_ERR_RECV_WQE,	/* the receive WQE cannot take the SEND: NAK, QP to ERR */
	RESP_ERR_INVALIDATE,	/* the R_Key to invalidate is not: NAK, QP to ERR */
	RESP_DONE,
};

/* State names, for the debug log (as rxe's resp_state_name[]). */
static const char *const resp_state_name[] = {
	[RESP_CHECK_PSN] = "CHECK_PSN",
	[RESP_CHECK_OP_SEQ] = "CHECK_OP_SEQ",
	[RESP_CHECK_OP_VALID] = "CHECK_OP_VALID",
	[RESP_CHECK_RESOURCE] = "CHECK_RESOURCE",
	[RESP_CHECK_LENGTH] = "CHECK_LENGTH",
	[RESP_CHECK_RKEY] = "CHECK_RKEY",
	[RESP_EXECUTE] = "EXECUTE",
	[RESP_INVALIDATE] = "INVALIDATE",
	[RESP_COMPLETE] = "COMPLETE",
	[RESP_ACKNOWLEDGE] = "ACKNOWLEDGE",
	[RESP_DUPLICATE] = "DUPLICATE",
	[RESP_NAK_PSN] = "NAK_PSN",
	[RESP_RNR] = "RNR",
	[RESP_ERR_INV_REQ] = "ERR_INV_REQ",
	[RESP_ERR_ACCESS] = "ERR_ACCESS",
	[RESP_ERR_RECV_WQE] = "ERR_RECV_WQE",
	[RESP_ERR_INVALIDATE] = "ERR_INVALIDATE",
	[RESP_DONE] = "DONE",
};

/* What a run works on. */
struct resp_ctx {
	enum resp_state from;		/* the state that led to the current one */
	struct roce_qp *qp;
	const struct rte_roce_pkt *pkt;
	const struct rte_mbuf *m;
	struct roce_recv_wqe *wqe;	/* receive WQE, SEND and WRITE_WITH_IMM */
	struct roce_mr *mr;		/* target of a WRITE packet or atomic */
	uint64_t va;			/* its host address (a window's translated) */
	enum ibv_wc_status status;	/* of the receive WQE, on error */
};

typedef enum resp_state (*resp_handler_t)(struct resp_ctx *ctx);

/* Requests answered from a responder resource, so that a duplicate is answered, not executed. */
#define RESP_OPF_RES	(RTE_ROCE_OPF_READ | RTE_ROCE_OPF_ATOMIC | RTE_ROCE_OPF_FLUSH | \
			 RTE_ROCE_OPF_ATOMIC_WRITE)

static inline bool
pkt_has(const struct rte_roce_pkt *pkt, uint32_t flags)
{
	return (pkt->info->flags & flags) != 0;
}

/* A message packet starting a message (FIRST or ONLY). */
static inline bool
pkt_start(const struct rte_roce_pkt *pkt)
{
	return rte_roce_opcode_is_start(pkt->info);
}

static inline bool
pkt_end(const struct rte_roce_pkt *pkt)
{
	return rte_roce_opcode_is_end(pkt->info);
}

/* Send one ACK, NAK or RNR NAK at once. false if it must wait for TX room. */
static bool
resp_send_ack(struct roce_qp *qp, uint8_t syndrome, uint32_t psn)
{
	struct rte_roce_pkt pkt;
	int ret;

	roce_qp_pkt_init(qp, &pkt, RTE_ROCE_OP_RC_ACKNOWLEDGE, psn);
	pkt.aeth.syndrome = syndrome;
	pkt.aeth.msn = qp->resp.msn;
	ret = roce_qp_xmit(qp, &pkt, NULL);
	if (ret == -ENOBUFS)
		return false;
	if (ret != 0)
		ROCE_COUNT(qp->lane->xstats.tx_errors);
	return true;
}

/*
 * UC: drop the rest of the message in progress, silently (doc/wire-format.md §6.7: no
 * NAK, no completion; what a WRITE placed stays placed). The QP takes up
 * again at the next FIRST or ONLY.
 */
static enum resp_state
resp_uc_drop(struct resp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;

	qp->resp.drop_msg = true;
	ROCE_COUNT(qp->lane->xstats.rx_drops[ROCE_RX_DROP_UC_MSG]);
	return RESP_DONE;
}

/*
 * UC PSN check (doc/wire-format.md §6.7; K:rxe_resp.c check_psn): a gap, or a message
 * being dropped, resynchronises on a FIRST or ONLY, whatever its PSN.
 */
static enum resp_state
resp_uc_check_psn(struct resp_ctx *ctx)
{
	struct roce_resp_state *resp = &ctx->qp->resp;

	if (!resp->drop_msg && ctx->pkt->psn == resp->psn)
		return RESP_CHECK_OP_SEQ;
	if (!pkt_start(ctx->pkt))
		return resp_uc_drop(ctx);
	resp->drop_msg = false;
	/* The sequence check starts afresh: a message boundary. */
	resp->opcode = RTE_ROCE_OP_UC_SEND_ONLY;
	return RESP_CHECK_OP_SEQ;
}

static enum resp_state
resp_check_psn(struct resp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;
	int32_t diff = rte_roce_psn_cmp(ctx->pkt->psn, qp->resp.psn);

	if (qp->ibv.qp_type == IBV_QPT_UC)
		return resp_uc_check_psn(ctx);
	if (diff > 0)
		return RESP_NAK_PSN;
	if (diff < 0)
		return RESP_DUPLICATE;
	qp->resp.nak_sent = false;
	return RESP_CHECK_OP_SEQ;
}

static enum resp_state
resp_check_op_seq(struct resp_ctx *ctx)
{
	/* Missing FIRST or LAST, or a message interleaved (K:rxe_resp.c check_op_seq). */
	if (roce_opcode_may_follow(ctx->qp->resp.opcode, ctx->pkt->opcode))
		return RESP_CHECK_OP_VALID;
	/* UC: a FIRST/ONLY after an unfinished message starts anew (the old one is lost). */
	if (ctx->qp->ibv.qp_type == IBV_QPT_UC) {
		if (!pkt_start(ctx->pkt))
			return resp_uc_drop(ctx);
		ROCE_COUNT(ctx->qp->lane->xstats.rx_drops[ROCE_RX_DROP_UC_MSG]);
		return RESP_CHECK_OP_VALID;
	}
	return RESP_ERR_INV_REQ;
}

/*
 * The access rights a FLUSH needs, one per placement type its FETH asks
 * (K:rxe_resp.c check_qp_attr_access, check_rkey); 0 for a FETH that asks
 * none or names an unknown placement type or selectivity (IBA A19.4.1.1).
 */
static int
resp_flush_access(uint32_t feth)
{
	uint32_t plt = feth & RTE_ROCE_FETH_PLT_MASK;
	int access = 0;

	if ((plt & ~(uint32_t)(RTE_ROCE_FETH_PLT_GLOBAL | RTE_ROCE_FETH_PLT_PERSISTENT)) != 0 ||
	    (feth & RTE_ROCE_FETH_SEL_MASK) > RTE_ROCE_FETH_SEL_MR)
		return 0;
	if (plt & RTE_ROCE_FETH_PLT_GLOBAL)
		access |= RTE_ROCE_ACCESS_FLUSH_GLOBAL;
	if (plt & RTE_ROCE_FETH_PLT_PERSISTENT)
		access |= RTE_ROCE_ACCESS_FLUSH_PERSISTENT;
	return access;
}

static enum resp_state
resp_check_op_valid(struct resp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;
	struct roce_qp *qp = ctx->qp;
	unsigned int access = qp->attr.qp_access_flags;
	unsigned int need;

	/* Operations the QP's access flags do not enable are invalid requests (K:rxe_resp.c). */
	if (pkt_has(pkt, RTE_ROCE_OPF_WRITE | RTE_ROCE_OPF_ATOMIC_WRITE) &&
	    !(access & IBV_ACCESS_REMOTE_WRITE))
		return RESP_ERR_INV_REQ;
	if (pkt_has(pkt, RTE_ROCE_OPF_READ) && !(access & IBV_ACCESS_REMOTE_READ))
		return RESP_ERR_INV_REQ;
	if (pkt_has(pkt, RTE_ROCE_OPF_ATOMIC) && !(access & IBV_ACCESS_REMOTE_ATOMIC))
		return RESP_ERR_INV_REQ;
	if (pkt_has(pkt, RTE_ROCE_OPF_FLUSH)) {
		need = (unsigned int)resp_flush_access(pkt->feth);
		if (need == 0 || (access & need) != need)
			return RESP_ERR_INV_REQ;
	}
	/*
	 * No responder resources at all (K:rxe_resp.c check_resource; rxe lets
	 * a FLUSH through, but it takes a resource here like the others).
	 */
	if (pkt_has(pkt, RESP_OPF_RES) && qp->attr.max_dest_rd_atomic == 0)
		return RESP_ERR_INV_REQ;
	return RESP_CHECK_RESOURCE;
}

static enum resp_state
resp_check_resource(struct resp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;
	struct roce_qp *qp = ctx->qp;

	/* A SEND, and the last packet of WRITE_WITH_IMM, consume a receive WQE. */
	if (pkt_has(pkt, RTE_ROCE_OPF_SEND) ||
	    (pkt_has(pkt, RTE_ROCE_OPF_IMM) && pkt_end(pkt))) {
		ctx->wqe = roce_rq_peek(ctx->qp);
		if (ctx->wqe == NULL) {
			/* mlx5 out_of_buffer: RC answers with an RNR NAK, UC drops. */
			ROCE_QP_STAT_INC(qp, out_of_buffer);
			return RESP_RNR;
		}
		/*
		 * Back-pressure instead of a CQ overrun (doc/workers.md): where
		 * a missing WQE would be refused, a full receive CQ is refused
		 * the same way, so the requester waits and retries. Slots kept
		 * for send completions (a CQ shared with send queues) are not
		 * room.
		 */
		if ((!pkt_has(pkt, RTE_ROCE_OPF_SEND) || pkt_start(pkt)) &&
		    roce_cq_room(ctx->qp->rcq) == 0) {
			ROCE_COUNT(ctx->qp->lane->xstats.cq_full_rnr);
			return RESP_RNR;
		}
	}
	return RESP_CHECK_LENGTH;
}

static enum resp_state
resp_check_length(struct resp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;
	struct roce_resp_state *resp = &ctx->qp->resp;
	uint32_t mtu = ctx->qp->mtu;
	uint32_t len = pkt->payload_len;

	/* ATOMIC_WRITE: the RETH names the 8 bytes it carries (K:rxe_resp.c check_rkey). */
	if (pkt_has(pkt, RTE_ROCE_OPF_ATOMIC_WRITE))
		return pkt->reth.len == RTE_ROCE_ATOMIC_WRITE_LEN ? RESP_CHECK_RKEY :
								      RESP_ERR_INV_REQ;
	/* A FLUSH's RETH length is at most 2^31 as any RETH's (IBA C9-94). */
	if (pkt_has(pkt, RTE_ROCE_OPF_FLUSH))
		return pkt->reth.len > ROCE_MAX_MSG_SIZE ? RESP_ERR_INV_REQ : RESP_CHECK_RKEY;
	if (!pkt_has(pkt, RTE_ROCE_OPF_SEND | RTE_ROCE_OPF_WRITE | RTE_ROCE_OPF_READ))
		return RESP_CHECK_RKEY;
	/* Segmentation: IBA C9-92 (K:rxe_resp.c rxe_resp_check_length). */
	switch (pkt->info->pos) {
	case RTE_ROCE_POS_FIRST:
	case RTE_ROCE_POS_MIDDLE:
		if (len != mtu)
			return RESP_ERR_INV_REQ;
		break;
	case RTE_ROCE_POS_LAST:
		if (len == 0 || len > mtu)
			return RESP_ERR_INV_REQ;
		break;
	default:
		if (len > mtu)
			return RESP_ERR_INV_REQ;
		break;
	}
	if (!pkt_has(pkt, RTE_ROCE_OPF_WRITE))
		return pkt_has(pkt, RTE_ROCE_OPF_READ) && pkt->reth.len > ROCE_MAX_MSG_SIZE ?
		       RESP_ERR_INV_REQ : RESP_CHECK_RKEY;
	/* RETH length at most 2^31 (IBA C9-94); the packets carry exactly it (K:rxe_resp.c). */
	if (pkt_start(pkt)) {
		if (pkt->reth.len > ROCE_MAX_MSG_SIZE ||
		    (pkt_end(pkt) ? len != pkt->reth.len : len >= pkt->reth.len))
			return RESP_ERR_INV_REQ;
	} else if (pkt_end(pkt) ? len != resp->write_resid : len >= resp->write_resid) {
		return RESP_ERR_INV_REQ;
	}
	return RESP_CHECK_RKEY;
}

/* Look the target of the packet up; ctx->mr holds a use of it on success. */
static enum resp_state
resp_check_rkey(struct resp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;
	struct roce_qp *qp = ctx->qp;
	uint32_t rkey;
	uint64_t len;
	int access;

	if (pkt_has(pkt, RTE_ROCE_OPF_ATOMIC)) {
		/* Atomics need 8-byte alignment, else invalid request (K:rxe_resp.c check_rkey). */
		if (pkt->atmeth.va & (ROCE_ATOMIC_SIZE - 1))
			return RESP_ERR_INV_REQ;
		ctx->va = pkt->atmeth.va;
		rkey = pkt->atmeth.rkey;
		len = ROCE_ATOMIC_SIZE;
		access = IBV_ACCESS_REMOTE_ATOMIC;
	} else if (pkt_has(pkt, RTE_ROCE_OPF_ATOMIC_WRITE)) {
		/* 8-byte aligned like an atomic, else invalid request (K:rxe_mr.c, IBA oA19-28). */
		if (pkt->reth.va & (RTE_ROCE_ATOMIC_WRITE_LEN - 1))
			return RESP_ERR_INV_REQ;
		ctx->va = pkt->reth.va;
		rkey = pkt->reth.rkey;
		len = RTE_ROCE_ATOMIC_WRITE_LEN;
		access = IBV_ACCESS_REMOTE_WRITE;
	} else if (pkt_has(pkt, RTE_ROCE_OPF_FLUSH)) {
		ctx->va = pkt->reth.va;
		rkey = pkt->reth.rkey;
		len = pkt->reth.len;
		access = resp_flush_access(pkt->feth);
		/* Selectivity MR: the whole region, whatever the RETH range says (K:rxe_resp.c). */
		if ((pkt->feth & RTE_ROCE_FETH_SEL_MASK) == RTE_ROCE_FETH_SEL_MR)
			return roce_mr_lookup_key(qp->dev, rkey, true, qp->ibv.pd, access,
						  &ctx->mr) == 0 ? RESP_EXECUTE : RESP_ERR_ACCESS;
		goto lookup;
	} else if (pkt_has(pkt, RTE_ROCE_OPF_READ)) {
		ctx->va = pkt->reth.va;
		rkey = pkt->reth.rkey;
		len = pkt->reth.len;
		access = IBV_ACCESS_REMOTE_READ;
	} else if (pkt_has(pkt, RTE_ROCE_OPF_WRITE)) {
		/* The whole range is checked on the first packet, each packet's on its own. */
		ctx->va = pkt_start(pkt) ? pkt->reth.va : qp->resp.write_va;
		rkey = pkt_start(pkt) ? pkt->reth.rkey : qp->resp.write_rkey;
		len = pkt_start(pkt) ? pkt->reth.len : pkt->payload_len;
		access = IBV_ACCESS_REMOTE_WRITE;
	} else {
		return RESP_EXECUTE;
	}
	/* A zero-length RDMA operation checks no R_Key (IBA C9-88); a FLUSH always does (rxe). */
	if (len == 0)
		return RESP_EXECUTE;
lookup:
	if (roce_rkey_lookup(qp, rkey, &ctx->va, len, access, &ctx->mr) != 0)
		return RESP_ERR_ACCESS;
	return RESP_EXECUTE;
}

/* Mark res as having responses to send (or not), keeping the QP's count of such resources. */
static void
resp_res_pending(struct roce_resp_state *resp, struct roce_resp_res *res, bool pending)
{
	if (res->pending == pending)
		return;
	res->pending = pending;
	if (pending)
		resp->res_pending++;
	else
		resp->res_pending--;
}

/* Take the next responder resource for pkt; the oldest is recycled (as rxe). */
static struct roce_resp_res *
resp_res_alloc(struct roce_qp *qp, const struct rte_roce_pkt *pkt, uint32_t npkts, uint64_t va,
	       uint32_t rkey)
{
	struct roce_resp_state *resp = &qp->resp;
	struct roce_resp_res *res = &resp->res[resp->res_head & (ROCE_RD_ATOM_MAX - 1)];

	resp->res_head++;
	resp_res_pending(resp, res, false);
	*res = (struct roce_resp_res){
		.valid = true,
		.opcode = pkt->opcode,
		.first_psn = pkt->psn,
		.last_psn = rte_roce_psn_add(pkt->psn, npkts - 1),
		.start_psn = pkt->psn,
		.cur_psn = pkt->psn,
		.va = va,
		.rkey = rkey,
	};
	resp_res_pending(resp, res, true);
	return res;
}

static void
resp_exec_send(struct resp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;
	const struct rte_roce_pkt *pkt = ctx->pkt;
	int err;

	if (pkt_start(pkt)) {
		qp->resp.recv_cur = (struct roce_sge_cursor){ 0, 0 };
		qp->resp.recv_len = 0;
	}
	err = roce_sge_scatter_mbuf(ctx->wqe->sge, ctx->wqe->num_sge, &qp->resp.recv_cur, ctx->m,
				    pkt->payload_off, pkt->payload_len);
	ctx->status = roce_copy_status(err);
	qp->resp.recv_len += pkt->payload_len;
}

static void
resp_exec_write(struct resp_ctx *ctx)
{
	struct roce_resp_state *resp = &ctx->qp->resp;
	const struct rte_roce_pkt *pkt = ctx->pkt;
	uint32_t len = pkt->payload_len;
	void *dst = (void *)(uintptr_t)ctx->va;
	const void *src;

	if (pkt_start(pkt)) {
		resp->write_va = pkt->reth.va;
		resp->write_rkey = pkt->reth.rkey;
		resp->write_len = pkt->reth.len;
		resp->write_resid = pkt->reth.len;
	}
	if (len > 0) {
		/* Copied once: straight from the mbuf, or gathered by rte_pktmbuf_read() into dst. */
		src = rte_pktmbuf_read(ctx->m, pkt->payload_off, len, dst);
		if (src != dst)
			memcpy(dst, src, len);
	}
	resp->write_va += len;
	resp->write_resid -= len;
}

static void
resp_exec_read(struct resp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;
	struct roce_resp_res *res;

	res = resp_res_alloc(ctx->qp, pkt, roce_msg_npkts(pkt->reth.len, ctx->qp->mtu), pkt->reth.va,
			     pkt->reth.rkey);
	res->len = pkt->reth.len;
}

/*
 * Atomics run with CPU atomics on the 64-bit word in host order, so they are
 * atomic against each other and against local CPU atomics (IBA chapter 9;
 * rxe operates on a u64 read from memory, K:rxe_resp.c atomic_reply).
 */
static void
resp_exec_atomic(struct resp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;
	uint64_t *p = (uint64_t *)(uintptr_t)ctx->va;
	uint64_t orig;

	if (pkt->opcode == RTE_ROCE_OP_RC_COMPARE_SWAP) {
		orig = pkt->atmeth.compare;
		/* On failure orig receives the current value: the original either way. */
		__atomic_compare_exchange_n(p, &orig, pkt->atmeth.swap_add, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(p, pkt->atmeth.swap_add, __ATOMIC_SEQ_CST);
	}
	resp_res_alloc(ctx->qp, pkt, 1, ctx->va, pkt->atmeth.rkey)->orig = orig;
}

/*
 * ATOMIC_WRITE (IBA A19.4.2): the 8 bytes land in one 64-bit store, as they
 * came (no byte swap, K:rxe_mr.c rxe_mr_do_atomic_write). Every earlier
 * request was executed before it (the responder runs them in PSN order);
 * the release makes their stores visible before the value to a CPU that
 * reads the value with acquire. A resource holds it: a duplicate is
 * answered, never stored again over what later requests wrote.
 */
static void
resp_exec_atomic_write(struct resp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;
	uint64_t value;
	const void *src;

	src = rte_pktmbuf_read(ctx->m, pkt->payload_off, sizeof(value), &value);
	if (src != &value)
		memcpy(&value, src, sizeof(value));
	__atomic_store_n((uint64_t *)(uintptr_t)ctx->va, value, __ATOMIC_RELEASE);
	resp_res_alloc(ctx->qp, pkt, 1, ctx->va, pkt->reth.rkey);
}

/*
 * FLUSH (IBA A19.4.1): every earlier request was executed before it, so
 * what they wrote is in memory; the store fence orders those stores before
 * the response for every CPU (global visibility). Registered memory on
 * this machine is ordinary memory, not persistent memory: the same fence is
 * all persistence can mean here (no cache-line write-back to a persistence
 * domain, doc/rc-engine.md). The range was checked (selectivity range) or
 * is the whole MR; a resource answers a duplicate without flushing again
 * (K:rxe_resp.c process_flush, oA19-14, oA19-15).
 */
static void
resp_exec_flush(struct resp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;

	rte_wmb();
	resp_res_alloc(ctx->qp, pkt, 1, pkt->reth.va, pkt->reth.rkey);
}

static enum resp_state
resp_execute(struct resp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;

	if (pkt_has(pkt, RTE_ROCE_OPF_SEND)) {
		resp_exec_send(ctx);
		if (ctx->status != IBV_WC_SUCCESS)
			return RESP_ERR_RECV_WQE;
		if (pkt_has(pkt, RTE_ROCE_OPF_INV))
			return RESP_INVALIDATE;
	} else if (pkt_has(pkt, RTE_ROCE_OPF_WRITE)) {
		resp_exec_write(ctx);
	} else if (pkt_has(pkt, RTE_ROCE_OPF_READ)) {
		resp_exec_read(ctx);
	} else if (pkt_has(pkt, RTE_ROCE_OPF_ATOMIC_WRITE)) {
		resp_exec_atomic_write(ctx);
	} else if (pkt_has(pkt, RTE_ROCE_OPF_FLUSH)) {
		resp_exec_flush(ctx);
	} else {
		resp_exec_atomic(ctx);
	}
	return RESP_COMPLETE;
}

/*
 * The last packet of a SEND with Invalidate, its data placed: the R_Key of
 * its IETH (an MR's or a type 2 window's of this QP's PD) is invalid from
 * now on, before the receive completion reports it (K:rxe_resp.c
 * do_complete).
 */
static enum resp_state
resp_invalidate(struct resp_ctx *ctx)
{
	return roce_rkey_invalidate(ctx->qp, ctx->pkt->ieth_rkey) == 0 ? RESP_COMPLETE :
									   RESP_ERR_INVALIDATE;
}

/* Receive completion of a SEND or WRITE_WITH_IMM (K:rxe_resp.c do_complete). */
static bool
resp_post_recv(struct resp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;
	struct roce_qp *qp = ctx->qp;
	struct ibv_wc wc = {
		.wr_id = ctx->wqe->wr_id,
		.status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV,
		.byte_len = qp->resp.recv_len,
		.qp_num = qp->ibv.qp_num,
		.src_qp = qp->attr.dest_qp_num,
	};
	int ret;

	if (pkt_has(pkt, RTE_ROCE_OPF_WRITE)) {
		wc.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		wc.byte_len = qp->resp.write_len;
	}
	if (pkt_has(pkt, RTE_ROCE_OPF_IMM)) {
		wc.wc_flags = IBV_WC_WITH_IMM;
		wc.imm_data = pkt->imm;
	} else if (pkt_has(pkt, RTE_ROCE_OPF_INV)) {
		wc.wc_flags = IBV_WC_WITH_INV;
		wc.invalidated_rkey = pkt->ieth_rkey;
	}
	/* Consumed first: a poller on another thread may post again at once. */
	roce_rq_consume(qp);
	/* The message's last packet: its SE bit wakes a solicited-only arming (IBA 11.4.2.2). */
	ret = roce_cq_push_se(qp->rcq, &wc, pkt->se);
	/* rxe's rdma_recvs: receive completions in success (K:rxe_resp.c do_complete). */
	if (ret == 0)
		ROCE_QP_STAT_INC(qp, rdma_recvs);
	return ret == 0;
}

static enum resp_state
resp_complete(struct resp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;
	struct roce_qp *qp = ctx->qp;
	struct roce_resp_state *resp = &qp->resp;
	uint32_t next = rte_roce_psn_add(pkt->psn, 1);

	resp->opcode = pkt->opcode;
	if (pkt_has(pkt, RTE_ROCE_OPF_READ))
		/* ePSN skips one PSN per READ response (doc/wire-format.md §6.3). */
		next = rte_roce_psn_add(resp->res[(resp->res_head - 1) & (ROCE_RD_ATOM_MAX - 1)].last_psn, 1);
	resp->psn = next;
	if (!pkt_end(pkt))
		return RESP_ACKNOWLEDGE;
	/* MSN counts completed requests, a READ at receipt (C9-148; doc/wire-format.md §5.5). */
	resp->msn = (resp->msn + 1) & RTE_ROCE_MSN_MASK;
	if (ctx->wqe != NULL && !resp_post_recv(ctx)) {
		roce_qp_error(qp);
		return RESP_DONE;
	}
	return RESP_ACKNOWLEDGE;
}

static enum resp_state
resp_acknowledge(struct resp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;
	struct roce_resp_state *resp = &ctx->qp->resp;

	/*
	 * Only packets with AckReq are acknowledged; READ, atomics, FLUSH and
	 * ATOMIC_WRITE are always answered, from their resource (K:rxe_resp.c).
	 */
	if (ctx->qp->ibv.qp_type != IBV_QPT_RC)
		return RESP_DONE;
	if (pkt->ackreq && !pkt_has(pkt, RESP_OPF_RES)) {
		resp->ack_pending = true;
		resp->ack_psn = pkt->psn;
	}
	roce_dev_qp_schedule(ctx->qp->dev, ctx->qp);
	return RESP_DONE;
}

/* The resource a duplicate READ/atomic/FLUSH/ATOMIC_WRITE asks to replay, or NULL (K:rxe_resp.c). */
static struct roce_resp_res *
resp_res_find(struct roce_qp *qp, const struct rte_roce_pkt *pkt)
{
	struct roce_resp_res *res;
	unsigned int i;

	for (i = 0; i < ROCE_RD_ATOM_MAX; i++) {
		res = &qp->resp.res[i];
		if (res->valid && res->opcode == pkt->opcode &&
		    rte_roce_psn_cmp(pkt->psn, res->first_psn) >= 0 &&
		    rte_roce_psn_cmp(pkt->psn, res->last_psn) <= 0)
			return res;
	}
	return NULL;
}

static enum resp_state
resp_duplicate(struct resp_ctx *ctx)
{
	const struct rte_roce_pkt *pkt = ctx->pkt;
	struct roce_qp *qp = ctx->qp;
	struct roce_resp_state *resp = &qp->resp;
	struct roce_resp_res *res;
	uint64_t off;

	if (!pkt_has(pkt, RESP_OPF_RES)) {
		/* SEND/WRITE: acknowledge again up to ePSN - 1 (IBA C9-105; K:rxe_resp.c). */
		resp->ack_pending = true;
		resp->ack_psn = rte_roce_psn_add(resp->psn, RTE_ROCE_PSN_MASK);
		goto answered;
	}
	res = resp_res_find(qp, pkt);
	if (res == NULL)
		goto drop;
	if (pkt_has(pkt, RTE_ROCE_OPF_READ)) {
		/* Replay only a sub-range of the same READ (K:rxe_resp.c duplicate_request). */
		off = (uint64_t)((pkt->psn - res->first_psn) & RTE_ROCE_PSN_MASK) * qp->mtu;
		if (pkt->reth.rkey != res->rkey || pkt->reth.va != res->va + off ||
		    pkt->reth.len != res->len - off)
			goto drop;
	}
	/*
	 * An atomic, ATOMIC_WRITE or FLUSH is never executed twice: its saved
	 * answer goes out again (K:rxe_resp.c duplicate_request).
	 */
	res->start_psn = pkt->psn;
	res->cur_psn = pkt->psn;
	resp_res_pending(&qp->resp, res, true);
answered:
	ROCE_QP_STAT_INC(qp, duplicate_request);
	roce_dev_qp_schedule(qp->dev, qp);
	return RESP_DONE;
drop:
	ROCE_COUNT(qp->lane->xstats.rx_drops[ROCE_RX_DROP_REQ_DUP]);
	return RESP_DONE;
}

static enum resp_state
resp_nak_psn(struct resp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;
	struct roce_resp_state *resp = &qp->resp;

	ROCE_QP_STAT_INC(qp, out_of_seq_request);
	/* One sequence NAK, then silence until ePSN arrives (K:rxe_resp.c, class B). */
	if (resp->nak_sent) {
		ROCE_COUNT(qp->lane->xstats.rx_drops[ROCE_RX_DROP_REQ_AHEAD]);
		return RESP_DONE;
	}
	resp->nak_sent = true;
	resp->nak_pending = true;
	resp->nak_syndrome = RTE_ROCE_AETH_NAK_PSN_SEQ;
	resp->nak_psn = resp->psn;
	ROCE_COUNT(qp->lane->xstats.seq_naks_out);
	roce_dev_qp_schedule(qp->dev, qp);
	return RESP_DONE;
}

static enum resp_state
resp_rnr(struct resp_ctx *ctx)
{
	struct roce_qp *qp = ctx->qp;
	struct roce_resp_state *resp = &qp->resp;

	/* UC has no RNR NAK: the message is dropped (K:rxe_resp.c, RESPST_ERR_RNR). */
	if (qp->ibv.qp_type == IBV_QPT_UC) {
		ROCE_COUNT(qp->lane->xstats.rx_drops[ROCE_RX_DROP_NO_RECV_WQE]);
		return resp_uc_drop(ctx);
	}

	/*
	 * RNR NAK with the refused PSN; nothing consumed (doc/wire-format.md §5.3). The
	 * requester goes back to that PSN, so the packets behind it are
	 * dropped silently like after a sequence NAK: a sequence NAK for them
	 * would make it spend retry_cnt on what is only an RNR wait.
	 */
	resp->nak_sent = true;
	resp->nak_pending = true;
	resp->nak_syndrome = rte_roce_aeth_rnr_syndrome(qp->attr.min_rnr_timer);
	resp->nak_psn = ctx->pkt->psn;
	ROCE_QP_STAT_INC(qp, send_rnr_err);
	roce_dev_qp_schedule(qp->dev, qp);
	return RESP_DONE;
}

/*
 * Class A / C / D1 errors (IBA error classes, named as in K:rxe_resp.c): NAK
 * with the packet's PSN, the receive WQE in use (if any) completes with
 * status, the QP goes to ERR and flushes the rest (K:rxe_resp.c
 * do_class_ac_error, do_class_d1e_error).
 */
static enum resp_state
resp_fatal(struct resp_ctx *ctx, uint8_t syndrome, enum ibv_wc_status status)
{
	struct roce_qp *qp = ctx->qp;
	struct roce_resp_state *resp = &qp->resp;
	struct ibv_wc wc;

	ROCE_LOG(DEBUG, "QP %u: %s: %s at PSN %u after %s: NAK 0x%02x, QP to ERR",
		 qp->ibv.qp_num, resp_state_name[ctx->from], ctx->pkt->info->name, ctx->pkt->psn,
		 rte_roce_opcode_name(resp->opcode), syndrome);
	/* Best effort: the QP stops here, a NAK lost leaves the requester to its timer. */
	if (resp->ack_pending)
		(void)resp_send_ack(qp, RTE_ROCE_AETH_ACK_UNLIMITED, resp->ack_psn);
	resp->ack_pending = false;
	if (qp->ibv.qp_type == IBV_QPT_RC)
		(void)resp_send_ack(qp, syndrome, ctx->pkt->psn);
	if (ctx->wqe != NULL && pkt_has(ctx->pkt, RTE_ROCE_OPF_SEND)) {
		wc = (struct ibv_wc){
			.wr_id = ctx->wqe->wr_id,
			.status = status,
			.opcode = IBV_WC_RECV,
			.qp_num = qp->ibv.qp_num,
		};
		roce_rq_consume(qp);
		(void)roce_cq_push(qp->rcq, &wc);
	}
	roce_qp_error(qp);
	return RESP_DONE;
}

/* UC drops what RC answers with an invalid-request or access NAK (K:rxe_resp.c). */
static enum resp_state
resp_err_inv_req(struct resp_ctx *ctx)
{
	if (ctx->qp->ibv.qp_type == IBV_QPT_UC)
		return resp_uc_drop(ctx);
	return resp_fatal(ctx, RTE_ROCE_AETH_NAK_INV_REQ, IBV_WC_REM_INV_REQ_ERR);
}

static enum resp_state
resp_err_access(struct resp_ctx *ctx)
{
	if (ctx->qp->ibv.qp_type == IBV_QPT_UC)
		return resp_uc_drop(ctx);
	return resp_fatal(ctx, RTE_ROCE_AETH_NAK_REM_ACCESS, IBV_WC_REM_ACCESS_ERR);
}

/* Too small: invalid request (class C); bad lkey: remote operational error (class D1). */
static enum resp_state
resp_err_recv_wqe(struct resp_ctx *ctx)
{
	return resp_fatal(ctx, ctx->status == IBV_WC_LOC_LEN_ERR ? RTE_ROCE_AETH_NAK_INV_REQ :
				RTE_ROCE_AETH_NAK_REM_OP, ctx->status);
}

/*
 * The R_Key of a SEND with Invalidate cannot be invalidated (unknown,
 * already invalid, another PD, a type 1 window, an MR with windows bound):
 * the receive WQE completes with IBV_WC_REM_INV_REQ_ERR and the QP goes to
 * ERR (rxe's class J, K:rxe_resp.c RESPST_ERR_INVALIDATE_RKEY); the
 * requester gets an invalid-request NAK, so that it learns of it too.
 */
static enum resp_state
resp_err_invalidate(struct resp_ctx *ctx)
{
	return resp_fatal(ctx, RTE_ROCE_AETH_NAK_INV_REQ, IBV_WC_REM_INV_REQ_ERR);
}

static const resp_handler_t resp_handlers[] = {
	[RESP_CHECK_PSN] = resp_check_psn,
	[RESP_CHECK_OP_SEQ] = resp_check_op_seq,
	[RESP_CHECK_OP_VALID] = resp_check_op_valid,
	[RESP_CHECK_RESOURCE] = resp_check_resource,
	[RESP_CHECK_LENGTH] = resp_check_length,
	[RESP_CHECK_RKEY] = resp_check_rkey,
	[RESP_EXECUTE] = resp_execute,
	[RESP_INVALIDATE] = resp_invalidate,
	[RESP_COMPLETE] = resp_complete,
	[RESP_ACKNOWLEDGE] = resp_acknowledge,
	[RESP_DUPLICATE] = resp_duplicate,
	[RESP_NAK_PSN] = resp_nak_psn,
	[RESP_RNR] = resp_rnr,
	[RESP_ERR_INV_REQ] = resp_err_inv_req,
	[RESP_ERR_ACCESS] = resp_err_access,
	[RESP_ERR_RECV_WQE] = resp_err_recv_wqe,
	[RESP_ERR_INVALIDATE] = resp_err_invalidate,
};

void
roce_resp_recv(struct roce_qp *qp, const struct rte_roce_pkt *pkt, const struct rte_mbuf *m)
{
	struct resp_ctx ctx = { .qp = qp, .pkt = pkt, .m = m, .status = IBV_WC_SUCCESS };
	enum resp_state state = RESP_CHECK_PSN;
	enum resp_state next;

	while (state != RESP_DONE) {
		next = resp_handlers[state](&ctx);
		ctx.from = state;
		state = next;
	}
	if (ctx.mr != NULL)
		roce_mr_put(ctx.mr);
}

/*
 * Send the next response of a resource: an atomic ACK, or a READ response
 * (zero-length for FLUSH and ATOMIC_WRITE, K:rxe_resp.c
 * send_read_response_ack). false if it cannot (no mbuf).
 */
static bool
resp_send_res(struct roce_qp *qp, struct roce_resp_res *res)
{
	static const uint8_t read_op[2][2] = {
		/* [first][last] */
		{ RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_LAST },
		{ RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY },
	};
	bool first = res->cur_psn == res->start_psn;
	bool last = res->cur_psn == res->last_psn;
	struct rte_roce_pkt pkt;
	struct roce_mr *mr = NULL;
	const void *payload = NULL;
	uint64_t off, va;
	int ret;

	if (res->opcode == RTE_ROCE_OP_RC_COMPARE_SWAP || res->opcode == RTE_ROCE_OP_RC_FETCH_ADD) {
		roce_qp_pkt_init(qp, &pkt, RTE_ROCE_OP_RC_ATOMIC_ACKNOWLEDGE, res->cur_psn);
		pkt.atmack_orig = res->orig;
	} else {
		roce_qp_pkt_init(qp, &pkt, read_op[first][last], res->cur_psn);
		off = (uint64_t)((res->cur_psn - res->first_psn) & RTE_ROCE_PSN_MASK) * qp->mtu;
		pkt.payload_len = RTE_MIN((uint64_t)qp->mtu, res->len - off);
		if (pkt.payload_len > 0) {
			/* Checked again per packet: the MR may have gone since the request. */
			va = res->va + off;
			if (roce_rkey_lookup(qp, res->rkey, &va, pkt.payload_len,
					     IBV_ACCESS_REMOTE_READ, &mr) != 0) {
				resp_res_pending(&qp->resp, res, false);
				(void)resp_send_ack(qp, RTE_ROCE_AETH_NAK_REM_ACCESS, res->cur_psn);
				return true;
			}
			payload = (const void *)(uintptr_t)va;
		}
	}
	pkt.aeth.syndrome = RTE_ROCE_AETH_ACK_UNLIMITED;
	pkt.aeth.msn = qp->resp.msn;
	ret = roce_qp_xmit(qp, &pkt, payload);
	if (mr != NULL)
		roce_mr_put(mr);
	if (ret == -ENOBUFS)
		return false;
	if (ret != 0)
		ROCE_COUNT(qp->lane->xstats.tx_errors);
	if (last)
		resp_res_pending(&qp->resp, res, false);
	else
		res->cur_psn = rte_roce_psn_add(res->cur_psn, 1);
	return true;
}

int
roce_resp_run(struct roce_qp *qp, unsigned int budget)
{
	struct roce_resp_state *resp = &qp->resp;
	enum ibv_qp_state state = roce_qp_state(qp);
	struct roce_resp_res *res;
	unsigned int sent = 0;
	unsigned int i;

	if (state == IBV_QPS_RESET || state == IBV_QPS_INIT || state == IBV_QPS_ERR)
		return 0;
	/*
	 * Oldest first: the ring's next slot is its oldest entry. Skipped when
	 * none is pending: the ring is 16 entries, a dozen cache lines per QP.
	 */
	for (i = 0; resp->res_pending != 0 && i < ROCE_RD_ATOM_MAX; i++) {
		res = &resp->res[(resp->res_head + i) & (ROCE_RD_ATOM_MAX - 1)];
		while (res->pending && sent < budget && resp_send_res(qp, res))
			sent++;
		if (res->pending)
			goto more;
	}
	/* ACKs and NAKs after the READ responses they follow in PSN order. */
	if (resp->ack_pending && sent < budget &&
	    resp_send_ack(qp, RTE_ROCE_AETH_ACK_UNLIMITED, resp->ack_psn)) {
		resp->ack_pending = false;
		sent++;
	}
	if (resp->nak_pending && !resp->ack_pending && sent < budget &&
	    resp_send_ack(qp, resp->nak_syndrome, resp->nak_psn)) {
		resp->nak_pending = false;
		sent++;
	}
	if (!resp->ack_pending && !resp->nak_pending)
		return sent;
more:
	roce_dev_qp_schedule(qp->dev, qp);
	return sent;
}
