/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * UC and UD end to end: two librte_roce devices in one process over a
 * net_ring pair (tests/common/roce_test_verbs.h), both driven from this
 * thread.
 *
 * UC: every opcode and multi-packet sizes, the opcodes UC refuses, and the
 * receive rules of IBA 9.7.5.1.x on a PSN gap or a missing FIRST (frames
 * dropped by hand from the ring): the broken message gives no completion,
 * what a broken WRITE placed stays, the next message is delivered.
 *
 * UD: SEND and SEND_WITH_IMM over IPv4 and IPv6 with the GRH checked byte
 * for byte (and the IPv4 checksum as ibv_init_ah_from_wc() checks it), the
 * completion's fields, Q_Key rules, oversize posts, address handle errors,
 * multicast to three attached QPs and to none after detach, and QP1.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <rte_roce.h>

/* The engine's counters. */
#include "roce_dev.h"

#include "roce_test.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#define MTU		1024		/* net_ring's 1500-byte MTU gives IB MTU 1024 */
#define QKEY		0x11111111u	/* ibv_ud_pingpong's */
#define OTHER_QKEY	0x22222222u
#define UD_OFF		4096		/* receive buffers of UD tests */
#define NB_MCAST_QPS	3
#define MCAST_GROUP	"239.1.2.3"
#define MCAST_GROUP6	"ff0e::1:2:3"
#define UDP_PROTO	17
#define GRH_TTL		64
#define IPV6_VERSION	6
#define IPV4_CKSUM_OK	0xffff
#define PKT_SEND_LEN	3000		/* three packets at MTU 1024 */

static const enum ibv_wr_opcode uc_ops[] = {
	IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM,
};

static const uint32_t uc_sizes[] = { 0, 1, MTU - 1, MTU, MTU + 1, 3 * MTU, 10000 };

static const struct roce_test_conf *
uc_conf(bool ipv6)
{
	static struct roce_test_conf c;

	c = roce_test_default_conf;
	c.qp_type = IBV_QPT_UC;
	c.qp_access = IBV_ACCESS_REMOTE_WRITE;
	c.ipv6 = ipv6;
	return &c;
}

static uint64_t
drops(struct roce_test_env *e, unsigned int side, enum roce_rx_drop why)
{
	return roce_test_xstats(&e->s[side])->rx_drops[why];
}

/* ---- UC ---- */

static int
uc_ops_both_ways(bool ipv6)
{
	struct roce_test_env e;
	unsigned int o, z, from, seed = 1;
	int ret;

	ret = roce_test_env_open(&e, uc_conf(ipv6), 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	for (o = 0; ret == 0 && o < RTE_DIM(uc_ops); o++)
		for (z = 0; ret == 0 && z < RTE_DIM(uc_sizes); z++)
			for (from = 0; ret == 0 && from < 2; from++)
				ret = roce_test_transfer(&e, from, 0, uc_ops[o], uc_sizes[z],
							 ROCE_TEST_DATA_OFF, seed++);
	/* Nothing acknowledges UC: no ACK ever went the other way. */
	if (ret == 0)
		ret = roce_test_expect_quiet(&e, e.s[0].rcq);
	return roce_test_env_close(&e) | ret;
}

static int
test_uc_ops(void)
{
	return uc_ops_both_ways(false);
}

static int
test_uc_ops_ipv6(void)
{
	return uc_ops_both_ways(true);
}

/* READ, atomics and SEND_WITH_INV are RC only: refused at post. */
static int
test_uc_rejected_ops(void)
{
	static const enum ibv_wr_opcode refused[] = {
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_SEND_WITH_INV,
	};
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;
	struct roce_test_env e;
	unsigned int i;
	int ret;

	ret = roce_test_env_open(&e, uc_conf(false), 1);
	for (i = 0; ret == 0 && i < RTE_DIM(refused); i++) {
		sge = (struct ibv_sge){ .addr = (uintptr_t)e.s[0].buf, .length = 8,
					.lkey = e.s[0].mr->lkey };
		wr = (struct ibv_send_wr){ .wr_id = i, .sg_list = &sge, .num_sge = 1,
					   .opcode = refused[i], .send_flags = IBV_SEND_SIGNALED };
		bad = NULL;
		if (rte_roce_post_send(e.qp[0][0], &wr, &bad) != -EINVAL || bad != &wr) {
			printf("# opcode %d accepted on UC\n", refused[i]);
			ret = -1;
		}
	}
	if (ret == 0)
		ret = roce_test_expect_quiet(&e, e.s[0].scq);
	return roce_test_env_close(&e) | ret;
}

/*
 * A 3-packet message from a whose frames in drop_mask vanish: the send
 * completes anyway (UC has no ACK), the receiver gives no completion.
 */
static int
uc_broken_message(struct roce_test_env *e, enum ibv_wr_opcode op, uint64_t drop_mask)
{
	struct roce_test_side *a = &e->s[0], *b = &e->s[1];
	struct ibv_wc wc;

	roce_test_fill(a->buf + ROCE_TEST_DATA_OFF, PKT_SEND_LEN, 0x40);
	if (roce_test_post_send(e->qp[0][0], op, 100, a->buf + ROCE_TEST_DATA_OFF, PKT_SEND_LEN,
				a->mr->lkey, (uintptr_t)(b->buf + ROCE_TEST_DATA_OFF), b->mr->rkey,
				IBV_SEND_SIGNALED) != 0 ||
	    roce_test_frames_to_b(e, 3) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(a->scq, 1, &wc), 1, "send completed when sent");
	if (roce_test_check_wc(&wc, 100, IBV_WC_SUCCESS, roce_test_send_wc_opcode(op),
			       PKT_SEND_LEN, e->qp[0][0]->qp_num) != 0 ||
	    roce_test_drop_frames(1, drop_mask) != 0)
		return -1;
	return roce_test_expect_quiet(e, b->rcq);
}

/* The next whole message lands in the receive WQE the broken one left. */
static int
uc_next_message(struct roce_test_env *e, enum ibv_wr_opcode op, uint64_t recv_wr_id)
{
	struct roce_test_side *a = &e->s[0], *b = &e->s[1];
	const uint32_t len = MTU + 100;
	struct ibv_wc wc;

	roce_test_fill(a->buf + ROCE_TEST_DATA_OFF, len, 0x99);
	if (roce_test_post_send(e->qp[0][0], op, 101, a->buf + ROCE_TEST_DATA_OFF, len,
				a->mr->lkey, (uintptr_t)(b->buf + ROCE_TEST_DATA_OFF), b->mr->rkey,
				IBV_SEND_SIGNALED) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, b->rcq, &wc, 1), 1, "next message received");
	if (roce_test_check_recv_wc(&wc, op, recv_wr_id, len, e->qp[1][0], e->qp[0][0]) != 0)
		return -1;
	ROCE_TEST_ASSERT(memcmp(a->buf + ROCE_TEST_DATA_OFF, b->buf + ROCE_TEST_DATA_OFF, len) == 0,
			 "next message's data");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(e, a->scq, &wc, 1), 1, "next send completion");
	return 0;
}

