/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_LANE_H
#define ROCE_LANE_H

/*
 * Lanes (roce_lane.c): a device's progress loop, its run queue and
 * hand-off rings, and the control handshake that holds every lane while a
 * control call runs. struct roce_lane itself is in roce_dev.h: the layers
 * below ring its doorbells (roce_dev_qp_schedule(), roce_dev_handoff()).
 */

#include <stdbool.h>
#include <stdint.h>

struct roce_dev;
struct roce_lane;

/* Allocate dev's lanes and their rings (open_device): 0 or -errno (logged). */
int roce_dev_lanes_init(struct roce_dev *dev);

/* Free dev's lanes, and the frames still in their hand-off rings. */
void roce_dev_lanes_free(struct roce_dev *dev);

/*
 * One pass of a lane's progress loop: a burst received, the frames other
 * lanes handed over, the timers, the QPs with work, TX flushed. Run by the
 * lane's thread only; returns the packets and work requests handled.
 */
int roce_dev_progress(struct roce_lane *lane);

/*
 * The lane's half of the control handshake (roce_lane.c): busy while its
 * driver may touch the device, idle when not; held while a control call
 * runs. A held lane does not run.
 */
void roce_lane_busy(struct roce_lane *lane);
void roce_lane_idle(struct roce_lane *lane);
bool roce_lane_held(struct roce_lane *lane);
/* A worker that found its lane held: idle until the control call ends, then busy again. */
void roce_lane_park(struct roce_lane *lane);

/* Inline mode: one pass of lane for the application's poller, unless held (then 0 at once). */
int roce_dev_poll_inline(struct roce_lane *lane);

/*
 * Hold every lane of dev for a control call (its worker parks, or its
 * inline poller finishes the pass it is in), and let them go (dev NULL:
 * nothing). Nested calls (create_qp1 modifies its QP) hold them once.
 */
void roce_ctrl_begin(struct roce_dev *dev);
void roce_ctrl_end(struct roce_dev *dev);

#endif /* ROCE_LANE_H */
