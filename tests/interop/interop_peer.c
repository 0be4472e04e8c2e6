/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * interop_peer: the host side of the interop scenarios that need no RC
 * engine. One librte_roce port on the first ethdev (net_af_packet on the
 * harness's veth) owns an IPv4 address and, for the time given, answers ARP,
 * ND and ICMP echo, resolves the addresses it is asked to, and counts every
 * RoCEv2 frame that arrives (each one parsed and ICRC-checked by the port).
 *
 * With --ud-server or --ud-client it is also a minimal ibv_ud_pingpong peer
 * built from the packet layer alone (one UD QP number, no verbs): it does the
 * tool's TCP exchange (doc/wire-format.md §11.1) through the host kernel and answers
 * or starts UD SENDs, so that the guest's rxe must accept frames this
 * library built.
 *
 *   interop_peer EAL-ARGS -- --ip A.B.C.D/N [--mtu MTU] [--time S] [--resolve ADDR]...
 *                [--ud-server PORT | --ud-client HOST:PORT] [--ipv6] [-n ITERS]
 *                [-s SIZE] [--expect-roce N] [--neigh-timeout MS] [--neigh-retry MS]
 *
 * --ipv6 makes the UD peer use the port's link-local GID (index 0) instead of
 * the IPv4 one, for the guest's GID index 0. --neigh-timeout and
 * --neigh-retry shorten the neighbour cache's timers (rte_roce_port_conf), so
 * that a run of seconds outlives several lifetimes of the guest's entry.
 *
 * Exits 0 only if every resolution worked, the UD exchange (if any) completed
 * ITERS round trips, at least N RoCEv2 frames arrived, and no RoCEv2 frame
 * for us was dropped (parse or ICRC). Its last lines are the port counters.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <rte_roce.h>

#define PEER_BURST 32
#define PEER_MAX_RESOLVE 8
#define PEER_RESOLVE_MS 3000
#define PEER_DEFAULT_TIME_S 10
#define PEER_MS_PER_S 1000
/* ibv_ud_pingpong's fixed Q_Key and message layout (doc/wire-format.md §11.1). */
#define PEER_UD_QKEY UINT32_C(0x11111111)
#define PEER_OOB_MSG_LEN 52	/* "%04x:%06x:%06x:%32s" plus the NUL */
#define PEER_OOB_DONE_MSG "done"	/* sent with its NUL: 5 bytes */
#define PEER_UD_QPN 0x123	/* our one "QP": any number above QP1 */
#define PEER_UD_PSN 0x1000
#define PEER_UD_SPORT 0xc123	/* any UDP source port works (rxe ignores it) */
#define PEER_UD_DEFAULT_ITERS 10
#define PEER_UD_DEFAULT_SIZE 512
#define PEER_PSN_MASK 0xffffff
#define PEER_PAYLOAD_MAX 4096	/* the largest IB MTU */
/*
 * Our own pool, so that one size fits every af_packet frame size the harness
 * uses (framesz up to 8 KiB for jumbo frames: net_af_packet requires the
 * whole ring frame to fit one mbuf).
 */
#define PEER_POOL_MBUFS 4095
#define PEER_POOL_CACHE 64
#define PEER_MBUF_DATA 9216

enum peer_ud_role { PEER_UD_NONE, PEER_UD_SERVER, PEER_UD_CLIENT };

/* Progress of the out-of-band exchange, as the polling thread sees it. */
enum peer_oob_state {
	PEER_OOB_FAILED = -1,
	PEER_OOB_RUNNING,
	PEER_OOB_REMOTE_KNOWN,	/* its QPN and GID are in peer::remote: receive */
	PEER_OOB_DONE,		/* exchange finished: the client may send */
};

/* The remote end of the UD exchange, filled in by the out-of-band thread. */
struct peer_remote {
	uint32_t qpn;
	union rte_roce_gid gid;
};

struct peer {
	struct rte_roce_port *port;
	struct rte_mempool *pool;
	struct rte_roce_port_info info;
	union rte_roce_gid addr;	/* --ip */
	uint8_t prefix_len;
	uint16_t mtu;			/* --mtu: Ethernet MTU to set, 0 = keep */
	uint32_t neigh_timeout_ms;	/* --neigh-timeout: a learnt entry's lifetime, 0 = default */
	uint32_t neigh_retry_ms;	/* --neigh-retry: between requests or probes, 0 = default */
	bool ipv6;			/* the UD peer uses the link-local GID, not --ip */
	union rte_roce_gid local;	/* the UD peer's GID */
	unsigned int seconds;
	const char *resolve[PEER_MAX_RESOLVE];
	unsigned int nb_resolve;
	uint64_t expect_roce;

	/* UD pingpong peer. */
	enum peer_ud_role ud_role;
	const char *oob_host;
	const char *oob_port;
	unsigned int iters;
	uint32_t size;
	pthread_t oob_thread;
	atomic_int oob_state;	/* enum peer_oob_state */
	struct peer_remote remote;
	uint32_t psn;
	unsigned int sent;
	unsigned int received;
	uint8_t payload[PEER_PAYLOAD_MAX];
};

static volatile sig_atomic_t peer_stop;

static void
peer_on_signal(int sig)
{
	RTE_SET_USED(sig);
	peer_stop = 1;
}

static uint64_t
now_ms(void)
{
	return rte_get_timer_cycles() * PEER_MS_PER_S / rte_get_timer_hz();
}

static const char *
gid_str(const union rte_roce_gid *gid, char buf[RTE_ROCE_GID_STRLEN])
{
	rte_roce_gid_format(gid, buf, RTE_ROCE_GID_STRLEN);
	return buf;
}

/* ---- out-of-band exchange (TCP, through the host kernel) ---- */

static void
oob_format(char msg[PEER_OOB_MSG_LEN], uint32_t qpn, uint32_t psn, const union rte_roce_gid *gid)
{
	char *p;
	int i;

	/* LID 0 on RoCE; the GID as 32 hex digits in wire order. */
	p = msg + snprintf(msg, PEER_OOB_MSG_LEN, "%04x:%06x:%06x:", 0, qpn, psn);
	for (i = 0; i < RTE_ROCE_GID_LEN; i++)
		p += sprintf(p, "%02x", gid->raw[i]);
}

static int
oob_parse(const char msg[PEER_OOB_MSG_LEN], struct peer_remote *remote)
{
	unsigned int lid, qpn, psn, byte;
	char hex[2 * RTE_ROCE_GID_LEN + 1];
	int i;

	if (msg[PEER_OOB_MSG_LEN - 1] != '\0' ||
	    sscanf(msg, "%x:%x:%x:%32s", &lid, &qpn, &psn, hex) != 4 ||
	    strlen(hex) != 2 * RTE_ROCE_GID_LEN)
		return -EINVAL;
	for (i = 0; i < RTE_ROCE_GID_LEN; i++) {
		if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return -EINVAL;
		remote->gid.raw[i] = byte;
	}
	remote->qpn = qpn;
	return 0;
}

/* Exactly len bytes; the tools read each message with one read(), so we write it in one. */
static int
oob_read(int fd, void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = read(fd, (char *)buf + done, len - done);
		if (n <= 0)
			return -EIO;
		done += n;
	}
	return 0;
}

