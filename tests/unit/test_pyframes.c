/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Python frames (issue 36): their names from the recording's code objects
 * (symbolizer/pyframes.h through the resolver: qualified name, the file's
 * base name as the module, the line of the instruction), one address per
 * function for the outputs that group by it, and the glue fold
 * (libprof/pyfold.h): the interpreter's evaluation loop and call machinery
 * between Python frames left out, C extensions kept; through the session
 * (a zt.data file, a pushed body) with and without python_glue.
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
#include <unistd.h>

#include <cmocka.h>

#include "formats/ztdata.h"
#include "libprof/frametab.h"
#include "libprof/gpu.h"
#include "libprof/proctree.h"
#include "libprof/pyfold.h"
#include "libprof/zbuf.h"
#include "session/session.h"
#include "session/symstore.h"
#include "symbolizer/pyframes.h"
#include "symbolizer/resolve.h"
#include "tests/unit/testutil.h"

#define PID  42
#define PID2 43 /* a process without mappings */

/* the interpreter (a static python3.11) and a C extension */
#define INTERP 0x400000ull
#define EXTLIB 0x7f1000000000ull
#define EVAL   (INTERP + 0x1000) /* _PyEval_EvalFrameDefault */
#define GLUE1  (INTERP + 0x2000) /* _PyFunction_Vectorcall */
#define GLUE2  (INTERP + 0x3000) /* PyObject_Call */
#define ENTRY  (INTERP + 0x4000) /* PyEval_EvalCode */
#define MAIN   (INTERP + 0x5000)
#define EXT    (EXTLIB + 0x100)
#define KADDR  0xffffffff81001000ull

/* code objects: 0 Outer.run, 1 helper, 2 unread, 3 "<module>" of <string>, 4 a 3.10 one */
#define PY(code, lasti) (PROF_PY_TAG | (uint64_t)(code) << 28 | (lasti)) /* prof_py_ip() */
#define A		PY(0, 3)
#define A2		PY(0, 6)
#define B		PY(1, 0)

static char tmpdir[] = "/tmp/zt-test-pyframes.XXXXXX";

/* A location table (CPython 3.11, as test_pyproc's): 2 code units at
 * line +0, 1 without a line, 3 at +2, 1 at -3, 1 at +1, 2 at +0. */
/* clang-format off */
static const uint8_t table[] = {
	0x80 | 10 << 3 | 1, 4, 9,
	0x80 | 15 << 3 | 0,
	0x80 | 12 << 3 | 2, 0, 5,
	0x80 | 13 << 3 | 0, 7,
	0x80 | 14 << 3 | 0, 2, 0, 1, 3,
	0x80 | 3 << 3 | 1, 0x12,
};
/* clang-format on */

static const struct prof_pycode codes[] = {
	{.ts = 1,
	 .addr = 0x7f00001000,
	 .pid = PID,
	 .minor = 11,
	 .firstlineno = 10,
	 .qualname = "Outer.run",
	 .filename = "/srv/app/app.py",
	 .linetable = (uint8_t *)table,
	 .linetable_len = sizeof(table)},
	{.ts = 1,
	 .addr = 0x7f00002000,
	 .pid = PID,
	 .minor = 12,
	 .firstlineno = 20,
	 .qualname = "helper",
	 .filename = "/srv/app/lib/util.py",
	 .linetable = (uint8_t *)table,
	 .linetable_len = sizeof(table)},
	{.ts = 1, .addr = 0x7f00003000, .pid = PID, .minor = 11, .flags = PROF_PYCODE_UNREAD},
	{.ts = 1,
	 .addr = 0x7f00004000,
	 .pid = PID,
	 .minor = 11,
	 .firstlineno = 1,
	 .qualname = "<module>",
	 .filename = "<string>",
	 .linetable = (uint8_t *)table,
	 .linetable_len = sizeof(table)},
	{.ts = 1,
	 .addr = 0x7f00005000,
	 .pid = PID,
	 .minor = 10,
	 .firstlineno = 5,
	 .qualname = "old",
	 .filename = "/x.py",
	 .linetable = (uint8_t *)table,
	 .linetable_len = sizeof(table)},
};

