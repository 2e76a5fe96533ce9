/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The annotate model of Python functions (issue 36): a sample counts for
 * the function of its innermost Python frame, whatever native frames stand
 * above it (and for its leaf function too); the samples of each source
 * line, through a real CPython 3.11 location table; the lines from the
 * code object's first to the last any instruction is on; the file's text
 * read at annotate time, and the reason when it cannot be (no file, too
 * large, gone, shorter than the function).
 */
#include <errno.h>
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
#include "tests/unit/fakesrc.h"
#include "tests/unit/testutil.h"

#define PID   7
#define EXT   0x7f1000000100ull /* native code in no mapping: no name */
#define ENTRY 0x7f1000000200ull
#define KADDR 0xffffffff81001000ull

/*
 * spin() as /usr/bin/python3.11 compiled it (co_firstlineno 4, its
 * co_linetable's bytes). Its code units' lines (co_lines()): 0 on 4, 1-22
 * on 5, 23-24 on 6, 25-47 on 7 (the while), 48-64 on 8 (the for), 65-76
 * on 9 (the body), 77-99 on 7, 100-101 on 10.
 */
static const char src[] = "import time\n"
			  "\n"
			  "\n"
			  "def spin(budget):\n"
			  "    end = time.thread_time() + budget\n"
			  "    x = 0\n"
			  "    while time.thread_time() < end:\n"
			  "        for i in range(2000):\n"
			  "            x = (x * 31 + i) & 0xFFFF\n"
			  "    return x\n";
/* clang-format off */
static const uint8_t table[] = {
	0x80, 0x00, 0xdd, 0x0a, 0x0e, 0xd4, 0x0a, 0x1a, 0xd1, 0x0a, 0x1c, 0xd4, 0x0a, 0x1c, 0x98,
	0x76, 0xd1, 0x0a, 0x25, 0x80, 0x43, 0xd8, 0x08, 0x09, 0x80, 0x41, 0xdd, 0x0a, 0x0e, 0xd4,
	0x0a, 0x1a, 0xd1, 0x0a, 0x1c, 0xd4, 0x0a, 0x1c, 0x98, 0x73, 0xd2, 0x0a, 0x22, 0xd0, 0x0a,
	0x22, 0xdd, 0x11, 0x16, 0x90, 0x74, 0x91, 0x1b, 0x94, 0x1b, 0xf0, 0x00, 0x01, 0x09, 0x26,
	0xf0, 0x00, 0x01, 0x09, 0x26, 0x88, 0x41, 0xd8, 0x11, 0x12, 0x90, 0x52, 0x91, 0x16, 0x98,
	0x21, 0x91, 0x1a, 0x98, 0x76, 0xd1, 0x10, 0x25, 0x88, 0x41, 0x88, 0x41, 0xf5, 0x05, 0x00,
	0x0b, 0x0f, 0xd4, 0x0a, 0x1a, 0xd1, 0x0a, 0x1c, 0xd4, 0x0a, 0x1c, 0x98, 0x73, 0xd2, 0x0a,
	0x22, 0xd0, 0x0a, 0x22, 0xf0, 0x06, 0x00, 0x0c, 0x0d, 0x80, 0x48,
};
/* clang-format on */

/* code objects: 0 spin (f.py), 1 helper (a file that is gone), 2 big (a
 * file past the limit), 3 <module> of <string>, 4 short (a file shorter
 * than the function) */
enum { C_SPIN, C_HELPER, C_BIG, C_STRING, C_SHORT, NR_CODES };
static const char *const qualnames[NR_CODES] = {"spin", "helper", "big", "<module>", "short"};

struct fx {
	char dir[64];
	struct profile p;
	struct proctree *pt;
	struct session_source *ss;
	struct frametab ft;
	struct ann_profile ap;
};

static void sample(struct fx *x, uint64_t ts, const uint64_t *ips, unsigned nk, unsigned nu)
{
	assert_int_equal(fake_sample(&x->p, ts, 10, PID, PID, 0, ips, nk, nu), 0);
}

