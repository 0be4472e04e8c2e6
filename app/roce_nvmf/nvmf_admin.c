/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Admin commands (Base, "Admin Command Set") a Fabrics host needs:
 * Identify (controller, namespace, active namespace list, namespace
 * identification descriptors), Get/Set Features (number of queues,
 * keep-alive timer, asynchronous event configuration), Get Log Page,
 * Keep Alive and Asynchronous Event Request.
 */

#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_common.h>
#include <rte_hash_crc.h>

#include "nvmf_priv.h"

#define NVMF_VERSION_STR	"0.1.0"
#define NVMF_MODEL		"librte_roce roce_nvmf"
#define NVMF_ACL_0S		3	/* Abort Command Limit, 0's based: four */
#define NVMF_KAS_100MS		1	/* keep-alive granularity: 100 ms */
#define NVMF_LOG_PAGE_LEN	512	/* SMART / health, firmware slots */
#define NVMF_LOG_NS_LIST_LEN	4096
#define NVMF_FW_SLOT1		8	/* firmware slot log: revision of slot 1 */
/* the longest page: the discovery log with every subsystem */
#define NVMF_LOG_PAGE_MAX	(NVMF_DISC_HDR_LEN + NVMF_SUBSYS_MAX * NVMF_DISC_ENTRY_LEN)

/*
 * The data buffer for a command that returns need bytes to the host: the
 * SGL must describe exactly that (Identify Controller says an SGL may not be
 * longer than the data). NULL with the status set.
 */
static uint8_t *
admin_data(struct nvmf_req *req, uint32_t need)
{
	if (req->dir != NVMF_DIR_TO_HOST || req->len != need) {
		nvmf_req_fail(req, NVMF_SC_SGL_INVALID_DATA_LEN);
		return NULL;
	}
	memset(req->data, 0, need);
	return req->data;
}

/* ASCII, space padded, no terminator (Base: string fields). */
static void
put_str(uint8_t *p, size_t len, const char *s)
{
	size_t n = RTE_MIN(strlen(s), len);

	memset(p, ' ', len);
	memcpy(p, s, n);
}

static uint32_t
log2_u32(uint32_t v)
{
	return (uint32_t)rte_bsf32(v);
}

static void
identify_ctrl(struct nvmf_req *req, uint8_t *d)
{
	const struct nvmf_ctrl *ctrl = req->q->ctrl;
	const struct nvmf_tgt *tgt = ctrl->tgt;
	const struct nvmf_subsys *s = ctrl->subsys;
	char sn[21];

	snprintf(sn, sizeof(sn), "%08x", rte_hash_crc(s->nqn, strlen(s->nqn), 0));
	put_str(d + NVMF_IDC_SN, 20, sn);
	put_str(d + NVMF_IDC_MN, 40, NVMF_MODEL);
	put_str(d + NVMF_IDC_FR, 8, NVMF_VERSION_STR);
	d[NVMF_IDC_CMIC] = NVMF_CMIC_MULTI_CTRL;
	d[NVMF_IDC_MDTS] = (uint8_t)(log2_u32(tgt->conf.max_transfer) - 12);
	nvmf_put16(d, NVMF_IDC_CNTLID, ctrl->cntlid);
	nvmf_put32(d, NVMF_IDC_VER, NVMF_VS_1_3);
	/* Base 2.0, "Keep Alive": any command restarts the timer (nvmf_req.c) */
	nvmf_put32(d, NVMF_IDC_CTRATT, NVMF_CTRATT_TBKAS);
	if (!s->discovery)
		nvmf_put32(d, NVMF_IDC_OAES, NVMF_OAES_NS_ATTR);
	d[NVMF_IDC_CNTRLTYPE] = s->discovery ? NVMF_CNTRLTYPE_DISC : NVMF_CNTRLTYPE_IO;
	d[NVMF_IDC_ACL] = NVMF_ACL_0S;
	d[NVMF_IDC_AERL] = NVMF_AER_MAX - 1;	/* 0's based */
	d[NVMF_IDC_LPA] = NVMF_LPA_EXT_DATA;
	d[NVMF_IDC_ELPE] = NVMF_ERRLOG_MAX - 1;
	nvmf_put16(d, NVMF_IDC_KAS, NVMF_KAS_100MS);
	d[NVMF_IDC_SQES] = NVMF_SQES_LOG2 << 4 | NVMF_SQES_LOG2;
	d[NVMF_IDC_CQES] = NVMF_CQES_LOG2 << 4 | NVMF_CQES_LOG2;
	nvmf_put16(d, NVMF_IDC_MAXCMD, tgt->conf.max_queue_depth);
	nvmf_put32(d, NVMF_IDC_NN, s->nb_ns);
	nvmf_put16(d, NVMF_IDC_ONCS, NVMF_ONCS_DSM | NVMF_ONCS_WRITE_ZEROES);
	nvmf_put32(d, NVMF_IDC_SGLS, NVMF_SGLS_SUPPORTED | NVMF_SGLS_KEYED | NVMF_SGLS_OFFSET);
	snprintf((char *)d + NVMF_IDC_SUBNQN, NVMF_NQN_FIELD_LEN, "%s", s->nqn);
	nvmf_put32(d, NVMF_IDC_IOCCSZ, (NVMF_SQE_LEN + tgt->conf.in_capsule_data) / 16);
	nvmf_put32(d, NVMF_IDC_IORCSZ, NVMF_CQE_LEN / 16);
	/* ICDOFF 0: in-capsule data right after the SQE; FCATT 0: dynamic controllers */
	d[NVMF_IDC_MSDBD] = 1;
}

