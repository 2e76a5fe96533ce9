/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cubin: real cubins built by nvcc at build time (mk/gputest.mk, under
 * ZT_TEST_CUBINS; those tests skip when CUDA is absent) resolved to the
 * lines their sources mark with "L:<name>" (tests/gpu/symtest.cu,
 * symtest.cuh, rdc_a.cu, rdc_b.cu): kernels, a __noinline__ callee, header
 * functions inlined two deep, templates, C++ names, no -lineinfo, -G, a
 * device-linked cubin, the multi-kernel relocation trap; the saved image
 * answering as the cubin; damaged cubins and images refused, never a crash
 * (also on the fuzz seeds, committed, so those run without CUDA).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symbolizer/cubin.h"

#ifndef ZT_TEST_CUBINS
#define ZT_TEST_CUBINS ""
#endif
#ifndef ZT_TEST_SRCDIR
#define ZT_TEST_SRCDIR "tests/gpu"
#endif
#define SEEDS "tests/fuzz/corpus/cubin"

#define MAXF 16

static const char *archs[] = {"sm75", "sm90", "sm100"};

static void *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)n)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		*len = (size_t)n;
	return buf;
}

/* The fixture cubin name (under ZT_TEST_CUBINS), opened; skips the test
 * when the fixtures were not built. */
static struct cubin *fixture(const char *name)
{
	char path[4096];
	struct cubin *c = NULL;
	size_t len;
	void *data;

	if (!*ZT_TEST_CUBINS) {
		print_message("skipped: built without CUDA (no nvcc fixtures)\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/%s.cubin", ZT_TEST_CUBINS, name);
	data = slurp(path, &len);
	if (!data) {
		print_message("skipped: no %s\n", path);
		skip();
	}
	assert_int_equal(cubin_open(data, len, &c), 0);
	free(data);
	return c;
}

/* The line of the source marked "L:<mark>" (the marker ends the line). */
static uint32_t mark(const char *file, const char *m)
{
	char path[4096], line[512], want[64];
	uint32_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", ZT_TEST_SRCDIR, file);
	snprintf(want, sizeof(want), "// L:%s\n", m);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "// L:");

