/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Devices: the [port NAME] sections of the configuration file named by
 * ROCE_VERBS_CONFIG, listed before the real libibverbs devices, brought up
 * (EAL, ethdev, port, librte_roce device) on first use. doc/verbs-abi.md.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_lcore.h>

#include <rte_roce_port.h>
#include <rte_roce_verbs.h>

#include "roce_verbs.h"

/* EAL arguments we build: fixed ones, --lcores, a vdev or -a per port, extras. */
#define RV_EAL_ARGS_MAX (16 + 2 * RTE_ROCE_CONFIG_PORTS_MAX + 32)
/* Memory for an EAL without hugepages (as the project's tests use). */
#define RV_NO_HUGE_MEM_MB "256"
/* How long bringing a device up waits for its link, unless link_wait_ms says. */
#define RV_LINK_WAIT_MS_DEFAULT 10000
/* How often that wait looks at the link. */
#define RV_LINK_POLL_US 1000
/* How long the EAL interrupt thread sleeps between looks at the memif links. */
#define RV_INTR_WATCH_US 10000
/* The vdev whose peer's leaving the interrupt thread serves (rv_intr_watch()). */
#define RV_MEMIF_DRIVER "net_memif"

static struct rte_roce_config rv_cfg;
static struct roce_verbs_dev rv_devs[RTE_ROCE_CONFIG_PORTS_MAX];
static unsigned int rv_nb_devs;
static pthread_once_t rv_once = PTHREAD_ONCE_INIT;
/* Serialises bringing devices up and down (control path only). */
static pthread_mutex_t rv_lock = PTHREAD_MUTEX_INITIALIZER;

static void
rv_dev_init(struct roce_verbs_dev *dev, unsigned int index)
{
	dev->index = index;
	dev->conf = &rv_cfg.ports[index];
	dev->ibv.node_type = IBV_NODE_CA;
	dev->ibv.transport_type = IBV_TRANSPORT_IB;
	snprintf(dev->ibv.name, sizeof(dev->ibv.name), "roce%u", index);
	snprintf(dev->ibv.dev_name, sizeof(dev->ibv.dev_name), "roce%u", index);
	rte_spinlock_init(&dev->progress_lock);
}

/* Read the configuration once; without one, no device is ours. */
static void
rv_config_load(void)
{
	const char *path = getenv(ROCE_VERBS_ENV_CONFIG);
	char err[512];
	unsigned int i;
	int rc;

	if (path == NULL || path[0] == '\0')
		return;
	rc = rte_roce_config_load(path, &rv_cfg, err, sizeof(err));
	if (rc < 0) {
		RV_LOG(ERR, "%s (%s): no librte_roce device", err, ROCE_VERBS_ENV_CONFIG);
		return;
	}
	for (i = 0; i < rv_cfg.nb_ports; i++)
		rv_dev_init(&rv_devs[i], i);
	rv_nb_devs = rv_cfg.nb_ports;
}

unsigned int
roce_verbs_dev_count(void)
{
	pthread_once(&rv_once, rv_config_load);
	return rv_nb_devs;
}

struct roce_verbs_dev *
roce_verbs_dev_at(unsigned int i)
{
	return i < roce_verbs_dev_count() ? &rv_devs[i] : NULL;
}

struct roce_verbs_dev *
roce_verbs_dev_of_ibv(const struct ibv_device *device)
{
	unsigned int i;

	for (i = 0; i < roce_verbs_dev_count(); i++)
		if (device == &rv_devs[i].ibv)
			return &rv_devs[i];
	return NULL;
}

struct roce_verbs_dev *
roce_verbs_dev_of_ctx(const struct ibv_context *ctx)
{
	unsigned int i;

	if (ctx == NULL)
		return NULL;
	for (i = 0; i < roce_verbs_dev_count(); i++)
		if (ctx == rv_devs[i].ctx)
			return &rv_devs[i];
	return NULL;
}

