/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rc_pingpong: rdma-core's ibv_rc_pingpong (v44) on librte_roce. Same
 * options, same TCP exchange byte for byte (doc/wire-format.md §11.1), same QP
 * settings (doc/wire-format.md §8.4), same strict ping-pong of SENDs and the same
 * output, so it runs against the unmodified tool on a kernel rxe peer.
 *
 * The same file builds uc_pingpong and ud_pingpong (PP_QP_TYPE set by
 * examples/uc_pingpong and examples/ud_pingpong), as ibv_uc_pingpong and
 * ibv_ud_pingpong, each with the options of its original: UC connects
 * with the UC attributes only (RTR: AV, MTU, QPN, PSN; RTS: PSN); UD sets
 * Q_Key 0x11111111 at INIT, creates an address handle to the peer (the
 * server before it answers), receives into size + 40 bytes (the GRH
 * first), sends from buf + 40, refuses a size above the port's active MTU
 * and has no -m.
 *
 *   rc_pingpong [EAL args] -- --ip ADDR[/LEN] [options]              server
 *   rc_pingpong [EAL args] -- --ip ADDR[/LEN] [options] <host>       client
 *
 * The RoCE port runs on the first ethdev the EAL probed (or the one -d
 * names), e.g. --vdev net_memif0,role=server,socket=/tmp/pp.sock. The
 * program is single-threaded, its wait loops calling rte_roce_poll(), except
 * with -e: the ping-pong then sleeps on a completion channel while a
 * progress thread drives the device (examples/common/pp_event.h says why).
 *
 * Differences from the original, all deliberate:
 * - -g defaults to the GID of --ip (RoCE needs a GRH; without -g the original
 *   sends a zero GID and its RTR fails); a peer's zero GID is refused clearly.
 * - -o/-O/-P (ODP), -t (timestamps), -j (device memory) and -N (new
 *   post-send API) are refused with a message, exit 1.
 * - -e runs a progress thread for the time of the ping-pong (see above).
 * - the server listens before printing its local address, so a script that
 *   waits for that line can start the client at once.
 * - -c: "invalid data in page N" makes the exit status 1.
 * - the wait loops yield the CPU when a poll finds nothing to do (see
 *   pp_port_poll()): the original spins, which is right on a dedicated core.
 * - numbers are parsed strictly; the exchange reads whole records and times
 *   out after PP_OOB_TIMEOUT_MS.
 * - before tearing down (and before -c checks the pages), each side polls
 *   until the link has been quiet for PP_LINGER_QUIET_MS, so that its last
 *   ACK (UC, UD: its last SEND) leaves: the peer waits for it.
 * - --pcap FILE captures the port's frames; see doc/examples.md.
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

#include <rte_roce_event.h>
#include <rte_roce_port.h>
#include <rte_roce_verbs.h>

#include "pp_event.h"
#include "pp_oob.h"
#include "pp_port.h"
#include "pp_session.h"
#include "pp_verbs.h"

/* Which of the three tools this build is (default: rc_pingpong). */
#ifndef PP_QP_TYPE
#define PP_QP_TYPE IBV_QPT_RC
#endif
#define PP_RC (PP_QP_TYPE == IBV_QPT_RC)
#define PP_UD (PP_QP_TYPE == IBV_QPT_UD)
#define PP_PROG (PP_RC ? "rc_pingpong" : PP_UD ? "ud_pingpong" : "uc_pingpong")
/* getopt strings of the originals (RC:libibverbs/examples/{rc,uc,ud}_pingpong.c). */
#define PP_OPTSTRING_RC "p:d:i:s:m:r:n:l:eg:oOPtcjN"
#define PP_OPTSTRING_UC "p:d:i:s:m:r:n:l:eg:c"
#define PP_OPTSTRING_UD "p:d:i:s:r:n:l:eg:c"
/* UD: the GRH in front of every receive (doc/wire-format.md §9.2, §11.1). */
#define PP_GRH_LEN (PP_UD ? RTE_ROCE_GRH_LEN : 0)
/* IB MTU enum -> bytes: 1 << (enum + 7) (doc/wire-format.md §8.2). */
#define PP_IB_MTU_SHIFT 7

/* The tool's defaults (RC:libibverbs/examples/rc_pingpong.c main; ud_pingpong.c: 1024). */
#define PP_SIZE_DEFAULT (PP_UD ? 1024 : 4096)
#define PP_PSN_MASK 0xffffff
#define PP_INIT_BYTE 0x7b	/* the tool fills its buffer with this */
#define PP_WC_BATCH 2		/* completions polled at a time */

