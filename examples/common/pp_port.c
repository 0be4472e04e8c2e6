/* SPDX-License-Identifier: BSD-3-Clause */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <netinet/in.h>
#include <netdb.h>

#include <rte_eal.h>
#include <rte_interrupts.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_roce_config.h>
#include <rte_roce_pdump.h>
#include <rte_roce_verbs.h>

#include "pp_oob.h"
#include "pp_port.h"

#define PP_IPV4_PREFIX_MAX 32
#define PP_IPV6_PREFIX_MAX 128
#define PP_MS_PER_S 1000
#define PP_CONFIG_ERR_LEN 512
#define PP_NS_PER_MS 1000000
#define PP_US_PER_S 1000000.
#define PP_NS_PER_US 1000.
#define PP_BITS_PER_BYTE 8.
/*
 * The --mbuf-size pool: as many mbufs as the port's own pool holds for
 * default rings (RX, TX and its backlog), with a per-lcore cache.
 */
#define PP_POOL_MBUFS 4095
#define PP_POOL_CACHE 256
/*
 * --fault: a reordered frame waits for one later frame, but a ping-pong may
 * send none until it is answered: let it go after 2 ms (a delay then).
 */
#define PP_FAULT_REORDER_MAX_US 2000
#define PP_FAULT_KEY_LEN 16
#define PP_NET_VDEV_PREFIX "net_"	/* a vdev that should become an ethdev */

uint64_t
pp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * PP_MS_PER_S + ts.tv_nsec / PP_NS_PER_MS;
}

int
pp_parse_number(const char *s, unsigned long min, unsigned long max, unsigned long *val)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*val = strtoul(s, &end, 0);
	if (errno != 0 || *end != '\0' || *val < min || *val > max)
		return -EINVAL;
	return 0;
}

void
pp_sockaddr_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

void
pp_gid_sockaddr(const union rte_roce_gid *gid, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (rte_roce_gid_is_ipv4(gid)) {
		ss->ss_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_addr.s_addr = rte_roce_gid_to_ipv4(gid);
	} else {
		ss->ss_family = AF_INET6;
		memcpy(&((struct sockaddr_in6 *)ss)->sin6_addr, gid, sizeof(*gid));
	}
	pp_sockaddr_set_port(ss, port);
}

int
pp_parse_sockaddr(const char *text, uint16_t port, struct sockaddr_storage *ss, const char **why)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *res;
	int ret = getaddrinfo(text, NULL, &hints, &res);

	if (ret != 0) {
		*why = gai_strerror(ret);
		return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	pp_sockaddr_set_port(ss, port);
	return 0;
}

enum ibv_mtu
pp_mtu_to_enum(unsigned long mtu)
{
	switch (mtu) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return 0;
	}
}

void
pp_report(uint32_t size, uint32_t iters, const struct timespec *start,
	  const struct timespec *end)
{
	double usec = (end->tv_sec - start->tv_sec) * PP_US_PER_S +
		      (end->tv_nsec - start->tv_nsec) / PP_NS_PER_US;
	long long bytes = (long long)size * iters * 2;

	printf("%lld bytes in %.2f seconds = %.2f Mbit/sec\n", bytes, usec / PP_US_PER_S,
	       bytes * PP_BITS_PER_BYTE / usec);
	printf("%u iters in %.2f seconds = %.2f usec/iter\n", iters, usec / PP_US_PER_S,
	       usec / iters);
	fflush(stdout);
}

void
pp_port_usage(void)
{
	printf("  --ip=<addr>[/<len>]    the port's IPv4 or IPv6 address (required; /24 or /64 "
	       "by default)\n");
	printf("  --eth-mtu=<mtu>        set the ethdev's MTU (default: keep it)\n");
	printf("  --pcap=<file>          capture every frame in and out of the ethdev\n");
	printf("  --mtu-unchecked        take --eth-mtu without asking the PMD (net_af_packet and\n"
	       "                         net_memif carry bigger frames than they report)\n");
	printf("  --mbuf-size=<bytes>    data room of the port's mbufs (net_af_packet needs its\n"
	       "                         framesz - 32 plus the headroom)\n");
	printf("  --fault=<spec>         rx-drop=P,rx-dup=P,rx-reorder=P,tx-corrupt=P,seed=N:\n"
	       "                         RoCEv2 frames we receive are dropped, duplicated or\n"
	       "                         reordered, frames we send get one payload byte changed\n"
	       "                         (the peer drops them by ICRC); P in 0..1\n");
	printf("  --config=<file>        port, addresses, rings, timers, device limits and workers\n"
	       "                         from a configuration file (config/roce.conf.example)\n");
	printf("  --config-port=<name>   its [port NAME] section to use (default: the first)\n");
	printf("  --no-pdump             do not let dpdk-dumpcap capture (it can by default when\n"
	       "                         the EAL runs with multi-process and hugepages)\n");
}

