/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * UD (doc/wire-format.md §9; K:rxe_req.c, rxe_resp.c): a request's addresses and
 * DETH come from its WQE's address handle, and a received SEND lands in
 * the next receive WQE after the 40-byte GRH, with the source QP in the
 * completion. UD ignores PSNs on receive (doc/wire-format.md §6.7), and never
 * answers.
 */

#include <rte_mbuf.h>

#include "rte_roce_hdr.h"
#include "rte_roce_pkt.h"
#include "roce_ah.h"
#include "roce_qp.h"
#include "roce_transport.h"

void
roce_ud_pkt_fill(struct roce_qp *qp, const struct roce_send_wqe *wqe, struct rte_roce_pkt *pkt)
{
	const struct roce_ah *ah = wqe->wr.ud.ah;
	uint32_t qkey = wqe->wr.ud.remote_qkey;

	pkt->ip_version = rte_roce_gid_is_ipv4(&ah->dgid) ? 4 : 6;
	pkt->sgid = ah->sgid;
	pkt->dgid = ah->dgid;
	pkt->tos = ah->tos;
	pkt->flow_label = ah->flow_label;
	/* A multicast AH sends to DestQP 0xFFFFFF, the multicast QPN of the IBTA. */
	pkt->dqpn = ah->mcast ? RTE_ROCE_MCAST_QPN : wqe->wr.ud.remote_qpn;
	/*
	 * QP1 always sends the GSI Q_Key (K:rxe_req.c); a Q_Key with the high
	 * bit set stands for the QP's own (IBTA; rxe does not,
	 * doc/wire-format.md §9.1).
	 */
	if (qp->ibv.qp_num == RTE_ROCE_QP1_QPN)
		qkey = RTE_ROCE_QP1_QKEY;
	else if (qkey & RTE_ROCE_QKEY_PRIVILEGED)
		qkey = qp->attr.qkey;
	pkt->deth.qkey = qkey;
	pkt->deth.sqpn = qp->ibv.qp_num;
}

/* Copy the IP header of the frame as the GRH (rte_roce_grh_fill(), doc/wire-format.md §9.2). */
static void
ud_grh(const struct rte_roce_pkt *pkt, const struct rte_mbuf *m, union rte_roce_grh *grh)
{
	uint8_t buf[RTE_ROCE_IPV6_LEN];
	bool ipv6 = pkt->ip_version == 6;
	const void *l3;

	l3 = rte_pktmbuf_read(m, pkt->l3_off, ipv6 ? RTE_ROCE_IPV6_LEN : RTE_ROCE_IPV4_LEN, buf);
	rte_roce_grh_fill(grh, l3, ipv6);
}

void
roce_ud_recv(struct roce_qp *qp, const struct rte_roce_pkt *pkt, const struct rte_mbuf *m)
{
	struct roce_transport_stats *st = &qp->lane->xstats;
	struct roce_sge_cursor cur = { 0, 0 };
	struct roce_recv_wqe *wqe;
	union rte_roce_grh grh;
	struct ibv_wc wc;
	int err;

	/* The Q_Key must be the QP's (doc/wire-format.md §9.1; K:rxe_recv.c check_keys). */
	if (pkt->deth.qkey != qp->attr.qkey) {
		ROCE_COUNT(st->rx_drops[ROCE_RX_DROP_QKEY]);
		return;
	}
	/* No receive WQE: UD drops silently (no RNR on UD, as rxe). */
	wqe = roce_rq_peek(qp);
	if (wqe == NULL) {
		ROCE_COUNT(st->rx_drops[ROCE_RX_DROP_NO_RECV_WQE]);
		ROCE_QP_STAT_INC(qp, out_of_buffer);
		return;
	}
	ud_grh(pkt, m, &grh);
	err = roce_sge_scatter(wqe->sge, wqe->num_sge, &cur, grh.raw, RTE_ROCE_GRH_LEN);
	if (err == 0)
		err = roce_sge_scatter_mbuf(wqe->sge, wqe->num_sge, &cur, m, pkt->payload_off,
					    pkt->payload_len);
	/* pkey_index, slid, sl, dlid_path_bits 0, as rxe (doc/wire-format.md §9.3). */
	wc = (struct ibv_wc){
		.wr_id = wqe->wr_id,
		.status = roce_copy_status(err),
		.opcode = IBV_WC_RECV,
		.byte_len = RTE_ROCE_GRH_LEN + pkt->payload_len,
		.qp_num = qp->ibv.qp_num,
		.src_qp = pkt->deth.sqpn,
		.wc_flags = IBV_WC_GRH,
	};
	if (pkt->info->flags & RTE_ROCE_OPF_IMM) {
		wc.wc_flags |= IBV_WC_WITH_IMM;
		wc.imm_data = pkt->imm;
	}
	/*
	 * A receive WQE too small, or a bad lkey, completes in error (a local
	 * error of this WQE; the QP goes on receiving, as UD has no
	 * connection to break).
	 */
	/* Consumed first: a poller on another thread may post again at once. */
	roce_rq_consume(qp);
	/* SE wakes a solicited-only arming (IBA 11.4.2.2); a UD message is one packet. */
	if (roce_cq_push_se(qp->rcq, &wc, pkt->se) != 0)
		roce_qp_error(qp);
	else if (wc.status == IBV_WC_SUCCESS)
		ROCE_QP_STAT_INC(qp, rdma_recvs);	/* rxe rdma_recvs (K:rxe_resp.c do_complete) */
}
