/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Devices: create and destroy (rte_roce_open_device() in roce_verbs.c adds
 * the lanes and workers), the list of open devices, the query verbs, the QP
 * table by QPN and the doorbells of a lane's rings (the schedule of a QP
 * with work, the hand-off of a frame to the lane owning its QP). The lanes'
 * progress loop is in roce_lane.c.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "roce_dev.h"
#include "roce_log.h"
#include "roce_tsan.h"
#include "roce_mr.h"
#include "roce_mw.h"
#include "roce_qp.h"
#include "roce_transport.h"

/* 16,384 QPs for applications, plus QP1 (issue 5: at least 16k QPs per port). */
#define ROCE_DEV_DEFAULT_MAX_QP		(16384 + RTE_ROCE_QP1_QPN)
#define ROCE_DEV_DEFAULT_MAX_QP_WR	4096
#define ROCE_DEV_DEFAULT_MAX_SGE	32
#define ROCE_DEV_DEFAULT_MAX_INLINE	256
#define ROCE_DEV_DEFAULT_MAX_CQ		1024
#define ROCE_DEV_DEFAULT_MAX_CQE	65536
#define ROCE_DEV_DEFAULT_MAX_MR		4096
#define ROCE_DEV_DEFAULT_MAX_RD_ATOM	16
#define ROCE_DEV_DEFAULT_MAX_SRQ	1024
#define ROCE_DEV_DEFAULT_MAX_SRQ_WR	4096
#define ROCE_DEV_DEFAULT_MAX_SRQ_SGE	32

/* What query_device reports beyond the configured limits. */
#define ROCE_DEV_VENDOR_PART_ID		0x5244	/* "RD" */
/* No IEEE OUI of its own: the value rxe reports (and rdma-core's tests want non-zero). */
#define ROCE_DEV_VENDOR_ID		0xffffff
#define ROCE_DEV_PAGE_SIZE_CAP		0xfffff000ull	/* any page of 4 KiB or more */
/* Local CA ACK delay reported, as rxe (K:rxe_param.h RXE_LOCAL_CA_ACK_DELAY). */
#define ROCE_DEV_LOCAL_CA_ACK_DELAY	15
/* Physical port states reported by query_port (IBA 14.2.5.6 PortPhysicalState). */
#define ROCE_PORT_PHYS_STATE_DISABLED	3
#define ROCE_PORT_PHYS_STATE_LINK_UP	5
/* IBA 9.4.1: a message is at most 2^31 bytes. */
#define ROCE_PORT_MAX_MSG_SZ		(1u << 31)
/* IB path MTU enum (RC:verbs.h): bytes = 1 << (enum + 7). */
#define ROCE_IB_MTU_SHIFT		7

/* One port per device (verbs numbers ports from 1). */
#define ROCE_DEV_PORT_NUM		1

static const struct rte_roce_dev_conf roce_dev_conf_default = {
	.max_qp = ROCE_DEV_DEFAULT_MAX_QP,
	.max_qp_wr = ROCE_DEV_DEFAULT_MAX_QP_WR,
	.max_sge = ROCE_DEV_DEFAULT_MAX_SGE,
	.max_inline_data = ROCE_DEV_DEFAULT_MAX_INLINE,
	.max_cq = ROCE_DEV_DEFAULT_MAX_CQ,
	.max_cqe = ROCE_DEV_DEFAULT_MAX_CQE,
	.max_mr = ROCE_DEV_DEFAULT_MAX_MR,
	.max_qp_rd_atom = ROCE_DEV_DEFAULT_MAX_RD_ATOM,
	.max_srq = ROCE_DEV_DEFAULT_MAX_SRQ,
	.max_srq_wr = ROCE_DEV_DEFAULT_MAX_SRQ_WR,
	.max_srq_sge = ROCE_DEV_DEFAULT_MAX_SRQ_SGE,
};

/* Take a limit from conf, or its default; refuse one above max. */
static int
roce_dev_limit(uint32_t *val, uint32_t asked, uint32_t dflt, uint32_t max, const char *name)
{
	*val = asked != 0 ? asked : dflt;
	if (*val > max) {
		ROCE_LOG(ERR, "%s %u above the largest supported, %u", name, *val, max);
		return -EINVAL;
	}
	return 0;
}

