/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Two RoCE ports over net_memif in ONE process: a memif server and a memif
 * client on the same (abstract) socket connect to each other through the
 * EAL interrupt thread, and every frame is copied through shared memory as
 * between two processes. ARP, ND and a RoCEv2 frame both ways.
 *
 * The end goes through the examples' pp_eal_fini(): DPDK 22.11's
 * rte_eal_cleanup() unmaps memory while the interrupt thread still walks
 * memif's sources in it (a SIGSEGV in rte_intr_fd_get() at exit, most runs
 * when four of these ran at once), so that thread is parked first, before
 * the ports stop (pp_port_close()'s order).
 */

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_ethdev.h>

#include <rte_roce.h>

#include "pp_port.h"
#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"

#define LINK_WAIT_MS 2000
#define RESOLVE_MS 1000
#define BURST 32
#define PUMP_ROUNDS 20
#define QPN 0x12
#define PSN 0x123
#define PAYLOAD 1000
#define VDEV_ARGS_LEN 128
#define BIG_BSIZE 8192		/* the third memif's buffers: a frame at MTU 4200 fits */

static uint16_t eth_server, eth_client, eth_big;
static struct rte_roce_port *a, *b;

static const char *const addrs_a[] = { "198.18.0.1/24", "2001:db8::1/64", NULL };
static const char *const addrs_b[] = { "198.18.0.2/24", "2001:db8::2/64", NULL };

/* Frames above net_memif's buffer size would be chained, which loses them: refused. */
static int
test_bsize_below_frame(void)
{
	struct rte_roce_port_conf conf = { .mtu = 4200, .mtu_unchecked = true };
	size_t pos = roce_test_log_pos();
	struct rte_roce_port *p;

	p = roce_test_port(eth_server, &conf, NULL);
	ROCE_TEST_ASSERT(p == NULL && rte_errno == EINVAL, "4218-byte frames, bsize 2048");
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "net_memif buffers of 2048 bytes (vdev "
						"argument bsize)") &&
			 roce_test_logged_since(pos, "set bsize=4218 or more"),
			 "refusal names bsize and the size it needs");
	return 0;
}

/* An unchecked MTU past what memif reports is taken, and the log says what was not asked. */
static int
test_unchecked_mtu_noted(void)
{
	struct rte_roce_port_conf conf = { .mtu = 4200, .mtu_unchecked = true };
	size_t pos = roce_test_log_pos();
	struct rte_roce_port_info info;
	struct rte_roce_port *p;
	int ret;

	p = roce_test_port(eth_big, &conf, NULL);
	ROCE_TEST_ASSERT(p != NULL, "MTU 4200 with bsize %u", BIG_BSIZE);
	ret = rte_roce_port_info_get(p, &info);
	rte_roce_port_destroy(p);
	ROCE_TEST_ASSERT(ret == 0 && info.ib_mtu == 4096, "IB MTU 4096");
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "mtu_unchecked: MTU 4200 (frames of 4218 "
						"bytes) taken without the PMD") &&
			 roce_test_logged_since(pos, "max_rx_pktlen 1518"),
			 "the bypassed limit is logged");
	return 0;
}

static int
test_link_up(void)
{
	struct rte_roce_port_info ia, ib;
	uint64_t end = roce_test_ms() + LINK_WAIT_MS;

	a = roce_test_port(eth_server, NULL, addrs_a);
	b = roce_test_port(eth_client, NULL, addrs_b);
	ROCE_TEST_ASSERT(a != NULL && b != NULL, "ports");
	do {
		rte_roce_port_info_get(a, &ia);
		rte_roce_port_info_get(b, &ib);
	} while (!(ia.link_up && ib.link_up) && roce_test_ms() < end);
	ROCE_TEST_ASSERT(ia.link_up && ib.link_up, "memif connected");
	return 0;
}

static int
test_resolve_both_ways(void)
{
	static const char *const ips[][2] = {
		{ "198.18.0.2", "198.18.0.1" }, { "2001:db8::2", "2001:db8::1" },
	};
	struct rte_roce_port_info ia, ib;
	struct rte_ether_addr mac;
	unsigned int i;

	ROCE_TEST_ASSERT(a != NULL && b != NULL, "ports");
	rte_roce_port_info_get(a, &ia);
	rte_roce_port_info_get(b, &ib);
	for (i = 0; i < RTE_DIM(ips); i++) {
		ROCE_TEST_ASSERT_EQ(roce_test_resolve(a, b, ips[i][0], &mac, RESOLVE_MS), 0,
				    "server resolves %s", ips[i][0]);
		ROCE_TEST_ASSERT(rte_is_same_ether_addr(&mac, &ib.mac), "client's MAC");
		ROCE_TEST_ASSERT_EQ(roce_test_resolve(b, a, ips[i][1], &mac, RESOLVE_MS), 0,
				    "client resolves %s", ips[i][1]);
		ROCE_TEST_ASSERT(rte_is_same_ether_addr(&mac, &ia.mac), "server's MAC");
	}
	return 0;
}

