/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_TEST_OK_H
#define ROCE_TEST_OK_H

/*
 * TAP for plain programs that check one call after another (the drop-in
 * layer's misuse programs, which link no DPDK): ok() prints a line per
 * check, with errno when it fails; the caller prints the plan "1..tests"
 * at the end and exits with failed != 0.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int tests, failed;

static inline void
ok(bool cond, const char *what)
{
	printf("%s %d - %s\n", cond ? "ok" : "not ok", ++tests, what);
	if (!cond) {
		printf("# errno %d (%s)\n", errno, strerror(errno));
		failed++;
	}
}

#endif /* ROCE_TEST_OK_H */
