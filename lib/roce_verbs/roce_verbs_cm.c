/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * librdmacm's event channels and events on librte_roce_cm, the CM of each
 * configured device, and the progress thread that drives them
 * (doc/verbs-abi.md, "librdmacm").
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_errno.h>

#include "roce_verbs_cm.h"

/* The progress thread's sleep when a round found nothing to do. */
#define RV_CM_IDLE_US 1000
/* How long an exiting process waits for its CMs' last MADs to leave. */
#define RV_CM_EXIT_FLUSH_MS 1000

static struct rte_roce_cm *rv_cms[RTE_ROCE_CONFIG_PORTS_MAX];
static struct rte_roce_cm_channel *rv_hub;
static pthread_mutex_t rv_hub_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t rv_cm_once = PTHREAD_ONCE_INIT;
static int rv_cm_start_errno;
static pthread_t rv_cm_thread;
static bool rv_cm_stop;
/* The progress thread runs: started, not yet ended by rv_cm_end(). */
static bool rv_cm_running;

bool
rv_cm_ours(void)
{
	return roce_verbs_dev_count() != 0;
}

struct rte_roce_cm_channel *
rv_cm_hub(void)
{
	return rv_hub;
}

void
rv_cm_hub_lock(void)
{
	pthread_mutex_lock(&rv_hub_lock);
}

void
rv_cm_hub_unlock(void)
{
	pthread_mutex_unlock(&rv_hub_lock);
}

/*
 * The CMs make progress only when polled, and an unmodified program never
 * polls them: it sleeps in rdma_get_cm_event() or in poll() on the channel's
 * fd (rping, SPDK). This thread polls every CM, and an inline device's
 * progress too (skipped while a program thread holds it), so a program
 * that sleeps still gets its events.
 */
static void *
rv_cm_progress(void *arg)
{
	unsigned int i;
	int work;

	RTE_SET_USED(arg);
	while (!__atomic_load_n(&rv_cm_stop, __ATOMIC_ACQUIRE)) {
		work = 0;
		for (i = 0; i < roce_verbs_dev_count(); i++) {
			if (rv_cms[i] == NULL)
				continue;
			work += roce_verbs_progress(roce_verbs_dev_at(i)->ctx);
			work += RTE_MAX(rte_roce_cm_poll(rv_cms[i]), 0);
		}
		work += rv_cm_hub_drain();
		if (work == 0)
			usleep(RV_CM_IDLE_US);
	}
	return NULL;
}

/*
 * At exit the MADs of the program's last calls (rdma_reject's SIDR_REP or
 * REJ, a DREQ) may still wait for the progress that sends them; the peer
 * of a Linux program gets them from its kernel after the process is gone.
 * So the progress thread runs until they have left, RV_CM_EXIT_FLUSH_MS
 * at most. Called at exit and by rte_eal_cleanup() (roce_verbs_eal.c),
 * whichever comes first.
 */
void
rv_cm_end(void)
{
	unsigned int i, waited_ms;
	int pending = 1;

	if (!__atomic_exchange_n(&rv_cm_running, false, __ATOMIC_ACQ_REL))
		return;
	for (waited_ms = 0; pending > 0 && waited_ms < RV_CM_EXIT_FLUSH_MS; waited_ms++) {
		for (i = 0, pending = 0; i < roce_verbs_dev_count(); i++)
			if (rv_cms[i] != NULL)
				pending += RTE_MAX(rte_roce_cm_sends_pending(rv_cms[i]), 0);
		if (pending > 0)
			usleep(1000);
	}
	__atomic_store_n(&rv_cm_stop, true, __ATOMIC_RELEASE);
	pthread_join(rv_cm_thread, NULL);
}

int
rv_cm_close(unsigned int i)
{
	int rc;

	if (__atomic_load_n(&rv_cm_running, __ATOMIC_ACQUIRE))
		return -EBUSY;
	if (i >= RTE_DIM(rv_cms) || rv_cms[i] == NULL)
		return 0;
	rc = rte_roce_cm_close(rv_cms[i]);
	if (rc == 0)
		rv_cms[i] = NULL;
	return rc;
}

