/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rping: librdmacm's rping (rdma-core v44) on librte_roce and librte_roce_cm.
 * Same options, same connection (rdma_cm over the IB CM, port space TCP,
 * responder resources and initiator depth 1, retry and RNR retry 7), same
 * messages and the same output, so it runs against the unmodified rping on
 * a kernel rxe peer, in either role.
 *
 *   rping [EAL args] -- --ip ADDR[/LEN] -s [-vVd] [-S size] [-C count] [-a addr] [-p port]
 *   rping [EAL args] -- --ip ADDR[/LEN] -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]
 *
 * The ping-pong, per iteration (the original's): the client SENDs the
 * address, rkey and size of its start buffer (16 bytes, big endian); the
 * server RDMA READs it and SENDs "go ahead"; the client SENDs its rdma
 * buffer's; the server RDMA WRITEs what it read (strlen + 1 bytes) there and
 * SENDs "go ahead"; -V compares the two buffers, -v prints them. The
 * client disconnects after -C iterations (0: for ever); the server serves
 * one connection until the DISCONNECTED event.
 *
 * Differences from the original, all deliberate:
 * - one thread drives everything (rte_roce_poll(), rte_roce_cm_poll(), the
 *   CM events and the CQ); the original has a CM thread and a CQ thread.
 * - --ip gives the port its address; -a/-I must be addresses (no DNS).
 * - -P (persistent server) and -q (self-created QP) are refused with a message.
 * - -V: "data mismatch!" makes the exit status 1, as in the original.
 * - a wait without progress ends after --timeout seconds (default 30),
 *   where the original waits for ever.
 */

#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_common.h>
#include <rte_errno.h>

#include <rte_roce_cm.h>
#include <rte_roce_gid.h>
#include <rte_roce_port.h>
#include <rte_roce_verbs.h>

#include "pp_port.h"
#include "pp_session.h"
#include "pp_verbs.h"

/* The original's constants (RC:librdmacm/examples/rping.c). */
#define RP_PORT_DEFAULT 7174
#define RP_SIZE_DEFAULT 64
#define RP_BUFSIZE (64 * 1024)
#define RP_MSG_FMT "rdma-ping-%d: "
#define RP_MIN_BUFSIZE (sizeof("2147483647") + sizeof(RP_MSG_FMT))
#define RP_SQ_DEPTH 16
#define RP_RQ_DEPTH 2
#define RP_BACKLOG 3
#define RP_RESOLVE_MS 2000
/* The pattern: ASCII 'A' to 'z', the first letter moving on each ping. */
#define RP_CHAR_FIRST 65
#define RP_CHAR_LAST 122
#define RP_TIMEOUT_S_DEFAULT 30
#define RP_MS_PER_S 1000
/* rte_roce_cm_conf's ranges. */
#define RP_CM_TIMEOUT_MAX 31
#define RP_CM_RETRIES_MAX 15

enum { RP_OPT_TIMEOUT = PP_PORT_OPT_END, RP_OPT_CM_TIMEOUT, RP_OPT_CM_RETRIES };

/* What each SEND carries (the original's struct rping_rdma_info). */
struct rp_info {
	uint64_t buf;	/* big endian */
	uint32_t rkey;	/* big endian */
	uint32_t size;	/* big endian */
};

struct rp_opts {
	struct pp_port_conf port;
	int server;			/* -s 1, -c 0, neither -1 */
	struct sockaddr_storage addr;	/* -a */
	struct sockaddr_storage src;	/* -I */
	uint16_t port_num;		/* -p */
	int count;			/* -C, 0: for ever */
	int size;			/* -S */
	bool verbose;			/* -v */
	bool validate;			/* -V */
	bool debug;			/* -d */
	unsigned int timeout_s;		/* --timeout */
	struct rte_roce_cm_conf cm;	/* --cm-timeout, --cm-retries */
};

/* Completions counted by kind: a wait is for one more of a kind. */
enum rp_wc_kind { RP_WC_SEND, RP_WC_RECV, RP_WC_READ, RP_WC_WRITE, RP_WC_KINDS };

struct rp_ctx {
	const struct rp_opts *o;
	struct pp_port pp;
	struct rte_roce_cm *cm;
	struct rte_roce_cm_channel *ch;
	struct rte_roce_cm_id *listen_id;
	struct rte_roce_cm_id *id;	/* the connection */
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *recv_mr, *send_mr, *rdma_mr, *start_mr;
	struct rp_info recv_buf, send_buf;
	char *rdma_buf, *start_buf;
	uint32_t remote_rkey, remote_len;
	uint64_t remote_addr;
	uint64_t wc[RP_WC_KINDS];	/* completions seen */
	uint64_t wc_taken[RP_WC_KINDS];	/* of those, taken by rp_wait_wc() */
	enum rte_roce_cm_event_type last_event;
	bool have_event;
	bool connected;
	bool disconnected;
	bool failed;
};

#define RP_DEBUG(c, ...) do { if ((c)->o->debug) printf(__VA_ARGS__); } while (0)

static void
rp_usage(const char *name)
{
	printf("%s -s [-vVd] [-S size] [-C count] [-a addr] [-p port]\n", name);
	printf("%s -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]\n", name);
	printf("\t-c\t\tclient side\n");
	printf("\t-I\t\tSource address to bind to for client.\n");
	printf("\t-s\t\tserver side.  To bind to any address with IPv6 use -a ::0\n");
	printf("\t-v\t\tdisplay ping data to stdout\n");
	printf("\t-V\t\tvalidate ping data\n");
	printf("\t-d\t\tdebug printfs\n");
	printf("\t-S size \tping data size\n");
	printf("\t-C count\tping count times\n");
	printf("\t-a addr\t\taddress\n");
	printf("\t-p port\t\tport\n");
	printf("\t--timeout S\tgive up a wait without progress after S seconds (default 30)\n");
	printf("\t--cm-timeout T\tCM response timeout 4.096 us * 2^T, 1..31 (default 20: 4.3 s)\n");
	printf("\t--cm-retries N\tREQ, REP and DREQ sent again N times, 1..15 (default 15)\n");
	pp_port_usage();
}

static int
rp_get_addr(const char *s, struct sockaddr_storage *ss)
{
	const char *why;

	if (pp_parse_sockaddr(s, 0, ss, &why) == 0)
		return 0;
	printf("getaddrinfo failed (%s) - invalid hostname or IP address\n", why);
	return -EINVAL;
}

/* One option; 0 or -EINVAL. */
static int
rp_opt(struct rp_opts *o, int c, const char *arg)
{
	unsigned long v;
	int ret;

	ret = pp_port_opt(&o->port, c, arg);
	if (ret != 0)
		return ret < 0 ? ret : 0;
	switch (c) {
	case 'a':
		return rp_get_addr(arg, &o->addr);
	case 'I':
		return rp_get_addr(arg, &o->src);
	case 'p':
		if (pp_parse_number(arg, 0, UINT16_MAX, &v) != 0)
			return -EINVAL;
		o->port_num = v;
		return 0;
	case 's':
	case 'c':
		o->server = c == 's';
		return 0;
	case 'S':
		if (pp_parse_number(arg, 0, INT_MAX, &v) != 0 || v < RP_MIN_BUFSIZE ||
		    v > RP_BUFSIZE - 1) {
			fprintf(stderr, "Invalid size %s (valid range is %zd to %d)\n", arg,
				RP_MIN_BUFSIZE, RP_BUFSIZE);
			return -EINVAL;
		}
		o->size = v;
		return 0;
	case 'C':
		if (pp_parse_number(arg, 0, INT_MAX, &v) != 0) {
			fprintf(stderr, "Invalid count %s\n", arg);
			return -EINVAL;
		}
		o->count = v;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case 'V':
		o->validate = true;
		return 0;
	case 'd':
		o->debug = true;
		return 0;
	case 'P':
	case 'q':
		fprintf(stderr, "-%c: not supported yet by this rping\n", c);
		return -EINVAL;
	case RP_OPT_CM_TIMEOUT:
		if (pp_parse_number(arg, 1, RP_CM_TIMEOUT_MAX, &v) != 0)
			return -EINVAL;
		o->cm.response_timeout = v;
		return 0;
	case RP_OPT_CM_RETRIES:
		if (pp_parse_number(arg, 1, RP_CM_RETRIES_MAX, &v) != 0)
			return -EINVAL;
		o->cm.max_cm_retries = v;
		return 0;
	case RP_OPT_TIMEOUT:
		if (pp_parse_number(arg, 1, UINT_MAX / RP_MS_PER_S, &v) != 0)
			return -EINVAL;
		o->timeout_s = v;
		return 0;
	default:
		return -EINVAL;
	}
}

static int
rp_parse_args(int argc, char **argv, struct rp_opts *o)
{
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, RP_OPT_TIMEOUT },
		{ "cm-timeout", required_argument, NULL, RP_OPT_CM_TIMEOUT },
		{ "cm-retries", required_argument, NULL, RP_OPT_CM_RETRIES },
		PP_PORT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->server = -1;
	o->size = RP_SIZE_DEFAULT;
	o->port_num = RP_PORT_DEFAULT;
	o->timeout_s = RP_TIMEOUT_S_DEFAULT;
	o->addr.ss_family = AF_INET;
	while ((c = getopt_long(argc, argv, "a:I:Pp:C:S:t:scvVdq", longopts, NULL)) != -1) {
		if (rp_opt(o, c, optarg) != 0) {
			rp_usage("rping");
			return -EINVAL;
		}
	}
	if (o->server == -1 || optind != argc || pp_port_conf_check(&o->port) != 0) {
		rp_usage("rping");
		return -EINVAL;
	}
	pp_sockaddr_set_port(&o->addr, o->port_num);
	return 0;
}

