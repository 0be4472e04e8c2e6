/* SPDX-License-Identifier: BSD-3-Clause */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include <rte_roce_gid.h>

#include "dump_mad.h"

/* Common MAD header offsets (K:include/rdma/ib_mad.h struct ib_mad_hdr). */
#define MAD_OFF_BASE_VERSION	0
#define MAD_OFF_MGMT_CLASS	1
#define MAD_OFF_CLASS_VERSION	2
#define MAD_OFF_METHOD		3
#define MAD_OFF_STATUS		4
#define MAD_OFF_CLASS_SPECIFIC	6
#define MAD_OFF_TID		8
#define MAD_OFF_ATTR_ID		16
#define MAD_OFF_ATTR_MOD	20

/* Bit 7 of the method byte is the response bit (IBA 13.4.5). */
#define MAD_METHOD_RESP		0x80
#define MAD_METHOD_MASK		0x7f

/* First CM attribute ID: REQ (K:core/cm_msgs.h CM_REQ_ATTR_ID). */
#define CM_ATTR_ID_BASE		0x0010

/*
 * REQ and REP fields, offsets in the CM data after the MAD header
 * (doc/wire-format.md §12.3; K:include/rdma/ibta_vol1_c12.h).
 */
#define CM_REQ_LOCAL_COMM_ID	0
#define CM_REQ_SERVICE_ID	8
#define CM_REQ_LOCAL_CA_GUID	16
#define CM_REQ_LOCAL_QPN	32
#define CM_REQ_STARTING_PSN	44
#define CM_REQ_PATH_MTU		50	/* high nibble */
#define CM_REQ_PRIMARY_LGID	56
#define CM_REQ_PRIMARY_RGID	72
#define CM_REQ_MIN_LEN		88

#define CM_REP_LOCAL_COMM_ID	0
#define CM_REP_REMOTE_COMM_ID	4
#define CM_REP_LOCAL_QPN	12
#define CM_REP_STARTING_PSN	20
#define CM_REP_LOCAL_CA_GUID	28
#define CM_REP_MIN_LEN		36

/* SIDR messages start with a request ID; all others with both comm IDs. */
#define CM_SIDR_MIN_LEN		4
#define CM_REMOTE_COMM_ID	4
#define CM_COMM_IDS_LEN		8

/* QPNs and PSNs are 24-bit fields. */
#define CM_FIELD24_LEN		3
#define CM_PATH_MTU_SHIFT	4
/* Path MTU codes 1-5 are 256-4096 bytes: 1 << (7 + code) (RC:verbs.h ibv_mtu). */
#define CM_PATH_MTU_MIN		1
#define CM_PATH_MTU_MAX		5
#define CM_PATH_MTU_BASE_SHIFT	7

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

/* A big-endian field of n bytes (n <= 8), at any alignment. */
static uint64_t
get_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << CHAR_BIT | *p++;
	return v;
}

int
dump_mad_decode(const uint8_t *buf, uint32_t len, struct dump_mad *mad)
{
	if (len < DUMP_MAD_HDR_LEN)
		return -EINVAL;
	mad->base_version = buf[MAD_OFF_BASE_VERSION];
	mad->mgmt_class = buf[MAD_OFF_MGMT_CLASS];
	mad->class_version = buf[MAD_OFF_CLASS_VERSION];
	mad->method = buf[MAD_OFF_METHOD];
	mad->status = get_be(buf + MAD_OFF_STATUS, sizeof(uint16_t));
	mad->class_specific = get_be(buf + MAD_OFF_CLASS_SPECIFIC, sizeof(uint16_t));
	mad->tid = get_be(buf + MAD_OFF_TID, sizeof(uint64_t));
	mad->attr_id = get_be(buf + MAD_OFF_ATTR_ID, sizeof(uint16_t));
	mad->attr_mod = get_be(buf + MAD_OFF_ATTR_MOD, sizeof(uint32_t));
	mad->data = buf + DUMP_MAD_HDR_LEN;
	mad->data_len = len - DUMP_MAD_HDR_LEN;
	return 0;
}

