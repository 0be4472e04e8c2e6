/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_PCAP_H
#define RTE_ROCE_PCAP_H

/**
 * @file
 * Classic pcap files of Ethernet frames, written.
 *
 * The writer produces nanosecond pcap (magic 0xa1b23c4d) in host byte
 * order, Ethernet link type, readable by libpcap (tcpdump, roce_dump),
 * tshark and Wireshark; rte_roce_port_capture_start() writes with it. To
 * read captures, use libpcap (pcap_open_offline(3PCAP)): it reads this
 * format and pcapng. These functions use stdio and the C heap: they work
 * with or without an initialised EAL. A handle must not be used by two
 * threads at once.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;

/** Largest frame written (the snapshot length tcpdump uses). */
#define RTE_ROCE_PCAP_MAX_FRAME 262144

/** A pcap file open for writing (opaque). */
struct rte_roce_pcap;

/**
 * Create (or truncate) a pcap file for writing, nanosecond resolution,
 * Ethernet link type, snapshot length RTE_ROCE_PCAP_MAX_FRAME.
 *
 * @param path
 *   The file.
 * @return
 *   The writer, or NULL with rte_errno set to:
 *   - EINVAL: path is NULL;
 *   - ENOMEM: out of memory;
 *   - any errno of fopen(3) or fwrite(3), e.g. ENOENT, EACCES, ENOSPC.
 */
struct rte_roce_pcap *
rte_roce_pcap_create(const char *path);

/**
 * Append a frame to a pcap file.
 *
 * Writes are buffered: a failure of the underlying write may only be
 * reported by a later call or by rte_roce_pcap_close().
 *
 * @param p
 *   A writer.
 * @param frame
 *   The Ethernet frame, without FCS.
 * @param len
 *   Its length, at most RTE_ROCE_PCAP_MAX_FRAME.
 * @param ts_ns
 *   Capture time in nanoseconds since the Epoch (before year 2106; the
 *   format's seconds are unsigned 32-bit, but libpcap 1.10 reads them as
 *   signed: a time after 2038-01-19 comes back negative from it).
 * @return
 *   0 on success, or:
 *   - -EINVAL: p or frame is NULL, len is too large or ts_ns is out of
 *     range;
 *   - -EIO or the errno of a failed write (e.g. -ENOSPC); every later
 *     write returns it again.
 */
int
rte_roce_pcap_write(struct rte_roce_pcap *p, const void *frame, uint32_t len,
		    uint64_t ts_ns);

/**
 * Append the frame held in an mbuf (of any segmentation) to a pcap file.
 *
 * @param p
 *   A writer.
 * @param m
 *   The frame; its pkt_len must be at most RTE_ROCE_PCAP_MAX_FRAME.
 * @param ts_ns
 *   Capture time in nanoseconds since the Epoch.
 * @return
 *   As rte_roce_pcap_write(); -EINVAL also if m is NULL.
 */
int
rte_roce_pcap_write_mbuf(struct rte_roce_pcap *p, const struct rte_mbuf *m,
			 uint64_t ts_ns);

/**
 * Close a writer and free it.
 *
 * @param p
 *   The handle, or NULL (nothing is done).
 * @return
 *   0 on success; the first write error (see rte_roce_pcap_write()) or
 *   the negative errno of the final flush or close, so that no lost write
 *   goes unreported. The handle is freed in every case.
 */
int
rte_roce_pcap_close(struct rte_roce_pcap *p);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_PCAP_H */