static int
oob_write(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len) == (ssize_t)len ? 0 : -EIO;
}

static int
oob_socket(const struct peer *p)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	int fd, cfd, one = 1;

	if (p->ud_role == PEER_UD_SERVER)
		hints.ai_flags = AI_PASSIVE;
	if (getaddrinfo(p->oob_host, p->oob_port, &hints, &res) != 0)
		return -1;
	fd = socket(res->ai_family, res->ai_socktype, 0);
	if (fd < 0)
		goto out;
	if (p->ud_role == PEER_UD_CLIENT) {
		if (connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
			close(fd);
			fd = -1;
		}
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	cfd = -1;
	if (bind(fd, res->ai_addr, res->ai_addrlen) == 0 && listen(fd, 1) == 0) {
		printf("oob: listening on TCP %s\n", p->oob_port);
		fflush(stdout);
		cfd = accept(fd, NULL, NULL);
	}
	close(fd);
	fd = cfd;
out:
	freeaddrinfo(res);
	return fd;
}

/*
 * ibv_ud_pingpong's exchange: the client writes its 52 bytes, the server
 * reads them, writes its own, the client reads them and writes "done".
 */
static void *
oob_main(void *arg)
{
	struct peer *p = arg;
	char mine[PEER_OOB_MSG_LEN] = "", theirs[PEER_OOB_MSG_LEN], done[sizeof(PEER_OOB_DONE_MSG)];
	int fd, ret;

	oob_format(mine, PEER_UD_QPN, p->psn, &p->local);
	fd = oob_socket(p);
	if (fd < 0) {
		printf("oob: %s\n", strerror(errno));
		atomic_store(&p->oob_state, PEER_OOB_FAILED);
		return NULL;
	}
	if (p->ud_role == PEER_UD_CLIENT)
		ret = oob_write(fd, mine, sizeof(mine));
	else
		ret = 0;
	if (ret == 0)
		ret = oob_read(fd, theirs, sizeof(theirs));
	if (ret == 0)
		ret = oob_parse(theirs, &p->remote);
	/* A server receives from here on: the client sends right after "done". */
	if (ret == 0)
		atomic_store(&p->oob_state, PEER_OOB_REMOTE_KNOWN);
	if (ret == 0 && p->ud_role == PEER_UD_CLIENT)
		ret = oob_write(fd, PEER_OOB_DONE_MSG, sizeof(PEER_OOB_DONE_MSG));
	else if (ret == 0)
		ret = oob_write(fd, mine, sizeof(mine)) ?: oob_read(fd, done, sizeof(done));
	close(fd);
	if (ret != 0) {
		printf("oob: exchange failed\n");
		atomic_store(&p->oob_state, PEER_OOB_FAILED);
		return NULL;
	}
	printf("oob: remote QPN 0x%06x GID %s\n", p->remote.qpn, theirs + strlen("0000:000000:000000:"));
	atomic_store(&p->oob_state, PEER_OOB_DONE);
	return NULL;
}

