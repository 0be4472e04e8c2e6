/* SPDX-License-Identifier: BSD-3-Clause */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "roce_test_eal.h"

#define ROCE_TEST_EAL_MAX_ARGS 32
#define ROCE_TEST_MBUF_COUNT 8191
#define ROCE_TEST_MBUF_CACHE 256

int
roce_test_eal_init(const char *prog, const char *const *extra_args)
{
	static const char *const base_args[] = {
		"--no-huge", "-m", "256", "--no-shconf", "--no-pci",
		"--no-telemetry", "--log-level=lib.roce:info",
	};
	char *argv[ROCE_TEST_EAL_MAX_ARGS];
	int argc = 0;
	unsigned int i;

	argv[argc++] = (char *)(uintptr_t)prog;
	for (i = 0; i < RTE_DIM(base_args); i++)
		argv[argc++] = (char *)(uintptr_t)base_args[i];
	for (i = 0; extra_args != NULL && extra_args[i] != NULL; i++) {
		if (argc == ROCE_TEST_EAL_MAX_ARGS) {
			printf("# too many EAL arguments\n");
			return -1;
		}
		argv[argc++] = (char *)(uintptr_t)extra_args[i];
	}
	if (rte_eal_init(argc, argv) < 0) {
		printf("# rte_eal_init failed: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

int
roce_test_main_eal(const char *prog, const struct roce_test_case *cases,
		   unsigned int nb_cases)
{
	if (roce_test_eal_init(prog, NULL) != 0)
		return 1;
	return roce_test_run(cases, nb_cases);
}

struct rte_mempool *
roce_test_mbuf_pool(void)
{
	static struct rte_mempool *pool;

	if (pool != NULL)
		return pool;
	pool = rte_pktmbuf_pool_create("roce_test_mbufs", ROCE_TEST_MBUF_COUNT,
				       ROCE_TEST_MBUF_CACHE, 0,
				       ROCE_TEST_MBUF_DATA_SIZE, rte_socket_id());
	if (pool == NULL)
		printf("# mbuf pool: %s\n", rte_strerror(rte_errno));
	return pool;
}

static FILE *log_stream;
static char *log_buf;
static size_t log_len;

int
roce_test_log_capture(void)
{
	log_stream = open_memstream(&log_buf, &log_len);
	if (log_stream == NULL || rte_openlog_stream(log_stream) != 0) {
		printf("# cannot capture the log\n");
		return -1;
	}
	return 0;
}

size_t
roce_test_log_pos(void)
{
	fflush(log_stream);
	return log_len;
}

bool
roce_test_logged_since(size_t pos, const char *text)
{
	return roce_test_log_pos() > pos && strstr(log_buf + pos, text) != NULL;
}

void
roce_test_log_release(void)
{
	rte_openlog_stream(NULL);
	if (log_stream != NULL)
		fclose(log_stream);
	free(log_buf);
	log_stream = NULL;
	log_buf = NULL;
	log_len = 0;
}
