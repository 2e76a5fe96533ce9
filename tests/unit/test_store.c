// SPDX-License-Identifier: GPL-2.0-or-later
/* server/store: ingest (dedup, refusals), tokens, restart, symbol store. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <sqlite3.h>

#include "libprof/fileio.h"
#include "server/blobstore.h"
#include "server/query.h"
#include "server/store.h"
#include "server/symq.h"
#include "symbolizer/symmod.h"
#include "tests/unit/srvdata.h"
#include "tests/unit/testutil.h"

static char dir[] = "/tmp/zt-test-store.XXXXXX";

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	run("rm -rf %s", dir);
	return 0;
}

static struct zs_store *open_store(void)
{
	struct zs_store *s = NULL;
	char msg[256];

	if (zs_store_open(dir, NULL, &s, msg, sizeof(msg)))
		fail_msg("%s", msg);
	return s;
}

static void test_ingest_dedup(void **state)
{
	struct zs_store *s = open_store();
	struct zs_label l[2] = { { "env", "prod" }, { "team", "a b" } }, bad = { "k/../x", "v" };
	struct srv_rec_opts o = { 0 };
	struct zs_ingest_result r, r2;
	struct zs_store_stats st;
	struct zbuf b, j;
	char msg[256], path[600];

	zbuf_init(&b);
	zbuf_init(&j);
	assert_int_equal(srv_recording(&b, &o), 0);
	assert_int_equal(zs_ingest_mem(s, b.data, b.len, l, 2, &r, msg, sizeof(msg)), 0);
	assert_int_equal(r.stored, 1);
	assert_int_equal(r.samples, 5);
	assert_int_equal(strlen(r.id), 64);
	snprintf(path, sizeof(path), "%s/profiles/%.2s/%s.zt", dir, r.id, r.id);
	assert_int_equal(access(path, R_OK), 0);
	/* the same body again: stored once */
	assert_int_equal(zs_ingest_mem(s, b.data, b.len, NULL, 0, &r2, msg, sizeof(msg)), 0);
	assert_int_equal(r2.stored, 0);
	assert_string_equal(r2.id, r.id);
	assert_int_equal(r2.samples, 5);
	zs_store_stats(s, &st);
	assert_int_equal(st.profiles, 1);
	assert_int_equal(st.samples, 5);
	/* refusals store nothing */
	assert_int_equal(zs_ingest_mem(s, b.data, b.len, &bad, 1, &r2, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(zs_ingest_mem(s, b.data, b.len - 3, NULL, 0, &r2, msg, sizeof(msg)), -EBADMSG);
	assert_int_equal(zs_ingest_mem(s, "hello", 5, NULL, 0, &r2, msg, sizeof(msg)), -EMEDIUMTYPE);
	zs_store_stats(s, &st);
	assert_int_equal(st.profiles, 1);
	assert_int_equal(st.ingest_errors, 2);
	assert_int_equal(zs_profile_json(s, r.id, &j), 0);
	zbuf_put_u8(&j, 0);
	assert_non_null(strstr((char *)j.data, "\"labels\":{\"env\":\"prod\",\"team\":\"a b\"}"));
	assert_non_null(strstr((char *)j.data, "\"host\":\"h1\",\"command\":\"app\""));
	assert_non_null(strstr((char *)j.data, "\"time_start\":1700000000"));
	/* a re-push with other labels: the union, a key of two values */
	{
		struct zs_label l2[3] = {{"env", "prod"}, {"env", "test"}, {"run", "7"}}, many[40];
		char kv[40][16];
		int i;

		assert_int_equal(zs_ingest_mem(s, b.data, b.len, l2, 3, &r2, msg, sizeof(msg)), 0);
		assert_int_equal(r2.stored, 0);
		assert_int_equal(r2.labels_added, 2);
		zbuf_reset(&j);
		assert_int_equal(zs_profile_json(s, r.id, &j), 0);
		zbuf_put_u8(&j, 0);
		assert_non_null(strstr((char *)j.data, "\"labels\":{\"env\":[\"prod\",\"test\"],"
						       "\"team\":\"a b\",\"run\":\"7\"}"));
		assert_int_equal(zs_ingest_mem(s, b.data, b.len, l2, 3, &r2, msg, sizeof(msg)), 0);
		assert_int_equal(r2.labels_added, 0);
		/* past 64 labels a profile: refused, none added */
		for (i = 0; i < 40; i++) {
			snprintf(kv[i], sizeof(kv[i]), "k%d", i);
			many[i] = (struct zs_label){kv[i], "v"};
		}
		assert_int_equal(zs_ingest_mem(s, b.data, b.len, many, 40, &r2, msg, sizeof(msg)),
				 0);
		assert_int_equal(r2.labels_added, 40);
		for (i = 0; i < 40; i++)
			many[i].value = "w";
		assert_int_equal(zs_ingest_mem(s, b.data, b.len, many, 40, &r2, msg, sizeof(msg)),
				 -EINVAL);
		assert_non_null(strstr(msg, "at most 64 labels a profile"));
		assert_int_equal(r2.labels_added, 0);
		zbuf_reset(&j);
		assert_int_equal(zs_profile_json(s, r.id, &j), 0);
		zbuf_put_u8(&j, 0);
		assert_null(strstr((char *)j.data, "\"w\""));
	}
	/* ids with path tricks */
	zbuf_reset(&j);
	assert_int_equal(zs_profile_json(s, "../../etc/shadow", &j), -ENOENT);
	assert_int_equal(zs_profile_delete(s, "../../../../tmp/x"), -ENOENT);
	assert_int_equal(zs_symbol_stat(s, "../../etc/shadow", NULL), -EINVAL);
	assert_int_equal(zs_profile_delete(s, r.id), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(zs_profile_delete(s, r.id), -ENOENT);
	zs_store_close(s);
	zbuf_release(&b);
	zbuf_release(&j);
}

static void test_ingest_file_and_orphans(void **state)
{
	struct zs_store *s = open_store();
	struct srv_rec_opts o = { .variant = 7 };
	struct zs_ingest_result r;
	char msg[256], tmp[600], orphan[700], junk[600];
	struct zbuf b;
	FILE *f;

	zbuf_init(&b);
	assert_int_equal(srv_recording(&b, &o), 0);
	snprintf(tmp, sizeof(tmp), "%s/upload1", zs_store_tmpdir(s));
	f = fopen(tmp, "w");
	fwrite(b.data, 1, b.len, f);
	fclose(f);
	assert_int_equal(zs_ingest_file(s, tmp, NULL, 0, &r, msg, sizeof(msg)), 0);
	assert_int_equal(r.stored, 1);
	assert_int_equal(access(tmp, F_OK), -1);
	/* a path outside the store's tmp is refused, not opened */
	{
		struct zs_ingest_result r2;

		assert_int_equal(zs_ingest_file(s, "/etc/passwd", NULL, 0, &r2, msg, sizeof(msg)),
				 -EINVAL);
		assert_int_equal(access("/etc/passwd", F_OK), 0);
	}
	zs_store_close(s);
	/* a blob without a row and an upload in progress: gone at the next open */
	snprintf(orphan, sizeof(orphan), "%s/profiles/ee/%064d.zt", dir, 0);
	run("mkdir -p %s/profiles/ee && echo x > %s", dir, orphan);
	snprintf(orphan, sizeof(orphan), "%s/profiles/00/%064d.zt", dir, 0);
	run("mkdir -p %s/profiles/00 && echo x > %s", dir, orphan);
	snprintf(junk, sizeof(junk), "%s/tmp/partial", dir);
	run("echo x > %s", junk);
	s = open_store();
	assert_int_equal(access(orphan, F_OK), -1);
	assert_int_equal(access(junk, F_OK), -1);
	{
		char kept[700];

		snprintf(kept, sizeof(kept), "%s/profiles/%.2s/%s.zt", dir, r.id, r.id);
		assert_int_equal(access(kept, R_OK), 0);
	}
	zs_store_close(s);
	zbuf_release(&b);
}

static unsigned listed;
static void list_cb(void *ctx, const char *name, unsigned scopes, const char *hash8, int64_t created,
		    const char *project)
{
	listed++;
	assert_int_equal(strlen(hash8), 8);
}

static void test_tokens(void **state)
{
	struct zs_store *s = open_store();
	char t1[65], t2[65];

	assert_int_equal(zs_scope_parse("push,read"), ZS_SCOPE_PUSH | ZS_SCOPE_READ);
	assert_int_equal(zs_scope_parse("push,"), 0);
	assert_int_equal(zs_scope_parse("root"), 0);
	assert_int_equal(zs_token_create(s, ZS_SCOPE_PUSH, "ci", t1), 0);
	assert_int_equal(zs_token_create(s, ZS_SCOPE_ADMIN, "boss", t2), 0);
	assert_int_equal(strlen(t1), 64);
	assert_int_equal(zs_token_check(s, t1, 64), ZS_SCOPE_PUSH);
	assert_int_equal(zs_token_check(s, t2, 64),
			 ZS_SCOPE_PUSH | ZS_SCOPE_SYMBOLS | ZS_SCOPE_READ | ZS_SCOPE_ADMIN);
	assert_int_equal(zs_token_check(s, t1, 63), 0);
	t1[0] ^= 1;
	assert_int_equal(zs_token_check(s, t1, 64), 0);
	t1[0] ^= 1;
	assert_int_equal(zs_token_count(s), 2);
	listed = 0;
	zs_token_list(s, list_cb, NULL);
	assert_int_equal(listed, 2);
	zs_store_close(s);
	s = open_store(); /* from the catalogue */
	assert_int_equal(zs_token_check(s, t1, 64), ZS_SCOPE_PUSH);
	assert_int_equal(zs_token_revoke(s, "ci", NULL, NULL), 0);
	assert_int_equal(zs_token_check(s, t1, 64), 0);
	assert_int_equal(zs_token_revoke(s, "ci", NULL, NULL), -ENOENT);
	assert_int_equal(zs_token_count(s), 1);
	/* a token made elsewhere, imported: the same token works here */
	assert_int_equal(zs_token_import(s, ZS_SCOPE_READ, "shared", t1, 64), 0);
	assert_int_equal(zs_token_check(s, t1, 64), ZS_SCOPE_READ);
	assert_int_equal(zs_token_import(s, ZS_SCOPE_PUSH, "again", t1, 64), -EEXIST);
	assert_int_equal(zs_token_import(s, ZS_SCOPE_READ, NULL, "short", 5), -EINVAL);
	assert_int_equal(zs_token_import(s, ZS_SCOPE_READ, NULL, "with a blank 0123", 17), -EINVAL);
	assert_int_equal(zs_token_import(s, 0, NULL, t2, 64), -EINVAL);
	assert_int_equal(zs_token_count(s), 2);
	zs_store_close(s);
}

static void count_cb(void *ctx, const char *name, unsigned scopes, const char *hash8,
		     int64_t created, const char *project)
{
	(void)name, (void)scopes, (void)hash8, (void)created;
	(*(int *)ctx)++;
}

/* Token names: printable, bounded, unique; a revoke that matches several
 * tokens revokes none. */
static void test_token_names(void **state)
{
	struct zs_store *s = open_store();
	char t[65], t2[65], name[80], hash8[9];
	uint8_t md[32];
	unsigned len = 32;
	sqlite3 *db;
	size_t n0 = zs_token_count(s);
	int n = 0;

	assert_true(zs_token_name_ok("ci-runner_2.x@host:7+1"));
	assert_false(zs_token_name_ok(""));
	assert_false(zs_token_name_ok("a b"));
	assert_false(zs_token_name_ok("evil\nFAKE 12345678 admin"));
	assert_false(zs_token_name_ok("esc\033[2J"));
	assert_false(zs_token_name_ok("caf\xc3\xa9"));
	memset(name, 'n', sizeof(name));
	name[ZS_TOKEN_NAME_MAX] = 0;
	assert_true(zs_token_name_ok(name));
	name[ZS_TOKEN_NAME_MAX] = 'n';
	name[ZS_TOKEN_NAME_MAX + 1] = 0;
	assert_false(zs_token_name_ok(name));
	assert_int_equal(zs_token_create(s, ZS_SCOPE_READ, name, t), -EINVAL);
	assert_int_equal(zs_token_create(s, ZS_SCOPE_READ, "a\nb", t), -EINVAL);
	assert_int_equal(zs_token_create(s, ZS_SCOPE_READ, "dup", t), 0);
	assert_int_equal(zs_token_create(s, ZS_SCOPE_ADMIN, "dup", t2), -ENOTUNIQ);
	assert_int_equal(zs_token_import(s, ZS_SCOPE_ADMIN, "dup", "0123456789abcdefXYZ", 19),
			 -ENOTUNIQ);
	assert_int_equal(zs_token_count(s), n0 + 1);
	assert_int_equal(zs_token_create(s, ZS_SCOPE_PUSH, NULL, t2), 0);
	assert_int_equal(zs_token_create(s, ZS_SCOPE_PUSH, NULL, t2), 0); /* unnamed: any number */
	/* a second "dup", as an older zt let in */
	snprintf(name, sizeof(name), "%s/zt.db", dir);
	assert_int_equal(sqlite3_open(name, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "INSERT INTO tokens(hash, name, scopes, created)"
					  " VALUES(zeroblob(32), 'dup', 8, 1)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(zs_token_revoke(s, "dup", count_cb, &n), -ENOTUNIQ);
	assert_int_equal(n, 2);
	assert_int_equal(zs_token_check(s, t, 64), ZS_SCOPE_READ);
	assert_int_equal(zs_token_count(s), n0 + 4);
	assert_int_equal(zs_token_revoke(s, "0000000", NULL, NULL), -ENOENT); /* 7 digits: short */
	assert_int_equal(zs_token_revoke(s, "00000000", NULL, NULL), 0);
	assert_int_equal(zs_token_count(s), n0 + 3);
	/* the one left by its id */
	EVP_Digest(t, 64, md, &len, EVP_sha256(), NULL);
	for (n = 0; n < 4; n++)
		snprintf(hash8 + 2 * n, 3, "%02x", md[n]);
	assert_int_equal(zs_token_revoke(s, hash8, NULL, NULL), 0);
	assert_int_equal(zs_token_check(s, t, 64), 0);
	assert_int_equal(zs_token_revoke(s, "dup", NULL, NULL), -ENOENT);
	zs_store_close(s);
}

/* mode of dir/rel, or -1 */
static int mode_of(const char *d, const char *rel)
{
	char p[4200];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", d, rel);
	return stat(p, &st) ? -1 : (int)(st.st_mode & 07777);
}

/* Whatever the umask and the data directory's mode, the catalogue is
 * 0600 and the store's folders 0700; an older store's are made so. */
static void test_modes(void **state)
{
	char d[] = "/tmp/zt-test-modes.XXXXXX", msg[256], path[4200];
	struct zs_store *s = NULL;
	mode_t old = umask(022);

	assert_non_null(mkdtemp(d));
	chmod(d, 0755);
	assert_int_equal(zs_store_open(d, NULL, &s, msg, sizeof(msg)), 0);
	assert_int_equal(mode_of(d, "zt.db"), 0600);
	assert_int_equal(mode_of(d, "zt.db-wal"), 0600);
	assert_int_equal(mode_of(d, "tmp"), 0700);
	assert_int_equal(mode_of(d, "profiles"), 0700);
	assert_int_equal(mode_of(d, "symbols"), 0700);
	assert_int_equal(mode_of(d, "symbols/gsym"), 0700);
	zs_store_close(s);
	/* as an older zt left it */
	snprintf(path, sizeof(path), "%s/zt.db", d);
	chmod(path, 0644);
	snprintf(path, sizeof(path), "%s/symbols/gsym", d);
	chmod(path, 0755);
	snprintf(path, sizeof(path), "%s/profiles/ab", d);
	mkdir(path, 0755);
	assert_int_equal(zs_store_open(d, NULL, &s, msg, sizeof(msg)), 0);
	assert_int_equal(mode_of(d, "zt.db"), 0600);
	assert_int_equal(mode_of(d, "symbols/gsym"), 0700);
	assert_int_equal(mode_of(d, "profiles/ab"), 0700);
	zs_store_close(s);
	umask(old);
	run("rm -rf %s", d);
}

/* Tokens made and revoked by another process (zt serve token beside a
 * running server) reach the server within a second; that process's open
 * leaves the server's uploads in progress alone. */
static void test_tokens_beside(void **state)
{
	const struct zs_store_opts admin = { .admin_only = 1 };
	struct zs_store *s = open_store(), *a;
	char t[65], msg[256], tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/upload-in-progress", zs_store_tmpdir(s));
	assert_non_null(f = fopen(tmp, "w"));
	fclose(f);
	assert_int_equal(zs_store_open(dir, &admin, &a, msg, sizeof(msg)), 0);
	assert_int_equal(access(tmp, F_OK), 0);
	assert_int_equal(zs_token_create(a, ZS_SCOPE_READ, "late", t), 0);
	usleep(1100 * 1000);
	assert_int_equal(zs_token_check(s, t, 64), ZS_SCOPE_READ);
	assert_int_equal(zs_token_revoke(a, "late", NULL, NULL), 0);
	usleep(1100 * 1000);
	assert_int_equal(zs_token_check(s, t, 64), 0);
	zs_store_close(a);
	unlink(tmp);
	zs_store_close(s);
}

/* A program with function fn and a fixed build id, and its GSYM. */
static void make_gsym(const char *prog, const char *gsym, const char *fn)
{
	struct symmod_opts so = { .no_debuginfod = 1 };
	enum symq q;

	assert_int_equal(run("printf 'int %s(int x){return x*3;}\\nint main(int c,char**v){return %s(c);}\\n'"
			     " | cc -g -O1 -x c - -o %s"
			     " -Wl,--build-id=0x0102030405060708090a0b0c0d0e0f1011121314",
			     fn, fn, prog), 0);
	assert_int_equal(symmod_extract(&so, prog, gsym, &q), 0);
	assert_int_equal(q, SYMQ_FULL);
}

static void test_symbols(void **state)
{
	struct zs_store *s = open_store();
	struct zs_symbol_meta m = { .quality = 2 };
	char prog[600], gsym[600], tmp[600], msg[256], etag[65], id[41];
	struct zbuf out;
	void *img;
	size_t len;
	struct zs_symbol_put put;

	assert_int_equal(zs_symbol_meta_parse_load("1000:1000:2000,0:0:10", &m), 0);
	assert_int_equal(m.nr_segs, 2);
	assert_int_equal(m.segs[0].vaddr, 0x1000);
	assert_int_equal(zs_symbol_meta_parse_load("1000:1000", &m), -EINVAL);
	assert_int_equal(zs_symbol_meta_parse_load("x:1:2", &m), -EINVAL);
	assert_int_equal(zs_symbol_meta_parse_load("0:0:1000000", &m), 0);
	snprintf(prog, sizeof(prog), "%s/p", dir);
	snprintf(gsym, sizeof(gsym), "%s/p.gsym", dir);
	make_gsym(prog, gsym, "zt_sym_f");
	snprintf(id, sizeof(id), "0102030405060708090a0b0c0d0e0f1011121314");
	snprintf(tmp, sizeof(tmp), "%s/sym1", zs_store_tmpdir(s));
	assert_int_equal(run("cp %s %s", gsym, tmp), 0);
	zbuf_init(&out);
	assert_int_equal(zs_symbols_missing(s, id, strlen(id), &out, msg, sizeof(msg)), 0);
	assert_int_equal(out.len, 41);
	assert_int_equal(zs_symbol_put_file(s, id, tmp, &m, 1, &put, msg, sizeof(msg)), 0);
	assert_int_equal(put.created, 1);
	assert_int_equal(zs_symbol_stat(s, id, etag), 0);
	assert_int_equal(strlen(etag), 64);
	assert_int_equal(zs_symbol_get(s, id, &img, &len), 0);
	free(img);
	zbuf_reset(&out);
	assert_int_equal(zs_symbols_missing(s, "0102030405060708090A0B0C0D0E0F1011121314\r\nabcd\n", 47,
					    &out, msg, sizeof(msg)), 0);
	assert_int_equal(out.len, 5);
	assert_int_equal(zs_symbols_missing(s, "xyz\n", 4, &out, msg, sizeof(msg)), -EINVAL);
	/* only new: refused; a wrong id: refused */
	run("cp %s %s", gsym, tmp);
	assert_int_equal(zs_symbol_put_file(s, id, tmp, &m, 1, &put, msg, sizeof(msg)), -EEXIST);
	run("cp %s %s", gsym, tmp);
	assert_int_equal(zs_symbol_put_file(s, "abcdef", tmp, &m, 0, &put, msg, sizeof(msg)),
			 -EBADMSG);
	run("echo nope > %s", tmp);
	assert_int_equal(zs_symbol_put_file(s, id, tmp, &m, 0, &put, msg, sizeof(msg)), -EBADMSG);
	run("cp %s %s", gsym, tmp);
	assert_int_equal(zs_symbol_put_file(s, id, tmp, &m, 0, &put, msg, sizeof(msg)), 0);
	assert_int_equal(put.created, 0);
	zbuf_release(&out);
	zs_store_close(s);
}

#define SYMID "0102030405060708090a0b0c0d0e0f1011121314"

static int zs_sha256_file_for_test(const char *path, char sha[65])
{
	char cmd[700];
	FILE *p;
	int ok;

	snprintf(cmd, sizeof(cmd), "sha256sum %s", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	ok = fscanf(p, "%64s", sha) == 1;
	pclose(p);
	return ok ? 0 : -1;
}

static struct zs_store *open_store_at(const char *d, const struct zs_remote *r)
{
	struct zs_store_opts o = { .remote = r };
	struct zs_store *s = NULL;
	char msg[256];

	if (run("mkdir -p %s", d) || zs_store_open(d, &o, &s, msg, sizeof(msg)))
		fail_msg("%s", msg);
	return s;
}

/* Copy file from to a new file in s's tmp directory; its path into tmp. */
static void to_tmp(struct zs_store *s, const char *from, char *tmp, size_t n)
{
	static int seq;

	snprintf(tmp, n, "%s/t%d", zs_store_tmpdir(s), seq++);
	assert_int_equal(run("cp %s %s", from, tmp), 0);
}

/* Whether dir has no entries (or does not exist). */
static int empty(const char *base, const char *sub)
{
	char d[1024];

	snprintf(d, sizeof(d), "%s/%s", base, sub);
	return run("test -z \"$(ls -A %s 2>/dev/null)\"", d) == 0;
}

static int put_kind(struct zs_store *s, const char *id, enum zs_kind k, const char *src,
		    const char *from, int only_new, int *created, char *msg)
{
	char tmp[600];

	to_tmp(s, from, tmp, sizeof(tmp));
	return zs_symfile_put(s, id, k, src, tmp, only_new, created, msg, 256);
}

/* debuginfo, executable, source: what is refused stores nothing. */
static void test_symfiles(void **state)
{
	char d[600], prog[600], gsym[600], dbg[600], nodbg[600], other[600], junk[600], trunc[600],
		msg[256], sha[65];
	struct zs_symbol_meta m = { .quality = 2 };
	struct zs_symfile f;
	struct zs_store *s;
	struct zs_symbol_put put;
	int created;

	(void)state;
	snprintf(d, sizeof(d), "%s/sf", dir);
	s = open_store_at(d, NULL);
	snprintf(prog, sizeof(prog), "%s/sfp", dir);
	snprintf(gsym, sizeof(gsym), "%s/sfp.gsym", dir);
	snprintf(dbg, sizeof(dbg), "%s/sfp.debug", dir);
	snprintf(nodbg, sizeof(nodbg), "%s/sfp.nodbg", dir);
	snprintf(other, sizeof(other), "%s/sfo", dir);
	snprintf(junk, sizeof(junk), "%s/junk", dir);
	snprintf(trunc, sizeof(trunc), "%s/trunc.gsym", dir);
	make_gsym(prog, gsym, "zt_sf_f");
	assert_int_equal(run("objcopy --only-keep-debug %s %s && objcopy --strip-debug %s %s", prog,
			     dbg, prog, nodbg), 0);
	assert_int_equal(run("printf 'int main(void){return 0;}\\n' | cc -g -x c - -o %s"
			     " -Wl,--build-id=0x0102030405060708090a0b0c0d0e0f10111213ff", other), 0);
	assert_int_equal(run("echo 'not an ELF file' > %s", junk), 0);
	assert_int_equal(run("head -c 100 %s > %s", gsym, trunc), 0);

	/* refused: not ELF, another build id, no DWARF for debuginfo */
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_DEBUGINFO, NULL, junk, 0, &created, msg),
			 -EBADMSG);
	assert_string_equal(msg, "not an ELF file");
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_EXECUTABLE, NULL, junk, 0, &created, msg),
			 -EBADMSG);
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_DEBUGINFO, NULL, other, 0, &created, msg),
			 -EBADMSG);
	assert_non_null(strstr(msg, "build id is 0102030405060708090a0b0c0d0e0f10111213ff"));
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_EXECUTABLE, NULL, other, 0, &created, msg),
			 -EBADMSG);
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_DEBUGINFO, NULL, nodbg, 0, &created, msg),
			 -EBADMSG);
	assert_non_null(strstr(msg, "no DWARF"));
	/* GSYM: truncated, another UUID */
	{
		char tmp[600];

		to_tmp(s, trunc, tmp, sizeof(tmp));
		assert_int_equal(zs_symbol_put_file(s, SYMID, tmp, &m, 0, &put, msg, 256),
				 -EBADMSG);
		to_tmp(s, gsym, tmp, sizeof(tmp));
		assert_int_equal(zs_symbol_put_file(s, "0102030405060708090a0b0c0d0e0f10111213ff",
						    tmp, &m, 0, &put, msg, 256),
				 -EBADMSG);
	}
	assert_true(empty(d, "symbols/debuginfo"));
	assert_true(empty(d, "symbols/executable"));
	assert_true(empty(d, "symbols/gsym"));
	assert_true(empty(d, "tmp"));
	assert_int_equal(zs_symfile_open(s, SYMID, ZS_KIND_DEBUGINFO, NULL, &f), -ENOENT);
	assert_int_equal(zs_symfile_has(s, SYMID), 0);

	/* a debug file or source for an id the store has nothing for: refused */
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_DEBUGINFO, NULL, dbg, 1, &created, msg),
			 -ENOENT);
	assert_non_null(strstr(msg, "upload its symbols or executable first"));
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_SOURCE, "usr/src/a.c", junk, 1, &created, msg),
			 -ENOENT);
	assert_true(empty(d, "tmp"));
	/* accepted: the stripped program as executable, then the debug file, a source */
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_EXECUTABLE, NULL, nodbg, 1, &created, msg), 0);
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_DEBUGINFO, NULL, dbg, 1, &created, msg), 0);
	assert_int_equal(created, 1);
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_DEBUGINFO, NULL, dbg, 1, &created, msg), -EEXIST);
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_DEBUGINFO, NULL, dbg, 0, &created, msg), 0);
	assert_int_equal(created, 0);
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_SOURCE, "usr/src/a.c", junk, 1, &created, msg),
			 0);
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_SOURCE, "usr/src/a.c", junk, 1, &created, msg),
			 -EEXIST);
	assert_int_equal(zs_symfile_has(s, SYMID),
			 1u << ZS_KIND_DEBUGINFO | 1u << ZS_KIND_EXECUTABLE);
	assert_int_equal(zs_symfile_open(s, SYMID, ZS_KIND_DEBUGINFO, NULL, &f), 0);
	assert_int_equal(zs_sha256_file_for_test(dbg, sha), 0);
	assert_string_equal(f.etag, sha);
	assert_true(f.dwarf);
	zs_symfile_close(&f);
	assert_int_equal(zs_symfile_open(s, SYMID, ZS_KIND_EXECUTABLE, NULL, &f), 0);
	assert_false(f.dwarf);
	zs_symfile_close(&f);
	assert_int_equal(zs_symfile_open(s, SYMID, ZS_KIND_SOURCE, "usr/src/a.c", &f), 0);
	assert_int_equal(f.size, 16);
	zs_symfile_close(&f);
	assert_int_equal(zs_symfile_open(s, SYMID, ZS_KIND_SOURCE, "usr/src/b.c", &f), -ENOENT);
	assert_int_equal(run("cmp %s %s/symbols/debuginfo/" SYMID ".debug", dbg, d), 0);
	assert_int_equal(run("grep -qx usr/src/a.c %s/symbols/source/" SYMID "/*.path", d), 0);
	assert_true(empty(d, "tmp"));
	zs_store_close(s);
}