/* A SEND loses its middle packet, then its first: dropped each time, the QP resynchronises. */
static int
test_uc_psn_gap_send(void)
{
	struct roce_test_env e;
	uint64_t before;
	int ret;

	ret = roce_test_env_open(&e, uc_conf(false), 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	if (ret == 0)
		ret = roce_test_post_recv(e.qp[1][0], 77, e.s[1].buf + ROCE_TEST_DATA_OFF,
					  2 * PKT_SEND_LEN, e.s[1].mr->lkey);
	before = drops(&e, 1, ROCE_RX_DROP_UC_MSG);
	/* FIRST arrives, MIDDLE is lost: LAST is a gap and is dropped. */
	if (ret == 0)
		ret = uc_broken_message(&e, IBV_WR_SEND, UINT64_C(1) << 1);
	if (ret == 0 && drops(&e, 1, ROCE_RX_DROP_UC_MSG) != before + 1)
		ret = printf("# gap not counted: %" PRIu64 "\n", drops(&e, 1, ROCE_RX_DROP_UC_MSG));
	/* FIRST is lost: MIDDLE and LAST are dropped (missing FIRST). */
	if (ret == 0)
		ret = uc_broken_message(&e, IBV_WR_SEND, UINT64_C(1) << 0);
	if (ret == 0 && drops(&e, 1, ROCE_RX_DROP_UC_MSG) != before + 3)
		ret = printf("# missing FIRST not counted\n");
	if (ret == 0)
		ret = uc_next_message(&e, IBV_WR_SEND, 77);
	return roce_test_env_close(&e) | (ret != 0 ? -1 : 0);
}

/* A WRITE_WITH_IMM loses its last packet: its first MTU stays written, no completion. */
static int
test_uc_psn_gap_write(void)
{
	struct roce_test_env e;
	uint8_t *dst;
	int ret;

	ret = roce_test_env_open(&e, uc_conf(false), 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	if (ret == 0)
		ret = roce_test_post_recv(e.qp[1][0], 78, NULL, 0, 0);
	dst = e.s[1].buf + ROCE_TEST_DATA_OFF;
	memset(dst, 0, PKT_SEND_LEN);
	if (ret == 0)
		ret = uc_broken_message(&e, IBV_WR_RDMA_WRITE_WITH_IMM, UINT64_C(1) << 1);
	if (ret == 0 && memcmp(dst, e.s[0].buf + ROCE_TEST_DATA_OFF, MTU) != 0)
		ret = printf("# the first packet's data was not placed\n");
	if (ret == 0 && (dst[MTU] != 0 || dst[PKT_SEND_LEN - 1] != 0))
		ret = printf("# data placed beyond the gap\n");
	if (ret == 0)
		ret = uc_next_message(&e, IBV_WR_RDMA_WRITE_WITH_IMM, 78);
	return roce_test_env_close(&e) | (ret != 0 ? -1 : 0);
}

/* A SEND with no receive WQE is dropped and counted; the QP goes on. */
static int
test_uc_no_recv_wqe(void)
{
	struct roce_test_env e;
	struct ibv_wc wc;
	int ret;

	ret = roce_test_env_open(&e, uc_conf(false), 1);
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	if (ret == 0)
		ret = roce_test_post_send(e.qp[0][0], IBV_WR_SEND, 5, e.s[0].buf, 100,
					  e.s[0].mr->lkey, 0, 0, IBV_SEND_SIGNALED);
	if (ret == 0 && roce_test_wait_wc(&e, e.s[0].scq, &wc, 1) != 1)
		ret = -1;
	if (ret == 0)
		ret = roce_test_expect_quiet(&e, e.s[1].rcq);
	if (ret == 0 && drops(&e, 1, ROCE_RX_DROP_NO_RECV_WQE) != 1)
		ret = printf("# missing receive WQE not counted\n");
	if (ret == 0)
		ret = roce_test_transfer(&e, 0, 0, IBV_WR_SEND, 2000, ROCE_TEST_DATA_OFF, 3);
	return roce_test_env_close(&e) | (ret != 0 ? -1 : 0);
}

/* ---- UD ---- */

/* Both sides, one UD QP each (e.qp[x][0], Q_Key QKEY) in RTS, and an AH from a to b. */
struct ud_env {
	struct roce_test_env e;
	struct ibv_ah *ah;	/* a -> b */
};

static int
ud_qp(struct roce_test_side *s, uint32_t qkey, struct ibv_qp **qp)
{
	if (roce_test_qp_create(s, IBV_QPT_UD, qp) != 0)
		return -1;
	return roce_test_ud_qp_ready(*qp, qkey);
}

static int
ud_open(struct ud_env *u, bool ipv6)
{
	struct roce_test_conf c = roce_test_default_conf;

	c.ipv6 = ipv6;
	memset(u, 0, sizeof(*u));
	if (roce_test_env_open(&u->e, &c, 0) != 0)
		return -1;
	u->e.nqps = 1;
	if (ud_qp(&u->e.s[0], QKEY, &u->e.qp[0][0]) != 0 ||
	    ud_qp(&u->e.s[1], QKEY, &u->e.qp[1][0]) != 0)
		return -1;
	u->ah = roce_test_ah_create(&u->e.s[0], ipv6 ? ROCE_TEST_ADDR6_B : ROCE_TEST_ADDR_B);
	return u->ah != NULL ? 0 : -1;
}

static int
ud_close(struct ud_env *u)
{
	int ret = 0;

	if (u->ah != NULL && rte_roce_destroy_ah(u->ah) != 0)
		ret = printf("# destroy_ah\n");
	return roce_test_env_close(&u->e) | (ret != 0 ? -1 : 0);
}

/* Post one UD send of len bytes at a's buf + off. */
static int
ud_post(struct ibv_qp *qp, struct ibv_ah *ah, enum ibv_wr_opcode op, uint64_t wr_id,
	struct roce_test_side *s, uint32_t off, uint32_t len, uint32_t remote_qpn, uint32_t qkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(s->buf + off), .length = len,
			       .lkey = s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = len > 0, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(ROCE_TEST_IMM),
	};
	struct ibv_send_wr *bad = NULL;
	int ret;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = remote_qpn;
	wr.wr.ud.remote_qkey = qkey;
	ret = rte_roce_post_send(qp, &wr, &bad);
	if (ret != 0 && bad != &wr)
		return printf("# bad_wr not set\n") > 0 ? -1 : -1;
	return ret;
}

/* The IPv4 checksum of a header is valid (as rdma-core's get_grh_header_version()). */
static bool
ipv4_cksum_ok(const void *hdr)
{
	const uint8_t *p = hdr;
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < sizeof(struct rte_ipv4_hdr); i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == IPV4_CKSUM_OK;
}

/* The GRH a UD receive must start with, byte for byte (doc/wire-format.md §9.2). */
static void
expected_grh(uint8_t grh[RTE_ROCE_GRH_LEN], const struct roce_test_side *src,
	     const union ibv_gid *dgid, uint32_t l4_len)
{
	union rte_roce_gid s, d;

	memcpy(s.raw, src->gid.raw, sizeof(s.raw));
	memcpy(d.raw, dgid->raw, sizeof(d.raw));
	memset(grh, 0, RTE_ROCE_GRH_LEN);
	if (rte_roce_gid_is_ipv4(&s)) {
		struct rte_ipv4_hdr ip = {
			.version_ihl = RTE_IPV4_VHL_DEF,
			.total_length = htons(sizeof(ip) + l4_len),
			.fragment_offset = htons(RTE_IPV4_HDR_DF_FLAG),
			.time_to_live = GRH_TTL,
			.next_proto_id = UDP_PROTO,
			.src_addr = rte_roce_gid_to_ipv4(&s),
			.dst_addr = rte_roce_gid_to_ipv4(&d),
		};

		ip.hdr_checksum = rte_ipv4_cksum(&ip);
		memcpy(grh + RTE_ROCE_GRH_LEN - sizeof(ip), &ip, sizeof(ip));
		return;
	}
	grh[0] = IPV6_VERSION << 4;
	*(uint16_t *)(grh + 4) = htons(l4_len);
	grh[6] = UDP_PROTO;
	grh[7] = GRH_TTL;
	memcpy(grh + 8, s.raw, sizeof(s.raw));
	memcpy(grh + 24, d.raw, sizeof(d.raw));
}

/* UDP length of a UD SEND: UDP, BTH, DETH, [ImmDt], payload, pad, ICRC. */
static uint32_t
ud_l4_len(enum ibv_wr_opcode op, uint32_t len)
{
	uint32_t imm = op == IBV_WR_SEND_WITH_IMM ? RTE_ROCE_IMMDT_LEN : 0;

	return RTE_ROCE_UDP_LEN + RTE_ROCE_BTH_LEN + RTE_ROCE_DETH_LEN + imm +
	       RTE_ALIGN_CEIL(len, 4) + RTE_ROCE_ICRC_LEN;
}

/* One UD SEND of len bytes from a's QP to qp on side `to`, received and checked. */
static int
ud_transfer(struct ud_env *u, struct ibv_ah *ah, struct ibv_qp *dqp, unsigned int nb_dqps,
	    enum ibv_wr_opcode op, uint32_t len, const union ibv_gid *dgid)
{
	struct roce_test_side *a = &u->e.s[0], *b = &u->e.s[1];
	struct ibv_qp **dqps = nb_dqps > 1 ? (struct ibv_qp **)dqp : &dqp;
	uint8_t grh[RTE_ROCE_GRH_LEN];
	struct ibv_wc wc;
	uint32_t slot = RTE_ROCE_GRH_LEN + len + ROCE_TEST_CANARY_LEN;
	unsigned int i;
	uint8_t *buf;

	roce_test_fill(a->buf + ROCE_TEST_DATA_OFF, len, len + op);
	for (i = 0; i < nb_dqps; i++) {
		buf = b->buf + UD_OFF + i * slot;
		memset(buf, 0xee, slot);
		if (roce_test_post_recv(dqps[i], 500 + i, buf, RTE_ROCE_GRH_LEN + len,
					b->mr->lkey) != 0)
			return -1;
	}
	ROCE_TEST_ASSERT_EQ(ud_post(u->e.qp[0][0], ah, op, 7, a, ROCE_TEST_DATA_OFF, len,
				    nb_dqps > 1 ? 0 : dqp->qp_num, QKEY), 0, "post UD send");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&u->e, a->scq, &wc, 1), 1, "UD send completion");
	if (roce_test_check_wc(&wc, 7, IBV_WC_SUCCESS, IBV_WC_SEND, len,
			       u->e.qp[0][0]->qp_num) != 0)
		return -1;
	expected_grh(grh, a, dgid, ud_l4_len(op, len));
	for (i = 0; i < nb_dqps; i++) {
		buf = b->buf + UD_OFF + i * slot;
		ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&u->e, b->rcq, &wc, 1), 1, "UD receive %u", i);
		if (roce_test_check_wc(&wc, 500 + i, IBV_WC_SUCCESS, IBV_WC_RECV,
				       RTE_ROCE_GRH_LEN + len, dqps[i]->qp_num) != 0)
			return -1;
		ROCE_TEST_ASSERT_EQ(wc.src_qp, u->e.qp[0][0]->qp_num, "src_qp");
		ROCE_TEST_ASSERT_EQ(wc.wc_flags & IBV_WC_GRH, IBV_WC_GRH, "IBV_WC_GRH");
		ROCE_TEST_ASSERT_EQ(wc.pkey_index + wc.sl + wc.slid + wc.dlid_path_bits, 0,
				    "pkey_index, sl, slid 0");
		if (op == IBV_WR_SEND_WITH_IMM) {
			ROCE_TEST_ASSERT_EQ(wc.wc_flags & IBV_WC_WITH_IMM, IBV_WC_WITH_IMM, "imm");
			ROCE_TEST_ASSERT_EQ(ntohl(wc.imm_data), ROCE_TEST_IMM, "imm_data");
		}
		for (uint32_t k = 0; k < RTE_ROCE_GRH_LEN; k++)
			ROCE_TEST_ASSERT_EQ(buf[k], grh[k], "GRH byte %u", k);
		if (rte_roce_gid_is_ipv4((const union rte_roce_gid *)a->gid.raw))
			ROCE_TEST_ASSERT(ipv4_cksum_ok(buf + RTE_ROCE_GRH_IPV4_OFF),
					 "IPv4 checksum of the GRH");
		ROCE_TEST_ASSERT(memcmp(buf + RTE_ROCE_GRH_LEN, a->buf + ROCE_TEST_DATA_OFF,
					len) == 0, "UD payload");
		ROCE_TEST_ASSERT_EQ(buf[RTE_ROCE_GRH_LEN + len], 0xee, "nothing after the message");
	}
	return 0;
}

