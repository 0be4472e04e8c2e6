/* SPDX-License-Identifier: BSD-3-Clause */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rte_roce_verbs.h>

#include "pp_verbs.h"

/* QP attributes of the tools (RC:libibverbs/examples/rc_pingpong.c pp_connect_ctx). */
#define PP_HOP_LIMIT 1
#define PP_MAX_DEST_RD_ATOMIC 1
#define PP_MIN_RNR_TIMER 12
#define PP_TIMEOUT 14
#define PP_RETRY_CNT 7
#define PP_RNR_RETRY 7
#define PP_MAX_RD_ATOMIC 1

/* A number option into *val within [min, max]: 1 (taken) or -EINVAL. */
static int
pp_opt_number(const char *arg, unsigned long min, unsigned long max, unsigned long *val)
{
	return pp_parse_number(arg, min, max, val) == 0 ? 1 : -EINVAL;
}

/* One of the common options: 1 (taken), 0 (not one of them), -EINVAL (bad value). */
static int
pp_opt_common(struct pp_opts_common *o, uint32_t size_min, int c, const char *arg)
{
	unsigned long v = 0;
	int ret;

	switch (c) {
	case 'p':
		ret = pp_opt_number(arg, 0, UINT16_MAX, &v);
		o->tcp_port = v;
		return ret;
	case 'd':
		o->port.ethdev = arg;
		return 1;
	case 'i':
		ret = pp_opt_number(arg, 1, INT_MAX, &v);
		o->ib_port = v;
		return ret;
	case 's':
		ret = pp_opt_number(arg, size_min, PP_MESSAGE_MAX, &v);
		o->size = v;
		return ret;
	case 'm':
		ret = pp_opt_number(arg, 0, ULONG_MAX, &v);
		o->mtu = pp_mtu_to_enum(v);
		return o->mtu != 0 ? ret : -EINVAL;
	case 'r':
		ret = pp_opt_number(arg, 1, INT_MAX, &v);
		o->rx_depth = v;
		return ret;
	case 'n':
		ret = pp_opt_number(arg, 1, INT_MAX, &v);
		o->iters = v;
		return ret;
	case 'l':
		ret = pp_opt_number(arg, 0, UINT8_MAX, &v);
		o->sl = v;
		return ret;
	case 'g':
		ret = pp_opt_number(arg, 0, INT_MAX, &v);
		o->gidx = v;
		return ret;
	default:
		return pp_port_opt(&o->port, c, arg);
	}
}

int
pp_cmdline(int argc, char **argv, const char *shortopts, const struct option *longopts,
	   struct pp_opts_common *cmn, uint32_t size_default, uint32_t size_min,
	   pp_opt_fn opt, void *opts, void (*usage)(const char *argv0))
{
	int c, ret;

	*cmn = (struct pp_opts_common){
		.tcp_port = PP_OOB_PORT_DEFAULT,
		.ib_port = PP_IB_PORT_DEFAULT,
		.size = size_default,
		.mtu = PP_MTU_DEFAULT,
		.rx_depth = PP_RX_DEPTH_DEFAULT,
		.iters = PP_ITERS_DEFAULT,
		.gidx = -1,
	};
	optind = 1;	/* the EAL used getopt before us */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		ret = pp_opt_common(cmn, size_min, c, optarg);
		if (ret == 0)
			ret = opt(opts, c, optarg);
		else if (ret > 0)
			ret = 0;
		if (ret == -EINVAL)
			usage(argv[0]);
		if (ret != 0)
			return ret;
	}
	if (optind == argc - 1) {
		cmn->servername = argv[optind];
	} else if (optind < argc) {
		usage(argv[0]);
		return -EINVAL;
	}
	if (pp_port_conf_check(&cmn->port) != 0) {
		usage(argv[0]);
		return -EINVAL;
	}
	return 0;
}

int
pp_eal_init(int *argc, char ***argv)
{
	int ret = rte_roce_eal_init(*argc, *argv);

	if (ret < 0) {
		fprintf(stderr, "EAL: %s\n", strerror(-ret));
		return -1;
	}
	if (pp_vdevs_check((*argv)[0]) != 0)
		return -1;
	(*argv)[ret] = (*argv)[0];
	*argc -= ret;
	*argv += ret;
	return 0;
}

int
pp_qp_to_init(struct ibv_qp *qp, int ib_port, const char *name)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = ib_port,
		.qp_access_flags = 0,
		.qkey = PP_UD_QKEY,
	};
	/* UD takes a Q_Key where RC and UC take access rights (RC:ud_pingpong.c). */
	int mask = qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;

	if (rte_roce_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			       mask) != 0) {
		fprintf(stderr, "Failed to modify %s to INIT\n", name);
		return -1;
	}
	return 0;
}

