/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * libFuzzer target: sequences of CM MADs from a made-up peer, with the
 * application's calls between them, drive device A's connection state
 * machine (roce_cm_state.c, IBTA Vol. 1 §12.9) through its states, where
 * fuzz_mad's single MADs stop at the first.
 *
 * Two devices over net_ring. A has a CM with a TCP and a UDP listener;
 * B only answers A's ARP and ND. The harness plays the peer: every MAD A
 * sends is taken off the wire before B, checked (a well-formed CM MAD) and
 * learnt from (A's comm IDs, TIDs and QPNs, per conversation); the peer's MADs
 * are built with the fields the conversation calls for (comm IDs, TID,
 * service ID, addresses), mutated, and delivered to A's QP1 as UD SENDs
 * from B's QP1 with a right ICRC.
 *
 * An input is a sequence of REC_LEN-byte records (struct rec): an
 * operation (a peer message, an application call, or A's CM timers firing
 * now), which conversation or id it is about, an argument, and up to
 * REC_MUTS byte edits of the MAD. The CM's own timeouts are long (4 s),
 * so that only the TIMERS records fire them and an input replays the same.
 * LLVMFuzzerCustomMutator() mutates whole records (a message again, two
 * swapped, an operation or a conversation changed, a comm ID or TID edited
 * at its offset) besides libFuzzer's byte mutations.
 *
 * Invariants, per input: every MAD A sends is a CM MAD of a known
 * attribute; every injected MAD is counted received once; every event
 * names an id the application holds (or a new one, with its listener);
 * per id at most one outcome (ESTABLISHED, REJECTED, UNREACHABLE,
 * CONNECT_ERROR), one DISCONNECTED, one TIMEWAIT_EXIT and nothing after
 * it; at the end every id destroys (QP first), no send slot stays in
 * flight, the CM holds its listeners only, their pending requests are 0,
 * and the mbuf pool is back to its count before the input.
 *
 * ROCE_FUZZ_IPV6=1: both devices on IPv6 addresses (the GRH and the
 * rdma_cm header of IPv6). ROCE_FUZZ_SEED_DIR: LLVMFuzzerInitialize()
 * writes the made-up sequences of seqs[] there.
 */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <rte_roce.h>
#include <rte_roce_cm.h>
#include <rte_roce_opcode.h>
#include <rte_roce_pkt.h>

#include "roce_cm.h"
#include "roce_port_priv.h"
#include "roce_test_eal.h"
#include "roce_test_port.h"
#include "roce_test_verbs.h"

#include "fuzz_seed.h"
#include "fuzz_wire.h"

#define FUZZ_PORT	7471
#define FUZZ_CONVS	4		/* conversations of the peer, and ids of each kind */
#define FUZZ_RECS_MAX	24
#define FUZZ_POLLS	4
#define FUZZ_SETTLE_ROUNDS	8
#define FUZZ_WAIT_POLLS	2000		/* for a MAD to be taken, the sends to complete */
#define FUZZ_FRAME_MAX	512
#define FUZZ_PARSE_MTU	4096
#define FUZZ_BACKLOG	2		/* the TCP listener's: a third request is refused */
#define FUZZ_MAD_SLOTS	2		/* A's send slots: the rest waits in the backlog */
/* 4.2 s (4.096 us * 2^20): no timer of A's CM fires unless a record says so. */
#define FUZZ_TIMEOUT	20
#define FUZZ_RETRIES	2
#define FUZZ_PRIV_LEN	16

/* The peer's values. */
#define PEER_COMM_ID	0x50000000u	/* + conversation */
#define PEER_TID	UINT64_C(0x7000000000000000)	/* + conversation */
#define PEER_QPN	0x000200u	/* + conversation */
#define PEER_PSN	0x000100u
#define PEER_GUID	UINT64_C(0x0002c9fffe00beef)
#define PEER_SPORT	40000
#define APP_NO_QP_QPN	0x000077u	/* announced by a connect without a QP */

/* A record. */
enum fuzz_op {
	/* The peer's messages, in conversation who & WHO_CONV. */
	OP_REQ, OP_MRA, OP_REJ, OP_REP, OP_RTU, OP_DREQ, OP_DREP, OP_SIDR_REQ, OP_SIDR_REP,
	OP_CPI,		/* ClassPortInfo GET */
	OP_LAP, OP_APR,	/* path migration: answered with an APR, and dropped */
	/* The application on A, on id slot who & WHO_CONV. */
	OP_CONNECT, OP_CONNECT_UD, OP_ACCEPT, OP_REJECT, OP_ESTABLISH, OP_NOTIFY,
	OP_DISCONNECT, OP_DESTROY,
	OP_TIMERS,	/* every armed timer of A's CM fires now, (arg & 3) + 1 times */
	OP_MAX
};
#define WHO_CONV	0x03
#define WHO_STALE_TID	0x04	/* the peer's MAD carries another TID */
#define WHO_SWAP_IDS	0x08	/* its comm IDs swapped */
#define WHO_PASSIVE	0x10	/* the application's call is on a passive id */
#define ARG_NO_QP	0x01	/* OP_CONNECT: announce APP_NO_QP_QPN, no QP (CONNECT_RESPONSE) */
#define REC_MUTS	4

struct rec {
	uint8_t op;
	uint8_t who;
	uint8_t arg;
	uint8_t resv;
	uint8_t mut[REC_MUTS][2];	/* MAD byte offset, XOR mask (0: no edit) */
};
#define REC_LEN		sizeof(struct rec)

/* What the peer knows of a conversation. */
struct conv {
	uint32_t peer_id;	/* its comm ID (or SIDR request ID) */
	uint32_t a_id;		/* A's, as A's MADs said; 0 until then */
	uint64_t tid;		/* of the exchange in progress */
	uint32_t a_qpn;
	bool taken;		/* a REQ of A's or of the peer's started it */
};

/* An id the application on A holds, and the events it saw. */
struct app_id {
	struct rte_roce_cm_id *id;
	bool no_qp;
	unsigned int outcomes;		/* ESTABLISHED, REJECTED, UNREACHABLE, CONNECT_ERROR */
	unsigned int disconnected;
	bool timewait_exit;
};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static struct roce_test_env env;
static struct rte_roce_cm *cm;
static struct rte_roce_cm_channel *ch;
static struct rte_roce_cm_id *listener, *udp_listener;
static struct rte_ether_addr mac[2];	/* A's, B's */
static bool ipv6;
static unsigned int pool_baseline;
static uint32_t ids_baseline;
static uint32_t peer_psn;	/* BTH PSN of the peer's UD frames */

static struct conv conv[FUZZ_CONVS];
static struct app_id active[FUZZ_CONVS], passive[FUZZ_CONVS];
static uint64_t a_mads;		/* MADs A sent, all inputs */
static uint64_t outcomes_seen;	/* ids that reached an outcome, all inputs */

static const struct rte_roce_cm_conf fuzz_conf = {
	.response_timeout = FUZZ_TIMEOUT,
	.max_cm_retries = FUZZ_RETRIES,
	.mad_slots = FUZZ_MAD_SLOTS,
};

static const uint16_t op_attr[] = {
	[OP_REQ] = RTE_ROCE_CM_ATTR_REQ, [OP_MRA] = RTE_ROCE_CM_ATTR_MRA,
	[OP_REJ] = RTE_ROCE_CM_ATTR_REJ, [OP_REP] = RTE_ROCE_CM_ATTR_REP,
	[OP_RTU] = RTE_ROCE_CM_ATTR_RTU, [OP_DREQ] = RTE_ROCE_CM_ATTR_DREQ,
	[OP_DREP] = RTE_ROCE_CM_ATTR_DREP, [OP_SIDR_REQ] = RTE_ROCE_CM_ATTR_SIDR_REQ,
	[OP_SIDR_REP] = RTE_ROCE_CM_ATTR_SIDR_REP, [OP_CPI] = RTE_ROCE_CM_ATTR_CLASS_PORT_INFO,
	[OP_LAP] = RTE_ROCE_CM_ATTR_LAP, [OP_APR] = RTE_ROCE_CM_ATTR_APR,
};

/* Learning from A's MADs */

static struct conv *
conv_of_peer_id(uint32_t peer_id)
{
	uint32_t k = peer_id - PEER_COMM_ID;

	return k < FUZZ_CONVS ? &conv[k] : NULL;
}

/* A's REQ or SIDR_REQ starts a conversation (sent again: the same one). */
static void
learn_request(uint32_t a_id, uint64_t tid, uint32_t a_qpn)
{
	unsigned int k;

	for (k = 0; k < FUZZ_CONVS; k++)
		if (conv[k].taken && conv[k].a_id == a_id)
			break;
	if (k == FUZZ_CONVS)
		for (k = 0; k < FUZZ_CONVS && conv[k].taken; k++)
			;
	if (k == FUZZ_CONVS)
		return;
	conv[k].taken = true;
	conv[k].a_id = a_id;
	conv[k].tid = tid;
	conv[k].a_qpn = a_qpn;
}

/* Every MAD A sends: a CM MAD of a known attribute, and what it tells the peer. */
static void
learn(const struct rte_roce_mad *mad)
{
	uint16_t attr = rte_be_to_cpu_16(mad->hdr.attr_id);
	uint64_t tid = rte_be_to_cpu_64(mad->hdr.tid);
	struct rte_roce_cm_req req;
	struct rte_roce_cm_rep rep;
	struct rte_roce_cm_rtu ids;
	struct conv *c;

	FUZZ_CHECK(mad->hdr.base_version == RTE_ROCE_MAD_BASE_VERSION);
	FUZZ_CHECK(mad->hdr.mgmt_class == RTE_ROCE_MGMT_CLASS_CM);
	a_mads++;
	/*
	 * A GetResp echoes the GET's header (IBTA Vol. 1 §13.4.7): ClassPortInfo
	 * of our class version, or a status that says why not.
	 */
	if (mad->hdr.method == RTE_ROCE_MAD_METHOD_GET_RESP) {
		FUZZ_CHECK(mad->hdr.status != 0 ||
			   (attr == RTE_ROCE_CM_ATTR_CLASS_PORT_INFO &&
			    mad->hdr.class_version == RTE_ROCE_CM_CLASS_VERSION));
		return;
	}
	FUZZ_CHECK(mad->hdr.method == RTE_ROCE_MAD_METHOD_SEND);
	FUZZ_CHECK(mad->hdr.class_version == RTE_ROCE_CM_CLASS_VERSION);
	FUZZ_CHECK(attr >= RTE_ROCE_CM_ATTR_REQ && attr <= RTE_ROCE_CM_ATTR_APR);
	memcpy(&req, mad->data, sizeof(req));
	memcpy(&rep, mad->data, sizeof(rep));
	memcpy(&ids, mad->data, sizeof(ids));
	switch (attr) {
	case RTE_ROCE_CM_ATTR_REQ:
		FUZZ_CHECK(req.local_comm_id != 0);
		learn_request(rte_be_to_cpu_32(req.local_comm_id), tid,
			      rte_be_to_cpu_32(req.qpn_resp_res) >> RTE_ROCE_CM_QPN_SHIFT);
		return;
	case RTE_ROCE_CM_ATTR_SIDR_REQ:
		learn_request(rte_be_to_cpu_32(req.local_comm_id), tid, 0);
		return;
	case RTE_ROCE_CM_ATTR_SIDR_REP:
	case RTE_ROCE_CM_ATTR_APR:	/* answers from the LAP alone, not from a connection */
		return;
	default:
		break;
	}
	/* The rest name both comm IDs first: the peer's conversation, if one of its IDs. */
	c = conv_of_peer_id(rte_be_to_cpu_32(ids.remote_comm_id));
	if (c == NULL || ids.local_comm_id == 0)
		return;
	c->a_id = rte_be_to_cpu_32(ids.local_comm_id);
	if (attr == RTE_ROCE_CM_ATTR_REP)
		c->a_qpn = rte_be_to_cpu_32(rep.qpn_vendor_h) >> RTE_ROCE_CM_QPN_SHIFT;
	if (attr == RTE_ROCE_CM_ATTR_DREQ)
		c->tid = tid;
}

/* A's frame to B: a MAD to QP1 is checked and learnt from. */
static void
take_from_a(const struct rte_mbuf *m)
{
	struct rte_roce_pkt pkt;
	struct rte_roce_mad mad;
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

	if (rte_roce_pkt_parse(f, m->data_len, FUZZ_PARSE_MTU, &pkt) != RTE_ROCE_DROP_NONE ||
	    pkt.dqpn != RTE_ROCE_QP1_QPN)
		return;
	FUZZ_CHECK(pkt.opcode == RTE_ROCE_OP_UD_SEND_ONLY);
	FUZZ_CHECK(pkt.payload_len == RTE_ROCE_MAD_LEN);
	FUZZ_CHECK(pkt.deth.qkey == RTE_ROCE_QP1_QKEY);
	memcpy(&mad, f + pkt.payload_off, sizeof(mad));
	learn(&mad);
}

static void
pump(unsigned int polls)
{
	unsigned int i;

	for (i = 0; i < polls; i++) {
		fuzz_wire_poll(&env, take_from_a);
		rte_roce_cm_poll(cm);
	}
}

/* The application */

static struct app_id *
app_find(const struct rte_roce_cm_id *id)
{
	unsigned int k;

	for (k = 0; k < FUZZ_CONVS; k++) {
		if (active[k].id == id)
			return &active[k];
		if (passive[k].id == id)
			return &passive[k];
	}
	return NULL;
}

static void
app_create_qp(struct rte_roce_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = env.s[0].scq,
		.recv_cq = env.s[0].rcq,
		.qp_type = id->ps == RTE_ROCE_CM_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};

	if (id->qp == NULL)
		FUZZ_CHECK(rte_roce_cm_create_qp(id, env.s[0].pd, &attr) <= 0);
}