/* --fault's spec into the RX and TX injectors' configurations. */
static int
pp_parse_fault(struct pp_port_conf *conf, const char *arg)
{
	struct rte_roce_fault_conf *rx = &conf->fault_rx, *tx = &conf->fault_tx;
	char key[PP_FAULT_KEY_LEN];
	double v;
	int n;

	memset(rx, 0, sizeof(*rx));
	rx->roce_only = true;
	rx->reorder_max_us = PP_FAULT_REORDER_MAX_US;
	*tx = *rx;
	tx->corrupt_region = RTE_ROCE_FAULT_REGION_PAYLOAD;
	while (*arg != '\0') {
		if (sscanf(arg, "%15[a-z-]=%lf%n", key, &v, &n) != 2 || v < 0)
			goto bad;
		if (strcmp(key, "seed") == 0) {
			rx->seed = (uint64_t)v;
			tx->seed = rx->seed;
		} else if (v > 1) {
			goto bad;
		} else if (strcmp(key, "rx-drop") == 0) {
			rx->drop = v;
		} else if (strcmp(key, "rx-dup") == 0) {
			rx->dup = v;
		} else if (strcmp(key, "rx-reorder") == 0) {
			rx->reorder = v;
		} else if (strcmp(key, "tx-corrupt") == 0) {
			tx->corrupt = v;
		} else {
			goto bad;
		}
		arg += n;
		if (*arg == ',')
			arg++;
	}
	if (rx->drop + rx->dup + rx->reorder > 1)
		goto bad;
	conf->fault = true;
	return 0;
bad:
	fprintf(stderr, "--fault wants rx-drop=P,rx-dup=P,rx-reorder=P,tx-corrupt=P,seed=N "
		"(probabilities 0..1, the rx ones adding up to at most 1)\n");
	return -EINVAL;
}

int
pp_port_opt(struct pp_port_conf *conf, int c, const char *arg)
{
	unsigned long v;

	switch (c) {
	case PP_PORT_OPT_IP:
		conf->ip = arg;
		return 1;
	case PP_PORT_OPT_ETH_MTU:
		if (pp_parse_number(arg, RTE_ETHER_MIN_MTU, UINT16_MAX, &v) != 0)
			return -EINVAL;
		conf->eth_mtu = v;
		return 1;
	case PP_PORT_OPT_PCAP:
		conf->pcap = arg;
		return 1;
	case PP_PORT_OPT_MTU_UNCHECKED:
		conf->mtu_unchecked = true;
		return 1;
	case PP_PORT_OPT_FAULT:
		return pp_parse_fault(conf, arg) == 0 ? 1 : -EINVAL;
	case PP_PORT_OPT_MBUF_SIZE:
		if (pp_parse_number(arg, RTE_MBUF_DEFAULT_BUF_SIZE, UINT16_MAX, &v) != 0)
			return -EINVAL;
		conf->mbuf_size = v;
		return 1;
	case PP_PORT_OPT_CONFIG:
		conf->config = arg;
		return 1;
	case PP_PORT_OPT_CONFIG_PORT:
		conf->config_port = arg;
		return 1;
	case PP_PORT_OPT_NO_PDUMP:
		conf->no_pdump = true;
		return 1;
	default:
		return 0;
	}
}

int
pp_port_conf_check(const struct pp_port_conf *conf)
{
	union rte_roce_gid addr;
	uint8_t prefix_len;

	if (conf->mtu_unchecked && conf->eth_mtu == 0) {
		fprintf(stderr, "--mtu-unchecked needs --eth-mtu\n");
		return -EINVAL;
	}
	if (conf->ip != NULL && pp_parse_ip(conf->ip, &addr, &prefix_len) == 0)
		return 0;
	/* The file gives the addresses; it is read and checked by pp_port_open(). */
	if (conf->ip == NULL && conf->config != NULL)
		return 0;
	fprintf(stderr, "--ip ADDR[/LEN] is required: the IPv4 or IPv6 address the port owns, "
		"prefix 1..32 or 1..128 (got '%s')\n", conf->ip != NULL ? conf->ip : "");
	return -EINVAL;
}

