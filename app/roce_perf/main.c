/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * roce_perf [EAL args] -- [options] [server]
 *
 * perftest's tests on librte_roce: --test write|read|send|atomic with
 * --mode bw|lat (or --test write_bw, read_lat, ...; -A picks the atomic).
 * Two processes: the server runs without a host, the client with the
 * server's host name; both over the first ethdev (or -d NAME) with --ip.
 * --loopback: both ends in this process over a net_ring pair (or the first
 * two ethdevs the EAL probed, e.g. two memif vdevs).
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include <rte_roce_pdump.h>
#include <rte_roce_port.h>
#include <rte_roce_verbs.h>

#include "perf.h"
#include "pp_mem.h"
#include "pp_oob.h"
#include "pp_port.h"

#define PERF_RING_SIZE 1024
#define PERF_LOOP_IP_CLI "198.18.0.1/24"	/* RFC 2544 benchmarking range */
#define PERF_LOOP_IP_SRV "198.18.0.2/24"
#define PERF_BW_SIZE 65536
#define PERF_LAT_SIZE 2
#define PERF_ATOMIC_ITERS 1000
#define PERF_BW_ITERS 5000
#define PERF_LAT_ITERS 1000
#define PERF_TX_DEPTH_BW 128
#define PERF_TX_DEPTH_LAT 1
#define PERF_RX_DEPTH_SEND 512
#define PERF_CQ_MOD 100
#define PERF_TCP_PORT 18515
#define PERF_QP_TIMEOUT 14	/* 4.096 us * 2^14 = 67 ms (perftest's default) */
#define PERF_QP_TIMEOUT_MAX 31	/* ibv_qp_attr.timeout is a 5-bit code (man ibv_modify_qp) */
#define PERF_DRY_RUN 1		/* perf_setup(): --dry-run printed what it needs, stop */

enum {
	OPT_TEST = 256, OPT_MODE, OPT_CQ_MOD, OPT_WORKERS, OPT_VERIFY, OPT_JSON, OPT_BASELINE,
	OPT_FAULT, OPT_LOOPBACK, OPT_IP, OPT_CONFIG, OPT_CONFIG_PORT, OPT_NO_PDUMP,
	OPT_PCAP, OPT_PRINT_MEMORY, OPT_DRY_RUN, OPT_CPU_UTIL,
};

static const struct option perf_longopts[] = {
	{ "test", required_argument, NULL, OPT_TEST },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "atomic_type", required_argument, NULL, 'A' },
	{ "size", required_argument, NULL, 's' },
	{ "all", no_argument, NULL, 'a' },
	{ "iters", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'D' },
	{ "qp", required_argument, NULL, 'q' },
	{ "tx-depth", required_argument, NULL, 't' },
	{ "rx-depth", required_argument, NULL, 'r' },
	{ "post_list", required_argument, NULL, 'l' },
	{ "inline_size", required_argument, NULL, 'I' },
	{ "cq-mod", required_argument, NULL, OPT_CQ_MOD },
	{ "qp_timeout", required_argument, NULL, 'u' },
	{ "report-histogram", no_argument, NULL, 'H' },
	{ "cpu_util", no_argument, NULL, OPT_CPU_UTIL },
	{ "mtu", required_argument, NULL, 'm' },
	{ "port", required_argument, NULL, 'p' },
	{ "rdma_cm", no_argument, NULL, 'R' },
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "workers", required_argument, NULL, OPT_WORKERS },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "baseline", no_argument, NULL, OPT_BASELINE },
	{ "fault", required_argument, NULL, OPT_FAULT },
	{ "loopback", no_argument, NULL, OPT_LOOPBACK },
	{ "ip", required_argument, NULL, OPT_IP },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "config-port", required_argument, NULL, OPT_CONFIG_PORT },
	{ "no-pdump", no_argument, NULL, OPT_NO_PDUMP },
	{ "pcap", required_argument, NULL, OPT_PCAP },
	{ "print-memory", no_argument, NULL, OPT_PRINT_MEMORY },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void
