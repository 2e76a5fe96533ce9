/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elfsym: symbols and build ids of programs compiled here at run time (PIE,
 * non-PIE, shared, stripped, relocatable), checked against binutils, and of libc.
 */
#include <ctype.h>
#include <dlfcn.h>
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

#include "tests/unit/testutil.h"

#include "symbolizer/elfsym.h"

static char tmpdir[] = "/tmp/zt-test-elfsym.XXXXXX";

static const char prog_src[] =
	"int zt_alpha(int x);\n"
	"int zt_beta(int x);\n"
	"int zt_gamma_global(int x);\n"
	"__attribute__((noinline)) int zt_alpha(int x) { return x * 3 + 1; }\n"
	"__attribute__((noinline)) int zt_beta(int x) { return zt_alpha(x) ^ 0x55; }\n"
	"__attribute__((noinline)) int zt_gamma_global(int x) { return x * x - 5; }\n"
	"extern int zt_gw(int) __attribute__((weak, alias(\"zt_gamma_global\")));\n"
	"__attribute__((noinline, used)) static int zt_delta_local(int x) { return x - 7 * x; }\n"
	"extern int zt_delta_weak_alias_name(int) __attribute__((weak, alias(\"zt_delta_local\")));\n"
	"__asm__(\".text\\n.globl zt_nosize\\n.type zt_nosize,@function\\n"
	"zt_nosize:\\n\\tnop\\n\\tnop\\n\\tnop\\n\\tnop\\n\\tret\\n\");\n"
	"void zt_nosize(void);\n"
	"__attribute__((noinline)) static int zt_impl(int x) { return x + 42; }\n"
	"static int (*zt_resolve(void))(int) { return zt_impl; }\n"
	"int zt_ifunc(int) __attribute__((ifunc(\"zt_resolve\")));\n"
	"int (*volatile zt_ptr)(int) = zt_delta_local;\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\tzt_nosize();\n"
	"\treturn zt_beta(argc) + zt_gamma_global(argc) + zt_ptr(argc);\n"
	"}\n";

/* name -> expected file offset and size, from nm and objdump */
struct oracle {
	char name[128];
	uint64_t vaddr, size, off;
	int has_off;
};

#define ORACLE_MAX 512

static void path_of(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", tmpdir, name);
}

static int setup(void **state)
{
	char src[512];
	FILE *f;

	if (!mkdtemp(tmpdir))
		return -1;
	path_of(src, sizeof(src), "prog.c");
	f = fopen(src, "w");
	if (!f)
		return -1;
	fputs(prog_src, f);
	fclose(f);
	if (run("cd %s && cc -O1 -fPIE -pie -o pie prog.c"
		" && cc -O1 -fno-pie -no-pie -o nopie prog.c"
		" && cc -O1 -fPIC -shared -o lib.so prog.c"
		" && cc -O1 -fPIE -pie -rdynamic -o stripped prog.c && strip stripped"
		" && cc -O1 -fPIE -pie -o nosyms prog.c && strip nosyms"
		" && cc -O1 -c -o prog.o prog.c"
		" && cc -O1 -Wl,--build-id=0x0102030405060708090a0b0c0d0e0f1011121314 -o fixedid prog.c"
		" && cc -O1 -Wl,--build-id=none -o noid prog.c"
		" && echo 'not an elf file at all' > text.txt && : > empty",
		tmpdir) != 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	run("rm -rf %s", tmpdir);
	return 0;
}

/* Fill o[] from `nm -S` (vaddr, size) and `objdump -d -F` (file offsets:
 * objdump names one label per address, so match by address). */
static size_t read_oracle(const char *path, struct oracle *o)
{
	char cmd[1024], line[1024];
	size_t n = 0, i;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (n < ORACLE_MAX && fgets(line, sizeof(line), p)) {
		unsigned long long v, s;
		char t, name[128];

		if (sscanf(line, "%llx %llx %c %127s", &v, &s, &t, name) == 4) {
		} else if (sscanf(line, "%llx %c %127s", &v, &t, name) == 3) {
			s = 0;
		} else {
			continue;
		}
		if (strncmp(name, "zt_", 3) != 0 || (t != 'T' && t != 't' && t != 'W' && t != 'i'))
			continue;
		snprintf(o[n].name, sizeof(o[n].name), "%s", name);
		o[n].vaddr = v;
		o[n].size = s;
		o[n].has_off = 0;
		n++;
	}
	pclose(p);

	snprintf(cmd, sizeof(cmd), "objdump -d -F %s", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long v, off;
		char *fo = strstr(line, "(File Offset: 0x");

		/* label lines only: "0000000000001139 <zt_alpha> (File Offset: 0x1139):" */
		if (!fo || !isxdigit((unsigned char)line[0]) || sscanf(line, "%llx", &v) != 1 || sscanf(fo, "(File Offset: 0x%llx", &off) != 1)
			continue;
		for (i = 0; i < n; i++) {
			if (o[i].vaddr == v) {
				o[i].off = off;
				o[i].has_off = 1;
			}
		}
	}
	pclose(p);
	return n;
}

static const struct oracle *find(const struct oracle *o, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(o[i].name, name))
			return &o[i];
	fail_msg("no oracle entry for %s", name);
	return NULL;
}

