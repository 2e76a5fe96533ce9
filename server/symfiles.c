/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt serve's symbol files other than GSYM (debug files, executables,
 * sources): validation, atomic storage, the remote seam (server/blobstore.h)
 * and debuginfod upstreams. The catalogue row (table symfiles) is what makes
 * a file stored; the file is renamed into place before its row is written.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libprof/log.h"
#include "libprof/text.h"
#include "server/blobstore.h"
#include "server/sqlstore.h"
#include "session/symstore.h"
#include "symbolizer/sha256.h"

/* ---- the remote ------------------------------------------------------------------ */

int zs_remote_put(struct zs_sql *s, const char *key, const char *path, char *msg, size_t n)
{
	const struct zs_remote *r = zs_sql_remote(s);
	char why[256] = "";
	int err;

	if (!r)
		return 0;
	err = r->ops->put_file(r->ctx, key, path, why, sizeof(why));
	if (err) {
		zt_warn("the remote store refused '%s': %s", key, why[0] ? why : strerror(-err));
		zt_say(msg, n, "the remote symbol store failed (%s): try again later",
		       why[0] ? why : strerror(-err));
		return -EREMOTEIO;
	}
	return 0;
}

int zs_remote_has(struct zs_sql *s, const char *key)
{
	const struct zs_remote *r = zs_sql_remote(s);
	char why[256];
	uint64_t size;

	return r && !r->ops->head(r->ctx, key, &size, why, sizeof(why));
}

int zs_remote_get(struct zs_sql *s, const char *key, char *tmp, size_t n)
{
	const struct zs_remote *r = zs_sql_remote(s);
	char why[256] = "";
	int fd, err;

	if (!r)
		return -ENOENT;
	if (snprintf(tmp, n, "%s/remote.XXXXXX", zs_sql_tmpdir(s)) >= (int)n)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	err = r->ops->get_file(r->ctx, key, tmp, why, sizeof(why));
	if (err) {
		unlink(tmp);
		tmp[0] = '\0';
		if (err != -ENOENT)
			zt_warn("cannot get '%s' from the remote store: %s", key,
				why[0] ? why : strerror(-err));
		return err == -ENOENT ? -ENOENT : -EREMOTEIO;
	}
	return 0;
}

/* ---- validation ------------------------------------------------------------------- */

/* ---- keys and rows ------------------------------------------------------------------ */

int zs_symfile_key(const char *hex, enum zs_kind kind, const char *src, char *key, size_t n)
{
	char sum[65];
	int w;

	switch (kind) {
	case ZS_KIND_GSYM:
		w = snprintf(key, n, "symbols/gsym/%s.gsym", hex);
		break;
	case ZS_KIND_DEBUGINFO:
		w = snprintf(key, n, "symbols/debuginfo/%s.debug", hex);
		break;
	case ZS_KIND_EXECUTABLE:
		w = snprintf(key, n, "symbols/executable/%s", hex);
		break;
	case ZS_KIND_SOURCE:
		if (!src || zt_sha256_hex(src, strlen(src), sum))
			return -EINVAL;
		w = snprintf(key, n, "symbols/source/%s/%s", hex, sum);
		break;
	default:
		return -EINVAL;
	}
	return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

struct row {
	char sha[65];
	uint64_t size;
	int dwarf;
};

/* The row of key: 1 (r filled when not NULL), 0, or -EIO. */
static int row_get(sqlite3 *db, const char *key, struct row *r)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT sha256, size, dwarf FROM symfiles WHERE key=?", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && r) {
		snprintf(r->sha, sizeof(r->sha), "%s", (const char *)sqlite3_column_text(st, 0));
		r->size = (uint64_t)sqlite3_column_int64(st, 1);
		r->dwarf = sqlite3_column_int(st, 2);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -EIO;
}

static int row_get_ro(struct zs_sql *s, const char *key, struct row *r)
{
	sqlite3 *db;
	int rc = zs_db_get(s, &db);

	if (rc)
		return rc;
	rc = row_get(db, key, r);
	zs_db_put(s, db);
	return rc;
}

