// SPDX-License-Identifier: GPL-2.0-or-later
/* zt serve's SQLite store: catalogue, recordings, tokens, symbols (see sqlstore.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/hash.h"
#include "libprof/log.h"
#include "libprof/text.h"
#include "server/blobstore.h"
#include "server/sqlstore.h"
#include "server/symq.h"
#include "server/tagg.h"
#include "session/symstore.h"
#include "symbolizer/sha256.h"

#define DEFAULT_MAX_BODY (512ull << 20)
#define MAX_GSYM (1ull << 30)
#define POOL 8
#define BUSY_MS 10000

struct token {
	uint8_t hash[32];
	unsigned scopes;
	char *name;
	int64_t created;
	char project[ZS_PROJECT_MAX + 1]; /* "": every project */
};

struct agg_ent {
	int64_t rid; /* -1: deleted */
	uint8_t *data;
	size_t len;
	int timed; /* data is the tagg (server/tagg.h), not the agg */
};

struct zs_sql {
	char *dir, *dbpath, *tmpdir, *symdir, *gsymdir, *profdir;
	uint64_t max_body;
	struct zs_symlimits lim;
	uint64_t symbytes;	/* every symbol file's bytes: written under wlock, atomic */
	sqlite3 *wdb;           /* the writer's connection, under wlock */
	pthread_mutex_t wlock;  /* serializes every write */
	pthread_rwlock_t mlock; /* mem */
	struct zs_mem mem;
	pthread_rwlock_t tlock; /* tokens */
	struct token *tokens;
	size_t nr_tokens, cap_tokens;
	/* tokens made or revoked by another process (zt serve token, while
	 * the server runs): seen through tdb's data_version, asked at most
	 * once a second, by one thread at a time (tvlock) */
	sqlite3 *tdb;
	pthread_mutex_t tvlock;
	int64_t tver;
	uint64_t tchecked; /* CLOCK_MONOTONIC ns; atomic */
	pthread_rwlock_t alock; /* the aggregate cache */
	struct agg_ent *aggs;
	size_t nr_aggs, cap_aggs;
	struct zt_htab ahash;
	pthread_mutex_t plock; /* the read connection pool */
	sqlite3 *pool[POOL];
	size_t nr_pool;
	const struct zs_remote *remote;
	int upstream;
	zs_sql_drop_fn *drop; /* told of replaced symbols (zs_sql_on_drop) */
	void *drop_ctx;
};

int zs_profile_id_ok(const char *id)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!id[i] || !((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return 0;
	return !id[64];
}

/* A symbol id into lowercase canonical hex (out has 41 bytes). */
static int canon_sym_id(const char *id, char *out, struct prof_build_id *b)
{
	size_t n = strlen(id);

	if (prof_build_id_from_hex(id, n, b))
		return -EINVAL;
	zt_hex_encode(b->data, b->len, out);
	return 0;
}

static int db_err(sqlite3 *db, int rc)
{
	int e = db ? sqlite3_system_errno(db) : 0;

	if (rc == SQLITE_FULL || e == ENOSPC)
		return -ENOSPC;
	if (e == EDQUOT)
		return -EDQUOT;
	if (rc == SQLITE_NOMEM)
		return -ENOMEM;
	return -EIO;
}

static int exec(sqlite3 *db, const char *sql)
{
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_err(db, rc);
}

/* ---- files ------------------------------------------------------------------ */

int zs_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}


