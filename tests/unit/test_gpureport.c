// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of libprof/gpureport.c: kernels summed and ordered by GPU
 * time (launches, mean, max, grid and block), hot lines and device
 * functions with their stall reasons from a hand-made frame table, memory
 * copies by direction, the launch-site samples.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "libprof/gpureport.h"
#include "libprof/rmodel.h"

static uint32_t str(struct prof_gpu *g, const char *s)
{
	uint32_t id;

	assert_int_equal(prof_gpu_intern(g, s, strlen(s), &id), 0);
	return id;
}

static void kernel(struct prof_gpu *g, const char *name, uint32_t corr, uint64_t start, uint64_t d,
		   uint32_t grid, uint32_t block)
{
	struct prof_gpu_kernel k = {.start = start,
				    .end = start + d,
				    .pid = 1,
				    .corr = corr,
				    .grid = {grid, 1, 1},
				    .block = {block, 1, 1}};

	k.name = str(g, name);
	assert_int_equal(prof_gpu_add_kernel(g, &k), 0);
}

static void pcs(struct prof_gpu *g, const char *func, uint64_t pc, uint32_t stall, uint64_t n)
{
	struct prof_gpu_pcs s = {.cubin_crc = 7,
				 .pc_offset = pc,
				 .samples = n,
				 .pid = 1,
				 .context = 1,
				 .stall = stall};

	s.function = str(g, func);
	assert_int_equal(prof_gpu_add_pcs(g, &s), 0);
}

static void stall(struct prof_gpu *g, uint32_t index, const char *name)
{
	struct prof_gpu_stall s = {.pid = 1, .context = 1, .index = index};

	s.name = str(g, name);
	assert_int_equal(prof_gpu_add_stall(g, &s), 0);
}

static void memop(struct prof_gpu *g, uint8_t kind, uint8_t copy_kind, uint64_t bytes, uint64_t d)
{
	struct prof_gpu_memop m = {.start = 1000, .end = 1000 + d, .bytes = bytes, .pid = 1};

	m.kind = kind;
	m.copy_kind = copy_kind;
	assert_int_equal(prof_gpu_add_memop(g, &m), 0);
}

static void launch(struct prof_gpu *g, uint32_t corr, uint64_t ts, uint32_t stack)
{
	struct prof_gpu_launch l = {.ts = ts, .pid = 1, .tid = 2, .corr = corr, .stack = stack};

	l.flags = stack == PROF_GPU_NO_STACK ? 0 : PROF_GPU_L_STACK;
	assert_int_equal(prof_gpu_add_launch(g, &l), 0);
}

struct fixture {
	struct prof_gpu *g;
	struct gpu_view v;
	struct gpu_frametab t;
	struct gpureport r;
	int demangled;
};

/* "_Z" names lose their prefix; others stay. */
static const char *demangle(void *ctx, uint32_t id)
{
	struct fixture *f = ctx;
	const char *name = prof_gpu_str(f->g, id);

	f->demangled++;
	return strncmp(name, "_Z", 2) ? NULL : name + 2;
}

/* A frame of the table's own strings. */
static void frame(struct gpu_frametab *t, const char *func, const char *file, uint32_t line,
		  int inlined)
{
	struct gpu_frame f = {
		.func = gpu_frametab_str(t, func), .line = line, .inlined = (uint8_t)inlined};

	f.file = file ? gpu_frametab_str(t, file) : NULL;
	f.quality = file ? ZT_FRAME_FULL : ZT_FRAME_BASIC;
	assert_int_equal(gpu_frametab_push(t, &f), 0);
}

