/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * DPDK telemetry commands of librte_roce, read with the standard client
 * (dpdk-telemetry.py) or any program speaking to the process's
 * dpdk_telemetry.v2 socket:
 *
 *   /roce/list              ids of the open devices
 *   /roce/info,<dev>        name, ethdev port, object counts
 *   /roce/stats,<dev>       every extended statistic of the device
 *   /roce/port,<dev>        the port's statistics only
 *   /roce/qps,<dev>         QPNs of the device's QPs
 *   /roce/qp,<dev>,<qpn>    one QP's counters and state
 *   /roce/workers,<dev>     worker mode: each worker's counters and their sum
 *
 * Handlers run on the telemetry thread; they hold the lock of the device list
 * (roce_dev.h) so that no device or QP they read is freed meanwhile.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "roce_log.h"
#include "roce_qp.h"
#include "roce_stats.h"

/* Parse "<dev>" or "<dev>,<n>"; 0 or -EINVAL. */
static int
tel_params(const char *params, uint32_t *dev_id, uint32_t *n, bool want_n)
{
	unsigned long v;
	char *end;

	if (params == NULL || *params == '\0')
		return -EINVAL;
	v = strtoul(params, &end, 0);
	if (end == params || v >= ROCE_DEV_LIST_MAX)
		return -EINVAL;
	*dev_id = v;
	if (!want_n)
		return *end == '\0' ? 0 : -EINVAL;
	if (*end != ',')
		return -EINVAL;
	params = end + 1;
	v = strtoul(params, &end, 0);
	if (end == params || *end != '\0' || v > UINT32_MAX)
		return -EINVAL;
	*n = v;
	return 0;
}

static int
tel_list(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	uint32_t id;

	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	roce_dev_list_lock();
	for (id = 0; id < ROCE_DEV_LIST_MAX; id++)
		if (roce_dev_listed(id) != NULL)
			rte_tel_data_add_array_int(d, id);
	roce_dev_list_unlock();
	return 0;
}

/* Lock the device list and find the device params names; NULL (unlocked) if none. */
static struct roce_dev *
tel_dev_get(const char *params, uint32_t *qpn, bool want_qpn)
{
	struct roce_dev *dev;
	uint32_t id;

	if (tel_params(params, &id, qpn, want_qpn) < 0)
		return NULL;
	roce_dev_list_lock();
	dev = roce_dev_listed(id);
	if (dev == NULL)
		roce_dev_list_unlock();
	return dev;
}

static int
tel_info(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct roce_dev *dev = tel_dev_get(params, NULL, false);

	if (dev == NULL)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", dev->ibv_dev.name);
	rte_tel_data_add_dict_int(d, "port_id", dev->port_id);
	rte_tel_data_add_dict_u64(d, "nb_pds", dev->nb_pds);
	rte_tel_data_add_dict_u64(d, "nb_cqs", dev->nb_cqs);
	rte_tel_data_add_dict_u64(d, "nb_qps", dev->nb_qps);
	rte_tel_data_add_dict_u64(d, "nb_mrs", dev->nb_mrs);
	rte_tel_data_add_dict_u64(d, "nb_mws", dev->nb_mws);
	rte_tel_data_add_dict_u64(d, "nb_srqs", dev->nb_srqs);
	roce_dev_list_unlock();
	return 0;
}

/* The device's extended statistics, all of them or only its port's. */
static int
tel_xstats(const char *params, struct rte_tel_data *d, bool port_only)
{
	char buf[RTE_ROCE_XSTATS_NAME_SIZE];
	struct rte_roce_port_stats port;
	unsigned int i, n = roce_xstats_count();
	struct roce_dev *dev;

	RTE_BUILD_BUG_ON(RTE_ROCE_XSTATS_NAME_SIZE > RTE_TEL_MAX_STRING_LEN);
	dev = tel_dev_get(params, NULL, false);
	if (dev == NULL)
		return -EINVAL;
	roce_port_stats_read(dev, &port);
	rte_tel_data_start_dict(d);
	for (i = 0; i < n && i < RTE_TEL_MAX_DICT_ENTRIES; i++)
		if (!port_only || roce_xstat_src(i) == XS_PORT)
			rte_tel_data_add_dict_u64(d, roce_xstat_name(i, buf, sizeof(buf)),
						  roce_xstat_value(dev, &port, i));
	roce_dev_list_unlock();
	return 0;
}

static int
tel_stats(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	return tel_xstats(params, d, false);
}

static int
tel_port(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	return tel_xstats(params, d, true);
}

