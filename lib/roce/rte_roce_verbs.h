/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_VERBS_H
#define RTE_ROCE_VERBS_H

/**
 * @file
 * The verbs-like API of librte_roce.
 *
 * Objects are rdma-core's own types from <infiniband/verbs.h>: a device is a
 * struct ibv_context, and PDs, MRs, CQs and QPs are struct ibv_pd, ibv_mr,
 * ibv_cq and ibv_qp, embedded at the start of librte_roce's private objects.
 * Work requests and completions are struct ibv_send_wr, ibv_recv_wr and
 * ibv_wc. A verbs program ports by renaming its calls (ibv_post_send ->
 * rte_roce_post_send) and adding the progress call rte_roce_poll(); the
 * public fields it reads (qp->qp_num, mr->lkey, mr->rkey, cq->cqe, ...) are
 * filled in as a verbs provider fills them. The ops table of the
 * ibv_context is left empty: do not call libibverbs on these objects.
 *
 * For a verbs layer on top (lib/roce_verbs, doc/verbs-abi.md): the
 * ibv_context is the `context` member of a struct verbs_context, every
 * ibv_cq the start of a struct ibv_cq_ex and every ibv_qp the start of a
 * struct ibv_qp_ex (rdma-core's extended objects, as <infiniband/verbs.h>
 * lays them out). Their extended fields are zeroed at creation and never
 * read by librte_roce; the context's abi_compat is left 0 (not extended).
 *
 * Return values follow DPDK, not verbs: constructors return NULL and set
 * rte_errno; other calls return 0 or a NEGATIVE errno (verbs returns a
 * positive one; `if (rc)` works with both). A failure of one work request
 * after it was posted shows only as the status of its completion.
 *
 * Threading (see doc/architecture.md and doc/workers.md): a device's
 * progress is driven either by the application (inline mode,
 * rte_roce_poll()) or by pinned worker lcores (worker mode,
 * rte_roce_worker.h). A QP's send and receive queues are single-producer
 * rings: one thread at a time posts to a queue (the verbs rule), possibly
 * another than the progress thread. A CQ is a single-consumer ring: one
 * thread polls it. Control calls may be made from any thread.
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include <rte_compat.h>

#include <rte_roce_hdr.h>
#include <rte_roce_opcode.h>
#include <rte_roce_port.h>
#include <rte_roce_worker.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest max_qp: QPNs are 24 bits, and the table is a power of two. */
#define RTE_ROCE_DEV_MAX_QP_MAX (1u << 20)
/** Largest max_qp_wr, max_cqe: ring indexes are 32 bits. */
#define RTE_ROCE_DEV_MAX_WR_MAX (1u << 24)
/** Largest max_sge. */
#define RTE_ROCE_DEV_MAX_SGE_MAX 256
/** Largest max_inline_data. */
#define RTE_ROCE_DEV_MAX_INLINE_MAX 4096
/** Largest max_mr: keys are index << 8 | generation. */
#define RTE_ROCE_DEV_MAX_MR_MAX ((1u << 24) - 1)
/** Multicast attachments (QP, group) per device. */
#define RTE_ROCE_DEV_MCAST_MAX 256
/** Largest max_qp_rd_atom: the responder's resources per QP. */
#define RTE_ROCE_DEV_MAX_RD_ATOM_MAX 16

/**
 * @name FLUSH and ATOMIC_WRITE (IBA annex A19, IBTA 1.5)
 * rdma-core 45 added FLUSH to <infiniband/verbs.h>; Debian 12 has rdma-core
 * 44, which has ATOMIC_WRITE (IBV_WR_ATOMIC_WRITE, IBV_WC_ATOMIC_WRITE) but
 * not FLUSH. These carry the values rdma-core 45 gives its names
 * (IBV_WR_FLUSH, IBV_WC_FLUSH, IBV_ACCESS_FLUSH_*, IBV_FLUSH_*), so a
 * program built against either header sends and reads the same numbers.
 * @{
 */
/* RTE_ROCE_WR_FLUSH and RTE_ROCE_WC_FLUSH: rte_roce_opcode.h (the work request table's layer). */
/** MR and QP access: remote FLUSH with placement type global visibility (IBV_ACCESS_FLUSH_GLOBAL). */
#define RTE_ROCE_ACCESS_FLUSH_GLOBAL	(1 << 8)
/** MR and QP access: remote FLUSH with placement type persistence (IBV_ACCESS_FLUSH_PERSISTENT). */
#define RTE_ROCE_ACCESS_FLUSH_PERSISTENT (1 << 9)
/** FLUSH placement type, a bit mask: global visibility (IBV_FLUSH_GLOBAL). */
#define RTE_ROCE_FLUSH_GLOBAL		1
/** FLUSH placement type: persistence (IBV_FLUSH_PERSISTENT). */
#define RTE_ROCE_FLUSH_PERSISTENT	2
/** FLUSH selectivity: the range given (IBV_FLUSH_RANGE). */
#define RTE_ROCE_FLUSH_RANGE		0
/** FLUSH selectivity: the whole memory region of the R_Key (IBV_FLUSH_MR). */
#define RTE_ROCE_FLUSH_MR		1
/** @} */

