/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef DUMP_MAD_H
#define DUMP_MAD_H

/*
 * Decoding of the management datagrams (MADs) carried by UD SENDs to QP1,
 * enough to follow an rdma_cm connection: the common MAD header and, for the
 * communication manager class, the attribute and a few fields of REQ, REP,
 * LAP (the alternate path asked) and APR (its status).
 * The layouts are librte_roce's (rte_roce_mad.h).
 */

#include <stdint.h>
#include <stdio.h>

/* CM attributes, in attribute ID order from REQ (RTE_ROCE_CM_ATTR_REQ). */
enum dump_cm_attr {
	DUMP_CM_REQ,
	DUMP_CM_MRA,
	DUMP_CM_REJ,
	DUMP_CM_REP,
	DUMP_CM_RTU,
	DUMP_CM_DREQ,
	DUMP_CM_DREP,
	DUMP_CM_SIDR_REQ,
	DUMP_CM_SIDR_REP,
	DUMP_CM_LAP,
	DUMP_CM_APR,
	DUMP_CM_ATTR_MAX
};

/* A decoded common MAD header; data points into the caller's buffer. */
struct dump_mad {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
	const uint8_t *data;	/* class-specific data after the header */
	uint32_t data_len;
};

/* Decodes the MAD header at buf; 0, or -EINVAL if len is too short. */
int dump_mad_decode(const uint8_t *buf, uint32_t len, struct dump_mad *mad);

/* The CM attribute of a CM-class MAD, or DUMP_CM_ATTR_MAX if it is none. */
enum dump_cm_attr dump_mad_cm_attr(const struct dump_mad *mad);

/* "REQ", "REP", ...; NULL for DUMP_CM_ATTR_MAX. */
const char *dump_cm_attr_name(enum dump_cm_attr attr);

/* One-line summary after the frame line, e.g. "MAD CM REQ tid 0x..". */
void dump_mad_print_brief(FILE *out, const struct dump_mad *mad);

/* Detail lines (-v): the whole header and key REQ/REP fields. */
void dump_mad_print_detail(FILE *out, const struct dump_mad *mad);

#endif /* DUMP_MAD_H */