static void
app_connect(struct app_id *a)
{
	static const char data[FUZZ_PRIV_LEN] = "fuzz_cm connect";
	struct rte_roce_cm_conn_param p = {
		.private_data = data,
		.private_data_len = sizeof(data),
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};

	if (a->no_qp)
		p.qp_num = APP_NO_QP_QPN;
	else if (a->id->ps != RTE_ROCE_CM_PS_UDP)
		app_create_qp(a->id);
	FUZZ_CHECK(rte_roce_cm_connect(a->id, &p) <= 0);
}

/* A new passive id in a free slot; none free: destroyed at once (a REJ goes out). */
static void
app_take_request(struct rte_roce_cm_id *id)
{
	unsigned int k;

	for (k = 0; k < FUZZ_CONVS && passive[k].id != NULL; k++)
		;
	if (k == FUZZ_CONVS) {
		FUZZ_CHECK(rte_roce_cm_destroy_id(id) == 0);
		return;
	}
	memset(&passive[k], 0, sizeof(passive[k]));
	passive[k].id = id;
}

/* What an event says of its id: the invariants on the sequence of events. */
static void
app_event_check(struct app_id *a, enum rte_roce_cm_event_type type)
{
	FUZZ_CHECK(!a->timewait_exit);	/* nothing after TIMEWAIT_EXIT */
	switch (type) {
	case RTE_ROCE_CM_EVENT_ESTABLISHED:
	case RTE_ROCE_CM_EVENT_REJECTED:
	case RTE_ROCE_CM_EVENT_UNREACHABLE:
	case RTE_ROCE_CM_EVENT_CONNECT_ERROR:
		FUZZ_CHECK(a->outcomes++ == 0);
		outcomes_seen++;
		break;
	case RTE_ROCE_CM_EVENT_DISCONNECTED:
		FUZZ_CHECK(a->disconnected++ == 0);
		break;
	case RTE_ROCE_CM_EVENT_TIMEWAIT_EXIT:
		FUZZ_CHECK(a->disconnected == 1);
		a->timewait_exit = true;
		break;
	case RTE_ROCE_CM_EVENT_ADDR_RESOLVED:
	case RTE_ROCE_CM_EVENT_ROUTE_RESOLVED:
	case RTE_ROCE_CM_EVENT_CONNECT_RESPONSE:
		break;
	default:
		/* ADDR_ERROR, ROUTE_ERROR...: B is always there */
		fprintf(stderr, "fuzz_cm: unexpected %s\n", rte_roce_cm_event_str(type));
		FUZZ_CHECK(false);
	}
}

