/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * perftest's out-of-band exchange (doc/wire-format.md §11.2; PT:src/
 * perftest_communication.c): lockstep and fixed-size, the client writes
 * then reads, the server reads then writes; over TCP, or with -R each step
 * one SEND on the exchange QP (perf_cm.c), records in binary. We advertise version
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

/* One step out: len bytes on the stream, or one SEND of len bytes (-R). */
static int
perf_oob_put(struct perf_oob *oob, const void *out, size_t len)
{
	if (oob->cm != NULL)
		return perf_cm_send(oob->cm, out, len);
	return perf_io(oob->fd, (void *)(uintptr_t)out, len, true);
}

static int
perf_oob_get(struct perf_oob *oob, void *in, size_t len)
{
	if (oob->cm != NULL)
		return perf_cm_recv(oob->cm, in, len);
	return perf_io(oob->fd, in, len, false);
}

int
perf_oob_xchg(struct perf_oob *oob, const void *out, void *in, size_t len)
{
	int ret;

	if (oob->client) {
		ret = perf_oob_put(oob, out, len);
		return ret != 0 ? ret : perf_oob_get(oob, in, len);
	}
	ret = perf_oob_get(oob, in, len);
	return ret != 0 ? ret : perf_oob_put(oob, out, len);
}

/* The TCP connection; with -R nothing here (perf_cm_open() connects the exchange QP). */
int
perf_oob_open(const struct perf_opts *o, struct perf_oob *oob)
{
	int fd, lfd;

	*oob = (struct perf_oob){ .client = o->server != NULL, .fd = -1 };
	if (o->rdma_cm)
		return 0;
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
	oob->fd = fd;
	return 0;
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
perf_oob_hello(struct perf_oob *oob, uint32_t *ib_mtu)
{
	char ver[PERF_OOB_VERSION_LEN] = PERF_OOB_VERSION, peer[PERF_OOB_VERSION_LEN + 1] = { 0 };
	char mtu[PERF_MTU_MSG_LEN + 1] = { 0 }, pmtu[PERF_MTU_MSG_LEN + 1] = { 0 };
	int32_t v, pv;
	int ret, code;

	ret = perf_oob_xchg(oob, ver, peer, PERF_OOB_VERSION_LEN);
	if (ret != 0)
		return ret;
	if (strtod(peer, NULL) < PERF_OOB_VERSION_MIN) {
		fprintf(stderr, "roce_perf: peer version \"%s\" is older than %.2f\n", peer,
			PERF_OOB_VERSION_MIN);
		return -EPROTO;
	}
	v = (int32_t)htonl(PERF_CYCLE_BUFFER);
	ret = perf_oob_xchg(oob, &v, &pv, sizeof(v));
	v = (int32_t)htonl(PERF_CACHE_LINE);
	if (ret == 0)
		ret = perf_oob_xchg(oob, &v, &pv, sizeof(v));
	mtu[0] = (char)('0' + perf_mtu_code(*ib_mtu));
	if (ret == 0)
		ret = perf_oob_xchg(oob, mtu, pmtu, PERF_MTU_MSG_LEN);
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

/* perftest's struct pingpong_dest, big-endian, as rdma_write_keys() sends it (-R). */
void
perf_dest_encode(const struct perf_dest *d, uint8_t msg[PERF_DEST_BIN_LEN])
{
	const rte_be32_t w[] = {
		rte_cpu_to_be_32(d->lid), rte_cpu_to_be_32(d->out_reads), rte_cpu_to_be_32(d->qpn),
		rte_cpu_to_be_32(d->psn), rte_cpu_to_be_32(d->rkey), 0,
	};
	const rte_be64_t vaddr = rte_cpu_to_be_64(d->vaddr);
	const rte_be32_t tail[] = { rte_cpu_to_be_32(d->srqn), 0 };

	memcpy(msg, w, sizeof(w));
	memcpy(msg + sizeof(w), &vaddr, sizeof(vaddr));
	memcpy(msg + sizeof(w) + sizeof(vaddr), d->gid.raw, sizeof(d->gid.raw));
	memcpy(msg + PERF_DEST_BIN_LEN - sizeof(tail), tail, sizeof(tail));
}

/* rdma_read_keys(): every field but srqn and gid_index, which perftest does not read either. */
void
perf_dest_decode(const uint8_t msg[PERF_DEST_BIN_LEN], struct perf_dest *d)
{
	rte_be32_t w[6];
	rte_be64_t vaddr;

	memcpy(w, msg, sizeof(w));
	memcpy(&vaddr, msg + sizeof(w), sizeof(vaddr));
	*d = (struct perf_dest){
		.lid = rte_be_to_cpu_32(w[0]), .out_reads = rte_be_to_cpu_32(w[1]),
		.qpn = rte_be_to_cpu_32(w[2]), .psn = rte_be_to_cpu_32(w[3]),
		.rkey = rte_be_to_cpu_32(w[4]), .vaddr = rte_be_to_cpu_64(vaddr),
	};
	memcpy(d->gid.raw, msg + sizeof(w) + sizeof(vaddr), sizeof(d->gid.raw));
}

/*
 * What a sync carries: our first QP's record. perftest's ctx_hand_shake
 * stores every record it reads as the peer's first QP, also in the syncs
 * after the connection (write_bw.c: the "additional handshake" after RTR),
 * and then takes the remote address and key from it: a blank record there
 * made ib_write_bw write to address 0 with key 0.
 */
static struct perf_dest perf_oob_self;

/* One record each way: the ASCII one over TCP, the binary one over the exchange QP. */
static int
perf_oob_xchg_dest(struct perf_oob *oob, const struct perf_dest *local, struct perf_dest *remote)
{
	char out[PERF_DEST_MSG_LEN], in[PERF_DEST_MSG_LEN];
	int ret;

	if (oob->cm != NULL) {
		perf_dest_encode(local, (uint8_t *)out);
		ret = perf_oob_xchg(oob, out, in, PERF_DEST_BIN_LEN);
		if (ret == 0)
			perf_dest_decode((const uint8_t *)in, remote);
		return ret;
	}
	ret = perf_dest_format(local, out);
	if (ret == 0)
		ret = perf_oob_xchg(oob, out, in, PERF_DEST_MSG_LEN);
	if (ret == 0 && (ret = perf_dest_parse(in, remote)) != 0)
		fprintf(stderr, "roce_perf: bad key record from the peer\n");
	return ret;
}

int
perf_oob_xchg_dests(struct perf_oob *oob, const struct perf_dest *local, struct perf_dest *remote,
		    uint32_t n)
{
	uint32_t i;
	int ret;

	if (n > 0 && local != &perf_oob_self)
		perf_oob_self = local[0];

	for (i = 0; i < n; i++) {
		ret = perf_oob_xchg_dest(oob, &local[i], &remote[i]);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* One key-record exchange as a barrier (perftest's ctx_hand_shake). */
int
perf_oob_sync(struct perf_oob *oob)
{
	struct perf_dest peer;

	return perf_oob_xchg_dests(oob, &perf_oob_self, &peer, 1);
}

/* Has the peer said something (data on the socket, a SEND received)? 1, 0, or a negative errno. */
int
perf_oob_readable(struct perf_oob *oob)
{
	struct pollfd p = { .fd = oob->fd, .events = POLLIN };
	int n;

	if (oob->cm != NULL)
		return perf_cm_readable(oob->cm);
	n = poll(&p, 1, 0);
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
perf_oob_report(struct perf_oob *oob, struct perf_result *res)
{
	uint64_t out[5] = {
		rte_cpu_to_be_64(res->size), rte_cpu_to_be_64(res->msgs),
		perf_double_be(res->bw_peak_gbps * 1e3 / 8), perf_double_be(res->bw_gbps * 1e3 / 8),
		perf_double_be(res->msg_rate_mpps),
	};
	uint64_t in[5];
	int ret = 0, i;

	for (i = 0; i < 5 && ret == 0; i++)
		ret = perf_oob_xchg(oob, &out[i], &in[i], sizeof(in[i]));
	if (ret != 0 || oob->client)
		return ret;
	res->size = (uint32_t)rte_be_to_cpu_64(in[0]);
	res->msgs = rte_be_to_cpu_64(in[1]);
	res->bw_peak_gbps = perf_be_double(in[2]) * 8 / 1e3;
	res->bw_gbps = perf_be_double(in[3]) * 8 / 1e3;
	res->msg_rate_mpps = perf_be_double(in[4]);
	return 0;
}

/*
 * ctx_close_connection: one key record, then over TCP "done" (records
 * false: neither, as write_lat); with -R the record only, and the exchange
 * QP stays for perf_cm_close().
 */
void
perf_oob_close(struct perf_oob *oob, bool records)
{
	if (records && perf_oob_sync(oob) == 0 && oob->cm == NULL)
		pp_oob_send_done(oob->fd);
	if (oob->fd >= 0)
		close(oob->fd);
	oob->fd = -1;
}
