/* SPDX-License-Identifier: BSD-3-Clause */

#include <inttypes.h>

#include <rte_common.h>
#include <rte_roce_pkt.h>

#include "dump.h"

/* "0x11": opcode keys are lower-case hex, two digits. */
#define OPCODE_KEY_LEN		sizeof("0xff")

/* Adapters from counter index to name, for the counter maps. */
static const char *
drop_name(unsigned int i)
{
	return rte_roce_drop_reason_name(i);
}

static const char *
aeth_name(unsigned int i)
{
	return dump_aeth_kind_name(i);
}

static const char *
cm_name(unsigned int i)
{
	return dump_cm_attr_name(i);
}

enum dump_exit
dump_stats_exit(const struct dump_stats *st)
{
	return (st->malformed != 0 || st->icrc_bad != 0 || st->icrc_rxe_flush != 0) ?
		DUMP_EXIT_BAD_FRAMES : DUMP_EXIT_OK;
}

/* One "path:   what name: count" line per non-zero counter. */
static void
text_counters(FILE *out, const char *path, const char *what,
	      const uint64_t *counts, unsigned int nb,
	      const char *(*name)(unsigned int))
{
	unsigned int i;

	for (i = 0; i < nb; i++)
		if (counts[i] != 0)
			fprintf(out, "%s:   %s %s: %" PRIu64 "\n", path, what,
				name(i), counts[i]);
}

void
dump_summary_text(FILE *out, const char *path, const struct dump_stats *st)
{
	fprintf(out, "%s: %" PRIu64 " frames, %" PRIu64 " RoCEv2 (icrc ok %"
		PRIu64 ", icrc bad %" PRIu64 ", malformed %" PRIu64 "), %"
		PRIu64 " non-RoCE",
		path, st->frames, st->roce, st->icrc_ok, st->icrc_bad,
		st->malformed, st->non_roce);
	if (st->icrc_rxe_flush != 0)
		fprintf(out, ", %" PRIu64 " FLUSH with Linux rxe's ICRC", st->icrc_rxe_flush);
	if (st->snapped != 0)
		fprintf(out, ", %" PRIu64 " cut by snaplen", st->snapped);
	if (st->read.skipped != 0)
		fprintf(out, ", %" PRIu64 " skipped (interface not Ethernet)", st->read.skipped);
	if (st->read.filtered != 0)
		fprintf(out, ", %" PRIu64 " not matching the filter", st->read.filtered);
	if (st->read.unknown_blocks != 0)
		fprintf(out, ", %" PRIu64 " pcapng blocks of unknown type skipped",
			st->read.unknown_blocks);
	fputc('\n', out);
	text_counters(out, path, "malformed", st->drops, RTE_DIM(st->drops),
		      drop_name);
	text_counters(out, path, "AETH", st->aeth, RTE_DIM(st->aeth),
		      aeth_name);
	text_counters(out, path, "CM", st->cm, RTE_DIM(st->cm), cm_name);
}

static void
json_opcodes(struct dump_json *js, const struct dump_stats *st)
{
	char key[OPCODE_KEY_LEN];
	unsigned int i;

	dump_json_key(js, "opcodes");
	dump_json_object_begin(js);
	for (i = 0; i < RTE_DIM(st->opcodes); i++) {
		if (st->opcodes[i] == 0)
			continue;
		snprintf(key, sizeof(key), "0x%02x", i);
		dump_json_member_u64(js, key, st->opcodes[i]);
	}
	dump_json_object_end(js);
}

/* A map of the non-zero counters of an array, keyed by their names. */
static void
json_counter_map(struct dump_json *js, const char *key, const uint64_t *counts,
		 unsigned int nb, const char *(*name)(unsigned int))
{
	unsigned int i;

	dump_json_key(js, key);
	dump_json_object_begin(js);
	for (i = 0; i < nb; i++)
		if (counts[i] != 0)
			dump_json_member_u64(js, name(i), counts[i]);
	dump_json_object_end(js);
}

void
dump_summary_json(struct dump_json *js, const char *path,
		  const struct dump_stats *st, const char *error)
{
	dump_json_object_begin(js);
	dump_json_member_string(js, "file", path);
	if (error != NULL)
		dump_json_member_string(js, "error", error);
	/* A file that could not be opened has no counters at all. */
	if (st != NULL) {
		dump_json_member_string(js, "format", st->read.pcapng ? "pcapng" : "pcap");
		dump_json_member_u64(js, "interfaces", st->read.interfaces);
		dump_json_member_u64(js, "skipped", st->read.skipped);
		dump_json_member_u64(js, "filtered", st->read.filtered);
		dump_json_member_u64(js, "unknown_blocks", st->read.unknown_blocks);
		dump_json_member_u64(js, "frames", st->frames);
		dump_json_member_u64(js, "roce", st->roce);
		dump_json_member_u64(js, "non_roce", st->non_roce);
		dump_json_member_u64(js, "snapped", st->snapped);
		dump_json_member_u64(js, "ipv4", st->ipv4);
		dump_json_member_u64(js, "ipv6", st->ipv6);
		dump_json_member_u64(js, "vlan", st->vlan);
		dump_json_member_u64(js, "icrc_ok", st->icrc_ok);
		dump_json_member_u64(js, "icrc_bad", st->icrc_bad);
		dump_json_member_u64(js, "icrc_rxe_flush", st->icrc_rxe_flush);
		dump_json_member_u64(js, "malformed", st->malformed);
		json_counter_map(js, "malformed_reasons", st->drops,
				 RTE_DIM(st->drops), drop_name);
		json_opcodes(js, st);
		json_counter_map(js, "aeth", st->aeth, RTE_DIM(st->aeth),
				 aeth_name);
		dump_json_member_u64(js, "mads", st->mads);
		json_counter_map(js, "cm", st->cm, RTE_DIM(st->cm), cm_name);
	}
	dump_json_object_end(js);
}