static int row_put(sqlite3 *db, const char *key, const char *hex, enum zs_kind kind,
		   const char *sha, uint64_t size, int dwarf, const char *source)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "INSERT OR REPLACE INTO symfiles(key, id, kind, sha256, size, dwarf,"
			       " created, source) VALUES(?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, hex, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, (int)kind);
	sqlite3_bind_text(st, 4, sha, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (int64_t)size);
	sqlite3_bind_int(st, 6, dwarf);
	sqlite3_bind_int64(st, 7, (int64_t)time(NULL));
	sqlite3_bind_text(st, 8, source, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : zs_db_error(db, rc);
}

/* ---- limits ------------------------------------------------------------------------- */

/* The number a query of db (?1 the id) answers into *v: 1, 0 when it
 * answers no row (*v 0), or -EIO. */
static int db_number(sqlite3 *db, const char *sql, const char *hex, uint64_t *v)
{
	sqlite3_stmt *st;
	int rc;

	*v = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
		*v = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -EIO;
}

/* The refusal of size bytes (0: any more) past limit, set by opt. */
static void over(char *msg, size_t msglen, const char *opt, const char *hex, enum zs_kind kind,
		 uint64_t size, uint64_t limit, uint64_t used)
{
	char what[64];

	if (size)
		snprintf(what, sizeof(what), "%llu bytes", (unsigned long long)size);
	else
		snprintf(what, sizeof(what), "any more bytes");
	if (!strcmp(opt, "--max-symbols-per-id"))
		zt_say(msg, msglen,
		       "the files of %s take %llu bytes, and %s would pass the %llu this server "
		       "keeps for a build id (zt serve --max-symbols-per-id)",
		       hex, (unsigned long long)used, what, (unsigned long long)limit);
	else if (!strcmp(opt, "--max-symbol-store"))
		zt_say(msg, msglen,
		       "the symbol store holds %llu bytes, and %s would pass its %llu (zt serve "
		       "--max-symbol-store): ask the server's operator",
		       (unsigned long long)used, what, (unsigned long long)limit);
	else
		zt_say(msg, msglen,
		       "a %s of %s: this server takes at most %llu bytes for one (zt serve %s)",
		       kind == ZS_KIND_SOURCE ? "source file" : zs_kind_name(kind), what,
		       (unsigned long long)limit, opt);
}

int zs_symfile_room(struct zs_sql *s, sqlite3 *db, const char *hex, enum zs_kind kind,
		    uint64_t size, int is_new, uint64_t replaced, uint64_t *limit, const char **opt,
		    char *msg, size_t msglen)
{
	const struct zs_symlimits *l = zs_sql_symlimits(s);
	uint64_t used, room, n;
	int err;

	*limit = kind == ZS_KIND_SOURCE && l->source_size < l->max_body ? l->source_size
									: l->max_body;
	*opt = kind == ZS_KIND_SOURCE && l->source_size < l->max_body ? "--max-source-size"
								      : "--max-body";
	if (size > *limit) {
		over(msg, msglen, *opt, hex, kind, size, *limit, 0);
		return -EFBIG;
	}
	if (kind == ZS_KIND_SOURCE && is_new) {
		if ((err = db_number(db, "SELECT count(*) FROM symfiles WHERE id=?1 AND kind=3",
				     hex, &n)) < 0)
			return err;
		if (n >= l->sources) {
			zt_say(msg, msglen,
			       "%s has %llu source files, as many as this server keeps for a "
			       "build id (zt serve --max-sources)",
			       hex, (unsigned long long)n);
			return -EFBIG;
		}
	}
	if ((err = db_number(db,
			     "SELECT (SELECT IFNULL(SUM(size), 0) FROM symfiles WHERE id=?1) +"
			     " (SELECT IFNULL(SUM(size), 0) FROM symbols WHERE id=?1)",
			     hex, &used)) < 0)
		return err;
	used = used > replaced ? used - replaced : 0;
	room = l->per_id > used ? l->per_id - used : 0;
	if (room < *limit) {
		*limit = room;
		*opt = "--max-symbols-per-id";
	}
	if (l->store) {
		uint64_t all = zs_sql_symbytes(s);

		all = all > replaced ? all - replaced : 0;
		room = l->store > all ? l->store - all : 0;
		if (room < *limit) {
			*limit = room;
			*opt = "--max-symbol-store";
			used = all;
		}
	}
	if (!*limit || size > *limit) {
		over(msg, msglen, *opt, hex, kind, size,
		     !strcmp(*opt, "--max-symbols-per-id") ? l->per_id : l->store, used);
		return -EFBIG;
	}
	return 0;
}

