/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Address vectors and address handles. RoCE needs a GRH in every address
 * vector (K:core/verbs.c rdma_ah_find_type; IBV_QPF_GRH_REQUIRED): the
 * source is the port's GID at sgid_index, the destination GID is an IP
 * address, unicast (resolved through the port's ARP/ND, started here so
 * that the first packet rarely waits) or, for UD address handles, a
 * multicast group.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_ah.h"
#include "roce_dev.h"
#include "roce_log.h"

int
roce_av_check(struct roce_dev *dev, const struct ibv_ah_attr *ah, bool mcast_ok,
	      union rte_roce_gid *sgid, union rte_roce_gid *dgid)
{
	struct rte_ether_addr mac;
	int rc;

	if (!ah->is_global) {
		ROCE_LOG(ERR, "address vector not global: RoCE needs a GRH");
		return -EINVAL;
	}
	if (ah->port_num > 1) {
		ROCE_LOG(ERR, "address vector port %u: a device has port 1 only", ah->port_num);
		return -EINVAL;
	}
	if (rte_roce_port_gid_query(dev->port, ah->grh.sgid_index, sgid) < 0) {
		ROCE_LOG(ERR, "sgid_index %u: no such GID", ah->grh.sgid_index);
		return -EINVAL;
	}
	memcpy(dgid->raw, ah->grh.dgid.raw, sizeof(dgid->raw));
	if (rte_roce_gid_is_ipv4(sgid) != rte_roce_gid_is_ipv4(dgid)) {
		ROCE_LOG(ERR, "source and destination GIDs of different IP versions");
		return -EINVAL;
	}
	if (rte_roce_gid_is_mcast(dgid)) {
		if (mcast_ok)
			return 0;
		ROCE_LOG(ERR, "destination GID is a multicast group: UD address handles only");
		return -EINVAL;
	}
	/* The port refuses what is no unicast address (reserved IPv4, ::). */
	rc = rte_roce_port_resolve(dev->port, dgid, &mac);
	if (rc == -EINVAL) {
		ROCE_LOG(ERR, "destination GID is not a unicast address");
		return rc;
	}
	if (rc < 0 && rc != -EAGAIN)
		ROCE_LOG(WARNING, "peer address not resolvable yet (%d)", rc);
	return 0;
}

struct ibv_ah *
roce_ctrl_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	union rte_roce_gid sgid, dgid;
	struct roce_dev *dev;
	struct roce_ah *ah;
	int rc;

	dev = roce_dev_of_pd(pd, attr);
	if (dev == NULL)
		return NULL;
	rc = roce_av_check(dev, attr, true, &sgid, &dgid);
	if (rc < 0) {
		rte_errno = -rc;
		return NULL;
	}
	ah = rte_zmalloc_socket("roce_ah", sizeof(*ah), 0, dev->socket);
	if (ah == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ah->ibv.context = pd->context;
	ah->ibv.pd = pd;
	ah->sgid = sgid;
	ah->dgid = dgid;
	ah->tos = attr->grh.traffic_class;
	ah->flow_label = attr->grh.flow_label;
	ah->mcast = rte_roce_gid_is_mcast(&dgid);
	roce_pd_of(pd)->users++;
	return &ah->ibv;
}

int
roce_ctrl_destroy_ah(struct ibv_ah *ibv_ah)
{
	struct roce_ah *ah;

	if (ibv_ah == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	ah = roce_ah_of(ibv_ah);
	roce_pd_of(ibv_ah->pd)->users--;
	if (__atomic_load_n(&ah->users, __ATOMIC_ACQUIRE) != 0) {
		ROCE_LOG(DEBUG, "AH in use by %u posted send WRs: freed when they complete",
			 ah->users);
		__atomic_store_n(&ah->destroyed, true, __ATOMIC_RELEASE);
		return 0;
	}
	rte_free(ah);
	return 0;
}

void
roce_ah_free_destroyed(struct roce_ah *ah)
{
	if (__atomic_load_n(&ah->destroyed, __ATOMIC_ACQUIRE))
		rte_free(ah);
}
