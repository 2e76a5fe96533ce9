/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary text as a perf map, then lookups around each line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/text.h"
#include "symbolizer/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void probe(const struct perfmap *m, uint64_t a)
{
	uint64_t off = 0;
	const char *name = perfmap_lookup(m, a, &off);

	if (name && (off > a || !*name))
		abort();
}

/* the hex number at p (optional 0x) */
static uint64_t hex_at(const uint8_t *p, const uint8_t *end)
{
	uint64_t a = 0;
	int n = 0, d;

	if (end - p > 2 && p[0] == '0' && p[1] == 'x')
		p += 2;
	for (; p < end && n < 16 && (d = zt_hexval((char)*p)) >= 0; p++, n++)
		a = a << 4 | (uint64_t)d;
	return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct perfmap *m = NULL;
	int lines = 0;

	if (perfmap_parse((const char *)data, size, &m) != 0)
		return 0;
	probe(m, 0);
	probe(m, UINT64_MAX);
	while (p < end && lines++ < 64) {
		const uint8_t *eol = memchr(p, '\n', (size_t)(end - p));
		uint64_t a = hex_at(p, end);

		probe(m, a - 1);
		probe(m, a);
		probe(m, a + 1);
		probe(m, a + 0x10);
		if (!eol)
			break;
		p = eol + 1;
	}
	perfmap_count(m);
	perfmap_free(m);
	return 0;
}
