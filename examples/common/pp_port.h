/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef PP_PORT_H
#define PP_PORT_H

/*
 * Bring-up shared by the examples: one RoCE port over an ethdev the EAL
 * already probed (--vdev net_memif0,..., net_af_packet0,iface=..., a NIC),
 * one address (--ip ADDR[/LEN]) and a device opened on it. The example's
 * thread drives everything through rte_roce_poll() (inline mode).
 */

#include <getopt.h>
#include <stdint.h>
#include <time.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>

#include <rte_ethdev.h>

#include <rte_roce_gid.h>
#include <rte_roce_config.h>
#include <rte_roce_fault.h>
#include <rte_roce_pcap.h>
#include <rte_roce_port.h>

/** On-link prefix when --ip has no /LEN. */
#define PP_IPV4_PREFIX_DEFAULT 24
#define PP_IPV6_PREFIX_DEFAULT 64

/** How long pp_port_wait_link() waits by default. */
#define PP_LINK_WAIT_MS_DEFAULT 10000
/** How often a wait for completions reads the link (pp_port_link_lost()). */
#define PP_LINK_CHECK_MS 100

/** What a port is opened from. */
struct pp_port_conf {
	const char *ethdev;	/* ethdev name (e.g. net_memif0); NULL = the first one */
	const char *ip;		/* "ADDR[/LEN]", IPv4 or IPv6: required */
	uint16_t eth_mtu;	/* Ethernet MTU to set; 0 = keep the device's */
	bool mtu_unchecked;	/* take eth_mtu without asking the PMD (rte_roce_port_conf) */
	uint16_t mbuf_size;	/* data room of the port's mbufs; 0 = the port's default pool */
	const char *pcap;	/* capture every frame in and out to this file; NULL = none */
	bool fault;		/* --fault given: inject fault_rx and fault_tx */
	struct rte_roce_fault_conf fault_rx;	/* on what we receive: drop, dup, reorder */
	struct rte_roce_fault_conf fault_tx;	/* on what we send: corruption (all TX can do) */
	const char *config;	/* --config FILE (rte_roce_config.h); NULL = none */
	const char *config_port; /* --config-port NAME; NULL = the file's first port */
	bool no_pdump;		/* --no-pdump: leave DPDK's packet capture off */
};

struct pp_port {
	uint16_t eth;			/* the ethdev */
	struct rte_roce_port *port;
	struct ibv_context *ctx;	/* the device on the port */
	struct rte_mempool *pool;	/* our pool (--mbuf-size), or NULL */
	union rte_roce_gid addr;	/* the --ip address */
	uint8_t prefix_len;
	int gid_index;			/* index of addr in the GID table */
	bool capture;			/* --pcap: rte_roce_port_capture_start() ran */
	bool pdump;			/* rte_roce_pdump_enable() ran: undo at close */
	struct rte_roce_fault *fault_rx, *fault_tx;	/* --fault injectors, or NULL */
	uint64_t link_read_ms;		/* when pp_port_link_lost() last read the link */
};

/*
 * The long options every example takes for its port, for getopt_long():
 * put PP_PORT_LONGOPTS in the option table, hand each option to
 * pp_port_opt(), call pp_port_conf_check() at the end. An example's own
 * long-only options take values from PP_PORT_OPT_END on.
 */
enum {
	PP_PORT_OPT_IP = 256,	/* above every short option */
	PP_PORT_OPT_ETH_MTU,
	PP_PORT_OPT_PCAP,
	PP_PORT_OPT_MTU_UNCHECKED,
	PP_PORT_OPT_MBUF_SIZE,
	PP_PORT_OPT_FAULT,
	PP_PORT_OPT_CONFIG,
	PP_PORT_OPT_CONFIG_PORT,
	PP_PORT_OPT_NO_PDUMP,
	PP_PORT_OPT_END,
};

