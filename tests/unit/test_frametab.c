/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frametab: each (address space, address) resolved once, a binary's file
 * offset once across processes, kernel addresses in their own space,
 * inline frames, errors of the source, reset, and frame names.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "libprof/frametab.h"
#include "tests/unit/fakesrc.h"

/* A profile, its tree, a fake source and a table over them. */
struct fx {
	struct profile p;
	struct proctree *pt;
	struct fakesrc src;
	struct frametab ft;
};

/*
 * pid 1 and pid 2 map "/lib/libx.so" (build id "BID1") at different
 * addresses and file offsets so that 0x11234 in pid 1 and 0x30234 in pid
 * 2 are both its offset 0x1234; pid 1 maps "/bin/p" (no build id) at
 * 0x400000; the kernel is mapped at FAKE_KADDR.
 */
static void fx_init(struct fx *x)
{
	struct frametab_source s;

	profile_init(&x->p);
	assert_int_equal(fake_task(&x->p, PROF_TASK_COMM, 1, 1, 1, "one"), 0);
	assert_int_equal(fake_task(&x->p, PROF_TASK_COMM, 1, 2, 2, "two"), 0);
	assert_int_equal(fake_mmap(&x->p, 1, 1, 0x10000, 0x10000, 0, "/lib/libx.so", "BID1"), 0);
	assert_int_equal(fake_mmap(&x->p, 2, 1, 0x30000, 0x10000, 0x1000, "/lib/libx.so", "BID1"),
			 0);
	assert_int_equal(fake_mmap(&x->p, 1, 1, 0x400000, 0x10000, 0, "/bin/p", NULL), 0);
	assert_int_equal(fake_mmap(&x->p, ZT_PID_KERNEL, 1, FAKE_KADDR, 0x1000000, 0,
				   "[kernel.kallsyms]", NULL),
			 0);
	assert_int_equal(proctree_new(&x->p, &x->pt), 0);
	fakesrc_init(&x->src);
	x->src.pt = x->pt;
	s = fakesrc_source(&x->src, 0);
	frametab_init(&x->ft, x->pt, &s);
}

static void fx_release(struct fx *x)
{
	frametab_release(&x->ft);
	proctree_free(x->pt);
	profile_release(&x->p);
}

static int res(struct fx *x, uint32_t pid, const uint64_t *ips, unsigned nk, unsigned n,
	       struct zt_frange *out)
{
	return frametab_resolve(&x->ft, pid, 100, proctree_epoch(x->pt, pid, 100), ips, nk, n, out);
}

static const struct zt_frame *fr(const struct fx *x, const struct zt_frange *r, uint32_t k)
{
	assert_true(k < r->n);
	return frametab_frame(&x->ft, r->first + k);
}

static void test_once_per_address(void **state)
{
	const uint64_t ips[] = {0x401000, 0x402000, 0x401000, 0x401010};
	struct zt_frange out[4], again[4];
	struct fx x;

	(void)state;
	fx_init(&x);
	assert_int_equal(res(&x, 1, ips, 0, 4, out), 0);
	assert_int_equal(x.src.resolves, 3);
	assert_int_equal(x.ft.nr_addrs, 3);
	assert_int_equal(x.ft.nr_frames, 3);
	assert_int_equal(out[0].first, out[2].first);
	assert_int_not_equal(out[0].first, out[1].first);
	assert_int_not_equal(out[0].first, out[3].first);
	assert_int_equal(out[0].n, 1);
	assert_string_equal(fr(&x, &out[0], 0)->sym, "f1");
	assert_string_equal(fr(&x, &out[1], 0)->sym, "f2");
	assert_ptr_equal(out[0].map, &x.p.mmaps[2]);
	/* the same addresses again: nothing new asked */
	assert_int_equal(res(&x, 1, ips, 0, 4, again), 0);
	assert_int_equal(x.src.resolves, 3);
	assert_memory_equal(out, again, sizeof(out));
	/* another epoch of the same process is another address space */
	assert_int_equal(frametab_resolve(&x.ft, 1, 100, 12345, ips, 0, 1, again), 0);
	assert_int_equal(x.src.resolves, 4);
	assert_int_not_equal(again[0].first, out[0].first);
	/* the source was told the process and time */
	assert_int_equal(x.src.last_pid, 1);
	assert_int_equal(x.src.last_ts, 100);
	assert_int_equal(x.src.last_kernel, 0);
	fx_release(&x);
}

