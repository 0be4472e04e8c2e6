/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * DPDK memory: what a run needs, computed before it is asked for
 * (--print-memory, --dry-run: pp_mem.h's per-object figures), what it took
 * once set up; and when memory runs out, what the EAL had, what the kernel
 * and the hugetlbfs mounts have left, and what to change (doc/deploy.md,
 * "Sizing", "When memory runs out"). A container given too small a
 * hugetlbfs must say so, not just "Cannot allocate memory".
 */

#include <dirent.h>
#include <inttypes.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "perf.h"
#include "pp_mem.h"

#define PERF_MIB (1024.0 * 1024.0)
#define PERF_HUGE_SYSFS "/sys/kernel/mm/hugepages"
#define PERF_HUGE_2M (2u * 1024 * 1024)

/* The number in the sysfs file PERF_HUGE_SYSFS/dir/name, 0 if unreadable. */
static unsigned long
perf_sysfs_ulong(const char *dir, const char *name)
{
	char path[512];
	unsigned long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), PERF_HUGE_SYSFS "/%s/%s", dir, name);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* Free pages of each hugepage size the kernel has (its pools, all users'). */
static void
perf_print_kernel_hugepages(void)
{
	DIR *d = opendir(PERF_HUGE_SYSFS);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "hugepages-", strlen("hugepages-")) != 0)
			continue;
		fprintf(stderr, "  kernel %s: %lu free of %lu (vm.nr_hugepages)\n",
			e->d_name + strlen("hugepages-"), perf_sysfs_ulong(e->d_name, "free_hugepages"),
			perf_sysfs_ulong(e->d_name, "nr_hugepages"));
	}
	closedir(d);
}

/* Each hugetlbfs mount we see: its page size and, when it has a size=, its free pages. */
static void
perf_print_hugetlbfs(void)
{
	struct statvfs st;
	struct mntent *m;
	FILE *f = setmntent("/proc/mounts", "r");
	bool any = false;

	if (f == NULL)
		return;
	while ((m = getmntent(f)) != NULL) {
		if (strcmp(m->mnt_type, "hugetlbfs") != 0 || statvfs(m->mnt_dir, &st) != 0)
			continue;
		any = true;
		/* without size= the kernel reports no block count: only its pool limits */
		if (st.f_blocks == 0 || st.f_blocks == (fsblkcnt_t)-1)
			fprintf(stderr, "  hugetlbfs %s: %lu kB pages, no size limit",
				m->mnt_dir, st.f_bsize / 1024);
		else
			fprintf(stderr, "  hugetlbfs %s: %lu kB pages, %lu free of %lu (its size=)",
				m->mnt_dir, st.f_bsize / 1024, (unsigned long)st.f_bavail,
				(unsigned long)st.f_blocks);
		/* without --in-memory the EAL keeps a file per page there */
		if (access(m->mnt_dir, W_OK) != 0)
			fprintf(stderr, ", not writable by uid %u: run with --in-memory (no files "
				"there) or mount it with uid=/gid=", (unsigned int)geteuid());
		fprintf(stderr, "\n");
	}
	endmntent(f);
	if (!any)
		fprintf(stderr, "  no hugetlbfs mounted\n");
}

/* One end of the run: its port, device, PD, MR, a send and a receive CQ per lane, its QPs. */
static void
perf_mem_end(const struct perf_opts *o, struct pp_mem *m)
{
	struct rte_roce_port_conf pc = o->config != NULL ? o->config->port :
				       (struct rte_roce_port_conf){ 0 };
	struct rte_roce_dev_conf dc = o->config != NULL ? o->config->dev_conf :
				      (struct rte_roce_dev_conf){ 0 };
	struct ibv_qp_cap cap = {
		.max_send_wr = o->tx_depth, .max_recv_wr = RTE_MAX(o->rx_depth, 1u),
		.max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = o->inline_size,
	};
	uint32_t lanes, per_lane;

	/* as perf_side_open() and perf_side_lanes() set them */
	if (o->ib_mtu != 0)
		pc.mtu = o->ib_mtu + PERF_HDR_ALLOWANCE;
	if (o->workers != 0) {
		pc.nb_queues = o->workers;
		dc.nb_workers = 0;
		dc.nb_lanes = o->workers;
	}
	lanes = RTE_MAX(RTE_MAX((uint32_t)dc.nb_workers, (uint32_t)dc.nb_lanes), 1u);
	per_lane = (o->qps + lanes - 1) / lanes;
	pp_mem_add_port(m, &pc);
	pp_mem_add_dev(m, &dc);
	pp_mem_add_pds(m, 1);
	pp_mem_add_mrs(m, 1);
	pp_mem_add_cqs(m, per_lane * o->tx_depth + 1, lanes);
	pp_mem_add_cqs(m, per_lane * RTE_MAX(o->rx_depth, 1u) + 1, lanes);
	pp_mem_add_qps(m, &cap, o->qps);
}

