/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * librte_roce_fault over a net_ring pair: port A sends numbered RoCEv2
 * frames (PSN = frame number) through rte_roce_port_send(), an injector on
 * B's RX queue (or A's TX queue) applies faults, and B's
 * rte_roce_port_poll() says what arrived, in which order and how often.
 */

#include <errno.h>
#include <math.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include <rte_roce.h>
#include <rte_roce_fault.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"

#define BURST 32
#define NB_FRAMES_MAX 4096	/* PSNs of one case: 0 .. NB_FRAMES_MAX - 1 */
#define QPN 0x11
#define OTHER_QPN 0x12
#define PAYLOAD_LEN 64
#define WRITE_VA 0x10000
#define WRITE_RKEY 0x1234
#define UDP_SPORT 0xc000
#define SEED 0x5eed
#define OTHER_SEED 0xfeed
#define RESOLVE_MS 500
#define IDLE_POLLS 4		/* empty polls in a row that end a receive */
#define SETTLE_MS 100		/* longest wait for held frames to come out */
#define FRAME_MAX 512
#define PARSE_MTU 4096
#define SIGMAS 5.0		/* statistical bounds: mean +- 5 standard deviations */

static struct roce_test_pair pair;
static unsigned int baseline;
static struct rte_roce_port *a, *b;
static union rte_roce_gid gid_a, gid_b;

static const char *const addrs_a[] = { "198.18.0.1/24", "2001:db8::1/64", NULL };
static const char *const addrs_b[] = { "198.18.0.2/24", "2001:db8::2/64", NULL };

/* What B received: how often each PSN, and the order of first arrivals. */
struct rx_log {
	uint16_t count[NB_FRAMES_MAX];
	uint32_t order[2 * NB_FRAMES_MAX];
	uint32_t nb;		/* frames received, copies included */
	uint8_t first[NB_FRAMES_MAX][FRAME_MAX];	/* bytes of the first copy */
	bool copies_equal;	/* every later copy equal to the first */
};

static struct rx_log rx_log;

/* Injectors attached by the running case, detached by the next setup if it failed. */
static struct rte_roce_fault *live[2];

static struct rte_roce_fault *
attach(uint16_t eth, enum rte_roce_fault_dir dir, const struct rte_roce_fault_conf *conf)
{
	struct rte_roce_fault *f = rte_roce_fault_attach(eth, 0, dir, conf);
	unsigned int i;

	for (i = 0; f != NULL && i < RTE_DIM(live); i++) {
		if (live[i] == NULL) {
			live[i] = f;
			break;
		}
	}
	return f;
}

static int
detach(struct rte_roce_fault *f)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(live); i++)
		if (live[i] == f)
			live[i] = NULL;
	return rte_roce_fault_detach(f);
}

static int
teardown(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(live); i++)
		detach(live[i]);
	return roce_test_pair_release(&pair, &a, &b, baseline);
}

/* Fresh ports, neighbours resolved both ways before any injector runs. */
static int
setup(void)
{
	struct rte_ether_addr mac;

	teardown();
	baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	a = roce_test_port(pair.a, NULL, addrs_a);
	b = roce_test_port(pair.b, NULL, addrs_b);
	ROCE_TEST_ASSERT(a != NULL && b != NULL, "ports");
	ROCE_TEST_ASSERT_EQ(roce_test_resolve(a, b, "198.18.0.2", &mac, RESOLVE_MS), 0, "A->B");
	ROCE_TEST_ASSERT_EQ(roce_test_resolve(b, a, "198.18.0.1", &mac, RESOLVE_MS), 0, "B->A");
	memset(&rx_log, 0, sizeof(rx_log));
	rx_log.copies_equal = true;
	return 0;
}

static struct rte_mbuf *
frame_build(uint8_t opcode, uint32_t qpn, uint32_t psn)
{
	uint8_t payload[PAYLOAD_LEN];
	struct rte_roce_pkt pkt;
	struct rte_mbuf *m;
	unsigned int i;

	rte_roce_pkt_init(&pkt, opcode);
	pkt.sgid = gid_a;
	pkt.dgid = gid_b;
	pkt.sport = UDP_SPORT;
	pkt.dqpn = qpn;
	pkt.psn = psn;
	pkt.ackreq = true;
	pkt.payload_len = PAYLOAD_LEN;
	pkt.reth.va = WRITE_VA;
	pkt.reth.rkey = WRITE_RKEY;
	pkt.reth.len = PAYLOAD_LEN;
	for (i = 0; i < PAYLOAD_LEN; i++)
		payload[i] = (uint8_t)(psn + i);
	m = rte_pktmbuf_alloc(roce_test_mbuf_pool());
	if (m != NULL && rte_roce_pkt_build_mbuf(&pkt, payload, m) < 0) {
		rte_pktmbuf_free(m);
		m = NULL;
	}
	return m;
}