perf_usage(void)
{
	printf("usage: roce_perf [EAL args] -- [options] [server host]\n"
	       "  --test T            write, read, send, atomic, fetch_add, cmp_swap; T_bw or T_lat\n"
	       "                      also sets the mode (default write_bw)\n"
	       "  --mode bw|lat       bandwidth/message rate, or latency\n"
	       "  -A, --atomic_type   CMP_AND_SWAP or FETCH_AND_ADD (--test atomic)\n"
	       "  -s, --size N        message size (BW 65536, LAT 2, atomics 8)\n"
	       "  -a, --all           sweep sizes 2..65536\n"
	       "  -n, --iters N       messages per QP (write_bw 5000, else 1000)\n"
	       "  -D, --duration S    run S seconds instead (BW)\n"
	       "  -q, --qp N          QPs (1..%u)\n"
	       "  -t, --tx-depth N    WRs in flight per QP (BW 128, LAT 1)\n"
	       "  -r, --rx-depth N    receives posted per QP (SEND 512)\n"
	       "  -l, --post_list N   WRs per post call\n"
	       "  -I, --inline_size N inline bytes (default 0)\n"
	       "  --cq-mod N          signal one WR in N (BW 100); the rest are unsignaled\n"
	       "  -u, --qp_timeout N  local ACK timeout 4.096 us * 2^N, 0..31 (14: 67 ms); not\n"
	       "                      with -R (the connection manager's own)\n"
	       "  -H, --report-histogram  latency tests: the round trips' histogram (power-of-two\n"
	       "                      buckets from 0.125 us) after the summary (perftest -H lists\n"
	       "                      every sample instead)\n"
	       "  --cpu_util          the CPU the run used where it ran (the client, or both ends\n"
	       "                      with --loopback): this process (user + system over the\n"
	       "                      run's time) and the machine (/proc/stat, all CPUs, as\n"
	       "                      perftest's --cpu_util; any mode, not only -D)\n"
	       "  -m, --mtu N         IB MTU 256..4096 (Ethernet MTU N+80, set unchecked)\n"
	       "  -p, --port N        TCP port of the exchange (18515); with -R the rdma_cm port\n"
	       "  -R, --rdma_cm       connect with rdma_cm as perftest -R: the exchange over an RC\n"
	       "                      QP and the test's QPs through librte_roce_cm; the server\n"
	       "                      host is then the server's RoCE address\n"
	       "  -d, --ib-dev NAME   ethdev to use (two processes)\n"
	       "  --ip ADDR[/LEN]     our address (two processes)\n"
	       "  --config FILE       port settings and device limits (config/roce.conf.example);\n"
	       "                      two processes: also the ethdev and address\n"
	       "  --config-port NAME  the file's [port NAME] to use (default: the first)\n"
	       "  --workers N         the device on N worker lcores (the EAL's first N after\n"
	       "                      main), N port queues, QP q on lane q %% N; 0 = inline\n"
	       "                      in this thread (default). --loopback: the server stays\n"
	       "                      inline with N lanes\n"
	       "  --verify            check every byte received\n"
	       "  --json              one JSON object per size on stdout\n"
	       "  --baseline          also measure raw packet I/O on the same PMD and frame size\n"
	       "  --fault SPEC        drop=P,dup=P,reorder=P,corrupt=P,seed=N on every RX queue\n"
	       "  --loopback          both ends in this process (net_ring pair)\n"
	       "  --pcap FILE         capture every frame of our port (--loopback: the client's, so\n"
	       "                      both directions of the link) to FILE, any EAL mode\n"
	       "  --no-pdump          do not let dpdk-dumpcap capture (it can by default when the\n"
	       "                      EAL runs with multi-process and hugepages)\n"
	       "  --print-memory      print the DPDK memory (hugepages) the run needs, item by\n"
	       "                      item, before asking for it, and what it took once set up\n"
	       "  --dry-run           print what --print-memory prints first, then exit 0\n",
	       PERF_QPS_MAX);
}