/* ---- a directory-backed remote, as the S3 store is one ----------------------------- */

static int fr_fail;

static int fr_put(void *ctx, const char *key, const char *path, char *msg, size_t n)
{
	if (fr_fail) {
		snprintf(msg, n, "injected failure");
		return -EIO;
	}
	return run("mkdir -p \"$(dirname %s/%s)\" && cp %s %s/%s.part && mv %s/%s.part %s/%s",
		   (char *)ctx, key, path, (char *)ctx, key, (char *)ctx, key, (char *)ctx, key)
		       ? -EIO
		       : 0;
}

static int fr_get(void *ctx, const char *key, const char *dest, char *msg, size_t n)
{
	char p[1024];
	struct stat st;

	(void)msg;
	(void)n;
	snprintf(p, sizeof(p), "%s/%s", (char *)ctx, key);
	if (stat(p, &st))
		return -ENOENT;
	return run("cp %s %s", p, dest) ? -EIO : 0;
}

static int fr_head(void *ctx, const char *key, uint64_t *size, char *msg, size_t n)
{
	char p[1024];
	struct stat st;

	(void)msg;
	(void)n;
	snprintf(p, sizeof(p), "%s/%s", (char *)ctx, key);
	if (stat(p, &st))
		return -ENOENT;
	*size = (uint64_t)st.st_size;
	return 0;
}

