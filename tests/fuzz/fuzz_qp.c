/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * libFuzzer target: mutated frames delivered to live QPs, so that the
 * responder (roce_resp.c), the completer (roce_comp.c) and the receive
 * dispatch (roce_recv.c) run on them, not only the parser.
 *
 * Two devices over net_ring (roce_test_verbs.h). Side A has an RC QP
 * connected to side B, a UC QP and a UD QP, all in RTS, and a 4 KiB MR
 * with every right in its own malloc() block, so that ASan's redzones sit
 * right at both ends of the MR: any access outside it is a crash. Side B
 * only answers A's ARP; every RoCE frame A sends is dropped. Per input:
 *
 * - post a receive on each QP (into the MR) unless told not to and, on the
 *   RC QP, a SEND and, as the control byte says, a 2 KiB READ (into the
 *   MR's last 2 KiB) and an atomic (into its last 8 bytes): the completer
 *   has work in flight;
 * - the input is up to FUZZ_RECORDS_MAX records: three control bytes, a
 *   length and an Ethernet frame. Each frame's IP and UDP lengths are fixed
 *   to its size, it is parsed, the fields the control bytes name are set
 *   (destination QP, PSN near the expected one, RETH/AtomicETH at the MR,
 *   Q_Key), it is readdressed from B to A and rebuilt, which makes the ICRC
 *   right. In turn, each record moves A's clock on by its steps (the
 *   timers: ACK timeout, RNR wait, retries used up) and A receives its
 *   frame, once or twice (a duplicate); the first record's control bytes
 *   also say which WRs are posted;
 * - then every QP goes to ERR, and each posted WR must complete or flush
 *   exactly once; the only asynchronous events are QP_FATAL of A's QPs; the QPs go back to RESET and to RTS with the same PSNs,
 *   and the mbuf pool must be back to its count before the input.
 *
 * A frame that does not parse is left out of the corpus (fuzz_rx covers
 * the parser). A failed invariant aborts, which libFuzzer reports as a
 * crash with the input saved.
 *
 * ROCE_FUZZ_SRQ=1 (target fuzz_srq): A's RC and UC QPs take their receive
 * WQEs from one SRQ instead, made anew for each input with FUZZ_SRQ_WR WQEs
 * and its limit armed at FUZZ_SRQ_LIMIT: the second message that takes one
 * raises IBV_EVENT_SRQ_LIMIT_REACHED, the fourth finds it empty (RNR, UC
 * drop). A QP in ERR does not flush the SRQ (IBA 10.2.9): at the end each
 * SRQ WQE has completed once or is still in the SRQ, the limit event came
 * once if and only if two were taken, and each QP on it reported Last WQE
 * Reached at most once (IBA 11.6.3).
 *
 * Seeds: with ROCE_FUZZ_VECTORS (a folder of pcaps) and ROCE_FUZZ_SEED_DIR
 * set, LLVMFuzzerInitialize() writes the first frame of each opcode of each
 * capture as a record with the control bytes that aim it at the QP of its
 * transport at the expected PSN, and the made-up sequences of seqs[]: a
 * corpus made at test time, never committed.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include <rte_roce.h>
#include <rte_roce_opcode.h>
#include <rte_roce_pkt.h>

#include "roce_dev.h"
#include "roce_mr.h"
#include "roce_srq.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#include "fuzz_seed.h"
#include "fuzz_wire.h"

#define FUZZ_MTU	4096
#define FUZZ_FRAME_MAX	(ROCE_TEST_MBUF_DATA_SIZE - RTE_PKTMBUF_HEADROOM)
#define FUZZ_MR_LEN	4096u
#define FUZZ_READ_LEN	2048u	/* two READ responses at MTU 1024 */
#define FUZZ_SEND_LEN	64u
#define FUZZ_QKEY	0x11111111u
/* A's send PSNs wrap to 0 within an input's requests; its receive PSN is low. */
#define FUZZ_SQ_PSN	0xfffffeu
#define FUZZ_RQ_PSN	0x000010u
#define FUZZ_PSN_MASK	0xffffffu
/* Polls of A (and B for ARP) per input, and to drain a flush. */
#define FUZZ_POLLS	8
#define FUZZ_FLUSH_POLLS	1000
#define FUZZ_WC_MAX	16

/* Control byte 0. */
#define CTRL_QP_MASK	0x03	/* destination QP: keep, RC, UC, UD */
#define CTRL_PSN	0x04	/* PSN = base + (int8_t)control byte 1 */
#define CTRL_PSN_SQ	0x08	/* base: A's first send PSN, else its expected receive PSN */
#define CTRL_MR		0x10	/* RETH/AtomicETH: the MR's R_Key, VA = MR + (int16_t)VA; IETH: its R_Key */
#define CTRL_QKEY	0x20	/* DETH: the UD QP's Q_Key */
#define CTRL_READ	0x40	/* post a READ after the SEND */
#define CTRL_ATOMIC	0x80	/* post an atomic after them */
/* Control byte 2. */
#define CTRL_NO_RECV	0x01	/* post no receive: the responder has none (RNR, UC drop) */
#define CTRL_TWICE	0x02	/* deliver the frame twice: a duplicate, after the first */
#define CTRL_STEPS_SHIFT	2	/* bits 7-2: clock steps before the frame */
#define CTRL_LEN	3
/* A record: the control bytes, the frame's length (big endian, 0: no frame), the frame. */
#define REC_HDR		(CTRL_LEN + 2)
#define FUZZ_RECORDS_MAX	8
/*
 * A clock step: A's timer wheel 16 ms on, then a poll. The ACK timeout
 * (14) is 67 ms, so a record of 34 steps or more uses up retry_cnt 7; an
 * RNR wait is at most 655 ms (code 0).
 */
