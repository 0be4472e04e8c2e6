/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * When DPDK memory runs out: what the EAL had, what the kernel and the
 * hugetlbfs mounts have left, and what to change (doc/deploy.md, "When
 * memory runs out"). A container given too small a hugetlbfs must say so,
 * not just "Cannot allocate memory".
 */

#include <dirent.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "perf.h"

#define PERF_MIB (1024.0 * 1024.0)
#define PERF_HUGE_SYSFS "/sys/kernel/mm/hugepages"

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
			fprintf(stderr, "  hugetlbfs %s: %lu kB pages, no size limit\n",
				m->mnt_dir, st.f_bsize / 1024);
		else
			fprintf(stderr, "  hugetlbfs %s: %lu kB pages, %lu free of %lu (its size=)\n",
				m->mnt_dir, st.f_bsize / 1024, (unsigned long)st.f_bavail,
				(unsigned long)st.f_blocks);
	}
	endmntent(f);
	if (!any)
		fprintf(stderr, "  no hugetlbfs mounted\n");
}

void
perf_explain_nomem(const struct perf_opts *o)
{
	struct rte_malloc_socket_stats s = { 0 };
	int ends = o != NULL && o->loopback ? 2 : 1;

	if (o == NULL) {
		/* the EAL logged which hugepage information it could not get */
		fprintf(stderr, "roce_perf: the EAL found no hugepage memory to start with:\n");
		perf_print_kernel_hugepages();
		perf_print_hugetlbfs();
		goto advice;
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
advice:
	fprintf(stderr, "roce_perf: needs about %d MiB of hugepages with the defaults: %d for "
		"the EAL, %d per end (%s), more with -q, -t, -m and --workers (doc/deploy.md, "
		"\"Sizing\"); give it more (the hugetlbfs mount's size=, Kubernetes "
		"hugepages-2Mi, vm.nr_hugepages) or run with --no-huge -m MB\n",
		PERF_EAL_MIB + ends * PERF_SIDE_MIB, PERF_EAL_MIB, PERF_SIDE_MIB,
		o == NULL ? "--loopback runs two" : ends == 2 ? "--loopback: two ends" : "one end here");
}