/* Sealed: the frames stay, the index goes; asking again starts anew. */
static void test_seal(void **state)
{
	const uint64_t ips[] = {0x401000, 0x402000};
	struct zt_frange out[2], again[2];
	struct fx x;

	(void)state;
	fx_init(&x);
	assert_int_equal(res(&x, 1, ips, 0, 2, out), 0);
	assert_int_equal(x.src.resolves, 2);
	frametab_seal(&x.ft);
	assert_int_equal(x.ft.nr_frames, 2);
	assert_int_equal(x.ft.cap_frames, 2);
	assert_string_equal(fr(&x, &out[0], 0)->sym, "f1");
	assert_string_equal(fr(&x, &out[1], 0)->sym, "f2");
	assert_int_equal(res(&x, 1, ips, 0, 2, again), 0);
	assert_int_equal(x.src.resolves, 4);
	assert_int_equal(again[0].first, 2);
	assert_string_equal(fr(&x, &again[1], 0)->sym, "f2");
	assert_string_equal(fr(&x, &out[0], 0)->sym, "f1");
	/* and an empty table seals too */
	frametab_reset(&x.ft, x.pt);
	frametab_seal(&x.ft);
	frametab_seal(&x.ft);
	assert_int_equal(x.ft.nr_frames, 0);
	fx_release(&x);
}

static void test_build_id_offset_once(void **state)
{
	const uint64_t a1[] = {0x11234}, a2[] = {0x30234};
	struct zt_frange r1, r2;
	struct fx x;

	(void)state;
	fx_init(&x);
	assert_int_equal(res(&x, 1, a1, 0, 1, &r1), 0);
	assert_int_equal(res(&x, 2, a2, 0, 1, &r2), 0);
	/* one binary, one offset: resolved once, the same frames */
	assert_int_equal(x.src.resolves, 1);
	assert_int_equal(x.ft.nr_addrs, 1);
	assert_int_equal(r1.first, r2.first);
	assert_int_equal(r1.n, r2.n);
	assert_string_equal(fr(&x, &r1, 0)->sym, "f1");
	/* but each process's own mapping */
	assert_ptr_equal(r1.map, &x.p.mmaps[0]);
	assert_ptr_equal(r2.map, &x.p.mmaps[1]);
	/* again in each: no new call, the same mappings */
	assert_int_equal(res(&x, 2, a2, 0, 1, &r2), 0);
	assert_int_equal(res(&x, 1, a1, 0, 1, &r1), 0);
	assert_int_equal(x.src.resolves, 1);
	assert_ptr_equal(r1.map, &x.p.mmaps[0]);
	assert_ptr_equal(r2.map, &x.p.mmaps[1]);
	fx_release(&x);
}

/* A per-process source: the same binary offset asked in each process
 * (zt serve names a file's frame by each mapping's own path). */
static void test_per_process(void **state)
{
	const uint64_t a1[] = {0x11234}, a2[] = {0x30234};
	struct frametab_source s;
	struct zt_frange r1, r2;
	struct fx x;

	(void)state;
	fx_init(&x);
	s = fakesrc_source(&x.src, 0);
	s.per_process = 1;
	frametab_release(&x.ft);
	frametab_init(&x.ft, x.pt, &s);
	assert_int_equal(res(&x, 1, a1, 0, 1, &r1), 0);
	assert_int_equal(res(&x, 2, a2, 0, 1, &r2), 0);
	assert_int_equal(x.src.resolves, 2);
	assert_int_equal(x.ft.nr_addrs, 2);
	assert_int_not_equal(r1.first, r2.first);
	assert_ptr_equal(r1.map, &x.p.mmaps[0]);
	assert_ptr_equal(r2.map, &x.p.mmaps[1]);
	/* again in each: still one call each */
	assert_int_equal(res(&x, 2, a2, 0, 1, &r2), 0);
	assert_int_equal(res(&x, 1, a1, 0, 1, &r1), 0);
	assert_int_equal(x.src.resolves, 2);
	fx_release(&x);
}

static void test_other_build_id_same_offset(void **state)
{
	const uint64_t a1[] = {0x11234}, a3[] = {0x51234};
	struct zt_frange r1, r3;
	struct profile p;
	struct proctree *pt;
	struct fakesrc src;
	struct frametab ft;
	struct frametab_source s;

	(void)state;
	profile_init(&p);
	assert_int_equal(fake_mmap(&p, 1, 1, 0x10000, 0x10000, 0, "/lib/libx.so", "BID1"), 0);
	assert_int_equal(fake_mmap(&p, 3, 1, 0x50000, 0x10000, 0, "/lib/liby.so", "BID2"), 0);
	assert_int_equal(proctree_new(&p, &pt), 0);
	fakesrc_init(&src);
	s = fakesrc_source(&src, 0);
	frametab_init(&ft, pt, &s);
	assert_int_equal(frametab_resolve(&ft, 1, 100, proctree_epoch(pt, 1, 100), a1, 0, 1, &r1),
			 0);
	assert_int_equal(frametab_resolve(&ft, 3, 100, proctree_epoch(pt, 3, 100), a3, 0, 1, &r3),
			 0);
	assert_int_equal(src.resolves, 2);
	assert_int_not_equal(r1.first, r3.first);
	frametab_release(&ft);
	proctree_free(pt);
	profile_release(&p);
}

