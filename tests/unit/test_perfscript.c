/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf script's text from resolved frames: header lines under the -F
 * fields, frame lines (DSO-relative, kernel, JIT and unmapped addresses,
 * inlined frames, missing symbols), one-line samples without call chains.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "formats/perfscript.h"

#define DEF_FIELDS                                                                        \
	(PERFSCRIPT_F_COMM | PERFSCRIPT_F_TID | PERFSCRIPT_F_TIME | PERFSCRIPT_F_PERIOD | \
	 PERFSCRIPT_F_EVENT | PERFSCRIPT_F_IP | PERFSCRIPT_F_SYM | PERFSCRIPT_F_SYMOFF |  \
	 PERFSCRIPT_F_DSO)

static char path_prog[] = "/usr/bin/prog";

/* A table with: 0 kernel do_sys (+0x10); 1 inl_b inlined, 2 inl_a inlined,
 * 3 outer (+0x1a) at one user address; 4 an unresolved libc address. */
struct fixture {
	struct frametab ft;
	struct prof_mmap map;
	struct zt_frange r[4];
	uint64_t ips[4];
	struct zbuf b;
};

static void setup_frames(struct fixture *x)
{
	static const struct frametab_source src = {0};
	struct zt_frame f;

	memset(x, 0, sizeof(*x));
	frametab_init(&x->ft, NULL, &src);
	x->map = (struct prof_mmap){
		.start = 0x555555554000ull, .len = 0x10000, .pgoff = 0x1000, .path = path_prog};
	f = (struct zt_frame){
		.sym = "do_sys", .module = "[kernel.kallsyms]", .offset = 0x10, .kernel = 1};
	assert_int_equal(frametab_push(&x->ft, &f), 0);
	f = (struct zt_frame){.sym = "inl_b", .module = "prog", .inlined = 1};
	assert_int_equal(frametab_push(&x->ft, &f), 0);
	f.sym = "inl_a";
	assert_int_equal(frametab_push(&x->ft, &f), 0);
	f = (struct zt_frame){.sym = "outer", .module = "prog", .offset = 0x1a};
	assert_int_equal(frametab_push(&x->ft, &f), 0);
	f = (struct zt_frame){.sym = NULL, .module = "libc.so.6", .offset = 0x2f0};
	assert_int_equal(frametab_push(&x->ft, &f), 0);
	f = (struct zt_frame){.sym = "Ljava/Foo;::bar", .module = "[JIT] tid 42", .offset = 4};
	assert_int_equal(frametab_push(&x->ft, &f), 0);
	x->ips[0] = 0xffffffff81001010ull;
	x->r[0] = (struct zt_frange){0, 1, NULL};
	x->ips[1] = 0x555555555234ull;
	x->r[1] = (struct zt_frange){1, 3, &x->map};
	x->ips[2] = 0x7f00000012f0ull;
	x->r[2] = (struct zt_frange){4, 1, NULL};
	x->ips[3] = 0x7e0000000004ull;
	x->r[3] = (struct zt_frange){5, 1, NULL};
	zbuf_init(&x->b);
}

static void release_frames(struct fixture *x)
{
	zbuf_release(&x->b);
	frametab_release(&x->ft);
}

/* perfscript_stack() of the fixture's addresses first .. first+n, as a string. */
static const char *stack(struct fixture *x, const struct perfscript_fmt *f, unsigned first,
			 unsigned n)
{
	zbuf_reset(&x->b);
	assert_int_equal(perfscript_stack(&x->b, f, &(struct rstacks){NULL, NULL, &x->ft}, 42, x->ips + first, x->r + first, n),
			 0);
	zbuf_put(&x->b, "", 1);
	assert_int_equal(x->b.err, 0);
	return (const char *)x->b.data;
}

static void test_comm(void **state)
{
	char buf[32];

	assert_string_equal(perfscript_comm("prog", 1, 2, buf, sizeof(buf)), "prog");
	assert_string_equal(perfscript_comm(NULL, 0, 0, buf, sizeof(buf)), "swapper");
	assert_string_equal(perfscript_comm(NULL, 10, 12, buf, sizeof(buf)), ":12");
}

