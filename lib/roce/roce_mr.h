/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_MR_H
#define ROCE_MR_H

/*
 * Memory regions and the copies between scatter/gather lists and packets.
 *
 * The MR table is an array of max_mr + 1 entries allocated when the device
 * opens and freed when it closes, so a struct roce_mr is never freed under
 * a reader. Key = index << 8 | generation; the generation byte of a slot is
 * bumped on every registration, so a key of a deregistered MR fails even
 * after its slot is reused (until 256 registrations of that slot later).
 * Index 0 is never used: key 0, a common mistake, is always invalid.
 * lkey == rkey: one key names the MR locally and remotely, as in rxe.
 *
 * In-use counting: users is incremented for each posted WQE SGE that
 * resolves to the MR (at post time) and by roce_mr_lookup() for the
 * responder; it is decremented when the WQE is retired / by roce_mr_put().
 * Deregistration refuses (-EBUSY) while users != 0.
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include <rte_mbuf.h>

#include "rte_roce_verbs.h"

struct roce_dev;

/* Bits of a key: the generation below, the table index above. */
#define ROCE_MR_KEY_GEN_BITS	8
#define ROCE_MR_KEY_GEN_MASK	((1u << ROCE_MR_KEY_GEN_BITS) - 1)

/* Rights of a remote access. */
#define ROCE_MR_ACCESS_REMOTE	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
				 IBV_ACCESS_REMOTE_ATOMIC | RTE_ROCE_ACCESS_FLUSH_GLOBAL | \
				 RTE_ROCE_ACCESS_FLUSH_PERSISTENT)
/* Access flags an MR may carry (MW_BIND: memory windows may be bound to it, IBA C10-73). */
#define ROCE_MR_ACCESS_SUPPORTED (IBV_ACCESS_LOCAL_WRITE | ROCE_MR_ACCESS_REMOTE | \
				  IBV_ACCESS_MW_BIND)

/*
 * State of an MR slot, as rxe's (K:rxe_verbs.h enum rxe_mr_state): FREE is
 * a registered MR whose keys were invalidated (IBV_WR_LOCAL_INV, or a
 * SEND_WITH_INV naming it): every lookup fails, it can only be
 * deregistered (librte_roce has no fast registration to make it valid
 * again).
 */
enum roce_mr_state {
	ROCE_MR_STATE_INVALID,	/* not registered */
	ROCE_MR_STATE_FREE,	/* registered, keys invalidated */
	ROCE_MR_STATE_VALID,	/* registered, keys usable */
};

struct roce_mr {
	struct ibv_mr ibv;	/* first: roce_mr_of() is a cast */
	uint64_t start;		/* first registered address */
	uint64_t end;		/* one past the last (start + length, checked no wrap) */
	uint32_t users;		/* posted SGEs + responder operations using it (atomic) */
	uint32_t nb_mw;		/* memory windows bound to it (atomic; roce_mw.h) */
	int access;		/* IBV_ACCESS_* granted */
	uint8_t gen;		/* generation of the slot; low byte of the keys */
	uint8_t state;		/* enum roce_mr_state (atomic) */
};

/* A WQE's SGE as stored in the ring: the verbs SGE plus its MR, resolved at post time. */
struct roce_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
	struct roce_mr *mr;	/* used (users) while the WQE lives; NULL if the lkey failed */
};

/*
 * Position in an SGE list (or inline data) for a message copied over
 * several packets: SGE index and byte offset in it.
 */
struct roce_sge_cursor {
	uint32_t idx;
	uint32_t off;
};

static inline struct roce_mr *
roce_mr_of(struct ibv_mr *mr)
{
	return (struct roce_mr *)mr;
}

/*
 * Find the MR of key for an access of len bytes at addr. remote: an rkey
 * check, access names the remote right(s) needed (REMOTE_READ, _WRITE,
 * _ATOMIC, FLUSH_*; at least one). Local: access is IBV_ACCESS_LOCAL_WRITE
 * to write, 0 to read. A zero-length RDMA WRITE or READ checks no key at all
 * (IBA C9-88): the caller skips the lookup. pd is the QP's PD: the MR must
 * belong to it.
 * On success the MR's users count is incremented: call roce_mr_put().
 * Returns 0 and *mr; -ENOENT (no such key, stale generation, MR not
 * VALID), -EACCES (other PD or missing access right), -EFAULT (range
 * outside the MR or wrapping). A key in the memory windows' range is no
 * MR's: -ENOENT (roce_rkey_lookup() takes both).
 */
