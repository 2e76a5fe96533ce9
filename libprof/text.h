/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Character classes for the text parsers (kallsyms, perf maps): locale-free. */
#ifndef ZT_TEXT_H
#define ZT_TEXT_H

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

#endif
