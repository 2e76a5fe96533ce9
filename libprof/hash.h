/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hashing for the open-addressing tables of every module. */
#ifndef ZT_HASH_H
#define ZT_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Fold v into h (a 64-bit mixer step). */
static inline uint64_t zt_hash_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

/* A hash of the pair (a, b). Mixing a first: zt_hash_mix(a, b) alone
 * hashes a ^ b, which collides for every pair with the same xor (group i
 * and thread i + 1, say: a handful of values for millions of pairs). */
static inline uint64_t zt_hash_pair(uint64_t a, uint64_t b)
{
	return zt_hash_mix(zt_hash_mix(0x9e3779b97f4a7c15ull, a), b);
}

/* FNV-1a of a NUL-terminated string, mixed. */
static inline uint64_t zt_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return zt_hash_mix(h, 0);
}

/* A hash of n bytes: eight at a time through zt_hash_mix(), the last
 * ones and the length folded in, mixed (keys are tens of bytes: a byte at
 * a time cost five times as much). */
static inline uint64_t zt_hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull, w;
	size_t len = n;

	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&w, b, 8);
		h = zt_hash_mix(h, w);
	}
	if (n) {
		w = 0;
		memcpy(&w, b, n);
		h = zt_hash_mix(h, w);
	}
	return zt_hash_mix(zt_hash_mix(h, len), 0);
}

#endif