struct pp_opts {
	struct pp_opts_common cmn; /* -p -d -i -s -m -r -n -l -g, --ip, ... */
	bool validate;		/* -c */
	bool use_event;		/* -e */
};

struct pp_ctx {
	struct pp_port pp;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;	/* UD: to the peer */
	uint32_t remote_qpn;	/* UD: the peer's QP */
	uint8_t *buf;
	uint32_t size;
	uint32_t rx_depth;
	uint32_t iters;		/* -n */
	unsigned int send_flags;
	int pending;		/* PP_*_WRID bits still awaited before the next send */
	struct pp_counts cnt;	/* receives posted, completions counted */
	struct pp_events ev;	/* -e: the channel and the progress thread */
};

static void
pp_usage(const char *argv0)
{
	pp_usage_common(argv0, PP_SIZE_DEFAULT);
	printf("  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n");
	printf("  -n, --iters=<iters>    number of exchanges (default 1000)\n");
	printf("  -l, --sl=<sl>          service level value\n");
	printf("  -e, --events           sleep on CQ events (default poll)\n");
	printf("  -g, --gid-idx=<gid index> local port gid index (default: the GID of --ip)\n");
	printf("  -c, --chk              validate received buffer\n");
	if (!PP_RC)
		return;
	printf("  -o, --odp              use on demand paging (not supported)\n");
	printf("  -O, --iodp             use implicit on demand paging (not supported)\n");
	printf("  -P, --prefetch         prefetch an ODP MR (not supported)\n");
	printf("  -t, --ts               get CQE with timestamp (not supported)\n");
	printf("  -j, --dm               use device memory (not supported)\n");
	printf("  -N, --new_send         use new post send WR API (not supported)\n");
}

/* ---- options ---- */

static int
pp_unsupported(const char *what)
{
	fprintf(stderr, "%s: not supported yet by librte_roce\n", what);
	return -ENOTSUP;
}

/* One option of this tool's own; 0, -EINVAL (usage) or -ENOTSUP (refused feature). */
static int
pp_opt(void *opts, int c, const char *arg)
{
	struct pp_opts *o = opts;

	RTE_SET_USED(arg);
	switch (c) {
	case 'c':
		o->validate = true;
		return 0;
	case 'e':
		o->use_event = true;
		return 0;
	case 'o':
	case 'O':
	case 'P':
		return pp_unsupported("-o/-O/-P (on demand paging)");
	case 't':
		return pp_unsupported("-t/--ts (completion timestamps)");
	case 'j':
		return pp_unsupported("-j/--dm (device memory)");
	case 'N':
		return pp_unsupported("-N/--new_send (the ibv_wr_* post API)");
	default:
		return -EINVAL;
	}
}

static int
pp_parse_args(int argc, char **argv, struct pp_opts *o)
{
	static const struct option longopts[] = {
		{ "events", no_argument, NULL, 'e' },
		{ "odp", no_argument, NULL, 'o' },
		{ "iodp", no_argument, NULL, 'O' },
		{ "prefetch", no_argument, NULL, 'P' },
		{ "ts", no_argument, NULL, 't' },
		{ "chk", no_argument, NULL, 'c' },
		{ "dm", no_argument, NULL, 'j' },
		{ "new_send", no_argument, NULL, 'N' },
		PP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	o->validate = false;
	o->use_event = false;
	return pp_cmdline(argc, argv, PP_RC ? PP_OPTSTRING_RC :
			  PP_UD ? PP_OPTSTRING_UD : PP_OPTSTRING_UC, longopts, &o->cmn,
			  PP_SIZE_DEFAULT, 0, pp_opt, o, pp_usage);
}

/* ---- resources ---- */

static uint32_t
pp_post_recv(void *arg, uint32_t n)
{
	struct pp_ctx *c = arg;
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->buf,
		.length = c->size + PP_GRH_LEN,
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
		if (rte_roce_post_recv(c->qp, &wr, &bad_wr) != 0)
			break;
	return i;
}

/* UD: one SEND from buf + 40 to the peer's QP through the AH (RC:ud_pingpong.c pp_post_send). */
static int
pp_post_send_ud(struct pp_ctx *c)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->buf + PP_GRH_LEN),
		.length = c->size,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = PP_SEND_WRID,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = c->send_flags,
	};
	struct ibv_send_wr *bad_wr;

	wr.wr.ud.ah = c->ah;
	wr.wr.ud.remote_qpn = c->remote_qpn;
	wr.wr.ud.remote_qkey = PP_UD_QKEY;
	return rte_roce_post_send(c->qp, &wr, &bad_wr);
}

