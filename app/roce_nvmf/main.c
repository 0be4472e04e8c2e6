/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * roce_nvmf: an NVMe over Fabrics target (RDMA transport) on librte_roce,
 * run to completion on the main lcore (doc/nvmf.md):
 *
 *   roce_nvmf [EAL options] -- --ip ADDR[/LEN] --nqn NQN --ns SIZE_MIB[,BLOCK] ... [--nqn NQN ...]
 *
 * SIGTERM or SIGINT stops it cleanly: every queue disconnected and drained,
 * the counters printed. SIGHUP re-reads the size of the --ns-file
 * namespaces (a file that grew): the hosts are told by an asynchronous event.
 */

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include <rte_roce.h>
#include <rte_roce_cm.h>

#include "nvmf.h"
#include "pp_oob.h"
#include "pp_port.h"

#define NVMF_STOP_MS	5000	/* how long a stop waits for the queues to drain */

enum {
	OPT_NQN = PP_PORT_OPT_END,
	OPT_PORT,
	OPT_LISTEN,
	OPT_NS,
	OPT_NS_FILE,
	OPT_HOST,
	OPT_QUEUES,
	OPT_DEPTH,
	OPT_ICD,
	OPT_MAX_TRANSFER,
	OPT_BUFFERS,
	OPT_SRQ_DEPTH,
	OPT_TARGET_CONFIG,
	OPT_HELP,
};

static const struct option nvmf_longopts[] = {
	PP_PORT_LONGOPTS,
	{ "nqn", required_argument, NULL, OPT_NQN },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "ns", required_argument, NULL, OPT_NS },
	{ "ns-file", required_argument, NULL, OPT_NS_FILE },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "io-queues", required_argument, NULL, OPT_QUEUES },
	{ "queue-depth", required_argument, NULL, OPT_DEPTH },
	{ "in-capsule", required_argument, NULL, OPT_ICD },
	{ "max-transfer", required_argument, NULL, OPT_MAX_TRANSFER },
	{ "buffers", required_argument, NULL, OPT_BUFFERS },
	{ "srq-depth", required_argument, NULL, OPT_SRQ_DEPTH },
	{ "target-config", required_argument, NULL, OPT_TARGET_CONFIG },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void
usage(void)
{
	printf("usage: roce_nvmf [EAL options] -- --ip ADDR[/LEN] --nqn NQN --ns MIB[,BLOCK] [...]\n"
	       "  --nqn NQN            an I/O subsystem's NQN (repeat for more: --ns, --ns-file\n"
	       "                       and --host after it are that subsystem's)\n"
	       "  --port N             the RDMA CM port to listen on (default 4420)\n"
	       "  --listen ADDR        an IPv4 or IPv6 address to listen on, one of the\n"
	       "                       port's (repeat: up to 4, IPv4 and IPv6 at once;\n"
	       "                       default: --ip's; a %%scope is ignored)\n"
	       "  --ns MIB[,BLOCK]     a RAM namespace of MIB MiB, 512 (default) or 4096-byte\n"
	       "                       blocks; once per namespace (NSID 1, 2, ...)\n"
	       "  --ns-file PATH[,BLOCK] a namespace on a file or block device (all of it),\n"
	       "                       through io_uring\n"
	       "  --host NQN           allow this host (repeat; default: any host)\n"
	       "  --io-queues N        I/O queues per controller (default 8)\n"
	       "  --queue-depth N      entries per queue, CAP.MQES + 1 (default 128)\n"
	       "  --in-capsule BYTES   in-capsule data on I/O queues (default 8192)\n"
	       "  --max-transfer BYTES data per command, MDTS (default 131072)\n"
	       "  --buffers N          data buffers of max-transfer bytes (default 256)\n"
	       "  --srq-depth N        capsule buffers of one shared receive queue for every\n"
	       "                       I/O queue (default 0: each queue its own)\n"
	       "  --target-config FILE the options above as \"key = value\" lines\n"
	       "                       (config/nvmf.conf.example); later options override\n");
	pp_port_usage();
}

static int
opt_ns(struct nvmf_subsys_conf *c, const char *arg)
{
	unsigned long mib, bs = 512;
	char *end;

	if (c->nb_ns == NVMF_NS_MAX)
		return -EINVAL;
	mib = strtoul(arg, &end, 10);
	if (*end == ',')
		bs = strtoul(end + 1, &end, 10);
	if (*end != '\0' || mib == 0)
		return -EINVAL;
	c->ns[c->nb_ns].size = (uint64_t)mib << 20;
	c->ns[c->nb_ns].block_size = (uint32_t)bs;
	c->nb_ns++;
	return 0;
}

