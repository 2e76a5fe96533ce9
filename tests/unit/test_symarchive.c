/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symarchive: entry names of the layout and the ones refused, an archive
 * written and unpacked again (files, modes, the private directory removed),
 * an unpacked directory used as it is, and symmod reading an archive's GSYM
 * table for a binary that is gone (and not one marked with another id).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "tests/unit/testutil.h"

#include "libprof/fileio.h"
#include "libprof/zbuf.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/symarchive.h"
#include "symbolizer/symmod.h"

static char tmpdir[] = "/tmp/zt-test-symarchive.XXXXXX";

static const char *tp(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, rel);
	return buf[k];
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	/* a program with DWARF, and another (a different build id) */
	if (write_text(tp("prog.c"),
		       "__attribute__((noinline)) int za_func(int x) { return x * 3 + 1; }\n"
		       "int main(int c, char **v) { (void)v; return za_func(c); }\n",
		       0644) ||
	    run("cc -g -O1 -Wl,--build-id -o %s %s", tp("prog"), tp("prog.c")) ||
	    run("cc -g -O1 -Wl,--build-id -DOTHER -o %s %s -Dza_func=zb_func", tp("other"),
		tp("prog.c")))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	run("rm -rf %s", tmpdir);
	return 0;
}

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(symarchive_name("README"), SYMARCHIVE_TEXT);
	assert_int_equal(symarchive_name("./MANIFEST"), SYMARCHIVE_TEXT);
	assert_int_equal(symarchive_name("buildid/ab/cdef/elf"), SYMARCHIVE_ELF);
	assert_int_equal(symarchive_name("./buildid/ab/cdef/elf"), SYMARCHIVE_ELF);
	assert_int_equal(symarchive_name("gsym/abcdef.gsym"), SYMARCHIVE_GSYM);
	assert_int_equal(symarchive_name("gsym/abcdef.meta"), SYMARCHIVE_META);
	assert_int_equal(symarchive_name("buildid/"), SYMARCHIVE_DIR);
	assert_int_equal(symarchive_name("buildid/ab/"), SYMARCHIVE_DIR);
	assert_int_equal(symarchive_name("buildid/ab/cdef/"), SYMARCHIVE_DIR);
	assert_int_equal(symarchive_name("gsym"), SYMARCHIVE_DIR);
	/* outside the layout: skipped */
	assert_int_equal(symarchive_name("gsym/ABCD.gsym"), SYMARCHIVE_OTHER); /* upper case */
	assert_int_equal(symarchive_name("gsym/a.gsym"), SYMARCHIVE_OTHER);    /* too short */
	assert_int_equal(symarchive_name("buildid/abc/def/elf"), SYMARCHIVE_OTHER);
	assert_int_equal(symarchive_name("buildid/ab/cd/elf/x"), SYMARCHIVE_OTHER);
	assert_int_equal(symarchive_name("buildid/ab/cd/debug"), SYMARCHIVE_OTHER);
	assert_int_equal(symarchive_name("gsym/abcd.gsym.tmp"), SYMARCHIVE_OTHER);
	assert_int_equal(symarchive_name("gsym/" /* 42 digits: more than a build id has */
					 "0123456789012345678901234567890123456789ab.gsym"),
			 SYMARCHIVE_OTHER);
	assert_int_equal(symarchive_name(""), SYMARCHIVE_OTHER);
	/* reaching out: refused */
	assert_int_equal(symarchive_name("/etc/passwd"), SYMARCHIVE_UNSAFE);
	assert_int_equal(symarchive_name("../x"), SYMARCHIVE_UNSAFE);
	assert_int_equal(symarchive_name("gsym/../../x"), SYMARCHIVE_UNSAFE);
	assert_int_equal(symarchive_name("gsym/.."), SYMARCHIVE_UNSAFE);
	assert_int_equal(symarchive_name("gsym/..ab.gsym"), SYMARCHIVE_OTHER); /* not a component */
}

