/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Fabrics commands (Base, "Fabrics Command Set"): Connect, which makes a
 * controller on the admin queue (dynamic controller model: the target picks
 * the controller ID) and attaches I/O queues to it; Property Get and Set of
 * CAP, VS, CC and CSTS; Disconnect. And the controllers' life: references
 * held by their queues, teardown with the admin queue, the keep-alive timer.
 */

#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "nvmf_priv.h"

#define NVMF_CAP_TO		15	/* CAP.TO: 7.5 s to become ready, in 500 ms units */
#define NVMF_CAP_CQR		(1ull << 16)	/* contiguous queues required */
#define NVMF_CAP_CSS_NVM	(1ull << 37)	/* the NVM command set */
#define NVMF_KA_CHECK_HZ_DIV	100	/* the keep-alive timers are read every 10 ms */

static void
connect_invalid(struct nvmf_req *req, uint32_t offset, bool in_data)
{
	nvmf_req_fail(req, NVMF_SC_CONNECT_INVALID_PARAM);
	req->dw0 = offset | (in_data ? NVMF_IATTR_DATA : 0);
}

struct nvmf_subsys *
nvmf_subsys_find(struct nvmf_tgt *tgt, const char *nqn)
{
	unsigned int i;

	for (i = 0; i < tgt->nb_subsys; i++)
		if (strcmp(tgt->subsys[i].nqn, nqn) == 0)
			return &tgt->subsys[i];
	return NULL;
}

/* The discovery subsystem takes any host; an I/O subsystem, those its allow-list names, if any. */
bool
nvmf_host_allowed(const struct nvmf_subsys *s, const char *host)
{
	unsigned int i;

	if (s->discovery || s->conf->nb_hosts == 0)
		return true;
	for (i = 0; i < s->conf->nb_hosts; i++)
		if (strcmp(s->conf->hosts[i], host) == 0)
			return true;
	return false;
}

void
nvmf_ctrl_keep_alive(struct nvmf_ctrl *ctrl)
{
	if (ctrl->kato_ms != 0)
		ctrl->ka_deadline = rte_get_timer_cycles() +
				    rte_get_timer_hz() * ctrl->kato_ms / 1000;
}

/*
 * KATO in ms, rounded up to the KAS granularity (Base 2.0, "Keep Alive
 * Timer"); 0 disables the timer. The timer restarts.
 */
void
nvmf_ctrl_set_kato(struct nvmf_ctrl *ctrl, uint32_t ms)
{
	ctrl->kato_ms = (uint32_t)RTE_MIN(RTE_ALIGN_MUL_CEIL((uint64_t)ms, NVMF_KAS_MS),
					  (uint64_t)UINT32_MAX / NVMF_KAS_MS * NVMF_KAS_MS);
	nvmf_ctrl_keep_alive(ctrl);
}

/* Namespace nsid of s changed (its size): every live controller of s is told. */
void
nvmf_subsys_ns_changed(struct nvmf_tgt *tgt, const struct nvmf_subsys *s, uint32_t nsid)
{
	uint16_t i;

	for (i = 0; i < tgt->conf.max_controllers; i++)
		if (tgt->ctrl[i] != NULL && tgt->ctrl[i]->subsys == s && !tgt->ctrl[i]->dead)
			nvmf_ctrl_ns_changed(tgt->ctrl[i], nsid);
}

