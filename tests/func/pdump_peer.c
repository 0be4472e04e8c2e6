/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rte_roce_pdump_enable() / rte_roce_pdump_disable() in the EAL modes
 * test_pdump.py starts it in (the EAL can be initialised once per process,
 * so one process per mode):
 *
 *   pdump_peer primary   EAL args   a primary with hugepages and IPC
 *   pdump_peer secondary EAL args   a secondary of a running primary
 *   pdump_peer off       EAL args   --in-memory, --no-shconf or --no-huge
 *
 * Every mode first checks both calls before the EAL is up. One line per
 * case: "check 1 NAME" or "check 0 NAME: why"; test_pdump.py turns them
 * into TAP cases. The exit status is 0 if the EAL came up.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memzone.h>
#include <rte_pdump.h>

#include <rte_roce_pdump.h>

/*
 * What rte_pdump_init() reserves (DPDK lib/pdump/rte_pdump.c
 * MZ_RTE_PDUMP_STATS): here only a witness of whether pdump is initialised.
 */
#define PEER_PDUMP_MZ "rte_pdump_stats"

static void
peer_check(const char *name, int got, int want)
{
	if (got == want)
		printf("check 1 %s\n", name);
	else
		printf("check 0 %s: got %d (%s), want %d\n", name, got, strerror(-got), want);
}

static int
peer_pdump_on(void)
{
	return rte_memzone_lookup(PEER_PDUMP_MZ) != NULL;
}

/* A primary where pdump can work: ownership, repetition, the host's own init. */
static void
peer_primary(void)
{
	peer_check("disable before enable", rte_roce_pdump_disable(), 0);
	peer_check("nothing initialised yet", peer_pdump_on(), 0);
	peer_check("enable", rte_roce_pdump_enable(), 0);
	peer_check("enable initialised pdump", peer_pdump_on(), 1);
	/* rte_pdump_init() a second time would fail (its memzone) and log ERR */
	peer_check("enable again", rte_roce_pdump_enable(), 0);
	peer_check("disable", rte_roce_pdump_disable(), 0);
	peer_check("disable uninitialised pdump", peer_pdump_on(), 0);
	peer_check("disable again", rte_roce_pdump_disable(), 0);
	/* The host application initialised pdump itself: it stays the host's. */
	peer_check("host rte_pdump_init", rte_pdump_init(), 0);
	peer_check("enable after the host", rte_roce_pdump_enable(), 0);
	peer_check("disable after the host", rte_roce_pdump_disable(), 0);
	peer_check("host's pdump left alone", peer_pdump_on(), 1);
	peer_check("host rte_pdump_uninit", rte_pdump_uninit(), 0);
	/* And again from the start: enable works after the host's uninit. */
	peer_check("enable after the host's uninit", rte_roce_pdump_enable(), 0);
	peer_check("disable after the host's uninit", rte_roce_pdump_disable(), 0);
	peer_check("nothing left", peer_pdump_on(), 0);
}

int
main(int argc, char **argv)
{
	const char *mode;
	int ret;

	if (argc < 2) {
		printf("usage: pdump_peer primary|secondary|off [EAL args]\n");
		return 2;
	}
	mode = argv[1];
	peer_check("enable before the EAL", rte_roce_pdump_enable(), -EINVAL);
	peer_check("disable before the EAL", rte_roce_pdump_disable(), -EINVAL);
	argv[1] = argv[0];
	ret = rte_eal_init(argc - 1, argv + 1);
	if (ret < 0) {
		printf("check 0 EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (strcmp(mode, "primary") == 0) {
		peer_primary();
	} else if (strcmp(mode, "secondary") == 0) {
		peer_check("enable in a secondary", rte_roce_pdump_enable(), -EPERM);
		peer_check("disable in a secondary", rte_roce_pdump_disable(), 0);
	} else {
		peer_check("enable without multi-process", rte_roce_pdump_enable(), -ENOTSUP);
		peer_check("nothing initialised", peer_pdump_on(), 0);
		peer_check("disable without multi-process", rte_roce_pdump_disable(), 0);
	}
	fflush(stdout);
	rte_eal_cleanup();
	return 0;
}
