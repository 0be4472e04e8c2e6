/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Hashed timer wheel (see roce_timer.h). A timer sits in the slot of its
 * expiry; a run visits the slots passed since the previous run (at most one
 * turn) and fires the timers of those slots that are due.
 */

#include <rte_cycles.h>

#include "roce_dev.h"
#include "roce_timer.h"
#include "roce_transport.h"

static inline uint32_t
slot_of(uint64_t us)
{
	return (us / ROCE_TIMER_SLOT_US) & (ROCE_TIMER_SLOTS - 1);
}

void
roce_timer_wheel_init(struct roce_timer_wheel *wheel)
{
	*wheel = (struct roce_timer_wheel){
		.tsc_hz = rte_get_tsc_hz(),
		.tsc_origin = rte_rdtsc(),
	};
}

uint64_t
roce_timer_now_us(const struct roce_timer_wheel *wheel)
{
	uint64_t ticks = rte_rdtsc() - wheel->tsc_origin;

	/* Split to keep ticks * 10^6 from overflowing. */
	return ticks / wheel->tsc_hz * US_PER_S + ticks % wheel->tsc_hz * US_PER_S / wheel->tsc_hz;
}

void
roce_timer_init(struct roce_timer *timer, roce_timer_cb_t cb)
{
	*timer = (struct roce_timer){ .cb = cb };
}

static void
unlink_timer(struct roce_timer_wheel *wheel, struct roce_timer *timer)
{
	*timer->pprev = timer->next;
	if (timer->next != NULL)
		timer->next->pprev = timer->pprev;
	timer->next = NULL;
	timer->pprev = NULL;
	wheel->armed--;
}

void
roce_timer_cancel(struct roce_timer_wheel *wheel, struct roce_timer *timer)
{
	if (roce_timer_pending(timer))
		unlink_timer(wheel, timer);
}

void
roce_timer_arm(struct roce_timer_wheel *wheel, struct roce_timer *timer, uint64_t usec)
{
	struct roce_timer **head;

	roce_timer_cancel(wheel, timer);
	timer->expire_us = roce_timer_now_us(wheel) + usec;
	/*
	 * Later than the last run: never in a slot the wheel already passed, and
	 * a callback re-arming itself does not fire again in the same run.
	 */
	if (timer->expire_us <= wheel->now_us)
		timer->expire_us = wheel->now_us + 1;
	head = &wheel->slot[slot_of(timer->expire_us)];
	timer->next = *head;
	if (*head != NULL)
		(*head)->pprev = &timer->next;
	*head = timer;
	timer->pprev = head;
	wheel->armed++;
}

/* Fire the due timers of one slot. */
static unsigned int
run_slot(struct roce_timer_wheel *wheel, uint32_t slot, uint64_t now)
{
	struct roce_timer *t = wheel->slot[slot];
	struct roce_timer *next;
	unsigned int fired = 0;

	while (t != NULL) {
		next = t->next;
		if (t->expire_us <= now) {
			unlink_timer(wheel, t);
			/* The callback may re-arm t (into any slot) or cancel others. */
			t->cb(t);
			fired++;
			/* A cancelled successor is no longer linked here: restart. */
			next = wheel->slot[slot];
		}
		t = next;
	}
	return fired;
}

unsigned int
roce_timer_wheel_run(struct roce_timer_wheel *wheel)
{
	uint64_t now = roce_timer_now_us(wheel);
	uint64_t from = wheel->now_us / ROCE_TIMER_SLOT_US;
	uint64_t to = now / ROCE_TIMER_SLOT_US;
	unsigned int fired = 0;
	uint64_t s;

	if (wheel->armed == 0) {
		wheel->now_us = now;
		return 0;
	}
	/* One turn visits every slot. */
	if (to - from >= ROCE_TIMER_SLOTS)
		from = to - ROCE_TIMER_SLOTS + 1;
	wheel->now_us = now;
	for (s = from; s <= to; s++)
		fired += run_slot(wheel, s & (ROCE_TIMER_SLOTS - 1), now);
	return fired;
}

void
roce_timer_run(struct roce_dev *dev)
{
	roce_timer_wheel_run(&dev->timers);
}
