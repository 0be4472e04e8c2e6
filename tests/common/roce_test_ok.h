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
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

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

/* An IPv4 socket address of ip (dotted) and port (host order), for the rdma_cm programs. */
static inline struct sockaddr_in
ok_sin(const char *ip, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, ip, &sin.sin_addr);
	return sin;
}

#endif /* ROCE_TEST_OK_H */
