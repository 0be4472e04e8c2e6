/* SPDX-License-Identifier: BSD-3-Clause */

/* Output: perftest's table on the terminal, or one JSON object per size (JSON Lines). */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "perf.h"

/* The devices of a result, in order: the client's, then the server's. */
static const char *const perf_roles[] = { "requester", "responder" };

const char *
perf_test_name(enum perf_test t)
{
	static const char *const names[] = {
		[PERF_TEST_WRITE] = "write", [PERF_TEST_READ] = "read", [PERF_TEST_SEND] = "send",
		[PERF_TEST_FETCH_ADD] = "fetch_add", [PERF_TEST_CMP_SWAP] = "cmp_swap",
	};

	return names[t];
}

void
perf_print_header(const struct perf_opts *o, const struct perf_side *s)
{
	if (o->json)
		return;
	printf("%s\n", PERF_LINE);
	printf("                    RDMA_%s %s Test (librte_roce)\n", perf_test_name(o->test),
	       o->mode == PERF_MODE_BW ? "BW" : "Latency");
	printf(" Connection type : RC\t\tNumber of qps   : %u\n", o->qps);
	printf(" TX depth        : %u\t\tPost List       : %u\n", o->tx_depth, o->post_list);
	printf(" CQ Moderation   : %u\t\tMtu             : %u[B]\n", o->cq_mod, s->ib_mtu);
	printf(" Max inline data : %u[B]\t\tTopology        : %s\n", o->inline_size,
	       o->loopback ? "loopback (one process)" : "two processes");
	printf("%s\n", PERF_LINE);
	if (o->mode == PERF_MODE_BW)
		printf(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n");
	else
		printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
		       "t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec]\n");
	fflush(stdout);	/* before the progress lines on stderr */
}

/* One line per device (named side[i]): its transport counters that moved (port counters are in the JSON). */
void
perf_print_counters(const struct perf_result *r, const char *const *side)
{
	const char *name;
	unsigned int i, k;

	for (i = 0; r->nb_counters != 0 && i < r->nb_ports; i++) {
		printf(" counters (%s):", side[i]);
		for (k = 0; k < r->nb_counters; k++) {
			name = r->counter_names[k].name;
			if (r->counters[i][k] != 0 && strncmp(name, "port_", strlen("port_")) != 0)
				printf(" %s %" PRIu64, name, r->counters[i][k]);
		}
		printf("\n");
	}
}

/*
 * One line per device with several lanes or workers: each worker's loops,
 * busy loops, work and control pauses over the run, and the hand-offs
 * between lanes (doc/workers.md).
 */
static void
perf_print_lanes(const struct perf_result *r)
{
	static const char *const side[] = { "requester", "responder" };
	const struct perf_lanes *l;
	unsigned int i;
	uint16_t w;

	for (i = 0; i < r->nb_ports; i++) {
		l = &r->lanes[i];
		if (l->nb_lanes <= 1 && l->nb_workers == 0)
			continue;
		printf(" lanes (%s): %u, %s; handoffs out %" PRIu64 " in %" PRIu64 " drops %" PRIu64
		       "\n", side[i], l->nb_lanes, l->nb_workers != 0 ? "workers" : "inline",
		       l->handoffs_out, l->handoffs_in, l->handoff_drops);
		for (w = 0; w < l->nb_workers; w++)
			printf(" worker %u (%s, lcore %u): loops %" PRIu64 " busy %" PRIu64 " (%.1f%%)"
			       " work %" PRIu64 " ctrl_pauses %" PRIu64 " qps %" PRIu64
			       " handoffs_in %" PRIu64 "\n", w, side[i], l->lcores[w],
			       l->w[w].loops, l->w[w].busy_loops,
			       l->w[w].loops != 0 ? 100.0 * l->w[w].busy_loops / l->w[w].loops : 0,
			       l->w[w].work, l->w[w].ctrl_pauses, l->w[w].qps, l->w[w].handoffs_in);
	}
}

/* The upper bound of histogram bucket b, in microseconds (the last has none). */
static double
perf_hist_upto(unsigned int b)
{
	return PERF_HIST_FIRST_US * (double)(UINT64_C(1) << b);
}

/* -H: one line per bucket from the first to the last that holds a sample. */
static void
perf_print_hist(const struct perf_lat *l)
{
	uint64_t n = 0, cum = 0;
	unsigned int b, first = PERF_HIST_BUCKETS, last = 0;

	for (b = 0; b < PERF_HIST_BUCKETS; b++) {
		n += l->hist[b];
		if (l->hist[b] != 0) {
			first = RTE_MIN(first, b);
			last = b;
		}
	}
	printf(" round trips, histogram: up to [usec]   count   cumulative[%%]\n");
	for (b = first; b <= last && n != 0; b++) {
		cum += l->hist[b];
		if (b == PERF_HIST_BUCKETS - 1)
			printf("   %14s above %-9.3f %-10" PRIu64 " %.3f\n", "", perf_hist_upto(b - 1),
			       l->hist[b], 100.0 * cum / n);
		else
			printf("   %26.3f %-10" PRIu64 " %.3f\n", perf_hist_upto(b), l->hist[b],
			       100.0 * cum / n);
	}
}

