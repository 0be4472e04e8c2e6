/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef DUMP_JSON_H
#define DUMP_JSON_H

/*
 * A minimal streaming JSON writer: objects, keys, strings and unsigned
 * numbers, enough for roce_dump's per-file summaries. It inserts the commas,
 * and escapes strings so that any file name yields valid JSON (RFC 8259).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Deep enough for a summary object holding maps. */
#define DUMP_JSON_MAX_DEPTH	4

struct dump_json {
	FILE *out;
	unsigned int depth;
	bool has_member[DUMP_JSON_MAX_DEPTH];	/* comma needed before next */
};

void dump_json_init(struct dump_json *js, FILE *out);
/* Opens an object, as the value of the last key or at top level. */
void dump_json_object_begin(struct dump_json *js);
void dump_json_object_end(struct dump_json *js);
void dump_json_key(struct dump_json *js, const char *key);
void dump_json_string(struct dump_json *js, const char *s);
void dump_json_u64(struct dump_json *js, uint64_t v);
void dump_json_bool(struct dump_json *js, bool v);

/* Shorthands for "key": value members. */
void dump_json_member_u64(struct dump_json *js, const char *key, uint64_t v);
void dump_json_member_string(struct dump_json *js, const char *key, const char *s);

#endif /* DUMP_JSON_H */
