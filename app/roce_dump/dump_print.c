/* SPDX-License-Identifier: BSD-3-Clause */

#include <inttypes.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_roce_hdr.h>

#include "dump_print.h"

/* ICMP messages worth a name next to RoCE: echo (ping) and IPv6 ND. */
static const struct {
	uint8_t proto;
	uint8_t type;
	const char *name;
} icmp_names[] = {
	{ IPPROTO_ICMP, 0, "echo reply" },		/* RFC 792 */
	{ IPPROTO_ICMP, 3, "destination unreachable" },
	{ IPPROTO_ICMP, 8, "echo request" },
	{ IPPROTO_ICMPV6, 1, "destination unreachable" },	/* RFC 4443 */
	{ IPPROTO_ICMPV6, 128, "echo request" },
	{ IPPROTO_ICMPV6, 129, "echo reply" },
	{ IPPROTO_ICMPV6, 133, "router solicitation" },	/* RFC 4861 */
	{ IPPROTO_ICMPV6, 134, "router advertisement" },
	{ IPPROTO_ICMPV6, 135, "neighbor solicitation" },
	{ IPPROTO_ICMPV6, 136, "neighbor advertisement" },
	{ IPPROTO_ICMPV6, 137, "redirect" },
};

static const char * const hdr_names[RTE_ROCE_HDR_MAX] = {
	[RTE_ROCE_HDR_RETH] = "RETH",
	[RTE_ROCE_HDR_AETH] = "AETH",
	[RTE_ROCE_HDR_ATMETH] = "AtomicETH",
	[RTE_ROCE_HDR_ATMACK] = "AtomicAckETH",
	[RTE_ROCE_HDR_DETH] = "DETH",
	[RTE_ROCE_HDR_IMMDT] = "ImmDt",
	[RTE_ROCE_HDR_IETH] = "IETH",
	[RTE_ROCE_HDR_FETH] = "FETH",
	[RTE_ROCE_HDR_CNP] = "CNP",
};

/* "1 1700000000.123456789 IPv4 10.0.0.1.49152 > 10.0.0.2.4791:" */
static void
print_prefix(const struct dump_line *line)
{
	const struct dump_flow *df = line->df;

	fprintf(line->out, "%" PRIu64 " %" PRIu64 ".%09" PRIu64, line->rec->index,
		line->rec->ts_ns / NS_PER_S, line->rec->ts_ns % NS_PER_S);
	if (df->cls == DUMP_CLASS_L2)
		return;
	fprintf(line->out, " %s ", df->ipv6 ? "IPv6" : "IPv4");
	if (df->has_ports)
		fprintf(line->out, "%s.%u > %s.%u:", df->src, df->sport,
			df->dst, df->dport);
	else
		fprintf(line->out, "%s > %s:", df->src, df->dst);
}

static const char *
l4_name(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_UDP:
		return "UDP";
	case IPPROTO_TCP:
		return "TCP";
	case IPPROTO_ICMP:
		return "ICMP";
	case IPPROTO_ICMPV6:
		return "ICMPv6";
	default:
		return NULL;
	}
}

/* " echo request", or " type 42" for the types without a name here. */
static void
print_icmp_type(FILE *out, const struct dump_flow *df)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(icmp_names); i++) {
		if (icmp_names[i].proto == df->l4_proto &&
		    icmp_names[i].type == df->icmp_type) {
			fprintf(out, " %s", icmp_names[i].name);
			return;
		}
	}
	fprintf(out, " type %u", df->icmp_type);
}

/* -v: "\tinterface 1 dpdk:1 (vdev-net_memif0)", for frames of a pcapng capture. */
static void
print_interface(const struct dump_line *line)
{
	const struct dump_record *rec = line->rec;

	if (line->verbose == 0 || rec->ifindex < 0)
		return;
	fprintf(line->out, "\tinterface %" PRId64, rec->ifindex);
	if (rec->ifname != NULL)
		fprintf(line->out, " %s", rec->ifname);
	if (rec->ifdescr != NULL)
		fprintf(line->out, " (%s)", rec->ifdescr);
	fputc('\n', line->out);
}

void
dump_print_other(const struct dump_line *line, uint32_t caplen)
{
	const struct dump_flow *df = line->df;
	const char *name;

	print_prefix(line);
	if (df->cls == DUMP_CLASS_IP) {
		name = l4_name(df->l4_proto);
		if (name != NULL)
			fprintf(line->out, " %s", name);
		else
			fprintf(line->out, " proto %u", df->l4_proto);
		if (df->has_icmp_type)
			print_icmp_type(line->out, df);
	} else if (df->ether_type == RTE_ETHER_TYPE_ARP) {
		fputs(" ARP", line->out);
	} else {
		fprintf(line->out, " ethertype 0x%04x", df->ether_type);
	}
	fprintf(line->out, ", length %u, not RoCEv2\n", caplen);
	print_interface(line);
}

void
dump_print_snapped(const struct dump_line *line, uint32_t caplen,
		   uint32_t origlen)
{
	print_prefix(line);
	fprintf(line->out, " RoCEv2 cut by the capture (%u of %u bytes), not checked\n",
		caplen, origlen);
	print_interface(line);
}

