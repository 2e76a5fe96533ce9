/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hard memory cap of libztcupti.so: every buffer the library holds for
 * longer than a call (pending records, per-thread launch rings, tables,
 * activity buffers lent to CUPTI, PC-sampling buffers) is
 * taken from one budget first. Over the cap a record is dropped and
 * counted (mem_dropped), never waited for and never fatal. Cubins are not
 * held: they are written to the file where CUPTI lends them (zc_cubin).
 */
#ifndef ZT_CUPTI_MEM_H
#define ZT_CUPTI_MEM_H

#include <stdatomic.h>
#include <stddef.h>

struct zc_mem {
	_Atomic size_t used; /* bytes taken */
	_Atomic size_t peak; /* the most ever taken */
	size_t cap;	     /* bytes */
};

/* Take n bytes from the budget: 1, or 0 when they would exceed the cap. */
static inline int zc_mem_take(struct zc_mem *m, size_t n)
{
	size_t u = atomic_load_explicit(&m->used, memory_order_relaxed), p;

	do {
		if (n > m->cap || u > m->cap - n)
			return 0;
	} while (!atomic_compare_exchange_weak_explicit(&m->used, &u, u + n, memory_order_relaxed,
							memory_order_relaxed));
	u += n;
	p = atomic_load_explicit(&m->peak, memory_order_relaxed);
	while (u > p && !atomic_compare_exchange_weak_explicit(
				&m->peak, &p, u, memory_order_relaxed, memory_order_relaxed))
		;
	return 1;
}

/* Give back n bytes taken before. */
static inline void zc_mem_give(struct zc_mem *m, size_t n)
{
	atomic_fetch_sub_explicit(&m->used, n, memory_order_relaxed);
}

#endif