/* Every event queued, acknowledged, and acted on as an application would; how many. */
static unsigned int
app_events(void)
{
	struct rte_roce_cm_event *ev;
	enum rte_roce_cm_event_type type;
	struct rte_roce_cm_id *id;
	struct app_id *a;
	unsigned int n = 0;

	while (rte_roce_cm_get_cm_event(ch, &ev) == 0) {
		n++;
		type = ev->event;
		id = ev->id;
		a = app_find(id);
		if (type == RTE_ROCE_CM_EVENT_CONNECT_REQUEST) {
			FUZZ_CHECK(a == NULL);
			FUZZ_CHECK(ev->listen_id == listener || ev->listen_id == udp_listener);
			FUZZ_CHECK(rte_roce_cm_ack_cm_event(ev) == 0);
			app_take_request(id);
			continue;
		}
		/* No event for an id the application destroyed, or never had. */
		FUZZ_CHECK(a != NULL);
		app_event_check(a, type);
		FUZZ_CHECK(rte_roce_cm_ack_cm_event(ev) == 0);
		if (type == RTE_ROCE_CM_EVENT_ADDR_RESOLVED)
			FUZZ_CHECK(rte_roce_cm_resolve_route(id, 1000) == 0);
		else if (type == RTE_ROCE_CM_EVENT_ROUTE_RESOLVED)
			app_connect(a);
	}
	return n;
}

