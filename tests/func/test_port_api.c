/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The control API of a port over net_ring: bring-up and info, the GID
 * table, and every misuse returning a clear error. The EAL was initialised
 * by the test (as a host application would), so rte_roce_eal_init() must
 * leave it alone.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include <rte_roce_port.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"

static struct roce_test_pair pair;

static union rte_roce_gid
gid(const char *text)
{
	union rte_roce_gid g;

	memset(&g, 0, sizeof(g));
	rte_roce_gid_parse(text, &g);
	return g;
}

static int
test_eal_already_initialised(void)
{
	char *argv[] = { (char *)(uintptr_t)"test", (char *)(uintptr_t)"--no-huge", NULL };

	ROCE_TEST_ASSERT_EQ(rte_roce_eal_init(2, argv), 0, "host's EAL kept");
	ROCE_TEST_ASSERT_EQ(rte_roce_eal_init(0, argv), -EINVAL, "argc 0");
	ROCE_TEST_ASSERT_EQ(rte_roce_eal_init(1, NULL), -EINVAL, "argv NULL");
	return 0;
}

static int
test_create_misuse(void)
{
	struct rte_roce_port_conf conf = { .port_id = pair.a };
	struct rte_roce_port *p, *q;

	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_port_create(NULL) == NULL && rte_errno == EINVAL, "NULL conf");
	conf.port_id = RTE_MAX_ETHPORTS - 1;
	ROCE_TEST_ASSERT(rte_roce_port_create(&conf) == NULL && rte_errno == ENODEV,
			 "no such ethdev: %s", rte_strerror(rte_errno));
	/* net_ring has no MAC of its own. */
	conf.port_id = pair.a;
	ROCE_TEST_ASSERT(rte_roce_port_create(&conf) == NULL && rte_errno == EINVAL, "no MAC");
	memset(&conf.mac, 0xff, sizeof(conf.mac));
	ROCE_TEST_ASSERT(rte_roce_port_create(&conf) == NULL && rte_errno == EINVAL,
			 "broadcast MAC");
	p = roce_test_port(pair.a, NULL, NULL);
	ROCE_TEST_ASSERT(p != NULL, "port");
	q = roce_test_port(pair.a, NULL, NULL);
	ROCE_TEST_ASSERT(q == NULL && rte_errno == EBUSY, "second port on one ethdev");
	rte_roce_port_destroy(p);
	rte_roce_port_destroy(NULL);
	/* The ethdev is free again. */
	p = roce_test_port(pair.a, NULL, NULL);
	ROCE_TEST_ASSERT(p != NULL, "port again");
	rte_roce_port_destroy(p);
	return 0;
}

static int
test_mtu(void)
{
	struct rte_roce_port_conf conf = { .mtu = 4200 };
	struct rte_roce_port_info info;
	struct rte_roce_port *p;

	size_t pos = roce_test_log_pos();

	/* net_ring cannot change its MTU: a clean -ENOTSUP, naming the way out. */
	p = roce_test_port(pair.a, &conf, NULL);
	ROCE_TEST_ASSERT(p == NULL && rte_errno == ENOTSUP, "MTU refused: %s",
			 rte_strerror(rte_errno));
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "MTU 4200 refused by the PMD") &&
			 roce_test_logged_since(pos, "mtu_unchecked"), "refusal names the knobs");
	/*
	 * mtu_unchecked: taken without asking the PMD, but a 9018-byte frame
	 * must still fit in one mbuf of the pool (4352 bytes after headroom).
	 */
	conf.mtu_unchecked = true;
	conf.mtu = 9000;
	pos = roce_test_log_pos();
	p = roce_test_port(pair.a, &conf, NULL);
	ROCE_TEST_ASSERT(p == NULL && rte_errno == EINVAL, "MTU 9000 in 4352-byte mbufs");
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "a frame at MTU 9000 takes 9018") &&
			 roce_test_logged_since(pos, "rte_roce_port_conf::pool"),
			 "refusal names the pool");
	conf.mtu = 4200;
	p = roce_test_port(pair.a, &conf, NULL);
	ROCE_TEST_ASSERT(p != NULL, "unchecked MTU 4200");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(p, &info), 0, "info");
	rte_roce_port_destroy(p);
	ROCE_TEST_ASSERT_EQ(info.mtu, 4200, "unchecked MTU kept");
	ROCE_TEST_ASSERT_EQ(info.ib_mtu, 4096, "IB MTU of 4200");
	conf.mtu = 0;
	p = roce_test_port(pair.a, &conf, NULL);
	ROCE_TEST_ASSERT(p == NULL && rte_errno == EINVAL, "unchecked without an MTU");
	/* rxe's IB MTU rule (K:rxe_param.h): largest of 256..4096 <= MTU - 80. */
	ROCE_TEST_ASSERT_EQ(rte_roce_port_ib_mtu(1500), 1024, "1500");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_ib_mtu(4176), 4096, "4176");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_ib_mtu(4175), 2048, "4175");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_ib_mtu(9000), 4096, "9000");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_ib_mtu(336), 256, "336");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_ib_mtu(335), 0, "335");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_ib_mtu(0), 0, "0");
	return 0;
}

