/* SPDX-License-Identifier: BSD-3-Clause */

/* Device, port, GID and P_Key queries (ibv_devinfo's calls). doc/verbs-abi.md. */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include <rte_roce_verbs.h>

#include "roce_verbs.h"

/* RoCE has one P_Key, the default full-membership one (IBTA 10.9.1.2). */
#define RV_DEFAULT_PKEY 0xffff

int rv_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
	ROCE_VERBS_EXPORT(ibv_query_device);
int
rv_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
{
	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_query_device, "ibv_query_device",
				       "IBVERBS_1.1")(ctx, attr);
	return roce_verbs_errno(rte_roce_query_device(ctx, attr));
}

/*
 * verbs.h's inline ibv_query_port() falls back to this function for a
 * context that is not a verbs_context (ours), after clearing the whole
 * struct ibv_port_attr; binaries built against older headers pass the
 * older, shorter struct, which ends before port_cap_flags2. Write only
 * that much.
 */
#define RV_COMPAT_PORT_ATTR_LEN offsetof(struct ibv_port_attr, port_cap_flags2)
/* ibv_port_attr.phys_state of a port whose link is up (IBTA 14.2.5.6, PortPhysicalState). */
#define RV_PHYS_STATE_LINK_UP 5

int rv_query_port(struct ibv_context *ctx, uint8_t port_num, struct ibv_port_attr *attr)
	ROCE_VERBS_EXPORT(ibv_query_port);
int
rv_query_port(struct ibv_context *ctx, uint8_t port_num, struct ibv_port_attr *attr)
{
	struct roce_verbs_dev *dev = roce_verbs_dev_of_ctx(ctx);
	struct ibv_port_attr full;
	int rc;

	if (dev == NULL)
		return ROCE_VERBS_REAL(rv_query_port, "ibv_query_port",
				       "IBVERBS_1.1")(ctx, port_num, attr);
	if (attr == NULL)
		return EINVAL;
	rc = rte_roce_query_port(ctx, port_num, &full);
	if (rc < 0)
		return -rc;
	if (dev->conf->report_active) {
		full.state = IBV_PORT_ACTIVE;
		full.phys_state = RV_PHYS_STATE_LINK_UP;
	}
	memcpy(attr, &full, RV_COMPAT_PORT_ATTR_LEN);
	return 0;
}

/* A free GID entry reads as zeros, as a kernel provider's sysfs file does. */
int rv_query_gid(struct ibv_context *ctx, uint8_t port_num, int index, union ibv_gid *gid)
	ROCE_VERBS_EXPORT(ibv_query_gid);
int
rv_query_gid(struct ibv_context *ctx, uint8_t port_num, int index, union ibv_gid *gid)
{
	int rc;

	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_query_gid, "ibv_query_gid",
				       "IBVERBS_1.1")(ctx, port_num, index, gid);
	rc = rte_roce_query_gid(ctx, port_num, index, gid);
	if (rc == -ENOENT) {
		memset(gid, 0, sizeof(*gid));
		rc = 0;
	}
	return -rc;
}

int rv_query_pkey(struct ibv_context *ctx, uint8_t port_num, int index, __be16 *pkey)
	ROCE_VERBS_EXPORT(ibv_query_pkey);
int
rv_query_pkey(struct ibv_context *ctx, uint8_t port_num, int index, __be16 *pkey)
{
	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_query_pkey, "ibv_query_pkey",
				       "IBVERBS_1.1")(ctx, port_num, index, pkey);
	if (port_num != 1 || index != 0 || pkey == NULL)
		return EINVAL;
	*pkey = rte_cpu_to_be_16(RV_DEFAULT_PKEY);
	return 0;
}

int rv_get_pkey_index(struct ibv_context *ctx, uint8_t port_num, __be16 pkey)
	ROCE_VERBS_EXPORT(ibv_get_pkey_index);
int
rv_get_pkey_index(struct ibv_context *ctx, uint8_t port_num, __be16 pkey)
{
	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_get_pkey_index, "ibv_get_pkey_index",
				       "IBVERBS_1.5")(ctx, port_num, pkey);
	return port_num == 1 && pkey == rte_cpu_to_be_16(RV_DEFAULT_PKEY) ? 0 : -ENOENT;
}

