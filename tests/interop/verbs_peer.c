/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * verbs_peer: memory windows, invalidation, ATOMIC_WRITE and FLUSH between
 * two standard verbs programs, for the interop scenarios mw_* and a19_*
 * (doc/interop.md). One binary, <infiniband/verbs.h> and libibverbs only:
 * it runs natively in the guest on the kernel's rxe0, and on the host
 * under roce-run, where the drop-in layer (lib/roce_verbs) gives it
 * librte_roce's device.
 *
 *   verbs_peer -d DEV -g GID_INDEX [-p PORT] [-k] CASE...       the target
 *   verbs_peer -d DEV -g GID_INDEX [-p PORT] -c HOST CASE...    the initiator
 *
 * -k: the device is kernel rxe, whose receive completion of a SEND with
 * Invalidate carries another flag (VP_RXE_WC_WITH_INV).
 *
 * The target listens on PORT (TCP, the out-of-band channel), owns the
 * memory (three pages: a canary page, the page the keys name, a canary
 * page), binds the windows, invalidates them and checks afterwards that
 * exactly the bytes that were to be written were written. The initiator
 * connects, gets the key, and reads, writes, invalidates by SEND with
 * Invalidate and flushes through it, each operation checked against the
 * completion status it must have (IBV_WC_REM_ACCESS_ERR where the target
 * must refuse). Each case has its own pair of RC QPs: a refused access
 * moves both to the error state. Both sides name the same cases; every
 * case prints its steps and "case NAME: ok"; the exit status is 0 only if
 * all passed.
 *
 * FLUSH: rdma-core 44 has no ibv_wr_flush(). Under roce-run the FLUSH work
 * request is made by librte_roce's rte_roce_wr_flush(), looked up at run
 * time (the library is loaded with the drop-in layer), and posted with
 * ibv_post_send(); elsewhere the a19 flush cases fail saying so.
 */

#include <arpa/inet.h>
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <rte_roce_verbs.h>

#define VP_PAGE 4096
#define VP_BUF (3 * VP_PAGE)	/* canary page, the page the keys name, canary page */
#define VP_CANARY 0xc5
#define VP_MSG 64		/* a SEND's payload */
#define VP_PORT "18516"
#define VP_TIMEOUT_S 60		/* for a completion or a message of the peer: TCG guests are slow */
#define VP_PSN(qpn) (((qpn) * 7919u) & 0xffffff)
#define VP_IB_PORT 1
#define VP_KEY_PERSISTENT 1u	/* the target's MR has FLUSH_PERSISTENT */
/*
 * The flag kernel rxe sets in a receive completion of a SEND with
 * Invalidate: the kernel's IB_WC_WITH_INVALIDATE (1 << 2,
 * include/rdma/ib_verbs.h), which rxe_resp.c (do_complete) writes into the
 * user's completion as it is and rdma-core's rxe provider hands on, where
 * verbs.h's IBV_WC_WITH_INV is 1 << 3 (1 << 2 is IBV_WC_IP_CSUM_OK).
 */
#define VP_RXE_WC_WITH_INV (1u << 2)
#define VP_ATOMIC_OFF (VP_PAGE + 24)	/* an 8-byte aligned word of the named page */
#define VP_QP_REMOTE (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
/*
 * IB_UVERBS_ACCESS_FLUSH_GLOBAL and _PERSISTENT (bits 8 and 9 of the
 * kernel's include/uapi/rdma/ib_user_ioctl_verbs.h, rdma-core 45's
 * IBV_ACCESS_FLUSH_*): rdma-core 44 has no names for them but passes them
 * to the kernel as they are; librte_roce's have the same values.
 */
#define VP_FLUSH_BOTH (RTE_ROCE_ACCESS_FLUSH_GLOBAL | RTE_ROCE_ACCESS_FLUSH_PERSISTENT)
#define VP_MR_ACCESS (IBV_ACCESS_LOCAL_WRITE | VP_QP_REMOTE | IBV_ACCESS_MW_BIND)
#define VP_SEND_OPS (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_SEND | \
		     IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW)

/* The steps both sides pass together (vp_sync). */
enum vp_step {
	VP_STEP_WRITTEN = 1,
	VP_STEP_INVALIDATED,
	VP_STEP_DONE,
};

/* The out-of-band message: a QP's address, then the key of a case. */
struct vp_msg {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint32_t len;
	uint32_t flags;
	uint32_t step;
	uint64_t addr;
	uint8_t gid[16];
};

