/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Asynchronous events of a device: a bounded queue filled by the engine and
 * the objects through roce_dev_async_event(). The event channel (file
 * descriptor, get/ack) builds on this one entry point.
 */

#include <errno.h>

#include "roce_dev.h"

void
roce_dev_async_event(struct roce_dev *dev, const struct ibv_async_event *ev)
{
	if (dev->async_count == ROCE_DEV_ASYNC_MAX) {
		dev->async_lost++;
		return;
	}
	dev->async[(dev->async_head + dev->async_count) & (ROCE_DEV_ASYNC_MAX - 1)] = *ev;
	dev->async_count++;
}

int
roce_dev_async_event_next(struct roce_dev *dev, struct ibv_async_event *ev)
{
	if (dev->async_count == 0)
		return -EAGAIN;
	*ev = dev->async[dev->async_head & (ROCE_DEV_ASYNC_MAX - 1)];
	dev->async_head++;
	dev->async_count--;
	return 0;
}