/* Log what B's port returns until it has been idle IDLE_POLLS times. */
static void
receive(void)
{
	struct rte_mbuf *pkts[BURST];
	struct rte_roce_pkt pkt;
	unsigned int idle = 0;
	uint16_t n, i;

	while (idle < IDLE_POLLS) {
		n = rte_roce_port_poll(b, pkts, BURST);
		idle = n == 0 ? idle + 1 : 0;
		for (i = 0; i < n; i++) {
			uint8_t buf[FRAME_MAX];
			const void *bytes = NULL;
			uint32_t len = RTE_MIN(pkts[i]->pkt_len, (uint32_t)FRAME_MAX);

			if (rte_roce_pkt_parse_mbuf(pkts[i], PARSE_MTU, &pkt) == RTE_ROCE_DROP_NONE &&
			    pkt.psn < NB_FRAMES_MAX) {
				bytes = rte_pktmbuf_read(pkts[i], 0, len, buf);
				if (rx_log.count[pkt.psn] == 0)
					memcpy(rx_log.first[pkt.psn], bytes, len);
				else if (memcmp(rx_log.first[pkt.psn], bytes, len) != 0)
					rx_log.copies_equal = false;
				rx_log.count[pkt.psn]++;
				rx_log.order[rx_log.nb++ % RTE_DIM(rx_log.order)] = pkt.psn;
			}
		}
		rte_pktmbuf_free_bulk(pkts, n);
	}
}

/* Send frames psn first..first+nb-1 of the opcode, receiving every burst. */
static int
send_frames(uint8_t opcode, uint32_t qpn, uint32_t first, uint32_t nb)
{
	uint32_t psn;

	for (psn = first; psn < first + nb; psn++) {
		struct rte_mbuf *m = frame_build(opcode, qpn, psn);

		ROCE_TEST_ASSERT(m != NULL, "frame %u", psn);
		ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, m, &gid_b), 0, "send %u", psn);
		if ((psn + 1) % BURST == 0)
			receive();
	}
	receive();
	return 0;
}

/* Poll B (RX bursts run the callbacks, also empty ones) until nothing is held. */
static int
settle(struct rte_roce_fault *f)
{
	uint64_t end = roce_test_ms() + SETTLE_MS;
	struct rte_roce_fault_stats s;

	do {
		receive();
		ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(f, &s), 0, "stats");
	} while (s.held != 0 && roce_test_ms() < end);
	ROCE_TEST_ASSERT_EQ(s.held, 0, "frames still held");
	return 0;
}

static uint32_t
nb_received_once(uint32_t nb)
{
	uint32_t psn, once = 0;

	for (psn = 0; psn < nb; psn++)
		once += rx_log.count[psn] == 1;
	return once;
}

/* First arrivals out of PSN order. */
static uint32_t
nb_inversions(void)
{
	uint32_t i, inv = 0;

	for (i = 1; i < rx_log.nb && i < RTE_DIM(rx_log.order); i++)
		inv += rx_log.order[i] < rx_log.order[i - 1];
	return inv;
}

static struct rte_roce_port_stats
stats_b(void)
{
	struct rte_roce_port_stats s;

	rte_roce_port_stats_get(b, &s);
	return s;
}

/* ---- Random faults ---- */

/* Drop with probability p on N frames; returns the drop pattern in rx_log.count. */
static int
drop_run(uint64_t seed, double p, uint32_t nb, struct rte_roce_fault_stats *s)
{
	struct rte_roce_fault_conf conf = { .seed = seed, .drop = p, .roce_only = true };
	struct rte_roce_fault *f;

	ROCE_TEST_ASSERT(setup() == 0, "setup");
	f = attach(pair.b, RTE_ROCE_FAULT_RX, &conf);
	ROCE_TEST_ASSERT(f != NULL, "attach: %s", rte_strerror(rte_errno));
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_SEND_ONLY, QPN, 0, nb) == 0, "send");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(f, s), 0, "stats");
	ROCE_TEST_ASSERT_EQ(detach(f), 0, "detach");
	return 0;
}