static const struct nvmf_ns *
ns_find(const struct nvmf_subsys *s, uint32_t nsid)
{
	return nsid >= 1 && nsid <= s->nb_ns ? &s->ns[nsid - 1] : NULL;
}

static void
identify_ns(const struct nvmf_ns *ns, uint8_t *d)
{
	nvmf_put64(d, NVMF_IDNS_NSZE, ns->nblocks);
	nvmf_put64(d, NVMF_IDNS_NCAP, ns->nblocks);
	nvmf_put64(d, NVMF_IDNS_NUSE, ns->nblocks);
	d[NVMF_IDNS_NLBAF] = 0;	/* 0's based: one LBA format */
	d[NVMF_IDNS_FLBAS] = 0;
	d[NVMF_IDNS_NMIC] = NVMF_NMIC_SHARED;
	d[NVMF_IDNS_DLFEAT] = NVMF_DLFEAT_READ_ZEROES;
	memcpy(d + NVMF_IDNS_NGUID, ns->nguid, NVMF_NID_LEN);
	nvmf_put32(d, NVMF_IDNS_LBAF0, ns->block_shift << 16);
}

/* Base 2.0, I/O Command Set Independent Identify Namespace: shared, ready. */
static void
identify_ns_indep(uint8_t *d)
{
	d[NVMF_IDIND_NMIC] = NVMF_NMIC_SHARED;
	d[NVMF_IDIND_NSTAT] = NVMF_NSTAT_READY;
}

/* What an Identify CNS the target serves needs (Base 2.0, "Identify command"). */
#define ID_SERVED	0x1
#define ID_NS		0x2	/* an active NSID */
#define ID_LIST		0x4	/* an NSID from which to list, below FFFFFFFEh */
#define ID_CSI		0x8	/* CDW11.CSI names the command set: the NVM one only */
static const uint8_t identify_cns[] = {
	[NVMF_CNS_NS] = ID_SERVED | ID_NS,
	[NVMF_CNS_CTRL] = ID_SERVED,
	[NVMF_CNS_NS_ACTIVE_LIST] = ID_SERVED | ID_LIST,
	[NVMF_CNS_NS_DESC_LIST] = ID_SERVED | ID_NS,
	[NVMF_CNS_CSI_NS] = ID_SERVED | ID_NS | ID_CSI,
	[NVMF_CNS_CSI_CTRL] = ID_SERVED | ID_CSI,
	[NVMF_CNS_CSI_NS_ACTIVE_LIST] = ID_SERVED | ID_LIST | ID_CSI,
	[NVMF_CNS_NS_INDEP] = ID_SERVED | ID_NS,
};

static uint16_t
identify_check(const struct nvmf_req *req, uint8_t cns, const struct nvmf_ns *ns)
{
	uint8_t need = cns < RTE_DIM(identify_cns) ? identify_cns[cns] : 0;
	uint32_t nsid = nvmf_get32(req->sqe, NVMF_SQE_NSID);

	if (!(need & ID_SERVED) || (cns != NVMF_CNS_CTRL && req->q->ctrl->subsys->discovery))
		return NVMF_SC_INVALID_FIELD;
	if ((need & ID_CSI) && req->sqe[NVMF_IDENTIFY_CSI] != NVMF_CSI_NVM)
		return NVMF_SC_INVALID_FIELD;
	if (((need & ID_NS) && ns == NULL) || ((need & ID_LIST) && nsid >= 0xfffffffeu))
		return NVMF_SC_INVALID_NS;
	return NVMF_SC_SUCCESS;
}

