/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interned strings in stable memory: kernel names, PC-sampling function
 * names, stall reasons. A string is copied once into append-only blocks
 * that never move, so a record can keep a plain pointer to its name while
 * the table grows on another thread, and a pending batch handed to the
 * file writer reads names without the table's lock. Everything is taken
 * from the library's memory budget.
 *
 * Not thread-safe: the owner locks. Embedded: zc_strtab_init /
 * zc_strtab_release (which frees every string).
 */
#ifndef ZT_CUPTI_STRTAB_H
#define ZT_CUPTI_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "cupti/mem.h"
#include "libprof/htab.h"

struct zc_strblk;

struct zc_str {
	const char *s; /* NUL-terminated, in a block */
	uint32_t len;
	uint64_t hash;
};

struct zc_strtab {
	struct zc_mem *mem;	  /* borrowed */
	struct zc_strblk *blocks; /* newest first */
	size_t blk_used, blk_cap; /* of the newest block */
	struct zc_str *ents;
	size_t nr, cap;
	struct zt_htab idx;
	size_t taken; /* bytes taken from mem */
};

void zc_strtab_init(struct zc_strtab *t, struct zc_mem *mem);
void zc_strtab_release(struct zc_strtab *t);

/* The interned copy of len bytes of s (a NUL inside is kept), valid until
 * zc_strtab_release(); NULL at the memory cap or when out of memory. */
const char *zc_strtab_intern(struct zc_strtab *t, const char *s, size_t len);

/* The bytes the index of t would take to grow for n more items (0 when they fit). */
size_t zc_htab_grow_bytes(const struct zt_htab *t, size_t n);

#endif
