/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_DEV_H
#define ROCE_DEV_H

/*
 * A RoCE device: one port, its limits, the tables of QPs (by QPN) and MRs
 * (by key), the QPs with work, and the engine's timers.
 *
 * Threading (doc/architecture.md, doc/workers.md): a device has lanes, one
 * per worker lcore (worker mode) or one driven by rte_roce_poll() (inline
 * mode). Lane i owns port queue i, its QPs' protocol state, their timers and
 * its counters; control calls hold every lane first (roce_lane.h).
 * Other threads post to QPs and poll CQs (SPSC rings, roce_queue.h) and
 * ring the QP's doorbell with roce_dev_qp_schedule(), which is lock-free
 * (an MP/SC rte_ring per lane). A frame received by a lane that does not
 * own its QP goes to the owner through a per-(lane, lane) SPSC ring.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include <rte_common.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "rte_roce_gid.h"
#include "rte_roce_verbs.h"
#include "roce_event.h"
#include "roce_index_fifo.h"
#include "roce_timer.h"
#include "roce_transport.h"

struct roce_mr;
struct roce_mw;
struct roce_qp;
struct roce_worker;

/* QPNs below this are reserved: QP0 (SMI), QP1 (GSI) and rxe's first numbers (K:rxe_param.h). */
#define ROCE_QPN_FIRST		0x11
/* Largest QPN: 24 bits (IBA 9.2 BTH DestQP). */
#define ROCE_QPN_MAX		0xffffff
/* Frames taken from the port per rte_roce_poll(). */
#define ROCE_DEV_RX_BURST	32
/* Packets a QP may send per role per rte_roce_poll() before the next QP runs. */
#define ROCE_DEV_QP_BUDGET	64
/* Packets one run of a QP may send: both roles' budgets. */
#define ROCE_DEV_QP_TX_MAX	(2 * ROCE_DEV_QP_BUDGET)
/* Scheduled QPs whose state roce_dev_run_qps() fetches before their run. */
#define ROCE_DEV_RUN_AHEAD	8u
/*
 * Full RX bursts in a row for which a lane puts its timers off (input
 * before timeouts, roce_dev_progress()): a full RX ring of 4,096
 * descriptors, read in bursts of ROCE_DEV_RX_BURST.
 */
#define ROCE_DEV_TIMER_DEFER_POLLS	(4096 / ROCE_DEV_RX_BURST)

/* PDs per device. */
#define ROCE_DEV_MAX_PD		65536

/* A protection domain: counts the MRs and QPs that use it (control path). */
struct roce_pd {
	struct ibv_pd ibv;	/* first: roce_pd_of() is a cast */
	uint32_t users;
};

static inline struct roce_pd *
roce_pd_of(struct ibv_pd *pd)
{
	return (struct roce_pd *)pd;
}

/* Progress-loop counters of one lane (summed over the lanes when read). */
struct roce_dev_stats {
	uint64_t polls;			/* passes of the progress loop */
	uint64_t rx_frames;		/* RoCE frames handed to roce_recv_burst() */
	uint64_t qp_runs;		/* QPs run by the progress loop */
	uint64_t cq_overflows;		/* CQs that overran */
	uint64_t handoffs_out;		/* frames handed to the lane owning their QP */
	uint64_t handoffs_in;		/* frames another lane handed to this one */
	uint64_t handoff_drops;		/* hand-off ring full: dropped (the transport recovers) */
	uint64_t timer_defers;		/* polls whose timers waited for a backlogged RX queue */
};

/* Frames a hand-off ring holds, from one lane to another (a power of two). */
#define ROCE_LANE_HANDOFF_RING	1024

/*
 * The progress state of one worker (or of the inline poller): port queue
 * id, the QPs with work, the timers and counters of its QPs, and the
 * frames other lanes handed to it. Written by its own thread only, except
 * sched (any thread enqueues) and inbox[j] (lane j enqueues).
 */
struct roce_lane {
	struct roce_dev *dev;
	uint16_t id;			/* lane index = port queue */
	bool cq_error;			/* a CQ of one of its QPs overran: move them to ERR */
	uint16_t timer_defers;		/* full RX bursts in a row with the timers put off */
	/* The control handshake (roce_lane.c), with its worker or inline poller. */
	uint32_t pause;			/* controller -> lane: do not run it */
	uint32_t busy;			/* its worker or a poller may be running it */
	uint32_t nb_qps;		/* QPs on this lane (control path) */
	struct rte_ring *sched;		/* QPNs of its QPs with work; each at most once */
	struct rte_ring **inbox;	/* [from lane]: SPSC of mbufs, QPN in hash.usr; NULL for itself */
	struct roce_timer_wheel timers;	/* of its QPs (roce_timer.h) */
	struct roce_dev_stats stats;
	struct roce_transport_stats xstats;	/* the engine's (roce_transport.h) */
	struct rte_mbuf *rx[ROCE_DEV_RX_BURST];
} __rte_cache_aligned;

/* A UD QP attached to a multicast group (roce_mcast.c). */
struct roce_mcast_attach {
	union rte_roce_gid gid;
	struct roce_qp *qp;		/* NULL: free slot */
};

struct roce_dev {
	/*
	 * The device's ibv_context is the last member of a zeroed struct
	 * verbs_context, which the engine never reads: a verbs layer may fill
	 * and mark it (rte_roce_verbs.h). ibv names the context.
	 */
	union {
		struct verbs_context vctx;
		struct {
			uint8_t vctx_head[offsetof(struct verbs_context, context)];
			struct ibv_context ibv;
		};
	};
	struct ibv_device ibv_dev;	/* what ibv.device points to */
	struct rte_roce_port *port;
	struct rte_roce_dev_conf conf;	/* limits, defaults applied */
	const struct roce_engine *engine;	/* its timer handlers (roce_transport.h) */
	int socket;			/* NUMA socket of the port */
	uint16_t port_id;		/* the port's ethdev */

