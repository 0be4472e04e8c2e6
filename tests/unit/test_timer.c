/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The engine's timer wheel (roce_timer.h): timers fire in the first run at
 * or after their expiry and never before, exactly once; cancel, re-arm
 * from the callback, timers beyond one turn of the wheel, many timers.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>

#include "roce_timer.h"

#include "roce_test.h"
#include "roce_test_eal.h"

#define MANY		1000
#define MANY_SPAN_US	20000
#define PERIOD_US	100
#define PERIODS		5
#define LATE_US		200000	/* a run loop this late means a broken wheel */
/* The scale case: as many retransmit timers as QPs, several fine turns away. */
#define SCALE_TIMERS	16384
#define SCALE_MIN_US	(4 * ROCE_TIMER_TURN_US)
#define SCALE_SPAN_US	(12 * ROCE_TIMER_TURN_US)
/*
 * Early visits a timer may cost: once a fine turn early, and again each time
 * a due timer of its slot fires first (a run restarts the slot's list after
 * a callback). A single-level wheel adds one per turn: 4 to 16 here.
 */
#define SCALE_SKIPS_PER_TIMER	4

struct probe {
	struct roce_timer t;
	struct roce_timer_wheel *wheel;
	uint64_t expire;	/* wheel time it was due */
	uint64_t fired_at;	/* wheel time of the run that fired it */
	unsigned int fired;
	unsigned int rearm;	/* re-arm itself this many more times */
	struct roce_timer *victim;	/* cancel this one when firing */
};

static void
probe_cb(struct roce_timer *t)
{
	struct probe *p = container_of(t, struct probe, t);

	p->fired++;
	p->fired_at = roce_timer_now_us(p->wheel);
	if (p->victim != NULL)
		roce_timer_cancel(p->wheel, p->victim);
	if (p->rearm > 0) {
		p->rearm--;
		p->expire = roce_timer_now_us(p->wheel) + PERIOD_US;
		roce_timer_arm(p->wheel, t, PERIOD_US);
	}
}

static void
probe_arm(struct roce_timer_wheel *w, struct probe *p, uint64_t us)
{
	*p = (struct probe){ .wheel = w };
	roce_timer_init(&p->t, probe_cb);
	p->expire = roce_timer_now_us(w) + us;
	roce_timer_arm(w, &p->t, us);
}

/* Run the wheel until every probe fired (or LATE_US passed); checks none fired early. */
static int
run_until(struct roce_timer_wheel *w, struct probe *p, unsigned int n, unsigned int times)
{
	uint64_t end = roce_timer_now_us(w) + LATE_US;
	unsigned int i, done;

	do {
		roce_timer_wheel_run(w);
		for (i = 0, done = 0; i < n; i++)
			done += p[i].fired >= times;
	} while (done < n && roce_timer_now_us(w) < end);
	for (i = 0; i < n; i++) {
		ROCE_TEST_ASSERT_EQ(p[i].fired, times, "timer %u fired count", i);
		ROCE_TEST_ASSERT(p[i].fired_at >= p[i].expire, "timer %u early: %llu < %llu", i,
				 (unsigned long long)p[i].fired_at,
				 (unsigned long long)p[i].expire);
	}
	return 0;
}

static int
test_order_and_cancel(void)
{
	struct roce_timer_wheel w;
	struct probe p[3], gone;

	roce_timer_wheel_init(&w);
	probe_arm(&w, &p[0], 50);
	probe_arm(&w, &p[1], 10);
	probe_arm(&w, &p[2], 2000);
	probe_arm(&w, &gone, 30);
	ROCE_TEST_ASSERT(roce_timer_pending(&gone.t), "armed");
	roce_timer_cancel(&w, &gone.t);
	ROCE_TEST_ASSERT(!roce_timer_pending(&gone.t), "cancelled");
	roce_timer_cancel(&w, &gone.t);	/* twice: harmless */
	if (run_until(&w, p, RTE_DIM(p), 1) != 0)
		return -1;
	ROCE_TEST_ASSERT(p[1].fired_at <= p[0].fired_at && p[0].fired_at <= p[2].fired_at,
			 "order");
	ROCE_TEST_ASSERT_EQ(gone.fired, 0, "a cancelled timer fired");
	ROCE_TEST_ASSERT_EQ(w.armed, 0, "armed count");
	return 0;
}

