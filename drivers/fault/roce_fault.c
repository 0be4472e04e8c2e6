/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Fault injection through ethdev RX/TX callbacks (rte_roce_fault.h says
 * what and why). One struct roce_fault_dir per direction holds everything
 * its callback writes, so RX and TX may run in different threads.
 */

#include <errno.h>
#include <math.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include <rte_roce_pkt.h>

#include "rte_roce_fault.h"

/* Frames are parsed at the largest IB MTU: the injector knows no port MTU. */
#define FAULT_PARSE_MTU 4096

/* BTH byte holding FECN, BECN and resv6, masked out of the ICRC (doc/wire-format.md §4.1). */
#define FAULT_BTH_MASKED_BYTE 4

/* The ICRC: one 32-bit word after payload and pad. */
#define FAULT_ICRC_LEN 4

#define FAULT_US_PER_S 1000000

#define FAULT_PSN_MASK 0xffffffu
#define FAULT_QPN_MASK 0xffffffu

/* 2^-53: turns the top 53 bits of a draw into a double in [0, 1). */
#define FAULT_DRAW_SCALE 0x1.0p-53
#define FAULT_DRAW_SHIFT 11

/* Never released by that criterion. */
#define FAULT_NEVER UINT64_MAX

/* A frame in the hold queue, released when either bound is reached. */
struct roce_fault_held {
	struct rte_mbuf *m;
	uint64_t due_tsc;	/* TSC at which it leaves */
	uint64_t due_seq;	/* frame count of the direction at which it leaves */
};

struct roce_fault_rule_state {
	struct rte_roce_fault_rule rule;
	uint64_t matches;
	uint64_t fired;
};

/* What one callback owns. */
struct roce_fault_dir {
	struct rte_roce_fault *f;
	const struct rte_eth_rxtx_callback *cb;
	enum rte_roce_fault_dir dir;
	uint64_t rng;			/* xorshift64* state, never 0 */
	uint64_t seq;			/* frames seen in this direction */
	struct roce_fault_rule_state rules[RTE_ROCE_FAULT_RULES_MAX];
	uint32_t nb_rules;		/* published with release order by rule_add */
	struct roce_fault_held *hold;	/* RX only */
	uint32_t nb_held;
	bool flush;			/* set by rte_roce_fault_flush(), any thread */
	struct rte_roce_fault_stats stats;
};

struct rte_roce_fault {
	uint16_t port_id;
	uint16_t queue_id;
	enum rte_roce_fault_dir dirs;
	struct rte_roce_fault_conf conf;
	double threshold[RTE_ROCE_FAULT_ACTION_MAX];	/* cumulative probabilities */
	uint64_t delay_tsc;
	uint64_t reorder_max_tsc;
	uint32_t hold_max;
	struct roce_fault_dir rx;
	struct roce_fault_dir tx;
};

/* ---- Generator: splitmix64 to seed, xorshift64* to draw (Vigna, 2014/2016) ---- */

