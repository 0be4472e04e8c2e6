/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Namespaces backed by a file or a block device, through one io_uring of
 * the target (doc/nvmf.md, "Threading model"): a command's I/O is
 * submitted from the poll loop and its completion reaped by a later
 * nvmf_tgt_poll(), so that the loop never blocks on the disk. Read and
 * Write move the data buffer (or the in-capsule data); Flush is an
 * fdatasync; Write Zeroes and deallocate are fallocate() of the range
 * (zero range, punched hole).
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/falloc.h>
#include <linux/fs.h>

#include "nvmf_priv.h"

#define NVMF_RING_ENTRIES	4096

/* The size of the file or block device behind fd, in bytes. */
static int
file_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, size) == 0 ? 0 : -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	*size = (uint64_t)st.st_size;
	return 0;
}

int
nvmf_file_ns_open(struct nvmf_ns *ns, const struct nvmf_ns_conf *conf)
{
	uint64_t size = 0;
	int rc;

	ns->fd = open(conf->path, O_RDWR | O_CLOEXEC);
	if (ns->fd < 0) {
		rc = -errno;
		NVMF_LOG(ERR, "namespace %u: %s: %s", ns->nsid, conf->path, strerror(-rc));
		return rc;
	}
	rc = file_size(ns->fd, &size);
	if (rc == 0 && conf->size != 0 && conf->size > size)
		rc = -EINVAL;
	if (rc == 0 && conf->size != 0)
		size = conf->size;
	if (rc == 0 && (size >> ns->block_shift) == 0)
		rc = -EINVAL;
	if (rc != 0) {
		NVMF_LOG(ERR, "namespace %u: %s: not a file or block device of at least one "
			 "block (and of the size asked, if any)", ns->nsid, conf->path);
		close(ns->fd);
		ns->fd = -1;
		return rc;
	}
	ns->nblocks = size >> ns->block_shift;
	ns->whole_file = conf->size == 0;
	return 0;
}

/* A namespace that is the whole of its file takes the file's size again: 1 if it changed. */
int
nvmf_file_ns_rescan(struct nvmf_ns *ns)
{
	uint64_t size = 0, nblocks;
	int rc;

	if (ns->fd < 0 || !ns->whole_file)
		return 0;
	rc = file_size(ns->fd, &size);
	if (rc != 0)
		return rc;
	nblocks = size >> ns->block_shift;
	if (nblocks == ns->nblocks)
		return 0;
	NVMF_LOG(INFO, "namespace %u: %lu blocks, was %lu", ns->nsid, (unsigned long)nblocks,
		 (unsigned long)ns->nblocks);
	ns->nblocks = nblocks;
	return 1;
}

int
nvmf_file_ring_init(struct nvmf_tgt *tgt)
{
	int rc = io_uring_queue_init(NVMF_RING_ENTRIES, &tgt->ring, 0);

	if (rc != 0) {
		NVMF_LOG(ERR, "file namespaces need io_uring: %s", strerror(-rc));
		return rc;
	}
	tgt->ring_up = true;
	return 0;
}

void
nvmf_file_ring_fini(struct nvmf_tgt *tgt)
{
	if (tgt->ring_up)
		io_uring_queue_exit(&tgt->ring);
	tgt->ring_up = false;
}

/* One operation of req on the namespace's file; the request waits for all of them. */
int
nvmf_file_submit(struct nvmf_req *req, const struct nvmf_ns *ns, enum nvmf_file_op op,
		 uint64_t off, uint64_t len)
{
	struct io_uring *ring = &req->q->tgt->ring;
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (sqe == NULL) {
		io_uring_submit(ring);	/* room for more */
		sqe = io_uring_get_sqe(ring);
	}
	if (sqe == NULL)
		return -EBUSY;
	switch (op) {
	case NVMF_FILE_READ:
		io_uring_prep_read(sqe, ns->fd, req->data, (unsigned int)len, off);
		break;
	case NVMF_FILE_WRITE:
		io_uring_prep_write(sqe, ns->fd, req->data, (unsigned int)len, off);
		break;
	case NVMF_FILE_FLUSH:
		io_uring_prep_fsync(sqe, ns->fd, IORING_FSYNC_DATASYNC);
		break;
	case NVMF_FILE_ZERO:
		io_uring_prep_fallocate(sqe, ns->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
					off, len);
		break;
	default:	/* NVMF_FILE_DEALLOCATE */
		io_uring_prep_fallocate(sqe, ns->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					off, len);
		break;
	}
	io_uring_sqe_set_data(sqe, req);
	req->q->tgt->stats.file_ios++;
	if (req->io_pending++ == 0) {
		req->q->io_reqs++;
		req->io_len = (uint32_t)len;
		req->io_op = op;
	}
	req->state = NVMF_REQ_IO_WAIT;
	return 0;
}

/* A completion's status: a short transfer is an error as a failed one is. */
static uint16_t
file_status(const struct nvmf_req *req, int res)
{
	bool rw = req->io_op == NVMF_FILE_READ || req->io_op == NVMF_FILE_WRITE;

	if (res >= 0 && (!rw || (uint32_t)res == req->io_len))
		return NVMF_SC_SUCCESS;
	req->q->tgt->stats.io_errors++;
	NVMF_LOG(WARNING, "queue %u: file I/O failed: %s", req->q->qid,
		 res < 0 ? strerror(-res) : "short transfer");
	if (req->io_op == NVMF_FILE_READ)
		return NVMF_SC_UNRECOVERED_READ;
	return req->io_op == NVMF_FILE_WRITE ? NVMF_SC_WRITE_FAULT : NVMF_SC_INTERNAL;
}

int
nvmf_file_poll(struct nvmf_tgt *tgt)
{
	struct io_uring_cqe *cqe;
	int n = 0;

	if (!tgt->ring_up)
		return 0;
	if (io_uring_sq_ready(&tgt->ring) != 0)
		io_uring_submit(&tgt->ring);
	while (io_uring_peek_cqe(&tgt->ring, &cqe) == 0) {
		struct nvmf_req *req = io_uring_cqe_get_data(cqe);
		uint16_t status = file_status(req, cqe->res);

		io_uring_cqe_seen(&tgt->ring, cqe);
		if (status != NVMF_SC_SUCCESS && req->status == NVMF_SC_SUCCESS)
			req->status = status;
		if (--req->io_pending == 0)
			nvmf_req_io_done(req);
		n++;
	}
	return n;
}