static int exists(const char *p, mode_t *mode)
{
	struct stat st;

	if (lstat(p, &st))
		return 0;
	if (mode)
		*mode = st.st_mode & 07777;
	return S_ISREG(st.st_mode) || S_ISDIR(st.st_mode);
}

static void test_roundtrip(void **state)
{
	struct symarchive_writer *w = NULL;
	struct symarchive a;
	struct prof_build_id b = {0};
	char err[512], path[PATH_MAX], *text = NULL, dir[PATH_MAX], readme[PATH_MAX + 8];
	size_t len;
	mode_t mode;
	int fd, efd;

	(void)state;
	fd = open(tp("a.zta"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(symarchive_writer_new(fd, &w, err, sizeof(err)), 0);
	assert_int_equal(symarchive_add(w, "README", "hi\n", 3, err, sizeof(err)), 0);
	/* names outside the layout are not written */
	assert_int_equal(symarchive_add(w, "../x", "x", 1, err, sizeof(err)), -EINVAL);
	assert_int_equal(symarchive_add(w, "notes", "x", 1, err, sizeof(err)), -EINVAL);
	efd = open(tp("prog"), O_RDONLY);
	assert_true(efd >= 0);
	assert_int_equal(elf_read_build_id(tp("prog"), &b), 0);
	assert_true(b.len >= 2);
	{
		char hex[2 * ZT_BUILD_ID_MAX + 1], name[128];

		prof_build_id_hex(&b, hex);
		snprintf(name, sizeof(name), "buildid/%.2s/%s/elf", hex, hex + 2);
		assert_int_equal(symarchive_add_fd(w, name, efd, err, sizeof(err)), 0);
		snprintf(name, sizeof(name), "gsym/%s.meta", hex);
		assert_int_equal(symarchive_add(w, name, "m\n", 2, err, sizeof(err)), 0);
	}
	close(efd);
	assert_int_equal(symarchive_writer_close(w, err, sizeof(err)), 0);
	close(fd);

	assert_int_equal(symarchive_open(&a, tp("a.zta"), err, sizeof(err)), 0);
	assert_true(a.temp);
	assert_int_equal(a.st.files, 3);
	snprintf(dir, sizeof(dir), "%s", a.cache.dir);
	assert_true(exists(dir, &mode));
	assert_int_equal(mode, 0700);
	/* the binary where the build-id cache lookup finds it, byte for byte */
	assert_int_equal(buildid_cache_path(&a.cache, &b, path, sizeof(path)), 0);
	assert_true(exists(path, &mode));
	assert_int_equal(mode, 0600);
	assert_int_equal(run("cmp -s %s %s", path, tp("prog")), 0);
	snprintf(readme, sizeof(readme), "%s/README", dir);
	assert_int_equal(zt_read_file(readme, 1024, &text, &len), 0);
	assert_int_equal(len, 3);
	assert_memory_equal(text, "hi\n", 3);
	free(text);
	symarchive_close(&a);
	assert_false(exists(dir, NULL)); /* all of it removed */
	symarchive_close(&a);		 /* twice is fine */

	/* an unpacked directory is used as it is, and left alone */
	assert_int_equal(run("mkdir -p %s && tar --zstd -xf %s -C %s 2>/dev/null || "
			     "(zstd -dc %s | tar -xf - -C %s)",
			     tp("unpacked"), tp("a.zta"), tp("unpacked"), tp("a.zta"),
			     tp("unpacked")),
			 0);
	assert_int_equal(symarchive_open(&a, tp("unpacked"), err, sizeof(err)), 0);
	assert_false(a.temp);
	assert_int_equal(buildid_cache_path(&a.cache, &b, path, sizeof(path)), 0);
	symarchive_close(&a);
	assert_true(exists(tp("unpacked/README"), NULL));
}

static void test_bad_files(void **state)
{
	struct symarchive a;
	char err[512];

	(void)state;
	assert_int_equal(write_text(tp("junk.zta"), "this is not a tar file at all\n", 0644), 0);
	assert_int_equal(symarchive_open(&a, tp("junk.zta"), err, sizeof(err)), -EBADMSG);
	assert_true(err[0]);
	assert_null(a.cache.dir);
	assert_int_equal(symarchive_open(&a, tp("missing.zta"), err, sizeof(err)), -ENOENT);
	assert_int_equal(symarchive_open(&a, "/dev/null", err, sizeof(err)), -EINVAL);
}

/* A GSYM table and its meta for the binary at path, under id's name in
 * dir's gsym/. */
static void put_gsym(const char *dir, const char *path, const struct prof_build_id *id)
{
	struct symmod_opts o = {0};
	struct symmod_seg segs[16];
	char hex[2 * ZT_BUILD_ID_MAX + 1], p[PATH_MAX];
	struct zbuf meta;
	size_t nseg;
	enum symq q;

	prof_build_id_hex(id, hex);
	snprintf(p, sizeof(p), "%s/gsym", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/gsym/%s.gsym", dir, hex);
	assert_int_equal(symmod_extract(&o, path, p, &q), 0);
	assert_int_equal(q, SYMQ_FULL);
	assert_int_equal(symmod_elf_segments(path, 0, segs, 16, &nseg), 0);
	zbuf_init(&meta);
	assert_int_equal(symmod_meta_format(&meta, q, "", "DWARF in the binary", segs, nseg), 0);
	snprintf(p, sizeof(p), "%s/gsym/%s.meta", dir, hex);
	assert_int_equal(write_bytes(p, meta.data, meta.len, 0600), 0);
	zbuf_release(&meta);
}

static void test_symmod_reads_archive(void **state)
{
	struct buildid_cache arch = {0}, empty = {0};
	struct symmod_opts o = {0};
	struct prof_build_id b = {0}, ob = {0};
	struct symmod *m = NULL;
	struct fi_result r;
	uint64_t off;

	(void)state;
	assert_int_equal(elf_read_build_id(tp("prog"), &b), 0);
	assert_int_equal(elf_read_build_id(tp("other"), &ob), 0);
	assert_int_equal(mkdir(tp("arch"), 0700), 0);
	put_gsym(tp("arch"), tp("prog"), &b);
	assert_int_equal(file_offset(tp("prog"), "za_func", &off, NULL), 0);
	arch.dir = (char *)tp("arch");
	empty.dir = (char *)tp("empty-cache");
	o.cache = &empty;
	o.no_debuginfod = 1;

	/* the binary gone: nothing without the archive */
	assert_int_equal(symmod_open(&o, tp("gone"), &b, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_NONE);
	symmod_free(m);
	/* with it: the function and its line, from the archive */
	o.archive = &arch;
	assert_int_equal(symmod_open(&o, tp("gone"), &b, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_FULL);
	assert_non_null(strstr(symmod_source(m), "zt archive"));
	assert_int_equal(symmod_lookup_offset(m, off, &r), 0);
	assert_string_equal(r.locs[r.n - 1].name, "za_func");
	assert_int_equal(r.locs[0].line, 1);
	symmod_free(m);
	/* not copied into the cache */
	assert_false(exists(tp("empty-cache/gsym"), NULL));

	/* a table marked with another build id, under this one's name: unused */
	put_gsym(tp("arch"), tp("other"), &ob);
	{
		char hb[2 * ZT_BUILD_ID_MAX + 1], ho[2 * ZT_BUILD_ID_MAX + 1];

		prof_build_id_hex(&b, hb);
		prof_build_id_hex(&ob, ho);
		assert_int_equal(
			run("cp %s/gsym/%s.gsym %s/gsym/%s.gsym", tp("arch"), ho, tp("arch"), hb),
			0);
	}
	assert_int_equal(symmod_open(&o, tp("gone"), &b, &m), 0);
	assert_int_equal(symmod_quality(m), SYMQ_NONE);
	symmod_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_symmod_reads_archive),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
