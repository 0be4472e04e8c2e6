/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * app/roce_nvmf's target against the test host of nvmf_host.h, over
 * net_ring in one process: the CM exchange (RDMA §3.1), capsules and data
 * (RDMA §3.3), the Fabrics and admin commands a host needs, I/O on a RAM
 * namespace, and bad input: each answered with the right status and
 * counted, or the queue torn down, and the namespace never written where
 * it should not be.
 */

#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <rte_common.h>
#include <rte_errno.h>

#include <rte_roce.h>

#include "nvmf_host.h"
#include "roce_test.h"
#include "roce_test_eal.h"

#define NSID		1
#define NS_BLOCKS	(4u << 20 >> 9)
#define IO_LEN		(64u * 1024)
#define ICD_LEN		4096
#define WR_OFF		HOST_DATA_OFF
#define RD_OFF		(HOST_DATA_OFF + 256 * 1024)
#define KATO_MS		300
#define KATO_LONG_MS	1500	/* Keep Alive well within it, even on a loaded machine */
#define SUBNQN_B	"nqn.2026-11.org.librte-roce:b"
#define SUBNQN_C	"nqn.2026-11.org.librte-roce:c"
#define OTHER_HOST	"nqn.2026-11.org.example:other"
#define AEN_NS_CHANGED	0x040002u	/* Notice, Namespace Attribute Changed, log 04h */

#define STAT(h, f)	(nvmf_tgt_stats((h)->tgt)->f)

static struct host_env env;

static void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);	/* the tests run on little-endian hosts (x86, arm64) */
}

static void
put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* A Read (0x02) or Write (0x01) of nlb blocks at slba of nsid, keyed on side 0's buffer at off. */
static void
rw_sqe_ns(struct host_queue *q, uint8_t *sqe, uint8_t opc, uint32_t nsid, uint64_t slba,
	  uint32_t nlb, uint32_t off)
{
	host_sqe(q, sqe, opc, nsid);
	host_sgl_keyed(q, sqe, off, nlb * 512, false);
	put64(sqe + 40, slba);
	put32(sqe + 48, nlb - 1);
}

static void
rw_sqe(struct host_queue *q, uint8_t *sqe, uint8_t opc, uint64_t slba, uint32_t nlb, uint32_t off)
{
	rw_sqe_ns(q, sqe, opc, NSID, slba, nlb, off);
}

/* The command's status (0 or SCT << 8 | SC), -1 if no response. */
static int
cmd_status(struct host_queue *q, const uint8_t *sqe)
{
	uint8_t cqe[16];

	if (host_cmd(q, sqe, NULL, 0, cqe, NULL, NULL) != 0)
		return -1;
	return host_status(cqe);
}

/* Identify cns (CDW10) of nsid for command set csi (CDW11 bits 31:24) into RD_OFF: its status. */
static int
identify(struct host_queue *q, uint8_t cns, uint32_t nsid, uint8_t csi)
{
	uint8_t sqe[64];

	host_sqe(q, sqe, 0x06, nsid);
	host_sgl_keyed(q, sqe, RD_OFF, 4096, false);
	sqe[40] = cns;
	sqe[47] = csi;
	return cmd_status(q, sqe);
}

/* Get Log Page lid, len bytes into RD_OFF, RAE (CDW10 bit 15) as asked: its status. */
static int
get_log(struct host_queue *q, uint8_t lid, uint32_t len, bool rae)
{
	uint8_t sqe[64];

	host_sqe(q, sqe, 0x02, 0xffffffff);
	host_sgl_keyed(q, sqe, RD_OFF, len, false);
	put32(sqe + 40, lid | (rae ? 1u << 15 : 0) | (len / 4 - 1) << 16);
	return cmd_status(q, sqe);
}

/* Set (0x09) or Get (0x0a) Features fid with CDW11 value: the status, DW0 in *dw0. */
static int
features(struct host_queue *q, uint8_t opc, uint8_t fid, uint32_t value, uint32_t *dw0)
{
	uint8_t sqe[64], cqe[16];

	host_sqe(q, sqe, opc, 0);
	sqe[40] = fid;
	put32(sqe + 44, value);
	if (host_cmd(q, sqe, NULL, 0, cqe, NULL, NULL) != 0)
		return -1;
	*dw0 = host_dw0(cqe);
	return host_status(cqe);
}

/* The target (conf, or the tests' default) and a controller with I/O queue 1. */
static int
io_open(const struct nvmf_tgt_conf *conf, struct host_queue *a, struct host_queue *io,
	uint32_t kato)
{
	ROCE_TEST_ASSERT_EQ(host_env_open(&env, conf), 0, "");
	ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, a, kato), 0, "");
	return host_io_up(&env, a, io, 1);
}

static int
io_close(struct host_queue *a, struct host_queue *io)
{
	ROCE_TEST_ASSERT_EQ(host_queue_close(io), 0, "");
	ROCE_TEST_ASSERT_EQ(host_queue_close(a), 0, "");
	return host_env_close(&env);
}

static int
test_cm_accept(void)
{
	struct host_cm_req req = host_cm_req_default(0, 31, 0);
	static struct host_queue q;

	ROCE_TEST_ASSERT_EQ(host_env_open(&env, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(host_queue_connect(&env, &q, &req), 0, "");
	/* Figure 6: the controller's receive queue holds HSQSIZE + 1 capsules */
	ROCE_TEST_ASSERT_EQ(q.crqsize, 32, "CRQSIZE");
	ROCE_TEST_ASSERT_EQ(STAT(&env, queues_live), 1, "");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&q), 0, "");
	HOST_PUMP_UNTIL(&env, STAT(&env, queues_freed) >= 1);
	ROCE_TEST_ASSERT_EQ(STAT(&env, queues_freed), 1, "the target freed its queue");
	return host_env_close(&env);
}

/* Each bad RDMA_CM_REQUEST is rejected with its Figure 11 status. */
static int
test_cm_reject(void)
{
	static const struct {
		const char *what;
		int field;	/* 0 recfmt, 1 qid, 2 hrqsize, 3 hsqsize, 4 cntlid, 5 len, 6 ird */
		uint16_t value;
		int status;
	} cases[] = {
		{ "record format 1", 0, 1, 0x2 },
		{ "QID above the I/O queues", 1, 9, 0x3 },
		{ "HRQSIZE 0", 2, 0, 0x5 },
		{ "HSQSIZE 0 (one entry)", 3, 0, 0x4 },
		{ "HSQSIZE above MQES", 3, 128, 0x4 },
		{ "no such controller", 4, 77, 0x9 },
		{ "host accepts no RDMA READ", 6, 0, 0x7 },
	};
	static struct host_queue q;
	unsigned int i;

	ROCE_TEST_ASSERT_EQ(host_env_open(&env, NULL), 0, "");
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct host_cm_req req = host_cm_req_default(1, 31, 0);
		uint16_t *f[] = { &req.recfmt, &req.qid, &req.hrqsize, &req.hsqsize, &req.cntlid };

		if (cases[i].field < 5)
			*f[cases[i].field] = cases[i].value;
		else
			req.responder_resources = (uint8_t)cases[i].value;
		ROCE_TEST_ASSERT_EQ(host_queue_connect(&env, &q, &req), cases[i].status, "%s",
				    cases[i].what);
	}
	ROCE_TEST_ASSERT_EQ(STAT(&env, cm_rejects), RTE_DIM(cases), "");
	ROCE_TEST_ASSERT_EQ(STAT(&env, queues_live), 0, "");
	return host_env_close(&env);
}

static int
test_admin(void)
{
	static struct host_queue a;
	uint8_t sqe[64], cqe[16], *d;
	uint64_t v;

	ROCE_TEST_ASSERT_EQ(host_env_open(&env, NULL), 0, "");
	d = host_buf(&env, RD_OFF);
	ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, &a, 0), 0, "");
	ROCE_TEST_ASSERT(a.cntlid >= 1 && a.cntlid <= 0xffef, "dynamic CNTLID %u", a.cntlid);
	ROCE_TEST_ASSERT_EQ(host_prop_get(&a, 0x00, true, &v), 0, "CAP");
	ROCE_TEST_ASSERT_EQ(v & 0xffff, 127, "CAP.MQES");
	ROCE_TEST_ASSERT(v & (1ull << 37), "CAP.CSS: NVM command set");
	ROCE_TEST_ASSERT_EQ(host_prop_get(&a, 0x08, false, &v), 0, "VS");
	ROCE_TEST_ASSERT_EQ(v, 0x10300, "NVMe 1.3");
	/* Identify Controller */
	host_sqe(&a, sqe, 0x06, 0);
	host_sgl_keyed(&a, sqe, RD_OFF, 4096, false);
	sqe[40] = 0x01;
	ROCE_TEST_ASSERT_EQ(cmd_status(&a, sqe), 0, "Identify Controller");
	ROCE_TEST_ASSERT_EQ(d[78] | d[79] << 8, a.cntlid, "CNTLID");
	ROCE_TEST_ASSERT_EQ(d[77], 5, "MDTS: 128 KiB in 4 KiB pages");
	ROCE_TEST_ASSERT_EQ(d[516], 1, "NN");
	ROCE_TEST_ASSERT_EQ(d[536] & 0x5, 0x5, "SGLS: supported, keyed");
	ROCE_TEST_ASSERT(d[538] & 0x10, "SGLS bit 20: offsets (in-capsule data)");
	ROCE_TEST_ASSERT_EQ(d[1792] | d[1793] << 8, (64 + 8192) / 16, "IOCCSZ");
	ROCE_TEST_ASSERT_EQ(d[1796], 1, "IORCSZ");
	ROCE_TEST_ASSERT_EQ(d[1803], 1, "MSDBD");
	ROCE_TEST_ASSERT(strcmp((const char *)d + 768, HOST_SUBNQN) == 0, "SUBNQN");
	/* Identify Namespace */
	host_sqe(&a, sqe, 0x06, NSID);
	host_sgl_keyed(&a, sqe, RD_OFF, 4096, false);
	ROCE_TEST_ASSERT_EQ(cmd_status(&a, sqe), 0, "Identify Namespace");
	ROCE_TEST_ASSERT_EQ(d[0] | d[1] << 8 | d[2] << 16, NS_BLOCKS, "NSZE");
	ROCE_TEST_ASSERT_EQ(d[130], 9, "LBAF0.LBADS: 512-byte blocks");
	/* active namespace list, namespace identification descriptors */
	host_sqe(&a, sqe, 0x06, 0);
	host_sgl_keyed(&a, sqe, RD_OFF, 4096, false);
	sqe[40] = 0x02;
	ROCE_TEST_ASSERT_EQ(cmd_status(&a, sqe), 0, "active list");
	ROCE_TEST_ASSERT(d[0] == 1 && d[4] == 0, "NSID 1 only");
	host_sqe(&a, sqe, 0x06, NSID);
	host_sgl_keyed(&a, sqe, RD_OFF, 4096, false);
	sqe[40] = 0x03;
	ROCE_TEST_ASSERT_EQ(cmd_status(&a, sqe), 0, "descriptors");
	ROCE_TEST_ASSERT(d[0] == 2 && d[1] == 16, "an NGUID");
	/* Set Features: Number of Queues, 3 asked, 3 granted (0's based) */
	host_sqe(&a, sqe, 0x09, 0);
	sqe[40] = 0x07;
	put32(sqe + 44, 2u | 2u << 16);
	ROCE_TEST_ASSERT_EQ(host_cmd(&a, sqe, NULL, 0, cqe, NULL, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "");
	ROCE_TEST_ASSERT_EQ(host_dw0(cqe), 2u | 2u << 16, "queues granted");
	/* Keep Alive; SMART log page */
	host_sqe(&a, sqe, 0x18, 0);
	ROCE_TEST_ASSERT_EQ(cmd_status(&a, sqe), 0, "Keep Alive");
	host_sqe(&a, sqe, 0x02, 0xffffffff);
	host_sgl_keyed(&a, sqe, RD_OFF, 512, false);
	put32(sqe + 40, 0x02 | (512 / 4 - 1) << 16);
	ROCE_TEST_ASSERT_EQ(cmd_status(&a, sqe), 0, "SMART log");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&a), 0, "");
	return host_env_close(&env);
}

