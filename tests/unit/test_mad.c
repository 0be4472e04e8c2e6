/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rte_roce_mad.h against a REQ that Linux's rdma_cm sent (kernel rxe,
 * ucmatose, IPv4): every field read through the library's layouts and
 * masks has the value the kernel put there.
 */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_roce_mad.h>

#include "roce_test.h"

/* The MAD header and the first 180 bytes of the REQ's class data; the rest is zero. */
static const uint8_t linux_req_hdr[RTE_ROCE_MAD_HDR_LEN] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0xa3, 0xfd, 0x18, 0xee, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const uint8_t linux_req_data[] = {
	/* 0: local comm ID, vendor ID, service ID (TCP port 7471), CA GUID */
	0xee, 0x18, 0xfd, 0xa3, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 0x1d, 0x2f,
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x18, 0x00, 0x12,
	/* 24: reserved, Q_Key */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 32: QPN + responder resources, EECN + initiator depth, EECN + timeout/type */
	0x00, 0x00, 0x2e, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xa0,
	/* 44: PSN + local timeout/retry, P_Key, MTU/RNR, max retries */
	0x2a, 0x37, 0xd0, 0xa5, 0xff, 0xff, 0x30, 0xf0,
	/* 52: primary path */
	0xff, 0xff, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xc6, 0x12, 0x00, 0x0c,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xc6, 0x12, 0x00, 0x0b,
	0xcb, 0x39, 0xb0, 0x00, 0x00, 0x40, 0x00, 0x98,
	/* 96: no alternate path */
	[140] = 0x00, 0x40, 0xec, 0x14,	/* rdma_cm header: version 0, IPv4, port 60436 */
	[156] = 0xc6, 0x12, 0x00, 0x0c,	/* source 198.18.0.12 */
	[172] = 0xc6, 0x12, 0x00, 0x0b,	/* destination 198.18.0.11 */
};

static const uint8_t gid_a[16] = { [10] = 0xff, 0xff, 0xc6, 0x12, 0x00, 0x0c };
static const uint8_t gid_b[16] = { [10] = 0xff, 0xff, 0xc6, 0x12, 0x00, 0x0b };

static void
linux_req(struct rte_roce_mad *mad)
{
	memset(mad, 0, sizeof(*mad));
	memcpy(&mad->hdr, linux_req_hdr, sizeof(linux_req_hdr));
	memcpy(mad->data, linux_req_data, sizeof(linux_req_data));
}

static int
test_mad_hdr(void)
{
	struct rte_roce_mad mad;

	linux_req(&mad);
	ROCE_TEST_ASSERT_EQ(mad.hdr.base_version, RTE_ROCE_MAD_BASE_VERSION, "");
	ROCE_TEST_ASSERT_EQ(mad.hdr.mgmt_class, RTE_ROCE_MGMT_CLASS_CM, "");
	ROCE_TEST_ASSERT_EQ(mad.hdr.class_version, RTE_ROCE_CM_CLASS_VERSION, "");
	ROCE_TEST_ASSERT_EQ(mad.hdr.method, RTE_ROCE_MAD_METHOD_SEND, "");
	ROCE_TEST_ASSERT(rte_be_to_cpu_64(mad.hdr.tid) == UINT64_C(0x2a3fd18ee), "tid");
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_16(mad.hdr.attr_id), RTE_ROCE_CM_ATTR_REQ, "");
	return 0;
}