/* Beyond one turn: the timer stays in its slot through the turns before its own. */
static int
test_beyond_one_turn(void)
{
	struct roce_timer_wheel w;
	struct probe p;

	roce_timer_wheel_init(&w);
	probe_arm(&w, &p, 2 * ROCE_TIMER_SLOTS * ROCE_TIMER_SLOT_US + 100);
	return run_until(&w, &p, 1, 1);
}

/* A callback re-arms itself (periodic) and cancels another timer due in the same run. */
static int
test_rearm_and_cancel_from_callback(void)
{
	struct roce_timer_wheel w;
	struct probe p, victim;

	roce_timer_wheel_init(&w);
	probe_arm(&w, &p, PERIOD_US);
	p.rearm = PERIODS - 1;
	probe_arm(&w, &victim, PERIOD_US);
	p.victim = &victim.t;
	/* Both due: whichever fires first, the victim fires at most once and p PERIODS times. */
	if (run_until(&w, &p, 1, PERIODS) != 0)
		return -1;
	ROCE_TEST_ASSERT(victim.fired <= 1, "victim fired %u times", victim.fired);
	ROCE_TEST_ASSERT_EQ(w.armed, 0, "armed count");
	return 0;
}

static int
test_many(void)
{
	static struct probe p[MANY];
	struct roce_timer_wheel w;
	unsigned int i;

	srand(1);
	roce_timer_wheel_init(&w);
	for (i = 0; i < MANY; i++)
		probe_arm(&w, &p[i], (uint64_t)rand() % MANY_SPAN_US);
	/* Cancel every tenth. */
	for (i = 0; i < MANY; i += 10) {
		roce_timer_cancel(&w, &p[i].t);
		p[i].fired = 1;	/* counted as done for run_until */
		p[i].fired_at = p[i].expire;
	}
	return run_until(&w, p, MANY, 1);
}

/*
 * 16,384 timers 4 to 16 turns away (33 to 131 ms): each fires once, not
 * early, and runs visit each before its time a bounded number of times
 * whatever its distance (the coarse wheel holds it until the turn before).
 */
static int
test_scale(void)
{
	static struct probe p[SCALE_TIMERS];
	struct roce_timer_wheel w;
	unsigned int i;

	srand(2);
	roce_timer_wheel_init(&w);
	for (i = 0; i < SCALE_TIMERS; i++)
		probe_arm(&w, &p[i], SCALE_MIN_US + (uint64_t)rand() % SCALE_SPAN_US);
	ROCE_TEST_ASSERT_EQ(w.armed, SCALE_TIMERS, "armed");
	if (run_until(&w, p, SCALE_TIMERS, 1) != 0)
		return -1;
	printf("# %u timers: %" PRIu64 " early visits\n", SCALE_TIMERS, w.skips);
	ROCE_TEST_ASSERT(w.skips <= (uint64_t)SCALE_SKIPS_PER_TIMER * SCALE_TIMERS,
			 "%" PRIu64 " early visits of %u timers", w.skips, SCALE_TIMERS);
	ROCE_TEST_ASSERT_EQ(w.armed, 0, "armed count");
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "timer_order_and_cancel", test_order_and_cancel },
	{ "timer_beyond_one_turn", test_beyond_one_turn },
	{ "timer_rearm_and_cancel_from_callback", test_rearm_and_cancel_from_callback },
	{ "timer_many", test_many },
	{ "timer_scale", test_scale },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return roce_test_main_eal(argv[0], cases, RTE_DIM(cases));
}