static int
pp_post_send(struct pp_ctx *c)
{
	if (PP_UD)
		return pp_post_send_ud(c);
	return pp_post_send_buf(c->qp, PP_SEND_WRID, c->buf, c->size, c->mr->lkey, c->send_flags);
}

/* QP as the tool creates it: one send WR, rx_depth receives, one SGE each; INLINE if it fits. */
static int
pp_create_qp(struct pp_ctx *c, int ib_port)
{
	struct ibv_qp_init_attr init = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.cap = {
			.max_send_wr = 1,
			.max_recv_wr = c->rx_depth,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = PP_QP_TYPE,
	};
	struct ibv_qp_attr attr;

	c->qp = rte_roce_create_qp(c->pd, &init);
	if (c->qp == NULL) {
		fprintf(stderr, "Couldn't create QP: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (rte_roce_query_qp(c->qp, &attr, IBV_QP_CAP, &init) == 0 &&
	    init.cap.max_inline_data >= c->size)
		c->send_flags |= IBV_SEND_INLINE;
	return pp_qp_to_init(c->qp, ib_port, "QP");
}

/* Free what pp_init() made, in reverse; 0 or -1 after saying which step failed. */
static int
pp_destroy(struct pp_ctx *c)
{
	if (c->qp != NULL && rte_roce_destroy_qp(c->qp) != 0) {
		fprintf(stderr, "Couldn't destroy QP\n");
		return -1;
	}
	c->qp = NULL;
	if (c->ah != NULL && rte_roce_destroy_ah(c->ah) != 0) {
		fprintf(stderr, "Couldn't destroy AH\n");
		return -1;
	}
	c->ah = NULL;
	pp_events_ack(&c->ev, c->cq);
	if (pp_free_cq_mr_pd(&c->cq, &c->mr, &c->pd) != 0)
		return -1;
	/* After the CQ that used it. */
	return pp_events_close(&c->ev);
}

/* Everything up to a QP in INIT with rx_depth receives posted; c->pp is open. */
static int
pp_init(struct pp_ctx *c, const struct pp_opts *o, long page_size)
{
	c->size = o->cmn.size;
	c->rx_depth = o->cmn.rx_depth;
	c->iters = o->cmn.iters;
	c->send_flags = IBV_SEND_SIGNALED;
	/* At least one byte, so that a zero-size run still has an address to register. */
	if (posix_memalign((void **)&c->buf, page_size,
			   RTE_MAX(o->cmn.size + PP_GRH_LEN, 1u)) != 0) {
		c->buf = NULL;
		fprintf(stderr, "Couldn't allocate work buf.\n");
		return -1;
	}
	memset(c->buf, PP_INIT_BYTE, o->cmn.size + PP_GRH_LEN);
	/* Before the CQ that uses it, as the tool's pp_init_ctx(). */
	if (pp_events_open(&c->ev, c->pp.ctx, o->use_event) != 0)
		return -1;
	if (pp_alloc_pd_mr_cq(c->pp.ctx, c->buf, o->cmn.size + PP_GRH_LEN, o->cmn.rx_depth + 1,
			      c->ev.channel,
			      &c->pd, &c->mr, &c->cq) != 0)
		return -1;
	if (pp_create_qp(c, o->cmn.ib_port) != 0)
		return -1;
	c->cnt.routs = pp_post_recv(c, c->rx_depth);
	if (c->cnt.routs < c->rx_depth) {
		fprintf(stderr, "Couldn't post receive (%u)\n", c->cnt.routs);
		return -1;
	}
	return 0;
}

/* ---- connection ---- */

/*
 * RTR then RTS with the tool's attributes (RC:rc_pingpong.c pp_connect_ctx);
 * UD: then the address handle to the peer (RC:ud_pingpong.c pp_connect_ctx).
 */
static int
pp_connect(struct pp_ctx *c, const struct pp_opts *o, int sgid_index, uint32_t my_psn,
	   const struct pp_dest *dest)
{
	const struct pp_path path = {
		.mtu = o->cmn.mtu, .sl = o->cmn.sl, .ib_port = o->cmn.ib_port, .sgid_index = sgid_index,
	};
	struct ibv_ah_attr ah_attr = {
		.is_global = 1,
		.dlid = dest->lid,
		.sl = o->cmn.sl,
		.port_num = o->cmn.ib_port,
		.grh = { .dgid = dest->gid, .sgid_index = sgid_index, .hop_limit = 1 },
	};

	if (pp_qp_connect(c->qp, &path, my_psn, dest, "QP") != 0)
		return -1;
	if (!PP_UD)
		return 0;
	c->ah = rte_roce_create_ah(c->pd, &ah_attr);
	if (c->ah == NULL) {
		fprintf(stderr, "Failed to create AH\n");
		return -1;
	}
	c->remote_qpn = dest->qpn;
	return 0;
}

/* Client side: send ours, read theirs, say done; the QP is connected afterwards. */
static int
pp_client_exchange(const struct pp_opts *o, const struct pp_dest *mine, struct pp_dest *rem)
{
	int fd, ret;

	fd = pp_session_connect(&o->cmn);
	if (fd < 0)
		return -1;
	ret = pp_oob_send_dest(fd, mine);
	if (ret != 0)
		fprintf(stderr, "Couldn't send local address: %s\n", strerror(-ret));
	if (ret == 0) {
		ret = pp_oob_recv_dest(fd, rem);
		if (ret == 0)
			ret = pp_oob_send_done(fd);
		if (ret != 0)
			fprintf(stderr, "Couldn't read/write remote address: %s\n", strerror(-ret));
	}
	close(fd);
	return ret == 0 ? 0 : -1;
}

/* Server: read theirs, connect the QP, then answer (the order matters: doc/wire-format.md §11.1). */
static int
pp_server_exchange(struct pp_ctx *c, const struct pp_opts *o, int listen_fd, int sgid_index,
		   const struct pp_dest *mine, struct pp_dest *rem)
{
	int fd, ret;

	fd = pp_session_accept(listen_fd);
	if (fd < 0)
		return -1;
	ret = pp_oob_recv_dest(fd, rem);
	if (ret != 0)
		fprintf(stderr, "Couldn't read remote address: %s\n", strerror(-ret));
	if (ret == 0 && pp_connect(c, o, sgid_index, mine->psn, rem) != 0) {
		fprintf(stderr, "Couldn't connect to remote QP\n");
		ret = -1;
	}
	if (ret == 0) {
		ret = pp_oob_send_dest(fd, mine);
		if (ret == 0)
			ret = pp_oob_recv_done(fd);
		if (ret != 0)
			fprintf(stderr, "Couldn't send/recv local address: %s\n", strerror(-ret));
	}
	close(fd);
	return ret == 0 ? 0 : -1;
}

/* ---- the ping-pong ---- */

static int
pp_complete(struct pp_ctx *c, const struct ibv_wc *wc, uint32_t iters)
{
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "Failed status %s (%d) for wr_id %d\n",
			ibv_wc_status_str(wc->status), wc->status, (int)wc->wr_id);
		return -1;
	}
	/* Refill the receive queue before it runs dry, as the tool does. */
	if (pp_session_count(&c->cnt, wc->wr_id, c->rx_depth, 1, pp_post_recv, c) != 0)
		return -1;
	/* Strict ping-pong: send again only once the last send completed and a message arrived. */
	c->pending &= ~(int)wc->wr_id;
	if (c->cnt.scnt < iters && c->pending == 0) {
		if (pp_post_send(c) != 0) {
			fprintf(stderr, "Couldn't post send\n");
			return -1;
		}
		c->pending = PP_RECV_WRID | PP_SEND_WRID;
	}
	return 0;
}