static const char *header(const struct perfscript_fmt *f, const struct prof_sample *s,
			  const char *comm)
{
	static char out[PERFSCRIPT_HEADER_ROOM + 64 + 64];
	size_t n = perfscript_header(f, s, comm, out);

	assert_true(n < sizeof(out));
	out[n] = 0;
	return out;
}

static void test_header(void **state)
{
	struct prof_sample s = {
		.ts = 1234567890123ull, .weight = 1000, .pid = 10, .tid = 11, .cpu = 3};
	struct perfscript_fmt f = {DEF_FIELDS, 1, 0, 0, "cpu-clock"};

	/* frames on their own lines: "%s " */
	assert_string_equal(header(&f, &s, "prog"),
			    "prog    11  1234.567890:       1000 cpu-clock: \n");
	/* one line per sample: "%16s ", the address after a space */
	f.callchain = 0;
	assert_string_equal(header(&f, &s, "prog"),
			    "            prog    11  1234.567890:       1000 cpu-clock:  ");
	/* -F +pid,+cpu: "%5d/%-5d", "[%03d]" */
	f.callchain = 1;
	f.fields |= PERFSCRIPT_F_PID | PERFSCRIPT_F_CPU;
	assert_string_equal(header(&f, &s, "prog"),
			    "prog    10/11    [003]  1234.567890:       1000 cpu-clock: \n");
	/* --ns */
	f.ns = 1;
	f.fields = PERFSCRIPT_F_TIME;
	assert_string_equal(header(&f, &s, "prog"), " 1234.567890123: ");
	/* -F comm,pid,event: no frames */
	f.fields = PERFSCRIPT_F_COMM | PERFSCRIPT_F_PID | PERFSCRIPT_F_EVENT;
	assert_string_equal(header(&f, &s, "a long thread name"),
			    "a long thread name    10 cpu-clock: ");
}

static void test_stack_callchain(void **state)
{
	struct perfscript_fmt f = {DEF_FIELDS, 1, 0, 0, "cpu-clock"};
	struct fixture x;

	setup_frames(&x);
	assert_string_equal(stack(&x, &f, 0, 4),
			    "\tffffffff81001010 do_sys+0x10 ([kernel.kallsyms])\n"
			    "\t            2234 outer+0x1a (/usr/bin/prog)\n"
			    "\t    7f00000012f0 [unknown] ([unknown])\n"
			    "\t    7e0000000004 Ljava/Foo;::bar+0x4 (/tmp/perf-42.map)\n");
	/* --inline: the inlined functions first, at their function's address */
	f.inline_frames = 1;
	assert_string_equal(stack(&x, &f, 1, 1), "\t            2234 inl_b+0x1a (inlined)\n"
						 "\t            2234 inl_a+0x1a (inlined)\n"
						 "\t            2234 outer+0x1a (/usr/bin/prog)\n");
	/* -F ip,sym: no offsets, no DSOs; inlined frames still say so */
	f.fields = PERFSCRIPT_F_IP | PERFSCRIPT_F_SYM;
	assert_string_equal(stack(&x, &f, 1, 1), "\t            2234 inl_b (inlined)\n"
						 "\t            2234 inl_a (inlined)\n"
						 "\t            2234 outer\n");
	/* -F sym,dso */
	f.fields = PERFSCRIPT_F_SYM | PERFSCRIPT_F_DSO;
	f.inline_frames = 0;
	assert_string_equal(stack(&x, &f, 0, 1), "\t do_sys ([kernel.kallsyms])\n");
	release_frames(&x);
}

static void test_stack_one_line(void **state)
{
	struct perfscript_fmt f = {DEF_FIELDS, 0, 1, 0, "cpu-clock"};
	struct fixture x;

	setup_frames(&x);
	/* the sampled address, absolute; its function only, even with --inline */
	assert_string_equal(stack(&x, &f, 1, 3), "    555555555234 outer+0x1a (/usr/bin/prog)");
	assert_string_equal(stack(&x, &f, 0, 0), "               0 [unknown] ([unknown])");
	release_frames(&x);
}