struct vp {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;	/* buf */
	struct ibv_mr *msg_mr;	/* msg: a SEND's source or destination */
	struct ibv_mw *mw;
	uint8_t *buf;
	uint8_t msg[VP_MSG];
	union ibv_gid gid;
	int gidx;
	int sock;
	struct vp_msg key;	/* the target's key of the current case */
	unsigned int inv_flag;	/* the receive completion's flag of an invalidation */
};

/* One case: what each side does, and what its QPs and the target's MR need. */
struct vp_case {
	const char *name;
	int (*target)(struct vp *v);
	int (*initiator)(struct vp *v);
	unsigned int qp_access;
	unsigned int mr_access;
	uint64_t send_ops;
};

static int
vp_fail(const char *what)
{
	printf("FAILED: %s\n", what);
	return -1;
}

static int
vp_fail_errno(const char *call, int err)
{
	printf("FAILED: %s: %s\n", call, strerror(err));
	return -1;
}

/* Byte i of the data the initiator writes with seed s. */
static uint8_t
vp_pattern(unsigned int s, size_t i)
{
	return (uint8_t)(s * 31 + i * 7 + (i >> 8));
}

static void
vp_fill(uint8_t *p, size_t len, unsigned int s)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = vp_pattern(s, i);
}

/* ---- the out-of-band channel ------------------------------------------------- */

/* All of len bytes to (out) or from the peer. */
static int
vp_xfer(int fd, void *p, size_t len, bool out)
{
	uint8_t *b = p;
	ssize_t n;

	while (len > 0) {
		n = out ? write(fd, b, len) : read(fd, b, len);
		if (n <= 0)
			return vp_fail_errno(out ? "write to the peer" : "read from the peer",
					     n < 0 ? errno : EPIPE);
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

static int
vp_msg_send(struct vp *v, const struct vp_msg *m)
{
	struct vp_msg w = *m;

	w.qpn = htonl(m->qpn);
	w.psn = htonl(m->psn);
	w.rkey = htonl(m->rkey);
	w.len = htonl(m->len);
	w.flags = htonl(m->flags);
	w.step = htonl(m->step);
	w.addr = htobe64(m->addr);
	return vp_xfer(v->sock, &w, sizeof(w), true);
}

static int
vp_msg_recv(struct vp *v, struct vp_msg *m)
{
	if (vp_xfer(v->sock, m, sizeof(*m), false) != 0)
		return -1;
	m->qpn = ntohl(m->qpn);
	m->psn = ntohl(m->psn);
	m->rkey = ntohl(m->rkey);
	m->len = ntohl(m->len);
	m->flags = ntohl(m->flags);
	m->step = ntohl(m->step);
	m->addr = be64toh(m->addr);
	return 0;
}

/* Both sides reach step s: each sends it and waits for the peer's. */
static int
vp_sync(struct vp *v, enum vp_step s)
{
	struct vp_msg m = { .step = s };

	if (vp_msg_send(v, &m) != 0 || vp_msg_recv(v, &m) != 0)
		return -1;
	return m.step == (uint32_t)s ? 0 : vp_fail("the peer is at another step");
}

static int
vp_listen(const char *port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *ai;
	int fd, one = 1, c;

	if (getaddrinfo(NULL, port, &hints, &ai) != 0)
		return vp_fail("getaddrinfo");
	fd = socket(ai->ai_family, ai->ai_socktype, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 1) != 0) {
		freeaddrinfo(ai);
		return vp_fail_errno("listen", errno);
	}
	freeaddrinfo(ai);
	printf("listening on port %s\n", port);
	c = accept(fd, NULL, NULL);
	close(fd);
	return c < 0 ? vp_fail_errno("accept", errno) : c;
}

/* Connect to HOST:PORT, retrying while nobody listens yet. */
static int
vp_connect(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	int fd, i;

	if (getaddrinfo(host, port, &hints, &ai) != 0)
		return vp_fail("getaddrinfo");
	for (i = 0; i < VP_TIMEOUT_S * 10; i++) {
		fd = socket(ai->ai_family, ai->ai_socktype, 0);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			freeaddrinfo(ai);
			return fd;
		}
		if (fd >= 0)
			close(fd);
		usleep(100 * 1000);
	}
	freeaddrinfo(ai);
	return vp_fail_errno("connect", errno);
}

/* ---- verbs --------------------------------------------------------------------- */

