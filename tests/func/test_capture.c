/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The built-in capture (rte_roce_port_capture_start/stop) over net_ring:
 * the file holds every frame the port's ethdev received and sent, ARP
 * included, byte for byte what rte_roce_pkt_parse() accepts with a good
 * ICRC; the misuses are refused; destroying a capturing port closes it.
 */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_mempool.h>
#include <rte_roce.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"

#define CAP_SENDS	3
#define CAP_WAIT_MS	2000
#define CAP_MTU		4096
#define CAP_QPN		0x11
#define CAP_PSN		100
#define CAP_PAYLOAD	64

static struct roce_test_pair pair;
static unsigned int baseline;
static const char *const addrs_a[] = { "10.1.0.1/24", NULL };
static const char *const addrs_b[] = { "10.1.0.2/24", NULL };

static int
test_capture_frames(void)
{
	char path[] = "/tmp/roce_capture_XXXXXX";
	struct rte_roce_port *a = NULL, *b = NULL;
	struct rte_roce_port_stats st;
	unsigned int frames, roce, i;
	union rte_roce_gid dst;
	struct rte_ether_addr mac;
	struct rte_mbuf *m;
	int fd, ret = 0;
	uint64_t end;

	fd = mkstemp(path);
	ROCE_TEST_ASSERT(fd >= 0, "mkstemp");
	close(fd);
	a = roce_test_port(pair.a, NULL, addrs_a);
	b = roce_test_port(pair.b, NULL, addrs_b);
	if (a == NULL || b == NULL)
		ret = -1;
	if (ret == 0)
		ret = rte_roce_port_capture_start(a, path);
	if (ret == 0 && rte_roce_port_capture_start(a, path) != -EBUSY) {
		printf("#   second start not refused\n");
		ret = -1;
	}
	if (ret == 0)
		ret = roce_test_resolve(a, b, "10.1.0.2", &mac, CAP_WAIT_MS);
	rte_roce_gid_parse("10.1.0.2", &dst);
	for (i = 0; ret == 0 && i < CAP_SENDS; i++) {
		m = roce_test_send_only("10.1.0.1", "10.1.0.2", CAP_QPN, CAP_PSN + i, CAP_PAYLOAD);
		ret = m != NULL ? rte_roce_port_send(a, m, &dst) : -1;
	}
	end = roce_test_ms() + CAP_WAIT_MS;
	while (ret == 0 && roce_test_ms() < end &&
	       rte_ring_count(pair.ring[0]) + rte_ring_count(pair.ring[1]) != 0)
		roce_test_pump(a, b);
	if (ret != 0)
		printf("#   capture or traffic failed: %d\n", ret);
	if (ret == 0)
		ret = rte_roce_port_stats_get(a, &st);
	if (ret == 0)
		ret = rte_roce_port_capture_stop(a);
	if (ret == 0 && rte_roce_port_capture_stop(a) != -ENOENT) {
		printf("#   second stop not refused\n");
		ret = -1;
	}
	if (ret == 0) {
		ROCE_TEST_ASSERT_EQ(roce_test_read_capture(path, CAP_MTU, &frames, &roce), 0, "capture readable");
		ROCE_TEST_ASSERT_EQ(frames, st.rx_packets + st.tx_packets, "every frame in and out");
		ROCE_TEST_ASSERT_EQ(roce, CAP_SENDS, "RoCE frames with good ICRC");
		ROCE_TEST_ASSERT(st.arp_requests_out + st.arp_replies_in >= 2 && frames > roce,
				 "ARP not captured");
	}
	unlink(path);
	return roce_test_pair_release(&pair, &a, &b, baseline) | ret;
}

static int
test_capture_misuse(void)
{
	struct rte_roce_port *a = NULL, *b = NULL;
	char path[] = "/tmp/roce_capture_XXXXXX";
	int fd, ret = 0;

	ROCE_TEST_ASSERT_EQ(rte_roce_port_capture_start(NULL, "/tmp/x"), -EINVAL, "NULL port");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_capture_stop(NULL), -EINVAL, "stop NULL port");
	a = roce_test_port(pair.a, NULL, addrs_a);
	if (a == NULL)
		return -1;
	if (rte_roce_port_capture_start(a, NULL) != -EINVAL ||
	    rte_roce_port_capture_start(a, "/nonexistent/dir/x.pcap") != -ENOENT ||
	    rte_roce_port_capture_stop(a) != -ENOENT) {
		printf("#   misuse not refused\n");
		ret = -1;
	}
	/* Destroying a capturing port stops the capture and closes the file. */
	fd = mkstemp(path);
	if (ret == 0 && fd >= 0) {
		close(fd);
		ret = rte_roce_port_capture_start(a, path);
	}
	rte_roce_port_destroy(a);
	a = NULL;
	if (ret == 0 && fd >= 0) {
		unsigned int frames, roce;

		ROCE_TEST_ASSERT_EQ(roce_test_read_capture(path, CAP_MTU, &frames, &roce), 0, "file closed by destroy");
	}
	if (fd >= 0)
		unlink(path);
	return roce_test_pair_release(&pair, &a, &b, baseline) | ret;
}

static const struct roce_test_case cases[] = {
	{ "capture_frames", test_capture_frames },
	{ "capture_misuse", test_capture_misuse },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&pair, "cap") != 0)
		return 1;
	baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	return roce_test_run(cases, RTE_DIM(cases));
}
