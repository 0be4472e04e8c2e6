/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_TEST_VERBS_H
#define ROCE_TEST_VERBS_H

/*
 * Two librte_roce devices in one process over the net_ring pair of
 * roce_test_port.h, both driven from the test's thread: each side's port,
 * device, PD, CQs and one registered buffer; connected QP pairs (RC or
 * UC); posting and waiting helpers; and one checked transfer of any
 * opcode (data byte for byte, canaries around it, both completions).
 * Shared by the RC, UC and UD tests.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <rte_roce.h>

#include "roce_test_port.h"

struct roce_transport_stats;

#define ROCE_TEST_ADDR_A		"10.0.0.1"
#define ROCE_TEST_ADDR_B		"10.0.0.2"
#define ROCE_TEST_ADDR6_A		"fd00::1"
#define ROCE_TEST_ADDR6_B		"fd00::2"
#define ROCE_TEST_BUF_LEN		(2u << 20)	/* 1 MiB messages plus room around them */
#define ROCE_TEST_MSG_MAX		(1u << 20)
#define ROCE_TEST_DATA_OFF	64		/* messages start here; canaries before */
#define ROCE_TEST_CANARY		0xa5
#define ROCE_TEST_CANARY_LEN	32
#define ROCE_TEST_CQ_LEN		4096
#define ROCE_TEST_WAIT_MS		5000
#define ROCE_TEST_QUIET_MS	20		/* how long "nothing more comes" is watched */
#define ROCE_TEST_MAX_QPS		64
#define ROCE_TEST_RD_ATOM		16
#define ROCE_TEST_IMM		0x12345678u
#define ROCE_TEST_RETRY_CNT	7
#define ROCE_TEST_RNR_INFINITE	7
#define ROCE_TEST_RNR_TIMER_10US	1		/* RNR timer code 1: 10 us */
#define ROCE_TEST_UD_PSN	0x123456	/* send PSN of UD test QPs */

/* Every access right an MR can have. */
#define ROCE_TEST_ALL_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
				 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* One device with its objects. */
struct roce_test_side {
	struct rte_roce_port *port;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq;	/* lane 0 */
	struct ibv_cq *rcq;
	uint16_t nb_lanes;	/* of the device: a port queue each */
	struct ibv_cq *lane_cq[RTE_ROCE_DEV_WORKERS_MAX];	/* lane >= 1: its one CQ */
	uint8_t *buf;
	bool rte_mem;		/* buf from rte_malloc, else malloc */
	struct ibv_mr *mr;
	int gid_index;
	union ibv_gid gid;
};

/* How a test connects its QPs. */
struct roce_test_conf {
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
	enum ibv_qp_type qp_type;	/* 0: IBV_QPT_RC */
	const struct rte_roce_dev_conf *dev_conf[2];	/* each side's device; NULL: defaults, inline */
	/*
	 * The wire: NULL for roce_test_verbs_pair; a pair of as many queues as
	 * the devices have lanes otherwise (roce_test_pair_create_mq()).
	 */
	struct roce_test_pair *pair;
};

/* Two sides and their QP pairs: qp[0][i] on side 0 is connected to qp[1][i]. */
struct roce_test_env {
	struct roce_test_side s[2];
	struct ibv_qp *qp[2][ROCE_TEST_MAX_QPS];
	unsigned int nqps;
	unsigned int baseline;
	struct roce_test_pair *pair;	/* the wire between the sides */
	bool external[2];	/* a side driven by other threads: the helpers do not poll it */
};

/* The net_ring pair the sides use (created by the test's main()). */
extern struct roce_test_pair roce_test_verbs_pair;

/* RC defaults of a connection: MTU 1024, fast RNR timer, every right. */
extern const struct roce_test_conf roce_test_default_conf;

/* Poll both devices once. */
void roce_test_pump_env(struct roce_test_env *e);

/* The engine's counters of a side's device. */
const struct roce_transport_stats *roce_test_xstats(struct roce_test_side *s);

/*
 * Open a side on ethdev eth with address addr ("10.0.0.1" or "fd00::1"):
 * port, device, PD, CQs of ROCE_TEST_CQ_LEN, a ROCE_TEST_BUF_LEN buffer
 * (rte_malloc or malloc) registered with every right.
 */
