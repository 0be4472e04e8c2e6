/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_CM_H
#define ROCE_CM_H

/*
 * Private state of librte_roce_cm (never installed). Files by role:
 * roce_cm.c the instance (QP1, buffers, poll, counters), roce_cm_mad.c the
 * MAD send and receive path and its checks, roce_cm_state.c the connection
 * state machine (IBTA Vol. 1 §12.9), roce_cm_id.c the rdma_cm-style API,
 * roce_cm_addr.c the resolution of destination addresses (ARP/ND),
 * roce_cm_qp.c the QP transitions from the CM's fields, roce_cm_event.c
 * event channels. Locking: doc/cm.md "Threading model".
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <rte_log.h>
#include <rte_roce.h>

#include "rte_roce_cm.h"

extern int roce_cm_logtype;

#define ROCE_CM_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, roce_cm_logtype, "ROCE cm: %s(): " fmt "\n", \
		__func__, ##__VA_ARGS__)

/* UD receive buffers start with the 40-byte GRH (IBTA 11.4.1.1). */
#define ROCE_CM_RECV_LEN	(RTE_ROCE_GRH_LEN + RTE_ROCE_MAD_LEN)
/* AHs to peers kept at most per instance. */
#define ROCE_CM_AH_MAX		64

/* Connection states of IBTA Vol. 1 §12.9 (the CM state diagram), plus LISTEN. */
enum roce_cm_state {
	ROCE_CM_IDLE,
	ROCE_CM_LISTEN,
	ROCE_CM_REQ_SENT,
	ROCE_CM_REQ_RCVD,
	ROCE_CM_MRA_REQ_SENT,	/* we acknowledged the peer's REQ with an MRA */
	ROCE_CM_MRA_REQ_RCVD,	/* the peer acknowledged our REQ with an MRA */
	ROCE_CM_REP_SENT,
	ROCE_CM_REP_RCVD,
	ROCE_CM_MRA_REP_SENT,
	ROCE_CM_MRA_REP_RCVD,
	ROCE_CM_ESTABLISHED,
	ROCE_CM_DREQ_SENT,
	ROCE_CM_DREQ_RCVD,
	ROCE_CM_TIMEWAIT,
	ROCE_CM_SIDR_REQ_SENT,	/* SIDR (IBTA Vol. 1 §12.11): a UD id waits for the SIDR_REP */
	ROCE_CM_SIDR_REQ_RCVD,	/* a UD id's request waits for the application */
	ROCE_CM_STATE_MAX
};

/* An AH to a peer's QP1, shared by the ids that talk to that GID. */
struct roce_cm_ah {
	union ibv_gid dgid;
	int sgid_index;
	struct ibv_ah *ah;
	uint32_t inflight;	/* sends posted with it, not completed */
	uint64_t last_use;	/* eviction order */
};

/* What the peer's REQ asked (passive side) or its REP answered (active side). */
struct roce_cm_peer {
	uint32_t qpn;
	uint32_t psn;		/* its Starting PSN: the first it expects, our SQ PSN */
	uint8_t resp_res;	/* READs it accepts in flight to it */
	uint8_t init_depth;	/* READs it sends in flight */
	uint8_t mtu;		/* enum ibv_mtu */
	uint8_t ack_timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t resp_timeout;	/* its CM response timeout: how long we wait for it */
	uint8_t max_cm_retries;
	uint32_t flow_label;
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint32_t qkey;		/* UD: from the SIDR_REP */
};

/* Where a MAD came from, and which of our GIDs it was sent to. */
struct roce_cm_peer_addr {
	union ibv_gid gid;
	int sgid_index;
	uint32_t qpn;		/* the QP it sent from: where a GET's response goes */
};

