/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pltsyms: the "NAME@plt" stubs of programs linked here at run time in each
 * layout this toolchain makes (lazy and -z now, PIE and not, IBT .plt.sec,
 * a shared object, lld, i386's .rel.plt), checked against objdump's stub
 * labels; the rules of perf 6.1 (IRELATIVE: "@plt", no stubs for a module
 * perf loads no symbol of) through dwarfsyms; and built ELF files for the
 * other machines' sizes and damaged tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
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

#include "symbolizer/dwarfsyms.h"
#include "symbolizer/pltsyms.h"

static char tmpdir[] = "/tmp/zt-test-pltsyms.XXXXXX";
static int have_lld, have_i386;

/* calls through the PLT: libc functions, an IFUNC of the program itself
 * (an IRELATIVE relocation), and stdout (a copy-relocated object the
 * stripped program still defines) */
static const char prog_src[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"static int impl(int x) { return x + 1; }\n"
	"static int (*resolve(void))(int) { return impl; }\n"
	"int zt_ifunc(int) __attribute__((ifunc(\"resolve\")));\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\tfputs(argv[0], stdout);\n"
	"\treturn (int)labs(argc) + (int)strlen(argv[0]) + zt_ifunc(argc) + atoi(\"1\");\n"
	"}\n";
/* the same calls without data the program defines */
static const char bare_src[] =
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"int main(int argc, char **argv) { return atoi(argv[0]) + (int)strlen(argv[0]); }\n";
/* i386: two calls through the PLT of a shared object (.rel.plt) */
static const char i386_src[] = ".text\n.globl f\n.type f,@function\nf:\n"
			       "\tcall ext1@PLT\n\tcall ext2@PLT\n\tret\n";

static void path_of(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", tmpdir, name);
}

static int setup(void **state)
{
	char path[512];

	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	path_of(path, sizeof(path), "prog.c");
	if (write_text(path, prog_src, 0644))
		return -1;
	path_of(path, sizeof(path), "bare.c");
	if (write_text(path, bare_src, 0644))
		return -1;
	path_of(path, sizeof(path), "f32.s");
	if (write_text(path, i386_src, 0644))
		return -1;
	if (run("cd %s && cc -O1 -o lazy prog.c && cc -O1 -Wl,-z,now -o now prog.c"
		" && cc -O1 -fno-pie -no-pie -o nopie prog.c"
		" && cc -O1 -fcf-protection=full -Wl,-z,ibtplt -o ibt prog.c"
		" && cc -O1 -fcf-protection=full -Wl,-z,ibtplt -Wl,-z,now -o ibtnow prog.c"
		" && cc -O1 -fPIC -shared -o lib.so prog.c"
		" && cp lazy stripped && strip stripped && cc -O1 -o bare bare.c && strip bare",
		tmpdir))
		return -1;
	have_lld = !run("cd %s && cc -O1 -fuse-ld=lld -o lld prog.c 2>/dev/null", tmpdir);
	have_i386 = !run("cd %s && as --32 -o f32.o f32.s 2>/dev/null &&"
			 " ld -m elf_i386 -shared -o f32.so f32.o 2>/dev/null",
			 tmpdir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	run("rm -rf %s", tmpdir);
	return 0;
}

static Elf *open_elf(const char *path, int *fd)
{
	Elf *e;

	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY);
	assert_true(*fd >= 0);
	e = elf_begin(*fd, ELF_C_READ, NULL);
	assert_non_null(e);
	return e;
}

/* The stub at addr, or NULL. */
static const struct pltsym *stub_at(const struct pltsyms *p, uint64_t addr, size_t *idx)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		if (p->syms[i].addr == addr) {
			*idx = i;
			return &p->syms[i];
		}
	}
	return NULL;
}

static void read_stubs(const char *file, struct pltsyms *p)
{
	char path[512];
	Elf *e;
	int fd;

	path_of(path, sizeof(path), file);
	e = open_elf(path, &fd);
	pltsyms_init(p);
	assert_int_equal(pltsyms_read(p, e), 0);
	elf_end(e);
	close(fd);
}

/*
 * Every stub objdump labels NAME@plt (in .plt, or .plt.sec with IBT) is
 * one of 16 bytes named so, an IRELATIVE one ("*ABS*+0x...@plt") "@plt";
 * returns how many. objdump finds a stub's name by the GOT slot it jumps
 * through, not by relocation order as perf does.
 */
