/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_TSAN_H
#define ROCE_TSAN_H

/*
 * ThreadSanitizer cannot see the ordering DPDK's rte_ring gives on x86 (the
 * generic model: compiler barriers, no C11 atomics; devtools/tsan.supp):
 * the rings that hand frames from one thread to another (a port queue's to
 * queue 0, a lane's inboxes) say it with a release before the enqueue and
 * an acquire after the dequeue, so what the sender did to a frame happens
 * before what the receiver does with it. Nothing outside TSan builds.
 */

#include <rte_common.h>

#if defined(__SANITIZE_THREAD__)
#define ROCE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ROCE_TSAN 1
#endif
#endif
#ifdef ROCE_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define ROCE_TSAN_RELEASE(r) __tsan_release(r)
#define ROCE_TSAN_ACQUIRE(r) __tsan_acquire(r)
#else
#define ROCE_TSAN_RELEASE(r) RTE_SET_USED(r)
#define ROCE_TSAN_ACQUIRE(r) RTE_SET_USED(r)
#endif

#endif /* ROCE_TSAN_H */
