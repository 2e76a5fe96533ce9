// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt symbols upload's parts that need no server: which files a walk takes
 * (ELF executables and shared objects; not objects, not text; symlinks
 * followed once, a loop ends; a hard link once), X-ZT-Has, and the source
 * files a -g program's DWARF names, made absolute and normal.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/symup.h"
#include "symbolizer/srcfiles.h"
#include "tests/unit/httpserv.h"
#include "testutil.h"

static char dir[] = "/tmp/zt-test-symup.XXXXXX";

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	/* a -g program from two files, an object file, text, links */
	if (run("mkdir -p %s/src/inc %s/tree/sub && cd %s/src &&"
		" printf 'static inline int twice(int x) { return 2 * x; }\\n' > inc/h.h &&"
		" printf '#include \"inc/h.h\"\\nint main(int c, char **v) { (void)v; return twice(c); }\\n' > m.c &&"
		" gcc -g -O1 -o ../tree/prog m.c && gcc -c -o ../tree/m.o m.c &&"
		" cp ../tree/prog ../tree/sub/copy && ln ../tree/prog ../tree/hard &&"
		" echo text > ../tree/notes.txt && ln -s .. ../tree/sub/loop &&"
		" ln -s ../prog ../tree/sub/link && ln -s /nonexistent ../tree/dangling",
		dir, dir, dir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return run("rm -rf %s", dir);
}

static int has_path(const struct symup_list *l, const char *suffix)
{
	size_t i, k = strlen(suffix);

	for (i = 0; i < l->n; i++) {
		size_t n = strlen(l->v[i].path);

		if (n >= k && !strcmp(l->v[i].path + n - k, suffix))
			return 1;
	}
	return 0;
}

static void test_walk(void **state)
{
	struct symup_list l;
	char p[PATH_MAX], msg[256];
	size_t i;

	(void)state;
	symup_list_init(&l);
	snprintf(p, sizeof(p), "%s/tree", dir);
	assert_int_equal(symup_list_add(&l, p, msg, sizeof(msg)), 0);
	/* prog (or its hard link or symlink: one inode, once) and its copy */
	assert_int_equal(l.n, 2);
	assert_true(has_path(&l, "/sub/copy"));
	assert_false(has_path(&l, "m.o"));
	assert_false(has_path(&l, "notes.txt"));
	for (i = 0; i < l.n; i++) {
		assert_int_equal(strlen(l.v[i].id), 40); /* gcc's GNU build id */
		assert_false(l.v[i].is_fileid);
		assert_int_equal(l.v[i].st, SYMUP_PENDING);
	}
	assert_string_equal(l.v[0].id, l.v[1].id); /* a copy: the same id */
	/* the same tree again, and the file itself: nothing new */
	assert_int_equal(symup_list_add(&l, p, msg, sizeof(msg)), 0);
	snprintf(p, sizeof(p), "%s/tree/prog", dir);
	assert_int_equal(symup_list_add(&l, p, msg, sizeof(msg)), 0);
	assert_int_equal(l.n, 2);
	/* a path that is not there: named */
	snprintf(p, sizeof(p), "%s/none", dir);
	assert_int_equal(symup_list_add(&l, p, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "/none"));
	symup_list_release(&l);
}

static void test_fileid(void **state)
{
	struct symup_list l;
	char p[PATH_MAX], msg[256];

	(void)state;
	snprintf(p, sizeof(p), "%s/noid", dir);
	assert_int_equal(run("cd %s/src && gcc -Wl,--build-id=none -o %s m.c", dir, p), 0);
	symup_list_init(&l);
	assert_int_equal(symup_list_add(&l, p, msg, sizeof(msg)), 0);
	assert_int_equal(l.n, 1);
	assert_true(l.v[0].is_fileid);
	assert_int_equal(strlen(l.v[0].id), 32);
	symup_list_release(&l);
}

static void test_has(void **state)
{
	(void)state;
	assert_int_equal(symup_parse_has("gsym"), SYMUP_GSYM);
	assert_int_equal(symup_parse_has("gsym,debuginfo,executable"),
			 SYMUP_GSYM | SYMUP_DEBUGINFO | SYMUP_EXECUTABLE);
	assert_int_equal(symup_parse_has(" debuginfo , source,gsymx"), SYMUP_DEBUGINFO);
	assert_int_equal(symup_parse_has(""), 0);
	assert_int_equal(symup_parse_has(NULL), 0);
}

static void test_normalize(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(srcfiles_normalize("/b/c", "x.c", out, sizeof(out)), 0);
	assert_string_equal(out, "/b/c/x.c");
	assert_int_equal(srcfiles_normalize("/b/c", "../inc/./h.h", out, sizeof(out)), 0);
	assert_string_equal(out, "/b/inc/h.h");
	assert_int_equal(srcfiles_normalize(NULL, "//usr//include/../include/stdio.h", out,
					    sizeof(out)), 0);
	assert_string_equal(out, "/usr/include/stdio.h");
	assert_int_equal(srcfiles_normalize("/", "../../../etc/x", out, sizeof(out)), 0);
	assert_string_equal(out, "/etc/x");
	assert_int_equal(srcfiles_normalize("/a", "..", out, sizeof(out)), 0);
	assert_string_equal(out, "/");
	assert_int_equal(srcfiles_normalize("rel", "x.c", out, sizeof(out)), -EINVAL);
	assert_int_equal(srcfiles_normalize(NULL, "x.c", out, sizeof(out)), -EINVAL);
	assert_int_equal(srcfiles_normalize("/a", "", out, sizeof(out)), -EINVAL);
	assert_int_equal(srcfiles_normalize("/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
					    "bbbbbbbbbbbbbbbbbbbbbbb.c", out, sizeof(out)),
			 -ENAMETOOLONG);
}

static void test_srcfiles(void **state)
{
	char p[PATH_MAX], want[PATH_MAX], **v;
	size_t n, i;
	int main_c = 0, inc = 0;

	(void)state;
	snprintf(p, sizeof(p), "%s/tree/prog", dir);
	assert_int_equal(srcfiles_list(p, &v, &n), 0);
	for (i = 0; i < n; i++) {
		assert_true(v[i][0] == '/');
		assert_null(strstr(v[i], "/./"));
		assert_null(strstr(v[i], "/../"));
		if (i)
			assert_true(strcmp(v[i - 1], v[i]) < 0); /* sorted, each once */
		snprintf(want, sizeof(want), "%s/src/m.c", dir);
		main_c += !strcmp(v[i], want);
		snprintf(want, sizeof(want), "%s/src/inc/h.h", dir);
		inc += !strcmp(v[i], want);
	}
	assert_int_equal(main_c, 1);
	assert_int_equal(inc, 1);
	srcfiles_free(v, n);
	/* no DWARF, not ELF */
	assert_int_equal(srcfiles_list("/usr/bin/true", &v, &n), -ENOENT);
	snprintf(p, sizeof(p), "%s/tree/notes.txt", dir);
	assert_int_equal(srcfiles_list(p, &v, &n), -ENOENT);
	assert_int_equal(srcfiles_list("/nonexistent", &v, &n), -ENOENT);
}

/* One upload of tree/prog against a scripted server: the file as it
 * ended, and the server's record of the requests in srv. */
static void upload_one(const struct answer *script, int n, int force, int no_dwarf,
		       struct symup_file *out, struct server *srv)
{
	struct symmod_opts mo = {.no_debuginfod = 1, .no_dwarf = no_dwarf};
	struct symup_opts o = {.mo = &mo, .force = force, .jobs = 1};
	struct symup_list l;
	char p[PATH_MAX], url[64], msg[512];

	server_start(srv, script, n);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", srv->port);
	o.http.base_url = url;
	o.http.tries = 1;
	symup_list_init(&l);
	snprintf(p, sizeof(p), "%s/tree/prog", dir);
	assert_int_equal(symup_list_add(&l, p, msg, sizeof(msg)), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(symup_run(&o, &l, msg, sizeof(msg)), 0);
	*out = l.v[0];
	out->path = NULL;
	symup_list_release(&l);
	server_stop(srv);
}

/* What the server has decides: better symbols are sent over worse ones
 * (no --force), worse or equal ones are not (and it is said when the
 * server keeps better ones), --force sends them whatever it has. */
static void test_quality(void **state)
{
	static const char basic_h[] = "X-ZT-Has: gsym\r\nX-ZT-Symbol-Quality: basic\r\n";
	static const char full_h[] = "X-ZT-Has: gsym\r\nX-ZT-Symbol-Quality: full\r\n";
	const struct answer up_basic[] = {
		{200, basic_h, NULL, 0},
		{200, NULL,
		 "{\"id\":\"x\",\"created\":false,\"quality\":\"full\",\"replaced\":\"basic\"}", 0},
	};
	const struct answer has_full[] = {{200, full_h, NULL, 0}};
	const struct answer has_basic[] = {{200, basic_h, NULL, 0}};
	const struct answer forced[] = {
		{200, NULL,
		 "{\"id\":\"x\",\"created\":false,\"quality\":\"basic\",\"replaced\":\"full\"}", 0},
	};
	const struct answer raced[] = {
		{404, NULL, "{\"error\":\"no\"}", 0},
		{412, "X-ZT-Symbol-Quality: full\r\n", "{\"error\":\"kept\"}", 0},
	};
	struct symup_file f;
	struct server srv;
	char put[128];

	(void)state;
	/* the server has names only: this -g program's full symbols replace them */
	upload_one(up_basic, 2, 0, 0, &f, &srv);
	snprintf(put, sizeof(put), "PUT /api/v1/symbols/%s HTTP/1.1", f.id);
	assert_int_equal(srv.served, 2);
	assert_true(!strncmp(srv.first_line[0], "HEAD ", 5));
	assert_string_equal(srv.first_line[1], put);
	assert_int_equal(f.st, SYMUP_UPLOADED);
	assert_true(f.q == SYMQ_FULL && f.server_q == SYMQ_BASIC && f.replaced == SYMQ_BASIC);
	assert_false(f.kept);
	assert_string_equal(f.note, "replaced the server's basic symbols");
	/* the server has full ones, the file has DWARF: nothing made, nothing sent */
	upload_one(has_full, 1, 0, 0, &f, &srv);
	assert_int_equal(srv.served, 1);
	assert_int_equal(f.st, SYMUP_SKIPPED);
	assert_false(f.kept);
	assert_string_equal(f.note, "already on the server");
	/* full ones, and names only here (--no-dwarf): kept, and said */
	upload_one(has_full, 1, 0, 1, &f, &srv);
	assert_int_equal(srv.served, 1);
	assert_int_equal(f.st, SYMUP_SKIPPED);
	assert_true(f.kept && f.q == SYMQ_BASIC && f.server_q == SYMQ_FULL);
	assert_string_equal(f.note, "kept the server's full symbols (this upload: basic)");
	/* names only on both sides: equal, not sent */
	upload_one(has_basic, 1, 0, 1, &f, &srv);
	assert_int_equal(srv.served, 1);
	assert_int_equal(f.st, SYMUP_SKIPPED);
	assert_false(f.kept);
	assert_string_equal(f.note, "already on the server");
	/* --force: no question asked, the worse ones replace the server's */
	upload_one(forced, 1, 1, 1, &f, &srv);
	assert_string_equal(srv.first_line[0], put);
	assert_int_equal(f.st, SYMUP_UPLOADED);
	assert_true(f.q == SYMQ_BASIC && f.server_q == -1 && f.replaced == SYMQ_FULL);
	/* better ones stored by another upload meanwhile (412): kept, said */
	upload_one(raced, 2, 0, 1, &f, &srv);
	assert_int_equal(srv.served, 2);
	assert_int_equal(f.st, SYMUP_SKIPPED);
	assert_true(f.kept && f.server_q == SYMQ_FULL);
	assert_string_equal(f.note, "kept the server's full symbols (this upload: basic)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk),	 cmocka_unit_test(test_fileid),
		cmocka_unit_test(test_has),	 cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_srcfiles), cmocka_unit_test(test_quality),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
