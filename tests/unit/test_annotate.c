/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The disassembler (objdump's spelling of Capstone's text, targets, bad
 * bytes) and the annotate model on a program built here: samples per
 * instruction, the function's size from its symbol, source lines with an
 * inlined function's lines where its code landed, hottest-first order,
 * and the reasons given when the code cannot be read.
 */
#include <errno.h>
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

#include "session/session.h"
#include "symbolizer/annotate.h"
#include "symbolizer/disasm.h"
#include "tests/unit/fakesrc.h"
#include "tests/unit/testutil.h"

static void decode(struct disasm *d, const uint8_t *b, size_t n, uint64_t addr,
		   struct disasm_insn *in)
{
	assert_int_equal(disasm_one(d, b, n, addr, in), 0);
}

static void test_disasm_att(void **state)
{
	/* zt_hot_a's code as gcc -O1 makes it, and a few more */
	static const uint8_t push[] = {0x55}, mov[] = {0x48, 0x89, 0xe5},
			     movq[] = {0x48, 0xc7, 0x45, 0xf8, 0, 0, 0, 0}, jne[] = {0x75, 0xe1},
			     rip[] = {0x48, 0x89, 0x05, 0x35, 0x2e, 0, 0}, ret[] = {0xc3},
			     call[] = {0xe8, 0x10, 0, 0, 0},
			     sib[] = {0x48, 0x8d, 0x04, 0xc3}, /* lea (%rbx,%rax,8),%rax */
		bad[] = {0x06};
	struct disasm *d;
	struct disasm_insn in;

	(void)state;
	assert_int_equal(disasm_new(EM_X86_64, DISASM_ATT, &d), 0);
	decode(d, push, sizeof(push), 0x1211, &in);
	assert_string_equal(in.mnemonic, "push");
	assert_string_equal(in.ops, "%rbp");
	assert_int_equal(in.len, 1);
	decode(d, mov, sizeof(mov), 0x1212, &in);
	assert_string_equal(in.mnemonic, "mov");
	assert_string_equal(in.ops, "%rsp,%rbp");
	decode(d, movq, sizeof(movq), 0x1215, &in);
	assert_string_equal(in.mnemonic, "movq"); /* no register: the suffix stays */
	assert_string_equal(in.ops, "$0x0,-0x8(%rbp)");
	decode(d, jne, sizeof(jne), 0x124e, &in);
	assert_string_equal(in.mnemonic, "jne");
	assert_true(in.flags & DISASM_JUMP);
	assert_true(in.has_target);
	assert_int_equal(in.target, 0x1231);
	decode(d, rip, sizeof(rip), 0x1254, &in);
	assert_true(in.has_mem);
	assert_int_equal(in.mem, 0x4090);
	assert_string_equal(in.ops, "%rax,0x2e35(%rip)");
	decode(d, ret, sizeof(ret), 0x125c, &in);
	assert_string_equal(in.mnemonic, "ret");
	assert_true(in.flags & DISASM_RET);
	decode(d, call, sizeof(call), 0x1000, &in);
	assert_string_equal(in.mnemonic, "call");
	assert_true(in.flags & DISASM_CALL);
	assert_int_equal(in.target, 0x1015);
	decode(d, sib, sizeof(sib), 0x1000, &in);
	assert_string_equal(in.ops, "(%rbx,%rax,8),%rax"); /* the scale stays decimal */
	assert_int_equal(disasm_one(d, bad, sizeof(bad), 0x2000, &in), -EINVAL);
	assert_string_equal(in.mnemonic, "(bad)");
	assert_int_equal(in.len, 1);
	assert_true(in.flags & DISASM_BAD);
	assert_int_equal(disasm_one(d, bad, 0, 0x2000, &in), -ENODATA);
	disasm_free(d);
	assert_int_equal(disasm_new(EM_386, DISASM_ATT, &d), -ENOTSUP);
}

