/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The configuration file (rte_roce_config.h): a line-based INI reader and
 * one table of keys, each with its type, range and place in struct
 * rte_roce_config_port. The first invalid line stops the reading with a
 * message naming the file, the line, the key and why.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ether.h>

#include "rte_roce_config.h"
#include "roce_log.h"

#define CONFIG_LINE_MAX 512
#define CONFIG_SECTION_PORT "port"
#define CONFIG_IPV4_PREFIX_MAX 32
#define CONFIG_IPV6_PREFIX_MAX 128

enum config_type {
	CFG_STR,	/* a string of the field's size */
	CFG_U16,
	CFG_U32,
	CFG_BOOL,	/* yes/no, true/false, 1/0 */
	CFG_MAC,
	CFG_ADDR,	/* a.b.c.d/len or x::y/len, repeatable */
	CFG_LCORES,	/* comma-separated lcore ids */
};

struct config_key {
	const char *key;
	enum config_type type;
	size_t offset;		/* in struct rte_roce_config_port */
	size_t size;		/* CFG_STR: the field's size */
	uint64_t min, max;	/* numbers */
};

#define PORT_KEY(k, t, f, lo, hi) \
	{ k, t, offsetof(struct rte_roce_config_port, port.f), 0, lo, hi }
#define DEV_KEY(k, f, lo, hi) \
	{ k, CFG_U32, offsetof(struct rte_roce_config_port, dev_conf.f), 0, lo, hi }

static const struct config_key config_keys[] = {
	{ "dev", CFG_STR, offsetof(struct rte_roce_config_port, dev), RTE_ROCE_CONFIG_DEV_LEN, 0, 0 },
	{ "addr", CFG_ADDR, 0, 0, 0, 0 },
	PORT_KEY("mac", CFG_MAC, mac, 0, 0),
	PORT_KEY("mtu", CFG_U16, mtu, RTE_ETHER_MIN_MTU, UINT16_MAX),
	PORT_KEY("mtu_unchecked", CFG_BOOL, mtu_unchecked, 0, 1),
	PORT_KEY("rx_desc", CFG_U16, nb_rx_desc, 1, UINT16_MAX),
	PORT_KEY("tx_desc", CFG_U16, nb_tx_desc, 1, UINT16_MAX),
	PORT_KEY("neigh_entries", CFG_U32, neigh_entries, 1, UINT32_MAX),
	PORT_KEY("neigh_timeout_ms", CFG_U32, neigh_timeout_ms, 1, UINT32_MAX),
	PORT_KEY("neigh_retry_ms", CFG_U32, neigh_retry_ms, 1, UINT32_MAX),
	PORT_KEY("neigh_retries", CFG_U16, neigh_retries, 1, UINT16_MAX),
	PORT_KEY("neigh_queue_len", CFG_U16, neigh_queue_len, 1, UINT16_MAX),
	DEV_KEY("max_qp", max_qp, 2, RTE_ROCE_DEV_MAX_QP_MAX),
	DEV_KEY("max_qp_wr", max_qp_wr, 1, RTE_ROCE_DEV_MAX_WR_MAX),
	DEV_KEY("max_sge", max_sge, 1, RTE_ROCE_DEV_MAX_SGE_MAX),
	DEV_KEY("max_inline_data", max_inline_data, 1, RTE_ROCE_DEV_MAX_INLINE_MAX),
	DEV_KEY("max_cq", max_cq, 1, UINT32_MAX),
	DEV_KEY("max_cqe", max_cqe, 1, RTE_ROCE_DEV_MAX_WR_MAX),
	DEV_KEY("max_mr", max_mr, 1, RTE_ROCE_DEV_MAX_MR_MAX),
	DEV_KEY("max_qp_rd_atom", max_qp_rd_atom, 1, RTE_ROCE_DEV_MAX_RD_ATOM_MAX),
	DEV_KEY("max_srq", max_srq, 1, UINT32_MAX),
	DEV_KEY("max_srq_wr", max_srq_wr, 1, RTE_ROCE_DEV_MAX_WR_MAX),
	DEV_KEY("max_srq_sge", max_srq_sge, 1, RTE_ROCE_DEV_MAX_SGE_MAX),
	{ "workers", CFG_LCORES, offsetof(struct rte_roce_config_port, dev_conf), 0, 0,
	  RTE_MAX_LCORE - 1 },
	{ "lanes", CFG_U16, offsetof(struct rte_roce_config_port, dev_conf.nb_lanes), 0, 1,
	  RTE_ROCE_DEV_WORKERS_MAX },
	{ "link_wait_ms", CFG_U32, offsetof(struct rte_roce_config_port, link_wait_ms), 0, 1,
	  RTE_ROCE_CONFIG_LINK_WAIT_MS_MAX },
	{ "report_active", CFG_BOOL, offsetof(struct rte_roce_config_port, report_active), 0, 0,
	  1 },
	{ "quirk_rxe_flush_icrc", CFG_BOOL,
	  offsetof(struct rte_roce_config_port, dev_conf.quirk_rxe_flush_icrc), 0, 0, 1 },
};

