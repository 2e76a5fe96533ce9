// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of formats/gpufolded.c: GPU stacks as folded text from a
 * synthetic recording (kernels, launches, PC samples, stall names) and a
 * GPU frame table: continuous PC samples shared among launch stacks by
 * kernel time, serialized ones to their launch, time weights, stall names,
 * the launch stack's CUDA frames left out, and the kinds zt flame reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/flame.h"
#include "formats/gpufolded.h"

#define PID 10

static uint32_t str(struct prof_gpu *g, const char *s)
{
	uint32_t id;

	assert_int_equal(prof_gpu_intern(g, s, strlen(s), &id), 0);
	return id;
}

/* launches: corr 1 and 2 from stack 0, corr 3 from stack 1, corr 4 without a stack */
static void add_kernel(struct prof_gpu *g, const char *name, uint32_t corr, uint64_t start,
		       uint64_t dur)
{
	struct prof_gpu_kernel k = {
		.start = start, .end = start + dur, .pid = PID, .corr = corr, .name = str(g, name)};

	assert_int_equal(prof_gpu_add_kernel(g, &k), 0);
}

static void add_launch(struct prof_gpu *g, uint32_t corr, uint32_t stack)
{
	struct prof_gpu_launch l = {
		.ts = corr, .pid = PID, .tid = PID, .corr = corr, .stack = stack};

	assert_int_equal(prof_gpu_add_launch(g, &l), 0);
}

static void add_pcs(struct prof_gpu *g, const char *fn, uint64_t pc, uint32_t stall,
		    uint64_t samples, uint32_t corr)
{
	struct prof_gpu_pcs s = {.cubin_crc = 0xc0b1,
				 .pc_offset = pc,
				 .samples = samples,
				 .pid = PID,
				 .context = 1,
				 .stall = stall,
				 .corr = corr,
				 .function = str(g, fn)};

	assert_int_equal(prof_gpu_add_pcs(g, &s), 0);
}

/* the fake prefixes: "app;main;launch_S<stack>", or "app;[no launch stack]" */
static int prefix(void *ctx, uint32_t pid, const struct prof_gpu_launch *l, uint64_t ts,
		  const char **out)
{
	static const char *const p[] = {"app;main;launch_S0", "app;main;launch_S1"};
	int *calls = ctx;

	(void)pid;
	(void)ts;
	(*calls)++;
	*out = l && l->stack < 2 ? p[l->stack] : "app;" GPUFOLDED_NO_STACK;
	return 0;
}

static const char *shown(void *ctx, uint32_t id)
{
	const struct prof_gpu *g = ctx;
	const char *s = prof_gpu_str(g, id);

	/* "demangled": kern's mangled name shown plain */
	return !strcmp(s, "_Z4kernPf") ? "kern" : s;
}

static int put(void *ctx, const void *buf, size_t n)
{
	zbuf_put(ctx, buf, n);
	return 0;
}

/* The folded text of the set, NUL-terminated, in b. */
static const char *text_of(struct folded_set *fs, struct zbuf *b)
{
	zbuf_reset(b);
	assert_int_equal(folded_set_write(fs, put, b), 0);
	zbuf_put_u8(b, 0);
	assert_int_equal(b->err, 0);
	return (const char *)b->data;
}

struct fixture {
	struct prof_gpu *g;
	struct gpu_view v;
	struct gpu_frametab t;
};

static const char *push_str(struct gpu_frametab *t, const char *s)
{
	const char *r = s ? gpu_frametab_str(t, s) : NULL;

	assert_true(!s || r);
	return r;
}

static void push(struct gpu_frametab *t, const char *func, const char *file, uint32_t line,
		 int inlined)
{
	struct gpu_frame f = {.func = push_str(t, func),
			      .file = push_str(t, file),
			      .line = line,
			      .inlined = (uint8_t)inlined,
			      .quality = file ? 2 : 1};

	assert_int_equal(gpu_frametab_push(t, &f), 0);
}

/*
 * kern (mangled _Z4kernPf): 100 + 200 ns from stack 0, 100 ns from stack
 * 1; idle: 50 ns from stack 1 and no PC samples; PC samples: kern 0x10
 * (inside dev, inside inl) 10 of long_scoreboard, kern 0x20 5 of
 * selected, ghost (no kernel record) 0x0 4 of an unnamed stall 7.
 */
