/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * PDs, MRs, CQs, completion channels, QPs, SRQs and AHs: each call on an
 * object of ours goes to librte_roce's verbs-like API, converting its
 * -errno to verbs' positive errno (and rte_errno to errno); a call on any
 * other object goes to the real libibverbs. doc/verbs-abi.md.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include <rte_roce_event.h>
#include <rte_roce_gid.h>
#include <rte_roce_hdr.h>
#include <rte_roce_verbs.h>

#include "roce_verbs.h"

/* A librte_roce constructor's result, with errno set from rte_errno when NULL. */
#define RV_NEW(expr) \
	({ \
		__typeof__(expr) obj_ = (expr); \
		if (obj_ == NULL) \
			errno = rte_errno; \
		else \
			roce_verbs_obj_created(obj_); \
		obj_; \
	})

/* Destroy one of our objects with librte_roce's destroy call: verbs' errno. */
#define RV_DESTROY(obj, destroy) \
	({ \
		int rc_; \
		roce_verbs_obj_lock(); \
		rc_ = destroy(obj); \
		if (rc_ == 0) \
			roce_verbs_obj_destroyed(obj); \
		roce_verbs_obj_unlock(); \
		roce_verbs_errno(rc_); \
	})

/* True for a live object of ours: its context is one of our devices'. */
#define RV_OURS(obj) ((obj) != NULL && roce_verbs_dev_of_ctx((obj)->context) != NULL)

/*
 * The head of a call on an object: one of ours that was destroyed fails
 * (errno EINVAL, the call returns gone) before anything reads it; one that
 * is not ours goes to the real function (real_call).
 */
#define RV_DISPATCH(obj, gone, real_call) \
	do { \
		if (roce_verbs_obj_gone(obj, __func__)) \
			return gone; \
		if (!RV_OURS(obj)) \
			return real_call; \
	} while (0)

static void *
rv_refuse(const char *what)
{
	RV_LOG(NOTICE, "%s: not supported on librte_roce devices", what);
	errno = EOPNOTSUPP;
	return NULL;
}

/* Protection domains. */

struct ibv_pd *rv_alloc_pd(struct ibv_context *ctx) ROCE_VERBS_EXPORT(ibv_alloc_pd);
struct ibv_pd *
rv_alloc_pd(struct ibv_context *ctx)
{
	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_alloc_pd, "ibv_alloc_pd", "IBVERBS_1.1")(ctx);
	return RV_NEW(rte_roce_alloc_pd(ctx));
}

int rv_dealloc_pd(struct ibv_pd *pd) ROCE_VERBS_EXPORT(ibv_dealloc_pd);
int
rv_dealloc_pd(struct ibv_pd *pd)
{
	RV_DISPATCH(pd, EINVAL,
		    ROCE_VERBS_REAL(rv_dealloc_pd, "ibv_dealloc_pd", "IBVERBS_1.1")(pd));
	return RV_DESTROY(pd, rte_roce_dealloc_pd);
}

/*
 * Objects shared between processes through a kernel command fd
 * (ibv_import_pd(3)): librte_roce has no kernel object to share, and the
 * command fd of our context is a plain file (roce_verbs_dev.c). The
 * unimports have nothing to undo; they are ours so that the real library
 * never reads our context as a verbs_context.
 */
struct ibv_context *rv_import_device(int cmd_fd) ROCE_VERBS_EXPORT(ibv_import_device);
struct ibv_context *
rv_import_device(int cmd_fd)
{
	if (roce_verbs_dev_of_cmd_fd(cmd_fd) == NULL)
		return ROCE_VERBS_REAL(rv_import_device, "ibv_import_device", "IBVERBS_1.10")
			(cmd_fd);
	return rv_refuse("ibv_import_device");
}

struct ibv_pd *rv_import_pd(struct ibv_context *ctx, uint32_t handle)
	ROCE_VERBS_EXPORT(ibv_import_pd);
struct ibv_pd *
rv_import_pd(struct ibv_context *ctx, uint32_t handle)
{
	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_import_pd, "ibv_import_pd", "IBVERBS_1.10")(ctx, handle);
	return rv_refuse("ibv_import_pd");
}