static void
admin_identify(struct nvmf_req *req)
{
	const struct nvmf_subsys *s = req->q->ctrl->subsys;
	uint32_t nsid = nvmf_get32(req->sqe, NVMF_SQE_NSID), i, n = 0;
	uint8_t cns = req->sqe[NVMF_SQE_CDW10];
	const struct nvmf_ns *ns = ns_find(s, nsid);
	uint16_t sc = identify_check(req, cns, ns);
	uint8_t *d;

	if (sc != NVMF_SC_SUCCESS) {
		nvmf_req_fail(req, sc);
		return;
	}
	d = admin_data(req, NVMF_IDENTIFY_LEN);
	if (d == NULL)
		return;
	switch (cns) {
	case NVMF_CNS_CTRL:
		identify_ctrl(req, d);
		break;
	case NVMF_CNS_NS:
		identify_ns(ns, d);
		break;
	case NVMF_CNS_NS_ACTIVE_LIST:
	case NVMF_CNS_CSI_NS_ACTIVE_LIST:
		for (i = nsid + 1; i <= s->nb_ns; i++)
			nvmf_put32(d, 4 * n++, i);
		break;
	case NVMF_CNS_NS_DESC_LIST:
		d[0] = NVMF_NIDT_NGUID;
		d[1] = NVMF_NID_LEN;
		memcpy(d + 4, ns->nguid, NVMF_NID_LEN);
		break;
	case NVMF_CNS_NS_INDEP:
		identify_ns_indep(d);
		break;
	default:
		/*
		 * CNS 05h and 06h of the NVM command set: every field is 0 here
		 * (NVM Command Set 1.0: no protection information, no storage tag;
		 * no Verify, Write Zeroes or DSM limit beyond MDTS and the command's)
		 */
		break;
	}
}

/* Number of Queues (Base): the counts granted, 0's based, submission low, completion high. */
static void
feat_num_queues(struct nvmf_req *req, bool set)
{
	struct nvmf_ctrl *ctrl = req->q->ctrl;
	uint32_t cdw11 = nvmf_get32(req->sqe, NVMF_SQE_CDW11);
	uint16_t qid;

	if (ctrl->subsys->discovery) {
		nvmf_req_fail(req, NVMF_SC_INVALID_FIELD);
		return;
	}
	if (set) {
		if ((cdw11 & 0xffff) == 0xffff || cdw11 >> 16 == 0xffff) {
			nvmf_req_fail(req, NVMF_SC_INVALID_FIELD);
			return;
		}
		for (qid = 1; qid <= req->q->tgt->conf.max_io_queues; qid++)
			if (ctrl->io[qid] != NULL) {
				nvmf_req_fail(req, NVMF_SC_CMD_SEQ_ERROR);	/* queues exist */
				return;
			}
		ctrl->nb_io_queues = (uint16_t)RTE_MIN(RTE_MIN(cdw11 & 0xffff, cdw11 >> 16) + 1u,
						       req->q->tgt->conf.max_io_queues);
	}
	req->dw0 = (ctrl->nb_io_queues - 1u) | (uint32_t)(ctrl->nb_io_queues - 1u) << 16;
}

static void
admin_features(struct nvmf_req *req, bool set)
{
	struct nvmf_ctrl *ctrl = req->q->ctrl;
	uint32_t cdw11 = nvmf_get32(req->sqe, NVMF_SQE_CDW11);

	switch (req->sqe[NVMF_SQE_CDW10]) {
	case NVMF_FEAT_NUM_QUEUES:
		feat_num_queues(req, set);
		break;
	case NVMF_FEAT_KATO:
		if (set)
			nvmf_ctrl_set_kato(ctrl, cdw11);
		req->dw0 = ctrl->kato_ms;
		break;
	case NVMF_FEAT_ASYNC_EVENT:
		if (set)
			ctrl->aec = cdw11;
		req->dw0 = ctrl->aec;
		break;
	default:
		nvmf_req_fail(req, NVMF_SC_INVALID_FIELD);
		break;
	}
}