#define FUZZ_STEP_US	16000u

enum fuzz_qp { FUZZ_QP_KEEP, FUZZ_QP_RC, FUZZ_QP_UC, FUZZ_QP_UD, FUZZ_NB_QP };

/* wr_ids: a bit each in the per-input "completed" mask. */
/* SRQ mode: WQEs posted to the SRQ, and the limit armed (events when fewer are left). */
#define FUZZ_SRQ_WR	3
#define FUZZ_SRQ_LIMIT	2

enum fuzz_wr {
	WR_SEND, WR_READ, WR_ATOMIC, WR_RECV_RC, WR_RECV_UC, WR_RECV_UD,
	WR_SRQ,			/* SRQ mode: the SRQ's WQEs, WR_SRQ + i */
	WR_MAX = WR_SRQ + FUZZ_SRQ_WR
};
#define WR_SRQ_MASK	((RTE_BIT32(WR_MAX) - 1) & ~(RTE_BIT32(WR_SRQ) - 1))

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct roce_test_env env;
static struct ibv_qp *qps[FUZZ_NB_QP];	/* [FUZZ_QP_KEEP] unused */
static uint8_t *mr_buf;
static struct ibv_mr *mr;
static struct rte_ether_addr mac[2];	/* A's, B's */
static unsigned int pool_baseline;
static uint64_t mr_renewed;	/* MRs registered again after an input invalidated them */
static struct roce_test_conf conf;
static bool srq_mode;
static struct ibv_srq *srq;
static unsigned int srq_limit_events;	/* of the input */
static unsigned int last_wqe_events[FUZZ_NB_QP];	/* of the input, per QP */

/* An input: up to FUZZ_RECORDS_MAX records, each played in turn. */
struct record {
	const uint8_t *ctrl;
	uint32_t len;			/* of frame; 0: the clock only */
	uint8_t frame[FUZZ_FRAME_MAX];
};
static struct record records[FUZZ_RECORDS_MAX];

static void aim(struct rte_roce_pkt *pkt, const uint8_t ctrl[CTRL_LEN]);

/* Poll A; B only sees (and answers) A's ARP and ND. */
static void
pump(unsigned int polls)
{
	unsigned int i;

	for (i = 0; i < polls; i++)
		fuzz_wire_poll(&env, NULL);
}

static void
qps_ready(void)
{
	struct roce_test_conf uc = conf;

	uc.qp_type = IBV_QPT_UC;
	FUZZ_CHECK(roce_test_qp_connect(qps[FUZZ_QP_RC], &env.s[0], &env.s[1],
					env.qp[1][0]->qp_num, FUZZ_SQ_PSN, FUZZ_RQ_PSN, &conf) == 0);
	FUZZ_CHECK(roce_test_qp_connect(qps[FUZZ_QP_UC], &env.s[0], &env.s[1],
					env.qp[1][0]->qp_num, FUZZ_SQ_PSN, FUZZ_RQ_PSN, &uc) == 0);
	FUZZ_CHECK(roce_test_ud_qp_ready(qps[FUZZ_QP_UD], FUZZ_QKEY) == 0);
}

/* SRQ mode: the SRQ anew, and A's RC and UC QPs on it (in RESET). */
static void
srq_qps_create(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = FUZZ_SRQ_WR, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = {
		.send_cq = env.s[0].scq,
		.recv_cq = env.s[0].rcq,
		.cap = { .max_send_wr = 16, .max_send_sge = 1 },
	};
	unsigned int q;

	srq = rte_roce_create_srq(env.s[0].pd, &sa);
	FUZZ_CHECK(srq != NULL);
	qa.srq = srq;
	for (q = FUZZ_QP_RC; q <= FUZZ_QP_UC; q++) {
		qa.qp_type = q == FUZZ_QP_RC ? IBV_QPT_RC : IBV_QPT_UC;
		qps[q] = rte_roce_create_qp(env.s[0].pd, &qa);
		FUZZ_CHECK(qps[q] != NULL);
	}
}

static void
srq_qps_destroy(void)
{
	unsigned int q;

	for (q = FUZZ_QP_RC; q <= FUZZ_QP_UC; q++)
		FUZZ_CHECK(rte_roce_destroy_qp(qps[q]) == 0);
	FUZZ_CHECK(rte_roce_destroy_srq(srq) == 0);
}

static void
qps_set_state(enum ibv_qp_state state)
{
	struct ibv_qp_attr a = { .qp_state = state };
	unsigned int i;

	for (i = FUZZ_QP_RC; i < FUZZ_NB_QP; i++)
		FUZZ_CHECK(rte_roce_modify_qp(qps[i], &a, IBV_QP_STATE) == 0);
}

