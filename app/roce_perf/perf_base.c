/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * --baseline: raw DPDK packet I/O on the same ethdevs, queues, mbuf pool and
 * frame size as the RoCE run, without RoCE: a burst throughput (frames
 * delivered at the receiver, as doc/machine.md describes) and an L2
 * ping-pong round trip. Frames carry the IEEE local experimental EtherType,
 * which the RoCE port (not polled meanwhile) would drop anyway.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "perf.h"

#define BASE_ETHERTYPE 0x88b5	/* IEEE 802 local experimental 1 */
#define BASE_BURST 32
#define BASE_SECS 1.0
#define BASE_PINGS 20000
#define BASE_END_FRAMES 8
#define BASE_KIND_DATA 0
#define BASE_KIND_END 1
#define BASE_WAIT_S 5

static int
base_fill(struct rte_mempool *mp, struct rte_mbuf **m, unsigned int n, uint32_t len, uint8_t kind)
{
	struct rte_ether_hdr *eh;
	unsigned int i;

	if (rte_pktmbuf_alloc_bulk(mp, m, n) != 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m[i], len);
		if (eh == NULL) {
			rte_pktmbuf_free_bulk(m, n);
			return -ENOSPC;
		}
		memset(&eh->dst_addr, 0xff, sizeof(eh->dst_addr));
		memset(&eh->src_addr, 0x02, sizeof(eh->src_addr));
		eh->ether_type = rte_cpu_to_be_16(BASE_ETHERTYPE);
		((uint8_t *)(eh + 1))[0] = kind;
	}
	return 0;
}

static uint8_t
base_kind(struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	if (eh->ether_type != rte_cpu_to_be_16(BASE_ETHERTYPE))
		return UINT8_MAX;
	return ((uint8_t *)(eh + 1))[0];
}

static struct rte_mempool *
base_pool(const struct perf_side *s)
{
	struct rte_roce_port_info info;

	rte_roce_port_info_get(s->port, &info);
	return info.pool;
}

/* Send one burst; frames the queue refused are freed. Frames sent. */
static unsigned int
base_tx(uint16_t eth, struct rte_mempool *mp, uint32_t len, uint8_t kind, unsigned int n)
{
	struct rte_mbuf *m[BASE_BURST];
	unsigned int sent;

	if (base_fill(mp, m, n, len, kind) != 0)
		return 0;
	sent = rte_eth_tx_burst(eth, 0, m, n);
	if (sent < n)
		rte_pktmbuf_free_bulk(m + sent, n - sent);
	return sent;
}

/* Receive a burst; counts data frames, tells whether an end frame came. */
static unsigned int
base_rx(uint16_t eth, bool *end)
{
	struct rte_mbuf *m[BASE_BURST];
	unsigned int n, i, data = 0;

	n = rte_eth_rx_burst(eth, 0, m, BASE_BURST);
	for (i = 0; i < n; i++) {
		uint8_t k = base_kind(m[i]);

		data += k == BASE_KIND_DATA;
		*end |= k == BASE_KIND_END;
	}
	rte_pktmbuf_free_bulk(m, n);
	return data;
}

static void
base_rate(struct perf_baseline *b, uint64_t frames, uint64_t cycles)
{
	double secs = (double)cycles / rte_get_tsc_hz();

	b->mpps = frames / secs / 1e6;
	b->gbps = frames * (double)b->frame_len * 8 / secs / 1e9;
}

static int
lat_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The histogram bucket of a sample of us microseconds. */
static unsigned int
perf_hist_bucket(double us)
{
	double upto = PERF_HIST_FIRST_US;
	unsigned int b;

	for (b = 0; b < PERF_HIST_BUCKETS - 1 && us > upto; b++)
		upto *= 2;
	return b;
}

void
perf_lat_stats(uint64_t *cycles, uint64_t n, struct perf_lat *lat)
{
	double us = 1e6 / rte_get_tsc_hz(), sum = 0, sq = 0;
	uint64_t i;

	if (n == 0)
		return;
	qsort(cycles, n, sizeof(*cycles), lat_cmp);
	for (i = 0; i < n; i++)
		sum += cycles[i] * us;
	lat->avg = sum / n;
	for (i = 0; i < n; i++)
		sq += (cycles[i] * us - lat->avg) * (cycles[i] * us - lat->avg);
	lat->stdev = n > 1 ? sqrt(sq / (n - 1)) : 0;
	lat->min = cycles[0] * us;
	lat->p50 = cycles[n / 2] * us;
	lat->p99 = cycles[n * 99 / 100] * us;
	lat->p999 = cycles[n * 999 / 1000] * us;
	lat->max = cycles[n - 1] * us;
	memset(lat->hist, 0, sizeof(lat->hist));
	for (i = 0; i < n; i++)
		lat->hist[perf_hist_bucket(cycles[i] * us)]++;
}

/* Wait for one frame on eth (any kind); 0 or -ETIMEDOUT. */
static int
base_wait_one(uint16_t eth, bool *end)
{
	uint64_t t0 = rte_rdtsc(), hz = rte_get_tsc_hz();
	struct rte_mbuf *m;

	for (;;) {
		if (rte_eth_rx_burst(eth, 0, &m, 1) == 1) {
			*end = base_kind(m) == BASE_KIND_END;
			rte_pktmbuf_free(m);
			return 0;
		}
		if (rte_rdtsc() - t0 > BASE_WAIT_S * hz)
			return -ETIMEDOUT;
	}
}