/* One discovery log entry (RDMA §3.1 Figures 3 and 4): subsystem s at address l. */
static void
log_discovery_entry(const struct nvmf_tgt *tgt, const struct nvmf_listener *l,
		    const struct nvmf_subsys *s, uint8_t *e)
{
	const struct sockaddr_storage *a = &l->addr;
	char addr[INET6_ADDRSTRLEN] = "", port[8];

	e[NVMF_DISC_TRTYPE] = NVMF_TRTYPE_RDMA;
	e[NVMF_DISC_ADRFAM] = a->ss_family == AF_INET6 ? NVMF_ADRFAM_IPV6 : NVMF_ADRFAM_IPV4;
	e[NVMF_DISC_SUBTYPE] = NVMF_SUBTYPE_NVME;
	nvmf_put16(e, NVMF_DISC_PORTID, 1);
	nvmf_put16(e, NVMF_DISC_CNTLID, NVMF_CNTLID_DYNAMIC);
	nvmf_put16(e, NVMF_DISC_ASQSZ, tgt->conf.max_queue_depth);
	if (a->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, addr,
			  sizeof(addr));
	else
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, addr, sizeof(addr));
	snprintf(port, sizeof(port), "%u", l->port);
	put_str(e + NVMF_DISC_TRSVCID, NVMF_DISC_TRSVCID_LEN, port);
	put_str(e + NVMF_DISC_TRADDR, NVMF_DISC_TRADDR_LEN, addr);
	memcpy(e + NVMF_DISC_SUBNQN, s->nqn, strlen(s->nqn));	/* the page is zeroed */
	e[NVMF_DISC_TSAS + 0] = NVMF_RDMA_QPTYPE_RC;
	e[NVMF_DISC_TSAS + 1] = NVMF_RDMA_PRTYPE_ROCEV2;
	e[NVMF_DISC_TSAS + 2] = NVMF_RDMA_CMS_RDMA_CM;
}

/*
 * The discovery log page (Base, "Discovery Log Page"): a header, then an
 * entry for each I/O subsystem the host may connect to, in the order they
 * were configured, at the address the host discovers through (as Linux's
 * nvmet lists its port's subsystems: a host on IPv4 is told IPv4 addresses).
 * GENCTR stays 0: the subsystems do not change at run time.
 */
static uint32_t
log_discovery(const struct nvmf_ctrl *ctrl, const struct nvmf_listener *l, uint8_t *page)
{
	const struct nvmf_tgt *tgt = ctrl->tgt;
	uint64_t n = 0;
	unsigned int i;

	for (i = 1; i < tgt->nb_subsys; i++)
		if (nvmf_host_allowed(&tgt->subsys[i], ctrl->hostnqn))
			log_discovery_entry(tgt, l, &tgt->subsys[i],
					    page + NVMF_DISC_HDR_LEN + n++ * NVMF_DISC_ENTRY_LEN);
	nvmf_put64(page, NVMF_DISC_NUMREC, n);
	return NVMF_DISC_HDR_LEN + (uint32_t)n * NVMF_DISC_ENTRY_LEN;
}

/*
 * Base 2.0, "Changed Namespace List": the NSIDs whose attributes changed
 * since the page was last read; reading it without RAE clears it and
 * unmasks the namespace notice (Base 2.0, "Asynchronous Event Request").
 */
static uint32_t
log_changed_ns(struct nvmf_ctrl *ctrl, uint8_t *page, bool rae)
{
	uint32_t nsid, n = 0;

	for (nsid = 1; nsid <= NVMF_NS_MAX; nsid++)
		if (ctrl->changed_ns & NVMF_NS_BIT(nsid))
			nvmf_put32(page, 4 * n++, nsid);
	if (!rae) {
		ctrl->changed_ns = 0;
		ctrl->aen_masked = false;
	}
	return NVMF_LOG_NS_LIST_LEN;
}

/*
 * An error response, recorded for the Error Information log page (Base,
 * "Error Information"): which command, its status, the namespace and LBA
 * of an I/O command. The oldest of NVMF_ERRLOG_MAX entries goes first.
 */
