/* SPDX-License-Identifier: BSD-3-Clause */

/* One end of a test: port, device, QPs, memory; QP connection as perftest does it. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_lcore.h>

#include <rte_roce_verbs.h>

#include "perf.h"
#include "pp_port.h"

#define PERF_ALIGN 64
#define PERF_BUF_MAX (1ull << 30)	/* registered memory per side */
#define PERF_MIN_RNR_TIMER 12		/* 0.64 ms (IBA table 45), perftest's */
#define PERF_HOP_LIMIT 64
#define PERF_PSN_MASK 0xffffffu

static const int perf_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

uint8_t
perf_pattern(uint64_t k)
{
	return (uint8_t)(k * 131 + (k >> 8) + 7);
}

/* Bytes of the frame that carries a message's first packet (for --baseline). */
uint32_t
perf_frame_len(enum perf_test test, uint32_t size, uint32_t ib_mtu)
{
	/* Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4 (doc/wire-format.md §1.3) */
	const uint32_t base = RTE_ETHER_HDR_LEN + 20 + 8 + 12 + 4;

	switch (test) {
	case PERF_TEST_FETCH_ADD:
	case PERF_TEST_CMP_SWAP:
		return base + 28;			/* AtomicETH */
	case PERF_TEST_SEND:
		return base + RTE_MIN(size, ib_mtu);
	default:
		return base + 16 + RTE_MIN(size, ib_mtu);	/* RETH */
	}
}

uint8_t *
perf_local(const struct perf_side *s, uint32_t q)
{
	return s->buf + q * s->region;
}

uint8_t *
perf_target(const struct perf_side *s, uint32_t q)
{
	return s->buf + q * s->region + s->slot;
}

uint8_t *
perf_rx_slot(const struct perf_side *s, uint32_t q, uint32_t i)
{
	return s->buf + q * s->region + (2 + i) * s->slot;
}

/*
 * The device's configuration: --config's, and with --workers N, N lanes
 * (a port queue each) run by the first N worker lcores of the EAL
 * (workers) or by this thread (inline lanes: the loopback server).
 */
static void
perf_side_lanes(struct perf_side *s, const struct perf_opts *o, bool workers,
		struct rte_roce_port_conf *pc, struct rte_roce_dev_conf *dc)
{
	unsigned int lcore;
	uint16_t w = 0;

	*dc = o->config != NULL ? o->config->dev_conf : (struct rte_roce_dev_conf){ 0 };
	if (o->workers == 0) {
		s->nb_lanes = RTE_MAX(RTE_MAX(dc->nb_workers, dc->nb_lanes), 1);
		s->nb_workers = dc->nb_workers;
		memcpy(s->lcores, dc->lcores, sizeof(s->lcores));
		return;
	}
	s->nb_lanes = (uint16_t)o->workers;
	pc->nb_queues = s->nb_lanes;
	dc->nb_workers = 0;
	dc->nb_lanes = s->nb_lanes;
	if (!workers)
		return;
	/* perf_check() made sure there are that many */
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (w < o->workers)
			dc->lcores[w++] = (uint16_t)lcore;
	}
	dc->nb_workers = w;
	dc->nb_lanes = 0;
	s->nb_workers = w;
	memcpy(s->lcores, dc->lcores, sizeof(s->lcores));
}