/* ---- the RoCE side ---- */

static int
ud_send(struct peer *p, const void *payload, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(p->info.pool);
	struct rte_roce_pkt pkt;
	int ret;

	if (m == NULL)
		return -ENOMEM;
	rte_roce_pkt_init(&pkt, RTE_ROCE_OP_UD_SEND_ONLY);
	pkt.sgid = p->local;
	pkt.dgid = p->remote.gid;
	pkt.ip_version = rte_roce_gid_is_ipv4(&pkt.dgid) ? 4 : 6;
	pkt.sport = PEER_UD_SPORT;
	pkt.dqpn = p->remote.qpn;
	pkt.psn = p->psn;
	pkt.deth.qkey = PEER_UD_QKEY;
	pkt.deth.sqpn = PEER_UD_QPN;
	pkt.payload_len = len;
	ret = rte_roce_pkt_build_mbuf(&pkt, payload, m);
	if (ret < 0) {
		rte_pktmbuf_free(m);
		return ret;
	}
	ret = rte_roce_port_send(p->port, m, &pkt.dgid);
	if (ret == 0) {
		p->psn = (p->psn + 1) & PEER_PSN_MASK;
		p->sent++;
	}
	return ret;
}

/* A UD SEND for our QP from the peer of the exchange: the server echoes it, the client sends the next. */
static void
ud_receive(struct peer *p, const struct rte_mbuf *m)
{
	struct rte_roce_pkt pkt;
	const void *data;

	if (rte_roce_pkt_parse_mbuf(m, p->info.ib_mtu, &pkt) != RTE_ROCE_DROP_NONE ||
	    pkt.opcode != RTE_ROCE_OP_UD_SEND_ONLY || pkt.dqpn != PEER_UD_QPN ||
	    pkt.deth.qkey != PEER_UD_QKEY || pkt.deth.sqpn != p->remote.qpn ||
	    pkt.payload_len > sizeof(p->payload)) {
		printf("ud: unexpected RoCEv2 frame (opcode 0x%02x)\n", pkt.opcode);
		return;
	}
	p->received++;
	if (p->ud_role == PEER_UD_SERVER) {
		data = rte_pktmbuf_read(m, pkt.payload_off, pkt.payload_len, p->payload);
		if (ud_send(p, data, pkt.payload_len) != 0)
			printf("ud: cannot answer message %u\n", p->received);
	} else if (p->sent < p->iters && ud_send(p, p->payload, p->size) != 0) {
		printf("ud: cannot send message %u\n", p->sent + 1);
	}
}

static bool
ud_finished(const struct peer *p)
{
	return p->ud_role != PEER_UD_NONE && p->received >= p->iters && p->sent >= p->iters;
}

static void
peer_poll(struct peer *p)
{
	struct rte_mbuf *pkts[PEER_BURST];
	uint16_t n, i;

	n = rte_roce_port_poll(p->port, pkts, PEER_BURST);
	for (i = 0; i < n; i++) {
		if (p->ud_role != PEER_UD_NONE && atomic_load(&p->oob_state) >= PEER_OOB_REMOTE_KNOWN)
			ud_receive(p, pkts[i]);
		rte_pktmbuf_free(pkts[i]);
	}
}