static int setup(void **state)
{
	char path[600];

	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/cache", tmpdir);
	setenv("ZT_CACHE_DIR", path, 1);
	unsetenv("DEBUGINFOD_URLS");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	run("rm -rf %s", tmpdir);
	return 0;
}

static void add_map(struct profile *p, uint32_t pid, uint64_t start, const char *path)
{
	struct prof_mmap m = {.ts = 1,
			      .pid = pid,
			      .tid = pid,
			      .start = start,
			      .len = 0x100000,
			      .prot = 5,
			      .path = (char *)path};

	assert_int_equal(profile_add_mmap(p, &m), 0);
}

/* A sample of stack ips (nk kernel addresses, then nu user ones). */
static uint32_t add_sample(struct profile *p, uint32_t pid, uint64_t ts, const uint64_t *ips,
			   unsigned nk, unsigned nu)
{
	struct prof_sample s = {.ts = ts, .weight = 1, .pid = pid, .tid = pid};

	assert_int_equal(profile_intern_stack(p, ips, nk, nu, &s.stack), 0);
	assert_int_equal(profile_add_sample(p, &s), 0);
	return s.stack;
}

/* The stacks of the tests, leaf first. */
static const uint64_t st_main[] = {EXT, A, EVAL, GLUE1, GLUE2, B, EVAL, ENTRY, MAIN};
static const uint64_t st_main_folded[] = {EXT, A, B, ENTRY, MAIN};
/* a C extension called by Outer.run calls back into Python (helper) */
static const uint64_t st_callback[] = {B, EVAL, GLUE1, EXT, GLUE2, A2, EVAL, ENTRY, MAIN};
static const uint64_t st_callback_folded[] = {B, EXT, A2, ENTRY, MAIN};
/* kernel frame, then user frames */
static const uint64_t st_kernel[] = {KADDR, A, EVAL, ENTRY};
static const uint64_t st_kernel_folded[] = {KADDR, A, ENTRY};
static const uint64_t st_native[] = {GLUE1, ENTRY, MAIN};

static void make_profile(struct profile *p)
{
	struct prof_task t = {
		.ts = 1, .kind = PROF_TASK_COMM, .pid = PID, .tid = PID, .comm = "python3"};
	size_t i;

	profile_init(p);
	assert_int_equal(profile_set_meta(p, "time_start", "0"), 0);
	assert_int_equal(profile_add_task(p, &t), 0);
	add_map(p, PID, INTERP, "/usr/bin/python3.11");
	add_map(p, PID, EXTLIB, "/usr/lib/python3/dist-packages/_fast.so");
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		assert_int_equal(profile_add_pycode(p, &codes[i], NULL), 0);
}

static void assert_stack(const struct profile *p, uint32_t id, const uint64_t *want, unsigned nk,
			 unsigned nu)
{
	const struct prof_stack *s = &p->stacks[id];
	unsigned i;

	assert_int_equal(s->nk, nk);
	assert_int_equal(s->nu, nu);
	for (i = 0; i < nk + nu; i++)
		assert_true(profile_stack_ips(p, id)[i] == want[i]);
}

#define N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

/* ---- names ------------------------------------------------------------------- */