static void
rv_cm_start_once(void)
{
	struct ibv_context *ctx;
	unsigned int i;
	int rc;

	for (i = 0; i < roce_verbs_dev_count(); i++) {
		ctx = roce_verbs_dev_context(roce_verbs_dev_at(i));
		if (ctx == NULL) {
			rv_cm_start_errno = errno;
			return;
		}
		rv_cms[i] = rte_roce_cm_open(ctx, NULL);
		if (rv_cms[i] == NULL) {
			rv_cm_start_errno = rte_errno;
			RV_LOG(ERR, "%s: no CM: %s", roce_verbs_dev_at(i)->ibv.name,
			       rte_strerror(rte_errno));
			return;
		}
	}
	rv_hub = rte_roce_cm_create_event_channel();
	if (rv_hub == NULL) {
		rv_cm_start_errno = rte_errno;
		return;
	}
	rc = pthread_create(&rv_cm_thread, NULL, rv_cm_progress, NULL);
	if (rc != 0) {
		rv_cm_start_errno = rc;
		RV_LOG(ERR, "no CM progress thread: %s", strerror(rc));
		return;
	}
	pthread_setname_np(rv_cm_thread, "roce-cm");
	__atomic_store_n(&rv_cm_running, true, __ATOMIC_RELEASE);
	atexit(rv_cm_end);
}

int
rv_cm_start(void)
{
	pthread_once(&rv_cm_once, rv_cm_start_once);
	if (rv_cm_start_errno == 0)
		return 0;
	errno = rv_cm_start_errno;
	return -1;
}

struct rv_cm_channel *
rv_cm_channel_new(void)
{
	struct rv_cm_channel *ch = calloc(1, sizeof(*ch));

	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	/* Blocking, as librdmacm's fd: the program may set O_NONBLOCK. */
	ch->pub.fd = eventfd(0, EFD_CLOEXEC);
	if (ch->pub.fd < 0) {
		free(ch);
		return NULL;
	}
	pthread_mutex_init(&ch->lock, NULL);
	TAILQ_INIT(&ch->events);
	return ch;
}

static void
rv_cm_channel_release(struct rv_cm_channel *ch)
{
	close(ch->pub.fd);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
}

/*
 * rping's CM thread sleeps in rdma_get_cm_event() while its main thread
 * destroys the channel and exits: the fd and the memory stay while a
 * waiter is inside, and the last one out frees them.
 */
void
rv_cm_channel_free(struct rv_cm_channel *ch)
{
	bool waited;

	pthread_mutex_lock(&ch->lock);
	ch->destroyed = true;
	waited = ch->waiters != 0;
	pthread_mutex_unlock(&ch->lock);
	if (!waited)
		rv_cm_channel_release(ch);
}

void
rv_cm_channel_attach(struct rv_cm_channel *ch)
{
	pthread_mutex_lock(&ch->lock);
	ch->nb_ids++;
	pthread_mutex_unlock(&ch->lock);
}

void
rv_cm_channel_detach(struct rv_cm_channel *ch)
{
	pthread_mutex_lock(&ch->lock);
	ch->nb_ids--;
	pthread_mutex_unlock(&ch->lock);
}

/* Queue an event; the eventfd's count is non-zero exactly while events are queued. */
static void
rv_cm_channel_put(struct rv_cm_channel *ch, struct rv_cm_event *ev)
{
	uint64_t one = 1;

	pthread_mutex_lock(&ch->lock);
	if (TAILQ_EMPTY(&ch->events) && write(ch->pub.fd, &one, sizeof(one)) != sizeof(one))
		RV_LOG(ERR, "eventfd write: %s", strerror(errno));
	TAILQ_INSERT_TAIL(&ch->events, ev, next);
	pthread_mutex_unlock(&ch->lock);
}