static int
peer_resolve(struct peer *p, const char *text)
{
	uint64_t end = now_ms() + PEER_RESOLVE_MS;
	struct rte_ether_addr mac;
	union rte_roce_gid ip;
	int ret;

	if (rte_roce_gid_parse(text, &ip) != 0) {
		printf("resolve: bad address %s\n", text);
		return -1;
	}
	while ((ret = rte_roce_port_resolve(p->port, &ip, &mac)) == -EAGAIN && now_ms() < end)
		peer_poll(p);
	if (ret != 0) {
		printf("resolve: %s: %s\n", text, strerror(-ret));
		return -1;
	}
	printf("resolve: %s %s is at " RTE_ETHER_ADDR_PRT_FMT "\n",
	       rte_roce_gid_is_ipv4(&ip) ? "ARP" : "ND", text, RTE_ETHER_ADDR_BYTES(&mac));
	return 0;
}

/* Serve until the time is up or a signal came; the UD exchange ends it early. */
static int
peer_serve(struct peer *p)
{
	uint64_t end = now_ms() + (uint64_t)p->seconds * PEER_MS_PER_S;
	bool first_sent = false;

	while (!peer_stop && now_ms() < end && !ud_finished(p)) {
		peer_poll(p);
		if (p->ud_role == PEER_UD_NONE)
			continue;
		if (atomic_load(&p->oob_state) == PEER_OOB_FAILED)
			return -1;
		/* The client speaks first (ibv_ud_pingpong's pattern). */
		if (p->ud_role == PEER_UD_CLIENT && !first_sent &&
		    atomic_load(&p->oob_state) == PEER_OOB_DONE) {
			first_sent = true;
			if (ud_send(p, p->payload, p->size) != 0)
				printf("ud: cannot send message 1\n");
		}
	}
	if (p->ud_role == PEER_UD_NONE)
		return 0;
	printf("ud: %u sent, %u received, %u wanted\n", p->sent, p->received, p->iters);
	return ud_finished(p) ? 0 : -1;
}

static int
peer_check_stats(struct peer *p)
{
	struct rte_roce_port_stats s;
	int r, failed = 0;

	rte_roce_port_stats_get(p->port, &s);
	printf("stat rx_packets %" PRIu64 "\nstat rx_roce_packets %" PRIu64 "\nstat tx_packets %" PRIu64
	       "\nstat arp_requests_in %" PRIu64 "\nstat arp_replies_in %" PRIu64
	       "\nstat arp_requests_out %" PRIu64 "\nstat arp_replies_out %" PRIu64
	       "\nstat nd_solicits_in %" PRIu64 "\nstat nd_adverts_in %" PRIu64
	       "\nstat nd_solicits_out %" PRIu64 "\nstat nd_adverts_out %" PRIu64
	       "\nstat icmp_echo_in %" PRIu64 "\nstat icmp_echo_out %" PRIu64 "\n",
	       s.rx_packets, s.rx_roce_packets, s.tx_packets, s.arp_requests_in, s.arp_replies_in,
	       s.arp_requests_out, s.arp_replies_out, s.nd_solicits_in, s.nd_adverts_in,
	       s.nd_solicits_out, s.nd_adverts_out, s.icmp_echo_in, s.icmp_echo_out);
	printf("stat neigh_misses %" PRIu64 "\nstat neigh_resolved %" PRIu64
	       "\nstat neigh_failed %" PRIu64 "\nstat neigh_expired %" PRIu64
	       "\nstat neigh_queue_drops %" PRIu64 "\nstat neigh_probes %" PRIu64
	       "\nstat neigh_refreshed %" PRIu64 "\nstat neigh_probe_failed %" PRIu64 "\n",
	       s.neigh_misses, s.neigh_resolved, s.neigh_failed, s.neigh_expired,
	       s.neigh_queue_drops, s.neigh_probes, s.neigh_refreshed, s.neigh_probe_failed);
	for (r = 0; r < RTE_ROCE_PORT_DROP_MAX; r++)
		if (s.drops[r] != 0)
			printf("stat drop_%s %" PRIu64 "\n", rte_roce_port_drop_name(r), s.drops[r]);
	for (r = 0; r < RTE_ROCE_DROP_REASON_MAX; r++) {
		if (s.roce_drops[r] == 0)
			continue;
		printf("stat roce_drop_%s %" PRIu64 "\n", rte_roce_drop_reason_name(r), s.roce_drops[r]);
		failed = 1;
	}
	if (s.rx_roce_packets < p->expect_roce) {
		printf("check: %" PRIu64 " RoCEv2 frames arrived, %" PRIu64 " expected\n",
		       s.rx_roce_packets, p->expect_roce);
		failed = 1;
	}
	if (failed)
		printf("check: RoCEv2 frames were dropped or missing\n");
	return failed ? -1 : 0;
}

