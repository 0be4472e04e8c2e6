/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Address resolution of an id (rdma_resolve_addr()): the destination's MAC
 * through the port's ARP / Neighbour Discovery (rte_roce_resolve_gid()),
 * checked at once and then by rte_roce_cm_poll() until it is known
 * (ADDR_RESOLVED), the port gives up on it (ADDR_ERROR, -EHOSTUNREACH) or
 * the caller's timeout passes (ADDR_ERROR, -ETIMEDOUT, as Linux's
 * rdma_resolve_ip() reports it). Runs under the CM's lock.
 */

#include <errno.h>

#include <rte_cycles.h>
#include <rte_ether.h>

#include "roce_cm.h"

/* How often the ids being resolved look at the neighbour cache: each look parks the workers. */
#define CM_ADDR_CHECK_US	1000

/*
 * Where the destination's resolution is: 0 (known: our own address, or a
 * MAC), -EAGAIN (in progress) or the port's error.
 */
static int
cm_addr_lookup(struct roce_cm_id *id)
{
	struct rte_ether_addr mac;

	/* One of the device's own addresses: nothing to resolve (the port answers itself). */
	if (roce_cm_gid_index(id->cm, &id->dgid) >= 0)
		return 0;
	return rte_roce_resolve_gid(id->cm->ctx, &id->dgid, &mac);
}

/* The outcome of a resolution: its event. */
static void
cm_addr_done(struct roce_cm_id *id, int rc)
{
	id->addr_deadline = 0;
	if (rc == 0) {
		id->addr_resolved = true;
		roce_cm_event_queue(id, NULL, RTE_ROCE_CM_EVENT_ADDR_RESOLVED, 0, NULL, 0);
		return;
	}
	id->cm->stats.addr_errors++;
	ROCE_CM_LOG(DEBUG, "id %08x: address not resolved (%d)", id->local_comm_id, rc);
	roce_cm_event_queue(id, NULL, RTE_ROCE_CM_EVENT_ADDR_ERROR, rc, NULL, 0);
}

int
roce_cm_addr_start(struct roce_cm_id *id, int timeout_ms)
{
	int rc = cm_addr_lookup(id);

	id->addr_resolved = false;
	/* A destination the port cannot ask for is the call's error, as in Linux's rdma_resolve_ip(). */
	if (rc < 0 && rc != -EAGAIN && rc != -EHOSTUNREACH)
		return rc;
	if (rc == -EAGAIN && timeout_ms > 0) {
		id->addr_deadline = rte_get_timer_cycles() +
				    (uint64_t)timeout_ms * rte_get_timer_hz() / 1000;
		return 0;
	}
	cm_addr_done(id, rc == -EAGAIN ? -ETIMEDOUT : rc);
	return 0;
}

void
roce_cm_addr_poll(struct rte_roce_cm *cm, uint64_t now, int *handled)
{
	struct roce_cm_id *id;
	int rc;

	if (now < cm->addr_next_check)
		return;
	cm->addr_next_check = now + CM_ADDR_CHECK_US * rte_get_timer_hz() / 1000000;
	TAILQ_FOREACH(id, &cm->ids, next) {
		if (id->addr_deadline == 0)
			continue;
		rc = cm_addr_lookup(id);
		if (rc == -EAGAIN && now < id->addr_deadline)
			continue;
		cm_addr_done(id, rc == -EAGAIN ? -ETIMEDOUT : rc);
		(*handled)++;
	}
}
