/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The per-object memory figures of examples/common/pp_mem.h (what roce_perf
 * --print-memory and --dry-run print, doc/deploy.md's sizing table) against
 * the heap: each kind of object created over net_ring, the heap bytes in
 * use before and after (rte_malloc_get_socket_stats()), divided by the
 * objects made, within PP_MEM_TOLERANCE_PCT of what pp_mem says; and the
 * heap back where it was once they are gone. The measured figures are
 * printed as TAP comments. The EAL runs with --no-huge: pages of 4 KiB,
 * where an mbuf pool costs most (pp_mem lays its mbufs on pages as DPDK
 * does); roce_perf_memory checks whole runs on hugepages.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include <rte_roce_port.h>
#include <rte_roce_verbs.h>

#include "pp_mem.h"
#include "roce_test.h"
#include "roce_test_eal.h"

#define MEM_RING_SIZE 1024
#define MEM_OBJS 64		/* QPs, CQs, PDs, MRs per measure: fragmentation averaged out */
#define MEM_MR_LEN 65536
#define MEM_QUEUES_MAX 4

static uint64_t
mem_in_use(void)
{
	uint64_t in_use, held;

	pp_mem_heap(&in_use, &held);
	return in_use;
}

/* measured within the tolerance of computed (both for n objects). */
static int
mem_check(const char *what, uint64_t measured, uint64_t computed, uint32_t n)
{
	double dev = measured != 0 ? 100.0 * ((double)computed - (double)measured) /
				     (double)measured : 0.0;

	printf("# %s: measured %" PRIu64 " B per object, pp_mem %" PRIu64 " B (%+.2f%%)\n", what,
	       measured / n, computed / n, dev);
	ROCE_TEST_ASSERT(dev <= PP_MEM_TOLERANCE_PCT && dev >= -PP_MEM_TOLERANCE_PCT,
			 "%s: measured %" PRIu64 ", computed %" PRIu64, what, measured, computed);
	return 0;
}

/* A net_ring ethdev of nq queues looped onto itself (its rings are the PMD's, not counted). */
static int
mem_ethdev(uint16_t nq)
{
	static unsigned int seq;
	struct rte_ring *r[MEM_QUEUES_MAX];
	char name[RTE_RING_NAMESIZE];
	uint16_t q;

	for (q = 0; q < nq; q++) {
		snprintf(name, sizeof(name), "mem%u_%u", seq, q);
		r[q] = rte_ring_create(name, MEM_RING_SIZE, SOCKET_ID_ANY,
				       RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (r[q] == NULL)
			return -1;
	}
	snprintf(name, sizeof(name), "mem%u", seq++);
	return rte_eth_from_rings(name, r, nq, r, nq, SOCKET_ID_ANY);
}

/* A port of conf on a new ethdev (its own pool), or NULL; *before: heap in use once the ethdev is. */
static struct rte_roce_port *
mem_port(struct rte_roce_port_conf *conf, uint64_t *before)
{
	int eth = mem_ethdev(RTE_MAX(conf->nb_queues, (uint16_t)1));

	if (eth < 0)
		return NULL;
	conf->port_id = (uint16_t)eth;
	conf->mtu_unchecked = conf->mtu != 0;
	conf->mac.addr_bytes[0] = RTE_ETHER_LOCAL_ADMIN_ADDR;
	conf->mac.addr_bytes[5] = (uint8_t)eth;
	*before = mem_in_use();
	return rte_roce_port_create(conf);
}

static int
mem_port_case(const char *what, uint16_t mtu, uint16_t nq)
{
	struct rte_roce_port_conf conf = { .mtu = mtu, .nb_queues = nq };
	struct rte_roce_port *port;
	uint64_t before, bytes;
	struct pp_mem m;

	port = mem_port(&conf, &before);
	ROCE_TEST_ASSERT(port != NULL, "%s: %s", what, rte_strerror(rte_errno));
	bytes = mem_in_use() - before;
	rte_roce_port_destroy(port);
	ROCE_TEST_ASSERT_EQ(mem_in_use(), before, "%s: heap back after destroy", what);
	pp_mem_init(&m, pp_mem_page_size(), 0);
	pp_mem_add_port(&m, &conf);
	printf("# (%" PRIu64 " mbufs: %" PRIu64 " B of them on %" PRIu64 " B pages)\n", m.mbufs,
	       m.bytes[PP_MEM_POOL], m.page_size);
	return mem_check(what, bytes, pp_mem_total(&m), 1);
}

static int
test_port_mtu1500(void)
{
	return mem_port_case("port, MTU 1500, 1 queue (pool of 3,328 mbufs)", 0, 1);
}

static int
test_port_mtu4176(void)
{
	return mem_port_case("port, MTU 4176 (IB MTU 4096), 1 queue", 4176, 1);
}

static int
test_port_queues(void)
{
	return mem_port_case("port, MTU 1500, 2 queues", 0, 2) ||
	       mem_port_case("port, MTU 1500, 4 queues", 0, 4);
}

/* The device of conf on a port of nq queues: heap bytes of its open. */
static int
mem_dev_case(const char *what, const struct rte_roce_dev_conf *dc, uint16_t nq)
{
	struct rte_roce_port_conf pc = { .nb_queues = nq };
	uint64_t before, bytes;
	struct rte_roce_port *port = mem_port(&pc, &before);
	struct ibv_context *ctx;
	struct pp_mem m;

	ROCE_TEST_ASSERT(port != NULL, "port: %s", rte_strerror(rte_errno));
	before = mem_in_use();
	ctx = rte_roce_open_device(port, dc);
	ROCE_TEST_ASSERT(ctx != NULL, "%s: %s", what, rte_strerror(rte_errno));
	bytes = mem_in_use() - before;
	ROCE_TEST_ASSERT_EQ(rte_roce_close_device(ctx), 0, "close");
	ROCE_TEST_ASSERT_EQ(mem_in_use(), before, "%s: heap back after close", what);
	rte_roce_port_destroy(port);
	pp_mem_init(&m, pp_mem_page_size(), 0);
	pp_mem_add_dev(&m, dc);
	return mem_check(what, bytes, pp_mem_total(&m), 1);
}

static int
test_dev(void)
{
	const struct rte_roce_dev_conf dflt = { 0 }, qp = { .max_qp = 1024 },
				       mr = { .max_mr = 65536 }, lanes = { .nb_lanes = 4 };

	return mem_dev_case("device, defaults (16,385 QPs: 32,768 slots; 4,096 MRs)", &dflt, 1) ||
	       mem_dev_case("device, max_qp 1,024 (2,048 slots)", &qp, 1) ||
	       mem_dev_case("device, max_mr 65,536", &mr, 1) ||
	       mem_dev_case("device, 4 lanes", &lanes, 4);
}

/* QPs, CQs, PDs and MRs: MEM_OBJS of each on one device. */
struct mem_verbs {
	struct rte_roce_port *port;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

static int
mem_verbs_open(struct mem_verbs *v)
{
	struct rte_roce_port_conf pc = { 0 };
	const struct rte_roce_dev_conf dc = { 0 };
	uint64_t before;

	memset(v, 0, sizeof(*v));
	v->port = mem_port(&pc, &before);
	ROCE_TEST_ASSERT(v->port != NULL, "port: %s", rte_strerror(rte_errno));
	v->ctx = rte_roce_open_device(v->port, &dc);
	ROCE_TEST_ASSERT(v->ctx != NULL, "device: %s", rte_strerror(rte_errno));
	v->pd = rte_roce_alloc_pd(v->ctx);
	v->cq = rte_roce_create_cq(v->ctx, 1, NULL, NULL, 0);
	ROCE_TEST_ASSERT(v->pd != NULL && v->cq != NULL, "PD, CQ: %s", rte_strerror(rte_errno));
	return 0;
}

static void
mem_verbs_close(struct mem_verbs *v)
{
	rte_roce_destroy_cq(v->cq);
	rte_roce_dealloc_pd(v->pd);
	rte_roce_close_device(v->ctx);
	rte_roce_port_destroy(v->port);
}

static int
mem_qp_case(struct mem_verbs *v, const char *what, const struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr ia = { .send_cq = v->cq, .recv_cq = v->cq, .qp_type = IBV_QPT_RC };
	struct ibv_qp *qp[MEM_OBJS];
	uint64_t before, bytes;
	struct pp_mem m;
	unsigned int i;

	before = mem_in_use();
	for (i = 0; i < MEM_OBJS; i++) {
		ia.cap = *cap;
		qp[i] = rte_roce_create_qp(v->pd, &ia);
		ROCE_TEST_ASSERT(qp[i] != NULL, "%s: %s", what, rte_strerror(rte_errno));
	}
	bytes = mem_in_use() - before;
	for (i = 0; i < MEM_OBJS; i++)
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_qp(qp[i]), 0, "destroy");
	ROCE_TEST_ASSERT_EQ(mem_in_use(), before, "%s: heap back", what);
	pp_mem_init(&m, pp_mem_page_size(), 0);
	pp_mem_add_qps(&m, cap, MEM_OBJS);
	return mem_check(what, bytes, pp_mem_total(&m), MEM_OBJS);
}

static int
mem_cq_case(struct mem_verbs *v, const char *what, uint32_t cqe)
{
	struct ibv_cq *cq[MEM_OBJS];
	uint64_t before, bytes;
	struct pp_mem m;
	unsigned int i;

	before = mem_in_use();
	for (i = 0; i < MEM_OBJS; i++) {
		cq[i] = rte_roce_create_cq(v->ctx, (int)cqe, NULL, NULL, 0);
		ROCE_TEST_ASSERT(cq[i] != NULL, "%s: %s", what, rte_strerror(rte_errno));
	}
	bytes = mem_in_use() - before;
	for (i = 0; i < MEM_OBJS; i++)
		ROCE_TEST_ASSERT_EQ(rte_roce_destroy_cq(cq[i]), 0, "destroy");
	ROCE_TEST_ASSERT_EQ(mem_in_use(), before, "%s: heap back", what);
	pp_mem_init(&m, pp_mem_page_size(), 0);
	pp_mem_add_cqs(&m, cqe, MEM_OBJS);
	return mem_check(what, bytes, pp_mem_total(&m), MEM_OBJS);
}

/* PDs cost their struct; an MR nothing (its slot is in the device's table). */
static int
mem_pd_mr_case(struct mem_verbs *v)
{
	static uint8_t buf[MEM_OBJS][MEM_MR_LEN];
	struct ibv_mr *mr[MEM_OBJS];
	struct ibv_pd *pd[MEM_OBJS];
	uint64_t before, pds;
	struct pp_mem m;
	unsigned int i;

	before = mem_in_use();
	for (i = 0; i < MEM_OBJS; i++)
		pd[i] = rte_roce_alloc_pd(v->ctx);
	pds = mem_in_use() - before;
	for (i = 0; i < MEM_OBJS; i++) {
		mr[i] = rte_roce_reg_mr(pd[i], buf[i], MEM_MR_LEN, IBV_ACCESS_LOCAL_WRITE);
		ROCE_TEST_ASSERT(mr[i] != NULL, "MR: %s", rte_strerror(rte_errno));
	}
	printf("# MR of 64 KiB: %" PRIu64 " B of DPDK memory per registration\n",
	       (mem_in_use() - before - pds) / MEM_OBJS);
	ROCE_TEST_ASSERT_EQ(mem_in_use() - before, pds, "an MR takes no DPDK memory");
	for (i = 0; i < MEM_OBJS; i++) {
		rte_roce_dereg_mr(mr[i]);
		rte_roce_dealloc_pd(pd[i]);
	}
	pp_mem_init(&m, pp_mem_page_size(), 0);
	pp_mem_add_pds(&m, MEM_OBJS);
	return mem_check("PD", pds, pp_mem_total(&m), MEM_OBJS);
}

static int
test_verbs_objects(void)
{
	static const struct ibv_qp_cap tool = { 1, 500, 1, 1, 0 }, perf = { 128, 1, 1, 1, 0 },
		perf_send = { 128, 512, 1, 1, 0 }, large = { 256, 256, 4, 4, 64 },
		inl = { 128, 1, 1, 1, 200 };
	struct mem_verbs v;
	int rc;

	if (mem_verbs_open(&v) != 0)
		return -1;
	rc = mem_qp_case(&v, "QP 1/500 WRs, 1/1 SGE (rc_pingpong)", &tool) ||
	     mem_qp_case(&v, "QP 128/1 WRs, 1/1 SGE (roce_perf write_bw)", &perf) ||
	     mem_qp_case(&v, "QP 128/512 WRs, 1/1 SGE (roce_perf send_bw)", &perf_send) ||
	     mem_qp_case(&v, "QP 256/256 WRs, 4/4 SGEs, 64 inline", &large) ||
	     mem_qp_case(&v, "QP 128/1 WRs, 200 inline", &inl) ||
	     mem_cq_case(&v, "CQ of 1,024 entries", 1024) ||
	     mem_cq_case(&v, "CQ of 129 entries (256 made)", 129) ||
	     mem_pd_mr_case(&v);
	mem_verbs_close(&v);
	return rc;
}

static const struct roce_test_case cases[] = {
	{ "port_mtu1500", test_port_mtu1500 },
	{ "port_mtu4176", test_port_mtu4176 },
	{ "port_queues", test_port_queues },
	{ "device", test_dev },
	{ "verbs_objects", test_verbs_objects },
};

int
main(void)
{
	return roce_test_main_eal("test_mem_need", cases, RTE_DIM(cases));
}
