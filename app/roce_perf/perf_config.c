/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * --config FILE [--config-port NAME]: the port section's settings and device
 * limits for every side, and in two-process mode its ethdev (probed if
 * absent) and first address unless -d or --ip say otherwise. Reading and
 * probing are the examples' (pp_port.h).
 */

#include <errno.h>
#include <stdio.h>

#include <rte_ethdev.h>

#include "perf.h"
#include "pp_port.h"

#define PERF_PREFIX_TEXT_LEN 5	/* "/128" and its NUL */

int
perf_config_apply(struct perf_opts *o)
{
	static char ethdev[RTE_ETH_NAME_MAX_LEN];
	static char ip[RTE_ROCE_GID_STRLEN + PERF_PREFIX_TEXT_LEN];
	char gid[RTE_ROCE_GID_STRLEN];
	const struct rte_roce_config_port *p;
	uint16_t eth;
	int ret;

	if (o->config_path == NULL)
		return 0;
	ret = pp_config_load(o->config_path, o->config_port, &p);
	if (ret != 0)
		return ret;
	o->config = p;
	if (o->loopback)
		return 0;
	if (o->ip == NULL && p->nb_addrs > 0) {
		rte_roce_gid_format(&p->addrs[0], gid, sizeof(gid));
		snprintf(ip, sizeof(ip), "%s/%u", gid, p->prefix_len[0]);
		o->ip = ip;
	}
	if (o->ethdev != NULL)
		return 0;
	ret = pp_config_ethdev(o->config_path, p, &eth);
	if (ret == 0)
		ret = rte_eth_dev_get_name_by_port(eth, ethdev);
	if (ret == 0)
		o->ethdev = ethdev;
	return ret;
}
