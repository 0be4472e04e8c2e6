/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef DUMP_PRINT_H
#define DUMP_PRINT_H

/*
 * Text output, one line per frame, tcpdump-like:
 *   INDEX SEC.NSEC IPv4 SRC.SPORT > DST.DPORT: OPCODE qp QPN psn PSN ... icrc ok
 * With -v, tab-indented lines follow: the pcapng interface, every header field.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_roce_pkt.h>

#include "dump.h"
#include "dump_mad.h"

/* What starts every line of a frame. */
struct dump_line {
	FILE *out;
	const struct dump_record *rec;	/* index (1-based, as in Wireshark), time, interface */
	const struct dump_flow *df;
	unsigned int verbose;		/* -v: detail lines, the pcapng interface first */
};

/* A frame that is not RoCEv2: one short line. */
void dump_print_other(const struct dump_line *line, uint32_t caplen);

/* A RoCEv2 frame the capture's snaplen cut short. */
void dump_print_snapped(const struct dump_line *line, uint32_t caplen,
			uint32_t origlen);

/* A RoCEv2-addressed frame the strict parser rejected. */
void dump_print_malformed(const struct dump_line *line,
			  enum rte_roce_drop_reason reason);

/* A parsed RoCEv2 frame; mad is NULL unless it carries a QP1 MAD. */
void dump_print_roce(const struct dump_line *line,
		     const uint8_t *frame, const struct rte_roce_pkt *pkt,
		     enum dump_icrc icrc, const struct dump_mad *mad);

#endif /* DUMP_PRINT_H */