/* ---- progress: the device, the CM, its events, the CQ ---- */

/* One CM event, as the original's rping_cma_event_handler(). */
static void
rp_cm_event(struct rp_ctx *c, const struct rte_roce_cm_event *ev)
{
	RP_DEBUG(c, "cma_event type %s cma_id %p (%s)\n", rte_roce_cm_event_str(ev->event),
		 (void *)ev->id, ev->id == c->listen_id ? "parent" : "child");
	c->last_event = ev->event;
	c->have_event = true;
	switch (ev->event) {
	case RTE_ROCE_CM_EVENT_CONNECT_REQUEST:
		c->id = ev->id;
		break;
	case RTE_ROCE_CM_EVENT_ESTABLISHED:
		c->connected = true;
		break;
	case RTE_ROCE_CM_EVENT_ADDR_ERROR:
	case RTE_ROCE_CM_EVENT_ROUTE_ERROR:
	case RTE_ROCE_CM_EVENT_CONNECT_ERROR:
	case RTE_ROCE_CM_EVENT_UNREACHABLE:
	case RTE_ROCE_CM_EVENT_REJECTED:
		fprintf(stderr, "cma event %s, error %d\n", rte_roce_cm_event_str(ev->event),
			ev->status);
		c->failed = true;
		break;
	case RTE_ROCE_CM_EVENT_DISCONNECTED:
		fprintf(stderr, "%s DISCONNECT EVENT...\n", c->o->server ? "server" : "client");
		c->disconnected = true;
		break;
	case RTE_ROCE_CM_EVENT_DEVICE_REMOVAL:
		fprintf(stderr, "cma detected device removal!!!!\n");
		c->failed = true;
		break;
	default:
		break;
	}
}