void
nvmf_ctrl_error_record(struct nvmf_ctrl *ctrl, const struct nvmf_req *req, uint16_t sf)
{
	uint8_t *e = ctrl->errlog[ctrl->errors++ % NVMF_ERRLOG_MAX];
	uint8_t opc = req->sqe[NVMF_SQE_OPC];
	bool io = req->q->qid != 0 && opc != NVMF_OPC_FABRICS;

	memset(e, 0, NVMF_ERRLOG_ENTRY_LEN);
	nvmf_put64(e, NVMF_ERRLOG_COUNT, ctrl->errors);
	nvmf_put16(e, NVMF_ERRLOG_SQID, req->q->qid);
	memcpy(e + NVMF_ERRLOG_CID, req->sqe + NVMF_SQE_CID, 2);
	nvmf_put16(e, NVMF_ERRLOG_STATUS, sf);
	nvmf_put16(e, NVMF_ERRLOG_PEL, 0xffff);
	if (opc != NVMF_OPC_FABRICS)
		memcpy(e + NVMF_ERRLOG_NSID, req->sqe + NVMF_SQE_NSID, 4);
	if (io && (opc == NVMF_IO_READ || opc == NVMF_IO_WRITE || opc == NVMF_IO_WRITE_ZEROES))
		memcpy(e + NVMF_ERRLOG_LBA, req->sqe + NVMF_SQE_CDW10, 8);
	e[NVMF_ERRLOG_TRTYPE] = NVMF_TRTYPE_RDMA;
	if (req->status >> 8 == NVMF_SCT_MEDIA)
		ctrl->media_errors++;
}

/* The Error Information log: the entries recorded, newest first. */
static uint32_t
log_errors(const struct nvmf_ctrl *ctrl, uint8_t *page)
{
	uint64_t i, n = RTE_MIN(ctrl->errors, (uint64_t)NVMF_ERRLOG_MAX);

	for (i = 0; i < n; i++)
		memcpy(page + i * NVMF_ERRLOG_ENTRY_LEN,
		       ctrl->errlog[(ctrl->errors - 1 - i) % NVMF_ERRLOG_MAX], NVMF_ERRLOG_ENTRY_LEN);
	return NVMF_ERRLOG_MAX * NVMF_ERRLOG_ENTRY_LEN;
}

/* SMART / Health Information: all zero but the error counters. */
static uint32_t
log_smart(const struct nvmf_ctrl *ctrl, uint8_t *page)
{
	nvmf_put64(page, NVMF_SMART_MEDIA_ERRORS, ctrl->media_errors);
	nvmf_put64(page, NVMF_SMART_ERRLOG_ENTRIES, ctrl->errors);
	return NVMF_LOG_PAGE_LEN;
}

/* The page's length, and its bytes written to page (zeroed, at least that long). */
static uint32_t
log_page_build(struct nvmf_req *req, uint8_t lid, uint8_t *page)
{
	if (req->q->ctrl->subsys->discovery)
		return lid == NVMF_LOG_DISCOVERY ? log_discovery(req->q->ctrl, req->q->listener, page) : 0;
	switch (lid) {
	case NVMF_LOG_ERROR:
		return log_errors(req->q->ctrl, page);
	case NVMF_LOG_SMART:
		return log_smart(req->q->ctrl, page);
	case NVMF_LOG_FW_SLOT:
		page[0] = 1;	/* slot 1 active */
		put_str(page + NVMF_FW_SLOT1, 8, NVMF_VERSION_STR);
		return NVMF_LOG_PAGE_LEN;
	case NVMF_LOG_CHANGED_NS:
		return log_changed_ns(req->q->ctrl, page,
				      nvmf_get32(req->sqe, NVMF_SQE_CDW10) & NVMF_LOG_RAE);
	default:
		return 0;
	}
}

/* Get Log Page: NUMD dwords (0's based, CDW10 high and CDW11 low) from offset LPO. */
static void
admin_get_log_page(struct nvmf_req *req)
{
	uint32_t cdw10 = nvmf_get32(req->sqe, NVMF_SQE_CDW10);
	uint32_t numd = ((nvmf_get32(req->sqe, NVMF_SQE_CDW11) & 0xffff) << 16 | cdw10 >> 16) + 1;
	uint64_t off = nvmf_get64(req->sqe, NVMF_SQE_CDW12);
	uint8_t page[NVMF_LOG_PAGE_MAX] = { 0 };
	uint64_t len = (uint64_t)numd * 4;
	uint32_t page_len;
	uint8_t *d;

	page_len = log_page_build(req, cdw10 & 0xff, page);
	if (page_len == 0) {
		nvmf_req_fail(req, NVMF_SC_INVALID_LOG_PAGE);
		return;
	}
	if (off % 4 != 0 || off > page_len) {
		nvmf_req_fail(req, NVMF_SC_INVALID_FIELD);
		return;
	}
	d = admin_data(req, (uint32_t)RTE_MIN(len, (uint64_t)UINT32_MAX));
	if (d != NULL)	/* beyond the page: zeroes */
		memcpy(d, page + off, RTE_MIN(len, page_len - off));
}