/* The next completion, within VP_TIMEOUT_S. */
static int
vp_wait(struct vp *v, struct ibv_wc *wc)
{
	time_t end = time(NULL) + VP_TIMEOUT_S;
	int n;

	do {
		n = ibv_poll_cq(v->cq, 1, wc);
		if (n < 0)
			return vp_fail("ibv_poll_cq");
		if (n == 1)
			return 0;
	} while (time(NULL) < end);
	return vp_fail("no completion");
}

/* Post one signaled WR and check its completion: status want, and opcode op on success. */
static int
vp_post(struct vp *v, struct ibv_send_wr *wr, enum ibv_wc_status want, int op, const char *what)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int err;

	wr->send_flags |= IBV_SEND_SIGNALED;
	err = ibv_post_send(v->qp, wr, &bad);
	if (err != 0)
		return vp_fail_errno(what, err);
	if (vp_wait(v, &wc) != 0)
		return -1;
	printf("%s: %s (expected %s)\n", what, ibv_wc_status_str(wc.status),
	       ibv_wc_status_str(want));
	if (wc.status != want)
		return -1;
	if (want == IBV_WC_SUCCESS && (int)wc.opcode != op) {
		printf("FAILED: completion opcode %d, not %d\n", wc.opcode, op);
		return -1;
	}
	return 0;
}

/* RDMA WRITE or READ of len bytes between buf + local and the key's address + off. */
static int
vp_rdma(struct vp *v, enum ibv_wr_opcode opcode, size_t local, uint32_t off, uint32_t len,
	enum ibv_wc_status want)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(v->buf + local), .length = len,
			       .lkey = v->mr->lkey };
	struct ibv_send_wr wr = { .opcode = opcode, .sg_list = &sge, .num_sge = 1 };
	char what[96];

	wr.wr.rdma.remote_addr = v->key.addr + off;
	wr.wr.rdma.rkey = v->key.rkey;
	snprintf(what, sizeof(what), "%s %u B at +%u with rkey 0x%x",
		 opcode == IBV_WR_RDMA_WRITE ? "WRITE" : "READ", len, off, v->key.rkey);
	return vp_post(v, &wr, want, opcode == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE :
		       IBV_WC_RDMA_READ, what);
}

static int
vp_qp_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, const char *state)
{
	int err = ibv_modify_qp(qp, a, mask);

	return err == 0 ? 0 : vp_fail_errno(state, err);
}

