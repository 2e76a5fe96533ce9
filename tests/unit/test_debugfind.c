/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debugfind: a binary built and split at test time, its debug file put in
 * each place (same dir, .debug/, DEBUGDIR/dir, .build-id, under --symfs),
 * CRC and build-id mismatches rejected, libc's file from libc6-dbg, and a
 * Fedora-style MiniDebugInfo section decompressed into a valid ELF.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
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

#include "tests/unit/testutil.h"

#include "symbolizer/debugfind.h"
#include "symbolizer/elfsym.h"

static char tmpdir[] = "/tmp/zt-test-debugfind.XXXXXX";
static char hex[2 * ZT_BUILD_ID_MAX + 1];
static struct prof_build_id prog_bid;

/* tmpdir/rel in one of 4 rotating buffers: for immediate use only */
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
	if (!mkdtemp(tmpdir))
		return -1;
	/* prog: -g build; prog.debug: its debug file; other.debug: another program's */
	if (run("cd %s && printf '%%s\\n' 'static int __attribute__((noinline)) local_worker(int x) { return x * 3; }'"
		" 'int main(int c, char **v) { return local_worker(c); }' > p.c"
		" && cc -O1 -g -Wl,--build-id -o prog p.c"
		" && objcopy --only-keep-debug prog prog.debug"
		" && printf 'int main(void) { return 1; }\\n' > q.c"
		" && cc -O1 -g -Wl,--build-id -o other q.c && objcopy --only-keep-debug other other.debug",
		tmpdir) != 0)
		return -1;
	if (elf_read_build_id(tp("prog"), &prog_bid) || prog_bid.len < 2)
		return -1;
	prof_build_id_hex(&prog_bid, hex);
	return 0;
}

static int teardown(void **state)
{
	run("rm -rf %s", tmpdir);
	return 0;
}

/* A stripped copy of prog at DIR/prog carrying a debuglink to prog.debug. */
static void make_linked(const char *dir)
{
	assert_int_equal(run("mkdir -p %s && cp %s/prog %s/prog && strip --strip-debug %s/prog"
			     " && cd %s && objcopy --add-gnu-debuglink=prog.debug %s/prog",
			     dir, tmpdir, dir, dir, tmpdir, dir), 0);
}

static void test_debuglink_section(void **state)
{
	char name[256], cmd[PATH_MAX + 128], line[64];
	uint32_t crc = 0, fcrc = 0;
	FILE *f;

	make_linked(tp("l0"));
	assert_int_equal(debugfind_debuglink(tp("l0/prog"), name, sizeof(name), &crc), 0);
	assert_string_equal(name, "prog.debug");
	assert_int_equal(debugfind_file_crc32(tp("prog.debug"), &fcrc), 0);
	assert_int_equal(crc, fcrc);
	/* independently: Python's zlib over the whole file */
	snprintf(cmd, sizeof(cmd), "python3 -c 'import zlib,sys; print(zlib.crc32(open(sys.argv[1],\"rb\").read()))' %s",
		 tp("prog.debug"));
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	pclose(f);
	assert_int_equal(strtoul(line, NULL, 10), crc);
	/* too small a buffer, and no section at all */
	assert_int_equal(debugfind_debuglink(tp("l0/prog"), name, 5, &crc), -EBADMSG);
	assert_int_equal(debugfind_debuglink(tp("prog"), name, sizeof(name), &crc), -ENOENT);
}

static const struct debugfind_opts no_dirs = { .no_default_dir = 1 };

static void test_debuglink_same_dir(void **state)
{
	char out[PATH_MAX];

	make_linked(tp("l1"));
	assert_int_equal(debugfind(&no_dirs, tp("l1/prog"), NULL, out, sizeof(out)), -ENOENT);
	assert_int_equal(run("cp %s/prog.debug %s/l1/", tmpdir, tmpdir), 0);
	assert_int_equal(debugfind(&no_dirs, tp("l1/prog"), NULL, out, sizeof(out)), 0);
	assert_string_equal(out, tp("l1/prog.debug"));
	/* the same with the build id passed in */
	assert_int_equal(debugfind(&no_dirs, tp("l1/prog"), &prog_bid, out, sizeof(out)), 0);
	assert_string_equal(out, tp("l1/prog.debug"));
	/* too small an output buffer */
	assert_int_equal(debugfind(&no_dirs, tp("l1/prog"), NULL, out, 8), -ENAMETOOLONG);
}