static int
perf_num(const char *opt, const char *arg, unsigned long min, unsigned long max,
	 unsigned long *v)
{
	if (pp_parse_number(arg, min, max, v) == 0)
		return 0;
	fprintf(stderr, "roce_perf: %s: \"%s\" is not a number in %lu..%lu\n", opt, arg, min, max);
	return -EINVAL;
}

static int
perf_parse_test(struct perf_opts *o, const char *arg, bool *mode_set)
{
	static const char *const names[] = { "write", "read", "send", "fetch_add", "cmp_swap" };
	char name[32];
	const char *us = strrchr(arg, '_');
	unsigned int i;

	snprintf(name, sizeof(name), "%s", arg);
	if (us != NULL && (strcmp(us, "_bw") == 0 || strcmp(us, "_lat") == 0)) {
		o->mode = strcmp(us, "_bw") == 0 ? PERF_MODE_BW : PERF_MODE_LAT;
		*mode_set = true;
		name[us - arg] = '\0';
	}
	if (strcmp(name, "atomic") == 0) {
		o->test = PERF_TEST_FETCH_ADD;
		return 0;
	}
	for (i = 0; i < RTE_DIM(names); i++) {
		if (strcmp(name, names[i]) == 0) {
			o->test = i;
			return 0;
		}
	}
	fprintf(stderr, "roce_perf: unknown test \"%s\"\n", arg);
	return -EINVAL;
}

static int
perf_parse_fault(struct rte_roce_fault_conf *f, const char *arg)
{
	char key[16];
	double v;
	int n;

	memset(f, 0, sizeof(*f));
	f->roce_only = true;
	f->reorder_depth = 1;
	while (*arg != '\0') {
		if (sscanf(arg, "%15[a-z]=%lf%n", key, &v, &n) != 2)
			goto bad;
		if (strcmp(key, "drop") == 0)
			f->drop = v;
		else if (strcmp(key, "dup") == 0)
			f->dup = v;
		else if (strcmp(key, "reorder") == 0)
			f->reorder = v;
		else if (strcmp(key, "corrupt") == 0)
			f->corrupt = v;
		else if (strcmp(key, "seed") == 0)
			f->seed = (uint64_t)v;
		else
			goto bad;
		if (v < 0 || (strcmp(key, "seed") != 0 && v > 1))
			goto bad;
		arg += n;
		if (*arg == ',')
			arg++;
	}
	if (f->drop + f->dup + f->reorder + f->corrupt > 1)
		goto bad;
	return 0;
bad:
	fprintf(stderr, "roce_perf: --fault wants drop=P,dup=P,reorder=P,corrupt=P,seed=N "
		"(probabilities 0..1, sum at most 1)\n");
	return -EINVAL;
}

/* perftest's defaults for what was not given (PT:perftest_parameters.h). */
static void
perf_defaults(struct perf_opts *o, bool size_set, bool iters_set, bool depth_set,
	      bool rx_set, bool cq_mod_set)
{
	bool atomic = o->test == PERF_TEST_FETCH_ADD || o->test == PERF_TEST_CMP_SWAP;
	bool bw = o->mode == PERF_MODE_BW;

	if (!size_set)
		o->size = atomic ? PERF_ATOMIC_SIZE : bw ? PERF_BW_SIZE : PERF_LAT_SIZE;
	if (atomic)
		o->size = PERF_ATOMIC_SIZE;
	if (!iters_set)
		o->iters = o->test == PERF_TEST_WRITE && bw ? PERF_BW_ITERS : PERF_LAT_ITERS;
	if (!depth_set)
		o->tx_depth = bw ? PERF_TX_DEPTH_BW : PERF_TX_DEPTH_LAT;
	if (!rx_set)
		o->rx_depth = o->test == PERF_TEST_SEND ? (bw ? PERF_RX_DEPTH_SEND : 1) : 0;
	if (!cq_mod_set)
		o->cq_mod = bw ? PERF_CQ_MOD : 1;
	/* as perftest: never more unsignaled WRs than the queue holds */
	o->cq_mod = RTE_MIN(o->cq_mod, o->tx_depth);
}