static int
roce_dev_conf_apply(struct rte_roce_dev_conf *out, const struct rte_roce_dev_conf *in)
{
	const struct rte_roce_dev_conf *d = &roce_dev_conf_default;
	struct rte_roce_dev_conf zero = { 0 };

	if (in == NULL)
		in = &zero;
	if (roce_dev_limit(&out->max_qp, in->max_qp, d->max_qp, RTE_ROCE_DEV_MAX_QP_MAX,
			   "max_qp") < 0 ||
	    roce_dev_limit(&out->max_qp_wr, in->max_qp_wr, d->max_qp_wr, RTE_ROCE_DEV_MAX_WR_MAX,
			   "max_qp_wr") < 0 ||
	    roce_dev_limit(&out->max_sge, in->max_sge, d->max_sge, RTE_ROCE_DEV_MAX_SGE_MAX,
			   "max_sge") < 0 ||
	    roce_dev_limit(&out->max_inline_data, in->max_inline_data, d->max_inline_data,
			   RTE_ROCE_DEV_MAX_INLINE_MAX, "max_inline_data") < 0 ||
	    roce_dev_limit(&out->max_cq, in->max_cq, d->max_cq, RTE_ROCE_DEV_MAX_QP_MAX,
			   "max_cq") < 0 ||
	    roce_dev_limit(&out->max_cqe, in->max_cqe, d->max_cqe, RTE_ROCE_DEV_MAX_WR_MAX,
			   "max_cqe") < 0 ||
	    roce_dev_limit(&out->max_mr, in->max_mr, d->max_mr, RTE_ROCE_DEV_MAX_MR_MAX,
			   "max_mr") < 0 ||
	    roce_dev_limit(&out->max_qp_rd_atom, in->max_qp_rd_atom, d->max_qp_rd_atom,
			   RTE_ROCE_DEV_MAX_RD_ATOM_MAX, "max_qp_rd_atom") < 0 ||
	    roce_dev_limit(&out->max_srq, in->max_srq, d->max_srq, RTE_ROCE_DEV_MAX_QP_MAX,
			   "max_srq") < 0 ||
	    roce_dev_limit(&out->max_srq_wr, in->max_srq_wr, d->max_srq_wr,
			   RTE_ROCE_DEV_MAX_WR_MAX, "max_srq_wr") < 0 ||
	    roce_dev_limit(&out->max_srq_sge, in->max_srq_sge, d->max_srq_sge,
			   RTE_ROCE_DEV_MAX_SGE_MAX, "max_srq_sge") < 0)
		return -EINVAL;
	/* The progress model: the lcores are checked by roce_workers_start(). */
	if (in->nb_workers > RTE_ROCE_DEV_WORKERS_MAX) {
		ROCE_LOG(ERR, "nb_workers %u above %u", in->nb_workers, RTE_ROCE_DEV_WORKERS_MAX);
		return -EINVAL;
	}
	out->nb_workers = in->nb_workers;
	out->nb_lanes = in->nb_lanes;
	if (in->nb_lanes > RTE_ROCE_DEV_WORKERS_MAX) {
		ROCE_LOG(ERR, "nb_lanes %u above %u", in->nb_lanes, RTE_ROCE_DEV_WORKERS_MAX);
		return -EINVAL;
	}
	memcpy(out->lcores, in->lcores, sizeof(out->lcores));
	out->quirk_rxe_flush_icrc = in->quirk_rxe_flush_icrc;
	if (out->quirk_rxe_flush_icrc)
		ROCE_LOG(NOTICE, "quirk_rxe_flush_icrc: FLUSH requests carry Linux rxe's ICRC, "
			 "which conformant peers drop (doc/interop.md)");
	return 0;
}

/* The QP table and its free FIFO: slots below ROCE_QPN_FIRST are never handed out. */
static int
roce_dev_qp_table_init(struct roce_dev *dev)
{
	uint32_t slots = rte_align32pow2(dev->conf.max_qp + ROCE_QPN_FIRST);
	uint32_t i;

	dev->qp_tbl = rte_zmalloc_socket("roce_qp_tbl", slots * sizeof(*dev->qp_tbl), 0,
					 dev->socket);
	dev->qp_free = rte_malloc_socket("roce_qp_free", slots * sizeof(*dev->qp_free), 0,
					 dev->socket);
	dev->qp_gen = rte_zmalloc_socket("roce_qp_gen", slots * sizeof(*dev->qp_gen), 0,
					 dev->socket);
	if (dev->qp_tbl == NULL || dev->qp_free == NULL || dev->qp_gen == NULL)
		return -ENOMEM;
	dev->qp_mask = slots - 1;
	dev->qp_shift = rte_log2_u32(slots);
	dev->qp_free_head = 0;
	dev->qp_free_count = slots - ROCE_QPN_FIRST;
	for (i = 0; i < dev->qp_free_count; i++)
		dev->qp_free[i] = ROCE_QPN_FIRST + i;
	return 0;
}