static int
opt_ns_file(struct nvmf_subsys_conf *c, const char *arg)
{
	struct nvmf_ns_conf *ns = &c->ns[c->nb_ns];
	const char *comma = strrchr(arg, ',');
	size_t len = comma != NULL ? (size_t)(comma - arg) : strlen(arg);
	char *end;

	if (c->nb_ns == NVMF_NS_MAX || len == 0 || len >= sizeof(ns->path))
		return -EINVAL;
	memcpy(ns->path, arg, len);
	ns->path[len] = '\0';
	ns->block_size = 512;
	if (comma != NULL) {
		ns->block_size = (uint32_t)strtoul(comma + 1, &end, 10);
		if (*end != '\0')
			return -EINVAL;
	}
	c->nb_ns++;
	return 0;
}

static int
opt_number(const char *arg, unsigned long max, uint32_t *v)
{
	unsigned long n;

	if (pp_parse_number(arg, 1, max, &n) != 0)
		return -EINVAL;
	*v = (uint32_t)n;
	return 0;
}

/* --nqn: a new subsystem, which the next --ns, --ns-file and --host fill. */
static int
opt_nqn(struct nvmf_tgt_conf *c, const char *arg)
{
	if (strlen(arg) > NVMF_NQN_MAX || c->nb_subsys == NVMF_SUBSYS_MAX)
		return -EINVAL;
	snprintf(c->subsys[c->nb_subsys++].nqn, sizeof(c->subsys[0].nqn), "%s", arg);
	return 0;
}

/* A subsystem's option (--ns, --ns-file, --host): for the last --nqn's subsystem. */
static int
opt_subsys(struct nvmf_subsys_conf *s, int opt, const char *arg)
{
	if (s == NULL) {
		fprintf(stderr, "roce_nvmf: --nqn must come before the subsystem's --ns, "
			"--ns-file and --host\n");
		return -EINVAL;
	}
	switch (opt) {
	case OPT_HOST:
		if (strlen(arg) > NVMF_NQN_MAX || s->nb_hosts == NVMF_HOSTS_MAX)
			return -EINVAL;
		snprintf(s->hosts[s->nb_hosts++], sizeof(s->hosts[0]), "%s", arg);
		return 0;
	case OPT_NS:
		return opt_ns(s, arg);
	default:	/* OPT_NS_FILE */
		return opt_ns_file(s, arg);
	}
}

/*
 * --listen: one more IPv4 or IPv6 address (a link-local one's %scope
 * ignored: there is one port).
 */
static int
opt_listen(struct nvmf_tgt_conf *c, const char *arg)
{
	struct sockaddr_storage *ss = &c->listen[c->nb_listen];
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	char addr[INET6_ADDRSTRLEN];

	if (strlen(arg) >= sizeof(addr) || c->nb_listen == NVMF_LISTEN_MAX)
		return -EINVAL;
	snprintf(addr, sizeof(addr), "%s", arg);
	addr[strcspn(addr, "%")] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1)
		s4->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1)
		s6->sin6_family = AF_INET6;
	else
		return -EINVAL;
	c->nb_listen++;
	return 0;
}

static int
opt_nvmf(struct nvmf_tgt_conf *c, uint16_t *port, int opt, const char *arg)
{
	unsigned long n = 0;
	uint32_t v = 0;
	int rc = 0;

	switch (opt) {
	case OPT_NQN:
		return opt_nqn(c, arg);
	case OPT_HOST:
	case OPT_NS:
	case OPT_NS_FILE:
		return opt_subsys(c->nb_subsys != 0 ? &c->subsys[c->nb_subsys - 1] : NULL, opt,
				  arg);
	case OPT_LISTEN:
		return opt_listen(c, arg);
	case OPT_PORT:
		rc = opt_number(arg, UINT16_MAX, &v);
		*port = (uint16_t)v;
		return rc;
	case OPT_QUEUES:
		rc = opt_number(arg, UINT16_MAX - 1, &v);
		c->max_io_queues = (uint16_t)v;
		return rc;
	case OPT_DEPTH:
		rc = opt_number(arg, UINT16_MAX, &v);
		c->max_queue_depth = (uint16_t)v;
		return rc;
	case OPT_ICD:
		return opt_number(arg, UINT32_MAX, &c->in_capsule_data);
	case OPT_MAX_TRANSFER:
		return opt_number(arg, UINT32_MAX, &c->max_transfer);
	case OPT_BUFFERS:
		return opt_number(arg, UINT32_MAX, &c->data_buffers);
	case OPT_SRQ_DEPTH:
		rc = pp_parse_number(arg, 0, UINT32_MAX, &n);
		c->srq_depth = (uint32_t)n;
		return rc;
	default:
		return -EINVAL;
	}
}