/* A CM id: the public part first, as rdma_cm_id. */
struct roce_cm_id {
	struct rte_roce_cm_id pub;
	struct rte_roce_cm *cm;		/* NULL until bound */
	TAILQ_ENTRY(roce_cm_id) next;	/* in cm->ids */
	enum roce_cm_state state;
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint64_t remote_ca_guid;
	uint64_t tid;			/* of the exchange in progress */
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
	int sgid_index;
	union ibv_gid sgid;
	union ibv_gid dgid;
	bool addr_resolved;
	uint64_t addr_deadline;		/* resolving the destination until then; 0: not */
	bool route_resolved;
	/* Listener */
	int backlog;
	int pending;			/* CONNECT_REQUESTs not answered yet */
	struct roce_cm_id *listener;	/* of a passive id: counted in its pending */
	/* Connection */
	struct roce_cm_peer peer;
	uint32_t qpn;			/* our QP's: id's QP, or the application's (conn_param.qp_num) */
	uint32_t psn;			/* our Starting PSN: our RQ PSN (roce_cm_qp.c) */
	uint8_t resp_res;		/* ours (REQ/REP field) */
	uint8_t init_depth;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t tos;			/* rte_roce_cm_set_tos(): asked */
	uint8_t route_tos;		/* and taken by the route: our REQ's path, our GRH */
	/* The last message sent, for retransmission and duplicates. */
	struct rte_roce_mad last;
	bool has_last;
	/* Timer: 0 when not armed. */
	uint64_t deadline;
	uint64_t timeout_cycles;
	uint8_t retries_left;
	uint32_t events_unacked;
	bool sync;			/* created without a channel: its own (roce_cm_sync.c) */
	uint64_t service_id;		/* a SIDR_REQ's, echoed in the SIDR_REP */
};

TAILQ_HEAD(roce_cm_id_list, roce_cm_id);

struct roce_cm_event;

/* An event channel: the public part first. */
struct roce_cm_channel {
	struct rte_roce_cm_channel pub;
	pthread_mutex_t lock;		/* after a CM's lock, never before */
	TAILQ_HEAD(, roce_cm_event) events;
	uint32_t unacked;		/* events got or queued, not acknowledged */
	uint32_t nb_ids;		/* ids that send their events here */
};

static inline struct roce_cm_id *
roce_cm_id(struct rte_roce_cm_id *pub)
{
	return (struct roce_cm_id *)pub;
}

static inline struct roce_cm_channel *
roce_cm_channel(struct rte_roce_cm_channel *pub)
{
	return (struct roce_cm_channel *)pub;
}

/*
 * Synchronous ids (roce_cm_sync.c). sync_complete: acknowledge id->pub.event,
 * wait for the id's next event (driving progress; no lock held), keep it
 * there; 0 or its errno. sync_channel: give id a channel of its own and make
 * it synchronous; 0 or -errno. sync_drain: acknowledge everything it holds
 * or has queued (before it is destroyed).
 */
int roce_cm_sync_complete(struct roce_cm_id *id);
int roce_cm_sync_channel(struct roce_cm_id *id);
/*
 * Move id from channel from to channel to with its events not taken yet;
 * -EBUSY (nothing moved) while some of its events taken are not acknowledged.
 */
int roce_cm_events_move(struct roce_cm_id *id, struct roce_cm_channel *from,
			struct roce_cm_channel *to);
void roce_cm_sync_drain(struct roce_cm_id *id);

/* A MAD that found every send slot in flight: sent once one frees (roce_cm_mad.c). */
struct roce_cm_queued_mad {
	union ibv_gid dgid;
	int sgid_index;
	uint32_t qpn;		/* QP1, or the QP a GET came from */
	struct rte_roce_mad mad;
};

/* One CM per device. */
struct rte_roce_cm {
	TAILQ_ENTRY(rte_roce_cm) next;	/* in the process-wide list */
	pthread_mutex_t lock;
	struct ibv_context *ctx;
	struct rte_roce_cm_conf conf;
	rte_be64_t ca_guid;		/* node GUID, network order as verbs gives it */
	uint32_t max_rd_atom;
	enum ibv_mtu active_mtu;
	struct ibv_pd *pd;
	struct ibv_cq *send_cq;
	struct ibv_cq *recv_cq;
	struct ibv_qp *qp1;
	uint8_t *bufs;			/* mad_slots send slots, then mad_slots receive slots */
	struct ibv_mr *mr;
	uint32_t *free_slots;		/* stack of free send slots */
	uint32_t nb_free;
	struct roce_cm_ah **slot_ah;	/* AH of each send slot in flight */
	struct roce_cm_queued_mad *backlog;	/* a ring of conf.mad_backlog, oldest at head */
	uint32_t backlog_head;
	uint32_t nb_backlog;
	struct roce_cm_ah ahs[ROCE_CM_AH_MAX];
	struct roce_cm_id_list ids;
	uint32_t nb_ids;
	uint64_t tid_high;		/* random, so TIDs differ across restarts */
	uint32_t tid_next;
	uint64_t addr_next_check;	/* when ids being resolved look at the neighbour cache again */
	struct rte_roce_cm_stats stats;
};

