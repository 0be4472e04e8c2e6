/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_TRANSPORT_H
#define ROCE_TRANSPORT_H

/*
 * The RC transport engine: the per-role state a QP carries (roce_qp.c
 * initialises it) and the entry points the lane's progress loop
 * (roce_lane.c) calls.
 *
 * Roles, one file each, as kernel rxe:
 *   roce_recv.c  validates a received frame against its QP and dispatches
 *                requests to the responder, responses to the completer;
 *   roce_req.c   requester: send WQEs -> request packets;
 *   roce_resp.c  responder: request packets -> memory, receive completions,
 *                ACK/NAK, READ responses, atomics;
 *   roce_comp.c  completer: ACKs, READ responses, atomic ACKs -> send
 *                completions; retransmission and RNR timers.
 *
 * Contract with roce_qp.h (owner "verbs"):
 *   - struct roce_qp embeds, by value: struct roce_req_state req,
 *     struct roce_resp_state resp, struct roce_comp_state comp.
 *   - struct roce_send_wqe embeds struct roce_wqe_tx tx. The engine alone
 *     writes it, so the posting path need not touch it: a slot reads
 *     ROCE_WQE_NEW when the QP is created (zeroed ring), the completer sets
 *     it back to NEW when it retires the WQE, and the reset of the QP clears
 *     every slot (WQEs retired by a flush keep their last state until then).
 *   - each lane of the device (struct roce_lane, roce_dev.h) embeds a
 *     struct roce_timer_wheel timers and struct roce_transport_stats
 *     xstats (the engine's counters): a QP uses those of qp->lane.
 *   - roce_qp.c sets the state up at QP creation and on the transition
 *     to RESET, applies the attributes of every successful modify to it,
 *     stops its timers and pending responses on the transition to ERR
 *     (before the queues are flushed) and at destroy; the timers' handlers
 *     are the engine's (struct roce_engine, below).
 *   - The send queue's consumer index belongs to the completer: a WQE is
 *     consumed when it is completed (or flushed). The requester walks ahead
 *     of it with req.wqe_idx.
 *   - max_qp_rd_atom of the device is at most ROCE_RD_ATOM_MAX.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "rte_roce_stats.h"
#include "roce_mr.h"
#include "roce_timer.h"

struct ibv_qp_attr;
struct rte_roce_pkt;
struct roce_dev;
struct roce_qp;

/* Requester window: at most this many PSNs unacknowledged (K:rxe_param.h RXE_MAX_UNACKED_PSNS). */
#define ROCE_MAX_UNACKED_PSNS	128
/* AckReq at least every this many packets of a long message (K:rxe_param.h RXE_MAX_PKT_PER_ACK). */
#define ROCE_MAX_PKT_PER_ACK	64
/* Responder resources (READ/atomic replay) per QP; a power of two. */
#define ROCE_RD_ATOM_MAX	16
/* rnr_retry value that means "retry forever"; retry_cnt 7 is not (doc/wire-format.md §7). */
#define ROCE_RNR_RETRY_INFINITE	7
/* Local ACK timeout unit: 4.096 us x 2^timeout (doc/wire-format.md §7). */
#define ROCE_ACK_TIMEOUT_NS_UNIT 4096

/*
 * Add to a counter that one thread (a lane) writes and any thread may
 * read: a relaxed load-add-store, no shared read-modify-write; readers use
 * relaxed loads (roce_stats.c).
 */
#define ROCE_COUNT_ADD(counter, n) \
	__atomic_store_n(&(counter), (counter) + (n), __ATOMIC_RELAXED)
#define ROCE_COUNT(counter) ROCE_COUNT_ADD(counter, 1)

/* Why roce_recv.c or an engine role dropped a received frame. */
enum roce_rx_drop {
	ROCE_RX_DROP_PARSE,		/* reparse failed (cannot happen after the port's) */
	ROCE_RX_DROP_NO_QP,		/* no QP with that number */
	ROCE_RX_DROP_TRANSPORT,		/* opcode of another transport than the QP's, or a CNP */
	ROCE_RX_DROP_QP_STATE,		/* QP not in a state that receives it */
	ROCE_RX_DROP_ADDR,		/* addresses differ from the QP's address vector */
	ROCE_RX_DROP_PKEY,		/* P_Key not the default partition */
	ROCE_RX_DROP_RESP_STALE,	/* response to nothing outstanding (or to a PSN never sent), or out of order */
	ROCE_RX_DROP_REQ_DUP,		/* duplicate request without a resource to replay */
	ROCE_RX_DROP_REQ_AHEAD,		/* request after a sequence or RNR NAK, before ePSN came */
	ROCE_RX_DROP_UC_MSG,		/* UC: packet of a message dropped after a gap or an error */
	ROCE_RX_DROP_QKEY,		/* UD: Q_Key differs from the QP's */
	ROCE_RX_DROP_NO_RECV_WQE,	/* UD/UC: no receive WQE posted */
	ROCE_RX_DROP_MCAST,		/* UD multicast: no QP attached to the group */
	ROCE_RX_DROP_MAX
};