static int
roce_one_way(struct rte_roce_port *from, struct rte_roce_port *to, const char *src,
	     const char *dst)
{
	struct rte_mbuf *pkts[BURST];
	struct rte_roce_pkt pkt;
	union rte_roce_gid nh;
	unsigned int round;
	uint16_t n = 0;

	rte_roce_gid_parse(dst, &nh);
	ROCE_TEST_ASSERT_EQ(rte_roce_port_send(from, roce_test_send_only(src, dst, QPN, PSN, PAYLOAD),
					       &nh), 0, "send to %s", dst);
	for (round = 0; round < PUMP_ROUNDS && n == 0; round++) {
		rte_roce_port_poll(from, pkts, BURST);
		n = rte_roce_port_poll(to, pkts, BURST);
	}
	ROCE_TEST_ASSERT_EQ(n, 1, "frame to %s arrived", dst);
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_parse_mbuf(pkts[0], 1024, &pkt), RTE_ROCE_DROP_NONE, "parse");
	ROCE_TEST_ASSERT(pkt.psn == PSN && pkt.dqpn == QPN && pkt.payload_len == PAYLOAD, "fields");
	rte_pktmbuf_free(pkts[0]);
	return 0;
}

static int
test_roce_both_ways(void)
{
	struct rte_roce_port_stats sa, sb;

	ROCE_TEST_ASSERT(a != NULL && b != NULL, "ports");
	ROCE_TEST_ASSERT_EQ(roce_one_way(a, b, "198.18.0.1", "198.18.0.2"), 0, "IPv4 a->b");
	ROCE_TEST_ASSERT_EQ(roce_one_way(b, a, "2001:db8::2", "2001:db8::1"), 0, "IPv6 b->a");
	rte_roce_port_stats_get(a, &sa);
	rte_roce_port_stats_get(b, &sb);
	ROCE_TEST_ASSERT(sa.rx_roce_packets == 1 && sb.rx_roce_packets == 1, "one RoCE frame each");
	ROCE_TEST_ASSERT(sa.drops[RTE_ROCE_PORT_DROP_ROCE] == 0 &&
			 sb.drops[RTE_ROCE_PORT_DROP_ROCE] == 0, "no RoCE drops");
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "memif_bsize_below_frame_refused", test_bsize_below_frame },
	{ "memif_unchecked_mtu_noted", test_unchecked_mtu_noted },
	{ "memif_link_up_in_one_process", test_link_up },
	{ "memif_resolve_both_ways", test_resolve_both_ways },
	{ "memif_roce_both_ways", test_roce_both_ways },
};

int
main(int argc, char **argv)
{
	char sname[RTE_ETH_NAME_MAX_LEN], cname[RTE_ETH_NAME_MAX_LEN], bname[RTE_ETH_NAME_MAX_LEN];
	char server[VDEV_ARGS_LEN], client[VDEV_ARGS_LEN], big[VDEV_ARGS_LEN];
	const char *args[] = { "--vdev", server, "--vdev", client, "--vdev", big, NULL };
	int ret;

	RTE_SET_USED(argc);
	/* An abstract socket named after the pid: parallel runs do not meet. */
	snprintf(sname, sizeof(sname), "net_memif_s%d", getpid());
	snprintf(cname, sizeof(cname), "net_memif_c%d", getpid());
	snprintf(server, sizeof(server), "%s,role=server,id=1,socket=/roce-test-%d.sock", sname,
		 getpid());
	snprintf(client, sizeof(client), "%s,role=client,id=1,socket=/roce-test-%d.sock", cname,
		 getpid());
	/* A server alone (no client comes) with big buffers. */
	snprintf(bname, sizeof(bname), "net_memif_b%d", getpid());
	snprintf(big, sizeof(big), "%s,role=server,id=2,bsize=%u,socket=/roce-test-b%d.sock",
		 bname, BIG_BSIZE, getpid());
	if (roce_test_eal_init(argv[0], args) != 0 || roce_test_mbuf_pool() == NULL ||
	    rte_eth_dev_get_port_by_name(sname, &eth_server) != 0 ||
	    rte_eth_dev_get_port_by_name(cname, &eth_client) != 0 ||
	    rte_eth_dev_get_port_by_name(bname, &eth_big) != 0 || roce_test_log_capture() != 0)
		return 1;
	ret = roce_test_run(cases, RTE_DIM(cases));
	/* Before the ports stop: no memif handler may run during the teardown. */
	pp_intr_park(PP_INTR_PARK_TIMEOUT_MS);
	rte_roce_port_destroy(a);
	rte_roce_port_destroy(b);
	roce_test_log_release();
	pp_eal_fini();
	return ret;
}
