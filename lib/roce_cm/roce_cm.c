/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * A CM instance: QP1 of its device with its own PD, CQs and MAD buffers,
 * the ids bound to it, progress (rte_roce_cm_poll()) and counters, also in
 * DPDK telemetry:
 *
 *   /roce/cm        the open instances: their positions in the process's list
 *                   (the order of rte_roce_cm_open() among those still open)
 *   /roce/cm,<i>    one instance: its device's name, its ids, every counter
 *                   under its xstats name
 *
 * The telemetry handler runs on DPDK's telemetry thread. It holds
 * cm_list_lock, which rte_roce_cm_close() takes before freeing an
 * instance, then the instance's lock: the order every path takes them in.
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_telemetry.h>

#include "roce_cm.h"

RTE_LOG_REGISTER_DEFAULT(roce_cm_logtype, NOTICE);

#define CM_DEFAULT_RESPONSE_TIMEOUT	20	/* 4.3 s, Linux's CMA_CM_RESPONSE_TIMEOUT */
#define CM_DEFAULT_MAX_RETRIES		15	/* Linux's CMA_MAX_CM_RETRIES */
#define CM_DEFAULT_MAX_IDS		1024
#define CM_DEFAULT_MAD_SLOTS		64
#define CM_POLL_BURST			16
#define CM_XSTAT_PREFIX			"cm_"

/* Every instance of the process, for ids that look for the device of an address. */
static TAILQ_HEAD(, rte_roce_cm) cm_list = TAILQ_HEAD_INITIALIZER(cm_list);
static pthread_mutex_t cm_list_lock = PTHREAD_MUTEX_INITIALIZER;

/* The counters by name: one table, no parallel array. */
#define CM_STAT(field) { #field, offsetof(struct rte_roce_cm_stats, field) }
static const struct {
	const char *name;
	size_t off;
} cm_stat_names[] = {
	CM_STAT(mads_sent), CM_STAT(mads_rcvd), CM_STAT(retransmits), CM_STAT(timeouts),
	CM_STAT(duplicates), CM_STAT(rej_sent), CM_STAT(rej_rcvd), CM_STAT(mra_sent),
	CM_STAT(mra_rcvd), CM_STAT(established), CM_STAT(backlog_full), CM_STAT(drop_length),
	CM_STAT(drop_base_version), CM_STAT(drop_class), CM_STAT(drop_class_version),
	CM_STAT(drop_method), CM_STAT(drop_attr), CM_STAT(drop_comm_id), CM_STAT(drop_state),
	CM_STAT(drop_field), CM_STAT(send_errors), CM_STAT(addr_errors), CM_STAT(status_sent),
	CM_STAT(mads_queued), CM_STAT(apr_sent),
};
static_assert(RTE_DIM(cm_stat_names) * sizeof(uint64_t) == sizeof(struct rte_roce_cm_stats),
	      "every counter has a name");

uint64_t
roce_cm_timeout_cycles(uint8_t timeout)
{
	/* 4.096 us * 2^timeout (IBTA Vol. 1 §12.6), in timer cycles. */
	double ns = (double)RTE_ROCE_CM_TIMEOUT_BASE_NS * (double)(UINT64_C(1) << timeout);

	return (uint64_t)(ns * (double)rte_get_timer_hz() / 1e9);
}

static int
cm_conf_fill(struct rte_roce_cm_conf *c, const struct rte_roce_cm_conf *conf)
{
	memset(c, 0, sizeof(*c));
	if (conf != NULL)
		*c = *conf;
	if (c->response_timeout > RTE_ROCE_CM_TIMEOUT_MAX ||
	    c->max_cm_retries > RTE_ROCE_CM_MAX_RETRIES_MAX) {
		ROCE_CM_LOG(ERR, "response_timeout %u (max %u) or max_cm_retries %u (max %u)",
			    c->response_timeout, RTE_ROCE_CM_TIMEOUT_MAX, c->max_cm_retries,
			    RTE_ROCE_CM_MAX_RETRIES_MAX);
		return -EINVAL;
	}
	if (c->response_timeout == 0)
		c->response_timeout = CM_DEFAULT_RESPONSE_TIMEOUT;
	if (c->max_cm_retries == 0)
		c->max_cm_retries = CM_DEFAULT_MAX_RETRIES;
	if (c->max_ids == 0)
		c->max_ids = CM_DEFAULT_MAX_IDS;
	if (c->mad_slots == 0)
		c->mad_slots = CM_DEFAULT_MAD_SLOTS;
	if (c->mad_backlog == 0)
		c->mad_backlog = c->max_ids;
	return 0;
}