static void test_kernel_space(void **state)
{
	const uint64_t s1[] = {FAKE_KADDR, FAKE_KADDR + 0x1000, 0x401000},
		       s2[] = {FAKE_KADDR, 0x11000}, u[] = {FAKE_KADDR};
	struct zt_frange o1[3], o2[2], ou;
	struct fx x;

	(void)state;
	fx_init(&x);
	assert_int_equal(res(&x, 1, s1, 2, 3, o1), 0);
	assert_int_equal(x.src.resolves, 3);
	assert_int_equal(res(&x, 2, s2, 1, 2, o2), 0);
	/* the kernel address is the same in every process */
	assert_int_equal(x.src.resolves, 4);
	assert_int_equal(o1[0].first, o2[0].first);
	assert_string_equal(fr(&x, &o1[0], 0)->sym, "kfunc");
	assert_string_equal(fr(&x, &o1[1], 0)->sym, "kfunc2");
	assert_int_equal(fr(&x, &o1[0], 0)->kernel, 1);
	assert_ptr_equal(o1[0].map, &x.p.mmaps[3]);
	assert_ptr_equal(o2[0].map, &x.p.mmaps[3]);
	assert_string_equal(fr(&x, &o1[2], 0)->sym, "f1");
	/* the same number as a user address is another address */
	assert_int_equal(res(&x, 1, u, 0, 1, &ou), 0);
	assert_int_equal(x.src.resolves, 5);
	assert_int_equal(x.src.last_kernel, 0);
	assert_int_not_equal(ou.first, o1[0].first);
	assert_null(fr(&x, &ou, 0)->sym);
	assert_int_equal(fr(&x, &ou, 0)->kernel, 0);
	assert_null(ou.map);
	fx_release(&x);
}

static void test_inline_frames(void **state)
{
	const uint64_t ips[] = {0x404100, 0x401000, 0x404200};
	struct zt_frange out[3];
	const struct zt_frame *f;
	struct fx x;

	(void)state;
	fx_init(&x);
	assert_int_equal(res(&x, 1, ips, 0, 3, out), 0);
	assert_int_equal(x.src.resolves, 3);
	assert_int_equal(x.ft.nr_addrs, 3);
	assert_int_equal(x.ft.nr_frames, 7);
	assert_int_equal(out[0].n, 3);
	assert_int_equal(out[1].n, 1);
	assert_int_equal(out[2].n, 3);
	assert_int_equal(out[0].first, 0);
	assert_int_equal(out[1].first, 3);
	assert_int_equal(out[2].first, 4);
	/* innermost first, the function last */
	f = fr(&x, &out[0], 0);
	assert_string_equal(f->sym, "leafy");
	assert_int_equal(f->inlined, 1);
	assert_int_equal(f->line, 41);
	f = fr(&x, &out[0], 1);
	assert_string_equal(f->sym, "middle");
	assert_int_equal(f->inlined, 1);
	assert_int_equal(f->line, 50);
	f = fr(&x, &out[0], 2);
	assert_string_equal(f->sym, "outer");
	assert_int_equal(f->inlined, 0);
	assert_int_equal(f->line, 60);
	assert_int_equal(f->sline, 41);
	assert_int_equal(fr(&x, &out[2], 0)->line, 42);
	fx_release(&x);
}

static void test_source_errors(void **state)
{
	const uint64_t bad[] = {0x401000, FAKE_ADDR_EIO}, empty[] = {FAKE_ADDR_EMPTY},
		       ok[] = {0x401000};
	struct zt_frange out[2];
	struct fx x;

	(void)state;
	fx_init(&x);
	assert_int_equal(res(&x, 1, bad, 0, 2, out), -EIO);
	/* a source that gives no frame is wrong */
	assert_int_equal(res(&x, 1, empty, 0, 1, out), -EINVAL);
	assert_int_equal(x.src.resolves, 3);
	/* what did resolve stays */
	assert_int_equal(res(&x, 1, ok, 0, 1, out), 0);
	assert_int_equal(x.src.resolves, 3);
	assert_string_equal(fr(&x, &out[0], 0)->sym, "f1");
	fx_release(&x);
}

