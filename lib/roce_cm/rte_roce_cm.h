/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_CM_H
#define RTE_ROCE_CM_H

/**
 * @file
 * Connection management for librte_roce: the InfiniBand CM over QP1
 * (IBTA Vol. 1 chapter 12) behind an API named and shaped after
 * <rdma/rdma_cma.h>, so that an rdma_cm program ports by renaming
 * (rdma_connect -> rte_roce_cm_connect) and a Linux rdma_cm peer sees
 * the messages its own kernel would send.
 *
 * A CM instance serves one device (rte_roce_cm_open()); ids find their
 * instance by the address they are bound to, as rdma_cm ids find their
 * device. The CM makes progress only in rte_roce_cm_poll() (doc/cm.md,
 * "Threading model"): call it with the device's progress (inline mode)
 * or from any thread (worker mode). No call blocks.
 *
 * Return values follow the library: constructors return NULL and set
 * rte_errno; other calls return 0 or a negative errno.
 *
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 */

#include <stdint.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A CM instance: the connection manager of one device (opaque). */
struct rte_roce_cm;

/** Port spaces, rdma_cm's values (RDMA_PS_*): the service ID's high bits. */
enum rte_roce_cm_port_space {
	RTE_ROCE_CM_PS_IPOIB = 0x0002,	/**< Not supported. */
	RTE_ROCE_CM_PS_TCP = 0x0106,	/**< Reliable connections (RC). */
	RTE_ROCE_CM_PS_UDP = 0x0111,	/**< Unreliable datagrams (UD), resolved by SIDR. */
	RTE_ROCE_CM_PS_IB = 0x013f,	/**< RC; UD not supported yet. */
};

/** Q_Key of the UD QPs of RTE_ROCE_CM_PS_UDP ids, rdma_cm's RDMA_UDP_QKEY. */
#define RTE_ROCE_CM_UDP_QKEY 0x01234567

/** Events, rdma_cm's names and order (RDMA_CM_EVENT_*). */
enum rte_roce_cm_event_type {
	RTE_ROCE_CM_EVENT_ADDR_RESOLVED,
	RTE_ROCE_CM_EVENT_ADDR_ERROR,
	RTE_ROCE_CM_EVENT_ROUTE_RESOLVED,
	RTE_ROCE_CM_EVENT_ROUTE_ERROR,
	RTE_ROCE_CM_EVENT_CONNECT_REQUEST,
	RTE_ROCE_CM_EVENT_CONNECT_RESPONSE,
	RTE_ROCE_CM_EVENT_CONNECT_ERROR,
	RTE_ROCE_CM_EVENT_UNREACHABLE,
	RTE_ROCE_CM_EVENT_REJECTED,
	RTE_ROCE_CM_EVENT_ESTABLISHED,
	RTE_ROCE_CM_EVENT_DISCONNECTED,
	RTE_ROCE_CM_EVENT_DEVICE_REMOVAL,
	RTE_ROCE_CM_EVENT_MULTICAST_JOIN,
	RTE_ROCE_CM_EVENT_MULTICAST_ERROR,
	RTE_ROCE_CM_EVENT_ADDR_CHANGE,
	RTE_ROCE_CM_EVENT_TIMEWAIT_EXIT,
	RTE_ROCE_CM_EVENT_MAX	/**< Number of event types. */
};

/** An event channel: a queue of events and an fd readable while it is not empty. */
struct rte_roce_cm_channel {
	int fd;		/**< An eventfd, readable when an event is queued. */
};

/** A CM id: what rdma_cm_id shows, the rest is private. */
struct rte_roce_cm_id {
	struct ibv_context *verbs;	/**< The device, once bound (NULL before). */
	struct rte_roce_cm_channel *channel;	/**< Where its events go. */
	void *context;			/**< The application's. */
	struct ibv_qp *qp;		/**< Set by rte_roce_cm_create_qp(). */
	enum rte_roce_cm_port_space ps;	/**< Its port space. */
	uint8_t port_num;		/**< 1 once bound. */
	/**
	 * Synchronous ids (created without a channel): the event the last call
	 * waited for (ESTABLISHED after connect, CONNECT_REQUEST after
	 * rte_roce_cm_get_request(), ...), as rdma_cm_id's event; acknowledged
	 * by the id's next waiting call or its destruction. NULL otherwise.
	 */
	struct rte_roce_cm_event *event;
};

