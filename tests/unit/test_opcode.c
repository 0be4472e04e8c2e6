/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The opcode table against doc/wire-format.md §3, written out here
 * independently of the library's table, and rte_roce_opcode_may_follow()
 * against rules derived from the opcode names alone.
 */

#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include <rte_roce_opcode.h>

#include "roce_test.h"

#define NB_OPCODES 256

/* An extension header expected at an offset from the BTH. */
struct exp_hdr {
	int type;	/* enum rte_roce_hdr_type, -1 = end */
	uint8_t off;
};

struct exp_op {
	uint8_t opcode;
	const char *name;
	uint8_t hdr_len;	/* BTH + extension headers */
	bool payload;
	struct exp_hdr hdrs[RTE_ROCE_OPCODE_HDRS_MAX + 1];
};

#define NONE { { -1, 0 } }
#define H1(a, oa) { { RTE_ROCE_HDR_ ## a, oa }, { -1, 0 } }
#define H2(a, oa, b, ob) { { RTE_ROCE_HDR_ ## a, oa }, { RTE_ROCE_HDR_ ## b, ob }, { -1, 0 } }

/* RC and UC share SEND and WRITE layouts (doc/wire-format.md §3). */
#define SEND_WRITE(base, t) \
	{ base + 0x00, t "_SEND_FIRST", 12, true, NONE }, \
	{ base + 0x01, t "_SEND_MIDDLE", 12, true, NONE }, \
	{ base + 0x02, t "_SEND_LAST", 12, true, NONE }, \
	{ base + 0x03, t "_SEND_LAST_WITH_IMMEDIATE", 16, true, H1(IMMDT, 12) }, \
	{ base + 0x04, t "_SEND_ONLY", 12, true, NONE }, \
	{ base + 0x05, t "_SEND_ONLY_WITH_IMMEDIATE", 16, true, H1(IMMDT, 12) }, \
	{ base + 0x06, t "_RDMA_WRITE_FIRST", 28, true, H1(RETH, 12) }, \
	{ base + 0x07, t "_RDMA_WRITE_MIDDLE", 12, true, NONE }, \
	{ base + 0x08, t "_RDMA_WRITE_LAST", 12, true, NONE }, \
	{ base + 0x09, t "_RDMA_WRITE_LAST_WITH_IMMEDIATE", 16, true, H1(IMMDT, 12) }, \
	{ base + 0x0a, t "_RDMA_WRITE_ONLY", 28, true, H1(RETH, 12) }, \
	{ base + 0x0b, t "_RDMA_WRITE_ONLY_WITH_IMMEDIATE", 32, true, H2(RETH, 12, IMMDT, 28) }

static const struct exp_op expected[] = {
	SEND_WRITE(0x00, "RC"),
	{ 0x0c, "RC_RDMA_READ_REQUEST", 28, false, H1(RETH, 12) },
	{ 0x0d, "RC_RDMA_READ_RESPONSE_FIRST", 16, true, H1(AETH, 12) },
	{ 0x0e, "RC_RDMA_READ_RESPONSE_MIDDLE", 12, true, NONE },
	{ 0x0f, "RC_RDMA_READ_RESPONSE_LAST", 16, true, H1(AETH, 12) },
	{ 0x10, "RC_RDMA_READ_RESPONSE_ONLY", 16, true, H1(AETH, 12) },
	{ 0x11, "RC_ACKNOWLEDGE", 16, false, H1(AETH, 12) },
	{ 0x12, "RC_ATOMIC_ACKNOWLEDGE", 24, false, H2(AETH, 12, ATMACK, 16) },
	{ 0x13, "RC_COMPARE_SWAP", 40, false, H1(ATMETH, 12) },
	{ 0x14, "RC_FETCH_ADD", 40, false, H1(ATMETH, 12) },
	{ 0x16, "RC_SEND_LAST_WITH_INVALIDATE", 16, true, H1(IETH, 12) },
	{ 0x17, "RC_SEND_ONLY_WITH_INVALIDATE", 16, true, H1(IETH, 12) },
	{ 0x1c, "RC_FLUSH", 32, false, H2(FETH, 12, RETH, 16) },
	{ 0x1d, "RC_ATOMIC_WRITE", 28, true, H1(RETH, 12) },
	SEND_WRITE(0x20, "UC"),
	{ 0x64, "UD_SEND_ONLY", 20, true, H1(DETH, 12) },
	{ 0x65, "UD_SEND_ONLY_WITH_IMMEDIATE", 24, true, H2(DETH, 12, IMMDT, 20) },
	{ 0x81, "CNP", 28, false, H1(CNP, 12) },
};