void rv_unimport_pd(struct ibv_pd *pd) ROCE_VERBS_EXPORT(ibv_unimport_pd);
void
rv_unimport_pd(struct ibv_pd *pd)
{
	if (roce_verbs_obj_gone(pd, __func__) || RV_OURS(pd))
		return;
	ROCE_VERBS_REAL(rv_unimport_pd, "ibv_unimport_pd", "IBVERBS_1.10")(pd);
}

struct ibv_mr *rv_import_mr(struct ibv_pd *pd, uint32_t handle) ROCE_VERBS_EXPORT(ibv_import_mr);
struct ibv_mr *
rv_import_mr(struct ibv_pd *pd, uint32_t handle)
{
	RV_DISPATCH(pd, NULL,
		    ROCE_VERBS_REAL(rv_import_mr, "ibv_import_mr", "IBVERBS_1.10")(pd, handle));
	return rv_refuse("ibv_import_mr");
}

void rv_unimport_mr(struct ibv_mr *mr) ROCE_VERBS_EXPORT(ibv_unimport_mr);
void
rv_unimport_mr(struct ibv_mr *mr)
{
	if (roce_verbs_obj_gone(mr, __func__) || RV_OURS(mr))
		return;
	ROCE_VERBS_REAL(rv_unimport_mr, "ibv_unimport_mr", "IBVERBS_1.10")(mr);
}

/* Device memory: ibv_alloc_dm() is refused by verbs.h for our context, so none is ours. */
struct ibv_dm *rv_import_dm(struct ibv_context *ctx, uint32_t handle)
	ROCE_VERBS_EXPORT(ibv_import_dm);
struct ibv_dm *
rv_import_dm(struct ibv_context *ctx, uint32_t handle)
{
	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_import_dm, "ibv_import_dm", "IBVERBS_1.13")(ctx, handle);
	return rv_refuse("ibv_import_dm");
}

/* Memory regions. librte_roce keys MRs by process virtual address. */

/*
 * The access flags librte_roce is given: the optional ones dropped, as
 * rdma-core lets a provider do (IBV_ACCESS_OPTIONAL_RANGE).
 */
static int
rv_mr_access(unsigned int access)
{
	return access & ~IBV_ACCESS_OPTIONAL_RANGE;
}

struct ibv_mr *rv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
	ROCE_VERBS_EXPORT(ibv_reg_mr);
struct ibv_mr *
rv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	RV_DISPATCH(pd, NULL,
		    ROCE_VERBS_REAL(rv_reg_mr, "ibv_reg_mr", "IBVERBS_1.1")
			(pd, addr, length, access));
	return RV_NEW(rte_roce_reg_mr(pd, addr, length, rv_mr_access(access)));
}

/* An IOVA other than the address is refused: remote keys name virtual addresses. */
static struct ibv_mr *
rv_reg_mr_at(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	if (iova != (uintptr_t)addr)
		return rv_refuse("ibv_reg_mr_iova with an IOVA other than the address");
	return RV_NEW(rte_roce_reg_mr(pd, addr, length, rv_mr_access(access)));
}

struct ibv_mr *rv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
			      int access) ROCE_VERBS_EXPORT(ibv_reg_mr_iova);
struct ibv_mr *
rv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
	RV_DISPATCH(pd, NULL,
		    ROCE_VERBS_REAL(rv_reg_mr_iova, "ibv_reg_mr_iova", "IBVERBS_1.7")
			(pd, addr, length, iova, access));
	return rv_reg_mr_at(pd, addr, length, iova, access);
}

/* verbs.h's ibv_reg_mr() macro calls this one when the access flags are not constant. */
struct ibv_mr *rv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
			       unsigned int access) ROCE_VERBS_EXPORT(ibv_reg_mr_iova2);
struct ibv_mr *
rv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		unsigned int access)
{
	RV_DISPATCH(pd, NULL,
		    ROCE_VERBS_REAL(rv_reg_mr_iova2, "ibv_reg_mr_iova2", "IBVERBS_1.8")
			(pd, addr, length, iova, access));
	return rv_reg_mr_at(pd, addr, length, iova, access);
}