/* The frames of every bucket of v: by (function, PC). */
static void frames(struct gpu_frametab *t, const struct gpu_view *v)
{
	size_t i;

	assert_int_equal(gpu_frametab_set_pcs(t, v->nr_pcs), 0);
	for (i = 0; i < v->nr_pcs; i++) {
		const char *fn = prof_gpu_str(v->g, v->pcs[i].function);
		uint64_t pc = v->pcs[i].pc;

		t->pcs[i].first = (uint32_t)t->nr_frames;
		if (!strcmp(fn, "_ZkA") && pc == 0x10) {
			frame(t, "dev", "/src/k.cu", 42, 0);
			frame(t, "kA", "/src/k.cu", 10, 0);
		} else if (!strcmp(fn, "_ZkA") && pc == 0x20) {
			frame(t, "inl", "/src/k.cu", 7, 1);
			frame(t, "dev", "/src/k.cu", 43, 0);
			frame(t, "kA", "/src/k.cu", 11, 0);
		} else {
			frame(t, fn, NULL, 0, 0);
		}
		t->pcs[i].n = (uint32_t)(t->nr_frames - t->pcs[i].first);
	}
	t->quality[ZT_FRAME_FULL] = 2;
	t->quality[ZT_FRAME_BASIC] = 1;
	assert_int_equal(gpu_frametab_add_cubin(t, 7, ZT_FRAME_FULL, NULL), 0);
}

static void setup(struct fixture *f)
{
	struct gpureport_opts o = {demangle, f};
	struct prof_gpu *g = prof_gpu_new();

	memset(f, 0, sizeof(*f));
	f->g = g;
	assert_non_null(g);
	/* kA: 100 + 200 + 600 ns, grid 2 twice and 4 once; kB: 1000 ns */
	kernel(g, "_ZkA", 1, 100, 100, 2, 128);
	kernel(g, "_ZkA", 2, 300, 200, 4, 128);
	kernel(g, "_ZkA", 3, 600, 600, 2, 128);
	kernel(g, "kB", 4, 2000, 1000, 8, 64);
	launch(g, 1, 90, 5);
	launch(g, 2, 290, 5);
	launch(g, 3, 590, PROF_GPU_NO_STACK);
	launch(g, 4, 1990, 6);
	stall(g, 0, "smsp__pcsamp_warps_issue_stalled_long_scoreboard");
	stall(g, 1, "smsp__pcsamp_warps_issue_stalled_wait");
	pcs(g, "_ZkA", 0x10, 0, 5);
	pcs(g, "_ZkA", 0x10, 1, 3);
	pcs(g, "_ZkA", 0x20, 0, 4);
	pcs(g, "kB", 0x0, 1, 2);
	pcs(g, "_ZkC", 0x30, 9, 1); /* a kernel without records; stall 9 is not named */
	memop(g, PROF_GPU_MEMCPY, 1, 100, 10);
	memop(g, PROF_GPU_MEMCPY, 2, 1000, 5);
	memop(g, PROF_GPU_MEMCPY, 1, 50, 30);
	memop(g, PROF_GPU_MEMSET, 0, 8, 1);
	assert_int_equal(gpu_view_init(&f->v, g), 0);
	gpu_frametab_init(&f->t);
	frames(&f->t, &f->v);
	assert_int_equal(gpureport_init(&f->r, &f->v, &f->t, &o), 0);
}

static void teardown(struct fixture *f)
{
	gpureport_release(&f->r);
	gpu_frametab_release(&f->t);
	gpu_view_release(&f->v);
	prof_gpu_free(f->g);
}

static void test_kernels(void **state)
{
	struct fixture f;
	const struct gpurep_kernel *k;

	setup(&f);
	assert_true(f.demangled >= 3);
	assert_int_equal(f.r.nr_kernels, 3);
	assert_int_equal(f.r.total_ns, 1900);
	assert_int_equal(f.r.nr_records, 4);
	/* by total GPU time: kB (1000), kA (900), kC (0) */
	k = &f.r.kernels[0];
	assert_string_equal(k->name, "kB");
	assert_int_equal(k->launches, 1);
	assert_int_equal(k->total_ns, 1000);
	assert_int_equal(k->grid[0], 8);
	assert_int_equal(k->block[0], 64);
	k = &f.r.kernels[1];
	assert_string_equal(k->name, "kA"); /* demangled */
	assert_int_equal(k->launches, 3);
	assert_int_equal(k->total_ns, 900);
	assert_int_equal(k->mean_ns, 300);
	assert_int_equal(k->max_ns, 600);
	assert_int_equal(k->grid[0], 2); /* twice of three */
	assert_true(k->grid_varies);
	assert_int_equal(k->block[0], 128);
	assert_false(k->block_varies);
	k = &f.r.kernels[2];
	assert_string_equal(k->name, "kC");
	assert_int_equal(k->launches, 0);
	assert_int_equal(k->samples, 1);
	assert_ptr_equal(gpureport_find(&f.r, "kA"), &f.r.kernels[1]);
	assert_null(gpureport_find(&f.r, "_ZkA"));
	assert_int_equal(f.r.pc_samples, 15);
	assert_int_equal(f.r.pcs_full, 2);
	assert_int_equal(f.r.pcs_basic, 1);
	assert_int_equal(f.r.pcs_none, 0);
	teardown(&f);
}

