/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NVMF_PRIV_H
#define NVMF_PRIV_H

/*
 * The target's objects (doc/nvmf.md, "Threading model": all owned by the
 * one lcore that polls the target) and the calls between its files:
 *
 *   nvmf_tgt.c       the target: PD, shared CQs, data buffers, the loop
 *   nvmf_cm.c        CM events: RDMA_CM_REQUEST private data, accept, reject
 *   nvmf_queue.c     a queue: receive slots, teardown
 *   nvmf_srq.c       the I/O queues' shared receive queue, queues by QP number, async events
 *   nvmf_req.c       a request: capsule, SGL, RDMA READ/WRITE, response (state machine)
 *   nvmf_fabrics.c   Connect, Property Get/Set, Disconnect; controllers
 *   nvmf_admin.c     Identify, features, log pages, keep alive, AER
 *   nvmf_io.c        Read, Write, Flush, Write Zeroes, Dataset Management
 *   nvmf_file.c      file and block device namespaces through io_uring
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <liburing.h>

#include <rte_log.h>

#include "nvmf.h"
#include "nvmf_spec.h"

extern int nvmf_logtype;
#define NVMF_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, nvmf_logtype, "nvmf: " fmt "\n", ##__VA_ARGS__)

struct nvmf_queue;
struct nvmf_ctrl;
struct rte_hash;

/* A request's states (nvmf_req.c: one handler each). */
enum nvmf_req_state {
	NVMF_REQ_FREE,
	NVMF_REQ_NEW,		/* capsule received: parse the SGL */
	NVMF_REQ_NEED_BUF,	/* keyed data: waiting for a data buffer */
	NVMF_REQ_DATA_IN,	/* RDMA READ of the host's data in flight */
	NVMF_REQ_EXECUTE,	/* run the command */
	NVMF_REQ_IO_WAIT,	/* file namespace: io_uring operations in flight */
	NVMF_REQ_AER_WAIT,	/* Asynchronous Event Request held until an event */
	NVMF_REQ_RESPOND,	/* RDMA WRITE of the data (host reads), then the response */
	NVMF_REQ_RESPONSE_SENT,	/* waiting for the work requests' completions */
	NVMF_REQ_STATES
};

/*
 * A receive slot: one capsule buffer; its address is the receive WR's
 * wr_id. q is its queue's, or NULL for a slot of the target's SRQ (the
 * completion's qp_num then names the queue).
 */
struct nvmf_recv {
	struct nvmf_queue *q;
	uint8_t *buf;
};

/* What a file namespace's command asks of io_uring (nvmf_file.c). */
enum nvmf_file_op {
	NVMF_FILE_READ,
	NVMF_FILE_WRITE,
	NVMF_FILE_FLUSH,
	NVMF_FILE_ZERO,
	NVMF_FILE_DEALLOCATE,
};

struct nvmf_req {
	struct nvmf_queue *q;
	enum nvmf_req_state state;
	uint8_t sqe[NVMF_SQE_LEN];	/* the command, copied from the capsule */
	uint8_t cqe[NVMF_CQE_LEN];	/* the response, sent inline */
	uint16_t status;		/* enum nvmf_status */
	uint32_t dw0, dw1;		/* command specific result */
	uint8_t dir;			/* NVMF_DIR_* */
	uint32_t len;			/* data bytes the SGL describes */
	uint8_t *data;			/* the data: a pool buffer or in the capsule */
	bool pool_buf;			/* data is a pool buffer */
	struct nvmf_recv *held;		/* its capsule buffer, while the data is in it */
	uint64_t raddr;			/* keyed SGL: the host's buffer */
	uint32_t rkey;
	bool invalidate;		/* the host asked for remote invalidation */
	uint32_t wrs;			/* send work requests posted, not completed */
	uint32_t io_pending;		/* io_uring operations not completed */
	uint32_t io_len;		/* bytes a read or write must move */
	enum nvmf_file_op io_op;
	TAILQ_ENTRY(nvmf_req) link;	/* free list, or the target's buffer wait list */
};
TAILQ_HEAD(nvmf_req_list, nvmf_req);

/* An address listened on; the discovery log names it to the hosts that came through it. */
struct nvmf_listener {
	struct rte_roce_cm_id *id;
	struct sockaddr_storage addr;	/* its port set */
	uint16_t port;
};

enum nvmf_queue_state {
	NVMF_Q_CONNECTING,	/* accepted, the CM's RTU not seen yet (capsules may come) */
	NVMF_Q_LIVE,
	NVMF_Q_DRAINING,	/* QP in ERR: waiting for its work requests to flush */
};