/* Get Log Page 70h of the discovery controller, whose length is 1024 + 1024 per entry. */
static int
discovery_log(struct host_queue *a, uint8_t *d, uint32_t len)
{
	uint8_t sqe[64];

	host_sqe(a, sqe, 0x02, 0);
	host_sgl_keyed(a, sqe, RD_OFF, len, false);
	put32(sqe + 40, 0x70 | (len / 4 - 1) << 16);
	memset(d, 0xee, len);
	ROCE_TEST_ASSERT_EQ(cmd_status(a, sqe), 0, "discovery log page");
	return 0;
}

/* The discovery subsystem: its controller, its log page (one entry; none for a host not allowed). */
static int
test_discovery(void)
{
	static const char disc[] = "nqn.2014-08.org.nvmexpress.discovery";
	struct host_cm_req req = host_cm_req_default(1, 31, 0);
	struct nvmf_tgt_conf conf;
	static struct host_queue a, io;
	uint8_t sqe[64], cqe[16], *d, *e;

	ROCE_TEST_ASSERT_EQ(host_env_open(&env, NULL), 0, "");
	d = host_buf(&env, RD_OFF);
	e = d + 1024;
	ROCE_TEST_ASSERT_EQ(host_ctrl_up_to(&env, &a, disc, 0), 0, "");
	host_sqe(&a, sqe, 0x06, 0);
	host_sgl_keyed(&a, sqe, RD_OFF, 4096, false);
	sqe[40] = 0x01;
	ROCE_TEST_ASSERT_EQ(cmd_status(&a, sqe), 0, "Identify Controller");
	ROCE_TEST_ASSERT_EQ(d[111], 2, "CNTRLTYPE: discovery");
	ROCE_TEST_ASSERT(strcmp((const char *)d + 768, disc) == 0, "SUBNQN");
	ROCE_TEST_ASSERT_EQ(discovery_log(&a, d, 2048), 0, "");
	ROCE_TEST_ASSERT_EQ(d[8], 1, "NUMREC");
	ROCE_TEST_ASSERT(e[0] == 1 && e[1] == 1 && e[2] == 2, "TRTYPE RDMA, ADRFAM IPv4, NVM subsystem");
	ROCE_TEST_ASSERT_EQ(e[6] | e[7] << 8, 0xffff, "CNTLID: dynamic");
	ROCE_TEST_ASSERT(memcmp(e + 32, "4420 ", 5) == 0, "TRSVCID");
	ROCE_TEST_ASSERT(memcmp(e + 512, "10.0.0.2 ", 9) == 0, "TRADDR");
	ROCE_TEST_ASSERT(strcmp((const char *)e + 256, HOST_SUBNQN) == 0, "SUBNQN");
	ROCE_TEST_ASSERT(e[768] == 1 && e[769] == 4 && e[770] == 1, "TSAS: RC, RoCE v2, RDMA_CM");
	/* with an offset: the entry alone (LPA bit 2) */
	host_sqe(&a, sqe, 0x02, 0);
	host_sgl_keyed(&a, sqe, RD_OFF, 1024, false);
	put32(sqe + 40, 0x70 | (1024 / 4 - 1) << 16);
	put64(sqe + 48, 1024);
	ROCE_TEST_ASSERT_EQ(cmd_status(&a, sqe), 0, "");
	ROCE_TEST_ASSERT(d[0] == 1 && d[2] == 2, "the entry at offset 1024");
	/* what a discovery controller does not have: namespaces, SMART, I/O queues */
	host_sqe(&a, sqe, 0x06, 1);
	host_sgl_keyed(&a, sqe, RD_OFF, 4096, false);
	ROCE_TEST_ASSERT_EQ(cmd_status(&a, sqe), 0x02, "Identify Namespace");
	host_sqe(&a, sqe, 0x02, 0);
	host_sgl_keyed(&a, sqe, RD_OFF, 512, false);
	put32(sqe + 40, 0x02 | (512 / 4 - 1) << 16);
	ROCE_TEST_ASSERT_EQ(cmd_status(&a, sqe), 0x109, "SMART: Invalid Log Page");
	req.cntlid = a.cntlid;
	ROCE_TEST_ASSERT_EQ(host_queue_connect(&env, &io, &req), 0, "");
	ROCE_TEST_ASSERT_EQ(host_fabrics_connect(&io, disc, HOST_NQN, a.cntlid, 0, cqe), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0x182, "no I/O queue");
	ROCE_TEST_ASSERT_EQ(io_close(&a, &io), 0, "");
	/* a host not on the allow-list discovers nothing */
	host_tgt_conf(&conf);
	conf.subsys[0].nb_hosts = 1;
	snprintf(conf.subsys[0].hosts[0], sizeof(conf.subsys[0].hosts[0]), "%s", OTHER_HOST);
	ROCE_TEST_ASSERT_EQ(host_env_open(&env, &conf), 0, "");
	d = host_buf(&env, RD_OFF);
	ROCE_TEST_ASSERT_EQ(host_ctrl_up_to(&env, &a, disc, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(discovery_log(&a, d, 1024), 0, "");
	ROCE_TEST_ASSERT_EQ(d[8], 0, "NUMREC");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&a), 0, "");
	return host_env_close(&env);
}

/* Write by RDMA READ, read back by RDMA WRITE, in-capsule data, Write Zeroes, DSM, Flush. */
static int
test_io(void)
{
	static struct host_queue a, io;
	uint8_t sqe[64], icd[ICD_LEN], *ns;
	uint64_t ns_size;

	ROCE_TEST_ASSERT_EQ(io_open(NULL, &a, &io, 0), 0, "");
	ns = nvmf_tgt_ns_data(env.tgt, HOST_SUBNQN, NSID, &ns_size);
	ROCE_TEST_ASSERT(ns != NULL && ns_size == 4u << 20, "namespace");
	roce_test_fill(host_buf(&env, WR_OFF), IO_LEN, 11);
	rw_sqe(&io, sqe, 0x01, 8, IO_LEN / 512, WR_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Write 64 KiB");
	ROCE_TEST_ASSERT(memcmp(ns + 8 * 512, host_buf(&env, WR_OFF), IO_LEN) == 0, "in the ns");
	memset(host_buf(&env, RD_OFF), 0, IO_LEN);
	rw_sqe(&io, sqe, 0x02, 8, IO_LEN / 512, RD_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Read 64 KiB");
	ROCE_TEST_ASSERT(memcmp(host_buf(&env, RD_OFF), host_buf(&env, WR_OFF), IO_LEN) == 0,
			 "read back");
	ROCE_TEST_ASSERT(STAT(&env, rdma_reads) >= 1 && STAT(&env, rdma_writes) >= 1, "");
	/* in-capsule data: 4 KiB at LBA 1000 */
	roce_test_fill(icd, sizeof(icd), 12);
	host_sqe(&io, sqe, 0x01, NSID);
	host_sgl_icd(sqe, 0, sizeof(icd));
	put64(sqe + 40, 1000);
	put32(sqe + 48, sizeof(icd) / 512 - 1);
	{
		uint8_t cqe[16];

		ROCE_TEST_ASSERT_EQ(host_cmd(&io, sqe, icd, sizeof(icd), cqe, NULL, NULL), 0, "");
		ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "in-capsule Write");
	}
	ROCE_TEST_ASSERT_EQ(STAT(&env, in_capsule), 1, "");
	ROCE_TEST_ASSERT(memcmp(ns + 1000 * 512, icd, sizeof(icd)) == 0, "in-capsule data");
	/* Write Zeroes of 8 blocks at LBA 8, DSM deallocate of 8 at LBA 16: zeroes read back */
	host_sqe(&io, sqe, 0x08, NSID);
	put64(sqe + 40, 8);
	put32(sqe + 48, 7);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Write Zeroes");
	memset(host_buf(&env, WR_OFF), 0, 16);
	put32(host_buf(&env, WR_OFF) + 4, 8);
	put64(host_buf(&env, WR_OFF) + 8, 16);
	host_sqe(&io, sqe, 0x09, NSID);
	host_sgl_keyed(&io, sqe, WR_OFF, 16, false);
	put32(sqe + 44, 0x4);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "DSM deallocate");
	{
		static const uint8_t zero[16 * 512];

		ROCE_TEST_ASSERT(memcmp(ns + 8 * 512, zero, sizeof(zero)) == 0, "zeroed");
	}
	host_sqe(&io, sqe, 0x00, NSID);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Flush");
	ROCE_TEST_ASSERT_EQ(STAT(&env, errors), 0, "");
	return io_close(&a, &io);
}

/*
 * RDMA §3.6: Keyed SGL sub type Fh: the response comes by SEND_WITH_INVALIDATE
 * of that key, which the host's device invalidates: an MR of its own here,
 * so that the host's buffer MR stays valid for the other tests.
 */
static int
test_send_invalidate(void)
{
	static struct host_queue a, io;
	uint8_t sqe[64], cqe[16];
	struct ibv_mr *mr;
	uint32_t rkey = 0;
	int flags = 0;

	ROCE_TEST_ASSERT_EQ(io_open(NULL, &a, &io, 0), 0, "");
	mr = rte_roce_reg_mr(env.e.s[0].pd, env.e.s[0].buf, ROCE_TEST_BUF_LEN,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ROCE_TEST_ASSERT(mr != NULL, "MR");
	host_sqe(&io, sqe, 0x02, NSID);
	host_sgl_keyed(&io, sqe, RD_OFF, 4096, true);
	put32(sqe + 24 + 11, mr->rkey);
	put32(sqe + 48, 4096 / 512 - 1);
	ROCE_TEST_ASSERT_EQ(host_cmd(&io, sqe, NULL, 0, cqe, &flags, &rkey), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "");
	ROCE_TEST_ASSERT(flags & IBV_WC_WITH_INV, "SEND_WITH_INVALIDATE");
	ROCE_TEST_ASSERT_EQ(rkey, mr->rkey, "the key of the SGL");
	ROCE_TEST_ASSERT_EQ(STAT(&env, send_inv), 1, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_dereg_mr(mr), 0, "the invalidated MR");
	return io_close(&a, &io);
}

/* SGLs the target refuses, each with its status, nothing written to the namespace. */
static int
test_bad_sgl(void)
{
	static struct host_queue a, io;
	uint8_t sqe[64], cqe[16], icd[512] = { 0 }, *ns, before[64 * 1024];
	uint64_t ns_size;

	ROCE_TEST_ASSERT_EQ(io_open(NULL, &a, &io, 0), 0, "");
	ns = nvmf_tgt_ns_data(env.tgt, HOST_SUBNQN, NSID, &ns_size);
	memcpy(before, ns, sizeof(before));
	roce_test_fill(host_buf(&env, WR_OFF), 256 * 1024, 3);
	/* a Last Segment descriptor: several descriptors (MSDBD is 1) */
	rw_sqe(&io, sqe, 0x01, 0, 8, WR_OFF);
	sqe[24 + 15] = 0x30;
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x0e, "Last Segment");
	ROCE_TEST_ASSERT_EQ(STAT(&env, sgl_multi), 1, "");
	/* a Data Block with sub type Address: SGL in host memory, not for RDMA */
	rw_sqe(&io, sqe, 0x01, 0, 8, WR_OFF);
	sqe[24 + 15] = 0x00;
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x11, "Data Block, Address");
	/* in-capsule data beyond what came */
	host_sqe(&io, sqe, 0x01, NSID);
	host_sgl_icd(sqe, 256, 512);
	ROCE_TEST_ASSERT_EQ(host_cmd(&io, sqe, icd, sizeof(icd), cqe, NULL, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0x16, "offset beyond the capsule");
	/* in-capsule data on the admin queue (RDMA §3.3) */
	host_sqe(&a, sqe, 0x09, 0);
	host_sgl_icd(sqe, 0, 16);
	sqe[40] = 0x0b;
	ROCE_TEST_ASSERT_EQ(host_cmd(&a, sqe, NULL, 0, cqe, NULL, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0x11, "in-capsule on the admin queue");
	/* a keyed length above MDTS; a length that is not the command's */
	rw_sqe(&io, sqe, 0x01, 0, 8, WR_OFF);
	host_sgl_keyed(&io, sqe, WR_OFF, 256 * 1024, false);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x0f, "above MDTS");
	rw_sqe(&io, sqe, 0x01, 0, 8, WR_OFF);
	host_sgl_keyed(&io, sqe, WR_OFF, 8 * 512 - 1, false);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x0f, "SGL shorter than the blocks");
	/* PSDT 00b (PRPs), a fused command */
	rw_sqe(&io, sqe, 0x01, 0, 8, WR_OFF);
	sqe[1] = 0;
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x02, "PRPs");
	rw_sqe(&io, sqe, 0x01, 0, 8, WR_OFF);
	sqe[1] |= 0x1;
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x02, "fused");
	ROCE_TEST_ASSERT_EQ(STAT(&env, sgl_invalid), 6, "");
	ROCE_TEST_ASSERT(memcmp(before, ns, sizeof(before)) == 0, "namespace untouched");
	return io_close(&a, &io);
}

