/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * FLUSH and ATOMIC_WRITE (IBA annex A19) end to end: two librte_roce
 * devices over a net_ring pair, one thread. Each operation completes with
 * its opcode and stores or flushes what it should; every rule that refuses
 * one is hit once (access flags of the MR and of the QP, bounds with the
 * bytes around the target unchanged, alignment, malformed FETH and RETH,
 * misuse at post time); a duplicate is answered from the responder's
 * resource and never executed again, also when a loss makes the requester
 * retry an ATOMIC_WRITE that a later WRITE already overwrote.
 *
 * Both ends are librte_roce; against kernel rxe (Linux 6.2 and later) they
 * run in the interop lab's 6.12 guest (doc/interop.md), FLUSH only with
 * quirk_rxe_flush_icrc, whose frame is checked here.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ring.h>

#include <rte_roce.h>

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_inject.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#define FLUSH_ACCESS	(RTE_ROCE_ACCESS_FLUSH_GLOBAL | RTE_ROCE_ACCESS_FLUSH_PERSISTENT)
#define TARGET_OFF	(ROCE_TEST_BUF_LEN / 2)	/* the second MR's start in b's buffer */
#define TARGET_LEN	(64u << 10)		/* the second MR's length */
#define WORD_OFF	256			/* 8-aligned word in it */
#define TIMEOUT_FAST	8			/* 4.096 us << 8 = 1 ms */

/* The test's connection: every remote right on the QPs, FLUSH included. */
static struct roce_test_conf
a19_conf(void)
{
	struct roce_test_conf c = roce_test_default_conf;

	c.qp_access |= FLUSH_ACCESS;
	return c;
}

/* A second MR on b over [TARGET_OFF, +TARGET_LEN) with access; canaries just outside it. */
static struct ibv_mr *
target_mr(struct roce_test_env *e, int access)
{
	uint8_t *base = e->s[1].buf + TARGET_OFF;

	memset(base - ROCE_TEST_CANARY_LEN, ROCE_TEST_CANARY, ROCE_TEST_CANARY_LEN);
	memset(base + TARGET_LEN, ROCE_TEST_CANARY, ROCE_TEST_CANARY_LEN);
	return rte_roce_reg_mr(e->s[1].pd, base, TARGET_LEN, access);
}

/* The bytes just outside the second MR are untouched. */
static int
canaries_intact(struct roce_test_env *e)
{
	const uint8_t *base = e->s[1].buf + TARGET_OFF;
	unsigned int i;

	for (i = 0; i < ROCE_TEST_CANARY_LEN; i++) {
		ROCE_TEST_ASSERT_EQ(base[-1 - (int)i], ROCE_TEST_CANARY, "canary before, byte %u", i);
		ROCE_TEST_ASSERT_EQ(base[TARGET_LEN + i], ROCE_TEST_CANARY, "canary after, byte %u", i);
	}
	return 0;
}

static int
post_flush(struct ibv_qp *qp, uint64_t wr_id, uint32_t rkey, uint64_t addr, uint32_t len,
	   uint8_t type, uint8_t level)
{
	struct ibv_send_wr wr = { .wr_id = wr_id, .send_flags = IBV_SEND_SIGNALED }, *bad;

	ROCE_TEST_ASSERT_EQ(rte_roce_wr_flush(&wr, rkey, addr, len, type, level), 0, "wr_flush");
	ROCE_TEST_ASSERT_EQ(rte_roce_post_send(qp, &wr, &bad), 0, "post FLUSH");
	return 0;
}

/* The next send completion of a: wr_id, status, opcode (success only), byte_len. */
static int
expect_wc(struct roce_test_env *e, uint64_t wr_id, enum ibv_wc_status status,
	  enum ibv_wc_opcode opcode, uint32_t byte_len)
{
	struct ibv_wc wc;

	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, e->s[0].scq, &wc, 1), 1, "completion %lu",
			    (unsigned long)wr_id);
	return roce_test_check_wc(&wc, wr_id, status, opcode, byte_len, e->qp[0][0]->qp_num);
}

/* A connection, the hand-made requests to b, and the second MR on b with FLUSH rights. */
struct fixture {
	struct roce_test_env e;
	struct roce_test_inject in;
	struct ibv_mr *mr;
};