/* A new file in DIR/tmp with data, synced; its path into path. */
static int tmp_write(struct zs_sql *s, const void *data, size_t len, char *path, size_t n)
{
	int fd, err;

	if (snprintf(path, n, "%s/in.XXXXXX", s->tmpdir) >= (int)n)
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = zt_write_all(fd, data, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (err)
		unlink(path);
	return err;
}

int zs_fsync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

/* What the store writes is its own: folders 0700, files 0600, whatever
 * the data directory's mode or the process's umask. */
static int mkdir_p(const char *dir)
{
	return symstore_mkdirs(dir);
}

/* Take group and other permissions away from what is at path (not
 * followed when a symbolic link); a missing path is fine. */
static void make_private(int dirfd, const char *path)
{
	struct stat st;
	int fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return;
	if (!fstat(fd, &st) && (st.st_mode & 077) && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
		fchmod(fd, st.st_mode & 0700);
	close(fd);
}

/*
 * A data directory an older zt wrote, or one made 0755 by hand: the
 * catalogue (and its -wal and -shm, which SQLite creates with the
 * catalogue's mode) 0600, and the folders the store writes in 0700 with
 * the folders right inside them (profiles/ab, symbols/gsym, ...); files
 * below were always created 0600 (mkostemp), and what a 0700 folder holds
 * is out of others' reach anyway.
 */
static void make_dir_private(const char *dir, int server)
{
	static const char *const files[] = {"zt.db", "zt.db-wal", "zt.db-shm", "zt.db-journal"};
	static const char *const dirs[] = {"tmp", "profiles", "symbols", "debuginfod-cache"};
	int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t i;

	if (d < 0)
		return;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		make_private(d, files[i]);
	for (i = 0; server && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		int sub = openat(d, dirs[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *l = sub >= 0 ? fdopendir(sub) : NULL;
		struct dirent *e;

		make_private(d, dirs[i]);
		if (!l) {
			if (sub >= 0)
				close(sub);
			continue;
		}
		while ((e = readdir(l)))
			if (e->d_type == DT_DIR && e->d_name[0] != '.')
				make_private(dirfd(l), e->d_name);
		closedir(l);
	}
	close(d);
}

/* The catalogue's file made 0600 before SQLite opens it (SQLite would
 * create it 0644 less the umask). */
static int db_create(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* ---- memory tables ---------------------------------------------------------- */

static inline const uint8_t *mem_key(const struct zs_mem *m, size_t i, size_t *len)
{
	*len = (size_t)(m->key_off[i + 1] - m->key_off[i]);
	return m->keys.data + m->key_off[i];
}

static inline uint64_t fkey_hash_at(const void *ctx, uint32_t i)
{
	size_t len;
	const uint8_t *k = mem_key(ctx, i, &len);

	return zt_hash_bytes(k, len);
}

static inline uint64_t sfr_hash(const uint32_t *f, size_t n)
{
	return zt_hash_bytes(f, n * sizeof(*f));
}

static inline uint64_t stack_hash_at(const void *ctx, uint32_t i)
{
	const struct zs_mem *m = ctx;

	return sfr_hash(m->sfr + m->soff[i], (size_t)(m->soff[i + 1] - m->soff[i]));
}

static long mem_find_frame(const struct zs_mem *m, const uint8_t *k, size_t len)
{
	size_t j, il;
	uint32_t i;

	if (!m->fhash.cap)
		return -1;
	for (j = zt_htab_first(&m->fhash, zt_hash_bytes(k, len)); zt_htab_get(&m->fhash, j, &i);
	     j = zt_htab_next(&m->fhash, j)) {
		const uint8_t *ik = mem_key(m, i, &il);

		if (il == len && !memcmp(ik, k, len))
			return i;
	}
	return -1;
}

static long mem_find_stack(const struct zs_mem *m, const uint32_t *f, size_t n)
{
	size_t j;
	uint32_t i;

	if (!m->shash.cap)
		return -1;
	for (j = zt_htab_first(&m->shash, sfr_hash(f, n)); zt_htab_get(&m->shash, j, &i);
	     j = zt_htab_next(&m->shash, j))
		if (m->soff[i + 1] - m->soff[i] == n && !memcmp(m->sfr + m->soff[i], f, n * sizeof(*f)))
			return i;
	return -1;
}

/* Room for nf more frames of kb key bytes and ns stacks of nsf frames. */
static int mem_reserve(struct zs_mem *m, size_t nf, size_t kb, size_t ns, size_t nsf)
{
	if (zbuf_reserve(&m->keys, kb) || ZT_GROW(m->key_off, m->cap_koff, m->nr_frames + nf + 2) ||
	    ZT_GROW(m->sfr, m->cap_sfr, m->nr_sfr + nsf + 1) ||
	    ZT_GROW(m->soff, m->cap_soff, m->nr_stacks + ns + 2) ||
	    zt_htab_reserve(&m->fhash, nf, fkey_hash_at, m) ||
	    zt_htab_reserve(&m->shash, ns, stack_hash_at, m))
		return -ENOMEM;
	if (m->nr_frames + nf >= UINT32_MAX || m->nr_stacks + ns >= UINT32_MAX)
		return -ENOMEM;
	return 0;
}

/* Append (with room reserved). */
static void mem_add_frame(struct zs_mem *m, const uint8_t *k, size_t len)
{
	if (!m->nr_frames)
		m->key_off[0] = 0;
	zbuf_put(&m->keys, k, len);
	m->key_off[m->nr_frames + 1] = m->keys.len;
	zt_htab_add(&m->fhash, zt_hash_bytes(k, len), (uint32_t)m->nr_frames);
	m->nr_frames++;
}

static void mem_add_stack(struct zs_mem *m, const uint32_t *f, size_t n)
{
	if (!m->nr_stacks)
		m->soff[0] = 0;
	if (f != m->sfr + m->nr_sfr) /* mem_load decodes in place */
		memcpy(m->sfr + m->nr_sfr, f, n * sizeof(*f));
	m->nr_sfr += n;
	m->soff[m->nr_stacks + 1] = m->nr_sfr;
	zt_htab_add(&m->shash, sfr_hash(f, n), (uint32_t)m->nr_stacks);
	m->nr_stacks++;
}

static void mem_release(struct zs_mem *m)
{
	zbuf_release(&m->keys);
	free(m->key_off);
	zt_htab_release(&m->fhash);
	free(m->sfr);
	free(m->soff);
	zt_htab_release(&m->shash);
	memset(m, 0, sizeof(*m));
}

const struct zs_mem *zs_mem_rdlock(struct zs_sql *s)
{
	pthread_rwlock_rdlock(&s->mlock);
	return &s->mem;
}

void zs_mem_unlock(struct zs_sql *s)
{
	pthread_rwlock_unlock(&s->mlock);
}

long zs_mem_add_frame(struct zs_sql *s, const uint8_t *key, size_t len)
{
	long id;

	pthread_rwlock_wrlock(&s->mlock);
	id = mem_reserve(&s->mem, 1, len, 0, 0);
	if (!id) {
		id = (long)s->mem.nr_frames;
		mem_add_frame(&s->mem, key, len);
	}
	pthread_rwlock_unlock(&s->mlock);
	return id;
}

long zs_mem_add_stack(struct zs_sql *s, const uint32_t *frames, size_t n)
{
	long id;

	pthread_rwlock_wrlock(&s->mlock);
	id = mem_reserve(&s->mem, 0, 0, 1, n);
	if (!id) {
		id = (long)s->mem.nr_stacks;
		mem_add_stack(&s->mem, frames, n);
	}
	pthread_rwlock_unlock(&s->mlock);
	return id;
}

/* Every frame and stack of the catalogue into memory (at open). */
static int mem_load(struct zs_sql *s)
{
	struct zs_mem *m = &s->mem;
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	if (sqlite3_prepare_v2(s->wdb, "SELECT id, key FROM frames ORDER BY id", -1, &st, NULL))
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		const void *k = sqlite3_column_blob(st, 1);

		if (sqlite3_column_int64(st, 0) != (int64_t)m->nr_frames)
			return sqlite3_finalize(st), -EBADMSG;
		if ((err = mem_reserve(m, 1, len, 0, 0)))
			return sqlite3_finalize(st), err;
		mem_add_frame(m, k, len);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_err(s->wdb, rc);
	if (sqlite3_prepare_v2(s->wdb, "SELECT id, frames FROM stacks ORDER BY id", -1, &st, NULL))
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t len = (size_t)sqlite3_column_bytes(st, 1), n = len / 4, i;
		const uint8_t *b = sqlite3_column_blob(st, 1);

		if (sqlite3_column_int64(st, 0) != (int64_t)m->nr_stacks || len % 4)
			return sqlite3_finalize(st), -EBADMSG;
		if ((err = mem_reserve(m, 0, 0, 1, n)))
			return sqlite3_finalize(st), err;
		for (i = 0; i < n; i++) {
			uint32_t v;

			memcpy(&v, b + 4 * i, 4);
			if (v >= m->nr_frames)
				return sqlite3_finalize(st), -EBADMSG;
			m->sfr[m->nr_sfr + i] = v;
		}
		mem_add_stack(m, m->sfr + m->nr_sfr, n);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_err(s->wdb, rc);
}

/* ---- connections -------------------------------------------------------------- */

static void regex_free(void *p)
{
	regfree(p);
	free(p);
}

/* X REGEXP Y: whether X matches the POSIX extended expression Y anchored
 * at both ends (a selector's =~), compiled once a statement. */
static void regexp_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	regex_t *re = sqlite3_get_auxdata(ctx, 0);
	const char *v = (const char *)sqlite3_value_text(argv[1]);

	(void)argc;
	if (!re) {
		const char *pat = (const char *)sqlite3_value_text(argv[0]);
		size_t n = pat ? strlen(pat) : 0;
		char *anch = malloc(n + 5);

		re = malloc(sizeof(*re));
		if (!anch || !re || !pat) {
			free(anch);
			free(re);
			sqlite3_result_error_nomem(ctx);
			return;
		}
		snprintf(anch, n + 5, "^(%s)$", pat);
		if (regcomp(re, anch, REG_EXTENDED | REG_NOSUB)) {
			free(anch);
			free(re);
			sqlite3_result_error(ctx, "bad regular expression", -1);
			return;
		}
		free(anch);
		sqlite3_set_auxdata(ctx, 0, re, regex_free);
		if (!(re = sqlite3_get_auxdata(ctx, 0))) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
	}
	sqlite3_result_int(ctx, !regexec(re, v ? v : "", 0, NULL, 0));
}

static int db_open(const char *path, int flags, sqlite3 **out)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "regexp", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
						NULL, regexp_fn, NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_close(db);
		return rc == SQLITE_CANTOPEN ? -EACCES : -EIO;
	}
	sqlite3_busy_timeout(db, BUSY_MS);
	*out = db;
	return 0;
}

int zs_db_get(struct zs_sql *s, sqlite3 **db)
{
	pthread_mutex_lock(&s->plock);
	if (s->nr_pool) {
		*db = s->pool[--s->nr_pool];
		pthread_mutex_unlock(&s->plock);
		return 0;
	}
	pthread_mutex_unlock(&s->plock);
	return db_open(s->dbpath, SQLITE_OPEN_READONLY, db);
}

void zs_db_put(struct zs_sql *s, sqlite3 *db)
{
	if (!db)
		return;
	pthread_mutex_lock(&s->plock);
	if (s->nr_pool < POOL) {
		s->pool[s->nr_pool++] = db;
		db = NULL;
	}
	pthread_mutex_unlock(&s->plock);
	sqlite3_close(db);
}

/* ---- open and close ------------------------------------------------------------ */

static const char schema[] =
	"PRAGMA journal_mode=WAL;"
	"PRAGMA synchronous=FULL;"
	"CREATE TABLE IF NOT EXISTS profiles(rid INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL,"
	" host TEXT NOT NULL, command TEXT NOT NULL, event TEXT NOT NULL, format TEXT NOT NULL,"
	" time_start INTEGER NOT NULL, time_end INTEGER NOT NULL, samples INTEGER NOT NULL,"
	" weight INTEGER NOT NULL, size INTEGER NOT NULL, pushed_at INTEGER NOT NULL,"
	" buildids TEXT NOT NULL, agg BLOB NOT NULL);"
	"CREATE INDEX IF NOT EXISTS profiles_host ON profiles(host);"
	"CREATE INDEX IF NOT EXISTS profiles_command ON profiles(command);"
	"CREATE TABLE IF NOT EXISTS labels(rid INTEGER NOT NULL, key TEXT NOT NULL,"
	" value TEXT NOT NULL);"
	"CREATE INDEX IF NOT EXISTS labels_rid ON labels(rid);"
	"CREATE INDEX IF NOT EXISTS labels_kv ON labels(key, value);"
	"CREATE TABLE IF NOT EXISTS frames(id INTEGER PRIMARY KEY, key BLOB NOT NULL);"
	"CREATE TABLE IF NOT EXISTS stacks(id INTEGER PRIMARY KEY, frames BLOB NOT NULL);"
	"CREATE TABLE IF NOT EXISTS tokens(hash BLOB PRIMARY KEY, name TEXT NOT NULL,"
	" scopes INTEGER NOT NULL, created INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS symbols(id TEXT PRIMARY KEY, sha256 TEXT NOT NULL,"
	" quality INTEGER NOT NULL, size INTEGER NOT NULL, created INTEGER NOT NULL,"
	" source TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS symfiles(key TEXT PRIMARY KEY, id TEXT NOT NULL,"
	" kind INTEGER NOT NULL, sha256 TEXT NOT NULL, size INTEGER NOT NULL,"
	" dwarf INTEGER NOT NULL, created INTEGER NOT NULL, source TEXT NOT NULL);"
	"CREATE INDEX IF NOT EXISTS symfiles_id ON symfiles(id);"
	"CREATE TABLE IF NOT EXISTS projects(name TEXT PRIMARY KEY, created INTEGER NOT NULL);";

/* Columns of profiles added since the first catalogue (added to an older
 * one on open) and what an older row gets in them. */
static const char *const added_cols[][3] = {
	{"profiles", "ptype", "ALTER TABLE profiles ADD COLUMN ptype TEXT NOT NULL DEFAULT ''"},
	{"profiles", "unit", "ALTER TABLE profiles ADD COLUMN unit TEXT NOT NULL DEFAULT ''"},
	{"profiles", "tagg", "ALTER TABLE profiles ADD COLUMN tagg BLOB"},
	{"tokens", "project", "ALTER TABLE tokens ADD COLUMN project TEXT NOT NULL DEFAULT ''"},
};

/* The profile types of rows from before ptype (server/norm.h's
 * zs_profile_type(), in SQL), and the index of selections by type. */
static const char type_fill[] =
	"UPDATE profiles SET ptype = CASE WHEN event IN ('cpu-clock', 'task-clock', 'cpu')"
	" OR event LIKE 'cpu-clock:%' OR event LIKE 'task-clock:%' THEN 'cpu'"
	" WHEN event = '' THEN 'unknown' ELSE event END WHERE ptype = '';"
	"UPDATE profiles SET unit = CASE WHEN ptype = 'cpu' THEN 'nanoseconds' ELSE 'count' END"
	" WHERE unit = '';"
	"CREATE INDEX IF NOT EXISTS profiles_ptype ON profiles(ptype, time_start);";


static int migrate(sqlite3 *db)
{
	int have[sizeof(added_cols) / sizeof(added_cols[0])] = { 0 }, rc = SQLITE_DONE, err = 0;
	static const char *const tables[] = { "profiles", "tokens" };
	sqlite3_stmt *st;
	size_t i, k;

	for (k = 0; k < 2 && rc == SQLITE_DONE; k++) {
		char q[64];

		snprintf(q, sizeof(q), "PRAGMA table_info(%s)", tables[k]);
		if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
			return -EIO;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			for (i = 0; i < sizeof(added_cols) / sizeof(added_cols[0]); i++)
				if (!strcmp(added_cols[i][0], tables[k]) &&
				    !strcmp((const char *)sqlite3_column_text(st, 1), added_cols[i][1]))
					have[i] = 1;
		sqlite3_finalize(st);
	}
	if (rc != SQLITE_DONE)
		return -EIO;
	for (i = 0; !err && i < sizeof(added_cols) / sizeof(added_cols[0]); i++)
		if (!have[i])
			err = exec(db, added_cols[i][2]);
	return err ? err : exec(db, type_fill);
}

static int tokens_load(struct zs_sql *s, sqlite3 *db);
static int64_t data_version(sqlite3 *db);

/* Remove every entry of dir (uploads that never finished). */
static void empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' || (e->d_name[1] && (e->d_name[1] != '.' || e->d_name[2])))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

static int row_exists(sqlite3 *db, const char *sql, const char *id)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -EIO;
}

/* Recordings and symbols with no catalogue row were never acknowledged. */
static void remove_orphans(struct zs_sql *s)
{
	char path[4096], id[80];
	DIR *d = opendir(s->profdir), *sub;
	struct dirent *e, *f;

	while (d && (e = readdir(d))) {
		if (strlen(e->d_name) != 2 || e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->profdir, e->d_name);
		if (!(sub = opendir(path)))
			continue;
		while ((f = readdir(sub))) {
			size_t n = strlen(f->d_name);

			if (n != 67 || strcmp(f->d_name + 64, ".zt"))
				continue;
			snprintf(id, sizeof(id), "%.64s", f->d_name);
			if (zs_profile_id_ok(id) &&
			    !row_exists(s->wdb, "SELECT 1 FROM profiles WHERE id=?", id)) {
				zt_info("removing '%s/%s': never acknowledged", path, f->d_name);
				unlinkat(dirfd(sub), f->d_name, 0);
			}
		}
		closedir(sub);
	}
	if (d)
		closedir(d);
	d = opendir(s->gsymdir);
	while (d && (e = readdir(d))) {
		const char *dot = strrchr(e->d_name, '.');
		struct prof_build_id b;

		if (!dot || (strcmp(dot, ".gsym") && strcmp(dot, ".meta")) ||
		    prof_build_id_from_hex(e->d_name, (size_t)(dot - e->d_name), &b))
			continue;
		snprintf(id, sizeof(id), "%.*s", (int)(dot - e->d_name), e->d_name);
		if (!row_exists(s->wdb, "SELECT 1 FROM symbols WHERE id=?", id))
			unlinkat(dirfd(d), e->d_name, 0);
	}
	if (d)
		closedir(d);
	zs_symfiles_orphans(s, s->wdb);
}

/* The bytes of every symbol file the catalogue has. */
static uint64_t symbytes_count(sqlite3 *db)
{
	sqlite3_stmt *st;
	int64_t n = 0;

	if (sqlite3_prepare_v2(db,
			       "SELECT (SELECT IFNULL(SUM(size), 0) FROM symfiles) +"
			       " (SELECT IFNULL(SUM(size), 0) FROM symbols)",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n > 0 ? (uint64_t)n : 0;
}

static char *path_join(const char *a, const char *b)
{
	char *p;

	return asprintf(&p, "%s/%s", a, b) < 0 ? NULL : p;
}

int zs_sql_open(const char *dir, const struct zs_store_opts *o, struct zs_sql **out,
		  char *msg, size_t msglen)
{
	struct zs_sql *s = calloc(1, sizeof(*s));
	int err, admin = o && o->admin_only;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->wlock, NULL);
	pthread_mutex_init(&s->plock, NULL);
	pthread_rwlock_init(&s->mlock, NULL);
	pthread_rwlock_init(&s->tlock, NULL);
	pthread_mutex_init(&s->tvlock, NULL);
	pthread_rwlock_init(&s->alock, NULL);
	zbuf_init(&s->mem.keys);
	s->max_body = o && o->max_body ? o->max_body : DEFAULT_MAX_BODY;
	s->lim.max_body = s->max_body;
	s->lim.source_size =
		o && o->max_source_size ? o->max_source_size : ZS_DEFAULT_MAX_SOURCE_SIZE;
	s->lim.sources = o && o->max_sources ? o->max_sources : ZS_DEFAULT_MAX_SOURCES;
	s->lim.per_id =
		o && o->max_symbols_per_id ? o->max_symbols_per_id : ZS_DEFAULT_MAX_SYMBOLS_PER_ID;
	s->lim.store = o ? o->max_symbol_store : 0;
	s->remote = o ? o->remote : NULL;
	s->upstream = o && o->debuginfod;
	s->dir = strdup(dir);
	s->dbpath = path_join(dir, "zt.db");
	s->tmpdir = path_join(dir, "tmp");
	s->symdir = path_join(dir, "symbols");
	s->gsymdir = path_join(dir, "symbols/gsym");
	s->profdir = path_join(dir, "profiles");
	err = -ENOMEM;
	if (!s->dir || !s->dbpath || !s->tmpdir || !s->symdir || !s->gsymdir || !s->profdir)
		goto fail;
	if ((err = mkdir_p(s->tmpdir)) || (err = mkdir_p(s->gsymdir)) || (err = mkdir_p(s->profdir))) {
		zt_say(msg, msglen, "cannot make the data directory '%s': %s", dir, strerror(-err));
		goto fail;
	}
	if (!admin)
		empty_dir(s->tmpdir);
	err = db_create(s->dbpath);
	make_dir_private(dir, !admin);
	if (!err)
		err = db_open(s->dbpath, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &s->wdb);
	if (!err)
		err = exec(s->wdb, schema);
	if (!err)
		err = migrate(s->wdb);
	if (err) {
		zt_say(msg, msglen, "cannot open the catalogue '%s': %s", s->dbpath,
		    s->wdb ? sqlite3_errmsg(s->wdb) : strerror(-err));
		goto fail;
	}
	/* with ClickHouse, mem caches what ClickHouse holds: nothing of the file's */
	err = o && o->clickhouse ? 0 : mem_load(s);
	if (!err)
		err = tokens_load(s, s->wdb);
	if (err) {
		zt_say(msg, msglen, "cannot read the catalogue '%s': %s", s->dbpath,
		    err == -EBADMSG ? "damaged frames or stacks" : strerror(-err));
		goto fail;
	}
	*out = s;
	return 0;
fail:
	zs_sql_close(s);
	return err;
}

void zs_sql_start(struct zs_sql *s)
{
	remove_orphans(s);
	s->symbytes = symbytes_count(s->wdb);
	if (!db_open(s->dbpath, SQLITE_OPEN_READONLY, &s->tdb))
		s->tver = data_version(s->tdb);
}

void zs_sql_close(struct zs_sql *s)
{
	size_t i;

	if (!s)
		return;
	sqlite3_close(s->wdb);
	sqlite3_close(s->tdb);
	for (i = 0; i < s->nr_pool; i++)
		sqlite3_close(s->pool[i]);
	mem_release(&s->mem);
	for (i = 0; i < s->nr_tokens; i++)
		free(s->tokens[i].name);
	free(s->tokens);
	for (i = 0; i < s->nr_aggs; i++)
		free(s->aggs[i].data);
	free(s->aggs);
	zt_htab_release(&s->ahash);
	pthread_mutex_destroy(&s->wlock);
	pthread_mutex_destroy(&s->plock);
	pthread_rwlock_destroy(&s->mlock);
	pthread_rwlock_destroy(&s->tlock);
	pthread_mutex_destroy(&s->tvlock);
	pthread_rwlock_destroy(&s->alock);
	free(s->dir);
	free(s->dbpath);
	free(s->tmpdir);
	free(s->symdir);
	free(s->gsymdir);
	free(s->profdir);
	free(s);
}

const char *zs_sql_tmpdir(const struct zs_sql *s)
{
	return s->tmpdir;
}

const char *zs_sql_dir(const struct zs_sql *s)
{
	return s->dir;
}

const char *zs_sql_symdir(const struct zs_sql *s)
{
	return s->symdir;
}

pthread_mutex_t *zs_sql_wlock(struct zs_sql *s)
{
	return &s->wlock;
}

sqlite3 *zs_sql_wdb(struct zs_sql *s)
{
	return s->wdb;
}

const struct zs_remote *zs_sql_remote(const struct zs_sql *s)
{
	return s->remote;
}

int zs_sql_upstream(const struct zs_sql *s)
{
	return s->upstream;
}

int zs_db_error(sqlite3 *db, int rc)
{
	return db_err(db, rc);
}

int zs_sql_map_tmp(struct zs_sql *s, const char *tmp_path, struct zt_image *img)
{
	size_t n = strlen(s->tmpdir);
	const char *what;

	if (strncmp(tmp_path, s->tmpdir, n) || tmp_path[n] != '/' || strchr(tmp_path + n + 1, '/') ||
	    strstr(tmp_path, ".."))
		return -EINVAL;
	return zt_image_open(tmp_path, img, &what);
}

int zs_sql_tmp_ok(const struct zs_sql *s, const char *path)
{
	size_t n = strlen(s->tmpdir);

	return !strncmp(path, s->tmpdir, n) && path[n] == '/' && path[n + 1] &&
	       !strchr(path + n + 1, '/') && !strstr(path, "..");
}

uint64_t zs_sql_max_body(const struct zs_sql *s)
{
	return s->max_body;
}

void zs_sql_on_drop(struct zs_sql *s, zs_sql_drop_fn *fn, void *ctx)
{
	s->drop = fn;
	s->drop_ctx = ctx;
}

void zs_sql_drop(struct zs_sql *s, const struct prof_build_id *bid)
{
	if (s->drop)
		s->drop(s->drop_ctx, bid);
}

const struct zs_symlimits *zs_sql_symlimits(const struct zs_sql *s)
{
	return &s->lim;
}

uint64_t zs_sql_symbytes(struct zs_sql *s)
{
	return __atomic_load_n(&s->symbytes, __ATOMIC_RELAXED);
}

void zs_sql_symbytes_add(struct zs_sql *s, int64_t delta)
{
	uint64_t v = __atomic_load_n(&s->symbytes, __ATOMIC_RELAXED);

	v = delta < 0 && (uint64_t)-delta > v ? 0 : v + (uint64_t)delta;
	__atomic_store_n(&s->symbytes, v, __ATOMIC_RELAXED);
}

/* ---- tokens --------------------------------------------------------------------- */

static int tokens_load(struct zs_sql *s, sqlite3 *db)
{
	sqlite3_stmt *st;
	struct token *t = NULL;
	size_t n = 0, cap = 0, i;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT hash, name, scopes, created, project FROM tokens ORDER BY created",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);

		if (sqlite3_column_bytes(st, 0) != 32)
			continue;
		if (ZT_GROW(t, cap, n + 1) || !(t[n].name = strdup(name ? name : ""))) {
			rc = SQLITE_NOMEM;
			break;
		}
		memcpy(t[n].hash, sqlite3_column_blob(st, 0), 32);
		t[n].scopes = (unsigned)sqlite3_column_int(st, 2);
		t[n].created = sqlite3_column_int64(st, 3);
		snprintf(t[n].project, sizeof(t[n].project), "%s",
			 sqlite3_column_text(st, 4) ? (const char *)sqlite3_column_text(st, 4) : "");
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		for (i = 0; i < n; i++)
			free(t[i].name);
		free(t);
		return rc == SQLITE_NOMEM ? -ENOMEM : -EIO;
	}
	pthread_rwlock_wrlock(&s->tlock);
	for (i = 0; i < s->nr_tokens; i++)
		free(s->tokens[i].name);
	free(s->tokens);
	s->tokens = t;
	s->nr_tokens = n;
	s->cap_tokens = cap;
	pthread_rwlock_unlock(&s->tlock);
	return 0;
}

/* A token's row by the SHA-256 of the token. -EEXIST: that token is
 * there; -ENOTUNIQ: another token has that name. One transaction, so
 * that two processes cannot give two tokens the same name. */
static int token_insert(struct zs_sql *s, unsigned scopes, const char *name, const char *project,
			const uint8_t hash[32])
{
	sqlite3_stmt *st;
	int rc, err;

	pthread_mutex_lock(&s->wlock);
	if ((err = exec(s->wdb, "BEGIN IMMEDIATE"))) {
		pthread_mutex_unlock(&s->wlock);
		return err;
	}
	rc = SQLITE_OK;
	if (name) {
		rc = sqlite3_prepare_v2(s->wdb, "SELECT 1 FROM tokens WHERE name=?", -1, &st, NULL);
		if (rc == SQLITE_OK) {
			sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
			rc = sqlite3_step(st);
			sqlite3_finalize(st);
		}
		if (rc == SQLITE_ROW) {
			exec(s->wdb, "ROLLBACK");
			pthread_mutex_unlock(&s->wlock);
			return -ENOTUNIQ;
		}
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(
			s->wdb,
			"INSERT INTO tokens(hash, name, scopes, created, project) VALUES(?,?,?,?,?)",
			-1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_blob(st, 1, hash, 32, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, name ? name : "", -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, (int)scopes);
		sqlite3_bind_int64(st, 4, (int64_t)time(NULL));
		sqlite3_bind_text(st, 5, project ? project : "", -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	if (rc == SQLITE_DONE)
		rc = sqlite3_exec(s->wdb, "COMMIT", NULL, NULL, NULL);
	else
		rc = rc == SQLITE_OK ? SQLITE_ERROR : rc;
	if (rc == SQLITE_OK) {
		err = tokens_load(s, s->wdb);
	} else {
		err = (rc & 0xff) == SQLITE_CONSTRAINT ? -EEXIST : db_err(s->wdb, rc);
		exec(s->wdb, "ROLLBACK");
	}
	pthread_mutex_unlock(&s->wlock);
	return err;
}

/* Whether project exists (NULL, "" and the default one always do). */
static int project_known(struct zs_sql *s, const char *project)
{
	if (!project || !*project || !strcmp(project, ZS_DEFAULT_PROJECT))
		return 1;
	return row_exists(s->wdb, "SELECT 1 FROM projects WHERE name=?", project) == 1;
}

int zs_sql_token_create(struct zs_sql *s, unsigned scopes, const char *name, const char *project,
			char out[65])
{
	uint8_t raw[32], hash[32];
	int err;

	if (!scopes || scopes > 15 || (name && !zs_token_name_ok(name)) ||
	    (project && *project && !zs_project_name_ok(project)))
		return -EINVAL;
	if (!zs_sql_project_known(s, project))
		return -ENOENT;
	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return -EIO;
	zt_hex_encode(raw, 32, out);
	OPENSSL_cleanse(raw, sizeof(raw));
	err = zt_sha256(out, 64, hash);
	if (!err)
		err = token_insert(s, scopes, name, project, hash);
	if (err)
		OPENSSL_cleanse(out, 65);
	return err;
}

int zs_sql_token_import(struct zs_sql *s, unsigned scopes, const char *name, const char *project,
			const char *token, size_t len)
{
	uint8_t hash[32];
	size_t i;
	int err;

	if (!scopes || scopes > 15 || (name && !zs_token_name_ok(name)) || len < 16 || len > 1024 ||
	    (project && *project && !zs_project_name_ok(project)))
		return -EINVAL;
	if (!zs_sql_project_known(s, project))
		return -ENOENT;
	for (i = 0; i < len; i++)
		if ((unsigned char)token[i] <= ' ' || (unsigned char)token[i] >= 0x7f)
			return -EINVAL;
	err = zt_sha256(token, len, hash);
	return err ? err : token_insert(s, scopes, name, project, hash);
}

int zs_sql_project_create(struct zs_sql *s, const char *name)
{
	sqlite3_stmt *st;
	int rc, err;

	if (!zs_project_name_ok(name))
		return -EINVAL;
	if (!strcmp(name, ZS_DEFAULT_PROJECT))
		return -EEXIST;
	pthread_mutex_lock(&s->wlock);
	rc = sqlite3_prepare_v2(s->wdb, "INSERT INTO projects(name, created) VALUES(?,?)", -1, &st,
				NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	err = rc == SQLITE_DONE		 ? 0
	      : rc == SQLITE_CONSTRAINT ? -EEXIST
					 : db_err(s->wdb, rc);
	pthread_mutex_unlock(&s->wlock);
	return err;
}

int zs_sql_project_known(struct zs_sql *s, const char *name)
{
	int r;

	pthread_mutex_lock(&s->wlock);
	r = project_known(s, name);
	pthread_mutex_unlock(&s->wlock);
	return r;
}

int zs_sql_project_list(struct zs_sql *s, zs_project_fn *cb, void *ctx)
{
	sqlite3_stmt *st;
	int rc;

	/* the default project first, then the others by name; each with its
	 * profiles (those without a project are the default's) and tokens */
	if (sqlite3_prepare_v2(
		    s->wdb,
		    "SELECT p.name, p.created,"
		    " (SELECT count(DISTINCT rid) FROM labels l WHERE l.key='__project__' AND"
		    "  l.value=p.name) + CASE WHEN p.name='" ZS_DEFAULT_PROJECT "' THEN"
		    "  (SELECT count(*) FROM profiles f WHERE NOT EXISTS(SELECT 1 FROM labels l"
		    "   WHERE l.rid=f.rid AND l.key='__project__')) ELSE 0 END,"
		    " (SELECT count(*) FROM tokens t WHERE t.project=p.name)"
		    " FROM (SELECT '" ZS_DEFAULT_PROJECT "' AS name, 0 AS created, 0 AS o UNION ALL"
		    "  SELECT name, created, 1 FROM projects) p ORDER BY o, name",
		    -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		cb(ctx, (const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1),
		   (uint64_t)sqlite3_column_int64(st, 2), (uint64_t)sqlite3_column_int64(st, 3));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* The catalogue's version as tdb sees it: it changes when another
 * connection (this process's writer, or another process) commits. */
static int64_t data_version(sqlite3 *db)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA data_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Reload the tokens when the catalogue changed, at most once a second. */
static void tokens_refresh(struct zs_sql *s)
{
	struct timespec ts;
	uint64_t now;
	int64_t v;

	if (!s->tdb)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (now - __atomic_load_n(&s->tchecked, __ATOMIC_RELAXED) < 1000000000ull ||
	    pthread_mutex_trylock(&s->tvlock))
		return;
	__atomic_store_n(&s->tchecked, now, __ATOMIC_RELAXED);
	v = data_version(s->tdb);
	if (v >= 0 && v != s->tver && !tokens_load(s, s->tdb))
		s->tver = v;
	pthread_mutex_unlock(&s->tvlock);
}

unsigned zs_sql_token_check(struct zs_sql *s, const char *token, size_t len,
			    char project[ZS_PROJECT_MAX + 1])
{
	uint8_t hash[32];
	unsigned scopes = 0;
	size_t i, hit = 0;

	if (project)
		*project = 0;
	if (!token || !len || len > 1024 || zt_sha256(token, len, hash))
		return 0;
	tokens_refresh(s);
	pthread_rwlock_rdlock(&s->tlock);
	/* every hash compared in full, whichever matches */
	for (i = 0; i < s->nr_tokens; i++) {
		unsigned eq = (unsigned)(CRYPTO_memcmp(hash, s->tokens[i].hash, 32) == 0);

		scopes |= s->tokens[i].scopes & (0u - eq);
		hit |= (i + 1) & (0 - (size_t)eq);
	}
	if (hit && project)
		memcpy(project, s->tokens[hit - 1].project, ZS_PROJECT_MAX + 1);
	pthread_rwlock_unlock(&s->tlock);
	if (scopes & ZS_SCOPE_ADMIN)
		scopes |= ZS_SCOPE_PUSH | ZS_SCOPE_SYMBOLS | ZS_SCOPE_READ;
	return scopes;
}

size_t zs_sql_token_count(struct zs_sql *s)
{
	size_t n;

	pthread_rwlock_rdlock(&s->tlock);
	n = s->nr_tokens;
	pthread_rwlock_unlock(&s->tlock);
	return n;
}

int zs_sql_token_list(struct zs_sql *s, zs_token_fn *cb, void *ctx)
{
	size_t i;

	pthread_rwlock_rdlock(&s->tlock);
	for (i = 0; i < s->nr_tokens; i++) {
		char hex[65];

		zt_hex_encode(s->tokens[i].hash, 32, hex);
		hex[8] = 0;
		cb(ctx, s->tokens[i].name, s->tokens[i].scopes, hex, s->tokens[i].created,
		   s->tokens[i].project);
	}
	pthread_rwlock_unlock(&s->tlock);
	return 0;
}

/* Whether token t is the one name_or_id (n bytes, is_hex: 8 to 64 hex
 * digits) names. */
static int token_matches(const struct token *t, const char *name_or_id, size_t n, int is_hex)
{
	char hex[65];

	zt_hex_encode(t->hash, 32, hex);
	return !strcmp(t->name, name_or_id) || (is_hex && !strncmp(hex, name_or_id, n));
}

int zs_sql_token_revoke(struct zs_sql *s, const char *name_or_id, zs_token_fn *cb, void *ctx)
{
	size_t n = strlen(name_or_id), i, hits = 0;
	sqlite3_stmt *st = NULL;
	int err, rc, is_hex = n >= 8 && n <= 64;

	for (i = 0; i < n && is_hex; i++)
		is_hex = (name_or_id[i] >= '0' && name_or_id[i] <= '9') ||
			 (name_or_id[i] >= 'a' && name_or_id[i] <= 'f');
	if (!n)
		return -ENOENT;
	pthread_mutex_lock(&s->wlock);
	if (exec(s->wdb, "BEGIN IMMEDIATE")) {
		pthread_mutex_unlock(&s->wlock);
		return -EIO;
	}
	/* the tokens as the transaction sees them: another process may have
	 * made or revoked some since this one read them */
	err = tokens_load(s, s->wdb);
	pthread_rwlock_rdlock(&s->tlock);
	for (i = 0; !err && i < s->nr_tokens; i++)
		hits += (size_t)token_matches(&s->tokens[i], name_or_id, n, is_hex);
	if (!err && hits > 1) {
		err = -ENOTUNIQ;
		for (i = 0; cb && i < s->nr_tokens; i++) {
			char hex[65];

			if (!token_matches(&s->tokens[i], name_or_id, n, is_hex))
				continue;
			zt_hex_encode(s->tokens[i].hash, 32, hex);
			hex[8] = 0;
			cb(ctx, s->tokens[i].name, s->tokens[i].scopes, hex, s->tokens[i].created,
		   s->tokens[i].project);
		}
	}
	if (!err && !hits)
		err = -ENOENT;
	rc = err ? SQLITE_OK
		 : sqlite3_prepare_v2(s->wdb, "DELETE FROM tokens WHERE hash=?", -1, &st, NULL);
	for (i = 0; !err && i < s->nr_tokens; i++) {
		if (rc != SQLITE_OK) {
			err = -EIO;
			break;
		}
		if (!token_matches(&s->tokens[i], name_or_id, n, is_hex))
			continue;
		sqlite3_bind_blob(st, 1, s->tokens[i].hash, 32, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			err = db_err(s->wdb, SQLITE_ERROR);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	pthread_rwlock_unlock(&s->tlock);
	if (!err)
		err = exec(s->wdb, "COMMIT");
	if (err)
		exec(s->wdb, "ROLLBACK");
	else
		err = tokens_load(s, s->wdb);
	pthread_mutex_unlock(&s->wlock);
	return err;
}

/* ---- ingest ---------------------------------------------------------------------- */


struct agg_row {
	uint32_t stack;
	uint64_t count, weight;
};

static int agg_before(const struct agg_row *a, const struct agg_row *b)
{
	return a->stack < b->stack;
}

ZT_DEFINE_MERGE_SORT(sort_rows, struct agg_row, agg_before)

/* What an ingest adds: the global ids of the profile's frames and stacks,
 * which of them are new, and its aggregate blob. */
struct plan {
	uint32_t *fid;        /* per norm frame */
	uint32_t *new_frames; /* norm frame indices */
	size_t nr_new_frames, new_key_bytes;
	uint32_t *sfr;        /* the stacks' frames, in global ids */
	uint32_t *sid;        /* per norm stack */
	uint32_t *new_stacks; /* norm stack indices */
	size_t nr_new_stacks, new_sfr;
	struct zbuf agg;
	struct zbuf tagg; /* by time and process (server/tagg.h) */
	char *bids;
};

static void plan_release(struct plan *p)
{
	free(p->fid);
	free(p->new_frames);
	free(p->sfr);
	free(p->sid);
	free(p->new_stacks);
	zbuf_release(&p->agg);
	zbuf_release(&p->tagg);
	free(p->bids);
}

/* The build ids of n's frames as the catalogue keeps them: hex, space-separated (malloc'ed). */
char *zs_norm_bids_text(const struct zs_norm *n)
{
	char *t = calloc(n->nr_bids * 41 + 1, 1);
	size_t i, k;

	for (i = 0, k = 0; t && i < n->nr_bids; i++) {
		if (i)
			t[k++] = ' ';
		zt_hex_encode(n->bids[i].data, n->bids[i].len, t + k);
		k += 2u * n->bids[i].len;
	}
	return t;
}

/* Under wlock: the writer alone changes mem, so it reads it unlocked. */
static int plan_make(struct zs_sql *s, const struct zs_norm *n, struct plan *p)
{
	const struct zs_mem *m = &s->mem;
	struct agg_row *rows = NULL, *tmp = NULL, *sorted;
	size_t i;
	uint64_t prev = 0;

	memset(p, 0, sizeof(*p));
	zbuf_init(&p->agg);
	zbuf_init(&p->tagg);
	p->fid = malloc((n->nr_frames + 1) * sizeof(*p->fid));
	p->new_frames = malloc((n->nr_frames + 1) * sizeof(*p->new_frames));
	p->sfr = malloc((n->nr_sframes + 1) * sizeof(*p->sfr));
	p->sid = malloc((n->nr_stacks + 1) * sizeof(*p->sid));
	p->new_stacks = malloc((n->nr_stacks + 1) * sizeof(*p->new_stacks));
	p->bids = zs_norm_bids_text(n);
	rows = malloc((n->nr_stacks + 1) * sizeof(*rows));
	tmp = malloc((n->nr_stacks + 1) * sizeof(*tmp));
	if (!p->fid || !p->new_frames || !p->sfr || !p->sid || !p->new_stacks || !p->bids || !rows ||
	    !tmp)
		goto nomem;
	for (i = 0; i < n->nr_frames; i++) {
		size_t len;
		const uint8_t *key = zs_norm_key(n, i, &len);
		long f = mem_find_frame(m, key, len);

		if (f < 0) {
			f = (long)(m->nr_frames + p->nr_new_frames);
			p->new_frames[p->nr_new_frames++] = (uint32_t)i;
			p->new_key_bytes += len;
		}
		p->fid[i] = (uint32_t)f;
	}
	for (i = 0; i < n->nr_sframes; i++)
		p->sfr[i] = p->fid[n->sframes[i]];
	for (i = 0; i < n->nr_stacks; i++) {
		const struct zs_nstack *ns = &n->stacks[i];
		long st = mem_find_stack(m, p->sfr + ns->off, ns->n);

		if (st < 0) {
			st = (long)(m->nr_stacks + p->nr_new_stacks);
			p->new_stacks[p->nr_new_stacks++] = (uint32_t)i;
			p->new_sfr += ns->n;
		}
		p->sid[i] = (uint32_t)st;
		rows[i] = (struct agg_row){ (uint32_t)st, ns->count, ns->weight };
	}
	sorted = n->nr_stacks ? sort_rows(rows, tmp, n->nr_stacks) : rows;
	for (i = 0; i < n->nr_stacks; i++) {
		zbuf_put_uv(&p->agg, sorted[i].stack - prev);
		zbuf_put_uv(&p->agg, sorted[i].count);
		zbuf_put_uv(&p->agg, sorted[i].weight);
		prev = sorted[i].stack;
	}
	free(rows);
	free(tmp);
	if (p->agg.err || zs_tagg_encode(&n->tagg, p->sid, &p->tagg))
		return -ENOMEM;
	return 0;
nomem:
	free(rows);
	free(tmp);
	return -ENOMEM;
}

const char *zs_profile_host(const struct zs_norm *n, const struct zs_label *labels,
				size_t nr_labels)
{
	const char *host = n->host;
	size_t i;

	for (i = 0; i < nr_labels && !host[0]; i++)
		if (!strcmp(labels[i].key, "host"))
			host = labels[i].value;
	return host;
}

/* The labels profile rid lacks, inserted (in the caller's transaction);
 * *added (when not NULL) counts them. A SQLite code. */
static int labels_insert(sqlite3 *db, int64_t rid, const struct zs_label *labels, size_t n,
			 unsigned *added)
{
	sqlite3_stmt *st;
	size_t i;
	int rc;

	rc = sqlite3_prepare_v2(
		db,
		"INSERT INTO labels(rid, key, value) SELECT ?1, ?2, ?3 WHERE NOT"
		" EXISTS(SELECT 1 FROM labels WHERE rid=?1 AND key=?2 AND value=?3)",
		-1, &st, NULL);
	for (i = 0; rc == SQLITE_OK && i < n; i++) {
		sqlite3_bind_int64(st, 1, rid);
		sqlite3_bind_text(st, 2, labels[i].key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, labels[i].value, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
		if (rc == SQLITE_OK && added)
			*added += (unsigned)sqlite3_changes(db);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

/* A re-push of stored profile rid: the labels it lacks added, as long as
 * it keeps at most ZS_MAX_LABELS. 0, -EINVAL (msg), or a store error. */
static int labels_add(struct zs_sql *s, int64_t rid, const struct zs_label *labels, size_t n,
		      unsigned *added, char *msg, size_t msglen)
{
	sqlite3_stmt *st;
	int64_t had = 0;
	int rc, err;

	*added = 0;
	if (!n)
		return 0;
	if ((err = exec(s->wdb, "BEGIN IMMEDIATE")))
		return err;
	rc = sqlite3_prepare_v2(s->wdb, "SELECT count(*) FROM labels WHERE rid=?", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, rid);
		rc = sqlite3_step(st);
		had = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		rc = rc == SQLITE_ROW ? SQLITE_OK : rc;
	}
	if (rc == SQLITE_OK)
		rc = labels_insert(s->wdb, rid, labels, n, added);
	if (rc == SQLITE_OK && had + *added > ZS_MAX_LABELS) {
		exec(s->wdb, "ROLLBACK");
		zt_say(msg, msglen,
		       "the profile is stored with %lld labels, and this push's would make %lld: "
		       "at most %d labels a profile",
		       (long long)had, (long long)(had + *added), ZS_MAX_LABELS);
		*added = 0;
		return -EINVAL;
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(s->wdb, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		err = db_err(s->wdb, rc);
		exec(s->wdb, "ROLLBACK");
		*added = 0;
		return err;
	}
	return 0;
}

/* One transaction: the new frames and stacks, the profile row and its labels. */
static int db_insert(struct zs_sql *s, const struct zs_norm *n, const struct plan *p,
		     const char *id, size_t size, const struct zs_label *labels, size_t nr_labels)
{
	sqlite3 *db = s->wdb;
	sqlite3_stmt *st = NULL;
	int64_t rid;
	size_t i;
	int rc, err;

	if ((err = exec(db, "BEGIN IMMEDIATE")))
		return err;
	rc = sqlite3_prepare_v2(db, "INSERT INTO frames(id, key) VALUES(?,?)", -1, &st, NULL);
	for (i = 0; rc == SQLITE_OK && i < p->nr_new_frames; i++) {
		size_t len;
		const uint8_t *k = zs_norm_key(n, p->new_frames[i], &len);

		sqlite3_bind_int64(st, 1, (int64_t)(s->mem.nr_frames + i));
		sqlite3_bind_blob(st, 2, k, (int)len, SQLITE_STATIC);
		rc = sqlite3_step(st);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT INTO stacks(id, frames) VALUES(?,?)", -1, &st, NULL);
	for (i = 0; rc == SQLITE_OK && i < p->nr_new_stacks; i++) {
		const struct zs_nstack *ns = &n->stacks[p->new_stacks[i]];

		/* little-endian u32s: the in-memory layout on the hosts zt runs on */
		sqlite3_bind_int64(st, 1, (int64_t)(s->mem.nr_stacks + i));
		sqlite3_bind_blob(st, 2, p->sfr + ns->off, (int)(ns->n * 4), SQLITE_STATIC);
		rc = sqlite3_step(st);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db,
					"INSERT INTO profiles(id, host, command, event, format, time_start,"
					" time_end, samples, weight, size, pushed_at, buildids, agg,"
					" ptype, unit, tagg)"
					" VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
					-1, &st, NULL);
	if (rc == SQLITE_OK) {
		const char *host = zs_profile_host(n, labels, nr_labels);

		sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, host, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, n->command, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, n->event, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, n->format, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 6, n->time_start);
		sqlite3_bind_int64(st, 7, n->time_end);
		sqlite3_bind_int64(st, 8, (int64_t)n->samples);
		sqlite3_bind_int64(st, 9, (int64_t)n->weight);
		sqlite3_bind_int64(st, 10, (int64_t)size);
		sqlite3_bind_int64(st, 11, (int64_t)time(NULL));
		sqlite3_bind_text(st, 12, p->bids, -1, SQLITE_STATIC);
		sqlite3_bind_blob(st, 13, p->agg.data ? (const void *)p->agg.data : "", (int)p->agg.len,
				  SQLITE_STATIC);
		sqlite3_bind_text(st, 14, n->ptype, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 15, n->unit, -1, SQLITE_STATIC);
		sqlite3_bind_blob(st, 16, p->tagg.data ? (const void *)p->tagg.data : "",
				  (int)p->tagg.len, SQLITE_STATIC);
		rc = sqlite3_step(st);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	sqlite3_finalize(st);
	st = NULL;
	rid = sqlite3_last_insert_rowid(db);
	if (rc == SQLITE_OK)
		rc = labels_insert(db, rid, labels, nr_labels, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		err = db_err(db, rc);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	return 0;
}

static void mem_commit(struct zs_sql *s, const struct zs_norm *n, const struct plan *p)
{
	size_t i;

	for (i = 0; i < p->nr_new_frames; i++) {
		size_t len;
		const uint8_t *k = zs_norm_key(n, p->new_frames[i], &len);

		mem_add_frame(&s->mem, k, len);
	}
	for (i = 0; i < p->nr_new_stacks; i++) {
		const struct zs_nstack *ns = &n->stacks[p->new_stacks[i]];

		mem_add_stack(&s->mem, p->sfr + ns->off, ns->n);
	}
}

static int existing(struct zs_sql *s, const char *id, struct zs_ingest_result *r, int64_t *rid)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->wdb, "SELECT samples, rid FROM profiles WHERE id=?", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		r->samples = (uint64_t)sqlite3_column_int64(st, 0);
		*rid = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -EIO;
}

static void profile_path(const struct zs_sql *s, const char *id, char *path, size_t n, char *dir,
			 size_t dn)
{
	if (snprintf(dir, dn, "%s/%.2s", s->profdir, id) >= (int)dn ||
	    snprintf(path, n, "%s/%.2s/%s.zt", s->profdir, id, id) >= (int)n)
		path[0] = dir[0] = 0; /* data directories are short: never */
}


/* Store body (its file at tmp, synced by the caller, or NULL: written
 * here) under wlock. */
static int store_locked(struct zs_sql *s, const struct zs_norm *n, const void *body, size_t len,
			const char *tmp, const struct zs_label *labels, size_t nr_labels,
			struct zs_ingest_result *r, char *msg, size_t msglen)
{
	char own[4096], path[4096], dir[4096];
	struct plan p;
	int64_t rid = 0;
	int err, moved = 0;

	err = existing(s, r->id, r, &rid);
	if (err == 1)
		return labels_add(s, rid, labels, nr_labels, &r->labels_added, msg, msglen);
	if (err)
		return err;
	r->samples = n->samples;
	if (!tmp) {
		if ((err = tmp_write(s, body, len, own, sizeof(own))))
			goto out_nofile;
		tmp = own;
	}
	profile_path(s, r->id, path, sizeof(path), dir, sizeof(dir));
	if (mkdir(dir, 0700) && errno != EEXIST) {
		err = -errno;
		goto out_nofile;
	}
	if (rename(tmp, path)) {
		err = -errno;
		goto out_nofile;
	}
	moved = 1;
	if ((err = zs_fsync_dir(dir)) || (err = zs_fsync_dir(s->profdir)))
		goto out;
	err = plan_make(s, n, &p);
	if (!err) {
		pthread_rwlock_wrlock(&s->mlock);
		err = mem_reserve(&s->mem, p.nr_new_frames, p.new_key_bytes, p.nr_new_stacks,
				  p.new_sfr);
		pthread_rwlock_unlock(&s->mlock);
	}
	if (!err)
		err = db_insert(s, n, &p, r->id, len, labels, nr_labels);
	if (!err) {
		pthread_rwlock_wrlock(&s->mlock);
		mem_commit(s, n, &p);
		pthread_rwlock_unlock(&s->mlock);
		r->stored = 1;
	}
	plan_release(&p);
out:
	if (err && moved) {
		unlink(path);
		zs_fsync_dir(dir);
	}
out_nofile:
	if (err && tmp == own)
		unlink(own);
	if (err == -ENOSPC || err == -EDQUOT)
		zt_say(msg, msglen, "the server's disk is full: the profile was not stored");
	else if (err)
		zt_say(msg, msglen, "cannot store the profile: %s", strerror(-err));
	return err;
}

int zs_sql_ingest(struct zs_sql *s, const struct zs_norm *n, const void *body, size_t len,
		  const char *tmp, const struct zs_label *labels, size_t nr_labels,
		  struct zs_ingest_result *r, char *msg, size_t msglen)
{
	int err;

	pthread_mutex_lock(&s->wlock);
	err = store_locked(s, n, body, len, tmp, labels, nr_labels, r, msg, msglen);
	pthread_mutex_unlock(&s->wlock);
	return err;
}

int zs_sql_profile_delete(struct zs_sql *s, const char *id)
{
	char path[4096], dir[4096];
	sqlite3_stmt *st;
	int64_t rid = -1;
	size_t i, j;
	uint32_t k;
	int err, rc;

	if (!zs_profile_id_ok(id))
		return -ENOENT;
	pthread_mutex_lock(&s->wlock);
	err = exec(s->wdb, "BEGIN IMMEDIATE");
	if (err)
		goto out;
	rc = sqlite3_prepare_v2(s->wdb, "SELECT rid FROM profiles WHERE id=?", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			rid = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	err = rid < 0 ? -ENOENT : 0;
	for (i = 0; !err && i < 2; i++) {
		rc = sqlite3_prepare_v2(s->wdb, i ? "DELETE FROM profiles WHERE rid=?"
						  : "DELETE FROM labels WHERE rid=?",
					-1, &st, NULL);
		if (rc == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, rid);
			rc = sqlite3_step(st);
			sqlite3_finalize(st);
		}
		if (rc != SQLITE_DONE)
			err = db_err(s->wdb, rc);
	}
	if (!err)
		err = exec(s->wdb, "COMMIT");
	if (err) {
		exec(s->wdb, "ROLLBACK");
		goto out;
	}
	profile_path(s, id, path, sizeof(path), dir, sizeof(dir));
	unlink(path);
	zs_fsync_dir(dir);
	pthread_rwlock_wrlock(&s->alock);
	if (s->ahash.cap)
		for (j = zt_htab_first(&s->ahash, zt_hash_mix(0, (uint64_t)rid));
		     zt_htab_get(&s->ahash, j, &k); j = zt_htab_next(&s->ahash, j))
			if (s->aggs[k].rid == rid) {
				s->aggs[k].rid = -1;
				free(s->aggs[k].data);
				s->aggs[k].data = NULL;
				s->aggs[k].len = 0;
			}
	pthread_rwlock_unlock(&s->alock);
out:
	pthread_mutex_unlock(&s->wlock);
	return err;
}


int zs_sql_retention(struct zs_sql *s, unsigned days, unsigned *dropped, char *msg,
		       size_t msglen)
{
	time_t cut = time(NULL) - (time_t)days * 86400;
	sqlite3_stmt *st;
	char **ids = NULL;
	size_t n = 0, cap = 0, i;
	int err = 0, rc;

	*dropped = 0;
	/* the day of the recording's start, as ClickHouse's partitions have it */
	cut -= cut % 86400;
	pthread_mutex_lock(&s->wlock);
	rc = sqlite3_prepare_v2(s->wdb,
				"SELECT id FROM profiles WHERE CASE WHEN time_start > 0 AND"
				" time_start <= pushed_at + 86400 THEN time_start ELSE pushed_at END < ?",
				-1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, (int64_t)cut);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW && !err) {
			if (ZT_GROW(ids, cap, n + 1) ||
			    !(ids[n] = strdup((const char *)sqlite3_column_text(st, 0))))
				err = -ENOMEM;
			else
				n++;
		}
		sqlite3_finalize(st);
	}
	pthread_mutex_unlock(&s->wlock);
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	for (i = 0; i < n; i++) {
		if (!err && !zs_sql_profile_delete(s, ids[i]))
			(*dropped)++;
		free(ids[i]);
	}
	free(ids);
	if (err)
		zt_say(msg, msglen, "cannot read the catalogue: %s", strerror(-err));
	return err;
}

/* ---- aggregates ------------------------------------------------------------------ */

static inline uint64_t agg_hash_at(const void *ctx, uint32_t i)
{
	const struct zs_sql *s = ctx;

	return zt_hash_mix(0, (uint64_t)s->aggs[i].rid);
}

static const struct agg_ent *agg_find(const struct zs_sql *s, int64_t rid, int timed)
{
	size_t j;
	uint32_t k;

	if (!s->ahash.cap)
		return NULL;
	for (j = zt_htab_first(&s->ahash, zt_hash_mix(0, (uint64_t)rid)); zt_htab_get(&s->ahash, j, &k);
	     j = zt_htab_next(&s->ahash, j))
		if (s->aggs[k].rid == rid && s->aggs[k].timed == timed)
			return &s->aggs[k];
	return NULL;
}

int zs_agg_visit(struct zs_sql *s, sqlite3 *db, int64_t rid, int timed,
		 void (*fn)(void *ctx, const uint8_t *agg, size_t len, int timed), void *ctx)
{
	const struct agg_ent *e;
	sqlite3_stmt *st;
	uint8_t *data;
	size_t len;
	int rc;

	pthread_rwlock_rdlock(&s->alock);
	e = agg_find(s, rid, timed);
	if (e)
		fn(ctx, e->data, e->len, e->timed);
	pthread_rwlock_unlock(&s->alock);
	if (e)
		return 0;
	/* a row from before tagg: its agg (no times, no processes) */
	if (sqlite3_prepare_v2(db, timed ? "SELECT tagg, tagg IS NOT NULL, agg FROM profiles WHERE rid=?"
					 : "SELECT agg, 0 FROM profiles WHERE rid=?",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, rid);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? -ENOENT : -EIO;
	}
	{
		int col = timed && !sqlite3_column_int(st, 1) ? 2 : 0;

		timed = timed && col == 0;
		len = (size_t)sqlite3_column_bytes(st, col);
		data = malloc(len + 1);
		if (!data) {
			sqlite3_finalize(st);
			return -ENOMEM;
		}
		if (len)
			memcpy(data, sqlite3_column_blob(st, col), len);
	}
	sqlite3_finalize(st);
	fn(ctx, data, len, timed);
	pthread_rwlock_wrlock(&s->alock);
	if (!agg_find(s, rid, timed) && !zt_htab_reserve(&s->ahash, 1, agg_hash_at, s) &&
	    !ZT_GROW(s->aggs, s->cap_aggs, s->nr_aggs + 1)) {
		s->aggs[s->nr_aggs] = (struct agg_ent){ rid, data, len, timed };
		zt_htab_add(&s->ahash, zt_hash_mix(0, (uint64_t)rid), (uint32_t)s->nr_aggs++);
		data = NULL;
	}
	pthread_rwlock_unlock(&s->alock);
	free(data);
	return 0;
}

static int uv(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return -EBADMSG;
}

int zs_agg_next(struct zs_agg_cur *c, uint64_t *stack, uint64_t *count, uint64_t *weight)
{
	uint64_t d;

	if (c->p >= c->end || uv(&c->p, c->end, &d) || uv(&c->p, c->end, count) ||
	    uv(&c->p, c->end, weight))
		return -EBADMSG;
	c->stack += d;
	*stack = c->stack;
	return 0;
}

/* ---- symbols ---------------------------------------------------------------------- */

/* The size of id's GSYM as catalogued. 0 or -EIO. */
static int sym_size(sqlite3 *db, const char *id, uint64_t *size)
{
	sqlite3_stmt *st;
	int rc;

	*size = 0;
	if (sqlite3_prepare_v2(db, "SELECT size FROM symbols WHERE id=?", -1, &st, NULL) !=
	    SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
		*size = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

/* The quality of id's symbols as catalogued into *q (when not NULL): 1,
 * 0 when id has none, or -EIO. */
static int sym_quality(sqlite3 *db, const char *id, int *q)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT quality FROM symbols WHERE id=?", -1, &st, NULL) !=
	    SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && q)
		*q = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -EIO;
}

/* The same from a reader's connection: -ENOENT when id has none. */
static int sym_quality_ro(struct zs_sql *s, const char *hex, int *q)
{
	sqlite3 *db;
	int rc = zs_db_get(s, &db);

	if (rc)
		return rc;
	rc = sym_quality(db, hex, q);
	zs_db_put(s, db);
	return rc == 1 ? 0 : rc ? rc : -ENOENT;
}

int zs_sql_symbols_below(struct zs_sql *s, const char *text, size_t len, int want, struct zbuf *out,
			 char *msg, size_t msglen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t off = 0, lines = 0;
	int err;

	if ((err = zs_db_get(s, &db)))
		return err;
	if (sqlite3_prepare_v2(db, "SELECT quality FROM symbols WHERE id=?", -1, &st, NULL) !=
	    SQLITE_OK) {
		zs_db_put(s, db);
		return -EIO;
	}
	while (off < len && !err) {
		const char *line = text + off, *nl = memchr(line, '\n', len - off);
		size_t n = nl ? (size_t)(nl - line) : len - off;
		struct prof_build_id b;
		char hex[41];
		int rc;

		off += n + (nl ? 1 : 0);
		if (n && line[n - 1] == '\r')
			n--;
		if (!n)
			continue;
		if (++lines > 100000) {
			zt_say(msg, msglen, "too many ids (at most 100000)");
			err = -E2BIG;
			break;
		}
		if (prof_build_id_from_hex(line, n, &b)) {
			zt_say(msg, msglen, "line %zu is not a build id or file id (2 to 40 hex digits)",
			    lines);
			err = -EINVAL;
			break;
		}
		zt_hex_encode(b.data, b.len, hex);
		sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE) {
			zbuf_put(out, hex, strlen(hex));
			zbuf_put_u8(out, '\n');
		} else if (rc != SQLITE_ROW) {
			err = -EIO;
		} else if (sqlite3_column_int(st, 0) < want) {
			const char *q = zs_quality_name(sqlite3_column_int(st, 0));

			zbuf_put(out, hex, strlen(hex));
			zbuf_put_u8(out, ' ');
			zbuf_put(out, q, strlen(q));
			zbuf_put_u8(out, '\n');
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	zs_db_put(s, db);
	if (!err && out->err)
		err = -ENOMEM;
	return err;
}

int zs_sql_symbol_stat(struct zs_sql *s, const char *id, char etag[65])
{
	struct prof_build_id b;
	sqlite3_stmt *st;
	sqlite3 *db;
	char hex[41];
	int rc, err;

	if (canon_sym_id(id, hex, &b))
		return -EINVAL;
	if ((err = zs_db_get(s, &db)))
		return err;
	rc = sqlite3_prepare_v2(db, "SELECT sha256 FROM symbols WHERE id=?", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && etag)
			snprintf(etag, 65, "%s", (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	zs_db_put(s, db);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -ENOENT : -EIO;
}

int zs_sql_symbol_quality(struct zs_sql *s, const char *id)
{
	struct prof_build_id b;
	char hex[41];
	int q = -1, err;

	if (canon_sym_id(id, hex, &b))
		return -EINVAL;
	err = sym_quality_ro(s, hex, &q);
	return err ? err : q;
}

int zs_sql_symbol_get(struct zs_sql *s, const char *id, void **data, size_t *len)
{
	struct prof_build_id b;
	char hex[41], path[4096];
	int err;

	if (canon_sym_id(id, hex, &b))
		return -EINVAL;
	if ((err = zs_sql_symbol_stat(s, hex, NULL)))
		return err;
	snprintf(path, sizeof(path), "%s/%s.gsym", s->gsymdir, hex);
	err = zt_read_file(path, MAX_GSYM, (char **)data, len);
	return err == -ENOENT ? -ENOENT : err;
}

int zs_symbol_meta_parse_load(const char *str, struct zs_symbol_meta *m)
{
	const char *p = str;

	m->nr_segs = 0;
	if (!str || !*str)
		return 0;
	for (;;) {
		unsigned long long v[3];
		int i;
		char *end;

		if (m->nr_segs >= 16)
			return -EINVAL;
		for (i = 0; i < 3; i++) {
			if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
			      (*p >= 'A' && *p <= 'F')))
				return -EINVAL;
			errno = 0;
			v[i] = strtoull(p, &end, 16);
			if (errno || end - p > 16)
				return -EINVAL;
			p = end;
			if (i < 2 && *p++ != ':')
				return -EINVAL;
		}
		m->segs[m->nr_segs].off = v[0];
		m->segs[m->nr_segs].vaddr = v[1];
		m->segs[m->nr_segs].size = v[2];
		m->nr_segs++;
		if (!*p)
			return 0;
		if (*p++ != ',')
			return -EINVAL;
	}
}

/* The meta text of an upload: symmod's lines (what the symbolizer reads)
 * and the store's own, which symmod skips: the GSYM's sha256, the
 * description and file name sent with it. */
static int meta_text(const struct zs_symbol_meta *m, const char *sum, struct zbuf *meta)
{
	const char *src = m->source ? m->source : "uploaded";
	struct symstore_seg segs[16];
	size_t i;

	for (i = 0; i < m->nr_segs; i++)
		segs[i] = (struct symstore_seg){ m->segs[i].off, m->segs[i].vaddr, m->segs[i].size };
	if (symstore_meta_format(meta, m->quality, m->quality == SYMSTORE_FULL ? "" :
			       strcmp(src, "uploaded") ? "no debug info" :
			       "uploaded without debug info",
			       src, segs, m->nr_segs))
		return -ENOMEM;
	zbuf_put(meta, "sha256 ", 7);
	zbuf_put(meta, sum, strlen(sum));
	zbuf_put_u8(meta, '\n');
	if (m->description && *m->description && !strchr(m->description, '\n')) {
		zbuf_put(meta, "description ", 12);
		zbuf_put(meta, m->description, strlen(m->description));
		zbuf_put_u8(meta, '\n');
	}
	if (m->file && *m->file && !strchr(m->file, '\n')) {
		zbuf_put(meta, "file ", 5);
		zbuf_put(meta, m->file, strlen(m->file));
		zbuf_put_u8(meta, '\n');
	}
	return meta->err ? -ENOMEM : 0;
}

static int gsym_from_remote(struct zs_sql *s, const char *hex, int replace, const char *have_sum);

/* Why an upload of quality q was refused: id keeps its had-quality symbols. */
static void kept_msg(char *msg, size_t msglen, const char *hex, int had, int q)
{
	zt_say(msg, msglen, "the store keeps the %s symbols it has for %s (this upload: %s)%s",
	       zs_quality_name(had), hex, zs_quality_name(q),
	       had > q ? ": a worse upload replaces them only when forced" : "");
}

/* The quality stored of an upload's GSYM image img that says m->quality
 * (-1: nothing): the lower of that and what the image holds; -EBADMSG. */
static int upload_quality(const struct zt_image *img, const struct zs_symbol_meta *m, char *msg,
			  size_t msglen)
{
	int judged = zs_gsym_quality(img->data, img->len);

	if (judged < 0) {
		zt_say(msg, msglen, "the GSYM image does not read back");
		return -EBADMSG;
	}
	return zs_quality_stored(m->quality, judged);
}

/*
 * Put a GSYM. ready_meta: the meta text as the remote has it (a fetch from
 * the remote: nothing is put back there); else it is made from m and the
 * GSYM and meta are put to the remote before they are renamed into place.
 * only_better: only when id has no symbols or worse ones (-EEXIST). drop:
 * forget the symbolizer's frames of id, after the write lock is released
 * (the symbolizer holds its own lock while it stores here).
 */
static int symbol_put(struct zs_sql *s, const char *id, const char *tmp_path,
		      const struct zs_symbol_meta *m, int only_better, struct zs_symbol_put *res,
		      char *msg, size_t msglen, int drop, const struct zbuf *ready_meta)
{
	char hex[41], gpath[4096], mpath[4096], mtmp[4096] = "", sum[65], key[128];
	const char *quality_src = m && m->source ? m->source : "uploaded";
	/* a client's upload (not the symbolizer's, not the remote's copy):
	 * within the symbol store's limits, its quality judged */
	int upload = drop && !ready_meta;
	uint64_t gsize = 0, replaced = 0, limit;
	const char *opt;
	struct zs_symbol_put dummy;
	struct zs_symbol_meta mq;
	struct prof_build_id b;
	struct zt_image img;
	struct zbuf meta;
	uint8_t md[32];
	sqlite3_stmt *st;
	int err, had = 0, had_q = -1, rc;

	if (!res)
		res = &dummy;
	*res = (struct zs_symbol_put){0, -1, -1};
	zt_say(msg, msglen, "%s", "");
	zbuf_init(&meta);
	if (canon_sym_id(id, hex, &b) || !m || m->quality < (upload ? -1 : 0) || m->quality > 2 ||
	    m->nr_segs > 16) {
		zt_say(msg, msglen, "bad symbol id or metadata");
		if (!zs_sql_map_tmp(s, tmp_path, &img)) {
			zt_image_close(&img);
			unlink(tmp_path);
		}
		return -EINVAL;
	}
	if ((err = zs_sql_map_tmp(s, tmp_path, &img))) {
		zt_say(msg, msglen, "cannot read the upload: %s", strerror(-err));
		return err == -EINVAL ? -EINVAL : -EIO;
	}
	gsize = img.len;
	mq = *m;
	err = symstore_check_gsym(img.data, img.len, &b, msg, msglen);
	if (!err && upload && (mq.quality = upload_quality(&img, m, msg, msglen)) < 0)
		err = mq.quality;
	if (!err)
		err = zt_sha256(img.data, img.len, md);
	if (!err && upload)
		err = zs_sql_symfile_admit(s, hex, ZS_KIND_GSYM, NULL, gsize, &limit, &opt, msg,
				       msglen);
	zt_image_close(&img);
	if (err) {
		unlink(tmp_path);
		return err;
	}
	res->quality = mq.quality;
	zt_hex_encode(md, 32, sum);
	if (ready_meta)
		zbuf_put(&meta, ready_meta->data, ready_meta->len);
	else if (meta_text(&mq, sum, &meta))
		meta.err = 1;
	if (meta.err) {
		zbuf_release(&meta);
		unlink(tmp_path);
		return -ENOMEM;
	}
	snprintf(gpath, sizeof(gpath), "%s/%s.gsym", s->gsymdir, hex);
	snprintf(mpath, sizeof(mpath), "%s/%s.meta", s->gsymdir, hex);
	if ((err = zs_fsync_path(tmp_path)) || (err = tmp_write(s, meta.data, meta.len, mtmp, sizeof(mtmp))))
		goto out_nolock;
	if (!ready_meta) {
		snprintf(key, sizeof(key), "symbols/gsym/%s.gsym", hex);
		err = sym_quality_ro(s, hex, &had_q);
		/* the remote's copy is id's symbols too: fetched to be compared */
		if (err == -ENOENT && only_better && zs_remote_has(s, key) &&
		    (gsym_from_remote(s, hex, 0, NULL) || (err = sym_quality_ro(s, hex, &had_q)))) {
			err = -EEXIST;
			zt_say(msg, msglen, "the remote symbol store has symbols for %s", hex);
			goto out_nolock;
		}
		if (err == -ENOENT)
			had_q = -1;
		else if (err)
			goto out_nolock;
		err = 0;
		if (only_better && had_q >= mq.quality) {
			err = -EEXIST;
			res->had = had_q;
			kept_msg(msg, msglen, hex, had_q, mq.quality);
			goto out_nolock;
		}
		/* the remote first (the meta, then the GSYM whose presence
		 * means complete): a refused put leaves nothing anywhere */
		snprintf(key, sizeof(key), "symbols/gsym/%s.meta", hex);
		if ((err = zs_remote_put(s, key, mtmp, msg, msglen)))
			goto out_nolock;
		snprintf(key, sizeof(key), "symbols/gsym/%s.gsym", hex);
		if ((err = zs_remote_put(s, key, tmp_path, msg, msglen)))
			goto out_nolock;
	}
	pthread_mutex_lock(&s->wlock);
	had_q = -1;
	had = sym_quality(s->wdb, hex, &had_q);
	if (had < 0) {
		err = -EIO;
		goto out;
	}
	res->had = had ? had_q : -1;
	if (had && only_better && had_q >= mq.quality) {
		err = -EEXIST;
		kept_msg(msg, msglen, hex, had_q, mq.quality);
		goto out;
	}
	if (had && (err = sym_size(s->wdb, hex, &replaced)))
		goto out;
	if (upload && (err = zs_symfile_room(s, s->wdb, hex, ZS_KIND_GSYM, gsize, !had, replaced,
					     &limit, &opt, msg, msglen)))
		goto out;
	/* files first, then the row: a crash in between leaves new files
	 * without a row (removed at the next open) or, when replacing, the
	 * new symbols under the old row */
	rc = sqlite3_prepare_v2(s->wdb,
				"INSERT OR REPLACE INTO symbols(id, sha256, quality, size, created,"
				" source) VALUES(?,?,?,?,?,?)",
				-1, &st, NULL);
	if (rc == SQLITE_OK) {
		struct stat sb;

		sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, sum, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, mq.quality);
		sqlite3_bind_int64(st, 4, stat(tmp_path, &sb) ? 0 : (int64_t)sb.st_size);
		sqlite3_bind_int64(st, 5, (int64_t)time(NULL));
		sqlite3_bind_text(st, 6, quality_src, -1, SQLITE_STATIC);
		if (rename(tmp_path, gpath) || rename(mtmp, mpath)) {
			err = -errno;
			sqlite3_finalize(st);
			unlink(gpath);
			unlink(mpath);
			goto out;
		}
		if ((err = zs_fsync_dir(s->gsymdir))) {
			sqlite3_finalize(st);
			goto out_files;
		}
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	if (rc != SQLITE_DONE) {
		err = db_err(s->wdb, rc);
		goto out_files;
	}
	res->created = !had;
	zs_sql_symbytes_add(s, (int64_t)gsize - (int64_t)replaced);
	goto out;
out_files:
	if (!had) {
		unlink(gpath);
		unlink(mpath);
	}
out:
	pthread_mutex_unlock(&s->wlock);
	if (!err && drop)
		zs_sql_drop(s, &b);
out_nolock:
	unlink(tmp_path);
	if (err && mtmp[0])
		unlink(mtmp);
	zbuf_release(&meta);
	if (err == -ENOSPC || err == -EDQUOT)
		zt_say(msg, msglen, "the server's disk is full: the symbols were not stored");
	return err;
}

int zs_sql_symbol_put(struct zs_sql *s, const char *id, const char *tmp_path,
		      const struct zs_symbol_meta *m, int only_better, struct zs_symbol_put *r,
		      char *msg, size_t msglen)
{
	return symbol_put(s, id, tmp_path, m, only_better, r, msg, msglen, 1, NULL);
}

int zs_sql_symbol_put_nodrop(struct zs_sql *s, const char *id, const char *tmp_path,
			     const struct zs_symbol_meta *m, int only_better,
			     struct zs_symbol_put *r, char *msg, size_t msglen)
{
	return symbol_put(s, id, tmp_path, m, only_better, r, msg, msglen, 0, NULL);
}

/* ---- GSYM files for GET and HEAD, and the remote's copies ---------------------------- */

/* The lines of a meta the server answers with (quality, load, description)
 * into f, and its sha256 line into sum ("" when none). */
static void meta_parse(char *text, struct zs_symfile *f, char sum[65])
{
	char *line, *save = NULL;

	sum[0] = '\0';
	f->meta.quality = 0;
	f->meta.nr_segs = 0;
	f->meta.description = NULL;
	f->desc[0] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b, c;
		int q;

		if (sscanf(line, "quality %d", &q) == 1 && q >= 0 && q <= 2) {
			f->meta.quality = q;
		} else if (sscanf(line, "load %llx %llx %llx", &a, &b, &c) == 3) {
			if (f->meta.nr_segs < 16) {
				f->meta.segs[f->meta.nr_segs].off = a;
				f->meta.segs[f->meta.nr_segs].vaddr = b;
				f->meta.segs[f->meta.nr_segs].size = c;
				f->meta.nr_segs++;
			}
		} else if (!strncmp(line, "description ", 12) &&
			   strlen(line + 12) < sizeof(f->desc)) {
			snprintf(f->desc, sizeof(f->desc), "%s", line + 12);
			f->meta.description = f->desc;
		} else if (!strncmp(line, "sha256 ", 7) && strlen(line + 7) == 64) {
			snprintf(sum, 65, "%s", line + 7);
		}
	}
}

/* The remote's GSYM of hex into DIR (replace: over the local one). 0 when
 * stored, -ENOENT, others. */
static int gsym_from_remote(struct zs_sql *s, const char *hex, int replace, const char *have_sum)
{
	char key[128], mtmp[4096], gtmp[4096] = "", sum[65], gsum[65], msg[256];
	struct zs_symfile f = { .fd = -1 };
	struct zs_symbol_meta m = { 0 };
	struct zbuf meta;
	char *text = NULL;
	size_t len;
	int err, fd;

	snprintf(key, sizeof(key), "symbols/gsym/%s.meta", hex);
	if ((err = zs_remote_get(s, key, mtmp, sizeof(mtmp))))
		return err;
	err = zt_read_file(mtmp, 1 << 20, &text, &len);
	unlink(mtmp);
	if (err)
		return err;
	zbuf_init(&meta);
	zbuf_put(&meta, text, len);
	meta_parse(text, &f, sum);
	free(text);
	if (have_sum && sum[0] && !strcmp(sum, have_sum)) {
		err = 0; /* the same as here */
		goto out;
	}
	snprintf(key, sizeof(key), "symbols/gsym/%s.gsym", hex);
	if ((err = zs_remote_get(s, key, gtmp, sizeof(gtmp))))
		goto out;
	fd = open(gtmp, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? -errno : zt_sha256_fd_hex(fd, ZT_SHA256_ALL, gsum);
	if (fd >= 0)
		close(fd);
	if (!err && sum[0] && strcmp(sum, gsum))
		err = -EAGAIN; /* a put in progress there: the meta is newer */
	if (err) {
		unlink(gtmp);
		goto out;
	}
	m.quality = f.meta.quality;
	m.source = "remote";
	err = symbol_put(s, hex, gtmp, &m, !replace, NULL, msg, sizeof(msg), replace, &meta);
	if (err == -EEXIST)
		err = 0;
	if (err)
		zt_warn("the remote store's GSYM of %s is refused: %s", hex,
			msg[0] ? msg : strerror(-err));
out:
	zbuf_release(&meta);
	return err;
}

void zs_symbol_fetch_remote(struct zs_sql *s, const char *hex)
{
	if (s->remote && zs_sql_symbol_stat(s, hex, NULL) == -ENOENT)
		gsym_from_remote(s, hex, 0, NULL);
}

#define RECHECK_S 60

int zs_symbol_open(struct zs_sql *s, const char *id, struct zs_symfile *f)
{
	char hex[41], path[4096], sum[65], *text = NULL;
	struct prof_build_id b;
	struct stat st;
	size_t len;
	int err;

	if (canon_sym_id(id, hex, &b))
		return -EINVAL;
	err = zs_sql_symbol_stat(s, hex, f->etag);
	if (err == -ENOENT && s->remote) {
		if (gsym_from_remote(s, hex, 0, NULL))
			return -ENOENT;
		err = zs_sql_symbol_stat(s, hex, f->etag);
	}
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/%s.meta", s->gsymdir, hex);
	/* replaced on another server sharing the remote? asked once a minute */
	if (s->remote && !stat(path, &st) && time(NULL) - st.st_mtime > RECHECK_S) {
		err = gsym_from_remote(s, hex, 1, f->etag);
		if (!err || err == -ENOENT)
			utimensat(AT_FDCWD, path, NULL, 0);
		if ((err = zs_sql_symbol_stat(s, hex, f->etag)))
			return err;
	}
	if (!zt_read_file(path, 1 << 20, &text, &len)) {
		meta_parse(text, f, sum);
		free(text);
	}
	snprintf(path, sizeof(path), "%s/%s.gsym", s->gsymdir, hex);
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (f->fd < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	if (fstat(f->fd, &st)) {
		err = -errno;
		zs_symfile_close(f);
		return err;
	}
	f->size = (uint64_t)st.st_size;
	return 0;
}

/* ---- stats ------------------------------------------------------------------------ */

void zs_sql_stats(struct zs_sql *s, int profiles, struct zs_store_stats *st)
{
	sqlite3_stmt *q;
	sqlite3 *db;

	if (zs_db_get(s, &db))
		return;
	if (sqlite3_prepare_v2(db,
			       "SELECT count(*), coalesce(sum(samples),0), coalesce(sum(size),0),"
			       " (SELECT count(*) FROM symbols) FROM profiles",
			       -1, &q, NULL) == SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW) {
			if (profiles) {
				st->profiles = (uint64_t)sqlite3_column_int64(q, 0);
				st->samples = (uint64_t)sqlite3_column_int64(q, 1);
				st->bytes = (uint64_t)sqlite3_column_int64(q, 2);
			}
			st->symbols = (uint64_t)sqlite3_column_int64(q, 3);
		}
		sqlite3_finalize(q);
	}
	zs_db_put(s, db);
}
