/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef PP_VERBS_H
#define PP_VERBS_H

/*
 * The steps every pingpong example takes the same way: the command line
 * (its own options plus PP_PORT_LONGOPTS, then an optional server name),
 * the EAL, the RC QP transitions with the tools' attributes (doc/wire-format.md
 * §8.4; RC:libibverbs/examples/rc_pingpong.c pp_connect_ctx), one SEND, and
 * the teardown of the PD, MR and CQ. Failures are printed on stderr with the
 * tools' wording; name says which QP ("QP", "QP[3]").
 */

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "pp_oob.h"
#include "pp_port.h"

/* The tools' defaults (RC:libibverbs/examples/rc_pingpong.c main). */
#define PP_MTU_DEFAULT IBV_MTU_1024
#define PP_RX_DEPTH_DEFAULT 500
#define PP_ITERS_DEFAULT 1000
#define PP_IB_PORT_DEFAULT 1
/* Largest -s: max_msg_sz, 2 GiB. */
#define PP_MESSAGE_MAX (1u << 31)

/* The options every pingpong tool takes, and where they go. */
struct pp_opts_common {
	struct pp_port_conf port; /* -d, --ip, --eth-mtu, --pcap */
	const char *servername;	/* client mode when set */
	uint16_t tcp_port;	/* -p */
	int ib_port;		/* -i */
	uint32_t size;		/* -s */
	enum ibv_mtu mtu;	/* -m */
	uint32_t rx_depth;	/* -r */
	uint32_t iters;		/* -n */
	uint8_t sl;		/* -l */
	int gidx;		/* -g; -1 = the GID of --ip */
};

/* The long options of struct pp_opts_common, for the example's getopt_long() table. */
#define PP_COMMON_LONGOPTS \
	{ "port", required_argument, NULL, 'p' }, \
	{ "ib-dev", required_argument, NULL, 'd' }, \
	{ "ib-port", required_argument, NULL, 'i' }, \
	{ "size", required_argument, NULL, 's' }, \
	{ "mtu", required_argument, NULL, 'm' }, \
	{ "rx-depth", required_argument, NULL, 'r' }, \
	{ "iters", required_argument, NULL, 'n' }, \
	{ "sl", required_argument, NULL, 'l' }, \
	{ "gid-idx", required_argument, NULL, 'g' }, \
	PP_PORT_LONGOPTS

/* One option of the example itself: 0, -EINVAL (usage) or another negative errno (said why). */
typedef int (*pp_opt_fn)(void *opts, int c, const char *arg);

/*
 * getopt_long() over argv (after the EAL's arguments), into cmn with the
 * tools' defaults (size: size_default, at least size_min): -p -d -i -s -m
 * -r -n -l -g and PP_PORT_LONGOPTS are taken here, the other options go to
 * opt(opts, c, optarg); then at most one positional argument, the server;
 * then pp_port_conf_check(). usage(argv[0]) is printed on -EINVAL. Returns
 * 0 or the negative errno.
 */
int pp_cmdline(int argc, char **argv, const char *shortopts, const struct option *longopts,
	       struct pp_opts_common *cmn, uint32_t size_default, uint32_t size_min,
	       pp_opt_fn opt, void *opts, void (*usage)(const char *argv0));

/*
 * rte_roce_eal_init() and skip its arguments: *argc and *argv then hold the
 * program's own, argv[0] first. 0, or -1 after printing why.
 */
int pp_eal_init(int *argc, char ***argv);

/* The path of a connection, as the tools' options give it. */
struct pp_path {
	enum ibv_mtu mtu;	/* -m */
	uint8_t sl;		/* -l */
	int ib_port;		/* -i */
	int sgid_index;		/* -g, or the GID of --ip */
};

/* ibv_ud_pingpong's Q_Key (doc/wire-format.md §9.1). */
#define PP_UD_QKEY 0x11111111

/* RESET -> INIT, no remote access; UD: Q_Key PP_UD_QKEY (the tools' pp_init_ctx()). 0 or -1. */
int pp_qp_to_init(struct ibv_qp *qp, int ib_port, const char *name);

/*
 * INIT -> RTR -> RTS towards dest with the tools' RC attributes: hop limit
 * 1, min_rnr_timer 12, timeout 14, retry_cnt and rnr_retry 7, one READ each
 * way; sq_psn my_psn. UC QPs get the UC subset (RTR: AV, MTU, QPN, PSN;
 * RTS: PSN), UD QPs the state and sq_psn only (their peer is an address
 * handle). A zero GID is refused (RoCE needs a GRH; the peer forgot -g).
 * 0 or -1.
 */
int pp_qp_connect(struct ibv_qp *qp, const struct pp_path *path, uint32_t my_psn,
		  const struct pp_dest *dest, const char *name);

/* Post one SEND of len bytes at buf with flags. 0 or the negative errno. */
int pp_post_send_buf(struct ibv_qp *qp, uint64_t wr_id, void *buf, uint32_t len, uint32_t lkey,
		     unsigned int flags);

/*
 * The tools' usage lines: the two command forms, the port options, then
 * -p -d -i -s -m (the size default size_default).
 */
void pp_usage_common(const char *argv0, uint32_t size_default);

/*
 * Allocate *pd, register [buf, buf + len) with LOCAL_WRITE as *mr, create
 * *cq of cqe on channel (NULL: none). 0 or -1.
 */
int pp_alloc_pd_mr_cq(struct ibv_context *ctx, void *buf, uint32_t len, int cqe,
		      struct ibv_comp_channel *channel, struct ibv_pd **pd, struct ibv_mr **mr,
		      struct ibv_cq **cq);

/* Destroy *cq, deregister *mr, free *pd (each if not NULL; NULL after). 0 or -1. */
int pp_free_cq_mr_pd(struct ibv_cq **cq, struct ibv_mr **mr, struct ibv_pd **pd);

#endif /* PP_VERBS_H */