static void test_names(void **state)
{
	struct resolver_opts ro = {.no_files = 1};
	struct resolve_frame f, g;
	struct proctree *pt;
	struct resolver *r;
	struct profile p;

	(void)state;
	make_profile(&p);
	assert_int_equal(proctree_new(&p, &pt), 0);
	assert_int_equal(resolver_new_opts(&p, pt, &ro, &r), 0);

	assert_int_equal(resolver_resolve(r, PID, 10, A, 0, &f), 0);
	assert_string_equal(f.sym, "Outer.run");
	assert_string_equal(f.module, "app.py");
	assert_null(f.map);
	assert_int_equal(f.kernel, 0);
	assert_int_equal(f.quality, SYMQ_FULL);
	assert_int_equal(f.offset, 3); /* the instruction */
	assert_int_equal(f.nr_locs, 1);
	assert_string_equal(f.locs[0].name, "Outer.run");
	assert_string_equal(f.locs[0].dir, "/srv/app");
	assert_string_equal(f.locs[0].file, "app.py");
	assert_int_equal(f.locs[0].line, 12);

	/* another instruction of it: another line, the same function */
	assert_int_equal(resolver_resolve(r, PID, 10, A2, 0, &f), 0);
	assert_string_equal(f.sym, "Outer.run");
	assert_int_equal(f.offset, 6);
	assert_int_equal(f.locs[0].line, 9);
	/* an instruction without a line, one past the table, none known */
	assert_int_equal(resolver_resolve(r, PID, 10, prof_py_ip(0, 2), 0, &f), 0);
	assert_string_equal(f.sym, "Outer.run");
	assert_int_equal(f.locs[0].line, 0);
	assert_int_equal(resolver_resolve(r, PID, 10, prof_py_ip(0, 100), 0, &f), 0);
	assert_int_equal(f.locs[0].line, 0);
	assert_int_equal(resolver_resolve(r, PID, 10, prof_py_ip(0, PROF_PY_NO_LASTI), 0, &f), 0);
	assert_string_equal(f.sym, "Outer.run");
	assert_int_equal(f.offset, 0);
	assert_int_equal(f.locs[0].line, 0);

	assert_int_equal(resolver_resolve(r, PID, 10, B, 0, &f), 0);
	assert_string_equal(f.sym, "helper");
	assert_string_equal(f.module, "util.py");
	assert_string_equal(f.locs[0].dir, "/srv/app/lib");
	assert_string_equal(f.locs[0].file, "util.py");
	assert_int_equal(f.locs[0].line, 20);

	/* a file without a directory */
	assert_int_equal(resolver_resolve(r, PID, 10, prof_py_ip(3, 3), 0, &f), 0);
	assert_string_equal(f.sym, "<module>");
	assert_string_equal(f.module, "<string>");
	assert_string_equal(f.locs[0].dir, "");
	assert_string_equal(f.locs[0].file, "<string>");
	assert_int_equal(f.locs[0].line, 3);
	/* a line table of 3.10's format is not read as 3.11's */
	assert_int_equal(resolver_resolve(r, PID, 10, prof_py_ip(4, 0), 0, &f), 0);
	assert_string_equal(f.sym, "old");
	assert_string_equal(f.module, "x.py");
	assert_string_equal(f.locs[0].dir, "/");
	assert_int_equal(f.locs[0].line, 0);

	/* unread, and an index past the table: unnamed, as other frames */
	assert_int_equal(resolver_resolve(r, PID, 10, prof_py_ip(2, 4), 0, &f), 0);
	assert_null(f.sym);
	assert_string_equal(f.module, PYFRAMES_MODULE);
	assert_int_equal(f.quality, SYMQ_NONE);
	assert_int_equal(f.offset, 2);
	assert_int_equal(f.nr_locs, 0);
	assert_int_equal(resolver_resolve(r, PID, 10, prof_py_ip(99, 4), 0, &f), 0);
	assert_null(f.sym);
	assert_string_equal(f.module, PYFRAMES_MODULE);
	assert_int_equal(f.quality, SYMQ_NONE);
	assert_int_equal(f.offset, 99);
	assert_int_equal(resolver_resolve(r, PID, 10, prof_py_ip(UINT32_MAX, 0), 0, &f), 0);
	assert_null(f.sym);

	/* the same address in another process (one without mappings): the
	 * same code object, the same answer */
	assert_int_equal(resolver_resolve(r, PID, 10, A, 0, &f), 0);
	assert_int_equal(resolver_resolve(r, PID2, 99, A, 0, &g), 0);
	assert_ptr_equal(f.sym, g.sym);
	assert_ptr_equal(f.locs, g.locs);
	assert_int_equal(g.locs[0].line, 12);

	resolver_free(r);
	proctree_free(pt);
	profile_release(&p);
}