/* Open f with conf c (b's MR with every right), run body(f, arg), close. */
static int
fixture_run(const struct roce_test_conf *c, bool inject, int (*body)(struct fixture *, int),
	    int arg)
{
	struct fixture f = { .mr = NULL };
	int ret;

	ret = roce_test_env_open(&f.e, c, 1);
	if (ret == 0 && inject)
		ret = roce_test_inject_init(&f.in, &f.e);
	if (ret == 0)
		f.mr = target_mr(&f.e, ROCE_TEST_ALL_ACCESS | FLUSH_ACCESS);
	if (ret == 0)
		ret = f.mr != NULL ? body(&f, arg) : -1;
	if (f.mr != NULL)
		ret |= rte_roce_dereg_mr(f.mr);
	return roce_test_env_close(&f.e) | ret;
}

/* ATOMIC_WRITE from an SGE and inline: the 8 bytes as given, nothing around them. */
static int
test_atomic_write(void)
{
	static const uint8_t value[2][8] = { { 1, 2, 3, 4, 5, 6, 7, 8 }, { 9, 9, 9, 9, 0, 0, 0, 1 } };
	struct roce_test_conf c = a19_conf();
	struct roce_test_env e;
	struct ibv_mr *mr = NULL;
	uint8_t *word, *src;
	int pass, ret;

	ret = roce_test_env_open(&e, &c, 1);
	if (ret == 0)
		mr = target_mr(&e, ROCE_TEST_ALL_ACCESS);
	if (ret == 0 && mr == NULL)
		ret = -1;
	word = e.s[1].buf + TARGET_OFF + WORD_OFF;
	src = e.s[0].buf + ROCE_TEST_DATA_OFF;
	for (pass = 0; ret == 0 && pass < 2; pass++) {
		memset(word - 8, ROCE_TEST_CANARY, 24);
		memcpy(src, value[pass], 8);
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_ATOMIC_WRITE, pass, src, 8,
					  e.s[0].mr->lkey, (uintptr_t)word, mr->rkey,
					  IBV_SEND_SIGNALED | (pass == 1 ? IBV_SEND_INLINE : 0));
		if (ret == 0)
			ret = expect_wc(&e, pass, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, 8);
		if (ret == 0 && (memcmp(word, value[pass], 8) != 0 ||
				 word[-1] != ROCE_TEST_CANARY || word[8] != ROCE_TEST_CANARY)) {
			printf("#   pass %d: target or its neighbours wrong\n", pass);
			ret = -1;
		}
	}
	if (ret == 0)
		ret = canaries_intact(&e);
	if (mr != NULL)
		ret |= rte_roce_dereg_mr(mr);
	return roce_test_env_close(&e) | ret;
}

/*
 * A WRITE of data then an ATOMIC_WRITE of a flag, and FLUSHes of every
 * placement type and selectivity after them: each completes in order with
 * its opcode, the data and flag are there (the ATOMIC_WRITE is not
 * executed before the WRITE, A19.4.2).
 */
static int
test_write_flag_flush(void)
{
	static const struct {
		uint8_t type;
		uint8_t level;
	} flushes[] = {
		{ RTE_ROCE_FLUSH_GLOBAL, RTE_ROCE_FLUSH_RANGE },
		{ RTE_ROCE_FLUSH_PERSISTENT, RTE_ROCE_FLUSH_RANGE },
		{ RTE_ROCE_FLUSH_GLOBAL | RTE_ROCE_FLUSH_PERSISTENT, RTE_ROCE_FLUSH_MR },
		{ RTE_ROCE_FLUSH_PERSISTENT, RTE_ROCE_FLUSH_MR },
	};
	const uint32_t len = 3000;
	struct roce_test_conf c = a19_conf();
	struct roce_test_env e;
	struct ibv_mr *mr = NULL;
	uint8_t *data, *src, *flag;
	uint64_t one = 1;
	unsigned int i;
	int ret;

	ret = roce_test_env_open(&e, &c, 1);
	if (ret == 0)
		mr = target_mr(&e, ROCE_TEST_ALL_ACCESS | FLUSH_ACCESS);
	if (ret == 0 && mr == NULL)
		ret = -1;
	data = e.s[1].buf + TARGET_OFF + 4096;
	flag = e.s[1].buf + TARGET_OFF + WORD_OFF;
	src = e.s[0].buf + ROCE_TEST_DATA_OFF;
	memset(flag, 0, 8);
	roce_test_fill(src, len, 19);
	memcpy(src + len + 8, &one, 8);
	if (ret == 0)
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_RDMA_WRITE, 1, src, len, e.s[0].mr->lkey,
					  (uintptr_t)data, mr->rkey, 0);
	if (ret == 0)
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_ATOMIC_WRITE, 2, src + len + 8, 8,
					  e.s[0].mr->lkey, (uintptr_t)flag, mr->rkey,
					  IBV_SEND_SIGNALED);
	for (i = 0; ret == 0 && i < RTE_DIM(flushes); i++)
		ret = post_flush(e.qp[0][0], 10 + i, mr->rkey, (uintptr_t)data, len,
				 flushes[i].type, flushes[i].level);
	if (ret == 0)
		ret = expect_wc(&e, 2, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, 8);
	for (i = 0; ret == 0 && i < RTE_DIM(flushes); i++)
		ret = expect_wc(&e, 10 + i, IBV_WC_SUCCESS, RTE_ROCE_WC_FLUSH, len);
	if (ret == 0) {
		ROCE_TEST_ASSERT(memcmp(data, src, len) == 0, "WRITE data");
		ROCE_TEST_ASSERT(memcmp(flag, &one, 8) == 0, "flag");
		ret = canaries_intact(&e) | roce_test_expect_quiet(&e, e.s[0].scq);
	}
	if (mr != NULL)
		ret |= rte_roce_dereg_mr(mr);
	return roce_test_env_close(&e) | ret;
}

