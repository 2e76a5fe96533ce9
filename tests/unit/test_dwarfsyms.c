/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwarfsyms: programs compiled here at run time (tests/data/dwarf: inlines,
 * a .cold split, -O0 code; gcc DWARF 5 and 4, clang; a generated program),
 * looked up in the extracted table and checked against llvm-symbolizer
 * frame by frame; separate debug files, stripped and damaged files, libc.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/testutil.h"
#include <libelf.h>

#include "symbolizer/dwarfsyms.h"
#include "symbolizer/elfsym.h"

static char tmpdir[] = "/tmp/zt-test-dwarfsyms.XXXXXX";
static char datadir[PATH_MAX];
static int have_clang, have_clangxx, have_llvm;

#define MAX_FRAMES 16

struct frame {
	char name[256];
	char file[PATH_MAX];
	unsigned line;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void path_of(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", tmpdir, name);
}

/* ---- the reference lookup (the real one is the GSYM reader's) ------------ */

static int in_ranges(const struct fi_inline *n, uint64_t a)
{
	uint32_t i;

	for (i = 0; i < n->nr_ranges; i++)
		if (a >= n->ranges[i].start && a < n->ranges[i].end)
			return 1;
	return 0;
}

static void file_path(const struct fi_table *t, uint32_t file, char *out, size_t n)
{
	const char *dir, *base;

	if (!file || file >= t->nr_files) {
		snprintf(out, n, "??");
		return;
	}
	dir = fi_strat(t, t->files[file].dir);
	base = fi_strat(t, t->files[file].base);
	if (*dir)
		snprintf(out, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", base);
	else
		snprintf(out, n, "%s", base);
}

static const struct fi_func *find_func(const struct fi_table *t, uint64_t a)
{
	size_t lo = 0, hi = t->nr_funcs;
	const struct fi_func *f;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->funcs[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	f = &t->funcs[lo - 1];
	return a - f->start < f->size ? f : NULL;
}

/* Frames of address a, innermost first; returns their number (0: none). */
static int ref_lookup(const struct fi_table *t, uint64_t a, struct frame *fr)
{
	const struct fi_inline *chain[MAX_FRAMES];
	const struct fi_func *f = find_func(t, a);
	uint32_t file = 0, line = 0, i;
	int n = 0, k;

	if (!f)
		return 0;
	for (i = 0; i < f->nr_lines && f->lines[i].addr <= a; i++) {
		file = f->lines[i].file;
		line = f->lines[i].line;
	}
	if (f->inl) {
		const struct fi_inline *node = f->inl;

		chain[n++] = node;
		while (n < MAX_FRAMES) {
			const struct fi_inline *next = NULL;

			for (i = 0; i < node->nr_children && !next; i++)
				if (in_ranges(&node->children[i], a))
					next = &node->children[i];
			if (!next)
				break;
			chain[n++] = node = next;
		}
	}
	if (!n) {
		snprintf(fr[0].name, sizeof(fr[0].name), "%s", fi_strat(t, f->name));
		file_path(t, file, fr[0].file, sizeof(fr[0].file));
		fr[0].line = line;
		return 1;
	}
	/* chain[n-1] is the innermost */
	for (k = 0; k < n; k++) {
		const struct fi_inline *node = chain[n - 1 - k];

		snprintf(fr[k].name, sizeof(fr[k].name), "%s", fi_strat(t, node->name));
		if (!k) {
			file_path(t, file, fr[k].file, sizeof(fr[k].file));
			fr[k].line = line;
		} else {
			file_path(t, chain[n - k]->call_file, fr[k].file, sizeof(fr[k].file));
			fr[k].line = chain[n - k]->call_line;
		}
	}
	return n;
}

/* ---- llvm-symbolizer ------------------------------------------------------ */

struct answer {
	uint64_t addr;
	int n;
	struct frame fr[MAX_FRAMES];
};

static void copy_str(char *dst, size_t n, const char *s)
{
	size_t len = strlen(s);

	if (len >= n)
		len = n - 1;
	memcpy(dst, s, len);
	dst[len] = 0;
}

/* Ask llvm-symbolizer about n addresses; a[i].n = -1 where it failed. */
static void llvm_frames(const char *bin, struct answer *a, size_t n)
{
	char in[PATH_MAX], out[PATH_MAX], line[PATH_MAX + 300];
	size_t i = 0;
	FILE *f;
	int fl = 0;

	path_of(in, sizeof(in), "addrs.txt");
	path_of(out, sizeof(out), "llvm.txt");
	f = fopen(in, "w");
	assert_non_null(f);
	for (i = 0; i < n; i++) {
		fprintf(f, "0x%llx\n", (unsigned long long)a[i].addr);
		a[i].n = 0;
	}
	fclose(f);
	assert_int_equal(run("llvm-symbolizer --inlining --functions=linkage --no-demangle "
			     "--output-style=LLVM -e %s < %s > %s",
			     bin, in, out),
			 0);
	f = fopen(out, "r");
	assert_non_null(f);
	/* per address: pairs of "name" and "file:line:col" lines, then a blank one */
	i = 0;
	while (i < n && fgets(line, sizeof(line), f)) {
		struct frame *fr;
		char *c1, *c2;

		line[strcspn(line, "\n")] = 0;
		if (!*line) {
			i++;
			fl = 0;
			continue;
		}
		if (a[i].n >= MAX_FRAMES)
			continue;
		fr = &a[i].fr[a[i].n];
		if (!fl) {
			copy_str(fr->name, sizeof(fr->name), line);
			fl = 1;
			continue;
		}
		fl = 0;
		c2 = strrchr(line, ':');
		if (c2)
			*c2 = 0;
		c1 = strrchr(line, ':');
		if (c1) {
			*c1 = 0;
			fr->line = (unsigned)strtoul(c1 + 1, NULL, 10);
		}
		copy_str(fr->file, sizeof(fr->file), line);
		a[i].n++;
	}
	fclose(f);
}

/* Two aliases at one address that tools pick from differently: the
 * complete and base object constructors or destructors (C1/C2, D1/D2). */
static int ctor_alias(const char *x, const char *y)
{
	size_t i;

	if (strncmp(x, "_Z", 2) || strlen(x) != strlen(y))
		return 0;
	for (i = 0; x[i] == y[i]; i++)
		;
	return i > 0 && (x[i - 1] == 'C' || x[i - 1] == 'D') && strchr("12", x[i]) &&
	       strchr("12", y[i]) && !strcmp(x + i + 1, y + i + 1);
}

/* Names equal but for a symbol version llvm-symbolizer leaves out
 * ("xdr_long@GLIBC_2.2.5", the name of a compat symbol in .symtab). */
static int names_equal(const char *mine, const char *llvm)
{
	size_t n = strcspn(mine, "@");

	return !strcmp(mine, llvm) || ctor_alias(mine, llvm) ||
	       (mine[n] && strlen(llvm) == n && !strncmp(mine, llvm, n));
}

static int frames_equal(const struct frame *x, const struct frame *y)
{
	return names_equal(x->name, y->name) && x->line == y->line && !strcmp(x->file, y->file);
}

static void print_frames(const char *who, const struct frame *fr, int n)
{
	int k;

	for (k = 0; k < n; k++)
		printf("    %s #%d %s %s:%u\n", who, k, fr[k].name, fr[k].file, fr[k].line);
}

/* Compare n addresses of bin between t and llvm-symbolizer; returns the
 * number of disagreements (the first few are printed). */
static size_t compare(const char *bin, const struct fi_table *t, struct answer *a, size_t n,
		      int any_outer_name)
{
	size_t i, bad = 0;

	if (!have_llvm) {
		printf("  no llvm-symbolizer: nothing compared (install llvm)\n");
		return 0;
	}
	llvm_frames(bin, a, n);
	for (i = 0; i < n; i++) {
		struct frame mine[MAX_FRAMES];
		int m = ref_lookup(t, a[i].addr, mine), k, ok;

		if (!m)
			ok = a[i].n == 1 && !strcmp(a[i].fr[0].name, "??");
		else if (m == 1 && a[i].n == 1 && !a[i].fr[0].line)
			/* no line information (llvm may still name the CU's file) */
			ok = names_equal(mine[0].name, a[i].fr[0].name) && !mine[0].line;
		else
			for (ok = m == a[i].n, k = 0; ok && k < m; k++) {
				struct frame y = a[i].fr[k];

				if (any_outer_name && k == m - 1)
					copy_str(y.name, sizeof(y.name), mine[k].name);
				ok = frames_equal(&mine[k], &y);
			}
		if (ok)
			continue;
		if (bad++ < 5) {
			printf("  0x%llx differs:\n", (unsigned long long)a[i].addr);
			print_frames("zt  ", mine, m);
			print_frames("llvm", a[i].fr, a[i].n);
		}
	}
	return bad;
}

/* Every instruction address of the named functions (NULL: all of .text),
 * from objdump. */
static size_t insn_addrs(const char *bin, const char *const *funcs, struct answer *a, size_t max)
{
	char cmd[PATH_MAX + 64], line[1024];
	size_t n = 0, i;
	int in = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d -j .text --no-show-raw-insn %s", bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long v;
		char name[256];

		if (sscanf(line, "%llx <%255[^>]>:", &v, name) == 2) {
			for (in = !funcs, i = 0; funcs && funcs[i]; i++)
				if (!strcmp(funcs[i], name))
					in = 1;
			continue;
		}
		if (in && n < max && sscanf(line, " %llx:", &v) == 1)
			a[n++].addr = v;
	}
	pclose(p);
	return n;
}

/* ---- fixtures ------------------------------------------------------------- */

static const char *const fixture_funcs[] = { "main",    "outer",  "split",    "split.cold", "report",
					     "o0_sum",  "o0_loop", "o0_square", NULL };

static int build_fixture(const char *name, const char *cc, const char *opt)
{
	return run("cd %s && %s -O2 %s -c %s/inl.c -o %s-inl.o && %s -O0 %s -c %s/o0.c -o %s-o0.o"
		   " && %s -o %s %s-inl.o %s-o0.o",
		   tmpdir, cc, opt, datadir, name, cc, opt, datadir, name, cc, name, name, name);
}

static int setup(void **state)
{
	char here[PATH_MAX];

	if (!mkdtemp(tmpdir))
		return -1;
	/* tests/unit/test_dwarfsyms.c -> tests/data/dwarf */
	snprintf(here, sizeof(here), "%s", __FILE__);
	snprintf(datadir, sizeof(datadir), "%s/../data/dwarf", dirname(here));
	if (!realpath(datadir, here))
		return -1;
	snprintf(datadir, sizeof(datadir), "%s", here);
	if (build_fixture("fix", "gcc", "-g") || build_fixture("fix4", "gcc", "-gdwarf-4"))
		return -1;
	have_llvm = run("command -v llvm-symbolizer > /dev/null") == 0;
	have_clang = build_fixture("fixclang", "clang", "-g") == 0;
	if (run("cd %s && g++ -O2 -g -o cxx %s/cxx.cc", tmpdir, datadir))
		return -1;
	have_clangxx = run("cd %s && clang++ -O2 -g -o cxxclang %s/cxx.cc", tmpdir, datadir) == 0;
	/* a separate debug file, the program stripped of everything but .dynsym */
	if (run("cd %s && objcopy --only-keep-debug fix fix.debug && strip -o fix.stripped fix"
		" && strip -g -o fix.nodebug fix && echo 'no elf here' > text.txt",
		tmpdir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	run("rm -rf %s", tmpdir);
	return 0;
}

static const struct fi_func *func_named(const struct fi_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nr_funcs; i++)
		if (!strcmp(fi_strat(t, t->funcs[i].name), name))
			return &t->funcs[i];
	return NULL;
}

static size_t tree_depth(const struct fi_inline *n)
{
	size_t d = 0, i;

	for (i = 0; n && i < n->nr_children; i++) {
		size_t c = tree_depth(&n->children[i]);

		if (c > d)
			d = c;
	}
	return n ? d + 1 : 0;
}

static void check_agreement_funcs(const char *name, const char *debug, const char *const *funcs)
{
	char bin[PATH_MAX], dbg[PATH_MAX];
	struct answer *a = calloc(4096, sizeof(*a));
	struct fi_table t;
	size_t n, bad;
	int has_dwarf = -1;

	assert_non_null(a);
	path_of(bin, sizeof(bin), name);
	path_of(dbg, sizeof(dbg), debug ? debug : name);
	fi_table_init(&t);
	assert_int_equal(dwarfsyms_extract(bin, dbg, &t, &has_dwarf), 0);
	assert_int_equal(has_dwarf, 1);
	/* the oracle reads the unstripped program */
	path_of(bin, sizeof(bin), debug ? "fix" : name);
	n = insn_addrs(bin, funcs, a, 4096);
	assert_true(n > 100);
	bad = compare(bin, &t, a, n, 0);
	printf("  %s: %zu of %zu instruction addresses agree with llvm-symbolizer\n", name, n - bad, n);
	assert_int_equal(bad, 0);
	fi_table_release(&t);
	free(a);
}

static void check_agreement(const char *name, const char *debug)
{
	check_agreement_funcs(name, debug, fixture_funcs);
}

static void test_cxx(void **state)
{
	check_agreement_funcs("cxx", NULL, NULL);
	if (have_clangxx)
		check_agreement_funcs("cxxclang", NULL, NULL);
}

static void test_gcc_dwarf5(void **state)
{
	check_agreement("fix", NULL);
}

static void test_gcc_dwarf4(void **state)
{
	check_agreement("fix4", NULL);
}

static void test_clang(void **state)
{
	if (!have_clang)
		skip();
	check_agreement("fixclang", NULL);
}

static void test_separate_debug(void **state)
{
	check_agreement("fix.stripped", "fix.debug");
}

/* The shape of the model: inline trees, the cold part, -O0 code. */
static void test_structure(void **state)
{
	const struct fi_func *outer, *split, *cold, *o0;
	char bin[PATH_MAX];
	struct fi_table t;
	size_t i;
	int has_dwarf;

	path_of(bin, sizeof(bin), "fix");
	fi_table_init(&t);
	assert_int_equal(dwarfsyms_extract(bin, bin, &t, &has_dwarf), 0);
	outer = func_named(&t, "outer");
	split = func_named(&t, "split");
	cold = func_named(&t, "split.cold");
	o0 = func_named(&t, "o0_sum");
	assert_non_null(outer);
	assert_non_null(split);
	assert_non_null(cold);
	assert_non_null(o0);
	/* outer inlines mid, which inlines leaf and hdr_twice */
	assert_non_null(outer->inl);
	assert_int_equal(outer->inl->name, outer->name);
	assert_true(tree_depth(outer->inl) >= 3);
	assert_true(outer->nr_lines > 3);
	/* the cold part is a function of its own, its tree within its range */
	assert_true(cold->size > 0 && cold->nr_lines > 0);
	assert_true(cold->start + cold->size <= split->start || cold->start >= split->start + split->size);
	if (cold->inl)
		for (i = 0; i < cold->inl->nr_ranges; i++)
			assert_true(cold->inl->ranges[i].start >= cold->start &&
				    cold->inl->ranges[i].end <= cold->start + cold->size);
	/* -O0: lines, nothing inlined */
	assert_null(o0->inl);
	assert_true(o0->nr_lines > 2);
	for (i = 1; i < t.nr_funcs; i++)
		assert_true(t.funcs[i - 1].start < t.funcs[i].start);
	{
		struct prof_build_id b;

		assert_int_equal(elf_read_build_id(bin, &b), 0);
		assert_int_equal(t.uuid_len, b.len);
		assert_memory_equal(t.uuid, b.data, b.len);
	}
	fi_table_release(&t);
}

static void test_no_dwarf(void **state)
{
	char bin[PATH_MAX];
	struct fi_table t;
	const struct fi_func *f;
	int has_dwarf = -1;

	/* symbols, no DWARF: named functions without lines */
	path_of(bin, sizeof(bin), "fix.nodebug");
	fi_table_init(&t);
	assert_int_equal(dwarfsyms_extract(bin, bin, &t, &has_dwarf), 0);
	assert_int_equal(has_dwarf, 0);
	f = func_named(&t, "outer");
	assert_non_null(f);
	assert_int_equal(f->nr_lines, 0);
	assert_null(f->inl);
	assert_non_null(func_named(&t, "split.cold"));
	fi_table_release(&t);

	/* no debug path: symbols only, even with DWARF in the file */
	path_of(bin, sizeof(bin), "fix");
	fi_table_init(&t);
	assert_int_equal(dwarfsyms_extract(bin, NULL, &t, &has_dwarf), 0);
	assert_int_equal(has_dwarf, 0);
	assert_non_null(func_named(&t, "o0_square"));
	fi_table_release(&t);

	/* stripped: .dynsym only (main is not in it) */
	path_of(bin, sizeof(bin), "fix.stripped");
	fi_table_init(&t);
	assert_int_equal(dwarfsyms_extract(bin, NULL, &t, &has_dwarf), 0);
	assert_null(func_named(&t, "outer"));
	fi_table_release(&t);
}

static size_t total_lines(const struct fi_table *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->nr_funcs; i++)
		n += t->funcs[i].nr_lines;
	return n;
}

/* Open handles, the debug file in memory (as MiniDebugInfo comes): the
 * same table as from the paths. */
static void test_elf_api(void **state)
{
	char bin[PATH_MAX], dbg[PATH_MAX];
	struct fi_table a, b;
	struct stat st;
	Elf *e, *m;
	char *img;
	int fd, dfd, has_dwarf = 0;
	size_t i;

	path_of(bin, sizeof(bin), "fix.stripped");
	path_of(dbg, sizeof(dbg), "fix.debug");
	fi_table_init(&a);
	fi_table_init(&b);
	assert_int_equal(dwarfsyms_extract(bin, dbg, &a, NULL), 0);

	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	fd = open(bin, O_RDONLY);
	dfd = open(dbg, O_RDONLY);
	assert_true(fd >= 0 && dfd >= 0);
	assert_int_equal(fstat(dfd, &st), 0);
	img = malloc((size_t)st.st_size);
	assert_non_null(img);
	assert_int_equal(read(dfd, img, (size_t)st.st_size), st.st_size);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	m = elf_memory(img, (size_t)st.st_size);
	assert_non_null(e);
	assert_non_null(m);
	assert_int_equal(dwarfsyms_extract_elf(e, m, &b, &has_dwarf), 0);
	assert_int_equal(has_dwarf, 1);
	assert_int_equal(a.nr_funcs, b.nr_funcs);
	assert_int_equal(total_lines(&a), total_lines(&b));
	for (i = 0; i < a.nr_funcs; i++) {
		assert_int_equal(a.funcs[i].start, b.funcs[i].start);
		assert_string_equal(fi_strat(&a, a.funcs[i].name), fi_strat(&b, b.funcs[i].name));
	}
	assert_int_equal(a.uuid_len, b.uuid_len);
	assert_true(a.uuid_len > 0);
	elf_end(m);
	elf_end(e);
	free(img);
	close(fd);
	close(dfd);
	fi_table_release(&a);
	fi_table_release(&b);
}

static void test_bad_files(void **state)
{
	char p[PATH_MAX];
	struct fi_table t;

	fi_table_init(&t);
	path_of(p, sizeof(p), "text.txt");
	assert_int_equal(dwarfsyms_extract(p, NULL, &t, NULL), -ENOEXEC);
	path_of(p, sizeof(p), "fix-inl.o");
	assert_int_equal(dwarfsyms_extract(p, p, &t, NULL), -ENOEXEC);
	path_of(p, sizeof(p), "does-not-exist");
	assert_int_equal(dwarfsyms_extract(p, NULL, &t, NULL), -ENOENT);
	fi_table_release(&t);
}

/* The file range holding fix's .debug_* sections. */
static void debug_span(const char *path, size_t *lo, size_t *hi)
{
	char cmd[PATH_MAX + 64], line[512];
	FILE *p;

	*lo = SIZE_MAX;
	*hi = 0;
	snprintf(cmd, sizeof(cmd), "readelf -S -W %s", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char name[64], type[32];
		unsigned long long addr, off, size;
		char *b = strchr(line, ']');

		if (!b || sscanf(b + 1, "%63s %31s %llx %llx %llx", name, type, &addr, &off, &size) != 5 ||
		    strncmp(name, ".debug_", 7))
			continue;
		if (off < *lo)
			*lo = off;
		if (off + size > *hi)
			*hi = off + size;
	}
	pclose(p);
	assert_true(*lo < *hi);
}

/* Damaged copies of the program, mostly in its DWARF: any answer but a
 * crash (ASan watches). */
static void test_damaged(void **state)
{
	char src[PATH_MAX], dst[PATH_MAX];
	unsigned seed = 12345;
	size_t lo, hi, len;
	struct stat st;
	int i, j, fd;
	char *buf, *copy;

	path_of(src, sizeof(src), "fix");
	path_of(dst, sizeof(dst), "damaged");
	debug_span(src, &lo, &hi);
	assert_int_equal(stat(src, &st), 0);
	len = (size_t)st.st_size;
	buf = malloc(len);
	copy = malloc(len);
	assert_non_null(buf);
	assert_non_null(copy);
	fd = open(src, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, len), (ssize_t)len);
	close(fd);
	for (i = 0; i < 300; i++) {
		struct fi_table t;
		size_t n = len;

		memcpy(copy, buf, len);
		for (j = 0; j < 1 + i % 8; j++) {
			size_t at;

			seed = seed * 1103515245u + 12345u;
			/* one in ten anywhere past the ELF header, else in the DWARF */
			at = i % 10 ? lo + (seed >> 4) % (hi - lo) : 64 + (seed >> 4) % (len - 64);
			if (i % 3)
				copy[at] ^= (char)(1u << (seed % 8));
			else
				memset(copy + at, 0xff, at + 8 <= len ? 8 : len - at);
		}
		if (i % 25 == 24)
			n = 64 + (seed >> 3) % (len - 64);
		fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, copy, n), (ssize_t)n);
		close(fd);
		fi_table_init(&t);
		(void)dwarfsyms_extract(dst, dst, &t, NULL);
		fi_table_release(&t);
	}
	free(copy);
	free(buf);
}

