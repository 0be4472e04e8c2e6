/* SPDX-License-Identifier: BSD-3-Clause */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_roce_gid.h>
#include <rte_roce_mad.h>

#include "dump_mad.h"

/* Path MTU codes 1-5 are 256-4096 bytes: 1 << (7 + code) (RC:verbs.h ibv_mtu). */
#define CM_PATH_MTU_MIN		1
#define CM_PATH_MTU_MAX		5
#define CM_PATH_MTU_BASE_SHIFT	7

/* SIDR messages start with a request ID; all others with both comm IDs. */
#define CM_SIDR_MIN_LEN		offsetof(struct rte_roce_cm_sidr_req, pkey)
#define CM_COMM_IDS_LEN		offsetof(struct rte_roce_cm_rtu, private_data)
/* The REQ fields printed end with the primary path's remote GID. */
#define CM_REQ_MIN_LEN		offsetof(struct rte_roce_cm_req, primary.flow_label_rate)
#define CM_REP_MIN_LEN		offsetof(struct rte_roce_cm_rep, private_data)
#define CM_SIDR_REP_MIN_LEN	offsetof(struct rte_roce_cm_sidr_rep, add_info)
/* The LAP fields printed end with the alternate remote GID; the APR's with its status. */
#define CM_LAP_MIN_LEN		offsetof(struct rte_roce_cm_lap, alt_flow_label_tc)
#define CM_APR_MIN_LEN		offsetof(struct rte_roce_cm_apr, resv)

/* AP status of an APR (IBTA Vol. 1 §12.6, Table 116), named as Linux's IB_CM_APR_*. */
static const char * const cm_apr_status_names[] = {
	[RTE_ROCE_CM_APR_SUCCESS] = "SUCCESS",
	[RTE_ROCE_CM_APR_INVALID_COMM_ID] = "INVALID_COMM_ID",
	[RTE_ROCE_CM_APR_UNSUPPORTED] = "UNSUPPORTED",
	[RTE_ROCE_CM_APR_REJECT] = "REJECT",
	[RTE_ROCE_CM_APR_REDIRECT] = "REDIRECT",
	[RTE_ROCE_CM_APR_IS_CURRENT] = "IS_CURRENT",
	[RTE_ROCE_CM_APR_INVALID_QPN_EECN] = "INVALID_QPN_EECN",
	[RTE_ROCE_CM_APR_INVALID_LID] = "INVALID_LID",
	[RTE_ROCE_CM_APR_INVALID_GID] = "INVALID_GID",
	[RTE_ROCE_CM_APR_INVALID_FLOW_LABEL] = "INVALID_FLOW_LABEL",
	[RTE_ROCE_CM_APR_INVALID_TCLASS] = "INVALID_TCLASS",
	[RTE_ROCE_CM_APR_INVALID_HOP_LIMIT] = "INVALID_HOP_LIMIT",
	[RTE_ROCE_CM_APR_INVALID_PACKET_RATE] = "INVALID_PACKET_RATE",
	[RTE_ROCE_CM_APR_INVALID_SL] = "INVALID_SL",
};

static const char * const cm_attr_names[DUMP_CM_ATTR_MAX] = {
	[DUMP_CM_REQ] = "REQ",
	[DUMP_CM_MRA] = "MRA",
	[DUMP_CM_REJ] = "REJ",
	[DUMP_CM_REP] = "REP",
	[DUMP_CM_RTU] = "RTU",
	[DUMP_CM_DREQ] = "DREQ",
	[DUMP_CM_DREP] = "DREP",
	[DUMP_CM_SIDR_REQ] = "SIDR_REQ",
	[DUMP_CM_SIDR_REP] = "SIDR_REP",
	[DUMP_CM_LAP] = "LAP",
	[DUMP_CM_APR] = "APR",
};

int
dump_mad_decode(const uint8_t *buf, uint32_t len, struct dump_mad *mad)
{
	struct rte_roce_mad_hdr hdr;

	if (len < sizeof(hdr))
		return -EINVAL;
	memcpy(&hdr, buf, sizeof(hdr));
	mad->base_version = hdr.base_version;
	mad->mgmt_class = hdr.mgmt_class;
	mad->class_version = hdr.class_version;
	mad->method = hdr.method;
	mad->status = rte_be_to_cpu_16(hdr.status);
	mad->class_specific = rte_be_to_cpu_16(hdr.class_specific);
	mad->tid = rte_be_to_cpu_64(hdr.tid);
	mad->attr_id = rte_be_to_cpu_16(hdr.attr_id);
	mad->attr_mod = rte_be_to_cpu_32(hdr.attr_mod);
	mad->data = buf + sizeof(hdr);
	mad->data_len = len - sizeof(hdr);
	return 0;
}