static void test_debuglink_dot_debug(void **state)
{
	char out[PATH_MAX];

	make_linked(tp("l2"));
	assert_int_equal(run("mkdir -p %s/l2/.debug && cp %s/prog.debug %s/l2/.debug/", tmpdir,
			     tmpdir, tmpdir), 0);
	assert_int_equal(debugfind(&no_dirs, tp("l2/prog"), NULL, out, sizeof(out)), 0);
	assert_string_equal(out, tp("l2/.debug/prog.debug"));
}

static void test_debuglink_debugdir(void **state)
{
	char out[PATH_MAX], want[PATH_MAX], d1[PATH_MAX], d2[PATH_MAX];
	const char *dirs[] = { d1, d2, NULL };
	struct debugfind_opts o = { .debug_dirs = dirs, .no_default_dir = 1 };

	snprintf(d1, sizeof(d1), "%s/dd-empty", tmpdir);
	snprintf(d2, sizeof(d2), "%s/dd", tmpdir);

	make_linked(tp("l3"));
	/* gdb's rule: DEBUGDIR + the binary's directory */
	assert_int_equal(run("mkdir -p %s/dd%s/l3 && cp %s/prog.debug %s/dd%s/l3/", tmpdir, tmpdir,
			     tmpdir, tmpdir, tmpdir), 0);
	assert_int_equal(debugfind(&o, tp("l3/prog"), NULL, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/dd%s/l3/prog.debug", tmpdir, tmpdir);
	assert_string_equal(out, want);
}

static void test_debuglink_crc_mismatch(void **state)
{
	char out[PATH_MAX];

	make_linked(tp("l4"));
	/* a file of the right name but other contents: rejected */
	assert_int_equal(run("cp %s/prog.debug %s/l4/prog.debug && printf x >> %s/l4/prog.debug",
			     tmpdir, tmpdir, tmpdir), 0);
	assert_int_equal(debugfind(&no_dirs, tp("l4/prog"), NULL, out, sizeof(out)), -ENOENT);
	/* the search goes on past it to the right one */
	assert_int_equal(run("mkdir -p %s/l4/.debug && cp %s/prog.debug %s/l4/.debug/", tmpdir,
			     tmpdir, tmpdir), 0);
	assert_int_equal(debugfind(&no_dirs, tp("l4/prog"), NULL, out, sizeof(out)), 0);
	assert_string_equal(out, tp("l4/.debug/prog.debug"));
}

static void test_build_id_dir(void **state)
{
	char out[PATH_MAX], want[PATH_MAX], dir[PATH_MAX];
	const char *dirs[] = { dir, NULL };
	struct debugfind_opts o = { .debug_dirs = dirs, .no_default_dir = 1 };

	snprintf(dir, sizeof(dir), "%s/bid", tmpdir);

	/* fully stripped, no debuglink: only the build id leads to the file */
	assert_int_equal(run("mkdir -p %s/b1 %s/bid/.build-id/%.2s && cp %s/prog %s/b1/prog"
			     " && strip --strip-all %s/b1/prog",
			     tmpdir, tmpdir, hex, tmpdir, tmpdir, tmpdir), 0);
	assert_int_equal(debugfind(&o, tp("b1/prog"), NULL, out, sizeof(out)), -ENOENT);
	/* a file with another build id at the right place: rejected */
	snprintf(want, sizeof(want), "%s/bid/.build-id/%.2s/%s.debug", tmpdir, hex, hex + 2);
	assert_int_equal(run("cp %s/other.debug %s", tmpdir, want), 0);
	assert_int_equal(debugfind(&o, tp("b1/prog"), NULL, out, sizeof(out)), -ENOENT);
	assert_int_equal(run("cp %s/prog.debug %s", tmpdir, want), 0);
	assert_int_equal(debugfind(&o, tp("b1/prog"), NULL, out, sizeof(out)), 0);
	assert_string_equal(out, want);
	/* the binary gone, the build id known from the recording */
	assert_int_equal(debugfind(&o, tp("b1/gone"), &prog_bid, out, sizeof(out)), 0);
	assert_string_equal(out, want);
	/* ... and without it: the binary's open error */
	assert_int_equal(debugfind(&o, tp("b1/gone"), NULL, out, sizeof(out)), -ENOENT);
}

static void test_symfs(void **state)
{
	char out[PATH_MAX], want[PATH_MAX], root[PATH_MAX], root2[PATH_MAX];
	struct debugfind_opts o = { .symfs = root };

	snprintf(root, sizeof(root), "%s/root", tmpdir);
	snprintf(root2, sizeof(root2), "%s/root2", tmpdir);

	/* build id under ROOT/usr/lib/debug */
	assert_int_equal(run("mkdir -p %s/root/usr/bin %s/root/usr/lib/debug/.build-id/%.2s"
			     " && cp %s/prog %s/root/usr/bin/prog && strip --strip-all %s/root/usr/bin/prog"
			     " && cp %s/prog.debug %s/root/usr/lib/debug/.build-id/%.2s/%s.debug",
			     tmpdir, tmpdir, hex, tmpdir, tmpdir, tmpdir, tmpdir, tmpdir, hex, hex + 2), 0);
	assert_int_equal(debugfind(&o, "/usr/bin/prog", NULL, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/root/usr/lib/debug/.build-id/%.2s/%s.debug", tmpdir, hex,
		 hex + 2);
	assert_string_equal(out, want);
	/* debuglink with gdb's rule under ROOT: ROOT/usr/lib/debug/opt/app/prog.debug */
	make_linked(tp("root2/opt/app"));
	assert_int_equal(run("mkdir -p %s/root2/usr/lib/debug/opt/app && cp %s/prog.debug %s/root2/usr/lib/debug/opt/app/",
			     tmpdir, tmpdir, tmpdir), 0);
	o.symfs = root2;
	assert_int_equal(debugfind(&o, "/opt/app/prog", NULL, out, sizeof(out)), 0);
	assert_string_equal(out, tp("root2/usr/lib/debug/opt/app/prog.debug"));
	/* without symfs the path does not exist */
	assert_int_equal(debugfind(NULL, "/opt/app/prog", NULL, out, sizeof(out)), -ENOENT);
}

static void test_libc(void **state)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	struct prof_build_id b, d;
	char out[PATH_MAX];

	if (access(libc, R_OK) || access("/usr/lib/debug/.build-id", R_OK))
		skip();
	assert_int_equal(elf_read_build_id(libc, &b), 0);
	assert_true(b.len > 0);
	assert_int_equal(debugfind(NULL, libc, NULL, out, sizeof(out)), 0);
	assert_memory_equal(out, "/usr/lib/debug/.build-id/", 25);
	assert_int_equal(elf_read_build_id(out, &d), 0);
	assert_int_equal(d.len, b.len);
	assert_memory_equal(d.data, b.data, b.len);
}

static void test_no_debug(void **state)
{
	char out[PATH_MAX];

	assert_int_equal(run("cd %s && cc -O1 -Wl,--build-id=none -o nobid q.c && strip nobid"
			     " && echo text > notelf",
			     tmpdir), 0);
	assert_int_equal(debugfind(&no_dirs, tp("nobid"), NULL, out, sizeof(out)), -ENOENT);
	assert_int_equal(debugfind(NULL, tp("notelf"), NULL, out, sizeof(out)), -ENOEXEC);
	assert_int_equal(debugfind(NULL, tp("missing"), NULL, out, sizeof(out)), -ENOENT);
}

/* Does the in-memory ELF have a .symtab holding name? */
static int symtab_has(const void *img, size_t len, const char *name)
{
	Elf *elf = elf_memory((char *)img, len);
	Elf_Scn *scn = NULL;
	int found = -1;

	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		found = 0;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s))
				break;
			n = elf_strptr(elf, sh.sh_link, s.st_name);
			if (n && !strcmp(n, name) && GELF_ST_TYPE(s.st_info) == STT_FUNC)
				found = 1;
		}
	}
