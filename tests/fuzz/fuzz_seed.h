/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef FUZZ_SEED_H
#define FUZZ_SEED_H

/*
 * Seed corpora of the fuzz targets, written at test time from the
 * project's captures (the pcaps of tests/vectors), never committed: each target
 * picks the frames it wants and may put bytes of its own before them.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A failed oracle: abort, so that libFuzzer saves the input. */
#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: '%s' does not hold\n",		\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

#define FUZZ_SEED_OPCODES	(UINT8_MAX + 1)
#define FUZZ_SEED_PREFIX_MAX	16

/* What a target has taken from the capture being read (zeroed per capture). */
struct fuzz_seed_seen {
	bool opcode[FUZZ_SEED_OPCODES];	/* a RoCEv2 frame of that opcode */
	bool other;			/* a frame that is not RoCEv2 */
};

/*
 * Whether a frame becomes a seed: the number of bytes written into prefix
 * to go before it (0 to FUZZ_SEED_PREFIX_MAX), or -1 to pass it over.
 */
typedef int (*fuzz_seed_pick_t)(const uint8_t *frame, uint32_t len, struct fuzz_seed_seen *seen,
				uint8_t *prefix);

/* Write the seed file path: prefix, then frame (target names the caller in the messages). */
void fuzz_seed_write(const char *target, const char *path, const uint8_t *prefix,
		     uint32_t prefix_len, const uint8_t *frame, uint32_t len);

/*
 * Write into dir (made if missing) a seed per frame that pick takes from
 * each *.pcap of vectors, named after the capture and the frame's rank.
 * target names the caller in the messages.
 */
void fuzz_seed_corpus(const char *target, const char *vectors, const char *dir,
		      fuzz_seed_pick_t pick);

#endif /* FUZZ_SEED_H */
