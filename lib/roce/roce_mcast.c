/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * UD multicast (ibv_attach_mcast(3)): a device keeps a table of
 * (group, QP) attachments; the port joins a group while a QP of the device
 * is attached to it. A SEND to the group (DestQP 0xFFFFFF) is delivered to
 * every attached QP, each getting its own copy and its own Q_Key check.
 * The table is scanned linearly: RTE_ROCE_DEV_MCAST_MAX is small and
 * multicast is not a fast path here.
 */

#include <errno.h>
#include <string.h>

#include "roce_dev.h"
#include "roce_log.h"
#include "roce_mcast.h"
#include "roce_qp.h"
#include "roce_transport.h"

static struct roce_mcast_attach *
mcast_find(struct roce_dev *dev, const struct roce_qp *qp, const union rte_roce_gid *gid)
{
	unsigned int i;

	for (i = 0; i < RTE_ROCE_DEV_MCAST_MAX; i++)
		if (dev->mcast[i].qp == qp && rte_roce_gid_equal(&dev->mcast[i].gid, gid))
			return &dev->mcast[i];
	return NULL;
}

/* Check the arguments of attach/detach; 0 with the QP and the group. */
static int
mcast_args(struct ibv_qp *ibv_qp, const union ibv_gid *ibv_gid, struct roce_qp **qp,
	   union rte_roce_gid *gid)
{
	if (ibv_qp == NULL || ibv_gid == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	*qp = roce_qp_of(ibv_qp);
	memcpy(gid->raw, ibv_gid->raw, sizeof(gid->raw));
	if (ibv_qp->qp_type != IBV_QPT_UD || !rte_roce_gid_is_mcast(gid)) {
		ROCE_LOG(ERR, "QP 0x%x: multicast needs a UD QP and a multicast GID",
			 ibv_qp->qp_num);
		return -EINVAL;
	}
	return 0;
}

int
roce_ctrl_attach_mcast(struct ibv_qp *ibv_qp, const union ibv_gid *ibv_gid, uint16_t lid)
{
	union rte_roce_gid gid, none = { .raw = { 0 } };
	struct roce_mcast_attach *a;
	struct roce_qp *qp;
	int rc;

	RTE_SET_USED(lid);
	rc = mcast_args(ibv_qp, ibv_gid, &qp, &gid);
	if (rc < 0)
		return rc;
	if (mcast_find(qp->dev, qp, &gid) != NULL)
		return -EEXIST;
	a = mcast_find(qp->dev, NULL, &none);
	if (a == NULL) {
		ROCE_LOG(ERR, "device %s: %u multicast attachments already", qp->dev->ibv_dev.name,
			 RTE_ROCE_DEV_MCAST_MAX);
		return -ENOSPC;
	}
	rc = rte_roce_port_mcast_join(qp->dev->port, &gid);
	if (rc < 0) {
		ROCE_LOG(ERR, "QP 0x%x: the port cannot join the group (%d)", ibv_qp->qp_num, rc);
		return rc;
	}
	a->gid = gid;
	a->qp = qp;
	return 0;
}

static void
mcast_detach(struct roce_mcast_attach *a)
{
	(void)rte_roce_port_mcast_leave(a->qp->dev->port, &a->gid);
	memset(a, 0, sizeof(*a));
}

int
roce_ctrl_detach_mcast(struct ibv_qp *ibv_qp, const union ibv_gid *ibv_gid, uint16_t lid)
{
	struct roce_mcast_attach *a;
	union rte_roce_gid gid;
	struct roce_qp *qp;
	int rc;

	RTE_SET_USED(lid);
	rc = mcast_args(ibv_qp, ibv_gid, &qp, &gid);
	if (rc < 0)
		return rc;
	a = mcast_find(qp->dev, qp, &gid);
	if (a == NULL)
		return -ENOENT;
	mcast_detach(a);
	return 0;
}

void
roce_mcast_qp_fini(struct roce_qp *qp)
{
	unsigned int i;

	for (i = 0; i < RTE_ROCE_DEV_MCAST_MAX; i++)
		if (qp->dev->mcast[i].qp == qp)
			mcast_detach(&qp->dev->mcast[i]);
}
