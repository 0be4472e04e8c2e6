/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NVMF_SPEC_H
#define NVMF_SPEC_H

/*
 * The wire facts roce_nvmf relies on, in the project's own words: the
 * NVM Express RDMA Transport Specification 1.0 ("RDMA §x") and the NVM
 * Express Base Specification ("Base": the Fabrics command set, capsules,
 * SGLs, Identify, status codes). All multi-byte fields are little endian.
 * Layouts are read and written by byte offset (nvmf_get/put helpers) so
 * that no struct padding or alignment question arises.
 */

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

/* RDMA §3.1, Figures 5-7: the CM private data, 32 bytes each way. */
#define NVMF_RDMA_CM_PRIV_LEN	32
#define NVMF_RDMA_CM_RECFMT	0	/* the one record format defined */
#define NVMF_RDMA_REQ_RECFMT	0	/* offsets in the REQ's private data */
#define NVMF_RDMA_REQ_QID	2
#define NVMF_RDMA_REQ_HRQSIZE	4	/* host receive queue entries */
#define NVMF_RDMA_REQ_HSQSIZE	6	/* host send queue size, 0's based (= SQSIZE) */
#define NVMF_RDMA_REQ_CNTLID	8	/* I/O queue: the controller; admin: 0 */
#define NVMF_RDMA_ACC_RECFMT	0
#define NVMF_RDMA_ACC_CRQSIZE	2	/* controller receive queue entries */
#define NVMF_RDMA_REJ_RECFMT	0
#define NVMF_RDMA_REJ_STS	2

/* RDMA §3.5, Figure 11: why an RDMA_CM_REQUEST is rejected. */
enum nvmf_rdma_cm_status {
	NVMF_RDMA_CM_INVALID_LEN = 0x1,
	NVMF_RDMA_CM_INVALID_RECFMT = 0x2,
	NVMF_RDMA_CM_INVALID_QID = 0x3,
	NVMF_RDMA_CM_INVALID_HSQSIZE = 0x4,
	NVMF_RDMA_CM_INVALID_HRQSIZE = 0x5,
	NVMF_RDMA_CM_NO_RSC = 0x6,
	NVMF_RDMA_CM_INVALID_IRD = 0x7,
	NVMF_RDMA_CM_INVALID_ORD = 0x8,
	NVMF_RDMA_CM_INVALID_CNTLID = 0x9,
};

/* RDMA §3.3 (Figure 9) and Base: capsules. */
#define NVMF_SQE_LEN		64	/* command capsule without in-capsule data */
#define NVMF_CQE_LEN		16	/* response capsule */

/* Base, Submission Queue Entry: byte offsets. */
#define NVMF_SQE_OPC		0
#define NVMF_SQE_FLAGS		1	/* FUSE bits 1:0, PSDT bits 7:6 */
#define NVMF_SQE_CID		2
#define NVMF_SQE_NSID		4
#define NVMF_SQE_FCTYPE		4	/* Fabrics commands */
#define NVMF_SQE_SGL1		24	/* Data Pointer: one SGL descriptor, 16 bytes */
#define NVMF_SQE_CDW10		40
#define NVMF_SQE_CDW11		44
#define NVMF_SQE_CDW12		48
#define NVMF_SQE_CDW13		52
#define NVMF_FLAGS_FUSE_MASK	0x03
#define NVMF_FLAGS_PSDT_SHIFT	6
#define NVMF_PSDT_SGL_MPTR_BUF	1	/* Fabrics: SGLs, metadata pointer to one buffer */

/* Base, SGL descriptor: 16 bytes, the identifier in the last byte. */
#define NVMF_SGL_LEN		16
#define NVMF_SGL_ADDR		0
#define NVMF_SGL_KEYED_LEN	8	/* 3 bytes */
#define NVMF_SGL_KEYED_KEY	11	/* 4 bytes */
#define NVMF_SGL_DATA_LEN	8	/* 4 bytes, unkeyed descriptors */
#define NVMF_SGL_ID		15
#define NVMF_SGL_TYPE_DATA	0x0	/* Data Block (sub type Offset: in-capsule data) */
#define NVMF_SGL_TYPE_SEGMENT	0x2
#define NVMF_SGL_TYPE_LAST_SEG	0x3
#define NVMF_SGL_TYPE_KEYED	0x4	/* Keyed SGL Data Block */
#define NVMF_SGL_SUB_ADDRESS	0x0
#define NVMF_SGL_SUB_OFFSET	0x1
#define NVMF_SGL_SUB_INVALIDATE	0xf	/* RDMA §3.3 Figure 10: invalidate the key remotely */
#define NVMF_SGL_KEYED_MAX	0xffffffu	/* 24-bit length */