static void test_many_and_reset(void **state)
{
	enum { N = 5000 };
	static uint64_t ips[N];
	static struct zt_frange out[N], again[N];
	struct fx x;
	unsigned i;

	(void)state;
	fx_init(&x);
	for (i = 0; i < N; i++)
		ips[i] = 0x1000000 + 0x10000ull * i;	 /* "[unknown]": frames keep the address */
	assert_int_equal(res(&x, 1, ips, 0, N, out), 0); /* through the table's growth */
	assert_int_equal(x.src.resolves, N);
	assert_int_equal(x.ft.nr_addrs, N);
	assert_int_equal(res(&x, 1, ips, 0, N, again), 0);
	assert_int_equal(x.src.resolves, N);
	assert_memory_equal(out, again, sizeof(out));
	for (i = 0; i < N; i++)
		assert_int_equal(fr(&x, &out[i], 0)->addr, ips[i]);

	frametab_reset(&x.ft, x.pt);
	assert_int_equal(x.ft.nr_frames, 0);
	assert_int_equal(x.ft.nr_addrs, 0);
	assert_int_equal(res(&x, 1, ips, 0, 2, out), 0);
	assert_int_equal(x.src.resolves, N + 2);
	assert_int_equal(out[0].first, 0);
	assert_int_equal(out[1].first, 1);
	assert_int_equal(x.ft.nr_addrs, 2);
	/* reserving keeps what is there */
	assert_int_equal(frametab_reserve(&x.ft, 100000), 0);
	assert_int_equal(res(&x, 1, ips, 0, 2, again), 0);
	assert_int_equal(x.src.resolves, N + 2);
	assert_memory_equal(out, again, 2 * sizeof(*out));
	fx_release(&x);
}

static void test_time_sensitive(void **state)
{
	struct fx x;
	struct frametab plain;
	struct frametab_source s = fakesrc_source(&x.src, 0);

	(void)state;
	fx_init(&x);
	x.src.time_pid = 5;
	assert_int_equal(frametab_time_sensitive(&x.ft, 5), 1);
	assert_int_equal(frametab_time_sensitive(&x.ft, 6), 0);
	s.time_sensitive = NULL;
	frametab_init(&plain, x.pt, &s);
	assert_int_equal(frametab_time_sensitive(&plain, 5), 0);
	frametab_release(&plain);
	fx_release(&x);
}

/* Transient: every address asked each time, the frames from the table's
 * start, the same frames and mappings as a keeping table's. */
static void test_transient(void **state)
{
	const uint64_t ips[] = {FAKE_KADDR + 0x100, 0x404100, 0x401000, 0x401000, 0x11234};
	struct zt_frange out[5], kept[5];
	struct fx x, y;
	unsigned i, k;

	(void)state;
	fx_init(&x);
	fx_init(&y);
	frametab_transient(&x.ft);
	assert_int_equal(res(&x, 1, ips, 1, 5, out), 0);
	assert_int_equal(x.src.resolves, 5);
	assert_int_equal(out[0].first, 0);
	assert_int_equal(x.ft.nr_frames, 1 + 3 + 1 + 1 + 1);
	assert_int_equal(res(&y, 1, ips, 1, 5, kept), 0);
	assert_int_equal(y.src.resolves, 4);
	for (i = 0; i < 5; i++) {
		assert_int_equal(out[i].n, kept[i].n);
		/* (two profiles alike: the same mapping's index) */
		assert_true((out[i].map == NULL) == (kept[i].map == NULL));
		if (out[i].map)
			assert_int_equal(out[i].map - x.p.mmaps, kept[i].map - y.p.mmaps);
		for (k = 0; k < out[i].n; k++) {
			assert_string_equal(fr(&x, &out[i], k)->sym, fr(&y, &kept[i], k)->sym);
			assert_int_equal(fr(&x, &out[i], k)->inlined, fr(&y, &kept[i], k)->inlined);
		}
	}
	assert_ptr_equal(out[4].map, &x.p.mmaps[0]);
	assert_string_equal(fr(&x, &out[1], 0)->sym, "leafy");
	/* again: asked again, the frames over the last call's */
	assert_int_equal(res(&x, 1, ips + 2, 0, 1, out), 0);
	assert_int_equal(x.src.resolves, 6);
	assert_int_equal(out[0].first, 0);
	assert_int_equal(x.ft.nr_frames, 1);
	assert_string_equal(fr(&x, &out[0], 0)->sym, "f1");
	assert_int_equal(x.ft.nr_addrs, 6);
	fx_release(&y);
	fx_release(&x);
}

