/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef PP_MEM_H
#define PP_MEM_H

/*
 * The DPDK memory (the EAL's heap: hugepages, or -m with --no-huge) a
 * librte_roce configuration needs, computed before anything is asked for,
 * so that a program can print it (roce_perf --print-memory, --dry-run) and
 * an operator can size a pod (doc/deploy.md, "Sizing"). A program adds
 * what it will create, object by object, then prints or reads the sum.
 *
 * The per-object figures were measured on DPDK 22.11 as heap bytes in use
 * (rte_malloc_get_socket_stats()) before and after creating each object;
 * tests/func/test_mem_need.c measures them again and fails when the
 * library's real cost leaves the bound PP_MEM_TOLERANCE_PCT of what this
 * helper says. Registered memory (MRs) is the application's own: a
 * registration costs nothing here, its slot is in the device's MR table.
 */

#include <stdint.h>
#include <stdio.h>

#include <infiniband/verbs.h>

#include <rte_roce_port.h>
#include <rte_roce_verbs.h>

/** What the heap holds, item by item. */
enum pp_mem_item {
	PP_MEM_EAL,	/* the EAL and its PMDs, measured when the sum starts */
	PP_MEM_POOL,	/* the mbufs of the ports' pools */
	PP_MEM_PORT,	/* a port without its mbufs: pool header and ring, queues */
	PP_MEM_DEV,	/* a device: QP and MR tables, lanes */
	PP_MEM_QP,	/* QPs with their send and receive rings (WQEs) */
	PP_MEM_CQ,	/* CQs */
	PP_MEM_PD,	/* protection domains */
	PP_MEM_ITEMS,
};

/** The sum so far. */
struct pp_mem {
	uint64_t page_size;			/* of the EAL's memory */
	uint64_t bytes[PP_MEM_ITEMS];
	uint64_t count[PP_MEM_ITEMS];		/* objects of each item */
	uint64_t mbufs;				/* in the pools */
	uint64_t mrs;				/* registrations (no heap bytes) */
};

/*
 * The bound the tests check: what this helper says is within this much
 * of what the heap really takes, per kind of object (test_mem_need) and
 * for a whole roce_perf run (roce_perf_memory).
 */
#define PP_MEM_TOLERANCE_PCT 2

/*
 * Start a sum for memory of page_size bytes a page (pp_mem_page_size()),
 * eal_bytes already in use by the EAL and its PMDs (pp_mem_heap_in_use(),
 * or PP_MEM_EAL_BYTES before the EAL runs).
 */
void pp_mem_init(struct pp_mem *m, uint64_t page_size, uint64_t eal_bytes);

/*
 * The EAL of a program on net_memif or net_ring with --in-memory, as
 * measured after rte_eal_init() (DPDK 22.11, Debian's build of 128 lcores).
 */
#define PP_MEM_EAL_BYTES (512u * 1024)

/*
 * A port made by rte_roce_port_create() from conf (mtu 0: 1500; ring sizes
 * 0: what the library assumes, 1,024; its own pool unless conf->pool).
 */
void pp_mem_add_port(struct pp_mem *m, const struct rte_roce_port_conf *conf);

/* A device opened with conf (0 limits: the library's defaults; lanes: workers or nb_lanes). */
void pp_mem_add_dev(struct pp_mem *m, const struct rte_roce_dev_conf *conf);

/* n QPs created with cap (as asked; the default device grants inline data up to 256). */
void pp_mem_add_qps(struct pp_mem *m, const struct ibv_qp_cap *cap, uint32_t n);

/* n CQs of cqe entries each. */
void pp_mem_add_cqs(struct pp_mem *m, uint32_t cqe, uint32_t n);

/* n protection domains and n registrations (MRs). */
void pp_mem_add_pds(struct pp_mem *m, uint32_t n);
void pp_mem_add_mrs(struct pp_mem *m, uint32_t n);

/* Heap bytes of the sum. */
uint64_t pp_mem_total(const struct pp_mem *m);

/*
 * Pages to give the program: the sum in whole pages, plus one page for
 * each pool (its mbufs start on a page of their own) and one for the
 * heap's own growth.
 */
uint64_t pp_mem_pages(const struct pp_mem *m);

/* Print the sum, item by item, then the pages, each line starting with prog. */
void pp_mem_print(const struct pp_mem *m, FILE *f, const char *prog);

/* The page size of the EAL's memory (2 MiB or 1 GiB hugepages; 4 KiB with --no-huge). */
uint64_t pp_mem_page_size(void);

/* Heap bytes in use now, and bytes the heap holds (pages it mapped), on every socket. */
void pp_mem_heap(uint64_t *in_use, uint64_t *held);

#endif /* PP_MEM_H */