/* Base, Completion Queue Entry: byte offsets and the status field. */
#define NVMF_CQE_DW0		0
#define NVMF_CQE_DW1		4
#define NVMF_CQE_SQHD		8
#define NVMF_CQE_SQID		10
#define NVMF_CQE_CID		12
#define NVMF_CQE_STATUS		14	/* bit 0 phase, SC 8:1, SCT 11:9, DNR 15 */
#define NVMF_SQHD_FLOW_OFF	0xffff	/* SQ flow control disabled */

/* A status: SCT << 8 | SC, as the tables of the Base specification list them. */
#define NVMF_SCT_GENERIC	0x0
#define NVMF_SCT_CMD		0x1
#define NVMF_SCT_MEDIA		0x2
#define NVMF_STATUS(sct, sc)	((uint16_t)((sct) << 8 | (sc)))
#define NVMF_DNR		0x8000	/* in the CQE's status field: do not retry */

enum nvmf_status {
	NVMF_SC_SUCCESS = NVMF_STATUS(NVMF_SCT_GENERIC, 0x00),
	NVMF_SC_INVALID_OPCODE = NVMF_STATUS(NVMF_SCT_GENERIC, 0x01),
	NVMF_SC_INVALID_FIELD = NVMF_STATUS(NVMF_SCT_GENERIC, 0x02),
	NVMF_SC_DATA_XFER_ERROR = NVMF_STATUS(NVMF_SCT_GENERIC, 0x04),
	NVMF_SC_INTERNAL = NVMF_STATUS(NVMF_SCT_GENERIC, 0x06),
	NVMF_SC_ABORT_REQUESTED = NVMF_STATUS(NVMF_SCT_GENERIC, 0x07),
	NVMF_SC_ABORT_SQ_DELETED = NVMF_STATUS(NVMF_SCT_GENERIC, 0x08),
	NVMF_SC_INVALID_NS = NVMF_STATUS(NVMF_SCT_GENERIC, 0x0b),
	NVMF_SC_CMD_SEQ_ERROR = NVMF_STATUS(NVMF_SCT_GENERIC, 0x0c),
	NVMF_SC_SGL_INVALID_COUNT = NVMF_STATUS(NVMF_SCT_GENERIC, 0x0e),
	NVMF_SC_SGL_INVALID_DATA_LEN = NVMF_STATUS(NVMF_SCT_GENERIC, 0x0f),
	NVMF_SC_SGL_INVALID_TYPE = NVMF_STATUS(NVMF_SCT_GENERIC, 0x11),
	NVMF_SC_SGL_INVALID_OFFSET = NVMF_STATUS(NVMF_SCT_GENERIC, 0x16),
	NVMF_SC_LBA_RANGE = NVMF_STATUS(NVMF_SCT_GENERIC, 0x80),
	NVMF_SC_WRITE_FAULT = NVMF_STATUS(NVMF_SCT_MEDIA, 0x80),
	NVMF_SC_UNRECOVERED_READ = NVMF_STATUS(NVMF_SCT_MEDIA, 0x81),
	NVMF_SC_INVALID_LOG_PAGE = NVMF_STATUS(NVMF_SCT_CMD, 0x09),
	NVMF_SC_AER_LIMIT = NVMF_STATUS(NVMF_SCT_CMD, 0x05),
	NVMF_SC_FEATURE_NOT_CHANGEABLE = NVMF_STATUS(NVMF_SCT_CMD, 0x0e),
	/* Base, Connect command specific status values */
	NVMF_SC_CONNECT_FORMAT = NVMF_STATUS(NVMF_SCT_CMD, 0x80),
	NVMF_SC_CONNECT_CTRL_BUSY = NVMF_STATUS(NVMF_SCT_CMD, 0x81),
	NVMF_SC_CONNECT_INVALID_PARAM = NVMF_STATUS(NVMF_SCT_CMD, 0x82),
	NVMF_SC_CONNECT_INVALID_HOST = NVMF_STATUS(NVMF_SCT_CMD, 0x84),
};

/* Base: opcodes. Bits 1:0 give the data direction (01b to the controller, 10b to the host). */
#define NVMF_OPC_FABRICS	0x7f
#define NVMF_OPC_DIR_MASK	0x03
#define NVMF_DIR_NONE		0x0
#define NVMF_DIR_TO_CTRL	0x1
#define NVMF_DIR_TO_HOST	0x2