static void setup(struct fixture *x, int serialized)
{
	struct prof_gpu_stall st1 = {PID, 1, 1, 0}, st2 = {PID, 1, 2, 0};
	size_t i;

	x->g = prof_gpu_new();
	assert_non_null(x->g);
	add_launch(x->g, 1, 0);
	add_launch(x->g, 2, 0);
	add_launch(x->g, 3, 1);
	add_launch(x->g, 4, 1);
	add_kernel(x->g, "_Z4kernPf", 1, 1000, 100);
	add_kernel(x->g, "_Z4kernPf", 2, 2000, 200);
	add_kernel(x->g, "_Z4kernPf", 3, 3000, 100);
	add_kernel(x->g, "idle", 4, 4000, 50);
	st1.name = str(x->g, "smsp__pcsamp_warps_issue_stalled_long_scoreboard");
	st2.name = str(x->g, "smsp__pcsamp_warps_issue_stalled_selected");
	assert_int_equal(prof_gpu_add_stall(x->g, &st1), 0);
	assert_int_equal(prof_gpu_add_stall(x->g, &st2), 0);
	if (serialized) {
		/* tied to launches: 6 + 4 of 0x10 from corr 1 and 3, 5 of 0x20 from 2 */
		add_pcs(x->g, "_Z4kernPf", 0x10, 1, 6, 1);
		add_pcs(x->g, "_Z4kernPf", 0x10, 1, 4, 3);
		add_pcs(x->g, "_Z4kernPf", 0x20, 2, 5, 2);
	} else {
		/* two batches of one bucket */
		add_pcs(x->g, "_Z4kernPf", 0x10, 1, 7, 0);
		add_pcs(x->g, "_Z4kernPf", 0x10, 1, 3, 0);
		add_pcs(x->g, "_Z4kernPf", 0x20, 2, 5, 0);
	}
	add_pcs(x->g, "ghost", 0x0, 7, 4, 0);
	assert_int_equal(gpu_view_init(&x->v, x->g), 0);
	gpu_frametab_init(&x->t);
	assert_int_equal(gpu_frametab_set_pcs(&x->t, x->v.nr_pcs), 0);
	for (i = 0; i < x->v.nr_pcs; i++) {
		const struct gpu_pcsum *p = &x->v.pcs[i];
		const char *fn = prof_gpu_str(x->g, p->function);

		x->t.pcs[i].first = (uint32_t)x->t.nr_frames;
		if (!strcmp(fn, "ghost")) {
			push(&x->t, "ghost", NULL, 0, 0);
		} else if (p->pc == 0x10) {
			push(&x->t, "inl", "/src/a.cu", 5, 1);
			push(&x->t, "dev", "/src/a.cu", 9, 0);
			push(&x->t, "kern(float*)", "/src/a.cu", 30, 0);
		} else {
			push(&x->t, "kern(float*)", "/src/k.cu", 3, 0);
		}
		x->t.pcs[i].n = (uint32_t)(x->t.nr_frames - x->t.pcs[i].first);
	}
}

static void teardown(struct fixture *x)
{
	gpu_frametab_release(&x->t);
	gpu_view_release(&x->v);
	prof_gpu_free(x->g);
}

static const char *build(struct fixture *x, enum gpufolded_weight w, struct zbuf *b)
{
	static int calls;
	struct gpufolded_opts o = {.weight = w,
				   .prefix = prefix,
				   .prefix_ctx = &calls,
				   .kernel_name = shown,
				   .name_ctx = x->g};
	struct folded_set fs;
	const char *s;

	folded_set_init(&fs);
	assert_int_equal(gpufolded_build(&fs, &x->v, &x->t, &o), 0);
	s = text_of(&fs, b);
	folded_set_release(&fs);
	return s;
}