struct ibv_mr *rv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
				uint64_t iova, int fd, int access)
	ROCE_VERBS_EXPORT(ibv_reg_dmabuf_mr);
struct ibv_mr *
rv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd,
		 int access)
{
	RV_DISPATCH(pd, NULL,
		    ROCE_VERBS_REAL(rv_reg_dmabuf_mr, "ibv_reg_dmabuf_mr", "IBVERBS_1.12")
			(pd, offset, length, iova, fd, access));
	return rv_refuse("ibv_reg_dmabuf_mr");
}

int rv_dereg_mr(struct ibv_mr *mr) ROCE_VERBS_EXPORT(ibv_dereg_mr);
int
rv_dereg_mr(struct ibv_mr *mr)
{
	RV_DISPATCH(mr, EINVAL,
		    ROCE_VERBS_REAL(rv_dereg_mr, "ibv_dereg_mr", "IBVERBS_1.1")(mr));
	return RV_DESTROY(mr, rte_roce_dereg_mr);
}

/*
 * Memory windows: verbs.h's inline ibv_alloc_mw(), ibv_dealloc_mw() and
 * ibv_bind_mw() call through ibv_context.ops (libibverbs exports no such
 * symbol), so these are ops entries of our contexts (roce_verbs_ops_init()),
 * reached only with our objects.
 */
struct ibv_mw *
rv_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	if (roce_verbs_obj_gone(pd, __func__))
		return NULL;
	return RV_NEW(rte_roce_alloc_mw(pd, type));
}

int
rv_dealloc_mw(struct ibv_mw *mw)
{
	if (roce_verbs_obj_gone(mw, __func__))
		return EINVAL;
	return RV_DESTROY(mw, rte_roce_dealloc_mw);
}

int
rv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind)
{
	if (roce_verbs_obj_gone(mw, __func__))
		return EINVAL;
	return roce_verbs_errno(rte_roce_bind_mw(qp, mw, mw_bind));
}

int rv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length,
		int access) ROCE_VERBS_EXPORT(ibv_rereg_mr);
int
rv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length,
	    int access)
{
	RV_DISPATCH(mr, IBV_REREG_MR_ERR_INPUT,
		    ROCE_VERBS_REAL(rv_rereg_mr, "ibv_rereg_mr", "IBVERBS_1.1")
			(mr, flags, pd, addr, length, access));
	rv_refuse("ibv_rereg_mr");
	return IBV_REREG_MR_ERR_INPUT;	/* the MR is unchanged */
}

/* Completion queues and channels. */

struct ibv_cq *rv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
			    struct ibv_comp_channel *channel, int comp_vector)
	ROCE_VERBS_EXPORT(ibv_create_cq);
struct ibv_cq *
rv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
	     struct ibv_comp_channel *channel, int comp_vector)
{
	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_create_cq, "ibv_create_cq", "IBVERBS_1.1")
			(ctx, cqe, cq_context, channel, comp_vector);
	return roce_verbs_create_cq(ctx, cqe, cq_context, channel, comp_vector);
}

struct ibv_cq *
roce_verbs_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
		     struct ibv_comp_channel *channel, int comp_vector)
{
	if (roce_verbs_obj_gone(channel, __func__))
		return NULL;
	return RV_NEW(rte_roce_create_cq(ctx, cqe, cq_context, channel, comp_vector));
}

int rv_destroy_cq(struct ibv_cq *cq) ROCE_VERBS_EXPORT(ibv_destroy_cq);
int
rv_destroy_cq(struct ibv_cq *cq)
{
	RV_DISPATCH(cq, EINVAL,
		    ROCE_VERBS_REAL(rv_destroy_cq, "ibv_destroy_cq", "IBVERBS_1.1")(cq));
	return RV_DESTROY(cq, rte_roce_destroy_cq);
}

