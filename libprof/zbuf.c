/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growable byte buffer and bounds-checked cursor with varints. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/text.h"
#include "libprof/zbuf.h"

void zbuf_init(struct zbuf *b)
{
	memset(b, 0, sizeof(*b));
}

void zbuf_release(struct zbuf *b)
{
	free(b->data);
	zbuf_init(b);
}

void zbuf_reset(struct zbuf *b)
{
	b->len = 0;
	b->err = 0;
}

int zbuf_reserve(struct zbuf *b, size_t extra)
{
	size_t need, cap;
	uint8_t *p;

	if (b->err)
		return b->err;
	if (extra > SIZE_MAX - b->len)
		return b->err = -ENOMEM;
	need = b->len + extra;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = realloc(b->data, cap);
	if (!p)
		return b->err = -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

void zbuf_put(struct zbuf *b, const void *p, size_t n)
{
	if (!n || zbuf_reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void zbuf_put_u8(struct zbuf *b, uint8_t v)
{
	zbuf_put(b, &v, 1);
}

void zbuf_put_u32le(struct zbuf *b, uint32_t v)
{
	uint8_t x[4] = {v, v >> 8, v >> 16, v >> 24};

	zbuf_put(b, x, 4);
}

void zbuf_put_u64le(struct zbuf *b, uint64_t v)
{
	zbuf_put_u32le(b, (uint32_t)v);
	zbuf_put_u32le(b, (uint32_t)(v >> 32));
}

void zbuf_put_uv(struct zbuf *b, uint64_t v)
{
	uint8_t x[10];
	size_t n = 0;

	do {
		x[n] = v & 0x7f;
		v >>= 7;
		if (v)
			x[n] |= 0x80;
		n++;
	} while (v);
	zbuf_put(b, x, n);
}

void zbuf_put_sv(struct zbuf *b, int64_t v)
{
	zbuf_put_uv(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void zbuf_put_bytes(struct zbuf *b, const void *p, size_t n)
{
	zbuf_put_uv(b, n);
	zbuf_put(b, p, n);
}

void zbuf_put_str(struct zbuf *b, const char *s)
{
	zbuf_put_bytes(b, s ? s : "", s ? strlen(s) : 0);
}

void zcur_init(struct zcur *c, const void *p, size_t n)
{
	c->p = p;
	c->end = c->p + n;
	c->err = 0;
}

static int zcur_fail(struct zcur *c)
{
	return c->err = -EBADMSG;
}

int zcur_raw(struct zcur *c, void *dst, size_t n)
{
	if (c->err || zcur_left(c) < n)
		return zcur_fail(c);
	memcpy(dst, c->p, n);
	c->p += n;
	return 0;
}

int zcur_u8(struct zcur *c, uint8_t *v)
{
	return zcur_raw(c, v, 1);
}

int zcur_u32le(struct zcur *c, uint32_t *v)
{
	uint8_t x[4];

	if (zcur_raw(c, x, 4))
		return c->err;
	*v = x[0] | x[1] << 8 | x[2] << 16 | (uint32_t)x[3] << 24;
	return 0;
}

int zcur_u64le(struct zcur *c, uint64_t *v)
{
	uint32_t lo, hi;

	if (zcur_u32le(c, &lo) || zcur_u32le(c, &hi))
		return c->err;
	*v = lo | (uint64_t)hi << 32;
	return 0;
}

int zcur_uv_slow(struct zcur *c, uint64_t *v)
{
	const uint8_t *p = c->p;
	uint64_t r = 0;
	unsigned shift;

	if (c->err)
		return c->err;
	/* at most 10 bytes; the 10th may only hold bit 63 */
	for (shift = 0; shift < 70 && p < c->end; shift += 7) {
		uint8_t x = *p++;

		if (shift == 63 && (x & 0x7e))
			break;
		r |= (uint64_t)(x & 0x7f) << shift;
		if (!(x & 0x80)) {
			c->p = p;
			*v = r;
			return 0;
		}
	}
	return zcur_fail(c);
}

int zcur_bytes(struct zcur *c, const uint8_t **p, size_t *n)
{
	uint64_t len;

	if (zcur_uv(c, &len))
		return c->err;
	if (len > zcur_left(c))
		return zcur_fail(c);
	*p = c->p;
	*n = len;
	c->p += len;
	return 0;
}

int zcur_strdup(struct zcur *c, char **s, size_t max)
{
	const uint8_t *p = NULL;
	size_t n = 0;
	char *r;

	if (zcur_bytes(c, &p, &n))
		return c->err;
	if (n > max || memchr(p, 0, n))
		return zcur_fail(c);
	r = malloc(n + 1);
	if (!r)
		return c->err = -ENOMEM;
	memcpy(r, p, n);
	r[n] = 0;
	*s = r;
	return 0;
}

int zcur_uv32(struct zcur *c, uint32_t *v)
{
	uint64_t x;

	if (zcur_uv(c, &x) || x > UINT32_MAX)
		return -EBADMSG;
	*v = (uint32_t)x;
	return 0;
}

int zt_delta_u32(uint32_t base, int64_t d, uint64_t limit, uint32_t *v)
{
	int64_t x;

	if (d > (int64_t)UINT32_MAX || d < -(int64_t)UINT32_MAX)
		return -EBADMSG;
	x = (int64_t)base + d;
	if (x < 0 || (uint64_t)x > limit)
		return -EBADMSG;
	*v = (uint32_t)x;
	return 0;
}

void zbuf_put_json_str(struct zbuf *b, const char *s)
{
	zbuf_put_json_strn(b, s, strlen(s));
}

void zbuf_put_json_strn(struct zbuf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	zbuf_put_u8(b, '"');
	while (i < n) {
		unsigned c = u[i], len;
		uint32_t cp;

		if (c == '"' || c == '\\') {
			zbuf_put_u8(b, '\\');
			zbuf_put_u8(b, (uint8_t)c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};

			zbuf_put(b, e, 6);
			i++;
		} else if (c < 0x80) {
			zbuf_put_u8(b, (uint8_t)c);
			i++;
		} else if ((len = zt_utf8_seq(u + i, n - i, &cp))) {
			/* U+2028 and U+2029: valid JSON, but not JavaScript source */
			if (cp == 0x2028 || cp == 0x2029)
				zbuf_put(b, cp == 0x2028 ? "\\u2028" : "\\u2029", 6);
			else
				zbuf_put(b, s + i, len);
			i += len;
		} else {
			zbuf_put(b, "\\ufffd", 6);
			i++;
		}
	}
	zbuf_put_u8(b, '"');
}

void zbuf_put_json_kv_strn(struct zbuf *b, const char *k, const char *v, size_t n, int comma)
{
	if (comma)
		zbuf_put_u8(b, ',');
	zbuf_put_json_str(b, k);
	zbuf_put_u8(b, ':');
	zbuf_put_json_strn(b, v ? v : "", v ? strnlen(v, n) : 0);
}

void zbuf_put_json_kv_str(struct zbuf *b, const char *k, const char *v, int comma)
{
	zbuf_put_json_kv_strn(b, k, v, v ? strlen(v) : 0, comma);
}

void zbuf_put_json_kv_int(struct zbuf *b, const char *k, int64_t v)
{
	zbuf_put_u8(b, ',');
	zbuf_put_json_str(b, k);
	zbuf_putf(b, ":%" PRId64, v);
}

void zbuf_putf(struct zbuf *b, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(buf)) {
		zbuf_put(b, buf, (size_t)n);
		return;
	}
	if (zbuf_reserve(b, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}
