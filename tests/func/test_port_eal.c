/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rte_roce_eal_init() in a program that has not initialised the EAL:
 * it does, consumes the EAL arguments like rte_eal_init(), and a second
 * call finds the EAL up and leaves it alone.
 */

#include <errno.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include <rte_roce_port.h>

#include "roce_test.h"

static char *eal_argv[] = {
	(char *)(uintptr_t)"test_port_eal", (char *)(uintptr_t)"--no-huge",
	(char *)(uintptr_t)"-m", (char *)(uintptr_t)"64", (char *)(uintptr_t)"--no-shconf",
	(char *)(uintptr_t)"--no-pci", (char *)(uintptr_t)"--no-telemetry",
	(char *)(uintptr_t)"--", (char *)(uintptr_t)"app-arg", NULL,
};
#define EAL_ARGC 9
#define EAL_CONSUMED 7	/* everything up to, not including, "--" */

static int
test_eal_init_once(void)
{
	ROCE_TEST_ASSERT_EQ(rte_lcore_count(), 0, "EAL not up yet");
	ROCE_TEST_ASSERT_EQ(rte_roce_eal_init(EAL_ARGC, eal_argv), EAL_CONSUMED,
			    "initialised, arguments consumed");
	ROCE_TEST_ASSERT(rte_lcore_count() >= 1, "EAL up");
	ROCE_TEST_ASSERT_EQ(rte_roce_eal_init(EAL_ARGC, eal_argv), 0, "not twice");
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "eal_init_once", test_eal_init_once },
};

int
main(void)
{
	int ret = roce_test_run(cases, RTE_DIM(cases));

	rte_eal_cleanup();
	return ret;
}