/* objdump's spellings Capstone 4 does not have (taken from ld.so and libc) */
static void test_disasm_objdump(void **state)
{
	static const struct {
		uint8_t b[12];
		unsigned n;
		const char *mn, *ops;
	} cases[] = {
		{{0x0f, 0x1f, 0x44, 0, 0}, 5, "nopl", "0x0(%rax,%rax,1)"},
		{{0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0}, 8, "nopl", "0x0(%rax,%rax,1)"},
		{{0x0f, 0x1f, 0x00}, 3, "nopl", "(%rax)"},
		{{0x48, 0x8d, 0x34, 0x85, 0, 0, 0, 0}, 8, "lea", "0x0(,%rax,4),%rsi"},
		{{0x49, 0xc7, 0xc0, 0xff, 0xff, 0xff, 0xff}, 7, "mov", "$0xffffffffffffffff,%r8"},
		{{0xd1, 0xea}, 2, "shr", "%edx"},
		{{0x66, 0x90}, 2, "xchg", "%ax,%ax"},
		{{0xf0, 0x0f, 0xb1, 0x17}, 4, "lock cmpxchg", "%edx,(%rdi)"},
		{{0x66, 0x48, 0x0f, 0x6e, 0xc1}, 5, "movq", "%rcx,%xmm0"},
		{{0x48, 0x8b, 0x45, 0x00}, 4, "mov", "0x0(%rbp),%rax"},
	};
	struct disasm *d;
	struct disasm_insn in;
	size_t i;

	(void)state;
	assert_int_equal(disasm_new(EM_X86_64, DISASM_ATT, &d), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		decode(d, cases[i].b, cases[i].n, 0x1000, &in);
		assert_int_equal(in.len, cases[i].n);
		assert_string_equal(in.mnemonic, cases[i].mn);
		assert_string_equal(in.ops, cases[i].ops);
	}
	disasm_free(d);
}

static void test_disasm_intel(void **state)
{
	static const uint8_t movq[] = {0x48, 0xc7, 0x45, 0xf8, 0, 0, 0, 0};
	struct disasm *d;
	struct disasm_insn in;
	char out[64];

	(void)state;
	assert_int_equal(disasm_new(EM_X86_64, DISASM_INTEL, &d), 0);
	decode(d, movq, sizeof(movq), 0x1215, &in);
	assert_string_equal(in.mnemonic, "mov");
	assert_string_equal(in.ops, "QWORD PTR [rbp-0x8],0x0");
	disasm_free(d);
	disasm_objdump_ops("qword ptr [rax + rbx*8 + 16], 3", DISASM_INTEL, out, sizeof(out));
	assert_string_equal(out, "QWORD PTR [rax+rbx*8+0x10],0x3");
	disasm_objdump_ops("%st(1), %st", DISASM_ATT, out, sizeof(out));
	assert_string_equal(out, "%st(1),%st");
	disasm_objdump_ops("$-8, %r8", DISASM_ATT, out, sizeof(out));
	assert_string_equal(out, "$-0x8,%r8");
	disasm_objdump_ops("$0x10, %xmm0", DISASM_ATT, out, 8); /* cut, terminated */
	assert_int_equal(strlen(out), 7);
}

static void test_disasm_arm64(void **state)
{
	static const uint8_t ret[] = {0xc0, 0x03, 0x5f, 0xd6}, bl[] = {0x04, 0x00, 0x00, 0x94};
	struct disasm *d;
	struct disasm_insn in;

	(void)state;
	assert_int_equal(disasm_new(EM_AARCH64, DISASM_ATT, &d), 0);
	decode(d, ret, sizeof(ret), 0x400000, &in);
	assert_string_equal(in.mnemonic, "ret");
	decode(d, bl, sizeof(bl), 0x400000, &in);
	assert_string_equal(in.mnemonic, "bl");
	assert_true(in.flags & DISASM_CALL);
	assert_int_equal(in.target, 0x400010);
	disasm_free(d);
}

/* ---- the model on a program built here ---- */