int
pp_parse_ip(const char *arg, union rte_roce_gid *addr, uint8_t *prefix_len)
{
	char text[RTE_ROCE_GID_STRLEN];
	const char *slash = strchr(arg, '/');
	size_t len = slash != NULL ? (size_t)(slash - arg) : strlen(arg);
	unsigned long max, plen;

	if (len == 0 || len >= sizeof(text))
		return -EINVAL;
	memcpy(text, arg, len);
	text[len] = '\0';
	if (rte_roce_gid_parse(text, addr) != 0)
		return -EINVAL;
	max = rte_roce_gid_is_ipv4(addr) ? PP_IPV4_PREFIX_MAX : PP_IPV6_PREFIX_MAX;
	if (slash == NULL) {
		*prefix_len = rte_roce_gid_is_ipv4(addr) ? PP_IPV4_PREFIX_DEFAULT :
							   PP_IPV6_PREFIX_DEFAULT;
		return 0;
	}
	if (pp_parse_number(slash + 1, 1, max, &plen) != 0)
		return -EINVAL;
	*prefix_len = plen;
	return 0;
}

int
pp_vdevs_check(const char *prog)
{
	struct rte_devargs *da;
	uint16_t port;
	int ret = 0;

	RTE_EAL_DEVARGS_FOREACH("vdev", da) {
		if (strncmp(da->name, PP_NET_VDEV_PREFIX, strlen(PP_NET_VDEV_PREFIX)) != 0 ||
		    rte_eth_dev_get_port_by_name(da->name, &port) == 0)
			continue;
		fprintf(stderr, "%s: --vdev %s: the EAL did not make this device (its log above "
			"says why); net_af_packet needs CAP_NET_RAW and CAP_NET_ADMIN, net_memif a "
			"socket directory it may write (doc/deploy.md, \"Security context\")\n",
			prog, da->name);
		ret = -ENODEV;
	}
	return ret;
}

int
pp_find_ethdev(const char *name, uint16_t *eth)
{
	uint16_t id;

	if (name != NULL)
		return rte_eth_dev_get_port_by_name(name, eth) == 0 ? 0 : -ENODEV;
	RTE_ETH_FOREACH_DEV(id) {
		*eth = id;
		return 0;
	}
	return -ENODEV;
}

static void
pp_port_progress(void *arg)
{
	struct pp_port *pp = arg;

	rte_roce_poll(pp->ctx);
}

/* RX faults on queue 0 (the port's only queue), TX corruption on queue 0. */
static int
pp_fault_attach(struct pp_port *pp, const struct pp_port_conf *conf)
{
	pp->fault_rx = rte_roce_fault_attach(pp->eth, 0, RTE_ROCE_FAULT_RX, &conf->fault_rx);
	if (pp->fault_rx != NULL)
		pp->fault_tx = rte_roce_fault_attach(pp->eth, 0, RTE_ROCE_FAULT_TX,
						     &conf->fault_tx);
	if (pp->fault_tx == NULL) {
		fprintf(stderr, "Couldn't attach the fault injectors: %s\n",
			rte_strerror(rte_errno));
		rte_roce_fault_detach(pp->fault_rx);
		pp->fault_rx = NULL;
		return -rte_errno;
	}
	return 0;
}

/* Print what the injectors did (one "fault:" line, for scripts), detach them. */
static void
pp_fault_detach(struct pp_port *pp)
{
	struct rte_roce_fault_stats rx, tx;

	if (pp->fault_rx == NULL)
		return;
	rte_roce_fault_stats_get(pp->fault_rx, &rx);
	rte_roce_fault_stats_get(pp->fault_tx, &tx);
	printf("fault: rx %" PRIu64 " roce %" PRIu64 " dropped %" PRIu64 " duplicated %" PRIu64
	       " reordered %" PRIu64 " skipped %" PRIu64 "; tx %" PRIu64 " roce %" PRIu64
	       " corrupted %" PRIu64 "\n", rx.seen, rx.roce, rx.dropped, rx.duplicated,
	       rx.reordered, rx.skipped, tx.seen, tx.roce, tx.corrupted);
	rte_roce_fault_detach(pp->fault_tx);
	rte_roce_fault_detach(pp->fault_rx);
	pp->fault_rx = NULL;
	pp->fault_tx = NULL;
}