int roce_test_side_open(struct roce_test_side *s, uint16_t eth, const char *addr, bool rte_mem);

/* The same with the device opened with conf (NULL: defaults). */
int roce_test_side_open_conf(struct roce_test_side *s, uint16_t eth, const char *addr, bool rte_mem,
			     const struct rte_roce_dev_conf *conf);

/* A QP of type on the side's PD and CQs: 256 WRs, 4 SGEs, 64 inline bytes. */
int roce_test_qp_create(struct roce_test_side *s, enum ibv_qp_type type, struct ibv_qp **qp);
/* The same on a lane of the device (its CQs' comp_vector): 0 or -1 after printing why. */
int roce_test_qp_create_lane(struct roce_test_side *s, enum ibv_qp_type type, uint16_t lane,
			     struct ibv_qp **qp);

/* RESET -> INIT -> RTR -> RTS, as ibv_rc_pingpong (ibv_uc_pingpong for UC) does. */
int roce_test_qp_connect(struct ibv_qp *qp, const struct roce_test_side *self,
			 const struct roce_test_side *peer, uint32_t peer_qpn, uint32_t sq_psn,
			 uint32_t rq_psn, const struct roce_test_conf *c);

/*
 * A UD QP to RTS as ibv_ud_pingpong does: INIT with the Q_Key, RTR with
 * the state only, RTS with a PSN.
 */
int roce_test_ud_qp_ready(struct ibv_qp *qp, uint32_t qkey);

/* Side's test address (0: ROCE_TEST_ADDR_A or ROCE_TEST_ADDR6_A, 1: B's) and port, in ss. */
void roce_test_sockaddr(struct sockaddr_storage *ss, bool ipv6, unsigned int side, uint16_t port);

/* An AH from side s to dgid (text). NULL after printing why. */
struct ibv_ah *roce_test_ah_create(struct roce_test_side *s, const char *dgid);

/* Connect QP pair i of e. */
int roce_test_pair_connect(struct roce_test_env *e, unsigned int i,
			   const struct roce_test_conf *c);

/* Both sides over roce_test_verbs_pair and nqps connected QP pairs of c->qp_type. */
int roce_test_env_open(struct roce_test_env *e, const struct roce_test_conf *c,
		       unsigned int nqps);

/* Destroy a side's QPs and objects, checking each call. */
int roce_test_side_close(struct roce_test_side *s, struct ibv_qp **qps, unsigned int nqps);

/* Close both sides and check that no mbuf leaked. */
int roce_test_env_close(struct roce_test_env *e);

/* Poll both devices until cq gave n completions; returns how many it gave. */
int roce_test_wait_wc(struct roce_test_env *e, struct ibv_cq *cq, struct ibv_wc *wc, int n);

/*
 * The same for tests with their own objects: poll devices a and b until cq
 * gave n completions or timeout_ms passed (a NULL device is not polled:
 * other threads drive it); how many it gave, or
 * rte_roce_poll_cq()'s error.
 */
int roce_test_wait_wc_ctx(struct ibv_context *a, struct ibv_context *b, struct ibv_cq *cq,
			  struct ibv_wc *wc, int n, unsigned int timeout_ms);

/* A stream of signaled RDMA WRITEs, for application threads (roce_test_write_stream()). */
struct roce_test_stream {
	struct ibv_qp *qp;
	void *laddr;
	uint32_t lkey;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t len;		/* bytes per WRITE */
	uint32_t count;		/* WRITEs, wr_id 0 .. count - 1 */
	uint32_t window;	/* in flight at most, up to 256 */
	uint32_t timeout_ms;
	uint32_t done;		/* completions seen, in order */
	int rc;			/* roce_test_stream_thread(): the stream's result */
	uint32_t finished;	/* roce_test_stream_thread(): set (release) when it returns */
};

/*
 * A stream of count WRITEs of len bytes on qp, from e's side a to side b,
 * at offset off of both buffers.
 */
void roce_test_stream_init(struct roce_test_stream *st, struct roce_test_env *e,
			   struct ibv_qp *qp, uint32_t off, uint32_t len, uint32_t count,
			   uint32_t window, uint32_t timeout_ms);