/* roce_cm.c */
struct rte_roce_cm *roce_cm_find_by_gid(const union ibv_gid *gid, int *sgid_index);
struct rte_roce_cm *roce_cm_first(void);
int roce_cm_gid_index(struct rte_roce_cm *cm, const union ibv_gid *gid);
void roce_cm_id_attach(struct rte_roce_cm *cm, struct roce_cm_id *id);
void roce_cm_id_detach(struct roce_cm_id *id);
struct roce_cm_id *roce_cm_id_by_comm_id(struct rte_roce_cm *cm, uint32_t comm_id);
uint64_t roce_cm_timeout_cycles(uint8_t timeout);

/* roce_cm_addr.c */
int roce_cm_addr_start(struct roce_cm_id *id, int timeout_ms);
void roce_cm_addr_poll(struct rte_roce_cm *cm, uint64_t now, int *handled);

/* roce_cm_mad.c */
void roce_cm_mad_init(struct rte_roce_mad *mad, uint16_t attr_id, uint64_t tid);
int roce_cm_mad_send(struct rte_roce_cm *cm, const union ibv_gid *dgid, int sgid_index,
		     const struct rte_roce_mad *mad);
int roce_cm_mad_recv_post(struct rte_roce_cm *cm, uint32_t slot);
void roce_cm_mad_input(struct rte_roce_cm *cm, const struct ibv_wc *wc);
void roce_cm_mad_send_done(struct rte_roce_cm *cm, const struct ibv_wc *wc);
void roce_cm_ah_flush(struct rte_roce_cm *cm);
void roce_cm_apr_reply(struct rte_roce_cm *cm, const struct rte_roce_mad *lap, uint8_t status,
		       const struct roce_cm_peer_addr *to);

/* roce_cm_state.c */
const char *roce_cm_state_name(enum roce_cm_state state);
void roce_cm_state_set(struct roce_cm_id *id, enum roce_cm_state state);
void roce_cm_state_input(struct roce_cm_id *id, const struct rte_roce_mad *mad);
void roce_cm_state_timeout(struct roce_cm_id *id);
void roce_cm_request_answered(struct roce_cm_id *id);
int roce_cm_comm_est(struct roce_cm_id *id);
void roce_cm_req_input(struct rte_roce_cm *cm, const struct rte_roce_mad *mad,
		       const struct roce_cm_peer_addr *from);
void roce_cm_sidr_req_input(struct rte_roce_cm *cm, const struct rte_roce_mad *mad,
			    const struct roce_cm_peer_addr *from);
int roce_cm_send_sidr_req(struct roce_cm_id *id, const struct rte_roce_cm_conn_param *param);
int roce_cm_send_sidr_rep(struct roce_cm_id *id, uint8_t status, const void *data, uint8_t len);
int roce_cm_send_last(struct roce_cm_id *id);
uint32_t roce_cm_random_psn(void);
int roce_cm_send_req(struct roce_cm_id *id, const struct rte_roce_cm_conn_param *param);
int roce_cm_send_rep(struct roce_cm_id *id, const struct rte_roce_cm_conn_param *param);
int roce_cm_send_rtu(struct roce_cm_id *id);
int roce_cm_send_rej(struct roce_cm_id *id, uint16_t reason, const void *data, uint8_t len);
int roce_cm_send_dreq(struct roce_cm_id *id);
void roce_cm_timer_arm(struct roce_cm_id *id, uint64_t cycles, uint8_t retries);
void roce_cm_timer_stop(struct roce_cm_id *id);
void roce_cm_run_timers(struct rte_roce_cm *cm, uint64_t now, int *handled);

/* roce_cm_qp.c */
int roce_cm_qp_init(struct roce_cm_id *id);
int roce_cm_qp_rtr_rts(struct roce_cm_id *id);
int roce_cm_qp_ud_ready(struct roce_cm_id *id);
void roce_cm_qp_error(struct roce_cm_id *id);

/* roce_cm_event.c */
int roce_cm_event_queue(struct roce_cm_id *id, struct roce_cm_id *listen_id,
			enum rte_roce_cm_event_type type, int status,
			const void *private_data, uint8_t private_data_len);

#endif /* ROCE_CM_H */