/* The size of the file stored under key (0: none) into *size; 1 when there is one. */
static int stored_size(sqlite3 *db, const char *key, uint64_t *size)
{
	struct row r;
	int rc = row_get(db, key, &r);

	*size = rc == 1 ? r.size : 0;
	return rc;
}

int zs_sql_symfile_admit(struct zs_sql *s, const char *id, enum zs_kind kind, const char *src,
		     uint64_t size, uint64_t *limit, const char **limit_opt, char *msg,
		     size_t msglen)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1], key[256];
	struct prof_build_id b;
	uint64_t replaced = 0;
	sqlite3 *db;
	int had, rc;

	zt_say(msg, msglen, "%s", "");
	if (kind >= ZS_NR_KINDS || prof_build_id_from_hex(id, strlen(id), &b)) {
		zt_say(msg, msglen, "bad symbol id, kind or path");
		return -EINVAL;
	}
	zt_hex_encode(b.data, b.len, hex);
	if (kind != ZS_KIND_GSYM && zs_symfile_key(hex, kind, src, key, sizeof(key))) {
		zt_say(msg, msglen, "bad source path");
		return -EINVAL;
	}
	if ((kind == ZS_KIND_DEBUGINFO || kind == ZS_KIND_SOURCE) && !zs_sql_symfile_has(s, hex)) {
		zt_say(msg, msglen,
		       "the store has no symbols, executable or debug file for %s: upload its "
		       "symbols or executable first (zt symbols upload --with-debuginfo does, in "
		       "that order)",
		       hex);
		return -ENOENT;
	}
	if ((rc = zs_db_get(s, &db)))
		return rc;
	had = kind == ZS_KIND_GSYM
		      ? db_number(db, "SELECT size FROM symbols WHERE id=?1", hex, &replaced)
		      : stored_size(db, key, &replaced);
	rc = had < 0 ? had
		     : zs_symfile_room(s, db, hex, kind, size, !had, replaced, limit, limit_opt,
				       msg, msglen);
	zs_db_put(s, db);
	return rc;
}

/* ---- put ---------------------------------------------------------------------------- */

/* A new synced file in DIR/tmp holding text. */
static int tmp_text(struct zs_sql *s, const char *text, char *path, size_t n)
{
	size_t len = strlen(text);
	int fd, err = 0;

	if (snprintf(path, n, "%s/path.XXXXXX", zs_sql_tmpdir(s)) >= (int)n)
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len || write(fd, "\n", 1) != 1)
		err = errno ? -errno : -EIO;
	if (!err && fsync(fd))
		err = -errno;
	close(fd);
	if (err)
		unlink(path);
	return err;
}

enum { FROM_UPLOAD, FROM_REMOTE, FROM_UPSTREAM };

static int make_gsym(struct zs_sql *s, const char *hex, int debuginfod, int drop);

