/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ucmatose: librdmacm's ucmatose (cmatose.c, rdma-core v44) on librte_roce
 * and librte_roce_cm: -c connections at once through rdma_cm, -C SENDs of
 * -S bytes each way on each, then the server disconnects them all. Same
 * options, same order of events, same output, so it runs against the
 * unmodified ucmatose on a kernel rxe peer, in either role.
 *
 *   ucmatose [EAL args] -- --ip ADDR[/LEN] [-b bind_addr] [-c n] [-C n] [-S n] [-p port] [-P tcp|ib]
 *   ucmatose [EAL args] -- --ip ADDR[/LEN] -s server_addr [-b bind_addr] [options]
 *
 * As the original: the client resolves every id, and on ROUTE_RESOLVED
 * creates its QP (CQs and send/receive queues of -C entries, every send
 * signalled), posts -C receives and connects (responder resources and
 * initiator depth 1, retry count 5); the server does the same on each
 * CONNECT_REQUEST and accepts. Once all are ESTABLISHED, the server SENDs
 * -C messages on each, waits for their completions, then for -C from each
 * client, and disconnects them all; the client receives, answers with -C
 * SENDs and waits for the DISCONNECTED events. Message contents are not
 * checked (the original does not either).
 *
 * Differences from the original, all deliberate:
 * - one thread drives the device, the CM and the CQs (rte_roce_poll(),
 *   rte_roce_cm_poll()); the original blocks in rdma_get_cm_event().
 * - -s and -b take addresses (-f name is not served, -f ip is the default);
 *   without -b the --ip address is used.
 * - -t (type of service) and -m (migrate to a new channel) are refused.
 * - a wait with no progress ends after --timeout seconds (default 60).
 * - --cm-stats: at the end, one line of the CM's non-zero counters
 *   ("cm counters: cm_mads_sent 98 cm_established 16 ..."), by which a test
 *   counts connections established and MADs sent again.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netinet/in.h>

#include <rte_common.h>
#include <rte_errno.h>

#include <rte_roce_cm.h>
#include <rte_roce_gid.h>
#include <rte_roce_verbs.h>

#include "pp_port.h"
#include "pp_session.h"
#include "pp_verbs.h"

/* The original's defaults (RC:librdmacm/examples/cmatose.c). */
#define UC_PORT_DEFAULT 7471
#define UC_SIZE_DEFAULT 100
#define UC_COUNT_DEFAULT 10
#define UC_RESOLVE_MS 2000
#define UC_RETRY_COUNT 5
#define UC_WC_BATCH 8
#define UC_TIMEOUT_S_DEFAULT 60
#define UC_MS_PER_S 1000

enum { UC_OPT_TIMEOUT = PP_PORT_OPT_END, UC_OPT_CM_STATS };
enum uc_cq { UC_SEND_CQ, UC_RECV_CQ, UC_NB_CQ };

struct uc_opts {
	struct pp_port_conf port;
	const char *dst;		/* -s: client mode */
	const char *src;		/* -b */
	int connections;		/* -c */
	int count;			/* -C */
	int size;			/* -S */
	uint16_t port_num;		/* -p */
	enum rte_roce_cm_port_space ps;	/* -P */
	unsigned int timeout_s;		/* --timeout */
	bool cm_stats;			/* --cm-stats */
};

struct uc_node {
	struct rte_roce_cm_id *id;
	bool connected;
	struct ibv_pd *pd;
	struct ibv_cq *cq[UC_NB_CQ];
	struct ibv_mr *mr;
	void *mem;
};

struct uc_test {
	const struct uc_opts *o;
	struct pp_port pp;
	struct rte_roce_cm *cm;
	struct rte_roce_cm_channel *channel;
	struct rte_roce_cm_id *listen_id;
	struct uc_node *nodes;
	int conn_index;
	int connects_left;
	int disconnects_left;
	int status;	/* the first failing event's status, or an error */
};

