/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Memory regions: registration, lookup by key with PD, access and bounds
 * checks, in-use counting, and the copies between SGE lists and packets.
 *
 * Deregistration against a concurrent post or lookup (Dekker's pattern,
 * both sides sequentially consistent): a user increments users and then
 * reads the state; dereg sets it INVALID and then reads users. At least one
 * of them sees the other, so dereg never succeeds while a user holds the MR
 * (the user backs off and fails its lookup instead, as if it came after).
 * Invalidation against a window bound on another lane is the same pattern
 * on nb_mw: the bind counts itself then reads the state, the invalidation
 * sets FREE then reads nb_mw.
 */

/* Logs under lib.roce.mr (roce_log.h). */
#define ROCE_LOG_TYPE roce_logtype_mr
#define ROCE_LOG_AREA "ROCE mr"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_dev.h"
#include "roce_log.h"
#include "roce_mr.h"

/* Optional access bits (RC:verbs.h IBV_ACCESS_OPTIONAL_RANGE): a provider may ignore them. */
#define ROCE_MR_ACCESS_IGNORED	IBV_ACCESS_OPTIONAL_RANGE

int
roce_mr_table_init(struct roce_dev *dev)
{
	/* Entry 0 is never used: key 0 is always invalid. */
	dev->mr_tbl = rte_zmalloc_socket("roce_mr_tbl",
					 (size_t)(dev->conf.max_mr + 1) * sizeof(*dev->mr_tbl),
					 RTE_CACHE_LINE_SIZE, dev->socket);
	if (dev->mr_tbl == NULL)
		return -ENOMEM;
	return roce_index_fifo_init(&dev->mr_free, dev->conf.max_mr, 1, dev->socket);
}

void
roce_mr_table_fini(struct roce_dev *dev)
{
	roce_index_fifo_fini(&dev->mr_free);
	rte_free(dev->mr_tbl);
	dev->mr_tbl = NULL;
}

/*
 * The range is mapped memory: the engine reads and writes it while serving
 * the peer, so an unmapped page would crash the process at the peer's first
 * access. The kernel refuses the same registration with EFAULT (pinning the
 * pages fails). msync() with MS_ASYNC only walks the mappings: ENOMEM when
 * part of the range is not mapped (msync(2)).
 */
static int
roce_mr_check_mapped(const void *addr, size_t length)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = RTE_ALIGN_FLOOR((uintptr_t)addr, page);

	if (length == 0 || msync((void *)start, (uintptr_t)addr + length - start, MS_ASYNC) == 0)
		return 0;
	ROCE_LOG(ERR, "range %p + %zu bytes is not all mapped memory: register allocated buffers "
		 "only", addr, length);
	return -EFAULT;
}

static int
roce_mr_check_access(int access)
{
	if ((access & ~(ROCE_MR_ACCESS_SUPPORTED | ROCE_MR_ACCESS_IGNORED)) != 0) {
		ROCE_LOG(ERR, "unsupported access flags 0x%x",
			 access & ~(ROCE_MR_ACCESS_SUPPORTED | ROCE_MR_ACCESS_IGNORED));
		return -EINVAL;
	}
	/* ibv_reg_mr(3): remote write or atomic rights require local write. */
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) != 0 &&
	    (access & IBV_ACCESS_LOCAL_WRITE) == 0) {
		ROCE_LOG(ERR, "REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE");
		return -EINVAL;
	}
	return 0;
}

struct ibv_mr *
roce_ctrl_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	struct roce_dev *dev;
	struct roce_mr *mr;
	uint32_t idx;
	int rc;

	if (pd == NULL || (addr == NULL && length != 0)) {
		ROCE_LOG(ERR, "NULL pd, or NULL addr with length %zu", length);
		rte_errno = EINVAL;
		return NULL;
	}
	if ((uintptr_t)addr + length < (uintptr_t)addr) {
		ROCE_LOG(ERR, "range %p + %zu wraps", addr, length);
		rte_errno = EINVAL;
		return NULL;
	}
	rc = roce_mr_check_access(access);
	if (rc == 0)
		rc = roce_mr_check_mapped(addr, length);
	if (rc < 0) {
		rte_errno = -rc;
		return NULL;
	}
	dev = roce_dev_of(pd->context);
	if (dev->nb_mrs >= dev->conf.max_mr) {
		ROCE_LOG(ERR, "device %s: max_mr (%u) reached: rte_roce_dev_conf.max_mr raises it",
			 dev->ibv_dev.name, dev->conf.max_mr);
		rte_errno = ENOSPC;
		return NULL;
	}
	idx = roce_index_fifo_get(&dev->mr_free);
	dev->nb_mrs++;

	mr = &dev->mr_tbl[idx];
	mr->gen++;
	mr->access = access & ROCE_MR_ACCESS_SUPPORTED;
	mr->start = (uintptr_t)addr;
	mr->end = mr->start + length;
	mr->ibv.context = pd->context;
	mr->ibv.pd = pd;
	mr->ibv.addr = addr;
	mr->ibv.length = length;
	mr->ibv.handle = idx;
	mr->ibv.lkey = idx << ROCE_MR_KEY_GEN_BITS | mr->gen;
	mr->ibv.rkey = mr->ibv.lkey;
	roce_pd_of(pd)->users++;
	/* Publish: a lookup that sees VALID sees the fields above. */
	__atomic_store_n(&mr->state, ROCE_MR_STATE_VALID, __ATOMIC_SEQ_CST);
	return &mr->ibv;
}

