/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Classic pcap files (the format of libpcap's savefile.c, as described in
 * draft-ietf-opsawg-pcap): a 24-byte file header, then per frame a 16-byte
 * record header and the captured bytes. All fields are in the byte order of
 * the machine that wrote the file, which the magic number reveals.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "rte_roce_pcap.h"

#define ROCE_PCAP_MAGIC_USEC 0xa1b2c3d4u
#define ROCE_PCAP_MAGIC_NSEC 0xa1b23c4du
#define ROCE_PCAP_VERSION_MAJOR 2
#define ROCE_PCAP_VERSION_MINOR 4
#define ROCE_PCAP_LINKTYPE_ETHERNET 1
#define ROCE_PCAP_NSEC_PER_SEC 1000000000ull
#define ROCE_PCAP_NSEC_PER_USEC 1000u
#define ROCE_PCAP_USEC_PER_SEC 1000000u

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
	uint32_t ts_frac;	/* microseconds or nanoseconds, per the magic */
	uint32_t incl_len;
	uint32_t orig_len;
};

struct rte_roce_pcap {
	FILE *f;
	bool writer;
	bool swapped;		/* reader: file byte order is not the host's */
	uint32_t frac_ns;	/* reader: nanoseconds per timestamp fraction unit */
	uint32_t frac_max;	/* reader: fractions per second */
	uint32_t max_frame;	/* reader: largest captured length accepted */
	int err;		/* first error, negative errno; sticky */
	uint8_t *buf;		/* reader: the last frame returned */
};

/* A negative errno for a failed stdio call, never 0. */
static int
pcap_errno(void)
{
	return errno != 0 ? -errno : -EIO;
}

static uint32_t
pcap_u32(const struct rte_roce_pcap *p, uint32_t v)
{
	return p->swapped ? rte_bswap32(v) : v;
}

static struct rte_roce_pcap *
pcap_alloc(const char *path, const char *mode)
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
	p->f = fopen(path, mode);
	if (p->f == NULL) {
		rte_errno = -pcap_errno();
		free(p);
		return NULL;
	}
	return p;
}

/* Check the file header; 0 or a positive errno for rte_errno. */
static int
pcap_read_file_hdr(struct rte_roce_pcap *p)
{
	struct roce_pcap_file_hdr h;

	errno = 0;
	if (fread(&h, sizeof(h), 1, p->f) != 1)
		return ferror(p->f) ? -pcap_errno() : EINVAL;
	switch (h.magic) {
	case ROCE_PCAP_MAGIC_USEC:
	case ROCE_PCAP_MAGIC_NSEC:
		break;
	case RTE_STATIC_BSWAP32(ROCE_PCAP_MAGIC_USEC):
	case RTE_STATIC_BSWAP32(ROCE_PCAP_MAGIC_NSEC):
		p->swapped = true;
		break;
	default:
		return EINVAL;
	}
	if (pcap_u32(p, h.magic) == ROCE_PCAP_MAGIC_NSEC) {
		p->frac_ns = 1;
		p->frac_max = ROCE_PCAP_NSEC_PER_SEC;
	} else {
		p->frac_ns = ROCE_PCAP_NSEC_PER_USEC;
		p->frac_max = ROCE_PCAP_USEC_PER_SEC;
	}
	if ((p->swapped ? rte_bswap16(h.version_major) : h.version_major) !=
	    ROCE_PCAP_VERSION_MAJOR || h.snaplen == 0)
		return EINVAL;
	/* The whole field: FCS-carrying variants (upper bits) are not Ethernet frames as we read them. */
	if (pcap_u32(p, h.linktype) != ROCE_PCAP_LINKTYPE_ETHERNET)
		return ENOTSUP;
	p->max_frame = RTE_MIN(pcap_u32(p, h.snaplen), (uint32_t)RTE_ROCE_PCAP_MAX_FRAME);
	return 0;
}

struct rte_roce_pcap *
rte_roce_pcap_open(const char *path)
{
	struct rte_roce_pcap *p = pcap_alloc(path, "rb");
	int rc;

	if (p == NULL)
		return NULL;
	rc = pcap_read_file_hdr(p);
	if (rc == 0) {
		p->buf = malloc(p->max_frame);
		rc = p->buf == NULL ? ENOMEM : 0;
	}
	if (rc != 0) {
		rte_roce_pcap_close(p);
		rte_errno = rc;
		return NULL;
	}
	return p;
}

/* Read one record into p->buf; 1, 0 at a clean end, or a negative errno. */
static int
pcap_read_record(struct rte_roce_pcap *p, struct roce_pcap_rec_hdr *h)
{
	size_t n;

	errno = 0;
	n = fread(h, 1, sizeof(*h), p->f);
	if (n != sizeof(*h)) {
		if (ferror(p->f))
			return pcap_errno();
		return n == 0 ? 0 : -EBADMSG;
	}
	h->ts_sec = pcap_u32(p, h->ts_sec);
	h->ts_frac = pcap_u32(p, h->ts_frac);
	h->incl_len = pcap_u32(p, h->incl_len);
	h->orig_len = pcap_u32(p, h->orig_len);
	if (h->incl_len > p->max_frame || h->incl_len > h->orig_len ||
	    h->ts_frac >= p->frac_max)
		return -EBADMSG;
	if (fread(p->buf, 1, h->incl_len, p->f) != h->incl_len)
		return ferror(p->f) ? pcap_errno() : -EBADMSG;
	return 1;
}

int
rte_roce_pcap_next(struct rte_roce_pcap *p, const uint8_t **frame, uint32_t *caplen,
		   uint32_t *origlen, uint64_t *ts_ns)
{
	struct roce_pcap_rec_hdr h;
	int rc;

	if (p == NULL || p->writer || frame == NULL || caplen == NULL ||
	    origlen == NULL || ts_ns == NULL)
		return -EINVAL;
	if (p->err != 0)
		return p->err;
	rc = pcap_read_record(p, &h);
	if (rc < 0) {
		p->err = rc;
		return rc;
	}
	if (rc == 0)
		return 0;
	*frame = p->buf;
	*caplen = h.incl_len;
	*origlen = h.orig_len;
	*ts_ns = h.ts_sec * ROCE_PCAP_NSEC_PER_SEC + (uint64_t)h.ts_frac * p->frac_ns;
	return 1;
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
	struct rte_roce_pcap *p = pcap_alloc(path, "wb");
	int rc;

	if (p == NULL)
		return NULL;
	p->writer = true;
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

	if (p == NULL || !p->writer || len > RTE_ROCE_PCAP_MAX_FRAME ||
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
	rc = p->writer ? p->err : 0;
	errno = 0;
	if (fclose(p->f) != 0 && rc == 0)
		rc = pcap_errno();
	free(p->buf);
	free(p);
	return rc;
}