void
perf_mem_need(const struct perf_opts *o, uint64_t page_size, uint64_t eal_bytes,
	      struct pp_mem *m)
{
	int ends = o->loopback ? 2 : 1;

	pp_mem_init(m, page_size, eal_bytes);
	while (ends-- > 0)
		perf_mem_end(o, m);
}

static FILE *
perf_mem_out(const struct perf_opts *o)
{
	return o->json ? stderr : stdout;	/* --json keeps stdout for the JSON */
}

void
perf_mem_print_need(const struct perf_opts *o, struct pp_mem *m)
{
	uint64_t in_use, held;
	struct pp_mem huge;

	pp_mem_heap(&in_use, &held);
	perf_mem_need(o, pp_mem_page_size(), in_use, m);
	pp_mem_print(m, perf_mem_out(o), "roce_perf");
	if (m->page_size != PERF_HUGE_2M) {
		/* small pages hold fewer mbufs: what the same run takes on hugepages */
		perf_mem_need(o, PERF_HUGE_2M, in_use, &huge);
		fprintf(perf_mem_out(o), "roce_perf:   on 2048 kB hugepages: total %" PRIu64
			" B %.2f MiB: give it %" PRIu64 " pages (%.0f MiB)\n", pp_mem_total(&huge),
			pp_mem_total(&huge) / PERF_MIB, pp_mem_pages(&huge),
			pp_mem_pages(&huge) * huge.page_size / PERF_MIB);
	}
	fflush(perf_mem_out(o));
}

void
perf_mem_print_used(const struct perf_opts *o, const struct pp_mem *m)
{
	uint64_t in_use, held, need = pp_mem_total(m);

	pp_mem_heap(&in_use, &held);
	fprintf(perf_mem_out(o), "roce_perf: memory in use once set up: %" PRIu64 " B %.2f MiB "
		"(computed %" PRIu64 " B, %+.1f%%); the heap holds %" PRIu64 " pages (%" PRIu64
		" given)\n", in_use, in_use / PERF_MIB, need,
		in_use != 0 ? 100.0 * ((double)need - (double)in_use) / (double)in_use : 0.0,
		(held + m->page_size - 1) / m->page_size, pp_mem_pages(m));
	fflush(perf_mem_out(o));
}

void
perf_explain_nomem(const struct perf_opts *o)
{
	struct rte_malloc_socket_stats s = { 0 };
	struct pp_mem need;

	if (o == NULL) {
		/* the EAL logged which hugepage information it could not get */
		fprintf(stderr, "roce_perf: the EAL found no hugepage memory to start with:\n");
		perf_print_kernel_hugepages();
		perf_print_hugetlbfs();
		fprintf(stderr, "roce_perf: give it hugepages (the hugetlbfs mount's size=, "
			"Kubernetes hugepages-2Mi, vm.nr_hugepages) or run with --no-huge -m MB; "
			"roce_perf --no-huge -m 64 -- --dry-run OPTIONS prints what OPTIONS need "
			"(doc/deploy.md, \"Sizing\")\n");
		return;
	}
	rte_malloc_get_socket_stats((int)rte_lcore_to_socket_id(rte_get_main_lcore()), &s);
	fprintf(stderr, "roce_perf: out of DPDK memory (%s): the EAL's heap holds %.1f MiB, "
		"%.1f MiB of it in use, %.1f MiB free (largest piece %.1f MiB)\n",
		rte_eal_has_hugepages() ? "hugepages" : "--no-huge, -m",
		s.heap_totalsz_bytes / PERF_MIB, s.heap_allocsz_bytes / PERF_MIB,
		s.heap_freesz_bytes / PERF_MIB, s.greatest_free_size / PERF_MIB);
	if (rte_eal_has_hugepages()) {
		perf_print_kernel_hugepages();
		perf_print_hugetlbfs();
	}
	perf_mem_need(o, pp_mem_page_size(), PP_MEM_EAL_BYTES, &need);
	fprintf(stderr, "roce_perf: this run needs about %.0f MiB (%" PRIu64 " pages of %.0f kB; "
		"--print-memory shows the items, doc/deploy.md \"Sizing\"); give it more (the "
		"hugetlbfs mount's size=, Kubernetes hugepages-2Mi, vm.nr_hugepages) or run with "
		"--no-huge -m MB\n", pp_mem_pages(&need) * need.page_size / PERF_MIB,
		pp_mem_pages(&need), need.page_size / 1024.0);
}
