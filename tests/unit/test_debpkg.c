// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * symbolizer/debpkg.c: Debian packages built here with dpkg-deb (xz,
 * zstd, gzip and uncompressed data members) holding a debug file by build
 * id, one by the binary's path, a file that is not ELF, a link and other
 * files: exactly the two debug files are handed over, with their bytes;
 * then damaged packages (cut, not ar, no debian-binary, random bytes).
 */
#include <errno.h>
#include <fcntl.h>
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

#include "libprof/fileio.h"
#include "symbolizer/debpkg.h"

static char dir[64], out[128];

static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/zt-debpkg.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(out, sizeof(out), "%s/out", dir);
	mkdir(out, 0700);
	/* a program and its debug file, as dh_strip makes them */
	sh("cd %s && printf 'int zt_debpkg_fn(int x) { return x * 3; }\\nint main(void) { return "
	   "zt_debpkg_fn(1); }\\n' > p.c && cc -g -O1 -Wl,--build-id=sha1 -o p p.c && "
	   "objcopy --only-keep-debug p p.debug", dir);
	sh("cd %s && mkdir -p pkg/DEBIAN pkg/usr/lib/debug/.build-id/ab pkg/usr/lib/debug/usr/bin "
	   "pkg/usr/share/doc/x && printf 'Package: zt-test-dbg\\nVersion: 1\\nArchitecture: "
	   "amd64\\nMaintainer: zt <zt@example.org>\\nDescription: test\\n' > pkg/DEBIAN/control && "
	   "cp p.debug pkg/usr/lib/debug/.build-id/ab/cdef.debug && cp p.debug pkg/usr/lib/debug/usr/bin/p "
	   "&& echo notelf > pkg/usr/lib/debug/.build-id/ab/readme && "
	   "ln -s ../../../../../etc/passwd pkg/usr/lib/debug/.build-id/ab/link.debug && "
	   "echo doc > pkg/usr/share/doc/x/copyright", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", dir);
	return 0;
}

struct got {
	unsigned n;
	char names[4][256];
	int same; /* the bytes are p.debug's */
};

static int on_file(void *ctx, const struct debpkg_file *f)
{
	struct got *g = ctx;
	char *a = NULL, *b = NULL, ref[128];
	size_t la = 0, lb = 0;
	struct stat st;

	assert_true(g->n < 4);
	snprintf(g->names[g->n++], sizeof(g->names[0]), "%s", f->name);
	/* written in the caller's directory, 0600, the bytes of the file */
	assert_int_equal(strncmp(f->path, out, strlen(out)), 0);
	assert_int_equal(lstat(f->path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	snprintf(ref, sizeof(ref), "%s/p.debug", dir);
	assert_int_equal(zt_read_file(f->path, 1 << 26, &a, &la), 0);
	assert_int_equal(zt_read_file(ref, 1 << 26, &b, &lb), 0);
	if (la == lb && !memcmp(a, b, la) && f->size == la)
		g->same++;
	free(a);
	free(b);
	return 0;
}

static void test_compressions(void **state)
{
	static const char *const z[] = {"xz", "zstd", "gzip", "none"};
	unsigned i;

	(void)state;
	for (i = 0; i < 4; i++) {
		struct debpkg_stats st;
		struct got g;
		char deb[128], err[256];

		memset(&g, 0, sizeof(g));
		snprintf(deb, sizeof(deb), "%s/t-%s.deb", dir, z[i]);
		sh("cd %s && dpkg-deb -Z%s --root-owner-group -b pkg %s > /dev/null", dir, z[i], deb);
		assert_true(debpkg_is_name(deb));
		assert_int_equal(debpkg_read(deb, out, on_file, &g, &st, err, sizeof(err)), 0);
		assert_int_equal(g.n, 2);
		assert_int_equal(g.same, 2);
		assert_int_equal(st.files, 2);
		assert_true(st.skipped >= 3); /* the readme, the link, the doc, DEBIAN's */
		assert_true((!strcmp(g.names[0], "usr/lib/debug/.build-id/ab/cdef.debug") &&
			     !strcmp(g.names[1], "usr/lib/debug/usr/bin/p")) ||
			    (!strcmp(g.names[1], "usr/lib/debug/.build-id/ab/cdef.debug") &&
			     !strcmp(g.names[0], "usr/lib/debug/usr/bin/p")));
		/* nothing left behind */
		sh("test -z \"$(ls -A %s)\"", out);
	}
}

static int stop_at_first(void *ctx, const struct debpkg_file *f)
{
	(void)f;
	(*(int *)ctx)++;
	return 7;
}

static void test_callback_stops(void **state)
{
	char deb[128], err[256];
	int calls = 0;

	(void)state;
	snprintf(deb, sizeof(deb), "%s/t-xz.deb", dir);
	assert_int_equal(debpkg_read(deb, out, stop_at_first, &calls, NULL, err, sizeof(err)), 7);
	assert_int_equal(calls, 1);
	sh("test -z \"$(ls -A %s)\"", out);
}

static void test_damaged(void **state)
{
	char deb[128], bad[128], err[256];
	struct got g;
	struct stat st;
	off_t cut;

	(void)state;
	snprintf(deb, sizeof(deb), "%s/t-xz.deb", dir);
	assert_int_equal(stat(deb, &st), 0);
	snprintf(bad, sizeof(bad), "%s/bad.deb", dir);
	/* cut at several places: an error (or the files before the cut), no crash */
	for (cut = 0; cut < st.st_size; cut += st.st_size / 7 + 1) {
		int r;

		sh("head -c %lld %s > %s", (long long)cut, deb, bad);
		memset(&g, 0, sizeof(g));
		r = debpkg_read(bad, out, on_file, &g, NULL, err, sizeof(err));
		assert_true(r == -EBADMSG || r == 0);
		if (r)
			assert_true(err[0]);
		sh("test -z \"$(ls -A %s)\"", out);
	}
	/* random bytes; an ar archive that is not a package */
	sh("head -c 5000 /dev/urandom > %s", bad);
	assert_int_equal(debpkg_read(bad, out, on_file, &g, NULL, err, sizeof(err)), -EBADMSG);
	sh("cd %s && rm -f bad.deb && echo x > data.tar && ar rc bad.deb data.tar", dir);
	assert_int_equal(debpkg_read(bad, out, on_file, &g, NULL, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "debian-binary"));
	/* not there */
	assert_int_equal(debpkg_read("/nonexistent.deb", out, on_file, &g, NULL, err, sizeof(err)),
			 -ENOENT);
	assert_false(debpkg_is_name("x.tar"));
	assert_true(debpkg_is_name("x_1_amd64.ddeb"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compressions),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
