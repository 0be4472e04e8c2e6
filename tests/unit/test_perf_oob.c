/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * roce_perf's perftest exchange (app/roce_perf/perf_oob.c,
 * doc/wire-format.md §11.2): the 108-byte RoCE key record byte for byte,
 * its strict parser, the 56-byte binary record of -R, and the lockstep
 * steps between a client and a server over a socketpair (the server runs
 * in a thread): a stream for TCP, and for -R a SOCK_SEQPACKET pair standing
 * in for the exchange QP (perf_cm_send/recv below: one SEND, one message).
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_common.h>

#include "perf.h"

#include "roce_test.h"

/* doc/wire-format.md §11.2's example record: lid 0, out_reads 1, QPN 0x11, ... 192.168.1.10 */
static const char example[PERF_DEST_MSG_LEN] =
	"0000:0001:000011:abcdef:00001234:00007f0000001000:"
	"00:00:00:00:00:00:00:00:00:00:ff:ff:c0:a8:01:0a:00000000:";

static struct perf_dest
example_dest(void)
{
	struct perf_dest d = { .out_reads = 1, .qpn = 0x11, .psn = 0xabcdef, .rkey = 0x1234,
			       .vaddr = 0x7f0000001000ull };

	d.gid.raw[10] = 0xff;
	d.gid.raw[11] = 0xff;
	d.gid.raw[12] = 192;
	d.gid.raw[13] = 168;
	d.gid.raw[14] = 1;
	d.gid.raw[15] = 10;
	return d;
}

static int
test_format(void)
{
	struct perf_dest d = example_dest();
	char msg[PERF_DEST_MSG_LEN];

	ROCE_TEST_ASSERT_EQ(perf_dest_format(&d, msg), 0, "format");
	ROCE_TEST_ASSERT(memcmp(msg, example, PERF_DEST_MSG_LEN) == 0, "bytes: %s", msg);
	d.qpn = 1u << 24;	/* a field too wide for its 6 digits */
	ROCE_TEST_ASSERT_EQ(perf_dest_format(&d, msg), -EINVAL, "QPN too wide");
	return 0;
}

/* perftest's struct pingpong_dest with HAVE_ENDIAN, as rdma_write_keys() sends it */
static int
test_binary(void)
{
	static const uint8_t want[PERF_DEST_BIN_LEN] = {
		0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x11, 0, 0xab, 0xcd, 0xef,	/* lid, out_reads, qpn, psn */
		0, 0, 0x12, 0x34, 0, 0, 0, 0,					/* rkey, padding */
		0, 0, 0x7f, 0, 0, 0, 0x10, 0,					/* vaddr */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 10,	/* gid */
		0, 0, 0, 0, 0, 0, 0, 0,						/* srqn, gid_index */
	};
	struct perf_dest d = example_dest(), back;
	uint8_t msg[PERF_DEST_BIN_LEN];

	perf_dest_encode(&d, msg);
	ROCE_TEST_ASSERT(memcmp(msg, want, sizeof(msg)) == 0, "bytes");
	perf_dest_decode(msg, &back);
	ROCE_TEST_ASSERT(back.lid == d.lid && back.out_reads == d.out_reads && back.qpn == d.qpn &&
			 back.psn == d.psn && back.rkey == d.rkey && back.vaddr == d.vaddr &&
			 memcmp(back.gid.raw, d.gid.raw, sizeof(d.gid.raw)) == 0,
			 "decoded as encoded");
	return 0;
}

/*
 * The exchange QP of -R, stood in for by a SOCK_SEQPACKET socket (its fd
 * cast into the pointer): one message per SEND, the receiver checks the
 * length as perf_cm_recv() does.
 */
int
perf_cm_send(struct perf_cm *cm, const void *buf, size_t len)
{
	return send((int)(intptr_t)cm, buf, len, 0) == (ssize_t)len ? 0 : -EIO;
}

