/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of roce_dump's JSON writer and MAD decoder: exact escaping of
 * every kind of byte (file names come from the user), and MAD/CM decoding
 * at the edges of the attribute range and of the buffer.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_roce_mad.h>

#include "roce_test.h"
#include "../../app/roce_dump/dump_json.h"
#include "../../app/roce_dump/dump_mad.h"

#define MAD_LEN		256	/* a whole MAD, as on QP1 (IBA 13.4.1) */
#define MGMT_CLASS_SA	0x03

/* Output captured in memory: one buffer per test. */
struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static int
capture_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	return c->f == NULL ? -errno : 0;
}

/* Closes the stream; c->buf then holds the NUL-terminated output. */
static void
capture_close(struct capture *c)
{
	fclose(c->f);
}

/* Writes s as a JSON string and compares with want; 0 if equal. */
static int
json_string_is(const char *s, const char *want)
{
	struct capture c;
	struct dump_json js;
	int rc;

	ROCE_TEST_ASSERT(capture_open(&c) == 0, "open_memstream");
	dump_json_init(&js, c.f);
	dump_json_string(&js, s);
	capture_close(&c);
	rc = strcmp(c.buf, want);
	if (rc != 0)
		printf("#   got %s, want %s\n", c.buf, want);
	free(c.buf);
	return rc;
}

static int
test_json_escapes(void)
{
	ROCE_TEST_ASSERT(json_string_is("plain.pcap", "\"plain.pcap\"") == 0, "");
	ROCE_TEST_ASSERT(json_string_is("a\"b\\c", "\"a\\\"b\\\\c\"") == 0, "");
	ROCE_TEST_ASSERT(json_string_is("l1\nl2\tx", "\"l1\\nl2\\tx\"") == 0, "");
	ROCE_TEST_ASSERT(json_string_is("\x01\x1f\r", "\"\\u0001\\u001f\\u000d\"") == 0, "");
	ROCE_TEST_ASSERT(json_string_is("\x7f/", "\"\x7f/\"") == 0, "DEL and / need no escape");
	ROCE_TEST_ASSERT(json_string_is("", "\"\"") == 0, "");
	return 0;
}