static int put(struct zs_sql *s, const char *id, enum zs_kind kind, const char *src,
	       const char *tmp_path, int only_new, int *created, int from, char *msg, size_t msglen)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1], key[256], pkey[272], final[4096], pfinal[4096],
		ptmp[4096] = "", dir[4096], sha[65];
	const char *sdir = zs_sql_dir(s);
	struct prof_build_id b;
	struct stat st;
	uint64_t replaced = 0;
	int fd = -1, err, dwarf = 0, had = 0;

	if (created)
		*created = 0;
	zt_say(msg, msglen, "%s", "");
	if (!zs_sql_tmp_ok(s, tmp_path)) {
		zt_say(msg, msglen, "the upload is not in the store's tmp directory");
		return -EINVAL;
	}
	if (kind == ZS_KIND_GSYM || kind >= ZS_NR_KINDS || prof_build_id_from_hex(id, strlen(id), &b) ||
	    (kind == ZS_KIND_SOURCE && !src)) {
		zt_say(msg, msglen, "bad symbol id, kind or path");
		err = -EINVAL;
		goto out;
	}
	zt_hex_encode(b.data, b.len, hex);
	if ((err = zs_symfile_key(hex, kind, src, key, sizeof(key)))) {
		zt_say(msg, msglen, "bad source path");
		goto out;
	}
	snprintf(pkey, sizeof(pkey), "%s.path", key);
	fd = open(tmp_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &st)) {
		err = errno == ENOENT ? -EIO : -errno; /* -ENOENT: an unknown id */
		zt_say(msg, msglen, "cannot read the upload: %s", strerror(errno));
		goto out;
	}
	if (kind != ZS_KIND_SOURCE) {
		if ((err = symstore_check_elf(fd, &b, &dwarf, msg, msglen)))
			goto out;
		if (kind == ZS_KIND_DEBUGINFO && !dwarf) {
			zt_say(msg, msglen,
			       "the ELF file has no DWARF (.debug_info or .debug_line): a debug "
			       "file has (objcopy --only-keep-debug of a program built with -g)");
			err = -EBADMSG;
			goto out;
		}
	}
	if ((err = zt_sha256_fd_hex(fd, ZT_SHA256_ALL, sha)))
		goto out;
	if (fsync(fd)) {
		err = -errno;
		goto out;
	}
	/* what a client uploads: for a known id, within the limits (checked
	 * here before the remote gets it, and again under the lock) */
	if (from == FROM_UPLOAD) {
		uint64_t limit;
		const char *opt;

		err = zs_sql_symfile_admit(s, hex, kind, src, (uint64_t)st.st_size, &limit, &opt, msg,
				       msglen);
		if (err)
			goto out;
	}
	if (only_new && from == FROM_UPLOAD) {
		had = row_get_ro(s, key, NULL);
		if (had < 0) {
			err = had;
			goto out;
		}
		if (had || zs_remote_has(s, key)) {
			zt_say(msg, msglen, "the store has this %s of %s", zs_kind_name(kind), hex);
			err = -EEXIST;
			goto out;
		}
	}
	if (kind == ZS_KIND_SOURCE && (err = tmp_text(s, src, ptmp, sizeof(ptmp))))
		goto out;
	/* the remote first: a refused put leaves nothing anywhere */
	if (from != FROM_REMOTE &&
	    ((ptmp[0] && (err = zs_remote_put(s, pkey, ptmp, msg, msglen))) ||
	     (err = zs_remote_put(s, key, tmp_path, msg, msglen))))
		goto out;
	if (snprintf(final, sizeof(final), "%s/%s", sdir, key) >= (int)sizeof(final) ||
	    snprintf(pfinal, sizeof(pfinal), "%s/%s", sdir, pkey) >= (int)sizeof(pfinal)) {
		err = -ENAMETOOLONG;
		goto out;
	}
	snprintf(dir, sizeof(dir), "%s", final);
	*strrchr(dir, '/') = '\0';
	pthread_mutex_lock(zs_sql_wlock(s));
	had = stored_size(zs_sql_wdb(s), key, &replaced);
	if (had < 0) {
		err = had;
		goto unlock;
	}
	if (had && only_new) {
		zt_say(msg, msglen, "the store has this %s of %s", zs_kind_name(kind), hex);
		err = -EEXIST;
		goto unlock;
	}
	if (from == FROM_UPLOAD) {
		uint64_t limit;
		const char *opt;

		err = zs_symfile_room(s, zs_sql_wdb(s), hex, kind, (uint64_t)st.st_size, !had,
				      replaced, &limit, &opt, msg, msglen);
		if (err)
			goto unlock;
	}
	if ((err = symstore_mkdirs(dir)))
		goto unlock;
	if ((ptmp[0] && rename(ptmp, pfinal)) || rename(tmp_path, final)) {
		err = -errno;
		goto unlock;
	}
	ptmp[0] = '\0';
	err = zs_fsync_dir(dir);
	if (!err)
		err = row_put(zs_sql_wdb(s), key, hex, kind, sha, (uint64_t)st.st_size, dwarf,
			      from == FROM_UPLOAD   ? "uploaded"
			      : from == FROM_REMOTE ? "remote"
						    : "debuginfod");
	if (err && !had) {
		unlink(final);
		if (kind == ZS_KIND_SOURCE)
			unlink(pfinal);
	}
	if (!err)
		zs_sql_symbytes_add(s, (int64_t)st.st_size - (int64_t)replaced);
	if (!err && created)
		*created = !had;
