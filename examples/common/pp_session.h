/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef PP_SESSION_H
#define PP_SESSION_H

/*
 * The session steps rc_pingpong (uc, ud) and srq_pingpong take the same
 * way: opening the TCP exchange, waiting for completions and the timed
 * ping-pong with its report. Failures print the tools' messages on stderr
 * (RC:libibverbs/examples/rc_pingpong.c) and return -1.
 */

#include <stdint.h>

#include <infiniband/verbs.h>

#include "pp_event.h"
#include "pp_port.h"
#include "pp_verbs.h"

/* How long one read or write of the exchange may block. */
#define PP_OOB_TIMEOUT_MS 30000
/*
 * Before teardown: until the link has been quiet this long, at most
 * PP_LINGER_MAX_MS. If our ACK of the peer's last message is lost, the
 * peer resends that message after its local ACK timeout (the tools' 14:
 * 67 ms, 68 ms between rxe's retries on the wire) and we must still be
 * there to ACK the duplicate: rxe takes the tools' retry_cnt 7 as
 * "retry for ever", so it would never finish. Quiet for two of its
 * retries: the first retry may be lost too.
 */
#define PP_LINGER_QUIET_MS 150
#define PP_LINGER_MAX_MS 2000

/* The wr_id of every receive and of every send, as the tools have them. */
enum {
	PP_RECV_WRID = 1,
	PP_SEND_WRID = 2,
};

/* What a ping-pong has posted and completed. */
struct pp_counts {
	uint32_t routs;		/* receives posted */
	uint32_t rcnt, scnt;	/* completions counted */
};

/* Post n receives for arg; how many were posted. */
typedef uint32_t (*pp_post_recv_fn)(void *arg, uint32_t n);

/*
 * Count one successful completion by its wr_id. A receive refills the
 * queue up to rx_depth by post_recv(arg, n) once low or fewer are left, as
 * the tools do. 0, or -1 after printing why (unknown wr_id, short refill).
 */
int pp_session_count(struct pp_counts *cnt, uint64_t wr_id, uint32_t rx_depth, uint32_t low,
		     pp_post_recv_fn post_recv, void *arg);

/* Server only (no servername): listen on -p into *listen_fd, else -1 there. 0 or -1. */
int pp_session_listen(const struct pp_opts_common *cmn, int *listen_fd);

/* Client: connect to the server, with PP_OOB_TIMEOUT_MS. The fd or -1. */
int pp_session_connect(const struct pp_opts_common *cmn);

/* Server: accept the client, with PP_OOB_TIMEOUT_MS. The fd or -1. */
int pp_session_accept(int listen_fd);

/*
 * The tools' wait: with -e sleep for the event and re-arm, then poll the CQ
 * once; without, drive the port and poll until a completion comes, or the
 * link goes down (the peer left: pp_port_link_lost()). Up to n completions
 * into wc; their number or -1.
 */
int pp_session_poll_cq(struct pp_events *ev, struct pp_port *pp, struct ibv_cq *cq, int n,
		       struct ibv_wc *wc);

/*
 * The timed ping-pong: the progress thread of -e around run(arg), the
 * report, then the linger, so that our last ACK (UC/UD: SEND) leaves
 * before the QPs go: the peer waits for it. 0 or -1.
 */
int pp_session_run(struct pp_events *ev, struct pp_port *pp, struct ibv_cq *cq,
		   const struct pp_opts_common *cmn, int (*run)(void *arg), void *arg);

/*
 * After SIGTERM or SIGINT (pp_stop_requested; the program called
 * pp_oob_stop_on_signals()), the clean stop a container runtime expects
 * within its grace period: every QP of qp[0..n-1] that left Reset to the
 * Error state (IBA 10.3.1: its outstanding work requests complete as
 * flushed), the completions polled from cq while the port is driven until
 * none came for PP_STOP_QUIET_MS (at most PP_STOP_MAX_MS), then on stdout
 * "<prog>: stopped by a signal: N QPs moved to the Error state, M work
 * requests flushed" and "counters (<prog>):" with the device's non-zero
 * counters. Call it single-threaded (after pp_session_run(), whose -e thread
 * has ended). 0, or -1 after saying which QP refused the Error state.
 */
#define PP_STOP_QUIET_MS 20
#define PP_STOP_MAX_MS 500
int pp_session_stop(struct pp_port *pp, struct ibv_qp *const *qp, unsigned int n,
		    struct ibv_cq *cq, const char *prog);

#endif /* PP_SESSION_H */