out:
	if (elf)
		elf_end(elf);
	return found;
}

static void test_minidebuginfo(void **state)
{
	void *img = NULL;
	size_t len = 0;

	elf_version(EV_CURRENT);
	/* the recipe from gdb's manual (MiniDebugInfo), as Fedora builds it */
	assert_int_equal(run("cd %s && mkdir -p mdi && cp prog mdi/prog && cd mdi"
			     " && nm -D prog --format=posix --defined-only | awk '{ print $1 }' | sort > dynsyms"
			     " && nm prog --format=posix --defined-only | awk '{ if ($2 == \"T\" || $2 == \"t\" || $2 == \"D\") print $1 }' | sort > funcsyms"
			     " && comm -13 dynsyms funcsyms > keep_symbols"
			     " && objcopy --only-keep-debug prog debug"
			     " && objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep_symbols debug mini_debuginfo"
			     " && xz -f mini_debuginfo"
			     " && strip --strip-all -R .comment prog"
			     " && objcopy --add-section .gnu_debugdata=mini_debuginfo.xz prog",
			     tmpdir), 0);
	assert_int_equal(debugfind_minidebuginfo(tp("mdi/prog"), &img, &len), 0);
	assert_non_null(img);
	assert_true(len > 64);
	assert_int_equal(symtab_has(img, len, "local_worker"), 1);
	free(img);
	/* absent section, not ELF, missing file */
	assert_int_equal(debugfind_minidebuginfo(tp("prog"), &img, &len), -ENOENT);
	assert_int_equal(debugfind_minidebuginfo(tp("notelf"), &img, &len), -ENOEXEC);
	assert_int_equal(debugfind_minidebuginfo(tp("missing"), &img, &len), -ENOENT);
}

