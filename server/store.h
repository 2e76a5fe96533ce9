/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The store interface of zt serve: what cmd/serve.c, server/httpd.c and
 * server/route.c call, whichever store holds the profiles. server/store.c
 * answers it from the SQLite store (server/sqlstore.h: a SQLite
 * catalogue (WAL) of profiles, their per-stack aggregates, tokens and
 * symbols, plus a directory of the recordings as received and a GSYM
 * symbol store in the local GSYM cache's layout, so the symbolizer reads
 * it as it reads its own cache), or for profiles from ClickHouse
 * (server/chstore.h: zs_store_opts.clickhouse), tokens and symbols staying
 * in SQLite. The queries (server/query.c) sit above it.
 *
 *   DIR/zt.db, DIR/profiles/ab/<id>.zt, DIR/symbols/gsym/<id>.{gsym,meta}, DIR/tmp/
 *   DIR/symbols/debuginfo/<id>.debug, DIR/symbols/executable/<id>,
 *   DIR/symbols/source/<id>/<sha256 of the path>{,.path}
 *
 * Symbol files of every kind go through the remote seam of
 * server/blobstore.h when the store has a remote (zs_store_opts.remote).
 *
 * Profiles are stored unsymbolized (addresses with build ids, see
 * server/norm.h) and symbolized when queried (server/query.c, through
 * server/symcache.h).
 *
 * Thread safety: every function may be called from any thread at once
 * (libmicrohttpd's pool); writes are serialized inside, reads run side by
 * side. Errors are negative errnos; where a msg buffer is given it gets a
 * sentence for the user ("not a zt.data or pprof file", ...).
 */
#ifndef ZT_SERVER_STORE_H
#define ZT_SERVER_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "libprof/zbuf.h"
#include "server/selector.h"
#include "server/token.h"

struct zs_store;
struct zs_remote;
struct zs_ch_opts;

/* The sentence of this thread's last store error a call without a msg
 * buffer returned (a query's: "cannot reach ClickHouse at ..."), or "". */
const char *zs_store_error(void);

/* The kinds of symbol files the store keeps for an id (build id or file id). */
enum zs_kind {
	ZS_KIND_GSYM = 0,   /* symbols/gsym/<id>.gsym (+ .meta) */
	ZS_KIND_DEBUGINFO,  /* symbols/debuginfo/<id>.debug: ELF with DWARF */
	ZS_KIND_EXECUTABLE, /* symbols/executable/<id>: ELF */
	ZS_KIND_SOURCE,	    /* symbols/source/<id>/<sha256 of the path> (+ .path) */
	ZS_NR_KINDS
};

/* The symbol store's limits on uploads (zs_store_opts; 0: these defaults) */
#define ZS_DEFAULT_MAX_SOURCE_SIZE    (64ull << 20) /* one source file */
#define ZS_DEFAULT_MAX_SOURCES	      65536	    /* source files of one build id */
#define ZS_DEFAULT_MAX_SYMBOLS_PER_ID (4ull << 30)  /* every file of one build id */

struct resolve_source;

struct zs_store_opts {
	/* ask debuginfod for build ids the store has no symbols for: the
	 * servers and the client's cache are the process's libdebuginfod
	 * configuration, which the caller sets before any thread starts
	 * (zt_debuginfod_configure(), symbolizer/debuginfod.h); the store
	 * never touches the environment. 0: never ask. */
	int debuginfod;
	uint64_t max_body; /* largest decoded body accepted (0: 512 MiB) */
	/* uploads of symbol files (zt serve --max-source-size, --max-sources,
	 * --max-symbols-per-id; 0: the defaults above) and the bytes of every
	 * symbol file together (--max-symbol-store; 0: no limit). What the
	 * server fetches itself (debuginfod upstreams, the remote) is not
	 * refused, but counts. */
	uint64_t max_source_size, max_sources, max_symbols_per_id, max_symbol_store;
	/* for token administration beside a running server (zt serve token):
	 * no recovery (tmp/ and recordings without a row belong to the
	 * server's ingests in progress), no symbols; tokens only */
	int admin_only;
	/* a remote copy of the symbol store (server/blobstore.h; borrowed,
	 * must outlive the store); NULL: DIR/symbols alone */
	const struct zs_remote *remote;
	/* keep profiles in ClickHouse (server/chstore.h; borrowed, for the
	 * open only); NULL: in DIR's SQLite catalogue */
	const struct zs_ch_opts *clickhouse;
	/* frame sources of the ingests besides the recording's own kernel
	 * and JIT names (symbolizer/resolve.h: a new kind of frame is one of
	 * these; borrowed, must outlive the store) */
	const struct resolve_source *sources;
	size_t nr_sources;
};

/* Open (creating when needed) the store in dir. Empties dir/tmp and
 * removes recordings that have no catalogue row (never acknowledged).
 * Returns 0 or a negative errno with msg filled. */
int zs_store_open(const char *dir, const struct zs_store_opts *o, struct zs_store **out,
		  char *msg, size_t msglen);
void zs_store_close(struct zs_store *s); /* accepts NULL */

/* ---- tokens ---------------------------------------------------------------- */

/* scopes and names: server/token.h */

/* A new random token (32 bytes, shown as 64 hex digits: out has 65 bytes)
 * with these scopes and a name (NULL: none); only its SHA-256 is stored.
 * -EINVAL (bad scopes or name), -ENOTUNIQ (a token has that name). */
int zs_token_create(struct zs_store *s, unsigned scopes, const char *name, char out[65]);
/* The same, the token of one project (NULL or "": of every project);
 * -ENOENT: no such project (zs_project_create). */
int zs_token_create_in(struct zs_store *s, unsigned scopes, const char *name, const char *project,
		       char out[65]);
/* The same with a token given (from another instance: every zt serve on a
 * shared ClickHouse takes the same token): 16 to 1024 printable
 * characters, no blank. -EINVAL, -EEXIST (that token is there already),
 * -ENOTUNIQ (another token has that name). */
int zs_token_import(struct zs_store *s, unsigned scopes, const char *name, const char *token,
		    size_t len);
int zs_token_import_in(struct zs_store *s, unsigned scopes, const char *name, const char *project,
		       const char *token, size_t len);
/* The scopes of a presented token (0: unknown): compared in constant time
 * against every stored hash, from memory. Tokens made or revoked by
 * another process are seen within a second (the catalogue's
 * data_version, asked at most once a second). */
unsigned zs_token_check(struct zs_store *s, const char *token, size_t len);
/* The same, and the token's project into project ("": every project). */
unsigned zs_token_check_in(struct zs_store *s, const char *token, size_t len,
			   char project[ZS_PROJECT_MAX + 1]);
/* Number of tokens. */
size_t zs_token_count(struct zs_store *s);
/* A token as listed: its name ("" for none; a catalogue of an older zt
 * may hold names with any bytes: escape them before they are shown), its
 * scopes, the first 8 hex digits of its hash (its id), created (Unix s). */
typedef void zs_token_fn(void *ctx, const char *name, unsigned scopes, const char *hash8,
			 int64_t created, const char *project);
/* Each token, oldest first. */
int zs_token_list(struct zs_store *s, zs_token_fn *cb, void *ctx);
/* Revoke the one token named name_or_id, or whose hash starts with it (8
 * to 64 lowercase hex digits). 0; -ENOENT (none); -ENOTUNIQ: several
 * match (a catalogue of an older zt may have a name twice, a name may
 * look like an id): nothing is revoked, and each is passed to cb (when
 * not NULL). */
int zs_token_revoke(struct zs_store *s, const char *name_or_id, zs_token_fn *cb, void *ctx);

/* ---- projects (server/token.h) --------------------------------------------- */

/* A new project. 0, -EINVAL (a bad name), -EEXIST, -EIO. */
int zs_project_create(struct zs_store *s, const char *name);
/* Whether project exists (the default one always does). */
int zs_project_known(struct zs_store *s, const char *name);
/* Each project, the default one first: its name, when it was made (Unix
 * s; 0 for the default), its profiles and its tokens. */
typedef void zs_project_fn(void *ctx, const char *name, int64_t created, uint64_t profiles,
			   uint64_t tokens);
int zs_project_list(struct zs_store *s, zs_project_fn *cb, void *ctx);

/* ---- ingest ---------------------------------------------------------------- */

struct zs_label {
	const char *key, *value;
};

/* A profile's labels (in the order they came) as the API's JSON object
 * appended to out: each key once, with its value, or with the array of
 * its values (in order) when a re-push gave it another (the SQLite
 * catalogue's and ClickHouse's alike). */
void zs_labels_json(struct zbuf *out, const struct zs_label *l, size_t n);

#define ZS_MAX_LABELS 64 /* a profile's labels, at most */

struct zs_ingest_result {
	char id[65];      /* sha256 of the body, hex */
	int stored;       /* 1: new, 0: the same body was stored before */
	uint64_t samples;
	/* stored 0: how many of this push's labels the stored profile did not
	 * have, added to it (a re-push adds labels, never removes any) */
	unsigned labels_added;
};

/*
 * Store the file at tmp_path (a file the caller wrote under
 * zs_store_tmpdir(); this function takes it over: it is renamed into the
 * store or removed) with these labels. Validates the whole body
 * (zt.data complete, no stack snapshots; or pprof), normalizes it, then
 * stores it durably (fsync, rename, one transaction) before returning 0.
 * The same body again is not stored twice: its labels are added to the
 * stored profile's (the union; a key may so have several values, each of
 * which selects it), r->labels_added says how many were new.
 * Errors: -EBADMSG / -EPROTONOSUPPORT (bad body: msg says why), -EMEDIUMTYPE
 * (neither zt.data nor pprof), -ENOSPC / -EDQUOT (disk full), -EINVAL (a bad
 * label, or more than 64 labels a profile, msg says), -EIO.
 */
int zs_ingest_file(struct zs_store *s, const char *tmp_path, const struct zs_label *labels,
		   size_t nr_labels, struct zs_ingest_result *r, char *msg, size_t msglen);
/* Where uploads in progress go (DIR/tmp). */
const char *zs_store_tmpdir(const struct zs_store *s);
/* The same from memory (tests, benchmarks). */
int zs_ingest_mem(struct zs_store *s, const void *body, size_t len, const struct zs_label *labels,
		  size_t nr_labels, struct zs_ingest_result *r, char *msg, size_t msglen);

/*
 * Drop the profiles of days before today - days (UTC; a profile's day is
 * the day its recording started, or it was pushed when the recording has
 * no time): ClickHouse drops whole days (partitions) on every server,
 * *dropped counting them; the embedded store deletes the profiles one by
 * one, *dropped counting profiles. 0 or an error with msg set.
 */
int zs_store_retention(struct zs_store *s, unsigned days, unsigned *dropped, char *msg,
		       size_t msglen);
/* The ClickHouse version of a store with --clickhouse, else "". */
const char *zs_store_ch_version(struct zs_store *s);

/* Whether profile id is in project (a profile pushed before projects is
 * the default project's): 0, -ENOENT (not there, or not in it). */
int zs_profile_in_project(struct zs_store *s, const char *id, const char *project);
/* The number of projects profile id is in (1 for one pushed before
 * projects); 0 when there is no such profile. */
int zs_profile_projects(struct zs_store *s, const char *id);

/* Delete a profile (row, aggregates, file). 0, -ENOENT. */
int zs_profile_delete(struct zs_store *s, const char *id);

/* ---- symbols ---------------------------------------------------------------- */

/* The quality of symbols (full, basic, none) and the rule the store keeps
 * between uploads of different qualities: server/symq.h. */

/* Of the hex ids in text (one per line), append to out those without
 * symbols, one per line. -EINVAL for a line that is not 2..40 hex digits
 * (msg says which), -E2BIG past 100000 lines. */
int zs_symbols_missing(struct zs_store *s, const char *text, size_t len, struct zbuf *out,
		       char *msg, size_t msglen);
/* The same, and with want (ZS_Q_*; -1: none) the ids whose symbols are
 * below it too, each as "ID QUALITY" ("0a1b... basic"): what a client
 * that has want-quality symbols could improve. */
int zs_symbols_below(struct zs_store *s, const char *text, size_t len, int want, struct zbuf *out,
		     char *msg, size_t msglen);
/* Whether id has symbols; etag (65 bytes) gets the sha256 of its GSYM. 0, -ENOENT, -EINVAL. */
int zs_symbol_stat(struct zs_store *s, const char *id, char etag[65]);
/* The GSYM image of id, malloc'ed. 0, -ENOENT, -EINVAL. */
int zs_symbol_get(struct zs_store *s, const char *id, void **data, size_t *len);

struct zs_symbol_meta {
	/* server/symq.h's ZS_Q_*: 0 none, 1 basic, 2 full (symmod's enum
	 * symq); -1: not said (an upload without X-ZT-Symbol-Quality) */
	int quality;
	/* the load segments (X-ZT-Symbol-Load): file offset, vaddr, size */
	struct {
		uint64_t off, vaddr, size;
	} segs[16];
	unsigned nr_segs;
	/* where they came from (the meta's "source"): NULL, "uploaded" */
	const char *source;
	/* X-ZT-Description and X-ZT-Symbol-File in their canonical escaped
	 * form (route.h's zr_pct_text), kept in the meta; NULL: none */
	const char *description, *file;
};

/* Parse "OFF:VADDR:SIZE,..." (hex, at most 16) into m. 0, -EINVAL. */
int zs_symbol_meta_parse_load(const char *s, struct zs_symbol_meta *m);

/* What a put of symbols did, or found (zs_symbol_put_file). */
struct zs_symbol_put {
	int created; /* 1: id had no symbols before */
	int quality; /* the quality stored (of the upload: see below) */
	int had;     /* the quality id's symbols had before, -1: none; with
		      * -EEXIST, the quality of those kept */
};

/*
 * Store the GSYM image at tmp_path (taken over as by zs_ingest_file) as
 * id's symbols: checked to be a valid GSYM v1 whose UUID is id. Its
 * quality is the lower of what m says (m->quality -1: nothing) and what
 * the image holds (zs_gsym_quality: a "full" upload without one file:line
 * row is stored as basic). only_better: store it only when id has no
 * symbols or worse ones (a remote's copy counts as id's), else refuse
 * (-EEXIST, msg says which were kept); 0: replace whatever id has. r (may
 * be NULL) says what was done. Cached symbolized frames of id are
 * dropped, so the profiles that used them are symbolized anew. -EBADMSG
 * (msg), -EINVAL, -EEXIST, -EFBIG (past --max-symbols-per-id or
 * --max-symbol-store, msg names it), -ENOSPC.
 */
int zs_symbol_put_file(struct zs_store *s, const char *id, const char *tmp_path,
		       const struct zs_symbol_meta *m, int only_better, struct zs_symbol_put *r,
		       char *msg, size_t msglen);

/* ---- symbol files of every kind (server/symfiles.c) ------------------------ */

/*
 * Before the body of an upload of id's file of kind (src for a source) is
 * read: whether the store takes it, and the most bytes it may have,
 * decoded, into *limit, with the zt serve option that sets that bound in
 * *limit_opt ("--max-body", "--max-source-size", "--max-symbols-per-id",
 * "--max-symbol-store"). size: the declared size (0: unknown). A debug
 * file or a source is taken only for an id the store has symbols, an
 * executable or a debug file for. 0; -ENOENT (msg: what to upload first);
 * -EFBIG (msg names the limit); -EINVAL; -EIO. zs_symfile_put and
 * zs_symbol_put_file check it all again, with the size received.
 */
int zs_symfile_admit(struct zs_store *s, const char *id, enum zs_kind kind, const char *src,
		     uint64_t size, uint64_t *limit, const char **limit_opt, char *msg,
		     size_t msglen);

/*
 * Store the file at tmp_path (taken over as by zs_ingest_file) as id's
 * debuginfo, executable or source (src: the path as route.h's zr_srcpath
 * leaves it). Checked first: debuginfo and executable are ELF files whose
 * GNU build id is id (or, without one, whose file id is id), debuginfo
 * with DWARF; a source is any file. Then synced, put to the remote (if
 * any), renamed into place and catalogued. only_new: -EEXIST when that
 * kind is stored (here or in the remote); else replace (*created tells).
 * -EBADMSG (msg says why: a bad body), -EINVAL, -EEXIST, -ENOENT (a debug
 * file or source of an id the store has nothing for), -EFBIG (past a
 * limit, msg names it: see zs_symfile_admit), -EREMOTEIO (the remote
 * refused: nothing stored), -ENOSPC, -EDQUOT, -EIO.
 */
int zs_symfile_put(struct zs_store *s, const char *id, enum zs_kind kind, const char *src,
		   const char *tmp_path, int only_new, int *created, char *msg, size_t msglen);

/* A stored symbol file, open for reading (streamed from fd). */
struct zs_symfile {
	int fd;		/* -1 when closed; zs_symfile_close() */
	uint64_t size;
	char etag[65];	/* sha256 of the file, hex */
	int dwarf;	/* an ELF file with DWARF */
	/* gsym: its meta (quality, segments; description points into desc) */
	struct zs_symbol_meta meta;
	char desc[3 * 1024 + 1];
};

/* Open id's file of kind (src for a source, as for zs_symfile_put): from
 * DIR, else from the remote (fetched, checked, kept in DIR). A GSYM kept
 * for more than 60 s is first checked against the remote's. 0, -ENOENT,
 * -EINVAL, -EREMOTEIO, -EIO. */
int zs_symfile_open(struct zs_store *s, const char *id, enum zs_kind kind, const char *src,
		    struct zs_symfile *f);
void zs_symfile_close(struct zs_symfile *f);
/* The kinds stored for id among gsym, debuginfo and executable: bits 1 << kind. */
unsigned zs_symfile_has(struct zs_store *s, const char *id);
/* Fetch id's file of kind from the debuginfod upstreams (zs_store_opts.
 * debuginfod) and store it as an upload is stored. 0 (stored, or stored
 * meanwhile), -ENOSYS (no upstream), -ENOENT, -EBADMSG, others. */
int zs_symfile_upstream(struct zs_store *s, const char *id, enum zs_kind kind, const char *src);
/* "gsym", "debuginfo", "executable", "source"; "?" for another value. */
static inline const char *zs_kind_name(enum zs_kind kind)
{
	static const char *const names[] = {"gsym", "debuginfo", "executable", "source"};

	return kind < ZS_NR_KINDS ? names[kind] : "?";
}

/* ---- selections (of the queries: server/query.h) --------------------------- */

#define ZS_SEL_MAX_IDS 4096
#define ZS_SEL_MAX_LABELS 16

/* Which profiles: every condition given must hold. Strings borrowed. */
struct zs_selection {
	const char *ids[ZS_SEL_MAX_IDS];
	size_t nr_ids;
	const char *host, *command;
	struct zs_label labels[ZS_SEL_MAX_LABELS];
	size_t nr_labels;
	/* Unix seconds; 0: open. The list takes the profiles whose time
	 * overlaps [from, to]; merges take the samples whose time bucket
	 * (server/tagg.h) does. */
	int64_t from, to;
	size_t limit;     /* list only; 0: all */
	size_t offset;    /* list only: profiles skipped first */
	/* the project whose profiles these are (NULL: every project) */
	const char *project;
	/* Prometheus matchers (server/selector.h), each of which must hold:
	 * __name__ (the profile type), host, command and the pushed labels
	 * select profiles; comm and pid select samples by their process.
	 * Owned: zs_selection_release(). */
	struct zs_selector match;
};
/* Whether a selection cuts samples (by time or process), not only profiles. */
static inline int zs_selection_cuts_samples(const struct zs_selection *sel)
{
	size_t i;

	if (sel->from || sel->to)
		return 1;
	for (i = 0; i < sel->match.n; i++)
		if (zs_matcher_is_proc(&sel->match.m[i]))
			return 1;
	return 0;
}

/* A new selection (free() it) of the one profile id (borrowed), or NULL. */
static inline struct zs_selection *zs_selection_of_id(const char *id)
{
	struct zs_selection *sel = calloc(1, sizeof(*sel));

	if (sel) {
		sel->ids[0] = id;
		sel->nr_ids = 1;
	}
	return sel;
}

/* Free what a selection owns (its matchers); it may be filled again. */
static inline void zs_selection_release(struct zs_selection *sel)
{
	zs_selector_release(&sel->match);
}


/* the queries over a selection: server/query.h */

/* ---- numbers for /metrics ----------------------------------------------------- */

struct zs_store_stats {
	uint64_t profiles, samples, bytes, symbols;
	uint64_t ingest_errors;
	uint64_t symbolized_frames, frame_cache_hits;
};
void zs_store_stats(struct zs_store *s, struct zs_store_stats *st);

#endif