/** Connection parameters, as struct rdma_conn_param. */
struct rte_roce_cm_conn_param {
	const void *private_data;	/**< Sent in the REQ, REP or REJ. */
	uint8_t private_data_len;	/**< Bytes of it (REQ: 56 at most, REP: 196). */
	uint8_t responder_resources;	/**< READs/atomics the peer may have in flight to us. */
	uint8_t initiator_depth;	/**< READs/atomics we may have in flight to the peer. */
	uint8_t flow_control;		/**< Ignored (end-to-end flow control). */
	uint8_t retry_count;		/**< Transport retries, 0..7 (connect only). */
	uint8_t rnr_retry_count;	/**< RNR retries, 0..7 (7: infinite). */
	uint8_t srq;			/**< Ignored: set from the QP. */
	uint32_t qp_num;		/**< connect: the QPN to announce when the id has no QP. */
};

/** What a UD id's peer is, as struct rdma_ud_param: where to send with an AH. */
struct rte_roce_cm_ud_param {
	const void *private_data;	/**< The SIDR_REQ's (after rdma_cm's header) or SIDR_REP's. */
	uint8_t private_data_len;	/**< Bytes of it. */
	struct ibv_ah_attr ah_attr;	/**< An address vector to the peer (rte_roce_create_ah()). */
	uint32_t qp_num;		/**< ESTABLISHED: the peer's QPN. */
	uint32_t qkey;			/**< ESTABLISHED: the peer's Q_Key. */
};

/** An event; valid until rte_roce_cm_ack_cm_event(). */
struct rte_roce_cm_event {
	struct rte_roce_cm_id *id;		/**< The id (CONNECT_REQUEST: the new one). */
	struct rte_roce_cm_id *listen_id;	/**< CONNECT_REQUEST: the listener. */
	enum rte_roce_cm_event_type event;	/**< What happened. */
	/**
	 * 0, or: REJECTED: the REJ reason (enum rte_roce_cm_rej_reason);
	 * UNREACHABLE (no REP, or no RTU to our REP): -ETIMEDOUT;
	 * CONNECT_ERROR: -EINVAL (a REP our QP cannot take); ADDR_ERROR: -ETIMEDOUT or
	 * -EHOSTUNREACH (rte_roce_cm_resolve_addr()).
	 */
	int status;
	struct rte_roce_cm_conn_param param;	/**< The peer's (private data in the event). */
	/**
	 * RTE_ROCE_CM_PS_UDP ids (SIDR, IBTA Vol. 1 §12.11): CONNECT_REQUEST
	 * (the requester's address and private data) and ESTABLISHED (the
	 * service's QPN and Q_Key); UNREACHABLE then has the SIDR_REP's status
	 * (enum rte_roce_cm_sidr_status) or -ETIMEDOUT.
	 */
	struct rte_roce_cm_ud_param ud;
};

/** Timeouts and limits of a CM instance; zero fields take the defaults shown. */
struct rte_roce_cm_conf {
	/**
	 * CM response timeout, 4.096 us * 2^value (default 20: 4.3 s, Linux's
	 * CMA_CM_RESPONSE_TIMEOUT); the wait before a REQ, REP or DREQ is sent
	 * again.
	 */
	uint8_t response_timeout;
	/** Sends of a REQ, REP or DREQ after the first, 1..15 (default 15). */
	uint8_t max_cm_retries;
	/** CM ids of the instance at most, listeners included (default 1024). */
	uint32_t max_ids;
	/**
	 * MADs in flight on QP1 at most, each way (default 64): QP1's send and
	 * receive queues. A MAD sent while all are in flight waits its turn in
	 * the backlog below, as Linux's MAD layer queues sends beyond its send
	 * queue (drivers/infiniband/core/mad.c, ib_send_mad(): the overflow list).
	 */
	uint32_t mad_slots;
	/**
	 * MADs waiting for a send slot at most, sent in order as slots free up
	 * (default: max_ids); one more is not sent: the call that sends it fails
	 * with -ENOMEM (connect, accept, reject, ...) or, for a reply the CM
	 * makes alone, it is counted in send_errors.
	 */
	uint32_t mad_backlog;
};