/* Control bytes that aim a captured frame at A's QP of its transport. */
static void
seed_ctrl(const struct rte_roce_pkt *pkt, uint8_t ctrl[CTRL_LEN])
{
	uint32_t f = pkt->info->flags;

	ctrl[1] = 0;
	ctrl[2] = 0;
	switch (pkt->opcode >> 5) {
	case 0:	/* RC */
		ctrl[0] = FUZZ_QP_RC | CTRL_PSN | CTRL_MR;
		if ((f & RTE_ROCE_OPF_RESP) == 0)
			break;
		/*
		 * A's SEND at FUZZ_SQ_PSN, then the READ or the atomic the
		 * response answers, alone: an ACK past an unanswered READ
		 * is an implied NAK (roce_comp.c).
		 */
		ctrl[0] |= CTRL_PSN_SQ;
		if ((f & RTE_ROCE_OPF_READ) != 0)
			ctrl[0] |= CTRL_READ;
		else if ((f & RTE_ROCE_OPF_ATOMIC) != 0)
			ctrl[0] |= CTRL_ATOMIC;
		ctrl[1] = (ctrl[0] & (CTRL_READ | CTRL_ATOMIC)) != 0 ? 1 : 0;
		break;
	case 1:	/* UC */
		ctrl[0] = FUZZ_QP_UC | CTRL_PSN | CTRL_MR;
		break;
	case 3:	/* UD */
		ctrl[0] = FUZZ_QP_UD | CTRL_QKEY;
		break;
	default:
		ctrl[0] = FUZZ_QP_KEEP;
	}
}

/* The first frame of each opcode of a capture, aimed at its QP. */
static int
pick_seed(const uint8_t *frame, uint32_t len, struct fuzz_seed_seen *seen, uint8_t *prefix)
{
	struct rte_roce_pkt pkt;

	if (len > FUZZ_FRAME_MAX ||
	    rte_roce_pkt_parse(frame, len, FUZZ_MTU, &pkt) != RTE_ROCE_DROP_NONE ||
	    seen->opcode[pkt.opcode])
		return -1;
	seen->opcode[pkt.opcode] = true;
	seed_ctrl(&pkt, prefix);
	prefix[CTRL_LEN] = (uint8_t)(len >> 8);
	prefix[CTRL_LEN + 1] = (uint8_t)len;
	return REC_HDR;
}

/*
 * Seeds of several frames, made up (the captures have each message whole
 * and in order): messages in the middle, a gap, a duplicate, responses out
 * of order, an RNR NAK and the timers. A step's control bytes and frame:
 * opcode -1 is a record of the clock only.
 */
#define SEQ_RC_REQ	(FUZZ_QP_RC | CTRL_PSN | CTRL_MR)
#define SEQ_RC_RESP	(SEQ_RC_REQ | CTRL_PSN_SQ)
#define SEQ_UC_REQ	(FUZZ_QP_UC | CTRL_PSN | CTRL_MR)
#define SEQ_STEPS(k)	((k) << CTRL_STEPS_SHIFT)
#define SEQ_MTU		1024u	/* the QPs' path MTU (roce_test_default_conf) */
#define SEQ_LAST_LEN	100u
#define SEQ_CLOCK	(-1)

struct seq_step {
	uint8_t ctrl[CTRL_LEN];
	int16_t opcode;
	uint16_t payload_len;
	uint8_t syndrome;	/* AETH: 0 is an ACK */
};

struct seq {
	const char *name;
	struct seq_step step[FUZZ_RECORDS_MAX];
};