/* ---- a generated program -------------------------------------------------- */

static void gen_program(const char *path, int nfuncs)
{
	FILE *f = fopen(path, "w");
	int i;

	assert_non_null(f);
	fprintf(f, "volatile int g[64];\n");
	for (i = 0; i < nfuncs; i++) {
		fprintf(f,
			"static inline __attribute__((always_inline)) int h%d(int x)\n"
			"{\n\tint y = x * %d;\n\n\tif (y & 1)\n\t\ty += g[%d];\n\treturn y ^ (x >> 2);\n}\n\n",
			i, i + 3, i % 64);
		fprintf(f, "static inline int k%d(int x)\n{\n\treturn g[%d] + h%d(x + 1);\n}\n\n", i,
			(i * 7) % 64, i);
		fprintf(f, "__attribute__((noinline)) int f%d(int x)\n{\n\tint s = 0;\n\n"
			   "\tfor (int i = 0; i < x; i++) {\n\t\ts += h%d(i) + k%d(s);\n",
			i, i, i);
		if (i)
			fprintf(f, "\t\tif (s > %d)\n\t\t\ts -= f%d(i);\n", 1000 + i, (i * 31) % i);
		fprintf(f, "\t}\n\treturn s;\n}\n\n");
	}
	fprintf(f, "int main(int argc, char **argv)\n{\n\treturn f%d(argc) & 1;\n}\n", nfuncs - 1);
	fclose(f);
}

