/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef PERF_H
#define PERF_H

/*
 * roce_perf: perftest's ib_{write,read,send,atomic}_{bw,lat} on librte_roce,
 * plus raw DPDK packet I/O over the same PMD (--baseline) for ratios.
 *
 * One thread drives everything with rte_roce_poll(): in --loopback both
 * devices (client and server) live in this process; otherwise the process
 * is the client (a host given) or the server, and the two meet over TCP
 * (perf_oob.c: perftest's exchange, doc/wire-format.md §11.2). With --workers N
 * the device (the client's in --loopback, whose server stays inline with N
 * lanes) runs on N worker lcores instead, its port has N queues and QP q
 * is on lane q % N (its CQs' comp_vector); this thread posts and polls.
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include <rte_roce_fault.h>
#include <rte_roce_config.h>
#include <rte_roce_port.h>
#include <rte_roce_stats.h>
#include <rte_roce_worker.h>

#define PERF_QPS_MAX 64
#define PERF_SIZE_MAX (1u << 20)
#define PERF_SWEEP_MIN 2		/* perftest -a starts at 2 B */
#define PERF_SWEEP_MAX 65536		/* and we stop at 64 KiB (perftest: 8 MiB) */
#define PERF_LAT_SAMPLES_MAX 10000000u
#define PERF_ATOMIC_SIZE 8		/* IBA 9.4.5: atomics act on 8 bytes */
#define PERF_LINE "-----------------------------------------------------------------------------------"
#define PERF_HDR_ALLOWANCE 80		/* Ethernet MTU = IB MTU + this (K:rxe_param.h) */
#define PERF_RETRY 7			/* transport retries, perftest's default */
#define PERF_RNR_RETRY 7		/* 7 = retry for ever (IBA 9.7.5.2.8) */
#define PERF_RD_ATOMIC 16u		/* READs/atomics in flight: RTE_ROCE_DEV_MAX_RD_ATOM_MAX */

enum perf_test {
	PERF_TEST_WRITE,
	PERF_TEST_READ,
	PERF_TEST_SEND,
	PERF_TEST_FETCH_ADD,
	PERF_TEST_CMP_SWAP,
};

enum perf_mode {
	PERF_MODE_BW,
	PERF_MODE_LAT,
};

struct perf_opts {
	enum perf_test test;
	enum perf_mode mode;
	uint32_t size;
	bool sweep;		/* -a: 2, 4, ... 64 KiB */
	uint64_t iters;		/* per QP */
	double duration_s;	/* -D: run for this long instead of iters */
	uint32_t qps;
	uint32_t tx_depth;
	uint32_t rx_depth;
	uint32_t post_list;
	uint32_t inline_size;
	uint32_t cq_mod;	/* signal one WR in cq_mod */
	uint8_t qp_timeout;	/* -u: local ACK timeout code, 4.096 us * 2^code */
	bool qp_timeout_set;	/* -u given: refused with -R, whose CM sets the timeout */
	uint32_t ib_mtu;	/* bytes; 0 = what the port gives */
	uint32_t workers;	/* worker lcores of the device; 0 = inline (rte_roce_poll()) */
	bool verify;
	bool histogram;		/* -H: the latency histogram after the summary */
	bool cpu_util;		/* --cpu_util: the process's and the machine's CPU use */
	bool json;
	bool baseline;
	bool loopback;
	bool print_memory;	/* --print-memory: the need before set-up, the use after */
	bool dry_run;		/* --dry-run: the need, then exit 0 without setting up */
	bool no_pdump;		/* --no-pdump: no rte_roce_pdump_enable() */
	const char *pcap;	/* --pcap FILE: the built-in capture of our (first) port */
	bool fault;
	struct rte_roce_fault_conf fault_conf;
	const char *server;	/* host to connect to; NULL = be the server */
	uint16_t tcp_port;	/* -p: the TCP port of the exchange, or with -R the rdma_cm port */
	bool rdma_cm;		/* -R: the exchange and the QPs' connection through rdma_cm (perf_cm.c) */
	const char *ip;		/* our address (two-process mode) */
	const char *ethdev;	/* ethdev name; NULL = the first one */
	const char *config_path;	/* --config FILE, or NULL */
	const char *config_port;	/* --config-port NAME; NULL = the first */
	const struct rte_roce_config_port *config;	/* its section, once read */
};