/* One GID entry, RoCE v2 (the only type librte_roce speaks): 0 or -errno (-ENODATA: free). */
static int
rv_gid_entry(struct ibv_context *ctx, uint32_t port_num, uint32_t index,
	     struct ibv_gid_entry *entry)
{
	int rc;

	if (port_num > UINT8_MAX || index > INT32_MAX)
		return -EINVAL;
	memset(entry, 0, sizeof(*entry));
	rc = rte_roce_query_gid(ctx, port_num, index, &entry->gid);
	if (rc < 0)
		return rc == -ENOENT ? -ENODATA : rc;
	entry->gid_index = index;
	entry->port_num = port_num;
	entry->gid_type = IBV_GID_TYPE_ROCE_V2;
	return 0;
}

int rv_query_gid_ex(struct ibv_context *ctx, uint32_t port_num, uint32_t gid_index,
		    struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
	ROCE_VERBS_EXPORT(_ibv_query_gid_ex);
int
rv_query_gid_ex(struct ibv_context *ctx, uint32_t port_num, uint32_t gid_index,
		struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	int rc;

	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_query_gid_ex, "_ibv_query_gid_ex", "IBVERBS_1.11")
			(ctx, port_num, gid_index, entry, flags, entry_size);
	if (flags != 0 || entry == NULL)
		return EINVAL;
	rc = rv_gid_entry(ctx, port_num, gid_index, &e);
	if (rc < 0)
		return -rc;
	memcpy(entry, &e, RTE_MIN(entry_size, sizeof(e)));
	return 0;
}

ssize_t rv_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *entries,
			   size_t max_entries, uint32_t flags, size_t entry_size)
	ROCE_VERBS_EXPORT(_ibv_query_gid_table);
ssize_t
rv_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *entries,
		   size_t max_entries, uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	size_t n = 0;
	uint32_t i;
	int rc;

	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_query_gid_table, "_ibv_query_gid_table",
				       "IBVERBS_1.11")(ctx, entries, max_entries, flags,
						       entry_size);
	if (flags != 0 || entries == NULL || entry_size == 0)
		return -EINVAL;
	for (i = 0; i < RTE_ROCE_PORT_GID_TBL_LEN; i++) {
		rc = rv_gid_entry(ctx, 1, i, &e);
		if (rc == -ENODATA)
			continue;
		if (rc < 0)
			return rc;
		if (n == max_entries)
			return -EINVAL;	/* as rdma-core: the table does not fit */
		memcpy((char *)entries + n * entry_size, &e, RTE_MIN(entry_size, sizeof(e)));
		n++;
	}
	return n;
}

/*
 * ibv_query_gid_type() is in libibverbs' private ABI (IBVERBS_PRIVATE_34,
 * declared in rdma-core's driver.h, not installed), yet ibv_devinfo calls
 * it for every GID. Its type is an enum of rdma-core 44's driver.h, whose
 * values are 0 for IB/RoCE v1 and 1 for RoCE v2.
 */
#define RV_GID_TYPE_SYSFS_ROCE_V2 1

int rv_query_gid_type(struct ibv_context *ctx, uint8_t port_num, unsigned int index,
		      int *type) ROCE_VERBS_EXPORT(ibv_query_gid_type);
int
rv_query_gid_type(struct ibv_context *ctx, uint8_t port_num, unsigned int index, int *type)
{
	struct ibv_gid_entry e;
	int rc;

	if (roce_verbs_dev_of_ctx(ctx) == NULL)
		return ROCE_VERBS_REAL(rv_query_gid_type, "ibv_query_gid_type",
				       "IBVERBS_PRIVATE_34")(ctx, port_num, index, type);
	rc = rv_gid_entry(ctx, port_num, index, &e);
	if (rc < 0 && rc != -ENODATA)
		return -rc;	/* as rdma-core: -1 with errno would do; 0 or errno here */
	*type = RV_GID_TYPE_SYSFS_ROCE_V2;
	return 0;
}