int
roce_ctrl_dereg_mr(struct ibv_mr *ibv_mr)
{
	struct roce_mr *mr;
	struct roce_dev *dev;
	uint32_t users;
	uint8_t state;

	if (ibv_mr == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	mr = roce_mr_of(ibv_mr);
	state = __atomic_load_n(&mr->state, __ATOMIC_ACQUIRE);
	if (state == ROCE_MR_STATE_INVALID) {
		ROCE_LOG(ERR, "MR 0x%x is not registered", ibv_mr->lkey);
		return -EINVAL;
	}
	/* Windows are bound by the engines, which the control path holds: no race. */
	users = __atomic_load_n(&mr->nb_mw, __ATOMIC_RELAXED);
	if (users != 0) {
		ROCE_LOG(ERR, "MR 0x%x has %u memory windows bound: unbind or free them first",
			 ibv_mr->lkey, users);
		return -EBUSY;
	}
	__atomic_store_n(&mr->state, ROCE_MR_STATE_INVALID, __ATOMIC_SEQ_CST);
	users = __atomic_load_n(&mr->users, __ATOMIC_SEQ_CST);
	if (users != 0) {
		__atomic_store_n(&mr->state, state, __ATOMIC_SEQ_CST);
		ROCE_LOG(WARNING, "MR 0x%x in use by %u work requests or operations",
			 ibv_mr->lkey, users);
		return -EBUSY;
	}
	dev = roce_dev_of(ibv_mr->context);
	roce_pd_of(ibv_mr->pd)->users--;
	roce_index_fifo_put(&dev->mr_free, ibv_mr->handle);
	dev->nb_mrs--;
	return 0;
}

/*
 * A local access needs LOCAL_WRITE to write and nothing to read; a remote
 * one needs the remote right of its operation (IBA 10.6.3.2), and at least
 * one: a remote access naming none is refused.
 */
static bool
roce_mr_rights(const struct roce_mr *mr, bool remote, int access)
{
	int need = access & (remote ? ROCE_MR_ACCESS_REMOTE : IBV_ACCESS_LOCAL_WRITE);

	if (need != access || (remote && need == 0))
		return false;
	return (mr->access & need) == need;
}

int
roce_mr_lookup_key(struct roce_dev *dev, uint32_t key, bool remote, struct ibv_pd *pd,
		   int access, struct roce_mr **out)
{
	uint32_t idx = key >> ROCE_MR_KEY_GEN_BITS;
	struct roce_mr *mr;
	int rc = 0;

	if (idx == 0 || idx > dev->conf.max_mr)
		return -ENOENT;
	mr = &dev->mr_tbl[idx];
	__atomic_fetch_add(&mr->users, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&mr->state, __ATOMIC_SEQ_CST) != ROCE_MR_STATE_VALID ||
	    mr->gen != (key & ROCE_MR_KEY_GEN_MASK))
		rc = -ENOENT;
	else if (mr->ibv.pd != pd)
		rc = -EACCES;
	else if (!roce_mr_rights(mr, remote, access))
		rc = -EACCES;
	if (rc < 0) {
		roce_mr_put(mr);
		return rc;
	}
	*out = mr;
	return 0;
}

int
roce_mr_lookup(struct roce_dev *dev, uint32_t key, bool remote, struct ibv_pd *pd,
	       uint64_t addr, uint64_t len, int access, struct roce_mr **out)
{
	struct roce_mr *mr;
	int rc;

	rc = roce_mr_lookup_key(dev, key, remote, pd, access, &mr);
	if (rc < 0)
		return rc;
	/* Overflow-safe bounds: addr + len never computed. */
	if (addr < mr->start || addr > mr->end || len > mr->end - addr) {
		roce_mr_put(mr);
		return -EFAULT;
	}
	*out = mr;
	return 0;
}