/* What the peers exchange per QP (perftest's struct pingpong_dest). */
struct perf_dest {
	uint32_t lid;
	uint32_t out_reads;
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint64_t vaddr;
	union ibv_gid gid;
	uint32_t srqn;
};

/* Room for the device's extended statistics (rte_roce_xstats_names_get()). */
#define PERF_XSTATS_MAX 256

/* One end: a port, a device, its QPs and their memory. */
struct perf_side {
	const char *name;
	uint16_t eth;
	struct rte_roce_port *port;
	bool capture;			/* --pcap runs on this port */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint16_t nb_lanes;	/* of the device: port queues, CQs of each kind */
	uint16_t nb_workers;	/* 0: inline */
	uint16_t lcores[RTE_ROCE_DEV_WORKERS_MAX];	/* of the workers */
	struct ibv_cq *scq[RTE_ROCE_DEV_WORKERS_MAX];	/* [lane]: comp_vector = lane */
	struct ibv_cq *rcq[RTE_ROCE_DEV_WORKERS_MAX];
	uint8_t *buf;
	size_t buf_len;
	size_t slot;		/* bytes of one message slot, cache-line aligned */
	size_t region;		/* bytes per QP: local, target, receive slots */
	uint32_t rx_slots;
	struct ibv_mr *mr;
	int gid_index;
	union ibv_gid gid;
	uint32_t ib_mtu;
	struct ibv_qp *qp[PERF_QPS_MAX];
	struct perf_dest local[PERF_QPS_MAX];
	struct perf_dest remote[PERF_QPS_MAX];
	struct rte_roce_fault *fault;
	/* server-side state of the ping-pong tests */
	uint64_t echo_next[PERF_QPS_MAX];
	/* ports stats when the test started */
	struct rte_roce_port_stats stats0;
	/* the device's counters (rte_roce_xstats_get()) when the test started */
	struct rte_roce_xstat xstats0[PERF_XSTATS_MAX];
	/* each worker's counters when the test started */
	struct rte_roce_worker_stats wstats0[RTE_ROCE_DEV_WORKERS_MAX];
};

/* A device's lanes and workers over a run. */
struct perf_lanes {
	uint16_t nb_lanes;
	uint16_t nb_workers;	/* 0: inline */
	uint16_t lcores[RTE_ROCE_DEV_WORKERS_MAX];
	struct rte_roce_worker_stats w[RTE_ROCE_DEV_WORKERS_MAX];	/* over the run */
	uint64_t handoffs_out, handoffs_in, handoff_drops;	/* xstats, over the run */
};

/* Latency histogram: bucket b counts samples up to PERF_HIST_FIRST_US * 2^b, the last all above. */
#define PERF_HIST_BUCKETS 24
#define PERF_HIST_FIRST_US 0.125

struct perf_lat {
	double min, p50, p99, p999, max, avg, stdev;	/* microseconds */
	uint64_t hist[PERF_HIST_BUCKETS];
};

struct perf_baseline {
	uint32_t frame_len;
	double mpps, gbps;	/* delivered frames, L2 bytes */
	struct perf_lat rtt;
	uint64_t rtt_samples;
	bool done;
};

struct perf_result {
	uint32_t size;
	uint64_t msgs;		/* messages completed, all QPs */
	double secs;
	double msg_rate_mpps;
	double bw_gbps;		/* payload bits */
	double bw_peak_gbps;	/* best one-second window (perftest's BW peak) */
	struct perf_lat lat;	/* round trips (LAT mode) */
	double cpu_user_s, cpu_sys_s, busy;	/* busy: share of the loop's cycles that did work */
	double cpu_machine;	/* --cpu_util: share of all CPUs' time not idle (/proc/stat) */
	double cpu_wall_s;	/* the time over which cpu_user_s and cpu_sys_s were taken */
	struct rte_roce_port_stats port[2];
	unsigned int nb_ports;
	/* the devices' counters over the run, named by counter_names */
	uint64_t counters[2][PERF_XSTATS_MAX];
	const struct rte_roce_xstat_name *counter_names;
	unsigned int nb_counters;
	struct rte_roce_fault_stats fault;
	uint64_t verified;	/* bytes checked by --verify */
	struct perf_lanes lanes[2];	/* per device, as port[] */
	struct perf_baseline base;
};