static uint64_t
fault_splitmix64(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

static uint64_t
fault_rand(struct roce_fault_dir *d)
{
	d->rng ^= d->rng >> 12;
	d->rng ^= d->rng << 25;
	d->rng ^= d->rng >> 27;
	return d->rng * UINT64_C(0x2545f4914f6cdd1d);
}

/* Uniform in [0, n), n > 0; the modulo bias is irrelevant for test faults. */
static uint32_t
fault_rand_below(struct roce_fault_dir *d, uint32_t n)
{
	return (uint32_t)(fault_rand(d) % n);
}

/* ---- What a frame is ---- */

static bool
fault_is_roce(const struct rte_mbuf *m, struct rte_roce_pkt *pkt)
{
	return rte_roce_pkt_parse_mbuf(m, FAULT_PARSE_MTU, pkt) == RTE_ROCE_DROP_NONE;
}

static bool
fault_rule_matches(const struct rte_roce_fault_rule *r, const struct rte_roce_pkt *pkt)
{
	if (r->opcode != RTE_ROCE_FAULT_OPCODE_ANY && r->opcode != pkt->opcode)
		return false;
	if (r->match_dqpn && r->dqpn != pkt->dqpn)
		return false;
	return !r->match_psn || r->psn == pkt->psn;
}

/* Count the frame in every matching rule; the first that fires gives the action. */
static int
fault_rules_apply(struct roce_fault_dir *d, const struct rte_roce_pkt *pkt)
{
	uint32_t i, n = __atomic_load_n(&d->nb_rules, __ATOMIC_ACQUIRE);
	int action = -1;

	for (i = 0; i < n; i++) {
		struct roce_fault_rule_state *rs = &d->rules[i];
		uint64_t first = RTE_MAX(rs->rule.nth, 1u);

		if (!fault_rule_matches(&rs->rule, pkt))
			continue;
		rs->matches++;
		if (rs->matches < first ||
		    (rs->rule.count != 0 && rs->matches >= first + rs->rule.count) ||
		    action >= 0)
			continue;
		rs->fired++;
		action = rs->rule.action;
	}
	if (action >= 0)
		d->stats.rules_fired++;
	return action;
}

/* One draw against the cumulative probabilities: an action, or -1 to pass. */
static int
fault_draw(struct roce_fault_dir *d)
{
	double u = (double)(fault_rand(d) >> FAULT_DRAW_SHIFT) * FAULT_DRAW_SCALE;
	int a;

	for (a = 0; a < RTE_ROCE_FAULT_ACTION_MAX; a++)
		if (u < d->f->threshold[a])
			return a;
	return -1;
}

/* The fault for a frame, or -1; *roce says whether pkt was filled. */
static int
fault_decide(struct roce_fault_dir *d, const struct rte_mbuf *m, struct rte_roce_pkt *pkt,
	     bool *roce)
{
	int action;

	d->seq++;
	d->stats.seen++;
	*roce = fault_is_roce(m, pkt);
	if (*roce) {
		d->stats.roce++;
		action = fault_rules_apply(d, pkt);
		if (action >= 0)
			return action;
	} else if (d->f->conf.roce_only) {
		return -1;
	}
	return fault_draw(d);
}

/* ---- Corruption ---- */

/* Byte off of a chain, which must lie inside it. */
static uint8_t *
fault_byte(struct rte_mbuf *m, uint32_t off)
{
	while (off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	return rte_pktmbuf_mtod_offset(m, uint8_t *, off);
}

static bool
fault_exclusive(const struct rte_mbuf *m)
{
	for (; m != NULL; m = m->next)
		if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1)
			return false;
	return true;
}

/*
 * Change one ICRC-covered byte of a RoCEv2 frame. Returns the frame to pass
 * on (a copy if m was shared), or NULL if a needed copy failed (m is kept).
 */
static struct rte_mbuf *
fault_corrupt(struct roce_fault_dir *d, struct rte_mbuf *m, const struct rte_roce_pkt *pkt)
{
	uint32_t start = pkt->bth_off;
	/* The ICRC itself may be hit: that is detected too. */
	uint32_t len = pkt->icrc_off + FAULT_ICRC_LEN - pkt->bth_off - 1;
	uint32_t k;

	if (!fault_exclusive(m)) {
		struct rte_mbuf *c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);

		if (c == NULL)
			return NULL;
		rte_pktmbuf_free(m);
		m = c;
	}
	if (d->f->conf.corrupt_region == RTE_ROCE_FAULT_REGION_PAYLOAD && pkt->payload_len != 0) {
		k = pkt->payload_off + fault_rand_below(d, pkt->payload_len);
	} else {
		k = fault_rand_below(d, len);
		/* Skip the masked byte: a change there would pass the check. */
		k = start + k + (k >= FAULT_BTH_MASKED_BYTE);
	}
	*fault_byte(m, k) ^= (uint8_t)(1 + fault_rand_below(d, UINT8_MAX));
	d->stats.corrupted++;
	return m;
}

/* ---- Hold queue (RX) ---- */

static bool
fault_hold(struct roce_fault_dir *d, struct rte_mbuf *m, uint64_t due_tsc, uint64_t due_seq)
{
	struct roce_fault_held *h;

	if (d->nb_held == d->f->hold_max) {
		d->stats.skipped++;
		return false;
	}
	h = &d->hold[d->nb_held++];
	h->m = m;
	h->due_tsc = due_tsc;
	h->due_seq = due_seq;
	d->stats.held++;
	return true;
}

/* Append the held frames that are due to pkts[n..max), oldest first. */
static uint16_t
fault_release(struct roce_fault_dir *d, struct rte_mbuf **pkts, uint16_t n, uint16_t max,
	      uint64_t now)
{
	bool all = __atomic_load_n(&d->flush, __ATOMIC_ACQUIRE);
	uint32_t i, kept = 0;

	for (i = 0; i < d->nb_held; i++) {
		struct roce_fault_held *h = &d->hold[i];

		if (n < max && (all || now >= h->due_tsc || d->seq >= h->due_seq)) {
			pkts[n++] = h->m;
			d->stats.released++;
			d->stats.held--;
		} else {
			d->hold[kept++] = *h;
		}
	}
	d->nb_held = kept;
	/* The flush ends when the queue is empty; frames held later wait as usual. */
	if (all && kept == 0)
		__atomic_store_n(&d->flush, false, __ATOMIC_RELAXED);
	return n;
}