struct nvmf_queue {
	struct nvmf_tgt *tgt;
	struct rte_roce_cm_id *id;
	const struct nvmf_listener *listener;	/* the address the host connected to */
	struct ibv_qp *qp;
	enum nvmf_queue_state state;
	uint16_t qid;
	uint16_t sqsize;		/* 0's based, from the RDMA_CM_REQUEST */
	uint16_t sqhd;			/* submission queue head reported in responses */
	bool sqflow_off;
	struct nvmf_ctrl *ctrl;		/* set by the Fabrics Connect */
	uint32_t capsule_len;		/* receive buffer bytes: 64 + in-capsule data */
	bool on_srq;			/* capsules come from the target's SRQ, not recv[] */
	bool last_wqe;			/* on_srq: Last WQE Reached seen, no SRQ WQE held */
	uint32_t nb_recv;		/* its own receive slots (0 on the SRQ) */
	struct nvmf_recv *recv;
	uint8_t *recv_mem;
	struct ibv_mr *recv_mr;
	uint32_t nb_req;
	struct nvmf_req *req;
	struct nvmf_req_list free_req;
	uint32_t posted;		/* own receive and send WRs not completed */
	uint32_t io_reqs;		/* requests waiting for io_uring */
	TAILQ_ENTRY(nvmf_queue) link;
};
TAILQ_HEAD(nvmf_queue_list, nvmf_queue);

struct nvmf_ns {
	uint32_t nsid;
	uint64_t nblocks;
	uint32_t block_shift;
	uint8_t *ram;			/* RAM namespace, or NULL */
	int fd;				/* file namespace, or -1 */
	bool whole_file;		/* its size is the file's (nvmf_tgt_ns_rescan()) */
	uint8_t nguid[NVMF_NID_LEN];
};

struct nvmf_subsys {
	const struct nvmf_subsys_conf *conf;	/* NULL: the discovery subsystem */
	char nqn[NVMF_NQN_MAX + 1];
	bool discovery;
	struct nvmf_ns ns[NVMF_NS_MAX];
	uint32_t nb_ns;
};

#define NVMF_AER_MAX		4	/* Asynchronous Event Requests held (AERL + 1) */
#define NVMF_ERRLOG_MAX		16	/* Error Information log entries kept (ELPE + 1) */
#define NVMF_NS_BIT(nsid)	(1u << ((nsid) - 1))	/* NVMF_NS_MAX <= 32 */

struct nvmf_ctrl {
	struct nvmf_tgt *tgt;
	struct nvmf_subsys *subsys;
	uint16_t cntlid;
	char hostnqn[NVMF_NQN_MAX + 1];
	uint8_t hostid[16];
	struct nvmf_queue *admin;
	struct nvmf_queue **io;		/* by QID, 1 .. max_io_queues */
	uint16_t nb_io_queues;		/* granted by Set Features (Number of Queues) */
	uint32_t refs;			/* queues attached */
	bool dead;			/* its admin queue is gone: no new I/O queue */
	uint32_t cc, csts;
	uint32_t kato_ms;
	uint64_t ka_deadline;		/* timer cycles; 0: no keep-alive */
	uint32_t aec;			/* Asynchronous Event Configuration */
	struct nvmf_req *aer[NVMF_AER_MAX];	/* Asynchronous Event Requests held, oldest 1st */
	uint32_t nb_aers;
	uint32_t changed_ns;		/* NVMF_NS_BIT()s of the Changed Namespace List */
	bool aen_pending;		/* a notice waits for a request */
	bool aen_masked;		/* a notice was sent: none until the list is read */
	uint64_t errors;		/* error responses: the Error Information log's count */
	uint64_t media_errors;		/* of them with a media status (SMART) */
	uint8_t errlog[NVMF_ERRLOG_MAX][NVMF_ERRLOG_ENTRY_LEN];	/* a ring, by count */
};

struct nvmf_tgt {
	struct nvmf_tgt_conf conf;
	struct ibv_context *ctx;
	struct rte_roce_cm *cm;
	struct ibv_pd *pd;
	struct ibv_cq *send_cq, *recv_cq;
	struct rte_hash *qpn;		/* queues by their QP number */
	struct ibv_srq *srq;		/* the I/O queues' capsules, or NULL (conf.srq_depth 0) */
	struct nvmf_recv *srq_recv;	/* its slots */
	uint8_t *srq_mem;
	struct ibv_mr *srq_mr;
	uint32_t srq_posted;		/* slots posted, not completed */
	uint32_t srq_limit;		/* the limit armed: a limit event below it (0: none) */
	bool srq_low;			/* the limit fired: armed again once half is posted */
	uint32_t max_rd_atom;
	struct rte_roce_cm_channel *channel;
	struct nvmf_listener listeners[NVMF_LISTEN_MAX];
	unsigned int nb_listeners;
	uint8_t *pool_mem;
	struct ibv_mr *pool_mr;
	uint8_t **pool_free;
	uint32_t pool_nb_free;
	struct nvmf_req_list buf_wait;
	struct nvmf_subsys subsys[1 + NVMF_SUBSYS_MAX];	/* [0] discovery, then I/O ones */
	unsigned int nb_subsys;
	struct nvmf_ctrl **ctrl;	/* by cntlid - 1 */
	struct nvmf_queue_list queues;
	uint32_t nb_queues;
	struct io_uring ring;		/* file namespaces' I/O */
	bool ring_up;
	uint64_t ka_next_check;
	uint64_t async_next_check;	/* timer cycles: the next read of asynchronous events */
	bool stopping;
	struct nvmf_tgt_stats stats;
};