/** Counters of a CM instance. */
struct rte_roce_cm_stats {
	uint64_t mads_sent;		/**< MADs posted to QP1. */
	uint64_t mads_rcvd;		/**< MADs received on QP1. */
	uint64_t retransmits;		/**< REQ, REP, DREQ sent again after a timeout. */
	uint64_t timeouts;		/**< Exchanges given up after max_cm_retries. */
	uint64_t duplicates;		/**< Duplicate messages answered from state. */
	uint64_t rej_sent;		/**< REJs sent. */
	uint64_t rej_rcvd;		/**< REJs received. */
	uint64_t mra_sent;		/**< MRAs sent. */
	uint64_t mra_rcvd;		/**< MRAs received. */
	uint64_t established;		/**< Connections established. */
	uint64_t backlog_full;		/**< REQs rejected because a listener's backlog was full. */
	uint64_t drop_length;		/**< Dropped: not a whole 256-byte MAD. */
	uint64_t drop_base_version;	/**< Dropped: base version not 1. */
	uint64_t drop_class;		/**< Dropped: a management class other than the CM. */
	uint64_t drop_class_version;	/**< Dropped: CM class version not 2. */
	uint64_t drop_method;		/**< Dropped: a method the attribute does not take. */
	uint64_t drop_attr;		/**< Dropped: an unknown or unsupported attribute. */
	uint64_t drop_comm_id;		/**< Dropped: no connection has this comm ID. */
	uint64_t drop_state;		/**< Dropped: a message the connection's state does not take. */
	uint64_t drop_field;		/**< Dropped: a field out of range (MTU, transport...). */
	uint64_t send_errors;		/**< MADs not sent: backlog full, no AH, post refused. */
	uint64_t addr_errors;		/**< Destinations not resolved (ADDR_ERROR events). */
	uint64_t status_sent;		/**< GETs and SETs not served, answered with a MAD status. */
	uint64_t mads_queued;		/**< MADs that waited in the backlog for a send slot. */
	uint64_t apr_sent;		/**< APRs sent: every LAP received is answered. */
};

/**
 * Start connection management on a device: create QP1 (with its own PD,
 * CQs and MAD buffers) and register the instance so that ids bound to
 * the device's addresses find it.
 *
 * @param ctx
 *   The device; it must have no QP1 yet.
 * @param conf
 *   Timeouts and limits, or NULL for the defaults.
 * @return
 *   The instance, or NULL with rte_errno: EINVAL (ctx NULL, response_timeout
 *   above 31, max_cm_retries above 15), EEXIST (the device has a QP1 or a CM
 *   already), ENOMEM, or the errno of the verbs call that failed.
 */
__rte_experimental
struct rte_roce_cm *rte_roce_cm_open(struct ibv_context *ctx, const struct rte_roce_cm_conf *conf);

/**
 * Stop connection management on a device: QP1 and the instance's
 * objects are destroyed.
 *
 * @param cm
 *   The instance.
 * @return
 *   0; -EINVAL (cm NULL); -EBUSY (ids are still bound to it).
 */
__rte_experimental
int rte_roce_cm_close(struct rte_roce_cm *cm);

/**
 * Make progress: handle the MADs QP1 received, free the buffers of sent
 * ones, fire due timers. Call it as often as rte_roce_poll().
 *
 * @param cm
 *   The instance.
 * @return
 *   MADs and timers handled (0 when idle); -EINVAL (cm NULL).
 */
__rte_experimental
int rte_roce_cm_poll(struct rte_roce_cm *cm);

/**
 * MADs the instance sent whose sends have not completed yet (in flight on
 * QP1, or waiting in its backlog): 0 once all it sent has left (a REJ, SIDR_REP or DREQ of the last calls). A process
 * about to exit waits for it while the CM and the device still make
 * progress: Linux's CM sends them after the process is gone.
 *
 * @return
 *   The count; -EINVAL (cm NULL).
 */
__rte_experimental
int rte_roce_cm_sends_pending(struct rte_roce_cm *cm);

/**
 * Read the counters of an instance.
 *
 * @return
 *   0; -EINVAL (NULL argument).
 */
__rte_experimental
int rte_roce_cm_stats_get(struct rte_roce_cm *cm, struct rte_roce_cm_stats *stats);

/**
 * Names of the counters, as rte_roce_xstats_names_get(): call with NULL
 * for the count. Names are those of struct rte_roce_cm_stats with the
 * prefix "cm_".
 *
 * @return
 *   The number of counters; -EINVAL (cm NULL).
 */