/* ---- Callbacks ---- */

/*
 * Apply one fault to an RX frame. Returns the frame to deliver in its
 * place, or NULL if it was dropped or is held.
 */
static struct rte_mbuf *
fault_rx_one(struct roce_fault_dir *d, struct rte_mbuf *m, uint64_t now)
{
	const struct rte_roce_fault *f = d->f;
	struct rte_roce_pkt pkt;
	struct rte_mbuf *c;
	bool roce;

	switch (fault_decide(d, m, &pkt, &roce)) {
	case RTE_ROCE_FAULT_DROP:
		rte_pktmbuf_free(m);
		d->stats.dropped++;
		return NULL;
	case RTE_ROCE_FAULT_DUP:
		c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
		if (c == NULL) {
			d->stats.skipped++;
		} else if (fault_hold(d, c, 0, FAULT_NEVER)) {
			d->stats.duplicated++;
		} else {
			rte_pktmbuf_free(c);
		}
		return m;
	case RTE_ROCE_FAULT_CORRUPT:
		if (!roce)
			return m;
		c = fault_corrupt(d, m, &pkt);
		if (c == NULL)
			d->stats.skipped++;
		return c != NULL ? c : m;
	case RTE_ROCE_FAULT_DELAY:
		if (!fault_hold(d, m, now + f->delay_tsc, FAULT_NEVER))
			return m;
		d->stats.delayed++;
		return NULL;
	case RTE_ROCE_FAULT_REORDER:
		if (!fault_hold(d, m, f->reorder_max_tsc == 0 ? FAULT_NEVER : now + f->reorder_max_tsc,
				d->seq + RTE_MAX(f->conf.reorder_depth, 1u)))
			return m;
		d->stats.reordered++;
		return NULL;
	default:
		return m;
	}
}

static uint16_t
fault_rx_cb(uint16_t port_id __rte_unused, uint16_t queue __rte_unused, struct rte_mbuf *pkts[],
	    uint16_t nb_pkts, uint16_t max_pkts, void *arg)
{
	struct roce_fault_dir *d = arg;
	uint64_t now = rte_rdtsc();
	uint16_t i, n = 0;

	/* n <= i: each frame gives at most one in place; copies go through the hold queue. */
	for (i = 0; i < nb_pkts; i++) {
		struct rte_mbuf *m = fault_rx_one(d, pkts[i], now);

		if (m != NULL)
			pkts[n++] = m;
	}
	return fault_release(d, pkts, n, max_pkts, now);
}

/* TX: corruption only (see the file comment of rte_roce_fault.h); the count never changes. */
static uint16_t
fault_tx_cb(uint16_t port_id __rte_unused, uint16_t queue __rte_unused, struct rte_mbuf *pkts[],
	    uint16_t nb_pkts, void *arg)
{
	struct roce_fault_dir *d = arg;
	struct rte_roce_pkt pkt;
	uint16_t i;
	bool roce;

	for (i = 0; i < nb_pkts; i++) {
		struct rte_mbuf *c;

		if (fault_decide(d, pkts[i], &pkt, &roce) != RTE_ROCE_FAULT_CORRUPT || !roce)
			continue;
		c = fault_corrupt(d, pkts[i], &pkt);
		if (c == NULL)
			d->stats.skipped++;
		else
			pkts[i] = c;
	}
	return nb_pkts;
}

/* ---- Control ---- */

static bool
fault_prob_ok(double p)
{
	return p >= 0.0 && p <= 1.0;	/* false for NaN */
}