/* The case's RC QP, connected to the peer's through the out-of-band channel. */
static int
vp_qp_up(struct vp *v, const struct vp_case *c)
{
	struct ibv_qp_init_attr_ex init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = v->pd,
		.send_ops_flags = VP_SEND_OPS | c->send_ops,
	};
	struct ibv_qp_attr a;
	struct vp_msg me = { 0 }, peer;

	v->cq = ibv_create_cq(v->ctx, 16, NULL, NULL, 0);
	if (v->cq == NULL)
		return vp_fail_errno("ibv_create_cq", errno);
	init.send_cq = v->cq;
	init.recv_cq = v->cq;
	v->qp = ibv_create_qp_ex(v->ctx, &init);
	if (v->qp == NULL)
		return vp_fail_errno("ibv_create_qp_ex", errno);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = VP_IB_PORT;
	a.qp_access_flags = c->qp_access;
	if (vp_qp_modify(v->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			 IBV_QP_ACCESS_FLAGS, "INIT") != 0)
		return -1;
	me.qpn = v->qp->qp_num;
	me.psn = VP_PSN(me.qpn);
	memcpy(me.gid, v->gid.raw, sizeof(me.gid));
	if (vp_msg_send(v, &me) != 0 || vp_msg_recv(v, &peer) != 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer.qpn;
	a.rq_psn = peer.psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	memcpy(a.ah_attr.grh.dgid.raw, peer.gid, sizeof(peer.gid));
	a.ah_attr.grh.sgid_index = (uint8_t)v->gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = VP_IB_PORT;
	if (vp_qp_modify(v->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
			 "RTR") != 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 17;		/* 0.5 s: the guest runs under TCG */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = me.psn;
	a.max_rd_atomic = 1;
	if (vp_qp_modify(v->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC, "RTS") != 0)
		return -1;
	printf("QP 0x%x connected to the peer's 0x%x\n", me.qpn, peer.qpn);
	return 0;
}

/*
 * The window before the QP: rxe's type 2 window holds a reference to the
 * QP it was bound through until it is invalidated or freed (rxe_mw.c), and
 * rxe_destroy_qp() of that QP waits for it, then warns (doc/interop.md).
 */
static void
vp_case_down(struct vp *v)
{
	if (v->mw != NULL)
		ibv_dealloc_mw(v->mw);
	if (v->qp != NULL)
		ibv_destroy_qp(v->qp);
	if (v->mr != NULL)
		ibv_dereg_mr(v->mr);
	if (v->cq != NULL)
		ibv_destroy_cq(v->cq);
	v->qp = NULL;
	v->mw = NULL;
	v->mr = NULL;
	v->cq = NULL;
}

static int
vp_reg(struct vp *v, unsigned int access)
{
	v->mr = ibv_reg_mr(v->pd, v->buf, VP_BUF, (int)access);
	return v->mr != NULL ? 0 : vp_fail_errno("ibv_reg_mr", errno);
}

/* ---- the target ------------------------------------------------------------------ */

/* Send the key of [buf + off, + len) with rkey. */
static int
vp_key_send(struct vp *v, uint32_t rkey, uint32_t off, uint32_t len, uint32_t flags)
{
	struct vp_msg m = { .rkey = rkey, .addr = (uintptr_t)(v->buf + off), .len = len,
			    .flags = flags };

	v->key = m;
	printf("key: rkey 0x%x names +%u, %u B\n", rkey, off, len);
	return vp_msg_send(v, &m);
}

/* Bind a window of type t over [buf + off, + len) with rights, and send its key. */
static int
vp_bind(struct vp *v, enum ibv_mw_type t, uint32_t off, uint32_t len, unsigned int rights)
{
	struct ibv_mw_bind_info info = { .mr = v->mr, .addr = (uintptr_t)(v->buf + off),
					 .length = len, .mw_access_flags = rights };
	struct ibv_mw_bind b1 = { .send_flags = IBV_SEND_SIGNALED, .bind_info = info };
	struct ibv_send_wr wr = { .opcode = IBV_WR_BIND_MW };
	struct ibv_wc wc;
	uint32_t rkey;
	int err;

	v->mw = ibv_alloc_mw(v->pd, t);
	if (v->mw == NULL)
		return vp_fail_errno("ibv_alloc_mw", errno);
	if (t == IBV_MW_TYPE_1) {
		/* ibv_bind_mw(3): posts the bind and sets mw->rkey to the new key. */
		err = ibv_bind_mw(v->qp, v->mw, &b1);
		if (err != 0)
			return vp_fail_errno("ibv_bind_mw", err);
		if (vp_wait(v, &wc) != 0)
			return -1;
		printf("ibv_bind_mw: %s\n", ibv_wc_status_str(wc.status));
		if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_BIND_MW)
			return vp_fail("the bind of the type 1 window");
		rkey = v->mw->rkey;
	} else {
		wr.bind_mw.mw = v->mw;
		wr.bind_mw.rkey = ibv_inc_rkey(v->mw->rkey);
		wr.bind_mw.bind_info = info;
		if (vp_post(v, &wr, IBV_WC_SUCCESS, IBV_WC_BIND_MW, "IBV_WR_BIND_MW") != 0)
			return -1;
		rkey = wr.bind_mw.rkey;
	}
	printf("type %d window, rights 0x%x\n", t, rights);
	return vp_key_send(v, rkey, off, len, 0);
}

/* The target's memory: [off, + len) holds the initiator's data of seed s, the rest is canary. */
static int
vp_check(struct vp *v, size_t off, size_t len, unsigned int s)
{
	size_t i;
	uint8_t want;

	for (i = 0; i < VP_BUF; i++) {
		want = i >= off && i < off + len ? vp_pattern(s, i - off) : VP_CANARY;
		if (v->buf[i] != want) {
			printf("FAILED: memory at +%zu is 0x%02x, not 0x%02x\n", i, v->buf[i], want);
			return -1;
		}
	}
	printf("memory: +%zu, %zu B written, every other byte of the 3 pages unchanged\n", off,
	       len);
	return 0;
}

static int
vp_t_window_rw(struct vp *v, enum ibv_mw_type t)
{
	if (vp_bind(v, t, VP_PAGE, VP_PAGE, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ) != 0 ||
	    vp_sync(v, VP_STEP_DONE) != 0)
		return -1;
	return vp_check(v, VP_PAGE, VP_PAGE, 1);
}

static int
vp_t_mw1_rw(struct vp *v)
{
	return vp_t_window_rw(v, IBV_MW_TYPE_1);
}

static int
vp_t_mw2_rw(struct vp *v)
{
	return vp_t_window_rw(v, IBV_MW_TYPE_2);
}