__rte_experimental
int rte_roce_cm_xstats_names_get(struct rte_roce_cm *cm, char (*names)[64], unsigned int n);

/**
 * Values of the counters, in the order of rte_roce_cm_xstats_names_get().
 *
 * @return
 *   The number of counters (n too small: the count needed, nothing written);
 *   -EINVAL (cm NULL).
 */
__rte_experimental
int rte_roce_cm_xstats_get(struct rte_roce_cm *cm, uint64_t *values, unsigned int n);

/**
 * Create an event channel, as rdma_create_event_channel().
 *
 * @return
 *   The channel, or NULL with rte_errno: ENOMEM, or the errno of eventfd(2).
 */
__rte_experimental
struct rte_roce_cm_channel *rte_roce_cm_create_event_channel(void);

/**
 * Destroy an event channel.
 *
 * @return
 *   0; -EINVAL (NULL); -EBUSY (ids use it, or events are not acknowledged).
 */
__rte_experimental
int rte_roce_cm_destroy_event_channel(struct rte_roce_cm_channel *channel);

/**
 * Create a CM id, as rdma_create_id().
 *
 * @param channel
 *   Where its events go; NULL: a synchronous id, as in rdma_cm. Its events go to
 *   a channel of its own, and the calls that start something wait for the
 *   outcome: resolve_addr, resolve_route, connect (ESTABLISHED), accept
 *   (ESTABLISHED), disconnect (DISCONNECTED); a synchronous listener hands
 *   out requests with rte_roce_cm_get_request(). While they wait, these
 *   calls drive the CM (rte_roce_cm_poll()) and, in inline mode, the device
 *   (rte_roce_poll()): in inline mode call them from the thread that drives
 *   the device. The event waited for is in id->event; a failed one makes
 *   the call return its status as librdmacm does (REJECTED: -ECONNREFUSED,
 *   UNREACHABLE: -ETIMEDOUT, CONNECT_ERROR: -EINVAL).
 * @param id
 *   Where to write the id.
 * @param context
 *   The application's, in id->context.
 * @param ps
 *   RTE_ROCE_CM_PS_TCP or RTE_ROCE_CM_PS_IB (RC), RTE_ROCE_CM_PS_UDP (UD,
 *   resolved by SIDR: see rte_roce_cm_connect()).
 * @return
 *   0; -EINVAL (NULL id, unsupported port space); -ENOMEM; the errno of
 *   eventfd(2) (synchronous id).
 */
__rte_experimental
int rte_roce_cm_create_id(struct rte_roce_cm_channel *channel, struct rte_roce_cm_id **id,
			  void *context, enum rte_roce_cm_port_space ps);

/**
 * Destroy a CM id, as rdma_destroy_id(). A connected id should be
 * disconnected first; its QP (if rte_roce_cm_create_qp() made it) must be
 * destroyed first with rte_roce_cm_destroy_qp(). A synchronous id's own
 * events (id->event and those no call waited for) are acknowledged here.
 *
 * @return
 *   0; -EINVAL (NULL); -EBUSY (an event of it is not acknowledged, or its QP
 *   exists).
 */
__rte_experimental
int rte_roce_cm_destroy_id(struct rte_roce_cm_id *id);

/**
 * Bind an id to a local address, as rdma_bind_addr(): the device whose
 * GID table holds the address (any address: bound at resolve time or,
 * for a listener, every instance). Port 0 picks a free port.
 *
 * @return
 *   0; -EINVAL (NULL argument, family not AF_INET/AF_INET6, id bound
 *   already); -EADDRNOTAVAIL (no device with a CM holds the address);
 *   -EADDRINUSE (port taken in the port space).
 */
__rte_experimental
int rte_roce_cm_bind_addr(struct rte_roce_cm_id *id, const struct sockaddr *addr);

/**
 * Resolve the destination, as rdma_resolve_addr(): bind to src, then
 * resolve dst's MAC through the device's port (ARP / Neighbour Discovery,
 * rte_roce_resolve_gid()). ADDR_RESOLVED is queued when the MAC is known
 * (at once if the port knows it already, or dst is the device's own);
 * ADDR_ERROR when it is not known after timeout_ms (status -ETIMEDOUT, as
 * Linux) or the port gave up on it (status -EHOSTUNREACH: no answer after
 * the port's neigh_retries, a failure the port remembers for
 * neigh_timeout_ms). rte_roce_cm_poll() checks the resolution every
 * millisecond.
 *
 * @param timeout_ms
 *   How long to wait for the MAC; 0: only a MAC already known resolves.
 * @return
 *   0; -EINVAL (NULL dst, families differ, not AF_INET/AF_INET6, negative
 *   timeout_ms, a multicast or unspecified dst); -EADDRNOTAVAIL (no source
 *   address, or the port has no address of dst's family); -ENOSPC (the
 *   port's neighbour cache is full of unresolved entries).
 *   Synchronous id: then the event's errno (rte_roce_cm_create_id()).
 */