/* The tool's loop: with -e, sleep for an event, re-arm, then poll the CQ once. */
static int
pp_run(void *arg)
{
	struct pp_ctx *c = arg;
	uint32_t iters = c->iters;
	struct ibv_wc wc[PP_WC_BATCH];
	int ne, i;

	while (c->cnt.rcnt < iters || c->cnt.scnt < iters) {
		ne = pp_session_poll_cq(&c->ev, &c->pp, c->cq, PP_WC_BATCH, wc);
		if (ne < 0)
			return -1;
		for (i = 0; i < ne; i++) {
			if (pp_complete(c, &wc[i], iters) != 0) {
				fprintf(stderr, "parse WC failed %d\n", ne);
				return -1;
			}
		}
	}
	return 0;
}

/* -c: the client marks a byte per page, the server checks it arrived (RC:rc_pingpong.c). */
static void
pp_mark_pages(struct pp_ctx *c, long page_size)
{
	uint32_t i;

	for (i = 0; i < c->size; i += page_size)
		c->buf[i + PP_GRH_LEN] = i / page_size % sizeof(char);
}

static int
pp_check_pages(const struct pp_ctx *c, long page_size)
{
	int bad = 0;
	uint32_t i;

	for (i = 0; i < c->size; i += page_size) {
		if (c->buf[i + PP_GRH_LEN] != i / page_size % sizeof(char)) {
			fprintf(stderr, "invalid data in page %lu\n",
				(unsigned long)(i / page_size));
			bad = -1;
		}
	}
	return bad;
}

