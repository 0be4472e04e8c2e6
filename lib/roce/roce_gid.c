/* SPDX-License-Identifier: BSD-3-Clause */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>

#include "rte_roce_gid.h"

/* Modified EUI-64 sets the universal/local bit (RFC 4291, appendix A). */
#define ROCE_EUI64_UL_BIT 0x02

void
rte_roce_gid_from_mac(union rte_roce_gid *gid, const struct rte_ether_addr *mac)
{
	const uint8_t *m = mac->addr_bytes;

	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	gid->raw[8] = m[0] ^ ROCE_EUI64_UL_BIT;
	gid->raw[9] = m[1];
	gid->raw[10] = m[2];
	gid->raw[11] = 0xff;
	gid->raw[12] = 0xfe;
	gid->raw[13] = m[3];
	gid->raw[14] = m[4];
	gid->raw[15] = m[5];
}

int
rte_roce_gid_parse(const char *str, union rte_roce_gid *gid)
{
	struct in_addr v4;

	if (str == NULL || gid == NULL)
		return -EINVAL;
	if (inet_pton(AF_INET, str, &v4) == 1) {
		rte_roce_gid_from_ipv4(gid, v4.s_addr);
		return 0;
	}
	if (inet_pton(AF_INET6, str, gid->raw) == 1)
		return 0;
	return -EINVAL;
}

int
rte_roce_gid_format(const union rte_roce_gid *gid, char *buf, size_t size)
{
	const char *out;

	if (gid == NULL || buf == NULL)
		return -EINVAL;
	if (rte_roce_gid_is_ipv4(gid))
		out = inet_ntop(AF_INET, &gid->dw[3], buf, size);
	else
		out = inet_ntop(AF_INET6, gid->raw, buf, size);
	return out != NULL ? 0 : -ENOSPC;
}
