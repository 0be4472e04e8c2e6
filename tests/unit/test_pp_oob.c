/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The pingpong tools' TCP exchange (examples/common/pp_oob.c) against
 * doc/wire-format.md §11.1, byte for byte: the record text, the GID encoding, the
 * order of the steps, and the failures (malformed records, a peer that
 * closes early or never answers, nobody listening). Over loopback TCP on a
 * port the kernel picks; the other side is either our own code in a second
 * thread or raw socket calls here, so the bytes are seen as they travel.
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <rte_common.h>

#include "../../examples/common/pp_oob.h"
#include "roce_test.h"

#define LOOPBACK "127.0.0.1"
#define SHORT_TIMEOUT_MS 200
#define TEST_TIMEOUT_MS 5000
#define SPLIT_PAUSE_US 20000

/* doc/wire-format.md §11.1's example record, with its NUL: 52 bytes. */
static const char example_msg[PP_DEST_MSG_LEN] =
	"0000:000011:abcdef:00000000000000000000ffffc0a8010a";

static void
example_dest(struct pp_dest *d)
{
	memset(d, 0, sizeof(*d));
	d->qpn = 0x11;
	d->psn = 0xabcdef;
	d->gid.raw[10] = 0xff;
	d->gid.raw[11] = 0xff;
	inet_pton(AF_INET, "192.168.1.10", &d->gid.raw[12]);
}

static bool
dest_equal(const struct pp_dest *a, const struct pp_dest *b)
{
	return a->lid == b->lid && a->qpn == b->qpn && a->psn == b->psn &&
	       memcmp(a->gid.raw, b->gid.raw, sizeof(a->gid.raw)) == 0;
}

/* ---- the record ---- */

static int
test_format_is_byte_exact(void)
{
	char msg[PP_DEST_MSG_LEN];
	struct pp_dest d;

	ROCE_TEST_ASSERT_EQ(sizeof(example_msg), 52, "the tools' record is 52 bytes");
	example_dest(&d);
	memset(msg, 'X', sizeof(msg));
	ROCE_TEST_ASSERT_EQ(pp_dest_format(&d, msg), 0, "format");
	ROCE_TEST_ASSERT(memcmp(msg, example_msg, sizeof(msg)) == 0, "got '%.*s'",
			 PP_DEST_MSG_LEN, msg);
	d.lid = 0xffff;
	d.qpn = 0xffffff;
	d.psn = 0;
	memset(d.gid.raw, 0xab, sizeof(d.gid.raw));
	ROCE_TEST_ASSERT_EQ(pp_dest_format(&d, msg), 0, "format of the largest fields");
	ROCE_TEST_ASSERT(memcmp(msg, "ffff:ffffff:000000:abababababababababababababababab",
				PP_DEST_MSG_LEN) == 0, "got '%.*s'", PP_DEST_MSG_LEN, msg);
	return 0;
}

static int
test_format_rejects_wide_fields(void)
{
	char msg[PP_DEST_MSG_LEN];
	struct pp_dest d;

	example_dest(&d);
	d.lid = 0x10000;
	ROCE_TEST_ASSERT_EQ(pp_dest_format(&d, msg), -EINVAL, "17-bit LID");
	example_dest(&d);
	d.qpn = 0x1000000;
	ROCE_TEST_ASSERT_EQ(pp_dest_format(&d, msg), -EINVAL, "25-bit QPN");
	example_dest(&d);
	d.psn = 0x1000000;
	ROCE_TEST_ASSERT_EQ(pp_dest_format(&d, msg), -EINVAL, "25-bit PSN");
	return 0;
}

static int
test_gid_wire_text(void)
{
	char wire[PP_WIRE_GID_LEN + 1];
	union ibv_gid gid, back;
	unsigned int i;

	for (i = 0; i < sizeof(gid.raw); i++)
		gid.raw[i] = i * 17;
	pp_gid_to_wire(&gid, wire);
	ROCE_TEST_ASSERT(strcmp(wire, "00112233445566778899aabbccddeeff") == 0, "wire order: %s",
			 wire);
	ROCE_TEST_ASSERT_EQ(pp_gid_from_wire(wire, &back), 0, "parse back");
	ROCE_TEST_ASSERT(memcmp(gid.raw, back.raw, sizeof(gid.raw)) == 0, "round trip");
	ROCE_TEST_ASSERT_EQ(pp_gid_from_wire("00112233445566778899AABBCCDDEEFF", &back), 0,
			    "upper case");
	ROCE_TEST_ASSERT(memcmp(gid.raw, back.raw, sizeof(gid.raw)) == 0, "upper case value");
	ROCE_TEST_ASSERT_EQ(pp_gid_from_wire("00112233445566778899aabbccddeefg", &back), -EINVAL,
			    "non-hex digit");
	ROCE_TEST_ASSERT_EQ(pp_gid_from_wire("0011", &back), -EINVAL, "short");
	return 0;
}

