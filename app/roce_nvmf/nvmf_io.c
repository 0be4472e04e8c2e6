/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * I/O commands (NVM Command Set): Read, Write, Flush, Write Zeroes,
 * Dataset Management (deallocate), on a namespace in RAM (done at once)
 * or in a file (submitted to io_uring, nvmf_file.c). Every range is
 * checked against the namespace before a byte moves, and the data length
 * against the SGL: nothing is ever written outside the namespace.
 */

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_hash_crc.h>

#include "nvmf_priv.h"

#define NVMF_NLB_MASK		0xffffu	/* CDW12 bits 15:0, 0's based */
#define NVMF_DSM_NR_MASK	0xffu	/* CDW10 bits 7:0, 0's based */

static int
ns_ram_init(struct nvmf_ns *ns, const struct nvmf_ns_conf *conf)
{
	if (conf->size == 0) {
		NVMF_LOG(ERR, "namespace %u: a RAM namespace needs a size", ns->nsid);
		return -EINVAL;
	}
	/*
	 * Anonymous memory, not the EAL's: never registered (data moves through
	 * the pool's buffers), zero until written, given back at once by munmap
	 * (rte_free() would clear every page first), and no -m to size for it.
	 */
	ns->ram = mmap(NULL, conf->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		       MAP_NORESERVE, -1, 0);
	if (ns->ram == MAP_FAILED) {
		ns->ram = NULL;
		NVMF_LOG(ERR, "namespace %u: %lu bytes of RAM not available", ns->nsid,
			 (unsigned long)conf->size);
		return -ENOMEM;
	}
	ns->nblocks = conf->size >> ns->block_shift;
	return 0;
}

int
nvmf_ns_init(struct nvmf_subsys *s, const struct nvmf_ns_conf *conf, uint32_t nsid)
{
	struct nvmf_ns *ns = &s->ns[nsid - 1];
	uint32_t crc;
	int rc;

	ns->fd = -1;
	ns->nsid = nsid;
	if ((conf->block_size != 512 && conf->block_size != 4096) ||
	    conf->size % conf->block_size != 0) {
		NVMF_LOG(ERR, "namespace %u: size %lu, block size %u: a whole number of 512 or "
			 "4096-byte blocks", nsid, (unsigned long)conf->size, conf->block_size);
		return -EINVAL;
	}
	ns->block_shift = conf->block_size == 512 ? 9 : 12;
	rc = conf->path[0] != '\0' ? nvmf_file_ns_open(ns, conf) : ns_ram_init(ns, conf);
	if (rc != 0)
		return rc;
	/* a stable identifier from the subsystem's NQN and the NSID */
	crc = rte_hash_crc(s->nqn, strlen(s->nqn), nsid);
	memcpy(ns->nguid, &crc, sizeof(crc));
	memcpy(ns->nguid + 8, &nsid, sizeof(nsid));
	s->nb_ns = nsid;
	return 0;
}

void
nvmf_ns_fini(struct nvmf_ns *ns)
{
	if (ns->ram != NULL)
		munmap(ns->ram, ns->nblocks << ns->block_shift);
	ns->ram = NULL;
	if (ns->fd >= 0)
		close(ns->fd);
	ns->fd = -1;
}

/* Do op on the range: at once in RAM; submitted to io_uring for a file (the request waits). */
static void
ns_op(struct nvmf_req *req, const struct nvmf_ns *ns, enum nvmf_file_op op, uint64_t off,
      uint64_t len)
{
	if (ns->fd >= 0) {
		if (nvmf_file_submit(req, ns, op, off, len) == 0)
			return;
		if (req->io_pending == 0)
			nvmf_req_fail(req, NVMF_SC_INTERNAL);
		else
			req->status = NVMF_SC_INTERNAL;	/* answered when the others complete */
		return;
	}
	switch (op) {
	case NVMF_FILE_READ:
		memcpy(req->data, ns->ram + off, len);
		break;
	case NVMF_FILE_WRITE:
		memcpy(ns->ram + off, req->data, len);
		break;
	case NVMF_FILE_ZERO:
	case NVMF_FILE_DEALLOCATE:
		memset(ns->ram + off, 0, len);
		break;
	default:	/* NVMF_FILE_FLUSH: RAM has no volatile cache to write back */
		break;
	}
}

/* The LBA range [slba, slba + nlb) inside the namespace: its byte offset, or a status. */
static uint16_t
io_range(const struct nvmf_ns *ns, uint64_t slba, uint64_t nlb, uint64_t *off)
{
	if (slba >= ns->nblocks || nlb > ns->nblocks - slba)
		return NVMF_SC_LBA_RANGE;
	*off = slba << ns->block_shift;
	return NVMF_SC_SUCCESS;
}