/* One completion, as the original's rping_cq_event_handler(). */
static void
rp_wc(struct rp_ctx *c, const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS) {
		if (wc->status == IBV_WC_WR_FLUSH_ERR)
			return;
		fprintf(stderr, "cq completion failed status %d\n", wc->status);
		c->failed = true;
		return;
	}
	switch (wc->opcode) {
	case IBV_WC_SEND:
		c->wc[RP_WC_SEND]++;
		return;
	case IBV_WC_RDMA_READ:
		c->wc[RP_WC_READ]++;
		return;
	case IBV_WC_RDMA_WRITE:
		c->wc[RP_WC_WRITE]++;
		return;
	case IBV_WC_RECV:
		break;
	default:
		fprintf(stderr, "unknown completion opcode %d\n", wc->opcode);
		c->failed = true;
		return;
	}
	if (wc->byte_len != sizeof(c->recv_buf)) {
		fprintf(stderr, "Received bogus data, size %u\n", wc->byte_len);
		c->failed = true;
		return;
	}
	c->remote_rkey = be32toh(c->recv_buf.rkey);
	c->remote_addr = be64toh(c->recv_buf.buf);
	c->remote_len = be32toh(c->recv_buf.size);
	RP_DEBUG(c, "Received rkey %x addr %" PRIx64 " len %u from peer\n", c->remote_rkey,
		 c->remote_addr, c->remote_len);
	c->wc[RP_WC_RECV]++;
}

static int rp_post_recv(struct rp_ctx *c);

