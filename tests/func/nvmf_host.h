/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NVMF_HOST_H
#define NVMF_HOST_H

/*
 * A small NVMe/RDMA host for the func tests of app/roce_nvmf, written
 * from the specifications apart from the target (its own byte offsets:
 * a misreading shared by both would not hide): two librte_roce devices
 * over net_ring in one process, the target on side 1, this host on side
 * 0, both driven from the test's thread.
 *
 * The host's QP is its own (rte_roce_create_qp()) and connected with
 * conn_param.qp_num, so that the REP's private data (the target's
 * RDMA_CM_ACCEPT, RDMA §3.1 Figure 6) comes in CONNECT_RESPONSE.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_roce_cm.h>

#include "nvmf.h"
#include "roce_test_verbs.h"

#define HOST_NQN		"nqn.2014-08.org.nvmexpress:uuid:test-host"
#define HOST_SUBNQN		"nqn.2026-11.org.librte-roce:test"
#define HOST_PORT		4420
#define HOST_CAPSULE_MAX	(64 + 8192)	/* a command capsule with in-capsule data */
#define HOST_DATA_OFF		(1u << 20)	/* data buffers in side 0's buffer from here */

#define HOST_QUEUES_MAX		64
#define HOST_SLOTS		16	/* capsules of a queue in flight (sent, not completed) */

struct host_queue;

/* The two sides, their CMs, the target. */
struct host_env {
	struct roce_test_env e;
	struct rte_roce_cm *cm[2];
	struct nvmf_tgt *tgt;
	struct nvmf_tgt_conf conf;
	bool ipv6;		/* queues connect over IPv6 (the target listens there) */
	bool measure;		/* count what the target allocates in its poll (tgt_heap) */
	int64_t tgt_heap;	/* bytes: EAL heap and malloc, allocated less freed */
	struct host_queue *queues[HOST_QUEUES_MAX];	/* connected, for a failed case's release */
};

/* One host queue: its CM id and QP, its capsule and response buffers (in an MR of its own). */
struct host_queue {
	struct host_env *env;
	struct rte_roce_cm_channel *ch;	/* its own: its events only */
	struct rte_roce_cm_id *id;
	struct ibv_qp *qp;
	uint16_t qid;
	uint16_t sqsize;	/* 0's based */
	uint16_t cid;		/* next command identifier */
	uint16_t crqsize;	/* from the RDMA_CM_ACCEPT */
	uint16_t cntlid;	/* from the Fabrics Connect */
	uint32_t slot;		/* next capsule buffer */
	uint8_t *mem;		/* its own, registered on side 0 (mr): */
	struct ibv_mr *mr;
	uint8_t *cmd;		/* HOST_SLOTS capsule buffers, HOST_CAPSULE_MAX each */
	uint8_t *rsp;		/* response buffers, 16 bytes each */
	int rej_status;		/* REJECTED: the RDMA_CM_REJECT's STS, -1 none */
};

/* The RDMA_CM_REQUEST's private data (RDMA §3.1 Figure 5), as the test wants it. */
struct host_cm_req {
	uint16_t recfmt;
	uint16_t qid;
	uint16_t hrqsize;
	uint16_t hsqsize;	/* 0's based */
	uint16_t cntlid;
	uint8_t len;		/* private data bytes sent (32) */
	uint8_t responder_resources;	/* RDMA READs the host accepts (the target's IRD limit) */
};

/*
 * The SRQ depth of every target host_tgt_conf() makes (0: none), so that
 * the same cases run with and without the shared receive queue.
 */
extern uint32_t host_srq_depth;

/* The target's default configuration for the tests: one 4 MiB namespace of 512-byte blocks. */
void host_tgt_conf(struct nvmf_tgt_conf *conf);

/*
 * Both sides, the CMs, the target made with conf (NULL: host_tgt_conf()).
 * What a failed case left open is released first. 0 or -1.
 */
int host_env_open(struct host_env *h, const struct nvmf_tgt_conf *conf);
/* Stop the target, drain it, free everything; no mbuf leaked. 0 or -1. */
int host_env_close(struct host_env *h);
/* One round of progress: both devices, both CMs, the target. */
void host_pump(struct host_env *h);
/*
 * Pump for ms milliseconds: only before checking that something did NOT
 * happen. What the target does on its own is waited for with
 * HOST_PUMP_UNTIL(): a fixed time can pass on a loaded machine before the
 * target ran at all.
 */
void host_pump_ms(struct host_env *h, unsigned int ms);

/* The bound of a wait for the target (a generous one: two shared cores, eight jobs). */
#define HOST_WAIT_MS 20000