static void
io_rw(struct nvmf_req *req, const struct nvmf_ns *ns, bool write)
{
	uint64_t slba = nvmf_get64(req->sqe, NVMF_SQE_CDW10);
	uint64_t nlb = (nvmf_get32(req->sqe, NVMF_SQE_CDW12) & NVMF_NLB_MASK) + 1u;
	uint64_t len = nlb << ns->block_shift, off = 0;
	uint16_t sc;

	if (len > req->q->tgt->conf.max_transfer) {
		nvmf_req_fail(req, NVMF_SC_INVALID_FIELD);	/* beyond MDTS */
		return;
	}
	if (req->len != len || req->dir != (write ? NVMF_DIR_TO_CTRL : NVMF_DIR_TO_HOST)) {
		nvmf_req_fail(req, NVMF_SC_SGL_INVALID_DATA_LEN);
		return;
	}
	sc = io_range(ns, slba, nlb, &off);
	if (sc != NVMF_SC_SUCCESS) {
		nvmf_req_fail(req, sc);
		return;
	}
	ns_op(req, ns, write ? NVMF_FILE_WRITE : NVMF_FILE_READ, off, len);
}

static void
io_write_zeroes(struct nvmf_req *req, const struct nvmf_ns *ns)
{
	uint64_t slba = nvmf_get64(req->sqe, NVMF_SQE_CDW10);
	uint64_t nlb = (nvmf_get32(req->sqe, NVMF_SQE_CDW12) & NVMF_NLB_MASK) + 1u;
	uint64_t off = 0;
	uint16_t sc = io_range(ns, slba, nlb, &off);

	if (sc != NVMF_SC_SUCCESS) {
		nvmf_req_fail(req, sc);
		return;
	}
	ns_op(req, ns, NVMF_FILE_ZERO, off, nlb << ns->block_shift);
}

/* Dataset Management: each range checked first; deallocated blocks read as zeroes (DLFEAT). */
static void
io_dsm(struct nvmf_req *req, const struct nvmf_ns *ns)
{
	uint32_t nr = (nvmf_get32(req->sqe, NVMF_SQE_CDW10) & NVMF_DSM_NR_MASK) + 1u, i;
	bool dealloc = (nvmf_get32(req->sqe, NVMF_SQE_CDW11) & NVMF_DSM_DEALLOCATE) != 0;
	uint64_t off;
	uint16_t sc = NVMF_SC_SUCCESS;

	if (req->dir != NVMF_DIR_TO_CTRL || req->len != nr * NVMF_DSM_RANGE_LEN) {
		nvmf_req_fail(req, NVMF_SC_SGL_INVALID_DATA_LEN);
		return;
	}
	for (i = 0; i < nr && sc == NVMF_SC_SUCCESS; i++)
		sc = io_range(ns, nvmf_get64(req->data, i * NVMF_DSM_RANGE_LEN + NVMF_DSM_RANGE_SLBA),
			      nvmf_get32(req->data, i * NVMF_DSM_RANGE_LEN + NVMF_DSM_RANGE_NLB),
			      &off);
	if (sc != NVMF_SC_SUCCESS) {
		nvmf_req_fail(req, sc);
		return;
	}
	for (i = 0; i < nr && dealloc; i++) {
		const uint8_t *r = req->data + i * NVMF_DSM_RANGE_LEN;
		uint64_t nlb = nvmf_get32(r, NVMF_DSM_RANGE_NLB);

		io_range(ns, nvmf_get64(r, NVMF_DSM_RANGE_SLBA), nlb, &off);
		if (nlb != 0)
			ns_op(req, ns, NVMF_FILE_DEALLOCATE, off, nlb << ns->block_shift);
	}
}

void
nvmf_io_exec(struct nvmf_req *req)
{
	const struct nvmf_subsys *s = req->q->ctrl->subsys;
	uint32_t nsid = nvmf_get32(req->sqe, NVMF_SQE_NSID);
	const struct nvmf_ns *ns = nsid >= 1 && nsid <= s->nb_ns ? &s->ns[nsid - 1] : NULL;
	uint8_t opc = req->sqe[NVMF_SQE_OPC];

	if (opc > NVMF_IO_DSM || (opc > NVMF_IO_READ && opc < NVMF_IO_WRITE_ZEROES)) {
		nvmf_req_fail(req, NVMF_SC_INVALID_OPCODE);
		return;
	}
	if (ns == NULL) {
		nvmf_req_fail(req, NVMF_SC_INVALID_NS);
		return;
	}
	switch (opc) {
	case NVMF_IO_READ:
		io_rw(req, ns, false);
		break;
	case NVMF_IO_WRITE:
		io_rw(req, ns, true);
		break;
	case NVMF_IO_WRITE_ZEROES:
		io_write_zeroes(req, ns);
		break;
	case NVMF_IO_DSM:
		io_dsm(req, ns);
		break;
	default:	/* NVMF_IO_FLUSH */
		ns_op(req, ns, NVMF_FILE_FLUSH, 0, 0);
		break;
	}
}