static void test_unxz_bad(void **state)
{
	char *xz = NULL;
	size_t n = 0;
	void *img = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(debugfind_unxz("not xz at all", 13, &img, &len), -EBADMSG);
	assert_int_equal(debugfind_unxz("", 0, &img, &len), -EBADMSG);
	/* valid xz of text: not an ELF */
	assert_int_equal(run("cd %s && printf 'hello, not an elf image\\n' | xz > text.xz", tmpdir), 0);
	f = fopen(tp("text.xz"), "rb");
	assert_non_null(f);
	xz = malloc(1 << 20);
	assert_non_null(xz);
	n = fread(xz, 1, 1 << 20, f);
	fclose(f);
	assert_true(n > 20);
	assert_int_equal(debugfind_unxz(xz, n, &img, &len), -EBADMSG);
	/* truncated stream of a valid ELF */
	f = fopen(tp("mdi/mini_debuginfo.xz"), "rb");
	assert_non_null(f);
	n = fread(xz, 1, 1 << 20, f);
	fclose(f);
	assert_true(n > 100 && n < 1 << 20);
	assert_int_equal(debugfind_unxz(xz, n - 10, &img, &len), -EBADMSG);
	assert_int_equal(debugfind_unxz(xz, n / 2, &img, &len), -EBADMSG);
	assert_int_equal(debugfind_unxz(xz, n, &img, &len), 0);
	free(img);
	free(xz);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debuglink_section),
		cmocka_unit_test(test_debuglink_same_dir),
		cmocka_unit_test(test_debuglink_dot_debug),
		cmocka_unit_test(test_debuglink_debugdir),
		cmocka_unit_test(test_debuglink_crc_mismatch),
		cmocka_unit_test(test_build_id_dir),
		cmocka_unit_test(test_symfs),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_no_debug),
		cmocka_unit_test(test_minidebuginfo),
		cmocka_unit_test(test_unxz_bad),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
