/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * libFuzzer target: any byte string as a received Ethernet frame.
 *
 * The receive path must never crash, leak or read out of bounds, and its
 * two forms must agree: the flat parser and the mbuf parser (on a copy cut
 * in two segments) give the same verdict and fields, the flat and mbuf ICRC
 * checks the same answer, and an accepted frame rebuilds byte for byte
 * (up to its ICRC, and the ICRC too when it was right). A disagreement
 * aborts, which libFuzzer reports as a crash with the input saved.
 *
 * Then the same frame goes through a real port: it is enqueued to the RX
 * ring of a net_ring ethdev and rte_roce_port_poll() takes it through the
 * PMD, ARP, ND, ICMP and RoCEv2 classification, the parser and the ICRC
 * check. Whatever the frame, the port counts it exactly once (received
 * packets = RoCEv2 frames returned + frames answered or learnt + drops),
 * and every mbuf it allocates for replies comes back (checked every input).
 * A unicast frame is readdressed to the port's MAC and, when it is IPv4 or
 * IPv6, carries one of the port's addresses, so that inputs reach the deep
 * paths without the fuzzer having to guess them.
 *
 * Seeds: with ROCE_FUZZ_VECTORS (a folder of pcaps) and ROCE_FUZZ_SEED_DIR
 * set, LLVMFuzzerInitialize() writes into ROCE_FUZZ_SEED_DIR the first frame
 * of each opcode of each capture, plus its first non-RoCEv2 frame: a small
 * corpus, made at test time, never committed.
 */

#include <stddef.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_ring.h>

#include <rte_roce_icrc.h>
#include <rte_roce_pkt.h>
#include <rte_roce_port.h>

#include "roce_test_eal.h"
#include "roce_test_port.h"

#include "fuzz_seed.h"

/* The largest IB MTU. */
#define FUZZ_MTU 4096
/* Each of the two segments holds at most what a test mbuf holds. */
#define FUZZ_SEG_ROOM (ROCE_TEST_MBUF_DATA_SIZE - RTE_PKTMBUF_HEADROOM)
#define FUZZ_FRAME_MAX (2 * FUZZ_SEG_ROOM)
#define FUZZ_PORT_BURST 4

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rte_mempool *pool;
static struct roce_test_pair pair;
static struct rte_roce_port *port;
static struct rte_ether_addr port_mac;
static unsigned int pool_baseline;

/* The port's addresses: those the kernel rxe captures were sent to. */
static const char *const fuzz_port_addrs[] = {
	"198.18.0.11/24", "fe80::5054:ff:fe18:11/64", NULL,
};

/* The first frame of each opcode of a capture, and its first non-RoCEv2 frame. */
static int
pick_seed(const uint8_t *frame, uint32_t len, struct fuzz_seed_seen *seen, uint8_t *prefix)
{
	struct rte_roce_pkt pkt;
	bool *first;

	RTE_SET_USED(prefix);
	if (rte_roce_pkt_parse(frame, len, FUZZ_MTU, &pkt) == RTE_ROCE_DROP_NONE)
		first = &seen->opcode[pkt.opcode];
	else
		first = &seen->other;
	if (*first)
		return -1;
	*first = true;
	return 0;
}

/* At exit, say how deep the inputs went: what the port made of them. */
static void
print_port_stats(void)
{
	struct rte_roce_port_stats st;
	unsigned int i;

	if (rte_roce_port_stats_get(port, &st) != 0)
		return;
	fprintf(stderr, "fuzz_rx: port rx %" PRIu64 ": roce %" PRIu64 ", arp %" PRIu64
		", nd %" PRIu64 ", echo %" PRIu64 "\n", st.rx_packets, st.rx_roce_packets,
		st.arp_requests_in + st.arp_replies_in, st.nd_solicits_in + st.nd_adverts_in,
		st.icmp_echo_in);
	for (i = 0; i < RTE_DIM(st.drops); i++)
		if (st.drops[i] != 0)
			fprintf(stderr, "fuzz_rx:   drop %s %" PRIu64 "\n",
				rte_roce_port_drop_name(i), st.drops[i]);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *vectors = getenv("ROCE_FUZZ_VECTORS");
	const char *seed_dir = getenv("ROCE_FUZZ_SEED_DIR");
	struct rte_roce_port_info info;

	RTE_SET_USED(argc);
	if (roce_test_eal_init((*argv)[0], NULL) < 0)
		abort();
	pool = roce_test_mbuf_pool();
	if (pool == NULL || roce_test_pair_create(&pair, "fuzz") != 0)
		abort();
	port = roce_test_port(pair.a, NULL, fuzz_port_addrs);
	if (port == NULL || rte_roce_port_info_get(port, &info) != 0)
		abort();
	port_mac = info.mac;
	pool_baseline = rte_mempool_in_use_count(pool);
	atexit(print_port_stats);
	if (vectors != NULL && seed_dir != NULL)
		fuzz_seed_corpus("fuzz_rx", vectors, seed_dir, pick_seed);
	return 0;
}

/* The frame in two segments, cut where its last byte says; NULL if no mbuf. */
static struct rte_mbuf *
split_mbuf(const uint8_t *data, uint32_t size)
{
	uint32_t cut = size == 0 ? 0 : (uint32_t)((uint64_t)size * data[size - 1] / UINT8_MAX);
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_mbuf *seg = rte_pktmbuf_alloc(pool);
	char *a, *b;

	cut = RTE_MIN(cut, FUZZ_SEG_ROOM);
	cut = RTE_MAX(cut, size > FUZZ_SEG_ROOM ? size - FUZZ_SEG_ROOM : 0);
	a = m == NULL ? NULL : rte_pktmbuf_append(m, cut);
	b = seg == NULL ? NULL : rte_pktmbuf_append(seg, size - cut);
	if (a == NULL || b == NULL || rte_pktmbuf_chain(m, seg) != 0) {
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(seg);
		return NULL;
	}
	memcpy(a, data, cut);
	memcpy(b, data + cut, size - cut);
	return m;
}

