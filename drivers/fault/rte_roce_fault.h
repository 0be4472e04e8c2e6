/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RTE_ROCE_FAULT_H
#define RTE_ROCE_FAULT_H

/**
 * @file
 * Fault injection on any ethdev queue, through ethdev RX/TX callbacks:
 * drop, duplicate, delay, reorder and corrupt frames with given
 * probabilities from a seeded generator, plus targeted rules ("drop the 3rd
 * RC SEND_ONLY to QP 17").
 *
 * Decisions are deterministic: the same seed and the same sequence of
 * frames on the queue give the same faults. Each frame draws one number;
 * the probabilities are exclusive (at most one random fault per frame) and
 * add up to at most 1. A rule that fires replaces the random draw.
 *
 * RX has every fault. The callback owns the whole burst array (up to the
 * caller's nb_pkts), so it removes dropped frames, appends copies and hands
 * held frames back in later bursts. DPDK 22.11 calls RX callbacks on every
 * rte_eth_rx_burst(), also when the PMD returned no frame, so a held frame
 * comes out at the first RX burst after it is due (delay elapsed, enough
 * later frames, or rte_roce_fault_flush()): a queue that is not polled
 * releases nothing.
 *
 * TX has corruption only. rte_eth_tx_burst() passes the count a TX callback
 * returns to the PMD and returns the PMD's count to the caller, who keeps
 * ownership of pkts[ret..n): a callback that freed or kept a frame and
 * returned fewer would make a caller that retries or frees that tail (as
 * rte_roce_port does) send a freed mbuf or free one twice, and the array
 * has no room for copies. So TX drop, duplication, delay and reordering are
 * refused with ENOTSUP; put them on the peer's RX queue instead.
 *
 * A frame is corrupted in place if the injector owns it alone (one
 * reference, direct mbuf in every segment); otherwise, for example when the
 * sender keeps a reference for retransmission and net_ring hands the same
 * mbuf to the receiver, a copy is corrupted and the reference given up.
 * Copies come from the frame's own pool; when it is empty the fault is
 * skipped and counted.
 *
 * Threading: the callbacks run in the thread that calls the burst
 * functions on the queue. rte_roce_fault_rule_add() and
 * rte_roce_fault_flush() may be called from any thread;
 * rte_roce_fault_stats_get() reads counters the burst thread writes, so
 * call it from that thread (or accept values a burst old); attach and
 * detach follow the ethdev rules given with them.
 */

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Directions an injector works on; a rule names one of RX and TX. */
enum rte_roce_fault_dir {
	RTE_ROCE_FAULT_RX = 1,		/**< Frames received on the queue. */
	RTE_ROCE_FAULT_TX = 2,		/**< Frames sent on the queue (corruption only). */
	RTE_ROCE_FAULT_BOTH = 3,	/**< Both (attach only). */
};

/** What a fault does to a frame. */
enum rte_roce_fault_action {
	RTE_ROCE_FAULT_DROP,	/**< Free it. */
	RTE_ROCE_FAULT_DUP,	/**< Deliver it and an exact copy, the copy after the burst. */
	RTE_ROCE_FAULT_CORRUPT,	/**< Change one byte (see enum rte_roce_fault_region). */
	RTE_ROCE_FAULT_DELAY,	/**< Hold it for delay_us. */
	RTE_ROCE_FAULT_REORDER,	/**< Hold it until reorder_depth later frames passed. */
	RTE_ROCE_FAULT_ACTION_MAX	/**< Number of actions. */
};

/** Which bytes corruption may change; never an ICRC-masked one. */
enum rte_roce_fault_region {
	/** Any byte from the BTH to the end of the ICRC, but BTH byte 4. */
	RTE_ROCE_FAULT_REGION_ROCE,
	/** A payload byte (as REGION_ROCE when the packet has no payload). */
	RTE_ROCE_FAULT_REGION_PAYLOAD,
};

/** Frames held at most by default, per injector (delay, reorder, copies). */
#define RTE_ROCE_FAULT_HOLD_DEFAULT 256

