/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Character classes for the text parsers (kallsyms, perf maps) and the UTF-8
 * check of the text writers (JSON, pprof): locale-free. */
#ifndef ZT_TEXT_H
#define ZT_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* The value of a hex digit, or -1. */
static inline int zt_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Blanks inside a line (not the newline). */
static inline int zt_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * The length (2 to 4) of the well-formed UTF-8 sequence of a byte >= 0x80
 * at u[0 .. n), its code point in *cp; 0 when it is not one (truncated,
 * overlong, a surrogate, past U+10FFFF): the writers put a replacement
 * there and go on at the next byte.
 */
static inline unsigned zt_utf8_seq(const unsigned char *u, size_t n, uint32_t *cp)
{
	unsigned c = u[0], len = 0, k;
	uint32_t v = 0;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, v = c & 0x07;
	for (k = 1; k < len; k++) {
		if (k >= n || (u[k] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (u[k] & 0x3f);
	}
	if (!len || (len == 3 && v < 0x800) || (len == 4 && v < 0x10000) ||
	    (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		return 0;
	*cp = v;
	return len;
}

#endif