static const struct exp_op *
expected_find(unsigned int opcode)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(expected); i++)
		if (expected[i].opcode == opcode)
			return &expected[i];
	return NULL;
}

static int
check_entry(const struct exp_op *e, const struct rte_roce_opcode_info *info)
{
	uint32_t mask = 0;
	unsigned int i;

	ROCE_TEST_ASSERT(info != NULL, "0x%02x has no entry", e->opcode);
	ROCE_TEST_ASSERT_EQ(info->opcode, e->opcode, "%s", e->name);
	ROCE_TEST_ASSERT(strcmp(info->name, e->name) == 0, "0x%02x: %s", e->opcode, info->name);
	ROCE_TEST_ASSERT(strcmp(rte_roce_opcode_name(e->opcode), e->name) == 0, "%s", e->name);
	ROCE_TEST_ASSERT_EQ(info->hdr_len, e->hdr_len, "%s", e->name);
	ROCE_TEST_ASSERT_EQ((info->flags & RTE_ROCE_OPF_PAYLOAD) != 0, e->payload, "%s", e->name);
	ROCE_TEST_ASSERT_EQ(info->transport, e->opcode >> 5, "%s", e->name);
	for (i = 0; e->hdrs[i].type >= 0; i++) {
		ROCE_TEST_ASSERT(i < info->nb_hdrs, "%s: too few headers", e->name);
		ROCE_TEST_ASSERT_EQ(info->hdr[i], e->hdrs[i].type, "%s header %u", e->name, i);
		ROCE_TEST_ASSERT_EQ(rte_roce_opcode_hdr_off(info, e->hdrs[i].type), e->hdrs[i].off,
				    "%s header %u", e->name, i);
		mask |= UINT32_C(1) << e->hdrs[i].type;
	}
	ROCE_TEST_ASSERT_EQ(info->nb_hdrs, i, "%s", e->name);
	ROCE_TEST_ASSERT_EQ(info->hdr_mask, mask, "%s", e->name);
	for (i = 0; i < RTE_ROCE_HDR_MAX; i++)
		if ((mask & (UINT32_C(1) << i)) == 0)
			ROCE_TEST_ASSERT_EQ(rte_roce_opcode_hdr_off(info, i), 0, "%s hdr %u", e->name, i);
	ROCE_TEST_ASSERT(info->hdr_len <= RTE_ROCE_TRANSPORT_HDR_MAX, "%s", e->name);
	return 0;
}

static int
test_defined_opcodes(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(expected); i++)
		if (check_entry(&expected[i], rte_roce_opcode_info(expected[i].opcode)) != 0)
			return -1;
	return 0;
}

/* Every value without an expected entry is reserved or unsupported. */
static int
test_reserved_opcodes(void)
{
	unsigned int op, nb_known = 0;

	for (op = 0; op < NB_OPCODES; op++) {
		if (expected_find(op) != NULL) {
			nb_known++;
			continue;
		}
		ROCE_TEST_ASSERT(rte_roce_opcode_info(op) == NULL, "0x%02x has an entry", op);
		ROCE_TEST_ASSERT(rte_roce_opcode_name(op) == NULL, "0x%02x has a name", op);
	}
	ROCE_TEST_ASSERT_EQ(nb_known, 40, "RC 25 + UC 12 + UD 2 + CNP");
	ROCE_TEST_ASSERT(rte_roce_opcode_info(0x15) == NULL, "reserved 0x15");
	ROCE_TEST_ASSERT(rte_roce_opcode_info(0x40) == NULL, "RD");
	ROCE_TEST_ASSERT(rte_roce_opcode_info(0xa0) == NULL, "XRC");
	return 0;
}

