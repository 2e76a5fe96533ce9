// SPDX-License-Identifier: GPL-2.0-or-later
/* Growth of heap arrays, checked for overflow. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libprof/array.h"

/* Arrays this large are asked to live on transparent huge pages: one page
 * fault per 2 MiB instead of 512 (a fault costs microseconds, more in a
 * virtual machine: first touches of big tables were most of a cold 'zt
 * symbolize'). Only where the kernel leaves it to madvise. The advice
 * covers every page the array touches, not only its 2 MiB-aligned middle:
 * advising part of a mapping splits it in several, and the next realloc's
 * mremap, which must find one mapping, fails, so glibc falls back to
 * allocating anew and copying the whole array (a report of 290,000 samples
 * spent a tenth of its time in those copies). */
#define HUGE_ARRAY (4u << 20)

static void advise_huge(void *p, size_t len)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p & ~(pg - 1);
	uintptr_t e = ((uintptr_t)p + len + pg - 1) & ~(pg - 1);

	madvise((void *)a, e - a, MADV_HUGEPAGE);
}

int zt_grow(void **arr, size_t *cap, size_t need, size_t sz)
{
	size_t ncap = *cap ? *cap : 16;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / sz)
		return -ENOMEM;
	n = realloc(*arr, ncap * sz);
	if (!n)
		return -ENOMEM;
	if (ncap * sz >= HUGE_ARRAY)
		advise_huge(n, ncap * sz);
	*arr = n;
	*cap = ncap;
	return 0;
}

size_t zt_upper_bound_u64(const void *base, size_t n, size_t sz, size_t off, uint64_t key)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;

		memcpy(&v, b + mid * sz + off, sizeof(v));
		if (v <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