static int
test_info(void)
{
	struct rte_roce_port *p = roce_test_port(pair.a, NULL, NULL);
	struct rte_roce_port_info info;
	int ret;

	ROCE_TEST_ASSERT(p != NULL, "port");
	ret = rte_roce_port_info_get(p, &info);
	rte_roce_port_destroy(p);
	ROCE_TEST_ASSERT_EQ(ret, 0, "info");
	ROCE_TEST_ASSERT_EQ(info.port_id, pair.a, "port id");
	ROCE_TEST_ASSERT_EQ(info.mtu, 1500, "MTU");
	ROCE_TEST_ASSERT_EQ(info.ib_mtu, 1024, "IB MTU");
	ROCE_TEST_ASSERT(info.link_up, "net_ring links are up once started");
	ROCE_TEST_ASSERT(info.mac.addr_bytes[0] == RTE_ETHER_LOCAL_ADMIN_ADDR, "configured MAC");
	ROCE_TEST_ASSERT(info.pool == roce_test_mbuf_pool(), "pool");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(NULL, &info), -EINVAL, "NULL port");
	return 0;
}

/* A pool whose mbufs cannot hold a frame at the MTU: refused, naming the pool and the MTU. */
static int
test_pool_too_small(void)
{
	struct rte_roce_port_conf conf = { 0 };
	struct rte_mempool *small;
	struct rte_roce_port *p;
	size_t pos = roce_test_log_pos();

	small = rte_pktmbuf_pool_create("api_small", 63, 0, 0, RTE_PKTMBUF_HEADROOM + 1024,
					rte_socket_id());
	ROCE_TEST_ASSERT(small != NULL, "pool: %s", rte_strerror(rte_errno));
	conf.pool = small;
	p = roce_test_port(pair.a, &conf, NULL);
	rte_mempool_free(small);
	ROCE_TEST_ASSERT(p == NULL && rte_errno == EINVAL, "1518-byte frames in 1024-byte mbufs");
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "hold 1024 bytes after the headroom, a frame "
						"at MTU 1500 takes 1518") &&
			 roce_test_logged_since(pos, "rte_roce_port_conf::pool") &&
			 roce_test_logged_since(pos, "rte_roce_port_conf::mtu"),
			 "refusal names the pool and the MTU");
	/* Refused before the ethdev was touched: it takes a port at once. */
	p = roce_test_port(pair.a, NULL, NULL);
	ROCE_TEST_ASSERT(p != NULL, "port after the refusal");
	rte_roce_port_destroy(p);
	return 0;
}

/* With no pool given, the port makes one and frees it with the port. */
static int
test_own_pool(void)
{
	struct rte_roce_port_conf conf = { .port_id = pair.b,
					   .mac = {{ RTE_ETHER_LOCAL_ADMIN_ADDR, 0, 0, 0, 0, 9 }} };
	struct rte_roce_port *p = rte_roce_port_create(&conf);
	struct rte_roce_port_info info;
	char name[RTE_MEMPOOL_NAMESIZE];

	ROCE_TEST_ASSERT(p != NULL, "port: %s", rte_strerror(rte_errno));
	rte_roce_port_info_get(p, &info);
	ROCE_TEST_ASSERT(info.pool != NULL && info.pool != roce_test_mbuf_pool(), "own pool");
	ROCE_TEST_ASSERT(info.pool->elt_size >= 1500, "sized for the MTU");
	strcpy(name, info.pool->name);
	rte_roce_port_destroy(p);
	ROCE_TEST_ASSERT(rte_mempool_lookup(name) == NULL, "pool %s freed", name);
	return 0;
}

