/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * pcapng block walk (draft-ietf-opsawg-pcapng): every block is
 * type (4 bytes), total length (4), body, total length again, in the byte
 * order of its section, which the Section Header Block's byte-order magic
 * gives. Only block boundaries, Interface Description Blocks and the
 * interface ID of packet blocks are looked at here; libpcap checks and
 * decodes everything else, and reports every damage: whatever this walk
 * cannot follow (a short or oversized block, a bad byte-order magic) is
 * handed on unchanged from that point.
 */

#define _GNU_SOURCE		/* fopencookie() */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "dump_pcapng.h"

#define PCAPNG_SHB		0x0a0d0d0au	/* the same in both byte orders */
#define PCAPNG_BYTE_ORDER_MAGIC	0x1a2b3c4du
#define PCAPNG_IDB		1u
#define PCAPNG_PB		2u	/* obsolete Packet Block: 16-bit interface ID */
#define PCAPNG_SPB		3u	/* Simple Packet Block: interface 0 */
#define PCAPNG_NRB		4u
#define PCAPNG_ISB		5u
#define PCAPNG_EPB		6u
#define PCAPNG_JOURNAL		9u
#define PCAPNG_DSB		10u
#define PCAPNG_CUSTOM		0x00000badu
#define PCAPNG_CUSTOM_NOCOPY	0x40000badu
#define PCAPNG_BLOCK_MIN	12u	/* type, length, length */
#define PCAPNG_HDR_LEN		8u	/* type, length */
#define PCAPNG_SHB_PREFIX	12u	/* type, length, byte-order magic */
#define PCAPNG_IDB_OPTIONS	16u	/* offset of the IDB's options */
#define PCAPNG_OPT_END		0u
#define PCAPNG_OPT_IF_NAME	2u
#define PCAPNG_OPT_IF_DESCRIPTION 3u
#define PCAPNG_OPT_IF_HARDWARE	15u	/* dpdk-dumpcap: bus and device, vdev-net_ring0 */
#define PCAPNG_OPT_HDR_LEN	4u
/* libpcap 1.10 refuses larger blocks too (INITIAL_MAX_BLOCKSIZE). */
#define PCAPNG_BLOCK_MAX	(16u * 1024 * 1024)
#define LINKTYPE_ETHERNET	1u
#define IFNAME_MAX		64

/* What becomes of a block. */
enum walk_verdict {
	WALK_PASS,	/* handed on to libpcap */
	WALK_DROP,	/* a packet of an interface that is not Ethernet */
	WALK_NOMEM,
};

struct walk_iface {
	bool ethernet;
	char name[IFNAME_MAX];	/* if_name (dpdk-dumpcap: dpdk:PORT); printable; "" if none */
	char descr[IFNAME_MAX];	/* if_description, else if_hardware; printable; "" if none */
};

struct walk {
	FILE *in;
	const char *path;
	bool started;
	bool passthrough;	/* from here on, bytes go through unchanged */
	bool swapped;		/* section byte order is not the host's */
	bool nomem;		/* a block did not fit in memory */
	bool have_first;	/* the file's first IDB was seen */
	uint32_t first_snaplen;	/* its snapshot length (libpcap wants them all equal) */
	uint8_t *buf;		/* the block being handed on */
	size_t size, len, off;
	struct walk_iface *ifaces;	/* of the current section */
	uint32_t nb_ifaces, ifaces_size;
	struct dump_pcapng_info info;
};

static uint32_t
walk_u32(const struct walk *w, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return w->swapped ? rte_bswap32(v) : v;
}

static uint16_t
walk_u16(const struct walk *w, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return w->swapped ? rte_bswap16(v) : v;
}

static void
walk_put_u32(const struct walk *w, uint8_t *p, uint32_t v)
{
	v = w->swapped ? rte_bswap32(v) : v;
	memcpy(p, &v, sizeof(v));
}

static void
walk_put_u16(const struct walk *w, uint8_t *p, uint16_t v)
{
	v = w->swapped ? rte_bswap16(v) : v;
	memcpy(p, &v, sizeof(v));
}

/* Read until the buffer holds want bytes; false at the end of input or on error. */
static bool
walk_fill(struct walk *w, size_t want)
{
	uint8_t *bigger;

	if (want > w->size) {
		bigger = realloc(w->buf, want);
		if (bigger == NULL) {
			w->nomem = true;
			return false;
		}
		w->buf = bigger;
		w->size = want;
	}
	w->len += fread(w->buf + w->len, 1, want - w->len, w->in);
	return w->len == want;
}