/* Unknown opcodes, namespaces and LBAs, commands out of sequence. */
static int
test_bad_cmds(void)
{
	struct host_cm_req req = host_cm_req_default(0, 31, 0);
	static struct host_queue a, io, fresh;
	uint8_t sqe[64], *ns;
	uint8_t tail[4096];
	uint64_t ns_size;

	ROCE_TEST_ASSERT_EQ(host_env_open(&env, NULL), 0, "");
	ns = nvmf_tgt_ns_data(env.tgt, HOST_SUBNQN, NSID, &ns_size);
	memcpy(tail, ns + ns_size - sizeof(tail), sizeof(tail));
	/* before the Fabrics Connect: Identify, Property Get */
	ROCE_TEST_ASSERT_EQ(host_queue_connect(&env, &fresh, &req), 0, "");
	host_sqe(&fresh, sqe, 0x06, 0);
	host_sgl_keyed(&fresh, sqe, RD_OFF, 4096, false);
	sqe[40] = 0x01;
	ROCE_TEST_ASSERT_EQ(cmd_status(&fresh, sqe), 0x0c, "Identify before Connect");
	host_sqe(&fresh, sqe, 0x7f, 0);
	sqe[4] = 0x04;
	ROCE_TEST_ASSERT_EQ(cmd_status(&fresh, sqe), 0x0c, "Property Get before Connect");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&fresh), 0, "");
	ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, &a, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(host_io_up(&env, &a, &io, 1), 0, "");
	host_sqe(&a, sqe, 0xc1, 0);
	ROCE_TEST_ASSERT_EQ(cmd_status(&a, sqe), 0x01, "admin opcode C1h");
	host_sqe(&io, sqe, 0x05, NSID);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x01, "Compare: not supported");
	host_sqe(&a, sqe, 0x7f, 0);
	sqe[4] = 0x05;
	ROCE_TEST_ASSERT_EQ(cmd_status(&a, sqe), 0x01, "Authentication Send");
	ROCE_TEST_ASSERT_EQ(STAT(&env, invalid_opcode), 3, "");
	rw_sqe(&io, sqe, 0x02, 0, 8, RD_OFF);
	put32(sqe + 4, 7);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x0b, "NSID 7");
	/* the last block and one beyond; a start beyond; more than MDTS */
	roce_test_fill(host_buf(&env, WR_OFF), 4096, 5);
	rw_sqe(&io, sqe, 0x01, NS_BLOCKS - 1, 2, WR_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x80, "Write across the end");
	rw_sqe(&io, sqe, 0x02, NS_BLOCKS, 1, RD_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x80, "Read beyond the end");
	rw_sqe(&io, sqe, 0x02, UINT64_MAX, 1, RD_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x80, "SLBA 2^64 - 1");
	host_sqe(&io, sqe, 0x08, NSID);
	put64(sqe + 40, NS_BLOCKS - 4);
	put32(sqe + 48, 7);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x80, "Write Zeroes across the end");
	rw_sqe(&io, sqe, 0x02, 0, 257 * 2, RD_OFF);
	host_sgl_keyed(&io, sqe, RD_OFF, 4096, false);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x02, "blocks above MDTS");
	ROCE_TEST_ASSERT_EQ(STAT(&env, lba_range), 4, "");
	ROCE_TEST_ASSERT(memcmp(tail, ns + ns_size - sizeof(tail), sizeof(tail)) == 0,
			 "the namespace's end untouched");
	return io_close(&a, &io);
}

/* Connect commands refused: subsystem, host, CNTLID, QID, twice. */
static int
test_bad_connect(void)
{
	struct host_cm_req req = host_cm_req_default(0, 31, 0);
	struct nvmf_tgt_conf conf;
	static struct host_queue a, q, io;
	uint8_t cqe[16], sqe[64];

	host_tgt_conf(&conf);
	conf.subsys[0].nb_hosts = 1;
	snprintf(conf.subsys[0].hosts[0], sizeof(conf.subsys[0].hosts[0]), "%s", HOST_NQN);
	ROCE_TEST_ASSERT_EQ(host_env_open(&env, &conf), 0, "");
	ROCE_TEST_ASSERT_EQ(host_queue_connect(&env, &q, &req), 0, "");
	ROCE_TEST_ASSERT_EQ(host_fabrics_connect(&q, "nqn.2026-11.org.example:none", HOST_NQN,
						 0xffff, 0, cqe), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0x182, "unknown subsystem");
	ROCE_TEST_ASSERT_EQ(host_dw0(cqe), 256u | 1u << 16, "IPO: SUBNQN, in the data");
	ROCE_TEST_ASSERT_EQ(host_fabrics_connect(&q, HOST_SUBNQN, "nqn.2026-11.org.example:other",
						 0xffff, 0, cqe), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0x184, "host not allowed");
	ROCE_TEST_ASSERT_EQ(host_fabrics_connect(&q, HOST_SUBNQN, HOST_NQN, 5, 0, cqe), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0x182, "admin CNTLID not FFFFh");
	ROCE_TEST_ASSERT_EQ(host_dw0(cqe), 16u | 1u << 16, "IPO: CNTLID");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&q), 0, "");
	ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, &a, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(host_fabrics_connect(&a, HOST_SUBNQN, HOST_NQN, 0xffff, 0, cqe), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0x0c, "Connect twice");
	/* one I/O queue granted; QID 2 then refused, an unknown CNTLID too */
	host_sqe(&a, sqe, 0x09, 0);
	sqe[40] = 0x07;
	ROCE_TEST_ASSERT_EQ(cmd_status(&a, sqe), 0, "one I/O queue");
	req = host_cm_req_default(2, 31, 0);
	ROCE_TEST_ASSERT_EQ(host_queue_connect(&env, &io, &req), 0, "");
	ROCE_TEST_ASSERT_EQ(host_fabrics_connect(&io, HOST_SUBNQN, HOST_NQN, a.cntlid, 0, cqe), 0,
			    "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0x182, "QID 2 of 1");
	ROCE_TEST_ASSERT_EQ(host_dw0(cqe), 42, "IPO: QID, in the command");
	ROCE_TEST_ASSERT_EQ(host_fabrics_connect(&io, HOST_SUBNQN, HOST_NQN, a.cntlid + 1, 0, cqe),
			    0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0x182, "unknown CNTLID");
	ROCE_TEST_ASSERT_EQ(STAT(&env, connect_refused), 6, "");
	return io_close(&a, &io);
}

/* A keyed SGL beyond the host's MR: the RDMA READ fails, the queue goes, nothing is written. */
static int
test_sgl_beyond_mr(void)
{
	static struct host_queue a, io;
	uint8_t sqe[64], *ns, before[8 * 512];
	uint64_t ns_size;

	ROCE_TEST_ASSERT_EQ(io_open(NULL, &a, &io, 0), 0, "");
	ns = nvmf_tgt_ns_data(env.tgt, HOST_SUBNQN, NSID, &ns_size);
	memcpy(before, ns, sizeof(before));
	rw_sqe(&io, sqe, 0x01, 0, 8, ROCE_TEST_BUF_LEN - 1024);
	ROCE_TEST_ASSERT_EQ(host_send(&io, sqe, NULL, 0, 64), 0, "");
	HOST_PUMP_UNTIL(&env, STAT(&env, wc_errors) >= 1);
	ROCE_TEST_ASSERT_EQ(STAT(&env, wc_errors), 1, "the READ failed");
	ROCE_TEST_ASSERT(memcmp(before, ns, sizeof(before)) == 0, "namespace untouched");
	return io_close(&a, &io);
}

/* A capsule under 64 bytes: no command to answer; the queue is torn down (RDMA §3.5). */
static int
test_short_capsule(void)
{
	static struct host_queue a;
	uint8_t sqe[64];

	ROCE_TEST_ASSERT_EQ(host_env_open(&env, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, &a, 0), 0, "");
	host_sqe(&a, sqe, 0x18, 0);
	ROCE_TEST_ASSERT_EQ(host_send(&a, sqe, NULL, 0, 32), 0, "");
	ROCE_TEST_ASSERT_EQ(host_queue_wait_disconnected(&a, HOST_WAIT_MS), 0, "");
	ROCE_TEST_ASSERT_EQ(STAT(&env, capsule_short), 1, "");
	ROCE_TEST_ASSERT_EQ(STAT(&env, queues_freed), 1, "");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&a), 0, "");
	return host_env_close(&env);
}

/* A capsule larger than the receive buffer (the admin queue takes 64 bytes): the queue goes. */
static int
test_capsule_too_large(void)
{
	static struct host_queue a;
	uint8_t sqe[64], icd[16] = { 0 };

	ROCE_TEST_ASSERT_EQ(host_env_open(&env, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, &a, 0), 0, "");
	host_sqe(&a, sqe, 0x18, 0);
	ROCE_TEST_ASSERT_EQ(host_send(&a, sqe, icd, sizeof(icd), 64 + sizeof(icd)), 0, "");
	ROCE_TEST_ASSERT_EQ(host_queue_wait_disconnected(&a, HOST_WAIT_MS), 0, "");
	ROCE_TEST_ASSERT_EQ(STAT(&env, wc_errors), 1, "the receive failed");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&a), 0, "");
	return host_env_close(&env);
}

/*
 * A Keep Alive two thirds of the way through KATO_LONG_MS, then two thirds
 * again: the controller must live past KATO. The target restarts its timer
 * when it takes a command; the host's clock bounds each gap between two
 * commands the target took (from sending the first to the answer to the
 * second, or to now). *stalled: a bound reached KATO (the machine did not
 * run us for that long), so an expiry would be right and proves nothing.
 */
static int
keep_alive_past_kato(struct host_queue *a, bool *stalled)
{
	uint64_t t_get, t_ka, t_ka_done;
	uint32_t dw0 = 0;
	uint8_t sqe[64];
	int rc;

	t_get = roce_test_ms();
	ROCE_TEST_ASSERT_EQ(features(a, 0x0a, 0x0f, 0, &dw0), 0, "Get Features KATO");
	ROCE_TEST_ASSERT_EQ(dw0, KATO_LONG_MS, "KATO rounded up to 100 ms");
	host_pump_ms(&env, KATO_LONG_MS * 2 / 3);
	host_sqe(a, sqe, 0x18, 0);
	t_ka = roce_test_ms();
	rc = cmd_status(a, sqe);
	t_ka_done = roce_test_ms();
	host_pump_ms(&env, KATO_LONG_MS * 2 / 3);
	*stalled = t_ka_done - t_get >= KATO_LONG_MS || roce_test_ms() - t_ka >= KATO_LONG_MS;
	if (*stalled)
		return 0;
	ROCE_TEST_ASSERT_EQ(rc, 0, "Keep Alive");
	ROCE_TEST_ASSERT_EQ(STAT(&env, ka_expired), 0, "kept alive");
	return 0;
}

/*
 * Base 2.0, "Keep Alive": KATO rounded up to KAS (100 ms); a Keep Alive
 * restarts the timer; with no command for KATO the controller is torn down
 * with its queues (CSTS.CFS, the association ended), so that the host's
 * later commands find nothing: its old queue answers no more, and neither
 * the CM nor the Fabrics Connect knows its controller ID any more.
 */