/*
 * A namespace notice completes an Asynchronous Event Request (Base 2.0,
 * "Asynchronous Event Request"): DW0 says Notice, Namespace Attribute
 * Changed, log page 04h; further notices stay masked until the host reads
 * that page. With no request held, the event waits for the next one.
 */
static void
aen_complete(struct nvmf_ctrl *ctrl, struct nvmf_req *req)
{
	ctrl->aen_pending = false;
	ctrl->aen_masked = true;
	ctrl->tgt->stats.aens++;
	req->dw0 = NVMF_AEN_DW0(NVMF_AEN_TYPE_NOTICE, NVMF_AEN_NS_ATTR_CHANGED,
				NVMF_LOG_CHANGED_NS);
	req->state = NVMF_REQ_RESPOND;
}

void
nvmf_ctrl_ns_changed(struct nvmf_ctrl *ctrl, uint32_t nsid)
{
	struct nvmf_req *req;

	ctrl->changed_ns |= NVMF_NS_BIT(nsid);
	if (!(ctrl->aec & NVMF_AEC_NS_ATTR) || ctrl->aen_masked)
		return;	/* the host reads the list when it wants, or was told already */
	ctrl->aen_pending = true;
	if (ctrl->nb_aers == 0)
		return;	/* the next request takes it */
	req = ctrl->aer[0];	/* the oldest */
	nvmf_ctrl_aer_forget(ctrl, req);
	aen_complete(ctrl, req);
	nvmf_req_run(req);
}

/* The held request goes without an answer (its queue is torn down): forget it. */
void
nvmf_ctrl_aer_forget(struct nvmf_ctrl *ctrl, const struct nvmf_req *req)
{
	uint32_t i;

	for (i = 0; i < ctrl->nb_aers; i++)
		if (ctrl->aer[i] == req) {
			memmove(ctrl->aer + i, ctrl->aer + i + 1,
				(--ctrl->nb_aers - i) * sizeof(ctrl->aer[0]));
			return;
		}
}

/*
 * Controller reset (CC.EN 1 to 0): the held requests are answered
 * Command Abort Requested, as the reset aborts outstanding commands
 * (Base 2.0, "Controller Level Reset"); the admin queue stays over Fabrics.
 */
void
nvmf_ctrl_aer_abort(struct nvmf_ctrl *ctrl)
{
	while (ctrl->nb_aers != 0) {
		struct nvmf_req *req = ctrl->aer[--ctrl->nb_aers];

		ctrl->tgt->stats.aers_aborted++;
		nvmf_req_fail(req, NVMF_SC_ABORT_REQUESTED);
		nvmf_req_run(req);
	}
	ctrl->aen_pending = false;
}

static void
admin_async_event(struct nvmf_req *req)
{
	struct nvmf_ctrl *ctrl = req->q->ctrl;

	if (ctrl->nb_aers == RTE_DIM(ctrl->aer)) {
		nvmf_req_fail(req, NVMF_SC_AER_LIMIT);
		return;
	}
	if (ctrl->aen_pending) {
		aen_complete(ctrl, req);	/* an event waited for a request */
		return;
	}
	ctrl->aer[ctrl->nb_aers++] = req;
	req->state = NVMF_REQ_AER_WAIT;	/* answered when an event comes */
}

void
nvmf_admin_exec(struct nvmf_req *req)
{
	switch (req->sqe[NVMF_SQE_OPC]) {
	case NVMF_ADM_IDENTIFY:
		admin_identify(req);
		break;
	case NVMF_ADM_SET_FEATURES:
		admin_features(req, true);
		break;
	case NVMF_ADM_GET_FEATURES:
		admin_features(req, false);
		break;
	case NVMF_ADM_GET_LOG_PAGE:
		admin_get_log_page(req);
		break;
	case NVMF_ADM_KEEP_ALIVE:
		break;	/* the timer was restarted when the command came */
	case NVMF_ADM_ASYNC_EVENT:
		admin_async_event(req);
		break;
	default:
		nvmf_req_fail(req, NVMF_SC_INVALID_OPCODE);
		break;
	}
}
