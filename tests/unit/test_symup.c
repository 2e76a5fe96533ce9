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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk),	  cmocka_unit_test(test_fileid),
		cmocka_unit_test(test_has),	  cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_srcfiles),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