static int fr_del(void *ctx, const char *key, char *msg, size_t n)
{
	char p[1024];

	(void)msg;
	(void)n;
	snprintf(p, sizeof(p), "%s/%s", (char *)ctx, key);
	return unlink(p) ? -errno : 0;
}

static void fr_free(void *ctx)
{
	(void)ctx;
}

static const struct zs_remote_ops fr_ops = { fr_put, fr_get, fr_head, fr_del, fr_free };

/* The symbol store's limits: per source file, sources and bytes per build
 * id, the whole store; what is refused is named and stores nothing. */
static void test_symlimits(void **state)
{
	char d[600], prog[600], gsym[600], nodbg[600], five[600], eleven[600], msg[256], tmp[600];
	struct zs_store_opts o = {.max_source_size = 10, .max_sources = 2};
	struct zs_symbol_meta m = {.quality = 2};
	struct zs_store *s;
	struct stat st;
	uint64_t limit, exe;
	const char *opt;
	struct zs_symbol_put put;
	int created;

	(void)state;
	snprintf(prog, sizeof(prog), "%s/slp", dir);
	snprintf(gsym, sizeof(gsym), "%s/slp.gsym", dir);
	snprintf(nodbg, sizeof(nodbg), "%s/slp.nodbg", dir);
	snprintf(five, sizeof(five), "%s/five", dir);
	snprintf(eleven, sizeof(eleven), "%s/eleven", dir);
	make_gsym(prog, gsym, "zt_sl_f");
	assert_int_equal(run("objcopy --strip-debug %s %s && printf 12345 > %s && printf "
			     "12345678901 > %s",
			     prog, nodbg, five, eleven),
			 0);
	assert_int_equal(stat(nodbg, &st), 0);
	exe = (uint64_t)st.st_size;
	o.max_symbols_per_id = exe + 30;
	snprintf(d, sizeof(d), "%s/sl", dir);
	assert_int_equal(zs_store_open(d, &o, &s, msg, sizeof(msg)), 0);
	/* nothing known of the id yet */
	assert_int_equal(zs_symfile_admit(s, SYMID, ZS_KIND_SOURCE, "a.c", 0, &limit, &opt, msg,
					  sizeof(msg)),
			 -ENOENT);
	assert_int_equal(zs_symfile_admit(s, SYMID, ZS_KIND_EXECUTABLE, NULL, 0, &limit, &opt, msg,
					  sizeof(msg)),
			 0);
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_EXECUTABLE, NULL, nodbg, 1, &created, msg), 0);
	/* per file */
	assert_int_equal(zs_symfile_admit(s, SYMID, ZS_KIND_SOURCE, "a.c", 0, &limit, &opt, msg,
					  sizeof(msg)),
			 0);
	assert_int_equal(limit, 10);
	assert_string_equal(opt, "--max-source-size");
	assert_int_equal(zs_symfile_admit(s, SYMID, ZS_KIND_SOURCE, "a.c", 11, &limit, &opt, msg,
					  sizeof(msg)),
			 -EFBIG);
	assert_non_null(strstr(msg, "--max-source-size"));
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_SOURCE, "a.c", eleven, 1, &created, msg),
			 -EFBIG);
	/* sources per id, a replaced one not counted twice */
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_SOURCE, "a.c", five, 1, &created, msg), 0);
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_SOURCE, "b.c", five, 1, &created, msg), 0);
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_SOURCE, "c.c", five, 1, &created, msg), -EFBIG);
	assert_non_null(strstr(msg, "--max-sources"));
	assert_int_equal(put_kind(s, SYMID, ZS_KIND_SOURCE, "a.c", five, 0, &created, msg), 0);
	assert_int_equal(created, 0);
	/* bytes per id: exe + 10 used, 20 left */
	assert_int_equal(
		zs_symfile_admit(s, SYMID, ZS_KIND_GSYM, NULL, 0, &limit, &opt, msg, sizeof(msg)),
		0);
	assert_int_equal(limit, 20);
	assert_string_equal(opt, "--max-symbols-per-id");
	to_tmp(s, gsym, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(s, SYMID, tmp, &m, 0, &put, msg, sizeof(msg)), -EFBIG);
	assert_non_null(strstr(msg, "--max-symbols-per-id"));
	assert_int_equal(zs_symbol_stat(s, SYMID, NULL), -ENOENT);
	assert_true(empty(d, "tmp"));
	assert_true(empty(d, "symbols/gsym"));
	zs_store_close(s);

	/* the whole store: counted again at open */
	o.max_symbols_per_id = 0;
	o.max_symbol_store = exe + 12;
	assert_int_equal(zs_store_open(d, &o, &s, msg, sizeof(msg)), 0);
	assert_int_equal(zs_symfile_admit(s, SYMID, ZS_KIND_SOURCE, "a.c", 0, &limit, &opt, msg,
					  sizeof(msg)),
			 0);
	assert_int_equal(limit, 7); /* its 5 bytes replaced: 12 - 5 of the other */
	assert_string_equal(opt, "--max-symbol-store");
	to_tmp(s, gsym, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(s, SYMID, tmp, &m, 0, &put, msg, sizeof(msg)), -EFBIG);
	assert_non_null(strstr(msg, "--max-symbol-store"));
	zs_store_close(s);
}