static void
uc_usage(const char *argv0)
{
	printf("usage: %s\n", argv0);
	printf("\t[-s server_address]\n");
	printf("\t[-b bind_address]\n");
	printf("\t[-f address_format]\n");
	printf("\t    ip (the only one here)\n");
	printf("\t[-P port_space]\n");
	printf("\t    tcp or ib\n");
	printf("\t[-c connections]\n");
	printf("\t[-C message_count]\n");
	printf("\t[-S message_size]\n");
	printf("\t[-p port_number]\n");
	printf("\t[--timeout S] give up a wait without progress after S seconds (60)\n");
	printf("\t[--cm-stats] print the CM's non-zero counters at the end\n");
	pp_port_usage();
}

static int
uc_number(const char *arg, unsigned long min, unsigned long max, int *v)
{
	unsigned long n;

	if (pp_parse_number(arg, min, max, &n) != 0)
		return -EINVAL;
	*v = (int)n;
	return 0;
}

static int
uc_opt(struct uc_opts *o, int c, const char *arg)
{
	int v = 0, ret = pp_port_opt(&o->port, c, arg);

	if (ret != 0)
		return ret < 0 ? ret : 0;
	switch (c) {
	case 's':
		o->dst = arg;
		return 0;
	case 'b':
		o->src = arg;
		return 0;
	case 'f':
		if (strncasecmp(arg, "ip", 2) == 0)
			return 0;
		fprintf(stderr, "-f %s: only ip addresses here\n", arg);
		return -EINVAL;
	case 'P':
		if (strncasecmp(arg, "ib", 2) == 0)
			o->ps = RTE_ROCE_CM_PS_IB;
		else if (strncasecmp(arg, "tcp", 3) != 0)
			fprintf(stderr, "Warning: unknown port space format\n");
		return 0;
	case 'c':
		return uc_number(arg, 1, INT_MAX, &o->connections);
	case 'C':
		return uc_number(arg, 0, INT_MAX, &o->count);
	case 'S':
		return uc_number(arg, 0, INT_MAX, &o->size);
	case 'p':
		ret = uc_number(arg, 0, UINT16_MAX, &v);
		o->port_num = (uint16_t)v;
		return ret;
	case 't':
	case 'm':
		fprintf(stderr, "-%c: not supported by this ucmatose\n", c);
		return -EINVAL;
	case UC_OPT_TIMEOUT:
		ret = uc_number(arg, 1, UINT_MAX / UC_MS_PER_S, &v);
		o->timeout_s = (unsigned int)v;
		return ret;
	case UC_OPT_CM_STATS:
		o->cm_stats = true;
		return 0;
	default:
		return -EINVAL;
	}
}

static int
uc_parse_args(int argc, char **argv, struct uc_opts *o)
{
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, UC_OPT_TIMEOUT },
		{ "cm-stats", no_argument, NULL, UC_OPT_CM_STATS },
		PP_PORT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->connections = 1;
	o->count = UC_COUNT_DEFAULT;
	o->size = UC_SIZE_DEFAULT;
	o->port_num = UC_PORT_DEFAULT;
	o->ps = RTE_ROCE_CM_PS_TCP;
	o->timeout_s = UC_TIMEOUT_S_DEFAULT;
	while ((c = getopt_long(argc, argv, "s:b:f:P:c:C:S:t:p:m", longopts, NULL)) != -1) {
		if (uc_opt(o, c, optarg) != 0) {
			uc_usage("ucmatose");
			return -EINVAL;
		}
	}
	if (optind != argc || pp_port_conf_check(&o->port) != 0) {
		uc_usage("ucmatose");
		return -EINVAL;
	}
	/* As the original's create_message(): no size, no messages. */
	if (o->size == 0)
		o->count = 0;
	return 0;
}

/* "ADDR" (or the port's own address when NULL) with the -p port. */
static int
uc_sockaddr(const struct uc_test *t, const char *addr, struct sockaddr_storage *ss)
{
	const char *why;

	if (addr == NULL) {
		pp_gid_sockaddr(&t->pp.addr, t->o->port_num, ss);
		return 0;
	}
	if (pp_parse_sockaddr(addr, t->o->port_num, ss, &why) == 0)
		return 0;
	printf("cmatose: getaddrinfo error: %s\n", why);
	return -EINVAL;
}

