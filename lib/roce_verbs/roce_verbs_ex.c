/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The extended verbs: verbs.h's inline ibv_create_qp_ex(),
 * ibv_create_cq_ex() and ibv_query_device_ex() find their functions in
 * the context's struct verbs_context (verbs_get_ctx_op()). librte_roce
 * lays its ibv_context out as the last member of a zeroed verbs_context
 * (rte_roce_verbs.h); the layer fills the ops it has, its size, and then
 * marks the context extended. The ops left NULL make verbs.h answer
 * EOPNOTSUPP or ENOSYS, as before. Why this is safe: doc/verbs-abi.md.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include <rte_roce_verbs.h>

#include "roce_verbs.h"

/*
 * The QP creation attributes librte_roce has; CREATE_FLAGS only with no
 * flag set (pyverbs sets the bit with flags 0).
 */
#define RV_QP_INIT_ATTR_MASK (IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS | \
			      IBV_QP_INIT_ATTR_CREATE_FLAGS)
/* The completion fields an ibv_wc of librte_roce carries. */
#define RV_WC_FLAGS IBV_WC_STANDARD_FLAGS

/* A flag bit and its name, for the refusals' logs. */
struct rv_flag_name {
	uint64_t flag;
	const char *name;
};

/* The send operations of the extended QP: the ones librte_roce posts, then the others. */
static const struct rv_flag_name rv_send_ops[] = {
	{ IBV_QP_EX_WITH_RDMA_WRITE, NULL },
	{ IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM, NULL },
	{ IBV_QP_EX_WITH_SEND, NULL },
	{ IBV_QP_EX_WITH_SEND_WITH_IMM, NULL },
	{ IBV_QP_EX_WITH_RDMA_READ, NULL },
	{ IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, NULL },
	{ IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, NULL },
	{ IBV_QP_EX_WITH_SEND_WITH_INV, NULL },
	{ IBV_QP_EX_WITH_ATOMIC_WRITE, NULL },
	{ IBV_QP_EX_WITH_LOCAL_INV, NULL },
	{ IBV_QP_EX_WITH_BIND_MW, NULL },
	{ IBV_QP_EX_WITH_TSO, "IBV_QP_EX_WITH_TSO" },
};

/* The completion fields: the standard ones librte_roce fills, then the others. */
static const struct rv_flag_name rv_wc_flags[] = {
	{ IBV_WC_STANDARD_FLAGS, NULL },
	{ IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, "IBV_WC_EX_WITH_COMPLETION_TIMESTAMP" },
	{ IBV_WC_EX_WITH_CVLAN, "IBV_WC_EX_WITH_CVLAN" },
	{ IBV_WC_EX_WITH_FLOW_TAG, "IBV_WC_EX_WITH_FLOW_TAG" },
	{ IBV_WC_EX_WITH_TM_INFO, "IBV_WC_EX_WITH_TM_INFO" },
	{ IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	  "IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK" },
};

/*
 * Refuse the flags of a set that librte_roce does not have: EOPNOTSUPP,
 * logged with the first one's name (a bit not in the table: unknown).
 * false when every flag is supported.
 */
static bool
rv_flags_refused(uint64_t flags, const struct rv_flag_name *table, unsigned int n,
		 const char *knob)
{
	uint64_t known = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		known |= table[i].flag;
		if (table[i].name != NULL && (flags & table[i].flag) != 0) {
			RV_LOG(NOTICE, "%s %s: not supported on librte_roce devices", knob,
			       table[i].name);
			errno = EOPNOTSUPP;
			return true;
		}
	}
	if ((flags & ~known) != 0) {
		RV_LOG(NOTICE, "%s 0x%" PRIx64 ": unknown flags", knob, flags & ~known);
		errno = EOPNOTSUPP;
		return true;
	}
	return false;
}

static void *
rv_refuse_ex(int err, const char *why)
{
	RV_LOG(NOTICE, "%s", why);
	errno = err;
	return NULL;
}

/* ibv_query_device_ex(): the legacy attributes, one port, no extended capability. */
static int
rv_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *input,
		   struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex full;
	int rc;

	if ((input != NULL && input->comp_mask != 0) || attr == NULL ||
	    attr_size < sizeof(attr->orig_attr))
		return EINVAL;
	memset(&full, 0, sizeof(full));
	rc = rte_roce_query_device(ctx, &full.orig_attr);
	if (rc < 0)
		return -rc;
	full.device_cap_flags_ex = full.orig_attr.device_cap_flags;
	full.phys_port_cnt_ex = full.orig_attr.phys_port_cnt;
	/* A program built against older headers passes a shorter struct. */
	memcpy(attr, &full, RTE_MIN(attr_size, sizeof(full)));
	return 0;
}

