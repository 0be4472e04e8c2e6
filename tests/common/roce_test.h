/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_TEST_H
#define ROCE_TEST_H

/*
 * A minimal TAP producer for the project's test programs.
 *
 * Each program is a table of cases; each case returns 0 on success and
 * fails through ROCE_TEST_ASSERT, which names the file, line and why.
 * Meson runs the programs with protocol 'tap', so every case is counted.
 *
 *	static const struct roce_test_case cases[] = {
 *		{ "parse_rejects_truncated", test_parse_truncated },
 *	};
 *	int main(void) { return roce_test_run(cases, RTE_DIM(cases)); }
 */

#include <stdio.h>
#include <stdlib.h>

struct roce_test_case {
	const char *name;
	int (*fn)(void);
};

#define ROCE_TEST_ASSERT(cond, fmt, ...) do {				\
	if (!(cond)) {							\
		printf("#   %s:%d: assertion '%s' failed: " fmt "\n",	\
		       __FILE__, __LINE__, #cond, ##__VA_ARGS__);	\
		fflush(stdout);						\
		return -1;						\
	}								\
} while (0)

/* Each argument is evaluated once, so calls with side effects are safe. */
#define ROCE_TEST_ASSERT_EQ(a, b, fmt, ...) do {			\
	long long roce_test_a_ = (long long)(a);			\
	long long roce_test_b_ = (long long)(b);			\
	ROCE_TEST_ASSERT(roce_test_a_ == roce_test_b_, "%s == %lld, %s == %lld: " fmt, \
			 #a, roce_test_a_, #b, roce_test_b_, ##__VA_ARGS__); \
} while (0)

static inline int
roce_test_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of n values (benchmarks); v is sorted in place. */
static inline double
roce_test_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), roce_test_cmp_double);
	return v[n / 2];
}

/* Runs every case, prints a TAP plan and one line per case; returns the exit status. */
static inline int
roce_test_run(const struct roce_test_case *cases, unsigned int nb_cases)
{
	unsigned int i, failed = 0;

	printf("1..%u\n", nb_cases);
	fflush(stdout);
	for (i = 0; i < nb_cases; i++) {
		int rc = cases[i].fn();

		printf("%sok %u - %s\n", rc == 0 ? "" : "not ", i + 1, cases[i].name);
		fflush(stdout);
		failed += rc != 0;
	}
	return failed == 0 ? 0 : 1;
}

#endif /* ROCE_TEST_H */