/* ---- a connection's resources (init_node, post_recvs, post_sends) ---- */

static int
uc_init_node(struct uc_test *t, struct uc_node *n)
{
	int cqe = t->o->count != 0 ? t->o->count : 1;
	struct ibv_qp_init_attr init = {
		.cap = {
			.max_send_wr = cqe,
			.max_recv_wr = cqe,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_all = 1,
		.qp_type = IBV_QPT_RC,
	};
	int ret;

	n->pd = rte_roce_alloc_pd(n->id->verbs);
	if (n->pd == NULL) {
		printf("cmatose: unable to allocate PD\n");
		return -ENOMEM;
	}
	n->cq[UC_SEND_CQ] = rte_roce_create_cq(n->id->verbs, cqe, n, NULL, 0);
	n->cq[UC_RECV_CQ] = rte_roce_create_cq(n->id->verbs, cqe, n, NULL, 0);
	if (n->cq[UC_SEND_CQ] == NULL || n->cq[UC_RECV_CQ] == NULL) {
		printf("cmatose: unable to create CQ\n");
		return -ENOMEM;
	}
	init.send_cq = n->cq[UC_SEND_CQ];
	init.recv_cq = n->cq[UC_RECV_CQ];
	ret = rte_roce_cm_create_qp(n->id, n->pd, &init);
	if (ret != 0) {
		printf("cmatose: unable to create QP: %s\n", strerror(-ret));
		return ret;
	}
	if (t->o->count == 0)
		return 0;
	n->mem = malloc(t->o->size);
	n->mr = n->mem == NULL ? NULL :
		rte_roce_reg_mr(n->pd, n->mem, t->o->size, IBV_ACCESS_LOCAL_WRITE);
	if (n->mr == NULL) {
		printf("cmatose: failed to create messages\n");
		return -ENOMEM;
	}
	return 0;
}

static int
uc_post_recvs(struct uc_test *t, struct uc_node *n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)n->mem,
		.length = t->o->size,
		.lkey = n->mr != NULL ? n->mr->lkey : 0,
	};
	struct ibv_recv_wr wr = { .wr_id = (uintptr_t)n, .sg_list = &sge, .num_sge = 1 }, *bad;
	int i, ret = 0;

	for (i = 0; i < t->o->count && ret == 0; i++) {
		ret = rte_roce_post_recv(n->id->qp, &wr, &bad);
		if (ret != 0)
			printf("failed to post receives: %d\n", ret);
	}
	return ret;
}

static int
uc_post_sends(struct uc_test *t, struct uc_node *n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)n->mem,
		.length = t->o->size,
		.lkey = n->mr != NULL ? n->mr->lkey : 0,
	};
	struct ibv_send_wr wr = {
		.wr_id = (uintptr_t)n,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
	}, *bad;
	int i, ret = 0;

	if (!n->connected)
		return 0;
	for (i = 0; i < t->o->count && ret == 0; i++) {
		ret = rte_roce_post_send(n->id->qp, &wr, &bad);
		if (ret != 0)
			printf("failed to post sends: %d\n", ret);
	}
	return ret;
}

static void
uc_destroy_node(struct uc_node *n)
{
	unsigned int i;

	if (n->id == NULL)
		return;
	if (n->id->qp != NULL)
		rte_roce_cm_destroy_qp(n->id);
	for (i = 0; i < UC_NB_CQ; i++)
		if (n->cq[i] != NULL)
			rte_roce_destroy_cq(n->cq[i]);
	if (n->mr != NULL)
		rte_roce_dereg_mr(n->mr);
	free(n->mem);
	if (n->pd != NULL)
		rte_roce_dealloc_pd(n->pd);
	rte_roce_cm_destroy_id(n->id);
}

/* ---- events (cma_handler and its helpers) ---- */