static int
test_kind_flags(void)
{
	const struct rte_roce_opcode_info *i;

	i = rte_roce_opcode_info(RTE_ROCE_OP_RC_SEND_LAST_WITH_INVALIDATE);
	ROCE_TEST_ASSERT(i->flags & RTE_ROCE_OPF_INV, "invalidate");
	ROCE_TEST_ASSERT(i->flags & RTE_ROCE_OPF_SEND, "send");
	ROCE_TEST_ASSERT_EQ(i->pos, RTE_ROCE_POS_LAST, "last");
	i = rte_roce_opcode_info(RTE_ROCE_OP_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE);
	ROCE_TEST_ASSERT(i->flags & RTE_ROCE_OPF_IMM, "imm");
	ROCE_TEST_ASSERT(i->flags & RTE_ROCE_OPF_REQ, "request");
	i = rte_roce_opcode_info(RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE);
	ROCE_TEST_ASSERT((i->flags & (RTE_ROCE_OPF_RESP | RTE_ROCE_OPF_READ)) ==
			 (RTE_ROCE_OPF_RESP | RTE_ROCE_OPF_READ), "read response");
	i = rte_roce_opcode_info(RTE_ROCE_OP_RC_ATOMIC_ACKNOWLEDGE);
	ROCE_TEST_ASSERT(i->flags & RTE_ROCE_OPF_ACK, "ack");
	ROCE_TEST_ASSERT(i->flags & RTE_ROCE_OPF_ATOMIC, "atomic");
	i = rte_roce_opcode_info(RTE_ROCE_OP_RC_ATOMIC_WRITE);
	ROCE_TEST_ASSERT_EQ(i->payload_fixed, 8, "atomic write value");
	ROCE_TEST_ASSERT(i->flags & RTE_ROCE_OPF_ATOMIC_WRITE, "atomic write");
	i = rte_roce_opcode_info(RTE_ROCE_OP_RC_FLUSH);
	ROCE_TEST_ASSERT(i->flags & RTE_ROCE_OPF_FLUSH, "flush");
	i = rte_roce_opcode_info(RTE_ROCE_OP_CNP);
	ROCE_TEST_ASSERT_EQ(i->transport, RTE_ROCE_TRANSPORT_CNP, "cnp");
	ROCE_TEST_ASSERT_EQ(i->flags & (RTE_ROCE_OPF_REQ | RTE_ROCE_OPF_RESP), 0, "cnp direction");
	return 0;
}

/* Position and operation family from a name alone: "RC_SEND_LAST_WITH_IMMEDIATE" -> LAST, "RC_SEND". */
static int
name_pos(const char *name, char *family, size_t size)
{
	static const struct { const char *tag; int pos; } tags[] = {
		{ "_FIRST", RTE_ROCE_POS_FIRST }, { "_MIDDLE", RTE_ROCE_POS_MIDDLE },
		{ "_LAST", RTE_ROCE_POS_LAST }, { "_ONLY", RTE_ROCE_POS_ONLY },
	};
	unsigned int i;

	snprintf(family, size, "%s", name);
	for (i = 0; i < RTE_DIM(tags); i++) {
		char *at = strstr(family, tags[i].tag);

		if (at != NULL) {
			*at = '\0';
			return tags[i].pos;
		}
	}
	return RTE_ROCE_POS_ONLY;	/* ACKNOWLEDGE, READ_REQUEST, atomics, CNP */
}

static bool
name_is_response(const char *family)
{
	return strstr(family, "RESPONSE") != NULL || strstr(family, "ACKNOWLEDGE") != NULL;
}

static bool
expected_follow(unsigned int prev, unsigned int next)
{
	const struct exp_op *p = expected_find(prev), *n = expected_find(next);
	char pf[64], nf[64];
	int pp, np;

	if (p == NULL || n == NULL || strncmp(p->name, n->name, 2) != 0 ||
	    strcmp(p->name, "CNP") == 0)
		return false;
	if (strncmp(p->name, "UD", 2) == 0)
		return true;
	pp = name_pos(p->name, pf, sizeof(pf));
	np = name_pos(n->name, nf, sizeof(nf));
	if (name_is_response(pf) != name_is_response(nf))
		return false;
	if (pp == RTE_ROCE_POS_LAST || pp == RTE_ROCE_POS_ONLY)
		return np == RTE_ROCE_POS_FIRST || np == RTE_ROCE_POS_ONLY;
	return strcmp(pf, nf) == 0 && (np == RTE_ROCE_POS_MIDDLE || np == RTE_ROCE_POS_LAST);
}

