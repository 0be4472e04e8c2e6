/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_GID_H
#define RTE_ROCE_GID_H

/**
 * @file
 * RoCEv2 GIDs: the 16-byte form in which librte_roce names every IP address.
 *
 * A RoCEv2 GID is an IPv6 address; an IPv4 address is carried as the
 * IPv4-mapped address ::ffff:a.b.c.d (IBTA Annex A17, and how Linux fills the
 * GID table of a RoCEv2 port). Keeping one form for both families lets the
 * GID table, the neighbour cache and address handles treat them alike.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Length of a GID, in bytes. */
#define RTE_ROCE_GID_LEN 16

/** Size of a buffer that holds any GID in text form, with its NUL. */
#define RTE_ROCE_GID_STRLEN 46

/** A GID in network byte order: an IPv6 address or an IPv4-mapped one. */
union rte_roce_gid {
	uint8_t raw[RTE_ROCE_GID_LEN];
	rte_be32_t dw[RTE_ROCE_GID_LEN / 4];
};

/**
 * Tell whether a GID is an IPv4-mapped address (::ffff:a.b.c.d).
 *
 * @param gid
 *   The GID.
 * @return
 *   true when the GID stands for an IPv4 address.
 */
static inline bool
rte_roce_gid_is_ipv4(const union rte_roce_gid *gid)
{
	return gid->dw[0] == 0 && gid->dw[1] == 0 &&
	       gid->dw[2] == RTE_BE32(0x0000ffff);
}

/**
 * Make the IPv4-mapped GID of an IPv4 address.
 *
 * @param gid
 *   Where to write the GID.
 * @param addr
 *   IPv4 address, network byte order.
 */
static inline void
rte_roce_gid_from_ipv4(union rte_roce_gid *gid, rte_be32_t addr)
{
	gid->dw[0] = 0;
	gid->dw[1] = 0;
	gid->dw[2] = RTE_BE32(0x0000ffff);
	gid->dw[3] = addr;
}

/**
 * The IPv4 address of an IPv4-mapped GID.
 *
 * @param gid
 *   A GID for which rte_roce_gid_is_ipv4() is true.
 * @return
 *   The IPv4 address, network byte order.
 */
static inline rte_be32_t
rte_roce_gid_to_ipv4(const union rte_roce_gid *gid)
{
	return gid->dw[3];
}

/** Offset of the IPv4 address in an IPv4-mapped GID. */
#define RTE_ROCE_GID_IPV4_OFF		12
/** First byte of IPv4 multicast addresses, 224.0.0.0/4, under its mask. */
#define RTE_ROCE_IPV4_MCAST_MASK	0xf0
#define RTE_ROCE_IPV4_MCAST_PREFIX	0xe0
/** First byte of IPv6 multicast addresses, ff00::/8. */
#define RTE_ROCE_IPV6_MCAST_PREFIX	0xff

/**
 * Tell whether a GID is a multicast group: IPv4-mapped 224.0.0.0/4
 * (RFC 1112) or IPv6 ff00::/8 (RFC 4291 2.7).
 *
 * @param gid
 *   The GID.
 * @return
 *   true for a multicast address.
 */
static inline bool
rte_roce_gid_is_mcast(const union rte_roce_gid *gid)
{
	if (rte_roce_gid_is_ipv4(gid))
		return (gid->raw[RTE_ROCE_GID_IPV4_OFF] & RTE_ROCE_IPV4_MCAST_MASK) ==
		       RTE_ROCE_IPV4_MCAST_PREFIX;
	return gid->raw[0] == RTE_ROCE_IPV6_MCAST_PREFIX;
}

/**
 * Compare two GIDs.
 *
 * @return
 *   true when both name the same address.
 */
static inline bool
rte_roce_gid_equal(const union rte_roce_gid *a, const union rte_roce_gid *b)
{
	return memcmp(a->raw, b->raw, RTE_ROCE_GID_LEN) == 0;
}

/**
 * Make the link-local GID of a MAC address: fe80::/64 plus the modified
 * EUI-64 of the MAC (RFC 4291 appendix A). Linux puts this GID at index 0
 * of every RoCE port's GID table.
 *
 * @param gid
 *   Where to write the GID.
 * @param mac
 *   The port's MAC address.
 */
void rte_roce_gid_from_mac(union rte_roce_gid *gid, const struct rte_ether_addr *mac);

/**
 * Parse an address in text form: dotted IPv4 ("198.18.0.1") becomes an
 * IPv4-mapped GID, anything else is read as IPv6 ("fe80::1").
 *
 * @param str
 *   The text, NUL-terminated, without a prefix length.
 * @param gid
 *   Where to write the GID.
 * @return
 *   0 on success; -EINVAL if str is NULL or not an address.
 */
int rte_roce_gid_parse(const char *str, union rte_roce_gid *gid);

/**
 * Write a GID in text form: dotted IPv4 for IPv4-mapped GIDs, IPv6 otherwise.
 *
 * @param gid
 *   The GID.
 * @param buf
 *   Where to write the text.
 * @param size
 *   Size of buf; RTE_ROCE_GID_STRLEN always suffices.
 * @return
 *   0 on success; -ENOSPC if buf is too small; -EINVAL if an argument is NULL.
 */
int rte_roce_gid_format(const union rte_roce_gid *gid, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_GID_H */
