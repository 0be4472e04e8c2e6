/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NVMF_H
#define NVMF_H

/*
 * roce_nvmf's target, as main.c and the func tests drive it: create it on
 * a device and its CM instance, call nvmf_tgt_poll() in the loop that calls
 * rte_roce_poll() and rte_roce_cm_poll() (doc/nvmf.md, "Threading model"),
 * stop it, destroy it. Not a library: nothing here is installed.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>

#include <rte_roce_cm.h>

#define NVMF_NS_MAX		8	/* namespaces per subsystem */
#define NVMF_SUBSYS_MAX		8	/* I/O subsystems per target */
#define NVMF_HOSTS_MAX		16	/* host NQNs of the allow-list */
#define NVMF_NQN_MAX		223	/* Base: an NQN is at most 223 bytes */
#define NVMF_PORT_DEFAULT	4420	/* RDMA §3.1: IANA's NVMe-oF port */
#define NVMF_DISCOVERY_NQN	"nqn.2014-08.org.nvmexpress.discovery"

#define NVMF_PATH_MAX		256
#define NVMF_LISTEN_MAX		4	/* addresses listened on (IPv4 and IPv6 at once) */

/*
 * A namespace: RAM of size bytes, or the file or block device at path
 * (size 0: all of it; else the first size bytes), through io_uring.
 */
struct nvmf_ns_conf {
	uint64_t size;		/* bytes, a multiple of block_size */
	uint32_t block_size;	/* 512 or 4096 */
	char path[NVMF_PATH_MAX];	/* empty: RAM */
};

/* An I/O subsystem: its NQN, its namespaces, the hosts it lets in. */
struct nvmf_subsys_conf {
	char nqn[NVMF_NQN_MAX + 1];	/* required, unique, not the discovery NQN */
	char hosts[NVMF_HOSTS_MAX][NVMF_NQN_MAX + 1];	/* allowed host NQNs; none: any host */
	unsigned int nb_hosts;
	struct nvmf_ns_conf ns[NVMF_NS_MAX];	/* NSID i + 1 */
	unsigned int nb_ns;
};

/* What a target serves; zero fields take the defaults shown. */
struct nvmf_tgt_conf {
	struct sockaddr_storage listen[NVMF_LISTEN_MAX];	/* addresses and ports (0: 4420) */
	unsigned int nb_listen;		/* at least one */
	struct nvmf_subsys_conf subsys[NVMF_SUBSYS_MAX];	/* at least one */
	unsigned int nb_subsys;
	uint16_t max_io_queues;		/* I/O queues per controller (default 8) */
	uint16_t max_queue_depth;	/* entries of a queue, CAP.MQES + 1 (default 128) */
	uint32_t in_capsule_data;	/* bytes of in-capsule data on I/O queues (default 8192) */
	uint32_t max_transfer;		/* bytes per command, a power of two >= 4096 (default 128 KiB) */
	uint32_t data_buffers;		/* buffers of max_transfer bytes (default 256) */
	uint16_t max_controllers;	/* at once (default 64) */
	/*
	 * Capsule buffers of one shared receive queue that every I/O queue
	 * takes its command capsules from (0: none, each I/O queue posts
	 * its own HSQSIZE + 1; doc/nvmf.md, "A shared receive queue").
	 */
	uint32_t srq_depth;
};

/*
 * Every error path is counted here (doc/nvmf.md, "Counters"): an NVMe
 * status sent, an RDMA_CM_REQUEST rejected, a queue torn down.
 */
