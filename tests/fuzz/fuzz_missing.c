/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the body of POST /api/v1/symbols/missing, through
 * zs_symbols_missing() on a real store (opened once, in a temporary
 * directory removed at exit). Invariants: on success every output line is
 * an id of the input (2..40 lowercase hex digits, even), at most one per
 * input line; on a refusal, a printable message.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libprof/zbuf.h"
#include "server/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct zs_store *store;
static char dir[] = "/tmp/zt-fuzz-missing.XXXXXX";

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void teardown(void)
{
	zs_store_close(store);
	store = NULL;
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void setup(void)
{
	char msg[256];

	if (!mkdtemp(dir) || zs_store_open(dir, NULL, &store, msg, sizeof(msg)))
		abort();
	atexit(teardown);
}

static int is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i, start, lines = 0, out_lines = 0;
	char msg[256] = "";
	struct zbuf out;
	int rc;

	if (!store)
		setup();
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	lines++;
	zbuf_init(&out);
	rc = zs_symbols_missing(store, (const char *)data, size, &out, msg, sizeof(msg));
	if (rc) {
		if (rc != -EINVAL && rc != -E2BIG)
			abort();
		if (!msg[0])
			abort();
		for (i = 0; msg[i]; i++)
			if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f)
				abort();
	} else {
		if (out.len && out.data[out.len - 1] != '\n')
			abort();
		for (start = 0; start < out.len; start = i + 1) {
			char *hit;

			for (i = start; out.data[i] != '\n'; i++)
				if (!is_hex_digit((char)out.data[i]))
					abort();
			if (i - start < 2 || i - start > 40 || (i - start) % 2)
				abort();
			/* the id came from the input (in whatever case) */
			hit = memmem(data, size, out.data + start, i - start);
			if (!hit) {
				size_t j, k, n = i - start;
				int found = 0;

				for (j = 0; !found && j + n <= size; j++) {
					for (k = 0; k < n; k++)
						if ((data[j + k] | 0x20) != out.data[start + k])
							break;
					found = k == n;
				}
				if (!found)
					abort();
			}
			out_lines++;
		}
		if (out_lines > lines)
			abort();
	}
	zbuf_release(&out);
	return 0;
}