static void test_generated(void **state)
{
	const char *env = getenv("ZT_DWARFSYMS_GEN_FUNCS");
	int nfuncs = env ? atoi(env) : 600, i;
	char src[PATH_MAX], bin[PATH_MAX];
	struct answer *a;
	struct fi_table t;
	size_t nlines = 0, ninl = 0, bad, n = 2000;
	uint64_t lo, hi;
	double t0, t1;
	int has_dwarf;

	if (nfuncs < 10)
		nfuncs = 10;
	path_of(src, sizeof(src), "gen.c");
	path_of(bin, sizeof(bin), "gen");
	gen_program(src, nfuncs);
	t0 = now();
	assert_int_equal(run("gcc -O2 -g -o %s %s", bin, src), 0);
	t1 = now();
	printf("  generated: %d functions, compiled in %.2f s\n", nfuncs, t1 - t0);

	fi_table_init(&t);
	t0 = now();
	assert_int_equal(dwarfsyms_extract(bin, bin, &t, &has_dwarf), 0);
	t1 = now();
	assert_int_equal(has_dwarf, 1);
	for (size_t k = 0; k < t.nr_funcs; k++) {
		nlines += t.funcs[k].nr_lines;
		ninl += t.funcs[k].inl != NULL;
	}
	printf("  generated: extracted %zu functions (%zu with inlines), %zu line rows, "
	       "%zu files in %.3f s\n",
	       t.nr_funcs, ninl, nlines, t.nr_files - (t.nr_files > 0), t1 - t0);
	assert_true(t.nr_funcs >= (size_t)nfuncs);

	/* random addresses over the generated functions */
	lo = UINT64_MAX;
	hi = 0;
	for (size_t k = 0; k < t.nr_funcs; k++) {
		const char *nm = fi_strat(&t, t.funcs[k].name);

		if (nm[0] != 'f' || nm[1] < '0' || nm[1] > '9')
			continue;
		if (t.funcs[k].start < lo)
			lo = t.funcs[k].start;
		if (t.funcs[k].start + t.funcs[k].size > hi)
			hi = t.funcs[k].start + t.funcs[k].size;
	}
	assert_true(lo < hi);
	a = calloc(n, sizeof(*a));
	assert_non_null(a);
	srand(42);
	for (i = 0; i < (int)n; i++)
		a[i].addr = lo + (uint64_t)rand() % (hi - lo);
	t0 = now();
	bad = compare(bin, &t, a, n, 0);
	printf("  generated: %zu of %zu random addresses agree with llvm-symbolizer "
	       "(llvm-symbolizer took %.3f s)\n",
	       n - bad, n, now() - t0);
	assert_int_equal(bad, 0);
	free(a);
	fi_table_release(&t);
}