static void expect_at(const struct elfsym *e, uint64_t off, const char *name, uint64_t want_off)
{
	uint64_t so = 12345;
	const char *got = elfsym_lookup(e, off, &so);

	if (!got)
		fail_msg("offset 0x%llx: no symbol, want %s", (unsigned long long)off, name);
	if (strcmp(got, name) != 0)
		fail_msg("offset 0x%llx: got %s, want %s", (unsigned long long)off, got, name);
	assert_int_equal(so, want_off);
}

/* Check all the known functions of one compiled variant. */
static void check_program(const char *file, int has_locals)
{
	struct oracle o[ORACLE_MAX];
	const struct oracle *a;
	struct elfsym *e = NULL;
	char path[512];
	static const char *const plain[] = { "zt_alpha", "zt_beta" };
	size_t n, i;

	path_of(path, sizeof(path), file);
	n = read_oracle(path, o);
	assert_int_equal(elfsym_open(path, &e), 0);
	assert_non_null(e);
	assert_true(elfsym_count(e) >= 4);

	for (i = 0; i < n; i++)
		assert_true(o[i].has_off);
	for (i = 0; i < 2; i++) {
		a = find(o, n, plain[i]);
		assert_true(a->size > 1);
		expect_at(e, a->off, plain[i], 0);
		expect_at(e, a->off + 1, plain[i], 1);
		expect_at(e, a->off + a->size - 1, plain[i], a->size - 1);
	}
	/* GLOBAL wins over a WEAK alias, though longer */
	a = find(o, n, "zt_gamma_global");
	expect_at(e, a->off, "zt_gamma_global", 0);
	if (has_locals) {
		/* perf: any non-WEAK (here LOCAL) wins over a WEAK alias */
		a = find(o, n, "zt_delta_local");
		expect_at(e, a->off + 2, "zt_delta_local", 2);
	}
	/* an IFUNC symbol names its resolver */
	a = find(o, n, "zt_ifunc");
	expect_at(e, a->off, "zt_ifunc", 0);
	/* a sizeless symbol reaches to the next one */
	a = find(o, n, "zt_nosize");
	assert_int_equal(a->size, 0);
	expect_at(e, a->off + 4, "zt_nosize", 4);
	/* the ELF header is no function */
	assert_null(elfsym_lookup(e, 0, NULL));
	assert_null(elfsym_lookup(e, UINT64_MAX, NULL));
	elfsym_free(e);
}

static void test_pie(void **state)
{
	check_program("pie", 1);
}

static void test_nopie(void **state)
{
	check_program("nopie", 1);
}

static void test_shared(void **state)
{
	check_program("lib.so", 1);
}

static void test_relocatable(void **state)
{
	check_program("prog.o", 1);
}

/* stripped with -rdynamic: only .dynsym, no locals; offsets from the
 * unstripped twin with the same layout */