#define PP_PORT_LONGOPTS \
	{ "ip", required_argument, NULL, PP_PORT_OPT_IP }, \
	{ "eth-mtu", required_argument, NULL, PP_PORT_OPT_ETH_MTU }, \
	{ "pcap", required_argument, NULL, PP_PORT_OPT_PCAP }, \
	{ "mtu-unchecked", no_argument, NULL, PP_PORT_OPT_MTU_UNCHECKED }, \
	{ "mbuf-size", required_argument, NULL, PP_PORT_OPT_MBUF_SIZE }, \
	{ "fault", required_argument, NULL, PP_PORT_OPT_FAULT }, \
	{ "config", required_argument, NULL, PP_PORT_OPT_CONFIG }, \
	{ "config-port", required_argument, NULL, PP_PORT_OPT_CONFIG_PORT }, \
	{ "no-pdump", no_argument, NULL, PP_PORT_OPT_NO_PDUMP }

/* Print the usage lines of PP_PORT_LONGOPTS. */
void pp_port_usage(void);

/*
 * Take option c if it is one of PP_PORT_LONGOPTS. Returns 1 (taken), 0 (not
 * ours), -EINVAL (bad argument).
 */
int pp_port_opt(struct pp_port_conf *conf, int c, const char *arg);

/*
 * --ip given and well formed, --mtu-unchecked only with --eth-mtu? 0, or
 * -EINVAL after saying why on stderr.
 */
int pp_port_conf_check(const struct pp_port_conf *conf);

/*
 * A whole number (decimal, 0x hex or 0 octal, as strtoul() base 0, no sign,
 * nothing after it) within [min, max]. 0 or -EINVAL.
 */
int pp_parse_number(const char *s, unsigned long min, unsigned long max, unsigned long *val);

/*
 * Parse "ADDR[/LEN]": an IPv4 or IPv6 address, optionally a prefix length
 * (1..32 or 1..128; default 24 or 64). 0 or -EINVAL.
 */
int pp_parse_ip(const char *arg, union rte_roce_gid *addr, uint8_t *prefix_len);

/*
 * Read a configuration file (rte_roce_config.h) and take its [port name]
 * section (name NULL: the first). 0, or a negative errno after printing why
 * (FILE:LINE: key: why). The section stays valid until the next call.
 */
int pp_config_load(const char *path, const char *name, const struct rte_roce_config_port **sec);

/*
 * Whether every network vdev given to the EAL (--vdev net_...) became an
 * ethdev: the EAL logs a PMD that failed (net_af_packet without its
 * capabilities, a memif socket it may not create) and goes on without it, and
 * a program must not then run on another device, or fail later for a reason
 * that hides this one. 0, or -ENODEV after naming each device that is
 * missing (prog: the program's name in the message).
 */
int pp_vdevs_check(const char *prog);

/* The ethdev called name (NULL: the first one): 0, or -ENODEV. */
int pp_find_ethdev(const char *name, uint16_t *eth);

/* The section's ethdev, probed from its dev string if absent: 0 or a negative errno (printed). */
int pp_config_ethdev(const char *path, const struct rte_roce_config_port *sec, uint16_t *eth);

/*
 * Find the ethdev, create the port on it, give it the address, open a
 * device with default limits, start the capture if asked (rte_roce_port_capture_start(): ethdev RX and TX
 * callbacks: every frame, ARP and ND included, as the PMD sees it). On
 * failure prints why on stderr, undoes what it did and returns a negative
 * errno.
 */
int pp_port_open(struct pp_port *pp, const struct pp_port_conf *conf);

/*
 * One round of progress (rte_roce_poll()). When it found nothing to do the
 * CPU is yielded (sched_yield()): the two processes of a test, or a process
 * and its peer's kernel, often share a core, and spinning through a whole
 * time slice would make every round trip wait for the scheduler. Returns
 * what rte_roce_poll() returned.
 */
int pp_port_poll(struct pp_port *pp);