/* The long option called name that sets the target (not the port), or NULL. */
static const struct option *
opt_find(const char *name)
{
	const struct option *o;

	for (o = nvmf_longopts; o->name != NULL; o++)
		if (o->val >= OPT_NQN && o->val < OPT_TARGET_CONFIG && strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

/* "key = value" for one line of a target configuration file: 0, or -EINVAL after saying why. */
static int
config_line(struct nvmf_tgt_conf *c, uint16_t *port, char *line, const char *path,
	    unsigned int lineno)
{
	char *eq = strchr(line, '='), *key = line, *val, *end;
	const struct option *o;

	if (eq == NULL) {
		fprintf(stderr, "%s:%u: '%s' is not key = value\n", path, lineno, line);
		return -EINVAL;
	}
	*eq = '\0';
	val = eq + 1;
	for (end = eq; end > key && (end[-1] == ' ' || end[-1] == '\t'); end--)
		end[-1] = '\0';
	val += strspn(val, " \t");
	o = opt_find(key);
	if (o == NULL) {
		fprintf(stderr, "%s:%u: %s: unknown key\n", path, lineno, key);
		return -EINVAL;
	}
	if (opt_nvmf(c, port, o->val, val) != 0) {
		fprintf(stderr, "%s:%u: %s: bad value '%s'\n", path, lineno, key, val);
		return -EINVAL;
	}
	return 0;
}

/* A target configuration file: the target's long options as "key = value" lines. */
static int
config_load(struct nvmf_tgt_conf *c, uint16_t *port, const char *path)
{
	unsigned int lineno = 0;
	char buf[512];
	FILE *f;
	int rc = 0;

	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, "roce_nvmf: --target-config %s: %s\n", path, strerror(errno));
		return -errno;
	}
	while (rc == 0 && fgets(buf, sizeof(buf), f) != NULL) {
		char *line = buf + strspn(buf, " \t");

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] != '\0' && line[0] != '#' && line[0] != ';')
			rc = config_line(c, port, line, path, lineno);
	}
	fclose(f);
	return rc;
}

static int
parse(int argc, char **argv, struct pp_port_conf *pc, struct nvmf_tgt_conf *c, uint16_t *port)
{
	int opt, idx = 0, rc;
	unsigned int i;

	nvmf_tgt_conf_defaults(c);
	*port = NVMF_PORT_DEFAULT;
	while ((opt = getopt_long(argc, argv, "", nvmf_longopts, &idx)) != -1) {
		if (opt == OPT_HELP || opt == '?') {
			usage();
			return opt == OPT_HELP ? 1 : -EINVAL;
		}
		if (opt == OPT_TARGET_CONFIG) {
			if (config_load(c, port, optarg) != 0)
				return -EINVAL;
			continue;
		}
		rc = pp_port_opt(pc, opt, optarg);
		if (rc == 0)
			rc = opt_nvmf(c, port, opt, optarg) == 0 ? 1 : -EINVAL;
		if (rc < 0) {
			fprintf(stderr, "roce_nvmf: bad value for --%s: %s\n",
				nvmf_longopts[idx].name, optarg);
			return -EINVAL;
		}
	}
	if (pp_port_conf_check(pc) != 0)
		return -EINVAL;
	if (c->nb_subsys == 0) {
		fprintf(stderr, "roce_nvmf: --nqn and at least one --ns or --ns-file are required\n");
		return -EINVAL;
	}
	for (i = 0; i < c->nb_subsys; i++)
		if (c->subsys[i].nb_ns == 0) {
			fprintf(stderr, "roce_nvmf: --nqn %s: at least one --ns or --ns-file is "
				"required\n", c->subsys[i].nqn);
			return -EINVAL;
		}
	return 0;
}

/* The listen addresses: --listen's, else the port's --ip address; each on --port. */
static void
listen_addr(struct nvmf_tgt_conf *c, const struct pp_port *pp, uint16_t port)
{
	unsigned int i;

	if (c->nb_listen == 0) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&c->listen[0];
		struct sockaddr_in *s4 = (struct sockaddr_in *)&c->listen[0];

		if (rte_roce_gid_is_ipv4(&pp->addr)) {
			s4->sin_family = AF_INET;
			memcpy(&s4->sin_addr, pp->addr.raw + 12, 4);
		} else {
			s6->sin6_family = AF_INET6;
			memcpy(&s6->sin6_addr, pp->addr.raw, 16);
		}
		c->nb_listen = 1;
	}
	for (i = 0; i < c->nb_listen; i++) {
		if (c->listen[i].ss_family == AF_INET)
			((struct sockaddr_in *)&c->listen[i])->sin_port = htons(port);
		else
			((struct sockaddr_in6 *)&c->listen[i])->sin6_port = htons(port);
	}
}