static unsigned check_labels(const char *file, const struct pltsyms *p, int *irelative)
{
	char path[512], cmd[1024], line[512];
	unsigned n = 0;
	FILE *f;

	path_of(path, sizeof(path), file);
	snprintf(cmd, sizeof(cmd),
		 "objdump -d -j .plt -j .plt.sec %s 2>/dev/null |"
		 " sed -n 's/^\\([0-9a-f]*\\) <\\(.*@plt\\)>:$/\\1 \\2/p'",
		 path);
	f = popen(cmd, "r");
	assert_non_null(f);
	*irelative = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char name[256];
		const struct pltsym *s;
		const char *want;
		size_t i = 0;

		if (sscanf(line, "%llx %255s", &a, name) != 2)
			continue;
		want = strncmp(name, "*ABS*", 5) ? name : "@plt";
		*irelative += !strcmp(want, "@plt");
		s = stub_at(p, a, &i);
		if (!s)
			fail_msg("%s: no stub at 0x%llx (%s)", file, a, name);
		if (strcmp(pltsyms_name(p, i), want))
			fail_msg("%s: 0x%llx is %s, objdump says %s", file, a, pltsyms_name(p, i),
				 name);
		assert_int_equal(s->size, 16);
		n++;
	}
	pclose(f);
	return n;
}

/* Section name's address and size from readelf. */
static int section(const char *file, const char *name, uint64_t *addr, uint64_t *size)
{
	char path[512], cmd[1024];
	unsigned long long a, s;
	FILE *f;
	int ok;

	path_of(path, sizeof(path), file);
	snprintf(
		cmd, sizeof(cmd),
		"readelf -SW %s | sed 's/^ *\\[ *[0-9]*\\] //' | awk '$1 == \"%s\" {print $3, $5}'",
		path, name);
	f = popen(cmd, "r");
	assert_non_null(f);
	ok = fscanf(f, "%llx %llx", &a, &s) == 2;
	pclose(f);
	*addr = a;
	*size = s;
	return ok;
}

/* x86-64 layouts without IBT: .plt's stubs after its 16-byte header, as
 * objdump labels them; the IFUNC's stub is "@plt". */
static void test_x86_64(void **state)
{
	static const char *const files[] = {"lazy", "now", "nopie", "lib.so"};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct pltsyms p;
		uint64_t plt, size;
		int irel;

		read_stubs(files[i], &p);
		assert_true(section(files[i], ".plt", &plt, &size));
		assert_int_equal(check_labels(files[i], &p, &irel), p.nr);
		assert_true(p.nr >= 4); /* fputs, labs, strlen, atoi */
		assert_int_equal(p.syms[0].addr, plt + 16);
		assert_int_equal(p.syms[p.nr - 1].addr + 16, plt + size);
		if (strcmp(files[i], "lib.so")) /* an exported IFUNC is a symbol's */
			assert_int_equal(irel, 1);
		pltsyms_release(&p);
	}
}

/* IBT (.plt.sec): its stubs as objdump labels them, and .plt's
 * lazy-binding entries (perf 6.1's) named alike, in the same order. */
static void test_ibt(void **state)
{
	static const char *const files[] = {"ibt", "ibtnow"};
	size_t i, k;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct pltsyms p;
		uint64_t plt, psize, sec, ssize;
		unsigned n;
		int irel;

		read_stubs(files[i], &p);
		assert_true(section(files[i], ".plt", &plt, &psize));
		assert_true(section(files[i], ".plt.sec", &sec, &ssize));
		n = check_labels(files[i], &p, &irel);
		assert_int_equal(n, ssize / 16);
		assert_int_equal(irel, 1);
		assert_int_equal(p.nr, 2 * n);
		for (k = 0; k < n; k++) {
			size_t a = 0, b = 0;

			assert_non_null(stub_at(&p, plt + 16 + 16 * k, &a));
			assert_non_null(stub_at(&p, sec + 16 * k, &b));
			assert_string_equal(pltsyms_name(&p, a), pltsyms_name(&p, b));
		}
		pltsyms_release(&p);
	}
}

/* lld sets no sh_entsize on .plt (perf 6.1 put every stub at its start);
 * i386's GNU ld sets 4, with .rel.plt: 16-byte stubs all the same. */
static void test_other_linkers(void **state)
{
	struct pltsyms p;
	int irel;

	(void)state;
	if (have_lld) {
		read_stubs("lld", &p);
		assert_true(p.nr >= 4);
		assert_int_equal(check_labels("lld", &p, &irel), p.nr);
		pltsyms_release(&p);
	}
	if (have_i386) {
		read_stubs("f32.so", &p);
		assert_int_equal(p.nr, 2);
		assert_int_equal(check_labels("f32.so", &p, &irel), 2);
		pltsyms_release(&p);
	}
	if (!have_lld || !have_i386)
		skip();
}

/* The name dwarfsyms gives addr as report looks it up (NULL: none; the
 * FI_GAP entries are for addr2line's answers). */
static const char *name_at(const struct fi_table *t, uint64_t addr)
{
	size_t i;

	for (i = 0; i < t->nr_funcs; i++) {
		const struct fi_func *f = &t->funcs[i];

		if (!(f->flags & FI_GAP) && addr >= f->start && addr - f->start < f->size)
			return fi_strat(t, f->name);
	}
	return NULL;
}