__rte_experimental
int rte_roce_cm_resolve_addr(struct rte_roce_cm_id *id, const struct sockaddr *src,
			     const struct sockaddr *dst, int timeout_ms);

/**
 * Resolve the route, as rdma_resolve_route(): on RoCE the path is the
 * pair of GIDs; queues ROUTE_RESOLVED.
 *
 * @return
 *   0; -EINVAL (NULL id, address not resolved).
 *   Synchronous id: then the event's errno (rte_roce_cm_create_id()).
 */
__rte_experimental
int rte_roce_cm_resolve_route(struct rte_roce_cm_id *id, int timeout_ms);

/**
 * The addresses of an id, as rdma_cm_id's route.addr: the local one (bound,
 * with the port picked if 0 was asked; a passive id: the address its REQ was
 * sent to) and the peer's (resolved; a passive id: the REQ's sender, from
 * rdma_cm's header). An address not known yet reads as zeros (family 0).
 *
 * @return
 *   0; -EINVAL (NULL argument).
 */
__rte_experimental
int rte_roce_cm_get_addr(struct rte_roce_cm_id *id, struct sockaddr_storage *src,
			 struct sockaddr_storage *dst);

/**
 * Listen for connection requests, as rdma_listen(). Each REQ for the
 * id's service ID (port space and port) queues CONNECT_REQUEST with a new
 * id; beyond backlog requests not yet accepted or rejected, REQs are
 * rejected (NO_RESOURCES) and counted.
 *
 * @return
 *   0; -EINVAL (NULL id, not bound, backlog < 0).
 */
__rte_experimental
int rte_roce_cm_listen(struct rte_roce_cm_id *id, int backlog);

/**
 * Create a QP for an id on pd, as rdma_create_qp(), and set it in id->qp.
 * An RC QP (RTE_ROCE_CM_PS_TCP and _IB ids) is moved to INIT (P_Key index
 * 0, port 1, the access rights rdma_cm gives); a UD QP (RTE_ROCE_CM_PS_UDP)
 * to RTS with Q_Key RTE_ROCE_CM_UDP_QKEY, ready to send and receive, as
 * librdmacm makes it. send_cq and recv_cq must be set in qp_init_attr.
 *
 * @return
 *   0; -EINVAL (NULL argument, id not bound, qp_type not the port space's,
 *   id has a QP);
 *   the errno of rte_roce_create_qp() or rte_roce_modify_qp().
 */
__rte_experimental
int rte_roce_cm_create_qp(struct rte_roce_cm_id *id, struct ibv_pd *pd,
			  struct ibv_qp_init_attr *qp_init_attr);

/**
 * Destroy the id's QP, as rdma_destroy_qp().
 *
 * @return
 *   0; -EINVAL (NULL id or no QP); the errno of rte_roce_destroy_qp().
 */
__rte_experimental
int rte_roce_cm_destroy_qp(struct rte_roce_cm_id *id);

/**
 * Take the next connection request of a synchronous listener, as
 * rdma_get_request(): wait for a CONNECT_REQUEST (driving progress as the
 * synchronous calls do) and hand out its new id, synchronous too, with the
 * event in (*id)->event (the peer's parameters and private data).
 *
 * @param listen
 *   A listening id created without a channel.
 * @param id
 *   Where to write the new id.
 * @return
 *   0; -EINVAL (NULL argument, not a synchronous listening id, or the event
 *   that came was not a request); -ENOMEM; the errno of eventfd(2).
 */
__rte_experimental
int rte_roce_cm_get_request(struct rte_roce_cm_id *listen, struct rte_roce_cm_id **id);

