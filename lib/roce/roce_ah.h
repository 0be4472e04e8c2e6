/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_AH_H
#define ROCE_AH_H

/*
 * Address handles: the resolved address vector of a UD destination. A UD
 * send WQE holds a use of its AH from post to retire, so that an AH
 * destroyed while in use lives on until its last WQE retires (rxe copies
 * the address vector into the WQE instead, K:rxe_verbs.c
 * init_send_wr; the application sees the same). The count is atomic: the
 * posting thread takes uses, the progress thread releases them.
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "rte_roce_gid.h"

struct roce_ah {
	struct ibv_ah ibv;		/* first: roce_ah_of() is a cast */
	union rte_roce_gid sgid;	/* the port's GID at sgid_index */
	union rte_roce_gid dgid;	/* destination: unicast address or multicast group */
	uint32_t flow_label;
	uint8_t tos;			/* traffic class */
	bool mcast;			/* dgid is a multicast group */
	uint32_t users;			/* WQEs posted with it and not retired (atomic) */
	/*
	 * Destroyed while in use: freed by the last roce_ah_put(). Set by the
	 * control call with the lanes held, so no put runs meanwhile.
	 */
	bool destroyed;
};

struct roce_dev;

/*
 * Check an address vector (GRH present, port 1, a source GID the port has,
 * a destination of the same IP version; a multicast group only if
 * mcast_ok) and start resolving a unicast destination. 0 with *sgid and
 * *dgid, or -EINVAL after logging why.
 */
int roce_av_check(struct roce_dev *dev, const struct ibv_ah_attr *ah, bool mcast_ok,
		  union rte_roce_gid *sgid, union rte_roce_gid *dgid);

static inline struct roce_ah *
roce_ah_of(struct ibv_ah *ah)
{
	return (struct roce_ah *)ah;
}

static inline void
roce_ah_get(struct roce_ah *ah)
{
	__atomic_fetch_add(&ah->users, 1, __ATOMIC_RELAXED);
}

/* Free an AH destroyed while in use, once its last use is gone (roce_ah.c). */
void roce_ah_free_destroyed(struct roce_ah *ah);

static inline void
roce_ah_put(struct roce_ah *ah)
{
	if (__atomic_sub_fetch(&ah->users, 1, __ATOMIC_ACQ_REL) == 0)
		roce_ah_free_destroyed(ah);
}

/* The control calls behind rte_roce_create_ah/destroy_ah (roce_verbs.c: lanes held). */
struct ibv_ah *roce_ctrl_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int roce_ctrl_destroy_ah(struct ibv_ah *ibv_ah);

#endif /* ROCE_AH_H */