struct roce_verbs_dev *
roce_verbs_dev_of_cmd_fd(int fd)
{
	struct stat st, ours;
	unsigned int i;

	if (fstat(fd, &st) != 0)
		return NULL;
	for (i = 0; i < roce_verbs_dev_count(); i++)
		if (rv_devs[i].ctx != NULL && fstat(rv_devs[i].ctx->cmd_fd, &ours) == 0 &&
		    st.st_dev == ours.st_dev && st.st_ino == ours.st_ino)
			return &rv_devs[i];
	return NULL;
}

int
roce_verbs_progress(struct ibv_context *ctx)
{
	struct roce_verbs_dev *dev = roce_verbs_dev_of_ctx(ctx);
	int rc;

	/* rte_roce_poll() wants one thread at a time: the others go on. */
	if (dev == NULL || !rte_spinlock_trylock(&dev->progress_lock))
		return 0;
	rc = rte_roce_poll(ctx);
	rte_spinlock_unlock(&dev->progress_lock);
	return rc > 0 ? rc : 0;
}

/* A PCI address (domain:bus:devid.function or bus:devid.function) rather than a vdev. */
static bool
rv_dev_is_pci(const char *dev)
{
	return strchr(dev, ':') != NULL && strncmp(dev, "net_", 4) != 0;
}

static bool
rv_hugepages_free(void)
{
	unsigned long free_pages = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "HugePages_Free: %lu", &free_pages) == 1)
			break;
	fclose(f);
	return free_pages != 0;
}

/*
 * --lcores: the main lcore on every CPU the thread may already run on (so
 * rte_eal_init() does not narrow the program's affinity), each worker
 * lcore of the configuration on the CPU of its number. The main lcore's
 * number is the lowest that no port uses as a worker, named by
 * --main-lcore (the EAL would take the lowest listed, a worker's).
 */
static int
rv_eal_lcores(char *buf, size_t size, char *main_arg, size_t main_size)
{
	bool worker[RTE_MAX_LCORE] = { false };
	unsigned int i, w, main_lcore = 0;
	size_t len;
	cpu_set_t cpus;
	int cpu;

	if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0)
		return -errno;
	for (i = 0; i < rv_nb_devs; i++)
		for (w = 0; w < rv_cfg.ports[i].dev_conf.nb_workers; w++)
			if (rv_cfg.ports[i].dev_conf.lcores[w] < RTE_MAX_LCORE)
				worker[rv_cfg.ports[i].dev_conf.lcores[w]] = true;
	while (main_lcore < RTE_MAX_LCORE && worker[main_lcore])
		main_lcore++;
	snprintf(main_arg, main_size, "--main-lcore=%u", main_lcore);
	len = snprintf(buf, size, "--lcores=%u@(", main_lcore);
	for (cpu = 0; cpu < CPU_SETSIZE && len < size; cpu++)
		if (CPU_ISSET(cpu, &cpus))
			len += snprintf(buf + len, size - len, "%d,", cpu);
	if (len < size)
		len--;	/* the last comma */
	len += snprintf(buf + len, size - len, ")");
	for (w = 0; w < RTE_MAX_LCORE && len < size; w++)
		if (worker[w])
			len += snprintf(buf + len, size - len, ",%u@%u", w, w);
	return len < size ? 0 : -E2BIG;
}

