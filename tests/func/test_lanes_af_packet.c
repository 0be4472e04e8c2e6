/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Lanes over a PMD whose RX queue is chosen by a flow hash, not by us:
 * net_af_packet with qpairs=2 on the two ends of a veth. DPDK 22.11's
 * af_packet PMD opens one AF_PACKET socket per queue and joins them in one
 * PACKET_FANOUT group (doc/guides/nics/af_packet.rst of 22.11: "The
 * PACKET_FANOUT_HASH behavior of AF_PACKET is used for frame reception";
 * drivers/net/af_packet/rte_eth_af_packet.c sets PACKET_FANOUT_HASH with
 * the DEFRAG and ROLLOVER flags). The kernel then picks the socket, so the
 * RX queue, by the skb's flow hash (man 7 packet, PACKET_FANOUT_HASH;
 * net/packet/af_packet.c fanout_demux_hash()), over the addresses and the
 * UDP ports: our QPs' UDP source ports differ (0xC000 | hash(QPN)), so
 * their frames spread as with a NIC's RSS, and a frame lands on a lane that
 * may not own its QP: the hand-off must carry it.
 *
 * Needs root (a veth pair); skipped otherwise. The test first moves to a
 * network namespace of its own (unshare(CLONE_NEWNET)): the veth lives
 * there, nothing of the host sees its frames, and it disappears with the
 * process even if the test crashes. It is also deleted explicitly at exit.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include <rte_roce.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#define NB_LANES		2
#define NB_PAIRS		8	/* QP pairs, spread over every (lane of a, lane of b) */
#define VETH_MTU		1500
#define VDEV_ARG_LEN		64
#define CMD_LEN			160
/* MAC of ethdev i as roce_test_port() gives it: the veth end carries the same. */
#define VETH_MAC_FMT		"02:00:00:00:00:%02x"

static char veth[2][IFNAMSIZ];
static bool veth_made;

static const struct rte_roce_dev_conf inline_conf = { .nb_lanes = NB_LANES };