static int fx_setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	struct session_opts so = {.no_files = 1};
	struct frametab_source src_;
	char path[NR_CODES][128];
	uint64_t ts = 10;
	int i;

	assert_non_null(x);
	snprintf(x->dir, sizeof(x->dir), "/tmp/zt-test-annotate-py.XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	snprintf(path[C_SPIN], sizeof(path[0]), "%s/f.py", x->dir);
	snprintf(path[C_HELPER], sizeof(path[0]), "%s/gone/h.py", x->dir);
	snprintf(path[C_BIG], sizeof(path[0]), "%s/big.py", x->dir);
	snprintf(path[C_STRING], sizeof(path[0]), "<string>");
	snprintf(path[C_SHORT], sizeof(path[0]), "%s/short.py", x->dir);
	assert_int_equal(write_text(path[C_SPIN], src, 0644), 0);
	assert_int_equal(write_text(path[C_SHORT], "import time\n\n\ndef short(budget):\n"
						   "    end = 1\n    x = 0\n",
				    0644),
			 0);
	/* 5 MiB (sparse) of a file that is otherwise spin's */
	assert_int_equal(write_text(path[C_BIG], src, 0644), 0);
	assert_int_equal(truncate(path[C_BIG], 5 << 20), 0);

	profile_init(&x->p);
	assert_int_equal(fake_task(&x->p, PROF_TASK_COMM, 1, PID, PID, "python3.11"), 0);
	for (i = 0; i < NR_CODES; i++) {
		struct prof_pycode c = {.ts = 1,
					.addr = 0x7f0000001000ull + 0x1000ull * (unsigned)i,
					.pid = PID,
					.minor = 11,
					.firstlineno = 4,
					.qualname = (char *)qualnames[i],
					.filename = path[i],
					.linetable = (uint8_t *)table,
					.linetable_len = sizeof(table)};
		uint32_t idx;

		assert_int_equal(profile_add_pycode(&x->p, &c, &idx), 0);
		assert_int_equal(idx, (uint32_t)i);
	}
	/* spin, leaf: 5 at the body (line 9) */
	for (i = 0; i < 5; i++)
		sample(x, ts++, (const uint64_t[]){prof_py_ip(C_SPIN, 66), ENTRY}, 0, 2);
	/* spin under native code (time.thread_time()): 3 at the while (7) */
	for (i = 0; i < 3; i++)
		sample(x, ts++, (const uint64_t[]){EXT, prof_py_ip(C_SPIN, 30), ENTRY}, 0, 3);
	/* spin under the kernel: 1 at the for (8) */
	sample(x, ts++, (const uint64_t[]){KADDR, EXT, prof_py_ip(C_SPIN, 50), ENTRY}, 1, 3);
	/* spin at an instruction not known: 1 at no line */
	sample(x, ts++, (const uint64_t[]){prof_py_ip(C_SPIN, PROF_PY_NO_LASTI), ENTRY}, 0, 2);
	/* helper called by spin: 2 for helper (line 9), none for spin */
	for (i = 0; i < 2; i++)
		sample(x, ts++,
		       (const uint64_t[]){EXT, prof_py_ip(C_HELPER, 70), prof_py_ip(C_SPIN, 66),
					  ENTRY},
		       0, 4);
	/* no Python frame */
	sample(x, ts++, (const uint64_t[]){EXT, ENTRY}, 0, 2);
	sample(x, ts++, (const uint64_t[]){prof_py_ip(C_BIG, 100), ENTRY}, 0, 2);
	sample(x, ts++, (const uint64_t[]){prof_py_ip(C_STRING, 0)}, 0, 1);
	sample(x, ts++, (const uint64_t[]){prof_py_ip(C_SHORT, 66)}, 0, 1);

	assert_int_equal(proctree_new(&x->p, &x->pt), 0);
	assert_int_equal(session_source_new(&so, &x->ss), 0);
	assert_int_equal(session_source_follow(x->ss, &x->p, x->pt), 0);
	session_source_get(x->ss, &src_);
	frametab_init(&x->ft, x->pt, &src_);
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

static const struct ann_sym *find(const struct fx *x, const char *name)
{
	const struct ann_sym *s = ann_profile_find(&x->ap, name, NULL);

	assert_non_null(s);
	return s;
}

/* Which functions a sample counts for: its leaf's (native code without a
 * name counts for none) and its innermost Python frame's. */
static void test_profile(void **state)
{
	struct fx *x = *state;
	const struct ann_sym *s;
	struct ann_filter f = {(const char *const[]){"f.py"}, 1, 0, 0};
	struct ann_profile ap;

	assert_int_equal(x->ap.total_nr, 16);
	assert_int_equal(x->ap.nr_syms, NR_CODES); /* no native function has a name */
	s = &x->ap.syms[0];
	assert_string_equal(s->name, "spin"); /* most weight first */
	assert_string_equal(s->module, "f.py");
	assert_true(s->python);
	assert_null(s->map);
	assert_int_equal(s->kernel, 0);
	assert_true(s->start == prof_py_ip(C_SPIN, 0));
	/* 5 as the leaf, 3 under native code, 1 under the kernel, 1 unknown;
	 * not the 2 where helper is the innermost */
	assert_int_equal(s->nr, 10);
	assert_int_equal(s->weight, 100);
	assert_int_equal(s->nr_hits, 4); /* units 30, 50, 66 and none */
	s = find(x, "helper");
	assert_int_equal(s->nr, 2);
	assert_string_equal(s->module, "h.py");
	assert_true(s->python);
	/* -d: by the .py file's name */
	assert_int_equal(ann_profile_build(&ap, &(struct rstacks){&x->p, x->pt, &x->ft}, &f), 0);
	assert_int_equal(ap.nr_syms, 1);
	assert_string_equal(ap.syms[0].name, "spin");
	assert_int_equal(ap.syms[0].nr, 10);
	ann_profile_release(&ap);
}

/* The samples of each line, the lines' range and text, hottest first. */
static void test_lines(void **state)
{
	struct fx *x = *state;
	const struct ann_sym *s = find(x, "spin");
	const struct ann_row *rows;
	const uint32_t *hot;
	struct annotation a;
	char err[512], buf[64];
	size_t n, i;

	assert_int_equal(annotation_build_python(&a, &x->ap, s, err, sizeof(err)), 0);
	assert_true(a.python);
	assert_string_equal(a.name, "spin");
	assert_string_equal(a.module, "f.py");
	assert_non_null(strstr(a.path, "/f.py"));
	assert_int_equal(a.nr_insns, 0);
	assert_int_equal(a.nr, 10);
	assert_int_equal(a.weight, 100);
	assert_int_equal(a.total_nr, 16);
	assert_int_equal(a.unplaced_nr, 1);
	assert_int_equal(a.unplaced_weight, 10);
	/* from the def (4) to the return (10): the table's last line, past
	 * the last sample's (9) */
	assert_int_equal(a.nr_lines, 7);
	for (i = 0; i < a.nr_lines; i++)
		assert_int_equal(a.lines[i].line, 4 + i);
	assert_int_equal(a.lines[9 - 4].nr, 5);
	assert_int_equal(a.lines[9 - 4].weight, 50);
	assert_int_equal(a.lines[7 - 4].nr, 3);
	assert_int_equal(a.lines[8 - 4].nr, 1);
	assert_int_equal(a.lines[4 - 4].nr + a.lines[5 - 4].nr + a.lines[6 - 4].nr +
				 a.lines[10 - 4].nr,
			 0);
	assert_true(a.have_source);
	assert_null(a.source_err);
	assert_string_equal(a.lines[9 - 4].text, "            x = (x * 31 + i) & 0xFFFF");
	assert_string_equal(a.lines[4 - 4].text, "def spin(budget):");
	assert_string_equal(a.lines[10 - 4].text, "    return x");
	/* hottest first: the body, the while, the for */
	assert_int_equal(annotation_hottest(&a, &hot, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(a.lines[hot[0]].line, 9);
	assert_int_equal(a.lines[hot[1]].line, 7);
	assert_int_equal(a.lines[hot[2]].line, 8);
	assert_string_equal(annotation_srcline(&a, hot[0], buf, sizeof(buf)), "f.py:9");
	/* the rows: a source row a line, with its index */
	assert_int_equal(annotation_rows(&a, 1, &rows, &n), 0);
	assert_int_equal(n, 7);
	for (i = 0; i < n; i++) {
		assert_int_equal(rows[i].kind, ANN_ROW_SOURCE);
		assert_int_equal(rows[i].insn, i);
		assert_int_equal(rows[i].line, 4 + i);
		assert_ptr_equal(rows[i].text, a.lines[i].text);
	}
	annotation_release(&a);

	/* helper: its 2 samples, not spin's */
	assert_int_equal(annotation_build_python(&a, &x->ap, find(x, "helper"), err, sizeof(err)),
			 0);
	assert_int_equal(a.nr, 2);
	assert_int_equal(a.lines[9 - 4].nr, 2);
	annotation_release(&a);
}

/* Where the text cannot be read: why, and the lines' samples without it. */
static void test_no_text(void **state)
{
	struct fx *x = *state;
	struct annotation a;
	char err[512];

	assert_int_equal(annotation_build_python(&a, &x->ap, find(x, "helper"), err, sizeof(err)),
			 0);
	assert_false(a.have_source);
	assert_non_null(a.source_err);
	assert_non_null(strstr(a.source_err, "cannot read '"));
	assert_non_null(strstr(a.source_err, "/gone/h.py': No such file or directory"));
	assert_int_equal(a.nr_lines, 7);
	assert_null(a.lines[9 - 4].text);
	assert_int_equal(a.lines[9 - 4].nr, 2);
	annotation_release(&a);

	assert_int_equal(annotation_build_python(&a, &x->ap, find(x, "big"), err, sizeof(err)), 0);
	assert_non_null(a.source_err);
	assert_non_null(strstr(a.source_err, "big.py' is larger than 4 MiB"));
	assert_null(a.lines[0].text);
	assert_int_equal(a.lines[10 - 4].nr, 1);
	annotation_release(&a);

	assert_int_equal(annotation_build_python(&a, &x->ap, find(x, "<module>"), err, sizeof(err)),
			 0);
	assert_non_null(a.source_err);
	assert_non_null(strstr(a.source_err, "'<string>' names no file"));
	assert_int_equal(a.lines[0].nr, 1);
	annotation_release(&a);

	/* a file shorter than the function: the lines it has */
	assert_int_equal(annotation_build_python(&a, &x->ap, find(x, "short"), err, sizeof(err)), 0);
	assert_non_null(a.source_err);
	assert_non_null(strstr(a.source_err, "has 6 lines, the function's go to 10"));
	assert_true(a.have_source);
	assert_string_equal(a.lines[4 - 4].text, "def short(budget):");
	assert_string_equal(a.lines[6 - 4].text, "    x = 0");
	assert_null(a.lines[7 - 4].text);
	assert_int_equal(a.lines[9 - 4].nr, 1);
	annotation_release(&a);
}

/* A Python function has no machine code; a native one no Python lines. */
static void test_kinds(void **state)
{
	struct fx *x = *state;
	struct ann_opts o = {NULL, NULL, DISASM_ATT, 1};
	struct ann_sym native = {"work", "prog", NULL, 0x1000, 0, 1, 1, 0, 0, 0};
	struct ann_sym gone = *find(x, "spin");
	struct annotation a;
	char err[512];

	assert_int_equal(annotation_build(&a, &x->ap, find(x, "spin"), &o, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "'spin' is Python code (f.py)"));
	assert_int_equal(annotation_build_python(&a, &x->ap, &native, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a Python function"));
	/* a code object past the recording's */
	gone.start = prof_py_ip(NR_CODES + 5, 0);
	assert_int_equal(annotation_build_python(&a, &x->ap, &gone, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_profile, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_lines, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_no_text, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_kinds, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