enum dump_cm_attr
dump_mad_cm_attr(const struct dump_mad *mad)
{
	if (mad->mgmt_class != RTE_ROCE_MGMT_CLASS_CM ||
	    mad->attr_id < RTE_ROCE_CM_ATTR_REQ ||
	    mad->attr_id >= RTE_ROCE_CM_ATTR_REQ + DUMP_CM_ATTR_MAX)
		return DUMP_CM_ATTR_MAX;
	return (enum dump_cm_attr)(mad->attr_id - RTE_ROCE_CM_ATTR_REQ);
}

const char *
dump_cm_attr_name(enum dump_cm_attr attr)
{
	if (attr >= DUMP_CM_ATTR_MAX)
		return NULL;
	return cm_attr_names[attr];
}

void
dump_mad_print_brief(FILE *out, const struct dump_mad *mad)
{
	const char *name = dump_cm_attr_name(dump_mad_cm_attr(mad));

	if (name != NULL)
		fprintf(out, " MAD CM %s", name);
	else
		fprintf(out, " MAD class 0x%02x attr 0x%04x", mad->mgmt_class,
			mad->attr_id);
	fprintf(out, " tid 0x%016" PRIx64, mad->tid);
}

/* GIDs in text form: dotted IPv4 for the IPv4-mapped GIDs of RoCEv2. */
static void
print_gid(FILE *out, const char *label, const uint8_t *raw)
{
	union rte_roce_gid gid;
	char text[RTE_ROCE_GID_STRLEN];

	memcpy(&gid, raw, sizeof(gid));
	if (rte_roce_gid_format(&gid, text, sizeof(text)) == 0)
		fprintf(out, " %s %s", label, text);
}

/*
 * The class data of a CM MAD copied into a message of size bytes, zero
 * past the end of the frame (the callers print only the fields the frame
 * carries).
 */
static void
cm_msg_copy(void *msg, size_t size, const struct dump_mad *mad)
{
	memset(msg, 0, size);
	memcpy(msg, mad->data, RTE_MIN((size_t)mad->data_len, size));
}

/* rdma_cm's REQ: who connects to which service, with which QP and PSN. */
static void
print_cm_req(FILE *out, const struct dump_mad *mad)
{
	struct rte_roce_cm_req req;
	unsigned int mtu;

	cm_msg_copy(&req, sizeof(req), mad);
	mtu = req.mtu_rdc_rnr >> RTE_ROCE_CM_REQ_MTU_SHIFT;
	fprintf(out, "\tCM REQ local_comm_id 0x%08" PRIx32 " service_id 0x%016"
		PRIx64 " local_ca_guid 0x%016" PRIx64 "\n",
		rte_be_to_cpu_32(req.local_comm_id),
		rte_be_to_cpu_64(req.service_id),
		rte_be_to_cpu_64(req.local_ca_guid));
	fprintf(out, "\tCM REQ local_qpn 0x%06" PRIx32 " starting_psn 0x%06"
		PRIx32 " path_mtu %u",
		rte_be_to_cpu_32(req.qpn_resp_res) >> RTE_ROCE_CM_QPN_SHIFT,
		rte_be_to_cpu_32(req.psn_timeout_retry) >> RTE_ROCE_CM_PSN_SHIFT, mtu);
	if (mtu >= CM_PATH_MTU_MIN && mtu <= CM_PATH_MTU_MAX)
		fprintf(out, " (%u)", 1u << (CM_PATH_MTU_BASE_SHIFT + mtu));
	print_gid(out, "sgid", req.primary.local_gid);
	print_gid(out, "dgid", req.primary.remote_gid);
	fputc('\n', out);
}

static void
print_cm_rep(FILE *out, const struct dump_mad *mad)
{
	struct rte_roce_cm_rep rep;

	cm_msg_copy(&rep, sizeof(rep), mad);
	fprintf(out, "\tCM REP local_comm_id 0x%08" PRIx32 " remote_comm_id 0x%08"
		PRIx32 " local_qpn 0x%06" PRIx32 " starting_psn 0x%06" PRIx32
		" local_ca_guid 0x%016" PRIx64 "\n",
		rte_be_to_cpu_32(rep.local_comm_id),
		rte_be_to_cpu_32(rep.remote_comm_id),
		rte_be_to_cpu_32(rep.qpn_vendor_h) >> RTE_ROCE_CM_QPN_SHIFT,
		rte_be_to_cpu_32(rep.psn_vendor_l) >> RTE_ROCE_CM_PSN_SHIFT,
		rte_be_to_cpu_64(rep.local_ca_guid));
}

/* A LAP: which connection, and the alternate path it asks to load. */
static void
print_cm_lap(FILE *out, const struct dump_mad *mad)
{
	struct rte_roce_cm_lap lap;

	cm_msg_copy(&lap, sizeof(lap), mad);
	fprintf(out, "\tCM LAP local_comm_id 0x%08" PRIx32 " remote_comm_id 0x%08" PRIx32
		" remote_qpn 0x%06" PRIx32, rte_be_to_cpu_32(lap.local_comm_id),
		rte_be_to_cpu_32(lap.remote_comm_id),
		rte_be_to_cpu_32(lap.qpn_timeout) >> RTE_ROCE_CM_QPN_SHIFT);
	print_gid(out, "alt_sgid", lap.alt_local_gid);
	print_gid(out, "alt_dgid", lap.alt_remote_gid);
	fputc('\n', out);
}