int
pp_config_load(const char *path, const char *name, const struct rte_roce_config_port **sec)
{
	static struct rte_roce_config cfg;	/* 8 sections: not on the stack */
	char err[PP_CONFIG_ERR_LEN];
	int ret;

	ret = rte_roce_config_load(path, &cfg, err, sizeof(err));
	if (ret != 0) {
		fprintf(stderr, "%s\n", err);
		return ret;
	}
	*sec = name != NULL ? rte_roce_config_port_find(&cfg, name) : &cfg.ports[0];
	if (*sec == NULL) {
		fprintf(stderr, "%s: no [port %s]\n", path, name);
		return -ENOENT;
	}
	return 0;
}

int
pp_config_ethdev(const char *path, const struct rte_roce_config_port *sec, uint16_t *eth)
{
	char name[RTE_ROCE_CONFIG_DEV_LEN];
	int ret;

	/* The ethdev's name is the vdev's before its arguments. */
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(sec->dev, ","), sec->dev);
	if (rte_eth_dev_get_port_by_name(name, eth) == 0)
		return 0;
	ret = rte_dev_probe(sec->dev);
	if (ret == 0)
		ret = rte_eth_dev_get_port_by_name(name, eth) == 0 ? 0 : -ENODEV;
	if (ret != 0)
		fprintf(stderr, "%s:%u: dev %s: %s\n", path, sec->line, sec->dev, strerror(-ret));
	return ret;
}

/* The --config section and its ethdev: 0, or a negative errno after printing why. */
static int
pp_port_config(const struct pp_port_conf *conf, struct rte_roce_config_port *sec,
	       uint16_t *eth)
{
	const struct rte_roce_config_port *p;
	int ret;

	ret = pp_config_load(conf->config, conf->config_port, &p);
	if (ret != 0)
		return ret;
	if (p->nb_addrs == 0 && conf->ip == NULL) {
		fprintf(stderr, "%s:%u: [port %s] has no addr and --ip is not given\n",
			conf->config, p->line, p->name);
		return -EINVAL;
	}
	*sec = *p;
	return pp_config_ethdev(conf->config, p, eth);
}

/* Every address of the section (after --ip's, if given): 0 or a negative errno. */
static int
pp_port_config_addrs(struct pp_port *pp, const struct rte_roce_config_port *sec)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < sec->nb_addrs && ret == 0; i++)
		ret = rte_roce_port_addr_add(pp->port, &sec->addrs[i], sec->prefix_len[i]);
	return ret;
}

int
pp_port_open(struct pp_port *pp, const struct pp_port_conf *conf)
{
	struct rte_roce_config_port sec;
	struct rte_roce_port_conf pconf;
	int ret;

	memset(pp, 0, sizeof(*pp));
	memset(&sec, 0, sizeof(sec));
	if (pp_port_conf_check(conf) != 0)
		return -EINVAL;
	if (conf->config != NULL) {
		ret = pp_port_config(conf, &sec, &pp->eth);
		if (ret != 0)
			return ret;
	} else if (pp_find_ethdev(conf->ethdev, &pp->eth) != 0) {
		fprintf(stderr, "IB device %s not found (no such ethdev: give one with --vdev)\n",
			conf->ethdev != NULL ? conf->ethdev : "(first ethdev)");
		return -ENODEV;
	}
	if (conf->mbuf_size != 0) {
		pp->pool = rte_pktmbuf_pool_create("pp_port", PP_POOL_MBUFS, PP_POOL_CACHE, 0,
						   conf->mbuf_size, rte_eth_dev_socket_id(pp->eth));
		if (pp->pool == NULL) {
			fprintf(stderr, "Couldn't create %u mbufs of %u bytes: %s\n", PP_POOL_MBUFS,
				conf->mbuf_size, rte_strerror(rte_errno));
			return -rte_errno;
		}
	}
	if (conf->ip != NULL) {
		pp_parse_ip(conf->ip, &pp->addr, &pp->prefix_len);
	} else {
		pp->addr = sec.addrs[0];
		pp->prefix_len = sec.prefix_len[0];
	}
	pconf = sec.port;
	pconf.port_id = pp->eth;
	if (conf->eth_mtu != 0)
		pconf.mtu = conf->eth_mtu;
	if (conf->mtu_unchecked)
		pconf.mtu_unchecked = true;
	if (pp->pool != NULL)
		pconf.pool = pp->pool;
	pp->port = rte_roce_port_create(&pconf);
	if (pp->port == NULL) {
		ret = -rte_errno;
		fprintf(stderr, "Couldn't create a RoCE port on ethdev %u: %s\n", pp->eth,
			rte_strerror(-ret));
		rte_mempool_free(pp->pool);
		pp->pool = NULL;
		return ret;
	}
	if (conf->fault) {
		ret = pp_fault_attach(pp, conf);
		if (ret != 0)
			goto destroy_port;
	}
	ret = conf->ip != NULL ? rte_roce_port_addr_add(pp->port, &pp->addr, pp->prefix_len) : 0;
	if (ret == 0)
		ret = pp_port_config_addrs(pp, &sec);
	if (ret == 0)
		ret = rte_roce_port_gid_find(pp->port, &pp->addr);
	if (ret < 0) {
		fprintf(stderr, "Couldn't give the port its addresses: %s\n", strerror(-ret));
		goto destroy_port;
	}
	pp->gid_index = ret;
	if (conf->pcap != NULL) {
		ret = rte_roce_port_capture_start(pp->port, conf->pcap);
		if (ret != 0) {
			fprintf(stderr, "%s: %s\n", conf->pcap, strerror(-ret));
			goto destroy_port;
		}
		pp->capture = true;
	}
	pp->ctx = rte_roce_open_device(pp->port, conf->config != NULL ? &sec.dev_conf : NULL);
	if (pp->ctx == NULL) {
		ret = -rte_errno;
		fprintf(stderr, "Couldn't open a device on the port: %s\n", rte_strerror(-ret));
		goto destroy_port;
	}
	/*
	 * DPDK's capture framework, for dpdk-dumpcap, when the EAL allows it
	 * (doc/observability.md); where it does not (--in-memory, --no-huge,
	 * secondary) the example runs on without it: --pcap is the way there.
	 */
	if (!conf->no_pdump)
		pp->pdump = rte_roce_pdump_enable() == 0;
	/* While the TCP exchange waits, the peer may resolve us: keep answering. */
	pp_oob_set_progress(pp_port_progress, pp);
	return 0;

destroy_port:
	pp_fault_detach(pp);
	rte_roce_port_destroy(pp->port);
	pp->port = NULL;
	rte_mempool_free(pp->pool);
	pp->pool = NULL;
	return ret;
}

