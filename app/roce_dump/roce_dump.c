/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * roce_dump: a tcpdump for RoCEv2. Reads pcap and pcapng captures with
 * libpcap (files or standard input, optionally through a BPF filter),
 * decodes every frame with librte_roce's strict parser, checks each ICRC,
 * names opcodes, AETH codes and CM MADs, and says whether the capture is
 * clean (exit 0). It works on flat buffers: no EAL, no hugepages, no
 * privileges.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pcap/pcap.h>

#include <rte_common.h>

#include "dump.h"
#include "dump_read.h"

/* libpcap's largest snapshot length for Ethernet (MAXIMUM_SNAPLEN). */
#define DUMP_SNAPLEN	262144

static const char usage_text[] =
	"usage: roce_dump [-j] [-v] FILE... [FILTER...]\n"
	"       roce_dump [-j] [-v] -r FILE [-r FILE]... [FILTER...]\n"
	"Decode the RoCEv2 frames of pcap and pcapng captures (Ethernet) and verify\n"
	"their ICRC.\n"
	"\n"
	"  FILE           a capture: pcapng or classic pcap; - reads standard input\n"
	"                 (dpdk-dumpcap -w - | roce_dump -)\n"
	"  FILTER         a BPF filter expression, as tcpdump takes it (pcap-filter(7)),\n"
	"                 e.g. 'udp port 4791 and host 198.18.0.11': only the frames it\n"
	"                 matches are decoded; tagged frames need 'vlan and ...'\n"
	"  -r FILE        read FILE; every argument that is not an option is then FILTER\n"
	"  -j, --json     one JSON summary object per file, one per line\n"
	"  -v, --verbose  one line per header, MAD and CM detail, the pcapng interface\n"
	"  -h, --help     this help\n"
	"\n"
	"Without -r, the arguments up to the last one that names an existing file (or\n"
	"is -) are the captures, and those after it the filter.\n"
	"\n"
	"Exit status: 0 every RoCEv2 frame well formed with a good ICRC;\n"
	"1 a malformed RoCEv2 frame or a bad ICRC (Linux rxe's FLUSH ICRC, shown as\n"
	"RXE-FLUSH, included); 2 bad usage, a bad filter, or a\n"
	"capture that cannot be used (all files are still processed).\n";

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The capture files and the filter expression of the command line. */
struct dump_args {
	const char **files;
	int nb_files;
	char **filter_words;
	int nb_filter_words;
};

/* Reads one capture; returns its exit status. */
static enum dump_exit
dump_file(const char *path, const struct dump_opts *opts, struct dump_json *js,
	  const struct bpf_program *filter)
{
	char error[PCAP_ERRBUF_SIZE + 32];
	struct dump_record rec;
	struct dump_read *r;
	struct dump_stats *st;
	enum dump_exit status;
	int rc;

	r = dump_read_open(path, filter, error, sizeof(error));
	if (r == NULL) {
		fprintf(stderr, "roce_dump: %s: %s\n", path, error);
		if (opts->json)
			dump_summary_json(js, path, NULL, error);
		return DUMP_EXIT_UNUSABLE;
	}
	/* Per-opcode and per-reason arrays: too big to want on the stack. */
	st = calloc(1, sizeof(*st));
	if (st == NULL) {
		fprintf(stderr, "roce_dump: %s: %s\n", path, strerror(ENOMEM));
		dump_read_close(r);
		return DUMP_EXIT_UNUSABLE;
	}
	while ((rc = dump_read_next(r, &rec)) == 1)
		dump_frame(opts, st, &rec);
	if (rc < 0) {
		snprintf(error, sizeof(error), "%s", dump_read_error(r));
		fprintf(stderr, "roce_dump: %s: %s (after frame %" PRIu64 ")\n", path, error,
			st->frames);
	}
	dump_read_counts(r, &st->read);
	dump_read_close(r);
	status = rc < 0 ? DUMP_EXIT_UNUSABLE : dump_stats_exit(st);
	if (opts->json)
		dump_summary_json(js, path, st, rc < 0 ? error : NULL);
	else
		dump_summary_text(stdout, path, st);
	free(st);
	return status;
}