/* How a refused operation is set up: rights of the MR and QP, target, operation. */
struct refusal {
	const char *name;
	int mr_access;
	int qp_access;
	bool flush;		/* else ATOMIC_WRITE */
	uint8_t type;
	uint8_t level;
	uint64_t off;		/* of the target from the MR's start */
	uint32_t len;
	enum ibv_wc_status status;
};

static const struct refusal refusals[] = {
	{ "ATOMIC_WRITE without REMOTE_WRITE on the MR", IBV_ACCESS_LOCAL_WRITE | FLUSH_ACCESS,
	  -1, false, 0, 0, WORD_OFF, 8, IBV_WC_REM_ACCESS_ERR },
	{ "ATOMIC_WRITE past the MR's end", -1, -1, false, 0, 0, TARGET_LEN, 8,
	  IBV_WC_REM_ACCESS_ERR },
	{ "ATOMIC_WRITE on a QP without REMOTE_WRITE", -1,
	  IBV_ACCESS_REMOTE_READ | FLUSH_ACCESS, false, 0, 0, WORD_OFF, 8, IBV_WC_REM_INV_REQ_ERR },
	{ "FLUSH on an MR without FLUSH rights", ROCE_TEST_ALL_ACCESS, -1, true,
	  RTE_ROCE_FLUSH_GLOBAL, RTE_ROCE_FLUSH_MR, 0, 0, IBV_WC_REM_ACCESS_ERR },
	{ "FLUSH PERSISTENT on an MR with GLOBAL only",
	  ROCE_TEST_ALL_ACCESS | RTE_ROCE_ACCESS_FLUSH_GLOBAL, -1, true,
	  RTE_ROCE_FLUSH_PERSISTENT, RTE_ROCE_FLUSH_RANGE, 0, 64, IBV_WC_REM_ACCESS_ERR },
	{ "FLUSH GLOBAL on an MR with PERSISTENT only",
	  ROCE_TEST_ALL_ACCESS | RTE_ROCE_ACCESS_FLUSH_PERSISTENT, -1, true,
	  RTE_ROCE_FLUSH_GLOBAL | RTE_ROCE_FLUSH_PERSISTENT, RTE_ROCE_FLUSH_MR, 0, 0,
	  IBV_WC_REM_ACCESS_ERR },
	{ "FLUSH of a range past the MR's end", -1, -1, true, RTE_ROCE_FLUSH_GLOBAL,
	  RTE_ROCE_FLUSH_RANGE, TARGET_LEN - 64, 128, IBV_WC_REM_ACCESS_ERR },
	{ "FLUSH on a QP without FLUSH rights", -1, ROCE_TEST_ALL_ACCESS & ~IBV_ACCESS_LOCAL_WRITE,
	  true, RTE_ROCE_FLUSH_GLOBAL, RTE_ROCE_FLUSH_RANGE, 0, 64, IBV_WC_REM_INV_REQ_ERR },
};