int
pp_port_poll(struct pp_port *pp)
{
	int ret = rte_roce_poll(pp->ctx);

	if (ret == 0)
		sched_yield();
	return ret;
}

int
pp_port_wait_link(struct pp_port *pp, unsigned int timeout_ms)
{
	uint64_t end = pp_now_ms() + timeout_ms;
	struct rte_roce_port_info info;

	do {
		pp_port_poll(pp);
		if (rte_roce_port_info_get(pp->port, &info) == 0 && info.link_up)
			return 0;
	} while (pp_now_ms() < end);
	fprintf(stderr, "Link of ethdev %u still down after %u ms\n", pp->eth, timeout_ms);
	return -ETIMEDOUT;
}

bool
pp_port_link_lost(struct pp_port *pp)
{
	struct rte_roce_port_info info;
	uint64_t now = pp_now_ms();

	if (now - pp->link_read_ms < PP_LINK_CHECK_MS)
		return false;
	pp->link_read_ms = now;
	if (rte_roce_port_info_get(pp->port, &info) != 0 || info.link_up)
		return false;
	fprintf(stderr, "Link of ethdev %u went down: the peer left (it may have failed)\n",
		pp->eth);
	return true;
}

void
pp_port_linger(struct pp_port *pp, unsigned int quiet_ms, unsigned int max_ms)
{
	uint64_t now = pp_now_ms();
	uint64_t end = now + max_ms, quiet_end = now + quiet_ms;

	while (now < end && now < quiet_end) {
		if (pp_port_poll(pp) > 0)
			quiet_end = now + quiet_ms;
		now = pp_now_ms();
	}
}

static pthread_mutex_t pp_intr_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pp_intr_cond = PTHREAD_COND_INITIALIZER;
static struct rte_intr_handle *pp_intr_handle;
static bool pp_intr_parked;

/*
 * Runs in the EAL interrupt thread and never returns: that thread serves its
 * sources one callback at a time (lib/eal/linux/eal_interrupts.c,
 * eal_intr_process_interrupts()), so while it waits here no other callback
 * can run. The wait releases the mutex; the process ends with the thread
 * still in it. An interrupt source of our own, not an EAL alarm: 22.11's
 * rte_eal_cleanup() unregisters the alarms' source synchronously
 * (rte_eal_alarm_cleanup(), rte_intr_callback_unregister_sync()), which
 * would wait for ever on a callback that never returns.
 */
