/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Destroyed objects: the addresses of the last RV_DESTROYED_MAX PDs, MRs,
 * CQs, completion channels, QPs, SRQs and AHs of ours that were destroyed,
 * until an object is made again at the same address. A call on one of them
 * fails with EINVAL before anything reads it: it is freed memory, and even
 * reading its context, to tell ours from the real library's, would be the
 * use after free (doc/verbs-abi.md, "Bad use"). Control path only, under
 * one mutex; the table is made by the first destroy (the EAL is up then).
 */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_lcore.h>

#include "roce_verbs.h"

/* Destroyed objects remembered, the oldest forgotten first. */
#define RV_DESTROYED_MAX 4096

static pthread_mutex_t rv_live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rte_hash *rv_destroyed;			/* the addresses below, to look up */
static uintptr_t rv_destroyed_fifo[RV_DESTROYED_MAX];	/* in the order destroyed */
static unsigned int rv_destroyed_next;

void
roce_verbs_obj_lock(void)
{
	pthread_mutex_lock(&rv_live_lock);
}

void
roce_verbs_obj_unlock(void)
{
	pthread_mutex_unlock(&rv_live_lock);
}

static struct rte_hash *
rv_table(void)
{
	struct rte_hash_parameters params = {
		.name = "roce_verbs_destroyed",
		.entries = RV_DESTROYED_MAX,
		.key_len = sizeof(uintptr_t),
		.hash_func = rte_jhash,
		.socket_id = SOCKET_ID_ANY,
	};

	if (rv_destroyed == NULL) {
		rv_destroyed = rte_hash_create(&params);
		if (rv_destroyed == NULL)
			RV_LOG(ERR, "no table of destroyed objects (%s): their reuse is not "
			       "recognised", rte_strerror(rte_errno));
	}
	return rv_destroyed;
}

void
roce_verbs_obj_destroyed(const void *obj)
{
	uintptr_t key = (uintptr_t)obj;
	uintptr_t *slot = &rv_destroyed_fifo[rv_destroyed_next];

	if (rv_table() == NULL)
		return;
	if (*slot != 0)
		rte_hash_del_key(rv_destroyed, slot);	/* absent if made again since */
	*slot = key;
	rv_destroyed_next = (rv_destroyed_next + 1) % RV_DESTROYED_MAX;
	rte_hash_add_key(rv_destroyed, &key);
}

void
roce_verbs_obj_created(const void *obj)
{
	uintptr_t key = (uintptr_t)obj;

	roce_verbs_obj_lock();
	if (rv_destroyed != NULL)
		rte_hash_del_key(rv_destroyed, &key);
	roce_verbs_obj_unlock();
}

bool
roce_verbs_obj_gone(const void *obj, const char *call)
{
	uintptr_t key = (uintptr_t)obj;
	bool gone;

	if (obj == NULL)
		return false;
	roce_verbs_obj_lock();
	gone = rv_destroyed != NULL && rte_hash_lookup(rv_destroyed, &key) >= 0;
	roce_verbs_obj_unlock();
	if (gone) {
		RV_LOG(ERR, "%s(%p): the object was destroyed", call, obj);
		errno = EINVAL;
	}
	return gone;
}