/* One refusal: the WR completes with its status, the target and its canaries are unchanged. */
static int
refusal_case(const struct refusal *r)
{
	struct roce_test_conf c = a19_conf();
	struct roce_test_env e;
	struct ibv_mr *mr = NULL;
	uint8_t *base, *src, before[TARGET_LEN > 4096 ? 4096 : TARGET_LEN];
	uint64_t addr;
	int ret;

	if (r->qp_access >= 0)
		c.qp_access = r->qp_access;
	ret = roce_test_env_open(&e, &c, 1);
	if (ret == 0)
		mr = target_mr(&e, r->mr_access >= 0 ? r->mr_access :
					   ROCE_TEST_ALL_ACCESS | FLUSH_ACCESS);
	if (ret == 0 && mr == NULL)
		ret = -1;
	base = e.s[1].buf + TARGET_OFF;
	addr = (uintptr_t)base + r->off;
	src = e.s[0].buf + ROCE_TEST_DATA_OFF;
	memset(src, 0x5a, 8);
	roce_test_fill(base + WORD_OFF, sizeof(before) - WORD_OFF, 3);
	memcpy(before, base, sizeof(before));
	if (ret == 0 && r->flush)
		ret = post_flush(e.qp[0][0], 1, mr->rkey, addr, r->len, r->type, r->level);
	else if (ret == 0)
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_ATOMIC_WRITE, 1, src, 8,
					  e.s[0].mr->lkey, addr, mr->rkey, IBV_SEND_SIGNALED);
	if (ret == 0)
		ret = expect_wc(&e, 1, r->status, 0, 0);
	if (ret == 0) {
		ROCE_TEST_ASSERT(memcmp(before, base, sizeof(before)) == 0, "target changed");
		ret = canaries_intact(&e);
	}
	if (ret != 0)
		printf("#   %s\n", r->name);
	if (mr != NULL)
		ret |= rte_roce_dereg_mr(mr);
	return roce_test_env_close(&e) | ret;
}

static int
test_refusals(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(refusals); i++)
		if (refusal_case(&refusals[i]) != 0)
			return -1;
	return 0;
}

/* A request hand-made to b, as a would send it. */
static int
inject_atomic_write(struct roce_test_inject *in, uint32_t psn, uint64_t va, uint32_t len,
		    const void *value)
{
	return roce_test_inject_reth(in, RTE_ROCE_OP_RC_ATOMIC_WRITE, psn, va, len, value,
				     RTE_ROCE_ATOMIC_WRITE_LEN);
}

/* A FLUSH of [start of mr, + len). */
static int
inject_flush(struct roce_test_inject *in, const struct ibv_mr *mr, uint32_t psn, uint32_t feth,
	     uint32_t len)
{
	struct rte_roce_pkt pkt;

	rte_roce_pkt_init(&pkt, RTE_ROCE_OP_RC_FLUSH);
	pkt.psn = psn;
	pkt.ackreq = true;
	pkt.feth = feth;
	pkt.reth.va = (uintptr_t)mr->addr;
	pkt.reth.rkey = mr->rkey;
	pkt.reth.len = len;
	return roce_test_inject_send(in, &pkt, NULL);
}

static int
inject_write(struct roce_test_inject *in, uint32_t psn, uint64_t va, const void *data)
{
	return roce_test_inject_reth(in, RTE_ROCE_OP_RC_RDMA_WRITE_ONLY, psn, va, 8, data, 8);
}

/* b's answer to a FLUSH or ATOMIC_WRITE: a READ_RESPONSE_ONLY of no data (K:rxe_resp.c). */
static int
expect_empty_read_resp(struct roce_test_inject *in, uint32_t psn)
{
	struct rte_roce_pkt pkt;

	ROCE_TEST_ASSERT_EQ(roce_test_inject_answer(in, &pkt, NULL), 0, "no answer");
	ROCE_TEST_ASSERT_EQ(pkt.opcode, RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, "opcode");
	ROCE_TEST_ASSERT_EQ(pkt.psn, psn, "PSN");
	ROCE_TEST_ASSERT_EQ(pkt.payload_len, 0, "length");
	ROCE_TEST_ASSERT_EQ(pkt.aeth.syndrome, RTE_ROCE_AETH_ACK_UNLIMITED, "syndrome");
	return 0;
}

/*
 * Duplicates answered from the resource: an ATOMIC_WRITE, then a WRITE over
 * the same word, then the ATOMIC_WRITE again (a retry that lost its
 * answer): answered again, the WRITE's value stays. A FLUSH and its
 * duplicate: answered twice, the duplicate counted.
 */