int
perf_side_open(struct perf_side *s, const struct perf_opts *o, uint16_t eth, const char *ip,
	       uint8_t mac_last, bool workers)
{
	struct rte_roce_port_conf conf = o->config != NULL ? o->config->port :
					 (struct rte_roce_port_conf){ 0 };
	struct rte_roce_port_info info;
	struct rte_roce_dev_conf dc;
	union rte_roce_gid addr;
	uint8_t prefix;

	s->eth = eth;
	conf.port_id = eth;
	perf_side_lanes(s, o, workers, &conf, &dc);
	if (o->ib_mtu != 0) {
		/* The Ethernet MTU the IB MTU needs; memif carries it but does not say so. */
		conf.mtu = o->ib_mtu + PERF_HDR_ALLOWANCE;
		conf.mtu_unchecked = true;
	}
	if (pp_parse_ip(ip, &addr, &prefix) != 0) {
		fprintf(stderr, "roce_perf: bad address %s\n", ip);
		return -EINVAL;
	}
	if (!rte_is_zero_ether_addr(&conf.mac)) {
		/* the configuration's */
	} else if (rte_eth_macaddr_get(eth, &conf.mac) == 0 && rte_is_zero_ether_addr(&conf.mac)) {
		/* net_ring has no MAC: a locally administered one */
		conf.mac.addr_bytes[0] = RTE_ETHER_LOCAL_ADMIN_ADDR;
		conf.mac.addr_bytes[5] = mac_last;
	} else {
		memset(&conf.mac, 0, sizeof(conf.mac));
	}
	s->port = rte_roce_port_create(&conf);
	if (s->port == NULL) {
		fprintf(stderr, "roce_perf: %s: port on ethdev %u: %s\n", s->name, eth,
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	if (rte_roce_port_addr_add(s->port, &addr, prefix) != 0 ||
	    rte_roce_port_info_get(s->port, &info) != 0) {
		fprintf(stderr, "roce_perf: %s: cannot add %s\n", s->name, ip);
		return -EINVAL;
	}
	s->ib_mtu = info.ib_mtu;
	if (o->ib_mtu != 0 && s->ib_mtu != o->ib_mtu) {
		fprintf(stderr, "roce_perf: %s: IB MTU %u not possible (port gives %u)\n",
			s->name, o->ib_mtu, s->ib_mtu);
		return -EINVAL;
	}
	s->gid_index = rte_roce_port_gid_find(s->port, &addr);
	memcpy(s->gid.raw, addr.raw, sizeof(s->gid.raw));
	s->ctx = rte_roce_open_device(s->port, &dc);
	if (s->ctx == NULL || s->gid_index < 0) {
		fprintf(stderr, "roce_perf: %s: open device: %s\n", s->name,
			rte_strerror(rte_errno));
		return -ENODEV;
	}
	s->pd = rte_roce_alloc_pd(s->ctx);
	if (s->pd == NULL)
		return -rte_errno;
	if (o->fault) {
		s->fault = rte_roce_fault_attach(eth, 0, RTE_ROCE_FAULT_RX, &o->fault_conf);
		if (s->fault == NULL) {
			fprintf(stderr, "roce_perf: --fault: %s\n", rte_strerror(rte_errno));
			return -rte_errno;
		}
	}
	return 0;
}

/* The creation attributes of QP q: its lane's CQs, the test's depths. */
void
perf_side_qp_init_attr(const struct perf_side *s, const struct perf_opts *o, uint32_t q,
		       struct ibv_qp_init_attr *ia)
{
	*ia = (struct ibv_qp_init_attr){
		.send_cq = s->scq[q % s->nb_lanes],
		.recv_cq = s->rcq[q % s->nb_lanes],
		.cap = {
			.max_send_wr = o->tx_depth,
			.max_recv_wr = RTE_MAX(o->rx_depth, 1u),
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = o->inline_size,
		},
		.qp_type = IBV_QPT_RC,
	};
}

/* The record we give the peer for QP q, once it exists. */
void
perf_side_set_dest(struct perf_side *s, uint32_t q)
{
	s->local[q] = (struct perf_dest){
		.out_reads = PERF_RD_ATOMIC,
		.qpn = s->qp[q]->qp_num,
		.psn = (uint32_t)lrand48() & PERF_PSN_MASK,
		.rkey = s->mr->rkey,
		.vaddr = (uintptr_t)perf_target(s, q),
		.gid = s->gid,
	};
}

/*
 * CQs, QPs and the memory for messages up to max_size bytes. With -R the
 * QPs come later, from the CM ids that connect them (perf_cm.c).
 */
int
perf_side_qps(struct perf_side *s, const struct perf_opts *o, uint32_t max_size)
{
	struct ibv_qp_init_attr ia;
	uint32_t q, per_lane;
	uint16_t l;

	s->slot = RTE_ALIGN_CEIL(RTE_MAX(max_size, o->test == PERF_TEST_SEND ?
					 (uint32_t)PERF_ATOMIC_SIZE : (uint32_t)PERF_CYCLE_BUFFER),
				 PERF_ALIGN);
	s->rx_slots = o->test == PERF_TEST_SEND ? o->rx_depth : 0;
	s->region = s->slot * (2 + s->rx_slots);
	s->buf_len = s->region * o->qps;
	if (s->buf_len > PERF_BUF_MAX) {
		fprintf(stderr, "roce_perf: %zu bytes of buffers is too much: fewer QPs, smaller -r or -s\n",
			s->buf_len);
		return -ENOMEM;
	}
	s->buf = aligned_alloc(PERF_ALIGN, s->buf_len);
	if (s->buf == NULL)
		return -ENOMEM;
	memset(s->buf, 0, s->buf_len);
	s->mr = rte_roce_reg_mr(s->pd, s->buf, s->buf_len, perf_access);
	if (s->mr == NULL) {
		fprintf(stderr, "roce_perf: %s: MR: %s\n", s->name, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	/* A send and a receive CQ per lane, for the QPs of that lane (q % nb_lanes). */
	per_lane = (o->qps + s->nb_lanes - 1) / s->nb_lanes;
	for (l = 0; l < s->nb_lanes; l++) {
		s->scq[l] = rte_roce_create_cq(s->ctx, per_lane * o->tx_depth + 1, NULL, NULL, l);
		s->rcq[l] = rte_roce_create_cq(s->ctx, per_lane * RTE_MAX(o->rx_depth, 1u) + 1,
					       NULL, NULL, l);
		if (s->scq[l] == NULL || s->rcq[l] == NULL) {
			fprintf(stderr, "roce_perf: %s: CQs of lane %u: %s\n", s->name, l,
				rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	for (q = 0; q < o->qps && !o->rdma_cm; q++) {
		perf_side_qp_init_attr(s, o, q, &ia);
		s->qp[q] = rte_roce_create_qp(s->pd, &ia);
		if (s->qp[q] == NULL) {
			fprintf(stderr, "roce_perf: %s: create QP: %s\n", s->name,
				rte_strerror(rte_errno));
			return -rte_errno;
		}
		perf_side_set_dest(s, q);
	}
	return 0;
}

static enum ibv_mtu
perf_mtu_enum(uint32_t bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	default: return IBV_MTU_4096;
	}
}

/* INIT, RTR, RTS to s->remote[], as perftest's ctx_connect(). */
int
perf_side_connect(struct perf_side *s, const struct perf_opts *o)
{
	const int rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	const int rts = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
	struct ibv_qp_attr a;
	uint32_t q;

	for (q = 0; q < o->qps; q++) {
		a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = 1,
					  .qp_access_flags = perf_access };
		if (rte_roce_modify_qp(s->qp[q], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0)
			goto fail;
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_RTR,
			.path_mtu = perf_mtu_enum(s->ib_mtu),
			.dest_qp_num = s->remote[q].qpn,
			.rq_psn = s->remote[q].psn,
			.max_dest_rd_atomic = PERF_RD_ATOMIC,
			.min_rnr_timer = PERF_MIN_RNR_TIMER,
			.ah_attr = {
				.is_global = 1,
				.port_num = 1,
				.grh = { .dgid = s->remote[q].gid, .sgid_index = s->gid_index,
					 .hop_limit = PERF_HOP_LIMIT },
			},
		};
		if (rte_roce_modify_qp(s->qp[q], &a, rtr) != 0)
			goto fail;
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_RTS,
			.timeout = o->qp_timeout,
			.retry_cnt = PERF_RETRY,
			.rnr_retry = PERF_RNR_RETRY,
			.sq_psn = s->local[q].psn,
			.max_rd_atomic = RTE_MIN(PERF_RD_ATOMIC, s->remote[q].out_reads),
		};
		if (rte_roce_modify_qp(s->qp[q], &a, rts) != 0)
			goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "roce_perf: %s: connecting QP %u failed: %s\n", s->name, q,
		rte_strerror(rte_errno));
	return -EIO;
}

/* Completions of the lanes' CQs cqs[0 .. nb-1], up to n in all: their number or -errno. */
int
perf_poll_cqs(struct ibv_cq *const *cqs, uint16_t nb, int n, struct ibv_wc *wc)
{
	int got = 0, k;
	uint16_t l;

	for (l = 0; l < nb && got < n; l++) {
		k = rte_roce_poll_cq(cqs[l], n - got, wc + got);
		if (k < 0)
			return k;
		got += k;
	}
	return got;
}

void
perf_side_close(struct perf_side *s)
{
	uint32_t q;
	uint16_t l;

	for (q = 0; q < PERF_QPS_MAX; q++) {
		if (s->qp[q] != NULL)
			rte_roce_destroy_qp(s->qp[q]);
	}
	if (s->mr != NULL)
		rte_roce_dereg_mr(s->mr);
	for (l = 0; l < RTE_ROCE_DEV_WORKERS_MAX; l++) {
		if (s->scq[l] != NULL)
			rte_roce_destroy_cq(s->scq[l]);
		if (s->rcq[l] != NULL)
			rte_roce_destroy_cq(s->rcq[l]);
	}
	if (s->pd != NULL)
		rte_roce_dealloc_pd(s->pd);
	if (s->ctx != NULL)
		rte_roce_close_device(s->ctx);
	if (s->fault != NULL)
		rte_roce_fault_detach(s->fault);
	if (s->port != NULL)
		rte_roce_port_destroy(s->port);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}