static const char prog_h[] =
	"static inline __attribute__((always_inline)) unsigned long mix(unsigned long x,\n"
	"\t\t\t\t\t\t\t\t unsigned long i)\n"
	"{\n"
	"\treturn x * 2862933555777941757ul + i; /* MIXLINE */\n"
	"}\n";
static const char prog_c[] = "#include <stdio.h>\n"
			     "#include \"mix.h\"\n"
			     "__attribute__((noinline)) unsigned long work(unsigned long n)\n"
			     "{\n"
			     "\tunsigned long x = 1, i;\n"
			     "\n"
			     "\tfor (i = 0; i < n; i++)\n"
			     "\t\tx = mix(x, i);\n"
			     "\treturn x;\n"
			     "}\n"
			     "int main(int c, char **v)\n"
			     "{\n"
			     "\tif (c > 5)\n"
			     "\t\tputs(v[0]);\n"
			     "\treturn (int)work((unsigned long)c * 1000);\n"
			     "}\n";

struct fx {
	char dir[64], bin[128];
	uint64_t off, size;
	unsigned first_len;
	struct profile p;
	struct proctree *pt;
	struct session_source *ss;
	struct frametab ft;
	struct symmod_opts mo;
	struct ann_profile ap;
};

static int fx_setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	struct session_opts so = {0};
	struct frametab_source src;
	char path[192];
	uint8_t code[16];
	struct disasm *d;
	struct disasm_insn in;
	FILE *f;
	int i;

	assert_non_null(x);
	snprintf(x->dir, sizeof(x->dir), "/tmp/zt-test-annotate.XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	snprintf(path, sizeof(path), "%s/mix.h", x->dir);
	assert_int_equal(write_text(path, prog_h, 0644), 0);
	snprintf(path, sizeof(path), "%s/prog.c", x->dir);
	assert_int_equal(write_text(path, prog_c, 0644), 0);
	snprintf(x->bin, sizeof(x->bin), "%s/prog", x->dir);
	assert_int_equal(run("gcc -O1 -g -fno-omit-frame-pointer -o %s %s", x->bin, path), 0);
	assert_int_equal(file_offset(x->bin, "work", &x->off, &x->size), 0);
	/* the first instruction's length, to sample the second */
	f = fopen(x->bin, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)x->off, SEEK_SET), 0);
	assert_int_equal(fread(code, 1, sizeof(code), f), sizeof(code));
	fclose(f);
	assert_int_equal(disasm_new(EM_X86_64, DISASM_ATT, &d), 0);
	assert_int_equal(disasm_one(d, code, sizeof(code), 0, &in), 0);
	x->first_len = in.len;
	disasm_free(d);

	profile_init(&x->p);
	assert_int_equal(fake_task(&x->p, PROF_TASK_COMM, 1, 7, 7, "prog"), 0);
	assert_int_equal(fake_mmap(&x->p, 7, 1, 0x400000, 0x100000, 0, x->bin, NULL), 0);
	for (i = 0; i < 4; i++) {
		/* three samples at the first instruction, one at the second */
		uint64_t ip = 0x400000 + x->off + (i == 3 ? x->first_len : 0);

		assert_int_equal(fake_sample(&x->p, 10 + (uint64_t)i, 1000, 7, 7, 0, &ip, 0, 1), 0);
	}
	assert_int_equal(proctree_new(&x->p, &x->pt), 0);
	x->mo.no_debuginfod = 1;
	so.mo = &x->mo;
	assert_int_equal(session_source_new(&so, &x->ss), 0);
	assert_int_equal(session_source_follow(x->ss, &x->p, x->pt), 0);
	session_source_get(x->ss, &src);
	frametab_init(&x->ft, x->pt, &src);
	assert_int_equal(ann_profile_build(&x->ap, &(struct rstacks){&x->p, x->pt, &x->ft}, NULL), 0);
	*state = x;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *x = *state;

	ann_profile_release(&x->ap);
	frametab_release(&x->ft);
	session_source_free(x->ss);
	proctree_free(x->pt);
	profile_release(&x->p);
	run("rm -rf %s", x->dir);
	free(x);
	return 0;
}