static int
base_pingpong(uint16_t a, struct rte_mempool *pa, uint16_t b, struct rte_mempool *pb,
	      uint32_t len, struct perf_baseline *res)
{
	uint64_t *samples = malloc(sizeof(*samples) * BASE_PINGS), t0;
	unsigned int i;
	bool end = false;
	int ret = 0;

	if (samples == NULL)
		return -ENOMEM;
	for (i = 0; i < BASE_PINGS && ret == 0; i++) {
		t0 = rte_rdtsc();
		if (base_tx(a, pa, len, BASE_KIND_DATA, 1) != 1) {
			ret = -EIO;
			break;
		}
		if (pb != NULL) {	/* loopback: echo here */
			ret = base_wait_one(b, &end);
			if (ret == 0 && base_tx(b, pb, len, BASE_KIND_DATA, 1) != 1)
				ret = -EIO;
		}
		if (ret == 0)
			ret = base_wait_one(a, &end);
		samples[i] = rte_rdtsc() - t0;
	}
	if (ret == 0) {
		perf_lat_stats(samples, i, &res->rtt);
		res->rtt_samples = i;
	}
	free(samples);
	return ret;
}

int
perf_base_loopback(struct perf_run *r, uint32_t frame_len, struct perf_baseline *b)
{
	struct rte_mempool *pa = base_pool(r->cli), *pb = base_pool(r->srv);
	uint64_t t0, end, frames = 0, hz = rte_get_tsc_hz();
	bool stop = false;

	b->frame_len = frame_len;
	t0 = rte_rdtsc();
	end = t0 + (uint64_t)(BASE_SECS * hz);
	while (rte_rdtsc() < end) {
		base_tx(r->cli->eth, pa, frame_len, BASE_KIND_DATA, BASE_BURST);
		frames += base_rx(r->srv->eth, &stop);
	}
	base_rate(b, frames, rte_rdtsc() - t0);
	while (base_rx(r->srv->eth, &stop) > 0)
		;
	b->done = base_pingpong(r->cli->eth, pa, r->srv->eth, pb, frame_len, b) == 0;
	return b->done ? 0 : -EIO;
}

/* Two processes: the client sends for BASE_SECS; the server counts and reports. */
int
perf_base_client(struct perf_run *r, uint32_t frame_len, struct perf_baseline *b)
{
	struct rte_mempool *mp = base_pool(r->cli);
	uint64_t end, counts[2], none[2], hz = rte_get_tsc_hz();
	int ret;

	b->frame_len = frame_len;
	ret = perf_oob_sync(r->oob);
	if (ret != 0)
		return ret;
	end = rte_rdtsc() + (uint64_t)(BASE_SECS * hz);
	while (rte_rdtsc() < end)
		base_tx(r->cli->eth, mp, frame_len, BASE_KIND_DATA, BASE_BURST);
	while (base_tx(r->cli->eth, mp, frame_len, BASE_KIND_END, BASE_END_FRAMES) == 0)
		;
	memset(none, 0, sizeof(none));
	ret = perf_oob_xchg(r->oob, none, counts, sizeof(counts));
	if (ret != 0)
		return ret;
	base_rate(b, counts[0], counts[1]);
	ret = perf_oob_sync(r->oob);
	if (ret == 0)
		ret = base_pingpong(r->cli->eth, mp, 0, NULL, frame_len, b);
	while (ret == 0 && base_tx(r->cli->eth, mp, frame_len, BASE_KIND_END, 1) == 0)
		;
	b->done = ret == 0;
	return ret == 0 ? perf_oob_sync(r->oob) : ret;
}

int
perf_base_server(struct perf_run *r, uint32_t frame_len)
{
	struct rte_mempool *mp = base_pool(r->srv);
	uint64_t first = 0, last = 0, frames = 0, counts[2], none[2], t0, hz = rte_get_tsc_hz();
	uint16_t eth = r->srv->eth;
	bool end = false;
	unsigned int n;
	int ret;

	ret = perf_oob_sync(r->oob);
	if (ret != 0)
		return ret;
	t0 = rte_rdtsc();
	while (!end && rte_rdtsc() - t0 < (uint64_t)((BASE_SECS + BASE_WAIT_S) * hz)) {
		n = base_rx(eth, &end);
		if (n > 0) {
			last = rte_rdtsc();
			first = first != 0 ? first : last;
			frames += n;
		}
	}
	counts[0] = frames;
	counts[1] = last - first;
	ret = perf_oob_xchg(r->oob, counts, none, sizeof(counts));
	if (ret == 0)
		ret = perf_oob_sync(r->oob);
	/* echo until the end frame */
	for (end = false; ret == 0 && !end;) {
		ret = base_wait_one(eth, &end);
		if (ret == 0 && !end && base_tx(eth, mp, frame_len, BASE_KIND_DATA, 1) != 1)
			ret = -EIO;
	}
	return ret == 0 ? perf_oob_sync(r->oob) : ret;
}
