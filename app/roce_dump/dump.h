/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef DUMP_H
#define DUMP_H

/*
 * roce_dump internals: options, the classification of a captured frame, and
 * the counters kept per file. Per-frame work lives in dump_frame.c, text
 * output in dump_print.c, the summaries in dump_summary.c, MADs in dump_mad.c.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>

#include <rte_roce_pkt.h>

#include "dump_json.h"
#include "dump_mad.h"
#include "dump_read.h"

/* Exit statuses; with several files the worst (largest) one wins. */
enum dump_exit {
	DUMP_EXIT_OK = 0,		/* every RoCEv2 frame well formed, ICRC good */
	DUMP_EXIT_BAD_FRAMES = 1,	/* a malformed frame or a bad ICRC (rxe's FLUSH ICRC too) */
	DUMP_EXIT_UNUSABLE = 2,		/* usage error, bad filter, or an unusable capture */
};

struct dump_opts {
	bool json;		/* per-file JSON summaries instead of text */
	unsigned int verbose;	/* -v: one line per header, MAD detail */
};

/* Where a frame stops being something roce_dump decodes. */
enum dump_class {
	DUMP_CLASS_L2,		/* not IP (ARP, LLDP, ...) or cut before IP */
	DUMP_CLASS_IP,		/* IP, but not UDP to the RoCEv2 port */
	DUMP_CLASS_ROCE,	/* IPv4/IPv6 UDP to port 4791: a RoCEv2 frame */
};

/* Addresses and protocols of a frame, found without judging its validity. */
struct dump_flow {
	enum dump_class cls;
	uint16_t ether_type;	/* after the VLAN tags */
	unsigned int vlans;
	bool ipv6;
	uint8_t l4_proto;
	bool has_ports;		/* UDP or TCP header present */
	uint16_t sport;
	uint16_t dport;
	bool has_icmp_type;	/* ICMP or ICMPv6 header present */
	uint8_t icmp_type;
	char src[INET6_ADDRSTRLEN];
	char dst[INET6_ADDRSTRLEN];
};

/* AETH kinds counted in the summary: ACK, RNR NAK, each NAK code. */
enum dump_aeth_kind {
	DUMP_AETH_ACK,
	DUMP_AETH_RNR_NAK,
	DUMP_AETH_NAK_PSN_SEQ,
	DUMP_AETH_NAK_INV_REQ,
	DUMP_AETH_NAK_REM_ACCESS,
	DUMP_AETH_NAK_REM_OP,
	DUMP_AETH_NAK_INV_RD_REQ,
	DUMP_AETH_RESERVED,
	DUMP_AETH_KIND_MAX
};

#define DUMP_NB_OPCODES		(UINT8_MAX + 1)

/* What a frame's ICRC is. */
enum dump_icrc {
	DUMP_ICRC_OK,		/* IBA A17's */
	DUMP_ICRC_BAD,
	DUMP_ICRC_RXE_FLUSH,	/* a FLUSH's, as Linux rxe computes it (doc/interop.md) */
};

/* Counters of one capture file. */
struct dump_stats {
	struct dump_read_counts read;	/* what was not decoded, and why */
	uint64_t frames;
	uint64_t non_roce;
	uint64_t snapped;	/* RoCEv2 frames cut by the capture's snaplen */
	uint64_t roce;		/* RoCEv2 frames, malformed ones included */
	uint64_t ipv4;
	uint64_t ipv6;
	uint64_t vlan;
	uint64_t icrc_ok;
	uint64_t icrc_bad;
	/* FLUSHes with Linux rxe's ICRC (rte_roce_icrc_calc_rxe_flush()), not in icrc_bad */
	uint64_t icrc_rxe_flush;
	uint64_t malformed;
	uint64_t mads;
	uint64_t opcodes[DUMP_NB_OPCODES];	/* well-formed frames only */
	uint64_t cm[DUMP_CM_ATTR_MAX];
	uint64_t aeth[DUMP_AETH_KIND_MAX];
	uint64_t drops[RTE_ROCE_DROP_REASON_MAX];
};

/* dump_classify.c */
void dump_classify(const uint8_t *frame, uint32_t len, struct dump_flow *df);

/* dump_frame.c */
enum dump_aeth_kind dump_aeth_kind(uint8_t syndrome);
const char *dump_aeth_kind_name(enum dump_aeth_kind kind);
void dump_frame(const struct dump_opts *opts, struct dump_stats *st,
		const struct dump_record *rec);

/* dump_summary.c */
void dump_summary_text(FILE *out, const char *path, const struct dump_stats *st);
void dump_summary_json(struct dump_json *js, const char *path,
		       const struct dump_stats *st, const char *error);
enum dump_exit dump_stats_exit(const struct dump_stats *st);

#endif /* DUMP_H */
