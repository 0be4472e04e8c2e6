/* SPDX-License-Identifier: BSD-3-Clause */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

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
 * (research-anchors.md §3.3; K:include/rdma/ibta_vol1_c12.h).
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

#define CM_PATH_MTU_SHIFT	4
#define GID_LEN			16

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

static uint16_t
get_be16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_16(v);
}

static uint32_t
get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t
get_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_32(v);
}

static uint64_t
get_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_64(v);
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
	mad->status = get_be16(buf + MAD_OFF_STATUS);
	mad->class_specific = get_be16(buf + MAD_OFF_CLASS_SPECIFIC);
	mad->tid = get_be64(buf + MAD_OFF_TID);
	mad->attr_id = get_be16(buf + MAD_OFF_ATTR_ID);
	mad->attr_mod = get_be32(buf + MAD_OFF_ATTR_MOD);
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

static void
print_gid(FILE *out, const char *label, const uint8_t *gid)
{
	unsigned int i;

	fprintf(out, " %s ", label);
	for (i = 0; i < GID_LEN; i += 2)
		fprintf(out, "%s%02x%02x", i == 0 ? "" : ":", gid[i], gid[i + 1]);
}

/* rdma_cm's REQ: who connects to which service, with which QP and PSN. */
static void
print_cm_req(FILE *out, const uint8_t *d)
{
	fprintf(out, "\tCM REQ local_comm_id 0x%08x service_id 0x%016" PRIx64
		" local_ca_guid 0x%016" PRIx64 "\n",
		get_be32(d + CM_REQ_LOCAL_COMM_ID),
		get_be64(d + CM_REQ_SERVICE_ID),
		get_be64(d + CM_REQ_LOCAL_CA_GUID));
	fprintf(out, "\tCM REQ local_qpn 0x%06x starting_psn 0x%06x path_mtu %u",
		get_be24(d + CM_REQ_LOCAL_QPN),
		get_be24(d + CM_REQ_STARTING_PSN),
		d[CM_REQ_PATH_MTU] >> CM_PATH_MTU_SHIFT);
	print_gid(out, "sgid", d + CM_REQ_PRIMARY_LGID);
	print_gid(out, "dgid", d + CM_REQ_PRIMARY_RGID);
	fputc('\n', out);
}

static void
print_cm_rep(FILE *out, const uint8_t *d)
{
	fprintf(out, "\tCM REP local_comm_id 0x%08x remote_comm_id 0x%08x"
		" local_qpn 0x%06x starting_psn 0x%06x local_ca_guid 0x%016"
		PRIx64 "\n",
		get_be32(d + CM_REP_LOCAL_COMM_ID),
		get_be32(d + CM_REP_REMOTE_COMM_ID),
		get_be24(d + CM_REP_LOCAL_QPN),
		get_be24(d + CM_REP_STARTING_PSN),
		get_be64(d + CM_REP_LOCAL_CA_GUID));
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
	if (attr == DUMP_CM_REQ && mad->data_len >= CM_REQ_MIN_LEN)
		print_cm_req(out, mad->data);
	else if (attr == DUMP_CM_REP && mad->data_len >= CM_REP_MIN_LEN)
		print_cm_rep(out, mad->data);
	else if ((attr == DUMP_CM_SIDR_REQ || attr == DUMP_CM_SIDR_REP) &&
		 mad->data_len >= CM_SIDR_MIN_LEN)
		fprintf(out, "\tCM %s request_id 0x%08x\n",
			dump_cm_attr_name(attr), get_be32(mad->data));
	else if (attr != DUMP_CM_ATTR_MAX && mad->data_len >= CM_COMM_IDS_LEN)
		fprintf(out, "\tCM %s local_comm_id 0x%08x remote_comm_id 0x%08x\n",
			dump_cm_attr_name(attr), get_be32(mad->data),
			get_be32(mad->data + CM_REMOTE_COMM_ID));
}