static void test_lines_and_stalls(void **state)
{
	struct fixture f;
	const struct gpurep_kernel *k;
	const struct gpurep_stall *s;

	setup(&f);
	k = gpureport_find(&f.r, "kA");
	assert_non_null(k);
	assert_int_equal(k->samples, 12);
	/* the kernel's stalls, most first, short names */
	assert_int_equal(k->stalls.n, 2);
	s = gpureport_stalls(&f.r, k->stalls);
	assert_string_equal(s[0].name, "long_scoreboard");
	assert_int_equal(s[0].samples, 9);
	assert_string_equal(s[1].name, "wait");
	assert_int_equal(s[1].samples, 3);
	/* lines: the innermost position, most samples first */
	assert_int_equal(k->nr_lines, 2);
	assert_string_equal(k->lines[0].text, "k.cu:42");
	assert_string_equal(k->lines[0].func, "dev");
	assert_int_equal(k->lines[0].samples, 8);
	assert_int_equal(k->lines[0].stalls.n, 2);
	s = gpureport_stalls(&f.r, k->lines[0].stalls);
	assert_string_equal(s[0].name, "long_scoreboard");
	assert_int_equal(s[0].samples, 5);
	assert_int_equal(s[1].samples, 3);
	assert_string_equal(k->lines[1].text, "k.cu:7");
	assert_string_equal(k->lines[1].func, "inl");
	assert_int_equal(k->lines[1].samples, 4);
	/* functions: by self, then total */
	assert_int_equal(k->nr_funcs, 3);
	assert_string_equal(k->funcs[0].name, "dev");
	assert_int_equal(k->funcs[0].self, 8);
	assert_int_equal(k->funcs[0].total, 12);
	assert_false(k->funcs[0].inlined);
	assert_int_equal(k->funcs[0].stalls.n, 2);
	assert_string_equal(k->funcs[1].name, "inl");
	assert_int_equal(k->funcs[1].self, 4);
	assert_int_equal(k->funcs[1].total, 4);
	assert_true(k->funcs[1].inlined);
	s = gpureport_stalls(&f.r, k->funcs[1].stalls);
	assert_int_equal(k->funcs[1].stalls.n, 1);
	assert_string_equal(s[0].name, "long_scoreboard");
	assert_string_equal(k->funcs[2].name, "kA");
	assert_int_equal(k->funcs[2].self, 0);
	assert_int_equal(k->funcs[2].total, 12);
	assert_int_equal(k->funcs[2].stalls.n, 0);
	/* without a line: the PC in the kernel */
	k = gpureport_find(&f.r, "kB");
	assert_int_equal(k->nr_lines, 1);
	assert_string_equal(k->lines[0].text, "kB+0x0");
	assert_int_equal(k->lines[0].samples, 2);
	s = gpureport_stalls(&f.r, k->lines[0].stalls);
	assert_string_equal(s[0].name, "wait");
	/* an unnamed stall reason */
	k = gpureport_find(&f.r, "kC");
	s = gpureport_stalls(&f.r, k->stalls);
	assert_string_equal(s[0].name, "stall_9");
	teardown(&f);
}

