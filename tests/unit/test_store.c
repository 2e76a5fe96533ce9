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

#include "server/store.h"
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
static void list_cb(void *ctx, const char *name, unsigned scopes, const char *hash8, int64_t created)
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
	assert_int_equal(zs_token_revoke(s, "ci"), 0);
	assert_int_equal(zs_token_check(s, t1, 64), 0);
	assert_int_equal(zs_token_revoke(s, "ci"), -ENOENT);
	assert_int_equal(zs_token_count(s), 1);
	zs_store_close(s);
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
	assert_int_equal(zs_token_revoke(a, "late"), 0);
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
	int created;

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
	assert_int_equal(zs_symbol_put_file(s, id, tmp, &m, 1, &created, msg, sizeof(msg)), 0);
	assert_int_equal(created, 1);
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
	assert_int_equal(zs_symbol_put_file(s, id, tmp, &m, 1, &created, msg, sizeof(msg)), -EEXIST);
	run("cp %s %s", gsym, tmp);
	assert_int_equal(zs_symbol_put_file(s, "abcdef", tmp, &m, 0, &created, msg, sizeof(msg)),
			 -EBADMSG);
	run("echo nope > %s", tmp);
	assert_int_equal(zs_symbol_put_file(s, id, tmp, &m, 0, &created, msg, sizeof(msg)), -EBADMSG);
	run("cp %s %s", gsym, tmp);
	assert_int_equal(zs_symbol_put_file(s, id, tmp, &m, 0, &created, msg, sizeof(msg)), 0);
	assert_int_equal(created, 0);
	zbuf_release(&out);
	zs_store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ingest_dedup),
		cmocka_unit_test(test_ingest_file_and_orphans),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_tokens_beside),
		cmocka_unit_test(test_symbols),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
