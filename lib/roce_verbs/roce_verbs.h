/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCE_VERBS_H
#define ROCE_VERBS_H

/*
 * librte_roce_verbs: libibverbs' exported functions, preloaded in front of
 * the real libibverbs.so.1, for the devices of a librte_roce configuration
 * file (doc/verbs-abi.md). Private header: nothing here is installed.
 *
 * Every exported function is defined under a C name of its own and given
 * the libibverbs name by an asm label (ROCE_VERBS_EXPORT), so that its
 * prototype may differ from the one in <infiniband/verbs.h> (macros, the
 * compat port attributes); version.map gives it rdma-core 44's version.
 */

#include <stdbool.h>

#include <infiniband/verbs.h>
#include <rte_log.h>
#include <rte_spinlock.h>

#include <rte_roce_config.h>

extern int roce_verbs_logtype;

#define RV_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, roce_verbs_logtype, "ROCE verbs: %s(): " fmt "\n", \
		__func__, ##__VA_ARGS__)

/* The symbol name of an exported function (version.map gives its version). */
#define ROCE_VERBS_EXPORT(name) __asm__(#name)

/* The environment variables roce-run sets. */
#define ROCE_VERBS_ENV_CONFIG "ROCE_VERBS_CONFIG"
#define ROCE_VERBS_ENV_EAL_ARGS "ROCE_VERBS_EAL_ARGS"

/* One device of the configuration: a [port NAME] section. */
struct roce_verbs_dev {
	struct ibv_device ibv;		/* what ibv_get_device_list() hands out */
	unsigned int index;		/* roce<index>, its place in the file */
	const struct rte_roce_config_port *conf;
	struct rte_roce_port *port;	/* NULL until first use */
	struct ibv_context *ctx;	/* NULL until first use */
	unsigned int opens;		/* ibv_open_device() not yet closed */
	/* Taken by the thread that drives an inline device's progress. */
	rte_spinlock_t progress_lock;
};

/*
 * The real libibverbs function of that name and version (dlvsym on
 * RTLD_NEXT), typed as our own function fn that stands for it, or NULL if
 * the process has none; looked up once per call site.
 */
#define ROCE_VERBS_REAL(fn, name, version) \
	({ \
		static __typeof__(&fn) real_; \
		if (real_ == NULL) \
			real_ = (__typeof__(&fn))roce_verbs_real_lookup(name, version); \
		real_; \
	})

void *roce_verbs_real_lookup(const char *name, const char *version);

/* The configured devices (0 if no configuration); loads it on first call. */
unsigned int roce_verbs_dev_count(void);
struct roce_verbs_dev *roce_verbs_dev_at(unsigned int i);

/* The device's context, brought up on first use: NULL with errno set. */
struct ibv_context *roce_verbs_dev_context(struct roce_verbs_dev *dev);

/*
 * Take a device down if it is up: its librte_roce device closed, its port
 * destroyed (stopped), its context gone (the next use brings it up again).
 * 0, or -EBUSY when the program still holds objects of it (nothing done).
 * Its CM must be closed already.
 */
int roce_verbs_dev_down(struct roce_verbs_dev *dev);

/* The device of one of our ibv_device / ibv_context, or NULL if not ours. */
struct roce_verbs_dev *roce_verbs_dev_of_ibv(const struct ibv_device *device);
struct roce_verbs_dev *roce_verbs_dev_of_ctx(const struct ibv_context *ctx);
/* The device whose context's cmd_fd is (a duplicate of) fd, or NULL. */
struct roce_verbs_dev *roce_verbs_dev_of_cmd_fd(int fd);

/*
 * Make progress on an inline device, unless another thread is (it does not
 * wait): the packets and work requests handled, 0 when idle (and always in
 * worker mode, where the workers make progress).
 */
int roce_verbs_progress(struct ibv_context *ctx);

/*
 * Destroyed objects of ours (roce_verbs_live.c): recorded by
 * roce_verbs_obj_destroyed() under roce_verbs_obj_lock(), around the
 * destroy itself, and forgotten when an object is made again at the same
 * address (roce_verbs_obj_created()). roce_verbs_obj_gone() is true, with
 * errno EINVAL and a log naming the call, for one of the last 4096 destroyed
 * (false for NULL).
 */
void roce_verbs_obj_lock(void);
void roce_verbs_obj_unlock(void);
void roce_verbs_obj_destroyed(const void *obj);
void roce_verbs_obj_created(const void *obj);
bool roce_verbs_obj_gone(const void *obj, const char *call);

/* Fill the fast-path ops of a freshly opened device's context. */
void roce_verbs_ops_init(struct ibv_context *ctx);

/*
 * Present a freshly opened device's context as a verbs_context, with the
 * extended verbs of roce_verbs_ex.c (doc/verbs-abi.md).
 */
void roce_verbs_ex_init(struct ibv_context *ctx);

/*
 * The constructors behind ibv_create_cq()/ibv_create_qp() and their
 * extended forms, for an object of ours: NULL with errno set.
 */
struct ibv_cq *roce_verbs_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int comp_vector);
struct ibv_qp *roce_verbs_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);

/* Give an extended CQ its polling functions (roce_verbs_cq_ex.c). */
void roce_verbs_cq_ex_init(struct ibv_cq_ex *cq);
/* Give an extended QP its ibv_wr_* functions (roce_verbs_wr.c). */
void roce_verbs_qp_ex_init(struct ibv_qp_ex *qpx);
/*
 * Whether ibv_create_qp_ex() attributes ask for what librte_roce lacks
 * (roce_verbs_ex.c): true with errno EOPNOTSUPP and the knob logged, for
 * call (the verb's name).
 */
bool roce_verbs_qp_ex_refused(const struct ibv_qp_init_attr_ex *attr, const char *call);

/* The memory window ops (roce_verbs_obj.c): verbs' return conventions. */
struct ibv_mw *rv_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int rv_dealloc_mw(struct ibv_mw *mw);
int rv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind);

/* errno of a librte_roce call: its -errno, or rte_errno for a constructor. */
static inline int
roce_verbs_errno(int rc)
{
	return rc < 0 ? -rc : rc;
}

#endif /* ROCE_VERBS_H */