int
pp_qp_connect(struct ibv_qp *qp, const struct pp_path *path, uint32_t my_psn,
	      const struct pp_dest *dest, const char *name)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = path->mtu,
		.dest_qp_num = dest->qpn,
		.rq_psn = dest->psn,
		.max_dest_rd_atomic = PP_MAX_DEST_RD_ATOMIC,
		.min_rnr_timer = PP_MIN_RNR_TIMER,
		.ah_attr = {
			.is_global = 1,
			.dlid = dest->lid,
			.sl = path->sl,
			.src_path_bits = 0,
			.port_num = path->ib_port,
			.grh = {
				.dgid = dest->gid,
				.hop_limit = PP_HOP_LIMIT,
				.sgid_index = path->sgid_index,
			},
		},
	};
	bool rc = qp->qp_type == IBV_QPT_RC;
	/* UD: RTR with the state alone (ud_pingpong.c); UC: without the RC attributes. */
	int rtr_mask = qp->qp_type == IBV_QPT_UD ? 0 :
		       IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		       (rc ? IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER : 0);
	int ret;

	/* The tools leave the AV local when the GID is zero; RoCE cannot route that. */
	if (dest->gid.global.interface_id == 0 && dest->gid.global.subnet_prefix == 0) {
		fprintf(stderr, "The remote GID is zero: run the peer with -g <GID index>\n");
		return -1;
	}
	ret = rte_roce_modify_qp(qp, &attr, IBV_QP_STATE | rtr_mask);
	if (ret != 0) {
		fprintf(stderr, "Failed to modify %s to RTR: %s\n", name, strerror(-ret));
		return -1;
	}
	attr.qp_state = IBV_QPS_RTS;
	attr.timeout = PP_TIMEOUT;
	attr.retry_cnt = PP_RETRY_CNT;
	attr.rnr_retry = PP_RNR_RETRY;
	attr.sq_psn = my_psn;
	attr.max_rd_atomic = PP_MAX_RD_ATOMIC;
	ret = rte_roce_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN |
				 (rc ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_MAX_QP_RD_ATOMIC : 0));
	if (ret != 0) {
		fprintf(stderr, "Failed to modify %s to RTS: %s\n", name, strerror(-ret));
		return -1;
	}
	return 0;
}

int
pp_post_send_buf(struct ibv_qp *qp, uint64_t wr_id, void *buf, uint32_t len, uint32_t lkey,
		 unsigned int flags)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf,
		.length = len,
		.lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = flags,
	};
	struct ibv_send_wr *bad_wr;

	return rte_roce_post_send(qp, &wr, &bad_wr);
}

int
pp_free_cq_mr_pd(struct ibv_cq **cq, struct ibv_mr **mr, struct ibv_pd **pd)
{
	if (*cq != NULL && rte_roce_destroy_cq(*cq) != 0) {
		fprintf(stderr, "Couldn't destroy CQ\n");
		return -1;
	}
	*cq = NULL;
	if (*mr != NULL && rte_roce_dereg_mr(*mr) != 0) {
		fprintf(stderr, "Couldn't deregister MR\n");
		return -1;
	}
	*mr = NULL;
	if (*pd != NULL && rte_roce_dealloc_pd(*pd) != 0) {
		fprintf(stderr, "Couldn't deallocate PD\n");
		return -1;
	}
	*pd = NULL;
	return 0;
}

void
pp_usage_common(const char *argv0, uint32_t size_default)
{
	printf("Usage:\n");
	printf("  %s [EAL args] -- --ip ADDR[/LEN] [options]         start a server and wait for "
	       "connection\n", argv0);
	printf("  %s [EAL args] -- --ip ADDR[/LEN] [options] <host>  connect to server at <host>\n",
	       argv0);
	printf("\nOptions:\n");
	pp_port_usage();
	printf("  -p, --port=<port>      listen on/connect to port <port> (default %u)\n",
	       PP_OOB_PORT_DEFAULT);
	printf("  -d, --ib-dev=<dev>     use the ethdev named <dev> (default first ethdev)\n");
	printf("  -i, --ib-port=<port>   use port <port> of IB device (default 1)\n");
	printf("  -s, --size=<size>      size of message to exchange (default %u)\n",
	       size_default);
	printf("  -m, --mtu=<size>       path MTU (default 1024)\n");
}

int
pp_alloc_pd_mr_cq(struct ibv_context *ctx, void *buf, uint32_t len, int cqe,
		  struct ibv_comp_channel *channel, struct ibv_pd **pd, struct ibv_mr **mr,
		  struct ibv_cq **cq)
{
	*pd = rte_roce_alloc_pd(ctx);
	if (*pd == NULL) {
		fprintf(stderr, "Couldn't allocate PD\n");
		return -1;
	}
	*mr = rte_roce_reg_mr(*pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (*mr == NULL) {
		fprintf(stderr, "Couldn't register MR\n");
		return -1;
	}
	*cq = rte_roce_create_cq(ctx, cqe, NULL, channel, 0);
	if (*cq == NULL) {
		fprintf(stderr, "Couldn't create CQ\n");
		return -1;
	}
	return 0;
}
