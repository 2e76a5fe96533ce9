/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growth of heap arrays, checked for overflow: the one helper every module uses. */
#ifndef ZT_ARRAY_H
#define ZT_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/* Make *arr (elements of size sz, *cap of them allocated) hold at least
 * need elements, doubling. Returns 0 or -ENOMEM (then *arr is unchanged). */
int zt_grow(void **arr, size_t *cap, size_t need, size_t sz);

/* ZT_GROW(ptr, cap, need): zt_grow for a typed pointer. */
#define ZT_GROW(ptr, cap, need) zt_grow((void **)&(ptr), &(cap), (need), sizeof(*(ptr)))

/* In n elements of size sz sorted by the uint64_t at byte offset off of
 * each, the number of leading ones whose value is <= key: the last such
 * element (the one "covering" key, for address tables) is at result - 1. */
size_t zt_upper_bound_u64(const void *base, size_t n, size_t sz, size_t off, uint64_t key);

/* ZT_UPPER_BOUND(arr, n, field, key): the same for a typed array. */
#define ZT_UPPER_BOUND(arr, n, field, key)                                                     \
	zt_upper_bound_u64((arr), (n), sizeof(*(arr)), offsetof(__typeof__(*(arr)), field), (key))

#endif