static int
cm_qp1_create(struct rte_roce_cm *cm)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_UD,
		.cap = {
			.max_send_wr = cm->conf.mad_slots,
			.max_recv_wr = cm->conf.mad_slots,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_all = 1,
	};
	uint32_t i;

	cm->pd = rte_roce_alloc_pd(cm->ctx);
	if (cm->pd == NULL)
		return -rte_errno;
	cm->send_cq = rte_roce_create_cq(cm->ctx, cm->conf.mad_slots, NULL, NULL, 0);
	cm->recv_cq = rte_roce_create_cq(cm->ctx, cm->conf.mad_slots, NULL, NULL, 0);
	if (cm->send_cq == NULL || cm->recv_cq == NULL)
		return -rte_errno;
	attr.send_cq = cm->send_cq;
	attr.recv_cq = cm->recv_cq;
	cm->qp1 = rte_roce_create_qp1(cm->pd, &attr);
	if (cm->qp1 == NULL)
		return -rte_errno;
	cm->bufs = calloc(2 * (size_t)cm->conf.mad_slots, ROCE_CM_RECV_LEN);
	cm->free_slots = calloc(cm->conf.mad_slots, sizeof(*cm->free_slots));
	cm->slot_ah = calloc(cm->conf.mad_slots, sizeof(*cm->slot_ah));
	cm->backlog = calloc(cm->conf.mad_backlog, sizeof(*cm->backlog));
	if (cm->bufs == NULL || cm->free_slots == NULL || cm->slot_ah == NULL ||
	    cm->backlog == NULL)
		return -ENOMEM;
	cm->mr = rte_roce_reg_mr(cm->pd, cm->bufs, 2 * (size_t)cm->conf.mad_slots * ROCE_CM_RECV_LEN,
				 IBV_ACCESS_LOCAL_WRITE);
	if (cm->mr == NULL)
		return -rte_errno;
	for (i = 0; i < cm->conf.mad_slots; i++) {
		int rc = roce_cm_mad_recv_post(cm, i);

		if (rc < 0)
			return rc;
		cm->free_slots[cm->nb_free++] = i;
	}
	return 0;
}

/* Undo cm_qp1_create(), whatever it got to. */
static void
cm_qp1_destroy(struct rte_roce_cm *cm)
{
	if (cm->qp1 != NULL)
		rte_roce_destroy_qp(cm->qp1);
	roce_cm_ah_flush(cm);
	if (cm->mr != NULL)
		rte_roce_dereg_mr(cm->mr);
	if (cm->send_cq != NULL)
		rte_roce_destroy_cq(cm->send_cq);
	if (cm->recv_cq != NULL)
		rte_roce_destroy_cq(cm->recv_cq);
	if (cm->pd != NULL)
		rte_roce_dealloc_pd(cm->pd);
	free(cm->bufs);
	free(cm->free_slots);
	free(cm->slot_ah);
	free(cm->backlog);
}

static int
cm_device_query(struct rte_roce_cm *cm)
{
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	int rc;

	rc = rte_roce_query_device(cm->ctx, &dattr);
	if (rc == 0)
		rc = rte_roce_query_port(cm->ctx, 1, &pattr);
	if (rc < 0)
		return rc;
	cm->ca_guid = dattr.node_guid;
	cm->max_rd_atom = dattr.max_qp_rd_atom;
	cm->active_mtu = pattr.active_mtu;
	return 0;
}