static int
tel_qps(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct roce_dev *dev = tel_dev_get(params, NULL, false);
	unsigned int listed = 0;
	struct roce_qp *qp;
	uint32_t slot;

	if (dev == NULL)
		return -EINVAL;
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	/* The first RTE_TEL_MAX_ARRAY_ENTRIES: the client's array limit. */
	for (slot = 0; slot <= dev->qp_mask && listed < RTE_TEL_MAX_ARRAY_ENTRIES; slot++) {
		qp = __atomic_load_n(&dev->qp_tbl[slot], __ATOMIC_ACQUIRE);
		if (qp != NULL) {
			rte_tel_data_add_array_int(d, qp->ibv.qp_num);
			listed++;
		}
	}
	roce_dev_list_unlock();
	return 0;
}

static int
tel_qp(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	char buf[RTE_ROCE_XSTATS_NAME_SIZE];
	unsigned int i, n = roce_xstats_count();
	struct roce_dev *dev;
	struct roce_qp *qp;
	uint32_t qpn;

	dev = tel_dev_get(params, &qpn, true);
	if (dev == NULL)
		return -EINVAL;
	qp = roce_dev_qp_lookup(dev, qpn);
	if (qp == NULL) {
		roce_dev_list_unlock();
		return -ENOENT;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "qpn", qpn);
	rte_tel_data_add_dict_int(d, "type", qp->ibv.qp_type);
	rte_tel_data_add_dict_int(d, "state", roce_qp_state(qp));
	for (i = 0; i < n; i++)
		if (roce_xstat_src(i) == XS_QP)
			rte_tel_data_add_dict_u64(d, roce_xstat_name(i, buf, sizeof(buf)),
						  roce_xstat_qp_value(&qp->stats, i));
	roce_dev_list_unlock();
	return 0;
}

/* One worker's counters (or their sum) as a dictionary. */
static struct rte_tel_data *
tel_worker_dict(const struct rte_roce_worker_stats *w)
{
	struct rte_tel_data *d = rte_tel_data_alloc();

	if (d == NULL)
		return NULL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "loops", w->loops);
	rte_tel_data_add_dict_u64(d, "busy_loops", w->busy_loops);
	rte_tel_data_add_dict_u64(d, "work", w->work);
	rte_tel_data_add_dict_u64(d, "ctrl_pauses", w->ctrl_pauses);
	rte_tel_data_add_dict_u64(d, "qps", w->qps);
	rte_tel_data_add_dict_u64(d, "rx_frames", w->rx_frames);
	rte_tel_data_add_dict_u64(d, "handoffs_out", w->handoffs_out);
	rte_tel_data_add_dict_u64(d, "handoffs_in", w->handoffs_in);
	rte_tel_data_add_dict_u64(d, "handoff_drops", w->handoff_drops);
	return d;
}

static int
tel_workers(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct roce_dev *dev = tel_dev_get(params, NULL, false);
	struct rte_roce_worker_stats w;
	struct rte_tel_data *sub;
	char name[RTE_TEL_MAX_STRING_LEN];
	int i, n;

	if (dev == NULL)
		return -EINVAL;
	n = rte_roce_dev_nb_workers(&dev->ibv);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "nb_workers", n);
	/* -1: their sum, then each worker. */
	for (i = -1; i < n; i++) {
		if (rte_roce_worker_stats_get(&dev->ibv, i, &w) != 0)
			continue;
		sub = tel_worker_dict(&w);
		if (i < 0)
			snprintf(name, sizeof(name), "total");
		else
			snprintf(name, sizeof(name), "worker%d", i);
		if (sub != NULL && rte_tel_data_add_dict_container(d, name, sub, 0) != 0)
			rte_tel_data_free(sub);
	}
	roce_dev_list_unlock();
	return 0;
}

RTE_INIT(roce_telemetry_init)
{
	rte_telemetry_register_cmd("/roce/list", tel_list, "Returns the ids of the RoCE devices.");
	rte_telemetry_register_cmd("/roce/info", tel_info,
				   "Returns a RoCE device's name, port and object counts. Parameters: int dev_id");
	rte_telemetry_register_cmd("/roce/stats", tel_stats,
				   "Returns a RoCE device's counters (rxe/mlx5 names). Parameters: int dev_id");
	rte_telemetry_register_cmd("/roce/port", tel_port,
				   "Returns the counters of a RoCE device's port. Parameters: int dev_id");
	rte_telemetry_register_cmd("/roce/qps", tel_qps,
				   "Returns the QPNs of a RoCE device. Parameters: int dev_id");
	rte_telemetry_register_cmd("/roce/qp", tel_qp,
				   "Returns a QP's counters and state. Parameters: int dev_id,int qpn");
	rte_telemetry_register_cmd("/roce/workers", tel_workers,
				   "Returns a RoCE device's worker counters. Parameters: int dev_id");
}