static int
test_drop_probability(void)
{
	static uint16_t pattern[NB_FRAMES_MAX];
	const uint32_t nb = 4000;
	const double p = 0.2;
	double sd = sqrt(nb * p * (1 - p));
	struct rte_roce_fault_stats s;
	uint32_t got;

	ROCE_TEST_ASSERT(drop_run(SEED, p, nb, &s) == 0, "first run");
	got = nb_received_once(nb);
	ROCE_TEST_ASSERT_EQ(s.seen, nb, "every frame seen");
	ROCE_TEST_ASSERT_EQ(s.roce, nb, "every frame RoCE");
	ROCE_TEST_ASSERT_EQ(s.dropped + got, nb, "received = sent - dropped");
	ROCE_TEST_ASSERT_EQ(rx_log.nb, got, "no frame twice");
	ROCE_TEST_ASSERT(fabs((double)s.dropped - nb * p) < SIGMAS * sd,
			 "%" PRIu64 " dropped of %u at p=%.2f", s.dropped, nb, p);
	ROCE_TEST_ASSERT_EQ(nb_inversions(), 0, "order kept");
	memcpy(pattern, rx_log.count, sizeof(pattern));

	/* Same seed, same frames: the same frames go. */
	ROCE_TEST_ASSERT(drop_run(SEED, p, nb, &s) == 0, "second run");
	ROCE_TEST_ASSERT(memcmp(pattern, rx_log.count, sizeof(pattern)) == 0, "same drops");

	/* Another seed: other frames go. */
	ROCE_TEST_ASSERT(drop_run(OTHER_SEED, p, nb, &s) == 0, "third run");
	ROCE_TEST_ASSERT(memcmp(pattern, rx_log.count, sizeof(pattern)) != 0, "other drops");
	return teardown();
}

static int
test_dup_exact(void)
{
	struct rte_roce_fault_conf conf = { .seed = SEED, .dup = 1.0, .roce_only = true };
	const uint32_t nb = 200;
	struct rte_roce_fault_stats s;
	struct rte_roce_fault *f;

	ROCE_TEST_ASSERT(setup() == 0, "setup");
	f = attach(pair.b, RTE_ROCE_FAULT_RX, &conf);
	ROCE_TEST_ASSERT(f != NULL, "attach: %s", rte_strerror(rte_errno));
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_SEND_ONLY, QPN, 0, nb) == 0, "send");
	ROCE_TEST_ASSERT(settle(f) == 0, "settle");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(f, &s), 0, "stats");
	ROCE_TEST_ASSERT_EQ(s.duplicated, nb, "one copy each");
	ROCE_TEST_ASSERT_EQ(s.released, nb, "copies delivered");
	ROCE_TEST_ASSERT_EQ(rx_log.nb, 2 * nb, "each frame twice");
	ROCE_TEST_ASSERT_EQ(nb_received_once(nb), 0, "none once");
	ROCE_TEST_ASSERT(rx_log.copies_equal, "copies are byte for byte the original");
	ROCE_TEST_ASSERT_EQ(detach(f), 0, "detach");
	return teardown();
}

/* All frames corrupted in region: B's port must drop each one, for ICRC if the payload. */
static int
corrupt_run(enum rte_roce_fault_region region, uint16_t eth, enum rte_roce_fault_dir dir)
{
	struct rte_roce_fault_conf conf = {
		.seed = SEED, .corrupt = 1.0, .corrupt_region = region, .roce_only = true,
	};
	const uint32_t nb = 300;
	struct rte_roce_port_stats ps;
	struct rte_roce_fault_stats s;
	struct rte_roce_fault *f;

	ROCE_TEST_ASSERT(setup() == 0, "setup");
	f = attach(eth, dir, &conf);
	ROCE_TEST_ASSERT(f != NULL, "attach: %s", rte_strerror(rte_errno));
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_SEND_ONLY, QPN, 0, nb) == 0, "send");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(f, &s), 0, "stats");
	ps = stats_b();
	ROCE_TEST_ASSERT_EQ(s.corrupted, nb, "all corrupted");
	ROCE_TEST_ASSERT_EQ(rx_log.nb, 0, "none accepted");
	ROCE_TEST_ASSERT_EQ(ps.drops[RTE_ROCE_PORT_DROP_ROCE], nb, "all dropped as bad RoCE");
	if (region == RTE_ROCE_FAULT_REGION_PAYLOAD)
		ROCE_TEST_ASSERT_EQ(ps.roce_drops[RTE_ROCE_DROP_ICRC], nb, "all for the ICRC");
	else
		ROCE_TEST_ASSERT(ps.roce_drops[RTE_ROCE_DROP_ICRC] > nb / 2,
				 "mostly for the ICRC: %" PRIu64, ps.roce_drops[RTE_ROCE_DROP_ICRC]);
	ROCE_TEST_ASSERT_EQ(detach(f), 0, "detach");
	return teardown();
}

static int
test_corrupt_payload(void)
{
	return corrupt_run(RTE_ROCE_FAULT_REGION_PAYLOAD, pair.b, RTE_ROCE_FAULT_RX);
}

static int
test_corrupt_any(void)
{
	return corrupt_run(RTE_ROCE_FAULT_REGION_ROCE, pair.b, RTE_ROCE_FAULT_RX);
}