unlock:
	pthread_mutex_unlock(zs_sql_wlock(s));
	/* the symbolizer may make symbols of it now (an upload only: the
	 * symbolizer itself stores the others, holding its lock) */
	if (!err && from == FROM_UPLOAD && kind != ZS_KIND_SOURCE)
		zs_sql_drop(s, &b);
	/* DWARF for an id whose GSYM has less (names from a push): the
	 * store keeps the best symbols it has been given, so a GSYM made of
	 * it replaces that one, and its profiles are symbolized anew */
	if (!err && from == FROM_UPLOAD && dwarf && zs_sql_symbol_quality(s, hex) >= 0 &&
	    zs_sql_symbol_quality(s, hex) < SYMSTORE_FULL) {
		int e = make_gsym(s, hex, 0, 1);

		if (e && e != -EEXIST)
			zt_warn("cannot make the symbols of %s of its %s: %s", hex,
				zs_kind_name(kind), strerror(-e));
	}
out:
	if (fd >= 0)
		close(fd);
	unlink(tmp_path);
	if (ptmp[0])
		unlink(ptmp);
	if (err == -ENOSPC || err == -EDQUOT)
		zt_say(msg, msglen, "the server's disk is full: the file was not stored");
	else if (err && err != -EBADMSG && err != -EEXIST && err != -EREMOTEIO && err != -EINVAL &&
		 err != -EFBIG && err != -ENOENT && msg && !msg[0])
		zt_say(msg, msglen, "cannot store the file: %s", strerror(-err));
	return err;
}

int zs_sql_symfile_put(struct zs_sql *s, const char *id, enum zs_kind kind, const char *src,
		   const char *tmp_path, int only_new, int *created, char *msg, size_t msglen)
{
	return put(s, id, kind, src, tmp_path, only_new, created, FROM_UPLOAD, msg, msglen);
}

/* ---- open ---------------------------------------------------------------------------- */

void zs_symfile_close(struct zs_symfile *f)
{
	if (f && f->fd >= 0)
		close(f->fd);
	if (f)
		f->fd = -1;
}

/* From the local store: 0, -ENOENT, or another negative errno. */
static int open_local(struct zs_sql *s, const char *key, struct zs_symfile *f)
{
	char path[4096];
	struct row r;
	struct stat st;
	int rc = row_get_ro(s, key, &r);

	if (rc <= 0)
		return rc ? rc : -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", zs_sql_dir(s), key);
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (f->fd < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	if (fstat(f->fd, &st) || !S_ISREG(st.st_mode)) {
		zs_symfile_close(f);
		return -EIO;
	}
	f->size = (uint64_t)st.st_size;
	f->dwarf = r.dwarf;
	memcpy(f->etag, r.sha, sizeof(f->etag));
	return 0;
}

int zs_sql_symfile_open(struct zs_sql *s, const char *id, enum zs_kind kind, const char *src,
		    struct zs_symfile *f)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1], key[256], tmp[4096], msg[256];
	struct prof_build_id b;
	int rc;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (kind == ZS_KIND_GSYM)
		return zs_symbol_open(s, id, f);
	if (prof_build_id_from_hex(id, strlen(id), &b))
		return -EINVAL;
	zt_hex_encode(b.data, b.len, hex);
	if (zs_symfile_key(hex, kind, src, key, sizeof(key)))
		return -EINVAL;
	rc = open_local(s, key, f);
	if (rc != -ENOENT)
		return rc;
	/* a local miss: the remote's copy, validated as an upload is */
	rc = zs_remote_get(s, key, tmp, sizeof(tmp));
	if (rc)
		return rc == -EREMOTEIO ? -EREMOTEIO : -ENOENT;
	rc = put(s, hex, kind, src, tmp, 0, NULL, FROM_REMOTE, msg, sizeof(msg));
	if (rc) {
		zt_warn("the remote store's '%s' is refused: %s", key,
			msg[0] ? msg : strerror(-rc));
		return rc == -EBADMSG ? -ENOENT : rc;
	}
	return open_local(s, key, f);
}