static const struct seq seqs[] = {
	{ "rc_send_3", {
		{ { SEQ_RC_REQ, 0, 0 }, RTE_ROCE_OP_RC_SEND_FIRST, SEQ_MTU, 0 },
		{ { SEQ_RC_REQ, 1, 0 }, RTE_ROCE_OP_RC_SEND_MIDDLE, SEQ_MTU, 0 },
		{ { SEQ_RC_REQ, 2, 0 }, RTE_ROCE_OP_RC_SEND_LAST, SEQ_LAST_LEN, 0 } } },
	{ "rc_send_gap_dup", {
		{ { SEQ_RC_REQ, 0, 0 }, RTE_ROCE_OP_RC_SEND_FIRST, SEQ_MTU, 0 },
		{ { SEQ_RC_REQ, 2, 0 }, RTE_ROCE_OP_RC_SEND_LAST, SEQ_LAST_LEN, 0 },
		{ { SEQ_RC_REQ, 1, 0 }, RTE_ROCE_OP_RC_SEND_MIDDLE, SEQ_MTU, 0 },
		{ { SEQ_RC_REQ, 0, CTRL_TWICE }, RTE_ROCE_OP_RC_SEND_FIRST, SEQ_MTU, 0 } } },
	{ "rc_write_3", {
		{ { SEQ_RC_REQ, 0, 0 }, RTE_ROCE_OP_RC_RDMA_WRITE_FIRST, SEQ_MTU, 0 },
		{ { SEQ_RC_REQ, 1, 0 }, RTE_ROCE_OP_RC_RDMA_WRITE_MIDDLE, SEQ_MTU, 0 },
		{ { SEQ_RC_REQ, 2, 0 }, RTE_ROCE_OP_RC_RDMA_WRITE_LAST, SEQ_LAST_LEN, 0 } } },
	{ "uc_send_gap", {
		{ { SEQ_UC_REQ, 0, 0 }, RTE_ROCE_OP_UC_SEND_FIRST, SEQ_MTU, 0 },
		{ { SEQ_UC_REQ, 2, 0 }, RTE_ROCE_OP_UC_SEND_LAST, SEQ_LAST_LEN, 0 },
		{ { SEQ_UC_REQ, 3, 0 }, RTE_ROCE_OP_UC_SEND_FIRST, SEQ_MTU, 0 },
		{ { SEQ_UC_REQ, 4, 0 }, RTE_ROCE_OP_UC_SEND_LAST, SEQ_LAST_LEN, 0 } } },
	{ "uc_write_2", {
		{ { SEQ_UC_REQ, 0, 0 }, RTE_ROCE_OP_UC_RDMA_WRITE_FIRST, SEQ_MTU, 0 },
		{ { SEQ_UC_REQ, 1, 0 }, RTE_ROCE_OP_UC_RDMA_WRITE_LAST, SEQ_LAST_LEN, 0 } } },
	{ "ack_timeout_exhausted", {
		{ { SEQ_RC_RESP, 0, SEQ_STEPS(40) }, SEQ_CLOCK, 0, 0 } } },
	{ "rnr_wait_then_ack", {
		{ { SEQ_RC_RESP, 0, 0 }, RTE_ROCE_OP_RC_ACKNOWLEDGE, 0, RTE_ROCE_AETH_TYPE_RNR | 1 },
		{ { SEQ_RC_RESP, 0, SEQ_STEPS(4) }, SEQ_CLOCK, 0, 0 },
		{ { SEQ_RC_RESP, 0, 0 }, RTE_ROCE_OP_RC_ACKNOWLEDGE, 0, RTE_ROCE_AETH_ACK_UNLIMITED } } },
	{ "read_resp_2", {
		{ { SEQ_RC_RESP | CTRL_READ, 0, 0 }, RTE_ROCE_OP_RC_ACKNOWLEDGE, 0, 0 },
		{ { SEQ_RC_RESP, 1, 0 }, RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, SEQ_MTU, 0 },
		{ { SEQ_RC_RESP, 2, 0 }, RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, SEQ_MTU, 0 } } },
	{ "read_resp_lost_first", {
		{ { SEQ_RC_RESP | CTRL_READ, 0, 0 }, RTE_ROCE_OP_RC_ACKNOWLEDGE, 0, 0 },
		{ { SEQ_RC_RESP, 2, 0 }, RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, SEQ_MTU, 0 },
		{ { SEQ_RC_RESP, 1, SEQ_STEPS(5) }, RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST,
		  SEQ_MTU, 0 } } },
	/* The MR invalidated: the next input finds it registered again (mr_restore()). */
	{ "send_inv_mr", {
		{ { SEQ_RC_REQ, 0, 0 }, RTE_ROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE, SEQ_LAST_LEN, 0 },
		{ { SEQ_RC_REQ, 1, 0 }, RTE_ROCE_OP_RC_RDMA_WRITE_ONLY, SEQ_LAST_LEN, 0 } } },
	/* SRQ mode: the limit event at the second, the SRQ empty at the fourth (RNR NAK). */
	{ "rc_send_4", {
		{ { SEQ_RC_REQ, 0, 0 }, RTE_ROCE_OP_RC_SEND_ONLY, SEQ_LAST_LEN, 0 },
		{ { SEQ_RC_REQ, 1, 0 }, RTE_ROCE_OP_RC_SEND_ONLY, SEQ_LAST_LEN, 0 },
		{ { SEQ_RC_REQ, 2, 0 }, RTE_ROCE_OP_RC_SEND_ONLY_WITH_IMMEDIATE, SEQ_LAST_LEN, 0 },
		{ { SEQ_RC_REQ, 3, 0 }, RTE_ROCE_OP_RC_SEND_ONLY, SEQ_LAST_LEN, 0 } } },
	{ "rc_uc_send_mixed", {
		{ { SEQ_RC_REQ, 0, 0 }, RTE_ROCE_OP_RC_SEND_FIRST, SEQ_MTU, 0 },
		{ { SEQ_UC_REQ, 0, 0 }, RTE_ROCE_OP_UC_SEND_ONLY, SEQ_LAST_LEN, 0 },
		{ { SEQ_UC_REQ, 1, 0 }, RTE_ROCE_OP_UC_SEND_ONLY, SEQ_LAST_LEN, 0 },
		{ { SEQ_RC_REQ, 1, 0 }, RTE_ROCE_OP_RC_SEND_LAST, SEQ_LAST_LEN, 0 },
		{ { SEQ_RC_REQ, 2, 0 }, RTE_ROCE_OP_RC_SEND_ONLY, SEQ_LAST_LEN, 0 } } },
	{ "seq_nak_then_ack", {
		{ { SEQ_RC_RESP, 0, 0 }, RTE_ROCE_OP_RC_ACKNOWLEDGE, 0, RTE_ROCE_AETH_NAK_PSN_SEQ },
		{ { SEQ_RC_RESP, 0, SEQ_STEPS(1) }, RTE_ROCE_OP_RC_ACKNOWLEDGE, 0, 0 } } },
};