/**
 * Connect, as rdma_connect(): send a REQ (rdma_cm's header, then
 * param->private_data). REP moves the QP to RTR and RTS, sends the RTU and
 * queues ESTABLISHED; a REJ queues REJECTED; no answer after
 * max_cm_retries queues UNREACHABLE. An id without a QP announces
 * param->qp_num; its REP queues CONNECT_RESPONSE, and the application
 * moves its QP (rte_roce_cm_init_qp_attr()) and calls rte_roce_cm_establish().
 *
 * An RTE_ROCE_CM_PS_UDP id sends a SIDR_REQ instead (IBTA Vol. 1 §12.11,
 * rdma_cm's header then up to 180 bytes of private data; no QP needed):
 * the SIDR_REP queues ESTABLISHED with the service's QPN, Q_Key and an
 * address vector in event->ud, or UNREACHABLE with its status (not
 * supported, rejected, ...); no answer after max_cm_retries: UNREACHABLE,
 * -ETIMEDOUT. A UD id connects once.
 *
 * @return
 *   0; -EINVAL (NULL argument, route not resolved, no QP and qp_num 0 (RC),
 *   private data above 56 bytes (UD: 180), retry or RNR count above 7,
 *   responder resources or initiator depth above the device's
 *   max_qp_rd_atom, state not idle, a UD id that connected already);
 *   -ENOMEM (every MAD slot in flight and the backlog full: mad_backlog).
 *   Synchronous id: then the event's errno (rte_roce_cm_create_id()).
 */
__rte_experimental
int rte_roce_cm_connect(struct rte_roce_cm_id *id, const struct rte_roce_cm_conn_param *param);

/**
 * Accept a connection request, as rdma_accept(): the QP is moved to RTR
 * and RTS from the REQ's fields (as librdmacm does before the REP), the
 * REP is sent; the RTU queues ESTABLISHED.
 *
 * @param id
 *   The id of the CONNECT_REQUEST event.
 * @param param
 *   Private data and depths, each depth capped by what the REQ offered; NULL
 *   as librdmacm's rdma_accept(id, NULL): no private data, the depths the
 *   REQ offered within the device's max_qp_rd_atom.
 * A UD id's request (RTE_ROCE_CM_PS_UDP) is answered with a SIDR_REP
 * giving the id's QP (or param->qp_num) and RTE_ROCE_CM_UDP_QKEY, and up to
 * 136 bytes of private data; nothing follows (no ESTABLISHED on this side,
 * as in Linux), and a synchronous id does not wait.
 *
 * @return
 *   0; -EINVAL (NULL id, id not from CONNECT_REQUEST or answered,
 *   no QP, private data above 196 bytes (UD: 136)); the errno of
 *   rte_roce_modify_qp().
 *   Synchronous id: then the event's errno (rte_roce_cm_create_id()).
 */
__rte_experimental
int rte_roce_cm_accept(struct rte_roce_cm_id *id, const struct rte_roce_cm_conn_param *param);

/**
 * Reject a connection request, as rdma_reject(): a REJ with reason
 * CONSUMER_DEFINED and the private data (148 bytes at most); a UD id's
 * request: a SIDR_REP with status "rejected" (the first 136 bytes).
 *
 * @return
 *   0; -EINVAL (NULL id, not a request waiting for an answer, private data
 *   too long).
 */
__rte_experimental
int rte_roce_cm_reject(struct rte_roce_cm_id *id, const void *private_data,
		       uint8_t private_data_len);

/**
 * Complete an active connection whose id has no QP, as rdma_establish():
 * after CONNECT_RESPONSE, send the RTU.
 *
 * @return
 *   0; -EINVAL (NULL id, no REP waiting).
 */
__rte_experimental
int rte_roce_cm_establish(struct rte_roce_cm_id *id);

/**
 * Move an id to another event channel, as rdma_migrate_id(): its events
 * not taken yet go with it; NULL makes the id synchronous (a channel of its
 * own, as rte_roce_cm_create_id() without one). A synchronous id's kept
 * event is acknowledged and its channel destroyed. Where librdmacm waits
 * for the id's events already taken from the old channel to be
 * acknowledged, this call refuses.
 *
 * @return
 *   0; -EINVAL (NULL id); -EBUSY (events of the id taken and not
 *   acknowledged: nothing moved); -ENOMEM or the errno of eventfd(2) (NULL
 *   channel).
 */
__rte_experimental
int rte_roce_cm_migrate_id(struct rte_roce_cm_id *id, struct rte_roce_cm_channel *channel);