static void test_stripped_dynsym(void **state)
{
	struct oracle o[ORACLE_MAX];
	struct elfsym *e = NULL;
	char path[512], twin[512];
	size_t n;

	path_of(path, sizeof(path), "stripped");
	path_of(twin, sizeof(twin), "stripped-twin");
	assert_int_equal(run("cd %s && cc -O1 -fPIE -pie -rdynamic -o stripped-twin prog.c", tmpdir), 0);
	n = read_oracle(twin, o);
	assert_int_equal(elfsym_open(path, &e), 0);
	expect_at(e, find(o, n, "zt_alpha")->off + 3, "zt_alpha", 3);
	expect_at(e, find(o, n, "zt_beta")->off, "zt_beta", 0);
	expect_at(e, find(o, n, "zt_gamma_global")->off, "zt_gamma_global", 0);
	expect_at(e, find(o, n, "zt_ifunc")->off, "zt_ifunc", 0);
	/* the static function is not in .dynsym; its weak alias is */
	expect_at(e, find(o, n, "zt_delta_local")->off, "zt_delta_weak_alias_name", 0);
	elfsym_free(e);
}

static void test_no_symbols(void **state)
{
	struct elfsym *e = NULL;
	char path[512];

	path_of(path, sizeof(path), "nosyms");
	assert_int_equal(elfsym_open(path, &e), 0);
	assert_non_null(e);
	assert_int_equal(elfsym_build_id(e)->len, 20);
	elfsym_free(e);
}

static void *read_whole(const char *path, size_t *len)
{
	struct stat st;
	void *buf;
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	*len = (size_t)st.st_size;
	return buf;
}

static void test_mem_matches_file(void **state)
{
	static const char *const files[] = { "pie", "nopie", "lib.so", "prog.o", "stripped" };
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct elfsym *ef = NULL, *em = NULL;
		char path[512];
		uint64_t off;
		size_t len;
		void *buf;

		path_of(path, sizeof(path), files[i]);
		buf = read_whole(path, &len);
		assert_int_equal(elfsym_open(path, &ef), 0);
		assert_int_equal(elfsym_open_mem(buf, len, &em), 0);
		assert_int_equal(elfsym_count(ef), elfsym_count(em));
		assert_memory_equal(elfsym_build_id(ef), elfsym_build_id(em),
				    sizeof(struct prof_build_id));
		for (off = 0; off < len; off++) {
			uint64_t a = 0, b = 0;
			const char *na = elfsym_lookup(ef, off, &a), *nb = elfsym_lookup(em, off, &b);

			if (!na || !nb) {
				assert_true(!na && !nb);
				continue;
			}
			assert_string_equal(na, nb);
			assert_int_equal(a, b);
		}
		/* every truncation fails cleanly or opens */
		for (off = 0; off < len; off += 97) {
			struct elfsym *t = NULL;
			int r = elfsym_open_mem(buf, (size_t)off, &t);

			assert_true(r == 0 || r == -ENOEXEC);
			elfsym_free(t);
		}
		elfsym_free(ef);
		elfsym_free(em);
		free(buf);
	}
}

/* The build id as `readelf -n` prints it. */
static void readelf_build_id(const char *path, char *hex, size_t n)
{
	char cmd[1024], line[1024];
	FILE *p;

	hex[0] = 0;
	snprintf(cmd, sizeof(cmd), "readelf -n %s", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *s = strstr(line, "Build ID: ");

		if (s && sscanf(s + 10, "%127s", hex) == 1)
			break;
	}
	pclose(p);
	assert_true(strlen(hex) < n);
}

static void hex_of(const struct prof_build_id *b, char *out)
{
	unsigned i;

	for (i = 0; i < b->len; i++)
		sprintf(out + 2 * i, "%02x", b->data[i]);
	out[2 * b->len] = 0;
}

static void test_build_ids(void **state)
{
	static const char *const files[] = { "pie", "nopie", "lib.so", "stripped", "fixedid" };
	struct prof_build_id b;
	struct elfsym *e = NULL;
	char path[512], want[128], got[64];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		path_of(path, sizeof(path), files[i]);
		readelf_build_id(path, want, sizeof(want));
		assert_true(want[0]);
		assert_int_equal(elf_read_build_id(path, &b), 0);
		hex_of(&b, got);
		assert_string_equal(got, want);
		assert_int_equal(elfsym_open(path, &e), 0);
		assert_memory_equal(elfsym_build_id(e), &b, sizeof(b));
		elfsym_free(e);
	}
	path_of(path, sizeof(path), "fixedid");
	assert_int_equal(elf_read_build_id(path, &b), 0);
	hex_of(&b, got);
	assert_string_equal(got, "0102030405060708090a0b0c0d0e0f1011121314");

	path_of(path, sizeof(path), "noid");
	assert_int_equal(elf_read_build_id(path, &b), 0);
	assert_int_equal(b.len, 0);
	assert_int_equal(elfsym_open(path, &e), 0);
	assert_int_equal(elfsym_build_id(e)->len, 0);
	elfsym_free(e);
}

