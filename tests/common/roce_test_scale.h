/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_TEST_SCALE_H
#define ROCE_TEST_SCALE_H

/*
 * Many RC QP pairs between the two sides of roce_test_verbs_pair, with
 * small caps, for the scale test (tests/func/test_scale.c) and the scale
 * benchmark (tests/bench/bench_scale.c). Also the heap-cost formula of a
 * QP that doc/scale.md gives.
 */

#include <stdint.h>

#include "roce_test_verbs.h"

/* EAL memory (MB) of programs that hold 2 x 16,384 QPs. */
#define ROCE_TEST_SCALE_MEM_MB	"768"
/* Bytes of buffer per QP: a message slot of each QP in each side's MR. */
#define ROCE_TEST_SCALE_SLOT	(ROCE_TEST_BUF_LEN / 16384)
/* Bytes of each message. */
#define ROCE_TEST_SCALE_MSG	64

/* What a QP asks for. */
struct scale_caps {
	uint32_t send_wr;
	uint32_t recv_wr;
	uint32_t send_sge;
	uint32_t recv_sge;
	uint32_t inline_data;
};

/* nqps QP pairs: qp[0][i] on side 0 is connected to qp[1][i] on side 1. */
struct roce_test_scale {
	unsigned int nqps;
	struct scale_caps caps;
	struct ibv_qp **qp[2];		/* nqps each, the caller's */
	uint16_t workers0;		/* side 0's worker lcores (0: inline), the first after main */
	/*
	 * Entries of each of side 0's CQs (its send CQ and every lane's CQ), 0:
	 * ROCE_TEST_CQ_LEN; the device's max_cqe is raised to it. A requester
	 * that keeps D signaled WRs in flight on each of N QPs needs D x N.
	 */
	uint32_t cqe0;
	/* Local ACK timeout of the pairs (doc/wire-format.md §7); 0: the default conf's. */
	uint8_t timeout;
	/*
	 * The wire: NULL for roce_test_verbs_pair (one queue); with workers0 > 1,
	 * a pair of workers0 queues (roce_test_pair_create_mq()). Side 1 is then
	 * inline with as many lanes as side 0 has workers.
	 */
	struct roce_test_pair *pair;
	struct roce_test_side s[2];
	unsigned int baseline;		/* mbufs in use before */
};

/* Bytes allocated on the rte_malloc heap of this socket. */
uint64_t roce_test_scale_heap_bytes(void);

/* The heap bytes qp holds by doc/scale.md's formula (from sizeof and its granted caps). */
uint64_t roce_test_scale_qp_bytes(struct ibv_qp *qp);

/*
 * The heap bytes of a device's lanes by doc/scale.md's formula: the lane
 * array, a schedule ring of slots entries per lane and, with more than one
 * lane, each lane's inbox table and its nb_lanes - 1 hand-off rings.
 */
uint64_t roce_test_scale_lanes_bytes(uint16_t nb_lanes, uint32_t slots);

/* A QP of caps on the side's PD and CQs: 0, or -1 with rte_errno. */
int roce_test_scale_qp_create(struct roce_test_side *s, const struct scale_caps *caps,
			      struct ibv_qp **qp);

/* The same on a lane of the side's device: its CQs are the lane's (comp_vector = lane). */
int roce_test_scale_qp_create_lane(struct roce_test_side *s, const struct scale_caps *caps,
				   uint16_t lane, struct ibv_qp **qp);

/* Both sides, each device admitting sc->nqps QPs; side 0 in worker mode if sc->workers0. */
int roce_test_scale_open(struct roce_test_scale *sc);

/* sc->nqps QPs on each side. */
int roce_test_scale_create(struct roce_test_scale *sc);

/* Every pair to RTS. */
int roce_test_scale_connect(struct roce_test_scale *sc);

/*
 * One SEND on every pair (side 0 to 1), all posted at once, every completion
 * and every byte checked; *armed_max: most timers armed at once on side 0.
 */
int roce_test_scale_send_each(struct roce_test_scale *sc, unsigned int *armed_max);

/* Frames both ports dropped at a full TX queue. */
uint64_t roce_test_scale_tx_full(struct roce_test_scale *sc);

/* Destroy everything; no mbuf leaked. */
int roce_test_scale_close(struct roce_test_scale *sc);

/*
 * The whole main() of a scale program: the EAL with ROCE_TEST_SCALE_MEM_MB,
 * the test pool and the net_ring pair, then the cases; the exit status.
 */
int roce_test_scale_main(const char *prog, const struct roce_test_case *cases,
			 unsigned int nb_cases);

#endif /* ROCE_TEST_SCALE_H */