static bool
is_capture_arg(const char *arg)
{
	struct stat sb;

	return strcmp(arg, "-") == 0 || stat(arg, &sb) == 0;
}

/* Without -r: files up to the last argument that names one, then the filter. */
static void
split_args(int argc, char **argv, struct dump_args *a)
{
	int last = optind, i;

	for (i = optind + 1; i < argc; i++)
		if (is_capture_arg(argv[i]))
			last = i;
	a->files = (const char **)&argv[optind];
	a->nb_files = last - optind + 1;
	a->filter_words = &argv[last + 1];
	a->nb_filter_words = argc - last - 1;
}

/*
 * Compile the filter's words, joined by spaces as tcpdump does, for
 * Ethernet: every frame roce_dump decodes is Ethernet. 0, or -1 after
 * saying why.
 */
static int
compile_filter(const struct dump_args *a, struct bpf_program *prog)
{
	size_t len = 1;
	pcap_t *dead;
	char *expr;
	int i, rc;

	for (i = 0; i < a->nb_filter_words; i++)
		len += strlen(a->filter_words[i]) + 1;
	expr = calloc(1, len);
	dead = pcap_open_dead(DLT_EN10MB, DUMP_SNAPLEN);
	if (expr == NULL || dead == NULL) {
		fprintf(stderr, "roce_dump: filter: %s\n", strerror(ENOMEM));
		free(expr);
		if (dead != NULL)
			pcap_close(dead);
		return -1;
	}
	for (i = 0; i < a->nb_filter_words; i++) {
		if (i > 0)
			strcat(expr, " ");
		strcat(expr, a->filter_words[i]);
	}
	rc = pcap_compile(dead, prog, expr, 1, PCAP_NETMASK_UNKNOWN);
	if (rc != 0)
		fprintf(stderr, "roce_dump: filter '%s': %s%s\n", expr, pcap_geterr(dead),
			strchr(expr, ' ') == NULL ? " (and no file has that name)" : "");
	pcap_close(dead);
	free(expr);
	return rc == 0 ? 0 : -1;
}

/* Options, then the files and the filter; -1, or the exit status if there is nothing to read. */
static int
parse_args(int argc, char **argv, struct dump_opts *opts, struct dump_args *a)
{
	int opt;

	while ((opt = getopt_long(argc, argv, "jvhr:", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			opts->json = true;
			break;
		case 'v':
			opts->verbose++;
			break;
		case 'r':
			a->files[a->nb_files++] = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return DUMP_EXIT_OK;
		default:
			fputs(usage_text, stderr);
			return DUMP_EXIT_UNUSABLE;
		}
	}
	if (a->nb_files > 0) {
		a->filter_words = &argv[optind];
		a->nb_filter_words = argc - optind;
	} else if (optind < argc) {
		split_args(argc, argv, a);
	} else {
		fprintf(stderr, "roce_dump: no capture file given\n%s", usage_text);
		return DUMP_EXIT_UNUSABLE;
	}
	return -1;
}

int
main(int argc, char **argv)
{
	struct dump_opts opts = { 0 };
	struct dump_args args = { 0 };
	struct bpf_program prog;
	struct dump_json js;
	const char **r_files;
	int status, i;

	/* -r FILE arguments: at most one per argument. */
	r_files = calloc(argc, sizeof(*r_files));
	if (r_files == NULL)
		return DUMP_EXIT_UNUSABLE;
	args.files = r_files;
	status = parse_args(argc, argv, &opts, &args);
	if (status < 0 && args.nb_filter_words > 0 && compile_filter(&args, &prog) != 0)
		status = DUMP_EXIT_UNUSABLE;
	if (status >= 0) {
		free(r_files);
		return status;
	}
	status = DUMP_EXIT_OK;
	dump_json_init(&js, stdout);
	for (i = 0; i < args.nb_files; i++)
		status = RTE_MAX(status, (int)dump_file(args.files[i], &opts, &js,
							args.nb_filter_words > 0 ? &prog : NULL));
	if (args.nb_filter_words > 0)
		pcap_freecode(&prog);
	free(r_files);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "roce_dump: write error on stdout: %s\n",
			strerror(errno));
		return DUMP_EXIT_UNUSABLE;
	}
	return status;
}
