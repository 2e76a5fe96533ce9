// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Replay driver: runs a libFuzzer target over every file of a corpus
 * directory, and over deterministic mutations of each (truncations at every
 * length up to 4 KiB, single-byte flips), so the normal suite exercises the
 * parser on bad input without libFuzzer.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t rng = 2463534242u;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static void run_mutations(const uint8_t *data, size_t size)
{
	uint8_t *m = malloc(size ? size : 1);
	size_t i, step;

	if (!m)
		abort();
	/* every prefix (sampled beyond 4 KiB) */
	step = size > 4096 ? size / 4096 + 1 : 1;
	for (i = 0; i < size; i += step) {
		memcpy(m, data, i);
		LLVMFuzzerTestOneInput(m, i);
	}
	/* byte flips */
	for (i = 0; size && i < 2000; i++) {
		size_t pos = next_rand() % size;

		memcpy(m, data, size);
		m[pos] ^= (uint8_t)(1u << (next_rand() % 8));
		if (i & 1)
			m[next_rand() % size] = (uint8_t)next_rand();
		LLVMFuzzerTestOneInput(m, size);
	}
	free(m);
}

int main(int argc, char **argv)
{
	unsigned files = 0;
	int a;

	for (a = 1; a < argc; a++) {
		DIR *d = opendir(argv[a]);
		struct dirent *de;

		if (!d) {
			perror(argv[a]);
			return 1;
		}
		while ((de = readdir(d))) {
			char path[4096];
			FILE *f;
			uint8_t *buf;
			long n;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[a], de->d_name);
			f = fopen(path, "rb");
			if (!f)
				continue;
			fseek(f, 0, SEEK_END);
			n = ftell(f);
			fseek(f, 0, SEEK_SET);
			buf = malloc(n > 0 ? (size_t)n : 1);
			if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
				fclose(f);
				free(buf);
				return 1;
			}
			fclose(f);
			LLVMFuzzerTestOneInput(buf, (size_t)n);
			run_mutations(buf, (size_t)n);
			free(buf);
			files++;
		}
		closedir(d);
	}
	if (!files) {
		fprintf(stderr, "replay: no corpus files\n");
		return 1;
	}
	return 0;
}
