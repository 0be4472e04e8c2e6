/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * roce_demo: two RoCE ports wired back to back over a net_ring pair, in one
 * process, with no NIC. Port A (198.18.0.1, 2001:db8::1) and port B
 * (198.18.0.2, 2001:db8::2) resolve each other with ARP and ND, ping each
 * other, then exchange RoCEv2 packets: an RC SEND_ONLY from A and the
 * ACKNOWLEDGE from B, over IPv4 and over IPv6, parsed and ICRC-checked on
 * arrival. Exits 0 only if every step worked.
 *
 *   roce_demo --no-huge -m 256 --no-shconf --no-pci [-- --pcap FILE]
 *
 * With --pcap, every frame on the wire is written to FILE (port A's capture,
 * rte_roce_port_capture_start(): both directions), for roce_dump or tshark.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <rte_roce.h>

#define DEMO_RING_SIZE 1024
#define DEMO_BURST 32
#define DEMO_WAIT_MS 1000
#define DEMO_PING_LEN 32	/* echo data bytes */
#define DEMO_TEXT_MAX 32u	/* payload bytes printed */
#define DEMO_QPN_A 0x11
#define DEMO_QPN_B 0x12
#define DEMO_PSN 0x1000
/* rxe's rdma_get_udp_sport(0, 0x11, 0x12) (doc/wire-format.md §1.2) */
#define DEMO_SPORT 0xc132
#define DEMO_ICMP6_ECHO_REQUEST 128
#define DEMO_MS_PER_S 1000

enum { A, B, NB_PORTS };

struct demo {
	struct rte_roce_port *port[NB_PORTS];
	struct rte_roce_port_info info[NB_PORTS];
	union rte_roce_gid v4[NB_PORTS];
	union rte_roce_gid v6[NB_PORTS];
	const char *pcap;	/* --pcap FILE, or NULL */
};

static const char *const names[NB_PORTS] = { "A", "B" };
static const char *const v4_text[NB_PORTS] = { "198.18.0.1", "198.18.0.2" };
static const char *const v6_text[NB_PORTS] = { "2001:db8::1", "2001:db8::2" };
#define DEMO_V4_PREFIX 24	/* 198.18.0.0/15 is for benchmarking (RFC 2544) */
#define DEMO_V6_PREFIX 64	/* 2001:db8::/32 is for documentation (RFC 3849) */

static uint64_t
now_ms(void)
{
	return rte_get_timer_cycles() * DEMO_MS_PER_S / rte_get_timer_hz();
}

static const char *
gid_str(const union rte_roce_gid *gid)
{
	static char buf[2][RTE_ROCE_GID_STRLEN];
	static unsigned int next;
	char *s = buf[next++ % 2];

	rte_roce_gid_format(gid, s, RTE_ROCE_GID_STRLEN);
	return s;
}

/* ---- set-up ---- */