/* Without memo (zt serve's ingest), the same names. */
static void test_names_no_memo(void **state)
{
	struct resolver_opts ro = {.no_files = 1, .no_memo = 1};
	struct resolve_frame f;
	struct proctree *pt;
	struct resolver *r;
	struct profile p;
	uint64_t q[3];

	(void)state;
	make_profile(&p);
	assert_int_equal(proctree_new(&p, &pt), 0);
	assert_int_equal(resolver_new_opts(&p, pt, &ro, &r), 0);
	assert_int_equal(resolver_resolve(r, PID, 10, B, 0, &f), 0);
	assert_string_equal(f.sym, "helper");
	assert_int_equal(f.locs[0].line, 20);
	assert_int_equal(resolver_resolve(r, PID, 10, A, 0, &f), 0);
	assert_string_equal(f.sym, "Outer.run");
	assert_string_equal(f.locs[0].file, "app.py");
	assert_int_equal(f.locs[0].line, 12);
	resolver_quality_counts(r, q);
	assert_int_equal(q[SYMQ_FULL], 2);
	resolver_free(r);
	proctree_free(pt);
	profile_release(&p);
}

/* The frame table resolves a Python address once, whichever processes
 * sample it (no mapping tells them apart), and gives the frames of one
 * function one address. */
static void test_frametab(void **state)
{
	struct session_opts o = {.no_files = 1};
	struct session_source *ss;
	struct frametab_source src;
	struct zt_frange r[3];
	const uint64_t ips[] = {A, A2, prof_py_ip(0, PROF_PY_NO_LASTI)};
	const uint64_t ips2[] = {A, EXT, prof_py_ip(2, 7)};
	const struct zt_frame *f;
	struct proctree *pt;
	struct frametab ft;
	struct profile p;
	char name[64];

	(void)state;
	make_profile(&p);
	assert_int_equal(proctree_new(&p, &pt), 0);
	assert_int_equal(session_source_new(&o, &ss), 0);
	assert_int_equal(session_source_follow(ss, &p, pt), 0);
	session_source_get(ss, &src);
	frametab_init(&ft, pt, &src);
	assert_int_equal(frametab_resolve(&ft, PID, 10, proctree_epoch(pt, PID, 10), ips, 0, 3, r),
			 0);
	assert_int_equal(ft.nr_addrs, 3);
	f = frametab_frame(&ft, r[0].first + r[0].n - 1);
	assert_string_equal(f->sym, "Outer.run");
	assert_true(f->addr == prof_py_ip(0, 0));
	assert_true(frametab_frame(&ft, r[1].first + r[1].n - 1)->addr == f->addr);
	assert_true(frametab_frame(&ft, r[2].first + r[2].n - 1)->addr == f->addr);
	assert_null(r[0].map);
	assert_int_equal(
		frametab_resolve(&ft, PID2, 10, proctree_epoch(pt, PID2, 10), ips2, 0, 3, r), 0);
	assert_int_equal(ft.nr_addrs, 5); /* A again is not asked */
	f = frametab_frame(&ft, r[2].first + r[2].n - 1);
	assert_null(f->sym);
	assert_string_equal(zt_frame_name(f, name, sizeof(name)), "[python+0x2]");
	/* an unnamed code object is one entry too, whichever its instruction */
	assert_true(f->addr == prof_py_ip(2, 0));
	frametab_release(&ft);
	session_source_free(ss);
	proctree_free(pt);
	profile_release(&p);
}

/* ---- the fold ------------------------------------------------------------------ */