/*
 * perftest's out-of-band exchange with the peer: a TCP connection, or with
 * -R an RC QP that rdma_cm connected (perf_cm.c), over which each step is
 * one SEND (PT:src/perftest_communication.c, ctx_xchg_data_rdma()).
 */
struct perf_cm;
struct perf_oob {
	bool client;		/* writes first (the server reads first) */
	int fd;			/* the TCP socket; -1 with -R */
	struct perf_cm *cm;	/* -R: the exchange QP; NULL over TCP */
};

/* The run: one or two local sides and, in two-process mode, the peer. */
struct perf_run {
	const struct perf_opts *o;
	struct perf_side *cli;	/* the requester, NULL on a server */
	struct perf_side *srv;	/* the target, NULL on a client */
	struct perf_oob *oob;	/* NULL in loopback */
	uint64_t busy_cycles;
	uint64_t loop_cycles;
	uint64_t last_round;	/* TSC at the start of the last progress round */
	bool last_work;		/* and whether it did work */
};

/* perf_config.c: read --config into o (0, or a negative errno after printing why) */
int perf_config_apply(struct perf_opts *o);

/* perf_side.c */
int perf_side_open(struct perf_side *s, const struct perf_opts *o, uint16_t eth,
		   const char *ip, uint8_t mac_last, bool workers);
int perf_poll_cqs(struct ibv_cq *const *cqs, uint16_t nb, int n, struct ibv_wc *wc);
int perf_side_qps(struct perf_side *s, const struct perf_opts *o, uint32_t max_size);
void perf_side_qp_init_attr(const struct perf_side *s, const struct perf_opts *o, uint32_t q,
			    struct ibv_qp_init_attr *ia);
void perf_side_set_dest(struct perf_side *s, uint32_t q);
int perf_side_connect(struct perf_side *s, const struct perf_opts *o);
void perf_side_close(struct perf_side *s);
uint8_t *perf_local(const struct perf_side *s, uint32_t q);
uint8_t *perf_target(const struct perf_side *s, uint32_t q);
uint8_t *perf_rx_slot(const struct perf_side *s, uint32_t q, uint32_t i);
uint8_t perf_pattern(uint64_t k);
uint32_t perf_frame_len(enum perf_test test, uint32_t size, uint32_t ib_mtu);

/* perf_run.c */
/* 0 for a successful completion, else -EIO after printing its status by name and in words */
int perf_wc_check(const struct ibv_wc *wc, const char *who);
int perf_run_size(struct perf_run *r, uint32_t size, bool first, struct perf_result *res);
int perf_serve_size(struct perf_run *r, uint32_t size, bool first, struct perf_result *res);
bool perf_sync_before(const struct perf_opts *o, bool first);
bool perf_sync_after(const struct perf_opts *o);
bool perf_sync_close(const struct perf_opts *o);
unsigned int perf_progress(struct perf_run *r);
/*
 * After SIGTERM or SIGINT: every QP of the nb_sides sides to the Error
 * state, the flushed work requests polled, a line per side and its counters
 * printed. 0, or -EIO when a QP refused the Error state.
 */
int perf_stop(struct perf_run *r, struct perf_side *side, unsigned int nb_sides);

/* perf_base.c */
int perf_base_loopback(struct perf_run *r, uint32_t frame_len, struct perf_baseline *b);
int perf_base_client(struct perf_run *r, uint32_t frame_len, struct perf_baseline *b);
int perf_base_server(struct perf_run *r, uint32_t frame_len);
void perf_lat_stats(uint64_t *cycles, uint64_t n, struct perf_lat *lat);

/* perf_oob.c: perftest's exchange (doc/wire-format.md §11.2) */
#define PERF_OOB_VERSION "6.06"
#define PERF_OOB_VERSION_LEN 16
/*
 * The cycle buffer we announce: perftest's RDMA and atomic requesters walk
 * the remote address through that many bytes from the peer's vaddr when
 * messages are at most half of it (PT:perftest_resources.c
 * increase_rem_addr()), so every target slot is at least that big.
 */
