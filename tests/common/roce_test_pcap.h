/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_TEST_PCAP_H
#define ROCE_TEST_PCAP_H

/*
 * Captures read with libpcap, as roce_dump, tcpdump and tshark read them:
 * the kernel rxe vectors, and every file the library's capture writes.
 * Errors are printed as TAP comments.
 */

#include <stdint.h>

#include <pcap/pcap.h>

/* Open path (pcap or pcapng, Ethernet); NULL after printing why. */
pcap_t *roce_test_pcap_open(const char *path);

/* 1 and the next frame, 0 at the clean end, -1 after printing why. */
int roce_test_pcap_next(pcap_t *p, const uint8_t **frame, uint32_t *caplen, uint32_t *origlen);

#endif /* ROCE_TEST_PCAP_H */
