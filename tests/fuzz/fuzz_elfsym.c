/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary bytes as an ELF image, then lookups across it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct prof_build_id *b;
	struct elfsym *e = NULL;
	uint64_t off, so, step;

	if (elfsym_open_mem(data, size, &e) != 0)
		return 0;
	b = elfsym_build_id(e);
	if (b->len > ZT_BUILD_ID_MAX)
		abort();
	step = size / 64 + 1;
	for (off = 0; off < size + step; off += step) {
		const char *name = elfsym_lookup(e, off, &so);

		if (name && (so > off || strlen(name) == 0))
			abort();
	}
	elfsym_lookup(e, UINT64_MAX, &so);
	elfsym_count(e);
	elfsym_free(e);
	return 0;
}