static struct nvmf_ctrl *
ctrl_create(struct nvmf_req *req, struct nvmf_subsys *s, const uint8_t *data)
{
	struct nvmf_tgt *tgt = req->q->tgt;
	struct nvmf_ctrl *ctrl;
	uint16_t i;

	for (i = 0; i < tgt->conf.max_controllers && tgt->ctrl[i] != NULL; i++)
		;
	if (i == tgt->conf.max_controllers)
		return NULL;
	ctrl = rte_zmalloc("nvmf_ctrl", sizeof(*ctrl), 0);
	if (ctrl == NULL)
		return NULL;
	ctrl->io = rte_zmalloc("nvmf_ctrl_io", sizeof(*ctrl->io) * (tgt->conf.max_io_queues + 1u),
			       0);
	if (ctrl->io == NULL) {
		rte_free(ctrl);
		return NULL;
	}
	ctrl->tgt = tgt;
	ctrl->subsys = s;
	ctrl->cntlid = i + 1;
	ctrl->nb_io_queues = s->discovery ? 0 : tgt->conf.max_io_queues;
	memcpy(ctrl->hostid, data + NVMF_CONNECT_HOSTID, sizeof(ctrl->hostid));
	snprintf(ctrl->hostnqn, sizeof(ctrl->hostnqn), "%s",
		 (const char *)data + NVMF_CONNECT_HOSTNQN);
	nvmf_ctrl_set_kato(ctrl, nvmf_get32(req->sqe, NVMF_CONNECT_KATO));
	ctrl->admin = req->q;
	tgt->ctrl[i] = ctrl;
	tgt->stats.controllers++;
	NVMF_LOG(INFO, "controller %u: %s for %s, keep-alive %u ms", ctrl->cntlid, s->nqn,
		 ctrl->hostnqn, ctrl->kato_ms);
	return ctrl;
}

/* An I/O queue joins its controller: same subsystem and host, enabled, a free QID it granted. */
static struct nvmf_ctrl *
connect_io(struct nvmf_req *req, struct nvmf_subsys *s, const uint8_t *data)
{
	struct nvmf_tgt *tgt = req->q->tgt;
	uint16_t cntlid = nvmf_get16(data, NVMF_CONNECT_CNTLID);
	struct nvmf_ctrl *ctrl;

	ctrl = cntlid >= 1 && cntlid <= tgt->conf.max_controllers ? tgt->ctrl[cntlid - 1] : NULL;
	if (ctrl == NULL || ctrl->dead || ctrl->subsys != s ||
	    strncmp(ctrl->hostnqn, (const char *)data + NVMF_CONNECT_HOSTNQN,
		    NVMF_NQN_FIELD_LEN) != 0) {
		connect_invalid(req, NVMF_CONNECT_CNTLID, true);
		return NULL;
	}
	if (!(ctrl->csts & NVMF_CSTS_RDY)) {
		nvmf_req_fail(req, NVMF_SC_CMD_SEQ_ERROR);
		return NULL;
	}
	if (req->q->qid > ctrl->nb_io_queues || ctrl->io[req->q->qid] != NULL) {
		connect_invalid(req, NVMF_CONNECT_QID, false);
		return NULL;
	}
	ctrl->io[req->q->qid] = req->q;
	return ctrl;
}

/*
 * The Connect command's fields, then its data (Base, "Connect Command and
 * Response"): the subsystem it names, or NULL with the status set.
 */
static struct nvmf_subsys *
connect_check(struct nvmf_req *req)
{
	struct nvmf_queue *q = req->q;
	const uint8_t *data = req->data;
	const char *host = (const char *)data + NVMF_CONNECT_HOSTNQN;
	struct nvmf_subsys *s = NULL;

	if (q->ctrl != NULL)
		nvmf_req_fail(req, NVMF_SC_CMD_SEQ_ERROR);
	else if (req->dir != NVMF_DIR_TO_CTRL || req->len != NVMF_CONNECT_DATA_LEN)
		nvmf_req_fail(req, NVMF_SC_SGL_INVALID_DATA_LEN);
	else if (nvmf_get16(req->sqe, NVMF_CONNECT_RECFMT) != 0)
		nvmf_req_fail(req, NVMF_SC_CONNECT_FORMAT);
	/* RDMA §3.1: the QID and SQSIZE of the CM's private data, again */
	else if (nvmf_get16(req->sqe, NVMF_CONNECT_QID) != q->qid)
		connect_invalid(req, NVMF_CONNECT_QID, false);
	else if (nvmf_get16(req->sqe, NVMF_CONNECT_SQSIZE) != q->sqsize)
		connect_invalid(req, NVMF_CONNECT_SQSIZE, false);
	else if (memchr(data + NVMF_CONNECT_HOSTNQN, '\0', NVMF_NQN_FIELD_LEN) == NULL)
		connect_invalid(req, NVMF_CONNECT_HOSTNQN, true);
	else if (memchr(data + NVMF_CONNECT_SUBNQN, '\0', NVMF_NQN_FIELD_LEN) == NULL ||
		 (s = nvmf_subsys_find(q->tgt, (const char *)data + NVMF_CONNECT_SUBNQN)) == NULL)
		connect_invalid(req, NVMF_CONNECT_SUBNQN, true);
	else if (!nvmf_host_allowed(s, host))
		nvmf_req_fail(req, NVMF_SC_CONNECT_INVALID_HOST);
	else if (q->qid == 0 && nvmf_get16(data, NVMF_CONNECT_CNTLID) != NVMF_CNTLID_DYNAMIC)
		connect_invalid(req, NVMF_CONNECT_CNTLID, true);
	return req->status == NVMF_SC_SUCCESS ? s : NULL;
}