static int
duplicates(struct fixture *f, int arg __rte_unused)
{
	struct roce_test_inject *in = &f->in;
	const struct ibv_mr *mr = f->mr;
	static const uint8_t first[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	static const uint8_t later[8] = { 2, 2, 2, 2, 2, 2, 2, 2 };
	uint8_t *word = in->e->s[1].buf + WORD_OFF;
	uint32_t psn = in->epsn;
	struct rte_roce_stats st;

	if (inject_atomic_write(in, psn, (uintptr_t)word, 8, first) != 0 ||
	    expect_empty_read_resp(in, psn) != 0 ||
	    inject_write(in, psn + 1, (uintptr_t)word, later) != 0 ||
	    roce_test_expect_ack(in, RTE_ROCE_OP_RC_ACKNOWLEDGE, RTE_ROCE_AETH_ACK_UNLIMITED,
				 psn + 1) != 0 ||
	    inject_atomic_write(in, psn, (uintptr_t)word, 8, first) != 0 ||
	    expect_empty_read_resp(in, psn) != 0)
		return -1;
	ROCE_TEST_ASSERT(memcmp(word, later, 8) == 0, "the duplicate ATOMIC_WRITE executed again");
	if (inject_flush(in, mr, psn + 2, RTE_ROCE_FETH_PLT_GLOBAL, 64) != 0 ||
	    expect_empty_read_resp(in, psn + 2) != 0 ||
	    inject_flush(in, mr, psn + 2, RTE_ROCE_FETH_PLT_GLOBAL, 64) != 0 ||
	    expect_empty_read_resp(in, psn + 2) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_qp_stats_get(in->e->qp[1][0], &st), 0, "stats");
	ROCE_TEST_ASSERT_EQ(st.duplicate_request, 2, "duplicates answered");
	return 0;
}

static int
test_injected_duplicates(void)
{
	struct roce_test_conf c = a19_conf();

	return fixture_run(&c, true, duplicates, 0);
}

/* Malformed requests: NAK invalid request with their PSN, the responder's QP to ERR. */
enum malformed {
	MAL_MISALIGNED,		/* ATOMIC_WRITE at an address not 8-byte aligned */
	MAL_RETH_LEN,		/* ATOMIC_WRITE whose RETH length is not 8 */
	MAL_NO_PLACEMENT,	/* FLUSH asking no placement type */
	MAL_PLACEMENT,		/* FLUSH with an unknown placement type bit */
	MAL_SELECTIVITY,	/* FLUSH with selectivity 2 */
	MAL_RANGE_LEN,		/* FLUSH of more than 2^31 bytes */
	MAL_MAX
};

static int
malformed(struct fixture *f, int k)
{
	struct roce_test_inject *in = &f->in;
	const struct ibv_mr *mr = f->mr;
	static const uint8_t value[8] = { 7, 7, 7, 7, 7, 7, 7, 7 };
	uint8_t *word = in->e->s[1].buf + WORD_OFF, before[16];
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	uint32_t psn = in->epsn;
	int ret;

	memcpy(before, word, sizeof(before));
	switch (k) {
	case MAL_MISALIGNED:
		ret = inject_atomic_write(in, psn, (uintptr_t)word + 4, 8, value);
		break;
	case MAL_RETH_LEN:
		ret = inject_atomic_write(in, psn, (uintptr_t)word, 16, value);
		break;
	case MAL_NO_PLACEMENT:
		ret = inject_flush(in, mr, psn, RTE_ROCE_FETH_SEL_MR, 64);
		break;
	case MAL_PLACEMENT:
		ret = inject_flush(in, mr, psn, RTE_ROCE_FETH_PLT_GLOBAL | 0x4, 64);
		break;
	case MAL_SELECTIVITY:
		ret = inject_flush(in, mr, psn, RTE_ROCE_FETH_PLT_GLOBAL |
				   2 << RTE_ROCE_FETH_SEL_SHIFT, 64);
		break;
	default:
		ret = inject_flush(in, mr, psn, RTE_ROCE_FETH_PLT_GLOBAL, (1u << 31) + 1);
		break;
	}
	if (ret != 0 || roce_test_expect_ack(in, RTE_ROCE_OP_RC_ACKNOWLEDGE,
					     RTE_ROCE_AETH_NAK_INV_REQ, psn) != 0)
		return -1;
	ROCE_TEST_ASSERT(memcmp(before, word, sizeof(before)) == 0, "memory written");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(in->e->qp[1][0], &attr, IBV_QP_STATE, &init), 0,
			    "query");
	ROCE_TEST_ASSERT_EQ(attr.qp_state, IBV_QPS_ERR, "responder QP state");
	return 0;
}

