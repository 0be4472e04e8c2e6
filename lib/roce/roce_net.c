/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The engines' way out (K:rxe_net.c): a packet's headers from its QP
 * (addresses, source port, destination QP, PSN), and its frame built and
 * queued on the QP's lane's port queue. Requester and responder both send
 * through here.
 */

#include <errno.h>

#include <rte_mbuf.h>

#include "rte_roce_pkt.h"
#include "roce_build.h"
#include "roce_port_queue.h"
#include "roce_qp.h"
#include "roce_transport.h"

void
roce_qp_pkt_init(struct roce_qp *qp, struct rte_roce_pkt *pkt, uint8_t opcode, uint32_t psn)
{
	const struct ibv_global_route *grh = &qp->attr.ah_attr.grh;

	/*
	 * TTL / hop limit stays rte_roce_pkt_init()'s 64: for RoCE the kernel
	 * replaces the AV's hop limit with the route's (doc/wire-format.md §8.3),
	 * so rxe sends 64 on a local link whatever the application asked.
	 */
	rte_roce_pkt_init(pkt, opcode);
	pkt->ip_version = rte_roce_gid_is_ipv4(&qp->dgid) ? 4 : 6;
	pkt->sgid = qp->sgid;
	pkt->dgid = qp->dgid;
	pkt->tos = grh->traffic_class;
	pkt->flow_label = grh->flow_label;
	pkt->sport = qp->src_port;
	pkt->dqpn = qp->attr.dest_qp_num;
	pkt->psn = psn;
}

void
roce_qp_hdr_init(struct roce_qp *qp)
{
	struct rte_roce_pkt pkt;

	roce_qp_pkt_init(qp, &pkt, RTE_ROCE_OP_RC_SEND_ONLY, 0);
	roce_build_hdr_init(&qp->hdr, &pkt);
}

int
roce_qp_xmit(struct roce_qp *qp, const struct rte_roce_pkt *pkt, const void *payload)
{
	struct rte_roce_port *port = qp->dev->port;
	struct rte_mbuf *m;
	int ret;

	m = rte_pktmbuf_alloc(roce_port_pool(port));
	if (m == NULL) {
		/* The callers keep the packet and send it again (back-pressure). */
		ROCE_COUNT(qp->lane->xstats.tx_no_mbuf);
		return -ENOBUFS;
	}
	/* UD: addresses per work request (roce_ud_pkt_fill); RC, UC: the QP's (IBV_QP_AV). */
	if (qp->ibv.qp_type == IBV_QPT_UD)
		ret = roce_pkt_build_mbuf_qp(pkt, payload, m);
	else
		ret = roce_pkt_build_mbuf_hdr(&qp->hdr, pkt, payload, m);
	if (ret < 0) {
		rte_pktmbuf_free(m);
		return ret;
	}
	if (unlikely(qp->dev->conf.quirk_rxe_flush_icrc) && pkt->opcode == RTE_ROCE_OP_RC_FLUSH)
		roce_build_rxe_flush_icrc(&qp->hdr, m);
	/* The peer is on-link: it is its own next hop. -ENOBUFS: TX backlog full. */
	ret = roce_port_send_queue(port, qp->lane->id, m, &pkt->dgid);
	if (ret == 0)
		ROCE_QP_STAT_INC(qp, sent_pkts);
	return ret;
}