static void
rp_progress(struct rp_ctx *c)
{
	struct rte_roce_cm_event *ev;
	struct ibv_wc wc;

	pp_port_poll(&c->pp);
	rte_roce_cm_poll(c->cm);
	while (rte_roce_cm_get_cm_event(c->ch, &ev) == 0) {
		rp_cm_event(c, ev);
		rte_roce_cm_ack_cm_event(ev);
	}
	while (c->cq != NULL && rte_roce_poll_cq(c->cq, 1, &wc) == 1) {
		rp_wc(c, &wc);
		if (wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
		    rp_post_recv(c) != 0)
			c->failed = true;
	}
}

/* Progress until done(c), a failure, or --timeout without it. 0 or -1. */
static int
rp_wait(struct rp_ctx *c, bool (*done)(const struct rp_ctx *c, const void *arg),
	const void *arg, const char *what)
{
	uint64_t end = pp_now_ms() + (uint64_t)c->o->timeout_s * RP_MS_PER_S;

	while (!done(c, arg)) {
		if (c->failed)
			return -1;
		if (pp_now_ms() > end) {
			fprintf(stderr, "timeout waiting for %s\n", what);
			return -1;
		}
		rp_progress(c);
	}
	return 0;
}

static bool
rp_event_is(const struct rp_ctx *c, const void *arg)
{
	return c->have_event && c->last_event == *(const enum rte_roce_cm_event_type *)arg;
}

static int
rp_wait_event(struct rp_ctx *c, enum rte_roce_cm_event_type want)
{
	int ret = rp_wait(c, rp_event_is, &want, rte_roce_cm_event_str(want));

	c->have_event = false;
	return ret;
}

static bool
rp_wc_seen(const struct rp_ctx *c, const void *arg)
{
	enum rp_wc_kind kind = *(const enum rp_wc_kind *)arg;

	return c->wc[kind] > c->wc_taken[kind] || c->disconnected;
}

/*
 * Take the next completion of a kind, which may have come already (the
 * client's first SEND can arrive while the server waits for ESTABLISHED);
 * 0, 1 (disconnected before it) or -1.
 */
static int
rp_wait_wc(struct rp_ctx *c, enum rp_wc_kind kind, const char *what)
{
	if (rp_wait(c, rp_wc_seen, &kind, what) != 0)
		return -1;
	if (c->wc[kind] == c->wc_taken[kind])
		return 1;
	c->wc_taken[kind]++;
	return 0;
}

/* ---- resources ---- */

static int
rp_post_recv(struct rp_ctx *c)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)&c->recv_buf,
		.length = sizeof(c->recv_buf),
		.lkey = c->recv_mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad_wr;

	return rte_roce_post_recv(c->id->qp, &wr, &bad_wr);
}

static int
rp_post(struct rp_ctx *c, enum ibv_wr_opcode opcode, void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = opcode,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad_wr;
	int ret;

	if (opcode != IBV_WR_SEND) {
		wr.wr.rdma.remote_addr = c->remote_addr;
		wr.wr.rdma.rkey = c->remote_rkey;
	}
	ret = rte_roce_post_send(c->id->qp, &wr, &bad_wr);
	if (ret != 0)
		fprintf(stderr, "post send error %d\n", ret);
	return ret;
}

static int
rp_send_info(struct rp_ctx *c)
{
	return rp_post(c, IBV_WR_SEND, &c->send_buf, sizeof(c->send_buf), c->send_mr->lkey);
}

static struct ibv_mr *
rp_reg(struct rp_ctx *c, void *buf, size_t len, int access, const char *name)
{
	struct ibv_mr *mr = rte_roce_reg_mr(c->pd, buf, len, access);

	if (mr == NULL)
		fprintf(stderr, "%s reg_mr failed: %s\n", name, rte_strerror(rte_errno));
	return mr;
}