/** Limits of a device; zero fields take the default shown. */
struct rte_roce_dev_conf {
	uint32_t max_qp;	/**< QPs, QP1 included (default 16,385: 16,384 and QP1) */
	uint32_t max_qp_wr;	/**< WRs per send or receive queue (default 4096) */
	uint32_t max_sge;	/**< SGEs per WR (default 32) */
	uint32_t max_inline_data; /**< inline bytes per send WR (default 256) */
	uint32_t max_cq;	/**< CQs (default 1024) */
	uint32_t max_cqe;	/**< entries per CQ (default 65536) */
	uint32_t max_mr;	/**< MRs (default 4096) */
	uint32_t max_qp_rd_atom; /**< READ/atomic in flight per QP and direction (default 16) */
	uint32_t max_srq;	/**< shared receive queues (default 1024) */
	uint32_t max_srq_wr;	/**< WRs per SRQ (default 4096) */
	uint32_t max_srq_sge;	/**< SGEs per SRQ WR (default 32) */
	/**
	 * Progress model: 0 for inline mode (the application calls
	 * rte_roce_poll()), else the number of worker lcores (rte_roce_worker.h).
	 * Worker i owns port queue i: the port needs at least as many queues
	 * (rte_roce_port_conf.nb_queues).
	 */
	uint16_t nb_workers;
	/** The worker lcores: enabled, not the main lcore, idle, distinct. */
	uint16_t lcores[RTE_ROCE_DEV_WORKERS_MAX];
	/**
	 * Inline mode: progress lanes, lane i driving port queue i (0 = one).
	 * rte_roce_poll() runs every lane in turn; rte_roce_poll_lane() runs
	 * one, so that several application threads (SPDK pollers) each drive
	 * their own lane and the QPs whose CQs have that comp_vector. Worker
	 * mode: 0 or nb_workers (a lane per worker).
	 */
	uint16_t nb_lanes;
	/**
	 * Interop workaround for a peer bug, off by default: the ICRC of the
	 * FLUSH requests this device sends is the one Linux rxe 6.2 and later
	 * checks (rte_roce_icrc_calc_rxe_flush()), not IBA A17's. Without it,
	 * rxe drops every FLUSH; with it, every conformant peer does. Received
	 * frames are checked as always. Logged at NOTICE when the device opens.
	 */
	bool quirk_rxe_flush_icrc;
};

/**
 * Open a RoCE device on a port.
 *
 * @param port
 *   The port: its addresses form the device's GID table.
 * @param conf
 *   Limits, or NULL for the defaults.
 * @return
 *   The device, or NULL with rte_errno set: EINVAL (port NULL, a limit
 *   above what the device supports: see RTE_ROCE_DEV_*_MAX; nb_workers
 *   above RTE_ROCE_DEV_WORKERS_MAX, a worker lcore that is not enabled,
 *   is the main lcore or is listed twice, more workers than the port has
 *   queues, lanes other than one per port queue, nb_lanes differing from
 *   nb_workers in worker mode), EBUSY (a worker lcore is running something
 *   else), ENOMEM.
 */
struct ibv_context *rte_roce_open_device(struct rte_roce_port *port,
					 const struct rte_roce_dev_conf *conf);

/**
 * Close a device.
 *
 * @param ctx
 *   The device.
 * @return
 *   0; -EINVAL (ctx NULL); -EBUSY (PDs, CQs, QPs, MRs, SRQs or completion
 *   channels still exist).
 */
int rte_roce_close_device(struct ibv_context *ctx);

/**
 * Make progress: receive a burst, run the requester, responder and
 * completer of every QP with work, fire due timers, transmit. Called by
 * the one thread that owns the device (inline mode); with several lanes
 * (rte_roce_dev_conf.nb_lanes) it runs each in turn. In worker mode the
 * workers make progress and this call returns 0 at once, so that one
 * program runs unchanged in both models.
 *
 * @param ctx
 *   The device.
 * @return
 *   The number of packets and work requests handled (0 when idle), or
 *   -EINVAL (ctx NULL).
 */
int rte_roce_poll(struct ibv_context *ctx);

/**
 * rte_roce_poll() for one lane of an inline device: its port queue, the
 * frames other lanes handed to it, its timers and the QPs whose CQs have
 * comp_vector lane. Each lane is driven by one thread at a time; different
 * lanes by different threads at once, with no lock between them.
 *
 * @param ctx
 *   The device.
 * @param lane
 *   0 .. ctx->num_comp_vectors - 1.
 * @return
 *   The number of packets and work requests handled (0 when idle; 0 at
 *   once in worker mode), or -EINVAL (ctx NULL, lane out of range).
 */
int rte_roce_poll_lane(struct ibv_context *ctx, uint16_t lane);

/**
 * Read the device's attributes, as ibv_query_device(3): the limits of
 * rte_roce_dev_conf (max_qp, max_qp_wr, max_sge, max_cq, max_cqe, max_mr,
 * max_qp_rd_atom = max_qp_init_rd_atom), max_mr_size 2^64 - 1, atomic_cap
 * IBV_ATOMIC_HCA (atomics are atomic with respect to each other on the
 * device, not to the CPU), one physical port.
 *
 * @param ctx
 *   The device.
 * @param attr
 *   Where to write the attributes.
 * @return
 *   0; -EINVAL (NULL argument).
 */