static int
test_parse_accepts_the_tools_record(void)
{
	struct pp_dest d, want;

	example_dest(&want);
	ROCE_TEST_ASSERT_EQ(pp_dest_parse(example_msg, &d), 0, "parse");
	ROCE_TEST_ASSERT(dest_equal(&d, &want), "fields");
	return 0;
}

static int
test_parse_rejects_malformed(void)
{
	static const struct {
		unsigned int off;
		char c;
		const char *what;
	} flips[] = {
		{ 0, 'g', "LID digit" }, { 4, '-', "first ':'" }, { 5, ' ', "QPN digit" },
		{ 11, '0', "second ':'" }, { 17, 'x', "PSN digit" }, { 18, ';', "third ':'" },
		{ 19, ':', "GID digit" }, { 50, '\0', "short GID" }, { 51, 'a', "no NUL" },
	};
	char msg[PP_DEST_MSG_LEN];
	struct pp_dest d;
	unsigned int i;

	for (i = 0; i < RTE_DIM(flips); i++) {
		memcpy(msg, example_msg, sizeof(msg));
		msg[flips[i].off] = flips[i].c;
		ROCE_TEST_ASSERT_EQ(pp_dest_parse(msg, &d), -EINVAL, "%s", flips[i].what);
	}
	return 0;
}

/* ---- the exchange ---- */

struct side {
	int listen_fd;
	uint16_t port;
	struct pp_dest mine, rem;
	int ret;
	bool connected_before_reply;	/* server: QP "connected" before it answered */
	bool reply_sent;
};