/* A's CM and the application run until neither has more to do (a connect's steps, its REQ). */
static void
settle(void)
{
	unsigned int i;

	for (i = 0; i < FUZZ_SETTLE_ROUNDS; i++) {
		pump(FUZZ_POLLS);
		if (app_events() == 0)
			break;
	}
}

static void
app_close(struct app_id *a)
{
	if (a->id == NULL)
		return;
	app_events();	/* its events queued: acknowledged, or it cannot go */
	if (a->id->qp != NULL)
		FUZZ_CHECK(rte_roce_cm_destroy_qp(a->id) == 0);
	FUZZ_CHECK(rte_roce_cm_destroy_id(a->id) == 0);
	a->id = NULL;
}

static void
app_start(struct app_id *a, enum rte_roce_cm_port_space ps, bool no_qp)
{
	struct sockaddr_storage src, dst;

	if (a->id != NULL)
		return;
	memset(a, 0, sizeof(*a));
	a->no_qp = no_qp;
	FUZZ_CHECK(rte_roce_cm_create_id(ch, &a->id, NULL, ps) == 0);
	roce_test_sockaddr(&src, ipv6, 0, 0);
	roce_test_sockaddr(&dst, ipv6, 1, FUZZ_PORT);
	FUZZ_CHECK(rte_roce_cm_resolve_addr(a->id, (struct sockaddr *)&src,
					    (struct sockaddr *)&dst, 1000) == 0);
}

static void
app_accept(struct app_id *a, uint8_t arg)
{
	static const char data[FUZZ_PRIV_LEN] = "fuzz_cm accept";
	struct rte_roce_cm_conn_param p = {
		.private_data = data,
		.private_data_len = arg >> 4,
		.responder_resources = arg & 0x3,
		.initiator_depth = (arg >> 2) & 0x3,
		.rnr_retry_count = 7,
	};

	app_create_qp(a->id);
	FUZZ_CHECK(rte_roce_cm_accept(a->id, &p) <= 0);
}

/* An application call on A; the calls may be out of place (misuse), never a crash. */
static void
app_call(const struct rec *r)
{
	struct app_id *a = (r->who & WHO_PASSIVE) != 0 ? &passive[r->who & WHO_CONV] :
							 &active[r->who & WHO_CONV];
	static const char data[] = "no";

	if (r->op == OP_CONNECT || r->op == OP_CONNECT_UD) {
		app_start(&active[r->who & WHO_CONV],
			  r->op == OP_CONNECT ? RTE_ROCE_CM_PS_TCP : RTE_ROCE_CM_PS_UDP,
			  r->op == OP_CONNECT && (r->arg & ARG_NO_QP) != 0);
		return;
	}
	if (a->id == NULL)
		return;
	switch (r->op) {
	case OP_ACCEPT:
		app_accept(a, r->arg);
		break;
	case OP_REJECT:
		FUZZ_CHECK(rte_roce_cm_reject(a->id, data, r->arg % sizeof(data)) <= 0);
		break;
	case OP_ESTABLISH:
		FUZZ_CHECK(rte_roce_cm_establish(a->id) <= 0);
		break;
	case OP_NOTIFY:
		FUZZ_CHECK(rte_roce_cm_notify(a->id, IBV_EVENT_COMM_EST) <= 0);
		break;
	case OP_DISCONNECT:
		FUZZ_CHECK(rte_roce_cm_disconnect(a->id) <= 0);
		break;
	case OP_DESTROY:
		app_close(a);
		break;
	default:
		break;
	}
}

/* Every armed timer of A's CM falls due now. */
static void
fire_timers(unsigned int times)
{
	struct roce_cm_id *id;
	unsigned int i;

	for (i = 0; i < times; i++) {
		TAILQ_FOREACH(id, &cm->ids, next)
			if (id->deadline != 0)
				id->deadline = 1;
		settle();
	}
}

/* The peer */

/* rdma_cm's header of the peer's REQ and SIDR_REQ: B to A's listener. */
static void
peer_cma_hdr(uint8_t *private_data)
{
	struct rte_roce_cma_hdr h;
	struct sockaddr_storage ss[2];
	unsigned int i;

	memset(&h, 0, sizeof(h));
	h.version = RTE_ROCE_CMA_VERSION;
	h.ip_version = (ipv6 ? 6 : 4) << RTE_ROCE_CMA_IP_VERSION_SHIFT;
	h.port = RTE_BE16(PEER_SPORT);
	for (i = 0; i < 2; i++)
		roce_test_sockaddr(&ss[i], ipv6, 1 - i, 0);
	if (ipv6) {
		memcpy(h.src.ip6, &((struct sockaddr_in6 *)&ss[0])->sin6_addr, sizeof(h.src.ip6));
		memcpy(h.dst.ip6, &((struct sockaddr_in6 *)&ss[1])->sin6_addr, sizeof(h.dst.ip6));
	} else {
		h.src.ip4.addr = ((struct sockaddr_in *)&ss[0])->sin_addr.s_addr;
		h.dst.ip4.addr = ((struct sockaddr_in *)&ss[1])->sin_addr.s_addr;
	}
	memcpy(private_data, &h, sizeof(h));
}