int rv_resize_cq(struct ibv_cq *cq, int cqe) ROCE_VERBS_EXPORT(ibv_resize_cq);
int
rv_resize_cq(struct ibv_cq *cq, int cqe)
{
	RV_DISPATCH(cq, EINVAL,
		    ROCE_VERBS_REAL(rv_resize_cq, "ibv_resize_cq", "IBVERBS_1.1")(cq, cqe));
	return roce_verbs_errno(rte_roce_cq_resize(cq, cqe));
}

struct ibv_comp_channel *rv_create_comp_channel(struct ibv_context *ctx)
	ROCE_VERBS_EXPORT(ibv_create_comp_channel);
struct ibv_comp_channel *
rv_create_comp_channel(struct ibv_context *ctx)
{
	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_create_comp_channel, "ibv_create_comp_channel",
				       "IBVERBS_1.0")(ctx);
	return RV_NEW(rte_roce_create_comp_channel(ctx));
}

int rv_destroy_comp_channel(struct ibv_comp_channel *channel)
	ROCE_VERBS_EXPORT(ibv_destroy_comp_channel);
int
rv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	RV_DISPATCH(channel, EINVAL,
		    ROCE_VERBS_REAL(rv_destroy_comp_channel, "ibv_destroy_comp_channel",
				       "IBVERBS_1.0")(channel));
	return RV_DESTROY(channel, rte_roce_destroy_comp_channel);
}

void rv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
	ROCE_VERBS_EXPORT(ibv_ack_cq_events);
void
rv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	if (roce_verbs_obj_gone(cq, __func__))
		return;
	if (!RV_OURS(cq)) {
		ROCE_VERBS_REAL(rv_ack_cq_events, "ibv_ack_cq_events", "IBVERBS_1.1")
			(cq, nevents);
		return;
	}
	/* Acknowledging none is a no-op (programs do it at exit), also without a channel. */
	if (nevents != 0 && rte_roce_ack_cq_events(cq, nevents) < 0)
		RV_LOG(ERR, "CQ %p: %u events acknowledged, fewer got", (void *)cq, nevents);
}

/* Queue pairs. */

struct ibv_qp *rv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
	ROCE_VERBS_EXPORT(ibv_create_qp);
struct ibv_qp *
rv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	RV_DISPATCH(pd, NULL,
		    ROCE_VERBS_REAL(rv_create_qp, "ibv_create_qp", "IBVERBS_1.1")(pd, attr));
	return roce_verbs_create_qp(pd, attr);
}

struct ibv_qp *
roce_verbs_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	/* verbs' errno for a QP type the device does not have (librte_roce says EINVAL). */
	if (attr != NULL && attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD)
		return rv_refuse("a QP type other than RC, UC and UD");
	if (attr != NULL && (roce_verbs_obj_gone(attr->send_cq, __func__) ||
			     roce_verbs_obj_gone(attr->recv_cq, __func__) ||
			     roce_verbs_obj_gone(attr->srq, __func__)))
		return NULL;
	return RV_NEW(rte_roce_create_qp(pd, attr));
}

int rv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
	ROCE_VERBS_EXPORT(ibv_modify_qp);
int
rv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	RV_DISPATCH(qp, EINVAL,
		    ROCE_VERBS_REAL(rv_modify_qp, "ibv_modify_qp", "IBVERBS_1.1")
			(qp, attr, attr_mask));
	return roce_verbs_errno(rte_roce_modify_qp(qp, attr, attr_mask));
}

int rv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		struct ibv_qp_init_attr *init_attr) ROCE_VERBS_EXPORT(ibv_query_qp);
int
rv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
	    struct ibv_qp_init_attr *init_attr)
{
	RV_DISPATCH(qp, EINVAL,
		    ROCE_VERBS_REAL(rv_query_qp, "ibv_query_qp", "IBVERBS_1.1")
			(qp, attr, attr_mask, init_attr));
	return roce_verbs_errno(rte_roce_query_qp(qp, attr, attr_mask, init_attr));
}

int rv_destroy_qp(struct ibv_qp *qp) ROCE_VERBS_EXPORT(ibv_destroy_qp);
int
rv_destroy_qp(struct ibv_qp *qp)
{
	RV_DISPATCH(qp, EINVAL,
		    ROCE_VERBS_REAL(rv_destroy_qp, "ibv_destroy_qp", "IBVERBS_1.1")(qp));
	return RV_DESTROY(qp, rte_roce_destroy_qp);
}

