/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef DUMP_READ_H
#define DUMP_READ_H

/*
 * Captures read with libpcap: classic pcap (either byte order, µs or ns) and
 * pcapng (several interfaces and sections), from a file or from standard
 * input ("-"), optionally through a BPF filter. Only Ethernet frames come
 * out: a classic pcap of another link type cannot be opened, and the frames
 * of a pcapng interface of another link type are skipped and counted.
 */

#include <stdbool.h>
#include <stdint.h>

#include <pcap/pcap.h>

/* One frame of a capture. */
struct dump_record {
	uint64_t index;		/* record number in the file, from 1, skipped ones included */
	uint64_t ts_ns;		/* capture time, ns since the epoch */
	const uint8_t *frame;	/* valid until the next call */
	uint32_t caplen;	/* bytes captured */
	uint32_t origlen;	/* bytes on the wire */
	int64_t ifindex;	/* pcapng interface in its section, -1 in classic pcap */
	const char *ifname;	/* its name (if_name option), or NULL */
	const char *ifdescr;	/* its if_description, else if_hardware, or NULL */
};

/* What a capture held besides the frames returned; for the summary. */
struct dump_read_counts {
	bool pcapng;
	uint32_t interfaces;		/* pcapng Interface Description Blocks */
	uint64_t skipped;		/* frames of interfaces that are not Ethernet */
	uint64_t filtered;		/* frames the filter did not match */
	uint64_t unknown_blocks;	/* pcapng blocks of unknown type, skipped */
};

struct dump_read;

/*
 * Open path ("-": standard input). filter, if not NULL, is a program compiled
 * for Ethernet: frames it does not match are counted, not returned. NULL on
 * failure, with the reason in err.
 */
struct dump_read *dump_read_open(const char *path, const struct bpf_program *filter,
				 char *err, size_t err_len);

/* 1 and *rec set, 0 at the clean end, -1 if the capture is damaged (dump_read_error()). */
int dump_read_next(struct dump_read *r, struct dump_record *rec);

/* Why dump_read_next() failed. */
const char *dump_read_error(const struct dump_read *r);

void dump_read_counts(const struct dump_read *r, struct dump_read_counts *c);

void dump_read_close(struct dump_read *r);

#endif /* DUMP_READ_H */