		n++;
		if (p && !strcmp(p, want)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("no mark %s in %s", m, path);
	return 0;
}

struct fsize {
	const char *name;
	uint64_t size;
	int kernel;
};

static int find_size(void *ctx, const char *name, uint64_t size, int kernel)
{
	struct fsize *f = ctx;

	if (strcmp(name, f->name))
		return 0;
	f->size = size;
	f->kernel = kernel;
	return 1;
}

static uint64_t func_size(const struct cubin *c, const char *name, int *kernel)
{
	struct fsize f = {.name = name};

	assert_int_equal(cubin_functions(c, find_size, &f), 1);
	if (kernel)
		*kernel = f.kernel;
	return f.size;
}

static int base_is(const char *path, const char *base)
{
	const char *s;

	if (!path)
		return 0;
	s = strrchr(path, '/');
	return !strcmp(s ? s + 1 : path, base);
}

/* A PC of func whose frames are exactly want[0 .. n) (func, file base
 * name or NULL, line, inlined); returns it, or -1 when none is. */
struct want {
	const char *func, *file;
	uint32_t line;
	int inlined;
};

static int64_t find_frames(const struct cubin *c, const char *func, const struct want *w, int nw)
{
	uint64_t size = func_size(c, func, NULL), pc;

	for (pc = 0; pc < size; pc += 16) {
		struct cubin_frame f[MAXF];
		int n = cubin_resolve(c, func, pc, f, MAXF), i;

		assert_true(n >= 1);
		if (n != nw)
			continue;
		for (i = 0; i < n; i++)
			if (strcmp(f[i].func, w[i].func) || f[i].line != w[i].line ||
			    f[i].inlined != w[i].inlined ||
			    (w[i].file ? !base_is(f[i].file, w[i].file) : f[i].file != NULL))
				break;
		if (i == n)
			return (int64_t)pc;
	}
	return -1;
}

/* Every innermost line of func's PCs outside inlined code and outside
 * callees lies in [lo, hi] of file, and at least one PC has line want. */
static void lines_within(const struct cubin *c, const char *func, const char *file, uint32_t lo,
			 uint32_t hi, uint32_t want)
{
	uint64_t size = func_size(c, func, NULL), pc;
	int seen = 0;

	for (pc = 0; pc < size; pc += 16) {
		struct cubin_frame f[MAXF];
		int n = cubin_resolve(c, func, pc, f, MAXF);

		assert_true(n >= 1);
		if (n != 1)
			continue;
		assert_string_equal(f[0].func, func);
		assert_true(base_is(f[0].file, file));
		if (f[0].line < lo || f[0].line > hi)
			fail_msg("%s+0x%llx: line %u outside %u-%u", func, (unsigned long long)pc,
				 f[0].line, lo, hi);
		seen |= f[0].line == want;
	}
	assert_true(seen);
}

static void test_kernels_lines(void **state)
{
	for (size_t a = 0; a < sizeof(archs) / sizeof(archs[0]); a++) {
		char name[64];
		struct cubin *c;
		int kernel;

		snprintf(name, sizeof(name), "symtest_%s", archs[a]);
		c = fixture(name);
		assert_true(cubin_has_lines(c));
		/* every kernel's sequence starts at address 0: only the relocation
		 * tells them apart, so each kernel's PCs keep to its own lines */
		lines_within(c, "st_first", "symtest.cu", mark("symtest.cu", "first") - 5,
			     mark("symtest.cu", "first") + 1, mark("symtest.cu", "first"));
		lines_within(c, "_Z7st_tmplIfEvPT_i", "symtest.cu", mark("symtest.cu", "tmpl") - 5,
			     mark("symtest.cu", "tmpl") + 1, mark("symtest.cu", "tmpl"));
		lines_within(c, "_Z7st_tmplIiEvPT_i", "symtest.cu", mark("symtest.cu", "tmpl") - 5,
			     mark("symtest.cu", "tmpl") + 1, mark("symtest.cu", "tmpl"));
		func_size(c, "st_first", &kernel);
		assert_true(kernel);
		func_size(c, "$st_second$_Z9st_calleefi", &kernel);
		assert_false(kernel);
		/* outside a function or past it: nothing */
		{
			struct cubin_frame f[MAXF];

			assert_int_equal(cubin_resolve(c, "no_such_kernel", 0, f, MAXF), 0);
			assert_int_equal(cubin_resolve(c, "st_first",
						       func_size(c, "st_first", NULL), f, MAXF),
					 0);
			assert_int_equal(cubin_resolve(c, "st_first", 0, f, 0), 0);
		}
		cubin_free(c);
	}
}

/* the __noinline__ callee: a frame of its own under its kernel */
static void test_noinline_callee(void **state)
{
	for (size_t a = 0; a < sizeof(archs) / sizeof(archs[0]); a++) {
		char name[64];
		struct cubin *c;
		const struct want w[] = {
			{"_Z9st_calleefi", "symtest.cu", mark("symtest.cu", "callee"), 0},
			{"st_second", NULL, 0, 0},
		};
		const struct want call[] = {
			{"st_second", "symtest.cu", mark("symtest.cu", "second_call"), 0},
		};
		struct cubin_frame f[MAXF];
		int64_t pc;

		snprintf(name, sizeof(name), "symtest_%s", archs[a]);
		c = fixture(name);
		pc = find_frames(c, "st_second", w, 2);
		assert_true(pc > 0);
		assert_true(find_frames(c, "st_second", call, 1) >= 0);
		/* max 1: the innermost frame only */
		assert_int_equal(cubin_resolve(c, "st_second", (uint64_t)pc, f, 1), 1);
		assert_string_equal(f[0].func, "_Z9st_calleefi");
		cubin_free(c);
	}
}

/* the header functions: inline frames with the .cuh file, two deep */
static void test_header_inline(void **state)
{
	for (size_t a = 0; a < sizeof(archs) / sizeof(archs[0]); a++) {
		uint32_t call = mark("symtest.cu", "inl_call"), mix = mark("symtest.cuh", "mix");
		const struct want two[] = {
			{"_Z5st_sqf", "symtest.cuh", mark("symtest.cuh", "sq"), 1},
			{"_Z6st_mixff", "symtest.cuh", mix, 1},
			{"st_inl", "symtest.cu", call, 0},
		};
		const struct want one[] = {
			{"_Z6st_mixff", "symtest.cuh", mix, 1},
			{"st_inl", "symtest.cu", call, 0},
		};
		struct cubin_frame f[MAXF];
		char name[64];
		struct cubin *c;
		int64_t pc;

		snprintf(name, sizeof(name), "symtest_%s", archs[a]);
		c = fixture(name);
		pc = find_frames(c, "st_inl", two, 3);
		assert_true(pc >= 0);
		assert_true(find_frames(c, "st_inl", one, 2) >= 0);
		/* the directory of the unit's table */
		assert_int_equal(cubin_resolve(c, "st_inl", (uint64_t)pc, f, MAXF), 3);
		assert_non_null(f[0].dir);
		assert_non_null(strstr(f[0].dir, "tests/gpu"));
		/* a C++ member function inlined into a kernel in a namespace */
		{
			const struct want w[] = {
				{"_ZN2st3Box5twiceEf", "symtest.cu", mark("symtest.cu", "twice"),
				 1},
				{"_ZN2st9ns_kernelEPfi", "symtest.cu",
				 mark("symtest.cu", "ns_call"), 0},
			};

			assert_true(find_frames(c, "_ZN2st9ns_kernelEPfi", w, 2) >= 0);
		}
		cubin_free(c);
	}
}

static void test_no_lineinfo(void **state)
{
	struct cubin *c = fixture("symtest_noline");
	const struct want w[] = {{"_Z9st_calleefi", NULL, 0, 0}, {"st_second", NULL, 0, 0}};
	const struct want k[] = {{"st_first", NULL, 0, 0}};

	assert_false(cubin_has_lines(c));
	assert_true(find_frames(c, "st_second", w, 2) > 0);
	assert_int_equal(find_frames(c, "st_first", k, 1), 0);
	cubin_free(c);
}

static void damage(const uint8_t *data, size_t len);
static void round_trip(const struct cubin *c);
static void damage_image(const struct cubin *c);

/* -G: callees in sections of their own (and CUPTI takes their names) */
static void test_device_debug(void **state)
{
	struct cubin *c = fixture("symtest_g");
	const struct want callee[] = {
		{"_Z9st_calleefi", "symtest.cu", mark("symtest.cu", "callee"), 0}};
	int kernel;

	assert_true(cubin_has_lines(c));
	lines_within(c, "st_first", "symtest.cu", mark("symtest.cu", "first") - 5,
		     mark("symtest.cu", "first") + 1, mark("symtest.cu", "first"));
	assert_true(find_frames(c, "_Z9st_calleefi", callee, 1) >= 0);
	func_size(c, "_Z9st_calleefi", &kernel);
	assert_false(kernel);
	round_trip(c);
	cubin_free(c);
}

/* -rdc=true + nvlink: a unit per translation unit, callees in sections of
 * their own, an orphan sequence that must not touch the first kernel */
static void test_device_linked(void **state)
{
	for (size_t a = 0; a < sizeof(archs) / sizeof(archs[0]); a++) {
		uint32_t scale = mark("rdc_b.cu", "rdc_scale");
		const struct want inl_b[] = {
			{"_Z9rdc_scalefi", "rdc_b.cu", scale, 1},
			{"rdc_kernel_b", "rdc_b.cu", mark("rdc_b.cu", "rdc_b"), 0},
		};
		const struct want inl_a[] = {
			{"_Z6st_mixff", "symtest.cuh", mark("symtest.cuh", "mix"), 1},
			{"rdc_kernel_a", "rdc_a.cu", mark("rdc_a.cu", "rdc_a_call"), 0},
		};
		const struct want own[] = {{"_Z9rdc_scalefi", "rdc_b.cu", scale, 0}};
		char name[64];
		struct cubin *c;
		int kernel;

		snprintf(name, sizeof(name), "rdc_%s", archs[a]);
		c = fixture(name);
		assert_true(cubin_has_lines(c));
		/* the second unit's inline names: its string base (or, where the
		 * header has 0, the end of the first unit's strings) */
		assert_true(find_frames(c, "rdc_kernel_b", inl_b, 2) >= 0);
		assert_true(find_frames(c, "rdc_kernel_a", inl_a, 2) >= 0);
		/* the callee in a section of its own, not a kernel */
		assert_true(find_frames(c, "_Z9rdc_scalefi", own, 1) >= 0);
		func_size(c, "_Z9rdc_scalefi", &kernel);
		assert_false(kernel);
		/* the first kernel keeps to rdc_a.cu (the orphan sequence of the
		 * dropped rdc_unused(), rdc_b.cu:13 at address 0, is ignored) */
		lines_within(c, "rdc_kernel_a", "rdc_a.cu", 1, mark("rdc_a.cu", "rdc_a_call") + 1,
			     mark("rdc_a.cu", "rdc_a_call"));
		cubin_free(c);
	}
}

/* Both answer the same at every PC of every function (and past them). */
struct both {
	const struct cubin *a, *b;
	unsigned long pcs;
};

static int same_str(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

static int cmp_func(void *ctx, const char *name, uint64_t size, int kernel)
{
	struct both *m = ctx;

	for (uint64_t pc = 0; pc <= size + 16; pc += pc < size ? 4 : 16) {
		struct cubin_frame f[MAXF], g[MAXF];
		int n = cubin_resolve(m->a, name, pc, f, MAXF);

		assert_int_equal(cubin_resolve(m->b, name, pc, g, MAXF), n);
		for (int i = 0; i < n; i++) {
			assert_string_equal(f[i].func, g[i].func);
			assert_true(same_str(f[i].file, g[i].file));
			assert_true(same_str(f[i].dir, g[i].dir));
			assert_int_equal(f[i].line, g[i].line);
			assert_int_equal(f[i].inlined, g[i].inlined);
		}
		m->pcs++;
	}
	return 0;
}

static int count_func(void *ctx, const char *name, uint64_t size, int kernel)
{
	(*(unsigned *)ctx)++;
	return 0;
}

static void round_trip(const struct cubin *c)
{
	uint8_t *buf = malloc(3), *buf2 = NULL;
	size_t len = 3, len2 = 0;
	struct cubin *l = NULL;
	struct both m = {.a = c};
	unsigned n1 = 0, n2 = 0;

	/* appended after what the buffer held */
	assert_non_null(buf);
	memcpy(buf, "abc", 3);
	assert_int_equal(cubin_save(c, &buf, &len), 0);
	assert_memory_equal(buf, "abc", 3);
	assert_int_equal(cubin_load(buf + 3, len - 3, &l), 0);
	assert_int_equal(cubin_has_lines(l), cubin_has_lines(c));
	m.b = l;
	cubin_functions(c, cmp_func, &m);
	assert_true(m.pcs > 0);
	cubin_functions(c, count_func, &n1);
	cubin_functions(l, count_func, &n2);
	assert_int_equal(n1, n2);
	/* saved again: the same bytes */
	assert_int_equal(cubin_save(l, &buf2, &len2), 0);
	assert_int_equal(len2, len - 3);
	assert_memory_equal(buf2, buf + 3, len2);
	/* a byte more or a byte short: refused */
	{
		struct cubin *x = (struct cubin *)1;
		uint8_t *more = malloc(len2 + 1);

		assert_non_null(more);
		memcpy(more, buf2, len2);
		more[len2] = 0;
		assert_int_equal(cubin_load(more, len2 + 1, &x), -EINVAL);
		assert_null(x);
		x = (struct cubin *)1;
		assert_int_equal(cubin_load(buf2, len2 - 1, &x), -EINVAL);
		assert_null(x);
		free(more);
	}
	cubin_free(l);
	free(buf);
	free(buf2);
}

static void test_save_load(void **state)
{
	const char *names[] = {"symtest_sm75", "symtest_sm90", "symtest_sm100", "symtest_noline",
			       "rdc_sm75",     "rdc_sm90",     "rdc_sm100"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct cubin *c = fixture(names[i]);

		round_trip(c);
		cubin_free(c);
	}
}

/* damaged fixtures (REL, RELA, device-linked) and their damaged images */
static void test_damaged_fixtures(void **state)
{
	const char *names[] = {"symtest_sm75", "symtest_sm90", "rdc_sm100"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct cubin *c = fixture(names[i]);
		char path[4096];
		size_t len;
		uint8_t *data;

		damage_image(c);
		cubin_free(c);
		snprintf(path, sizeof(path), "%s/%s.cubin", ZT_TEST_CUBINS, names[i]);
		data = slurp(path, &len);
		assert_non_null(data);
		damage(data, len);
		free(data);
	}
}

/* Resolve everything (whatever the answer), to run the lookups over a
 * cubin decoded from damaged bytes. */
static int touch_func(void *ctx, const char *name, uint64_t size, int kernel)
{
	for (uint64_t pc = 0; pc < size + 32 && pc < (1u << 20); pc += 16) {
		struct cubin_frame f[MAXF];
		int n = cubin_resolve(ctx, name, pc, f, MAXF);

		assert_true(n >= 0 && n <= MAXF);
		for (int i = 0; i < n; i++) {
			assert_non_null(f[i].func);
			if (f[i].file)
				(void)strlen(f[i].file);
		}
	}
	return 0;
}

/* Truncations and garbled bytes: an error or a cubin that answers. */
static void damage(const uint8_t *data, size_t len)
{
	uint8_t *m = malloc(len);
	uint32_t rng = 12345;
	size_t i, step = len / 512 + 1;

	assert_non_null(m);
	for (i = 0; i < len; i += step) {
		struct cubin *c = NULL;
		int ret = cubin_open(data, i, &c);

		assert_true(ret == 0 || ret == -EINVAL);
		if (!ret) {
			cubin_functions(c, touch_func, c);
			cubin_free(c);
		} else {
			assert_null(c);
		}
	}
	for (i = 0; i < 600; i++) {
		struct cubin *c = NULL;
		int ret;

		memcpy(m, data, len);
		for (int k = 0; k < 4; k++) {
			rng = rng * 1103515245 + 12345;
			m[(rng >> 8) % len] = (uint8_t)(rng >> 3);
		}
		ret = cubin_open(m, len, &c);
		assert_true(ret == 0 || ret == -EINVAL);
		if (!ret) {
			cubin_functions(c, touch_func, c);
			cubin_free(c);
		}
	}
	free(m);
}

/* a damaged image is refused, or answers without crashing */
static void damage_image(const struct cubin *c)
{
	uint8_t *buf = NULL;
	size_t len = 0, i;
	uint32_t rng = 777;

	assert_int_equal(cubin_save(c, &buf, &len), 0);
	for (i = 0; i < len; i += len / 300 + 1) {
		struct cubin *l = NULL;

		assert_int_equal(cubin_load(buf, i, &l), -EINVAL);
		assert_null(l);
	}
	for (i = 0; i < 2000; i++) {
		uint8_t *m = malloc(len);
		struct cubin *l = NULL;
		int ret;

		assert_non_null(m);
		memcpy(m, buf, len);
		rng = rng * 1103515245 + 12345;
		m[(rng >> 8) % len] ^= (uint8_t)(1u << ((rng >> 4) % 8));
		ret = cubin_load(m, len, &l);
		assert_true(ret == 0 || ret == -EINVAL);
		if (!ret) {
			cubin_functions(l, touch_func, l);
			cubin_free(l);
		}
		free(m);
	}
	free(buf);
}

/* the fuzz seeds (committed): no CUDA needed */
static void test_seeds(void **state)
{
	const char *seeds[] = {SEEDS "/seed-sm75.cubin", SEEDS "/seed-sm90.cubin",
			       SEEDS "/seed-rdc-sm90.cubin"};

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		size_t len;
		uint8_t *data = slurp(seeds[i], &len);
		struct cubin *c = NULL;
		struct cubin_frame f[MAXF];
		int n;

		assert_non_null(data);
		assert_true(cubin_is_cubin(data, len));
		assert_int_equal(cubin_open(data, len, &c), 0);
		assert_true(cubin_has_lines(c));
		n = cubin_resolve(c, i < 2 ? "kb" : "k2", 0, f, MAXF);
		assert_int_equal(n, 1);
		assert_non_null(f[0].file);
		round_trip(c);
		damage_image(c);
		damage(data, len);
		cubin_free(c);
		free(data);
	}
}

/*
 * The device-linked seed (seed-rdc-sm90.cubin, nvlink of two units; see
 * fuzz_cubin.c): sm_90 leaves the second unit's string base 0, and the
 * dropped unused2() left an orphan sequence at address 0 (c2.cu:3, where
 * CUPTI's answer for k1's first 16 PCs is wrong).
 */
static void test_seed_device_linked(void **state)
{
	size_t len;
	uint8_t *data = slurp(SEEDS "/seed-rdc-sm90.cubin", &len);
	const struct want only2[] = {{"_Z5only2f", "c2.cu", 2, 1}, {"k2", "c2.cu", 4, 0}};
	const struct want shared[] = {{"_Z9shared_fnf", "h.cuh", 1, 1}, {"k2", "c2.cu", 4, 0}};
	const struct want only1[] = {{"_Z5only1f", "c1.cu", 2, 1}, {"k1", "c1.cu", 3, 0}};
	struct cubin *c = NULL;

	assert_non_null(data);
	assert_int_equal(cubin_open(data, len, &c), 0);
	assert_true(find_frames(c, "k2", only2, 2) >= 0);
	assert_true(find_frames(c, "k2", shared, 2) >= 0);
	assert_true(find_frames(c, "k1", only1, 2) >= 0);
	lines_within(c, "k1", "c1.cu", 3, 3, 3);
	cubin_free(c);
	free(data);
}

static void test_not_cubins(void **state)
{
	uint8_t elf[128] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
	struct cubin *c = (struct cubin *)1;

	assert_false(cubin_is_cubin("abc", 3));
	assert_false(cubin_is_cubin(elf, sizeof(elf)));
	assert_int_equal(cubin_open(elf, sizeof(elf), &c), -EINVAL);
	assert_null(c);
	/* EM_CUDA, but nothing else: not an ELF libelf reads */
	elf[18] = 190;
	assert_true(cubin_is_cubin(elf, sizeof(elf)));
	c = NULL;
	assert_true(cubin_open(elf, sizeof(elf), &c) == -EINVAL || c != NULL);
	cubin_free(c);
	assert_int_equal(cubin_load("ZTCUBIN", 8, &c), -EINVAL);
	assert_int_equal(cubin_load("", 0, &c), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernels_lines), cmocka_unit_test(test_noinline_callee),
		cmocka_unit_test(test_header_inline), cmocka_unit_test(test_no_lineinfo),
		cmocka_unit_test(test_device_linked), cmocka_unit_test(test_device_debug),
		cmocka_unit_test(test_save_load),     cmocka_unit_test(test_damaged_fixtures),
		cmocka_unit_test(test_seeds),	      cmocka_unit_test(test_seed_device_linked),
		cmocka_unit_test(test_not_cubins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