/* Unqueue ev (ch locked); the last one takes the fd's count back to 0. */
static void
rv_cm_channel_remove(struct rv_cm_channel *ch, struct rv_cm_event *ev)
{
	uint64_t count;

	TAILQ_REMOVE(&ch->events, ev, next);
	/* Never blocks: the count is non-zero while ev was queued. */
	if (TAILQ_EMPTY(&ch->events) && read(ch->pub.fd, &count, sizeof(count)) != sizeof(count))
		RV_LOG(ERR, "eventfd read: %s", strerror(errno));
}

/*
 * The next event of ch (ch locked), counted in its id's events_got before
 * the lock is let go, so that rdma_destroy_id() sees it taken: 0, or an
 * errno (EAGAIN: none queued; EBADF: ch destroyed).
 */
static int
rv_cm_channel_take(struct rv_cm_channel *ch, struct rv_cm_event **evp)
{
	struct rv_cm_event *ev = TAILQ_FIRST(&ch->events);

	if (ch->destroyed)
		return EBADF;
	if (ev == NULL)
		return EAGAIN;
	rv_cm_channel_remove(ch, ev);
	__atomic_fetch_add(&rv_cm_id(ev->pub.id)->events_got, 1, __ATOMIC_RELAXED);
	*evp = ev;
	return 0;
}

int
rv_cm_channel_get(struct rv_cm_channel *ch, bool block, struct rv_cm_event **evp)
{
	struct pollfd pfd = { .fd = ch->pub.fd, .events = POLLIN };
	int rc, polled, poll_errno;
	bool last;

	pthread_mutex_lock(&ch->lock);
	ch->waiters++;
	while ((rc = rv_cm_channel_take(ch, evp)) == EAGAIN && block) {
		pthread_mutex_unlock(&ch->lock);
		polled = poll(&pfd, 1, -1);
		poll_errno = errno;
		pthread_mutex_lock(&ch->lock);
		if (polled < 0 && poll_errno != EINTR) {
			rc = poll_errno;
			break;
		}
	}
	last = --ch->waiters == 0 && ch->destroyed;
	pthread_mutex_unlock(&ch->lock);
	if (last)
		rv_cm_channel_release(ch);
	if (rc == 0)
		return 0;
	errno = rc;
	return -1;
}

void
rv_cm_event_free(struct rv_cm_event *ev)
{
	rte_roce_cm_ack_cm_event(ev->raw);
	free(ev);
}

/* The id of a CONNECT_REQUEST: a wrapper made for it, on the listener's terms. */
static struct rv_cm_id *
rv_cm_request_id(struct rte_roce_cm_event *raw, struct rv_cm_id *listener)
{
	struct rv_cm_id *id = rv_cm_id_new(listener->pub.channel, listener->pub.context,
					   listener->pub.ps);
	struct rv_cm_channel *ch;

	if (id == NULL)
		return NULL;
	/* A synchronous listener's requests are synchronous ids (as librdmacm migrates them). */
	if (listener->sync) {
		ch = rv_cm_channel_new();
		if (ch == NULL) {
			free(id);
			return NULL;
		}
		id->pub.channel = &ch->pub;
		id->sync = true;
	}
	rv_cm_channel_attach(rv_cm_channel(id->pub.channel));
	id->raw = raw->id;
	id->raw->context = id;
	rv_cm_id_sync_addr(id);
	return id;
}

static void
rv_cm_event_conn(const struct rte_roce_cm_event *raw, struct rdma_conn_param *conn)
{
	conn->private_data = raw->param.private_data;
	conn->private_data_len = raw->param.private_data_len;
	conn->responder_resources = raw->param.responder_resources;
	conn->initiator_depth = raw->param.initiator_depth;
	conn->flow_control = raw->param.flow_control;
	conn->retry_count = raw->param.retry_count;
	conn->rnr_retry_count = raw->param.rnr_retry_count;
	conn->srq = raw->param.srq;
	conn->qp_num = raw->param.qp_num;
}

/*
 * A UD id's events carry param.ud instead, every one of them, as librdmacm's
 * rdma_get_cm_event() copies them (cma.c, ucma_copy_ud_event()):
 * CONNECT_REQUEST the SIDR_REQ's private data, ESTABLISHED the service's
 * address vector, QPN and Q_Key, UNREACHABLE the SIDR_REP's private data.
 */