/* Check conf and fill the derived fields of f; 0 or a positive errno. */
static int
fault_conf_set(struct rte_roce_fault *f, enum rte_roce_fault_dir dir,
	       const struct rte_roce_fault_conf *conf)
{
	double p[RTE_ROCE_FAULT_ACTION_MAX];
	double sum = 0.0;
	uint64_t hz = rte_get_tsc_hz();
	int a;

	if (conf == NULL || dir < RTE_ROCE_FAULT_RX || dir > RTE_ROCE_FAULT_BOTH ||
	    (conf->corrupt_region != RTE_ROCE_FAULT_REGION_ROCE &&
	     conf->corrupt_region != RTE_ROCE_FAULT_REGION_PAYLOAD))
		return EINVAL;
	p[RTE_ROCE_FAULT_DROP] = conf->drop;
	p[RTE_ROCE_FAULT_DUP] = conf->dup;
	p[RTE_ROCE_FAULT_CORRUPT] = conf->corrupt;
	p[RTE_ROCE_FAULT_DELAY] = conf->delay;
	p[RTE_ROCE_FAULT_REORDER] = conf->reorder;
	for (a = 0; a < RTE_ROCE_FAULT_ACTION_MAX; a++) {
		if (!fault_prob_ok(p[a]))
			return EINVAL;
		sum += p[a];
		f->threshold[a] = sum;
	}
	if (sum > 1.0)
		return EINVAL;
	if ((dir & RTE_ROCE_FAULT_TX) &&
	    (conf->drop != 0 || conf->dup != 0 || conf->delay != 0 || conf->reorder != 0))
		return ENOTSUP;
	f->conf = *conf;
	f->dirs = dir;
	f->delay_tsc = hz * conf->delay_us / FAULT_US_PER_S;
	f->reorder_max_tsc = hz * conf->reorder_max_us / FAULT_US_PER_S;
	f->hold_max = conf->hold_max != 0 ? conf->hold_max : RTE_ROCE_FAULT_HOLD_DEFAULT;
	return 0;
}

static void
fault_dir_init(struct rte_roce_fault *f, struct roce_fault_dir *d, enum rte_roce_fault_dir dir)
{
	d->f = f;
	d->dir = dir;
	/* Each direction its own stream; xorshift needs a non-zero state. */
	d->rng = fault_splitmix64(f->conf.seed + (uint64_t)dir);
	if (d->rng == 0)
		d->rng = 1;
}

/* Check the ethdev and queue; 0 or a positive errno. */
static int
fault_queue_check(uint16_t port_id, uint16_t queue_id, enum rte_roce_fault_dir dir)
{
	struct rte_eth_dev_info info;

	if (!rte_eth_dev_is_valid_port(port_id))
		return ENODEV;
	if (rte_eth_dev_info_get(port_id, &info) != 0)
		return ENODEV;
	if (((dir & RTE_ROCE_FAULT_RX) && queue_id >= info.nb_rx_queues) ||
	    ((dir & RTE_ROCE_FAULT_TX) && queue_id >= info.nb_tx_queues))
		return EINVAL;
	return 0;
}

static void
fault_free(struct rte_roce_fault *f)
{
	uint32_t i;

	for (i = 0; i < f->rx.nb_held; i++)
		rte_pktmbuf_free(f->rx.hold[i].m);
	rte_free(f->rx.hold);
	rte_free(f);
}

/* Remove one direction's callback; 0, or -EINVAL if ethdev does not know it. */
static int
fault_dir_remove(struct rte_roce_fault *f, struct roce_fault_dir *d)
{
	int rc;

	if (d->cb == NULL)
		return 0;
	if (d->dir == RTE_ROCE_FAULT_RX)
		rc = rte_eth_remove_rx_callback(f->port_id, f->queue_id, d->cb);
	else
		rc = rte_eth_remove_tx_callback(f->port_id, f->queue_id, d->cb);
	/* A port that has gone away no longer calls anything. */
	if (rc != 0 && rc != -ENODEV)
		return rc;
	/* 22.11 unlinks but does not free the record; no burst runs (caller's promise). */
	rte_free((void *)(uintptr_t)d->cb);
	d->cb = NULL;
	return 0;
}