static int
test_keep_alive_expiry(void)
{
	struct host_cm_req req;
	static struct host_queue a, io, again;
	uint8_t sqe[64], cqe[16];
	unsigned int attempt;
	bool stalled = true;
	struct ibv_wc wc;
	uint64_t capsules;
	uint32_t dw0 = 0;
	uint16_t cntlid;

	/* a run the machine stalled for KATO proves nothing: made again */
	for (attempt = 0; attempt < 3 && stalled; attempt++) {
		if (attempt != 0) {
			printf("# stalled for KATO (%u ms): keep-alive run again\n", KATO_LONG_MS);
			ROCE_TEST_ASSERT_EQ(io_close(&a, &io), 0, "");
		}
		ROCE_TEST_ASSERT_EQ(io_open(NULL, &a, &io, KATO_LONG_MS - 50), 0, "");
		ROCE_TEST_ASSERT_EQ(keep_alive_past_kato(&a, &stalled), 0, "");
	}
	ROCE_TEST_ASSERT(!stalled, "stalled for KATO in every run");
	ROCE_TEST_ASSERT_EQ(features(&a, 0x09, 0x0f, KATO_MS - 99, &dw0), 0, "Set KATO");
	ROCE_TEST_ASSERT_EQ(dw0, KATO_MS, "rounded up");
	ROCE_TEST_ASSERT_EQ(host_queue_wait_disconnected(&a, HOST_WAIT_MS), 0, "");
	ROCE_TEST_ASSERT_EQ(STAT(&env, ka_expired), 1, "");
	HOST_PUMP_UNTIL(&env, STAT(&env, queues_freed) >= 2);
	ROCE_TEST_ASSERT_EQ(STAT(&env, queues_freed), 2, "admin and I/O queues");
	/* the host's next command on its old admin queue: never answered */
	capsules = STAT(&env, capsules);
	host_sqe(&a, sqe, 0x18, 0);
	ROCE_TEST_ASSERT_EQ(host_send(&a, sqe, NULL, 0, 64), 0, "");
	host_pump_ms(&env, 200);
	ROCE_TEST_ASSERT_EQ(rte_roce_poll_cq(a.qp->recv_cq, 1, &wc), 0, "no response");
	ROCE_TEST_ASSERT_EQ(STAT(&env, capsules), capsules, "nothing taken");
	/* an I/O queue for the expired controller: refused by the CM and by Connect */
	cntlid = a.cntlid;
	req = host_cm_req_default(1, 31, cntlid);
	ROCE_TEST_ASSERT_EQ(host_queue_connect(&env, &again, &req), 0x9, "CM: invalid CNTLID");
	req = host_cm_req_default(1, 31, 0);
	ROCE_TEST_ASSERT_EQ(host_queue_connect(&env, &again, &req), 0, "");
	ROCE_TEST_ASSERT_EQ(host_fabrics_connect(&again, HOST_SUBNQN, HOST_NQN, cntlid, 0, cqe), 0,
			    "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0x182, "Connect Invalid Parameters");
	ROCE_TEST_ASSERT_EQ(host_dw0(cqe), 16u | 1u << 16, "IPO: CNTLID, in the data");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&again), 0, "");
	return io_close(&a, &io);
}

/* The file's bytes at off equal p's. */
static int
file_check(int fd, uint64_t off, const uint8_t *p, size_t len)
{
	static uint8_t got[IO_LEN];

	ROCE_TEST_ASSERT(len <= sizeof(got), "");
	ROCE_TEST_ASSERT_EQ(pread(fd, got, len, (off_t)off), (long long)len, "pread");
	ROCE_TEST_ASSERT(memcmp(got, p, len) == 0, "file contents at %lu", (unsigned long)off);
	return 0;
}

/* NSID 2 on a file through io_uring: Write, Read, in-capsule, Write Zeroes, DSM, Flush, range. */
static int
test_file_ns(void)
{
	static const uint8_t zero[8 * 512];
	char path[] = "/tmp/roce_nvmf_nsXXXXXX";
	struct nvmf_tgt_conf conf;
	static struct host_queue a, io;
	uint8_t sqe[64], cqe[16], icd[ICD_LEN];
	int fd = mkstemp(path);

	ROCE_TEST_ASSERT(fd >= 0, "mkstemp");
	ROCE_TEST_ASSERT_EQ(ftruncate(fd, 4 << 20), 0, "");
	host_tgt_conf(&conf);
	snprintf(conf.subsys[0].ns[1].path, sizeof(conf.subsys[0].ns[1].path), "%s", path);
	conf.subsys[0].ns[1].block_size = 512;
	conf.subsys[0].nb_ns = 2;
	if (io_open(&conf, &a, &io, 0) != 0) {
		unlink(path);
		close(fd);
		return -1;
	}
	unlink(path);	/* the target has it open */
	roce_test_fill(host_buf(&env, WR_OFF), IO_LEN, 21);
	rw_sqe_ns(&io, sqe, 0x01, 2, 8, IO_LEN / 512, WR_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Write");
	ROCE_TEST_ASSERT_EQ(file_check(fd, 8 * 512, host_buf(&env, WR_OFF), IO_LEN), 0, "");
	memset(host_buf(&env, RD_OFF), 0, IO_LEN);
	rw_sqe_ns(&io, sqe, 0x02, 2, 8, IO_LEN / 512, RD_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Read");
	ROCE_TEST_ASSERT(memcmp(host_buf(&env, RD_OFF), host_buf(&env, WR_OFF), IO_LEN) == 0, "");
	roce_test_fill(icd, sizeof(icd), 22);
	host_sqe(&io, sqe, 0x01, 2);
	host_sgl_icd(sqe, 0, sizeof(icd));
	put64(sqe + 40, 2000);
	put32(sqe + 48, sizeof(icd) / 512 - 1);
	ROCE_TEST_ASSERT_EQ(host_cmd(&io, sqe, icd, sizeof(icd), cqe, NULL, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "in-capsule Write");
	ROCE_TEST_ASSERT_EQ(file_check(fd, 2000 * 512, icd, sizeof(icd)), 0, "");
	host_sqe(&io, sqe, 0x08, 2);
	put64(sqe + 40, 8);
	put32(sqe + 48, 7);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Write Zeroes");
	ROCE_TEST_ASSERT_EQ(file_check(fd, 8 * 512, zero, sizeof(zero)), 0, "");
	memset(host_buf(&env, WR_OFF), 0, 32);
	put32(host_buf(&env, WR_OFF) + 4, 8);
	put64(host_buf(&env, WR_OFF) + 8, 16);
	put32(host_buf(&env, WR_OFF) + 16 + 4, 8);
	put64(host_buf(&env, WR_OFF) + 16 + 8, 32);
	host_sqe(&io, sqe, 0x09, 2);
	host_sgl_keyed(&io, sqe, WR_OFF, 32, false);
	put32(sqe + 40, 1);
	put32(sqe + 44, 0x4);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "DSM deallocate, two ranges");
	ROCE_TEST_ASSERT_EQ(file_check(fd, 16 * 512, zero, sizeof(zero)), 0, "");
	ROCE_TEST_ASSERT_EQ(file_check(fd, 32 * 512, zero, sizeof(zero)), 0, "");
	host_sqe(&io, sqe, 0x00, 2);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Flush");
	rw_sqe_ns(&io, sqe, 0x01, 2, NS_BLOCKS - 1, 2, WR_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x80, "across the end");
	ROCE_TEST_ASSERT(STAT(&env, file_ios) >= 7, "through io_uring");
	ROCE_TEST_ASSERT_EQ(STAT(&env, io_errors), 0, "");
	/* Writes in flight when the host goes: the queue is freed once they complete */
	for (unsigned int i = 0; i < 4; i++) {
		rw_sqe_ns(&io, sqe, 0x01, 2, 64 * i, 64, WR_OFF);
		ROCE_TEST_ASSERT_EQ(host_send(&io, sqe, NULL, 0, 64), 0, "");
	}
	ROCE_TEST_ASSERT_EQ(host_queue_close(&io), 0, "");
	HOST_PUMP_UNTIL(&env, STAT(&env, queues_freed) >= 1);
	ROCE_TEST_ASSERT_EQ(STAT(&env, queues_freed), 1, "the I/O queue");
	close(fd);
	ROCE_TEST_ASSERT_EQ(host_queue_close(&a), 0, "");
	return host_env_close(&env);
}

/* One data buffer for four Writes in flight: they wait in turn, all complete. */
static int
test_buffer_wait(void)
{
	struct nvmf_tgt_conf conf;
	static struct host_queue a, io;
	uint8_t sqe[64], cqe[16], *ns;
	uint64_t ns_size;
	unsigned int i;

	host_tgt_conf(&conf);
	conf.data_buffers = 1;
	ROCE_TEST_ASSERT_EQ(io_open(&conf, &a, &io, 0), 0, "");
	ns = nvmf_tgt_ns_data(env.tgt, HOST_SUBNQN, NSID, &ns_size);
	roce_test_fill(host_buf(&env, WR_OFF), 4 * 8192, 9);
	for (i = 0; i < 4; i++) {
		rw_sqe(&io, sqe, 0x01, 16 * i, 16, WR_OFF + 8192 * i);
		ROCE_TEST_ASSERT_EQ(host_send(&io, sqe, NULL, 0, 64), 0, "");
	}
	for (i = 0; i < 4; i++) {
		ROCE_TEST_ASSERT_EQ(host_wait_rsp(&io, cqe, NULL, NULL), 0, "");
		ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "Write %u", i);
	}
	ROCE_TEST_ASSERT(STAT(&env, buffer_waits) >= 1, "a request waited");
	for (i = 0; i < 4; i++)
		ROCE_TEST_ASSERT(memcmp(ns + 16 * 512 * i, host_buf(&env, WR_OFF + 8192 * i),
					8192) == 0, "Write %u", i);
	return io_close(&a, &io);
}

/* The admin queue goes: its controller's I/O queues go with it. */
static int
test_ctrl_teardown(void)
{
	static struct host_queue a, io;

	ROCE_TEST_ASSERT_EQ(io_open(NULL, &a, &io, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&a), 0, "");
	ROCE_TEST_ASSERT_EQ(host_queue_wait_disconnected(&io, HOST_WAIT_MS), 0, "");
	HOST_PUMP_UNTIL(&env, STAT(&env, queues_freed) >= 2);
	ROCE_TEST_ASSERT_EQ(STAT(&env, queues_freed), 2, "");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&io), 0, "");
	return host_env_close(&env);
}

/* Subsystems A (the tests' default), B (two namespaces, this host only), C (another host's). */
static void
subsys_conf(struct nvmf_tgt_conf *conf)
{
	struct nvmf_subsys_conf *b = &conf->subsys[1], *c = &conf->subsys[2];

	host_tgt_conf(conf);
	snprintf(b->nqn, sizeof(b->nqn), "%s", SUBNQN_B);
	b->ns[0].size = 1u << 20;
	b->ns[0].block_size = 512;
	b->ns[1].size = 2u << 20;
	b->ns[1].block_size = 4096;
	b->nb_ns = 2;
	snprintf(b->hosts[0], sizeof(b->hosts[0]), "%s", HOST_NQN);
	b->nb_hosts = 1;
	snprintf(c->nqn, sizeof(c->nqn), "%s", SUBNQN_C);
	c->ns[0].size = 1u << 20;
	c->ns[0].block_size = 512;
	c->nb_ns = 1;
	snprintf(c->hosts[0], sizeof(c->hosts[0]), "%s", OTHER_HOST);
	c->nb_hosts = 1;
	conf->nb_subsys = 3;
}

