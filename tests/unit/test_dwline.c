/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwline: the line programs of programs compiled here at run time (gcc
 * DWARF 5, 4 and 2, compressed sections, clang) and of the test binary
 * itself read by dwline.c and by libdw: the same rows in the same order,
 * the same file names.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "symbolizer/dwline.h"
#include "tests/unit/testutil.h"

static char tmpdir[] = "/tmp/zt-test-dwline.XXXXXX";

/* every unit of path read both ways; returns the rows compared */
static size_t compare(const char *path)
{
	struct dwl_sections s;
	struct dwl_unit u;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	Dwarf_Half ver;
	uint8_t ut;
	size_t total = 0;
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Dwarf *dw;

	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(elf);
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	assert_non_null(dw);
	/* after dwarf_begin_elf: libdw has decompressed what was compressed */
	assert_int_equal(dwl_sections_init(&s, elf), 0);
	dwl_unit_init(&u);
	while (dwarf_get_units(dw, cu, &cu, &ver, &ut, &cudie, NULL) == 0) {
		Dwarf_Attribute a;
		Dwarf_Word off;
		Dwarf_Lines *lines;
		Dwarf_Files *files;
		size_t n, nf, i, run = 0, k;
		uint8_t asz = 0;

		if (!dwarf_attr(&cudie, DW_AT_stmt_list, &a) || dwarf_formudata(&a, &off))
			continue;
		assert_int_equal(dwarf_cu_info(cu, NULL, NULL, NULL, NULL, NULL, &asz, NULL), 0);
		assert_int_equal(dwl_read(&s, off, asz,
					  dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &a)),
					  &u),
				 0);
		assert_int_equal(dwarf_getsrclines(&cudie, &lines, &n), 0);
		assert_int_equal(dwarf_getsrcfiles(&cudie, &files, &nf), 0);
		assert_int_equal(nf, u.nr_paths);
		for (i = 0; i < nf; i++)
			assert_string_equal(dwarf_filesrc(files, i, NULL, NULL), u.paths[i]);
		assert_int_equal(n, u.nr_rows);
		k = n ? u.runs[0].start : 0;
		for (i = 0; i < n; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			const struct dwl_row *r;
			Dwarf_Addr addr;
			bool end;
			int ln, col;
			unsigned discr;
			size_t idx;
			Dwarf_Files *lf;

			if (k >= u.runs[run].end)
				k = u.runs[++run].start;
			r = &u.rows[k++];
			assert_int_equal(dwarf_lineaddr(l, &addr), 0);
			assert_int_equal(dwarf_lineendsequence(l, &end), 0);
			assert_int_equal(dwarf_lineno(l, &ln), 0);
			assert_int_equal(dwarf_linecol(l, &col), 0);
			assert_int_equal(dwarf_linediscriminator(l, &discr), 0);
			assert_int_equal(dwarf_line_file(l, &lf, &idx), 0);
			assert_int_equal(addr, r->addr);
			assert_int_equal(end, r->end);
			assert_int_equal((uint32_t)ln, r->line);
			assert_int_equal((uint32_t)col, r->column);
			assert_int_equal(discr, r->discr);
			assert_int_equal(idx, r->file);
		}
		total += n;
	}
	dwl_unit_release(&u);
	dwarf_end(dw);
	elf_end(elf);
	close(fd);
	return total;
}

static void test_compilers(void **state)
{
	static const char *const cc[] = {
		"gcc -O2 -g",
		"gcc -O2 -gdwarf-4",
		"gcc -O0 -gdwarf-2",
		"gcc -O2 -g -gz",
		"gcc -O2 -g -ffunction-sections",
		"clang -O2 -g",
		"clang -O1 -gdwarf-4",
	};
	char src[PATH_MAX], bin[PATH_MAX];
	size_t i;
	FILE *f;

	(void)state;
	snprintf(src, sizeof(src), "%s/p.c", tmpdir);
	f = fopen(src, "w");
	assert_non_null(f);
	/* inlining, a cold part, several files through #line */
	fputs("#include <stdlib.h>\n"
	      "static inline int sq(int x) { return x * x; }\n"
	      "__attribute__((cold, noinline)) static void die(const char *m) { abort(); }\n"
	      "#line 10 \"other.c\"\n"
	      "static int sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return "
	      "s; }\n"
	      "#line 20 \"/abs/dir/third.h\"\n"
	      "int main(int argc, char **argv) { if (argc > 5) die(argv[0]);\n"
	      "  return sum(argc) & 1; }\n",
	      f);
	fclose(f);
	for (i = 0; i < sizeof(cc) / sizeof(cc[0]); i++) {
		snprintf(bin, sizeof(bin), "%s/p%zu", tmpdir, i);
		if (run("cd %s && %s -o %s p.c 2>/dev/null", tmpdir, cc[i], bin)) {
			/* clang may be missing: gcc must not be */
			assert_true(!strncmp(cc[i], "clang", 5));
			continue;
		}
		assert_true(compare(bin) > 10);
	}
}

static void test_self(void **state)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)state;
	assert_true(n > 0);
	self[n] = 0;
	assert_true(compare(self) > 100);
}

static void test_refused(void **state)
{
	/* a version libdw has no reader for, a truncated header */
	static const uint8_t v9[] = {2, 0, 0, 0, 9, 0}, cut[] = {200, 0, 0, 0, 4, 0};
	struct dwl_sections s = {.line = v9, .line_len = sizeof(v9), .little = 1};
	struct dwl_unit u;

	(void)state;
	dwl_unit_init(&u);
	assert_int_equal(dwl_read(&s, 0, 8, NULL, &u), -ENOTSUP);
	s.line = cut;
	assert_int_equal(dwl_read(&s, 0, 8, NULL, &u), -EBADMSG);
	assert_int_equal(dwl_read(&s, 100, 8, NULL, &u), -ENOTSUP);
	dwl_unit_release(&u);
}

static int setup(void **state)
{
	(void)state;
	elf_version(EV_CURRENT);
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return run("rm -rf %s", tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compilers),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