static int
ud_send_recv(bool ipv6)
{
	static const uint32_t sizes[] = { 0, 1, 3, 100, MTU - 1, MTU };
	static const enum ibv_wr_opcode ops[] = { IBV_WR_SEND, IBV_WR_SEND_WITH_IMM };
	struct ud_env u;
	unsigned int o, z;
	int ret;

	ret = ud_open(&u, ipv6);
	for (o = 0; ret == 0 && o < RTE_DIM(ops); o++)
		for (z = 0; ret == 0 && z < RTE_DIM(sizes); z++)
			ret = ud_transfer(&u, u.ah, u.e.qp[1][0], 1, ops[o], sizes[z],
					  &u.e.s[1].gid);
	return ud_close(&u) | ret;
}

static int
test_ud_ipv4(void)
{
	return ud_send_recv(false);
}

static int
test_ud_ipv6(void)
{
	return ud_send_recv(true);
}

/* Nothing arrives on b; the drop counter `why` of b moved by one. */
static int
ud_dropped(struct ud_env *u, enum roce_rx_drop why, uint64_t before)
{
	struct ibv_wc wc;

	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&u->e, u->e.s[0].scq, &wc, 1), 1, "send completion");
	ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_SUCCESS, "send status");
	if (roce_test_expect_quiet(&u->e, u->e.s[1].rcq) != 0)
		return -1;
	ROCE_TEST_ASSERT_EQ(drops(&u->e, 1, why), before + 1, "drop %d counted", why);
	return 0;
}

