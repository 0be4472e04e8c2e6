/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Memory windows: allocation, binding, invalidation and the responder's
 * R_Key lookup through them (roce_mw.h). The rules are IBA 10.6.7's, as
 * rxe checks them (K:rxe_mw.c; the clause numbers are the ones it cites).
 */

/* Logs under lib.roce.mr (roce_log.h). */
#define ROCE_LOG_TYPE roce_logtype_mr
#define ROCE_LOG_AREA "ROCE mw"

#include <errno.h>
#include <inttypes.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_dev.h"
#include "roce_log.h"
#include "roce_mr.h"
#include "roce_mw.h"
#include "roce_qp.h"

/* Remote rights a window may grant. */
#define ROCE_MW_ACCESS_REMOTE	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
				 IBV_ACCESS_REMOTE_ATOMIC)

/* The key index of window slot i. */
static inline uint32_t
roce_mw_index(const struct roce_dev *dev, uint32_t slot)
{
	return dev->conf.max_mr + 1 + slot;
}

static bool
roce_key_is_mw(const struct roce_dev *dev, uint32_t key)
{
	uint32_t idx = key >> ROCE_MR_KEY_GEN_BITS;

	return idx > dev->conf.max_mr && idx - dev->conf.max_mr - 1 < dev->max_mw;
}

/* The window slot of a key known to be a window's. */
static inline struct roce_mw *
roce_mw_of_key(const struct roce_dev *dev, uint32_t key)
{
	return &dev->mw_tbl[(key >> ROCE_MR_KEY_GEN_BITS) - dev->conf.max_mr - 1];
}

int
roce_mw_table_init(struct roce_dev *dev)
{
	uint32_t room = RTE_ROCE_DEV_MAX_MR_MAX - dev->conf.max_mr;
	uint32_t i;

	dev->max_mw = RTE_MIN(dev->conf.max_mr, room);
	dev->mw_tbl = rte_zmalloc_socket("roce_mw_tbl",
					 (size_t)RTE_MAX(dev->max_mw, 1u) * sizeof(*dev->mw_tbl),
					 RTE_CACHE_LINE_SIZE, dev->socket);
	if (dev->mw_tbl == NULL)
		return -ENOMEM;
	for (i = 0; i < dev->max_mw; i++)
		rte_spinlock_init(&dev->mw_tbl[i].lock);
	return roce_index_fifo_init(&dev->mw_free, dev->max_mw, 0, dev->socket);
}

void
roce_mw_table_fini(struct roce_dev *dev)
{
	roce_index_fifo_fini(&dev->mw_free);
	rte_free(dev->mw_tbl);
	dev->mw_tbl = NULL;
}

struct ibv_mw *
roce_ctrl_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct roce_dev *dev;
	struct roce_mw *mw;
	uint32_t slot;

	if (pd == NULL || (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2)) {
		ROCE_LOG(ERR, "NULL pd, or type %d (IBV_MW_TYPE_1 or _2)", (int)type);
		rte_errno = EINVAL;
		return NULL;
	}
	dev = roce_dev_of(pd->context);
	if (dev->nb_mws >= dev->max_mw) {
		ROCE_LOG(ERR, "device %s: %u memory windows already (as many as max_mr, within 2^24 keys with the MRs)",
			 dev->ibv_dev.name, dev->max_mw);
		rte_errno = ENOSPC;
		return NULL;
	}
	slot = roce_index_fifo_get(&dev->mw_free);
	dev->nb_mws++;
	mw = &dev->mw_tbl[slot];
	mw->alloc_gen++;
	mw->ibv.context = pd->context;
	mw->ibv.pd = pd;
	mw->ibv.handle = slot;
	mw->ibv.type = type;
	mw->ibv.rkey = roce_mw_index(dev, slot) << ROCE_MR_KEY_GEN_BITS | mw->alloc_gen;
	rte_spinlock_lock(&mw->lock);
	mw->rkey = mw->ibv.rkey;
	mw->mr = NULL;
	mw->length = 0;
	mw->access = 0;
	/* Type 1 is usable (bound) from now; type 2 waits for a bind (K:rxe_mw.c). */
	mw->state = type == IBV_MW_TYPE_1 ? ROCE_MW_STATE_VALID : ROCE_MW_STATE_FREE;
	rte_spinlock_unlock(&mw->lock);
	roce_pd_of(pd)->users++;
	return &mw->ibv;
}

/* Drop the window's binding (lock held). */
static void
roce_mw_unbind(struct roce_mw *mw)
{
	if (mw->mr != NULL)
		roce_mr_del_window(mw->mr);
	mw->mr = NULL;
	mw->addr = 0;
	mw->length = 0;
	mw->access = 0;
	mw->qpn = 0;
}