int rv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
	ROCE_VERBS_EXPORT(ibv_attach_mcast);
int
rv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	RV_DISPATCH(qp, EINVAL,
		    ROCE_VERBS_REAL(rv_attach_mcast, "ibv_attach_mcast", "IBVERBS_1.1")
			(qp, gid, lid));
	return roce_verbs_errno(rte_roce_attach_mcast(qp, gid, lid));
}

int rv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
	ROCE_VERBS_EXPORT(ibv_detach_mcast);
int
rv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	RV_DISPATCH(qp, EINVAL,
		    ROCE_VERBS_REAL(rv_detach_mcast, "ibv_detach_mcast", "IBVERBS_1.1")
			(qp, gid, lid));
	return roce_verbs_errno(rte_roce_detach_mcast(qp, gid, lid));
}

/*
 * Our QPs are all laid out as struct ibv_qp_ex (rte_roce_verbs.h); those
 * made by ibv_create_qp_ex() with send_ops_flags have the ibv_wr_*
 * functions (roce_verbs_qp_ex_init()), the others none, as with rdma-core.
 */
struct ibv_qp_ex *rv_qp_to_qp_ex(struct ibv_qp *qp) ROCE_VERBS_EXPORT(ibv_qp_to_qp_ex);
struct ibv_qp_ex *
rv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct ibv_qp_ex *qpx = (struct ibv_qp_ex *)qp;

	RV_DISPATCH(qp, NULL,
		    ROCE_VERBS_REAL(rv_qp_to_qp_ex, "ibv_qp_to_qp_ex", "IBVERBS_1.6")(qp));
	return qpx->wr_start != NULL ? qpx : NULL;
}

int rv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece) ROCE_VERBS_EXPORT(ibv_query_ece);
int
rv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	RV_DISPATCH(qp, EINVAL,
		    ROCE_VERBS_REAL(rv_query_ece, "ibv_query_ece", "IBVERBS_1.10")(qp, ece));
	rv_refuse("ibv_query_ece");
	return EOPNOTSUPP;
}

int rv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece) ROCE_VERBS_EXPORT(ibv_set_ece);
int
rv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	RV_DISPATCH(qp, EINVAL,
		    ROCE_VERBS_REAL(rv_set_ece, "ibv_set_ece", "IBVERBS_1.10")(qp, ece));
	rv_refuse("ibv_set_ece");
	return EOPNOTSUPP;
}

/* 0: no in-order guarantee is claimed (ibv_query_qp_data_in_order(3)). */
int rv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
	ROCE_VERBS_EXPORT(ibv_query_qp_data_in_order);
int
rv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	RV_DISPATCH(qp, 0,
		    ROCE_VERBS_REAL(rv_query_qp_data_in_order, "ibv_query_qp_data_in_order",
				       "IBVERBS_1.14")(qp, op, flags));
	return 0;
}

/* Shared receive queues. */

struct ibv_srq *rv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
	ROCE_VERBS_EXPORT(ibv_create_srq);
struct ibv_srq *
rv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	RV_DISPATCH(pd, NULL,
		    ROCE_VERBS_REAL(rv_create_srq, "ibv_create_srq", "IBVERBS_1.1")(pd, attr));
	return RV_NEW(rte_roce_create_srq(pd, attr));
}

int rv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
	ROCE_VERBS_EXPORT(ibv_modify_srq);
int
rv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	RV_DISPATCH(srq, EINVAL,
		    ROCE_VERBS_REAL(rv_modify_srq, "ibv_modify_srq", "IBVERBS_1.1")
			(srq, attr, mask));
	return roce_verbs_errno(rte_roce_modify_srq(srq, attr, mask));
}

int rv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr) ROCE_VERBS_EXPORT(ibv_query_srq);
int
rv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	RV_DISPATCH(srq, EINVAL,
		    ROCE_VERBS_REAL(rv_query_srq, "ibv_query_srq", "IBVERBS_1.1")(srq, attr));
	return roce_verbs_errno(rte_roce_query_srq(srq, attr));
}