/* PD, CQ, QP on the id, buffers and their MRs, the first receive (rping_setup_qp/buffers). */
static int
rp_setup(struct rp_ctx *c)
{
	const int rdma_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_WRITE;
	struct ibv_qp_init_attr init = {
		.cap = {
			.max_send_wr = RP_SQ_DEPTH,
			.max_recv_wr = RP_RQ_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};
	int ret;

	c->pd = rte_roce_alloc_pd(c->id->verbs);
	c->cq = c->pd == NULL ? NULL :
		rte_roce_create_cq(c->id->verbs, RP_SQ_DEPTH * 2, NULL, NULL, 0);
	if (c->cq == NULL) {
		fprintf(stderr, "ibv_alloc_pd/ibv_create_cq failed: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	init.send_cq = c->cq;
	init.recv_cq = c->cq;
	ret = rte_roce_cm_create_qp(c->id, c->pd, &init);
	if (ret != 0) {
		fprintf(stderr, "rdma_create_qp: %s\n", strerror(-ret));
		return -1;
	}
	c->rdma_buf = calloc(1, c->o->size);
	c->start_buf = c->o->server ? NULL : calloc(1, c->o->size);
	if (c->rdma_buf == NULL || (!c->o->server && c->start_buf == NULL)) {
		fprintf(stderr, "buffer malloc failed\n");
		return -1;
	}
	c->recv_mr = rp_reg(c, &c->recv_buf, sizeof(c->recv_buf), IBV_ACCESS_LOCAL_WRITE,
			    "recv_buf");
	c->send_mr = rp_reg(c, &c->send_buf, sizeof(c->send_buf), 0, "send_buf");
	c->rdma_mr = rp_reg(c, c->rdma_buf, c->o->size, rdma_access, "rdma_buf");
	if (c->recv_mr == NULL || c->send_mr == NULL || c->rdma_mr == NULL)
		return -1;
	if (!c->o->server) {
		c->start_mr = rp_reg(c, c->start_buf, c->o->size, rdma_access, "start_buf");
		if (c->start_mr == NULL)
			return -1;
	}
	if (rp_post_recv(c) != 0) {
		fprintf(stderr, "ibv_post_recv failed\n");
		return -1;
	}
	return 0;
}

static void
rp_teardown(struct rp_ctx *c)
{
	struct ibv_mr **mrs[] = { &c->recv_mr, &c->send_mr, &c->rdma_mr, &c->start_mr };
	unsigned int i;

	if (c->id != NULL && c->id->qp != NULL)
		rte_roce_cm_destroy_qp(c->id);
	for (i = 0; i < RTE_DIM(mrs); i++)
		if (*mrs[i] != NULL)
			rte_roce_dereg_mr(*mrs[i]);
	if (c->cq != NULL)
		rte_roce_destroy_cq(c->cq);
	c->cq = NULL;
	if (c->pd != NULL)
		rte_roce_dealloc_pd(c->pd);
	free(c->rdma_buf);
	free(c->start_buf);
	if (c->id != NULL)
		rte_roce_cm_destroy_id(c->id);
	if (c->listen_id != NULL)
		rte_roce_cm_destroy_id(c->listen_id);
	if (c->ch != NULL)
		rte_roce_cm_destroy_event_channel(c->ch);
	if (c->cm != NULL)
		rte_roce_cm_close(c->cm);
}

static void
rp_format_send(struct rp_ctx *c, char *buf, const struct ibv_mr *mr)
{
	c->send_buf.buf = htobe64((uintptr_t)buf);
	c->send_buf.rkey = htobe32(mr->rkey);
	c->send_buf.size = htobe32(c->o->size);
	RP_DEBUG(c, "RDMA addr %" PRIx64 " rkey %x len %d\n", (uint64_t)(uintptr_t)buf,
		 mr->rkey, c->o->size);
}

static const struct rte_roce_cm_conn_param rp_conn_param = {
	.responder_resources = 1,
	.initiator_depth = 1,
	.retry_count = 7,
	.rnr_retry_count = 7,
};

/* ---- the two roles ---- */

/* Wait for the peer's SEND; 0, 1 (disconnected) or -1. */
static int
rp_wait_recv(struct rp_ctx *c, const char *what)
{
	return rp_wait_wc(c, RP_WC_RECV, what);
}

/* One round of the server (rping_test_server's loop body); 0, 1 (disconnected) or -1. */
static int
rp_server_round(struct rp_ctx *c)
{
	uint32_t len;
	int ret;

	ret = rp_wait_recv(c, "RDMA_READ_ADV");
	if (ret != 0)
		return ret;
	len = RTE_MIN(c->remote_len, (uint32_t)c->o->size);
	if (rp_post(c, IBV_WR_RDMA_READ, c->rdma_buf, len, c->rdma_mr->lkey) != 0)
		return -1;
	ret = rp_wait_wc(c, RP_WC_READ, "RDMA_READ_COMPLETE");
	if (ret != 0)
		return ret;
	c->rdma_buf[c->o->size - 1] = '\0';
	if (c->o->verbose)
		printf("server ping data: %s\n", c->rdma_buf);
	if (rp_send_info(c) != 0)
		return -1;
	ret = rp_wait_recv(c, "RDMA_WRITE_ADV");
	if (ret != 0)
		return ret;
	len = RTE_MIN((uint32_t)strlen(c->rdma_buf) + 1, c->remote_len);
	if (rp_post(c, IBV_WR_RDMA_WRITE, c->rdma_buf, len, c->rdma_mr->lkey) != 0)
		return -1;
	ret = rp_wait_wc(c, RP_WC_WRITE, "RDMA_WRITE_COMPLETE");
	if (ret != 0)
		return ret;
	return rp_send_info(c) != 0 ? -1 : 0;
}

static int
rp_run_server(struct rp_ctx *c)
{
	int ret;

	ret = rte_roce_cm_create_id(c->ch, &c->listen_id, c, RTE_ROCE_CM_PS_TCP);
	if (ret == 0)
		ret = rte_roce_cm_bind_addr(c->listen_id, (struct sockaddr *)&c->o->addr);
	if (ret != 0) {
		fprintf(stderr, "rdma_bind_addr: %s\n", strerror(-ret));
		return -1;
	}
	ret = rte_roce_cm_listen(c->listen_id, RP_BACKLOG);
	if (ret != 0) {
		fprintf(stderr, "rdma_listen: %s\n", strerror(-ret));
		return -1;
	}
	/* Ready: a script may start the client now. */
	printf("rping: listening on port %u\n", c->o->port_num);
	fflush(stdout);
	if (rp_wait_event(c, RTE_ROCE_CM_EVENT_CONNECT_REQUEST) != 0 || rp_setup(c) != 0)
		return -1;
	ret = rte_roce_cm_accept(c->id, &rp_conn_param);
	if (ret != 0) {
		fprintf(stderr, "rdma_accept: %s\n", strerror(-ret));
		return -1;
	}
	if (rp_wait_event(c, RTE_ROCE_CM_EVENT_ESTABLISHED) != 0) {
		fprintf(stderr, "wait for CONNECTED state\n");
		return -1;
	}
	while ((ret = rp_server_round(c)) == 0)
		;
	if (ret < 0) {
		fprintf(stderr, "rping server failed: %d\n", ret);
		return -1;
	}
	/* The DREQ was answered when it came: nothing more to send. */
	return 0;
}

/* The client's start buffer for ping n (rping_test_client). */
static void
rp_fill(struct rp_ctx *c, int n, unsigned char *start)
{
	unsigned char ch = *start;
	int i;

	i = snprintf(c->start_buf, c->o->size, RP_MSG_FMT, n);
	for (; i < c->o->size; i++) {
		c->start_buf[i] = ch;
		if (++ch > RP_CHAR_LAST)
			ch = RP_CHAR_FIRST;
	}
	if (++*start > RP_CHAR_LAST)
		*start = RP_CHAR_FIRST;
	c->start_buf[c->o->size - 1] = '\0';
}

/* One ping (rping_test_client's loop body); 0, 1 (disconnected by the peer) or -1. */
static int
rp_client_round(struct rp_ctx *c, int n, unsigned char *start)
{
	int ret;

	rp_fill(c, n, start);
	rp_format_send(c, c->start_buf, c->start_mr);
	if (rp_send_info(c) != 0)
		return -1;
	ret = rp_wait_recv(c, "RDMA_WRITE_ADV");
	if (ret != 0)
		return ret;
	rp_format_send(c, c->rdma_buf, c->rdma_mr);
	if (rp_send_info(c) != 0)
		return -1;
	ret = rp_wait_recv(c, "RDMA_WRITE_COMPLETE");
	if (ret != 0)
		return ret;
	if (c->o->validate && memcmp(c->start_buf, c->rdma_buf, c->o->size) != 0) {
		fprintf(stderr, "data mismatch!\n");
		return -1;
	}
	if (c->o->verbose)
		printf("ping data: %s\n", c->rdma_buf);
	return 0;
}

static int
rp_resolve(struct rp_ctx *c)
{
	struct sockaddr_storage src;
	int ret;

	/* No -I: the port's own address (no routing table to pick one). */
	if (c->o->src.ss_family != 0) {
		src = c->o->src;
	} else {
		if (rte_roce_gid_is_ipv4(&c->pp.addr) != (c->o->addr.ss_family == AF_INET)) {
			fprintf(stderr, "--ip and -a are not of the same family: give -I\n");
			return -1;
		}
		pp_gid_sockaddr(&c->pp.addr, 0, &src);
	}
	ret = rte_roce_cm_create_id(c->ch, &c->id, c, RTE_ROCE_CM_PS_TCP);
	if (ret == 0)
		ret = rte_roce_cm_resolve_addr(c->id, (struct sockaddr *)&src,
					       (const struct sockaddr *)&c->o->addr, RP_RESOLVE_MS);
	if (ret != 0) {
		fprintf(stderr, "rdma_resolve_addr: %s\n", strerror(-ret));
		return -1;
	}
	if (rp_wait_event(c, RTE_ROCE_CM_EVENT_ADDR_RESOLVED) != 0)
		return -1;
	ret = rte_roce_cm_resolve_route(c->id, RP_RESOLVE_MS);
	if (ret != 0) {
		fprintf(stderr, "rdma_resolve_route: %s\n", strerror(-ret));
		return -1;
	}
	return rp_wait_event(c, RTE_ROCE_CM_EVENT_ROUTE_RESOLVED);
}

static int
rp_run_client(struct rp_ctx *c)
{
	unsigned char start = RP_CHAR_FIRST;
	int n, ret;

	if (rp_resolve(c) != 0 || rp_setup(c) != 0)
		return -1;
	ret = rte_roce_cm_connect(c->id, &rp_conn_param);
	if (ret != 0) {
		fprintf(stderr, "rdma_connect: %s\n", strerror(-ret));
		return -1;
	}
	if (rp_wait_event(c, RTE_ROCE_CM_EVENT_ESTABLISHED) != 0) {
		fprintf(stderr, "connect error\n");
		return -1;
	}
	ret = 0;
	for (n = 0; ret == 0 && (c->o->count == 0 || n < c->o->count); n++)
		ret = rp_client_round(c, n, &start);
	/* Disconnected by the peer: the original ends there, with success. */
	if (ret == 1)
		return 0;
	if (ret < 0)
		fprintf(stderr, "rping client failed: -1\n");
	else	/* Our ACK of the last "go ahead" leaves before the QP goes to ERR. */
		pp_port_linger(&c->pp, PP_LINGER_QUIET_MS, PP_LINGER_MAX_MS);
	/*
	 * Failed or done, the original disconnects: DISCONNECTED comes with the
	 * DREP, or after the DREQ's last retry when the peer is gone.
	 */
	c->failed = false;
	n = rte_roce_cm_disconnect(c->id);
	if (n != 0) {
		fprintf(stderr, "rdma_disconnect: %s\n", strerror(-n));
		return -1;
	}
	return rp_wait_event(c, RTE_ROCE_CM_EVENT_DISCONNECTED) != 0 ? -1 : ret;
}

static int
rp_run(struct rp_ctx *c)
{
	int ret;

	c->cm = rte_roce_cm_open(c->pp.ctx, &c->o->cm);
	if (c->cm == NULL) {
		fprintf(stderr, "rte_roce_cm_open: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	c->ch = rte_roce_cm_create_event_channel();
	if (c->ch == NULL) {
		fprintf(stderr, "rdma_create_event_channel: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	/* The server listens whatever the link (net_memif's comes up with its client). */
	if (!c->o->server && pp_port_wait_link(&c->pp, PP_LINK_WAIT_MS_DEFAULT) != 0)
		return -1;
	ret = c->o->server ? rp_run_server(c) : rp_run_client(c);
	/* What the CM answered last (the server's DREP) leaves before the port closes. */
	pp_port_linger(&c->pp, PP_LINGER_QUIET_MS, PP_LINGER_MAX_MS);
	return ret;
}

int
main(int argc, char **argv)
{
	struct rp_opts o;
	struct rp_ctx c;
	int failed;

	if (pp_eal_init(&argc, &argv) != 0 || rp_parse_args(argc, argv, &o) != 0)
		return EXIT_FAILURE;
	/* Whole lines even when stdout and the log (stderr) share a file. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&c, 0, sizeof(c));
	c.o = &o;
	failed = pp_port_open(&c.pp, &o.port) != 0;
	if (!failed) {
		failed = rp_run(&c) != 0;
		rp_teardown(&c);
		failed |= pp_port_close(&c.pp) != 0;
	}
	pp_eal_fini();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