/* A window of half a page in the middle of the named page. */
static int
vp_t_mw2_bounds(struct vp *v)
{
	if (vp_bind(v, IBV_MW_TYPE_2, VP_PAGE + VP_PAGE / 4, VP_PAGE / 2,
		    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ) != 0 ||
	    vp_sync(v, VP_STEP_DONE) != 0)
		return -1;
	return vp_check(v, 0, 0, 0);
}

static int
vp_t_mw2_rights(struct vp *v)
{
	if (vp_bind(v, IBV_MW_TYPE_2, VP_PAGE, VP_PAGE, IBV_ACCESS_REMOTE_READ) != 0 ||
	    vp_sync(v, VP_STEP_DONE) != 0)
		return -1;
	return vp_check(v, 0, 0, 0);
}

static int
vp_t_mw2_send_inv(struct vp *v)
{
	struct ibv_sge sge = { .addr = (uintptr_t)v->msg, .length = VP_MSG,
			       .lkey = v->msg_mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_wc wc;
	int err;

	err = ibv_post_recv(v->qp, &wr, &bad);
	if (err != 0)
		return vp_fail_errno("ibv_post_recv", err);
	if (vp_bind(v, IBV_MW_TYPE_2, VP_PAGE, VP_PAGE,
		    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ) != 0 || vp_wait(v, &wc) != 0)
		return -1;
	printf("receive: %s, opcode %d, wc_flags 0x%x (invalidation: 0x%x), invalidated_rkey 0x%x\n",
	       ibv_wc_status_str(wc.status), wc.opcode, wc.wc_flags, v->inv_flag,
	       wc.invalidated_rkey);
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
	    !(wc.wc_flags & v->inv_flag) || wc.invalidated_rkey != v->key.rkey)
		return vp_fail("the SEND with Invalidate of the window's rkey");
	if (vp_sync(v, VP_STEP_INVALIDATED) != 0 || vp_sync(v, VP_STEP_DONE) != 0)
		return -1;
	return vp_check(v, VP_PAGE, VP_PAGE, 1);
}

static int
vp_t_mw2_local_inv(struct vp *v)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_LOCAL_INV };

	if (vp_bind(v, IBV_MW_TYPE_2, VP_PAGE, VP_PAGE,
		    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ) != 0 ||
	    vp_sync(v, VP_STEP_WRITTEN) != 0)
		return -1;
	wr.invalidate_rkey = v->key.rkey;
	if (vp_post(v, &wr, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV, "IBV_WR_LOCAL_INV of the window") != 0 ||
	    vp_sync(v, VP_STEP_INVALIDATED) != 0 || vp_sync(v, VP_STEP_DONE) != 0)
		return -1;
	return vp_check(v, VP_PAGE, VP_PAGE, 1);
}

static int
vp_t_atomic_write(struct vp *v)
{
	if (vp_key_send(v, v->mr->rkey, VP_ATOMIC_OFF, sizeof(uint64_t), 0) != 0 ||
	    vp_sync(v, VP_STEP_DONE) != 0)
		return -1;
	return vp_check(v, VP_ATOMIC_OFF, sizeof(uint64_t), 1);
}

static int
vp_t_flush_global(struct vp *v)
{
	if (vp_key_send(v, v->mr->rkey, VP_PAGE, VP_PAGE, 0) != 0 || vp_sync(v, VP_STEP_DONE) != 0)
		return -1;
	return vp_check(v, VP_PAGE, VP_PAGE, 1);
}

/*
 * An MR with FLUSH_PERSISTENT if the device takes one (kernel rxe takes it
 * only on persistent-memory pages, rxe_mr.c); else one with FLUSH_GLOBAL
 * only, and the key says so: the initiator's persistence FLUSH must then be
 * refused.
 */
static int
vp_t_flush_persistent(struct vp *v)
{
	uint32_t flags = VP_KEY_PERSISTENT;

	ibv_dereg_mr(v->mr);
	v->mr = ibv_reg_mr(v->pd, v->buf, VP_BUF, VP_MR_ACCESS | VP_FLUSH_BOTH);
	if (v->mr == NULL) {
		printf("ibv_reg_mr with FLUSH_PERSISTENT: %s; FLUSH_GLOBAL only\n", strerror(errno));
		flags = 0;
		if (vp_reg(v, VP_MR_ACCESS | RTE_ROCE_ACCESS_FLUSH_GLOBAL) != 0)
			return -1;
	}
	if (vp_key_send(v, v->mr->rkey, VP_PAGE, VP_PAGE, flags) != 0 ||
	    vp_sync(v, VP_STEP_DONE) != 0)
		return -1;
	return vp_check(v, VP_PAGE, VP_PAGE, 1);
}