unsigned zs_sql_symfile_has(struct zs_sql *s, const char *id)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1], key[256];
	struct prof_build_id b;
	unsigned has = 0, k;

	if (prof_build_id_from_hex(id, strlen(id), &b))
		return 0;
	zt_hex_encode(b.data, b.len, hex);
	if (!zs_sql_symbol_stat(s, hex, NULL))
		has |= 1u << ZS_KIND_GSYM;
	for (k = ZS_KIND_DEBUGINFO; k <= ZS_KIND_EXECUTABLE; k++)
		if (!zs_symfile_key(hex, (enum zs_kind)k, NULL, key, sizeof(key)) &&
		    (row_get_ro(s, key, NULL) == 1 || zs_remote_has(s, key)))
			has |= 1u << k;
	return has;
}

/* ---- debuginfod upstreams ------------------------------------------------------------ */

/* Copy the file at from into a new file in DIR/tmp (a debuginfod client's
 * cache file stays the cache's). */
static int copy_to_tmp(struct zs_sql *s, const char *from, char *tmp, size_t n)
{
	char buf[1 << 16];
	int in, out, err = 0;

	if (snprintf(tmp, n, "%s/upstream.XXXXXX", zs_sql_tmpdir(s)) >= (int)n)
		return -ENAMETOOLONG;
	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = mkostemp(tmp, O_CLOEXEC);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	for (;;) {
		ssize_t r = read(in, buf, sizeof(buf)), w = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = r < 0 ? -errno : 0;
			break;
		}
		while (w < r) {
			ssize_t k = write(out, buf + w, (size_t)(r - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				err = k < 0 ? -errno : -EIO;
				break;
			}
			w += k;
		}
		if (err)
			break;
	}
	close(in);
	if (close(out) && !err)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int zs_sql_symfile_upstream(struct zs_sql *s, const char *id, enum zs_kind kind, const char *src)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1], tmp[4096], msg[256], *path = NULL, *abs = NULL;
	struct prof_build_id b;
	int err;

	if (!zs_sql_upstream(s))
		return -ENOSYS;
	if (kind == ZS_KIND_GSYM || kind >= ZS_NR_KINDS || prof_build_id_from_hex(id, strlen(id), &b))
		return -EINVAL;
	zt_hex_encode(b.data, b.len, hex);
	if (kind == ZS_KIND_SOURCE) {
		if (!src || asprintf(&abs, "/%s", src) < 0)
			return -ENOMEM;
		err = symstore_debuginfod_find(&b, SYMSTORE_SOURCE, abs, &path);
		free(abs);
	} else {
		err = symstore_debuginfod_find(&b, kind == ZS_KIND_EXECUTABLE ? SYMSTORE_EXECUTABLE
							       : SYMSTORE_DEBUGINFO, NULL, &path);
	}
	if (err)
		return err;
	err = copy_to_tmp(s, path, tmp, sizeof(tmp));
	free(path);
	if (err)
		return err;
	err = put(s, hex, kind, src, tmp, 1, NULL, FROM_UPSTREAM, msg, sizeof(msg));
	if (err == -EEXIST)
		err = 0; /* another request stored it meanwhile */
	if (err)
		zt_warn("what debuginfod gave for %s (%s) is refused: %s", hex, zs_kind_name(kind),
			msg[0] ? msg : strerror(-err));
	return err;
}

/* ---- recovery -------------------------------------------------------------------------- */

/* Files of symbols/debuginfo and symbols/executable without a row were
 * never acknowledged (a crash between rename and row). */
