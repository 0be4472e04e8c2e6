/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The work-request interface of an extended QP (ibv_wr_post(3): ibv_wr_start,
 * the WR builders and setters, ibv_wr_complete, ibv_wr_abort) on
 * librte_roce's post-send path. The builders and setters fill a batch of
 * struct ibv_send_wr; ibv_wr_complete() posts the batch with
 * rte_roce_post_send_all(), all of it or nothing, as the man page asks. The
 * batch is the calling thread's: between ibv_wr_start() and its
 * ibv_wr_complete()/abort() one thread works on a QP (as with a thread
 * domain: the layer takes no lock, as for ibv_post_send). A failure in a
 * builder or setter (they return nothing) is logged and remembered, and
 * ibv_wr_complete() returns it and posts nothing. doc/verbs-abi.md.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include <rte_roce_verbs.h>

#include "roce_verbs.h"

/* QPs one thread may have between ibv_wr_start() and ibv_wr_complete() at once. */
#define RV_WR_BATCHES 8
/* First room of a batch's arrays; they double when full. */
#define RV_WR_ROOM_MIN 16

/* One WR of a batch: its SGEs are indexes until the batch is posted. */
struct rv_wr {
	struct ibv_send_wr wr;
	uint32_t sge_first;	/* in rv_batch.sges */
	bool inline_data;	/* its SGE addresses are offsets in rv_batch.inl */
};

/* The WRs built on one QP since its ibv_wr_start(). */
struct rv_batch {
	struct ibv_qp_ex *qpx;	/* NULL: a free slot */
	int err;		/* the first failure of a builder or setter */
	struct rv_wr *wrs;
	uint32_t nb_wr, wr_room;
	struct ibv_sge *sges;
	uint32_t nb_sge, sge_room;
	uint8_t *inl;		/* inline data, copied by the setters */
	uint32_t inl_len, inl_room;
};

static __thread struct rv_batch rv_batches[RV_WR_BATCHES];
static pthread_key_t rv_batches_key;
static pthread_once_t rv_batches_once = PTHREAD_ONCE_INIT;

/* A thread's batch arrays, freed when it exits. */
static void
rv_batches_free(void *arg)
{
	struct rv_batch *b = arg;
	unsigned int i;

	for (i = 0; i < RV_WR_BATCHES; i++) {
		free(b[i].wrs);
		free(b[i].sges);
		free(b[i].inl);
	}
}

static void
rv_batches_key_create(void)
{
	if (pthread_key_create(&rv_batches_key, rv_batches_free) != 0)
		RV_LOG(WARNING, "no thread key: a thread's WR batch memory stays after it exits");
}

/* Make room for need elements of size in *buf: false when memory is short. */
static bool
rv_grow(void **buf, uint32_t *room, uint32_t need, size_t size)
{
	uint32_t n = RTE_MAX(*room, (uint32_t)RV_WR_ROOM_MIN);
	void *p;

	if (need <= *room)
		return true;
	while (n < need)
		n *= 2;
	p = realloc(*buf, (size_t)n * size);
	if (p == NULL)
		return false;
	if (*buf == NULL) {	/* the thread's first allocation */
		pthread_once(&rv_batches_once, rv_batches_key_create);
		pthread_setspecific(rv_batches_key, rv_batches);
	}
	*buf = p;
	*room = n;
	return true;
}

/* Remember the batch's first failure (ibv_wr_complete() returns it). */
static void
rv_batch_fail(struct rv_batch *b, int err, const char *call, const char *why)
{
	RV_LOG(ERR, "QP 0x%x: %s: %s; ibv_wr_complete() will post nothing",
	       b->qpx->qp_base.qp_num, call, why);
	if (b->err == 0)
		b->err = err;
}

static struct rv_batch *
rv_batch_find(const struct ibv_qp_ex *qpx)
{
	unsigned int i;

	for (i = 0; i < RV_WR_BATCHES; i++)
		if (rv_batches[i].qpx == qpx)
			return &rv_batches[i];
	return NULL;
}

/* The open batch of qpx, or NULL (logged) outside ibv_wr_start() ... complete(). */
static struct rv_batch *
rv_batch_of(const struct ibv_qp_ex *qpx, const char *call)
{
	struct rv_batch *b = rv_batch_find(qpx);

	if (b == NULL)
		RV_LOG(ERR, "QP 0x%x: %s without ibv_wr_start() in this thread: ignored",
		       qpx->qp_base.qp_num, call);
	return b;
}

