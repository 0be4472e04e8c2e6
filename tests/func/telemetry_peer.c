/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The process test_telemetry.py reads through DPDK telemetry: two devices
 * over a net_ring pair, with telemetry enabled under the file prefix given
 * as argv[1], and a CM instance on each (librte_roce_cm). It moves some RC
 * traffic, prints what the C calls say (one JSON line), then waits with the counters still until stdin closes, so
 * that the telemetry replies must equal the C values exactly.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include <rte_roce_cm.h>

#include "roce_test_eal.h"
#include "roce_test_verbs.h"

#define PEER_MESSAGES	5
#define PEER_MSG_LEN	3000

static int
peer_eal_init(const char *prog, const char *prefix)
{
	/* As roce_test_eal_init(), but with telemetry and a file prefix of its own. */
	const char *argv[] = {
		prog, "--no-huge", "-m", "256", "--no-pci", "--file-prefix", prefix,
		"--log-level=lib.roce:info",
	};

	if (rte_eal_init(RTE_DIM(argv), (char **)(uintptr_t)argv) < 0) {
		printf("# rte_eal_init failed: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/* One JSON object of the device's extended statistics. */
static int
print_xstats(struct ibv_context *ctx)
{
	struct rte_roce_xstat_name *names;
	struct rte_roce_xstat *values;
	int i, n;

	n = rte_roce_xstats_names_get(ctx, NULL, 0);
	names = calloc(n, sizeof(*names));
	values = calloc(n, sizeof(*values));
	if (names == NULL || values == NULL || rte_roce_xstats_names_get(ctx, names, n) != n ||
	    rte_roce_xstats_get(ctx, values, n) != n) {
		free(names);
		free(values);
		return -1;
	}
	printf("{");
	for (i = 0; i < n; i++)
		printf("%s\"%s\": %" PRIu64, i ? ", " : "", names[i].name, values[i].value);
	printf("}");
	free(names);
	free(values);
	return 0;
}

/* One JSON object of a CM instance's counters, by their xstats names. */
static int
print_cm_xstats(struct rte_roce_cm *cm)
{
	char (*names)[64];
	uint64_t *values;
	int i, n;

	n = rte_roce_cm_xstats_names_get(cm, NULL, 0);
	names = calloc(n, sizeof(*names));
	values = calloc(n, sizeof(*values));
	if (names == NULL || values == NULL || rte_roce_cm_xstats_names_get(cm, names, n) != n ||
	    rte_roce_cm_xstats_get(cm, values, n) != n) {
		free(names);
		free(values);
		return -1;
	}
	printf("{");
	for (i = 0; i < n; i++)
		printf("%s\"%s\": %" PRIu64, i ? ", " : "", names[i], values[i]);
	printf("}");
	free(names);
	free(values);
	return 0;
}

int
main(int argc, char **argv)
{
	struct rte_roce_cm *cm[2] = { NULL, NULL };
	struct rte_roce_stats qs;
	struct roce_test_env e;
	unsigned int i;
	int ret;
	int c;

	if (argc != 2 || peer_eal_init(argv[0], argv[1]) != 0 || roce_test_mbuf_pool() == NULL ||
	    roce_test_pair_create(&roce_test_verbs_pair, "tel") != 0)
		return 1;
	ret = roce_test_env_open(&e, &roce_test_default_conf, 1);
	if (ret != 0)
		return 1;
	for (i = 0; i < RTE_DIM(cm); i++) {
		cm[i] = rte_roce_cm_open(e.s[i].ctx, NULL);
		if (cm[i] == NULL)
			ret = -1;
	}
	if (ret == 0)
		ret = roce_test_warm_up(&e);
	for (i = 0; ret == 0 && i < PEER_MESSAGES; i++)
		ret = roce_test_transfer(&e, 0, 0, IBV_WR_SEND, PEER_MSG_LEN, ROCE_TEST_DATA_OFF, i);
	if (ret == 0)
		ret = rte_roce_qp_stats_get(e.qp[0][0], &qs);
	if (ret == 0) {
		printf("{\"names\": [\"%s\", \"%s\"], \"qpn\": %u, \"qp_sent_pkts\": %" PRIu64
		       ", \"qp_rcvd_pkts\": %" PRIu64 ", \"xstats\": ",
		       e.s[0].ctx->device->name, e.s[1].ctx->device->name, e.qp[0][0]->qp_num,
		       qs.sent_pkts, qs.rcvd_pkts);
		ret = print_xstats(e.s[0].ctx);
		printf(", \"cm\": ");
		ret |= print_cm_xstats(cm[0]);
		printf("}\n");
	}
	fflush(stdout);
	/* Still until the reader is done. */
	while (ret == 0 && (c = getchar()) != EOF)
		;
	for (i = 0; i < RTE_DIM(cm); i++)
		if (cm[i] != NULL)
			ret |= rte_roce_cm_close(cm[i]);
	ret |= roce_test_env_close(&e);
	rte_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
