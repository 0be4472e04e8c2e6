/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef PP_OOB_H
#define PP_OOB_H

/*
 * The out-of-band TCP exchange of rdma-core's ibv_rc/uc/ud/srq_pingpong
 * (doc/wire-format.md §11.1; RC:libibverbs/examples/rc_pingpong.c, pingpong.c),
 * byte for byte, so that our examples and the unmodified tools talk to each
 * other:
 *
 *   client                                   server
 *   connect ---------------------------------> accept (one, listen(1))
 *   "LLLL:QQQQQQ:PPPPPP:<32 hex GID>\0" -----> read 52 B
 *                                              QP to RTR/RTS (UD: create the AH)
 *          <--------------------------------- "LLLL:QQQQQQ:PPPPPP:<32 hex GID>\0"
 *   "done\0" --------------------------------> read 5 B, close
 *
 * The steps are separate calls because the server acts between its read
 * and its reply. Every call returns 0 or a negative errno and never exits.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/** TCP port of the exchange when -p is not given. */
#define PP_OOB_PORT_DEFAULT 18515

/** Length of one address record on the wire, NUL included: 4+1+6+1+6+1+32+1. */
#define PP_DEST_MSG_LEN 52

/** Characters of a GID as the tools write it (32 hex digits), without the NUL. */
#define PP_WIRE_GID_LEN 32

/** The closing message, NUL included (5 bytes). */
#define PP_DONE_MSG "done"
#define PP_DONE_MSG_LEN sizeof(PP_DONE_MSG)

/** One side's address, as exchanged. */
struct pp_dest {
	uint32_t lid;	/* 16 bits; 0 on RoCE */
	uint32_t qpn;	/* 24 bits */
	uint32_t psn;	/* 24 bits */
	union ibv_gid gid;
};

/* The 16 GID bytes in wire order as 32 lowercase hex digits plus a NUL. */
void pp_gid_to_wire(const union ibv_gid *gid, char wire[PP_WIRE_GID_LEN + 1]);

/* The reverse; exactly 32 hex digits (either case). 0 or -EINVAL. */
int pp_gid_from_wire(const char *wire, union ibv_gid *gid);

/*
 * "%04x:%06x:%06x:<gid>" and its NUL in exactly PP_DEST_MSG_LEN bytes.
 * 0 or -EINVAL (a field too wide).
 */
int pp_dest_format(const struct pp_dest *dest, char msg[PP_DEST_MSG_LEN]);

/*
 * Parse a record: four lowercase-or-uppercase hex fields of exactly 4, 6, 6
 * and 32 digits separated by ':', then a NUL. 0 or -EINVAL.
 */
int pp_dest_parse(const char msg[PP_DEST_MSG_LEN], struct pp_dest *dest);

/*
 * Listen on a TCP port on every local address (AI_PASSIVE, AF_UNSPEC,
 * SO_REUSEADDR, backlog 1) as the tools do. Port 0 picks a free port, written
 * to *bound (may be NULL). Returns the listening socket or a negative errno.
 */
int pp_oob_listen(uint16_t port, uint16_t *bound);

/* Accept one connection, close the listening socket. The connection or a negative errno. */
int pp_oob_accept(int listen_fd);

/* Connect to host:port, trying each address getaddrinfo() gives. The socket or a negative errno. */
int pp_oob_connect(const char *host, uint16_t port);

/*
 * Run progress(arg) about every millisecond while accept or a read waits for
 * the peer, so that the stack keeps answering ARP, ND and ping (the peer may
 * resolve us in the middle of the exchange). NULL: just wait.
 */
void pp_oob_set_progress(void (*progress)(void *arg), void *arg);

/* Write one record. 0, -EIO (short write or the peer closed) or another negative errno. */
int pp_oob_send_dest(int fd, const struct pp_dest *dest);

/* Read one record (all 52 bytes, however TCP splits them) and parse it. 0, -EIO, -EINVAL. */
int pp_oob_recv_dest(int fd, struct pp_dest *dest);

/*
 * Print "  <which> LID 0x..., QPN 0x..., PSN 0x..., GID <IPv6 text>" as the
 * tools do (which: "local address: " or "remote address:").
 */
void pp_dest_print(const char *which, const struct pp_dest *dest);

/* Write "done" and its NUL. 0 or a negative errno. */
int pp_oob_send_done(int fd);

/* Read "done" and its NUL. 0, -EIO (closed early), -EINVAL (other bytes). */
int pp_oob_recv_done(int fd);

/* Bound every later read and write on fd to timeout_ms (SO_RCVTIMEO/SO_SNDTIMEO). 0 or -errno. */
int pp_oob_set_timeout(int fd, unsigned int timeout_ms);

/*
 * Set once SIGTERM or SIGINT arrived, after pp_oob_stop_on_signals(): the
 * program's loops end on it, and a wait of this exchange (accept, read)
 * returns -EINTR instead of waiting on.
 */
extern volatile sig_atomic_t pp_stop_requested;

/*
 * SIGTERM and SIGINT set pp_stop_requested, without SA_RESTART, so that a
 * blocked read or poll returns. 0 or -errno.
 */
int pp_oob_stop_on_signals(void);

#endif /* PP_OOB_H */
