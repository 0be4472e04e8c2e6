/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * libFuzzer target: any byte string as the MAD of a UD SEND to QP1.
 *
 * Two devices over net_ring, a CM on each, listeners on side B at port
 * 7471 of the TCP and the UDP (SIDR) port spaces. Each input (cut to 256 bytes) is sent from a
 * plain UD QP of side A to B's QP1 with QP1's Q_Key, and both sides are
 * polled until B's CM has taken it. Whatever the bytes, B counts the MAD
 * exactly once, answers or drops it, never crashes, and every id a REQ
 * made is answered (rejected) and destroyed, so memory stays bounded.
 *
 * Seeds: with ROCE_FUZZ_SEED_DIR set, LLVMFuzzerInitialize() writes a valid
 * rdma_cm REQ to the listener, the same header in a SIDR_REQ to the UDP
 * listener, a ClassPortInfo GET there, and a LAP from the REQ's comm ID
 * (answered with an APR).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include <rte_roce.h>
#include <rte_roce_cm.h>

#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#define FUZZ_CM_PORT	7471
#define FUZZ_WAIT_MS	2000
#define FUZZ_PATH_LEN	512

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct roce_test_env env;
static struct rte_roce_cm *cm[2];
static struct rte_roce_cm_channel *ch;
static struct rte_roce_cm_id *listener;
static struct rte_roce_cm_id *udp_listener;
static struct ibv_qp *ud_qp;
static struct ibv_ah *ah;

static const struct rte_roce_cm_conf fuzz_conf = {
	.response_timeout = 8,	/* 1 ms: timers fire within an input's polling */
	.max_cm_retries = 1,
};

#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz_mad: %s failed\n", #cond);	\
		abort();						\
	}								\
} while (0)

static void
pump(void)
{
	roce_test_pump_env(&env);
	rte_roce_cm_poll(cm[0]);
	rte_roce_cm_poll(cm[1]);
}

/* A REQ of rdma_cm from A to B's listener: the seed that reaches the deep states. */
static void
seed_req(struct rte_roce_mad *mad)
{
	struct rte_roce_cm_req req;
	struct rte_roce_cma_hdr h;

	memset(mad, 0, sizeof(*mad));
	memset(&req, 0, sizeof(req));
	memset(&h, 0, sizeof(h));
	mad->hdr.base_version = RTE_ROCE_MAD_BASE_VERSION;
	mad->hdr.mgmt_class = RTE_ROCE_MGMT_CLASS_CM;
	mad->hdr.class_version = RTE_ROCE_CM_CLASS_VERSION;
	mad->hdr.method = RTE_ROCE_MAD_METHOD_SEND;
	mad->hdr.attr_id = RTE_BE16(RTE_ROCE_CM_ATTR_REQ);
	req.local_comm_id = RTE_BE32(0x1234);
	req.service_id = rte_cpu_to_be_64(RTE_ROCE_CMA_SERVICE_ID(RTE_ROCE_CMA_PS_TCP,
								  FUZZ_CM_PORT));
	req.qpn_resp_res = rte_cpu_to_be_32(0x20 << RTE_ROCE_CM_QPN_SHIFT | 1);
	req.psn_timeout_retry = rte_cpu_to_be_32(0x100 << RTE_ROCE_CM_PSN_SHIFT |
						 8 << RTE_ROCE_CM_REQ_LOCAL_TIMEOUT_SHIFT | 7);
	req.mtu_rdc_rnr = IBV_MTU_1024 << RTE_ROCE_CM_REQ_MTU_SHIFT | 7;
	req.max_cm_retries_srq = 1 << RTE_ROCE_CM_REQ_MAX_RETRIES_SHIFT;
	inet_pton(AF_INET6, "::ffff:" ROCE_TEST_ADDR_A, req.primary.local_gid);
	inet_pton(AF_INET6, "::ffff:" ROCE_TEST_ADDR_B, req.primary.remote_gid);
	h.ip_version = 4 << RTE_ROCE_CMA_IP_VERSION_SHIFT;
	h.port = RTE_BE16(40000);
	inet_pton(AF_INET, ROCE_TEST_ADDR_A, &h.src.ip4.addr);
	inet_pton(AF_INET, ROCE_TEST_ADDR_B, &h.dst.ip4.addr);
	memcpy(req.private_data, &h, sizeof(h));
	memcpy(mad->data, &req, sizeof(req));
}

