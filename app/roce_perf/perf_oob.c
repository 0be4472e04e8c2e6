/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * perftest's out-of-band exchange (doc/wire-format.md §11.2; PT:src/
 * perftest_communication.c): TCP, lockstep and fixed-size, the client
 * writes then reads, the server reads then writes. We advertise version
 * "6.06" (no negotiate struct), then cycle buffer and cache line (int32
 * BE), then the MTU as the ASCII enum and a NUL; then one 108-byte RoCE key
 * record per QP. Sockets come from examples/common (pp_oob_*).
 *
 * Checked against perftest 4.5-0.17 in the interop guest (tests/interop,
 * doc/interop.md); which syncs a test does is in perf_run.c
 * (perf_sync_before/after/close). The syncs between sizes of a sweep and
 * around --baseline are ours.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "perf.h"
#include "pp_oob.h"

#define PERF_OOB_TIMEOUT_MS 30000
#define PERF_CACHE_LINE 64
#define PERF_MTU_MSG_LEN 2

static int
perf_io(int fd, void *buf, size_t len, bool wr)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = wr ? write(fd, p, len) : read(fd, p, len);
		if (n <= 0)
			return n == 0 ? -EIO : -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
perf_oob_xchg(int fd, bool client, const void *out, void *in, size_t len)
{
	int ret;

	if (client) {
		ret = perf_io(fd, (void *)(uintptr_t)out, len, true);
		return ret != 0 ? ret : perf_io(fd, in, len, false);
	}
	ret = perf_io(fd, in, len, false);
	return ret != 0 ? ret : perf_io(fd, (void *)(uintptr_t)out, len, true);
}

int
perf_oob_open(const struct perf_opts *o)
{
	int fd, lfd;

	if (o->server != NULL) {
		fd = pp_oob_connect(o->server, o->tcp_port);
	} else {
		lfd = pp_oob_listen(o->tcp_port, NULL);
		fd = lfd < 0 ? lfd : pp_oob_accept(lfd);
	}
	if (fd < 0) {
		fprintf(stderr, "roce_perf: TCP %s port %u: %s\n", o->server ? o->server : "listen",
			o->tcp_port, strerror(-fd));
		return fd;
	}
	pp_oob_set_timeout(fd, PERF_OOB_TIMEOUT_MS);
	return fd;
}

static int
perf_mtu_code(uint32_t bytes)
{
	int code = 1;	/* IBV_MTU_256 */

	while (bytes > 256u << (code - 1))
		code++;
	return code;
}

/* Version, cycle buffer, cache line, MTU (the smaller one wins). */
int
perf_oob_hello(int fd, bool client, uint32_t *ib_mtu)
{
	char ver[PERF_OOB_VERSION_LEN] = PERF_OOB_VERSION, peer[PERF_OOB_VERSION_LEN + 1] = { 0 };
	char mtu[PERF_MTU_MSG_LEN + 1] = { 0 }, pmtu[PERF_MTU_MSG_LEN + 1] = { 0 };
	int32_t v, pv;
	int ret, code;

	ret = perf_oob_xchg(fd, client, ver, peer, PERF_OOB_VERSION_LEN);
	if (ret != 0)
		return ret;
	if (strtod(peer, NULL) < PERF_OOB_VERSION_MIN) {
		fprintf(stderr, "roce_perf: peer version \"%s\" is older than %.2f\n", peer,
			PERF_OOB_VERSION_MIN);
		return -EPROTO;
	}
	v = (int32_t)htonl(PERF_CYCLE_BUFFER);
	ret = perf_oob_xchg(fd, client, &v, &pv, sizeof(v));
	v = (int32_t)htonl(PERF_CACHE_LINE);
	if (ret == 0)
		ret = perf_oob_xchg(fd, client, &v, &pv, sizeof(v));
	mtu[0] = (char)('0' + perf_mtu_code(*ib_mtu));
	if (ret == 0)
		ret = perf_oob_xchg(fd, client, mtu, pmtu, PERF_MTU_MSG_LEN);
	if (ret != 0)
		return ret;
	code = atoi(pmtu);
	if (code < 1 || code > 5)
		return -EPROTO;
	*ib_mtu = RTE_MIN(*ib_mtu, 256u << (code - 1));
	return 0;
}

int
perf_dest_format(const struct perf_dest *d, char msg[PERF_DEST_MSG_LEN])
{
	int n, i;

	n = snprintf(msg, PERF_DEST_MSG_LEN, "%04x:%04x:%06x:%06x:%08x:%016" PRIx64 ":",
		     d->lid, d->out_reads, d->qpn, d->psn, d->rkey, d->vaddr);
	for (i = 0; i < 16 && n > 0 && n < PERF_DEST_MSG_LEN; i++)
		n += snprintf(msg + n, PERF_DEST_MSG_LEN - n, "%02x:", d->gid.raw[i]);
	if (n > 0 && n < PERF_DEST_MSG_LEN)
		n += snprintf(msg + n, PERF_DEST_MSG_LEN - n, "%08x:", d->srqn);
	return n == PERF_DEST_MSG_LEN - 1 ? 0 : -EINVAL;
}

