/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_TEST_RC_H
#define ROCE_TEST_RC_H

/*
 * One librte_roce device with its PD, CQs and a registered buffer, and the
 * RC connection steps, for tests that run two devices over a net_ring pair
 * (roce_test_port.h) from one thread. Every helper returns 0, or -1 after
 * printing the failed check (ROCE_TEST_ASSERT).
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include <rte_ring.h>

#include <rte_roce.h>

/* Each side's registered buffer: 1 MiB messages plus room around them. */
#define ROCE_TEST_BUF_LEN	(2u << 20)
/* Entries of each side's send and receive CQ. */
#define ROCE_TEST_CQ_LEN	4096
/* Responder resources every test QP offers. */
#define ROCE_TEST_RD_ATOM	16

/* One device with its objects. */
struct roce_test_side {
	struct rte_roce_port *port;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	uint8_t *buf;
	bool rte_mem;		/* buf from rte_malloc, else malloc */
	struct ibv_mr *mr;
	int gid_index;
	union ibv_gid gid;
};

/* How a test connects its QPs. */
struct roce_test_rc_conf {
	enum ibv_mtu mtu;
	uint32_t psn_ab;	/* PSNs from a to b */
	uint32_t psn_ba;
	int qp_access;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t max_rd_atomic;
	bool ipv6;		/* addresses of the peers */
};

/* MTU 1024, every remote right, 67 ms timeout, 7 retries, RNR forever every 10 us. */
extern const struct roce_test_rc_conf roce_test_rc_conf_default;

/* LOCAL_WRITE and every remote right. */
#define ROCE_TEST_ALL_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/*
 * Open a device on ethdev eth with address addr (IPv4 /24 or IPv6 /64), a
 * PD, two CQs of ROCE_TEST_CQ_LEN, and a zeroed buffer of ROCE_TEST_BUF_LEN
 * (rte_malloc or malloc) registered with every right.
 */
int roce_test_side_open(struct roce_test_side *s, uint16_t eth, const char *addr, bool rte_mem);

/* Destroy the QPs of qps that are not NULL, then everything side_open made. */
int roce_test_side_close(struct roce_test_side *s, struct ibv_qp **qps, unsigned int nqps);

/* RESET -> INIT -> RTR -> RTS, as ibv_rc_pingpong does. */
int roce_test_qp_connect(struct ibv_qp *qp, const struct roce_test_side *self,
			 const struct roce_test_side *peer, uint32_t peer_qpn, uint32_t sq_psn,
			 uint32_t rq_psn, const struct roce_test_rc_conf *c);

/*
 * Poll both devices until cq gave n completions or timeout_ms passed;
 * returns how many it gave, or rte_roce_poll_cq()'s error.
 */
int roce_test_wait_wc(struct ibv_context *a, struct ibv_context *b, struct ibv_cq *cq,
		      struct ibv_wc *wc, int n, unsigned int timeout_ms);

/* Poll both devices for ms milliseconds: cq must give no completion. */
int roce_test_expect_quiet(struct ibv_context *a, struct ibv_context *b, struct ibv_cq *cq,
			   unsigned int ms);

/*
 * Poll ctx alone until ring (one of a roce_test_pair, carrying ctx's frames
 * to the other side, which is not polled) holds exactly n frames, up to
 * timeout_ms.
 */
int roce_test_frames_wait(struct ibv_context *ctx, struct rte_ring *ring, unsigned int n,
			  unsigned int timeout_ms);

#endif /* ROCE_TEST_RC_H */
