/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * libpcap does the reading (formats, byte orders, timestamp resolutions,
 * every check on the file's structure); dump_pcapng.c walks the pcapng
 * blocks on their way to it for what libpcap 1.10 does not give.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "dump_pcapng.h"
#include "dump_read.h"

struct dump_read {
	pcap_t *pcap;
	const struct dump_pcapng_info *info;
	const struct bpf_program *filter;
	uint64_t returned;	/* records libpcap returned */
	uint64_t filtered;
	const char *error;
	char error_buf[PCAP_ERRBUF_SIZE];
};

/* A classic pcap must hold Ethernet frames without FCS. */
static const char *
check_link(pcap_t *pcap, char *err, size_t err_len)
{
	int dlt = pcap_datalink(pcap), ext = pcap_datalink_ext(pcap);
	const char *name = pcap_datalink_val_to_name(dlt);

	if (dlt != DLT_EN10MB) {
		snprintf(err, err_len, "link type %d (%s) is not Ethernet", dlt,
			 name != NULL ? name : "unknown");
		return err;
	}
	if (LT_FCS_LENGTH_PRESENT(ext) && LT_FCS_LENGTH(ext) != 0) {
		snprintf(err, err_len, "frames end with an FCS (link type extension 0x%08x),"
			 " not supported", (unsigned int)ext);
		return err;
	}
	return NULL;
}

struct dump_read *
dump_read_open(const char *path, const struct bpf_program *filter, char *err, size_t err_len)
{
	char pcap_err[PCAP_ERRBUF_SIZE];
	struct dump_read *r;
	FILE *in, *stream;

	in = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (in == NULL) {
		snprintf(err, err_len, "%s", strerror(errno));
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	stream = r != NULL ? dump_pcapng_stream(in, path, &r->info) : NULL;
	if (stream == NULL) {
		snprintf(err, err_len, "%s", strerror(ENOMEM));
		if (in != stdin)
			fclose(in);
		free(r);
		return NULL;
	}
	r->pcap = pcap_fopen_offline_with_tstamp_precision(stream, PCAP_TSTAMP_PRECISION_NANO,
							   pcap_err);
	if (r->pcap == NULL) {
		snprintf(err, err_len, "%s", pcap_err);
		fclose(stream);
		free(r);
		return NULL;
	}
	if (check_link(r->pcap, err, err_len) != NULL) {
		dump_read_close(r);
		return NULL;
	}
	r->filter = filter;
	return r;
}

/* At the end: a pcapng whose interfaces were all skipped gave nothing to check. */
static int
read_end(struct dump_read *r)
{
	if (r->info->interfaces == 0 || r->info->ethernet != 0)
		return 0;
	snprintf(r->error_buf, sizeof(r->error_buf),
		 "no Ethernet interface: nothing to decode");
	r->error = r->error_buf;
	return -1;
}

int
dump_read_next(struct dump_read *r, struct dump_record *rec)
{
	struct pcap_pkthdr *hdr;
	const u_char *data;
	int rc;

	if (r->error != NULL)
		return -1;
	for (;;) {
		rc = pcap_next_ex(r->pcap, &hdr, &data);
		if (rc == PCAP_ERROR_BREAK)	/* the end of the file */
			return read_end(r);
		if (rc != 1) {
			r->error = pcap_geterr(r->pcap);
			return -1;
		}
		r->returned++;
		if (r->filter == NULL || pcap_offline_filter(r->filter, hdr, data) != 0)
			break;
		r->filtered++;
	}
	rec->index = r->returned + r->info->skipped;
	/*
	 * In nanosecond precision, tv_usec holds nanoseconds. libpcap 1.10 reads
	 * a classic pcap's 32-bit seconds as signed: a time after 2038-01-19
	 * comes back negative. The format's field is unsigned (pcapng times are
	 * 64-bit and never negative here).
	 */
	rec->ts_ns = (hdr->ts.tv_sec < 0 ? (uint32_t)hdr->ts.tv_sec : (uint64_t)hdr->ts.tv_sec) *
		NS_PER_S + (uint64_t)hdr->ts.tv_usec;
	rec->frame = data;
	rec->caplen = hdr->caplen;
	rec->origlen = hdr->len;
	rec->ifindex = r->info->ifindex;
	rec->ifname = r->info->ifname;
	rec->ifdescr = r->info->ifdescr;
	return 1;
}

const char *
dump_read_error(const struct dump_read *r)
{
	return r->error;
}

void
dump_read_counts(const struct dump_read *r, struct dump_read_counts *c)
{
	c->pcapng = r->info->pcapng;
	c->interfaces = r->info->interfaces;
	c->skipped = r->info->skipped;
	c->filtered = r->filtered;
	c->unknown_blocks = r->info->unknown_blocks;
}

void
dump_read_close(struct dump_read *r)
{
	if (r == NULL)
		return;
	pcap_close(r->pcap);	/* closes the stream, which closes the file */
	free(r);
}
