/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Between server/store.c and server/query.c only: the store's in-memory
 * tables of frames and stacks, its read connections, the per-profile
 * aggregate cache, and the symbolizer cache query.c keeps for the store.
 */
#ifndef ZT_SERVER_STOREINT_H
#define ZT_SERVER_STOREINT_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>

#include "libprof/htab.h"
#include "libprof/profile.h"
#include "libprof/zbuf.h"
#include "server/store.h"

/*
 * Every frame key and stack the store holds, by id (the SQLite rowids of
 * frames and stacks): frame i's key is keys[key_off[i] .. key_off[i+1]),
 * stack i's frames (leaf first, the thread root last) are
 * sfr[soff[i] .. soff[i+1]). Appended by ingest only; read under the
 * store's lock (zs_mem_rdlock).
 */
struct zs_mem {
	struct zbuf keys;
	uint64_t *key_off;
	size_t nr_frames, cap_koff;
	struct zt_htab fhash;
	uint32_t *sfr;
	size_t nr_sfr, cap_sfr;
	uint64_t *soff;
	size_t nr_stacks, cap_soff;
	struct zt_htab shash;
};

const struct zs_mem *zs_mem_rdlock(struct zs_store *s);
void zs_mem_unlock(struct zs_store *s);

/* A read connection (from a pool), given back with zs_db_put. 0 or -EIO. */
int zs_db_get(struct zs_store *s, sqlite3 **db);
void zs_db_put(struct zs_store *s, sqlite3 *db);

/* The aggregate of profile rid: (stack id, count, weight) a stack, as
 * deltas of stack ids and varints; handed to fn (valid during the call
 * only). Cached in memory. 0, -ENOENT, -EIO, -ENOMEM. */
int zs_agg_visit(struct zs_store *s, sqlite3 *db, int64_t rid,
		 void (*fn)(void *ctx, const uint8_t *agg, size_t len), void *ctx);

/* Decode the next (stack, count, weight) of an aggregate. 0, or -EBADMSG
 * at the end or on damage. */
struct zs_agg_cur {
	const uint8_t *p, *end;
	uint64_t stack;
};
int zs_agg_next(struct zs_agg_cur *c, uint64_t *stack, uint64_t *count, uint64_t *weight);

/* The store's directories. */
const char *zs_store_dir(const struct zs_store *s);
const char *zs_store_symdir(const struct zs_store *s); /* DIR/symbols */

/* Counters for /metrics. */
void zs_store_count(struct zs_store *s, uint64_t symbolized, uint64_t hits);

/* ---- the symbolizer cache (server/query.c) ---------------------------------- */

struct zs_symcache;

/* Symbols from symdir (the GSYM cache layout), then, with debuginfod,
 * fetched from the debuginfod servers and stored through s
 * (zs_symbol_put_nodrop). */
int zs_symcache_new(struct zs_store *s, const char *symdir, int debuginfod,
		    struct zs_symcache **out);
void zs_symcache_free(struct zs_symcache *c);
/* Forget what was resolved with bid's symbols (they were replaced). */
void zs_symcache_drop(struct zs_symcache *c, const struct prof_build_id *bid);
struct zs_symcache *zs_store_symcache(struct zs_store *s);

/* zs_symbol_put_file without dropping cached frames: for the symbol
 * cache itself, storing what it fetched (it holds its lock). */
int zs_symbol_put_nodrop(struct zs_store *s, const char *id, const char *tmp_path,
			 const struct zs_symbol_meta *m, int only_new, int *created, char *msg,
			 size_t msglen);

/* Hex (2..40 digits, even) to a build id. 0 or -EINVAL. */
int zs_hex_to_bid(const char *hex, size_t n, struct prof_build_id *b);

#endif
