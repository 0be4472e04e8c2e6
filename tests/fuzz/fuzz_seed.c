/* SPDX-License-Identifier: BSD-3-Clause */

/* Seed corpora from the captures: see fuzz_seed.h. */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "roce_test_pcap.h"

#include "fuzz_seed.h"

#define FUZZ_SEED_PATH_LEN 512

void
fuzz_seed_write(const char *target, const char *path, const uint8_t *prefix, uint32_t prefix_len,
	   const uint8_t *frame, uint32_t len)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL)
		return;
	if (fwrite(prefix, 1, prefix_len, f) != prefix_len || fwrite(frame, 1, len, f) != len)
		fprintf(stderr, "%s: short write to %s\n", target, path);
	fclose(f);
}

/* Seeds from one capture; returns how many were written. */
static unsigned int
seed_from_pcap(const char *target, const char *vectors, const char *name, const char *dir,
	       fuzz_seed_pick_t pick)
{
	struct fuzz_seed_seen seen = { { false }, false };
	uint8_t prefix[FUZZ_SEED_PREFIX_MAX];
	char path[FUZZ_SEED_PATH_LEN];
	uint32_t caplen, origlen;
	const uint8_t *frame;
	unsigned int n = 0, nb = 0;
	int prefix_len;
	pcap_t *p;

	snprintf(path, sizeof(path), "%s/%s", vectors, name);
	p = roce_test_pcap_open(path);
	if (p == NULL)
		return 0;
	while (roce_test_pcap_next(p, &frame, &caplen, &origlen) == 1) {
		n++;
		prefix_len = pick(frame, caplen, &seen, prefix);
		if (prefix_len < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s_%u", dir, name, n);
		fuzz_seed_write(target, path, prefix, (uint32_t)prefix_len, frame, caplen);
		nb++;
	}
	pcap_close(p);
	return nb;
}

void
fuzz_seed_corpus(const char *target, const char *vectors, const char *dir,
		 fuzz_seed_pick_t pick)
{
	unsigned int nb = 0;
	struct dirent *e;
	DIR *d;

	/* A fresh build has no corpus yet: libFuzzer refuses a missing one. */
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "%s: %s: %s\n", target, dir, strerror(errno));
		return;
	}
	d = opendir(vectors);
	if (d == NULL) {
		fprintf(stderr, "%s: %s: %s\n", target, vectors, strerror(errno));
		return;
	}
	while ((e = readdir(d)) != NULL)
		if (strstr(e->d_name, ".pcap") != NULL)
			nb += seed_from_pcap(target, vectors, e->d_name, dir, pick);
	closedir(d);
	fprintf(stderr, "%s: %u seeds from %s in %s\n", target, nb, vectors, dir);
}
