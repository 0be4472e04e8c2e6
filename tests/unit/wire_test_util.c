/* SPDX-License-Identifier: BSD-3-Clause */

#include <stdio.h>
#include <string.h>

#include <rte_ip.h>

#include "wire_test_util.h"

static uint8_t wire_test_pattern[WIRE_TEST_MTU];

const uint8_t *wire_test_payload = wire_test_pattern;

static void __attribute__((constructor))
wire_test_pattern_init(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(wire_test_pattern); i++)
		wire_test_pattern[i] = (uint8_t)(i * 7 + 1);
}

int
wire_test_each_pkt(int (*fn)(const struct rte_roce_pkt *pkt, void *arg), void *arg)
{
	static const uint32_t sizes[] = { 0, 1, 2, 3, 4, WIRE_TEST_MTU };
	unsigned int op, s, v6, vlan;
	struct rte_roce_pkt pkt;
	int nb = 0;

	for (op = 0; op <= UINT8_MAX; op++) {
		const struct rte_roce_opcode_info *info = rte_roce_opcode_info(op);

		if (info == NULL)
			continue;
		for (s = 0; s < RTE_DIM(sizes); s++) {
			uint32_t size = info->payload_fixed != 0 ? info->payload_fixed : sizes[s];

			if ((info->flags & RTE_ROCE_OPF_PAYLOAD) == 0 && size != 0)
				continue;
			if (info->payload_fixed != 0 && s != 0)
				continue;
			for (v6 = 0; v6 < 2; v6++)
				for (vlan = 0; vlan < 2; vlan++) {
					wire_test_pkt(&pkt, op, v6, vlan, size);
					if (fn(&pkt, arg) != 0)
						return -1;
					nb++;
				}
		}
	}
	return nb;
}

void
wire_test_pkt(struct rte_roce_pkt *pkt, uint8_t opcode, bool ipv6, bool vlan,
	      uint32_t payload_len)
{
	static const struct rte_ether_addr dst = {{ 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 }};
	static const struct rte_ether_addr src = {{ 0x02, 0x66, 0x77, 0x88, 0x99, 0xaa }};
	static const uint8_t sip6[RTE_ROCE_GID_LEN] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55 };
	static const uint8_t dip6[RTE_ROCE_GID_LEN] = {
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02 };
	unsigned int i;

	rte_roce_pkt_init(pkt, opcode);
	pkt->payload_len = payload_len;
	pkt->dst_mac = dst;
	pkt->src_mac = src;
	pkt->vlan = vlan;
	pkt->vlan_tci = 0xa123;
	pkt->tos = 0x6a;
	pkt->ttl = 63;
	pkt->ip_id = 0xbeef;
	if (ipv6) {
		pkt->ip_version = 6;
		pkt->flow_label = 0xabcde;
		memcpy(pkt->sgid.raw, sip6, sizeof(sip6));
		memcpy(pkt->dgid.raw, dip6, sizeof(dip6));
	} else {
		rte_roce_gid_from_ipv4(&pkt->sgid, RTE_BE32(UINT32_C(0xc6120001)));
		rte_roce_gid_from_ipv4(&pkt->dgid, RTE_BE32(UINT32_C(0xc6120002)));
	}
	pkt->sport = 0xd872;
	pkt->se = true;
	pkt->pkey = 0x8001;
	pkt->fecn = true;
	pkt->becn = true;
	pkt->resv6 = 0x15;
	pkt->dqpn = 0xabcdef;
	pkt->ackreq = true;
	pkt->resv7 = 0x55;
	pkt->psn = 0xfedcba;
	pkt->reth.va = UINT64_C(0x0123456789abcdef);
	pkt->reth.rkey = 0x11223344;
	pkt->reth.len = 0x8000;
	pkt->aeth.syndrome = RTE_ROCE_AETH_NAK_REM_ACCESS;
	pkt->aeth.msn = 0x123456;
	pkt->atmeth.va = UINT64_C(0x1122334455667788);
	pkt->atmeth.rkey = 0x55667788;
	pkt->atmeth.swap_add = UINT64_C(0x99aabbccddeeff00);
	pkt->atmeth.compare = UINT64_C(0x0102030405060708);
	pkt->atmack_orig = UINT64_C(0xa1a2a3a4a5a6a7a8);
	pkt->deth.qkey = RTE_ROCE_QP1_QKEY;
	pkt->deth.resv = 0x5a;
	pkt->deth.sqpn = 0x000011;
	pkt->imm = RTE_BE32(0xc0ffee01);
	pkt->ieth_rkey = 0x77665544;
	pkt->feth = RTE_ROCE_FETH_SEL_MR | RTE_ROCE_FETH_PLT_PERSISTENT;
	for (i = 0; i < RTE_ROCE_CNP_LEN; i++)
		pkt->cnp_rsvd[i] = (uint8_t)(0xc0 + i);
}