static void
pp_intr_park_cb(void *arg __rte_unused)
{
	pthread_mutex_lock(&pp_intr_lock);
	pp_intr_parked = true;
	pthread_cond_broadcast(&pp_intr_cond);
	for (;;)
		pthread_cond_wait(&pp_intr_cond, &pp_intr_lock);
}

/* Register pp_intr_park_cb() on a signalled eventfd. 0 or -errno. */
static int
pp_intr_park_request(void)
{
	static const uint64_t one = 1;
	struct rte_intr_handle *h;
	int fd, ret;

	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Private (libc) memory: it must outlive rte_eal_cleanup(). */
	h = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (h == NULL || rte_intr_fd_set(h, fd) != 0 ||
	    rte_intr_type_set(h, RTE_INTR_HANDLE_EXT) != 0) {
		ret = -(rte_errno != 0 ? rte_errno : ENOMEM);
		goto fail;
	}
	ret = rte_intr_callback_register(h, pp_intr_park_cb, NULL);
	if (ret != 0)
		goto fail;
	if (write(fd, &one, sizeof(one)) != sizeof(one)) {
		ret = -errno;
		rte_intr_callback_unregister(h, pp_intr_park_cb, NULL);
		goto fail;
	}
	pp_intr_handle = h;
	return 0;
fail:
	rte_intr_instance_free(h);
	close(fd);
	return ret;
}

int
pp_intr_park(unsigned int timeout_ms)
{
	struct timespec deadline;
	int ret = 0;

	pthread_mutex_lock(&pp_intr_lock);
	if (pp_intr_handle == NULL) {
		ret = pp_intr_park_request();
		if (ret != 0) {
			pthread_mutex_unlock(&pp_intr_lock);
			fprintf(stderr, "Couldn't park the EAL interrupt thread: %s\n",
				strerror(-ret));
			return ret;
		}
	}
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_ms / PP_MS_PER_S;
	deadline.tv_nsec += (long)(timeout_ms % PP_MS_PER_S) * PP_NS_PER_MS;
	if (deadline.tv_nsec >= PP_MS_PER_S * PP_NS_PER_MS) {
		deadline.tv_sec++;
		deadline.tv_nsec -= PP_MS_PER_S * PP_NS_PER_MS;
	}
	while (!pp_intr_parked && ret == 0)
		ret = -pthread_cond_timedwait(&pp_intr_cond, &pp_intr_lock, &deadline);
	pthread_mutex_unlock(&pp_intr_lock);
	if (ret != 0)
		fprintf(stderr, "The EAL interrupt thread did not park in %u ms\n", timeout_ms);
	return ret;
}

void
pp_eal_fini(void)
{
	/*
	 * In 22.11 rte_eal_cleanup() unmaps DPDK memory without stopping the
	 * interrupt thread (later releases call eal_intr_thread_cancel()
	 * there): it must be parked first.
	 */
	if (pp_intr_park(PP_INTR_PARK_TIMEOUT_MS) == 0)
		rte_eal_cleanup();
}

int
pp_port_close(struct pp_port *pp)
{
	int ret = 0;

	pp_oob_set_progress(NULL, NULL);
	/* Before the ethdev's close: see pp_intr_park(). */
	pp_intr_park(PP_INTR_PARK_TIMEOUT_MS);
	if (pp->ctx != NULL) {
		ret = rte_roce_close_device(pp->ctx);
		if (ret != 0) {
			/* Objects still use the device: the port must outlive them. */
			fprintf(stderr, "Couldn't release context: %s\n", strerror(-ret));
			return ret;
		}
		pp->ctx = NULL;
	}
	pp_fault_detach(pp);
	if (pp->capture) {
		ret = rte_roce_port_capture_stop(pp->port);
		if (ret != 0)
			fprintf(stderr, "capture: write failed: %s\n", strerror(-ret));
	}
	rte_roce_port_destroy(pp->port);
	pp->port = NULL;
	/*
	 * Close the ethdev too: a net_memif peer learns at once that we left.
	 * With the interrupt thread parked, memif_dev_close() unregisters its
	 * control channel at once (the callback cannot be active) and is the
	 * only memif_disconnect() of the device.
	 */
	rte_eth_dev_close(pp->eth);
	/* After the ethdev: its queues took their mbufs from it. */
	rte_mempool_free(pp->pool);
	pp->pool = NULL;
	/* After the ethdev: a capture running until then counted into pdump's memzone. */
	if (pp->pdump)
		rte_roce_pdump_disable();
	pp->pdump = false;
	return ret;
}