/* A step as a record at buf: its size. Steps after the last are all zero. */
static uint32_t
seq_record(const struct seq_step *st, uint8_t *buf)
{
	static const uint8_t zeros[SEQ_MTU];
	/* The builder writes the headers in place: an aligned frame, copied after the header. */
	static uint8_t frame[FUZZ_FRAME_MAX] __rte_aligned(RTE_CACHE_LINE_SIZE);
	struct rte_roce_pkt pkt;
	int n = 0;

	memcpy(buf, st->ctrl, CTRL_LEN);
	if (st->opcode != SEQ_CLOCK) {
		rte_roce_pkt_init(&pkt, (uint8_t)st->opcode);
		pkt.payload_len = st->payload_len;
		pkt.reth.len = 2 * SEQ_MTU + SEQ_LAST_LEN;
		pkt.aeth.syndrome = st->syndrome;
		aim(&pkt, st->ctrl);
		n = rte_roce_pkt_build(&pkt, zeros, frame, FUZZ_FRAME_MAX);
		FUZZ_CHECK(n > 0);
		memcpy(buf + REC_HDR, frame, (size_t)n);
	}
	buf[CTRL_LEN] = (uint8_t)(n >> 8);
	buf[CTRL_LEN + 1] = (uint8_t)n;
	return REC_HDR + (uint32_t)n;
}

static void
write_seqs(const char *dir)
{
	static uint8_t buf[FUZZ_RECORDS_MAX * (REC_HDR + FUZZ_FRAME_MAX)];
	char path[PATH_MAX];
	const struct seq *q;
	unsigned int i, k;
	uint32_t len;

	for (k = 0; k < RTE_DIM(seqs); k++) {
		q = &seqs[k];
		len = 0;
		for (i = 0; i < FUZZ_RECORDS_MAX && (i == 0 || q->step[i].ctrl[0] != 0); i++)
			len += seq_record(&q->step[i], buf + len);
		snprintf(path, sizeof(path), "%s/seq_%s", dir, q->name);
		fuzz_seed_write("fuzz_qp", path, buf, len, buf, 0);
	}
}

/* At exit, say how deep the inputs went: A's non-zero counters. */
static void
print_xstats(void)
{
	struct rte_roce_xstat_name *names;
	struct rte_roce_xstat *values;
	int n = rte_roce_xstats_names_get(env.s[0].ctx, NULL, 0), i;

	names = calloc(RTE_MAX(n, 1), sizeof(*names));
	values = calloc(RTE_MAX(n, 1), sizeof(*values));
	if (n > 0 && names != NULL && values != NULL &&
	    rte_roce_xstats_names_get(env.s[0].ctx, names, n) == n &&
	    rte_roce_xstats_get(env.s[0].ctx, values, n) == n)
		for (i = 0; i < n; i++)
			if (values[i].value != 0)
				fprintf(stderr, "fuzz_qp: %s %" PRIu64 "\n", names[i].name,
					values[i].value);
	free(names);
	free(values);
	fprintf(stderr, "fuzz_qp: MR registered again %" PRIu64 " times\n", mr_renewed);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *vectors = getenv("ROCE_FUZZ_VECTORS");
	const char *seed_dir = getenv("ROCE_FUZZ_SEED_DIR");

	RTE_SET_USED(argc);
	conf = roce_test_default_conf;
	conf.psn_ab = FUZZ_SQ_PSN;
	conf.psn_ba = FUZZ_RQ_PSN;
	fuzz_wire_open((*argv)[0], "fuzz_qp", &env, &conf, 1, mac);
	srq_mode = getenv("ROCE_FUZZ_SRQ") != NULL && strcmp(getenv("ROCE_FUZZ_SRQ"), "1") == 0;
	if (srq_mode) {
		/* Frames aimed at no QP of ours must not find the warm-up's. */
		FUZZ_CHECK(rte_roce_destroy_qp(env.qp[0][0]) == 0);
		env.qp[0][0] = NULL;
		srq_qps_create();
	} else {
		qps[FUZZ_QP_RC] = env.qp[0][0];
		FUZZ_CHECK(roce_test_qp_create(&env.s[0], IBV_QPT_UC, &qps[FUZZ_QP_UC]) == 0);
	}
	FUZZ_CHECK(roce_test_qp_create(&env.s[0], IBV_QPT_UD, &qps[FUZZ_QP_UD]) == 0);
	FUZZ_CHECK(fcntl(env.s[0].ctx->async_fd, F_SETFL,
			 fcntl(env.s[0].ctx->async_fd, F_GETFL) | O_NONBLOCK) == 0);
	mr_buf = malloc(FUZZ_MR_LEN);
	FUZZ_CHECK(mr_buf != NULL);
	memset(mr_buf, 0, FUZZ_MR_LEN);
	mr = rte_roce_reg_mr(env.s[0].pd, mr_buf, FUZZ_MR_LEN, ROCE_TEST_ALL_ACCESS);
	FUZZ_CHECK(mr != NULL);
	qps_set_state(IBV_QPS_RESET);
	qps_ready();
	pump(FUZZ_POLLS);
	roce_test_pair_drain(env.pair);
	pool_baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	atexit(print_xstats);
	if (vectors != NULL && seed_dir != NULL) {
		fuzz_seed_corpus("fuzz_qp", vectors, seed_dir, pick_seed);
		write_seqs(seed_dir);
	}
	return 0;
}