static int
test_corrupt_tx(void)
{
	return corrupt_run(RTE_ROCE_FAULT_REGION_PAYLOAD, pair.a, RTE_ROCE_FAULT_TX);
}

/*
 * A frame the sender still holds (as a requester keeps one to retransmit;
 * net_ring hands the very mbuf to the receiver) is copied, not changed.
 */
static int
test_corrupt_shared(void)
{
	struct rte_roce_fault_conf conf = {
		.seed = SEED, .corrupt = 1.0, .corrupt_region = RTE_ROCE_FAULT_REGION_ROCE,
		.roce_only = true,
	};
	struct rte_roce_fault *f;
	struct rte_roce_pkt pkt;
	struct rte_mbuf *m;
	uint8_t before[FRAME_MAX];

	ROCE_TEST_ASSERT(setup() == 0, "setup");
	f = attach(pair.b, RTE_ROCE_FAULT_RX, &conf);
	ROCE_TEST_ASSERT(f != NULL, "attach: %s", rte_strerror(rte_errno));
	m = frame_build(RTE_ROCE_OP_RC_SEND_ONLY, QPN, 0);
	ROCE_TEST_ASSERT(m != NULL, "frame");
	rte_mbuf_refcnt_update(m, 1);
	ROCE_TEST_ASSERT_EQ(rte_roce_port_send(a, m, &gid_b), 0, "send");
	memcpy(before, rte_pktmbuf_mtod(m, void *), m->pkt_len);
	receive();
	ROCE_TEST_ASSERT_EQ(stats_b().drops[RTE_ROCE_PORT_DROP_ROCE], 1, "the copy was bad");
	ROCE_TEST_ASSERT_EQ(rte_mbuf_refcnt_read(m), 1, "receiver's reference gone");
	ROCE_TEST_ASSERT(memcmp(before, rte_pktmbuf_mtod(m, void *), m->pkt_len) == 0,
			 "sender's frame untouched");
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_parse_mbuf(m, PARSE_MTU, &pkt), RTE_ROCE_DROP_NONE, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_icrc_check_mbuf(m, pkt.l3_off, pkt.icrc_off - pkt.l3_off), 0,
			    "sender's frame still good");
	rte_pktmbuf_free(m);
	ROCE_TEST_ASSERT_EQ(detach(f), 0, "detach");
	return teardown();
}

/* Held frames (reorder, delay) come out; nothing is lost or doubled. */
static int
hold_run(const struct rte_roce_fault_conf *conf, bool flush, uint64_t *held)
{
	const uint32_t nb = 1000;
	struct rte_roce_fault_stats s;
	struct rte_roce_fault *f;

	ROCE_TEST_ASSERT(setup() == 0, "setup");
	f = attach(pair.b, RTE_ROCE_FAULT_RX, conf);
	ROCE_TEST_ASSERT(f != NULL, "attach: %s", rte_strerror(rte_errno));
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_SEND_ONLY, QPN, 0, nb) == 0, "send");
	if (flush) {
		/* Only frames among the last reorder_depth can still wait for followers. */
		ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(f, &s), 0, "stats");
		ROCE_TEST_ASSERT(s.held <= conf->reorder_depth, "%" PRIu64 " held", s.held);
		ROCE_TEST_ASSERT_EQ(rte_roce_fault_flush(f), 0, "flush");
	}
	ROCE_TEST_ASSERT(settle(f) == 0, "settle");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(f, &s), 0, "stats");
	ROCE_TEST_ASSERT_EQ(nb_received_once(nb), nb, "every frame once");
	ROCE_TEST_ASSERT_EQ(rx_log.nb, nb, "no extra frame");
	ROCE_TEST_ASSERT(nb_inversions() > 0, "order changed");
	ROCE_TEST_ASSERT_EQ(s.released, s.delayed + s.reordered, "all held released");
	*held = s.delayed + s.reordered;
	ROCE_TEST_ASSERT_EQ(detach(f), 0, "detach");
	return teardown();
}

static int
test_reorder(void)
{
	struct rte_roce_fault_conf conf = {
		.seed = SEED, .reorder = 0.1, .reorder_depth = 3, .roce_only = true,
	};
	uint64_t held;

	/* No time bound: the last ones leave only on the flush. */
	ROCE_TEST_ASSERT(hold_run(&conf, true, &held) == 0, "run");
	ROCE_TEST_ASSERT(held > 50 && held < 150, "%" PRIu64 " reordered of 1000", held);
	return 0;
}