static int
perf_check(const struct perf_opts *o)
{
	const char *why = NULL;

	if (o->post_list > o->tx_depth)
		why = "-l must not exceed -t";
	else if (o->workers > RTE_ROCE_DEV_WORKERS_MAX)
		why = "--workers: at most 16 (RTE_ROCE_DEV_WORKERS_MAX)";
	else if (o->workers > 0 && o->baseline)
		why = "--baseline drives the port's queues itself: not with --workers (their lanes poll them)";
	else if (o->workers > 1 && o->fault)
		why = "--fault acts on RX queue 0 only: not with --workers above 1";
	else if (o->workers > rte_lcore_count() - 1)
		why = "--workers N needs N worker lcores besides the main one: give the EAL "
		      "-l 0-N (or --lcores '(0-N)@(0-M)' to float them over CPUs 0-M)";
	else if (o->mode == PERF_MODE_LAT && (o->qps != 1 || o->duration_s > 0))
		why = "latency tests run one QP for -n iterations";
	else if (o->histogram && o->mode != PERF_MODE_LAT)
		why = "-H reports the latency histogram: latency tests only";
	else if (o->mode == PERF_MODE_LAT && o->iters > PERF_LAT_SAMPLES_MAX)
		why = "too many latency iterations";
	else if (o->test == PERF_TEST_SEND && o->mode == PERF_MODE_LAT && o->rx_depth < 1)
		why = "SEND latency needs -r 1 or more";
	else if (o->ib_mtu != 0 && rte_roce_port_ib_mtu(o->ib_mtu + PERF_HDR_ALLOWANCE) != o->ib_mtu)
		why = "-m must be 256, 512, 1024, 2048 or 4096";
	else if (!o->loopback && o->ip == NULL)
		why = "two-process mode needs --ip (or use --loopback)";
	else if (o->loopback && o->server != NULL)
		why = "--loopback takes no server host";
	else if (o->rdma_cm && o->loopback)
		why = "-R connects two processes: not with --loopback";
	else if (o->rdma_cm && o->baseline)
		why = "--baseline drives the port's queues raw, and with -R the exchange runs over "
		      "them: not with -R";
	else if (o->rdma_cm && o->qp_timeout_set)
		why = "-u: with -R the connection manager sets the QPs' ACK timeout (2.1 s)";
	if (why == NULL)
		return 0;
	fprintf(stderr, "roce_perf: %s\n", why);
	return -EINVAL;
}