/* Configurations the target refuses at creation, each naming the subsystem (EINVAL). */
static int
subsys_conf_refused(void)
{
	static const char *const what[] = {
		"no subsystem", "too many subsystems", "the same NQN twice",
		"the discovery NQN", "a subsystem without a namespace",
	};
	static struct nvmf_tgt_conf bad;
	unsigned int i;

	for (i = 0; i < RTE_DIM(what); i++) {
		subsys_conf(&bad);
		if (i == 0)
			bad.nb_subsys = 0;
		else if (i == 1)
			bad.nb_subsys = NVMF_SUBSYS_MAX + 1;
		else if (i == 2)
			snprintf(bad.subsys[2].nqn, sizeof(bad.subsys[2].nqn), "%s", SUBNQN_B);
		else if (i == 3)
			snprintf(bad.subsys[1].nqn, sizeof(bad.subsys[1].nqn),
				 "nqn.2014-08.org.nvmexpress.discovery");
		else
			bad.subsys[1].nb_ns = 0;
		rte_errno = 0;
		ROCE_TEST_ASSERT(nvmf_tgt_create(env.e.s[1].ctx, env.cm[1], &bad) == NULL, "%s",
				 what[i]);
		ROCE_TEST_ASSERT_EQ(rte_errno, EINVAL, "%s", what[i]);
	}
	return 0;
}

/*
 * Several subsystems on one target (Base, "NVM Subsystem Entities"): each
 * its own NQN, namespaces and allowed hosts; the discovery log lists those
 * the host may use; I/O lands in the subsystem it names.
 */
static int
test_subsystems(void)
{
	static const char disc[] = "nqn.2014-08.org.nvmexpress.discovery";
	static struct nvmf_tgt_conf conf;
	static struct host_queue d, a, io, q;
	uint8_t sqe[64], cqe[16], *p, *nsa, *nsb;
	uint64_t size_a, size_b;

	subsys_conf(&conf);
	ROCE_TEST_ASSERT_EQ(host_env_open(&env, &conf), 0, "");
	ROCE_TEST_ASSERT_EQ(subsys_conf_refused(), 0, "");
	p = host_buf(&env, RD_OFF);
	/* the discovery log: A and B, not C (another host's) */
	ROCE_TEST_ASSERT_EQ(host_ctrl_up_to(&env, &d, disc, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(discovery_log(&d, p, 4096), 0, "");
	ROCE_TEST_ASSERT_EQ(p[8], 2, "NUMREC");
	ROCE_TEST_ASSERT(strcmp((const char *)p + 1024 + 256, HOST_SUBNQN) == 0, "entry 0: A");
	ROCE_TEST_ASSERT(strcmp((const char *)p + 2048 + 256, SUBNQN_B) == 0, "entry 1: B");
	ROCE_TEST_ASSERT(p[2048] == 1 && p[2048 + 2] == 2, "B: RDMA, NVM subsystem");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&d), 0, "");
	/* B: its two namespaces; a Write to its NSID 2 lands there and nowhere else */
	ROCE_TEST_ASSERT_EQ(host_ctrl_up_to(&env, &a, SUBNQN_B, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x01, 0, 0), 0, "Identify Controller");
	ROCE_TEST_ASSERT_EQ(p[516], 2, "NN");
	ROCE_TEST_ASSERT(strcmp((const char *)p + 768, SUBNQN_B) == 0, "SUBNQN");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x00, 2, 0), 0, "Identify Namespace 2");
	ROCE_TEST_ASSERT_EQ(p[0] | p[1] << 8, (2u << 20) / 4096, "NSZE");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x00, 3, 0), 0x0b, "no NSID 3 in B");
	ROCE_TEST_ASSERT_EQ(host_io_up_to(&env, &a, &io, 1, SUBNQN_B), 0, "");
	nsa = nvmf_tgt_ns_data(env.tgt, HOST_SUBNQN, 1, &size_a);
	nsb = nvmf_tgt_ns_data(env.tgt, SUBNQN_B, 2, &size_b);
	ROCE_TEST_ASSERT(nsa != NULL && nsb != NULL && size_b == 2u << 20, "namespaces");
	roce_test_fill(host_buf(&env, WR_OFF), 8192, 31);
	host_sqe(&io, sqe, 0x01, 2);
	host_sgl_keyed(&io, sqe, WR_OFF, 8192, false);
	put64(sqe + 40, 3);
	put32(sqe + 48, 1);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Write to B's NSID 2");
	ROCE_TEST_ASSERT(memcmp(nsb + 3 * 4096, host_buf(&env, WR_OFF), 8192) == 0, "in B");
	ROCE_TEST_ASSERT(memcmp(nsa + 3 * 4096, host_buf(&env, WR_OFF), 8192) != 0, "not in A");
	/* an I/O queue naming B's controller but A's NQN; C, whose host is another */
	{
		struct host_cm_req req = host_cm_req_default(2, 31, 0);

		ROCE_TEST_ASSERT_EQ(host_queue_connect(&env, &q, &req), 0, "");
		ROCE_TEST_ASSERT_EQ(host_fabrics_connect(&q, HOST_SUBNQN, HOST_NQN, a.cntlid, 0,
							 cqe), 0, "");
		ROCE_TEST_ASSERT_EQ(host_status(cqe), 0x182, "B's controller, A's NQN");
		ROCE_TEST_ASSERT_EQ(host_dw0(cqe), 16u | 1u << 16, "IPO: CNTLID");
		ROCE_TEST_ASSERT_EQ(host_queue_close(&q), 0, "");
		req = host_cm_req_default(0, 31, 0);
		ROCE_TEST_ASSERT_EQ(host_queue_connect(&env, &q, &req), 0, "");
		ROCE_TEST_ASSERT_EQ(host_fabrics_connect(&q, SUBNQN_C, HOST_NQN, 0xffff, 0, cqe), 0,
				    "");
		ROCE_TEST_ASSERT_EQ(host_status(cqe), 0x184, "C: host not allowed");
		ROCE_TEST_ASSERT_EQ(host_queue_close(&q), 0, "");
	}
	ROCE_TEST_ASSERT_EQ(STAT(&env, connect_refused), 2, "");
	return io_close(&a, &io);
}

/*
 * Identify CNS values past 03h (Base 2.0, "Identify command"): 05h and 06h
 * for the NVM command set (Linux asks 06h at every connect, 08h on newer
 * kernels), 07h, 08h (the namespace ready); others, another command set or
 * an inactive NSID refused. Identify Controller: CTRATT.TBKAS, OAES bit 8;
 * NMIC shared in 00h and 08h (Linux's second host needs it).
 */
static int
test_identify_cns(void)
{
	static const uint8_t zero[4096];
	static struct host_queue a;
	uint64_t invalid_field;
	uint8_t *d;

	ROCE_TEST_ASSERT_EQ(host_env_open(&env, NULL), 0, "");
	d = host_buf(&env, RD_OFF);
	ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, &a, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x01, 0, 0), 0, "Identify Controller");
	ROCE_TEST_ASSERT(d[96] & 0x40, "CTRATT: traffic based keep alive");
	ROCE_TEST_ASSERT(d[93] & 0x01, "OAES: namespace attribute notices");
	memset(d, 0xee, 4096);
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x06, 0, 0), 0, "CNS 06h, NVM");
	ROCE_TEST_ASSERT(memcmp(d, zero, 4096) == 0, "no NVM command set limit");
	memset(d, 0xee, 4096);
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x05, NSID, 0), 0, "CNS 05h, NVM");
	ROCE_TEST_ASSERT(memcmp(d, zero, 4096) == 0, "no PI, no storage tag");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x07, 0, 0), 0, "CNS 07h");
	ROCE_TEST_ASSERT(d[0] == 1 && d[4] == 0, "NSID 1 only");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x08, NSID, 0), 0, "CNS 08h");
	ROCE_TEST_ASSERT_EQ(d[13], 1, "NSTAT: ready");
	ROCE_TEST_ASSERT_EQ(d[1], 1, "NMIC: shared (several controllers)");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x00, NSID, 0), 0, "Identify Namespace");
	ROCE_TEST_ASSERT_EQ(d[30], 1, "NMIC: shared");
	invalid_field = STAT(&env, invalid_field);
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x06, 0, 2), 0x02, "CNS 06h, zoned: not here");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x05, NSID, 1), 0x02, "CNS 05h, key value");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x04, 0, 0), 0x02, "CNS 04h: NVM sets");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x1c, 0, 0), 0x02, "CNS 1Ch: command sets");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0xff, 0, 0), 0x02, "CNS FFh");
	ROCE_TEST_ASSERT_EQ(STAT(&env, invalid_field), invalid_field + 5, "counted");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x05, 9, 0), 0x0b, "CNS 05h, NSID 9");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x08, 0, 0), 0x0b, "CNS 08h, NSID 0");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x07, 0xfffffffe, 0), 0x0b, "CNS 07h from FFFFFFFEh");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&a), 0, "");
	return host_env_close(&env);
}