static int
test_injected_malformed(void)
{
	struct roce_test_conf c = a19_conf();
	int k;

	for (k = 0; k < MAL_MAX; k++) {
		if (fixture_run(&c, true, malformed, k) != 0) {
			printf("#   malformed case %d\n", k);
			return -1;
		}
	}
	return 0;
}

/*
 * Loss: an ATOMIC_WRITE and a WRITE of the same word go out; both answers
 * are dropped. The requester's timer resends both: the responder answers
 * the ATOMIC_WRITE from its resource (not stored again over the WRITE's
 * value) and ACKs the WRITE again. Then a FLUSH whose request is dropped:
 * resent, executed once.
 */
static int
retry_after_loss(struct fixture *f, int arg __rte_unused)
{
	struct roce_test_env *e = &f->e;
	const struct ibv_mr *mr = f->mr;
	uint8_t *word = e->s[1].buf + WORD_OFF, *src = e->s[0].buf + ROCE_TEST_DATA_OFF;
	struct ibv_qp *qp = e->qp[0][0];
	uint32_t lkey = e->s[0].mr->lkey, rkey = e->s[1].mr->rkey;
	struct rte_roce_stats st;
	uint64_t end;

	memset(src, 1, 8);
	memset(src + 8, 2, 8);
	if (roce_test_warm_up(e) != 0 ||
	    roce_test_post_send(qp, IBV_WR_ATOMIC_WRITE, 1, src, 8, lkey, (uintptr_t)word, rkey,
				IBV_SEND_SIGNALED) != 0 ||
	    roce_test_post_send(qp, IBV_WR_RDMA_WRITE, 2, src + 8, 8, lkey, (uintptr_t)word, rkey,
				IBV_SEND_SIGNALED) != 0 ||
	    roce_test_frames_to_b(e, 2) != 0)
		return -1;
	/* b executes both; its two answers are dropped before a sees them. */
	end = roce_test_ms() + ROCE_TEST_WAIT_MS;
	while (rte_ring_count(roce_test_verbs_pair.ring[0]) < 2 && roce_test_ms() < end)
		rte_roce_poll(e->s[1].ctx);
	ROCE_TEST_ASSERT_EQ(rte_ring_count(roce_test_verbs_pair.ring[0]), 2, "b's answers");
	if (roce_test_drop_frames(0, 0x3) != 0 ||
	    expect_wc(e, 1, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, 8) != 0 ||
	    expect_wc(e, 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 8) != 0)
		return -1;
	ROCE_TEST_ASSERT(memcmp(word, src + 8, 8) == 0,
			 "the retried ATOMIC_WRITE overwrote the later WRITE");
	if (post_flush(qp, 3, mr->rkey, 0, 0, RTE_ROCE_FLUSH_GLOBAL, RTE_ROCE_FLUSH_MR) != 0 ||
	    roce_test_frames_to_b(e, 1) != 0 || roce_test_drop_frames(1, 0x1) != 0 ||
	    expect_wc(e, 3, IBV_WC_SUCCESS, RTE_ROCE_WC_FLUSH, 0) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_qp_stats_get(e->qp[1][0], &st), 0, "stats");
	ROCE_TEST_ASSERT_EQ(st.duplicate_request, 2, "ATOMIC_WRITE and WRITE answered again");
	ROCE_TEST_ASSERT_EQ(rte_roce_qp_stats_get(qp, &st), 0, "stats");
	ROCE_TEST_ASSERT_EQ(st.local_ack_timeout_err, 2, "two timeouts");
	return 0;
}

static int
test_retry_after_loss(void)
{
	struct roce_test_conf c = a19_conf();

	c.timeout = TIMEOUT_FAST;
	return fixture_run(&c, false, retry_after_loss, 0);
}

/*
 * The FLUSH in ring r (a's only frame): its ICRC is rxe's (quirk_rxe_flush_icrc),
 * not IBA A17's; the frame goes back on the ring.
 */