int rte_roce_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr);

/**
 * Read the port's attributes, as ibv_query_port(3): state ACTIVE or DOWN
 * from the link, max_mtu and active_mtu from the port's IB MTU, GID table
 * length, link layer Ethernet, max_msg_sz 2^31, flags IBV_QPF_GRH_REQUIRED,
 * active width and speed from the Ethernet speed as Linux reports them.
 *
 * @param ctx
 *   The device.
 * @param port_num
 *   1: a device has one port.
 * @param attr
 *   Where to write the attributes.
 * @return
 *   0; -EINVAL (NULL argument, port_num not 1); -errno of
 *   rte_roce_port_info_get().
 */
int rte_roce_query_port(struct ibv_context *ctx, uint8_t port_num,
			struct ibv_port_attr *attr);

/**
 * Read an entry of the port's GID table, as ibv_query_gid(3). Entries are
 * the port's addresses (rte_roce_port_addr_add()); index 0 is the
 * link-local default GID.
 *
 * @param ctx
 *   The device.
 * @param port_num
 *   1.
 * @param index
 *   0 .. gid_tbl_len - 1.
 * @param gid
 *   Where to write the GID.
 * @return
 *   0; -EINVAL (NULL argument, bad port_num or index); -ENOENT (free entry).
 */
int rte_roce_query_gid(struct ibv_context *ctx, uint8_t port_num, int index,
		       union ibv_gid *gid);

/**
 * Allocate a protection domain, as ibv_alloc_pd(3).
 *
 * @param ctx
 *   The device.
 * @return
 *   The PD, or NULL with rte_errno EINVAL (ctx NULL), ENOSPC (65536 PDs
 *   already), ENOMEM.
 */
struct ibv_pd *rte_roce_alloc_pd(struct ibv_context *ctx);

/**
 * Free a protection domain, as ibv_dealloc_pd(3).
 *
 * @param pd
 *   The PD.
 * @return
 *   0; -EINVAL (pd NULL); -EBUSY (MRs, QPs or SRQs use it).
 */
int rte_roce_dealloc_pd(struct ibv_pd *pd);

/**
 * Register memory, as ibv_reg_mr(3): hugepage memory (rte_malloc, memzones)
 * or ordinary process memory; addresses are process virtual addresses.
 * lkey and rkey are equal and carry a generation in their low byte, so a
 * key of a deregistered MR fails even after its slot is reused.
 *
 * @param pd
 *   The PD the MR belongs to.
 * @param addr
 *   Start of the memory.
 * @param length
 *   Its length in bytes; 0 is allowed.
 * @param access
 *   IBV_ACCESS_LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC,
 *   MW_BIND (memory windows may be bound to it),
 *   RTE_ROCE_ACCESS_FLUSH_GLOBAL, RTE_ROCE_ACCESS_FLUSH_PERSISTENT (a
 *   remote FLUSH of that placement type; the QP needs the same flag).
 * @return
 *   The MR, or NULL with rte_errno: EINVAL (NULL pd, NULL addr with a
 *   non-zero length, a range that wraps, unknown access bits, REMOTE_WRITE
 *   or REMOTE_ATOMIC without LOCAL_WRITE, as ibv_reg_mr(3) requires),
 *   EFAULT (part of the range is not mapped memory), ENOSPC (max_mr
 *   reached), ENOMEM.
 */
struct ibv_mr *rte_roce_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			       int access);

/**
 * Deregister an MR, as ibv_dereg_mr(3). An MR whose keys were invalidated
 * (IBV_WR_LOCAL_INV, SEND with Invalidate) is still registered: it is
 * deregistered the same way.
 *
 * @param mr
 *   The MR.
 * @return
 *   0; -EINVAL (mr NULL, not registered); -EBUSY (a posted and not yet
 *   completed work request, or a remote operation in progress, uses it:
 *   retry after the completions; or memory windows are bound to it).
 */
int rte_roce_dereg_mr(struct ibv_mr *mr);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Allocate a memory window, as ibv_alloc_mw(3) (IBA 10.6.7). Type 1 is
 * bound with rte_roce_bind_mw(); type 2 (2B: usable only through the QP
 * that bound it) with an IBV_WR_BIND_MW work request. mw->rkey is the
 * window's rkey: a key index above the MRs' and a key byte. The device
 * has as many windows as max_mr (fewer when max_mr is above 2^23 - 1:
 * MRs and windows share 2^24 - 1 key indexes); ibv_device_attr.max_mw.
 *
 * @param pd
 *   The PD the window belongs to.
 * @param type
 *   IBV_MW_TYPE_1 or IBV_MW_TYPE_2.
 * @return
 *   The window, or NULL with rte_errno: EINVAL (pd NULL, another type),
 *   ENOSPC (max_mw windows already).
 */
__rte_experimental
struct ibv_mw *rte_roce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Free a memory window, as ibv_dealloc_mw(3). A bound window is unbound:
 * its rkey fails from now on (a remote access gets a remote access error).
 *
 * @param mw
 *   The window.
 * @return
 *   0; -EINVAL (mw NULL, not allocated).
 */