struct rte_roce_fault *
rte_roce_fault_attach(uint16_t port_id, uint16_t queue_id, enum rte_roce_fault_dir dir,
		      const struct rte_roce_fault_conf *conf)
{
	struct rte_roce_fault *f;
	int socket, rc;

	rc = fault_queue_check(port_id, queue_id, dir);
	if (rc != 0) {
		rte_errno = rc;
		return NULL;
	}
	socket = rte_eth_dev_socket_id(port_id);
	f = rte_zmalloc_socket("roce_fault", sizeof(*f), RTE_CACHE_LINE_SIZE, socket);
	if (f == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rc = fault_conf_set(f, dir, conf);
	if (rc != 0)
		goto fail;
	f->port_id = port_id;
	f->queue_id = queue_id;
	fault_dir_init(f, &f->rx, RTE_ROCE_FAULT_RX);
	fault_dir_init(f, &f->tx, RTE_ROCE_FAULT_TX);
	if (dir & RTE_ROCE_FAULT_RX) {
		rc = ENOMEM;
		f->rx.hold = rte_malloc_socket("roce_fault_hold", sizeof(*f->rx.hold) * f->hold_max,
					       0, socket);
		if (f->rx.hold == NULL)
			goto fail;
		f->rx.cb = rte_eth_add_rx_callback(port_id, queue_id, fault_rx_cb, &f->rx);
		if (f->rx.cb == NULL)
			goto fail_errno;
	}
	if (dir & RTE_ROCE_FAULT_TX) {
		f->tx.cb = rte_eth_add_tx_callback(port_id, queue_id, fault_tx_cb, &f->tx);
		if (f->tx.cb == NULL)
			goto fail_errno;
	}
	return f;

fail_errno:
	rc = rte_errno;
	fault_dir_remove(f, &f->rx);
fail:
	fault_free(f);
	rte_errno = rc;
	return NULL;
}

int
rte_roce_fault_rule_add(struct rte_roce_fault *f, const struct rte_roce_fault_rule *rule)
{
	struct roce_fault_dir *d;

	if (f == NULL || rule == NULL ||
	    (rule->dir != RTE_ROCE_FAULT_RX && rule->dir != RTE_ROCE_FAULT_TX) ||
	    rule->action >= RTE_ROCE_FAULT_ACTION_MAX ||
	    (rule->opcode > UINT8_MAX && rule->opcode != RTE_ROCE_FAULT_OPCODE_ANY) ||
	    rule->dqpn > FAULT_QPN_MASK || rule->psn > FAULT_PSN_MASK)
		return -EINVAL;
	if (!(f->dirs & rule->dir) ||
	    (rule->dir == RTE_ROCE_FAULT_TX && rule->action != RTE_ROCE_FAULT_CORRUPT))
		return -ENOTSUP;
	d = rule->dir == RTE_ROCE_FAULT_RX ? &f->rx : &f->tx;
	if (d->nb_rules == RTE_ROCE_FAULT_RULES_MAX)
		return -ENOSPC;
	memset(&d->rules[d->nb_rules], 0, sizeof(d->rules[0]));
	d->rules[d->nb_rules].rule = *rule;
	/* The callback reads nb_rules with acquire order, then the rule. */
	__atomic_store_n(&d->nb_rules, d->nb_rules + 1, __ATOMIC_RELEASE);
	return 0;
}

int64_t
rte_roce_fault_rule_fired(struct rte_roce_fault *f, enum rte_roce_fault_dir dir, unsigned int index)
{
	const struct roce_fault_dir *d;

	if (f == NULL || (dir != RTE_ROCE_FAULT_RX && dir != RTE_ROCE_FAULT_TX))
		return -EINVAL;
	d = dir == RTE_ROCE_FAULT_RX ? &f->rx : &f->tx;
	if (index >= __atomic_load_n(&d->nb_rules, __ATOMIC_ACQUIRE))
		return -ENOENT;
	return (int64_t)d->rules[index].fired;
}

int
rte_roce_fault_flush(struct rte_roce_fault *f)
{
	if (f == NULL)
		return -EINVAL;
	__atomic_store_n(&f->rx.flush, true, __ATOMIC_RELEASE);
	return 0;
}

int
rte_roce_fault_stats_get(struct rte_roce_fault *f, struct rte_roce_fault_stats *stats)
{
	const uint64_t *rx, *tx;
	uint64_t *out;
	size_t i;

	/* Summed as arrays of counters. */
	RTE_BUILD_BUG_ON(sizeof(*stats) % sizeof(uint64_t) != 0);
	if (f == NULL || stats == NULL)
		return -EINVAL;
	rx = (const uint64_t *)&f->rx.stats;
	tx = (const uint64_t *)&f->tx.stats;
	out = (uint64_t *)stats;
	for (i = 0; i < sizeof(*stats) / sizeof(uint64_t); i++)
		out[i] = rx[i] + tx[i];
	return 0;
}

int
rte_roce_fault_detach(struct rte_roce_fault *f)
{
	int rc;

	if (f == NULL)
		return 0;
	rc = fault_dir_remove(f, &f->rx);
	if (rc == 0)
		rc = fault_dir_remove(f, &f->tx);
	if (rc != 0)
		return rc;
	fault_free(f);
	return 0;
}