static int
check_gid(struct rte_roce_port *p, uint32_t index, const char *text)
{
	union rte_roce_gid g, want = gid(text);

	ROCE_TEST_ASSERT_EQ(rte_roce_port_gid_query(p, index, &g), 0, "query %u", index);
	ROCE_TEST_ASSERT(rte_roce_gid_equal(&g, &want), "index %u is %s", index, text);
	ROCE_TEST_ASSERT_EQ(rte_roce_port_gid_find(p, &want), (int)index, "find %s", text);
	return 0;
}

static int
gid_table(struct rte_roce_port *p)
{
	union rte_roce_gid g, ll;
	unsigned int i;

	/* MAC 02:00:00:00:00:0N -> fe80::ff:fe00:N (modified EUI-64 flips the U/L bit). */
	ROCE_TEST_ASSERT_EQ(rte_roce_port_gid_query(p, 0, &ll), 0, "default GID");
	g = gid("fe80::ff:fe00:0");
	g.raw[15] = (uint8_t)(pair.a + 1);
	ROCE_TEST_ASSERT(rte_roce_gid_equal(&ll, &g), "default GID from the MAC");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, &(union rte_roce_gid){ .raw = {0} }, 8),
			    -EINVAL, "unspecified");
	g = gid("198.18.0.1");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, &g, 24), 0, "IPv4");
	ROCE_TEST_ASSERT_EQ(check_gid(p, 1, "::ffff:198.18.0.1"), 0, "IPv4-mapped at 1");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, &g, 24), -EEXIST, "twice");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, &ll, 64), -EEXIST, "default link-local");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, &g, 33), -EINVAL, "IPv4 prefix 33");
	g = gid("2001:db8::1");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, &g, 0), -EINVAL, "prefix 0");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, &g, 64), 0, "IPv6");
	ROCE_TEST_ASSERT_EQ(check_gid(p, 2, "2001:db8::1"), 0, "IPv6 at 2");
	g = gid("224.0.0.1");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, &g, 24), -EINVAL, "IPv4 multicast");
	g = gid("ff02::1");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, &g, 64), -EINVAL, "IPv6 multicast");
	g = gid("127.0.0.1");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, &g, 8), -EINVAL, "loopback");
	/* Deleting leaves a hole that the next address fills; other indices stay. */
	g = gid("198.18.0.1");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_del(p, &g), 0, "delete");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_del(p, &g), -ENOENT, "delete missing");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_gid_query(p, 1, &g), -ENOENT, "hole");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_gid_find(p, &g), -ENOENT, "gone");
	ROCE_TEST_ASSERT_EQ(check_gid(p, 2, "2001:db8::1"), 0, "IPv6 stays at 2");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_del(p, &ll), -EPERM, "default GID");
	g = gid("198.18.1.1");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, &g, 24), 0, "refill");
	ROCE_TEST_ASSERT_EQ(check_gid(p, 1, "198.18.1.1"), 0, "in the hole");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_gid_query(p, RTE_ROCE_PORT_GID_TBL_LEN, &g), -EINVAL,
			    "index out of range");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_gid_query(p, 0, NULL), -EINVAL, "NULL gid");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_gid_find(NULL, &g), -EINVAL, "NULL port");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, NULL, 24), -EINVAL, "NULL address");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_del(NULL, &g), -EINVAL, "NULL port");
	/* Fill the table. */
	for (i = 3; i < RTE_ROCE_PORT_GID_TBL_LEN; i++) {
		g = gid("198.18.2.0");
		g.raw[15] = (uint8_t)i;
		ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, &g, 24), 0, "address %u", i);
	}
	g = gid("198.18.3.1");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(p, &g, 24), -ENOSPC, "table full");
	return 0;
}