/* An option's value as a C string of printable ASCII ('?' for the rest). */
static void
walk_option_string(const uint8_t *value, uint16_t len, char *out)
{
	uint16_t i;

	for (i = 0; i < len && i < IFNAME_MAX - 1 && value[i] != '\0'; i++)
		out[i] = (value[i] > ' ' && value[i] < 0x7f) ? (char)value[i] : '?';
	out[i] = '\0';
}

/* The if_name and if_description (else if_hardware) options of the IDB in w->buf. */
static void
walk_idb_options(const struct walk *w, uint32_t total, struct walk_iface *ifc)
{
	uint32_t off = PCAPNG_IDB_OPTIONS, end = total - sizeof(uint32_t);
	char hardware[IFNAME_MAX] = "";
	uint16_t code, len;

	ifc->name[0] = '\0';
	ifc->descr[0] = '\0';
	while (off + PCAPNG_OPT_HDR_LEN <= end) {
		code = walk_u16(w, w->buf + off);
		len = walk_u16(w, w->buf + off + 2);
		off += PCAPNG_OPT_HDR_LEN;
		if (code == PCAPNG_OPT_END || len > end - off)
			break;
		if (code == PCAPNG_OPT_IF_NAME)
			walk_option_string(w->buf + off, len, ifc->name);
		else if (code == PCAPNG_OPT_IF_DESCRIPTION)
			walk_option_string(w->buf + off, len, ifc->descr);
		else if (code == PCAPNG_OPT_IF_HARDWARE)
			walk_option_string(w->buf + off, len, hardware);
		off += RTE_ALIGN_CEIL(len, 4u);
	}
	if (ifc->descr[0] == '\0')
		memcpy(ifc->descr, hardware, sizeof(hardware));
}

/* Note an interface; relabel it as Ethernet if it is not (its packets are dropped). */
static enum walk_verdict
walk_idb(struct walk *w, uint32_t total)
{
	struct walk_iface *ifc, *bigger;
	uint32_t linktype, snaplen;
	const char *dlt;

	if (total < PCAPNG_IDB_OPTIONS + sizeof(uint32_t))
		return WALK_PASS;	/* too short: libpcap says so */
	if (w->nb_ifaces == w->ifaces_size) {
		bigger = realloc(w->ifaces, (w->ifaces_size * 2 + 1) * sizeof(*bigger));
		if (bigger == NULL)
			return WALK_NOMEM;
		w->ifaces = bigger;
		w->ifaces_size = w->ifaces_size * 2 + 1;
	}
	ifc = &w->ifaces[w->nb_ifaces];
	linktype = walk_u16(w, w->buf + PCAPNG_HDR_LEN);
	snaplen = walk_u32(w, w->buf + PCAPNG_HDR_LEN + sizeof(uint32_t));
	ifc->ethernet = linktype == LINKTYPE_ETHERNET;
	walk_idb_options(w, total, ifc);
	if (!w->have_first) {
		w->have_first = true;
		w->first_snaplen = snaplen;
	}
	w->info.interfaces++;
	if (ifc->ethernet) {
		w->info.ethernet++;
	} else {
		dlt = pcap_datalink_val_to_name((int)linktype);
		fprintf(stderr, "roce_dump: %s: interface %u%s%s: link type %u (%s) is not"
			" Ethernet: its frames are skipped\n", w->path, w->nb_ifaces,
			ifc->name[0] != '\0' ? " " : "", ifc->name, linktype,
			dlt != NULL ? dlt : "unknown");
		walk_put_u16(w, w->buf + PCAPNG_HDR_LEN, LINKTYPE_ETHERNET);
		walk_put_u32(w, w->buf + PCAPNG_HDR_LEN + sizeof(uint32_t), w->first_snaplen);
	}
	w->nb_ifaces++;
	return WALK_PASS;
}

static enum walk_verdict
walk_packet(struct walk *w, uint32_t type, uint32_t total)
{
	uint32_t id = 0;

	if (type != PCAPNG_SPB && total >= PCAPNG_BLOCK_MIN + sizeof(uint32_t))
		id = type == PCAPNG_EPB ? walk_u32(w, w->buf + PCAPNG_HDR_LEN) :
			walk_u16(w, w->buf + PCAPNG_HDR_LEN);
	if (id >= w->nb_ifaces) {
		w->info.ifindex = -1;	/* libpcap reports it */
		w->info.ifname = NULL;
		w->info.ifdescr = NULL;
		return WALK_PASS;
	}
	if (!w->ifaces[id].ethernet) {
		w->info.skipped++;
		return WALK_DROP;
	}
	w->info.ifindex = id;
	w->info.ifname = w->ifaces[id].name[0] != '\0' ? w->ifaces[id].name : NULL;
	w->info.ifdescr = w->ifaces[id].descr[0] != '\0' ? w->ifaces[id].descr : NULL;
	return WALK_PASS;
}