int
perf_cm_recv(struct perf_cm *cm, void *buf, size_t len)
{
	uint8_t msg[PERF_CM_MSG_MAX];
	ssize_t n = recv((int)(intptr_t)cm, msg, sizeof(msg), 0);

	if (n != (ssize_t)len)
		return n <= 0 ? -EIO : -EPROTO;
	memcpy(buf, msg, len);
	return 0;
}

int
perf_cm_readable(struct perf_cm *cm)
{
	RTE_SET_USED(cm);
	return 0;
}

static struct perf_oob
oob_of(int fd, bool client, bool rdma_cm)
{
	return (struct perf_oob){ .client = client, .fd = rdma_cm ? -1 : fd,
				  .cm = rdma_cm ? (struct perf_cm *)(intptr_t)fd : NULL };
}

static int
test_parse(void)
{
	struct perf_dest want = example_dest(), d;
	char msg[PERF_DEST_MSG_LEN];

	ROCE_TEST_ASSERT_EQ(perf_dest_parse(example, &d), 0, "parse");
	ROCE_TEST_ASSERT(d.qpn == want.qpn && d.psn == want.psn && d.rkey == want.rkey &&
			 d.vaddr == want.vaddr && d.out_reads == want.out_reads &&
			 memcmp(d.gid.raw, want.gid.raw, sizeof(d.gid.raw)) == 0, "fields");
	memcpy(msg, example, sizeof(msg));
	msg[PERF_DEST_MSG_LEN - 1] = ':';
	ROCE_TEST_ASSERT_EQ(perf_dest_parse(msg, &d), -EINVAL, "no NUL");
	memcpy(msg, example, sizeof(msg));
	msg[17] = 'x';	/* a PSN digit */
	ROCE_TEST_ASSERT_EQ(perf_dest_parse(msg, &d), -EINVAL, "not hex");
	memcpy(msg, example, sizeof(msg));
	msg[4] = '-';
	ROCE_TEST_ASSERT_EQ(perf_dest_parse(msg, &d), -EINVAL, "separator");
	memcpy(msg, example, sizeof(msg));
	msg[60] = 'g';	/* a GID byte */
	ROCE_TEST_ASSERT_EQ(perf_dest_parse(msg, &d), -EINVAL, "GID not hex");
	return 0;
}

/* The server side of a session, run in a thread. */
struct server {
	int fd;
	bool rdma_cm;
	uint32_t ib_mtu;
	const char *version;	/* NULL: the real hello */
	struct perf_dest remote;
	struct perf_result report;
	int ret;
};

static void *
server_run(void *arg)
{
	struct server *s = arg;
	struct perf_dest local = example_dest();
	char ver[PERF_OOB_VERSION_LEN] = { 0 }, peer[PERF_OOB_VERSION_LEN];
	struct perf_oob oob = oob_of(s->fd, false, s->rdma_cm);

	if (s->version != NULL) {
		snprintf(ver, sizeof(ver), "%s", s->version);
		s->ret = perf_oob_xchg(&oob, ver, peer, sizeof(ver));
		return NULL;
	}
	s->ret = perf_oob_hello(&oob, &s->ib_mtu);
	if (s->ret == 0)
		s->ret = perf_oob_xchg_dests(&oob, &local, &s->remote, 1);
	if (s->ret == 0)
		s->ret = perf_oob_report(&oob, &s->report);
	return NULL;
}

static int
session(struct server *srv, int *client_fd, pthread_t *th)
{
	int sv[2];

	ROCE_TEST_ASSERT_EQ(socketpair(AF_UNIX, srv->rdma_cm ? SOCK_SEQPACKET : SOCK_STREAM, 0, sv),
			    0, "socketpair");
	srv->fd = sv[1];
	*client_fd = sv[0];
	ROCE_TEST_ASSERT_EQ(pthread_create(th, NULL, server_run, srv), 0, "thread");
	return 0;
}