static int
uc_route_handler(struct uc_test *t, struct uc_node *n)
{
	const struct rte_roce_cm_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = UC_RETRY_COUNT,
	};
	int ret;

	ret = uc_init_node(t, n);
	if (ret == 0)
		ret = uc_post_recvs(t, n);
	if (ret == 0) {
		ret = rte_roce_cm_connect(n->id, &param);
		if (ret != 0)
			printf("cmatose: failure connecting: %s\n", strerror(-ret));
	}
	if (ret != 0)
		t->connects_left--;
	return ret;
}

static int
uc_connect_handler(struct uc_test *t, struct rte_roce_cm_id *id)
{
	struct uc_node *n;
	int ret;

	if (t->conn_index == t->o->connections) {
		ret = -ENOMEM;
		goto reject;
	}
	n = &t->nodes[t->conn_index++];
	n->id = id;
	id->context = n;
	ret = uc_init_node(t, n);
	if (ret == 0)
		ret = uc_post_recvs(t, n);
	if (ret == 0) {
		ret = rte_roce_cm_accept(id, NULL);
		if (ret == 0)
			return 0;
		printf("cmatose: failure accepting: %s\n", strerror(-ret));
	}
	t->connects_left--;
reject:
	printf("cmatose: failing connection request\n");
	rte_roce_cm_reject(id, NULL, 0);
	return ret;
}

static int
uc_cma_handler(struct uc_test *t, const struct rte_roce_cm_event *ev)
{
	struct uc_node *n = ev->id->context;
	int ret = 0;

	switch (ev->event) {
	case RTE_ROCE_CM_EVENT_ADDR_RESOLVED:
		ret = rte_roce_cm_resolve_route(ev->id, UC_RESOLVE_MS);
		if (ret != 0) {
			printf("cmatose: resolve route failed: %s\n", strerror(-ret));
			t->connects_left--;
		}
		break;
	case RTE_ROCE_CM_EVENT_ROUTE_RESOLVED:
		ret = uc_route_handler(t, n);
		break;
	case RTE_ROCE_CM_EVENT_CONNECT_REQUEST:
		ret = uc_connect_handler(t, ev->id);
		break;
	case RTE_ROCE_CM_EVENT_ESTABLISHED:
		n->connected = true;
		t->connects_left--;
		t->disconnects_left++;
		break;
	case RTE_ROCE_CM_EVENT_ADDR_ERROR:
	case RTE_ROCE_CM_EVENT_ROUTE_ERROR:
	case RTE_ROCE_CM_EVENT_CONNECT_ERROR:
	case RTE_ROCE_CM_EVENT_UNREACHABLE:
	case RTE_ROCE_CM_EVENT_REJECTED:
		printf("cmatose: event: %s, error: %d\n", rte_roce_cm_event_str(ev->event),
		       ev->status);
		t->connects_left--;
		ret = ev->status != 0 ? ev->status : -1;
		break;
	case RTE_ROCE_CM_EVENT_DISCONNECTED:
		/* The original answers with rdma_disconnect(); our CM sent the DREP already. */
		n->connected = false;
		t->disconnects_left--;
		break;
	default:
		break;
	}
	return ret;
}

/* ---- progress and waits ---- */

/* One round: the device, the CM, and the CM events; the first error is kept. */
static void
uc_progress(struct uc_test *t)
{
	struct rte_roce_cm_event *ev;
	int ret;

	pp_port_poll(&t->pp);
	rte_roce_cm_poll(t->cm);
	while (rte_roce_cm_get_cm_event(t->channel, &ev) == 0) {
		ret = uc_cma_handler(t, ev);
		rte_roce_cm_ack_cm_event(ev);
		if (ret != 0 && t->status == 0)
			t->status = ret;
	}
}

/* Progress until *left is 0 (connect_events, disconnect_events); 0 or the error. */
static int
uc_events(struct uc_test *t, const int *left, const char *what)
{
	uint64_t end = pp_now_ms() + (uint64_t)t->o->timeout_s * UC_MS_PER_S;

	while (*left > 0 && t->status == 0) {
		if (pp_now_ms() > end) {
			printf("cmatose: timeout waiting for %s (%d left)\n", what, *left);
			return -ETIMEDOUT;
		}
		uc_progress(t);
	}
	return t->status;
}