/* "A, B": the addresses listened on. */
static void
listen_str(const struct nvmf_tgt_conf *c, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < c->nb_listen && off < len; i++) {
		const struct sockaddr_storage *ss = &c->listen[i];

		inet_ntop(ss->ss_family, ss->ss_family == AF_INET ?
			  (const void *)&((const struct sockaddr_in *)ss)->sin_addr :
			  (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr,
			  addr, sizeof(addr));
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i != 0 ? ", " : "", addr);
	}
}

static volatile sig_atomic_t nvmf_rescan_requested;

static void
rescan_handler(int sig)
{
	RTE_SET_USED(sig);
	nvmf_rescan_requested = 1;
}

/* SIGHUP: the namespaces' sizes read again from their files, in the loop. */
static int
rescan_on_sighup(void)
{
	struct sigaction sa = { .sa_handler = rescan_handler };

	sigemptyset(&sa.sa_mask);
	return sigaction(SIGHUP, &sa, NULL) == 0 ? 0 : -errno;
}

static void
rescan(struct nvmf_tgt *tgt)
{
	int n;

	nvmf_rescan_requested = 0;
	n = nvmf_tgt_ns_rescan(tgt);
	if (n < 0)
		fprintf(stderr, "roce_nvmf: rescan: %s\n", strerror(-n));
	else
		printf("roce_nvmf: rescan: %d namespace%s changed\n", n, n == 1 ? "" : "s");
	fflush(stdout);
}

static void
print_stats(const struct nvmf_tgt *tgt)
{
	const char *name;
	uint64_t v;
	unsigned int i;

	for (i = 0; nvmf_tgt_stat_at(tgt, i, &name, &v); i++)
		if (v != 0)
			printf("roce_nvmf: %s %lu\n", name, (unsigned long)v);
}

static int
serve(struct pp_port *pp, struct nvmf_tgt_conf *c)
{
	char addrs[NVMF_LISTEN_MAX * (INET6_ADDRSTRLEN + 2)];
	struct rte_roce_cm *cm;
	struct nvmf_tgt *tgt;
	unsigned int i;
	uint64_t end;
	int rc;

	cm = rte_roce_cm_open(pp->ctx, NULL);
	if (cm == NULL) {
		fprintf(stderr, "roce_nvmf: CM: %s\n", rte_strerror(rte_errno));
		return -rte_errno;
	}
	tgt = nvmf_tgt_create(pp->ctx, cm, c);
	if (tgt == NULL) {
		fprintf(stderr, "roce_nvmf: target: %s (see the log for the knob)\n",
			rte_strerror(rte_errno));
		rte_roce_cm_close(cm);
		return -EINVAL;
	}
	listen_str(c, addrs, sizeof(addrs));
	for (i = 0; i < c->nb_subsys; i++)
		printf("roce_nvmf: serving %s (%u namespace%s), RDMA CM port %u on %s\n",
		       c->subsys[i].nqn, c->subsys[i].nb_ns, c->subsys[i].nb_ns > 1 ? "s" : "",
		       ntohs(((struct sockaddr_in *)&c->listen[0])->sin_port), addrs);
	fflush(stdout);
	while (!pp_stop_requested) {
		pp_port_poll(pp);
		rte_roce_cm_poll(cm);
		nvmf_tgt_poll(tgt);
		if (nvmf_rescan_requested)
			rescan(tgt);
	}
	printf("roce_nvmf: stopping\n");
	nvmf_tgt_stop(tgt);
	end = pp_now_ms() + NVMF_STOP_MS;
	while (!nvmf_tgt_idle(tgt) && pp_now_ms() < end) {
		rte_roce_poll(pp->ctx);
		rte_roce_cm_poll(cm);
		nvmf_tgt_poll(tgt);
	}
	print_stats(tgt);
	rc = nvmf_tgt_destroy(tgt);
	if (rc != 0)
		fprintf(stderr, "roce_nvmf: queues still busy after %u ms\n", NVMF_STOP_MS);
	else
		rc = rte_roce_cm_close(cm);
	return rc;
}

int
main(int argc, char **argv)
{
	struct pp_port_conf pc = { 0 };
	struct pp_port pp = { 0 };
	struct nvmf_tgt_conf c;
	uint16_t port;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "roce_nvmf: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	ret = parse(argc - ret, argv + ret, &pc, &c, &port);
	if (ret == 1) {	/* --help; the interrupt thread parked first (memif) */
		pp_eal_fini();
		return 0;
	}
	if (ret == 0)
		ret = pp_oob_stop_on_signals();
	if (ret == 0)
		ret = rescan_on_sighup();
	if (ret == 0)
		ret = pp_port_open(&pp, &pc);
	if (ret == 0) {
		listen_addr(&c, &pp, port);
		ret = serve(&pp, &c);
		pp_port_close(&pp);
	}
	pp_eal_fini();
	return ret == 0 ? 0 : 1;
}
