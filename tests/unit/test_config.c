/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rte_roce_config_load(): the shipped example loads with the values it
 * documents, and every invalid value is refused with its line and key.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_roce_config.h>

#include "roce_test.h"

#define ERR_LEN 512

static const char *example_path;

/* One invalid file: the line and the text the message must name. */
struct bad_case {
	const char *text;
	unsigned int line;
	const char *expect;
};

#define PORT "[port a]\ndev = net_ring0\n"

static const struct bad_case bad_cases[] = {
	{ "dev = x\n", 1, "dev: outside a [port NAME] section" },
	{ "[port a\n", 1, "closing ]" },
	{ "[device]\n", 1, "unknown section [device]" },
	{ "[port]\n", 1, "unknown section [port]" },
	{ "[port a]\ndev = x\n[port a]\ndev = y\n", 3, "[port a] given twice" },
	{ "[port a]\naddr = 10.0.0.1/24\n", 1, "dev: missing in [port a]" },
	{ "[port a]\ndev = x\n[port b]\n", 3, "dev: missing in [port b]" },
	{ "# nothing\n", 1, "no [port NAME] section" },
	{ PORT "bogus = 1\n", 3, "bogus: unknown key" },
	{ PORT "mtu\n", 3, "neither [section] nor key = value" },
	{ PORT "mtu =\n", 3, "mtu: no value" },
	{ PORT "mtu = 1500\nmtu = 9000\n", 4, "mtu: given twice" },
	{ PORT "mtu = 12\n", 3, "mtu: 12 is out of range [68, 65535]" },
	{ PORT "mtu = 70000\n", 3, "mtu: 70000 is out of range" },
	{ PORT "mtu = 1500x\n", 3, "mtu: '1500x' is not a decimal number" },
	{ PORT "mtu = -1\n", 3, "mtu: '-1' is not a decimal number" },
	{ PORT "rx_desc = 0\n", 3, "rx_desc: 0 is out of range" },
	{ PORT "tx_desc = 0x10\n", 3, "tx_desc: '0x10' is not a decimal number" },
	{ PORT "neigh_entries = 0\n", 3, "neigh_entries: 0 is out of range" },
	{ PORT "neigh_timeout_ms = 99999999999\n", 3, "neigh_timeout_ms: 99999999999 is out of range" },
	{ PORT "neigh_retry_ms = 0\n", 3, "neigh_retry_ms: 0 is out of range" },
	{ PORT "neigh_retries = 0\n", 3, "neigh_retries: 0 is out of range" },
	{ PORT "neigh_queue_len = 65536\n", 3, "neigh_queue_len: 65536 is out of range" },
	{ PORT "mtu_unchecked = maybe\n", 3, "mtu_unchecked: 'maybe' is not yes/no" },
	{ PORT "mtu_unchecked = yes\n", 1, "mtu_unchecked: needs mtu in [port a]" },
	{ PORT "mac = 02:00:00:00:00\n", 3, "mac: '02:00:00:00:00' is not a MAC address" },
	{ PORT "mac = 01:00:5e:00:00:01\n", 3, "mac: 01:00:5e:00:00:01 is not a unicast address" },
	{ PORT "mac = 00:00:00:00:00:00\n", 3, "is not a unicast address" },
	{ PORT "addr = 10.0.0.1\n", 3, "addr: '10.0.0.1' has no /prefix length" },
	{ PORT "addr = 10.0.0.300/24\n", 3, "addr: '10.0.0.300' is not an IPv4 or IPv6 address" },
	{ PORT "addr = 10.0.0.1/33\n", 3, "addr: prefix length '33' is not in [0, 32]" },
	{ PORT "addr = fd00::1/129\n", 3, "addr: prefix length '129' is not in [0, 128]" },
	{ PORT "addr = 10.0.0.1/\n", 3, "addr: prefix length '' is not in [0, 32]" },
	{ PORT "addr = 1.0.0.1/8\naddr = 1.0.0.2/8\naddr = 1.0.0.3/8\naddr = 1.0.0.4/8\n"
	  "addr = 1.0.0.5/8\naddr = 1.0.0.6/8\naddr = 1.0.0.7/8\naddr = 1.0.0.8/8\naddr = 1.0.0.9/8\n",
	  11, "addr: more than 8 addresses" },
	{ PORT "max_qp = 1\n", 3, "max_qp: 1 is out of range" },
	{ PORT "max_qp = 2000000\n", 3, "max_qp: 2000000 is out of range" },
	{ PORT "max_qp_wr = 0\n", 3, "max_qp_wr: 0 is out of range" },
	{ PORT "max_sge = 257\n", 3, "max_sge: 257 is out of range" },
	{ PORT "max_inline_data = 4097\n", 3, "max_inline_data: 4097 is out of range" },
	{ PORT "max_cq = 0\n", 3, "max_cq: 0 is out of range" },
	{ PORT "max_cqe = 16777217\n", 3, "max_cqe: 16777217 is out of range" },
	{ PORT "max_mr = 0\n", 3, "max_mr: 0 is out of range" },
	{ PORT "max_qp_rd_atom = 17\n", 3, "max_qp_rd_atom: 17 is out of range" },
	{ PORT "max_srq = 0\n", 3, "max_srq: 0 is out of range" },
	{ PORT "max_srq_wr = 0\n", 3, "max_srq_wr: 0 is out of range" },
	{ PORT "max_srq_sge = 0\n", 3, "max_srq_sge: 0 is out of range" },
	{ PORT "workers = 1,1\n", 3, "workers: lcore 1 given twice" },
	{ PORT "workers = 128\n", 3, "workers: 128 is out of range [0, 127]" },
	{ PORT "workers = a\n", 3, "workers: 'a' is not a decimal number" },
	{ PORT "workers = ,\n", 3, "workers: no lcore" },
	{ PORT "workers = 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n", 3, "workers: more than 16 workers" },
	{ PORT "lanes = 0\n", 3, "lanes: 0 is out of range [1, 16]" },
	{ PORT "lanes = 17\n", 3, "lanes: 17 is out of range [1, 16]" },
	{ PORT "workers = 1\nlanes = 2\n", 1, "lanes: inline lanes or workers, not both" },
	{ PORT "link_wait_ms = 0\n", 3, "link_wait_ms: 0 is out of range [1, 3600000]" },
	{ PORT "report_active = sometimes\n", 3, "report_active: 'sometimes' is not yes/no" },
	{ PORT "quirk_rxe_flush_icrc = rxe\n", 3, "quirk_rxe_flush_icrc: 'rxe' is not yes/no" },
	{ "[port aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n", 1, "port name longer than 31" },
};