/*
 * Q_Key: a mismatch is dropped and counted; a WR Q_Key with the high bit
 * uses the sender QP's own (IBA 10.2.5), so it reaches b only when a's
 * Q_Key is b's.
 */
static int
test_ud_qkey(void)
{
	struct ibv_qp_attr attr = { .qkey = OTHER_QKEY };
	struct ud_env u;
	uint64_t before;
	int ret;

	ret = ud_open(&u, false);
	if (ret == 0)
		ret = ud_transfer(&u, u.ah, u.e.qp[1][0], 1, IBV_WR_SEND, 8, &u.e.s[1].gid);
	if (ret == 0)
		ret = roce_test_post_recv(u.e.qp[1][0], 1, u.e.s[1].buf + UD_OFF, 256,
					  u.e.s[1].mr->lkey);
	before = drops(&u.e, 1, ROCE_RX_DROP_QKEY);
	if (ret == 0)
		ret = ud_post(u.e.qp[0][0], u.ah, IBV_WR_SEND, 2, &u.e.s[0], 0, 16,
			      u.e.qp[1][0]->qp_num, OTHER_QKEY);
	if (ret == 0)
		ret = ud_dropped(&u, ROCE_RX_DROP_QKEY, before);
	/* High bit: a's own Q_Key, QKEY, goes out: delivered to the WQE still posted. */
	if (ret == 0)
		ret = ud_post(u.e.qp[0][0], u.ah, IBV_WR_SEND, 3, &u.e.s[0], 0, 16,
			      u.e.qp[1][0]->qp_num, RTE_ROCE_QKEY_PRIVILEGED | OTHER_QKEY);
	if (ret == 0) {
		struct ibv_wc wc;

		ret = roce_test_wait_wc(&u.e, u.e.s[1].rcq, &wc, 1) == 1 && wc.wr_id == 1 &&
		      wc.status == IBV_WC_SUCCESS ? 0 : printf("# privileged Q_Key not delivered\n");
		if (ret == 0 && roce_test_wait_wc(&u.e, u.e.s[0].scq, &wc, 1) != 1)
			ret = -1;
	}
	/* a's Q_Key changed (RTS -> RTS): the same WR is now dropped. */
	if (ret == 0)
		ret = rte_roce_modify_qp(u.e.qp[0][0], &attr, IBV_QP_QKEY);
	if (ret == 0)
		ret = roce_test_post_recv(u.e.qp[1][0], 4, u.e.s[1].buf + UD_OFF, 256,
					  u.e.s[1].mr->lkey);
	before = drops(&u.e, 1, ROCE_RX_DROP_QKEY);
	if (ret == 0)
		ret = ud_post(u.e.qp[0][0], u.ah, IBV_WR_SEND, 5, &u.e.s[0], 0, 16,
			      u.e.qp[1][0]->qp_num, RTE_ROCE_QKEY_PRIVILEGED);
	if (ret == 0)
		ret = ud_dropped(&u, ROCE_RX_DROP_QKEY, before);
	return ud_close(&u) | (ret != 0 ? -1 : 0);
}

