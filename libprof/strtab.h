/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one string table: each distinct string gets the next id (0, 1, ...,
 * in the order first interned), and an id gives the string back. Ids are
 * what callers write to files (pprof's string_table, zt.data's GPU
 * strings), so the order is part of the contract: no removal, no
 * reordering.
 *
 * Storage is stable: the bytes of a string stay where they are until
 * zt_strtab_clear() or zt_strtab_release(), so callers may keep the
 * pointers zt_strtab_str() returns (and key memos by them). Each string is
 * stored NUL-terminated, with its length.
 *
 * Embedded: zt_strtab_init / zt_strtab_release (a zeroed struct is an
 * empty table). Not thread-safe.
 */
#ifndef ZT_STRTAB_H
#define ZT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/htab.h"

struct zt_strtab_ent {
	const char *s; /* in one of the blocks, NUL-terminated */
	uint32_t len;
	uint32_t hash;
};

struct zt_strtab {
	struct zt_strtab_ent *ents; /* ents[id]; owned */
	size_t nr, cap;
	struct zt_strtab_blk *blk; /* the blocks of bytes, newest first; owned */
	struct zt_htab idx;	   /* ents by bytes */
};

void zt_strtab_init(struct zt_strtab *t);
void zt_strtab_release(struct zt_strtab *t);
/* Empty t (the next id is 0 again); every pointer it gave is invalid. */
void zt_strtab_clear(struct zt_strtab *t);

/*
 * The id of the string s[0..len), added when new. s[0..len) holds no NUL
 * (a string's bytes and the C string read back are the same): a caller
 * with bytes from outside cuts them at the first NUL (strnlen) first. s
 * may be NULL when len is 0. 0, or -ENOMEM / -E2BIG (UINT32_MAX - 1
 * strings, or a string of 4 GiB) with t unchanged.
 */
int zt_strtab_intern(struct zt_strtab *t, const char *s, size_t len, uint32_t *id);
/* The same for a C string. */
int zt_strtab_intern_str(struct zt_strtab *t, const char *s, uint32_t *id);

/* The table's own copy of C string s (interned: equal strings, one
 * pointer), stable until clear/release. NULL with errno set on failure. */
const char *zt_strtab_ptr(struct zt_strtab *t, const char *s);

/* The number of strings: ids are 0 .. count - 1. */
static inline size_t zt_strtab_count(const struct zt_strtab *t)
{
	return t->nr;
}

/* The string of id ("" for an id out of range). Stable until clear/release. */
static inline const char *zt_strtab_str(const struct zt_strtab *t, uint32_t id)
{
	return id < t->nr ? t->ents[id].s : "";
}

/* The length of the string of id (0 out of range). */
static inline size_t zt_strtab_len(const struct zt_strtab *t, uint32_t id)
{
	return id < t->nr ? t->ents[id].len : 0;
}

#endif
