/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Receive dispatch: a frame accepted by the port (parsed, ICRC checked) is
 * matched to its QP and checked against it, then RC and UC requests go to
 * the responder, responses to the completer, UD SENDs to roce_ud.c and
 * UD multicast to every attached QP (K:rxe_recv.c). Every drop is
 * counted by reason in the device's xstats.
 *
 * The port parsed the frame already but does not hand the result out, so
 * it is parsed a second time here (a cost to remove when the port exposes
 * its struct rte_roce_pkt).
 */

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "rte_roce_pkt.h"
#include "roce_mcast.h"
#include "roce_port_priv.h"
#include "roce_qp.h"
#include "roce_transport.h"

/* The wire transport of a QP's packets. */
static enum rte_roce_transport
roce_qp_wire_transport(const struct roce_qp *qp)
{
	switch (qp->ibv.qp_type) {
	case IBV_QPT_UC:
		return RTE_ROCE_TRANSPORT_UC;
	case IBV_QPT_UD:
		return RTE_ROCE_TRANSPORT_UD;
	default:
		return RTE_ROCE_TRANSPORT_RC;
	}
}

/* Drop reason of a frame for qp, or ROCE_RX_DROP_MAX if it is acceptable. */
static enum roce_rx_drop
recv_check(struct roce_qp *qp, const struct rte_roce_pkt *pkt)
{
	enum ibv_qp_state state;
	bool request;

	if (qp == NULL)
		return ROCE_RX_DROP_NO_QP;
	if (pkt->info->transport != roce_qp_wire_transport(qp))
		return ROCE_RX_DROP_TRANSPORT;
	/* Requests from RTR on, responses only where the requester runs (K:rxe_recv.c check_type_state). */
	state = roce_qp_state(qp);
	request = (pkt->info->flags & RTE_ROCE_OPF_REQ) != 0;
	if (request ? state < IBV_QPS_RTR || state == IBV_QPS_ERR :
		      state != IBV_QPS_RTS && state != IBV_QPS_SQD)
		return ROCE_RX_DROP_QP_STATE;
	/* A connected QP hears only its peer (K:rxe_recv.c check_addr). */
	if (qp->ibv.qp_type != IBV_QPT_UD &&
	    (!rte_roce_gid_equal(&pkt->sgid, &qp->dgid) || !rte_roce_gid_equal(&pkt->dgid, &qp->sgid)))
		return ROCE_RX_DROP_ADDR;
	/* The default partition only, as rxe (K:rxe_recv.c check_keys). */
	if ((pkt->pkey & RTE_ROCE_PKEY_BASE_MASK) != (RTE_ROCE_DEFAULT_PKEY & RTE_ROCE_PKEY_BASE_MASK))
		return ROCE_RX_DROP_PKEY;
	return ROCE_RX_DROP_MAX;
}

void
roce_recv_deliver(struct roce_dev *dev, struct roce_qp *qp, const struct rte_roce_pkt *pkt,
		  const struct rte_mbuf *m)
{
	enum roce_rx_drop drop = recv_check(qp, pkt);

	if (drop != ROCE_RX_DROP_MAX) {
		dev->xstats.rx_drops[drop]++;
		return;
	}
	ROCE_QP_STAT_INC(qp, rcvd_pkts);
	if (qp->ibv.qp_type == IBV_QPT_UD)
		roce_ud_recv(qp, pkt, m);
	else if (pkt->info->flags & RTE_ROCE_OPF_REQ)
		roce_resp_recv(qp, pkt, m);
	else
		roce_comp_recv(qp, pkt, m);
}

static void
recv_one(struct roce_dev *dev, struct rte_mbuf *m, const struct rte_roce_pkt *parsed)
{
	struct roce_transport_stats *st = &dev->xstats;
	const struct rte_roce_pkt *pkt = parsed;
	struct rte_roce_pkt local;

	if (pkt == NULL) {
		if (rte_roce_pkt_parse_mbuf(m, dev->port->ib_mtu, &local) != RTE_ROCE_DROP_NONE) {
			st->rx_drops[ROCE_RX_DROP_PARSE]++;
			return;
		}
		pkt = &local;
	}
	if (pkt->info->transport == RTE_ROCE_TRANSPORT_CNP) {
		/* Congestion control comes later. */
		st->rx_drops[ROCE_RX_DROP_TRANSPORT]++;
		return;
	}
	/* UD to the multicast QPN goes to every QP attached to the group. */
	if (pkt->dqpn == RTE_ROCE_MCAST_QPN && pkt->info->transport == RTE_ROCE_TRANSPORT_UD &&
	    rte_roce_gid_is_mcast(&pkt->dgid)) {
		roce_mcast_recv(dev, pkt, m);
		return;
	}
	roce_recv_deliver(dev, roce_dev_qp_lookup(dev, pkt->dqpn), pkt, m);
}

/*
 * With thousands of QPs each frame's QP state is cold: fetch the table
 * slots of the whole burst, then the QPs' roles, before the first frame
 * is handled, so the misses overlap instead of stalling one by one.
 */
static void
recv_prefetch(struct roce_dev *dev, const struct rte_roce_pkt *parsed, uint16_t n)
{
	struct roce_qp *qp;
	uint16_t i;

	for (i = 0; i < n; i++)
		rte_prefetch0(&dev->qp_tbl[parsed[i].dqpn & dev->qp_mask]);
	for (i = 0; i < n; i++) {
		qp = dev->qp_tbl[parsed[i].dqpn & dev->qp_mask];
		if (qp == NULL)
			continue;
		rte_prefetch0(qp);
		rte_prefetch0(parsed[i].info->flags & RTE_ROCE_OPF_REQ ?
			      (const void *)&qp->resp : (const void *)&qp->comp);
	}
}

void
roce_recv_burst(struct roce_dev *dev, struct rte_mbuf **pkts,
		const struct rte_roce_pkt *parsed, uint16_t n)
{
	uint16_t i;

	if (parsed != NULL)
		recv_prefetch(dev, parsed, n);
	for (i = 0; i < n; i++) {
		recv_one(dev, pkts[i], parsed != NULL ? &parsed[i] : NULL);
		rte_pktmbuf_free(pkts[i]);
	}
}