static void
rv_batch_close(struct rv_batch *b)
{
	b->qpx = NULL;
	b->err = 0;
	b->nb_wr = 0;
	b->nb_sge = 0;
	b->inl_len = 0;
}

static void
rv_wr_start(struct ibv_qp_ex *qpx)
{
	struct rv_batch *b = rv_batch_find(qpx);

	if (b != NULL) {
		RV_LOG(ERR, "QP 0x%x: ibv_wr_start() again before ibv_wr_complete(): the WRs "
		       "built since the first are discarded", qpx->qp_base.qp_num);
		rv_batch_close(b);
	} else {
		b = rv_batch_find(NULL);
	}
	if (b == NULL) {
		RV_LOG(ERR, "QP 0x%x: ibv_wr_start() with %d QPs already started in this thread: "
		       "ibv_wr_complete() will fail", qpx->qp_base.qp_num, RV_WR_BATCHES);
		return;
	}
	b->qpx = qpx;
}

/* A new WR of the batch (a builder), or NULL if the batch has none or is out of memory. */
static struct ibv_send_wr *
rv_wr_new(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode, const char *call)
{
	struct rv_batch *b = rv_batch_of(qpx, call);
	struct rv_wr *w;

	if (b == NULL)
		return NULL;
	if (!rv_grow((void **)&b->wrs, &b->wr_room, b->nb_wr + 1, sizeof(*b->wrs))) {
		rv_batch_fail(b, ENOMEM, call, "out of memory");
		return NULL;
	}
	w = &b->wrs[b->nb_wr++];
	memset(w, 0, sizeof(*w));
	w->wr.wr_id = qpx->wr_id;
	w->wr.send_flags = qpx->wr_flags;
	w->wr.opcode = opcode;
	w->sge_first = b->nb_sge;
	return &w->wr;
}

/* The batch's last WR, for a setter; NULL (the batch failed) if there is none. */
static struct rv_wr *
rv_wr_last(struct ibv_qp_ex *qpx, const char *call, struct rv_batch **batch)
{
	struct rv_batch *b = rv_batch_of(qpx, call);

	if (b == NULL)
		return NULL;
	if (b->nb_wr == 0) {
		rv_batch_fail(b, EINVAL, call, "a setter before any WR builder");
		return NULL;
	}
	*batch = b;
	return &b->wrs[b->nb_wr - 1];
}

/* The builders. */

static void
rv_wr_send(struct ibv_qp_ex *qpx)
{
	rv_wr_new(qpx, IBV_WR_SEND, __func__);
}

static void
rv_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct ibv_send_wr *wr = rv_wr_new(qpx, IBV_WR_SEND_WITH_IMM, __func__);

	if (wr != NULL)
		wr->imm_data = imm_data;
}

static void
rv_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = rv_wr_new(qpx, IBV_WR_SEND_WITH_INV, __func__);

	if (wr != NULL)
		wr->invalidate_rkey = invalidate_rkey;
}

static struct ibv_send_wr *
rv_wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode, uint32_t rkey, uint64_t addr,
	   const char *call)
{
	struct ibv_send_wr *wr = rv_wr_new(qpx, opcode, call);

	if (wr != NULL) {
		wr->wr.rdma.rkey = rkey;
		wr->wr.rdma.remote_addr = addr;
	}
	return wr;
}

static void
rv_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	rv_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr, __func__);
}

static void
rv_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, __be32 imm_data)
{
	struct ibv_send_wr *wr = rv_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr,
					    __func__);

	if (wr != NULL)
		wr->imm_data = imm_data;
}

static void
rv_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	rv_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr, __func__);
}

static void
rv_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode, uint32_t rkey, uint64_t addr,
	     uint64_t compare_add, uint64_t swap, const char *call)
{
	struct ibv_send_wr *wr = rv_wr_new(qpx, opcode, call);

	if (wr != NULL) {
		wr->wr.atomic.rkey = rkey;
		wr->wr.atomic.remote_addr = addr;
		wr->wr.atomic.compare_add = compare_add;
		wr->wr.atomic.swap = swap;
	}
}

static void
rv_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
		     uint64_t compare, uint64_t swap)
{
	rv_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, compare, swap, __func__);
}

