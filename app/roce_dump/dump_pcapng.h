/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef DUMP_PCAPNG_H
#define DUMP_PCAPNG_H

/*
 * The bytes of a capture on their way to libpcap. libpcap 1.10 decodes both
 * formats, but for pcapng it tells neither on which interface a packet was
 * captured nor the interfaces' names, and it refuses a file whose interfaces
 * have different link types. This stream walks the pcapng blocks as libpcap
 * reads them: it notes each interface (names, link type), drops the packets
 * of the interfaces that are not Ethernet (counted), relabels those
 * interfaces as Ethernet so that libpcap reads on, and remembers the
 * interface of the packet block it handed on last. Classic pcap, and
 * anything it cannot walk (a damaged block), goes through untouched, for
 * libpcap to decode or to report.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What the walk found; valid while the stream is open. */
struct dump_pcapng_info {
	bool pcapng;			/* the stream starts with a Section Header Block */
	int64_t ifindex;		/* interface of the last packet handed on, in its section; -1 */
	const char *ifname;		/* its if_name option, or NULL */
	const char *ifdescr;		/* its if_description, else if_hardware, or NULL */
	uint32_t interfaces;		/* Interface Description Blocks seen */
	uint32_t ethernet;		/* ... of which Ethernet */
	uint64_t skipped;		/* packets dropped: their interface is not Ethernet */
	uint64_t unknown_blocks;	/* blocks of a type pcapng does not define, skipped */
};

/*
 * A stream of the capture read from in, for pcap_fopen_offline(); closing it
 * closes in, unless in is stdin. path names the capture in the notices
 * written to stderr (an interface whose frames are skipped). *info is
 * updated as libpcap reads. NULL with errno set on failure (in is then not
 * closed).
 */
FILE *dump_pcapng_stream(FILE *in, const char *path, const struct dump_pcapng_info **info);

#endif /* DUMP_PCAPNG_H */