int
roce_mr_invalidate(struct roce_dev *dev, uint32_t key, struct ibv_pd *pd)
{
	uint32_t idx = key >> ROCE_MR_KEY_GEN_BITS;
	uint8_t valid = ROCE_MR_STATE_VALID;
	struct roce_mr *mr;

	if (idx == 0 || idx > dev->conf.max_mr)
		return -ENOENT;
	mr = &dev->mr_tbl[idx];
	if (mr->gen != (key & ROCE_MR_KEY_GEN_MASK))
		return -ENOENT;
	if (mr->ibv.pd != pd)
		return -EACCES;
	if (!__atomic_compare_exchange_n(&mr->state, &valid, ROCE_MR_STATE_FREE, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return -ENOENT;
	if (__atomic_load_n(&mr->nb_mw, __ATOMIC_SEQ_CST) != 0) {
		__atomic_store_n(&mr->state, ROCE_MR_STATE_VALID, __ATOMIC_SEQ_CST);
		return -EBUSY;
	}
	return 0;
}

int
roce_mr_add_window(struct roce_mr *mr)
{
	__atomic_fetch_add(&mr->nb_mw, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&mr->state, __ATOMIC_SEQ_CST) != ROCE_MR_STATE_VALID) {
		roce_mr_del_window(mr);
		return -ENOENT;
	}
	return 0;
}

int
roce_sge_resolve(struct roce_dev *dev, struct ibv_pd *pd, const struct ibv_sge *in,
		 int access, struct roce_sge *out)
{
	int rc;

	out->addr = in->addr;
	out->length = in->length;
	out->lkey = in->lkey;
	out->mr = NULL;
	if (in->length == 0)
		return 0;	/* nothing is accessed, so the key is not checked */
	rc = roce_mr_lookup(dev, in->lkey, false, pd, in->addr, in->length, access, &out->mr);
	return rc;
}

void
roce_sge_put(const struct roce_sge *sge, uint32_t num_sge)
{
	uint32_t i;

	for (i = 0; i < num_sge; i++)
		if (sge[i].mr != NULL)
			roce_mr_put(sge[i].mr);
}

enum ibv_wc_status
roce_copy_status(int err)
{
	switch (err) {
	case 0:
		return IBV_WC_SUCCESS;
	case -EACCES:
	case -ENOENT:
		return IBV_WC_LOC_PROT_ERR;
	case -EFAULT:
	case -EMSGSIZE:
		return IBV_WC_LOC_LEN_ERR;
	default:
		return IBV_WC_LOC_QP_OP_ERR;
	}
}

/* Copy len bytes between buf and the SGE list at cur, in the direction asked. */
static int
roce_sge_copy(const struct roce_sge *sge, uint32_t num_sge, struct roce_sge_cursor *cur,
	      uint8_t *buf, uint32_t len, bool to_sge)
{
	while (len > 0) {
		const struct roce_sge *s;
		uint32_t chunk;
		uint8_t *mem;

		if (cur->idx >= num_sge)
			return -EMSGSIZE;
		s = &sge[cur->idx];
		if (cur->off == s->length) {
			cur->idx++;
			cur->off = 0;
			continue;
		}
		if (s->mr == NULL)
			return -EACCES;
		chunk = RTE_MIN(len, s->length - cur->off);
		mem = (uint8_t *)(uintptr_t)(s->addr + cur->off);
		if (to_sge)
			memcpy(mem, buf, chunk);
		else
			memcpy(buf, mem, chunk);
		buf += chunk;
		len -= chunk;
		cur->off += chunk;
	}
	return 0;
}

int
roce_sge_gather(const struct roce_sge *sge, uint32_t num_sge, struct roce_sge_cursor *cur,
		void *dst, uint32_t len)
{
	return roce_sge_copy(sge, num_sge, cur, dst, len, false);
}

int
roce_sge_scatter(const struct roce_sge *sge, uint32_t num_sge, struct roce_sge_cursor *cur,
		 const void *src, uint32_t len)
{
	return roce_sge_copy(sge, num_sge, cur, (uint8_t *)(uintptr_t)src, len, true);
}

int
roce_sge_scatter_mbuf(const struct roce_sge *sge, uint32_t num_sge,
		      struct roce_sge_cursor *cur, const struct rte_mbuf *m, uint32_t off,
		      uint32_t len)
{
	int rc;

	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (len > 0) {
		uint32_t chunk;

		if (m == NULL)
			return -EMSGSIZE;
		chunk = RTE_MIN(len, (uint32_t)m->data_len - off);
		rc = roce_sge_scatter(sge, num_sge, cur, rte_pktmbuf_mtod_offset(m, void *, off),
				      chunk);
		if (rc < 0)
			return rc;
		len -= chunk;
		off = 0;
		m = m->next;
	}
	return 0;
}