/* A temporary file of len bytes as NSID 2 of the default subsystem: its fd, -1 on failure. */
static int
file_ns_conf(struct nvmf_tgt_conf *conf, char *path, off_t len)
{
	int fd = mkstemp(path);

	if (fd < 0 || ftruncate(fd, len) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	host_tgt_conf(conf);
	snprintf(conf->subsys[0].ns[1].path, sizeof(conf->subsys[0].ns[1].path), "%s", path);
	conf->subsys[0].ns[1].block_size = 512;
	conf->subsys[0].nb_ns = 2;
	return fd;
}

/* The file grows by 1 MiB and the target rescans: one namespace changed. */
static int
grow(int fd, off_t *len)
{
	*len += 1 << 20;
	ROCE_TEST_ASSERT_EQ(ftruncate(fd, *len), 0, "");
	ROCE_TEST_ASSERT_EQ(nvmf_tgt_ns_rescan(env.tgt), 1, "rescan");
	return 0;
}

/* An Asynchronous Event Request sent, not answered yet. */
static int
aer_send(struct host_queue *a)
{
	uint8_t sqe[64];

	host_sqe(a, sqe, 0x0c, 0);
	return host_send(a, sqe, NULL, 0, 64);
}

/*
 * Base 2.0, "Asynchronous Event Request": held until an event; a namespace
 * that changed (its file grew) completes one with Notice / Namespace
 * Attribute Changed / log page 04h, only if the host enabled the notice
 * (Asynchronous Event Configuration bit 8), once until the host reads the
 * Changed Namespace List; more than AERL + 1 refused; a controller reset
 * aborts them; a torn down queue drops them.
 */
static int
test_aen(void)
{
	char path[] = "/tmp/roce_nvmf_aenXXXXXX";
	static struct nvmf_tgt_conf conf;
	off_t len = 2 << 20;
	static struct host_queue a;
	uint8_t sqe[64], cqe[16], *d;
	uint32_t dw0 = 0;
	unsigned int i, aborted = 0;
	int rc, fd = file_ns_conf(&conf, path, len);

	ROCE_TEST_ASSERT(fd >= 0, "temporary file");
	rc = host_env_open(&env, &conf);
	unlink(path);	/* the target has it open */
	ROCE_TEST_ASSERT_EQ(rc, 0, "");
	d = host_buf(&env, RD_OFF);
	ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, &a, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(features(&a, 0x09, 0x0b, 1u << 8, &dw0), 0, "AEC: notices");
	ROCE_TEST_ASSERT_EQ(aer_send(&a), 0, "");
	host_pump_ms(&env, 20);
	ROCE_TEST_ASSERT_EQ(nvmf_tgt_ns_rescan(env.tgt), 0, "nothing changed yet");
	ROCE_TEST_ASSERT_EQ(grow(fd, &len), 0, "");
	ROCE_TEST_ASSERT_EQ(host_wait_rsp(&a, cqe, NULL, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "AER");
	ROCE_TEST_ASSERT_EQ(host_dw0(cqe), AEN_NS_CHANGED, "");
	ROCE_TEST_ASSERT_EQ(identify(&a, 0x00, 2, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(d[0] | d[1] << 8 | d[2] << 16, (3u << 20) / 512, "NSZE grew");
	/* masked until the list is read: a second change completes nothing */
	ROCE_TEST_ASSERT_EQ(aer_send(&a), 0, "");
	ROCE_TEST_ASSERT_EQ(grow(fd, &len), 0, "");
	host_pump_ms(&env, 50);
	ROCE_TEST_ASSERT_EQ(STAT(&env, aens), 1, "masked");
	ROCE_TEST_ASSERT_EQ(get_log(&a, 0x04, 4096, true), 0, "list, RAE");
	ROCE_TEST_ASSERT(get32(d) == 2 && get32(d + 4) == 0, "NSID 2 changed");
	ROCE_TEST_ASSERT_EQ(grow(fd, &len), 0, "");
	host_pump_ms(&env, 50);
	ROCE_TEST_ASSERT_EQ(STAT(&env, aens), 1, "RAE kept it masked");
	ROCE_TEST_ASSERT_EQ(get_log(&a, 0x04, 4096, false), 0, "list, read and cleared");
	ROCE_TEST_ASSERT(get32(d) == 2 && get32(d + 4) == 0, "NSID 2 once");
	ROCE_TEST_ASSERT_EQ(get_log(&a, 0x04, 4096, false), 0, "");
	ROCE_TEST_ASSERT_EQ(get32(d), 0, "empty once read");
	ROCE_TEST_ASSERT_EQ(grow(fd, &len), 0, "");
	ROCE_TEST_ASSERT_EQ(host_wait_rsp(&a, cqe, NULL, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(host_dw0(cqe), AEN_NS_CHANGED, "unmasked by the read");
	ROCE_TEST_ASSERT_EQ(get_log(&a, 0x04, 4096, false), 0, "");
	/* the notice disabled: the list records, no event */
	ROCE_TEST_ASSERT_EQ(features(&a, 0x09, 0x0b, 0, &dw0), 0, "AEC: none");
	ROCE_TEST_ASSERT_EQ(aer_send(&a), 0, "");
	ROCE_TEST_ASSERT_EQ(grow(fd, &len), 0, "");
	host_pump_ms(&env, 50);
	ROCE_TEST_ASSERT_EQ(STAT(&env, aens), 2, "not enabled");
	ROCE_TEST_ASSERT_EQ(get_log(&a, 0x04, 4096, false), 0, "");
	ROCE_TEST_ASSERT_EQ(get32(d), 2, "recorded all the same");
	/* four held (AERL 3), the fifth refused */
	for (i = 0; i < 3; i++)
		ROCE_TEST_ASSERT_EQ(aer_send(&a), 0, "");
	ROCE_TEST_ASSERT_EQ(aer_send(&a), 0, "");
	ROCE_TEST_ASSERT_EQ(host_wait_rsp(&a, cqe, NULL, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0x105, "AER Limit Exceeded");
	/* CC.EN 1 to 0 (Property Set): the four aborted, the Property Set answered */
	host_sqe(&a, sqe, 0x7f, 0);
	put32(sqe + 44, 0x14);
	put32(sqe + 48, 6u << 16 | 4u << 20);
	ROCE_TEST_ASSERT_EQ(host_send(&a, sqe, NULL, 0, 64), 0, "");
	for (i = 0; i < 5; i++) {
		ROCE_TEST_ASSERT_EQ(host_wait_rsp(&a, cqe, NULL, NULL), 0, "");
		if (memcmp(cqe + 12, sqe + 2, 2) == 0)
			ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "CC.EN 0");
		else
			aborted += host_status(cqe) == 0x07;
	}
	ROCE_TEST_ASSERT_EQ(aborted, 4, "Command Abort Requested");
	ROCE_TEST_ASSERT_EQ(STAT(&env, aers_aborted), 4, "");
	/* enabled again, one held, the admin queue torn down: dropped, freed */
	ROCE_TEST_ASSERT_EQ(host_prop_set(&a, 0x14, 1u | 6u << 16 | 4u << 20, cqe), 0, "");
	ROCE_TEST_ASSERT_EQ(aer_send(&a), 0, "");
	host_pump_ms(&env, 20);
	ROCE_TEST_ASSERT_EQ(host_queue_close(&a), 0, "");
	HOST_PUMP_UNTIL(&env, STAT(&env, queues_freed) >= 1);
	ROCE_TEST_ASSERT_EQ(STAT(&env, queues_freed), 1, "");
	close(fd);
	return host_env_close(&env);
}

/*
 * A namespace whose backing file fails (NVM Command Set, "Media and Data
 * Integrity Errors"): a Read of what is no longer there answers
 * Unrecovered Read Error, a Write the file may not take Write Fault; both
 * counted, nothing sent to the host's buffer, no command left hanging.
 */
static int
test_media_error(void)
{
	char path[] = "/tmp/roce_nvmf_mediaXXXXXX";
	static struct nvmf_tgt_conf conf;
	struct rlimit old, lim;
	static struct host_queue a, io;
	uint8_t sqe[64], cid[4], *rd;
	unsigned int i;
	int rc, fd = file_ns_conf(&conf, path, 4 << 20);

	ROCE_TEST_ASSERT(fd >= 0, "temporary file");
	rc = io_open(&conf, &a, &io, 0);
	unlink(path);
	ROCE_TEST_ASSERT_EQ(rc, 0, "");
	rd = host_buf(&env, RD_OFF);
	ROCE_TEST_ASSERT_EQ(ftruncate(fd, 0), 0, "the file shrinks under the namespace");
	memset(rd, 0xa5, 8 * 512);
	rw_sqe_ns(&io, sqe, 0x02, 2, 16, 8, RD_OFF);
	memcpy(cid, sqe + 2, 2);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0x281, "Unrecovered Read Error");
	for (i = 0; i < 8 * 512; i++)
		ROCE_TEST_ASSERT_EQ(rd[i], 0xa5, "nothing written to the host, byte %u", i);
	ROCE_TEST_ASSERT_EQ(STAT(&env, io_errors), 1, "");
	/* a file size limit (EFBIG) under a Write */
	ROCE_TEST_ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0, "");
	lim = old;
	lim.rlim_cur = 1 << 20;
	ROCE_TEST_ASSERT(signal(SIGXFSZ, SIG_IGN) != SIG_ERR, "");
	ROCE_TEST_ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0, "");
	roce_test_fill(host_buf(&env, WR_OFF), 8 * 512, 41);
	rw_sqe_ns(&io, sqe, 0x01, 2, 4096, 8, WR_OFF);
	memcpy(cid + 2, sqe + 2, 2);
	i = (unsigned int)cmd_status(&io, sqe);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	ROCE_TEST_ASSERT_EQ(i, 0x280, "Write Fault");
	ROCE_TEST_ASSERT_EQ(STAT(&env, io_errors), 2, "");
	/* the Error Information log, newest first; SMART's two error counters */
	ROCE_TEST_ASSERT_EQ(get_log(&a, 0x01, 1024, false), 0, "error log");
	ROCE_TEST_ASSERT(get32(rd) == 2 && get32(rd + 64) == 1 && get32(rd + 128) == 0, "count");
	ROCE_TEST_ASSERT(memcmp(rd + 10, cid + 2, 2) == 0 && memcmp(rd + 64 + 10, cid, 2) == 0,
			 "CIDs");
	ROCE_TEST_ASSERT((rd[8] | rd[9] << 8) == 1 && rd[24] == 2 && rd[29] == 1,
			 "SQID 1, NSID 2, TRTYPE RDMA");
	ROCE_TEST_ASSERT_EQ((get32(rd + 12) & 0xffff) >> 1 & 0x7ff, 0x280, "status: Write Fault");
	ROCE_TEST_ASSERT_EQ((get32(rd + 64 + 12) & 0xffff) >> 1 & 0x7ff, 0x281, "Read Error");
	ROCE_TEST_ASSERT(get32(rd + 16) == 4096 && get32(rd + 64 + 16) == 16, "LBAs");
	ROCE_TEST_ASSERT_EQ(get_log(&a, 0x02, 512, false), 0, "SMART");
	ROCE_TEST_ASSERT(get32(rd + 160) == 2 && get32(rd + 176) == 2, "media errors, entries");
	/* the file takes a Write again: it reads back */
	rw_sqe_ns(&io, sqe, 0x01, 2, 16, 8, WR_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Write");
	rw_sqe_ns(&io, sqe, 0x02, 2, 16, 8, RD_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Read");
	ROCE_TEST_ASSERT(memcmp(rd, host_buf(&env, WR_OFF), 8 * 512) == 0, "read back");
	close(fd);
	return io_close(&a, &io);
}

/* The target listening on IPv6: the discovery log says so; I/O as over IPv4. */
static int
test_ipv6(void)
{
	static const char disc[] = "nqn.2014-08.org.nvmexpress.discovery";
	static struct nvmf_tgt_conf conf;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&conf.listen[0];
	static struct host_queue d, a, io;
	uint8_t sqe[64], *e;

	host_tgt_conf(&conf);
	memset(&conf.listen[0], 0, sizeof(conf.listen[0]));
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(HOST_PORT);
	inet_pton(AF_INET6, ROCE_TEST_ADDR6_B, &s6->sin6_addr);
	ROCE_TEST_ASSERT_EQ(host_env_open(&env, &conf), 0, "");
	e = host_buf(&env, RD_OFF) + 1024;
	ROCE_TEST_ASSERT_EQ(host_ctrl_up_to(&env, &d, disc, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(discovery_log(&d, host_buf(&env, RD_OFF), 2048), 0, "");
	ROCE_TEST_ASSERT_EQ(e[1], 2, "ADRFAM: IPv6");
	ROCE_TEST_ASSERT(memcmp(e + 512, ROCE_TEST_ADDR6_B " ", strlen(ROCE_TEST_ADDR6_B) + 1) == 0,
			 "TRADDR");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&d), 0, "");
	ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, &a, 0), 0, "");
	ROCE_TEST_ASSERT_EQ(host_io_up(&env, &a, &io, 1), 0, "");
	roce_test_fill(host_buf(&env, WR_OFF), IO_LEN, 51);
	rw_sqe(&io, sqe, 0x01, 64, IO_LEN / 512, WR_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Write over IPv6");
	memset(host_buf(&env, RD_OFF), 0, IO_LEN);
	rw_sqe(&io, sqe, 0x02, 64, IO_LEN / 512, RD_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Read over IPv6");
	ROCE_TEST_ASSERT(memcmp(host_buf(&env, RD_OFF), host_buf(&env, WR_OFF), IO_LEN) == 0, "");
	return io_close(&a, &io);
}

/* The environment's target replaced by one made with conf (0, or -1 after saying why). */
static int
tgt_replace(const struct nvmf_tgt_conf *conf)
{
	nvmf_tgt_stop(env.tgt);
	ROCE_TEST_ASSERT_EQ(nvmf_tgt_destroy(env.tgt), 0, "");
	env.tgt = nvmf_tgt_create(env.e.s[1].ctx, env.cm[1], conf);
	ROCE_TEST_ASSERT(env.tgt != NULL, "target: %s", rte_strerror(rte_errno));
	return 0;
}

/* Each side's port gets its IPv6 address too (fd00::1, fd00::2). */
static int
ports_add_ipv6(void)
{
	static const char *const addr[2] = { ROCE_TEST_ADDR6_A, ROCE_TEST_ADDR6_B };
	union rte_roce_gid gid;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		ROCE_TEST_ASSERT_EQ(rte_roce_gid_parse(addr[i], &gid), 0, "");
		ROCE_TEST_ASSERT_EQ(rte_roce_port_addr_add(env.e.s[i].port, &gid, 64), 0, "");
	}
	return 0;
}

/* A listen configuration refused at creation: errno err, the log naming what. */
static int
listen_refused(const struct nvmf_tgt_conf *bad, int err, const char *what)
{
	size_t pos;

	ROCE_TEST_ASSERT_EQ(roce_test_log_capture(), 0, "");
	pos = roce_test_log_pos();
	rte_errno = 0;
	ROCE_TEST_ASSERT(nvmf_tgt_create(env.e.s[1].ctx, env.cm[1], bad) == NULL, "%s", what);
	ROCE_TEST_ASSERT_EQ(rte_errno, err, "%s", what);
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, what), "the log names %s", what);
	roce_test_log_release();
	return 0;
}

/*
 * IPv4 and IPv6 at once: two listeners on port 4420. Discovery through
 * each lists the subsystem at the address it came through; a controller
 * over IPv4 writes, one over IPv6 reads it back from the same namespace.
 * Listen configurations that cannot work are refused, named.
 */
static int
test_listen_dual(void)
{
	static const char disc[] = "nqn.2014-08.org.nvmexpress.discovery";
	static const char *const traddr[2] = { ROCE_TEST_ADDR_B " ", ROCE_TEST_ADDR6_B " " };
	static struct nvmf_tgt_conf conf, bad;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&conf.listen[1];
	static struct host_queue d, a[2], io[2];
	uint8_t sqe[64], *e;
	unsigned int k;

	ROCE_TEST_ASSERT_EQ(host_env_open(&env, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(ports_add_ipv6(), 0, "");
	host_tgt_conf(&conf);
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(HOST_PORT);
	inet_pton(AF_INET6, ROCE_TEST_ADDR6_B, &s6->sin6_addr);
	conf.nb_listen = 2;
	ROCE_TEST_ASSERT_EQ(tgt_replace(&conf), 0, "");
	e = host_buf(&env, RD_OFF) + 1024;
	for (k = 0; k < 2; k++) {
		env.ipv6 = k == 1;
		ROCE_TEST_ASSERT_EQ(host_ctrl_up_to(&env, &d, disc, 0), 0, "");
		ROCE_TEST_ASSERT_EQ(discovery_log(&d, host_buf(&env, RD_OFF), 2048), 0, "");
		ROCE_TEST_ASSERT_EQ(host_buf(&env, RD_OFF)[8], 1, "NUMREC");
		ROCE_TEST_ASSERT_EQ(e[1], k + 1, "ADRFAM: IPv%s", k == 0 ? "4" : "6");
		ROCE_TEST_ASSERT(memcmp(e + 512, traddr[k], strlen(traddr[k])) == 0, "TRADDR");
		ROCE_TEST_ASSERT_EQ(host_queue_close(&d), 0, "");
	}
	for (k = 0; k < 2; k++) {
		env.ipv6 = k == 1;
		ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, &a[k], 0), 0, "controller over IPv%u", 4 + 2 * k);
		ROCE_TEST_ASSERT_EQ(host_io_up(&env, &a[k], &io[k], 1), 0, "");
	}
	roce_test_fill(host_buf(&env, WR_OFF), IO_LEN, 61);
	rw_sqe(&io[0], sqe, 0x01, 200, IO_LEN / 512, WR_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io[0], sqe), 0, "Write over IPv4");
	memset(host_buf(&env, RD_OFF), 0, IO_LEN);
	rw_sqe(&io[1], sqe, 0x02, 200, IO_LEN / 512, RD_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io[1], sqe), 0, "Read over IPv6");
	ROCE_TEST_ASSERT(memcmp(host_buf(&env, RD_OFF), host_buf(&env, WR_OFF), IO_LEN) == 0,
			 "the same namespace");
	ROCE_TEST_ASSERT_EQ(STAT(&env, queues_live), 6, "");
	/* refused: no address, five, one twice, one the port lacks, not IP (port 4421: free) */
	bad = conf;
	((struct sockaddr_in *)&bad.listen[0])->sin_port = htons(HOST_PORT + 1);
	s6 = (struct sockaddr_in6 *)&bad.listen[1];
	s6->sin6_port = htons(HOST_PORT + 1);
	bad.nb_listen = 0;
	ROCE_TEST_ASSERT_EQ(listen_refused(&bad, EINVAL, "nb_listen 0"), 0, "");
	bad.nb_listen = NVMF_LISTEN_MAX + 1;
	ROCE_TEST_ASSERT_EQ(listen_refused(&bad, EINVAL, "nb_listen 5"), 0, "");
	bad.nb_listen = 2;
	bad.listen[1] = bad.listen[0];
	ROCE_TEST_ASSERT_EQ(listen_refused(&bad, EADDRINUSE, "listen[1]"), 0, "");
	inet_pton(AF_INET, "10.0.0.9", &((struct sockaddr_in *)&bad.listen[1])->sin_addr);
	ROCE_TEST_ASSERT_EQ(listen_refused(&bad, EADDRNOTAVAIL, "listen[1]"), 0, "");
	bad.listen[1].ss_family = AF_UNSPEC;
	ROCE_TEST_ASSERT_EQ(listen_refused(&bad, EINVAL, "listen[1]: not an IPv4"), 0, "");
	for (k = 0; k < 2; k++) {
		ROCE_TEST_ASSERT_EQ(host_queue_close(&io[k]), 0, "");
		ROCE_TEST_ASSERT_EQ(host_queue_close(&a[k]), 0, "");
	}
	return host_env_close(&env);
}