/* Counters of the engine, per lane, summed per device when read (names: roce_stats.c). */
struct roce_transport_stats {
	struct rte_roce_stats qp;	/* sums of the QPs' own (ROCE_QP_STAT_INC) */
	uint64_t rx_drops[ROCE_RX_DROP_MAX];
	uint64_t tx_errors;		/* frames the builder or the port refused */
	uint64_t tx_no_mbuf;		/* sends put off for an empty mbuf pool (back-pressure) */
	uint64_t seq_naks_out;		/* PSN sequence NAKs sent */
	uint64_t cq_full_rnr;		/* RNR NAKs sent because the receive CQ was full (back-pressure) */
	uint64_t link_downed;		/* port link went down (rxe link_downed; roce_dev_link_check()) */
};

/* Progress of one send WQE through requester and completer. */
enum roce_wqe_state {
	ROCE_WQE_NEW = 0,	/* not yet taken by the requester */
	ROCE_WQE_SENDING,	/* some packets sent */
	ROCE_WQE_PENDING,	/* every packet sent, waiting for the response */
	ROCE_WQE_FAILED,	/* the requester found an error (status) */
	ROCE_WQE_DONE,		/* a local operation the requester ran: complete it in order */
};

/* Engine state of one send WQE, embedded in struct roce_send_wqe as "tx". */
struct roce_wqe_tx {
	uint32_t first_psn;	/* PSN of its first packet */
	uint32_t last_psn;	/* PSN of its last packet (READ: last response) */
	uint32_t npkts;		/* packets (READ: response packets) */
	uint8_t state;		/* enum roce_wqe_state */
	uint8_t status;		/* enum ibv_wc_status when FAILED */
	uint8_t cq_slot;	/* holds a slot reserved in the send CQ (roce_cq_reserve()) */
};

/* Requester (roce_req.c). */
struct roce_req_state {
	uint32_t wqe_idx;	/* free-running index of the WQE being sent */
	uint32_t psn;		/* next PSN to send */
	uint32_t psn_end;	/* after the highest PSN ever sent: a retry sends below it */
	uint32_t pkt_idx;	/* next packet of the current WQE */
	struct roce_sge_cursor cur;	/* payload position of pkt_idx */
	uint32_t noack_pkts;	/* packets sent without AckReq */
	uint32_t rd_atomic;	/* READ/atomic WQEs sent and not completed */
	uint32_t max_unacked;	/* window, in PSNs */
	bool failed;		/* a WQE failed locally: send nothing more */
};

/*
 * One responder resource: a READ, atomic, FLUSH or ATOMIC_WRITE, kept for
 * replay (doc/wire-format.md §6.2); the last two are answered by a READ
 * response of length 0.
 */
struct roce_resp_res {
	bool valid;		/* holds a request */
	bool pending;		/* responses still to send */
	uint8_t opcode;		/* request opcode */
	uint32_t first_psn;	/* PSN of the request */
	uint32_t last_psn;	/* PSN of the last response */
	uint32_t start_psn;	/* first response of the current series (FIRST/ONLY) */
	uint32_t cur_psn;	/* next response to send */
	uint64_t va;		/* READ: address of first_psn's data */
	uint32_t rkey;
	uint32_t len;		/* READ: length of the whole request */
	uint64_t orig;		/* atomic: value before the operation */
};

/* Responder (roce_resp.c). */
struct roce_resp_state {
	uint32_t psn;		/* expected PSN (ePSN) */
	uint32_t msn;		/* completed requests, 24 bits */
	uint8_t opcode;		/* opcode of the last accepted request; sequence check */
	bool drop_msg;		/* UC: drop until the next FIRST/ONLY (IBA 9.7.5.1.x) */
	bool nak_sent;		/* a PSN sequence NAK is outstanding (only one, K:rxe_resp.c) */
	struct roce_sge_cursor recv_cur;	/* position in the current receive WQE */
	uint32_t recv_len;	/* bytes of the current SEND placed */
	uint64_t write_va;	/* next address of the current WRITE */
	uint32_t write_rkey;	/* its R_Key */
	uint32_t write_resid;	/* bytes of it still expected */
	uint32_t write_len;	/* its RETH length (byte_len of WRITE_WITH_IMM) */
	/* ACK coalescing: one ACK per burst for the highest AckReq PSN. */
	bool ack_pending;
	uint32_t ack_psn;
	/* NAK waiting behind READ responses (sequence error, RNR). */
	bool nak_pending;
	uint8_t nak_syndrome;
	uint32_t nak_psn;
	/* READ/atomic replay ring; res_head is the next slot, the oldest. */
	uint32_t res_head;
	uint32_t res_pending;	/* entries with pending responses: the ring is scanned only then */
	struct roce_resp_res res[ROCE_RD_ATOM_MAX];
};

