/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The pingpong tools' TCP exchange (doc/wire-format.md §11.1). The byte layout is
 * the tools'; the code is ours: reads and writes loop until the whole record
 * moved (the tools make one call and trust TCP not to split 52 bytes), and a
 * malformed record is rejected instead of half-parsed by sscanf().
 */

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "pp_oob.h"

#define PP_LID_DIGITS 4
#define PP_QPN_DIGITS 6
#define PP_PSN_DIGITS 6
#define PP_LID_MAX 0xffffu
#define PP_24BIT_MAX 0xffffffu
#define PP_SEP ':'
#define PP_PORT_STRLEN 8	/* "65535" and a NUL */
#define PP_MS_PER_S 1000
#define PP_US_PER_MS 1000
#define PP_NS_PER_MS 1000000
#define PP_HEX_BASE 16

static const char pp_hex[] = "0123456789abcdef";

static int
pp_hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Exactly n hex digits at s into *val; 0 or -EINVAL. */
static int
pp_hex_field(const char *s, unsigned int n, uint32_t *val)
{
	unsigned int i;
	int d;

	*val = 0;
	for (i = 0; i < n; i++) {
		d = pp_hex_val(s[i]);
		if (d < 0)
			return -EINVAL;
		*val = *val * PP_HEX_BASE + d;
	}
	return 0;
}

void
pp_gid_to_wire(const union ibv_gid *gid, char wire[PP_WIRE_GID_LEN + 1])
{
	unsigned int i;

	/* RC:pingpong.c gid_to_wire_gid: four big-endian words = the bytes in order. */
	for (i = 0; i < sizeof(gid->raw); i++) {
		wire[2 * i] = pp_hex[gid->raw[i] >> 4];
		wire[2 * i + 1] = pp_hex[gid->raw[i] & 0xf];
	}
	wire[PP_WIRE_GID_LEN] = '\0';
}

int
pp_gid_from_wire(const char *wire, union ibv_gid *gid)
{
	unsigned int i;
	int hi, lo;

	for (i = 0; i < sizeof(gid->raw); i++) {
		hi = pp_hex_val(wire[2 * i]);
		lo = hi < 0 ? -1 : pp_hex_val(wire[2 * i + 1]);
		if (lo < 0)
			return -EINVAL;
		gid->raw[i] = hi << 4 | lo;
	}
	return 0;
}

int
pp_dest_format(const struct pp_dest *dest, char msg[PP_DEST_MSG_LEN])
{
	char gid[PP_WIRE_GID_LEN + 1];

	if (dest->lid > PP_LID_MAX || dest->qpn > PP_24BIT_MAX || dest->psn > PP_24BIT_MAX)
		return -EINVAL;
	pp_gid_to_wire(&dest->gid, gid);
	snprintf(msg, PP_DEST_MSG_LEN, "%04x:%06x:%06x:%s", dest->lid, dest->qpn, dest->psn, gid);
	return 0;
}

int
pp_dest_parse(const char msg[PP_DEST_MSG_LEN], struct pp_dest *dest)
{
	const char *s = msg;

	if (pp_hex_field(s, PP_LID_DIGITS, &dest->lid) != 0 || s[PP_LID_DIGITS] != PP_SEP)
		return -EINVAL;
	s += PP_LID_DIGITS + 1;
	if (pp_hex_field(s, PP_QPN_DIGITS, &dest->qpn) != 0 || s[PP_QPN_DIGITS] != PP_SEP)
		return -EINVAL;
	s += PP_QPN_DIGITS + 1;
	if (pp_hex_field(s, PP_PSN_DIGITS, &dest->psn) != 0 || s[PP_PSN_DIGITS] != PP_SEP)
		return -EINVAL;
	s += PP_PSN_DIGITS + 1;
	if (pp_gid_from_wire(s, &dest->gid) != 0 || s[PP_WIRE_GID_LEN] != '\0')
		return -EINVAL;
	return 0;
}

/* getaddrinfo() for a TCP port; host NULL = passive (every local address). */
static int
pp_resolve(const char *host, uint16_t port, struct addrinfo **res)
{
	struct addrinfo hints = {
		.ai_flags = host == NULL ? AI_PASSIVE : 0,
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	char service[PP_PORT_STRLEN];
	int ret;

	snprintf(service, sizeof(service), "%u", port);
	ret = getaddrinfo(host, service, &hints, res);
	if (ret == 0)
		return 0;
	return ret == EAI_SYSTEM ? -errno : -EHOSTUNREACH;
}

static int
pp_bound_port(int fd, uint16_t *bound)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return -errno;
	if (ss.ss_family == AF_INET)
		*bound = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	else
		*bound = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

int
pp_oob_listen(uint16_t port, uint16_t *bound)
{
	struct addrinfo *res, *t;
	int fd = -1, one = 1, ret;

	ret = pp_resolve(NULL, port, &res);
	if (ret != 0)
		return ret;
	ret = -EADDRNOTAVAIL;
	for (t = res; t != NULL && fd < 0; t = t->ai_next) {
		fd = socket(t->ai_family, t->ai_socktype, t->ai_protocol);
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, t->ai_addr, t->ai_addrlen) != 0 || listen(fd, 1) != 0) {
			ret = -errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		return ret;
	if (bound != NULL) {
		ret = pp_bound_port(fd, bound);
		if (ret != 0) {
			close(fd);
			return ret;
		}
	}
	return fd;
}

/* How often a waiting exchange lets the stack make progress. */
#define PP_OOB_PROGRESS_MS 1
#define PP_OOB_STOP_CHECK_MS 100	/* a stop is seen this long after at most */

static void (*pp_progress_fn)(void *arg);
volatile sig_atomic_t pp_stop_requested;
static bool pp_stop_handled;	/* pp_oob_stop_on_signals() was called */
static void *pp_progress_arg;

void
pp_oob_set_progress(void (*progress)(void *arg), void *arg)
{
	pp_progress_fn = progress;
	pp_progress_arg = arg;
}

static uint64_t
pp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * PP_MS_PER_S + (uint64_t)ts.tv_nsec / PP_NS_PER_MS;
}