/* Connect I/O queue qid of admin's controller with sqsize (0's based), as Linux sizes it. */
static int
io_up_sized(struct host_queue *a, struct host_queue *io, uint16_t qid, uint16_t sqsize)
{
	struct host_cm_req req = host_cm_req_default(qid, sqsize, a->cntlid);
	uint8_t cqe[16];

	ROCE_TEST_ASSERT_EQ(host_queue_connect(&env, io, &req), 0, "I/O queue %u", qid);
	ROCE_TEST_ASSERT_EQ(host_fabrics_connect(io, HOST_SUBNQN, HOST_NQN, a->cntlid, 0, cqe), 0,
			    "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "I/O Connect %u", qid);
	return 0;
}

/* An in-capsule Write of len bytes (seed) at slba, sent without waiting. */
static int
icd_write_send(struct host_queue *q, uint64_t slba, uint32_t len, int seed)
{
	uint8_t sqe[64], icd[ICD_LEN];

	roce_test_fill(icd, len, seed);
	host_sqe(q, sqe, 0x01, NSID);
	host_sgl_icd(sqe, 0, len);
	put64(sqe + 40, slba);
	put32(sqe + 48, len / 512 - 1);
	return host_send(q, sqe, icd, len, 64 + len);
}

/* Whether the namespace holds at slba what icd_write_send(seed) wrote. */
static bool
icd_written(const uint8_t *ns, uint64_t slba, uint32_t len, int seed)
{
	uint8_t want[ICD_LEN];

	roce_test_fill(want, len, seed);
	return memcmp(ns + slba * 512, want, len) == 0;
}

#define MANY_CTRLS	6
#define MANY_QUEUES	(MANY_CTRLS * 8)	/* eight I/O queues each: 48 QPs on one SRQ */
#define MANY_SRQ	32

/*
 * Many connections on one SRQ (doc/nvmf.md, "A shared receive queue"):
 * six controllers of eight I/O queues, 48 QPs taking capsules from 32
 * buffers; on every queue a keyed Write and an in-capsule Write in flight
 * at once (96 capsules), then the data read back by each queue.
 */
static int
test_srq_many(void)
{
	static struct host_queue a[MANY_CTRLS], io[MANY_QUEUES];
	struct nvmf_tgt_conf conf;
	uint8_t sqe[64], cqe[16], *ns;
	uint64_t ns_size;
	unsigned int k;

	host_tgt_conf(&conf);
	conf.srq_depth = MANY_SRQ;
	ROCE_TEST_ASSERT_EQ(host_env_open(&env, &conf), 0, "");
	ns = nvmf_tgt_ns_data(env.tgt, HOST_SUBNQN, NSID, &ns_size);
	for (k = 0; k < MANY_CTRLS; k++)
		ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, &a[k], 0), 0, "controller %u", k);
	for (k = 0; k < MANY_QUEUES; k++)
		ROCE_TEST_ASSERT_EQ(io_up_sized(&a[k / 8], &io[k], k % 8 + 1, 31), 0, "");
	/* queue k owns LBAs 16k .. 16k + 15: 4 KiB keyed, then 4 KiB in the capsule */
	roce_test_fill(host_buf(&env, WR_OFF), MANY_QUEUES * 4096, 71);
	for (k = 0; k < MANY_QUEUES; k++) {
		rw_sqe(&io[k], sqe, 0x01, 16 * k, 8, WR_OFF + 4096 * k);
		ROCE_TEST_ASSERT_EQ(host_send(&io[k], sqe, NULL, 0, 64), 0, "");
		ROCE_TEST_ASSERT_EQ(icd_write_send(&io[k], 16 * k + 8, 4096, 100 + (int)k), 0, "");
	}
	for (k = 0; k < 2 * MANY_QUEUES; k++) {
		ROCE_TEST_ASSERT_EQ(host_wait_rsp(&io[k / 2], cqe, NULL, NULL), 0, "");
		ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "queue %u", k / 2);
	}
	for (k = 0; k < MANY_QUEUES; k++) {
		ROCE_TEST_ASSERT(memcmp(ns + 16 * 512 * k, host_buf(&env, WR_OFF + 4096 * k),
					4096) == 0, "keyed Write of queue %u", k);
		ROCE_TEST_ASSERT(icd_written(ns, 16 * k + 8, 4096, 100 + (int)k),
				 "in-capsule Write of queue %u", k);
	}
	/* each queue reads its 8 KiB back */
	memset(host_buf(&env, RD_OFF), 0, MANY_QUEUES * 8192);
	for (k = 0; k < MANY_QUEUES; k++) {
		rw_sqe(&io[k], sqe, 0x02, 16 * k, 16, RD_OFF + 8192 * k);
		ROCE_TEST_ASSERT_EQ(host_send(&io[k], sqe, NULL, 0, 64), 0, "");
	}
	for (k = 0; k < MANY_QUEUES; k++) {
		ROCE_TEST_ASSERT_EQ(host_wait_rsp(&io[k], cqe, NULL, NULL), 0, "");
		ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "Read of queue %u", k);
		ROCE_TEST_ASSERT(memcmp(host_buf(&env, RD_OFF + 8192 * k), ns + 16 * 512 * k,
					8192) == 0, "read back by queue %u", k);
	}
	ROCE_TEST_ASSERT_EQ(STAT(&env, in_capsule), MANY_QUEUES, "");
	ROCE_TEST_ASSERT_EQ(STAT(&env, errors), 0, "");
	ROCE_TEST_ASSERT_EQ(STAT(&env, queues_live), MANY_CTRLS + MANY_QUEUES, "");
	for (k = 0; k < MANY_QUEUES; k++)
		ROCE_TEST_ASSERT_EQ(host_queue_close(&io[k]), 0, "");
	for (k = 0; k < MANY_CTRLS; k++)
		ROCE_TEST_ASSERT_EQ(host_queue_close(&a[k]), 0, "");
	HOST_PUMP_UNTIL(&env, STAT(&env, queues_freed) >= MANY_CTRLS + MANY_QUEUES);
	ROCE_TEST_ASSERT_EQ(STAT(&env, queues_freed), MANY_CTRLS + MANY_QUEUES, "");
	ROCE_TEST_ASSERT_EQ(STAT(&env, srq_stale), 0, "");
	return host_env_close(&env);
}

#define RNR_SRQ		16	/* limit event below 2 */
#define RNR_PER_QUEUE	12	/* two queues: 24 capsules for 16 buffers */
#define RNR_WAIT_MS	10000	/* for the first RNR NAK: generous, on a loaded machine */

static uint64_t
dev_stat(unsigned int side, size_t off)
{
	struct rte_roce_stats st;

	if (rte_roce_stats_get(env.e.s[side].ctx, &st) != 0)
		return 0;
	return *(const uint64_t *)((const uint8_t *)&st + off);
}

/*
 * The SRQ runs dry: with the target not polling, 24 capsules meet 16
 * buffers; the rest get RNR NAKs (IBA 9.7.5.2.8) and the hosts retry (RNR
 * retry 7: for ever) until the target, polled again, has posted its
 * buffers back: every command completes, its data in the namespace, none
 * lost. The limit event fires once per shortage (srq_low); twice over.
 */