/*
 * This process's CPU time over the run's wall time (all its threads: above 1
 * with workers; getrusage() counts in the scheduler's ticks, so a run of a
 * few milliseconds reads coarse).
 */
static double
perf_cpu_process(const struct perf_result *r)
{
	return r->cpu_wall_s > 0 ? (r->cpu_user_s + r->cpu_sys_s) / r->cpu_wall_s : 0;
}

/* --cpu_util: this process's CPU over the run's time, and the machine's (perftest's figure). */
static void
perf_print_cpu(const struct perf_result *r)
{
	printf(" CPU_Util[%%]: this process %.2f (user %.3f s, system %.3f s in %.3f s)",
	       100.0 * perf_cpu_process(r), r->cpu_user_s, r->cpu_sys_s, r->cpu_wall_s);
	if (r->cpu_machine >= 0)
		printf(", machine %.2f (all CPUs, /proc/stat)\n", 100.0 * r->cpu_machine);
	else
		printf(", machine unknown (/proc/stat unreadable, or the run shorter than its tick)\n");
}

void
perf_print_row(const struct perf_opts *o, const struct perf_result *r)
{
	const struct perf_lat *l = &r->lat;
	/* perftest prints half the round trip for the WRITE and SEND ping-pongs */
	double k = o->mode == PERF_MODE_LAT &&
		   (o->test == PERF_TEST_WRITE || o->test == PERF_TEST_SEND) ? 0.5 : 1.0;

	if (o->json)
		return;
	if (o->mode == PERF_MODE_BW)
		printf(" %-10u %-14" PRIu64 " %-18.2f %-20.2f %.6f\n", r->size, r->msgs,
		       r->bw_peak_gbps, r->bw_gbps, r->msg_rate_mpps);
	else
		printf(" %-6u %-11" PRIu64 " %-14.2f %-14.2f %-16.2f %-14.2f %-15.2f %-23.2f %.2f\n",
		       r->size, r->msgs, l->min * k, l->max * k, l->p50 * k, l->avg * k,
		       l->stdev * k, l->p99 * k, l->p999 * k);
	if (o->cpu_util && r->cpu_wall_s > 0)
		perf_print_cpu(r);
	if (o->histogram)
		perf_print_hist(&r->lat);
	perf_print_counters(r, perf_roles);
	perf_print_lanes(r);
	if (r->base.done)
		printf(" raw %u B frames: %.3f Mpps, %.2f Gb/s, RTT p50 %.2f us p99 %.2f us"
		       " -> ratio bw %.2f, msg rate %.2f\n",
		       r->base.frame_len, r->base.mpps, r->base.gbps, r->base.rtt.p50,
		       r->base.rtt.p99, r->bw_gbps / r->base.gbps, r->msg_rate_mpps / r->base.mpps);
	fflush(stdout);
}

static void
perf_json_lat(const char *name, const struct perf_lat *l)
{
	printf("\"%s\":{\"min\":%.3f,\"p50\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f,"
	       "\"avg\":%.3f}", name, l->min, l->p50, l->p99, l->p999, l->max, l->avg);
}

/* "lat_hist_us":[[up to, count], ...]: the buckets that hold samples; the last's bound is null. */
static void
perf_json_hist(const struct perf_lat *l)
{
	const char *sep = "";
	unsigned int b;

	printf("\"lat_hist_us\":[");
	for (b = 0; b < PERF_HIST_BUCKETS; b++) {
		if (l->hist[b] == 0)
			continue;
		if (b == PERF_HIST_BUCKETS - 1)
			printf("%s[null,%" PRIu64 "]", sep, l->hist[b]);
		else
			printf("%s[%.3f,%" PRIu64 "]", sep, perf_hist_upto(b), l->hist[b]);
		sep = ",";
	}
	printf("],");
}

static void
perf_json_port(const struct rte_roce_port_stats *s)
{
	uint64_t drops = 0;
	unsigned int i;

	for (i = 0; i < RTE_ROCE_PORT_DROP_MAX; i++)
		drops += s->drops[i];
	printf("{\"rx_packets\":%" PRIu64 ",\"rx_bytes\":%" PRIu64 ",\"tx_packets\":%" PRIu64
	       ",\"tx_bytes\":%" PRIu64 ",\"tx_backlogged\":%" PRIu64 ",\"drops\":%" PRIu64 "}",
	       s->rx_packets, s->rx_bytes, s->tx_packets, s->tx_bytes, s->tx_backlogged, drops);
}

