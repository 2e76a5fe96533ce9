// SPDX-License-Identifier: GPL-2.0-or-later
/* Python's location tables (CPython 3.11+, Objects/locations.md). */
#include <stdbool.h>
#include <stdint.h>

#include "symbolizer/pyline.h"

/* A varint of 6-bit chunks, bit 6 set on all but the last; at t[*i]. */
static uint32_t varint(const uint8_t *t, size_t len, size_t *i)
{
	uint32_t v = 0, shift = 0;
	uint8_t b;

	do {
		if (*i >= len || shift > 24)
			return v;
		b = t[(*i)++];
		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return v;
}

static int32_t svarint(const uint8_t *t, size_t len, size_t *i)
{
	uint32_t v = varint(t, len, i);

	return v & 1 ? -(int32_t)(v >> 1) : (int32_t)(v >> 1);
}

int pyline_of(const uint8_t *t, size_t len, int32_t firstlineno, int32_t lasti)
{
	int64_t line = firstlineno, addr = 0;
	size_t i = 0;

	if (lasti < 0)
		return -1;
	while (i < len) {
		uint8_t first = t[i++];
		unsigned code = first >> 3 & 15;
		int64_t units = (first & 7) + 1;
		bool none = false;

		if (!(first & 128))
			return -1; /* not an entry's first byte: a bad table */
		if (code == 15)
			none = true;
		else if (code == 13 || code == 14)
			line += svarint(t, len, &i);
		else if (code >= 10)
			line += code - 10;
		/* the rest of the entry: up to the next first byte */
		while (i < len && !(t[i] & 128))
			i++;
		if (lasti < addr + units)
			return none || line < 0 || line > INT32_MAX ? -1 : (int)line;
		addr += units;
	}
	return -1;
}