/* Whether the space-separated argument list has that argument. */
static bool
rv_args_have(const char *args, const char *arg)
{
	size_t len = strlen(arg);
	const char *p;

	for (p = strstr(args, arg); p != NULL; p = strstr(p + 1, arg))
		if ((p == args || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
			return true;
	return false;
}

/*
 * Start the EAL for the configured ports, unless the program already did
 * (then the ethdevs are probed one by one in rv_ethdev()). Arguments: a
 * private --file-prefix, --lcores, each port's vdev (or -a for a PCI
 * address, else --no-pci), --in-memory, or --no-shconf --no-huge -m 256
 * when the machine has no free hugepage or ROCE_VERBS_EAL_ARGS says
 * --no-huge (the EAL refuses --in-memory without hugepages), then
 * ROCE_VERBS_EAL_ARGS split at spaces.
 */
static int
rv_eal_start(void)
{
	static char prefix[64], lcores[512], main_lcore[32], extra[1024];
	char *argv[RV_EAL_ARGS_MAX], *save = NULL, *tok;
	const char *env = getenv(ROCE_VERBS_ENV_EAL_ARGS);
	bool pci = false;
	unsigned int i;
	int argc = 0, rc;

	if (rte_lcore_count() != 0)
		return 0;
	rc = rv_eal_lcores(lcores, sizeof(lcores), main_lcore, sizeof(main_lcore));
	if (rc < 0)
		return rc;
	snprintf(extra, sizeof(extra), "%s", env != NULL ? env : "");
	snprintf(prefix, sizeof(prefix), "--file-prefix=roce_verbs_%d", (int)getpid());
	argv[argc++] = (char *)(uintptr_t)"roce_verbs";
	argv[argc++] = prefix;
	argv[argc++] = lcores;
	argv[argc++] = main_lcore;
	for (i = 0; i < rv_nb_devs; i++) {
		pci |= rv_dev_is_pci(rv_cfg.ports[i].dev);
		argv[argc++] = (char *)(uintptr_t)(rv_dev_is_pci(rv_cfg.ports[i].dev) ?
						   "-a" : "--vdev");
		argv[argc++] = rv_cfg.ports[i].dev;
	}
	if (!pci)
		argv[argc++] = (char *)(uintptr_t)"--no-pci";
	if (rv_args_have(extra, "--no-huge")) {
		argv[argc++] = (char *)(uintptr_t)"--no-shconf";
	} else if (rv_hugepages_free()) {
		argv[argc++] = (char *)(uintptr_t)"--in-memory";
	} else {
		argv[argc++] = (char *)(uintptr_t)"--no-shconf";
		argv[argc++] = (char *)(uintptr_t)"--no-huge";
		argv[argc++] = (char *)(uintptr_t)"-m";
		argv[argc++] = (char *)(uintptr_t)RV_NO_HUGE_MEM_MB;
	}
	for (tok = strtok_r(extra, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save)) {
		if (argc == RV_EAL_ARGS_MAX - 1) {
			RV_LOG(ERR, "%s: more than %d arguments", ROCE_VERBS_ENV_EAL_ARGS,
			       RV_EAL_ARGS_MAX);
			return -E2BIG;
		}
		argv[argc++] = tok;
	}
	argv[argc] = NULL;
	rc = rte_roce_eal_init(argc, argv);
	return rc < 0 ? rc : 0;
}

/* The ethdev of a port section, probed now if the EAL did not already. */
static int
rv_ethdev(const struct rte_roce_config_port *conf, uint16_t *eth)
{
	char name[RTE_ROCE_CONFIG_DEV_LEN];
	int rc;

	/* The ethdev's name is the vdev's before its arguments. */
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(conf->dev, ","), conf->dev);
	if (rte_eth_dev_get_port_by_name(name, eth) == 0)
		return 0;
	rc = rte_dev_probe(conf->dev);
	if (rc == 0 && rte_eth_dev_get_port_by_name(name, eth) != 0)
		rc = -ENODEV;
	if (rc < 0)
		RV_LOG(ERR, "[port %s] line %u: dev %s: %s", conf->name, conf->line, conf->dev,
		       strerror(-rc));
	return rc;
}

/*
 * Programs check the port state once, when they start (perftest refuses a
 * port that is not ACTIVE), and a net_memif link is up only once its peer
 * process is there: wait for it, at most link_wait_ms, then go on with the
 * port DOWN. report_active ports do not wait (doc/verbs-abi.md).
 */
static void
rv_link_wait(const struct roce_verbs_dev *dev)
{
	const struct rte_roce_config_port *conf = dev->conf;
	uint32_t wait_ms = conf->link_wait_ms != 0 ? conf->link_wait_ms : RV_LINK_WAIT_MS_DEFAULT;
	uint64_t waited_us;
	struct rte_roce_port_info info;

	if (conf->report_active)
		return;
	for (waited_us = 0; waited_us < (uint64_t)wait_ms * 1000; waited_us += RV_LINK_POLL_US) {
		if (rte_roce_port_info_get(dev->port, &info) < 0 || info.link_up)
			return;
		usleep(RV_LINK_POLL_US);
	}
	RV_LOG(NOTICE, "[port %s]: link still down after %u ms (link_wait_ms): the port reports "
	       "DOWN; a memif server whose peer starts later wants report_active = yes",
	       conf->name, wait_ms);
}

static bool
rv_is_memif(const struct rte_roce_config_port *conf)
{
	return strncmp(conf->dev, RV_MEMIF_DRIVER, strlen(RV_MEMIF_DRIVER)) == 0;
}

/*
 * Whether every configured net_memif port is up with its link up. Never
 * waits for rv_lock: its holder may be waiting for a link that the
 * interrupt thread, the caller, brings up.
 */
static bool
rv_memif_links_up(void)
{
	struct rte_roce_port_info info;
	unsigned int i;
	bool up = true;

	if (pthread_mutex_trylock(&rv_lock) != 0)
		return false;
	for (i = 0; i < rv_nb_devs && up; i++)
		if (rv_is_memif(rv_devs[i].conf))
			up = rv_devs[i].port != NULL &&
			     rte_roce_port_info_get(rv_devs[i].port, &info) == 0 && info.link_up;
	pthread_mutex_unlock(&rv_lock);
	return up;
}

/*
 * DPDK 22.11's net_memif serves its peer's messages in the EAL interrupt
 * thread, and when the peer leaves (its process exits) memif_disconnect()
 * unmaps the rings and regions there with no lock against the datapath: a
 * worker lcore or the CM thread inside rte_eth_rx_burst() on them faults
 * (drivers/net/memif/memif_socket.c; seen in rping's server, whose client
 * had exited: doc/verbs-abi.md, "net_memif: the peer leaving"). An
 * unmodified program never says when its traffic is over, so once every
 * memif link is up this callback keeps the interrupt thread for good (it
 * runs one callback at a time, lib/eal/linux/eal_interrupts.c): the peer's
 * leaving is never processed and the rings stay mapped until our exit.
 * Until then it only looks, between the thread's rounds of other sources.
 */
static void
rv_intr_watch(void *arg)
{
	RTE_SET_USED(arg);
	if (!rv_memif_links_up()) {
		usleep(RV_INTR_WATCH_US);
		return;
	}
	RV_LOG(INFO, "every net_memif link is up: the EAL interrupt thread stops here, so a peer "
	       "that leaves is not seen and its rings stay mapped until exit");
	for (;;)
		pause();
}

/*
 * Start rv_intr_watch() on an eventfd that stays readable (the EAL polls it
 * level-triggered and reads nothing of an external source); once, under
 * rv_lock.
 */
static void
rv_intr_watch_start(void)
{
	static const uint64_t one = 1;
	static bool started;
	struct rte_intr_handle *h;
	int fd;

	if (started)
		return;
	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	/* Private (libc) memory: the EAL's heap may not be usable at exit. */
	h = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (fd < 0 || write(fd, &one, sizeof(one)) != sizeof(one) || h == NULL ||
	    rte_intr_fd_set(h, fd) != 0 || rte_intr_type_set(h, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(h, rv_intr_watch, NULL) != 0) {
		RV_LOG(WARNING, "no watch of the net_memif links (%s): a peer that leaves may "
		       "fault the datapath", rte_strerror(rte_errno != 0 ? rte_errno : errno));
		rte_intr_instance_free(h);
		if (fd >= 0)
			close(fd);
		return;
	}
	started = true;
}

/* EAL, ethdev, port with its addresses, librte_roce device: 0 or -errno. */
static int
rv_dev_up(struct roce_verbs_dev *dev)
{
	const struct rte_roce_config_port *conf = dev->conf;
	struct rte_roce_port_conf pconf = conf->port;
	unsigned int i;
	int rc;

	rc = rv_eal_start();
	if (rc == 0)
		rc = rv_ethdev(conf, &pconf.port_id);
	if (rc < 0)
		return rc;
	dev->port = rte_roce_port_create(&pconf);
	if (dev->port == NULL)
		return -rte_errno;
	for (i = 0; i < conf->nb_addrs && rc == 0; i++)
		rc = rte_roce_port_addr_add(dev->port, &conf->addrs[i], conf->prefix_len[i]);
	if (rc == 0) {
		dev->ctx = rte_roce_open_device(dev->port, &conf->dev_conf);
		if (dev->ctx == NULL)
			rc = -rte_errno;
	}
	if (rc < 0) {
		RV_LOG(ERR, "[port %s]: %s", conf->name, strerror(-rc));
		rte_roce_port_destroy(dev->port);
		dev->port = NULL;
		return rc;
	}
	/* The context names our device, so ibv_get_device_name(ctx->device) is roce<i>. */
	dev->ctx->device = &dev->ibv;
	/*
	 * A file of its own as the command fd (a kernel provider's is its
	 * uverbs file): a program that shares it with ibv_import_device() gets
	 * EOPNOTSUPP from roce_verbs_dev_of_cmd_fd()'s caller, not EBADF.
	 */
	dev->ctx->cmd_fd = memfd_create(dev->ibv.name, MFD_CLOEXEC);
	roce_verbs_ops_init(dev->ctx);
	roce_verbs_ex_init(dev->ctx);
	if (rv_is_memif(conf))
		rv_intr_watch_start();
	rv_link_wait(dev);
	return 0;
}

/* The device's context, brought up on first use: NULL with errno set. */
struct ibv_context *
roce_verbs_dev_context(struct roce_verbs_dev *dev)
{
	int rc = 0;

	pthread_mutex_lock(&rv_lock);
	if (dev->ctx == NULL)
		rc = rv_dev_up(dev);
	pthread_mutex_unlock(&rv_lock);
	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	return dev->ctx;
}

int
roce_verbs_dev_down(struct roce_verbs_dev *dev)
{
	int cmd_fd, rc = 0;

	pthread_mutex_lock(&rv_lock);
	if (dev->ctx != NULL) {
		cmd_fd = dev->ctx->cmd_fd;
		rc = rte_roce_close_device(dev->ctx);
	}
	if (dev->ctx != NULL && rc == 0) {
		close(cmd_fd);
		rte_roce_port_destroy(dev->port);
		dev->ctx = NULL;
		dev->port = NULL;
	}
	pthread_mutex_unlock(&rv_lock);
	return rc;
}

/* ibv_get_device_list(): ours first (so a program's default device is roce0), then the real ones. */
struct rv_list {
	struct ibv_device **real;	/* for the real ibv_free_device_list() */
	struct ibv_device *devs[];	/* NULL-terminated, what the program gets */
};

struct ibv_device **rv_get_device_list(int *num_devices) ROCE_VERBS_EXPORT(ibv_get_device_list);
void rv_free_device_list(struct ibv_device **devs) ROCE_VERBS_EXPORT(ibv_free_device_list);
struct ibv_device **
rv_get_device_list(int *num_devices)
{
	__typeof__(&rv_get_device_list) real_get =
		ROCE_VERBS_REAL(rv_get_device_list, "ibv_get_device_list", "IBVERBS_1.1");
	unsigned int ours = roce_verbs_dev_count(), i;
	struct ibv_device **real = NULL;
	struct rv_list *list;
	int nb_real = 0, real_errno = 0;

	if (real_get != NULL) {
		real = real_get(&nb_real);
		real_errno = errno;
	}
	if (real == NULL) {
		nb_real = 0;
		if (ours == 0) {	/* nothing of ours: the real answer, as it was */
			errno = real_get != NULL ? real_errno : ENOSYS;
			return NULL;
		}
	}
	list = calloc(1, sizeof(*list) + (ours + nb_real + 1) * sizeof(list->devs[0]));
	if (list == NULL) {
		if (real != NULL)
			ROCE_VERBS_REAL(rv_free_device_list, "ibv_free_device_list",
					"IBVERBS_1.1")(real);
		errno = ENOMEM;
		return NULL;
	}
	list->real = real;
	for (i = 0; i < ours; i++)
		list->devs[i] = &rv_devs[i].ibv;
	for (i = 0; i < (unsigned int)nb_real; i++)
		list->devs[ours + i] = real[i];
	if (num_devices != NULL)
		*num_devices = ours + nb_real;
	return list->devs;
}

void
rv_free_device_list(struct ibv_device **devs)
{
	struct rv_list *list;

	if (devs == NULL)
		return;
	list = (struct rv_list *)((char *)devs - offsetof(struct rv_list, devs));
	if (list->real != NULL)
		ROCE_VERBS_REAL(rv_free_device_list, "ibv_free_device_list",
				"IBVERBS_1.1")(list->real);
	free(list);
}

/* The node GUID: the EUI-64 of the port's MAC, as ibv_query_device() reports it. */
__be64 rv_get_device_guid(struct ibv_device *device) ROCE_VERBS_EXPORT(ibv_get_device_guid);
__be64
rv_get_device_guid(struct ibv_device *device)
{
	struct roce_verbs_dev *dev = roce_verbs_dev_of_ibv(device);
	struct ibv_device_attr attr;
	struct ibv_context *ctx;

	if (dev == NULL)
		return ROCE_VERBS_REAL(rv_get_device_guid, "ibv_get_device_guid",
				       "IBVERBS_1.1")(device);
	ctx = roce_verbs_dev_context(dev);
	if (ctx == NULL || rte_roce_query_device(ctx, &attr) < 0)
		return 0;
	return attr.node_guid;
}

int rv_get_device_index(struct ibv_device *device) ROCE_VERBS_EXPORT(ibv_get_device_index);
int
rv_get_device_index(struct ibv_device *device)
{
	struct roce_verbs_dev *dev = roce_verbs_dev_of_ibv(device);

	if (dev == NULL)
		return ROCE_VERBS_REAL(rv_get_device_index, "ibv_get_device_index",
				       "IBVERBS_1.9")(device);
	return dev->index;
}

/*
 * Every open of a device returns its one context (librte_roce opens a port
 * once); the device stays up until the process exits.
 */
struct ibv_context *rv_open_device(struct ibv_device *device) ROCE_VERBS_EXPORT(ibv_open_device);
struct ibv_context *
rv_open_device(struct ibv_device *device)
{
	struct roce_verbs_dev *dev = roce_verbs_dev_of_ibv(device);
	struct ibv_context *ctx;

	if (dev == NULL)
		return ROCE_VERBS_REAL(rv_open_device, "ibv_open_device",
				       "IBVERBS_1.1")(device);
	ctx = roce_verbs_dev_context(dev);
	if (ctx != NULL)
		__atomic_fetch_add(&dev->opens, 1, __ATOMIC_RELAXED);
	return ctx;
}

int rv_close_device(struct ibv_context *ctx) ROCE_VERBS_EXPORT(ibv_close_device);
int
rv_close_device(struct ibv_context *ctx)
{
	struct roce_verbs_dev *dev = roce_verbs_dev_of_ctx(ctx);

	if (dev == NULL)
		return ROCE_VERBS_REAL(rv_close_device, "ibv_close_device",
				       "IBVERBS_1.1")(ctx);
	if (__atomic_load_n(&dev->opens, __ATOMIC_RELAXED) == 0) {
		RV_LOG(ERR, "%s: closed more often than opened", dev->ibv.name);
		return EINVAL;
	}
	__atomic_fetch_sub(&dev->opens, 1, __ATOMIC_RELAXED);
	return 0;
}