/* A second store on another DIR with the same remote serves what the
 * first stored; a failing put refuses the upload and keeps nothing. */
static void test_remote(void **state)
{
	char rdir[600], d1[600], d2[600], d3[600], prog[600], gsym[600], dbg[600], src[600],
		msg[256], tmp[600], etag1[65];
	struct zs_symbol_meta m = { .quality = 2, .description = "a%20test" };
	struct zs_remote r;
	struct zs_symfile f;
	struct zs_store *a, *b, *c;
	struct zs_symbol_put put;
	int created;

	(void)state;
	snprintf(rdir, sizeof(rdir), "%s/remote", dir);
	snprintf(d1, sizeof(d1), "%s/r1", dir);
	snprintf(d2, sizeof(d2), "%s/r2", dir);
	snprintf(d3, sizeof(d3), "%s/r3", dir);
	snprintf(prog, sizeof(prog), "%s/rp", dir);
	snprintf(gsym, sizeof(gsym), "%s/rp.gsym", dir);
	snprintf(dbg, sizeof(dbg), "%s/rp.debug", dir);
	snprintf(src, sizeof(src), "%s/rp.c", dir);
	assert_int_equal(run("mkdir -p %s && echo 'int x;' > %s", rdir, src), 0);
	make_gsym(prog, gsym, "zt_remote_f");
	assert_int_equal(run("objcopy --only-keep-debug %s %s", prog, dbg), 0);
	r.ops = &fr_ops;
	r.ctx = rdir;
	fr_fail = 0;
	a = open_store_at(d1, &r);
	b = open_store_at(d2, &r);

	to_tmp(a, gsym, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(a, SYMID, tmp, &m, 1, &put, msg, sizeof(msg)), 0);
	assert_int_equal(put_kind(a, SYMID, ZS_KIND_DEBUGINFO, NULL, dbg, 1, &created, msg), 0);
	assert_int_equal(put_kind(a, SYMID, ZS_KIND_SOURCE, "src/rp.c", src, 1, &created, msg), 0);
	assert_int_equal(run("test -s %s/symbols/gsym/" SYMID ".gsym -a -s %s/symbols/gsym/" SYMID
			     ".meta -a -s %s/symbols/debuginfo/" SYMID ".debug",
			     rdir, rdir, rdir),
			 0);
	assert_int_equal(zs_symbol_stat(a, SYMID, etag1), 0);

	/* b has none of it in its DIR, and serves all of it */
	assert_int_equal(zs_symbol_stat(b, SYMID, NULL), -ENOENT);
	assert_int_equal(zs_symfile_open(b, SYMID, ZS_KIND_GSYM, NULL, &f), 0);
	assert_string_equal(f.etag, etag1);
	assert_int_equal(f.meta.quality, 2);
	assert_non_null(f.meta.description);
	assert_string_equal(f.meta.description, "a%20test");
	zs_symfile_close(&f);
	assert_int_equal(zs_symbol_stat(b, SYMID, NULL), 0); /* kept in b's DIR now */
	assert_int_equal(zs_symfile_open(b, SYMID, ZS_KIND_DEBUGINFO, NULL, &f), 0);
	assert_true(f.dwarf);
	zs_symfile_close(&f);
	assert_int_equal(run("cmp %s %s/symbols/debuginfo/" SYMID ".debug", dbg, d2), 0);
	assert_int_equal(zs_symfile_open(b, SYMID, ZS_KIND_SOURCE, "src/rp.c", &f), 0);
	zs_symfile_close(&f);
	assert_int_equal(zs_symfile_has(b, SYMID), 1u << ZS_KIND_GSYM | 1u << ZS_KIND_DEBUGINFO);
	/* only new: what the remote has counts as stored */
	assert_int_equal(put_kind(b, SYMID, ZS_KIND_DEBUGINFO, NULL, dbg, 1, &created, msg), -EEXIST);
	/* a failing remote: refused, nothing kept here, the remote unchanged */
	fr_fail = 1;
	assert_int_equal(put_kind(a, SYMID, ZS_KIND_EXECUTABLE, NULL, prog, 0, &created, msg),
			 -EREMOTEIO);
	assert_non_null(strstr(msg, "injected failure"));
	assert_true(empty(d1, "symbols/executable"));
	assert_true(empty(rdir, "symbols/executable"));
	c = open_store_at(d3, &r);
	to_tmp(c, gsym, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(c, SYMID, tmp, &m, 0, &put, msg, sizeof(msg)),
			 -EREMOTEIO);
	assert_true(empty(d3, "symbols/gsym"));
	assert_true(empty(d3, "tmp"));
	assert_true(empty(d1, "tmp"));
	fr_fail = 0;
	zs_store_close(a);
	zs_store_close(b);
	zs_store_close(c);
}