/* ---- the initiator --------------------------------------------------------------- */

static int
vp_i_key(struct vp *v)
{
	if (vp_msg_recv(v, &v->key) != 0)
		return -1;
	printf("key: rkey 0x%x, %u B\n", v->key.rkey, v->key.len);
	return 0;
}

/* Write page 0 (seed 1) through the key, read it back into page 2, compare. */
static int
vp_i_rw(struct vp *v)
{
	if (vp_i_key(v) != 0 ||
	    vp_rdma(v, IBV_WR_RDMA_WRITE, 0, 0, v->key.len, IBV_WC_SUCCESS) != 0 ||
	    vp_rdma(v, IBV_WR_RDMA_READ, 2 * VP_PAGE, 0, v->key.len, IBV_WC_SUCCESS) != 0)
		return -1;
	if (memcmp(v->buf, v->buf + 2 * VP_PAGE, v->key.len) != 0)
		return vp_fail("READ did not return what WRITE placed");
	return vp_sync(v, VP_STEP_DONE);
}

/* 16 bytes across the window's end: refused, nothing placed. */
static int
vp_i_bounds(struct vp *v)
{
	if (vp_i_key(v) != 0 ||
	    vp_rdma(v, IBV_WR_RDMA_WRITE, 0, v->key.len - 8, 16, IBV_WC_REM_ACCESS_ERR) != 0)
		return -1;
	return vp_sync(v, VP_STEP_DONE);
}

/* A read-only window: READ returns the canary, WRITE is refused. */
static int
vp_i_rights(struct vp *v)
{
	size_t i;

	if (vp_i_key(v) != 0 ||
	    vp_rdma(v, IBV_WR_RDMA_READ, 2 * VP_PAGE, 0, VP_MSG, IBV_WC_SUCCESS) != 0)
		return -1;
	for (i = 0; i < VP_MSG; i++)
		if (v->buf[2 * VP_PAGE + i] != VP_CANARY)
			return vp_fail("READ through the window returned other bytes");
	if (vp_rdma(v, IBV_WR_RDMA_WRITE, 0, 0, VP_MSG, IBV_WC_REM_ACCESS_ERR) != 0)
		return -1;
	return vp_sync(v, VP_STEP_DONE);
}

/* Write page 1 (seed 2) through the invalidated key: refused. */
static int
vp_i_after_inv(struct vp *v)
{
	if (vp_rdma(v, IBV_WR_RDMA_WRITE, VP_PAGE, 0, VP_MSG, IBV_WC_REM_ACCESS_ERR) != 0)
		return -1;
	return vp_sync(v, VP_STEP_DONE);
}

static int
vp_i_send_inv(struct vp *v)
{
	struct ibv_sge sge = { .addr = (uintptr_t)v->msg, .length = VP_MSG,
			       .lkey = v->msg_mr->lkey };
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND_WITH_INV, .sg_list = &sge, .num_sge = 1 };
	char what[64];

	if (vp_i_key(v) != 0 ||
	    vp_rdma(v, IBV_WR_RDMA_WRITE, 0, 0, v->key.len, IBV_WC_SUCCESS) != 0)
		return -1;

	wr.invalidate_rkey = v->key.rkey;
	snprintf(what, sizeof(what), "SEND_WITH_INV of rkey 0x%x", v->key.rkey);
	if (vp_post(v, &wr, IBV_WC_SUCCESS, IBV_WC_SEND, what) != 0 ||
	    vp_sync(v, VP_STEP_INVALIDATED) != 0)
		return -1;
	return vp_i_after_inv(v);
}

static int
vp_i_local_inv(struct vp *v)
{
	if (vp_i_key(v) != 0 ||
	    vp_rdma(v, IBV_WR_RDMA_WRITE, 0, 0, v->key.len, IBV_WC_SUCCESS) != 0 ||
	    vp_sync(v, VP_STEP_WRITTEN) != 0 || vp_sync(v, VP_STEP_INVALIDATED) != 0)
		return -1;
	return vp_i_after_inv(v);
}

