/* SPDX-License-Identifier: BSD-3-Clause */

/* The wire to B of the fuzz targets: see fuzz_wire.h. */

#include <stdbool.h>

#include <netinet/in.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_ring.h>

#include <rte_roce.h>

#include "roce_test_eal.h"

#include "fuzz_seed.h"
#include "fuzz_wire.h"

#define FUZZ_WIRE_BURST	32

/* ARP, or ICMPv6 (neighbour discovery): what B answers. */
static bool
fuzz_wire_for_b(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *ip6;

	if (m->data_len < sizeof(*eth))
		return false;
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP))
		return true;
	if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV6) ||
	    m->data_len < sizeof(*eth) + sizeof(*ip6))
		return false;
	ip6 = (const struct rte_ipv6_hdr *)(eth + 1);
	return ip6->proto == IPPROTO_ICMPV6;
}

static void
fuzz_wire_to_b(struct rte_ring *r, fuzz_wire_seen_t seen)
{
	struct rte_mbuf *m[FUZZ_WIRE_BURST], *keep[FUZZ_WIRE_BURST];
	unsigned int n, i, k = 0;

	n = rte_ring_dequeue_burst(r, (void **)m, RTE_DIM(m), NULL);
	for (i = 0; i < n; i++) {
		if (fuzz_wire_for_b(m[i])) {
			keep[k++] = m[i];
			continue;
		}
		if (seen != NULL)
			seen(m[i]);
		rte_pktmbuf_free(m[i]);
	}
	FUZZ_CHECK(rte_ring_enqueue_bulk(r, (void **)keep, k, NULL) == k);
}

void
fuzz_wire_poll(struct roce_test_env *env, fuzz_wire_seen_t seen)
{
	rte_roce_poll(env->s[0].ctx);
	fuzz_wire_to_b(env->pair->ring[1], seen);
	rte_roce_poll(env->s[1].ctx);
}

void
fuzz_wire_open(const char *argv0, const char *name, struct roce_test_env *env,
	       const struct roce_test_conf *conf, unsigned int nqps, struct rte_ether_addr mac[2])
{
	struct rte_roce_port_info info;
	unsigned int i;

	FUZZ_CHECK(roce_test_eal_init(argv0, NULL) == 0);
	FUZZ_CHECK(roce_test_mbuf_pool() != NULL);
	FUZZ_CHECK(roce_test_pair_create(&roce_test_verbs_pair, name) == 0);
	FUZZ_CHECK(roce_test_env_open(env, conf, nqps) == 0);
	/* Both neighbour caches learn the other. */
	FUZZ_CHECK(roce_test_warm_up(env) == 0);
	for (i = 0; i < 2; i++) {
		FUZZ_CHECK(rte_roce_port_info_get(env->s[i].port, &info) == 0);
		mac[i] = info.mac;
	}
}
