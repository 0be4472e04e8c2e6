/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * A net_memif peer that leaves while we poll (doc/verbs-abi.md, "net_memif:
 * the peer leaving"), as a plain libibverbs program run under roce-run by
 * test_verbs_preload.py. roce0 is a memif server with a worker lcore; the
 * open waits for its link, i.e. for the peer process. It prints "up", and
 * once a line on stdin says that the peer has exited, it polls its CQ and
 * queries the port for CHECK_MS: the port must stay ACTIVE, since the
 * peer's leaving is never processed and the rings stay mapped under the
 * worker that polls them (DPDK 22.11's memif unmaps them in the EAL
 * interrupt thread, racing that worker: SIGSEGV). Exit 0 on success.
 */

#include <stdio.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define CHECK_MS 2000
#define STEP_US 10000

/* Poll the CQ and query the port every STEP_US for CHECK_MS: 0 if ACTIVE throughout. */
static int
stays_active(struct ibv_context *ctx, struct ibv_cq *cq)
{
	struct ibv_port_attr attr;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < CHECK_MS * 1000 / STEP_US; i++) {
		if (ibv_poll_cq(cq, 1, &wc) < 0 || ibv_query_port(ctx, 1, &attr) != 0) {
			perror("poll or query");
			return 1;
		}
		if (attr.state != IBV_PORT_ACTIVE) {
			printf("port %s %d ms after the peer left\n", ibv_port_state_str(attr.state),
			       i * STEP_US / 1000);
			return 1;
		}
		usleep(STEP_US);
	}
	printf("port ACTIVE for %d ms after the peer left\n", CHECK_MS);
	return 0;
}

int
main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	struct ibv_cq *cq = NULL;
	char line[16];
	int rc;

	if (list != NULL && list[0] != NULL)
		ctx = ibv_open_device(list[0]);
	if (ctx != NULL)
		cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (cq == NULL) {
		perror("roce0");
		return 1;
	}
	printf("up\n");
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin) == NULL) {
		fprintf(stderr, "stdin closed before the peer left\n");
		return 1;
	}
	rc = stays_active(ctx, cq);
	ibv_destroy_cq(cq);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return rc;
}