static void test_srcline(void **state)
{
	struct perfscript_fmt f = {DEF_FIELDS | PERFSCRIPT_F_SRCLINE, 1, 0, 0, "cpu-clock"};
	struct fixture x;

	setup_frames(&x);
	x.ft.frames[3].sfile = "/src/prog/outer.c";
	x.ft.frames[3].sline = 42;
	/* under each frame: the file's base name and line, else the module
	 * and the address shown */
	assert_string_equal(stack(&x, &f, 0, 3),
			    "\tffffffff81001010 do_sys+0x10 ([kernel.kallsyms])\n"
			    "  [kernel.kallsyms][ffffffff81001010]\n"
			    "\t            2234 outer+0x1a (/usr/bin/prog)\n"
			    "  outer.c:42\n"
			    "\t    7f00000012f0 [unknown] ([unknown])\n"
			    "  libc.so.6[7f00000012f0]\n");
	/* -G: under the sample's line */
	f.callchain = 0;
	assert_string_equal(stack(&x, &f, 1, 1),
			    "    555555555234 outer+0x1a (/usr/bin/prog)\n  outer.c:42");
	release_frames(&x);
}

static void test_sideband(void **state)
{
	struct prof_task t = {
		.ts = 5, .kind = PROF_TASK_COMM, .pid = 10, .tid = 11, .comm = "worker\x1b"};
	struct prof_mmap m = {.pid = 10,
			      .tid = 10,
			      .start = 0x55f9bded3000ull,
			      .len = 0x1000,
			      .pgoff = 0x1000,
			      .prot = 5,
			      .flags = 2,
			      .path = path_prog};
	char out[256];
	size_t n;

	(void)state;
	n = perfscript_task(&t, out, sizeof(out));

	assert_int_equal(n, strlen(out));
	assert_string_equal(out, "PERF_RECORD_COMM: worker?:10/11\n");
	t.kind = PROF_TASK_EXEC;
	perfscript_task(&t, out, sizeof(out));
	assert_string_equal(out, "PERF_RECORD_COMM exec: worker?:10/11\n");
	t = (struct prof_task){
		.kind = PROF_TASK_FORK, .pid = 10, .tid = 12, .ppid = 10, .ptid = 10};
	perfscript_task(&t, out, sizeof(out));
	assert_string_equal(out, "PERF_RECORD_FORK(10:12):(10:10)\n");
	t.kind = PROF_TASK_EXIT;
	perfscript_task(&t, out, sizeof(out));
	assert_string_equal(out, "PERF_RECORD_EXIT(10:12):(10:10)\n");
	perfscript_mmap(&m, out, sizeof(out));
	assert_string_equal(out, "PERF_RECORD_MMAP2 10/10: [0x55f9bded3000(0x1000) @ 0x1000 00:00 "
				 "0 0]: r-xp /usr/bin/prog\n");
	m.pgoff = 0;
	m.flags = 1;
	m.prot = 7;
	perfscript_mmap(&m, out, sizeof(out));
	assert_string_equal(out, "PERF_RECORD_MMAP2 10/10: [0x55f9bded3000(0x1000) @ 0 00:00 0 "
				 "0]: rwxs /usr/bin/prog\n");
	m = (struct prof_mmap){.pid = ZT_PID_KERNEL,
			       .start = 0xffffffff81000000ull,
			       .len = 0x120bb08,
			       .pgoff = 0xffffffff81000000ull,
			       .prot = 5,
			       .path = "[kernel.kallsyms]"};
	perfscript_mmap(&m, out, sizeof(out));
	assert_string_equal(out, "PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x120bb08) @ "
				 "0xffffffff81000000]: x [kernel.kallsyms]_text\n");
	/* cut at the buffer's end */
	assert_int_equal(perfscript_mmap(&m, out, 10), 9);
}

static int count_frames(void *ctx, const struct perfscript_frame *fr)
{
	int *n = ctx;

	return ++*n == 2 ? 7 : 0;
}

static void test_walk_stops(void **state)
{
	struct fixture x;
	int n = 0;

	setup_frames(&x);
	assert_int_equal(perfscript_walk(&x.ft, 42, x.ips, x.r, 4, 1, count_frames, &n), 7);
	assert_int_equal(n, 2);
	release_frames(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_stack_callchain),
		cmocka_unit_test(test_stack_one_line),
		cmocka_unit_test(test_walk_stops),
		cmocka_unit_test(test_srcline),
		cmocka_unit_test(test_sideband),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
