/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Multicast groups of a port: which group addresses rte_roce_port_poll()
 * accepts, and the ethdev's multicast MAC filter that goes with them.
 */

#include <errno.h>

#include <rte_ethdev.h>

#include "roce_log.h"
#include "roce_port_priv.h"

/* IPv4 group MAC: 01:00:5e, then the low 23 bits of the address (RFC 1112 6.4). */
static const uint8_t roce_mcast_mac_ipv4[] = { 0x01, 0x00, 0x5e };
#define ROCE_MCAST_MAC_IPV4_LOW_MASK	0x7f
/* IPv6 group MAC: 33:33, then the low 32 bits of the address (RFC 2464 7). */
static const uint8_t roce_mcast_mac_ipv6[] = { 0x33, 0x33 };
#define ROCE_MCAST_IPV6_LOW_OFF		12

void
roce_port_mcast_mac(const union rte_roce_gid *group, struct rte_ether_addr *mac)
{
	if (rte_roce_gid_is_ipv4(group)) {
		memcpy(mac->addr_bytes, roce_mcast_mac_ipv4, sizeof(roce_mcast_mac_ipv4));
		mac->addr_bytes[3] = group->raw[RTE_ROCE_GID_IPV4_OFF + 1] &
				     ROCE_MCAST_MAC_IPV4_LOW_MASK;
		mac->addr_bytes[4] = group->raw[RTE_ROCE_GID_IPV4_OFF + 2];
		mac->addr_bytes[5] = group->raw[RTE_ROCE_GID_IPV4_OFF + 3];
		return;
	}
	memcpy(mac->addr_bytes, roce_mcast_mac_ipv6, sizeof(roce_mcast_mac_ipv6));
	memcpy(&mac->addr_bytes[sizeof(roce_mcast_mac_ipv6)], &group->raw[ROCE_MCAST_IPV6_LOW_OFF],
	       RTE_ETHER_ADDR_LEN - sizeof(roce_mcast_mac_ipv6));
}

static struct roce_port_mcast *
roce_port_mcast_find(const struct rte_roce_port *port, const union rte_roce_gid *group)
{
	unsigned int i;

	for (i = 0; i < RTE_ROCE_PORT_MCAST_MAX; i++)
		if (port->mcast[i].refs != 0 && rte_roce_gid_equal(&port->mcast[i].gid, group))
			return (struct roce_port_mcast *)(uintptr_t)&port->mcast[i];
	return NULL;
}

bool
roce_port_mcast_member(const struct rte_roce_port *port, const union rte_roce_gid *group)
{
	return rte_roce_gid_is_mcast(group) && roce_port_mcast_find(port, group) != NULL;
}

/*
 * Give the ethdev the MACs of every joined group. A PMD without a filter
 * (-ENOTSUP) gets all-multicast mode, asked for at creation already.
 */
static void
roce_port_mcast_filter(struct rte_roce_port *port)
{
	struct rte_ether_addr macs[RTE_ROCE_PORT_MCAST_MAX];
	uint32_t n = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < RTE_ROCE_PORT_MCAST_MAX; i++)
		if (port->mcast[i].refs != 0)
			roce_port_mcast_mac(&port->mcast[i].gid, &macs[n++]);
	ret = rte_eth_dev_set_mc_addr_list(port->port_id, macs, n);
	if (ret == -ENOTSUP)
		ret = rte_eth_allmulticast_enable(port->port_id);
	if (ret != 0)
		ROCE_PORT_LOG(DEBUG, "port %u: multicast filter not set (%d): relying on the PMD",
			      port->port_id, ret);
}

int
rte_roce_port_mcast_join(struct rte_roce_port *port, const union rte_roce_gid *group)
{
	struct roce_port_mcast *g;
	unsigned int i;

	if (port == NULL || group == NULL || !rte_roce_gid_is_mcast(group))
		return -EINVAL;
	g = roce_port_mcast_find(port, group);
	if (g != NULL) {
		g->refs++;
		return 0;
	}
	for (i = 0; i < RTE_ROCE_PORT_MCAST_MAX; i++) {
		if (port->mcast[i].refs == 0) {
			port->mcast[i].gid = *group;
			port->mcast[i].refs = 1;
			roce_port_mcast_filter(port);
			return 0;
		}
	}
	return -ENOSPC;
}

int
rte_roce_port_mcast_leave(struct rte_roce_port *port, const union rte_roce_gid *group)
{
	struct roce_port_mcast *g;

	if (port == NULL || group == NULL)
		return -EINVAL;
	g = roce_port_mcast_find(port, group);
	if (g == NULL)
		return -ENOENT;
	if (--g->refs == 0)
		roce_port_mcast_filter(port);
	return 0;
}
