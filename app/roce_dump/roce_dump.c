/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * roce_dump: a tcpdump for RoCEv2. Decodes every frame of classic pcap
 * captures with librte_roce's strict parser, checks each ICRC, names opcodes,
 * AETH codes and CM MADs, and says whether the capture is clean (exit 0).
 * It works on flat buffers: no EAL, no hugepages, no privileges.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_roce_pcap.h>

#include "dump.h"

static const char usage_text[] =
	"usage: roce_dump [--json] [-v] FILE.pcap...\n"
	"Decode RoCEv2 frames of classic pcap files (Ethernet) and verify their ICRC.\n"
	"\n"
	"  -j, --json     one JSON summary object per file, one per line\n"
	"  -v, --verbose  one line per header, MAD and CM detail\n"
	"  -h, --help     this help\n"
	"\n"
	"Exit status: 0 every RoCEv2 frame well formed with a good ICRC;\n"
	"1 a malformed RoCEv2 frame or a bad ICRC; 2 bad usage or a file that\n"
	"is not a readable Ethernet pcap (all files are still processed).\n";

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *
open_error(int err)
{
	switch (err) {
	case EINVAL:
		return "not a classic pcap file, or its header is corrupt";
	case ENOTSUP:
		return "unsupported link type (only Ethernet captures are decoded)";
	default:
		return strerror(err);
	}
}

/* Decodes every record; returns why the file is unusable, or NULL. */
static const char *
dump_records(struct rte_roce_pcap *pcap, const char *path,
	     const struct dump_opts *opts, struct dump_stats *st)
{
	const uint8_t *frame;
	uint32_t caplen, origlen;
	uint64_t ts_ns;
	const char *error = NULL;
	int rc;

	while ((rc = rte_roce_pcap_next(pcap, &frame, &caplen, &origlen,
					&ts_ns)) == 1)
		dump_frame(opts, st, st->frames + 1, ts_ns, frame, caplen,
			   origlen);
	if (rc < 0) {
		error = "truncated or corrupt pcap record";
		fprintf(stderr, "roce_dump: %s: %s after frame %" PRIu64 "\n",
			path, error, st->frames);
	}
	rc = rte_roce_pcap_close(pcap);
	if (rc < 0 && error == NULL) {
		error = strerror(-rc);
		fprintf(stderr, "roce_dump: %s: %s\n", path, error);
	}
	return error;
}

/* Reads one capture; returns its exit status. */
static enum dump_exit
dump_file(const char *path, const struct dump_opts *opts, struct dump_json *js)
{
	struct rte_roce_pcap *pcap;
	struct dump_stats *st;
	const char *error;
	enum dump_exit status;

	pcap = rte_roce_pcap_open(path);
	if (pcap == NULL) {
		error = open_error(rte_errno);
		fprintf(stderr, "roce_dump: %s: %s\n", path, error);
		if (opts->json)
			dump_summary_json(js, path, NULL, error);
		return DUMP_EXIT_UNUSABLE;
	}
	/* Per-opcode and per-reason arrays: too big to want on the stack. */
	st = calloc(1, sizeof(*st));
	if (st == NULL) {
		fprintf(stderr, "roce_dump: %s: %s\n", path, strerror(ENOMEM));
		rte_roce_pcap_close(pcap);
		return DUMP_EXIT_UNUSABLE;
	}
	error = dump_records(pcap, path, opts, st);
	status = error != NULL ? DUMP_EXIT_UNUSABLE : dump_stats_exit(st);
	if (opts->json)
		dump_summary_json(js, path, st, error);
	else
		dump_summary_text(stdout, path, st);
	free(st);
	return status;
}

int
main(int argc, char **argv)
{
	struct dump_opts opts = { 0 };
	struct dump_json js;
	enum dump_exit status = DUMP_EXIT_OK;
	int opt, i;

	while ((opt = getopt_long(argc, argv, "jvh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			opts.json = true;
			break;
		case 'v':
			opts.verbose++;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return DUMP_EXIT_OK;
		default:
			fputs(usage_text, stderr);
			return DUMP_EXIT_UNUSABLE;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "roce_dump: no capture file given\n%s", usage_text);
		return DUMP_EXIT_UNUSABLE;
	}

	dump_json_init(&js, stdout);
	for (i = optind; i < argc; i++)
		status = RTE_MAX(status, dump_file(argv[i], &opts, &js));
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "roce_dump: write error on stdout: %s\n",
			strerror(errno));
		return DUMP_EXIT_UNUSABLE;
	}
	return status;
}