/* ibv_wr_atomic_write(3): the first 8 bytes of page 0 (seed 1). */
static int
vp_i_atomic_write(struct vp *v)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(v->qp);
	struct ibv_wc wc;
	int err;

	if (vp_i_key(v) != 0)
		return -1;
	if (qpx == NULL)
		return vp_fail("no extended QP");
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, v->key.rkey, v->key.addr, v->buf);
	err = ibv_wr_complete(qpx);
	if (err != 0)
		return vp_fail_errno("ibv_wr_complete of ibv_wr_atomic_write", err);
	if (vp_wait(v, &wc) != 0)
		return -1;
	printf("ATOMIC_WRITE of 8 B: %s, opcode %d\n", ibv_wc_status_str(wc.status), wc.opcode);
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_ATOMIC_WRITE)
		return vp_fail("ATOMIC_WRITE");
	return vp_sync(v, VP_STEP_DONE);
}

/* A FLUSH of the key's range (or its whole MR) with placement type(s) plt. */
static int
vp_flush(struct vp *v, uint8_t plt, uint8_t sel, enum ibv_wc_status want)
{
	typeof(rte_roce_wr_flush) *make;
	struct ibv_send_wr wr = { 0 };
	char what[96];

	make = (typeof(rte_roce_wr_flush) *)dlsym(RTLD_DEFAULT, "rte_roce_wr_flush");
	if (make == NULL)
		return vp_fail("FLUSH: rdma-core 44 has no ibv_wr_flush(), and librte_roce is not loaded");
	if (make(&wr, v->key.rkey, v->key.addr, v->key.len, plt, sel) != 0)
		return vp_fail("rte_roce_wr_flush");
	snprintf(what, sizeof(what), "FLUSH %s of the %s", plt == RTE_ROCE_FLUSH_GLOBAL ?
		 "global visibility" : "persistence", sel == RTE_ROCE_FLUSH_MR ? "MR" : "range");
	return vp_post(v, &wr, want, RTE_ROCE_WC_FLUSH, what);
}

static int
vp_i_flush_global(struct vp *v)
{
	if (vp_i_key(v) != 0 ||
	    vp_rdma(v, IBV_WR_RDMA_WRITE, 0, 0, v->key.len, IBV_WC_SUCCESS) != 0 ||
	    vp_flush(v, RTE_ROCE_FLUSH_GLOBAL, RTE_ROCE_FLUSH_RANGE, IBV_WC_SUCCESS) != 0 ||
	    vp_flush(v, RTE_ROCE_FLUSH_GLOBAL, RTE_ROCE_FLUSH_MR, IBV_WC_SUCCESS) != 0)
		return -1;
	return vp_sync(v, VP_STEP_DONE);
}

static int
vp_i_flush_persistent(struct vp *v)
{
	enum ibv_wc_status want;

	if (vp_i_key(v) != 0 ||
	    vp_rdma(v, IBV_WR_RDMA_WRITE, 0, 0, v->key.len, IBV_WC_SUCCESS) != 0)
		return -1;
	want = v->key.flags & VP_KEY_PERSISTENT ? IBV_WC_SUCCESS : IBV_WC_REM_ACCESS_ERR;
	printf("the target's MR %s FLUSH_PERSISTENT\n",
	       v->key.flags & VP_KEY_PERSISTENT ? "has" : "lacks");
	if (vp_flush(v, RTE_ROCE_FLUSH_PERSISTENT, RTE_ROCE_FLUSH_RANGE, want) != 0)
		return -1;
	return vp_sync(v, VP_STEP_DONE);
}

/* ---- the cases -------------------------------------------------------------------- */

static const struct vp_case vp_cases[] = {
	{ "mw1_rw", vp_t_mw1_rw, vp_i_rw, VP_QP_REMOTE, VP_MR_ACCESS, 0 },
	{ "mw2_rw", vp_t_mw2_rw, vp_i_rw, VP_QP_REMOTE, VP_MR_ACCESS, 0 },
	{ "mw2_bounds", vp_t_mw2_bounds, vp_i_bounds, VP_QP_REMOTE, VP_MR_ACCESS, 0 },
	{ "mw2_rights", vp_t_mw2_rights, vp_i_rights, VP_QP_REMOTE, VP_MR_ACCESS, 0 },
	{ "mw2_send_inv", vp_t_mw2_send_inv, vp_i_send_inv, VP_QP_REMOTE, VP_MR_ACCESS, 0 },
	{ "mw2_local_inv", vp_t_mw2_local_inv, vp_i_local_inv, VP_QP_REMOTE, VP_MR_ACCESS, 0 },
	{ "atomic_write", vp_t_atomic_write, vp_i_atomic_write, VP_QP_REMOTE, VP_MR_ACCESS,
	  IBV_QP_EX_WITH_ATOMIC_WRITE },
	{ "flush_global", vp_t_flush_global, vp_i_flush_global, VP_QP_REMOTE | VP_FLUSH_BOTH,
	  VP_MR_ACCESS | RTE_ROCE_ACCESS_FLUSH_GLOBAL, 0 },
	{ "flush_persistent", vp_t_flush_persistent, vp_i_flush_persistent,
	  VP_QP_REMOTE | VP_FLUSH_BOTH, VP_MR_ACCESS | RTE_ROCE_ACCESS_FLUSH_GLOBAL, 0 },
};

