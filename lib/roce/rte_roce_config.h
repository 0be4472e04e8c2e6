/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_CONFIG_H
#define RTE_ROCE_CONFIG_H

/**
 * @file
 * The runtime configuration file (config/roce.conf.example documents every
 * key): one section per port, each with its ethdev, addresses, ring sizes,
 * neighbour timers and the limits and workers of the device opened on it.
 *
 *     # comment
 *     [port a]
 *     dev = net_memif0,role=server,socket=/tmp/roce.sock
 *     addr = 10.0.0.1/24
 *     workers = 1
 *
 * INI syntax: `[port NAME]` headers, `key = value` lines, `#` or `;`
 * comments on their own line. Every value is checked when the file is read;
 * the first error is reported as "FILE:LINE: key: why". (DPDK's rte_cfgfile
 * parses the same syntax but keeps no line numbers, hence a parser here.)
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_roce_gid.h>
#include <rte_roce_port.h>
#include <rte_roce_verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Ports in one file. */
#define RTE_ROCE_CONFIG_PORTS_MAX 8
/** Addresses per port. */
#define RTE_ROCE_CONFIG_ADDRS_MAX 8
/** Longest port name, NUL included. */
#define RTE_ROCE_CONFIG_NAME_LEN 32
/** Longest ethdev string (vdev arguments or PCI address), NUL included. */
#define RTE_ROCE_CONFIG_DEV_LEN 256
/** Longest `link_wait_ms`: an hour. */
#define RTE_ROCE_CONFIG_LINK_WAIT_MS_MAX 3600000

/** One [port NAME] section. */
struct rte_roce_config_port {
	char name[RTE_ROCE_CONFIG_NAME_LEN];	/**< NAME of the header */
	/** `dev`: a vdev with its arguments (net_memif0,role=server,...) or a PCI address. */
	char dev[RTE_ROCE_CONFIG_DEV_LEN];
	union rte_roce_gid addrs[RTE_ROCE_CONFIG_ADDRS_MAX]; /**< `addr` lines, in order */
	uint8_t prefix_len[RTE_ROCE_CONFIG_ADDRS_MAX];       /**< their prefix lengths */
	unsigned int nb_addrs;                               /**< `addr` lines */
	/** Port settings; port_id and pool are left for the program (it probes dev). */
	struct rte_roce_port_conf port;
	/** Limits and workers of the device opened on the port. */
	struct rte_roce_dev_conf dev_conf;
	unsigned int line;	/**< line of the section header, for the program's messages */
	/**
	 * `link_wait_ms`: how long opening the device waits for the link to
	 * come up (0: the program's default). Read by librte_roce_verbs.
	 */
	uint32_t link_wait_ms;
	/**
	 * `report_active`: port queries report ACTIVE even while the link is
	 * down, and opening waits for no link (a memif server whose peer
	 * process starts after it checked its port). Read by librte_roce_verbs.
	 */
	bool report_active;
};

/** A whole file. */
struct rte_roce_config {
	unsigned int nb_ports;
	struct rte_roce_config_port ports[RTE_ROCE_CONFIG_PORTS_MAX];
};

/**
 * Read and check a configuration file.
 *
 * @param path
 *   The file.
 * @param cfg
 *   Filled on success; zero fields mean "the default".
 * @param err
 *   Receives the reason of a failure, "FILE:LINE: key: why" (may be NULL).
 * @param err_size
 *   Size of err.
 * @return
 *   0; -EINVAL (NULL path or cfg, or an invalid file: see err); the errno
 *   of opening or reading it (-ENOENT, -EACCES, -EIO, ...).
 */
int rte_roce_config_load(const char *path, struct rte_roce_config *cfg, char *err,
			 size_t err_size);

/**
 * Find a port section by name.
 *
 * @param cfg
 *   A configuration from rte_roce_config_load().
 * @param name
 *   The NAME of its [port NAME] header.
 * @return
 *   The port, or NULL (rte_errno EINVAL: NULL argument, ENOENT: no such port).
 */
const struct rte_roce_config_port *rte_roce_config_port_find(const struct rte_roce_config *cfg,
							      const char *name);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_CONFIG_H */
