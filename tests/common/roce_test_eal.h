/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_TEST_EAL_H
#define ROCE_TEST_EAL_H

/*
 * EAL set-up shared by test programs. Tests run without hugepages and
 * without shared files (--no-huge --no-shconf), so they need no root-made
 * hugetlbfs, run side by side, and work under valgrind and sanitizers.
 */

#include <stdbool.h>
#include <stddef.h>

#include <rte_mbuf.h>

#include "roce_test.h"

/* Data room of the test mbuf pool: a 4096-byte IB MTU frame plus headroom. */
#define ROCE_TEST_MBUF_DATA_SIZE (RTE_PKTMBUF_HEADROOM + 4096 + 256)

/*
 * Initialise the EAL for a test program. extra_args is a NULL-terminated
 * list of further EAL arguments (for example "--vdev", "net_memif0,..."),
 * or NULL. Returns 0, or -1 after printing why.
 */
int roce_test_eal_init(const char *prog, const char *const *extra_args);

/*
 * The whole main() of a test program that needs the EAL and nothing else:
 * initialise it, run the cases, return the exit status.
 */
int roce_test_main_eal(const char *prog, const struct roce_test_case *cases,
		       unsigned int nb_cases);

/* The test mbuf pool (created on first use), or NULL after printing why. */
struct rte_mempool *roce_test_mbuf_pool(void);

/*
 * The EAL log, captured in memory so that a test checks what a refusal
 * says: roce_test_log_capture() starts (0, or -1 after printing why),
 * roce_test_log_pos() is the bytes logged so far, roce_test_logged_since()
 * whether the log from pos on contains text, roce_test_log_release() gives
 * the log back to stderr.
 */
int roce_test_log_capture(void);
size_t roce_test_log_pos(void);
bool roce_test_logged_since(size_t pos, const char *text);
void roce_test_log_release(void);

#endif /* ROCE_TEST_EAL_H */