/* The socket's receive timeout in milliseconds, 0 when it has none. */
static uint64_t
pp_rcv_timeout_ms(int fd)
{
	struct timeval tv;
	socklen_t len = sizeof(tv);

	if (getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) != 0)
		return 0;
	return (uint64_t)tv.tv_sec * PP_MS_PER_S + (uint64_t)tv.tv_usec / PP_US_PER_MS;
}

/*
 * Wait until fd is readable (or, listening, has a connection), letting the
 * stack make progress meanwhile. The peer may need us while we wait: a
 * kernel rxe server resolves our address by ARP or ND inside its modify to
 * RTR, between our record and its reply, and only our poll loop answers.
 * Bounded by the socket's receive timeout, if any. 0, -EAGAIN or -errno.
 */
static int
pp_wait_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t limit = pp_rcv_timeout_ms(fd), start = pp_now_ms();
	int n;

	for (;;) {
		/* in slices while a stop may come: the signal may land in another thread */
		n = poll(&pfd, 1, pp_progress_fn != NULL ? PP_OOB_PROGRESS_MS :
			 pp_stop_handled ? PP_OOB_STOP_CHECK_MS : limit != 0 ? (int)limit : -1);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
		if (pp_stop_requested)
			return -EINTR;
		if (pp_progress_fn != NULL)
			pp_progress_fn(pp_progress_arg);
		if (limit != 0 && pp_now_ms() - start >= limit)
			return -EAGAIN;
	}
}


static void
pp_stop_handler(int sig __attribute__((unused)))
{
	pp_stop_requested = 1;
}

int
pp_oob_stop_on_signals(void)
{
	struct sigaction sa = { .sa_handler = pp_stop_handler };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0)
		return -errno;
	pp_stop_handled = true;
	return 0;
}

int
pp_oob_accept(int listen_fd)
{
	int fd;

	fd = pp_wait_readable(listen_fd);
	if (fd != 0) {
		close(listen_fd);
		return fd;
	}
	do {
		fd = accept(listen_fd, NULL, NULL);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
		fd = -errno;
	close(listen_fd);
	return fd;
}

int
pp_oob_connect(const char *host, uint16_t port)
{
	struct addrinfo *res, *t;
	int fd = -1, ret;

	ret = pp_resolve(host, port, &res);
	if (ret != 0)
		return ret;
	ret = -EHOSTUNREACH;
	for (t = res; t != NULL && fd < 0; t = t->ai_next) {
		fd = socket(t->ai_family, t->ai_socktype, t->ai_protocol);
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		if (connect(fd, t->ai_addr, t->ai_addrlen) != 0) {
			ret = -errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd >= 0 ? fd : ret;
}

int
pp_oob_set_timeout(int fd, unsigned int timeout_ms)
{
	struct timeval tv = {
		.tv_sec = timeout_ms / PP_MS_PER_S,
		.tv_usec = (timeout_ms % PP_MS_PER_S) * PP_US_PER_MS,
	};

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0)
		return -errno;
	return 0;
}

/* Move exactly len bytes; a timeout shows as -EAGAIN, a closed peer as -EIO. */
static int
pp_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

static int
pp_read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = pp_wait_readable(fd);
		if (n != 0)
			return n;
		n = recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

int
pp_oob_send_dest(int fd, const struct pp_dest *dest)
{
	char msg[PP_DEST_MSG_LEN];
	int ret;

	ret = pp_dest_format(dest, msg);
	if (ret != 0)
		return ret;
	return pp_write_all(fd, msg, sizeof(msg));
}

void
pp_dest_print(const char *which, const struct pp_dest *dest)
{
	char gid[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, dest->gid.raw, gid, sizeof(gid));
	printf("  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n", which, dest->lid, dest->qpn,
	       dest->psn, gid);
	fflush(stdout);
}

int
pp_oob_recv_dest(int fd, struct pp_dest *dest)
{
	char msg[PP_DEST_MSG_LEN];
	int ret;

	ret = pp_read_all(fd, msg, sizeof(msg));
	if (ret != 0)
		return ret;
	return pp_dest_parse(msg, dest);
}

int
pp_oob_send_done(int fd)
{
	return pp_write_all(fd, PP_DONE_MSG, PP_DONE_MSG_LEN);
}

int
pp_oob_recv_done(int fd)
{
	char msg[PP_DONE_MSG_LEN];
	int ret;

	ret = pp_read_all(fd, msg, sizeof(msg));
	if (ret != 0)
		return ret;
	return memcmp(msg, PP_DONE_MSG, PP_DONE_MSG_LEN) == 0 ? 0 : -EINVAL;
}