/**
 * Tell the CM of an asynchronous event of the connection's QP, as
 * rdma_notify(): IBV_EVENT_COMM_EST, a message received on the QP of a
 * passive id whose RTU has not come yet, makes the connection established
 * at once (ESTABLISHED queued, the REP no longer sent again), as Linux's
 * ib_cm_notify() does. A late RTU is then a duplicate.
 *
 * @return
 *   0; -EINVAL (NULL id, no CM, an event other than IBV_EVENT_COMM_EST:
 *   IBV_EVENT_PATH_MIG needs an alternate path, which RoCE connections do
 *   not have, or an id not waiting for its RTU); -EISCONN (established
 *   already).
 */
__rte_experimental
int rte_roce_cm_notify(struct rte_roce_cm_id *id, enum ibv_event_type event);

/**
 * Attributes to move an application's QP for this connection, as
 * rdma_init_qp_attr(): set qp_attr->qp_state to IBV_QPS_INIT, IBV_QPS_RTR
 * or IBV_QPS_RTS; the attributes and their mask are written, for
 * rte_roce_modify_qp(). RTR and RTS need the peer's REQ or REP; a UD id's
 * (RTE_ROCE_CM_PS_UDP) need nothing: INIT gives P_Key index 0, port 1 and
 * RTE_ROCE_CM_UDP_QKEY, RTR the state alone, RTS SQ PSN 0, as librdmacm
 * moves a UD QP.
 *
 * @return
 *   0; -EINVAL (NULL argument, id not bound, another state, the peer not known yet).
 */
__rte_experimental
int rte_roce_cm_init_qp_attr(struct rte_roce_cm_id *id, struct ibv_qp_attr *qp_attr,
			     int *qp_attr_mask);

/**
 * Set the traffic class (IP TOS) of the id's connection, as
 * rdma_set_option(RDMA_OPTION_ID, RDMA_OPTION_ID_TOS) (Linux's
 * rdma_set_service_type()). The route takes it when it is resolved
 * (rte_roce_cm_resolve_route(); a later call changes nothing of that
 * connection, as on Linux): the REQ's primary path carries it (IBTA Vol. 1
 * §12.6, Table 106, Primary Traffic Class) and so does our QP's GRH, whose
 * traffic class librte_roce sends as the IP header's TOS; the passive side
 * takes the REQ's. Default 0.
 *
 * @return
 *   0; -EINVAL (NULL id).
 */
__rte_experimental
int rte_roce_cm_set_tos(struct rte_roce_cm_id *id, uint8_t tos);

/**
 * Disconnect, as rdma_disconnect(): the QP is moved to ERR (its work
 * requests flush) and a DREQ sent; the DREP, or max_cm_retries without
 * one, queues DISCONNECTED and the id stays in timewait until
 * TIMEWAIT_EXIT. A connection already disconnecting or disconnected (our
 * DREQ sent, the peer's received, timewait or after it) sends nothing and
 * returns 0, as rdma_disconnect() after the peer's DREQ.
 *
 * @return
 *   0; -EINVAL (NULL id, never connected, still connecting).
 *   Synchronous id: then the event's errno (rte_roce_cm_create_id()): the
 *   next one, e.g. the DISCONNECTED the peer's DREQ queued.
 */
__rte_experimental
int rte_roce_cm_disconnect(struct rte_roce_cm_id *id);

/**
 * Take the next event of a channel, as rdma_get_cm_event() on a
 * non-blocking channel.
 *
 * @return
 *   0 and *event set; -EINVAL (NULL argument); -EAGAIN (none queued).
 */
__rte_experimental
int rte_roce_cm_get_cm_event(struct rte_roce_cm_channel *channel,
			     struct rte_roce_cm_event **event);

/**
 * Acknowledge an event, as rdma_ack_cm_event(): it is freed. A
 * CONNECT_REQUEST's id is the application's from then on.
 *
 * @return
 *   0; -EINVAL (NULL).
 */
__rte_experimental
int rte_roce_cm_ack_cm_event(struct rte_roce_cm_event *event);

/**
 * Name of an event type, as rdma_event_str().
 *
 * @return
 *   "RDMA_CM_EVENT_ESTABLISHED"-style names; "UNKNOWN EVENT" out of range.
 */
__rte_experimental
const char *rte_roce_cm_event_str(enum rte_roce_cm_event_type event);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_CM_H */