/* Write text to a temporary file; its path in path. */
static int
write_file(char *path, const char *text)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/roce_config_XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (f == NULL) {
		close(fd);
		return -1;
	}
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -1;
}

static int
test_config_invalid(void)
{
	struct rte_roce_config cfg;
	char path[64], err[ERR_LEN], where[96];
	unsigned int i;
	int ret = 0;

	for (i = 0; i < RTE_DIM(bad_cases) && ret == 0; i++) {
		const struct bad_case *c = &bad_cases[i];

		ROCE_TEST_ASSERT_EQ(write_file(path, c->text), 0, "temporary file");
		err[0] = '\0';
		ret = rte_roce_config_load(path, &cfg, err, sizeof(err)) == -EINVAL ? 0 : -1;
		snprintf(where, sizeof(where), "%s:%u: ", path, c->line);
		if (ret == 0 && (strncmp(err, where, strlen(where)) != 0 || strstr(err, c->expect) == NULL))
			ret = -1;
		if (ret != 0)
			printf("#   case %u: got '%s', want '%s...%s'\n", i, err, where, c->expect);
		unlink(path);
	}
	return ret;
}

static int
test_config_example(void)
{
	const struct rte_roce_config_port *a, *b;
	struct rte_roce_config cfg;
	union rte_roce_gid gid;
	char err[ERR_LEN] = "";
	int ret;

	ret = rte_roce_config_load(example_path, &cfg, err, sizeof(err));
	ROCE_TEST_ASSERT_EQ(ret, 0, "example refused: %s", err);
	ROCE_TEST_ASSERT_EQ(cfg.nb_ports, 2, "ports");
	a = rte_roce_config_port_find(&cfg, "a");
	b = rte_roce_config_port_find(&cfg, "b");
	ROCE_TEST_ASSERT(a != NULL && b != NULL, "ports by name");
	ROCE_TEST_ASSERT(rte_roce_config_port_find(&cfg, "c") == NULL && rte_errno == ENOENT, "no c");
	ROCE_TEST_ASSERT(rte_roce_config_port_find(NULL, "a") == NULL && rte_errno == EINVAL, "NULL");
	ROCE_TEST_ASSERT(strcmp(a->dev, "net_memif0,role=server,socket=/tmp/roce-a.sock,bsize=8192") == 0,
			 "dev %s", a->dev);
	rte_roce_gid_parse("fd00::1", &gid);
	ROCE_TEST_ASSERT(a->nb_addrs == 2 && a->prefix_len[0] == 24 && a->prefix_len[1] == 64 &&
			 rte_roce_gid_equal(&a->addrs[1], &gid), "addresses");
	ROCE_TEST_ASSERT(a->port.mtu == 4200 && a->port.mtu_unchecked && a->port.nb_rx_desc == 1024 &&
			 a->port.mac.addr_bytes[5] == 0x0a && a->port.neigh_retries == 3, "port conf");
	ROCE_TEST_ASSERT(a->dev_conf.max_qp == 1024 && a->dev_conf.max_qp_rd_atom == 16 &&
			 a->dev_conf.nb_workers == 1 && a->dev_conf.lcores[0] == 1, "device conf");
	ROCE_TEST_ASSERT(a->link_wait_ms == 10000 && !a->report_active, "link keys");
	ROCE_TEST_ASSERT(!a->dev_conf.quirk_rxe_flush_icrc, "quirk_rxe_flush_icrc");
	ROCE_TEST_ASSERT(b->nb_addrs == 1 && b->port.mtu == 0 && b->dev_conf.nb_workers == 0,
			 "defaults left zero");
	/* A port queue per worker (lane): what the device wants. */
	ROCE_TEST_ASSERT(a->port.nb_queues == 1 && b->port.nb_queues == 1, "queues %u, %u",
			 a->port.nb_queues, b->port.nb_queues);
	return 0;
}