/*
 * The IP and UDP lengths of a frame without VLAN tag, set to its size, so
 * that a frame the fuzzer cut or grew still parses (IPv4: header checksum
 * again). Other frames are left as they are.
 */
static void
fix_lengths(uint8_t *f, uint32_t len)
{
	const uint32_t l3 = RTE_ETHER_HDR_LEN;
	struct rte_ipv4_hdr *ip4 = (struct rte_ipv4_hdr *)(f + l3);
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(f + l3);
	struct rte_udp_hdr *udp;
	uint16_t type;
	uint32_t l4;

	if (len < l3)
		return;
	memcpy(&type, f + RTE_ETHER_HDR_LEN - sizeof(type), sizeof(type));
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4) && len >= l3 + sizeof(*ip4) + sizeof(*udp) &&
	    ip4->version_ihl == RTE_IPV4_VHL_DEF) {
		l4 = l3 + sizeof(*ip4);
		ip4->total_length = rte_cpu_to_be_16((uint16_t)(len - l3));
		ip4->hdr_checksum = 0;
		ip4->hdr_checksum = rte_ipv4_cksum(ip4);
	} else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6) &&
		   len >= l3 + sizeof(*ip6) + sizeof(*udp)) {
		l4 = l3 + sizeof(*ip6);
		ip6->payload_len = rte_cpu_to_be_16((uint16_t)(len - l4));
	} else {
		return;
	}
	udp = (struct rte_udp_hdr *)(f + l4);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - l4));
	udp->dgram_cksum = 0;
}

static uint64_t
at_mr(uint64_t va)
{
	return (uint64_t)(uintptr_t)mr_buf + (uint64_t)(int64_t)(int16_t)(uint16_t)va;
}

/* Set the fields the control bytes name, and address the frame from B to A. */
static void
aim(struct rte_roce_pkt *pkt, const uint8_t ctrl[CTRL_LEN])
{
	enum fuzz_qp q = ctrl[0] & CTRL_QP_MASK;
	uint32_t base = (ctrl[0] & CTRL_PSN_SQ) != 0 ? FUZZ_SQ_PSN : FUZZ_RQ_PSN;

	pkt->dst_mac = mac[0];
	pkt->src_mac = mac[1];
	pkt->vlan = false;
	pkt->ip_version = IPVERSION;
	memcpy(pkt->sgid.raw, env.s[1].gid.raw, sizeof(pkt->sgid.raw));
	memcpy(pkt->dgid.raw, env.s[0].gid.raw, sizeof(pkt->dgid.raw));
	pkt->udp_csum_mode = RTE_ROCE_UDP_CSUM_ZERO;
	if (q != FUZZ_QP_KEEP)
		pkt->dqpn = qps[q]->qp_num;
	if ((ctrl[0] & CTRL_PSN) != 0)
		pkt->psn = (base + (uint32_t)(int32_t)(int8_t)ctrl[1]) & FUZZ_PSN_MASK;
	if ((ctrl[0] & CTRL_MR) != 0) {
		pkt->reth.va = at_mr(pkt->reth.va);
		pkt->reth.rkey = mr->rkey;
		pkt->atmeth.va = at_mr(pkt->atmeth.va);
		pkt->atmeth.rkey = mr->rkey;
		pkt->ieth_rkey = mr->rkey;
	}
	if ((ctrl[0] & CTRL_QKEY) != 0)
		pkt->deth.qkey = FUZZ_QKEY;
}

/* A record's bytes as a frame to A: its length, or 0 if it does not parse. */
static uint32_t
make_frame(const uint8_t ctrl[CTRL_LEN], const uint8_t *bytes, uint32_t len, uint8_t *out)
{
	static uint8_t in[FUZZ_FRAME_MAX];
	struct rte_roce_pkt pkt;
	int n;

	memcpy(in, bytes, len);
	fix_lengths(in, len);
	if (rte_roce_pkt_parse(in, len, FUZZ_MTU, &pkt) != RTE_ROCE_DROP_NONE)
		return 0;
	aim(&pkt, ctrl);
	n = rte_roce_pkt_build(&pkt, in + pkt.payload_off, out, FUZZ_FRAME_MAX);
	return n > 0 ? (uint32_t)n : 0;
}

/*
 * The input's records, their frames made: how many, or 0 when the input is
 * not a whole number of records or a frame does not parse.
 */
static unsigned int
split_records(const uint8_t *data, size_t size)
{
	unsigned int n = 0;
	uint32_t len;

	while (size > 0) {
		if (n == FUZZ_RECORDS_MAX || size < REC_HDR)
			return 0;
		len = (uint32_t)data[CTRL_LEN] << 8 | data[CTRL_LEN + 1];
		if (len > size - REC_HDR || len > FUZZ_FRAME_MAX)
			return 0;
		records[n].ctrl = data;
		records[n].len = len == 0 ? 0 : make_frame(data, data + REC_HDR, len,
							   records[n].frame);
		if (len != 0 && records[n].len == 0)
			return 0;
		n++;
		data += REC_HDR + len;
		size -= REC_HDR + len;
	}
	return n;
}