enum dump_cm_attr
dump_mad_cm_attr(const struct dump_mad *mad)
{
	if (mad->mgmt_class != DUMP_MGMT_CLASS_CM ||
	    mad->attr_id < CM_ATTR_ID_BASE ||
	    mad->attr_id >= CM_ATTR_ID_BASE + DUMP_CM_ATTR_MAX)
		return DUMP_CM_ATTR_MAX;
	return (enum dump_cm_attr)(mad->attr_id - CM_ATTR_ID_BASE);
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

/* rdma_cm's REQ: who connects to which service, with which QP and PSN. */
static void
print_cm_req(FILE *out, const uint8_t *d)
{
	unsigned int mtu = d[CM_REQ_PATH_MTU] >> CM_PATH_MTU_SHIFT;

	fprintf(out, "\tCM REQ local_comm_id 0x%08" PRIx64 " service_id 0x%016"
		PRIx64 " local_ca_guid 0x%016" PRIx64 "\n",
		get_be(d + CM_REQ_LOCAL_COMM_ID, sizeof(uint32_t)),
		get_be(d + CM_REQ_SERVICE_ID, sizeof(uint64_t)),
		get_be(d + CM_REQ_LOCAL_CA_GUID, sizeof(uint64_t)));
	fprintf(out, "\tCM REQ local_qpn 0x%06" PRIx64 " starting_psn 0x%06"
		PRIx64 " path_mtu %u",
		get_be(d + CM_REQ_LOCAL_QPN, CM_FIELD24_LEN),
		get_be(d + CM_REQ_STARTING_PSN, CM_FIELD24_LEN), mtu);
	if (mtu >= CM_PATH_MTU_MIN && mtu <= CM_PATH_MTU_MAX)
		fprintf(out, " (%u)", 1u << (CM_PATH_MTU_BASE_SHIFT + mtu));
	print_gid(out, "sgid", d + CM_REQ_PRIMARY_LGID);
	print_gid(out, "dgid", d + CM_REQ_PRIMARY_RGID);
	fputc('\n', out);
}

static void
print_cm_rep(FILE *out, const uint8_t *d)
{
	fprintf(out, "\tCM REP local_comm_id 0x%08" PRIx64 " remote_comm_id 0x%08"
		PRIx64 " local_qpn 0x%06" PRIx64 " starting_psn 0x%06" PRIx64
		" local_ca_guid 0x%016" PRIx64 "\n",
		get_be(d + CM_REP_LOCAL_COMM_ID, sizeof(uint32_t)),
		get_be(d + CM_REP_REMOTE_COMM_ID, sizeof(uint32_t)),
		get_be(d + CM_REP_LOCAL_QPN, CM_FIELD24_LEN),
		get_be(d + CM_REP_STARTING_PSN, CM_FIELD24_LEN),
		get_be(d + CM_REP_LOCAL_CA_GUID, sizeof(uint64_t)));
}

void
dump_mad_print_detail(FILE *out, const struct dump_mad *mad)
{
	enum dump_cm_attr attr = dump_mad_cm_attr(mad);

	fprintf(out, "\tMAD base_version %u mgmt_class 0x%02x class_version %u"
		" method 0x%02x%s status 0x%04x tid 0x%016" PRIx64
		" attr_id 0x%04x attr_mod 0x%08x\n",
		mad->base_version, mad->mgmt_class, mad->class_version,
		mad->method & MAD_METHOD_MASK,
		(mad->method & MAD_METHOD_RESP) ? " (response)" : "",
		mad->status, mad->tid, mad->attr_id, mad->attr_mod);

	/* Each field is printed only when the frame really carries it. */
	switch (attr) {
	case DUMP_CM_REQ:
		if (mad->data_len >= CM_REQ_MIN_LEN)
			print_cm_req(out, mad->data);
		break;
	case DUMP_CM_REP:
		if (mad->data_len >= CM_REP_MIN_LEN)
			print_cm_rep(out, mad->data);
		break;
	case DUMP_CM_SIDR_REQ:
	case DUMP_CM_SIDR_REP:
		if (mad->data_len >= CM_SIDR_MIN_LEN)
			fprintf(out, "\tCM %s request_id 0x%08" PRIx64 "\n",
				dump_cm_attr_name(attr),
				get_be(mad->data, sizeof(uint32_t)));
		break;
	case DUMP_CM_ATTR_MAX:
		break;
	default:
		if (mad->data_len >= CM_COMM_IDS_LEN)
			fprintf(out, "\tCM %s local_comm_id 0x%08" PRIx64
				" remote_comm_id 0x%08" PRIx64 "\n",
				dump_cm_attr_name(attr),
				get_be(mad->data, sizeof(uint32_t)),
				get_be(mad->data + CM_REMOTE_COMM_ID,
				       sizeof(uint32_t)));
		break;
	}
}