	uint32_t nb_pds;
	uint32_t nb_cqs;
	uint32_t nb_qps;
	uint32_t nb_mrs;
	uint32_t nb_mws;
	uint32_t nb_srqs;
	uint32_t srq_handles;		/* next SRQ handle (log names) */

	/* QPs by QPN: slot = qpn & qp_mask, generation in the bits above. */
	struct roce_qp **qp_tbl;
	uint32_t qp_mask;
	uint32_t qp_shift;		/* log2(slots) */
	uint32_t *qp_free;		/* FIFO of free slots: reuse as late as possible */
	uint32_t qp_free_head;
	uint32_t qp_free_count;
	uint16_t *qp_gen;		/* generation per slot */

	/* MRs by key: index = key >> ROCE_MR_KEY_GEN_BITS; entry 0 unused. */
	struct roce_mr *mr_tbl;
	struct roce_index_fifo mr_free;
	/* Memory windows (roce_mw.h): key indexes max_mr + 1 .. max_mr + max_mw. */
	struct roce_mw *mw_tbl;		/* by index - max_mr - 1 */
	struct roce_index_fifo mw_free;
	uint32_t max_mw;

	/* Lanes: one per worker, or one for rte_roce_poll() (roce_lane). */
	struct roce_lane *lanes;
	uint16_t nb_lanes;

	struct roce_async async;	/* async_fd and its events (roce_event.h) */
	struct roce_mcast_attach mcast[RTE_ROCE_DEV_MCAST_MAX];

	/* Worker mode (roce_worker.h): NULL and 0 in inline mode. */
	struct roce_worker *workers;
	uint16_t nb_workers;
	rte_spinlock_recursive_t ctrl_lock;	/* between controllers; never taken by a worker */
};

static inline struct roce_dev *
roce_dev_of(struct ibv_context *ctx)
{
	return container_of(ctx, struct roce_dev, ibv);
}

/*
 * A device on port with conf's limits: its tables, async events and
 * ibv_context, no lanes yet (rte_roce_open_device(), roce_verbs.c, adds
 * them). NULL with rte_errno set if port or conf cannot work.
 */
struct roce_dev *roce_dev_create(struct rte_roce_port *port, const struct rte_roce_dev_conf *conf);
/* Free what roce_dev_create() made; the lanes are freed first. */
void roce_dev_destroy(struct roce_dev *dev);
/* 0 if dev holds no object any more, else -EBUSY, logged with what is left. */
int roce_dev_check_idle(const struct roce_dev *dev);

/*
 * The device of pd, for the create calls that take (pd, attr): NULL with
 * rte_errno EINVAL (logged) if either is NULL.
 */
struct roce_dev *roce_dev_of_pd(struct ibv_pd *pd, const void *attr);

/* The QP numbered qpn, or NULL (free slot, stale generation, out of range). O(1). */
struct roce_qp *roce_dev_qp_lookup(struct roce_dev *dev, uint32_t qpn);

/*
 * Note that qp has work for the progress loop: posted WQEs, a timer or a
 * response that unblocked it, an ERR flush. Lock-free, callable from the
 * posting thread; a QP already scheduled is not queued twice.
 */
void roce_dev_qp_schedule(struct roce_dev *dev, struct roce_qp *qp);

/* Called by roce_cq_push() when a CQ of lane overruns: its next pass moves the QPs to ERR. */
void roce_dev_cq_error(struct roce_lane *lane);

/*
 * Hand frame m, for QP qpn (kept in m->hash.usr), to lane to (not the
 * caller's lane from). The mbuf is the ring's then; a full ring frees and
 * counts it. false if dropped.
 */
bool roce_dev_handoff(struct roce_lane *from, uint16_t to, struct rte_mbuf *m, uint32_t qpn);

/* Bytes of a verbs path MTU enum (IBV_MTU_256 = 1 .. IBV_MTU_4096 = 5). */
uint32_t roce_mtu_bytes(enum ibv_mtu mtu);

/*
 * The list of open devices, for the readers that start from nothing
 * (telemetry): a device is listed from open to close, under one lock that
 * also covers taking a QP out of a device's table, so that a reader holding
 * it never sees a QP or a device being freed.
 */
/* Devices listed at once: ids are 0 .. ROCE_DEV_LIST_MAX - 1. */
#define ROCE_DEV_LIST_MAX 64

void roce_dev_list_lock(void);
void roce_dev_list_unlock(void);
/* List dev (at open): 0, or -ENOSPC when ROCE_DEV_LIST_MAX are open. */
int roce_dev_list_add(struct roce_dev *dev);
/* Unlist dev (at close, before it is freed). */
void roce_dev_list_del(struct roce_dev *dev);
/* The device listed as id, or NULL; the caller holds the lock. */
struct roce_dev *roce_dev_listed(uint32_t id);

/* Slot management for roce_qp.c: 0 and *qpn, or -ENOSPC. */
int roce_dev_qpn_alloc(struct roce_dev *dev, struct roce_qp *qp, uint32_t *qpn);
void roce_dev_qpn_free(struct roce_dev *dev, uint32_t qpn);
/* Take a reserved QPN below ROCE_QPN_FIRST (QP1): 0, -EEXIST, -ENOSPC (max_qp). */
int roce_dev_qpn_reserve(struct roce_dev *dev, struct roce_qp *qp, uint32_t qpn);

#endif /* ROCE_DEV_H */
