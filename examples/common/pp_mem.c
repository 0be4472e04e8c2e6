/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The memory a configuration needs, from per-object figures measured on
 * DPDK 22.11 (pp_mem.h; doc/deploy.md, "Sizing", has the table and how
 * each figure was measured). Every rte_malloc() costs its size rounded up
 * to a cache line plus DPDK's element header (PP_MEM_ELEM_HDR); the
 * formulas below are the library's allocations written that way
 * (doc/scale.md has the QP, CQ and lane formulas and their measurements).
 */

#include <inttypes.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memory.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "pp_mem.h"

#define PP_MEM_ELEM_HDR 128		/* struct malloc_elem, cache aligned */
#define PP_MEM_MIB (1024.0 * 1024.0)

/* QPs (doc/scale.md, "Memory per QP and per WQE"). */
#define PP_MEM_QP_FIXED 2112		/* struct roce_qp and its element header */
#define PP_MEM_SEND_WQE 80		/* struct roce_send_wqe */
#define PP_MEM_RECV_WQE 16		/* struct roce_recv_wqe */
#define PP_MEM_SGE 24			/* struct roce_sge */
#define PP_MEM_WQE_ALIGN 16
#define PP_MEM_INLINE_DEFAULT 256	/* the default device's max_inline_data */

/* CQs: a CQE is a struct ibv_wc (48), the CQ itself 448 + its header. */
#define PP_MEM_CQE 48
#define PP_MEM_CQ_FIXED (448 + PP_MEM_ELEM_HDR)
#define PP_MEM_PD_BYTES 192

/*
 * A device with one lane: 31,552 bytes, 22 per QP slot (the QP table's 14
 * and the lane's schedule ring's 8), 84 per MR slot and 84 per memory
 * window slot (as many as MRs, within 2^24 - 1 keys with them,
 * lib/roce/roce_mw.h); each further lane
 * its struct roce_lane (17,024), a schedule ring's header and element
 * (384 + 128), 8 bytes per slot, its inbox of 8 per lane and a hand-off
 * ring (8,704) to every other lane. Slots: the next power of two at least
 * max_qp + 17 (the QPNs below 17 are never given).
 */
#define PP_MEM_DEV_BASE 31552
#define PP_MEM_DEV_SLOT 14
#define PP_MEM_LANE_SLOT 8
#define PP_MEM_DEV_MR 84
#define PP_MEM_DEV_MW 84
#define PP_MEM_LANE (17024 + 384 + PP_MEM_ELEM_HDR)
#define PP_MEM_LANE_HANDOFF 8704
#define PP_MEM_QPN_RESERVED 17
#define PP_MEM_DEFAULT_MAX_QP (16384 + 1)
#define PP_MEM_DEFAULT_MAX_MR 4096

/*
 * A port: 1,154,240 bytes besides its mbufs and their ring, most of it the
 * mempool's header with a cache for each of the build's RTE_MAX_LCORE
 * lcores; 52,480 more per queue after the first (its hand-off rings, the
 * queue state, the ethdev's queue). The pool (the library's sizing): RX and
 * TX rings and a TX backlog of 256 per queue, two hand-off rings of 512 per
 * queue after the first, 1,024 spare; rings the PMD picks counted 1,024.
 */
#define PP_MEM_PORT_BASE 1154240
#define PP_MEM_PORT_QUEUE 52480
#define PP_MEM_POOL_BACKLOG 256
#define PP_MEM_POOL_HANDOFF 512
#define PP_MEM_POOL_SLACK 1024
#define PP_MEM_DESC_ASSUMED 1024
#define PP_MEM_FRAME_EXTRA (RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN + RTE_ETHER_CRC_LEN)
#define PP_MEM_RING_HDR 384		/* rte_ring_get_memsize() beyond 8 per slot */

/* The page pp_mem_pages() adds for the heap's growth. */
#define PP_MEM_SPARE_PAGES 1

static uint64_t
pp_mem_elem(uint64_t size)
{
	return RTE_ALIGN_CEIL(size, RTE_CACHE_LINE_SIZE) + PP_MEM_ELEM_HDR;
}

void
pp_mem_init(struct pp_mem *m, uint64_t page_size, uint64_t eal_bytes)
{
	*m = (struct pp_mem){ .page_size = page_size };
	m->bytes[PP_MEM_EAL] = eal_bytes;
	m->count[PP_MEM_EAL] = 1;
}

/*
 * Bytes of n objects of obj bytes laid on pages as DPDK 22.11's mempool
 * does (rte_mempool_op_calc_mem_size_helper()): an object never straddles
 * a page boundary, and one bigger than a page takes whole pages.
 */