__rte_experimental
int rte_roce_dealloc_mw(struct ibv_mw *mw);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Bind a type 1 memory window to a range of an MR, as ibv_bind_mw(3): an
 * IBV_WR_BIND_MW work request posted on qp with a new key byte
 * (ibv_inc_rkey()) when a range is given; length 0 unbinds the window.
 * mw->rkey is updated at once; the binding takes effect when the QP reaches
 * the request, and a bind the spec refuses (see rte_roce_post_send())
 * completes with IBV_WC_MW_BIND_ERR (mw->rkey is then the caller's to
 * restore). The window grants remote rights of its own: the MR needs
 * IBV_ACCESS_MW_BIND, not the remote rights.
 *
 * @param qp
 *   An RC or UC QP in RTS.
 * @param mw
 *   A type 1 window.
 * @param mw_bind
 *   wr_id and send_flags of the work request; the MR, address, length and
 *   access (IBV_ACCESS_REMOTE_READ, _WRITE, _ATOMIC) of the window.
 * @return
 *   0; -EINVAL (NULL argument, a type 2 window, an address or length
 *   without an MR, IBV_ACCESS_ZERO_BASED: a type 1 window cannot be
 *   zero-based, IBA o10-36.2.2); -EPERM (MR and window in different PDs);
 *   -EINVAL or -ENOMEM of rte_roce_post_send().
 */
__rte_experimental
int rte_roce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind);

/**
 * Create a CQ, as ibv_create_cq(3). The CQ holds at least cqe entries
 * (the next power of two); cq->cqe tells how many.
 *
 * @param ctx
 *   The device.
 * @param cqe
 *   Minimum number of entries, 1..max_cqe.
 * @param cq_context
 *   Stored in cq->cq_context.
 * @param channel
 *   A completion channel of the same device (rte_roce_event.h), or NULL.
 * @param comp_vector
 *   0 .. ctx->num_comp_vectors - 1: the worker (lane) that completes into
 *   this CQ. A device has one vector per worker, one in inline mode. Every
 *   QP using the CQ runs on that worker, so a QP's send CQ, receive CQ
 *   and SRQ must share it (rte_roce_create_qp()). Spread QPs over workers
 *   by giving their CQs different vectors.
 * @return
 *   The CQ, or NULL with rte_errno: EINVAL (ctx NULL, cqe < 1 or above
 *   max_cqe, comp_vector outside 0..num_comp_vectors-1, a channel of
 *   another device), ENOSPC (max_cq reached), ENOMEM.
 */
struct ibv_cq *rte_roce_create_cq(struct ibv_context *ctx, int cqe,
				  void *cq_context,
				  struct ibv_comp_channel *channel,
				  int comp_vector);

/**
 * Destroy a CQ, as ibv_destroy_cq(3); completions it holds are lost.
 *
 * @param cq
 *   The CQ.
 * @return
 *   0; -EINVAL (cq NULL); -EBUSY (a QP uses it, or completion or
 *   asynchronous events of it were got and not acknowledged: verbs would
 *   wait for the acknowledgements). Its events not yet got are dropped.
 */
int rte_roce_destroy_cq(struct ibv_cq *cq);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Resize a CQ, as ibv_resize_cq(3). The completions it holds are kept, in
 * order; cq->cqe tells the new size (cqe rounded up to a power of two).
 * Completions of the CQ's worker (its comp_vector) are neither lost nor
 * duplicated: the device's lanes are held meanwhile, as for any control
 * call (a pause of the device, not of the CQ alone). Any thread may call
 * it, also while another polls the CQ: that poll returns 0 meanwhile.
 *
 * @param cq
 *   The CQ.
 * @param cqe
 *   Minimum number of entries, 1..max_cqe, and at least the completions
 *   the CQ holds plus those it owes: one per send work request posted,
 *   and not yet completed, to a QP that uses it as send CQ (signaled or
 *   not: any may complete in error). Receive work requests are not
 *   counted; their completions wait for the peer.
 * @return
 *   0; -EINVAL (cq NULL, cqe outside 1..max_cqe, or below the completions
 *   held and owed: the CQ is unchanged); -EOVERFLOW (the CQ overran, it is
 *   in error: rte_roce_poll_cq()); -ENOMEM (the CQ is unchanged).
 */
__rte_experimental
int rte_roce_cq_resize(struct ibv_cq *cq, int cqe);

/**
 * Poll a CQ, as ibv_poll_cq(3). Lock-free; one thread polls a CQ. A
 * second thread polling the same CQ at the same time (or a poll while
 * rte_roce_cq_resize() runs) gets 0, as from an empty CQ: no completion is
 * returned twice or lost, and the first thread goes on.
 *
 * @param cq
 *   The CQ.
 * @param num_entries
 *   Room in wc.
 * @param wc
 *   Where to write the completions, oldest first.
 * @return
 *   The number of completions written to wc (0 when none); -EINVAL (NULL
 *   cq or wc, num_entries < 0); -EOVERFLOW when the CQ overran:
 *   completions were produced while it was full. The completions stored
 *   before the overrun are returned first; once they are drained every
 *   call returns -EOVERFLOW. The CQ is then in error (IBA 11.4.2.1: destroy
 *   it) and every QP that uses it is moved to the ERR state by the next
 *   rte_roce_poll(); nothing is silently dropped.
 */
