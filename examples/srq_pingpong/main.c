/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * srq_pingpong: rdma-core's ibv_srq_pingpong on librte_roce. Same options,
 * same TCP exchange byte for byte (doc/wire-format.md §11.1: always MAX_QP = 256
 * records of 52 bytes each way, whatever -q), same QP and SRQ settings,
 * same ping-pong and output, so it runs against the unmodified tool on a
 * kernel rxe peer.
 *
 *   srq_pingpong [EAL args] -- --ip ADDR[/LEN] [options]              server
 *   srq_pingpong [EAL args] -- --ip ADDR[/LEN] [options] <host>       client
 *
 * num_qp RC QPs on each side take their receives from one SRQ of rx_depth
 * WRs (refilled when num_qp or fewer are left). Every QP ping-pongs: it
 * sends again once its last send completed and a message arrived for it;
 * the run ends when iters sends and iters receives completed in total.
 *
 * Differences from the original, all deliberate:
 * - -g defaults to the GID of --ip (RoCE needs a GRH); a peer's zero GID is
 *   refused clearly, and so is a peer with fewer QPs than -q (its records
 *   beyond its own num_qp are zeros).
 * - the records beyond num_qp are sent as zeros: the original fills them
 *   from a zeroed array too (HEAD; older versions sent uninitialised stack
 *   bytes there), and ignores them on reading; so do we, whatever they hold.
 * - -q above 256 (the original overruns its arrays) and -q 0 are usage
 *   errors.
 * - -e sleeps on a completion channel while a progress thread drives the
 *   device (examples/common/pp_event.h says why).
 * - the server listens before printing its local addresses; the exchange
 *   reads whole records and times out after PP_OOB_TIMEOUT_MS; the wait
 *   loops yield the CPU when idle (pp_port_poll()); each side lingers until
 *   the link is quiet before tearing down; --pcap, --eth-mtu as rc_pingpong.
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include <rte_roce_port.h>
#include <rte_roce_verbs.h>

#include "pp_event.h"
#include "pp_oob.h"
#include "pp_port.h"
#include "pp_session.h"
#include "pp_verbs.h"

/* The tool's defaults (RC:libibverbs/examples/srq_pingpong.c main). */
#define PP_SIZE_DEFAULT 4096
#define PP_NUM_QP_DEFAULT 16
/* Records exchanged each way, whatever num_qp (the tool's MAX_QP). */
#define PP_MAX_QP 256
#define PP_PSN_MASK 0xffffff
#define PP_QP_NAME_LEN 16		/* "QP[255]" */

struct pp_opts {
	struct pp_opts_common cmn; /* -p -d -i -s -m -r -n -l -g, --ip, ... */
	uint32_t num_qp;	/* -q */
	bool use_event;		/* -e */
};

struct pp_ctx {
	struct pp_port pp;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp[PP_MAX_QP];
	uint8_t *buf;
	uint32_t size;
	uint32_t num_qp;
	uint32_t rx_depth;
	uint32_t iters;		/* -n */
	unsigned int send_flags;
	int pending[PP_MAX_QP];	/* PP_*_WRID bits each QP awaits before its next send */
	struct pp_counts cnt;	/* receives posted, completions counted */
	struct ibv_wc *wc;	/* num_qp + rx_depth, as the tool polls */
	struct pp_events ev;	/* -e: the channel and the progress thread (pp_event.h) */
};

static void
pp_usage(const char *argv0)
{
	pp_usage_common(argv0, PP_SIZE_DEFAULT);
	printf("  -q, --num-qp=<num>     number of QPs to use (default 16, at most 256)\n");
	printf("  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n");
	printf("  -n, --iters=<iters>    number of exchanges (default 1000)\n");
	printf("  -l, --sl=<sl>          service level value\n");
	printf("  -e, --events           sleep on CQ events (default poll)\n");
	printf("  -g, --gid-idx=<gid index> local port gid index (default: the GID of --ip)\n");
}

/* ---- options ---- */

