/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: a CPython 3.11+ location table (co_linetable, read from a
 * process's memory) turned into lines by symbolizer/pyline.c's pyline_of().
 * Input: 4 bytes of first line (little-endian), then the table. Every code
 * unit from before the table's start to past its end is looked up: each
 * answer is a line >= 0 or -1, the table never read past its end (ASan).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/pyline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int32_t first;
	uint8_t *t;
	size_t len;
	int32_t i;

	if (size < 4)
		return 0;
	memcpy(&first, data, 4);
	len = size - 4;
	/* a copy of its own size, so that a read past the end is caught */
	t = malloc(len ? len : 1);
	if (!t)
		return 0;
	memcpy(t, data + 4, len);
	for (i = -2; i < (int32_t)(8 * len + 8); i++)
		if (pyline_of(t, len, first, i) < -1)
			abort();
	free(t);
	return 0;
}