static int
flush_has_rxe_icrc(unsigned int r)
{
	struct rte_ring *ring = roce_test_verbs_pair.ring[r];
	struct rte_roce_pkt pkt;
	struct rte_mbuf *m;
	const uint8_t *f;
	uint32_t stored, len;

	ROCE_TEST_ASSERT_EQ(rte_ring_dequeue(ring, (void **)&m), 0, "a's frame");
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_parse(f, rte_pktmbuf_data_len(m), UINT16_MAX, &pkt),
			    RTE_ROCE_DROP_NONE, "parse");
	ROCE_TEST_ASSERT_EQ(pkt.opcode, RTE_ROCE_OP_RC_FLUSH, "opcode");
	len = pkt.icrc_off - pkt.l3_off;
	memcpy(&stored, f + pkt.icrc_off, sizeof(stored));
	ROCE_TEST_ASSERT_EQ(rte_le_to_cpu_32(stored), rte_roce_icrc_calc_rxe_flush(f + pkt.l3_off, len),
			    "rxe's ICRC");
	ROCE_TEST_ASSERT(rte_roce_icrc_check(f + pkt.l3_off, len) != 0, "IBA's ICRC too");
	ROCE_TEST_ASSERT_EQ(rte_ring_enqueue(ring, m), 0, "requeue");
	return 0;
}

/*
 * a with quirk_rxe_flush_icrc: its other frames are as ever (the warm-up
 * SEND and a WRITE complete), its FLUSH carries rxe's ICRC, which b, a
 * conformant receiver, drops and counts: the FLUSH ends in a retry error.
 */
static int
rxe_flush_icrc(struct fixture *f, int arg __rte_unused)
{
	struct roce_test_env *e = &f->e;
	uint8_t *src = e->s[0].buf + ROCE_TEST_DATA_OFF;
	struct rte_roce_port_stats ps;
	uint64_t icrc_drops;

	ROCE_TEST_ASSERT_EQ(rte_roce_port_stats_get(e->s[1].port, &ps), 0, "b's stats");
	icrc_drops = ps.roce_drops[RTE_ROCE_DROP_ICRC];
	if (roce_test_warm_up(e) != 0 ||
	    roce_test_post_send(e->qp[0][0], IBV_WR_RDMA_WRITE, 1, src, 64, e->s[0].mr->lkey,
				(uintptr_t)e->s[1].buf + WORD_OFF, e->s[1].mr->rkey,
				IBV_SEND_SIGNALED) != 0 ||
	    expect_wc(e, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 64) != 0 ||
	    post_flush(e->qp[0][0], 2, f->mr->rkey, 0, 0, RTE_ROCE_FLUSH_GLOBAL,
		       RTE_ROCE_FLUSH_MR) != 0 ||
	    roce_test_frames_to_b(e, 1) != 0 || flush_has_rxe_icrc(1) != 0 ||
	    expect_wc(e, 2, IBV_WC_RETRY_EXC_ERR, 0, 0) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_port_stats_get(e->s[1].port, &ps), 0, "b's stats");
	ROCE_TEST_ASSERT(ps.roce_drops[RTE_ROCE_DROP_ICRC] > icrc_drops,
			 "b counted no ICRC drop");
	return 0;
}

static int
test_rxe_flush_icrc(void)
{
	const struct rte_roce_dev_conf quirk = { .quirk_rxe_flush_icrc = true };
	struct roce_test_conf c = a19_conf();

	c.dev_conf[0] = &quirk;
	c.timeout = TIMEOUT_FAST;
	c.retry_cnt = 1;
	return fixture_run(&c, false, rxe_flush_icrc, 0);
}

/* rte_roce_wr_flush() refuses the arguments: -EINVAL, and the log says why. */
static int
wr_flush_fails(uint32_t len, uint8_t type, uint8_t level, const char *why)
{
	struct ibv_send_wr wr = { .wr_id = 1 };
	size_t pos = roce_test_log_pos();

	ROCE_TEST_ASSERT_EQ(rte_roce_wr_flush(&wr, 1, 0, len, type, level), -EINVAL, "%s", why);
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "FLUSH"), "%s: not logged", why);
	return 0;
}

/* post_send refuses wr: -EINVAL, bad_wr, the log says why, nothing completes. */
static int
post_fails(struct roce_test_env *e, struct ibv_qp *qp, struct ibv_send_wr *wr, const char *why)
{
	struct ibv_send_wr *bad = NULL;
	size_t pos = roce_test_log_pos();

	ROCE_TEST_ASSERT(rte_roce_post_send(qp, wr, &bad) == -EINVAL && bad == wr, "%s", why);
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "bad"), "%s: not logged", why);
	return roce_test_expect_quiet(e, e->s[0].scq);
}