static uint64_t
pp_mem_objs_on_pages(uint64_t n, uint64_t obj, uint64_t page)
{
	uint64_t per_page, last;

	if (n == 0)
		return 0;
	if (obj > page)
		return RTE_ALIGN_CEIL(obj, page) * n;
	per_page = page / obj;
	last = (n - 1) % per_page + 1;
	return (n - last) / per_page * page + last * obj;
}

void
pp_mem_add_port(struct pp_mem *m, const struct rte_roce_port_conf *conf)
{
	uint32_t mtu = conf->mtu != 0 ? conf->mtu : RTE_ETHER_MTU;
	uint32_t q = RTE_MAX(conf->nb_queues, (uint16_t)1);
	uint32_t desc = (conf->nb_rx_desc != 0 ? conf->nb_rx_desc : PP_MEM_DESC_ASSUMED) +
			(conf->nb_tx_desc != 0 ? conf->nb_tx_desc : PP_MEM_DESC_ASSUMED);
	uint32_t room = RTE_MAX(RTE_PKTMBUF_HEADROOM + mtu + PP_MEM_FRAME_EXTRA,
				(uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE);
	uint64_t n, obj;

	m->count[PP_MEM_PORT]++;
	m->bytes[PP_MEM_PORT] += PP_MEM_PORT_BASE + (uint64_t)(q - 1) * PP_MEM_PORT_QUEUE;
	if (conf->pool != NULL)
		return;
	n = (uint64_t)(desc + PP_MEM_POOL_BACKLOG) * q + 2ull * PP_MEM_POOL_HANDOFF * (q - 1) +
	    PP_MEM_POOL_SLACK;
	obj = rte_mempool_calc_obj_size(sizeof(struct rte_mbuf) + room, 0, NULL);
	/* the pool's ring of free mbufs: a slot for each, rounded up to a power of two */
	m->bytes[PP_MEM_PORT] += pp_mem_elem(sizeof(void *) * rte_align64pow2(n + 1) +
					     PP_MEM_RING_HDR);
	m->count[PP_MEM_POOL]++;
	m->mbufs += n;
	m->bytes[PP_MEM_POOL] += pp_mem_objs_on_pages(n, obj, m->page_size);
}

void
pp_mem_add_dev(struct pp_mem *m, const struct rte_roce_dev_conf *conf)
{
	uint64_t max_qp = conf->max_qp != 0 ? conf->max_qp : PP_MEM_DEFAULT_MAX_QP;
	uint64_t max_mr = conf->max_mr != 0 ? conf->max_mr : PP_MEM_DEFAULT_MAX_MR;
	uint64_t lanes = RTE_MAX(RTE_MAX(conf->nb_workers, conf->nb_lanes), (uint16_t)1);
	uint64_t max_mw = RTE_MIN(max_mr, RTE_ROCE_DEV_MAX_MR_MAX - max_mr);
	uint64_t slots = rte_align64pow2(max_qp + PP_MEM_QPN_RESERVED);
	uint64_t b;

	b = PP_MEM_DEV_BASE + slots * (PP_MEM_DEV_SLOT + PP_MEM_LANE_SLOT * lanes) +
	    max_mr * PP_MEM_DEV_MR + max_mw * PP_MEM_DEV_MW + (lanes - 1) * PP_MEM_LANE +
	    lanes * (lanes - 1) * PP_MEM_LANE_HANDOFF;
	if (lanes > 1)
		b += lanes * pp_mem_elem(sizeof(void *) * lanes);	/* the inboxes */
	m->count[PP_MEM_DEV]++;
	m->bytes[PP_MEM_DEV] += b;
}

/* A ring of wr WQEs of wqe bytes: a power of two of them, one allocation. */
static uint64_t
pp_mem_ring(uint32_t wr, uint32_t wqe)
{
	return pp_mem_elem((uint64_t)rte_align32pow2(RTE_MAX(wr, 1u)) * wqe);
}

void
pp_mem_add_qps(struct pp_mem *m, const struct ibv_qp_cap *cap, uint32_t n)
{
	/* inline data shares the SGEs' space: granted at least what they take */
	uint32_t inl = RTE_MAX(cap->max_inline_data,
			       RTE_MIN(PP_MEM_SGE * cap->max_send_sge, (uint32_t)PP_MEM_INLINE_DEFAULT));
	uint32_t swqe = RTE_ALIGN_CEIL(PP_MEM_SEND_WQE + RTE_MAX(PP_MEM_SGE * cap->max_send_sge, inl),
				       PP_MEM_WQE_ALIGN);
	uint32_t rwqe = RTE_ALIGN_CEIL(PP_MEM_RECV_WQE + PP_MEM_SGE * cap->max_recv_sge,
				       PP_MEM_WQE_ALIGN);

	m->count[PP_MEM_QP] += n;
	m->bytes[PP_MEM_QP] += (uint64_t)n * (PP_MEM_QP_FIXED + pp_mem_ring(cap->max_send_wr, swqe) +
					      pp_mem_ring(cap->max_recv_wr, rwqe));
}

void
pp_mem_add_cqs(struct pp_mem *m, uint32_t cqe, uint32_t n)
{
	m->count[PP_MEM_CQ] += n;
	m->bytes[PP_MEM_CQ] += (uint64_t)n * (pp_mem_ring(cqe, PP_MEM_CQE) + PP_MEM_CQ_FIXED);
}

void
pp_mem_add_pds(struct pp_mem *m, uint32_t n)
{
	m->count[PP_MEM_PD] += n;
	m->bytes[PP_MEM_PD] += (uint64_t)n * PP_MEM_PD_BYTES;
}

void
pp_mem_add_mrs(struct pp_mem *m, uint32_t n)
{
	m->mrs += n;
}

uint64_t
pp_mem_total(const struct pp_mem *m)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < PP_MEM_ITEMS; i++)
		sum += m->bytes[i];
	return sum;
}

