/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Opening and closing a device (its tables, then its lanes, its place in
 * the device list and its workers), and the verbs entry points that change
 * objects a lane reads: each runs the object code of roce_qp.c, roce_mr.c,
 * roce_mw.c, roce_srq.c, roce_ah.c or roce_mcast.c inside the control handshake
 * (roce_lane.h), which parks the workers or holds the inline lanes. The
 * handshake is wrapped once, in ROCE_CTRL_CALL(). (The ibv_context ops table, with verbs' positive
 * errno, is filled by the verbs ABI layer, lib/roce_verbs.)
 */

#include <string.h>

#include <rte_errno.h>

#include "rte_roce_event.h"
#include "roce_ah.h"
#include "roce_dev.h"
#include "roce_lane.h"
#include "roce_log.h"
#include "roce_mcast.h"
#include "roce_mr.h"
#include "roce_mw.h"
#include "roce_qp.h"
#include "roce_srq.h"
#include "roce_worker.h"

static void
roce_verbs_dev_free(struct roce_dev *dev)
{
	/* First: telemetry must not find it while it goes. */
	roce_dev_list_del(dev);
	roce_dev_lanes_free(dev);
	roce_dev_destroy(dev);
}

struct ibv_context *
rte_roce_open_device(struct rte_roce_port *port, const struct rte_roce_dev_conf *conf)
{
	struct roce_dev *dev = roce_dev_create(port, conf);
	int rc;

	if (dev == NULL)
		return NULL;
	dev->engine = &roce_engine;
	rc = roce_dev_lanes_init(dev);
	if (rc == 0)
		rc = roce_dev_list_add(dev);
	/* Last: from here on the workers own the progress state. */
	if (rc == 0)
		rc = roce_workers_start(dev);
	if (rc < 0) {
		roce_verbs_dev_free(dev);
		rte_errno = -rc;
		return NULL;
	}
	return &dev->ibv;
}

int
rte_roce_close_device(struct ibv_context *ctx)
{
	struct roce_dev *dev;
	int rc;

	if (ctx == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	dev = roce_dev_of(ctx);
	rc = roce_dev_check_idle(dev);
	if (rc < 0)
		return rc;
	roce_workers_stop(dev);
	roce_verbs_dev_free(dev);
	return 0;
}

static struct roce_dev *
roce_ctrl_dev(struct ibv_context *ctx)
{
	return ctx != NULL ? roce_dev_of(ctx) : NULL;
}

/*
 * call, run with the lanes of the device of obj (a PD, QP, MR, SRQ or AH)
 * held; obj NULL: nothing is held and call refuses it.
 */
#define ROCE_CTRL_CALL(obj, call) __extension__ ({ \
	struct roce_dev *ctrl_dev_ = roce_ctrl_dev((obj) != NULL ? (obj)->context : NULL); \
	__typeof__(call) ctrl_ret_; \
	roce_ctrl_begin(ctrl_dev_); \
	ctrl_ret_ = (call); \
	roce_ctrl_end(ctrl_dev_); \
	ctrl_ret_; \
})

struct ibv_qp *
rte_roce_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	return ROCE_CTRL_CALL(pd, roce_ctrl_create_qp(pd, attr));
}

struct ibv_qp *
rte_roce_create_qp1(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	return ROCE_CTRL_CALL(pd, roce_ctrl_create_qp1(pd, attr));
}

int
rte_roce_query_qp(struct ibv_qp *ibv_qp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr)
{
	return ROCE_CTRL_CALL(ibv_qp, roce_ctrl_query_qp(ibv_qp, attr, attr_mask, init_attr));
}

int
rte_roce_modify_qp(struct ibv_qp *ibv_qp, struct ibv_qp_attr *attr, int attr_mask)
{
	return ROCE_CTRL_CALL(ibv_qp, roce_ctrl_modify_qp(ibv_qp, attr, attr_mask));
}

int
rte_roce_destroy_qp(struct ibv_qp *ibv_qp)
{
	return ROCE_CTRL_CALL(ibv_qp, roce_ctrl_destroy_qp(ibv_qp));
}

struct ibv_mr *
rte_roce_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ROCE_CTRL_CALL(pd, roce_ctrl_reg_mr(pd, addr, length, access));
}

int
rte_roce_dereg_mr(struct ibv_mr *ibv_mr)
{
	return ROCE_CTRL_CALL(ibv_mr, roce_ctrl_dereg_mr(ibv_mr));
}

struct ibv_mw *
rte_roce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	return ROCE_CTRL_CALL(pd, roce_ctrl_alloc_mw(pd, type));
}

int
rte_roce_dealloc_mw(struct ibv_mw *mw)
{
	return ROCE_CTRL_CALL(mw, roce_ctrl_dealloc_mw(mw));
}

struct ibv_srq *
rte_roce_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *init_attr)
{
	return ROCE_CTRL_CALL(pd, roce_ctrl_create_srq(pd, init_attr));
}

int
rte_roce_modify_srq(struct ibv_srq *ibv_srq, struct ibv_srq_attr *attr, int attr_mask)
{
	return ROCE_CTRL_CALL(ibv_srq, roce_ctrl_modify_srq(ibv_srq, attr, attr_mask));
}

int
rte_roce_query_srq(struct ibv_srq *ibv_srq, struct ibv_srq_attr *attr)
{
	return ROCE_CTRL_CALL(ibv_srq, roce_ctrl_query_srq(ibv_srq, attr));
}

int
rte_roce_destroy_srq(struct ibv_srq *ibv_srq)
{
	return ROCE_CTRL_CALL(ibv_srq, roce_ctrl_destroy_srq(ibv_srq));
}

int
rte_roce_attach_mcast(struct ibv_qp *ibv_qp, const union ibv_gid *gid, uint16_t lid)
{
	return ROCE_CTRL_CALL(ibv_qp, roce_ctrl_attach_mcast(ibv_qp, gid, lid));
}

int
rte_roce_detach_mcast(struct ibv_qp *ibv_qp, const union ibv_gid *gid, uint16_t lid)
{
	return ROCE_CTRL_CALL(ibv_qp, roce_ctrl_detach_mcast(ibv_qp, gid, lid));
}

/* An AH resolves its neighbour: the port's cache belongs to the progress thread. */
struct ibv_ah *
rte_roce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	return ROCE_CTRL_CALL(pd, roce_ctrl_create_ah(pd, attr));
}

int
rte_roce_destroy_ah(struct ibv_ah *ibv_ah)
{
	return ROCE_CTRL_CALL(ibv_ah, roce_ctrl_destroy_ah(ibv_ah));
}

int
rte_roce_resolve_gid(struct ibv_context *ctx, const union ibv_gid *gid, struct rte_ether_addr *mac)
{
	struct roce_dev *dev = roce_ctrl_dev(ctx);
	union rte_roce_gid ip;
	int rc;

	if (dev == NULL || gid == NULL || mac == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	/* The neighbour cache is written by queue 0's owner: park it, as every control call. */
	memcpy(ip.raw, gid->raw, sizeof(ip.raw));
	roce_ctrl_begin(dev);
	rc = rte_roce_port_resolve(dev->port, &ip, mac);
	roce_ctrl_end(dev);
	return rc;
}
