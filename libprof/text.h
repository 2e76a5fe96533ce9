/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Character classes for the text parsers (kallsyms, perf maps), hex, source
 * paths as outputs show them, and the UTF-8 check of the text writers (JSON,
 * pprof): locale-free. */
#ifndef ZT_TEXT_H
#define ZT_TEXT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The value of a hex digit (either case), or -1. */
static inline int zt_hexval(char c)
{
	unsigned u = (unsigned char)c;

	if (u - '0' < 10)
		return (int)(u - '0');
	u |= 0x20; /* 'A'..'F' to 'a'..'f'; nothing else lands there */
	if (u - 'a' < 6)
		return (int)(u - 'a' + 10);
	return -1;
}

/* The n bytes at p as 2n lowercase hex digits and a NUL (out holds 2n + 1
 * bytes). Returns out. */
static inline char *zt_hex_encode(const void *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = 0;
	return out;
}

/* The 2n hex digits (either case) at s as n bytes at out. 0, or -EINVAL at
 * the first character that is not a digit (out then partly written); it
 * reads no further than that one, so a short NUL-terminated s is safe. */
static inline int zt_hex_decode(const char *s, size_t n, void *out)
{
	uint8_t *b = out;
	size_t i;

	for (i = 0; i < n; i++) {
		int hi = zt_hexval(s[2 * i]), lo;

		if (hi < 0 || (lo = zt_hexval(s[2 * i + 1])) < 0)
			return -EINVAL;
		b[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/* snprintf(buf, n, "%s", s) without parsing a format, for hot paths:
 * s into buf cut at n - 1 bytes (buf may be NULL when n is 0); strlen(s). */
static inline size_t zt_str_copy(char *buf, size_t n, const char *s)
{
	size_t l = strlen(s);

	if (n) {
		size_t k = l < n - 1 ? l : n - 1;

		memcpy(buf, s, k);
		buf[k] = 0;
	}
	return l;
}

/*
 * A source file's path as outputs show it: file when it is absolute or dir
 * is unknown, else "dir/file" (DWARF's compilation directory and file);
 * "" for no file. Into buf (cut at n - 1 bytes; buf may be NULL when n is
 * 0); the length it needs.
 */
static inline size_t zt_src_path(char *buf, size_t n, const char *dir, const char *file)
{
	size_t dl;

	if (!file)
		file = "";
	if (!file[0] || file[0] == '/' || !dir || !*dir)
		return zt_str_copy(buf, n, file);
	dl = zt_str_copy(buf, n, dir);
	if (dl + 1 < n) {
		buf[dl] = '/';
		return dl + 1 + zt_str_copy(buf + dl + 1, n - dl - 1, file);
	}
	return dl + 1 + strlen(file);
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

/* The last component of a path ("a/b/c" -> "c"); the path itself when
 * it ends with '/' or has none. */
static inline const char *zt_base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* A printable copy of a name from outside (a pushed profile's): control
 * characters and bytes that are not UTF-8 (as a lead byte and its
 * continuation bytes tell it) become '?', cut before size - 5 bytes at a
 * character's end. Cleaning a cleaned name gives it back. */
static inline void zt_clean_name(char *out, size_t size, const char *in)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;

	while (*s && o + 5 < size) {
		unsigned c = *s, len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
						      : (c & 0xf8) == 0xf0 ? 4 : 0, k;

		if (len > 1 && c >= 0xc2 && c <= 0xf4) {
			for (k = 1; k < len && (s[k] & 0xc0) == 0x80; k++)
				;
			if (k == len) {
				memcpy(out + o, s, len);
				o += len;
				s += len;
				continue;
			}
		}
		out[o++] = (len == 1 && c >= 0x20 && c != 0x7f) ? (char)c : '?';
		s++;
	}
	out[o] = 0;
}

#endif