int roce_mr_lookup(struct roce_dev *dev, uint32_t key, bool remote, struct ibv_pd *pd,
		   uint64_t addr, uint64_t len, int access, struct roce_mr **mr);

/*
 * roce_mr_lookup() of the whole MR, no range: a FLUSH of selectivity MR
 * (IBA A19.4.1.1) names its target by R_Key alone. -ENOENT or -EACCES.
 */
int roce_mr_lookup_key(struct roce_dev *dev, uint32_t key, bool remote, struct ibv_pd *pd,
		       int access, struct roce_mr **mr);

/*
 * Invalidate the MR of key (engine: IBV_WR_LOCAL_INV, SEND_WITH_INV): VALID
 * -> FREE. pd is the QP's: the MR must be in it. 0; -ENOENT (no such key,
 * not VALID: already invalidated), -EACCES (other PD), -EBUSY (memory
 * windows are bound to it, as rxe refuses).
 */
int roce_mr_invalidate(struct roce_dev *dev, uint32_t key, struct ibv_pd *pd);

/*
 * Count a memory window bound to mr (engine, bind): fails with -ENOENT if
 * the MR is no longer VALID (an invalidation on another lane won).
 */
int roce_mr_add_window(struct roce_mr *mr);

/* A window bound to mr is unbound. */
static inline void
roce_mr_del_window(struct roce_mr *mr)
{
	__atomic_fetch_sub(&mr->nb_mw, 1, __ATOMIC_SEQ_CST);
}

/* Drop a use of an MR taken by roce_mr_lookup(). */
static inline void
roce_mr_put(struct roce_mr *mr)
{
	__atomic_fetch_sub(&mr->users, 1, __ATOMIC_RELEASE);
}

/*
 * Map a copy or lookup error to the local completion status:
 * -EACCES/-ENOENT -> IBV_WC_LOC_PROT_ERR, -EFAULT/-EMSGSIZE -> IBV_WC_LOC_LEN_ERR,
 * 0 -> IBV_WC_SUCCESS, anything else -> IBV_WC_LOC_QP_OP_ERR.
 */
enum ibv_wc_status roce_copy_status(int err);

/*
 * Gather len bytes from an SGE list at cursor into dst, advancing cursor.
 * The SGEs were validated at post time (sge->mr holds the MR); an SGE with
 * mr == NULL fails with -EACCES. Returns 0, -EACCES, or -EMSGSIZE if the
 * list holds fewer than len bytes past the cursor.
 */
int roce_sge_gather(const struct roce_sge *sge, uint32_t num_sge, struct roce_sge_cursor *cur,
		    void *dst, uint32_t len);

/* Scatter len bytes of src into an SGE list at cursor; errors as roce_sge_gather(). */
int roce_sge_scatter(const struct roce_sge *sge, uint32_t num_sge, struct roce_sge_cursor *cur,
		     const void *src, uint32_t len);

/* Scatter len bytes of mbuf chain m from offset off into an SGE list at cursor; as above. */
int roce_sge_scatter_mbuf(const struct roce_sge *sge, uint32_t num_sge,
			  struct roce_sge_cursor *cur, const struct rte_mbuf *m, uint32_t off,
			  uint32_t len);

/*
 * Post time: copy a verbs SGE and resolve its lkey for access (0 or
 * IBV_ACCESS_LOCAL_WRITE), taking a use of the MR. A zero-length SGE is
 * not resolved. Returns 0, or the roce_mr_lookup() error with out->mr NULL
 * (the WQE is still posted; it completes with IBV_WC_LOC_PROT_ERR).
 */
int roce_sge_resolve(struct roce_dev *dev, struct ibv_pd *pd, const struct ibv_sge *in,
		     int access, struct roce_sge *out);

/* Release the MR uses of a WQE's SGE list (on retire); the list stays readable. */
void roce_sge_put(const struct roce_sge *sge, uint32_t num_sge);

/* MR table of a device: set-up at open, teardown at close (-EBUSY if MRs remain). */
int roce_mr_table_init(struct roce_dev *dev);
void roce_mr_table_fini(struct roce_dev *dev);

/* The control calls behind rte_roce_reg_mr/dereg_mr (roce_verbs.c: lanes held). */
struct ibv_mr *roce_ctrl_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);
int roce_ctrl_dereg_mr(struct ibv_mr *ibv_mr);

#endif /* ROCE_MR_H */
