/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Byte buffers: a growable writer (struct zbuf) and a bounds-checked reader
 * (struct zcur) with LEB128 varints, used by every binary encoder and parser.
 */
#ifndef ZT_ZBUF_H
#define ZT_ZBUF_H

#include <stddef.h>
#include <stdint.h>

/* Growable buffer. Owns data; zbuf_release() frees it. */
struct zbuf {
	uint8_t *data;
	size_t len, cap;
	int err; /* sticky -ENOMEM: check once after a series of puts */
};

void zbuf_init(struct zbuf *b);
void zbuf_release(struct zbuf *b);
void zbuf_reset(struct zbuf *b);          /* len = 0, keeps the memory */
int zbuf_reserve(struct zbuf *b, size_t extra);
void zbuf_put(struct zbuf *b, const void *p, size_t n);
void zbuf_put_u8(struct zbuf *b, uint8_t v);
void zbuf_put_u32le(struct zbuf *b, uint32_t v);
void zbuf_put_u64le(struct zbuf *b, uint64_t v);
void zbuf_put_uv(struct zbuf *b, uint64_t v);      /* unsigned LEB128 */
void zbuf_put_sv(struct zbuf *b, int64_t v);       /* zigzag + LEB128 */
void zbuf_put_str(struct zbuf *b, const char *s);  /* uv length + bytes */
void zbuf_put_bytes(struct zbuf *b, const void *p, size_t n); /* uv length + bytes */
/* s as a JSON string: quoted, \" \\ and control characters escaped, bad
 * UTF-8 as U+FFFD, U+2028 and U+2029 escaped (the JSON writers' one escaper) */
void zbuf_put_json_str(struct zbuf *b, const char *s);
/* The same with the n bytes at s (a NUL among them is escaped too). */
void zbuf_put_json_strn(struct zbuf *b, const char *s, size_t n);
/* "k":"v", a string member of a JSON object, after a comma when comma; v
 * NULL is "". */
void zbuf_put_json_kv_str(struct zbuf *b, const char *k, const char *v, int comma);
/* The same with v's first n bytes, up to a NUL among them. */
void zbuf_put_json_kv_strn(struct zbuf *b, const char *k, const char *v, size_t n, int comma);
/* ,"k":v, an integer member after the first. */
void zbuf_put_json_kv_int(struct zbuf *b, const char *k, int64_t v);
/* printf-formatted text (no NUL) */
void zbuf_putf(struct zbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reader over borrowed memory. Every get fails (returns -EBADMSG and sets
 * err) instead of reading past the end; once err is set all gets fail. */
struct zcur {
	const uint8_t *p, *end;
	int err;
};

void zcur_init(struct zcur *c, const void *p, size_t n);
static inline size_t zcur_left(const struct zcur *c) { return (size_t)(c->end - c->p); }
int zcur_u8(struct zcur *c, uint8_t *v);
int zcur_u32le(struct zcur *c, uint32_t *v);
int zcur_u64le(struct zcur *c, uint64_t *v);
int zcur_uv_slow(struct zcur *c, uint64_t *v);
/* LEB128 varints; the one-byte case inline (most deltas). */
static inline int zcur_uv(struct zcur *c, uint64_t *v)
{
	*v = 0;
	if (!c->err && c->p < c->end && !(*c->p & 0x80)) {
		*v = *c->p++;
		return 0;
	}
	return zcur_uv_slow(c, v);
}
static inline int zcur_sv(struct zcur *c, int64_t *v)
{
	uint64_t u = 0;
	int r = zcur_uv(c, &u);

	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return r;
}
/* A uv that must fit 32 bits (pids, counts, ids). */
int zcur_uv32(struct zcur *c, uint32_t *v);
/* base + d (a decoded delta), which must land in [0, limit]: 0, or -EBADMSG. */
int zt_delta_u32(uint32_t base, int64_t d, uint64_t limit, uint32_t *v);
/* uv-length-prefixed bytes; *p points into the cursor's memory. */
int zcur_bytes(struct zcur *c, const uint8_t **p, size_t *n);
/* uv-length-prefixed string copied to a new NUL-terminated heap string
 * (embedded NULs rejected); caller frees. max caps the length. */
int zcur_strdup(struct zcur *c, char **s, size_t max);
int zcur_raw(struct zcur *c, void *dst, size_t n);

#endif