enum nvmf_fctype {
	NVMF_FCTYPE_PROP_SET = 0x00,
	NVMF_FCTYPE_CONNECT = 0x01,
	NVMF_FCTYPE_PROP_GET = 0x04,
	NVMF_FCTYPE_DISCONNECT = 0x08,
};

enum nvmf_admin_opc {
	NVMF_ADM_GET_LOG_PAGE = 0x02,
	NVMF_ADM_IDENTIFY = 0x06,
	NVMF_ADM_SET_FEATURES = 0x09,
	NVMF_ADM_GET_FEATURES = 0x0a,
	NVMF_ADM_ASYNC_EVENT = 0x0c,
	NVMF_ADM_KEEP_ALIVE = 0x18,
};

enum nvmf_io_opc {
	NVMF_IO_FLUSH = 0x00,
	NVMF_IO_WRITE = 0x01,
	NVMF_IO_READ = 0x02,
	NVMF_IO_WRITE_ZEROES = 0x08,
	NVMF_IO_DSM = 0x09,
};

/*
 * Base, Connect command: SQE offsets (CDW10: RECFMT, QID; CDW11: SQSIZE,
 * CATTR; CDW12: KATO), then its 1024-byte data. The interop lab caught
 * these two bytes off: the test host had the same mistake.
 */
#define NVMF_CONNECT_RECFMT	40
#define NVMF_CONNECT_QID	42
#define NVMF_CONNECT_SQSIZE	44	/* 0's based */
#define NVMF_CONNECT_CATTR	46
#define NVMF_CONNECT_KATO	48	/* milliseconds */
#define NVMF_CATTR_NO_SQFLOW	0x04	/* disable SQ flow control */
#define NVMF_CONNECT_DATA_LEN	1024
#define NVMF_CONNECT_HOSTID	0
#define NVMF_CONNECT_CNTLID	16
#define NVMF_CONNECT_SUBNQN	256
#define NVMF_CONNECT_HOSTNQN	512
#define NVMF_NQN_FIELD_LEN	256
#define NVMF_CNTLID_DYNAMIC	0xffff
#define NVMF_CNTLID_MAX		0xffef	/* 0xfff0 and above are reserved */
/* Connect Invalid Parameters: DW0 bits 15:0 the offset, bit 16 set when in the data. */
#define NVMF_IATTR_DATA		(1u << 16)

/* Base, Property Get/Set: SQE offsets. */
#define NVMF_PROP_ATTRIB	40	/* bits 2:0: 0 four bytes, 1 eight bytes */
#define NVMF_PROP_OFST		44
#define NVMF_PROP_VALUE		48

/* Base, controller properties (registers). */
#define NVMF_PROP_CAP		0x00
#define NVMF_PROP_VS		0x08
#define NVMF_PROP_CC		0x14
#define NVMF_PROP_CSTS		0x1c
#define NVMF_CC_EN		0x1u
#define NVMF_CC_SHN_SHIFT	14
#define NVMF_CC_SHN_MASK	0x3u
#define NVMF_CC_IOSQES_SHIFT	16
#define NVMF_CC_IOCQES_SHIFT	20
#define NVMF_CSTS_RDY		0x1u
#define NVMF_CSTS_CFS		0x2u
#define NVMF_CSTS_SHST_DONE	(0x2u << 2)
#define NVMF_VS_1_3		0x00010300u
#define NVMF_SQES_LOG2		6	/* 64-byte SQ entries */
#define NVMF_CQES_LOG2		4	/* 16-byte CQ entries */

/* Base, Identify: CNS values and layouts. */
#define NVMF_IDENTIFY_LEN	4096
#define NVMF_CNS_NS		0x00
#define NVMF_CNS_CTRL		0x01
#define NVMF_CNS_NS_ACTIVE_LIST	0x02
#define NVMF_CNS_NS_DESC_LIST	0x03
#define NVMF_CNS_CSI_NS		0x05	/* I/O command set specific namespace (2.0) */
#define NVMF_CNS_CSI_CTRL	0x06	/* I/O command set specific controller */
#define NVMF_CNS_CSI_NS_ACTIVE_LIST 0x07 /* active namespaces of a command set */
#define NVMF_CNS_NS_INDEP	0x08	/* I/O command set independent namespace */
#define NVMF_IDENTIFY_CSI	47	/* CDW11 bits 31:24: the command set */
#define NVMF_CSI_NVM		0x00