static int
perf_parse(int argc, char **argv, struct perf_opts *o)
{
	bool size_set = false, iters_set = false, depth_set = false, rx_set = false;
	bool cq_set = false, mode_set = false;
	unsigned long v;
	int c, ret = 0;

	*o = (struct perf_opts){ .qps = 1, .post_list = 1, .workers = 0,
				 .tcp_port = PERF_TCP_PORT, .qp_timeout = PERF_QP_TIMEOUT };
	while (ret == 0 && (c = getopt_long(argc, argv, "A:s:an:D:q:t:r:l:I:u:m:p:Rd:Hh",
					    perf_longopts, NULL)) != -1) {
		switch (c) {
		case OPT_TEST:
			ret = perf_parse_test(o, optarg, &mode_set);
			break;
		case OPT_MODE:
			if (strcmp(optarg, "bw") != 0 && strcmp(optarg, "lat") != 0) {
				fprintf(stderr, "roce_perf: --mode is bw or lat\n");
				ret = -EINVAL;
			}
			o->mode = strcmp(optarg, "lat") == 0 ? PERF_MODE_LAT : PERF_MODE_BW;
			break;
		case 'A':
			if (strcmp(optarg, "CMP_AND_SWAP") == 0) {
				o->test = PERF_TEST_CMP_SWAP;
			} else if (strcmp(optarg, "FETCH_AND_ADD") == 0) {
				o->test = PERF_TEST_FETCH_ADD;
			} else {
				fprintf(stderr, "roce_perf: -A is CMP_AND_SWAP or FETCH_AND_ADD\n");
				ret = -EINVAL;
			}
			break;
		case 's':
			ret = perf_num("-s", optarg, 1, PERF_SIZE_MAX, &v);
			o->size = v;
			size_set = true;
			break;
		case 'a':
			o->sweep = true;
			break;
		case 'n':
			ret = perf_num("-n", optarg, 1, 1ul << 40, &v);
			o->iters = v;
			iters_set = true;
			break;
		case 'D':
			ret = perf_num("-D", optarg, 1, 3600, &v);
			o->duration_s = v;
			break;
		case 'q':
			ret = perf_num("-q", optarg, 1, PERF_QPS_MAX, &v);
			o->qps = v;
			break;
		case 't':
			ret = perf_num("-t", optarg, 1, 4096, &v);
			o->tx_depth = v;
			depth_set = true;
			break;
		case 'r':
			ret = perf_num("-r", optarg, 1, 4096, &v);
			o->rx_depth = v;
			rx_set = true;
			break;
		case 'l':
			ret = perf_num("-l", optarg, 1, 64, &v);
			o->post_list = v;
			break;
		case 'I':
			ret = perf_num("-I", optarg, 0, RTE_ROCE_DEV_MAX_INLINE_MAX, &v);
			o->inline_size = v;
			break;
		case OPT_CQ_MOD:
			ret = perf_num("--cq-mod", optarg, 1, 4096, &v);
			o->cq_mod = v;
			cq_set = true;
			break;
		case 'u':
			ret = perf_num("-u", optarg, 0, PERF_QP_TIMEOUT_MAX, &v);
			o->qp_timeout = v;
			o->qp_timeout_set = true;
			break;
		case 'm':
			ret = perf_num("-m", optarg, 256, 4096, &v);
			o->ib_mtu = v;
			break;
		case 'p':
			ret = perf_num("-p", optarg, 1, UINT16_MAX, &v);
			o->tcp_port = v;
			break;
		case 'R':
			o->rdma_cm = true;
			break;
		case 'd':
			o->ethdev = optarg;
			break;
		case OPT_WORKERS:
			ret = perf_num("--workers", optarg, 0, RTE_MAX_LCORE, &v);
			o->workers = v;
			break;
		case 'H':
			o->histogram = true;
			break;
		case OPT_CPU_UTIL:
			o->cpu_util = true;
			break;
		case OPT_VERIFY:
			o->verify = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_BASELINE:
			o->baseline = true;
			break;
		case OPT_FAULT:
			o->fault = true;
			ret = perf_parse_fault(&o->fault_conf, optarg);
			break;
		case OPT_LOOPBACK:
			o->loopback = true;
			break;
		case OPT_IP:
			o->ip = optarg;
			break;
		case OPT_CONFIG:
			o->config_path = optarg;
			break;
		case OPT_CONFIG_PORT:
			o->config_port = optarg;
			break;
		case OPT_NO_PDUMP:
			o->no_pdump = true;
			break;
		case OPT_PCAP:
			o->pcap = optarg;
			break;
		case OPT_PRINT_MEMORY:
			o->print_memory = true;
			break;
		case OPT_DRY_RUN:
			o->dry_run = true;
			break;
		case 'h':
			perf_usage();
			exit(0);
		default:
			ret = -EINVAL;
		}
	}
	if (ret != 0)
		return ret;
	if (optind < argc)
		o->server = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "roce_perf: unexpected argument \"%s\"\n", argv[optind]);
		return -EINVAL;
	}
	perf_defaults(o, size_set, iters_set, depth_set, rx_set, cq_set);
	ret = perf_config_apply(o);
	return ret != 0 ? ret : perf_check(o);
}