static void
rv_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, uint64_t add)
{
	rv_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0, __func__);
}

/*
 * The builders of operations librte_roce does not have: their
 * send_ops_flags are refused when the QP is created, so only a program
 * that calls them anyway gets here.
 */
static void
rv_wr_unsupported(struct ibv_qp_ex *qpx, const char *call)
{
	struct rv_batch *b = rv_batch_of(qpx, call);

	if (b != NULL)
		rv_batch_fail(b, EOPNOTSUPP, call, "not supported on librte_roce devices");
}

static void
rv_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
	      const struct ibv_mw_bind_info *bind_info)
{
	RTE_SET_USED(mw);
	RTE_SET_USED(rkey);
	RTE_SET_USED(bind_info);
	rv_wr_unsupported(qpx, __func__);
}

static void
rv_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	RTE_SET_USED(invalidate_rkey);
	rv_wr_unsupported(qpx, __func__);
}

static void
rv_wr_send_tso(struct ibv_qp_ex *qpx, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
	RTE_SET_USED(hdr);
	RTE_SET_USED(hdr_sz);
	RTE_SET_USED(mss);
	rv_wr_unsupported(qpx, __func__);
}

static void
rv_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	RTE_SET_USED(remote_srqn);
	rv_wr_unsupported(qpx, __func__);
}

/* The setters: they apply to the batch's last WR. */

static void
rv_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah, uint32_t remote_qpn,
		  uint32_t remote_qkey)
{
	struct rv_batch *b;
	struct rv_wr *w = rv_wr_last(qpx, __func__, &b);

	if (w == NULL)
		return;
	w->wr.wr.ud.ah = ah;
	w->wr.wr.ud.remote_qpn = remote_qpn;
	w->wr.wr.ud.remote_qkey = remote_qkey;
}

/* Give the last WR num SGEs from the batch's pool: their first, or NULL (the batch failed). */
static struct ibv_sge *
rv_wr_sges(struct ibv_qp_ex *qpx, size_t num, bool inline_data, const char *call)
{
	struct rv_batch *b;
	struct rv_wr *w = rv_wr_last(qpx, call, &b);

	if (w == NULL)
		return NULL;
	if (num > INT32_MAX ||
	    !rv_grow((void **)&b->sges, &b->sge_room, b->nb_sge + num, sizeof(*b->sges))) {
		rv_batch_fail(b, ENOMEM, call, "out of memory");
		return NULL;
	}
	w->sge_first = b->nb_sge;
	w->wr.num_sge = num;
	w->inline_data = inline_data;
	if (inline_data)
		w->wr.send_flags |= IBV_SEND_INLINE;
	b->nb_sge += num;
	return &b->sges[w->sge_first];
}

static void
rv_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct ibv_sge *sge = rv_wr_sges(qpx, 1, false, __func__);

	if (sge != NULL)
		*sge = (struct ibv_sge){ .addr = addr, .length = length, .lkey = lkey };
}

static void
rv_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge, const struct ibv_sge *sg_list)
{
	struct ibv_sge *sge = rv_wr_sges(qpx, num_sge, false, __func__);

	if (sge != NULL && num_sge != 0)
		memcpy(sge, sg_list, num_sge * sizeof(*sge));
}

/*
 * Inline data is copied now (the caller may reuse its buffers at once),
 * concatenated into one SGE whose address is an offset in the batch's
 * inline bytes until the batch is posted; librte_roce copies it again into
 * the WQE and refuses more than the QP's max_inline_data.
 */
static void
rv_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
			   const struct ibv_data_buf *buf_list)
{
	struct rv_batch *b = rv_batch_find(qpx);
	struct ibv_sge *sge = rv_wr_sges(qpx, 1, true, __func__);
	uint64_t total = 0;
	size_t i;

	if (sge == NULL)
		return;
	for (i = 0; i < num_buf; i++)
		total += buf_list[i].length;
	if (total > UINT32_MAX - b->inl_len ||
	    !rv_grow((void **)&b->inl, &b->inl_room, b->inl_len + total, 1)) {
		rv_batch_fail(b, total > UINT32_MAX ? EINVAL : ENOMEM, __func__,
			      "inline data too long for memory");
		return;
	}
	*sge = (struct ibv_sge){ .addr = b->inl_len, .length = total };
	for (i = 0; i < num_buf; i++) {
		memcpy(b->inl + b->inl_len, buf_list[i].addr, buf_list[i].length);
		b->inl_len += buf_list[i].length;
	}
}