static int
test_srq_rnr(void)
{
	struct nvmf_tgt_conf conf;
	static struct host_queue a, io[2];
	uint64_t rnr_sent, rnr_rcvd, ns_size, end;
	uint8_t cqe[16], *ns;
	unsigned int round, k;

	host_tgt_conf(&conf);
	conf.srq_depth = RNR_SRQ;
	ROCE_TEST_ASSERT_EQ(host_env_open(&env, &conf), 0, "");
	ns = nvmf_tgt_ns_data(env.tgt, HOST_SUBNQN, NSID, &ns_size);
	ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, &a, 0), 0, "");
	for (k = 0; k < 2; k++)
		ROCE_TEST_ASSERT_EQ(io_up_sized(&a, &io[k], k + 1, 31), 0, "");
	for (round = 0; round < 2; round++) {
		rnr_sent = dev_stat(1, offsetof(struct rte_roce_stats, send_rnr_err));
		rnr_rcvd = dev_stat(0, offsetof(struct rte_roce_stats, rcvd_rnr_err));
		end = roce_test_ms() + RNR_WAIT_MS;
		for (k = 0; k < 2 * RNR_PER_QUEUE; k++)
			ROCE_TEST_ASSERT_EQ(icd_write_send(&io[k % 2], 8 * k, 1024,
							   (int)(round * 100 + k)), 0, "");
		/* the wire and both devices run, the target takes nothing: until RNR NAKs come */
		while (dev_stat(0, offsetof(struct rte_roce_stats, rcvd_rnr_err)) == rnr_rcvd &&
		       roce_test_ms() < end)
			roce_test_pump_env(&env.e);
		ROCE_TEST_ASSERT(dev_stat(1, offsetof(struct rte_roce_stats, send_rnr_err)) >
				 rnr_sent, "round %u: the target's device sent RNR NAKs", round);
		ROCE_TEST_ASSERT(dev_stat(0, offsetof(struct rte_roce_stats, rcvd_rnr_err)) >
				 rnr_rcvd, "round %u: the host got them", round);
		for (k = 0; k < 2 * RNR_PER_QUEUE; k++) {
			ROCE_TEST_ASSERT_EQ(host_wait_rsp(&io[k % 2], cqe, NULL, NULL), 0,
					    "round %u, command %u", round, k);
			ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "");
		}
		for (k = 0; k < 2 * RNR_PER_QUEUE; k++)
			ROCE_TEST_ASSERT(icd_written(ns, 8 * k, 1024, (int)(round * 100 + k)),
					 "round %u: command %u's data", round, k);
		/* the target reads asynchronous events every millisecond */
		end = roce_test_ms() + RNR_WAIT_MS;
		while (STAT(&env, srq_low) < round + 1 && roce_test_ms() < end)
			host_pump(&env);
		ROCE_TEST_ASSERT(STAT(&env, srq_low) >= round + 1, "round %u: limit event", round);
	}
	ROCE_TEST_ASSERT_EQ(STAT(&env, capsules), 3 + 2 + 2 * 2 * RNR_PER_QUEUE, "none lost");
	ROCE_TEST_ASSERT_EQ(STAT(&env, errors), 0, "");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&io[0]), 0, "");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&io[1]), 0, "");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&a), 0, "");
	return host_env_close(&env);
}

/* srq_depth above what the device's SRQ takes: refused at creation, the knob named. */
static int
test_srq_refused(void)
{
	struct nvmf_tgt_conf conf;
	struct ibv_device_attr attr;
	size_t pos;

	host_tgt_conf(&conf);
	ROCE_TEST_ASSERT_EQ(host_env_open(&env, &conf), 0, "");
	ROCE_TEST_ASSERT_EQ(rte_roce_query_device(env.e.s[1].ctx, &attr), 0, "");
	conf.srq_depth = (uint32_t)attr.max_srq_wr + 1;
	ROCE_TEST_ASSERT_EQ(roce_test_log_capture(), 0, "");
	pos = roce_test_log_pos();
	rte_errno = 0;
	ROCE_TEST_ASSERT(nvmf_tgt_create(env.e.s[1].ctx, env.cm[1], &conf) == NULL, "");
	ROCE_TEST_ASSERT_EQ(rte_errno, EINVAL, "");
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "srq_depth"), "the log names srq_depth");
	ROCE_TEST_ASSERT(roce_test_logged_since(pos, "max_srq_wr"), "and the device's limit");
	roce_test_log_release();
	return host_env_close(&env);
}

/*
 * Hostile capsules on SRQ queues (two buffers of 64 + 4096 bytes): under
 * 64 bytes, and larger than a buffer. Each tears its queue down, counted;
 * its buffer goes back to the SRQ: after four of them a Write and a Read
 * still find buffers.
 */
static int
test_srq_hostile(void)
{
	struct nvmf_tgt_conf conf;
	static struct host_queue a, io;
	uint8_t sqe[64], cqe[16], icd[4096 + 16] = { 0 }, *ns;
	uint64_t ns_size;
	uint16_t qid;

	host_tgt_conf(&conf);
	conf.srq_depth = 2;
	conf.in_capsule_data = 4096;
	ROCE_TEST_ASSERT_EQ(host_env_open(&env, &conf), 0, "");
	ns = nvmf_tgt_ns_data(env.tgt, HOST_SUBNQN, NSID, &ns_size);
	ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, &a, 0), 0, "");
	for (qid = 1; qid <= 4; qid++) {
		ROCE_TEST_ASSERT_EQ(io_up_sized(&a, &io, qid, 31), 0, "");
		host_sqe(&io, sqe, 0x01, NSID);
		if (qid % 2)
			ROCE_TEST_ASSERT_EQ(host_send(&io, sqe, NULL, 0, 32), 0, "");
		else
			ROCE_TEST_ASSERT_EQ(host_send(&io, sqe, icd, sizeof(icd), 64 + sizeof(icd)),
					    0, "");
		ROCE_TEST_ASSERT_EQ(host_queue_wait_disconnected(&io, HOST_WAIT_MS), 0, "queue %u", qid);
		ROCE_TEST_ASSERT_EQ(host_queue_close(&io), 0, "");
	}
	HOST_PUMP_UNTIL(&env, STAT(&env, capsule_short) >= 2 && STAT(&env, wc_errors) >= 2 &&
			      STAT(&env, qp_fatal) >= 2);
	ROCE_TEST_ASSERT_EQ(STAT(&env, capsule_short), 2, "");
	ROCE_TEST_ASSERT_EQ(STAT(&env, wc_errors), 2, "receives longer than the buffer");
	ROCE_TEST_ASSERT_EQ(STAT(&env, qp_fatal), 2, "the device moved those QPs to ERR");
	ROCE_TEST_ASSERT_EQ(STAT(&env, queues_freed), 4, "");
	ROCE_TEST_ASSERT_EQ(io_up_sized(&a, &io, 5, 31), 0, "");
	ROCE_TEST_ASSERT_EQ(icd_write_send(&io, 40, 4096, 77), 0, "");
	ROCE_TEST_ASSERT_EQ(host_wait_rsp(&io, cqe, NULL, NULL), 0, "");
	ROCE_TEST_ASSERT_EQ(host_status(cqe), 0, "in-capsule Write after the hostile ones");
	ROCE_TEST_ASSERT(icd_written(ns, 40, 4096, 77), "");
	rw_sqe(&io, sqe, 0x02, 40, 8, RD_OFF);
	ROCE_TEST_ASSERT_EQ(cmd_status(&io, sqe), 0, "Read");
	ROCE_TEST_ASSERT(memcmp(host_buf(&env, RD_OFF), ns + 40 * 512, 4096) == 0, "");
	ROCE_TEST_ASSERT_EQ(STAT(&env, srq_stale), 0, "");
	return io_close(&a, &io);
}

#define MEM_QUEUES	8
#define MEM_SQSIZE	127	/* Linux's default I/O queue: 128 entries */
#define MEM_SRQ		256

/*
 * What an I/O queue costs the target, with and without the SRQ: the
 * target's allocations (EAL heap and malloc) while it accepts eight I/O
 * queues of 128 entries, per queue; and what creating the target with the
 * SRQ costs more than without (the SRQ's buffers).
 * Printed for doc/nvmf.md; the SRQ must save at least a queue's capsule
 * buffers.
 */
static int
queue_cost(uint32_t srq_depth, int64_t *per_queue, int64_t *srq_cost)
{
	static struct host_queue a, io[MEM_QUEUES];
	struct nvmf_tgt_conf conf;
	unsigned int k;

	host_tgt_conf(&conf);
	conf.srq_depth = srq_depth;
	ROCE_TEST_ASSERT_EQ(host_env_open(&env, NULL), 0, "");
	/* the target without an SRQ replaced by this one */
	*srq_cost = -host_heap_bytes();
	ROCE_TEST_ASSERT_EQ(tgt_replace(&conf), 0, "");
	*srq_cost += host_heap_bytes();
	ROCE_TEST_ASSERT_EQ(host_ctrl_up(&env, &a, 0), 0, "");
	env.measure = true;
	env.tgt_heap = 0;
	for (k = 0; k < MEM_QUEUES; k++)
		ROCE_TEST_ASSERT_EQ(io_up_sized(&a, &io[k], k + 1, MEM_SQSIZE), 0, "");
	env.measure = false;
	*per_queue = env.tgt_heap / MEM_QUEUES;
	for (k = 0; k < MEM_QUEUES; k++)
		ROCE_TEST_ASSERT_EQ(host_queue_close(&io[k]), 0, "");
	ROCE_TEST_ASSERT_EQ(host_queue_close(&a), 0, "");
	return host_env_close(&env);
}

static int
test_srq_memory(void)
{
	int64_t own, shared, none, srq_cost;

	ROCE_TEST_ASSERT_EQ(queue_cost(0, &own, &none), 0, "");
	ROCE_TEST_ASSERT_EQ(queue_cost(MEM_SRQ, &shared, &srq_cost), 0, "");
	printf("# target memory per I/O queue of %u entries, in-capsule 8192: own receive "
	       "buffers %" PRId64 " bytes, on an SRQ %" PRId64 " bytes\n", MEM_SQSIZE + 1, own,
	       shared);
	printf("# the SRQ of %u buffers: %" PRId64 " bytes once, at the target's creation\n",
	       MEM_SRQ, srq_cost);
	ROCE_TEST_ASSERT(own - shared >= (int64_t)(MEM_SQSIZE + 1) * (64 + 8192),
			 "the SRQ saves a queue's capsule buffers");
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "nvmf_cm_accept", test_cm_accept },
	{ "nvmf_cm_reject", test_cm_reject },
	{ "nvmf_admin", test_admin },
	{ "nvmf_io", test_io },
	{ "nvmf_discovery", test_discovery },
	{ "nvmf_send_invalidate", test_send_invalidate },
	{ "nvmf_bad_sgl", test_bad_sgl },
	{ "nvmf_bad_cmds", test_bad_cmds },
	{ "nvmf_bad_connect", test_bad_connect },
	{ "nvmf_sgl_beyond_mr", test_sgl_beyond_mr },
	{ "nvmf_short_capsule", test_short_capsule },
	{ "nvmf_capsule_too_large", test_capsule_too_large },
	{ "nvmf_keep_alive_expiry", test_keep_alive_expiry },
	{ "nvmf_buffer_wait", test_buffer_wait },
	{ "nvmf_file_ns", test_file_ns },
	{ "nvmf_ctrl_teardown", test_ctrl_teardown },
	{ "nvmf_subsystems", test_subsystems },
	{ "nvmf_identify_cns", test_identify_cns },
	{ "nvmf_aen", test_aen },
	{ "nvmf_media_error", test_media_error },
	{ "nvmf_ipv6", test_ipv6 },
	{ "nvmf_listen_dual", test_listen_dual },
	/* the SRQ's own cases, which choose their SRQ: not run again by --srq-depth */
	{ "nvmf_srq_many", test_srq_many },
	{ "nvmf_srq_rnr", test_srq_rnr },
	{ "nvmf_srq_refused", test_srq_refused },
	{ "nvmf_srq_hostile", test_srq_hostile },
	{ "nvmf_srq_memory", test_srq_memory },
};
#define SRQ_CASES	5

/* test_func_nvmf [--srq-depth N]: every case but the SRQ's own with an SRQ of N buffers. */
int
main(int argc, char **argv)
{
	unsigned int n = RTE_DIM(cases);

	if (argc == 3 && strcmp(argv[1], "--srq-depth") == 0) {
		host_srq_depth = (uint32_t)strtoul(argv[2], NULL, 0);
		n -= SRQ_CASES;
	}
	if (roce_test_eal_init(argv[0], NULL) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&roce_test_verbs_pair, "nvmf") != 0)
		return 1;
	return roce_test_run(cases, n);
}
