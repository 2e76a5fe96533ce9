/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SQLite store of zt serve (server/sqlstore.c, with its symbol files in
 * server/symfiles.c): the catalogue DIR/zt.db (WAL) of profiles, their
 * per-stack aggregates, tokens and symbols; the recordings as received
 * under DIR/profiles; the symbol files under DIR/symbols (server/store.h
 * has the layout) with their remote seam (server/blobstore.h); the
 * in-memory tables of frames and stacks, the read connections and the
 * aggregate cache the queries read.
 *
 * Below the store interface (server/store.c), the way server/chstore.h is
 * the ClickHouse side: store.c opens it, answers tokens and symbols
 * through it always, and profiles through it when there is no ClickHouse
 * (with ClickHouse, mem caches the frames and stacks ClickHouse holds,
 * added by store.c). The queries (server/query.c) read its tables and
 * aggregates; the symbolizer cache (server/symcache.h) reads its symbol
 * files and stores what it fetches. It calls nothing above it: a
 * replacement of symbols is told through the drop hook (zs_sql_on_drop).
 *
 * Thread safety, errors and msg buffers as server/store.h says: every
 * function may be called from any thread at once; writes are serialized
 * inside (the writer's lock), reads run side by side.
 */
#ifndef ZT_SERVER_SQLSTORE_H
#define ZT_SERVER_SQLSTORE_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>

#include "libprof/htab.h"
#include "libprof/profile.h"
#include "libprof/zbuf.h"
#include "server/norm.h"
#include "server/store.h"

struct zs_sql;

/* Open (creating when needed) the SQLite store in dir with o's limits,
 * remote and debuginfod setting: the catalogue, mem (nothing of the
 * file's frames and stacks with o->clickhouse) and the tokens; DIR/tmp
 * emptied unless o->admin_only. 0 or a negative errno with msg filled. */
int zs_sql_open(const char *dir, const struct zs_store_opts *o, struct zs_sql **out, char *msg,
		size_t msglen);
/* Before serving (never with admin_only: a running server owns the
 * uploads and files in progress): remove the recordings and symbol files
 * without a catalogue row (never acknowledged), count the symbol bytes,
 * and watch for tokens made or revoked by another process. */
void zs_sql_start(struct zs_sql *q);
void zs_sql_close(struct zs_sql *q); /* accepts NULL */

/* Told after id's symbols were replaced (an upload, a newer GSYM from the
 * remote), outside the writer's lock: whoever keeps what was resolved
 * with them forgets it. Set once, before any other thread uses q; NULL:
 * nobody. zs_sql_drop calls it (server/symfiles.c's uploads). */
typedef void zs_sql_drop_fn(void *ctx, const struct prof_build_id *bid);
void zs_sql_on_drop(struct zs_sql *q, zs_sql_drop_fn *fn, void *ctx);
void zs_sql_drop(struct zs_sql *q, const struct prof_build_id *bid);

/* ---- tokens (server/store.h's zs_token_* on this store) -------------------- */

int zs_sql_token_create(struct zs_sql *q, unsigned scopes, const char *name, const char *project,
			char out[65]);
int zs_sql_token_import(struct zs_sql *q, unsigned scopes, const char *name, const char *project,
			const char *token,
			size_t len);
unsigned zs_sql_token_check(struct zs_sql *q, const char *token, size_t len,
			    char project[ZS_PROJECT_MAX + 1]);
int zs_sql_project_create(struct zs_sql *q, const char *name);
int zs_sql_project_known(struct zs_sql *q, const char *name);
int zs_sql_project_list(struct zs_sql *q, zs_project_fn *cb, void *ctx);
size_t zs_sql_token_count(struct zs_sql *q);
int zs_sql_token_list(struct zs_sql *q, zs_token_fn *cb, void *ctx);
int zs_sql_token_revoke(struct zs_sql *q, const char *name_or_id, zs_token_fn *cb, void *ctx);

/* ---- profiles ---------------------------------------------------------------- */

/* Store the normalized n of body, id r->id (its sha256, set by the
 * caller), with these labels (checked by the caller): the recording
 * renamed from tmp (synced by the caller; NULL: body written to a file
 * here) into DIR/profiles, its frames, stacks, aggregate and labels in
 * one transaction, mem extended. The same id again: its labels added
 * (r->labels_added; -EINVAL with msg past ZS_MAX_LABELS). Fills r's
 * samples and stored; msg says why on failure. */
int zs_sql_ingest(struct zs_sql *q, const struct zs_norm *n, const void *body, size_t len,
		  const char *tmp, const struct zs_label *labels, size_t nr_labels,
		  struct zs_ingest_result *r, char *msg, size_t msglen);
/* Delete a profile (row, labels, file, cached aggregate). 0, -ENOENT. */
int zs_sql_profile_delete(struct zs_sql *q, const char *id);
/* Delete the profiles of days before today - days (zs_store_retention). */
int zs_sql_retention(struct zs_sql *q, unsigned days, unsigned *dropped, char *msg, size_t msglen);
/* st's symbols, and with profiles its profiles, samples and bytes. */
void zs_sql_stats(struct zs_sql *q, int profiles, struct zs_store_stats *st);
/* A profile id: 64 lowercase hex digits. */
int zs_profile_id_ok(const char *id);
/* The build ids of n's frames as the catalogue keeps them: hex,
 * space-separated (malloc'ed; NULL: no memory). */
char *zs_norm_bids_text(const struct zs_norm *n);
/* The catalogue's host: the recording's, else a "host" label's. */
const char *zs_profile_host(const struct zs_norm *n, const struct zs_label *labels,
			    size_t nr_labels);

/* ---- symbols (server/store.h's zs_symbol* and zs_symfile* on this store) ---- */

int zs_sql_symbols_below(struct zs_sql *q, const char *text, size_t len, int want, struct zbuf *out,
			 char *msg, size_t msglen);
int zs_sql_symbol_stat(struct zs_sql *q, const char *id, char etag[65]);
/* The quality of id's GSYM (server/symq.h), -ENOENT when it has none,
 * -EINVAL, -EIO. */
int zs_sql_symbol_quality(struct zs_sql *q, const char *id);
int zs_sql_symbol_get(struct zs_sql *q, const char *id, void **data, size_t *len);
/* zs_symbol_put_file: cached frames of id dropped (the drop hook). */
int zs_sql_symbol_put(struct zs_sql *q, const char *id, const char *tmp_path,
		      const struct zs_symbol_meta *m, int only_better, struct zs_symbol_put *r,
		      char *msg, size_t msglen);
/* The same without the drop, m->quality taken as it is (0..2): for the
 * symbolizer cache itself, storing what it made or fetched (it holds its
 * lock). */
int zs_sql_symbol_put_nodrop(struct zs_sql *q, const char *id, const char *tmp_path,
			     const struct zs_symbol_meta *m, int only_better,
			     struct zs_symbol_put *r, char *msg, size_t msglen);
int zs_sql_symfile_admit(struct zs_sql *q, const char *id, enum zs_kind kind, const char *src,
			 uint64_t size, uint64_t *limit, const char **limit_opt, char *msg,
			 size_t msglen);
int zs_sql_symfile_put(struct zs_sql *q, const char *id, enum zs_kind kind, const char *src,
		       const char *tmp_path, int only_new, int *created, char *msg, size_t msglen);
int zs_sql_symfile_open(struct zs_sql *q, const char *id, enum zs_kind kind, const char *src,
			struct zs_symfile *f);
unsigned zs_sql_symfile_has(struct zs_sql *q, const char *id);
int zs_sql_symfile_upstream(struct zs_sql *q, const char *id, enum zs_kind kind, const char *src);

/* ---- what the queries read ----------------------------------------------------- */

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

const struct zs_mem *zs_mem_rdlock(struct zs_sql *q);
void zs_mem_unlock(struct zs_sql *q);

/* A read connection (from a pool), given back with zs_db_put. 0 or -EIO. */
int zs_db_get(struct zs_sql *q, sqlite3 **db);
void zs_db_put(struct zs_sql *q, sqlite3 *db);

/* The aggregate of profile rid: (stack id, count, weight) a stack, as
 * deltas of stack ids and varints; or with timed, its samples by time
 * and process (server/tagg.h), where the row has them (a row of an older
 * zt has not: fn then gets the aggregate, with timed 0). Handed to fn
 * (valid during the call only). Cached in memory. 0, -ENOENT, -EIO,
 * -ENOMEM. */
int zs_agg_visit(struct zs_sql *q, sqlite3 *db, int64_t rid, int timed,
		 void (*fn)(void *ctx, const uint8_t *agg, size_t len, int timed), void *ctx);

/* Decode the next (stack, count, weight) of an aggregate. 0, or -EBADMSG
 * at the end or on damage. */
struct zs_agg_cur {
	const uint8_t *p, *end;
	uint64_t stack;
};
int zs_agg_next(struct zs_agg_cur *c, uint64_t *stack, uint64_t *count, uint64_t *weight);

/* Append to mem a frame key, or a stack of mem frame ids (leaf first):
 * for ClickHouse's frames and stacks, which mem caches under their mem
 * ids. The caller holds the writer's lock (zs_sql_wlock). The new mem id,
 * or -ENOMEM. */
long zs_mem_add_frame(struct zs_sql *q, const uint8_t *key, size_t len);
long zs_mem_add_stack(struct zs_sql *q, const uint32_t *frames, size_t n);

/* The store's directories. */
const char *zs_sql_dir(const struct zs_sql *q);
const char *zs_sql_symdir(const struct zs_sql *q); /* DIR/symbols */
const char *zs_sql_tmpdir(const struct zs_sql *q); /* DIR/tmp */
/* The largest decoded body an ingest takes (zs_store_opts.max_body). */
uint64_t zs_sql_max_body(const struct zs_sql *q);

/* ---- between sqlstore.c and symfiles.c ------------------------------------- */

/* The writer's lock and connection (use the connection under the lock). */
pthread_mutex_t *zs_sql_wlock(struct zs_sql *q);
sqlite3 *zs_sql_wdb(struct zs_sql *q);
const struct zs_remote *zs_sql_remote(const struct zs_sql *q); /* NULL: none */
int zs_sql_upstream(const struct zs_sql *q);		       /* debuginfod on */
/* Whether path is a file right inside DIR/tmp (what a put may take over). */
int zs_sql_tmp_ok(const struct zs_sql *q, const char *path);
/* A file right inside DIR/tmp, mapped (zs_ingest_file's upload). 0,
 * -EINVAL (not such a file), or zt_image_open's error. */
struct zt_image;
int zs_sql_map_tmp(struct zs_sql *q, const char *tmp_path, struct zt_image *img);
/* A SQLite failure as a negative errno (-ENOSPC, -EDQUOT, -ENOMEM, -EIO). */
int zs_db_error(sqlite3 *db, int rc);
/* The relative key of a symbol file (server/blobstore.h). 0, -EINVAL, -ENAMETOOLONG. */
int zs_symfile_key(const char *hex, enum zs_kind kind, const char *src, char *key, size_t n);
/* The remote seam: with no remote, put is a no-op, has says 0 and get
 * -ENOENT. put: 0 or -EREMOTEIO (msg set); get: a new file in DIR/tmp
 * (its path in tmp) with the object, 0, -ENOENT or -EREMOTEIO. */
int zs_remote_put(struct zs_sql *q, const char *key, const char *path, char *msg, size_t n);
int zs_remote_has(struct zs_sql *q, const char *key);
int zs_remote_get(struct zs_sql *q, const char *key, char *tmp, size_t n);
/* The GSYM of id opened (zs_sql_symfile_open's gsym kind). */
int zs_symbol_open(struct zs_sql *q, const char *id, struct zs_symfile *f);
/* Make sure id's GSYM is in DIR when the remote has it (the symbolizer
 * reads DIR). Called with the symbol cache's lock held: never drops. */
void zs_symbol_fetch_remote(struct zs_sql *q, const char *hex);
/* A GSYM made of the debug file (else the executable) the store keeps for
 * hex, fetched first from the debuginfod upstreams when it has none and
 * debuginfod is set; kept in the store when hex has no GSYM or a worse
 * one. 0 when stored, else a negative errno (-ENOENT: no file to make it
 * of; -EEXIST: hex's GSYM is as good). Called with the symbol cache's lock
 * held: the store's put does not drop. (An upload of a debug file, or an
 * executable with DWARF, for an id whose GSYM is below full makes one too,
 * and drops.) */
int zs_symbol_make(struct zs_sql *q, const char *hex, int debuginfod);
/* The local path of id's file of kind when it is stored (malloc'ed), or
 * NULL: for the symbolizer, which makes a GSYM of a stored debug file. */
char *zs_symfile_local_path(struct zs_sql *q, const char *hex, enum zs_kind kind);
/* The symbol store's limits (zs_store_opts, defaults applied; store 0:
 * none) and the bytes of every symbol file, GSYM included (counted at
 * open; changed under the writer's lock by zs_sql_symbytes_add, read
 * at any time). */
struct zs_symlimits {
	uint64_t max_body, source_size, sources, per_id, store;
};
const struct zs_symlimits *zs_sql_symlimits(const struct zs_sql *q);
uint64_t zs_sql_symbytes(struct zs_sql *q);
void zs_sql_symbytes_add(struct zs_sql *q, int64_t delta);
/*
 * Whether id (hex) may have a file of kind of size bytes (0: unknown),
 * replacing one of replaced bytes (0: a new file), as an upload, reading
 * db: 0 with the most it may have in *limit and the option that sets it
 * in *opt; -EFBIG with msg naming the limit; -EIO. Under the writer's
 * lock (db its connection) when the answer is final.
 */
int zs_symfile_room(struct zs_sql *q, sqlite3 *db, const char *hex, enum zs_kind kind,
		    uint64_t size, int is_new, uint64_t replaced, uint64_t *limit, const char **opt,
		    char *msg, size_t msglen);

/* Remove symbol files without a catalogue row (at open). */
void zs_symfiles_orphans(struct zs_sql *q, sqlite3 *db);

/* fsync() a directory (after a rename into it), a file. 0 or -errno. */
int zs_fsync_dir(const char *dir);
int zs_fsync_path(const char *path);


#endif
