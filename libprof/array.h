/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growth of heap arrays, checked for overflow: the one helper every module uses. */
#ifndef ZT_ARRAY_H
#define ZT_ARRAY_H

#include <stddef.h>

/* Make *arr (elements of size sz, *cap of them allocated) hold at least
 * need elements, doubling. Returns 0 or -ENOMEM (then *arr is unchanged). */
int zt_grow(void **arr, size_t *cap, size_t need, size_t sz);

/* ZT_GROW(ptr, cap, need): zt_grow for a typed pointer. */
#define ZT_GROW(ptr, cap, need) zt_grow((void **)&(ptr), &(cap), (need), sizeof(*(ptr)))

#endif