int rv_destroy_srq(struct ibv_srq *srq) ROCE_VERBS_EXPORT(ibv_destroy_srq);
int
rv_destroy_srq(struct ibv_srq *srq)
{
	RV_DISPATCH(srq, EINVAL,
		    ROCE_VERBS_REAL(rv_destroy_srq, "ibv_destroy_srq", "IBVERBS_1.1")(srq));
	return RV_DESTROY(srq, rte_roce_destroy_srq);
}

/* Address handles. */

struct ibv_ah *rv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
	ROCE_VERBS_EXPORT(ibv_create_ah);
struct ibv_ah *
rv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	RV_DISPATCH(pd, NULL,
		    ROCE_VERBS_REAL(rv_create_ah, "ibv_create_ah", "IBVERBS_1.1")(pd, attr));
	return RV_NEW(rte_roce_create_ah(pd, attr));
}

int rv_destroy_ah(struct ibv_ah *ah) ROCE_VERBS_EXPORT(ibv_destroy_ah);
int
rv_destroy_ah(struct ibv_ah *ah)
{
	RV_DISPATCH(ah, EINVAL,
		    ROCE_VERBS_REAL(rv_destroy_ah, "ibv_destroy_ah", "IBVERBS_1.1")(ah));
	return RV_DESTROY(ah, rte_roce_destroy_ah);
}

/* The index of gid in the port's GID table, or -1. */
static int
rv_gid_index(struct ibv_context *ctx, uint8_t port_num, const union rte_roce_gid *gid)
{
	struct ibv_port_attr pattr;
	union ibv_gid entry;
	int i;

	if (rte_roce_query_port(ctx, port_num, &pattr) < 0)
		return -1;
	for (i = 0; i < pattr.gid_tbl_len; i++)
		if (rte_roce_query_gid(ctx, port_num, i, &entry) == 0 &&
		    memcmp(&entry, gid, sizeof(entry)) == 0)
			return i;
	return -1;
}

/*
 * The address vector back to a UD message's sender, from its completion and
 * the 40 bytes before its payload, as rdma-core's ibv_init_ah_from_wc()
 * builds it for RoCEv2 (libibverbs/verbs.c): the GRH's source address as
 * dgid, the index of its destination in our GID table as sgid_index, the hop
 * limit (IPv4: TTL), traffic class and IPv6 flow label. An IPv4 GRH starts
 * with 20 zeros (union rte_roce_grh), so its first nibble is never 6.
 * udaddy's server answers its clients through it.
 */
static int
rv_ah_attr_from_wc(struct ibv_context *ctx, uint8_t port_num, const struct ibv_wc *wc,
		   const struct ibv_grh *grh, struct ibv_ah_attr *attr)
{
	union rte_roce_gid src, dst;
	union rte_roce_grh g;
	uint32_t vtc_flow;
	int index;

	memset(attr, 0, sizeof(*attr));
	attr->port_num = port_num;
	attr->sl = wc->sl;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;
	memcpy(&g, grh, sizeof(g));
	attr->is_global = 1;
	if (g.raw[0] >> 4 == 6) {
		memcpy(src.raw, g.ipv6.src_addr, sizeof(src.raw));
		memcpy(dst.raw, g.ipv6.dst_addr, sizeof(dst.raw));
		vtc_flow = rte_be_to_cpu_32(g.ipv6.vtc_flow);
		attr->grh.hop_limit = g.ipv6.hop_limits;
		attr->grh.traffic_class = (uint8_t)(vtc_flow >> 20);
		attr->grh.flow_label = vtc_flow & 0xfffff;
	} else if (g.v4.ipv4.version_ihl >> 4 == 4) {
		rte_roce_gid_from_ipv4(&src, g.v4.ipv4.src_addr);
		rte_roce_gid_from_ipv4(&dst, g.v4.ipv4.dst_addr);
		attr->grh.hop_limit = g.v4.ipv4.time_to_live;
		attr->grh.traffic_class = g.v4.ipv4.type_of_service;
	} else {
		RV_LOG(ERR, "ibv_init_ah_from_wc: the GRH is neither IPv4 nor IPv6 (byte 0 0x%02x)",
		       g.raw[0]);
		return EPROTONOSUPPORT;
	}
	memcpy(attr->grh.dgid.raw, src.raw, sizeof(src.raw));
	index = rv_gid_index(ctx, port_num, &dst);
	if (index < 0) {
		RV_LOG(ERR, "ibv_init_ah_from_wc: the message's destination is no GID of port %u",
		       port_num);
		return ENOENT;
	}
	attr->grh.sgid_index = (uint8_t)index;
	return 0;
}

