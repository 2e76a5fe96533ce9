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

/* A profile's labels (in the order they came) as the API's JSON object
 * appended to out: each key once, with its value, or with the array of
 * its values (in order) when a re-push gave it another. */
void zs_labels_json(struct zbuf *out, const struct zs_label *l, size_t n);

/* ---- ClickHouse (server/chstore.h) ----------------------------------------- */

struct zs_ch;
struct zs_ch_row;

/* The store's ClickHouse, or NULL (SQLite). */
struct zs_ch *zs_store_ch(struct zs_store *s);
/* The mem ids of the stacks of rows (UINT32_MAX: not in ClickHouse), their
 * stacks and frames read from ClickHouse into mem when not there yet. */
int zs_ch_resolve(struct zs_store *s, const struct zs_ch_row *rows, size_t n, uint32_t *local,
		  char *msg, size_t msglen);

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

/* ---- between store.c and symfiles.c ---------------------------------------- */

/* The writer's lock and connection (use the connection under the lock). */
pthread_mutex_t *zs_store_wlock(struct zs_store *s);
sqlite3 *zs_store_wdb(struct zs_store *s);
const struct zs_remote *zs_store_remote(const struct zs_store *s); /* NULL: none */
int zs_store_upstream(const struct zs_store *s);		     /* debuginfod on */
/* Whether path is a file right inside DIR/tmp (what a put may take over). */
int zs_store_tmp_ok(const struct zs_store *s, const char *path);
/* A SQLite failure as a negative errno (-ENOSPC, -EDQUOT, -ENOMEM, -EIO). */
int zs_db_error(sqlite3 *db, int rc);
/* SHA-256 of a file (read with pread) or of memory, as 64 hex digits. */
int zs_sha256_fd(int fd, char hex[65]);
int zs_sha256_text(const void *p, size_t n, char hex[65]);
/* The relative key of a symbol file (server/blobstore.h). 0, -EINVAL, -ENAMETOOLONG. */
int zs_symfile_key(const char *hex, enum zs_kind kind, const char *src, char *key, size_t n);
/* The remote seam: with no remote, put is a no-op, has says 0 and get
 * -ENOENT. put: 0 or -EREMOTEIO (msg set); get: a new file in DIR/tmp
 * (its path in tmp) with the object, 0, -ENOENT or -EREMOTEIO. */
int zs_remote_put(struct zs_store *s, const char *key, const char *path, char *msg, size_t n);
int zs_remote_has(struct zs_store *s, const char *key);
int zs_remote_get(struct zs_store *s, const char *key, char *tmp, size_t n);
/* The GSYM of id opened (zs_symfile_open's gsym kind, in store.c). */
int zs_symbol_open(struct zs_store *s, const char *id, struct zs_symfile *f);
/* Make sure id's GSYM is in DIR when the remote has it (the symbolizer
 * reads DIR). Called with the symbol cache's lock held: never drops. */
void zs_symbol_fetch_remote(struct zs_store *s, const char *hex);
/* The local path of id's file of kind when it is stored (malloc'ed), or
 * NULL: for the symbolizer, which makes a GSYM of a stored debug file. */
char *zs_symfile_local_path(struct zs_store *s, const char *hex, enum zs_kind kind);
/* The symbol store's limits (zs_store_opts, defaults applied; store 0:
 * none) and the bytes of every symbol file, GSYM included (counted at
 * open; changed under the writer's lock by zs_store_symbytes_add, read
 * at any time). */
struct zs_symlimits {
	uint64_t max_body, source_size, sources, per_id, store;
};
const struct zs_symlimits *zs_store_symlimits(const struct zs_store *s);
uint64_t zs_store_symbytes(struct zs_store *s);
void zs_store_symbytes_add(struct zs_store *s, int64_t delta);
/*
 * Whether id (hex) may have a file of kind of size bytes (0: unknown),
 * replacing one of replaced bytes (0: a new file), as an upload, reading
 * db: 0 with the most it may have in *limit and the option that sets it
 * in *opt; -EFBIG with msg naming the limit; -EIO. Under the writer's
 * lock (db its connection) when the answer is final.
 */
int zs_symfile_room(struct zs_store *s, sqlite3 *db, const char *hex, enum zs_kind kind,
		    uint64_t size, int is_new, uint64_t replaced, uint64_t *limit, const char **opt,
		    char *msg, size_t msglen);

/* Remove symbol files without a catalogue row (at open). */
void zs_symfiles_orphans(struct zs_store *s, sqlite3 *db);

/* Hex (2..40 digits, even) to a build id. 0 or -EINVAL. */
int zs_hex_to_bid(const char *hex, size_t n, struct prof_build_id *b);

/* fsync() a directory (after a rename into it). 0 or -errno. */
int zs_fsync_dir(const char *dir);

/* n bytes as 2n lowercase hex digits and a NUL into out. */
void zs_hex(const uint8_t *b, size_t n, char *out);

#endif
