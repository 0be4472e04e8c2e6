/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_QUEUE_H
#define ROCE_QUEUE_H

/*
 * Single-producer / single-consumer ring of fixed-stride slots: the send
 * and receive queues of a QP (WQEs) and the completion queues (struct
 * ibv_wc).
 *
 * Notes (the memory-ordering contract, as rxe_queue.h's):
 *   - Indexes are free-running uint32_t; a slot is index & mask. The ring
 *     holds at most size = mask + 1 entries (a power of two, <= 2^31), so
 *     prod - cons is always the number of entries, wrap included.
 *   - prod is written by the producer only, cons by the consumer only.
 *   - The producer fills a slot with plain stores, then publishes it with a
 *     RELEASE store of prod (roce_queue_publish()). The consumer reads prod
 *     with ACQUIRE (roce_queue_prod()) before reading a slot, so it sees
 *     the slot's contents written before the publish.
 *   - The consumer reads a slot, then frees it with a RELEASE store of cons
 *     (roce_queue_retire()). The producer reads cons with ACQUIRE
 *     (roce_queue_cons()) before reusing a slot, so the consumer's reads
 *     are finished before the slot is overwritten.
 *   - Each side may read its own index with a relaxed load (it is the only
 *     writer). Neither side ever writes the other's index; there is no
 *     compare-and-swap, no lock and no system call.
 *   - prod and cons live on different cache lines so that the two threads
 *     do not bounce one line on every operation.
 * Send queues have a second consumer-side position, the requester's
 * (struct roce_req_state wqe_idx): it walks ahead of cons on the engine's
 * own thread and needs no ordering beyond the ACQUIRE of prod.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_malloc.h>

struct roce_queue {
	uint32_t prod __rte_cache_aligned;	/* producer's index */
	uint32_t cons __rte_cache_aligned;	/* consumer's index */
	uint8_t *slots __rte_cache_aligned;	/* size * stride bytes */
	uint32_t stride;			/* bytes per slot */
	uint32_t mask;				/* size - 1 */
};

/* Largest ring: indexes are free-running uint32_t. */
#define ROCE_QUEUE_MAX_SIZE (1u << 31)

/* Allocate a ring of at least count slots (rounded up to a power of two): 0, -EINVAL or -ENOMEM. */
static inline int
roce_queue_init(struct roce_queue *q, uint32_t count, uint32_t stride, int socket)
{
	uint32_t size;

	if (count == 0 || count > ROCE_QUEUE_MAX_SIZE || stride == 0)
		return -EINVAL;
	size = rte_align32pow2(count);
	q->slots = rte_zmalloc_socket("roce_queue", (size_t)size * stride, RTE_CACHE_LINE_SIZE,
				      socket);
	if (q->slots == NULL)
		return -ENOMEM;
	q->stride = stride;
	q->mask = size - 1;
	q->prod = 0;
	q->cons = 0;
	return 0;
}

/* Free the slots. */
static inline void
roce_queue_fini(struct roce_queue *q)
{
	rte_free(q->slots);
	q->slots = NULL;
}

/* Empty the ring (both indexes to 0); neither side may run concurrently. */
static inline void
roce_queue_reset(struct roce_queue *q)
{
	__atomic_store_n(&q->prod, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&q->cons, 0, __ATOMIC_RELAXED);
}

static inline uint32_t
roce_queue_size(const struct roce_queue *q)
{
	return q->mask + 1;
}

static inline void *
roce_queue_slot(const struct roce_queue *q, uint32_t idx)
{
	return q->slots + (size_t)(idx & q->mask) * q->stride;
}

/* Producer index, as the consumer reads it: ACQUIRE, pairs with roce_queue_publish(). */
static inline uint32_t
roce_queue_prod(const struct roce_queue *q)
{
	return __atomic_load_n(&q->prod, __ATOMIC_ACQUIRE);
}

/* Consumer index, as the producer reads it: ACQUIRE, pairs with roce_queue_retire(). */
static inline uint32_t
roce_queue_cons(const struct roce_queue *q)
{
	return __atomic_load_n(&q->cons, __ATOMIC_ACQUIRE);
}

/* Producer: make every slot before idx visible to the consumer (the doorbell). */
static inline void
roce_queue_publish(struct roce_queue *q, uint32_t idx)
{
	__atomic_store_n(&q->prod, idx, __ATOMIC_RELEASE);
}

/* Consumer: give every slot before idx back to the producer. */
static inline void
roce_queue_retire(struct roce_queue *q, uint32_t idx)
{
	__atomic_store_n(&q->cons, idx, __ATOMIC_RELEASE);
}

/* Producer side: slots free from the producer's point of view. */
static inline uint32_t
roce_queue_free(const struct roce_queue *q)
{
	return roce_queue_size(q) - (q->prod - roce_queue_cons(q));
}

/* Consumer side: entries published and not yet retired. */
static inline uint32_t
roce_queue_count(const struct roce_queue *q)
{
	return roce_queue_prod(q) - q->cons;
}

#endif /* ROCE_QUEUE_H */