static int
test_delay(void)
{
	struct rte_roce_fault_conf conf = {
		.seed = SEED, .delay = 0.1, .delay_us = 2000, .roce_only = true,
	};
	uint64_t held;

	/* No flush: empty RX bursts release the frames once due. */
	ROCE_TEST_ASSERT(hold_run(&conf, false, &held) == 0, "run");
	ROCE_TEST_ASSERT(held > 50 && held < 150, "%" PRIu64 " delayed of 1000", held);
	return 0;
}

/* Every fault at once: each frame is dropped, corrupted, or arrives (twice if copied). */
static int
test_mix(void)
{
	struct rte_roce_fault_conf conf = {
		.seed = SEED, .drop = 0.05, .dup = 0.05, .corrupt = 0.05, .delay = 0.05,
		.reorder = 0.05, .delay_us = 500, .reorder_depth = 2, .reorder_max_us = 1000,
		.corrupt_region = RTE_ROCE_FAULT_REGION_PAYLOAD, .roce_only = true,
	};
	const uint32_t nb = 2000;
	struct rte_roce_fault_stats s;
	struct rte_roce_fault *f;
	uint32_t psn, lost = 0, twice = 0;

	ROCE_TEST_ASSERT(setup() == 0, "setup");
	f = attach(pair.b, RTE_ROCE_FAULT_RX, &conf);
	ROCE_TEST_ASSERT(f != NULL, "attach: %s", rte_strerror(rte_errno));
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_SEND_ONLY, QPN, 0, nb) == 0, "send");
	ROCE_TEST_ASSERT(settle(f) == 0, "settle");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(f, &s), 0, "stats");
	for (psn = 0; psn < nb; psn++) {
		lost += rx_log.count[psn] == 0;
		twice += rx_log.count[psn] == 2;
		ROCE_TEST_ASSERT(rx_log.count[psn] <= 2, "psn %u %u times", psn, rx_log.count[psn]);
	}
	ROCE_TEST_ASSERT_EQ(lost, s.dropped + s.corrupted, "lost = dropped + corrupted");
	ROCE_TEST_ASSERT_EQ(twice, s.duplicated, "twice = duplicated");
	ROCE_TEST_ASSERT_EQ(stats_b().roce_drops[RTE_ROCE_DROP_ICRC], s.corrupted, "ICRC drops");
	ROCE_TEST_ASSERT_EQ(s.released, s.duplicated + s.delayed + s.reordered, "released");
	ROCE_TEST_ASSERT(s.dropped > 0 && s.duplicated > 0 && s.corrupted > 0 && s.delayed > 0 &&
			 s.reordered > 0, "each fault happened");
	ROCE_TEST_ASSERT_EQ(detach(f), 0, "detach");
	return teardown();
}

/* ---- Rules ---- */

static int
test_rule_drop_third_send(void)
{
	struct rte_roce_fault_conf conf = { .seed = SEED, .roce_only = true };
	struct rte_roce_fault_rule rule = {
		.dir = RTE_ROCE_FAULT_RX, .action = RTE_ROCE_FAULT_DROP,
		.opcode = RTE_ROCE_OP_RC_SEND_ONLY, .nth = 3, .count = 1,
	};
	struct rte_roce_fault *f;
	uint32_t psn;

	ROCE_TEST_ASSERT(setup() == 0, "setup");
	f = attach(pair.b, RTE_ROCE_FAULT_RX, &conf);
	ROCE_TEST_ASSERT(f != NULL, "attach: %s", rte_strerror(rte_errno));
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &rule), 0, "rule");
	/* WRITE_ONLY 0..1, SEND_ONLY 2..3, WRITE_ONLY 4, SEND_ONLY 5..9: the 3rd SEND is PSN 5. */
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_RDMA_WRITE_ONLY, QPN, 0, 2) == 0, "W");
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_SEND_ONLY, QPN, 2, 2) == 0, "S");
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_RDMA_WRITE_ONLY, QPN, 4, 1) == 0, "W");
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_SEND_ONLY, QPN, 5, 5) == 0, "S");
	for (psn = 0; psn < 10; psn++)
		ROCE_TEST_ASSERT_EQ(rx_log.count[psn], psn != 5, "psn %u", psn);
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_fired(f, RTE_ROCE_FAULT_RX, 0), 1, "fired once");
	ROCE_TEST_ASSERT_EQ(detach(f), 0, "detach");
	return teardown();
}

