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
 *   - Timers two turns or more away wait in a coarse wheel (a slot per
 *     turn) and are moved to the fine one once, a turn before theirs: with
 *     16,384 retransmit timers of 67 ms armed, a run does not visit each
 *     of them every 8 ms turn. A timer less than two turns away may be
 *     skipped once; its expiry is kept exactly.
 *   - A callback may re-arm or cancel any timer, including its own.
 */

#include <stdbool.h>
#include <stdint.h>

/** Slots of the wheel (a power of two). */
#define ROCE_TIMER_SLOTS	1024
/** Microseconds covered by one slot. */
#define ROCE_TIMER_SLOT_US	8
/** Microseconds of one turn of the fine wheel. */
#define ROCE_TIMER_TURN_US	(ROCE_TIMER_SLOTS * ROCE_TIMER_SLOT_US)
/** Slots of the coarse wheel, one turn of the fine wheel each (a power of two). */
#define ROCE_TIMER_FAR_SLOTS	1024

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
	uint64_t skips;			/* timers a run visited before their time */
	struct roce_timer *slot[ROCE_TIMER_SLOTS];
	struct roce_timer *far[ROCE_TIMER_FAR_SLOTS];	/* by turn of expiry */
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