/* A field of exactly width hex digits and its ':'; moves *p past them. 0 or -EINVAL. */
static int
perf_hex_field(const char **p, unsigned int width, uint64_t *v)
{
	unsigned int i;

	*v = 0;
	for (i = 0; i < width; i++) {
		if (!isxdigit((unsigned char)(*p)[i]))
			return -EINVAL;
		*v = *v << 4 | (uint64_t)(isdigit((unsigned char)(*p)[i]) ? (*p)[i] - '0' :
					  tolower((unsigned char)(*p)[i]) - 'a' + 10);
	}
	if ((*p)[width] != ':')
		return -EINVAL;
	*p += width + 1;
	return 0;
}

/* The reader parses fixed widths (doc/wire-format.md §11.2): so do we, strictly. */
int
perf_dest_parse(const char msg[PERF_DEST_MSG_LEN], struct perf_dest *d)
{
	static const unsigned int widths[] = { 4, 4, 6, 6, 8, 16 };
	uint64_t v[RTE_DIM(widths)], g;
	const char *p = msg;
	unsigned int i;

	if (msg[PERF_DEST_MSG_LEN - 1] != '\0')
		return -EINVAL;
	for (i = 0; i < RTE_DIM(widths); i++) {
		if (perf_hex_field(&p, widths[i], &v[i]) != 0)
			return -EINVAL;
	}
	for (i = 0; i < sizeof(d->gid.raw); i++) {
		if (perf_hex_field(&p, 2, &g) != 0)
			return -EINVAL;
		d->gid.raw[i] = (uint8_t)g;
	}
	if (perf_hex_field(&p, 8, &g) != 0)
		return -EINVAL;
	d->lid = (uint32_t)v[0];
	d->out_reads = (uint32_t)v[1];
	d->qpn = (uint32_t)v[2];
	d->psn = (uint32_t)v[3];
	d->rkey = (uint32_t)v[4];
	d->vaddr = v[5];
	d->srqn = (uint32_t)g;
	return 0;
}

/*
 * What a sync carries: our first QP's record. perftest's ctx_hand_shake
 * stores every record it reads as the peer's first QP, also in the syncs
 * after the connection (write_bw.c: the "additional handshake" after RTR),
 * and then takes the remote address and key from it: a blank record there
 * made ib_write_bw write to address 0 with key 0.
 */
static struct perf_dest perf_oob_self;

int
perf_oob_xchg_dests(int fd, bool client, const struct perf_dest *local, struct perf_dest *remote,
		    uint32_t n)
{
	char out[PERF_DEST_MSG_LEN], in[PERF_DEST_MSG_LEN];
	uint32_t i;
	int ret;

	if (n > 0 && local != &perf_oob_self)
		perf_oob_self = local[0];

	for (i = 0; i < n; i++) {
		ret = perf_dest_format(&local[i], out);
		if (ret == 0)
			ret = perf_oob_xchg(fd, client, out, in, PERF_DEST_MSG_LEN);
		if (ret == 0 && (ret = perf_dest_parse(in, &remote[i])) != 0)
			fprintf(stderr, "roce_perf: bad key record from the peer\n");
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* One key-record exchange as a barrier (perftest's ctx_hand_shake). */
int
perf_oob_sync(int fd, bool client)
{
	struct perf_dest peer;

	return perf_oob_xchg_dests(fd, client, &perf_oob_self, &peer, 1);
}

/* Data waiting on the socket? 1, 0, or a negative errno. */
int
perf_oob_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, 0);

	return n < 0 ? -errno : n;
}

static uint64_t
perf_double_be(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return rte_cpu_to_be_64(u);
}

static double
perf_be_double(uint64_t u)
{
	double v;

	u = rte_be_to_cpu_64(u);
	memcpy(&v, &u, sizeof(v));
	return v;
}

/* The BW report: size, iters, peak, average, message rate (perftest's order). */
int
perf_oob_report(int fd, bool client, struct perf_result *res)
{
	uint64_t out[5] = {
		rte_cpu_to_be_64(res->size), rte_cpu_to_be_64(res->msgs),
		perf_double_be(res->bw_peak_gbps * 1e3 / 8), perf_double_be(res->bw_gbps * 1e3 / 8),
		perf_double_be(res->msg_rate_mpps),
	};
	uint64_t in[5];
	int ret = 0, i;

	for (i = 0; i < 5 && ret == 0; i++)
		ret = perf_oob_xchg(fd, client, &out[i], &in[i], sizeof(in[i]));
	if (ret != 0 || client)
		return ret;
	res->size = (uint32_t)rte_be_to_cpu_64(in[0]);
	res->msgs = rte_be_to_cpu_64(in[1]);
	res->bw_peak_gbps = perf_be_double(in[2]) * 8 / 1e3;
	res->bw_gbps = perf_be_double(in[3]) * 8 / 1e3;
	res->msg_rate_mpps = perf_be_double(in[4]);
	return 0;
}

/* ctx_close_connection: one key record, then "done" (records false: neither, as write_lat). */
void
perf_oob_close(int fd, bool client, bool records)
{
	if (records && perf_oob_sync(fd, client) == 0)
		pp_oob_send_done(fd);
	close(fd);
}