/* Continuous sampling: kern's samples 3:1 by its time from stacks 0 and 1. */
static void test_continuous(void **state)
{
	struct fixture x;
	struct zbuf b;

	(void)state;
	setup(&x, 0);
	zbuf_init(&b);
	/* 10 at 0x10: 7.5 and 2.5, the tie of remainders to the first; 5 at
	 * 0x20: 3.75 and 1.25, floors 3 and 1, the larger remainder one more */
	assert_string_equal(build(&x, GPUFOLDED_SAMPLES, &b),
			    "app;[no launch stack];ghost_[g];stall_7_[gs] 4\n"
			    "app;main;launch_S0;kern_[g];dev_[gd];inl_[gi];a.cu:5_[gl];"
			    "long_scoreboard_[gs] 8\n"
			    "app;main;launch_S0;kern_[g];k.cu:3_[gl];selected_[gs] 4\n"
			    "app;main;launch_S1;kern_[g];dev_[gd];inl_[gi];a.cu:5_[gl];"
			    "long_scoreboard_[gs] 2\n"
			    "app;main;launch_S1;kern_[g];k.cu:3_[gl];selected_[gs] 1\n");
	zbuf_release(&b);
	teardown(&x);
}

/* Serialized sampling: each record to its own launch's stack. */
static void test_serialized(void **state)
{
	struct fixture x;
	struct zbuf b;

	(void)state;
	setup(&x, 1);
	zbuf_init(&b);
	assert_string_equal(build(&x, GPUFOLDED_SAMPLES, &b),
			    "app;[no launch stack];ghost_[g];stall_7_[gs] 4\n"
			    "app;main;launch_S0;kern_[g];dev_[gd];inl_[gi];a.cu:5_[gl];"
			    "long_scoreboard_[gs] 6\n"
			    "app;main;launch_S0;kern_[g];k.cu:3_[gl];selected_[gs] 5\n"
			    "app;main;launch_S1;kern_[g];dev_[gd];inl_[gi];a.cu:5_[gl];"
			    "long_scoreboard_[gs] 4\n");
	zbuf_release(&b);
	teardown(&x);
}

/* Time: stacks end at the kernel, idle (no PC samples) included. */
static void test_time(void **state)
{
	struct fixture x;
	struct zbuf b;

	(void)state;
	setup(&x, 0);
	zbuf_init(&b);
	assert_string_equal(build(&x, GPUFOLDED_TIME, &b), "app;main;launch_S0;kern_[g] 300\n"
							   "app;main;launch_S1;idle_[g] 50\n"
							   "app;main;launch_S1;kern_[g] 100\n");
	zbuf_release(&b);
	teardown(&x);
}

