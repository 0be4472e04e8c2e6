/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The target: its PD, the send and receive CQs every queue shares, the
 * pool of data buffers (one MR), the subsystems, and the poll loop
 * (doc/nvmf.md, "Threading model").
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include <rte_roce.h>

#include "nvmf_priv.h"

RTE_LOG_REGISTER(nvmf_logtype, app.roce_nvmf, INFO);

#define NVMF_CQ_LEN		8192
#define NVMF_POLL_BATCH		32
#define NVMF_MAX_IO_QUEUES	8
#define NVMF_QUEUE_DEPTH	128
#define NVMF_QUEUE_DEPTH_MIN	2	/* Base: a queue has at least two entries */
#define NVMF_ICD_DEFAULT	8192
#define NVMF_MAX_TRANSFER	(128u * 1024)
#define NVMF_MIN_TRANSFER	4096u	/* CAP.MPSMIN: MDTS counts in these */
#define NVMF_DATA_BUFFERS	256
#define NVMF_CONTROLLERS	64

void
nvmf_tgt_conf_defaults(struct nvmf_tgt_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->max_io_queues = NVMF_MAX_IO_QUEUES;
	conf->max_queue_depth = NVMF_QUEUE_DEPTH;
	conf->in_capsule_data = NVMF_ICD_DEFAULT;
	conf->max_transfer = NVMF_MAX_TRANSFER;
	conf->data_buffers = NVMF_DATA_BUFFERS;
	conf->max_controllers = NVMF_CONTROLLERS;
}

/* Subsystem i: an NQN of its own that is not the discovery NQN, within the limits. */
static int
subsys_conf_check(const struct nvmf_tgt_conf *c, unsigned int i)
{
	const struct nvmf_subsys_conf *s = &c->subsys[i];
	unsigned int j;

	if (s->nqn[0] == '\0' || strcmp(s->nqn, NVMF_DISCOVERY_NQN) == 0) {
		NVMF_LOG(ERR, "subsys[%u].nqn: an I/O subsystem NQN is required (not the "
			 "discovery NQN)", i);
		return -EINVAL;
	}
	for (j = 0; j < i; j++)
		if (strcmp(c->subsys[j].nqn, s->nqn) == 0) {
			NVMF_LOG(ERR, "subsys[%u].nqn: %s is subsystem %u's already", i, s->nqn, j);
			return -EINVAL;
		}
	if (s->nb_ns == 0 || s->nb_ns > NVMF_NS_MAX || s->nb_hosts > NVMF_HOSTS_MAX) {
		NVMF_LOG(ERR, "subsys[%u] %s: %u namespaces, %u hosts: 1 to %u and at most %u", i,
			 s->nqn, s->nb_ns, s->nb_hosts, NVMF_NS_MAX, NVMF_HOSTS_MAX);
		return -EINVAL;
	}
	return 0;
}

/* Zero knobs take their default; one that cannot work is refused, named. */
static int
tgt_conf_check(struct nvmf_tgt_conf *c)
{
	struct nvmf_tgt_conf d;
	unsigned int i;

	nvmf_tgt_conf_defaults(&d);
	c->max_io_queues = c->max_io_queues != 0 ? c->max_io_queues : d.max_io_queues;
	c->max_queue_depth = c->max_queue_depth != 0 ? c->max_queue_depth : d.max_queue_depth;
	c->max_transfer = c->max_transfer != 0 ? c->max_transfer : d.max_transfer;
	c->data_buffers = c->data_buffers != 0 ? c->data_buffers : d.data_buffers;
	c->max_controllers = c->max_controllers != 0 ? c->max_controllers : d.max_controllers;
	if (c->nb_subsys == 0 || c->nb_subsys > NVMF_SUBSYS_MAX) {
		NVMF_LOG(ERR, "nb_subsys %u: from 1 to %u I/O subsystems", c->nb_subsys,
			 NVMF_SUBSYS_MAX);
		return -EINVAL;
	}
	if (c->max_queue_depth < NVMF_QUEUE_DEPTH_MIN) {
		NVMF_LOG(ERR, "max_queue_depth %u: at least %u", c->max_queue_depth,
			 NVMF_QUEUE_DEPTH_MIN);
		return -EINVAL;
	}
	if (!rte_is_power_of_2(c->max_transfer) || c->max_transfer < NVMF_MIN_TRANSFER ||
	    c->max_transfer > NVMF_SGL_KEYED_MAX + 1) {
		NVMF_LOG(ERR, "max_transfer %u: a power of two from %u to 16 MiB", c->max_transfer,
			 NVMF_MIN_TRANSFER);
		return -EINVAL;
	}
	if (c->in_capsule_data % 16 != 0 || c->in_capsule_data > c->max_transfer) {
		NVMF_LOG(ERR, "in_capsule_data %u: a multiple of 16 up to max_transfer",
			 c->in_capsule_data);
		return -EINVAL;
	}
	if (c->max_controllers > NVMF_CNTLID_MAX) {
		NVMF_LOG(ERR, "max_controllers %u: at most %u", c->max_controllers,
			 NVMF_CNTLID_MAX);
		return -EINVAL;
	}
	for (i = 0; i < c->nb_subsys; i++)
		if (subsys_conf_check(c, i) != 0)
			return -EINVAL;
	return 0;
}