static void
fabrics_connect(struct nvmf_req *req)
{
	struct nvmf_queue *q = req->q;
	struct nvmf_subsys *s = connect_check(req);
	struct nvmf_ctrl *ctrl;

	if (s == NULL)
		return;
	if (q->qid == 0) {
		ctrl = ctrl_create(req, s, req->data);
		if (ctrl == NULL)
			nvmf_req_fail(req, NVMF_SC_CONNECT_CTRL_BUSY);
	} else {
		ctrl = connect_io(req, s, req->data);
	}
	if (ctrl == NULL)
		return;
	q->ctrl = ctrl;
	q->sqflow_off = (req->sqe[NVMF_CONNECT_CATTR] & NVMF_CATTR_NO_SQFLOW) != 0;
	ctrl->refs++;
	nvmf_ctrl_keep_alive(ctrl);
	req->dw0 = ctrl->cntlid;
}

static uint64_t
prop_cap(const struct nvmf_tgt *tgt)
{
	return (uint64_t)(tgt->conf.max_queue_depth - 1u) | NVMF_CAP_CQR |
	       (uint64_t)NVMF_CAP_TO << 24 | NVMF_CAP_CSS_NVM;
}

static void
fabrics_prop_get(struct nvmf_req *req)
{
	struct nvmf_ctrl *ctrl = req->q->ctrl;
	uint64_t v;

	switch (nvmf_get32(req->sqe, NVMF_PROP_OFST)) {
	case NVMF_PROP_CAP:
		v = prop_cap(req->q->tgt);
		break;
	case NVMF_PROP_VS:
		v = NVMF_VS_1_3;
		break;
	case NVMF_PROP_CC:
		v = ctrl->cc;
		break;
	case NVMF_PROP_CSTS:
		v = ctrl->csts;
		break;
	default:
		nvmf_req_fail(req, NVMF_SC_INVALID_FIELD);
		return;
	}
	if ((req->sqe[NVMF_PROP_ATTRIB] & 0x7) == 0)
		v &= UINT32_MAX;	/* a four-byte read */
	req->dw0 = (uint32_t)v;
	req->dw1 = (uint32_t)(v >> 32);
}

/* Controller reset (CC.EN 1 -> 0): its I/O queues go. */
static void
ctrl_reset(struct nvmf_ctrl *ctrl)
{
	uint16_t qid;

	for (qid = 1; qid <= ctrl->tgt->conf.max_io_queues; qid++)
		if (ctrl->io[qid] != NULL)
			nvmf_queue_close(ctrl->io[qid], "controller reset");
	ctrl->csts = 0;
}