/* Random addresses of the functions of t against llvm-symbolizer on bin;
 * returns the disagreements, outer names aside. */
static size_t compare_random(const char *bin, const struct fi_table *t, size_t n, const char *what)
{
	struct answer *a = calloc(n, sizeof(*a));
	size_t i, bad;

	assert_non_null(a);
	assert_true(t->nr_funcs > 0);
	srand(7);
	for (i = 0; i < n; i++) {
		const struct fi_func *f = &t->funcs[(size_t)rand() % t->nr_funcs];
		const char *nm = fi_strat(t, f->name);
		size_t l = strlen(nm);

		/* PLT stubs: perf's names, which llvm-symbolizer does not make */
		if (l >= 4 && !strcmp(nm + l - 4, "@plt")) {
			i--;
			continue;
		}
		a[i].addr = f->start + (f->size ? (uint64_t)rand() % f->size : 0);
	}
	bad = compare(bin, t, a, n, 0);
	printf("  %s: %zu of %zu random addresses agree with llvm-symbolizer\n", what, n - bad, n);
	/* llvm-symbolizer names the outer frame its own way: ".isra.0",
	 * ".part.0", ".cold" dropped, one alias or another */
	bad = compare(bin, t, a, n, 1);
	printf("  %s: %zu of %zu agree but for the outer function's name\n", what, n - bad, n);
	free(a);
	return bad;
}