/* The reading of one file. */
struct config_reader {
	const char *path;
	unsigned int line;
	char *err;
	size_t err_size;
	struct rte_roce_config *cfg;
	struct rte_roce_config_port *port;	/* current section, or NULL */
	uint64_t seen;				/* keys of the current section (bit per key) */
};

static int
config_error(struct config_reader *r, const char *key, const char *fmt, ...)
{
	char why[CONFIG_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (r->err != NULL)
		snprintf(r->err, r->err_size, "%s:%u: %s%s%s", r->path, r->line, key ? key : "",
			 key ? ": " : "", why);
	ROCE_LOG(ERR, "%s:%u: %s%s%s", r->path, r->line, key ? key : "", key ? ": " : "", why);
	return -EINVAL;
}

/* Strip leading and trailing blanks in place. */
static char *
config_trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* A decimal number in [min, max]; -EINVAL with the reason. */
static int
config_number(struct config_reader *r, const struct config_key *k, const char *v, uint64_t *out)
{
	unsigned long long n;
	char *end;

	if (!isdigit((unsigned char)v[0]))
		return config_error(r, k->key, "'%s' is not a decimal number", v);
	errno = 0;
	n = strtoull(v, &end, 10);
	if (*end != '\0')
		return config_error(r, k->key, "'%s' is not a decimal number", v);
	if (errno == ERANGE || n < k->min || n > k->max)
		return config_error(r, k->key, "%s is out of range [%" PRIu64 ", %" PRIu64 "]", v,
				    k->min, k->max);
	*out = n;
	return 0;
}

static int
config_bool(struct config_reader *r, const struct config_key *k, const char *v, bool *out)
{
	if (strcmp(v, "yes") == 0 || strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
		*out = true;
	else if (strcmp(v, "no") == 0 || strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
		*out = false;
	else
		return config_error(r, k->key, "'%s' is not yes/no, true/false or 1/0", v);
	return 0;
}

/* "address/len": the address as a GID and the prefix length (IPv4 0..32, IPv6 0..128). */
static int
config_addr(struct config_reader *r, const struct config_key *k, char *v)
{
	struct rte_roce_config_port *p = r->port;
	char *slash = strchr(v, '/');
	unsigned long len;
	unsigned int max;
	char *end;

	if (p->nb_addrs == RTE_ROCE_CONFIG_ADDRS_MAX)
		return config_error(r, k->key, "more than %u addresses", RTE_ROCE_CONFIG_ADDRS_MAX);
	if (slash == NULL)
		return config_error(r, k->key, "'%s' has no /prefix length", v);
	*slash = '\0';
	if (rte_roce_gid_parse(v, &p->addrs[p->nb_addrs]) != 0)
		return config_error(r, k->key, "'%s' is not an IPv4 or IPv6 address", v);
	max = rte_roce_gid_is_ipv4(&p->addrs[p->nb_addrs]) ? CONFIG_IPV4_PREFIX_MAX :
							     CONFIG_IPV6_PREFIX_MAX;
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (!isdigit((unsigned char)slash[1]) || *end != '\0' || errno != 0 || len > max)
		return config_error(r, k->key, "prefix length '%s' is not in [0, %u]", slash + 1, max);
	p->prefix_len[p->nb_addrs++] = len;
	return 0;
}

/* "1,3": the device's worker lcores, distinct, at most RTE_ROCE_DEV_WORKERS_MAX. */
static int
config_lcores(struct config_reader *r, const struct config_key *k, char *v)
{
	struct rte_roce_dev_conf *dc = &r->port->dev_conf;
	char *tok, *save = NULL;
	uint64_t lcore;
	unsigned int i;

	for (tok = strtok_r(v, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		tok = config_trim(tok);
		if (config_number(r, k, tok, &lcore) != 0)
			return -EINVAL;
		if (dc->nb_workers == RTE_ROCE_DEV_WORKERS_MAX)
			return config_error(r, k->key, "more than %u workers",
					    RTE_ROCE_DEV_WORKERS_MAX);
		for (i = 0; i < dc->nb_workers; i++)
			if (dc->lcores[i] == lcore)
				return config_error(r, k->key, "lcore %s given twice", tok);
		dc->lcores[dc->nb_workers++] = lcore;
	}
	if (dc->nb_workers == 0)
		return config_error(r, k->key, "no lcore");
	return 0;
}

static int
config_value(struct config_reader *r, const struct config_key *k, char *v)
{
	void *field = (char *)r->port + k->offset;
	uint64_t n;
	int ret;

	switch (k->type) {
	case CFG_STR:
		if (strlen(v) >= k->size)
			return config_error(r, k->key, "longer than %zu characters", k->size - 1);
		strcpy(field, v);
		return 0;
	case CFG_U16:
	case CFG_U32:
		ret = config_number(r, k, v, &n);
		if (ret == 0 && k->type == CFG_U16)
			*(uint16_t *)field = n;
		else if (ret == 0)
			*(uint32_t *)field = n;
		return ret;
	case CFG_BOOL:
		return config_bool(r, k, v, field);
	case CFG_MAC:
		if (rte_ether_unformat_addr(v, field) != 0)
			return config_error(r, k->key, "'%s' is not a MAC address", v);
		if (!rte_is_unicast_ether_addr(field) || rte_is_zero_ether_addr(field))
			return config_error(r, k->key, "%s is not a unicast address", v);
		return 0;
	case CFG_ADDR:
		return config_addr(r, k, v);
	default:
		return config_lcores(r, k, v);
	}
}

static int
config_key_line(struct config_reader *r, char *line, char *eq)
{
	unsigned int i;
	char *key, *v;

	*eq = '\0';
	key = config_trim(line);
	v = config_trim(eq + 1);
	if (r->port == NULL)
		return config_error(r, key, "outside a [port NAME] section");
	for (i = 0; i < RTE_DIM(config_keys); i++)
		if (strcmp(config_keys[i].key, key) == 0)
			break;
	if (i == RTE_DIM(config_keys))
		return config_error(r, key, "unknown key");
	if (*v == '\0')
		return config_error(r, key, "no value");
	/* Only addresses repeat; anything else twice is a mistake. */
	if ((r->seen & (UINT64_C(1) << i)) && config_keys[i].type != CFG_ADDR)
		return config_error(r, key, "given twice in [port %s]", r->port->name);
	r->seen |= UINT64_C(1) << i;
	return config_value(r, &config_keys[i], v);
}

/* What a finished section must have. */
static int
config_port_end(struct config_reader *r)
{
	struct rte_roce_config_port *p = r->port;
	unsigned int line = r->line;
	int ret = 0;

	if (p == NULL)
		return 0;
	r->line = p->line;
	if (p->dev[0] == '\0')
		ret = config_error(r, "dev", "missing in [port %s]", p->name);
	else if (p->port.mtu_unchecked && p->port.mtu == 0)
		ret = config_error(r, "mtu_unchecked", "needs mtu in [port %s]", p->name);
	else if (p->dev_conf.nb_workers != 0 && p->dev_conf.nb_lanes != 0)
		ret = config_error(r, "lanes", "inline lanes or workers, not both, in [port %s]",
				   p->name);
	/* A port queue per lane (worker): what rte_roce_open_device() wants. */
	p->port.nb_queues = RTE_MAX(RTE_MAX(p->dev_conf.nb_workers, p->dev_conf.nb_lanes), 1);
	r->line = line;
	return ret;
}

static int
config_section(struct config_reader *r, char *line)
{
	char *close = strchr(line, ']');
	char *name;
	unsigned int i;
	int ret;

	ret = config_port_end(r);
	if (ret != 0)
		return ret;
	if (close == NULL || *config_trim(close + 1) != '\0')
		return config_error(r, NULL, "section header without its closing ]");
	*close = '\0';
	name = config_trim(line + 1);
	if (strncmp(name, CONFIG_SECTION_PORT, strlen(CONFIG_SECTION_PORT)) != 0 ||
	    !isspace((unsigned char)name[strlen(CONFIG_SECTION_PORT)]))
		return config_error(r, NULL, "unknown section [%s]: only [port NAME]", name);
	name = config_trim(name + strlen(CONFIG_SECTION_PORT));
	if (strlen(name) >= RTE_ROCE_CONFIG_NAME_LEN)
		return config_error(r, NULL, "port name longer than %u characters",
				    RTE_ROCE_CONFIG_NAME_LEN - 1);
	for (i = 0; i < r->cfg->nb_ports; i++)
		if (strcmp(r->cfg->ports[i].name, name) == 0)
			return config_error(r, NULL, "[port %s] given twice", name);
	if (r->cfg->nb_ports == RTE_ROCE_CONFIG_PORTS_MAX)
		return config_error(r, NULL, "more than %u ports", RTE_ROCE_CONFIG_PORTS_MAX);
	r->port = &r->cfg->ports[r->cfg->nb_ports++];
	strcpy(r->port->name, name);
	r->port->line = r->line;
	r->seen = 0;
	return 0;
}

static int
config_line(struct config_reader *r, char *raw)
{
	char *line = config_trim(raw);
	char *eq;

	if (*line == '\0' || *line == '#' || *line == ';')
		return 0;
	if (*line == '[')
		return config_section(r, line);
	eq = strchr(line, '=');
	if (eq == NULL)
		return config_error(r, NULL, "'%s' is neither [section] nor key = value", line);
	return config_key_line(r, line, eq);
}

int
rte_roce_config_load(const char *path, struct rte_roce_config *cfg, char *err, size_t err_size)
{
	struct config_reader r = { .path = path, .err = err, .err_size = err_size, .cfg = cfg };
	char line[CONFIG_LINE_MAX];
	FILE *f;
	int ret = 0;

	if (path == NULL || cfg == NULL) {
		ROCE_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	/* One bit per key in config_reader.seen. */
	RTE_BUILD_BUG_ON(RTE_DIM(config_keys) > sizeof(r.seen) * CHAR_BIT);
	memset(cfg, 0, sizeof(*cfg));
	f = fopen(path, "r");
	if (f == NULL) {
		ret = -errno;
		if (err != NULL)
			snprintf(err, err_size, "%s: %s", path, strerror(-ret));
		return ret;
	}
	while (ret == 0 && fgets(line, sizeof(line), f) != NULL) {
		r.line++;
		if (strchr(line, '\n') == NULL && !feof(f))
			ret = config_error(&r, NULL, "line longer than %d characters",
					   CONFIG_LINE_MAX - 2);
		else
			ret = config_line(&r, line);
	}
	if (ret == 0 && ferror(f))
		ret = -EIO;
	if (ret == 0)
		ret = config_port_end(&r);
	if (ret == 0 && cfg->nb_ports == 0)
		ret = config_error(&r, NULL, "no [port NAME] section");
	fclose(f);
	return ret;
}

const struct rte_roce_config_port *
rte_roce_config_port_find(const struct rte_roce_config *cfg, const char *name)
{
	unsigned int i;

	if (cfg == NULL || name == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < cfg->nb_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return &cfg->ports[i];
	rte_errno = ENOENT;
	return NULL;
}