uint64_t
pp_mem_pages(const struct pp_mem *m)
{
	/* a pool's mbufs start on a page of their own */
	return (pp_mem_total(m) + m->page_size - 1) / m->page_size + m->count[PP_MEM_POOL] +
	       PP_MEM_SPARE_PAGES;
}

void
pp_mem_print(const struct pp_mem *m, FILE *f, const char *prog)
{
	static const char *const what[PP_MEM_ITEMS] = {
		[PP_MEM_EAL] = "EAL and PMDs (in use now)",
		[PP_MEM_POOL] = "mbuf pools",
		[PP_MEM_PORT] = "ports (pool header, ring, queues)",
		[PP_MEM_DEV] = "devices (QP and MR tables, lanes)",
		[PP_MEM_QP] = "QPs (with their WQE rings)",
		[PP_MEM_CQ] = "CQs",
		[PP_MEM_PD] = "PDs",
	};
	uint64_t pages = pp_mem_pages(m);
	unsigned int i;

	fprintf(f, "%s: memory this run needs (DPDK heap, pages of %.0f kB):\n", prog,
		m->page_size / 1024.0);
	for (i = 0; i < PP_MEM_ITEMS; i++) {
		if (m->count[i] == 0)
			continue;
		fprintf(f, "%s:   %-36s %6" PRIu64 " %10" PRIu64 " B %8.2f MiB\n", prog, what[i],
			m->count[i], m->bytes[i], m->bytes[i] / PP_MEM_MIB);
	}
	if (m->mbufs != 0)
		fprintf(f, "%s:   (%" PRIu64 " mbufs in the pools)\n", prog, m->mbufs);
	if (m->mrs != 0)
		fprintf(f, "%s:   MRs: %" PRIu64 ", no DPDK memory (the application's own)\n", prog,
			m->mrs);
	fprintf(f, "%s:   total %" PRIu64 " B %.2f MiB: give it %" PRIu64 " pages (%.0f MiB)\n", prog,
		pp_mem_total(m), pp_mem_total(m) / PP_MEM_MIB, pages,
		pages * m->page_size / PP_MEM_MIB);
}

/* The page size of the first memory segment list (rte_memseg_list_walk()). */
static int
pp_mem_msl_page(const struct rte_memseg_list *msl, void *arg)
{
	if (msl->external)
		return 0;
	*(uint64_t *)arg = msl->page_sz;
	return 1;
}

uint64_t
pp_mem_page_size(void)
{
	uint64_t page = 0;

	if (rte_eal_has_hugepages())
		rte_memseg_list_walk(pp_mem_msl_page, &page);
	return page != 0 ? page : (uint64_t)sysconf(_SC_PAGESIZE);
}

void
pp_mem_heap(uint64_t *in_use, uint64_t *held)
{
	struct rte_malloc_socket_stats st;
	unsigned int i;

	*in_use = 0;
	*held = 0;
	for (i = 0; i < rte_socket_count(); i++) {
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) != 0)
			continue;
		*in_use += st.heap_allocsz_bytes;
		*held += st.heap_totalsz_bytes;
	}
}
