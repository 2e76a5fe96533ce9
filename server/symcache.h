/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The symbolizer cache of zt serve: the frames a query shows for each
 * stored frame (server/norm.h's keys, by mem id: server/sqlstore.h),
 * symbolized once from the store's symbols and kept until the symbols of
 * their build id are replaced (zs_symcache_drop, which the store calls
 * through its drop hook).
 *
 * Symbols come from the store's directory (the GSYM cache layout), made
 * from a stored debug file or executable when there is no GSYM, and with
 * debuginfod fetched from the upstreams and stored through the store
 * (zs_sql_symbol_put_nodrop: the cache holds its lock then). It reads and
 * writes the SQLite store (server/sqlstore.h) and nothing above it; the
 * store interface (server/store.c) owns it, the queries
 * (server/query.c) read it.
 *
 * Thread safety: any thread; frames handed out by zs_symcache_fill stay
 * valid until zs_symcache_unlock.
 */
#ifndef ZT_SERVER_SYMCACHE_H
#define ZT_SERVER_SYMCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"
#include "server/sqlstore.h"

/* A frame as shown: name, module, kind (enum flame_kind), and its own
 * position in the source (the line of the address in the innermost frame,
 * of the call in the others: libprof/frametab.h's dir/file/line). */
struct zs_dframe {
	char *name;
	const char *module; /* points into name's allocation */
	const char *file;   /* the source path (zt_src_path()), in name's allocation; "": unknown */
	uint32_t line;      /* 0: unknown */
	uint8_t kind;
	uint8_t root;
	/* made once with the frame, for the queries' tables: zt_hash_mix of
	 * zt_hash_str(name) and zt_hash_str(module); zt_hash_str(file) */
	uint64_t hash, file_hash;
};

/* The shown frames of one stored frame (innermost first), and the build
 * id whose symbols gave them (len 0: none). */
struct zs_symframes {
	struct prof_build_id bid;
	unsigned n;
	struct zs_dframe f[];
};

struct zs_symcache;

/* Symbols from symdir (the GSYM cache layout, DIR/symbols of s), then,
 * with debuginfod, fetched from the debuginfod servers and stored through
 * s. 0 or -ENOMEM. */
int zs_symcache_new(struct zs_sql *s, const char *symdir, int debuginfod, struct zs_symcache **out);
void zs_symcache_free(struct zs_symcache *c); /* accepts NULL */
/* Forget what was resolved with bid's symbols (they were replaced). */
void zs_symcache_drop(struct zs_symcache *c, const struct prof_build_id *bid);

/*
 * Symbolize the frames marked in need[0 .. nr) (mem frame ids; m read-
 * locked by the caller) and return with the cache read-locked, every one
 * of them in (*frames)[id], until zs_symcache_unlock. 0 or -ENOMEM (not
 * locked).
 */
int zs_symcache_fill(struct zs_symcache *c, const struct zs_mem *m, const uint8_t *need, size_t nr,
		     struct zs_symframes *const **frames);
void zs_symcache_unlock(struct zs_symcache *c);

/* Counters for /metrics: frames symbolized, and found symbolized already. */
void zs_symcache_counts(struct zs_symcache *c, uint64_t *symbolized, uint64_t *hits);

#endif