static void
peer_req(const struct conv *c, unsigned int k, uint8_t arg, uint8_t *data)
{
	struct rte_roce_cm_req req;

	memset(&req, 0, sizeof(req));
	req.local_comm_id = rte_cpu_to_be_32(c->peer_id);
	req.service_id = rte_cpu_to_be_64(RTE_ROCE_CMA_SERVICE_ID(RTE_ROCE_CMA_PS_TCP, FUZZ_PORT));
	req.local_ca_guid = rte_cpu_to_be_64(PEER_GUID);
	req.qpn_resp_res = rte_cpu_to_be_32((PEER_QPN + k) << RTE_ROCE_CM_QPN_SHIFT | (arg & 7));
	req.eecn_init_depth = rte_cpu_to_be_32((arg >> 4) & 7);
	req.eecn_timeout_type = rte_cpu_to_be_32(FUZZ_TIMEOUT << RTE_ROCE_CM_REQ_REMOTE_TIMEOUT_SHIFT |
		RTE_ROCE_CM_TRANSPORT_RC << RTE_ROCE_CM_REQ_TRANSPORT_SHIFT);
	req.psn_timeout_retry = rte_cpu_to_be_32(PEER_PSN << RTE_ROCE_CM_PSN_SHIFT |
		FUZZ_TIMEOUT << RTE_ROCE_CM_REQ_LOCAL_TIMEOUT_SHIFT | 7);
	req.pkey = RTE_BE16(RTE_ROCE_DEFAULT_PKEY);
	req.mtu_rdc_rnr = IBV_MTU_1024 << RTE_ROCE_CM_REQ_MTU_SHIFT | 7;
	req.max_cm_retries_srq = FUZZ_RETRIES << RTE_ROCE_CM_REQ_MAX_RETRIES_SHIFT;
	req.primary.local_lid = RTE_BE16(RTE_ROCE_CM_PERMISSIVE_LID);
	req.primary.remote_lid = RTE_BE16(RTE_ROCE_CM_PERMISSIVE_LID);
	memcpy(req.primary.local_gid, env.s[1].gid.raw, sizeof(req.primary.local_gid));
	memcpy(req.primary.remote_gid, env.s[0].gid.raw, sizeof(req.primary.remote_gid));
	req.primary.hop_limit = 64;
	req.primary.ack_timeout = 14 << RTE_ROCE_CM_PATH_ACK_TIMEOUT_SHIFT;
	peer_cma_hdr(req.private_data);
	memcpy(data, &req, sizeof(req));
}

static void
peer_sidr_req(const struct conv *c, uint8_t *data)
{
	struct rte_roce_cm_sidr_req req;

	memset(&req, 0, sizeof(req));
	req.request_id = rte_cpu_to_be_32(c->peer_id);
	req.pkey = RTE_BE16(RTE_ROCE_DEFAULT_PKEY);
	req.service_id = rte_cpu_to_be_64(RTE_ROCE_CMA_SERVICE_ID(RTE_ROCE_CMA_PS_UDP, FUZZ_PORT));
	peer_cma_hdr(req.private_data);
	memcpy(data, &req, sizeof(req));
}

static void
peer_sidr_rep(const struct conv *c, unsigned int k, uint8_t arg, uint8_t *data)
{
	struct rte_roce_cm_sidr_rep rep;

	memset(&rep, 0, sizeof(rep));
	rep.request_id = rte_cpu_to_be_32(c->a_id);
	rep.status = arg % 5;	/* 0 (success) to 4 (redirect) */
	rep.qpn_vendor_l = rte_cpu_to_be_32((PEER_QPN + k) << RTE_ROCE_CM_QPN_SHIFT);
	rep.service_id = rte_cpu_to_be_64(RTE_ROCE_CMA_SERVICE_ID(RTE_ROCE_CMA_PS_UDP, FUZZ_PORT));
	rep.qkey = RTE_BE32(RTE_ROCE_CM_UDP_QKEY);
	memcpy(data, &rep, sizeof(rep));
}

/* The messages that start with both comm IDs: REP, MRA, REJ, RTU, DREQ, DREP, LAP, APR. */
static void
peer_conn_msg(enum fuzz_op op, const struct conv *c, unsigned int k, uint8_t arg, uint8_t *data)
{
	union {
		struct rte_roce_cm_rep rep;
		struct rte_roce_cm_mra mra;
		struct rte_roce_cm_rej rej;
		struct rte_roce_cm_dreq dreq;
		struct rte_roce_cm_rtu ids;
	} m;

	memset(&m, 0, sizeof(m));
	m.ids.local_comm_id = rte_cpu_to_be_32(c->peer_id);
	m.ids.remote_comm_id = rte_cpu_to_be_32(c->a_id);
	switch (op) {
	case OP_REP:
		m.rep.qpn_vendor_h = rte_cpu_to_be_32((PEER_QPN + k) << RTE_ROCE_CM_QPN_SHIFT);
		m.rep.psn_vendor_l = rte_cpu_to_be_32(PEER_PSN << RTE_ROCE_CM_PSN_SHIFT);
		m.rep.resp_resources = arg & 0x7;
		m.rep.init_depth = (arg >> 3) & 0x7;
		m.rep.rnr_retry_srq = 7 << RTE_ROCE_CM_REP_RNR_RETRY_SHIFT;
		m.rep.local_ca_guid = rte_cpu_to_be_64(PEER_GUID);
		break;
	case OP_MRA:
		m.mra.message_mraed = (arg % 3) << RTE_ROCE_CM_MSG_SHIFT;
		m.mra.service_timeout = (arg >> 3) << RTE_ROCE_CM_MRA_TIMEOUT_SHIFT;
		break;
	case OP_REJ:
		m.rej.message_rejected = (arg % 3) << RTE_ROCE_CM_MSG_SHIFT;
		m.rej.reason = rte_cpu_to_be_16(arg);
		break;
	case OP_DREQ:
		m.dreq.remote_qpn = rte_cpu_to_be_32(c->a_qpn << RTE_ROCE_CM_QPN_SHIFT);
		break;
	default:
		break;
	}
	memcpy(data, &m, sizeof(m));
}