/* -C completions of the connected nodes' send or receive CQs (poll_cqs). */
static int
uc_poll_cqs(struct uc_test *t, enum uc_cq which)
{
	struct ibv_wc wc[UC_WC_BATCH];
	uint64_t end;
	int i, j, done, ret;

	for (i = 0; i < t->o->connections; i++) {
		if (!t->nodes[i].connected)
			continue;
		end = pp_now_ms() + (uint64_t)t->o->timeout_s * UC_MS_PER_S;
		for (done = 0; done < t->o->count; done += ret) {
			ret = rte_roce_poll_cq(t->nodes[i].cq[which], UC_WC_BATCH, wc);
			if (ret < 0) {
				printf("cmatose: failed polling CQ: %d\n", ret);
				return ret;
			}
			for (j = 0; j < ret; j++)
				if (wc[j].status != IBV_WC_SUCCESS) {
					printf("cmatose: completion failed: %s\n",
					       ibv_wc_status_str(wc[j].status));
					return -EIO;
				}
			if (ret == 0 && pp_now_ms() > end) {
				printf("cmatose: timeout polling connection %d's CQ\n", i);
				return -ETIMEDOUT;
			}
			uc_progress(t);
		}
	}
	return 0;
}

/* ---- the two roles ---- */

static int
uc_run_server(struct uc_test *t)
{
	struct sockaddr_storage src;
	int i, ret;

	printf("cmatose: starting server\n");
	ret = rte_roce_cm_create_id(t->channel, &t->listen_id, t, t->o->ps);
	if (ret != 0) {
		printf("cmatose: listen request failed: %s\n", strerror(-ret));
		return ret;
	}
	ret = uc_sockaddr(t, t->o->src, &src);
	if (ret == 0)
		ret = rte_roce_cm_bind_addr(t->listen_id, (struct sockaddr *)&src);
	if (ret == 0)
		ret = rte_roce_cm_listen(t->listen_id, 0);
	if (ret != 0) {
		printf("cmatose: bind or listen failed: %s\n", strerror(-ret));
		return ret;
	}
	ret = uc_events(t, &t->connects_left, "connections");
	if (ret != 0)
		return ret;
	if (t->o->count != 0) {
		printf("initiating data transfers\n");
		for (i = 0; i < t->o->connections; i++) {
			ret = uc_post_sends(t, &t->nodes[i]);
			if (ret != 0)
				return ret;
		}
		printf("completing sends\n");
		ret = uc_poll_cqs(t, UC_SEND_CQ);
		if (ret != 0)
			return ret;
		printf("receiving data transfers\n");
		ret = uc_poll_cqs(t, UC_RECV_CQ);
		if (ret != 0)
			return ret;
		printf("data transfers complete\n");
	}
	printf("cmatose: disconnecting\n");
	for (i = 0; i < t->o->connections; i++) {
		if (!t->nodes[i].connected)
			continue;
		t->nodes[i].connected = false;
		rte_roce_cm_disconnect(t->nodes[i].id);
	}
	ret = uc_events(t, &t->disconnects_left, "disconnections");
	printf("disconnected\n");
	return ret;
}

static int
uc_run_client(struct uc_test *t)
{
	struct sockaddr_storage src, dst;
	int i, ret;

	printf("cmatose: starting client\n");
	ret = uc_sockaddr(t, t->o->src, &src);
	if (ret == 0)
		ret = uc_sockaddr(t, t->o->dst, &dst);
	if (ret != 0)
		return ret;
	printf("cmatose: connecting\n");
	for (i = 0; i < t->o->connections; i++) {
		ret = rte_roce_cm_resolve_addr(t->nodes[i].id, (struct sockaddr *)&src,
					       (struct sockaddr *)&dst, UC_RESOLVE_MS);
		if (ret != 0) {
			printf("cmatose: failure getting addr: %s\n", strerror(-ret));
			return ret;
		}
	}
	ret = uc_events(t, &t->connects_left, "connections");
	if (ret == 0 && t->o->count != 0) {
		printf("receiving data transfers\n");
		ret = uc_poll_cqs(t, UC_RECV_CQ);
		if (ret == 0) {
			printf("sending replies\n");
			for (i = 0; i < t->o->connections && ret == 0; i++)
				ret = uc_post_sends(t, &t->nodes[i]);
		}
		if (ret == 0)
			printf("data transfers complete\n");
	}
	i = uc_events(t, &t->disconnects_left, "disconnections");
	return ret != 0 ? ret : i;
}

