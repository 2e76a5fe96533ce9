/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary bytes as a GSYM image, then lookups in and around each function. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/gsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t sink;

static void probe(const struct gsym *g, uint64_t a)
{
	struct fi_result r;
	unsigned i;

	if (gsym_lookup(g, a, &r) != 0) {
		if (r.n)
			abort();
		return;
	}
	if (!r.n || r.n > FI_MAX_INLINE || a - r.func_start != r.offset)
		abort();
	for (i = 0; i < r.n; i++) {
		const struct fi_loc *l = &r.locs[i];

		if (!l->name || !l->dir || !l->file)
			abort();
		/* every string must be readable to its NUL */
		sink += strlen(l->name) + strlen(l->dir) + strlen(l->file) + l->line;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gsym *g = NULL;
	const uint8_t *uuid;
	size_t ulen, i;
	uint32_t n, k;

	if (gsym_open_mem(data, size, &g) != 0)
		return 0;
	uuid = gsym_uuid(g, &ulen);
	if (ulen > GSYM_MAX_UUID)
		abort();
	for (i = 0; i < ulen; i++)
		sink += uuid[i];
	probe(g, 0);
	probe(g, UINT64_MAX);
	probe(g, gsym_base_addr(g));
	probe(g, gsym_base_addr(g) - 1);
	n = gsym_nr_funcs(g);
	for (k = 0; k < n && k < 64; k++) {
		uint64_t start;
		uint32_t fsize;
		const char *name;

		if (gsym_func(g, k, &start, &fsize, &name) != 0)
			continue;
		sink += strlen(name);
		probe(g, start - 1);
		probe(g, start);
		probe(g, start + 1);
		probe(g, start + fsize / 2);
		probe(g, start + fsize - 1);
		probe(g, start + fsize);
	}
	/* addresses taken from the input itself */
	for (i = 0; i + 8 <= size && i < 256; i += 8) {
		uint64_t a;

		memcpy(&a, data + i, 8);
		probe(g, a);
		probe(g, gsym_base_addr(g) + (a & 0xffff));
	}
	gsym_free(g);
	return 0;
}
