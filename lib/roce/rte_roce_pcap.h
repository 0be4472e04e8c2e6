/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_PCAP_H
#define RTE_ROCE_PCAP_H

/**
 * @file
 * Classic pcap files of Ethernet frames, read and written.
 *
 * The reader takes both byte orders and both timestamp resolutions
 * (magic 0xa1b2c3d4, microseconds; 0xa1b23c4d, nanoseconds), Ethernet
 * link type only. The writer produces nanosecond pcap in host byte order,
 * readable by tcpdump and tshark. pcapng is not supported (convert with
 * `editcap -F pcap`).
 *
 * The reader trusts nothing in the file: a record longer than the file's
 * snapshot length or than RTE_ROCE_PCAP_MAX_FRAME is reported as corrupt,
 * so no allocation depends on the file's contents. These functions use
 * stdio and the C heap: they work with or without an initialised EAL.
 * A handle must not be used by two threads at once.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;

/** Largest frame read or written (the snapshot length tcpdump uses). */
#define RTE_ROCE_PCAP_MAX_FRAME 262144

/** A pcap file open for reading or for writing (opaque). */
struct rte_roce_pcap;

/**
 * Open a pcap file for reading.
 *
 * @param path
 *   The file.
 * @return
 *   The reader, or NULL with rte_errno set to:
 *   - EINVAL: path is NULL, or the file is not a classic pcap file (unknown
 *     magic, version other than 2.x, snapshot length 0, file shorter than
 *     its header);
 *   - ENOTSUP: the link type is not Ethernet (1);
 *   - ENOMEM: out of memory;
 *   - any errno of fopen(3) or fread(3), e.g. ENOENT, EACCES, EISDIR, EIO.
 */
struct rte_roce_pcap *
rte_roce_pcap_open(const char *path);

/**
 * Read the next frame.
 *
 * @param p
 *   A reader.
 * @param frame
 *   Set to the frame's bytes, valid until the next call on p or its close.
 * @param caplen
 *   Set to the number of bytes captured (at *frame).
 * @param origlen
 *   Set to the frame's length on the wire (>= *caplen).
 * @param ts_ns
 *   Set to the capture time, in nanoseconds since the Epoch.
 * @return
 *   1 if a frame was returned, 0 at the clean end of the file, or:
 *   - -EBADMSG: truncated or corrupt record (partial header or data,
 *     captured length above the snapshot length or RTE_ROCE_PCAP_MAX_FRAME
 *     or above the original length, timestamp fraction out of range);
 *     every later call returns it again;
 *   - -EIO: read error;
 *   - -EINVAL: p or an output pointer is NULL, or p is a writer.
 */
int
rte_roce_pcap_next(struct rte_roce_pcap *p, const uint8_t **frame, uint32_t *caplen,
		   uint32_t *origlen, uint64_t *ts_ns);

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
 *   Capture time in nanoseconds since the Epoch (before year 2106).
 * @return
 *   0 on success, or:
 *   - -EINVAL: p or frame is NULL, p is a reader, len is too large or
 *     ts_ns is out of range;
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
 * Close a reader or a writer and free it.
 *
 * @param p
 *   The handle, or NULL (nothing is done).
 * @return
 *   0 on success; for a writer, the first write error (see
 *   rte_roce_pcap_write()) or the negative errno of the final flush or
 *   close, so that no lost write goes unreported. The handle is freed in
 *   every case.
 */
int
rte_roce_pcap_close(struct rte_roce_pcap *p);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_PCAP_H */