static void test_fold(void **state)
{
	struct pyfold_stats st;
	struct proctree *pt;
	struct profile p;
	uint32_t s_main, s_cb, s_k, s_nat, s_other;
	struct prof_gpu_launch l = {.ts = 20, .pid = PID, .tid = PID};

	(void)state;
	make_profile(&p);
	s_main = add_sample(&p, PID, 10, st_main, 0, N(st_main));
	add_sample(&p, PID, 11, st_main, 0, N(st_main));
	s_cb = add_sample(&p, PID, 12, st_callback, 0, N(st_callback));
	s_k = add_sample(&p, PID, 13, st_kernel, 1, N(st_kernel) - 1);
	s_nat = add_sample(&p, PID, 14, st_native, 0, N(st_native));
	/* the same stack where no mapping tells the interpreter: kept whole */
	s_other = add_sample(&p, PID2, 15, st_main, 0, N(st_main));
	assert_int_equal(s_other, s_main);
	/* a GPU launch's stack */
	p.gpu = prof_gpu_new();
	assert_non_null(p.gpu);
	l.stack = s_main;
	assert_int_equal(prof_gpu_add_launch(p.gpu, &l), 0);
	l.stack = PROF_GPU_NO_STACK;
	assert_int_equal(prof_gpu_add_launch(p.gpu, &l), 0);
	assert_int_equal(proctree_new(&p, &pt), 0);

	assert_null(profile_get_meta(&p, PYFOLD_META));
	assert_int_equal(pyfold_profile(&p, pt, &st), 0);
	/* main (one fold for both samples), callback, kernel */
	assert_int_equal(st.stacks, 3);
	assert_int_equal(st.frames, 4 + 4 + 1);
	assert_int_not_equal(p.samples[0].stack, s_main);
	assert_stack(&p, p.samples[0].stack, st_main_folded, 0, N(st_main_folded));
	assert_int_equal(p.samples[1].stack, p.samples[0].stack);
	assert_stack(&p, p.samples[2].stack, st_callback_folded, 0, N(st_callback_folded));
	assert_int_not_equal(p.samples[2].stack, s_cb);
	assert_stack(&p, p.samples[3].stack, st_kernel_folded, 1, N(st_kernel_folded) - 1);
	assert_int_not_equal(p.samples[3].stack, s_k);
	assert_int_equal(p.samples[4].stack, s_nat); /* no Python: untouched */
	assert_int_equal(p.samples[5].stack, s_main);
	assert_stack(&p, p.samples[5].stack, st_main, 0, N(st_main));
	assert_int_equal(p.gpu->launches[0].stack, p.samples[0].stack);
	assert_int_equal(p.gpu->launches[1].stack, PROF_GPU_NO_STACK);
	assert_string_equal(profile_get_meta(&p, PYFOLD_META), PYFOLD_META_FOLDED);

	/* a profile folded once is not folded again (its entry frame would
	 * read as an evaluation loop) */
	assert_int_equal(pyfold_profile(&p, pt, &st), 0);
	assert_int_equal(st.stacks, 0);
	assert_stack(&p, p.samples[0].stack, st_main_folded, 0, N(st_main_folded));

	proctree_free(pt);
	profile_release(&p);
}

/* The fold of single stacks: what stays around Python runs. */
static void test_fold_user(void **state)
{
	/* the eval loop of the last run, then libc's start: kept as the entry */
	static const uint64_t in1[] = {A, EVAL, EXT, GLUE1};
	static const uint64_t want1[] = {A, EXT, GLUE1};
	/* an eval loop in no mapping: the rest as it is */
	static const uint64_t in2[] = {A, 0x1234, GLUE1, B, EVAL, MAIN};
	static const uint64_t want2[] = {A, 0x1234, GLUE1, B, MAIN};
	/* Python frames last (a stack cut short), native frames only */
	static const uint64_t in3[] = {EXT, GLUE1, A, B};
	static const uint64_t in4[] = {EVAL, GLUE1, MAIN};
	/* two eval loops between runs: the second is interpreter glue */
	static const uint64_t in5[] = {A, EVAL, EVAL, B, EVAL};
	static const uint64_t want5[] = {A, B};
	struct proctree *pt;
	struct profile p;
	uint64_t out[16];
	unsigned n;

	(void)state;
	make_profile(&p);
	assert_int_equal(proctree_new(&p, &pt), 0);
	n = pyfold_user(pt, PID, 10, in1, N(in1), out);
	assert_int_equal(n, N(want1));
	assert_memory_equal(out, want1, sizeof(want1));
	n = pyfold_user(pt, PID, 10, in2, N(in2), out);
	assert_int_equal(n, N(want2));
	assert_memory_equal(out, want2, sizeof(want2));
	n = pyfold_user(pt, PID, 10, in3, N(in3), out);
	assert_int_equal(n, N(in3));
	assert_memory_equal(out, in3, sizeof(in3));
	n = pyfold_user(pt, PID, 10, in4, N(in4), out);
	assert_int_equal(n, N(in4));
	assert_memory_equal(out, in4, sizeof(in4));
	n = pyfold_user(pt, PID, 10, in5, N(in5), out);
	assert_int_equal(n, N(want5));
	assert_memory_equal(out, want5, sizeof(want5));
	assert_int_equal(pyfold_user(pt, PID, 10, in5, 0, out), 0);
	proctree_free(pt);
	profile_release(&p);
}