/* Resolve, start the out-of-band exchange, serve, check the counters. */
static int
peer_run(struct peer *p)
{
	unsigned int i;
	int failed = 0;

	for (i = 0; i < p->nb_resolve; i++)
		failed |= peer_resolve(p, p->resolve[i]) != 0;
	if (p->ud_role != PEER_UD_NONE) {
		if (p->size > p->info.ib_mtu) {
			printf("ud: %u bytes do not fit the IB MTU %u\n", p->size, p->info.ib_mtu);
			return -1;
		}
		if (pthread_create(&p->oob_thread, NULL, oob_main, p) != 0) {
			printf("ud: no thread for the exchange\n");
			return -1;
		}
	}
	/* Serve even after a failed resolution: the guest's side of the scenario still runs. */
	failed |= peer_serve(p) != 0;
	failed |= peer_check_stats(p) != 0;
	if (p->ud_role != PEER_UD_NONE) {
		/* An exchange that never happened leaves the thread blocked in accept or read. */
		if (atomic_load(&p->oob_state) != PEER_OOB_DONE &&
		    atomic_load(&p->oob_state) != PEER_OOB_FAILED)
			pthread_cancel(p->oob_thread);
		pthread_join(p->oob_thread, NULL);
	}
	return failed ? -1 : 0;
}

/* ---- set-up ---- */