static void
rv_cm_event_ud(const struct rte_roce_cm_event *raw, struct rdma_ud_param *ud)
{
	ud->private_data = raw->ud.private_data;
	ud->private_data_len = raw->ud.private_data_len;
	ud->ah_attr = raw->ud.ah_attr;
	ud->qp_num = raw->ud.qp_num;
	ud->qkey = raw->ud.qkey;
}

/* Wrap a raw event for the program; NULL when no memory (logged, the raw one handled). */
static struct rv_cm_event *
rv_cm_event_wrap(struct rte_roce_cm_event *raw)
{
	struct rv_cm_event *ev = calloc(1, sizeof(*ev));
	struct rv_cm_id *listener = raw->listen_id != NULL ? raw->listen_id->context : NULL;
	struct rv_cm_id *id = raw->id->context;

	if (ev != NULL && raw->event == RTE_ROCE_CM_EVENT_CONNECT_REQUEST)
		id = rv_cm_request_id(raw, listener);
	if (ev == NULL || id == NULL) {
		RV_LOG(ERR, "%s lost: no memory", rte_roce_cm_event_str(raw->event));
		free(ev);
		rte_roce_cm_ack_cm_event(raw);
		if (raw->event == RTE_ROCE_CM_EVENT_CONNECT_REQUEST)
			rte_roce_cm_destroy_id(raw->id);	/* the peer gets a REJ */
		return NULL;
	}
	ev->raw = raw;
	ev->pub.id = &id->pub;
	ev->pub.listen_id = listener != NULL ? &listener->pub : NULL;
	/* librte_roce_cm's events are rdma_cm's, in its order (rte_roce_cm.h). */
	ev->pub.event = (enum rdma_cm_event_type)raw->event;
	ev->pub.status = raw->status;
	if (id->pub.qp_type == IBV_QPT_UD)
		rv_cm_event_ud(raw, &ev->pub.param.ud);
	else
		rv_cm_event_conn(raw, &ev->pub.param.conn);
	if (raw->event == RTE_ROCE_CM_EVENT_ADDR_RESOLVED)
		rv_cm_id_sync_addr(id);
	if (raw->event == RTE_ROCE_CM_EVENT_ROUTE_RESOLVED)
		id->pub.route.num_paths = 1;
	return ev;
}

static int
rv_cm_hub_drain_locked(void)
{
	struct rte_roce_cm_event *raw;
	struct rv_cm_event *ev;
	int n = 0;

	while (rv_hub != NULL && rte_roce_cm_get_cm_event(rv_hub, &raw) == 0) {
		ev = rv_cm_event_wrap(raw);
		/* A request goes to its listener's channel, whatever its own id's is. */
		if (ev != NULL)
			rv_cm_channel_put(rv_cm_channel(ev->pub.listen_id != NULL ?
							ev->pub.listen_id->channel :
							ev->pub.id->channel), ev);
		n++;
	}
	return n;
}

int
rv_cm_hub_drain(void)
{
	int n;

	rv_cm_hub_lock();
	n = rv_cm_hub_drain_locked();
	rv_cm_hub_unlock();
	return n;
}

/* Whether ev belongs to id: its own, or a request to it as a listener. */
static bool
rv_cm_event_of(const struct rv_cm_event *ev, const struct rv_cm_id *id)
{
	return ev->pub.id == &id->pub || ev->pub.listen_id == &id->pub;
}