/* Filters on QP and PSN, a run of count, and two rules that both count. */
static int
test_rule_filters(void)
{
	struct rte_roce_fault_conf conf = { .seed = SEED, .roce_only = true };
	struct rte_roce_fault_rule by_qp = {
		.dir = RTE_ROCE_FAULT_RX, .action = RTE_ROCE_FAULT_DROP,
		.opcode = RTE_ROCE_FAULT_OPCODE_ANY, .match_dqpn = true, .dqpn = OTHER_QPN,
		.nth = 2, .count = 3,
	};
	struct rte_roce_fault_rule by_psn = {
		.dir = RTE_ROCE_FAULT_RX, .action = RTE_ROCE_FAULT_DUP,
		.opcode = RTE_ROCE_FAULT_OPCODE_ANY, .match_psn = true, .psn = 12,
	};
	struct rte_roce_fault *f;
	uint32_t psn;

	ROCE_TEST_ASSERT(setup() == 0, "setup");
	f = attach(pair.b, RTE_ROCE_FAULT_RX, &conf);
	ROCE_TEST_ASSERT(f != NULL, "attach: %s", rte_strerror(rte_errno));
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &by_qp), 0, "rule qp");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &by_psn), 0, "rule psn");
	/* QPN: 0..9; OTHER_QPN: 10..19 whose 2nd..4th (PSN 11..13) go; 12 also matches by_psn. */
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_SEND_ONLY, QPN, 0, 10) == 0, "QPN");
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_SEND_ONLY, OTHER_QPN, 10, 10) == 0, "other");
	ROCE_TEST_ASSERT(settle(f) == 0, "settle");
	for (psn = 0; psn < 20; psn++)
		ROCE_TEST_ASSERT_EQ(rx_log.count[psn], psn < 11 || psn > 13, "psn %u", psn);
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_fired(f, RTE_ROCE_FAULT_RX, 0), 3, "qp rule");
	/* The first rule acted on PSN 12: the second counted it without firing. */
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_fired(f, RTE_ROCE_FAULT_RX, 1), 0, "psn rule");
	ROCE_TEST_ASSERT_EQ(detach(f), 0, "detach");
	return teardown();
}

/* ---- Non-RoCE frames ---- */

static int
test_roce_only(void)
{
	struct rte_roce_fault_conf conf = { .seed = SEED, .drop = 1.0, .roce_only = true };
	struct rte_roce_fault *fa, *fb;
	struct rte_ether_addr mac;

	ROCE_TEST_ASSERT(setup() == 0, "setup");
	fa = attach(pair.a, RTE_ROCE_FAULT_RX, &conf);
	fb = attach(pair.b, RTE_ROCE_FAULT_RX, &conf);
	ROCE_TEST_ASSERT(fa != NULL && fb != NULL, "attach: %s", rte_strerror(rte_errno));
	/* ND through both injectors: nothing was resolved over IPv6 yet. */
	ROCE_TEST_ASSERT_EQ(roce_test_resolve(a, b, "2001:db8::2", &mac, RESOLVE_MS), 0, "ND");
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_SEND_ONLY, QPN, 0, 20) == 0, "send");
	ROCE_TEST_ASSERT_EQ(rx_log.nb, 0, "RoCE all dropped");
	ROCE_TEST_ASSERT_EQ(detach(fa), 0, "detach A");
	ROCE_TEST_ASSERT_EQ(detach(fb), 0, "detach B");

	/* Without roce_only the solicitations go too. */
	conf.roce_only = false;
	ROCE_TEST_ASSERT(setup() == 0, "setup");
	fb = attach(pair.b, RTE_ROCE_FAULT_RX, &conf);
	ROCE_TEST_ASSERT(fb != NULL, "attach: %s", rte_strerror(rte_errno));
	ROCE_TEST_ASSERT(roce_test_resolve(a, b, "2001:db8::2", &mac, RESOLVE_MS) != 0, "ND lost");
	ROCE_TEST_ASSERT_EQ(detach(fb), 0, "detach B");
	return teardown();
}

/* ---- Teardown and misuse ---- */

static int
test_detach_frees_held(void)
{
	struct rte_roce_fault_conf conf = {
		.seed = SEED, .delay = 1.0, .delay_us = 10 * 1000 * 1000, .roce_only = true,
	};
	const uint32_t nb = 100;
	struct rte_roce_fault_stats s;
	struct rte_roce_fault *f;

	ROCE_TEST_ASSERT(setup() == 0, "setup");
	f = attach(pair.b, RTE_ROCE_FAULT_RX, &conf);
	ROCE_TEST_ASSERT(f != NULL, "attach: %s", rte_strerror(rte_errno));
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_SEND_ONLY, QPN, 0, nb) == 0, "send");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(f, &s), 0, "stats");
	ROCE_TEST_ASSERT_EQ(s.held, nb, "all held");
	ROCE_TEST_ASSERT_EQ(rx_log.nb, 0, "none through");
	ROCE_TEST_ASSERT_EQ(detach(f), 0, "detach");
	/* teardown checks the pool is back to its baseline. */
	return teardown();
}