/* One option; 0, -EINVAL (usage) or -ENOTSUP (refused feature). */
static int
pp_opt(void *opts, int c, const char *arg)
{
	struct pp_opts *o = opts;
	unsigned long v;

	switch (c) {
	case 'q':
		if (pp_parse_number(arg, 1, PP_MAX_QP, &v) != 0)
			return -EINVAL;
		o->num_qp = v;
		return 0;
	case 'e':
		o->use_event = true;
		return 0;
	default:
		return -EINVAL;
	}
}

static int
pp_parse_args(int argc, char **argv, struct pp_opts *o)
{
	static const struct option longopts[] = {
		{ "num-qp", required_argument, NULL, 'q' },
		{ "events", no_argument, NULL, 'e' },
		PP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int ret;

	o->num_qp = PP_NUM_QP_DEFAULT;
	o->use_event = false;
	ret = pp_cmdline(argc, argv, "p:d:i:s:m:q:r:n:l:eg:", longopts, &o->cmn, PP_SIZE_DEFAULT, 1,
			 pp_opt, o, pp_usage);
	if (ret != 0)
		return ret;
	if (o->num_qp > o->cmn.rx_depth) {
		fprintf(stderr, "rx_depth %u is too small for %u QPs -- must have at least one "
			"receive per QP.\n", o->cmn.rx_depth, o->num_qp);
		return -EINVAL;
	}
	return 0;
}

/* ---- resources ---- */

static uint32_t
pp_post_recv(void *arg, uint32_t n)
{
	struct pp_ctx *c = arg;
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->buf,
		.length = c->size,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = PP_RECV_WRID,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad_wr;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (rte_roce_post_srq_recv(c->srq, &wr, &bad_wr) != 0)
			break;
	return i;
}

static int
pp_post_send(struct pp_ctx *c, uint32_t qi)
{
	return pp_post_send_buf(c->qp[qi], PP_SEND_WRID, c->buf, c->size, c->mr->lkey,
				c->send_flags);
}

/* QP qi as the tool creates it: on the SRQ, one send WR of one SGE; INLINE if it fits. */
static int
pp_create_qp(struct pp_ctx *c, uint32_t qi, int ib_port)
{
	struct ibv_qp_init_attr init = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.srq = c->srq,
		.cap = { .max_send_wr = 1, .max_send_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr attr;
	char name[PP_QP_NAME_LEN];

	c->qp[qi] = rte_roce_create_qp(c->pd, &init);
	if (c->qp[qi] == NULL) {
		fprintf(stderr, "Couldn't create QP[%u]: %s\n", qi, rte_strerror(rte_errno));
		return -1;
	}
	if (rte_roce_query_qp(c->qp[qi], &attr, IBV_QP_CAP, &init) == 0 &&
	    init.cap.max_inline_data >= c->size)
		c->send_flags |= IBV_SEND_INLINE;
	snprintf(name, sizeof(name), "QP[%u]", qi);
	return pp_qp_to_init(c->qp[qi], ib_port, name);
}

/* Free what pp_init() made, in reverse; 0 or -1 after saying which step failed. */
static int
pp_destroy(struct pp_ctx *c)
{
	uint32_t i;

	for (i = 0; i < c->num_qp; i++) {
		if (c->qp[i] != NULL && rte_roce_destroy_qp(c->qp[i]) != 0) {
			fprintf(stderr, "Couldn't destroy QP[%u]\n", i);
			return -1;
		}
		c->qp[i] = NULL;
	}
	if (c->srq != NULL && rte_roce_destroy_srq(c->srq) != 0) {
		fprintf(stderr, "Couldn't destroy SRQ\n");
		return -1;
	}
	c->srq = NULL;
	pp_events_ack(&c->ev, c->cq);
	if (pp_free_cq_mr_pd(&c->cq, &c->mr, &c->pd) != 0)
		return -1;
	return pp_events_close(&c->ev);
}

/* Everything up to num_qp QPs in INIT and rx_depth receives on the SRQ; c->pp is open. */
static int
pp_init(struct pp_ctx *c, const struct pp_opts *o, long page_size)
{
	struct ibv_srq_init_attr srq_attr = {
		.attr = { .max_wr = o->cmn.rx_depth, .max_sge = 1 },
	};
	uint32_t i;

	c->size = o->cmn.size;
	c->num_qp = o->num_qp;
	c->rx_depth = o->cmn.rx_depth;
	c->iters = o->cmn.iters;
	c->send_flags = IBV_SEND_SIGNALED;
	c->wc = calloc(o->num_qp + o->cmn.rx_depth, sizeof(*c->wc));
	if (posix_memalign((void **)&c->buf, page_size, o->cmn.size) != 0 || c->wc == NULL) {
		fprintf(stderr, "Couldn't allocate work buf.\n");
		return -1;
	}
	memset(c->buf, 0, o->cmn.size);
	if (pp_events_open(&c->ev, c->pp.ctx, o->use_event) != 0 ||
	    pp_alloc_pd_mr_cq(c->pp.ctx, c->buf, o->cmn.size, o->cmn.rx_depth + o->num_qp, c->ev.channel,
			      &c->pd, &c->mr, &c->cq) != 0)
		return -1;
	c->srq = rte_roce_create_srq(c->pd, &srq_attr);
	if (c->srq == NULL) {
		fprintf(stderr, "Couldn't create SRQ: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	for (i = 0; i < o->num_qp; i++)
		if (pp_create_qp(c, i, o->cmn.ib_port) != 0)
			return -1;
	c->cnt.routs = pp_post_recv(c, c->rx_depth);
	if (c->cnt.routs < c->rx_depth) {
		fprintf(stderr, "Couldn't post receive (%u)\n", c->cnt.routs);
		return -1;
	}
	return 0;
}

/* ---- connection ---- */

/* Every QP to RTR then RTS with the tool's attributes (RC:srq_pingpong.c pp_connect_ctx). */
static int
pp_connect(struct pp_ctx *c, const struct pp_opts *o, int sgid_index, const struct pp_dest *mine,
	   const struct pp_dest *rem)
{
	const struct pp_path path = {
		.mtu = o->cmn.mtu,
		.sl = o->cmn.sl,
		.ib_port = o->cmn.ib_port,
		.sgid_index = sgid_index,
	};
	char name[PP_QP_NAME_LEN];
	uint32_t i;

	for (i = 0; i < c->num_qp; i++) {
		/* A peer with fewer QPs sends zero records for the rest. */
		if (rem[i].qpn == 0) {
			fprintf(stderr, "The peer has no QP %u: run both sides with the same -q\n",
				i);
			return -1;
		}
		snprintf(name, sizeof(name), "QP[%u]", i);
		if (pp_qp_connect(c->qp[i], &path, mine[i].psn, &rem[i], name) != 0)
			return -1;
	}
	return 0;
}

/* Write all PP_MAX_QP records: ours for the QPs we have, zeros after. */
static int
pp_send_dests(int fd, const struct pp_dest *mine)
{
	int i, ret;

	for (i = 0; i < PP_MAX_QP; i++) {
		ret = pp_oob_send_dest(fd, &mine[i]);
		if (ret != 0) {
			fprintf(stderr, "Couldn't send local address: %s\n", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/*
 * Read all PP_MAX_QP records. Those of our num_qp QPs must parse; the
 * others are read whole and ignored, whatever they hold (the original's
 * may be stack garbage).
 */
static int
pp_recv_dests(int fd, uint32_t num_qp, struct pp_dest *rem)
{
	struct pp_dest ignored;
	uint32_t i;
	int ret;

	for (i = 0; i < PP_MAX_QP; i++) {
		ret = pp_oob_recv_dest(fd, i < num_qp ? &rem[i] : &ignored);
		if (ret == -EINVAL && i >= num_qp)
			continue;
		if (ret != 0) {
			fprintf(stderr, "Couldn't read remote address [%u]: %s\n", i,
				strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* Client side: send ours, read theirs, say done; the QPs are connected afterwards. */
static int
pp_client_exchange(const struct pp_opts *o, const struct pp_dest *mine, struct pp_dest *rem)
{
	int fd, ret;

	fd = pp_session_connect(&o->cmn);
	if (fd < 0)
		return -1;
	ret = pp_send_dests(fd, mine);
	if (ret == 0)
		ret = pp_recv_dests(fd, o->num_qp, rem);
	if (ret == 0) {
		ret = pp_oob_send_done(fd);
		if (ret != 0)
			fprintf(stderr, "Couldn't write done: %s\n", strerror(-ret));
	}
	close(fd);
	return ret == 0 ? 0 : -1;
}

/* Server side: read theirs, connect the QPs, then answer (doc/wire-format.md §11.1). */
static int
pp_server_exchange(struct pp_ctx *c, const struct pp_opts *o, int listen_fd, int sgid_index,
		   const struct pp_dest *mine, struct pp_dest *rem)
{
	int fd, ret;

	fd = pp_session_accept(listen_fd);
	if (fd < 0)
		return -1;
	ret = pp_recv_dests(fd, o->num_qp, rem);
	if (ret == 0 && pp_connect(c, o, sgid_index, mine, rem) != 0) {
		fprintf(stderr, "Couldn't connect to remote QP\n");
		ret = -1;
	}
	if (ret == 0)
		ret = pp_send_dests(fd, mine);
	if (ret == 0) {
		ret = pp_oob_recv_done(fd);
		if (ret != 0)
			fprintf(stderr, "Couldn't read done: %s\n", strerror(-ret));
	}
	close(fd);
	return ret == 0 ? 0 : -1;
}

/* ---- the ping-pong ---- */

static int
pp_find_qp(const struct pp_ctx *c, uint32_t qpn)
{
	uint32_t i;

	for (i = 0; i < c->num_qp; i++)
		if (c->qp[i]->qp_num == qpn)
			return i;
	return -1;
}

static int
pp_complete(struct pp_ctx *c, const struct ibv_wc *wc, uint32_t iters)
{
	int qi;

	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "Failed status %s (%d) for wr_id %d\n",
			ibv_wc_status_str(wc->status), wc->status, (int)wc->wr_id);
		return -1;
	}
	qi = pp_find_qp(c, wc->qp_num);
	if (qi < 0) {
		fprintf(stderr, "Couldn't find QPN %06x\n", wc->qp_num);
		return -1;
	}
	/* Refill the SRQ while every QP still has one, as the tool does. */
	if (pp_session_count(&c->cnt, wc->wr_id, c->rx_depth, c->num_qp, pp_post_recv, c) != 0)
		return -1;
	/* Per QP: send again once its last send completed and a message arrived for it. */
	c->pending[qi] &= ~(int)wc->wr_id;
	if (c->cnt.scnt < iters && c->pending[qi] == 0) {
		if (pp_post_send(c, qi) != 0) {
			fprintf(stderr, "Couldn't post send\n");
			return -1;
		}
		c->pending[qi] = PP_RECV_WRID | PP_SEND_WRID;
	}
	return 0;
}

static int
pp_run(void *arg)
{
	struct pp_ctx *c = arg;
	uint32_t iters = c->iters;
	int ne, i;

	while (c->cnt.rcnt < iters || c->cnt.scnt < iters) {
		/* With -e: sleep for the event, re-arm, poll once (RC:srq_pingpong.c main). */
		ne = pp_session_poll_cq(&c->ev, &c->pp, c->cq, c->num_qp + c->rx_depth, c->wc);
		if (ne < 0)
			return -1;
		for (i = 0; i < ne; i++)
			if (pp_complete(c, &c->wc[i], iters) != 0)
				return -1;
	}
	return 0;
}

/* Our addresses: one record per QP, the same LID and GID, a random PSN each. */
static int
pp_local_dests(struct pp_ctx *c, const struct pp_opts *o, int sgid_index, struct pp_dest *mine)
{
	struct ibv_port_attr portinfo;
	uint32_t i;

	if (rte_roce_query_port(c->pp.ctx, o->cmn.ib_port, &portinfo) != 0) {
		fprintf(stderr, "Couldn't get port info\n");
		return -1;
	}
	if (portinfo.link_layer != IBV_LINK_LAYER_ETHERNET && portinfo.lid == 0) {
		fprintf(stderr, "Couldn't get local LID\n");
		return -1;
	}
	for (i = 0; i < c->num_qp; i++) {
		mine[i].lid = portinfo.lid;
		if (rte_roce_query_gid(c->pp.ctx, o->cmn.ib_port, sgid_index, &mine[i].gid) != 0) {
			fprintf(stderr, "Could not get local gid for gid index %d\n", sgid_index);
			return -1;
		}
		mine[i].qpn = c->qp[i]->qp_num;
		mine[i].psn = lrand48() & PP_PSN_MASK;
	}
	return 0;
}

/* Exchange addresses, connect, ping-pong, report. The resources exist. */
static int
pp_session(struct pp_ctx *c, const struct pp_opts *o)
{
	static struct pp_dest mine[PP_MAX_QP], rem[PP_MAX_QP];	/* zeros beyond num_qp */
	int sgid_index = o->cmn.gidx >= 0 ? o->cmn.gidx : c->pp.gid_index;
	int listen_fd;
	uint32_t i;

	if (pp_local_dests(c, o, sgid_index, mine) != 0)
		return -1;
	if (pp_session_listen(&o->cmn, &listen_fd) != 0)
		return -1;
	for (i = 0; i < c->num_qp; i++)
		pp_dest_print("local address: ", &mine[i]);
	if (o->cmn.servername != NULL ? pp_client_exchange(o, mine, rem) :
				    pp_server_exchange(c, o, listen_fd, sgid_index, mine, rem))
		return -1;
	for (i = 0; i < c->num_qp; i++)
		pp_dest_print("remote address:", &rem[i]);
	if (o->cmn.servername != NULL && pp_connect(c, o, sgid_index, mine, rem) != 0)
		return -1;
	if (pp_port_wait_link(&c->pp, PP_LINK_WAIT_MS_DEFAULT) != 0)
		return -1;
	for (i = 0; i < c->num_qp; i++) {
		c->pending[i] = PP_RECV_WRID;
		if (o->cmn.servername == NULL)
			continue;
		if (pp_post_send(c, i) != 0) {
			fprintf(stderr, "Couldn't post send\n");
			return -1;
		}
		c->pending[i] |= PP_SEND_WRID;
	}
	/* The run lingers until our last ACKs have left: the peer waits for them. */
	return pp_session_run(&c->ev, &c->pp, c->cq, &o->cmn, pp_run, c);
}

int
main(int argc, char **argv)
{
	struct pp_ctx c;
	struct pp_opts o;
	int failed;

	/* SIGTERM, SIGINT: a clean stop, exit 0 (pp_session_stop(), doc/deploy.md) */
	if (pp_eal_init(&argc, &argv) != 0 || pp_parse_args(argc, argv, &o) != 0 ||
	    pp_oob_stop_on_signals() != 0)
		return EXIT_FAILURE;
	srand48(getpid() * time(NULL));
	memset(&c, 0, sizeof(c));
	failed = pp_port_open(&c.pp, &o.cmn.port) != 0;
	if (!failed) {
		failed = pp_init(&c, &o, sysconf(_SC_PAGESIZE)) != 0 || pp_session(&c, &o) != 0;
		if (pp_stop_requested)
			failed = pp_session_stop(&c.pp, c.qp, c.num_qp, c.cq, "srq_pingpong") != 0;
		failed |= pp_destroy(&c) != 0;
		failed |= pp_port_close(&c.pp) != 0;
	}
	free(c.buf);
	free(c.wc);
	/* Interrupt thread parked first: see rc_pingpong and pp_intr_park(). */
	pp_eal_fini();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