/* Base 2.0, I/O Command Set Independent Identify Namespace: byte offsets. */
#define NVMF_IDIND_NMIC		1
#define NVMF_IDIND_NSTAT	13
#define NVMF_NSTAT_READY	0x01	/* the namespace is ready */

/* Identify Controller byte offsets. */
#define NVMF_IDC_VID		0
#define NVMF_IDC_SSVID		2
#define NVMF_IDC_SN		4	/* 20 ASCII bytes, space padded */
#define NVMF_IDC_MN		24	/* 40 */
#define NVMF_IDC_FR		64	/* 8 */
#define NVMF_IDC_CMIC		76
#define NVMF_IDC_MDTS		77
#define NVMF_IDC_CNTLID		78
#define NVMF_IDC_VER		80
#define NVMF_IDC_OAES		92	/* optional asynchronous events supported */
#define NVMF_IDC_CTRATT		96
#define NVMF_IDC_CNTRLTYPE	111
#define NVMF_IDC_ACL		258
#define NVMF_IDC_AERL		259
#define NVMF_IDC_LPA		261
#define NVMF_IDC_ELPE		262	/* error log entries, 0's based */
#define NVMF_IDC_KAS		320	/* 100 ms units */
#define NVMF_IDC_SQES		512
#define NVMF_IDC_CQES		513
#define NVMF_IDC_MAXCMD		514
#define NVMF_IDC_NN		516
#define NVMF_IDC_ONCS		520
#define NVMF_IDC_VWC		525
#define NVMF_IDC_SGLS		536
#define NVMF_IDC_SUBNQN		768
#define NVMF_IDC_IOCCSZ		1792	/* 16-byte units */
#define NVMF_IDC_IORCSZ		1796
#define NVMF_IDC_ICDOFF		1800
#define NVMF_IDC_FCATT		1802
#define NVMF_IDC_MSDBD		1803
#define NVMF_CNTRLTYPE_IO	1
#define NVMF_CNTRLTYPE_DISC	2
#define NVMF_CMIC_MULTI_CTRL	0x02
#define NVMF_LPA_EXT_DATA	0x04	/* Get Log Page takes offsets */
#define NVMF_OAES_NS_ATTR	(1u << 8)	/* namespace attribute notices */
#define NVMF_CTRATT_TBKAS	(1u << 6)	/* traffic based keep alive */
#define NVMF_ONCS_DSM		0x04
#define NVMF_ONCS_WRITE_ZEROES	0x08
/* SGLS: supported without alignment, keyed data blocks, addresses as offsets (in-capsule). */
#define NVMF_SGLS_SUPPORTED	0x1u
#define NVMF_SGLS_KEYED		(1u << 2)
#define NVMF_SGLS_OFFSET	(1u << 20)

/* Identify Namespace byte offsets. */
#define NVMF_IDNS_NSZE		0
#define NVMF_IDNS_NCAP		8
#define NVMF_IDNS_NUSE		16
#define NVMF_IDNS_NLBAF		25
#define NVMF_IDNS_FLBAS		26
#define NVMF_IDNS_NMIC		30
/*
 * NMIC bit 0: the namespace may be attached to several controllers at once,
 * as every namespace of a subsystem here is to each of its controllers.
 * Linux refuses the namespace on a second controller without it ("Duplicate
 * unshared namespace", nvme_init_ns_head(), drivers/nvme/host/core.c).
 */
#define NVMF_NMIC_SHARED	0x01
#define NVMF_IDNS_DLFEAT	33
#define NVMF_IDNS_NGUID		104
#define NVMF_IDNS_LBAF0		128	/* LBADS in bits 23:16 */
#define NVMF_DLFEAT_READ_ZEROES	0x01	/* deallocated blocks read as zeroes */
#define NVMF_NIDT_NGUID		0x02
#define NVMF_NIDT_UUID		0x03
#define NVMF_NID_LEN		16

/* Base, features (Set/Get Features CDW10 bits 7:0). */
#define NVMF_FEAT_NUM_QUEUES	0x07
#define NVMF_FEAT_ASYNC_EVENT	0x0b
#define NVMF_FEAT_KATO		0x0f
#define NVMF_AEC_NS_ATTR	(1u << 8)	/* Async Event Configuration: namespace notices */
#define NVMF_KAS_MS		100	/* KAS: the keep-alive granularity, in ms */