/* Run a case body on a fresh port, destroyed whatever the outcome. */
static int
with_port(int (*body)(struct rte_roce_port *))
{
	struct rte_roce_port *p = roce_test_port(pair.a, NULL, NULL);
	unsigned int baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	int ret;

	ROCE_TEST_ASSERT(p != NULL, "port");
	ret = body(p);
	rte_roce_port_destroy(p);
	roce_test_pair_drain(&pair);
	ROCE_TEST_ASSERT_EQ(rte_mempool_in_use_count(roce_test_mbuf_pool()), baseline,
			    "rejected and queued frames freed");
	return ret;
}

static int
test_gid_table(void)
{
	return with_port(gid_table);
}

static int
data_path_misuse(struct rte_roce_port *p)
{
	struct rte_roce_port_stats st;
	struct rte_ether_addr mac;
	union rte_roce_gid v4 = gid("198.18.0.2"), v6 = gid("2001:db8::2"), bad;
	struct rte_mbuf *m;
	uint8_t ipv6_frame[RTE_ETHER_HDR_LEN + 1] = { [RTE_ETHER_HDR_LEN] = 0x60 };

	ROCE_TEST_ASSERT_EQ(rte_roce_port_send(NULL, NULL, &v4), -EINVAL, "NULL port");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_send(p, roce_test_frame("x", 1), &v4), -EINVAL,
			    "frame too short");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_send(p, roce_test_frame(ipv6_frame, sizeof(ipv6_frame)),
					       &v4), -EINVAL, "IPv6 frame to an IPv4 next hop");
	/* No IPv4 address to ask from. */
	ROCE_TEST_ASSERT_EQ(rte_roce_port_resolve(p, &v4, &mac), -EADDRNOTAVAIL, "no source");
	m = roce_test_frame(ipv6_frame, sizeof(ipv6_frame));
	ROCE_TEST_ASSERT_EQ(rte_roce_port_send(p, m, &v6), 0, "queued: link-local source");
	bad = gid("ff02::1");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_resolve(p, &bad, &mac), -EINVAL, "multicast");
	bad = gid("::");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_resolve(p, &bad, &mac), -EINVAL, "unspecified");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_resolve(p, NULL, &mac), -EINVAL, "NULL address");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_stats_get(p, NULL), -EINVAL, "NULL stats");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_stats_get(p, &st), 0, "stats");
	ROCE_TEST_ASSERT_EQ(st.nd_solicits_out, 1, "one solicitation");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_stats_reset(p), 0, "reset");
	rte_roce_port_stats_get(p, &st);
	ROCE_TEST_ASSERT_EQ(st.nd_solicits_out, 0, "reset worked");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_stats_reset(NULL), -EINVAL, "NULL port");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_poll(p, NULL, 0), 0, "poll without room: timers only");
	ROCE_TEST_ASSERT(strcmp(rte_roce_port_drop_name(RTE_ROCE_PORT_DROP_NOT_FOR_US),
				"not_for_us") == 0, "drop name");
	ROCE_TEST_ASSERT(strcmp(rte_roce_port_drop_name(RTE_ROCE_PORT_DROP_MAX), "unknown") == 0,
			 "out of range");
	return 0;
}

static int
test_data_path_misuse(void)
{
	return with_port(data_path_misuse);
}

static const struct roce_test_case cases[] = {
	{ "eal_already_initialised", test_eal_already_initialised },
	{ "create_misuse", test_create_misuse },
	{ "mtu_refused_and_ib_mtu", test_mtu },
	{ "pool_too_small_refused", test_pool_too_small },
	{ "info", test_info },
	{ "own_pool_created_and_freed", test_own_pool },
	{ "gid_table", test_gid_table },
	{ "data_path_misuse", test_data_path_misuse },
};

int
main(int argc, char **argv)
{
	int ret;

	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&pair, "api") != 0 || roce_test_log_capture() != 0)
		return 1;
	ret = roce_test_run(cases, RTE_DIM(cases));
	roce_test_log_release();
	return ret;
}
