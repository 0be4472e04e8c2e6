/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The SPSC ring of roce_queue.h: sizing, full and empty, index wrap, and a
 * producer and a consumer on two threads checking that every entry arrives
 * once, in order, with the contents written before its publish.
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>

#include "roce_queue.h"

#include "roce_test.h"
#include "roce_test_eal.h"

/* Entries moved by the two-thread case: enough to wrap a small ring many times. */
#define SPSC_ITEMS	20000
#define SPSC_SLOTS	64

struct item {
	uint64_t seq;
	uint64_t check;		/* ~seq: a torn or stale slot shows */
};

static int
test_init(void)
{
	struct roce_queue q;

	ROCE_TEST_ASSERT_EQ(roce_queue_init(&q, 0, 8, SOCKET_ID_ANY), -EINVAL, "no slots");
	ROCE_TEST_ASSERT_EQ(roce_queue_init(&q, 4, 0, SOCKET_ID_ANY), -EINVAL, "stride 0");
	ROCE_TEST_ASSERT_EQ(roce_queue_init(&q, ROCE_QUEUE_MAX_SIZE + 1, 8, SOCKET_ID_ANY),
			    -EINVAL, "above 2^31");
	ROCE_TEST_ASSERT_EQ(roce_queue_init(&q, 5, 24, SOCKET_ID_ANY), 0, "init");
	ROCE_TEST_ASSERT_EQ(roce_queue_size(&q), 8, "rounded up to a power of two");
	ROCE_TEST_ASSERT_EQ(roce_queue_free(&q), 8, "empty");
	ROCE_TEST_ASSERT_EQ(roce_queue_count(&q), 0, "nothing to consume");
	ROCE_TEST_ASSERT((uint8_t *)roce_queue_slot(&q, 9) - (uint8_t *)roce_queue_slot(&q, 0) ==
			 24, "slot 9 is slot 1");
	roce_queue_fini(&q);
	return 0;
}

/* Indexes are free-running: the ring works across the uint32_t wrap. */
static int
test_wrap(void)
{
	struct roce_queue q;
	uint32_t i, start = UINT32_MAX - 2;

	ROCE_TEST_ASSERT_EQ(roce_queue_init(&q, 4, sizeof(uint32_t), SOCKET_ID_ANY), 0, "init");
	q.prod = start;
	q.cons = start;
	for (i = 0; i < 4; i++) {
		*(uint32_t *)roce_queue_slot(&q, q.prod) = i;
		roce_queue_publish(&q, q.prod + 1);
	}
	ROCE_TEST_ASSERT_EQ(roce_queue_free(&q), 0, "full across the wrap");
	ROCE_TEST_ASSERT_EQ(roce_queue_count(&q), 4, "four entries");
	for (i = 0; i < 4; i++) {
		ROCE_TEST_ASSERT_EQ(*(uint32_t *)roce_queue_slot(&q, q.cons), i, "entry %u", i);
		roce_queue_retire(&q, q.cons + 1);
	}
	ROCE_TEST_ASSERT_EQ(roce_queue_count(&q), 0, "empty");
	ROCE_TEST_ASSERT_EQ(q.cons, start + 4, "wrapped");
	roce_queue_reset(&q);
	ROCE_TEST_ASSERT(q.prod == 0 && q.cons == 0, "reset");
	roce_queue_fini(&q);
	return 0;
}

static void *
producer(void *arg)
{
	struct roce_queue *q = arg;
	uint64_t seq = 0;

	while (seq < SPSC_ITEMS) {
		struct item *it;

		if (roce_queue_free(q) == 0) {
			sched_yield();	/* 2 shared cores: let the consumer run */
			continue;
		}
		it = roce_queue_slot(q, q->prod);
		it->seq = seq;
		it->check = ~seq;
		roce_queue_publish(q, q->prod + 1);
		seq++;
	}
	return NULL;
}

static int
test_spsc_threads(void)
{
	struct roce_queue q;
	pthread_t thread;
	uint64_t seq = 0;
	int rc = 0;

	ROCE_TEST_ASSERT_EQ(roce_queue_init(&q, SPSC_SLOTS, sizeof(struct item), SOCKET_ID_ANY),
			    0, "init");
	ROCE_TEST_ASSERT_EQ(pthread_create(&thread, NULL, producer, &q), 0, "thread");
	/* Consume all of them even after an error, so that the producer always finishes. */
	while (seq < SPSC_ITEMS) {
		uint32_t n = roce_queue_count(&q);

		if (n == 0)
			sched_yield();
		while (n-- > 0) {
			const struct item *it = roce_queue_slot(&q, q.cons);

			if (rc == 0 && (it->seq != seq || it->check != ~seq)) {
				printf("# entry %" PRIu64 ": got %" PRIu64 "/%" PRIx64 "\n", seq,
				       it->seq, it->check);
				rc = -1;
			}
			roce_queue_retire(&q, q.cons + 1);
			seq++;
		}
	}
	pthread_join(thread, NULL);
	roce_queue_fini(&q);
	ROCE_TEST_ASSERT_EQ(rc, 0, "every entry once, in order, complete");
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "init", test_init },
	{ "wrap", test_wrap },
	{ "spsc_threads", test_spsc_threads },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return roce_test_main_eal(argv[0], cases, RTE_DIM(cases));
}