/* mad: req_mad's header with attribute attr, and msg (len bytes) as its class data. */
static void
seed_from_req(const struct rte_roce_mad *req_mad, uint16_t attr, const void *msg, size_t len,
	      struct rte_roce_mad *mad)
{
	*mad = *req_mad;
	mad->hdr.attr_id = rte_cpu_to_be_16(attr);
	memset(mad->data, 0, sizeof(mad->data));
	memcpy(mad->data, msg, len);
}

/* A SIDR_REQ with the REQ's rdma_cm header, to B's UDP listener. */
static void
seed_sidr_req(const struct rte_roce_mad *req_mad, struct rte_roce_mad *mad)
{
	struct rte_roce_cm_sidr_req sreq;
	struct rte_roce_cm_req req;

	memcpy(&req, req_mad->data, sizeof(req));
	memset(&sreq, 0, sizeof(sreq));
	sreq.request_id = req.local_comm_id;
	sreq.pkey = RTE_BE16(RTE_ROCE_DEFAULT_PKEY);
	sreq.service_id = rte_cpu_to_be_64(RTE_ROCE_CMA_SERVICE_ID(RTE_ROCE_CMA_PS_UDP,
								   FUZZ_CM_PORT));
	memcpy(sreq.private_data, req.private_data, sizeof(struct rte_roce_cma_hdr));
	seed_from_req(req_mad, RTE_ROCE_CM_ATTR_SIDR_REQ, &sreq, sizeof(sreq), mad);
}

/* A LAP from the REQ's sender, for an alternate path between the same GIDs. */
static void
seed_lap(const struct rte_roce_mad *req_mad, struct rte_roce_mad *mad)
{
	struct rte_roce_cm_req req;
	struct rte_roce_cm_lap lap;

	memcpy(&req, req_mad->data, sizeof(req));
	memset(&lap, 0, sizeof(lap));
	lap.local_comm_id = req.local_comm_id;
	memcpy(lap.alt_local_gid, req.primary.local_gid, sizeof(lap.alt_local_gid));
	memcpy(lap.alt_remote_gid, req.primary.remote_gid, sizeof(lap.alt_remote_gid));
	seed_from_req(req_mad, RTE_ROCE_CM_ATTR_LAP, &lap, sizeof(lap), mad);
}

static void
seed_write(const char *dir, const char *name, const void *bytes, size_t len)
{
	char path[FUZZ_PATH_LEN];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL)
		return;
	fwrite(bytes, 1, len, f);
	fclose(f);
}