/* The record's MAD from the peer, in its conversation, edited as the record says. */
static void
peer_mad(const struct rec *r, struct rte_roce_mad *mad)
{
	unsigned int k = r->who & WHO_CONV, i;
	struct conv *c = &conv[k];
	uint8_t *bytes = (uint8_t *)mad;
	uint32_t swap;

	if (r->op == OP_REQ || r->op == OP_SIDR_REQ) {
		/* The peer starts conversation k (or sends its request again). */
		if (!c->taken || c->tid != PEER_TID + k)
			memset(c, 0, sizeof(*c));
		c->peer_id = PEER_COMM_ID + k;
		c->taken = true;
		c->tid = PEER_TID + k;
	}
	roce_cm_mad_init(mad, op_attr[r->op], c->tid);
	if (r->op == OP_REQ)
		peer_req(c, k, r->arg, mad->data);
	else if (r->op == OP_SIDR_REQ)
		peer_sidr_req(c, mad->data);
	else if (r->op == OP_SIDR_REP)
		peer_sidr_rep(c, k, r->arg, mad->data);
	else if (r->op == OP_CPI)
		mad->hdr.method = RTE_ROCE_MAD_METHOD_GET;
	else
		peer_conn_msg(r->op, c, k, r->arg, mad->data);
	if ((r->who & WHO_STALE_TID) != 0)
		mad->hdr.tid ^= RTE_BE64(1);
	if ((r->who & WHO_SWAP_IDS) != 0) {
		memcpy(&swap, mad->data, sizeof(swap));
		memmove(mad->data, mad->data + sizeof(swap), sizeof(swap));
		memcpy(mad->data + sizeof(swap), &swap, sizeof(swap));
	}
	for (i = 0; i < REC_MUTS; i++)
		bytes[r->mut[i][0]] ^= r->mut[i][1];
}

/* The peer's MAD as a UD SEND from B's QP1 to A's QP1, addressed from B, with a right ICRC. */
static void
peer_send(const struct rte_roce_mad *mad)
{
	static uint8_t frame[FUZZ_FRAME_MAX] __rte_aligned(RTE_CACHE_LINE_SIZE);
	struct rte_roce_cm_stats before, after;
	struct rte_roce_pkt pkt;
	struct rte_mbuf *m;
	unsigned int i;
	int n;

	rte_roce_pkt_init(&pkt, RTE_ROCE_OP_UD_SEND_ONLY);
	pkt.dst_mac = mac[0];
	pkt.src_mac = mac[1];
	pkt.ip_version = ipv6 ? 6 : IPVERSION;
	memcpy(pkt.sgid.raw, env.s[1].gid.raw, sizeof(pkt.sgid.raw));
	memcpy(pkt.dgid.raw, env.s[0].gid.raw, sizeof(pkt.dgid.raw));
	pkt.dqpn = RTE_ROCE_QP1_QPN;
	pkt.psn = peer_psn++ & RTE_ROCE_PSN_MASK;
	pkt.deth.qkey = RTE_ROCE_QP1_QKEY;
	pkt.deth.sqpn = RTE_ROCE_QP1_QPN;
	pkt.payload_len = RTE_ROCE_MAD_LEN;
	n = rte_roce_pkt_build(&pkt, mad, frame, sizeof(frame));
	FUZZ_CHECK(n > 0);
	m = roce_test_frame(frame, (uint32_t)n);
	FUZZ_CHECK(m != NULL);
	FUZZ_CHECK(rte_roce_cm_stats_get(cm, &before) == 0);
	FUZZ_CHECK(rte_ring_enqueue(env.pair->ring[0], m) == 0);
	/* Taken once: A's QP1 always has a receive posted for it. */
	for (i = 0; i < FUZZ_WAIT_POLLS; i++) {
		pump(1);
		FUZZ_CHECK(rte_roce_cm_stats_get(cm, &after) == 0);
		if (after.mads_rcvd != before.mads_rcvd)
			break;
	}
	FUZZ_CHECK(after.mads_rcvd == before.mads_rcvd + 1);
}

static void
play(const struct rec *r)
{
	struct rte_roce_mad mad;

	if (r->op < OP_CONNECT) {
		peer_mad(r, &mad);
		peer_send(&mad);
	} else if (r->op == OP_TIMERS) {
		fire_timers((r->arg & 0x3) + 1u);
	} else {
		app_call(r);
	}
	settle();
}

/*
 * A peer's message with another address in it (a REQ's path) is answered
 * there, and the answer waits for an ARP or ND reply that never comes:
 * those resolutions give up now, not seconds later, so that their frames
 * are dropped and their sends complete within the input. B's address is
 * left to resolve (its entry expires and is asked again now and then).
 */
static void
neigh_give_up(struct rte_roce_port *port)
{
	struct roce_neigh_table *t = &port->neigh;
	uint32_t i;

	for (i = 0; i < t->nb_entries; i++)
		if (t->entries[i].state == ROCE_NEIGH_INCOMPLETE &&
		    memcmp(&t->entries[i].ip, env.s[1].gid.raw, sizeof(t->entries[i].ip)) != 0) {
			t->entries[i].retries_left = 0;
			t->entries[i].deadline = 0;
			t->next_timer = 0;
		}
}

/* Frames A's port holds for neighbours being resolved. */
static unsigned int
neigh_queued(const struct rte_roce_port *port)
{
	unsigned int n = 0;
	uint32_t i;

	for (i = 0; i < port->neigh.nb_entries; i++)
		n += port->neigh.entries[i].nb_queued;
	return n;
}

