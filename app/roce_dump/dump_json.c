/* SPDX-License-Identifier: BSD-3-Clause */

#include <inttypes.h>

#include "dump_json.h"

/* RFC 8259 §7: control characters must be escaped. */
#define JSON_CTRL_MAX		0x1f
#define UTF8_CONT_MASK		0xc0
#define UTF8_CONT_BITS		0x80
#define UTF8_REPLACEMENT	"\\ufffd"

void
dump_json_init(struct dump_json *js, FILE *out)
{
	js->out = out;
	js->depth = 0;
	js->has_member[0] = false;
}

void
dump_json_object_begin(struct dump_json *js)
{
	fputc('{', js->out);
	/* Callers nest at most DUMP_JSON_MAX_DEPTH - 1 objects. */
	if (js->depth + 1 < DUMP_JSON_MAX_DEPTH)
		js->depth++;
	js->has_member[js->depth] = false;
}

void
dump_json_object_end(struct dump_json *js)
{
	fputc('}', js->out);
	if (js->depth > 0)
		js->depth--;
	if (js->depth == 0)
		fputc('\n', js->out);
}

/*
 * Length of the well-formed UTF-8 sequence at s (RFC 3629 §4: no overlongs,
 * no surrogates, nothing above U+10FFFF), or 0 if it is not one.
 */
static unsigned int
utf8_seq_len(const unsigned char *s)
{
	unsigned int n, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	/* A NUL stops this loop too, so it never reads past the string. */
	for (i = 2; i < n; i++)
		if ((s[i] & UTF8_CONT_MASK) != UTF8_CONT_BITS)
			return 0;
	return n;
}

void
dump_json_string(struct dump_json *js, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned int n;

	fputc('"', js->out);
	while (*s != '\0') {
		if (*s == '"' || *s == '\\') {
			fputc('\\', js->out);
			fputc(*s++, js->out);
		} else if (*s == '\n') {
			fputs("\\n", js->out);
			s++;
		} else if (*s == '\t') {
			fputs("\\t", js->out);
			s++;
		} else if (*s <= JSON_CTRL_MAX) {
			fprintf(js->out, "\\u%04x", *s++);
		} else if (*s < UTF8_CONT_BITS) {
			fputc(*s++, js->out);
		} else if ((n = utf8_seq_len(s)) != 0) {
			fwrite(s, 1, n, js->out);
			s += n;
		} else {
			/* Not UTF-8 (a Latin-1 file name...): keep JSON valid. */
			fputs(UTF8_REPLACEMENT, js->out);
			s++;
		}
	}
	fputc('"', js->out);
}

void
dump_json_key(struct dump_json *js, const char *key)
{
	if (js->has_member[js->depth])
		fputc(',', js->out);
	js->has_member[js->depth] = true;
	dump_json_string(js, key);
	fputc(':', js->out);
}

void
dump_json_u64(struct dump_json *js, uint64_t v)
{
	fprintf(js->out, "%" PRIu64, v);
}

void
dump_json_bool(struct dump_json *js, bool v)
{
	fputs(v ? "true" : "false", js->out);
}

void
dump_json_member_u64(struct dump_json *js, const char *key, uint64_t v)
{
	dump_json_key(js, key);
	dump_json_u64(js, v);
}

void
dump_json_member_string(struct dump_json *js, const char *key, const char *s)
{
	dump_json_key(js, key);
	dump_json_string(js, s);
}