static void test_profile(void **state)
{
	struct fx *x = *state;
	const struct ann_sym *s;

	assert_int_equal(x->ap.nr_syms, 1);
	assert_int_equal(x->ap.total_nr, 4);
	s = &x->ap.syms[0];
	assert_string_equal(s->name, "work");
	assert_string_equal(s->module, "prog");
	assert_int_equal(s->nr, 4);
	assert_int_equal(s->weight, 4000);
	assert_int_equal(s->start, x->off);
	assert_int_equal(s->nr_hits, 2);
	assert_ptr_equal(ann_profile_find(&x->ap, "work", NULL), s);
	assert_ptr_equal(ann_profile_find(&x->ap, "work", "prog"), s);
	assert_ptr_equal(ann_profile_find(&x->ap, "work", x->bin), s);
	assert_null(ann_profile_find(&x->ap, "work", "libc.so.6"));
	assert_null(ann_profile_find(&x->ap, "main", NULL));
}

/* Several events: by_event counts one event's samples only. */
static void test_profile_event(void **state)
{
	struct prof_event e0 = {.name = "cpu-clock"}, e1 = {.name = "page-faults"};
	struct fx *x = *state;
	struct ann_filter f = {NULL, 0, 1, 1};
	struct ann_profile ap;
	uint32_t idx;

	assert_int_equal(profile_add_event(&x->p, &e0, &idx), 0);
	assert_int_equal(profile_add_event(&x->p, &e1, &idx), 0);
	x->p.samples[3].event = 1; /* the one at the second instruction */
	assert_int_equal(ann_profile_build(&ap, &(struct rstacks){&x->p, x->pt, &x->ft}, &f), 0);
	assert_int_equal(ap.total_nr, 1);
	assert_int_equal(ap.nr_syms, 1);
	assert_int_equal(ap.syms[0].nr, 1);
	ann_profile_release(&ap);
	f.event = 0;
	assert_int_equal(ann_profile_build(&ap, &(struct rstacks){&x->p, x->pt, &x->ft}, &f), 0);
	assert_int_equal(ap.total_nr, 3);
	assert_int_equal(ap.syms[0].weight, 3000);
	ann_profile_release(&ap);
}