int rte_roce_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);

/** QP1, the General Services QP; its Q_Key is RTE_ROCE_QP1_QKEY (rte_roce_hdr.h). */
#define RTE_ROCE_QP1_QPN	1
/** A WR Q_Key with this bit set means "the QP's own Q_Key" (IBTA; doc/wire-format.md §9.1). */
#define RTE_ROCE_QKEY_PRIVILEGED	0x80000000u
/** DestQP of UD multicast packets. */
#define RTE_ROCE_MCAST_QPN	0xffffffu

/**
 * Create a QP, as ibv_create_qp(3): IBV_QPT_RC, IBV_QPT_UC or IBV_QPT_UD.
 * UC QPs SEND and RDMA WRITE (with or without immediate) and receive whole
 * messages only; UD QPs SEND (with or without immediate) one packet of at
 * most the port's active MTU to an address handle. attr->cap is
 * updated with the capacities granted (at least those asked: queue depths
 * rounded up to a power of two, max_inline_data at least what the SGE
 * array of a WQE holds). With attr->srq the QP takes its receive WQEs from
 * that SRQ: max_recv_wr and max_recv_sge are ignored and granted as 0, and
 * rte_roce_post_recv() on the QP fails.
 *
 * @param pd
 *   The PD.
 * @param attr
 *   send_cq, recv_cq, srq, cap, qp_type, sq_sig_all; qp_context is stored.
 * @return
 *   The QP in the RESET state, or NULL with rte_errno: EINVAL (NULL
 *   argument, NULL or foreign CQs, an SRQ of another device, a cap of 0
 *   WRs or above the device limits, unsupported qp_type), ENOSPC (max_qp
 *   reached), ENOMEM.
 */
struct ibv_qp *rte_roce_create_qp(struct ibv_pd *pd,
				  struct ibv_qp_init_attr *attr);

/**
 * Create QP1, the General Services QP of the device (a kernel device
 * creates it at open; here the application, or the connection manager,
 * does, with its own PD and CQs). QPN 1 is reserved when the device opens
 * and is never handed out by rte_roce_create_qp(). QP1 is a UD QP
 * returned in RTS with Q_Key RTE_ROCE_QP1_QKEY: it receives at once what
 * is posted to its receive queue, and accepts only that Q_Key. Its sends
 * carry RTE_ROCE_QP1_QKEY whatever the WR says (as rxe). Destroy it with
 * rte_roce_destroy_qp().
 *
 * @param pd
 *   The PD.
 * @param attr
 *   As rte_roce_create_qp(); qp_type must be IBV_QPT_UD.
 * @return
 *   QP1, or NULL with rte_errno: EINVAL (as rte_roce_create_qp(), or
 *   qp_type not UD), EEXIST (QP1 exists), ENOSPC (max_qp reached), ENOMEM.
 */
struct ibv_qp *rte_roce_create_qp1(struct ibv_pd *pd,
				   struct ibv_qp_init_attr *attr);

/**
 * Modify a QP, as ibv_modify_qp(3). The transition and the attribute mask
 * are checked against the IBTA QP state table (IBA 10.3.1, as the kernel's
 * ib_modify_qp_is_ok()): every required attribute present, nothing beyond
 * the optional ones. The address vector must be global (RoCE): its DGID
 * names the peer's IP address, whose resolution through the port's ARP/ND
 * starts at the transition to RTR. A move to ERR flushes every
 * outstanding work request with IBV_WC_WR_FLUSH_ERR; a move to RESET
 * empties the queues without completions.
 *
 * @param qp
 *   The QP.
 * @param attr
 *   The attributes named by attr_mask.
 * @param attr_mask
 *   IBV_QP_* bits.
 * @return
 *   0; -EINVAL (NULL argument, bad transition, cur_qp_state not the
 *   current state, missing or extra attributes, a value out of range: path
 *   MTU outside 256..4096 or above the port's active MTU, timeout or
 *   min_rnr_timer > 31, retry_cnt or rnr_retry > 7, PSNs or dest_qp_num
 *   above 24 bits, max_rd_atomic or max_dest_rd_atomic above
 *   max_qp_rd_atom, unknown access flags, an address vector that is not
 *   global, names an unknown sgid_index, or a destination that is not a
 *   unicast address of the source GID's IP version, a port_num other than 1, a
 *   pkey_index other than 0, alternate paths).
 */
int rte_roce_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		       int attr_mask);

/**
 * Read a QP's attributes, as ibv_query_qp(3): every attribute is written
 * whatever attr_mask says.
 *
 * @param qp
 *   The QP.
 * @param attr
 *   Where to write the current attributes.
 * @param attr_mask
 *   Ignored.
 * @param init_attr
 *   Where to write the creation attributes (caps granted).
 * @return
 *   0; -EINVAL (NULL argument).
 */
int rte_roce_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_qp_init_attr *init_attr);