static int
test_positions_match_names(void)
{
	unsigned int i;
	char family[64];

	for (i = 0; i < RTE_DIM(expected); i++)
		ROCE_TEST_ASSERT_EQ(rte_roce_opcode_info(expected[i].opcode)->pos,
				    name_pos(expected[i].name, family, sizeof(family)),
				    "%s", expected[i].name);
	return 0;
}

static int
test_follow_exhaustive(void)
{
	unsigned int prev, next, nb_true = 0;

	for (prev = 0; prev < NB_OPCODES; prev++)
		for (next = 0; next < NB_OPCODES; next++) {
			bool got = rte_roce_opcode_may_follow(prev, next);

			ROCE_TEST_ASSERT_EQ(got, expected_follow(prev, next),
					    "0x%02x -> 0x%02x", prev, next);
			nb_true += got;
		}
	/* Keeps the derivation honest: it must allow something. */
	ROCE_TEST_ASSERT(nb_true > 100, "only %u pairs allowed", nb_true);
	return 0;
}

static int
test_follow_examples(void)
{
	ROCE_TEST_ASSERT(rte_roce_opcode_may_follow(RTE_ROCE_OP_RC_SEND_FIRST,
						    RTE_ROCE_OP_RC_SEND_MIDDLE), "first->middle");
	ROCE_TEST_ASSERT(rte_roce_opcode_may_follow(RTE_ROCE_OP_RC_SEND_FIRST,
						    RTE_ROCE_OP_RC_SEND_LAST_WITH_INVALIDATE), "first->last inv");
	ROCE_TEST_ASSERT(!rte_roce_opcode_may_follow(RTE_ROCE_OP_RC_SEND_FIRST,
						     RTE_ROCE_OP_RC_RDMA_WRITE_LAST), "send->write");
	ROCE_TEST_ASSERT(!rte_roce_opcode_may_follow(RTE_ROCE_OP_RC_SEND_FIRST,
						     RTE_ROCE_OP_RC_SEND_ONLY), "unfinished message");
	ROCE_TEST_ASSERT(!rte_roce_opcode_may_follow(RTE_ROCE_OP_RC_SEND_LAST,
						     RTE_ROCE_OP_RC_SEND_MIDDLE), "middle after last");
	ROCE_TEST_ASSERT(rte_roce_opcode_may_follow(RTE_ROCE_OP_RC_SEND_LAST,
						    RTE_ROCE_OP_RC_COMPARE_SWAP), "last->atomic");
	ROCE_TEST_ASSERT(rte_roce_opcode_may_follow(RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST,
						    RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_LAST), "read resp");
	ROCE_TEST_ASSERT(!rte_roce_opcode_may_follow(RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST,
						     RTE_ROCE_OP_RC_ACKNOWLEDGE), "ack in a read response");
	ROCE_TEST_ASSERT(rte_roce_opcode_may_follow(RTE_ROCE_OP_RC_ACKNOWLEDGE,
						    RTE_ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY), "ack->resp");
	ROCE_TEST_ASSERT(!rte_roce_opcode_may_follow(RTE_ROCE_OP_RC_ACKNOWLEDGE,
						     RTE_ROCE_OP_RC_SEND_ONLY), "direction");
	ROCE_TEST_ASSERT(!rte_roce_opcode_may_follow(RTE_ROCE_OP_UC_SEND_ONLY,
						     RTE_ROCE_OP_RC_SEND_ONLY), "transport");
	ROCE_TEST_ASSERT(rte_roce_opcode_may_follow(RTE_ROCE_OP_UD_SEND_ONLY,
						    RTE_ROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE), "UD");
	ROCE_TEST_ASSERT(!rte_roce_opcode_may_follow(RTE_ROCE_OP_CNP, RTE_ROCE_OP_CNP), "CNP");
	ROCE_TEST_ASSERT(!rte_roce_opcode_may_follow(0x15, RTE_ROCE_OP_RC_SEND_ONLY), "unknown");
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "defined_opcodes_match_wire_format", test_defined_opcodes },
	{ "reserved_opcodes_have_no_entry", test_reserved_opcodes },
	{ "kind_flags", test_kind_flags },
	{ "positions_match_names", test_positions_match_names },
	{ "may_follow_exhaustive_256x256", test_follow_exhaustive },
	{ "may_follow_examples", test_follow_examples },
};

int
main(void)
{
	return roce_test_run(cases, RTE_DIM(cases));
}
