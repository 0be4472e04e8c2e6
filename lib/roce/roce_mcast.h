/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_MCAST_H
#define ROCE_MCAST_H

/*
 * UD multicast: the device's table of (group, QP) attachments and the
 * delivery of a multicast SEND to every attached QP (roce_mcast.c).
 */

#include <infiniband/verbs.h>

#include <rte_mbuf.h>

struct rte_roce_pkt;
struct roce_lane;
struct roce_qp;

/* Detach qp from every group (destroy). */
void roce_mcast_qp_fini(struct roce_qp *qp);

/* The control calls behind rte_roce_attach_mcast/detach_mcast (roce_verbs.c, lanes held). */
int roce_ctrl_attach_mcast(struct ibv_qp *ibv_qp, const union ibv_gid *gid, uint16_t lid);
int roce_ctrl_detach_mcast(struct ibv_qp *ibv_qp, const union ibv_gid *gid, uint16_t lid);

#endif /* ROCE_MCAST_H */
