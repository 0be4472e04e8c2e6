/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Hashed timer wheel (see roce_timer.h). A timer sits in the slot of its
 * expiry, or in the coarse slot of its turn when that is two turns away or
 * more; a run first moves the coarse slots whose turn is next into the fine
 * wheel, then visits the slots passed since the previous run (at most one
 * turn) and fires the timers of those slots that are due.
 */

#include <rte_cycles.h>

#include "roce_timer.h"

static inline uint32_t
slot_of(uint64_t us)
{
	return (us / ROCE_TIMER_SLOT_US) & (ROCE_TIMER_SLOTS - 1);
}

static inline uint64_t
turn_of(uint64_t us)
{
	return us / ROCE_TIMER_TURN_US;
}

/* Put timer at the head of list head. */
static void
link_timer(struct roce_timer **head, struct roce_timer *timer)
{
	timer->next = *head;
	if (*head != NULL)
		(*head)->pprev = &timer->next;
	*head = timer;
	timer->pprev = head;
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
	/* The coarse wheel from two turns on: the next run's cascade covers the turn after it. */
	if (turn_of(timer->expire_us) >= turn_of(wheel->now_us) + 2)
		head = &wheel->far[turn_of(timer->expire_us) & (ROCE_TIMER_FAR_SLOTS - 1)];
	else
		head = &wheel->slot[slot_of(timer->expire_us)];
	link_timer(head, timer);
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
		if (t->expire_us > now)
			wheel->skips++;
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

/* Move the timers of coarse slot turn that are due by turn last into the fine wheel. */
static void
cascade(struct roce_timer_wheel *wheel, uint64_t turn, uint64_t last)
{
	struct roce_timer *t = wheel->far[turn & (ROCE_TIMER_FAR_SLOTS - 1)];
	struct roce_timer *next;

	while (t != NULL) {
		next = t->next;
		/* later turns that share the slot (a coarse turn away) stay */
		if (turn_of(t->expire_us) <= last) {
			*t->pprev = t->next;
			if (t->next != NULL)
				t->next->pprev = t->pprev;
			link_timer(&wheel->slot[slot_of(t->expire_us)], t);
		} else {
			wheel->skips++;
		}
		t = next;
	}
}

unsigned int
roce_timer_wheel_run(struct roce_timer_wheel *wheel)
{
	uint64_t now = roce_timer_now_us(wheel);
	uint64_t from = wheel->now_us / ROCE_TIMER_SLOT_US;
	uint64_t to = now / ROCE_TIMER_SLOT_US;
	unsigned int fired = 0;
	uint64_t s, c, first, last;

	if (wheel->armed == 0) {
		wheel->now_us = now;
		return 0;
	}
	/*
	 * Coarse slots of the turns after the next one that this run reached
	 * (arm put only turns from the last run's + 2 there); one coarse turn
	 * covers them all.
	 */
	last = turn_of(now) + 1;
	first = turn_of(wheel->now_us) + 2;
	if (last >= first + ROCE_TIMER_FAR_SLOTS)
		first = last - ROCE_TIMER_FAR_SLOTS + 1;
	for (c = first; c <= last; c++)
		cascade(wheel, c, last);
	/* One turn visits every slot. */
	if (to - from >= ROCE_TIMER_SLOTS)
		from = to - ROCE_TIMER_SLOTS + 1;
	wheel->now_us = now;
	for (s = from; s <= to; s++)
		fired += run_slot(wheel, s & (ROCE_TIMER_SLOTS - 1), now);
	return fired;
}