static void test_bad_files(void **state)
{
	struct prof_build_id b;
	struct elfsym *e = (struct elfsym *)1;
	char path[512];

	path_of(path, sizeof(path), "text.txt");
	assert_int_equal(elfsym_open(path, &e), -ENOEXEC);
	assert_null(e);
	assert_int_equal(elf_read_build_id(path, &b), -ENOEXEC);
	path_of(path, sizeof(path), "empty");
	assert_int_equal(elfsym_open(path, &e), -ENOEXEC);
	assert_int_equal(elfsym_open(tmpdir, &e), -ENOEXEC);
	path_of(path, sizeof(path), "missing");
	assert_int_equal(elfsym_open(path, &e), -ENOENT);
	assert_int_equal(elf_read_build_id(path, &b), -ENOENT);
	assert_int_equal(elfsym_open_mem("\x7f" "ELF", 4, &e), -ENOEXEC);
	assert_int_equal(elfsym_open_mem("", 0, &e), -ENOEXEC);
	assert_int_equal(elfsym_open_mem("#!/bin/sh\necho this is no ELF\n", 30, &e), -ENOEXEC);
	elfsym_free(NULL);
}

/* file offset of a function of this process as a profiler computes it:
 * address - mapping start + mapping offset, from /proc/self/maps */
static uint64_t mapped_offset(const void *fn, char *path, size_t n)
{
	unsigned long long start, end, pgoff, a = (unsigned long long)(uintptr_t)fn;
	char line[1024];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char perms[8], file[512] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511s", &start, &end, perms, &pgoff,
			   file) < 4)
			continue;
		if (a >= start && a < end) {
			snprintf(path, n, "%s", file);
			found = 1;
			break;
		}
	}
	fclose(f);
	assert_true(found);
	return a - start + pgoff;
}

static void test_libc(void **state)
{
	/* perf's choices: getpid is a WEAK alias of GLOBAL __getpid; strtol
	 * and strtoimax are both WEAK, the longer name wins */
	static const char *const fns[][2] = { { "malloc", "malloc" }, { "qsort", "qsort" },
					      { "fopen", "fopen" }, { "getpid", "__getpid" },
					      { "strtol", "strtoimax" } };
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	struct prof_build_id b;
	struct elfsym *e = NULL;
	char path[512], want[128], got[64];
	size_t i;

	assert_non_null(h);
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		void *fn = dlsym(h, fns[i][0]);
		uint64_t off, so = 1;
		const char *name;

		assert_non_null(fn);
		off = mapped_offset(fn, path, sizeof(path));
		if (!e)
			assert_int_equal(elfsym_open(path, &e), 0);
		name = elfsym_lookup(e, off, &so);
		assert_non_null(name);
		assert_string_equal(name, fns[i][1]);
		assert_int_equal(so, 0);
		name = elfsym_lookup(e, off + 1, &so);
		assert_non_null(name);
	}
	assert_true(elfsym_count(e) > 1000);
	readelf_build_id(path, want, sizeof(want));
	hex_of(elfsym_build_id(e), got);
	assert_string_equal(got, want);
	assert_int_equal(elf_read_build_id(path, &b), 0);
	assert_memory_equal(&b, elfsym_build_id(e), sizeof(b));
	elfsym_free(e);
	dlclose(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie),
		cmocka_unit_test(test_nopie),
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_relocatable),
		cmocka_unit_test(test_stripped_dynsym),
		cmocka_unit_test(test_no_symbols),
		cmocka_unit_test(test_mem_matches_file),
		cmocka_unit_test(test_build_ids),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_libc),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