/*
 * ibv_create_cq_ex(): a CQ of librte_roce with the polling functions.
 * Refused (EOPNOTSUPP, naming the knob): a parent domain, the flag
 * IGNORE_OVERRUN, and the wc_flags whose fields librte_roce's completions
 * do not have (timestamps, VLAN, flow tag, tag matching).
 */
static struct ibv_cq_ex *
rv_create_cq_ex(struct ibv_context *ctx, struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq *cq;

	if (attr == NULL)
		return rv_refuse_ex(EINVAL, "ibv_create_cq_ex: attr NULL");
	if ((attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) != 0)
		return rv_refuse_ex(EOPNOTSUPP, "ibv_create_cq_ex: comp_mask "
				    "IBV_CQ_INIT_ATTR_MASK_PD (parent domains) not supported");
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) != 0 &&
	    (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED) != 0)
		return rv_refuse_ex(EOPNOTSUPP, "ibv_create_cq_ex: flags "
				    "IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN not supported (an overrun "
				    "CQ is in error, rte_roce_poll_cq())");
	if (rv_flags_refused(attr->wc_flags, rv_wc_flags, RTE_DIM(rv_wc_flags),
			     "ibv_create_cq_ex: wc_flags"))
		return NULL;
	cq = roce_verbs_create_cq(ctx, attr->cqe, attr->cq_context, attr->channel,
				  attr->comp_vector);
	if (cq == NULL)
		return NULL;
	/* Our CQs are laid out as struct ibv_cq_ex (rte_roce_verbs.h). */
	roce_verbs_cq_ex_init((struct ibv_cq_ex *)cq);
	return (struct ibv_cq_ex *)cq;
}

bool
roce_verbs_qp_ex_refused(const struct ibv_qp_init_attr_ex *attr, const char *call)
{
	char knob[64];

	if ((attr->comp_mask & ~(uint32_t)RV_QP_INIT_ATTR_MASK) != 0) {
		RV_LOG(NOTICE, "%s: comp_mask 0x%x: only IBV_QP_INIT_ATTR_PD, _SEND_OPS_FLAGS and "
		       "_CREATE_FLAGS are supported (no XRC domain, TSO or RSS)", call,
		       attr->comp_mask);
		errno = EOPNOTSUPP;
		return true;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) != 0 && attr->create_flags != 0) {
		RV_LOG(NOTICE, "%s: create_flags 0x%x: none is supported", call,
		       attr->create_flags);
		errno = EOPNOTSUPP;
		return true;
	}
	snprintf(knob, sizeof(knob), "%s: send_ops_flags", call);
	return (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0 &&
	       rv_flags_refused(attr->send_ops_flags, rv_send_ops, RTE_DIM(rv_send_ops), knob);
}

/*
 * ibv_create_qp_ex() with more than a PD (verbs.h calls ibv_create_qp()
 * for a PD alone): a QP of librte_roce, with the ibv_wr_* functions when
 * send_ops_flags is given. Refused (EOPNOTSUPP, naming the knob): XRC
 * domains, any create flag, TSO, RSS, and the send operations librte_roce
 * does not post.
 */
static struct ibv_qp *
rv_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp *qp;

	if (attr == NULL)
		return rv_refuse_ex(EINVAL, "ibv_create_qp_ex: attr NULL");
	if (roce_verbs_qp_ex_refused(attr, "ibv_create_qp_ex"))
		return NULL;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_PD) == 0)
		return rv_refuse_ex(EINVAL, "ibv_create_qp_ex: comp_mask without "
				    "IBV_QP_INIT_ATTR_PD");
	if (roce_verbs_obj_gone(attr->pd, __func__))
		return NULL;
	if (attr->pd == NULL || attr->pd->context != ctx)
		return rv_refuse_ex(EINVAL, "ibv_create_qp_ex: the PD is not of this device");
	/* The leading fields of ibv_qp_init_attr_ex are ibv_qp_init_attr's (verbs.h casts it so). */
	qp = roce_verbs_create_qp(attr->pd, (struct ibv_qp_init_attr *)attr);
	if (qp != NULL && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0)
		roce_verbs_qp_ex_init((struct ibv_qp_ex *)qp);
	return qp;
}

void
roce_verbs_ex_init(struct ibv_context *ctx)
{
	struct verbs_context *vctx = container_of(ctx, struct verbs_context, context);

	vctx->query_device_ex = rv_query_device_ex;
	vctx->create_cq_ex = rv_create_cq_ex;
	vctx->create_qp_ex = rv_create_qp_ex;
	/* rdma-core 44's size: ops that later headers add read as absent. */
	vctx->sz = sizeof(*vctx);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
}