/* The end of an input: everything goes, and nothing is left behind. */
static void
teardown(void)
{
	unsigned int k, i;

	for (k = 0; k < FUZZ_CONVS; k++) {
		app_close(&active[k]);
		app_close(&passive[k]);
	}
	/* A MAD of the backlog may go out meanwhile, to another address nobody has. */
	for (i = 0; i < FUZZ_WAIT_POLLS && (rte_roce_cm_sends_pending(cm) != 0 ||
					    neigh_queued(env.s[0].port) != 0); i++) {
		neigh_give_up(env.s[0].port);
		pump(1);
	}
	FUZZ_CHECK(rte_roce_cm_sends_pending(cm) == 0);
	FUZZ_CHECK(neigh_queued(env.s[0].port) == 0);
	app_events();	/* none: every id is gone */
	FUZZ_CHECK(cm->nb_ids == ids_baseline);
	FUZZ_CHECK(roce_cm_id(listener)->pending == 0);
	FUZZ_CHECK(roce_cm_id(udp_listener)->pending == 0);
	roce_test_pair_drain(env.pair);
	FUZZ_CHECK(rte_mempool_in_use_count(roce_test_mbuf_pool()) == pool_baseline);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rec r;
	unsigned int k;
	size_t off;

	if (size == 0 || size % REC_LEN != 0 || size / REC_LEN > FUZZ_RECS_MAX)
		return -1;	/* not added to the corpus */
	memset(conv, 0, sizeof(conv));
	for (k = 0; k < FUZZ_CONVS; k++)
		conv[k].peer_id = PEER_COMM_ID + k;
	for (off = 0; off < size; off += REC_LEN) {
		memcpy(&r, data + off, REC_LEN);
		r.op %= OP_MAX;
		play(&r);
	}
	teardown();
	return 0;
}

/*
 * Record-level mutations, each keeping the input a whole number of
 * records: a record again (a duplicate message, a call twice), two
 * swapped (messages out of order), an operation or a conversation
 * changed, or an edit aimed at a field the state machine reads (the two
 * comm IDs, the TID, the attribute). Otherwise libFuzzer's own.
 */
static const uint8_t mad_field_off[] = {
	offsetof(struct rte_roce_mad_hdr, tid) + 7,
	offsetof(struct rte_roce_mad_hdr, attr_id) + 1,
	offsetof(struct rte_roce_mad_hdr, method),
	RTE_ROCE_MAD_HDR_LEN + 3,	/* local comm ID, low byte */
	RTE_ROCE_MAD_HDR_LEN + 7,	/* remote comm ID, low byte */
	RTE_ROCE_MAD_HDR_LEN + 8,	/* REQ: vendor ID; REP: Q_Key; REJ: message, DREQ: QPN */
	RTE_ROCE_MAD_HDR_LEN + 11,	/* REQ: service ID, low byte (the port) */
};

size_t
LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	size_t n = size / REC_LEN, max_n = RTE_MIN(max_size / REC_LEN, (size_t)FUZZ_RECS_MAX);
	size_t i, j;
	uint8_t tmp[REC_LEN];
	struct rec *r;

	srand(seed);
	if (n == 0 || size % REC_LEN != 0 || rand() % 4 == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	i = (size_t)rand() % n;
	j = (size_t)rand() % n;
	r = (struct rec *)(data + i * REC_LEN);
	switch (rand() % 5) {
	case 0:		/* record i again, after record j */
		if (n == max_n)
			break;
		memcpy(tmp, r, REC_LEN);
		memmove(data + (j + 2) * REC_LEN, data + (j + 1) * REC_LEN, (n - j - 1) * REC_LEN);
		memcpy(data + (j + 1) * REC_LEN, tmp, REC_LEN);
		return size + REC_LEN;
	case 1:
		memcpy(tmp, r, REC_LEN);
		memcpy(r, data + j * REC_LEN, REC_LEN);
		memcpy(data + j * REC_LEN, tmp, REC_LEN);
		break;
	case 2:
		r->op = (uint8_t)(rand() % OP_MAX);
		break;
	case 3:
		r->who = (uint8_t)((r->who & ~WHO_CONV) | (rand() & WHO_CONV));
		break;
	default:
		j = (size_t)rand() % REC_MUTS;
		r->mut[j][0] = mad_field_off[rand() % (int)RTE_DIM(mad_field_off)];
		r->mut[j][1] = (uint8_t)(1u << (rand() % CHAR_BIT));
	}
	return size;
}

/* Seeds: made-up sequences that reach each state. */
#define S(op, who, arg)	{ (op), (who), (arg), 0, { { 0 } } }
#define SEQ_END		{ OP_MAX, 0, 0, 0, { { 0 } } }
#define P		WHO_PASSIVE

struct seq {
	const char *name;
	struct rec rec[FUZZ_RECS_MAX];
};