/* ZT_DWARFSYMS_BIN=path [ZT_DWARFSYMS_DEBUG=path]: any program, for trying. */
static void test_env_binary(void **state)
{
	const char *bin = getenv("ZT_DWARFSYMS_BIN"), *dbg = getenv("ZT_DWARFSYMS_DEBUG");
	struct fi_table t;
	double t0;
	int has_dwarf;

	if (!bin)
		skip();
	fi_table_init(&t);
	t0 = now();
	assert_int_equal(dwarfsyms_extract(bin, dbg ? dbg : bin, &t, &has_dwarf), 0);
	printf("  %s: %zu functions in %.3f s\n", bin, t.nr_funcs, now() - t0);
	compare_random(bin, &t, 5000, bin);
	fi_table_release(&t);
}

/* ---- libc ----------------------------------------------------------------- */

static void test_libc(void **state)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	char dbg[PATH_MAX], hex[2 * ZT_BUILD_ID_MAX + 1];
	struct prof_build_id b;
	const struct fi_func *m;
	struct fi_table t;
	size_t nlines = 0, ninl = 0, i;
	double t0, t1;
	int has_dwarf;

	if (access(libc, R_OK) || elf_read_build_id(libc, &b) || b.len < 2)
		skip();
	for (i = 0; i < b.len; i++)
		snprintf(hex + 2 * i, 3, "%02x", b.data[i]);
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	if (access(dbg, R_OK)) {
		printf("  libc: no %s (install libc6-dbg)\n", dbg);
		skip();
	}
	fi_table_init(&t);
	t0 = now();
	assert_int_equal(dwarfsyms_extract(libc, dbg, &t, &has_dwarf), 0);
	t1 = now();
	assert_int_equal(has_dwarf, 1);
	for (i = 0; i < t.nr_funcs; i++) {
		nlines += t.funcs[i].nr_lines;
		ninl += t.funcs[i].inl != NULL;
	}
	printf("  libc + debug file: %zu functions (%zu with inlines), %zu line rows, %zu files "
	       "in %.3f s\n",
	       t.nr_funcs, ninl, nlines, t.nr_files - (t.nr_files > 0), t1 - t0);
	m = func_named(&t, "malloc");
	assert_non_null(m);
	assert_true(m->nr_lines > 10);
	assert_non_null(m->inl);
	assert_int_equal(t.uuid_len, b.len);
	assert_memory_equal(t.uuid, b.data, b.len);
	assert_true(compare_random(libc, &t, 3000, "libc") * 100 <= 3000);
	fi_table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_gcc_dwarf5),
		cmocka_unit_test(test_gcc_dwarf4),
		cmocka_unit_test(test_clang),
		cmocka_unit_test(test_separate_debug),
		cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_no_dwarf),
		cmocka_unit_test(test_elf_api),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_generated),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_env_binary),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests(tests, setup, teardown);
}