static void
post_recv(enum fuzz_qp q, enum fuzz_wr id)
{
	FUZZ_CHECK(roce_test_post_recv(qps[q], id, mr_buf, FUZZ_MR_LEN, mr->lkey) == 0);
}

/* SRQ mode: the SRQ's WQEs into the MR, its limit armed; their wr_ids. */
static uint32_t
post_srq(void)
{
	struct ibv_sge sge = { .addr = (uintptr_t)mr_buf, .length = FUZZ_MR_LEN, .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_srq_attr limit = { .srq_limit = FUZZ_SRQ_LIMIT };
	unsigned int i;

	for (i = 0; i < FUZZ_SRQ_WR; i++) {
		wr.wr_id = WR_SRQ + i;
		FUZZ_CHECK(rte_roce_post_srq_recv(srq, &wr, &bad) == 0);
	}
	FUZZ_CHECK(rte_roce_modify_srq(srq, &limit, IBV_SRQ_LIMIT) == 0);
	return WR_SRQ_MASK;
}

/* The WRs of an input; returns the mask of their wr_ids. */
static uint32_t
post_wrs(const uint8_t ctrl[CTRL_LEN])
{
	struct roce_test_side *b = &env.s[1];
	struct ibv_qp *rc = qps[FUZZ_QP_RC];
	uint32_t posted = RTE_BIT32(WR_SEND);

	if (srq_mode) {
		/* The SRQ is new: full, whatever the control bytes (an empty one is 3 messages away). */
		posted |= post_srq();
		if ((ctrl[2] & CTRL_NO_RECV) == 0) {
			post_recv(FUZZ_QP_UD, WR_RECV_UD);
			posted |= RTE_BIT32(WR_RECV_UD);
		}
	} else if ((ctrl[2] & CTRL_NO_RECV) == 0) {
		post_recv(FUZZ_QP_RC, WR_RECV_RC);
		post_recv(FUZZ_QP_UC, WR_RECV_UC);
		post_recv(FUZZ_QP_UD, WR_RECV_UD);
		posted |= RTE_BIT32(WR_RECV_RC) | RTE_BIT32(WR_RECV_UC) | RTE_BIT32(WR_RECV_UD);
	}
	FUZZ_CHECK(roce_test_post_send(rc, IBV_WR_SEND, WR_SEND, mr_buf, FUZZ_SEND_LEN, mr->lkey,
				       0, 0, IBV_SEND_SIGNALED) == 0);
	if ((ctrl[0] & CTRL_READ) != 0) {
		FUZZ_CHECK(roce_test_post_send(rc, IBV_WR_RDMA_READ, WR_READ,
					       mr_buf + FUZZ_MR_LEN - FUZZ_READ_LEN, FUZZ_READ_LEN,
					       mr->lkey, (uintptr_t)b->buf, b->mr->rkey,
					       IBV_SEND_SIGNALED) == 0);
		posted |= RTE_BIT32(WR_READ);
	}
	if ((ctrl[0] & CTRL_ATOMIC) != 0) {
		FUZZ_CHECK(roce_test_post_atomic(rc, IBV_WR_ATOMIC_FETCH_AND_ADD, WR_ATOMIC,
						 mr_buf + FUZZ_MR_LEN - sizeof(uint64_t), mr->lkey,
						 (uintptr_t)b->buf, b->mr->rkey, 1, 0) == 0);
		posted |= RTE_BIT32(WR_ATOMIC);
	}
	return posted;
}

/* Completions so far: each of a WR posted, on its QP, never twice. */
static void
reap(uint32_t posted, uint32_t *done)
{
	struct ibv_cq *cqs[] = { env.s[0].scq, env.s[0].rcq };
	static const enum fuzz_qp owner[WR_SRQ] = {
		FUZZ_QP_RC, FUZZ_QP_RC, FUZZ_QP_RC, FUZZ_QP_RC, FUZZ_QP_UC, FUZZ_QP_UD,
	};
	struct ibv_wc wc[FUZZ_WC_MAX];
	unsigned int c;
	int n, i;

	for (c = 0; c < RTE_DIM(cqs); c++) {
		n = rte_roce_poll_cq(cqs[c], RTE_DIM(wc), wc);
		FUZZ_CHECK(n >= 0);
		for (i = 0; i < n; i++) {
			FUZZ_CHECK(wc[i].wr_id < WR_MAX);
			FUZZ_CHECK((posted & RTE_BIT32(wc[i].wr_id)) != 0);
			FUZZ_CHECK((*done & RTE_BIT32(wc[i].wr_id)) == 0);
			/* An SRQ WQE: taken by either QP on the SRQ. */
			if (wc[i].wr_id >= WR_SRQ)
				FUZZ_CHECK(wc[i].qp_num == qps[FUZZ_QP_RC]->qp_num ||
					   wc[i].qp_num == qps[FUZZ_QP_UC]->qp_num);
			else
				FUZZ_CHECK(wc[i].qp_num == qps[owner[wc[i].wr_id]]->qp_num);
			*done |= RTE_BIT32(wc[i].wr_id);
		}
	}
}

/*
 * The QPs' fatal events (a QP the engine moved to ERR), each acknowledged;
 * in SRQ mode also the SRQ's limit and its QPs' Last WQE Reached, counted.
 */
static void
drain_async_events(void)
{
	struct ibv_async_event ev;
	unsigned int i;
	int rc;

	while ((rc = rte_roce_get_async_event(env.s[0].ctx, &ev)) == 0) {
		if (srq_mode && ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED) {
			FUZZ_CHECK(ev.element.srq == srq);
			srq_limit_events++;
		} else {
			FUZZ_CHECK(ev.event_type == IBV_EVENT_QP_FATAL ||
				   (srq_mode && ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED));
			for (i = FUZZ_QP_RC; i < FUZZ_NB_QP && qps[i] != ev.element.qp; i++)
				;
			FUZZ_CHECK(i < FUZZ_NB_QP);
			if (ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED)
				FUZZ_CHECK(i != FUZZ_QP_UD && last_wqe_events[i]++ == 0);
		}
		FUZZ_CHECK(rte_roce_ack_async_event(&ev) == 0);
	}
	FUZZ_CHECK(rc == -EAGAIN);
}

/*
 * SRQ mode, after the flush: every SRQ WQE completed once or is still in
 * the SRQ; the limit event came once if two or more were taken (fewer
 * than FUZZ_SRQ_LIMIT left), else never (IBA 10.2.9 and ibv_modify_srq(3)).
 */
static void
srq_check(uint32_t done)
{
	unsigned int taken = (unsigned int)__builtin_popcount(done & WR_SRQ_MASK);

	FUZZ_CHECK(roce_queue_count(&roce_srq_of(srq)->rq) == FUZZ_SRQ_WR - taken);
	FUZZ_CHECK(srq_limit_events == (FUZZ_SRQ_WR - taken < FUZZ_SRQ_LIMIT ? 1u : 0u));
}

/* A receives the frame and does what it calls for. */
static void
deliver(const uint8_t *frame, uint32_t len)
{
	struct rte_mbuf *m = roce_test_frame(frame, len);

	FUZZ_CHECK(m != NULL);
	FUZZ_CHECK(rte_ring_enqueue(env.pair->ring[0], m) == 0);
	pump(FUZZ_POLLS);
}

/*
 * A SEND with Invalidate aimed at the MR invalidates it (roce_resp.c
 * resp_invalidate): the input did what it may, but the next input must
 * find its MR valid again, registered anew (its keys change).
 */
static void
mr_restore(void)
{
	if (__atomic_load_n(&roce_mr_of(mr)->state, __ATOMIC_SEQ_CST) == ROCE_MR_STATE_VALID)
		return;
	FUZZ_CHECK(rte_roce_dereg_mr(mr) == 0);
	mr = rte_roce_reg_mr(env.s[0].pd, mr_buf, FUZZ_MR_LEN, ROCE_TEST_ALL_ACCESS);
	FUZZ_CHECK(mr != NULL);
	mr_renewed++;
}

/* Time passes for A: its timers (ACK timeout, RNR wait) run as they fall due. */
static void
advance_clock(unsigned int steps)
{
	struct roce_timer_wheel *w = &roce_dev_of(env.s[0].ctx)->lanes[0].timers;
	unsigned int i;

	for (i = 0; i < steps; i++) {
		w->tsc_origin -= w->tsc_hz * FUZZ_STEP_US / US_PER_S;
		pump(1);
	}
}

static void
play(const struct record *r)
{
	advance_clock(r->ctrl[2] >> CTRL_STEPS_SHIFT);
	if (r->len == 0)
		return;
	deliver(r->frame, r->len);
	if ((r->ctrl[2] & CTRL_TWICE) != 0)
		deliver(r->frame, r->len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t posted, done = 0;
	unsigned int i, n;

	/* Every input starts with the MR valid (mr_restore() after the last). */
	FUZZ_CHECK(__atomic_load_n(&roce_mr_of(mr)->state, __ATOMIC_SEQ_CST) ==
		   ROCE_MR_STATE_VALID);
	n = split_records(data, size);
	if (n == 0)
		return -1;	/* not added to the corpus */
	srq_limit_events = 0;
	memset(last_wqe_events, 0, sizeof(last_wqe_events));
	posted = post_wrs(records[0].ctrl);
	pump(1);	/* the requests leave: the completer waits for their responses */
	for (i = 0; i < n; i++) {
		play(&records[i]);
		reap(posted, &done);
	}
	/* Every WR completes or flushes exactly once (IBA 10.3.1, 10.8.3); the SRQ's stay. */
	qps_set_state(IBV_QPS_ERR);
	for (i = 0; i < FUZZ_FLUSH_POLLS && (done | WR_SRQ_MASK) != (posted | WR_SRQ_MASK); i++) {
		pump(1);
		reap(posted, &done);
	}
	pump(1);
	reap(posted, &done);
	FUZZ_CHECK((done | WR_SRQ_MASK) == (posted | WR_SRQ_MASK));
	drain_async_events();
	qps_set_state(IBV_QPS_RESET);
	if (srq_mode) {
		srq_check(done);
		srq_qps_destroy();
		srq_qps_create();
	}
	qps_ready();
	pump(FUZZ_POLLS);
	roce_test_pair_drain(env.pair);
	FUZZ_CHECK(rte_mempool_in_use_count(roce_test_mbuf_pool()) == pool_baseline);
	mr_restore();
	return 0;
}