/*
 * An accepted frame rebuilds to the same bytes, up to the end of its
 * payload. The builder writes zero pad bytes, and the parser accepts any
 * (IBA only says they are sent as 0; rxe does not look at them): the pad,
 * and so the ICRC, can only match when the pad was zero.
 */
static void
check_rebuild(const uint8_t *data, const struct rte_roce_pkt *pkt, int icrc)
{
	static const uint8_t zero_pad[RTE_ROCE_PAD_MAX];
	static uint8_t buf[FUZZ_FRAME_MAX];
	uint32_t payload_end = pkt->payload_off + pkt->payload_len;
	int len;

	len = rte_roce_pkt_build(pkt, data + pkt->payload_off, buf, sizeof(buf));
	FUZZ_CHECK(len == (int)(pkt->icrc_off + RTE_ROCE_ICRC_LEN));
	FUZZ_CHECK(memcmp(buf, data, payload_end) == 0);
	if (icrc == 0 && memcmp(data + payload_end, zero_pad, pkt->pad) == 0)
		FUZZ_CHECK(memcmp(buf + payload_end, data + payload_end,
				  pkt->pad + RTE_ROCE_ICRC_LEN) == 0);
}

/* Frames the port took in: answered, learnt from, returned, or dropped. */
static uint64_t
port_frames_accounted(const struct rte_roce_port_stats *st)
{
	uint64_t n = st->arp_requests_in + st->arp_replies_in + st->nd_solicits_in +
		     st->nd_adverts_in + st->icmp_echo_in + st->icmp_echo_replies_in +
		     st->rx_roce_packets;
	unsigned int i;

	for (i = 0; i < RTE_DIM(st->drops); i++)
		n += st->drops[i];
	return n;
}

/*
 * Give the port one received frame (it takes m). A unicast frame is sent to
 * the port's MAC, and an IPv4 frame to the port's IPv4 address, so that
 * most inputs go past the address filters.
 */
static void
readdress(struct rte_mbuf *m)
{
	static const uint8_t port_ipv4[] = { 198, 18, 0, 11 };
	struct rte_ether_hdr eth;
	const uint32_t ipv4_dst_off = RTE_ETHER_HDR_LEN + offsetof(struct rte_ipv4_hdr, dst_addr);

	if (rte_pktmbuf_read(m, 0, sizeof(eth), &eth) == NULL ||
	    rte_is_multicast_ether_addr(&eth.dst_addr))
		return;
	eth.dst_addr = port_mac;
	rte_memcpy(rte_pktmbuf_mtod(m, void *), &eth, RTE_MIN(sizeof(eth), m->data_len));
	if (eth.ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
	    m->data_len >= ipv4_dst_off + sizeof(port_ipv4))
		memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, ipv4_dst_off), port_ipv4,
		       sizeof(port_ipv4));
}

static void
port_rx(struct rte_mbuf *m)
{
	struct rte_mbuf *pkts[FUZZ_PORT_BURST];
	struct rte_roce_port_stats before, after;
	uint16_t n;

	readdress(m);
	FUZZ_CHECK(rte_roce_port_stats_get(port, &before) == 0);
	FUZZ_CHECK(rte_ring_enqueue(pair.ring[0], m) == 0);
	n = rte_roce_port_poll(port, pkts, RTE_DIM(pkts));
	FUZZ_CHECK(n <= 1);
	rte_pktmbuf_free_bulk(pkts, n);
	FUZZ_CHECK(rte_roce_port_stats_get(port, &after) == 0);
	FUZZ_CHECK(after.rx_packets == before.rx_packets + 1);
	FUZZ_CHECK(port_frames_accounted(&after) == port_frames_accounted(&before) + 1);
	/* Replies (ARP, NA, echo) leave through the TX ring: free them. */
	roce_test_pair_drain(&pair);
	FUZZ_CHECK(rte_mempool_in_use_count(pool) == pool_baseline);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_roce_pkt pkt, pkt_m;
	enum rte_roce_drop_reason r, r_m;
	struct rte_mbuf *m;
	int icrc = 0, icrc_m;

	if (size > FUZZ_FRAME_MAX)
		return -1;	/* not added to the corpus */
	r = rte_roce_pkt_parse(data, (uint32_t)size, FUZZ_MTU, &pkt);
	FUZZ_CHECK(r < RTE_ROCE_DROP_REASON_MAX && r != RTE_ROCE_DROP_ICRC);
	if (r == RTE_ROCE_DROP_NONE) {
		FUZZ_CHECK(pkt.icrc_off + RTE_ROCE_ICRC_LEN <= size);
		icrc = rte_roce_icrc_check(data + pkt.l3_off, pkt.icrc_off - pkt.l3_off);
		check_rebuild(data, &pkt, icrc);
	}

	m = split_mbuf(data, (uint32_t)size);
	FUZZ_CHECK(m != NULL);
	r_m = rte_roce_pkt_parse_mbuf(m, FUZZ_MTU, &pkt_m);
	FUZZ_CHECK(r_m == r);
	if (r == RTE_ROCE_DROP_NONE) {
		FUZZ_CHECK(memcmp(&pkt, &pkt_m, sizeof(pkt)) == 0);
		icrc_m = rte_roce_icrc_check_mbuf(m, pkt_m.l3_off, pkt_m.icrc_off - pkt_m.l3_off);
		FUZZ_CHECK(icrc_m == icrc);
	}
	port_rx(m);
	return 0;
}