/* The quality rule: a better upload replaces a worse one, a worse or
 * equal one is refused unless forced; the quality stored is the lower of
 * what the upload says and what its image holds; symbols/missing names
 * the ids below a quality; a remote's copy counts as the id's. */
static void test_symbol_quality(void **state)
{
	struct symmod_opts so = {.no_debuginfod = 1, .no_dwarf = 1};
	char d[600], rdir[600], d2[600], prog[600], full[600], basic[600], tmp[600], msg[256];
	struct zs_symbol_meta m = {.quality = ZS_Q_BASIC};
	struct zs_symbol_put put;
	struct zs_symfile f;
	struct zs_remote r = {.ops = &fr_ops};
	struct zs_store *s, *b;
	struct zbuf out;
	enum symq q;

	(void)state;
	snprintf(d, sizeof(d), "%s/q", dir);
	snprintf(prog, sizeof(prog), "%s/qp", dir);
	snprintf(full, sizeof(full), "%s/qp.gsym", dir);
	snprintf(basic, sizeof(basic), "%s/qp-basic.gsym", dir);
	make_gsym(prog, full, "zt_q_fn");
	assert_int_equal(symmod_extract(&so, prog, basic, &q), 0);
	assert_int_equal(q, SYMQ_BASIC);
	zbuf_init(&out);
	s = open_store_at(d, NULL);

	/* what an image holds: judged */
	{
		void *img;
		size_t len;

		assert_int_equal(zt_read_file(full, 1 << 26, (char **)&img, &len), 0);
		assert_int_equal(zs_gsym_quality(img, len), ZS_Q_FULL);
		free(img);
		assert_int_equal(zt_read_file(basic, 1 << 26, (char **)&img, &len), 0);
		assert_int_equal(zs_gsym_quality(img, len), ZS_Q_BASIC);
		assert_int_equal(zs_gsym_quality(img, 10), -EBADMSG);
		free(img);
	}
	assert_string_equal(zs_quality_name(ZS_Q_BASIC), "basic");
	assert_string_equal(zs_quality_name(7), "?");

	/* basic first (zt push of a stripped binary): stored */
	to_tmp(s, basic, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(s, SYMID, tmp, &m, 1, &put, msg, sizeof(msg)), 0);
	assert_true(put.created && put.quality == ZS_Q_BASIC && put.had == -1);
	assert_int_equal(
		zs_symbols_below(s, SYMID "\nabcd\n", 46, ZS_Q_FULL, &out, msg, sizeof(msg)), 0);
	assert_int_equal(out.len, 52);
	assert_memory_equal(out.data, SYMID " basic\nabcd\n", 52);
	zbuf_reset(&out);
	assert_int_equal(zs_symbols_missing(s, SYMID "\n", 41, &out, msg, sizeof(msg)), 0);
	assert_int_equal(out.len, 0);
	/* basic again: equal, refused */
	to_tmp(s, basic, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(s, SYMID, tmp, &m, 1, &put, msg, sizeof(msg)), -EEXIST);
	assert_int_equal(put.had, ZS_Q_BASIC);
	assert_non_null(strstr(msg, "keeps the basic symbols"));
	/* full (CI, without --force): replaces them */
	m.quality = ZS_Q_FULL;
	to_tmp(s, full, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(s, SYMID, tmp, &m, 1, &put, msg, sizeof(msg)), 0);
	assert_true(!put.created && put.quality == ZS_Q_FULL && put.had == ZS_Q_BASIC);
	assert_int_equal(zs_symfile_open(s, SYMID, ZS_KIND_GSYM, NULL, &f), 0);
	assert_int_equal(f.meta.quality, ZS_Q_FULL);
	zs_symfile_close(&f);
	assert_int_equal(run("grep -qx 'quality 2' %s/symbols/gsym/" SYMID ".meta", d), 0);
	zbuf_reset(&out);
	assert_int_equal(zs_symbols_below(s, SYMID "\n", 41, ZS_Q_FULL, &out, msg, sizeof(msg)), 0);
	assert_int_equal(out.len, 0);
	/* basic, and a names-only image that says full: never over full */
	to_tmp(s, basic, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(s, SYMID, tmp, &m, 1, &put, msg, sizeof(msg)), -EEXIST);
	assert_int_equal(put.had, ZS_Q_FULL);
	assert_non_null(
		strstr(msg, "keeps the full symbols it has for " SYMID " (this upload: basic)"));
	m.quality = ZS_Q_BASIC;
	to_tmp(s, basic, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(s, SYMID, tmp, &m, 1, &put, msg, sizeof(msg)), -EEXIST);
	assert_true(run("test -z \"$(ls -A %s/tmp)\"", d) == 0);
	/* forced: a worse one replaces */
	to_tmp(s, basic, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(s, SYMID, tmp, &m, 0, &put, msg, sizeof(msg)), 0);
	assert_true(!put.created && put.quality == ZS_Q_BASIC && put.had == ZS_Q_FULL);
	assert_int_equal(zs_symfile_open(s, SYMID, ZS_KIND_GSYM, NULL, &f), 0);
	assert_int_equal(f.meta.quality, ZS_Q_BASIC);
	zs_symfile_close(&f);
	/* a debug file given for an id with names only: the GSYM made of it
	 * replaces them; a debug file for full ones changes nothing */
	snprintf(tmp, sizeof(tmp), "%s/qp.debug", dir);
	assert_int_equal(run("objcopy --only-keep-debug %s %s", prog, tmp), 0);
	{
		char dbg[600], etag[65], etag2[65];
		int created;

		snprintf(dbg, sizeof(dbg), "%s", tmp);
		assert_int_equal(put_kind(s, SYMID, ZS_KIND_DEBUGINFO, NULL, dbg, 0, &created, msg),
				 0);
		assert_int_equal(zs_symfile_open(s, SYMID, ZS_KIND_GSYM, NULL, &f), 0);
		assert_int_equal(f.meta.quality, ZS_Q_FULL);
		zs_symfile_close(&f);
		assert_int_equal(zs_symbol_stat(s, SYMID, etag), 0);
		assert_int_equal(put_kind(s, SYMID, ZS_KIND_DEBUGINFO, NULL, dbg, 0, &created, msg),
				 0);
		assert_int_equal(zs_symbol_stat(s, SYMID, etag2), 0);
		assert_string_equal(etag, etag2);
	}
	zs_store_close(s);

	/* what the upload says is not believed past its image: a names-only
	 * image said full is basic; not said, the image's own */
	snprintf(d, sizeof(d), "%s/q2", dir);
	s = open_store_at(d, NULL);
	m.quality = ZS_Q_FULL;
	to_tmp(s, basic, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(s, SYMID, tmp, &m, 1, &put, msg, sizeof(msg)), 0);
	assert_int_equal(put.quality, ZS_Q_BASIC);
	m.quality = -1;
	to_tmp(s, full, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(s, SYMID, tmp, &m, 1, &put, msg, sizeof(msg)), 0);
	assert_true(put.quality == ZS_Q_FULL && put.had == ZS_Q_BASIC);
	m.quality = 3;
	to_tmp(s, full, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(s, SYMID, tmp, &m, 0, &put, msg, sizeof(msg)), -EINVAL);
	zs_store_close(s);

	/* with a remote: its copy is the id's symbols, compared as such */
	snprintf(rdir, sizeof(rdir), "%s/qremote", dir);
	snprintf(d, sizeof(d), "%s/q3", dir);
	snprintf(d2, sizeof(d2), "%s/q4", dir);
	assert_int_equal(run("mkdir -p %s", rdir), 0);
	r.ctx = rdir;
	fr_fail = 0;
	s = open_store_at(d, &r);
	b = open_store_at(d2, &r);
	m.quality = ZS_Q_FULL;
	to_tmp(s, full, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(s, SYMID, tmp, &m, 1, &put, msg, sizeof(msg)), 0);
	m.quality = ZS_Q_BASIC;
	to_tmp(b, basic, tmp, sizeof(tmp));
	assert_int_equal(zs_symbol_put_file(b, SYMID, tmp, &m, 1, &put, msg, sizeof(msg)), -EEXIST);
	assert_int_equal(put.had, ZS_Q_FULL);
	assert_int_equal(run("grep -qx 'quality 2' %s/symbols/gsym/" SYMID ".meta", rdir), 0);
	zs_store_close(b);
	zs_store_close(s);
	zbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ingest_dedup),
		cmocka_unit_test(test_ingest_file_and_orphans),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_tokens_beside),
		cmocka_unit_test(test_token_names),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_symfiles),
		cmocka_unit_test(test_symlimits),
		cmocka_unit_test(test_remote),
		cmocka_unit_test(test_symbol_quality),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
