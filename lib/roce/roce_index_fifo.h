/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_INDEX_FIFO_H
#define ROCE_INDEX_FIFO_H

/*
 * Free slots of a key table (MRs, memory windows): a FIFO, so the slot
 * freed longest ago is taken first and a key (index and generation) comes
 * back as late as possible. Control path only.
 */

#include <errno.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_malloc.h>

struct roce_index_fifo {
	uint32_t *idx;
	uint32_t size;
	uint32_t head;
	uint32_t count;		/* free slots */
};

/* size slots, numbered first .. first + size - 1, all free. 0 or -ENOMEM. */
static inline int
roce_index_fifo_init(struct roce_index_fifo *f, uint32_t size, uint32_t first, int socket)
{
	uint32_t i;

	f->idx = rte_malloc_socket("roce_index_fifo", (size_t)RTE_MAX(size, 1u) * sizeof(*f->idx),
				   0, socket);
	if (f->idx == NULL)
		return -ENOMEM;
	for (i = 0; i < size; i++)
		f->idx[i] = first + i;
	f->size = size;
	f->head = 0;
	f->count = size;
	return 0;
}

static inline void
roce_index_fifo_fini(struct roce_index_fifo *f)
{
	rte_free(f->idx);
	f->idx = NULL;
}

/* The oldest free slot; the caller checked count != 0. */
static inline uint32_t
roce_index_fifo_get(struct roce_index_fifo *f)
{
	uint32_t idx = f->idx[f->head];

	f->head = (f->head + 1) % f->size;
	f->count--;
	return idx;
}

static inline void
roce_index_fifo_put(struct roce_index_fifo *f, uint32_t idx)
{
	f->idx[(f->head + f->count) % f->size] = idx;
	f->count++;
}

#endif /* ROCE_INDEX_FIFO_H */
