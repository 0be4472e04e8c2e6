/* SPDX-License-Identifier: BSD-3-Clause */

#include <stdio.h>

#include "roce_test_pcap.h"

pcap_t *
roce_test_pcap_open(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, err);

	if (p == NULL) {
		printf("# %s: %s\n", path, err);
		return NULL;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		printf("# %s: link type %d, not Ethernet\n", path, pcap_datalink(p));
		pcap_close(p);
		return NULL;
	}
	return p;
}

int
roce_test_pcap_next(pcap_t *p, const uint8_t **frame, uint32_t *caplen, uint32_t *origlen)
{
	struct pcap_pkthdr *hdr;
	const u_char *data;
	int rc = pcap_next_ex(p, &hdr, &data);

	if (rc == PCAP_ERROR_BREAK)
		return 0;
	if (rc != 1) {
		printf("# pcap: %s\n", pcap_geterr(p));
		return -1;
	}
	*frame = data;
	*caplen = hdr->caplen;
	*origlen = hdr->len;
	return 1;
}
