/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_VERBS_CM_H
#define ROCE_VERBS_CM_H

/*
 * librdmacm's functions in librte_roce_verbs, on librte_roce_cm
 * (doc/verbs-abi.md, "librdmacm"). Private header: nothing here is installed.
 *
 * The program's rdma_cm objects wrap librte_roce_cm's: an id embeds
 * rdma-core 44's struct rdma_cm_id first and points to its rte_roce_cm_id;
 * an event embeds struct rdma_cm_event and points to its rte_roce_cm_event.
 * Every rte_roce_cm_id of the process sends its events to one channel, the
 * hub; the layer's progress thread moves each to the channel of its id
 * (roce_verbs_cm.c), so that a channel's fd is the program's own eventfd,
 * blocking unless the program sets O_NONBLOCK, and an id may change channel
 * (rdma_migrate_id(), synchronous ids).
 */

#include <pthread.h>
#include <stdbool.h>
#include <sys/queue.h>

#include <rdma/rdma_cma.h>

#include <rte_roce_cm.h>

#include "roce_verbs.h"

/* The real librdmacm function of that name (every one of RDMACM_1.0 here). */
#define ROCE_VERBS_CM_REAL(fn, name) ROCE_VERBS_REAL(fn, name, "RDMACM_1.0")

struct rv_cm_event {
	struct rdma_cm_event pub;
	struct rte_roce_cm_event *raw;
	TAILQ_ENTRY(rv_cm_event) next;
};

TAILQ_HEAD(rv_cm_event_list, rv_cm_event);

struct rv_cm_channel {
	struct rdma_event_channel pub;	/* fd: an eventfd, readable while events are queued */
	pthread_mutex_t lock;
	struct rv_cm_event_list events;
	unsigned int nb_ids;		/* ids whose events come here */
	unsigned int waiters;		/* threads inside rv_cm_channel_get() */
	bool destroyed;			/* freed by its last waiter */
};

struct rv_cm_id {
	struct rdma_cm_id pub;
	struct rte_roce_cm_id *raw;
	bool sync;			/* created without a channel: pub.channel is its own */
	unsigned int events_got;	/* handed to the program, not acknowledged */
	bool own_cqs;			/* rdma_create_qp() made the CQs and their channels */
	bool listening;			/* rdma_listen() done (rdma_set_option()'s states) */
	/* rdma_create_ep() listener: each request's id gets a QP like this. */
	struct ibv_qp_init_attr *qp_init_attr;
};

static inline struct rv_cm_id *
rv_cm_id(struct rdma_cm_id *pub)
{
	return (struct rv_cm_id *)pub;
}

static inline struct rv_cm_channel *
rv_cm_channel(struct rdma_event_channel *pub)
{
	return (struct rv_cm_channel *)pub;
}

/*
 * Whether this process's rdma_cm is ours: it is when a configuration names
 * devices (then every rdma_* call is served here), the real librdmacm's
 * otherwise.
 */
bool rv_cm_ours(void);

/*
 * Bring every configured device up with a CM, the hub and the progress
 * thread, once: 0, or -1 and errno (the first failure, every time).
 */
int rv_cm_start(void);

/* End the progress thread once its CMs' MADs have left (at most 1 s); once. */
void rv_cm_end(void);

/*
 * Close device i's CM, after rv_cm_end(): 0 (closed, or none), -EBUSY (the
 * progress thread still runs, or ids are bound to the CM).
 */
int rv_cm_close(unsigned int i);

/* The hub: the channel every rte_roce_cm_id is created on. */
struct rte_roce_cm_channel *rv_cm_hub(void);

/* Move the hub's events to their ids' channels (any thread). */
int rv_cm_hub_drain(void);

/* Serialises the hub's drain with the destruction and migration of ids. */
void rv_cm_hub_lock(void);
void rv_cm_hub_unlock(void);

/*
 * Channels: a new one (NULL, errno), one id more or less on it. Freeing a
 * channel a thread waits in leaves it to that thread: the waiter sleeps on,
 * as one in librdmacm's rdma_get_cm_event() does when its channel is closed
 * (its GET_EVENT write() holds the file, rdma-core 44 librdmacm/cma.c), or,
 * awake, fails with EBADF.
 */
struct rv_cm_channel *rv_cm_channel_new(void);
void rv_cm_channel_free(struct rv_cm_channel *ch);
void rv_cm_channel_attach(struct rv_cm_channel *ch);
void rv_cm_channel_detach(struct rv_cm_channel *ch);

/*
 * Take the next event of a channel, counted in its id's events_got: wait
 * for it if block (whatever the fd's O_NONBLOCK says); 0, or -1 with errno
 * EAGAIN, or EBADF (the channel was destroyed meanwhile).
 */
int rv_cm_channel_get(struct rv_cm_channel *ch, bool block, struct rv_cm_event **ev);

/*
 * Move an id's queued events to ch (NULL: acknowledge them instead, with
 * the ids of the requests a listener had queued), under the hub lock.
 */
void rv_cm_events_move(struct rv_cm_id *id, struct rv_cm_channel *ch);

/* Acknowledge an event: its raw event and itself freed. */
void rv_cm_event_free(struct rv_cm_event *ev);

/* Refresh pub's addresses, device and port from its rte_roce_cm_id. */
void rv_cm_id_sync_addr(struct rv_cm_id *id);

/* A new wrapper for a rte_roce_cm_id (a request's); NULL, errno. */
struct rv_cm_id *rv_cm_id_new(struct rdma_event_channel *channel, void *context,
			      enum rdma_port_space ps);

/*
 * A synchronous id's call waits for the id's next event, keeps it in
 * pub.event (the previous one acknowledged) and returns its outcome as
 * librdmacm does: 0, or -1 with errno (REJECTED: ECONNREFUSED, others the
 * event's status). Returns rc at once when the call failed or the id is not
 * synchronous.
 */
int rv_cm_sync_complete(struct rv_cm_id *id, int rc);

/* -1 with errno = -rc for a failed librte_roce_cm call, else 0. */
static inline int
rv_cm_ret(int rc)
{
	if (rc >= 0)
		return 0;
	errno = -rc;
	return -1;
}

/* The default PD of a device, made on first use (rdma_create_qp() with no PD). */
struct ibv_pd *rv_cm_default_pd(struct ibv_context *ctx);

#endif /* ROCE_VERBS_CM_H */