/* Post-time refusals: too long, no AH, RC/UC opcodes, remote_qpn above 24 bits. */
static int
test_ud_post_errors(void)
{
	static const enum ibv_wr_opcode refused[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_SEND_WITH_INV,
	};
	struct ibv_qp *qp;
	struct ud_env u;
	unsigned int i;
	int ret;

	ret = ud_open(&u, false);
	qp = u.e.qp[0][0];
	if (ret == 0 && ud_post(qp, u.ah, IBV_WR_SEND, 1, &u.e.s[0], 0, MTU + 1, 1, QKEY) !=
			-EINVAL)
		ret = printf("# a message above the MTU was accepted\n");
	if (ret == 0 && ud_post(qp, NULL, IBV_WR_SEND, 1, &u.e.s[0], 0, 8, 1, QKEY) != -EINVAL)
		ret = printf("# a send without AH was accepted\n");
	if (ret == 0 && ud_post(qp, u.ah, IBV_WR_SEND, 1, &u.e.s[0], 0, 8, 1u << 24, QKEY) !=
			-EINVAL)
		ret = printf("# remote_qpn above 24 bits accepted\n");
	for (i = 0; ret == 0 && i < RTE_DIM(refused); i++)
		if (ud_post(qp, u.ah, refused[i], 1, &u.e.s[0], 0, 8, 1, QKEY) != -EINVAL)
			ret = printf("# opcode %d accepted on UD\n", refused[i]);
	if (ret == 0)
		ret = roce_test_expect_quiet(&u.e, u.e.s[0].scq);
	return ud_close(&u) | (ret != 0 ? -1 : 0);
}

/* No receive WQE: dropped and counted. A WQE too small: LOC_LEN_ERR, the QP goes on. */
static int
test_ud_recv_errors(void)
{
	struct ibv_wc wc;
	struct ud_env u;
	uint64_t before;
	int ret;

	ret = ud_open(&u, false);
	before = drops(&u.e, 1, ROCE_RX_DROP_NO_RECV_WQE);
	if (ret == 0)
		ret = ud_post(u.e.qp[0][0], u.ah, IBV_WR_SEND, 1, &u.e.s[0], 0, 64,
			      u.e.qp[1][0]->qp_num, QKEY);
	if (ret == 0)
		ret = ud_dropped(&u, ROCE_RX_DROP_NO_RECV_WQE, before);
	/* Room for the GRH and 63 bytes: one short. */
	if (ret == 0)
		ret = roce_test_post_recv(u.e.qp[1][0], 9, u.e.s[1].buf + UD_OFF,
					  RTE_ROCE_GRH_LEN + 63, u.e.s[1].mr->lkey);
	if (ret == 0)
		ret = ud_post(u.e.qp[0][0], u.ah, IBV_WR_SEND, 2, &u.e.s[0], 0, 64,
			      u.e.qp[1][0]->qp_num, QKEY);
	if (ret == 0 && roce_test_wait_wc(&u.e, u.e.s[1].rcq, &wc, 1) != 1)
		ret = printf("# no completion for a too small WQE\n");
	if (ret == 0 && (wc.wr_id != 9 || wc.status != IBV_WC_LOC_LEN_ERR))
		ret = printf("# wr_id %" PRIu64 " status %d\n", wc.wr_id, wc.status);
	if (ret == 0 && roce_test_wait_wc(&u.e, u.e.s[0].scq, &wc, 1) != 1)
		ret = -1;
	if (ret == 0)
		ret = ud_transfer(&u, u.ah, u.e.qp[1][0], 1, IBV_WR_SEND, 64, &u.e.s[1].gid);
	return ud_close(&u) | (ret != 0 ? -1 : 0);
}

/* Address handle errors, and an AH destroyed while a send uses it. */
static int
test_ud_ah_errors(void)
{
	struct ibv_ah_attr attr = { .is_global = 1, .port_num = 1 };
	struct roce_test_side *a;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	struct ud_env u;
	int ret;

	ret = ud_open(&u, false);
	if (ret != 0)
		return ud_close(&u) | -1;
	a = &u.e.s[0];
	memcpy(attr.grh.dgid.raw, u.e.s[1].gid.raw, sizeof(attr.grh.dgid.raw));
	attr.grh.sgid_index = a->gid_index;
#define AH_FAILS(edit, why) do {						\
		struct ibv_ah_attr bad = attr;					\
		edit;								\
		rte_errno = 0;							\
		ROCE_TEST_ASSERT(rte_roce_create_ah(a->pd, &bad) == NULL &&	\
				 rte_errno == EINVAL, why);			\
	} while (0)
	AH_FAILS(bad.is_global = 0, "no GRH");
	AH_FAILS(bad.grh.sgid_index = RTE_ROCE_PORT_GID_TBL_LEN - 1, "free sgid_index");
	AH_FAILS(bad.grh.sgid_index = 255, "sgid_index out of the table");
	AH_FAILS(bad.port_num = 2, "port 2");
	AH_FAILS(memcpy(bad.grh.dgid.raw, u.e.s[1].gid.raw, 16); bad.grh.dgid.raw[10] = 0,
		 "IPv6 destination from an IPv4 source");
	AH_FAILS(memset(bad.grh.dgid.raw + 12, 0, 4), "IPv4 0.0.0.0");
