// SPDX-License-Identifier: GPL-2.0-or-later
/* perf's choice among aliases (symname_cmp), rule by rule, and its use by
 * the ELF and kallsyms tables. */
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

#include "symbolizer/dwarfsyms.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/kallsyms.h"
#include "symbolizer/symname.h"
#include "tests/unit/testutil.h"

static struct symname_cand cand(const char *name, uint32_t seq, int sized, int bind)
{
	return (struct symname_cand){name, seq, (uint8_t)sized, (uint8_t)bind};
}

/* a is perf's choice over b, whichever comes first */
static void prefers(struct symname_cand a, struct symname_cand b)
{
	if (symname_cmp(&a, &b) >= 0 || symname_cmp(&b, &a) <= 0)
		fail_msg("'%s' should win over '%s'", a.name, b.name);
}

static void test_rules(void **state)
{
	(void)state;
	/* sized over sizeless, before anything else */
	prefers(cand("__zz_local", 9, 1, STB_LOCAL), cand("a", 0, 0, STB_GLOBAL));
	/* not weak over weak, even a LOCAL one */
	prefers(cand("__local_x", 9, 1, STB_LOCAL), cand("x", 0, 1, STB_WEAK));
	prefers(cand("__unique", 9, 1, STB_GNU_UNIQUE), cand("u", 0, 1, STB_WEAK));
	/* GLOBAL over every other binding: GNU_UNIQUE counts as not global */
	prefers(cand("__g", 9, 1, STB_GLOBAL), cand("local_longer", 0, 1, STB_LOCAL));
	prefers(cand("__g", 9, 1, STB_GLOBAL), cand("unique_longer", 0, 1, STB_GNU_UNIQUE));
	/* fewer leading underscores */
	prefers(cand("execve", 9, 1, STB_LOCAL), cand("__execve_longer", 0, 1, STB_LOCAL));
	/* then the longer name (libc6-dbg's .symtab, as perf shows them) */
	prefers(cand("__memmove_avx512_unaligned_erms", 9, 1, STB_LOCAL),
		cand("__memcpy_avx512_unaligned_erms", 0, 1, STB_LOCAL));
	prefers(cand("__GI___execve", 9, 1, STB_LOCAL), cand("__execve", 0, 1, STB_LOCAL));
	prefers(cand("pthread_mutex_lock@@GLIBC_2.2.5", 9, 1, STB_GLOBAL),
		cand("pthread_mutex_lock", 0, 1, STB_GLOBAL));
	prefers(cand("cfree@GLIBC_2.2.5", 9, 1, STB_GLOBAL), cand("free", 0, 1, STB_GLOBAL));
	/* then the first in table order */
	prefers(cand("zt_t_one", 3, 1, STB_GLOBAL), cand("zt_t_two", 4, 1, STB_GLOBAL));
	prefers(cand("bbb", 3, 0, STB_GLOBAL), cand("aaa", 4, 0, STB_GLOBAL));
}

static void test_kbind(void **state)
{
	(void)state;
	assert_int_equal(symname_kbind('W'), STB_WEAK);
	assert_int_equal(symname_kbind('T'), STB_GLOBAL);
	assert_int_equal(symname_kbind('t'), STB_LOCAL);
	assert_int_equal(symname_kbind('w'), STB_LOCAL); /* perf: only 'W' is weak */
}

/* kallsyms: perf's end fix-up gives only the last alias of an address an
 * extent, so it wins over names of any binding and length (checked against
 * perf report --kallsyms with an alias added before and after a function) */
static void test_kallsyms_last_wins(void **state)
{
	static const char text[] = "ffffffff81000000 T clear_page_erms\n"
				   "ffffffff81000000 t x\n"
				   "ffffffff81000100 T zzalias_longer_name\n"
				   "ffffffff81000100 T clear_page_rep\n"
				   "ffffffff81000200 T next_fn\n"
				   "ffffffff81000200 W __next_fn_weak\n"
				   "ffffffff81000300 T end\n";
	struct kallsyms *k = NULL;
	uint64_t off;

	(void)state;
	assert_int_equal(kallsyms_parse(text, strlen(text), &k), 0);
	assert_int_equal(kallsyms_count(k), 4);
	assert_string_equal(kallsyms_lookup(k, 0xffffffff81000010, &off, NULL), "x");
	assert_int_equal(off, 0x10);
	assert_string_equal(kallsyms_lookup(k, 0xffffffff81000100, &off, NULL), "clear_page_rep");
	assert_string_equal(kallsyms_lookup(k, 0xffffffff81000200, &off, NULL), "__next_fn_weak");
	kallsyms_free(k);
}

/* One alias group per address, in assembly; what perf 6.1 report shows
 * for each was checked on this program (each group a busy loop). */