/* nvmf_tgt.c */
uint8_t *nvmf_buf_get(struct nvmf_tgt *tgt);
void nvmf_buf_put(struct nvmf_tgt *tgt, uint8_t *buf);
void nvmf_tgt_recv_drain(struct nvmf_tgt *tgt);

/* nvmf_srq.c */
int nvmf_srq_init(struct nvmf_tgt *tgt, const struct ibv_device_attr *attr);
void nvmf_srq_fini(struct nvmf_tgt *tgt);
int nvmf_srq_post(struct nvmf_tgt *tgt, struct nvmf_recv *r);
void nvmf_srq_recv_done(struct nvmf_tgt *tgt, struct nvmf_recv *r, const struct ibv_wc *wc);
int nvmf_qpn_add(struct nvmf_queue *q);
void nvmf_qpn_del(struct nvmf_queue *q);
int nvmf_async_poll(struct nvmf_tgt *tgt);
int nvmf_async_drain(struct nvmf_tgt *tgt);

/* nvmf_cm.c */
int nvmf_cm_listen(struct nvmf_tgt *tgt);
void nvmf_cm_unlisten(struct nvmf_tgt *tgt);
int nvmf_cm_poll(struct nvmf_tgt *tgt);

/* nvmf_queue.c */
struct nvmf_queue *nvmf_queue_create(struct nvmf_tgt *tgt, struct rte_roce_cm_id *id,
				     uint16_t qid, uint16_t sqsize);
int nvmf_recv_repost(struct nvmf_tgt *tgt, struct nvmf_recv *r);
void nvmf_queue_close(struct nvmf_queue *q, const char *why);
void nvmf_queue_reap(struct nvmf_tgt *tgt);
void nvmf_queue_free(struct nvmf_queue *q);

/* nvmf_req.c */
void nvmf_req_recv_done(struct nvmf_queue *q, struct nvmf_recv *r, const struct ibv_wc *wc);
void nvmf_req_send_done(struct nvmf_req *req, const struct ibv_wc *wc);
void nvmf_req_run(struct nvmf_req *req);
void nvmf_req_drop(struct nvmf_req *req);
void nvmf_req_fail(struct nvmf_req *req, uint16_t status);
void nvmf_req_io_done(struct nvmf_req *req);

/* nvmf_fabrics.c */
struct nvmf_subsys *nvmf_subsys_find(struct nvmf_tgt *tgt, const char *nqn);
bool nvmf_host_allowed(const struct nvmf_subsys *s, const char *host);
void nvmf_fabrics_exec(struct nvmf_req *req);
void nvmf_ctrl_put(struct nvmf_ctrl *ctrl);
void nvmf_ctrl_kill(struct nvmf_ctrl *ctrl, const char *why);
void nvmf_ctrl_keep_alive(struct nvmf_ctrl *ctrl);
void nvmf_ctrl_set_kato(struct nvmf_ctrl *ctrl, uint32_t ms);
void nvmf_subsys_ns_changed(struct nvmf_tgt *tgt, const struct nvmf_subsys *s, uint32_t nsid);
int nvmf_ctrl_check_timers(struct nvmf_tgt *tgt);

/* nvmf_admin.c */
void nvmf_admin_exec(struct nvmf_req *req);
void nvmf_ctrl_ns_changed(struct nvmf_ctrl *ctrl, uint32_t nsid);
void nvmf_ctrl_aer_forget(struct nvmf_ctrl *ctrl, const struct nvmf_req *req);
void nvmf_ctrl_aer_abort(struct nvmf_ctrl *ctrl);
void nvmf_ctrl_error_record(struct nvmf_ctrl *ctrl, const struct nvmf_req *req, uint16_t sf);

/* nvmf_file.c */
int nvmf_file_ns_open(struct nvmf_ns *ns, const struct nvmf_ns_conf *conf);
int nvmf_file_ring_init(struct nvmf_tgt *tgt);
void nvmf_file_ring_fini(struct nvmf_tgt *tgt);
int nvmf_file_submit(struct nvmf_req *req, const struct nvmf_ns *ns, enum nvmf_file_op op,
		     uint64_t off, uint64_t len);
int nvmf_file_poll(struct nvmf_tgt *tgt);
int nvmf_file_ns_rescan(struct nvmf_ns *ns);

/* nvmf_io.c */
void nvmf_io_exec(struct nvmf_req *req);
int nvmf_ns_init(struct nvmf_subsys *s, const struct nvmf_ns_conf *conf, uint32_t nsid);
void nvmf_ns_fini(struct nvmf_ns *ns);

#endif /* NVMF_PRIV_H */