void
dump_print_malformed(const struct dump_line *line,
		     enum rte_roce_drop_reason reason)
{
	print_prefix(line);
	fprintf(line->out, " RoCEv2 MALFORMED %s\n",
		rte_roce_drop_reason_name(reason));
	print_interface(line);
}

/* "ACK credit 31", "NAK psn_sequence_error", "RNR NAK timer 12 (640 us)". */
static void
print_aeth(FILE *out, const struct rte_roce_pkt *pkt)
{
	uint8_t syn = pkt->aeth.syndrome;
	uint8_t code = syn & RTE_ROCE_AETH_CODE_MASK;
	enum dump_aeth_kind kind = dump_aeth_kind(syn);

	if (kind == DUMP_AETH_ACK)
		fprintf(out, " ACK credit %u%s", code,
			code == RTE_ROCE_AETH_CREDIT_INVALID ? " (none)" : "");
	else if (kind == DUMP_AETH_RNR_NAK)
		fprintf(out, " RNR NAK timer %u (%" PRIu32 " us)", code,
			rte_roce_rnr_timer_usec(code));
	else if (kind == DUMP_AETH_RESERVED)
		fprintf(out, " reserved syndrome 0x%02x", syn);
	else
		fprintf(out, " NAK %s", dump_aeth_kind_name(kind));
	fprintf(out, " msn %" PRIu32, pkt->aeth.msn);
}

/* The fields of one extension header, " name value" pairs. */
/*
 * "placement global,persistent selectivity mr" (IBA A19.4.1.1); bits
 * without a name are shown in hex ("placement 0x4", "selectivity 3").
 */
static void
print_feth(FILE *out, uint32_t feth)
{
	uint32_t plt = feth & RTE_ROCE_FETH_PLT_MASK;
	uint32_t sel = (feth & RTE_ROCE_FETH_SEL_MASK) >> RTE_ROCE_FETH_SEL_SHIFT;
	uint32_t known = RTE_ROCE_FETH_PLT_GLOBAL | RTE_ROCE_FETH_PLT_PERSISTENT;

	if (plt == 0 || (plt & ~known) != 0)
		fprintf(out, " placement 0x%" PRIx32, plt);
	else
		fprintf(out, " placement %s%s%s", plt & RTE_ROCE_FETH_PLT_GLOBAL ? "global" : "",
			plt == known ? "," : "",
			plt & RTE_ROCE_FETH_PLT_PERSISTENT ? "persistent" : "");
	if (sel == RTE_ROCE_FETH_SEL_RANGE >> RTE_ROCE_FETH_SEL_SHIFT)
		fputs(" selectivity range", out);
	else if (sel == RTE_ROCE_FETH_SEL_MR >> RTE_ROCE_FETH_SEL_SHIFT)
		fputs(" selectivity mr", out);
	else
		fprintf(out, " selectivity %" PRIu32, sel);
}

/* The 8 bytes an ATOMIC_WRITE stores, in wire order (A19.4.2: no byte swap). */
static void
print_atomic_write_data(FILE *out, const uint8_t *frame, const struct rte_roce_pkt *pkt)
{
	uint32_t i;

	if (pkt->opcode != RTE_ROCE_OP_RC_ATOMIC_WRITE)
		return;
	fputs(" data 0x", out);
	for (i = 0; i < pkt->payload_len; i++)
		fprintf(out, "%02x", frame[pkt->payload_off + i]);
}

static void
print_ext_fields(FILE *out, const struct rte_roce_pkt *pkt,
		 enum rte_roce_hdr_type type)
{
	switch (type) {
	case RTE_ROCE_HDR_RETH:
		fprintf(out, " va 0x%" PRIx64 " rkey 0x%08" PRIx32 " len %" PRIu32,
			pkt->reth.va, pkt->reth.rkey, pkt->reth.len);
		break;
	case RTE_ROCE_HDR_AETH:
		print_aeth(out, pkt);
		break;
	case RTE_ROCE_HDR_ATMETH:
		fprintf(out, " va 0x%" PRIx64 " rkey 0x%08" PRIx32
			" swap_add 0x%" PRIx64 " compare 0x%" PRIx64,
			pkt->atmeth.va, pkt->atmeth.rkey,
			pkt->atmeth.swap_add, pkt->atmeth.compare);
		break;
	case RTE_ROCE_HDR_ATMACK:
		fprintf(out, " orig 0x%" PRIx64, pkt->atmack_orig);
		break;
	case RTE_ROCE_HDR_DETH:
		fprintf(out, " qkey 0x%08" PRIx32 " srcqp 0x%06" PRIx32,
			pkt->deth.qkey, pkt->deth.sqpn);
		break;
	case RTE_ROCE_HDR_IMMDT:
		fprintf(out, " imm 0x%08" PRIx32, rte_be_to_cpu_32(pkt->imm));
		break;
	case RTE_ROCE_HDR_IETH:
		fprintf(out, " inv_rkey 0x%08" PRIx32, pkt->ieth_rkey);
		break;
	case RTE_ROCE_HDR_FETH:
		print_feth(out, pkt->feth);
		break;
	default:
		break;	/* CNP: reserved bytes only */
	}
}