static void
roce_dev_ibv_init(struct roce_dev *dev, const struct rte_roce_port_info *info)
{
	dev->ibv_dev.node_type = IBV_NODE_CA;
	dev->ibv_dev.transport_type = IBV_TRANSPORT_IB;
	snprintf(dev->ibv_dev.name, sizeof(dev->ibv_dev.name), "roce%u", info->port_id);
	snprintf(dev->ibv_dev.dev_name, sizeof(dev->ibv_dev.dev_name), "roce%u", info->port_id);
	dev->ibv.device = &dev->ibv_dev;
	dev->ibv.cmd_fd = -1;
}

void
roce_dev_destroy(struct roce_dev *dev)
{
	roce_async_fini(dev);
	roce_mw_table_fini(dev);
	roce_mr_table_fini(dev);
	rte_free(dev->qp_gen);
	rte_free(dev->qp_free);
	rte_free(dev->qp_tbl);
	rte_free(dev);
}

struct roce_dev *
roce_dev_create(struct rte_roce_port *port, const struct rte_roce_dev_conf *conf)
{
	struct rte_roce_port_info info;
	struct roce_dev *dev;
	int socket, rc;

	if (port == NULL) {
		ROCE_LOG(ERR, "no port");
		rte_errno = EINVAL;
		return NULL;
	}
	rc = rte_roce_port_info_get(port, &info);
	if (rc < 0) {
		rte_errno = -rc;
		return NULL;
	}
	socket = rte_eth_dev_socket_id(info.port_id);
	dev = rte_zmalloc_socket("roce_dev", sizeof(*dev), RTE_CACHE_LINE_SIZE, socket);
	if (dev == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	dev->port = port;
	dev->socket = socket;
	dev->port_id = info.port_id;
	dev->ibv.async_fd = -1;
	/* The engine keeps max_qp_rd_atom responder resources per QP. */
	RTE_BUILD_BUG_ON(RTE_ROCE_DEV_MAX_RD_ATOM_MAX > ROCE_RD_ATOM_MAX);
	rc = roce_dev_conf_apply(&dev->conf, conf);
	if (rc == 0)
		rc = roce_dev_qp_table_init(dev);
	if (rc == 0)
		rc = roce_mr_table_init(dev);
	if (rc == 0)
		rc = roce_mw_table_init(dev);
	if (rc == 0)
		rc = roce_async_init(dev);
	if (rc < 0) {
		roce_dev_destroy(dev);
		rte_errno = -rc;
		return NULL;
	}
	roce_dev_ibv_init(dev, &info);
	rte_spinlock_recursive_init(&dev->ctrl_lock);
	return dev;
}

int
roce_dev_check_idle(const struct roce_dev *dev)
{
	if (dev->nb_pds != 0 || dev->nb_cqs != 0 || dev->nb_qps != 0 || dev->nb_mrs != 0 ||
	    dev->nb_mws != 0 || dev->nb_srqs != 0) {
		ROCE_LOG(ERR, "device %s still has %u PDs, %u CQs, %u QPs, %u MRs, %u MWs, %u SRQs",
			 dev->ibv_dev.name, dev->nb_pds, dev->nb_cqs, dev->nb_qps, dev->nb_mrs,
			 dev->nb_mws, dev->nb_srqs);
		return -EBUSY;
	}
	if (dev->async.nb_channels != 0) {
		ROCE_LOG(ERR, "device %s still has %u completion channels", dev->ibv_dev.name,
			 dev->async.nb_channels);
		return -EBUSY;
	}
	return 0;
}

static pthread_mutex_t roce_dev_list_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct roce_dev *roce_dev_list[ROCE_DEV_LIST_MAX];

void
roce_dev_list_lock(void)
{
	pthread_mutex_lock(&roce_dev_list_mutex);
}

void
roce_dev_list_unlock(void)
{
	pthread_mutex_unlock(&roce_dev_list_mutex);
}

int
roce_dev_list_add(struct roce_dev *dev)
{
	unsigned int i;
	int rc = -ENOSPC;

	roce_dev_list_lock();
	for (i = 0; i < ROCE_DEV_LIST_MAX; i++) {
		if (roce_dev_list[i] == NULL) {
			roce_dev_list[i] = dev;
			rc = 0;
			break;
		}
	}
	roce_dev_list_unlock();
	if (rc < 0)
		ROCE_LOG(ERR, "more than %u devices open", ROCE_DEV_LIST_MAX);
	return rc;
}

void
roce_dev_list_del(struct roce_dev *dev)
{
	unsigned int i;

	roce_dev_list_lock();
	for (i = 0; i < ROCE_DEV_LIST_MAX; i++)
		if (roce_dev_list[i] == dev)
			roce_dev_list[i] = NULL;
	roce_dev_list_unlock();
}

struct roce_dev *
roce_dev_listed(uint32_t id)
{
	return id < ROCE_DEV_LIST_MAX ? roce_dev_list[id] : NULL;
}

struct roce_dev *
roce_dev_of_pd(struct ibv_pd *pd, const void *attr)
{
	if (pd == NULL || attr == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		rte_errno = EINVAL;
		return NULL;
	}
	return roce_dev_of(pd->context);
}

struct roce_qp *
roce_dev_qp_lookup(struct roce_dev *dev, uint32_t qpn)
{
	struct roce_qp *qp;

	if (qpn > ROCE_QPN_MAX)
		return NULL;
	qp = dev->qp_tbl[qpn & dev->qp_mask];
	return qp != NULL && qp->ibv.qp_num == qpn ? qp : NULL;
}

int
roce_dev_qpn_alloc(struct roce_dev *dev, struct roce_qp *qp, uint32_t *qpn)
{
	uint32_t slot, gen_mask;

	if (dev->nb_qps >= dev->conf.max_qp || dev->qp_free_count == 0)
		return -ENOSPC;
	slot = dev->qp_free[dev->qp_free_head];
	dev->qp_free_head = (dev->qp_free_head + 1) & dev->qp_mask;
	dev->qp_free_count--;
	/* Generation above the slot bits: a reused slot gets a new QPN, so late packets miss. */
	gen_mask = (ROCE_QPN_MAX >> dev->qp_shift);
	*qpn = ((uint32_t)(dev->qp_gen[slot] & gen_mask) << dev->qp_shift) | slot;
	dev->qp_tbl[slot] = qp;
	dev->nb_qps++;
	return 0;
}

int
roce_dev_qpn_reserve(struct roce_dev *dev, struct roce_qp *qp, uint32_t qpn)
{
	if (dev->qp_tbl[qpn] != NULL)
		return -EEXIST;
	if (dev->nb_qps >= dev->conf.max_qp)
		return -ENOSPC;
	dev->qp_tbl[qpn] = qp;
	dev->nb_qps++;
	return 0;
}

void
roce_dev_qpn_free(struct roce_dev *dev, uint32_t qpn)
{
	uint32_t slot = qpn & dev->qp_mask;
	uint32_t tail = (dev->qp_free_head + dev->qp_free_count) & dev->qp_mask;

	/* Readers that start from the device list (telemetry) see it or nothing. */
	roce_dev_list_lock();
	dev->qp_tbl[slot] = NULL;
	roce_dev_list_unlock();
	/* Reserved QPNs (QP1) keep their number and never enter the free FIFO. */
	if (qpn < ROCE_QPN_FIRST) {
		dev->nb_qps--;
		return;
	}
	dev->qp_gen[slot]++;
	dev->qp_free[tail] = slot;
	dev->qp_free_count++;
	dev->nb_qps--;
}

void
roce_dev_qp_schedule(struct roce_dev *dev, struct roce_qp *qp)
{
	RTE_SET_USED(dev);
	/*
	 * ACQ_REL exchange: pairs with the one in roce_dev_run_qps(), so the
	 * lane that clears the flag sees what was published before it was
	 * set. The ring has a slot per QP: the enqueue cannot fail.
	 */
	if (__atomic_exchange_n(&qp->scheduled, true, __ATOMIC_ACQ_REL))
		return;
	(void)rte_ring_mp_enqueue(qp->lane->sched, (void *)(uintptr_t)qp->ibv.qp_num);
}

void
roce_dev_cq_error(struct roce_lane *lane)
{
	lane->cq_error = true;
	ROCE_COUNT(lane->stats.cq_overflows);
}

bool
roce_dev_handoff(struct roce_lane *from, uint16_t to, struct rte_mbuf *m, uint32_t qpn)
{
	struct rte_ring *r = from->dev->lanes[to].inbox[from->id];

	/* The tag field rte_distributor uses for the same purpose: the PMD's RSS hash is spent. */
	m->hash.usr = qpn;
	ROCE_TSAN_RELEASE(r);
	if (rte_ring_sp_enqueue(r, m) != 0) {
		ROCE_COUNT(from->stats.handoff_drops);
		rte_pktmbuf_free(m);
		return false;
	}
	ROCE_COUNT(from->stats.handoffs_out);
	return true;
}

static int
roce_dev_check_port(struct ibv_context *ctx, uint8_t port_num, const void *out)
{
	if (ctx == NULL || out == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	if (port_num != ROCE_DEV_PORT_NUM) {
		ROCE_LOG(ERR, "port %u: a device has port 1 only", port_num);
		return -EINVAL;
	}
	return 0;
}

int
rte_roce_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
{
	struct rte_roce_port_info info;
	struct roce_dev *dev;
	union rte_roce_gid gid;
	int rc;

	if (ctx == NULL || attr == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	dev = roce_dev_of(ctx);
	rc = rte_roce_port_info_get(dev->port, &info);
	if (rc < 0)
		return rc;
	memset(attr, 0, sizeof(*attr));
	snprintf(attr->fw_ver, sizeof(attr->fw_ver), "librte_roce");
	/* Node GUID: the EUI-64 of the MAC, the interface id of the default GID (as rxe). */
	rte_roce_gid_from_mac(&gid, &info.mac);
	memcpy(&attr->node_guid, &gid.raw[8], sizeof(attr->node_guid));
	attr->sys_image_guid = attr->node_guid;
	attr->max_mr_size = UINT64_MAX;
	attr->page_size_cap = ROCE_DEV_PAGE_SIZE_CAP;
	attr->vendor_id = ROCE_DEV_VENDOR_ID;
	attr->vendor_part_id = ROCE_DEV_VENDOR_PART_ID;
	attr->max_qp = dev->conf.max_qp;
	attr->max_qp_wr = dev->conf.max_qp_wr;
	attr->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_SYS_IMAGE_GUID |
				 IBV_DEVICE_SRQ_RESIZE | IBV_DEVICE_MEM_WINDOW |
				 IBV_DEVICE_MEM_WINDOW_TYPE_2B;
	attr->max_sge = dev->conf.max_sge;
	attr->max_sge_rd = dev->conf.max_sge;
	attr->max_cq = dev->conf.max_cq;
	attr->max_cqe = dev->conf.max_cqe;
	attr->max_mr = dev->conf.max_mr;
	attr->max_mw = dev->max_mw;
	attr->max_pd = ROCE_DEV_MAX_PD;
	attr->max_qp_rd_atom = dev->conf.max_qp_rd_atom;
	attr->max_qp_init_rd_atom = dev->conf.max_qp_rd_atom;
	attr->max_srq = dev->conf.max_srq;
	attr->max_srq_wr = dev->conf.max_srq_wr;
	attr->max_srq_sge = dev->conf.max_srq_sge;
	attr->max_res_rd_atom = dev->conf.max_qp_rd_atom * dev->conf.max_qp;
	attr->atomic_cap = IBV_ATOMIC_HCA;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = ROCE_DEV_LOCAL_CA_ACK_DELAY;
	attr->phys_port_cnt = 1;
	return 0;
}

/* The verbs MTU enum of a path MTU in bytes (256..4096); 0 for none. */
static enum ibv_mtu
roce_mtu_enum(uint32_t bytes)
{
	if (bytes < (1u << (IBV_MTU_256 + ROCE_IB_MTU_SHIFT)))
		return 0;
	return rte_log2_u32(bytes) - ROCE_IB_MTU_SHIFT;
}

uint32_t
roce_mtu_bytes(enum ibv_mtu mtu)
{
	return 1u << (mtu + ROCE_IB_MTU_SHIFT);
}

/* IB link width and speed codes (IBA 14.2.5.6 PortInfo; RC:verbs.h ibv_port_attr). */
#define ROCE_IB_WIDTH_1X	1
#define ROCE_IB_WIDTH_2X	16
#define ROCE_IB_WIDTH_4X	2
#define ROCE_IB_SPEED_SDR	1
#define ROCE_IB_SPEED_DDR	2
#define ROCE_IB_SPEED_FDR10	8
#define ROCE_IB_SPEED_EDR	32
#define ROCE_IB_SPEED_HDR	64
#define ROCE_IB_SPEED_NDR	128

/* Ethernet speed -> IB width and speed, as Linux reports them (K:core/verbs.c ib_get_eth_speed). */
static const struct {
	uint32_t max_mbps;
	uint8_t width;
	uint8_t speed;
} roce_eth_speeds[] = {
	{ RTE_ETH_SPEED_NUM_1G, ROCE_IB_WIDTH_1X, ROCE_IB_SPEED_SDR },
	{ RTE_ETH_SPEED_NUM_10G, ROCE_IB_WIDTH_1X, ROCE_IB_SPEED_FDR10 },
	{ RTE_ETH_SPEED_NUM_20G, ROCE_IB_WIDTH_4X, ROCE_IB_SPEED_DDR },
	{ RTE_ETH_SPEED_NUM_25G, ROCE_IB_WIDTH_1X, ROCE_IB_SPEED_EDR },
	{ RTE_ETH_SPEED_NUM_40G, ROCE_IB_WIDTH_4X, ROCE_IB_SPEED_FDR10 },
	{ RTE_ETH_SPEED_NUM_50G, ROCE_IB_WIDTH_2X, ROCE_IB_SPEED_EDR },
	{ RTE_ETH_SPEED_NUM_100G, ROCE_IB_WIDTH_4X, ROCE_IB_SPEED_EDR },
	{ RTE_ETH_SPEED_NUM_200G, ROCE_IB_WIDTH_4X, ROCE_IB_SPEED_HDR },
	{ UINT32_MAX, ROCE_IB_WIDTH_4X, ROCE_IB_SPEED_NDR },
};

static void
roce_port_width_speed(uint32_t mbps, struct ibv_port_attr *attr)
{
	unsigned int i = 0;

	while (mbps > roce_eth_speeds[i].max_mbps)
		i++;
	attr->active_width = roce_eth_speeds[i].width;
	attr->active_speed = roce_eth_speeds[i].speed;
}

int
rte_roce_query_port(struct ibv_context *ctx, uint8_t port_num, struct ibv_port_attr *attr)
{
	struct rte_roce_port_info info;
	int rc;

	rc = roce_dev_check_port(ctx, port_num, attr);
	if (rc < 0)
		return rc;
	rc = rte_roce_port_info_get(roce_dev_of(ctx)->port, &info);
	if (rc < 0)
		return rc;
	memset(attr, 0, sizeof(*attr));
	attr->state = info.link_up ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
	attr->phys_state = info.link_up ? ROCE_PORT_PHYS_STATE_LINK_UP :
		ROCE_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = roce_mtu_enum(info.ib_mtu);
	attr->active_mtu = attr->max_mtu;
	attr->gid_tbl_len = RTE_ROCE_PORT_GID_TBL_LEN;
	attr->max_msg_sz = ROCE_PORT_MAX_MSG_SZ;
	attr->pkey_tbl_len = 1;
	attr->link_layer = IBV_LINK_LAYER_ETHERNET;
	roce_port_width_speed(info.link_speed, attr);
	/* RoCE: every address vector needs a GRH (K:core/verbs.c rdma_ah_find_type). */
	attr->flags = IBV_QPF_GRH_REQUIRED;
	return 0;
}

int
rte_roce_query_gid(struct ibv_context *ctx, uint8_t port_num, int index, union ibv_gid *gid)
{
	union rte_roce_gid g;
	int rc;

	rc = roce_dev_check_port(ctx, port_num, gid);
	if (rc < 0)
		return rc;
	if (index < 0 || index >= RTE_ROCE_PORT_GID_TBL_LEN) {
		ROCE_LOG(ERR, "GID index %d outside 0..%d", index, RTE_ROCE_PORT_GID_TBL_LEN - 1);
		return -EINVAL;
	}
	rc = rte_roce_port_gid_query(roce_dev_of(ctx)->port, index, &g);
	if (rc < 0)
		return rc;
	RTE_BUILD_BUG_ON(sizeof(*gid) != sizeof(g));
	memcpy(gid->raw, g.raw, sizeof(gid->raw));
	return 0;
}