/**
 * Destroy a QP, as ibv_destroy_qp(3): outstanding work is dropped without
 * completions, its MRs released.
 *
 * @param qp
 *   The QP.
 * @return
 *   0; -EINVAL (qp NULL); -EBUSY (asynchronous events of it were got and
 *   not acknowledged: verbs would wait). Its events not yet got are dropped.
 */
int rte_roce_destroy_qp(struct ibv_qp *qp);

/**
 * Create an address handle, as ibv_create_ah(3), for UD sends. The
 * address vector must be global (RoCE): its DGID is the destination's IP
 * address, unicast (resolution through the port's ARP/ND starts here;
 * sends made before it completes wait in the port's neighbour queue) or a
 * multicast group (sent to the group's MAC; the destination QP of such
 * sends is RTE_ROCE_MCAST_QPN). The source is the port's GID at
 * grh.sgid_index; traffic_class and flow_label are used, hop_limit is not
 * (64, as the kernel replaces it on RoCE); sl, dlid and src_path_bits are
 * ignored.
 *
 * @param pd
 *   The PD; the AH is usable by the UD QPs of this PD.
 * @param attr
 *   The address vector.
 * @return
 *   The AH, or NULL with rte_errno: EINVAL (NULL argument, is_global 0,
 *   port_num not 0 or 1, no GID at sgid_index, source and destination of
 *   different IP versions, a destination neither unicast nor multicast),
 *   ENOMEM.
 */
struct ibv_ah *rte_roce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);

/**
 * Destroy an address handle, as ibv_destroy_ah(3). Send WRs posted with
 * it and not completed yet still go to its destination: it is freed when
 * the last of them completes (as rxe and mlx5, which copy the address
 * vector into the WQE at post time). It no longer counts as a user of its
 * PD.
 *
 * @param ah
 *   The AH.
 * @return
 *   0; -EINVAL (ah NULL).
 */
int rte_roce_destroy_ah(struct ibv_ah *ah);

/**
 * Resolve the Ethernet address of a destination, as the kernel does for
 * rdma_resolve_addr(): look it up in the device's port's neighbour cache
 * (ARP / Neighbour Discovery), starting a resolution when it is not there.
 * Call again until it returns something other than -EAGAIN; the port
 * retries its requests neigh_retries times, neigh_retry_ms apart
 * (rte_roce_port_conf). A control call: it may be made from any thread.
 *
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * @param ctx
 *   The device.
 * @param gid
 *   The destination's address (an IP address as a GID), unicast.
 * @param mac
 *   Where to write its MAC when known.
 * @return
 *   0 and *mac; -EAGAIN (resolution in progress); -EHOSTUNREACH (no answer
 *   after the port's retries; the failure holds for neigh_timeout_ms);
 *   -EADDRNOTAVAIL (the port has no address of that family); -EINVAL (NULL
 *   argument, a multicast or unspecified address); -ENOSPC (neighbour cache
 *   full of unresolved entries).
 */
__rte_experimental
int rte_roce_resolve_gid(struct ibv_context *ctx, const union ibv_gid *gid,
			 struct rte_ether_addr *mac);

/**
 * Attach a UD QP to a multicast group, as ibv_attach_mcast(3): every UD
 * SEND to the group that reaches the port (DestQP RTE_ROCE_MCAST_QPN) is
 * delivered to each attached QP, a copy per QP, subject to its Q_Key. The
 * port joins the group (rte_roce_port_mcast_join()).
 *
 * @param qp
 *   A UD QP.
 * @param gid
 *   The group: IPv4-mapped 224.0.0.0/4 or IPv6 ff00::/8.
 * @param lid
 *   Ignored (RoCE has no LIDs).
 * @return
 *   0; -EINVAL (NULL argument, not a UD QP, not a multicast GID);
 *   -EEXIST (already attached); -ENOSPC (RTE_ROCE_DEV_MCAST_MAX
 *   attachments on the device, or the port's group table full).
 */
int rte_roce_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);

/**
 * Detach a UD QP from a multicast group, as ibv_detach_mcast(3).
 * Destroying a QP detaches it from its groups.
 *
 * @param qp
 *   The QP.
 * @param gid
 *   The group.
 * @param lid
 *   Ignored.
 * @return
 *   0; -EINVAL (NULL argument); -ENOENT (not attached).
 */
int rte_roce_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);