static int
test_mad_req_fields(void)
{
	struct rte_roce_mad mad;
	struct rte_roce_cm_req req;
	uint32_t w;

	linux_req(&mad);
	memcpy(&req, mad.data, sizeof(req));
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_32(req.local_comm_id), 0xee18fda3, "");
	ROCE_TEST_ASSERT(rte_be_to_cpu_64(req.service_id) ==
			 RTE_ROCE_CMA_SERVICE_ID(RTE_ROCE_CMA_PS_TCP, 7471), "service ID");
	w = rte_be_to_cpu_32(req.qpn_resp_res);
	ROCE_TEST_ASSERT_EQ(w >> RTE_ROCE_CM_QPN_SHIFT, 0x2e, "QPN");
	ROCE_TEST_ASSERT_EQ(w & RTE_ROCE_CM_REQ_RESP_RES_MASK, 1, "responder resources");
	w = rte_be_to_cpu_32(req.eecn_init_depth);
	ROCE_TEST_ASSERT_EQ(w & RTE_ROCE_CM_REQ_INIT_DEPTH_MASK, 1, "initiator depth");
	w = rte_be_to_cpu_32(req.eecn_timeout_type);
	ROCE_TEST_ASSERT_EQ((w & RTE_ROCE_CM_REQ_REMOTE_TIMEOUT_MASK) >>
			    RTE_ROCE_CM_REQ_REMOTE_TIMEOUT_SHIFT, 20, "remote CM timeout");
	ROCE_TEST_ASSERT_EQ((w & RTE_ROCE_CM_REQ_TRANSPORT_MASK) >> RTE_ROCE_CM_REQ_TRANSPORT_SHIFT,
			    RTE_ROCE_CM_TRANSPORT_RC, "transport");
	w = rte_be_to_cpu_32(req.psn_timeout_retry);
	ROCE_TEST_ASSERT_EQ(w >> RTE_ROCE_CM_PSN_SHIFT, 0x2a37d0, "PSN");
	ROCE_TEST_ASSERT_EQ((w & RTE_ROCE_CM_REQ_LOCAL_TIMEOUT_MASK) >>
			    RTE_ROCE_CM_REQ_LOCAL_TIMEOUT_SHIFT, 20, "local CM timeout");
	ROCE_TEST_ASSERT_EQ(w & RTE_ROCE_CM_REQ_RETRY_MASK, 5, "retry count");
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_16(req.pkey), 0xffff, "");
	ROCE_TEST_ASSERT_EQ(req.mtu_rdc_rnr >> RTE_ROCE_CM_REQ_MTU_SHIFT, 3, "MTU 1024");
	ROCE_TEST_ASSERT_EQ(req.mtu_rdc_rnr & RTE_ROCE_CM_REQ_RNR_RETRY_MASK, 0, "RNR retry");
	ROCE_TEST_ASSERT_EQ(req.max_cm_retries_srq >> RTE_ROCE_CM_REQ_MAX_RETRIES_SHIFT, 15, "");
	return 0;
}

static int
test_mad_req_path(void)
{
	struct rte_roce_mad mad;
	struct rte_roce_cm_req req;
	uint32_t w;

	linux_req(&mad);
	memcpy(&req, mad.data, sizeof(req));
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_16(req.primary.local_lid), RTE_ROCE_CM_PERMISSIVE_LID, "");
	ROCE_TEST_ASSERT(memcmp(req.primary.local_gid, gid_a, sizeof(gid_a)) == 0, "local GID");
	ROCE_TEST_ASSERT(memcmp(req.primary.remote_gid, gid_b, sizeof(gid_b)) == 0, "remote GID");
	w = rte_be_to_cpu_32(req.primary.flow_label_rate);
	ROCE_TEST_ASSERT_EQ((w >> RTE_ROCE_CM_PATH_FLOW_LABEL_SHIFT) & RTE_ROCE_CM_PATH_FLOW_LABEL_MASK,
			    0xcb39b, "flow label");
	ROCE_TEST_ASSERT_EQ(req.primary.hop_limit, 64, "");
	ROCE_TEST_ASSERT_EQ(req.primary.ack_timeout >> RTE_ROCE_CM_PATH_ACK_TIMEOUT_SHIFT, 19, "");
	return 0;
}

static int
test_mad_cma_hdr(void)
{
	struct rte_roce_mad mad;
	struct rte_roce_cm_req req;
	struct rte_roce_cma_hdr cma;

	linux_req(&mad);
	memcpy(&req, mad.data, sizeof(req));
	memcpy(&cma, req.private_data, sizeof(cma));
	ROCE_TEST_ASSERT_EQ(cma.version, RTE_ROCE_CMA_VERSION, "");
	ROCE_TEST_ASSERT_EQ(cma.ip_version >> RTE_ROCE_CMA_IP_VERSION_SHIFT, 4, "");
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_16(cma.port), 60436, "source port");
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_32(cma.src.ip4.addr), UINT32_C(0xc612000c), "198.18.0.12");
	ROCE_TEST_ASSERT_EQ(rte_be_to_cpu_32(cma.dst.ip4.addr), UINT32_C(0xc612000b), "198.18.0.11");
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "mad_hdr_of_linux_req", test_mad_hdr },
	{ "mad_req_fields_of_linux_req", test_mad_req_fields },
	{ "mad_req_path_of_linux_req", test_mad_req_path },
	{ "mad_cma_hdr_of_linux_req", test_mad_cma_hdr },
};

int
main(void)
{
	return roce_test_run(cases, RTE_DIM(cases));
}