/* A hold queue of 4: the fifth delay in a row is skipped, the frame passes. */
static int
test_hold_full(void)
{
	struct rte_roce_fault_conf conf = {
		.seed = SEED, .delay = 1.0, .delay_us = 10 * 1000 * 1000, .hold_max = 4,
		.roce_only = true,
	};
	struct rte_roce_fault_stats s;
	struct rte_roce_fault *f;

	ROCE_TEST_ASSERT(setup() == 0, "setup");
	f = attach(pair.b, RTE_ROCE_FAULT_RX, &conf);
	ROCE_TEST_ASSERT(f != NULL, "attach: %s", rte_strerror(rte_errno));
	ROCE_TEST_ASSERT(send_frames(RTE_ROCE_OP_RC_SEND_ONLY, QPN, 0, 10) == 0, "send");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(f, &s), 0, "stats");
	ROCE_TEST_ASSERT_EQ(s.held, 4, "held");
	ROCE_TEST_ASSERT_EQ(s.skipped, 6, "skipped");
	ROCE_TEST_ASSERT_EQ(rx_log.nb, 6, "passed");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_flush(f), 0, "flush");
	ROCE_TEST_ASSERT(settle(f) == 0, "settle");
	ROCE_TEST_ASSERT_EQ(nb_received_once(10), 10, "all arrived");
	ROCE_TEST_ASSERT_EQ(detach(f), 0, "detach");
	return teardown();
}

static int
test_attach_errors(void)
{
	struct rte_roce_fault_conf ok = { .seed = SEED };
	struct rte_roce_fault_conf c;
	struct rte_roce_fault *f;
	double *probs[] = { &c.drop, &c.dup, &c.corrupt, &c.delay, &c.reorder };
	const double bad[] = { -0.1, 1.5, NAN, INFINITY };
	unsigned int i, j;

	ROCE_TEST_ASSERT(setup() == 0, "setup");
#define ATTACH_FAILS(port, queue, dir, conf, err) do {				\
	rte_errno = 0;								\
	f = rte_roce_fault_attach(port, queue, dir, conf);			\
	ROCE_TEST_ASSERT(f == NULL, "attach succeeded");			\
	ROCE_TEST_ASSERT_EQ(rte_errno, err, "rte_errno");			\
} while (0)
	ATTACH_FAILS(RTE_MAX_ETHPORTS - 1, 0, RTE_ROCE_FAULT_RX, &ok, ENODEV);
	ATTACH_FAILS(RTE_MAX_ETHPORTS, 0, RTE_ROCE_FAULT_RX, &ok, ENODEV);
	ATTACH_FAILS(pair.b, 1, RTE_ROCE_FAULT_RX, &ok, EINVAL);
	ATTACH_FAILS(pair.b, 1, RTE_ROCE_FAULT_TX, &ok, EINVAL);
	ATTACH_FAILS(pair.b, 0, RTE_ROCE_FAULT_RX, NULL, EINVAL);
	ATTACH_FAILS(pair.b, 0, 0, &ok, EINVAL);
	ATTACH_FAILS(pair.b, 0, RTE_ROCE_FAULT_BOTH + 1, &ok, EINVAL);
	c = ok;
	c.corrupt_region = RTE_ROCE_FAULT_REGION_PAYLOAD + 1;
	ATTACH_FAILS(pair.b, 0, RTE_ROCE_FAULT_RX, &c, EINVAL);
	for (i = 0; i < RTE_DIM(probs); i++) {
		for (j = 0; j < RTE_DIM(bad); j++) {
			c = ok;
			*probs[i] = bad[j];
			ATTACH_FAILS(pair.b, 0, RTE_ROCE_FAULT_RX, &c, EINVAL);
		}
		/* Each fault but corruption is refused on TX. */
		c = ok;
		*probs[i] = 0.5;
		if (probs[i] != &c.corrupt) {
			ATTACH_FAILS(pair.b, 0, RTE_ROCE_FAULT_TX, &c, ENOTSUP);
			ATTACH_FAILS(pair.b, 0, RTE_ROCE_FAULT_BOTH, &c, ENOTSUP);
		}
	}
	c = ok;
	c.drop = 0.6;
	c.dup = 0.6;
	ATTACH_FAILS(pair.b, 0, RTE_ROCE_FAULT_RX, &c, EINVAL);
#undef ATTACH_FAILS
	/* Nothing was left behind: a valid attach on both directions works. */
	c = ok;
	c.corrupt = 1.0;
	f = attach(pair.b, RTE_ROCE_FAULT_BOTH, &c);
	ROCE_TEST_ASSERT(f != NULL, "attach both: %s", rte_strerror(rte_errno));
	ROCE_TEST_ASSERT_EQ(detach(f), 0, "detach");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_detach(NULL), 0, "detach NULL");
	return teardown();
}