/* An ATOMIC_WRITE WR of one 8-byte SGE to an aligned address, or a FLUSH of 64 bytes. */
static void
misuse_wr(struct ibv_send_wr *wr, struct ibv_sge *sge, bool flush)
{
	memset(wr, 0, sizeof(*wr));
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = IBV_WR_ATOMIC_WRITE;
	wr->wr.rdma.remote_addr = 64;
	if (flush)
		(void)rte_roce_wr_flush(wr, 1, 0, 64, RTE_ROCE_FLUSH_GLOBAL, RTE_ROCE_FLUSH_RANGE);
}

static int
post_misuse(struct roce_test_env *e)
{
	struct ibv_sge sge = { (uintptr_t)e->s[0].buf, 8, e->s[0].mr->lkey };
	struct ibv_qp *qp = e->qp[0][0];
	struct ibv_send_wr wr;

	ROCE_TEST_ASSERT_EQ(rte_roce_wr_flush(NULL, 1, 0, 0, RTE_ROCE_FLUSH_GLOBAL,
					      RTE_ROCE_FLUSH_MR), -EINVAL, "NULL wr");
	if (wr_flush_fails(64, 0, RTE_ROCE_FLUSH_RANGE, "no placement type") != 0 ||
	    wr_flush_fails(64, 4, RTE_ROCE_FLUSH_RANGE, "unknown placement type") != 0 ||
	    wr_flush_fails(64, RTE_ROCE_FLUSH_GLOBAL, 2, "unknown selectivity") != 0 ||
	    wr_flush_fails((1u << 31) + 1, RTE_ROCE_FLUSH_GLOBAL, RTE_ROCE_FLUSH_RANGE,
			   "length") != 0)
		return -1;
	misuse_wr(&wr, &sge, false);
	wr.wr.rdma.remote_addr = 4;
	if (post_fails(e, qp, &wr, "misaligned ATOMIC_WRITE") != 0)
		return -1;
	misuse_wr(&wr, &sge, false);
	sge.length = 4;
	if (post_fails(e, qp, &wr, "ATOMIC_WRITE of 4 bytes") != 0)
		return -1;
	sge.length = 8;
	misuse_wr(&wr, &sge, true);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (post_fails(e, qp, &wr, "FLUSH with an SGE") != 0)
		return -1;
	misuse_wr(&wr, &sge, true);
	wr.wr.atomic.swap |= 0x100;
	if (post_fails(e, qp, &wr, "FLUSH with reserved FETH bits") != 0)
		return -1;
	misuse_wr(&wr, &sge, true);
	wr.send_flags = IBV_SEND_INLINE;
	if (post_fails(e, qp, &wr, "inline FLUSH") != 0)
		return -1;
	/* UC takes neither (IBA A19: RC only). */
	misuse_wr(&wr, &sge, false);
	if (post_fails(e, e->qp[0][1], &wr, "ATOMIC_WRITE on UC") != 0)
		return -1;
	misuse_wr(&wr, &sge, true);
	return post_fails(e, e->qp[0][1], &wr, "FLUSH on UC");
}

/* Misuse at post time, on an RC QP pair and a UC one. */
static int
test_post_misuse(void)
{
	struct roce_test_conf c = a19_conf(), uc = c;
	struct roce_test_env e;
	int ret;

	uc.qp_type = IBV_QPT_UC;
	uc.qp_access = IBV_ACCESS_REMOTE_WRITE;
	if (roce_test_log_capture() != 0)
		return -1;
	ret = roce_test_env_open(&e, &c, 1);
	if (ret == 0)
		ret = roce_test_qp_create(&e.s[0], IBV_QPT_UC, &e.qp[0][1]) |
		      roce_test_qp_create(&e.s[1], IBV_QPT_UC, &e.qp[1][1]);
	if (ret == 0) {
		e.nqps = 2;
		ret = roce_test_pair_connect(&e, 1, &uc);
	}
	if (ret == 0)
		ret = post_misuse(&e);
	ret |= roce_test_env_close(&e);
	roce_test_log_release();
	return ret;
}

static const struct roce_test_case cases[] = {
	{ "atomic_write_sge_and_inline", test_atomic_write },
	{ "write_then_flag_then_flush_every_kind", test_write_flag_flush },
	{ "refused_access_bounds_rights", test_refusals },
	{ "duplicates_answered_not_executed", test_injected_duplicates },
	{ "malformed_requests_nak_invalid", test_injected_malformed },
	{ "retry_after_loss_executes_once", test_retry_after_loss },
	{ "quirk_rxe_flush_icrc_frame_dropped_by_us", test_rxe_flush_icrc },
	{ "post_misuse_refused_rc_and_uc", test_post_misuse },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&roce_test_verbs_pair, "a19") != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