/* Our server, as rc_pingpong runs it: read, connect the QP, answer, read "done". */
static void *
server_thread(void *arg)
{
	struct side *s = arg;
	int fd = pp_oob_accept(s->listen_fd);

	s->ret = fd < 0 ? fd : pp_oob_set_timeout(fd, TEST_TIMEOUT_MS);
	if (s->ret == 0)
		s->ret = pp_oob_recv_dest(fd, &s->rem);
	if (s->ret == 0) {
		s->connected_before_reply = !s->reply_sent;	/* stands for RTR/RTS */
		s->ret = pp_oob_send_dest(fd, &s->mine);
		s->reply_sent = s->ret == 0;
	}
	if (s->ret == 0)
		s->ret = pp_oob_recv_done(fd);
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Our client: connect, send, read, "done". */
static void *
client_thread(void *arg)
{
	struct side *s = arg;
	int fd = pp_oob_connect(LOOPBACK, s->port);

	s->ret = fd < 0 ? fd : pp_oob_set_timeout(fd, TEST_TIMEOUT_MS);
	if (s->ret == 0)
		s->ret = pp_oob_send_dest(fd, &s->mine);
	if (s->ret == 0)
		s->ret = pp_oob_recv_dest(fd, &s->rem);
	if (s->ret == 0)
		s->ret = pp_oob_send_done(fd);
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int
start_server(struct side *s, pthread_t *tid)
{
	s->listen_fd = pp_oob_listen(0, &s->port);
	ROCE_TEST_ASSERT(s->listen_fd >= 0, "listen: %s", strerror(-s->listen_fd));
	ROCE_TEST_ASSERT(s->port != 0, "a port was bound");
	ROCE_TEST_ASSERT_EQ(pthread_create(tid, NULL, server_thread, s), 0, "server thread");
	return 0;
}

/* A raw TCP connection to our server, bounded in time. */
static int
raw_connect(uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, LOOPBACK, &sin.sin_addr);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    pp_oob_set_timeout(fd, TEST_TIMEOUT_MS) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Read exactly len bytes (the test's own loop, independent of pp_oob.c). */
static int
raw_read(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = recv(fd, (char *)buf + got, len - got, 0);
		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

static int
test_exchange_between_threads(void)
{
	struct side srv = { 0 }, cli = { 0 };
	pthread_t ts, tc;

	example_dest(&srv.mine);
	example_dest(&cli.mine);
	cli.mine.qpn = 0x12;
	cli.mine.psn = 0x000001;
	cli.mine.gid.raw[15] = 0x0b;
	ROCE_TEST_ASSERT_EQ(start_server(&srv, &ts), 0, "server");
	cli.port = srv.port;
	ROCE_TEST_ASSERT_EQ(pthread_create(&tc, NULL, client_thread, &cli), 0, "client thread");
	pthread_join(tc, NULL);
	pthread_join(ts, NULL);
	ROCE_TEST_ASSERT_EQ(srv.ret, 0, "server: %s", strerror(-srv.ret));
	ROCE_TEST_ASSERT_EQ(cli.ret, 0, "client: %s", strerror(-cli.ret));
	ROCE_TEST_ASSERT(dest_equal(&srv.rem, &cli.mine), "server got the client's address");
	ROCE_TEST_ASSERT(dest_equal(&cli.rem, &srv.mine), "client got the server's address");
	ROCE_TEST_ASSERT(srv.connected_before_reply, "server connects before replying");
	return 0;
}

/* Our server against the bytes a tool's client sends, split as TCP may split them. */
static int
test_server_bytes_on_the_wire(void)
{
	char reply[PP_DEST_MSG_LEN], extra;
	struct side srv = { 0 };
	struct pp_dest want;
	pthread_t ts;
	int fd;

	example_dest(&srv.mine);
	srv.mine.qpn = 0x000022;
	srv.mine.psn = 0x123456;
	ROCE_TEST_ASSERT_EQ(start_server(&srv, &ts), 0, "server");
	fd = raw_connect(srv.port);
	ROCE_TEST_ASSERT(fd >= 0, "connect");
	/* In three pieces: a record must be read whole, however it arrives. */
	ROCE_TEST_ASSERT_EQ(write(fd, example_msg, 10), 10, "piece 1");
	usleep(SPLIT_PAUSE_US);
	ROCE_TEST_ASSERT_EQ(write(fd, example_msg + 10, 30), 30, "piece 2");
	usleep(SPLIT_PAUSE_US);
	ROCE_TEST_ASSERT_EQ(write(fd, example_msg + 40, 12), 12, "piece 3");
	ROCE_TEST_ASSERT_EQ(raw_read(fd, reply, sizeof(reply)), 0, "52-byte reply");
	ROCE_TEST_ASSERT(memcmp(reply, "0000:000022:123456:00000000000000000000ffffc0a8010a",
				PP_DEST_MSG_LEN) == 0, "reply '%.*s'", PP_DEST_MSG_LEN, reply);
	ROCE_TEST_ASSERT_EQ(write(fd, "done", 5), 5, "done and its NUL");
	ROCE_TEST_ASSERT_EQ(recv(fd, &extra, 1, 0), 0, "server closes after done, nothing more");
	close(fd);
	pthread_join(ts, NULL);
	ROCE_TEST_ASSERT_EQ(srv.ret, 0, "server: %s", strerror(-srv.ret));
	example_dest(&want);
	ROCE_TEST_ASSERT(dest_equal(&srv.rem, &want), "server parsed the record");
	return 0;
}

/* Our client against a raw server: what it sends, in which order. */
static int
test_client_bytes_on_the_wire(void)
{
	static const char server_msg[PP_DEST_MSG_LEN] =
		"0000:000033:00beef:fe800000000000000200000000000001";
	char got[PP_DEST_MSG_LEN], done[PP_DONE_MSG_LEN + 1], extra;
	struct side cli = { 0 };
	pthread_t tc;
	int lfd, fd;
	ssize_t n;

	example_dest(&cli.mine);
	lfd = pp_oob_listen(0, &cli.port);
	ROCE_TEST_ASSERT(lfd >= 0, "listen");
	ROCE_TEST_ASSERT_EQ(pthread_create(&tc, NULL, client_thread, &cli), 0, "client thread");
	fd = pp_oob_accept(lfd);
	ROCE_TEST_ASSERT(fd >= 0, "accept");
	ROCE_TEST_ASSERT_EQ(pp_oob_set_timeout(fd, TEST_TIMEOUT_MS), 0, "timeout");
	ROCE_TEST_ASSERT_EQ(raw_read(fd, got, sizeof(got)), 0, "client's record");
	ROCE_TEST_ASSERT(memcmp(got, example_msg, sizeof(got)) == 0, "record '%.*s'",
			 PP_DEST_MSG_LEN, got);
	ROCE_TEST_ASSERT_EQ(write(fd, server_msg, sizeof(server_msg)), PP_DEST_MSG_LEN, "reply");
	ROCE_TEST_ASSERT_EQ(raw_read(fd, done, PP_DONE_MSG_LEN), 0, "done");
	ROCE_TEST_ASSERT(memcmp(done, "done", PP_DONE_MSG_LEN) == 0, "\"done\" and its NUL");
	n = recv(fd, &extra, 1, 0);
	ROCE_TEST_ASSERT_EQ(n, 0, "client closes after done, nothing more");
	close(fd);
	pthread_join(tc, NULL);
	ROCE_TEST_ASSERT_EQ(cli.ret, 0, "client: %s", strerror(-cli.ret));
	ROCE_TEST_ASSERT(cli.rem.qpn == 0x33 && cli.rem.psn == 0xbeef &&
			 cli.rem.gid.raw[0] == 0xfe && cli.rem.gid.raw[15] == 1,
			 "client parsed the reply");
	return 0;
}

static int
test_server_rejects_bad_peers(void)
{
	static const char bad_record[PP_DEST_MSG_LEN] =
		"0000:000011:abcdef:00000000000000000000ffffc0a8010z";
	struct side srv = { 0 };
	char reply[PP_DEST_MSG_LEN];
	pthread_t ts;
	int fd;

	/* A malformed record: no reply, -EINVAL. */
	example_dest(&srv.mine);
	ROCE_TEST_ASSERT_EQ(start_server(&srv, &ts), 0, "server");
	fd = raw_connect(srv.port);
	ROCE_TEST_ASSERT(fd >= 0, "connect");
	ROCE_TEST_ASSERT_EQ(write(fd, bad_record, sizeof(bad_record)), PP_DEST_MSG_LEN, "write");
	pthread_join(ts, NULL);
	ROCE_TEST_ASSERT_EQ(srv.ret, -EINVAL, "malformed record refused");
	ROCE_TEST_ASSERT_EQ(recv(fd, reply, sizeof(reply), 0), 0, "closed without a reply");
	close(fd);

	/* A peer that closes after half a record: -EIO. */
	ROCE_TEST_ASSERT_EQ(start_server(&srv, &ts), 0, "server");
	fd = raw_connect(srv.port);
	ROCE_TEST_ASSERT(fd >= 0, "connect");
	ROCE_TEST_ASSERT_EQ(write(fd, example_msg, 20), 20, "half a record");
	close(fd);
	pthread_join(ts, NULL);
	ROCE_TEST_ASSERT_EQ(srv.ret, -EIO, "early close");

	/* A peer that answers something else than "done": -EINVAL. */
	ROCE_TEST_ASSERT_EQ(start_server(&srv, &ts), 0, "server");
	fd = raw_connect(srv.port);
	ROCE_TEST_ASSERT(fd >= 0, "connect");
	ROCE_TEST_ASSERT_EQ(write(fd, example_msg, sizeof(example_msg)), PP_DEST_MSG_LEN, "record");
	ROCE_TEST_ASSERT_EQ(raw_read(fd, reply, sizeof(reply)), 0, "reply");
	ROCE_TEST_ASSERT_EQ(write(fd, "DONE", 5), 5, "wrong done");
	pthread_join(ts, NULL);
	ROCE_TEST_ASSERT_EQ(srv.ret, -EINVAL, "\"DONE\" refused");
	close(fd);
	return 0;
}

static int
test_silent_peer_times_out(void)
{
	struct pp_dest d;
	uint16_t port;
	int lfd, fd, sfd;

	lfd = pp_oob_listen(0, &port);
	ROCE_TEST_ASSERT(lfd >= 0, "listen");
	fd = pp_oob_connect(LOOPBACK, port);
	ROCE_TEST_ASSERT(fd >= 0, "connect");
	sfd = pp_oob_accept(lfd);
	ROCE_TEST_ASSERT(sfd >= 0, "accept");
	ROCE_TEST_ASSERT_EQ(pp_oob_set_timeout(fd, SHORT_TIMEOUT_MS), 0, "timeout");
	ROCE_TEST_ASSERT_EQ(pp_oob_recv_dest(fd, &d), -EAGAIN, "no answer within the timeout");
	close(sfd);
	close(fd);
	return 0;
}

static int
test_nobody_listening(void)
{
	uint16_t port;
	int lfd, fd;

	/* A port that was free a moment ago, closed again: nobody listens there. */
	lfd = pp_oob_listen(0, &port);
	ROCE_TEST_ASSERT(lfd >= 0, "listen");
	close(lfd);
	fd = pp_oob_connect(LOOPBACK, port);
	ROCE_TEST_ASSERT_EQ(fd, -ECONNREFUSED, "refused");
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "oob_format_is_byte_exact", test_format_is_byte_exact },
	{ "oob_format_rejects_wide_fields", test_format_rejects_wide_fields },
	{ "oob_gid_wire_text", test_gid_wire_text },
	{ "oob_parse_accepts_the_tools_record", test_parse_accepts_the_tools_record },
	{ "oob_parse_rejects_malformed", test_parse_rejects_malformed },
	{ "oob_exchange_between_threads", test_exchange_between_threads },
	{ "oob_server_bytes_on_the_wire", test_server_bytes_on_the_wire },
	{ "oob_client_bytes_on_the_wire", test_client_bytes_on_the_wire },
	{ "oob_server_rejects_bad_peers", test_server_rejects_bad_peers },
	{ "oob_silent_peer_times_out", test_silent_peer_times_out },
	{ "oob_nobody_listening", test_nobody_listening },
};

int
main(void)
{
	return roce_test_run(cases, RTE_DIM(cases));
}