/** Rules an injector holds at most. */
#define RTE_ROCE_FAULT_RULES_MAX 16

/** A rule's opcode that matches every RoCEv2 opcode. */
#define RTE_ROCE_FAULT_OPCODE_ANY UINT16_MAX

/** Random faults of an injector. Zero-initialise, then set what you need. */
struct rte_roce_fault_conf {
	uint64_t seed;		/**< Generator seed; the same seed gives the same faults. */
	double drop;		/**< Probability to drop a frame, 0..1. */
	double dup;		/**< Probability to duplicate it. */
	double corrupt;		/**< Probability to corrupt it (RoCEv2 frames only). */
	double delay;		/**< Probability to delay it by delay_us. */
	double reorder;		/**< Probability to let reorder_depth later frames pass it. */
	uint32_t delay_us;	/**< Delay of a delayed frame, microseconds (TSC). */
	uint32_t reorder_depth;	/**< Later frames that overtake a reordered one; 0 means 1. */
	/** A reordered frame leaves after this long even if fewer frames followed; 0 = no limit. */
	uint32_t reorder_max_us;
	uint32_t hold_max;	/**< Frames held at most; 0 = RTE_ROCE_FAULT_HOLD_DEFAULT. */
	enum rte_roce_fault_region corrupt_region;	/**< Bytes corruption may change. */
	/**
	 * Touch only RoCEv2 frames (those rte_roce_pkt_parse_mbuf() accepts):
	 * ARP, ND, ICMP and everything else pass unharmed and undelayed.
	 * Otherwise other frames may be dropped, duplicated, delayed or
	 * reordered too (never corrupted). Rules match RoCEv2 frames only.
	 */
	bool roce_only;
};

/**
 * A targeted fault. It counts the RoCEv2 frames in its direction that match
 * its filters, and fires on match number nth and the count - 1 matches after
 * it. Every rule counts every frame it matches; the first rule (in the
 * order added) that fires on a frame acts, and the frame draws no random
 * fault.
 *
 * Example: drop the 3rd RC SEND_ONLY received: dir RX, action DROP,
 * opcode RTE_ROCE_OP_RC_SEND_ONLY, nth 3, count 1.
 */
struct rte_roce_fault_rule {
	enum rte_roce_fault_dir dir;		/**< RX or TX (TX: action CORRUPT only). */
	enum rte_roce_fault_action action;	/**< What to do. */
	uint16_t opcode;	/**< BTH opcode, or RTE_ROCE_FAULT_OPCODE_ANY. */
	bool match_dqpn;	/**< Match only BTH DestQP dqpn. */
	uint32_t dqpn;		/**< Destination QP (24 bits). */
	bool match_psn;		/**< Match only BTH PSN psn. */
	uint32_t psn;		/**< PSN (24 bits). */
	uint32_t nth;		/**< First match that fires, 1-based; 0 means 1. */
	uint32_t count;		/**< Matches that fire from nth on; 0 = all. */
};

/** Counters of an injector, both directions summed. */
struct rte_roce_fault_stats {
	uint64_t seen;		/**< Frames the callbacks were given. */
	uint64_t roce;		/**< Of which RoCEv2 frames. */
	uint64_t dropped;	/**< Frames freed. */
	uint64_t duplicated;	/**< Copies made (and delivered, or still held). */
	uint64_t corrupted;	/**< Frames with one byte changed. */
	uint64_t delayed;	/**< Frames held for delay_us. */
	uint64_t reordered;	/**< Frames held for later frames to pass. */
	uint64_t released;	/**< Held frames delivered. */
	uint64_t rules_fired;	/**< Frames on which a rule acted. */
	uint64_t skipped;	/**< Faults not done: no mbuf for a copy, hold queue full. */
	uint64_t held;		/**< Frames held now. */
};

struct rte_roce_fault;