static const struct vp_case *
vp_case_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(vp_cases) / sizeof(vp_cases[0]); i++)
		if (strcmp(vp_cases[i].name, name) == 0)
			return &vp_cases[i];
	return NULL;
}

/* One case on fresh QPs: the target's memory is canary, the initiator's its data. */
static int
vp_case_run(struct vp *v, const struct vp_case *c, bool target)
{
	int rc;

	printf("case %s\n", c->name);
	if (target)
		memset(v->buf, VP_CANARY, VP_BUF);
	else
		vp_fill(v->buf, 2 * VP_PAGE, 1);
	rc = vp_reg(v, target ? c->mr_access : IBV_ACCESS_LOCAL_WRITE);
	if (rc == 0)
		rc = vp_qp_up(v, c);
	if (rc == 0)
		rc = target ? c->target(v) : c->initiator(v);
	vp_case_down(v);
	printf("case %s: %s\n", c->name, rc == 0 ? "ok" : "FAILED");
	return rc;
}

static int
vp_open(struct vp *v, const char *dev)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	for (i = 0; list != NULL && list[i] != NULL; i++)
		if (strcmp(ibv_get_device_name(list[i]), dev) == 0)
			v->ctx = ibv_open_device(list[i]);
	if (list != NULL)
		ibv_free_device_list(list);
	if (v->ctx == NULL)
		return vp_fail("no such device");
	v->pd = ibv_alloc_pd(v->ctx);
	if (v->pd == NULL || ibv_query_gid(v->ctx, VP_IB_PORT, v->gidx, &v->gid) != 0)
		return vp_fail("ibv_alloc_pd or ibv_query_gid");
	v->msg_mr = ibv_reg_mr(v->pd, v->msg, VP_MSG, IBV_ACCESS_LOCAL_WRITE);
	if (v->msg_mr == NULL)
		return vp_fail_errno("ibv_reg_mr", errno);
	return 0;
}

static void
vp_usage(void)
{
	size_t i;

	fprintf(stderr, "usage: verbs_peer -d DEV -g GID_INDEX [-p PORT] [-c HOST] [-k] CASE...\n"
		"  -k: the device is kernel rxe (its flag of an invalidation)\ncases:");
	for (i = 0; i < sizeof(vp_cases) / sizeof(vp_cases[0]); i++)
		fprintf(stderr, " %s", vp_cases[i].name);
	fprintf(stderr, "\n");
}

int
main(int argc, char **argv)
{
	struct vp v = { .sock = -1, .inv_flag = IBV_WC_WITH_INV };
	const char *dev = NULL, *port = VP_PORT, *host = NULL;
	int opt, i, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "d:g:p:c:k")) != -1) {
		switch (opt) {
		case 'k': v.inv_flag = VP_RXE_WC_WITH_INV; break;
		case 'd': dev = optarg; break;
		case 'g': v.gidx = atoi(optarg); break;
		case 'p': port = optarg; break;
		case 'c': host = optarg; break;
		default: vp_usage(); return 2;
		}
	}
	if (dev == NULL || optind == argc) {
		vp_usage();
		return 2;
	}
	for (i = optind; i < argc; i++) {
		if (vp_case_find(argv[i]) == NULL) {
			fprintf(stderr, "no case %s\n", argv[i]);
			vp_usage();
			return 2;
		}
	}
	v.buf = aligned_alloc(VP_PAGE, VP_BUF);
	if (v.buf == NULL || vp_open(&v, dev) != 0)
		return 1;
	v.sock = host != NULL ? vp_connect(host, port) : vp_listen(port);
	if (v.sock < 0)
		return 1;
	for (i = optind; i < argc && !failed; i++)
		failed = vp_case_run(&v, vp_case_find(argv[i]), host == NULL) != 0;
	close(v.sock);
	ibv_dereg_mr(v.msg_mr);
	ibv_dealloc_pd(v.pd);
	ibv_close_device(v.ctx);
	free(v.buf);
	printf("%s\n", failed ? "FAILED" : "all cases ok");
	return failed;
}