/* Base, log pages (Get Log Page CDW10 bits 7:0). */
#define NVMF_LOG_ERROR		0x01
#define NVMF_LOG_SMART		0x02
#define NVMF_LOG_FW_SLOT	0x03
#define NVMF_LOG_CHANGED_NS	0x04
#define NVMF_LOG_DISCOVERY	0x70
#define NVMF_LOG_RAE		(1u << 15)	/* CDW10: retain the asynchronous event */

/* Base, Error Information log entry (64 bytes): byte offsets. */
#define NVMF_ERRLOG_ENTRY_LEN	64
#define NVMF_ERRLOG_COUNT	0	/* 8 bytes: this error's number, from 1 */
#define NVMF_ERRLOG_SQID	8
#define NVMF_ERRLOG_CID		10
#define NVMF_ERRLOG_STATUS	12	/* the CQE's status field: phase bit 0 */
#define NVMF_ERRLOG_PEL		14	/* parameter error location; FFFFh: not reported */
#define NVMF_ERRLOG_LBA		16	/* 8 bytes */
#define NVMF_ERRLOG_NSID	24
#define NVMF_ERRLOG_TRTYPE	29

/* Base, SMART / Health Information: 16-byte counters. */
#define NVMF_SMART_MEDIA_ERRORS	160	/* Media and Data Integrity Errors */
#define NVMF_SMART_ERRLOG_ENTRIES 176	/* Number of Error Information Log Entries */

/* Base, Asynchronous Event Request completion DW0: type 2:0, information 15:8, log page 23:16. */
#define NVMF_AEN_TYPE_NOTICE	0x2
#define NVMF_AEN_NS_ATTR_CHANGED 0x00
#define NVMF_AEN_DW0(type, info, lid) ((uint32_t)(type) | (uint32_t)(info) << 8 | \
				       (uint32_t)(lid) << 16)

/* Base, Discovery Log Page: header, then 1024-byte entries; RDMA §3.1 Figure 3 (TSAS). */
#define NVMF_DISC_HDR_LEN	1024
#define NVMF_DISC_ENTRY_LEN	1024
#define NVMF_DISC_NUMREC	8
#define NVMF_DISC_TRTYPE	0
#define NVMF_DISC_ADRFAM	1
#define NVMF_DISC_SUBTYPE	2
#define NVMF_DISC_PORTID	4
#define NVMF_DISC_CNTLID	6
#define NVMF_DISC_ASQSZ		8
#define NVMF_DISC_TRSVCID	32
#define NVMF_DISC_TRSVCID_LEN	32
#define NVMF_DISC_SUBNQN	256
#define NVMF_DISC_TRADDR	512
#define NVMF_DISC_TRADDR_LEN	256
#define NVMF_DISC_TSAS		768
#define NVMF_TRTYPE_RDMA	1
#define NVMF_ADRFAM_IPV4	1
#define NVMF_ADRFAM_IPV6	2
#define NVMF_SUBTYPE_NVME	2	/* an NVM subsystem (1: a referral to a discovery service) */
#define NVMF_RDMA_QPTYPE_RC	1
#define NVMF_RDMA_PRTYPE_ROCEV2	4
#define NVMF_RDMA_CMS_RDMA_CM	1

/* Base, Dataset Management: CDW11 bit 2 deallocate; 16-byte ranges. */
#define NVMF_DSM_DEALLOCATE	0x04
#define NVMF_DSM_RANGE_LEN	16
#define NVMF_DSM_RANGE_NLB	4
#define NVMF_DSM_RANGE_SLBA	8

static inline uint16_t
nvmf_get16(const uint8_t *p, unsigned int off)
{
	uint16_t v;

	memcpy(&v, p + off, sizeof(v));
	return rte_le_to_cpu_16(v);
}

static inline uint32_t
nvmf_get32(const uint8_t *p, unsigned int off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return rte_le_to_cpu_32(v);
}

static inline uint64_t
nvmf_get64(const uint8_t *p, unsigned int off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return rte_le_to_cpu_64(v);
}

static inline void
nvmf_put16(uint8_t *p, unsigned int off, uint16_t v)
{
	v = rte_cpu_to_le_16(v);
	memcpy(p + off, &v, sizeof(v));
}

static inline void
nvmf_put32(uint8_t *p, unsigned int off, uint32_t v)
{
	v = rte_cpu_to_le_32(v);
	memcpy(p + off, &v, sizeof(v));
}

static inline void
nvmf_put64(uint8_t *p, unsigned int off, uint64_t v)
{
	v = rte_cpu_to_le_64(v);
	memcpy(p + off, &v, sizeof(v));
}

#endif /* NVMF_SPEC_H */
