/* SPDX-License-Identifier: BSD-3-Clause */

#include <errno.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "roce_cksum.h"

int
roce_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint16_t *cksum)
{
	const struct rte_mbuf *seg = m;
	uint32_t sum = 0, done = 0, n;
	uint16_t part;

	if ((uint64_t)off + len > m->pkt_len)
		return -EINVAL;
	while (seg != NULL && off >= seg->data_len) {
		off -= seg->data_len;
		seg = seg->next;
	}
	while (done < len && seg != NULL) {
		n = RTE_MIN((uint32_t)seg->data_len - off, len - done);
		part = __rte_raw_cksum_reduce(__rte_raw_cksum(
			rte_pktmbuf_mtod_offset(seg, const void *, off), n, 0));
		sum += (done & 1) != 0 ? rte_bswap16(part) : part;
		done += n;
		off = 0;
		seg = seg->next;
	}
	if (done != len)
		return -EINVAL;
	*cksum = __rte_raw_cksum_reduce(sum);
	return 0;
}
