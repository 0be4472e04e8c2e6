/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Classic pcap files written (the format described in draft-ietf-opsawg-pcap):
 * a 24-byte file header, then per frame a 16-byte record header and the
 * captured bytes, in the byte order of the writing machine, which the magic
 * number reveals. Reading is libpcap's job (roce_dump, the tests): why this
 * writer does not use it is in doc/observability.md, "Packet capture".
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include "rte_roce_pcap.h"

#define ROCE_PCAP_MAGIC_NSEC 0xa1b23c4du
#define ROCE_PCAP_VERSION_MAJOR 2
#define ROCE_PCAP_VERSION_MINOR 4
#define ROCE_PCAP_LINKTYPE_ETHERNET 1
#define ROCE_PCAP_NSEC_PER_SEC 1000000000ull

struct roce_pcap_file_hdr {
	uint32_t magic;
	uint16_t version_major;
	uint16_t version_minor;
	int32_t thiszone;	/* always 0 in practice; ignored */
	uint32_t sigfigs;	/* always 0 in practice; ignored */
	uint32_t snaplen;
	uint32_t linktype;
};

struct roce_pcap_rec_hdr {
	uint32_t ts_sec;
	uint32_t ts_frac;	/* nanoseconds, per the magic */
	uint32_t incl_len;
	uint32_t orig_len;
};

struct rte_roce_pcap {
	FILE *f;
	int err;		/* first write error, negative errno; sticky */
};

/* A negative errno for a failed stdio call, never 0. */
static int
pcap_errno(void)
{
	return errno != 0 ? -errno : -EIO;
}

static struct rte_roce_pcap *
pcap_alloc(const char *path)
{
	struct rte_roce_pcap *p;

	if (path == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	errno = 0;
	p->f = fopen(path, "wb");
	if (p->f == NULL) {
		rte_errno = -pcap_errno();
		free(p);
		return NULL;
	}
	return p;
}

/* Write bytes unless an earlier write failed; 0 or the sticky negative errno. */
static int
pcap_fwrite(struct rte_roce_pcap *p, const void *data, size_t len)
{
	if (p->err != 0)
		return p->err;
	errno = 0;
	if (len > 0 && fwrite(data, len, 1, p->f) != 1)
		p->err = pcap_errno();
	return p->err;
}

struct rte_roce_pcap *
rte_roce_pcap_create(const char *path)
{
	const struct roce_pcap_file_hdr h = {
		.magic = ROCE_PCAP_MAGIC_NSEC,
		.version_major = ROCE_PCAP_VERSION_MAJOR,
		.version_minor = ROCE_PCAP_VERSION_MINOR,
		.snaplen = RTE_ROCE_PCAP_MAX_FRAME,
		.linktype = ROCE_PCAP_LINKTYPE_ETHERNET,
	};
	struct rte_roce_pcap *p = pcap_alloc(path);
	int rc;

	if (p == NULL)
		return NULL;
	rc = pcap_fwrite(p, &h, sizeof(h));
	if (rc != 0) {
		rte_roce_pcap_close(p);
		rte_errno = -rc;
		return NULL;
	}
	return p;
}

/* Write a record header for a frame of len bytes; 0 or a negative errno. */
static int
pcap_write_rec_hdr(struct rte_roce_pcap *p, uint32_t len, uint64_t ts_ns)
{
	struct roce_pcap_rec_hdr h = {
		.ts_sec = (uint32_t)(ts_ns / ROCE_PCAP_NSEC_PER_SEC),
		.ts_frac = (uint32_t)(ts_ns % ROCE_PCAP_NSEC_PER_SEC),
		.incl_len = len,
		.orig_len = len,
	};

	if (p == NULL || len > RTE_ROCE_PCAP_MAX_FRAME ||
	    ts_ns / ROCE_PCAP_NSEC_PER_SEC > UINT32_MAX)
		return -EINVAL;
	return pcap_fwrite(p, &h, sizeof(h));
}

int
rte_roce_pcap_write(struct rte_roce_pcap *p, const void *frame, uint32_t len,
		    uint64_t ts_ns)
{
	int rc;

	if (frame == NULL)
		return -EINVAL;
	rc = pcap_write_rec_hdr(p, len, ts_ns);
	return rc != 0 ? rc : pcap_fwrite(p, frame, len);
}

int
rte_roce_pcap_write_mbuf(struct rte_roce_pcap *p, const struct rte_mbuf *m,
			 uint64_t ts_ns)
{
	int rc;

	if (m == NULL)
		return -EINVAL;
	rc = pcap_write_rec_hdr(p, m->pkt_len, ts_ns);
	for (; rc == 0 && m != NULL; m = m->next)
		rc = pcap_fwrite(p, rte_pktmbuf_mtod(m, const void *), m->data_len);
	return rc;
}

int
rte_roce_pcap_close(struct rte_roce_pcap *p)
{
	int rc;

	if (p == NULL)
		return 0;
	rc = p->err;
	errno = 0;
	if (fclose(p->f) != 0 && rc == 0)
		rc = pcap_errno();
	free(p);
	return rc;
}
