/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * One captured frame: classify it, run the library's strict parser and
 * ICRC check on RoCEv2 frames, decode QP1 MADs, count, print.
 */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_roce_icrc.h>
#include <rte_roce_pkt.h>
#include <rte_roce_verbs.h>

#include "dump.h"
#include "dump_print.h"

/*
 * Largest IB path MTU (IBV_MTU_4096, doc/wire-format.md §8.2): a capture does not
 * say which MTU its QPs use, so only what no MTU allows is malformed.
 */
#define DUMP_MTU_MAX		4096

static const char * const aeth_kind_names[DUMP_AETH_KIND_MAX] = {
	[DUMP_AETH_ACK] = "ack",
	[DUMP_AETH_RNR_NAK] = "rnr_nak",
	[DUMP_AETH_NAK_PSN_SEQ] = "psn_sequence_error",
	[DUMP_AETH_NAK_INV_REQ] = "invalid_request",
	[DUMP_AETH_NAK_REM_ACCESS] = "remote_access_error",
	[DUMP_AETH_NAK_REM_OP] = "remote_operational_error",
	[DUMP_AETH_NAK_INV_RD_REQ] = "invalid_rd_request",
	[DUMP_AETH_RESERVED] = "reserved",
};

/* Syndrome types and NAK codes: IBA 9.7.5.1, doc/wire-format.md §5. */
enum dump_aeth_kind
dump_aeth_kind(uint8_t syndrome)
{
	switch (syndrome & RTE_ROCE_AETH_TYPE_MASK) {
	case RTE_ROCE_AETH_TYPE_ACK:
		return DUMP_AETH_ACK;
	case RTE_ROCE_AETH_TYPE_RNR:
		return DUMP_AETH_RNR_NAK;
	case RTE_ROCE_AETH_TYPE_NAK:
		break;
	default:
		return DUMP_AETH_RESERVED;
	}
	switch (syndrome) {
	case RTE_ROCE_AETH_NAK_PSN_SEQ:
		return DUMP_AETH_NAK_PSN_SEQ;
	case RTE_ROCE_AETH_NAK_INV_REQ:
		return DUMP_AETH_NAK_INV_REQ;
	case RTE_ROCE_AETH_NAK_REM_ACCESS:
		return DUMP_AETH_NAK_REM_ACCESS;
	case RTE_ROCE_AETH_NAK_REM_OP:
		return DUMP_AETH_NAK_REM_OP;
	case RTE_ROCE_AETH_NAK_INV_RD_REQ:
		return DUMP_AETH_NAK_INV_RD_REQ;
	default:
		return DUMP_AETH_RESERVED;
	}
}

const char *
dump_aeth_kind_name(enum dump_aeth_kind kind)
{
	return kind < DUMP_AETH_KIND_MAX ? aeth_kind_names[kind] : NULL;
}

/* A UD SEND to QP1 carries a MAD for the general services (IBA 13.5.1). */
static bool
decode_mad(const uint8_t *frame, const struct rte_roce_pkt *pkt,
	   struct dump_mad *mad)
{
	if (pkt->info->transport != RTE_ROCE_TRANSPORT_UD ||
	    pkt->dqpn != RTE_ROCE_QP1_QPN)
		return false;
	return dump_mad_decode(frame + pkt->payload_off, pkt->payload_len,
			       mad) == 0;
}

static void
count_roce(struct dump_stats *st, const struct rte_roce_pkt *pkt,
	   const struct dump_mad *mad)
{
	enum dump_cm_attr attr;

	st->opcodes[pkt->opcode]++;
	if (pkt->info->hdr_mask & (UINT32_C(1) << RTE_ROCE_HDR_AETH))
		st->aeth[dump_aeth_kind(pkt->aeth.syndrome)]++;
	if (mad == NULL)
		return;
	st->mads++;
	attr = dump_mad_cm_attr(mad);
	if (attr != DUMP_CM_ATTR_MAX)
		st->cm[attr]++;
}

/*
 * The ICRC of a parsed frame: IBA A17's, or for a FLUSH the one Linux rxe
 * computes (librte_roce sends it with the quirk_rxe_flush_icrc key), or bad.
 */
static enum dump_icrc
frame_icrc(const uint8_t *frame, const struct rte_roce_pkt *pkt)
{
	uint32_t len = pkt->icrc_off - pkt->l3_off;
	uint32_t stored;

	if (rte_roce_icrc_check(frame + pkt->l3_off, len) == 0)
		return DUMP_ICRC_OK;
	if (pkt->opcode != RTE_ROCE_OP_RC_FLUSH)
		return DUMP_ICRC_BAD;
	memcpy(&stored, frame + pkt->icrc_off, sizeof(stored));
	return rte_le_to_cpu_32(stored) == rte_roce_icrc_calc_rxe_flush(frame + pkt->l3_off, len) ?
		DUMP_ICRC_RXE_FLUSH : DUMP_ICRC_BAD;
}

static void
dump_roce(const struct dump_opts *opts, struct dump_stats *st,
	  const struct dump_line *line, const uint8_t *frame,
	  uint32_t caplen, uint32_t origlen)
{
	struct rte_roce_pkt pkt;
	struct dump_mad mad;
	enum rte_roce_drop_reason reason;
	enum dump_icrc icrc;
	bool has_mad;

	st->roce++;
	if (line->df->ipv6)
		st->ipv6++;
	else
		st->ipv4++;
	if (line->df->vlans != 0)
		st->vlan++;
	/* The snaplen cut it: nothing wrong on the wire, nothing to check. */
	if (caplen < origlen) {
		st->snapped++;
		if (!opts->json)
			dump_print_snapped(line, caplen, origlen);
		return;
	}
	reason = rte_roce_pkt_parse(frame, caplen, DUMP_MTU_MAX, &pkt);
	if (reason != RTE_ROCE_DROP_NONE) {
		st->malformed++;
		st->drops[reason]++;
		if (!opts->json)
			dump_print_malformed(line, reason);
		return;
	}
	icrc = frame_icrc(frame, &pkt);
	if (icrc == DUMP_ICRC_OK)
		st->icrc_ok++;
	else if (icrc == DUMP_ICRC_RXE_FLUSH)
		st->icrc_rxe_flush++;
	else
		st->icrc_bad++;
	has_mad = decode_mad(frame, &pkt, &mad);
	count_roce(st, &pkt, has_mad ? &mad : NULL);
	if (!opts->json)
		dump_print_roce(line, frame, &pkt, icrc,
				has_mad ? &mad : NULL);
}

void
dump_frame(const struct dump_opts *opts, struct dump_stats *st,
	   const struct dump_record *rec)
{
	struct dump_flow df;
	struct dump_line line = {
		.out = stdout, .rec = rec, .df = &df, .verbose = opts->verbose,
	};

	st->frames++;
	dump_classify(rec->frame, rec->caplen, &df);
	if (df.cls == DUMP_CLASS_ROCE) {
		dump_roce(opts, st, &line, rec->frame, rec->caplen, rec->origlen);
		return;
	}
	st->non_roce++;
	if (!opts->json)
		dump_print_other(&line, rec->caplen);
}