/**
 * Post a chain of send work requests, as ibv_post_send(3): SEND,
 * SEND_WITH_IMM, SEND_WITH_INV, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ,
 * ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD, and on RC the IBA A19
 * operations: IBV_WR_ATOMIC_WRITE (wr.rdma names an 8-byte aligned target,
 * the SGEs or inline data the 8 bytes stored there in one piece, ordered
 * after every earlier request; completes IBV_WC_ATOMIC_WRITE) and
 * RTE_ROCE_WR_FLUSH (made by rte_roce_wr_flush(); completes
 * RTE_ROCE_WC_FLUSH once what earlier requests wrote is visible or
 * persistent at the target); flags SIGNALED, INLINE, FENCE, SOLICITED.
 * Both count against max_rd_atomic, as READ and the atomics do: each holds
 * a responder resource for its replay. Inline data is copied at post time.
 * Nothing of the chain from *bad_wr on is posted. No lock and no system
 * call: the WQEs are written to the send ring and published with one
 * release store.
 *
 * In RTS the WRs are executed; in SQD they wait for the return to RTS; in
 * SQE and ERR they are accepted and complete with IBV_WC_WR_FLUSH_ERR
 * (as verbs providers do). UC and UD have no acknowledgements: their WRs
 * complete when their last packet is handed to the port. A UD WR's
 * remote_qkey with RTE_ROCE_QKEY_PRIVILEGED set sends the QP's own Q_Key
 * (IBTA; rxe does not implement it).
 *
 * @param qp
 *   The QP.
 * @param wr
 *   The chain.
 * @param bad_wr
 *   Set to the first WR not posted on failure.
 * @return
 *   0; -EINVAL (NULL argument, QP in RESET, INIT or RTR, a malformed WR:
 *   unknown opcode or one the QP type does not allow (UC: SEND, WRITE
 *   and their _WITH_IMM, LOCAL_INV, BIND_MW; UD: SEND, SEND_WITH_IMM), a
 *   BIND_MW without a window of this device, with access flags other than
 *   REMOTE_READ, _WRITE, _ATOMIC, ZERO_BASED (LOCAL_WRITE is ignored) or a
 *   length without an MR, unknown send flag, a
 *   UD WR without an AH of the QP's PD, a remote_qpn above 24 bits or a
 *   message above the port's active MTU, too many SGEs, inline data above
 *   max_inline_data, an atomic whose remote address is not 8-byte aligned
 *   or whose SGE list is not one SGE of 8 bytes, an ATOMIC_WRITE whose
 *   remote address is not 8-byte aligned or whose data is not 8 bytes, a
 *   FLUSH with SGEs or with a placement type, selectivity or length
 *   rte_roce_wr_flush() refuses, a message above 2^31 bytes); -ENOMEM
 *   (send queue full). An invalid lkey or an SGE outside its
 *   MR is not refused here: it completes with IBV_WC_LOC_PROT_ERR, as on
 *   hardware. IBV_WR_BIND_MW binds a type 2 window (rte_roce_alloc_mw())
 *   as it is reached, with the key byte of bind_mw.rkey; a bind the spec
 *   refuses (window not FREE, of another PD than the QP's, length 0, MR
 *   without IBV_ACCESS_MW_BIND, a writable window on an MR without
 *   LOCAL_WRITE, a range outside the MR) completes with IBV_WC_MW_BIND_ERR.
 *   IBV_WR_LOCAL_INV invalidates invalidate_rkey (an MR's or a type 2
 *   window's, of the QP's PD) once every earlier WR completed; an rkey that
 *   cannot be (unknown, already invalid, another PD, a type 1 window, an
 *   MR with windows bound) completes with IBV_WC_LOC_QP_OP_ERR. Both move
 *   the QP to ERR on failure, as rxe.
 */
int rte_roce_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad_wr);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Post a chain of send work requests all or none: as rte_roce_post_send(),
 * except that when one WR of the chain is refused nothing of the chain is
 * posted (ibv_wr_complete(3): a failure aborts the entire posting). The
 * chain is checked once before any WQE is written.
 *
 * @param qp
 *   The QP.
 * @param wr
 *   The chain.
 * @param bad_wr
 *   Set to the first WR refused on failure.
 * @return
 *   As rte_roce_post_send(); on failure nothing was posted.
 */
__rte_experimental
int rte_roce_post_send_all(struct ibv_qp *qp, struct ibv_send_wr *wr,
			   struct ibv_send_wr **bad_wr);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Make wr a FLUSH (IBA A19.4): once the responder has executed it, what
 * every earlier request of the QP wrote in the target is visible to all
 * (RTE_ROCE_FLUSH_GLOBAL) or persistent (RTE_ROCE_FLUSH_PERSISTENT), as
 * rdma-core 45's ibv_wr_flush(). The target MR needs the access flag of
 * each placement type asked (RTE_ROCE_ACCESS_FLUSH_*), and so does the
 * responder's QP, else the FLUSH completes with IBV_WC_REM_ACCESS_ERR
 * (MR) or IBV_WC_REM_INV_REQ_ERR (QP). Sets opcode RTE_ROCE_WR_FLUSH, no
 * SGEs, and the parameters in wr->wr.atomic: remote_addr, rkey,
 * compare_add the length, swap the placement type and selectivity as the
 * FETH carries them (rte_roce_hdr.h RTE_ROCE_FETH_*). wr_id, send_flags
 * (SIGNALED, FENCE) and next are the caller's.
 *
 * @param wr
 *   The work request to fill.
 * @param rkey
 *   R_Key of the target.
 * @param remote_addr
 *   Start of the range (ignored with RTE_ROCE_FLUSH_MR).
 * @param len
 *   Length of the range in bytes, at most 2^31 (ignored with
 *   RTE_ROCE_FLUSH_MR).
 * @param type
 *   RTE_ROCE_FLUSH_GLOBAL, RTE_ROCE_FLUSH_PERSISTENT or both.
 * @param level
 *   RTE_ROCE_FLUSH_RANGE or RTE_ROCE_FLUSH_MR.
 * @return
 *   0; -EINVAL (wr NULL, type 0 or with other bits, level neither RANGE
 *   nor MR, len above 2^31).
 */