struct rte_roce_cm *
rte_roce_cm_open(struct ibv_context *ctx, const struct rte_roce_cm_conf *conf)
{
	struct rte_roce_cm *cm;
	int rc;

	if (ctx == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	cm = calloc(1, sizeof(*cm));
	if (cm == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	cm->ctx = ctx;
	TAILQ_INIT(&cm->ids);
	pthread_mutex_init(&cm->lock, NULL);
	rc = cm_conf_fill(&cm->conf, conf);
	if (rc == 0)
		rc = cm_device_query(cm);
	if (rc == 0)
		rc = cm_qp1_create(cm);
	if (rc == 0 && getrandom(&cm->tid_high, sizeof(cm->tid_high), 0) != sizeof(cm->tid_high))
		rc = -errno;
	if (rc < 0) {
		ROCE_CM_LOG(ERR, "cannot start the CM: %s", strerror(-rc));
		cm_qp1_destroy(cm);
		pthread_mutex_destroy(&cm->lock);
		free(cm);
		rte_errno = -rc;
		return NULL;
	}
	cm->tid_high <<= 32;
	pthread_mutex_lock(&cm_list_lock);
	TAILQ_INSERT_TAIL(&cm_list, cm, next);
	pthread_mutex_unlock(&cm_list_lock);
	return cm;
}

int
rte_roce_cm_close(struct rte_roce_cm *cm)
{

	if (cm == NULL)
		return -EINVAL;
	pthread_mutex_lock(&cm->lock);
	if (cm->nb_ids != 0) {
		pthread_mutex_unlock(&cm->lock);
		ROCE_CM_LOG(ERR, "%u ids still bound", cm->nb_ids);
		return -EBUSY;
	}
	pthread_mutex_unlock(&cm->lock);
	pthread_mutex_lock(&cm_list_lock);
	TAILQ_REMOVE(&cm_list, cm, next);
	pthread_mutex_unlock(&cm_list_lock);
	cm_qp1_destroy(cm);
	pthread_mutex_destroy(&cm->lock);
	free(cm);
	return 0;
}

int
roce_cm_gid_index(struct rte_roce_cm *cm, const union ibv_gid *gid)
{
	struct ibv_port_attr pattr;
	union ibv_gid g;
	int i;

	if (rte_roce_query_port(cm->ctx, 1, &pattr) < 0)
		return -1;
	for (i = 0; i < pattr.gid_tbl_len; i++)
		if (rte_roce_query_gid(cm->ctx, 1, i, &g) == 0 && memcmp(&g, gid, sizeof(g)) == 0)
			return i;
	return -1;
}

struct rte_roce_cm *
roce_cm_first(void)
{
	struct rte_roce_cm *cm;

	pthread_mutex_lock(&cm_list_lock);
	cm = TAILQ_FIRST(&cm_list);
	pthread_mutex_unlock(&cm_list_lock);
	return cm;
}

struct rte_roce_cm *
roce_cm_find_by_gid(const union ibv_gid *gid, int *sgid_index)
{
	struct rte_roce_cm *cm;

	pthread_mutex_lock(&cm_list_lock);
	TAILQ_FOREACH(cm, &cm_list, next) {
		*sgid_index = roce_cm_gid_index(cm, gid);
		if (*sgid_index >= 0)
			break;
	}
	pthread_mutex_unlock(&cm_list_lock);
	return cm;
}

void
roce_cm_id_attach(struct rte_roce_cm *cm, struct roce_cm_id *id)
{
	uint32_t comm_id;

	/* Unique and unpredictable (a stale or forged message must not hit a new id by chance). */
	do {
		if (getrandom(&comm_id, sizeof(comm_id), 0) != sizeof(comm_id))
			comm_id = (uint32_t)rte_rdtsc() ^ (uint32_t)(uintptr_t)id;
	} while (comm_id == 0 || roce_cm_id_by_comm_id(cm, comm_id) != NULL);
	id->local_comm_id = comm_id;
	id->cm = cm;
	id->pub.verbs = cm->ctx;
	id->pub.port_num = 1;
	TAILQ_INSERT_TAIL(&cm->ids, id, next);
	cm->nb_ids++;
}

void
roce_cm_id_detach(struct roce_cm_id *id)
{
	struct rte_roce_cm *cm = id->cm;

	TAILQ_REMOVE(&cm->ids, id, next);
	cm->nb_ids--;
	id->cm = NULL;
}

/* A linear search: ids are few (max_ids); a hash is the next step when they are not. */
struct roce_cm_id *
roce_cm_id_by_comm_id(struct rte_roce_cm *cm, uint32_t comm_id)
{
	struct roce_cm_id *id;

	TAILQ_FOREACH(id, &cm->ids, next)
		if (id->local_comm_id == comm_id)
			return id;
	return NULL;
}

static int
cm_poll_recv(struct rte_roce_cm *cm)
{
	struct ibv_wc wc[CM_POLL_BURST];
	int n, i;

	n = rte_roce_poll_cq(cm->recv_cq, CM_POLL_BURST, wc);
	for (i = 0; i < n; i++) {
		if (wc[i].status == IBV_WC_SUCCESS)
			roce_cm_mad_input(cm, &wc[i]);
		if (roce_cm_mad_recv_post(cm, (uint32_t)wc[i].wr_id) < 0)
			ROCE_CM_LOG(ERR, "receive buffer %u lost", (unsigned int)wc[i].wr_id);
	}
	return RTE_MAX(n, 0);
}

static int
cm_poll_send(struct rte_roce_cm *cm)
{
	struct ibv_wc wc[CM_POLL_BURST];
	int n, i;

	n = rte_roce_poll_cq(cm->send_cq, CM_POLL_BURST, wc);
	for (i = 0; i < n; i++)
		roce_cm_mad_send_done(cm, &wc[i]);
	return RTE_MAX(n, 0);
}

int
rte_roce_cm_poll(struct rte_roce_cm *cm)
{
	uint64_t now;
	int handled;

	if (cm == NULL)
		return -EINVAL;
	pthread_mutex_lock(&cm->lock);
	handled = cm_poll_send(cm);
	handled += cm_poll_recv(cm);
	now = rte_get_timer_cycles();
	roce_cm_addr_poll(cm, now, &handled);
	roce_cm_run_timers(cm, now, &handled);
	pthread_mutex_unlock(&cm->lock);
	return handled;
}

int
rte_roce_cm_stats_get(struct rte_roce_cm *cm, struct rte_roce_cm_stats *stats)
{

	if (cm == NULL || stats == NULL)
		return -EINVAL;
	pthread_mutex_lock(&cm->lock);
	*stats = cm->stats;
	pthread_mutex_unlock(&cm->lock);
	return 0;
}

int
rte_roce_cm_xstats_names_get(struct rte_roce_cm *cm, char (*names)[64], unsigned int n)
{
	unsigned int i;

	if (cm == NULL)
		return -EINVAL;
	if (names == NULL || n < RTE_DIM(cm_stat_names))
		return RTE_DIM(cm_stat_names);
	for (i = 0; i < RTE_DIM(cm_stat_names); i++)
		snprintf(names[i], sizeof(names[i]), CM_XSTAT_PREFIX "%s", cm_stat_names[i].name);
	return RTE_DIM(cm_stat_names);
}

int
rte_roce_cm_xstats_get(struct rte_roce_cm *cm, uint64_t *values, unsigned int n)
{
	struct rte_roce_cm_stats s;
	unsigned int i;
	int rc;

	if (values == NULL || n < RTE_DIM(cm_stat_names))
		return cm == NULL ? -EINVAL : (int)RTE_DIM(cm_stat_names);
	rc = rte_roce_cm_stats_get(cm, &s);
	if (rc < 0)
		return rc;
	for (i = 0; i < RTE_DIM(cm_stat_names); i++)
		memcpy(&values[i], (const uint8_t *)&s + cm_stat_names[i].off, sizeof(values[i]));
	return RTE_DIM(cm_stat_names);
}

/* An instance's device, ids and counters, for /roce/cm,<i>. */
static void
cm_tel_instance(struct rte_roce_cm *cm, struct rte_tel_data *d)
{
	char name[RTE_TEL_MAX_STRING_LEN];
	struct rte_roce_cm_stats s;
	uint32_t nb_ids;
	unsigned int i;
	uint64_t v;

	pthread_mutex_lock(&cm->lock);
	s = cm->stats;
	nb_ids = cm->nb_ids;
	pthread_mutex_unlock(&cm->lock);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "device", cm->ctx->device->name);
	rte_tel_data_add_dict_u64(d, "nb_ids", nb_ids);
	for (i = 0; i < RTE_DIM(cm_stat_names); i++) {
		snprintf(name, sizeof(name), CM_XSTAT_PREFIX "%s", cm_stat_names[i].name);
		memcpy(&v, (const uint8_t *)&s + cm_stat_names[i].off, sizeof(v));
		rte_tel_data_add_dict_u64(d, name, v);
	}
}

/* /roce/cm: the instances; /roce/cm,<i>: one of them. A bad <i>: the null reply. */
static int
cm_tel(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct rte_roce_cm *cm;
	unsigned long want, i = 0;
	char *end;
	int rc = 0;

	pthread_mutex_lock(&cm_list_lock);
	if (params == NULL || *params == '\0') {
		rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
		TAILQ_FOREACH(cm, &cm_list, next)
			rte_tel_data_add_array_int(d, (int)i++);
	} else {
		want = strtoul(params, &end, 0);
		TAILQ_FOREACH(cm, &cm_list, next)
			if (i++ == want)
				break;
		if (end == params || *end != '\0' || cm == NULL)
			rc = -EINVAL;
		else
			cm_tel_instance(cm, d);
	}
	pthread_mutex_unlock(&cm_list_lock);
	return rc;
}

RTE_INIT(roce_cm_telemetry_init)
{
	rte_telemetry_register_cmd("/roce/cm", cm_tel,
				   "Returns the CM instances; with <i>, one's device, ids and counters.");
}