/* Through dwarfsyms (the tables the GSYM cache keeps): a stripped program
 * that still defines stdout keeps its stubs; one that defines nothing has
 * none, as perf 6.1 makes PLT symbols only when it loaded a symbol. */
static void test_tables(void **state)
{
	static const char *const files[] = {"lazy", "stripped", "bare"};
	size_t i, k;

	(void)state;
	for (i = 0; i < 3; i++) {
		char path[512];
		struct pltsyms p;
		struct fi_table t;

		read_stubs(files[i], &p);
		assert_true(p.nr >= 1);
		path_of(path, sizeof(path), files[i]);
		fi_table_init(&t);
		assert_int_equal(dwarfsyms_extract(path, NULL, &t, NULL), 0);
		for (k = 0; k < p.nr; k++) {
			const char *got = name_at(&t, p.syms[k].addr + 4);

			if (!strcmp(files[i], "bare"))
				assert_null(got);
			else
				assert_string_equal(got, pltsyms_name(&p, k));
		}
		fi_table_release(&t);
		pltsyms_release(&p);
	}
}

/* ---- built files ----------------------------------------------------------- */

/*
 * A shared object of machine mach: .dynsym {alpha, beta}, .rela.plt
 * (linked to section link) naming alpha, symbol 0, a symbol that is not
 * there, beta, alpha; .plt at 0x1000 of plt_size bytes. Written to path.
 */
static void build(const char *path, uint16_t mach, uint32_t link, uint64_t plt_size)
{
	static const char shstr[] = "\0.shstrtab\0.dynstr\0.dynsym\0.rela.plt\0.plt";
	static const char str[] = "\0alpha\0beta";
	static uint8_t code[256];
	Elf64_Sym syms[3] = {
		{0},
		{.st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = 5},
		{.st_name = 7, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = 5},
	};
	static const uint32_t sym_of[] = {1, 0, 99, 2, 1};
	Elf64_Rela rel[5];
	const struct test_scn scns[] = {
		{1, SHT_STRTAB, 0, 0, shstr, sizeof(shstr), 0, 0, 0},
		{11, SHT_STRTAB, SHF_ALLOC, 0x200, str, sizeof(str), 0, 0, 0},
		{19, SHT_DYNSYM, SHF_ALLOC, 0x300, syms, sizeof(syms), 2, 0, sizeof(Elf64_Sym)},
		{27, SHT_RELA, SHF_ALLOC, 0x400, rel, sizeof(rel), link, 0, sizeof(Elf64_Rela)},
		{37, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, code, plt_size, 0, 0, 0},
	};
	size_t i;
	int fd;

	for (i = 0; i < 5; i++)
		rel[i] = (Elf64_Rela){0x2000 + 8 * i, ELF64_R_INFO(sym_of[i], 7), 0};
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(test_write_elf(fd, ET_DYN, mach, scns, 5), 0);
	close(fd);
}

struct want {
	uint64_t addr;
	const char *name;
};

static void expect_stubs(const char *file, const struct want *w, size_t n, uint64_t size)
{
	struct pltsyms p;
	size_t i;

	read_stubs(file, &p);
	assert_int_equal(p.nr, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(p.syms[i].addr, w[i].addr);
		assert_int_equal(p.syms[i].size, size);
		assert_string_equal(pltsyms_name(&p, i), w[i].name);
	}
	pltsyms_release(&p);
}

/* perf's sizes of other machines; symbol 0 is "@plt", a symbol that is
 * not there names no stub but takes its place; stubs past .plt's end are
 * not made; .rela.plt not linked to .dynsym gives none. */
static void test_built(void **state)
{
	static const struct want a64[] = {
		{0x1020, "alpha@plt"},
		{0x1030, "@plt"},
		{0x1050, "beta@plt"},
	};
	static const struct want arm[] = {{0x1014, "alpha@plt"},
					  {0x1020, "@plt"},
					  {0x1038, "beta@plt"},
					  {0x1044, "alpha@plt"}};
	char path[512];
	struct pltsyms p;

	(void)state;
	path_of(path, sizeof(path), "a64.so");
	build(path, EM_AARCH64, 3, 32 + 4 * 16 + 8); /* room for four stubs */
	expect_stubs("a64.so", a64, 3, 16);
	path_of(path, sizeof(path), "arm.so");
	build(path, EM_ARM, 3, 20 + 5 * 12);
	expect_stubs("arm.so", arm, 4, 12);
	path_of(path, sizeof(path), "badlink.so");
	build(path, EM_AARCH64, 2, 256);
	read_stubs("badlink.so", &p);
	assert_int_equal(p.nr, 0);
	pltsyms_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_64),	      cmocka_unit_test(test_ibt),
		cmocka_unit_test(test_other_linkers), cmocka_unit_test(test_tables),
		cmocka_unit_test(test_built),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