struct nvmf_tgt_stats {
	uint64_t connect_requests;	/* RDMA_CM_REQUESTs seen */
	uint64_t cm_rejects;		/* of them rejected (RDMA §3.5 Figure 11) */
	uint64_t queues_live;		/* queues accepted */
	uint64_t queues_freed;		/* queues torn down and freed */
	uint64_t controllers;		/* controllers created */
	uint64_t capsules;		/* command capsules received */
	uint64_t responses;		/* response capsules sent */
	uint64_t rdma_reads;		/* RDMA READs posted (host writes) */
	uint64_t rdma_writes;		/* RDMA WRITEs posted (host reads) */
	uint64_t in_capsule;		/* commands whose data came in the capsule */
	uint64_t send_inv;		/* responses by SEND_WITH_INVALIDATE */
	uint64_t buffer_waits;		/* requests that waited for a data buffer */
	uint64_t errors;		/* responses with a status other than success */
	uint64_t invalid_opcode;	/* of them: unknown opcode or fabrics type */
	uint64_t invalid_field;		/* invalid field in command */
	uint64_t invalid_ns;		/* namespace not active */
	uint64_t lba_range;		/* LBAs beyond the namespace */
	uint64_t sgl_invalid;		/* SGL type, count, length or offset refused */
	uint64_t sgl_multi;		/* of them: several descriptors (segments) */
	uint64_t cmd_seq;		/* command sequence errors (before Connect or ready) */
	uint64_t connect_refused;	/* Connect commands failed */
	uint64_t capsule_short;		/* capsules under 64 bytes: the queue is torn down */
	uint64_t capsule_overflow;	/* capsules beyond the queue's size: the queue is torn down */
	uint64_t wc_errors;		/* work requests failed (not flushed): the queue is torn down */
	uint64_t ka_expired;		/* controllers torn down by the keep-alive timer */
	uint64_t file_ios;		/* operations submitted to io_uring */
	uint64_t io_errors;		/* of them failed: media error status sent */
	uint64_t aens;			/* asynchronous events sent (namespace notices) */
	uint64_t aers_aborted;		/* Asynchronous Event Requests aborted by a reset */
	uint64_t srq_low;		/* SRQ limit events: few capsule buffers left, RNR NAKs near */
	uint64_t srq_stale;		/* SRQ receives of a queue already freed: buffer posted again */
	uint64_t qp_fatal;		/* QPs the device moved to ERR: their queue torn down */
};

struct nvmf_tgt;

/* The defaults above, no listen address yet. */
void nvmf_tgt_conf_defaults(struct nvmf_tgt_conf *conf);

/*
 * Create a target on a device whose CM instance is cm: listen on each of
 * conf->listen[]. NULL with rte_errno set and the reason logged (EINVAL: a
 * knob that cannot work, named in the log; ENOMEM; a verbs or CM errno).
 */
struct nvmf_tgt *nvmf_tgt_create(struct ibv_context *ctx, struct rte_roce_cm *cm,
				 const struct nvmf_tgt_conf *conf);

/* One round: CM events, completions, waiting requests, timers. Work done (0: idle). */
int nvmf_tgt_poll(struct nvmf_tgt *tgt);

/* Stop: no new connection; every queue disconnected. nvmf_tgt_idle() once all are freed. */
void nvmf_tgt_stop(struct nvmf_tgt *tgt);

/* No queue left (after nvmf_tgt_stop(), keep polling until true). */
bool nvmf_tgt_idle(const struct nvmf_tgt *tgt);

/* Free everything; the target must be idle (else -EBUSY). 0 or a negative errno. */
int nvmf_tgt_destroy(struct nvmf_tgt *tgt);

/*
 * Re-read the size of every namespace that is the whole of a file or block
 * device (a --ns-file without a size), as after the file grew; each that
 * changed is reported to the controllers of its subsystem (a Namespace
 * Attribute Changed notice). The number that changed, or a negative errno
 * (fstat or BLKGETSIZE64 failed).
 */
int nvmf_tgt_ns_rescan(struct nvmf_tgt *tgt);

/* The counters. */
const struct nvmf_tgt_stats *nvmf_tgt_stats(const struct nvmf_tgt *tgt);

/* Counters by name, for printing: the i-th name and value; false past the last. */
bool nvmf_tgt_stat_at(const struct nvmf_tgt *tgt, unsigned int i, const char **name,
		      uint64_t *value);

/*
 * Namespace nsid of subsystem subnqn: its bytes (RAM namespaces), so that a
 * test checks what was written; NULL if none or a file.
 */
uint8_t *nvmf_tgt_ns_data(struct nvmf_tgt *tgt, const char *subnqn, uint32_t nsid,
			  uint64_t *size);

#endif /* NVMF_H */