/* system() of a formatted command line. */
static int __rte_format_printf(1, 2)
run(const char *fmt, ...)
{
	char cmd[CMD_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static void
veth_delete(void)
{
	/* Deleting one end removes the pair. */
	if (veth_made && run("ip link del %s 2>/dev/null", veth[0]) == 0)
		veth_made = false;
}

/* A veth pair of unique names, up, MTU 1500, no kernel IPv6 chatter on it. */
static int
veth_create(void)
{
	int i;

	for (i = 0; i < 2; i++)
		snprintf(veth[i], sizeof(veth[i]), "rfo%d%c", (int)getpid(), 'a' + i);
	if (run("ip link add %s address " VETH_MAC_FMT " type veth peer name %s address "
		VETH_MAC_FMT, veth[0], 1, veth[1], 2) != 0)
		return -1;
	veth_made = true;
	atexit(veth_delete);
	for (i = 0; i < 2; i++) {
		/*
		 * No router solicitation or MLD report: every frame on the wire
		 * is ours. Written to /proc (a minimal system has no sysctl(8));
		 * a kernel without IPv6 has no such file and sends none.
		 */
		if (access("/proc/sys/net/ipv6", F_OK) == 0 &&
		    run("echo 1 > /proc/sys/net/ipv6/conf/%s/disable_ipv6", veth[i]) != 0) {
			printf("# cannot disable IPv6 on %s: the kernel's frames would be counted\n",
			       veth[i]);
			return -1;
		}
		if (run("ip link set %s mtu %u up", veth[i], VETH_MTU) != 0)
			return -1;
	}
	return 0;
}

/*
 * Per queue: what the port and the PMD saw. Every frame received is in
 * exactly one queue's counters, and the queues sum to the port's.
 * Returns how many queues received RoCE frames, or -1.
 */
static int
queues_report(const char *name, struct rte_roce_port *port, uint16_t eth)
{
	struct rte_roce_port_stats q[NB_LANES], all;
	struct rte_roce_port_info info;
	struct rte_eth_stats es;
	uint64_t rx = 0, roce = 0;
	int used = 0;
	uint16_t i;

	ROCE_TEST_ASSERT_EQ(rte_roce_port_stats_get(port, &all), 0, "port stats");
	ROCE_TEST_ASSERT_EQ(rte_eth_stats_get(eth, &es), 0, "ethdev stats");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_info_get(port, &info), 0, "port info");
	/* af_packet offers no RSS offload: the kernel's fanout spreads, not a configured RSS. */
	ROCE_TEST_ASSERT(info.nb_queues == NB_LANES && !info.rss, "%s: %u queues, rss %d", name,
			 info.nb_queues, info.rss);
	for (i = 0; i < NB_LANES; i++) {
		ROCE_TEST_ASSERT_EQ(rte_roce_port_queue_stats_get(port, i, &q[i]), 0,
				    "queue stats");
		printf("# %s queue %u: rx %" PRIu64 " (RoCE %" PRIu64 ", slow hand-offs %" PRIu64
		       "), tx %" PRIu64 "; PMD q_ipackets %" PRIu64 ", q_opackets %" PRIu64 "\n",
		       name, i, q[i].rx_packets, q[i].rx_roce_packets, q[i].slow_handoffs,
		       q[i].tx_packets, es.q_ipackets[i], es.q_opackets[i]);
		ROCE_TEST_ASSERT_EQ(q[i].rx_packets, es.q_ipackets[i],
				    "%s queue %u: port and PMD disagree", name, i);
		ROCE_TEST_ASSERT_EQ(q[i].slow_handoff_drops + q[i].tx_handoff_drops, 0,
				    "%s queue %u: slow-path hand-off drops", name, i);
		rx += q[i].rx_packets;
		roce += q[i].rx_roce_packets;
		if (q[i].rx_roce_packets > 0)
			used++;
	}
	ROCE_TEST_ASSERT_EQ(rx, all.rx_packets, "%s: queues sum to the port", name);
	ROCE_TEST_ASSERT_EQ(roce, all.rx_roce_packets, "%s: RoCE of the queues", name);
	ROCE_TEST_ASSERT_EQ(all.drops[RTE_ROCE_PORT_DROP_ROCE], 0, "%s: RoCE frames dropped", name);
	ROCE_TEST_ASSERT_EQ(es.ierrors + es.oerrors + es.rx_nombuf, 0, "%s: PMD errors", name);
	return used;
}

/*
 * Both devices inline with two lanes on two-queue af_packet ports, eight
 * RC pairs, the table on each: data and completions checked by
 * roce_test_transfer(); then the wire lost nothing, the kernel spread RX
 * over the queues and the lanes handed frames to each other, dropping none.
 */
static int
test_fanout_lanes(void)
{
	struct roce_test_conf c = roce_test_default_conf;
	struct rte_roce_port_stats ps[2];
	struct roce_test_pair pair = { .nb_queues = NB_LANES };
	struct roce_test_env e;
	uint64_t out[2], in[2], handed = 0, end;
	unsigned int p, seed = 1;
	int s, used[2] = { 0, 0 }, ret;

	ROCE_TEST_ASSERT_EQ(rte_eth_dev_get_port_by_name("net_af_packet0", &pair.a), 0, "port a");
	ROCE_TEST_ASSERT_EQ(rte_eth_dev_get_port_by_name("net_af_packet1", &pair.b), 0, "port b");
	ROCE_TEST_ASSERT(pair.a == 0 && pair.b == 1,
			 "ethdevs %u and %u: the veth MACs assume 0 and 1", pair.a, pair.b);
	c.dev_conf[0] = &inline_conf;
	c.dev_conf[1] = &inline_conf;
	c.pair = &pair;
	ret = roce_test_env_open(&e, &c, NB_PAIRS);
	for (p = 0; ret == 0 && p < NB_PAIRS; p++) {
		printf("# pair %u: a QPN %u lane %u, b QPN %u lane %u\n", p, e.qp[0][p]->qp_num,
		       p % NB_LANES, e.qp[1][p]->qp_num, (p / NB_LANES) % NB_LANES);
		if (roce_test_lane_table_run(&e, p, &seed) != 0)
			ret = -1;
	}
	/* A while of polling: nothing is in flight when the counters are read. */
	end = roce_test_ms() + ROCE_TEST_QUIET_MS;
	while (ret == 0 && roce_test_ms() < end)
		roce_test_pump_env(&e);
	for (s = 0; ret == 0 && s < 2; s++) {
		out[s] = roce_test_xstat(e.s[s].ctx, "handoffs_out");
		in[s] = roce_test_xstat(e.s[s].ctx, "handoffs_in");
		printf("# side %c: handoffs_out %" PRIu64 ", handoffs_in %" PRIu64 "\n", 'a' + s,
		       out[s], in[s]);
		ROCE_TEST_ASSERT_EQ(roce_test_xstat(e.s[s].ctx, "handoff_drops"), 0,
				    "side %d drops", s);
		ROCE_TEST_ASSERT_EQ(in[s], out[s], "side %d: handed over vs taken", s);
		ROCE_TEST_ASSERT_EQ(roce_test_xstat(e.s[s].ctx, "rx_drop_no_qp"), 0,
				    "side %d no QP", s);
		ROCE_TEST_ASSERT_EQ(rte_roce_port_stats_get(e.s[s].port, &ps[s]), 0, "stats");
		used[s] = queues_report(s == 0 ? "a" : "b", e.s[s].port, s == 0 ? pair.a : pair.b);
		if (used[s] < 0)
			ret = -1;
		handed += out[s];
	}
	if (ret == 0) {
		/* The veth carries only our frames (no kernel address, IPv6 off): none lost. */
		ROCE_TEST_ASSERT_EQ(ps[0].tx_packets, ps[1].rx_packets, "a sent, b received");
		ROCE_TEST_ASSERT_EQ(ps[1].tx_packets, ps[0].rx_packets, "b sent, a received");
		/*
		 * Sixteen flows (eight source ports each way) through a
		 * two-way hash: all on one queue of both ports has a
		 * chance of about 2^-14; the counts above say what the hash did.
		 */
		ROCE_TEST_ASSERT(used[0] == NB_LANES || used[1] == NB_LANES,
				 "the fanout hash put every RoCE frame on one queue of each port");
		/*
		 * A port whose both queues received RoCE frames of QPs of
		 * both lanes hands some over; the hash could still have
		 * matched each QP's flow to its own lane (2^-8 per side).
		 */
		ROCE_TEST_ASSERT(handed > 0,
				 "no frame changed lanes: the hash matched every QP's lane");
	}
	if (roce_test_env_close(&e) != 0)
		ret = -1;
	return ret;
}

static const struct roce_test_case cases[] = {
	{ "fanout_lanes", test_fanout_lanes },
};

int
main(int argc, char **argv)
{
	static char vdev[2][VDEV_ARG_LEN];
	const char *eal_args[] = { "--vdev", vdev[0], "--vdev", vdev[1], NULL };
	int i;

	RTE_SET_USED(argc);
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root for a veth pair\n");
		return 0;
	}
	if (unshare(CLONE_NEWNET) != 0) {
		printf("1..0 # SKIP no network namespace of our own: %s\n", strerror(errno));
		return 0;
	}
	if (veth_create() != 0) {
		veth_delete();
		printf("1..0 # SKIP cannot create a veth pair\n");
		return 0;
	}
	for (i = 0; i < 2; i++)
		snprintf(vdev[i], sizeof(vdev[i]), "net_af_packet%d,iface=%s,qpairs=%d", i, veth[i],
			 NB_LANES);
	if (roce_test_eal_init(argv[0], eal_args) != 0 || roce_test_mbuf_pool() == NULL)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