static int
peer_port(struct peer *p)
{
	struct rte_roce_port_conf conf = { .port_id = RTE_MAX_ETHPORTS };
	char buf[RTE_ROCE_GID_STRLEN];
	union rte_roce_gid ll;
	uint16_t id;
	int ret;

	RTE_ETH_FOREACH_DEV(id) {
		conf.port_id = id;
		break;
	}
	if (conf.port_id == RTE_MAX_ETHPORTS) {
		printf("no ethdev: give one with --vdev net_af_packet0,iface=IFACE\n");
		return -1;
	}
	p->pool = rte_pktmbuf_pool_create("interop_peer", PEER_POOL_MBUFS, PEER_POOL_CACHE, 0,
					  RTE_PKTMBUF_HEADROOM + PEER_MBUF_DATA, rte_socket_id());
	if (p->pool == NULL) {
		printf("pool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	conf.pool = p->pool;
	conf.mtu = p->mtu;
	/*
	 * net_af_packet reports max_rx_pktlen 1518 but carries what its ring
	 * frames (framesz devarg) and the veth's MTU allow: take the MTU as given.
	 */
	conf.mtu_unchecked = p->mtu != 0;
	conf.neigh_timeout_ms = p->neigh_timeout_ms;
	conf.neigh_retry_ms = p->neigh_retry_ms;
	p->port = rte_roce_port_create(&conf);
	if (p->port == NULL) {
		printf("port: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	ret = rte_roce_port_addr_add(p->port, &p->addr, p->prefix_len);
	if (ret == 0)
		ret = rte_roce_port_info_get(p->port, &p->info);
	if (ret == 0)
		ret = rte_roce_port_gid_query(p->port, 0, &ll);
	if (ret != 0) {
		printf("port: %s\n", strerror(-ret));
		return -1;
	}
	p->local = p->ipv6 ? ll : p->addr;
	printf("port: ethdev %u MAC " RTE_ETHER_ADDR_PRT_FMT " MTU %u (IB MTU %u) %s/%u",
	       id, RTE_ETHER_ADDR_BYTES(&p->info.mac), p->info.mtu, p->info.ib_mtu,
	       gid_str(&p->addr, buf), p->prefix_len);
	printf(" %s\n", gid_str(&ll, buf));
	return 0;
}

static int
parse_uint(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno != 0 || end == s || *end != '\0' || *v > max ? -1 : 0;
}

static int
parse_ip(struct peer *p, const char *arg)
{
	char addr[INET_ADDRSTRLEN];
	const char *slash = strchr(arg, '/');
	unsigned long len;

	if (slash == NULL || (size_t)(slash - arg) >= sizeof(addr) ||
	    parse_uint(slash + 1, 32, &len) != 0)
		return -1;
	memcpy(addr, arg, slash - arg);
	addr[slash - arg] = '\0';
	p->prefix_len = len;
	return rte_roce_gid_parse(addr, &p->addr) == 0 && rte_roce_gid_is_ipv4(&p->addr) ? 0 : -1;
}

/* HOST:PORT for the client, PORT for the server. */
static int
parse_oob(struct peer *p, enum peer_ud_role role, char *arg)
{
	char *colon = strrchr(arg, ':');

	p->ud_role = role;
	if (role == PEER_UD_SERVER) {
		p->oob_port = arg;
		return 0;
	}
	if (colon == NULL)
		return -1;
	*colon = '\0';
	p->oob_host = arg;
	p->oob_port = colon + 1;
	return 0;
}

static int
peer_args(struct peer *p, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ip", required_argument, NULL, 'i' },
		{ "time", required_argument, NULL, 't' },
		{ "resolve", required_argument, NULL, 'r' },
		{ "ud-server", required_argument, NULL, 'S' },
		{ "ud-client", required_argument, NULL, 'C' },
		{ "expect-roce", required_argument, NULL, 'e' },
		{ "ipv6", no_argument, NULL, '6' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "neigh-timeout", required_argument, NULL, 'T' },
		{ "neigh-retry", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "n:s:", opts, NULL)) != -1 && !bad) {
		switch (c) {
		case 'i':
			bad = parse_ip(p, optarg);
			break;
		case 't':
			bad = parse_uint(optarg, UINT32_MAX, &v);
			p->seconds = v;
			break;
		case 'r':
			bad = p->nb_resolve == PEER_MAX_RESOLVE;
			if (!bad)
				p->resolve[p->nb_resolve++] = optarg;
			break;
		case 'S':
			bad = parse_oob(p, PEER_UD_SERVER, optarg);
			break;
		case 'C':
			bad = parse_oob(p, PEER_UD_CLIENT, optarg);
			break;
		case 'n':
			bad = parse_uint(optarg, UINT32_MAX, &v) || v == 0;
			p->iters = v;
			break;
		case 's':
			bad = parse_uint(optarg, sizeof(p->payload), &v);
			p->size = v;
			break;
		case 'e':
			bad = parse_uint(optarg, UINT32_MAX, &v);
			p->expect_roce = v;
			break;
		case '6':
			p->ipv6 = true;
			break;
		case 'm':
			bad = parse_uint(optarg, UINT16_MAX, &v);
			p->mtu = v;
			break;
		case 'T':
			bad = parse_uint(optarg, UINT32_MAX, &v);
			p->neigh_timeout_ms = v;
			break;
		case 'R':
			bad = parse_uint(optarg, UINT32_MAX, &v);
			p->neigh_retry_ms = v;
			break;
		default:
			bad = 1;
		}
	}
	if (bad || optind != argc || p->prefix_len == 0) {
		printf("usage: interop_peer EAL-ARGS -- --ip A.B.C.D/N [--mtu MTU] [--time S] [--resolve ADDR]...\n"
		       "       [--ud-server PORT | --ud-client HOST:PORT] [--ipv6] [-n ITERS] [-s SIZE]"
		       " [--expect-roce N]\n"
		       "       [--neigh-timeout MS] [--neigh-retry MS]\n");
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct peer p = {
		.seconds = PEER_DEFAULT_TIME_S,
		.iters = PEER_UD_DEFAULT_ITERS,
		.size = PEER_UD_DEFAULT_SIZE,
		.psn = PEER_UD_PSN,
	};
	int ret, failed;

	ret = rte_roce_eal_init(argc, argv);
	if (ret < 0) {
		printf("EAL: %s\n", strerror(-ret));
		return EXIT_FAILURE;
	}
	argc -= ret;
	argv += ret;
	if (peer_args(&p, argc, argv) != 0)
		return EXIT_FAILURE;
	signal(SIGINT, peer_on_signal);
	signal(SIGTERM, peer_on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	failed = peer_port(&p) != 0 || peer_run(&p) != 0;
	rte_roce_port_destroy(p.port);
	rte_mempool_free(p.pool);
	printf("%s\n", failed ? "FAILED" : "OK");
	rte_eal_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