/* pthread body: roce_test_write_stream(arg), then rc and finished. */
void *roce_test_stream_thread(void *arg);
/* Poll ctx from this thread until the n streams' threads have returned. */
void roce_test_streams_wait(struct ibv_context *ctx, struct roce_test_stream *const *st,
			    unsigned int n);

/*
 * Post st's WRITEs, st->window at most in flight, polling only the QP's
 * send CQ (other threads make progress); every completion successful,
 * once, in order, on this QP. 0, or -1 after printing why.
 */
int roce_test_write_stream(struct roce_test_stream *st);

/* Nothing more arrives on cq for a while. */
int roce_test_expect_quiet(struct roce_test_env *e, struct ibv_cq *cq);

/* One receive WR of one SGE (none when len is 0). */
int roce_test_post_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
			uint32_t lkey);

/*
 * One send WR; laddr/len the local buffer, raddr/rkey the remote one
 * (SEND_WITH_INV: rkey is the key to invalidate).
 */
int roce_test_post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t wr_id, void *laddr,
			uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey, int flags);

/* One signaled atomic WR. */
int roce_test_post_atomic(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t wr_id, void *laddr,
			  uint32_t lkey, uint64_t raddr, uint32_t rkey, uint64_t compare_add,
			  uint64_t swap);

/* A pattern that depends on seed and on the position. */
void roce_test_fill(uint8_t *p, uint32_t len, uint32_t seed);

/* Canaries around [off, off + len) of buf. */
void roce_test_canaries_set(uint8_t *buf, uint32_t off, uint32_t len);

/* The canaries around [off, off + len) are intact. */
int roce_test_canaries_check(const uint8_t *buf, uint32_t off, uint32_t len);

/* A completion's fields (only wr_id and status for an error). */
int roce_test_check_wc(const struct ibv_wc *wc, uint64_t wr_id, enum ibv_wc_status status,
		       enum ibv_wc_opcode opcode, uint32_t byte_len, uint32_t qp_num);

/* The receiver's view of a SEND or WRITE_WITH_IMM (not invalidated_rkey: the caller's). */
int roce_test_check_recv_wc(const struct ibv_wc *wc, enum ibv_wr_opcode op, uint64_t wr_id,
			    uint32_t len, const struct ibv_qp *qp, const struct ibv_qp *src);

/* The completion opcode of a send WR opcode. */
enum ibv_wc_opcode roce_test_send_wc_opcode(enum ibv_wr_opcode op);

/*
 * One message of len bytes with op from e's side `from` on QP pair i,
 * at offset off of both buffers; checks data, canaries and completions.
 */
int roce_test_transfer(struct roce_test_env *e, unsigned int from, unsigned int i,
		       enum ibv_wr_opcode op, uint32_t len, uint32_t off, uint32_t seed);

/* An engine counter of a device by name (summed over its lanes); UINT64_MAX if unknown. */
uint64_t roce_test_xstat(struct ibv_context *ctx, const char *name);

/* One transfer of a table run on a QP pair. */
struct roce_test_xfer {
	enum ibv_wr_opcode op;
	uint32_t len;
	unsigned int from;	/* side that posts */
};

/*
 * The lane tests' table: SEND 0 and 4000 B, SEND_WITH_IMM, WRITE 64 KiB,
 * WRITE_WITH_IMM, READ 64 KiB and 1 B, from either side.
 */
extern const struct roce_test_xfer roce_test_lane_table[];
#define ROCE_TEST_LANE_TABLE_LEN 7

/*
 * roce_test_lane_table on QP pair i of e with roce_test_transfer(), seeds
 * from *seed on. 0, or -1 after printing which transfer failed.
 */
int roce_test_lane_table_run(struct roce_test_env *e, unsigned int i, unsigned int *seed);

/* One real SEND first, so that both neighbour caches know the other. */
int roce_test_warm_up(struct roce_test_env *e);

/* Frames b will receive (ring 1), after polling a until at least n are there. */
int roce_test_frames_to_b(struct roce_test_env *e, unsigned int n);

/* Take the frames in ring r, drop those whose bit is set in drop_mask, put the rest back. */
int roce_test_drop_frames(unsigned int r, uint64_t drop_mask);

#endif /* ROCE_TEST_VERBS_H */