static void test_copies(void **state)
{
	struct fixture f;

	setup(&f);
	assert_int_equal(f.r.nr_copies, 3);
	/* by total time */
	assert_string_equal(f.r.copies[0].name, "HtoD");
	assert_int_equal(f.r.copies[0].count, 2);
	assert_int_equal(f.r.copies[0].bytes, 150);
	assert_int_equal(f.r.copies[0].total_ns, 40);
	assert_string_equal(f.r.copies[1].name, "DtoH");
	assert_int_equal(f.r.copies[1].count, 1);
	assert_int_equal(f.r.copies[1].bytes, 1000);
	assert_int_equal(f.r.copies[1].total_ns, 5);
	assert_string_equal(f.r.copies[2].name, "memset");
	assert_int_equal(f.r.copies[2].kind, PROF_GPU_MEMSET);
	assert_int_equal(f.r.copies[2].bytes, 8);
	teardown(&f);
}

static int no_resolve(void *ctx, struct frametab *ft, uint32_t pid, uint64_t ts, uint64_t addr,
		      int kernel)
{
	return -EINVAL;
}

static void test_launch_samples(void **state)
{
	struct frametab_source src = {.resolve = no_resolve};
	struct rmodel_input in;
	struct frametab ft;
	struct fixture f;

	setup(&f);
	frametab_init(&ft, NULL, &src);
	assert_int_equal(gpureport_launches(&f.r, &f.v, &(struct rstacks){NULL, NULL, &ft}, &in), 0);
	assert_int_equal(in.nr, 4);
	assert_non_null(in.trim);
	/* one sample per kernel execution, at its launch, weighing its time */
	assert_int_equal(in.samples[0].ts, 90);
	assert_int_equal(in.samples[0].weight, 100);
	assert_int_equal(in.samples[0].tid, 2);
	assert_int_equal(in.samples[0].stack, 5);
	assert_int_equal(in.samples[2].weight, 600);
	/* its launch had no stack: kA's captured launch lends its own */
	assert_int_equal(in.samples[2].stack, 5);
	assert_int_equal(f.r.stacks_inferred, 1);
	assert_int_equal(f.r.stacks_captured, 3);
	assert_int_equal(in.samples[3].stack, 6);
	/* one leaf frame per kernel, in the [gpu] module */
	assert_int_equal(in.leaf[0], in.leaf[1]);
	assert_int_equal(in.leaf[0], in.leaf[2]);
	assert_int_not_equal(in.leaf[0], in.leaf[3]);
	assert_int_equal(ft.nr_frames, 2);
	assert_string_equal(frametab_frame(&ft, in.leaf[0])->sym, "kA");
	assert_string_equal(frametab_frame(&ft, in.leaf[3])->sym, "kB");
	assert_string_equal(frametab_frame(&ft, in.leaf[3])->module, "[gpu]");
	frametab_release(&ft);
	teardown(&f);
}

static void test_names_and_empty(void **state)
{
	struct gpureport r;
	struct gpu_view v;

	assert_string_equal(
		gpureport_stall_short("smsp__pcsamp_warps_issue_stalled_long_scoreboard"),
		"long_scoreboard");
	assert_string_equal(gpureport_stall_short("smsp__pcsamp_warps_issue_selected"), "selected");
	assert_string_equal(gpureport_stall_short("other"), "other");
	assert_string_equal(gpureport_copy_name(1), "HtoD");
	assert_string_equal(gpureport_copy_name(8), "DtoD");
	assert_string_equal(gpureport_copy_name(99), "copy");
	assert_int_equal(gpu_view_init(&v, NULL), 0);
	assert_int_equal(gpureport_init(&r, &v, NULL, NULL), 0);
	assert_int_equal(r.nr_kernels, 0);
	assert_int_equal(r.nr_copies, 0);
	gpureport_release(&r);
	gpu_view_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernels),		cmocka_unit_test(test_lines_and_stalls),
		cmocka_unit_test(test_copies),		cmocka_unit_test(test_launch_samples),
		cmocka_unit_test(test_names_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