/**
 * Start injecting faults on a queue of an ethdev: add an RX callback, a TX
 * callback, or both. The queue must be set up (rte_eth_rx/tx_queue_setup(),
 * e.g. by rte_roce_port_create()); the device may be started or not.
 * Several injectors may share a queue; their callbacks run in the order
 * attached.
 *
 * @param port_id
 *   The ethdev.
 * @param queue_id
 *   The queue (same number for RX and TX with RTE_ROCE_FAULT_BOTH).
 * @param dir
 *   RTE_ROCE_FAULT_RX, RTE_ROCE_FAULT_TX or RTE_ROCE_FAULT_BOTH.
 * @param conf
 *   Random faults; copied.
 * @return
 *   The injector, or NULL with rte_errno set: EINVAL (conf NULL, bad dir or
 *   corrupt_region, a probability outside 0..1 or not a number,
 *   probabilities adding up to more than 1, queue_id not set up), ENODEV (no
 *   such ethdev), ENOTSUP (drop, dup, delay or reorder asked on TX; or the
 *   DPDK build has no RX/TX callbacks), ENOMEM.
 */
struct rte_roce_fault *
rte_roce_fault_attach(uint16_t port_id, uint16_t queue_id, enum rte_roce_fault_dir dir,
		      const struct rte_roce_fault_conf *conf);

/**
 * Add a targeted rule; it applies from the next burst on. Safe while the
 * queue runs (the rule is published with a release store), but not from
 * two threads at once.
 *
 * @param f
 *   The injector.
 * @param rule
 *   The rule; copied.
 * @return
 *   0; -EINVAL (NULL argument, dir not RX or TX, bad action, opcode neither
 *   0..255 nor RTE_ROCE_FAULT_OPCODE_ANY, dqpn or psn above 24 bits);
 *   -ENOTSUP (the injector does not work on rule->dir, or an action other
 *   than CORRUPT on TX); -ENOSPC (RTE_ROCE_FAULT_RULES_MAX rules already).
 */
int
rte_roce_fault_rule_add(struct rte_roce_fault *f, const struct rte_roce_fault_rule *rule);

/**
 * How many times a rule fired so far. Exact from the burst thread.
 *
 * @param f
 *   The injector.
 * @param dir
 *   RTE_ROCE_FAULT_RX or RTE_ROCE_FAULT_TX: the rule's direction.
 * @param index
 *   The rule, 0-based among those of dir in the order added.
 * @return
 *   The count (>= 0); -EINVAL (f NULL or bad dir); -ENOENT (no such rule).
 */
int64_t
rte_roce_fault_rule_fired(struct rte_roce_fault *f, enum rte_roce_fault_dir dir,
			  unsigned int index);

/**
 * Ask for every held frame to be released at the next RX burst on the
 * queue, due or not (at most as many as that burst has room for; the rest
 * at the bursts after). Does not release anything by itself.
 *
 * @param f
 *   The injector.
 * @return
 *   0; -EINVAL (f NULL).
 */
int
rte_roce_fault_flush(struct rte_roce_fault *f);

/**
 * Read the injector's counters.
 *
 * @param f
 *   The injector.
 * @param stats
 *   Where to write them.
 * @return
 *   0; -EINVAL (NULL argument).
 */
int
rte_roce_fault_stats_get(struct rte_roce_fault *f, struct rte_roce_fault_stats *stats);

/**
 * Remove the callbacks, free the held frames and the injector.
 *
 * DPDK does not wait for callbacks in flight (rte_eth_remove_rx_callback()
 * only unlinks them), so the caller must make sure no burst runs on the
 * queue: call it from the thread doing the bursts, or with the device
 * stopped. The callback records are then freed here, as DPDK 22.11 asks.
 * Detach before rte_eth_dev_close() of the ethdev.
 *
 * @param f
 *   The injector; NULL is ignored.
 * @return
 *   0 (f is freed, also if the ethdev has gone away meanwhile); -EINVAL
 *   (ethdev does not know one of the callbacks: f is not freed, and the
 *   callbacks removed before the failure stay removed).
 */
int
rte_roce_fault_detach(struct rte_roce_fault *f);

#ifdef __cplusplus
}
#endif

#endif /* RTE_ROCE_FAULT_H */