static const char alias_src[] =
	"#define FN(n) \".globl \" #n \"\\n.type \" #n \",@function\\n\"\n"
	"#define BODY \"\\tnop\\n\\tret\\n\"\n"
	"__asm__(\".text\\n\"\n"
	"FN(zt_l_short) FN(zt_l_longer_name) \"zt_l_short:\\nzt_l_longer_name:\\n\" BODY\n"
	"\".size zt_l_short, 2\\n.size zt_l_longer_name, 2\\n\"\n"
	"FN(__zt_u_much_longer) FN(zt_u) \"__zt_u_much_longer:\\nzt_u:\\n\" BODY\n"
	"\".size __zt_u_much_longer, 2\\n.size zt_u, 2\\n\"\n"
	"\".weak zt_w_weak_longer\\n.type zt_w_weak_longer,@function\\n.type "
	"zt_w_loc,@function\\n\"\n"
	"\"zt_w_weak_longer:\\nzt_w_loc:\\n\" BODY \".size zt_w_weak_longer, 2\\n.size zt_w_loc, "
	"2\\n\"\n"
	"\".type zt_g_local_longer,@function\\n\" FN(zt_g_global)\n"
	"\"zt_g_local_longer:\\nzt_g_global:\\n\" BODY\n"
	"\".size zt_g_local_longer, 2\\n.size zt_g_global, 2\\n\"\n"
	"FN(zt_t_one) FN(zt_t_two) \"zt_t_one:\\nzt_t_two:\\n\" BODY\n"
	"\".size zt_t_one, 2\\n.size zt_t_two, 2\\n\"\n"
	");\n"
	"void zt_l_short(void), zt_u(void), zt_g_global(void), zt_t_one(void), zt_w_loc(void);\n"
	"int main(void) { zt_l_short(); zt_u(); zt_g_global(); zt_t_one(); zt_w_loc(); return 0; "
	"}\n";

/* The symbol-table index of name in path's .symtab (readelf), -1 if none. */
static long symtab_index(const char *path, const char *name)
{
	char cmd[1024], line[512];
	long idx = -1, i;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -sW %s", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char n[128];

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, " %ld: %*s %*s %*s %*s %*s %*s %127s", &i, n) == 2 &&
		    !strcmp(n, name))
			idx = i;
	}
	pclose(p);
	return idx;
}

/* The name elfsym and dwarfsyms (the table report's GSYM is built from)
 * give the address of symbol probe. */
static void expect_name(const char *bin, const struct elfsym *e, const struct fi_table *t,
			const char *probe, const char *want)
{
	char cmd[1024], line[256];
	unsigned long long v = 0;
	uint64_t off = 0;
	const char *got;
	size_t i;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s | awk '$3 == \"%s\" { print $1 }'", bin, probe);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	pclose(p);
	assert_int_equal(sscanf(line, "%llx", &v), 1);
	/* a PIE's text: file offset == vaddr in its first segments */
	got = elfsym_lookup(e, v, &off);
	if (!got || strcmp(got, want))
		fail_msg("elfsym at %s: got %s, want %s", probe, got ? got : "nothing", want);
	for (i = 0; i < t->nr_funcs; i++)
		if (t->funcs[i].start == v)
			break;
	if (i == t->nr_funcs || strcmp(fi_strat(t, t->funcs[i].name), want))
		fail_msg("dwarfsyms at %s: got %s, want %s", probe,
			 i < t->nr_funcs ? fi_strat(t, t->funcs[i].name) : "nothing", want);
}

static void test_elf_aliases(void **state)
{
	char dir[] = "/tmp/zt-test-symname.XXXXXX", bin[256];
	struct elfsym *e = NULL;
	struct fi_table t;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(bin, sizeof(bin), "%s/al.c", dir);
	f = fopen(bin, "w");
	assert_non_null(f);
	fputs(alias_src, f);
	fclose(f);
	assert_int_equal(run("cd %s && cc -O1 -fPIE -pie -o al al.c", dir), 0);
	snprintf(bin, sizeof(bin), "%s/al", dir);
	assert_int_equal(elfsym_open(bin, &e), 0);
	fi_table_init(&t);
	assert_int_equal(dwarfsyms_extract(bin, NULL, &t, NULL), 0);

	expect_name(bin, e, &t, "zt_l_short", "zt_l_longer_name");   /* longer */
	expect_name(bin, e, &t, "__zt_u_much_longer", "zt_u");	     /* fewer underscores */
	expect_name(bin, e, &t, "zt_w_weak_longer", "zt_w_loc");     /* LOCAL over WEAK */
	expect_name(bin, e, &t, "zt_g_local_longer", "zt_g_global"); /* GLOBAL over LOCAL */
	/* equals: the first in the table */
	expect_name(bin, e, &t, "zt_t_two",
		    symtab_index(bin, "zt_t_one") < symtab_index(bin, "zt_t_two") ? "zt_t_one"
										  : "zt_t_two");
	fi_table_release(&t);
	elfsym_free(e);
	run("rm -rf %s", dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_kbind),
		cmocka_unit_test(test_kallsyms_last_wins),
		cmocka_unit_test(test_elf_aliases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