/* Two ethdevs back to back: A sends into ring 0, which B receives from, and back on ring 1. */
static int
demo_wire(uint16_t eth[NB_PORTS])
{
	struct rte_ring *ring[NB_PORTS];
	char name[RTE_RING_NAMESIZE];
	int i, id;

	for (i = 0; i < NB_PORTS; i++) {
		snprintf(name, sizeof(name), "demo_ring%d", i);
		ring[i] = rte_ring_create(name, DEMO_RING_SIZE, rte_socket_id(),
					  RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (ring[i] == NULL)
			return -rte_errno;
	}
	for (i = 0; i < NB_PORTS; i++) {
		snprintf(name, sizeof(name), "demo_eth%s", names[i]);
		id = rte_eth_from_rings(name, &ring[1 - i], 1, &ring[i], 1, rte_socket_id());
		if (id < 0)
			return -rte_errno;
		eth[i] = id;
	}
	return 0;
}

static int
demo_ports(struct demo *d, const uint16_t eth[NB_PORTS])
{
	struct rte_roce_port_conf conf;
	int i, ret;

	for (i = 0; i < NB_PORTS; i++) {
		memset(&conf, 0, sizeof(conf));
		conf.port_id = eth[i];
		/* net_ring has no MAC: a locally administered one per port. */
		conf.mac.addr_bytes[0] = RTE_ETHER_LOCAL_ADMIN_ADDR;
		conf.mac.addr_bytes[5] = 0xa + i;
		d->port[i] = rte_roce_port_create(&conf);
		if (d->port[i] == NULL) {
			printf("port %s: %s\n", names[i], rte_strerror(rte_errno));
			return -1;
		}
		rte_roce_gid_parse(v4_text[i], &d->v4[i]);
		rte_roce_gid_parse(v6_text[i], &d->v6[i]);
		ret = rte_roce_port_addr_add(d->port[i], &d->v4[i], DEMO_V4_PREFIX);
		if (ret == 0)
			ret = rte_roce_port_addr_add(d->port[i], &d->v6[i], DEMO_V6_PREFIX);
		if (ret == 0)
			ret = rte_roce_port_info_get(d->port[i], &d->info[i]);
		if (ret != 0) {
			printf("port %s: %s\n", names[i], strerror(-ret));
			return -1;
		}
		/* A sees every frame of the wire, both ways. */
		if (i == A && d->pcap != NULL) {
			ret = rte_roce_port_capture_start(d->port[i], d->pcap);
			if (ret != 0) {
				printf("%s: %s\n", d->pcap, strerror(-ret));
				return -1;
			}
		}
		printf("port %s: ethdev %u, MAC " RTE_ETHER_ADDR_PRT_FMT ", MTU %u (IB MTU %u), "
		       "%s/%d, %s/%d\n", names[i], eth[i], RTE_ETHER_ADDR_BYTES(&d->info[i].mac),
		       d->info[i].mtu, d->info[i].ib_mtu, v4_text[i], DEMO_V4_PREFIX, v6_text[i],
		       DEMO_V6_PREFIX);
	}
	return 0;
}

/* ---- the steps ---- */

/* Poll each port once; the first RoCE frame port want hands back is kept in *got. */
static void
demo_poll(struct demo *d, int want, struct rte_mbuf **got)
{
	struct rte_mbuf *pkts[DEMO_BURST];
	uint16_t n, i;
	int p;

	for (p = 0; p < NB_PORTS; p++) {
		n = rte_roce_port_poll(d->port[p], pkts, DEMO_BURST);
		for (i = 0; i < n; i++) {
			if (p == want && *got == NULL)
				*got = pkts[i];
			else
				rte_pktmbuf_free(pkts[i]);
		}
	}
}

/* Poll until port dst hands back a RoCE frame, or the wait ends (NULL). */
static struct rte_mbuf *
demo_receive(struct demo *d, int dst)
{
	uint64_t end = now_ms() + DEMO_WAIT_MS;
	struct rte_mbuf *got = NULL;

	while (got == NULL && now_ms() < end)
		demo_poll(d, dst, &got);
	return got;
}

static int
demo_resolve(struct demo *d, int from, const union rte_roce_gid *ip)
{
	uint64_t end = now_ms() + DEMO_WAIT_MS;
	struct rte_ether_addr mac;
	int to = 1 - from, ret;

	while ((ret = rte_roce_port_resolve(d->port[from], ip, &mac)) == -EAGAIN &&
	       now_ms() < end)
		demo_poll(d, -1, NULL);
	if (ret != 0 || !rte_is_same_ether_addr(&mac, &d->info[to].mac)) {
		printf("%s: resolving %s failed: %s\n", names[from], gid_str(ip),
		       ret != 0 ? strerror(-ret) : "wrong MAC");
		return -1;
	}
	printf("%s: %s %s is at " RTE_ETHER_ADDR_PRT_FMT "\n", names[from],
	       rte_roce_gid_is_ipv4(ip) ? "ARP" : "ND ", gid_str(ip), RTE_ETHER_ADDR_BYTES(&mac));
	return 0;
}

/* An ICMP or ICMPv6 echo request from port from to port to, Ethernet header left to the port. */
static struct rte_mbuf *
demo_echo_request(struct demo *d, int from, bool v6)
{
	const uint32_t l4_len = sizeof(struct rte_icmp_hdr) + DEMO_PING_LEN;
	const uint32_t l3_len = v6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
	struct rte_mbuf *m = rte_pktmbuf_alloc(d->info[from].pool);
	struct rte_icmp_hdr *icmp;
	uint8_t *frame;
	int to = 1 - from;

	if (m == NULL)
		return NULL;
	frame = (uint8_t *)rte_pktmbuf_append(m, RTE_ETHER_HDR_LEN + l3_len + l4_len);
	memset(frame, 0, RTE_ETHER_HDR_LEN + l3_len + l4_len);
	icmp = (struct rte_icmp_hdr *)(frame + RTE_ETHER_HDR_LEN + l3_len);
	icmp->icmp_ident = RTE_BE16(1);
	icmp->icmp_seq_nb = RTE_BE16(1);
	memset(icmp + 1, 'p', DEMO_PING_LEN);
	if (v6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(frame + RTE_ETHER_HDR_LEN);

		ip->vtc_flow = RTE_BE32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16(l4_len);
		ip->proto = IPPROTO_ICMPV6;
		ip->hop_limits = RTE_ROCE_DEFAULT_TTL;
		memcpy(ip->src_addr, d->v6[from].raw, RTE_ROCE_GID_LEN);
		memcpy(ip->dst_addr, d->v6[to].raw, RTE_ROCE_GID_LEN);
		icmp->icmp_type = DEMO_ICMP6_ECHO_REQUEST;
		icmp->icmp_cksum = rte_ipv6_udptcp_cksum(ip, icmp);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(frame + RTE_ETHER_HDR_LEN);

		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16(l3_len + l4_len);
		ip->time_to_live = RTE_ROCE_DEFAULT_TTL;
		ip->next_proto_id = IPPROTO_ICMP;
		ip->src_addr = rte_roce_gid_to_ipv4(&d->v4[from]);
		ip->dst_addr = rte_roce_gid_to_ipv4(&d->v4[to]);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		icmp->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
		icmp->icmp_cksum = ~rte_raw_cksum(icmp, l4_len);
	}
	return m;
}

static int
demo_ping(struct demo *d, int from, bool v6)
{
	const union rte_roce_gid *dst = v6 ? &d->v6[1 - from] : &d->v4[1 - from];
	struct rte_roce_port_stats before, after;
	struct rte_mbuf *m = demo_echo_request(d, from, v6);
	uint64_t end = now_ms() + DEMO_WAIT_MS;
	int ret;

	rte_roce_port_stats_get(d->port[from], &before);
	ret = m != NULL ? rte_roce_port_send(d->port[from], m, dst) : -ENOMEM;
	do {
		demo_poll(d, -1, NULL);
		rte_roce_port_stats_get(d->port[from], &after);
	} while (ret == 0 && after.icmp_echo_replies_in == before.icmp_echo_replies_in &&
		 now_ms() < end);
	if (ret != 0 || after.icmp_echo_replies_in == before.icmp_echo_replies_in) {
		printf("%s: ping %s failed: %s\n", names[from], gid_str(dst),
		       ret != 0 ? strerror(-ret) : "no reply");
		return -1;
	}
	printf("%s: ping %s: echo reply\n", names[from], gid_str(dst));
	return 0;
}

/* Build an RC packet from port from to port to; payload may be NULL. */
static struct rte_mbuf *
demo_rc_packet(struct demo *d, int from, bool v6, uint8_t opcode, const char *payload)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(d->info[from].pool);
	struct rte_roce_pkt pkt;
	int to = 1 - from;

	if (m == NULL)
		return NULL;
	rte_roce_pkt_init(&pkt, opcode);
	pkt.ip_version = v6 ? 6 : 4;
	pkt.sgid = v6 ? d->v6[from] : d->v4[from];
	pkt.dgid = v6 ? d->v6[to] : d->v4[to];
	pkt.sport = DEMO_SPORT;
	pkt.dqpn = from == A ? DEMO_QPN_B : DEMO_QPN_A;
	pkt.psn = DEMO_PSN;
	if (payload != NULL) {
		pkt.ackreq = true;
		pkt.payload_len = strlen(payload);
	} else {
		/* rxe ACKs: credit code "invalid", MSN = requests done (doc/wire-format.md §5.2). */
		pkt.aeth.syndrome = RTE_ROCE_AETH_ACK_UNLIMITED;
		pkt.aeth.msn = 1;
	}
	if (rte_roce_pkt_build_mbuf(&pkt, payload, m) < 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

/* Send one RC packet and print it as the receiving port got it. */
static int
demo_rc_step(struct demo *d, int from, bool v6, uint8_t opcode, const char *payload)
{
	struct rte_mbuf *m = demo_rc_packet(d, from, v6, opcode, payload);
	const union rte_roce_gid *dst = v6 ? &d->v6[1 - from] : &d->v4[1 - from];
	struct rte_roce_pkt pkt;
	char text[DEMO_TEXT_MAX];
	const char *data;
	uint32_t shown;
	int to = 1 - from;

	if (m == NULL || rte_roce_port_send(d->port[from], m, dst) != 0) {
		printf("%s: cannot send %s\n", names[from], rte_roce_opcode_name(opcode));
		return -1;
	}
	m = demo_receive(d, to);
	if (m == NULL) {
		printf("%s: no %s arrived\n", names[to], rte_roce_opcode_name(opcode));
		return -1;
	}
	if (rte_roce_pkt_parse_mbuf(m, d->info[to].ib_mtu, &pkt) != RTE_ROCE_DROP_NONE ||
	    rte_roce_icrc_check_mbuf(m, pkt.l3_off, pkt.icrc_off - pkt.l3_off) != 0 ||
	    pkt.opcode != opcode) {
		printf("%s: received a bad %s\n", names[to], rte_roce_opcode_name(opcode));
		rte_pktmbuf_free(m);
		return -1;
	}
	printf("%s: RoCEv2 %s %s -> %s QP 0x%x PSN 0x%06x", names[to], rte_roce_opcode_name(opcode),
	       gid_str(&pkt.sgid), gid_str(&pkt.dgid), pkt.dqpn, pkt.psn);
	if (payload != NULL) {
		shown = RTE_MIN(pkt.payload_len, DEMO_TEXT_MAX);
		data = rte_pktmbuf_read(m, pkt.payload_off, shown, text);
		printf(" payload %u B \"%.*s\"", pkt.payload_len, (int)shown, data);
	} else {
		printf(" AETH 0x%02x MSN %u", pkt.aeth.syndrome, pkt.aeth.msn);
	}
	printf(", ICRC ok\n");
	rte_pktmbuf_free(m);
	return 0;
}

static void
demo_stats(struct demo *d)
{
	struct rte_roce_port_stats s;
	int i, r;

	for (i = 0; i < NB_PORTS; i++) {
		rte_roce_port_stats_get(d->port[i], &s);
		printf("port %s: rx %" PRIu64 " (%" PRIu64 " B, %" PRIu64 " RoCE), tx %" PRIu64
		       " (%" PRIu64 " B), ARP req/rep in %" PRIu64 "/%" PRIu64 " out %" PRIu64
		       "/%" PRIu64 ", NS/NA in %" PRIu64 "/%" PRIu64 " out %" PRIu64 "/%" PRIu64
		       ", echo in/out/replies %" PRIu64 "/%" PRIu64 "/%" PRIu64
		       ", neigh miss/resolved/failed %" PRIu64 "/%" PRIu64 "/%" PRIu64 "\n",
		       names[i], s.rx_packets, s.rx_bytes, s.rx_roce_packets, s.tx_packets,
		       s.tx_bytes, s.arp_requests_in, s.arp_replies_in, s.arp_requests_out,
		       s.arp_replies_out, s.nd_solicits_in, s.nd_adverts_in, s.nd_solicits_out,
		       s.nd_adverts_out, s.icmp_echo_in, s.icmp_echo_out, s.icmp_echo_replies_in,
		       s.neigh_misses, s.neigh_resolved, s.neigh_failed);
		for (r = 0; r < RTE_ROCE_PORT_DROP_MAX; r++)
			if (s.drops[r] != 0)
				printf("port %s: dropped %s: %" PRIu64 "\n", names[i],
				       rte_roce_port_drop_name(r), s.drops[r]);
	}
}

static int
demo_run(struct demo *d)
{
	static const char *const msg[] = { "hello from A over IPv4", "hello from A over IPv6" };
	int v6, from;

	for (v6 = 0; v6 < 2; v6++)
		for (from = 0; from < NB_PORTS; from++)
			if (demo_resolve(d, from, v6 ? &d->v6[1 - from] : &d->v4[1 - from]) != 0)
				return -1;
	for (v6 = 0; v6 < 2; v6++)
		for (from = 0; from < NB_PORTS; from++)
			if (demo_ping(d, from, v6) != 0)
				return -1;
	for (v6 = 0; v6 < 2; v6++) {
		if (demo_rc_step(d, A, v6, RTE_ROCE_OP_RC_SEND_ONLY, msg[v6]) != 0 ||
		    demo_rc_step(d, B, v6, RTE_ROCE_OP_RC_ACKNOWLEDGE, NULL) != 0)
			return -1;
	}
	return 0;
}

static int
demo_args(int argc, char **argv, const char **pcap_path)
{
	if (argc == 0)
		return 0;
	if (argc == 2 && strcmp(argv[0], "--pcap") == 0) {
		*pcap_path = argv[1];
		return 0;
	}
	printf("usage: roce_demo [EAL args] [-- --pcap FILE]\n");
	return -1;
}

int
main(int argc, char **argv)
{
	struct demo d = { .pcap = NULL };
	uint16_t eth[NB_PORTS];
	int ret, i, failed;

	ret = rte_roce_eal_init(argc, argv);
	if (ret < 0) {
		printf("EAL: %s\n", strerror(-ret));
		return EXIT_FAILURE;
	}
	/* As after rte_eal_init(): argv[ret] is the program name, then the application's arguments. */
	argc -= ret;
	argv += ret;
	if (demo_args(argc - 1, argv + 1, &d.pcap) != 0)
		return EXIT_FAILURE;
	ret = demo_wire(eth);
	if (ret != 0)
		printf("net_ring pair: %s\n", rte_strerror(-ret));
	failed = ret != 0 || demo_ports(&d, eth) != 0 || demo_run(&d) != 0;
	if (d.port[A] != NULL && d.port[B] != NULL)
		demo_stats(&d);
	if (d.pcap != NULL && d.port[A] != NULL && rte_roce_port_capture_stop(d.port[A]) != 0) {
		printf("%s: write failed\n", d.pcap);
		failed = 1;
	}
	for (i = 0; i < NB_PORTS; i++)
		rte_roce_port_destroy(d.port[i]);
	printf("%s\n", failed ? "FAILED" : "all steps succeeded");
	rte_eal_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