static void
seed_corpus(const char *dir)
{
	struct rte_roce_mad mad, sidr, lap;

	/* A fresh build has no corpus yet: libFuzzer refuses a missing one. */
	FUZZ_CHECK(mkdir(dir, 0755) == 0 || errno == EEXIST);
	seed_req(&mad);
	seed_write(dir, "req", &mad, sizeof(mad));
	seed_sidr_req(&mad, &sidr);
	seed_write(dir, "sidr_req", &sidr, sizeof(sidr));
	seed_lap(&mad, &lap);
	seed_write(dir, "lap", &lap, sizeof(lap));
	mad.hdr.method = RTE_ROCE_MAD_METHOD_GET;
	mad.hdr.attr_id = RTE_BE16(RTE_ROCE_CM_ATTR_CLASS_PORT_INFO);
	seed_write(dir, "class_port_info", &mad, sizeof(mad));
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seed_dir = getenv("ROCE_FUZZ_SEED_DIR");
	struct roce_test_conf conf = roce_test_default_conf;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = RTE_BE16(FUZZ_CM_PORT) };
	unsigned int i;

	RTE_SET_USED(argc);
	FUZZ_CHECK(roce_test_eal_init((*argv)[0], NULL) == 0);
	FUZZ_CHECK(roce_test_mbuf_pool() != NULL);
	FUZZ_CHECK(roce_test_pair_create(&roce_test_verbs_pair, "fuzz_mad") == 0);
	FUZZ_CHECK(roce_test_env_open(&env, &conf, 0) == 0);
	for (i = 0; i < 2; i++) {
		cm[i] = rte_roce_cm_open(env.s[i].ctx, &fuzz_conf);
		FUZZ_CHECK(cm[i] != NULL);
	}
	ch = rte_roce_cm_create_event_channel();
	FUZZ_CHECK(ch != NULL);
	FUZZ_CHECK(rte_roce_cm_create_id(ch, &listener, NULL, RTE_ROCE_CM_PS_TCP) == 0);
	inet_pton(AF_INET, ROCE_TEST_ADDR_B, &sin.sin_addr);
	FUZZ_CHECK(rte_roce_cm_bind_addr(listener, (struct sockaddr *)&sin) == 0);
	FUZZ_CHECK(rte_roce_cm_listen(listener, 0) == 0);
	FUZZ_CHECK(rte_roce_cm_create_id(ch, &udp_listener, NULL, RTE_ROCE_CM_PS_UDP) == 0);
	FUZZ_CHECK(rte_roce_cm_bind_addr(udp_listener, (struct sockaddr *)&sin) == 0);
	FUZZ_CHECK(rte_roce_cm_listen(udp_listener, 0) == 0);
	FUZZ_CHECK(roce_test_qp_create(&env.s[0], IBV_QPT_UD, &ud_qp) == 0);
	FUZZ_CHECK(roce_test_ud_qp_ready(ud_qp, RTE_ROCE_QP1_QKEY) == 0);
	ah = roce_test_ah_create(&env.s[0], ROCE_TEST_ADDR_B);
	FUZZ_CHECK(ah != NULL);
	if (seed_dir != NULL)
		seed_corpus(seed_dir);
	return 0;
}

static void
send_mad(const uint8_t *data, size_t size)
{
	struct roce_test_side *a = &env.s[0];
	struct ibv_sge sge = { .addr = (uintptr_t)a->buf, .lkey = a->mr->lkey };
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	sge.length = (uint32_t)RTE_MIN(size, (size_t)RTE_ROCE_MAD_LEN);
	memcpy(a->buf, data, sge.length);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = RTE_ROCE_QP1_QPN;
	wr.wr.ud.remote_qkey = RTE_ROCE_QP1_QKEY;
	FUZZ_CHECK(rte_roce_post_send(ud_qp, &wr, &bad) == 0);
	FUZZ_CHECK(roce_test_wait_wc_ctx(a->ctx, env.s[1].ctx, a->scq, &wc, 1, FUZZ_WAIT_MS) == 1);
}

/* Requests the input made: rejected (by destroying their ids), events acknowledged. */
static void
drain_events(void)
{
	struct rte_roce_cm_event *ev;
	struct rte_roce_cm_id *id;

	while (rte_roce_cm_get_cm_event(ch, &ev) == 0) {
		id = ev->event == RTE_ROCE_CM_EVENT_CONNECT_REQUEST ? ev->id : NULL;
		FUZZ_CHECK(rte_roce_cm_ack_cm_event(ev) == 0);
		if (id != NULL)
			FUZZ_CHECK(rte_roce_cm_destroy_id(id) == 0);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_roce_cm_stats before, after;
	uint64_t end = roce_test_ms() + FUZZ_WAIT_MS;

	if (size == 0)
		return 0;
	FUZZ_CHECK(rte_roce_cm_stats_get(cm[1], &before) == 0);
	send_mad(data, size);
	do {
		pump();
		FUZZ_CHECK(rte_roce_cm_stats_get(cm[1], &after) == 0);
	} while (after.mads_rcvd == before.mads_rcvd && roce_test_ms() < end);
	FUZZ_CHECK(after.mads_rcvd == before.mads_rcvd + 1);
	drain_events();
	pump();
	drain_events();
	return 0;
}