void zs_symfiles_orphans(struct zs_sql *s, sqlite3 *db)
{
	static const char *const dirs[] = {"symbols/debuginfo", "symbols/executable"};
	char path[4096], key[4200];
	size_t i;

	for (i = 0; i < 2; i++) {
		DIR *d;
		struct dirent *e;

		snprintf(path, sizeof(path), "%s/%s", zs_sql_dir(s), dirs[i]);
		d = opendir(path);
		while (d && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(key, sizeof(key), "%s/%s", dirs[i], e->d_name);
			if (!row_get(db, key, NULL))
				unlinkat(dirfd(d), e->d_name, 0);
		}
		if (d)
			closedir(d);
	}
}

char *zs_symfile_local_path(struct zs_sql *s, const char *hex, enum zs_kind kind)
{
	struct zs_symfile f;
	char key[256], *p;

	if (kind == ZS_KIND_GSYM || kind == ZS_KIND_SOURCE ||
	    zs_symfile_key(hex, kind, NULL, key, sizeof(key)) ||
	    zs_sql_symfile_open(s, hex, kind, NULL, &f))
		return NULL;
	zs_symfile_close(&f);
	return asprintf(&p, "%s/%s", zs_sql_dir(s), key) < 0 ? NULL : p;
}

/* The executable segments of a binary or of its debug file (fetched by
 * us from debuginfod), as push sends them (X-ZT-Symbol-Load). */
static unsigned elf_segments(const char *path, struct zs_symbol_meta *m)
{
	struct symstore_seg sg[16];
	unsigned n, i;

	n = symstore_code_segments(path, sg, 16);
	for (i = 0; i < n; i++) {
		m->segs[i].off = sg[i].off;
		m->segs[i].vaddr = sg[i].vaddr;
		m->segs[i].size = sg[i].size;
	}
	m->nr_segs = n;
	return n;
}

/* zs_symbol_make; drop: forget the symbolizer's frames of hex when stored
 * (not from the symbolizer, which holds its lock). */
static int make_gsym(struct zs_sql *s, const char *hex, int debuginfod, int drop)
{
	struct zs_symbol_meta meta = { 0 };
	char *path, *exe, tmp[4096];
	int q = SYMSTORE_NONE;
	int err, fd, fetched = 0;

	path = zs_symfile_local_path(s, hex, ZS_KIND_DEBUGINFO);
	if (!path && debuginfod && !zs_sql_symfile_upstream(s, hex, ZS_KIND_DEBUGINFO, NULL)) {
		path = zs_symfile_local_path(s, hex, ZS_KIND_DEBUGINFO);
		fetched = 1;
	}
	exe = zs_symfile_local_path(s, hex, ZS_KIND_EXECUTABLE);
	if (!exe && debuginfod && path &&
	    !zs_sql_symfile_upstream(s, hex, ZS_KIND_EXECUTABLE, NULL))
		exe = zs_symfile_local_path(s, hex, ZS_KIND_EXECUTABLE);
	/* the segments from the executable when there is one: exact */
	if (exe)
		elf_segments(exe, &meta);
	if (!path) {
		path = exe;
		exe = NULL;
	}
	free(exe);
	if (!path)
		return -ENOENT;
	if (!meta.nr_segs)
		elf_segments(path, &meta);
	snprintf(tmp, sizeof(tmp), "%s/dbg.XXXXXX", zs_sql_tmpdir(s));
	fd = mkstemp(tmp);
	if (fd < 0) {
		free(path);
		return -errno;
	}
	close(fd);
	err = symstore_make_gsym(path, tmp, &q);
	free(path);
	if (err) {
		unlink(tmp);
		return err;
	}
	meta.quality = q;
	meta.source = fetched ? "debuginfod" : "stored debug file";
	err = zs_sql_symbol_put_nodrop(s, hex, tmp, &meta, 1, NULL, NULL, 0);
	if (!err && drop) {
		struct prof_build_id b;

		if (!prof_build_id_from_hex(hex, strlen(hex), &b))
			zs_sql_drop(s, &b);
	}
	return err;
}

int zs_symbol_make(struct zs_sql *s, const char *hex, int debuginfod)
{
	return make_gsym(s, hex, debuginfod, 0);
}