int
roce_ctrl_dealloc_mw(struct ibv_mw *ibv_mw)
{
	struct roce_dev *dev;
	struct roce_mw *mw;

	if (ibv_mw == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	mw = roce_mw_of(ibv_mw);
	rte_spinlock_lock(&mw->lock);
	if (mw->state == ROCE_MW_STATE_INVALID) {
		rte_spinlock_unlock(&mw->lock);
		ROCE_LOG(ERR, "memory window 0x%x is not allocated", ibv_mw->rkey);
		return -EINVAL;
	}
	/* Freeing a bound window invalidates it: its rkey fails from now on. */
	roce_mw_unbind(mw);
	mw->state = ROCE_MW_STATE_INVALID;
	rte_spinlock_unlock(&mw->lock);
	dev = roce_dev_of(ibv_mw->context);
	roce_pd_of(ibv_mw->pd)->users--;
	roce_index_fifo_put(&dev->mw_free, ibv_mw->handle);
	dev->nb_mws--;
	return 0;
}

const char *
roce_mw_bind_check(const struct roce_qp *qp, const struct ibv_send_wr *wr)
{
	const struct ibv_mw *mw = wr->bind_mw.mw;

	if (mw == NULL || mw->context != qp->ibv.context)
		return "memory window (NULL, or of another device)";
	if ((wr->bind_mw.bind_info.mw_access_flags & ~ROCE_MW_ACCESS_SUPPORTED) != 0)
		return "window access flags (REMOTE_READ, _WRITE, _ATOMIC, ZERO_BASED)";
	if (wr->bind_mw.bind_info.length != 0 && wr->bind_mw.bind_info.mr == NULL)
		return "bind: a length without an MR";
	return NULL;
}

void
roce_mw_bind_req_init(struct roce_mw_bind_req *req, const struct ibv_send_wr *wr)
{
	const struct ibv_mw_bind_info *info = &wr->bind_mw.bind_info;
	const struct roce_mw *mw = roce_mw_of(wr->bind_mw.mw);

	req->addr = info->addr;
	req->length = info->length;
	req->mw_idx = mw->ibv.handle;
	req->mr_lkey = info->mr != NULL ? info->mr->lkey : 0;
	req->access = info->mw_access_flags & ~IBV_ACCESS_LOCAL_WRITE;
	req->key = wr->bind_mw.rkey & ROCE_MR_KEY_GEN_MASK;
	req->alloc_gen = mw->alloc_gen;
}

/* The window's own rules (lock held): NULL, or the rule broken. */
static const char *
roce_mw_bind_rule(const struct roce_qp *qp, const struct roce_mw *mw,
		  const struct roce_mw_bind_req *req)
{
	if (mw->ibv.type == IBV_MW_TYPE_1) {
		if (mw->state != ROCE_MW_STATE_VALID)
			return "type 1 window not VALID";
		if (req->access & IBV_ACCESS_ZERO_BASED)
			return "zero-based type 1 window (o10-36.2.2)";
		return NULL;
	}
	if (mw->state != ROCE_MW_STATE_FREE)
		return "type 2 window not FREE: invalidate it first (o10-37.2.30)";
	if (mw->ibv.pd != qp->ibv.pd)
		return "type 2 window of another PD than the QP's (C10-72)";
	if (req->length == 0)
		return "type 2 window bound with length 0 (o10-37.2.40)";
	return NULL;
}

/* The MR's rules for a window on it: NULL, or the rule broken. */
static const char *
roce_mw_bind_mr_rule(const struct roce_mr *mr, const struct roce_mw_bind_req *req)
{
	if ((mr->access & IBV_ACCESS_MW_BIND) == 0)
		return "MR without IBV_ACCESS_MW_BIND (C10-73)";
	if ((req->access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) != 0 &&
	    (mr->access & IBV_ACCESS_LOCAL_WRITE) == 0)
		return "writable window on an MR without LOCAL_WRITE (C10-74)";
	return NULL;
}

/* Bind mw (lock held) to the MR of req, or unbind it for a length of 0. 0 or -errno. */
static int
roce_mw_do_bind(struct roce_qp *qp, struct roce_mw *mw, const struct roce_mw_bind_req *req,
		const char **why)
{
	struct roce_mr *mr = NULL;
	int rc;

	*why = roce_mw_bind_rule(qp, mw, req);
	if (*why != NULL)
		return -EINVAL;
	if (req->length != 0) {
		/* In the MR, in the window's PD (C10-75: inside the MR). */
		rc = roce_mr_lookup(qp->dev, req->mr_lkey, false, mw->ibv.pd, req->addr, req->length,
				    0, &mr);
		if (rc < 0) {
			*why = rc == -EFAULT ? "range outside the MR (C10-75)" :
					       "MR key (invalid, or of another PD)";
			return rc;
		}
		*why = roce_mw_bind_mr_rule(mr, req);
		rc = *why != NULL ? -EACCES : roce_mr_add_window(mr);
		roce_mr_put(mr);
		if (rc < 0) {
			*why = *why != NULL ? *why : "MR invalidated meanwhile";
			return rc;
		}
	}
	roce_mw_unbind(mw);
	mw->mr = mr;
	mw->addr = req->addr;
	mw->length = req->length;
	mw->access = req->access;
	mw->rkey = (mw->rkey & ~ROCE_MR_KEY_GEN_MASK) | req->key;
	if (mw->ibv.type == IBV_MW_TYPE_2)
		mw->qpn = qp->ibv.qp_num;
	mw->state = ROCE_MW_STATE_VALID;
	return 0;
}

int
roce_mw_bind(struct roce_qp *qp, const struct roce_mw_bind_req *req)
{
	struct roce_mw *mw = &qp->dev->mw_tbl[req->mw_idx];
	const char *why = "window freed since the work request was posted";
	int rc = -ENOENT;

	rte_spinlock_lock(&mw->lock);
	if (mw->state != ROCE_MW_STATE_INVALID && mw->alloc_gen == req->alloc_gen)
		rc = roce_mw_do_bind(qp, mw, req, &why);
	rte_spinlock_unlock(&mw->lock);
	if (rc < 0)
		ROCE_LOG(ERR, "QP 0x%x: bind of memory window %u refused: %s", qp->ibv.qp_num,
			 req->mw_idx, why);
	return rc;
}

/* Invalidate a type 2 window (K:rxe_mw.c rxe_invalidate_mw): back to FREE. */
static int
roce_mw_invalidate(struct roce_qp *qp, uint32_t rkey)
{
	struct roce_mw *mw = roce_mw_of_key(qp->dev, rkey);
	int rc = 0;

	rte_spinlock_lock(&mw->lock);
	if (mw->state != ROCE_MW_STATE_VALID || mw->rkey != rkey)
		rc = -ENOENT;
	else if (mw->ibv.pd != qp->ibv.pd)
		rc = -EACCES;
	else if (mw->ibv.type == IBV_MW_TYPE_1)
		rc = -EINVAL;	/* o10-37.2.26: a type 1 window is not invalidated */
	if (rc == 0) {
		roce_mw_unbind(mw);
		mw->state = ROCE_MW_STATE_FREE;
	}
	rte_spinlock_unlock(&mw->lock);
	return rc;
}

int
roce_rkey_invalidate(struct roce_qp *qp, uint32_t rkey)
{
	int rc;

	if (roce_key_is_mw(qp->dev, rkey))
		rc = roce_mw_invalidate(qp, rkey);
	else
		rc = roce_mr_invalidate(qp->dev, rkey, qp->ibv.pd);
	if (rc < 0)
		ROCE_LOG(DEBUG, "QP 0x%x: invalidation of 0x%x refused: %s", qp->ibv.qp_num, rkey,
			 rc == -ENOENT ? "no such key, or already invalid" :
			 rc == -EACCES ? "another PD" :
			 rc == -EBUSY ? "an MR with memory windows bound" : "a type 1 window");
	return rc;
}

/* A remote access through a window (lock held): 0 with *va translated, or -errno. */
static int
roce_mw_access(const struct roce_qp *qp, const struct roce_mw *mw, uint32_t rkey, uint64_t *va,
	       uint64_t len, int access)
{
	uint64_t off;

	if (mw->state != ROCE_MW_STATE_VALID || mw->rkey != rkey || mw->mr == NULL)
		return -ENOENT;
	if (mw->ibv.pd != qp->ibv.pd ||
	    (mw->ibv.type == IBV_MW_TYPE_2 && mw->qpn != qp->ibv.qp_num))
		return -EACCES;
	if ((access & ROCE_MW_ACCESS_REMOTE) == 0 || (access & ~mw->access) != 0)
		return -EACCES;
	/* Zero-based: the address is an offset in the window (IBA 10.6.7). */
	if (mw->access & IBV_ACCESS_ZERO_BASED)
		off = *va;
	else if (*va >= mw->addr)
		off = *va - mw->addr;
	else
		return -EFAULT;
	/* Overflow-safe: off + len never computed. */
	if (off > mw->length || len > mw->length - off)
		return -EFAULT;
	*va = mw->addr + off;
	return 0;
}

int
roce_rkey_lookup(struct roce_qp *qp, uint32_t rkey, uint64_t *va, uint64_t len, int access,
		 struct roce_mr **mr)
{
	struct roce_mw *mw;
	int rc;

	if (!roce_key_is_mw(qp->dev, rkey))
		return roce_mr_lookup(qp->dev, rkey, true, qp->ibv.pd, *va, len, access, mr);
	mw = roce_mw_of_key(qp->dev, rkey);
	rte_spinlock_lock(&mw->lock);
	rc = roce_mw_access(qp, mw, rkey, va, len, access);
	if (rc == 0) {
		/* The MR stays: a window bound to it keeps it VALID and registered. */
		__atomic_fetch_add(&mw->mr->users, 1, __ATOMIC_SEQ_CST);
		*mr = mw->mr;
	}
	rte_spinlock_unlock(&mw->lock);
	return rc;
}