__rte_experimental
int rte_roce_wr_flush(struct ibv_send_wr *wr, uint32_t rkey, uint64_t remote_addr,
		      uint32_t len, uint8_t type, uint8_t level);

/**
 * Post a chain of receive work requests, as ibv_post_recv(3). In ERR they
 * complete with IBV_WC_WR_FLUSH_ERR. Not on a QP created with an SRQ: post
 * to the SRQ with rte_roce_post_srq_recv().
 *
 * @param qp
 *   The QP.
 * @param wr
 *   The chain.
 * @param bad_wr
 *   Set to the first WR not posted on failure.
 * @return
 *   0; -EINVAL (NULL argument, QP in RESET, QP on an SRQ, too many SGEs, a
 *   message above 2^31 bytes), -ENOMEM (receive queue full); *bad_wr names the first WR
 *   not posted. Bad lkeys complete with IBV_WC_LOC_PROT_ERR.
 */
int rte_roce_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);

/**
 * Create a shared receive queue, as ibv_create_srq(3). Many QPs of the
 * device (created with ibv_qp_init_attr.srq) take their receive WQEs from
 * it, oldest first, each QP one WQE per incoming message. attr->max_wr and
 * attr->max_sge are updated with what is granted (max_wr rounded up to a
 * power of two, at least one SGE); attr->srq_limit is ignored: the limit
 * starts disarmed (set it with rte_roce_modify_srq()).
 *
 * Threading: one thread posts to an SRQ (single producer); the progress
 * thread takes from it for every QP attached.
 *
 * @param pd
 *   The PD in which the WQEs' lkeys are resolved.
 * @param init_attr
 *   attr.max_wr (1..max_srq_wr), attr.max_sge (0..max_srq_sge);
 *   srq_context is stored in srq->srq_context.
 * @return
 *   The SRQ, or NULL with rte_errno: EINVAL (NULL argument, max_wr 0 or
 *   above max_srq_wr, max_sge above max_srq_sge), ENOSPC (max_srq
 *   reached), ENOMEM.
 */
struct ibv_srq *rte_roce_create_srq(struct ibv_pd *pd,
				    struct ibv_srq_init_attr *init_attr);

/**
 * Modify an SRQ, as ibv_modify_srq(3).
 *
 * IBV_SRQ_MAX_WR resizes it (IBV_DEVICE_SRQ_RESIZE): the WQEs posted stay,
 * in order; it must not run while another thread posts to the SRQ.
 * IBV_SRQ_LIMIT arms the limit: when a QP takes a WQE and fewer than
 * srq_limit are left, the asynchronous event IBV_EVENT_SRQ_LIMIT_REACHED
 * is raised once and the limit disarms (queries then read 0); only another
 * modify with IBV_SRQ_LIMIT arms it again. srq_limit 0 disarms.
 *
 * @param srq
 *   The SRQ.
 * @param attr
 *   max_wr and srq_limit, as attr_mask says.
 * @param srq_attr_mask
 *   IBV_SRQ_MAX_WR, IBV_SRQ_LIMIT.
 * @return
 *   0; -EINVAL (NULL argument, other mask bits, max_wr 0, above
 *   max_srq_wr, below the armed limit or below the WQEs posted, srq_limit
 *   not below the (new) size); -ENOMEM (resize).
 */
int rte_roce_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			int srq_attr_mask);

/**
 * Read an SRQ's attributes, as ibv_query_srq(3): max_wr and max_sge
 * granted, srq_limit armed (0 when disarmed or after the event fired).
 *
 * @param srq
 *   The SRQ.
 * @param attr
 *   Where to write them.
 * @return
 *   0; -EINVAL (NULL argument).
 */
int rte_roce_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);

/**
 * Destroy an SRQ, as ibv_destroy_srq(3): WQEs still posted are dropped
 * without completions, their MRs released.
 *
 * @param srq
 *   The SRQ.
 * @return
 *   0; -EINVAL (srq NULL); -EBUSY (a QP uses it: destroy the QPs first; or asynchronous
 *   events of it were got and not acknowledged).
 */
int rte_roce_destroy_srq(struct ibv_srq *srq);

/**
 * Post a chain of receive work requests to an SRQ, as ibv_post_srq_recv(3).
 * No lock and no system call: the WQEs are written to the ring and
 * published with one release store. A QP that found the SRQ empty sent an
 * RNR NAK; its peer retries after the RNR timer and finds the new WQEs.
 *
 * @param srq
 *   The SRQ.
 * @param wr
 *   The chain.
 * @param bad_wr
 *   Set to the first WR not posted on failure.
 * @return
 *   0; -EINVAL (NULL argument, more SGEs than max_sge, a message above
 *   2^31 bytes); -ENOMEM (SRQ full). Nothing from *bad_wr on is posted.
 *   Bad lkeys complete with IBV_WC_LOC_PROT_ERR.
 */
int rte_roce_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad_wr);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_VERBS_H */