/*
 * Two ethdevs for --loopback: the first two probed, or a new net_ring pair
 * of nq queues each way (queue q of one port's TX arrives on queue q of the
 * other's RX: a frame lands on the lane of its QP when both sides put QP q
 * on lane q % nq, as perf_side_qps() does).
 */
static int
perf_loop_eths(uint16_t eth[2], uint16_t nq)
{
	struct rte_ring *ab[RTE_ROCE_DEV_WORKERS_MAX], *ba[RTE_ROCE_DEV_WORKERS_MAX];
	char name[RTE_RING_NAMESIZE];
	uint16_t id, n = 0, q;
	int a, b;

	RTE_ETH_FOREACH_DEV(id) {
		if (n < 2)
			eth[n++] = id;
	}
	if (n == 2)
		return 0;
	for (q = 0; q < nq; q++) {
		snprintf(name, sizeof(name), "perf_ab%u", q);
		ab[q] = rte_ring_create(name, PERF_RING_SIZE, SOCKET_ID_ANY,
					RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "perf_ba%u", q);
		ba[q] = rte_ring_create(name, PERF_RING_SIZE, SOCKET_ID_ANY,
					RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (ab[q] == NULL || ba[q] == NULL)
			return -ENOMEM;
	}
	a = rte_eth_from_rings("perf_a", ba, nq, ab, nq, SOCKET_ID_ANY);
	b = rte_eth_from_rings("perf_b", ab, nq, ba, nq, SOCKET_ID_ANY);
	if (a < 0 || b < 0)
		return -ENODEV;
	eth[0] = a;
	eth[1] = b;
	return 0;
}

static int
perf_sizes(const struct perf_opts *o, uint32_t *sizes)
{
	uint32_t s, n = 0;

	if (!o->sweep || o->test == PERF_TEST_FETCH_ADD || o->test == PERF_TEST_CMP_SWAP) {
		sizes[0] = o->size;
		return 1;
	}
	for (s = PERF_SWEEP_MIN; s <= PERF_SWEEP_MAX; s *= 2)
		sizes[n++] = s;
	return n;
}

/*
 * --pcap: the library's capture of side s's port (doc/observability.md),
 * which works in every EAL mode, --in-memory included, where dpdk-dumpcap
 * cannot attach.
 */
static int
perf_capture_start(const struct perf_opts *o, struct perf_side *s)
{
	int ret;

	if (o->pcap == NULL)
		return 0;
	ret = rte_roce_port_capture_start(s->port, o->pcap);
	if (ret != 0)
		fprintf(stderr, "roce_perf: --pcap %s: %s\n", o->pcap, strerror(-ret));
	s->capture = ret == 0;
	return ret;
}

/*
 * The exchange and the QPs' connection with the peer, as perftest: over TCP
 * the hello, the records, our QPs to RTS, the records again and one more
 * sync; with -R (perf_cm.c) the exchange QP first, and after the hello the
 * QPs connected by rdma_cm between two syncs instead of by us.
 */
static int
perf_connect(struct perf_run *r, struct perf_side *s)
{
	const struct perf_opts *o = r->o;
	int ret;

	ret = perf_oob_open(o, r->oob);
	if (ret == 0 && o->rdma_cm)
		ret = perf_cm_open(s, o, &r->oob->cm);
	if (ret != 0)
		return ret;
	ret = perf_oob_hello(r->oob, &s->ib_mtu);
	if (ret == 0 && o->rdma_cm)
		ret = perf_cm_connect_qps(r->oob->cm, r->oob);
	if (ret == 0)
		ret = perf_oob_xchg_dests(r->oob, s->local, s->remote, o->qps);
	if (ret == 0)
		ret = o->rdma_cm ? perf_cm_check(r->oob->cm) : perf_side_connect(s, o);
	/* perftest: the records again after RTR, then one more handshake */
	if (ret == 0)
		ret = perf_oob_xchg_dests(r->oob, s->local, s->remote, o->qps);
	if (ret == 0)
		ret = perf_oob_sync(r->oob);
	if (ret != 0)
		fprintf(stderr, "roce_perf: exchange with the peer failed: %s\n", strerror(-ret));
	return ret;
}

/*
 * Set up: sides, QPs, exchange, connect. --print-memory and --dry-run: what
 * it needs into need, printed once the ethdevs exist (their PMDs' memory is
 * the EAL's part), before the first port; --dry-run stops there (PERF_DRY_RUN).
 */
static int
perf_setup(struct perf_run *r, struct perf_side *side, uint32_t max_size, struct pp_mem *need)
{
	const struct perf_opts *o = r->o;
	uint16_t eth[2];
	int ret;

	if (o->loopback) {
		ret = perf_loop_eths(eth, (uint16_t)RTE_MAX(o->workers, 1u));
		if (ret != 0) {
			fprintf(stderr, "roce_perf: --loopback: no net_ring pair: %s\n", strerror(-ret));
			return ret;
		}
		if (o->print_memory || o->dry_run)
			perf_mem_print_need(o, need);
		if (o->dry_run)
			return PERF_DRY_RUN;
		side[0].name = "client";
		side[1].name = "server";
		/* the client's device on the workers, the server inline with as many lanes */
		ret = perf_side_open(&side[0], o, eth[0], PERF_LOOP_IP_CLI, 1, true);
		if (ret == 0)
			ret = perf_capture_start(o, &side[0]);
		if (ret == 0)
			ret = perf_side_open(&side[1], o, eth[1], PERF_LOOP_IP_SRV, 2, false);
		if (ret == 0)
			ret = perf_side_qps(&side[0], o, max_size);
		if (ret == 0)
			ret = perf_side_qps(&side[1], o, max_size);
		if (ret != 0)
			return ret;
		memcpy(side[0].remote, side[1].local, sizeof(side[0].remote));
		memcpy(side[1].remote, side[0].local, sizeof(side[1].remote));
		r->cli = &side[0];
		r->srv = &side[1];
		ret = perf_side_connect(r->cli, o);
		return ret == 0 ? perf_side_connect(r->srv, o) : ret;
	}
	if (o->print_memory || o->dry_run)
		perf_mem_print_need(o, need);
	if (o->dry_run)
		return PERF_DRY_RUN;
	if (pp_find_ethdev(o->ethdev, &eth[0]) != 0) {
		fprintf(stderr, "roce_perf: no ethdev %s\n", o->ethdev ? o->ethdev : "at all");
		return -ENODEV;
	}
	side[0].name = o->server != NULL ? "client" : "server";
	ret = perf_side_open(&side[0], o, eth[0], o->ip, 1, true);
	if (ret == 0)
		ret = perf_capture_start(o, &side[0]);
	if (ret == 0)
		ret = perf_side_qps(&side[0], o, max_size);
	if (ret != 0)
		return ret;
	if (o->server != NULL)
		r->cli = &side[0];
	else
		r->srv = &side[0];
	return perf_connect(r, &side[0]);
}

static int
perf_baseline(struct perf_run *r, uint32_t size, struct perf_result *res)
{
	const struct perf_side *s = r->cli != NULL ? r->cli : r->srv;
	uint32_t len = perf_frame_len(r->o->test, size, s->ib_mtu);

	if (r->o->loopback)
		return perf_base_loopback(r, len, &res->base);
	if (r->cli != NULL)
		return perf_base_client(r, len, &res->base);
	return perf_base_server(r, len);
}

static int
perf_main(const struct perf_opts *o)
{
	struct perf_side side[2] = { 0 };
	struct perf_oob oob = { .fd = -1 };
	struct perf_run r = { .o = o, .oob = o->loopback ? NULL : &oob };
	struct pp_mem need;
	uint32_t sizes[32];
	struct perf_result res;
	int n, i, ret, stop;

	n = perf_sizes(o, sizes);
	ret = perf_setup(&r, side, sizes[n - 1], &need);
	if (ret == PERF_DRY_RUN)
		return 0;
	if (ret == -ENOMEM)
		perf_explain_nomem(o);
	if (ret == 0 && o->print_memory)
		perf_mem_print_used(o, &need);
	if (ret == 0)
		perf_print_header(o, &side[0]);
	for (i = 0; i < n && ret == 0; i++) {
		if (r.cli != NULL)
			ret = perf_run_size(&r, sizes[i], i == 0, &res);
		else
			ret = perf_serve_size(&r, sizes[i], i == 0, &res);
		if (ret == 0 && r.oob != NULL && perf_sync_after(o))
			ret = perf_oob_report(r.oob, &res);
		if (ret == 0 && o->baseline)
			ret = perf_baseline(&r, sizes[i], &res);
		if (ret == 0 && (r.cli != NULL || o->mode == PERF_MODE_BW)) {
			perf_print_row(o, &res);
			perf_print_json(o, &res);
		}
	}
	/* SIGTERM or SIGINT: a clean stop, not a failure (doc/deploy.md) */
	if (pp_stop_requested)
		ret = perf_stop(&r, side, RTE_DIM(side));
	if (ret == 0 && !o->json)
		printf("%s\n", PERF_LINE);
	/*
	 * Two processes over net_memif: the peer may close its port as soon as
	 * the exchange ends; its disconnect must not run in our interrupt
	 * thread while we close ours (pp_intr_park(), doc/lessons.md).
	 */
	pp_intr_park(PP_INTR_PARK_TIMEOUT_MS);
	if (r.oob != NULL && (r.oob->fd >= 0 || r.oob->cm != NULL))
		perf_oob_close(r.oob, ret == 0 && perf_sync_close(o) && !pp_stop_requested);
	if (r.oob != NULL)
		perf_cm_close(r.oob->cm);
	/* Stopped here to learn whether the file was written; destroy would stop it silently. */
	if (side[0].capture) {
		stop = rte_roce_port_capture_stop(side[0].port);
		if (stop != 0) {
			fprintf(stderr, "roce_perf: --pcap %s: %s\n", o->pcap, strerror(-stop));
			ret = ret != 0 ? ret : stop;
		}
	}
	perf_side_close(&side[0]);
	perf_side_close(&side[1]);
	return ret;
}

int
main(int argc, char **argv)
{
	struct perf_opts o;
	bool pdump = false;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "roce_perf: EAL init failed: %s\n", rte_strerror(rte_errno));
		/* 22.11 says EACCES when no hugepage is free, ENOMEM when they do not suffice */
		if (rte_errno == EACCES || rte_errno == ENOMEM)
			perf_explain_nomem(NULL);
		return 1;
	}
	argc -= ret;
	argv += ret;
	/* a --vdev the EAL could not make: no silent net_ring pair instead (--loopback) */
	ret = pp_vdevs_check("roce_perf");
	if (ret == 0)
		ret = perf_parse(argc, argv, &o);
	/*
	 * dpdk-dumpcap can capture our ethdevs when the EAL runs with
	 * multi-process and hugepages; otherwise we run on without it
	 * (rte_roce_pdump_enable() logs why at INFO). Undone once the ports
	 * are stopped, before the EAL goes. Not with --baseline: its raw
	 * bursts (perf_base.c) bypass the port layer, which keeps a capture's
	 * detaching from freeing memory under a running burst.
	 */
	if (ret == 0)
		ret = pp_oob_stop_on_signals();
	if (ret == 0 && !o.no_pdump && !o.baseline)
		pdump = rte_roce_pdump_enable() == 0;
	if (ret == 0) {
		srand48(rte_rdtsc());
		ret = perf_main(&o);
	}
	if (pdump)
		rte_roce_pdump_disable();
	pp_eal_fini();
	return ret == 0 ? 0 : 1;
}