#undef AH_FAILS
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_create_ah(NULL, &attr) == NULL && rte_errno == EINVAL, "NULL pd");
	ROCE_TEST_ASSERT(rte_roce_create_ah(a->pd, NULL) == NULL && rte_errno == EINVAL,
			 "NULL attr");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_ah(NULL), -EINVAL, "destroy NULL");
	/*
	 * A second AH, used by a posted send, destroyed before the send
	 * starts: the send still goes to its destination (the AH is freed
	 * when it completes; ASan would see a use after free).
	 */
	ah = rte_roce_create_ah(a->pd, &attr);
	ROCE_TEST_ASSERT(ah != NULL, "create_ah");
	ROCE_TEST_ASSERT_EQ(ud_post(u.e.qp[0][0], ah, IBV_WR_SEND, 1, a, 0, 8,
				    u.e.qp[1][0]->qp_num, QKEY), 0, "post");
	ROCE_TEST_ASSERT_EQ(rte_roce_destroy_ah(ah), 0, "destroy while in use");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&u.e, a->scq, &wc, 1), 1, "send completion");
	ROCE_TEST_ASSERT_EQ(wc.status, IBV_WC_SUCCESS, "sent after its AH was destroyed");
	return ud_close(&u);
}

/* The first frame in ring r: its destination MAC and BTH DestQP. */
static int
peek_frame(unsigned int r, struct rte_ether_addr *dst, uint32_t *dqpn)
{
	struct rte_roce_pkt pkt;
	struct rte_mbuf *m = NULL;

	ROCE_TEST_ASSERT_EQ(rte_ring_dequeue(roce_test_verbs_pair.ring[r], (void **)&m), 0,
			    "a frame");
	ROCE_TEST_ASSERT_EQ(rte_roce_pkt_parse_mbuf(m, MTU, &pkt), RTE_ROCE_DROP_NONE, "parse");
	*dst = pkt.dst_mac;
	*dqpn = pkt.dqpn;
	ROCE_TEST_ASSERT_EQ(rte_ring_enqueue(roce_test_verbs_pair.ring[r], m), 0, "requeue");
	return 0;
}

/*
 * Three QPs of b attached to a group get a copy each of a's SEND to it, sent
 * to the group's MAC and DestQP 0xFFFFFF; once detached, nothing arrives
 * and the port drops the group's frames.
 */
static int
mcast_case(bool ipv6)
{
	static const uint8_t mac4[] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
	static const uint8_t mac6[] = { 0x33, 0x33, 0x00, 0x02, 0x00, 0x03 };
	struct ibv_qp *qps[NB_MCAST_QPS];
	struct rte_roce_port_stats st;
	union rte_roce_gid group;
	struct rte_ether_addr dmac;
	union ibv_gid ggid;
	struct ibv_ah *ah = NULL;
	struct ud_env u;
	uint64_t before;
	uint32_t dqpn;
	unsigned int i;
	int ret;

	ret = ud_open(&u, ipv6);
	if (ret == 0)
		ret = rte_roce_gid_parse(ipv6 ? MCAST_GROUP6 : MCAST_GROUP, &group);
	memcpy(ggid.raw, group.raw, sizeof(ggid.raw));
	for (i = 0; ret == 0 && i < NB_MCAST_QPS; i++) {
		ret = ud_qp(&u.e.s[1], QKEY, &qps[i]);
		if (ret == 0)
			ret = rte_roce_attach_mcast(qps[i], &ggid, 0);
		u.e.qp[1][u.e.nqps++] = qps[i];
	}
	if (ret == 0)
		ah = roce_test_ah_create(&u.e.s[0], ipv6 ? MCAST_GROUP6 : MCAST_GROUP);
	if (ah == NULL)
		ret = -1;
	/* A warm-up to b's unicast address, so that a frame in the ring is the multicast one. */
	if (ret == 0)
		ret = ud_transfer(&u, u.ah, u.e.qp[1][0], 1, IBV_WR_SEND, 4, &u.e.s[1].gid);
	if (ret == 0)
		ret = ud_transfer(&u, ah, (struct ibv_qp *)qps, NB_MCAST_QPS, IBV_WR_SEND_WITH_IMM,
				  200, &ggid);
	/* On the wire: the group's MAC, DestQP 0xFFFFFF. */
	if (ret == 0)
		ret = ud_post(u.e.qp[0][0], ah, IBV_WR_SEND, 8, &u.e.s[0], 0, 16, 0, QKEY);
	if (ret == 0)
		ret = roce_test_frames_to_b(&u.e, 1);
	if (ret == 0)
		ret = peek_frame(1, &dmac, &dqpn);
	if (ret == 0 && (memcmp(dmac.addr_bytes, ipv6 ? mac6 : mac4, RTE_ETHER_ADDR_LEN) != 0 ||
			 dqpn != RTE_ROCE_MCAST_QPN))
		ret = printf("# multicast frame: DestQP 0x%x, MAC not the group's\n", dqpn);
	/* No receive WQE posted on the three: each drop is counted. */
	before = drops(&u.e, 1, ROCE_RX_DROP_NO_RECV_WQE);
	if (ret == 0) {
		struct ibv_wc wc;

		ret = roce_test_wait_wc(&u.e, u.e.s[0].scq, &wc, 1) == 1 ? 0 : -1;
		if (ret == 0)
			ret = roce_test_expect_quiet(&u.e, u.e.s[1].rcq);
		if (ret == 0 && drops(&u.e, 1, ROCE_RX_DROP_NO_RECV_WQE) != before + NB_MCAST_QPS)
			ret = printf("# one drop per attached QP expected\n");
	}
	/* Attach errors. */
	if (ret == 0 && (rte_roce_attach_mcast(qps[0], &ggid, 0) != -EEXIST ||
			 rte_roce_attach_mcast(qps[0], &u.e.s[1].gid, 0) != -EINVAL ||
			 rte_roce_attach_mcast(NULL, &ggid, 0) != -EINVAL ||
			 rte_roce_detach_mcast(u.e.qp[1][0], &ggid, 0) != -ENOENT))
		ret = printf("# attach/detach errors\n");
	/* Detached: the port leaves the group and drops its frames; nothing arrives. */
	for (i = 0; ret == 0 && i < NB_MCAST_QPS; i++) {
		ret = roce_test_post_recv(qps[i], 600 + i, u.e.s[1].buf + UD_OFF, 1024,
					  u.e.s[1].mr->lkey);
		if (ret == 0)
			ret = rte_roce_detach_mcast(qps[i], &ggid, 0);
	}
	rte_roce_port_stats_get(u.e.s[1].port, &st);
	before = st.drops[RTE_ROCE_PORT_DROP_NOT_FOR_US];
	if (ret == 0)
		ret = ud_post(u.e.qp[0][0], ah, IBV_WR_SEND, 9, &u.e.s[0], 0, 16, 0, QKEY);
	if (ret == 0) {
		struct ibv_wc wc;

		ret = roce_test_wait_wc(&u.e, u.e.s[0].scq, &wc, 1) == 1 ? 0 : -1;
		if (ret == 0)
			ret = roce_test_expect_quiet(&u.e, u.e.s[1].rcq);
	}
	rte_roce_port_stats_get(u.e.s[1].port, &st);
	if (ret == 0 && st.drops[RTE_ROCE_PORT_DROP_NOT_FOR_US] != before + 1)
		ret = printf("# the port did not drop the group's frame after the leave\n");
	if (ah != NULL && rte_roce_destroy_ah(ah) != 0)
		ret = -1;
	/* The receive WQEs posted after the detach are flushed at destroy (no completion). */
	return ud_close(&u) | (ret != 0 ? -1 : 0);
}