/* Many launch stacks, prime sample counts: the shares always add up. */
static void test_shares_add_up(void **state)
{
	struct prof_gpu *g = prof_gpu_new();
	struct gpu_view v;
	struct folded_set fs;
	struct zbuf b;
	int calls = 0;
	struct gpufolded_opts o = {.prefix = prefix, .prefix_ctx = &calls};
	const char *s;
	uint64_t sum = 0, n0 = 0, n1 = 0;
	char *line, *save = NULL;

	(void)state;
	assert_non_null(g);
	add_launch(g, 1, 0);
	add_launch(g, 2, 1);
	add_kernel(g, "k", 1, 10, 1);
	add_kernel(g, "k", 2, 20, 2);
	for (uint32_t i = 0; i < 13; i++)
		add_pcs(g, "k", 0x10 * i, i % 3, 2 * i + 1, 0);
	assert_int_equal(gpu_view_init(&v, g), 0);
	folded_set_init(&fs);
	zbuf_init(&b);
	/* no frame table: kernels named only */
	assert_int_equal(gpufolded_build(&fs, &v, NULL, &o), 0);
	s = text_of(&fs, &b);
	for (line = strtok_r((char *)s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t n = strtoull(strrchr(line, ' ') + 1, NULL, 10);

		assert_non_null(strstr(line, ";k_[g];stall_"));
		sum += n;
		if (strstr(line, "launch_S0"))
			n0 += n;
		else
			n1 += n;
	}
	assert_int_equal(sum, 169); /* 1 + 3 + ... + 25 */
	/* a third and two thirds, give or take the rounding of 3 stall rows */
	assert_true(n0 >= 169 / 3 - 3 && n0 <= 169 / 3 + 3);
	assert_int_equal(n0 + n1, 169);
	folded_set_release(&fs);
	zbuf_release(&b);
	gpu_view_release(&v);
	prof_gpu_free(g);
}

static void test_stall(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(
		gpufolded_stall("smsp__pcsamp_warps_issue_stalled_long_scoreboard", 1, buf, 64),
		"long_scoreboard");
	assert_string_equal(gpufolded_stall("smsp__pcsamp_warps_issue_stalled_", 1, buf, 64),
			    "smsp__pcsamp_warps_issue_stalled_");
	assert_string_equal(gpufolded_stall("selected", 1, buf, 64), "selected");
	assert_string_equal(gpufolded_stall(NULL, 12, buf, 64), "stall_12");
	assert_string_equal(gpufolded_stall("", 3, buf, 64), "stall_3");
}

/* The launch stack's CUDA frames: CUPTI and zt go, the driver's API stays. */
static void test_trim(void **state)
{
	static const struct frametab_source src = {0};
	static const char *const mods[] = {"libztcupti.so",  "libztcupti.so", "libcupti.so.13",
					   "libcuda.so.1",   "libcuda.so.1",  "app",
					   "libcudart.so.13"};
	struct frametab ft;
	struct zt_frange r[7];
	unsigned i;

	(void)state;
	frametab_init(&ft, NULL, &src);
	for (i = 0; i < 7; i++) {
		struct zt_frame f = {.sym = "f", .module = mods[i]};

		assert_int_equal(frametab_push(&ft, &f), 0);
		r[i] = (struct zt_frange){i, 1, NULL};
	}
	/* zt, zt, cupti, cuda (inner), cuda (cuLaunchKernel), app: 4 go */
	assert_int_equal(gpufolded_trim(&ft, r, 6), 4);
	/* the driver under the runtime: all of it goes */
	r[5] = r[6];
	assert_int_equal(gpufolded_trim(&ft, r, 6), 5);
	/* only the program's own frames: none go */
	assert_int_equal(gpufolded_trim(&ft, r + 5, 1), 0);
	/* a stack of nothing but the library */
	assert_int_equal(gpufolded_trim(&ft, r, 3), 3);
	assert_int_equal(gpufolded_trim(&ft, r, 0), 0);
	/* a frame of another module at the leaf (libc, called by zt's
	 * library) goes with them: libc, zt, cuLaunchKernel, app: 2 go */
	{
		struct zt_frame lf = {.sym = "memcpy", .module = "libc.so.6"};
		struct zt_frange r2[4] = {{(uint32_t)ft.nr_frames, 1, NULL}, {0, 1, NULL},
					  {4, 1, NULL}, {5, 1, NULL}};

		assert_int_equal(frametab_push(&ft, &lf), 0);
		assert_int_equal(gpufolded_trim(&ft, r2, 4), 2);
		/* libc alone at the leaf, no library of zt's: nothing goes */
		assert_int_equal(gpufolded_trim(&ft, r2 + 3, 1), 0);
	}
	frametab_release(&ft);
}

/* What zt flame makes of the suffixes. */
static void test_flame_kinds(void **state)
{
	static const char text[] = "app;main;k_[g];dev_[gd];inl_[gi];a.cu:5_[gl];wait_[gs] 3\n";
	static const struct {
		const char *name;
		unsigned kind;
	} want[] = {{"app", FLAME_PROCESS},	{"main", FLAME_USER},
		    {"k", FLAME_GPU_KERNEL},	{"dev", FLAME_GPU_FUNC},
		    {"inl", FLAME_GPU_INLINED}, {"a.cu:5", FLAME_GPU_LINE},
		    {"wait", FLAME_GPU_STALL}};
	struct flame f;
	uint32_t n = 0;
	size_t i, bad = 0;

	(void)state;
	assert_int_equal(flame_init(&f), 0);
	f.process_first = 1;
	assert_int_equal(flame_parse_folded(&f, text, sizeof(text) - 1, 0, &bad), 0);
	assert_int_equal(bad, 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		n = flame_find_child(&f, n, want[i].name);
		assert_int_not_equal(n, FLAME_NONE);
		assert_int_equal(f.nodes[n].kind, want[i].kind);
	}
	assert_int_equal(f.nodes[n].value[0], 3);
	flame_release(&f);
	/* without process_first the head is a user frame, as before */
	assert_int_equal(flame_init(&f), 0);
	assert_int_equal(flame_parse_folded(&f, text, sizeof(text) - 1, 0, &bad), 0);
	assert_int_equal(f.nodes[flame_find_child(&f, 0, "app")].kind, FLAME_USER);
	flame_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_continuous),  cmocka_unit_test(test_serialized),
		cmocka_unit_test(test_time),	    cmocka_unit_test(test_shares_add_up),
		cmocka_unit_test(test_stall),	    cmocka_unit_test(test_trim),
		cmocka_unit_test(test_flame_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
