/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * TAP output for the plain libibverbs programs that test_verbs_misuse.py
 * runs under roce-run (verbs_misuse.c, verbs_ex.c): they link no DPDK and
 * none of the project's test helpers. One translation unit per program.
 */

#ifndef VERBS_TAP_H
#define VERBS_TAP_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int tests, failed;

/* One TAP line; a failure also prints errno. */
static void
ok(bool cond, const char *what)
{
	printf("%s %d - %s\n", cond ? "ok" : "not ok", ++tests, what);
	if (!cond) {
		printf("# errno %d (%s)\n", errno, strerror(errno));
		failed++;
	}
}

#endif /* VERBS_TAP_H */