/* "[SE,M,A,FECN,BECN]" with only the bits that are set. */
static void
print_bth_flags(FILE *out, const struct rte_roce_pkt *pkt)
{
	const struct {
		bool set;
		const char *name;
	} flags[] = {
		{ pkt->se, "SE" },
		{ pkt->mig, "M" },
		{ pkt->ackreq, "A" },
		{ pkt->fecn, "FECN" },
		{ pkt->becn, "BECN" },
	};
	const char *sep = " [";
	unsigned int i;

	for (i = 0; i < RTE_DIM(flags); i++) {
		if (!flags[i].set)
			continue;
		fprintf(out, "%s%s", sep, flags[i].name);
		sep = ",";
	}
	if (sep[0] == ',')
		fputc(']', out);
}

static void
print_detail(FILE *out, const uint8_t *frame, const struct rte_roce_pkt *pkt)
{
	char src[RTE_ETHER_ADDR_FMT_SIZE], dst[RTE_ETHER_ADDR_FMT_SIZE];
	uint32_t icrc;
	unsigned int i;

	rte_ether_format_addr(src, sizeof(src), &pkt->src_mac);
	rte_ether_format_addr(dst, sizeof(dst), &pkt->dst_mac);
	fprintf(out, "\tEthernet %s > %s", src, dst);
	if (pkt->vlan)
		fprintf(out, " vlan %u pcp %u", RTE_VLAN_TCI_ID(pkt->vlan_tci),
			RTE_VLAN_TCI_PRI(pkt->vlan_tci));
	fputc('\n', out);
	if (pkt->ip_version == IPVERSION)
		fprintf(out, "\tIPv4 tos 0x%02x ttl %u id 0x%04x frag 0x%04x\n",
			pkt->tos, pkt->ttl, pkt->ip_id, pkt->ip_frag_off);
	else
		fprintf(out, "\tIPv6 tclass 0x%02x flow 0x%05" PRIx32 " hlim %u\n",
			pkt->tos, pkt->flow_label, pkt->ttl);
	fprintf(out, "\tUDP sport %u dport %u csum 0x%04x\n",
		pkt->sport, pkt->dport, pkt->udp_csum);
	fprintf(out, "\tBTH opcode 0x%02x se %u m %u pad %u tver %u pkey 0x%04x"
		" fecn %u becn %u dqpn 0x%06" PRIx32 " ackreq %u psn 0x%06" PRIx32
		"\n", pkt->opcode, pkt->se, pkt->mig, pkt->pad, pkt->tver,
		pkt->pkey, pkt->fecn, pkt->becn, pkt->dqpn, pkt->ackreq,
		pkt->psn);
	for (i = 0; i < pkt->info->nb_hdrs; i++) {
		fprintf(out, "\t%s", hdr_names[pkt->info->hdr[i]]);
		print_ext_fields(out, pkt, pkt->info->hdr[i]);
		fputc('\n', out);
	}
	/* The ICRC is stored least-significant byte first (doc/wire-format.md §4.2). */
	memcpy(&icrc, frame + pkt->icrc_off, sizeof(icrc));
	fprintf(out, "\tpayload %" PRIu32 " pad %u icrc 0x%08" PRIx32 "\n",
		pkt->payload_len, pkt->pad, rte_le_to_cpu_32(icrc));
}

void
dump_print_roce(const struct dump_line *line,
		const uint8_t *frame, const struct rte_roce_pkt *pkt,
		enum dump_icrc icrc, const struct dump_mad *mad)
{
	static const char *const icrc_text[] = {
		[DUMP_ICRC_OK] = " icrc ok\n",
		[DUMP_ICRC_BAD] = " ICRC BAD\n",
		[DUMP_ICRC_RXE_FLUSH] = " ICRC RXE-FLUSH (Linux rxe's, not IBA A17's)\n",
	};
	FILE *out = line->out;
	unsigned int i;

	print_prefix(line);
	fprintf(out, " %s qp 0x%06" PRIx32 " psn 0x%06" PRIx32,
		pkt->info->name, pkt->dqpn, pkt->psn);
	print_bth_flags(out, pkt);
	if (pkt->pkey != RTE_ROCE_DEFAULT_PKEY)
		fprintf(out, " pkey 0x%04x", pkt->pkey);
	for (i = 0; i < pkt->info->nb_hdrs; i++)
		print_ext_fields(out, pkt, pkt->info->hdr[i]);
	if (pkt->payload_len != 0)
		fprintf(out, " payload %" PRIu32, pkt->payload_len);
	print_atomic_write_data(out, frame, pkt);
	if (mad != NULL)
		dump_mad_print_brief(out, mad);
	fputs(icrc_text[icrc], out);
	if (line->verbose == 0)
		return;
	print_interface(line);
	print_detail(out, frame, pkt);
	if (mad != NULL)
		dump_mad_print_detail(out, mad);
}