static int
test_config_misuse(void)
{
	struct rte_roce_config cfg;
	char err[ERR_LEN];

	ROCE_TEST_ASSERT_EQ(rte_roce_config_load(NULL, &cfg, err, sizeof(err)), -EINVAL, "NULL path");
	ROCE_TEST_ASSERT_EQ(rte_roce_config_load(example_path, NULL, err, sizeof(err)), -EINVAL,
			    "NULL cfg");
	ROCE_TEST_ASSERT_EQ(rte_roce_config_load("/nonexistent/roce.conf", &cfg, err, sizeof(err)),
			    -ENOENT, "missing file");
	ROCE_TEST_ASSERT(strstr(err, "/nonexistent/roce.conf") != NULL, "message: %s", err);
	ROCE_TEST_ASSERT_EQ(rte_roce_config_load(example_path, &cfg, NULL, 0), 0, "err may be NULL");
	return 0;
}

/* Inline lanes and workers each give the port a queue per lane. */
static int
test_config_queues(void)
{
	static const char *const texts[] = {
		PORT "lanes = 3\n", PORT "workers = 2,4\n",
	};
	static const uint16_t queues[] = { 3, 2 };
	struct rte_roce_config cfg;
	char path[64], err[ERR_LEN];
	unsigned int i;
	int ret;

	for (i = 0; i < RTE_DIM(texts); i++) {
		ROCE_TEST_ASSERT_EQ(write_file(path, texts[i]), 0, "temporary file");
		ret = rte_roce_config_load(path, &cfg, err, sizeof(err));
		unlink(path);
		ROCE_TEST_ASSERT_EQ(ret, 0, "case %u: %s", i, err);
		ROCE_TEST_ASSERT_EQ(cfg.ports[0].port.nb_queues, queues[i], "case %u queues", i);
	}
	ROCE_TEST_ASSERT_EQ(cfg.ports[0].dev_conf.nb_workers, 2, "workers");
	return 0;
}

/* The interop quirk is taken when asked for (the example leaves it off). */
static int
test_config_quirk(void)
{
	struct rte_roce_config cfg;
	char path[64], err[ERR_LEN];
	int ret;

	ROCE_TEST_ASSERT_EQ(write_file(path, PORT "quirk_rxe_flush_icrc = yes\n"), 0, "temporary file");
	ret = rte_roce_config_load(path, &cfg, err, sizeof(err));
	unlink(path);
	ROCE_TEST_ASSERT_EQ(ret, 0, "%s", err);
	ROCE_TEST_ASSERT(cfg.ports[0].dev_conf.quirk_rxe_flush_icrc, "quirk_rxe_flush_icrc");
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "config_example", test_config_example },
	{ "config_quirk_rxe_flush_icrc", test_config_quirk },
	{ "config_queues", test_config_queues },
	{ "config_invalid", test_config_invalid },
	{ "config_misuse", test_config_misuse },
};

int
main(int argc, char **argv)
{
	if (argc != 2) {
		printf("usage: %s roce.conf.example\n", argv[0]);
		return 1;
	}
	example_path = argv[1];
	return roce_test_run(cases, RTE_DIM(cases));
}