static int
test_ud_mcast(void)
{
	return mcast_case(false);
}

static int
test_ud_mcast_ipv6(void)
{
	return mcast_case(true);
}

/*
 * QP1: created ready, numbered 1, Q_Key 0x80010000; it drops a UD SEND with
 * another Q_Key and receives one from the peer's QP1; a second QP1 and an
 * RC one are refused.
 */
static int
test_qp1(void)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp_init_attr qinit;
	struct ibv_qp_attr qattr;
	struct roce_test_side *b;
	struct ibv_qp *qp1;
	struct ibv_wc wc;
	struct ud_env u;
	uint64_t before;
	int ret;

	ret = ud_open(&u, false);
	if (ret != 0)
		return ud_close(&u) | -1;
	b = &u.e.s[1];
	ia.send_cq = b->scq;
	ia.recv_cq = b->rcq;
	qp1 = rte_roce_create_qp1(b->pd, &ia);
	ROCE_TEST_ASSERT(qp1 != NULL, "create_qp1: %s", rte_strerror(rte_errno));
	u.e.qp[1][u.e.nqps++] = qp1;
	ROCE_TEST_ASSERT_EQ(qp1->qp_num, RTE_ROCE_QP1_QPN, "QPN 1");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_qp(qp1, &qattr, 0, &qinit), 0, "query");
	ROCE_TEST_ASSERT_EQ(qattr.qp_state, IBV_QPS_RTS, "QP1 ready");
	ROCE_TEST_ASSERT_EQ(qattr.qkey, RTE_ROCE_QP1_QKEY, "QP1 Q_Key");
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_create_qp1(b->pd, &ia) == NULL && rte_errno == EEXIST,
			 "a second QP1");
	ia.qp_type = IBV_QPT_RC;
	rte_errno = 0;
	ROCE_TEST_ASSERT(rte_roce_create_qp1(b->pd, &ia) == NULL && rte_errno == EINVAL,
			 "an RC QP1");
	ROCE_TEST_ASSERT_EQ(roce_test_post_recv(qp1, 11, b->buf + UD_OFF, 256, b->mr->lkey), 0,
			    "post_recv");
	before = drops(&u.e, 1, ROCE_RX_DROP_QKEY);
	ROCE_TEST_ASSERT_EQ(ud_post(u.e.qp[0][0], u.ah, IBV_WR_SEND, 1, &u.e.s[0], 0, 32,
				    RTE_ROCE_QP1_QPN, QKEY), 0, "post");
	if (ud_dropped(&u, ROCE_RX_DROP_QKEY, before) != 0)
		return ud_close(&u) | -1;
	/*
	 * 0x80010000 has the high bit set: only a QP whose own Q_Key it is
	 * can send it (IBA 10.2.5). QP1 to QP1, as connection management
	 * will: QP1 sends the GSI Q_Key whatever the WR says.
	 */
	ia.qp_type = IBV_QPT_UD;
	ia.send_cq = u.e.s[0].scq;
	ia.recv_cq = u.e.s[0].rcq;
	u.e.qp[0][1] = rte_roce_create_qp1(u.e.s[0].pd, &ia);
	ROCE_TEST_ASSERT(u.e.qp[0][1] != NULL, "QP1 of a");
	ROCE_TEST_ASSERT_EQ(ud_post(u.e.qp[0][1], u.ah, IBV_WR_SEND, 2, &u.e.s[0], 0, 32,
				    RTE_ROCE_QP1_QPN, 0), 0, "post");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&u.e, b->rcq, &wc, 1), 1, "QP1 receives");
	ROCE_TEST_ASSERT(wc.wr_id == 11 && wc.status == IBV_WC_SUCCESS &&
			 wc.qp_num == RTE_ROCE_QP1_QPN && wc.src_qp == RTE_ROCE_QP1_QPN &&
			 wc.byte_len == RTE_ROCE_GRH_LEN + 32, "QP1 completion");
	ROCE_TEST_ASSERT_EQ(roce_test_wait_wc(&u.e, u.e.s[0].scq, &wc, 1), 1, "send completion");
	return ud_close(&u);
}

