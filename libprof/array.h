/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growth of heap arrays, checked for overflow: the one helper every module uses. */
#ifndef ZT_ARRAY_H
#define ZT_ARRAY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h> /* memcpy, in ZT_DEFINE_MERGE_SORT */

/* Make *arr (elements of size sz, *cap of them allocated) hold at least
 * need elements, doubling. Returns 0 or -ENOMEM (then *arr is unchanged). */
int zt_grow(void **arr, size_t *cap, size_t need, size_t sz);

/* zt_grow with the room check inline: most calls (one per element added)
 * find room and return at once, without a call. */
static inline int zt_grow_fast(void **arr, size_t *cap, size_t need, size_t sz)
{
	return need <= *cap ? 0 : zt_grow(arr, cap, need, sz);
}

/* ZT_GROW(ptr, cap, need): zt_grow for a typed pointer. */
#define ZT_GROW(ptr, cap, need) zt_grow_fast((void **)&(ptr), &(cap), (need), sizeof(*(ptr)))

/* In n elements of size sz sorted by the uint64_t at byte offset off of
 * each, the number of leading ones whose value is <= key: the last such
 * element (the one "covering" key, for address tables) is at result - 1. */
size_t zt_upper_bound_u64(const void *base, size_t n, size_t sz, size_t off, uint64_t key);

/* ZT_UPPER_BOUND(arr, n, field, key): the same for a typed array. */
#define ZT_UPPER_BOUND(arr, n, field, key)                                                     \
	zt_upper_bound_u64((arr), (n), sizeof(*(arr)), offsetof(__typeof__(*(arr)), field), (key))

/*
 * ZT_DEFINE_MERGE_SORT(name, type, before) defines
 *   static type *name(type *src, type *tmp, size_t n)
 * a stable natural merge sort of src[0..n) (n >= 1) by before(a, b): a
 * sorts strictly before b. Runs already in order are merged pairwise, so
 * rows that come as a few sorted sequences cost a few passes. tmp holds n
 * elements; the result is in whichever buffer is returned (src or tmp).
 */
#define ZT_DEFINE_MERGE_SORT(name, type, before)                                             \
	static type *name(type *src, type *dst, size_t n)                                     \
	{                                                                                     \
		size_t runs;                                                                  \
                                                                                              \
		do {                                                                          \
			size_t i = 0;                                                         \
			type *swap;                                                           \
                                                                                              \
			for (runs = 0; i < n; runs++) {                                       \
				size_t m = i + 1, e, a = i, b, k = i;                         \
                                                                                              \
				while (m < n && !before(&src[m], &src[m - 1]))                \
					m++;                                                  \
				for (e = m < n ? m + 1 : n; e < n && !before(&src[e], &src[e - 1]); e++) \
					;                                                     \
				for (b = m; a < m && b < e;)                                  \
					dst[k++] = before(&src[b], &src[a]) ? src[b++] : src[a++]; \
				memcpy(dst + k, src + a, (m - a) * sizeof(*src));             \
				k += m - a;                                                   \
				memcpy(dst + k, src + b, (e - b) * sizeof(*src));             \
				i = e;                                                        \
			}                                                                     \
			swap = src;                                                           \
			src = dst;                                                            \
			dst = swap;                                                           \
		} while (runs > 1);                                                           \
		return src;                                                                   \
	}

#endif
