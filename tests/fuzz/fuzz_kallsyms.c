/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary text as a kallsyms snapshot, then lookups. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/text.h"
#include "symbolizer/kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void probe(const struct kallsyms *k, uint64_t a)
{
	const char *mod = NULL, *name;
	uint64_t off = 0;

	name = kallsyms_lookup(k, a, &off, &mod);
	if (name && (off > a || !*name || !mod || mod[0] != '[' || off >= (1u << 20)))
		abort();
}

/* the hex number at the start of the line at p */
static uint64_t line_addr(const uint8_t *p, const uint8_t *end)
{
	uint64_t a = 0;
	int n = 0, d;

	for (; p < end && n < 16 && (d = zt_hexval((char)*p)) >= 0; p++, n++)
		a = a << 4 | (uint64_t)d;
	return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t probes[] = { 0, 1, 0xffffffff81000000ull, 0xffffffff81000010ull,
					   0xffffffffc0000000ull, 0xffffffffc0001000ull,
					   UINT64_MAX - 1, UINT64_MAX };
	const uint8_t *p = data, *end = data + size;
	struct kallsyms *k = NULL;
	size_t i;
	int lines = 0;

	if (kallsyms_parse((const char *)data, size, &k) != 0)
		return 0;
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		probe(k, probes[i]);
	while (p < end && lines++ < 64) {
		const uint8_t *eol = memchr(p, '\n', (size_t)(end - p));
		uint64_t a = line_addr(p, end);

		probe(k, a - 1);
		probe(k, a);
		probe(k, a + 1);
		if (!eol)
			break;
		p = eol + 1;
	}
	kallsyms_count(k);
	kallsyms_free(k);
	return 0;
}