static void
fabrics_prop_set(struct nvmf_req *req)
{
	struct nvmf_ctrl *ctrl = req->q->ctrl;
	uint32_t cc = nvmf_get32(req->sqe, NVMF_PROP_VALUE);
	uint32_t sqes = (cc >> NVMF_CC_IOSQES_SHIFT) & 0xf, cqes = (cc >> NVMF_CC_IOCQES_SHIFT) & 0xf;

	if (nvmf_get32(req->sqe, NVMF_PROP_OFST) != NVMF_PROP_CC) {
		nvmf_req_fail(req, NVMF_SC_INVALID_FIELD);	/* the others are read-only */
		return;
	}
	if ((cc & NVMF_CC_EN) && !(ctrl->cc & NVMF_CC_EN)) {
		if (ctrl->subsys->discovery || (sqes == NVMF_SQES_LOG2 && cqes == NVMF_CQES_LOG2))
			ctrl->csts |= NVMF_CSTS_RDY;
		else
			ctrl->csts |= NVMF_CSTS_CFS;
	} else if (!(cc & NVMF_CC_EN) && (ctrl->cc & NVMF_CC_EN)) {
		ctrl_reset(ctrl);
		nvmf_ctrl_aer_abort(ctrl);
	}
	if ((cc >> NVMF_CC_SHN_SHIFT) & NVMF_CC_SHN_MASK)
		ctrl->csts |= NVMF_CSTS_SHST_DONE;	/* nothing to flush: RAM */
	ctrl->cc = cc;
}

void
nvmf_fabrics_exec(struct nvmf_req *req)
{
	uint8_t fctype = req->sqe[NVMF_SQE_FCTYPE];

	if (fctype == NVMF_FCTYPE_CONNECT) {
		fabrics_connect(req);
		if (req->status != NVMF_SC_SUCCESS) {
			req->q->tgt->stats.connect_refused++;
			NVMF_LOG(INFO, "queue %u: Connect refused: status 0x%03x, DW0 0x%x",
				 req->q->qid, req->status, req->dw0);
		}
		return;
	}
	if (req->q->ctrl == NULL) {
		nvmf_req_fail(req, NVMF_SC_CMD_SEQ_ERROR);
		return;
	}
	if (fctype == NVMF_FCTYPE_DISCONNECT)
		return;	/* success; the host then disconnects the QP */
	if (req->q->qid != 0) {
		nvmf_req_fail(req, NVMF_SC_INVALID_OPCODE);	/* properties: admin queue only */
		return;
	}
	if (fctype == NVMF_FCTYPE_PROP_GET)
		fabrics_prop_get(req);
	else if (fctype == NVMF_FCTYPE_PROP_SET)
		fabrics_prop_set(req);
	else
		nvmf_req_fail(req, NVMF_SC_INVALID_OPCODE);
}

void
nvmf_ctrl_kill(struct nvmf_ctrl *ctrl, const char *why)
{
	if (ctrl->dead)
		return;
	NVMF_LOG(INFO, "controller %u: torn down: %s", ctrl->cntlid, why);
	ctrl->dead = true;
	ctrl->csts |= NVMF_CSTS_CFS;
	ctrl_reset(ctrl);
	if (ctrl->admin != NULL)
		nvmf_queue_close(ctrl->admin, why);
}

void
nvmf_ctrl_put(struct nvmf_ctrl *ctrl)
{
	if (--ctrl->refs != 0)
		return;
	ctrl->tgt->ctrl[ctrl->cntlid - 1] = NULL;
	rte_free(ctrl->io);
	rte_free(ctrl);
}

int
nvmf_ctrl_check_timers(struct nvmf_tgt *tgt)
{
	uint64_t now = rte_get_timer_cycles();
	uint16_t i;
	int n = 0;

	if (now < tgt->ka_next_check)
		return 0;
	tgt->ka_next_check = now + rte_get_timer_hz() / NVMF_KA_CHECK_HZ_DIV;
	for (i = 0; i < tgt->conf.max_controllers; i++) {
		struct nvmf_ctrl *ctrl = tgt->ctrl[i];

		if (ctrl == NULL || ctrl->dead || ctrl->kato_ms == 0 || now < ctrl->ka_deadline)
			continue;
		tgt->stats.ka_expired++;
		nvmf_ctrl_kill(ctrl, "keep-alive timeout");
		n++;
	}
	return n;
}