static int
uc_run(struct uc_test *t)
{
	int i, ret;

	t->cm = rte_roce_cm_open(t->pp.ctx, NULL);
	t->channel = rte_roce_cm_create_event_channel();
	t->nodes = calloc(t->o->connections, sizeof(*t->nodes));
	if (t->cm == NULL || t->channel == NULL || t->nodes == NULL) {
		printf("cmatose: failed to start: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	t->connects_left = t->o->connections;
	for (i = 0; t->o->dst != NULL && i < t->o->connections; i++) {
		ret = rte_roce_cm_create_id(t->channel, &t->nodes[i].id, &t->nodes[i], t->o->ps);
		if (ret != 0)
			return ret;
	}
	/* The server listens whatever the link (net_memif's comes up with its client). */
	if (t->o->dst != NULL && pp_port_wait_link(&t->pp, PP_LINK_WAIT_MS_DEFAULT) != 0)
		return -1;
	ret = t->o->dst != NULL ? uc_run_client(t) : uc_run_server(t);
	/* The last ACKs leave before the QPs are destroyed. */
	pp_port_linger(&t->pp, PP_LINGER_QUIET_MS, PP_LINGER_MAX_MS);
	return ret;
}

/* --cm-stats: the CM's non-zero counters by their xstats names, on one line. */
static void
uc_print_cm_stats(struct uc_test *t)
{
	int i, n = t->cm != NULL ? rte_roce_cm_xstats_names_get(t->cm, NULL, 0) : 0;
	char (*names)[64] = n > 0 ? calloc(n, sizeof(*names)) : NULL;
	uint64_t *values = n > 0 ? calloc(n, sizeof(*values)) : NULL;

	if (names != NULL && values != NULL &&
	    rte_roce_cm_xstats_names_get(t->cm, names, n) == n &&
	    rte_roce_cm_xstats_get(t->cm, values, n) == n) {
		printf("cm counters:");
		for (i = 0; i < n; i++)
			if (values[i] != 0)
				printf(" %s %" PRIu64, names[i], values[i]);
		printf("\n");
	}
	free(names);
	free(values);
}

static void
uc_teardown(struct uc_test *t)
{
	struct rte_roce_cm_event *ev;
	int i;

	/* Events not taken would keep their ids (-EBUSY). */
	while (t->channel != NULL && rte_roce_cm_get_cm_event(t->channel, &ev) == 0)
		rte_roce_cm_ack_cm_event(ev);
	for (i = 0; t->nodes != NULL && i < t->o->connections; i++)
		uc_destroy_node(&t->nodes[i]);
	free(t->nodes);
	if (t->listen_id != NULL)
		rte_roce_cm_destroy_id(t->listen_id);
	if (t->channel != NULL)
		rte_roce_cm_destroy_event_channel(t->channel);
	if (t->cm != NULL)
		rte_roce_cm_close(t->cm);
}

int
main(int argc, char **argv)
{
	struct uc_opts o;
	struct uc_test t;
	int ret;

	if (pp_eal_init(&argc, &argv) != 0 || uc_parse_args(argc, argv, &o) != 0)
		return EXIT_FAILURE;
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&t, 0, sizeof(t));
	t.o = &o;
	ret = pp_port_open(&t.pp, &o.port);
	if (ret == 0) {
		ret = uc_run(&t);
		if (o.cm_stats)
			uc_print_cm_stats(&t);
		printf("test complete\n");
		uc_teardown(&t);
		if (pp_port_close(&t.pp) != 0 && ret == 0)
			ret = -1;
		printf("return status %d\n", ret);
	}
	pp_eal_fini();
	return ret == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
