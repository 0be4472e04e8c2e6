/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_MW_H
#define ROCE_MW_H

/*
 * Memory windows (IBA 10.6.7) and the invalidation of R_Keys (Local
 * Invalidate, SEND with Invalidate). A window names a range of an MR with remote
 * rights of its own, under an rkey of its own.
 *
 * Keys: one 24-bit index space for MRs and windows, as rxe keeps its
 * windows in an index range of their own (K:rxe_verbs.h rkey_is_mw): MR
 * indexes 1 .. max_mr, window indexes max_mr + 1 .. max_mr + max_mw, so an
 * rkey names one or the other. The low byte is the key byte: set at
 * allocation from a per-slot count, then chosen by the consumer at every
 * bind (the consumer owns it, IBA 10.6.7; ibv_inc_rkey()).
 *
 * Types (K:rxe_mw.c): type 1 is VALID from its allocation and bound with
 * rte_roce_bind_mw() (a bind with length 0 unbinds it); type 2 (2B) is FREE
 * until an IBV_WR_BIND_MW work request binds it, is then usable only by
 * the QP that bound it, and becomes FREE again when invalidated.
 *
 * Concurrency: the engines of any lane bind (on the posting QP's lane),
 * invalidate and look windows up (on the target QP's lane); a spinlock per
 * window orders them. Allocation and deallocation are control calls (the
 * lanes are held). A bound window counts itself in its MR (nb_mw), which
 * can then be neither invalidated nor deregistered.
 */

#include <stdint.h>

#include <infiniband/verbs.h>

#include <rte_spinlock.h>

struct roce_dev;
struct roce_mr;
struct roce_qp;

/* State of a window, as rxe's (K:rxe_verbs.h enum rxe_mw_state). */
enum roce_mw_state {
	ROCE_MW_STATE_INVALID,	/* not allocated */
	ROCE_MW_STATE_FREE,	/* type 2, not bound */
	ROCE_MW_STATE_VALID,	/* type 1 allocated, or type 2 bound */
};

/* Access a window may grant (LOCAL_WRITE is accepted and means nothing for a window). */
#define ROCE_MW_ACCESS_SUPPORTED (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
				  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
				  IBV_ACCESS_ZERO_BASED)

struct roce_mw {
	struct ibv_mw ibv;	/* first: roce_mw_of() is a cast */
	rte_spinlock_t lock;	/* the fields below, against the engines of other lanes */
	uint32_t rkey;		/* the key an access must carry */
	uint8_t state;		/* enum roce_mw_state */
	uint8_t alloc_gen;	/* count of the slot's allocations: its first key byte */
	int access;		/* IBV_ACCESS_* granted by the bind */
	uint64_t addr;		/* first byte of the window, a host address */
	uint64_t length;
	struct roce_mr *mr;	/* bound to; NULL when not (or bound with length 0) */
	uint32_t qpn;		/* type 2: the QP that bound it (type 2B, IBA 10.6.7) */
};

/* A bind work request as stored in the send ring (IBV_WR_BIND_MW). */
struct roce_mw_bind_req {
	uint64_t addr;
	uint64_t length;
	uint32_t mw_idx;	/* slot in the window table */
	uint32_t mr_lkey;	/* the MR (not used when length is 0) */
	uint32_t access;	/* IBV_ACCESS_* of the window */
	uint8_t key;		/* the new key byte */
	uint8_t alloc_gen;	/* the allocation of the window it was posted for */
};

static inline struct roce_mw *
roce_mw_of(struct ibv_mw *mw)
{
	return (struct roce_mw *)mw;
}

/* Window table of a device: max_mw = min(max_mr, index room left above the MRs). */
int roce_mw_table_init(struct roce_dev *dev);
void roce_mw_table_fini(struct roce_dev *dev);

/* The control calls behind rte_roce_alloc_mw/dealloc_mw (roce_verbs.c: lanes held). */
struct ibv_mw *roce_ctrl_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int roce_ctrl_dealloc_mw(struct ibv_mw *ibv_mw);

/*
 * Post time: what is wrong with an IBV_WR_BIND_MW work request posted on
 * qp (no window, another device's, unknown access bits), or NULL; then
 * roce_mw_bind_req_init() stores it. What the spec checks against the
 * window's and the MR's state is checked when the engine runs it.
 */
const char *roce_mw_bind_check(const struct roce_qp *qp, const struct ibv_send_wr *wr);
void roce_mw_bind_req_init(struct roce_mw_bind_req *req, const struct ibv_send_wr *wr);

/*
 * Engine: run a bind posted on qp. 0, or -errno (logged) for a bind the
 * spec refuses: the work request completes with IBV_WC_MW_BIND_ERR.
 */
int roce_mw_bind(struct roce_qp *qp, const struct roce_mw_bind_req *req);

/*
 * Engine: invalidate rkey, an MR's or a type 2 window's, for qp
 * (IBV_WR_LOCAL_INV on qp, or a SEND with Invalidate received by it). 0;
 * -ENOENT (no such key, or already invalid), -EACCES (another PD), -EINVAL
 * (a type 1 window, IBA o10-37.2.26), -EBUSY (an MR with windows bound).
 */
int roce_rkey_invalidate(struct roce_qp *qp, uint32_t rkey);

/*
 * Responder: find the memory a remote access of len bytes at *va with
 * rkey reaches on qp, needing access (IBV_ACCESS_REMOTE_*). An MR's key
 * as roce_mr_lookup(); a window's is checked against the window: VALID,
 * key byte, PD, type 2's QP, rights, bounds (zero-based: *va is an offset
 * in it). *va becomes the host address, *mr the MR with a use taken
 * (roce_mr_put()). 0; -ENOENT, -EACCES, -EFAULT as roce_mr_lookup().
 */
int roce_rkey_lookup(struct roce_qp *qp, uint32_t rkey, uint64_t *va, uint64_t len, int access,
		     struct roce_mr **mr);

#endif /* ROCE_MW_H */