/*
 * Wait until the link is up, driving progress meanwhile. 0, or -ETIMEDOUT
 * after printing why.
 */
int pp_port_wait_link(struct pp_port *pp, unsigned int timeout_ms);

/*
 * Whether the link went down, read at most every PP_LINK_CHECK_MS (true
 * after printing why). Over net_memif that is the peer process leaving,
 * perhaps after a failure of its own: nothing more will arrive.
 */
bool pp_port_link_lost(struct pp_port *pp);

/*
 * Keep driving progress until nothing happened for quiet_ms (so the last
 * ACK of a message leaves before the QP is destroyed), or max_ms passed.
 */
void pp_port_linger(struct pp_port *pp, unsigned int quiet_ms, unsigned int max_ms);

/*
 * Park the EAL interrupt thread for the rest of the process: it enters an
 * interrupt callback of ours (on an eventfd) that never returns, so no interrupt callback (above all
 * net_memif's control channel handler) runs any more. Call it once the work
 * is done, before tearing the port down: in DPDK 22.11 net_memif handles its
 * peer's disconnect in that thread with memif_disconnect(), which unmaps and
 * frees the rings and regions the main thread may be polling or freeing at
 * the same moment in rte_eth_dev_close() (doc/lessons.md, "net_memif at
 * process exit"). Once parked, our own rte_eth_dev_close() is the only
 * teardown of the device, and exit() (destructors) or rte_eal_cleanup()
 * (unmapping) can no longer meet a running handler. Afterwards no memif
 * (re)connection, link change or EAL alarm is served: only teardown may
 * follow. Idempotent and thread-safe.
 * 0, or -ETIMEDOUT if the thread did not answer within timeout_ms, or the
 * negative errno of eventfd() or of the callback's registration (printed).
 */
int pp_intr_park(unsigned int timeout_ms);

/* pp_intr_park()'s usual bound: the thread only has to be scheduled once. */
#define PP_INTR_PARK_TIMEOUT_MS 5000

/*
 * Close the device, print the --fault counters, destroy the port, close its
 * ethdev, finish the capture. Parks the EAL interrupt thread first
 * (pp_intr_park()) if the caller has not.
 * 0, or the negative errno of the close or of the capture (printed).
 */
int pp_port_close(struct pp_port *pp);

/*
 * The end of a program: park the EAL interrupt thread (pp_intr_park()), then
 * rte_eal_cleanup(). Call it last, after pp_port_close().
 */
void pp_eal_fini(void);

/*
 * The socket address of a GID and a port: IPv4 when the GID is IPv4-mapped
 * (RFC 4291 2.5.5.2), else IPv6 (for the rdma_cm examples).
 */
void pp_gid_sockaddr(const union rte_roce_gid *gid, uint16_t port, struct sockaddr_storage *ss);

/*
 * A numeric IPv4 or IPv6 address ("fe80::1%eth0" keeps its scope) and a port
 * as a socket address: 0, or -EINVAL with gai_strerror()'s reason in *why.
 */
int pp_parse_sockaddr(const char *text, uint16_t port, struct sockaddr_storage *ss,
		      const char **why);

/* Set the port of an AF_INET or AF_INET6 socket address. */
void pp_sockaddr_set_port(struct sockaddr_storage *ss, uint16_t port);

/* The verbs enum of a path MTU in bytes (256..4096), or 0 if it is not one. */
enum ibv_mtu pp_mtu_to_enum(unsigned long mtu);

/*
 * The tools' two result lines: "<bytes> bytes in <s> seconds = <x> Mbit/sec"
 * with bytes = size x iters x 2, and "<iters> iters in <s> seconds = <y>
 * usec/iter", for the time from start to end (CLOCK_MONOTONIC).
 */
void pp_report(uint32_t size, uint32_t iters, const struct timespec *start,
	       const struct timespec *end);

/* Milliseconds on a monotonic clock. */
uint64_t pp_now_ms(void);

#endif /* PP_PORT_H */