#define WIRE_CMP(field) do {						\
	if (a->field != b->field) {					\
		printf("#   field %s: %#llx != %#llx\n", #field,	\
		       (unsigned long long)a->field, (unsigned long long)b->field); \
		return -1;						\
	}								\
} while (0)

#define WIRE_CMP_MEM(field) do {					\
	if (memcmp(&a->field, &b->field, sizeof(a->field)) != 0) {	\
		printf("#   field %s differs\n", #field);		\
		return -1;						\
	}								\
} while (0)

static int
wire_test_ext_cmp(const struct rte_roce_pkt *a, const struct rte_roce_pkt *b, uint32_t mask)
{
	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_RETH)) {
		WIRE_CMP(reth.va);
		WIRE_CMP(reth.rkey);
		WIRE_CMP(reth.len);
	}
	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_AETH)) {
		WIRE_CMP(aeth.syndrome);
		WIRE_CMP(aeth.msn);
	}
	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_ATMETH)) {
		WIRE_CMP(atmeth.va);
		WIRE_CMP(atmeth.rkey);
		WIRE_CMP(atmeth.swap_add);
		WIRE_CMP(atmeth.compare);
	}
	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_ATMACK))
		WIRE_CMP(atmack_orig);
	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_DETH)) {
		WIRE_CMP(deth.qkey);
		WIRE_CMP(deth.resv);
		WIRE_CMP(deth.sqpn);
	}
	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_IMMDT))
		WIRE_CMP(imm);
	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_IETH))
		WIRE_CMP(ieth_rkey);
	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_FETH))
		WIRE_CMP(feth);
	if (mask & (UINT32_C(1) << RTE_ROCE_HDR_CNP))
		WIRE_CMP_MEM(cnp_rsvd);
	return 0;
}

int
wire_test_pkt_cmp(const struct rte_roce_pkt *a, const struct rte_roce_pkt *b, bool offsets)
{
	const struct rte_roce_opcode_info *info = rte_roce_opcode_info(a->opcode);

	WIRE_CMP(opcode);
	WIRE_CMP(payload_len);
	WIRE_CMP_MEM(dst_mac);
	WIRE_CMP_MEM(src_mac);
	WIRE_CMP(vlan);
	if (a->vlan)
		WIRE_CMP(vlan_tci);
	WIRE_CMP(ip_version);
	WIRE_CMP(tos);
	WIRE_CMP(ttl);
	if (a->ip_version == 4) {
		WIRE_CMP(ip_id);
		WIRE_CMP(ip_frag_off);
	} else {
		WIRE_CMP(flow_label);
	}
	WIRE_CMP_MEM(sgid);
	WIRE_CMP_MEM(dgid);
	WIRE_CMP(sport);
	WIRE_CMP(dport);
	WIRE_CMP(se);
	WIRE_CMP(mig);
	WIRE_CMP(tver);
	WIRE_CMP(pkey);
	WIRE_CMP(fecn);
	WIRE_CMP(becn);
	WIRE_CMP(resv6);
	WIRE_CMP(dqpn);
	WIRE_CMP(ackreq);
	WIRE_CMP(resv7);
	WIRE_CMP(psn);
	if (offsets) {
		WIRE_CMP(info);
		WIRE_CMP(pad);
		WIRE_CMP(udp_csum);
		WIRE_CMP(udp_csum_mode);
		WIRE_CMP(l3_off);
		WIRE_CMP(l4_off);
		WIRE_CMP(bth_off);
		WIRE_CMP(payload_off);
		WIRE_CMP(icrc_off);
	}
	return info == NULL ? 0 : wire_test_ext_cmp(a, b, info->hdr_mask);
}

void
wire_test_fix_ipv4_csum(uint8_t *frame, uint32_t l3_off)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(frame + l3_off);

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

int
wire_test_build(const struct rte_roce_pkt *pkt, uint8_t *frame, uint32_t size)
{
	int len = rte_roce_pkt_build(pkt, wire_test_payload, frame, size);

	if (len < 0)
		printf("#   build of %s failed: %d\n", rte_roce_opcode_name(pkt->opcode), len);
	return len < 0 ? -1 : len;
}