/* "lanes":[{per device}]: lanes, workers with their counters, hand-offs. */
static void
perf_json_lanes(const struct perf_result *r)
{
	const struct perf_lanes *l;
	unsigned int i;
	uint16_t w;

	printf(",\"lanes\":[");
	for (i = 0; i < r->nb_ports; i++) {
		l = &r->lanes[i];
		printf("%s{\"nb_lanes\":%u,\"handoffs_out\":%" PRIu64 ",\"handoffs_in\":%" PRIu64
		       ",\"handoff_drops\":%" PRIu64 ",\"workers\":[", i > 0 ? "," : "",
		       l->nb_lanes, l->handoffs_out, l->handoffs_in, l->handoff_drops);
		for (w = 0; w < l->nb_workers; w++)
			printf("%s{\"lcore\":%u,\"loops\":%" PRIu64 ",\"busy_loops\":%" PRIu64
			       ",\"work\":%" PRIu64 ",\"ctrl_pauses\":%" PRIu64 ",\"qps\":%" PRIu64
			       ",\"handoffs_in\":%" PRIu64 "}", w > 0 ? "," : "",
			       l->lcores[w], l->w[w].loops, l->w[w].busy_loops, l->w[w].work,
			       l->w[w].ctrl_pauses, l->w[w].qps, l->w[w].handoffs_in);
		printf("]}");
	}
	printf("]");
}

void
perf_print_json(const struct perf_opts *o, const struct perf_result *r)
{
	unsigned int i, k;

	if (!o->json)
		return;
	printf("{\"tool\":\"roce_perf\",\"test\":\"%s\",\"mode\":\"%s\",\"transport\":\"RC\","
	       "\"topology\":\"%s\",\"size\":%u,\"iters\":%" PRIu64 ",\"qps\":%u,\"tx_depth\":%u,"
	       "\"post_list\":%u,\"cq_mod\":%u,\"inline\":%u,\"workers\":%u,\"secs\":%.6f,"
	       "\"msg_rate_mpps\":%.6f,\"bw_gbps\":%.6f,\"bw_peak_gbps\":%.6f,",
	       perf_test_name(o->test), o->mode == PERF_MODE_BW ? "bw" : "lat",
	       o->loopback ? "loopback" : "two_process", r->size, r->msgs, o->qps, o->tx_depth,
	       o->post_list, o->cq_mod, o->inline_size, o->workers, r->secs, r->msg_rate_mpps,
	       r->bw_gbps, r->bw_peak_gbps);
	perf_json_lat("lat_us", &r->lat);
	printf(",\"lat_kind\":\"round_trip\",\"verified_bytes\":%" PRIu64 ",", r->verified);
	printf("\"cpu\":[{\"lcore\":%u,\"user_s\":%.3f,\"sys_s\":%.3f,\"busy\":%.4f}],",
	       rte_lcore_id(), r->cpu_user_s, r->cpu_sys_s, r->busy);
	if (o->mode == PERF_MODE_LAT)
		perf_json_hist(&r->lat);
	if (o->cpu_util && r->cpu_wall_s > 0)
	{
		printf("\"cpu_util\":{\"process\":%.4f,\"machine\":", perf_cpu_process(r));
		printf(r->cpu_machine >= 0 ? "%.4f}," : "null},", r->cpu_machine);
	}
	printf("\"port\":[");
	for (i = 0; i < r->nb_ports; i++) {
		printf(i > 0 ? "," : "");
		perf_json_port(&r->port[i]);
	}
	printf("],\"counters\":[");
	for (i = 0; i < r->nb_ports && r->nb_counters != 0; i++) {
		printf(i > 0 ? ",{" : "{");
		for (k = 0; k < r->nb_counters; k++)
			printf("%s\"%s\":%" PRIu64, k > 0 ? "," : "", r->counter_names[k].name,
			       r->counters[i][k]);
		printf("}");
	}
	printf("]");
	perf_json_lanes(r);
	if (o->fault)
		printf(",\"fault\":{\"seen\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"duplicated\":%"
		       PRIu64 ",\"corrupted\":%" PRIu64 ",\"reordered\":%" PRIu64 "}",
		       r->fault.seen, r->fault.dropped, r->fault.duplicated, r->fault.corrupted,
		       r->fault.reordered);
	if (r->base.done) {
		printf(",\"baseline\":{\"frame_len\":%u,\"msg_rate_mpps\":%.6f,\"bw_gbps\":%.6f,",
		       r->base.frame_len, r->base.mpps, r->base.gbps);
		perf_json_lat("rtt_us", &r->base.rtt);
		printf("},\"ratio\":{\"bw\":%.4f,\"msg_rate\":%.4f", r->bw_gbps / r->base.gbps,
		       r->msg_rate_mpps / r->base.mpps);
		if (o->mode == PERF_MODE_LAT)
			printf(",\"lat_overhead_us_p50\":%.3f,\"lat_overhead_us_p99\":%.3f",
			       r->lat.p50 - r->base.rtt.p50, r->lat.p99 - r->base.rtt.p99);
		printf("}");
	}
	printf("}\n");
	fflush(stdout);
}