/* Pump until cond holds, at most HOST_WAIT_MS; the caller then checks cond. */
#define HOST_PUMP_UNTIL(h, cond) do {						\
		uint64_t host_end_ = roce_test_ms() + HOST_WAIT_MS;			\
										\
		while (!(cond) && roce_test_ms() < host_end_)			\
			host_pump(h);						\
	} while (0)

/* A CM request as the Linux host makes it for queue qid of sqsize + 1 entries. */
struct host_cm_req host_cm_req_default(uint16_t qid, uint16_t sqsize, uint16_t cntlid);

/*
 * Connect queue q with req: 0 once established (q->crqsize set), or the
 * REJECT's status (> 0) with the queue closed, or -1 after printing why.
 */
int host_queue_connect(struct host_env *h, struct host_queue *q, const struct host_cm_req *req);
/* Disconnect and free the queue (whatever state); 0 or -1. */
int host_queue_close(struct host_queue *q);
/* The host's side of a queue the target tore down: DISCONNECTED seen within ms. 0 or -1. */
int host_queue_wait_disconnected(struct host_queue *q, unsigned int ms);

/* A zeroed command: opcode, a fresh CID, PSDT 01b (SGLs), NSID. */
void host_sqe(struct host_queue *q, uint8_t *sqe, uint8_t opc, uint32_t nsid);
/* SGL1: a Keyed SGL Data Block (sub type 0 or Fh) on side 0's buffer at off. */
void host_sgl_keyed(struct host_queue *q, uint8_t *sqe, uint32_t off, uint32_t len, bool inv);
/* SGL1: in-capsule data (Data Block, sub type Offset) at offset off of the capsule's data. */
void host_sgl_icd(uint8_t *sqe, uint32_t off, uint32_t len);

/*
 * Send a command capsule (sqe and icd_len bytes of in-capsule data) and
 * wait for its response: 0 with cqe filled, or -1 after printing why.
 * wc_flags and inv_rkey: of the response's receive (may be NULL).
 */
int host_cmd(struct host_queue *q, const uint8_t *sqe, const void *icd, uint32_t icd_len,
	     uint8_t *cqe, int *wc_flags, uint32_t *inv_rkey);
/* Send only (no wait); then host_wait_rsp(). 0 or -1. */
int host_send(struct host_queue *q, const uint8_t *sqe, const void *icd, uint32_t icd_len,
	      uint32_t len);
/* Wait for the next response: 0 with cqe filled, or -1. */
int host_wait_rsp(struct host_queue *q, uint8_t *cqe, int *wc_flags, uint32_t *inv_rkey);

/* A response's status: SCT << 8 | SC (the phase and DNR bits taken off). */
uint16_t host_status(const uint8_t *cqe);
/* A response's DW0. */
uint32_t host_dw0(const uint8_t *cqe);

/* Fabrics Connect on q (its QID and SQSIZE) for subnqn/hostnqn and cntlid; kato in ms. */
int host_fabrics_connect(struct host_queue *q, const char *subnqn, const char *hostnqn,
			 uint16_t cntlid, uint32_t kato, uint8_t *cqe);
/* Property Get (8 bytes when wide) and Set (4 bytes of CC): 0 or -1, value in *v. */
int host_prop_get(struct host_queue *q, uint32_t ofst, bool wide, uint64_t *v);
int host_prop_set(struct host_queue *q, uint32_t ofst, uint32_t v, uint8_t *cqe);
/*
 * The admin queue of a fresh controller: CM connect, Fabrics Connect,
 * CC.EN = 1 with 64/16-byte entries, CSTS.RDY seen. 0 or -1.
 */
int host_ctrl_up(struct host_env *h, struct host_queue *admin, uint32_t kato);
/* The same for the subsystem subnqn (the discovery subsystem's, for one). */
int host_ctrl_up_to(struct host_env *h, struct host_queue *admin, const char *subnqn,
		    uint32_t kato);
/* An I/O queue qid of ctrl admin->cntlid: CM and Fabrics connect. 0 or -1. */
int host_io_up(struct host_env *h, struct host_queue *admin, struct host_queue *io,
	       uint16_t qid);
/* The same for a controller of the subsystem subnqn. */
int host_io_up_to(struct host_env *h, struct host_queue *admin, struct host_queue *io,
		  uint16_t qid, const char *subnqn);

/* Bytes in use in the process: the EAL heap's on every socket, and glibc's (mallinfo2(3)). */
int64_t host_heap_bytes(void);

/* Side 0's buffer at off (data the target reads or writes). */
uint8_t *host_buf(struct host_env *h, uint32_t off);

#endif /* NVMF_HOST_H */
