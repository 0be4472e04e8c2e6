/* SPDX-License-Identifier: BSD-3-Clause */

/* Protection domains: a PD groups MRs and QPs, and counts them so it is not freed under them. */

/* Logs under lib.roce.mr (roce_log.h). */
#define ROCE_LOG_TYPE roce_logtype_mr
#define ROCE_LOG_AREA "ROCE pd"

#include <errno.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_dev.h"
#include "roce_log.h"

struct ibv_pd *
rte_roce_alloc_pd(struct ibv_context *ctx)
{
	struct roce_dev *dev;
	struct roce_pd *pd;

	if (ctx == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		rte_errno = EINVAL;
		return NULL;
	}
	dev = roce_dev_of(ctx);
	if (dev->nb_pds >= ROCE_DEV_MAX_PD) {
		ROCE_LOG(ERR, "device %s: %u PDs already", dev->ibv_dev.name, dev->nb_pds);
		rte_errno = ENOSPC;
		return NULL;
	}
	pd = rte_zmalloc_socket("roce_pd", sizeof(*pd), 0, dev->socket);
	if (pd == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	pd->ibv.context = ctx;
	dev->nb_pds++;
	return &pd->ibv;
}

int
rte_roce_dealloc_pd(struct ibv_pd *ibv_pd)
{
	struct roce_pd *pd;

	if (ibv_pd == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	pd = roce_pd_of(ibv_pd);
	if (pd->users != 0) {
		ROCE_LOG(ERR, "PD in use by %u MRs and QPs", pd->users);
		return -EBUSY;
	}
	roce_dev_of(ibv_pd->context)->nb_pds--;
	rte_free(pd);
	return 0;
}
