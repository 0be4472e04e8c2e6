/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_MAD_H
#define RTE_ROCE_MAD_H

/**
 * @file
 * Management datagrams (MADs) of the communication manager: layouts only.
 *
 * A MAD is the 256-byte payload of a UD SEND to QP1 (the General Services
 * QP, Q_Key RTE_ROCE_QP1_QKEY): the 24-byte common MAD header (IBTA Vol. 1
 * §13.4.2) and 232 bytes of class data. The communication manager (CM,
 * management class 0x07, class version 2) carries one message per MAD,
 * named by the attribute ID (§12.6); the message layouts below are the
 * class data after the MAD header, byte offsets as the IBTA tables of
 * Vol. 1 Release 1.4 give them (table numbers in each comment).
 *
 * Fields narrower than their bytes share a byte or word with others: the
 * structure names the word, and the RTE_ROCE_CM_* masks and shifts below
 * it give each field's bits, in host order after rte_be_to_cpu_*().
 * IBTA numbers bits from the most significant, so "the top 5 bits of byte
 * 43" is mask 0xf8, shift 3. Every structure is packed and big-endian.
 *
 * Also here: the header Linux's rdma_cm puts at the start of a REQ's
 * private data (version, IP version, port, addresses) and the service IDs
 * it makes from a port space and a port, so that a REQ of ours matches a
 * Linux listener and theirs match ours.
 */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @name The MAD and its common header (IBTA Vol. 1 §13.4.2)
 * @{
 */
#define RTE_ROCE_MAD_LEN		256	/**< Every GSI MAD, padded. */
#define RTE_ROCE_MAD_HDR_LEN		24	/**< Common MAD header. */
#define RTE_ROCE_MAD_DATA_LEN		232	/**< Class data after it. */
#define RTE_ROCE_MAD_BASE_VERSION	1	/**< The only base version. */
/** @} */

/** Common MAD header, 24 bytes. */
struct rte_roce_mad_hdr {
	uint8_t base_version;	/**< RTE_ROCE_MAD_BASE_VERSION. */
	uint8_t mgmt_class;	/**< Management class (RTE_ROCE_MGMT_CLASS_*). */
	uint8_t class_version;	/**< Version of the class (CM: 2). */
	uint8_t method;		/**< R (7): response; method (6:0). */
	rte_be16_t status;	/**< Status of a response (RTE_ROCE_MAD_STATUS_*). */
	rte_be16_t class_specific; /**< Class-specific; 0 for the CM. */
	rte_be64_t tid;		/**< Transaction ID, echoed by the response. */
	rte_be16_t attr_id;	/**< Attribute: which message (RTE_ROCE_CM_ATTR_*). */
	rte_be16_t resv;	/**< Reserved, 0. */
	rte_be32_t attr_mod;	/**< Attribute modifier; 0 for CM messages. */
} __rte_packed;

/** A whole MAD. */
struct rte_roce_mad {
	struct rte_roce_mad_hdr hdr;			/**< Common header. */
	uint8_t data[RTE_ROCE_MAD_DATA_LEN];		/**< Class data. */
} __rte_packed;

/** @name Methods (IBTA Vol. 1 §13.4.5)
 * @{
 */
#define RTE_ROCE_MAD_METHOD_RESP	0x80	/**< R bit: a response. */
#define RTE_ROCE_MAD_METHOD_MASK	0x7f	/**< The method without R. */
#define RTE_ROCE_MAD_METHOD_GET		0x01	/**< Read an attribute (ClassPortInfo). */
#define RTE_ROCE_MAD_METHOD_SET		0x02	/**< Write an attribute. */
#define RTE_ROCE_MAD_METHOD_SEND	0x03	/**< Every CM message. */
#define RTE_ROCE_MAD_METHOD_GET_RESP	0x81	/**< Response to GET and SET. */
/** @} */

/** @name Status of a response (IBTA Vol. 1 §13.4.7)
 * Bits 4:2 are the invalid-field code.
 * @{
 */
#define RTE_ROCE_MAD_STATUS_OK			0x0000
#define RTE_ROCE_MAD_STATUS_BUSY		0x0001
#define RTE_ROCE_MAD_STATUS_BAD_VERSION		0x0004	/**< Code 1: base/class version. */
#define RTE_ROCE_MAD_STATUS_UNSUPPORTED_METHOD	0x0008	/**< Code 2. */
#define RTE_ROCE_MAD_STATUS_UNSUPPORTED_ATTR	0x000c	/**< Code 3: method/attribute pair. */
#define RTE_ROCE_MAD_STATUS_INVALID_FIELD	0x001c	/**< Code 7: attribute or modifier value. */
/** @} */

/** @name Management classes
 * @{
 */
#define RTE_ROCE_MGMT_CLASS_CM		0x07	/**< Communication management (§12). */
#define RTE_ROCE_CM_CLASS_VERSION	2	/**< CM class version of IBTA 1.2 and later. */
/** @} */

/** @name CM attribute IDs (IBTA Vol. 1 §12.6)
 * @{
 */
#define RTE_ROCE_CM_ATTR_CLASS_PORT_INFO 0x0001
#define RTE_ROCE_CM_ATTR_REQ		0x0010
#define RTE_ROCE_CM_ATTR_MRA		0x0011
#define RTE_ROCE_CM_ATTR_REJ		0x0012
#define RTE_ROCE_CM_ATTR_REP		0x0013
#define RTE_ROCE_CM_ATTR_RTU		0x0014
#define RTE_ROCE_CM_ATTR_DREQ		0x0015
#define RTE_ROCE_CM_ATTR_DREP		0x0016
#define RTE_ROCE_CM_ATTR_SIDR_REQ	0x0017
#define RTE_ROCE_CM_ATTR_SIDR_REP	0x0018
#define RTE_ROCE_CM_ATTR_LAP		0x0019	/**< Load alternate path. */
#define RTE_ROCE_CM_ATTR_APR		0x001a	/**< Alternate path response. */
/** @} */

/** ClassPortInfo (IBTA Vol. 1 §13.4.8.1), 72 bytes. */
struct rte_roce_mad_class_port_info {
	uint8_t base_version;		/**< Base version supported. */
	uint8_t class_version;		/**< Class version supported. */
	rte_be16_t capability_mask;	/**< Class capabilities. */
	rte_be32_t cap_mask2_resp_time;	/**< CapabilityMask2 (31:5), RespTimeValue (4:0). */
	uint8_t redirect_gid[16];	/**< Redirection: GID. */
	rte_be32_t redirect_tc_sl_fl;	/**< TC (31:24), SL (23:20), flow label (19:0). */
	rte_be16_t redirect_lid;	/**< Redirection: LID. */
	rte_be16_t redirect_pkey;	/**< Redirection: P_Key. */
	rte_be32_t redirect_qp;		/**< Reserved (31:24), QP (23:0). */
	rte_be32_t redirect_qkey;	/**< Redirection: Q_Key. */
	uint8_t trap_gid[16];		/**< Traps: GID. */
	rte_be32_t trap_tc_sl_fl;	/**< TC (31:24), SL (23:20), flow label (19:0). */
	rte_be16_t trap_lid;		/**< Traps: LID. */
	rte_be16_t trap_pkey;		/**< Traps: P_Key. */
	rte_be32_t trap_hl_qp;		/**< Hop limit (31:24), QP (23:0). */
	rte_be32_t trap_qkey;		/**< Traps: Q_Key. */
} __rte_packed;

/** ClassPortInfo RespTimeValue bits of cap_mask2_resp_time. */
#define RTE_ROCE_MAD_CPI_RESP_TIME_MASK	UINT32_C(0x0000001f)

/** @name 24-bit and narrower fields shared with a neighbour (host order)
 * @{
 */
#define RTE_ROCE_CM_QPN_SHIFT		8	/**< QPN (31:8) of a QPN word. */
#define RTE_ROCE_CM_QPN_LOW_MASK	UINT32_C(0x000000ff) /**< The byte after it. */
#define RTE_ROCE_CM_PSN_SHIFT		8	/**< PSN (31:8) of a PSN word. */
#define RTE_ROCE_CM_24_MASK		UINT32_C(0x00ffffff) /**< A 24-bit value. */
/** @} */

/**
 * One path of a REQ (primary at byte 52, alternate at byte 96), 44 bytes.
 * RoCE: the GIDs are IP addresses (IPv4-mapped for IPv4), the LIDs are
 * 0xffff (the permissive LID, as Linux sends on RoCE).
 */
struct rte_roce_cm_path {
	rte_be16_t local_lid;		/**< Local port LID. */
	rte_be16_t remote_lid;		/**< Remote port LID. */
	uint8_t local_gid[16];		/**< Sender's GID. */
	uint8_t remote_gid[16];		/**< Receiver's GID. */
	rte_be32_t flow_label_rate;	/**< Flow label (31:12), reserved (11:6), packet rate (5:0). */
	uint8_t traffic_class;		/**< Traffic class. */
	uint8_t hop_limit;		/**< Hop limit. */
	uint8_t sl_subnet_local;	/**< SL (7:4), subnet local (3), reserved (2:0). */
	uint8_t ack_timeout;		/**< Local ACK timeout (7:3), reserved/SAP (2:0). */
} __rte_packed;

/** @name Path bit fields
 * @{
 */
#define RTE_ROCE_CM_PATH_FLOW_LABEL_SHIFT 12
#define RTE_ROCE_CM_PATH_FLOW_LABEL_MASK UINT32_C(0x000fffff)	/**< After the shift. */
#define RTE_ROCE_CM_PATH_RATE_MASK	UINT32_C(0x0000003f)
#define RTE_ROCE_CM_PATH_SL_SHIFT	4
#define RTE_ROCE_CM_PATH_SUBNET_LOCAL	0x08
#define RTE_ROCE_CM_PATH_ACK_TIMEOUT_SHIFT 3
/** The LID of a RoCE path: the permissive LID. */
#define RTE_ROCE_CM_PERMISSIVE_LID	0xffff
/** @} */

/** REQ: request for communication (IBTA Vol. 1 §12.6, Table 106), 232 bytes. */
struct rte_roce_cm_req {
	rte_be32_t local_comm_id;	/**< Sender's communication ID. */
	rte_be32_t vendor_id;		/**< Reserved (31:24), vendor ID (23:0). */
	rte_be64_t service_id;		/**< Service to connect to. */
	rte_be64_t local_ca_guid;	/**< Sender's CA GUID. */
	rte_be32_t resv24;		/**< Reserved. */
	rte_be32_t local_qkey;		/**< Sender's Q_Key (RD only). */
	rte_be32_t qpn_resp_res;	/**< Local QPN (31:8), responder resources (7:0). */
	rte_be32_t eecn_init_depth;	/**< Local EECN (31:8), initiator depth (7:0). */
	rte_be32_t eecn_timeout_type;	/**< Remote EECN (31:8), remote CM response
					 *   timeout (7:3), transport service type (2:1),
					 *   end-to-end flow control (0).
					 */
	rte_be32_t psn_timeout_retry;	/**< Starting PSN (31:8), local CM response
					 *   timeout (7:3), retry count (2:0).
					 */
	rte_be16_t pkey;		/**< Partition key. */
	uint8_t mtu_rdc_rnr;		/**< Path MTU (7:4), RDC exists (3), RNR retry (2:0). */
	uint8_t max_cm_retries_srq;	/**< Max CM retries (7:4), SRQ (3), ext. transport (2:0). */
	struct rte_roce_cm_path primary;	/**< Primary path (byte 52). */
	struct rte_roce_cm_path alternate;	/**< Alternate path (byte 96); zero if none. */
	uint8_t private_data[92];	/**< Private data (byte 140). */
} __rte_packed;

/** @name REQ bit fields (host order of the words above)
 * @{
 */
#define RTE_ROCE_CM_REQ_RESP_RES_MASK		UINT32_C(0x000000ff)
#define RTE_ROCE_CM_REQ_INIT_DEPTH_MASK		UINT32_C(0x000000ff)
#define RTE_ROCE_CM_REQ_REMOTE_TIMEOUT_SHIFT	3
#define RTE_ROCE_CM_REQ_REMOTE_TIMEOUT_MASK	UINT32_C(0x000000f8)
#define RTE_ROCE_CM_REQ_TRANSPORT_SHIFT		1
#define RTE_ROCE_CM_REQ_TRANSPORT_MASK		UINT32_C(0x00000006)
#define RTE_ROCE_CM_REQ_FLOW_CONTROL		UINT32_C(0x00000001)
#define RTE_ROCE_CM_REQ_LOCAL_TIMEOUT_SHIFT	3
#define RTE_ROCE_CM_REQ_LOCAL_TIMEOUT_MASK	UINT32_C(0x000000f8)
#define RTE_ROCE_CM_REQ_RETRY_MASK		UINT32_C(0x00000007)
#define RTE_ROCE_CM_REQ_MTU_SHIFT		4
#define RTE_ROCE_CM_REQ_RDC_EXISTS		0x08
#define RTE_ROCE_CM_REQ_RNR_RETRY_MASK		0x07
#define RTE_ROCE_CM_REQ_MAX_RETRIES_SHIFT	4
#define RTE_ROCE_CM_REQ_SRQ			0x08
#define RTE_ROCE_CM_REQ_EXT_TRANSPORT_MASK	0x07
/** @} */

/** @name Transport service types of a REQ
 * @{
 */
#define RTE_ROCE_CM_TRANSPORT_RC	0
#define RTE_ROCE_CM_TRANSPORT_UC	1
#define RTE_ROCE_CM_TRANSPORT_RD	2
/** @} */

/** MRA: message receipt acknowledgement (IBTA Vol. 1 §12.6, Table 107), 232 bytes. */
struct rte_roce_cm_mra {
	rte_be32_t local_comm_id;	/**< Sender's communication ID. */
	rte_be32_t remote_comm_id;	/**< Receiver's communication ID. */
	uint8_t message_mraed;		/**< Message acknowledged (7:6), reserved (5:0). */
	uint8_t service_timeout;	/**< Service timeout (7:3), reserved (2:0). */
	uint8_t private_data[222];	/**< Private data (byte 10). */
} __rte_packed;

/** @name MRA and REJ: which message (top 2 bits of message_mraed, message_rejected)
 * @{
 */
#define RTE_ROCE_CM_MSG_SHIFT		6
#define RTE_ROCE_CM_MSG_REQ		0	/**< The REQ. */
#define RTE_ROCE_CM_MSG_REP		1	/**< The REP. */
#define RTE_ROCE_CM_MSG_LAP		2	/**< MRA: the LAP. */
#define RTE_ROCE_CM_MSG_OTHER		2	/**< REJ: no message (e.g. a stale connection). */
#define RTE_ROCE_CM_MRA_TIMEOUT_SHIFT	3
/** @} */

/** REJ: reject (IBTA Vol. 1 §12.6, Table 108), 232 bytes. */
struct rte_roce_cm_rej {
	rte_be32_t local_comm_id;	/**< Sender's communication ID. */
	rte_be32_t remote_comm_id;	/**< Receiver's communication ID (0 if unknown). */
	uint8_t message_rejected;	/**< Message rejected (7:6), reserved (5:0). */
	uint8_t ari_length;		/**< Rejected info length (7:1), reserved (0). */
	rte_be16_t reason;		/**< RTE_ROCE_CM_REJ_*. */
	uint8_t ari[72];		/**< Additional rejection information. */
	uint8_t private_data[148];	/**< Private data (byte 84). */
} __rte_packed;

/** ARI length bits of ari_length. */
#define RTE_ROCE_CM_REJ_ARI_LEN_SHIFT	1

/** REJ reasons (IBTA Vol. 1 §12.6, REJ reasons). */
enum rte_roce_cm_rej_reason {
	RTE_ROCE_CM_REJ_NO_QP = 1,
	RTE_ROCE_CM_REJ_NO_EEC = 2,
	RTE_ROCE_CM_REJ_NO_RESOURCES = 3,
	RTE_ROCE_CM_REJ_TIMEOUT = 4,
	RTE_ROCE_CM_REJ_UNSUPPORTED = 5,
	RTE_ROCE_CM_REJ_INVALID_COMM_ID = 6,
	RTE_ROCE_CM_REJ_INVALID_COMM_INSTANCE = 7,
	RTE_ROCE_CM_REJ_INVALID_SERVICE_ID = 8,
	RTE_ROCE_CM_REJ_INVALID_TRANSPORT_TYPE = 9,
	RTE_ROCE_CM_REJ_STALE_CONN = 10,
	RTE_ROCE_CM_REJ_RDC_NOT_EXIST = 11,
	RTE_ROCE_CM_REJ_INVALID_GID = 12,
	RTE_ROCE_CM_REJ_INVALID_LID = 13,
	RTE_ROCE_CM_REJ_INVALID_SL = 14,
	RTE_ROCE_CM_REJ_INVALID_TRAFFIC_CLASS = 15,
	RTE_ROCE_CM_REJ_INVALID_HOP_LIMIT = 16,
	RTE_ROCE_CM_REJ_INVALID_PACKET_RATE = 17,
	RTE_ROCE_CM_REJ_INVALID_ALT_GID = 18,
	RTE_ROCE_CM_REJ_INVALID_ALT_LID = 19,
	RTE_ROCE_CM_REJ_INVALID_ALT_SL = 20,
	RTE_ROCE_CM_REJ_INVALID_ALT_TRAFFIC_CLASS = 21,
	RTE_ROCE_CM_REJ_INVALID_ALT_HOP_LIMIT = 22,
	RTE_ROCE_CM_REJ_INVALID_ALT_PACKET_RATE = 23,
	RTE_ROCE_CM_REJ_PORT_CM_REDIRECT = 24,
	RTE_ROCE_CM_REJ_PORT_REDIRECT = 25,
	RTE_ROCE_CM_REJ_INVALID_MTU = 26,
	RTE_ROCE_CM_REJ_INSUFFICIENT_RESP_RESOURCES = 27,
	RTE_ROCE_CM_REJ_CONSUMER_DEFINED = 28,
	RTE_ROCE_CM_REJ_INVALID_RNR_RETRY = 29,
	RTE_ROCE_CM_REJ_DUPLICATE_LOCAL_COMM_ID = 30,
	RTE_ROCE_CM_REJ_INVALID_CLASS_VERSION = 31,
	RTE_ROCE_CM_REJ_INVALID_FLOW_LABEL = 32,
	RTE_ROCE_CM_REJ_INVALID_ALT_FLOW_LABEL = 33,
};

/** REP: reply to a REQ (IBTA Vol. 1 §12.6, Table 110), 232 bytes. */
struct rte_roce_cm_rep {
	rte_be32_t local_comm_id;	/**< Sender's communication ID. */
	rte_be32_t remote_comm_id;	/**< Receiver's communication ID. */
	rte_be32_t local_qkey;		/**< Sender's Q_Key (RD only). */
	rte_be32_t qpn_vendor_h;	/**< Local QPN (31:8), vendor ID high byte (7:0). */
	rte_be32_t eecn_vendor_m;	/**< Local EECN (31:8), vendor ID middle byte (7:0). */
	rte_be32_t psn_vendor_l;	/**< Starting PSN (31:8), vendor ID low byte (7:0). */
	uint8_t resp_resources;		/**< Responder resources. */
	uint8_t init_depth;		/**< Initiator depth. */
	uint8_t ack_delay_failover;	/**< Target ACK delay (7:3), failover (2:1), flow control (0). */
	uint8_t rnr_retry_srq;		/**< RNR retry count (7:5), SRQ (4), reserved (3:0). */
	rte_be64_t local_ca_guid;	/**< Sender's CA GUID. */
	uint8_t private_data[196];	/**< Private data (byte 36). */
} __rte_packed;

/** @name REP bit fields
 * @{
 */
#define RTE_ROCE_CM_REP_ACK_DELAY_SHIFT	3
#define RTE_ROCE_CM_REP_FAILOVER_SHIFT	1
#define RTE_ROCE_CM_REP_FLOW_CONTROL	0x01
#define RTE_ROCE_CM_REP_RNR_RETRY_SHIFT	5
#define RTE_ROCE_CM_REP_SRQ		0x10
/** Failover accepted: no alternate path was asked. */
#define RTE_ROCE_CM_REP_FAILOVER_NOT_SUPPORTED 1
/** @} */

/** RTU: ready to use (IBTA Vol. 1 §12.6, Table 111), 232 bytes. */
struct rte_roce_cm_rtu {
	rte_be32_t local_comm_id;	/**< Sender's communication ID. */
	rte_be32_t remote_comm_id;	/**< Receiver's communication ID. */
	uint8_t private_data[224];	/**< Private data (byte 8). */
} __rte_packed;

/** DREQ: disconnect request (IBTA Vol. 1 §12.6, Table 112), 232 bytes. */
struct rte_roce_cm_dreq {
	rte_be32_t local_comm_id;	/**< Sender's communication ID. */
	rte_be32_t remote_comm_id;	/**< Receiver's communication ID. */
	rte_be32_t remote_qpn;		/**< Receiver's QPN/EECN (31:8), reserved (7:0). */
	uint8_t private_data[220];	/**< Private data (byte 12). */
} __rte_packed;

/** DREP: disconnect reply (IBTA Vol. 1 §12.6, Table 113), 232 bytes. */
struct rte_roce_cm_drep {
	rte_be32_t local_comm_id;	/**< Sender's communication ID. */
	rte_be32_t remote_comm_id;	/**< Receiver's communication ID. */
	uint8_t private_data[224];	/**< Private data (byte 8). */
} __rte_packed;

/**
 * LAP: load alternate path (IBTA Vol. 1 §12.6, Table 115), 232 bytes. The
 * alternate path's fields are those of a REQ's path, at other offsets.
 */
struct rte_roce_cm_lap {
	rte_be32_t local_comm_id;	/**< Sender's communication ID. */
	rte_be32_t remote_comm_id;	/**< Receiver's communication ID. */
	rte_be32_t resv8;		/**< Reserved. */
	rte_be32_t qpn_timeout;		/**< Remote QPN/EECN (31:8), remote CM response
					 *   timeout (7:3), reserved (2:0).
					 */
	rte_be32_t resv16;		/**< Reserved. */
	rte_be16_t alt_local_lid;	/**< Alternate local port LID. */
	rte_be16_t alt_remote_lid;	/**< Alternate remote port LID. */
	uint8_t alt_local_gid[16];	/**< Alternate local port GID. */
	uint8_t alt_remote_gid[16];	/**< Alternate remote port GID. */
	rte_be32_t alt_flow_label_tc;	/**< Flow label (31:12), reserved (11:8),
					 *   traffic class (7:0).
					 */
	uint8_t alt_hop_limit;		/**< Alternate hop limit. */
	uint8_t alt_rate;		/**< Reserved (7:6), packet rate (5:0). */
	uint8_t alt_sl_subnet_local;	/**< SL (7:4), subnet local (3), reserved (2:0). */
	uint8_t alt_ack_timeout;	/**< Local ACK timeout (7:3), reserved (2:0). */
	uint8_t private_data[168];	/**< Private data (byte 64). */
} __rte_packed;

/** APR: alternate path response (IBTA Vol. 1 §12.6, Table 116), 232 bytes. */
struct rte_roce_cm_apr {
	rte_be32_t local_comm_id;	/**< Sender's communication ID. */
	rte_be32_t remote_comm_id;	/**< Receiver's communication ID. */
	uint8_t add_info_length;	/**< Additional information length. */
	uint8_t ap_status;		/**< RTE_ROCE_CM_APR_*. */
	rte_be16_t resv;		/**< Reserved. */
	uint8_t add_info[72];		/**< Additional information. */
	uint8_t private_data[148];	/**< Private data (byte 84). */
} __rte_packed;

/**
 * APR status (the AP status field of IBTA Vol. 1 §12.6, Table 116); the
 * values of Linux's enum ib_cm_apr_status (include/rdma/ib_cm.h).
 */
enum rte_roce_cm_apr_status {
	RTE_ROCE_CM_APR_SUCCESS = 0,		/**< Alternate path loaded. */
	RTE_ROCE_CM_APR_INVALID_COMM_ID = 1,	/**< Invalid communication instance. */
	RTE_ROCE_CM_APR_UNSUPPORTED = 2,	/**< Alternate paths not supported. */
	RTE_ROCE_CM_APR_REJECT = 3,		/**< Rejected by the consumer. */
	RTE_ROCE_CM_APR_REDIRECT = 4,		/**< Redirected. */
	RTE_ROCE_CM_APR_IS_CURRENT = 5,		/**< The alternate path is the current path. */
	RTE_ROCE_CM_APR_INVALID_QPN_EECN = 6,	/**< QPN/EECN does not match. */
	RTE_ROCE_CM_APR_INVALID_LID = 7,	/**< Alternate remote LID rejected. */
	RTE_ROCE_CM_APR_INVALID_GID = 8,	/**< Alternate remote GID rejected. */
	RTE_ROCE_CM_APR_INVALID_FLOW_LABEL = 9,	/**< Alternate flow label rejected. */
	RTE_ROCE_CM_APR_INVALID_TCLASS = 10,	/**< Alternate traffic class rejected. */
	RTE_ROCE_CM_APR_INVALID_HOP_LIMIT = 11,	/**< Alternate hop limit rejected. */
	RTE_ROCE_CM_APR_INVALID_PACKET_RATE = 12, /**< Alternate packet rate rejected. */
	RTE_ROCE_CM_APR_INVALID_SL = 13,	/**< Alternate SL rejected. */
};

/** SIDR_REQ: service ID resolution request (IBTA Vol. 1 §12.11, Table 119), 232 bytes. */
struct rte_roce_cm_sidr_req {
	rte_be32_t request_id;		/**< Sender's request ID. */
	rte_be16_t pkey;		/**< Partition key. */
	rte_be16_t resv;		/**< Reserved. */
	rte_be64_t service_id;		/**< Service to resolve. */
	uint8_t private_data[216];	/**< Private data (byte 16). */
} __rte_packed;

/** SIDR_REP: service ID resolution reply (IBTA Vol. 1 §12.11, Table 120), 232 bytes. */
struct rte_roce_cm_sidr_rep {
	rte_be32_t request_id;		/**< The request's ID. */
	uint8_t status;			/**< RTE_ROCE_CM_SIDR_* . */
	uint8_t add_info_length;	/**< Additional information length. */
	rte_be16_t vendor_id_h;		/**< Vendor ID, high 16 bits. */
	rte_be32_t qpn_vendor_l;	/**< QPN (31:8), vendor ID low byte (7:0). */
	rte_be64_t service_id;		/**< The service. */
	rte_be32_t qkey;		/**< The service's Q_Key. */
	uint8_t add_info[72];		/**< Additional information. */
	uint8_t private_data[136];	/**< Private data (byte 96). */
} __rte_packed;

/** SIDR_REP status values (IBTA Vol. 1 §12.11). */
enum rte_roce_cm_sidr_status {
	RTE_ROCE_CM_SIDR_SUCCESS = 0,
	RTE_ROCE_CM_SIDR_UNSUPPORTED = 1,	/**< Service ID not supported. */
	RTE_ROCE_CM_SIDR_REJECT = 2,		/**< Rejected by the service. */
	RTE_ROCE_CM_SIDR_NO_QP = 3,		/**< No QP available. */
	RTE_ROCE_CM_SIDR_REDIRECT = 4,		/**< Redirected. */
	RTE_ROCE_CM_SIDR_UNSUPPORTED_VERSION = 5,	/**< Class version not supported. */
};

/** @name CM timeouts (IBTA Vol. 1 §12.6): 4.096 us * 2^value
 * @{
 */
#define RTE_ROCE_CM_TIMEOUT_BASE_NS	4096	/**< The unit: 4.096 us. */
#define RTE_ROCE_CM_TIMEOUT_MAX		31	/**< 5-bit fields. */
#define RTE_ROCE_CM_MAX_RETRIES_MAX	15	/**< 4-bit field. */
/** @} */

/*
 * rdma_cm's additions, so that Linux's rdma_cm and ours understand each
 * other: the header at the start of a REQ's private data, and the service
 * IDs of the IP port spaces (Linux drivers/infiniband/core/cma.c, and the
 * rdma_cm annex of IBTA, Annex A11).
 */

/** An address in the rdma_cm header: IPv6, or IPv4 in the last 4 bytes (rest 0). */
union rte_roce_cma_addr {
	uint8_t ip6[16];		/**< IPv6 address. */
	struct {
		uint8_t pad[12];	/**< Zero. */
		rte_be32_t addr;	/**< IPv4 address. */
	} __rte_packed ip4;		/**< IPv4 form. */
} __rte_packed;

/** rdma_cm's header in a REQ's private data (IBTA Annex A11), 36 bytes. */
struct rte_roce_cma_hdr {
	uint8_t version;		/**< RTE_ROCE_CMA_VERSION. */
	uint8_t ip_version;		/**< IP version (7:4): 4 or 6. */
	rte_be16_t port;		/**< The connecting side's source port. */
	union rte_roce_cma_addr src;	/**< The connecting side's address. */
	union rte_roce_cma_addr dst;	/**< The listener's address. */
} __rte_packed;

/** @name rdma_cm header fields
 * @{
 */
#define RTE_ROCE_CMA_VERSION		0x00
#define RTE_ROCE_CMA_IP_VERSION_SHIFT	4
/** User private data of a REQ after the rdma_cm header. */
#define RTE_ROCE_CMA_REQ_PRIVATE_MAX	(92 - 36)
/** @} */

/** @name Port spaces and service IDs (Linux <rdma/rdma_cma.h> enum rdma_ucm_port_space)
 * @{
 */
#define RTE_ROCE_CMA_PS_IPOIB	0x0002
#define RTE_ROCE_CMA_PS_IB	0x013f
#define RTE_ROCE_CMA_PS_TCP	0x0106
#define RTE_ROCE_CMA_PS_UDP	0x0111
/** The port-space bits of an IP service ID. */
#define RTE_ROCE_CMA_SERVICE_PS_MASK	UINT64_C(0xffffffffffff0000)
/** The service ID of port space ps and port (host order): ps << 16 | port. */
#define RTE_ROCE_CMA_SERVICE_ID(ps, port) \
	(((uint64_t)(ps) << 16) | (uint16_t)(port))
/** @} */

static_assert(sizeof(struct rte_roce_mad_hdr) == RTE_ROCE_MAD_HDR_LEN, "MAD header size");
static_assert(sizeof(struct rte_roce_mad) == RTE_ROCE_MAD_LEN, "MAD size");
static_assert(sizeof(struct rte_roce_mad_class_port_info) == 72, "ClassPortInfo size");
static_assert(sizeof(struct rte_roce_cm_path) == 44, "CM path size");
static_assert(sizeof(struct rte_roce_cm_req) == RTE_ROCE_MAD_DATA_LEN, "REQ size");
static_assert(offsetof(struct rte_roce_cm_req, primary) == 52, "REQ primary path");
static_assert(offsetof(struct rte_roce_cm_req, private_data) == 140, "REQ private data");
static_assert(sizeof(struct rte_roce_cm_mra) == RTE_ROCE_MAD_DATA_LEN, "MRA size");
static_assert(sizeof(struct rte_roce_cm_rej) == RTE_ROCE_MAD_DATA_LEN, "REJ size");
static_assert(offsetof(struct rte_roce_cm_rej, private_data) == 84, "REJ private data");
static_assert(sizeof(struct rte_roce_cm_rep) == RTE_ROCE_MAD_DATA_LEN, "REP size");
static_assert(offsetof(struct rte_roce_cm_rep, local_ca_guid) == 28, "REP CA GUID");
static_assert(sizeof(struct rte_roce_cm_rtu) == RTE_ROCE_MAD_DATA_LEN, "RTU size");
static_assert(sizeof(struct rte_roce_cm_dreq) == RTE_ROCE_MAD_DATA_LEN, "DREQ size");
static_assert(sizeof(struct rte_roce_cm_drep) == RTE_ROCE_MAD_DATA_LEN, "DREP size");
static_assert(sizeof(struct rte_roce_cm_lap) == RTE_ROCE_MAD_DATA_LEN, "LAP size");
static_assert(offsetof(struct rte_roce_cm_lap, alt_flow_label_tc) == 56, "LAP flow label");
static_assert(offsetof(struct rte_roce_cm_lap, private_data) == 64, "LAP private data");
static_assert(sizeof(struct rte_roce_cm_apr) == RTE_ROCE_MAD_DATA_LEN, "APR size");
static_assert(offsetof(struct rte_roce_cm_apr, add_info) == 12, "APR additional information");
static_assert(offsetof(struct rte_roce_cm_apr, private_data) == 84, "APR private data");
static_assert(sizeof(struct rte_roce_cm_sidr_req) == RTE_ROCE_MAD_DATA_LEN, "SIDR_REQ size");
static_assert(sizeof(struct rte_roce_cm_sidr_rep) == RTE_ROCE_MAD_DATA_LEN, "SIDR_REP size");
static_assert(offsetof(struct rte_roce_cm_sidr_rep, private_data) == 96, "SIDR_REP private data");
static_assert(sizeof(struct rte_roce_cma_hdr) == 36, "rdma_cm header size");

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_MAD_H */