/* ---- through the session ------------------------------------------------------------- */

/* p written as a zt.data file at path. */
static void write_zt(const struct profile *p, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	struct ztdata_writer *w;
	size_t i;

	assert_true(fd >= 0);
	w = ztdata_writer_new(fd);
	assert_non_null(w);
	for (i = 0; i < p->nr_meta; i++)
		assert_int_equal(ztdata_write_meta(w, p->meta[i].key, p->meta[i].value), 0);
	for (i = 0; i < p->nr_tasks; i++)
		assert_int_equal(ztdata_write_task(w, &p->tasks[i]), 0);
	for (i = 0; i < p->nr_mmaps; i++)
		assert_int_equal(ztdata_write_mmap(w, &p->mmaps[i]), 0);
	for (i = 0; i < p->nr_pycodes; i++)
		assert_int_equal(ztdata_write_pycode(w, &p->pycodes[i], NULL), 0);
	for (i = 0; i < p->nr_samples; i++) {
		const struct prof_sample *s = &p->samples[i];
		const struct prof_stack *st = &p->stacks[s->stack];

		assert_int_equal(ztdata_write_sample(w, s->ts, s->weight, s->pid, s->tid, s->cpu,
						     profile_stack_ips(p, s->stack), st->nk,
						     st->nu),
				 0);
	}
	assert_int_equal(ztdata_writer_finish(w), 0);
	ztdata_writer_free(w);
	assert_int_equal(close(fd), 0);
}

/* The recording of the session tests: sample 0 st_main at 10, sample 1
 * st_callback at 11, sample 2 [A2, EVAL, ENTRY] at 12. */
static void make_recording(char *path, size_t n)
{
	static const uint64_t st3[] = {A2, EVAL, ENTRY};
	struct profile p;

	make_profile(&p);
	add_sample(&p, PID, 10, st_main, 0, N(st_main));
	add_sample(&p, PID, 11, st_callback, 0, N(st_callback));
	add_sample(&p, PID, 12, st3, 0, N(st3));
	snprintf(path, n, "%s/py.zt", tmpdir);
	write_zt(&p, path);
	profile_release(&p);
}

/* Sample i's user frames (functions, not inlined ones) through the
 * session's frame table: names "a b c" into buf, their frames into fr. */
static unsigned sample_frames(struct session *s, size_t i, char *buf, size_t n,
			      const struct zt_frame **fr)
{
	const struct prof_sample *smp = &s->prof.samples[i];
	const struct prof_stack *st = &s->prof.stacks[smp->stack];
	struct zt_frange r[2 * ZT_MAX_FRAMES];
	char name[256];
	unsigned k;

	assert_int_equal(frametab_resolve(&s->ft, smp->pid, smp->ts,
					  proctree_epoch(s->pt, smp->pid, smp->ts),
					  profile_stack_ips(&s->prof, smp->stack), st->nk,
					  st->nk + st->nu, r),
			 0);
	buf[0] = 0;
	for (k = 0; k < (unsigned)st->nk + st->nu; k++) {
		const struct zt_frame *f = frametab_frame(&s->ft, r[k].first + r[k].n - 1);

		fr[k] = f;
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", k ? " " : "",
			 zt_frame_name(f, name, sizeof(name)));
	}
	return k;
}