/* Route the whole block in w->buf. */
static enum walk_verdict
walk_route(struct walk *w, uint32_t total)
{
	uint32_t type = walk_u32(w, w->buf);

	switch (type) {
	case PCAPNG_SHB:
		w->nb_ifaces = 0;	/* each section has its own interfaces */
		return WALK_PASS;
	case PCAPNG_IDB:
		return walk_idb(w, total);
	case PCAPNG_EPB:
	case PCAPNG_PB:
	case PCAPNG_SPB:
		return walk_packet(w, type, total);
	case PCAPNG_NRB:
	case PCAPNG_ISB:
	case PCAPNG_JOURNAL:
	case PCAPNG_DSB:
	case PCAPNG_CUSTOM:
	case PCAPNG_CUSTOM_NOCOPY:
		return WALK_PASS;	/* defined; libpcap skips them */
	default:
		w->info.unknown_blocks++;
		return WALK_PASS;	/* a reader skips the blocks it does not know */
	}
}

/*
 * Load the next block to hand on into w->buf. Anything that cannot be
 * walked switches to passthrough, with the bytes read so far handed on
 * first. 0, or -1 with errno set.
 */
static int
walk_next_block(struct walk *w)
{
	enum walk_verdict verdict;
	uint32_t total, bom;

	for (;;) {
		w->len = 0;
		w->off = 0;
		if (!walk_fill(w, PCAPNG_HDR_LEN))
			break;
		if (!w->started) {
			w->started = true;
			if (memcmp(w->buf, &(uint32_t){ PCAPNG_SHB }, sizeof(uint32_t)) != 0)
				break;	/* classic pcap, or not a capture */
			w->info.pcapng = true;
		}
		if (walk_u32(w, w->buf) == PCAPNG_SHB) {
			if (!walk_fill(w, PCAPNG_SHB_PREFIX))
				break;
			memcpy(&bom, w->buf + PCAPNG_HDR_LEN, sizeof(bom));
			if (bom != PCAPNG_BYTE_ORDER_MAGIC &&
			    bom != RTE_STATIC_BSWAP32(PCAPNG_BYTE_ORDER_MAGIC))
				break;
			w->swapped = bom != PCAPNG_BYTE_ORDER_MAGIC;
		}
		total = walk_u32(w, w->buf + sizeof(uint32_t));
		if (total < PCAPNG_BLOCK_MIN || total % 4 != 0 || total > PCAPNG_BLOCK_MAX ||
		    !walk_fill(w, total))
			break;
		verdict = walk_route(w, total);
		if (verdict == WALK_PASS)
			return 0;
		if (verdict == WALK_NOMEM) {
			w->nomem = true;
			break;
		}
	}
	if (w->nomem) {
		errno = ENOMEM;
		return -1;
	}
	w->passthrough = true;
	return 0;
}

static ssize_t
walk_read(void *cookie, char *out, size_t size)
{
	struct walk *w = cookie;
	size_t n;

	if (w->off == w->len && !w->passthrough && walk_next_block(w) != 0)
		return -1;
	if (w->off == w->len) {
		n = fread(out, 1, size, w->in);
		return n == 0 && ferror(w->in) ? -1 : (ssize_t)n;
	}
	n = RTE_MIN(size, w->len - w->off);
	memcpy(out, w->buf + w->off, n);
	w->off += n;
	return (ssize_t)n;
}

static int
walk_close(void *cookie)
{
	struct walk *w = cookie;
	int rc = w->in == NULL || w->in == stdin ? 0 : fclose(w->in);

	free(w->ifaces);
	free(w->buf);
	free(w);
	return rc;
}

FILE *
dump_pcapng_stream(FILE *in, const char *path, const struct dump_pcapng_info **info)
{
	const cookie_io_functions_t io = { .read = walk_read, .close = walk_close };
	struct walk *w = calloc(1, sizeof(*w));
	FILE *f;

	if (w == NULL)
		return NULL;
	w->in = in;
	w->path = path;
	w->info.ifindex = -1;
	f = fopencookie(w, "rb", io);
	/*
	 * Unbuffered: libpcap's reads reach walk_read() as they are made, so the
	 * packet libpcap returns is the last packet block walked.
	 */
	if (f == NULL) {
		free(w);
		return NULL;
	}
	if (setvbuf(f, NULL, _IONBF, 0) != 0) {
		w->in = NULL;	/* the caller still owns it */
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	*info = &w->info;
	return f;
}
