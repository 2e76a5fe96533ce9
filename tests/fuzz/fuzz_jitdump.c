/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary bytes as a jitdump file, then lookups around every region. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/jitdump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void probe(const struct jitdump *j, uint64_t addr, uint64_t ts)
{
	const struct jitdump_line *l = (const struct jitdump_line *)1;
	const struct jitdump_region *r = jitdump_lookup(j, addr, ts, &l);

	if (!r) {
		if (l)
			abort();
		return;
	}
	if (addr < r->start || addr - r->start >= r->size || r->ts > ts || !r->name)
		abort();
	if (r->end_ts != UINT64_MAX && ts >= r->end_ts)
		abort();
	if (l && (l->addr > addr || !l->file || l < r->lines || l >= r->lines + r->nr_lines))
		abort();
	if (l != jitdump_region_line(r, addr))
		abort();
	(void)strlen(r->name);
	if (l)
		(void)strlen(l->file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jitdump_stats st;
	struct jitdump *j = NULL;
	size_t i, n;

	if (jitdump_parse(data, size, &j) != 0) {
		if (j)
			abort();
		return 0;
	}
	jitdump_stats(j, &st);
	n = jitdump_count(j);
	if (jitdump_region(j, n))
		abort();
	for (i = 0; i < n && i < 64; i++) {
		const struct jitdump_region *r = jitdump_region(j, i);
		size_t k;

		for (k = 1; k < r->nr_lines; k++)
			if (r->lines[k - 1].addr > r->lines[k].addr)
				abort();
		probe(j, r->start, r->ts);
		probe(j, r->start, r->ts ? r->ts - 1 : 0);
		probe(j, r->start, UINT64_MAX);
		probe(j, r->start - 1, r->ts);
		probe(j, r->start + r->size / 2, r->ts + 1);
		probe(j, r->start + r->size - 1, r->end_ts);
		probe(j, r->start + r->size, r->ts);
		for (k = 0; k < r->nr_lines && k < 8; k++)
			probe(j, r->lines[k].addr, UINT64_MAX);
	}
	probe(j, 0, UINT64_MAX);
	probe(j, UINT64_MAX, UINT64_MAX);
	jitdump_free(j);
	return 0;
}