static const struct seq seqs[] = {
	{ "passive_conn_dreq", { S(OP_REQ, 0, 0x11), S(OP_ACCEPT, P, 0x15), S(OP_RTU, 0, 0),
				 S(OP_DREQ, 0, 0), S(OP_DREQ, 0, 0), S(OP_TIMERS, 0, 1), SEQ_END } },
	{ "passive_dup_req_mra", { S(OP_REQ, 0, 0x11), S(OP_REQ, 0, 0x11), S(OP_REQ, 0, 0x11),
				   S(OP_ACCEPT, P, 0x15), S(OP_REQ, 0, 0x11), S(OP_RTU, 0, 0),
				   S(OP_DISCONNECT, P, 0), S(OP_DREP, 0, 0), S(OP_TIMERS, 0, 0),
				   SEQ_END } },
	{ "passive_rep_timeout", { S(OP_REQ, 1, 0x11), S(OP_ACCEPT, P, 0), S(OP_MRA, 1, 0x41),
				   S(OP_TIMERS, 0, 3), SEQ_END } },
	{ "passive_backlog", { S(OP_REQ, 0, 0), S(OP_REQ, 1, 0), S(OP_REQ, 2, 0), S(OP_REJECT, P, 2),
			       S(OP_REQ, 3, 0), S(OP_REJ, 1, 28), S(OP_NOTIFY, P | 3, 0), SEQ_END } },
	{ "passive_notify_dreq", { S(OP_REQ, 0, 0x11), S(OP_ACCEPT, P, 0), S(OP_DREQ, 0, 0),
				   S(OP_NOTIFY, P, 0), S(OP_RTU, 0, 0), S(OP_TIMERS, 0, 0), SEQ_END } },
	{ "active_conn_dreq", { S(OP_CONNECT, 0, 0), S(OP_REP, 0, 0x09), S(OP_REP, 0, 0x09),
				S(OP_DREQ, 0, 0), S(OP_TIMERS, 0, 1), S(OP_DREQ, 0, 0), SEQ_END } },
	{ "active_mra_rej", { S(OP_CONNECT, 0, 0), S(OP_MRA, 0, 0x40), S(OP_TIMERS, 0, 0),
			      S(OP_REJ, 0, 28), S(OP_REP, 0, 0), SEQ_END } },
	{ "active_disconnect", { S(OP_CONNECT, 1, 0), S(OP_REP, 0, 0x09), S(OP_DISCONNECT, 1, 0),
				 S(OP_DREQ, 0, 0), S(OP_TIMERS, 0, 1), SEQ_END } },
	{ "active_req_timeout", { S(OP_CONNECT, 0, 0), S(OP_TIMERS, 0, 3), S(OP_REP, 0, 0),
				  SEQ_END } },
	{ "active_no_qp", { S(OP_CONNECT, 0, ARG_NO_QP), S(OP_REP, 0, 0x09), S(OP_REP, 0, 0x09),
			    S(OP_ESTABLISH, 0, 0), S(OP_DISCONNECT, 0, 0), S(OP_TIMERS, 0, 2),
			    SEQ_END } },
	{ "sidr_active", { S(OP_CONNECT_UD, 0, 0), S(OP_SIDR_REP, 0, 0), S(OP_CONNECT_UD, 1, 0),
			   S(OP_TIMERS, 0, 3), SEQ_END } },
	{ "sidr_passive", { S(OP_SIDR_REQ, 0, 0), S(OP_SIDR_REQ, 0, 0), S(OP_ACCEPT, P, 0),
			    S(OP_SIDR_REQ, 0, 0), S(OP_SIDR_REQ, 1, 0), S(OP_REJECT, P | 1, 1),
			    S(OP_CPI, 0, 0), SEQ_END } },
	{ "destroy_mid_way", { S(OP_REQ, 0, 0x11), S(OP_ACCEPT, P, 0), S(OP_DESTROY, P, 0),
			       S(OP_CONNECT, 0, 0), S(OP_REP, 0, 0), S(OP_DESTROY, 0, 0),
			       S(OP_RTU, 0, 0), S(OP_DREQ, 0, 0), SEQ_END } },
};

static void
write_seqs(const char *dir)
{
	static uint8_t buf[FUZZ_RECS_MAX * REC_LEN];
	char path[PATH_MAX];
	unsigned int k, n;

	/* A fresh build has no corpus yet: libFuzzer refuses a missing one. */
	FUZZ_CHECK(mkdir(dir, 0755) == 0 || errno == EEXIST);
	for (k = 0; k < RTE_DIM(seqs); k++) {
		for (n = 0; n < FUZZ_RECS_MAX && seqs[k].rec[n].op != OP_MAX; n++)
			memcpy(buf + n * REC_LEN, &seqs[k].rec[n], REC_LEN);
		snprintf(path, sizeof(path), "%s/seq_%s", dir, seqs[k].name);
		fuzz_seed_write("fuzz_cm", path, buf, n * REC_LEN, buf, 0);
	}
}

static void
print_stats(void)
{
	char names[64][64];
	uint64_t values[64];
	int n = rte_roce_cm_xstats_names_get(cm, names, RTE_DIM(names)), i;

	if (n > 0 && n <= (int)RTE_DIM(names) &&
	    rte_roce_cm_xstats_get(cm, values, (unsigned int)n) == n)
		for (i = 0; i < n; i++)
			if (values[i] != 0)
				fprintf(stderr, "fuzz_cm: %s %" PRIu64 "\n", names[i], values[i]);
	fprintf(stderr, "fuzz_cm: MADs from A %" PRIu64 ", ids with an outcome %" PRIu64 "\n",
		a_mads, outcomes_seen);
}

static void
listen_on(struct rte_roce_cm_id **id, enum rte_roce_cm_port_space ps, int backlog)
{
	struct sockaddr_storage ss;

	FUZZ_CHECK(rte_roce_cm_create_id(ch, id, NULL, ps) == 0);
	roce_test_sockaddr(&ss, ipv6, 0, FUZZ_PORT);
	FUZZ_CHECK(rte_roce_cm_bind_addr(*id, (struct sockaddr *)&ss) == 0);
	FUZZ_CHECK(rte_roce_cm_listen(*id, backlog) == 0);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seed_dir = getenv("ROCE_FUZZ_SEED_DIR");
	const char *v6 = getenv("ROCE_FUZZ_IPV6");
	struct roce_test_conf conf = roce_test_default_conf;

	RTE_SET_USED(argc);
	ipv6 = v6 != NULL && strcmp(v6, "1") == 0;
	conf.ipv6 = ipv6;
	fuzz_wire_open((*argv)[0], "fuzz_cm", &env, &conf, 1, mac);
	cm = rte_roce_cm_open(env.s[0].ctx, &fuzz_conf);
	FUZZ_CHECK(cm != NULL);
	ch = rte_roce_cm_create_event_channel();
	FUZZ_CHECK(ch != NULL);
	listen_on(&listener, RTE_ROCE_CM_PS_TCP, FUZZ_BACKLOG);
	listen_on(&udp_listener, RTE_ROCE_CM_PS_UDP, 0);
	pump(FUZZ_POLLS);
	roce_test_pair_drain(env.pair);
	ids_baseline = cm->nb_ids;
	pool_baseline = rte_mempool_in_use_count(roce_test_mbuf_pool());
	atexit(print_stats);
	if (seed_dir != NULL)
		write_seqs(seed_dir);
	return 0;
}