/* Sends posted while the peer's MAC is still unknown wait in the port's queue: none is lost. */
static int
test_ud_send_during_resolution(void)
{
	const unsigned int n = 4;
	struct ibv_wc wc[4];
	struct ud_env u;
	unsigned int i;
	int ret;

	/* ud_open() created the AH (resolution started) and polled nothing since. */
	ret = ud_open(&u, false);
	for (i = 0; ret == 0 && i < n; i++)
		ret = roce_test_post_recv(u.e.qp[1][0], 20 + i, u.e.s[1].buf + UD_OFF + i * 256,
					  256, u.e.s[1].mr->lkey);
	for (i = 0; ret == 0 && i < n; i++)
		ret = ud_post(u.e.qp[0][0], u.ah, IBV_WR_SEND, 30 + i, &u.e.s[0], 0, 16,
			      u.e.qp[1][0]->qp_num, QKEY);
	if (ret == 0 && roce_test_wait_wc(&u.e, u.e.s[1].rcq, wc, n) != (int)n)
		ret = printf("# sends lost while resolving\n");
	for (i = 0; ret == 0 && i < n; i++)
		if (wc[i].wr_id != 20 + i || wc[i].status != IBV_WC_SUCCESS)
			ret = printf("# receive %u: wr_id %" PRIu64 " status %d\n", i, wc[i].wr_id,
				     wc[i].status);
	if (ret == 0 && roce_test_wait_wc(&u.e, u.e.s[0].scq, wc, n) != (int)n)
		ret = -1;
	return ud_close(&u) | (ret != 0 ? -1 : 0);
}

/* The port's group table: errors, counted joins, and a full table refusing an attach. */
static int
test_port_mcast_api(void)
{
	union rte_roce_gid group, unicast;
	union ibv_gid ggid;
	struct ud_env u;
	unsigned int i;
	int ret;

	ret = ud_open(&u, false);
	if (ret != 0)
		return ud_close(&u) | -1;
	rte_roce_gid_parse(MCAST_GROUP, &group);
	rte_roce_gid_parse(ROCE_TEST_ADDR_B, &unicast);
	ROCE_TEST_ASSERT_EQ(rte_roce_port_mcast_join(u.e.s[1].port, &unicast), -EINVAL, "unicast");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_mcast_join(NULL, &group), -EINVAL, "NULL port");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_mcast_join(u.e.s[1].port, NULL), -EINVAL, "NULL group");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_mcast_leave(u.e.s[1].port, &group), -ENOENT, "not joined");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_mcast_leave(NULL, &group), -EINVAL, "NULL port");
	/* Joined twice: left twice. */
	ROCE_TEST_ASSERT_EQ(rte_roce_port_mcast_join(u.e.s[1].port, &group), 0, "join");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_mcast_join(u.e.s[1].port, &group), 0, "join again");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_mcast_leave(u.e.s[1].port, &group), 0, "leave");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_mcast_leave(u.e.s[1].port, &group), 0, "leave again");
	ROCE_TEST_ASSERT_EQ(rte_roce_port_mcast_leave(u.e.s[1].port, &group), -ENOENT, "left");
	/* RTE_ROCE_PORT_MCAST_MAX groups through attach; one more is refused with ENOSPC. */
	memcpy(ggid.raw, group.raw, sizeof(ggid.raw));
	for (i = 0; i < RTE_ROCE_PORT_MCAST_MAX; i++) {
		ggid.raw[15] = i;
		ROCE_TEST_ASSERT_EQ(rte_roce_attach_mcast(u.e.qp[1][0], &ggid, 0), 0, "attach %u", i);
	}
	ggid.raw[15] = RTE_ROCE_PORT_MCAST_MAX;
	ROCE_TEST_ASSERT_EQ(rte_roce_attach_mcast(u.e.qp[1][0], &ggid, 0), -ENOSPC, "port full");
	ROCE_TEST_ASSERT_EQ(rte_roce_detach_mcast(u.e.qp[1][0], &ggid, 0), -ENOENT,
			    "the refused attach left nothing");
	/* Destroying the QP (ud_close) detaches it from the 64 groups. */
	ret = ud_close(&u);
	return ret;
}

static const struct roce_test_case cases[] = {
	{ "uc_ops", test_uc_ops },
	{ "uc_ops_ipv6", test_uc_ops_ipv6 },
	{ "uc_rejected_ops", test_uc_rejected_ops },
	{ "uc_psn_gap_send", test_uc_psn_gap_send },
	{ "uc_psn_gap_write", test_uc_psn_gap_write },
	{ "uc_no_recv_wqe", test_uc_no_recv_wqe },
	{ "ud_ipv4", test_ud_ipv4 },
	{ "ud_ipv6", test_ud_ipv6 },
	{ "ud_qkey", test_ud_qkey },
	{ "ud_post_errors", test_ud_post_errors },
	{ "ud_recv_errors", test_ud_recv_errors },
	{ "ud_ah_errors", test_ud_ah_errors },
	{ "ud_mcast", test_ud_mcast },
	{ "ud_mcast_ipv6", test_ud_mcast_ipv6 },
	{ "qp1", test_qp1 },
	{ "ud_send_during_resolution", test_ud_send_during_resolution },
	{ "port_mcast_api", test_port_mcast_api },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&roce_test_verbs_pair, "uc_ud") != 0)
		return 1;
	return roce_test_run(cases, RTE_DIM(cases));
}