void
rv_cm_events_move(struct rv_cm_id *id, struct rv_cm_channel *to)
{
	struct rv_cm_channel *from = rv_cm_channel(id->pub.channel);
	struct rv_cm_event_list moved = TAILQ_HEAD_INITIALIZER(moved);
	struct rv_cm_event *ev, *tmp;
	struct rv_cm_id *req;

	rv_cm_hub_drain_locked();
	pthread_mutex_lock(&from->lock);
	for (ev = TAILQ_FIRST(&from->events); ev != NULL; ev = tmp) {
		tmp = TAILQ_NEXT(ev, next);
		if (!rv_cm_event_of(ev, id))
			continue;
		rv_cm_channel_remove(from, ev);
		TAILQ_INSERT_TAIL(&moved, ev, next);
	}
	pthread_mutex_unlock(&from->lock);
	while ((ev = TAILQ_FIRST(&moved)) != NULL) {
		TAILQ_REMOVE(&moved, ev, next);
		if (to != NULL) {
			rv_cm_channel_put(to, ev);
			continue;
		}
		req = ev->pub.listen_id == &id->pub ? rv_cm_id(ev->pub.id) : NULL;
		rv_cm_event_free(ev);
		if (req == NULL)
			continue;
		/* A request its listener never handed out: refused (REJ), forgotten. */
		rte_roce_cm_destroy_id(req->raw);
		rv_cm_channel_detach(rv_cm_channel(req->pub.channel));
		if (req->sync)
			rv_cm_channel_free(rv_cm_channel(req->pub.channel));
		free(req);
	}
}

struct rdma_event_channel *rv_rdma_create_event_channel(void)
	ROCE_VERBS_EXPORT(rdma_create_event_channel);
struct rdma_event_channel *
rv_rdma_create_event_channel(void)
{
	struct rv_cm_channel *ch;

	if (!rv_cm_ours())
		return ROCE_VERBS_CM_REAL(rv_rdma_create_event_channel, "rdma_create_event_channel")();
	if (rv_cm_start() < 0)
		return NULL;
	ch = rv_cm_channel_new();
	return ch != NULL ? &ch->pub : NULL;
}

void rv_rdma_destroy_event_channel(struct rdma_event_channel *channel)
	ROCE_VERBS_EXPORT(rdma_destroy_event_channel);
void
rv_rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct rv_cm_channel *ch = rv_cm_channel(channel);
	bool busy;

	if (!rv_cm_ours()) {
		ROCE_VERBS_CM_REAL(rv_rdma_destroy_event_channel, "rdma_destroy_event_channel")(channel);
		return;
	}
	if (ch == NULL)
		return;
	pthread_mutex_lock(&ch->lock);
	busy = ch->nb_ids != 0 || !TAILQ_EMPTY(&ch->events);
	pthread_mutex_unlock(&ch->lock);
	/* It returns nothing: a channel still in use is kept (leaked), not freed under its ids. */
	if (busy) {
		RV_LOG(ERR, "channel %p kept: %u ids still use it (rdma_destroy_id() them first)",
		       (void *)channel, ch->nb_ids);
		return;
	}
	rv_cm_channel_free(ch);
}

int rv_rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
	ROCE_VERBS_EXPORT(rdma_get_cm_event);
int
rv_rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	struct rv_cm_event *ev;
	int flags;

	if (!rv_cm_ours())
		return ROCE_VERBS_CM_REAL(rv_rdma_get_cm_event, "rdma_get_cm_event")(channel, event);
	if (channel == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	flags = fcntl(channel->fd, F_GETFL);
	if (flags < 0)
		return -1;
	if (rv_cm_channel_get(rv_cm_channel(channel), !(flags & O_NONBLOCK), &ev) < 0)
		return -1;
	*event = &ev->pub;
	return 0;
}

int rv_rdma_ack_cm_event(struct rdma_cm_event *event) ROCE_VERBS_EXPORT(rdma_ack_cm_event);
int
rv_rdma_ack_cm_event(struct rdma_cm_event *event)
{
	if (!rv_cm_ours())
		return ROCE_VERBS_CM_REAL(rv_rdma_ack_cm_event, "rdma_ack_cm_event")(event);
	if (event == NULL) {
		errno = EINVAL;
		return -1;
	}
	__atomic_fetch_sub(&rv_cm_id(event->id)->events_got, 1, __ATOMIC_RELEASE);
	rv_cm_event_free((struct rv_cm_event *)event);
	return 0;
}