static int
tgt_pool_init(struct nvmf_tgt *tgt)
{
	size_t size = (size_t)tgt->conf.data_buffers * tgt->conf.max_transfer;
	uint32_t i;

	tgt->pool_mem = rte_malloc("nvmf_data", size, 4096);
	tgt->pool_free = rte_malloc("nvmf_data_free", sizeof(uint8_t *) * tgt->conf.data_buffers,
				    0);
	if (tgt->pool_mem == NULL || tgt->pool_free == NULL) {
		NVMF_LOG(ERR, "data_buffers: %zu bytes of data buffers not available", size);
		return -ENOMEM;
	}
	tgt->pool_mr = rte_roce_reg_mr(tgt->pd, tgt->pool_mem, size, IBV_ACCESS_LOCAL_WRITE);
	if (tgt->pool_mr == NULL) {
		NVMF_LOG(ERR, "data buffers: reg_mr: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	for (i = 0; i < tgt->conf.data_buffers; i++)
		tgt->pool_free[i] = tgt->pool_mem + (size_t)i * tgt->conf.max_transfer;
	tgt->pool_nb_free = tgt->conf.data_buffers;
	return 0;
}

uint8_t *
nvmf_buf_get(struct nvmf_tgt *tgt)
{
	if (tgt->pool_nb_free == 0)
		return NULL;
	return tgt->pool_free[--tgt->pool_nb_free];
}

void
nvmf_buf_put(struct nvmf_tgt *tgt, uint8_t *buf)
{
	tgt->pool_free[tgt->pool_nb_free++] = buf;
}

/* One I/O subsystem: its NQN and namespaces (a file namespace needs the io_uring). */
static int
tgt_subsys_add(struct nvmf_tgt *tgt, const struct nvmf_subsys_conf *conf)
{
	struct nvmf_subsys *s = &tgt->subsys[tgt->nb_subsys++];
	unsigned int i;
	int rc;

	s->conf = conf;
	snprintf(s->nqn, sizeof(s->nqn), "%s", conf->nqn);
	for (i = 0; i < conf->nb_ns; i++) {
		if (conf->ns[i].path[0] != '\0' && !tgt->ring_up) {
			rc = nvmf_file_ring_init(tgt);
			if (rc != 0)
				return rc;
		}
		rc = nvmf_ns_init(s, &conf->ns[i], i + 1);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* [0] the discovery subsystem, then the I/O subsystems in the configuration's order. */
static int
tgt_subsys_init(struct nvmf_tgt *tgt)
{
	unsigned int i;
	int rc = 0;

	snprintf(tgt->subsys[0].nqn, sizeof(tgt->subsys[0].nqn), "%s", NVMF_DISCOVERY_NQN);
	tgt->subsys[0].discovery = true;
	tgt->nb_subsys = 1;
	for (i = 0; i < tgt->conf.nb_subsys && rc == 0; i++)
		rc = tgt_subsys_add(tgt, &tgt->conf.subsys[i]);
	return rc;
}

static int
tgt_verbs_init(struct nvmf_tgt *tgt)
{
	struct ibv_device_attr attr;
	int rc;

	rc = rte_roce_query_device(tgt->ctx, &attr);
	if (rc != 0)
		return rc;
	tgt->max_rd_atom = (uint32_t)attr.max_qp_init_rd_atom;
	tgt->pd = rte_roce_alloc_pd(tgt->ctx);
	if (tgt->pd == NULL)
		return -rte_errno;
	tgt->send_cq = rte_roce_create_cq(tgt->ctx, NVMF_CQ_LEN, NULL, NULL, 0);
	tgt->recv_cq = rte_roce_create_cq(tgt->ctx, NVMF_CQ_LEN, NULL, NULL, 0);
	if (tgt->send_cq == NULL || tgt->recv_cq == NULL)
		return -rte_errno;
	return nvmf_srq_init(tgt, &attr);
}

struct nvmf_tgt *
nvmf_tgt_create(struct ibv_context *ctx, struct rte_roce_cm *cm, const struct nvmf_tgt_conf *conf)
{
	struct nvmf_tgt *tgt;
	int rc;

	if (ctx == NULL || cm == NULL || conf == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	tgt = rte_zmalloc("nvmf_tgt", sizeof(*tgt), 0);
	if (tgt == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	tgt->conf = *conf;
	tgt->ctx = ctx;
	tgt->cm = cm;
	TAILQ_INIT(&tgt->buf_wait);
	TAILQ_INIT(&tgt->queues);
	rc = tgt_conf_check(&tgt->conf);
	if (rc == 0)
		rc = tgt_verbs_init(tgt);
	if (rc == 0)
		rc = tgt_pool_init(tgt);
	if (rc == 0)
		rc = tgt_subsys_init(tgt);
	if (rc == 0) {
		tgt->ctrl = rte_zmalloc("nvmf_ctrls",
					sizeof(*tgt->ctrl) * tgt->conf.max_controllers, 0);
		rc = tgt->ctrl == NULL ? -ENOMEM : 0;
	}
	if (rc == 0)
		rc = nvmf_cm_listen(tgt);
	if (rc != 0) {
		nvmf_tgt_destroy(tgt);
		rte_errno = -rc;
		return NULL;
	}
	return tgt;
}

static void
tgt_recv_done(struct nvmf_tgt *tgt, const struct ibv_wc *wc)
{
	struct nvmf_recv *r = (struct nvmf_recv *)(uintptr_t)wc->wr_id;

	if (r->q != NULL)
		nvmf_req_recv_done(r->q, r, wc);
	else
		nvmf_srq_recv_done(tgt, r, wc);
}

static int
tgt_poll_cq(struct nvmf_tgt *tgt, struct ibv_cq *cq)
{
	struct ibv_wc wc[NVMF_POLL_BATCH];
	int n, i;

	n = rte_roce_poll_cq(cq, NVMF_POLL_BATCH, wc);
	for (i = 0; i < n; i++) {
		if (cq == tgt->recv_cq)
			tgt_recv_done(tgt, &wc[i]);
		else
			nvmf_req_send_done((struct nvmf_req *)(uintptr_t)wc[i].wr_id, &wc[i]);
	}
	return n > 0 ? n : 0;
}

/* Every receive completion the CQ holds, taken now. */
void
nvmf_tgt_recv_drain(struct nvmf_tgt *tgt)
{
	while (tgt_poll_cq(tgt, tgt->recv_cq) > 0)
		;
}

/* Requests waiting for a data buffer, in order, while buffers last. */
static int
tgt_buf_waiters(struct nvmf_tgt *tgt)
{
	struct nvmf_req *req;
	int n = 0;

	while (tgt->pool_nb_free != 0 && (req = TAILQ_FIRST(&tgt->buf_wait)) != NULL) {
		TAILQ_REMOVE(&tgt->buf_wait, req, link);
		nvmf_req_run(req);
		n++;
	}
	return n;
}

int
nvmf_tgt_poll(struct nvmf_tgt *tgt)
{
	int n;

	n = nvmf_cm_poll(tgt);
	n += tgt_poll_cq(tgt, tgt->recv_cq);
	n += tgt_poll_cq(tgt, tgt->send_cq);
	n += nvmf_async_poll(tgt);
	n += tgt_buf_waiters(tgt);
	n += nvmf_file_poll(tgt);
	n += nvmf_ctrl_check_timers(tgt);
	nvmf_queue_reap(tgt);
	return n;
}

void
nvmf_tgt_stop(struct nvmf_tgt *tgt)
{
	struct nvmf_queue *q;

	tgt->stopping = true;
	/* each close's events taken at once: many queues must not overflow the device's */
	TAILQ_FOREACH(q, &tgt->queues, link) {
		nvmf_queue_close(q, "target stopping");
		nvmf_async_drain(tgt);
	}
}

bool
nvmf_tgt_idle(const struct nvmf_tgt *tgt)
{
	return TAILQ_EMPTY(&tgt->queues);
}

int
nvmf_tgt_destroy(struct nvmf_tgt *tgt)
{
	unsigned int i, j;

	if (tgt == NULL)
		return -EINVAL;
	if (!nvmf_tgt_idle(tgt))
		return -EBUSY;
	nvmf_cm_unlisten(tgt);
	for (i = 1; i < tgt->nb_subsys; i++)
		for (j = 0; j < tgt->subsys[i].nb_ns; j++)
			nvmf_ns_fini(&tgt->subsys[i].ns[j]);
	nvmf_file_ring_fini(tgt);
	nvmf_srq_fini(tgt);
	if (tgt->pool_mr != NULL)
		rte_roce_dereg_mr(tgt->pool_mr);
	if (tgt->send_cq != NULL)
		rte_roce_destroy_cq(tgt->send_cq);
	if (tgt->recv_cq != NULL)
		rte_roce_destroy_cq(tgt->recv_cq);
	if (tgt->pd != NULL)
		rte_roce_dealloc_pd(tgt->pd);
	rte_free(tgt->ctrl);
	rte_free(tgt->pool_free);
	rte_free(tgt->pool_mem);
	rte_free(tgt);
	return 0;
}

const struct nvmf_tgt_stats *
nvmf_tgt_stats(const struct nvmf_tgt *tgt)
{
	return &tgt->stats;
}

#define NVMF_STAT(f) { #f, offsetof(struct nvmf_tgt_stats, f) }
static const struct {
	const char *name;
	size_t off;
} nvmf_stat_names[] = {
	NVMF_STAT(connect_requests), NVMF_STAT(cm_rejects), NVMF_STAT(queues_live),
	NVMF_STAT(queues_freed), NVMF_STAT(controllers), NVMF_STAT(capsules),
	NVMF_STAT(responses), NVMF_STAT(rdma_reads), NVMF_STAT(rdma_writes),
	NVMF_STAT(in_capsule), NVMF_STAT(send_inv), NVMF_STAT(buffer_waits), NVMF_STAT(errors),
	NVMF_STAT(invalid_opcode), NVMF_STAT(invalid_field), NVMF_STAT(invalid_ns),
	NVMF_STAT(lba_range), NVMF_STAT(sgl_invalid), NVMF_STAT(sgl_multi), NVMF_STAT(cmd_seq),
	NVMF_STAT(connect_refused), NVMF_STAT(capsule_short), NVMF_STAT(capsule_overflow),
	NVMF_STAT(wc_errors), NVMF_STAT(ka_expired), NVMF_STAT(file_ios), NVMF_STAT(io_errors),
	NVMF_STAT(aens), NVMF_STAT(aers_aborted), NVMF_STAT(srq_low), NVMF_STAT(srq_stale),
	NVMF_STAT(qp_fatal),
};

bool
nvmf_tgt_stat_at(const struct nvmf_tgt *tgt, unsigned int i, const char **name, uint64_t *value)
{
	if (i >= RTE_DIM(nvmf_stat_names))
		return false;
	*name = nvmf_stat_names[i].name;
	*value = *(const uint64_t *)((const uint8_t *)&tgt->stats + nvmf_stat_names[i].off);
	return true;
}

int
nvmf_tgt_ns_rescan(struct nvmf_tgt *tgt)
{
	unsigned int i, j;
	int rc, n = 0;

	for (i = 1; i < tgt->nb_subsys; i++)
		for (j = 0; j < tgt->subsys[i].nb_ns; j++) {
			rc = nvmf_file_ns_rescan(&tgt->subsys[i].ns[j]);
			if (rc < 0)
				return rc;
			if (rc > 0)
				nvmf_subsys_ns_changed(tgt, &tgt->subsys[i], j + 1);
			n += rc;
		}
	return n;
}

uint8_t *
nvmf_tgt_ns_data(struct nvmf_tgt *tgt, const char *subnqn, uint32_t nsid, uint64_t *size)
{
	const struct nvmf_subsys *s = nvmf_subsys_find(tgt, subnqn);

	if (s == NULL || s->discovery || nsid == 0 || nsid > s->nb_ns)
		return NULL;
	*size = s->ns[nsid - 1].nblocks << s->ns[nsid - 1].block_shift;
	return s->ns[nsid - 1].ram;
}