static int
session_both(bool rdma_cm)
{
	struct server srv = { .ib_mtu = 1024, .rdma_cm = rdma_cm };
	struct perf_oob oob;
	struct perf_dest mine = example_dest(), theirs;
	struct perf_result res = { .size = 65536, .msgs = 5000, .bw_gbps = 12.5,
				   .bw_peak_gbps = 13.0, .msg_rate_mpps = 0.0238 };
	uint32_t mtu = 4096;
	pthread_t th;
	int fd, ret;

	mine.qpn = 0x22;
	if (session(&srv, &fd, &th) != 0)
		return -1;
	oob = oob_of(fd, true, rdma_cm);
	ret = perf_oob_hello(&oob, &mtu);
	if (ret == 0)
		ret = perf_oob_xchg_dests(&oob, &mine, &theirs, 1);
	if (ret == 0)
		ret = perf_oob_report(&oob, &res);
	pthread_join(th, NULL);
	close(fd);
	close(srv.fd);
	ROCE_TEST_ASSERT(ret == 0 && srv.ret == 0, "client %d, server %d", ret, srv.ret);
	ROCE_TEST_ASSERT(mtu == 1024 && srv.ib_mtu == 1024, "both keep the smaller MTU");
	ROCE_TEST_ASSERT(theirs.qpn == 0x11 && srv.remote.qpn == 0x22, "records crossed");
	ROCE_TEST_ASSERT(srv.report.size == 65536 && srv.report.msgs == 5000 &&
			 srv.report.bw_gbps > 12.49 && srv.report.bw_gbps < 12.51 &&
			 srv.report.msg_rate_mpps == 0.0238, "the server reads the client's report");
	return 0;
}

static int
test_session(void)
{
	return session_both(false);
}

/* -R: the same steps, one message each, the records in binary */
static int
test_session_rdma_cm(void)
{
	return session_both(true);
}

static int
test_old_peer(void)
{
	struct server srv = { .version = "5.60" };
	struct perf_oob oob;
	uint32_t mtu = 1024;
	pthread_t th;
	int fd, ret;

	if (session(&srv, &fd, &th) != 0)
		return -1;
	oob = oob_of(fd, true, false);
	ret = perf_oob_hello(&oob, &mtu);
	pthread_join(th, NULL);
	close(fd);
	close(srv.fd);
	ROCE_TEST_ASSERT_EQ(ret, -EPROTO, "a peer older than 5.70 is refused");
	return 0;
}

static int
test_closed_peer(void)
{
	struct perf_dest d = example_dest(), peer;
	struct perf_oob oob;
	int sv[2];

	ROCE_TEST_ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0, "socketpair");
	close(sv[1]);
	oob = oob_of(sv[0], false, false);
	ROCE_TEST_ASSERT(perf_oob_xchg_dests(&oob, &d, &peer, 1) == -EIO,
			 "a closed peer is -EIO");
	close(sv[0]);
	return 0;
}

/* -R: a step of another size than the exchange's is refused, not misread */
static int
test_wrong_size(void)
{
	struct perf_dest d = example_dest(), peer;
	uint8_t report[8] = { 0 };
	struct perf_oob oob;
	int sv[2];

	ROCE_TEST_ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0, "socketpair");
	ROCE_TEST_ASSERT_EQ(send(sv[1], report, sizeof(report), 0), (ssize_t)sizeof(report),
			    "send");
	oob = oob_of(sv[0], false, true);
	ROCE_TEST_ASSERT_EQ(perf_oob_xchg_dests(&oob, &d, &peer, 1), -EPROTO,
			    "8 bytes where a record was due");
	close(sv[1]);
	close(sv[0]);
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "key_record_bytes", test_format },
	{ "key_record_parse", test_parse },
	{ "key_record_binary", test_binary },
	{ "session_hello_records_report", test_session },
	{ "session_rdma_cm", test_session_rdma_cm },
	{ "rdma_cm_wrong_size", test_wrong_size },
	{ "old_peer_refused", test_old_peer },
	{ "closed_peer", test_closed_peer },
};

int
main(void)
{
	return roce_test_run(cases, RTE_DIM(cases));
}