/* Exchange addresses, connect, ping-pong, report. The resources exist. */
static int
pp_session(struct pp_ctx *c, const struct pp_opts *o, long page_size)
{
	struct pp_dest mine = { 0 }, rem;
	struct ibv_port_attr portinfo;
	int sgid_index = o->cmn.gidx >= 0 ? o->cmn.gidx : c->pp.gid_index;
	int listen_fd;

	if (rte_roce_query_port(c->pp.ctx, o->cmn.ib_port, &portinfo) != 0) {
		fprintf(stderr, "Couldn't get port info\n");
		return -1;
	}
	mine.lid = portinfo.lid;
	if (PP_UD && o->cmn.size > (1u << (portinfo.active_mtu + PP_IB_MTU_SHIFT))) {
		fprintf(stderr, "Requested size larger than port MTU (%u)\n",
			1u << (portinfo.active_mtu + PP_IB_MTU_SHIFT));
		return -1;
	}
	if (portinfo.link_layer != IBV_LINK_LAYER_ETHERNET && mine.lid == 0) {
		fprintf(stderr, "Couldn't get local LID\n");
		return -1;
	}
	if (rte_roce_query_gid(c->pp.ctx, o->cmn.ib_port, sgid_index, &mine.gid) != 0) {
		fprintf(stderr, "can't read sgid of index %d\n", sgid_index);
		return -1;
	}
	mine.qpn = c->qp->qp_num;
	mine.psn = lrand48() & PP_PSN_MASK;
	if (pp_session_listen(&o->cmn, &listen_fd) != 0)
		return -1;
	pp_dest_print("local address: ", &mine);
	if (o->cmn.servername != NULL ? pp_client_exchange(o, &mine, &rem) :
				    pp_server_exchange(c, o, listen_fd, sgid_index, &mine, &rem))
		return -1;
	pp_dest_print("remote address:", &rem);
	if (o->cmn.servername != NULL && pp_connect(c, o, sgid_index, mine.psn, &rem) != 0)
		return -1;
	if (pp_port_wait_link(&c->pp, PP_LINK_WAIT_MS_DEFAULT) != 0)
		return -1;

	c->pending = PP_RECV_WRID;
	if (o->cmn.servername != NULL) {
		if (o->validate)
			pp_mark_pages(c, page_size);
		if (pp_post_send(c) != 0) {
			fprintf(stderr, "Couldn't post send\n");
			return -1;
		}
		c->pending |= PP_SEND_WRID;
	}
	/*
	 * The run lingers until our last ACK (RC), or our last SEND (UC/UD: it
	 * completed when handed to the port), has left: the peer waits for it.
	 */
	if (pp_session_run(&c->ev, &c->pp, c->cq, &o->cmn, pp_run, c) != 0)
		return -1;
	if (o->cmn.servername == NULL && o->validate && pp_check_pages(c, page_size) != 0)
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	struct pp_ctx c;
	struct pp_opts o;
	long page_size;
	int failed;

	/* SIGTERM, SIGINT: a clean stop, exit 0 (pp_session_stop(), doc/deploy.md) */
	if (pp_eal_init(&argc, &argv) != 0 || pp_parse_args(argc, argv, &o) != 0 ||
	    pp_oob_stop_on_signals() != 0)
		return EXIT_FAILURE;
	srand48(getpid() * time(NULL));
	page_size = sysconf(_SC_PAGESIZE);
	memset(&c, 0, sizeof(c));
	failed = pp_port_open(&c.pp, &o.cmn.port) != 0;
	if (!failed) {
		failed = pp_init(&c, &o, page_size) != 0 || pp_session(&c, &o, page_size) != 0;
		if (pp_stop_requested)
			failed = pp_session_stop(&c.pp, &c.qp, 1, c.cq, PP_PROG) != 0;
		failed |= pp_destroy(&c) != 0;
		failed |= pp_port_close(&c.pp) != 0;
	}
	free(c.buf);
	/*
	 * The EAL interrupt thread is parked (pp_intr_park(), by the session
	 * or pp_port_close()) before anything is torn down: in DPDK 22.11 it
	 * runs net_memif's memif_disconnect() when the peer leaves, and that
	 * raced with our own rte_eth_dev_close() (the same regions freed twice:
	 * SIGSEGV in the interrupt thread while exit() ran the destructors) and
	 * with rte_eal_cleanup()'s unmapping. Parked, it runs nothing, so both
	 * the cleanup and exit() are safe (doc/lessons.md).
	 */
	pp_eal_fini();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
