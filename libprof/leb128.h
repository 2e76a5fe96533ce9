/* SPDX-License-Identifier: GPL-2.0-or-later */
/* LEB128 numbers (DWARF's and GSYM's) read from bounded memory. */
#ifndef ZT_LEB128_H
#define ZT_LEB128_H

#include <stdint.h>

/*
 * The unsigned LEB128 number at *p, never read past end; *p moves past
 * it. A number cut off by end gives 0 and sets *bad = 1; one with bits
 * past 64 gives its low 64 bits and sets *bad = 2 (DWARF readers that
 * hand such a file to libdw tell the two apart). *bad is left alone
 * otherwise.
 */
static inline uint64_t zt_uleb(const uint8_t **p, const uint8_t *end, int *bad)
{
	const uint8_t *q = *p;
	uint64_t v = 0;
	unsigned sh = 0;

	/* one byte, most of them: small counts, offsets, line steps */
	if (q < end && !(*q & 0x80)) {
		*p = q + 1;
		return *q;
	}
	while (*p < end) {
		uint8_t b = *(*p)++;

		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		else if (b & 0x7f)
			*bad = 2;
		if (!(b & 0x80))
			return v;
		sh += 7;
	}
	*bad = 1;
	return 0;
}

/* The signed LEB128 number at *p, as zt_uleb (bits past 64 are dropped). */
static inline int64_t zt_sleb(const uint8_t **p, const uint8_t *end, int *bad)
{
	const uint8_t *q = *p;
	uint64_t v = 0;
	unsigned sh = 0;

	if (q < end && !(*q & 0x80)) { /* one byte: -64..63 */
		*p = q + 1;
		return (int64_t)(*q & 0x40 ? (uint64_t)*q | ~(uint64_t)0x7f : *q);
	}
	while (*p < end) {
		uint8_t b = *(*p)++;

		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
		if (!(b & 0x80)) {
			if (sh < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << sh;
			return (int64_t)v;
		}
	}
	*bad = 1;
	return 0;
}

#endif