int rv_init_ah_from_wc(struct ibv_context *ctx, uint8_t port_num, struct ibv_wc *wc,
		       struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
	ROCE_VERBS_EXPORT(ibv_init_ah_from_wc);
int
rv_init_ah_from_wc(struct ibv_context *ctx, uint8_t port_num, struct ibv_wc *wc,
		   struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
	int rc;

	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_init_ah_from_wc, "ibv_init_ah_from_wc", "IBVERBS_1.1")
			(ctx, port_num, wc, grh, ah_attr);
	if (wc == NULL || grh == NULL || ah_attr == NULL)
		return errno = EINVAL;
	rc = rv_ah_attr_from_wc(ctx, port_num, wc, grh, ah_attr);
	if (rc != 0)
		errno = rc;
	return rc;
}

struct ibv_ah *rv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
				    uint8_t port_num) ROCE_VERBS_EXPORT(ibv_create_ah_from_wc);
struct ibv_ah *
rv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
		     uint8_t port_num)
{
	struct ibv_ah_attr attr;

	RV_DISPATCH(pd, NULL,
		    ROCE_VERBS_REAL(rv_create_ah_from_wc, "ibv_create_ah_from_wc",
				       "IBVERBS_1.1")(pd, wc, grh, port_num));
	if (rv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr) != 0)
		return NULL;
	return rv_create_ah(pd, &attr);
}

int rv_resolve_eth_l2_from_gid(struct ibv_context *ctx, struct ibv_ah_attr *attr,
			       uint8_t eth_mac[6], uint16_t *vid)
	ROCE_VERBS_EXPORT(ibv_resolve_eth_l2_from_gid);
int
rv_resolve_eth_l2_from_gid(struct ibv_context *ctx, struct ibv_ah_attr *attr,
			   uint8_t eth_mac[6], uint16_t *vid)
{
	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_resolve_eth_l2_from_gid, "ibv_resolve_eth_l2_from_gid",
				       "IBVERBS_1.1")(ctx, attr, eth_mac, vid);
	rv_refuse("ibv_resolve_eth_l2_from_gid");
	return EOPNOTSUPP;
}

/* Asynchronous events. */

int rv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
	ROCE_VERBS_EXPORT(ibv_get_async_event);
int
rv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
	int rc;

	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_get_async_event, "ibv_get_async_event",
				       "IBVERBS_1.1")(ctx, event);
	/* verbs: -1 with errno set. */
	rc = rte_roce_get_async_event(ctx, event);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

/* True when the event names an object of ours; port and device events name none. */
static bool
rv_async_event_ours(const struct ibv_async_event *event)
{
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		return RV_OURS(event->element.cq);
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return RV_OURS(event->element.srq);
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
	case IBV_EVENT_DEVICE_FATAL:
		return false;	/* nothing to acknowledge, for us or the real one */
	default:
		return RV_OURS(event->element.qp);
	}
}

void rv_ack_async_event(struct ibv_async_event *event) ROCE_VERBS_EXPORT(ibv_ack_async_event);
void
rv_ack_async_event(struct ibv_async_event *event)
{
	if (event == NULL || !rv_async_event_ours(event)) {
		ROCE_VERBS_REAL(rv_ack_async_event, "ibv_ack_async_event", "IBVERBS_1.1")(event);
		return;
	}
	if (rte_roce_ack_async_event(event) < 0)
		RV_LOG(ERR, "event %d acknowledged but not got", event->event_type);
}
