/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_TEST_INJECT_H
#define ROCE_TEST_INJECT_H

/*
 * Hand-made requests to side b of a roce_test_env; b's answers are read off
 * the ring before a sees them, so the responder is tested packet by packet.
 * The other way round, a's requests are taken off the ring before b sees
 * them and hand-made responses go to a, so the requester is tested too.
 * After roce_test_inject_init() (one real SEND), b's ePSN is psn_ab + 1.
 */

#include <stdint.h>

#include <rte_ether.h>

#include <rte_roce.h>

#include "roce_test_verbs.h"

struct roce_test_inject {
	struct roce_test_env *e;
	struct rte_ether_addr mac[2];
	uint32_t epsn;
};

/* Learn both MACs and warm the neighbour caches up. */
int roce_test_inject_init(struct roce_test_inject *in, struct roce_test_env *e);

/* Send a request frame from a's address to b's QP; pkt fields set by the caller. */
int roce_test_inject_send(struct roce_test_inject *in, struct rte_roce_pkt *pkt,
			  const void *payload);

/*
 * A request with a RETH on b's MR (its rkey; va and len as given), AckReq set,
 * payload_len bytes of payload (none: NULL, 0).
 */
int roce_test_inject_reth(struct roce_test_inject *in, uint8_t opcode, uint32_t psn,
			  uint64_t va, uint32_t len, const void *payload, uint32_t payload_len);

/*
 * A response frame from b's address to a's QP (the requester tests: a
 * responder that misbehaves); pkt fields set by the caller.
 */
int roce_test_inject_response(struct roce_test_inject *in, struct rte_roce_pkt *pkt,
			      const void *payload);

/* Poll a only, then take a's next frame to b, which b never sees; -1 if none comes. */
int roce_test_inject_take_request(struct roce_test_inject *in, struct rte_roce_pkt *pkt);

/* Poll b only, then take b's next frame to a (payload copied if not NULL); -1 if none comes. */
int roce_test_inject_answer(struct roce_test_inject *in, struct rte_roce_pkt *pkt,
			    uint8_t *payload);

/* b's next frame is opcode with AETH syndrome at psn. */
int roce_test_expect_ack(struct roce_test_inject *in, uint8_t opcode, uint8_t syndrome,
			 uint32_t psn);

/* b answers nothing for ROCE_TEST_QUIET_MS. */
int roce_test_expect_no_answer(struct roce_test_inject *in);

#endif /* ROCE_TEST_INJECT_H */