static int
test_json_utf8_valid(void)
{
	/* 2-, 3- and 4-byte sequences, and the edges of the ranges. */
	ROCE_TEST_ASSERT(json_string_is("caf\xc3\xa9", "\"caf\xc3\xa9\"") == 0, "");
	ROCE_TEST_ASSERT(json_string_is("\xe2\x82\xac", "\"\xe2\x82\xac\"") == 0, "");
	ROCE_TEST_ASSERT(json_string_is("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"") == 0, "");
	ROCE_TEST_ASSERT(json_string_is("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"") == 0, "U+10FFFF");
	ROCE_TEST_ASSERT(json_string_is("\xed\x9f\xbf", "\"\xed\x9f\xbf\"") == 0, "U+D7FF");
	return 0;
}

static int
test_json_utf8_invalid(void)
{
#define R "\\ufffd"
	ROCE_TEST_ASSERT(json_string_is("\xe9t\xe9", "\"" R "t" R "\"") == 0, "Latin-1");
	ROCE_TEST_ASSERT(json_string_is("\xc0\x80", "\"" R R "\"") == 0, "overlong NUL");
	ROCE_TEST_ASSERT(json_string_is("\xe0\x80\x80", "\"" R R R "\"") == 0, "overlong 3");
	ROCE_TEST_ASSERT(json_string_is("\xed\xa0\x80", "\"" R R R "\"") == 0, "surrogate");
	ROCE_TEST_ASSERT(json_string_is("\xf4\x90\x80\x80", "\"" R R R R "\"") == 0, "> U+10FFFF");
	ROCE_TEST_ASSERT(json_string_is("\xf5\x80", "\"" R R "\"") == 0, "F5 lead");
	ROCE_TEST_ASSERT(json_string_is("x\xe2\x82", "\"x" R R "\"") == 0, "cut at the end");
	ROCE_TEST_ASSERT(json_string_is("\x80", "\"" R "\"") == 0, "lone continuation");
#undef R
	return 0;
}

static int
test_json_objects(void)
{
	static const char want[] =
		"{\"a\":1,\"m\":{\"x\":2,\"y\":18446744073709551615},\"e\":{},\"b\":true}\n"
		"{\"s\":\"t\"}\n";
	struct capture c;
	struct dump_json js;

	ROCE_TEST_ASSERT(capture_open(&c) == 0, "open_memstream");
	dump_json_init(&js, c.f);
	dump_json_object_begin(&js);
	dump_json_member_u64(&js, "a", 1);
	dump_json_key(&js, "m");
	dump_json_object_begin(&js);
	dump_json_member_u64(&js, "x", 2);
	dump_json_member_u64(&js, "y", UINT64_MAX);
	dump_json_object_end(&js);
	dump_json_key(&js, "e");
	dump_json_object_begin(&js);
	dump_json_object_end(&js);
	dump_json_key(&js, "b");
	dump_json_bool(&js, true);
	dump_json_object_end(&js);
	dump_json_object_begin(&js);
	dump_json_member_string(&js, "s", "t");
	dump_json_object_end(&js);
	capture_close(&c);
	ROCE_TEST_ASSERT(strcmp(c.buf, want) == 0, "got %s", c.buf);
	free(c.buf);
	return 0;
}

/* A CM MAD as rdma_cm sends it; attr_id and the data are the caller's. */
static void
mad_fill(uint8_t *buf, uint8_t mgmt_class, uint16_t attr_id)
{
	static const uint8_t hdr[RTE_ROCE_MAD_HDR_LEN] = {
		1, RTE_ROCE_MGMT_CLASS_CM, 2, 0x03, 0x00, 0x1c, 0x12, 0x34,
		0x00, 0x00, 0x00, 0x02, 0xa3, 0xfd, 0x18, 0xe8,
		0x00, 0x10, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef,
	};

	memset(buf, 0, MAD_LEN);
	memcpy(buf, hdr, sizeof(hdr));
	buf[1] = mgmt_class;
	buf[16] = attr_id >> 8;
	buf[17] = attr_id & 0xff;
}

static int
test_mad_decode(void)
{
	uint8_t buf[MAD_LEN];
	struct dump_mad mad;

	mad_fill(buf, RTE_ROCE_MGMT_CLASS_CM, 0x0013);
	ROCE_TEST_ASSERT_EQ(dump_mad_decode(buf, sizeof(buf), &mad), 0, "");
	ROCE_TEST_ASSERT_EQ(mad.base_version, 1, "");
	ROCE_TEST_ASSERT_EQ(mad.mgmt_class, RTE_ROCE_MGMT_CLASS_CM, "");
	ROCE_TEST_ASSERT_EQ(mad.class_version, 2, "");
	ROCE_TEST_ASSERT_EQ(mad.method, 0x03, "");
	ROCE_TEST_ASSERT_EQ(mad.status, 0x001c, "");
	ROCE_TEST_ASSERT_EQ(mad.class_specific, 0x1234, "");
	ROCE_TEST_ASSERT(mad.tid == UINT64_C(0x00000002a3fd18e8), "tid");
	ROCE_TEST_ASSERT_EQ(mad.attr_id, 0x0013, "");
	ROCE_TEST_ASSERT(mad.attr_mod == UINT32_C(0xdeadbeef), "attr_mod");
	ROCE_TEST_ASSERT(mad.data == buf + RTE_ROCE_MAD_HDR_LEN, "data");
	ROCE_TEST_ASSERT_EQ(mad.data_len, MAD_LEN - RTE_ROCE_MAD_HDR_LEN, "");
	ROCE_TEST_ASSERT_EQ(dump_mad_cm_attr(&mad), DUMP_CM_REP, "");
	return 0;
}

static int
test_mad_too_short(void)
{
	uint8_t buf[MAD_LEN];
	struct dump_mad mad;

	mad_fill(buf, RTE_ROCE_MGMT_CLASS_CM, 0x0010);
	ROCE_TEST_ASSERT_EQ(dump_mad_decode(buf, RTE_ROCE_MAD_HDR_LEN - 1, &mad),
			    -EINVAL, "");
	ROCE_TEST_ASSERT_EQ(dump_mad_decode(buf, 0, &mad), -EINVAL, "");
	ROCE_TEST_ASSERT_EQ(dump_mad_decode(buf, RTE_ROCE_MAD_HDR_LEN, &mad), 0, "");
	ROCE_TEST_ASSERT_EQ(mad.data_len, 0, "header only");
	return 0;
}

static int
test_cm_attr_range(void)
{
	static const struct {
		uint8_t mgmt_class;
		uint16_t attr_id;
		enum dump_cm_attr want;
	} cases[] = {
		{ RTE_ROCE_MGMT_CLASS_CM, 0x000f, DUMP_CM_ATTR_MAX },
		{ RTE_ROCE_MGMT_CLASS_CM, 0x0010, DUMP_CM_REQ },
		{ RTE_ROCE_MGMT_CLASS_CM, 0x0014, DUMP_CM_RTU },
		{ RTE_ROCE_MGMT_CLASS_CM, 0x001a, DUMP_CM_APR },
		{ RTE_ROCE_MGMT_CLASS_CM, 0x001b, DUMP_CM_ATTR_MAX },
		{ RTE_ROCE_MGMT_CLASS_CM, 0x1010, DUMP_CM_ATTR_MAX },
		{ MGMT_CLASS_SA, 0x0010, DUMP_CM_ATTR_MAX },
	};
	static const char * const names[DUMP_CM_ATTR_MAX] = {
		"REQ", "MRA", "REJ", "REP", "RTU", "DREQ", "DREP",
		"SIDR_REQ", "SIDR_REP", "LAP", "APR",
	};
	uint8_t buf[MAD_LEN];
	struct dump_mad mad;
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		mad_fill(buf, cases[i].mgmt_class, cases[i].attr_id);
		ROCE_TEST_ASSERT_EQ(dump_mad_decode(buf, sizeof(buf), &mad), 0, "");
		ROCE_TEST_ASSERT_EQ(dump_mad_cm_attr(&mad), cases[i].want,
				    "case %u", i);
	}
	for (i = 0; i < DUMP_CM_ATTR_MAX; i++)
		ROCE_TEST_ASSERT(strcmp(dump_cm_attr_name(i), names[i]) == 0,
				 "attr %u", i);
	ROCE_TEST_ASSERT(dump_cm_attr_name(DUMP_CM_ATTR_MAX) == NULL, "");
	return 0;
}

/* Prints the -v detail of a MAD of len bytes held in an exact-size buffer. */
static char *
mad_detail(const uint8_t *src, uint32_t len)
{
	struct capture c;
	struct dump_mad mad;
	uint8_t *exact = malloc(len);	/* ASan sees any read beyond len */
	int rc;

	if (exact == NULL)
		return NULL;
	memcpy(exact, src, len);
	rc = dump_mad_decode(exact, len, &mad);
	if (rc == 0 && capture_open(&c) == 0) {
		dump_mad_print_brief(c.f, &mad);
		dump_mad_print_detail(c.f, &mad);
		capture_close(&c);
	} else {
		c.buf = NULL;
	}
	free(exact);
	return c.buf;
}

/* The -v detail of a whole CM MAD of attribute attr_id whose class data starts with data. */
static char *
cm_mad_detail(uint16_t attr_id, const uint8_t *data, size_t len)
{
	uint8_t buf[MAD_LEN];

	mad_fill(buf, RTE_ROCE_MGMT_CLASS_CM, attr_id);
	memcpy(buf + RTE_ROCE_MAD_HDR_LEN, data, len);
	return mad_detail(buf, sizeof(buf));
}

static int
test_mad_detail_req(void)
{
	/* REQ from rping: service 0x0106 << 16 | 7174, QPN 0x14, MTU 1024. */
	static const uint8_t req[] = {
		[0] = 0xe8, 0x18, 0xfd, 0xa3,
		[8] = 0, 0, 0, 0, 0x01, 0x06, 0x1c, 0x06,
		[32] = 0x00, 0x00, 0x14,
		[44] = 0xd4, 0xac, 0x39,
		[50] = 0x37,
		[66] = 0xff, 0xff, 198, 18, 0, 12,
		[82] = 0xff, 0xff, 198, 18, 0, 11,
	};
	char *out = cm_mad_detail(0x0010, req, sizeof(req));

	ROCE_TEST_ASSERT(out != NULL, "no output");
	ROCE_TEST_ASSERT(strstr(out, " MAD CM REQ tid 0x00000002a3fd18e8") != NULL &&
			 strstr(out, "local_comm_id 0xe818fda3") != NULL &&
			 strstr(out, "service_id 0x0000000001061c06") != NULL &&
			 strstr(out, "local_qpn 0x000014") != NULL &&
			 strstr(out, "starting_psn 0xd4ac39") != NULL &&
			 strstr(out, "path_mtu 3 (1024)") != NULL &&
			 strstr(out, "sgid 198.18.0.12 dgid 198.18.0.11") != NULL,
			 "%s", out);
	free(out);
	return 0;
}

/*
 * A SIDR_REP as udaddy's rejecting server sends it: the status says why
 * (2, rejected), the request ID which SIDR_REQ it answers; cut before its
 * QPN, only the request ID.
 */
static int
test_mad_detail_sidr_rep(void)
{
	static const uint8_t rep[] = {
		[0] = 0xa5, 0xb6, 0x22, 0x6d, 0x02,
		[8] = 0x00, 0x00, 0x2a, 0x00,
		[12] = 0, 0, 0, 0, 0x01, 0x11, 0x1c, 0x06,
		[20] = 0x01, 0x23, 0x45, 0x67,
	};
	uint8_t buf[MAD_LEN];
	char *out = cm_mad_detail(0x0018, rep, sizeof(rep));

	ROCE_TEST_ASSERT(out != NULL, "no output");
	ROCE_TEST_ASSERT(strstr(out, "CM SIDR_REP request_id 0xa5b6226d status 2 qpn 0x00002a"
				" service_id 0x0000000001111c06 qkey 0x01234567") != NULL, "%s", out);
	free(out);
	mad_fill(buf, RTE_ROCE_MGMT_CLASS_CM, 0x0018);
	memcpy(buf + RTE_ROCE_MAD_HDR_LEN, rep, sizeof(rep));
	out = mad_detail(buf, RTE_ROCE_MAD_HDR_LEN + 8);
	ROCE_TEST_ASSERT(out != NULL, "no output");
	ROCE_TEST_ASSERT(strstr(out, "CM SIDR_REP request_id 0xa5b6226d\n") != NULL, "%s", out);
	free(out);
	return 0;
}

static int
test_mad_detail_short(void)
{
	uint8_t buf[MAD_LEN];
	char *out;

	/* A REQ cut before its GIDs: header only, no REQ fields read. */
	mad_fill(buf, RTE_ROCE_MGMT_CLASS_CM, 0x0010);
	out = mad_detail(buf, RTE_ROCE_MAD_HDR_LEN + 60);
	ROCE_TEST_ASSERT(out != NULL, "no output");
	ROCE_TEST_ASSERT(strstr(out, "attr_id 0x0010") != NULL, "%s", out);
	ROCE_TEST_ASSERT(strstr(out, "CM REQ local") == NULL, "%s", out);
	free(out);
	/* A DREQ of 4 data bytes: too short for both comm IDs. */
	mad_fill(buf, RTE_ROCE_MGMT_CLASS_CM, 0x0015);
	out = mad_detail(buf, RTE_ROCE_MAD_HDR_LEN + 4);
	ROCE_TEST_ASSERT(out != NULL && strstr(out, "comm_id") == NULL, "%s", out);
	free(out);
	/* A non-CM class: header only, named by number. */
	mad_fill(buf, MGMT_CLASS_SA, 0x0010);
	out = mad_detail(buf, sizeof(buf));
	ROCE_TEST_ASSERT(out != NULL && strstr(out, "MAD class 0x03 attr 0x0010") != NULL,
			 "%s", out);
	free(out);
	return 0;
}

/* LAP and APR as librte_roce_cm answers a LAP: comm IDs, the alternate path, the AP status. */
static int
test_mad_detail_lap_apr(void)
{
	static const uint8_t lap[] = {
		[0] = 0x11, 0x22, 0x33, 0x44,
		[4] = 0x55, 0x66, 0x77, 0x88,
		[12] = 0x00, 0x00, 0x2a, 0xa0,
		[34] = 0xff, 0xff, 198, 18, 0, 12,
		[50] = 0xff, 0xff, 198, 18, 0, 11,
	};
	static const uint8_t apr[] = {
		[0] = 0x55, 0x66, 0x77, 0x88,
		[4] = 0x11, 0x22, 0x33, 0x44,
		[9] = RTE_ROCE_CM_APR_UNSUPPORTED,
	};
	uint8_t buf[MAD_LEN];
	char *out;

	mad_fill(buf, RTE_ROCE_MGMT_CLASS_CM, RTE_ROCE_CM_ATTR_LAP);
	memcpy(buf + RTE_ROCE_MAD_HDR_LEN, lap, sizeof(lap));
	out = mad_detail(buf, sizeof(buf));
	ROCE_TEST_ASSERT(out != NULL && strstr(out, " MAD CM LAP tid") != NULL &&
			 strstr(out, "CM LAP local_comm_id 0x11223344 remote_comm_id 0x55667788"
				" remote_qpn 0x00002a alt_sgid 198.18.0.12 alt_dgid 198.18.0.11")
			 != NULL, "%s", out);
	free(out);
	mad_fill(buf, RTE_ROCE_MGMT_CLASS_CM, RTE_ROCE_CM_ATTR_APR);
	memcpy(buf + RTE_ROCE_MAD_HDR_LEN, apr, sizeof(apr));
	out = mad_detail(buf, sizeof(buf));
	ROCE_TEST_ASSERT(out != NULL && strstr(out, " MAD CM APR tid") != NULL &&
			 strstr(out, "CM APR local_comm_id 0x55667788 remote_comm_id 0x11223344"
				" ap_status 2 (UNSUPPORTED)") != NULL, "%s", out);
	free(out);
	/* A status past the table: its number alone. */
	buf[RTE_ROCE_MAD_HDR_LEN + 9] = 200;
	out = mad_detail(buf, sizeof(buf));
	ROCE_TEST_ASSERT(out != NULL && strstr(out, "ap_status 200\n") != NULL, "%s", out);
	free(out);
	/* Cut before the status, or before the LAP's GIDs: nothing of them read. */
	out = mad_detail(buf, RTE_ROCE_MAD_HDR_LEN + 9);
	ROCE_TEST_ASSERT(out != NULL && strstr(out, "CM APR local") == NULL, "%s", out);
	free(out);
	mad_fill(buf, RTE_ROCE_MGMT_CLASS_CM, RTE_ROCE_CM_ATTR_LAP);
	out = mad_detail(buf, RTE_ROCE_MAD_HDR_LEN + 55);
	ROCE_TEST_ASSERT(out != NULL && strstr(out, "CM LAP local") == NULL, "%s", out);
	free(out);
	return 0;
}

static const struct roce_test_case cases[] = {
	{ "json_escapes", test_json_escapes },
	{ "json_utf8_valid", test_json_utf8_valid },
	{ "json_utf8_invalid", test_json_utf8_invalid },
	{ "json_objects", test_json_objects },
	{ "mad_decode", test_mad_decode },
	{ "mad_too_short", test_mad_too_short },
	{ "cm_attr_range", test_cm_attr_range },
	{ "mad_detail_req", test_mad_detail_req },
	{ "mad_detail_sidr_rep", test_mad_detail_sidr_rep },
	{ "mad_detail_short", test_mad_detail_short },
	{ "mad_detail_lap_apr", test_mad_detail_lap_apr },
};

int
main(void)
{
	return roce_test_run(cases, RTE_DIM(cases));
}