static void test_frame_name(void **state)
{
	struct zt_frame f = {.sym = "main", .module = "prog"};
	struct prof_mmap m = {0};
	char buf[64], small[8];

	(void)state;
	assert_string_equal(zt_frame_name(&f, buf, sizeof(buf)), "main");
	f = (struct zt_frame){.module = "libc.so.6", .offset = 0x2724a, .map = &m};
	assert_string_equal(zt_frame_name(&f, buf, sizeof(buf)), "[libc.so.6+0x2724a]");
	f.map = NULL; /* a named module without its mapping: still by offset */
	assert_string_equal(zt_frame_name(&f, buf, sizeof(buf)), "[libc.so.6+0x2724a]");
	f = (struct zt_frame){.module = "[vdso]", .offset = 0x9e0, .map = &m};
	assert_string_equal(zt_frame_name(&f, buf, sizeof(buf)), "[vdso+0x9e0]");
	f = (struct zt_frame){
		.module = "[kernel.kallsyms]", .offset = 0xffffffff81000010ull, .kernel = 1};
	assert_string_equal(zt_frame_name(&f, buf, sizeof(buf)),
			    "[kernel.kallsyms+0xffffffff81000010]");
	f = (struct zt_frame){.module = "[unknown]", .offset = 0x1234};
	assert_string_equal(zt_frame_name(&f, buf, sizeof(buf)), "[unknown]");
	f.module = NULL;
	assert_string_equal(zt_frame_name(&f, buf, sizeof(buf)), "[unknown]");
	f.kernel = 1; /* a kernel address in no module */
	assert_string_equal(zt_frame_name(&f, buf, sizeof(buf)), "[unknown+0x1234]");
	f = (struct zt_frame){.module = "[unknown]", .offset = 0x1234, .map = &m};
	assert_string_equal(zt_frame_name(&f, buf, sizeof(buf)), "[unknown+0x1234]");
	f = (struct zt_frame){.module = "[]", .offset = 1};
	assert_string_equal(zt_frame_name(&f, buf, sizeof(buf)), "[+0x1]");
	f = (struct zt_frame){.module = "[", .offset = 1};
	assert_string_equal(zt_frame_name(&f, buf, sizeof(buf)), "[[+0x1]");

	/* truncated to the buffer, always terminated */
	f = (struct zt_frame){.sym = "a_long_function", .module = "prog"};
	assert_ptr_equal(zt_frame_name(&f, small, sizeof(small)), small);
	assert_string_equal(small, "a_long_");
	f = (struct zt_frame){.module = "libc.so.6", .offset = 0x2724a};
	assert_string_equal(zt_frame_name(&f, small, sizeof(small)), "[libc.s");
	memcpy(small, "XYZ", 4);
	assert_ptr_equal(zt_frame_name(&f, small, 0), small);
	assert_string_equal(small, "XYZ");
}

static void test_frame_srcline(void **state)
{
	struct zt_frame f = {.sym = "main",
			     .file = "other.c",
			     .line = 7,
			     .sfile = "/src/dir/file.c",
			     .sline = 42};
	char buf[64], small[5];

	(void)state;
	/* the innermost position's base name, not the frame's own */
	assert_string_equal(zt_frame_srcline(&f, buf, sizeof(buf)), "file.c:42");
	f.sfile = "file.c";
	assert_string_equal(zt_frame_srcline(&f, buf, sizeof(buf)), "file.c:42");
	f.sfile = "/src/dir/";
	assert_string_equal(zt_frame_srcline(&f, buf, sizeof(buf)), ":42");
	f.sfile = NULL;
	assert_string_equal(zt_frame_srcline(&f, buf, sizeof(buf)), "??:0");
	f.sfile = "file.c";
	assert_string_equal(zt_frame_srcline(&f, small, sizeof(small)), "file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_once_per_address),
		cmocka_unit_test(test_seal),
		cmocka_unit_test(test_build_id_offset_once),
		cmocka_unit_test(test_other_build_id_same_offset),
		cmocka_unit_test(test_per_process),
		cmocka_unit_test(test_kernel_space),
		cmocka_unit_test(test_inline_frames),
		cmocka_unit_test(test_source_errors),
		cmocka_unit_test(test_many_and_reset),
		cmocka_unit_test(test_time_sensitive),
		cmocka_unit_test(test_transient),
		cmocka_unit_test(test_frame_name),
		cmocka_unit_test(test_frame_srcline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
