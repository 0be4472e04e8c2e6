/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_VERBS_H
#define ROCE_VERBS_H

/*
 * The verbs layer (roce_verbs.c): the control entry points wrapped in the
 * lanes' handshake, and the ibv_context ops table.
 */

#include <infiniband/verbs.h>

/*
 * Fill ctx->ops with this library's data-path verbs (post_send, post_recv,
 * post_srq_recv, poll_cq, req_notify_cq), so that rdma-core's inline
 * wrappers (ibv_post_send() and the others) called on our objects reach
 * them: what a verbs ABI layer (a libibverbs provider) hands out.
 */
void roce_verbs_ops_init(struct ibv_context *ctx);

#endif /* ROCE_VERBS_H */