static int
test_rule_errors(void)
{
	struct rte_roce_fault_conf conf = { .seed = SEED };
	struct rte_roce_fault_rule ok = {
		.dir = RTE_ROCE_FAULT_RX, .action = RTE_ROCE_FAULT_DROP,
		.opcode = RTE_ROCE_FAULT_OPCODE_ANY,
	};
	struct rte_roce_fault_rule r;
	struct rte_roce_fault_stats s;
	struct rte_roce_fault *f;
	unsigned int i;

	ROCE_TEST_ASSERT(setup() == 0, "setup");
	f = attach(pair.b, RTE_ROCE_FAULT_RX, &conf);
	ROCE_TEST_ASSERT(f != NULL, "attach: %s", rte_strerror(rte_errno));
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(NULL, &ok), -EINVAL, "f NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, NULL), -EINVAL, "rule NULL");
	r = ok;
	r.dir = RTE_ROCE_FAULT_BOTH;
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &r), -EINVAL, "dir both");
	r = ok;
	r.action = RTE_ROCE_FAULT_ACTION_MAX;
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &r), -EINVAL, "action");
	r = ok;
	r.opcode = UINT8_MAX + 1;
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &r), -EINVAL, "opcode");
	r = ok;
	r.dqpn = 1u << 24;
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &r), -EINVAL, "dqpn");
	r = ok;
	r.psn = 1u << 24;
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &r), -EINVAL, "psn");
	r = ok;
	r.dir = RTE_ROCE_FAULT_TX;
	r.action = RTE_ROCE_FAULT_CORRUPT;
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &r), -ENOTSUP, "TX rule on an RX injector");
	for (i = 0; i < RTE_ROCE_FAULT_RULES_MAX; i++)
		ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &ok), 0, "rule %u", i);
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &ok), -ENOSPC, "one too many");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_fired(f, RTE_ROCE_FAULT_RX, 0), 0, "fired");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_fired(f, RTE_ROCE_FAULT_RX,
						      RTE_ROCE_FAULT_RULES_MAX), -ENOENT, "index");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_fired(f, RTE_ROCE_FAULT_TX, 0), -ENOENT, "TX");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_fired(f, RTE_ROCE_FAULT_BOTH, 0), -EINVAL, "both");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_fired(NULL, RTE_ROCE_FAULT_RX, 0), -EINVAL, "NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_flush(NULL), -EINVAL, "flush NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(NULL, &s), -EINVAL, "stats f NULL");
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_stats_get(f, NULL), -EINVAL, "stats NULL");
	ROCE_TEST_ASSERT_EQ(detach(f), 0, "detach");

	/* On TX, a rule may only corrupt. */
	conf.corrupt = 0.0;
	f = attach(pair.a, RTE_ROCE_FAULT_TX, &conf);
	ROCE_TEST_ASSERT(f != NULL, "attach TX: %s", rte_strerror(rte_errno));
	r = ok;
	r.dir = RTE_ROCE_FAULT_TX;
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &r), -ENOTSUP, "TX drop rule");
	r.action = RTE_ROCE_FAULT_CORRUPT;
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &r), 0, "TX corrupt rule");
	r.dir = RTE_ROCE_FAULT_RX;
	ROCE_TEST_ASSERT_EQ(rte_roce_fault_rule_add(f, &r), -ENOTSUP, "RX rule on a TX injector");
	ROCE_TEST_ASSERT_EQ(detach(f), 0, "detach");
	return teardown();
}

static const struct roce_test_case cases[] = {
	{ "drop_probability_and_seed", test_drop_probability },
	{ "dup_exact_copies", test_dup_exact },
	{ "corrupt_payload_icrc_drop", test_corrupt_payload },
	{ "corrupt_any_roce_byte", test_corrupt_any },
	{ "corrupt_on_tx", test_corrupt_tx },
	{ "corrupt_shared_mbuf_copied", test_corrupt_shared },
	{ "reorder_loses_nothing", test_reorder },
	{ "delay_released_by_empty_bursts", test_delay },
	{ "mix_accounts_for_every_frame", test_mix },
	{ "rule_drop_third_send_only", test_rule_drop_third_send },
	{ "rule_filters_and_runs", test_rule_filters },
	{ "roce_only_spares_nd", test_roce_only },
	{ "detach_frees_held", test_detach_frees_held },
	{ "hold_queue_full", test_hold_full },
	{ "attach_errors", test_attach_errors },
	{ "rule_and_call_errors", test_rule_errors },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&pair, "fault") != 0 ||
	    rte_roce_gid_parse("198.18.0.1", &gid_a) != 0 ||
	    rte_roce_gid_parse("198.18.0.2", &gid_b) != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
