/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_TIMER_H
#define ROCE_TIMER_H

/*
 * Per-device timers: a hashed timer wheel on the TSC with microsecond
 * resolution. Arm and cancel are O(1) (a doubly linked list per slot);
 * roce_timer_wheel_run() is called from rte_roce_poll() and fires every
 * timer whose time has come. No system call, no lock: a wheel and its
 * timers belong to the thread that drives the device.
 *
 * Notes:
 *   - A slot covers ROCE_TIMER_SLOT_US microseconds; a timer fires in the
 *     first run at or after its expiry, never before.
 *   - Timers further away than one turn of the wheel stay in their slot
 *     and are skipped until their turn comes (their expiry is kept exactly).
 *   - A callback may re-arm or cancel any timer, including its own.
 */

#include <stdbool.h>
#include <stdint.h>

/** Slots of the wheel (a power of two). */
#define ROCE_TIMER_SLOTS	1024
/** Microseconds covered by one slot. */
#define ROCE_TIMER_SLOT_US	8

struct roce_timer;

/** What a timer calls when it fires. */
typedef void (*roce_timer_cb_t)(struct roce_timer *timer);

/** One timer; embed it, initialise it with roce_timer_init(). */
struct roce_timer {
	struct roce_timer *next;	/* in its slot's list */
	struct roce_timer **pprev;	/* NULL when not armed */
	uint64_t expire_us;		/* wheel time of expiry */
	roce_timer_cb_t cb;
};

/** The wheel of one device. */
struct roce_timer_wheel {
	uint64_t tsc_hz;		/* TSC ticks per second */
	uint64_t tsc_origin;		/* TSC at init: wheel time 0 */
	uint64_t now_us;		/* wheel time of the last run */
	uint32_t armed;			/* timers armed, for a cheap idle check */
	struct roce_timer *slot[ROCE_TIMER_SLOTS];
};

/** Initialise a wheel; its time starts now. */
void roce_timer_wheel_init(struct roce_timer_wheel *wheel);

/** Microseconds since the wheel's origin, read from the TSC. */
uint64_t roce_timer_now_us(const struct roce_timer_wheel *wheel);

/** Fire every due timer; returns how many fired. */
unsigned int roce_timer_wheel_run(struct roce_timer_wheel *wheel);

/** Initialise a timer (not armed). */
void roce_timer_init(struct roce_timer *timer, roce_timer_cb_t cb);

/** Arm (or re-arm) a timer to fire usec microseconds from now. */
void roce_timer_arm(struct roce_timer_wheel *wheel, struct roce_timer *timer, uint64_t usec);

/** Disarm a timer; harmless if it is not armed. */
void roce_timer_cancel(struct roce_timer_wheel *wheel, struct roce_timer *timer);

/** @return true if the timer is armed. */
static inline bool
roce_timer_pending(const struct roce_timer *timer)
{
	return timer->pprev != NULL;
}

#endif /* ROCE_TIMER_H */
