/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_EVENT_H
#define RTE_ROCE_EVENT_H

/**
 * @file
 * Completion channels and asynchronous events, as verbs has them
 * (ibv_create_comp_channel(3), ibv_req_notify_cq(3), ibv_get_cq_event(3),
 * ibv_get_async_event(3)).
 *
 * Both kinds of events arrive on file descriptors an application can give
 * to poll(2) or epoll(7): a channel's fd (struct ibv_comp_channel.fd) and
 * the device's async_fd (struct ibv_context.async_fd). Each is an eventfd
 * in semaphore mode: readable exactly while events wait. Reads block, as
 * verbs' do, until the application sets O_NONBLOCK on the fd (fcntl(2));
 * then the get calls return -EAGAIN when nothing waits.
 *
 * The progress thread (rte_roce_poll()) produces the events. A CQ event
 * costs one eventfd write, and only for a CQ that was armed with
 * rte_roce_req_notify_cq(): the analogue of a hardware interrupt, once per
 * arming, never per packet. A thread waiting on a channel fd therefore
 * needs another thread (or itself, between waits) to call rte_roce_poll().
 *
 * Destroying an object with events got and not acknowledged returns
 * -EBUSY, where verbs would block until they are acknowledged.
 */

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Create a completion channel, as ibv_create_comp_channel(3). Its fd
 * (channel->fd) is an eventfd: close-on-exec, blocking until the
 * application sets O_NONBLOCK.
 *
 * @param ctx
 *   The device.
 * @return
 *   The channel, or NULL with rte_errno: EINVAL (ctx NULL), ENOMEM, or the
 *   errno of eventfd(2) (EMFILE, ENFILE, ENODEV).
 */
struct ibv_comp_channel *rte_roce_create_comp_channel(struct ibv_context *ctx);

/**
 * Destroy a completion channel, as ibv_destroy_comp_channel(3); closes
 * its fd.
 *
 * @param channel
 *   The channel.
 * @return
 *   0; -EINVAL (channel NULL); -EBUSY (CQs use it).
 */
int rte_roce_destroy_comp_channel(struct ibv_comp_channel *channel);

/**
 * Arm a CQ, as ibv_req_notify_cq(3): the next completion added to the CQ
 * after this call produces one event on its channel, and disarms it.
 * Completions already in the CQ produce none: poll the CQ after arming
 * (the usual loop: get event, ack, arm, poll until empty). With
 * solicited_only, only a receive completion of a message whose last
 * packet carried the Solicited Event bit, or a completion in error,
 * produces the event (IBA 11.4.2.2). Arming an armed CQ is harmless;
 * arming for all completions widens a solicited-only arming. Callable
 * from any one thread while the progress thread runs.
 *
 * @param cq
 *   The CQ: created with a channel.
 * @param solicited_only
 *   Non-zero: solicited completions (and errors) only.
 * @return
 *   0; -EINVAL (cq NULL, or created without a channel).
 */
int rte_roce_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/**
 * Take the next CQ event of a channel, as ibv_get_cq_event(3). Blocks
 * while none waits, unless the channel's fd was set O_NONBLOCK. Every
 * event got must be acknowledged (rte_roce_ack_cq_events()).
 *
 * @param channel
 *   The channel.
 * @param cq
 *   Where to write the CQ the event is for.
 * @param cq_context
 *   Where to write that CQ's cq_context.
 * @return
 *   0; -EINVAL (NULL argument); -EAGAIN (O_NONBLOCK and no event);
 *   another -errno of read(2) (-EINTR is retried, not returned).
 */
int rte_roce_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
			  void **cq_context);

/**
 * Acknowledge CQ events got with rte_roce_get_cq_event(), as
 * ibv_ack_cq_events(3). One call may acknowledge many: acknowledge in
 * batches, as verbs advises, to take the channel's lock less often.
 *
 * @param cq
 *   The CQ.
 * @param nevents
 *   How many of its events.
 * @return
 *   0; -EINVAL (cq NULL, or more events than were got and not yet
 *   acknowledged: nothing is acknowledged then).
 */
int rte_roce_ack_cq_events(struct ibv_cq *cq, unsigned int nevents);

/**
 * Take the next asynchronous event of a device, as ibv_get_async_event(3),
 * from ctx->async_fd. Blocks while none waits, unless async_fd was set
 * O_NONBLOCK. Events: IBV_EVENT_QP_FATAL (the engine moved a QP to ERR:
 * error completion or transport error), IBV_EVENT_QP_LAST_WQE_REACHED
 * and IBV_EVENT_SRQ_LIMIT_REACHED (SRQs), IBV_EVENT_CQ_ERR (CQ overrun),
 * IBV_EVENT_PORT_ACTIVE and IBV_EVENT_PORT_ERR (link up and down, read by
 * rte_roce_poll() every few milliseconds). Every event got must be
 * acknowledged (rte_roce_ack_async_event()).
 *
 * @param ctx
 *   The device.
 * @param event
 *   Where to write the event.
 * @return
 *   0; -EINVAL (NULL argument); -EAGAIN (O_NONBLOCK and no event);
 *   -ENOSPC (events of too many objects are not acknowledged: the event
 *   is lost); another -errno of read(2).
 */
int rte_roce_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event);

/**
 * Acknowledge an asynchronous event, as ibv_ack_async_event(3). Port
 * events need no acknowledgement; acknowledging them is harmless.
 *
 * @param event
 *   The event, as rte_roce_get_async_event() wrote it.
 * @return
 *   0; -EINVAL (event NULL, or its object has no event to acknowledge).
 */
int rte_roce_ack_async_event(struct ibv_async_event *event);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_EVENT_H */
