/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Receive dispatch: a frame accepted by the port (parsed, ICRC checked) is
 * matched to its QP and checked against it, then RC and UC requests go to
 * the responder, responses to the completer, UD SENDs to roce_ud.c and
 * UD multicast to every attached QP (K:rxe_recv.c). Every drop is
 * counted by reason in the device's xstats.
 *
 * The port parsed the frame already and hands its parse over with it
 * (roce_port_poll_queue()): nothing is parsed twice. Only a frame another
 * lane handed over (roce_recv_handed()) is parsed again, from its mbuf.
 */

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "rte_roce_pkt.h"
#include "roce_mcast.h"
#include "roce_port_queue.h"
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
roce_recv_deliver(struct roce_lane *lane, struct roce_qp *qp, const struct rte_roce_pkt *pkt,
		  const struct rte_mbuf *m)
{
	enum roce_rx_drop drop = recv_check(qp, pkt);

	if (drop != ROCE_RX_DROP_MAX) {
		ROCE_COUNT(lane->xstats.rx_drops[drop]);
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

/* Parse again a frame handed over or not parsed by the port (the ICRC is not rechecked). */
static const struct rte_roce_pkt *
recv_parse(struct roce_lane *lane, const struct rte_mbuf *m, struct rte_roce_pkt *local)
{
	if (rte_roce_pkt_parse_mbuf(m, roce_port_ib_mtu(lane->dev->port), local) != RTE_ROCE_DROP_NONE) {
		ROCE_COUNT(lane->xstats.rx_drops[ROCE_RX_DROP_PARSE]);
		return NULL;
	}
	return local;
}

void
roce_recv_route(struct roce_lane *lane, struct roce_qp *qp, const struct rte_roce_pkt *pkt,
	   struct rte_mbuf *m)
{
	struct rte_mbuf *ref;

	if (qp == NULL || qp->lane == lane) {
		roce_recv_deliver(lane, qp, pkt, m);
		return;
	}
	/*
	 * A unicast frame goes over itself (one more reference); a multicast
	 * one may go to several lanes, each with its own QPN tag: a clone.
	 */
	if (pkt->dqpn != RTE_ROCE_MCAST_QPN) {
		rte_mbuf_refcnt_update(m, 1);
		ref = m;
	} else {
		ref = rte_pktmbuf_clone(m, roce_port_pool(lane->dev->port));
		if (ref == NULL) {
			ROCE_COUNT(lane->stats.handoff_drops);
			return;
		}
	}
	(void)roce_dev_handoff(lane, qp->lane->id, ref, qp->ibv.qp_num);
}

static void
recv_one(struct roce_lane *lane, struct rte_mbuf *m, const struct rte_roce_pkt *parsed)
{
	struct roce_transport_stats *st = &lane->xstats;
	struct rte_roce_pkt local;
	const struct rte_roce_pkt *pkt = parsed != NULL ? parsed : recv_parse(lane, m, &local);

	if (pkt == NULL)
		return;
	if (pkt->info->transport == RTE_ROCE_TRANSPORT_CNP) {
		/* Congestion control comes later. */
		ROCE_COUNT(st->rx_drops[ROCE_RX_DROP_TRANSPORT]);
		return;
	}
	/* UD to the multicast QPN goes to every QP attached to the group. */
	if (pkt->dqpn == RTE_ROCE_MCAST_QPN && pkt->info->transport == RTE_ROCE_TRANSPORT_UD &&
	    rte_roce_gid_is_mcast(&pkt->dgid)) {
		roce_mcast_recv(lane, pkt, m);
		return;
	}
	roce_recv_route(lane, roce_dev_qp_lookup(lane->dev, pkt->dqpn), pkt, m);
}

void
roce_recv_handed(struct roce_lane *lane, const struct rte_mbuf *m, uint32_t qpn)
{
	struct rte_roce_pkt local;
	const struct rte_roce_pkt *pkt = recv_parse(lane, m, &local);
	struct roce_qp *qp = roce_dev_qp_lookup(lane->dev, qpn);

	if (pkt == NULL)
		return;
	/* Destroyed (or, for a multicast clone, detached) since it was handed over. */
	if (qp == NULL || qp->lane != lane) {
		ROCE_COUNT(lane->xstats.rx_drops[ROCE_RX_DROP_NO_QP]);
		return;
	}
	/* A response that waited for its completer: rxe's ack_deferred (K:rxe_comp.c rxe_comp_queue_pkt). */
	if (pkt->info->flags & RTE_ROCE_OPF_RESP)
		ROCE_QP_STAT_INC(qp, ack_deferred);
	roce_recv_deliver(lane, qp, pkt, m);
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
roce_recv_burst(struct roce_lane *lane, struct rte_mbuf **pkts,
		const struct rte_roce_pkt *parsed, uint16_t n)
{
	uint16_t i;

	if (parsed != NULL)
		recv_prefetch(lane->dev, parsed, n);
	for (i = 0; i < n; i++) {
		recv_one(lane, pkts[i], parsed != NULL ? &parsed[i] : NULL);
		rte_pktmbuf_free(pkts[i]);
	}
}

void
roce_mcast_recv(struct roce_lane *lane, const struct rte_roce_pkt *pkt, struct rte_mbuf *m)
{
	struct roce_dev *dev = lane->dev;
	unsigned int i, n = 0;

	/* A member on another lane gets a reference through the hand-off ring. */
	for (i = 0; i < RTE_ROCE_DEV_MCAST_MAX; i++) {
		if (dev->mcast[i].qp != NULL && rte_roce_gid_equal(&dev->mcast[i].gid, &pkt->dgid)) {
			roce_recv_route(lane, dev->mcast[i].qp, pkt, m);
			n++;
		}
	}
	if (n == 0)
		ROCE_COUNT(lane->xstats.rx_drops[ROCE_RX_DROP_MCAST]);
}