/* An APR: which connection, and the AP status that answers its LAP. */
static void
print_cm_apr(FILE *out, const struct dump_mad *mad)
{
	struct rte_roce_cm_apr apr;

	cm_msg_copy(&apr, sizeof(apr), mad);
	fprintf(out, "\tCM APR local_comm_id 0x%08" PRIx32 " remote_comm_id 0x%08" PRIx32
		" ap_status %u", rte_be_to_cpu_32(apr.local_comm_id),
		rte_be_to_cpu_32(apr.remote_comm_id), apr.ap_status);
	if (apr.ap_status < RTE_DIM(cm_apr_status_names))
		fprintf(out, " (%s)", cm_apr_status_names[apr.ap_status]);
	fputc('\n', out);
}

static void
print_cm_sidr(FILE *out, const struct dump_mad *mad, enum dump_cm_attr attr)
{
	struct rte_roce_cm_sidr_req sidr;

	cm_msg_copy(&sidr, sizeof(sidr), mad);
	fprintf(out, "\tCM %s request_id 0x%08" PRIx32 "\n", dump_cm_attr_name(attr),
		rte_be_to_cpu_32(sidr.request_id));
}

/* A SIDR_REP: which request it answers, its status (IBTA Vol. 1 §12.11) and the service's QP. */
static void
print_cm_sidr_rep(FILE *out, const struct dump_mad *mad)
{
	struct rte_roce_cm_sidr_rep rep;

	cm_msg_copy(&rep, sizeof(rep), mad);
	fprintf(out, "\tCM SIDR_REP request_id 0x%08" PRIx32 " status %u qpn 0x%06" PRIx32
		" service_id 0x%016" PRIx64 " qkey 0x%08" PRIx32 "\n",
		rte_be_to_cpu_32(rep.request_id), rep.status,
		rte_be_to_cpu_32(rep.qpn_vendor_l) >> RTE_ROCE_CM_QPN_SHIFT,
		rte_be_to_cpu_64(rep.service_id), rte_be_to_cpu_32(rep.qkey));
}

static void
print_cm_comm_ids(FILE *out, const struct dump_mad *mad, enum dump_cm_attr attr)
{
	struct rte_roce_cm_rtu msg;

	cm_msg_copy(&msg, sizeof(msg), mad);
	fprintf(out, "\tCM %s local_comm_id 0x%08" PRIx32 " remote_comm_id 0x%08"
		PRIx32 "\n", dump_cm_attr_name(attr),
		rte_be_to_cpu_32(msg.local_comm_id), rte_be_to_cpu_32(msg.remote_comm_id));
}

void
dump_mad_print_detail(FILE *out, const struct dump_mad *mad)
{
	enum dump_cm_attr attr = dump_mad_cm_attr(mad);
	fprintf(out, "\tMAD base_version %u mgmt_class 0x%02x class_version %u"
		" method 0x%02x%s status 0x%04x tid 0x%016" PRIx64
		" attr_id 0x%04x attr_mod 0x%08x\n",
		mad->base_version, mad->mgmt_class, mad->class_version,
		mad->method & RTE_ROCE_MAD_METHOD_MASK,
		(mad->method & RTE_ROCE_MAD_METHOD_RESP) ? " (response)" : "",
		mad->status, mad->tid, mad->attr_id, mad->attr_mod);

	/* Each field is printed only when the frame really carries it. */
	switch (attr) {
	case DUMP_CM_REQ:
		if (mad->data_len >= CM_REQ_MIN_LEN)
			print_cm_req(out, mad);
		break;
	case DUMP_CM_REP:
		if (mad->data_len >= CM_REP_MIN_LEN)
			print_cm_rep(out, mad);
		break;
	case DUMP_CM_LAP:
		if (mad->data_len >= CM_LAP_MIN_LEN)
			print_cm_lap(out, mad);
		break;
	case DUMP_CM_APR:
		if (mad->data_len >= CM_APR_MIN_LEN)
			print_cm_apr(out, mad);
		break;
	case DUMP_CM_SIDR_REQ:
		if (mad->data_len >= CM_SIDR_MIN_LEN)
			print_cm_sidr(out, mad, attr);
		break;
	case DUMP_CM_SIDR_REP:
		if (mad->data_len >= CM_SIDR_REP_MIN_LEN)
			print_cm_sidr_rep(out, mad);
		else if (mad->data_len >= CM_SIDR_MIN_LEN)
			print_cm_sidr(out, mad, attr);
		break;
	case DUMP_CM_ATTR_MAX:
		break;
	default:
		if (mad->data_len >= CM_COMM_IDS_LEN)
			print_cm_comm_ids(out, mad, attr);
		break;
	}
}