static void test_annotation(void **state)
{
	struct fx *x = *state;
	struct ann_opts o = {&x->mo, NULL, DISASM_ATT, 1};
	const struct ann_row *rows;
	const uint32_t *hot;
	struct annotation a;
	size_t nr, i, nhot;
	char err[256], buf[256];
	int inl_func = 0, inl_src = 0, own_src = 0;

	assert_int_equal(annotation_build(&a, &x->ap, &x->ap.syms[0], &o, err, sizeof(err)), 0);
	assert_string_equal(a.name, "work");
	assert_int_equal(a.size, x->size);
	assert_int_equal(a.machine, EM_X86_64);
	assert_true(a.nr_insns > 3);
	assert_int_equal(a.insns[0].off, 0);
	assert_int_equal(a.insns[1].off, x->first_len);
	assert_int_equal(a.insns[0].nr, 3);
	assert_int_equal(a.insns[1].nr, 1);
	assert_int_equal(a.insns[0].weight, 3000);
	assert_int_equal(a.nr, 4);
	assert_int_equal(a.weight, 4000);
	assert_int_equal(a.total_nr, 4);
	/* the instructions cover the function exactly */
	assert_int_equal(a.insns[a.nr_insns - 1].off + a.insns[a.nr_insns - 1].d.len, a.size);
	assert_true(a.have_source);
	assert_int_equal(annotation_hottest(&a, &hot, &nhot), 0);
	assert_int_equal(nhot, 2);
	assert_int_equal(hot[0], 0);
	assert_int_equal(hot[1], 1);
	annotation_srcline(&a, 0, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "prog.c:", 7), 0);
	assert_true(atoi(buf + 7) >= 4 && atoi(buf + 7) <= 9);
	assert_int_equal(annotation_rows(&a, 1, &rows, &nr), 0);
	assert_true(nr > a.nr_insns);
	for (i = 0; i < nr; i++) {
		const struct ann_loc *l = &a.locs[rows[i].loc];

		if (rows[i].kind == ANN_ROW_FUNC && l->depth && !strcmp(l->func, "mix")) {
			inl_func = 1;
			assert_non_null(l->call_file);
			assert_int_equal(l->call_line, 8);
		}
		if (rows[i].kind == ANN_ROW_SOURCE && rows[i].text &&
		    strstr(rows[i].text, "MIXLINE")) {
			inl_src = 1; /* the inlined function's line, from its own file */
			assert_int_equal(rows[i].line, 4);
			assert_non_null(strstr(l->file, "mix.h"));
		}
		if (rows[i].kind == ANN_ROW_SOURCE && rows[i].text &&
		    strstr(rows[i].text, "unsigned long work(unsigned long n)"))
			own_src = 1; /* context before the first line */
	}
	assert_true(inl_func);
	assert_true(inl_src);
	assert_true(own_src);
	/* without source: the instructions only, in order */
	assert_int_equal(annotation_rows(&a, 0, &rows, &nr), 0);
	assert_int_equal(nr, a.nr_insns);
	for (i = 0; i < nr; i++)
		assert_int_equal(rows[i].insn, i);
	annotation_release(&a);
}

/* a call through the PLT names its target as objdump does: puts@plt */
static void test_plt(void **state)
{
	struct fx *x = *state;
	struct ann_opts o = {&x->mo, NULL, DISASM_ATT, 1};
	struct ann_sym s = x->ap.syms[0];
	struct annotation a;
	char err[256];
	size_t i;
	int found = 0;

	assert_int_equal(file_offset(x->bin, "main", &s.start, NULL), 0);
	s.name = "main";
	s.nr_hits = 0;
	assert_int_equal(annotation_build(&a, &x->ap, &s, &o, err, sizeof(err)), 0);
	for (i = 0; i < a.nr_insns; i++)
		if ((a.insns[i].d.flags & DISASM_CALL) && a.insns[i].target)
			found |= !strcmp(a.insns[i].target, "puts@plt") ? 1
				 : !strcmp(a.insns[i].target, "work")	? 2
									: 0;
	assert_int_equal(found, 3);
	assert_int_equal(a.nr, 0);
	annotation_release(&a);
}

static void test_no_code(void **state)
{
	struct fx *x = *state;
	struct ann_opts o = {&x->mo, NULL, DISASM_ATT, 1};
	struct prof_mmap gone = {.path = "/nonexistent/zt/prog", .start = 0x400000};
	struct ann_sym s = {"work", "prog", &gone, 0x1000, 0, 1, 1, 0, 0, 0};
	struct ann_sym k = {
		"schedule", "[kernel.kallsyms]", NULL, 0xffffffff81000000ull, 1, 1, 1, 0, 0, 0};
	struct annotation a;
	char err[512];

	(void)x;
	assert_int_equal(annotation_build(&a, &x->ap, &s, &o, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/zt/prog"));
	assert_non_null(strstr(err, "--symfs"));
	assert_int_equal(annotation_build(&a, &x->ap, &k, &o, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "-k/--vmlinux"));
	/* a vmlinux that is not ELF */
	o.vmlinux = "/dev/null";
	assert_int_equal(annotation_build(&a, &x->ap, &k, &o, err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "not an ELF file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disasm_att),
		cmocka_unit_test(test_disasm_objdump),
		cmocka_unit_test(test_disasm_intel),
		cmocka_unit_test(test_disasm_arm64),
		cmocka_unit_test_setup_teardown(test_profile, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_profile_event, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_annotation, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plt, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_no_code, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
