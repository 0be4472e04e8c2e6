/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The polling interface of an extended CQ (ibv_create_cq_ex(3):
 * ibv_start_poll, ibv_next_poll, ibv_end_poll and the ibv_wc_read_*
 * functions) on librte_roce's CQ. ibv_start_poll() and ibv_next_poll() take
 * one completion with rte_roce_poll_cq() into the calling thread's slot
 * for that CQ, set the CQ's wr_id and status, and the readers read the
 * slot; ibv_end_poll() frees the slot. One thread polls a CQ (librte_roce's
 * rule); on an inline device ibv_start_poll() also makes progress, as
 * ibv_poll_cq() does. doc/verbs-abi.md.
 */

#include <errno.h>
#include <sched.h>
#include <string.h>

#include <rte_common.h>

#include <rte_roce_verbs.h>

#include "roce_verbs.h"

/* CQs one thread may have between ibv_start_poll() and ibv_end_poll() at once. */
#define RV_POLLS 8

/* The completion a thread is reading on one CQ. */
struct rv_poll {
	struct ibv_cq_ex *cq;	/* NULL: a free slot */
	struct ibv_wc wc;
};

static __thread struct rv_poll rv_polls[RV_POLLS];

static struct rv_poll *
rv_poll_find(const struct ibv_cq_ex *cq)
{
	unsigned int i;

	for (i = 0; i < RV_POLLS; i++)
		if (rv_polls[i].cq == cq)
			return &rv_polls[i];
	return NULL;
}

/* The next completion into the slot: 0, ENOENT (none) or the CQ's error. */
static int
rv_poll_one(struct rv_poll *p)
{
	int n = rte_roce_poll_cq(ibv_cq_ex_to_cq(p->cq), 1, &p->wc);

	if (n <= 0)
		return n == 0 ? ENOENT : -n;
	p->cq->wr_id = p->wc.wr_id;
	p->cq->status = p->wc.status;
	return 0;
}

/* ibv_end_poll() is not called after a start that failed: its slot is freed here. */
static int
rv_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	struct rv_poll *p;
	int work, rc;

	if (attr == NULL || attr->comp_mask != 0) {
		RV_LOG(ERR, "CQ %p: ibv_start_poll() attr %s", (void *)cq,
		       attr == NULL ? "NULL" : "comp_mask not 0");
		return EINVAL;
	}
	p = rv_poll_find(cq);
	if (p != NULL)
		RV_LOG(ERR, "CQ %p: ibv_start_poll() again before ibv_end_poll()", (void *)cq);
	else
		p = rv_poll_find(NULL);
	if (p == NULL) {
		RV_LOG(ERR, "CQ %p: ibv_start_poll() with %d CQs already polled in this thread",
		       (void *)cq, RV_POLLS);
		return ENOMEM;
	}
	work = roce_verbs_progress(cq->context);
	p->cq = cq;
	rc = rv_poll_one(p);
	if (rc != 0) {
		p->cq = NULL;
		if (rc == ENOENT && work == 0)
			sched_yield();	/* as an idle ibv_poll_cq() does (roce_verbs_ops.c) */
	}
	return rc;
}

static struct rv_poll *
rv_poll_of(const struct ibv_cq_ex *cq, const char *call)
{
	struct rv_poll *p = rv_poll_find(cq);

	if (p == NULL)
		RV_LOG(ERR, "CQ %p: %s outside ibv_start_poll() ... ibv_end_poll() in this thread",
		       (const void *)cq, call);
	return p;
}

static int
rv_next_poll(struct ibv_cq_ex *cq)
{
	struct rv_poll *p = rv_poll_of(cq, __func__);

	return p != NULL ? rv_poll_one(p) : EINVAL;
}

static void
rv_end_poll(struct ibv_cq_ex *cq)
{
	struct rv_poll *p = rv_poll_of(cq, __func__);

	if (p != NULL)
		p->cq = NULL;
}

/* The readers: a field of the current completion (0 outside a poll, logged). */
#define RV_READ(name, type, field) \
	static type \
	rv_read_ ## name(struct ibv_cq_ex *cq) \
	{ \
		const struct rv_poll *p = rv_poll_of(cq, __func__); \
		return p != NULL ? (type)p->wc.field : 0; \
	}

RV_READ(opcode, enum ibv_wc_opcode, opcode)
RV_READ(vendor_err, uint32_t, vendor_err)
RV_READ(byte_len, uint32_t, byte_len)
RV_READ(imm_data, __be32, imm_data)
RV_READ(qp_num, uint32_t, qp_num)
RV_READ(src_qp, uint32_t, src_qp)
RV_READ(wc_flags, unsigned int, wc_flags)
RV_READ(slid, uint32_t, slid)
RV_READ(sl, uint8_t, sl)
RV_READ(dlid_path_bits, uint8_t, dlid_path_bits)

/*
 * The readers of what a completion of librte_roce does not carry (no
 * timestamp, VLAN, flow tag or tag matching): their wc_flags are refused
 * by ibv_create_cq_ex(), so only a program that calls them anyway gets
 * here: 0, logged.
 */
#define RV_READ_UNSUPPORTED(name, type) \
	static type \
	rv_read_ ## name(struct ibv_cq_ex *cq) \
	{ \
		RV_LOG(ERR, "CQ %p: %s: its wc_flag is not supported (refused at create): 0", \
		       (void *)cq, __func__); \
		return 0; \
	}

RV_READ_UNSUPPORTED(completion_ts, uint64_t)
RV_READ_UNSUPPORTED(completion_wallclock_ns, uint64_t)
RV_READ_UNSUPPORTED(cvlan, uint16_t)
RV_READ_UNSUPPORTED(flow_tag, uint32_t)

static void
rv_read_tm_info(struct ibv_cq_ex *cq, struct ibv_wc_tm_info *tm_info)
{
	RV_LOG(ERR, "CQ %p: %s: its wc_flag is not supported (refused at create)", (void *)cq,
	       __func__);
	memset(tm_info, 0, sizeof(*tm_info));
}

void
roce_verbs_cq_ex_init(struct ibv_cq_ex *cq)
{
	cq->start_poll = rv_start_poll;
	cq->next_poll = rv_next_poll;
	cq->end_poll = rv_end_poll;
	cq->read_opcode = rv_read_opcode;
	cq->read_vendor_err = rv_read_vendor_err;
	cq->read_byte_len = rv_read_byte_len;
	cq->read_imm_data = rv_read_imm_data;
	cq->read_qp_num = rv_read_qp_num;
	cq->read_src_qp = rv_read_src_qp;
	cq->read_wc_flags = rv_read_wc_flags;
	cq->read_slid = rv_read_slid;
	cq->read_sl = rv_read_sl;
	cq->read_dlid_path_bits = rv_read_dlid_path_bits;
	cq->read_completion_ts = rv_read_completion_ts;
	cq->read_cvlan = rv_read_cvlan;
	cq->read_flow_tag = rv_read_flow_tag;
	cq->read_tm_info = rv_read_tm_info;
	cq->read_completion_wallclock_ns = rv_read_completion_wallclock_ns;
}