#define PERF_CYCLE_BUFFER 4096
#define PERF_OOB_VERSION_MIN 5.70
#define PERF_DEST_MSG_LEN 108	/* RoCE key record, NUL included */
/*
 * With -R the record is perftest's struct pingpong_dest itself, its
 * integers big-endian (PT:src/perftest_communication.c rdma_write_keys(),
 * built with HAVE_ENDIAN): lid, out_reads, qpn, psn, rkey, 4 bytes of
 * padding, vaddr, gid, srqn, gid_index.
 */
#define PERF_DEST_BIN_LEN 56
int perf_oob_open(const struct perf_opts *o, struct perf_oob *oob);
int perf_oob_xchg(struct perf_oob *oob, const void *out, void *in, size_t len);
int perf_oob_hello(struct perf_oob *oob, uint32_t *ib_mtu);
int perf_oob_xchg_dests(struct perf_oob *oob, const struct perf_dest *local,
			struct perf_dest *remote, uint32_t n);
int perf_oob_sync(struct perf_oob *oob);
int perf_oob_readable(struct perf_oob *oob);
int perf_dest_format(const struct perf_dest *d, char msg[PERF_DEST_MSG_LEN]);
int perf_dest_parse(const char msg[PERF_DEST_MSG_LEN], struct perf_dest *d);
void perf_dest_encode(const struct perf_dest *d, uint8_t msg[PERF_DEST_BIN_LEN]);
void perf_dest_decode(const uint8_t msg[PERF_DEST_BIN_LEN], struct perf_dest *d);
int perf_oob_report(struct perf_oob *oob, struct perf_result *res);
void perf_oob_close(struct perf_oob *oob, bool records);

/*
 * perf_cm.c: -R, perftest's rdma_cm mode (PT:src/perftest_communication.c,
 * v4.5-0.17). perf_cm_open(): the device's CM and the exchange QP, connected
 * on the -p port (the server listens, the client resolves and connects);
 * perf_cm_connect_qps(): the test's QPs, created by the CM ids and connected
 * on the same port once the exchange QP's listener is gone, between two
 * syncs as perftest's create_rdma_cm_connection(); perf_cm_close(): every id
 * disconnected (a bounded wait for DISCONNECTED), its QP and the CM gone.
 * The exchange itself: perf_cm_send/recv/readable, one SEND per step.
 */
#define PERF_CM_MSG_MAX 64	/* the exchange's largest step: a binary record (56) */
int perf_cm_open(struct perf_side *s, const struct perf_opts *o, struct perf_cm **cm);
int perf_cm_connect_qps(struct perf_cm *cm, struct perf_oob *oob);
int perf_cm_check(struct perf_cm *cm);
void perf_cm_close(struct perf_cm *cm);
int perf_cm_send(struct perf_cm *cm, const void *buf, size_t len);
int perf_cm_recv(struct perf_cm *cm, void *buf, size_t len);
int perf_cm_readable(struct perf_cm *cm);

/*
 * perf_memory.c: the DPDK memory of the run o, as pp_mem.h computes it
 * (pages of page_size, eal_bytes for the EAL): perf_mem_need(); printed
 * with the EAL's heap in use now (--print-memory, --dry-run):
 * perf_mem_print_need(); what the heap holds once set up against it:
 * perf_mem_print_used(). After an allocation failed (o), or when the EAL
 * found no hugepages (o NULL: before the options are read),
 * perf_explain_nomem() prints what the EAL had, what the kernel and the
 * hugetlbfs mounts have left, what the run needs and what to change.
 */
struct pp_mem;
void perf_mem_need(const struct perf_opts *o, uint64_t page_size, uint64_t eal_bytes,
		   struct pp_mem *m);
void perf_mem_print_need(const struct perf_opts *o, struct pp_mem *m);
void perf_mem_print_used(const struct perf_opts *o, const struct pp_mem *m);
void perf_explain_nomem(const struct perf_opts *o);

/* perf_out.c */
void perf_print_header(const struct perf_opts *o, const struct perf_side *s);
void perf_print_row(const struct perf_opts *o, const struct perf_result *res);
void perf_print_counters(const struct perf_result *r, const char *const *side);
void perf_print_json(const struct perf_opts *o, const struct perf_result *res);
const char *perf_test_name(enum perf_test t);

#endif /* PERF_H */