static void test_session(void **state)
{
	struct session_opts o = {.no_files = 1};
	const struct zt_frame *fr[2 * ZT_MAX_FRAMES], *a;
	char path[700], names[1024];
	struct session s;
	unsigned n;

	(void)state;
	make_recording(path, sizeof(path));

	/* by default: folded */
	assert_int_equal(session_open(&s, path, &o), 0);
	assert_int_equal(s.prof.nr_samples, 3);
	n = sample_frames(&s, 0, names, sizeof(names), fr);
	assert_string_equal(names, "[_fast.so+0x100] Outer.run helper [python3.11+0x4000] "
				   "[python3.11+0x5000]");
	assert_int_equal(n, 5);
	a = fr[1];
	assert_string_equal(a->module, "app.py");
	assert_string_equal(a->dir, "/srv/app");
	assert_string_equal(a->file, "app.py");
	assert_int_equal(a->line, 12);
	assert_string_equal(a->sfile, "app.py");
	assert_int_equal(a->sline, 12);
	assert_int_equal(a->offset, 3);
	assert_int_equal(a->quality, ZT_FRAME_FULL);
	assert_null(a->map);
	/* a function is one address, whichever its instruction */
	assert_true(a->addr == prof_py_ip(0, 0));
	assert_int_equal(fr[2]->line, 20);
	assert_true(fr[2]->addr == prof_py_ip(1, 0));
	n = sample_frames(&s, 1, names, sizeof(names), fr);
	assert_string_equal(names, "helper [_fast.so+0x100] Outer.run [python3.11+0x4000] "
				   "[python3.11+0x5000]");
	assert_int_equal(fr[2]->line, 9);
	assert_true(fr[2]->addr == a->addr);
	n = sample_frames(&s, 2, names, sizeof(names), fr);
	assert_string_equal(names, "Outer.run [python3.11+0x4000]");
	assert_string_equal(profile_get_meta(&s.prof, PYFOLD_META), PYFOLD_META_FOLDED);
	session_close(&s);

	/* --python-glue: as recorded */
	o.python_glue = 1;
	assert_int_equal(session_open(&s, path, &o), 0);
	n = sample_frames(&s, 0, names, sizeof(names), fr);
	assert_int_equal(n, N(st_main));
	assert_string_equal(names, "[_fast.so+0x100] Outer.run [python3.11+0x1000] "
				   "[python3.11+0x2000] [python3.11+0x3000] helper "
				   "[python3.11+0x1000] [python3.11+0x4000] [python3.11+0x5000]");
	n = sample_frames(&s, 1, names, sizeof(names), fr);
	assert_int_equal(n, N(st_callback));
	assert_null(profile_get_meta(&s.prof, PYFOLD_META));
	session_close(&s);
}

/* zt serve's ingest: a pushed body, folded and named without files. */
static void test_pushed(void **state)
{
	const struct zt_frame *fr[2 * ZT_MAX_FRAMES];
	char path[700], names[1024], msg[256];
	struct session s;
	struct zbuf body;
	FILE *f;
	long len;

	(void)state;
	make_recording(path, sizeof(path));
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	zbuf_init(&body);
	assert_int_equal(zbuf_reserve(&body, (size_t)len), 0);
	assert_int_equal(fread(body.data, 1, (size_t)len, f), (size_t)len);
	body.len = (size_t)len;
	fclose(f);

	assert_int_equal(session_open_pushed(&s, body.data, body.len, NULL, msg, sizeof(msg)), 0);
	sample_frames(&s, 0, names, sizeof(names), fr);
	assert_string_equal(names, "[_fast.so+0x100] Outer.run helper [python3.11+0x4000] "
				   "[python3.11+0x5000]");
	assert_int_equal(fr[1]->line, 12);
	assert_string_equal(fr[2]->module, "util.py");
	session_close(&s);
	zbuf_release(&body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),	  cmocka_unit_test(test_names_no_memo),
		cmocka_unit_test(test_frametab),  cmocka_unit_test(test_fold),
		cmocka_unit_test(test_fold_user), cmocka_unit_test(test_session),
		cmocka_unit_test(test_pushed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