static void
rv_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr, size_t length)
{
	const struct ibv_data_buf buf = { .addr = addr, .length = length };

	rv_wr_set_inline_data_list(qpx, 1, &buf);
}

/*
 * ATOMIC_WRITE (IBA A19): the 8 bytes at atomic_wr travel as the WR's
 * inline data, copied now like any inline data (rte_roce_post_send(): RC,
 * an 8-byte aligned remote address).
 */
static void
rv_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
		   const void *atomic_wr)
{
	const struct ibv_data_buf buf = { .addr = (void *)(uintptr_t)atomic_wr, .length = 8 };

	if (rv_wr_rdma(qpx, IBV_WR_ATOMIC_WRITE, rkey, remote_addr, __func__) != NULL)
		rv_wr_set_inline_data_list(qpx, 1, &buf);
}

/* Link the batch into one chain with real SGE and inline addresses. */
static void
rv_batch_link(struct rv_batch *b)
{
	uint32_t i, s;

	for (i = 0; i < b->nb_wr; i++) {
		struct rv_wr *w = &b->wrs[i];

		w->wr.next = i + 1 < b->nb_wr ? &b->wrs[i + 1].wr : NULL;
		w->wr.sg_list = w->wr.num_sge != 0 ? &b->sges[w->sge_first] : NULL;
		if (w->inline_data)
			for (s = 0; s < (uint32_t)w->wr.num_sge; s++)
				w->wr.sg_list[s].addr += (uintptr_t)b->inl;
	}
}

static int
rv_wr_complete(struct ibv_qp_ex *qpx)
{
	struct rv_batch *b = rv_batch_of(qpx, __func__);
	struct ibv_send_wr *bad_wr;
	int rc;

	if (b == NULL)
		return EINVAL;
	rc = b->err;
	if (rc == 0 && b->nb_wr != 0) {
		rv_batch_link(b);
		rc = roce_verbs_errno(rte_roce_post_send_all(&qpx->qp_base, &b->wrs[0].wr,
							     &bad_wr));
		if (rc != 0)
			RV_LOG(ERR, "QP 0x%x: WR %u of %u refused (%s): nothing posted",
			       qpx->qp_base.qp_num,
			       (unsigned int)((struct rv_wr *)bad_wr - b->wrs), b->nb_wr,
			       strerror(rc));
	}
	rv_batch_close(b);
	return rc;
}

static void
rv_wr_abort(struct ibv_qp_ex *qpx)
{
	struct rv_batch *b = rv_batch_of(qpx, __func__);

	if (b != NULL)
		rv_batch_close(b);
}

void
roce_verbs_qp_ex_init(struct ibv_qp_ex *qpx)
{
	qpx->wr_atomic_cmp_swp = rv_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = rv_wr_atomic_fetch_add;
	qpx->wr_bind_mw = rv_wr_bind_mw;
	qpx->wr_local_inv = rv_wr_local_inv;
	qpx->wr_rdma_read = rv_wr_rdma_read;
	qpx->wr_rdma_write = rv_wr_rdma_write;
	qpx->wr_rdma_write_imm = rv_wr_rdma_write_imm;
	qpx->wr_send = rv_wr_send;
	qpx->wr_send_imm = rv_wr_send_imm;
	qpx->wr_send_inv = rv_wr_send_inv;
	qpx->wr_send_tso = rv_wr_send_tso;
	qpx->wr_set_ud_addr = rv_wr_set_ud_addr;
	qpx->wr_set_xrc_srqn = rv_wr_set_xrc_srqn;
	qpx->wr_set_inline_data = rv_wr_set_inline_data;
	qpx->wr_set_inline_data_list = rv_wr_set_inline_data_list;
	qpx->wr_set_sge = rv_wr_set_sge;
	qpx->wr_set_sge_list = rv_wr_set_sge_list;
	qpx->wr_atomic_write = rv_wr_atomic_write;
	/* Last: ibv_qp_to_qp_ex() takes a QP with wr_start for an extended one. */
	qpx->wr_complete = rv_wr_complete;
	qpx->wr_abort = rv_wr_abort;
	qpx->wr_start = rv_wr_start;
}