/* Completer (roce_comp.c). */
struct roce_comp_state {
	uint32_t psn;		/* next PSN a response is expected for */
	uint8_t opcode;		/* opcode of the last accepted READ response */
	struct roce_sge_cursor cur;	/* placement position of the current READ */
	uint32_t retry_left;	/* retries left after timeout / sequence NAK */
	uint32_t rnr_left;	/* RNR retries left */
	bool retrying;		/* a go-back-N retry started, no progress since */
	bool rnr_wait;		/* requester paused by an RNR NAK */
	uint64_t timeout_us;	/* local ACK timeout; 0 = none */
	struct roce_timer retrans;	/* local ACK timeout */
	struct roce_timer rnr;		/* RNR NAK wait */
};

/*
 * Packets of a message of len bytes, or responses of a READ of len bytes:
 * at least one, even for 0 bytes (doc/wire-format.md §6.3).
 */
static inline uint32_t
roce_msg_npkts(uint32_t len, uint32_t mtu)
{
	return len == 0 ? 1 : (len + mtu - 1) / mtu;
}

/* Engine entry points. */

struct roce_lane;

/*
 * Hand a burst of frames the port queue of lane received to their QPs;
 * takes the mbufs. parsed[i] is the port's parse of pkts[i]
 * (roce_port_poll_queue()); parsed NULL: the frames are parsed here. A
 * frame for a QP of another lane is handed to that lane (roce_dev_handoff()).
 */
void roce_recv_burst(struct roce_lane *lane, struct rte_mbuf **pkts,
		     const struct rte_roce_pkt *parsed, uint16_t n);
/*
 * A frame another lane received (and checked, ICRC included) for the QP
 * numbered qpn of lane; m is not freed.
 */
void roce_recv_handed(struct roce_lane *lane, const struct rte_mbuf *m, uint32_t qpn);
/*
 * Deliver m to qp (NULL: none) on this lane, or hand it to the lane that
 * owns qp: the hand-off takes a reference, the caller still frees its own.
 */
void roce_recv_route(struct roce_lane *lane, struct roce_qp *qp, const struct rte_roce_pkt *pkt,
		     struct rte_mbuf *m);
/*
 * Deliver a UD SEND to DestQP RTE_ROCE_MCAST_QPN, received by lane, to each
 * QP attached to its group (those of other lanes through their hand-off
 * ring); the groups are the device's table (roce_mcast.c attaches).
 */
void roce_mcast_recv(struct roce_lane *lane, const struct rte_roce_pkt *pkt,
		     struct rte_mbuf *m);
/* Check a frame against qp (NULL: none) and hand it to its role, or count the drop on lane. */
void roce_recv_deliver(struct roce_lane *lane, struct roce_qp *qp, const struct rte_roce_pkt *pkt,
		       const struct rte_mbuf *m);

/* Send up to budget request packets of qp; returns how many were sent. */
int roce_req_run(struct roce_qp *qp, unsigned int budget);

/* Send pending ACK/NAKs and up to budget READ response packets; returns packets sent. */
int roce_resp_run(struct roce_qp *qp, unsigned int budget);

/* Requester internals shared with the completer (roce_req.c). */
struct roce_send_wqe;
/* Go back to psn: the requester resends from there (go-back-N). */
void roce_req_rewind(struct roce_qp *qp, uint32_t psn);

/* A response for qp (roce_comp.c), a request for qp (roce_resp.c); m is not freed. */
void roce_comp_recv(struct roce_qp *qp, const struct rte_roce_pkt *pkt, const struct rte_mbuf *m);
void roce_resp_recv(struct roce_qp *qp, const struct rte_roce_pkt *pkt, const struct rte_mbuf *m);

/* Complete, from the oldest, the send WQEs that need no response (local errors). */
void roce_comp_drain(struct roce_qp *qp);

/* The way out of requester and responder (roce_net.c). */
void roce_qp_pkt_init(struct roce_qp *qp, struct rte_roce_pkt *pkt, uint8_t opcode, uint32_t psn);
/* qp->hdr from the path just set (IBV_QP_AV): what every RC/UC packet of qp starts with. */
void roce_qp_hdr_init(struct roce_qp *qp);
int roce_qp_xmit(struct roce_qp *qp, const struct rte_roce_pkt *pkt, const void *payload);

/* UD (roce_ud.c): DETH and addresses of a request; receive of a UD SEND for qp. */
void roce_ud_pkt_fill(struct roce_qp *qp, const struct roce_send_wqe *wqe,
		      struct rte_roce_pkt *pkt);
void roce_ud_recv(struct roce_qp *qp, const struct rte_roce_pkt *pkt, const struct rte_mbuf *m);

/* UC/UD requester: complete the WQEs whose packets were all handed to the port. */
void roce_comp_unreliable(struct roce_qp *qp);

/*
 * What the QP object (a layer below the engines) calls in them without
 * naming them: the handlers of the timers it initialises. rte_roce_open_device()
 * (roce_verbs.c) points the device's engine at roce_engine (roce_comp.c).
 */
struct roce_engine {
	roce_timer_cb_t retrans_expired;	/* comp.retrans: local ACK timeout */
	roce_timer_cb_t rnr_expired;		/* comp.rnr: the RNR NAK wait is over */
};
extern const struct roce_engine roce_engine;

#endif /* ROCE_TRANSPORT_H */
